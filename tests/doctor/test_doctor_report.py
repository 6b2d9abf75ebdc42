"""The report: JSON schema round trip, terminal rendering, and the pieces behind the numbers."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest
import torch
from rich.console import Console

import castwise as cw
from castwise.doctor import REPORT_SCHEMA, example_inputs, example_model, render_text
from castwise.doctor.judge.recommend import cost
from castwise.doctor.measure.compare import SMALL, Reference, compare
from castwise.policy import Policy


@pytest.fixture(scope="module")
def report() -> cw.Report:
    return cw.diagnose(example_model(), example_inputs(), policies=["bf16-true", "16-true"], tolerance=5e-3)


def test_json_follows_the_schema_and_round_trips(report: cw.Report) -> None:
    data = json.loads(report.to_json())
    jsonschema.validate(data, REPORT_SCHEMA)
    assert data["schema"] == "castwise.doctor.report/3"
    again = cw.Report.from_json(report.to_json())
    assert again == report
    assert again.to_json() == report.to_json()
    assert again.policy("16-true").run("eval").modules[1].name == "embed"


def test_the_schema_rejects_what_it_does_not_document(report: cw.Report) -> None:
    data = json.loads(report.to_json())
    data["policies"][0]["runs"][0]["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, REPORT_SCHEMA)


def test_terminal_rendering_shows_policies_findings_and_recommendation(report: cw.Report) -> None:
    console = Console(width=200, record=True, color_system=None)
    console.print(render_text(report))
    text = console.export_text()
    assert "bf16-true" in text and "16-true" in text
    row = next(line for line in text.splitlines() if "│ bf16-true" in line)
    assert f"{report.policy('bf16-true').max_error:.1e}" in row
    assert f"recommendation: {report.recommendation.policy}." in " ".join(text.split())
    assert "keep-fp32" not in text or "fix:" in text
    assert text.count("fix: ") == len(report.findings)


@pytest.mark.parametrize("padding", [0, SMALL], ids=["batched", "one-by-one"])
def test_compare_counts_error_overflow_and_underflow(padding: int) -> None:
    reference = torch.cat([torch.tensor([1.0, -2.0, 4.0, 1e-9, 0.0]), torch.zeros(padding)])
    candidate = torch.cat([torch.tensor([1.0, -2.5, math.inf, 0.0, 0.0]), torch.zeros(padding)])
    numerics = compare([candidate], [Reference.of(reference)])
    assert numerics.overflow == 1
    assert numerics.underflow == pytest.approx(1 / 4)
    assert numerics.error == pytest.approx(0.5 / 4.0)  # the diff where both are finite, over max |reference|
    assert compare([torch.ones(2)], [Reference.of(torch.ones(3))]).error is None


def test_cost_orders_storage_then_compute_then_loss_scaling_then_tf32() -> None:
    names = ["64-true", "32-true", "tf32", "16-mixed", "bf16-mixed", "16-true", "bf16-true"]
    ordered = sorted(names, key=lambda n: cost(Policy.parse(n)))
    assert ordered == ["bf16-true", "16-true", "bf16-mixed", "16-mixed", "tf32", "32-true", "64-true"]


def test_an_overflowed_policy_reads_inf_nan_in_text_and_null_with_the_reason_in_json(overflow_report) -> None:
    result = overflow_report.policy("16-true")
    assert result.overflowed and result.max_error is None and not result.within_tolerance
    console = Console(width=80, record=True, color_system=None)
    console.print(render_text(overflow_report))
    row = next(line for line in console.export_text().splitlines() if line.startswith("│ 16-true"))
    assert row.count("inf/nan") == 3 and "e+00" not in row  # train, eval and the max error
    data = json.loads(overflow_report.to_json())
    jsonschema.validate(data, REPORT_SCHEMA)
    for run in data["policies"][0]["runs"]:
        assert run["error"] is None
        assert run["nonfinite"].startswith("inf/nan where fp32's values are finite: 8 output values, 32 values out of "
                                           "module up, 8 values out of module down")
    assert data["policies"][1]["runs"][0]["error"] > 0 and data["policies"][1]["runs"][0]["nonfinite"] is None


def test_a_nan_loss_is_null_with_its_reason_not_invalid_json() -> None:
    torch.manual_seed(0)
    model, x = torch.nn.Linear(4, 2), torch.randn(3, 4)
    exact = model(x).sum().item()
    report = cw.diagnose(model, x, policies=["16-true"], modes=["eval"],  # exp(0) in fp32, exp(~1e3) in fp16
                         loss_fn=lambda out: torch.exp((out.float().sum() - exact).abs() * 1e6))
    (run,) = report.policy("16-true").runs
    assert run.loss is None and run.loss_overflow and run.nonfinite == "inf/nan where fp32's values are finite: the loss (inf)"
    assert json.loads(report.to_json())["policies"][0]["runs"][0]["loss"] is None
