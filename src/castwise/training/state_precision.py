"""How an optimizer stores the moments of 16-bit weights between steps.

In bf16, ``0.999 * v`` rounds back to ``v`` (bf16 has 8 significand bits), so a second moment
kept in bf16 with AdamW's beta2 = 0.999 stops decaying after a phase of large gradients and the
updates stay too small for the rest of the run. In fp16, small moments flush to zero. castwise
optimizers compute every moment in fp32 during the step and store it as chosen:

- ``fp32``: kept in fp32 (+2 bytes per moment and parameter against 16-bit storage).
- ``stochastic``: bf16, rounded up or down with probability by distance, so the decay survives
  in expectation (+0 bytes; bf16 weights only).
- ``nearest``: the weights' dtype, rounded to nearest (torch-optimi's own way: fine for betas far
  from 1, stuck for beta2 >= 0.998 in bf16).
- ``auto`` (the default): ``stochastic`` for bf16 weights, ``fp32`` for fp16 weights.

Each step also holds fp32 copies of the 16-bit moments and gradients while it runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from typing import Any

import torch
from torch import Tensor

from castwise.training.rounding import LOW_PRECISION, stochastic_round

STATES: tuple[str, ...] = ("auto", "fp32", "stochastic", "nearest")
"""How the moments of 16-bit weights are stored between steps (see the module docstring)."""
KAHAN_KEY = "kahan_comp"
"""The compensation buffer torch-optimi keeps next to a 16-bit weight (not a moment)."""


def storage(choice: str, weight_dtype: torch.dtype) -> str:
    """The storage rule for one weight: ``fp32``, ``stochastic`` or ``nearest`` (``auto`` resolved)."""
    if choice != "auto":
        return choice
    return "stochastic" if weight_dtype == torch.bfloat16 else "fp32"


def moments(state: dict[str, Any], param: Tensor) -> Iterable[tuple[str, Tensor]]:
    """The per-element moment tensors of one weight's optimizer state (not its Kahan buffer)."""
    for key, value in state.items():
        if key != KAHAN_KEY and isinstance(value, Tensor) and value.is_floating_point() and value.shape == param.shape:
            yield key, value


def widen(state: dict[str, Any], param: Tensor) -> None:
    """Replace a weight's 16-bit moments by fp32 copies for the step to compute in."""
    for key, value in list(moments(state, param)):
        if value.dtype in LOW_PRECISION:
            state[key] = value.float()


def store(state: dict[str, Any], param: Tensor, choice: str) -> None:
    """Store a 16-bit weight's fp32 moments as ``choice`` says, after a step."""
    rule = storage(choice, param.dtype)
    if rule == "fp32":
        return
    for key, value in list(moments(state, param)):
        if value.dtype == torch.float32:
            state[key] = stochastic_round(value) if rule == "stochastic" else value.to(param.dtype)


def check(choice: str, weight_dtypes: set[torch.dtype]) -> None:
    """Refuse a storage rule the weights cannot use."""
    if choice == "stochastic" and torch.float16 in weight_dtypes:
        raise ValueError(
            "state='stochastic' rounds to bf16 and fp16 weights are not bf16; use state='fp32' "
            "(or 'auto') for fp16 weights"
        )


def restore_saved_dtypes(optimizer: torch.optim.Optimizer, saved: dict[str, Any]) -> None:
    """Put back the moments that torch's ``load_state_dict`` cast to the weight's dtype.

    torch casts every floating state tensor to its parameter's dtype on load, which would round
    an fp32 second moment of a bf16 weight once and store it in bf16 from then on.
    """
    saved_ids = chain.from_iterable(group["params"] for group in saved["param_groups"])
    params = chain.from_iterable(group["params"] for group in optimizer.param_groups)
    by_id = dict(zip(saved_ids, params))
    for param_id, entries in saved["state"].items():
        param = by_id.get(param_id)
        if param is None:
            continue
        state = optimizer.state[param]
        for key, value in moments(entries, param):
            loaded = state.get(key)
            if isinstance(loaded, Tensor) and loaded.dtype != value.dtype:
                state[key] = value.to(device=param.device, copy=True)
