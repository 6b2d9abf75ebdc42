"""torch ``.bin``/``.pt``/``.pth`` files, read with ``weights_only=True``: no code ever runs.

A pickle that asks for anything but tensors and plain containers is refused by torch's
weights-only unpickler before any of it executes. Data is memory-mapped (zip format) or, for
inspection, placed on the meta device so no tensor bytes are read.
"""

from __future__ import annotations

import pickle
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from castwise.checkpoint.errors import CheckpointError

TORCH_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt")
_NESTED_KEYS = ("state_dict", "model", "module")
_LFS_POINTER = b"version https://git-lfs"


def _check_torch_bytes(path: Path) -> None:
    """Refuse a file that torch.save cannot have written (a zip archive, a pickle of protocol 2 or more,
    or the old tar format) before unpickling it: a text file is not "a pickle that would run code"."""
    with open(path, "rb") as file:
        head = file.read(512)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"\x80") or head[257:262] == b"ustar":
        return
    if head.startswith(_LFS_POINTER):
        raise CheckpointError(f"{path}: is a Git LFS pointer, not the weights; fetch them first (git lfs pull)")
    what = "is empty" if not head else f"starts with {head[:24]!r}"
    raise CheckpointError(
        f"{path}: not a torch checkpoint: it {what}, where a file torch.save wrote starts with a zip archive "
        "(PK) or a pickle (\\x80); nothing in it was read as a pickle"
    )


def load_torch_file(path: Path, meta: bool = False) -> dict[str, torch.Tensor]:
    """The state dict in a torch file: on the meta device (no data read) or memory-mapped."""
    _check_torch_bytes(path)
    mmap = not meta and zipfile.is_zipfile(path)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Detected pickle protocol")
            loaded = torch.load(path, map_location="meta" if meta else "cpu", weights_only=True, mmap=mmap)
    except pickle.UnpicklingError as exc:
        reason = _unpickling_reason(exc)
        raise CheckpointError(
            f"{path}: refused: its pickle holds more than tensors and would run code when "
            f"unpickled ({reason}); castwise only reads weights (weights_only=True). If you "
            "trust its author, re-save it as a plain state dict or as safetensors"
        ) from None
    except Exception as exc:  # any torch.load failure on a user file is a bad checkpoint
        raise CheckpointError(f"{path}: not a readable torch checkpoint ({type(exc).__name__}: {exc})") from None
    return _dense(_state_dict_of(loaded, path), path)


def _unpickling_reason(exc: pickle.UnpicklingError) -> str:
    """The line of torch's message that names what was refused (it is wrapped in advice)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    named = [line for line in lines if "GLOBAL" in line or line.startswith("Unsupported")]
    return (named or lines or ["not plain weights"])[0].rstrip(".")


def _state_dict_of(loaded: Any, path: Path) -> dict[str, torch.Tensor]:
    if _is_tensor_map(loaded):
        return dict(loaded)
    if isinstance(loaded, Mapping):
        for key in _NESTED_KEYS:
            if _is_tensor_map(loaded.get(key)):
                return dict(loaded[key])
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
