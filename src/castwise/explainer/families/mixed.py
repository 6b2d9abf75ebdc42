"""Two floating dtypes met in one op: matmuls, convolutions, norms, attention, RNNs, writes, lerp.

torch never mixes floating dtypes inside one kernel, so every such error is two tensors that were
converted differently; which two, and so the fix, depends on the op and the dtypes (see
``advice.mixed_story``). A message that names integer dtypes is handed to the integer family. The
generic ``expected scalar type A but found B`` is read with the frames: a convolution, a norm, a
recurrent cell, a custom extension or torch's fused transformer fast path (CPU autocast's blind
spot) each mean something else; without frames the answer says less. Older torch worded it
``expected backend CUDA and dtype Float but got backend CUDA and dtype Half``, which names the
devices too (two devices there are a device problem). Tensors on the CPU in fp16 are told to use
fp32 there: casting to the other operand's fp16 would meet a kernel older torch never had.
"""

from __future__ import annotations

import re

from castwise.explainer.advice import (
    CPU_HALF_IN_NEWER_TORCH,
    LIBRARY_UPDATE,
    ONE_POLICY,
    a,
    dtype_list,
    keep_rule,
    mixed_story,
)
from castwise.explainer.clues import (
    ATTENTION,
    BMM,
    CDIST,
    CONV,
    EXTENSION,
    FASTPATH,
    GRID_SAMPLE,
    LOSS,
    LOWRANK,
    MATMUL,
    NORM,
    PRELU,
    RNN,
    VISION_NMS,
    WEIGHT_NORM,
    WHERE,
    aten_op_failed,
    first_shown,
    held_dtypes,
    innermost,
    low_precision_said,
    operand_dtype,
    paste_search,
    shows,
    torch_call,
    traced_call,
    weight_dtype,
)
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families import devices, integers, kernels, quantization
from castwise.explainer.rules import Rule, dtypes, explained, message_only, rule, word_before
from castwise.explainer.spelling import (
    device_of,
    dtype_of,
    full_name,
    is_floating,
    is_fp8,
    is_low_precision,
    is_quantized,
    short_dtype,
    short_dtypes,
)


def mixed_float(
    kind: Kind, failure: Failure, names: tuple[str, ...], op: str, cause: str = "", *,
    culprit: str = "", fix: str = "", confidence: Confidence = Confidence.HIGH,
) -> Explanation:
    """Two floating dtypes in ``op``; integers go to their family, the MHA fast path to its own cause."""
    if integers.integer_names(names):
        return integers.integer_operand(failure, names, op)
    if shows(failure, FASTPATH, everywhere=True):
        return _fastpath(failure, names)
    story_culprit, story_fix = mixed_story(names)
    unsure = confidence is Confidence.LOW
    return explained(
        kind, failure,
        cause or f"{op} got {dtype_list(names) if names else 'tensors of two'} dtypes; torch never mixes floating "
        "dtypes in one op",
        culprit or story_culprit, f"{fix or story_fix}; {LIBRARY_UPDATE}" if unsure else fix or story_fix,
        op=op, names=names, confidence=confidence,
    )


def _fastpath(failure: Failure, names: tuple[str, ...]) -> Explanation:
    pair = dtype_list(names) if names else "16-bit and f32"
    return explained(
        Kind.TRANSFORMER_FASTPATH, failure,
        "nn.TransformerEncoder/MultiheadAttention took torch's fused inference fast path (eval + no_grad) under "
        "autocast, which the fast-path guard does not see (CPU autocast today, any autocast in older torch), so "
        f"the fused kernel got activations and weights in two dtypes ({pair})",
        "an nn.TransformerEncoderLayer (or MultiheadAttention) in eval mode under autocast (`torch.autocast('cpu')` "
        "on current torch), usually with a padding mask (without one it silently returns 16-bit outputs)",
        "use `cw.apply(model, policy)`, which turns the fast path off during the forward; or wrap the call in "
        "`torch.backends.mha.set_fastpath_enabled(False)` (a global flag: restore it afterwards)",
        op="torch._transformer_encoder_layer_fwd", names=names,
    )


_MATMUL_OPS = (
    ("sampled_addmm", "a sparse sampled matrix multiply (torch.sparse.sampled_addmm)"),
    ("self and mat2", "a matrix multiply (addmm/mm)"),
    ("mat1 and mat2", "a matrix multiply (addmm, as nn.Linear runs it)"),
    ("m1 and m2", "a matrix multiply (mm/matmul/linear)"),
    ("addmv", "a matrix-vector product (mv/addmv)"),
    ("dot", "a dot product"),
    ("both inputs", "tensordot"),
)


def _matmul(found: re.Match[str], failure: Failure) -> Explanation:
    message = found.group(0)
    said = re.sub(r"\b(mat|m) (?=\d)", r"\1", message.lower())
    op = next(name for words, name in _MATMUL_OPS if words in said)
    names = dtypes(found, "a", "b", "c", "d")
    if quantization.QUANTIZED_DTYPE.search(message):
        return quantization.quantized_activation(failure, Kind.MATMUL, names, op)
    held = () if names else tuple(sorted(held_dtypes(failure), key=is_floating))
    if len(held) == 2 and not is_floating(held[0]) and is_floating(held[1]):
        return integers.integer_operand(failure, held, op)
    if shows(failure, LOWRANK, everywhere=True):
        return mixed_float(
            Kind.MATMUL, failure, names, "torch.svd_lowrank/pca_lowrank",
            f"torch.svd_lowrank (or pca_lowrank) got {a(names[0]) if names else 'a 16-bit'} matrix and multiplied it "
            "by a random projection it made in the default float32: it does not run in 16-bit",
            culprit="a low-rank factorisation of a 16-bit weight (a LoRA/PiSSA initialisation, a compression step) "
            "called on the weight as it is",
            fix="run it in float32 and cast the factors back: `U, S, V = torch.svd_lowrank(w.float(), q=r)`, then "
            "`.to(w.dtype)`",
        )
    if first_shown(failure, RNN, ATTENTION) is RNN:
        return recurrent(failure, names)
    if first_shown(failure, BMM, MATMUL) is BMM:
        return mixed_float(Kind.BATCHED_MATMUL, failure, names, "a batched matrix multiply (bmm)",
                           f"bmm got {dtype_list(names)} operands; torch never mixes floating dtypes in one matmul"
                           if names else "")
    if message.startswith("self and mat2") and len(names) == 2 and not any(is_fp8(name) for name in names):
        return mixed_float(
            Kind.MATMUL, failure, names, op,
            f"a matmul got {names[0]} for `self` (addmm's bias, or mm's first matrix) and {names[1]} for `mat2`; "
            "torch never mixes floating dtypes in one matmul",
            culprit="a Linear whose bias has another dtype than its weight (converted separately, or loaded from a "
            "checkpoint that stored them differently), or activations meeting a weight of another dtype; "
            + mixed_story(names)[0],
        )
    if message.startswith("self and mat2") and len(names) == 2 and is_fp8(names[1]) and not is_fp8(names[0]):
        return _fp8_mat2(failure, names, op)
    return mixed_float(
        Kind.MATMUL, failure, names, op,
        f"{op} got {dtype_list(names)} operands; torch never mixes floating dtypes in one matmul" if names else "",
        confidence=Confidence.HIGH if names else Confidence.LOW,
    )


def _fp8_mat2(failure: Failure, names: tuple[str, ...], op: str) -> Explanation:
    """addmm's ``self and mat2`` check with an fp8 ``mat2``: a bias of another dtype beside fp8 matrices, or an
    activation meeting an fp8 weight used directly."""
    story_culprit, story_fix = mixed_story(names)
    return mixed_float(
        Kind.MATMUL, failure, names, op,
        f"a matmul got {names[0]} for `self` (addmm's bias, or mm's first matrix) and {names[1]} for `mat2`; torch "
        "never mixes floating dtypes in one matmul",
        culprit=f"fp8 matrices (quantized on purpose) with a {names[0]} bias, which addmm reads as `self`; or "
        f"{story_culprit}",
        fix=f"if both matrices are fp8 on purpose, keep the bias out of the fp8 matmul and add it to the dequantized "
        f"result (`F.linear(x8, w8).to(torch.bfloat16) * scale + bias`), or pass it to `torch._scaled_mm(..., "
        f"bias=bias, out_dtype=torch.bfloat16)`; otherwise {story_fix}",
    )


def _matmul_tail(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Only the tail of torch's matmul check (``float != c10::BFloat16``, from ``expected mat1 and mat2 to have the
    same dtype, but got: ...``) in the paste: two floating dtypes of a matmul, said with low confidence."""
    names = tuple(filter(None, [short_dtype(word_before(found)), *dtypes(found, "b")]))
    if len(set(names)) != 2 or not all(map(is_floating, names)):
        return None
    return mixed_float(Kind.MATMUL, failure, names, "a matrix multiply",
                       f"a matmul got {dtype_list(names)} operands (torch prints its two operands' dtypes as "
                       "`A != B`); only that tail of the message is in the paste", confidence=Confidence.LOW)


def _batched(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a", "b", "c")
    if len(names) == 3 and names[1] == names[2] != names[0] and shows(failure, ATTENTION, everywhere=True):
        return _attention_bias(failure, names)
    return mixed_float(
        Kind.BATCHED_MATMUL, failure, names, "baddbmm",
        f"a batched matmul (baddbmm/addbmm) got operands of {dtype_list(names)}",
        culprit="an attention bias or accumulator kept in one dtype while the matmul operands are in another",
    )


def _attention_bias(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """nn.MultiheadAttention adding its float mask to the scores with baddbmm: the mask (``names[0]``) is not in the
    scores' dtype (``names[1]``)."""
    return mixed_float(
        Kind.ATTN_MASK, failure, names, "nn.MultiheadAttention",
        f"nn.MultiheadAttention added {a(names[0])} mask (`attn_mask`, or a float `key_padding_mask`) to "
        f"{names[1]} attention scores (with baddbmm); a float mask must have the query's dtype",
        culprit="a mask built in another dtype (`torch.full(..., float('-inf'))`, `generate_square_subsequent_mask()`, "
        "a numpy array) than the model runs in (a 16-bit model, or autocast)",
        fix="build the mask in the query's dtype (`mask.to(x.dtype)`), or pass a bool mask (True = not attended)",
    )


def _conv(found: re.Match[str], failure: Failure, part: str, kind: Kind, note: str = "") -> Explanation:
    """Two dtypes in a convolution, ``part`` (weight or bias) the input's other operand; ``note`` ends the cause."""
    names = dtypes(found, "a", "b")
    places = (device_of(found["a"]), device_of(found["b"]))
    if places[0] and places[1] and places[0] != places[1]:
        if len(set(names)) == 2 and all(map(is_floating, names)):
            return _conv_moved_half(failure, names, places, part, kind)
        return devices.mismatch(failure, places, names, op="convolution")
    on_cpu_in_f16 = places == ("cpu", "cpu") and "f16" in names
    if part == "weight" and len(names) == 2 and is_floating(names[0]) and not is_floating(names[1]):
        return integers.quantized_weight_used(failure, names, "convolution")
    if len(names) == 2 and paste_search(failure, _VAE_CALL):
        return _vae(failure, names, part, kind)
    return mixed_float(
        kind, failure, names, "convolution",
        f"a convolution got {a(names[0])} input but {a(names[1])} {part}{note}" if len(names) == 2 else "",
        fix="both are CPU tensors, and older torch has no fp16 convolution on the CPU: use fp32 there (`model.float()` "
        f"and `x.float()`), or run on the GPU; {CPU_HALF_IN_NEWER_TORCH}" if on_cpu_in_f16 else "",
    )


def _conv_moved_half(failure: Failure, names: tuple[str, ...], places: tuple[str | None, ...], part: str,
                     kind: Kind) -> Explanation:
    """A convolution whose input and ``part`` differ in both device and floating dtype (``Input type
    (torch.FloatTensor) and weight type (torch.cuda.HalfTensor)``): one side was moved and converted, the other
    neither. Said with low confidence: two problems, and the kind names one."""
    behind = (f"inputs made on the CPU in {names[0]} (an image loader, numpy, `torch.randn`) fed to a model moved to "
              f"{places[1]} and converted to {names[1]} (`.to(device).half()`, `torch_dtype=`)") if places[0] == "cpu" \
        else (f"a module (a VAE, an offloaded or late-loaded part) left on the CPU in {names[1]} while its inputs were "
              f"moved to {places[0]} in {names[0]}")
    return mixed_float(
        kind, failure, names, "convolution",
        f"a convolution got {a(names[0])} input on {places[0]} but {a(names[1])} {part} on {places[1]}: both the "
        "device and the dtype differ",
        culprit=behind,
        fix="move and convert the one left behind in one call: the input (`x.to(device=layer.weight.device, "
        "dtype=layer.weight.dtype)`) or the module (`module.to(device, dtype)`)",
        confidence=Confidence.LOW,
    )


def _vae(failure: Failure, names: tuple[str, ...], part: str, kind: Kind) -> Explanation:
    """A convolution of a diffusion pipeline's VAE, called in the paste, given latents of another dtype than its own."""
    return mixed_float(
        kind, failure, names, "convolution",
        f"the VAE's convolution got {a(names[0])} input but {a(names[1])} {part}: the latents reach the VAE in another "
        "dtype than the VAE was loaded in",
        culprit="a VAE loaded in its own precision (an fp16 or fp32 VAE setting, an upcast VAE) decoding or encoding "
        "latents that the UNet or transformer left in another dtype",
        fix="cast the latents to the VAE's dtype right before the call (`latents.to(vae.dtype)`), or load the VAE in "
        "the same dtype as the rest of the pipeline",
    )


_VAE_CALL = re.compile(r"\bvae\.(?:decode|encode)\(", re.IGNORECASE)


