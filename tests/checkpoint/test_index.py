"""Sharded indexes a careless or hostile hand wrote: names the file system refuses, a tensor in two
shards, shards that are links out of the folder. Each is one clear error naming the entry."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file
from typer.testing import CliRunner

import castwise as cw
from castwise.checkpoint import CheckpointError
from castwise.cli import app


def _sharded(folder: Path, shards: dict[str, dict[str, torch.Tensor]], weight_map: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, tensors in shards.items():
        save_file(tensors, folder / name)
    if weight_map is None:
        weight_map = {t: name for name, tensors in shards.items() for t in tensors}
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    return folder


def _refused_everywhere(folder: Path, tmp_path: Path, reason: str) -> None:
    for action in (cw.inspect, cw.load, lambda f: cw.convert(f, tmp_path / "out", "bf16")):
        with pytest.raises(CheckpointError, match=reason):
            action(folder)
    for command in (["inspect", str(folder)], ["convert", str(folder), str(tmp_path / "out"), "-d", "bf16"]):
        done = CliRunner().invoke(app, command)
        assert done.exit_code == 2 and "Traceback" not in done.output, done.output
    assert not (tmp_path / "out").exists()


def test_a_shard_name_too_long_for_the_file_system_names_the_entry(tmp_path):
    long = "x" * 300 + ".safetensors"
    folder = _sharded(tmp_path / "m", {"a.safetensors": {"w": torch.ones(2)}}, {"w": "a.safetensors", "v": long})
    _refused_everywhere(folder, tmp_path, rf"names shard '{long}' \(1 tensors\): .* cannot be read \(File name too long\)")
    with pytest.raises(CheckpointError, match="cannot be read"):
        cw.inspect(tmp_path / ("y" * 300 + ".safetensors"))


def test_a_tensor_in_two_shards_is_refused_naming_both(tmp_path):
    shards = {"a.safetensors": {"w": torch.ones(2), "u": torch.ones(1)}, "b.safetensors": {"w": torch.zeros(2)}}
    folder = _sharded(tmp_path / "m", shards, {"w": "b.safetensors", "u": "a.safetensors"})
    _refused_everywhere(folder, tmp_path, r"tensor 'w' is stored in both .*a.safetensors and .*b.safetensors")


def test_a_shard_that_links_out_of_the_folder_is_refused(tmp_path):
    save_file({"w": torch.ones(2)}, tmp_path / "outside.safetensors")
    folder = _sharded(tmp_path / "m", {"a.safetensors": {"u": torch.ones(1)}}, {"u": "a.safetensors", "w": "b.safetensors"})
    (folder / "b.safetensors").symlink_to(tmp_path / "outside.safetensors")
    _refused_everywhere(folder, tmp_path, r"b.safetensors is a link to .*outside.safetensors, outside")


def test_hub_cache_snapshots_may_link_into_their_blobs(tmp_path):
    repo = tmp_path / "models--org--tiny"
    (repo / "blobs").mkdir(parents=True)
    save_file({"w": torch.arange(3.0)}, repo / "blobs" / "0123abcd")
    save_file({"u": torch.ones(1)}, repo / "blobs" / "4567ef01")
    snapshot = repo / "snapshots" / "f00d"
    snapshot.mkdir(parents=True)
    os.symlink("../../blobs/0123abcd", snapshot / "model-00001-of-00002.safetensors")
    os.symlink("../../blobs/4567ef01", snapshot / "model-00002-of-00002.safetensors")
    weight_map = {"w": "model-00001-of-00002.safetensors", "u": "model-00002-of-00002.safetensors"}
    (snapshot / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    assert torch.equal(cw.load(snapshot)["w"], torch.arange(3.0))
