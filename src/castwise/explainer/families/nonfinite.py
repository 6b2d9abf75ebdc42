"""NaN or inf in a loss or a gradient: said cautiously, pointing to ``castwise doctor``.

A NaN has many parents. Under fp16 the usual one is overflow (a value past 65504 becomes inf, and
inf - inf is NaN); in any precision, a numerically unsafe op (sqrt, log or a norm at 0, a division
by almost 0) or a learning rate that diverges. The message alone cannot tell them apart, so the
answer names both and the tool that measures which. Loggers name the loss their own way
(``loss: nan``, ``train_loss_step=nan.0``), which is read too; a loss scale is not a loss. Sampling
(``torch.multinomial``, as ``generate(do_sample=True)`` runs it) refuses probabilities that are not finite: the
logits were NaN/inf, most often a model run in fp16 whose activations overflowed.
"""

from __future__ import annotations

import re

from castwise.explainer.clues import low_precision_said, paste_search
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, explained, message_only, rule

_CAUSES = (
    "under fp16 the usual cause is overflow (a value past 65504 becomes inf, and inf - inf or 0 * inf is NaN); "
    "in any precision, a numerically unsafe op (sqrt, log, pow or a norm at 0, a division by almost 0) or a "
    "learning rate that diverges"
)
_FIX = (
    "run `castwise doctor` on the model: it reports, per policy, the first module whose values overflow or "
    "underflow against fp32; keep that module in fp32 or use bf16 (fp32's range) instead of fp16; if fp32 (AMP "
    "off) fails too, guard the op (an eps in sqrt/log/division, clamp before exp) or lower the learning rate"
)


_VAE = re.compile(r"\bvae\b|\bsd_?xl\b|\bAutoencoderKL\b", re.IGNORECASE)
"""A diffusion VAE named in the paste (``vae``, ``SDXL``, whose VAE overflows in fp16, ``AutoencoderKL``)."""


def _fix(failure: Failure) -> str:
    """The fix for NaN or inf values, led by the VAE's own when the paste names one (diffusion VAEs overflow in fp16),
    and by the library's own switch for AMP when its log names one (Ultralytics' ``amp=False``)."""
    fix = _FIX if paste_search(failure, _VAE) is None else (
        "a diffusion VAE in fp16 is the usual culprit: upcast the VAE, encoding and decoding in fp32 "
        "(`pipe.vae.to(torch.float32)`, diffusers' `force_upcast`, A1111's `--no-half-vae`), or use an fp16-fixed "
        f"VAE (`madebyollin/sdxl-vae-fp16-fix` for SDXL); otherwise {_FIX}")
    true_run = paste_search(failure, _TRUE_PRECISION)
    if true_run:
        fix = (f"train with mixed precision instead of `{true_run.group(0)}` (`{true_run['bits']}-mixed`: weights and "
               "optimizer state stay fp32, the math runs in 16-bit), since a pure 16-bit run loses the optimizer's "
               f"small updates and overflows its state; then {fix}")
    if paste_search(failure, _VERSION_REGRESSION, lines=1):
        fix = ("the report says a new release broke it: pin the last version that worked and update once a release "
               f"fixes it; then, if it persists, {fix}")
    if paste_search(failure, _AMP_SWITCH) is None:
        return fix
    return ("first train with AMP off as the paste's own log offers (`amp=False`): if that cures it, this GPU or "
            f"torch build runs fp16 wrong or the model overflows in it; then {fix}")


_TRUE_PRECISION = re.compile(r"(?<![\w-])(?P<bits>16|bf16)-true\b")
"""A Lightning or LitGPT precision that keeps the weights themselves in 16-bit (``16-true``, ``bf16-true``)."""
_VERSION_REGRESSION = re.compile(
    r"\bregression\b(?! (?:loss|task|model|head|target)s?\b)(?<!(?:linear|gistic) regression)", re.IGNORECASE)
