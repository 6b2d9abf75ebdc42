"""The module classes that own each tensor of a checkpoint, when they can be known.

With a model at hand they come from the model. For a Hugging Face folder they come from the
model skeleton transformers builds from ``config.json`` on the meta device: no memory, no
weights, and never remote code (only classes transformers itself ships).
"""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.hf_config import read_config
from castwise.checkpoint.skeleton_limits import module_budget, unfit_for_skeleton
from castwise.keep import declared_fp32_globs, declared_fp32_modules, is_kept, mro_names


@dataclass(frozen=True)
class Owners:
    """One model's module classes, and how stored tensor names map onto its own names."""

    label: str
    modules: dict[str, tuple[str, ...]]
    """Dotted module name (the root excluded) -> the class names of its MRO."""
    aliases: dict[str, tuple[str, ...]]
    """Parameter or buffer name -> every name of the same tensor (tied weights share one)."""
    base_prefix: str
    declared: tuple[str, ...]
    """Modules the model itself declares fp32 (transformers' ``_keep_in_fp32_modules``)."""
    declared_globs: tuple[str, ...]
    """Name globs for those modules at any depth."""

    @classmethod
    def of_module(cls, model: nn.Module, label: str) -> Owners:
        """The owners of ``model``'s parameters and buffers."""
        modules = {name: mro_names(type(m)) for name, m in model.named_modules(remove_duplicate=False) if name}
        groups: dict[int, list[str]] = {}
        tensors = itertools.chain(
            model.named_parameters(remove_duplicate=False), model.named_buffers(remove_duplicate=False)
        )
        for name, tensor in tensors:
            groups.setdefault(id(tensor), []).append(name)
        aliases = {name: tuple(group) for group in groups.values() for name in group}
        prefix = getattr(model, "base_model_prefix", "")
        base = prefix if isinstance(prefix, str) else ""
        return cls(label, modules, aliases, base, declared_fp32_modules(model), declared_fp32_globs(model))

    def holds(self, name: str) -> bool:
        """True when a stored name is one of the model's tensors (after the base-model prefix)."""
        return any(candidate in self.aliases for candidate in self._candidates(name))

    def kept(self, name: str, globs: Sequence[str]) -> bool:
        """The keep rule on the model's own names and owning classes, the model's declared globs added.

        A tied tensor is kept when any of its names is; a name the model does not hold (a legacy
        spelling) is judged by the modules it does find along the name.
        """
        if not globs:
            return False
        everything = (*globs, *self.declared_globs)
        return any(is_kept(n, self._classes_along(n), everything) for n in self._names_of(name))

    def _names_of(self, name: str) -> tuple[str, ...]:
        held = next((c for c in self._candidates(name) if c in self.aliases), None)
        if held is not None:
            return (name, *self.aliases[held])
        return (name, max(self._candidates(name), key=lambda c: sum(1 for _ in self._owner_names(c))))

    def _candidates(self, name: str) -> tuple[str, ...]:
        """``name``, with the base-model prefix added, and without it (files saved from either class)."""
        if not self.base_prefix:
            return (name,)
        head = self.base_prefix + "."
        return (name, name.removeprefix(head)) if name.startswith(head) else (name, head + name)

    def _owner_names(self, name: str) -> Iterator[str]:
        parts = name.split(".")
        return (p for p in (".".join(parts[:i]) for i in range(1, len(parts))) if p in self.modules)

    def _classes_along(self, name: str) -> tuple[str, ...]:
        return tuple(c for owner in self._owner_names(name) for c in self.modules[owner])


def skeleton_owners(config_path: Path) -> tuple[Owners | None, str]:
    """Owners from the transformers skeleton ``config.json`` describes, or None and why not (one line).

    Only a well-typed config of bounded size is built from (:mod:`skeleton_limits`); never raises.
    """
    if importlib.util.find_spec("transformers") is None:
        return None, "transformers is not installed"
    try:
        config = read_config(config_path)
    except CheckpointError as exc:
        return None, str(exc)
    unfit = unfit_for_skeleton(config)
    if unfit:
        return None, f"{config_path} {unfit}"
    names = config.get("architectures") or []
    try:
        with module_budget():
            model = _skeleton(config, names)
    except Exception as exc:  # noqa: BLE001 - a config transformers cannot build means: no classes
        wanted = names[0] if names else config["model_type"]
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"transformers could not build {wanted} ({reason[:200]})"
    return Owners.of_module(model, f"the transformers skeleton of {type(model).__name__}"), ""


def _skeleton(config: dict[str, Any], architectures: list[str]) -> nn.Module:
    """The model ``config`` describes, built on the meta device (no remote code)."""
    import transformers

    settings = {k: v for k, v in config.items() if k != "model_type"}
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    try:
        hf_config = transformers.AutoConfig.for_model(config["model_type"], **settings)
        model_class = next(filter(None, (_model_class(transformers, name) for name in architectures)), None)
        with torch.device("meta"):
            if model_class is not None:
                return model_class(hf_config)
            if _zero3_registered():
                raise RuntimeError("a DeepSpeed ZeRO-3 config is registered in this process: AutoModel would build "
                                   "the skeleton under zero.Init, whose collectives wait for every rank")
            return transformers.AutoModel.from_config(hf_config, trust_remote_code=False)
    finally:
        transformers.logging.set_verbosity(verbosity)


def _zero3_registered() -> bool:
    """Whether transformers holds a ZeRO-3 DeepSpeed config (a Trainer's run), without importing DeepSpeed."""
    from transformers.integrations.deepspeed import is_deepspeed_zero3_enabled

    return bool(is_deepspeed_zero3_enabled())


def _model_class(transformers: Any, name: str) -> type | None:
    """A model class transformers itself exports under ``name``, or None."""
    candidate = getattr(transformers, name, None) if name.isidentifier() else None
    pretrained = transformers.PreTrainedModel
    return candidate if isinstance(candidate, type) and issubclass(candidate, pretrained) else None
