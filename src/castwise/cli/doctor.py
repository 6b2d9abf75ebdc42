"""``castwise doctor``: diagnose a model's precision under each policy and recommend one."""

from __future__ import annotations

import contextlib
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn

from castwise.cli.output import console, fail, table
from castwise.doctor import (
    DEFAULT_POLICIES, DEFAULT_TOLERANCE, ParityRow, Report, diagnose, example_inputs, example_model, run_parity,
)
from castwise.doctor.targets import TargetError, load_target, load_transformers
from castwise.model import PrecisionWarning


TARGET_HELP = ("'path/to/file.py:factory' or 'package.module:factory' returning (model, example_inputs) or a model "
               "with example_input_array. Default: the built-in example.")


def doctor_command(
    target: Optional[str] = typer.Argument(None, metavar="TARGET", help=TARGET_HELP),
    hf: Optional[Path] = typer.Option(None, "--hf", metavar="DIR",
                                      help="A transformers model folder (inputs built from its config)."),
    policy: list[str] = typer.Option(None, "--policy", "-p", metavar="P",
                                     help=f"Policy to check (repeatable); default: {', '.join(DEFAULT_POLICIES)}."),
    eval_only: Optional[bool] = typer.Option(None, "--eval/--train",
                                             help="Only eval (no_grad) or only train (forward + backward); "
                                                  "default both."),
    tolerance: float = typer.Option(DEFAULT_TOLERANCE, "--tolerance",
                                    help="Largest relative error against fp32 a policy may have."),
    json_file: Optional[str] = typer.Option(None, "--json", metavar="FILE",
                                            help="Write the report as JSON to FILE ('-': stdout, nothing else)."),
    html_file: Optional[Path] = typer.Option(None, "--html", metavar="FILE",
                                             help="Write a self-contained HTML report with charts."),
) -> None:
    """Run a model in fp32 and under each policy: which layer breaks or drifts, why, and which policy to use."""
    if target and hf:
        fail("give either TARGET or --hf DIR, not both")
    quiet = json_file == "-"
    modes = ("train", "eval") if eval_only is None else (("eval",) if eval_only else ("train",))
    policies = tuple(policy) if policy else DEFAULT_POLICIES
    warnings.simplefilter("ignore", PrecisionWarning)
    warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
    try:
        model, inputs, label = _load(target, hf)
        with _progress(quiet) as update:
            rows = None if target or hf else run_parity(model, inputs, policies, progress=update)
            report = diagnose(model, inputs, policies=policies, modes=modes, tolerance=tolerance,
                              progress=update, name=label)
        report.parity = rows
    except (TargetError, ValueError) as exc:
        fail(str(exc))
    _write_outputs(report, json_file, html_file)
    if not quiet:
        if rows is not None:
            _print_rows(rows)
        console.print(report)
    parity_failed = rows is not None and any(r.way == "castwise" and not r.ok for r in rows)
    raise typer.Exit(1 if parity_failed or not report.ok else 0)


def _load(target: str | None, hf: Path | None) -> tuple[Any, Any, str]:
    if hf is not None:
        model, inputs = load_transformers(hf)
        return model, inputs, f"{type(model).__name__} ({hf})"
    if target:
        model, inputs = load_target(target)
        return model, inputs, f"{type(model).__name__} ({target})"
    return example_model(), example_inputs(), "built-in example (Transformer classifier)"


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[str], None]]:
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=console, transient=True,
                  disable=quiet or not console.is_terminal) as progress:
        task = progress.add_task("running", total=None)
        yield lambda description: progress.update(task, description=f"running {description}")


def _write_outputs(report: Report, json_file: str | None, html_file: Path | None) -> None:
    if json_file == "-":
        sys.stdout.write(report.to_json() + "\n")
    elif json_file:
        Path(json_file).write_text(report.to_json() + "\n", encoding="utf-8")
    if html_file:
        try:
            report.to_html(html_file)
        except ImportError:
            fail("--html needs matplotlib (pip install 'castwise[report]')")


def _print_rows(rows: list[ParityRow]) -> None:
    columns = ["policy", "way", "train", "eval (no_grad + mask)", "output dtype", "param bytes", "max rel err"]
    cells = []
    for row in rows:
        errors = [m.max_rel_error for m in (row.train, row.eval) if m.max_rel_error is not None]
        cells.append([
            row.policy, row.way, _status(row.train), _status(row.eval),
            " / ".join(m.output_dtype or "-" for m in (row.train, row.eval)),
            f"{row.param_bytes:,}", f"{max(errors):.1e}" if errors else "-",
        ])
    console.print(table("plain PyTorch against castwise: built-in example (Transformer classifier)", columns, cells))
    broken = sum(1 for r in rows if r.way == "torch" and (not r.ok or r.train.output_dtype != r.eval.output_dtype))
    working = sum(1 for r in rows if r.way == "castwise" and r.ok)
    console.print(f"plain PyTorch: {broken} of {len(rows) // 2} policies fail or change output dtype between train "
                  f"and eval; castwise: {working} of {len(rows) // 2} work.\n", highlight=False)


def _status(result) -> str:
    return "ok" if result.ok else f"[red]FAIL[/] {result.error.split(': ', 1)[-1]}"


def register(app: typer.Typer) -> None:
    """Add the ``doctor`` command to ``app``."""
    app.command("doctor")(doctor_command)
