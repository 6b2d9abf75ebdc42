"""Modules kept in fp32: finding them, and making them compute in fp32 whatever dtype arrives.

OpenCLIP's ``LayerNormFp32`` generalised. A kept module's class is swapped for a subclass of its
own class (same name, ``isinstance`` unchanged) whose ``forward`` upcasts 16-bit inputs, runs the
original forward inside ``torch.autocast(..., enabled=False)`` and hands the output back in the
dtype that came in. Nothing global is touched during a forward, so ``torch.compile`` traces it
without a graph break, and with no hooks torch's own call path stays its fastest. Parameters,
``state_dict`` keys and pickling are unaffected.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

import torch
from torch import nn

from castwise.keep import kept_modules
from castwise.model.casting import cast_inputs, float_bits, iter_tensors, map_tensors
from castwise.policy import Policy

_CAP = "_castwise_hand_back_at_most"
_OWN = "_castwise_own_parameter"
_REST = "_castwise_rest_parameter"
_LOW = (torch.bfloat16, torch.float16)

ParameterRef = tuple[nn.Module, str]
"""A parameter named by its owner and name, read afresh on each call (``.to()``/``.float()`` and
``load_state_dict(assign=True)`` are followed)."""


class Fp32Compute(nn.Module):
    """Mixin placed before a kept module's own class: fp32 math inside, the incoming dtype outside.

    The hand-back dtype is capped by the instance's ``_castwise_hand_back_at_most``: under a true
    16-bit policy a kept module that receives fp32 (e.g. from another kept module), or no floating
    input at all (an embedding), hands back the compute dtype, since no autocast would reconcile
    fp32 activations with the 16-bit weights downstream. When the user converts the model later
    (``cw.unwrap(m).float()``, ``.half()``), the cap lapses once the rest of the model left the
    compute dtype, and a kept module whose own parameters are no longer fp32 runs as it is.
    """

    _castwise_autocast_free = False
    """True for torch's own norm layers: no op in them is one autocast lowers, so with fp32 in
    they compute in fp32 without switching autocast off (which costs ~15 us a call on CPU)."""

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        own = _dtype_of(getattr(self, _OWN, None))
        if own is not None and own != torch.float32:
            return super().forward(*args, **kwargs)
        cap = getattr(self, _CAP, None)
        if cap is not None and _dtype_of(getattr(self, _REST, None)) not in (None, cap):
            cap = None
        if len(args) == 1 and not kwargs and isinstance(args[0], torch.Tensor) and args[0].is_floating_point():
            return self._forward_one(args[0], cap)
        first = _first_tensor(args, kwargs)
        device_type = first.device.type if first is not None else _parameter_device_type(self)
        hand_back = _hand_back_dtype(first, cap)
        with torch.autocast(device_type, enabled=False):
            output = super().forward(*_upcast(args), **_upcast_kwargs(kwargs))
        if hand_back is None:
            return output
        if isinstance(output, torch.Tensor):
            return output.to(hand_back) if output.is_floating_point() else output
        return cast_inputs(output, hand_back)

    def _forward_one(self, x: torch.Tensor, cap: torch.dtype | None) -> Any:
        """The common case, one floating tensor in (a norm), kept lean: it runs on every call."""
        dtype = x.dtype
        low = dtype in _LOW
        hand_back = cap if cap is not None and not low and dtype != cap else dtype
        if self._castwise_autocast_free:
            output = super().forward(x.float() if low else x)
        else:
            with torch.autocast(x.device.type, enabled=False):
                output = super().forward(x.float() if low else x)
        if isinstance(output, torch.Tensor) and output.dtype != hand_back and output.is_floating_point():
            return output.to(hand_back)
        return output if isinstance(output, torch.Tensor) else cast_inputs(output, hand_back)

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickle as the original class plus a marker, so the generated class need not be importable."""
        return (_rebuild_kept, (_original_class(self),), self.__getstate__())


_KEPT_CLASSES: dict[type, type] = {}
_AUTOCAST_FREE_FORWARDS = {
    nn.LayerNorm.forward,
    nn.GroupNorm.forward,
    nn.RMSNorm.forward,
    nn.modules.batchnorm._BatchNorm.forward,
    nn.modules.instancenorm._InstanceNorm.forward,
}


def _kept_class(cls: type) -> type:
    """The generated subclass ``(Fp32Compute, cls)``, one per original class, named like it."""
    if cls not in _KEPT_CLASSES:
        namespace = {
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "__doc__": cls.__doc__,
            "_castwise_autocast_free": getattr(cls, "forward", None) in _AUTOCAST_FREE_FORWARDS,
        }
        _KEPT_CLASSES[cls] = type(cls.__name__, (Fp32Compute, cls), namespace)
    return _KEPT_CLASSES[cls]


