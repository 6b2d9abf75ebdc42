"""Wrapper overhead: a forward+backward step under ``cw.apply(m, "bf16-mixed")`` against the same
step written by hand with ``torch.autocast`` (and OpenCLIP-style fp32 LayerNorms), and against
Lightning Fabric's wrapper; then the same comparison with ``torch.compile`` (inductor) on both sides.

The ways are timed in one run, interleaved step by step with the order rotated, and the median
of many steps is kept, so machine load affects them alike. Prints the ratios that BENCHMARKS.md records.

    .venv/bin/python benchmarks/overhead.py [--steps 300] [--device cuda]
"""

from __future__ import annotations

import copy

import torch
from torch import nn

import castwise as cw
from common import Step, measure, mlp, print_ratios, start, transformer


class Autocast(nn.Module):
    """The hand-written way: the model's forward under ``torch.autocast``, the output in fp32."""

    def __init__(self, model: nn.Module, device: str) -> None:
        super().__init__()
        self.model = model
        self.device = device

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        with torch.autocast(self.device, dtype=torch.bfloat16):
            output = self.model(*inputs)
        return output.float()


def training_step(model: nn.Module, inputs: tuple) -> Step:
    def step() -> None:
        model(*inputs).square().mean().backward()
    return step


def hand_written(model: nn.Module, inputs: tuple, device: str) -> Step:
    return training_step(Autocast(model, device), inputs)


class LayerNormFp32(nn.LayerNorm):
    """OpenCLIP's hand-written answer: a LayerNorm that computes in fp32 and casts back."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, bias = self.weight.float(), self.bias.float()
        return nn.functional.layer_norm(x.float(), self.normalized_shape, weight, bias, self.eps).to(x.dtype)


def with_fp32_norms(model: nn.Module) -> nn.Module:
    for module in model.modules():
        if type(module) is nn.LayerNorm:
            module.__class__ = LayerNormFp32
    return model


def compiled(module: nn.Module, inputs: tuple) -> Step:
    """A compiled module's training step, compiled (warmed up) before timing starts."""
    step = training_step(torch.compile(module), inputs)
    step()
    return step


def fabric_step(model: nn.Module, inputs: tuple, device: str) -> Step | None:
    try:
        from lightning.fabric import Fabric
    except ImportError:
        return None
    fabric = Fabric(accelerator=device, devices=1, precision="bf16-mixed")
    wrapped = fabric.setup_module(model)

    def step() -> None:
        fabric.backward(wrapped(*inputs).square().mean())
    return step


def main() -> None:
    steps, device = start(__doc__.splitlines()[0], default_steps=300, gpu=True)
    for name, build in (("mlp", mlp), ("transformer", transformer)):
        model, inputs = build(device)
        ways = {
            "hand-written autocast": hand_written(copy.deepcopy(model), inputs, device),
            "castwise": training_step(cw.apply(copy.deepcopy(model), "bf16-mixed"), inputs),
        }
        if name == "transformer":
            ways["hand-written + fp32 LayerNorm"] = hand_written(with_fp32_norms(copy.deepcopy(model)), inputs, device)
        fabric = fabric_step(copy.deepcopy(model), inputs, device)
        if fabric is not None:
            ways["Lightning Fabric"] = fabric
        print_ratios(name, measure(ways, steps), "castwise")
        compiled_ways = {
            "compiled hand-written + fp32 LN": compiled(
                Autocast(with_fp32_norms(copy.deepcopy(model)), device), inputs),
            "compiled castwise": compiled(cw.apply(copy.deepcopy(model), "bf16-mixed"), inputs),
        }
        print_ratios(f"{name}, torch.compile", measure(compiled_ways, steps), "compiled castwise")


if __name__ == "__main__":
    main()
