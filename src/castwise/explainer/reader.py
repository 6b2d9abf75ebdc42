"""``explain``: find the error in a paste or an exception chain and explain it, or say nothing.

Every error found (the paste's ``...Error:`` lines from the last, then its other lines; a live
exception's chain from the innermost) is tried against every family's rules; the first explanation
wins. Only when no rule recognised any of them are the fallback shapes tried (low confidence: a
wording no rule knows). A paste whose other error lines hold a dtype error of another kind (a report
of several attempts, each failing its own way) is answered for its last error with low confidence.
Nothing recognised is None: a confident wrong fix is worse than none.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from textwrap import shorten

from castwise.explainer.explanation import Explanation
from castwise.explainer.failures import Failure, from_exception, from_lines
from castwise.explainer.families import FALLBACKS, RULES
from castwise.explainer.logtext import clean_lines
from castwise.explainer.rules import Rule, screen

MAX_OTHER_ERRORS = 16
"""Error lines of a paste compared with the one explained (a long log's repeated errors are not all read)."""


def explain(error: BaseException | str) -> Explanation | None:
    """The cause, likely culprit and fix of a dtype/precision error torch raised (a live exception or pasted
    text: a traceback, a log, a bare message); None when it is not one castwise recognises."""
    if isinstance(error, BaseException):
        chain = tuple(from_exception(error))
        return _first(RULES, chain) or _first(FALLBACKS, chain)
    lines = tuple(clean_lines(error))
    found = _first(RULES, from_lines(lines))
    if found is None:
        return _first(FALLBACKS, from_lines(lines))
    return _weighed(found, lines)


def _weighed(found: Explanation, lines: tuple[str, ...]) -> Explanation:
    """``found``, with low confidence when another of the paste's first error lines is a dtype error of
    another kind: which one the report is about cannot be told from the text."""
    errors = islice((failure for failure in from_lines(lines) if failure.error_type), MAX_OTHER_ERRORS)
    for failure in errors:
        other = _first(RULES, (failure,))
        if other is not None and other.kind is not found.kind:
            return found.less_sure(f"the paste also holds another dtype error ({other.kind.value}: "
                                   f"`{shorten(failure.message, 120)}`), which needs its own fix")
    return found


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
