"""Which tensors stay fp32 when a checkpoint is written in a narrower dtype: castwise's one keep rule.

Globs match a tensor's name and every dotted prefix of it case-insensitively, and the classes
of the modules that own it exactly (:mod:`castwise.keep`). The classes come from the model when
one is saved, and from the transformers skeleton of a Hugging Face folder's ``config.json``. When
they cannot be known (a bare file, no transformers, an architecture transformers lacks) and the
globs are castwise's defaults, the usual norm spellings decide: 1-D tensors of modules named
``ln_*``, ``*norm*`` (:data:`castwise.keep.NORM_NAME_GLOBS`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from torch import nn

from castwise.checkpoint.owners import Owners, skeleton_owners
from castwise.keep import NORM_NAME_GLOBS, name_matches
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


def is_norm_spelling(name: str, shape: Sequence[int]) -> bool:
    """True for a 1-D (or scalar) tensor whose owning module has a usual norm name (``ln_f.bias``)."""
    owner = name.rpartition(".")[0].rpartition(".")[2]
    return len(shape) <= 1 and name_matches(owner, NORM_NAME_GLOBS)


@dataclass(frozen=True)
class KeepRule:
    """The keep decision for one checkpoint's tensors, and what it rests on."""

    globs: tuple[str, ...]
    owners: Owners | None = None
    no_classes_because: str = ""

    @classmethod
    def of_module(cls, model: nn.Module, globs: tuple[str, ...]) -> KeepRule:
        """Decide by ``model``'s own module names and classes."""
        return cls(globs, Owners.of_module(model, f"the model ({type(model).__name__})"))

    @classmethod
    def of_config(cls, config: Path | None, globs: tuple[str, ...]) -> KeepRule:
        """Decide by the classes of the transformers skeleton ``config`` describes, when it can be built."""
        if not globs:
            return cls(globs)
        if config is None:
            return cls(globs, None, "there is no config.json")
        owners, why_not = skeleton_owners(config)
        return cls(globs, owners, why_not)

    @property
    def by_spellings(self) -> bool:
        """True when the norm spellings decide for tensors of unknown classes (castwise's default globs)."""
        return self.globs == DEFAULT_KEEP_FP32

    def kept(self, name: str, shape: Sequence[int]) -> bool:
        """True when the stored tensor ``name`` of ``shape`` stays fp32."""
        if not self.globs:
            return False
        if self.owners is None:
            return is_norm_spelling(name, shape) if self.by_spellings else name_matches(name, self.globs)
        if self.owners.kept(name, self.globs):
            return True
        return self.by_spellings and not self.owners.holds(name) and is_norm_spelling(name, shape)

    def unmatched(self, tensors: Iterable[tuple[str, Sequence[int]]]) -> tuple[str, ...]:
        """The globs given instead of castwise's defaults that keep none of ``tensors`` (name, shape): a typo
        there would silently narrow every tensor it was meant to keep."""
        if self.by_spellings:
            return ()
        listed = list(tensors)
        alone = {glob: dataclasses.replace(self, globs=(glob,)) for glob in self.globs}
        return tuple(glob for glob, rule in alone.items() if not any(rule.kept(n, s) for n, s in listed))

    def describe(self, names: Iterable[str]) -> str:
        """Which rule decided, in one sentence, for the stored tensor ``names``."""
        if not self.globs:
            return "nothing kept fp32 (keep_fp32 'none')"
        spellings = "norm name spellings (1-D tensors of modules named " + ", ".join(NORM_NAME_GLOBS) + ")"
        if self.owners is None:
            if self.by_spellings:
                return f"{spellings}, as module classes are unknown: {self.no_classes_because}"
            globs = ", ".join(self.globs)
            return f"name globs {globs} (case-insensitive; module classes unknown: {self.no_classes_because})"
        sentence = f"module classes from {self.owners.label}"
        if self.owners.declared:
            sentence += f", with the modules it declares fp32 ({', '.join(self.owners.declared)})"
        strays = sum(1 for n in names if not self.owners.holds(n))
        if strays:
            rest = spellings if self.by_spellings else "name globs"
            sentence += f"; {strays} stored names it does not hold by their owning modules and {rest}"
        return sentence
