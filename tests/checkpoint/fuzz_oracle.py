"""What a structured fuzz input is, and how its outcome is judged; shared by ``test_fuzz.py`` and
``benchmarks/checkpoint_fuzz.py`` (which runs it in worker processes, so crashes and hangs count).

A :class:`Case` is the files of one checkpoint plus what a correct read must give. :func:`judge`
runs ``cw.inspect``, ``cw.load`` and ``cw.convert`` on it and returns one outcome: every call
either refuses with a ``CheckpointError`` (``clean error``) or succeeds with the right values
(``correct read``); anything else is a ``raw exception`` or a ``wrong output``. Only public
castwise names are used, so the same cases measure an older tree.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

import castwise as cw
from castwise.checkpoint import CheckpointError

CLEAN, CORRECT, RAW, WRONG = "clean error", "correct read", "raw exception", "wrong output"
VALID_REFUSED = "valid input refused"
OUTCOMES = (CLEAN, CORRECT, RAW, WRONG, "crash", "hang")
SENTINEL = 0xA5
"""Byte every ``torch.empty`` buffer starts as under :func:`sentinel_buffers`."""


@dataclass
class Case:
    """One checkpoint to read, and how to judge what castwise makes of it.

    ``reference`` says what a correct ``cw.load`` gives: ``"values"`` (exactly ``expected``),
    ``"refuse"`` (nothing may be read), ``"zeros"`` (whatever is read is all zero bytes: the data
    written was), ``"torch"`` (what ``torch.load(weights_only=True)`` gives) or ``"any"`` (only
    that inspect, load and convert agree).
    """

    format: str
    files: dict[str, bytes]
    target: str
    reference: str = "any"
    expected: dict[str, torch.Tensor] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    """Relative path -> symlink target (``@outside/...`` is a file written outside the folder)."""
    converted: dict[str, torch.Tensor] = field(default_factory=dict)
    """What ``cw.convert(..., "bf16")`` must write for these names, where it is not a cast (dequantized fp8)."""
    convert: str = "cast"
    """``"cast"``: converted tensors are their sources cast (``converted`` apart); ``"refuse"``: convert
    must refuse (a bad fp8 scale); ``"any"``: not judged beyond agreeing with load."""
    quantize: str | None = None
    """Also convert to fp8 with this block (``"128"``, ``"tensor"``); the source must be unchanged by
    the round trip to fp8 and back within e4m3's error, or refused if it holds inf or nan."""


@dataclass(frozen=True)
class Outcome:
    kind: str
    detail: str = ""


