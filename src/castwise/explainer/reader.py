"""``explain``: find the error in a paste or an exception chain and explain it, or say nothing.

Every error found (the paste's ``...Error:`` lines from the last, then its other lines; a live
exception's chain from the innermost) is tried against every family's rules; the first explanation
wins. Only when no rule recognised any of them are the fallback shapes tried (low confidence: a
wording no rule knows). Nothing recognised is None: a confident wrong fix is worse than none.
"""

from __future__ import annotations

from collections.abc import Iterable

from castwise.explainer.explanation import Explanation
from castwise.explainer.failures import Failure, from_exception, from_lines
from castwise.explainer.families import FALLBACKS, RULES
from castwise.explainer.logtext import clean_lines
from castwise.explainer.rules import Rule, screen


def explain(error: BaseException | str) -> Explanation | None:
    """The cause, likely culprit and fix of a dtype/precision error torch raised (a live exception or pasted
    text: a traceback, a log, a bare message); None when it is not one castwise recognises."""
    if isinstance(error, BaseException):
        chain = tuple(from_exception(error))
        return _first(RULES, chain) or _first(FALLBACKS, chain)
    lines = tuple(clean_lines(error))
    return _first(RULES, from_lines(lines)) or _first(FALLBACKS, from_lines(lines))


def _first(rules: tuple[Rule, ...], failures: Iterable[Failure]) -> Explanation | None:
    """The explanation the first failure that any of ``rules`` explains gets."""
    any_rule = screen(rules)
    for failure in failures:
        if not any_rule.search(failure.message):
            continue
        for rule in rules:
            explanation = rule.explain(failure)
            if explanation is not None:
                return explanation
    return None
