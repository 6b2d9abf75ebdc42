"""Shared output helpers for the command line: JSON, rich tables, one-line errors, literal text.

Text that comes from files (tensor names, paths, error messages quoting them) is data: it goes
out through ``literal``/``printable``, never as rich markup, with terminal control characters
and lone surrogates escaped, so a file cannot break or restyle the output.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
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


def table(
    title: str | None, columns: Sequence[str], rows: Sequence[Sequence[Any]], whole: Sequence[str] = ()
) -> Table:
    """A rich table with the given columns and rows (``Text`` cells as they are, others as markup).

    A cell too wide for a narrow terminal folds onto more lines, never ends in an ellipsis (two
    truncated names would look the same); the ``whole`` columns never wrap at all.
    """
    result = Table(title=title, title_justify="left", header_style="bold")
    for column in columns:
        result.add_column(column, overflow="fold", no_wrap=column in whole)
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


def check_writable(path: Path, option: str, make_folders: bool = False) -> None:
    """Fail (one line) unless ``path`` could be written now: checked before any work, so none is lost.

    The folder it goes in must exist (or, with ``make_folders``, its nearest existing ancestor) and
    take a new file (tried with a temporary one, which also catches read-only mounts and ``root``'s
    blind spots); an existing ``path`` must be a writable file. Nothing is left behind.
    """
    if path.is_dir() and not make_folders:
        fail(f"{option} {path}: is a folder; name a file")
    folder = path.parent
    while make_folders and not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        fail(f"{option} {path}: " + (f"{folder} is not a folder" if folder.exists() else f"no folder {folder}"))
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
        if path.is_file() and not os.access(path, os.W_OK):
            raise PermissionError(f"{path} is read-only")
    except OSError as exc:
        fail(f"{option} {path}: cannot write there ({exc.strerror or exc}); nothing was run")
