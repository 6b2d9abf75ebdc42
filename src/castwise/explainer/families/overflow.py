"""A Python number written into a tensor whose dtype cannot hold it (fp16's largest value is 65504).

The usual source is a mask constant written for fp32 (``-1e9``, ``-1e10``, ``float(2**30)``,
``-torch.finfo(torch.float32).max``) meeting fp16 data; bf16 has fp32's range, so only constants
beyond about 3.4e38 overflow it. Three overflows are only ever said, never raised: a mask constant past 65504
said beside fp16 (its NaN gradients are what the report shows), non-maximum suppression on fp16 boxes (box areas
past 65504) that stops suppressing overlapping boxes, and cosine similarity of fp16 vectors (the product of their
squared norms) that comes out 0 or above 1.
"""

from __future__ import annotations

import re

import torch

from castwise.explainer.advice import a
from castwise.explainer.clues import FLOAT32_SAID, low_precision_said, paste_search
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtype_read, explained, message_only, rule
from castwise.explainer.spelling import dtype_of, is_floating, is_fp8, short_dtype

_RANGES = {"f16": "±65504", "bf16": "about ±3.39e38, fp32's range", "f32": "about ±3.4e38"}


def _fp8_overflow(names: tuple[str, ...], dtype: str, failure: Failure) -> Explanation:
    """A number past an fp8 dtype's small range (±448 for e4m3fn, which has no infinity) cast or written into it."""
    dtype_object = dtype_of(dtype)
    largest = f"±{torch.finfo(dtype_object).max:g}" if dtype_object is not None else "its finite range"
    infinite = "" if dtype.startswith("float8_e5m2") and not dtype.endswith("fnuz") else ", and it has no infinity"
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"a number outside {dtype}'s range ({largest}{infinite}) was written into {a(dtype)} tensor",
        "a value cast to fp8 without a scale (activations or weights past the range), or a mask value or constant "
        "(`-1e9`, `float('-inf')`, `torch.finfo(torch.float32).min`) written into an fp8 tensor",
        f"scale into range before the cast (`(x / scale).clamp(-m, m).to(torch.{dtype})` with "
        f"`m = torch.finfo(torch.{dtype}).max` and `scale = x.abs().max() / m`), and apply masks and large constants "
        "after dequantizing, in bf16 or fp32: fp8 is for scaled storage, not for sentinel values",
        op="fill/masked_fill/cast to fp8", names=names,
    )


_INFINITE_VALUE = re.compile(r"without overflow:?\s*-?(?:inf|nan)\b", re.IGNORECASE)
"""The value an old torch refused was itself infinite (``... without overflow: -inf``)."""


def _overflow(found: re.Match[str], failure: Failure) -> Explanation:
    names, dtype = dtype_read(found, "t")
    if is_fp8(dtype):
        return _fp8_overflow(names, dtype, failure)
    if not is_floating(dtype):
        return explained(
            Kind.VALUE_OVERFLOW, failure,
            f"a number outside the range of {dtype} was written into {a(dtype)} tensor",
            f"a constant or a computed value too large for an integer {dtype} tensor",
            ("keep such values in a wider integer dtype (int64: `.long()`, `dtype=torch.int64`)" if dtype != "int64"
             else "bring the values into int64's range first (a modulo, an offset), or keep them as float64")
            + f"; clamp to `torch.iinfo(torch.{dtype}).max` only where losing the excess is meant",
            op="fill/masked_fill", names=names,
        )
    if _INFINITE_VALUE.search(failure.message):
        return explained(
            Kind.VALUE_OVERFLOW, failure,
            f"this torch refused an infinite value for {a(dtype)} tensor: its range check counted inf as out of range, "
            "which older releases (0.3 and 0.4) did for `masked_fill_`/`fill_`",
            "`float('-inf')` (or `inf`, `nan`) used as a fill value in an old torch",
            "update torch (newer releases take inf as a fill value), or fill with the dtype's own extreme "
            "(`torch.finfo(x.dtype).min`)",
            op="fill/masked_fill", names=names,
        )
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"a Python number outside {dtype}'s range ({_RANGES.get(dtype, 'its finite range')}) was written into "
        f"{a(dtype)} tensor",
        "a constant written for fp32, such as a mask value (`masked_fill(mask, -1e9)`, `x[i] = float(2**30)`, "
        "`-torch.finfo(torch.float32).max`) or `fill_(1e6)`, applied to a tensor that is now 16-bit (a `.half()` "
        "model, or the output of an op under autocast)"
        + ("; for bf16 it is fp32's own extreme (±3.40282e38), just past bf16's largest (3.3895e38)"
           if dtype == "bf16" else ""),
        "take the constant from the tensor's own dtype (`torch.finfo(x.dtype).min` / `.max`), or use "
        "`float('-inf')` for masks; "
        + ("" if dtype == "bf16" else "or use bf16, which has fp32's range; ")
        + "or compute that step in fp32 (`with torch.autocast(device, enabled=False)` on `.float()` inputs)",
        op="fill/masked_fill/index assignment", names=names,
    )


