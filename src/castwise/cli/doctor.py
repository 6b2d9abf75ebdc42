"""``castwise doctor``: run a model under every policy, the naive way and the castwise way."""

from __future__ import annotations

import warnings

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn

from castwise.cli.output import console, fail, print_json, table
from castwise.doctor import ParityRow, example_inputs, example_model, run_parity
from castwise.model import PrecisionWarning


def doctor_command(
    policy: list[str] = typer.Option(None, "--policy", "-p", help="Policy to check (repeatable); default: all canonical ones."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Check the built-in example model under each policy: plain PyTorch against castwise."""
    model, inputs = example_model(), example_inputs()
    warnings.simplefilter("ignore", PrecisionWarning)
    warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
    try:
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=console, transient=True,
                      disable=as_json or not console.is_terminal) as progress:
            task = progress.add_task("running", total=None)
            rows = run_parity(model, inputs, policy, progress=lambda d: progress.update(task, description=d))
    except ValueError as exc:
        fail(str(exc))
    failed = [r for r in rows if r.way == "castwise" and not r.ok]
    if as_json:
        print_json({"model": "built-in example", "rows": [r.to_dict() for r in rows], "ok": not failed})
    else:
        _print_rows(rows)
    raise typer.Exit(1 if failed else 0)


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
    console.print(table("castwise doctor: built-in example (Transformer classifier)", columns, cells))
    broken = sum(1 for r in rows if r.way == "torch" and (not r.ok or r.train.output_dtype != r.eval.output_dtype))
    console.print(f"plain PyTorch: {broken} of {len(rows) // 2} policies fail or change output dtype between train and eval; "
                  f"castwise: {sum(1 for r in rows if r.way == 'castwise' and r.ok)} of {len(rows) // 2} work.", highlight=False)


def _status(result) -> str:
    return "ok" if result.ok else f"[red]FAIL[/] {result.error.split(': ', 1)[-1]}"


def register(app: typer.Typer) -> None:
    """Add the ``doctor`` command to ``app``."""
    app.command("doctor")(doctor_command)
