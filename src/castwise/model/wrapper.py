"""The module wrapper that applies a policy: ``cw.apply`` and ``cw.unwrap``."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import torch
from torch import nn

from castwise.model.casting import cast_inputs, cast_outputs
from castwise.model.convert import convert_parameters
from castwise.model.device import DeviceProbe, check_policy_on_device, device_type_of
from castwise.model.keep_fp32 import attach_fp32_compute
from castwise.model.pitfalls import mha_fastpath_disabled, needs_fastpath_off
from castwise.policy import Policy, PolicyLike

_INNER = "module"


class PrecisionModule(nn.Module):
    """Runs the wrapped module under a policy: input casting, autocast, pitfall guards, output dtype.

    ``state_dict()`` keys are the inner module's (no prefix), so checkpoints are interchangeable
    with the unwrapped model. Attributes the wrapper lacks are looked up on the inner module.
    """

    def __init__(self, module: nn.Module, policy: Policy) -> None:
        super().__init__()
        self.module = module
        self.policy = policy
        self._checked_devices: set[str] = set()
        self._fastpath_off = needs_fastpath_off(module, policy)
        self._device = DeviceProbe(module)
        self.register_state_dict_post_hook(_strip_inner_prefix)
        self.register_load_state_dict_pre_hook(_add_inner_prefix)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        policy, inner = self.policy, self._modules[_INNER]
        device_type = self._device.device_type(args)
        if device_type not in self._checked_devices:
            check_policy_on_device(policy, device_type)
            self._checked_devices.add(device_type)
        if not policy.is_mixed:
            args, kwargs = cast_inputs((args, kwargs), policy.compute_dtype)
        with self._guards():
            if policy.is_mixed:
                with torch.autocast(device_type, dtype=policy.compute_dtype):
                    output = inner(*args, **kwargs)
            else:
                output = inner(*args, **kwargs)
        return cast_outputs(output, policy.output_dtype)

    def _guards(self) -> contextlib.AbstractContextManager:
        """Pitfall guards and global settings the policy needs, restored on exit."""
        if not self._fastpath_off and self.policy.matmul_precision == "highest":
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        if self._fastpath_off:
            stack.enter_context(mha_fastpath_disabled())
        if self.policy.matmul_precision != "highest":
            stack.enter_context(_matmul_precision(self.policy.matmul_precision))
        return stack

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            modules = self.__dict__.get("_modules", {})
            if name == _INNER or _INNER not in modules:
                raise
            return getattr(modules[_INNER], name)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._checked_devices = set()

    def extra_repr(self) -> str:
        return f"policy={self.policy}"


@contextlib.contextmanager
def _matmul_precision(precision: str) -> Iterator[None]:
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(precision)
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(previous)


def _strip_inner_prefix(module: nn.Module, state_dict: dict, prefix: str, local_metadata: dict) -> None:
    inner = prefix + _INNER + "."
    for key in [k for k in state_dict if k.startswith(inner)]:
        state_dict[prefix + key[len(inner):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in [k for k in metadata if k == prefix + _INNER or k.startswith(inner)]:
            new_key = prefix[:-1] if key == prefix + _INNER else prefix + key[len(inner):]
            metadata[new_key] = metadata.pop(key)


def _add_inner_prefix(module: nn.Module, state_dict: dict, prefix: str, *_: Any) -> None:
    inner = prefix + _INNER + "."
    for key in [k for k in state_dict if k.startswith(prefix) and not k.startswith(inner)]:
        state_dict[inner + key[len(prefix):]] = state_dict.pop(key)


def _declared_fp32_globs(model: nn.Module, policy: Policy) -> tuple[str, ...]:
    """Name globs for what a model itself says must stay fp32 (transformers' ``_keep_in_fp32_modules``)."""
    if not policy.is_low_precision:
        return ()
    declared: list[str] = []
    for attribute in ("_keep_in_fp32_modules", "_keep_in_fp32_modules_strict"):
        declared += list(getattr(model, attribute, None) or ())
    globs = (g for name in declared for g in (name, f"{name}.*", f"*.{name}", f"*.{name}.*"))
    return tuple(g for g in dict.fromkeys(globs) if g not in policy.keep_fp32)


def unwrap(model: nn.Module) -> nn.Module:
    """The original module inside a castwise wrapper (the same object); other modules as they are."""
    while isinstance(model, PrecisionModule):
        model = model.module
    return model


def apply(model: nn.Module, policy: PolicyLike) -> PrecisionModule:
    """Apply ``policy`` to ``model``: convert its parameters and return a wrapper that runs it.

    Kept-fp32 modules stay fp32 and compute in fp32. Applying to a wrapped model re-applies to
    the original (no double wrapping).
    """
    policy = Policy.parse(policy)
    inner = unwrap(model)
    if not isinstance(inner, nn.Module):
        raise TypeError(f"cw.apply expects a torch.nn.Module, got {type(inner).__name__}")
    policy = policy.replace(keep_fp32=policy.keep_fp32 + _declared_fp32_globs(inner, policy))
    convert_parameters(inner, policy)
    attach_fp32_compute(inner, policy.keep_fp32)
    wrapper = PrecisionModule(inner, policy)
    if any(True for _ in inner.parameters()):
        device_type = device_type_of(inner)
        if device_type != "meta":
            check_policy_on_device(policy, device_type)
            wrapper._checked_devices.add(device_type)
    return wrapper
