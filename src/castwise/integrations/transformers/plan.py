"""What precision a transformers Trainer run really has, worked out before the first step.

The Trainer runs the math as its ``TrainingArguments`` say, through Accelerate: ``bf16=True``
autocasts to bf16 (CPU and GPU) and leaves the parameters as they are; ``fp16=True`` autocasts to
fp16 with a GradScaler on a GPU and does nothing at all on CPU. Parameters train in the dtype they
were loaded in, so bf16 parameters train in pure bf16, with no fp32 master copy. Under DeepSpeed
ZeRO the module is cast to 16 bits and the fp32 master lives in DeepSpeed's optimizer
(:mod:`castwise.integrations.transformers.zero`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from castwise.checkpoint.dtypes import torch_name
from castwise.integrations.transformers.zero import ZeroRun, zero_run
from castwise.policy import Policy, dtype_name
from castwise.training import update_rule

_LOW = (torch.bfloat16, torch.float16)


@dataclass(frozen=True)
class TrainerMath:
    """How a Trainer's arguments run the math on its device."""

    autocast: torch.dtype | None
    grad_scaler: bool
    tf32: bool
    because: str
    zero: ZeroRun | None = None


def trainer_math(args: Any) -> TrainerMath:
    """The autocast dtype, loss scaling and TF32 that ``TrainingArguments`` give on their device."""
    tf32 = bool(getattr(args, "tf32", False))
    zero = zero_run(args)
    if zero is not None:
        return TrainerMath(None, False, tf32, zero.because, zero)
    if args.bf16:
        return TrainerMath(torch.bfloat16, False, tf32, "TrainingArguments bf16=True")
    if args.fp16 and args.device.type != "cpu":
        return TrainerMath(torch.float16, True, tf32, "TrainingArguments fp16=True")
    if args.fp16:
        ignored = "fp16=True, which Accelerate ignores on CPU: no autocast, no loss scaling"
        return TrainerMath(None, False, tf32, ignored)
    return TrainerMath(None, False, tf32, "neither bf16 nor fp16 in TrainingArguments")


def trainable_dtypes(model: nn.Module, kept: tuple[str, ...]) -> Counter[torch.dtype]:
    """Trainable floating parameters outside the kept-fp32 modules, counted by dtype."""
    prefixes = tuple(f"{name}." for name in kept)
    counts: Counter[torch.dtype] = Counter()
    for name, param in model.named_parameters():
        if param.requires_grad and param.is_floating_point() and not name.startswith(prefixes):
            counts[param.dtype] += getattr(param, "ds_numel", param.numel())  # ZeRO-3 holds a partition
    return counts


def running_policy(model: nn.Module, policy: Policy, kept: tuple[str, ...], math: TrainerMath) -> Policy:
    """The policy a Trainer run really follows: the trainable weights' dtype, the math's dtype,
    and ``policy``'s keep rule."""
    weights = trainable_dtypes(model, kept).most_common(1)
    param = weights[0][0] if weights else torch.float32
    return Policy(
        param, math.autocast or param, keep_fp32=policy.keep_fp32,
        matmul_precision="high" if math.tf32 else "highest",
        loss_scaling="dynamic" if math.grad_scaler else "none",
    )


def check_trainable(model: nn.Module, math: TrainerMath) -> None:
    """Refuse fp16 parameters under the Trainer's GradScaler, which cannot unscale fp16 gradients."""
    fp16 = sum(p.numel() for p in model.parameters() if p.requires_grad and p.dtype == torch.float16)
    if fp16 and math.grad_scaler:
        raise ValueError(
            f"the model has {fp16:,} trainable fp16 parameters and TrainingArguments fp16=True: the "
            "Trainer's GradScaler refuses fp16 gradients ('Attempting to unscale FP16 gradients'). "
            "Load the model in fp32 (from_pretrained(..., dtype=torch.float32)) for fp16 mixed "
            "precision, or use bf16=True"
        )


