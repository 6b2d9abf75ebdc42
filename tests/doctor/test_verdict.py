"""One rule from measurement to verdict: an inf/nan measured where fp32's value is finite fails the run
and is named in a finding, unless the policy's loss scaler was measured to absorb it (issue 21)."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
import torch
from rich.console import Console
from torch import nn

import castwise as cw
from castwise.doctor import REPORT_SCHEMA, render_text
from castwise.doctor.measure.origin import overflow_origin
from castwise.doctor.report.data import FindingKind, LossScale, Severity

UNSCALED_16_TRUE = "params=f16,compute=f16,output=f32,scaling=none"


def _inf_gradient_model() -> tuple[nn.Module, torch.Tensor]:
    """The issue's example: module 0's weight gradient sums 256 rows of ~1200 * x, far above fp16's 65504."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 512), nn.Linear(512, 4))
    with torch.no_grad():
        model[0].weight.mul_(1e-2)
        model[1].weight.fill_(300)
    return model, torch.randn(256, 64).abs()


@pytest.fixture(scope="module")
def inf_gradients() -> cw.Report:
    model, x = _inf_gradient_model()
    return cw.diagnose(model, x, policies=["16-true", "bf16-true", UNSCALED_16_TRUE], modes=["train"])


def _row(report: cw.Report, policy: str) -> str:
    console = Console(width=160, record=True, color_system=None)
    console.print(render_text(report))
    return next(line for line in console.export_text().splitlines() if line.startswith(f"│ {policy} "))


def test_the_issues_inf_gradients_are_counted_and_absorbed_by_the_measured_loss_scale(inf_gradients) -> None:
    run = inf_gradients.policy("16-true").run("train")
    assert {m.name: m.grad_overflow for m in run.modules} == {"(model)": 0, "0": 33280, "1": 0}
    assert run.loss_scale == LossScale(init_scale=65536.0, skipped_steps=19, scale=0.125)
    assert run.absorbed and not run.overflowed and "33280 gradient values of module 0" in run.nonfinite
    (finding,) = [f for f in inf_gradients.findings if f.policy == "16-true"]
    assert (finding.kind, finding.severity, finding.module) == (FindingKind.LOSS_SCALE, Severity.WARNING, "0")
    assert "33280 gradient values of module 0" in finding.message
    assert "skips 19 steps" in finding.message and "from 65536 to 0.125" in finding.message
    assert "init_scale=0.125" in finding.fix
    assert "scaled" in _row(inf_gradients, "16-true")


def test_the_measured_loss_scale_is_what_castwise_training_does() -> None:
    model, x = _inf_gradient_model()
    trained = cw.apply(copy.deepcopy(model), "16-true")
    optimizer = cw.make_optimizer(trained, lr=1e-3)
    scaler = cw.LossScaler("16-true")
    stepped = False
    while not stepped:
        optimizer.zero_grad()
        scaler.scale(trained(x).float().sum()).backward()
        stepped = scaler.step(optimizer)
        scaler.update()
    assert (scaler.skipped_steps, scaler.get_scale()) == (19, 0.125)


def test_without_loss_scaling_the_same_inf_gradients_fail_the_policy_and_name_the_module(inf_gradients) -> None:
    result = inf_gradients.policy(UNSCALED_16_TRUE)
    run = result.run("train")
    assert run.overflowed and run.loss_scale is None
    assert not result.within_tolerance and result.max_error is None
    (finding,) = [f for f in inf_gradients.findings if f.policy == UNSCALED_16_TRUE]
    assert (finding.kind, finding.severity, finding.module) == (FindingKind.GRADIENT_OVERFLOW, Severity.ERROR, "0")
    assert "33280 gradient values of module 0 are inf/nan" in finding.message
    assert "no loss scaling" in finding.message
    row = _row(inf_gradients, UNSCALED_16_TRUE)
    assert row.count("inf/nan") == 2 and " ok " not in row


