"""A recognised error: a pattern over one error line and what builds its explanation.

Patterns are tolerant of the ways a message reaches us: any case, the comma or colon dropped
(``but got: float != c10::BFloat16`` retyped as ``but got float != c10::BFloat16``), any of torch's
dtype spellings (``DTYPE`` below). A builder may decline (return None) when the line matched but
the error is not one castwise can explain.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from castwise.explainer.advice import odd_tensors_fix
from castwise.explainer.clues import (
    library_calling,
    library_linked,
    module_called,
    tied_parameter,
    torchscript_shown,
    version_in_title,
)
from castwise.explainer.explanation import Confidence, Explanation, Facts, Family, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.held_model import odd_in
from castwise.explainer.spelling import is_fp8, short_dtype

DTYPE = r"(?:struct\s+|class\s+)?(?:(?:c\s*10|at)\s*::\s*)?[A-Za-z0-9_.]{1,60}(?:<(?:c10::)?\w{1,12}>|\s(?:int|char))?"
"""One dtype as torch spells it in a message (``Float``, ``c10::Half``, ``long int``, ``torch.cuda.HalfTensor``,
``c10::complex<double>``); ASCII only, so a dtype run into the prose of another script (``BFloat16的报错``) is still
read."""

_WRAPPING = " `*"
"""Markup people wrap a pasted error line in (code spans, bold, quotes), taken off the message shown."""

TORCHSCRIPT_BAKED = (
    "in a TorchScript module (traced, frozen or loaded), what the trace or the freeze fixed keeps its dtype (a "
    "`dtype=` the trace recorded, the constants `torch.jit.freeze` folded the weights into, tensors kept as plain "
    "attributes rather than registered buffers) and `.half()`/`.to()` do not convert it: convert the eager model first "
    "(register such tensors as buffers), then trace or freeze it again with inputs of the new dtype"
)

Build = Callable[[re.Match[str], Failure], "Explanation | None"]


@dataclass(frozen=True)
class Rule:
    """An error line pattern (searched case-insensitively) and the builder of its explanation."""

    pattern: re.Pattern[str]
    build: Build


def rule(pattern: str, build: Build) -> Rule:
    """A rule from a pattern (``{DTYPE}`` stands for one dtype spelling) and a builder."""
    return Rule(re.compile(pattern.replace("{DTYPE}", DTYPE), re.IGNORECASE), build)


def message_only(
    kind: Kind, cause: str, culprit: str, fix: str, *, op: str, names: tuple[str, ...] = (), device: str | None = None,
    confidence: Confidence = Confidence.HIGH,
) -> Build:
    """A builder for a message that carries nothing more to read: the same explanation every time."""

    def build(found: re.Match[str], failure: Failure) -> Explanation:
        del found
        return explained(kind, failure, cause, culprit, fix, op=op, names=names, device=device, confidence=confidence)

    return build


def dtypes(found: re.Match[str], *groups: str) -> tuple[str, ...]:
    """The short names of the dtypes the named groups hold (groups absent or empty are skipped)."""
    held = found.groupdict()
    names = (short_dtype(held[group]) for group in groups if held.get(group))
    return tuple(name for name in names if name is not None)


_LAST_WORD = re.compile(r"([\w.:]{1,40})\s*$")


def word_before(found: re.Match[str]) -> str:
    """The word right before the match (``torch.bfloat16`` in ``torch.bfloat16 is not supported``): a pattern that
    starts at its literal words is far cheaper to search for than one that starts with a dtype alternation."""
    before = _LAST_WORD.search(found.string[max(0, found.start() - 41):found.start()])
    return before.group(1) if before else ""


def dtype_read(found: re.Match[str], group: str) -> tuple[tuple[str, ...], str]:
    """The short name of the dtype in ``group`` (as ``dtypes`` gives it) and how to show it: that name, else the word
    as the message printed it."""
    names = dtypes(found, group)
    return names, names[0] if names else found[group]


def _held_model_told(failure: Failure, names: tuple[str, ...], culprit: str, fix: str) -> tuple[str, str]:
    """The culprit and fix with what a live exception's model shows about floating dtypes ``names``: a parameter tied
    under two names in the odd dtype, else the few tensors in it (not fp8 ones: converting those loses their scale)."""
    tied = tied_parameter(failure, names)
    if tied:
        return (f"`{tied[0]}` and `{tied[1]}` are one tied parameter, {tied[2]} while the rest of the model is not: "
                f"converting either module converted both (an lm_head tied to the input embeddings is the usual "
                f"case); convert the whole model, or untie them first; {culprit}"), fix
    if any(is_fp8(name) for name in names):
        return culprit, fix
    odd = odd_in(failure.model, names)
    return (culprit, f"{odd_tensors_fix(odd, failure.model.usual)}; {fix}") if odd else (culprit, fix)


def explained(
    kind: Kind, failure: Failure, cause: str, culprit: str, fix: str, *, op: str | None = None,
    names: tuple[str, ...] = (), device: str | None = None, confidence: Confidence = Confidence.HIGH,
) -> Explanation:
    """An explanation of ``failure``, with the module its traceback shows calling the op; when an installed library's
    code made the call, the fix also says to update it, and when two floating dtypes met inside a TorchScript module,
    what its graph fixed at trace or freeze time."""
    facts = Facts(confidence, op, names, device, module_called(failure))
    if kind.family is Family.MIXED_FLOAT:
        fix = f"{fix}; {TORCHSCRIPT_BAKED}" if torchscript_shown(failure) else fix
        culprit, fix = _held_model_told(failure, names, culprit, fix)
    library = library_calling(failure)
    linked = None if library else library_linked(failure)
    if library:
        fix = (f"{fix}; the failing call is made by {library}'s own code: if the dtypes it gets do not come from your "
               f"settings, update {library} (such bugs get fixed there)")
    elif linked:
        fix = (f"{fix}; the report points at a line of {linked}'s own source: if the dtypes it gets there do not come "
               f"from your settings, update {linked} (such bugs get fixed there)")
    release = version_in_title(failure)
    if release and release[0].lower() != (library or "").lower():
        fix = (f"{fix}; the report ties the failure to {release[0]} {release[1]}: try another release of "
               f"{release[0]} (update it, or the one before) to see whether that release brought it")
    return Explanation(kind, failure.message.strip(_WRAPPING), cause, culprit, fix, facts)
