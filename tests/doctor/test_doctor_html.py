"""The HTML report: self-contained, opened in headless Chromium without console errors, not blank."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

import castwise as cw
from castwise.doctor import example_inputs, example_model, render_html, run_parity, write_html
from castwise.doctor.render.charts import PALETTE, error_chart

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not installed (Debian package 'chromium'; `make test` installs it)"
)


@pytest.fixture(scope="module")
def report() -> cw.Report:
    """The built-in example as `castwise doctor` diagnoses it: with the parity table, 32-true and tf32 too."""
    policies = ["32-true", "tf32", "bf16-mixed", "bf16-true", "16-true"]
    report = cw.diagnose(example_model(), example_inputs(), policies=policies, modes=["eval"])
    report.parity = run_parity(example_model(), example_inputs(), policies)
    return report


@pytest.fixture(scope="module")
def page(report: cw.Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_html(report, tmp_path_factory.mktemp("html") / "report.html")


def _open_in_chromium(page: Path, tmp_path: Path, height: int = 1600) -> tuple[list[str], Path]:
    """Load ``page`` headless in a window 1200 pixels wide; return its console messages and a screenshot."""
    shot = tmp_path / "shot.png"
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
        f"--window-size=1200,{height}", f"--screenshot={shot}", page.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return console, shot


def _pixels(png: Path) -> torch.Tensor:
    """The screenshot as a (height, width, 3) tensor of 0-255 integers."""
    from matplotlib.image import imread

    return (torch.from_numpy(imread(png)[..., :3].copy()) * 255).round().to(torch.int32)


def _distinct_colours(png: Path) -> int:
    return len(torch.unique(_pixels(png).reshape(-1, 3), dim=0))


def test_page_is_self_contained_with_svg_charts(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.count("<svg") == 3
    assert not re.search(r"""(src|href)=["']https?://""", text)
    assert "Recommendation: <b>bf16-true</b>" in text and "<script" not in text
    assert "Per-module error by policy" in text and "Dtype flow" in text


def test_the_parity_table_is_on_the_page_when_parity_ran(page: Path, report: cw.Report) -> None:
    text = page.read_text(encoding="utf-8")
    table = text[text.index("Plain PyTorch against castwise"):text.index("<h2>Policies")]
    assert table.count("<tr>") == 1 + len(report.parity)
    assert "FAIL: RuntimeError: expected scalar type Float but found BFloat16" in table  # bf16-mixed, torch, eval
    assert "castwise: 5 of 5 work" in table
    assert "Plain PyTorch against castwise" not in render_html(dataclasses.replace(report, parity=None))


def test_numbers_never_wrap_and_charts_take_the_full_width(page: Path) -> None:
    css = re.search(r"<style>(.*?)</style>", page.read_text(encoding="utf-8"), re.S).group(1)
    assert re.search(r"th, td \{[^}]*white-space: nowrap", css)
    assert re.search(r"\.chart svg \{[^}]*width: 100%", css)


def test_policies_with_zero_error_draw_a_line_on_the_log_scale(report: cw.Report) -> None:
    svg = error_chart(report)
    assert svg.count("<polyline") == 4  # 32-true and tf32 (both exactly 0) share one line, then 3 more
    assert ">32-true, tf32<" in svg and '>0</text>' in svg  # their legend entry, and the floor labelled 0


@needs_chromium
def test_page_opens_in_chromium_without_console_errors_and_is_not_blank(page: Path, tmp_path: Path) -> None:
    console, shot = _open_in_chromium(page, tmp_path)
    assert console == []
    assert shot.stat().st_size > 10_000
    assert _distinct_colours(shot) > 50


@needs_chromium
def test_the_console_check_does_catch_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body><script>undefinedFunction();</script>text</body></html>")
    console, _ = _open_in_chromium(broken, tmp_path)
    assert any("undefinedFunction is not defined" in line for line in console)


@pytest.fixture(scope="module")
def trained_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("optimi")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    report = cw.diagnose(model, torch.randn(8, 8), policies=["bf16-mixed", "bf16-true"], modes=["eval"],
                         train_steps=10)
    return write_html(report, tmp_path_factory.mktemp("html") / "trained.html")


def test_trained_page_plots_the_loss_curves_and_measured_memory(trained_page: Path) -> None:
    text = trained_page.read_text(encoding="utf-8")
    assert text.count("<svg") == 6
    assert "Trial training: loss against fp32 per step" in text
    assert "Trial training: loss per step (10 steps, same weights and batches)" in text
    loss_svg = text[text.index("Trial training: loss per step"):]
    loss_svg = loss_svg[:loss_svg.index("</svg>")]
    assert loss_svg.count("<polyline") == 4  # fp32, bf16-mixed, bf16-true, bf16-true + kahan
    assert "Training memory measured per policy" in text and "optimizer" in text


def test_overflow_reads_inf_nan_in_the_html_table(overflow_report: cw.Report, tmp_path: Path) -> None:
    text = write_html(overflow_report, tmp_path / "overflow.html").read_text(encoding="utf-8")
    row = next(r for r in text.split("<tr>") if r.startswith("<td>16-true</td>"))
    assert row.count("inf/nan") == 3 and "e+00" not in row


@needs_chromium
@pytest.mark.parametrize("which", ["trained", "overflow"])
def test_trained_and_overflow_pages_open_in_chromium_without_errors(
        which: str, trained_page: Path, overflow_report: cw.Report, tmp_path: Path) -> None:
    page = trained_page if which == "trained" else write_html(overflow_report, tmp_path / "overflow.html")
    console, shot = _open_in_chromium(page, tmp_path)
    assert console == []
    assert _distinct_colours(shot) > 50


@needs_chromium
def test_every_series_of_the_error_chart_is_drawn_across_the_full_width_in_chromium(
        report: cw.Report, page: Path, tmp_path: Path) -> None:
    style = re.search(r"<style>.*?</style>", page.read_text(encoding="utf-8"), re.S).group(0)
    chart = tmp_path / "chart.html"
    chart.write_text(f'<html><head>{style}</head><body><div class="chart">{error_chart(report)}</div></body></html>')
    console, shot = _open_in_chromium(chart, tmp_path, height=900)
    assert console == []
    pixels = _pixels(shot)
    plot = pixels[:, : pixels.shape[1] * 6 // 10]  # left of the legend: the lines themselves
    for colour in PALETTE[:4]:
        rgb = torch.tensor([int(colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=torch.int32)
        assert int((plot == rgb).all(-1).sum()) > 100, colour
    drawn = (pixels < 240).any(-1).any(0).nonzero()
    assert int(drawn.max()) > pixels.shape[1] * 3 // 4  # the chart spans the page, not half of it
