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
    assert word == {"name": "embeddings.word_embeddings.weight", "dtype": "bfloat16", "shape": [100, 32],
                    "bytes": 6400, "file": word["file"]}
    assert "tensors" not in json.loads(_ok("inspect", str(tiny_bert["single"]), "--json").stdout)


def test_inspect_lists_tensors(tiny_bert):
    out = _ok("inspect", str(tiny_bert["single"]), "--tensors").stdout
    assert "embeddings.word_embeddings.weight" in out and "100x32" in out


def test_convert_writes_and_reports(tmp_path):
    save_file(sample_state(), tmp_path / "in.safetensors")
    out = _ok("convert", str(tmp_path / "in.safetensors"), str(tmp_path / "out.safetensors"),
              "--dtype", "bf16", "--keep-fp32", "*norm*", "--keep-fp32", "*bias").stdout
    assert "5 tensors (1 cast to bf16)" in out
    assert cw.inspect(tmp_path / "out.safetensors").dtypes() == {
        "encoder.linear.weight": "bfloat16", "encoder.linear.bias": "float32", "encoder.norm.weight": "float32",
        "embed.position_ids": "int64", "mask": "bool",
    }
    document = json.loads(_ok("convert", str(tmp_path / "in.safetensors"), str(tmp_path / "out.safetensors"),
                              "-d", "f16", "-k", "none", "--force", "--json").stdout)
    assert document["cast"] == 3 and document["tensors"] == 5
    assert document["bytes_written"] == sum(
        t.numel() * (2 if t.is_floating_point() else t.element_size()) for t in sample_state().values())


def test_errors_are_one_line_and_exit_2(tmp_path):
    assert "no such file or folder" in _fails("inspect", str(tmp_path / "nope.safetensors"))
    bad = write_safetensors(tmp_path / "bad.safetensors", b"{broken")
    assert "not valid UTF-8 JSON" in _fails("inspect", str(bad))
    save_file({"w": torch.zeros(2)}, tmp_path / "in.safetensors")
    save_file({"w": torch.zeros(2)}, tmp_path / "out.safetensors")
    assert "already exists; pass --force" in _fails(
        "convert", str(tmp_path / "in.safetensors"), str(tmp_path / "out.safetensors"), "--dtype", "bf16")
    assert "unknown dtype 'bf61'" in _fails(
        "convert", str(tmp_path / "in.safetensors"), str(tmp_path / "x.safetensors"), "--dtype", "bf61")
    assert "convert writes safetensors" in _fails(
        "convert", str(tmp_path / "in.safetensors"), str(tmp_path / "x.pt"), "--dtype", "bf16")
