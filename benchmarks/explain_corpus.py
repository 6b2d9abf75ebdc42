"""How ``cw.explain`` does on real reports: counts by grade for every corpus set, pasted and live.

Reads ``tests/explain/corpus`` (real reports as pasted, each with what its thread found: ``pasted``,
collected while the reader was written, and the held-out sets ``held_out``, ``held_out_2``, ...,
each collected after the rules were frozen and graded then, kept as ``grade_at_freeze``) and the
live cases of ``tests/explain/live_cases.py`` (errors torch raises on this CPU) with the held-out
live sets ``tests/explain/live_held_out_*.py`` (defects planted by helpers who never read the rules, graded when
written, kept as ``grade_at_freeze``; each live error also as the whole traceback Python prints, read as a paste),
grades every
explanation the way the tests do, and prints the counts: correct / partly / wrong (and how many of
those were confident) / not recognised, each held-out set beside its frozen-rules measurement, and the
frozen measurements by what of the failure each text shows (its error line, a symptom, or neither).

With ``--reader REV`` it also grades every set with the reader castwise had at git revision REV
(its ``src/`` taken with ``git archive``, run in a subprocess), side by side: on a set collected
after both revisions, that is a clean comparison on reports neither reader was written against.
With ``--baseline REV`` it reads the pasted reports and the live errors with the first-line
catalogue castwise had at REV (``doctor/catalogue.py``) and counts what it recognised with the
right kind. With ``--cost`` it times the worst case instead, a 1 MB paste no rule recognises (every line is
tried): best of three, with short lines and with long ones, for this reader and for ``--reader REV``'s.

    .venv/bin/python benchmarks/explain_corpus.py
    .venv/bin/python benchmarks/explain_corpus.py --reader c631d54
    .venv/bin/python benchmarks/explain_corpus.py --baseline 52f46d9
    .venv/bin/python benchmarks/explain_corpus.py --cost --reader 9a09e9a
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
import types
from collections import Counter
from pathlib import Path

import castwise as cw
from common import machine

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "explain" / "corpus"
OLD_CATALOGUE = "src/castwise/doctor/catalogue.py"
OLD_KINDS = {"index_dtype": "indexed_write_dtype"}
"""Kinds the old catalogue named differently (the rest kept their names)."""
LIVE_WHERE = "torch 2.13 CPU"
LIVE = f"live ({LIVE_WHERE})"

TAGGED_AFTER = CORPUS / "in_view_tagged_after.json"
"""What of the failure each report of held_out_12 to held_out_34 shows, tagged after grading by a helper that read
only the texts (later sets write ``in_view`` with their expectations, before castwise runs)."""

Graded = list[tuple[str, bool]]
"""(grade, whether a wrong grade was given with high confidence) for each case of a row."""


def _tests() -> types.ModuleType:
    sys.path.insert(0, str(ROOT))
    return importlib.import_module("tests.explain.test_corpus")


def _sets() -> list[str]:
    """The corpus sets, ``pasted`` first, then the held-out sets in the order they were collected."""
    names = sorted(path.stem for path in CORPUS.glob("*.json") if path != TAGGED_AFTER)
    return sorted(names, key=lambda name: (name != "pasted", len(name), name))


def _graded_rows(tests: types.ModuleType) -> dict[str, Graded]:
    """Every row of the table as graded now: each set whole and by what it was graded against, then live."""
    rows: dict[str, Graded] = {}
    for corpus in _sets():
        for case in tests.pasted_cases(corpus):
            explanation = cw.explain(case.text)
            entry = (tests.grade(case.expect, explanation), tests.confidently_wrong(case.expect, explanation))
            rows.setdefault(f"{corpus}, all", []).append(entry)
            rows.setdefault(f"{corpus}, graded against the {case.graded_against}", []).append(entry)
    live_sets = {LIVE: tests.LIVE, **{f"{name} ({LIVE_WHERE})": tests.live_held_out(name)
                                      for name in tests.LIVE_HELD_OUT}}
    for row, cases in live_sets.items():
        for case in cases.values():
            error = tests.raised(case.action)
            for name, read in ((row, error), (f"{row}, as its pasted traceback", _pasted(error))):
                explanation = _explained(read)
                rows.setdefault(name, []).append((tests.grade(case.expect, explanation),
                                                  tests.confidently_wrong(case.expect, explanation)))
    return rows


def _explained(read: BaseException | str) -> cw.Explanation | None:
    """``cw.explain(read)``, or None when the reader raised instead of answering: a reader that crashes has explained
    nothing (the reader at ab1286f recursed without end on an error raised inside a half-built pandas DataFrame)."""
    try:
        return cw.explain(read)
    except Exception:  # noqa: BLE001 - any crash of the reader under test is its answer, counted as not recognised
        return None


def _pasted(error: BaseException) -> str:
    """The error as a user pastes it: the whole traceback Python prints, chained errors included."""
    return "".join(traceback.format_exception(error))


def _frozen_rows(tests: types.ModuleType) -> dict[str, Graded]:
    """Each held-out set as graded when it was collected or written (confidence was not recorded then: counted as
    not)."""
    pasted = {f"{corpus}, when collected (rules frozen)": [(case.grade_at_freeze, False)
                                                           for case in tests.pasted_cases(corpus)]
              for corpus in _sets() if corpus != "pasted"}
    live = {f"{name}, when written (rules frozen)": [(case.grade_at_freeze, False)
                                                     for case in tests.live_held_out(name).values()]
            for name in tests.LIVE_HELD_OUT}
    return {**pasted, **live}


def _in_view_rows(tests: types.ModuleType) -> dict[str, Graded]:
    """The frozen grades by what of the failure the text shows (the error line, a symptom, or neither)."""
    tagged_after = json.loads(TAGGED_AFTER.read_text(encoding="utf-8"))
    rows: dict[str, Graded] = {}
    for corpus in _sets():
        for case in tests.pasted_cases(corpus) if corpus != "pasted" else ():
            shown = case.in_view or tagged_after.get(f"{corpus}/{case.id}")
            when = "written before grading" if case.in_view else "tagged after grading"
            if shown:
                rows.setdefault(f"{shown} in view ({when})", []).append((case.grade_at_freeze, False))
    return rows


def _cells(graded: Graded) -> list[str]:
    grades = Counter(grade for grade, _ in graded)
    confident = sum(confident for grade, confident in graded if grade == "wrong")
    total = len(graded)
    return [str(total), f"{grades['correct']} ({grades['correct'] / total:.0%})", str(grades["partly"]),
            f"{grades['wrong']} ({confident} confident)", str(grades["not_recognised"])]


def _table(rows: dict[str, Graded], title: str) -> None:
    print(f"\n{title}\n\n| set | cases | correct | partly | wrong | not recognised |\n|---|---:|---:|---:|---:|---:|")
    order = [f"{corpus}, {which}" for corpus in _sets() for which in (
        "all", "graded against the thread", "graded against the message", "when collected (rules frozen)")]
    for name in sorted(rows, key=lambda name: order.index(name) if name in order else len(order)):
        print(f"| {name} | " + " | ".join(_cells(rows[name])) + " |")


def _rows_at(revision: str) -> dict[str, Graded]:
    """Every row as the reader at git revision ``revision`` grades it (its ``src/`` in a subprocess)."""
    return {name: [tuple(entry) for entry in graded] for name, graded in _answer_at(revision).items()}


def _answer_at(revision: str, *flags: str) -> dict:
    """What this script prints with ``--json`` (and ``flags``) when it runs the reader at git revision ``revision``
    (its ``src/`` taken with ``git archive``, in a subprocess)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "src"], check=True,
                             capture_output=True).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(folder) / "src"), str(ROOT / "benchmarks")])}
        output = subprocess.run([sys.executable, __file__, "--json", *flags], check=True, capture_output=True,
                                text=True, env=env, cwd=ROOT).stdout
    return dict(json.loads(output))


