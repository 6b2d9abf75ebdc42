"""What the model on a live exception's traceback holds: the dtype of most of its floating tensors, the few in another
dtype, and the parameters tied under two names.

A message names two dtypes but rarely the tensor behind the odd one: a Linear whose bias alone was replaced in fp32,
a BatchNorm whose running variance came from numpy as float64, an lm_head converted alone that converted the input
embedding tied to it. The outermost module on the traceback (the ``self`` of its first module method) is the model
the user called; its parameters and buffers say which tensors stand out. Only dtypes, names and module classes are
kept, and the module is told from its class alone (no attribute of an arbitrary object is read).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from types import TracebackType
from typing import Any

from castwise.explainer.spelling import is_floating, short_dtype

MAX_TENSORS = 100_000
"""Parameters and buffers of the model looked at."""

MAX_ODD = 4
"""Tensors in another dtype than the model's usual one that are named."""


@dataclass(frozen=True)
class HeldModel:
    """The model a live exception was raised in: ``usual`` is the dtype most of its floating tensors have; ``odd``
    names (up to ``MAX_ODD``) those in another, as (name, module class, short dtype), ``odd_count`` counts them all;
    ``tied`` lists parameters shared under two names in another dtype than ``usual``, as (name, other name, dtype)."""

    usual: str = ""
    odd: tuple[tuple[str, str, str], ...] = ()
    odd_count: int = 0
    tied: tuple[tuple[str, str, str], ...] = ()


def read_model(trace: TracebackType | None) -> HeldModel:
    """The model of the outermost module method on the traceback, or an empty record when there is none."""
    while trace is not None:
        owner: Any = trace.tb_frame.f_locals.get("self")
        if _is_module(owner):
            return _held(owner)
        trace = trace.tb_next
    return HeldModel()


def _is_module(owner: object) -> bool:
    """Whether ``owner`` is a ``torch.nn.Module``, told from its class alone: no attribute of the object itself is read
    (a half-built object's ``__getattr__``, as a pandas DataFrame's in its ``__init__``, can recurse without end)."""
    return any(cls.__name__ == "Module" and cls.__module__ == "torch.nn.modules.module" for cls in type(owner).__mro__)


def _held(model: Any) -> HeldModel:
    named = islice([*model.named_parameters(remove_duplicate=False), *model.named_buffers()], MAX_TENSORS)
    first: dict[int, str] = {}
    tied: list[tuple[str, str, str]] = []
    dtypes: dict[str, str] = {}
    for name, tensor in named:
        dtype = short_dtype(str(getattr(tensor, "dtype", ""))) or ""
        if id(tensor) in first:
            tied.append((first[id(tensor)], name, dtype))
        elif is_floating(dtype):
            first[id(tensor)] = name
            dtypes[name] = dtype
    usual = Counter(dtypes.values()).most_common(1)[0][0] if dtypes else ""
    odd = [(name, dtype) for name, dtype in dtypes.items() if dtype != usual]
    return HeldModel(usual, tuple((name, _owner_class(model, name), dtype) for name, dtype in odd[:MAX_ODD]), len(odd),
                     tuple(group for group in tied if group[2] != usual))


def _owner_class(model: Any, name: str) -> str:
    """The class of the module that holds the tensor ``name`` (``LayerNorm`` for ``blocks.0.norm.bias``)."""
    return type(model.get_submodule(name.rpartition(".")[0])).__name__


def odd_in(model: HeldModel, names: Iterable[str]) -> tuple[tuple[str, str, str], ...]:
    """The model's few tensors in another dtype than its usual one, when that dtype and the usual one are both among
    ``names`` (the dtypes an error met); empty when many tensors differ (a model converted in parts, not one slip)."""
    met = set(names)
    if model.usual not in met or model.odd_count > MAX_ODD - 1:
        return ()
    return tuple(entry for entry in model.odd if entry[2] in met)
