"""``castwise doctor``: diagnose a model's precision under each policy and recommend one.

Everything a user can get wrong is checked before the model is built, in the order it is typed:
the options (a tolerance or learning rate that is not a positive number), the policy names, and
that ``--out``/``--html`` can be written. A target that cannot be loaded (a syntax error, a factory
that raises) and a model that does not even run in fp32 on its own inputs are one line each, with
the exception's type and where it was raised, and nothing is written.
"""

from __future__ import annotations

import math
import sys
import sysconfig
import traceback
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer
from rich.table import Table
from rich.text import Text

from castwise.cli.output import check_writable, console, err_console, fail, literal
from castwise.cli.policies import print_resolved
from castwise.cli.progress import work_progress

if TYPE_CHECKING:
    from castwise.doctor import ModeResult, ParityRow, Report
    from castwise.doctor.targets.load import Target

TARGET_HELP = ("'path/to/file.py:factory' or 'package.module:factory' returning (model, example_inputs), a model "
               "with example_input_array, or a dict with model, inputs, batches, loss_fn. Default: the built-in "
               "example.")
MODES = ("train", "eval")
EXAMPLE = "built-in example (Transformer classifier)"
DEFAULT_POLICIES = ("32-true", "tf32", "bf16-mixed", "16-mixed", "bf16-true", "16-true")
"""castwise.doctor's defaults, repeated here so ``--help`` needs no torch (a test keeps them equal)."""
DEFAULT_TOLERANCE = 0.02
DEFAULT_LR = 1e-3


def _non_negative(value: float) -> float:
    if not (math.isfinite(value) and value >= 0):
        raise typer.BadParameter(f"must be a number >= 0, got {value:g}")
    return value


def _positive(value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"lr must be a positive number, got {value:g}")
    return value


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
    lr: float = typer.Option(DEFAULT_LR, "--lr", callback=_positive,
                             help="Learning rate of the trial training (AdamW)."),
    tolerance: float = typer.Option(DEFAULT_TOLERANCE, "--tolerance", callback=_non_negative,
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
    if train_steps:
        _check_training_installed()
    modes = _modes(mode)
    policies = _policies(policy)
    for path, option in ((out, "--out"), (html_file, "--html")):
        if path is not None:
            check_writable(path, option)
    if not as_json:
        print_resolved(policy or ())
    report, rows = _diagnose(target, hf, stream, policies, modes, train_steps, lr, tolerance, as_json)
    _write_outputs(report, as_json, out, html_file)
    if not as_json:
        if rows is not None:
            _print_rows(rows)
        from castwise.doctor import render_text

        console.print(render_text(report, whole_fixes=True), crop=False)
    parity_failed = rows is not None and any(r.way == "castwise" and not r.ok for r in rows)
    raise typer.Exit(1 if parity_failed or not report.ok else 0)


def _diagnose(target: str | None, hf: Path | None, stream: bool, policies: tuple[str, ...], modes: tuple[str, ...],
              train_steps: int, lr: float, tolerance: float, quiet: bool) -> tuple[Report, list[ParityRow] | None]:
    """Load the target and diagnose it (with the parity table for the built-in example), streaming a
    checkpoint when asked or when the in-memory doctor would not fit."""
    from castwise.doctor import diagnose, run_parity
    from castwise.model import PrecisionWarning

    warnings.simplefilter("ignore", PrecisionWarning)
    warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
    streaming = hf is not None and (stream or _too_big(hf, modes, train_steps, policies))
    loaded, label = _load(target, hf, streaming)
    try:
        with work_progress(quiet) as update:
            rows = None
            if not (target or hf):
                pieces = 2 * len(policies)
                done = iter(range(pieces))
                rows = run_parity(loaded.model, loaded.inputs, policies,
                                  progress=lambda d: update(f"parity: {d}", next(done, pieces), pieces))
            report = diagnose(loaded.model, loaded.inputs, policies=policies, modes=modes, tolerance=tolerance,
                              progress=update, name=label, train_steps=train_steps, batches=loaded.batches,
                              loss_fn=loaded.loss_fn, lr=lr, stream=streaming, checkpoint=hf if streaming else None)
    except (ImportError, ValueError) as exc:
        fail(str(exc))
    _check_reference(report)
    report.parity = rows
    return report, rows


def _check_training_installed() -> None:
    """--train builds castwise's optimizers: a missing extra is one line naming --train, before any work."""
    from castwise.training.optimizers import load_optimizer_classes

    try:
        load_optimizer_classes()
    except ImportError as exc:
        fail(f"--train: {exc}")


def _modes(chosen: list[str] | None) -> tuple[str, ...]:
    unknown = [m for m in chosen or () if m not in MODES]
    if unknown:
        fail(f"unknown mode {unknown[0]!r}: use --mode train and/or --mode eval")
    return tuple(dict.fromkeys(chosen)) if chosen else MODES


def _policies(chosen: list[str] | None) -> tuple[str, ...]:
    """The policies to diagnose, each checked to parse before anything is loaded."""
    from castwise.policy import Policy

    names = tuple(chosen) if chosen else DEFAULT_POLICIES
    for name in names:
        try:
            Policy.parse(name)
        except ValueError as exc:
            fail(str(exc))
    return names


def _too_big(hf: Path, modes: tuple[str, ...], train_steps: int, policies: tuple[str, ...]) -> bool:
    """True (and says so on stderr) when the in-memory doctor would not fit and streaming can take over."""
    from castwise.doctor.report.formatting import human_bytes
    from castwise.doctor.stream.budget import in_memory_fit, streams
    from castwise.policy import Policy

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
    fp8 = [name for name in policies if Policy.parse(name).fp8]
    if fp8:
        fail(f"{need}, and fp8 policies ({', '.join(fp8)}) are diagnosed in memory only: drop them to diagnose the "
             "checkpoint one block at a time (--stream)")
    err_console.print(f"note: {need}: streaming the checkpoint one block at a time (--stream)", highlight=False)
    return True


def _load(target: str | None, hf: Path | None, streaming: bool = False) -> tuple[Target, str]:
    """The model, its inputs and its label; any failure to load it is one line naming the exception."""
    from castwise.doctor import example_inputs, example_labels, example_model
    from castwise.doctor.targets.load import Target, TargetError, load_target, load_transformers

    try:
        if hf is not None:
            loaded = load_transformers(hf, meta=streaming)
            return loaded, f"{type(loaded.model).__name__} ({hf})"
        if target:
            loaded = load_target(target)
            return loaded, f"{type(loaded.model).__name__} ({target})"
    except TargetError as exc:
        fail(str(exc))
    except Exception as exc:  # the user's own code raised while loading: say what and where, one line
        _fail_loading(target or str(hf), exc)
    inputs = example_inputs()
    return Target(example_model(), inputs, batches=[(inputs, example_labels())]), EXAMPLE


def _fail_loading(what: str, exc: Exception) -> NoReturn:
    """One line for an exception raised while loading ``what``: its type, message and innermost user frame."""
    message = " ".join(str(exc).split())
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename}:{exc.lineno}"
        fail(f"cannot load {what}: {where}: SyntaxError: {exc.msg}")
    frames = traceback.extract_tb(exc.__traceback__)
    users = [f for f in frames if not _is_library(f.filename)] or frames
    where = f" (at {users[-1].filename}:{users[-1].lineno}, in {users[-1].name})" if users else ""
    fail(f"cannot load {what}: {type(exc).__name__}: {message}{where}")


