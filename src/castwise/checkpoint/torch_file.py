"""torch ``.bin``/``.pt``/``.pth`` files, read with ``weights_only=True``: no code ever runs.

A pickle that asks for anything but tensors and plain containers is refused by torch's
weights-only unpickler before any of it executes; before that, :mod:`pickle_bounds` walks it, so
a deep or self-multiplying pickle is refused in milliseconds instead of crashing or hanging the
unpickler. A zip file is then loaded on the meta device: shapes, dtypes and where each storage
lies, no tensor data (a meta storage grows to fit the tensors set on it, so a size larger than its
storage shows as a storage larger than its record). Every storage must be exactly its record in
the zip, so a pickle cannot claim data the file does not hold. Data is read one
storage at a time with ordinary reads, never a memory map: a file truncated while it is read is
an error, not a SIGBUS. A legacy (pre-1.6, not zip) file holds its pickles first; they are
walked, loaded under fake tensors and checked against the file's size, then torch reads the file
into memory as it always does for that format.
"""

from __future__ import annotations

import io
import pickle
import tarfile
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import torch

from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.pickle_bounds import PickleTruncated, check_pickle

TORCH_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt")
MAX_PICKLE_BYTES = 1_000_000_000
"""Largest pickle castwise walks and unpickles (the tensors' data is not part of it)."""
ZIP_MAGIC = b"PK\x03\x04"
_NESTED_KEYS = ("state_dict", "model", "module")
_LEGACY_PICKLES = 5
"""A legacy file starts with five pickles: magic number, protocol, system info, the object, storage keys."""
_FIRST_READ = 1 << 16
_LFS_POINTER = b"version https://git-lfs"


def _check_torch_bytes(path: Path) -> None:
    """Refuse a file that torch.save cannot have written (a zip archive, a pickle of protocol 2 or more,
    or the old tar format) before unpickling it: a text file is not "a pickle that would run code"."""
    with open(path, "rb") as file:
        head = file.read(512)
    if head.startswith(ZIP_MAGIC) or head.startswith(b"\x80") or head[257:262] == b"ustar":
        return
    if head.startswith(_LFS_POINTER):
        raise CheckpointError(f"{path}: is a Git LFS pointer, not the weights; fetch them first (git lfs pull)")
    what = "is empty" if not head else f"starts with {head[:24]!r}"
    raise CheckpointError(
        f"{path}: not a torch checkpoint: it {what}, where a file torch.save wrote starts with a zip archive "
        "(PK) or a pickle (\\x80); nothing in it was read as a pickle"
    )


class TorchFile:
    """A torch file's state dict: tensors on the meta device, validated, each readable on demand."""

    def __init__(self, path: Path, data: bool = True) -> None:
        self.path = path
        with _as_checkpoint_error(path, "not a readable torch checkpoint"):
            _check_torch_bytes(path)
            with open(path, "rb") as file:
                is_zip = file.read(len(ZIP_MAGIC)) == ZIP_MAGIC
            self._reader: Any = torch._C.PyTorchFileReader(str(path)) if is_zip else None
        if self._reader is not None:
            check_zip_pickle(self._reader, str(path))
            self.tensors = _state_dict_of(load_weights(path, "meta"), path)
            self._records = self._storage_records()
        else:
            _check_legacy_pickles(path)
            self.tensors = _legacy_state(path, data)
            self._records = {}
        self._cached: tuple[str, torch.UntypedStorage] | None = None

    def read(self, name: str) -> torch.Tensor:
        """One tensor with its data, as stored (a view of its storage, which is read whole)."""
        tensor = self.tensors[name]
        if tensor.numel() == 0:
            return torch.empty(tensor.shape, dtype=tensor.dtype)
        if self._reader is None:
            return tensor
        storage = self._storage(self._records[name])
        return torch.empty(0, dtype=tensor.dtype).set_(storage, tensor.storage_offset(), tensor.shape, tensor.stride())

    def close(self) -> None:
        """Drop the tensors and the storage read last."""
        self.tensors, self._cached, self._reader = {}, None, None

    def _storage(self, record: str) -> torch.UntypedStorage:
        if self._cached is None or self._cached[0] != record:
            assert self._reader is not None
            size = self._reader.get_record_size(record)
            self._cached = None
            with _as_checkpoint_error(self.path, f"could not read {record} (was the file changed or truncated?)"):
                data = self._reader.get_storage_from_record(record, size, torch.uint8)
            self._cached = (record, data.untyped_storage())
        return self._cached[1]

    def _storage_records(self) -> dict[str, str]:
        """Tensor name -> the zip record holding its storage; every storage must be its record exactly."""
        assert self._reader is not None
        reader = self._reader
        with _as_checkpoint_error(self.path, "its zip directory is corrupt"):
            at = {reader.get_record_offset(n): n for n in reader.get_all_records() if n.startswith("data/")}
        records = {}
        for name, tensor in self.tensors.items():
            storage = tensor.untyped_storage()
            record = at.get(getattr(storage, "_checkpoint_offset", None))
            if record is None:
                raise CheckpointError(f"{self.path}: tensor {name!r}: its storage is not a record of the file")
            if reader.get_record_size(record) != storage.nbytes():
                raise CheckpointError(
                    f"{self.path}: tensor {name!r}: its storage claims {storage.nbytes():,} bytes but the file's "
                    f"record {record} holds {reader.get_record_size(record):,}: the file is corrupt"
                )
            records[name] = record
        return records


