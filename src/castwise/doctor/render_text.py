"""The report for people in a terminal: a rich table per policy, the findings and the recommendation."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from castwise.doctor.report import ModeRun, PolicyResult, Report

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def human_bytes(count: int) -> str:
    """1536 -> '1.5 KiB'."""
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def error_text(value: float | None) -> str:
    """A relative error in short scientific notation, '-' when unknown."""
    return "-" if value is None else f"{value:.1e}"


def policy_table(report: Report) -> Table:
    """One row per policy: status per mode, max error, time per mode, and peak estimated memory."""
    table = Table(title=f"castwise doctor: {report.model} (tolerance {report.tolerance:g})", title_justify="left",
                  header_style="bold")
    for column in ("policy", *report.modes, "max err", "ms", "memory"):
        table.add_column(column, no_wrap=column != "policy")
    for result in report.policies:
        table.add_row(
            result.policy, *(_mode_cell(result.run(m)) for m in report.modes), _error_cell(result, report.tolerance),
            "/".join(f"{r.seconds * 1e3:.0f}" for r in result.runs),
            human_bytes(max(r.memory.total for r in result.runs)),
        )
    return table


def _mode_cell(run: ModeRun | None) -> Text:
    if run is None:
        return Text("-")
    if run.ok:
        return Text("ok", style="green") if not run.overflow else Text("inf/nan", style="red")
    where = f" in {run.failing_module}" if run.failing_module else ""
    return Text(f"FAIL{where}", style="red")


def _error_cell(result: PolicyResult, tolerance: float) -> Text:
    text = error_text(result.max_error)
    return Text(text, style="green" if result.within_tolerance else "red")


def findings_text(report: Report) -> Text:
    """Each finding on a line, with its fix on the next."""
    text = Text()
    for finding in report.findings:
        text.append(f"{finding.severity}: ", style=_STYLE[finding.severity])
        text.append(f"{finding.message}\n")
        text.append(f"  fix: {finding.fix}\n", style="dim")
    return text


def recommendation_text(report: Report) -> Text:
    """The recommended policy, in one paragraph."""
    recommendation = report.recommendation
    text = Text("recommendation: ", style="bold")
    text.append(recommendation.policy or "none", style="bold green" if recommendation.policy else "bold red")
    text.append(f". {recommendation.reason}.")
    return text


def render_text(report: Report) -> Group:
    """The whole report as one rich renderable (``console.print(report)`` uses this)."""
    return Group(policy_table(report), findings_text(report), recommendation_text(report))
