"""Trial training: N optimizer steps under fp32 and under each policy, from the same weights and batches.

Every run goes through castwise's own training parts (``make_optimizer``, ``LossScaler``,
``PrecisionMonitor``). The runs advance in lockstep, one step each in a rotating order, so that
machine load falls on all of them alike; every ``SAMPLE_EVERY``-th step is watched by the monitor
(swamped updates, underflow) and the others are timed. Memory is measured on the first step: the
weights, gradients and optimizer state as stored, and the activations autograd saved for backward.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import math
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from castwise.doctor.measure.compare import relative_difference
from castwise.doctor.measure.runner import Call, reseed
from castwise.doctor.measure.trace import cuda_devices, floating_tensors
from castwise.doctor.report.data import Training, TrainingMemory, TrainingRun
from castwise.model import apply, unwrap
from castwise.policy import Policy
from castwise.training import LossScaler, PrecisionMonitor, make_optimizer, training_bytes

SAMPLE_EVERY = 4
"""The monitor watches steps 0, 4, 8, ...; the others (after the first) are timed."""
OPTIMIZER = "adamw"
REFERENCE = "32-true"
DEFAULT_LR = 1e-3

TrainLoss = Callable[[Any, Any], torch.Tensor]
"""``loss(output, target) -> scalar``; ``target`` is None when the example inputs are repeated."""
Notify = Callable[[str], None]


@dataclass(frozen=True)
class Batch:
    """One training batch: the model's inputs and the target handed to the loss (or None)."""

    call: Call
    target: Any = None


def trial_batches(example_inputs: Any, batches: Iterable[Any] | None, steps: int) -> list[Batch]:
    """``steps`` batches: from ``batches`` (``(inputs, target)`` pairs, cycled if short) or the example repeated."""
    if batches is None:
        return [Batch(Call.of(example_inputs))] * steps
    taken = list(itertools.islice(iter(batches), steps))
    if not taken:
        raise ValueError("batches yielded nothing: give an iterable of (inputs, target) pairs")
    if not all(isinstance(item, (tuple, list)) and len(item) == 2 for item in taken):
        raise ValueError("batches must yield (inputs, target) pairs")
    return [Batch(Call.of(inputs), target) for inputs, target in itertools.islice(itertools.cycle(taken), steps)]


class DefaultLoss:
    """Cross-entropy for integer targets, mean squared error for floating ones, and without a
    target the mean squared error to a fixed random target (seeded) of the output's shape."""

    def __init__(self, seed: int = 0) -> None:
        self._seed = seed
        self._targets: dict[tuple[int, ...], torch.Tensor] = {}

    @staticmethod
    def describe(target: Any) -> str:
        """What this loss computes for batches with ``target`` (None: no targets), in words."""
        if target is None:
            return "MSE to a fixed random target"
        return f"{'MSE' if target.is_floating_point() else 'cross-entropy'} to the batch targets"

    def __call__(self, output: Any, target: Any) -> torch.Tensor:
        tensors = floating_tensors(output)
        if not tensors:
            raise ValueError("the model returned no floating tensor to compute a training loss from: pass loss_fn "
                             "(castwise doctor: the factory's dict with 'loss_fn')")
        prediction = tensors[0].float()
        if target is None:
            return F.mse_loss(prediction, self._fixed_target(prediction))
        if not target.is_floating_point():
            return F.cross_entropy(prediction.reshape(-1, prediction.shape[-1]), target.reshape(-1))
        return F.mse_loss(prediction, target.float())

    def _fixed_target(self, prediction: torch.Tensor) -> torch.Tensor:
        shape = tuple(prediction.shape)
        if shape not in self._targets:
            generator = torch.Generator().manual_seed(self._seed)
            self._targets[shape] = torch.randn(shape, generator=generator).to(prediction.device)
        return self._targets[shape]


def variants(policies: Sequence[Policy]) -> list[tuple[Policy, str]]:
    """Each policy with plain updates, and 16-true policies also with Kahan-compensated ones."""
    runs = []
    for policy in policies:
        runs.append((policy, "none"))
        if not policy.is_mixed and policy.is_low_precision:
            runs.append((policy, "kahan"))
    return runs


