"""Pickle bombs (deep keys, self-multiplying memo reuse, huge memo indices) are refused before any
unpickler runs, in DCP metadata, torch zips and legacy torch files alike, by every entry point;
honest pickles of every protocol pass; a size larger than its storage is refused."""

from __future__ import annotations

import collections
import pickle
import warnings
import zipfile
from pathlib import Path

import pytest
import torch
from torch import nn
from typer.testing import CliRunner

import castwise as cw
from castwise.checkpoint import CheckpointError
from castwise.checkpoint.pickle_bounds import MAX_DEPTH, check_pickle
from castwise.cli import app

from .helpers import DEEP_TUPLE_KEY, LAUGHING_KEY, deep_list_size, fake_tensor_pickle, torch_zip_with_pickle

HONEST = [
    {"a": [1, 2, (3, 4)], "b": {"c": None}, "d": b"bytes", "e": 1.5, "f": 2**70, "g": bytearray(b"x")},
    collections.OrderedDict(a=1, b=[{}]),
    {i: str(i) for i in range(3000)},
    [list(range(5)) for _ in range(2000)],
    frozenset({1, 2, (3,)}),
    {("shared",) * 3: "x", "again": ("shared",) * 3},
]


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_honest_pickles_of_every_protocol_pass_and_end_where_they_end(protocol):
    for value in HONEST:
        raw = pickle.dumps(value, protocol=protocol)
        assert check_pickle(raw + b"trailing data", "x") == len(raw)


def test_real_torch_and_dcp_pickles_pass(tmp_path):
    import torch.distributed.checkpoint as dcp

    model = nn.Sequential(nn.Linear(4, 3), nn.LayerNorm(3))
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.ones(2, 4)).sum().backward()
    optimizer.step()
    state = {"model": model.state_dict(), "optim": optimizer.state_dict(), "epoch": 3}
    torch.save(state, tmp_path / "new.pt")
    with zipfile.ZipFile(tmp_path / "new.pt") as archive:
        data = next(archive.read(n) for n in archive.namelist() if n.endswith("/data.pkl"))
    assert check_pickle(data, "x") == len(data)
    torch.save(state["model"], tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    legacy, offset = (tmp_path / "legacy.pt").read_bytes(), 0
    for _ in range(5):  # magic, protocol, system info, the state dict, the storage keys
        offset = check_pickle(legacy, "x", offset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save(state, checkpoint_id=tmp_path / "dcp")
    metadata = (tmp_path / "dcp" / ".metadata").read_bytes()
    assert check_pickle(metadata, "x") == len(metadata)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (DEEP_TUPLE_KEY, f"more than {MAX_DEPTH} levels deep"),
        (LAUGHING_KEY, "reuses parts of itself"),
        (b"\x80\x02)r\xff\xff\xff\xff.", "stores memo entry 4,294,967,295 after only 3 opcodes"),
        (b"\x80\x02h\x05.", "memo entry 5, which was never stored"),
        (b"\x80\x02K\x01K\x02a.", "adds items to a number"),
        (b"\x80\x02]q\x00(h\x00tq\x01h\x00K\x01a.", "changes an object after placing it inside another"),
        (b"\x80\x02\xff.", "byte 0xff at offset 2 is not a pickle opcode"),
        (b"\x80\x02t.", "needs a MARK that was never set"),
        (b"\x80\x02\x86.", "needs more objects than the stack holds"),
        (b"\x80\x02T\xff\xff\xff\xff.", "a negative length"),
        (pickle.dumps({"a": 1})[:-4], "truncated"),
        (b"\x80\x02N", "without its STOP opcode"),
    ],
)
def test_bombs_and_malformed_pickles_are_refused(raw, reason):
    with pytest.raises(CheckpointError, match=reason):
        check_pickle(raw, "x.pt")


def _dcp_with_metadata(folder: Path, raw: bytes) -> Path:
    folder.mkdir()
    (folder / ".metadata").write_bytes(raw)
    return folder


