"""Charts for the HTML report, written directly as inline SVG text (no plotting library needed)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from castwise.doctor.report.data import ModuleStats, PolicyResult, Report, Training

DTYPE_COLOURS = {"f64": "#4c72b0", "f32": "#8fb3e0", "bf16": "#f2a65a", "f16": "#e15759", "-": "#eeeeee"}
PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974")
_MAX_MODULES = 60
_FONT = 'font-family="sans-serif"'
_CHAR = 6.2
"""Approximate width in pixels of one character at font size 11."""

Series = tuple[str, list[tuple[float, float]]]
"""A named line: (label, [(x, y), ...])."""


@dataclass(frozen=True)
class _Frame:
    """The plotting area of a chart, in pixels, and the data ranges it maps."""

    left: float
    top: float
    width: float
    height: float
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    log_y: bool = False
    zero: float | None = None
    """On a log scale, the value zeros are drawn at (labelled 0)."""

    def x(self, value: float) -> float:
        low, high = self.x_range
        return self.left + (value - low) / ((high - low) or 1.0) * self.width

    def y(self, value: float) -> float:
        low, high = self.y_range
        value = math.log10(value) if self.log_y else value
        return self.top + self.height - (value - low) / ((high - low) or 1.0) * self.height


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(title)}">'
            f'<rect width="100%" height="100%" fill="white"/>'
            f'{_text(width / 2, 18, title, size=13, anchor="middle", bold=True)}{"".join(body)}</svg>')


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "start", rotate: bool = False,
          bold: bool = False) -> str:
    turn = f' transform="rotate(-90 {x:.1f} {y:.1f})"' if rotate else ""
    weight = ' font-weight="bold"' if bold else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {_FONT}{weight}{turn}>'
            f"{escape(text)}</text>")


def _line(x1: float, y1: float, x2: float, y2: float, colour: str = "#999", dash: bool = False) -> str:
    pattern = ' stroke-dasharray="5 4"' if dash else ""
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}"{pattern}/>'


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round values between ``low`` and ``high``."""
    if high <= low:
        return [low]
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if step * m >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _axes(frame: _Frame, y_label: str, x_label: str = "") -> list[str]:
    bottom, right = frame.top + frame.height, frame.left + frame.width
    body = [_line(frame.left, frame.top, frame.left, bottom, "#333"), _line(frame.left, bottom, right, bottom, "#333")]
    low, high = frame.y_range
    values = [10.0 ** p for p in range(math.floor(low), math.ceil(high) + 1)] if frame.log_y else _ticks(low, high)
    for value in values:
        y = frame.y(value)
        if frame.top - 0.5 <= y <= bottom + 0.5:
            zero = frame.zero is not None and math.isclose(value, frame.zero)
            label = "0" if zero else f"{value:.0e}" if frame.log_y else f"{value:g}"
            body.append(_line(frame.left, y, right, y, "#e5e5e5"))
            body.append(_text(frame.left - 4, y + 4, label, 10, "end"))
    body.append(_text(14, frame.top + frame.height / 2, y_label, rotate=True, anchor="middle"))
    if x_label:
        body.append(_text(frame.left + frame.width / 2, bottom + 34, x_label, anchor="middle"))
    return body


def _legend(x: float, y: float, labels: Sequence[tuple[str, str]]) -> list[str]:
    body = []
    for index, (label, colour) in enumerate(labels):
        top = y + 16 * index
        body.append(f'<rect x="{x:.1f}" y="{top:.1f}" width="12" height="10" fill="{colour}"/>')
        body.append(_text(x + 17, top + 9, label, 10))
    return body


def _polyline(frame: _Frame, points: list[tuple[float, float]], colour: str) -> str:
    coordinates = " ".join(f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in points)
    marks = "".join(f'<circle cx="{frame.x(x):.1f}" cy="{frame.y(y):.1f}" r="2" fill="{colour}"/>' for x, y in points)
    return f'<polyline points="{coordinates}" fill="none" stroke="{colour}" stroke-width="1.5"/>{marks}'


def chart_modules(report: Report) -> list[str]:
    """Module names in call order (reference run), the root first, at most ``_MAX_MODULES``."""
    names: dict[str, None] = {}
    for run in report.reference:
        names.update((m.name, None) for m in run.modules)
    for result in report.policies:
        for run in result.runs:
            names.update((m.name, None) for m in run.modules)
    return list(names)[:_MAX_MODULES]