def _conv_weight(found: re.Match[str], failure: Failure) -> Explanation:
    return _conv(found, failure, "weight", Kind.CONV_WEIGHT)


def _conv_weight_cut(found: re.Match[str], failure: Failure) -> Explanation:
    """``Input type (torch.cuda.FloatTensor) and weight type (torch`` cut before the weight's type: a convolution's
    input and weight differ, the weight's dtype unknown."""
    names = dtypes(found, "a")
    return mixed_float(Kind.CONV_WEIGHT, failure, names, "convolution",
                       f"a convolution got {names[0] if names else 'its'} input and a weight of another type (the "
                       "message is cut before it says which)", confidence=Confidence.LOW)


def _conv_integer_input_cut(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``Input type (torch.cuda.ByteTensor) and weight`` cut at the weight: an integer input says enough on its own (a
    convolution takes floats); a floating one does not, and a fuller copy of the message may be elsewhere."""
    names = dtypes(found, "a")
    return _conv_weight_cut(found, failure) if names and not is_floating(names[0]) else None


def _conv_untyped(found: re.Match[str], failure: Failure) -> Explanation:
    """``Input type and bias type should be the same`` retyped without its dtypes: a convolution's input and weight (or
    bias) differ, in the 16-bit dtype the paste names nearest, if any."""
    part = _CHINESE_PART.get(found["part"], found["part"].lower())
    kind = Kind.CONV_WEIGHT if part == "weight" else Kind.CONV_BIAS
    return mixed_float(kind, failure, low_precision_said(failure)[:1], "convolution",
                       f"a convolution got its input and its {part} in two dtypes (the paste does not say which)",
                       confidence=Confidence.LOW)


_CHINESE_PART = {"权重": "weight", "偏置": "bias"}
"""The parts of a convolution as a Chinese retelling of its error names them (``输入类型和权重类型不匹配``)."""


_OLD_STYLE_TYPE = re.compile(r"Tensor|Type\b")
"""Old torch's spelling of a conv operand's type (``torch.cuda.HalfTensor``, ``CPUBFloat16Type``): that check came after
the weight's, so its bias message meant the weight matched the input."""


def _conv_bias(found: re.Match[str], failure: Failure) -> Explanation:
    """A bias of another dtype than the input. Current torch checks the bias before the weight (its message spells
    dtypes as ``float``, ``c10::Half``), so the weight may differ too: a live exception whose frame shows a weight of
    another dtype than the input is the whole layer; one that shows none, and a paste, say so with low confidence."""
    names = dtypes(found, "a", "b")
    weight = weight_dtype(failure)
    if len(names) == 2 and names[0] != names[1] and weight is not None and weight != names[0]:
        parts = f"its weight and bias are {names[1]}" if weight == names[1] else (
            f"its bias is {names[1]} and its weight {weight} (as the frame held it, before any autocast cast)")
        return mixed_float(Kind.CONV_WEIGHT, failure, names, "convolution",
                           f"a convolution got {a(names[0])} input but {parts}: neither matches the input")
    if weight is not None or len(names) != 2 or _OLD_STYLE_TYPE.search(found["a"]):
        return _conv(found, failure, "bias", Kind.CONV_BIAS)
    return _conv(found, failure, "bias", Kind.CONV_BIAS,
                 note=f"; torch checks the bias before the weight, so the weight may be {names[1]} too").less_sure(
        f"the message cannot tell whether the weight is {names[1]} as well: then the whole layer is in another dtype "
        "than its input, and casting only the bias would meet the weight's error next")


_NOT_EQUAL = re.compile(r"\btype (?P<a>[\w.]+) does not equal (?P<b>[\w.]+)")


def _same_type(found: re.Match[str], failure: Failure) -> Explanation | None:
    """The old ``Expected tensor for argument #1 'x' to have the same type as ... 'y'`` (cudnn checks). A message cut
    before its types takes them from where the paste says them (an issue's title); the op from its frames, or from the
    arguments: ``grad_output`` against ``weight`` is a convolution's backward."""
    held = found if found["a"] else next(filter(None, map(_NOT_EQUAL.search, failure.paste)), None)
    if held is None:
        return None
    names = dtypes(held, "a", "b")
    places = devices.apart(held["a"], held["b"])
    backward = (found["x"], found["y"]) == ("grad_output", "weight")
    op = found["op"] or ("a convolution's backward" if backward else "an op")
    if places:
        return devices.mismatch(failure, places, names, op=op)
    if "norm" in op and found["y"] in ("weight", "bias"):
        return norm_param(failure, names, op)
    kind = (Kind.CONV_WEIGHT if "conv" in op or shows(failure, CONV)
            else Kind.OP_DTYPE if found["op"] else Kind.SCALAR_TYPE)
    cause = f"{op} got its '{found['x']}' as {names[0]} but its '{found['y']}' as {names[1]}" if len(names) == 2 else ""
    return mixed_float(kind, failure, names, op, cause)


def norm_param(failure: Failure, names: tuple[str, ...], op: str | None = None,
               confidence: Confidence = Confidence.HIGH) -> Explanation:
    """A normalization layer (``op``, else the one the frames show) whose parameters and input have different
    dtypes (``confidence`` low when only the paste's words name the layer)."""
    op = op or _norm_name(failure)
    cause = (
        f"a normalization layer ({op}) got {a(names[0])} input but weight/bias of another dtype; torch's CPU norm "
        "kernels take 16-bit parameters only with a matching input" if len(names) == 1
        else f"a normalization layer ({op}) got {dtype_list(names)} tensors (input and weight)" if names
        else f"a normalization layer ({op}) got its input and its weight/bias in different dtypes"
    )
    if "f64" in names:
        return mixed_float(Kind.NORM_PARAM, failure, names, op, cause, confidence=confidence)
    return mixed_float(
        Kind.NORM_PARAM, failure, names, op, cause, confidence=confidence,
        culprit="a LayerNorm/GroupNorm/RMSNorm converted to 16-bit (`.half()`, `.to(torch.bfloat16)`) while its "
        "input is f32, or a norm left in f32 fed 16-bit activations (fused norms such as apex's check this too)",
        fix="keep norms in fp32 and let them compute in fp32 whatever dtype arrives: castwise policies do this by "
        "default (`cw.apply(model, 'bf16-true')` keeps `*LayerNorm`, `*RMSNorm`, `*GroupNorm`, `*BatchNorm*` in "
        "fp32), like OpenCLIP's LayerNormFp32; or make the norm and its input one dtype (`x.to(norm.weight.dtype)`)",
    )


_NORM_NAMES = tuple((re.compile(pattern), name) for pattern, name in (
    (r"\brms_?norm|rms_forward", "rms_norm"), (r"\bgroup_norm", "group_norm"),
    (r"sync_?batch_?norm|[/\\]modules[/\\]_functions\.py", "SyncBatchNorm"), (r"\bbatch_norm", "batch_norm"),
    (r"\binstance_norm", "instance_norm"), (r"\blayer_?norm", "layer_norm"),
))


def _norm_name(failure: Failure) -> str:
    text = " ".join(f"{frame.function} {frame.code} {frame.file}" for frame in innermost(failure)).lower()
    return next((name for pattern, name in _NORM_NAMES if pattern.search(text)), "layer_norm/group_norm")


def _mixed_norm(found: re.Match[str], failure: Failure) -> Explanation:
    """The CPU norms' ``mixed dtype (CPU): expect input to have scalar type of A``; said with low confidence when the
    prefix that names the norm check is not in the paste."""
    explanation = norm_param(failure, dtypes(found, "a"))
    return explanation if found.group(0).startswith("mixed") else explanation.less_sure(
        "the message lacks its `mixed dtype (CPU)` prefix, which says the check is a normalization layer's")


def _norm_inputs(found: re.Match[str], failure: Failure) -> Explanation:
    """The CPU norms' ``mixed dtype (CPU): all inputs must share same datatype``: the input, weight and bias differ
    (a live exception's frame shows their dtypes)."""
    del found
    shown = tuple(operand_dtype(failure, name) for name in ("input", "weight"))
    return norm_param(failure, tuple(name for name in shown if name) if shown[0] != shown[1] else ())


