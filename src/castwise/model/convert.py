"""Converting a module's parameters and floating buffers to a policy's storage dtype."""

from __future__ import annotations

import torch
from torch import nn

from castwise.keep import kept_modules
from castwise.policy import Policy


def convert_parameters(model: nn.Module, policy: Policy) -> nn.Module:
    """Store floating parameters/buffers in ``policy.param_dtype``; kept modules in fp32.

    Integer and bool tensors (e.g. ``position_ids``) are never touched. Conversion is in place,
    as ``nn.Module.to`` does, so optimizers built afterwards see the converted tensors.
    """
    kept = {id(m) for _, root in kept_modules(model, policy.keep_fp32) for m in root.modules()}
    kept_params = {id(p) for m in model.modules() if id(m) in kept for p in m.parameters(recurse=False)}
    for module in model.modules():
        target = torch.float32 if id(module) in kept else policy.param_dtype
        _convert_own_tensors(module, target, kept_params)
    return model


def _convert_own_tensors(module: nn.Module, dtype: torch.dtype, kept_params: set[int]) -> None:
    """Convert a module's own tensors; a parameter it shares with a kept module (a tied weight) stays fp32."""
    for param in module.parameters(recurse=False):
        target = torch.float32 if id(param) in kept_params else dtype
        if param.is_floating_point() and param.dtype != target:
            param.data = param.data.to(target)
            if param.grad is not None:
                param.grad = param.grad.to(target)
    for name, buf in module.named_buffers(recurse=False):
        if buf is not None and buf.is_floating_point() and buf.dtype != dtype:
            setattr(module, name, buf.to(dtype))
