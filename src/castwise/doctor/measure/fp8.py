"""The doctor's fp8 rows: per Linear an fp8 policy converts, its own error and what its fp8 casts lose.

Each converted Linear is run alone on the input it received in an fp32 eval forward of the model,
three ways: in fp32, under bf16 autocast (as bf16-mixed runs it), and as the policy's torchao float8
linear under bf16 autocast (as the fp8 policy runs it). Running each on the same fp32 input measures
the error the layer itself adds, so a layer is not blamed for what an earlier one did.

Overflow and underflow of the e4m3 casts: torchao's dynamic scaling multiplies each tensor (each
row, rowwise) by 448 / amax before the cast, so the largest value lands on e4m3's largest (448) and
nothing saturates by construction. What a large dynamic range costs is the other end: scaled values
below e4m3's smallest subnormal (2**-9) flush to zero or keep at most one bit. So each row reports,
for the input and the weight, the fraction of nonzero elements that fall below 2**-9 after the scale
the recipe would pick, and the input's amax (the value mapped to 448).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch
from torch import nn

from castwise.doctor.measure.compare import Reference, compare
from castwise.doctor.report.data import Fp8Layer
from castwise.model.fp8 import convert_fp8, plan_fp8
from castwise.policy import Policy

E4M3_MAX = 448.0
"""The largest finite float8 e4m3 value: torchao's scales map each amax onto it."""
E4M3_SMALLEST = 2.0**-9
"""e4m3's smallest subnormal: scaled values below it are flushed to zero or keep one bit."""


def fp8_rows(model: nn.Module, policy: Policy, run: Callable[[nn.Module], object]) -> list[Fp8Layer]:
    """One row per Linear ``policy`` converts to fp8, worst error first; ``run(model)`` runs one
    forward of (a copy of) ``model`` with the example inputs."""
    reference = copy.deepcopy(model).eval()
    names = plan_fp8(reference, policy).converted
    inputs: dict[str, torch.Tensor] = {}
    handles = [
        reference.get_submodule(name).register_forward_pre_hook(
            lambda _, args, name=name: inputs.setdefault(name, args[0].detach()))
        for name in names
    ]
    try:
        with torch.no_grad():
            run(reference)
    finally:
        for handle in handles:
            handle.remove()
    linears = {name: reference.get_submodule(name) for name in names if name in inputs}
    rows = [_row(name, m, inputs[name], policy) for name, m in linears.items() if isinstance(m, nn.Linear)]
    return sorted(rows, key=lambda row: -(row.error or 0.0))


def _row(name: str, linear: nn.Linear, x: torch.Tensor, policy: Policy) -> Fp8Layer:
    solo = nn.Sequential(copy.deepcopy(linear)).eval()
    device = x.device.type
    with torch.no_grad():
        fp32 = linear(x)
        with torch.autocast(device, dtype=torch.bfloat16):
            bf16 = linear(x)
        convert_fp8(solo, policy.replace(keep_fp32=(), fp8_keep_out=()))
        with torch.autocast(device, dtype=torch.bfloat16):
            fp8 = solo(x)
    rowwise = policy.fp8 == "rowwise"
    return Fp8Layer(
        name=name,
        error=compare([fp8], [Reference.of(fp32)]).error,
        bf16_error=compare([fp8], [Reference.of(bf16)]).error,
        input_amax=float(x.abs().max()) if x.numel() else 0.0,
        input_underflow=underflow(x, rowwise),
        weight_underflow=underflow(linear.weight.detach(), rowwise),
    )


def underflow(tensor: torch.Tensor, rowwise: bool = False) -> float:
    """The fraction of ``tensor``'s nonzero values below e4m3's smallest subnormal once scaled by
    448 / amax (per tensor; per row along the last dimension with ``rowwise``)."""
    magnitude = tensor.detach().float().abs()
    nonzero = magnitude != 0
    count = int(nonzero.sum())
    if not count:
        return 0.0
    amax = magnitude.amax(dim=-1, keepdim=True) if rowwise else magnitude.amax()
    scaled = magnitude * (E4M3_MAX / amax.clamp_min(torch.finfo(torch.float32).tiny))
    return int(((scaled < E4M3_SMALLEST) & nonzero).sum()) / count
