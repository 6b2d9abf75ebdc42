"""torch.distributed.checkpoint folders: real ``dcp.save`` output (one process and two FSDP2
ranks) inspected from ``.metadata`` alone and converted to Hugging Face safetensors folders."""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch
import torch.distributed.checkpoint as dcp
from torch import nn
from typer.testing import CliRunner

import castwise as cw
from castwise.checkpoint import CheckpointError
from castwise.cli import app

from .fuzz_oracle import sentinel_buffers
from .helpers import RunsCommand

WORKER = Path(__file__).with_name("dcp_worker.py")
TORCHRUN = Path(sys.executable).with_name("torchrun")


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(11, 6)
        self.proj = nn.Linear(6, 5)
        self.norm = nn.LayerNorm(5)
        self.register_buffer("position_ids", torch.arange(7))


def _model() -> Tiny:
    torch.manual_seed(0)
    model = Tiny()
    model.proj.to(torch.bfloat16)
    return model


def _save(folder: Path, state: dict) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no process group: assuming a single process"
        dcp.save(state, checkpoint_id=folder)
    return folder


@pytest.fixture
def single(tmp_path) -> tuple[Path, dict[str, torch.Tensor]]:
    """A one-process DCP save of a model (bf16, fp32 and int64 tensors) and its Adam state."""
    model = _model()
    optimizer = torch.optim.Adam(model.parameters())
    for parameter in model.parameters():
        parameter.grad = torch.ones_like(parameter)
    optimizer.step()
    state = model.state_dict()
    _save(tmp_path / "ckpt", {"model": state, "optim": optimizer.state_dict(), "epoch": 3})
    (tmp_path / "ckpt" / "config.json").write_text(json.dumps({"model_type": "tiny", "torch_dtype": "float32"}))
    return tmp_path / "ckpt", state


