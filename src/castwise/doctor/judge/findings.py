"""Findings: what the runs revealed, each with the fix."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import torch
from torch import nn

from castwise.doctor.judge.search import kept_fp32
from castwise.doctor.measure.routing import ROUTING_WARNING
from castwise.doctor.report.data import (
    LOSS,
    ROOT,
    Finding,
    KeepFix,
    ModeRun,
    PolicyResult,
    Routing,
    Severity,
    Training,
    TrainingRun,
)
from castwise.doctor.report.data import FindingKind as Kind
from castwise.doctor.report.formatting import error_text, percent
from castwise.model.pitfalls import FASTPATH_MODULES
from castwise.policy import Policy, dtype_name

UNDERFLOW_WARNING = 0.01
"""Flag gradients when more than this fraction of the reference's nonzero values flush to zero."""
TRIALS_SHOWN = 8
"""A keep-fp32 finding lists at most this many of the search's re-runs (the report holds them all)."""


def find(
    model: nn.Module, reference: Sequence[ModeRun], results: Sequence[PolicyResult], fixes: Sequence[KeepFix],
    training: Training | None = None, routing: Sequence[Routing] | None = None,
) -> list[Finding]:
    """Every finding for a diagnosed model, most severe first."""
    found = [
        *_reference_failures(reference),
        *_model_dtype(model),
        *_tensor_attributes(model),
        *_fastpath(model, results),
    ]
    for result in results:
        policy = Policy.parse(result.policy)
        fix = next((f for f in fixes if f.policy == result.policy), None)
        found += _failures(result, fix)
        found += _overflow(policy, result)
        for run in result.runs:
            found += _gradient_overflow(policy, result.policy, run)
            found += _gradient_underflow(policy, result.policy, run)
            found += _param_dtypes(policy, result.policy, run)
        found += _keep_fix(result, fix)
    if training is not None:
        for trained in training.runs:
            found += _training(training, trained)
    found += [_routing(entry) for entry in routing or () if entry.rate > ROUTING_WARNING]
    order = list(Severity)
    return sorted(_unique(found), key=lambda f: order.index(f.severity))


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: dict[tuple, Finding] = {}
    for finding in findings:
        seen.setdefault((finding.kind, finding.policy, finding.module, finding.message), finding)
    return list(seen.values())


def _reference_failures(reference: Sequence[ModeRun]) -> Iterator[Finding]:
    for run in reference:
        if not run.ok:
            where = f" in module {run.failing_module}" if run.failing_module else ""
            yield Finding(
                Kind.REFERENCE_FAILED, Severity.ERROR,
                f"the fp32 reference ({run.mode}) raised{where}: {run.exception}; no policy can be judged",
                "make the model run in float32 first (this is not a precision problem)",
                module=run.failing_module,
            )


def _model_dtype(model: nn.Module) -> Iterator[Finding]:
    dtypes = {dtype_name(p.dtype) for p in model.parameters() if p.is_floating_point()}
    if dtypes - {"f32"}:
        yield Finding(
            Kind.MODEL_DTYPE, Severity.WARNING,
            f"the model's parameters are {', '.join(sorted(dtypes))}, not f32: mixed policies keep fp32 master "
            "weights, and the fp32 reference here is an upcast of already-rounded weights",
            "load or build the model in fp32 (`from_pretrained(..., dtype=torch.float32)`) and let the policy "
            "decide the storage dtype (`cw.apply`, `cw.init_module`)",
        )


def _tensor_attributes(model: nn.Module) -> Iterator[Finding]:
    """Floating tensors held as plain attributes: `.to()`, `cw.apply` and state_dict never see them."""
    for name, module in model.named_modules():
        for attribute, value in vars(module).items():
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter) and value.is_floating_point():
                yield Finding(
                    Kind.TENSOR_ATTRIBUTE, Severity.WARNING,
                    f"module {name or ROOT} ({type(module).__name__}) holds a {dtype_name(value.dtype)} tensor "
                    f"attribute {attribute!r} that is neither a parameter nor a buffer, so no policy converts it",
                    f"register it (`self.register_buffer({attribute!r}, tensor)`) or cast it in forward "
                    f"(`self.{attribute}.to(x.dtype)`)",
                    module=name or None,
                )


