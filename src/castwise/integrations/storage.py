"""Storage rules the transformers and Accelerate integrations share.

Which modules stay fp32 on disk is the policy's keep rule (``castwise.keep``) applied to the
model, with the modules the model itself declares fp32 (transformers' ``_keep_in_fp32_modules``):
the same modules ``cw.apply`` keeps fp32 in memory. This module is the one place the
integrations ask it.
"""

from __future__ import annotations

import torch
from torch import nn

from castwise.keep import kept_modules
from castwise.model import PrecisionModule, unwrap
from castwise.model.wrapper import model_policy
from castwise.policy import Policy, PolicyLike, dtype_from_name, dtype_name


def kept_fp32_modules(model: nn.Module, policy: PolicyLike) -> tuple[str, ...]:
    """Names of the outermost modules of ``model`` that ``policy`` keeps in fp32."""
    inner = unwrap(model)
    return tuple(name for name, _ in kept_modules(inner, model_policy(inner, policy).keep_fp32))


def storage_policy(model: nn.Module, dtype: str | torch.dtype | None) -> Policy:
    """The policy whose param dtype weights are written in: ``dtype`` if given, else the policy
    of the ``cw.apply`` wrapper ``model`` is; its keep rule says which modules stay fp32."""
    if dtype is not None:
        target = dtype_from_name(dtype)
        if isinstance(model, PrecisionModule) and model.policy.is_low_precision:
            return model.policy.replace(param_dtype=target)
        return Policy.parse(f"params={dtype_name(target)}")
    if isinstance(model, PrecisionModule):
        return model.policy
    raise TypeError("saving a model not wrapped by cw.apply needs dtype= (the storage dtype)")
