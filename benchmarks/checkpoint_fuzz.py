"""Checkpoint robustness: structured fuzzing of ``cw.inspect``, ``cw.load`` and ``cw.convert`` on
every format, each input judged against what a correct read gives.

For each format (``safetensors``, ``index``, ``config``, ``fp8``, ``torch``, ``dcp``, ``zero``) the test
suite's hypothesis strategies (``tests/checkpoint/format_strategies.py``, derandomized: the same
inputs on every run) draw ``--steps`` checkpoints; a worker process judges each
(``tests/checkpoint/fuzz_oracle.py``: clean error, correct read, raw exception or wrong output)
with every ``torch.empty`` buffer filled with a sentinel byte and its address space capped at
``--memory`` GiB above its imports. A worker that dies is a crash, one that takes longer than
``--timeout`` seconds on an input a hang; it is replaced and the run goes on. Point
``PYTHONPATH`` at another castwise source tree to measure it with the same inputs.

    .venv/bin/python benchmarks/checkpoint_fuzz.py --steps 20000
    PYTHONPATH=/tmp/castwise-before/src .venv/bin/python benchmarks/checkpoint_fuzz.py --steps 5000 --formats dcp
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, BinaryIO

TESTS = Path(__file__).resolve().parents[1] / "tests"
FORMATS = ("safetensors", "index", "config", "fp8", "torch", "dcp", "zero")


def _send(stream: BinaryIO, value: Any) -> None:
    buffer = io.BytesIO()
    _TensorPickler(buffer).dump(value)
    stream.write(struct.pack("<Q", buffer.tell()) + buffer.getvalue())
    stream.flush()


class _TensorPickler(pickle.Pickler):
    """Tensors as their bytes (torch's own pickling cannot carry every dtype, fp8 among them)."""

    def reducer_override(self, obj: Any) -> Any:
        import torch

        if isinstance(obj, torch.Tensor):
            raw = obj.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
            return _tensor, (raw, str(obj.dtype).removeprefix("torch."), tuple(obj.shape))
        return NotImplemented


def _tensor(raw: bytes, dtype: str, shape: tuple[int, ...]) -> Any:
    import torch

    if not raw:
        return torch.zeros(shape, dtype=getattr(torch, dtype))
    return torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(getattr(torch, dtype)).reshape(shape)


def _receive(stream: BinaryIO) -> Any:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    return pickle.loads(stream.read(struct.unpack("<Q", head)[0]))


def worker(memory_gib: float) -> None:
    """Judge cases read from stdin, one outcome each on stdout (runs in a subprocess)."""
    import re
    import resource
    import warnings

    sys.path.insert(0, str(TESTS))
    warnings.simplefilter("ignore")
    import transformers  # noqa: F401  the skeleton builder's import is not the input's memory

    from checkpoint import format_strategies  # noqa: F401  imported (and torch with it) before the cap
    from checkpoint.fuzz_oracle import judge, sentinel_buffers

    sentinel_buffers().__enter__()  # for the worker's whole life
    size = int(re.search(r"VmSize:\s+(\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024
    cap = size + int(memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything castwise or torch prints must not corrupt the protocol
    _send(stdout, "ready")
    while True:
        try:
            case = _receive(stdin)
        except EOFError:
            return
        _send(stdout, judge(case))


class Pool:
    """One worker process at a time; replaced after a crash or a hang."""

    def __init__(self, memory_gib: float, timeout: float) -> None:
        self.memory, self.timeout, self.process = memory_gib, timeout, None
        self.started = 0

    def judge(self, case: Any) -> tuple[str, str]:
        process = self.process or self._start()
        try:
            _send(process.stdin, case)
        except BrokenPipeError:
            return self._lost("crash", "the worker was gone")
        ready, _, _ = select.select([process.stdout], [], [], self.timeout)
        if not ready:
            return self._lost("hang", f"no answer in {self.timeout:.0f} s")
        try:
            outcome = _receive(process.stdout)
        except (EOFError, pickle.UnpicklingError):
            return self._lost("crash", "")
        return outcome.kind, outcome.detail

    def _start(self) -> subprocess.Popen:
        command = [sys.executable, __file__, "--worker", "--memory", str(self.memory)]
        stderr = None if os.environ.get("FUZZ_STDERR") else subprocess.DEVNULL  # FUZZ_STDERR=1 shows the workers'
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        assert _receive(self.process.stdout) == "ready"
        self.started += 1
        return self.process

    def _lost(self, kind: str, detail: str) -> tuple[str, str]:
        process, self.process = self.process, None
        assert process is not None
        if process.poll() is None:
            process.kill()
        code = process.wait()
        if kind == "crash" and code < 0:
            detail = f"killed by {signal.Signals(-code).name}"
        elif kind == "crash":
            detail = f"exit {code}"
        return kind, detail

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait()


def run_format(name: str, steps: int, pool: Pool) -> dict[str, Any]:
    """Draw ``steps`` cases of one format and count their outcomes."""
    from hypothesis import HealthCheck, given, settings

    from checkpoint import format_strategies
    from checkpoint.fuzz_oracle import VALID_REFUSED

    outcomes: Counter[str] = Counter()
    details: dict[str, Counter[str]] = {}
    started = time.perf_counter()

    @settings(
        max_examples=steps, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(getattr(format_strategies, f"{name}_cases")())
    def draw(case: Any) -> None:
        kind, detail = pool.judge(case)
        outcomes[kind] += 1
        if detail.startswith(VALID_REFUSED):
            outcomes[VALID_REFUSED] += 1
        elif kind not in ("clean error", "correct read"):
            details.setdefault(kind, Counter())[_shorten(detail)] += 1

    draw()
    return {
        "format": name,
        "inputs": sum(n for k, n in outcomes.items() if k != VALID_REFUSED),
        "outcomes": dict(outcomes),
        "details": {kind: counter.most_common(8) for kind, counter in details.items()},
        "seconds": round(time.perf_counter() - started, 1),
    }


def _shorten(detail: str) -> str:
    """The kind of a failure without the paths and numbers that make every one differ."""
    import re

    detail = re.sub(r"/tmp/[^ :'\"]*", "PATH", detail)
    return re.sub(r"\d[\d,]*", "N", detail)[:160]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="inputs drawn per format")
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated, of: " + ", ".join(FORMATS))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one input may take (else: a hang)")
    parser.add_argument("--memory", type=float, default=3.0, help="GiB a worker may map above its imports")
    parser.add_argument("--json", type=Path, help="also write the counts here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.memory)
        return
    sys.path.insert(0, str(TESTS))
    import castwise

    print(f"castwise from {Path(castwise.__file__).parent}; {os.cpu_count()} cpus; {args.steps} inputs per format")
    pool, results = Pool(args.memory, args.timeout), []
    try:
        for name in args.formats.split(","):
            result = run_format(name, args.steps, pool)
            results.append(result)
            print(json.dumps(result), flush=True)
    finally:
        pool.close()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
