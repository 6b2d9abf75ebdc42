"""The files a checkpoint names inside its own folder: shards of an index, DCP data files.

A name from a file is only a name: it must be a plain file name (no separators, not ``..``), it
must be a regular file, and a symlink must not lead out of the folder, so a downloaded index or
metadata cannot make castwise read ``/etc/passwd`` or a device. The one exception is the
Hugging Face hub cache, where ``snapshots/<revision>/<name>`` links to ``../../blobs/<hash>``.
Every OS error on the way (a name too long for the file system, a permission denied, a loop)
is a ``CheckpointError`` that names the entry.
"""

from __future__ import annotations

from pathlib import Path

from castwise.checkpoint.errors import CheckpointError

_HUB_SNAPSHOTS, _HUB_BLOBS = "snapshots", "blobs"


def member(folder: Path, name: str, entry: str, missing: str = "") -> Path:
    """``folder / name`` checked as above; ``entry`` says who named it (``index.json: shard 'x'``),
    ``missing`` what to do when the file is not there."""
    if Path(name).name != name or name in ("", ".", ".."):
        raise CheckpointError(f"{entry}: {name!r} is not a plain file name in {folder}")
    path = folder / name
    try:
        if not path.is_file():
            raise CheckpointError(f"{entry}: {path} does not exist (or is not a file){missing}")
        target, inside = path.resolve(strict=True), folder.resolve(strict=True)
    except OSError as exc:
        raise CheckpointError(f"{entry}: {path} cannot be read ({exc.strerror or exc})") from None
    if not (target.is_relative_to(inside) or _in_hub_blobs(inside, target)):
        raise CheckpointError(f"{entry}: {path} is a link to {target}, outside {folder}; castwise reads only its files")
    return path


def _in_hub_blobs(folder: Path, target: Path) -> bool:
    return folder.parent.name == _HUB_SNAPSHOTS and target.is_relative_to(folder.parent.parent / _HUB_BLOBS)
