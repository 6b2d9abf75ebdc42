"""What ``convert`` writes for each stored tensor: name, dtype, shape and where its data comes from.

Plain tensors are cast chunk by chunk; fp8 weights with scales are dequantized (the scales
dropped); with an fp8 target, 2-D Linear weights are quantized and gain a ``weight_scale_inv``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch

from castwise.checkpoint.dtypes import CASTABLE, storage_dtype
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.fp8_scales import (
    E4M3,
    FP8_DTYPES,
    Fp8Scales,
    NonFinite,
    ScaleGrid,
    dequantized,
    is_scale_name,
    quantize_grid,
    quantized,
)
from castwise.checkpoint.keep import KeepRule, kept_by_name
from castwise.checkpoint.shards import ShardReader
from castwise.checkpoint.tensor_info import TensorInfo
from castwise.policy import dtype_from_name

NOT_QUANTIZED = ("*embed*", "*lm_head*", "*norm*", "*router*", "*.gate", "wte", "wpe", "*classifier*")
"""Weights an fp8 conversion leaves in bf16: embeddings, the LM head, norms and MoE routers."""

FP8_NAMES = ("fp8", "f8", "e4m3", "float8", "float8_e4m3fn")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(I?)B?", re.IGNORECASE)


@dataclass(frozen=True)
class Output:
    """One tensor to write; ``source`` is the stored tensor it reads (None for a computed one)."""

    name: str
    dtype: torch.dtype
    shape: tuple[int, ...]
    source: TensorInfo | None
    chunks: Callable[[ShardReader], Iterable[torch.Tensor]]

    @property
    def nbytes(self) -> int:
        """Bytes it takes in the output file."""
        return math.prod(self.shape) * self.dtype.itemsize


@dataclass(frozen=True)
class Target:
    """What a conversion asks for: a float dtype, the keep-fp32 rule, and fp8 quantization when set."""

    dtype: torch.dtype
    keep: KeepRule
    fp8_block: tuple[int, int] | None
    quantize: bool
    nonfinite: NonFinite = field(default_factory=NonFinite)
    """Quantizing: refuse inf and nan, or clamp them (it counts how many)."""

    def quantization_config(self) -> dict[str, Any]:
        """The DeepSeek-style ``quantization_config`` transformers and vLLM read for fp8 weights."""
        config: dict[str, Any] = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic"}
        if self.fp8_block is not None:
            config["weight_block_size"] = list(self.fp8_block)
        return config


def parse_target(
    dtype: str | torch.dtype, keep: KeepRule, fp8_block: int | str | None, clamp_nonfinite: bool = False
) -> Target:
    """``bf16``/``f16``/``f32``/``f64``, or ``fp8`` (e4m3 Linear weights, the rest bf16)."""
    quantize = isinstance(dtype, torch.dtype) and dtype == E4M3 or str(dtype).strip().lower() in FP8_NAMES
    if fp8_block in (None, "tensor"):
        block = None
    elif str(fp8_block).isdigit() and int(fp8_block) > 0:
        block = (int(fp8_block), int(fp8_block))
    else:
        raise CheckpointError(f"fp8 block {fp8_block!r}: give a positive number of rows and columns (128) or 'tensor'")
    if quantize:
        return Target(torch.bfloat16, keep, block, True, NonFinite(clamp_nonfinite))
    try:
        storage = dtype_from_name(dtype)
    except ValueError as exc:
        raise CheckpointError(f"{exc}, or fp8 to quantize Linear weights") from None
    if clamp_nonfinite:
        raise CheckpointError(f"clamping inf and nan applies only when quantizing to fp8; a cast to {dtype} keeps "
                              "them as they are (drop clamp_nonfinite / --clamp-nonfinite, or convert to fp8)")
    return Target(storage, keep, block, False)


def parse_size(size: int | str | None) -> int | None:
    """Bytes from ``5GB`` (10^9), ``500MiB`` (2^20), ``20KB`` or an int; None stays None."""
    if size is None or isinstance(size, int):
        if isinstance(size, int) and size <= 0:
            raise CheckpointError(f"max shard size {size} must be positive")
        return size
    match = _SIZE.fullmatch(size.strip())
    if match is None or float(match.group(1)) <= 0:
        raise CheckpointError(f"max shard size {size!r}: give bytes or a size such as 5GB, 500MB, 2GiB")
    power = "KMGT".find(match.group(2).upper()) + 1 if match.group(2) else 0
    return int(float(match.group(1)) * (1024 if match.group(3) else 1000) ** power)


def plan_outputs(
    infos: list[TensorInfo], target: Target, scales: Fp8Scales, scale_values: dict[str, torch.Tensor]
) -> list[Output]:
    """The outputs for one weight file's tensors, in file order."""
    outputs: list[Output] = []
    for info in infos:
        kept = target.keep.kept(info.name, info.shape)
        if target.quantize and _quantizable(info, target.keep):
            outputs.extend(_quantized_pair(info, target.fp8_block, target.nonfinite))
        elif info.name in scales.dropped and not target.quantize:
            continue
        elif info.name in scales.grids and not target.quantize:
            grid = scales.grids[info.name]
            dtype = storage_dtype(torch.float32, target.dtype, kept)
            outputs.append(_dequantized(info, dtype, grid, scale_values[grid.scale]))
        elif is_scale_name(info.name):
            outputs.append(_copied(info, info.dtype))
        else:  # an fp8 tensor without a scale upcasts exactly, like a float32 one
            stored = torch.float32 if info.dtype in FP8_DTYPES and not target.quantize else info.dtype
            outputs.append(_copied(info, storage_dtype(stored, target.dtype, kept)))
    return outputs


def _copied(info: TensorInfo, dtype: torch.dtype) -> Output:
    return Output(info.name, dtype, info.shape, info, lambda shard: shard.chunks(info.name))


def _dequantized(info: TensorInfo, dtype: torch.dtype, grid: ScaleGrid, scale: torch.Tensor) -> Output:
    return Output(
        info.name,
        dtype,
        info.shape,
        info,
        lambda shard: dequantized(functools.partial(shard.chunks, info.name), grid, scale, dtype),
    )


def check_quantizable(scales: Fp8Scales, where: str) -> None:
    """Refuse to quantize a checkpoint that already holds fp8 weights."""
    if scales.any:
        raise CheckpointError(
            f"{where} already holds fp8 weights; convert it to bf16 first if you want other fp8 scales"
        )


def _quantizable(info: TensorInfo, keep: KeepRule) -> bool:
    return (
        len(info.shape) == 2
        and info.name.endswith(".weight")
        and info.dtype in CASTABLE
        and not keep.kept(info.name, info.shape)
        and not kept_by_name(info.name, NOT_QUANTIZED)
    )


def _quantized_pair(info: TensorInfo, block: tuple[int, int] | None, nonfinite: NonFinite) -> list[Output]:
    grid = quantize_grid(info.name, info.shape, f"{info.name}_scale_inv", block)
    scales: list[torch.Tensor] = []
    itemsize = info.dtype.itemsize
    weight = Output(
        info.name,
        E4M3,
        info.shape,
        info,
        lambda shard: quantized(functools.partial(shard.chunks, info.name), grid, itemsize, scales, nonfinite),
    )
    shape = grid.grid if block is not None else ()
    scale = Output(grid.scale, torch.float32, shape, None, lambda shard: [s.reshape(-1) for s in scales])
    return [weight, scale]
