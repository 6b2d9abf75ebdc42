"""The command's shell: help and version without torch, ``python -m castwise``, one-line usage errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import castwise
from castwise.cli import app

runner = CliRunner()
ROOT = Path(__file__).parents[2]

WHAT_LOADED = """
import json, sys
from castwise.cli import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print(json.dumps({"code": code, "loaded": sorted(m for m in ("torch", "numpy", "transformers") if m in sys.modules)}),
      file=sys.stderr)
"""


def _run(*args: str, code: str = WHAT_LOADED) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"], ["doctor", "-h"], ["convert", "--help"],
                                  ["policies", "--help"], ["inspect", "-h"], ["explain", "-h"]])
def test_help_and_version_answer_without_importing_torch(args: list[str]) -> None:
    done = _run(*args)
    answer = json.loads(done.stderr.strip().splitlines()[-1])
    assert answer == {"code": 0, "loaded": []}, done.stderr
    assert ("castwise 0.1.0" if args == ["--version"] else "Usage: castwise") in done.stdout


def test_import_castwise_is_lazy_and_every_public_name_resolves() -> None:
    code = ("import sys, castwise as cw\nassert 'torch' not in sys.modules\n"
            "assert cw.apply is __import__('castwise.model', fromlist=['apply']).apply\n"
            "from castwise import Policy\nassert 'torch' in sys.modules\n"
            "assert all(getattr(cw, name) is not None for name in cw.__all__)\nprint('ok')")
    done = _run(code=code)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_lazy_names_agree_with_the_type_checking_imports() -> None:
    import ast

    tree = ast.parse((ROOT / "src" / "castwise" / "__init__.py").read_text())
    guarded = next(node for node in tree.body if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test))
    imported = {(node.module, alias.name) for node in guarded.body for alias in node.names}
    homes = {(module, name) for module, names in castwise._HOMES.items() for name in names}
    assert imported == homes and {name for _, name in homes} == set(castwise.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        castwise.nothing_here  # noqa: B018


def test_no_sub_package_shadows_a_public_name() -> None:
    """Importing a sub-package binds its name on ``castwise``, and a lazy name of the same spelling
    (``cw.explain`` beside a package ``castwise/explain/``) would then be a module, not the function."""
    package = ROOT / "src" / "castwise"
    assert [name for name in castwise.__all__ if (package / name).is_dir() or (package / f"{name}.py").exists()] == []


def test_python_dash_m_castwise_is_the_same_command() -> None:
    done = subprocess.run([sys.executable, "-m", "castwise", "--version"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=120)
    assert done.returncode == 0 and done.stdout == f"castwise {castwise.__version__}\n"


@pytest.mark.parametrize("args, says", [
    (["doctor", "--lr", "abc"], "Invalid value for '--lr'"),
    (["doctor", "--train", "-5"], "Invalid value for '--train'"),
    (["doctor", "--tolerance", "-1"], "'--tolerance': must be a number >= 0, got -1"),
    (["doctor", "--tolerance", "nan"], "'--tolerance': must be a number >= 0, got nan"),
    (["doctor", "--train", "2", "--lr", "0"], "lr must be a positive number, got 0"),
    (["doctor", "--lrr", "3"], "No such option: --lrr"),
    (["convert", "model.safetensors"], "Missing argument"),
    (["inspect"], "Missing argument"),
    (["doctr"], "No such command 'doctr'"),
])
def test_usage_errors_are_one_line_not_a_box(args: list[str], says: str) -> None:
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], result.stderr
    command = "castwise" if args == ["doctr"] else f"castwise {args[0]}"
    assert lines[0].endswith(f"(see '{command} --help')")
