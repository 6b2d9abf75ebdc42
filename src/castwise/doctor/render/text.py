"""The report for people in a terminal: rich tables that fit 80 columns, findings and the recommendation."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from castwise.doctor.report.data import ModeRun, PolicyResult, Report, Routing, Streaming, Training, TrainingRun
from castwise.doctor.report.formatting import NONFINITE, SCALED, error_text, human_bytes, milliseconds, percent, ratio

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


_NAME_WIDTH = 18
"""Policy names up to this long (every canonical one) never wrap; longer ones (triples) fold."""


def _table(title: str, names: list[str]) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold")
    if max(map(len, names), default=0) <= _NAME_WIDTH:  # whole, so the other columns give way in 80 columns
        table.add_column("policy", no_wrap=True)
    else:
        table.add_column("policy", min_width=_NAME_WIDTH, overflow="fold")
    return table


def _figure_column(table: Table, header: str) -> None:
    table.add_column(header, justify="right", no_wrap=True, min_width=max(map(len, header.splitlines())))


_WIDTH = 80


def _fitted(headers: list[str], fixed: int) -> list[str]:
    """``headers`` as they are, or on two lines each when one line would take the table (``fixed``
    columns of text besides) past 80 columns: the figures then keep their columns, never cut."""
    width = fixed + sum(map(len, headers)) + 3 * len(headers)
    return headers if width <= _WIDTH else [header.replace(" ", "\n", 1) for header in headers]


def _narrowest(header: str, cells: list[Text]) -> int:
    """The width a wrapping column cannot go below: its header or its longest word."""
    return max([len(header), *(len(word) for cell in cells for word in cell.plain.split())])


def policy_table(report: Report) -> Table:
    """One row per policy: status per mode, max error vs fp32, step time per mode, estimated memory."""
    names = [p.policy for p in report.policies]
    table = _table(f"castwise doctor: {report.model} (tolerance {report.tolerance:g})", names)
    runs = [[result.run(m) for m in report.modes] for result in report.policies]
    cells = [[_mode_cell(run) for run in row] for row in runs]
    for mode in report.modes:
        table.add_column(mode, min_width=len(mode), overflow="fold")
    fixed = 4 + min(max(map(len, names), default=6), _NAME_WIDTH) + sum(
        3 + _narrowest(mode, [row[index] for row in cells]) for index, mode in enumerate(report.modes))
    for header in _fitted(["max error", *(f"{mode} ms" for mode in report.modes), "memory (est.)"], fixed):
        _figure_column(table, header)
    for result, row, modes in zip(report.policies, runs, cells):
        table.add_row(
            result.policy, *modes, _error_cell(result),
            *("-" if run is None else f"{run.seconds * 1e3:.1f}" for run in row),
            human_bytes(max(r.memory.total for r in result.runs)),
        )
    return table


def _mode_cell(run: ModeRun | None) -> Text:
    if run is None:
        return Text("-")
    if run.ok:
        if run.overflowed:
            return Text(NONFINITE, style="red")
        return Text(SCALED, style="yellow") if run.absorbed else Text("ok", style="green")
    where = f" in {run.failing_module}" if run.failing_module else ""
    return Text(f"FAIL{where}", style="red")


def _error_cell(result: PolicyResult) -> Text:
    text = error_text(result.max_error, result.overflowed)
    return Text(text, style="green" if result.within_tolerance else "red")


def training_table(training: Training) -> Table:
    """One row per trial-training run: loss gap, swamped updates, skipped steps, time and memory vs fp32."""
    reference = training.reference
    last = next((v for v in reversed(reference.losses) if v is not None), None)
    fp32 = "failed" if not reference.ok else (
        f"final loss {'-' if last is None else f'{last:.4g}'}, {milliseconds(reference.step_seconds)} a step, "
        f"{human_bytes(reference.memory.total)}")
    table = _table(f"trial training: {training.steps} {training.optimizer} steps, lr {training.lr:g}, "
                   f"{training.loss}. fp32: {fp32}. Policies against fp32:",
                   [run.label.replace(" + ", "+") for run in training.runs])
    for header in ("final loss", "swamped", "skipped", "time", "peak memory"):
        _figure_column(table, header)
    for run in training.runs:
        table.add_row(
            run.label.replace(" + ", "+"), _loss_cell(training, run), percent(run.swamping_rate),
            f"{run.skipped_steps}/{training.steps}", ratio(run.time_ratio), _memory_cell(run),
        )
    return table


def _loss_cell(training: Training, run: TrainingRun) -> Text:
    if not run.ok:
        return Text("FAIL", style="red")
    if run.nonfinite:
        return Text(NONFINITE, style="red")
    return Text(percent(run.final_gap, signed=True), style="green" if training.passes(run) else "red")


def _memory_cell(run: TrainingRun) -> str:
    share = "" if run.memory_ratio is None else f" {ratio(run.memory_ratio)}"
    return human_bytes(run.memory.total) + share


FP8_ROWS = 8
"""The fp8 table shows the Linears with the largest fp8 error, at most this many per policy."""


def fp8_table(result: PolicyResult) -> Table:
    """The Linears ``result``'s fp8 policy converts, worst first: error against fp32 and bf16-mixed,
    and the share of input and weight values below e4m3's smallest subnormal once scaled."""
    rows = result.fp8 or []
    shown = f"the {FP8_ROWS} worst of {len(rows)}" if len(rows) > FP8_ROWS else f"{len(rows)}"
    table = Table(title=f"fp8 Linears under {result.policy} ({shown}), each alone on its fp32 input:",
                  title_justify="left", header_style="bold")
    table.add_column("linear", overflow="fold")
    for header in ("vs fp32", "vs bf16", "input amax", "x under", "w under"):
        _figure_column(table, header)
    for row in rows[:FP8_ROWS]:
        table.add_row(row.name, error_text(row.error, False), error_text(row.bf16_error, False),
                      f"{row.input_amax:.3g}", percent(row.input_underflow), percent(row.weight_underflow))
    return table


