"""The keep-fp32 and fp8 keep-out searches: which modules, kept out of low precision, make a failing policy pass.

The keep-fp32 search re-measures: it keeps the worst module, re-runs the policy, ranks the modules
again from that run and repeats, within a budget of re-runs that grows with the model's depth, then
drops the kept modules the policy turns out to pass without. Ranking once is not enough: a module
that wrecks the output upstream hides a second fragile one downstream (its output is compared
against already-wrecked input, so it adds no visible error until the first is kept).

A failing fp8 policy gets the keep-out search instead: its converted Linears, worst fp8 error first,
are kept out of fp8 one more at a time until it passes; when that policy is cheaper than the best
diagnosed one, it is the recommendation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from castwise.doctor.report.data import ROOT, KeepFix, KeepTrial, ModeRun, PolicyResult
from castwise.policy import Policy

FLOATING = {"f64", "f32", "bf16", "f16"}
"""Modules without floating inputs (embeddings) are not ranked: kept in fp32 they would hand on fp32."""
UNCHANGED = 0.1
"""A kept module that moves the error by less than this fraction did not hold the error's cause: its
input did, made by the code of the module that called it, which is kept instead."""
MIN_TRIALS = 6
MAX_TRIALS = 40
"""The keep-fp32 search's budget of re-runs to add modules: ``MIN_TRIALS`` plus one per two rankable
modules, at most ``MAX_TRIALS``."""


@dataclass(frozen=True)
class Trial:
    """The outcome of re-running a policy with some modules kept in fp32: whether it passed, its error,
    the module that raised or overflowed first (None if none), and the modules ranked again by the
    error each adds in this run (:func:`sensitivity`)."""

    passed: bool
    error: float | None
    failing_module: str | None
    ranked: tuple[str, ...] = ()

    @classmethod
    def of(cls, result: PolicyResult, previous: dict[str, str | None]) -> Trial:
        """The trial of a re-run judged as ``result``: its verdict and error, the module that raised (else
        where an overflow started), and its modules ranked again (``previous``: as for :func:`sensitivity`)."""
        failing = next((r.failing_module for r in result.runs if not r.ok), None)
        overflowed = next((r.overflow_origin for r in result.runs if r.overflow_origin), None)
        ranked = sensitivity(result.runs, previous)
        return cls(result.within_tolerance, result.max_error, failing or overflowed, tuple(ranked))


Evaluate = Callable[[Policy], Trial]


def sensitivity(runs: Sequence[ModeRun], previous: dict[str, str | None]) -> list[str]:
    """Modules that can be kept in fp32, ranked by the error they add: their output error minus that of
    the module that ran before them (their likely input). A module can be kept when it computes on
    floating inputs and either holds parameters or is a leaf (a container's error is its children's)."""
    added: dict[str, float] = {}
    for run in runs:
        errors = {m.name: m.error for m in run.modules}
        names = [m.name for m in run.modules]
        for module in run.modules:
            leaf = not any(other.startswith(module.name + ".") for other in names)
            if module.name == ROOT or module.kept_fp32 or module.error is None or not (module.params or leaf) \
                    or not set(module.inputs) & FLOATING:
                continue
            before = errors.get(previous.get(module.name) or "", None) or 0.0
            added[module.name] = max(added.get(module.name, 0.0), module.error - before)
    return sorted((name for name, value in added.items() if value > 0), key=lambda n: -added[n])


def trial_budget(result: PolicyResult) -> int:
    """Re-runs the keep-fp32 search may make to add modules to ``result``'s policy: grows with the number
    of modules the model ran (deeper models can have more culprits); dropping unneeded ones comes on top."""
    modules = {m.name for run in result.runs for m in run.modules} - {ROOT}
    return min(MAX_TRIALS, MIN_TRIALS + len(modules) // 2)


def search_keep_fp32(result: PolicyResult, ranked: Sequence[str], evaluate: Evaluate,
                     budget: int | None = None, first: Sequence[str] = ()) -> KeepFix | None:
    """The fewest modules found which, kept in fp32, make ``result.policy`` pass (best effort).

    Greedy and re-measuring: the modules that raised and those in ``first`` (routers measured to change
    their choices) are kept from the start; then keep the module where an overflow started, else the
    one adding the most error (in the latest ranking that has one not kept); re-run; rank again from
    that run (a culprit hidden behind a worse one upstream shows once that one is kept; one that changes
    nothing is swapped for the module that called it, see ``UNCHANGED``); repeat until it
    passes or ``budget`` re-runs are made (:func:`trial_budget` unless given). Then try without each
    kept module and drop those it passes without. None when there is nothing to try.
    """
    policy = Policy.parse(result.policy)
    budget = trial_budget(result) if budget is None else budget
    trials: list[KeepTrial] = []

    def attempt(modules: list[str]) -> Trial:
        trial = evaluate(kept_fp32(policy, modules))
        trials.append(KeepTrial(list(modules), trial.passed, trial.error))
        return trial

    raised = [r.failing_module for r in result.runs if r.failing_module and _blamable(r.failing_module)]
    keep = list(dict.fromkeys([*raised, *first]))
    overflowed = next((run.overflow_origin for run in result.runs if run.overflow_origin), None)
    trial = attempt(keep) if keep else Trial(False, result.max_error, overflowed, tuple(ranked))
    ran = {m.name for run in result.runs for m in run.modules}
    rankings: list[tuple[str, ...]] = []
    while not trial.passed and len(trials) < budget:
        rankings.insert(0, trial.ranked)
        culprit = _next_culprit(trial.failing_module, rankings, keep)
        if culprit is None:
            break
        keep.append(culprit)
        before, trial = trial, attempt(keep)
        parent = _caller(culprit, ran)
        if not trial.passed and parent and parent not in keep and _unchanged(before.error, trial.error) \
                and len(trials) < budget:
            keep[-1] = parent
            trial = attempt(keep)
    if not trials:
        return None
    if not trial.passed:
        return KeepFix(result.policy, keep, trial.error, False, len(trials), trials)
    for module in list(keep):
        if len(keep) == 1:
            break
        without = [m for m in keep if m != module]
        again = attempt(without)
        if again.passed:
            keep, trial = without, again
    return KeepFix(result.policy, keep, trial.error, True, len(trials), trials)


def _caller(name: str, ran: set[str]) -> str | None:
    """The innermost module enclosing ``name`` that ran itself (a ModuleList never does), if any."""
    while "." in name:
        name = name.rpartition(".")[0]
        if name in ran:
            return name
    return None


def _unchanged(before: float | None, after: float | None) -> bool:
    """Keeping a module moved the error by less than ``UNCHANGED`` of itself (or it stayed unknown)."""
    if before is None or after is None:
        return before is None and after is None
    return abs(after - before) <= UNCHANGED * before


def _next_culprit(failing: str | None, rankings: Sequence[Sequence[str]], keep: Sequence[str]) -> str | None:
    """The module that raised or overflowed first, if it can be kept; else the highest-ranked one not kept
    in the latest ranking, or in the earlier ones when the latest has none left (rounding spread thin)."""
    if failing and _blamable(failing) and failing not in keep:
        return failing
    return next((name for ranked in rankings for name in ranked if name not in keep), None)


def search_fp8_keep_out(result: PolicyResult, evaluate: Evaluate, max_trials: int = 8) -> KeepFix | None:
    """The fewest Linears which, kept out of fp8, make ``result.policy`` pass: greedily, the worst fp8
    error first (``result.fp8`` rows), one more each trial. None without rows that add error."""
    policy = Policy.parse(result.policy)
    ranked = [row.name for row in result.fp8 or () if row.error]
    trials: list[KeepTrial] = []
    for size in range(1, min(len(ranked), max_trials) + 1):
        trial = evaluate(fp8_keep_out(policy, ranked[:size]))
        trials.append(KeepTrial(ranked[:size], trial.passed, trial.error))
        if trial.passed:
            break
    if not trials:
        return None
    last = trials[-1]
    return KeepFix(result.policy, last.modules, last.error, last.passed, len(trials), trials)


def kept_fp32(policy: Policy, modules: Sequence[str]) -> Policy:
    """``policy`` with ``modules`` kept in fp32 as well as what it keeps already."""
    return policy.replace(keep_fp32=policy.keep_fp32 + tuple(modules))


def fp8_keep_out(policy: Policy, modules: Sequence[str]) -> Policy:
    """``policy`` with ``modules`` kept out of fp8 as well as what it keeps out already."""
    return policy.replace(fp8_keep_out=policy.fp8_keep_out + tuple(modules))


def _blamable(module: str) -> bool:
    """A real submodule (not the whole model, nor the loss/backward) that can be kept in fp32."""
    return not module.startswith("(")
