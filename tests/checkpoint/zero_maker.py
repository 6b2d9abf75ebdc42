"""Real DeepSpeed ZeRO checkpoints for the tests and the fuzzer, written once per process.

``zero_worker.py`` trains every case under ``torchrun --nproc_per_node=2`` on CPU (about a minute);
:func:`zero_checkpoints` runs it the first time it is asked and hands every later caller (the
``zero`` fixture, the fuzz strategies, the fuzz benchmark) the same folder, removed at exit.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

WORKER = Path(__file__).with_name("zero_worker.py")
TORCHRUN = Path(sys.executable).with_name("torchrun")
SOURCE = Path(__file__).parents[2] / "src"


def write_zero_checkpoints(out: Path) -> None:
    """Every case of ``zero_worker.py`` under ``out`` (``CASE/``, ``CASE-reference/``, ``CASE-frozen.pt``)."""
    env = dict(os.environ, DS_ACCELERATOR="cpu", OMP_NUM_THREADS="1", PYTHONPATH=str(SOURCE))
    command = [str(TORCHRUN), "--standalone", "--nproc_per_node=2", str(WORKER), "--out", str(out)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"DeepSpeed could not write the checkpoints:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")


@cache
def zero_checkpoints() -> Path:
    """The folder of every case, written on the first call of this process."""
    out = Path(tempfile.mkdtemp(prefix="castwise-zero-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    write_zero_checkpoints(out)
    return out