"""A title that calls the failure a regression, a release that broke what an earlier one ran (not a regression
task or loss)."""
_AMP_SWITCH = re.compile(r"\bamp=False\b")
"""A library's log offering its own switch for AMP (Ultralytics: ``you can disable AMP with amp=False``)."""


_TINY_EPS = re.compile(r"\beps(?:ilon)?\b[^\n]{0,40}?(?<![\d.])(?P<a>1e-0?(?:8|9|1\d))\b|"
                       r"(?<![\d.])(?P<b>1e-0?(?:8|9|1\d))\b[^\n]{0,20}?\beps(?:ilon)?\b", re.IGNORECASE)
"""An epsilon below fp16's smallest value (about 6e-8), named in the paste: ``epsilon = 1e-8``, ``1e-10 eps``."""


def _vanished_eps(failure: Failure, names: tuple[str, ...]) -> str:
    """When the paste runs in fp16 and names an epsilon too small for it: the cause that says so, else nothing."""
    if names != ("f16",):
        return ""
    found = paste_search(failure, _TINY_EPS)
    return "" if found is None else (
        f"; the paste names an epsilon of {found['a'] or found['b']}, which rounds to 0 in fp16 (its smallest value "
        "is about 6e-8), so the division, sqrt or log it guards can meet 0"
    )


def _anomaly(found: re.Match[str], failure: Failure) -> Explanation:
    function = found["function"]
    if function.startswith("CtcLoss"):
        return _ctc_infeasible(failure, function)
    bf16 = low_precision_said(failure)[:1] == ("bf16",)
    return explained(
        Kind.NONFINITE, failure,
        f"autograd's anomaly mode found NaN in the gradient {function} computed (the backward of the op named "
        "in the forward trace it prints)",
        _CAUSES,
        "in bf16 no loss scaler skips such a step, so the NaN is that op's own: run the op in fp32, or train under "
        "autocast (`torch.autocast('cuda', dtype=torch.bfloat16)` with fp32 parameters) rather than in a model cast "
        f"to bf16; {_FIX}" if bf16 else
        "under fp16 with a loss scaler, an inf or NaN gradient in some steps is expected (the scaler skips that step "
        "and lowers the scale), and anomaly mode turns it into this error: turn `torch.autograd.set_detect_anomaly` "
        f"off for fp16 runs; if it fails without anomaly mode too, {_FIX}",
        op=function, names=("bf16",) if bf16 else (), confidence=Confidence.LOW,
    )


def _ctc_infeasible(failure: Failure, function: str) -> Explanation:
    """NaN from CTC loss's backward: most often an alignment CTC cannot make, whose loss is inf."""
    return explained(
        Kind.NONFINITE, failure,
        f"autograd's anomaly mode found NaN in the gradient {function} computed: CTC's loss is inf, and its gradient "
        "NaN, for a sample whose target cannot be aligned to its frames",
        "a target longer than its input length (each repeated label needs a blank between, so `aaa` needs 5 frames), "
        "or input_lengths counted before the model downsampled the sequence; fp16 log-probabilities are the rarer "
        "cause",
        "pass `zero_infinity=True` to `F.ctc_loss` / `nn.CTCLoss` (an impossible sample then adds no loss and no "
        "gradient), or drop samples whose target is longer than their frames; give input_lengths in output frames",
        op="ctc_loss",
    )


def nan_loss(found: re.Match[str], failure: Failure) -> Explanation:
    """The loss said to be NaN or inf (``found["value"]``; empty when the words say only non-finite), with the 16-bit
    dtype the paste names nearest."""
    said = low_precision_said(failure)[:1]
    return explained(
        Kind.NONFINITE, failure,
        f"the loss became {found['value'].lower() or 'non-finite'}: some value in the forward or backward is not "
        f"finite{_vanished_eps(failure, said)}",
        _CAUSES, _fix(failure), op="loss", names=said, confidence=Confidence.LOW,
    )


