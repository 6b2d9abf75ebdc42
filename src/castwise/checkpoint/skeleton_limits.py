"""What a ``config.json`` may ask of the skeleton castwise builds from it, and a budget on the build.

The skeleton only tells which module classes own which tensors, so it must never cost more than
a glance, whatever the file says. A config is used only when it is well typed (``model_type`` a
short name, ``architectures`` a short list of names) and every number in it is of plausible size:
counts (layers, experts, labels, heads, blocks) at most :data:`MAX_COUNT`, any integer below
:data:`MAX_INT`. While transformers builds the model, a global module-registration hook counts the
modules it creates and stops the build past :data:`MAX_MODULES` (a 126-layer Llama has 1,700;
transformers fuses MoE experts into one module per layer). Every refusal is one line that says
why; the caller falls back to the name rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from torch import nn

MAX_COUNT = 65_536
MAX_INT = 2**24
"""Largest integer accepted anywhere in a config (the longest contexts are near 10 million)."""
MAX_MODULES = 20_000
MAX_NAME = 200
MAX_ARCHITECTURES = 16
_COUNT_KEY = re.compile(r"layer|expert|label|head|block|depth|stage|group", re.IGNORECASE)
_MODEL_TYPE = re.compile(r"[A-Za-z0-9_.-]{1,100}")


class TooManyModules(RuntimeError):
    """The skeleton being built creates more modules than :data:`MAX_MODULES`."""


def unfit_for_skeleton(config: dict[str, Any]) -> str:
    """Why ``config`` must not decide a skeleton's build (empty when it may)."""
    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        return f"names no model_type (not a transformers config): got {_kind(model_type)}"
    if not _MODEL_TYPE.fullmatch(model_type):
        return f"its model_type {model_type[:40]!r} is not a model type name"
    names = config.get("architectures")
    if names is not None and (
        not isinstance(names, list)
        or len(names) > MAX_ARCHITECTURES
        or not all(isinstance(n, str) and len(n) <= MAX_NAME and n.isidentifier() for n in names)
    ):
        return f"its 'architectures' is not a short list of class names (got {_kind(names)})"
    return next(_oversized(config, ""), "")


def _oversized(value: Any, key: str) -> Iterator[str]:
    """A line for each number in ``value`` too large for what its key counts (depth-first)."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _oversized(item, f"{key}.{name}" if key else str(name))
    elif isinstance(value, list):
        for item in value:
            yield from _oversized(item, key)
    elif isinstance(value, int) and not isinstance(value, bool):
        bound = MAX_COUNT if _COUNT_KEY.search(key.rpartition(".")[2]) else MAX_INT
        if abs(value) > bound:
            yield f"its {key[:MAX_NAME]!r} is {value:,}, more than the {bound:,} castwise builds a skeleton for"


@contextmanager
def module_budget() -> Iterator[None]:
    """Raise :class:`TooManyModules` inside the block once more than :data:`MAX_MODULES` modules are registered."""
    count, limit = 0, MAX_MODULES

    def counted(module: nn.Module, name: str, submodule: nn.Module | None) -> None:
        nonlocal count
        count += 1
        if count > limit:
            raise TooManyModules(f"it builds more than {limit:,} modules")

    handle = nn.modules.module.register_module_module_registration_hook(counted)
    try:
        yield
    finally:
        handle.remove()


def _kind(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"a {type(value).__name__}"
