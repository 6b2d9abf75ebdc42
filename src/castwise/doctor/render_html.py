"""The report as one self-contained HTML page: inline SVG charts and tables, no network needed."""

from __future__ import annotations

from html import escape

from castwise.doctor.charts import dtype_flow_chart, error_chart, memory_chart
from castwise.doctor.render_text import error_text, human_bytes
from castwise.doctor.report import Report

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #f3f3f3; }
.ok { color: #1a7f37; } .bad { color: #cf222e; font-weight: 600; }
.error { border-left: 4px solid #cf222e; } .warning { border-left: 4px solid #d4a72c; }
.info { border-left: 4px solid #0969da; }
.finding { padding: 0.3rem 0.8rem; margin: 0.4rem 0; background: #fafafa; }
.fix { color: #555; font-size: 0.9rem; } .chart svg { max-width: 100%; height: auto; }
.recommendation { font-size: 1.1rem; padding: 0.8rem; background: #eef6ee; border: 1px solid #9c9; }
"""


_MEMORY_PARTS = ("params", "grads", "activations")


def _cell(text: str, good: bool | None = None) -> str:
    css = "" if good is None else f' class="{"ok" if good else "bad"}"'
    return f"<td{css}>{escape(text)}</td>"


def _policy_rows(report: Report) -> str:
    rows = []
    for result in report.policies:
        cells = [_cell(result.policy)]
        for mode in report.modes:
            run = result.run(mode)
            status = "-" if run is None else "ok" if run.ok and not run.overflow else (
                "inf/nan" if run.ok else f"FAIL in {run.failing_module}: {run.exception}")
            cells.append(_cell(status, None if run is None else run.ok and not run.overflow))
        cells.append(_cell(error_text(result.max_error), result.within_tolerance))
        cells.append(_cell(" / ".join(f"{r.seconds * 1e3:.1f}" for r in result.runs)))
        cells += [_cell(human_bytes(max(getattr(r.memory, part) for r in result.runs))) for part in _MEMORY_PARTS]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    columns = ("policy", *report.modes, "max error", "step ms", *_MEMORY_PARTS)
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _findings(report: Report) -> str:
    if not report.findings:
        return "<p>No findings.</p>"
    return "".join(
        f'<div class="finding {f.severity}"><div><b>{escape(f.severity)}</b> [{escape(f.kind)}] {escape(f.message)}</div>'
        f'<div class="fix">Fix: {escape(f.fix)}</div></div>'
        for f in report.findings
    )


def render_html(report: Report) -> str:
    """The full page as text."""
    recommendation = report.recommendation
    charts = "".join(
        f'<div class="chart">{svg}</div>'
        for svg in (error_chart(report), dtype_flow_chart(report), memory_chart(report))
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>castwise doctor: {escape(report.model)}</title>
<style>{_CSS}</style></head>
<body>
<h1>castwise doctor: {escape(report.model)}</h1>
<p class="recommendation">Recommendation: <b>{escape(recommendation.policy or "none")}</b>.
{escape(recommendation.reason)}.</p>
<h2>Policies (tolerance {report.tolerance:g}, modes {escape(", ".join(report.modes))})</h2>
{_policy_rows(report)}
<h2>Findings</h2>
{_findings(report)}
<h2>Charts</h2>
{charts}
<p class="fix">Schema {escape(report.schema)}. Errors are max |x - ref| / max |ref| against a float32 run
of the same model and inputs; memory is estimated from tensor sizes.</p>
</body></html>
"""