_WORDS = "the model loss step epoch train value tensor shape cuda float expected got batch layer".split()
"""Words of a training log that no rule recognises together (some start a rule's pattern, so lines are tried)."""


def _worst_case_seconds() -> dict[str, float]:
    """Best of three seconds ``cw.explain`` takes on a 1 MB paste no rule recognises: 20,000 short lines of eight
    words, and 250 long lines of 700."""
    draw = random.Random(0)
    pastes = {
        "short lines": "\n".join(" ".join(draw.choice(_WORDS) for _ in range(8)) for _ in range(20_000)),
        "long lines": "\n".join(" ".join(draw.choice(_WORDS) for _ in range(700)) for _ in range(250)),
    }
    seconds = {}
    for name, text in pastes.items():
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            assert cw.explain(text) is None
            runs.append(time.perf_counter() - start)
        seconds[name] = min(runs)
    return seconds


def _print_cost(revision: str | None) -> None:
    rows = {"this reader": _worst_case_seconds()}
    if revision:
        rows[f"the reader at {revision}"] = _answer_at(revision, "--cost")
    print(f"{machine()}; a 1 MB paste no rule recognises, best of three\n")
    print("| reader | short lines | long lines |\n|---|---:|---:|")
    for name, seconds in rows.items():
        print(f"| {name} | {seconds['short lines']:.2f} s | {seconds['long lines']:.2f} s |")


