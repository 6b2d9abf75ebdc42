"""``castwise inspect`` and ``castwise convert``: a checkpoint's real dtypes, and changing them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, ProgressColumn, Task, TimeRemainingColumn
from rich.text import Text

from castwise.cli.output import check_writable, console, fail, literal, print_json, printable, table

if TYPE_CHECKING:
    from castwise.checkpoint import CheckpointInfo, ConvertResult


def inspect_command(
    path: str = typer.Argument(
        ...,
        metavar="PATH",
        help="A .safetensors, .bin/.pt/.pth file, an *.index.json, a model folder, a DCP folder, or a DeepSpeed "
        "ZeRO checkpoint folder (its 'latest' tag, or one global_stepN folder).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    tensors: bool = typer.Option(False, "--tensors", help="Also list every tensor (name, dtype, shape, bytes, file)."),
) -> None:
    """Show a checkpoint's stored dtypes, sizes and findings, reading headers only."""
    from castwise.checkpoint import inspect

    try:
        info = inspect(path)
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if as_json:
        print_json(info.to_dict(tensors=tensors))
        return
    _print_info(info, tensors)


def convert_command(
    src: str = typer.Argument(
        ..., metavar="SRC", help="Checkpoint to read (any format inspect reads); never modified."),
    dst: str = typer.Argument(
        ..., metavar="DST", help="A .safetensors file, or a folder when SRC is a folder or index."),
    dtype: str = typer.Option(
        ...,
        "--dtype",
        "-d",
        help="Storage dtype for floating tensors: bf16, f16, f32, f64 (fp8 weights with scales are dequantized), "
        "or fp8 (e4m3 Linear weights with scales, the rest bf16).",
    ),
    keep_fp32: list[str] = typer.Option(
        None,
        "--keep-fp32",
        "-k",
        help="Glob on tensor/module names (case-insensitive) or module classes (exact, known from a folder's "
        "config.json) kept fp32; repeatable; default: norm layers; 'none' keeps nothing.",
    ),
    key: str = typer.Option(
        None, "--key", help="DCP folders: the state group to write (default: model, without its prefix)."
    ),
    config: str = typer.Option(
        None,
        "--config",
        help="A config.json to write beside a folder's output, read for the keep rule's module classes "
        "(default: SRC's own; give the model's for a DeepSpeed ZeRO folder).",
    ),
    max_shard_size: str = typer.Option(
        None, "--max-shard-size", help="Split a folder's output into shards of at most this size (5GB, 500MB)."
    ),
    fp8_block: str = typer.Option(
        "128", "--fp8-block", help="With --dtype fp8: square scale block size, or 'tensor' for one scale per weight."
    ),
    clamp_nonfinite: bool = typer.Option(
        False,
        "--clamp-nonfinite",
        help="With --dtype fp8: write nan as 0 and inf as its block's largest finite magnitude, and count them "
        "(refused otherwise).",
    ),
    force: bool = typer.Option(False, "--force", "-f", help="Replace DST if it exists."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Write SRC as safetensors in DTYPE: streaming, atomic, ints and bools never cast, fp8 scales applied."""
    check_writable(Path(dst), "DST", make_folders=True)
    from castwise.checkpoint import convert

    word = _dtype_word(dtype)
    try:
        with _ByteProgress(enabled=not as_json and console.is_terminal) as progress:
            result = convert(
                src,
                dst,
                dtype,
                keep_fp32=keep_fp32 or None,
                force=force,
                progress=progress,
                key=key,
                config=config,
                max_shard_size=max_shard_size,
                fp8_block=fp8_block,
                clamp_nonfinite=clamp_nonfinite,
            )
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if as_json:
        print_json(vars(result))
        return
    lines = [
        (
            f"wrote {result.destination}: {result.tensors} tensors ({result.cast} cast to {word}{_fp8_note(result)}), "
            f"{_size(result.bytes_read)} of tensor data in, {_size(result.bytes_written)} out"
        ),
        *(f"removed {path}, a temporary left by a killed conversion" for path in result.stale_removed),
        _keep_line(result.keep_rule, word, keep_fp32),
    ]
    if result.skipped:
        lines.append(
            f"skipped the Trainer checkpoint folders {', '.join(result.skipped)}: only the top-level model "
            "is converted; convert a checkpoint by naming its folder"
        )
    for line in lines:
        console.print(literal(line), highlight=False, soft_wrap=True)


def _dtype_word(dtype: str) -> str:
    """The canonical short name of ``--dtype`` (``"fp16 "`` is ``f16``); as given when convert will refuse it."""
    from castwise.checkpoint.plan import FP8_NAMES
    from castwise.policy import dtype_from_name, dtype_name

    if dtype.strip().lower() in FP8_NAMES:
        return "fp8"
    try:
        return dtype_name(dtype_from_name(dtype))
    except ValueError:
        return dtype


def _keep_line(rule: str, word: str, globs: list[str] | None) -> str:
    if not rule:
        return f"no keep-fp32 rule applied: {word} narrows no tensor"
    if [g.lower() for g in globs or ()] == ["none"]:
        return "nothing kept fp32 (--keep-fp32 none)"
    return f"kept fp32 by {rule}"


def _fp8_note(result: ConvertResult) -> str:
    if result.quantized:
        clamped = f", {result.nonfinite_clamped:,} inf/nan values clamped" if result.nonfinite_clamped else ""
        return f"; {result.quantized} Linear weights quantized to fp8 e4m3 with scales{clamped}"
    if result.dequantized or result.scales_dropped:
        return f"; {result.dequantized} fp8 weights dequantized, {result.scales_dropped} scale tensors dropped"
    return ""


class _BinarySpeed(ProgressColumn):
    """Bytes a second in KiB/MiB/GiB, the units of the bar and of the summary (rich's column says MB/s)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("?" if speed is None else f"{_size(int(speed))}/s", style="progress.data.speed")


class _ByteProgress:
    """A rich progress bar in bytes, as a ``convert`` progress callback (a no-op when disabled)."""

    def __init__(self, enabled: bool) -> None:
        self._bar = Progress(
            "converting",
            BarColumn(),
            DownloadColumn(binary_units=True),
            _BinarySpeed(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            disable=not enabled,
        )
        self._task = self._bar.add_task("convert", total=None)

    def __enter__(self) -> Callable[[int, int], None]:
        self._bar.__enter__()
        return lambda done, total: self._bar.update(self._task, completed=done, total=total)

    def __exit__(self, *exc: Any) -> None:
        self._bar.__exit__(*exc)


def _print_info(info: CheckpointInfo, tensors: bool) -> None:
    files = f"{len(info.files)} files" if len(info.files) > 1 else info.files[0]
    summary = f" ({info.format}, {files}): {len(info.tensors)} tensors, {info.total_parameters:,} parameters, "
    heading = Text.assemble((printable(info.path), "bold"), printable(summary + _size(info.total_bytes)))
    console.print(heading, highlight=False, soft_wrap=True)
    rows = [[s.dtype, s.tensors, f"{s.parameters:,}", _size(s.bytes), f"{s.share:.1%}"] for s in info.by_dtype.values()]
    console.print(table(None, ["dtype", "tensors", "parameters", "bytes", "share"], rows))
    console.print(f"declared dtype (config.json): {info.declared_dtype or '-'}", highlight=False)
    console.print(f"transformers 5 would load as: {info.transformers_dtype or '-'}", highlight=False)
    for finding in info.findings:
        console.print(literal(f"  - {finding}"), highlight=False, soft_wrap=True)
    if tensors:
        _print_tensors(info)


def _print_tensors(info: CheckpointInfo) -> None:
    """One line per tensor, its name last and whole (never wrapped or cut, so it can be copied): a
    table would fold or truncate long names in 80 columns, and two truncated names look the same."""
    several = len(info.files) > 1
    header = ["dtype", "shape", "bytes", *(["file"] if several else []), "name"]
    rows = [header]
    for tensor in info.tensors:
        entry = tensor.to_dict()
        shape = "x".join(map(str, tensor.shape)) or "scalar"
        rows.append([str(entry["dtype"]), shape, f"{tensor.nbytes:,}", *([tensor.file] if several else []),
                     tensor.name])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    for row in rows:
        cells = [cell.rjust(width) if column == 2 else cell.ljust(width)
                 for column, (cell, width) in enumerate(zip(row, widths))]
        console.print(literal("  ".join([*cells, row[-1]])), highlight=False, soft_wrap=True)


def _size(nbytes: int) -> str:
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            break
        value /= 1024
    return f"{nbytes} B" if unit == "B" else f"{value:.1f} {unit}"


def register(app: typer.Typer) -> None:
    """Add the ``inspect`` and ``convert`` commands to ``app``."""
    app.command("inspect")(inspect_command)
    app.command("convert")(convert_command)
