"""numpy has no bfloat16 and no float8: ``.numpy()`` on such a tensor raises a TypeError."""

from __future__ import annotations

import re

from castwise.explainer.advice import a
from castwise.explainer.explanation import Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtypes, explained, rule


def _unsupported(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a")
    dtype = names[0] if names else found["a"]
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"numpy has no {dtype} dtype, so {a(dtype)} tensor cannot become a numpy array",
        f"`.numpy()` / `np.asarray(tensor)` on a tensor of {a(dtype)} model (an output, a loss or a metric logged as "
        "it is), or a checkpoint converter reading bf16 weights through numpy",
        "convert first: `x.float().numpy()` (or `x.to(torch.float32)`; `x.item()` for one number); to keep the exact "
        "bits, `x.view(torch.int16).numpy()` for bf16",
        op="numpy conversion", names=names,
    )


RULES: tuple[Rule, ...] = (
    rule(r"Got unsupported ScalarType (?P<a>\w+)", _unsupported),
)
