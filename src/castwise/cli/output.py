"""Shared output helpers for the command line: JSON, rich tables, and one-line errors."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn, Sequence

import typer
from rich.console import Console
from rich.table import Table

console = Console()
err_console = Console(stderr=True)


def print_json(data: Any) -> None:
    """Write ``data`` as indented JSON to stdout (machines read this; no colour, no wrapping)."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def table(title: str | None, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Table:
    """A rich table with the given columns and rows (cells are converted to text)."""
    result = Table(title=title, title_justify="left", header_style="bold")
    for column in columns:
        result.add_column(column)
    for row in rows:
        result.add_row(*("" if cell is None else str(cell) for cell in row))
    return result


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one clear error line on stderr and exit non-zero (no traceback for user mistakes)."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
