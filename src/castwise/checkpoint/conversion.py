"""``convert``: any supported checkpoint in, safetensors out; streaming and atomic.

One chunk of one tensor is in memory at a time. A file in gives a file out; a folder (or a
sharded index) in gives a folder out: shards, an index, ``config.json`` with its dtype updated,
and every other file copied.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

import torch

from castwise.checkpoint.atomic import atomic_file, atomic_folder, check_destination
from castwise.checkpoint.dtypes import storage_dtype, torch_name
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.hf_config import write_config_with_dtype
from castwise.checkpoint.keep import keep_globs, kept_by_name
from castwise.checkpoint.layout import CONFIG_NAME, SAFETENSORS_INDEX, Layout, resolve
from castwise.checkpoint.metadata import castwise_metadata
from castwise.checkpoint.safetensors_header import plan_entries
from castwise.checkpoint.shards import ShardReader, open_shard
from castwise.checkpoint.writer import SafetensorsWriter
from castwise.policy import dtype_from_name

Progress = Callable[[int, int], None]
"""Called with (bytes done, bytes in all) as tensor data is converted."""

_OTHER_WEIGHTS = ("model*.safetensors", "pytorch_model*.bin", "*.safetensors.index.json", "pytorch_model.bin.index.json")


@dataclass(frozen=True)
class ConvertResult:
    """What ``convert`` wrote."""

    destination: str
    files: tuple[str, ...]
    tensors: int
    cast: int
    bytes_read: int
    bytes_written: int


@dataclass
class _Job:
    target: torch.dtype
    globs: tuple[str, ...]
    total: int
    progress: Progress | None
    done: int = 0
    cast: int = 0
    written: int = 0
    tensors: int = 0

    def tick(self, nbytes: int) -> None:
        self.done += nbytes
        if self.progress is not None:
            self.progress(self.done, self.total)


def convert(
    src: str | Path,
    dst: str | Path,
    dtype: str | torch.dtype,
    keep_fp32: Iterable[str] | str | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> ConvertResult:
    """Write ``src`` as safetensors in ``dtype`` (kept tensors fp32; ints and bools untouched)."""
    layout = resolve(src)
    destination = Path(dst)
    check_destination(destination, force, [layout.path, *layout.files, *filter(None, [layout.folder])])
    total = 0
    for file in layout.files:
        with closing(open_shard(file, data=False)) as shard:
            total += sum(info.nbytes for info in shard.infos())
    job = _Job(dtype_from_name(dtype), keep_globs(keep_fp32), total, progress)
    one_file = destination.suffix == ".safetensors"
    if layout.is_folder and not one_file:
        if destination.exists() and not destination.is_dir():
            raise CheckpointError(f"{destination} is a file; a folder in gives a folder out, name a folder")
        files = _convert_folder(layout, destination, job, force)
    elif not one_file:
        raise CheckpointError(f"{destination}: convert writes safetensors; name it *.safetensors")
    elif len(layout.files) > 1:
        raise CheckpointError(f"{layout.path} has {len(layout.files)} shards, so it converts to a folder: name a folder")
    else:  # a file, or a folder holding one weight file, to one file
        with atomic_file(destination, force) as out:
            _convert_file(layout.files[0], out, job)
        files = (str(destination),)
    return ConvertResult(str(destination), files, job.tensors, job.cast, job.done, job.written)


def _convert_file(source: Path, out: BinaryIO, job: _Job) -> list[str]:
    """Stream one weight file into ``out``; returns the names of its tensors."""
    with closing(open_shard(source)) as shard:
        infos = shard.infos()
        plan = [
            (i.name, storage_dtype(i.dtype, job.target, kept_by_name(i.name, job.globs)), i.shape) for i in infos
        ]
        entries = plan_entries(plan)
        writer = SafetensorsWriter(out, entries, castwise_metadata(dict(shard.metadata), job.target, job.globs, None))
        for info, entry in zip(infos, entries):
            job.written += writer.write_tensor(info.name, _ticking(shard, info.name, job))
            job.cast += entry.dtype != info.dtype
            job.tensors += 1
        writer.finish()
        return [e.name for e in entries]


def _ticking(shard: ShardReader, name: str, job: _Job) -> Iterable[torch.Tensor]:
    for chunk in shard.chunks(name):
        yield chunk
        job.tick(chunk.numel() * chunk.element_size())


def _convert_folder(layout: Layout, destination: Path, job: _Job, force: bool) -> tuple[str, ...]:
    assert layout.folder is not None
    names = _shard_names(len(layout.files))
    with atomic_folder(destination, force) as staging:
        weight_map: dict[str, str] = {}
        for source, name in zip(layout.files, names):
            with open(staging / name, "wb") as out:
                weight_map.update({tensor: name for tensor in _convert_file(source, out, job)})
        if len(names) > 1:
            _write_index(staging / SAFETENSORS_INDEX, layout, weight_map, job)
        if layout.config is not None:
            write_config_with_dtype(layout.config, staging / CONFIG_NAME, job.target)
        _copy_other_files(layout, staging)
    return tuple(str(destination / name) for name in names)


def _shard_names(count: int) -> list[str]:
    if count == 1:
        return ["model.safetensors"]
    return [f"model-{i:05d}-of-{count:05d}.safetensors" for i in range(1, count + 1)]


def _write_index(path: Path, layout: Layout, weight_map: dict[str, str], job: _Job) -> None:
    metadata = {**layout.index_metadata, "total_size": job.written}
    if "dtype" in metadata:
        metadata["dtype"] = torch_name(job.target)
    document = {"metadata": metadata, "weight_map": dict(sorted(weight_map.items()))}
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def _copy_other_files(layout: Layout, staging: Path) -> None:
    assert layout.folder is not None
    skip = {*layout.files, layout.index, layout.config}
    for entry in layout.folder.iterdir():
        if entry in skip or entry.name.startswith(".") and ".castwise-" in entry.name:
            continue
        if entry.is_dir():
            shutil.copytree(entry, staging / entry.name, symlinks=True)
        elif not any(fnmatch.fnmatch(entry.name, pattern) for pattern in _OTHER_WEIGHTS):
            shutil.copy2(entry, staging / entry.name)