def appeared(found: re.Match[str], failure: Failure, card: str = "") -> Explanation:
    """NaN or inf said to have appeared somewhere (an app's check on a tensor, not a loss); in fp16, said to be an
    overflow most often; ``card`` says why a GPU the paste names runs in fp16 badly."""
    value = {"nan": "NaN", "inf": "inf"}.get(found["value"][:3].lower(), "NaN or inf")
    said = low_precision_said(failure)[:1] or (("f16",) if card else ())
    return explained(
        Kind.NONFINITE, failure, f"{value} values appeared in the forward or backward: some value is not finite"
        + (_vanished_eps(failure, said) or "; in fp16 that is most often an activation that overflowed past 65504"
           if said == ("f16",) else "") + (_EXP_OVERFLOWS if paste_search(failure, _EXP_TO_INF) else "") + card,
        _CAUSES, _fix(failure), op="a non-finite check", names=said, confidence=Confidence.LOW,
    )


_EXP_TO_INF = re.compile(r"\bexp\b[^\n]{0,160}\binf\b|\binf\b[^\n]{0,160}\bexp\b", re.IGNORECASE)
"""A paste that says an exponential gave inf (``exp(125) ... is inf``)."""

_EXP_OVERFLOWS = ("; the paste shows `exp` giving inf: an exponential overflows past float32's range from about 88 "
                  "(fp16's from about 11), and inf / inf or 0 * inf then makes NaN")


def broken_output(failure: Failure, dtype: str | None, shown: str, card: str = "") -> Explanation:
    """Outputs that come out ``shown`` (black images, garbage text) from a model run in the 16-bit ``dtype`` (None when
    the paste names none): what NaN or inf activations leave behind; ``card`` says why a GPU the paste names does."""
    run = f"in {dtype}" if dtype else "in 16-bit (fp16 most often)"
    return explained(
        Kind.NONFINITE, failure,
        f"the outputs come out {shown} {run}: what NaN or inf activations leave (a NaN pixel is saved as black, and "
        f"numpy warns `invalid value encountered in cast`; NaN logits decode to garbage){card}",
        f"a model run {run} whose activations overflow: in fp16 values past 65504 become inf, and inf - inf is "
        "NaN; diffusion VAEs and models trained in bf16 are the usual ones",
        _fix(failure), op="model outputs", names=(dtype,) if dtype else (), confidence=Confidence.LOW,
    )


_sampling = message_only(
    Kind.NONFINITE,
    "sampling (`torch.multinomial`, which `generate(do_sample=True)` runs) got probabilities with inf, NaN or a "
    "negative value: the logits the model produced were not finite",
    "a model run in float16 whose activations overflow (past 65504) to inf/NaN, common with models trained in "
    "bf16 and loaded with `torch_dtype=torch.float16` or `.half()`; less often a logits processor or temperature "
    "that leaves no finite logit, or broken (quantized, merged) weights",
    "load the model in bf16 (`torch_dtype=torch.bfloat16`) or fp32 instead of fp16; `castwise doctor` finds the "
    "first module that overflows in fp16 (keep it in fp32); check the sampling settings (temperature > 0)",
    op="torch.multinomial (sampling)", confidence=Confidence.LOW,
)


_COMPILED = re.compile(r"torch[. _]compile|\binductor\b|\bcompiled\b", re.IGNORECASE)
_COMPILED_WITHIN = 200
"""Lines of a paste (from its top: the title and the report) searched for torch.compile."""


def drifted(failure: Failure, dtype: str, shown: str) -> Explanation:
    """Outputs said to be finite but wrong (``shown``: a failed accuracy check, bad results) in the 16-bit ``dtype``:
    precision lost in a layer that needs fp32, or a value that overflowed on the way; under torch.compile, fused
    intermediates that inductor keeps in fp32 where eager rounds each op."""
    if paste_search(failure, _COMPILED, _COMPILED_WITHIN):
        return explained(
            Kind.NONFINITE, failure,
            f"the compiled and eager outputs in {dtype} are said to differ ({shown}): inductor fuses ops and keeps "
            f"their intermediates in fp32 where eager rounds each op's result to {dtype}, so the two round "
            "differently; neither is the fp32 answer",
            f"torch.compile (inductor) of a model run in {dtype}: long reductions, softmax and chains of small ops "
            "amplify the difference",
            "set `torch._inductor.config.emulate_precision_casts = True` to make compiled code round like eager; "
            "judge both against fp32, not against each other (`castwise doctor` compares every module with fp32)",
            op="torch.compile", names=(dtype,), confidence=Confidence.LOW,
        )
    return explained(
        Kind.NONFINITE, failure,
        f"the outputs in {dtype} are said to be wrong ({shown}), not to fail: a layer loses more precision in "
        f"{dtype} than the model tolerates, or some value overflowed or underflowed on the way (no NaN is said)",
        f"a model or export run in {dtype} end to end: reductions, softmax, norms and long sums are the usual layers "
        "that need fp32",
        "run `castwise doctor` on the model: it compares every module with fp32 and names the first that drifts or "
        "overflows; keep that module in fp32 (a keep rule), or run in bf16 (fp32's range) or fp32",
        op="model outputs", names=(dtype,), confidence=Confidence.LOW,
    )


def truncated(failure: Failure, dtype: str, shown: str) -> Explanation:
    """Values said to be cast silently to the narrower ``dtype`` (``silently truncates positions to float32``): no
    error, only the precision of ``dtype`` where more was asked for."""
    return explained(
        Kind.NONFINITE, failure,
        f"values are said to be cast silently to {dtype} ({shown}): nothing fails, but they keep only {dtype}'s "
        "precision where the code asked for more, so results drift from the ones the requested dtype gives",
        "a dtype hard-coded on the way (`torch.FloatTensor(...)`, `.float()`, `np.float32`, `torch.tensor(x)` under "
        "the default dtype) that ignores the dtype the caller set",
        "build the tensors in the requested dtype (`torch.as_tensor(x, dtype=dtype)`, `x.to(dtype)`), and check each "
        "step's dtype against it; `castwise doctor` compares every module with a higher-precision run",
        op="a silent cast", names=(dtype,), confidence=Confidence.LOW,
    )


def zero_loss(failure: Failure, dtype: str, shown: str) -> Explanation:
    """A training loss said to be 0 (``shown``) in the 16-bit ``dtype``: a non-finite loss or gradient that the
    trainer skipped or logged as 0, or a loss that underflowed."""
    return explained(
        Kind.NONFINITE, failure,
        f"the training loss is said to be 0 in {dtype} ({shown}): a loss of exactly 0 in 16-bit training is most often "
        "a non-finite loss or gradient the trainer skipped or logged as 0 (every step skipped by the loss scaler), or "
        "a loss that underflowed",
        f"a model trained in {dtype} whose activations or loss overflow (a model pretrained in bf16 fine-tuned in fp16 "
        "is the usual one), or a loss too small for fp16",
        f"train in bf16 (fp32's range) where the GPU has it, or in fp32, and compare; then {_FIX[0].lower()}{_FIX[1:]}",
        op="the training loss", names=(dtype,), confidence=Confidence.LOW,
    )


def nan_generation(failure: Failure, dtype: str | None) -> Explanation:
    """A language model in the 16-bit ``dtype`` (None when the paste names none) that generates only ``!!!!``: token 0
    of most vocabularies, what the argmax picks when every logit is NaN."""
    run = dtype or "16-bit (most often fp16, which GPTQ/AWQ kernels and GPUs without bf16, a V100 or T4, compute in)"
    return explained(
        Kind.NONFINITE, failure,
        f"the model generates only '!' (token 0 of most vocabularies), which is what decoding picks when every logit "
        f"is NaN: its activations are not finite in {run}",
        f"a model run in {dtype or '16-bit'} whose activations overflow (past 65504 in fp16 they become inf, then "
        "NaN), common with models trained in bf16 and served with `dtype=torch.half`/`torch_dtype=torch.float16`",
        "load it in bf16 (`dtype='bfloat16'`, `torch_dtype=torch.bfloat16`) or fp32 instead of fp16; `castwise doctor` "
        "finds the first module that overflows in fp16 (keep it in fp32)",
        op="generation", names=(dtype,) if dtype else (), confidence=Confidence.LOW,
    )


