"""The recommendation: the cheapest policy within tolerance, and the fewest modules to keep in fp32.

Cost is storage first (parameter bits), then compute bits, then loss scaling (an fp16 policy needs
a scaler, skips steps on overflow and has fp32's range cut to 65504, which example inputs may not
exercise: so bf16 wins over fp16 of the same width), then tf32 over full fp32; among equally cheap
policies the more accurate one wins. With a trial training, a policy must also train like fp32
(its final loss within tolerance, with plain or Kahan updates), and one whose step measured here is
more than ``SLOW`` times fp32's is chosen only when no faster one passes (fp16 math is emulated on
many CPUs). A failing policy that a verified keep-fp32 (or fp8 keep-out) fix makes pass is recommended
with that fix when it is cheaper than every passing one, unless a trial training ran (the fix was not
trained). When the chosen policy changes the experts of top-k routers and keeping the routers in
fp32 was measured to help, they are kept in fp32. The searches for modules to keep out of low
precision are in :mod:`castwise.doctor.judge.search`.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from castwise.doctor.judge.search import (
    Evaluate,
    fp8_keep_out,
    kept_fp32,
    search_fp8_keep_out,
    search_keep_fp32,
    sensitivity,
)
from castwise.doctor.measure.routing import ROUTING_WARNING
from castwise.doctor.report.data import KeepFix, PolicyResult, Recommendation, Routing, Training, TrainingRun
from castwise.doctor.report.formatting import percent, ratio
from castwise.policy import Policy

SLOW = 3.0
"""A step time ratio to fp32 above which a policy counts as slow on this machine."""


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


def recommend(
    results: Sequence[PolicyResult], tolerance: float,
    previous: dict[str, dict[str, str | None]], evaluate: Evaluate,
    training: Training | None = None, routing: Sequence[Routing] | None = None,
) -> Recommendation:
    """Pick the cheapest passing policy and search keep-fp32 fixes for cheaper failing ones."""
    best = cheapest_passing(results, training)
    failing = needs_search(results, best)
    searched = (
        search_keep_fp32(r, sensitivity(r.runs, previous.get(r.policy, {})), evaluate, first=_flipping(r, routing))
        for r in failing if r.fp8 is None
    )
    fixes = [fix for fix in searched if fix is not None]
    fp8_fixes = [fix for fix in (search_fp8_keep_out(r, evaluate) for r in failing if r.fp8) if fix is not None]
    reason = _reason(best, fixes, tolerance, training is not None)
    chosen = best.policy if best else None

    def cheaper(policy: Policy) -> bool:  # verified fixes are untrained: chosen only without a trial training
        return training is None and (chosen is None or cost(policy) < cost(Policy.parse(chosen)))

    keep_fix = min((f for f in fixes if f.ok), key=lambda f: (cost(Policy.parse(f.policy)), f.error or 0.0),
                   default=None)
    if keep_fix is not None and cheaper(kept_fp32(Policy.parse(keep_fix.policy), keep_fix.modules)):
        chosen = str(kept_fp32(Policy.parse(keep_fix.policy), keep_fix.modules))
        reason += (f"; so the cheapest passing policy is {keep_fix.policy} with {', '.join(keep_fix.modules)} "
                   "kept in fp32")
    fp8_fix = next((f for f in fp8_fixes if f.ok), None)
    if fp8_fix is not None:
        fixed = fp8_keep_out(Policy.parse(fp8_fix.policy), fp8_fix.modules)
        reason += (f"; {fp8_fix.policy} passes with {', '.join(fp8_fix.modules)} kept out of fp8 "
                   f"(error {fp8_fix.error or 0:.2e}): {fixed}")
        if cheaper(fixed):
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


def _flipping(result: PolicyResult, routing: Sequence[Routing] | None) -> list[str]:
    """The routers that change their choices under ``result``'s policy (above ``ROUTING_WARNING``)."""
    entry = next((r for r in routing or () if r.policy == result.policy and r.rate > ROUTING_WARNING), None)
    return list(entry.routers) if entry else []


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