def routing_text(routing: list[Routing]) -> Text:
    """One line per policy: how many tokens a top-k router sends to other experts than fp32 does."""
    text = Text()
    for entry in routing:
        text.append(f"MoE routing under {entry.policy}: ", style="bold")
        text.append(f"{percent(entry.rate)} of token choices change expert against fp32 "
                    f"({entry.changed} of {entry.tokens}, {len(entry.routers)} routers)")
        if entry.keep_policy is not None and entry.changed_kept is not None:
            text.append(f"; {percent(entry.changed_kept / entry.tokens if entry.tokens else 0.0)} "
                        "with the routers kept in fp32")
        text.append("\n")
    return text


def streaming_text(stream: Streaming) -> Text:
    """How a streamed diagnosis measured, so that its figures are read right."""
    return Text(
        f"streamed from the checkpoint: {stream.blocks} blocks of {stream.path}, one in memory at a time "
        f"({human_bytes(stream.block_bytes)} each in fp32, plus {human_bytes(stream.outside_bytes)} of embeddings "
        f"and head). Module errors are per block, on the fp32 input of that block; max error is the final "
        f"output with every block run in sequence under the policy; times (each a median after a warm-up) and "
        f"memory add up the blocks and the head."
    )


def findings_text(report: Report, whole_fixes: bool = False) -> Group:
    """Each finding on a line, with its fix on the next. A fix holds strings to copy (policy strings,
    code); with ``whole_fixes`` it is never wrapped, so when printed with ``crop=False`` a narrow
    terminal folds it for display only and copying it gives the string whole."""
    lines: list[RenderableType] = []
    for finding in report.findings:
        lines.append(Text.assemble((f"{finding.severity}: ", _STYLE[finding.severity]), finding.message))
        lines.append(Text(f"  fix: {finding.fix}", style="dim", no_wrap=whole_fixes,
                          overflow="ignore" if whole_fixes else None))
    return Group(*lines, Text())


def recommendation_text(report: Report) -> Text:
    """The recommended policy, in one paragraph."""
    recommendation = report.recommendation
    text = Text("recommendation: ", style="bold")
    text.append(recommendation.policy or "none", style="bold green" if recommendation.policy else "bold red")
    if recommendation.updates != "none":
        text.append(f" with {recommendation.updates} updates", style="bold green")
    text.append(f". {recommendation.reason}.")
    return text


def render_text(report: Report, whole_fixes: bool = False) -> Group:
    """The whole report as one rich renderable: ``console.print(render_text(report))``; the command line
    prints ``render_text(report, whole_fixes=True)`` with ``crop=False`` (see :func:`findings_text`)."""
    parts: list[RenderableType] = [policy_table(report)]
    if report.stream is not None:
        parts.append(streaming_text(report.stream))
    if report.training is not None:
        parts.append(training_table(report.training))
    parts += [fp8_table(result) for result in report.policies if result.fp8]
    if report.routing:
        parts.append(routing_text(report.routing))
    parts += [findings_text(report, whole_fixes), recommendation_text(report)]
    return Group(*parts)
