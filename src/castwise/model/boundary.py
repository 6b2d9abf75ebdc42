"""The forward boundary of a policy: what happens at the edge of the model on every call.

Inputs are cast to the compute dtype when nothing else reconciles them with the parameters (true
policies, FSDP units gathered in the compute dtype); the forward runs in the policy's context
(autocast when mixed, torch's MHA fast path off under 16-bit math, the float32 matmul precision);
outputs are cast to the policy's output dtype, never to fewer bits. One boundary serves the
wrapper (``cw.apply``), the Lightning plugin and FSDP ``shard``. Nothing here changes global
state while ``torch.compile`` traces, so compiled and eager forwards behave alike.

Every entry point crosses the same boundary: ``forward``, and any other method of the model
(``encode_image``, ``generate``, ...) called through the wrapper or marked with
:func:`forward_method`. A call that starts while its thread is already inside the boundary (a
method calling ``self(...)`` or another entry point) runs as it is, so the context is entered
and the outputs are cast once, by the outermost call; the flag is per thread, so concurrent
callers do not see each other's.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import torch
from torch import nn
from torch.utils.hooks import RemovableHandle

from castwise.model.casting import cast_inputs, cast_outputs, float_bits
from castwise.model.device import DeviceProbe, check_policy_on_device
from castwise.model.pitfalls import fastpath_modules, global_setting, mha_fastpath_disabled
from castwise.policy import Policy

Method = TypeVar("Method", bound=Callable[..., Any])


class _Inside(threading.local):
    """Whether this thread is inside a boundary's call (set in ``__init__``, so every thread starts
    outside and ``torch.compile`` sees a plain attribute it can guard on)."""

    def __init__(self) -> None:
        self.active = False


class ForwardBoundary:
    """Input cast, forward context and output cast of ``policy`` for one module (cheap per call).

    ``autocast`` says whether the boundary runs the forward under autocast (by default when the
    policy is mixed); when it does not, floating inputs are cast to the compute dtype.
    """

    def __init__(self, module: nn.Module, policy: Policy, autocast: bool | None = None) -> None:
        self.policy = policy
        self.autocast = policy.is_mixed if autocast is None else autocast
        self.input_dtype = None if self.autocast else policy.compute_dtype
        self._device = DeviceProbe(module)
        self._fastpath_modules = fastpath_modules(module, policy)
        self._output_bits = float_bits(policy.output_dtype)
        self._checked_devices: set[str] = set()
        self._inside = _Inside()

    def __getstate__(self) -> dict[str, Any]:
        state = {**self.__dict__, "_checked_devices": set()}
        del state["_inside"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _inside=_Inside())

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
        """Autocast (when the boundary autocasts), the MHA fast path off (16-bit math), the matmul precision."""
        policy = self.policy
        autocast = torch.autocast(device_type, dtype=policy.compute_dtype) if self.autocast else None
        matmul = policy.matmul_precision if device_type == "cuda" else "highest"
        fastpath_off = any(not m.training for m in self._fastpath_modules)
        if not fastpath_off and matmul == "highest":
            return _or_nothing(autocast)
        return _guarded(autocast, fastpath_off, matmul)

    def cast_in(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Floating inputs in the compute dtype when the boundary does not autocast; others untouched."""
        dtype = self.input_dtype
        if dtype is None:
            return args, kwargs
        if not kwargs and all(isinstance(a, torch.Tensor) for a in args):
            return tuple(_cast_floating(a, dtype) for a in args), kwargs
        return cast_inputs((args, kwargs), dtype)

    def cast_out(self, output: Any) -> Any:
        """Floating outputs in the policy's output dtype, never to fewer bits; integers untouched."""
        dtype = self.policy.output_dtype
        if not isinstance(output, torch.Tensor):
            return cast_outputs(output, dtype)
        if output.dtype == dtype or not output.is_floating_point() or float_bits(output.dtype) > self._output_bits:
            return output
        return output.to(dtype)

    def run(self, call: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """``call(*args, **kwargs)`` across the boundary: inputs cast, in the context, outputs cast
        (as it is when this thread is already inside: the outer call casts)."""
        inside = self._inside
        if inside.active:
            return call(*args, **kwargs)
        device_type = self.device_type(args)
        args, kwargs = self.cast_in(args, kwargs)
        inside.active = True
        try:
            with self.context(device_type):
                output = call(*args, **kwargs)
        finally:
            inside.active = False
        return self.cast_out(output)

    def entry(self, method: Callable[..., Any]) -> Callable[..., Any]:
        """``method`` as a function that runs it across the boundary (its name, docstring and
        signature kept; ``__wrapped__`` is the method itself)."""

        @functools.wraps(method)
        def across(*args: Any, **kwargs: Any) -> Any:
            return self.run(method, args, kwargs)

        return across

    def attach(self, module: nn.Module) -> list[RemovableHandle]:
        """Apply the casts as forward hooks on ``module`` (for plugins whose framework enters the
        context itself); returns the handles, to remove them."""
        handles = [module.register_forward_hook(self._after)]
        if self.input_dtype is not None:
            handles.append(module.register_forward_pre_hook(self._before, with_kwargs=True))
        return handles

    def _before(self, module: nn.Module, args: tuple, kwargs: dict) -> tuple[tuple, dict] | None:
        return None if self._inside.active else self.cast_in(args, kwargs)

    def _after(self, module: nn.Module, args: tuple, output: Any) -> Any:
        return None if self._inside.active else self.cast_out(output)


def attached_boundary(module: nn.Module) -> ForwardBoundary | None:
    """The boundary whose casts :meth:`ForwardBoundary.attach` hooked onto ``module``, if any."""
    for hook in module._forward_hooks.values():
        owner = getattr(hook, "__self__", None)
        if isinstance(owner, ForwardBoundary):
            return owner
    return None


def forward_method(method: Method) -> Method:
    """Mark a method of a module as an entry point like ``forward``, for the plugins that keep the
    module itself (Lightning, FSDP ``shard``): called on a module they prepared, it runs across
    their boundary (inputs cast, the policy's context, outputs in its output dtype); on any other
    module, and under ``cw.apply`` (which routes every method already), it runs as it is."""

    @functools.wraps(method)
    def across(module: nn.Module, *args: Any, **kwargs: Any) -> Any:
        boundary = attached_boundary(module)
        if boundary is None:
            return method(module, *args, **kwargs)
        return boundary.run(functools.partial(method, module), args, kwargs)

    return across  # type: ignore[return-value]


def _cast_floating(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return t.to(dtype) if t.is_floating_point() and t.dtype != dtype else t


def _or_nothing(context: contextlib.AbstractContextManager | None) -> contextlib.AbstractContextManager:
    """``context``, or a context that does nothing. Tested against None, never for truth: dynamo
    before torch 2.13 cannot take an autocast object's truth value and ran the whole forward eagerly."""
    return contextlib.nullcontext() if context is None else context


@contextlib.contextmanager
def _guarded(
    autocast: contextlib.AbstractContextManager | None, fastpath_off: bool, matmul: str
) -> Iterator[None]:
    """Autocast plus the global switches a policy needs, restored on exit. While ``torch.compile``
    traces, global switches are left alone: the compiler refuses them, and compiled code never
    takes torch's fused MHA fast path."""
    with _or_nothing(autocast):
        if torch.compiler.is_compiling():
            yield
            return
        with contextlib.ExitStack() as stack:
            if fastpath_off:
                stack.enter_context(mha_fastpath_disabled())
            if matmul != "highest":
                stack.enter_context(float32_matmul_precision(matmul))
            yield


def float32_matmul_precision(precision: str) -> contextlib.AbstractContextManager[None]:
    """Set torch's float32 matmul precision (``high`` allows TF32) and restore it on exit."""
    return global_setting(torch.get_float32_matmul_precision, torch.set_float32_matmul_precision, precision)
