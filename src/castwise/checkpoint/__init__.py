"""Checkpoints that keep their dtype: save, load, inspect and convert (safetensors, torch, HF folders)."""

from castwise.checkpoint.conversion import ConvertResult, convert
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.inspection import CheckpointInfo, DtypeSummary, inspect
from castwise.checkpoint.saving import LoadResult, load, load_into, save
from castwise.checkpoint.tensor_info import TensorInfo

__all__ = [
    "CheckpointError",
    "CheckpointInfo",
    "ConvertResult",
    "DtypeSummary",
    "LoadResult",
    "TensorInfo",
    "convert",
    "inspect",
    "load",
    "load_into",
    "save",
]
