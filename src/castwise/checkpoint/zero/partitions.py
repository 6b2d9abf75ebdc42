"""Where each tensor of a ZeRO checkpoint lies: pieces of the ranks' flat partitions, in order.

ZeRO keeps the fp32 master weights flattened and split over the data-parallel ranks:

- stages 1 and 2: each parameter group is one flat vector (the group's parameters end to end,
  with the alignment padding DeepSpeed records after each) cut into one contiguous partition per
  rank; a parameter may straddle two ranks. The last rank's trailing padding is not saved.
- stage 3: every parameter is cut on its own into ``ceil(numel / world)`` elements per rank (the
  last padded); each rank's partitions lie end to end in its flat sub-groups, at the same offset
  on every rank.

A tensor is rebuilt by reading its pieces in order, so nothing is concatenated or held: a reader
streams the pieces straight from the shard files. Frozen parameters (no fp32 copy: their 16-bit
values) and buffers come from the model states; tied parameters are written once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import torch

from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.zero.states import ModelStates, OptimStates, Shape
from castwise.checkpoint.zero.torch_zip import Storage
from castwise.checkpoint.zero.unpickler import StoredTensor


class Role(Enum):
    """Where a rebuilt tensor's values come from."""

    MASTER = "fp32 master weight"
    FROZEN = "frozen parameter"
    MODULE = "16-bit module weight"
    BUFFER = "buffer"


@dataclass(frozen=True)
class Piece:
    """``count`` consecutive elements of ``storage`` from element ``start``."""

    storage: Storage
    start: int
    count: int


@dataclass(frozen=True)
class Rebuilt:
    """One tensor of the model: its elements are its pieces read in order (or a strided view)."""

    name: str
    dtype: torch.dtype
    shape: Shape
    role: Role
    pieces: tuple[Piece, ...]
    strided: StoredTensor | None = None
    """A non-contiguous stored tensor (a transposed buffer), read whole instead of by pieces."""

    @property
    def files(self) -> str:
        """The shard files its elements come from."""
        source = [self.strided.storage] if self.strided is not None else [p.storage for p in self.pieces]
        return "+".join(dict.fromkeys(s.path.name for s in source)) or "-"


@dataclass(frozen=True)
class Reconstruction:
    """Every tensor of a ZeRO checkpoint, in the module's order, and the tied names left out."""

    tensors: tuple[Rebuilt, ...]
    tied: dict[str, str]
    unrecoverable: tuple[str, ...]
    """Module entries with no data anywhere (ZeRO-3 placeholders of parameters saved without their values)."""


def rebuild(stage: int, models: list[ModelStates], optims: list[OptimStates]) -> Reconstruction:
    """Every tensor of the checkpoint: master weights, frozen parameters, buffers; tied names once."""
    first = models[0]
    world = len(optims)
    master = _stage3_master(first, optims) if stage == 3 else _flat_group_master(first, optims)
    frozen = _stage3_frozen(models, world) if stage == 3 else _stage12_frozen(first)
    buffers = {n: first.module[n] for n in first.buffer_names if n in first.module}
    tensors = _whole(buffers, first, Role.BUFFER)
    for name, tensor in [*frozen.items(), *master.items()]:
        if name in tensors:
            raise CheckpointError(f"{first.path}: names {name!r} twice (as a buffer, frozen or trainable parameter)")
        tensors[name] = tensor
    tied = {alias: source for alias, source in first.shared.items() if source in tensors and alias not in tensors}
    rest = [n for n in first.module if n not in tensors and n not in tied]
    unrecoverable: list[str] = []
    if stage < 3:  # stages 1 and 2 keep whole 16-bit weights: the frozen ones stage 1 saves nowhere else
        tensors.update(_whole({n: first.module[n] for n in rest}, first, Role.MODULE))
    else:
        unrecoverable = rest
    order = {name: i for i, name in enumerate(first.module)}
    ordered = sorted(tensors.values(), key=lambda t: order.get(t.name, len(order)))
    return Reconstruction(tuple(ordered), tied, tuple(unrecoverable))


def _flat_group_master(model: ModelStates, optims: list[OptimStates]) -> dict[str, Rebuilt]:
    """Stages 1 and 2: each group's parameters, end to end over the ranks' partitions of it."""
    world = len(optims)
    counts = {len(o.partitions) for o in optims}
    if counts != {len(model.param_shapes)}:
        raise CheckpointError(
            f"{model.path}: {len(model.param_shapes)} parameter groups, but the ranks hold "
            f"{sorted(counts)} fp32 partitions each; the shards come from different runs"
        )
    paddings = optims[0].alignment_paddings
    master: dict[str, Rebuilt] = {}
    for group, shapes in enumerate(model.param_shapes):
        flat = _Flat([_contiguous(o.partitions[group], o.path) for o in optims])
        pads = paddings[group] if paddings is not None else (0,) * len(shapes)
        if len(pads) != len(shapes):
            raise CheckpointError(
                f"{optims[0].path}: group {group} records {len(pads)} alignment paddings for {len(shapes)} parameters"
            )
        offset = 0
        for (name, shape), pad in zip(shapes.items(), pads):
            pieces = tuple(flat.take(offset, math.prod(shape), name))
            master[name] = Rebuilt(name, flat.dtype, shape, Role.MASTER, pieces)
            offset += math.prod(shape) + pad
        if _aligned(offset, 2 * world) != _aligned(flat.length, 2 * world):
            raise CheckpointError(
                f"{optims[0].path}: group {group}'s parameters take {offset:,} elements but the ranks' "
                f"partitions hold {flat.length:,}; the shards do not match the model states"
            )
    return master