_probabilities_out_of_range = message_only(
    Kind.NONFINITE,
    "binary_cross_entropy got inputs outside [0, 1]: a NaN fails that check, and so do logits passed where "
    "probabilities belong",
    "NaN predictions from a sigmoid computed in 16-bit (" + _CAUSES + "); or logits given to BCELoss without a "
    "sigmoid",
    "use `BCEWithLogitsLoss` / `binary_cross_entropy_with_logits` on the logits (stable, and safe under autocast); "
    "if the predictions are NaN, " + _FIX,
    op="binary_cross_entropy", confidence=Confidence.LOW,
)


_bernoulli_probability = message_only(
    Kind.NONFINITE,
    "torch.bernoulli got a probability that is NaN or outside [0, 1] (its `p >= 0 && p <= 1` check fails on NaN)",
    "probabilities computed in 16-bit that became NaN: a 0/0 on rows that are exactly zero, a norm that underflowed "
    "to 0; " + _CAUSES + "; or scores that were never squashed into [0, 1]",
    "compute the probabilities in fp32 and guard the division (`p = x.float() / norm.float().clamp_min(1e-12)`), "
    "clamp them (`p.clamp_(0, 1)`), and find where NaN first appears: " + _FIX,
    op="torch.bernoulli", confidence=Confidence.LOW,
)


_amp_check_failed = message_only(
    Kind.NONFINITE,
    "YOLO's AMP check ran a model on a sample image in fp32 and under AMP and the two did not agree, or the run "
    "failed (YOLOv5 reports any error there the same way, such as a model changed for another input channel "
    "count), so it disabled AMP and trains in fp32",
    "a GPU, driver or torch build whose fp16 kernels give wrong results (what the check is for: some GTX 16xx cards, "
    "some torch nightlies); or, in YOLOv5, your own model failing on the check's RGB sample image (grayscale input)",
    "run the check's comparison yourself (`check_amp` in ultralytics' utils) to see whether the outputs differ or the "
    "run raises; if your model takes other input (channels, size), the warning is not about precision; otherwise "
    "update torch and the GPU driver, or train with `amp=False`; `castwise doctor` compares fp16 with fp32 per layer",
    op="YOLO's AMP check", confidence=Confidence.LOW,
)


_int64_minimum = message_only(
    Kind.NONFINITE,
    "a value printed as -9223372036854775808 (int64's minimum) is what NaN or inf becomes when converted to int64: "
    "the floating values before that conversion were not finite",
    _CAUSES, _FIX, op="a conversion to int64", confidence=Confidence.LOW,
)


_gradcheck_in_float32 = message_only(
    Kind.NONFINITE,
    "gradcheck compares the analytic gradients with finite differences, and its inputs are not float64: in float32 "
    "a perturbation of 1e-6 keeps only a digit or two, so the numerical gradient is noise and the check fails even "
    "when the backward is right",
    "inputs (and the module's parameters) left in float32, the default dtype, when calling `torch.autograd.gradcheck` "
    "(or a test that calls it)",
    "run the check in float64: `x = x.double().requires_grad_()` and `module.double()`; an integer input (indices) "
    "stays integer and needs no gradient",
    op="torch.autograd.gradcheck", names=("f32",),
)


_OVER_RANGE = (
    "losses or gradients heading for {dtype}'s range, the step before they show as inf or NaN",
    "in fp16, a fixed or too-high loss scale (dynamic loss scaling off, or a scale restored from another run) that "
    "makes scaled gradients overflow, or activations near fp16's largest value (65504); a learning rate or optimizer "
    "state lost on resuming makes it worse",
    "use dynamic loss scaling in fp16 (`torch.amp.GradScaler`, '16-mixed', apex's `dynamic_loss_scale=True`), or bf16, "
    "which has fp32's range",
)
_LOST_PRECISION = (
    "losses or gradients that grow because bf16 loses precision (its range is fp32's, so it is not an overflow)",
    "in bf16, precision more than range: attention logits, softmax or norms computed with its 8 bits of precision, or "
    "weights and optimizer states kept in it so small updates round away; a learning rate too high for the batch size "
    "spikes in any precision",
    "keep master weights and optimizer states in fp32 ('bf16-mixed' rather than pure bf16) and softmax and norms in "
    "fp32, and lower the learning rate or lengthen its warmup",
)
"""How training blows up (what grows, the likely culprit, the fix): fp16 and fp8 run out of range, bf16 of precision."""


