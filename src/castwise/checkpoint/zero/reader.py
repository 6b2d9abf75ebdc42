"""A DeepSpeed ZeRO tag folder as one weight source: the model's tensors, streamed from the shards.

The reader gives what every castwise weight source gives (``infos``, ``read``, ``chunks``), so
``inspect`` and ``convert`` treat a ZeRO checkpoint like any other: trainable parameters are the
fp32 master weights, rebuilt piece by piece from the ranks' partitions; frozen parameters and
buffers are as stored. Opening it reads only the pickles; a tensor's elements are read from the
shards when it is read, a chunk at a time into one reused buffer, so memory stays near one chunk
whatever the checkpoint's size.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import torch

from castwise.checkpoint.dtypes import flat_chunks, torch_name
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.reads import ReadBuffer, piece_elements
from castwise.checkpoint.tensor_info import TensorInfo
from castwise.checkpoint.zero.files import ZeroFiles, find_files
from castwise.checkpoint.zero.partitions import Reconstruction, Role, rebuild
from castwise.checkpoint.zero.states import ModelStates, OptimStates, read_model_states, read_optim_states
from castwise.checkpoint.zero.torch_zip import StorageFiles
from castwise.checkpoint.zero.unpickler import StoredTensor

_LISTED = 3


@dataclass(frozen=True)
class ZeroSummary:
    """What a ZeRO checkpoint is: stage, ranks, step, dtypes, sizes (``inspect`` shows it)."""

    tag: str
    stage: int
    world_size: int
    step: int | None
    skipped_steps: int | None
    deepspeed_version: str | None
    master_dtype: str | None
    module_dtype: str | None
    parameters: int
    frozen_parameters: int
    buffers: int
    optimizer_state_bytes: int
    optimizer_state: tuple[str, ...]
    loss_scale: float | None
    dynamic_loss_scale: bool
    tied: dict[str, str]
    from_module: tuple[str, ...]
    """Frozen parameters only the 16-bit module holds (stage 1 saves no other copy)."""
    unrecoverable: tuple[str, ...]
    shard_bytes: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {**vars(self), "optimizer_state": list(self.optimizer_state), "from_module": list(self.from_module)}

    def findings(self) -> list[str]:
        """The checkpoint in a few sentences: what it is, what convert writes, what it leaves out."""
        version = f"DeepSpeed {self.deepspeed_version}" if self.deepspeed_version else "DeepSpeed"
        step = f", step {self.step}" if self.step is not None else ""
        state = ", ".join(self.optimizer_state) or "none"
        lines = [
            f"DeepSpeed ZeRO-{self.stage} checkpoint {self.tag} ({version}, {self.world_size} ranks{step}): "
            f"{self.parameters:,} trainable parameters as {self.master_dtype} master weights beside "
            f"{self.module_dtype or 'unknown'} module weights; optimizer state {self.optimizer_state_bytes:,} bytes "
            f"({state}); {self.shard_bytes:,} bytes of shards, read without DeepSpeed",
            f"convert writes the master weights rounded once to the target dtype, {self.frozen_parameters:,} frozen "
            f"parameters as stored and {self.buffers} buffers",
        ]
        if self.tied:
            pairs = [f"{alias} (= {source})" for alias, source in self.tied.items()]
            lines.append(f"tied parameters written once, under the name that holds them: {_listed(pairs)} left out")
        if self.from_module:
            lines.append(
                f"{len(self.from_module)} parameters are in no optimizer partition (frozen under ZeRO-{self.stage}, "
                f"which keeps no fp32 copy): taken from the 16-bit module weights ({_listed(self.from_module)}); "
                "DeepSpeed's zero_to_fp32.py leaves them out"
            )
        if self.unrecoverable:
            lines.append(
                f"{len(self.unrecoverable)} parameters have no values in the checkpoint (ZeRO-3 placeholders, "
                f"saved with exclude_frozen_parameters?) and are left out: {_listed(self.unrecoverable)}"
            )
        if self.dynamic_loss_scale and self.loss_scale is not None:
            skipped = f"; {self.skipped_steps} steps skipped for overflow" if self.skipped_steps else ""
            lines.append(f"fp16 dynamic loss scale {self.loss_scale:g}{skipped}")
        return lines


class ZeroReader:
    """The tensors of one ZeRO tag folder; with ``data=False`` only ``infos()`` and the summary."""

    def __init__(self, folder: Path, data: bool = True) -> None:
        self.path = folder
        files = find_files(folder)
        models = [read_model_states(p) for p in files.model.values()]
        optims = [read_optim_states(p) for p in files.optim.values()]
        stage = _check_ranks(files, optims)
        reconstruction = rebuild(stage, models, optims)
        self._tensors = {t.name: t for t in reconstruction.tensors}
        self.summary = _summary(files, stage, models, optims, reconstruction)
        self.metadata = {
            "deepspeed.tag": files.tag,
            "deepspeed.zero_stage": str(stage),
            "deepspeed.version": self.summary.deepspeed_version or "unknown",
        }
        self._files = StorageFiles() if data else None
        self._buffer = ReadBuffer()

    def infos(self) -> list[TensorInfo]:
        """Every tensor of the model, in the module's order, from the pickles alone."""
        return [
            TensorInfo(t.name, t.dtype, t.shape, math.prod(t.shape) * t.dtype.itemsize, t.files)
            for t in self._tensors.values()
        ]

    def findings(self) -> list[str]:
        """What the checkpoint is and what a conversion writes (:meth:`ZeroSummary.findings`)."""
        return self.summary.findings()

    def read(self, name: str) -> torch.Tensor:
        """One whole tensor, read into fresh memory."""
        assert self._files is not None, "opened with data=False"
        tensor = self._tensors[name]
        if tensor.strided is not None:
            return self._strided(tensor.strided)
        out = torch.empty(math.prod(tensor.shape), dtype=tensor.dtype)
        position = 0
        for piece in tensor.pieces:
            self._files.read_into(piece.storage, piece.start, out[position : position + piece.count])
            position += piece.count
        return out.reshape(tensor.shape)

    def chunks(self, name: str, chunk_bytes: int | None = None) -> Iterator[torch.Tensor]:
        """The tensor's elements in 1-D pieces read into one reused buffer (each valid until the next)."""
        assert self._files is not None, "opened with data=False"
        tensor = self._tensors[name]
        if tensor.strided is not None:
            yield from flat_chunks(self._strided(tensor.strided), chunk_bytes)
            return
        itemsize = tensor.dtype.itemsize
        step = piece_elements(itemsize, chunk_bytes)
        self._buffer.reserve(min(step, max((p.count for p in tensor.pieces), default=0)) * itemsize)
        for piece in tensor.pieces:
            for start in range(piece.start, piece.start + piece.count, step):
                count = min(step, piece.start + piece.count - start)
                out = self._buffer.piece(count * itemsize).view(tensor.dtype)
                self._files.read_into(piece.storage, start, out)
                yield out

    def close(self) -> None:
        """Close the shards and drop the read buffer."""
        self._buffer.drop()
        if self._files is not None:
            self._files.close()

    def _strided(self, stored: StoredTensor) -> torch.Tensor:
        """A non-contiguous tensor: only the span of its storage it reaches is read, then copied in order."""
        assert self._files is not None
        if stored.numel == 0:
            return torch.empty(stored.shape, dtype=stored.dtype)
        span = 1 + sum((size - 1) * stride for size, stride in zip(stored.shape, stored.stride))
        region = torch.empty(span, dtype=stored.dtype)
        self._files.read_into(stored.storage, stored.offset, region)
        return region.as_strided(stored.shape, stored.stride).clone()


