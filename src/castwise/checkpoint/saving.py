"""``save``, ``load`` and ``load_into``: state dicts that keep the dtype of every tensor."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import torch
from torch import nn

from castwise.checkpoint.atomic import atomic_file, remove_stale_temporaries
from castwise.checkpoint.dtypes import flat_chunks, storage_dtype, torch_name
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.keep import KeepRule, keep_globs
from castwise.checkpoint.layout import resolve
from castwise.checkpoint.metadata import castwise_metadata
from castwise.checkpoint.safetensors_header import plan_entries
from castwise.checkpoint.shards import claim_names
from castwise.checkpoint.source_guard import SourceGuard
from castwise.checkpoint.sources import open_source
from castwise.checkpoint.writer import SafetensorsWriter
from castwise.policy import Policy, PolicyLike, dtype_from_name


@dataclass(frozen=True)
class LoadResult:
    """What ``load_into`` did: keys the model lacked or the file lacked, and dtypes it changed."""

    missing: tuple[str, ...] = ()
    unexpected: tuple[str, ...] = ()
    changed_dtype: dict[str, tuple[str, str]] = field(default_factory=dict)


def save(
    model_or_state_dict: nn.Module | Mapping[str, torch.Tensor],
    path: str | Path,
    dtype: str | torch.dtype | None = None,
    keep_fp32: Iterable[str] | str | None = None,
    policy: PolicyLike | None = None,
) -> Path:
    """Write safetensors in ``dtype`` (default: as the tensors are), kept tensors fp32; atomic."""
    path = Path(path)
    policy = Policy.parse(policy) if policy is not None else None
    target = dtype_from_name(dtype) if dtype is not None else (policy.param_dtype if policy else None)
    globs = keep_globs(policy.keep_fp32 if keep_fp32 is None and policy else keep_fp32)
    state = _state_of(model_or_state_dict)
    if isinstance(model_or_state_dict, nn.Module):
        rule = KeepRule.of_module(_unwrapped(model_or_state_dict), globs)
    else:
        rule = KeepRule(globs, None, "a state dict holds no modules")
    plan = [(n, storage_dtype(t.dtype, target, rule.kept(n, t.shape)), tuple(t.shape)) for n, t in state.items()]
    entries = plan_entries(plan)
    kept_rule = rule.describe(state) if target is not None else None
    metadata = castwise_metadata({}, target, globs if target is not None else (), policy, kept_rule)
    if path.is_dir():
        raise CheckpointError(f"{path} is a folder; give a file name such as {path / 'model.safetensors'}")
    remove_stale_temporaries(path)
    with atomic_file(path, force=True) as file:
        writer = SafetensorsWriter(file, entries, metadata)
        for name, tensor in state.items():
            writer.write_tensor(name, flat_chunks(tensor))
        writer.finish()
    return path


def load(path: str | Path, dtype: str | torch.dtype | None = None) -> dict[str, torch.Tensor]:
    """Every tensor of a checkpoint in its stored dtype, or floating ones cast to ``dtype``."""
    target = dtype_from_name(dtype) if dtype is not None else None
    layout = resolve(path)
    guard = SourceGuard.of(layout)
    state: dict[str, torch.Tensor] = {}
    seen: dict[str, Path] = {}
    for file in layout.files:
        with closing(open_source(file)) as shard:
            claim_names(seen, file, shard.infos())
            for info in shard.infos():
                tensor = shard.read(info.name)
                state[info.name] = tensor.to(storage_dtype(tensor.dtype, target, kept=False))
    guard.check()
    return state


def load_into(model: nn.Module, path: str | Path, strict: bool = False) -> LoadResult:
    """Load a checkpoint into ``model``, each parameter and buffer taking its stored dtype; a refusal
    (a shape that differs, or with ``strict`` a missing or unexpected key) leaves ``model`` untouched."""
    target = _unwrapped(model)
    state = load(path)
    parameters = dict(target.named_parameters(remove_duplicate=False))
    buffers = dict(target.named_buffers(remove_duplicate=False))
    matched, unexpected = {}, []
    for name, tensor in state.items():
        current = parameters.get(name, buffers.get(name))
        if current is None:
            unexpected.append(name)
            continue
        if current.shape != tensor.shape:
            raise CheckpointError(
                f"{name}: the checkpoint holds shape {list(tensor.shape)} but the model expects "
                f"{list(current.shape)}; is this checkpoint for another model or config?"
            )
        matched[name] = current
    loaded = {id(current) for current in matched.values()}
    missing = [n for n, v in target.state_dict(keep_vars=True).items() if n not in state and id(v) not in loaded]
    if strict and (missing or unexpected):
        raise CheckpointError(
            f"{path}: {len(missing)} missing keys ({', '.join(missing[:3])}) and {len(unexpected)} "
            f"unexpected keys ({', '.join(unexpected[:3])}); nothing was loaded: pass strict=False to load the rest"
        )
    changed = {}
    for name, current in matched.items():
        if current.dtype != state[name].dtype:
            changed[name] = (torch_name(current.dtype), torch_name(state[name].dtype))
        _assign(target, name, current, state[name])
    return LoadResult(tuple(missing), tuple(unexpected), changed)


def _unwrapped(model: nn.Module) -> nn.Module:
    """The module inside castwise wrappers (classes that set ``__castwise_wrapper__``), else ``model``."""
    while getattr(type(model), "__castwise_wrapper__", False):
        model = cast(nn.Module, model.module)
    return model


def _assign(model: nn.Module, name: str, current: torch.Tensor, tensor: torch.Tensor) -> None:
    tensor = tensor.to(current.device)
    if isinstance(current, nn.Parameter):
        current.data = tensor
        return
    owner, _, leaf = name.rpartition(".")
    model.get_submodule(owner)._buffers[leaf] = tensor


def _state_of(obj: nn.Module | Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    state = obj.state_dict() if isinstance(obj, nn.Module) else obj
    if not isinstance(state, Mapping):
        raise CheckpointError(f"save takes an nn.Module or a state dict, got {type(obj).__name__}")
    for name, value in state.items():
        if not isinstance(name, str) or not isinstance(value, torch.Tensor):
            raise CheckpointError(f"state dict entry {name!r} is a {type(value).__name__}, not a tensor")
    return dict(state)
