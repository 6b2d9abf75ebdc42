"""``castwise doctor``: diagnose a model's precision under each policy and recommend one."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from castwise.cli.output import console, err_console, fail
from castwise.doctor import (
    DEFAULT_POLICIES,
    DEFAULT_TOLERANCE,
    ModeResult,
    ParityRow,
    Report,
    diagnose,
    example_inputs,
    example_labels,
    example_model,
    render_text,
    run_parity,
    write_html,
)
from castwise.doctor.measure.trial import DEFAULT_LR
from castwise.doctor.report.formatting import error_text, human_bytes
from castwise.doctor.stream.budget import in_memory_fit, streams
from castwise.doctor.targets.load import Target, TargetError, load_target, load_transformers
from castwise.model import PrecisionWarning

TARGET_HELP = ("'path/to/file.py:factory' or 'package.module:factory' returning (model, example_inputs), a model "
               "with example_input_array, or a dict with model, inputs, batches, loss_fn. Default: the built-in "
               "example.")
MODES = ("train", "eval")
EXAMPLE = "built-in example (Transformer classifier)"


def doctor_command(
    target: str | None = typer.Argument(None, metavar="TARGET", help=TARGET_HELP),
    hf: Path | None = typer.Option(None, "--hf", metavar="DIR",
                                      help="A transformers model folder (inputs built from its config)."),
    policy: list[str] = typer.Option(None, "--policy", "-p", metavar="P",
                                     help=f"Policy to check (repeatable); default: {', '.join(DEFAULT_POLICIES)}."),
    mode: list[str] = typer.Option(None, "--mode", "-m", metavar="MODE",
                                   help="train (forward + backward) or eval (no_grad); repeatable; default both."),
    train_steps: int = typer.Option(0, "--train", metavar="N", min=0,
                                    help="Also train N optimizer steps under fp32 and each policy and compare."),
    lr: float = typer.Option(DEFAULT_LR, "--lr", help="Learning rate of the trial training (AdamW)."),
    tolerance: float = typer.Option(DEFAULT_TOLERANCE, "--tolerance",
                                    help="Largest relative error (and training loss gap) against fp32 "
                                         "a policy may have."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on stdout, and nothing else."),
    out: Path | None = typer.Option(None, "--out", "-o", metavar="FILE", help="Write the report as JSON to FILE."),
    html_file: Path | None = typer.Option(None, "--html", metavar="FILE",
                                             help="Write a self-contained HTML report with charts to FILE."),
    stream: bool = typer.Option(False, "--stream",
                                help="With --hf: read the checkpoint one decoder block at a time (Llama, Mistral, "
                                     "Qwen, GPT-2, Mixtral), for models that do not fit in memory; chosen by "
                                     "itself when the in-memory doctor would not fit."),
) -> None:
    """Run a model in fp32 and under each policy: which layer breaks or drifts, why, and which policy to use."""
    if target and hf:
        fail("give either TARGET or --hf DIR, not both")
    if stream and hf is None:
        fail("--stream reads a transformers checkpoint folder one block at a time: give it with --hf DIR")
    if stream and train_steps:
        fail("--train: trial training runs the whole model in memory, so it cannot be combined with --stream")
    modes = _modes(mode)
    policies = tuple(policy) if policy else DEFAULT_POLICIES
    warnings.simplefilter("ignore", PrecisionWarning)
    warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
    try:
        streaming = hf is not None and (stream or _too_big(hf, modes, train_steps))
        loaded, label = _load(target, hf, streaming)
        with _progress(as_json) as update:
            rows = None if target or hf else run_parity(
                loaded.model, loaded.inputs, policies, progress=lambda d: update(f"parity: {d}", 0, 0))
            report = diagnose(loaded.model, loaded.inputs, policies=policies, modes=modes, tolerance=tolerance,
                              progress=update, name=label, train_steps=train_steps, batches=loaded.batches,
                              loss_fn=loaded.loss_fn, lr=lr, stream=streaming, checkpoint=hf if streaming else None)
        report.parity = rows
    except ImportError as exc:
        fail(f"--train: {exc}" if train_steps else str(exc))
    except (TargetError, ValueError) as exc:
        fail(str(exc))
    _write_outputs(report, as_json, out, html_file)
    if not as_json:
        if rows is not None:
            _print_rows(rows)
        console.print(render_text(report))
    parity_failed = rows is not None and any(r.way == "castwise" and not r.ok for r in rows)
    raise typer.Exit(1 if parity_failed or not report.ok else 0)


def _modes(chosen: list[str] | None) -> tuple[str, ...]:
    unknown = [m for m in chosen or () if m not in MODES]
    if unknown:
        fail(f"unknown mode {unknown[0]!r}: use --mode train and/or --mode eval")
    return tuple(dict.fromkeys(chosen)) if chosen else MODES


def _too_big(hf: Path, modes: tuple[str, ...], train_steps: int) -> bool:
    """True (and says so on stderr) when the in-memory doctor would not fit and streaming can take over."""
    if not streams(hf):
        return False
    fit = in_memory_fit(hf, modes)
    if fit.fits:
        return False
    need = f"the in-memory doctor would need about {human_bytes(fit.needed)}, {human_bytes(fit.available or 0)} " \
           "are available"
    if train_steps:
        fail(f"{need}, and trial training (--train) is in-memory only: drop --train to diagnose the checkpoint "
             "one block at a time (--stream)")
    err_console.print(f"note: {need}: streaming the checkpoint one block at a time (--stream)", highlight=False)
    return True


def _load(target: str | None, hf: Path | None, streaming: bool = False) -> tuple[Target, str]:
    if hf is not None:
        loaded = load_transformers(hf, meta=streaming)
        return loaded, f"{type(loaded.model).__name__} ({hf})"
    if target:
        loaded = load_target(target)
        return loaded, f"{type(loaded.model).__name__} ({target})"
    inputs = example_inputs()
    return Target(example_model(), inputs, batches=[(inputs, example_labels())]), EXAMPLE


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A progress bar on a terminal; ``update(description, done, total)`` (total 0: not known yet)."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, disable=quiet or not console.is_terminal) as progress:
        task = progress.add_task("starting", total=None)

        def update(description: str, done: int, total: int) -> None:
            progress.update(task, description=description, completed=done, total=total or None)

        yield update


def _write_outputs(report: Report, as_json: bool, out: Path | None, html_file: Path | None) -> None:
    text = report.to_json() + "\n"
    try:
        if out is not None:
            out.write_text(text, encoding="utf-8")
        if html_file is not None:
            write_html(report, html_file)
    except OSError as exc:
        fail(f"cannot write {exc.filename}: {exc.strerror}")
    if as_json:
        sys.stdout.write(text)


def _print_rows(rows: list[ParityRow]) -> None:
    grid = Table(title=f"plain PyTorch against castwise: {EXAMPLE}", title_justify="left", header_style="bold")
    grid.add_column("policy", no_wrap=True)
    for column in ("way", "train", "eval", "output dtype", "params", "max error"):
        grid.add_column(column, no_wrap=True)
    failures = []
    for row in rows:
        for mode, result in (("train", row.train), ("eval", row.eval)):
            if not result.ok:
                failures.append(f"  {row.policy} {row.way} {mode}: {result.error}")
        errors = [m.max_rel_error for m in (row.train, row.eval) if m.max_rel_error is not None]
        grid.add_row(
            row.policy, row.way, _status(row.train), _status(row.eval),
            " / ".join(m.output_dtype or "-" for m in (row.train, row.eval)),
            human_bytes(row.param_bytes), error_text(max(errors) if errors else None),
        )
    console.print(grid)
    console.print("eval: eval() under no_grad with a padding mask; output dtype: train / eval", highlight=False)
    for line in failures:
        console.print(line, highlight=False, markup=False)
    broken = sum(1 for r in rows if r.way == "torch" and (not r.ok or r.train.output_dtype != r.eval.output_dtype))
    working = sum(1 for r in rows if r.way == "castwise" and r.ok)
    console.print(f"plain PyTorch: {broken} of {len(rows) // 2} policies fail or change output dtype between train "
                  f"and eval; castwise: {working} of {len(rows) // 2} work.\n", highlight=False)


def _status(result: ModeResult) -> Text:
    return Text("ok", style="green") if result.ok else Text("FAIL", style="red")


def register(app: typer.Typer) -> None:
    """Add the ``doctor`` command to ``app``."""
    app.command("doctor")(doctor_command)
