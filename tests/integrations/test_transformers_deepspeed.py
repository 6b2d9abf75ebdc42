"""CastwiseCallback in real transformers.Trainer runs under DeepSpeed ZeRO (two CPU ranks): the plan
names DeepSpeed's fp32 master, checkpoints hold bf16 weights rounded once from it with fp32 norms,
and ``save_model`` writes the gathered 16-bit weights, or (ZeRO-3 without gathering) DeepSpeed's
checkpoint that ``castwise convert`` turns into the same folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import castwise as cw

transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")

from castwise.integrations.transformers import from_pretrained  # noqa: E402
from castwise.integrations.transformers.plan import trainer_math  # noqa: E402
from castwise.integrations.transformers.zero import ZeroRun, zero_run  # noqa: E402

WORKER = Path(__file__).with_name("deepspeed_trainer_worker.py")
TORCHRUN = Path(sys.executable).with_name("torchrun")
NORMS = {"model.layers.0.input_layernorm.weight", "model.layers.0.post_attention_layernorm.weight", "model.norm.weight"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """Every case of the worker, trained once: ZeRO-3 with and without gathering, ZeRO-2."""
    pytest.importorskip("deepspeed")
    out = tmp_path_factory.mktemp("deepspeed-trainer")
    source = Path(__file__).parents[2] / "src"
    env = dict(os.environ, DS_ACCELERATOR="cpu", OMP_NUM_THREADS="1", PYTHONPATH=str(source), HF_HUB_OFFLINE="1")
    command = [str(TORCHRUN), "--standalone", "--nproc_per_node=2", str(WORKER), "--out", str(out)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def master(checkpoint: Path, tmp_path: Path) -> dict[str, torch.Tensor]:
    """The fp32 master weights of the DeepSpeed checkpoint inside a Trainer checkpoint."""
    cw.convert(checkpoint / "global_step2", tmp_path / "master", "fp32")
    return cw.load(tmp_path / "master")


@pytest.mark.parametrize("case", ["zero3-gathered", "zero3", "zero2"])
def test_checkpoints_are_bf16_rounded_once_from_the_fp32_master_with_fp32_norms(runs, case, tmp_path):
    checkpoint = runs / case / "checkpoint-2"
    fp32 = master(checkpoint, tmp_path)
    saved = cw.load(checkpoint)
    assert "lm_head.weight" not in saved and saved.keys() == fp32.keys()  # the tied head written once
    for name, tensor in saved.items():
        expected = fp32[name] if name in NORMS else fp32[name].bfloat16()
        assert tensor.dtype == expected.dtype and torch.equal(tensor, expected), name
    assert json.loads((checkpoint / "config.json").read_text())["dtype"] == "bfloat16"
    model = from_pretrained(checkpoint, transformers.LlamaForCausalLM)
    assert model.model.norm.weight.dtype == torch.float32 and model.model.embed_tokens.weight.dtype == torch.bfloat16
    assert model.lm_head.weight is model.model.embed_tokens.weight


@pytest.mark.parametrize("case", ["zero3-gathered", "zero2"])
def test_save_model_writes_the_16bit_weights_in_the_save_dtype(runs, case, tmp_path):
    fp32 = master(runs / case / "checkpoint-2", tmp_path)
    final = cw.load(runs / case / "final")
    head = final.pop("lm_head.weight", None)  # ZeRO-2 hands save_model both tied names
    assert final.keys() == fp32.keys() and (head is None or torch.equal(head, final["model.embed_tokens.weight"]))
    for name, tensor in final.items():
        rounded = fp32[name].bfloat16()  # DeepSpeed's 16-bit weights are the master rounded once
        expected = rounded.float() if name in NORMS else rounded
        assert tensor.dtype == expected.dtype and torch.equal(tensor, expected), name


def test_zero3_without_gathering_leaves_deepspeeds_checkpoint_for_convert(runs, tmp_path):
    final = runs / "zero3" / "final"
    assert not list(final.glob("*.safetensors")) and (final / "config.json").is_file() and (final / "latest").is_file()
    cw.convert(final, tmp_path / "converted", "bf16")
    converted = cw.load(tmp_path / "converted")
    checkpoint = cw.load(runs / "zero3" / "checkpoint-2")
    assert converted.keys() == checkpoint.keys()
    assert all(torch.equal(converted[n], checkpoint[n]) for n in checkpoint)  # LlamaRMSNorm kept by class
    assert json.loads((tmp_path / "converted" / "config.json").read_text())["dtype"] == "bfloat16"


@pytest.mark.parametrize("case", ["zero3-gathered", "zero3", "zero2"])
def test_the_plan_names_deepspeeds_master_and_where_saves_come_from(runs, case):
    plan = (runs / f"{case}-plan.txt").read_text()
    stage = case[4]
    assert f"bf16 module weights, fp32 master weights in DeepSpeed's ZeRO-{stage} optimizer" in plan
    assert f"DeepSpeed ZeRO-{stage} bf16: every module cast to it, no autocast" in plan
    assert "checkpoint-N: rewritten from DeepSpeed's fp32 master" in plan
    assert "pure bf16" not in plan and "no fp32 master copy" not in plan
    final = "no weights (stage3_gather_16bit_weights_on_model_save is off" if case == "zero3" else "16-bit weights"
    assert final in plan


class _Config:
    def __init__(self, config: dict) -> None:
        self.config = config


class _Args:
    def __init__(self, config: dict | None, bf16: bool = True) -> None:
        self.hf_deepspeed_config = _Config(config) if config is not None else None
        self.bf16, self.fp16, self.tf32 = bf16, False, False


@pytest.mark.parametrize(
    "config, expected",
    [
        ({"zero_optimization": {"stage": 3}, "bf16": {"enabled": True}}, ZeroRun(3, torch.bfloat16, False)),
        ({"zero_optimization": {"stage": 1}, "fp16": {"enabled": True}}, ZeroRun(1, torch.float16, False)),
        (
            {"zero_optimization": {"stage": 3, "stage3_gather_16bit_weights_on_model_save": True}},
            ZeroRun(3, None, True),
        ),
        ({"zero_optimization": {"stage": 0}, "bf16": {"enabled": True}}, None),
        ({"bf16": {"enabled": True}}, None),
        (None, None),
    ],
)
def test_zero_run_reads_the_resolved_deepspeed_config(config, expected):
    args = _Args(config)
    assert zero_run(args) == expected
    math = trainer_math(args)
    assert math.zero == expected
    assert math.autocast == (None if expected is not None else torch.bfloat16)