def _check_ranks(files: ZeroFiles, optims: list[OptimStates]) -> int:
    """The stage, once every rank's shard is present exactly once and all agree."""
    stages = {o.stage for o in optims}
    if len(stages) != 1:
        raise CheckpointError(f"{files.folder}: the optimizer shards disagree on the ZeRO stage ({sorted(stages)})")
    stage, world = stages.pop(), optims[0].world_size
    expected = list(range(world))
    wanted = {"optimizer": files.optim, **({"model-state": files.model} if stage == 3 else {})}
    for what, present in wanted.items():
        missing = [r for r in expected if r not in present]
        if missing:
            raise CheckpointError(
                f"{files.folder}: no {what} shard for rank {', '.join(map(str, missing))}: the checkpoint holds "
                f"{len(expected) - len(missing)} of {world} ranks' partitions (did every rank finish saving, "
                "or was a file lost in a copy?)"
            )
        extra = [r for r in present if r >= world]
        if extra:
            raise CheckpointError(
                f"{files.folder}: {what} shards for ranks {extra} beyond the {world} ranks the partitions span "
                "(left by an earlier run with more ranks?)"
            )
    if stage < 3 and len(files.model) != 1:
        raise CheckpointError(f"{files.folder}: ZeRO-{stage} keeps one model-states file, found {len(files.model)}")
    return stage


def _summary(
    files: ZeroFiles, stage: int, models: list[ModelStates], optims: list[OptimStates], rebuilt: Reconstruction
) -> ZeroSummary:
    by_role = {role: [t for t in rebuilt.tensors if t.role is role] for role in Role}
    first = models[0]
    weights = [t for n, t in first.module.items() if n not in first.buffer_names and t.dtype.is_floating_point]
    module_dtype = Counter(t.dtype for t in weights).most_common(1)
    master = by_role[Role.MASTER]
    return ZeroSummary(
        files.tag,
        stage,
        len(optims),
        first.step,
        first.skipped_steps,
        first.version,
        torch_name(master[0].dtype) if master else None,
        torch_name(module_dtype[0][0]) if module_dtype else None,
        sum(math.prod(t.shape) for t in master),
        sum(math.prod(t.shape) for t in (*by_role[Role.FROZEN], *by_role[Role.MODULE])),
        len(by_role[Role.BUFFER]),
        sum(o.state_bytes for o in optims),
        tuple(dict.fromkeys(name for o in optims for name in o.state_names)),
        optims[0].loss_scale,
        optims[0].dynamic_loss_scale,
        rebuilt.tied,
        tuple(t.name for t in by_role[Role.MODULE]),
        rebuilt.unrecoverable,
        sum(path.stat().st_size for path in files.paths),
    )


def _listed(names: tuple[str, ...] | list[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f", … ({len(names) - _LISTED} more)" if len(names) > _LISTED else "")