def test_bf16_has_the_range_for_the_same_gradients(inf_gradients) -> None:
    result = inf_gradients.policy("bf16-true")
    run = result.run("train")
    assert result.within_tolerance and run.nonfinite is None and run.loss_scale is None
    assert not [f for f in inf_gradients.findings if f.policy == "bf16-true"]
    assert inf_gradients.recommendation.policy == "bf16-true"


def test_a_loss_that_overflows_alone_fails_and_is_never_absorbed() -> None:
    torch.manual_seed(0)
    model, x = nn.Linear(8, 8), torch.randn(4, 8)
    exact = model(x).sum().item()  # exp(0) in fp32, exp(~1e3) with fp16's rounding
    report = cw.diagnose(model, x, policies=["16-true"], modes=["train"], tolerance=1.0,
                         loss_fn=lambda out: torch.exp((out.float().sum() - exact).abs() * 1e6))
    result = report.policy("16-true")
    run = result.run("train")
    assert run.loss_overflow and run.overflowed and not result.within_tolerance
    (finding,) = [f for f in report.findings if f.kind == FindingKind.FP16_OVERFLOW]
    assert finding.module == "(loss)" and "the loss (inf)" in finding.message


def test_no_within_tolerance_next_to_a_measured_nonfinite_value(inf_gradients, overflow_report) -> None:
    for report in (inf_gradients, overflow_report):
        for result in report.policies:
            for run in result.runs:
                if run.overflowed:
                    assert not result.within_tolerance
                    assert any(f.policy == result.policy and f.severity == Severity.ERROR for f in report.findings)
                elif run.nonfinite:
                    assert run.absorbed and any(f.kind == FindingKind.LOSS_SCALE and f.policy == result.policy
                                                for f in report.findings)


def test_an_overflow_made_in_a_modules_own_forward_is_blamed_on_it_not_on_the_child_handed_it() -> None:
    class Attention(nn.Module):
        """Logits q @ k.T near 8e4 made in this module's own forward: past fp16's 65504."""

        def __init__(self) -> None:
            super().__init__()
            self.q, self.k, self.out = nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8)
            with torch.no_grad():
                for projection in (self.q, self.k):
                    projection.weight.mul_(0.01)
                    projection.bias.fill_(100.0)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.out(torch.softmax(self.q(x) @ self.k(x).transpose(-1, -2), -1) @ x)

    torch.manual_seed(0)
    model = nn.Sequential(Attention(), nn.Linear(8, 2))
    report = cw.diagnose(model, torch.randn(2, 4, 8), policies=["16-true"], modes=["eval"])
    run = report.policy("16-true").run("eval")
    assert [m.name for m in run.overflowing_modules()][0] == "0.out"  # the first to hand back inf/nan
    assert run.overflow_origin == "0"  # but its input was made by its caller's own q @ k.T
    (finding,) = [f for f in report.findings if f.kind == FindingKind.FP16_OVERFLOW]
    assert finding.module == "0" and "first made by module 0:" in finding.message


def test_inf_that_fp32_has_too_is_not_an_overflow_origin() -> None:
    reference = {"mask": (True, False), "attn.out": (True, True), "attn": (True, True)}
    candidate = {"mask": (True, False), "attn.out": (False, False), "attn": (True, False)}
    assert overflow_origin(candidate, reference) == "attn"
    assert overflow_origin({"mask": (True, False)}, {"mask": (True, False)}) is None


def test_the_measured_loss_scale_and_the_finding_kinds_follow_the_schema_and_round_trip(inf_gradients) -> None:
    data = json.loads(inf_gradients.to_json())
    jsonschema.validate(data, REPORT_SCHEMA)
    assert data["policies"][0]["runs"][0]["loss_scale"] == {"init_scale": 65536.0, "skipped_steps": 19, "scale": 0.125}
    again = cw.Report.from_json(inf_gradients.to_json())
    assert again == inf_gradients and isinstance(again.findings[0].kind, FindingKind)
    data["findings"][0]["kind"] = "a_kind_nobody_wrote_down"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, REPORT_SCHEMA)
