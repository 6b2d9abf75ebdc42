"""Grading an explanation against what a real thread found (or what torch really raised).

correct: the kind matches and the cause/fix say what the case expects (its dtypes read right);
partly: the kind matches but something the thread found is missing; wrong: another kind (a
confident wrong fix when its confidence is high); not_recognised: no explanation. The corpus
records the grade each case is expected to get, so a regression changes a grade and fails.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from castwise.explainer import Confidence, Explanation

CORPUS = Path(__file__).parent / "corpus"
GRADES = ("correct", "partly", "wrong", "not_recognised")


@dataclass(frozen=True)
class Expect:
    """What a right explanation of one case holds: its kind, dtypes, and words of its cause and fix."""

    kind: str
    dtypes: tuple[str, ...] = ()
    cause: tuple[str, ...] = ()
    fix: tuple[str, ...] = ()
    culprit: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Expect:
        return cls(data["kind"], tuple(data["dtypes"]), tuple(data["cause"]), tuple(data["fix"]),
                   tuple(data.get("culprit", ())))


@dataclass(frozen=True)
class PastedCase:
    """A real report: where it is from, the text as pasted, what the thread found, the expected grade."""

    id: str
    source: dict[str, Any]
    finding: str
    graded_against: str
    expect: Expect
    grade: str
    why: str = ""
    grade_at_freeze: str = ""
    in_view: str = ""
    text: str = field(default="", repr=False)


def pasted_cases(corpus: str = "pasted") -> list[PastedCase]:
    """Pasted reports: ``pasted`` (collected while the reader was written) or ``held_out`` to ``held_out_426`` (each
    collected after the rules were frozen, graded then as ``grade_at_freeze``);
    ``corpus/NAME.json`` and the texts in ``corpus/NAME/``."""
    cases = []
    for data in json.loads((CORPUS / f"{corpus}.json").read_text(encoding="utf-8")):
        text = (CORPUS / corpus / f"{data['id']}.txt").read_text(encoding="utf-8")
        expect = Expect.from_json(data.pop("expect"))
        cases.append(PastedCase(**data, expect=expect, text=text))
    return cases


def grade(expect: Expect, explanation: Explanation | None) -> str:
    """The grade of ``explanation`` against ``expect`` (one of ``GRADES``)."""
    if explanation is None:
        return "not_recognised"
    if explanation.kind != expect.kind:
        return "wrong"
    said = {"cause": explanation.cause, "fix": explanation.fix, "culprit": explanation.culprit}
    complete = all(name in explanation.dtypes for name in expect.dtypes) and all(
        _says(said[part], word) for part in said for word in getattr(expect, part)
    )
    return "correct" if complete else "partly"


def _says(text: str, word: str) -> bool:
    """Whether ``text`` holds ``word`` at the start of a word, in any case (``amp`` is not in ``clamp``, ``float16`` not
    in ``bfloat16``); a word that starts with punctuation (``.long()``) may follow anything."""
    start = r"(?<![a-z0-9])" if word[:1].isalnum() else ""
    return re.search(start + re.escape(word.lower()), text.lower()) is not None


def confidently_wrong(expect: Expect, explanation: Explanation | None) -> bool:
    """A wrong kind given with high confidence: the outcome the corpus must never show."""
    return grade(expect, explanation) == "wrong" and explanation is not None and (
        explanation.confidence is Confidence.HIGH
    )
