"""The recommendation: the cheapest policy within tolerance, and the fewest modules to keep in fp32.

Cost is storage first (parameter bits), then compute bits, then loss scaling (an fp16 policy needs
a scaler, skips steps on overflow and has fp32's range cut to 65504, which example inputs may not
exercise: so bf16 wins over fp16 of the same width), then tf32 over full fp32; among equally cheap
policies the more accurate one wins. With a trial training, a policy must also train like fp32
(its final loss within tolerance, with plain or Kahan updates), and one whose step measured here is
more than ``SLOW`` times fp32's is chosen only when no faster one passes (fp16 math is emulated on
many CPUs). When the chosen policy changes the experts of top-k routers and keeping the routers in
fp32 was measured to help, they are kept in fp32.

The keep-fp32 search re-runs a failing policy with more and more of its most sensitive modules
kept in fp32: first the modules that raised, then the
sensitivity ranking by doubling prefixes (a module that raises on the way joins the first group), then
a bisection down to the shortest prefix that passes. A failing fp8 policy gets the keep-out search
instead: its converted Linears, worst fp8 error first, are kept out of fp8 one more at a time until it
passes; when that policy is cheaper than the best diagnosed one, it is the recommendation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from castwise.doctor.formatting import percent, ratio
from castwise.doctor.report import KeepFix, ModeRun, PolicyResult, Recommendation, Routing, Training, TrainingRun
from castwise.doctor.routing import ROUTING_WARNING
from castwise.policy import Policy

ROOT = "(model)"
SLOW = 3.0
"""A step time ratio to fp32 above which a policy counts as slow on this machine."""
FLOATING = {"f64", "f32", "bf16", "f16"}
"""Modules without floating inputs (embeddings) are not ranked: kept in fp32 they would hand on fp32."""


@dataclass(frozen=True)
class Trial:
    """The outcome of re-running a policy with some modules kept in fp32."""

    passed: bool
    error: float | None
    failing_module: str | None


Evaluate = Callable[[Policy], Trial]


def cost(policy: Policy) -> tuple[int, int, int, int]:
    """Smaller is cheaper: parameter bits, compute bits (8 for fp8 linears), 1 when loss scaling is
    needed, then 0 for tf32 matmuls and 1 for full fp32."""
    return (
        torch.finfo(policy.param_dtype).bits,
        8 if policy.fp8 else torch.finfo(policy.compute_dtype).bits,
        int(policy.loss_scaling != "none"),
        int(policy.matmul_precision == "highest"),
    )


def passes(result: PolicyResult, training: Training | None = None) -> bool:
    """Runs in every mode, no overflow in the output, error within tolerance (and trains like fp32)."""
    trains = training is None or training.best(result.policy) is not None
    return result.ok and result.within_tolerance and trains


def too_slow(run: TrainingRun | None) -> bool:
    """The trial training measured this run's step at more than ``SLOW`` times fp32's."""
    return run is not None and run.time_ratio is not None and run.time_ratio > SLOW


def cheapest_passing(results: Sequence[PolicyResult], training: Training | None = None) -> PolicyResult | None:
    """The cheapest policy that passes (measured with a trial training); ties go to the smaller error."""
    passing = [r for r in results if passes(r, training)]

    def key(result: PolicyResult) -> tuple:
        slow = training is not None and too_slow(training.best(result.policy))
        return (slow, cost(Policy.parse(result.policy)), result.max_error or 0.0)

    return min(passing, key=key, default=None)


def needs_search(results: Sequence[PolicyResult], best: PolicyResult | None) -> list[PolicyResult]:
    """Failing low-precision policies strictly cheaper than ``best`` (all of them when none passes)."""
    ceiling = cost(Policy.parse(best.policy)) if best else None
    return [
        r for r in results
        if not passes(r) and Policy.parse(r.policy).is_low_precision
        and (ceiling is None or cost(Policy.parse(r.policy)) < ceiling)
    ]


def sensitivity(runs: Sequence[ModeRun], previous: dict[str, str | None]) -> list[str]:
    """Modules with parameters, ranked by the error they add: output error minus the previous module's."""
    added: dict[str, float] = {}
    for run in runs:
        errors = {m.name: m.error for m in run.modules}
        for module in run.modules:
            if module.name == ROOT or module.kept_fp32 or module.error is None or not module.params \
                    or not set(module.inputs) & FLOATING:
                continue
            before = errors.get(previous.get(module.name) or "", None) or 0.0
            added[module.name] = max(added.get(module.name, 0.0), module.error - before)
    return sorted((name for name, value in added.items() if value > 0), key=lambda n: -added[n])


def search_keep_fp32(
    result: PolicyResult, ranked: Sequence[str], evaluate: Evaluate, max_trials: int = 6,
) -> KeepFix | None:
    """The shortest list of modules which, kept in fp32, makes ``result.policy`` pass (best effort).

    None when there is nothing to try: no module raised and none adds measurable error.
    """
    policy = Policy.parse(result.policy)
    forced = [r.failing_module for r in result.runs if r.failing_module and _blamable(r.failing_module)]
    trials: list[tuple[list[str], Trial]] = []

    def attempt(modules: list[str]) -> Trial:
        trial = evaluate(policy.replace(keep_fp32=policy.keep_fp32 + tuple(modules)))
        trials.append((list(modules), trial))
        return trial

    keep = list(dict.fromkeys(forced))
    rest = [name for name in ranked if name not in keep]
    trial = attempt(keep) if keep else Trial(False, result.max_error, None)
    low = size = 0
    while not trial.passed and len(trials) < max_trials:
        if trial.failing_module and _blamable(trial.failing_module) and trial.failing_module not in keep:
            keep.append(trial.failing_module)
            rest = [name for name in rest if name != trial.failing_module]
            low = size = 0
        elif trial.failing_module is None and size < len(rest):
            low, size = size, min(max(1, 2 * size), len(rest))
        else:
            break
        trial = attempt(keep + rest[:size])
    if trial.passed:
        high = size
        while high - low > 1 and len(trials) < max_trials:
            middle = (low + high) // 2
            if attempt(keep + rest[:middle]).passed:
                high = middle
            else:
                low = middle
        keep = keep + rest[:high]
    if not trials:
        return None
    best = next(((m, t) for m, t in reversed(trials) if t.passed and m == keep), None)
    if best is None:
        last_modules, last = trials[-1]
        return KeepFix(result.policy, last_modules, last.error, False, len(trials))
    return KeepFix(result.policy, keep, best[1].error, True, len(trials))


