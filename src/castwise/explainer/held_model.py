"""What the modules on a live exception's traceback hold: the tensors of the module that raised in another dtype
than its input, and the model's parameters tied under two names.

A message names two dtypes but rarely the tensor behind the odd one: a Linear whose bias alone was replaced in fp32,
a BatchNorm whose running variance came from numpy as float64, an lm_head converted alone that converted the input
embedding tied to it. The innermost module on the traceback (the ``self`` of the last module method) got an input
whose dtype most of its tensors share; those that do not stand out. The outermost one is the model the user called,
where ties are found. Only dtypes, names and module classes are kept, and a module is told from its class alone (no
attribute of an arbitrary object is read). The modules of the traceback only are read, so what is named does not
depend on the rest of the model (how much of it is loaded, or kept in fp32 by a policy).
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
"""Parameters and buffers of a module looked at."""

MAX_NAMED = 3
"""Most tensors in another dtype than the input's that are named; more than that is a module converted in parts, not
one slip, and none is named."""


@dataclass(frozen=True)
class HeldModel:
    """The modules a live exception was raised in: ``usual`` is the dtype of the input the innermost one got; ``odd``
    names (up to ``MAX_NAMED``) its tensors in another dtype, as (name, module class, short dtype), ``odd_count``
    counts them all; ``tied`` lists the outermost module's parameters shared under two names in another dtype than
    most of its parameters, as (name, other name, dtype)."""

    usual: str = ""
    odd: tuple[tuple[str, str, str], ...] = ()
    odd_count: int = 0
    tied: tuple[tuple[str, str, str], ...] = ()


def read_model(trace: TracebackType | None) -> HeldModel:
    """What the modules on the traceback hold: the parameters tied in the outermost one (the model the user called),
    and the tensors of the innermost one (the module whose method raised) in another dtype than the input it got;
    an empty record when no frame is a module's."""
    outermost: Any = None
    innermost: tuple[Any, str] | None = None
    while trace is not None:
        owner: Any = trace.tb_frame.f_locals.get("self")
        if _is_module(owner):
            outermost = owner if outermost is None else outermost
            innermost = (owner, _input_dtype(trace.tb_frame.f_locals))
        trace = trace.tb_next
    if outermost is None or innermost is None:
        return HeldModel()
    module, given = innermost
    prefix = next((f"{name}." for name, found in islice(outermost.named_modules(), MAX_TENSORS)
                   if found is module and name), "")
    odd, count = _odd(module, given)
    return HeldModel(given, tuple((prefix + name, owner, dtype) for name, owner, dtype in odd), count,
                     _tied(outermost))


def _is_module(owner: object) -> bool:
    """Whether ``owner`` is a ``torch.nn.Module``, told from its class alone: no attribute of the object itself is read
    (a half-built object's ``__getattr__``, as a pandas DataFrame's in its ``__init__``, can recurse without end)."""
    return any(cls.__name__ == "Module" and cls.__module__ == "torch.nn.modules.module" for cls in type(owner).__mro__)


def tensor_dtype(value: object) -> str | None:
    """The short dtype of ``value`` when it is a torch tensor (an empty string for a dtype with no short name), told
    from its class's module and without reading other attributes; None for anything else."""
    if not (type(value).__module__.startswith("torch") and hasattr(value, "is_floating_point")):
        return None
    return short_dtype(str(getattr(value, "dtype", ""))) or ""


def _input_dtype(held: dict[str, Any]) -> str:
    """The short dtype of the first tensor a module method got after ``self`` (its input), or an empty string."""
    given = (tensor_dtype(value) for name, value in held.items() if name != "self")
    return next((dtype for dtype in given if dtype is not None), "")


def _odd(module: Any, given: str) -> tuple[tuple[tuple[str, str, str], ...], int]:
    """The module's floating parameters and buffers in another dtype than its input ``given``, when some are in
    ``given`` (else the input itself is the odd one): the first ``MAX_NAMED`` as (name, class, dtype), and their
    count."""
    named = islice([*module.named_parameters(), *module.named_buffers()], MAX_TENSORS)
    dtypes = {name: dtype for name, tensor in named
              for dtype in [short_dtype(str(getattr(tensor, "dtype", ""))) or ""] if is_floating(dtype)}
    if given not in dtypes.values():
        return (), 0
    odd = [(name, dtype) for name, dtype in dtypes.items() if dtype != given]
    return tuple((name, _owner_class(module, name), dtype) for name, dtype in odd[:MAX_NAMED]), len(odd)


def _tied(model: Any) -> tuple[tuple[str, str, str], ...]:
    """The model's parameters shared under two names whose dtype is not the one most of its parameters have."""
    first: dict[int, str] = {}
    tied: list[tuple[str, str, str]] = []
    dtypes: list[str] = []
    for name, parameter in islice(model.named_parameters(remove_duplicate=False), MAX_TENSORS):
        dtype = short_dtype(str(getattr(parameter, "dtype", ""))) or ""
        if id(parameter) in first:
            tied.append((first[id(parameter)], name, dtype))
        else:
            first[id(parameter)] = name
            dtypes.append(dtype)
    usual = Counter(dtypes).most_common(1)[0][0] if dtypes else ""
    return tuple(group for group in tied if group[2] != usual)


def _owner_class(model: Any, name: str) -> str:
    """The class of the module that holds the tensor ``name`` (``LayerNorm`` for ``blocks.0.norm.bias``)."""
    return type(model.get_submodule(name.rpartition(".")[0])).__name__


def odd_in(model: HeldModel, names: Iterable[str]) -> tuple[tuple[str, str, str], ...]:
    """The raising module's few tensors in another dtype than its input's, when that dtype and the input's are both
    among ``names`` (the dtypes an error met); empty when more than ``MAX_NAMED`` differ."""
    met = set(names)
    if model.usual not in met or model.odd_count > MAX_NAMED:
        return ()
    return tuple(entry for entry in model.odd if entry[2] in met)
