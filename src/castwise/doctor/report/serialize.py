"""Rebuilding nested dataclasses from the plain dicts ``dataclasses.asdict`` produced."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T")


def from_dict(cls: type[T], data: Any) -> T:
    """Build ``cls`` (a dataclass) from ``data``, recursing into typed lists, dicts, optionals and enums."""
    return _build(cls, data)


def _build(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        return _build(inner[0], value) if len(inner) == 1 else value
    if origin is list:
        (item,) = typing.get_args(hint)
        return [_build(item, v) for v in value]
    if origin is dict:
        _, item = typing.get_args(hint)
        return {k: _build(item, v) for k, v in value.items()}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        known = {f.name for f in dataclasses.fields(hint)}
        build: Any = hint
        return build(**{k: _build(hints[k], v) for k, v in value.items() if k in known})
    return value