def _fused_norm(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A fused layer norm's (flash-attn's, apex's) ``Unsupported hidden_size or types: 5120BFloat16FloatFloat...``:
    its weight, input, residual, output and compute types run together; a weight of another dtype than the input
    is the refusal, else it is the hidden size."""
    weight, given, size = dtypes(found, "weight"), dtypes(found, "input"), found["size"]
    op = f"a fused layer norm (hidden size {size})"
    if weight != given:
        return norm_param(failure, given + weight, op=op)
    return explained(
        Kind.NO_KERNEL, failure,
        f"the fused layer norm has no kernel for hidden size {size} with {a(weight[0])} weight and input",
        "a fused norm (flash-attn's or apex's) compiled for a fixed list of hidden sizes",
        "run this layer with torch's own `nn.LayerNorm`, or use a build of the fused norm that lists this hidden size",
        op=op, names=weight, confidence=Confidence.LOW,
    )


def _sdpa(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "q", "k", "v")
    start = found.group(0)
    op = ("xformers' memory_efficient_attention" if start.startswith("Query/")
          else "an attention kernel (its own check of q, k and v)" if start[:2] in ("q:", "r:")
          else "scaled_dot_product_attention")
    cause = (
        f"{op} got query {names[0]}, key {names[1]}, value {names[2]}; all three must have one dtype"
        if len(names) == 3 else f"{op} got query, key and value of different dtypes"
    )
    names = tuple(dict.fromkeys(names))
    story_culprit, _ = mixed_story(names)
    return mixed_float(
        Kind.SDPA, failure, names, op, cause,
        culprit="a key/value (a cache, or a projection in another dtype) that differs from the query; "
        + story_culprit,
        fix=f"cast key and value to the query's dtype (`k.to(q.dtype)`, `v.to(q.dtype)`), or {ONE_POLICY}",
    )


def _attn_mask(found: re.Match[str], failure: Failure) -> Explanation:
    mask, query = dtypes(found, "m"), dtypes(found, "q")
    if integers.integer_names(mask):
        return integers.attention_mask(failure, mask, query)
    if "f64" in query:
        return mixed_float(Kind.ATTN_MASK, failure, mask + query, "scaled_dot_product_attention",
                           "scaled_dot_product_attention got a float64 query, so no float32 mask matches it")
    pair = f"{a(mask[0])} mask for {a(query[0])} query" if mask and query else "a mask of another dtype than the query"
    return mixed_float(
        Kind.ATTN_MASK, failure, mask + query, "scaled_dot_product_attention",
        f"scaled_dot_product_attention got {pair}; a float mask (an additive bias) must have the query's dtype",
        culprit="a mask built with the default dtype (`torch.zeros(...)`, `torch.full(..., float('-inf'))`) while "
        "the query's dtype changed: autocast (CPU autocast makes queries bf16) or a 16-bit model",
        fix="build the mask in the query's dtype (`attn_mask=mask.to(q.dtype)`) or pass a bool mask "
        "(True = attend)",
    )


def _sdpa_tail(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Only the tail of an attention dtype message (``query.dtype: A key.dtype: B and value.dtype: C``), or a kernel's
    own assert naming them (flash-linear-attention's ``q: A, k: B, v: C``); declined when the three name one dtype."""
    return _sdpa(found, failure) if len(set(dtypes(found, "q", "k", "v"))) > 1 else None


def _kernel_pair(found: re.Match[str], failure: Failure) -> Explanation:
    """A compiled kernel's check that two of its tensors share a dtype (flash-attn's rotary ``Expected
    x1.dtype() == cos.dtype() to be true``, ipex-llm's ``Assertion failed: inv_freq.scalar_type() ==
    query.scalar_type()``), which the message does not name (a 16-bit dtype the paste says is)."""
    x, y = found["x"] or found["x2"], found["y"] or found["y2"]
    return mixed_float(
        Kind.OP_DTYPE, failure, low_precision_said(failure)[:1], f"a kernel's `{x}`/`{y}` check",
        f"a compiled kernel requires `{x}` and `{y}` to have one dtype, and they do not (the message does not say "
        "which dtypes)",
        culprit="one of them made or kept in another dtype: a cache (rotary `cos`/`sin` tables, buffers) built in "
        "float32 while the activations are 16-bit, or the reverse",
        fix=f"give both one dtype before the call (`{y}.to({x}.dtype)`), e.g. build the cache in the model's dtype, or "
        "run the whole model in the one dtype the kernel takes (`model.half()`, `model.to(torch.bfloat16)`)",
    )


def _rnn(found: re.Match[str], failure: Failure) -> Explanation:
    return recurrent(failure, dtypes(found, "a", "b"), hidden="hidden" in found.group(0).lower())


def recurrent(failure: Failure, names: tuple[str, ...], hidden: bool = False) -> Explanation:
    """A recurrent layer whose input and weights (or hidden state) have different dtypes."""
    return mixed_float(
        Kind.RNN, failure, names, "recurrent layer (LSTM/GRU)",
        f"a recurrent layer got {names[0]} and {names[1]} tensors (its input and its "
        f"{'hidden state' if hidden else 'weights'})" if len(names) == 2 else "",
        culprit="an initial hidden state (h0/c0) created with another dtype than the input" if hidden else
        "an LSTM/GRU whose weights stayed in one dtype while its input arrives in another (older torch's autocast "
        "did not cover LSTMCell/GRUCell)",
        fix="create h0/c0 with the input's dtype (`torch.zeros(..., dtype=x.dtype)`)" if hidden else
        f"cast the input to the layer's dtype (`x.to(rnn.weight_ih_l0.dtype)`), or {keep_rule('the recurrent layer')}",
    )


def _onednn_rnn(found: re.Match[str], failure: Failure) -> Explanation:
    """oneDNN's ``could not create a primitive descriptor for the LSTM forward propagation primitive``: its CPU RNN
    kernel takes one dtype for input, weights and initial states."""
    return explained(
        Kind.RNN, failure,
        f"oneDNN (torch's CPU kernels) could not build its {found['layer']} kernel for these tensors: it takes one "
        "dtype for the input, the weights and the initial states h0/c0",
        "an initial hidden state made with the default dtype (`torch.zeros(...)` is fp32) for a bf16 or fp16 "
        "recurrent layer, or a 16-bit input for an fp32 layer",
        "create h0/c0 with the input's dtype (`torch.zeros(..., dtype=x.dtype)`) and give input and layer one dtype "
        f"(`x.to(rnn.weight_ih_l0.dtype)`), or {keep_rule('the recurrent layer')}",
        op=f"{found['layer']} (oneDNN)", device="cpu", confidence=Confidence.LOW,
    )


def _onednn_linear(found: re.Match[str], failure: Failure) -> Explanation:
    """oneDNN's ``could not create a primitive descriptor for the inner product forward propagation primitive``: its
    CPU linear kernel got an input and weights of two dtypes, most often bf16 weights and an fp32 input; in a paste
    that runs in fp16, a CPU without an fp16 linear kernel."""
    del found
    said = low_precision_said(failure)[:1]
    if said == ("f16",):
        return kernels.no_kernel(failure, "a linear layer (oneDNN inner product)", said, "cpu", Confidence.LOW)
    return mixed_float(
        Kind.MATMUL, failure, said, "a linear layer (oneDNN inner product)",
        "oneDNN (torch's CPU kernels) could not build its linear (inner product) kernel for these tensors: the input "
        "and the weights differ in dtype",
        culprit="weights converted to bf16 (`ipex.optimize(model, dtype=torch.bfloat16)`, `model.to(torch.bfloat16)`) "
        "fed an fp32 input outside CPU autocast (`with torch.cpu.amp.autocast() and torch.no_grad():` enters only "
        "`no_grad`)",
        fix="run the model under `with torch.autocast('cpu', dtype=torch.bfloat16), torch.no_grad():` (both in one "
        "`with`, separated by a comma), or cast the input to the weights' dtype",
        confidence=Confidence.LOW,
    )


def _indexed_write(found: re.Match[str], failure: Failure) -> Explanation:
    return indexed_write(failure, dtypes(found, "dst", "src"), found.groupdict().get("op") or "an indexed write")


def indexed_write(failure: Failure, names: tuple[str, ...], op: str) -> Explanation:
    """An indexed write (``op``) of values of another dtype (``names``: destination, source) than its destination.
    Integers on both sides are cast to one integer dtype; an integer on one side, the values to the destination's."""
    if integers.all_integer(names):
        return integers.integer_pair(Kind.INDEXED_WRITE, failure, names, op)
    where = f"put {names[1]} values into {a(names[0])} tensor" if len(names) == 2 else "mixed two dtypes"
    if integers.integer_names(names):
        return explained(
            Kind.INDEXED_WRITE, failure, f"{op} {where}; the values written must have the destination's dtype",
            "floating values written into an integer tensor (labels, ids, counts), or integers into a floating one",
            "cast the values to the destination's dtype where they are written (`src.to(dst.dtype)`); if an integer "
            "destination should hold fractions, allocate it floating instead. Not a precision problem",
            op=op, names=names,
        )
    if names[1:] == ("f32",) and is_low_precision(names[0]) and paste_search(failure, _TEXTUAL_INVERSION):
        return mixed_float(
            Kind.INDEXED_WRITE, failure, names, op,
            f"{op} {where}: a textual-inversion embedding (saved in fp32) was written into a text encoder's token "
            "embeddings held in 16-bit",
            culprit="a textual-inversion embedding file loaded as it was saved (fp32) into a model run in fp16",
            fix="convert the embedding to the model's dtype when loading it (`vec.to(embeddings.weight.dtype)`; update "
            "the app if it does not), or run the model in fp32 (`--precision full --no-half` in webui apps)",
        )
    return mixed_float(
        Kind.INDEXED_WRITE, failure, names, op,
        f"{op} {where}; the values written must have the destination's dtype",
        culprit="a destination allocated with the default dtype (`torch.zeros(...)` is f32) filled with 16-bit "
        "values computed under autocast or by a 16-bit model (or the reverse)",
        fix="allocate the destination in the values' dtype (`torch.zeros(..., dtype=src.dtype)`) or cast the "
        "values (`src.to(dst.dtype)`)",
    )


_TEXTUAL_INVERSION = re.compile(r"textual[ _-]?inversion|\bembeddings? (?:file|checkpoint)s?\b|\.pt embedding",
                                re.IGNORECASE)
"""A textual-inversion embedding named in the paste (Stable Diffusion apps load them into the text encoder)."""


def _out_tensor(found: re.Match[str], failure: Failure) -> Explanation:
    """``Expected out tensor to have dtype A, but got B``: an op given ``out=`` computes A, its ``out`` tensor is B."""
    return out_tensor(failure, dtypes(found, "a", "b"))


def out_tensor(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """An op given ``out=`` whose result's dtype (``names[0]``) is not its ``out`` tensor's (``names[1]``)."""
    result, out = names if len(names) == 2 else ("another dtype", "a different dtype")
    if integers.all_integer(names):
        return integers.integer_pair(Kind.INDEXED_WRITE, failure, names, "an op given `out=`")
    return explained(
        Kind.INDEXED_WRITE, failure,
        f"an op given an `out=` tensor computes {a(result)} result, but the `out` tensor is {out}: an op writes "
        "only into an `out` of its result's dtype",
        f"an output buffer allocated in one dtype ({out}) reused for results computed in another: a buffer made "
        "before the model or its inputs changed dtype, or one made with the default dtype under autocast or in a "
        "16-bit model",
        f"allocate the `out` tensor in the result's dtype, {result} (`torch.empty(..., dtype=x.dtype)` for an "
        "operand `x`), or drop `out=` and cast the result (`op(...).to(out.dtype)`)",
        op="an op with `out=`", names=names,
    )


def _lerp(found: re.Match[str], failure: Failure) -> Explanation:
    """lerp's ``expected dtype A for `end` but got dtype B``; an int8 tensor blended in place is a quantized weight or
    an 8-bit optimizer state, not data."""
    names = dtypes(found, "a", "b")
    argument = found["arg"]
    if integers.integer_names(names) and len(names) == 2:
        int8_state = "int8" in names and "f64" not in names
        quantized = integers.quantized_weight(names, failure) or int8_state
        if not quantized and not is_floating(names[0]) and is_floating(names[1]):
            return integers.integer_operand(failure, names, "lerp (the tensor it updates is integer)")
        if quantized:
            return explained(
                Kind.LERP, failure,
                f"lerp_ needs `{argument}` in {names[0]}, the dtype of the weights it blends, but got {names[1]}: "
                "most likely a quantized weight, whose integers mean nothing without their scales",
                "weights merged or averaged with a checkpoint exported quantized (int8 weights with per-channel "
                "scales), read as it is",
                f"dequantize it first, with its scales: `w.lerp_(({argument}.to(w.dtype) * scale), weight)` (its "
                "zero point subtracted too, when it has one); or merge the unquantized checkpoint",
                op="lerp_", names=names,
            )
        return explained(
            Kind.LERP, failure,
            f"lerp_ needs `{argument}` in {names[0]}, the dtype of the tensor it updates, but got an integer tensor "
            f"({names[1]})",
            "a running average (a smoothed metric, an EMA) updated from an integer value: a count, a number of "
            "correct predictions, a step",
            f"convert it to the average's dtype first: `avg.lerp_({argument}.to(avg.dtype), weight)`",
            op="lerp_", names=names,
        )
    return float_lerp(failure, names, argument)


def float_lerp(failure: Failure, names: tuple[str, ...], argument: str) -> Explanation:
    """lerp given ``argument`` in another floating dtype than the tensor it updates (``names``: that tensor's first)."""
    return mixed_float(
        Kind.LERP, failure, names, "lerp_",
        f"lerp_ (`a.lerp_(end, weight)`, the update EMAs and optimizers use) needs `{argument}` in {names[0]}, the "
        f"dtype of the tensor it updates, but got {names[1]}" if len(names) == 2 else "",
        culprit="an EMA copy or optimizer state kept in one dtype updated from parameters or gradients in another "
        "(a bf16 model with an f32 EMA, or the reverse)",
        fix=f"cast the `{argument}` to the updated tensor's dtype: `ema.lerp_(param.to(ema.dtype), weight)` "
        "(EMA libraries have an option for it, e.g. ema_pytorch's `coerce_dtype=True`)",
    )


def _fp8(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a", "b")
    if not names:
        return explained(
            Kind.FP8_PROMOTION, failure,
            "an op mixed a float8 tensor with another dtype (the message shown stops before naming them): torch has "
            "no type promotion for float8, so an fp8 tensor cannot meet another dtype in arithmetic",
            "an fp8 weight (fp8 is a storage format) used directly in arithmetic, often through a UI's or library's "
            "fp8 option (`--unet-in-fp8-e4m3fn`, an fp8 checkpoint) on a torch or code path it was not written for",
            "dequantize before the op (`x.to(torch.bfloat16)`, times its scale), or run without the fp8 option; if a "
            "library makes the call, update it and torch together",
            op="arithmetic on an fp8 tensor",
        )
    if integers.integer_names(names):
        return explained(
            Kind.FP8_PROMOTION, failure,
            f"an op mixed {dtype_list(names)}: torch has no type promotion for float8, so an fp8 tensor cannot meet "
            "another dtype in arithmetic, a mask or an index included",
            "an fp8 weight or activation (fp8 is a storage format) used directly in arithmetic with a bool mask or "
            "an integer tensor, often in a model's own fp8 code path on a backend it was not written for",
            "dequantize before the op (`x.to(torch.bfloat16)`, times its scale) and apply the mask to the result; if a "
            "library makes the call, update it",
            op="arithmetic on an fp8 tensor", names=names,
        )
    return mixed_float(
        Kind.FP8_PROMOTION, failure, names, "arithmetic on an fp8 tensor",
        f"an op mixed {dtype_list(names)}: torch has no type promotion for float8, so an fp8 tensor cannot meet "
        "another dtype in arithmetic",
    )


def _source_and_destination(found: re.Match[str], failure: Failure) -> Explanation:
    """``mismatch dtype: src A, dst B`` (a weight copied or broadcast into another)."""
    names = dtypes(found, "src", "dst")
    if integers.all_integer(names):
        return integers.integer_pair(Kind.INTEGER_OPERAND, failure, names[::-1], "a weight copy")
    if integers.integer_names(names):
        return integers.quantized_copy(failure, names)
    return mixed_float(Kind.SCALAR_TYPE, failure, names, "a weight copy",
                       f"a weight copy got {a(names[0])} source for {a(names[-1])} destination" if names else "",
                       confidence=Confidence.LOW)


def _flatten_dtypes(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    return mixed_float(
        Kind.SCALAR_TYPE, failure, (), "flattening a group of tensors",
        "DeepSpeed flattens a group of parameters or gradients into one buffer and found several dtypes in it",
        culprit="some parameters kept in fp32 beside bf16/fp16 ones (a module kept in fp32 on purpose, LoRA adapters "
        "created in fp32, trainable norms or embeddings upcast), in one optimizer group under ZeRO",
        fix="give every trained parameter the engine's dtype before `deepspeed.initialize` (or put the fp32 ones in "
        "their own parameter group)",
        confidence=Confidence.LOW,
    )


def _fsdp_uniform(found: re.Match[str], failure: Failure) -> Explanation:
    """FSDP's ``Must flatten tensors with uniform dtype`` (FSDP1) and ``FSDP expects uniform original parameter
    dtype`` (FSDP2): one wrapped module holds parameters of two dtypes."""
    names = dtypes(found, "a", "b", "c", "d", "e", "f")
    lora = paste_search(failure, _LORA) is not None
    return mixed_float(
        Kind.OP_DTYPE, failure, names, "FSDP's wrapping of a module's parameters",
        f"FSDP flattens (FSDP1) or shards (FSDP2) a wrapped module's parameters together and needs one dtype among "
        f"them; this module holds {dtype_list(names) if names else 'two dtypes'}"
        + ("; the paste trains LoRA, whose adapters are created in fp32 beside a 16-bit base model" if lora else ""),
        culprit="parameters kept in fp32 beside bf16/fp16 ones in one wrapped module: a norm kept in fp32, LoRA "
        "adapters created in fp32, a model partly converted with `.half()`/`.to(torch.bfloat16)`",
        fix="give every parameter one dtype before wrapping (keep them fp32 and let FSDP's `MixedPrecision` / "
        "`MixedPrecisionPolicy(param_dtype=torch.bfloat16)` cast for compute), or wrap the odd ones as their own "
        "FSDP unit",
    )


_SYNC_BATCH_NORM = re.compile(r"\bSync(?:BatchNorm|BN)\b(?=[^\n]{0,80}\b(?:fp16|half|float16|amp|mixed precision)\b)",
                              re.IGNORECASE)
"""SyncBatchNorm said to fail in 16-bit (``SyncBN doesn't support fp16 inputs``) in a paste whose error names no op:
older torch refused 16-bit input with fp32 parameters. Code that merely converts a model to it says nothing."""
_SPARSE_CONV = re.compile(r"\bspconv\b|\bSparseConv(?:Tensor|3d|2d)?\b|\bSubMConv[23]d\b")
"""spconv named in a paste whose error names no op: its sparse convolutions check features against weights."""
_LORA = re.compile(r"(?<![a-z])(?:lora|peft)(?![a-z])", re.IGNORECASE)
"""LoRA or PEFT named in a paste, also beside CJK text (``FSDP2训练LoRA报错``), where ``\b`` finds no boundary."""


def _linear_a_w(found: re.Match[str], failure: Failure) -> Explanation:
    """lightning-thunder's check of a linear layer's input ``a`` and weight ``w``."""
    return mixed_float(Kind.MATMUL, failure, dtypes(found, "a", "b"),
                       "a linear layer (lightning-thunder's check of its input a and weight w)")


def _metric_preds_target(found: re.Match[str], failure: Failure) -> Explanation:
    """A metric's (torchmetrics') check that predictions and targets share a dtype."""
    names = dtypes(found, "a", "b")
    return mixed_float(
        Kind.OP_DTYPE, failure, names, "a metric (torchmetrics' check of preds and target)",
        f"a metric got predictions in {dtype_list(names[:1])} and targets in {dtype_list(names[1:])}; it compares "
        "them only in one dtype",
        culprit="16-bit precision (Lightning's precision=16, autocast) making the model's predictions 16-bit while the "
        "targets from the batch stay fp32, or targets converted with the model (`-true` precision) and predictions "
        "upcast",
        fix="cast both to one dtype where the metric is called: `metric(preds.float(), target.float())`",
    )


def _in_place_output_type(found: re.Match[str], failure: Failure) -> Explanation:
    """Old torch's ``output with type torch.cuda.HalfTensor doesn't match the desired type torch.cuda.FloatTensor``:
    an in-place op on a tensor of one dtype given a result of another."""
    names = dtypes(found, "a", "b")
    return mixed_float(Kind.OP_DTYPE, failure, names, "an in-place op",
                       f"an in-place op (`x += y`, `x.add_(y)`) on {a(names[0]) if names else 'a'} tensor computed "
                       f"{a(names[1]) if len(names) > 1 else 'another'} result, which old torch does not store back "
                       "into it", confidence=Confidence.LOW)


def _graph_op_types(found: re.Match[str], failure: Failure) -> Explanation:
    """A graph compiler's ``Input 'y' of 'Pow' Op has type int32 that does not match type float32 of argument 'x'``
    (TensorFlow-style, as AWS Neuron prints it): one op of a traced model given two dtypes."""
    return mixed_float(Kind.OP_DTYPE, failure, dtypes(found, "b", "a"), f"the traced graph's {found['op']} op",
                       confidence=Confidence.LOW)


def _plain_tensor_as_parameter(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "dtype")
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"a plain {names[0] if names else ''} tensor was assigned to a module's parameter `{found['name']}`: torch "
        "takes only an `nn.Parameter` (or None) there",
        "code that converts a weight by reassigning it (`module.weight = module.weight.to(torch.bfloat16)`: `.to()` "
        "of a Parameter returns a plain tensor), often in a precision plugin or an FSDP wrapper",
        "convert in place instead (`module.to(torch.bfloat16)`, or `param.data = param.data.to(dtype)`), or wrap it "
        "(`nn.Parameter(w.to(dtype), requires_grad=w.requires_grad)`); if a library does it, update it",
        op="parameter assignment", names=names, confidence=Confidence.LOW,
    )


def _query_and_key(found: re.Match[str], failure: Failure) -> Explanation:
    """flash-attn's ``query and key must have the same dtype``: with an fp8 KV cache configured (vLLM's
    ``--kv-cache-dtype fp8``), an attention backend that does not take fp8 keys; else q and k of two dtypes."""
    if paste_search(failure, _FP8_KV_CACHE):
        return explained(
            Kind.NO_KERNEL, failure,
            "the attention backend got keys from an fp8 KV cache and queries in the model's 16-bit dtype: it has no "
            "fp8 KV-cache kernel, so it refuses the two dtypes",
            "`--kv-cache-dtype fp8` (`kv_cache_dtype='fp8'`) with an attention backend or engine version that does "
            "not support an fp8 KV cache",
            "use the KV-cache dtype `auto` (the model's dtype), or an attention backend and vLLM version that list fp8 "
            "KV caches (update vLLM)",
            op="attention with an fp8 KV cache", names=("float8_e4m3fn",), confidence=Confidence.LOW,
        )
    return _same_dtype_attention(found, failure)


_FP8_KV_CACHE = re.compile(r"kv[-_]cache[-_]dtype[\s=:'\"]{1,3}fp8", re.IGNORECASE)


def _same_dtype_attention(found: re.Match[str], failure: Failure) -> Explanation:
    """SageAttention's ``All tensors must have the same dtype`` (its kernels check q, k and v)."""
    del found
    names = low_precision_said(failure)
    return mixed_float(
        Kind.SDPA, failure, names, "attention",
        "an attention kernel (SageAttention checks this) got query, key and value of different dtypes",
        culprit="q/k/v computed in different precisions: one projection or a rotary embedding left in fp32 while the "
        "others are 16-bit, or a model and its attention override loaded in different dtypes",
        fix="cast q, k and v to one 16-bit dtype before the call (`k = k.to(q.dtype)`), or load every part in one "
        "dtype",
        confidence=Confidence.LOW,
    )


def _foreach_group(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    return mixed_float(
        Kind.SCALAR_TYPE, failure, (), "a foreach or fused optimizer step",
        "a multi-tensor (foreach or fused) optimizer groups each parameter with its gradient and states by index, and "
        "one of them has another dtype or device than the rest",
        culprit="a model converted (`.half()`, `.to(torch.bfloat16)`, moved to another device) after its optimizer was "
        "built, or optimizer states loaded from a checkpoint in another dtype",
        fix="build (or rebuild) the optimizer after converting the model, and load its state after that; keep "
        "parameters, gradients and states in one dtype; `foreach=False` trades speed to step them one by one",
        confidence=Confidence.LOW,
    )


_CODE_DTYPE = re.compile(r"\btorch\.(\w{1,20})\b")


def _no_common_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """Old torch's ``common_dtype_ != ScalarType::Undefined INTERNAL ASSERT FAILED``: its type promotion had no entry
    for the operands' dtypes (bf16 with any other, in torch 1.5 and older); the dtypes are the ones the code names."""
    del found
    said = (short_dtype(word) for line in failure.paste for word in _CODE_DTYPE.findall(line))
    names = tuple(dict.fromkeys(name for name in said if name and is_floating(name)))
    operands = dtype_list(names) if names else "two dtypes"
    return explained(
        Kind.OP_DTYPE, failure,
        f"torch's type promotion found no common dtype for the operands ({operands}): the torch of that age had no "
        "promotion rule for bf16 with any other dtype (an internal assert, a torch bug)",
        "an op between a bf16 tensor and a tensor of another dtype (a double constant, an fp32 buffer)",
        "convert one operand to the other's dtype before the op (`x.to(y.dtype)`), or update torch (1.6 and newer "
        "promote bf16)",
        op="type promotion", names=names, confidence=Confidence.LOW,
    )


def _fuser_lost_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """nvFuser's ``tensor_type->scalarType().has_value() INTERNAL ASSERT FAILED at .../codegen/cuda/type_promotion.cpp``
    (``Missing Scalar Type information``): TorchScript's CUDA fuser of torch 1.12 and 1.13 met a tensor whose dtype its
    profiling did not record."""
    del found
    return explained(
        Kind.SCALAR_TYPE, failure,
        "TorchScript's CUDA fuser (nvFuser) found no dtype recorded for a tensor of a scripted graph and could not "
        "promote types (an internal assert, a bug of the torch 1.12 and 1.13 fuser)",
        "a scripted model (`torch.jit.script`, often inside a library) run on inputs whose dtypes or shapes differ "
        "from the runs it profiled",
        "turn the fuser off (`torch._C._jit_set_nvfuser_enabled(False)` before the first call), or run the model "
        "without scripting; newer torch no longer fuses TorchScript with nvFuser",
        op="nvFuser type promotion", confidence=Confidence.LOW,
    )


def _prelu(found: re.Match[str], failure: Failure) -> Explanation:
    return _prelu_operands(failure, dtypes(found, "a", "b"))


def _prelu_operands(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """PReLU given an input and a learned slope of two floating dtypes (``names``)."""
    return mixed_float(
        Kind.OP_DTYPE, failure, names, "prelu",
        f"PReLU got {dtype_list(names)} (its input and its learned slope); prelu does no type promotion",
        culprit="a PReLU whose weight has another dtype than its input (one layer converted by hand, or a model "
        "converted after the PReLU was built elsewhere)",
        fix="give the PReLU's slopes its input's dtype: convert the module with the rest of the model "
        "(`model.to(dtype)` after building it, not a loop over its Linear layers), or `prelu.to(x.dtype)`",
    )


def _input_and_weight(found: re.Match[str], failure: Failure) -> Explanation:
    """oneDNN's ``Mismatch dtype between input and weight`` (CPU linear and convolution kernels): the op the frames
    show, else a layer whose weight has another dtype than its input."""
    names = dtypes(found, "a", "b")
    return shown_op(failure, names) or mixed_float(
        Kind.SCALAR_TYPE, failure, names, "a layer with a weight (oneDNN's linear or convolution on the CPU)",
        f"a layer got {a(names[0]) if names else 'an'} input and {a(names[-1]) if names else 'a'} weight; the CPU's "
        "oneDNN kernels take one dtype for both",
        confidence=Confidence.LOW,
    )


def _parameters_differ(found: re.Match[str], failure: Failure) -> Explanation:
    """A library's check that the parameters it is given share one dtype (cvxpylayers' ``Two or more parameters have
    different dtypes. Expected parameter 3 to have dtype torch.float64 but got dtype torch.float32``)."""
    names = dtypes(found, "a", "b")
    wanted = f"torch.{full_name(names[0])}" if names else "the first one's dtype"
    return mixed_float(
        Kind.OP_DTYPE, failure, names, "a library's parameter check",
        f"the layer takes its parameters in one dtype and got {dtype_list(names) if names else 'two dtypes'}: it "
        "checks every parameter against the first",
        culprit="parameters built separately, one with torch's default float32 and another from numpy (float64) or "
        "with an explicit dtype",
        fix=f"create every parameter in one dtype, the one the layer expects ({wanted}: `torch.tensor(..., "
        f"dtype={wanted})`, or `.double()` on the others for float64)",
    )


def _buffer_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a", "b")
    if not all(map(is_floating, names)):
        return explained(
            Kind.SCALAR_TYPE, failure,
            f"a Cython extension's typed buffer takes `{found['a']}` and got an array of C type `{found['b']}`: the "
            "integer widths differ (C's `long` is 32 bits on Windows and 64 elsewhere, so code built for one platform "
            "gets the other's)",
            "a compiled extension (a data loader's or tokenizer's Cython helper) given numpy arrays of the platform's "
            "default integer, on a platform its code did not expect (most often Windows)",
            "update the library (fixed releases type their buffers with fixed widths), or convert the arrays to the "
            "width it takes before the call (`arr.astype(np.int64)`)",
            op="a Cython extension", names=tuple(name for name in names if name),
        )
    convert = "convert the array to the dtype the extension takes before the call"
    return mixed_float(
        Kind.SCALAR_TYPE, failure, names, "a Cython extension",
        f"a Cython extension's typed buffer takes {names[0] if names else 'one dtype'} and got "
        f"{a(names[-1]) if names else 'another'} array (numpy arrays are float64 unless told otherwise)",
        culprit="a numpy array (or a tensor's `.numpy()`) of another dtype handed to a compiled extension (NMS, "
        "mesh rendering, a C/Cython post-processing step)",
        fix=f"{convert} (`arr.astype(np.{full_name(names[0])})`)" if names else convert,
    )


def _grid_sample(found: re.Match[str], failure: Failure) -> Explanation:
    return grid_sample(failure, dtypes(found, "a", "b"))


def grid_sample(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """grid_sample given an input and a grid of two dtypes (``names``: input, grid)."""
    return mixed_float(
        Kind.OP_DTYPE, failure, names, "grid_sample",
        f"grid_sample got {a(names[0]) if names else 'an'} input and {a(names[-1]) if names else 'a'} grid; it "
        "samples only with a grid of its input's dtype",
        culprit="a sampling grid built in fp32 (`F.affine_grid`, `torch.linspace`, a flow field) for 16-bit "
        "activations, or a 16-bit grid for an fp32 input (a library's deformable/warping op under autocast)",
        fix="make the grid the input's dtype (`F.grid_sample(x, grid.to(x.dtype))`); if a library makes the call, "
        "update it (newer versions cast the grid)",
    )


_MATMUL_ARGUMENTS = ("mat1", "mat2", "self", "vec", "vec1", "vec2", "batch1", "batch2", "m1", "m2")
"""torch's argument names for a matmul's operands (older messages say ``for argument #2 'mat2'``)."""

_DATA_INTEGERS = ("int16", "uint8", "int8")
"""Integer dtypes that hold data (int16 audio samples, uint8 pixels, int8 values), never indices or labels: an op
that expected one of them and found a float got that data as its first operand."""

_BITWISE = re.compile(r"i?(?:or|and|xor)_?")
"""Old torch's bitwise ops as its messages name them (``in call to _th_or``, ``_th_ior_``)."""

_WRITTEN_ARGUMENTS = ("source", "src", "values")
"""torch's argument names for the values an indexed write (index_add_, index_put_, scatter) stores."""


def _scalar_type(found: re.Match[str], failure: Failure) -> Explanation:
    """``expected scalar type A but found B`` (and older wordings): the frames say which op."""
    names = dtypes(found, "a", "b")
    argument = (found.groupdict().get("arg") or "").lower()
    places = devices.apart(found["a"], found["b"])
    if places:
        return devices.mismatch(failure, places, names, op=f"argument '{argument}'" if argument else "an op")
    if found.groupdict().get("seq") and len(set(names)) == 2:
        return _sequence(failure, names)
    op = found.groupdict().get("op") or ""
    if set(names) == {"bool", "uint8"} and _BITWISE.fullmatch(op):
        return integers.masks_combined(failure, names, f"_th_{op}")
    if len(names) == 2 and all(map(is_quantized, names)):
        return quantization.quantized_pair(failure, names, first_shown(failure, CONV, MATMUL))
    if integers.integer_names(names):
        return _integer_scalar(failure, names, argument)
    extension = _FLOAT_ONLY_KERNEL.search(failure.message) or (
        _OLDER_FLOAT_ONLY_KERNEL.search(failure.message) and (
            paste_search(failure, _EXTENSION_FRAME) or paste_search(failure, _EXTENSION_NAMED)))
    if extension and len(names) == 2:
        return _float_only_kernel(failure, names)
    if shows(failure, FASTPATH, everywhere=True):
        return _fastpath(failure, names)
    quantizing = quantization.shown_quantization(failure, names)
    if quantizing is not None:
        return quantizing
    if argument in _MATMUL_ARGUMENTS and paste_search(failure, _BILINEAR) and all(map(is_floating, names)):
        return _bilinear_operands(failure, names)
    if argument in _MATMUL_ARGUMENTS:
        batched = "bmm" in op or argument.startswith("batch")
        return mixed_float(Kind.BATCHED_MATMUL if batched else Kind.MATMUL, failure, names,
                           "a batched matrix multiply (bmm)" if batched else "a matrix multiply")
    if argument in _WRITTEN_ARGUMENTS:
        return indexed_write(failure, names, op or "an indexed write")
    shown = shown_op(failure, names)
    if shown is not None:
        return shown
    aten = aten_op_failed(failure)
    if aten is not None:
        return _aten_op(failure, names, aten)
    traced = traced_call(failure)
    if traced is not None:
        return mixed_float(_ATEN_KINDS.get(traced, Kind.OP_DTYPE), failure, names, f"torch.{traced}")
    named = in_op_named(failure, names)
    if named is not None:
        return named
    called = torch_call(failure)
    if called is not None and len(names) == 2:
        return mixed_float(Kind.OP_DTYPE, failure, names, f"torch.{called}",
                           f"torch.{called} got {dtype_list(names)} tensors; it takes one dtype for them")
    if len(names) == 2 and paste_search(failure, _SYNC_BATCH_NORM):
        return norm_param(failure, names, op="SyncBatchNorm", confidence=Confidence.LOW)
    if len(names) == 2 and paste_search(failure, _SPARSE_CONV):
        return mixed_float(Kind.CONV_WEIGHT, failure, names, "a sparse convolution (spconv)",
                           f"a sparse convolution's features are {names[0]} and its weight {names[1]}: spconv's "
                           "layers take one dtype for both, and autocast does not cast them", confidence=Confidence.LOW)
    if len(names) == 2 and _only_matmul_quoted(failure):
        return mixed_float(Kind.MATMUL, failure, names, "a matrix multiply (the one the report quotes)",
                           confidence=Confidence.LOW)
    story_culprit, story_fix = mixed_story(names)
    return mixed_float(
        Kind.SCALAR_TYPE, failure, names, "an op",
        f"an op expected {names[0]} tensors but one of its operands is {names[1]}" if len(names) == 2 else "",
        culprit=f"{story_culprit}; the traceback's innermost frames name the op (a norm, a convolution and a custom "
        "kernel each need a different fix)",
        fix=story_fix, confidence=Confidence.LOW,
    )


def _only_matmul_quoted(failure: Failure) -> bool:
    """Whether the code a report quotes calls a matrix multiply and no other op that checks dtypes (a norm, a
    convolution, an attention, a recurrent layer): the op a bare ``expected scalar type`` came from."""
    return bool(paste_search(failure, _MATMUL_CALLED)) and not any(
        paste_search(failure, op.pattern) for op in (NORM, CONV, ATTENTION, RNN, BMM))


_MATMUL_CALLED = re.compile(r"\btorch\.(?:matmul|mm|einsum)\(|\bF\.linear\(|[\w)\]] @ [\w(]")
"""A matrix multiply called in quoted code (not a ``nn.Linear(...)`` built, whose forward may never be what raised)."""


def _scalar_type_cut(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``expected scalar type Double`` cut (or retyped) before ``but found B``: a floating dtype expected and another
    given to an op the paste does not name; declined for an integer dtype (an index or a target, told apart by B)."""
    names = dtypes(found, "a")
    if not names or not is_floating(names[0]):
        return None
    return mixed_float(Kind.SCALAR_TYPE, failure, names, "an op",
                       f"an op expected {names[0]} tensors and got another dtype (the message is cut before it says "
                       "which)", confidence=Confidence.LOW)


def _invalid_combination(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Old torch's ``FloatBCECriterion_updateOutput received an invalid combination of arguments - got (int,
    torch.FloatTensor, torch.LongTensor, ...), but expected (int state, torch.FloatTensor input, torch.FloatTensor
    target, ...)``: the first tensor argument whose type differs from the one expected, read as that argument's
    mismatch; ``is_same_size``'s ``other``, which old losses called on their target, is a target of the wrong kind."""
    got = [item.strip() for item in found["got"].split(",")]
    wanted = [item.strip(" []").rsplit(" ", 1) for item in found["want"].split(",")]
    for given, expected in zip(got, wanted):
        names = short_dtypes((expected[0], given))
        if len(names) == 2 and names[0] != names[1]:
            argument = expected[-1] if len(expected) == 2 else ""
            if found["op"] == "is_same_size" and integers.integer_names(names[:1]) and is_floating(names[1]):
                return integers.target(failure, names[:1], wants_float=True, op="a loss (its is_same_size check)",
                                       prediction=names[1:])
            if integers.integer_names(names):
                return _integer_scalar(failure, names, argument)
            return mixed_float(Kind.SCALAR_TYPE, failure, names, f"{found['op']} (its argument '{argument}')",
                               confidence=Confidence.LOW)
    return None


_ATEN_KINDS = {"bmm": Kind.BATCHED_MATMUL, "baddbmm": Kind.BATCHED_MATMUL, "mm": Kind.MATMUL, "addmm": Kind.MATMUL,
               "matmul": Kind.MATMUL, "linear": Kind.MATMUL}


def _aten_op(failure: Failure, names: tuple[str, ...], op: str) -> Explanation:
    """Floating dtypes ``names`` met in the aten ``op`` a DTensor's or a fake tensor's check names; ``aten.bmm`` is
    what `@`/`torch.matmul` on 3-D tensors run, so it is a batched matmul only when the code calls ``bmm`` itself."""
    kind = _ATEN_KINDS.get(op, Kind.OP_DTYPE)
    if kind is Kind.BATCHED_MATMUL and not shows(failure, BMM, everywhere=True):
        kind = Kind.MATMUL
    return mixed_float(kind, failure, names, f"aten.{op}")


def _weight_norm(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """weight norm's ``_weight_norm(v, g)`` given its direction and magnitude in two dtypes (``names``)."""
    return mixed_float(
        Kind.OP_DTYPE, failure, names, "weight norm",
        f"weight norm rebuilt a weight from its direction `weight_v` and magnitude `weight_g` in {dtype_list(names)}; "
        "both must have one dtype",
        culprit="one of the two parameters weight norm splits a weight into cast or replaced on its own: a frozen "
        "gain re-created in fp32, a checkpoint loaded into one of them, or a module cast by its `.weight` alone",
        fix="give `weight_g` and `weight_v` one dtype: cast the whole module after applying weight norm "
        "(`module.to(torch.bfloat16)` converts both), or keep the head in fp32 with a keep rule",
    )


def shown_op(failure: Failure, names: tuple[str, ...]) -> Explanation | None:
    """Floating dtypes ``names`` met in the op the innermost frames show (grid_sample, a norm, a convolution, a
    recurrent layer, an attention, a matrix multiply or an extension kernel); None when they show none of them. A
    convolution an extension implements (mmcv's or torchvision's deformable convolution) is the extension's."""
    op = first_shown(failure, GRID_SAMPLE, CDIST, PRELU, WEIGHT_NORM, NORM, CONV, RNN, ATTENTION, BMM, MATMUL,
                     EXTENSION, LOSS)
    if op is CONV and first_shown(failure, EXTENSION, CONV) is EXTENSION:
        op = EXTENSION
    if op is GRID_SAMPLE:
        return grid_sample(failure, names)
    if op is WEIGHT_NORM:
        return _weight_norm(failure, names)
    if op is PRELU:
        return _prelu_operands(failure, names)
    if op is CDIST:
        return mixed_float(Kind.OP_DTYPE, failure, names, "torch.cdist",
                           f"torch.cdist got its two point sets in {dtype_list(names)}; it takes one dtype for both")
    if op is LOSS and len(names) == 2:
        return loss_operands(failure, names)
    if op is NORM:
        return norm_param(failure, names)
    if op is CONV:
        return mixed_float(Kind.CONV_WEIGHT, failure, names, "convolution",
                           f"a convolution got {a(names[0])} input but {a(names[1])} weight" if len(names) == 2 else "")
    if op is RNN:
        return recurrent(failure, names)
    if op in (ATTENTION, BMM, MATMUL):
        kind = {ATTENTION: Kind.SDPA, BMM: Kind.BATCHED_MATMUL}.get(op, Kind.MATMUL)
        return mixed_float(kind, failure, names, op.name)
    if op is EXTENSION and len(names) == 2:
        return _extension(failure, names)
    return None


def loss_operands(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """A loss's forward given tensors of two floating dtypes (``names``): its input and its target or class weight."""
    loss = next((frame.function for frame in reversed(failure.frames) if LOSS.seen_in(frame) and frame.function),
                "the loss")
    return mixed_float(
        Kind.OP_DTYPE, failure, names, loss,
        f"{loss} got tensors of {dtype_list(names)}: its input and its target (or class `weight`, `pos_weight`) must "
        "have one dtype",
        culprit="a 16-bit prediction (a 16-bit model, or autocast output) meeting an fp32 target or class-weight "
        "tensor built with the default dtype, or the reverse",
        fix="compute the loss in fp32 with every tensor it takes: `loss_fn(pred.float(), target.float())`, class "
        "weights `.float()` too (or give them the prediction's dtype)",
    )


_OP_WORDS = tuple((re.compile(pattern, re.IGNORECASE), op) for pattern, op in (
    (r"\bmatrix multiplications?\b|\bmatmul\b|\baddmm\b|\bF\.linear\b|\bnn\.Linear\b|\blinear layers?\b",
     (Kind.MATMUL, "a matrix multiply")),
    (r"\bconv(?:olution)?(?:al)?(?: ?[123]d)?(?: layers?)?\b", (Kind.CONV_WEIGHT, "convolution")),
    (r"\b(?:layer|group|rms|batch)_? ?norm\b", (Kind.NORM_PARAM, "a normalization layer")),
))


def in_op_named(failure: Failure, names: tuple[str, ...], cause: str = "") -> Explanation | None:
    """Floating dtypes ``names`` met in the op the error line names in words (``in matrix multiplication``, ``at
    `fc_cls` `addmm op```), with low confidence; None when it names none."""
    named = next((op for pattern, op in _OP_WORDS if pattern.search(failure.message)), None)
    return None if named is None else mixed_float(named[0], failure, names, named[1], cause, confidence=Confidence.LOW)


_FLOAT_ONLY_KERNEL = re.compile(r"\(data_ptr<\w+>")
"""Old torch's suffix when a C++/CUDA kernel reads a tensor's memory as one type (``data_ptr<float> at ...``)."""
_OLDER_FLOAT_ONLY_KERNEL = re.compile(r"\(data<\w+>")
"""Older torch's spelling of it (``data<float> at ...``), which torch's own code raised too: read as an extension's
only when the paste's C++ frames show one."""
_EXTENSION_FRAME = re.compile(
    r"^frame #\d{1,3}: [^\n]{0,400}? in (?![^)\n]{0,300}[/\\]torch[/\\]lib[/\\])[^)\n]{1,300}\.so\)")
"""A C++ frame of a compiled extension's library (``frame #3: dcn_v2_cuda_forward(...) (... in .../_ext.so)``), not
of torch's own."""
_EXTENSION_NAMED = re.compile(r"(?<![\w.])(?!torch\.)\w{1,40}\.\w{1,60}_cuda\b|\b\w{1,40}_cuda\.\w{1,60}\(")
"""An extension's CUDA function named in the paste (``rcca.ca_forward_cuda``, ``dcn_v2_cuda.forward(``)."""


def _float_only_kernel(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """``expected scalar type Float but found Half (data_ptr<float> at ...)``: a kernel written for one dtype only."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"a C++/CUDA kernel reads its input's memory as {names[0]} only (`data_ptr<...>`) and got {a(names[1])} "
        f"tensor: it has no {names[1]} version",
        "a compiled extension (DCN, roi_align, a custom CUDA op) written for float only, run inside a 16-bit model "
        "or autocast region",
        f"update the extension to a version with {names[1]} kernels if there is one; otherwise run that op in "
        f"{names[0]} (`op(x.float()).to(x.dtype)`) or {keep_rule('the module that calls it')}",
        op="an extension kernel", names=names, confidence=Confidence.LOW,
    )


def _legacy_type(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Old torch's ``expected type CUDAFloatType but got CUDAHalfType``: read like ``expected scalar type``, declined
    unless both name a dtype."""
    return _scalar_type(found, failure) if len(dtypes(found, "a", "b")) == 2 else None


SEQUENCE_OP = "torch.cat/torch.stack"
"""The ops that take a list of tensors and, in older torch, checked every element against the first one's dtype."""


def _sequence(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """Old torch's ``... for sequence element N in sequence argument ... 'tensors'``: a cat/stack of tensors in two
    dtypes; an integer among them goes to the integer family."""
    if integers.integer_names(names):
        return integers.mixed_sequence(failure, names, SEQUENCE_OP)
    return mixed_float(
        Kind.SCALAR_TYPE, failure, names, SEQUENCE_OP,
        f"{SEQUENCE_OP} got a list of tensors in {dtype_list(names)}: torch of that age checks every element against "
        "the first one's dtype instead of promoting",
        culprit="tensors made in different dtypes (one computed under autocast or by a 16-bit model, another "
        "allocated with the default f32) gathered into one list",
        fix=f"convert them to one dtype before joining: `torch.cat([t.to({dtype_of(names[0])}) for t in tensors])` "
        "(current torch promotes there)",
    )


def _device_and_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """Old torch's ``expected device cuda:0 and dtype Float but got device cuda:0 and dtype Half`` (also ``backend``):
    a device mismatch when the devices differ, else two dtypes in one op."""
    if found["x"].lower() != found["y"].lower():
        return devices.mismatch(failure, (found["x"], found["y"]), dtypes(found, "a", "b"))
    return _scalar_type(found, failure)


def _narrowing_dtype_argument(found: re.Match[str], failure: Failure) -> Explanation:
    """``linalg.vector_norm: the dtype of the input (Float) should be convertible without narrowing to the specified
    dtype (BFloat16)``: a ``dtype=`` that asks a reduction to compute in a narrower dtype than its input."""
    names = dtypes(found, "a", "b")
    op = found["op"]
    narrower = full_name(names[-1]) if names else "float32"
    return explained(
        Kind.OP_DTYPE, failure,
        f"`{op}` was given `dtype=` {names[-1] if names else 'a dtype'} narrower than its input "
        f"({names[0] if names else 'another dtype'}): that argument sets the dtype it accumulates in, and may only "
        "widen the input",
        "a norm or reduction asked for a 16-bit result by `dtype=` (gradient norms of fp32 master gradients taken "
        "`dtype=torch.bfloat16`, a metric computed in the model's dtype)",
        f"drop `dtype=` and cast the result (`torch.{op}(g).to(torch.{narrower})`); to compute in the narrower dtype "
        f"on purpose, cast the input first (`g.to(torch.{narrower})`)",
        op=op, names=names,
    )


def _checked_pair(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A compiled engine's own check printed as glog prints one (``Check failed: data_type_v<T> == dtype_ (f16 vs.
    bf16)``): its kernel was built or chosen for one dtype and given another."""
    names = dtypes(found, "a", "b")
    if len(set(names)) != 2:
        return None
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"a compiled inference engine's check failed: a kernel built or chosen for {names[0]} was given {names[1]} "
        "data (or the reverse)",
        f"weights or a cache in another dtype than the engine was configured for: a `dtype`/`--dtype` setting (or "
        f"the model config's `torch_dtype`) that says {names[0]} while the checkpoint or a converted part is "
        f"{names[1]}, or a new engine version whose kernels for this model do not cover its dtype",
        f"make the engine's dtype setting match the checkpoint's (pass the dtype explicitly, {names[1]} if the weights "
        "are stored so); if a previous version of the engine worked, pin it and report the regression",
        op="a compiled engine's kernel", names=names, confidence=Confidence.LOW,
    )


def _extension(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """A custom extension's dtype check, raised in its frame: expecting fp32 it lacks the 16-bit kernel; expecting a
    16-bit dtype it has one, and another of its inputs arrived in fp32."""
    frame = next(frame for frame in reversed(failure.frames) if EXTENSION.seen_in(frame))
    call = frame.code or frame.function
    if is_low_precision(names[0]):
        return explained(
            Kind.SCALAR_TYPE, failure,
            f"a custom extension kernel (`{call}`) runs in its first input's dtype ({names[0]}) and got another input "
            f"in {names[1]}: it was handed tensors of two dtypes",
            f"autocast or a 16-bit model giving the extension {a(names[0])} input while another of its tensors (a "
            f"weight, offsets, rois, a buffer made in {names[1]}) stays {names[1]}: autocast does not cast the inputs "
            "of custom ops",
            "give all its inputs one dtype before the call: run it in fp32 (`@torch.amp.custom_fwd(device_type="
            "'cuda', cast_inputs=torch.float32)` on its autograd Function's forward, or `op(x.float(), w.float())."
            f"to(x.dtype)`), or cast the odd tensor to {names[0]}",
            op=frame.function, names=names, confidence=Confidence.LOW,
        )
    return explained(
        Kind.NO_KERNEL, failure,
        f"a custom extension kernel (`{call}`) checks that its inputs are {names[0]} and got {names[1]}: it has no "
        f"{names[1]} version, or it was handed tensors of two dtypes",
        f"a compiled extension (a CUDA/C++ op outside torch) run inside {a(names[1])} model or autocast region",
        f"run that op in {names[0]}: upcast its inputs and cast the result back (`op(x.float()).to(x.dtype)`), or "
        f"{keep_rule('the module that calls it')}",
        op=frame.function, names=names, confidence=Confidence.LOW,
    )


def _integer_scalar(failure: Failure, names: tuple[str, ...], argument: str) -> Explanation:
    """An integer dtype in ``expected scalar type A but found B``: a loss target, integer data in float math (the
    integer is expected only when it is a matmul's or layer's first operand), two integer widths in a matmul (its own
    mismatch, no float math), or a float where integers belong."""
    if argument == "mask" and integers.all_integer(names) and not {"bool", "uint8"} & set(names):
        return integers.integer_pair(Kind.SCALAR_TYPE, failure, names, "an op's `mask` argument (a tensor of indices)")
    if argument == "mask":
        return integers.mask_argument(failure, names)
    if set(names) == {"bool", "uint8"}:
        return integers.masks_combined(failure, names, None)
    if argument == "other" and len(names) == 2 and is_floating(names[0]) != is_floating(names[1]):
        return integers.integer_operand(failure, names, "an arithmetic op (its argument 'other')")
    if argument == "target" or (
            (integers.class_index_loss(failure) or shows(failure, LOSS)) and not is_floating(names[0])):
        return integers.target(failure, names[1:], wants_float=is_floating(names[0]))
    if integers.class_index_loss(failure) and is_floating(names[0]) and names[1:] == ("int64",):
        return integers.class_weight(failure, names)
    if shows(failure, LOSS, everywhere=True) and is_floating(names[0]):
        return integers.target(failure, names[1:], wants_float=True)
    if shows(failure, WHERE):
        return integers.number_in_where(failure, names)
    if shows(failure, VISION_NMS) and not is_floating(names[0]):
        return integers.mismatched_vision(failure, names)
    op = first_shown(failure, RNN, CONV, MATMUL, EXTENSION)
    weight = weight_dtype(failure)
    if op is CONV and is_floating(names[0]) and weight is not None and not is_floating(weight):
        return integers.integer_weight(failure, (names[0], weight))
    if op is CONV and len(names) == 2 and is_floating(names[0]) and not is_floating(names[1]) \
            and not integers.quantized_weight(names, failure):
        return integers.integer_weight(failure, names)  # a convolution's check names its input first, weight second
    if op is MATMUL and integers.all_integer(names):
        return integers.integer_pair(Kind.MATMUL, failure, names, op.name)
    data_first = names[0] in _DATA_INTEGERS and len(names) == 2 and is_floating(names[1])
    if is_floating(names[0]) or argument in _MATMUL_ARGUMENTS or op in (RNN, CONV, MATMUL) or data_first:
        frameless = op is None and not argument and not failure.frames
        return integers.integer_operand(failure, names, op.name if op else None,
                                        constant=frameless and is_floating(names[0]) and names[1:] == ("int64",),
                                        unseen=op is None and not argument)
    return integers.integer_required(failure, names, f"argument '{argument}'" if argument else None,
                                     confident=argument in ("index", "indices") or op is EXTENSION)


def _bilinear(found: re.Match[str], failure: Failure) -> Explanation:
    """nn.Bilinear's ``All tensors must have the same dtype, got input1: A, input2: B, weight: C, bias: D``."""
    return _bilinear_operands(failure, tuple(dict.fromkeys(dtypes(found, "a", "b", "w"))))


_BILINEAR = re.compile(r"\bBilinear\b|\b(?:F|functional|torch)\.bilinear\(")
"""nn.Bilinear (capitalised: lowercase ``bilinear`` is an interpolation mode) or its functional form, named in a paste;
old torch ran it with matrix multiplies, so its check named argument 'mat2'."""


def _bilinear_operands(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """nn.Bilinear given inputs and a weight in the floating dtypes ``names``."""
    return mixed_float(
        Kind.OP_DTYPE, failure, names, "nn.Bilinear",
        f"nn.Bilinear got its inputs and weight in {dtype_list(names)}; it takes one dtype for both inputs and its "
        "weight",
        culprit="two branches of a model (an image and a text encoder) whose outputs come in different dtypes, one "
        "of them kept in fp32 or run outside autocast",
        fix="give both inputs the layer's dtype: `fusion(x1.to(fusion.weight.dtype), x2.to(fusion.weight.dtype))`",
    )


def _fake_output(found: re.Match[str], failure: Failure) -> Explanation:
    """``opcheck``'s fake-tensor test: a custom op's fake (meta) implementation returns another dtype than its real
    kernel."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.OP_DTYPE, failure,
        f"a custom op's fake implementation and its real kernel return different dtypes ({dtype_list(names)}): "
        "torch.compile and export trace with the fake one, so they would see the wrong dtype",
        "a `register_fake` (or `impl_abstract`) that allocates its output with a fixed or default dtype while the "
        "real kernel returns its input's dtype (or the reverse: a kernel that upcasts to fp32)",
        "make the fake return what the kernel returns: `torch.empty_like(x)` (or `x.new_empty(shape, dtype=...)` with "
        "the kernel's dtype) in the `register_fake` function",
        op="a custom op's fake implementation", names=names,
    )


_PARAMETRIZED = re.compile(r"\b(?P<which>un)?parametrized dtype:\s*(?P<dtype>[\w.]{1,30})")


def _parametrization(found: re.Match[str], failure: Failure) -> Explanation:
    """``Registering a parametrization may not change the dtype of the tensor``, with the two dtypes printed below."""
    del found
    shown = dict((said["which"] or "", said["dtype"]) for line in failure.paste[failure.line:failure.line + 4]
                 for said in _PARAMETRIZED.finditer(line))
    names = tuple(name for name in (short_dtype(shown.get("un", "")), short_dtype(shown.get("", ""))) if name)
    return explained(
        Kind.OP_DTYPE, failure,
        "a parametrization (`torch.nn.utils.parametrize.register_parametrization`) returns another dtype than the "
        "parameter it replaces" + (f" ({' instead of '.join(reversed(names))})" if len(names) == 2 else ""),
        "a parametrization's `forward` that computes in fp32 (a norm, an orthogonal map, `torch.linalg` calls) for a "
        "16-bit parameter, or a module converted to 16-bit before the parametrization was registered",
        "return the input's dtype from the parametrization (`return out.to(X.dtype)`), or register it while the "
        "module is fp32 and convert afterwards",
        op="register_parametrization", names=names,
    )


def _solve_operands(found: re.Match[str], failure: Failure) -> Explanation:
    """torch.linalg's solvers' ``Expected b and A to have the same dtype, but found b of type Float and A of type
    Double instead`` (``linalg.solve: Expected A and B ...``, ``torch.linalg.lstsq: Expected input and other ...``, the
    only solver that names them ``input`` and ``other``, so read as lstsq when a paste cuts its name off)."""
    names = dtypes(found, "x", "y")
    first, second = found["first"], found["second"]
    sixteen_bit = any(is_low_precision(name) for name in names)
    named = found.groupdict().get("op") or ("torch.linalg.lstsq" if first == "input" else None)
    solver = named or "torch.linalg.solve"
    return mixed_float(
        Kind.OP_DTYPE, failure, names, named or "a linear solve (cholesky_solve, solve, triangular_solve)",
        f"a linear solve got `{first}` in {names[0]} and `{second}` in {names[1]}; both must have one dtype"
        if len(names) == 2 else "",
        culprit="16-bit features (from a bf16 or fp16 model) solved against a matrix built in fp32 (or the reverse); "
        "linear algebra has no 16-bit kernels in any case" if sixteen_bit else "a matrix built in float64 (a jitter "
        "or regulariser from numpy or a Python float tensor, `torch.eye(..., dtype=torch.float64)`) while the "
        "right-hand side stays float32, or the reverse",
        fix=f"solve in fp32 (or float64), both operands cast: `{solver}(A.float(), B.float())`, then cast the result "
        "back if needed" if sixteen_bit else "build both in one dtype (float64 for a numerically delicate "
        "solve: `torch.cholesky_solve(b.double(), L)`, else `A.to(b.dtype)`)",
    )


def _branches(found: re.Match[str], failure: Failure) -> Explanation:
    """torch.cond's ``When merging two branches' output ... expected same dtype but got A and B``."""
    return mixed_float(
        Kind.OP_DTYPE, failure, dtypes(found, "a", "b"), "torch.cond",
        f"torch.cond's two branches return {dtype_list(dtypes(found, 'a', 'b'))}; both must return one dtype",
        culprit="one branch computed under autocast or by 16-bit layers and the other not, or a branch that returns a "
        "new tensor made with the default dtype (`torch.zeros(())` is fp32)",
        fix="make both branches return the same dtype: cast the odd branch's output (`.to(x.dtype)`), or build new "
        "tensors from the input (`torch.zeros_like(x)`)",
    )


_HIGHER_ORDER = re.compile(r"Higher Order Operator: (?:torch\.)?(?:ops\.higher_order\.)?(\w+)")


def _carried_state(found: re.Match[str], failure: Failure) -> Explanation:
    """torch.while_loop's or scan's ``pair[1] differ in 'dtype: torch.float32 vs torch.bfloat16'``: the carried state
    changed dtype in the loop body."""
    said = paste_search(failure, _HIGHER_ORDER)
    op = f"torch.{said[1]}" if said else "torch.while_loop/scan"
    names = dtypes(found, "a", "b")
    return mixed_float(
        Kind.OP_DTYPE, failure, names, op,
        f"{op}'s carried state came back from the loop body in another dtype ({dtype_list(names)}); the carry must "
        "keep its dtype",
        culprit="a body (or combine_fn) that mixes the 16-bit state with an fp32 constant or parameter, or runs "
        "under autocast, so its output's dtype differs from the initial carry's",
        fix="keep the carry in one dtype: cast the body's outputs back (`new.to(carry.dtype)`), or start the carry "
        "in the dtype the body computes in",
    )


def _histogram_operand(found: re.Match[str], failure: Failure) -> Explanation:
    """``torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same dtype``
    (or ``... and bins tensors ...``): weights (a bool mask, integer counts) or bin edges (float64 from numpy) of
    another dtype than the values binned."""
    names = dtypes(found, "a", "b")
    what = found["what"]
    from_numpy = " (weights from numpy are float64)" if "f64" in names else ""
    weights_fix = (f"give the weights and the values one dtype where they are passed: `{found['op']}(x, ..., "
                   f"weight=weights.to(x.dtype))`{from_numpy}")
    return mixed_float(
        Kind.OP_DTYPE, failure, names, found["op"],
        f"{found['op']} got values of {names[0]} and {what} of {names[-1]}; they must have one dtype"
        if len(names) == 2 else "",
        fix=weights_fix if what == "weight" else "",
    )


def _named_operands(found: re.Match[str], failure: Failure) -> Explanation:
    """An op's own check of its two operands (``linalg.vecdot: Expected x and y to have the same dtype, but found x of
    type BFloat16 and y of type Float instead``)."""
    names = dtypes(found, "x", "y")
    op = f"torch.{found['op']}"
    return mixed_float(
        Kind.OP_DTYPE, failure, names, op,
        f"{op} got `{found['first']}` in {names[0]} and `{found['second']}` in {names[-1]}; both must have one dtype"
        if len(names) == 2 else "",
    )


def _nested_samples(found: re.Match[str], failure: Failure) -> Explanation:
    """``When constructing a nested tensor, all tensors in list must have the same dtype``: samples of two dtypes
    joined into one jagged batch."""
    del found
    return mixed_float(
        Kind.OP_DTYPE, failure, (), "torch.nested.nested_tensor",
        "a nested (jagged) tensor was built from samples of different dtypes; all of them must have one dtype",
        culprit="samples made or converted differently (some cast to the model's 16-bit dtype, others left fp32, or "
        "float64 from numpy) before batching",
        fix="convert every sample to one dtype before building the batch: `torch.nested.nested_tensor([t.to(dtype) "
        "for t in samples], layout=torch.jagged)`",
    )


def _different_dtypes(found: re.Match[str], failure: Failure) -> Explanation:
    """``heaviside is not yet implemented for tensors with different dtypes``: an op that takes its tensors in one
    dtype."""
    op = f"torch.{found['op']}"
    return mixed_float(Kind.OP_DTYPE, failure, (), op,
                       f"{op} got its tensors in different dtypes; it takes them in one dtype",
                       fix=f"give them one dtype where they meet: `{op}(x, values.to(x.dtype))`")


def _rotary_tables(found: re.Match[str], failure: Failure) -> Explanation:
    """flash-attn's rotary kernel: ``Input and cos/sin must have the same dtype, got torch.float32 and
    torch.bfloat16``."""
    names = dtypes(found, "a", "b")
    return mixed_float(
        Kind.OP_DTYPE, failure, names, "rotary embedding (apply_rotary)",
        f"the rotary embedding kernel got its input and its cos/sin tables in {dtype_list(names)}; it takes them in "
        "one dtype",
        culprit="cos/sin tables built (or kept as buffers) in one dtype while the queries and keys arrive in another: "
        "fp32 tables against a bf16 model, or a model converted after its tables were cached",
        fix="cast the tables to the input's dtype where they meet (`cos.to(q.dtype)`, `sin.to(q.dtype)`), or "
        "rebuild the cache after converting the model",
    )


def _quantile_level(found: re.Match[str], failure: Failure) -> Explanation:
    """``quantile() q tensor must be same dtype as the input tensor``: the level given as a tensor of another dtype."""
    del found
    return mixed_float(
        Kind.OP_DTYPE, failure, (), "torch.quantile",
        "torch.quantile got its level `q` as a tensor of another dtype than its input; they must match",
        culprit="a level built as a tensor with the default dtype or from numpy (`torch.tensor(0.9)`, float64) for "
        "scores in another dtype",
        fix="give `q` the input's dtype (`torch.quantile(x, q.to(x.dtype))`), or pass it as a Python float",
    )


COMPARE_OP = "torch.allclose/isclose"


def _compared(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``Char did not match Float`` (torch.allclose, torch.isclose) or assert_close's ``attribute 'dtype' do not
    match``: two tensors of different dtypes compared; declined unless both name a dtype."""
    names = dtypes(found, "a", "b")
    if len(names) != 2:
        return None
    if paste_search(failure, _TRACE_CHECK):
        return _trace_check(failure, names)
    if integers.all_integer(names):
        return integers.integer_pair(Kind.INTEGER_OPERAND, failure, names, COMPARE_OP)
    if integers.integer_names(names):
        return explained(
            Kind.INTEGER_OPERAND, failure,
            f"{COMPARE_OP} compared {a(names[0])} tensor with {a(names[1])} one; they compare tensors of one dtype",
            "an integer tensor (a quantized output's `int_repr()`, counts, labels) compared with a float reference",
            "compare like with like: dequantize a quantized output (`q.dequantize()`, not `q.int_repr()`) or convert "
            "the integer tensor (`.float()`) before comparing",
            op=COMPARE_OP, names=names,
        )
    return mixed_float(
        Kind.OP_DTYPE, failure, names, COMPARE_OP,
        f"{COMPARE_OP} compared tensors of {dtype_list(names)}; they compare tensors of one dtype"
        + ("; a float64 tensor usually meets a value made in the default dtype (float32: `torch.tensor(0.5)`), or "
           "the reverse under `torch.set_default_dtype(torch.float64)`" if "f64" in names else ""),
        culprit="a low-precision result checked against an fp32 reference (or the reverse)",
        fix="compare in one dtype with tolerances that fit the lower precision: `torch.allclose(out.float(), "
        "ref.float(), rtol=1e-2, atol=1e-2)` for bf16 (`torch.testing.assert_close(..., check_dtype=False)` does both)",
    )


_TRACE_CHECK = re.compile(r"Constant nodes differed in value across invocations|encountered untraceable code|"
                          r"Trace had nondeterministic nodes|\bcheck_trace\b")
"""torch.jit.trace's own check, which runs the model again and compares what it traced."""


def _trace_check(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """A dtype comparison that failed inside torch.jit.trace's check of its trace, not in the user's own test."""
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"torch.jit.trace's check ran the model again and compared it with the trace: a value the tracer recorded as a "
        f"constant came out {dtype_list(names)} across the two runs",
        "code the tracer cannot follow: a tensor built from Python numbers or a shape (`torch.tensor(0.5)`, "
        "`x.shape[0] * 2`), or a custom activation or layer with Python control flow, whose dtype or value depends on "
        "the input",
        "make that code traceable (constants with an explicit dtype and device, `torch.tensor(0.5, dtype=x.dtype, "
        "device=x.device)`; torch's own activations instead of custom ones), or trace with `check_trace=False`; tools "
        "that trace (pruning speed-ups, ONNX export) take the same fixes",
        op="torch.jit.trace's check", names=names, confidence=Confidence.LOW,
    )


def _self_and_source(found: re.Match[str], failure: Failure) -> Explanation:
    return indexed_write(failure, dtypes(found, "a", "b"), found["op"])


def _multi_dot(found: re.Match[str], failure: Failure) -> Explanation:
    """``multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 1 double``."""
    return mixed_float(Kind.MATMUL, failure, dtypes(found, "a", "b"), "torch.linalg.multi_dot")


_real_into_istft = message_only(
    Kind.OP_DTYPE,
    "torch.istft takes a complex spectrogram (what `torch.stft(..., return_complex=True)` returns) and got a real "
    "tensor: newer torch no longer accepts the old real layout with a trailing dimension of 2",
    "code written for older torch that keeps spectrograms real (`torch.stft(..., return_complex=False)`, or a model "
    "predicting real and imaginary parts stacked in the last dimension) and passes them to `istft`",
    "make the input complex before `istft`: `torch.view_as_complex(spec.contiguous())` for a [..., 2] tensor (or "
    "`torch.complex(real, imag)`), and call `stft` with `return_complex=True`",
    op="torch.istft",
)


_dtype_called = message_only(
    Kind.SCALAR_TYPE,
    "a dtype was called like a function: `torch.float`, `torch.half`, `torch.bfloat16` and `torch.long` are dtype "
    "objects (`torch.float` is `torch.float32`), not constructors, so `torch.float(x)` raises",
    "code that converts with `torch.float(x)` (or `dtype(x)`, a dtype held in a variable) where it meant a tensor of "
    "that dtype",
    "make a tensor of the dtype (`torch.tensor(x, dtype=torch.float32)`) or convert one (`x.float()`, "
    "`x.to(dtype)`); for a Python number, `float(x)`",
    op="a dtype called as a function",
)


RULES: tuple[Rule, ...] = (
    rule(r"^(?P<a>[A-Za-z]\w{2,20}) did not match (?P<b>[A-Za-z]\w{2,20})$", _compared),
    rule(r"'torch\.dtype' object is not callable", _dtype_called),
    rule(r"\bistft requires a complex-valued input tensor", _real_into_istft),
    rule(r"multi_dot\(\): all tensors must have be the same dtype but tensor \d+ is (?P<a>{DTYPE}) and tensor \d+ "
         r"(?:is )?(?P<b>{DTYPE})", _multi_dot),
    rule(r"(?:(?P<op>torch\.linalg\.\w{1,20}): )?Expected (?P<first>input) and (?P<second>other) to have the same "
         r"dtype,? but got input's dtype (?P<x>{DTYPE}) and other's dtype (?P<y>{DTYPE})", _solve_operands),
    rule(r"quantile\(\) q tensor must be same dtype as the input tensor", _quantile_level),
    rule(r"(?<![\w.])(?P<op>linalg\.vecdot): Expected (?P<first>\w{1,10}) and (?P<second>\w{1,10}) to have the same "
         r"dtype,? but found (?P=first) of type (?P<x>{DTYPE}) and (?P=second) of type (?P<y>{DTYPE})",
         _named_operands),
    rule(r"When constructing a nested tensor, all tensors in list must have the same dtype", _nested_samples),
    rule(r"(?P<op>linalg\.lu_solve): Expected (?P<first>LU) and (?P<second>B) to have the same dtype,? but found LU of "
         r"type (?P<x>{DTYPE}) and B of type (?P<y>{DTYPE})", _solve_operands),
    rule(r"\b(?P<op>meshgrid) expects all tensors to have the same dtype", _different_dtypes),
    rule(r"Input and cos/sin must have the same dtype,? got (?P<a>{DTYPE}) and (?P<b>{DTYPE})", _rotary_tables),
    rule(r"\bsampled_addmm: Expected (?:mat1|result) and (?:mat2|self) to have the same dtype,? but got (?P<a>{DTYPE}) "
         r"and (?P<b>{DTYPE})", _matmul),
    rule(r"When merging two branches' output in torch\.cond,\s*expected same dtype but got (?P<a>{DTYPE}) and "
         r"(?P<b>{DTYPE})", _branches),
    rule(r"^pair\[\d+\] differ in 'dtype: (?P<a>{DTYPE}) vs (?P<b>{DTYPE})'", _carried_state),
    rule(r"\b(?P<op>\w{1,40}) is not yet implemented for tensors with different dtypes", _different_dtypes),
    rule(r"(?P<op>torch\.histogram\w{0,4}): if weight tensor is provided,? input tensor and (?P<what>weight) tensor "
         r"should have the same dtype,? but got input\((?P<a>{DTYPE})\),? and weight\((?P<b>{DTYPE})\)",
         _histogram_operand),
    rule(r"(?P<op>torch\.histogram\w{0,4}): input tensor and (?P<what>bins) tensors should have the same dtype,? but "
         r"got input with dtype (?P<a>{DTYPE}) and bins for dimension \d+ with dtype (?P<b>{DTYPE})",
         _histogram_operand),
    rule(r"The values for attribute 'dtype' do not match:\s*(?P<a>{DTYPE})\s*!=\s*(?P<b>{DTYPE})", _compared),
    rule(r"(?:self|mat ?1) and mat ?2 (?:must|should) (?:have|be of) (?:the )?same d?type(?:,?\s*but got "
         r"(?P<a>{DTYPE}) and (?P<b>{DTYPE})|\s*\((?P<c>{DTYPE}) and (?P<d>{DTYPE})\))?", _matmul),
    rule(r"(?:mat1|m1|self) and (?:mat2|m2) to have the same dtype(?:(?:,?\s*but got)?:?\s*(?P<a>{DTYPE})\s*"
         r"(?:!=|and)\s*(?P<b>{DTYPE}))?", _matmul),
    rule(r"addmv input tensors must have the same dtype,?\s*but got (?P<a>{DTYPE}),\s*(?P<b>{DTYPE}),?\s*and "
         r"(?P<c>{DTYPE})", _matmul),
    rule(r"dot\s*:\s*expected both vectors to have same dtype,?\s*but found (?P<a>{DTYPE}) and (?P<b>{DTYPE})",
         _matmul),
    rule(r"^both inputs should have same dtype?\b", _matmul),
    rule(r"Input dtypes must be the same,?\s*got:?\s*input:? (?P<a>{DTYPE}),\s*batch1:\s*(?P<b>{DTYPE}),\s*batch2:\s*"
         r"(?P<c>{DTYPE})", _batched),
    rule(r"(?:Input type )?\((?P<a>[^()]{1,80})\) and weight type \((?P<b>[^()]{1,80})\)", _conv_weight),
    rule(r"Input type \((?P<a>[^()]{1,80})\) and weight type \([\w.]{0,20}$", _conv_weight_cut),
    rule(r"Input type \((?P<a>[^()]{1,80})\) and weight(?: type)?$", _conv_integer_input_cut),
    rule(r"(?P<op>\w{1,60}) received an invalid combination of arguments - got \((?P<got>[^()\n]{1,300})\),? but "
         r"expected (?:one of:\s*\*\s*)?\((?P<want>[^()\n]{1,400})\)", _invalid_combination),
    rule(r"Input type \((?P<a>[^()]{1,80})\) and bias type \((?P<b>[^()]{1,80})\)", _conv_bias),
    rule(r"\bInput type and (?P<part>weight|bias) type should be the same\b", _conv_untyped),
    rule(r"输入类型\s*和\s*(?P<part>权重|偏置)类型\s*(?:应该?|应当)?\s*(?:不匹配|不一致|不同|相同)", _conv_untyped),
    rule(r"Expected tensor for argument #\d+ '(?P<x>\w+)' to have the same type as tensor for argument #\d+ "
         r"'(?P<y>\w+)'(?:;?\s*but type (?P<a>[\w.]+) does not equal (?P<b>[\w.]+)"
         r"(?:\s*\(while checking arguments for (?P<op>\w+)\))?)?", _same_type),
    rule(r"(?:mixed dtype \(CPU\): )?expect (?:parameter|input) to have scalar type of (?P<a>{DTYPE})", _mixed_norm),
    rule(r"mixed dtype \(CPU\): all inputs must share (?:the )?same datatype", _norm_inputs),
    rule(r"Unsupported hidden_size or types: (?P<size>\d+)(?P<weight>BFloat16|Half|Float)(?P<input>BFloat16|Half|Float)"
         r"(?:BFloat16|Half|Float){2,3}", _fused_norm),
    rule(r"Expected query, key,? and value to have the same dtype(?:,?\s*but got "
         r"query\.(?:dtype|Type):\s*(?P<q>{DTYPE}),?\s*key\.dtype:\s*(?P<k>{DTYPE}),?\s*"
         r"and value\.dtype:\s*(?P<v>{DTYPE}))?", _sdpa),
    rule(r"Query/Key/Value should (?:either )?all have the same dtype(?:[^;]{0,200};\s*"
         r"query\.dtype\s*:\s*(?P<q>{DTYPE});\s*key\.dtype\s*:\s*(?P<k>{DTYPE});\s*"
         r"value\.dtype\s*:\s*(?P<v>{DTYPE}))?", _sdpa),
    rule(r"(?P<op>[\w.]{1,40}): the dtype of the input \((?P<a>{DTYPE})\) should be convertible without narrowing "
         r"to the specified dtype \((?P<b>{DTYPE})\)", _narrowing_dtype_argument),
    rule(r"\bCheck failed: [^\n]{0,80}?\bdtype\w{0,10} \((?P<a>{DTYPE}) vs\.? (?P<b>{DTYPE})\)", _checked_pair),
    rule(r"\bquery\.dtype\s*:\s*(?P<q>{DTYPE})[,;]?\s*key\.dtype\s*:\s*(?P<k>{DTYPE})[,;]?\s*(?:and\s+)?"
         r"value\.dtype\s*:\s*(?P<v>{DTYPE})", _sdpa_tail),
    rule(r"\b[qr]: (?P<q>{DTYPE}), k: (?P<k>{DTYPE}), v: (?P<v>{DTYPE})", _sdpa_tail),
    rule(r"invalid dtype for bias - should match query'?s dtype", _attn_mask),
    rule(r"Expected a\.dtype=(?P<a>{DTYPE}) and w\.dtype=(?P<b>{DTYPE}) to be the same", _linear_a_w),
    rule(r"Expected `?preds`? and `?target`? to have the same data type\.? Got pred: (?P<a>{DTYPE}) and target: "
         r"(?P<b>{DTYPE})", _metric_preds_target),
    rule(r"Expected attn_mask dtype to be bool(?:[\w ]{0,40}?query dtype,?\s*but got attn_mask\.dtype:\s*"
         r"(?P<m>{DTYPE})(?:\s+and\s+query\.dtype:\s*(?P<q>{DTYPE}))?)?", _attn_mask),
    rule(r"RNN input dtype \((?P<a>[\w.]+)\) does not match weight dtype \((?P<b>[\w.]+)\)", _rnn),
    rule(r"could not create a primitive descriptor for (?:the|an?) (?P<layer>LSTM|GRU|RNN|vanilla RNN) "
         r"(?:forward|backward) propagation primitive", _onednn_rnn),
    rule(r"could not create a primitive descriptor for (?:the|an) inner product forward propagation primitive",
         _onednn_linear),
    rule(r"Input and (?:parameter|hidden) tensors are not the same dtype,?\s*found input tensor with "
         r"(?P<a>{DTYPE}) and (?:parameter|hidden) tensor with (?P<b>{DTYPE})", _rnn),
    rule(r"\binput must have the type (?P<b>torch\.\w{1,20}),? got type (?P<a>torch\.\w{1,20})", _rnn),
    rule(r"Expected (?P<x>\w{1,30})\.(?:dtype|scalar_type)\(\) == (?P<y>\w{1,30})\.(?:dtype|scalar_type)\(\) to be "
         r"true|Assertion failed: (?P<x2>\w{1,30})\.scalar_type\(\) == (?P<y2>\w{1,30})\.scalar_type\(\)",
         _kernel_pair),
    rule(r"Index put requires the source and destination dtypes? match(?:\s*,?\s*got (?P<dst>{DTYPE}) for the "
         r"destination and (?P<src>{DTYPE}) for the source)?", _indexed_write),
    rule(r"(?P<op>index_add_?)\(\): self(?: \((?P<dst>{DTYPE})\))? and source(?: \((?P<src>{DTYPE})\))? must have the "
         r"same scalar type", _indexed_write),
    rule(r"(?P<op>index_copy_?)\(\): self and source expected to have the same dtype,?\s*but got \(self\) "
         r"(?P<dst>{DTYPE}) and \(source\) (?P<src>{DTYPE})", _indexed_write),
    rule(r"(?P<op>masked_scatter_?): expected self and source to have same dtypes but got\s*(?P<dst>{DTYPE}) and "
         r"(?P<src>{DTYPE})", _indexed_write),
    rule(r"(?P<op>put_)\(\): self and (?:source|values) expected to have the same dtype,?\s*but got "
         r"self\.dtype = (?P<dst>{DTYPE}) and (?:source|values)\.dtype = (?P<src>{DTYPE})", _indexed_write),
    rule(r"(?P<op>scatter\w*)\(\): Expected self\.dtype to be equal to src\.dtype", _indexed_write),
    rule(r"Expected out tensor to have dtype (?P<a>{DTYPE}),?\s*but got (?P<b>{DTYPE})", _out_tensor),
    rule(r"expected dtype (?P<a>{DTYPE}) for `?(?P<arg>end|weights?)`?,? but got (?:dtype )?(?P<b>{DTYPE})", _lerp),
    rule(r"Promotion for Float8 Types is not supported(?:,?\s*attempted to promote (?P<a>{DTYPE}) and (?P<b>{DTYPE}))?",
         _fp8),
    rule(r"assert len\(set\(t\.dtype for t in tensors\)\) == 1", _flatten_dtypes),
    rule(r"Must flatten tensors with uniform dtype but got (?P<a>{DTYPE}) and (?P<b>{DTYPE})", _fsdp_uniform),
    rule(r"FSDP expects uniform (?:original parameter|reduce) dtype but got \{(?P<a>{DTYPE}), (?P<b>{DTYPE})\}|"
         r"FSDP reduce-scatter expects uniform gradient dtype but got \{(?P<c>{DTYPE}), (?P<d>{DTYPE})\}|"
         r"`?FlatParameter`? requires uniform dtype but got (?P<e>{DTYPE}) and (?P<f>{DTYPE})|"
         r"\brequires uniform dtype\b(?! but got)", _fsdp_uniform),
    rule(r"output with type (?P<a>[\w.]{1,40}Tensor) doesn't match the desired type (?P<b>[\w.]{1,40}Tensor)",
         _in_place_output_type),
    rule(r"Input '\w{1,30}' of '(?P<op>\w{1,40})' Op has type (?P<a>\w{1,12}) that does not match type (?P<b>\w{1,12}) "
         r"of argument", _graph_op_types),
    rule(r"cannot assign '(?P<dtype>torch\.[\w.]{1,40})' as parameter '(?P<name>\w{1,60})'",
         _plain_tensor_as_parameter),
    rule(r"mismatch(?:ed)? dtypes?:?\s*src (?P<src>{DTYPE}),?\s*dst (?P<dst>{DTYPE})", _source_and_destination),
    rule(r"(?:common_)?dtype_? != ScalarType::Undefined INTERNAL ASSERT FAILED", _no_common_dtype),
    rule(r"scalarType\(\)\.has_value\(\) INTERNAL ASSERT FAILED|codegen[/\\]cuda[/\\]type_promotion\.cpp|"
         r"Missing Scalar Type information", _fuser_lost_dtype),
    rule(r"test_faketensor failed[^\n]{0,300}?mismatched tensor metadata:?\s*Dtypes (?P<a>{DTYPE}) and (?P<b>{DTYPE}) "
         r"are not equal", _fake_output),
    rule(r"Registering a parametrization may not change the dtype of the tensor", _parametrization),
    rule(r"\b(?P<op>index_reduce_?|index_add_?|index_copy_?|scatter\w{0,12})\(\): self \((?P<a>{DTYPE})\) and source "
         r"\((?P<b>{DTYPE})\) must have the same scalar type", _self_and_source),
    rule(r"Expected (?P<first>[Ab]) and (?P<second>[AB]) to have the same dtype,? but found (?P=first) of type "
         r"(?P<x>{DTYPE}) and (?P=second) of type (?P<y>{DTYPE})", _solve_operands),
    rule(r"All tensors must have the same dtype(?!,? got)", _same_dtype_attention),
    rule(r"All tensors must have the same dtype,? got input1: (?P<a>{DTYPE}),? input2: (?P<b>{DTYPE})"
         r"(?:,? weight: (?P<w>{DTYPE}))?", _bilinear),
    rule(r"query and key must have the same dtype", _query_and_key),
    rule(r" != (?P<b>float|double|c10::(?:Half|BFloat16)|c10::Float8_\w{1,10})(?![\w:])", _matmul_tail),
    rule(r"(?:Mismatch dtype between input and weight: input dtype = |Input dtypes must be the same, got: input )"
         r"(?P<a>{DTYPE}),? weight(?: dtype =|:) (?P<b>{DTYPE})", _input_and_weight),
    rule(r"Tensors of the same index must be on the same device and the same dtype|\bparams, grads, exp_avgs,? and "
         r"exp_avg_sqs must have same dtype, device,? and layout", _foreach_group),
    rule(r"grid_sampler\(\): expected input and grid to have (?:the )?same dtype,? but input has (?P<a>{DTYPE}) and "
         r"grid has (?P<b>{DTYPE})", _grid_sample),
    rule(r"Two or more parameters have different dtypes\.?\s*Expected parameter \d+ to have dtype (?P<a>{DTYPE}) "
         r"but got dtype (?P<b>{DTYPE})", _parameters_differ),
    rule(r"Buffer dtype mismatch, expected '(?P<a>[\w ]{1,20})' but got '(?P<b>[\w ]{1,20})'", _buffer_dtype),
    rule(r"prelu: Type promoting not supported\.?\s*Got (?P<a>{DTYPE}) and (?P<b>{DTYPE})", _prelu),
    rule(r"expect(?:ed)? scalar (?:type )?(?P<a>{DTYPE})(?: type)?,? but (?:found|got|input|fund) (?P<b>{DTYPE})",
         _scalar_type),
    rule(r"expected scalar type (?P<a>{DTYPE})(?![\w.])(?!(?: type)?,? but)", _scalar_type_cut),
    rule(r"expected (?:backend|device) (?P<x>[\w:]{1,20}) and dtype (?P<a>\w{1,20}) but got (?:backend|device) "
         r"(?P<y>[\w:]{1,20}) and dtype (?P<b>\w{1,20})", _device_and_dtype),
    rule(r"Expected object (?:of|if) scalar type (?P<a>{DTYPE}) but got scalar type (?P<b>{DTYPE})"
         r"(?: for (?:argument|sequence element) #?\d+ '\s?(?P<arg>\w+)\s?'(?: in call to _?\s?th(?:nn)?_\s?"
         r"(?P<op>[\w ]{1,40}))?"
         r"| for (?P<seq>sequence element) \d+)?", _scalar_type),
    rule(r"Expected object of type (?:Variable\[)?(?P<a>[\w.]+)\]? but found type (?:Variable\[)?(?P<b>[\w.]+)\]?"
         r"(?: for argument #\d+ '(?P<arg>\w+)')?",
         _scalar_type),
    rule(r"expected (?:type )?(?P<a>[\w.]*Tensor) but (?:found|got) (?:type )?(?P<b>[\w.]*Tensor)", _scalar_type),
    rule(r"expected type (?P<a>(?:CUDA|CPU)\w{1,20}Type) but (?:found|got) (?:type )?(?P<b>(?:CUDA|CPU)\w{1,20}Type)",
         _legacy_type),
    rule(r"expected (?P<a>\w+) tensor \(got (?P<b>\w+) tensor\)", _scalar_type),
    rule(r"Expected input tensors? to have type (?P<a>{DTYPE}),? (?:but )?found type (?P<b>{DTYPE})", _scalar_type),
)
