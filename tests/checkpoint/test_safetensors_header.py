"""The strict header parser: every malformed file is refused with a clear CheckpointError."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file, save_file

import castwise as cw
from castwise.checkpoint import CheckpointError
from castwise.checkpoint.safetensors_header import MAX_HEADER_BYTES, read_header

from .helpers import write_safetensors

F32x2 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


def test_reads_a_file_written_by_the_reference_library(tmp_path):
    tensors = {"b": torch.ones(2, 3, dtype=torch.bfloat16), "a": torch.arange(4), "z": torch.zeros(0)}
    save_file(tensors, tmp_path / "ref.safetensors", metadata={"k": "v"})
    header = read_header(tmp_path / "ref.safetensors")
    found = {e.name: (e.dtype, e.shape, e.nbytes) for e in header.entries}
    assert found == {"b": (torch.bfloat16, (2, 3), 12), "a": (torch.int64, (4,), 32), "z": (torch.float32, (0,), 0)}
    assert header.metadata == {"k": "v"}
    assert cw.load(tmp_path / "ref.safetensors")["b"].equal(tensors["b"])


def test_files_castwise_writes_are_read_by_the_reference_library(tmp_path):
    state = {"w": torch.randn(3, 5), "i": torch.arange(7, dtype=torch.int32), "s": torch.tensor(2.5)}
    cw.save(state, tmp_path / "out.safetensors")
    loaded = load_file(tmp_path / "out.safetensors")
    assert set(loaded) == set(state) and all(loaded[k].equal(v) for k, v in state.items())
    assert read_header(tmp_path / "out.safetensors").data_start % 8 == 0


BAD_HEADERS = {
    "overlap": ({"a": F32x2, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, 12, "overlap"),
    "hole": ({"a": F32x2, "b": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}}, 16, "hole of 4 bytes"),
    "past_end": ({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, 8, "runs past the end"),
    "trailing": ({"a": F32x2}, 12, "4 bytes after the last tensor"),
    "unknown_dtype": ({"a": {"dtype": "F128", "shape": [2], "data_offsets": [0, 8]}}, 8, "unknown dtype code 'F128'"),
    "shape_bytes": ({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, 8, "needs 12 bytes but its offsets span 8"),
    "metadata_int": ({"__metadata__": {"step": 3}, "a": F32x2}, 8, "'step' holds a number"),
    "metadata_list": ({"__metadata__": ["x"], "a": F32x2}, 8, "must be an object of strings"),
    "negative_shape": ({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, 8, "non-negative integers"),
    "reversed_offsets": ({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}}, 8, "begin <= end"),
    "missing_keys": ({"a": {"dtype": "F32", "shape": [2]}}, 8, "dtype, shape and data_offsets"),
}


@pytest.mark.parametrize("case", sorted(BAD_HEADERS))
def test_malformed_headers_are_refused(tmp_path, case):
    header, data_size, message = BAD_HEADERS[case]
    path = write_safetensors(tmp_path / "bad.safetensors", header, b"\0" * data_size)
    with pytest.raises(CheckpointError, match=message):
        cw.inspect(path)
    with pytest.raises(CheckpointError):
        cw.load(path)


def test_truncated_file_is_refused(tmp_path):
    good = tmp_path / "good.safetensors"
    save_file({"w": torch.randn(64)}, good)
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(good.read_bytes()[:-10])
    with pytest.raises(CheckpointError, match="runs past the end of the file.*truncated"):
        cw.inspect(cut)
    (tmp_path / "tiny.safetensors").write_bytes(b"\x01\x02")
    with pytest.raises(CheckpointError, match="too short"):
        cw.inspect(tmp_path / "tiny.safetensors")


def test_header_length_larger_than_file_or_over_the_bound(tmp_path):
    path = write_safetensors(tmp_path / "long.safetensors", {"a": F32x2}, b"\0" * 8, length=10_000)
    with pytest.raises(CheckpointError, match="declares a 10,000-byte header"):
        cw.inspect(path)
    path = write_safetensors(tmp_path / "huge.safetensors", b"{}", length=MAX_HEADER_BYTES + 1)
    with pytest.raises(CheckpointError, match="exceeds the 100,000,000-byte bound"):
        cw.inspect(path)


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b"\xff\xfe{}", b'{"a": 1, "a": 2}'])
def test_header_that_is_not_a_json_object_is_refused(tmp_path, raw):
    path = write_safetensors(tmp_path / "bad.safetensors", raw)
    with pytest.raises(CheckpointError, match="not valid UTF-8 JSON|not an object|duplicate"):
        cw.inspect(path)
