"""fp8 weights and their scales: recognising the pairs, then dequantizing or quantizing row blocks.

Spellings found in the wild, each a multiplier (real value = fp8 value x scale):
DeepSeek-V3 ``W_scale_inv`` (fp32, one per 128x128 block, ``quantization_config.weight_block_size``),
compressed-tensors ``W_scale`` (per tensor or per output channel) and ComfyUI ``scale_weight``
beside ``weight``. Weights are processed a few rows at a time, so memory stays near one chunk.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.tensor_info import TensorInfo

FP8_DTYPES = frozenset(
    getattr(torch, name)
    for name in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")
    if hasattr(torch, name)
)
E4M3 = torch.float8_e4m3fn
E4M3_MAX = torch.finfo(E4M3).max
DEFAULT_BLOCK = (128, 128)
CHUNK_ELEMENTS = 4 * 1024 * 1024
"""Elements of one row block: its fp32 temporaries stay near 16 MiB."""

_SCALE_SUFFIXES = ("_scale_inv", "_scale")
_COMFY_SCALE = "scale_weight"
_ACTIVATION_SCALE = "input_scale"
_LISTED = 3
_VALUES: dict[torch.dtype, torch.Tensor] = {}
_UINT16_SCALES = 256
_GATHER_ELEMENTS = 64 * 1024
"""Elements gathered per numpy call: their offsets stay in the CPU's L2 cache."""
"""Scales one gather table holds while its offsets (256 per scale) fit a uint16."""

Chunks = Callable[[int], Iterable[torch.Tensor]]
"""Gives a stored tensor's elements in 1-D pieces of at most the given number of bytes."""


