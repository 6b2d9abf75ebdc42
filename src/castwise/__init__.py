"""castwise: one precision policy for how a PyTorch model stores, computes, outputs and saves."""

from castwise.model import PrecisionModule, PrecisionWarning, apply, init_module, unwrap
from castwise.policy import Policy, policies

__version__ = "0.1.0"

__all__ = [
    "Policy",
    "PrecisionModule",
    "PrecisionWarning",
    "apply",
    "init_module",
    "policies",
    "unwrap",
]
