"""Plain PyTorch against castwise, per policy, in train and eval: does it run, what dtype comes out,
how large are the parameters, and how far is the output from an fp32 reference."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from castwise.doctor.report.data import ModeResult, ParityRow
from castwise.model import apply
from castwise.model.boundary import float32_matmul_precision
from castwise.policy import Policy, canonical_policies, dtype_name

Runner = Callable[[nn.Module, tuple], Any]


def run_parity(
    model: nn.Module,
    inputs: tuple,
    policies: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[ParityRow]:
    """Run every policy the naive way and the castwise way in train and eval modes."""
    names = list(policies) if policies else [name for name, _ in canonical_policies()]
    reference = {mode: _forward(copy.deepcopy(model), inputs, mode, _plain) for mode in ("train", "eval")}
    rows = []
    for name in names:
        policy = Policy.parse(name)
        for way in ("torch", "castwise"):
            if progress:
                progress(f"{policy} ({way})")
            rows.append(_run_one(model, inputs, policy, way, reference))
    return rows


def _run_one(model: nn.Module, inputs: tuple, policy: Policy, way: str, reference: dict) -> ParityRow:
    candidate = copy.deepcopy(model)
    runner: Runner
    if way == "castwise":
        candidate, runner = apply(candidate, policy), _plain
    else:
        runner = _naive_runner(candidate, policy)
    results = {mode: _compare(candidate, inputs, mode, runner, reference[mode]) for mode in ("train", "eval")}
    param_bytes = sum(p.numel() * p.element_size() for p in candidate.parameters())
    return ParityRow(str(policy), way, results["train"], results["eval"], param_bytes)


def _naive_runner(model: nn.Module, policy: Policy) -> Runner:
    """What people write by hand: autocast for mixed policies, ``model.to(dtype)`` for true ones."""
    if policy.is_mixed:
        def run(m: nn.Module, inputs: tuple) -> Any:
            with torch.autocast("cpu", dtype=policy.compute_dtype):
                return m(*inputs)
        return run
    model.to(policy.param_dtype)
    if policy.matmul_precision != "highest":
        def run_tf32(m: nn.Module, inputs: tuple) -> Any:
            with float32_matmul_precision(policy.matmul_precision):
                return m(*inputs)
        return run_tf32
    return _plain


def _plain(model: nn.Module, inputs: tuple) -> Any:
    return model(*inputs)


def _forward(model: nn.Module, inputs: tuple, mode: str, runner: Runner) -> torch.Tensor:
    """Train: forward and backward with grad. Eval: ``eval()`` under ``no_grad``."""
    model.train(mode == "train")
    if mode == "train":
        output = runner(model, inputs)
        output.float().sum().backward()
        return output.detach()
    with torch.no_grad():
        return runner(model, inputs)


def _compare(model: nn.Module, inputs: tuple, mode: str, runner: Runner, reference: torch.Tensor) -> ModeResult:
    try:
        output = _forward(model, inputs, mode, runner)
    except Exception as exc:  # the point is to report what torch raised
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return ModeResult(False, None, None, f"{type(exc).__name__}: {first_line}")
    error = ((output.double() - reference.double()).abs().max() / reference.double().abs().max()).item()
    return ModeResult(True, dtype_name(output.dtype), error, None)