@dataclass
class _State:
    """One run in progress."""

    policy: Policy
    updates: str
    model: nn.Module
    optimizer: torch.optim.Optimizer
    scaler: LossScaler
    monitor: PrecisionMonitor
    devices: list[int]
    losses: list[float | None] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    memory: TrainingMemory = field(default_factory=TrainingMemory)
    nonfinite: str | None = None
    exception: str | None = None

    @classmethod
    def start(cls, source: nn.Module, policy: Policy, updates: str, lr: float) -> _State:
        model = apply(copy.deepcopy(source), policy)
        optimizer = make_optimizer(model, OPTIMIZER, lr=lr, updates=updates)
        scaler = LossScaler(policy)
        monitor = PrecisionMonitor(model, optimizer, scaler=scaler)
        return cls(policy, updates, model, optimizer, scaler, monitor, cuda_devices(model))

    def step(self, index: int, batch: Batch, loss_of: TrainLoss, seed: int) -> None:
        """One optimizer step; the first measures memory, every ``SAMPLE_EVERY``-th is monitored."""
        timed = index > 0 and index % SAMPLE_EVERY != 0
        reseed(seed + index, self.devices)
        start = time.perf_counter()
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        with _saved_for_backward(self.model) if index == 0 else contextlib.nullcontext() as saved:
            output = self.model(*batch.call.args, **batch.call.kwargs)
            loss = loss_of(output, batch.target).float()
        self.scaler.scale(loss).backward()
        with contextlib.nullcontext() if timed else self.monitor.observe():
            self.scaler.step(self.optimizer)
        self.scaler.update()
        value = float(loss.detach())
        elapsed = time.perf_counter() - start
        if timed:
            self.seconds.append(elapsed)
        if saved is not None:
            held = training_bytes(unwrap(self.model), self.optimizer)
            self.memory = TrainingMemory(held.parameters, held.gradients, held.optimizer, saved.bytes)
        if not math.isfinite(value) and self.nonfinite is None:
            self.nonfinite = f"the loss became {value} at step {index}"
        self.losses.append(value if math.isfinite(value) else None)

    def result(self) -> TrainingRun:
        history = self.monitor.history
        return TrainingRun(
            policy=str(self.policy), updates=self.updates, ok=self.exception is None, losses=self.losses,
            memory=self.memory, step_seconds=statistics.median(self.seconds) if self.seconds else None,
            swamping_rate=_mean(h["swamping_rate"] for h in history),
            grad_underflow=_mean(h["grad_underflow"] for h in history),
            skipped_steps=self.scaler.skipped_steps,
            loss_scale=self.scaler.get_scale() if self.scaler.enabled else None,
            nonfinite=self.nonfinite, exception=self.exception,
        )


class _SavedBytes:
    """Bytes of the distinct storages autograd saved for backward, parameters excluded."""

    def __init__(self, model: nn.Module) -> None:
        self._params = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self._seen: set[int] = set()
        self.bytes = 0

    def pack(self, tensor: torch.Tensor) -> torch.Tensor:
        if tensor.layout == torch.strided and not tensor.is_nested:
            storage = tensor.untyped_storage()
            pointer = storage.data_ptr()
            if pointer not in self._params and pointer not in self._seen:
                self._seen.add(pointer)
                self.bytes += storage.nbytes()
        return tensor


@contextlib.contextmanager
def _saved_for_backward(model: nn.Module) -> Iterator[_SavedBytes]:
    counter = _SavedBytes(model)
    with torch.autograd.graph.saved_tensors_hooks(counter.pack, lambda tensor: tensor):
        yield counter


def train(
    model: nn.Module, batches: Sequence[Batch], policies: Sequence[Policy], loss_of: TrainLoss, *,
    loss_name: str, tolerance: float, lr: float = DEFAULT_LR, seed: int = 0, notify: Notify | None = None,
) -> Training:
    """Train copies of ``model`` for ``len(batches)`` steps under fp32 and each policy variant
    (``32-true`` itself is the reference run, not trained twice)."""
    source = unwrap(model)
    reference_policy = Policy.parse(REFERENCE)
    states = [_State.start(source, reference_policy, "none", lr)]
    states += [_State.start(source, policy, updates, lr) for policy, updates in variants(policies)
               if policy != reference_policy]
    with torch.random.fork_rng(devices=cuda_devices(source)):
        for index, batch in enumerate(batches):
            if notify:
                notify(f"training step {index + 1}/{len(batches)}")
            shift = index % len(states)
            for state in states[shift:] + states[:shift]:
                if state.exception is None:
                    _guarded_step(state, index, batch, loss_of, seed)
    reference, *runs = [state.result() for state in states]
    for run in runs:
        _compare_with(run, reference)
    reference.final_gap = reference.max_gap = 0.0 if reference.ok and reference.nonfinite is None else None
    reference.time_ratio = reference.memory_ratio = 1.0
    return Training(len(batches), OPTIMIZER, lr, loss_name, tolerance, reference, runs)


def _guarded_step(state: _State, index: int, batch: Batch, loss_of: TrainLoss, seed: int) -> None:
    try:
        state.step(index, batch, loss_of, seed)
    except Exception as exc:  # the point is to report what the policy's training raised
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        state.exception = f"{type(exc).__name__}: {first_line} (step {index})"


def _compare_with(run: TrainingRun, reference: TrainingRun) -> None:
    """Fill in the loss gaps and the time and memory ratios against the fp32 run."""
    if run.ok and run.nonfinite is None and reference.ok and reference.nonfinite is None:
        tail = max(1, len(run.losses) // 10)
        mine, theirs = _mean_or_none(run.losses[-tail:]), _mean_or_none(reference.losses[-tail:])
        if mine is not None and theirs is not None:
            run.final_gap = (mine - theirs) / abs(theirs) if theirs else mine - theirs
        gaps = [relative_difference(a, b) for a, b in zip(run.losses, reference.losses)]
        run.max_gap = max((g for g in gaps if g is not None), default=None)
    if run.step_seconds and reference.step_seconds:
        run.time_ratio = run.step_seconds / reference.step_seconds
    if run.memory.total and reference.memory.total:
        run.memory_ratio = run.memory.total / reference.memory.total


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def _mean_or_none(values: Sequence[float | None]) -> float | None:
    finite = [v for v in values if v is not None]
    return sum(finite) / len(finite) if len(finite) == len(values) and finite else None
