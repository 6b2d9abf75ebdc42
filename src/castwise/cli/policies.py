"""``castwise policies``: the canonical policy names and the aliases they accept.

Aliases are a trap worth showing: ``bf16`` (Lightning) is bf16-mixed but ``bfloat16`` (Keras) is
bf16-true, ``fp16`` (Accelerate) is 16-mixed but ``float16`` is 16-true. So the listing groups
every alias under the policy it resolves to, and every command that takes a policy prints
``NAME -> CANONICAL`` when the name given was not the canonical one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from castwise.cli.output import console, fail, literal, print_json, table

if TYPE_CHECKING:
    from castwise.policy import Policy

BARE_DTYPES = ("f16", "half", "f32", "full")
"""jmp's bare dtypes, shown as examples: each names that dtype's -true policy."""


def policies_command(
    name: str = typer.Argument(None, metavar="NAME", help="Show how one name (canonical, alias or triple) resolves."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List the precision policies and the aliases each accepts, or show how NAME resolves."""
    from castwise.policy import Policy, aliases, policies

    names = [name] if name else list(policies())
    try:
        described = [_describe(Policy.parse(n), n) for n in names]
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        print_json(described[0] if name else {"policies": described, "aliases": aliases()})
        return
    if name is not None:
        print_resolved([name])
    columns = ["policy", "params", "compute", "output", "kept in fp32", "loss scaling"]
    console.print(table(None, columns, [_row(d) for d in described], whole=["policy"]))
    console.print(_two_columns((entry["policy"], entry["description"]) for entry in described))
    if name is None:
        console.print("Other names, and the policy each resolves to:", highlight=False)
        console.print(_two_columns(_aliases_by_policy(aliases(), list(policies()))))
        bare = "; ".join(resolved(BARE_DTYPES)).replace(" -> ", ": ")
        console.print(f"A bare dtype is its -true policy ({bare}); a triple such as 'p=f32,c=bf16,o=f32' sets "
                      "each part.", highlight=False)


def resolved(names: Iterable[str]) -> list[str]:
    """``NAME -> CANONICAL`` for each name that is not already its policy's canonical name."""
    from castwise.policy import Policy

    return [f"{name} -> {policy}" for name in names if (policy := str(Policy.parse(name))) != name]


def print_resolved(names: Iterable[str]) -> None:
    """Print what each non-canonical policy name resolves to, one per line (nothing when all are canonical)."""
    for line in resolved(names):
        console.print(literal(line), highlight=False, soft_wrap=True)


def _aliases_by_policy(names: dict[str, str], canonical: list[str]) -> list[tuple[str, str]]:
    grouped: dict[str, list[str]] = {policy: [] for policy in canonical}
    for alias, policy in names.items():
        grouped[policy].append(alias)
    return [(policy, ", ".join(found)) for policy, found in grouped.items() if found]


def _two_columns(rows: Iterable[tuple[str, str]]) -> Table:
    """An indented name column that never wraps beside a text column that wraps under itself."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for left, right in rows:
        grid.add_row(literal(f"  {left}"), literal(right))
    return grid


def _describe(policy: Policy, asked: str) -> dict[str, Any]:
    from castwise.policy import dtype_name, policies

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
    from castwise.policy import DEFAULT_KEEP_FP32

    tf32 = " (tf32 matmul)" if entry["matmul_precision"] != "highest" else ""
    tf32 += f" + fp8 {entry['fp8']}" if entry["fp8"] else ""
    keep = entry["keep_fp32"]
    kept = "norms" if tuple(keep) == DEFAULT_KEEP_FP32 else (", ".join(keep) or "-")
    return [
        entry["policy"],
        entry["params"],
        entry["compute"] + tf32,
        entry["output"],
        kept,
        entry["loss_scaling"],
    ]


def register(app: typer.Typer) -> None:
    """Add the ``policies`` command to ``app``."""
    app.command("policies")(policies_command)
