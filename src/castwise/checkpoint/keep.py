"""Which tensors stay fp32 when a checkpoint is written in a narrower dtype.

Globs match a tensor's name and every dotted prefix of it (the names of the modules that own
it), case-insensitively: ``*norm*`` matches ``encoder.layer.0.output.LayerNorm.weight``. With a
module at hand, a glob may also name a module class (``LayerNorm``), as in policies.
"""

from __future__ import annotations

from typing import Iterable

from torch import nn

from castwise.keep import kept_modules, name_matches
from castwise.policy import DEFAULT_KEEP_FP32

NO_GLOBS = ("none",)


def keep_globs(keep_fp32: Iterable[str] | str | None) -> tuple[str, ...]:
    """Normalise a keep-fp32 argument: None means castwise's norm globs; ``()``/``"none"`` nothing."""
    if keep_fp32 is None:
        return DEFAULT_KEEP_FP32
    globs = (keep_fp32,) if isinstance(keep_fp32, str) else tuple(keep_fp32)
    return () if tuple(g.lower() for g in globs) == NO_GLOBS else globs


def kept_by_name(name: str, globs: tuple[str, ...]) -> bool:
    """True when a glob matches the tensor name or one of its module prefixes."""
    return name_matches(name, globs)


def kept_in_module(model: nn.Module, names: Iterable[str], globs: tuple[str, ...]) -> set[str]:
    """State-dict names kept by name, or because a kept module (by name or class) owns them."""
    kept_prefixes = [f"{n}." for n, _ in kept_modules(model, globs)]
    return {n for n in names if kept_by_name(n, globs) or any(n.startswith(p) for p in kept_prefixes)}
