"""torch.distributed.checkpoint (DCP) folders: ``.metadata`` plus ``__R_0.distcp`` data files.

``.metadata`` is a pickle. It is read by an unpickler that admits only DCP's metadata classes
and the torch types they hold (Size, dtypes, layouts), so a crafted file cannot run code. Each
tensor is stored as one or more chunks (one per rank that held a shard of it), every chunk a
``torch.save`` record at an offset in a data file, read with ``weights_only=True``.
"""

from __future__ import annotations

import io
import math
import pickle
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import torch

from castwise.checkpoint.dtypes import flat_chunks
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.members import member
from castwise.checkpoint.pickle_bounds import Refused, load_restricted
from castwise.checkpoint.safetensors_header import fits_int64
from castwise.checkpoint.tensor_info import TensorInfo
from castwise.checkpoint.torch_file import check_zip_pickle, load_weights, zip_reader

METADATA_NAME = ".metadata"
DATA_SUFFIXES = (".distcp", ".safetensors")
"""The data files DCP's writers name (torch's file system writer, Hugging Face's safetensors writer)."""
RAW_SUFFIX = ".safetensors"
"""Data files whose chunks are raw tensor bytes; in the others each chunk is a ``torch.save`` record."""
MAX_METADATA_BYTES = 1_000_000_000
ALL_KEYS = "*"
"""``key`` that selects every tensor under its full name (what ``inspect`` shows)."""
MODEL_GROUP = "model"
OPTIMIZER_GROUPS = ("optim", "optimizer", "optimizers", "optim_state")
_MISSING_DATA = " (an incomplete copy? did every rank finish saving?)"
_MAX_COMPARISONS = 10_000_000
"""Chunk pairs compared per tensor when checking for overlaps (an honest sharding needs a few per chunk)."""

_DCP_CLASSES = {
    "torch.distributed.checkpoint.metadata": {
        "Metadata",
        "TensorStorageMetadata",
        "BytesStorageMetadata",
        "ChunkStorageMetadata",
        "TensorProperties",
        "MetadataIndex",
        "StorageMeta",
        "_MEM_FORMAT_ENCODING",
    },
    "torch.distributed.checkpoint.filesystem": {"_StorageInfo"},
    "torch.serialization": {"_get_layout"},
    "torch": {"Size"},
    "pathlib": {"Path", "PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath"},
    "collections": {"OrderedDict"},
}


def is_dcp_folder(path: Path) -> bool:
    """True for a folder holding a DCP ``.metadata`` file."""
    return path.is_dir() and (path / METADATA_NAME).is_file()


class _MetadataUnpickler(pickle.Unpickler):
    """Builds only DCP metadata classes and torch dtypes, layouts and sizes; refuses the rest."""

    def find_class(self, module: str, name: str) -> Any:
        if name in _DCP_CLASSES.get(module, ()) or (module == "torch" and _is_torch_type(name)):
            return super().find_class(module, name)
        raise Refused(f"global '{module}.{name}' is not part of DCP metadata")

    def persistent_load(self, pid: Any) -> Any:
        raise Refused("persistent ids are not part of DCP metadata")


def _is_torch_type(name: str) -> bool:
    return isinstance(getattr(torch, name, None), (torch.dtype, torch.layout, torch.memory_format))


@dataclass(frozen=True)
class _Chunk:
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    file: str
    begin: int
    length: int


@dataclass(frozen=True)
class _Tensor:
    name: str
    dtype: torch.dtype
    shape: tuple[int, ...]
    chunks: tuple[_Chunk, ...]


@dataclass(frozen=True)
class DcpMetadata:
    """What ``.metadata`` says: every tensor's dtype, shape and chunks, and the other entries."""

    tensors: dict[str, _Tensor]
    objects: tuple[str, ...]


def read_metadata(folder: Path) -> DcpMetadata:
    """Read and validate ``folder/.metadata`` without running any code it may hold."""
    path = folder / METADATA_NAME
    size = path.stat().st_size
    if size > MAX_METADATA_BYTES:
        raise CheckpointError(f"{path}: {size:,} bytes exceeds the {MAX_METADATA_BYTES:,}-byte bound for DCP metadata")
    import torch.distributed.checkpoint.filesystem  # noqa: F401  the classes the unpickler admits
    from torch.distributed.checkpoint.metadata import Metadata

    metadata = load_restricted(
        lambda raw: _MetadataUnpickler(io.BytesIO(raw)), path.read_bytes(), str(path), "DCP metadata",
        "load it with torch.distributed.checkpoint and re-save it",
    )
    if not isinstance(metadata, Metadata):
        raise CheckpointError(f"{path}: holds a {type(metadata).__name__}, not DCP Metadata")
    if not isinstance(getattr(metadata, "state_dict_metadata", None), dict):
        raise CheckpointError(f"{path}: DCP Metadata without its entries (state_dict_metadata); the file is corrupt")
    try:
        return _validated(metadata, folder)
    except CheckpointError:
        raise
    except Exception as exc:  # fields of the wrong kind fail in many ways (a flipped byte can give any)
        raise CheckpointError(f"{path}: malformed DCP metadata ({type(exc).__name__}: {exc})") from None


