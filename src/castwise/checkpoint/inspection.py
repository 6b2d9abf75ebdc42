"""``inspect``: a checkpoint's real dtypes, shapes and sizes, from headers alone, with findings."""

from __future__ import annotations

from collections import Counter
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from castwise.checkpoint.dcp import ALL_KEYS, DcpReader
from castwise.checkpoint.dtypes import CASTABLE, torch_name
from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.fp8_scales import find_scales
from castwise.checkpoint.hf_config import declared_dtype, read_config
from castwise.checkpoint.layout import Layout, resolve
from castwise.checkpoint.metadata import describe_castwise_metadata
from castwise.checkpoint.shards import check_unique_names
from castwise.checkpoint.sources import open_source
from castwise.checkpoint.tensor_info import TensorInfo
from castwise.checkpoint.zero import ZeroReader

_LISTED = 3
_PICKLE_NOTE = (
    "pickle-based torch file, read with weights_only=True; `castwise convert` writes a "
    "safetensors copy that loads without unpickling"
)


@dataclass(frozen=True)
class DtypeSummary:
    """How much of a checkpoint one dtype holds."""

    dtype: str
    tensors: int
    parameters: int
    bytes: int
    share: float


@dataclass(frozen=True)
class CheckpointInfo:
    """Everything ``inspect`` learns about a checkpoint, without reading tensor data."""

    path: str
    format: str
    files: tuple[str, ...]
    tensors: tuple[TensorInfo, ...]
    metadata: dict[str, str]
    declared_dtype: str | None
    transformers_dtype: str | None
    findings: tuple[str, ...]
    fp8: dict[str, object] | None = None
    zero: dict[str, object] | None = None
    """A DeepSpeed ZeRO checkpoint's stage, ranks, step, master and module dtypes, optimizer state size."""

    @property
    def total_bytes(self) -> int:
        """Bytes of tensor data."""
        return sum(t.nbytes for t in self.tensors)

    @property
    def total_parameters(self) -> int:
        """Elements over all tensors."""
        return sum(t.numel for t in self.tensors)

    @property
    def by_dtype(self) -> dict[str, DtypeSummary]:
        """Per-dtype counts, parameters, bytes and byte share, largest first."""
        total = self.total_bytes or 1
        groups: dict[str, list[TensorInfo]] = {}
        for tensor in self.tensors:
            groups.setdefault(torch_name(tensor.dtype), []).append(tensor)
        summaries = [
            DtypeSummary(
                name, len(ts), sum(t.numel for t in ts), sum(t.nbytes for t in ts), sum(t.nbytes for t in ts) / total
            )
            for name, ts in groups.items()
        ]
        return {s.dtype: s for s in sorted(summaries, key=lambda s: -s.bytes)}

    def dtypes(self) -> dict[str, str]:
        """Tensor name -> stored dtype name."""
        return {t.name: torch_name(t.dtype) for t in self.tensors}

    def to_dict(self, tensors: bool = True) -> dict[str, object]:
        """JSON-ready form (per-tensor rows only when ``tensors``)."""
        result: dict[str, object] = {
            "path": self.path,
            "format": self.format,
            "files": list(self.files),
            "total_tensors": len(self.tensors),
            "total_parameters": self.total_parameters,
            "total_bytes": self.total_bytes,
            "by_dtype": {name: vars(s) for name, s in self.by_dtype.items()},
            "declared_dtype": self.declared_dtype,
            "transformers_dtype": self.transformers_dtype,
            "metadata": self.metadata,
            "findings": list(self.findings),
            "fp8": self.fp8,
            "zero": self.zero,
        }
        if tensors:
            result["tensors"] = [t.to_dict() for t in self.tensors]
        return result