def search_fp8_keep_out(result: PolicyResult, evaluate: Evaluate, max_trials: int = 8) -> KeepFix | None:
    """The fewest Linears which, kept out of fp8, make ``result.policy`` pass: greedily, the worst fp8
    error first (``result.fp8`` rows), one more each trial. None without rows that add error."""
    policy = Policy.parse(result.policy)
    ranked = [row.name for row in result.fp8 or () if row.error]
    trial, keep = None, []
    for size in range(1, min(len(ranked), max_trials) + 1):
        keep = ranked[:size]
        trial = evaluate(fp8_keep_out(policy, keep))
        if trial.passed:
            break
    if trial is None:
        return None
    return KeepFix(result.policy, keep, trial.error, trial.passed, len(keep))


def fp8_keep_out(policy: Policy, modules: Sequence[str]) -> Policy:
    """``policy`` with ``modules`` kept out of fp8 as well as what it keeps out already."""
    return policy.replace(fp8_keep_out=policy.fp8_keep_out + tuple(modules))


def _blamable(module: str) -> bool:
    """A real submodule (not the whole model, nor the loss/backward) that can be kept in fp32."""
    return not module.startswith("(")


def recommend(
    results: Sequence[PolicyResult], tolerance: float,
    previous: dict[str, dict[str, str | None]], evaluate: Evaluate,
    training: Training | None = None, routing: Sequence[Routing] | None = None,
) -> Recommendation:
    """Pick the cheapest passing policy and search keep-fp32 fixes for cheaper failing ones."""
    best = cheapest_passing(results, training)
    failing = needs_search(results, best)
    searched = (
        search_keep_fp32(r, sensitivity(r.runs, previous.get(r.policy, {})), evaluate)
        for r in failing if r.fp8 is None
    )
    fixes = [fix for fix in searched if fix is not None]
    fp8_fixes = [fix for fix in (search_fp8_keep_out(r, evaluate) for r in failing if r.fp8) if fix is not None]
    reason = _reason(best, fixes, tolerance, training is not None)
    chosen = best.policy if best else None
    fp8_fix = next((f for f in fp8_fixes if f.ok), None)
    if fp8_fix is not None:
        fixed = fp8_keep_out(Policy.parse(fp8_fix.policy), fp8_fix.modules)
        reason += (f"; {fp8_fix.policy} passes with {', '.join(fp8_fix.modules)} kept out of fp8 "
                   f"(error {fp8_fix.error or 0:.2e}): {fixed}")
        if training is None and (best is None or cost(fixed) < cost(Policy.parse(best.policy))):
            chosen = str(fixed)
            reason += ", the cheapest passing policy (fp8 compute)"
    run = training.best(best.policy) if training and best else None
    if training is not None and run is not None:
        reason += "; " + _training_reason(run, training)
    router = next((r for r in routing or () if r.policy == chosen), None)
    if router is not None and router.rate > ROUTING_WARNING and router.keeping_helps and router.keep_policy:
        reason += (f"; its routers change expert for {percent(router.rate)} of token choices against fp32, so they "
                   f"are kept in fp32 ({percent(_kept_rate(router))} then)")
        chosen = router.keep_policy
    return Recommendation(chosen, tolerance, reason, fixes, run.updates if run else "none", fp8_fixes)


def _kept_rate(router: Routing) -> float:
    return (router.changed_kept or 0) / router.tokens if router.tokens else 0.0


def _training_reason(run: TrainingRun, training: Training) -> str:
    how = " with Kahan-compensated updates (cw.make_optimizer(..., updates='kahan'))" if run.updates == "kahan" else ""
    speed = "" if run.time_ratio is None else f", {ratio(1 / run.time_ratio)} the speed of fp32 here"
    return (f"trained{how}: loss within {percent(abs(run.final_gap or 0.0))} of fp32 after {training.steps} steps, "
            f"{ratio(run.memory_ratio)} the memory{speed}")


def _reason(best: PolicyResult | None, fixes: Sequence[KeepFix], tolerance: float, trained: bool) -> str:
    if best is None:
        head = f"no diagnosed policy stays within tolerance {tolerance:g}" + (
            " and trains like fp32" if trained else "")
    else:
        error = best.max_error or 0.0
        how = ", and trains like fp32" if trained else ""
        head = f"{best.policy} is the cheapest policy within tolerance {tolerance:g} (max error {error:.2e}){how}"
    found = [f for f in fixes if f.ok]
    if found:
        head += "; " + "; ".join(
            f"{f.policy} passes with {', '.join(f.modules) or 'nothing more'} kept in fp32 (error {f.error or 0:.2e})"
            for f in found
        )
    return head