def _validated(metadata: Any, folder: Path) -> DcpMetadata:
    from torch.distributed.checkpoint.metadata import BytesStorageMetadata, TensorStorageMetadata

    storage = metadata.storage_data if isinstance(metadata.storage_data, dict) else {}
    located = {(index.fqn, tuple(index.offset or ())): info for index, info in storage.items()}
    tensors, objects = {}, []
    for name, entry in metadata.state_dict_metadata.items():
        if not isinstance(name, str):
            raise CheckpointError(f"{folder}: a state key is a {type(name).__name__}, not a string")
        if isinstance(entry, BytesStorageMetadata):
            objects.append(name)
        elif isinstance(entry, TensorStorageMetadata):
            tensors[name] = _tensor(name, entry, located, folder)
        else:
            raise CheckpointError(f"{folder}: entry {name!r} is a {type(entry).__name__}, not DCP storage metadata")
    _check_no_shared_bytes(tensors.values(), folder)
    return DcpMetadata(tensors, tuple(objects))


def _tensor(name: str, entry: Any, located: dict[tuple[str, tuple[int, ...]], Any], folder: Path) -> _Tensor:
    about = f"{folder}: tensor {name!r}"
    dtype, shape = entry.properties.dtype, _sizes(entry.size, about)
    if not isinstance(dtype, torch.dtype):
        raise CheckpointError(f"{about}: dtype {dtype!r} is not a torch dtype")
    if not fits_int64([*shape, dtype.itemsize]):
        raise CheckpointError(f"{about}: shape {list(shape)} is too large for torch; the metadata is corrupt")
    chunks = []
    for chunk in entry.chunks:
        offsets, sizes = _sizes(chunk.offsets, about), _sizes(chunk.sizes, about)
        where = f"{about}: chunk at {list(offsets)} of size {list(sizes)}"
        if (
            len(offsets) != len(shape)
            or len(sizes) != len(shape)
            or any(o + s > n for o, s, n in zip(offsets, sizes, shape))
        ):
            raise CheckpointError(f"{where} lies outside {list(shape)}")
        info = located.get((name, offsets))
        if info is None:
            raise CheckpointError(f"{where} has no storage entry; the metadata is corrupt")
        file, begin, length = _storage(info, about)
        needed = math.prod(sizes) * dtype.itemsize
        if length < needed or file.endswith(RAW_SUFFIX) and length != needed:
            raise CheckpointError(
                f"{where} needs {needed:,} bytes but its storage entry holds {length:,}; the metadata is corrupt"
            )
        chunks.append(_Chunk(offsets, sizes, file, begin, length))
    _check_tiling(chunks, shape, about)
    return _Tensor(name, dtype, shape, tuple(chunks))


def _check_tiling(chunks: list[_Chunk], shape: tuple[int, ...], about: str) -> None:
    """Refuse chunks that overlap or leave part of the tensor uncovered (each already lies inside it).

    Chunks that do not overlap cover the tensor exactly when their volumes add up to its volume.
    Overlaps are found by a sweep along the axis with the most distinct chunk offsets, comparing
    each chunk only with those it overlaps along that axis.
    """
    boxes = [c for c in chunks if math.prod(c.sizes)]
    if sum(math.prod(c.sizes) for c in boxes) != math.prod(shape):
        raise CheckpointError(f"{about}: its chunks do not cover its shape {list(shape)}; the metadata is corrupt")
    if len(boxes) < 2:
        return
    axis = max(range(len(shape)), key=lambda d: len({c.offsets[d] for c in boxes}))
    active: list[_Chunk] = []
    comparisons = 0
    for chunk in sorted(boxes, key=lambda c: c.offsets[axis]):
        active = [a for a in active if a.offsets[axis] + a.sizes[axis] > chunk.offsets[axis]]
        comparisons += len(active)
        if comparisons > _MAX_COMPARISONS:
            raise CheckpointError(f"{about}: its {len(boxes):,} chunks are too fragmented to check for overlaps")
        for other in active:
            if _overlap(chunk, other):
                raise CheckpointError(
                    f"{about}: its chunks at {list(other.offsets)} and {list(chunk.offsets)} overlap; the metadata "
                    "is corrupt"
                )
        active.append(chunk)


