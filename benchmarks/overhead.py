"""Wrapper overhead: a forward+backward step under ``cw.apply(m, "bf16-mixed")`` against the same
step written by hand with ``torch.autocast``, and against Lightning Fabric's wrapper when installed.

The ways are timed in one run, interleaved step by step, and the median of many steps is kept, so
machine load affects them alike. Prints the ratios that BENCHMARKS.md records.

    .venv/bin/python benchmarks/overhead.py [--steps 300]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
import warnings
from typing import Callable

import torch
from torch import nn

import castwise as cw
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


def hand_written(model: nn.Module, inputs: tuple) -> Step:
    def step() -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            output = model(*inputs)
        output.float().square().mean().backward()
    return step


class LayerNormFp32(nn.LayerNorm):
    """OpenCLIP's hand-written answer: a LayerNorm that computes in fp32 and casts back."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, bias = self.weight.float(), self.bias.float()
        return nn.functional.layer_norm(x.float(), self.normalized_shape, weight, bias, self.eps).to(x.dtype)


def hand_written_fp32_norms(model: nn.Module, inputs: tuple) -> Step:
    for module in model.modules():
        if type(module) is nn.LayerNorm:
            module.__class__ = LayerNormFp32
    return hand_written(model, inputs)


def castwise_step(model: nn.Module, inputs: tuple) -> Step:
    wrapped = cw.apply(model, "bf16-mixed")

    def step() -> None:
        wrapped(*inputs).square().mean().backward()
    return step


def fabric_step(model: nn.Module, inputs: tuple) -> Step | None:
    try:
        from lightning.fabric import Fabric
    except ImportError:
        return None
    fabric = Fabric(accelerator="cpu", devices=1, precision="bf16-mixed")
    wrapped = fabric.setup_module(model)

    def step() -> None:
        fabric.backward(wrapped(*inputs).square().mean())
    return step


def measure(ways: dict[str, Step], steps: int, warmup: int = 20) -> dict[str, float]:
    """Median seconds per step of each way, interleaved so that load affects them alike."""
    times: dict[str, list[float]] = {name: [] for name in ways}
    for index in range(warmup + steps):
        for name, step in ways.items():
            start = time.perf_counter()
            step()
            if index >= warmup:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(samples) for name, samples in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread, {args.steps} steps per way, median ms/step")
    for name, build in (("mlp", mlp), ("transformer", transformer)):
        model, inputs = build()
        ways = {
            "hand-written autocast": hand_written(copy.deepcopy(model), inputs),
            "castwise": castwise_step(copy.deepcopy(model), inputs),
        }
        if name == "transformer":
            ways["hand-written + fp32 LayerNorm"] = hand_written_fp32_norms(copy.deepcopy(model), inputs)
        fabric = fabric_step(copy.deepcopy(model), inputs)
        if fabric is not None:
            ways["Lightning Fabric"] = fabric
        median = measure(ways, args.steps)
        print(f"\n{name}:")
        for way, seconds in median.items():
            ratio = median["castwise"] / seconds
            print(f"  {way:<30} {seconds * 1e3:8.3f} ms   castwise / this = {ratio:.3f}")


if __name__ == "__main__":
    main()
