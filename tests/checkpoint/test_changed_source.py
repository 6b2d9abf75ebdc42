"""A source checkpoint changed while castwise reads it: truncated mid-convert (with a memory map
this died of SIGBUS), or overwritten in place at the same size (this wrote a torn output). Either
is one CheckpointError; nothing is published and no temporary is left behind."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

import castwise as cw
from castwise.checkpoint import CheckpointError


def _sources(folder: Path, kind: str) -> Path:
    state = {f"w{i}": torch.randn(64, 64, generator=torch.Generator().manual_seed(i)) for i in range(4)}
    if kind == "safetensors":
        save_file(state, folder / "in.safetensors")
        return folder / "in.safetensors"
    if kind == "torch":
        torch.save(state, folder / "in.bin")
        return folder / "in.bin"
    if kind == "legacy":
        torch.save(state, folder / "in.pt", _use_new_zipfile_serialization=False)
        return folder / "in.pt"
    if kind == "sharded":
        (folder / "in").mkdir()
        save_file({"w0": state["w0"], "w1": state["w1"]}, folder / "in" / "a.safetensors")
        save_file({"w2": state["w2"], "w3": state["w3"]}, folder / "in" / "b.safetensors")
        weight_map = {"w0": "a.safetensors", "w1": "a.safetensors", "w2": "b.safetensors", "w3": "b.safetensors"}
        (folder / "in" / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
        return folder / "in"
    import torch.distributed.checkpoint as dcp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save({"model": state}, checkpoint_id=folder / "in")
    return folder / "in"


def _data_file(source: Path) -> Path:
    if source.is_file():
        return source
    return sorted(p for p in source.iterdir() if p.suffix in (".safetensors", ".distcp"))[-1]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".castwise-" in p.name)


KINDS = ["safetensors", "torch", "legacy", "sharded", "dcp"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_source_truncated_mid_convert_is_a_clean_error_and_leaves_nothing(tmp_path, kind):
    source = _sources(tmp_path, kind)
    data = _data_file(source)
    destination = tmp_path / ("out" if source.is_dir() else "out.safetensors")

    def truncate(done: int, total: int) -> None:
        if done and data.stat().st_size > 100:
            os.truncate(data, 100)

    with pytest.raises(CheckpointError, match="changed|truncated|ended early|could not be read|not a readable"):
        cw.convert(source, destination, "bf16", progress=truncate, keep_fp32="none")
    assert not destination.exists() and _leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_source_overwritten_in_place_never_gives_a_torn_output(tmp_path, kind):
    source = _sources(tmp_path, kind)
    data = _data_file(source)
    destination = tmp_path / ("out" if source.is_dir() else "out.safetensors")
    original = data.read_bytes()

    def overwrite(done: int, total: int) -> None:
        if done and data.read_bytes() == original:  # same size, other bytes, from the middle on
            with open(data, "r+b") as file:
                file.seek(len(original) // 2)
                file.write(bytes(len(original) - len(original) // 2))

    with pytest.raises(CheckpointError, match="changed while castwise read it|not a readable|could not"):
        cw.convert(source, destination, "bf16", progress=overwrite, keep_fp32="none")
    assert not destination.exists() and _leftovers(tmp_path) == []


def test_load_refuses_a_file_changed_while_it_was_read(tmp_path, monkeypatch):
    from castwise.checkpoint import shards

    source = _sources(tmp_path, "safetensors")
    real_read = shards.SafetensorsReader.read

    def read_then_touch(self, name):
        tensor = real_read(self, name)
        os.utime(source, ns=(1, 1))  # what a copy or download in progress does to the file
        return tensor

    monkeypatch.setattr(shards.SafetensorsReader, "read", read_then_touch)
    with pytest.raises(CheckpointError, match="in.safetensors changed while castwise read it"):
        cw.load(source)
