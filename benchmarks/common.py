"""What the benchmark scripts share: the small models they time and the interleaved timer."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings
from collections.abc import Callable

import torch
from torch import nn

from castwise.doctor import example_inputs, example_model

Step = Callable[[], None]


def mlp() -> tuple[nn.Module, tuple]:
    """Four linear layers with GELU: nothing to keep in fp32, so any difference is overhead."""
    torch.manual_seed(0)
    layers = [m for _ in range(4) for m in (nn.Linear(128, 128), nn.GELU())]
    return nn.Sequential(*layers, nn.Linear(128, 10)), (torch.randn(32, 128),)


def transformer() -> tuple[nn.Module, tuple]:
    """The built-in doctor example (embedding, TransformerEncoder, LayerNorm, head)."""
    return example_model(), example_inputs()


def measure(ways: dict[str, Step], steps: int, warmup: int = 10) -> dict[str, float]:
    """Median seconds per step of each way, interleaved with the order rotated every round so
    that machine load and cache effects fall on all ways alike."""
    names = list(ways)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(warmup + steps):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            ways[name]()
            if index >= warmup:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(samples) for name, samples in times.items()}


def machine() -> str:
    """One line naming the processor, cores and torch version the figures come from."""
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}"


def print_ratios(title: str, median: dict[str, float], ours: str) -> None:
    """Each way's median ms/step and ``ours / way``."""
    print(f"\n{title}:")
    for way, seconds in median.items():
        print(f"  {way:<30} {seconds * 1e3:8.3f} ms   {ours} / this = {median[ours] / seconds:.3f}")


def start(description: str, default_steps: int) -> int:
    """Parse ``--steps``, quiet warnings, pin torch to one thread and print the machine line."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=default_steps)
    steps = parser.parse_args().steps
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    print(f"{machine()}, 1 thread; {steps} steps per way, median ms/step")
    return steps
