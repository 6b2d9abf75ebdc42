"""The arithmetic of storing weights in few bits: ulps, swamped updates, stochastic rounding."""

from __future__ import annotations

import torch
from torch import Tensor

LOW_PRECISION: tuple[torch.dtype, ...] = (torch.bfloat16, torch.float16)
"""The 16-bit float dtypes whose updates can be swamped or whose gradients can underflow."""

_LOW_HALF_MASK = -65536  # 0xFFFF0000 as a signed int32: keeps the bits a bfloat16 holds


def ulp(values: Tensor, dtype: torch.dtype | None = None) -> Tensor:
    """The spacing of ``dtype`` (default: the tensor's own) at each value, as a float32 tensor."""
    _require_float(values, "ulp")
    dtype = dtype or values.dtype
    finfo = torch.finfo(dtype)
    magnitude = values.detach().abs().to(torch.float64 if dtype == torch.float64 else torch.float32)
    _, exponent = torch.frexp(magnitude)
    spacing = torch.ldexp(torch.full_like(magnitude, finfo.eps), exponent - 1)
    subnormal_spacing = finfo.smallest_normal * finfo.eps
    return spacing.masked_fill_(magnitude < finfo.smallest_normal, subnormal_spacing)


def rounds_away(weights: Tensor, update: Tensor | float) -> Tensor:
    """True where adding a nonzero ``update`` leaves ``weights`` unchanged in their own dtype.

    ``rounds_away(torch.tensor(1.0, dtype=torch.bfloat16), 2**-9)`` is True: bf16 has 8
    significand bits, so an update below half an ulp of the weight is swamped.
    """
    _require_float(weights, "rounds_away")
    update = torch.as_tensor(update, dtype=torch.float32, device=weights.device)
    result = (weights.float() + update).to(weights.dtype)
    return (result == weights) & (update != 0)


def stochastic_round(values: Tensor, generator: torch.Generator | None = None) -> Tensor:
    """Round float32 ``values`` to bfloat16, up or down with probability by distance (unbiased)."""
    if values.dtype != torch.float32:
        raise TypeError(f"stochastic_round takes a float32 tensor, got {values.dtype}")
    noise = torch.empty(values.shape, dtype=torch.int32, device=values.device)
    noise.random_(0, 1 << 16, generator=generator)
    bits = values.contiguous().view(torch.int32).add(noise).bitwise_and_(_LOW_HALF_MASK)
    return bits.view(torch.float32).to(torch.bfloat16)


def _require_float(values: Tensor, caller: str) -> None:
    if not isinstance(values, Tensor) or not values.is_floating_point():
        kind = values.dtype if isinstance(values, Tensor) else type(values).__name__
        raise TypeError(f"{caller} takes a floating tensor, got {kind}")
