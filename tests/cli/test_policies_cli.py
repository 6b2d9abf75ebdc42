"""``castwise policies``: table, JSON, and one-line errors."""

import json

from typer.testing import CliRunner

from castwise.cli import app

runner = CliRunner()


def test_policies_table_lists_every_canonical_name():
    result = runner.invoke(app, ["policies"])
    assert result.exit_code == 0
    for name in ("64-true", "32-true", "tf32", "16-mixed", "bf16-mixed", "16-true", "bf16-true"):
        assert name in result.output
    assert "amp_bf16 (bf16-mixed)" in result.output


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
    assert "bf16 + fp8 tensorwise" in table.output and "fp8 (fp8-mixed)" in table.output
    data = json.loads(runner.invoke(app, ["policies", "fp8", "--json"]).output)
    assert (data["policy"], data["compute"], data["fp8"]) == ("fp8-mixed", "bf16", "tensorwise")
    assert data["fp8_keep_out"] == ["@first", "@last", "*Router", "*Gate"]
    assert json.loads(runner.invoke(app, ["policies", "bf16-mixed", "--json"]).output)["fp8"] is None
