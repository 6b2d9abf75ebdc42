"""The ``castwise`` command: one entry point, sub-commands that read like sentences."""

from __future__ import annotations

import typer

from castwise.cli import checkpoint, doctor, explain, policies

app = typer.Typer(
    name="castwise",
    help="Low-precision PyTorch made safe: policies, checkpoints that keep their dtype, diagnosis.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
policies.register(app)
doctor.register(app)
checkpoint.register(app)
explain.register(app)


def main() -> None:
    """Entry point of the ``castwise`` console script."""
    app()
