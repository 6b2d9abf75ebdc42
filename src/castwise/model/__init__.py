"""Applying a policy to an ``nn.Module``."""

from castwise.model.boundary import forward_method
from castwise.model.device import PrecisionWarning
from castwise.model.init import init_module
from castwise.model.wrapper import PrecisionModule, apply, unwrap

__all__ = ["PrecisionModule", "PrecisionWarning", "apply", "forward_method", "init_module", "unwrap"]
