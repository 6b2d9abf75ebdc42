"""Whether the in-memory doctor would fit in the memory free now, judged from the checkpoint's headers.

The in-memory doctor holds the whole model in fp32, a copy under each policy in turn (made as an
fp32 copy and then converted), gradients in train mode and fp32 copies of every module's output.
``benchmarks/stream_doctor.py`` measured its peak at about :data:`IN_MEMORY_FACTOR` times the fp32
weights plus the interpreter; the estimate uses those factors. Free memory is psutil's "available".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from castwise.checkpoint import CheckpointError, inspect
from castwise.checkpoint.hf_config import read_config
from castwise.doctor.stream.architecture import SUPPORTED

IN_MEMORY_FACTOR = {"eval": 2.3, "train": 5.0}
"""Peak bytes of the in-memory doctor above the interpreter over the model's fp32 bytes, by the heaviest
mode diagnosed (measured: 2.3 for one policy in eval on a 268M Llama, 4.9 to 5.5 for two policies in
train and eval at 116M to 470M)."""
BASE_BYTES = 1 << 28
"""The interpreter with castwise's CLI and transformers imported, before any model (0.24 GiB measured)."""


@dataclass(frozen=True)
class Fit:
    """The in-memory doctor's estimated peak and the memory available (None: not known)."""

    needed: int
    available: int | None

    @property
    def fits(self) -> bool:
        """True unless the estimate exceeds the memory known to be available."""
        return self.available is None or self.needed <= self.available


def in_memory_fit(folder: str | Path, modes: Sequence[str]) -> Fit:
    """The in-memory doctor's peak for the checkpoint in ``folder`` (headers only) against free memory;
    a folder whose weights cannot be read fits (the loader then says what is wrong with it)."""
    try:
        parameters = inspect(folder).total_parameters
    except CheckpointError:
        return Fit(0, None)
    factor = IN_MEMORY_FACTOR["train" if "train" in modes else "eval"]
    return Fit(int(4 * parameters * factor) + BASE_BYTES, available_memory())


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation now (psutil), or None without psutil."""
    try:
        import psutil
    except ImportError:
        return None
    return int(psutil.virtual_memory().available)


def streams(folder: str | Path) -> bool:
    """True when ``folder``'s config.json names a family the streamed doctor knows."""
    config = Path(folder) / "config.json"
    try:
        return config.is_file() and read_config(config).get("model_type") in SUPPORTED
    except CheckpointError:
        return False  # the loader says what is wrong with the folder
