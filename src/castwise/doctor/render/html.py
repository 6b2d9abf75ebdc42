"""The report as one self-contained HTML page: inline SVG charts and tables, no network, no plotting library."""

from __future__ import annotations

from html import escape
from pathlib import Path

from castwise.doctor.render.charts import (
    dtype_flow_chart,
    error_chart,
    loss_chart,
    loss_gap_chart,
    memory_chart,
    training_memory_chart,
)
from castwise.doctor.report.data import ModeResult, ModeRun, ParityRow, PolicyResult, Report, Routing, Training
from castwise.doctor.report.formatting import NONFINITE, SCALED, error_text, human_bytes, milliseconds, percent, ratio

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.table { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; white-space: nowrap; }
td.words { white-space: normal; min-width: 16rem; }
th { background: #f3f3f3; }
.ok { color: #1a7f37; } .bad { color: #cf222e; font-weight: 600; } .warn { color: #9a6700; }
.error { border-left: 4px solid #cf222e; } .warning { border-left: 4px solid #d4a72c; }
.info { border-left: 4px solid #0969da; }
.finding { padding: 0.3rem 0.8rem; margin: 0.4rem 0; background: #fafafa; }
.fix { color: #555; font-size: 0.9rem; }
.chart svg { display: block; width: 100%; height: auto; margin: 0.5rem 0; }
.recommendation { font-size: 1.1rem; padding: 0.8rem; background: #eef6ee; border: 1px solid #9c9;
  overflow-wrap: anywhere; }
"""
"""Numbers never wrap inside a cell (a wide table scrolls instead); cells of words (an exception) do.
Charts take the page's full width (their SVGs scale with their viewBox)."""

_MEMORY_PARTS = ("params", "grads", "activations")
_TRAINING_MEMORY_PARTS = ("params", "grads", "optimizer", "activations")


def _cell(text: str, good: bool | None = None, css: str = "") -> str:
    classes = [c for c in (css, "" if good is None else "ok" if good else "bad") if c]
    attribute = f' class="{" ".join(classes)}"' if classes else ""
    return f"<td{attribute}>{escape(text)}</td>"


def _words(text: str, good: bool | None = None) -> str:
    """A cell of prose (an exception, a list of names), which may wrap."""
    return _cell(text, good, "words")


def _table(columns: tuple[str, ...], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(r) + "</tr>" for r in rows)
    return f'<div class="table"><table><tr>{head}</tr>{body}</table></div>'


def _status(run: ModeRun | None) -> str:
    if run is None:
        return _cell("-")
    if not run.ok:
        return _words(f"FAIL in {run.failing_module}: {run.exception}", False)
    if run.overflowed:
        return _cell(NONFINITE, False)
    if run.absorbed and run.loss_scale is not None:
        scale = run.loss_scale
        return _cell(f"{SCALED}: {scale.skipped_steps} steps skipped, then {scale.scale:g}", css="warn")
    return _cell("ok", True)


def _policy_rows(report: Report) -> str:
    rows = []
    for result in report.policies:
        runs = [result.run(mode) for mode in report.modes]
        cells = [_cell(result.policy), *(_status(run) for run in runs)]
        cells.append(_cell(error_text(result.max_error, result.overflowed), result.within_tolerance))
        cells += [_cell(milliseconds(run.seconds if run else None)) for run in runs]
        cells += [_cell(human_bytes(max(getattr(r.memory, part) for r in result.runs))) for part in _MEMORY_PARTS]
        rows.append(cells)
    columns = ("policy", *report.modes, "max error vs fp32", *(f"{m} step time" for m in report.modes),
               *(f"{part} (est.)" for part in _MEMORY_PARTS))
    return _table(columns, rows)


def _training_rows(training: Training) -> str:
    rows = []
    for run in (training.reference, *training.runs):
        reference = run is training.reference
        gap = "-" if reference else NONFINITE if run.nonfinite else percent(run.final_gap, signed=True)
        rows.append([
            _cell(run.label), _cell(gap, None if reference else training.passes(run)),
            _cell("-" if reference else percent(run.max_gap)), _cell(percent(run.swamping_rate)),
            _cell(f"{run.skipped_steps}/{training.steps}"), _cell(milliseconds(run.step_seconds)),
            _cell("1.00x" if reference else ratio(run.time_ratio)),
            *(_cell(human_bytes(getattr(run.memory, part))) for part in _TRAINING_MEMORY_PARTS),
            _cell(f"{human_bytes(run.memory.total)} ({ratio(1.0 if reference else run.memory_ratio)})"),
        ])
    columns = ("run", "final loss vs fp32", "max loss gap", "updates swamped", "skipped steps", "step time",
               "time vs fp32", *_TRAINING_MEMORY_PARTS, "peak total (vs fp32)")
    return _table(columns, rows)


def _routing_rows(routing: list[Routing]) -> str:
    rows = [[
        _cell(r.policy), _words(", ".join(r.routers)), _cell(f"{r.changed} of {r.tokens} ({percent(r.rate)})"),
        _cell("-" if r.changed_kept is None else f"{r.changed_kept} of {r.tokens}"),
    ] for r in routing]
    return _table(("policy", "routers", "token choices changed vs fp32", "with routers kept fp32"), rows)


def _fp8_section(result: PolicyResult, tolerance: float) -> str:
    rows = [[
        _cell(r.name), _cell(error_text(r.error), (r.error or 0.0) <= tolerance),
        _cell(error_text(r.bf16_error)), _cell(f"{r.input_amax:.3g}"), _cell(percent(r.input_underflow)),
        _cell(percent(r.weight_underflow)),
    ] for r in result.fp8 or []]
    columns = ("linear", "error vs fp32", "vs bf16-mixed", "input amax", "inputs below 2**-9 scaled",
               "weights below 2**-9 scaled")
    return f"<h2>fp8 Linears under {escape(result.policy)}, each alone on its fp32 input</h2>{_table(columns, rows)}"


def _parity_section(rows: list[ParityRow] | None) -> str:
    """Plain PyTorch against castwise per policy, in train and eval, when the report carries it."""
    if not rows:
        return ""

    def status(result: ModeResult) -> str:
        return _cell("ok", True) if result.ok else _words(f"FAIL: {result.error}", False)

    table = _table(("policy", "way", "train", "eval", "output dtype (train / eval)", "params", "max error vs fp32"), [[
        _cell(row.policy), _cell(row.way), status(row.train), status(row.eval),
        _cell(" / ".join(m.output_dtype or "-" for m in (row.train, row.eval))), _cell(human_bytes(row.param_bytes)),
        _cell(error_text(max((m.max_rel_error for m in (row.train, row.eval) if m.max_rel_error is not None),
                             default=None))),
    ] for row in rows])
    policies = len({row.policy for row in rows})
    broken = sum(1 for r in rows if r.way == "torch" and (not r.ok or r.train.output_dtype != r.eval.output_dtype))
    working = sum(1 for r in rows if r.way == "castwise" and r.ok)
    return (f"<h2>Plain PyTorch against castwise (train, and eval under no_grad)</h2>{table}"
            f"<p>Plain PyTorch (autocast, or <code>model.to(dtype)</code>): {broken} of {policies} policies fail or "
            f"change output dtype between train and eval; castwise: {working} of {policies} work.</p>")


def _findings(report: Report) -> str:
    if not report.findings:
        return "<p>No findings.</p>"
    return "".join(
        f'<div class="finding {f.severity}"><div><b>{escape(f.severity)}</b> [{escape(f.kind)}] '
        f'{escape(f.message)}</div>'
        f'<div class="fix">Fix: {escape(f.fix)}</div></div>'
        for f in report.findings
    )


def _training_section(training: Training | None) -> str:
    if training is None:
        return ""
    charts = "".join(f'<div class="chart">{svg}</div>'
                     for svg in (loss_chart(training), loss_gap_chart(training), training_memory_chart(training)))
    return (f"<h2>Trial training ({training.steps} {escape(training.optimizer)} steps, lr {training.lr:g}, "
            f"{escape(training.loss)})</h2>{_training_rows(training)}{charts}")


def render_html(report: Report) -> str:
    """The full page as text."""
    recommendation = report.recommendation
    charts = "".join(
        f'<div class="chart">{svg}</div>'
        for svg in (error_chart(report), dtype_flow_chart(report), memory_chart(report))
    )
    routing = f"<h2>MoE routing</h2>{_routing_rows(report.routing)}" if report.routing else ""
    fp8 = "".join(_fp8_section(result, report.tolerance) for result in report.policies if result.fp8)
    updates = "" if recommendation.updates == "none" else f" with <b>{escape(recommendation.updates)}</b> updates"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>castwise doctor: {escape(report.model)}</title>
<style>{_CSS}</style></head>
<body>
<h1>castwise doctor: {escape(report.model)}</h1>
<p class="recommendation">Recommendation: <b>{escape(recommendation.policy or "none")}</b>{updates}.
{escape(recommendation.reason)}.</p>
{_parity_section(report.parity)}
<h2>Policies (tolerance {report.tolerance:g}, modes {escape(", ".join(report.modes))})</h2>
{_policy_rows(report)}
{fp8}
{_training_section(report.training)}
{routing}
<h2>Findings</h2>
{_findings(report)}
<h2>Charts</h2>
{charts}
<p class="fix">Schema {escape(report.schema)}. Errors are max |x - ref| / max |ref| against a float32 run
of the same model and inputs; one-step memory is estimated from tensor sizes, training memory is measured.</p>
</body></html>
"""


def write_html(report: Report, path: str | Path) -> Path:
    """Write :func:`render_html`'s page to ``path`` (UTF-8) and return the path."""
    target = Path(path)
    target.write_text(render_html(report), encoding="utf-8")
    return target