def _fastpath(model: nn.Module, results: Sequence[PolicyResult]) -> Iterator[Finding]:
    low = [r.policy for r in results if Policy.parse(r.policy).is_low_precision]
    modules = [name for name, m in model.named_modules() if isinstance(m, FASTPATH_MODULES)]
    if low and modules:
        yield Finding(
            Kind.FASTPATH, Severity.INFO,
            f"{modules[0]} ({'and others' if len(modules) > 1 else 'alone'}) has torch's fused MHA/encoder fast path: "
            "under plain torch.autocast on CPU, eval + no_grad with a padding mask raises 'expected scalar type "
            "Float but found BFloat16', and without a mask returns bf16 where training returns fp32",
            "run it under `cw.apply(model, policy)` (castwise turns the fast path off during the forward), or "
            "wrap eval in `torch.backends.mha.set_fastpath_enabled(False)` and restore the flag afterwards",
            module=modules[0],
        )


def _failures(result: PolicyResult, fix: KeepFix | None) -> Iterator[Finding]:
    """One finding per distinct exception, naming the modes it happened in."""
    policy = result.policy
    failed = [run for run in result.runs if not run.ok]
    for exception in dict.fromkeys(run.exception for run in failed):
        runs = [run for run in failed if run.exception == exception]
        run, modes = runs[0], "/".join(r.mode for r in runs)
        explanation = run.explanation or {}
        where = f" in module {run.failing_module}" if run.failing_module else ""
        verified = ""
        if fix and fix.ok and fix.modules:
            verified = f"; verified: keeping {', '.join(fix.modules)} in fp32 makes {policy} pass"
        yield Finding(
            Kind.EXCEPTION, Severity.ERROR,
            f"{policy} ({modes}) raised{where}: {exception}"
            + (f". Cause: {explanation['cause']}" if explanation else ""),
            explanation.get("fix", "see the exception; castwise does not recognise it") + verified,
            policy=policy, module=run.failing_module,
        )


def _fp16(policy: Policy) -> bool:
    return torch.float16 in (policy.compute_dtype, policy.param_dtype)


def _fp16_limit(policy: Policy) -> str:
    """Words on fp16's range for an fp16 policy, else nothing."""
    return " (fp16's largest value is 65504)" if _fp16(policy) else ""


def _overflow(policy: Policy, result: PolicyResult) -> Iterator[Finding]:
    """Inf/nan in the forward (outputs, a module's output or the loss) where fp32's values are finite."""
    runs = [run for run in result.runs if run.forward_overflow]
    if not runs:
        return
    origin = next((run.overflow_origin for run in runs if run.overflow_origin), None)
    yield Finding(
        Kind.FP16_OVERFLOW if _fp16(policy) else Kind.OVERFLOW, Severity.ERROR,
        f"{result.policy} ({'/'.join(r.mode for r in runs)}): values overflowed to inf/nan{_fp16_limit(policy)}, "
        f"first made by {_where(origin)}: {'; '.join(dict.fromkeys(str(r.nonfinite) for r in runs))}",
        "use bf16 (bf16-mixed or bf16-true: the same range as fp32), or keep the overflowing module in fp32; "
        "loss scaling does not help activations" if _fp16(policy) else
        "keep the overflowing module in fp32 or rescale its activations",
        policy=result.policy, module=origin,
    )


def _where(origin: str | None) -> str:
    return "the loss" if origin == LOSS else "the model's own forward" if origin in (None, ROOT) else f"module {origin}"


