"""Finding a DeepSpeed ZeRO checkpoint's files: the tag folder ``latest`` names, and each rank's shards.

``engine.save_checkpoint("ckpt")`` writes ``ckpt/latest`` (the tag, ``global_stepN``) and
``ckpt/global_stepN/`` holding the model states (``mp_rank_00_model_states.pt`` for stages 1 and 2,
one ``zero_pp_rank_R_mp_rank_00_model_states.pt`` per rank for stage 3) and one optimizer shard
per rank (``[bf16_]zero_pp_rank_R_mp_rank_00_optim_states.pt``) with its fp32 partitions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from castwise.checkpoint.errors import CheckpointError

LATEST = "latest"
_MAX_TAG_BYTES = 4096
_OPTIM = re.compile(r"(?:(?:bf16|fp16)_)?zero_pp_rank_([0-9]+)_mp_rank_([0-9]+)_optim_states\.pt")
_RANK_MODEL = re.compile(r"zero_pp_rank_([0-9]+)_mp_rank_([0-9]+)_model_states\.pt")
_MODEL = re.compile(r"mp_rank_([0-9]+)_model_states\.pt")
_UNSUPPORTED = (
    (re.compile(r".*expp?_rank_.*\.pt|.*expert_.*\.pt"), "mixture-of-experts expert shards"),
    (re.compile(r"layer_[0-9]+-model_states\.pt"), "pipeline-parallel layer files"),
)


@dataclass(frozen=True)
class ZeroFiles:
    """One tag folder's shards, by data-parallel rank."""

    folder: Path
    model: dict[int, Path]
    """Stage 3: every rank's model states; stages 1 and 2: rank 0's only (``mp_rank_00``)."""
    optim: dict[int, Path]

    @property
    def tag(self) -> str:
        """The tag (the folder's name, ``global_stepN``), as text a JSON header can hold."""
        return plain_text(self.folder.name, 255)

    @property
    def paths(self) -> tuple[Path, ...]:
        """Every shard, model states first."""
        return (*self.model.values(), *self.optim.values())


def plain_text(value: str, limit: int = 64) -> str:
    """At most ``limit`` characters of ``value``, those UTF-8 cannot encode (lone surrogates) as ``?``:
    what a shard or a folder name says is written into JSON headers and printed."""
    return value[:limit].encode("utf-8", "replace").decode("utf-8")


def is_tag_folder(path: Path) -> bool:
    """True for a folder holding ZeRO optimizer shards and model states."""
    if not path.is_dir():
        return False
    names = [p.name for p in path.iterdir()]
    models = any(_MODEL.fullmatch(n) or _RANK_MODEL.fullmatch(n) for n in names)
    return models and any(_OPTIM.fullmatch(n) for n in names)


def tag_folder(path: Path) -> Path | None:
    """The tag folder ``path`` is, or the one its ``latest`` file names; None when neither."""
    if is_tag_folder(path):
        return path
    latest = path / LATEST
    if not latest.is_file():
        return None
    with open(latest, "rb") as file:
        raw = file.read(_MAX_TAG_BYTES).decode("utf-8", errors="replace").strip()
    if not raw or Path(raw).name != raw or raw in (".", ".."):
        raise CheckpointError(f"{latest}: names tag {raw[:80]!r}, not a folder name beside it")
    if not is_tag_folder(path / raw):
        raise CheckpointError(
            f"{latest}: names tag {raw!r} but {path / raw} holds no ZeRO shards (was the save interrupted?)"
        )
    return path / raw


def tags_without_latest(path: Path) -> list[str]:
    """Names of the tag folders inside ``path`` (for a message when it has no ``latest``)."""
    if not path.is_dir():
        return []
    return sorted(p.name for p in path.iterdir() if is_tag_folder(p))


def find_files(folder: Path) -> ZeroFiles:
    """The shards of tag folder ``folder``, one optimizer shard per rank, model-parallel rank 0 only."""
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
    for pattern, what in _UNSUPPORTED:
        found = [n for n in names if pattern.fullmatch(n)]
        if found:
            raise CheckpointError(f"{folder}: holds {what} ({found[0]}, ...); castwise reads data-parallel ZeRO only")
    optim = _by_rank(folder, names, _OPTIM, "optimizer")
    staged = _by_rank(folder, names, _RANK_MODEL, "model-state")
    single = [n for n in names if _MODEL.fullmatch(n)]
    if staged:
        model = staged
    elif single:
        model = {0: folder / _model_parallel_zero(folder, single)}
    else:
        raise CheckpointError(f"{folder}: no *_model_states.pt file; the checkpoint is incomplete")
    return ZeroFiles(folder, model, optim)


def _by_rank(folder: Path, names: list[str], pattern: re.Pattern[str], what: str) -> dict[int, Path]:
    found: dict[int, Path] = {}
    for name in names:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        rank, model_parallel = int(match.group(1)), int(match.group(2))
        if model_parallel != 0:
            raise CheckpointError(
                f"{folder}: {name} belongs to model-parallel rank {model_parallel}; castwise reads "
                "checkpoints without tensor or pipeline parallelism"
            )
        if rank in found:
            raise CheckpointError(
                f"{folder}: two {what} shards for rank {rank} ({found[rank].name}, {name}); "
                "remove the one an earlier run left"
            )
        found[rank] = folder / name
    return dict(sorted(found.items()))


def _model_parallel_zero(folder: Path, names: list[str]) -> str:
    others = [n for n in names if n != "mp_rank_00_model_states.pt"]
    if others:
        raise CheckpointError(
            f"{folder}: {others[0]} belongs to another model-parallel rank; castwise reads checkpoints "
            "without tensor or pipeline parallelism"
        )
    return names[0]
