"""Frameworks: one bf16-mixed training step (forward, loss, backward, SGD step) driven by the castwise
Lightning plugin, by Lightning's own bf16-mixed plugin, and by Accelerate's ``prepare``.

Lightning is driven through Fabric so the loop is the same for both plugins; the castwise plugin
is the class ``Trainer(plugins=[...])`` takes too. Same weights, same batch; the ways run in one
process, interleaved step by step with the order rotated each round, and the median is kept. A
second castwise copy is timed as a fourth way: its ratio shows the noise floor of the run. On the
transformer a castwise policy that keeps no module in fp32 shows what the fp32 LayerNorms cost.

    .venv/bin/python benchmarks/frameworks.py [--steps 200] [--device cuda]
"""

from __future__ import annotations

import copy

import torch
from torch import nn

from castwise.integrations.lightning import CastwisePrecision
from common import Step, measure, mlp, print_ratios, start, transformer


def _loss(output: torch.Tensor) -> torch.Tensor:
    return output.float().square().mean()


def fabric_way(model: nn.Module, inputs: tuple, device: str, **fabric_kwargs: object) -> Step:
    from lightning.fabric import Fabric

    fabric = Fabric(accelerator=device, devices=1, **fabric_kwargs)
    module, optimizer = fabric.setup(model, torch.optim.SGD(model.parameters(), lr=1e-3))

    def step() -> None:
        fabric.backward(_loss(module(*inputs)))
        optimizer.step()
        optimizer.zero_grad()
    return step


def accelerate_way(model: nn.Module, inputs: tuple, device: str) -> Step:
    from accelerate import Accelerator

    accelerator = Accelerator(cpu=device == "cpu", mixed_precision="bf16")
    module, optimizer = accelerator.prepare(model, torch.optim.SGD(model.parameters(), lr=1e-3))

    def step() -> None:
        accelerator.backward(_loss(module(*inputs)))
        optimizer.step()
        optimizer.zero_grad()
    return step


def main() -> None:
    steps, device = start(__doc__.splitlines()[0], default_steps=200, gpu=True)
    for name, build in (("mlp", mlp), ("transformer", transformer)):
        model, inputs = build(device)
        ways = {
            "castwise plugin": fabric_way(
                copy.deepcopy(model), inputs, device, plugins=[CastwisePrecision("bf16-mixed")]),
            "Lightning bf16-mixed": fabric_way(copy.deepcopy(model), inputs, device, precision="bf16-mixed"),
            "Accelerate prepare": accelerate_way(copy.deepcopy(model), inputs, device),
            "castwise, 2nd copy": fabric_way(
                copy.deepcopy(model), inputs, device, plugins=[CastwisePrecision("bf16-mixed")]),
        }
        if name == "transformer":
            keep_nothing = CastwisePrecision("params=f32,compute=bf16,output=f32,keep=")
            ways["castwise, norms not kept"] = fabric_way(copy.deepcopy(model), inputs, device, plugins=[keep_nothing])
        print_ratios(name, measure(ways, steps), "castwise plugin")


if __name__ == "__main__":
    main()
