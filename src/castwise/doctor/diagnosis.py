"""``cw.diagnose``: run a model in fp32 and under each policy, traced, and report what to use."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

from torch import nn

from castwise.doctor.findings import find
from castwise.doctor.recommend import Trial, recommend
from castwise.doctor.report import PolicyResult, Report
from castwise.doctor.runner import MODES, Call, Capture, LossFn, comparable_paths, prepare, run_mode
from castwise.doctor.scoring import score
from castwise.model import PrecisionWarning, unwrap
from castwise.policy import Policy, PolicyLike

DEFAULT_POLICIES = ("32-true", "tf32", "bf16-mixed", "16-mixed", "bf16-true", "16-true")
DEFAULT_TOLERANCE = 2e-2
REFERENCE = Policy.parse("32-true")

Progress = Callable[[str], None]


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
) -> Report:
    """Run ``model`` in fp32 and under each policy with forward hooks; findings and a recommendation.

    ``example_inputs``: a tensor, a tuple of positional arguments or a dict of keyword arguments.
    ``loss_fn(output) -> scalar`` adds a loss comparison (train mode backpropagates it; without it
    the sum of the outputs). ``modes``: ``train`` (forward + backward) and/or ``eval`` (no_grad).
    A policy passes when it runs in every mode, its outputs do not overflow, and the relative error
    of outputs (and loss) against fp32 stays within ``tolerance``. ``progress`` is called with a
    description before each run; ``name`` labels the model in the report (default: its class name).
    The model is not modified.
    """
    modes = _check_modes(modes)
    parsed = [Policy.parse(p) for p in policies]
    call = Call.of(example_inputs)
    source = unwrap(model)
    notify = progress or (lambda _: None)
    with comparable_paths(source), warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)
        warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
        notify(f"{REFERENCE} (fp32 reference)")
        reference = _run_policy(source, REFERENCE, call, modes, loss_fn, seed)
        captures: dict[str, dict[str, Capture]] = {}
        for policy in parsed:
            notify(str(policy))
            captures[str(policy)] = _run_policy(source, policy, call, modes, loss_fn, seed, reference)
        reference_ok = all(capture.run.ok for capture in reference.values())
        results = [_result(name, runs, tolerance, reference_ok) for name, runs in captures.items()]

        def evaluate(policy: Policy) -> Trial:
            notify(f"keep-fp32 search: {', '.join(policy.keep_fp32[-3:])}")
            return _trial(source, policy, call, modes, loss_fn, seed, reference, tolerance, reference_ok)

        previous = {name: _merged_previous(runs) for name, runs in captures.items()}
        recommendation = recommend(results, tolerance, previous, evaluate)
    return Report(
        model=name or type(source).__name__, tolerance=tolerance, modes=list(modes),
        reference=[reference[m].run for m in modes], policies=results,
        findings=find(source, [c.run for c in reference.values()], results, recommendation.keep_fp32),
        recommendation=recommendation,
    )


def _check_modes(modes: Sequence[str]) -> tuple[str, ...]:
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise ValueError(f"modes must be a non-empty selection of {MODES}, got {tuple(modes)}")
    return tuple(dict.fromkeys(modes))


def _run_policy(model: nn.Module, policy: Policy, call: Call, modes: Sequence[str], loss_fn: LossFn | None,
                seed: int, reference: dict[str, Capture] | None = None, per_module: bool = True) -> dict[str, Capture]:
    """Run ``policy`` in each mode; with ``reference`` (runs per mode), score against it."""
    wrapped = prepare(model, policy)
    captures = {}
    for mode in modes:
        captures[mode] = run_mode(wrapped, call, mode, loss_fn, seed, reference[mode] if reference else None, per_module)
        if reference is not None:
            score(captures[mode], reference[mode])
    return captures


def _result(name: str, runs: dict[str, Capture], tolerance: float, reference_ok: bool) -> PolicyResult:
    """Within tolerance: the reference and every mode ran, nothing overflowed, the error is small enough."""
    result = PolicyResult(name, [c.run for c in runs.values()], within_tolerance=False)
    error = result.max_error
    result.within_tolerance = reference_ok and result.ok and not any(r.overflow for r in result.runs) \
        and (error or 0.0) <= tolerance
    return result


def _merged_previous(runs: dict[str, Capture]) -> dict[str, str | None]:
    merged: dict[str, str | None] = {}
    for capture in runs.values():
        merged.update(capture.previous)
    return merged


def _trial(model: nn.Module, policy: Policy, call: Call, modes: Sequence[str], loss_fn: LossFn | None,
           seed: int, reference: dict[str, Capture], tolerance: float, reference_ok: bool) -> Trial:
    """Re-run a policy (outputs only) and judge it like a diagnosed one."""
    runs = _run_policy(model, policy, call, modes, loss_fn, seed, reference, per_module=False)
    result = _result(str(policy), runs, tolerance, reference_ok)
    failing = next((r.failing_module for r in result.runs if not r.ok), None)
    return Trial(result.within_tolerance, result.max_error, failing)
