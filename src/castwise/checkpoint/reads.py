"""Reading a weight file's bytes at an offset, exactly: the one way tensor data leaves a source file.

Data is read with positional reads into memory the caller owns, never memory-mapped: a file
truncated while castwise reads it ends a read early, which is a ``CheckpointError``, where a
mapping would kill the process with SIGBUS.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

from castwise.checkpoint.dtypes import CHUNK_BYTES
from castwise.checkpoint.errors import CheckpointError

READ_BYTES = 4 * 1024 * 1024
"""Default piece of a tensor read at a time: small enough for the buffer to stay in the CPU cache
while the caller casts or writes it, so the copy a read makes costs little."""


def read_at(fd: int, offset: int, target: memoryview, path: Path) -> None:
    """Fill ``target`` with the bytes of open file ``fd`` (``path``) from byte ``offset``."""
    view, filled = memoryview(target).cast("B"), 0
    try:
        while filled < len(view):
            got = os.preadv(fd, [view[filled:]], offset + filled)
            if not got:
                raise CheckpointError(f"{path}: ended early while reading: was it changed or truncated?")
            filled += got
    except OSError as exc:
        raise CheckpointError(f"{path}: could not be read ({exc.strerror or exc})") from None


def piece_elements(itemsize: int, chunk_bytes: int | None = None) -> int:
    """Elements of one piece a chunked read hands out: ``chunk_bytes`` worth, by default :data:`READ_BYTES`
    (at most ``CHUNK_BYTES``)."""
    return max(1, (chunk_bytes or min(CHUNK_BYTES, READ_BYTES)) // itemsize)


class ReadBuffer:
    """The one byte buffer a reader's chunked reads reuse: each piece is valid until the next is read."""

    def __init__(self) -> None:
        self._bytes = torch.empty(0, dtype=torch.uint8)

    def reserve(self, nbytes: int) -> None:
        """Grow the buffer to at least ``nbytes`` (before a tensor's pieces, so it grows once per tensor)."""
        if self._bytes.numel() < nbytes:
            self._bytes = torch.empty(nbytes, dtype=torch.uint8)

    def piece(self, nbytes: int) -> torch.Tensor:
        """The buffer's first ``nbytes``, grown to hold them."""
        self.reserve(nbytes)
        return self._bytes[:nbytes]

    def drop(self) -> None:
        """Free the buffer (a reader being closed)."""
        self._bytes = torch.empty(0, dtype=torch.uint8)
