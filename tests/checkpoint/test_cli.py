"""castwise inspect / convert on the command line: tables, JSON, and one-line errors."""

from __future__ import annotations

import json

import torch
from safetensors.torch import save_file
from typer.testing import CliRunner

import castwise as cw
from castwise.cli import app

from .helpers import sample_state, write_safetensors

runner = CliRunner()


def _ok(*args: str):
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result


def _fails(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_inspect_table_and_findings(minilm):
    out = _ok("inspect", str(minilm)).stdout
    assert "104 tensors" in out and "22,713,728 parameters" in out
    assert "float32" in out and "int64" in out and "100.0%" in out
    assert "transformers 5 would load as: float32" in out
    assert "declared dtype (config.json): -" in out


def test_inspect_json_with_tensors(tiny_bert):
    document = json.loads(_ok("inspect", str(tiny_bert["sharded"]), "--json", "--tensors").stdout)
    assert document["format"] == "safetensors" and len(document["files"]) == 3
    assert document["declared_dtype"] == "bfloat16" and document["transformers_dtype"] == "bfloat16"
    assert set(document["by_dtype"]) == {"bfloat16"}
    word = next(t for t in document["tensors"] if t["name"] == "embeddings.word_embeddings.weight")
    assert word == {
        "name": "embeddings.word_embeddings.weight",
        "dtype": "bfloat16",
        "shape": [100, 32],
        "bytes": 6400,
        "file": word["file"],
    }
    assert "tensors" not in json.loads(_ok("inspect", str(tiny_bert["single"]), "--json").stdout)


def test_inspect_lists_tensors(tiny_bert):
    out = _ok("inspect", str(tiny_bert["single"]), "--tensors").stdout
    assert "embeddings.word_embeddings.weight" in out and "100x32" in out


def test_convert_writes_and_reports(tmp_path):
    save_file(sample_state(), tmp_path / "in.safetensors")
    out = _ok(
        "convert",
        str(tmp_path / "in.safetensors"),
        str(tmp_path / "out.safetensors"),
        "--dtype",
        "bf16",
        "--keep-fp32",
        "*norm*",
        "--keep-fp32",
        "*bias",
    ).stdout
    assert "5 tensors (1 cast to bf16)" in out
    assert cw.inspect(tmp_path / "out.safetensors").dtypes() == {
        "encoder.linear.weight": "bfloat16",
        "encoder.linear.bias": "float32",
        "encoder.norm.weight": "float32",
        "embed.position_ids": "int64",
        "mask": "bool",
    }
    document = json.loads(
        _ok(
            "convert",
            str(tmp_path / "in.safetensors"),
            str(tmp_path / "out.safetensors"),
            "-d",
            "f16",
            "-k",
            "none",
            "--force",
            "--json",
        ).stdout
    )
    assert document["cast"] == 3 and document["tensors"] == 5
    assert document["bytes_written"] == sum(
        t.numel() * (2 if t.is_floating_point() else t.element_size()) for t in sample_state().values()
    )


def test_errors_are_one_line_and_exit_2(tmp_path):
    assert "no such file or folder" in _fails("inspect", str(tmp_path / "nope.safetensors"))
    bad = write_safetensors(tmp_path / "bad.safetensors", b"{broken")
    assert "not valid UTF-8 JSON" in _fails("inspect", str(bad))
    save_file({"w": torch.zeros(2)}, tmp_path / "in.safetensors")
    save_file({"w": torch.zeros(2)}, tmp_path / "out.safetensors")
    assert "already exists; pass --force" in _fails(
        "convert", str(tmp_path / "in.safetensors"), str(tmp_path / "out.safetensors"), "--dtype", "bf16"
    )
    assert "unknown dtype 'bf61'" in _fails(
        "convert", str(tmp_path / "in.safetensors"), str(tmp_path / "x.safetensors"), "--dtype", "bf61"
    )
    assert "convert writes safetensors" in _fails(
        "convert", str(tmp_path / "in.safetensors"), str(tmp_path / "x.pt"), "--dtype", "bf16"
    )


def test_tensor_names_print_literally_never_as_markup(tmp_path):
    names = ["[/x]", "[red]", "[bold red]loud[/]", "a\x1b[31mb", "new\nline"]
    save_file({name: torch.zeros(1) for name in names}, tmp_path / "names.safetensors")
    out = _ok("inspect", str(tmp_path / "names.safetensors"), "--tensors").stdout
    for name in ["[/x]", "[red]", "[bold red]loud[/]", "a\\x1b[31mb", "new\\nline"]:
        assert name in out
    assert "\x1b" not in out
    document = json.loads(_ok("inspect", str(tmp_path / "names.safetensors"), "--json", "--tensors").stdout)
    assert sorted(t["name"] for t in document["tensors"]) == sorted(names)
    converted = _ok(
        "convert", str(tmp_path / "names.safetensors"), str(tmp_path / "[red]out.safetensors"), "-d", "bf16"
    )
    assert "[red]out.safetensors: 5 tensors" in converted.stdout


def test_malformed_files_are_one_line_errors(tmp_path):
    cases = {
        '{"[/x]": {"dtype": ["F32"], "shape": [2], "data_offsets": [0, 8]}}': "tensor '[/x]': dtype must be a code string such as 'F32', got a list",
        '{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "x": '
        + "[" * 5000
        + "]" * 5000
        + "}": "nested 5,001 levels deep",
        '{"__metadata__": {"x": NaN}, "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}': "NaN is not a JSON value",
        '{"\\ud800": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}': "'\\ud800' holds a lone UTF-16 surrogate",
        '{"z": {"dtype": "F32", "shape": [1180591620717411303424, 0], "data_offsets": [0, 0]}}': "below 2**63",
    }
    for header, message in cases.items():
        path = write_safetensors(tmp_path / "bad.safetensors", header.encode(), b"\0" * 8 if "[2]" in header else b"")
        assert message in _fails("inspect", str(path))
        assert message in _fails("convert", str(path), str(tmp_path / "out.safetensors"), "-d", "bf16")
        assert not (tmp_path / "out.safetensors").exists()
    torch.save({"bad\udc80": torch.ones(2)}, tmp_path / "w.pt")
    assert "'bad\\udc80': the name is not valid Unicode text" in _fails(
        "convert", str(tmp_path / "w.pt"), str(tmp_path / "out.safetensors"), "-d", "bf16"
    )


def test_deep_config_and_index_are_one_line_errors(tiny_bert, tmp_path):
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(tiny_bert["sharded"], folder)
    index = folder / "model.safetensors.index.json"
    original = index.read_text()
    index.write_text('{"metadata": ' + "[" * 5000 + "]" * 5000 + ', "weight_map": {}}')
    assert "not a valid JSON index (nested 5,001 levels deep" in _fails("inspect", str(folder))
    index.write_text(original)
    (folder / "config.json").write_text('{"a": ' + "{" * 3000 + "}" * 3000 + "}")
    shown = runner.invoke(app, ["inspect", str(folder)])  # the weights are still inspected; the config is a finding
    assert shown.exit_code == 0 and "config.json ignored: " in shown.output and "nested 3,001 levels deep" in shown.output
    converting = _fails("convert", str(folder), str(tmp_path / "out"), "-d", "bf16")  # it cannot be rewritten
    assert "config.json: not valid JSON (nested 3,001 levels deep" in converting