@dataclass(frozen=True)
class TrainingPlan:
    """What a Trainer run will really do, next to the policy asked for; ``str()`` is the report."""

    requested: Policy
    running: Policy
    trainable: dict[str, int]
    kept: tuple[str, ...]
    math: TrainerMath
    optimizer: str
    update_rule: str
    save_dtype: torch.dtype
    warnings: tuple[str, ...]

    def __str__(self) -> str:
        lines = [f"castwise: policy {self.requested}; what the Trainer will really do:"]
        lines += [f"  {label:<8} {text}" for label, text in self._rows()]
        lines += [f"  ! {warning}" for warning in self.warnings]
        return "\n".join(lines)

    def _rows(self) -> list[tuple[str, str]]:
        counts = ", ".join(f"{count:,} {name}" for name, count in self.trainable.items()) or "none"
        param = self.running.param_dtype
        kind = f"pure {dtype_name(param)}, no fp32 master copy" if param in _LOW else "fp32 master weights"
        kind = self.math.zero.weights if self.math.zero is not None else kind
        rule = {"kahan": ", Kahan-compensated", "stochastic": ", stochastically rounded"}.get(self.update_rule, "")
        math = self.math
        compute = f"{dtype_name(math.autocast)} autocast" if math.autocast else f"no autocast: {dtype_name(param)} math"
        kept = ", ".join(self.kept[:3]) + (", ..." if len(self.kept) > 3 else "")
        save = self.save_dtype
        source = f": {math.zero.on_disk()}" if math.zero is not None else ""
        computing = "computing in fp32" if math.zero is None else "on disk (DeepSpeed runs every module 16-bit)"
        return [
            ("weights", f"{counts} trainable parameters ({kind}), updated by {self.optimizer}{rule}"),
            ("math", f"{compute} ({math.because})" + (", GradScaler loss scaling" if math.grad_scaler else "")),
            ("fp32", f"{len(self.kept)} modules kept fp32, {computing}" + (f": {kept}" if kept else "")),
            ("tf32", "TF32 matmuls allowed (Ampere+ GPUs; no effect on CPU)" if math.tf32 else "off"),
            ("on disk", f"{dtype_name(save)} weights, kept modules fp32, config.json dtype {torch_name(save)}{source}"),
        ]


def plan_training(
    model: nn.Module, args: Any, policy: Policy, optimizer: Any, kept: tuple[str, ...], save_dtype: torch.dtype
) -> TrainingPlan:
    """What ``args`` and ``optimizer`` will really do to ``model``, with a warning for each way it
    differs from ``policy`` or loses updates."""
    math = trainer_math(args)
    running = running_policy(model, policy, kept, math)
    inner = getattr(optimizer, "optimizer", optimizer)
    rule = update_rule(inner) if isinstance(inner, torch.optim.Optimizer) else "none"
    counts = trainable_dtypes(model, kept)
    warnings = _pure_16bit(policy, running, counts, type(inner).__name__, rule, math)
    warnings += _mismatches(policy, running, math)
    return TrainingPlan(
        policy, running, {torch_name(d): n for d, n in counts.most_common()}, kept, math,
        type(inner).__name__, rule, save_dtype, tuple(warnings),
    )


def _pure_16bit(
    requested: Policy, running: Policy, counts: Counter[torch.dtype], optimizer: str, rule: str, math: TrainerMath
) -> list[str]:
    param = running.param_dtype
    if param not in _LOW or rule != "none" or math.zero is not None:  # DeepSpeed keeps an fp32 master
        return []
    name = dtype_name(param)
    asked = f"the policy {requested} keeps fp32 master weights, but " if requested.param_dtype not in _LOW else ""
    autocast = f" under {math.because}" if math.autocast else ""
    stochastic = " (or updates='stochastic')" if param == torch.bfloat16 else ""
    message = (
        f"pure {name} training: {asked}{counts[param]:,} trainable parameters are {name} and {optimizer} "
        f"updates them in {name} with no fp32 master copy, so updates below half a {name} ulp are "
        f"rounded away (castwise logs the share as castwise/swamping_rate). Fix: load the model in "
        f"fp32 (from_pretrained(..., dtype=torch.float32)) to train fp32 master weights{autocast}, "
        f"or keep {name} weights and pass optimizers=(cw.make_optimizer(model, 'adamw', lr=..., "
        f"updates='kahan'), None){stochastic}"
    )
    return [message]


def _mismatches(requested: Policy, running: Policy, math: TrainerMath) -> list[str]:
    found = []
    wanted, got = requested.compute_dtype, running.compute_dtype
    if wanted != got:
        fixes = {
            torch.bfloat16: "pass bf16=True",
            torch.float16: "pass fp16=True on a GPU (Accelerate has no fp16 autocast on CPU)",
        }
        fix = fixes.get(wanted, "pass bf16=False and fp16=False, and load fp32 weights")
        found.append(
            f"the policy {requested} computes in {dtype_name(wanted)} but the Trainer will compute in "
            f"{dtype_name(got)} ({math.because}): {fix}"
        )
    if requested.matmul_precision != "highest" and not math.tf32:
        found.append(
            f"the policy {requested} allows TF32 matmuls but TrainingArguments tf32 is not set: pass tf32=True"
        )
    return found
