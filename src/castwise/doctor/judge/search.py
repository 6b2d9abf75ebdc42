"""The keep-fp32 and fp8 keep-out searches: which modules, kept out of low precision, make a failing policy pass.

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

from castwise.doctor.report.data import ROOT, KeepFix, ModeRun, PolicyResult
from castwise.policy import Policy

FLOATING = {"f64", "f32", "bf16", "f16"}
"""Modules without floating inputs (embeddings) are not ranked: kept in fp32 they would hand on fp32."""


@dataclass(frozen=True)
class Trial:
    """The outcome of re-running a policy with some modules kept in fp32."""

    passed: bool
    error: float | None
    failing_module: str | None


Evaluate = Callable[[Policy], Trial]


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