def _digest(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_inspect_reads_every_dtype_and_shape_from_the_metadata_alone(single):
    folder, state = single
    for data in folder.glob("*.distcp"):
        data.unlink()  # no tensor data is read: inspect works without the data files
    info = cw.inspect(folder)
    assert info.format == "dcp"
    dtypes = info.dtypes()
    assert {n: dtypes[f"model.{n}"] for n in state} == {
        n: str(t.dtype).removeprefix("torch.") for n, t in state.items()
    }
    assert {t.name: t.shape for t in info.tensors if t.name.startswith("model.")} == {
        f"model.{n}": tuple(t.shape) for n, t in state.items()
    }
    assert dtypes["optim.state.0.exp_avg"] == "float32"
    assert info.findings[0].startswith("torch.distributed.checkpoint folder, state groups: model (6 tensors")
    assert "optim (" in info.findings[0] and "writes 6 tensors by default" in info.findings[0]
    assert any("non-tensor entries" in f and "epoch" in f for f in info.findings)
    done = CliRunner().invoke(app, ["inspect", str(folder), "--json"])
    assert done.exit_code == 0 and json.loads(done.output)["format"] == "dcp"


def test_convert_writes_the_model_group_as_a_hf_folder(single):
    folder, state = single
    before = _digest(folder)
    out = folder.parent / "hf"
    result = cw.convert(folder, out, "bf16")
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors"]
    assert result.tensors == 6
    loaded = cw.load(out)
    assert set(loaded) == set(state)
    assert loaded["norm.weight"].dtype == torch.float32 and torch.equal(loaded["norm.weight"], state["norm.weight"])
    assert torch.equal(loaded["proj.weight"], state["proj.weight"])  # bf16 already: bitwise
    assert torch.equal(loaded["embed.weight"], state["embed.weight"].bfloat16())
    assert torch.equal(loaded["position_ids"], state["position_ids"])
    assert json.loads((out / "config.json").read_text())["torch_dtype"] == "bfloat16"
    assert _digest(folder) == before
    assert {n: t for n, t in cw.load(folder).items()}.keys() == state.keys()  # cw.load reads the model group too


def test_key_picks_another_group_and_shards_split_by_size(single):
    folder, _ = single
    out = folder.parent / "optim"
    cw.convert(folder, out, "f32", key="optim", max_shard_size="300B")
    index = json.loads((out / "model.safetensors.index.json").read_text())
    shards = sorted(p.name for p in out.glob("*.safetensors"))
    assert len(shards) > 1 and set(index["weight_map"].values()) == set(shards)
    assert "state.0.exp_avg" in index["weight_map"] and index["metadata"]["total_size"] > 0
    with pytest.raises(CheckpointError, match=r"no tensors under key 'optimizer'.*groups: model, optim"):
        cw.convert(folder, folder.parent / "x", "bf16", key="optimizer")
    with pytest.raises(CheckpointError, match="state group of a DCP folder"):
        cw.convert(out / shards[0], folder.parent / "y.safetensors", "bf16", key="model")
    assert not (folder.parent / "x").exists() and not (folder.parent / "y.safetensors").exists()


def test_a_given_config_and_a_single_file_output(single, tmp_path):
    folder, state = single
    config = tmp_path / "other_config.json"
    config.write_text(json.dumps({"model_type": "tiny", "dtype": "float32", "hidden": 6}))
    cw.convert(folder, tmp_path / "hf", "f16", config=config)
    assert json.loads((tmp_path / "hf" / "config.json").read_text()) == {
        "model_type": "tiny",
        "dtype": "float16",
        "hidden": 6,
    }
    cw.convert(folder, tmp_path / "one.safetensors", "bf16")
    assert cw.load(tmp_path / "one.safetensors").keys() == state.keys()


def test_state_without_a_model_group_keeps_all_but_optimizer_state(tmp_path):
    weight = torch.randn(4, 3)
    _save(tmp_path / "ckpt", {"encoder.weight": weight, "optimizer.exp_avg": torch.zeros(4, 3)})
    cw.convert(tmp_path / "ckpt", tmp_path / "out.safetensors", "f32")
    assert list(cw.load(tmp_path / "out.safetensors")) == ["encoder.weight"]


@pytest.mark.parametrize("where", ["top", "inside metadata"])
def test_a_metadata_pickle_that_would_run_code_is_refused(single, tmp_path, where):
    folder, _ = single
    marker = tmp_path / "pwned"
    if where == "top":
        payload = RunsCommand(marker)
    else:
        from torch.distributed.checkpoint.filesystem import FileSystemReader

        payload = FileSystemReader(folder).read_metadata()
        payload.planner_data = RunsCommand(marker)
    (folder / ".metadata").write_bytes(pickle.dumps(payload))
    before = _digest(folder)
    for call in (
        lambda: cw.inspect(folder),
        lambda: cw.convert(folder, tmp_path / "out", "bf16"),
        lambda: cw.load(folder),
    ):
        with pytest.raises(CheckpointError, match=r"refused: global 'posix.system' is not part of DCP metadata"):
            call()
    done = CliRunner().invoke(app, ["inspect", str(folder)])
    assert done.exit_code == 2 and "refused" in done.output and "Traceback" not in done.output
    assert not marker.exists() and not (tmp_path / "out").exists() and _digest(folder) == before


def test_oversized_or_corrupt_metadata_is_a_clear_error(single, monkeypatch):
    from castwise.checkpoint import dcp as dcp_module

    folder, _ = single
    monkeypatch.setattr(dcp_module, "MAX_METADATA_BYTES", 100)
    with pytest.raises(CheckpointError, match="exceeds the 100-byte bound"):
        cw.inspect(folder)
    monkeypatch.undo()
    (folder / ".metadata").write_bytes((folder / ".metadata").read_bytes()[:200])
    with pytest.raises(CheckpointError, match="not readable as DCP metadata|truncated"):
        cw.inspect(folder)


@pytest.mark.parametrize("damage", ["properties", "storage key", "chunk outside"])
def test_malformed_metadata_fields_are_clear_errors(single, damage):
    from torch.distributed.checkpoint.filesystem import FileSystemReader

    folder, _ = single
    metadata = FileSystemReader(folder).read_metadata()
    entry = metadata.state_dict_metadata["model.proj.weight"]
    if damage == "properties":
        entry.properties = None
    elif damage == "storage key":
        metadata.storage_data = {"model.proj.weight": next(iter(metadata.storage_data.values()))}
    else:
        entry.chunks[0].offsets = torch.Size([4, 0])
    (folder / ".metadata").write_bytes(pickle.dumps(metadata))
    with pytest.raises(CheckpointError, match=r"malformed DCP metadata|lies outside|has no storage entry"):
        cw.inspect(folder)


def test_a_truncated_data_file_is_a_clear_error_and_writes_nothing(single, tmp_path):
    folder, _ = single
    data = next(folder.glob("*.distcp"))
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
    with pytest.raises(CheckpointError, match=r"the checkpoint is truncated or incomplete"):
        cw.convert(folder, tmp_path / "out", "bf16")
    done = CliRunner().invoke(app, ["convert", str(folder), str(tmp_path / "out"), "-d", "bf16"])
    assert done.exit_code == 2 and "truncated" in done.output and "Traceback" not in done.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt"]


def test_a_destination_inside_the_checkpoint_is_refused(single):
    folder, _ = single
    before = _digest(folder)
    with pytest.raises(CheckpointError, match="is the source or inside it"):
        cw.convert(folder, folder / "hf", "bf16")
    assert _digest(folder) == before


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_two_process_fsdp2_save_converts_to_the_gathered_state_dict(tmp_path):
    command = [
        str(TORCHRUN),
        "--nproc_per_node=2",
        f"--master_port={_free_port()}",
        "--master_addr=127.0.0.1",
        str(WORKER),
        "--out",
        str(tmp_path),
    ]
    done = subprocess.run(
        command, env=dict(os.environ, OMP_NUM_THREADS="1"), capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    full = torch.load(tmp_path / "full.pt", weights_only=True)
    info = cw.inspect(tmp_path / "dcp")
    assert {t.file for t in info.tensors if t.name.startswith("model.")} == {"__0_0.distcp+__1_0.distcp"}
    cw.convert(tmp_path / "dcp", tmp_path / "f32", "f32", keep_fp32="none")
    cw.convert(tmp_path / "dcp", tmp_path / "bf16", "bf16")
    as_f32, as_bf16 = cw.load(tmp_path / "f32"), cw.load(tmp_path / "bf16")
    assert as_f32.keys() == full.keys() == as_bf16.keys()
    for name, tensor in full.items():
        assert torch.equal(as_f32[name], tensor.float()), name  # every value exact: no cast loses anything
        expected = tensor if name.startswith("norm.") else tensor.bfloat16()  # the LayerNorm stays fp32
        assert as_bf16[name].dtype == expected.dtype and torch.equal(as_bf16[name], expected), name


def _rechunk(folder: Path, name: str, shape: tuple[int, ...], pieces: list[tuple[tuple[int, ...], torch.Tensor]]) -> None:
    """Make ``name`` a float32 tensor of ``shape`` stored as ``pieces`` (offsets, values), each a
    ``torch.save`` record appended to a new data file, and rewrite ``.metadata`` to say so."""
    import io

    from torch.distributed.checkpoint.filesystem import FileSystemReader, _StorageInfo
    from torch.distributed.checkpoint.metadata import ChunkStorageMetadata, MetadataIndex

    metadata = FileSystemReader(folder).read_metadata()
    entry = metadata.state_dict_metadata[name]
    entry.size, entry.properties.dtype, entry.chunks = torch.Size(shape), torch.float32, []
    metadata.storage_data = {k: v for k, v in metadata.storage_data.items() if k.fqn != name}
    data = bytearray()
    for offsets, values in pieces:
        record = io.BytesIO()
        torch.save(values, record)
        entry.chunks.append(ChunkStorageMetadata(torch.Size(offsets), values.shape))
        index = MetadataIndex(name, torch.Size(offsets))
        metadata.storage_data[index] = _StorageInfo("__9_0.distcp", len(data), len(record.getvalue()))
        data += record.getvalue()
    (folder / "__9_0.distcp").write_bytes(bytes(data))
    (folder / ".metadata").write_bytes(pickle.dumps(metadata))


def test_a_tensor_in_a_2d_grid_of_chunks_reads_back_with_every_element_written(single, tmp_path):
    folder, _ = single
    full = torch.arange(42.0).reshape(6, 7)
    grid = [((r, c), full[r : r + h, c : c + w]) for r, h in ((0, 4), (4, 2)) for c, w in ((0, 3), (3, 4))]
    _rechunk(folder, "model.embed.weight", (6, 7), grid)
    with sentinel_buffers():  # an element never written would hold the sentinel
        assert torch.equal(cw.load(folder)["embed.weight"], full)
        cw.convert(folder, tmp_path / "out.safetensors", "f32")
    assert torch.equal(cw.load(tmp_path / "out.safetensors")["embed.weight"], full)


@pytest.mark.parametrize(
    ("pieces", "reason"),
    [
        # 16 elements of 16, but row 1 twice and row 3 never: read, it held uninitialised memory
        ([((0, 0), torch.ones(2, 4)), ((1, 0), torch.ones(2, 4))], r"chunks at \[0, 0\] and \[1, 0\] overlap"),
        ([((0, 0), torch.ones(3, 4)), ((2, 0), torch.ones(2, 4))], "do not cover"),
        ([((0, 0), torch.ones(2, 4))], "do not cover"),
        ([((0, 0), torch.ones(4, 4)), ((4, 0), torch.ones(0, 4))], None),  # an empty chunk beside is harmless
    ],
    ids=["hole-and-overlap", "overlap-past-the-volume", "half", "empty-chunk"],
)
def test_chunks_that_overlap_or_leave_holes_are_refused_naming_the_tensor(single, tmp_path, pieces, reason):
    folder, _ = single
    _rechunk(folder, "model.embed.weight", (4, 4), pieces)
    if reason is None:
        assert torch.equal(cw.load(folder)["embed.weight"], torch.ones(4, 4))
        return
    for action in (cw.inspect, cw.load, lambda f: cw.convert(f, tmp_path / "out", "bf16")):
        with pytest.raises(CheckpointError, match=f"tensor 'model.embed.weight': .*{reason}"):
            action(folder)
    assert not (tmp_path / "out").exists()


def _restore(folder: Path, change) -> None:
    from torch.distributed.checkpoint.filesystem import FileSystemReader

    metadata = FileSystemReader(folder).read_metadata()
    change(metadata)
    (folder / ".metadata").write_bytes(pickle.dumps(metadata))


def _storage_of(metadata, name: str):
    return next(info for index, info in metadata.storage_data.items() if index.fqn == name)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("metadata file", r"tensor 'model.proj.weight': data file '.metadata' is not a DCP data file"),
        ("other file", r"tensor 'model.proj.weight': data file 'config.json' is not a DCP data file"),
        ("short storage", r"tensor 'model.proj.weight': chunk at \[0, 0\] of size \[5, 6\] needs 60 bytes but its "),
        ("shared bytes", "tensors 'model.(embed|proj).weight' and 'model.(embed|proj).weight' are stored in the same"),
        ("huge shape", r"shape \[0, 1180591620717411303424\] is too large for torch"),
    ],
)
def test_storage_entries_that_cannot_hold_their_chunk_are_refused(single, tmp_path, damage, reason):
    folder, _ = single

    def change(metadata):
        info = _storage_of(metadata, "model.proj.weight")
        if damage == "metadata file":
            info.relative_path = ".metadata"
        elif damage == "other file":
            info.relative_path = "config.json"
        elif damage == "short storage":
            info.length = 59
        elif damage == "shared bytes":
            embed = _storage_of(metadata, "model.embed.weight")
            info.relative_path, info.offset = embed.relative_path, embed.offset
        else:
            entry = metadata.state_dict_metadata["model.proj.weight"]
            entry.size = torch.Size([0, 2**70])
            entry.chunks[0].sizes = torch.Size([0, 2**70])

    _restore(folder, change)
    for action in (cw.inspect, cw.load, lambda f: cw.convert(f, tmp_path / "out", "bf16")):
        with pytest.raises(CheckpointError, match=reason):
            action(folder)
    assert not (tmp_path / "out").exists()


def test_a_data_file_that_links_out_of_the_folder_is_refused(single, tmp_path):
    folder, _ = single
    data = next(folder.glob("*.distcp"))
    (tmp_path / "elsewhere.distcp").write_bytes(data.read_bytes())
    data.unlink()
    data.symlink_to(tmp_path / "elsewhere.distcp")
    assert cw.inspect(folder).format == "dcp"  # the metadata alone: no data file opened
    with pytest.raises(CheckpointError, match=rf"data file '{data.name}': .* is a link to .*elsewhere.distcp, outside"):
        cw.load(folder)


def test_metadata_without_its_state_dict_entries_is_a_clear_error(single):
    from torch.distributed.checkpoint.filesystem import FileSystemReader

    folder, _ = single
    metadata = FileSystemReader(folder).read_metadata()
    del metadata.state_dict_metadata  # what a flipped byte in the pickled field name gives
    (folder / ".metadata").write_bytes(pickle.dumps(metadata))
    with pytest.raises(CheckpointError, match=r"DCP Metadata without its entries \(state_dict_metadata\)"):
        cw.inspect(folder)