def _by_name(result: PolicyResult) -> dict[str, list[ModuleStats]]:
    grouped: dict[str, list[ModuleStats]] = {}
    for run in result.runs:
        for module in run.modules:
            grouped.setdefault(module.name, []).append(module)
    return grouped


def error_chart(report: Report) -> str:
    """Per-module relative error against fp32 (log scale), one line per policy, with the tolerance.

    Zero errors (fp32 against itself) sit on a floor a decade below the smallest error, labelled 0,
    so that every policy draws a line; policies with the very same errors share one line and one
    legend entry (``32-true, tf32``) instead of hiding each other.
    """
    modules = chart_modules(report)
    measured: list[Series] = []
    for result in report.policies:
        grouped = _by_name(result)
        errors = [max((s.error for s in grouped.get(n, []) if s.error is not None), default=None) for n in modules]
        measured.append((result.policy, [(float(i), e) for i, e in enumerate(errors) if e is not None]))
    positive = [y for _, points in measured for _, y in points if y > 0] + [report.tolerance]
    floor = 10.0 ** (math.floor(math.log10(min(positive))) - 1)
    series = _merge_identical([(label, [(x, max(y, floor)) for x, y in points]) for label, points in measured])
    y_range = (math.log10(floor), math.ceil(math.log10(max(positive))))
    label_room = _CHAR * max((len(n) for n in modules), default=4) * 0.9 + 12
    frame = _Frame(70, 34, max(420.0, 16.0 * len(modules)), 260, (-0.5, len(modules) - 0.5), y_range, log_y=True,
                   zero=floor)
    body = _axes(frame, "relative error vs fp32")
    tolerance_y = frame.y(report.tolerance)
    body.append(_line(frame.left, tolerance_y, frame.left + frame.width, tolerance_y, "#000", dash=True))
    for index, name in enumerate(modules):
        x, y = frame.x(index), frame.top + frame.height + 8
        body.append(_text(x + 3, y, name, 9, "end", rotate=True))
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(series))]
    body += [_polyline(frame, points, colour) for (_, points), colour in zip(series, colours) if points]
    legend = [(label, colour) for (label, _), colour in zip(series, colours)]
    body += _legend(frame.left + frame.width + 16, frame.top, [*legend, (f"tolerance {report.tolerance:g}", "#000")])
    room = _CHAR * max((len(label) for label, _ in legend), default=0) + 40
    width = frame.left + frame.width + max(190.0, room)
    return _svg(width, frame.top + frame.height + label_room, "Per-module error by policy (max over modes)", body)


def _merge_identical(series: list[Series]) -> list[Series]:
    """One line per distinct list of points, labelled with every series that drew it."""
    merged: dict[tuple, list[str]] = {}
    for label, points in series:
        merged.setdefault(tuple(points), []).append(label)
    return [(", ".join(labels), list(points)) for points, labels in merged.items()]


def computed_dtype(module: ModuleStats) -> str:
    """The dtype a module computed in: fp32 when kept, otherwise its first output's."""
    if module.kept_fp32:
        return "f32"
    floating = [d for d in module.outputs if d in DTYPE_COLOURS]
    return floating[0] if floating else "-"


def dtype_flow_chart(report: Report) -> str:
    """A grid: modules down, policies across, each cell the dtype the module computed in."""
    modules = chart_modules(report)
    policies = report.policies
    cell_w, cell_h = 88, 18
    left = 12 + _CHAR * 0.85 * max((len(n) for n in modules), default=4)
    top = 56
    body = []
    for column, result in enumerate(policies):
        body.append(_text(left + cell_w * (column + 0.5), top - 8, result.policy, 10, "middle"))
        grouped = _by_name(result)
        for row, name in enumerate(modules):
            stats = grouped.get(name)
            dtype = computed_dtype(stats[0]) if stats else "-"
            x, y = left + cell_w * column, top + cell_h * row
            body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell_w}" height="{cell_h}" '
                        f'fill="{DTYPE_COLOURS[dtype]}" stroke="white"/>')
            label = dtype + ("*" if stats and stats[0].autocast else "")
            body.append(_text(x + cell_w / 2, y + 13, label, 10, "middle"))
    for row, name in enumerate(modules):
        body.append(_text(left - 6, top + cell_h * row + 13, name, 9, "end"))
    width = left + cell_w * max(1, len(policies)) + 12
    title = "Dtype flow: the dtype each module computed in (* = autocast on)"
    return _svg(max(width, 430.0), top + cell_h * len(modules) + 12, title, body)


