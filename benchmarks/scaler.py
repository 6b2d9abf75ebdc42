"""Loss scaler cost: castwise's LossScaler against torch.amp.GradScaler, side by side (CPU or GPU).

One step is unscale_ + step + update on a model with 300 gradient tensors (150 Linear(32, 32)
layers), each scaler with its own copy of the same weights, gradients and optimizer type. The
ways are interleaved step by step with the order rotated (``benchmarks/common.measure``). Both
scalers keep the scale at 1 (a huge growth interval), so the gradients keep their values across
steps and every step does the same work.

    .venv/bin/python benchmarks/scaler.py --steps 2000 [--device cuda]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

import castwise as cw
from common import Step, measure, print_ratios, start

LAYERS = 150
NEVER = 10**9

Optimizer = Callable[[nn.Module], torch.optim.Optimizer]
OPTIMIZERS: dict[str, Optimizer] = {
    "SGD momentum, foreach": lambda m: torch.optim.SGD(m.parameters(), lr=1e-6, momentum=0.9, foreach=True),
    "AdamW (torch default)": lambda m: torch.optim.AdamW(m.parameters(), lr=1e-6),
}


def model_with_gradients(device: str = "cpu") -> nn.Module:
    """150 Linear(32, 32) layers (300 parameter tensors), each with a gradient."""
    torch.manual_seed(0)
    model = nn.Sequential(*(nn.Linear(32, 32) for _ in range(LAYERS))).to(device)
    for param in model.parameters():
        param.grad = torch.randn_like(param)
    return model


def scaler_step(scaler: Any, optimizer: torch.optim.Optimizer, *, step: bool) -> Step:
    """One timed step of a scaler (either kind): unscale_, the optimizer step if asked, update."""

    def run() -> None:
        scaler.unscale_(optimizer)
        if step:
            scaler.step(optimizer)
        scaler.update()

    return run


def castwise_step(model: nn.Module, make: Optimizer, *, step: bool) -> Step:
    optimizer = make(model)
    scaler = cw.LossScaler("16-mixed", init_scale=1.0, growth_interval=NEVER)
    return scaler_step(scaler, optimizer, step=step)


def torch_step(model: nn.Module, make: Optimizer, device: str, *, step: bool) -> Step:
    optimizer = make(model)
    scaler = torch.amp.GradScaler(device, init_scale=1.0, growth_interval=NEVER)
    scaler.scale(torch.ones((), device=device))  # GradScaler makes its scale tensor at the first scale()
    return scaler_step(scaler, optimizer, step=step)


def main() -> None:
    steps, device = start(__doc__ or "", default_steps=1000, gpu=True)
    print(f"{sum(1 for _ in model_with_gradients().parameters())} gradient tensors")
    for label, make in OPTIMIZERS.items():
        for step, what in ((True, "unscale_ + step + update"), (False, "unscale_ + update only")):
            ways = {
                "castwise LossScaler": castwise_step(model_with_gradients(device), make, step=step),
                "torch GradScaler": torch_step(model_with_gradients(device), make, device, step=step),
            }
            median = measure(ways, steps, warmup=50)
            print_ratios(f"{label}: {what}", median, "castwise LossScaler")


if __name__ == "__main__":
    main()
