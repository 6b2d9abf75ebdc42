"""The safetensors header: a strict, bounded parser and the encoder used when writing.

Layout: an 8-byte little-endian header length N, N bytes of UTF-8 JSON (per tensor ``dtype``,
``shape``, ``data_offsets`` relative to the data region; an optional string-to-string
``__metadata__``, which may be null), then the data region. Like the reference parser, the header
is capped at 100,000,000 bytes, is standard JSON nested at most 127 deep, and the tensors must
tile the data region exactly: no hole, no overlap, no byte past the end or left over. Every field
is type-checked before it is used, so any malformed header is one ``CheckpointError``.

Deliberate differences from the reference parser: duplicate keys are refused (it keeps one
silently), and so are shapes torch cannot hold (dimensions whose product, zeros counted as one,
overflows int64) and dtypes torch has no type for (``F6_E2M3``, ``F6_E3M2``), which it parses but
cannot load into torch either. ``F4`` (two 4-bit values a byte) is read as torch's
``float4_e2m1fn_x2``, whose last dimension is half the header's, as the reference library does.
"""

from __future__ import annotations

import json
import math
import reprlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from castwise.checkpoint.bounded_json import parse_json
from castwise.checkpoint.dtypes import CODE_TO_DTYPE, DTYPE_TO_CODE
from castwise.checkpoint.errors import CheckpointError

MAX_HEADER_BYTES = 100_000_000
LENGTH_BYTES = 8
METADATA_KEY = "__metadata__"
_INT64_BITS, _U64_BITS = 63, 64
_FIELDS = ("dtype", "shape", "data_offsets")
_PACKED = {"F4": 2}
"""Header elements per torch element: the header's last dimension is this many times torch's."""
_NO_TORCH_DTYPE = ("F6_E2M3", "F6_E3M2")


@dataclass(frozen=True)
class Entry:
    """One tensor of a safetensors file: its shape as torch holds it (see ``_PACKED``); offsets are
    relative to the start of the data region."""

    name: str
    dtype: torch.dtype
    shape: tuple[int, ...]
    begin: int
    end: int

    @property
    def nbytes(self) -> int:
        """Bytes the tensor occupies in the file."""
        return self.end - self.begin


@dataclass(frozen=True)
class Header:
    """A validated header: entries in file order, the metadata, and where the data starts."""

    entries: tuple[Entry, ...]
    metadata: dict[str, str]
    data_start: int


def read_header(path: Path) -> Header:
    """Read and validate the header of a safetensors file, reading no tensor data."""
    file_size = path.stat().st_size
    with open(path, "rb") as file:
        prefix = file.read(LENGTH_BYTES)
        if len(prefix) < LENGTH_BYTES:
            raise CheckpointError(
                f"{path}: truncated: {file_size} bytes is too short for a safetensors file "
                "(it starts with an 8-byte header length); re-download or re-save it"
            )
        length = int.from_bytes(prefix, "little")
        if length > MAX_HEADER_BYTES:
            raise CheckpointError(
                f"{path}: header length {length:,} exceeds the {MAX_HEADER_BYTES:,}-byte bound: "
                "not a safetensors file, or a corrupt one"
            )
        if LENGTH_BYTES + length > file_size:
            raise CheckpointError(
                f"{path}: declares a {length:,}-byte header but only {file_size - LENGTH_BYTES:,} "
                "bytes follow: the file is truncated or not safetensors; re-download or re-save it"
            )
        raw = file.read(length)
    data_size = file_size - LENGTH_BYTES - length
    return parse_header(raw, data_size, str(path))


def parse_header(raw: bytes, data_size: int, where: str) -> Header:
    """Validate header bytes against a data region of ``data_size`` bytes."""
    document = _decode_json(raw, where)
    metadata = _metadata(document.pop(METADATA_KEY, None), where)
    entries = sorted((_entry(name, info, where) for name, info in document.items()), key=lambda e: (e.begin, e.end))
    _check_tiling(entries, data_size, where)
    return Header(tuple(entries), metadata, LENGTH_BYTES + len(raw))


def encode_header(entries: list[Entry], metadata: dict[str, str]) -> bytes:
    """The length prefix and JSON header for ``entries``, padded with spaces to 8-byte alignment."""
    document: dict[str, Any] = {METADATA_KEY: metadata} if metadata else {}
    for entry in entries:
        code = DTYPE_TO_CODE[entry.dtype]
        shape = list(entry.shape)
        if code in _PACKED and shape:
            shape[-1] *= _PACKED[code]
        document[entry.name] = {"dtype": code, "shape": shape, "data_offsets": [entry.begin, entry.end]}
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-(LENGTH_BYTES + len(text)) % LENGTH_BYTES)
    return len(text).to_bytes(LENGTH_BYTES, "little") + text


def plan_entries(tensors: list[tuple[str, torch.dtype, tuple[int, ...]]]) -> list[Entry]:
    """Entries laid end to end in the given order."""
    entries, offset = [], 0
    for name, dtype, shape in tensors:
        if dtype not in DTYPE_TO_CODE:
            raise CheckpointError(f"tensor {name!r}: dtype {dtype} cannot be stored in safetensors")
        if DTYPE_TO_CODE[dtype] in _PACKED and not shape:
            raise CheckpointError(f"tensor {name!r}: a {dtype} scalar cannot be stored in safetensors")
        if not _is_unicode(name):
            raise CheckpointError(
                f"tensor {name!r}: the name is not valid Unicode text (it holds a lone surrogate), "
                "so it cannot be a safetensors name; rename it in the state dict"
            )
        if not fits_int64([*shape, dtype.itemsize]):
            raise CheckpointError(
                f"tensor {name!r}: shape {list(shape)} in {dtype} is too large for torch to read back"
            )
        nbytes = math.prod(shape) * dtype.itemsize
        entries.append(Entry(name, dtype, tuple(shape), offset, offset + nbytes))
        offset += nbytes
    return entries


