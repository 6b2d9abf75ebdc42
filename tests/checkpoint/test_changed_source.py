"""A source checkpoint changed while castwise reads it: truncated mid-convert (with a memory map
this died of SIGBUS), overwritten in place at the same size (this wrote a torn output), or (a
DeepSpeed ZeRO shard) replaced by another run's. Each is one CheckpointError; nothing is
published, no temporary is left behind, and castwise writes nothing into the source."""

from __future__ import annotations

import json
import os
import shutil
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


ZERO_SHARD = "bf16_zero_pp_rank_1_mp_rank_00_optim_states.pt"
"""Rank 1's fp32 partitions in the ZeRO-3 case: read in the middle of every parameter."""


def _zero_copy(zero: Path, tmp_path: Path) -> tuple[Path, Path]:
    case = Path(shutil.copytree(zero / "stage3-bf16", tmp_path / "ckpt"))
    return case, case / "global_step2" / ZERO_SHARD


def _changes(case: Path) -> dict[str, bytes]:
    return {str(p.relative_to(case)): p.read_bytes() for p in sorted(case.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("change", ["truncated", "overwritten", "replaced"])
def test_a_zero_shard_changed_mid_convert_is_a_clean_error_and_leaves_nothing(zero, tmp_path, change):
    case, shard = _zero_copy(zero, tmp_path)
    other = zero / "llama-stage3-bf16" / "global_step2" / ZERO_SHARD  # another run's shard for rank 1
    changed: dict[str, bytes] = {}

    def change_once(done: int, total: int) -> None:
        if not done or changed:
            return
        if change == "truncated":  # a memory map of it would have died of SIGBUS
            os.truncate(shard, 100)
        elif change == "overwritten":  # same size, other bytes, from the middle on
            size = shard.stat().st_size
            with open(shard, "r+b") as file:
                file.seek(size // 2)
                file.write(bytes(size - size // 2))
        else:  # another run's shard moved into its place
            shutil.copy(other, tmp_path / "incoming")
            os.replace(tmp_path / "incoming", shard)
        changed.update(_changes(case))

    with pytest.raises(CheckpointError, match="changed while castwise read it|ended early"):
        cw.convert(case, tmp_path / "out", "bf16", progress=change_once)
    assert changed and not (tmp_path / "out").exists() and _leftovers(tmp_path) == []
    assert _changes(case) == changed  # castwise wrote nothing into the source


def test_zero_shards_replaced_between_inspect_and_convert_are_read_as_they_are_now(zero, tmp_path):
    case, shard = _zero_copy(zero, tmp_path)
    assert cw.inspect(case).zero["module_dtype"] == "bfloat16"
    shutil.copy(zero / "llama-stage3-bf16" / "global_step2" / ZERO_SHARD, shard)  # rank 1 of another run
    before = _changes(case)
    with pytest.raises(CheckpointError, match="different runs|do not match"):
        cw.convert(case, tmp_path / "out", "bf16")
    assert not (tmp_path / "out").exists() and _leftovers(tmp_path) == [] and _changes(case) == before
    shutil.rmtree(case / "global_step2")  # the whole tag saved again by a run in fp16
    shutil.copytree(zero / "stage3-fp16" / "global_step2", case / "global_step2")
    cw.convert(case, tmp_path / "out", "fp32")
    reference = torch.load(zero / "stage3-fp16-reference" / "pytorch_model.bin", weights_only=True)
    assert cw.inspect(case).zero["module_dtype"] == "float16"
    written = cw.load(tmp_path / "out")
    assert written.keys() == reference.keys() - {"head.weight"}  # the tied head written once, as its embedding
    assert all(torch.equal(t, reference[n]) for n, t in written.items())
