"""Tiny seeded problems shared by the training tests (tiny: bf16/fp16 math is emulated on CPU)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


def teacher_student(
    dtype: torch.dtype,
    make_optimizer: Callable[[nn.Module], torch.optim.Optimizer],
    steps: int = 300,
    width: int = 64,
) -> float:
    """Fit a linear student (stored in ``dtype``) to a random linear teacher; held-out MSE."""
    torch.manual_seed(1)
    teacher = torch.randn(width, width) / width**0.5
    student = nn.Linear(width, width, bias=False).to(dtype)
    optimizer = make_optimizer(student)
    data = torch.Generator().manual_seed(2)
    for _ in range(steps):
        inputs = torch.randn(32, width, generator=data)
        loss = (student(inputs.to(dtype)).float() - inputs @ teacher.T).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    held_out = torch.randn(1024, width, generator=data)
    with torch.no_grad():
        return (student(held_out.to(dtype)).float() - held_out @ teacher.T).pow(2).mean().item()


def small_net(seed: int = 0) -> nn.Module:
    """A two-layer tanh regressor (no ReLU, so no gradient is legitimately exactly zero)."""
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
