"""Helpers for checkpoint tests: raw safetensors writers, a small mixed state dict and a hostile pickle."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import torch


def write_safetensors(path: Path, header: dict | bytes, data: bytes = b"", length: int | None = None) -> Path:
    """Write a (possibly malformed) safetensors file from a header object or raw header bytes."""
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw) if length is None else length) + raw + data)
    return path


def sample_state() -> dict[str, torch.Tensor]:
    """A small mixed state dict: fp32 weights, a norm, an int64 buffer, a bool mask."""
    torch.manual_seed(1)
    return {
        "encoder.linear.weight": torch.randn(8, 4),
        "encoder.linear.bias": torch.randn(8),
        "encoder.norm.weight": torch.rand(8) + 0.5,
        "embed.position_ids": torch.arange(16).unsqueeze(0),
        "mask": torch.tensor([True, False, True]),
    }


class RunsCommand:
    """Pickles to a call of ``os.system`` that creates ``marker``: a checkpoint that must never be unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def deep_tuple_key(depth: int) -> bytes:
    """A pickle of a dict whose key is a tuple nested ``depth`` deep (hashing 100,000 levels overflows the C stack)."""
    return b"\x80\x02}" + b"K\x01" + b"\x85" * depth + b"K\x01s."


def laughing_key(doublings: int) -> bytes:
    """A pickle of a dict whose key is t(n), where t(i+1) = (t(i), t(i)) through the memo: 2**n nodes to hash."""
    return b"\x80\x02})q\x00" + b"0h\x00h\x00\x86q\x00" * doublings + b"K\x01s."


DEEP_TUPLE_KEY = deep_tuple_key(200_000)
LAUGHING_KEY = laughing_key(60)
"""490 bytes that hash 2**60 nodes."""


def deep_list_size(depth: int) -> bytes:
    """A pickle of ``{"w": _rebuild_tensor_v2(storage, 0, [[...]], ...)}`` whose size is nested ``depth`` lists deep."""
    nested = b"]" * depth + b"a" * (depth - 1)
    return _tensor_pickle(nested, b"K\x01\x85")


def fake_tensor_pickle(size: tuple[int, ...], stride: tuple[int, ...], storage_numel: int) -> bytes:
    """``{"w": tensor}`` whose size and stride are as given over a float32 storage of ``storage_numel``."""
    return _tensor_pickle(_int_tuple(size), _int_tuple(stride), storage_numel)


def _int_tuple(values: tuple[int, ...]) -> bytes:
    return b"(" + b"".join(b"\x8a" + bytes([len(_le(v))]) + _le(v) for v in values) + b"t"


def _le(value: int) -> bytes:
    return value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)


def _tensor_pickle(size: bytes, stride: bytes, storage_numel: int = 4) -> bytes:
    storage = b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpu" + (
        b"\x8a" + bytes([len(_le(storage_numel))]) + _le(storage_numel) + b"tQ"
    )
    rebuild = b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage + b"K\x00" + size + stride + b"\x89ccollections\nOrderedDict\n)RtR"
    return b"\x80\x02}X\x01\x00\x00\x00w" + rebuild + b"s."


def torch_zip_with_pickle(path: Path, raw: bytes) -> Path:
    """A real ``torch.save`` zip (one 4-element float32 storage) whose ``data.pkl`` is replaced by ``raw``."""
    import zipfile

    source = path.with_name(path.name + ".orig")
    torch.save({"w": torch.arange(4.0)}, source)
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for info in original.infolist():
            out.writestr(info, raw if info.filename.endswith("/data.pkl") else original.read(info))
    source.unlink()
    return path
