"""Reading a weight file's bytes at an offset, exactly: the one way tensor data leaves a source file.

Data is read with positional reads into memory the caller owns, never memory-mapped: a file
truncated while castwise reads it ends a read early, which is a ``CheckpointError``, where a
mapping would kill the process with SIGBUS.
"""

from __future__ import annotations

import os
from pathlib import Path

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
