"""Bytes a training run holds per parameter: weights, gradients and optimizer state."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn


@dataclass(frozen=True)
class TrainingBytes:
    """Bytes of weights, gradients (one per trainable weight, in its ``grad_dtype``) and optimizer
    state."""

    parameters: int
    gradients: int
    optimizer: int
    numel: int

    @property
    def total(self) -> int:
        """Weights + gradients + optimizer state."""
        return self.parameters + self.gradients + self.optimizer

    @property
    def per_parameter(self) -> float:
        """Total bytes per parameter (16.0 for fp32 weights with fp32 AdamW)."""
        return self.total / self.numel if self.numel else 0.0


def training_bytes(model: nn.Module, optimizer: torch.optim.Optimizer) -> TrainingBytes:
    """Measure a model's training footprint; optimizer state counts once it exists (after a step)."""
    params = list(model.parameters())
    trainable = [p for p in params if p.requires_grad]
    state = sum(
        value.numel() * value.element_size()
        for entry in optimizer.state.values()
        for value in entry.values()
        if isinstance(value, Tensor)
    )
    return TrainingBytes(
        parameters=sum(_nbytes(p) for p in params),
        gradients=sum(p.numel() * (p.grad_dtype or p.dtype).itemsize for p in trainable),
        optimizer=state,
        numel=sum(p.numel() for p in params),
    )


def _nbytes(tensor: Tensor) -> int:
    return tensor.numel() * tensor.element_size()
