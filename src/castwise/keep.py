"""The keep-fp32 rule: which modules and tensors stay in float32, the same for models and files.

A keep glob matches in one of two ways:

* a **name**: a module's dotted name, or a tensor's name and each of its dotted prefixes (the
  modules that own it), compared case-insensitively (``*layernorm*`` matches
  ``encoder.layer.0.output.LayerNorm.weight``);
* a **class**: the name of any class in a module's MRO, compared exactly (``LayerNorm`` matches
  ``nn.LayerNorm`` and its subclasses, ``*RMSNorm`` matches ``LlamaRMSNorm``).

A file holds no classes; the checkpoint side supplies a tensor's owning classes when it can tell
them (for a Hugging Face folder, from the model skeleton) and otherwise falls back on
:data:`NORM_NAME_GLOBS`, the usual spellings of norms in tensor names.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Sequence

from torch import nn

NORM_NAME_GLOBS: tuple[str, ...] = (
    "*norm*",
    "ln_*",
    "*.ln_*",
    "ln",
    "*.ln",
    "bn",
    "*.bn",
    "bn[0-9]*",
    "*.bn[0-9]*",
    "bn_*",
    "*.bn_*",
)
"""Tensor-name spellings of normalisation layers, for files whose module classes are unknown
(``ln_1``/``ln_f`` in GPT-2, ``model.norm`` in Llama, ``LayerNorm`` in BERT, ``*_layernorm``,
``bn1`` in ResNets). A BatchNorm under a bare index (ResNet's ``downsample.1``) is known only by
its class."""


def name_matches(name: str, globs: Sequence[str]) -> bool:
    """True when a glob matches ``name`` or one of its dotted prefixes, case-insensitively."""
    if not globs or not name:
        return False
    parts = name.lower().split(".")
    candidates = [".".join(parts[: i + 1]) for i in range(len(parts))]
    lowered = [g.lower() for g in globs]
    return any(fnmatch.fnmatchcase(c, g) for g in lowered for c in candidates)


def class_matches(class_names: Iterable[str], globs: Sequence[str]) -> bool:
    """True when a glob matches one of ``class_names`` exactly (case-sensitive)."""
    names = tuple(class_names)
    return any(fnmatch.fnmatchcase(c, g) for g in globs for c in names)


def is_kept(name: str, class_names: Iterable[str], globs: Sequence[str]) -> bool:
    """The keep rule: a glob matches the name (or a prefix) or one of the owning classes."""
    return bool(globs) and (name_matches(name, globs) or class_matches(class_names, globs))


def mro_names(cls: type) -> tuple[str, ...]:
    """The class names a class glob is compared with: every class in the MRO."""
    return tuple(c.__name__ for c in cls.__mro__)


def declared_fp32_modules(model: nn.Module) -> tuple[str, ...]:
    """The module names a model itself declares fp32 (transformers' ``_keep_in_fp32_modules``)."""
    declared: list[str] = []
    for attribute in ("_keep_in_fp32_modules", "_keep_in_fp32_modules_strict"):
        declared += sorted(getattr(model, attribute, None) or ())
    return tuple(dict.fromkeys(declared))


def declared_fp32_globs(model: nn.Module) -> tuple[str, ...]:
    """Name globs for the modules ``model`` declares fp32: each name at any depth, with its children."""
    names = declared_fp32_modules(model)
    return tuple(g for name in names for g in (name, f"{name}.*", f"*.{name}", f"*.{name}.*"))


def kept_modules(model: nn.Module, globs: Sequence[str]) -> Iterator[tuple[str, nn.Module]]:
    """The outermost modules of ``model`` the keep rule matches (their children are kept with them)."""
    if not globs:
        return
    kept_prefixes: list[str] = []
    for name, module in model.named_modules():
        if module is model or any(name.startswith(p) for p in kept_prefixes):
            continue
        if is_kept(name, mro_names(type(module)), globs):
            kept_prefixes.append(name + ".")
            yield name, module
