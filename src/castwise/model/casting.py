"""Casting floating tensors inside nested inputs and outputs, leaving everything else alone."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch

TensorFn = Callable[[torch.Tensor], torch.Tensor]

_BITS = {torch.float64: 64, torch.float32: 32, torch.bfloat16: 16, torch.float16: 16}


def float_bits(dtype: torch.dtype) -> int:
    """Width of a floating dtype in bits (a dict look-up for the common four: this runs per call)."""
    return _BITS.get(dtype) or torch.finfo(dtype).bits


def map_tensors(obj: Any, fn: TensorFn) -> Any:
    """Apply ``fn`` to every tensor in tuples, lists, dicts, namedtuples and dataclasses.

    Containers are rebuilt with their own type (``transformers`` ModelOutput included);
    anything that is not a tensor or a known container is returned as it is.
    """
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {
            f.name: map_tensors(getattr(obj, f.name), fn) for f in dataclasses.fields(obj) if f.init
        }
        return dataclasses.replace(obj, **changes)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(map_tensors(item, fn) for item in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(map_tensors(item, fn) for item in obj)
    if isinstance(obj, Mapping):
        return type(obj)((key, map_tensors(value, fn)) for key, value in obj.items())  # type: ignore[call-arg]
    return obj


def iter_tensors(obj: Any) -> Iterator[torch.Tensor]:
    """Every tensor in the containers :func:`map_tensors` walks, in order, without rebuilding them."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for field in dataclasses.fields(obj):
            yield from iter_tensors(getattr(obj, field.name))
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            yield from iter_tensors(item)
    elif isinstance(obj, Mapping):
        for item in obj.values():
            yield from iter_tensors(item)


def cast_inputs(obj: Any, dtype: torch.dtype) -> Any:
    """Cast floating tensors to ``dtype``; integer and bool tensors (token ids, masks) are kept."""

    def cast(t: torch.Tensor) -> torch.Tensor:
        return t.to(dtype) if t.is_floating_point() and t.dtype != dtype else t

    return map_tensors(obj, cast)


def cast_outputs(obj: Any, dtype: torch.dtype) -> Any:
    """Cast floating tensors to ``dtype`` unless that would lose bits (never a downcast)."""
    bits = float_bits(dtype)

    def cast(t: torch.Tensor) -> torch.Tensor:
        if not t.is_floating_point() or t.dtype == dtype or float_bits(t.dtype) > bits:
            return t
        return t.to(dtype)

    return map_tensors(obj, cast)
