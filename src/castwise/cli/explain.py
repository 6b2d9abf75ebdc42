"""``castwise explain [FILE]``: read a pasted log (a file or stdin) and say what the error means.

Exit status: 0 when the error was explained, 1 when castwise does not recognise one (nothing is
guessed; it says what to paste instead), 2 for a user mistake (a missing or unreadable file). Only
the tail of a big log is read (``castwise.explainer.logtext.MAX_CHARS``), where the error is.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from castwise.cli.output import console, err_console, fail, literal, print_json

if TYPE_CHECKING:
    from castwise.explainer import Explanation


NOT_RECOGNISED_HINT = (
    "It reads the error line a traceback ends with (`...Error: ...`): paste the whole log, not a summary or a "
    "screenshot. For NaN, inf or wrong outputs with no error, `castwise doctor` measures the model layer by layer."
)
"""What to try next when nothing is recognised: most reports it cannot read hold no error line at all."""


def explain_command(
    file: Path | None = typer.Argument(None, metavar="FILE", help="A log or traceback to read; default: stdin."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Explain a dtype/precision error from a pasted log: its cause, the likely culprit and the fix."""
    from castwise.explainer import explain

    explanation = explain(_read(file))
    if as_json:
        print_json({"explained": explanation is not None, **(explanation.as_dict() if explanation else {})})
    elif explanation is None:
        err_console.print("castwise does not recognise a dtype or precision error in this text.", highlight=False)
        err_console.print(NOT_RECOGNISED_HINT, highlight=False, markup=False)
    else:
        _print(explanation)
    if explanation is None:
        raise typer.Exit(1)


def _read(file: Path | None) -> str:
    from castwise.explainer.logtext import MAX_CHARS

    if file is None:
        return sys.stdin.read()[-MAX_CHARS:]
    try:
        with file.open("rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - 4 * MAX_CHARS))
            return handle.read().decode("utf-8", errors="replace")
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")


def _print(explanation: Explanation) -> None:
    where = ", ".join(
        f"{label} {value}" for label, value in (
            ("op", explanation.op), ("dtypes", " ".join(explanation.dtypes) or None),
            ("device", explanation.device), ("module", explanation.module),
        ) if value
    )
    console.print(Text.assemble(("error: ", "bold"), literal(explanation.message)), highlight=False)
    console.print(Text.assemble(
        ("kind: ", "bold"), f"{explanation.kind} ({explanation.family}, {explanation.confidence} confidence)",
        f"; {where}" if where else "",
    ), highlight=False)
    for label, text in (("cause", explanation.cause), ("culprit", explanation.culprit), ("fix", explanation.fix)):
        console.print(Text.assemble((f"{label}: ", "bold"), literal(text)), highlight=False)


def register(app: typer.Typer) -> None:
    """Add the ``explain`` command to ``app``."""
    app.command("explain")(explain_command)
