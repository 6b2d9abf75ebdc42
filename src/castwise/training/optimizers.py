"""Optimizers whose updates to 16-bit weights are not rounded away.

With bf16 weights, ``w + u == w`` whenever ``|u| < ulp(w)/2``, so small updates vanish and a
``bf16-true`` run plateaus. Two cures, both without fp32 master weights:

- ``kahan``: Kahan-compensated updates (torch-optimi's ``kahan_sum=True``): a 16-bit buffer per
  weight holds what rounding dropped and feeds it back next step (+2 bytes per parameter).
  torch-optimi applies decoupled weight decay outside the compensation, so in bf16 a decay
  below half an ulp per step is still rounded away.
- ``stochastic``: the step runs on fp32 copies of the bf16 weights and rounds back up or down
  with probability by distance, so updates survive in expectation (+0 bytes; a transient fp32
  copy during the step). Weight decay is rounded the same way.

Parameters kept in fp32 by the policy (norms by default) are updated plainly in fp32.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import Tensor, nn

from castwise.training.rounding import LOW_PRECISION, stochastic_round

UPDATES: tuple[str, ...] = ("auto", "kahan", "stochastic", "none")
"""How 16-bit weights are updated; ``auto`` is ``kahan`` when any weight is 16-bit, else ``none``."""
OPTIMIZERS: tuple[str, ...] = ("adamw", "adam", "sgd", "lion")
"""The torch-optimi optimizers :func:`make_optimizer` builds."""
_STOCHASTIC_CLASSES: dict[str, type] = {}

Params = nn.Module | Iterable[Tensor] | Iterable[dict[str, Any]]


def _optimi() -> Any:
    try:
        import optimi
    except ImportError as exc:
        raise ImportError(
            "castwise's optimizers need torch-optimi: pip install 'castwise[training]'"
        ) from exc
    return optimi


class StochasticRounding:
    """Mixin for an optimizer class: each step runs on fp32 copies of the bf16 parameters and
    rounds the result back to bf16 stochastically; optimizer state stays in the parameter dtype."""

    param_groups: list[dict[str, Any]]
    state: dict[Tensor, dict[str, Any]]

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Run ``closure`` (if any) in the weights' own dtype, then step with stochastic rounding."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            swapped = _swap_bf16_to_fp32(self.param_groups, self.state)
            try:
                _unhooked(super().step.__func__)(self)  # type: ignore[misc]
            finally:
                for param, stored, grad in swapped:
                    stored.copy_(stochastic_round(param.data))
                    param.data = stored
                    param.grad = grad
            _keep_state_in_param_dtype(self.state, [param for param, _, _ in swapped])
        return loss


def _swap_bf16_to_fp32(
    groups: list[dict[str, Any]], state: dict[Tensor, dict[str, Any]]
) -> list[tuple[Tensor, Tensor, Tensor]]:
    """Point bf16 parameters at fp32 copies; on a first step their gradients too, so the
    optimizer's new state matches the gradient dtype (it is stored back in bf16 afterwards)."""
    swapped = []
    for group in groups:
        for param in group["params"]:
            if param.grad is None or param.dtype != torch.bfloat16:
                continue
            stored, grad = param.data, param.grad
            param.data = stored.float()
            if not state.get(param):
                param.grad = grad.float()
            swapped.append((param, stored, grad))
    return swapped


def _keep_state_in_param_dtype(state: dict[Tensor, dict[str, Any]], params: list[Tensor]) -> None:
    for param in params:
        entries = state.get(param, {})
        for key, value in entries.items():
            if (
                isinstance(value, Tensor)
                and value.dtype == torch.float32
                and value.shape == param.shape
            ):
                entries[key] = value.to(param.dtype)


def _unhooked(step: Callable[..., Any]) -> Callable[..., Any]:
    """A step function without torch's hook wrapper (the subclass's own step already ran the hooks)."""
    return getattr(step, "__wrapped__", step)


def _base_classes(optimi: Any) -> dict[str, type]:
    return {"adamw": optimi.AdamW, "adam": optimi.Adam, "sgd": optimi.SGD, "lion": optimi.Lion}


def make_optimizer(
    params: Params,
    name: str = "adamw",
    *,
    lr: float,
    updates: str = "auto",
    **kwargs: Any,
) -> torch.optim.Optimizer:
    """A torch-optimi optimizer (adamw, adam, sgd, lion) with the chosen 16-bit update rule.

    ``params`` is a model (its trainable parameters) or what a torch optimizer takes. ``updates``:
    ``auto`` (Kahan when any weight is 16-bit), ``kahan``, ``stochastic`` (bf16 only) or ``none``.
    Other keyword arguments go to the optimizer (``weight_decay``, ``betas``, ...).
    """
    key = _choose(name, OPTIMIZERS, "optimizer")
    mode = _choose(updates, UPDATES, "updates mode")
    if not (isinstance(lr, (int, float)) and lr > 0):
        raise ValueError(f"lr must be a positive number, got {lr!r}")
    if "kahan_sum" in kwargs:
        raise TypeError("pass updates='kahan' or updates='none' instead of kahan_sum")
    groups = _param_groups(params)
    dtypes = {p.dtype for group in groups for p in group["params"]}
    _check_dtypes(dtypes, mode)
    if mode == "auto":
        mode = "kahan" if dtypes & set(LOW_PRECISION) else "none"
    cls = _optimizer_class(key, stochastic=mode == "stochastic")
    return cls(groups, lr=lr, kahan_sum=mode == "kahan", **kwargs)


def update_rule(optimizer: torch.optim.Optimizer) -> str:
    """How this optimizer updates 16-bit weights: ``kahan``, ``stochastic`` or ``none``."""
    if isinstance(optimizer, StochasticRounding):
        return "stochastic"
    if any(group.get("kahan_sum") for group in optimizer.param_groups):
        return "kahan"
    return "none"


def _optimizer_class(key: str, *, stochastic: bool) -> type:
    base = _base_classes(_optimi())[key]
    if not stochastic:
        return base
    if key not in _STOCHASTIC_CLASSES:
        name = f"StochasticRounding{base.__name__}"
        _STOCHASTIC_CLASSES[key] = type(name, (StochasticRounding, base), {"__module__": __name__})
    return _STOCHASTIC_CLASSES[key]


def _param_groups(params: Params) -> list[dict[str, Any]]:
    if isinstance(params, nn.Module):
        params = [p for p in params.parameters() if p.requires_grad]
    items = list(params)
    if not items:
        raise ValueError("make_optimizer got no parameters to optimize")
    if all(isinstance(item, dict) for item in items):
        groups = [dict(item, params=list(item["params"])) for item in items]
    elif all(isinstance(item, Tensor) for item in items):
        groups = [{"params": items}]
    else:
        raise TypeError("params must be a module, tensors, or dicts of parameter groups")
    return groups


def _check_dtypes(dtypes: set[torch.dtype], mode: str) -> None:
    not_float = sorted(str(d) for d in dtypes if not d.is_floating_point)
    if not_float:
        raise TypeError(f"only floating parameters can be optimized, got {', '.join(not_float)}")
    if mode == "stochastic" and torch.float16 in dtypes:
        raise ValueError(
            "stochastic rounding supports bf16 weights (fp16 is not a truncated float32); "
            "use updates='kahan' for fp16 weights"
        )


def _choose(value: str, valid: tuple[str, ...], what: str) -> str:
    key = str(value).strip().lower()
    if key in valid:
        return key
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.4)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown {what} {value!r}.{hint} Valid: {', '.join(valid)}")