def _overlap(one: _Chunk, other: _Chunk) -> bool:
    return all(a < b + m and b < a + n for a, n, b, m in zip(one.offsets, one.sizes, other.offsets, other.sizes))


def _check_no_shared_bytes(tensors: Iterable[_Tensor], folder: Path) -> None:
    """Refuse two chunks whose storage entries share bytes of a data file (one would read the other's data)."""
    ranges = sorted(
        (c.file, c.begin, c.begin + c.length, t.name) for t in tensors for c in t.chunks if c.length
    )
    for (file, _, end, name), (next_file, begin, _, other) in zip(ranges, ranges[1:]):
        if file == next_file and begin < end:
            raise CheckpointError(
                f"{folder}: tensors {name!r} and {other!r} are stored in the same bytes of {file} (from "
                f"{begin:,}); the metadata is corrupt"
            )


def _storage(info: Any, about: str) -> tuple[str, int, int]:
    file, begin, length = (getattr(info, field, None) for field in ("relative_path", "offset", "length"))
    if not isinstance(file, str) or "/" in file or file in ("", ".", ".."):  # a plain name in the folder
        raise CheckpointError(f"{about}: data file {file!r} is not a plain file name in the checkpoint folder")
    if not file.endswith(DATA_SUFFIXES):
        raise CheckpointError(
            f"{about}: data file {file!r} is not a DCP data file ({', '.join(DATA_SUFFIXES)}); the metadata is corrupt"
        )
    if type(begin) is not int or type(length) is not int or begin < 0 or length < 0:
        raise CheckpointError(f"{about}: storage offset {begin!r} and length {length!r} must be non-negative integers")
    if getattr(info, "transform_descriptors", None):
        raise CheckpointError(
            f"{about}: stored through stream transforms {info.transform_descriptors}, which castwise does not read"
        )
    return file, begin, length


def _sizes(value: Any, about: str) -> tuple[int, ...]:
    if not isinstance(value, (torch.Size, tuple, list)) or not all(type(v) is int and v >= 0 for v in value):
        raise CheckpointError(f"{about}: {value!r} is not a list of non-negative sizes")
    return tuple(value)


def select(names: list[str], key: str | None) -> dict[str, str]:
    """Stored name -> output name: ``key``'s group without its prefix; by default the model's weights."""
    if key == ALL_KEYS:
        return {name: name for name in names}
    if key is None:
        if any(n.startswith(f"{MODEL_GROUP}.") for n in names):
            key = MODEL_GROUP
        else:
            return {n: n for n in names if group_of(n) not in OPTIMIZER_GROUPS}
    chosen = {n: n.removeprefix(f"{key}.") for n in names if n.startswith(f"{key}.") or n == key}
    if not chosen:
        groups = ", ".join(sorted({group_of(n) for n in names})) or "none"
        raise CheckpointError(f"no tensors under key {key!r} in this DCP checkpoint (its groups: {groups})")
    return chosen


def group_of(name: str) -> str:
    """The top-level state key a flattened name belongs to (``model``, ``optim``, ...)."""
    return name.split(".", 1)[0]


