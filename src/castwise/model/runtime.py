"""What a policy does around a forward, shared by the wrapper and framework plugins: check the
device once, autocast when mixed, pitfall guards, and global settings restored afterwards."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import torch
from torch import nn

from castwise.model.device import DeviceProbe, check_policy_on_device
from castwise.model.pitfalls import mha_fastpath_disabled, needs_fastpath_off
from castwise.policy import Policy


class PolicyRuntime:
    """The per-forward side of a policy applied to one module (cheap to call every step)."""

    def __init__(self, module: nn.Module, policy: Policy) -> None:
        self.policy = policy
        self._device = DeviceProbe(module)
        self._fastpath_off = needs_fastpath_off(module, policy)
        self._checked_devices: set[str] = set()

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_checked_devices": set()}

    def device_type(self, inputs: Any = (), device: str | None = None) -> str:
        """The device type the forward runs on (``device`` if given); the policy is checked once per device."""
        device_type = device or self._device.device_type(inputs)
        if device_type not in self._checked_devices:
            check_policy_on_device(self.policy, device_type)
            self._checked_devices.add(device_type)
        return device_type

    def check_parameters_device(self) -> None:
        """Check the policy now against the device the parameters are on (none, or meta: at the forward)."""
        device_type = self._device.device_type()
        if self._device.has_parameters and device_type != "meta":
            self.device_type(device=device_type)

    def context(self, device_type: str) -> contextlib.AbstractContextManager:
        """Autocast (mixed policies), the MHA fast path off (16-bit math), the matmul precision."""
        policy = self.policy
        autocast = torch.autocast(device_type, dtype=policy.compute_dtype) if policy.is_mixed else None
        if not self._fastpath_off and policy.matmul_precision == "highest":
            return autocast or contextlib.nullcontext()
        stack = contextlib.ExitStack()
        if autocast is not None:
            stack.enter_context(autocast)
        if self._fastpath_off:
            stack.enter_context(mha_fastpath_disabled())
        if policy.matmul_precision != "highest":
            stack.enter_context(float32_matmul_precision(policy.matmul_precision))
        return stack


@contextlib.contextmanager
def float32_matmul_precision(precision: str) -> Iterator[None]:
    """Set torch's float32 matmul precision (``high`` allows TF32) and restore it on exit."""
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(precision)
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(previous)
