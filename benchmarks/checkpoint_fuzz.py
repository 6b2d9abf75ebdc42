"""Checkpoint robustness: structured fuzzing of ``cw.inspect``, ``cw.load`` and ``cw.convert``.

Draws ``--steps`` safetensors files from the test suite's hypothesis strategy
(``tests/checkpoint/header_strategies.py``, derandomized: the same files on every run) and counts,
per operation, the exceptions that are not ``CheckpointError``, by type. Point ``PYTHONPATH`` at
another castwise source tree to measure it with the same files.

    .venv/bin/python benchmarks/checkpoint_fuzz.py --steps 5000
    PYTHONPATH=/tmp/castwise-before/src .venv/bin/python benchmarks/checkpoint_fuzz.py --steps 5000
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings

import castwise as cw
from castwise.checkpoint import CheckpointError
from common import machine

_STRATEGIES = Path(__file__).resolve().parents[1] / "tests" / "checkpoint" / "header_strategies.py"


def _strategy():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("header_strategies", _STRATEGIES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.safetensors_files()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000, help="files to draw")
    steps = parser.parse_args().steps
    print(f"{machine()}; castwise from {Path(cw.__file__).parent}")
    folder = Path(tempfile.mkdtemp())
    path, out = folder / "fuzz.safetensors", folder / "out.safetensors"
    actions: dict[str, Callable[[], object]] = {
        "inspect": lambda: cw.inspect(path),
        "load": lambda: cw.load(path),
        "convert": lambda: cw.convert(path, out, "bf16", force=True),
    }
    crashes: dict[str, Counter[str]] = {name: Counter() for name in actions}
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=steps, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(_strategy())
    def run(raw: bytes) -> None:
        path.write_bytes(raw)
        for name, action in actions.items():
            try:
                action()
                outcomes[f"{name} ok"] += 1
            except CheckpointError:
                outcomes[f"{name} CheckpointError"] += 1
            except Exception as exc:  # noqa: BLE001 - what the count is about
                crashes[name][type(exc).__name__] += 1

    run()
    shutil.rmtree(folder)
    tried = outcomes["inspect ok"] + outcomes["inspect CheckpointError"] + sum(crashes["inspect"].values())
    print(f"{tried} files; per operation: accepted / CheckpointError / other exceptions (by type)")
    for name in actions:
        other = ", ".join(f"{kind} {n}" for kind, n in crashes[name].most_common()) or "none"
        print(
            f"  {name:<8} {outcomes[f'{name} ok']:>6} / {outcomes[f'{name} CheckpointError']:>6} / "
            f"{sum(crashes[name].values())} ({other})"
        )


if __name__ == "__main__":
    main()
