"""What castwise knows about one stored tensor without reading its data."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from castwise.checkpoint.dtypes import torch_name


@dataclass(frozen=True)
class TensorInfo:
    """A stored tensor: name, dtype, shape, size in bytes and the file that holds it."""

    name: str
    dtype: torch.dtype
    shape: tuple[int, ...]
    nbytes: int
    file: str

    @property
    def numel(self) -> int:
        """Number of elements (parameters)."""
        return self.nbytes // self.dtype.itemsize

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "dtype": torch_name(self.dtype),
            "shape": list(self.shape),
            "bytes": self.nbytes,
            "file": self.file,
        }