def _stage3_master(model: ModelStates, optims: list[OptimStates]) -> dict[str, Rebuilt]:
    """Stage 3: each parameter's partition at the same offset of every rank's flat sub-groups."""
    world = len(optims)
    flats = [_Flat([_contiguous(p, o.path) for p in o.partitions]) for o in optims]
    if len({f.length for f in flats}) > 1:
        raise CheckpointError(
            f"{optims[0].path.parent}: the ranks hold {sorted({f.length for f in flats})} fp32 elements; "
            "ZeRO-3 ranks hold equal partitions, so the shards come from different runs"
        )
    master: dict[str, Rebuilt] = {}
    offset = 0
    for shapes in model.param_shapes:
        for name, shape in shapes.items():
            if name in master:
                raise CheckpointError(f"{model.path}: parameter {name!r} appears in two groups")
            numel = math.prod(shape)
            per_rank = -(-numel // world)
            pieces = [
                piece
                for rank, flat in enumerate(flats)
                for piece in flat.take(offset, max(0, min(per_rank, numel - rank * per_rank)), name)
            ]
            master[name] = Rebuilt(name, flats[0].dtype, shape, Role.MASTER, tuple(pieces))
            offset += per_rank
    if offset != flats[0].length:
        raise CheckpointError(
            f"{optims[0].path}: the parameters take {offset:,} elements per rank but each rank holds "
            f"{flats[0].length:,}; the shards do not match the model states"
        )
    return master


def _stage3_frozen(models: list[ModelStates], world: int) -> dict[str, Rebuilt]:
    """Stage 3 frozen parameters: each rank's fragment in rank order, the padding cut."""
    frozen: dict[str, Rebuilt] = {}
    for name, shape in models[0].frozen_shapes.items():
        numel, pieces = math.prod(shape), []
        per_rank = -(-numel // world)
        for rank, model in enumerate(models):
            fragment = model.frozen_fragments.get(name)
            if fragment is None:
                raise CheckpointError(f"{model.path}: has no fragment of frozen parameter {name!r}")
            wanted = max(0, min(per_rank, numel - rank * per_rank))
            pieces += _Flat([_contiguous(fragment, model.path)]).take(0, wanted, name)
        dtypes = {model.frozen_fragments[name].dtype for model in models}
        if len(dtypes) > 1:
            raise CheckpointError(f"{models[0].path}: the ranks' fragments of {name!r} differ in dtype")
        frozen[name] = Rebuilt(name, dtypes.pop(), shape, Role.FROZEN, tuple(pieces))
    return frozen


def _stage12_frozen(model: ModelStates) -> dict[str, Rebuilt]:
    """Stages 1 and 2 frozen parameters: whole 16-bit tensors in the model states (stage 2 only)."""
    missing = [name for name in model.frozen_shapes if name not in model.frozen_fragments]
    if missing:
        raise CheckpointError(f"{model.path}: frozen parameters {missing[:3]} have a shape but no values saved")
    return _whole(model.frozen_fragments, model, Role.FROZEN)


def _whole(tensors: dict[str, StoredTensor], model: ModelStates, role: Role) -> dict[str, Rebuilt]:
    """Tensors stored whole (buffers, stage 1 and 2 frozen parameters and module weights)."""
    rebuilt = {}
    for name, tensor in tensors.items():
        if tensor.is_contiguous:
            pieces = (Piece(tensor.storage, tensor.offset, tensor.numel),)
            rebuilt[name] = Rebuilt(name, tensor.dtype, tensor.shape, role, pieces)
        else:
            rebuilt[name] = Rebuilt(name, tensor.dtype, tensor.shape, role, (), tensor)
        if role is Role.FROZEN and name in model.frozen_shapes and model.frozen_shapes[name] != tensor.shape:
            raise CheckpointError(
                f"{model.path}: frozen parameter {name!r} is stored as {list(tensor.shape)} but its "
                f"recorded shape is {list(model.frozen_shapes[name])}"
            )
    return rebuilt


class _Flat:
    """Contiguous stored tensors read as one vector."""

    def __init__(self, parts: list[StoredTensor]) -> None:
        self.parts = parts
        self.length = sum(p.numel for p in parts)
        dtypes = {p.dtype for p in parts}
        if len(dtypes) > 1:
            raise CheckpointError(f"fp32 partitions of mixed dtypes {sorted(map(str, dtypes))}; the shards are corrupt")
        self.dtype = dtypes.pop() if dtypes else torch.float32

    def take(self, start: int, count: int, name: str) -> list[Piece]:
        """The pieces holding elements ``start .. start + count`` of the vector."""
        if start + count > self.length:
            where = self.parts[0].storage.path if self.parts else "the shards"
            raise CheckpointError(
                f"{where}: {name!r} needs elements {start:,}..{start + count:,} but the partition holds "
                f"{self.length:,}; the shards do not match the model states"
            )
        pieces, position = [], 0
        for part in self.parts:
            low, high = max(start, position), min(start + count, position + part.numel)
            if low < high:
                pieces.append(Piece(part.storage, part.offset + low - position, high - low))
            position += part.numel
        return pieces


def _contiguous(tensor: StoredTensor, path: Path) -> StoredTensor:
    if not tensor.is_contiguous:
        raise CheckpointError(f"{path}: a flat partition is not contiguous; the file is corrupt")
    return tensor


def _aligned(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment
