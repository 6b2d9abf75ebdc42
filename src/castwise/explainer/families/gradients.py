"""Gradient dtypes and loss scaling: the errors raised in backward and in the scaler.

``Found dtype A but expected B`` comes from a loss's backward when prediction and target had
different dtypes. ``Attempting to unscale FP16 gradients`` means the trained parameters are fp16
(no fp32 master copy), which GradScaler refuses. A loss scale driven to its minimum means fp16
overflows on every step; occasional skipped steps are how dynamic loss scaling works. Each
framework words these its own way (torch, apex, DeepSpeed, fairseq); a printed scale below 1 is
read as the collapse it is, whichever wording carried it (a training log's ``Grad Scale: 0`` too).
"""

from __future__ import annotations

import re

from castwise.explainer.advice import a, mixed_story
from castwise.explainer.clues import LERP, LOSS, UNSCALE, innermost, low_precision_said, paste_search, shows
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families import devices, integers, mixed, nonfinite
from castwise.explainer.rules import Rule, dtype_read, dtypes, explained, message_only, rule
from castwise.explainer.spelling import is_complex, is_floating, is_low_precision, short_dtype

DOCTOR = "`castwise doctor` (it reports the first module whose values overflow under each policy)"


def _loss_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """``Found dtype A but expected B``: an op given ``out=`` (A its buffer's dtype, B its result's) when the innermost
    frames pass one; else integer data met by float math, or a loss's backward given two dtypes."""
    names = dtypes(found, "a", "b")
    if len(names) == 2 and any(_OUT_ARGUMENT.search(frame.code) for frame in innermost(failure)):
        return mixed.out_tensor(failure, names[::-1])
    if integers.integer_names(names):
        if not any(frame.file for frame in failure.frames) and paste_search(failure, _SUBSCRIPT_ASSIGNMENT):
            return mixed.indexed_write(failure, names[::-1], "an indexed write (`x[idx] = values`)")
        op = _math_op_called(failure)
        if op is not None:
            return integers.integer_operand(failure, names, op)
        return integers.target(failure, names[:1], wants_float=True, op="BCE/MSE-style loss",
                               prediction=tuple(name for name in names[1:] if is_floating(name)))
    forward = not any(_BACKWARD.search(frame.function) for frame in failure.frames)
    if len(names) == 2 and forward and shows(failure, LERP) and not shows(failure, LOSS):
        return mixed.float_lerp(failure, names[::-1], "end`/`weight")
    if len(names) == 2 and forward and shows(failure, LOSS):
        return mixed.loss_operands(failure, names)
    pair = f"{a(names[0])} gradient where the output is {names[1]}" if len(names) == 2 else "gradients of two dtypes"
    low = any(is_low_precision(name) for name in names)
    return explained(
        Kind.LOSS_DTYPE, failure,
        f"the backward of a loss (or another op) produced {pair}: prediction and target had different dtypes",
        "a loss such as mse_loss/huber_loss/binary_cross_entropy between a 16-bit prediction (a 16-bit model or "
        "autocast output) and an f32 target, or the reverse" if low or not names else
        f"a loss between a prediction and a target of different dtypes; {mixed_story(names)[0]}",
        "compute the loss in fp32: `loss_fn(pred.float(), target.float())` (castwise policies hand outputs back in "
        "fp32 by default, `output_dtype`)",
        op="loss backward", names=names,
    )


_SUBSCRIPT_ASSIGNMENT = re.compile(r"^\s*[A-Za-z_][\w.]*\[[^\]\n]{1,80}\]\s*=(?!=)")
"""A line of pasted code that writes through a subscript (``inputs[mask] = random_words[mask]``): with no traceback
(only code), the write the report points at."""

_OUT_ARGUMENT = re.compile(r"[(,]\s*out\s*=\s*[\w\[]")
"""An ``out=`` argument in a call's source line (``torch.round(x, out=cdf[1:])``)."""
_BACKWARD = re.compile(r"backward")
"""A frame of autograd's backward (``backward``, ``run_backward``): without one, a loss check was raised forward."""
_TORCH_CALL = re.compile(r"\b(?:torch|F)\.(?P<op>[a-z]\w{1,40})\(")
_LOSS_OR_BACKWARD = re.compile(r"loss|backward|criterion|entropy|nll|mse|kl_div|ctc|margin|huber", re.IGNORECASE)


def _math_op_called(failure: Failure) -> str | None:
    """The torch op the innermost frames call (``torch.addcmul(``) when no frame is a loss or a backward: the integer
    tensor met float math there, not a loss's target."""
    if any(_LOSS_OR_BACKWARD.search(f"{frame.function} {frame.code}") for frame in failure.frames):
        return None
    called = (_TORCH_CALL.search(frame.code) for frame in reversed(innermost(failure)))
    found = next(filter(None, called), None)
    return f"torch.{found['op']}" if found else None


def _invalid_gradient(found: re.Match[str], failure: Failure) -> Explanation:
    """A backward's gradient of another dtype than its input; one of the same dtype on another device
    (``expected type torch.FloatTensor but got torch.cuda.FloatTensor``) is a device mismatch."""
    names = dtypes(found, "b", "a")
    places = devices.apart(found["b"], found["a"])
    if places:
        return devices.mismatch(failure, places, names, op="a backward (the gradient it returned)")
    return explained(
        Kind.LOSS_DTYPE, failure,
        f"a custom autograd Function's backward returned a gradient of another dtype than its input "
        f"({' instead of '.join(names)})" if len(names) == 2 else "a backward returned a gradient of the wrong dtype",
        "a `torch.autograd.Function` (or extension) whose backward computes in fp32 for a 16-bit input, or the reverse",
        "cast each gradient the backward returns to its input's dtype (`grad.to(ctx.input_dtype)`)",
        op="backward", names=names,
    )


def _unscale(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    caller = next((frame.function for frame in reversed(failure.frames) if not frame.in_torch and frame.function),
                  None)
    return explained(
        Kind.UNSCALE_FP16, failure,
        "GradScaler.unscale_ refuses gradients stored in fp16: the parameters being trained are fp16 themselves, so "
        "there is no fp32 master copy to unscale into",
        "a model loaded or converted to fp16 (`torch_dtype=torch.float16`, `.half()`) trained with fp16 mixed "
        "precision (`fp16=True`, `16-mixed`, accelerate's `fp16`); with LoRA/adapters, trainable adapter weights "
        "created in fp16",
        "keep the trained parameters in fp32: load in fp32 (`torch_dtype=torch.float32`, or no `.half()`) and let "
        "autocast do the fp16 math ('16-mixed'), or upcast "
        "only the trainable ones (`for p in model.parameters(): if p.requires_grad: p.data = p.data.float()`); or "
        "train in bf16 ('bf16-mixed'), which needs no loss scaling",
        op=f"GradScaler.unscale_ (called from {caller})" if caller and shows(failure, UNSCALE, everywhere=True)
        else "GradScaler.unscale_",
        names=("f16",),
    )


def _scaler_kernel(found: re.Match[str], failure: Failure) -> Explanation:
    """GradScaler's unscale kernel met gradients it has no kernel for: bf16 ones (no scaler needed) or fp16 ones."""
    names = dtypes(found, "a")
    if names and is_complex(names[0]):
        return explained(
            Kind.UNSCALE_FP16, failure,
            f"GradScaler's unscale kernel has no {names[0]} version: it checks and unscales real gradients only, and "
            "this model has complex parameters",
            "a model with complex weights (complex convolutions or linear layers, spectral filters) trained with fp16 "
            "mixed precision and a GradScaler",
            "train the complex model without a GradScaler (fp32, or bf16 autocast, which needs no loss scaling), or "
            "keep its complex weights as real pairs (`torch.view_as_real`) so the scaler sees real gradients",
            op="GradScaler.unscale_", names=names,
        )
    if names != ("bf16",):
        return _unscale(found, failure)
    return explained(
        Kind.UNSCALE_FP16, failure,
        "a GradScaler (fp16 loss scaling) was given bf16 gradients, and its unscale kernel has no bf16 version; bf16 "
        "has fp32's range and needs no loss scaling",
        "a bf16 model trained with fp16 mixed-precision settings still on: `fp16=True` (transformers, accelerate, "
        "DeepSpeed's `fp16` section) beside `torch_dtype=torch.bfloat16` or `bf16=True`, or a GradScaler made "
        "whatever the dtype",
        "drop the scaler for bf16: `bf16=True` and not `fp16=True` (Lightning 'bf16-mixed'/'bf16-true'), or "
        "`GradScaler(enabled=False)` in a hand-written loop",
        op="GradScaler.unscale_", names=names,
    )


_scale_floor = message_only(
    Kind.LOSS_SCALE,
    "the dynamic loss scaler kept finding inf/NaN gradients and lowered the scale to its minimum: fp16 overflows on "
    "every step, so no scale helps",
    "fp16 training of a model whose activations or gradients exceed fp16's range (65504), often a model pretrained "
    f"in bf16, or a learning rate that diverges; {DOCTOR} finds the module",
    "train in bf16 (DeepSpeed `\"bf16\": {\"enabled\": true}`, `bf16=True`, 'bf16-mixed'), which has fp32's range; "
    "or keep the overflowing module in fp32; check the data and the learning rate if it also diverges in fp32",
    op="loss scaling", names=("f16",),
)


def _skipped_step(found: re.Match[str], failure: Failure) -> Explanation | None:
    scale = found.groupdict().get("scale") or "a lower value"
    if _below_one(scale):
        return _scale_floor(found, failure)
    return explained(
        Kind.LOSS_SCALE, failure,
        f"an fp16 step produced inf/NaN gradients, so the loss scaler skipped it and lowered the scale to {scale}: "
        "occasional skips, mostly early in training, are how dynamic loss scaling works",
        f"nothing, if it happens now and then; if the scale keeps falling (to 1 or below) a value overflows fp16 on "
        f"every step, and {DOCTOR} finds the module",
        "leave it if skips are rare; if the scale collapses (every step skipped), train in bf16 or keep the "
        "overflowing module in fp32, and turn AMP off once to see whether fp16 is the cause",
        op="loss scaling", names=("f16",),
    )


_LOSS_NAN = re.compile(r"\bloss\b[^\n]{0,20}?\b(?P<value>nan)\b", re.IGNORECASE)
"""A loss printed as NaN (``| loss | nan |`` in a training log's table)."""


def _log2_scale_lowered(found: re.Match[str], failure: Failure) -> Explanation | None:
    """guided-diffusion's ``Found NaN, decreased lg_loss_scale to X`` (X the scale's log2): the loss itself NaN in the
    paste is a diverged forward, read as a NaN loss; a log2 scale below 0 is the scale's collapse; else a skipped
    step, which is how dynamic loss scaling works."""
    diverged = paste_search(failure, _LOSS_NAN)
    if diverged:
        return nonfinite.nan_loss(diverged, failure)
    if found["lg"] and float(found["lg"]) < 0:
        return _scale_floor(found, failure)
    return _skipped_step(found, failure)


_AMP_OR_FP16_SAID = re.compile(r"\b(?:use_amp|amp|fp16|float16|mixed[ _-]precision|autocast|GradScaler)\b",
                               re.IGNORECASE)
"""Mixed precision or fp16 said anywhere in a paste: a trainer's skipped update, or a scale said to keep falling, is
then its loss scaler's."""


def _update_skipped(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A trainer skipping an update on a NaN/inf gradient norm (ESPnet's ``The grad norm is nan. Skipping updating
    the model``): dynamic loss scaling at work when the paste says AMP or fp16; declined otherwise (a non-finite loss
    in full precision is not a scaler's)."""
    return _skipped_step(found, failure) if paste_search(failure, _AMP_OR_FP16_SAID) else None


def _scale_divided_by_zero(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A ``ZeroDivisionError`` raised while unscaling gradients (apex amp's ``unscale_with_stashed``): the dynamic loss
    scale fell to 0; declined when no unscaling frame shows."""
    return _scale_floor(found, failure) if shows(failure, UNSCALE, everywhere=True) else None


def _printed_scale(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A loss scale a training log prints (``Fp16 Grad Scale:  0``): below 1 it has collapsed, otherwise nothing."""
    return _scale_floor(found, failure) if _below_one(found["scale"]) else None


def _below_one(scale: str) -> bool:
    """Whether a printed loss scale is below 1: fp16 then overflows on (nearly) every step."""
    try:
        return float(scale) < 1
    except ValueError:
        return False


_scale_fell = message_only(
    Kind.LOSS_SCALE,
    "the loss scaler's scale fell: it halves the scale (and skips the step) every time the gradients hold inf or "
    "NaN, so a scale that drops far means fp16 gradients overflowed step after step",
    "fp16 activations or gradients past 65504 (a large learning rate, a layer that overflows in fp16, a loss "
    "computed in fp16), or NaN produced in the forward, on every step it drops",
    f"find what overflows with {DOCTOR} and keep it in fp32; lower the learning rate or clip gradients after "
    "`scaler.unscale_(optimizer)`; with several losses or optimizers (a GAN's generator and discriminator), give each "
    "its own loss scale (apex's `num_losses=` with `loss_id=`, or one `GradScaler` per optimizer); or train in bf16, "
    "which needs no loss scaling",
    op="loss scaling", names=("f16",), confidence=Confidence.LOW,
)


_unscaled_twice = message_only(
    Kind.LOSS_SCALE,
    "GradScaler.unscale_ was called twice for one optimizer between two `scaler.update()` calls",
    "your own `scaler.unscale_(optimizer)` (for gradient clipping) on top of a framework's, or unscaling on every "
    "micro-batch of gradient accumulation instead of once per optimizer step (a bug some Lightning and accelerate "
    "versions had with accumulation and fp16)",
    "call `unscale_` once per optimizer step, right before clipping and `scaler.step`; under a framework let it clip "
    "(`gradient_clip_val`, `accelerator.clip_grad_norm_`) and update it if the double call is its own",
    op="GradScaler.unscale_", names=("f16",),
)


_unscaled_after_step = message_only(
    Kind.LOSS_SCALE,
    "GradScaler.unscale_ was called after `scaler.step(optimizer)` in the same iteration: gradients are unscaled "
    "(and checked for inf) before the step, never after it",
    "gradient clipping (`scaler.unscale_(optimizer)` then `clip_grad_norm_`) placed after `scaler.step(optimizer)`, "
    "or a second loop over the optimizers that unscales them again",
    "order every step as `scaler.scale(loss).backward()`, `scaler.unscale_(optimizer)`, clip, "
    "`scaler.step(optimizer)`, `scaler.update()`",
    op="GradScaler.unscale_", names=("f16",),
)


def _assigned_gradient(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a", "b")
    return explained(
        Kind.LOSS_DTYPE, failure,
        f"a gradient of dtype {names[0] if names else 'another dtype'} was assigned to a tensor of dtype "
        f"{names[1] if len(names) > 1 else 'its own'}: a parameter's `.grad` must have the parameter's dtype",
        "code that sets `p.grad = g` with a gradient computed in another dtype, or FSDP mixed precision (with "
        "torch.compile in some versions) writing 16-bit gradients into fp32 flat parameters",
        "cast the gradient to the parameter's dtype (`p.grad = g.to(p.dtype)`); with FSDP keep `param_dtype`, "
        "`reduce_dtype` and the compiled region consistent, and update torch if the assignment is its own",
        op="gradient assignment", names=names,
    )


_fp16_hook_single_gpu = message_only(
    Kind.LOSS_SCALE,
    "mmcv's fp16 optimizer hook (loss scaling) was set up for distributed training and refuses a single-GPU run",
    "`fp16 = dict(loss_scale=...)` in an mmdetection/mmsegmentation config, whose Fp16OptimizerHook defaults to "
    "`distributed=True`, launched without the distributed launcher",
    "set `distributed=False` for the hook (`optimizer_config = dict(type='Fp16OptimizerHook', distributed=False, "
    "...)`), or launch with the distributed launcher (`dist_train.sh` with 1 GPU); newer mmcv handles one GPU",
    op="Fp16OptimizerHook", names=("f16",),
)


_nothing_to_step = message_only(
    Kind.LOSS_SCALE,
    "GradScaler.step found no inf/NaN check recorded for this optimizer: none of its parameters got a gradient from "
    "a scaled loss before the step (or it holds no trainable parameter)",
    "an optimizer stepped without `scaler.scale(loss).backward()` reaching its parameters: GANs and other setups with "
    "two optimizers under 16-bit precision (one loss that does not touch the other optimizer's parameters), manual "
    "optimization that calls `loss.backward()` directly, or no trainable parameter at all (every layer frozen, or a "
    "LoRA/PEFT adapter loaded without `is_trainable=True`)",
    "scale each loss with `scaler.scale(loss).backward()` before stepping its own optimizer (in Lightning's manual "
    "optimization, `self.manual_backward(loss)`); skip `scaler.step` for an optimizer whose parameters got no "
    "gradient; or train in bf16, which needs no scaler",
    op="GradScaler.step",
)


_never_scaled = message_only(
    Kind.LOSS_SCALE,
    "GradScaler was asked to unscale or step before any `scaler.scale(loss)`: it makes its scale at the first "
    "`scale` call, and none ran",
    "`loss.backward()` called directly, bypassing the scaler: in Lightning's manual optimization instead of "
    "`self.manual_backward(loss)`, in Fabric instead of `fabric.backward(loss)`, or in a loop of your own instead of "
    "`scaler.scale(loss).backward()`",
    "backward through the scaler: `scaler.scale(loss).backward()`, `self.manual_backward(loss)` in a LightningModule, "
    "`fabric.backward(loss)` with Fabric; or train in bf16, which needs no scaler",
    op="GradScaler", names=("f16",),
)


_wrapper_in_scheduler = message_only(
    Kind.LOSS_SCALE,
    "a learning-rate scheduler got apex's (or DeepSpeed's) FP16_Optimizer, a loss-scaling wrapper around the "
    "optimizer that is not itself a torch Optimizer",
    "`FP16_Optimizer(optimizer, ...)` (fp16 training with static or dynamic loss scaling) passed where "
    "`torch.optim.lr_scheduler` expects an Optimizer",
    "give the scheduler the wrapped optimizer (`scheduler = StepLR(optimizer.optimizer, ...)`); or drop the wrapper "
    "for `torch.amp` (autocast with a GradScaler, or `cw.LossScaler`), which leaves the optimizer as it is",
    op="FP16_Optimizer", names=("f16",),
)


def _deepspeed_overflow_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """DeepSpeed's ``OVERFLOW`` (its word, in capitals, for a step skipped by the loss scaler) said in a paste that
    names DeepSpeed: the scale fell."""
    return _scale_fell(found, failure) if paste_search(failure, _DEEPSPEED_SAID) else None


_DEEPSPEED_SAID = re.compile(r"deepspeed", re.IGNORECASE)


def _bare_scale_fell(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A scale said to keep falling without saying which (``the scale keeps decreasing 'forever'``): the loss scale,
    when the paste speaks of AMP or fp16; declined otherwise."""
    return _scale_fell(found, failure) if paste_search(failure, _AMP_OR_FP16_SAID) else None


_LOG_OF_SOFTMAX = re.compile(r"\bsoftmax\s*(?:->|→|then|\+)\s*log\b|\blog\(\s*(?:F\.|torch\.)?softmax\(|"
                             r"\.softmax\([^\n]{0,40}?\)\.log\(\)", re.IGNORECASE)
"""The log of a softmax taken in two steps (``softmax->log->nll_loss``, ``torch.log(F.softmax(x))``)."""


def _scale_fell_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A falling loss scale or overflowing gradients said in words; led by ``log_softmax`` when the paste takes the log
    of a softmax, whose underflowed zeros become -inf in fp16."""
    explanation = _scale_fell(found, failure)
    if explanation is None or not paste_search(failure, _LOG_OF_SOFTMAX):
        return explanation
    return explanation.fixed_first(
        "compute log-probabilities in one step with `F.log_softmax` (or give logits to `nn.CrossEntropyLoss`): a "
        "softmax underflows to 0 in fp16 and its log is -inf")


SCALE_SAID: tuple[Rule, ...] = (
    rule(r"\b(?:GradScaler|grad[ _]?scaler|loss[ _]scal(?:e|er|ing))\b[^\n]{0,80}?\b(?:drop\w{0,4}|fell|fall\w{0,4}|"
         r"collaps\w{0,4}|shr[iu]nk\w{0,4}|decreas\w{0,4}|jump\w{0,4}|adjust\w{0,4}|sudden(?:ly)?|changed?|goes to|"
         r"went to)\b",
         _scale_fell_said),
    rule(r"\bgradients? overflow(?:s|ed)?\b|\boverflow(?:ed|ing)? gradients?\b", _scale_fell_said),
    rule(r"\bthe scale keeps? (?:on )?(?:decreas|dropp|fall|shrink)\w{0,4}", _bare_scale_fell),
    rule(r"(?<![A-Za-z])(?-i:OVERFLOW)(?![A-Za-z])", _deepspeed_overflow_said),
)
"""A loss scale said in prose to fall: tried only when no rule recognised any line."""


def _recomputed_differently(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Activation checkpointing's recompute check failing where the paste names autocast or a 16-bit dtype, or shows
    the saved and recomputed dtypes."""
    del found
    saved, recomputed = paste_search(failure, _SAVED_DTYPE), paste_search(failure, _RECOMPUTED_DTYPE)
    names = tuple(dict.fromkeys(filter(None, (short_dtype(held["dtype"]) for held in (saved, recomputed) if held))))
    if len(names) < 2 and not (paste_search(failure, _AUTOCAST) or low_precision_said(failure)):
        return None
    shown = f" (saved {names[0]}, recomputed {names[1]})" if len(names) == 2 else ""
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"activation checkpointing recomputed a tensor in another dtype than the forward saved{shown}: the recompute "
        "in backward did not run under the forward's casting (its autocast state, or the input cast of a wrapper "
        "such as FSDP2's mixed precision)",
        "a checkpointed function whose forward ran under `torch.autocast` but whose recompute did not (or the other "
        "way round): autocast entered inside the checkpointed function, or around the forward but not the backward; "
        "or a checkpointed module whose inputs a wrapper casts in a forward pre-hook the recompute skips (FSDP2's "
        "`MixedPrecisionPolicy`, when checkpoint wraps the FSDP module)",
        "enter autocast outside the `checkpoint(...)` call, around the whole forward, so the recompute sees the same "
        "state; checkpoint inside the FSDP-wrapped module (`fully_shard` the checkpointed block, not the reverse) or "
        "cast the inputs yourself; and update torch (checkpoint restores the forward's autocast state, and its bugs "
        "here get fixed); `determinism_check='none'` only hides the check",
        op="torch.utils.checkpoint", names=names, confidence=Confidence.LOW,
    )


_SAVED_DTYPE = re.compile(r"saved metadata: \{[^}\n]{0,200}?'dtype': (?P<dtype>torch\.\w{1,20})")
_RECOMPUTED_DTYPE = re.compile(r"recomputed metadata: \{[^}\n]{0,200}?'dtype': (?P<dtype>torch\.\w{1,20})")


_AUTOCAST = re.compile(r"\bautocast\b|\bamp\b|mixed[ -]precision", re.IGNORECASE)


def _hook_changed_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """``hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUBFloat16Type)``; the same dtype on
    another device (``was torch.cuda.FloatTensor got torch.FloatTensor``) is a device mismatch."""
    names = dtypes(found, "a", "b")
    places = devices.apart(found["a"], found["b"])
    if places:
        return devices.mismatch(failure, places, names, op="a gradient hook (the gradient it returned)")
    return explained(
        Kind.LOSS_DTYPE, failure,
        f"a gradient hook returned {a(names[1]) if len(names) == 2 else 'a'} gradient for "
        f"{a(names[0]) if names else 'a'} tensor: a hook may change a gradient's values but not its dtype",
        "a `register_hook` (or a module's backward hook) that casts the gradient it gets (`grad.to(torch.bfloat16)`, "
        "`grad.half()`) or computes a new one in another dtype",
        "return the gradient in the dtype it came in: `lambda grad: f(grad).to(grad.dtype)`",
        op="gradient hook", names=names,
    )


_no_inf_checks = message_only(
    Kind.LOSS_SCALE,
    "GradScaler.update() found no inf checks: no `scaler.step(optimizer)` (or `scaler.unscale_`) ran since the last "
    "update, so it has nothing to adjust the scale with",
    "`scaler.update()` called on every micro-batch of gradient accumulation, or a step skipped in the training loop "
    "(a condition, an exception caught), or an optimizer whose parameters got no gradients",
    "call `scaler.step(optimizer)` and then `scaler.update()` once per optimizer step (with accumulation, only at "
    "the step boundary), and check that the optimizer's parameters receive gradients",
    op="GradScaler.update",
)


_scaler_state_dtype = message_only(
    Kind.LOSS_SCALE,
    "torch's loss-scale update (`torch._amp_update_scale_`) got its state in another dtype: it takes the scale and "
    "the found-inf flag as float32 tensors and the growth tracker as an int32 one",
    "a library's own grad scaler (thinc's for spaCy, a trainer's wrapper around GradScaler) whose scale tensor was "
    "made or converted in another dtype: cast to 16-bit with the model, created from a Python int, or restored from "
    "a checkpoint saved in another dtype",
    "keep the scaler's state out of any model cast (`scale = torch.full((1,), init_scale, dtype=torch.float32)`, "
    "`growth_tracker` int32); if the scaler is a library's, update it (or turn its mixed precision off and use "
    "bf16 autocast, which needs no scaler)",
    op="GradScaler.update",
)


_stepped_twice = message_only(
    Kind.LOSS_SCALE,
    "GradScaler.step() was called twice without a `scaler.update()` between: each step must be followed by an update",
    "a loop that calls `scaler.step(optimizer)` on every minibatch (PPO epochs, gradient accumulation) but "
    "`scaler.update()` once per epoch or outer loop",
    "call `scaler.update()` right after every `scaler.step(optimizer)` (with several optimizers, step each, then one "
    "update)",
    op="GradScaler.step", names=("f16",),
)


def _complex_loss(found: re.Match[str], failure: Failure) -> Explanation:
    """``grad can be implicitly created only for real scalar outputs but got torch.complex64``: backward() from a
    complex value."""
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.LOSS_DTYPE, failure,
        f"backward() was called on a {dtype} value: autograd starts only from a real scalar, so a complex loss needs "
        "its real part (or its magnitude) taken first",
        "a loss or energy computed with complex tensors (an expectation value `<psi|H|psi>`, an FFT-domain loss) that "
        "is real in theory but still held in a complex dtype",
        "take the real part before backward: `loss.real.backward()` (or `loss.abs()`, `(x * x.conj()).real` for a "
        "squared magnitude)",
        op="backward", names=names,
    )


_complex_function_gradient = message_only(
    Kind.LOSS_DTYPE,
    "a backward function returned a complex gradient for a real input (or a real one for a complex input): a "
    "gradient must be real exactly where its input is",
    "a custom `autograd.Function` (an adjoint method, a hand-written backward through complex ops) returning the "
    "complex gradient as it computed it",
    "return the real part for a real input (`grad.real`), and a complex gradient only for a complex input",
    op="autograd.Function.backward",
)

_COMPLEX_WORD = re.compile(r"\bcomplex(?:64|128)?\b")
_REDUCED_TO_COMPLEX = re.compile(r"\btorch\.(?P<op>cumprod|prod|cumsum|sum|mean)\([^\n]{0,80}\bdtype\s*=")
"""A reduction asked for a result dtype (``torch.prod(x, dtype=torch.complex64)``), whose backward is torch's own."""
_CUSTOM_BACKWARD = re.compile(r"\bautograd\.Function\b|\bdef backward\(")


def _complex_gradient(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Backward's check that a gradient is complex exactly where its input is: a reduction that made a real input
    complex through ``dtype=`` (no custom backward in the paste) is torch's own op; else a custom Function's
    backward."""
    reduction = paste_search(failure, _REDUCED_TO_COMPLEX)
    if reduction is None or paste_search(failure, _CUSTOM_BACKWARD) or not paste_search(failure, _COMPLEX_WORD):
        return _complex_function_gradient(found, failure)
    return explained(
        Kind.OP_DTYPE, failure,
        f"torch.{reduction['op']} was given a complex `dtype=` for a real input: its backward produces a complex "
        "gradient for the real input, which autograd refuses",
        f"`torch.{reduction['op']}(x, dtype=torch.complex...)` on a real tensor that requires grad",
        f"make the input complex first and leave out `dtype=`: `torch.{reduction['op']}(x.to(torch.complex64), ...)`",
        op=f"torch.{reduction['op']}",
    )


RULES: tuple[Rule, ...] = (
    rule(r"grad can be implicitly created only for real scalar outputs but got (?P<a>{DTYPE})", _complex_loss),
    rule(r"Expected isFloatingType\(grad\.scalar_type\(\)\) \|\| \(input_is_complex == grad_is_complex\) to be true",
         _complex_gradient),
    rule(r"\bloss\b[^\n]{0,40}?\b(?:inf|nan)\b[^\n]{0,40}?\bgradients? overflow|\bgradients? overflow[^\n]{0,60}?"
         r"\bloss\b[^\n]{0,20}?\b(?:inf|nan)\b", _scale_fell),
    rule(r"Recomputed values for the following tensors have different metadata than during the forward pass|"
         r"\bdifferent d?types? during (?:the )?recomputation\b|\brecomputation\b[^\n.]{0,80}?\btensor metadata "
         r"mismatch", _recomputed_differently),
    rule(r"\bFP16_?Optimizer is not an Optimizer", _wrapper_in_scheduler),
    rule(r"Found (?:the )?dtype (?P<a>{DTYPE}) but expect(?:ed)? (?P<b>{DTYPE})", _loss_dtype),
    rule(r"No inf checks were recorded prior to update", _no_inf_checks),
    rule(r"\b(?:current_scale|found_inf) must be a float tensor|\bgrowth_tracker must be an int tensor",
         _scaler_state_dtype),
    rule(r"step\(\) (?:has already been|was already) called (?:on this optimizer )?since the last update\(\)",
         _stepped_twice),
    rule(r"hook '[^'\n]{1,80}' has changed the type of value \(was (?P<a>[\w.]{1,40}) got (?P<b>[\w.]{1,40})\)",
         _hook_changed_dtype),
    rule(r"^expected dtype (?P<b>{DTYPE}) but got dtype (?P<a>{DTYPE})(?:\s*\(\w+ at [^()\n]*\))?\s*$", _loss_dtype),
    rule(r"returned an invalid gradient at index \d+ - expected (?:dtype|type) (?:TensorOptions\(dtype=)?(?P<b>{DTYPE})"
         r"[^\n]{0,200}? but got (?:TensorOptions\(dtype=)?(?P<a>{DTYPE})", _invalid_gradient),
    rule(r"\bunscale (?:FP16|half) gradients|\bunscal\w{0,20}\b[^\n.]{0,30}? (?:called )?on (?:the )?(?:FP16|half) "
         r"gradients", _unscale),
    rule(r"_amp_foreach_non_finite_check_and_unscale\w{0,20}\W{0,2} not implemented for \\?'(?P<a>{DTYPE})",
         _scaler_kernel),
    rule(r"Current loss scale already at minimum|Minimum loss scale reached|\bSkipped \d{1,6} iterations in a row due "
         r"to Overflow", _scale_floor),
    rule(r"assigned grad has data of a different type", _assigned_gradient),
    rule(r"attempting to assign a gradient with dtype '?(?P<a>{DTYPE})'? to a tensor with (?:grad_)?dtype "
         r"'?(?P<b>{DTYPE})'?", _assigned_gradient),
    rule(r"FP16 mode cannot be used in single GPU training", _fp16_hook_single_gpu),
    rule(r"no inf checks were recorded for this optimizer", _nothing_to_step),
    rule(r"Attempted (?:unscale_|step) but _scale is None", _never_scaled),
    rule(r"\bgrad_scale is too small,? exiting:?\s*(?P<scale>[\d.e+-]+)", _scale_floor),
    rule(r"unscale_\(\) has already been called on this optimizer since the last update", _unscaled_twice),
    rule(r"unscale_\(\) is being called after step\(\)", _unscaled_after_step),
    rule(r"Gradient overflow[.,]?\s*Skipping step,?\s*loss scaler \d+ reducing loss scale to (?P<scale>[\d.e+-]+)",
         _skipped_step),
    rule(r"overflow detected,?\s*setting loss scale to:?\s*(?P<scale>[\d.e+-]+)", _skipped_step),
    rule(r"The grad norm is (?:nan|inf)\.? Skipping updating the model", _update_skipped),
    rule(r"\b(?:loss|grad(?:ient)?)[ _]?scal(?:e|er)\b\s*[:=]?\s*(?P<scale>\d[\d.e+-]{0,20})(?![\w.])",
         _printed_scale),
    rule(r"(?:OVERFLOW!|Overflow detected\.?)\s*(?:Rank \d+\s*)?Skipping step\.?\s*Attempted loss scale(?::?\s*"
         r"[\d.e+-]+(?:,?\s*reducing to (?P<scale>[\d.e+-]+))?)?", _skipped_step),
    rule(r"Reducing dynamic loss scale from [\d.e+-]+ to (?P<scale>[\d.e+-]+)", _skipped_step),
    rule(r"\bGrad overflow on iteration \d+|\bUsing dynamic loss scale of (?P<scale>[\d.e+-]+)", _skipped_step),
    rule(r"Found NaN, decreased lg_loss_scale to (?P<lg>-?\d*\.?\d+)?", _log2_scale_lowered),
    rule(r"\bZeroDivisionError\b|\bdivision by zero\b", _scale_divided_by_zero),
)
