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


def mlp(device: str = "cpu") -> tuple[nn.Module, tuple]:
    """Four linear layers with GELU: nothing to keep in fp32, so any difference is overhead."""
    torch.manual_seed(0)
    layers = [m for _ in range(4) for m in (nn.Linear(128, 128), nn.GELU())]
    return nn.Sequential(*layers, nn.Linear(128, 10)).to(device), (torch.randn(32, 128, device=device),)


def transformer(device: str = "cpu") -> tuple[nn.Module, tuple]:
    """The built-in doctor example (embedding, TransformerEncoder, LayerNorm, head)."""
    return example_model().to(device), tuple(tensor.to(device) for tensor in example_inputs())


def measure(ways: dict[str, Step], steps: int, warmup: int = 10) -> dict[str, float]:
    """Median seconds per step of each way, interleaved with the order rotated every round so
    that machine load and cache effects fall on all ways alike (on a GPU each step is waited for)."""
    names = list(ways)
    times: dict[str, list[float]] = {name: [] for name in names}
    synchronize = torch.cuda.synchronize if torch.cuda.is_initialized() else lambda: None
    for index in range(warmup + steps):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            ways[name]()
            synchronize()
            if index >= warmup:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(samples) for name, samples in times.items()}


def machine() -> str:
    """One line naming the processor, cores, GPU (when there is one) and torch version the figures come from."""
    gpu = f", {torch.cuda.get_device_name()}" if torch.cuda.is_available() else ""
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores{gpu}, torch {torch.__version__}"


def print_ratios(title: str, median: dict[str, float], ours: str) -> None:
    """Each way's median ms/step and ``ours / way``."""
    print(f"\n{title}:")
    for way, seconds in median.items():
        print(f"  {way:<30} {seconds * 1e3:8.3f} ms   {ours} / this = {median[ours] / seconds:.3f}")


def start(description: str, default_steps: int, gpu: bool = False) -> tuple[int, str]:
    """Parse ``--steps`` (and ``--device`` where the script runs on a GPU too), quiet warnings, pin
    torch to one thread on a CPU and print the machine line; return the steps and the device."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=default_steps)
    if gpu:
        parser.add_argument("--device", choices=("cpu", "cuda"), default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = getattr(args, "device", "cpu")
    warnings.filterwarnings("ignore")
    if device == "cpu":
        torch.set_num_threads(1)
    print(f"{machine()}, {device}{', 1 thread' if device == 'cpu' else ''}; {args.steps} steps per way, median ms/step")
    return args.steps, device