def range_exceeded(failure: Failure, dtype: str) -> Explanation:
    """Values said to pass ``dtype``'s range in a model converted to it (outputs NaN, inf or all zeros): prose, no
    message, so said with low confidence."""
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"values in some layer are outside {dtype}'s range ({_RANGES.get(dtype, 'its finite range')}): past it they "
        "overflow to inf (then NaN), and the tiniest flush to 0, so the outputs come out wrong (NaN, inf or all "
        "zeros)",
        f"a model converted whole to {dtype} (`.half()`) whose activations, statistics (a BatchNorm's running "
        "variance) or intermediate sums (a LayerNorm's `(x - u).pow(2)`) exceed what it holds",
        "use mixed precision (autocast: parameters stay fp32 and range-sensitive ops run in fp32) instead of "
        "converting the model; or bf16, which has fp32's range; run `castwise doctor` to find the first module that "
        "overflows and keep it in fp32",
        op="a layer's activations", names=(dtype,), confidence=Confidence.LOW,
    )


def _numpy_overflow(found: re.Match[str], failure: Failure) -> Explanation | None:
    """numpy's ``RuntimeWarning: overflow encountered in multiply`` in a paste that names fp16: a value past fp16's
    65504 computed or stored in numpy's float16 (a conversion or calibration script); declined otherwise."""
    if "f16" not in low_precision_said(failure):
        return None
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"numpy overflowed in `{found['op']}`: a result past fp16's largest value (65504) became inf in a float16 "
        "array",
        "a conversion, calibration or export script (a `-t fp16` or `--dtype float16` run) that computes scales or "
        "statistics in float16, or casts values past 65504 to it (activation maxima, a scale times a large weight)",
        "compute in float32 and cast to fp16 only at the end (`arr.astype(np.float32)` before the arithmetic, then "
        "`np.clip(x, -65504, 65504).astype(np.float16)`), or keep that tensor in fp32 or bf16",
        op=f"numpy {found['op']}", names=("f16",), confidence=Confidence.LOW,
    )


_FP32_SAID = re.compile(rf"{FLOAT32_SAID.pattern}|\bfloat\b", re.IGNORECASE)
_SIXTEEN_BIT_SAID = re.compile(r"\b(?:fp16|float16|half)\b", re.IGNORECASE)
_PAST_FP16 = r"(?<![\w.])(?P<constant>-?[1-9]\d{0,2}(?:\.\d{1,6})?[eE]\+?(?:[5-9]|[1-3]\d))\b"
"""A constant written in exponent form whose magnitude is past fp16's 65504 (1e5 and up)."""