def _original_class(module: nn.Module) -> type:
    """The class a module had before castwise kept it (its own class when not kept)."""
    cls = type(module)
    for klass in cls.__mro__:
        if klass in _KEPT_CLASSES.values():
            return klass.__mro__[2]
    return cls


def _rebuild_kept(cls: type[nn.Module]) -> nn.Module:
    module = cls.__new__(cls)
    module.__class__ = _kept_class(cls)
    return module


def _dtype_of(ref: ParameterRef | None) -> torch.dtype | None:
    if ref is None:
        return None
    param = ref[0]._parameters.get(ref[1])
    return None if param is None else param.dtype


def _first_parameter(module: nn.Module, skip: Container[int] = ()) -> ParameterRef | None:
    """The first floating parameter under ``module`` not owned by a module in ``skip``."""
    for owner in module.modules():
        if id(owner) in skip:
            continue
        for name, param in owner.named_parameters(recurse=False):
            if param.is_floating_point():
                return owner, name
    return None


def is_computing_in_fp32(module: nn.Module) -> bool:
    """True when castwise makes ``module`` compute in fp32."""
    return isinstance(module, Fp32Compute)


def keep_in_fp32(
    module: nn.Module, hand_back_at_most: torch.dtype | None = None, rest: ParameterRef | None = None
) -> None:
    """Make ``module`` compute in fp32 and hand back the incoming dtype, capped at
    ``hand_back_at_most`` while the parameter ``rest`` (one outside kept modules) is in that dtype."""
    if not is_computing_in_fp32(module):
        module.__class__ = _kept_class(type(module))
    module.__dict__[_CAP] = hand_back_at_most
    module.__dict__[_OWN] = _first_parameter(module)
    module.__dict__[_REST] = rest


def release_from_fp32(module: nn.Module) -> None:
    """Undo :func:`keep_in_fp32`: the module gets its own class back."""
    if type(module) in _KEPT_CLASSES.values():
        module.__class__ = _original_class(module)
    for key in (_CAP, _OWN, _REST):
        module.__dict__.pop(key, None)


def _first_tensor(args: tuple, kwargs: dict) -> torch.Tensor | None:
    """The first floating input (plain arguments checked first: this runs on every call), else
    the first tensor of any kind (token ids), else None."""
    found = None
    for item in (*args, *kwargs.values()):
        if isinstance(item, torch.Tensor):
            if item.is_floating_point():
                return item
            found = found if found is not None else item
    if found is None:
        nested = list(iter_tensors((args, kwargs)))
        found = next((t for t in nested if t.is_floating_point()), nested[0] if nested else None)
    return found


def _parameter_device_type(module: nn.Module) -> str:
    return next((p.device.type for p in module.parameters()), "cpu")


def _hand_back_dtype(first: torch.Tensor | None, cap: torch.dtype | None) -> torch.dtype | None:
    if first is None or not first.is_floating_point():
        return cap
    if cap is not None and float_bits(first.dtype) > float_bits(cap):
        return cap
    return first.dtype


def _is_low(item: Any) -> bool:
    return isinstance(item, torch.Tensor) and item.is_floating_point() and float_bits(item.dtype) < 32


def _up(t: torch.Tensor) -> torch.Tensor:
    return t.float() if _is_low(t) else t


def _upcast(args: tuple) -> tuple:
    if all(isinstance(a, torch.Tensor) for a in args):
        return tuple(_up(a) for a in args)
    return map_tensors(args, _up)


def _upcast_kwargs(kwargs: dict) -> dict:
    return map_tensors(kwargs, _up) if kwargs else kwargs


def attach_fp32_compute(model: nn.Module, policy: Policy) -> list[str]:
    """Make every outermost module ``policy`` keeps compute in fp32; returns their names."""
    detach_fp32_compute(model)
    cap = policy.compute_dtype if policy.is_low_precision and not policy.is_mixed else None
    kept = dict(kept_modules(model, policy.keep_fp32))
    inside = {id(m) for root in kept.values() for m in root.modules()}
    rest = _first_parameter(model, inside) if cap is not None else None
    for module in kept.values():
        for computing in _computing_roots(module):
            keep_in_fp32(computing, cap, rest)
    return list(kept)


def _computing_roots(module: nn.Module) -> list[nn.Module]:
    """``module`` itself, or, for a container that never runs (``nn.ModuleList``, ``nn.ModuleDict``,
    any module without its own ``forward``), the outermost modules under it that do: keeping
    ``moe.experts`` in fp32 makes each expert compute in fp32, since the list itself is never called."""
    if type(module).forward is not nn.Module.forward:
        return [module]
    return [root for child in module.children() for root in _computing_roots(child)]


def detach_fp32_compute(model: nn.Module) -> None:
    """Undo :func:`attach_fp32_compute` on every module of ``model``."""
    for module in model.modules():
        release_from_fp32(module)
