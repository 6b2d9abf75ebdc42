"""DESIGN.md's layering, checked on the source: data flows one way and no module imports a layer above."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import castwise as cw

ROOT = Path(cw.__file__).parent

# What each part may import from castwise besides itself (DESIGN.md "Layout").
ALLOWED: dict[str, set[str]] = {
    "policy": set(),
    "keep": {"policy"},
    "model": {"policy", "keep"},
    "checkpoint": {"policy", "keep"},
    "training": {"policy"},
    "explainer": {"policy"},
    "doctor": {"policy", "keep", "model", "checkpoint", "training", "explainer"},
    "integrations": {"policy", "keep", "model", "checkpoint", "training", "explainer"},
    "cli": {"policy", "keep", "model", "checkpoint", "training", "doctor", "integrations", "explainer"},
}

# Inside doctor, one sub-package per job, data flowing one way (doctor/__init__.py says which job is which):
# what each job may import from doctor besides itself. ``diagnosis`` runs them; ``__init__`` exports them.
DOCTOR_ALLOWED: dict[str, set[str]] = {
    "report": set(),
    "targets": set(),
    "measure": {"report"},
    "judge": {"report", "measure"},
    "render": {"report"},
    "stream": {"report", "measure", "judge"},
    "diagnosis": {"report", "measure", "judge", "stream"},
}


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") else module


def _imports(source: Path) -> list[str]:
    """The castwise modules ``source`` imports (module level and inside functions)."""
    found = []
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("castwise."):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("castwise.")]
    return found


def _sources(part: str) -> list[Path]:
    folder = ROOT / part
    return sorted(folder.glob("*.py")) + sorted(folder.glob("*/*.py")) if folder.is_dir() else [ROOT / f"{part}.py"]


@pytest.mark.parametrize("part", list(ALLOWED))
def test_each_part_imports_only_the_layers_below_it(part: str) -> None:
    wrong = [
        (source.name, module)
        for source in _sources(part)
        for module in _imports(source)
        if _part(module) not in ALLOWED[part] | {part}
    ]
    assert wrong == []


def _job(module: str) -> str:
    """The doctor job a module belongs to ('measure' for castwise.doctor.measure.trace; the package
    itself is '__init__', which no job may import)."""
    return (module.split(".")[2:] or ["__init__"])[0]


def test_each_doctor_job_imports_only_the_jobs_before_it() -> None:
    jobs, wrong = set(), []
    for source in (ROOT / "doctor").rglob("*.py"):
        name = ".".join(("castwise", *source.relative_to(ROOT).with_suffix("").parts))
        job = _job(name)
        if job == "__init__":
            continue
        jobs.add(job)
        allowed = DOCTOR_ALLOWED.get(job, set()) | {job}
        wrong += [(name, m) for m in _imports(source) if _part(m) == "doctor" and _job(m) not in allowed]
    assert jobs == set(DOCTOR_ALLOWED)
    assert wrong == []


def test_no_import_cycle_between_modules() -> None:
    graph: dict[str, set[str]] = {}
    for source in ROOT.rglob("*.py"):
        name = "castwise." + ".".join(source.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        graph[name] = {m for m in _imports(source) if not name.startswith(m + ".") and m != name}
    packages = {n for n in graph if (ROOT / Path(*n.split(".")[1:]) / "__init__.py").exists()}
    edges = {n: {m for m in targets if m in graph and m not in packages} for n, targets in graph.items()}

    def cycle_from(start: str) -> list[str] | None:
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for target in edges.get(node, ()):
                if target == start:
                    return path
                if target not in seen:
                    seen.add(target)
                    stack.append((target, path + [target]))
        return None

    cycles = [c for n in edges if n not in packages and (c := cycle_from(n))]
    assert cycles == []
