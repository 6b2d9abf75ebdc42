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
