"""Where a checkpoint's weights live: one file, a sharded set with its index, or a model folder."""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from castwise.checkpoint.bounded_json import read_json_file
from castwise.checkpoint.dcp import METADATA_NAME, is_dcp_folder
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.members import member
from castwise.checkpoint.torch_file import TORCH_SUFFIXES
from castwise.checkpoint.zero import is_tag_folder, tag_folder, tags_without_latest

CONFIG_NAME = "config.json"
SAFETENSORS_INDEX = "model.safetensors.index.json"
MAX_INDEX_BYTES = 256_000_000
_MISSING_SHARD = ": the download is incomplete; fetch the missing shard"
# In the order transformers prefers them.
_FOLDER_CANDIDATES = ("model.safetensors", SAFETENSORS_INDEX, "pytorch_model.bin", "pytorch_model.bin.index.json")
_WEIGHT_SUFFIXES = (".safetensors", *TORCH_SUFFIXES)
_TRAINER_STATE = ("training_args.bin", "optimizer.pt", "scheduler.pt", "scaler.pt", "rng_state.pth")
"""Pickles the transformers Trainer writes beside the weights: never the model's weights."""
_ZERO_SHARD_SUFFIXES = ("_model_states.pt", "_optim_states.pt")


@dataclass(frozen=True)
class Layout:
    """The weight files of a checkpoint and what surrounds them."""

    path: Path
    files: tuple[Path, ...]
    format: str
    folder: Path | None = None
    index: Path | None = None
    weight_map: dict[str, str] = field(default_factory=dict)
    index_metadata: dict[str, Any] = field(default_factory=dict)
    config: Path | None = None

    @property
    def is_folder(self) -> bool:
        """True for a model folder or a sharded set: converting it gives a folder."""
        return self.folder is not None


def resolve(path: str | Path) -> Layout:
    """Find the weight files behind ``path`` (a file, an ``*.index.json``, a model, DCP or ZeRO folder)."""
    path = Path(path)
    try:
        return _resolve(path)
    except OSError as exc:  # a name too long, a permission denied, a loop of links
        raise CheckpointError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _resolve(path: Path) -> Layout:
    if not path.exists():
        raise CheckpointError(f"{path}: no such file or folder")
    if path.name == METADATA_NAME or is_dcp_folder(path):
        folder = path.parent if path.name == METADATA_NAME else path
        return Layout(folder, (folder,), "dcp", folder=folder, config=_config_beside(folder / METADATA_NAME))
    if path.is_dir():
        return dataclasses.replace(_folder(path), path=path)
    if path.name.endswith(".index.json"):
        return _sharded(path, path.parent)
    if path.name.endswith(_ZERO_SHARD_SUFFIXES) and is_tag_folder(path.parent):
        raise CheckpointError(
            f"{path}: one rank's shard of the DeepSpeed ZeRO checkpoint {path.parent}; castwise reads every "
            "rank's shards together: pass the folder"
        )
    return Layout(path, (path,), _format_of(path), config=_config_beside(path))


def _folder(folder: Path) -> Layout:
    for name in _FOLDER_CANDIDATES:
        candidate = folder / name
        if candidate.is_file():
            return _sharded(candidate, folder) if name.endswith(".index.json") else _single(candidate, folder)
    tag = tag_folder(folder)
    if tag is not None:  # a DeepSpeed checkpoint (its tag folder or the folder naming it), no model weights here
        return Layout(folder, (tag,), "zero", folder=folder, config=_config_beside(tag))
    indexes = sorted(folder.glob("*.index.json"))
    weights = sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix in _WEIGHT_SUFFIXES and p.name not in _TRAINER_STATE
    )
    if len(indexes) == 1:
        return _sharded(indexes[0], folder)
    if len(weights) == 1:
        return _single(weights[0], folder)
    trainer_checkpoints = sorted(p.name for p in folder.glob("checkpoint-*") if p.is_dir())
    if not indexes and not weights and trainer_checkpoints:
        raise CheckpointError(
            f"{folder}: holds no model weights of its own, only the Trainer checkpoint folders "
            f"{', '.join(trainer_checkpoints)}; pass one of them"
        )
    tags = tags_without_latest(folder)
    if not indexes and tags:
        raise CheckpointError(
            f"{folder}: holds the DeepSpeed ZeRO tag folders {', '.join(tags)} but no 'latest' file naming one; "
            "pass one"
        )
    found = ", ".join(p.name for p in (indexes or weights)) or "none"
    raise CheckpointError(f"{folder}: cannot tell which weights to use (found: {found}); pass the file or index path")


def _single(path: Path, folder: Path) -> Layout:
    return Layout(folder, (path,), _format_of(path), folder=folder, config=_config_beside(path))


def _sharded(index: Path, folder: Path) -> Layout:
    document = _read_index(index)
    weight_map = document["weight_map"]
    counts = Counter(weight_map.values())
    files = tuple(
        member(folder, name, f"{index}: names shard {name!r} ({counts[name]} tensors)", _MISSING_SHARD)
        for name in sorted(counts)
    )
    formats = {_format_of(f) for f in files}
    if len(formats) != 1:
        raise CheckpointError(f"{index}: mixes shard formats {sorted(formats)}; expected one")
    metadata = document.get("metadata") or {}
    return Layout(index, files, formats.pop(), folder, index, dict(weight_map), dict(metadata), _config_beside(index))


def _read_index(index: Path) -> dict[str, Any]:
    try:
        document = read_json_file(index, MAX_INDEX_BYTES)
    except ValueError as exc:  # UnicodeDecodeError included
        raise CheckpointError(f"{index}: not a valid JSON index ({exc})") from None
    weight_map = document.get("weight_map") if isinstance(document, dict) else None
    if (
        not isinstance(weight_map, dict)
        or not weight_map
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in weight_map.items())
    ):
        raise CheckpointError(f"{index}: needs a non-empty 'weight_map' from tensor names to shard file names")
    if not isinstance(document.get("metadata", {}), (dict, type(None))):
        raise CheckpointError(f"{index}: 'metadata' must be an object")
    return document


def _format_of(path: Path) -> str:
    if path.suffix == ".safetensors":
        return "safetensors"
    if path.suffix in TORCH_SUFFIXES:
        return "torch"
    raise CheckpointError(
        f"{path}: unsupported file type {path.suffix!r}; expected .safetensors, "
        f"{', '.join(TORCH_SUFFIXES)}, an *.index.json or a model folder"
    )


def _config_beside(path: Path) -> Path | None:
    config = path.parent / CONFIG_NAME
    return config if config.is_file() else None
