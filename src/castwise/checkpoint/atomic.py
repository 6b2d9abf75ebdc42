"""Atomic outputs: write under a temporary name in the destination folder, fsync, then rename.

A failure removes the temporary; a kill leaves at most a hidden ``.NAME.castwise-*.tmp`` beside
the destination, never a partial file under the final name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from pathlib import Path
from typing import BinaryIO, Iterator

from castwise.checkpoint.errors import CheckpointError


def check_destination(destination: Path, force: bool, sources: list[Path]) -> None:
    """Refuse a destination that is a source, lies inside one, or exists without ``force``."""
    target = destination.resolve()
    for source in sources:
        source = source.resolve()
        if target == source or (source.is_dir() and target.is_relative_to(source)):
            raise CheckpointError(
                f"destination {destination} is the source or inside it; write to another path "
                "(castwise never modifies its source)"
            )
    if destination.exists() and not force:
        raise CheckpointError(f"{destination} already exists; pass --force (force=True) to replace it")


@contextlib.contextmanager
def atomic_file(destination: Path, force: bool) -> Iterator[BinaryIO]:
    """A binary file that appears at ``destination`` only once fully written and synced."""
    with _temporary(destination, is_dir=False) as temporary, open(temporary, "wb") as file:
        yield file
        file.flush()
        os.fsync(file.fileno())
        file.close()
        _install(temporary, destination, force)


@contextlib.contextmanager
def atomic_folder(destination: Path, force: bool) -> Iterator[Path]:
    """A folder to fill that replaces ``destination`` only once complete (its files synced)."""
    with _temporary(destination, is_dir=True) as temporary:
        yield temporary
        for path in sorted(temporary.rglob("*")):
            if path.is_file() and not path.is_symlink():
                _fsync_file(path)
        _install(temporary, destination, force)


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as file:
        os.fsync(file.fileno())


@contextlib.contextmanager
def _temporary(destination: Path, is_dir: bool) -> Iterator[Path]:
    temporary = destination.parent / f".{destination.name}.castwise-{uuid.uuid4().hex[:8]}.tmp"
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        temporary.mkdir() if is_dir else temporary.touch(exist_ok=False)
    except OSError as exc:
        raise _cannot_write(destination, exc) from exc
    try:
        yield temporary
    except OSError as exc:
        raise _cannot_write(destination, exc) from exc
    finally:
        if temporary.is_dir():
            shutil.rmtree(temporary, ignore_errors=True)
        else:
            temporary.unlink(missing_ok=True)


def _cannot_write(destination: Path, exc: OSError) -> CheckpointError:
    return CheckpointError(
        f"cannot write {destination}: {exc.strerror or exc}; nothing was written there and the "
        "source is untouched (check the path, permissions and free space)"
    )


def _install(temporary: Path, destination: Path, force: bool) -> None:
    if destination.exists() and not force:
        raise CheckpointError(f"{destination} appeared while writing; pass --force (force=True) to replace it")
    if temporary.is_dir() and destination.exists():
        retired = destination.parent / f".{destination.name}.castwise-old-{uuid.uuid4().hex[:8]}"
        os.rename(destination, retired)
        os.rename(temporary, destination)
        shutil.rmtree(retired) if retired.is_dir() else retired.unlink()
    else:
        os.replace(temporary, destination)
    _fsync_folder(destination.parent)


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
