"""A ``torch.save`` zip archive read without torch: its pickle's bytes and where each storage lies.

DeepSpeed writes its ZeRO shards with ``torch.save``: a zip whose ``data.pkl`` describes the
objects and whose ``data/KEY`` members hold the raw bytes of each storage, stored uncompressed.
Knowing each member's byte offset lets the storages be memory-mapped straight from the file, so
a partition is read where it lies and only the pages in use are resident.
"""

from __future__ import annotations

import mmap
import re
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

import torch

from castwise.checkpoint.errors import CheckpointError

MAX_PICKLE_BYTES = 64 * 1024 * 1024
"""The largest ``data.pkl`` read: a ZeRO shard's pickle holds names and shapes, not tensor data."""
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_LOCAL_SIGNATURE = 0x04034B50
_STORAGE_KEY = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass(frozen=True)
class Storage:
    """One storage of an archive: ``numel`` elements of ``dtype`` at byte ``begin`` of ``path``."""

    path: Path
    key: str
    dtype: torch.dtype
    numel: int
    begin: int


class TorchArchive:
    """The members of one ``torch.save`` zip file, checked against the file's real size."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.size = path.stat().st_size
        try:
            self._zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise CheckpointError(
                f"{path}: not a readable torch zip archive ({exc}); the file is truncated, corrupt, or "
                "in torch's legacy format (re-save it with a torch newer than 1.6)"
            ) from None
        pickles = [name for name in self._zip.namelist() if name.endswith("/data.pkl") and name.count("/") == 1]
        if len(pickles) != 1:
            self.close()
            raise CheckpointError(f"{path}: expected one <name>/data.pkl in the archive, found {len(pickles)}")
        self._prefix = pickles[0].removesuffix("data.pkl")
        self._check_byte_order()

    def pickle_bytes(self) -> bytes:
        """The archive's ``data.pkl``, at most :data:`MAX_PICKLE_BYTES`."""
        info = self._zip.getinfo(self._prefix + "data.pkl")
        if info.file_size > MAX_PICKLE_BYTES:
            raise CheckpointError(
                f"{self.path}: its pickle is {info.file_size:,} bytes, over the {MAX_PICKLE_BYTES:,}-byte bound "
                "for a ZeRO shard's description"
            )
        return self._read_member(info)

    def storage(self, key: str, dtype: torch.dtype, numel: int) -> Storage:
        """Where storage ``key`` lies, once its member is checked to hold ``numel`` elements of ``dtype``."""
        if not _STORAGE_KEY.fullmatch(key):
            raise CheckpointError(f"{self.path}: storage key {key!r} is not a plain member name")
        try:
            info = self._zip.getinfo(f"{self._prefix}data/{key}")
        except KeyError:
            raise CheckpointError(f"{self.path}: the pickle names storage {key!r}, which the archive lacks") from None
        if info.compress_type != zipfile.ZIP_STORED:
            raise CheckpointError(f"{self.path}: storage {key!r} is compressed; torch stores storages uncompressed")
        if info.file_size != numel * dtype.itemsize:
            raise CheckpointError(
                f"{self.path}: storage {key!r} holds {info.file_size:,} bytes, not the {numel:,} x {dtype} "
                "its pickle declares; the file is corrupt"
            )
        begin = self._data_offset(info)
        if begin + info.file_size > self.size:
            raise CheckpointError(f"{self.path}: storage {key!r} runs past the end of the file (truncated?)")
        return Storage(self.path, key, dtype, numel, begin)

    def close(self) -> None:
        """Close the zip file."""
        self._zip.close()

    def _check_byte_order(self) -> None:
        name = self._prefix + "byteorder"
        if name in self._zip.namelist():
            order = self._read_member(self._zip.getinfo(name)).strip()
            if order != b"little":
                raise CheckpointError(
                    f"{self.path}: saved with byte order {order[:16]!r}; castwise reads little-endian files"
                )

    def _read_member(self, info: zipfile.ZipInfo) -> bytes:
        try:
            return self._zip.read(info)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise CheckpointError(f"{self.path}: member {info.filename} is unreadable ({exc})") from None

    def _data_offset(self, info: zipfile.ZipInfo) -> int:
        """The first byte of a member's data: after its local header, name and extra field."""
        with open(self.path, "rb") as file:
            file.seek(info.header_offset)
            raw = file.read(_LOCAL_HEADER.size)
        if len(raw) != _LOCAL_HEADER.size or _LOCAL_HEADER.unpack(raw)[0] != _LOCAL_SIGNATURE:
            raise CheckpointError(f"{self.path}: member {info.filename} has no valid local header; the file is corrupt")
        fields = _LOCAL_HEADER.unpack(raw)
        return info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]


class MappedFiles:
    """Read-only mappings of the archives a conversion reads, opened on first use."""

    def __init__(self) -> None:
        self._maps: dict[Path, mmap.mmap] = {}

    def elements(self, storage: Storage, start: int, count: int) -> torch.Tensor:
        """``count`` elements of ``storage`` from element ``start``, viewed in place (no copy)."""
        if count == 0:
            return torch.empty(0, dtype=storage.dtype)
        mapped = self._map(storage.path)
        offset = storage.begin + start * storage.dtype.itemsize
        return torch.frombuffer(mapped, dtype=storage.dtype, count=count, offset=offset)

    def release(self, storage: Storage, start: int, count: int) -> None:
        """Drop the resident pages of elements the caller has finished with (the file keeps them)."""
        mapped = self._maps.get(storage.path)
        if mapped is None or count == 0 or not hasattr(mmap, "MADV_DONTNEED"):
            return
        first = storage.begin + start * storage.dtype.itemsize
        aligned = first - first % mmap.PAGESIZE
        mapped.madvise(mmap.MADV_DONTNEED, aligned, first + count * storage.dtype.itemsize - aligned)

    def close(self) -> None:
        """Forget the mappings (each closes once the last tensor viewing it is gone)."""
        self._maps = {}

    def _map(self, path: Path) -> mmap.mmap:
        if path not in self._maps:
            with open(path, "rb") as file:  # private and never written: pages stay shared with the page cache
                self._maps[path] = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY)
        return self._maps[path]
