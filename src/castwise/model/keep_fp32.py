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

from castwise.model.casting import cast_inputs, map_tensors
from castwise.model.device import device_type_of


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


def _first_floating_dtype(args: tuple, kwargs: dict) -> torch.dtype | None:
    for item in (*args, *kwargs.values()):
        if isinstance(item, torch.Tensor) and item.is_floating_point():
            return item.dtype
    found: list[torch.dtype] = []

    def visit(t: torch.Tensor) -> torch.Tensor:
        if t.is_floating_point() and not found:
            found.append(t.dtype)
        return t

    map_tensors((args, kwargs), visit)
    return found[0] if found else None


class Fp32Compute:
    """Forward pre/post hook pair that runs a module in fp32 and restores the incoming dtype."""

    def __init__(self) -> None:
        self._calls: list[tuple[torch.dtype | None, str, bool]] = []

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._calls = []

    def before(self, module: nn.Module, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Upcast floating inputs to fp32 and switch autocast off for the module's device."""
        device_type = device_type_of(module, args)
        autocast_was_on = torch.is_autocast_enabled(device_type)
        if autocast_was_on:
            torch.set_autocast_enabled(device_type, False)
        self._calls.append((_first_floating_dtype(args, kwargs), device_type, autocast_was_on))
        return _upcast(args), _upcast(kwargs)

    def after(self, module: nn.Module, args: tuple, kwargs: dict, output: Any) -> Any:
        """Restore autocast and hand the output back in the incoming dtype."""
        incoming, device_type, autocast_was_on = self._calls.pop()
        if autocast_was_on:
            torch.set_autocast_enabled(device_type, True)
        if incoming is None or output is None:
            return output
        return cast_inputs(output, incoming)


def _upcast(obj: Any) -> Any:
    def up(t: torch.Tensor) -> torch.Tensor:
        low = t.is_floating_point() and torch.finfo(t.dtype).bits < 32
        return t.float() if low else t

    return map_tensors(obj, up)


def attach_fp32_compute(model: nn.Module, globs: tuple[str, ...]) -> list[str]:
    """Hook every outermost kept module of ``model``; returns their names."""
    detach_fp32_compute(model)
    names = []
    for name, module in kept_modules(model, globs):
        hook = Fp32Compute()
        module.register_forward_pre_hook(hook.before, with_kwargs=True)
        module.register_forward_hook(hook.after, with_kwargs=True, always_call=True)
        names.append(name)
    return names


def detach_fp32_compute(model: nn.Module) -> None:
    """Remove castwise's fp32 hooks from every module of ``model``."""
    for module in model.modules():
        for hooks in (module._forward_pre_hooks, module._forward_hooks):
            for key in [k for k, h in hooks.items() if isinstance(getattr(h, "__self__", None), Fp32Compute)]:
                del hooks[key]
                module._forward_pre_hooks_with_kwargs.pop(key, None)
                module._forward_hooks_with_kwargs.pop(key, None)
                module._forward_hooks_always_called.pop(key, None)
