"""Wrapper overhead: a forward+backward step under ``cw.apply(m, "bf16-mixed")`` against the same
step written by hand with ``torch.autocast``, and against Lightning Fabric's wrapper when installed.

The ways are timed in one run, interleaved step by step with the order rotated, and the median
of many steps is kept, so machine load affects them alike. Prints the ratios that BENCHMARKS.md records.

    .venv/bin/python benchmarks/overhead.py [--steps 300]
"""

from __future__ import annotations

import copy

import torch
from common import Step, measure, mlp, print_ratios, start, transformer
from torch import nn

import castwise as cw


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


def main() -> None:
    steps = start(__doc__.splitlines()[0], default_steps=300)
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
        print_ratios(name, measure(ways, steps), "castwise")


if __name__ == "__main__":
    main()