def _mask_constant_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A mask or fill constant past fp16's range (``masking with -1e15``) said within three lines of fp16: the fill
    overflows to -inf, and a fully masked row's softmax is NaN. Declined unless fp16 is said, and on a line that
    names fp32 and no 16-bit dtype (``on float32 training, I'm masking with -1e20``: fine there); on a line naming
    both, the constant after the 16-bit word is the one."""
    if failure.error_type or low_precision_said(failure, within=3)[:1] != ("f16",):
        return None
    line = failure.message
    sixteen = _SIXTEEN_BIT_SAID.search(line)
    if _FP32_SAID.search(line) and not sixteen:
        return None
    after = re.search(_PAST_FP16, line[sixteen.end():]) if sixteen else None
    constant = (after or found)["constant"]
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"the mask constant {constant} is past fp16's largest value (65504): written into fp16 it becomes -inf (or "
        "`masked_fill` refuses it), a fully masked row's softmax is then NaN (and -inf - -inf is NaN), and the loss "
        "scaler sees NaN gradients every step",
        "a mask value written for fp32 (`masked_fill(mask, -1e9)`, `-1e20`) used while the tensor is fp16 (a `.half()` "
        "model, apex O2/O3, or autocast)",
        "take the constant from the tensor's own dtype (`torch.finfo(x.dtype).min`, or `-1e4` for fp16), or compute "
        "the masked softmax in fp32 (`scores.float().masked_fill(mask, -1e9).softmax(-1).to(x.dtype)`)",
        op="masked_fill", names=("f16",), confidence=Confidence.LOW,
    )


def _nms_in_half(found: re.Match[str], failure: Failure) -> Explanation | None:
    """NMS on fp16 boxes said (not raised) to behave unlike fp32: its box arithmetic overflows or rounds in fp16."""
    del found
    if failure.error_type:
        return None
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        "non-maximum suppression's box arithmetic overflows or rounds in fp16: torchvision before early 2021 computed "
        "box areas (width × height) in the boxes' dtype, and pixel-sized areas pass fp16's largest value (65504), "
        "making IoUs inf or NaN; `batched_nms` still shifts each class's boxes by label × (largest coordinate + 1), "
        "past what fp16 holds exactly. Either way overlapping boxes are not suppressed",
        "boxes and scores in fp16 (`.half()`, a model run in fp16 or under autocast) handed to "
        "`torchvision.ops.nms`/`batched_nms` or a detector's postprocessing",
        "run NMS on float32 boxes and scores (`nms(boxes.float(), scores.float(), iou_threshold)`), and update "
        "torchvision (its fix for the area overflow is PR #3383)",
        op="torchvision.ops.nms", names=("f16",), confidence=Confidence.LOW,
    )


def _cosine_in_half(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``F.cosine_similarity`` said (not raised) to give 0, values above 1 or NaN on fp16 vectors: it multiplies the
    two squared norms in fp16, which overflows for vectors of norm past about 16 or underflows for tiny ones."""
    del found
    if failure.error_type or "f16" not in low_precision_said(failure) or not any(map(_WRONG_SIMILARITY.search,
                                                                                   failure.paste)):
        return None
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        "`cosine_similarity` on fp16 vectors multiplies their squared norms in fp16: past 65504 the product overflows "
        "to inf (the result comes out 0), and for tiny vectors the squares underflow so its eps clamp wins (the "
        "result can pass 1)",
        "fp16 embeddings or features (a model run in `.half()` or under autocast) compared with "
        "`F.cosine_similarity`/`nn.CosineSimilarity`, whose norms are far from 1",
        "compute it in fp32 (`F.cosine_similarity(a.float(), b.float())`), or normalise first and take the dot "
        "product (`F.normalize(a.float(), dim=-1) @ F.normalize(b.float(), dim=-1).T`)",
        op="F.cosine_similarity", names=("f16",), confidence=Confidence.LOW,
    )


_WRONG_SIMILARITY = re.compile(r"(?:larger|greater|bigger|more) than 1\b|>\s?1(?![\d.])|\b(?:outputs?|returns?|gives?|"
                               r"is|are) [`'\"]?(?:0|zeros?|nan|inf)\b|\b(?:wrong|incorrect|inconsistent)\b",
                               re.IGNORECASE)
"""A similarity said to come out wrong: above 1, 0, NaN or inf, or wrong in words."""


def _bounds(found: re.Match[str], failure: Failure) -> Explanation:
    """``random_``/``randint``'s ``to - 1 is out of bounds for short int``: a bound the tensor's dtype cannot hold."""
    said = found["t"]
    names = tuple(filter(None, [short_dtype("short" if said.startswith("short") else said)]))
    dtype = names[0] if names else "this dtype"
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"a random integer range (`randint`/`random_`) goes past what {dtype} holds",
        f"ids, labels or indices drawn into {a(dtype)} tensor (`dtype=torch.int16`, `torch.half`) with a bound such "
        "as a vocabulary size larger than its maximum (int16 holds up to 32767)",
        "draw them as int64 (the default for `randint`) and convert only if the values fit",
        op="randint", names=names,
    )


def _numpy_integer_bounds(found: re.Match[str], failure: Failure) -> Explanation:
    """NumPy 2's ``Python integer -1 out of bounds for uint8``: a Python int that the numpy integer type cannot hold,
    which NumPy 1 wrapped around silently and NumPy 2 refuses."""
    names, dtype = dtype_read(found, "t")
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"numpy refused to put the Python integer {found['value']} into {a(dtype)} value: it is outside {dtype}'s "
        "range; NumPy 1 wrapped such values around silently, NumPy 2 raises",
        "code written for NumPy 1 that relies on the wrap-around (old torchvision's `adjust_hue` adds a negative "
        "shift as `np.uint8(...)`), or a value computed past the type's range",
        "update the library whose line raised (torchvision fixed `adjust_hue` for NumPy 2), or pin `numpy<2` until "
        "it is; in your own code, compute in a wider type and wrap on purpose (`(x.astype(np.int16) + shift) % 256`)",
        op="numpy", names=names,
    )