def inspect(path: str | Path) -> CheckpointInfo:
    """Dtypes, shapes, bytes, declared dtype and findings of a checkpoint; no tensor data is read."""
    layout = resolve(path)
    metadata: dict[str, str] = {}
    per_file: list[list[TensorInfo]] = []
    format_findings = []
    zero = None
    for file in layout.files:
        with closing(open_source(file, data=False, key=ALL_KEYS)) as shard:
            per_file.append(shard.infos())
            metadata = metadata or dict(shard.metadata)
            format_findings += shard.findings() if isinstance(shard, (DcpReader, ZeroReader)) else []
            zero = shard.summary.to_dict() if isinstance(shard, ZeroReader) else zero
    check_unique_names(dict(zip(layout.files, per_file)))
    tensors = [t for infos in per_file for t in infos]
    config, config_findings = _config(layout.config)
    declared = declared_dtype(config) if config else None
    loads_as, reason = _transformers_dtype(declared, layout, per_file[0]) if zero is None else (None, "")
    scales = find_scales(tensors, config)
    findings = [
        *config_findings,
        *format_findings,
        *scales.findings(tensors),
        *_index_findings(layout, tensors),
        *_declared_findings(declared, tensors),
        *_transformers_findings(loads_as, reason, tensors),
        *describe_castwise_metadata(metadata),
    ]
    if layout.format == "torch":
        findings.append(_PICKLE_NOTE)
    return CheckpointInfo(
        str(layout.path),
        layout.format,
        tuple(str(f) for f in layout.files),
        tuple(tensors),
        metadata,
        declared,
        loads_as,
        tuple(findings),
        scales.to_dict() if scales.any else None,
        zero,
    )


def _config(path: Path | None) -> tuple[dict[str, object] | None, list[str]]:
    """The config beside the weights; one that cannot be read is a finding, not a failure to inspect."""
    try:
        return (read_config(path) if path else None), []
    except CheckpointError as exc:
        return None, [f"config.json ignored: {exc}"]


def _floating(tensors: list[TensorInfo]) -> list[TensorInfo]:
    return [t for t in tensors if t.dtype in CASTABLE]


def _names(tensors: list[TensorInfo]) -> str:
    shown = ", ".join(t.name for t in tensors[:_LISTED])
    return shown + (f", … ({len(tensors) - _LISTED} more)" if len(tensors) > _LISTED else "")


def _transformers_dtype(declared: str | None, layout: Layout, first_file: list[TensorInfo]) -> tuple[str | None, str]:
    """What transformers 5 picks for ``dtype="auto"``: config, index metadata, first float."""
    if declared:
        return declared, "from config.json"
    index_dtype = layout.index_metadata.get("dtype")
    if isinstance(index_dtype, str):
        return index_dtype.removeprefix("torch."), "from the index metadata"
    ordered = sorted(first_file, key=lambda t: t.name) if layout.format == "safetensors" else first_file
    first = next((t for t in ordered if t.dtype.is_floating_point and t.dtype.itemsize > 1), None)
    if first is None:
        return None, ""
    source = "config.json declares no dtype" if layout.config else "no config.json"
    return torch_name(first.dtype), f"{source}, so from the first floating tensor {first.name!r}"


def _declared_findings(declared: str | None, tensors: list[TensorInfo]) -> list[str]:
    floating = _floating(tensors)
    if declared is None or not floating:
        return []
    differ = [t for t in floating if torch_name(t.dtype) != declared]
    if not differ:
        return [f"config.json declares {declared} and every floating tensor is {declared}"]
    counts = Counter(torch_name(t.dtype) for t in differ)
    kinds = ", ".join(f"{n} are {d}" for d, n in counts.most_common())
    return [f"declared {declared} (config.json) but {kinds}, of {len(floating)} floating tensors: {_names(differ)}"]


def _transformers_findings(loads_as: str | None, reason: str, tensors: list[TensorInfo]) -> list[str]:
    if loads_as is None:
        return []
    changed = [t for t in _floating(tensors) if torch_name(t.dtype) != loads_as]
    head = f"transformers 5 (dtype='auto') would load every floating tensor as {loads_as} ({reason})"
    if not changed:
        return [head + ": matches what is stored"]
    counts = Counter(torch_name(t.dtype) for t in changed)
    kinds = ", ".join(f"{n} stored as {d}" for d, n in counts.most_common())
    return [
        f"{head}: {kinds} would change dtype ({_names(changed)}); "
        "castwise.integrations.transformers.from_pretrained keeps every stored dtype"
    ]


def _index_findings(layout: Layout, tensors: list[TensorInfo]) -> list[str]:
    findings: list[str] = []
    if layout.index is None:
        return findings
    located = {t.name: t.file for t in tensors}
    astray = [n for n, shard in layout.weight_map.items() if located.get(n) != shard]
    unlisted = [n for n in located if n not in layout.weight_map]
    if astray:
        findings.append(
            f"the index maps {len(astray)} tensors to shards that do not hold them: {', '.join(astray[:_LISTED])}"
        )
    if unlisted:
        findings.append(f"{len(unlisted)} tensors in the shards are not in the index: {', '.join(unlisted[:_LISTED])}")
    return findings
