"""``castwise explain``: a log from a file or stdin, readable or JSON, and its exit statuses."""

import json

from typer.testing import CliRunner

from castwise.cli import app

runner = CliRunner()

LOG = (
    "[rank0]: Traceback (most recent call last):\n"
    '[rank0]:   File "train.py", line 12, in step\n'
    "[rank0]:     loss = model(x)\n"
    "[rank0]: RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::BFloat16\n"
)


def test_a_log_file_is_explained_with_cause_culprit_and_fix(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(LOG)
    result = runner.invoke(app, ["explain", str(log)])
    assert result.exit_code == 0
    assert "kind: matmul_dtype (mixed_float, high confidence); op a matrix multiply" in result.output
    for label in ("error:", "cause:", "culprit:", "fix:"):
        assert label in result.output
    assert "f32 and bf16" in result.output


def test_stdin_is_read_when_no_file_is_given():
    result = runner.invoke(app, ["explain"], input=LOG)
    assert result.exit_code == 0 and "cause:" in result.output


def test_json_carries_everything_read():
    result = runner.invoke(app, ["explain", "--json"], input=LOG)
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["explained"] is True and data["kind"] == "matmul_dtype" and data["dtypes"] == ["f32", "bf16"]
    assert {"family", "confidence", "message", "cause", "culprit", "fix", "op", "device", "module"} <= set(data)


def test_an_unrecognised_log_exits_1_and_says_so_and_what_to_paste_instead():
    result = runner.invoke(app, ["explain"], input="Epoch 1: loss 0.3\nKeyError: 'labels'\n")
    assert result.exit_code == 1
    first, *rest = result.output.strip().splitlines()
    assert first == "castwise does not recognise a dtype or precision error in this text."
    assert "paste the whole log" in " ".join(rest) and "castwise doctor" in " ".join(rest)
    result = runner.invoke(app, ["explain", "--json"], input="nothing here\n")
    assert result.exit_code == 1 and json.loads(result.output) == {"explained": False}


def test_a_missing_file_is_one_clear_line_and_exit_2(tmp_path):
    for path in (tmp_path / "absent.log", tmp_path):
        result = runner.invoke(app, ["explain", str(path)])
        assert result.exit_code == 2
        assert result.output.startswith("error: cannot read") and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_text_from_the_log_is_printed_literally_never_as_markup(tmp_path):
    log = tmp_path / "markup.log"
    log.write_text("RuntimeError: Input type ([bold red]x[/]) and weight type (torch.HalfTensor) should be the same\n")
    result = runner.invoke(app, ["explain", str(log)])
    assert result.exit_code == 0 and "[bold red]x[/]" in result.output
