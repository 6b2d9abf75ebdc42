"""``cw.diagnose``: run a model in fp32 and under each policy, traced, and report what to use."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from torch import nn

from castwise.doctor.judge.findings import find
from castwise.doctor.judge.recommend import recommend
from castwise.doctor.judge.search import Trial
from castwise.doctor.judge.verdict import judge
from castwise.doctor.measure.fp8 import fp8_rows
from castwise.doctor.measure.nonfinite import follow_nonfinite
from castwise.doctor.measure.origin import Finiteness, finiteness
from castwise.doctor.measure.routing import routing_report
from castwise.doctor.measure.runner import MODES, Call, Capture, LossFn, Subject, comparable_paths, run_mode
from castwise.doctor.measure.scoring import score
from castwise.doctor.measure.trial import DEFAULT_LR, DefaultLoss, TrainLoss, train, trial_batches, variants
from castwise.doctor.report.data import PolicyResult, Report, Training
from castwise.doctor.stream import diagnose_streamed
from castwise.model import PrecisionWarning, unwrap
from castwise.policy import Policy, PolicyLike

DEFAULT_POLICIES = ("32-true", "tf32", "bf16-mixed", "16-mixed", "bf16-true", "16-true")
DEFAULT_TOLERANCE = 2e-2
REFERENCE = Policy.parse("32-true")

Progress = Callable[[str, int, int], None]
"""``progress(description, done, total)``: called before each piece of work (total may grow)."""


def diagnose(
    model: nn.Module,
    example_inputs: Any,
    policies: Sequence[PolicyLike] = DEFAULT_POLICIES,
    loss_fn: LossFn | None = None,
    modes: Sequence[str] = MODES,
    tolerance: float = DEFAULT_TOLERANCE,
    seed: int = 0,
    progress: Progress | None = None,
    name: str | None = None,
    train_steps: int = 0,
    batches: Iterable[Any] | None = None,
    lr: float = DEFAULT_LR,
    stream: bool = False,
    checkpoint: str | Path | None = None,
) -> Report:
    """Run ``model`` in fp32 and under each policy with forward hooks; findings and a recommendation.

    ``example_inputs``: a tensor, a tuple of positional arguments or a dict of keyword arguments.
    ``loss_fn(output) -> scalar`` adds a loss comparison (train mode backpropagates it; without it
    the sum of the outputs). ``modes``: ``train`` (forward + backward) and/or ``eval`` (no_grad).
    A policy passes when it runs in every mode, no inf/nan is measured where fp32's values are finite
    (outputs, loss, module outputs, gradients; gradients alone pass when the policy's dynamic loss
    scaler was measured to absorb them) and the relative error of outputs (and loss) against fp32
    stays within ``tolerance``. Step times are medians of untraced steps after a warm-up. ``progress(description, done,
    total)`` is called before each piece of work; ``name`` labels the model in the report.

    ``train_steps=N`` adds a trial training: N AdamW steps (learning rate ``lr``) from the same
    weights and batches under fp32 and each policy (16-true ones with plain and with Kahan updates),
    each with its policy's loss scaling; a policy then also needs its final loss within
    ``tolerance`` of fp32's. ``batches``: ``(inputs, target)`` pairs (cycled if fewer than N), in
    which case ``loss_fn(output, target)`` takes the target (the one-step runs use the first
    batch's); otherwise ``example_inputs`` repeated with ``loss_fn(output)``. Without ``loss_fn``
    training uses cross-entropy (integer targets), MSE (float targets) or MSE to a fixed random target.
    Models with top-k routers (MoE gates) also get a routing report. fp8 policies (``fp8-mixed``) get
    per-Linear fp8 rows and, outside tolerance, a search for the fewest Linears to keep out of fp8.
    The model is not modified.

    ``stream=True`` diagnoses a transformers model built on the meta device (Llama, Mistral, Qwen,
    GPT-2, Mixtral) from the weights in ``checkpoint`` (default: the folder its config came from),
    one decoder block in memory at a time: module errors are then per block on fp32 inputs, output
    and loss errors propagated through the blocks under each policy (``report.stream`` says so).
    Trial training and fp8 policies are in-memory only.
    """
    modes = _check_modes(modes)
    parsed = [Policy.parse(p) for p in policies]
    steps = _check_steps(train_steps)
    if stream:
        if steps or batches is not None:
            raise ValueError("trial training (train_steps, batches) is in-memory only: it cannot run with stream=True")
        return diagnose_streamed(model, example_inputs, parsed, loss_fn, modes, tolerance, seed, progress, name,
                                 checkpoint)
    if steps and not (isinstance(lr, (int, float)) and lr > 0):
        raise ValueError(f"lr must be a positive number, got {lr!r}")
    trial_data = trial_batches(example_inputs, batches, steps) if steps else []
    one_step_loss = _one_step_loss(loss_fn, trial_data[0].target if batches is not None and trial_data else None)
    source = unwrap(model)
    runs = _Runs(source, Call.of(example_inputs), modes, one_step_loss, seed, tolerance)
    work = _Work(progress, 1 + len(parsed) + 1 + steps)
    with comparable_paths(source), warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)
        warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
        work.next(f"{REFERENCE} (fp32 reference)")
        runs.reference = runs.run(REFERENCE)
        captures: dict[str, dict[str, Capture]] = {}
        for policy in parsed:
            work.next(str(policy))
            captures[str(policy)] = runs.run(policy)
        results = [runs.judge(name, captured) for name, captured in captures.items()]
        for result in results:
            if Policy.parse(result.policy).fp8 and result.ok:
                work.grow(f"{result.policy}: fp8 rows")
                result.fp8 = fp8_rows(source, Policy.parse(result.policy), runs.call.forward)
        work.next("MoE routing")
        routing = routing_report(source, runs.call, parsed, seed)
        training = _train(source, trial_data, parsed, loss_fn, batches is not None, tolerance, lr, seed, work)

        def evaluate(policy: Policy) -> Trial:
            kept = policy.fp8_keep_out if policy.fp8 else policy.keep_fp32
            work.grow(f"{'fp8 keep-out' if policy.fp8 else 'keep-fp32'} search: {', '.join(kept[-3:])}")
            return runs.trial(policy)

        previous = {name: _merged_previous(captured) for name, captured in captures.items()}
        recommendation = recommend(results, tolerance, previous, evaluate, training, routing)
    reference = [runs.reference[m].run for m in modes]
    return Report(
        model=name or type(source).__name__, tolerance=tolerance, modes=list(modes), reference=reference,
        policies=results, findings=find(source, reference, results, recommendation.keep_fp32, training, routing),
        recommendation=recommendation, training=training, routing=routing,
    )


@dataclass
class _Runs:
    """Runs of policies against the fp32 reference, with what they all share; once ``reference`` holds
    the reference's captures (per mode), each run is scored against it."""

    source: nn.Module
    call: Call
    modes: tuple[str, ...]
    loss_fn: LossFn | None
    seed: int
    tolerance: float
    reference: dict[str, Capture] = field(default_factory=dict)
    _finiteness: dict[str, Finiteness] = field(default_factory=dict)

    def run(self, policy: Policy, timed: bool = True) -> dict[str, Capture]:
        """Run ``policy`` in each mode and score it; where it overflowed, find where the overflow started,
        and where only gradients overflowed under a dynamic loss scaler, measure what the scaler does."""
        subject = Subject.of(self.source, policy)
        captures = {}
        for mode in self.modes:
            expected = self.reference.get(mode)
            captures[mode] = capture = run_mode(subject, self.call, mode, self.loss_fn, self.seed, expected,
                                                timed=timed)
            if expected is None:
                continue
            score(capture, expected)
            follow_nonfinite(capture.run, subject, policy, self.call, self.loss_fn, self.seed,
                             partial(self._reference_finiteness, mode))
        return captures

    def judge(self, name: str, captures: dict[str, Capture]) -> PolicyResult:
        """The verdict on a policy's captured runs."""
        reference_ok = all(capture.run.ok for capture in self.reference.values())
        return judge(name, [c.run for c in captures.values()], self.tolerance, reference_ok)

    def trial(self, policy: Policy) -> Trial:
        """Re-run a policy (untimed) and judge it like a diagnosed one; rank its modules again."""
        captures = self.run(policy, timed=False)
        return Trial.of(self.judge(str(policy), captures), _merged_previous(captures))

    def _reference_finiteness(self, mode: str) -> Finiteness:
        if mode not in self._finiteness:
            self._finiteness[mode] = finiteness(Subject.of(self.source, REFERENCE), self.call, mode, self.seed)
        return self._finiteness[mode]


def _loss_name(loss_fn: Callable[..., Any]) -> str:
    """A function's name in words ('language modelling loss'); 'the given loss_fn' for a lambda."""
    name = getattr(loss_fn, "__name__", type(loss_fn).__name__)
    return "the given loss_fn" if name == "<lambda>" else name.strip("_").replace("_", " ")


class _Work:
    """Counts pieces of work for the ``progress`` callback."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self._progress, self.done, self.total = progress, 0, total

    def next(self, description: str) -> None:
        if self._progress is not None:
            self._progress(description, self.done, self.total)
        self.done += 1

    def grow(self, description: str) -> None:
        self.total += 1
        self.next(description)


def _check_steps(steps: int) -> int:
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"train_steps must be a whole number of steps (0: no trial training), got {steps!r}")
    return steps


def _one_step_loss(loss_fn: Callable[..., Any] | None, target: Any) -> LossFn | None:
    """The one-step runs' ``loss(output)``: with batches, ``loss_fn`` bound to the first batch's target."""
    if loss_fn is None or target is None:
        return loss_fn
    return lambda output: loss_fn(output, target)


def _train(source: nn.Module, data: list, policies: list[Policy], loss_fn: Callable[..., Any] | None,
           has_targets: bool, tolerance: float, lr: float, seed: int, work: _Work) -> Training | None:
    if not data:
        return None
    default = DefaultLoss(seed)
    if loss_fn is None:
        loss_of: TrainLoss = default
        loss_name = default.describe(data[0].target)
    else:
        loss_of = loss_fn if has_targets else (lambda output, _: loss_fn(output))
        loss_name = _loss_name(loss_fn)
    return train(source, data, policies, loss_of, loss_name=loss_name, tolerance=tolerance, lr=lr, seed=seed,
                 notify=lambda text: work.next(f"{text} ({len(variants(policies)) + 1} runs)"))


def _check_modes(modes: Sequence[str]) -> tuple[str, ...]:
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise ValueError(f"modes must be a non-empty selection of {MODES}, got {tuple(modes)}")
    return tuple(dict.fromkeys(modes))


def _merged_previous(runs: dict[str, Capture]) -> dict[str, str | None]:
    merged: dict[str, str | None] = {}
    for capture in runs.values():
        merged.update(capture.previous)
    return merged