def _bars(title: str, unit: str, rows: list[tuple[str, list[int]]], parts: Sequence[str]) -> str:
    """Horizontal stacked bars, one row per label, one colour per part (values in bytes, shown in KiB)."""
    left = 16 + _CHAR * max((len(label) for label, _ in rows), default=4)
    frame = _Frame(left, 34, 420, 24.0 * len(rows), (0.0, max((sum(v) for _, v in rows), default=1) / 1024 or 1.0),
                   (0.0, 1.0))
    body = []
    for index, (label, values) in enumerate(rows):
        y, start = frame.top + 24 * index + 4, 0.0
        body.append(_text(left - 6, y + 12, label, 10, "end"))
        for value, colour in zip(values, PALETTE):
            x0, x1 = frame.x(start), frame.x(start + value / 1024)
            body.append(f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0, 0.0):.1f}" height="16" fill="{colour}"/>')
            start += value / 1024
    bottom = frame.top + frame.height
    body.append(_line(left, bottom, left + frame.width, bottom, "#333"))
    for tick in _ticks(*frame.x_range, count=4):
        body.append(_text(frame.x(tick), bottom + 14, f"{tick:g}", 10, "middle"))
    body.append(_text(left + frame.width / 2, bottom + 30, unit, anchor="middle"))
    body += _legend(left + frame.width + 16, frame.top, list(zip(parts, PALETTE)))
    return _svg(left + frame.width + 130, bottom + 40, title, body)


def memory_chart(report: Report) -> str:
    """Stacked bars of parameter, gradient and activation bytes per policy (largest mode), estimated."""
    parts = ("params", "grads", "activations")
    rows = [(p.policy, [max(getattr(r.memory, part) for r in p.runs) for part in parts]) for p in report.policies]
    return _bars("Memory of one step by policy (estimated from tensor sizes)", "KiB", rows, parts)


def training_memory_chart(training: Training) -> str:
    """Stacked bars of the memory measured during trial training, per run, fp32 first."""
    parts = ("params", "grads", "optimizer", "activations")
    runs = [training.reference, *training.runs]
    rows = [(run.label, [getattr(run.memory, part) for part in parts]) for run in runs]
    return _bars(f"Training memory measured per policy ({training.optimizer})", "KiB", rows, parts)


def _step_chart(training: Training, title: str, y_label: str, series: list[Series]) -> str:
    """Lines over the optimizer steps, fp32 (black) first, then each policy's run."""
    values = [y for _, points in series for _, y in points] or [0.0, 1.0]
    low, high = min(values), max(values)
    pad = (high - low) * 0.05 or abs(high) * 0.05 or 1.0
    frame = _Frame(70, 34, 520, 280, (0.0, max(1, training.steps - 1)), (low - pad, high + pad))
    body = _axes(frame, y_label, "optimizer step")
    for tick in _ticks(*frame.x_range, count=6):
        body.append(_text(frame.x(tick), frame.top + frame.height + 16, f"{tick:g}", 10, "middle"))
    colours = ["#000000", *(PALETTE[i % len(PALETTE)] for i in range(len(training.runs)))]
    body += [_polyline(frame, points, colour) for (_, points), colour in zip(series, colours) if points]
    body += _legend(frame.left + frame.width + 16, frame.top, [(label, c) for (label, _), c in zip(series, colours)])
    return _svg(frame.left + frame.width + 200, frame.top + frame.height + 46, title, body)


def loss_chart(training: Training) -> str:
    """The loss at every step of the trial training, fp32 and each policy."""
    runs = [training.reference, *training.runs]
    series: list[Series] = [(run.label, [(float(i), v) for i, v in enumerate(run.losses) if v is not None])
                            for run in runs]
    title = f"Trial training: loss per step ({training.steps} steps, same weights and batches)"
    return _step_chart(training, title, "training loss", series)


def loss_gap_chart(training: Training) -> str:
    """Each policy's loss against fp32's at every step, in percent (0: the same as fp32)."""
    reference = training.reference.losses
    series: list[Series] = [("fp32", [(float(i), 0.0) for i in range(len(reference))])]
    for run in training.runs:
        points = [(float(i), 100 * (v - r) / abs(r)) for i, (v, r) in enumerate(zip(run.losses, reference))
                  if v is not None and r]
        series.append((run.label, points))
    return _step_chart(training, "Trial training: loss against fp32 per step", "loss vs fp32 (%)", series)
