"""``explain``: find the error in a paste or an exception chain and explain it, or say nothing.

Every error found (the paste's ``...Error:`` lines from the last, then its other lines; a live
exception's chain from the innermost) is tried against every family's rules; the first explanation
wins. Nothing recognised is None: a confident wrong fix is worse than none.
"""

from __future__ import annotations

from castwise.explainer.explanation import Explanation
from castwise.explainer.failures import from_exception, from_text
from castwise.explainer.families import RULES


def explain(error: BaseException | str) -> Explanation | None:
    """The cause, likely culprit and fix of a dtype/precision error torch raised (a live exception or pasted
    text: a traceback, a log, a bare message); None when it is not one castwise recognises."""
    failures = from_exception(error) if isinstance(error, BaseException) else from_text(error)
    for failure in failures:
        for rule in RULES:
            explanation = rule.explain(failure)
            if explanation is not None:
                return explanation
    return None
