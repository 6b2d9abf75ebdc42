"""``castwise policies``: the canonical policy names and the aliases they accept."""

from __future__ import annotations

from typing import Any

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
        described = [_describe(Policy.parse(n), n) for n in names]
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        print_json(described[0] if name else {"policies": described, "aliases": aliases()})
        return
    columns = ["policy", "params", "compute", "output", "mode", "kept in fp32", "loss scaling"]
    console.print(table(None, columns, [_row(d) for d in described]))
    for entry in described:
        console.print(f"  [bold]{entry['policy']}[/]: {entry['description']}", highlight=False)
    if name is None:
        accepted = ", ".join(f"{a} ({c})" for a, c in sorted(aliases().items()))
        console.print(f"Also accepted: {accepted}, and triples such as 'p=f32,c=bf16,o=f32'.", highlight=False)


def _describe(policy: Policy, asked: str) -> dict[str, Any]:
    return {
        "policy": str(policy),
        "params": dtype_name(policy.param_dtype),
        "compute": dtype_name(policy.compute_dtype),
        "output": dtype_name(policy.output_dtype),
        "mode": "mixed" if policy.is_mixed else "true",
        "keep_fp32": list(policy.keep_fp32),
        "matmul_precision": policy.matmul_precision,
        "loss_scaling": policy.loss_scaling,
        "fp8": policy.fp8,
        "fp8_keep_out": list(policy.fp8_keep_out),
        "description": policies().get(str(policy), f"custom policy, resolved from {asked!r}"),
    }


def _row(entry: dict[str, Any]) -> list[str]:
    tf32 = " (tf32 matmul)" if entry["matmul_precision"] != "highest" else ""
    tf32 += f" + fp8 {entry['fp8']}" if entry["fp8"] else ""
    keep = entry["keep_fp32"]
    kept = "norms" if tuple(keep) == DEFAULT_KEEP_FP32 else (", ".join(keep) or "-")
    return [
        entry["policy"],
        entry["params"],
        entry["compute"] + tf32,
        entry["output"],
        entry["mode"],
        kept,
        entry["loss_scaling"],
    ]


def register(app: typer.Typer) -> None:
    """Add the ``policies`` command to ``app``."""
    app.command("policies")(policies_command)