_past_int64 = message_only(
    Kind.VALUE_OVERFLOW,
    "a Python integer past int64's range (2**63 or more) was given to torch, which stores integers as int64 "
    "(\"Overflow when unpacking long long\")",
    "unsigned 64-bit values (hashes such as xxhash64 or CityHash of feature ids, uint64 ids from numpy or pandas) "
    "passed as Python ints to `torch.tensor` or as an index",
    "bring them into int64's range first: reduce modulo the table size (`h % num_buckets`) before making the tensor, "
    "or reinterpret the bits as signed (`np.asarray(h, dtype=np.uint64).view(np.int64)`)",
    op="torch.tensor", names=("int64",),
)


RULES: tuple[Rule, ...] = (
    rule(r"Overflow when unpacking long(?: long)?\b", _past_int64),
    rule(r"Python integer (?P<value>-?\d{1,30}) out of bounds for (?P<t>u?int(?:8|16|32|64))\b", _numpy_integer_bounds),
    rule(r"value cannot be converted to type (?P<t>{DTYPE}) without overflow", _overflow),
    rule(r"RuntimeWarning: overflow encountered in (?P<op>\w{1,30})", _numpy_overflow),
    rule(r"\b(?:from|to)(?: - 1)? is out of bounds for (?P<t>short int|short|signed char|unsigned char|int|Half|"
         r"BFloat16|c10::Half|c10::BFloat16|float)\b", _bounds),
)

_WIDER = {"int8": "int32", "uint8": "int32", "int16": "int32", "int32": "int64"}


def _integer_overflow_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """An integer dtype said to overflow (``int32 overflow in embedding_bag's backward``, ``INT8 overflow on
    matmul``, ``scatter_max overflows with int``): its values went past its range and wrapped around."""
    name = short_dtype(next(filter(None, found.group("a", "b", "c", "d")), "int32").lower())
    if name not in _WIDER:
        return None
    wider = _WIDER[name]
    pixels = name == "uint8" and paste_search(failure, _PIXELS) is not None
    long = ", `.long()`" if wider == "int64" else ""
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"values held in {name} went past its range and wrapped around (integers do not saturate or raise): an "
        f"index, a count, a size or a product too large for {name}",
        f"{a(name)} tensor or accumulator: indices or offsets of a large table, element counts of a big volume, or an "
        "integer matmul whose result keeps its inputs' dtype",
        (f"compute on a float copy (`img.float()`, as pixel math should) or a wider integer ({wider})" if pixels else
         f"use a wider integer, {wider} (`.to(torch.{wider})`{long}), for that tensor or accumulator")
        + "; where a library or kernel picked the narrow one, update it or pass the wide one",
        op=f"{name} arithmetic", names=(name,) if pixels else (name, wider), confidence=Confidence.LOW,
    )


_PIXELS = re.compile(r"\b(?:images?|img|pixels?|photos?|pictures?|frames?|resiz\w{1,4})\b", re.IGNORECASE)
"""Words that make uint8 values image data, whose arithmetic belongs in float."""


INTEGER_SAID: tuple[Rule, ...] = (
    rule(r"(?<![\w.])`?(?P<a>u?int(?:8|16|32)|(?-i:INT(?:8|16|32)))`? overflow(?:s|ed|ing)?\b|\boverflow(?:s|ed)? "
         r"(?:with|in) `?(?P<b>u?int(?:8|16|32)?)`?(?![\w.])|(?<![\w.])(?P<c>u?int8)\b[^\n]{0,120}?[`'\"]"
         r"(?:over|under)flow(?:s|ed)?[`'\"]|\b(?:over/underflows?|(?:over|under)flows?) of `?(?P<d>u?int8)\b",
         _integer_overflow_said),
)
"""An integer dtype said to overflow, in prose: tried after the symptoms a report shows."""

SAID: tuple[Rule, ...] = (
    rule(r"\b(?:masked_fill\w{0,2}|mask(?:ing|ed)?|fill(?:ing|ed)?)\b[^\n]{0,60}?" + _PAST_FP16, _mask_constant_said),
    rule(r"\b(?:batched_)?nms\b[^\n]{0,80}?\b(?:fp16|float16|half)\b|\b(?:fp16|float16|half)\b[^\n]{0,80}?"
         r"\b(?:batched_)?nms\b", _nms_in_half),
    rule(r"\bcosine_similarity\b|\bCosineSimilarity\b", _cosine_in_half),
)
"""A mask constant past fp16's range, or NMS or cosine similarity said to misbehave on fp16 data, in prose: tried only
when no rule recognised any line."""