def _gradient_overflow(policy: Policy, name: str, run: ModeRun) -> Iterator[Finding]:
    """Gradients inf/nan where fp32's are finite (after a finite forward): absorbed by the policy's loss
    scaler, with what that costs, or not."""
    overflowing = run.gradient_overflows()
    if not overflowing or run.forward_overflow:
        return
    worst, scale = overflowing[0], run.loss_scale
    values = (f"{worst.nonfinite_gradients} gradient values of module {worst.name}"
              + (f" (and of {', '.join(m.name for m in overflowing[1:])})" if len(overflowing) > 1 else ""))
    if run.absorbed and scale is not None and scale.scale is not None:
        yield Finding(
            Kind.LOSS_SCALE, Severity.WARNING,
            f"{name} ({run.mode}): {values} overflow to inf/nan in an unscaled backward{_fp16_limit(policy)}; "
            f"its dynamic loss scaler absorbs this, measured: it skips {scale.skipped_steps} steps while the scale "
            f"backs off from {scale.init_scale:g} to {scale.scale:g}, then every gradient is finite",
            f"nothing is required; to skip no steps, start the scaler at {scale.scale:g} "
            f"(`cw.LossScaler(policy, init_scale={scale.scale:g})`), or use bf16 (the range of fp32)",
            policy=name, module=worst.name,
        )
        return
    why = ("the policy has no loss scaling" if policy.loss_scaling == "none" else
           "no loss scale down to float32's smallest makes them finite" if scale is not None else "")
    yield Finding(
        Kind.GRADIENT_OVERFLOW, Severity.ERROR,
        f"{name} ({run.mode}): {values} are inf/nan where fp32's are finite{_fp16_limit(policy)}"
        + (f"; {why}" if why else ""),
        "use a policy with dynamic loss scaling (16-mixed, 16-true) or bf16 (the range of fp32), or keep "
        f"{worst.name} in fp32",
        policy=name, module=worst.name,
    )


def _gradient_underflow(policy: Policy, name: str, run: ModeRun) -> Iterator[Finding]:
    """Gradients flushed to zero in the unscaled backward (a mixed policy's loss scaler undoes this).
    Only fp16 and fp8 can flush them: bf16 has fp32's exponent range, so its zeros where fp32 has values
    come from a different path (a router's other choice, a saturated softmax), not from underflow."""
    worst = max(run.modules, key=lambda m: m.grad_underflow, default=None)
    if worst is None or worst.grad_underflow <= UNDERFLOW_WARNING or not (_fp16(policy) or policy.fp8) or (
            policy.is_mixed and policy.loss_scaling == "dynamic"):
        return
    yield Finding(
        Kind.GRADIENT_UNDERFLOW, Severity.WARNING,
        f"{name} ({run.mode}): {worst.grad_underflow:.1%} of the nonzero gradients of {worst.name} flushed to zero",
        "use loss scaling (castwise's 16-mixed/16-true policies scale dynamically) or bf16" if _fp16(policy) else
        f"keep {worst.name} out of fp8 (fp8_keep_out): its fp8 casts flush small values" if policy.fp8 else
        "keep master weights and gradients in fp32 (a mixed policy)",
        policy=name, module=worst.name,
    )


def _param_dtypes(policy: Policy, name: str, run: ModeRun) -> Iterator[Finding]:
    """Modules whose own parameters are not in the dtype the policy stores them in."""
    for module in run.modules:
        expected = "f32" if module.kept_fp32 else dtype_name(policy.param_dtype)
        odd = [d for d in module.params if d != expected]
        if odd and not _inside_kept(module.name, run):
            yield Finding(
                Kind.PARAM_DTYPE, Severity.WARNING,
                f"{name}: module {module.name} holds {', '.join(odd)} parameters/buffers where the policy "
                f"stores {expected}",
                "let the policy convert the model (`cw.apply`) instead of converting modules by hand, or add the "
                "module to `keep_fp32` if it must stay fp32",
                policy=name, module=module.name,
            )


def _inside_kept(name: str, run: ModeRun) -> bool:
    return any(m.kept_fp32 and (name == m.name or name.startswith(m.name + ".")) for m in run.modules)


def _keep_fix(result: PolicyResult, fix: KeepFix | None) -> Iterator[Finding]:
    if fix is None:
        return
    keep = str(kept_fp32(Policy.parse(result.policy), fix.modules))
    trials = f"{fix.tried} re-run{'' if fix.tried == 1 else 's'}: {_trials_text(fix)}"
    if fix.ok:
        message = (f"{result.policy} fails alone but passes with {', '.join(fix.modules) or 'its default keep list'} "
                   f"kept in fp32 (error {fix.error or 0:.2e}); {trials}")
        advice = f"use the policy {keep!r} (e.g. `cw.apply(model, {keep!r})`)"
    else:
        message = f"{result.policy}: no small set of modules kept in fp32 brought it within tolerance in {trials}"
        advice = "choose the recommended policy, or a mixed policy (fp32 master weights)"
    module = fix.modules[0] if fix.ok and fix.modules else None
    yield Finding(Kind.KEEP_FP32, Severity.INFO, message, advice, policy=result.policy, module=module)


