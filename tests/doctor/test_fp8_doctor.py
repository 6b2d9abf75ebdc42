"""The doctor on fp8 policies: per-Linear fp8 rows, the keep-out search and the cost model."""

import jsonschema
import pytest
import torch
from rich.console import Console
from torch import nn

import castwise as cw
from castwise.doctor import REPORT_SCHEMA, render_html, render_text
from castwise.doctor.judge.recommend import cost
from castwise.doctor.measure.fp8 import E4M3_SMALLEST, underflow

pytest.importorskip("torchao.float8")

SPIKE = 1e7
"""Far above e4m3's range of 448 / 2**-9: scaled to fit, every ordinary input value flushes to zero."""


class Spiky(nn.Module):
    """Four Linears; ``spiky``'s input carries one channel at 1e7 (which its weights ignore), so its
    tensorwise fp8 scale flushes the other channels to zero while bf16 keeps them."""

    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Linear(32, 64)
        self.calm = nn.Linear(64, 64)
        self.spiky = nn.Linear(64, 64)
        self.last = nn.Linear(64, 32)
        self.register_buffer("spike", torch.zeros(64))
        with torch.no_grad():
            self.spike[0] = SPIKE
            self.spiky.weight[:, 0] = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.calm(torch.relu(self.first(x))))
        return self.last(torch.relu(self.spiky(h + self.spike)))


@pytest.fixture(scope="module")
def report() -> cw.Report:
    torch.manual_seed(0)
    return cw.diagnose(Spiky(), torch.randn(8, 32), policies=["bf16-mixed", "fp8-mixed"], tolerance=0.1)


def test_fp8_rows_name_the_layer_whose_input_exceeds_e4m3s_range(report: cw.Report) -> None:
    fp8 = report.policy("fp8-mixed")
    assert not fp8.within_tolerance and report.policy("bf16-mixed").within_tolerance
    assert report.policy("bf16-mixed").fp8 is None
    rows = {row.name: row for row in fp8.fp8 or []}
    assert list(rows) == ["spiky", "calm"]  # converted Linears only (first/last kept out), worst first
    spiky, calm = rows["spiky"], rows["calm"]
    assert spiky.input_amax == SPIKE
    assert spiky.input_underflow > 0.9 and calm.input_underflow == 0.0
    assert spiky.error is not None and spiky.error > 0.5
    assert spiky.bf16_error is not None and spiky.bf16_error > 0.5
    assert calm.error is not None and calm.error < 0.1


def test_keep_out_search_keeps_exactly_that_layer_out(report: cw.Report) -> None:
    (fix,) = report.recommendation.fp8_keep_out
    assert fix.policy == "fp8-mixed" and fix.modules == ["spiky"] and fix.ok and fix.tried == 1
    assert fix.error is not None and fix.error <= report.tolerance
    assert report.recommendation.keep_fp32 == []
    chosen = cw.Policy.parse(report.recommendation.policy or "")
    assert chosen.fp8 == "tensorwise" and chosen.fp8_keep_out[-1] == "spiky"
    assert "fp8_keep_out=@first|@last|*Router|*Gate|spiky" in (report.recommendation.policy or "")
    assert "the cheapest passing policy (fp8 compute)" in report.recommendation.reason
    model = Spiky()
    assert cw.apply(model, chosen).fp8_report.converted == ("calm",)


def test_flushed_gradients_under_fp8_point_at_fp8_keep_out(report: cw.Report) -> None:
    (finding,) = [f for f in report.findings if f.kind == "gradient_underflow"]
    assert finding.policy == "fp8-mixed" and finding.module == "spiky"
    assert "keep spiky out of fp8 (fp8_keep_out)" in finding.fix


def test_the_recommended_fp8_policy_is_within_tolerance_when_rediagnosed(report: cw.Report) -> None:
    torch.manual_seed(0)
    chosen = report.recommendation.policy or ""
    again = cw.diagnose(Spiky(), torch.randn(8, 32), policies=[chosen], tolerance=0.1)
    assert again.policy(chosen).within_tolerance
    assert [row.name for row in again.policy(chosen).fp8 or []] == ["calm"]


def test_fp8_rows_in_json_and_text(report: cw.Report) -> None:
    data = report.to_dict()
    jsonschema.validate(data, REPORT_SCHEMA)
    back = cw.Report.from_json(report.to_json())
    assert back.policy("fp8-mixed").fp8 == report.policy("fp8-mixed").fp8
    assert back.recommendation.fp8_keep_out == report.recommendation.fp8_keep_out
    console = Console(width=80, record=True)
    console.print(render_text(report))
    text = console.export_text()
    assert "fp8 Linears under fp8-mixed" in text and "spiky" in text
    assert "kept out of fp8" in text
    page = render_html(report)
    assert "<h2>fp8 Linears under fp8-mixed" in page and '<td class="bad">7.8e-01</td>' in page


def test_fp8_compute_is_cheapest() -> None:
    costs = {name: cost(cw.Policy.parse(name)) for name in ("fp8-mixed", "bf16-mixed", "16-mixed", "32-true")}
    assert costs["fp8-mixed"] < costs["bf16-mixed"] < costs["16-mixed"] < costs["32-true"]


def test_underflow_is_measured_after_the_scale_the_recipe_picks() -> None:
    x = torch.tensor([[448.0, 1.0, 0.0, E4M3_SMALLEST / 2], [1e-3, 1e-3, 1e-3, 1e-3]])
    # per tensor: scale 1; 2**-10 and the four 1e-3 fall below 2**-9; the zero is not counted
    assert underflow(x) == pytest.approx(5 / 7)
    # per row: the second row's amax maps to 448, nothing in it underflows
    assert underflow(x, rowwise=True) == pytest.approx(1 / 7)
    assert underflow(torch.zeros(3)) == 0.0


def test_keep_out_search_reports_when_nothing_it_tries_passes() -> None:
    torch.manual_seed(0)
    strict = cw.diagnose(Spiky(), torch.randn(8, 32), policies=["fp8-mixed"], modes=["eval"], tolerance=1e-4)
    (fix,) = strict.recommendation.fp8_keep_out
    # with both converted Linears kept out it computes as bf16-mixed, still above 1e-4
    assert fix.modules == ["spiky", "calm"] and not fix.ok and fix.tried == 2
    assert fix.error is not None and fix.error > 1e-4
    assert strict.recommendation.policy is None
    assert "kept out of fp8" not in strict.recommendation.reason
