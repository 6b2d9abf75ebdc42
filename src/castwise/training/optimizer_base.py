"""What every castwise optimizer adds to a torch-optimi one.

- Moments of 16-bit weights are computed in fp32 during the step (16-bit gradients are read as
  fp32 copies) and stored between steps as the group's ``state_precision`` says
  (:mod:`castwise.training.state_precision`); a checkpoint keeps the stored dtypes.
- Param groups carry torch's ``betas`` (the source of truth, copied into torch-optimi's
  ``beta1``/``beta2`` at each step), so ``OneCycleLR`` and ``CyclicLR`` can cycle momentum.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from castwise.training import state_precision
from castwise.training.rounding import LOW_PRECISION

STATE_KEY = "state_precision"
"""The param-group key holding how 16-bit weights' moments are stored."""


class CastwiseOptimizer:
    """Mixin placed first in a torch-optimi optimizer's bases (see the module docstring)."""

    param_groups: list[dict[str, Any]]
    state: dict[Tensor, dict[str, Any]]
    defaults: dict[str, Any]

    def __init__(self, params: Any, *args: Any, state_precision: str = "auto", **kwargs: Any) -> None:
        super().__init__(params, *args, **kwargs)  # type: ignore[call-arg]
        self.defaults[STATE_KEY] = state_precision
        self._complete_groups()

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """torch's ``add_param_group``; ``betas`` and torch-optimi's ``beta1``/``beta2`` agree."""
        if "beta1" in self.defaults:
            betas = param_group.get("betas") or (
                param_group.get("beta1", self.defaults["beta1"]),
                param_group.get("beta2", self.defaults["beta2"]),
            )
            param_group["betas"] = tuple(betas)
            param_group["beta1"], param_group["beta2"] = betas
        super().add_param_group(param_group)  # type: ignore[misc]

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Run ``closure`` (if any), then step with fp32 moments stored as each group says."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            low = self._low_precision_params()
            for param, _ in low:
                state_precision.widen(self.state[param], param)
            unhooked(super().step.__func__)(self)  # type: ignore[misc]
            for param, choice in low:
                state_precision.store(self.state[param], param, choice)
        return loss

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """torch's ``load_state_dict``, keeping the moments' stored dtypes (torch casts them to
        the weights' dtype); state dicts saved before ``betas`` existed load too."""
        super().load_state_dict(state_dict)  # type: ignore[misc]
        state_precision.restore_saved_dtypes(self, state_dict)  # type: ignore[arg-type]  # a mixin over torch-optimi optimizers
        self._complete_groups()

    def _init_group(self, group: dict[str, Any], params: list[Tensor], grads: list[Tensor], *rest: Any) -> Any:
        result = super()._init_group(group, params, grads, *rest)  # type: ignore[misc]
        grads[:] = [grad.float() if grad.dtype in LOW_PRECISION else grad for grad in grads]
        return result

    def _init_state(self, group: dict[str, Any], state: dict[str, Any], param: Tensor) -> None:
        super()._init_state(group, state, param)  # type: ignore[misc]
        state_precision.widen(state, param)

    def _complete_groups(self) -> None:
        for group in self.param_groups:
            group.setdefault(STATE_KEY, self.defaults[STATE_KEY])
            if "beta1" in group:
                group.setdefault("betas", (group["beta1"], group["beta2"]))
        if "beta1" in self.defaults:
            self.defaults["betas"] = (self.defaults["beta1"], self.defaults["beta2"])

    def _low_precision_params(self) -> list[tuple[Tensor, str]]:
        """Copy ``betas`` into ``beta1``/``beta2``; the 16-bit weights this step updates."""
        low = []
        for group in self.param_groups:
            if "betas" in group:
                group["beta1"], group["beta2"] = group["betas"]
            low += [
                (param, group[STATE_KEY])
                for param in group["params"]
                if param.grad is not None and param.dtype in LOW_PRECISION
            ]
        return low


def unhooked(step: Callable[..., Any]) -> Callable[..., Any]:
    """A step function without torch's hook wrapper (the outer step already ran the hooks)."""
    return getattr(step, "__wrapped__", step)
