"""``explain``: find the error in a paste or an exception chain and explain it, or say nothing.

Every error found (the paste's ``...Error:`` lines from the last, then its other lines; a live
exception's chain from the innermost) is tried against every family's rules; the first explanation
wins. Only when no rule recognised any of them are the fallback shapes tried (low confidence: a
wording no rule knows), each over every line, in their order of priority. A paste whose error lines
hold dtype errors of several kinds (a report of several attempts, each failing its own way) is
answered for the earliest, with low confidence; error lines of the same kind add their dtypes. An
error quoted inside a report's prose (``"TypeError: ..."``) is answered with low confidence: it may be
cited rather than raised. Nothing recognised is None: a confident wrong fix is worse than none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from itertools import islice
from textwrap import shorten

from castwise.explainer.explanation import Explanation, Family, Kind
from castwise.explainer.failures import Failure, from_exception, from_lines
from castwise.explainer.families import FALLBACKS, RULES
from castwise.explainer.logtext import MAX_CHARS, clean_lines
from castwise.explainer.rules import Rule

MAX_OTHER_ERRORS = 16
"""Error lines of a paste compared with the one explained (a long log's repeated errors are not all read)."""


def explain(error: BaseException | str) -> Explanation | None:
    """The cause, likely culprit and fix of a dtype/precision error torch raised (a live exception or pasted
    text: a traceback, a log, a bare message); None when it is not one castwise recognises."""
    if isinstance(error, BaseException):
        chain = tuple(from_exception(error))
        return _explained(_first(RULES, chain) or _by_priority(FALLBACKS, chain))
    lines = tuple(clean_lines(error))
    found = _first(RULES, from_lines(lines))
    if found is None:
        return _explained(_by_priority(FALLBACKS, from_lines(lines)))
    if found[0].frames_from_code_below:
        found = _without_code_below(*found)
    if _QUOTED.match(found[0].message):
        found = found[0], found[1].less_sure("the paste quotes this error inside its prose, where it may be cited "
                                             "rather than raised")
    if not found[0].error_type and _logged_as_warning(error, found[0].message):
        found = found[0], found[1].less_sure("the paste logs this error at warning level: the run went on past it, so "
                                             "it may not be the failure the report is about")
    return _weighed(*found, lines)


_QUOTED = re.compile(r"""^[`\s]*["“][^"“”]{8,}["”][`\s.,;:]*$""")
"""A whole error message inside quotation marks: a report's prose citing it (possibly as another case)."""


_WARNING_LEVEL = re.compile(r"^\s*(?:WARN(?:ING)?\b|W\d{4} \d|\[W[ \d])")
"""A log record at warning level: Python's logging (``WARNING:root:``), glog (``W0802 16:58:50``), torch's C++
warnings (``[W socket.cpp:663]``)."""


def _logged_as_warning(text: str, message: str) -> bool:
    """Whether the paste line that holds ``message`` (an error with no exception type) is a warning-level log record:
    something caught and logged, after which the run went on."""
    start = message[:80]
    return any(_WARNING_LEVEL.match(line) for line in text[-MAX_CHARS:].splitlines() if start in line)


def _without_code_below(failure: Failure, found: Explanation) -> tuple[Failure, Explanation]:
    """``found``, said with low confidence when reading the error without the code pasted below it gives another
    kind: that code is what the report lists, which may not be what raised."""
    bare = replace(failure, code_below=False)
    plain = _first(RULES, (bare,))
    if plain is not None and plain[1].kind is found.kind:
        return failure, found
    return failure, found.less_sure("its op was read from code pasted below the error, which may not be the code "
                                    "that raised it")


def _weighed(failure: Failure, found: Explanation, lines: tuple[str, ...]) -> Explanation:
    """``found``, with the dtypes the paste's other error lines of the same kind name; unless another of them is a
    dtype error of another kind (a copy of the same error cut short, as a title, is not another): then the earliest
    of them (what the report is about; the later ones are what its attempts at a fix ran into), with low confidence
    and the other named, since which one matters cannot be told from the text."""
    errors = islice((other for other in from_lines(lines) if other.error_type), MAX_OTHER_ERRORS)
    reads = [read for read in (_first(RULES, (other,)) for other in errors if not _same_error(other, failure)) if read]
    more = tuple(dict.fromkeys(name for _, read in reads if read.kind is found.kind for name in read.dtypes
                               if name not in found.dtypes))
    if more:
        found = found.also_naming(more)
    others = [read for read in reads if read[1].kind is not found.kind]
    if not others:
        return _title_weighed(failure, found, lines)
    (_, answer), (second, other) = sorted([(failure, found), min(others, key=_line)], key=_line)
    return answer.less_sure(f"the paste also holds another dtype error ({other.kind.value}: "
                            f"`{shorten(second.message, 120)}`), which needs its own fix")


def _title_weighed(failure: Failure, found: Explanation, lines: tuple[str, ...]) -> Explanation:
    """``found``, with low confidence when the report's title (its first line, above the error) says the loss went
    NaN, inf or zero and the error is no loss-scaling or overflow one: the title is what the report is about, and an
    error further down may be what an attempt at a fix ran into."""
    if failure.line == 0 or found.kind.family in _NONFINITE_ALIKE or not _LOSS.search(lines[0]):
        return found
    title = _by_priority(FALLBACKS, (Failure("", lines[0], paste=lines, line=0),))
    if title is None or title[1].kind is not Kind.NONFINITE:
        return found
    return found.less_sure(f"the report's title says something else (`{shorten(lines[0], 120)}`): the error read "
                           "here may be what an attempt at a fix ran into")


_NONFINITE_ALIKE = (Family.NONFINITE, Family.OVERFLOW, Family.GRADIENT)
_LOSS = re.compile(r"(?<![A-Za-z])loss(?:es)?(?![A-Za-z])|损失", re.IGNORECASE)


def _same_error(other: Failure, failure: Failure) -> bool:
    """Whether ``other`` is the explained error itself, or a copy of it cut short (a title that stops mid-message)."""
    return other.line == failure.line or failure.message.startswith(other.message)


def _line(pair: tuple[Failure, Explanation]) -> int:
    return pair[0].line


def _explained(found: tuple[Failure, Explanation] | None) -> Explanation | None:
    return None if found is None else found[1]


def _by_priority(rules: tuple[Rule, ...], failures: Iterable[Failure]) -> tuple[Failure, Explanation] | None:
    """The first of ``rules``, in their order, that explains any of ``failures``, with that explanation."""
    failures = tuple(failures)
    for rule in rules:
        search = rule.pattern.search
        for failure in failures:
            found = search(failure.message)
            explanation = None if found is None else rule.build(found, failure)
            if explanation is not None:
                return failure, explanation
    return None


def _first(rules: tuple[Rule, ...], failures: Iterable[Failure]) -> tuple[Failure, Explanation] | None:
    """The first failure that any of ``rules`` explains, with its explanation (each rule's pattern searched directly:
    most lines match none, and this loop is most of what a long paste costs)."""
    searches = tuple((rule.pattern.search, rule.build) for rule in rules)
    for failure in failures:
        message = failure.message
        for search, build in searches:
            found = search(message)
            explanation = None if found is None else build(found, failure)
            if explanation is not None:
                return failure, explanation
    return None
