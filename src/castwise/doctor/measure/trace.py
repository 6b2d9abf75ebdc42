"""Dtype tracing with forward hooks: what every module received, held and returned, and which one raised."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn.modules import module as torch_module
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

from castwise.doctor.report.data import ROOT, ModuleStats
from castwise.model.casting import iter_tensors
from castwise.model.keep_fp32 import is_computing_in_fp32
from castwise.policy import dtype_name

OutputHook = Callable[[str, list[torch.Tensor]], None]


def _forget_kwargs_flag(handle_id: int) -> None:
    """Drop the with_kwargs flag a removed global forward hook leaves behind in torch.

    ``RemovableHandle.remove`` forgets the hook but not that flag, and while any flag is there torch
    counts a global hook as present: every later ``torch.compile(module)`` in the process warns.
    """
    flags = getattr(torch_module, "_global_forward_hooks_with_kwargs", None)
    if flags is not None:
        flags.pop(handle_id, None)


def integer_tensors(obj: Any) -> list[torch.Tensor]:
    """Every non-floating tensor inside a nested structure, in order (indices, masks)."""
    return [t for t in iter_tensors(obj) if not t.is_floating_point()]


def floating_tensors(obj: Any) -> list[torch.Tensor]:
    """Every floating, strided tensor inside a nested structure, in order."""
    tensors = (obj,) if isinstance(obj, torch.Tensor) else iter_tensors(obj)
    return [t for t in tensors if t.is_floating_point() and t.layout == torch.strided and not t.is_nested]


_LEAVES = (type(None), bool, int, float, str)


def _dtypes(obj: Any) -> list[str]:
    """Names of the dtypes of the tensors in ``obj``, first seen first. A tensor, or a plain tuple,
    list or dict of tensors and scalars (what hooks see on nearly every call), is read without the
    generic walk."""
    if isinstance(obj, torch.Tensor):
        return [dtype_name(obj.dtype)]
    items = obj.values() if type(obj) is dict else obj if type(obj) in (tuple, list) else (obj,)
    names: list[str] = []
    for item in items:
        if isinstance(item, torch.Tensor):
            name = dtype_name(item.dtype)
            if name not in names:
                names.append(name)
        elif not isinstance(item, _LEAVES):
            return list(dict.fromkeys(dtype_name(t.dtype) for t in iter_tensors(obj)))
    return names


def _own_dtypes(module: nn.Module) -> list[str]:
    """Dtypes of the module's own parameters and buffers (read directly: hooks run on every call)."""
    tensors = [*module._parameters.values(), *module._buffers.values()]
    return list(dict.fromkeys(dtype_name(t.dtype) for t in tensors if t is not None and t.is_floating_point()))


def cuda_devices(model: nn.Module) -> list[int]:
    """The CUDA devices ``model``'s parameters are on: the random states a run may use."""
    return sorted({p.device.index or 0 for p in model.parameters() if p.device.type == "cuda"})


@dataclass(frozen=True)
class ModelIndex:
    """What every traced run of one model reads of it, walked once: module names by ``id``, the
    parameters with their owning module's name, the CUDA devices they are on and the device type."""

    names: dict[int, str]
    params: list[tuple[str, nn.Parameter]]
    cuda_devices: list[int]
    device_type: str

    @classmethod
    def of(cls, model: nn.Module) -> ModelIndex:
        """Index ``model`` (the root is named :data:`ROOT`)."""
        names = {id(m): name or ROOT for name, m in model.named_modules()}
        params = [(name.rpartition(".")[0] or ROOT, p) for name, p in model.named_parameters()]
        return cls(names, params, cuda_devices(model), params[0][1].device.type if params else "cpu")


class Tracer:
    """Forward hooks on every module of an indexed model; use as a context manager around one forward.

    ``stats`` holds one :class:`ModuleStats` per module in call order (first call); ``on_output``
    receives each module's floating outputs on its first call (and ``on_inputs``, just before, its
    floating inputs); ``previous`` the module that finished last before each one started (its likely
    input), ``failing_module`` the innermost module still running when an exception escaped, and
    ``hook_seconds`` the time the hooks themselves took.
    One global hook pair serves every module (registering two per module costs more than a small
    model's forward); modules outside ``model`` are passed over.
    """

    def __init__(self, index: ModelIndex, on_output: OutputHook | None = None,
                 on_inputs: OutputHook | None = None) -> None:
        self.on_output, self.on_inputs = on_output, on_inputs
        self.stats: dict[str, ModuleStats] = {}
        self.previous: dict[str, str | None] = {}
        self.activation_bytes = 0
        self.hook_seconds = 0.0
        self._names = index.names
        self._stack: list[str] = []
        self._seen_output: set[str] = set()
        self._last_finished: str | None = None
        self._handles: list[Any] = []
        self._device = index.device_type

    @property
    def failing_module(self) -> str | None:
        """The innermost module whose forward was running when the exception escaped."""
        return self._stack[-1] if self._stack else None

    def __enter__(self) -> Tracer:
        try:
            self._handles.append(register_module_forward_pre_hook(self._before))
            self._handles.append(register_module_forward_hook(self._after, with_kwargs=True))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        for handle in self._handles:
            handle.remove()
            _forget_kwargs_flag(handle.id)
        self._handles.clear()

    def _before(self, module: nn.Module, args: tuple) -> None:
        start = time.perf_counter()
        name = self._names.get(id(module))
        if name is None:
            return
        self._stack.append(name)
        if name not in self.stats:
            kept = is_computing_in_fp32(module)
            self.stats[name] = ModuleStats(
                name=name, type=type(module).__name__, inputs=_dtypes(args),
                params=_own_dtypes(module), outputs=[],
                autocast=torch.is_autocast_enabled(self._device) and not kept, kept_fp32=kept,
            )
            self.previous[name] = self._last_finished
        self.hook_seconds += time.perf_counter() - start

    def _after(self, module: nn.Module, args: tuple, kwargs: dict, output: Any) -> None:
        start = time.perf_counter()
        if id(module) not in self._names:
            return
        name = self._stack.pop()
        self._last_finished = name
        if name not in self._seen_output:
            self._seen_output.add(name)
            stats = self.stats[name]
            if kwargs:  # a global pre-hook does not see keyword arguments; this one does
                stats.inputs = list(dict.fromkeys([*_dtypes(args), *_dtypes(kwargs)]))
            stats.outputs = _dtypes(output)
            tensors = floating_tensors(output)
            if not module._modules:
                self.activation_bytes += sum(t.numel() * t.element_size() for t in tensors)
            if self.on_inputs is not None:
                self.on_inputs(name, floating_tensors((args, kwargs)))
            if self.on_output is not None:
                self.on_output(name, tensors)
        self.hook_seconds += time.perf_counter() - start
