"""How ``cw.explain`` does on real reports: counts by grade, pasted and live, from the test corpus.

Reads ``tests/explain/corpus`` (real reports as pasted, each with what its thread found: the set
collected while the reader was written, and a held-out set collected after its rules were frozen,
with the grades it got then) and the live cases of ``tests/explain/live_cases.py`` (errors torch
raises on this CPU), grades every explanation the way the tests do, and prints the counts:
correct / partly / wrong (and how many of those were confident) / not recognised. With
``--baseline REV`` it also reads the pasted reports and the live errors with the first-line
catalogue castwise had at git revision REV (``doctor/catalogue.py``) and counts what it
recognised with the right kind, side by side.

    .venv/bin/python benchmarks/explain_corpus.py
    .venv/bin/python benchmarks/explain_corpus.py --baseline 52f46d9
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path

import castwise as cw
from common import machine

ROOT = Path(__file__).resolve().parents[1]
OLD_CATALOGUE = "src/castwise/doctor/catalogue.py"
OLD_KINDS = {"index_dtype": "indexed_write_dtype"}
"""Kinds the old catalogue named differently (the rest kept their names)."""
_ROWS = ("all", "graded against the thread", "graded against the message", "when collected (rules frozen)")
_ORDER = [f"{corpus}, {which}" for corpus in ("pasted", "held_out") for which in _ROWS] + ["live (torch 2.13 CPU)"]


def _tests() -> types.ModuleType:
    sys.path.insert(0, str(ROOT))
    return importlib.import_module("tests.explain.test_corpus")


def _counts(graded: list[tuple[str, bool]]) -> str:
    grades = Counter(grade for grade, _ in graded)
    confident = sum(confident for grade, confident in graded if grade == "wrong")
    total = len(graded)
    return (f"{total:4d} | {grades['correct']:3d} ({grades['correct'] / total:.0%}) | {grades['partly']:3d} | "
            f"{grades['wrong']:3d} ({confident} confident) | {grades['not_recognised']:3d}")


def _old_catalogue(revision: str) -> types.ModuleType:
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:{OLD_CATALOGUE}"],
                            check=True, capture_output=True, text=True).stdout
    module = sys.modules["old_catalogue"] = types.ModuleType("old_catalogue")
    exec(compile(source, f"{revision}:{OLD_CATALOGUE}", "exec"), module.__dict__)  # our own history, not a download
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", help="also read the pasted reports with REV's catalogue")
    baseline = parser.parse_args().baseline
    tests = _tests()
    grading = tests.grade, tests.confidently_wrong
    print(f"{machine()}; castwise from {Path(cw.__file__).parent}")
    rows: dict[str, list[tuple[str, bool]]] = {}
    for corpus in ("pasted", "held_out"):
        for case in tests.pasted_cases(corpus):
            explanation = cw.explain(case.text)
            entry = (grading[0](case.expect, explanation), grading[1](case.expect, explanation))
            rows.setdefault(f"{corpus}, all", []).append(entry)
            rows.setdefault(f"{corpus}, graded against the {case.graded_against}", []).append(entry)
            if corpus == "held_out":
                rows.setdefault("held_out, when collected (rules frozen)", []).append((case.grade_at_freeze, False))
    for case in tests.LIVE.values():
        explanation = cw.explain(tests.raised(case.action))
        rows.setdefault("live (torch 2.13 CPU)", []).append((grading[0](case.expect, explanation),
                                                            grading[1](case.expect, explanation)))
    print("\n| set | cases | correct | partly | wrong | not recognised |\n|---|---:|---:|---:|---:|---:|")
    for name in sorted(rows, key=_ORDER.index):
        print(f"| {name} | " + " | ".join(part.strip() for part in _counts(rows[name]).split("|")) + " |")
    if baseline:
        print()
        old = _old_catalogue(baseline)
        pasted = [(old.explain(case.text), case.expect.kind) for case in tests.pasted_cases()]
        live = [(old.explain(tests.raised(case.action)), case.expect.kind) for case in tests.LIVE.values()]
        for name, found in (("pasted reports", pasted), ("live errors", live)):
            recognised = sum(explanation is not None for explanation, _ in found)
            right = sum(explanation is not None and OLD_KINDS.get(explanation.kind, explanation.kind) == kind
                        for explanation, kind in found)
            print(f"baseline {baseline} (first-line catalogue), {len(found)} {name}: {recognised} recognised, "
                  f"{right} with the right kind ({right / len(found):.0%})")

if __name__ == "__main__":
    main()