def _is_unicode(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _decode_json(raw: bytes, where: str) -> dict[str, Any]:
    try:
        document = parse_json(raw.decode("utf-8"), standard=True)
    except (UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(
            f"{where}: the header is not valid UTF-8 JSON ({exc}): the file is corrupt or not safetensors"
        ) from None
    if not isinstance(document, dict):
        raise CheckpointError(f"{where}: the header is JSON but not an object: not a safetensors file")
    return document


def _metadata(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise CheckpointError(f"{where}: {METADATA_KEY} must be an object of strings, got {_json_type(value)}")
    for key, item in value.items():
        if not isinstance(item, str):
            raise CheckpointError(
                f"{where}: {METADATA_KEY} must map strings to strings, but {key!r} holds "
                f"{_json_type(item)} ({reprlib.repr(item)}); re-save it with string values"
            )
    return value


def _entry(name: str, info: Any, where: str) -> Entry:
    about = f"{where}: tensor {name!r}"
    if not isinstance(info, dict) or not set(_FIELDS) <= info.keys():
        raise CheckpointError(f"{about} must be an object with dtype, shape and data_offsets")
    dtype = _dtype(info["dtype"], about)
    shape = _torch_shape(_naturals(info["shape"], _INT64_BITS, f"{about}: shape"), info["dtype"], about)
    offsets = _naturals(info["data_offsets"], _U64_BITS, f"{about}: data_offsets")
    if len(offsets) != 2 or offsets[0] > offsets[1]:
        raise CheckpointError(f"{about}: data_offsets must be [begin, end] with begin <= end, got {list(offsets)}")
    expected = math.prod(shape) * dtype.itemsize
    if offsets[1] - offsets[0] != expected:
        raise CheckpointError(
            f"{about}: shape {info['shape']} of {info['dtype']} needs {expected:,} bytes but its offsets "
            f"span {offsets[1] - offsets[0]:,}: the header is corrupt"
        )
    return Entry(name, dtype, shape, offsets[0], offsets[1])


def _dtype(code: Any, about: str) -> torch.dtype:
    if not isinstance(code, str):
        raise CheckpointError(f"{about}: dtype must be a code string such as 'F32', got {_json_type(code)}")
    if code in _NO_TORCH_DTYPE:
        raise CheckpointError(f"{about} has dtype {code}, which torch has no type for: castwise cannot read it")
    if code not in CODE_TO_DTYPE:
        raise CheckpointError(f"{about} has unknown dtype code {code!r} (known: {', '.join(CODE_TO_DTYPE)})")
    return CODE_TO_DTYPE[code]


def _torch_shape(shape: tuple[int, ...], code: str, about: str) -> tuple[int, ...]:
    """The header's shape as torch holds it: packed dtypes shrink the last dimension."""
    packed = _PACKED.get(code, 1)
    if packed > 1:
        if not shape or shape[-1] % packed:
            raise CheckpointError(
                f"{about}: {code} packs {packed} values a byte, so its shape's last dimension must be a "
                f"multiple of {packed}; got {list(shape)}"
            )
        shape = (*shape[:-1], shape[-1] // packed)
    if not fits_int64([*shape, CODE_TO_DTYPE[code].itemsize]):
        raise CheckpointError(
            f"{about}: shape {list(shape)} is too large for torch (the product of its dimensions, "
            "zeros counted as one, must fit int64): the header is corrupt"
        )
    return shape


def fits_int64(factors: list[int]) -> bool:
    """Whether the product of ``factors``, zeros counted as one, is below 2**63 (as torch needs)."""
    product = 1
    for factor in factors:
        product *= max(factor, 1)
        if product >> _INT64_BITS:
            return False
    return True


def _naturals(value: Any, bits: int, about: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(type(v) is int and 0 <= v and not v >> bits for v in value):
        shown = reprlib.repr(value) if isinstance(value, list) else _json_type(value)
        raise CheckpointError(f"{about} must be a list of non-negative integers below 2**{bits}, got {shown}")
    return tuple(value)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _check_tiling(entries: list[Entry], data_size: int, where: str) -> None:
    expected, previous = 0, None
    for entry in entries:
        if entry.begin < expected:
            raise CheckpointError(
                f"{where}: tensors {previous!r} and {entry.name!r} overlap (bytes {entry.begin:,}"
                f"..{expected:,}): the header is corrupt"
            )
        if entry.begin > expected:
            raise CheckpointError(
                f"{where}: a hole of {entry.begin - expected:,} bytes before tensor {entry.name!r}: "
                "the header is corrupt"
            )
        expected, previous = entry.end, entry.name
    if expected > data_size:
        raise CheckpointError(
            f"{where}: tensor {previous!r} runs past the end of the file (the header needs "
            f"{expected:,} data bytes, the file has {data_size:,}): the file is truncated; re-download it"
        )
    if expected < data_size:
        raise CheckpointError(
            f"{where}: {data_size - expected:,} bytes after the last tensor that no header entry "
            "describes: the file is corrupt"
        )