@dataclass(frozen=True)
class ScaleGrid:
    """How one scale tensor covers its weight: ``block`` rows x columns share one scale value."""

    weight: str
    scale: str
    kind: str  # "tensor", "channel" or "block"
    block: tuple[int, int]
    rows: int
    cols: int

    @property
    def grid(self) -> tuple[int, int]:
        """Scale values along rows and columns."""
        return -(-self.rows // self.block[0]), -(-self.cols // self.block[1])

    def describe(self) -> str:
        """``block 128x128``, ``per channel`` or ``per tensor``."""
        return f"block {self.block[0]}x{self.block[1]}" if self.kind == "block" else f"per {self.kind}"


@dataclass(frozen=True)
class Fp8Scales:
    """The fp8 weights of a checkpoint, their scales, and what does not fit together."""

    grids: dict[str, ScaleGrid]
    unscaled: tuple[str, ...]
    orphans: tuple[str, ...]
    activation_scales: tuple[str, ...]
    mismatches: tuple[str, ...]
    formats: dict[str, int]

    @property
    def dropped(self) -> frozenset[str]:
        """Scale tensors that dequantizing makes meaningless."""
        return frozenset([*(g.scale for g in self.grids.values()), *self.activation_scales])

    @property
    def any(self) -> bool:
        """True when the checkpoint holds fp8 weights or scale tensors."""
        return bool(self.grids or self.unscaled or self.orphans or self.mismatches)

    def check(self, where: str) -> None:
        """Refuse to dequantize when a scale does not fit its weight."""
        if self.mismatches:
            more = f" (and {len(self.mismatches) - 1} more)" if len(self.mismatches) > 1 else ""
            raise CheckpointError(f"{where}: {self.mismatches[0]}{more}; nothing was written")

    def check_values(self, values: dict[str, torch.Tensor], where: str) -> None:
        """Refuse a scale that is not finite and positive: it would dequantize into inf, nan or zero weights."""
        for grid in self.grids.values():
            scale = values[grid.scale].to(torch.float32)
            bad = ~(torch.isfinite(scale) & (scale > 0))
            if bad.any():
                raise CheckpointError(
                    f"{where}: scale {grid.scale!r} of fp8 weight {grid.weight!r} holds {int(bad.sum()):,} values "
                    f"that are not finite and positive (such as {scale[bad][0].item()}): dequantizing would write "
                    "inf, nan or zero weights; nothing was written"
                )

    def findings(self, infos: Sequence[TensorInfo]) -> list[str]:
        """One line per scheme, the size once dequantized, and every mismatch."""
        if not self.any:
            return []
        schemes: dict[str, int] = {}
        for grid in self.grids.values():
            schemes[grid.describe()] = schemes.get(grid.describe(), 0) + 1
        kinds = "/".join(self.formats)
        lines = [f"fp8 {kinds}, {scheme}: {n} weights with scales" for scheme, n in schemes.items()]
        if self.grids:
            lines.append(
                f"dequantized to bf16 this checkpoint holds {_size(self.dequantized_bytes(infos, 2))} "
                "(`castwise convert --dtype bf16` multiplies each weight by its scale and drops the scales)"
            )
        if self.unscaled:
            lines.append(
                f"{len(self.unscaled)} fp8 tensors have no scale ({_names(self.unscaled)}): converting "
                "upcasts them exactly (every e4m3/e5m2 value is a bf16 value)"
            )
        if self.orphans:
            lines.append(f"{len(self.orphans)} scale tensors have no fp8 weight beside them: {_names(self.orphans)}")
        lines.extend(self.mismatches)
        return lines

    def dequantized_bytes(self, infos: Sequence[TensorInfo], itemsize: int) -> int:
        """Tensor bytes once fp8 weights are ``itemsize`` wide and their scales dropped."""
        dropped = self.dropped
        return sum(
            t.numel * itemsize if t.name in self.grids or t.name in self.unscaled else t.nbytes
            for t in infos
            if t.name not in dropped
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "weights": {
                name: {"scale": g.scale, "scheme": g.kind, "block": list(g.block)} for name, g in self.grids.items()
            },
            "formats": self.formats,
            "unscaled": list(self.unscaled),
            "orphan_scales": list(self.orphans),
            "activation_scales": list(self.activation_scales),
            "mismatches": list(self.mismatches),
        }


def find_scales(infos: Sequence[TensorInfo], config: dict[str, Any] | None) -> Fp8Scales:
    """Pair every fp8 weight with its scale tensor by name, shape and ``quantization_config``."""
    by_name = {t.name: t for t in infos}
    config_block = _config_block(config)
    grids: dict[str, ScaleGrid] = {}
    unscaled, mismatches, claimed = [], [], set()
    formats: dict[str, int] = {}
    for info in infos:
        if info.dtype not in FP8_DTYPES or is_scale_name(info.name):
            continue
        formats[_fp8_name(info.dtype)] = formats.get(_fp8_name(info.dtype), 0) + 1
        scale = next((by_name[n] for n in _scale_names(info.name) if n in by_name), None)
        if scale is None:
            unscaled.append(info.name)
            continue
        claimed.add(scale.name)
        grid = _grid(info, scale, config_block)
        if isinstance(grid, str):
            mismatches.append(grid)
        else:
            grids[info.name] = grid
    orphans = [t.name for t in infos if _is_weight_scale_name(t.name) and t.name not in claimed]
    activation = [t.name for t in infos if t.name.rsplit(".", 1)[-1] == _ACTIVATION_SCALE]
    return Fp8Scales(grids, tuple(unscaled), tuple(orphans), tuple(activation), tuple(mismatches), formats)


def dequantized(chunks: Chunks, grid: ScaleGrid, scale: torch.Tensor, dtype: torch.dtype) -> Iterator[torch.Tensor]:
    """The fp8 weight's row blocks times their scales: fp32 products rounded once to ``dtype``.

    Products are looked up, not computed: for the scale rows a chunk covers, a small table holds
    every fp8 value times each of their scales (in fp32, rounded once to ``dtype``), and each
    element is one numpy gather from it at ``byte + 256 x its scale's place`` (an offset pattern
    that is the same for every chunk). One reused buffer holds each chunk's result (the caller
    writes a chunk before asking for the next).
    """
    if grid.rows * grid.cols == 0:  # nothing to write, whatever the other dimension claims
        return
    scales = scale.to(torch.float32).reshape(-1, max(grid.grid[1], 1))
    height = grid.block[0]
    rows = min(_block_rows_per_chunk(grid) * height, _rows_per_chunk(grid), max(grid.rows, 1))
    offsets = _gather_offsets(grid, rows)
    index = np.empty(min(offsets.size, _GATHER_ELEMENTS), dtype=offsets.dtype)
    bits = torch.empty(offsets.size, dtype=dtype)
    row = 0
    for chunk in chunks(rows * grid.cols):
        count = chunk.numel() // max(grid.cols, 1)
        first = row // height
        covered = scales[first : first - (-count // height)]
        table = (covered.reshape(-1, 1) * _fp8_values(chunk.dtype)).to(dtype)
        out = bits[: chunk.numel()]
        _gather(chunk.contiguous().view(torch.uint8).numpy(), offsets, table, _numpy_bits(out), index)
        row += count
        yield out


def _gather(source: np.ndarray, offsets: np.ndarray, table: torch.Tensor, out: np.ndarray, index: np.ndarray) -> None:
    """``out = table[source + offsets]``, a cache-sized piece at a time (the index never leaves L2)."""
    products = _numpy_bits(table.reshape(-1))
    for start in range(0, source.size, max(index.size, 1)):
        end = min(start + index.size, source.size)
        np.add(source[start:end], offsets[start:end], out=index[: end - start])
        np.take(products, index[: end - start], out=out[start:end])


def _block_rows_per_chunk(grid: ScaleGrid) -> int:
    """Block rows in one chunk: near ``CHUNK_ELEMENTS`` elements, and the table within uint16 reach."""
    by_size = CHUNK_ELEMENTS // max(grid.block[0] * grid.cols, 1)
    return max(1, min(by_size, _UINT16_SCALES // max(grid.grid[1], 1)))


def _gather_offsets(grid: ScaleGrid, rows: int) -> np.ndarray:
    """``256 x`` the table row of each element of a chunk of ``rows`` rows, flattened (uint16 when it fits)."""
    places = -(-rows // grid.block[0]) * grid.grid[1]
    kind = np.uint16 if places <= _UINT16_SCALES else np.int64
    row_offsets = (np.arange(rows) // grid.block[0] * grid.grid[1] * 256).astype(kind)
    column_offsets = (np.arange(grid.cols) // grid.block[1] * 256).astype(kind)
    return np.add(row_offsets[:, None], column_offsets[None, :]).reshape(-1)


def _fp8_values(fp8: torch.dtype) -> torch.Tensor:
    """The exact fp32 value of each of the 256 bytes of an fp8 format."""
    values = _VALUES.get(fp8)
    if values is None:
        values = _VALUES[fp8] = torch.arange(256, dtype=torch.uint8).view(fp8).to(torch.float32)
    return values


def _numpy_bits(tensor: torch.Tensor) -> np.ndarray:
    """A numpy view of a 1-D tensor's elements as same-width integers (numpy has no bfloat16)."""
    return tensor.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[tensor.element_size()]).numpy()


def quantize_grid(name: str, shape: tuple[int, ...], scale_name: str, block: tuple[int, int] | None) -> ScaleGrid:
    """The scale layout ``quantized`` writes for a weight: ``block`` sized, or one per tensor."""
    rows, cols = _rows_cols(shape)
    if block is None:
        return ScaleGrid(name, scale_name, "tensor", (max(rows, 1), max(cols, 1)), rows, cols)
    return ScaleGrid(name, scale_name, "block", block, rows, cols)


@dataclass
class NonFinite:
    """What quantizing does with inf and nan: refuse (the default), or clamp them and count how many.

    Clamped, nan becomes 0 and +-inf the largest finite magnitude of its block (its scale is
    computed from the finite values alone).
    """

    clamp: bool = False
    count: int = 0

    def finite_abs(self, block: torch.Tensor, weight: str, counted: bool = True) -> torch.Tensor:
        """``|block|`` with non-finite values as 0, once they are refused or counted."""
        bad = ~torch.isfinite(block)
        found = int(bad.sum())
        if found and not self.clamp:
            raise CheckpointError(
                f"tensor {weight!r}: {found:,} values are inf or nan, which fp8 cannot scale; nothing was "
                "written (`castwise convert --clamp-nonfinite`, or cw.convert(..., clamp_nonfinite=True), "
                "writes nan as 0 and inf as the block's largest finite magnitude, and counts them)"
            )
        self.count += found if counted else 0
        return block.abs().masked_fill_(bad, 0.0) if found else block.abs()


def quantized(
    chunks: Chunks, grid: ScaleGrid, itemsize: int, scales: list[torch.Tensor], nonfinite: NonFinite
) -> Iterator[torch.Tensor]:
    """e4m3 row blocks of a weight; appends each block row's fp32 scales (multipliers) to ``scales``."""
    step = _rows_per_chunk(grid) * grid.cols * itemsize
    if grid.kind == "tensor":
        pieces = (nonfinite.finite_abs(c.float(), grid.weight, counted=False) for c in chunks(step) if c.numel())
        amax = max((float(piece.max()) for piece in pieces), default=0.0)
        scales.append(torch.tensor(_scale_of(torch.tensor(amax)).item(), dtype=torch.float32))
    for chunk in chunks(step):
        block = chunk.reshape(-1, grid.cols).to(torch.float32)
        magnitudes = nonfinite.finite_abs(block, grid.weight)
        if grid.kind == "block":
            scales.append(_scale_of(_block_amax(magnitudes, grid.block)))
        _divide_rows(block, scales[-1], grid)
        yield block.nan_to_num_(0.0, posinf=E4M3_MAX, neginf=-E4M3_MAX).clamp_(-E4M3_MAX, E4M3_MAX).to(E4M3).reshape(-1)


def _scale_of(amax: torch.Tensor) -> torch.Tensor:
    scale = amax.to(torch.float32) / E4M3_MAX
    return torch.where(scale > 0, scale, torch.ones_like(scale))


def _block_amax(magnitudes: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """The largest magnitude of each block; a block larger than the chunk is the chunk (never padded to it)."""
    rows, cols = magnitudes.shape
    height, width = min(size[0], max(rows, 1)), min(size[1], max(cols, 1))
    padded = torch.nn.functional.pad(magnitudes, (0, -cols % width, 0, -rows % height))
    return padded.reshape(padded.shape[0] // height, height, -1, width).amax(dim=(1, 3))


def _divide_rows(block: torch.Tensor, scale: torch.Tensor, grid: ScaleGrid) -> None:
    """Divide a chunk of whole block rows by its scales in place (one per tensor, or per block).

    Block scales are broadcast over views of whole blocks: no full-size scale tensor is built, and
    a block wider than the weight is repeated only across the weight's columns.
    """
    if grid.kind == "tensor":
        block.div_(scale.reshape(()))
        return
    rows = block.shape[0]
    height, width = grid.block
    whole = rows // height
    per_column = scale.reshape(-1, grid.grid[1]).repeat_interleave(min(width, grid.cols), dim=1)[:, : grid.cols]
    if whole:
        block[: whole * height].view(whole, height, grid.cols).div_(per_column[:whole, None, :])
    if rows % height:
        block[whole * height :].div_(per_column[whole])


def _rows_per_chunk(grid: ScaleGrid) -> int:
    rows = max(1, CHUNK_ELEMENTS // max(grid.cols, 1))
    height = grid.block[0] if grid.kind == "block" else 1
    return max(height, rows // height * height)


def _rows_cols(shape: tuple[int, ...]) -> tuple[int, int]:
    """A weight seen as a matrix: output channels by everything else (one row below 2-D)."""
    return (shape[0], math.prod(shape[1:])) if len(shape) >= 2 else (1, math.prod(shape))


def _grid(weight: TensorInfo, scale: TensorInfo, config_block: tuple[int, int] | None) -> ScaleGrid | str:
    rows, cols = _rows_cols(weight.shape)
    about = f"scale {scale.name!r} {list(scale.shape)} for fp8 weight {weight.name!r} {list(weight.shape)}"
    if not scale.dtype.is_floating_point or scale.dtype in FP8_DTYPES:
        return f"{about}: stored as {scale.dtype}, expected a float32/bfloat16/float16 multiplier"
    if scale.numel == 1:
        return ScaleGrid(weight.name, scale.name, "tensor", (max(rows, 1), max(cols, 1)), rows, cols)
    if scale.shape in ((rows,), (rows, 1)) and len(weight.shape) >= 2:
        return ScaleGrid(weight.name, scale.name, "channel", (1, max(cols, 1)), rows, cols)
    block = config_block or DEFAULT_BLOCK
    grid = ScaleGrid(weight.name, scale.name, "block", block, rows, cols)
    if len(weight.shape) == 2 and scale.shape == grid.grid:
        return grid
    source = "quantization_config.weight_block_size" if config_block else "the default block, no weight_block_size"
    return (
        f"{about} does not cover it: per tensor needs 1 value, per channel [{rows}, 1], blocks of "
        f"{block[0]}x{block[1]} ({source}) need {list(grid.grid)}"
    )


def _config_block(config: dict[str, Any] | None) -> tuple[int, int] | None:
    quantization = (config or {}).get("quantization_config")
    block = quantization.get("weight_block_size") if isinstance(quantization, dict) else None
    if isinstance(block, list) and len(block) == 2 and all(type(v) is int and v > 0 for v in block):
        return block[0], block[1]
    return None


def _scale_names(weight: str) -> list[str]:
    owner, _, leaf = weight.rpartition(".")
    prefix = f"{owner}." if owner else ""
    names = [f"{weight}{suffix}" for suffix in _SCALE_SUFFIXES]
    return [*names, f"{prefix}{_COMFY_SCALE}"] if leaf == "weight" else names


def _is_weight_scale_name(name: str) -> bool:
    leaf = name.rsplit(".", 1)[-1]
    return leaf == _COMFY_SCALE or (leaf.endswith(_SCALE_SUFFIXES) and leaf.startswith("weight"))


def is_scale_name(name: str) -> bool:
    """True for a weight or activation scale's spelling: never cast as if it were a weight."""
    return _is_weight_scale_name(name) or name.rsplit(".", 1)[-1] == _ACTIVATION_SCALE


def _fp8_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.float8_").removesuffix("fn")


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f", … ({len(names) - _LISTED} more)" if len(names) > _LISTED else "")


def _size(nbytes: int) -> str:
    return f"{nbytes / 2**20:,.1f} MiB" if nbytes >= 2**20 else f"{nbytes:,} B"
