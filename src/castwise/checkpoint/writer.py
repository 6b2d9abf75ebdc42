"""Writing safetensors in one pass: the header is planned up front, then data streams in order."""

from __future__ import annotations

from collections.abc import Iterable
from typing import BinaryIO

import torch

from castwise.checkpoint.dtypes import byte_view
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.safetensors_header import Entry, encode_header


class SafetensorsWriter:
    """Streams tensors, chunk by chunk, into ``file`` in the order of ``entries``.

    A chunk in another dtype is cast into one reusable buffer first, so memory stays at one
    chunk however large the tensor or the file.
    """

    def __init__(self, file: BinaryIO, entries: list[Entry], metadata: dict[str, str]) -> None:
        self._file = file
        self._pending = list(reversed(entries))
        self._cast_buffers: dict[torch.dtype, torch.Tensor] = {}
        file.write(encode_header(entries, metadata))

    def write_tensor(self, name: str, chunks: Iterable[torch.Tensor]) -> int:
        """Write the next planned tensor from 1-D chunks of its elements; returns bytes written."""
        entry = self._pending.pop()
        if entry.name != name:
            raise RuntimeError(f"tensor {name!r} written out of order (expected {entry.name!r})")
        written = 0
        for chunk in chunks:
            written += self._file.write(byte_view(self._cast(chunk, entry.dtype)))
        if written != entry.nbytes:
            raise CheckpointError(
                f"tensor {name!r}: wrote {written:,} bytes where {entry.nbytes:,} were planned: "
                "the source changed while it was read"
            )
        return written

    def finish(self) -> None:
        """Check every planned tensor was written."""
        if self._pending:
            raise RuntimeError(f"{len(self._pending)} planned tensors were never written")

    def _cast(self, chunk: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        chunk = chunk.detach()
        if chunk.dtype == dtype:
            return chunk.cpu().contiguous()
        buffer = self._cast_buffers.get(dtype)
        if buffer is None or buffer.numel() < chunk.numel():
            buffer = self._cast_buffers[dtype] = torch.empty(chunk.numel(), dtype=dtype)
        out = buffer[: chunk.numel()]
        out.copy_(chunk)
        return out