def judge(case: Case) -> Outcome:
    """Write ``case`` to a fresh folder, run every operation, and judge the results."""
    root = Path(tempfile.mkdtemp(prefix="castwise-fuzz-"))
    try:
        return _judge(case, _write(case, root), root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _write(case: Case, root: Path) -> Path:
    folder = root / "ckpt"
    folder.mkdir()
    for relative, data in case.files.items():
        path = (root / relative[len("@outside/") :]) if relative.startswith("@outside/") else folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for relative, target in case.links.items():
        destination = str(root / target[len("@outside/") :]) if target.startswith("@outside/") else target
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(destination, folder / relative)
    return folder / case.target if case.target else folder


def _judge(case: Case, path: Path, root: Path) -> Outcome:
    results: dict[str, Any] = {}
    out = root / ("out" if path.is_dir() or path.name.endswith(".json") else "out.safetensors")
    operations = {
        "inspect": lambda: cw.inspect(path),
        "load": lambda: cw.load(path),
        "convert": lambda: cw.convert(path, out, "bf16"),
    }
    if case.quantize is not None:
        operations["quantize"] = lambda: cw.convert(path, root / "fp8", "fp8", fp8_block=case.quantize)
    for name, operation in operations.items():
        try:
            results[name] = operation()
        except CheckpointError as exc:
            results[name] = exc
        except Exception as exc:  # noqa: BLE001 - what the fuzzer is looking for
            return Outcome(RAW, f"{name}: {type(exc).__name__}: {str(exc)[:300]}")
    wrong = _wrong(case, results, path, out)
    if wrong:
        return Outcome(WRONG, wrong)
    if isinstance(results["load"], CheckpointError):
        return Outcome(CLEAN, f"{VALID_REFUSED}: {results['load']}" if case.reference == "values" else "")
    return Outcome(CORRECT)


def _wrong(case: Case, results: dict[str, Any], path: Path, out: Path) -> str:
    """Why the results are wrong, or empty."""
    info, loaded, converted = results["inspect"], results["load"], results["convert"]
    ok = {name: not isinstance(result, CheckpointError) for name, result in results.items()}
    if ok["load"] and not ok["inspect"] and "config.json" not in str(info):  # load never reads the config
        return f"load read what inspect refused ({info})"
    if ok["convert"] and not ok["load"]:
        return f"convert wrote what load refused ({loaded})"
    if not ok["load"]:
        return ""  # refusing is never wrong (refusing a valid input is counted apart)
    if ok["inspect"] and not _inspect_agrees(info, loaded):
        return "inspect and load disagree on names, dtypes or shapes"
    wrong = _against_reference(case, loaded, path)
    if wrong:
        return wrong
    if ok["convert"]:
        if case.convert == "refuse":
            return "convert wrote an fp8 checkpoint whose scales must be refused"
        if "\n" in converted.keep_rule:
            return "the keep rule's note is more than one line"
        written = cw.load(out)
        if case.convert == "cast":
            wrong = _differs({n: written[n] for n in case.converted if n in written}, case.converted)
            wrong = wrong or _converted_wrong(loaded, written)
            if wrong:
                return f"convert: {wrong}"
    if "quantize" in results:
        return _quantized_wrong(loaded, results["quantize"], out.parent)
    return ""


def _inspect_agrees(info: Any, loaded: dict[str, torch.Tensor]) -> bool:
    """Inspect lists what load read (a DCP folder: every group, under full names; load reads the model's)."""
    listed = {t.name: (t.dtype, tuple(t.shape)) for t in info.tensors}
    read = {n: (t.dtype, tuple(t.shape)) for n, t in loaded.items()}
    if info.format != "dcp":
        return listed == read
    return all(listed.get(n, listed.get(f"model.{n}")) == shape for n, shape in read.items())


def _against_reference(case: Case, loaded: dict[str, torch.Tensor], path: Path) -> str:
    if case.reference == "refuse":
        return f"read {len(loaded)} tensors from an input that must be refused"
    if case.reference == "zeros":
        bad = [n for n, t in loaded.items() if t.numel() and _bits(t).any()]
        return f"tensors {bad[:3]} are not the zero bytes written" if bad else ""
    if case.reference == "values":
        return _differs(case.expected, loaded)
    if case.reference == "torch":
        reference = torch.load(path, weights_only=True, map_location="cpu")
        if not isinstance(reference, dict):
            return f"read a state dict where torch.load gives a {type(reference).__name__}"
        reference = reference if all(isinstance(v, torch.Tensor) for v in reference.values()) else next(
            (v for k, v in reference.items() if k in ("state_dict", "model", "module") and isinstance(v, dict)), {}
        )
        return _differs(reference, loaded)
    return ""


def _differs(expected: dict[str, torch.Tensor], got: dict[str, torch.Tensor]) -> str:
    if set(expected) != set(got):
        return f"names {sorted(set(got) ^ set(expected))[:3]} differ from the reference"
    for name, tensor in expected.items():
        if got[name].dtype != tensor.dtype or got[name].shape != tensor.shape:
            return f"{name!r} is {got[name].dtype} {list(got[name].shape)}, not {tensor.dtype} {list(tensor.shape)}"
        if not _same(got[name], tensor):
            return f"{name!r} holds other values than the reference"
    return ""


def _same(one: torch.Tensor, other: torch.Tensor) -> bool:
    """Bitwise equal, except that any two NaNs are the same (their payloads depend on the path taken)."""
    if torch.equal(_bits(one), _bits(other)):
        return True
    if not one.is_floating_point() or one.dtype != other.dtype:
        return False
    width = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[one.element_size()]
    same_bits = one.contiguous().view(width) == other.contiguous().view(width)
    return bool((same_bits | (one.float().isnan() & other.float().isnan())).all())


def _bits(tensor: torch.Tensor) -> torch.Tensor:
    """A tensor's bytes (NaN payloads and signed zeros compared exactly)."""
    return tensor.detach().contiguous().reshape(-1).view(torch.uint8)


def _converted_wrong(source: dict[str, torch.Tensor], out: dict[str, torch.Tensor]) -> str:
    """Every tensor converted is its source cast (exactly) to the dtype it was written in."""
    for name, tensor in out.items():
        if name not in source:
            continue  # a dequantized fp8 weight's scales are dropped; checked by the fp8 reference
        original = source[name]
        if original.dtype in _FP8 and tensor.dtype != original.dtype:
            continue
        if tensor.shape != original.shape or not _same(tensor, original.to(tensor.dtype)):
            return f"{name!r} is not its source cast to {tensor.dtype}"
    return ""


_FP8 = {getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2") if hasattr(torch, n)}


def _quantized_wrong(source: dict[str, torch.Tensor], result: Any, root: Path) -> str:
    nonfinite = any(t.is_floating_point() and t.dtype not in _FP8 and not t.isfinite().all() for t in source.values())
    if isinstance(result, CheckpointError):
        return ""
    if nonfinite:
        return "quantized inf or nan without a word"
    back_path = root / "back"
    cw.convert(root / "fp8", back_path, "f32")
    back = cw.load(back_path)
    for name, tensor in source.items():
        if name not in back or not tensor.is_floating_point() or tensor.dtype in _FP8:
            continue
        original, again = tensor.double(), back[name].double()
        if original.shape != again.shape:
            return f"{name!r} came back as {list(again.shape)}"
        amax = original.abs().max() if original.numel() else 0
        if ((original - again).abs() > original.abs() * 2**-3 + amax * 2**-10).any():
            return f"{name!r} came back from fp8 further than e4m3's error"
    return ""


@contextmanager
def sentinel_buffers() -> Iterator[None]:
    """Inside, every ``torch.empty`` buffer starts as :data:`SENTINEL` bytes: memory castwise never
    writes then differs from any reference, whatever the process held before."""
    real = torch.empty

    def filled(*args: Any, **kwargs: Any) -> torch.Tensor:
        tensor = real(*args, **kwargs)
        if tensor.device.type == "cpu" and tensor.numel() and tensor.is_contiguous():
            tensor.view(-1).view(torch.uint8).fill_(SENTINEL)
        return tensor

    torch.empty = filled  # type: ignore[assignment]
    try:
        yield
    finally:
        torch.empty = real  # type: ignore[assignment]