def _old_catalogue(revision: str) -> types.ModuleType:
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:{OLD_CATALOGUE}"],
                            check=True, capture_output=True, text=True).stdout
    module = sys.modules["old_catalogue"] = types.ModuleType("old_catalogue")
    exec(compile(source, f"{revision}:{OLD_CATALOGUE}", "exec"), module.__dict__)  # our own history, not a download
    return module


def _print_baseline(tests: types.ModuleType, revision: str) -> None:
    old = _old_catalogue(revision)
    pasted = [(old.explain(case.text), case.expect.kind) for case in tests.pasted_cases()]
    live = [(old.explain(tests.raised(case.action)), case.expect.kind) for case in tests.LIVE.values()]
    print()
    for name, found in (("pasted reports", pasted), ("live errors", live)):
        recognised = sum(explanation is not None for explanation, _ in found)
        right = sum(explanation is not None and OLD_KINDS.get(explanation.kind, explanation.kind) == kind
                    for explanation, kind in found)
        print(f"baseline {revision} (first-line catalogue), {len(found)} {name}: {recognised} recognised, "
              f"{right} with the right kind ({right / len(found):.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", metavar="REV", help="also grade every set with the reader at git revision REV")
    parser.add_argument("--baseline", metavar="REV", help="also read the pasted reports with REV's catalogue")
    parser.add_argument("--cost", action="store_true", help="time the worst case (a 1 MB paste nothing recognises)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the --reader subprocess's answer
    args = parser.parse_args()
    if args.cost and args.json:
        print(json.dumps(_worst_case_seconds()))
        return
    if args.cost:
        _print_cost(args.reader)
        return
    tests = _tests()
    rows = _graded_rows(tests)
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{machine()}; castwise from {Path(cw.__file__).parent}")
    _table({**rows, **_frozen_rows(tests)}, "now (each held-out set beside its frozen-rules measurement)")
    _table(dict(sorted(_in_view_rows(tests).items())),
           "when collected (rules frozen), by what of the failure the text shows")
    if args.reader:
        _table(_rows_at(args.reader), f"the reader at {args.reader}, on the same sets")
    if args.baseline:
        _print_baseline(tests, args.baseline)


if __name__ == "__main__":
    main()
