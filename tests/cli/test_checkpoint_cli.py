"""``castwise convert`` and ``inspect``: the words they print, checks before work, quiet imports."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from rich.progress import Progress
from typer.testing import CliRunner

import castwise as cw
from castwise.checkpoint import CheckpointError
from castwise.cli import app
from castwise.cli.checkpoint import _ByteProgress

runner = CliRunner()


@pytest.fixture(scope="module")
def bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1-layer fp32 BERT folder (config.json: transformers builds its skeleton for the keep rule)."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=32)
    folder = tmp_path_factory.mktemp("bert") / "tiny"
    transformers.BertModel(config).save_pretrained(folder)
    return folder


def _convert(*args: str) -> object:
    return runner.invoke(app, ["convert", *args], env={"COLUMNS": "80"})


def test_a_dtype_is_echoed_by_its_canonical_name(bert: Path, tmp_path: Path) -> None:
    result = _convert(str(bert), str(tmp_path / "out"), "--dtype", "fp16 ")
    assert result.exit_code == 0, result.output
    assert "cast to f16)" in result.stdout and "fp16 " not in result.stdout


def test_f32_says_no_keep_rule_applied_instead_of_a_line_ending_in_a_colon(bert: Path, tmp_path: Path) -> None:
    result = _convert(str(bert), str(tmp_path / "out"), "--dtype", "f32")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "no keep-fp32 rule applied: f32 narrows no tensor"
    assert not any(line.rstrip().endswith(":") for line in result.stdout.splitlines())
    assert cw.convert(bert, tmp_path / "lib", dtype="f32").keep_rule == ""


def test_keep_none_says_nothing_is_kept(bert: Path, tmp_path: Path) -> None:
    result = _convert(str(bert), str(tmp_path / "out"), "--dtype", "bf16", "-k", "none")
    assert result.exit_code == 0 and result.stdout.splitlines()[-1] == "nothing kept fp32 (--keep-fp32 none)"


def test_a_keep_glob_that_matches_no_tensor_is_refused_and_nothing_written(bert: Path, tmp_path: Path) -> None:
    result = _convert(str(bert), str(tmp_path / "out"), "--dtype", "bf16", "-k", "*nothing*", "-k", "*LayerNorm*")
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "--keep-fp32 (keep_fp32) '*nothing*' matches no tensor (its names look like 'embeddings." in result.stderr
    assert "'*LayerNorm*'" not in result.stderr and not (tmp_path / "out").exists()
    with pytest.raises(CheckpointError, match="'\\*nothing\\*' matches no tensor"):
        cw.convert(bert, tmp_path / "lib", dtype="bf16", keep_fp32=["*nothing*"])
    assert list(tmp_path.iterdir()) == []
    assert _convert(str(bert), str(tmp_path / "f32"), "--dtype", "f32", "-k", "*nothing*").exit_code == 0


@pytest.mark.parametrize("destination", ["out.safetensors", "out"])
def test_max_shard_size_on_one_file_says_to_drop_it_whatever_the_destination(tmp_path: Path, destination: str) -> None:
    source = tmp_path / "one.safetensors"
    cw.save({"proj.weight": torch.ones(4, 4)}, source)
    result = _convert(str(source), str(tmp_path / destination), "--dtype", "bf16", "--max-shard-size", "1KB")
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "--max-shard-size (max_shard_size) splits a folder's output, and one file converts to one file: drop it" \
        in result.stderr
    with pytest.raises(CheckpointError, match="one file converts to one file: drop it"):
        cw.convert(source, tmp_path / destination, "bf16", max_shard_size="1KB")
    assert [p.name for p in tmp_path.iterdir()] == ["one.safetensors"]


@pytest.mark.parametrize("destination, says", [
    ("a_file/out", "a_file is not a folder"),
    ("/proc/castwise-out.safetensors", "cannot write there"),
])
def test_a_destination_that_cannot_be_written_is_refused_first(
        bert: Path, tmp_path: Path, destination: str, says: str) -> None:
    (tmp_path / "a_file").write_text("")
    where = destination if destination.startswith("/") else str(tmp_path / destination)
    result = _convert(str(bert), where, "--dtype", "bf16")
    assert result.exit_code == 2 and says in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("content, says", [
    (b"this is a text file\n", "not a torch checkpoint: it starts with b'this is a text file\\n'"),
    (b"", "not a torch checkpoint: it is empty"),
    (b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n", "is a Git LFS pointer, not the weights"),
])
def test_a_bin_that_is_not_a_pickle_is_not_called_one(content: bytes, says: str, tmp_path: Path) -> None:
    (tmp_path / "pytorch_model.bin").write_bytes(content)
    result = runner.invoke(app, ["inspect", str(tmp_path / "pytorch_model.bin")])
    assert result.exit_code == 2 and says in result.stderr
    assert "would run code" not in result.stderr


def test_inspect_tensors_shows_long_names_whole_in_80_columns(tmp_path: Path) -> None:
    prefix = "model.encoder.layers.11.self_attention.output_projection.lora_adapter"
    cw.save({f"{prefix}.weight_a": torch.zeros(2, 2), f"{prefix}.weight_b": torch.zeros(2)}, tmp_path / "m.safetensors")
    result = runner.invoke(app, ["inspect", str(tmp_path / "m.safetensors"), "--tensors"], env={"COLUMNS": "80"})
    lines = result.stdout.splitlines()
    assert any(line.endswith(f"  {prefix}.weight_a") for line in lines)
    assert any(line.endswith(f"  {prefix}.weight_b") for line in lines)
    assert "…" not in result.stdout


def test_the_progress_bar_counts_the_units_of_the_summary() -> None:
    progress = _ByteProgress(enabled=False)
    bar: Progress = progress._bar
    task = bar.tasks[0]
    bar.update(task.id, completed=3 * 2**30, total=6 * 2**30)
    shown = " ".join(str(column.render(task)) for column in bar.columns if not isinstance(column, str))
    assert "3.0/6.0 GiB" in shown and " GB" not in shown


@pytest.mark.parametrize("name, noise, kept", [
    ("torchao", "Failed to load /site-packages/torchao/_C_mxfp8.cpython-310-x86_64-linux-gnu.so: nope",
     "Failed to load the float8 config"),
    ("DeepSpeed", "Setting accelerator to CPU. If you have GPU or other accelerator, we were unable to detect it.",
     "Setting accelerator to cuda"),
])
def test_optional_libraries_import_noise_is_silenced_and_nothing_else(name: str, noise: str, kept: str) -> None:
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    try:
        for message in (noise, kept, "something else"):
            logger.warning(message)
    finally:
        logger.removeHandler(handler)
    assert records == [kept, "something else"]


def test_a_bf16_convert_that_builds_a_skeleton_prints_no_torchao_noise(bert: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "castwise", "convert", str(bert), str(tmp_path / "out"),
                           "--dtype", "bf16"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Failed to load" not in done.stderr and "is an Enum subclass" not in done.stderr
    assert "kept fp32 by module classes from the transformers skeleton of BertModel" in done.stdout
