"""Reading one weight file tensor by tensor, in bounded chunks: safetensors or torch.

Every reader gives the same three things: ``infos()`` (no data read), ``read(name)`` (one whole
tensor, in fresh memory) and ``chunks(name)`` (the tensor flattened, in pieces of at most
``CHUNK_BYTES``), which is what keeps conversion memory near one chunk rather than one model.
A piece may be overwritten by the next one: use each before asking for the next.

Data is read with positional reads (:mod:`castwise.checkpoint.reads`), never memory-mapped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

import torch

from castwise.checkpoint.dcp import DcpReader
from castwise.checkpoint.dtypes import byte_view, flat_chunks
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.reads import ReadBuffer, piece_elements, read_at
from castwise.checkpoint.safetensors_header import read_header
from castwise.checkpoint.tensor_info import TensorInfo
from castwise.checkpoint.torch_file import TorchFile


class ShardReader(Protocol):
    """One weight file opened for reading."""

    path: Path
    metadata: dict[str, str]

    def infos(self) -> list[TensorInfo]: ...

    def read(self, name: str) -> torch.Tensor: ...

    def chunks(self, name: str, chunk_bytes: int | None = None) -> Iterator[torch.Tensor]: ...

    def close(self) -> None: ...


def claim_names(seen: dict[str, Path], file: Path, infos: Iterable[TensorInfo]) -> None:
    """Record in ``seen`` the tensor names ``file`` holds; refuse one another file already holds
    (which copy is meant cannot be known, as with a name repeated inside one header)."""
    for info in infos:
        other = seen.setdefault(info.name, file)
        if other != file:
            raise CheckpointError(
                f"tensor {info.name!r} is stored in both {other} and {file}: which one is meant cannot be "
                "known; remove one copy (castwise reads a name from one file only)"
            )


def check_unique_names(per_file: Mapping[Path, Iterable[TensorInfo]]) -> None:
    """Refuse a tensor name stored in two of the files (see :func:`claim_names`)."""
    seen: dict[str, Path] = {}
    for file, infos in per_file.items():
        claim_names(seen, file, infos)


def open_shard(path: Path, data: bool = True, key: str | None = None) -> ShardReader:
    """A reader for ``path``; with ``data=False`` only ``infos()`` may be used (headers only).

    A DCP folder reads as one source; ``key`` picks its state group (see ``dcp.select``).
    """
    if path.is_dir():
        return DcpReader(path, data, key)
    if path.suffix == ".safetensors":
        return SafetensorsReader(path, data)
    return TorchReader(path, data)


class SafetensorsReader:
    """A safetensors file: a validated header, then tensor bytes read at their offsets."""

    def __init__(self, path: Path, data: bool = True) -> None:
        self.path = path
        self.header = read_header(path)
        self.metadata = self.header.metadata
        self._entries = {e.name: e for e in self.header.entries}
        self._file = open(path, "rb", buffering=0) if data else None
        self._buffer = ReadBuffer()

    def infos(self) -> list[TensorInfo]:
        """Every tensor in file order, from the header alone."""
        return [TensorInfo(e.name, e.dtype, e.shape, e.nbytes, self.path.name) for e in self.header.entries]

    def read(self, name: str) -> torch.Tensor:
        """One whole tensor, read into fresh memory."""
        entry = self._entries[name]
        tensor = torch.empty(entry.shape, dtype=entry.dtype)
        if entry.nbytes:
            self._read_into(entry.begin, byte_view(tensor))
        return tensor

    def chunks(self, name: str, chunk_bytes: int | None = None) -> Iterator[torch.Tensor]:
        """The tensor's elements in 1-D pieces read into one reused buffer (each valid until the next).

        Without ``chunk_bytes`` the pieces are small enough (``READ_BYTES``) for the buffer to stay
        in the CPU cache while the caller casts or writes it, so the copy a read makes costs little.
        """
        entry = self._entries[name]
        step = piece_elements(entry.dtype.itemsize, chunk_bytes) * entry.dtype.itemsize
        self._buffer.reserve(min(step, entry.nbytes))
        for start in range(0, entry.nbytes, step):
            piece = self._buffer.piece(min(step, entry.nbytes - start))
            self._read_into(entry.begin + start, byte_view(piece))
            yield piece.view(entry.dtype)

    def _read_into(self, offset: int, target: memoryview) -> None:
        assert self._file is not None, "opened with data=False"
        read_at(self._file.fileno(), self.header.data_start + offset, target, self.path)

    def close(self) -> None:
        """Close the file and drop the read buffer."""
        self._buffer.drop()
        if self._file is not None:
            self._file.close()


class TorchReader:
    """A torch file loaded with ``weights_only=True`` on the meta device; data read a storage at a time."""

    def __init__(self, path: Path, data: bool = True) -> None:
        self.path = path
        self.metadata: dict[str, str] = {}
        self._file = TorchFile(path, data)

    def infos(self) -> list[TensorInfo]:
        """Every tensor in the pickle's order; only the pickle itself was read."""
        return [
            TensorInfo(name, t.dtype, tuple(t.shape), math.prod(t.shape) * t.element_size(), self.path.name)
            for name, t in self._file.tensors.items()
        ]

    def read(self, name: str) -> torch.Tensor:
        """One tensor, as stored."""
        return self._file.read(name)

    def chunks(self, name: str, chunk_bytes: int | None = None) -> Iterator[torch.Tensor]:
        """The tensor's elements in contiguous 1-D pieces."""
        return flat_chunks(self._file.read(name), chunk_bytes)

    def close(self) -> None:
        """Drop the tensors and the storage read last."""
        self._file.close()