def diverged(failure: Failure, dtype: str, shown: str) -> Explanation:
    """Training said to blow up (``shown``: a loss or gradient norm grown very large) in the 16-bit ``dtype``: values
    heading for the dtype's range before they show as inf or NaN, or in bf16 updates that lose precision."""
    grows, culprit, fix = _LOST_PRECISION if dtype == "bf16" else _OVER_RANGE
    return explained(
        Kind.NONFINITE, failure, f"training in {dtype} is said to blow up ({shown}): {grows.format(dtype=dtype)}",
        culprit,
        f"{fix}; `castwise doctor --train 20` runs 20 steps per policy against fp32 and shows where it first departs",
        op="training", names=(dtype,), confidence=Confidence.LOW,
    )


def stalled(failure: Failure, dtype: str, shown: str) -> Explanation:
    """Training said not to progress (``shown``: a loss that does not decrease, a metric stuck) in the 16-bit
    ``dtype``: updates lost to the dtype, or steps skipped by a loss scaler."""
    return explained(
        Kind.NONFINITE, failure,
        f"training in {dtype} is said not to progress ({shown}): its updates are lost or skipped, not failing",
        "in fp16, gradients that underflow to 0 without loss scaling, or a loss scaler that skips most steps because "
        "some gradient is inf; in bf16, weights stored in bf16 whose small updates round away (bf16 keeps 8 bits of "
        "precision)",
        "use loss scaling in fp16 (`torch.amp.GradScaler`, '16-mixed'; a loss scale that keeps falling means inf "
        "gradients and skipped steps); keep master "
        "weights in fp32 ('bf16-mixed'), or for pure bf16 use `cw.make_optimizer` (Kahan-summed updates); "
        "`castwise doctor --train 20` runs 20 steps per policy against fp32",
        op="training", names=(dtype,), confidence=Confidence.LOW,
    )


