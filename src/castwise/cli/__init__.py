"""The ``castwise`` command: one entry point, sub-commands that read like sentences.

The command modules import torch and the rest of castwise inside their commands, never at the
top, so ``castwise --help``, ``-h`` and ``--version`` answer without loading torch (seconds).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from typer.core import TyperGroup

import castwise
from castwise.cli import checkpoint, doctor, explain, policies
from castwise.cli.output import fail


@contextmanager
def _one_line_usage_errors() -> Iterator[None]:
    """Parse errors (``--lr abc``, a missing argument) as one ``error:`` line, not usage text in a box."""
    try:
        yield
    except typer.TyperException as exc:
        context = getattr(exc, "ctx", None)
        hint = f" (see '{context.command_path} --help')" if context is not None else ""
        fail(" ".join(exc.format_message().split()).rstrip(".") + hint, getattr(exc, "exit_code", 2))


class _Group(TyperGroup):
    """castwise's command group: every usage error is one line on stderr and exit 2."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        if not args:  # no arguments shows the help (no_args_is_help), which is not an error
            return super().make_context(info_name, args, parent, **extra)
        with _one_line_usage_errors():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _one_line_usage_errors():
            return super().invoke(ctx)


app = typer.Typer(
    name="castwise",
    cls=_Group,
    help="Low-precision PyTorch made safe: policies, checkpoints that keep their dtype, diagnosis.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"castwise {castwise.__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print castwise's version and exit."
    ),
) -> None:
    """Low-precision PyTorch made safe: policies, checkpoints that keep their dtype, diagnosis."""


policies.register(app)
doctor.register(app)
checkpoint.register(app)
explain.register(app)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``castwise`` console script and of ``python -m castwise``."""
    app(args=None if argv is None else list(argv), prog_name="castwise")