class DcpReader:
    """A DCP folder as one weight source: tensors assembled from their chunks, one at a time."""

    def __init__(self, folder: Path, data: bool = True, key: str | None = None) -> None:
        self.path = folder
        self.metadata: dict[str, str] = {}
        self.layout = read_metadata(folder)
        self._names = select(list(self.layout.tensors), key)
        self._stored = {out: stored for stored, out in self._names.items()}
        self._files: dict[str, BinaryIO] = {}
        self._data = data

    def infos(self) -> list[TensorInfo]:
        """Every selected tensor, from the metadata alone."""
        return [
            TensorInfo(
                out,
                t.dtype,
                t.shape,
                math.prod(t.shape) * t.dtype.itemsize,
                "+".join(sorted({c.file for c in t.chunks})) or "-",
            )
            for stored, out in self._names.items()
            for t in [self.layout.tensors[stored]]
        ]

    def findings(self) -> list[str]:
        """The state groups, which of them convert writes, and the non-tensor entries."""
        groups: dict[str, list[_Tensor]] = {}
        for tensor in self.layout.tensors.values():
            groups.setdefault(group_of(tensor.name), []).append(tensor)
        listed = ", ".join(
            f"{g} ({len(ts)} tensors, {sum(math.prod(t.shape) * t.dtype.itemsize for t in ts):,} bytes)"
            for g, ts in groups.items()
        )
        default = select(list(self.layout.tensors), None)
        lines = [
            f"torch.distributed.checkpoint folder, state groups: {listed}; `castwise convert` writes "
            f"{len(default)} tensors by default (the model group without its prefix; --key picks another)"
        ]
        if self.layout.objects:
            ordered = sorted(self.layout.objects, key=lambda n: group_of(n) in OPTIMIZER_GROUPS)
            shown = ", ".join(ordered[:3])
            lines.append(
                f"{len(self.layout.objects)} non-tensor entries (pickled values such as {shown}) "
                "are not weights and are skipped"
            )
        return lines

    def read(self, name: str) -> torch.Tensor:
        """One whole tensor, its chunks copied into place."""
        assert self._data, "opened with data=False"
        tensor = self.layout.tensors[self._stored[name]]
        for chunk in tensor.chunks:  # every chunk's bytes are there before the tensor is allocated
            self._check_present(tensor, chunk)
        if len(tensor.chunks) == 1 and tensor.chunks[0].sizes == tensor.shape:
            return self._chunk(tensor, tensor.chunks[0])
        full = torch.empty(tensor.shape, dtype=tensor.dtype)  # the chunks tile it: every element is written
        for chunk in tensor.chunks:
            view = full
            for dim, (offset, size) in enumerate(zip(chunk.offsets, chunk.sizes)):
                view = view.narrow(dim, offset, size)
            view.copy_(self._chunk(tensor, chunk))
        return full

    def chunks(self, name: str, chunk_bytes: int | None = None) -> Iterator[torch.Tensor]:
        """The tensor's elements in contiguous 1-D pieces."""
        return flat_chunks(self.read(name), chunk_bytes)

    def close(self) -> None:
        """Close the data files."""
        for file in self._files.values():
            file.close()
        self._files = {}

    def _check_present(self, tensor: _Tensor, chunk: _Chunk) -> None:
        end = self._open(chunk.file).seek(0, io.SEEK_END)
        if chunk.begin + chunk.length > end:
            raise CheckpointError(
                f"{self.path / chunk.file}: tensor {tensor.name!r}: its chunk needs bytes {chunk.begin:,}.."
                f"{chunk.begin + chunk.length:,} but the file has {end:,}: the checkpoint is truncated or "
                "incomplete (did every rank finish saving?)"
            )

    def _chunk(self, tensor: _Tensor, chunk: _Chunk) -> torch.Tensor:
        where = f"{self.path / chunk.file}: tensor {tensor.name!r}"
        file = self._open(chunk.file)
        file.seek(chunk.begin)
        raw = file.read(chunk.length)
        if len(raw) != chunk.length:
            raise CheckpointError(f"{where}: the file ended early while it was read: was it changed or truncated?")
        value = _decode_chunk(raw, tensor.dtype, chunk.sizes, where, chunk.file.endswith(RAW_SUFFIX))
        if value.dtype != tensor.dtype or tuple(value.shape) != chunk.sizes:
            raise CheckpointError(
                f"{where}: the stored chunk is {value.dtype} {list(value.shape)} but the metadata says "
                f"{tensor.dtype} {list(chunk.sizes)}; the checkpoint is corrupt"
            )
        return value

    def _open(self, name: str) -> BinaryIO:
        if name not in self._files:
            path = member(self.path, name, f"{self.path / METADATA_NAME}: data file {name!r}", _MISSING_DATA)
            self._files[name] = open(path, "rb")
        return self._files[name]


def _decode_chunk(raw: bytes, dtype: torch.dtype, sizes: tuple[int, ...], where: str, raw_format: bool) -> torch.Tensor:
    """A chunk record: raw bytes (in a safetensors data file, the length checked against the metadata)
    or a ``torch.save`` zip; never guessed from the bytes."""
    if raw_format:
        return torch.frombuffer(bytearray(raw), dtype=dtype).reshape(sizes) if raw else torch.zeros(sizes, dtype=dtype)
    check_zip_pickle(zip_reader(raw, where), where)
    value = load_weights(io.BytesIO(raw), "cpu")
    if not isinstance(value, torch.Tensor):
        raise CheckpointError(f"{where}: its record holds a {type(value).__name__}, not a tensor")
    return value
