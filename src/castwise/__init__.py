"""castwise: one precision policy for how a PyTorch model stores, computes, outputs and saves."""

from castwise.checkpoint import convert, inspect, load, load_into, save
from castwise.doctor import Report, diagnose
from castwise.explain import Explanation, explain
from castwise.model import PrecisionModule, PrecisionWarning, apply, init_module, unwrap
from castwise.policy import Policy, policies
from castwise.training import LossScaler, PrecisionMonitor, make_optimizer

__version__ = "0.1.0"

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
