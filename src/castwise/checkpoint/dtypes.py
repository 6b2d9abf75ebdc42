"""safetensors dtype codes, which dtypes a conversion may cast, and raw byte views of tensors."""

from __future__ import annotations

from collections.abc import Iterator

import torch

CHUNK_BYTES = 16 * 1024 * 1024
"""How much of a tensor is cast and written at a time (conversion memory stays near one chunk)."""

_OPTIONAL_CODES = {
    "F4": "float4_e2m1fn_x2",
    "F8_E4M3": "float8_e4m3fn",
    "F8_E4M3FNUZ": "float8_e4m3fnuz",
    "F8_E5M2": "float8_e5m2",
    "F8_E5M2FNUZ": "float8_e5m2fnuz",
    "F8_E8M0": "float8_e8m0fnu",
    "U64": "uint64",
    "U32": "uint32",
    "U16": "uint16",
}

CODE_TO_DTYPE: dict[str, torch.dtype] = {
    "BOOL": torch.bool,
    "U8": torch.uint8,
    "I8": torch.int8,
    "I16": torch.int16,
    "I32": torch.int32,
    "I64": torch.int64,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "F32": torch.float32,
    "F64": torch.float64,
    "C64": torch.complex64,
    **{code: getattr(torch, name) for code, name in _OPTIONAL_CODES.items() if hasattr(torch, name)},
}

DTYPE_TO_CODE: dict[torch.dtype, str] = {dtype: code for code, dtype in CODE_TO_DTYPE.items()}

CASTABLE: frozenset[torch.dtype] = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
"""Floating dtypes a conversion may change; fp8 (needs scales), complex, int and bool never are."""


def storage_dtype(stored: torch.dtype, target: torch.dtype | None, kept: bool) -> torch.dtype:
    """The dtype a tensor is written in: ``target`` for castable floats, fp32 at least when kept."""
    if target is None or stored not in CASTABLE:
        return stored
    if kept and target.itemsize < torch.float32.itemsize:
        return torch.float32
    return target


def torch_name(dtype: torch.dtype) -> str:
    """``torch.bfloat16`` -> ``"bfloat16"`` (the spelling config.json and transformers use)."""
    return str(dtype).removeprefix("torch.")


def byte_view(tensor: torch.Tensor) -> memoryview:
    """The raw bytes of a contiguous CPU tensor, without a copy (writable when the tensor is)."""
    return tensor.reshape(-1).view(torch.uint8).numpy().data


def flat_chunks(tensor: torch.Tensor, chunk_bytes: int | None = None) -> Iterator[torch.Tensor]:
    """``tensor`` flattened into contiguous pieces of at most ``chunk_bytes`` (default CHUNK_BYTES)."""
    flat = tensor.detach().contiguous().reshape(-1)
    step = max(1, (chunk_bytes or CHUNK_BYTES) // max(1, flat.element_size()))
    for start in range(0, flat.numel(), step):
        yield flat[start : start + step]
