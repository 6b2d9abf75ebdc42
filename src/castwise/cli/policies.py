"""``castwise policies``: the canonical policy names and the aliases they accept."""

from __future__ import annotations

import typer

from castwise.cli.output import console, fail, print_json, table
from castwise.policy import DEFAULT_KEEP_FP32, Policy, aliases, dtype_name, policies


def policies_command(
    name: str = typer.Argument(None, help="Show how one name (canonical, alias or triple) resolves."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List the precision policies, or show how NAME resolves."""
    names = [name] if name else list(policies())
    try:
        rows = [_describe(Policy.parse(n), n) for n in names]
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        print_json(rows if name is None else rows[0])
        return
    columns = ["policy", "params", "compute", "output", "mode", "kept in fp32", "loss scaling"]
    console.print(table(None, columns, [list(r.values())[:-1] for r in rows]))
    for row in rows:
        console.print(f"  [bold]{row['policy']}[/]: {row['description']}", highlight=False)
    if name is None:
        alias_rows = sorted(aliases().items())
        console.print("Also accepted: " + ", ".join(f"{a} ({c})" for a, c in alias_rows), highlight=False)


def _describe(policy: Policy, asked: str) -> dict[str, str]:
    return {
        "policy": str(policy),
        "params": dtype_name(policy.param_dtype),
        "compute": dtype_name(policy.compute_dtype) + (" (tf32 matmul)" if policy.matmul_precision != "highest" else ""),
        "output": dtype_name(policy.output_dtype),
        "mode": "mixed" if policy.is_mixed else "true",
        "keep_fp32": "norms" if policy.keep_fp32 == DEFAULT_KEEP_FP32 else (", ".join(policy.keep_fp32) or "-"),
        "loss_scaling": policy.loss_scaling,
        "description": policies().get(str(policy), f"resolved from {asked!r}"),
    }


def register(app: typer.Typer) -> None:
    """Add the ``policies`` command to ``app``."""
    app.command("policies")(policies_command)
