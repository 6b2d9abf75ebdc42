"""The keep-fp32 search re-measures: keep the worst module, re-run, rank again, repeat within a budget
that grows with depth, then drop the modules the policy passes without (issue 21)."""

from __future__ import annotations

import torch
from planted import NaiveStandardize
from torch import nn

import castwise as cw
from castwise.doctor.judge.search import MIN_TRIALS, Trial, search_keep_fp32, trial_budget
from castwise.doctor.report.data import KeepTrial, ModeRun, ModuleStats, PolicyResult
from castwise.policy import Policy

BASE = len(Policy.parse("bf16-true").keep_fp32)
FAILING = PolicyResult("bf16-true", [], within_tolerance=False)


def _search(passes, rankings: dict[tuple[str, ...], tuple[str, ...]], ranked: list[str], budget: int = 8):
    """Run the search on a fake policy: ``passes(kept)`` decides, ``rankings[kept]`` is the re-run's ranking."""
    seen: list[tuple[str, ...]] = []

    def evaluate(policy: Policy) -> Trial:
        kept = policy.keep_fp32[BASE:]
        seen.append(kept)
        return Trial(passes(set(kept)), 0.0 if passes(set(kept)) else 1.0, None, rankings.get(kept, ()))

    return search_keep_fp32(FAILING, ranked, evaluate, budget), seen


def test_a_culprit_hidden_behind_a_worse_one_is_found_by_ranking_again() -> None:
    fix, seen = _search(lambda kept: {"1", "3"} <= kept, {("1",): ("3", "0")}, ranked=["1", "0"])
    assert fix.ok and fix.modules == ["1", "3"] and fix.tried == len(seen) == 4
    assert seen == [("1",), ("1", "3"), ("3",), ("1",)]  # two to find them, two to check each is needed


def test_modules_kept_on_the_way_that_turn_out_unneeded_are_dropped() -> None:
    fix, seen = _search(lambda kept: "b" in kept, {("a",): ("b",)}, ranked=["a", "b"])
    assert fix.ok and fix.modules == ["b"]
    assert seen == [("a",), ("a", "b"), ("b",)]
    assert fix.trials == [KeepTrial(["a"], False, 1.0), KeepTrial(["a", "b"], True, 0.0), KeepTrial(["b"], True, 0.0)]


def test_the_search_stops_at_its_budget_and_reports_what_it_tried() -> None:
    names = tuple("abcdefghij")
    rankings = {names[:i]: names[i:] for i in range(len(names))}
    fix, seen = _search(lambda kept: False, rankings, ranked=list(names), budget=3)
    assert not fix.ok and fix.tried == len(seen) == 3 and fix.modules == ["a", "b", "c"]


def test_a_module_that_raises_is_kept_first() -> None:
    def evaluate(policy: Policy) -> Trial:
        kept = policy.keep_fp32[BASE:]
        return Trial("x" in kept, 0.0, None if "x" in kept else "x")

    raising = PolicyResult("bf16-true", [ModeRun("train", False, 0.0, None, failing_module="x")], False)
    fix = search_keep_fp32(raising, ["a", "b"], evaluate)
    assert (fix.modules, fix.ok, fix.tried) == (["x"], True, 1)


def test_the_budget_grows_with_the_number_of_modules() -> None:
    def result(modules: int) -> PolicyResult:
        stats = [ModuleStats(str(i), "Linear", [], [], [], False) for i in range(modules)]
        return PolicyResult("bf16-true", [ModeRun("train", True, 0.0, None, modules=stats)], False)

    assert trial_budget(result(0)) == MIN_TRIALS < trial_budget(result(8)) < trial_budget(result(40))


def test_the_issues_two_fragile_blocks_are_both_kept_and_the_policy_passes() -> None:
    torch.manual_seed(0)
    width = 32
    model = nn.Sequential(nn.Linear(width, width), NaiveStandardize(width), nn.Linear(width, width),
                          NaiveStandardize(width), nn.Linear(width, 4))
    x = torch.randn(8, width)
    report = cw.diagnose(model, x, policies=["bf16-mixed"])
    (fix,) = report.recommendation.keep_fp32
    assert fix.ok and sorted(fix.modules) == ["1", "3"]
    assert [t.modules for t in fix.trials] == [["1"], ["1", "3"], ["3"], ["1"]]
    assert [t.passed for t in fix.trials] == [False, True, False, False] and fix.tried == 4
    bf16 = Policy.parse("bf16-mixed")
    fixed = cw.diagnose(model, x, policies=[bf16.replace(keep_fp32=bf16.keep_fp32 + tuple(fix.modules))])
    assert fixed.ok and fixed.policies[0].max_error < report.tolerance


def test_a_kept_module_that_changes_nothing_is_swapped_for_the_module_that_called_it() -> None:
    ran = [ModuleStats(name, "Module", [], [], [], False) for name in ("blk", "blk.out", "head")]
    failing = PolicyResult("bf16-true", [ModeRun("train", True, 0.0, None, error=0.5, modules=ran)], False)
    seen: list[tuple[str, ...]] = []

    def evaluate(policy: Policy) -> Trial:
        kept = policy.keep_fp32[BASE:]
        seen.append(kept)
        return Trial("blk" in kept, 0.0 if "blk" in kept else 0.5, None, ("blk.out",))

    fix = search_keep_fp32(failing, ["blk.out"], evaluate, budget=6)
    assert fix.ok and fix.modules == ["blk"] and seen == [("blk.out",), ("blk",)]
