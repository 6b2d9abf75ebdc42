"""Measuring one weight tensor's precision health around one optimizer step."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from castwise.training.rounding import ulp


@dataclass(frozen=True)
class TensorHealth:
    """What one optimizer step did to one weight tensor, counted in elements.

    ``intended``: elements with a nonzero gradient (meant to move). ``swamped``: of those, the ones
    whose stored value did not change and whose update nothing kept (rounded away, lost).
    ``deferred``: unchanged ones whose update Kahan compensation or stochastic rounding carries.
    ``underflow``: nonzero gradients below the low dtype's smallest normal at the backward's loss
    scale (an all-zero gradient counts whole: fp16 flushed it). ``update_ulp``: median
    |update|/ulp(w) over intended elements, the update including what compensation holds.
    """

    name: str
    dtype: torch.dtype
    numel: int
    intended: int = 0
    swamped: int = 0
    deferred: int = 0
    update_ulp: float = 0.0
    compensation_ulp: float = 0.0
    gradients: int = 0
    underflow: int = 0
    nonfinite_grads: int = 0
    nonfinite_weights: int = 0

    @property
    def swamping_rate(self) -> float:
        """Fraction of intended updates rounded away and lost."""
        return self.swamped / self.intended if self.intended else 0.0

    @property
    def deferred_rate(self) -> float:
        """Fraction of intended updates held back by compensation, not lost."""
        return self.deferred / self.intended if self.intended else 0.0

    @property
    def underflow_rate(self) -> float:
        """Fraction of gradients lost or losing precision to underflow."""
        return self.underflow / self.gradients if self.gradients else 0.0


@dataclass
class BeforeStep:
    """What is kept of a weight tensor before the step to judge the step afterwards."""

    weights: Tensor
    compensation: Tensor | None
    intended: Tensor
    gradients: int
    underflow: int
    nonfinite_grads: int


def before_step(
    param: Tensor,
    compensation: Tensor | None,
    underflow_dtype: torch.dtype | None,
    backward_factor: float,
) -> BeforeStep:
    """Snapshot a weight and judge its gradient (times ``backward_factor``: what backward carried)."""
    if param.grad is None:
        raise ValueError("before_step judges a weight's gradient, and this weight has none")
    grad = param.grad.detach()
    if grad.is_sparse:
        grad = grad.to_dense()
    intended = grad != 0
    nonzero = int(intended.sum())
    return BeforeStep(
        weights=param.detach().clone(),
        compensation=None if compensation is None else compensation.detach().clone(),
        intended=intended,
        gradients=grad.numel() if nonzero == 0 else nonzero,
        underflow=_underflow(grad, nonzero, underflow_dtype, backward_factor),
        nonfinite_grads=int((~torch.isfinite(grad)).sum()),
    )


def after_step(
    name: str,
    param: Tensor,
    before: BeforeStep,
    compensation: Tensor | None,
    stochastic: bool,
) -> TensorHealth:
    """Compare the weight with its snapshot: what moved, what was rounded away, what is held."""
    weights = param.detach()
    unchanged = before.intended & (weights == before.weights)
    update = weights.float() - before.weights.float()
    if compensation is not None and before.compensation is not None:
        update += compensation.float() - before.compensation.float()
    spacing = ulp(before.weights)
    ratio = (update.abs() / spacing)[before.intended]
    held = compensation is not None or stochastic
    stuck = int(unchanged.sum())
    return TensorHealth(
        name=name,
        dtype=weights.dtype,
        numel=weights.numel(),
        intended=int(before.intended.sum()),
        swamped=0 if held else stuck,
        deferred=stuck if held else 0,
        update_ulp=float(ratio.median()) if ratio.numel() else 0.0,
        compensation_ulp=_held_ulp(compensation, weights),
        gradients=before.gradients,
        underflow=before.underflow,
        nonfinite_grads=before.nonfinite_grads,
        nonfinite_weights=int((~torch.isfinite(weights)).sum()),
    )


def _held_ulp(compensation: Tensor | None, weights: Tensor) -> float:
    if compensation is None:
        return 0.0
    return float((compensation.float().abs() / ulp(weights)).mean())


def _underflow(grad: Tensor, nonzero: int, dtype: torch.dtype | None, factor: float) -> int:
    if dtype is None:
        return 0
    if nonzero == 0:
        return grad.numel()
    carried = grad.float().abs() * factor
    return int(((carried > 0) & (carried < torch.finfo(dtype).smallest_normal)).sum())