@pytest.mark.parametrize("bomb", [DEEP_TUPLE_KEY, LAUGHING_KEY], ids=["deep", "laughing"])
@pytest.mark.parametrize("kind", ["dcp", "zip", "legacy"])
def test_every_entry_point_refuses_a_pickle_bomb(tmp_path, bomb, kind):
    if kind == "dcp":
        path = _dcp_with_metadata(tmp_path / "ckpt", bomb)
    elif kind == "zip":
        path = torch_zip_with_pickle(tmp_path / "model.pt", bomb)
    else:
        path = tmp_path / "model.pt"
        path.write_bytes(pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2) + bomb)
    reason = "levels deep" if bomb is DEEP_TUPLE_KEY else "reuses parts of itself"
    actions = [cw.inspect, cw.load, lambda p: cw.load_into(nn.Linear(2, 2), p)]
    actions.append(lambda p: cw.convert(p, tmp_path / "out", "bf16"))
    for action in actions:
        with pytest.raises(CheckpointError, match=reason):
            action(path)
    for command in (["inspect", str(path)], ["convert", str(path), str(tmp_path / "out"), "-d", "bf16"]):
        done = CliRunner().invoke(app, command)
        assert done.exit_code == 2 and reason in done.output and "Traceback" not in done.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_a_size_far_larger_than_its_storage_is_refused(tmp_path):
    path = torch_zip_with_pickle(tmp_path / "big.pt", fake_tensor_pickle((2**40,), (1,), 4))
    for action in (cw.inspect, cw.load):
        with pytest.raises(CheckpointError, match="claims 4,398,046,511,104 bytes but the file's record data/0 holds 16"):
            action(path)
    strided = torch_zip_with_pickle(tmp_path / "strided.pt", fake_tensor_pickle((2, 2), (3, 1), 4))
    with pytest.raises(CheckpointError, match="tensor 'w': its storage claims 20 bytes but the file's record data/0 holds 16"):
        cw.inspect(strided)


def test_a_storage_larger_than_its_record_is_refused(tmp_path):
    path = torch_zip_with_pickle(tmp_path / "big.pt", fake_tensor_pickle((4,), (1,), 2**30))
    with pytest.raises(CheckpointError, match="claims 4,294,967,296 bytes but the file's record data/0 holds 16"):
        cw.inspect(path)


def test_an_honest_handmade_tensor_pickle_reads_back(tmp_path):
    path = torch_zip_with_pickle(tmp_path / "ok.pt", fake_tensor_pickle((2, 2), (1, 2), 4))
    assert torch.equal(cw.load(path)["w"], torch.arange(4.0).reshape(2, 2).t())
    assert cw.inspect(path).tensors[0].shape == (2, 2)


def test_a_size_nested_100000_lists_deep_is_a_checkpoint_error(tmp_path):
    path = torch_zip_with_pickle(tmp_path / "deep.pt", deep_list_size(100_000))
    for action in (cw.inspect, cw.load):
        with pytest.raises(CheckpointError, match="levels deep"):
            action(path)


def test_a_legacy_file_whose_size_outgrows_the_file_is_refused_before_allocating(tmp_path):
    torch.save({"w": torch.arange(4.0)}, tmp_path / "ok.pt", _use_new_zipfile_serialization=False)
    raw = (tmp_path / "ok.pt").read_bytes()
    assert raw.count(b"K\x04\x85") == 1  # the size (4,) in the state dict's pickle
    huge = raw.replace(b"K\x04\x85", b"\x8a\x06" + (2**40).to_bytes(6, "little") + b"\x85")
    (tmp_path / "huge.pt").write_bytes(huge)
    for action in (cw.inspect, cw.load):  # torch alone would allocate 4 TiB for cw.load
        with pytest.raises(CheckpointError, match="its storages claim 4,398,046,511,104 bytes but the file holds"):
            action(tmp_path / "huge.pt")
    assert torch.equal(cw.load(tmp_path / "ok.pt")["w"], torch.arange(4.0))
    assert cw.inspect(tmp_path / "ok.pt").tensors[0].shape == (4,)
