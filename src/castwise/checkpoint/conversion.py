"""``convert``: any supported checkpoint in, safetensors out; streaming and atomic.

One chunk of one tensor is in memory at a time (a whole tensor for a DCP folder, whose tensors
are assembled from their chunks). A file in gives a file out; a folder (a sharded index, a DCP
folder) in gives a folder out: shards, an index, ``config.json`` with its dtype updated, and
every other top-level file and folder copied, except the Trainer's ``checkpoint-N`` snapshots
(skipped and reported; convert one by naming it). Temporaries that killed conversions left beside
the destination are removed first and reported. fp8 weights with scales are dequantized;
``dtype="fp8"`` quantizes.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import re
import shutil
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import torch

from castwise.checkpoint.atomic import atomic_file, atomic_folder, check_destination, remove_stale_temporaries
from castwise.checkpoint.dtypes import torch_name
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.fp8_scales import E4M3, Fp8Scales, find_scales
from castwise.checkpoint.hf_config import QUANTIZATION_KEY, read_config, write_config_with_dtype
from castwise.checkpoint.keep import KeepRule, keep_globs
from castwise.checkpoint.layout import CONFIG_NAME, SAFETENSORS_INDEX, Layout, resolve
from castwise.checkpoint.metadata import castwise_metadata
from castwise.checkpoint.plan import Output, Target, check_quantizable, parse_size, parse_target, plan_outputs
from castwise.checkpoint.safetensors_header import plan_entries
from castwise.checkpoint.shards import ShardReader, check_unique_names
from castwise.checkpoint.source_guard import SourceGuard
from castwise.checkpoint.sources import open_source
from castwise.checkpoint.tensor_info import TensorInfo
from castwise.checkpoint.writer import SafetensorsWriter

Progress = Callable[[int, int], None]
"""Called with (bytes done, bytes in all) as tensor data is converted."""

_OTHER_WEIGHTS = (
    "model*.safetensors",
    "pytorch_model*.bin",
    "*.safetensors.index.json",
    "pytorch_model.bin.index.json",
)
_TRAINER_CHECKPOINT = re.compile(r"checkpoint-[0-9]+")


@dataclass(frozen=True)
class ConvertResult:
    """What ``convert`` wrote."""

    destination: str
    files: tuple[str, ...]
    tensors: int
    cast: int
    bytes_read: int
    bytes_written: int
    dequantized: int = 0
    quantized: int = 0
    scales_dropped: int = 0
    skipped: tuple[str, ...] = ()
    stale_removed: tuple[str, ...] = ()
    keep_rule: str = ""
    """What decided which tensors stayed fp32 (module classes, or norm name spellings); empty when the
    dtype narrows no tensor (f32, f64), so no keep rule applied."""
    nonfinite_clamped: int = 0
    """inf and nan values quantizing clamped (``clamp_nonfinite=True``; refused otherwise)."""


@dataclass
class _Job:
    target: Target
    key: str | None
    plans: dict[Path, list[Output]]
    total: int
    progress: Progress | None
    guard: SourceGuard
    keep_rule: str = ""
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
    *,
    key: str | None = None,
    config: str | Path | None = None,
    max_shard_size: int | str | None = None,
    fp8_block: int | str | None = 128,
    clamp_nonfinite: bool = False,
) -> ConvertResult:
    """Write ``src`` as safetensors in ``dtype`` (kept tensors fp32; ints and bools untouched).

    fp8 weights with scales are dequantized (the scales dropped); ``dtype="fp8"`` quantizes 2-D
    Linear weights to e4m3 with ``fp8_block``-square scales (``"tensor"``: one per weight). A DCP
    folder writes its model weights (``key`` picks another state group); ``max_shard_size``
    (bytes or ``"5GB"``) splits a folder's output; ``config`` names a config.json to write beside.
    Quantizing refuses inf and nan unless ``clamp_nonfinite`` (nan to 0, inf to the block's largest
    finite magnitude; the result counts them), which any other ``dtype`` refuses.
    """
    layout = resolve(src)
    guard = SourceGuard.of(layout)  # before anything is read: a change while reading refuses the output
    destination = Path(dst)
    check_destination(destination, force, [layout.path, *layout.files, *filter(None, [layout.folder])])
    if key is not None and layout.format != "dcp":
        raise CheckpointError(
            f"{layout.path}: --key picks a state group of a DCP folder; this is a {layout.format} checkpoint"
        )
    if max_shard_size is not None and not layout.is_folder:
        raise CheckpointError(
            f"{layout.path}: --max-shard-size (max_shard_size) splits a folder's output, and one file converts to "
            "one file: drop it"
        )
    # dtype checked before a skeleton is built
    target = parse_target(dtype, KeepRule(keep_globs(keep_fp32)), fp8_block, clamp_nonfinite)
    config_path = Path(config) if config is not None else layout.config
    if target.dtype.itemsize < 4:  # the keep rule matters only when something is narrowed
        target = dataclasses.replace(target, keep=KeepRule.of_config(config_path, target.keep.globs))
    infos = {file: _infos(file, key) for file in layout.files}
    _check_globs(target, [i for file in infos.values() for i in file], layout.path)
    check_unique_names(infos)
    scales = find_scales(
        [i for file in infos.values() for i in file], read_config(config_path) if config_path else None
    )
    if target.quantize:
        check_quantizable(scales, str(layout.path))
    else:
        scales.check(str(layout.path))
    values = _scale_values(layout, key, scales)
    plans = {file: plan_outputs(infos[file], target, scales, values) for file in layout.files}
    total = sum(o.source.nbytes for outputs in plans.values() for o in outputs if o.source is not None)
    narrows = target.dtype.itemsize < 4  # the keep rule decides only what would be narrowed
    rule = target.keep.describe(i.name for f in infos.values() for i in f) if narrows else ""
    job = _Job(target, key, plans, total, progress, guard, rule)
    stale = tuple(str(path) for path in remove_stale_temporaries(destination))
    skipped: tuple[str, ...] = ()
    one_file = destination.suffix == ".safetensors"
    if layout.is_folder and not one_file:
        if destination.exists() and not destination.is_dir():
            raise CheckpointError(f"{destination} is a file; a folder in gives a folder out, name a folder")
        files, skipped = _convert_folder(
            layout, destination, job, force, config_path, _config_updates(target, scales), parse_size(max_shard_size)
        )
    elif not one_file:
        raise CheckpointError(f"{destination}: convert writes safetensors; name it *.safetensors")
    elif len(layout.files) > 1:
        raise CheckpointError(
            f"{layout.path} has {len(layout.files)} shards, so it converts to a folder: name a folder"
        )
    elif max_shard_size is not None:
        raise CheckpointError(f"{destination}: --max-shard-size splits a folder's output; name a folder, not a file")
    else:  # a file, or a folder holding one weight file, to one file
        with atomic_file(destination, force) as out, closing(open_source(layout.files[0], key=key)) as shard:
            _write_outputs(shard, plans[layout.files[0]], out, job)
        files = (str(destination),)
    fp8: tuple[int, int, int] = (
        (0, sum(o.dtype == E4M3 for p in plans.values() for o in p), 0)
        if target.quantize
        else (len(scales.grids), 0, len(scales.dropped))
    )
    return ConvertResult(
        str(destination),
        files,
        job.tensors,
        job.cast,
        job.done,
        job.written,
        *fp8,
        skipped=skipped,
        stale_removed=stale,
        keep_rule=job.keep_rule,
        nonfinite_clamped=target.nonfinite.count,
    )


def _check_globs(target: Target, infos: list[TensorInfo], source: Path) -> None:
    """Refuse, before anything is written, keep-fp32 globs that keep no tensor when narrowing."""
    unmatched = target.keep.unmatched((i.name, i.shape) for i in infos) if target.dtype.itemsize < 4 else ()
    if unmatched:
        hints = [f"its names look like {infos[0].name!r}"] if infos else []
        if target.keep.owners is None and target.keep.no_classes_because:
            hints.append(f"module classes are unknown, as {target.keep.no_classes_because}")
        raise CheckpointError(
            f"{source}: --keep-fp32 (keep_fp32) {', '.join(map(repr, unmatched))} matches no tensor "
            f"({'; '.join(hints)}), so it would keep nothing in fp32; nothing was written"
        )


def _infos(file: Path, key: str | None) -> list[TensorInfo]:
    with closing(open_source(file, data=False, key=key)) as shard:
        return shard.infos()


def _scale_values(layout: Layout, key: str | None, scales: Fp8Scales) -> dict[str, torch.Tensor]:
    """Every scale tensor a dequantization needs, read up front (they are small)."""
    wanted = {grid.scale for grid in scales.grids.values()}
    values: dict[str, torch.Tensor] = {}
    for file in layout.files if wanted else ():
        with closing(open_source(file, key=key)) as shard:
            values.update({i.name: shard.read(i.name).clone() for i in shard.infos() if i.name in wanted})
    scales.check_values(values, str(layout.path))
    return values


def _config_updates(target: Target, scales: Fp8Scales) -> dict[str, object]:
    """``quantization_config`` set when quantizing, removed once fp8 weights are dequantized."""
    if target.quantize:
        return {QUANTIZATION_KEY: target.quantization_config()}
    return {QUANTIZATION_KEY: None} if scales.grids else {}


def _write_outputs(shard: ShardReader, outputs: list[Output], out: BinaryIO, job: _Job) -> list[str]:
    """Stream ``outputs`` of one source into the safetensors file ``out``; returns their names."""
    job.guard.check()  # the source reopened is the one planned from (not replaced since)
    entries = plan_entries([(o.name, o.dtype, o.shape) for o in outputs])
    stored = E4M3 if job.target.quantize else job.target.dtype
    writer = SafetensorsWriter(
        out, entries, castwise_metadata(dict(shard.metadata), stored, job.target.keep.globs, None, job.keep_rule)
    )
    for output, entry in zip(outputs, entries):
        job.written += writer.write_tensor(output.name, _ticking(output, shard, job))
        job.cast += output.source is None or entry.dtype != output.source.dtype
        job.tensors += 1
    writer.finish()
    job.guard.check()
    return [e.name for e in entries]


def _ticking(output: Output, shard: ShardReader, job: _Job) -> Iterable[torch.Tensor]:
    """The output's chunks, counting progress in the bytes of the stored tensor they come from."""
    itemsize = output.source.dtype.itemsize if output.source is not None else 0
    for chunk in output.chunks(shard):
        yield chunk
        job.tick(chunk.numel() * itemsize)