def _asserted_finite(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A library's ``assert torch.isnan(w).sum() == 0`` (the source line a traceback prints) failing with a bare
    ``AssertionError``: the tensor it checks holds NaN or inf."""
    if not any("AssertionError" in line for line in failure.paste[failure.line:]):
        return None
    return appeared(found, failure)


def _gradient_norm(found: re.Match[str], failure: Failure) -> Explanation:
    """``clip_grad_norm_``'s ``The total norm ... is non-finite, so it cannot be clipped``."""
    del found
    return explained(
        Kind.NONFINITE, failure,
        "gradient clipping found the gradients' total norm not finite: some gradient holds inf or NaN",
        "fp16 gradients that overflowed: fp16 training without a GradScaler, or clipping before "
        "`scaler.unscale_(optimizer)` (the norm of scaled gradients); or a NaN made in the forward",
        "with fp16, use a GradScaler and clip after `scaler.unscale_(optimizer)` (`scaler.step` then skips the steps "
        f"whose gradients are not finite), or train in bf16; {_FIX}",
        op="clip_grad_norm_", names=low_precision_said(failure)[:1],
    )


PRINTED_LINES = 64
"""Lines of the tensor torch.distributions prints below its message that are searched for NaN or inf."""

_NON_FINITE_VALUE = re.compile(r"\b(?:nan|inf)\b", re.IGNORECASE)


def _invalid_parameter(found: re.Match[str], failure: Failure) -> Explanation | None:
    """torch.distributions refusing a parameter (``Expected parameter logits ... but found invalid values:``) or a value
    given to ``log_prob`` (``Expected value argument ... to be within the support``) that the values printed with it
    show to hold NaN or inf; declined for other invalid values (a negative scale, a value outside a bounded support)."""
    shown = (failure.message, *failure.paste[failure.line + 1:failure.line + 1 + PRINTED_LINES])
    if not any(_NON_FINITE_VALUE.search(text) for text in shown):
        return None
    parameter = found.groupdict().get("param")
    return explained(
        Kind.NONFINITE, failure,
        f"torch.distributions refused the `{parameter}` of a distribution because it holds NaN or inf" if parameter
        else "torch.distributions refused the value given to `log_prob` because it holds NaN or inf",
        "logits or probabilities computed in fp16 that overflowed (a division by a small temperature, a large "
        "activation) or a NaN that came from upstream" if parameter else "values computed in 16-bit that overflowed "
        "(a flow's or a decoder's output past fp16's 65504 turns inf, then NaN) or a NaN that came from upstream",
        f"build the distribution from fp32 values (`Categorical(logits=logits.float())`); {_FIX}" if parameter
        else f"compute the values and their log-probability in fp32 (`dist.log_prob(z.float())`); {_FIX}",
        op="torch.distributions", names=low_precision_said(failure)[:1], confidence=Confidence.LOW,
    )


_assignment_cost = message_only(
    Kind.NONFINITE,
    "scipy's `linear_sum_assignment` got a cost matrix holding NaN or inf: the costs a matcher built from the "
    "model's outputs were not finite",
    "a Hungarian matcher (DETR-style detection, tracking, set losses) whose class or box costs were computed from "
    "outputs that overflowed in fp16 under AMP, or from NaN predictions",
    "build the cost matrix in fp32 (`cost = cost.float()`, boxes and logits cast before the matcher; the matcher "
    "outside autocast), replace non-finite costs before the call (`torch.nan_to_num`), and find where the outputs "
    "first overflow: " + _FIX,
    op="scipy.optimize.linear_sum_assignment", confidence=Confidence.LOW,
)


def _histogram_range(found: re.Match[str], failure: Failure) -> Explanation:
    """``torch.histc: range of [-27, inf] is not finite``: the values binned hold inf or NaN."""
    del found
    return explained(
        Kind.NONFINITE, failure,
        "torch.histc was given values that hold inf or NaN, so the range it bins over is not finite",
        "activations, gradients or weights logged as a histogram after they overflowed (fp16 past 65504) or became NaN",
        f"log finite values (`x[torch.isfinite(x)]`), or in fp32 (`x.float()`); find where they overflow: {_FIX}",
        op="torch.histc", names=low_precision_said(failure)[:1], confidence=Confidence.LOW,
    )


_negative_or_nan_std = message_only(
    Kind.NONFINITE,
    "torch.normal was given a standard deviation that is NaN or negative (NaN fails its `std >= 0` check)",
    "a std computed in 16-bit that overflowed to inf and then NaN (`log_std.exp()`, a variance of large values, an "
    "input in raw units such as pascals past fp16's 65504), or a std that can go negative (no `softplus`/`exp`)",
    f"compute the std in fp32 and keep it positive (`F.softplus(raw).float() + 1e-6`, `log_std.float().exp()`); {_FIX}",
    op="torch.normal", confidence=Confidence.LOW,
)


def _exl2_measurement(found: re.Match[str], failure: Failure) -> Explanation:
    """exllamav2's converter stopping at a layer whose hidden states hold NaN (2) or inf (3): its reference forward
    pass runs in fp16."""
    value = "inf" if found["code"] == "3" else "NaN"
    return explained(
        Kind.VALUE_OVERFLOW if value == "inf" else Kind.NONFINITE, failure,
        f"exllamav2's converter found {value} in the hidden states it measures ({found['name'] or 'a layer'}): it runs "
        "the model's reference forward pass in fp16, and a layer's activations passed fp16's largest value (65504)",
        "a model whose activations are not kept in fp16's range (a merge or upscaled model trained or merged in bf16, "
        "layers whose norms do not bring them back down)",
        "this model cannot be measured in fp16 as it is: quantize another version of it (a merge whose layers stay in "
        "range), or a format whose converter works in bf16/fp32; a shorter calibration length does not help",
        op="exllamav2 measurement", names=("f16",), confidence=Confidence.LOW,
    )


_not_positive_definite = message_only(
    Kind.NONFINITE,
    "a Cholesky factorisation of a covariance (kernel) matrix failed: in the precision it ran in, the matrix is not "
    "positive definite even after the jitter GPyTorch added, because its smallest eigenvalues rounded to zero or below",
    "a Gaussian process fitted in float32 (GPyTorch and BoTorch work in float64 for this reason) on inputs that are "
    "close together, duplicated or not normalised, or a lengthscale driven to extremes",
    "fit in double precision (`train_x.double()`, `train_y.double()`, `model.double()`, or "
    "`torch.set_default_dtype(torch.float64)`), normalise the inputs and standardise the targets, and only then raise "
    "the jitter (`gpytorch.settings.cholesky_jitter(1e-4)`)",
    op="Cholesky factorisation", confidence=Confidence.LOW,
)


RULES: tuple[Rule, ...] = (
    rule(r"\bNotPSDError\b|Matrix not positive definite after repeatedly adding jitter", _not_positive_definite),
    rule(r"(?:At least one of the inputs that requires gradient is not|(?:Input #\d+|The (?:\{\}|\d+)th input) "
         r"requires gradient and is not a) (?:of )?double precision floating point", _gradcheck_in_float32),
    rule(r"Measurement/inference error \((?P<code>[23])\)(?::\s*(?P<name>\w{1,40}))?", _exl2_measurement),
    rule(r"all elements of input should be between 0 and 1", _probabilities_out_of_range),
    rule(r"Expected p_in >= 0 && p_in <= 1 to be true", _bernoulli_probability),
    rule(r"\bAMP:? checks? (?:failed|failing|fails?)\b", _amp_check_failed),
    rule(r"(?<![\w.])-9223372036854775808\b", _int64_minimum),
    rule(r"Function '(?P<function>\w+)' returned (?:nan|inf) values in its \d+\w* output", _anomaly),
    rule(r"^\s{0,16}assert\b[^\n]{0,40}?\b(?:torch\.|np\.|numpy\.)?is(?P<value>nan|inf|finite)\(", _asserted_finite),
    rule(r"(?:^|[\W_])loss(?:_(?!scal)\w{1,30})?\b[^\n]{0,60}?\b(?:is|=|:|became|becomes|was)\s*['\"]?"
         r"(?P<value>nan|inf)\b", nan_loss),
    rule(r"\b(?:non-finite|nonfinite) loss\b(?P<value>)", nan_loss),
    rule(r"(?P<value>NaN) or Inf found in input tensor", nan_loss),
    rule(r"normal expects all elements of std >= 0\.0", _negative_or_nan_std),
    rule(r"\b(?:cost )?matrix contains invalid numeric entries", _assignment_cost),
    rule(r"torch\.histc: range of \[[^\]\n]{0,80}\b(?:inf|nan)\b[^\]\n]{0,80}\] is not finite", _histogram_range),
    rule(r"The total norm of order [\w.+-]{1,10} for gradients from .?parameters.? is non-finite", _gradient_norm),
    rule(r"Expected parameter (?P<param>\w{1,40}) \(Tensor of shape \([^)\n]{0,60}\)\) of distribution [^\n]{0,200}?to "
         r"satisfy the constraint [^\n]{0,120}?but found invalid values", _invalid_parameter),
    rule(r"Expected value argument \(Tensor of shape \([^)\n]{0,60}\)\) to be within the support [^\n]{0,400}?"
         r"but found invalid values", _invalid_parameter),
    rule(r"invalid multinomial distribution \(encountering probability entry = infinity or NaN\)", _sampling),
    rule(r"probability tensor contains either [`'\"]?inf\b", _sampling),
)
