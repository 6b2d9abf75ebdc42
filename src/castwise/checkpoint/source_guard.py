"""Noticing a source checkpoint that changes while castwise reads it.

Data is read with ordinary reads (never a memory map), so a file truncated under castwise fails a
read with a ``CheckpointError`` instead of killing the process with SIGBUS. A file overwritten in
place at the same size reads without any error and yields a mix of old and new bytes; so before
reading, castwise notes every source file's identity, size and change times, and after reading,
before anything is published, it compares: a difference refuses the result (the output's
temporary is removed, nothing appears under the destination's name).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.layout import Layout


@dataclass(frozen=True)
class SourceGuard:
    """The identity, size and change times of each source file, as they were when reading began."""

    stats: dict[Path, tuple[int, ...]]

    @classmethod
    def of(cls, layout: Layout) -> SourceGuard:
        """Note every file ``layout`` reads: weight files (a DCP folder's files), index and config."""
        paths: list[Path] = []
        for path in (*layout.files, layout.index, layout.config):
            if path is not None:
                paths.extend(_files_in(path) if path.is_dir() else [path])
        return cls({path: _stat(path) for path in paths})

    def check(self) -> None:
        """Refuse what was read if any source changed since :meth:`of`."""
        for path, before in self.stats.items():
            if _stat(path) != before:
                raise CheckpointError(
                    f"{path} changed while castwise read it (its size, change time or identity differs from "
                    "when reading began): nothing was written; let whatever writes it finish, then run again"
                )


def _files_in(folder: Path) -> Iterable[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file())


def _stat(path: Path) -> tuple[int, ...]:
    try:
        info = os.stat(path)
    except OSError:
        return ()
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns
