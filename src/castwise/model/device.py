"""Whether a policy can take effect on a device: an error where results would differ, a warning
where the math is merely more precise than asked. A policy is never silently ignored."""

from __future__ import annotations

import warnings
from typing import Any

import torch
from torch import nn

from castwise.model.fp8 import check_fp8_device
from castwise.policy import Policy


class PrecisionWarning(UserWarning):
    """A policy takes effect only partly on this device; results are more precise than asked."""


def check_policy_on_device(policy: Policy, device_type: str) -> None:
    """Raise if ``policy`` cannot take effect on ``device_type``; warn if it is only partial."""
    if policy.is_mixed and not _autocast_supports(device_type, policy.compute_dtype):
        raise RuntimeError(
            f"policy {policy} needs {device_type} autocast in {policy.compute_dtype}, which this "
            f"torch build does not support on {device_type}; choose another policy "
            f"(e.g. 'bf16-true' or '32-true') or move the model to a device that supports it"
        )
    if device_type == "cuda" and torch.bfloat16 in (policy.param_dtype, policy.compute_dtype):
        if not torch.cuda.is_bf16_supported():
            raise RuntimeError(
                f"policy {policy} needs bf16, which this GPU does not support; use '16-mixed'"
            )
    check_fp8_device(policy, device_type)
    if policy.matmul_precision != "highest" and device_type != "cuda":
        warnings.warn(
            f"policy {policy}: float32 matmul precision {policy.matmul_precision!r} has no effect "
            f"on {device_type}; matmuls run in full float32 (more precise than asked)",
            PrecisionWarning,
            stacklevel=3,
        )


def _autocast_supports(device_type: str, dtype: torch.dtype) -> bool:
    if not torch.amp.is_autocast_available(device_type):
        return False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autocast(device_type=device_type, dtype=dtype):
            enabled = torch.is_autocast_enabled(device_type)
    return enabled and not any("not supported" in str(w.message) for w in caught)


def device_type_of(module: nn.Module, inputs: Any = ()) -> str:
    """The device type a module runs on: its parameters', else its first tensor input's."""
    for tensor in module.parameters():
        return tensor.device.type
    for item in inputs if isinstance(inputs, (tuple, list)) else (inputs,):
        if isinstance(item, torch.Tensor):
            return item.device.type
    return "cpu"


class DeviceProbe:
    """The device type a module runs on, in O(1) per call after the first look.

    It remembers which submodule holds the first parameter and reads that parameter afresh each
    time, so ``.to()`` and ``load_state_dict(assign=True)`` are followed.
    """

    def __init__(self, module: nn.Module) -> None:
        self._module = module
        self._owner: nn.Module | None = None
        self._name = ""
        for owner in module.modules():
            for name, _ in owner.named_parameters(recurse=False):
                self._owner, self._name = owner, name
                return

    @property
    def has_parameters(self) -> bool:
        """True when the module had a parameter to remember."""
        return self._owner is not None

    def device_type(self, inputs: Any = ()) -> str:
        """The device type of the remembered parameter, else as :func:`device_type_of` finds it."""
        if self._owner is not None:
            param = self._owner._parameters.get(self._name)
            if param is not None:
                return param.device.type
        return device_type_of(self._module, inputs)