def _trials_text(fix: KeepFix) -> str:
    """The search's re-runs in order, e.g. 'kept 1: error 6.7e+02; kept 1, 3: passes (4.2e-03)'."""
    shown = [f"kept {', '.join(t.modules) or 'nothing more'}: " + (f"passes ({t.error or 0:.1e})" if t.passed else
             f"error {error_text(t.error)}") for t in fix.trials[:TRIALS_SHOWN]]
    more = len(fix.trials) - TRIALS_SHOWN
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def _training(training: Training, run: TrainingRun) -> Iterator[Finding]:
    """A training run that raised, diverged, fell behind fp32, or skipped steps."""
    name, steps = run.label, training.steps
    if not run.ok or run.nonfinite:
        what = f"raised {run.exception}" if not run.ok else f"failed: {run.nonfinite}"
        reference = training.reference
        yield Finding(
            Kind.TRAINING_FAILED, Severity.ERROR, f"{name}: trial training {what}",
            "the fp32 trial training fails too: make the model train in float32 first (this is not a precision "
            "problem)" if not reference.ok or reference.nonfinite else
            "use bf16 (the range of fp32) or a mixed policy, or keep the module that overflows in fp32",
            policy=run.policy,
        )
        return
    if not training.passes(run):
        swamped = f"; {percent(run.swamping_rate)} of weight updates were rounded away" if run.swamping_rate else ""
        kahan = next((r for r in training.runs if r.policy == run.policy and r.updates == "kahan"), None)
        underflow = ""
        if run.grad_underflow > UNDERFLOW_WARNING:
            underflow = f"; {percent(run.grad_underflow)} of gradients underflowed"
        if run.updates == "none" and kahan is not None and training.passes(kahan):
            fix = (f"use Kahan-compensated updates: `cw.make_optimizer(model, lr=..., updates='kahan')` "
                   f"(loss within {percent(abs(kahan.final_gap or 0.0))} of fp32 here)")
        elif underflow:
            fix = ("use dynamic loss scaling (castwise's 16-mixed and 16-true scale dynamically: "
                   "`scaling=dynamic`) or bf16")
        else:
            fix = "use a mixed policy (fp32 master weights), or keep the most sensitive modules in fp32"
        yield Finding(
            Kind.TRAINING_GAP, Severity.WARNING,
            f"{name}: after {steps} steps the loss is {percent(run.final_gap, signed=True)} against fp32's "
            f"(tolerance {training.tolerance:g}){swamped}{underflow}",
            fix, policy=run.policy,
        )
    if run.skipped_steps and run.updates == "none":
        yield Finding(
            Kind.SKIPPED_STEPS, Severity.INFO,
            f"{name}: {run.skipped_steps} of {steps} optimizer steps skipped for inf/nan gradients while the dynamic "
            f"loss scale settled (now {run.loss_scale:g})",
            "nothing while it settles; if steps keep being skipped, values exceed fp16's 65504: use bf16",
            policy=run.policy,
        )


def _routing(entry: Routing) -> Finding:
    routers = ", ".join(entry.routers[:3]) + (" and others" if len(entry.routers) > 3 else "")
    kept = f"{entry.changed_kept} of {entry.tokens}"
    if entry.keeping_helps:
        fix = f"keep the routers in fp32: policy {entry.keep_policy!r} (then {kept} change)"
    elif entry.changed_kept is not None:
        fix = (f"keeping only the routers in fp32 does not help here ({kept} still change): the choices move with "
               "the rounding of the layers before them; check end-to-end quality, or use more precision there")
    else:
        fix = "keep the router modules in fp32 (`keep_fp32=[router class]`)"
    return Finding(
        Kind.MOE_ROUTING, Severity.WARNING,
        f"{entry.policy}: {percent(entry.rate)} of token choices go to other experts than under fp32 "
        f"({entry.changed} of {entry.tokens}; routers {routers})",
        fix, policy=entry.policy, module=entry.routers[0] if entry.routers else None,
    )