def _convert_folder(
    layout: Layout,
    destination: Path,
    job: _Job,
    force: bool,
    config: Path | None,
    config_updates: dict[str, object],
    max_bytes: int | None,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Write the converted folder; returns its weight files and the subfolders skipped."""
    parts = {file: _split(job.plans[file], max_bytes) for file in layout.files}
    names = _shard_names(sum(len(p) for p in parts.values()))
    unused = iter(names)
    with atomic_folder(destination, force) as staging:
        weight_map: dict[str, str] = {}
        for file, outputs in parts.items():
            with closing(open_source(file, key=job.key)) as shard:
                for part, name in zip(outputs, unused):
                    with open(staging / name, "wb") as out:
                        weight_map.update({tensor: name for tensor in _write_outputs(shard, part, out, job)})
        if len(names) > 1:
            _write_index(staging / SAFETENSORS_INDEX, layout, weight_map, job)
        if config is not None:
            write_config_with_dtype(config, staging / CONFIG_NAME, job.target.dtype, config_updates)
        skipped = _copy_other_files(layout, staging) if layout.format not in ("dcp", "zero") else ()  # only their data
    return tuple(str(destination / name) for name in names), skipped


def _split(outputs: list[Output], max_bytes: int | None) -> list[list[Output]]:
    """Consecutive outputs in groups of at most ``max_bytes`` (a larger tensor alone); one group without a bound."""
    if max_bytes is None:
        return [outputs]
    groups: list[list[Output]] = [[]]
    size = 0
    for output in outputs:
        if groups[-1] and size + output.nbytes > max_bytes:
            groups.append([])
            size = 0
        groups[-1].append(output)
        size += output.nbytes
    return groups


def _shard_names(count: int) -> list[str]:
    if count == 1:
        return ["model.safetensors"]
    return [f"model-{i:05d}-of-{count:05d}.safetensors" for i in range(1, count + 1)]


def _write_index(path: Path, layout: Layout, weight_map: dict[str, str], job: _Job) -> None:
    metadata = {**layout.index_metadata, "total_size": job.written}
    if "dtype" in metadata:
        metadata["dtype"] = torch_name(job.target.dtype)
    document = {"metadata": metadata, "weight_map": dict(sorted(weight_map.items()))}
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def _copy_other_files(layout: Layout, staging: Path) -> tuple[str, ...]:
    """Copy the folder's other files; returns the Trainer checkpoint subfolders left out."""
    assert layout.folder is not None
    skip = {*layout.files, layout.index, layout.config}
    skipped = []
    for entry in sorted(layout.folder.iterdir()):
        if entry in skip or entry.name.startswith(".") and ".castwise-" in entry.name:
            continue
        if entry.is_dir() and _TRAINER_CHECKPOINT.fullmatch(entry.name):
            skipped.append(entry.name)
        elif entry.is_dir():
            shutil.copytree(entry, staging / entry.name, symlinks=True)
        elif not any(fnmatch.fnmatch(entry.name, pattern) for pattern in _OTHER_WEIGHTS):
            shutil.copy2(entry, staging / entry.name)
    return tuple(skipped)
