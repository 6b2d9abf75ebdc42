"""The planted-defect benchmark as a test: for each model whose culprits are known by construction, the
doctor blames exactly them (a healthy model: nothing), and the policy it recommends passes (issue 21).
benchmarks/planted_defects.py prints the same as precision and recall."""

from __future__ import annotations

import pytest
from planted import PLANTED, Planted, blamed, diagnose, recommended_passes, score


@pytest.mark.parametrize("planted", PLANTED, ids=[p.name for p in PLANTED])
def test_every_culprit_is_found_no_healthy_module_is_blamed_and_the_recommendation_passes(planted: Planted) -> None:
    report = diagnose(planted)
    found = score(planted, report)
    assert (found.missed, found.wrongly_blamed) == (0, 0), sorted(blamed(report))
    assert found.found == len(planted.culprits)
    assert recommended_passes(planted, report), report.recommendation.reason


def test_the_benchmark_plants_every_defect_the_issue_lists() -> None:
    assert len(PLANTED) >= 12
    assert sum(not p.culprits for p in PLANTED) >= 1  # a healthy model, whose culprits are none
    assert len({p.name for p in PLANTED}) == len(PLANTED)
