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
from castwise.explainer.explanation import Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families.mixed import mixed_float, norm_param
from castwise.explainer.rules import Rule, rule
from castwise.explainer.spelling import short_dtype

_OPERAND = re.compile(r"\b(bf16|f16|f32|f64)\[")
_KINDS = ((re.compile(r"dot"), Kind.MATMUL), (re.compile(r"convolution"), Kind.CONV_WEIGHT))


def _mixed_in_hlo(found: re.Match[str], failure: Failure) -> Explanation:
    op = found["op"]
    names = tuple(dict.fromkeys(name for name in map(short_dtype, _OPERAND.findall(found["hlo"])) if name))
    if "norm" in op:
        return norm_param(failure, names, op.replace("-", "_"))
    kind = next((kind for pattern, kind in _KINDS if pattern.search(op)), Kind.OP_DTYPE)
    return mixed_float(
        kind, failure, names, f"XLA op `{op}`",
        f"XLA's `{op}` got {dtype_list(names) if names else 'two floating dtypes'}; XLA refuses mixed precision "
        "inside one op (under XLA autocast or `XLA_USE_BF16`, an operand that was not converted)",
    )


RULES: tuple[Rule, ...] = (
    rule(r"Seen floating point types of different precisions in %(?P<op>[a-z][\w-]{0,40}?)(?:\.\d+)?\s*="
         r"(?P<hlo>[^\n]{0,600})", _mixed_in_hlo),
)
