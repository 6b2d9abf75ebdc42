"""The error catalogue behind ``cw.explain``: what a dtype error raised by torch means and how to fix it.

Each entry matches the message torch 2.13 actually raises (the tests produce every one of them)
and names the cause in plain words, the likely culprit and the fix.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass

_DTYPE_WORDS = (("bfloat16", "bf16"), ("half", "f16"), ("float16", "f16"), ("double", "f64"),
                ("float64", "f64"), ("float", "f32"), ("long", "i64"), ("int", "i32"))

_FASTPATH_FILES = ("torch/nn/modules/transformer.py", "torch/nn/modules/activation.py")
_FASTPATH_KERNELS = ("_transformer_encoder_layer_fwd", "_native_multi_head_attention")
_CONV_CALL = re.compile(r"\bconv(?:_transpose)?[123]d\(")

_POLICY_FIX = (
    "run the whole model under one castwise policy (`cw.apply(model, 'bf16-mixed')`), which casts inputs "
    "and parameters consistently"
)


@dataclass(frozen=True)
class Explanation:
    """Why torch raised a dtype error: the catalogue entry, the cause, the likely culprit, the fix."""

    kind: str
    message: str
    cause: str
    culprit: str
    fix: str

    def __str__(self) -> str:
        return f"{self.cause}\nLikely culprit: {self.culprit}\nFix: {self.fix}"


@dataclass(frozen=True)
class _Entry:
    kind: str
    pattern: re.Pattern[str]
    cause: str
    culprit: str
    fix: str


def _entry(kind: str, pattern: str, cause: str, culprit: str, fix: str) -> _Entry:
    return _Entry(kind, re.compile(pattern, re.IGNORECASE), cause, culprit, fix)


_FASTPATH = _entry(
    "transformer_fastpath", r"expected scalar type (\w+) but found (\w+)",
    "nn.TransformerEncoder/MultiheadAttention took torch's fused inference fast path (eval + no_grad) "
    "under CPU autocast: the fast-path guard only checks CUDA autocast, so the fused kernel got {b} "
    "activations with {a} weights",
    "an nn.TransformerEncoderLayer in eval mode under torch.autocast('cpu'), usually with a padding mask",
    "use `cw.apply(model, policy)`, which turns the fast path off during the forward; or wrap the "
    "call in `torch.backends.mha.set_fastpath_enabled(False)` (a global flag: restore it afterwards)",
)

_CONV_WEIGHT_CAUSE = "a convolution got a {a} input but a {b} weight"
_CONV_WEIGHT_CULPRIT = "a conv layer whose weight stayed {b} while its input is {a}"
_CONV_WEIGHT_FIX = (
    f"{_POLICY_FIX}; or convert the layer (`conv.to(dtype)`), or use autocast instead of casting inputs by hand"
)

_CONV_SCALAR = _entry(
    "conv_weight_dtype", r"expected scalar type (\w+) but found (\w+)",
    _CONV_WEIGHT_CAUSE, _CONV_WEIGHT_CULPRIT, _CONV_WEIGHT_FIX,
)
"""torch 2.13's CPU convolution reports an input/weight mismatch as a bare scalar-type error."""

_ENTRIES: tuple[_Entry, ...] = (
    _entry(
        "matmul_dtype", r"mat1 and mat2 must have the same dtype, but got (\w+) and (\w+)",
        "a matrix multiply received a {a} and a {b} operand; torch never mixes dtypes in one matmul",
        "a parameter, buffer or tensor created in forward that stayed {b} while the activations are {a} "
        "(or the other way round), e.g. a weight not converted by `.to()` or a cache built with the default dtype",
        f"{_POLICY_FIX}; or cast the odd operand with `.to(x.dtype)`; or keep the module in fp32 (`keep_fp32=[name]`)",
    ),
    _entry(
        "matmul_dtype", r"expected m1 and m2 to have the same dtype, but got:? (\S+) != (\S+)",
        "a linear layer or matmul received a {a} input and a {b} weight (or second operand)",
        "a layer whose weight is {b} fed by {a} activations: a module converted on its own, a tensor "
        "attribute that `.to()`/`cw.apply` does not see, or inputs cast by hand",
        f"{_POLICY_FIX}; or cast the odd operand with `.to(x.dtype)`; or keep the module in fp32 (`keep_fp32=[name]`)",
    ),
    _entry(
        "norm_param_dtype", r"mixed dtype \(CPU\): expect parameter to have scalar type of (\w+)",
        "a CPU normalisation kernel (LayerNorm/GroupNorm) got {a} input but parameters of another dtype; "
        "with {a} input it accepts only {a} or matching parameters",
        "a LayerNorm/GroupNorm converted to 16-bit while its input is {a} (often a norm converted by "
        "`.half()`/`.bfloat16()` with the rest of the model still fp32)",
        "keep norms in fp32 and let them compute in fp32 whatever arrives: castwise policies do this by "
        "default (`keep_fp32` = norms), like OpenCLIP's LayerNormFp32",
    ),
    _entry(
        "conv_bias_dtype", r"Input type \((.+?)\) and bias type \((.+?)\) should be the same",
        "a convolution got a {a} input but a {b} bias",
        "a conv layer whose weight/bias stayed {b} while its input is {a} (converted input, unconverted layer)",
        f"{_POLICY_FIX}; or convert the layer (`conv.to(dtype)`), or use autocast instead of casting inputs by hand",
    ),
    _entry(
        "conv_weight_dtype", r"Input type \((.+?)\) and weight type \((.+?)\) should be the same",
        _CONV_WEIGHT_CAUSE, _CONV_WEIGHT_CULPRIT, _CONV_WEIGHT_FIX,
    ),
    _entry(
        "loss_dtype", r"Found dtype (\w+) but expected (\w+)",
        "a loss (or another op) computed its gradient with a {a} tensor where the output is {b}: "
        "prediction and target have different dtypes",
        "a loss such as huber_loss/binary_cross_entropy between a {b} prediction and a {a} target",
        "compute the loss in fp32: `loss_fn(pred.float(), target.float())` (castwise policies hand outputs "
        "back in fp32 by default, `output_dtype`)",
    ),
    _entry(
        "unscale_fp16", r"Attempting to unscale FP16 gradients",
        "GradScaler refuses to unscale gradients stored in fp16: the optimizer's parameters are fp16, so "
        "unscaled gradients would overflow or underflow",
        "a model converted with `.half()` (fp16 parameters) trained with torch.amp.GradScaler",
        "keep fp32 master weights: use '16-mixed' (fp32 parameters, fp16 autocast, loss scaling), or "
        "'bf16-true'/'bf16-mixed' which need no loss scaling",
    ),
    _entry(
        "half_overflow", r"value cannot be converted to type (.+?) without overflow",
        "a Python number outside {a}'s range was written into a {a} tensor (fp16 max is 65504)",
        "a large constant such as `masked_fill(mask, -1e9)` or `fill_(1e6)` on an fp16 tensor, "
        "typically an attention mask value",
        "use `torch.finfo(x.dtype).min`/`.max` instead of a literal, or use bf16 (same range as fp32)",
    ),
    _entry(
        "sdpa_dtype", r"Expected query, key, and value to have the same dtype",
        "scaled_dot_product_attention got query, key and value in different dtypes",
        "a key/value cache or projection kept in another dtype than the query",
        f"{_POLICY_FIX}; or cast key and value with `.to(query.dtype)`",
    ),
    _entry(
        "rnn_dtype", r"RNN input dtype \((\S+)\) does not match weight dtype \((\S+)\)",
        "an RNN/LSTM/GRU got a {a} input with {b} weights",
        "a recurrent layer whose weights stayed {b}",
        f"{_POLICY_FIX}; or keep the recurrent layer in fp32 (`keep_fp32=['*LSTM']`)",
    ),
    _entry(
        "index_dtype", r"(?:Index put requires the source and destination dtypes match|"
        r"must have the same scalar type|Expected self\.dtype to be equal to src\.dtype)",
        "an indexed write (index_put_/index_add_/scatter_) mixed a destination and a source of different dtypes",
        "a buffer or output tensor allocated with the default dtype (fp32) filled with 16-bit values",
        "allocate the destination with the source's dtype (`torch.zeros(..., dtype=src.dtype)`) or cast the source",
    ),
    _entry(
        "batched_matmul_dtype", r"Input dtypes must be the same, got: input (\S+), batch1: (\S+), batch2: (\S+)",
        "a batched matmul (baddbmm/addbmm) got operands of different dtypes ({a}, {b}, {c})",
        "an attention bias or accumulator kept in fp32 while the matmul operands are 16-bit",
        f"{_POLICY_FIX}; or cast the odd operand with `.to(x.dtype)`",
    ),
    _entry(
        "scalar_type", r"expected scalar type (\w+) but found (\w+)",
        "an op expected {a} tensors but one of its operands is {b}",
        "an operand that was not converted with the rest: a weight, a buffer, a tensor created in forward "
        "with the default dtype, or an input cast by hand",
        f"{_POLICY_FIX}; or cast the odd operand with `.to(x.dtype)`; or keep the module in fp32 (`keep_fp32=[name]`)",
    ),
)


def explain(error: BaseException | str) -> Explanation | None:
    """The cause, likely culprit and fix of a dtype error raised by torch; None if it is not one."""
    message = _first_line(error)
    for entry in _traceback_entries(error):
        match = entry.pattern.search(message)
        if match:
            return _render(entry, message, match)
    for entry in _ENTRIES:
        match = entry.pattern.search(message)
        if match:
            return _render(entry, message, match)
    return None


def _first_line(error: BaseException | str) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else (type(error).__name__ if isinstance(error, BaseException) else "")


def _render(entry: _Entry, message: str, match: re.Match[str]) -> Explanation:
    names = dict(zip("abc", (_short_dtype(g) for g in match.groups())))
    fields = (entry.cause, entry.culprit, entry.fix)
    cause, culprit, fix = (text.format(**names) for text in fields)
    return Explanation(entry.kind, message, cause, culprit, fix)


def _short_dtype(word: str) -> str:
    lowered = word.lower()
    for needle, short in _DTYPE_WORDS:
        if needle in lowered:
            return short
    return word


def _traceback_entries(error: BaseException | str) -> list[_Entry]:
    """Entries that a generic message means when the traceback shows where it was raised."""
    if not isinstance(error, BaseException):
        return []
    frames = traceback.extract_tb(error.__traceback__)
    entries = []
    if any(
        frame.filename.replace("\\", "/").endswith(_FASTPATH_FILES)
        and any(kernel in (frame.line or "") for kernel in _FASTPATH_KERNELS)
        for frame in frames
    ):
        entries.append(_FASTPATH)
    if frames and _CONV_CALL.search(frames[-1].line or ""):
        entries.append(_CONV_SCALAR)
    return entries
