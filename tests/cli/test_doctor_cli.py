"""``castwise doctor``: the built-in example, file and module targets, a transformers folder, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
import tomllib
from typer.testing import CliRunner

import castwise as cw
from castwise.cli import app
from castwise.doctor import REPORT_SCHEMA

runner = CliRunner()

BUFFER_MODEL = '''
import torch
from torch import nn


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.basis = torch.randn(8, 8)

    def forward(self, x):
        return x @ self.basis


def build():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 8), Mixer(), nn.Linear(8, 2)), torch.randn(4, 8)
'''

LIGHTNING_MODULE = '''
import torch
import lightning.pytorch as L
from torch import nn


class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 1))
        self.example_input_array = torch.randn(3, 6)

    def forward(self, x):
        return self.body(x)


def make():
    torch.manual_seed(0)
    return Regressor()
'''


def _report(path: Path) -> dict:
    data = json.loads(path.read_text())
    jsonschema.validate(data, REPORT_SCHEMA)
    return data


def test_builtin_example_prints_parity_table_diagnosis_and_recommendation() -> None:
    result = runner.invoke(app, ["doctor", "-p", "bf16-mixed", "-p", "bf16-true", "--mode", "eval"])
    assert result.exit_code == 0, result.output
    assert "plain PyTorch against castwise" in result.output
    assert "plain PyTorch: 1 of 2 policies fail" in result.output
    assert "castwise doctor: built-in example" in result.output
    assert "recommendation: bf16-true" in result.output


def test_builtin_example_json_to_stdout_is_only_json() -> None:
    result = runner.invoke(app, ["doctor", "-p", "16-true", "--mode", "eval", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    jsonschema.validate(data, REPORT_SCHEMA)
    assert data["modes"] == ["eval"] and data["recommendation"]["policy"] == "16-true"


def test_file_target_that_fails_exits_1_and_names_the_module(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(BUFFER_MODEL)
    out, page = tmp_path / "report.json", tmp_path / "report.html"
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'net.py'}:build", "-p", "bf16-true", "--tolerance", "0.05",
                                 "--out", str(out), "--html", str(page)])
    assert result.exit_code == 1
    assert "FAIL" in result.output and "raised in module 1: RuntimeError" in result.output
    data = _report(out)
    run = data["policies"][0]["runs"][0]
    assert run["failing_module"] == "1" and run["explanation"]["kind"] == "matmul_dtype"
    assert data["recommendation"]["keep_fp32"][0]["modules"] == ["1"]
    assert page.read_text().count("<svg") == 3  # no trial training: no loss or training-memory chart


def test_module_target_lightning_module_with_example_input_array(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "cwdoctorpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(LIGHTNING_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["doctor", "cwdoctorpkg.models:make", "-p", "bf16-mixed", "-p", "bf16-true",
                                 "--mode", "train", "-o", str(out)])
    assert result.exit_code == 0, result.output
    data = _report(out)
    assert data["model"] == "Regressor (cwdoctorpkg.models:make)" and data["modes"] == ["train"]
    modules = {m["name"]: m for m in data["policies"][1]["runs"][0]["modules"]}
    assert modules["body.1"]["kept_fp32"] and modules["body.0"]["params"] == ["bf16"]
    assert data["recommendation"]["policy"] == "bf16-true"


def test_transformers_folder(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=64, n_positions=32)
    transformers.GPT2LMHeadModel(config).save_pretrained(tmp_path / "tiny-gpt2")
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["doctor", "--hf", str(tmp_path / "tiny-gpt2"), "-p", "bf16-mixed", "--mode", "eval",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = _report(out)
    assert data["model"].startswith("GPT2LMHeadModel")
    (run,) = data["policies"][0]["runs"]
    assert run["ok"] and run["output_dtype"] == "f32" and 0 < run["error"] < 0.02
    assert any(m["type"] == "GPT2Attention" and m["autocast"] for m in run["modules"])


def test_json_of_a_transformers_folder_is_only_json_whatever_else_is_installed(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=64, n_positions=32)
    transformers.GPT2LMHeadModel(config).save_pretrained(tmp_path / "tiny-gpt2")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src"), "HF_HUB_OFFLINE": "1"}
    env.pop("DS_ACCELERATOR", None)  # DeepSpeed, where installed, would announce its CPU fallback on stdout
    done = subprocess.run([sys.executable, "-m", "castwise", "doctor", "--hf", str(tmp_path / "tiny-gpt2"),
                           "-p", "bf16-mixed", "--mode", "eval", "--json"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["model"].startswith("GPT2LMHeadModel")


@pytest.mark.parametrize("args, message", [
    (["nowhere.py:build"], "no such file: nowhere.py"),
    (["no_such_package_xyz.models:make"], "cannot import 'no_such_package_xyz.models'"),
    (["justaname"], "must look like 'path/to/file.py:factory'"),
    (["-p", "bf17"], "unknown precision 'bf17'"),
])
def test_user_mistakes_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["doctor", *args])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_factory_without_inputs_says_what_to_return(tmp_path: Path) -> None:
    (tmp_path / "bare.py").write_text(textwrap.dedent('''
        from torch import nn
        def build():
            return nn.Linear(2, 2)
    '''))
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'bare.py'}:build"])
    assert result.exit_code == 2
    assert "return (model, example_inputs) or set model.example_input_array" in result.output


def test_builtin_example_json_carries_the_parity_table_and_reads_back() -> None:
    result = runner.invoke(app, ["doctor", "-p", "bf16-mixed", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    jsonschema.validate(data, REPORT_SCHEMA)
    rows = {row["way"]: row for row in data["parity"]}
    assert rows["torch"]["policy"] == rows["castwise"]["policy"] == "bf16-mixed"
    assert not rows["torch"]["eval"]["ok"] and "expected scalar type Float" in rows["torch"]["eval"]["error"]
    assert rows["castwise"]["eval"]["ok"] and rows["castwise"]["eval"]["output_dtype"] == "f32"
    again = cw.Report.from_json(result.stdout)
    assert again.parity is not None and again.parity[1].train.output_dtype == "f32"
    assert again.to_dict() == data


def test_every_command_takes_json_as_a_flag() -> None:
    import typer.main

    group = typer.main.get_command(app)
    for name, command in group.commands.items():
        flags = [p for p in command.params if "--json" in p.opts]
        assert len(flags) == 1 and flags[0].is_flag, f"castwise {name} --json is not a flag"


TRAINABLE = '''
import torch
import torch.nn.functional as F
from torch import nn


def build():
    torch.manual_seed(0)
    x = torch.randn(16, 8)
    batches = [(x[i:i + 8], torch.randint(0, 3, (8,))) for i in (0, 8)]
    return {"model": nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 3)), "batches": batches,
            "loss_fn": lambda out, target: F.cross_entropy(out.float(), target)}
'''


def test_train_n_with_a_factory_that_gives_batches_and_a_loss(tmp_path: Path) -> None:
    pytest.importorskip("optimi")
    (tmp_path / "trainable.py").write_text(TRAINABLE)
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'trainable.py'}:build", "-p", "bf16-mixed", "-p", "bf16-true",
                                 "--mode", "eval", "--train", "6", "--lr", "0.01", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "trial training: 6 adamw steps, lr 0.01, <lambda>" not in result.output
    assert "trial training: 6 adamw steps, lr 0.01, the given loss_fn" in result.output
    assert "│ bf16-true+kahan" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80
    data = _report(out)
    training = data["training"]
    assert training["steps"] == 6 and [r["updates"] for r in training["runs"]] == ["none", "none", "kahan"]
    first = training["reference"]["losses"][0]
    assert all(abs(run["losses"][0] - first) < 0.05 * first for run in training["runs"])


ARGMAX = '''
import torch
from torch import nn


class Argmax(nn.Module):
    def forward(self, x):
        return x.argmax(-1)


def build():
    return nn.Sequential(nn.Linear(4, 3), Argmax()), torch.randn(2, 4)
'''


def test_train_on_a_model_with_no_floating_output_says_where_a_command_line_loss_goes(tmp_path: Path) -> None:
    pytest.importorskip("optimi")
    (tmp_path / "argmax.py").write_text(ARGMAX)
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'argmax.py'}:build", "-p", "bf16-mixed", "--mode", "eval",
                                 "--train", "2", "--json"])
    reference = json.loads(result.stdout)["training"]["reference"]
    assert reference["exception"].startswith("ValueError: the model returned no floating tensor to compute a "
                                             "training loss from: pass loss_fn (castwise doctor: the factory's dict "
                                             "with 'loss_fn')")


@pytest.mark.parametrize("args, message", [
    (["--mode", "predict"], "unknown mode 'predict'"),
    (["--train", "2", "--lr", "-1"], "lr must be a positive number"),
])
def test_bad_doctor_options_are_one_line_and_write_nothing(args: list[str], message: str, tmp_path: Path) -> None:
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    result = runner.invoke(app, ["doctor", "-p", "bf16-true", *args, "--out", str(out), "--html", str(page)])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
    assert not out.exists() and not page.exists()


CORE_ONLY = '''
import sys
from importlib.abc import MetaPathFinder

OPTIONAL = {"matplotlib", "transformers", "lightning", "lightning_fabric", "pytorch_lightning", "optimi", "torchao",
            "accelerate"}


class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in OPTIONAL:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
from castwise.cli import main

sys.argv = ["castwise", *sys.argv[1:]]
try:
    main()
finally:
    assert not OPTIONAL & set(sys.modules), OPTIONAL & set(sys.modules)
'''


def _core_only(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    script = tmp_path / "core_only.py"
    script.write_text(CORE_ONLY)
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "80"})


def test_html_works_on_a_core_install(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(BUFFER_MODEL)
    page = tmp_path / "report.html"
    done = _core_only(tmp_path, "doctor", f"{tmp_path / 'net.py'}:build", "-p", "bf16-mixed", "--mode", "eval",
                      "--html", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text(encoding="utf-8")
    assert text.count("<svg") == 3 and "Recommendation: <b>bf16-mixed</b>" in text


def test_train_on_a_core_install_names_the_extra_that_really_adds_it(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(BUFFER_MODEL)
    done = _core_only(tmp_path, "doctor", f"{tmp_path / 'net.py'}:build", "-p", "bf16-mixed", "--mode", "eval",
                      "--train", "2")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--train: castwise's optimizers need torch-optimi: pip install 'castwise[training]'" in " ".join(
        done.stderr.split())
    extras = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(requirement.startswith("torch-optimi") for requirement in extras["training"])


def test_a_policy_missing_its_extra_is_not_blamed_on_train(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("optimi")
    monkeypatch.setitem(sys.modules, "torchao.float8", None)  # torchao not installed, torch-optimi installed
    (tmp_path / "net.py").write_text(BUFFER_MODEL)
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'net.py'}:build", "-p", "fp8-mixed", "--mode", "eval",
                                 "--train", "2", "--out", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "error: policy fp8-mixed needs torchao for its fp8 linears: pip install 'castwise[fp8]'" in result.stderr
    assert "--train" not in result.stderr and not out.exists()


def test_the_commands_defaults_are_the_doctors(tmp_path: Path) -> None:
    from castwise.cli import doctor as command
    from castwise.doctor import DEFAULT_POLICIES, DEFAULT_TOLERANCE
    from castwise.doctor.measure.trial import DEFAULT_LR

    assert command.DEFAULT_POLICIES == DEFAULT_POLICIES  # repeated in the CLI so that --help needs no torch
    assert (command.DEFAULT_TOLERANCE, command.DEFAULT_LR) == (DEFAULT_TOLERANCE, DEFAULT_LR)


SMALL = '''
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8), nn.Linear(8, 2)), torch.randn(4, 8)
'''

MARKS_ITS_CALL = '''
from pathlib import Path
import torch
from torch import nn


def build():
    Path(__file__).with_name("built").write_text("the factory ran")
    return nn.Linear(8, 2), torch.randn(4, 8)
'''


def _error_lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if "error" in line.lower()]


@pytest.mark.parametrize("source, says", [
    ("import torch\ndef build(:\n    pass\n", "{path}:2: SyntaxError: invalid syntax"),
    ("def helper():\n    raise KeyError('weights.pt')\n\ndef build():\n    return helper()\n",
     "KeyError: 'weights.pt' (at {path}:2, in helper)"),
    ("import no_such_module_xyz\n", "ModuleNotFoundError: No module named 'no_such_module_xyz' (at {path}:1, in <module>)"),
])
def test_a_target_that_cannot_load_is_one_line_with_the_exceptions_type_and_place(
        source: str, says: str, tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(source)
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["doctor", f"{path}:build", "--out", str(out)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.splitlines() == [f"error: cannot load {path}:build: {says.format(path=path)}"]
    assert not out.exists()


def test_inputs_that_do_not_fit_the_model_are_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / "misfit.py").write_text(SMALL.replace("torch.randn(4, 8)", "torch.randn(4, 7)"))
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'misfit.py'}:build", "--out", str(out), "--html", str(page)])
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = _error_lines(result)
    assert line.startswith("error: the model fails in fp32 on its example inputs (train and eval) in module 0: "
                           "RuntimeError: mat1 and mat2 shapes cannot be multiplied")
    assert not out.exists() and not page.exists()


@pytest.mark.parametrize("option, where, says", [
    ("--out", "a_file/r.json", "a_file is not a folder"),
    ("--html", ".", "is a folder; name a file"),
    ("--out", "missing/r.json", "no folder"),
])
def test_an_output_that_cannot_be_written_is_refused_before_the_model_is_built(
        option: str, where: str, says: str, tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(MARKS_ITS_CALL)
    (tmp_path / "a_file").write_text("")
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'net.py'}:build", option, str(tmp_path / where)])
    assert result.exit_code == 2 and says in result.stderr and len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "built").exists()


def test_an_alias_given_is_printed_with_the_policy_it_resolves_to(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(SMALL)
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'net.py'}:build", "-p", "bf16", "-p", "float16",
                                 "-p", "bf16-true", "--mode", "eval"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == ["bf16 -> bf16-mixed", "float16 -> 16-true"]


def test_progress_is_a_line_per_piece_of_work_when_stdout_is_not_a_terminal(tmp_path: Path) -> None:
    pytest.importorskip("optimi")
    (tmp_path / "net.py").write_text(SMALL)
    target = f"{tmp_path / 'net.py'}:build"
    result = runner.invoke(app, ["doctor", target, "-p", "bf16-mixed", "-p", "bf16-true", "--mode", "eval",
                                 "--train", "20"])
    assert result.exit_code in (0, 1), result.output
    lines = result.stderr.splitlines()
    assert lines[0].startswith("[1/") and "32-true (fp32 reference) (0:0" in lines[0]
    assert any(" bf16-mixed (" in line for line in lines) and any(" bf16-true (" in line for line in lines)
    assert all(line.startswith("[") and " so far" in line for line in lines)
    assert any("left)" in line for line in lines[1:])
    steps = [line for line in lines if "training step" in line]
    assert 2 <= len(steps) <= 11  # the first, every tenth and the last of 20, not each
    quiet = runner.invoke(app, ["doctor", target, "-p", "bf16-true", "--mode", "eval", "--json"])
    assert quiet.stderr == "" and json.loads(quiet.stdout)["recommendation"]["policy"] == "bf16-true"


def test_both_modes_failing_keep_every_column_in_80_columns(tmp_path: Path) -> None:
    pytest.importorskip("torchao")
    (tmp_path / "net.py").write_text(BUFFER_MODEL)
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'net.py'}:build", "-p", "bf16-true",
                                 "-p", "fp8-rowwise-mixed"], env={"COLUMNS": "80"})
    table = [line for line in result.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and max(len(line) for line in table) <= 80
    row = next(line for line in table if line.startswith("│ bf16-true"))
    assert row.count("│") == 8 and row.rstrip(" │").endswith(" B")  # the last column, memory, is there
    assert any("memory" in line for line in table) and "…" not in result.stdout


def test_a_fix_to_copy_is_whole_on_its_own_line_in_80_columns(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(BUFFER_MODEL)
    result = runner.invoke(app, ["doctor", f"{tmp_path / 'net.py'}:build", "-p", "bf16-true", "--mode", "eval"],
                           env={"COLUMNS": "80"})
    fix = next(line for line in result.stdout.splitlines() if line.startswith("  fix: use the policy"))
    policy = fix.split("'")[1]
    assert policy == "bf16-true,keep+=1" and cw.Policy.parse(policy).keep_fp32[-1] == "1"
