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
    "shape_bytes": (
        {"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}},
        8,
        "needs 12 bytes but its offsets span 8",
    ),
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


def _raw(header: str, data: bytes = b"") -> bytes:
    encoded = header.encode("utf-8")
    return len(encoded).to_bytes(8, "little") + encoded + data


_A = '"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}'
_NESTED = "[" * 125 + "]" * 125
EDGE_FILES = {  # name -> file bytes; the peer comparison below runs castwise and safetensors on each
    "null_metadata": _raw('{"__metadata__": null, ' + _A + "}", bytes(8)),
    "empty_metadata": _raw('{"__metadata__": {}, ' + _A + "}", bytes(8)),
    "f4": _raw('{"q": {"dtype": "F4", "shape": [2, 4], "data_offsets": [0, 4]}}', bytes(4)),
    "f4_odd_last_dim": _raw('{"q": {"dtype": "F4", "shape": [4, 1], "data_offsets": [0, 2]}}', bytes(2)),
    "f4_scalar": _raw('{"q": {"dtype": "F4", "shape": [], "data_offsets": [0, 1]}}', bytes(1)),
    "f6": _raw('{"q": {"dtype": "F6_E2M3", "shape": [4], "data_offsets": [0, 3]}}', bytes(3)),
    "e8m0": _raw('{"s": {"dtype": "F8_E8M0", "shape": [2], "data_offsets": [0, 2]}}', bytes(2)),
    "nan_in_metadata": _raw('{"__metadata__": {"x": NaN}, ' + _A + "}", bytes(8)),
    "nan_in_extra_field": _raw('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": NaN}}', bytes(8)),
    "infinity": _raw('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": -Infinity}}', bytes(8)),
    "float_overflow": _raw('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": 1e400}}', bytes(8)),
    "nesting_127": _raw(
        '{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": ' + _NESTED + "}}", bytes(8)
    ),
    "nesting_128": _raw(
        '{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": [' + _NESTED + "]}}", bytes(8)
    ),
    "nesting_5000": _raw('{"x": ' + "[" * 5000 + "]" * 5000 + ", " + _A + "}", bytes(8)),
    "lone_surrogate_name": _raw('{"\\ud800": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}', bytes(8)),
    "surrogate_pair_name": _raw('{"\\ud83d\\ude00": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}', bytes(8)),
    "dtype_list": _raw('{"a": {"dtype": ["F32"], "shape": [2], "data_offsets": [0, 8]}}', bytes(8)),
    "dtype_object": _raw('{"a": {"dtype": {"F32": 1}, "shape": [2], "data_offsets": [0, 8]}}', bytes(8)),
    "float_dimension": _raw('{"a": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}}', bytes(8)),
    "bool_dimension": _raw('{"a": {"dtype": "F32", "shape": [true, true], "data_offsets": [0, 4]}}', bytes(4)),
    "three_offsets": _raw('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 8]}}', bytes(8)),
    "zero_elements_2_40": _raw('{"z": {"dtype": "F32", "shape": [1099511627776, 0], "data_offsets": [0, 0]}}'),
    "zero_elements_2_70": _raw('{"z": {"dtype": "F32", "shape": [1180591620717411303424, 0], "data_offsets": [0, 0]}}'),
    "zero_elements_u64_max": _raw(
        '{"z": {"dtype": "F32", "shape": [18446744073709551615, 0], "data_offsets": [0, 0]}}'
    ),
    "zero_elements_overflowing": _raw(
        '{"z": {"dtype": "F32", "shape": [4611686018427387904, 4, 0], "data_offsets": [0, 0]}}'
    ),
    "extra_field": _raw('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "note": "hi"}}', bytes(8)),
    "name_with_nul": _raw('{"a\\u0000b": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}', bytes(8)),
    "markup_names": _raw(
        '{"[/x]": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, '
        '"[red]": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}',
        bytes(8),
    ),
    "whitespace_around": _raw("  {" + _A + "}   ", bytes(8)),
    "trailing_nul": _raw("{" + _A + "}\0", bytes(8)),
    "byte_order_mark": b"",  # filled below: the BOM must be counted in the header length
    "empty_header": _raw("{}"),
    "duplicate_keys": _raw("{" + _A + ", " + _A + "}", bytes(8)),
}
EDGE_FILES["byte_order_mark"] = (
    (len(b"\xef\xbb\xbf{" + _A.encode() + b"}")).to_bytes(8, "little")
    + b"\xef\xbb\xbf{"
    + _A.encode()
    + b"}"
    + bytes(8)
)
DELIBERATE = {
    "duplicate_keys": "safetensors keeps one of two same-named tensors silently; castwise refuses the ambiguity",
}


def _safetensors_accepts(path) -> bool:
    from safetensors import safe_open

    try:
        with safe_open(path, framework="pt") as file:
            names = file.keys()
            for name in names:
                file.get_tensor(name)
    except Exception:  # noqa: BLE001 - the peer raises several types (SafetensorError, TypeError, ...)
        return False
    return True


@pytest.mark.parametrize("case", sorted(EDGE_FILES))
def test_agrees_with_the_safetensors_library(tmp_path, case):
    path = tmp_path / "edge.safetensors"
    path.write_bytes(EDGE_FILES[case])
    try:
        loaded = cw.load(path)
    except CheckpointError:
        loaded = None
    expected = _safetensors_accepts(path) != (case in DELIBERATE)
    assert (loaded is not None) == expected, case
    if loaded is not None:
        reference = load_file(path)
        assert loaded.keys() == reference.keys()
        assert all(loaded[k].dtype == reference[k].dtype and loaded[k].shape == reference[k].shape for k in loaded)
        assert {t.name for t in cw.inspect(path).tensors} == set(loaded)


def test_null_metadata_and_f4_are_read_like_safetensors(tmp_path):
    path = tmp_path / "null.safetensors"
    path.write_bytes(EDGE_FILES["null_metadata"])
    assert cw.inspect(path).metadata == {} and cw.load(path)["a"].equal(torch.zeros(2))
    packed = torch.tensor([[0x12, 0x34], [0x56, 0x78]], dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
    save_file({"q": packed, "w": torch.ones(2)}, tmp_path / "f4.safetensors")
    info = cw.inspect(tmp_path / "f4.safetensors")
    assert info.dtypes() == {"q": "float4_e2m1fn_x2", "w": "float32"}
    assert {t.name: (t.shape, t.nbytes) for t in info.tensors}["q"] == ((2, 2), 4)
    assert cw.load(tmp_path / "f4.safetensors")["q"].view(torch.uint8).equal(packed.view(torch.uint8))
    result = cw.convert(tmp_path / "f4.safetensors", tmp_path / "out.safetensors", "bf16")
    assert result.cast == 1  # only w: a 4-bit float is never cast
    assert load_file(tmp_path / "out.safetensors")["q"].view(torch.uint8).equal(packed.view(torch.uint8))
    assert {e.name: e.shape for e in read_header(tmp_path / "out.safetensors").entries}["q"] == (2, 2)
    assert b'"dtype":"F4","shape":[2,4]' in (tmp_path / "out.safetensors").read_bytes()


REFUSED = {
    "dtype_list": "dtype must be a code string such as 'F32', got a list",
    "dtype_object": "dtype must be a code string such as 'F32', got an object",
    "nesting_5000": "nested 5,001 levels deep; at most 127 are allowed",
    "nesting_128": "nested 128 levels deep",
    "nan_in_metadata": "NaN is not a JSON value",
    "infinity": "-Infinity is not a JSON value",
    "float_overflow": "the number 1e400 is out of range",
    "lone_surrogate_name": "holds a lone UTF-16 surrogate",
    "zero_elements_2_70": "non-negative integers below 2\\*\\*63",
    "zero_elements_overflowing": "too large for torch",
    "f6": "dtype F6_E2M3, which torch has no type for",
    "f4_odd_last_dim": "F4 packs 2 values a byte",
    "float_dimension": "non-negative integers below 2\\*\\*63, got \\[2.0\\]",
    "duplicate_keys": "duplicate keys \\['a'\\]",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refusals_name_the_problem(tmp_path, case):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(EDGE_FILES[case])
    for action in (cw.inspect, cw.load, lambda p: cw.convert(p, tmp_path / "out.safetensors", "bf16")):
        with pytest.raises(CheckpointError, match=REFUSED[case]):
            action(path)
    assert not (tmp_path / "out.safetensors").exists()


def test_zero_element_tensors_with_huge_dimensions_agree_everywhere(tmp_path):
    path = tmp_path / "zero.safetensors"
    path.write_bytes(EDGE_FILES["zero_elements_2_40"])
    assert [t.shape for t in cw.inspect(path).tensors] == [(2**40, 0)]
    assert cw.load(path)["z"].shape == (2**40, 0)
    cw.convert(path, tmp_path / "out.safetensors", "bf16")
    assert load_file(tmp_path / "out.safetensors")["z"].shape == (2**40, 0)


def test_a_torch_file_with_a_surrogate_name_is_refused_before_writing(tmp_path):
    torch.save({"ok": torch.ones(2), "bad\udc80": torch.ones(2)}, tmp_path / "w.pt")
    assert set(cw.load(tmp_path / "w.pt")) == {"ok", "bad\udc80"}
    with pytest.raises(CheckpointError, match="not valid Unicode text"):
        cw.convert(tmp_path / "w.pt", tmp_path / "out.safetensors", "bf16")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.pt"]
