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

The optimizer's moments (AdamW's ``exp_avg``/``exp_avg_sq``) are computed in fp32 at every step
and stored as ``state`` says (:mod:`castwise.training.state_precision`): by default rounded
stochastically to bf16 for bf16 weights, kept in fp32 for fp16 weights. fp16 weights also get
fp32 gradients (``param.grad_dtype``, +2 bytes per parameter), so that a loss scaler unscales
them in fp32 instead of flushing small gradients to zero.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, TypeAlias

import torch
from torch import Tensor, nn

from castwise.training import state_precision
from castwise.training.rounding import LOW_PRECISION
from castwise.training.stochastic import StochasticRounding

UPDATES: tuple[str, ...] = ("auto", "kahan", "stochastic", "none")
"""How 16-bit weights are updated; ``auto`` is ``kahan`` when any weight is 16-bit, else ``none``."""
OPTIMIZERS: tuple[str, ...] = ("adamw", "adam", "sgd", "lion")
"""The torch-optimi optimizers :func:`make_optimizer` builds."""

Params: TypeAlias = nn.Module | Iterable[Tensor] | Iterable[dict[str, Any]]


def load_optimizer_classes() -> Any:
    """The module of castwise's optimizer classes; ImportError naming the extra when torch-optimi is missing."""
    try:
        from castwise.training import optimizer_classes
    except ImportError as exc:
        raise ImportError("castwise's optimizers need torch-optimi: pip install 'castwise[training]'") from exc
    return optimizer_classes


def make_optimizer(
    params: Params,
    name: str = "adamw",
    *,
    lr: float,
    updates: str = "auto",
    state: str = "auto",
    **kwargs: Any,
) -> torch.optim.Optimizer:
    """A torch-optimi optimizer (adamw, adam, sgd, lion) with the chosen 16-bit update rule.

    ``params`` is a model (its trainable parameters) or what a torch optimizer takes. ``updates``:
    ``auto`` (Kahan when any weight is 16-bit), ``kahan``, ``stochastic`` (bf16 only) or ``none``.
    ``state``: how 16-bit weights' moments are stored, ``auto``, ``fp32``, ``stochastic`` (bf16
    only) or ``nearest``. fp16 weights get fp32 gradients. Other keyword arguments go to the
    optimizer (``weight_decay``, ``betas``, ...).
    """
    key = _choose(name, OPTIMIZERS, "optimizer")
    mode = _choose(updates, UPDATES, "updates mode")
    storage = _choose(state, state_precision.STATES, "state precision")
    if not (isinstance(lr, (int, float)) and lr > 0):
        raise ValueError(f"lr must be a positive number, got {lr!r}")
    if "kahan_sum" in kwargs:
        raise TypeError("pass updates='kahan' or updates='none' instead of kahan_sum")
    groups = _param_groups(params)
    dtypes = {p.dtype for group in groups for p in group["params"]}
    _check_dtypes(dtypes, mode)
    state_precision.check(storage, dtypes)
    if mode == "auto":
        mode = "kahan" if dtypes & set(LOW_PRECISION) else "none"
    classes = load_optimizer_classes()
    cls = (classes.STOCHASTIC if mode == "stochastic" else classes.PLAIN)[key]
    optimizer = cls(groups, lr=lr, kahan_sum=mode == "kahan", state_precision=storage, **kwargs)
    for group in groups:
        _fp32_gradients(group["params"])
    return optimizer


def update_rule(optimizer: torch.optim.Optimizer) -> str:
    """How this optimizer updates 16-bit weights: ``kahan``, ``stochastic`` or ``none``."""
    if isinstance(optimizer, StochasticRounding):
        return "stochastic"
    if any(group.get("kahan_sum") for group in optimizer.param_groups):
        return "kahan"
    return "none"


def _fp32_gradients(params: list[Tensor]) -> None:
    """Let backward accumulate fp16 weights' gradients in fp32 (an existing gradient converts)."""
    for param in params:
        if param.dtype != torch.float16 or param.grad_dtype != torch.float16:
            continue
        grad, param.grad = param.grad, None
        param.grad_dtype = torch.float32
        if grad is not None:
            param.grad = grad.float()


def _param_groups(params: Params) -> list[dict[str, Any]]:
    if isinstance(params, nn.Module):
        params = [p for p in params.parameters() if p.requires_grad]
    items: list[Any] = list(params)
    if not items:
        raise ValueError("make_optimizer got no parameters to optimize")
    if all(isinstance(item, dict) for item in items):
        return [dict(item, params=list(item["params"])) for item in items]
    if all(isinstance(item, Tensor) for item in items):
        return [{"params": items}]
    raise TypeError("params must be a module, tensors, or dicts of parameter groups")


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
