"""Shared output helpers for the command line: JSON, rich tables, one-line errors, literal text.

Text that comes from files (tensor names, paths, error messages quoting them) is data: it goes
out through ``literal``/``printable``, never as rich markup, with terminal control characters
and lone surrogates escaped, so a file cannot break or restyle the output.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

console = Console()
err_console = Console(stderr=True)


def print_json(data: Any) -> None:
    """Write ``data`` as indented JSON to stdout (machines read this; no colour, no wrapping)."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def table(title: str | None, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Table:
    """A rich table with the given columns and rows (``Text`` cells as they are, others as markup)."""
    result = Table(title=title, title_justify="left", header_style="bold")
    for column in columns:
        result.add_column(column)
    for row in rows:
        result.add_row(*(cell if isinstance(cell, Text) else "" if cell is None else str(cell) for cell in row))
    return result


def printable(text: str) -> str:
    """``text`` with every non-printable character (controls, lone surrogates) written as an escape."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


def literal(value: object) -> Text:
    """``value`` as plain text for rich: never markup, non-printable characters escaped."""
    return Text(printable(str(value)))


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one clear error line on stderr and exit non-zero (no traceback for user mistakes)."""
    err_console.print(Text.assemble(("error:", "bold red"), " ", printable(message)), highlight=False, soft_wrap=True)
    raise typer.Exit(code)
