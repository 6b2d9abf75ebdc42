"""What a ZeRO shard holds, checked field by field: the model states and each rank's optimizer states.

The pickles are plain dicts once unpickled (:mod:`castwise.checkpoint.zero.unpickler`); this module
takes only the fields a reconstruction needs, checks each has the kind and range it must, and
says which file and field is wrong when one does not.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.zero.files import plain_text
from castwise.checkpoint.zero.torch_zip import TorchArchive
from castwise.checkpoint.zero.unpickler import MAX_DIMENSIONS, Inert, StoredTensor, is_size, shown, unpickle

Shape = tuple[int, ...]
_MAX_DEPTH = 16
_MAX_RANKS = 65536


@dataclass(frozen=True)
class ModelStates:
    """One model-states file: the 16-bit module, parameter shapes by group, frozen parameters, buffers."""

    path: Path
    module: dict[str, StoredTensor]
    buffer_names: tuple[str, ...]
    param_shapes: tuple[dict[str, Shape], ...]
    frozen_shapes: dict[str, Shape]
    frozen_fragments: dict[str, StoredTensor]
    shared: dict[str, str]
    """Name not stored -> the name of the parameter that holds its data (tied weights)."""
    step: int | None
    skipped_steps: int | None
    version: str | None


@dataclass(frozen=True)
class OptimStates:
    """One rank's optimizer shard: its fp32 partitions and the size of its optimizer state."""

    path: Path
    stage: int
    world_size: int
    partitions: tuple[StoredTensor, ...]
    """Stages 1 and 2: one flat partition per parameter group; stage 3: the rank's flat sub-groups."""
    alignment_paddings: tuple[tuple[int, ...], ...] | None
    state_bytes: int
    state_names: tuple[str, ...]
    loss_scale: float | None
    dynamic_loss_scale: bool


def read_model_states(path: Path) -> ModelStates:
    """The model states in ``path`` (a ``*_model_states.pt`` file)."""
    root = _root(path)
    where = _Where(path)
    if root.get("param_shapes") is None:
        raise CheckpointError(
            f"{path}: has no 'param_shapes', so it is not a ZeRO checkpoint (saved without a ZeRO optimizer?)"
        )
    module = where.mapping(root.get("module"), "module", StoredTensor)
    groups = where.sequence(root["param_shapes"], "param_shapes")
    return ModelStates(
        path,
        module,
        tuple(where.sequence(root.get("buffer_names") or [], "buffer_names", str)),
        tuple(where.shapes(group, f"param_shapes[{i}]") for i, group in enumerate(groups)),
        where.shapes(root.get("frozen_param_shapes") or {}, "frozen_param_shapes"),
        where.mapping(root.get("frozen_param_fragments") or {}, "frozen_param_fragments", StoredTensor),
        where.mapping(root.get("shared_params") or {}, "shared_params", str),
        _count(root.get("global_steps")),
        _count(root.get("skipped_steps")),
        _text(root.get("ds_version")),
    )


def read_optim_states(path: Path) -> OptimStates:
    """One rank's optimizer states in ``path`` (a ``*_optim_states.pt`` file)."""
    root = _root(path)
    where = _Where(path)
    states = root.get("optimizer_state_dict")
    if not isinstance(states, dict):
        raise CheckpointError(f"{path}: has no 'optimizer_state_dict'; not a ZeRO optimizer shard")
    stage = _stage(states.get("zero_stage"), path)
    key = "fp32_flat_groups" if stage == 3 else "single_partition_of_fp32_groups"
    partitions = tuple(where.sequence(states.get(key), key, StoredTensor))
    base = states.get("optimizer_state_dict" if stage == 3 else "base_optimizer_state")
    scaler = states.get("loss_scaler")
    scale = scaler.field("cur_scale") if isinstance(scaler, Inert) else None
    return OptimStates(
        path,
        stage,
        _world_size(states.get("partition_count"), path),
        partitions,
        where.paddings(states.get("param_alignment_paddings")),
        sum(t.nbytes for _, t in _tensors(base)),
        tuple(dict.fromkeys(name for name, _ in _tensors(base))),
        _float(scale),
        states.get("dynamic_loss_scale") is True,
    )


def _root(path: Path) -> dict[str, Any]:
    archive = TorchArchive(path)
    try:
        root = unpickle(archive)
    finally:
        archive.close()
    if not isinstance(root, dict):
        raise CheckpointError(f"{path}: holds a {type(root).__name__}, not a DeepSpeed state dict")
    return root


class _Where:
    """Checks on the fields of one file, each failure naming the file and the field."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, field: str, wanted: str) -> CheckpointError:
        return CheckpointError(f"{self.path}: '{field}' is not {wanted}; the file is corrupt")

    def sequence(self, value: Any, field: str, kind: type | None = None) -> list[Any]:
        if not isinstance(value, (list, tuple)) or (kind is not None and not all(_is(v, kind) for v in value)):
            raise self.fail(field, f"a list of {kind.__name__ if kind else 'values'}")
        return list(value)

    def mapping(self, value: Any, field: str, kind: type) -> dict[str, Any]:
        if not isinstance(value, dict) or not all(isinstance(k, str) and _is(v, kind) for k, v in value.items()):
            raise self.fail(field, f"a mapping of names to {kind.__name__}")
        return dict(value)

    def paddings(self, value: Any) -> tuple[tuple[int, ...], ...] | None:
        field = "param_alignment_paddings"
        if value is None:
            return None
        return tuple(tuple(self.sequence(group, field, int)) for group in self.sequence(value, field))

    def shapes(self, value: Any, field: str) -> dict[str, Shape]:
        if not isinstance(value, dict) or not all(isinstance(k, str) and _is_shape(v) for k, v in value.items()):
            raise self.fail(field, "a mapping of names to shapes")
        return {name: tuple(shape) for name, shape in value.items()}


def _is(value: Any, kind: type) -> bool:
    return is_size(value) if kind is int else isinstance(value, kind)


def _is_shape(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and len(value) <= MAX_DIMENSIONS and all(is_size(v) for v in value)


def _stage(value: Any, path: Path) -> int:
    """The ZeRO stage, from DeepSpeed's ``ZeroStageEnum`` (an inert stand-in here) or a plain int."""
    if isinstance(value, Inert) and value.qualname.endswith("ZeroStageEnum") and len(value.args) == 1:
        value = value.args[0]
    if type(value) is not int or value not in (1, 2, 3):
        raise CheckpointError(f"{path}: zero stage {shown(value)} is not 1, 2 or 3")
    return value


def _world_size(value: Any, path: Path) -> int:
    """Ranks the partitions span: ``partition_count`` (per group for stages 1 and 2; the largest)."""
    counts = value if isinstance(value, (list, tuple)) else [value]
    if not counts or not all(type(c) is int and 0 < c <= _MAX_RANKS for c in counts):
        raise CheckpointError(f"{path}: partition count {shown(value)} is not a positive number of ranks")
    return max(counts)


def _tensors(value: Any, name: str = "", depth: int = 0) -> Iterator[tuple[str, StoredTensor]]:
    """Every tensor inside nested dicts and lists, with the key it sits under."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, StoredTensor):
        yield name, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _tensors(item, key if isinstance(key, str) else name, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item, name, depth + 1)


def _count(value: Any) -> int | None:
    return value if is_size(value) else None


def _float(value: Any) -> float | None:
    """A number as a float; None for anything else (a bool, an integer too large for a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def _text(value: Any) -> str | None:
    return plain_text(value) if isinstance(value, str) else None
