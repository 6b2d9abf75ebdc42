"""Running a model once under a policy in one mode, traced, timed and measured."""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from torch import nn

from castwise.doctor.measure.compare import Numerics, Reference, compare_all
from castwise.doctor.measure.outputs import Measurer, Recorder
from castwise.doctor.measure.timing import time_steps
from castwise.doctor.measure.trace import ModelIndex, Tracer, floating_tensors
from castwise.doctor.report.data import Memory, ModeRun
from castwise.explainer import explain
from castwise.model import PrecisionModule, apply, unwrap
from castwise.model.pitfalls import has_mha_fastpath, mha_fastpath_disabled
from castwise.policy import Policy, dtype_name

LossFn = Callable[[Any], torch.Tensor]
MODES = ("train", "eval")
BACKWARD = "(loss/backward)"


@dataclass
class Call:
    """Example inputs as positional and keyword arguments."""

    args: tuple
    kwargs: dict[str, Any]

    @classmethod
    def of(cls, example_inputs: Any) -> Call:
        """A tensor is one argument, a tuple/list the positional arguments, a dict the keyword ones."""
        if isinstance(example_inputs, dict):
            return cls((), dict(example_inputs))
        if isinstance(example_inputs, (tuple, list)):
            return cls(tuple(example_inputs), {})
        return cls((example_inputs,), {})

    def forward(self, model: nn.Module) -> Any:
        """``model`` called with these arguments."""
        return model(*self.args, **self.kwargs)


@dataclass
class Capture:
    """A run's report entry plus what comparing it needs: its outputs and gradients, and per module
    either the reference outputs (a reference run) or the numerics against them (a candidate run)."""

    run: ModeRun
    output: list[Reference] = field(default_factory=list)
    grads: dict[str, list[Reference]] = field(default_factory=dict)
    module_outputs: dict[str, list[Reference]] = field(default_factory=dict)
    output_numerics: Numerics | None = None
    grad_numerics: dict[str, Numerics] = field(default_factory=dict)
    module_numerics: dict[str, Numerics] = field(default_factory=dict)
    previous: dict[str, str | None] = field(default_factory=dict)

    def keep_results(self, outputs: list[torch.Tensor], index: ModelIndex, reference: Capture | None,
                     modules: Recorder | Measurer | None) -> None:
        """Keep outputs and gradients (a reference run) or compare them with ``reference``'s."""
        grads = _grads_by_module(index)
        if reference is None:
            tensors = [*outputs, *(g for group in grads.values() for g in group)]
            references = iter(modules.finish(tensors) if isinstance(modules, Recorder) else Reference.many(tensors))
            self.output = [next(references) for _ in outputs]
            self.grads = {name: [next(references) for _ in group] for name, group in grads.items()}
            self.module_outputs = modules.outputs if isinstance(modules, Recorder) else {}
            return
        names = [name for name in grads if name in reference.grads]
        groups = [(outputs, reference.output), *((grads[n], reference.grads[n]) for n in names)]
        numerics = modules.finish(groups) if isinstance(modules, Measurer) else compare_all(groups)
        self.output_numerics, self.grad_numerics = numerics[0], dict(zip(names, numerics[1:]))
        self.module_numerics = modules.numerics if isinstance(modules, Measurer) else {}


def prepare(model: nn.Module, policy: Policy) -> PrecisionModule:
    """A copy of ``model`` with ``policy`` applied (the original is left untouched)."""
    return apply(copy.deepcopy(unwrap(model)), policy)


@dataclass(frozen=True)
class Subject:
    """A prepared model and its :class:`ModelIndex`, read once for all its runs."""

    model: PrecisionModule
    index: ModelIndex

    @classmethod
    def of(cls, model: nn.Module, policy: Policy) -> Subject:
        """:func:`prepare` ``model`` under ``policy`` and index the copy."""
        wrapped = prepare(model, policy)
        return cls(wrapped, ModelIndex.of(unwrap(wrapped)))


@contextlib.contextmanager
def comparable_paths(model: nn.Module) -> Iterator[None]:
    """Every run takes torch's regular (non-fused) attention path, so all runs compute the same thing.

    The fused MHA fast path returns nested tensors with padded positions zeroed and skips the inner
    modules, which would make the fp32 reference incomparable with low-precision runs.
    """
    with mha_fastpath_disabled() if has_mha_fastpath(model) else contextlib.nullcontext():
        yield


def run_mode(
    subject: Subject, call: Call, mode: str, loss_fn: LossFn | None = None, seed: int = 0,
    reference: Capture | None = None, per_module: bool = True, timed: bool = True,
) -> Capture:
    """One forward (train: with backward) of ``subject``'s model in ``mode``, traced; failures are captured.

    Without ``reference`` this is a reference run and module outputs are kept; with one, each
    module's output is compared with the reference's on the fly (``per_module=False``: neither).
    ``timed``: the run's time is then the median of untraced steps after a warm-up (:func:`time_steps`),
    else the traced step's own, less the hooks' time.
    """
    model, index = subject.model, subject.index
    for _, param in index.params:
        param.grad = None
    model.train(mode == "train")
    modules = (Recorder() if reference is None else Measurer(reference.module_outputs)) if per_module else None
    tracer = Tracer(index, on_output=modules)
    phase = "forward"
    output: Any = None
    loss: torch.Tensor | None = None
    start = time.perf_counter()
    try:
        with seeded(seed, index.cuda_devices), tracer:
            with torch.no_grad() if mode == "eval" else contextlib.nullcontext():
                output = model(*call.args, **call.kwargs)
            phase = "backward"
            if mode == "train":
                loss = training_loss(output, loss_fn)
                if loss is not None:
                    loss.float().backward()
            elif loss_fn is not None:
                loss = loss_fn(output).detach()
    except Exception as exc:  # the point is to report what torch raised, and where
        return Capture(_failed_run(mode, time.perf_counter() - start - tracer.hook_seconds, exc, tracer, phase, index))
    seconds = time.perf_counter() - start - tracer.hook_seconds
    outputs = floating_tensors(output)
    capture = Capture(ModeRun(
        mode=mode, ok=True, seconds=seconds, memory=_memory(index, tracer),
        output_dtype=dtype_name(outputs[0].dtype) if outputs else None,
        loss=float(loss.detach()) if loss is not None and loss_fn is not None else None,
        modules=list(tracer.stats.values()),
    ))
    capture.keep_results(outputs, index, reference, modules)
    capture.previous = tracer.previous
    if timed:
        timing = time_steps(lambda: step(subject, call, mode, loss_fn))
        capture.run.seconds, capture.run.warmup_steps, capture.run.timed_steps = timing
    return capture


def step(subject: Subject, call: Call, mode: str, loss_fn: LossFn | None = None) -> None:
    """One untraced step of ``subject``'s model in ``mode`` (train: forward and backward; eval: forward
    under no_grad) that leaves no trace in it nor in the inputs' gradients (:func:`state_kept`)."""
    model = subject.model
    with state_kept(subject, call):
        model.train(mode == "train")
        if mode == "eval":
            with torch.no_grad():
                model(*call.args, **call.kwargs)
            return
        loss = training_loss(model(*call.args, **call.kwargs), loss_fn)
        if loss is not None:
            loss.float().backward()


@contextlib.contextmanager
def state_kept(subject: Subject, call: Call) -> Iterator[None]:
    """Afterwards ``subject``'s buffers (running statistics) and random state are as they were, its
    gradients are None and those of ``call``'s inputs (a streamed block's input needs one) are as they
    were: extra steps taken inside change nothing the traced runs measure."""
    model, index = subject.model, subject.index
    buffers = [(buffer, buffer.clone()) for buffer in model.buffers()]
    inputs = [(tensor, tensor.grad) for tensor in floating_tensors((call.args, call.kwargs)) if tensor.requires_grad]
    for tensor, _ in inputs:
        tensor.grad = None  # a backward inside would add to it in place
    try:
        with torch.random.fork_rng(devices=index.cuda_devices):
            yield
    finally:
        with torch.no_grad():
            for buffer, saved in buffers:
                buffer.copy_(saved)
        for _, param in index.params:
            param.grad = None
        for tensor, grad in inputs:
            tensor.grad = grad


def reseed(seed: int, devices: list[int]) -> None:
    """Seed the CPU generator and those of ``devices`` directly: ``torch.manual_seed`` also queues a
    call with a formatted stack for every lazily started backend (CUDA, XPU, MTIA), ~3 ms each time."""
    torch.default_generator.manual_seed(seed)
    for index in devices:
        torch.cuda.default_generators[index].manual_seed(seed)


@contextlib.contextmanager
def seeded(seed: int, devices: list[int]) -> Iterator[None]:
    """Run with the CPU generator and those of the CUDA ``devices`` seeded, and restore them afterwards."""
    with torch.random.fork_rng(devices=devices):
        reseed(seed, devices)
        yield


def training_loss(output: Any, loss_fn: LossFn | None) -> torch.Tensor | None:
    """What train mode backpropagates: ``loss_fn(output)``, or the sum of the floating outputs that
    need gradients (None when there is none)."""
    if loss_fn is not None:
        return loss_fn(output)
    tensors = [t.float().sum() for t in floating_tensors(output) if t.requires_grad]
    return torch.stack(tensors).sum() if tensors else None


def _failed_run(mode: str, seconds: float, exc: Exception, tracer: Tracer, phase: str, index: ModelIndex) -> ModeRun:
    explanation = explain(exc)
    first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return ModeRun(
        mode=mode, ok=False, seconds=seconds, memory=_memory(index, tracer),
        exception=f"{type(exc).__name__}: {first_line}",
        failing_module=tracer.failing_module if phase == "forward" else BACKWARD,
        explanation=asdict(explanation) if explanation else None,
        modules=list(tracer.stats.values()),
    )


def _memory(index: ModelIndex, tracer: Tracer) -> Memory:
    return Memory(
        params=sum(p.numel() * p.element_size() for _, p in index.params),
        grads=sum(p.grad.numel() * p.grad.element_size() for _, p in index.params if p.grad is not None),
        activations=tracer.activation_bytes,
    )


def _grads_by_module(index: ModelIndex) -> dict[str, list[torch.Tensor]]:
    grads: dict[str, list[torch.Tensor]] = {}
    for owner, param in index.params:
        if param.grad is not None:
            grads.setdefault(owner, []).append(param.grad)
    return grads
