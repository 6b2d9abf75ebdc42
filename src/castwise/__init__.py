"""castwise: one precision policy for how a PyTorch model stores, computes, outputs and saves.

The public names load on first use (PEP 562 ``__getattr__``): ``import castwise`` and
``castwise --help`` do not import torch, which takes seconds; ``cw.apply`` and the rest import
their home module the first time they are touched, then stay bound here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from castwise._noise import quiet_optional_extensions

__version__ = "0.1.0"

if TYPE_CHECKING:
    from castwise.checkpoint import convert, inspect, load, load_into, save
    from castwise.doctor import Report, diagnose
    from castwise.explainer import Explanation, explain
    from castwise.model import PrecisionModule, PrecisionWarning, apply, init_module, unwrap
    from castwise.policy import Policy, policies
    from castwise.training import LossScaler, PrecisionMonitor, make_optimizer

_HOMES: dict[str, tuple[str, ...]] = {
    "castwise.checkpoint": ("convert", "inspect", "load", "load_into", "save"),
    "castwise.doctor": ("Report", "diagnose"),
    "castwise.explainer": ("Explanation", "explain"),
    "castwise.model": ("PrecisionModule", "PrecisionWarning", "apply", "init_module", "unwrap"),
    "castwise.policy": ("Policy", "policies"),
    "castwise.training": ("LossScaler", "PrecisionMonitor", "make_optimizer"),
}
"""Each public name's home module (the ``TYPE_CHECKING`` imports above say the same for type checkers)."""

_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "Explanation",
    "LossScaler",
    "Policy",
    "PrecisionModule",
    "PrecisionMonitor",
    "PrecisionWarning",
    "Report",
    "apply",
    "convert",
    "diagnose",
    "explain",
    "init_module",
    "inspect",
    "load",
    "load_into",
    "make_optimizer",
    "policies",
    "save",
    "unwrap",
]

quiet_optional_extensions()


def __getattr__(name: str) -> Any:
    """Import a public name's home module on first use and bind the name here."""
    home = _HOME_OF.get(name)
    if home is None:
        raise AttributeError(f"module 'castwise' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
