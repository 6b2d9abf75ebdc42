"""Charts for the HTML report, drawn with matplotlib and returned as inline SVG text."""

from __future__ import annotations

import io

from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from castwise.doctor.report import ModuleStats, PolicyResult, Report

DTYPE_COLOURS = {"f64": "#4c72b0", "f32": "#8fb3e0", "bf16": "#f2a65a", "f16": "#e15759", "-": "#eeeeee"}
_MAX_MODULES = 60


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _figure(width: float, height: float) -> Figure:
    figure = Figure(figsize=(width, height), dpi=100)
    figure.set_layout_engine("constrained")
    return figure


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
    """Per-module relative error against fp32, one line per policy, with the tolerance."""
    modules = chart_modules(report)
    figure = _figure(max(6.0, 0.22 * len(modules) + 2), 4.2)
    axes = figure.add_subplot()
    for result in report.policies:
        grouped = _by_name(result)
        errors = [max((s.error for s in grouped.get(n, []) if s.error is not None), default=None) for n in modules]
        points = [(i, e) for i, e in enumerate(errors) if e is not None and e > 0]
        if points:
            xs, ys = zip(*points)
            axes.plot(xs, ys, marker="o", markersize=3, linewidth=1.2, label=result.policy)
    axes.axhline(report.tolerance, color="black", linestyle="--", linewidth=1, label=f"tolerance {report.tolerance:g}")
    axes.set_yscale("log")
    axes.set_xticks(range(len(modules)), modules, rotation=90, fontsize=7)
    axes.set_ylabel("relative error vs fp32")
    axes.set_title("Per-module error by policy (max over modes)")
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes.grid(True, which="major", alpha=0.3)
    return _svg(figure)


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
    colours = list(DTYPE_COLOURS)
    grid, labels = [], []
    for name in modules:
        row, label_row = [], []
        for result in policies:
            stats = _by_name(result).get(name)
            dtype = computed_dtype(stats[0]) if stats else "-"
            row.append(colours.index(dtype))
            label_row.append(dtype + ("*" if stats and stats[0].autocast else ""))
        grid.append(row)
        labels.append(label_row)
    figure = _figure(1.3 * len(policies) + 3.5, 0.24 * len(modules) + 1.6)
    axes = figure.add_subplot()
    axes.imshow(grid, cmap=ListedColormap(list(DTYPE_COLOURS.values())), vmin=0, vmax=len(colours) - 1, aspect="auto")
    for y, label_row in enumerate(labels):
        for x, label in enumerate(label_row):
            axes.text(x, y, label, ha="center", va="center", fontsize=7)
    axes.set_xticks(range(len(policies)), [p.policy for p in policies], fontsize=8)
    axes.xaxis.tick_top()
    axes.set_yticks(range(len(modules)), modules, fontsize=7)
    axes.set_title("Dtype flow: the dtype each module computed in (* = autocast on)", fontsize=9)
    return _svg(figure)


def memory_chart(report: Report) -> str:
    """Stacked bars of parameter, gradient and activation bytes per policy (largest mode)."""
    figure = _figure(7.0, 0.45 * len(report.policies) + 1.4)
    axes = figure.add_subplot()
    names = [p.policy for p in report.policies]
    left = [0.0] * len(names)
    for part, colour in (("params", "#4c72b0"), ("grads", "#dd8452"), ("activations", "#55a868")):
        sizes = [max(getattr(r.memory, part) for r in p.runs) / 1024 for p in report.policies]
        axes.barh(names, sizes, left=left, color=colour, label=part)
        left = [a + b for a, b in zip(left, sizes)]
    axes.invert_yaxis()
    axes.set_xlabel("KiB (estimated from tensor sizes)")
    axes.set_title("Memory by policy")
    axes.legend(fontsize=8)
    return _svg(figure)
