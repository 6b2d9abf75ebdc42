"""Modules kept in fp32: matching them, and making them compute in fp32 whatever arrives.

OpenCLIP's ``LayerNormFp32`` generalised: a kept module's inputs are upcast, autocast is off
inside it, and its output is handed back in the dtype that came in. This is done with forward
hooks on the module itself, so state_dict keys, pickling and ``unwrap`` are unaffected.
"""

from __future__ import annotations

import fnmatch
from typing import Any, Iterator

import torch
from torch import nn

from castwise.model.casting import cast_inputs, float_bits, iter_tensors, map_tensors
from castwise.model.device import device_type_of
from castwise.model.hooks import remove_hooks
from castwise.policy import Policy


def is_kept(name: str, module: nn.Module, globs: tuple[str, ...]) -> bool:
    """True when a glob matches the module's dotted name or any class name in its MRO."""
    if not globs:
        return False
    candidates = [name] + [cls.__name__ for cls in type(module).__mro__]
    return any(fnmatch.fnmatchcase(c, g) for g in globs for c in candidates)


def kept_modules(model: nn.Module, globs: tuple[str, ...]) -> Iterator[tuple[str, nn.Module]]:
    """The outermost modules matched by ``globs`` (their children are kept with them)."""
    kept_prefixes: list[str] = []
    for name, module in model.named_modules():
        if any(name.startswith(p + ".") for p in kept_prefixes):
            continue
        if module is not model and is_kept(name, module, globs):
            kept_prefixes.append(name)
            yield name, module


def _first_floating(args: tuple, kwargs: dict) -> torch.Tensor | None:
    """The first floating tensor among the inputs (plain tensor arguments checked first: this is hot)."""
    for item in (*args, *kwargs.values()):
        if isinstance(item, torch.Tensor) and item.is_floating_point():
            return item
    return next((t for t in iter_tensors((args, kwargs)) if t.is_floating_point()), None)


class Fp32Compute:
    """Forward pre/post hook pair that runs a module in fp32 and hands back the incoming dtype.

    ``hand_back_at_most`` caps the dtype handed back: under a true 16-bit policy a kept module
    that receives fp32 (e.g. from another kept module), or no floating input at all (an
    embedding), hands back the compute dtype, since no autocast would reconcile fp32
    activations with the 16-bit weights downstream.
    """

    def __init__(self, hand_back_at_most: torch.dtype | None = None) -> None:
        self.hand_back_at_most = hand_back_at_most
        self._calls: list[tuple[torch.dtype | None, str, bool]] = []

    def __getstate__(self) -> dict[str, Any]:
        return {"hand_back_at_most": self.hand_back_at_most}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.hand_back_at_most = state.get("hand_back_at_most")
        self._calls = []

    def before(self, module: nn.Module, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Upcast floating inputs to fp32 and switch autocast off for the module's device."""
        first = _first_floating(args, kwargs)
        device_type = first.device.type if first is not None else device_type_of(module, args)
        autocast_was_on = torch.is_autocast_enabled(device_type)
        if autocast_was_on:
            torch.set_autocast_enabled(device_type, False)
        self._calls.append((self._hand_back_dtype(first), device_type, autocast_was_on))
        return _upcast(args), (_upcast(kwargs) if kwargs else kwargs)

    def after(self, module: nn.Module, args: tuple, kwargs: dict, output: Any) -> Any:
        """Restore autocast and hand the output back in the incoming dtype."""
        dtype, device_type, autocast_was_on = self._calls.pop()
        if autocast_was_on:
            torch.set_autocast_enabled(device_type, True)
        if dtype is None or output is None:
            return output
        return cast_inputs(output, dtype)

    def _hand_back_dtype(self, first: torch.Tensor | None) -> torch.dtype | None:
        cap = self.hand_back_at_most
        if first is None:
            return cap
        if cap is not None and float_bits(first.dtype) > float_bits(cap):
            return cap
        return first.dtype


def _is_low(item: Any) -> bool:
    return isinstance(item, torch.Tensor) and item.is_floating_point() and float_bits(item.dtype) < 32


def _upcast(obj: Any) -> Any:
    if isinstance(obj, tuple) and not any(_is_low(item) for item in obj):
        return obj
    return map_tensors(obj, _up)


def _up(t: torch.Tensor) -> torch.Tensor:
    return t.float() if _is_low(t) else t


def attach_fp32_compute(model: nn.Module, policy: Policy) -> list[str]:
    """Hook every outermost module ``policy`` keeps in fp32; returns their names."""
    detach_fp32_compute(model)
    cap = policy.compute_dtype if policy.is_low_precision and not policy.is_mixed else None
    names = []
    for name, module in kept_modules(model, policy.keep_fp32):
        hook = Fp32Compute(hand_back_at_most=cap)
        module.register_forward_pre_hook(hook.before, with_kwargs=True)
        module.register_forward_hook(hook.after, with_kwargs=True, always_call=True)
        names.append(name)
    return names


def detach_fp32_compute(model: nn.Module) -> None:
    """Remove castwise's fp32 hooks from every module of ``model``."""
    for module in model.modules():
        remove_hooks(module, Fp32Compute)
