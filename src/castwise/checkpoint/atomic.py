"""Atomic outputs: write under a temporary name in the destination folder, fsync, then rename.

A failure removes the temporary; a kill leaves at most a hidden ``.NAME.castwise-PID-XXXXXXXX.tmp``
beside the destination, never a partial file under the final name. The writer holds an exclusive
``flock`` on its temporary while it lives, so ``remove_stale_temporaries`` (called by the next write
to the same destination) removes only temporaries whose owner process is gone and that nobody holds.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

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


def remove_stale_temporaries(destination: Path) -> list[Path]:
    """Remove the temporaries that killed castwise writes to ``destination`` left; returns them."""
    pattern = re.compile(rf"\.{re.escape(destination.name)}\.castwise-([1-9][0-9]*)-[0-9a-f]{{8}}\.tmp")
    try:
        found = [(path, match) for path in destination.parent.iterdir() if (match := pattern.fullmatch(path.name))]
    except OSError:
        return []
    removed = []
    for path, match in sorted(found, key=lambda pair: pair[0]):
        if not path.is_symlink() and not _process_alive(int(match.group(1))) and _remove_if_unlocked(path):
            removed.append(path)
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # it exists but is someone else's, or the pid is out of range
        return True
    return True


def _remove_if_unlocked(path: Path) -> bool:
    """Remove ``path`` if no process holds its lock (one on another host may, on a shared disk)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    except OSError:
        return False
    finally:
        os.close(descriptor)
    return True


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
def scratch_folder(destination: Path) -> Iterator[Path]:
    """A locked temporary folder beside ``destination`` for work on the way to it, removed afterwards;
    one a killed process left is removed by the next :func:`remove_stale_temporaries` of ``destination``."""
    with _temporary(destination, is_dir=True) as temporary:
        yield temporary


@contextlib.contextmanager
def atomic_folder(destination: Path, force: bool) -> Iterator[Path]:
    """A folder to fill that replaces ``destination`` only once complete (its files synced)."""
    with scratch_folder(destination) as temporary:
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
    temporary = destination.parent / f".{destination.name}.castwise-{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp"
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        temporary.mkdir() if is_dir else temporary.touch(exist_ok=False)
    except OSError as exc:
        raise _cannot_write(destination, exc) from exc
    lock = None
    try:
        lock = _hold_lock(temporary)
        yield temporary
    except OSError as exc:
        raise _cannot_write(destination, exc) from exc
    finally:
        if temporary.is_dir():
            shutil.rmtree(temporary, ignore_errors=True)
        else:
            temporary.unlink(missing_ok=True)
        if lock is not None:
            os.close(lock)


def _hold_lock(temporary: Path) -> int:
    """An open descriptor holding an exclusive lock on ``temporary`` (unlocked where unsupported)."""
    descriptor = os.open(temporary, os.O_RDONLY)
    with contextlib.suppress(OSError):  # a disk without locks: the pid in the name still protects it
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return descriptor


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