def load_weights(source: Path | BinaryIO, map_location: str) -> Any:
    """``torch.load`` with ``weights_only=True``; a refused or unreadable pickle is a ``CheckpointError``.

    Call it only on a pickle :func:`check_zip_pickle` or ``check_pickle`` has walked.
    """
    where = source if isinstance(source, Path) else "a tensor record"
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Detected pickle protocol")
            return torch.load(source, map_location=map_location, weights_only=True, mmap=False)
    except pickle.UnpicklingError as exc:
        raise CheckpointError(
            f"{where}: refused: its pickle holds more than tensors and would run code when "
            f"unpickled ({_unpickling_reason(exc)}); castwise only reads weights (weights_only=True). If you "
            "trust its author, re-save it as a plain state dict or as safetensors"
        ) from None
    except Exception as exc:  # any torch.load failure on a user file is a bad checkpoint
        raise CheckpointError(f"{where}: not a readable torch checkpoint ({type(exc).__name__}: {exc})") from None


def check_zip_pickle(reader: Any, where: str) -> None:
    """Walk the ``data.pkl`` of a torch zip (a ``torch._C.PyTorchFileReader``) within the pickle bounds."""
    with _as_checkpoint_error(where, "not a readable torch zip"):
        size = reader.get_record_size("data.pkl")
        big_endian = reader.has_record("byteorder") and reader.get_record("byteorder") == b"big"
    if size > MAX_PICKLE_BYTES:
        raise CheckpointError(f"{where}: its pickle of {size:,} bytes exceeds the {MAX_PICKLE_BYTES:,}-byte bound")
    if big_endian:
        raise CheckpointError(f"{where}: written on a big-endian machine; castwise reads little-endian torch files")
    with _as_checkpoint_error(where, "not a readable torch zip"):
        raw = reader.get_record("data.pkl")
    check_pickle(raw, where)


def zip_reader(raw: bytes, where: str) -> Any:
    """A ``PyTorchFileReader`` over the bytes of an in-memory torch zip."""
    with _as_checkpoint_error(where, "not a readable torch zip"):
        return torch._C.PyTorchFileReader(io.BytesIO(raw))


def _check_legacy_pickles(path: Path) -> None:
    """Walk the (up to five) pickles a legacy file starts with, reading more of it until they fit."""
    if tarfile.is_tarfile(path):
        raise CheckpointError(f"{path}: a tar-format torch file (torch before 0.4); re-save it with a current torch")
    size, wanted = path.stat().st_size, _FIRST_READ
    while True:
        with open(path, "rb") as file:
            head = file.read(min(wanted, MAX_PICKLE_BYTES))
        try:
            offset = 0
            for _ in range(_LEGACY_PICKLES):
                if offset == size:
                    return
                offset = check_pickle(head, str(path), offset)
            return
        except PickleTruncated:
            if len(head) >= min(size, MAX_PICKLE_BYTES):
                raise
            wanted *= 4


def _legacy_state(path: Path, data: bool) -> dict[str, torch.Tensor]:
    """A legacy file's tensors: first under fake tensors (torch would allocate every storage the pickle
    declares before reading any), checked against the file's size, then loaded if ``data``."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        fake = _state_dict_of(load_weights(path, "cpu"), path)
    storages = {t.untyped_storage()._cdata: t.untyped_storage().nbytes() for t in fake.values()}
    claimed, size = sum(storages.values()), path.stat().st_size
    if claimed > size:
        raise CheckpointError(
            f"{path}: its storages claim {claimed:,} bytes but the file holds {size:,}: it is corrupt"
        )
    if data:
        return _state_dict_of(load_weights(path, "cpu"), path)
    return {name: torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta") for name, t in fake.items()}


@contextmanager
def _as_checkpoint_error(where: object, what: str) -> Iterator[None]:
    """Any failure inside is a ``CheckpointError`` saying ``what`` (torch's own reader raises RuntimeError)."""
    try:
        yield
    except CheckpointError:
        raise
    except Exception as exc:  # a user's file can fail torch's zip reader in many ways
        raise CheckpointError(f"{where}: {what} ({type(exc).__name__}: {_first_line(exc)})") from None


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [""])[0][:300]


def _unpickling_reason(exc: pickle.UnpicklingError) -> str:
    """The line of torch's message that names what was refused (it is wrapped in advice)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    named = [line for line in lines if "GLOBAL" in line or line.startswith("Unsupported")]
    return (named or lines or ["not plain weights"])[0].rstrip(".")


def _state_dict_of(loaded: Any, path: Path) -> dict[str, torch.Tensor]:
    """The dense tensors of a loaded state dict, at its top or under a usual key (Lightning's ``state_dict``)."""
    if _is_tensor_map(loaded):
        return _dense(dict(loaded), path)
    if isinstance(loaded, Mapping):
        for key in _NESTED_KEYS:
            if _is_tensor_map(loaded.get(key)):
                return _dense(dict(loaded[key]), path)
    kind = f"keys {list(loaded)[:5]}" if isinstance(loaded, Mapping) else type(loaded).__name__
    raise CheckpointError(f"{path}: holds no state dict of tensors ({kind}); save `model.state_dict()` to convert it")


def _dense(state: dict[str, torch.Tensor], path: Path) -> dict[str, torch.Tensor]:
    """``state``, once every tensor is checked to be dense (sparse ones have no flat bytes to store)."""
    for name, tensor in state.items():
        if tensor.layout != torch.strided:
            raise CheckpointError(
                f"{path}: tensor {name!r} is {str(tensor.layout).removeprefix('torch.')}, not dense; castwise "
                "reads dense tensors only (re-save it with `tensor.to_dense()`)"
            )
    return state


def _is_tensor_map(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and all(isinstance(k, str) for k in value)
        and all(isinstance(v, torch.Tensor) for v in value.values())
    )

