"""A ``torch.save`` zip archive read without torch: its pickle's bytes and where each storage lies.

DeepSpeed writes its ZeRO shards with ``torch.save``: a zip whose ``data.pkl`` describes the
objects and whose ``data/KEY`` members hold the raw bytes of each storage, stored uncompressed.
Knowing each member's byte offset lets a partition's elements be read where they lie, a chunk at a
time, with positional reads (never a memory map: a shard truncated while it is read would kill the
process with SIGBUS).
"""

from __future__ import annotations

import re
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import torch

from castwise.checkpoint.dtypes import byte_view
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.reads import read_at

MAX_PICKLE_BYTES = 64 * 1024 * 1024
"""The largest ``data.pkl`` read: a ZeRO shard's pickle holds names and shapes, not tensor data."""
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_LOCAL_SIGNATURE = 0x04034B50
_MAX_BYTE_ORDER = 16
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
                "in torch's legacy format (re-save it with torch 1.6 or newer, which writes the zip format)"
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
            info = self._zip.getinfo(name)
            if info.file_size > _MAX_BYTE_ORDER:
                raise CheckpointError(f"{self.path}: its byteorder member is {info.file_size:,} bytes, not a word")
            order = self._read_member(info).strip()
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


class StorageFiles:
    """The archives a conversion reads, each opened on first use; elements are read with positional
    reads into memory the caller gives, so a shard truncated meanwhile is an error, not a SIGBUS."""

    def __init__(self) -> None:
        self._files: dict[Path, BinaryIO] = {}

    def read_into(self, storage: Storage, start: int, out: torch.Tensor) -> None:
        """Fill ``out`` (contiguous, of the storage's dtype) with elements of ``storage`` from element ``start``."""
        if out.dtype != storage.dtype or start + out.numel() > storage.numel:
            raise ValueError(f"{out.numel()} x {out.dtype} from element {start} do not fit storage {storage.key!r}")
        if out.numel():
            offset = storage.begin + start * storage.dtype.itemsize
            read_at(self._open(storage.path).fileno(), offset, byte_view(out), storage.path)

    def close(self) -> None:
        """Close the files."""
        for file in self._files.values():
            file.close()
        self._files = {}

    def _open(self, path: Path) -> BinaryIO:
        if path not in self._files:
            try:
                self._files[path] = open(path, "rb", buffering=0)
            except OSError as exc:
                raise CheckpointError(f"{path}: could not be opened ({exc.strerror or exc})") from None
        return self._files[path]
