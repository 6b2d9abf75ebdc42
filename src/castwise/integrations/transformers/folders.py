"""Loading and saving transformers model folders with every tensor in the dtype it is stored in.

transformers 5 (``dtype="auto"``) picks one dtype for the whole model, so bf16 weights with fp32
norms come back all-bf16. ``from_pretrained`` loads in the widest stored dtype (an exact upcast),
sets each tensor back to its stored dtype from the file headers, and makes the fp32 modules
compute in fp32 and hand back the 16-bit dtype, so the model runs as loaded.
``save_pretrained`` writes a folder in a storage dtype through ``cw.convert``; ``weights_from_zero``
rewrites a Trainer checkpoint's weights from the DeepSpeed ZeRO checkpoint inside it.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from fnmatch import fnmatch
from itertools import chain
from pathlib import Path
from typing import Any

import torch
from torch import nn

from castwise.checkpoint import CheckpointError, convert, inspect
from castwise.checkpoint.atomic import remove_stale_temporaries, scratch_folder
from castwise.checkpoint.dtypes import CASTABLE
from castwise.checkpoint.layout import CONFIG_NAME
from castwise.checkpoint.zero import tag_folder
from castwise.integrations.storage import kept_fp32_modules, storage_policy
from castwise.model import unwrap
from castwise.model.keep_fp32 import attach_fp32_compute
from castwise.policy import Policy

_LOW = (torch.bfloat16, torch.float16)
_MODEL_WEIGHTS = (
    "model.safetensors", "model-*-of-*.safetensors", "model.safetensors.index.json",
    "pytorch_model.bin", "pytorch_model-*-of-*.bin", "pytorch_model.bin.index.json",
)
"""The weight files transformers writes in a model folder: what ``save_pretrained`` replaces."""


def from_pretrained(path: str | Path, model_class: Any = None, **kwargs: Any) -> nn.Module:
    """Load a transformers model folder keeping every stored dtype (``model_class``: AutoModel).

    Modules stored in fp32 among 16-bit weights compute in fp32 and hand back the 16-bit dtype
    (as under ``cw.apply``), so ``model(...)`` and ``model.generate(...)`` run as loaded.
    """
    if "dtype" in kwargs or "torch_dtype" in kwargs:
        raise TypeError("from_pretrained keeps each stored dtype; call model_class.from_pretrained to force one")
    if model_class is None:
        from transformers import AutoModel as model_class
    tensors = [t for t in inspect(path).tensors if t.dtype in CASTABLE]
    stored = {t.name: t.dtype for t in tensors}
    widest = max(stored.values(), key=lambda d: d.itemsize, default=None)
    model = model_class.from_pretrained(path, dtype=widest, **kwargs)
    prefix = getattr(model, "base_model_prefix", "") or ""
    for name, tensor in chain(model.named_parameters(), model.named_buffers()):
        dtype = _stored_dtype(name, stored, prefix)
        if dtype is not None and tensor.is_floating_point() and tensor.dtype != dtype:
            _set_dtype(model, name, tensor, dtype)
    elements: Counter[torch.dtype] = Counter()
    for t in tensors:
        elements[t.dtype] += t.nbytes // t.dtype.itemsize
    if elements:
        _run_as_loaded(model, elements.most_common(1)[0][0])
    return model


def _stored_dtype(name: str, stored: dict[str, torch.dtype], prefix: str) -> torch.dtype | None:
    """The stored dtype of a model tensor, allowing for the base-model prefix on either side."""
    candidates = [name]
    if prefix:
        candidates += [f"{prefix}.{name}", name.removeprefix(f"{prefix}.")]
    return next((stored[c] for c in candidates if c in stored), None)


def _set_dtype(model: nn.Module, name: str, tensor: torch.Tensor, dtype: torch.dtype) -> None:
    if isinstance(tensor, nn.Parameter):
        tensor.data = tensor.data.to(dtype)
        return
    owner, _, leaf = name.rpartition(".")
    model.get_submodule(owner)._buffers[leaf] = tensor.to(dtype)


def _run_as_loaded(model: nn.Module, main: torch.dtype) -> None:
    """Make the fp32 modules of a model stored mostly in ``main`` (16-bit) compute in fp32 and
    hand back ``main``: the mechanism ``cw.apply`` uses for a ``main``-true policy."""
    if main not in _LOW:
        return
    fp32 = tuple(name for name, module in model.named_modules() if name and _holds_only_fp32(module))
    if fp32:
        attach_fp32_compute(model, Policy(main, main, keep_fp32=fp32))


def _holds_only_fp32(module: nn.Module) -> bool:
    floating = [p for p in module.parameters(recurse=False) if p.is_floating_point()]
    return bool(floating) and all(p.dtype == torch.float32 for p in floating)


def save_pretrained(
    model: nn.Module,
    path: str | Path,
    dtype: str | torch.dtype | None = None,
    keep_fp32: Iterable[str] | None = None,
    force: bool = False,
    **kwargs: Any,
) -> Path:
    """Save a transformers model into folder ``path`` in storage ``dtype``, ``config.json`` declaring it.

    ``dtype`` defaults to the param dtype of the policy a ``cw.apply`` wrapper carries. Kept
    modules are stored fp32: those the policy keeps (norms, the model's ``_keep_in_fp32_modules``)
    unless ``keep_fp32`` gives module name globs. Each file (weights, index, config) appears
    atomically; other files in the folder (tokenizer, notes, ``checkpoint-*/``) are left alone.
    Weights already there are replaced only with ``force=True`` (as ``cw.convert``). ``kwargs``
    go to transformers' ``save_pretrained`` (``max_shard_size``, ``state_dict``, ...).
    """
    if kwargs.get("push_to_hub"):
        raise TypeError("save_pretrained writes a local folder; upload it with huggingface_hub.upload_folder")
    inner = unwrap(model)
    policy = storage_policy(model, dtype)
    kept = tuple(keep_fp32) if keep_fp32 is not None else kept_fp32_modules(inner, policy)
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise CheckpointError(f"{path} is a file; save_pretrained writes a model folder")
    replaced = _model_weights(path)
    if replaced and not force:
        names = ", ".join(p.name for p in sorted(replaced))
        raise CheckpointError(f"{path} already holds model weights ({names}); pass force=True to replace them")
    remove_stale_temporaries(path)
    with scratch_folder(path) as staging:
        saved, converted = Path(staging, "saved"), Path(staging, "converted")
        _save_with_transformers(inner, saved, **kwargs)
        convert(saved, converted, dtype=policy.param_dtype, keep_fp32=kept)
        _install(converted, path, replaced)
    return path


def weights_from_zero(
    folder: str | Path, dtype: torch.dtype, keep_fp32: Iterable[str], max_shard_size: int | str | None = None
) -> Path:
    """Replace the model weights of Trainer checkpoint ``folder`` with the fp32 master of the DeepSpeed
    ZeRO checkpoint inside it, in ``dtype`` (modules matching ``keep_fp32`` fp32); its config.json says ``dtype``."""
    folder = Path(folder)
    tag = tag_folder(folder)
    if tag is None:
        raise CheckpointError(f"{folder}: holds no DeepSpeed ZeRO checkpoint ('latest' and its tag folder)")
    config = folder / CONFIG_NAME
    remove_stale_temporaries(folder)
    with scratch_folder(folder) as staging:
        converted = Path(staging, "converted")
        convert(
            tag, converted, dtype, keep_fp32=tuple(keep_fp32), max_shard_size=max_shard_size,
            config=config if config.is_file() else None,
        )
        _install(converted, folder, _model_weights(folder))
    return folder


def _install(converted: Path, folder: Path, replaced: set[Path]) -> None:
    """Move the converted files into ``folder`` and remove the weight files they do not replace."""
    folder.mkdir(exist_ok=True)
    written = _move_into(converted, folder)
    for stale in replaced - written:
        stale.unlink(missing_ok=True)


def _save_with_transformers(model: nn.Module, folder: Path, **kwargs: Any) -> None:
    """transformers' own ``save_pretrained`` of the model's class (past any stand-in on the instance)."""
    from transformers import PreTrainedModel

    if not isinstance(model, PreTrainedModel):
        raise TypeError(f"save_pretrained saves a transformers PreTrainedModel, got {type(model).__name__}")
    type(model).save_pretrained(model, folder, **kwargs)


def _model_weights(folder: Path) -> set[Path]:
    if not folder.is_dir():
        return set()
    return {p for p in folder.iterdir() if p.is_file() and any(fnmatch(p.name, w) for w in _MODEL_WEIGHTS)}


def _move_into(staged: Path, folder: Path) -> set[Path]:
    """Move the (synced) files of ``staged`` into ``folder``, each by one atomic rename: weights
    first, ``config.json`` last, so a reader never finds a config declaring weights not there yet."""
    files = (p for p in staged.iterdir() if p.is_file())
    order = sorted(files, key=lambda p: (p.suffix == ".json", p.name == "config.json"))
    for file in order:
        os.replace(file, folder / file.name)
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return {folder / p.name for p in order}
