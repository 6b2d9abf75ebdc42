"""``castwise policies``: table, JSON, aliases and what they resolve to, and one-line errors."""

import json

from typer.testing import CliRunner

from castwise.cli import app
from castwise.policy import aliases, policies

runner = CliRunner()


def test_policies_table_shows_every_canonical_name_whole_in_80_columns():
    result = runner.invoke(app, ["policies"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert max(len(line) for line in result.output.splitlines()) <= 80
    rows = [line.split("│")[1].strip() for line in result.output.splitlines() if line.startswith("│ ")]
    assert [name for name in rows if name] == list(policies())
    assert "…" not in result.output


def test_policies_shows_what_every_alias_resolves_to():
    output = runner.invoke(app, ["policies"], env={"COLUMNS": "80"}).output
    section = output.split("Other names, and the policy each resolves to:")[1].splitlines()
    listed = {line.split()[0]: line.split(None, 1)[1].strip().split(", ") for line in section if line.startswith("  ")}
    for alias, policy in aliases().items():
        assert alias in listed[policy], (alias, policy)
    assert "bfloat16" in listed["bf16-true"] and "bf16" in listed["bf16-mixed"]  # the trap, made visible
    assert "float16" in listed["16-true"] and "fp16" in listed["16-mixed"]


def test_a_name_given_prints_what_it_resolves_to_first():
    assert runner.invoke(app, ["policies", "bfloat16"]).output.splitlines()[0] == "bfloat16 -> bf16-true"
    assert runner.invoke(app, ["policies", "bf16"]).output.splitlines()[0] == "bf16 -> bf16-mixed"
    assert "->" not in runner.invoke(app, ["policies", "bf16-true"]).output


def test_policies_json_resolves_an_alias():
    result = runner.invoke(app, ["policies", "pure_bf16", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["policy"] == "bf16-true"
    assert (data["params"], data["compute"], data["output"], data["mode"]) == ("bf16", "bf16", "f32", "true")
    assert "*LayerNorm" in data["keep_fp32"]


def test_policies_json_lists_all_with_aliases():
    data = json.loads(runner.invoke(app, ["policies", "--json"]).output)
    assert [p["policy"] for p in data["policies"]][:2] == ["64-true", "32-true"]
    assert data["aliases"]["mixed_float16"] == "16-mixed"


def test_unknown_policy_is_one_line_and_exit_2():
    result = runner.invoke(app, ["policies", "bf16-mixd"])
    assert result.exit_code == 2
    assert "unknown precision 'bf16-mixd'" in result.output
    assert "Traceback" not in result.output


def test_policies_shows_the_fp8_policies_recipe_and_keep_out():
    table = runner.invoke(app, ["policies"], env={"COLUMNS": "160"})
    assert "fp8-mixed" in table.output and "fp8-rowwise-mixed" in table.output
    assert "bf16 + fp8 tensorwise" in table.output
    assert any(line.split() == ["fp8-mixed", "fp8"] for line in table.output.splitlines())
    data = json.loads(runner.invoke(app, ["policies", "fp8", "--json"]).output)
    assert (data["policy"], data["compute"], data["fp8"]) == ("fp8-mixed", "bf16", "tensorwise")
    assert data["fp8_keep_out"] == ["@first", "@last", "*Router", "*Gate"]
    assert json.loads(runner.invoke(app, ["policies", "bf16-mixed", "--json"]).output)["fp8"] is None
