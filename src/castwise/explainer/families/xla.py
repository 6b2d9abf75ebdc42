"""XLA's wording of two floating dtypes in one op, read from the HLO instruction it prints.

torch_xla compiles a graph and refuses mixed precision inside one HLO op: ``Seen floating point
types of different precisions in %add.57 = f32[2,340]{1,0} add(f32[...] %dot.52, bf16[...]
%broadcast.56), but mixed precision is disallowed``. The instruction names the op (``add``,
``dot``, ``convolution``, ``batch-norm-training``) and every operand's dtype in XLA's own short
names (``bf16``, ``f32``), which castwise reads like any other spelling; the op decides the kind,
as the frames do for torch's generic ``expected scalar type``.
"""

from __future__ import annotations

import re

from castwise.explainer.advice import dtype_list
from castwise.explainer.clues import low_precision_said
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families.mixed import mixed_float, norm_param
from castwise.explainer.rules import Rule, explained, rule
from castwise.explainer.spelling import short_dtype, short_dtypes

_OPERAND = re.compile(r"\b(bf16|f16|f32|f64)\[")
_KINDS = ((re.compile(r"dot"), Kind.MATMUL), (re.compile(r"convolution"), Kind.CONV_WEIGHT))


def _mixed_in_hlo(found: re.Match[str], failure: Failure) -> Explanation:
    op = found["op"]
    names = short_dtypes(_OPERAND.findall(found["hlo"]))
    if "norm" in op:
        return norm_param(failure, names, op.replace("-", "_"))
    kind = next((kind for pattern, kind in _KINDS if pattern.search(op)), Kind.OP_DTYPE)
    return mixed_float(
        kind, failure, names, f"XLA op `{op}`",
        f"XLA's `{op}` got {dtype_list(names) if names else 'two floating dtypes'}; XLA refuses mixed precision "
        "inside one op (under XLA autocast or `XLA_USE_BF16`, an operand that was not converted)",
    )


_XLA_TYPES = {"10": "f16", "12": "f64", "16": "bf16"}
"""XLA's PrimitiveType numbers (``Unsupported XLA type 10``) for the floating dtypes a TPU may lack."""


def _unsupported_cast(found: re.Match[str], failure: Failure) -> Explanation | None:
    """torch_xla lowering a cast to a dtype the device has no type for (``Unsupported XLA type 10``, ``xla::cast ...
    stype=Half``): TPUs compute in bf16 and f32, not fp16 or f64."""
    name = _XLA_TYPES.get(found["number"] or "") or short_dtype(found["stype"] or "")
    if name not in ("f16", "f64"):
        return None
    instead = "bf16 (`torch.bfloat16`)" if name == "f16" else "f32"
    return explained(
        Kind.NO_KERNEL, failure,
        f"torch_xla could not lower a cast to {name}: TPUs compute in bf16 and f32, and XLA has no {name} type there",
        f"a model, an autocast region or code run on a TPU that casts to {name} (`.half()`, `precision=16` or "
        f"'16-mixed' in Lightning, CUDA-style fp16 AMP, a dtype hard-coded for GPUs)",
        f"use {instead} on the TPU: Lightning's `precision='bf16-mixed'` (or 'bf16-true'), "
        "`torch.autocast('xla', dtype=torch.bfloat16)`, and no fp16 casts in code meant for TPUs",
        op="an XLA cast", names=(name,), device="xla",
    )


def _mixed_unshown(found: re.Match[str], failure: Failure) -> Explanation:
    """XLA's mixed-precision refusal with its HLO instruction left out (``... different precisions (...) but mixed
    precision is disallowed``): some op of the graph got two floating dtypes, which ones unknown."""
    del found
    return mixed_float(
        Kind.OP_DTYPE, failure, low_precision_said(failure)[:1], "an XLA op",
        "an XLA op got two floating dtypes (the paste leaves out the instruction that says which op and which dtypes); "
        "XLA refuses mixed precision inside one op (under XLA autocast or `XLA_USE_BF16`, an operand that was not "
        "converted)",
        confidence=Confidence.LOW,
    )


RULES: tuple[Rule, ...] = (
    rule(r"Unsupported XLA type (?P<number>\d{1,2})\b|xla::cast,[^\n]{0,60}?\bstype=(?P<stype>Half|Double)\b",
         _unsupported_cast),
    rule(r"Seen floating point types of different precisions in %(?P<op>[a-z][\w-]{0,40}?)(?:\.\d+)?\s*="
         r"(?P<hlo>[^\n]{0,600})", _mixed_in_hlo),
    rule(r"Seen floating point types of different precisions(?! in %)[^\n]{0,200}?\bmixed precision is disallowed",
         _mixed_unshown),
)
