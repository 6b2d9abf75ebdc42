"""Stochastic-rounding updates: the step runs on fp32 copies of bf16 weights and rounds back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from castwise.training.optimizer_base import unhooked
from castwise.training.rounding import stochastic_round


class StochasticRounding:
    """Mixin for an optimizer class (after :class:`CastwiseOptimizer` in the bases): each step
    runs on fp32 copies of the bf16 weights and rounds the result back to bf16 up or down with
    probability by distance, so updates below half an ulp survive in expectation."""

    param_groups: list[dict[str, Any]]

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """The inner optimizer's step on fp32 copies of the bf16 weights, rounded back stochastically."""
        swapped = _swap_bf16_to_fp32(self.param_groups)
        try:
            return unhooked(super().step.__func__)(self, closure)  # type: ignore[misc]
        finally:
            for param, stored in swapped:
                stored.copy_(stochastic_round(param.data))
                param.data = stored


def _swap_bf16_to_fp32(groups: list[dict[str, Any]]) -> list[tuple[Tensor, Tensor]]:
    """Point the bf16 parameters that have gradients at fp32 copies; (parameter, bf16 storage)."""
    swapped = []
    with torch.no_grad():
        for group in groups:
            for param in group["params"]:
                if param.grad is not None and param.dtype == torch.bfloat16:
                    swapped.append((param, param.data))
                    param.data = param.data.float()
    return swapped