def _is_library(filename: str) -> bool:
    """True for a frame of Python itself, an installed package or castwise (not the user's code)."""
    path = Path(filename).resolve()
    return filename.startswith("<") or bool({"site-packages", "dist-packages"} & set(path.parts)) or any(
        path.is_relative_to(root) for root in _LIBRARY_ROOTS)


_LIBRARY_ROOTS = (Path(__file__).resolve().parents[1], *{Path(sysconfig.get_paths()[key]).resolve()
                                                         for key in ("stdlib", "platstdlib", "purelib", "platlib")})
"""castwise's own folder and Python's library folders: frames there are not where a user's code raised."""


def _check_reference(report: Report) -> None:
    """A model that fails in fp32 is a mistake in the model or its inputs, not a precision problem: one line."""
    failed = [run for run in report.reference if not run.ok]
    if not failed:
        return
    first = failed[0]
    where = f" in module {first.failing_module}" if first.failing_module else ""
    modes = " and ".join(run.mode for run in failed)
    fail(f"the model fails in fp32 on its example inputs ({modes}){where}: {first.exception}; make it run in "
         "float32 first (this is not a precision problem; no policy can be judged, nothing was written)")


def _write_outputs(report: Report, as_json: bool, out: Path | None, html_file: Path | None) -> None:
    from castwise.doctor import write_html

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
    from castwise.doctor.report.formatting import error_text, human_bytes

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
        console.print(literal(line), highlight=False)
    broken = sum(1 for r in rows if r.way == "torch" and (not r.ok or r.train.output_dtype != r.eval.output_dtype))
    working = sum(1 for r in rows if r.way == "castwise" and r.ok)
    console.print(f"plain PyTorch: {broken} of {len(rows) // 2} policies fail or change output dtype between train "
                  f"and eval; castwise: {working} of {len(rows) // 2} work.\n", highlight=False)


def _status(result: ModeResult) -> Text:
    return Text("ok", style="green") if result.ok else Text("FAIL", style="red")


def register(app: typer.Typer) -> None:
    """Add the ``doctor`` command to ``app``."""
    app.command("doctor")(doctor_command)
