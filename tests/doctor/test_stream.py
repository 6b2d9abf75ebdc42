"""The streamed doctor (``stream=True``, ``castwise doctor --hf DIR --stream``) against the in-memory one.

Tiny models are saved with ``save_pretrained`` in several safetensors shards and diagnosed both ways.
The propagated figures (a policy's output and loss errors) are the in-memory doctor's to the bit, so
verdicts and recommendations agree; per-module errors are per block on fp32 inputs, so they are equal
in the first block and within a stated factor of the in-memory (propagated) ones after it.
"""

from __future__ import annotations

import gc
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import torch
from rich.console import Console
from typer.testing import CliRunner

import castwise as cw
from castwise.cli import app
from castwise.doctor import REPORT_SCHEMA, render_text
from castwise.doctor.measure.timing import ENOUGH_STEPS, TIMED_STEPS, WARMUP_STEPS
from castwise.doctor.stream import StreamError, budget
from castwise.doctor.stream.weights import Weights
from castwise.doctor.targets.load import load_transformers

transformers = pytest.importorskip("transformers")

runner = CliRunner()
SHARD = "24KB"
"""Shard size for the tiny checkpoints: several shards each, as a large model has."""
BLOCK_FACTOR = 4.0
"""A block's output error on fp32 inputs stays within this factor of the in-memory (propagated) one."""


def _llama(layers: int = 2) -> object:
    return transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=layers,
                                    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


def _mixtral() -> object:
    return transformers.MixtralConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, num_local_experts=3,
                                      num_experts_per_tok=2, max_position_embeddings=64)


def _gpt2() -> object:
    return transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                   resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)


CONFIGS: dict[str, Callable[[], object]] = {"llama": _llama, "mixtral": _mixtral, "gpt2": _gpt2}
CLASSES = {"llama": "LlamaForCausalLM", "mixtral": "MixtralForCausalLM", "gpt2": "GPT2LMHeadModel"}


def _save(folder: Path, kind: str, plant: Callable[[torch.nn.Module], None] | None = None) -> Path:
    torch.manual_seed(0)
    model = getattr(transformers, CLASSES[kind])(CONFIGS[kind]())
    if plant is not None:
        with torch.no_grad():
            plant(model)
    model.save_pretrained(folder, max_shard_size=SHARD)
    assert len(list(folder.glob("*.safetensors"))) >= 2
    return folder


def _cancelling_value_projection(model: torch.nn.Module) -> None:
    """Block 0's v_proj reads two equal input channels with weights +256+a and -256+b: in fp32 the 256s
    cancel and a+b remains; rounded to bf16 (spacing 2 at 256) a and b are lost. Keeping that one
    Linear in fp32 is the fix."""
    embedding = model.model.embed_tokens.weight
    embedding[:, 1] = embedding[:, 0]
    weight = model.model.layers[0].self_attn.v_proj.weight
    weight[:, 0] += 256
    weight[:, 1] -= 256


def _near_tie_routers(model: torch.nn.Module) -> None:
    """Every router's experts score almost alike (rows 3e-4 apart): bf16 rounding changes some choices."""
    torch.manual_seed(1)
    for layer in model.model.layers:
        weight = layer.mlp.gate.weight
        weight.copy_(weight[:1] + 3e-4 * torch.randn_like(weight))


def _overflowing_mlp(model: torch.nn.Module) -> None:
    """Block 1's up_proj scaled by 1e6 (activations ~1e5, above fp16's 65504), down_proj by 1e-6 back."""
    mlp = model.model.layers[1].mlp
    mlp.up_proj.weight.mul_(1e6)
    mlp.down_proj.weight.mul_(1e-6)


def _huge_embeddings(model: torch.nn.Module) -> None:
    """Embeddings of about 1e5 (fp16's largest value is 65504): stored in fp16 they overflow before any block."""
    model.model.embed_tokens.weight.mul_(1e7)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("stream")
    return {
        "llama": _save(root / "llama", "llama"),
        "mixtral": _save(root / "mixtral", "mixtral", _cancelling_value_projection),
        "planted": _save(root / "planted", "llama", _cancelling_value_projection),
        "gpt2": _save(root / "gpt2", "gpt2"),
        "routing": _save(root / "routing", "mixtral", _near_tie_routers),
        "overflow": _save(root / "overflow", "llama", _overflowing_mlp),
        "embeddings": _save(root / "embeddings", "llama", _huge_embeddings),
    }


def _both(folder: Path, policies: list[str], **options: Any) -> tuple[cw.Report, cw.Report]:
    """The in-memory and the streamed report of the same checkpoint (with the model's loss unless given)."""
    loaded = load_transformers(folder)
    in_memory = cw.diagnose(loaded.model, loaded.inputs, policies=policies, **{"loss_fn": loaded.loss_fn, **options})
    skeleton = load_transformers(folder, meta=True)
    streamed = cw.diagnose(skeleton.model, skeleton.inputs, policies=policies, stream=True,
                           **{"loss_fn": skeleton.loss_fn, **options})
    return in_memory, streamed


def _rows(report: cw.Report, policy: str, mode: str) -> dict[str, cw.ModuleStats]:
    run = report.policy(policy).run(mode)
    assert run is not None
    return {stats.name: stats for stats in run.modules}


def _approx(value: float | None, rel: float) -> object:
    return None if value is None else pytest.approx(value, rel=rel)


def _assert_same_verdicts(in_memory: cw.Report, streamed: cw.Report) -> None:
    assert streamed.recommendation.policy == in_memory.recommendation.policy
    assert streamed.recommendation.reason == in_memory.recommendation.reason
    for expected, got in zip(in_memory.policies, streamed.policies, strict=True):
        assert (got.policy, got.within_tolerance) == (expected.policy, expected.within_tolerance)
        for want, run in zip(expected.runs, got.runs, strict=True):
            assert run.ok and run.error == _approx(want.error, 1e-5) and run.loss == _approx(want.loss, 1e-6)
            assert run.output_dtype == want.output_dtype
            assert (run.overflow_origin, run.overflowed, run.absorbed) == (
                want.overflow_origin, want.overflowed, want.absorbed)


def _assert_same_findings(in_memory: cw.Report, streamed: cw.Report) -> None:
    """The same findings, of the same kinds, about the same policies and modules."""
    assert [(f.kind, f.severity, f.policy, f.module) for f in streamed.findings] == [
        (f.kind, f.severity, f.policy, f.module) for f in in_memory.findings]


def _assert_never_within_tolerance_next_to_a_nonfinite_value(report: cw.Report) -> None:
    """Issue 21's goal: a run that measured inf/nan fails its policy unless its loss scaler absorbs it."""
    for result in report.policies:
        for run in result.runs:
            if run.nonfinite is not None and not run.absorbed:
                assert not result.within_tolerance and result.max_error is None


@pytest.mark.parametrize("kind", ["planted", "mixtral"])
def test_streamed_and_in_memory_agree_on_verdicts_fixes_and_kept_modules(folders: dict[str, Path], kind: str) -> None:
    in_memory, streamed = _both(folders[kind], ["tf32", "bf16-mixed"])
    _assert_same_verdicts(in_memory, streamed)
    _assert_same_findings(in_memory, streamed)
    # tf32 passes, but bf16-mixed with the planted Linear kept in fp32 is cheaper and verified: the recommendation
    culprit = "model.layers.0.self_attn.v_proj"
    assert streamed.recommendation.policy == str(cw.Policy.parse("bf16-mixed").replace(
        keep_fp32=cw.Policy.parse("bf16-mixed").keep_fp32 + (culprit,)))
    fixes = [(f.policy, f.modules, f.ok, f.trials) for f in streamed.recommendation.keep_fp32]
    assert fixes == [(f.policy, f.modules, f.ok, f.trials) for f in in_memory.recommendation.keep_fp32]
    assert fixes[0][1] == [culprit] and fixes[0][2]
    for mode in ("train", "eval"):
        expected, got = _rows(in_memory, "bf16-mixed", mode), _rows(streamed, "bf16-mixed", mode)
        assert list(got) == list(expected)  # the same modules, in the same call order
        assert {n for n, s in got.items() if s.kept_fp32} == {n for n, s in expected.items() if s.kept_fp32}
        first_block = [n for n in got if n.startswith("model.layers.0")]
        assert [got[n].error for n in first_block] == [expected[n].error for n in first_block]


def test_moe_routing_is_counted_block_by_block_like_in_memory(folders: dict[str, Path]) -> None:
    in_memory, streamed = _both(folders["routing"], ["bf16-mixed", "bf16-true"], tolerance=0.05)
    assert streamed.routing == in_memory.routing
    assert streamed.routing is not None and all(r.changed > 0 and r.changed_kept == 0 for r in streamed.routing)
    assert streamed.recommendation == in_memory.recommendation
    assert streamed.recommendation.policy is not None and streamed.recommendation.policy.endswith("MixtralTopKRouter")
    assert [f.kind for f in streamed.findings] == [f.kind for f in in_memory.findings]


def test_block_errors_on_fp32_inputs_stay_within_a_factor_of_the_propagated_ones(folders: dict[str, Path]) -> None:
    in_memory, streamed = _both(folders["llama"], ["bf16-mixed", "bf16-true"], modes=["eval"])
    _assert_same_verdicts(in_memory, streamed)
    for policy in ("bf16-mixed", "bf16-true"):
        expected, got = _rows(in_memory, policy, "eval"), _rows(streamed, policy, "eval")
        for index in range(2):
            name = f"model.layers.{index}"
            assert 0 < got[name].error <= BLOCK_FACTOR * expected[name].error
            assert expected[name].error <= BLOCK_FACTOR * got[name].error


def test_a_policy_named_like_the_reference_or_twice_is_diagnosed_once_beside_it(folders: dict[str, Path]) -> None:
    in_memory, streamed = _both(folders["llama"], ["32-true", "bf16-true", "bf16-true"], modes=["eval"])
    _assert_same_verdicts(in_memory, streamed)
    assert [p.policy for p in streamed.policies] == [p.policy for p in in_memory.policies] == ["32-true", "bf16-true"]
    assert [r.error for r in streamed.reference] == [r.error for r in in_memory.reference] == [None]
    assert streamed.policy("32-true").max_error == 0.0


def test_train_mode_measures_gradients_block_by_block(folders: dict[str, Path]) -> None:
    report = cw.diagnose(load_transformers(folders["llama"], meta=True).model, load_transformers(folders["llama"]).inputs,
                         policies=["bf16-true"], modes=["train"], stream=True)
    rows = _rows(report, "bf16-true", "train")
    for index in range(2):
        block = rows[f"model.layers.{index}"]
        assert block.input_grad_error is not None and 0 < block.input_grad_error < 0.05
        assert 0 < rows[f"model.layers.{index}.mlp.down_proj"].grad_error < 0.05
    assert 0 < rows["model.embed_tokens"].grad_error < 0.05  # from fp32's gradient at the first block's input
    assert 0 < rows["lm_head"].grad_error < 0.05


def test_gpt2_style_model_streams_like_in_memory(folders: dict[str, Path]) -> None:
    in_memory, streamed = _both(folders["gpt2"], ["bf16-mixed", "16-true"])
    _assert_same_verdicts(in_memory, streamed)
    assert streamed.stream is not None and streamed.stream.path == "transformer.h"
    rows = _rows(streamed, "bf16-mixed", "eval")
    assert rows["transformer.h.1.attn.c_attn"].autocast and rows["transformer.h.1.ln_2"].kept_fp32
    assert list(rows) == list(_rows(in_memory, "bf16-mixed", "eval"))


FAMILIES = {
    "mistral": ("MistralConfig", "MistralForCausalLM", {"sliding_window": 8}),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", {"use_sliding_window": True, "sliding_window": 8,
                                                   "max_window_layers": 1}),  # one full, one sliding layer
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", {"head_dim": 8}),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_mistral_and_qwen_stream_like_in_memory(family: str, tmp_path: Path) -> None:
    config_class, model_class, extra = FAMILIES[family]
    config = getattr(transformers, config_class)(vocab_size=64, hidden_size=32, intermediate_size=64,
                                                 num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                                 max_position_embeddings=64, **extra)
    torch.manual_seed(0)
    getattr(transformers, model_class)(config).save_pretrained(tmp_path / family, max_shard_size=SHARD)
    in_memory, streamed = _both(tmp_path / family, ["bf16-true"], modes=["eval"])
    _assert_same_verdicts(in_memory, streamed)
    assert list(_rows(streamed, "bf16-true", "eval")) == list(_rows(in_memory, "bf16-true", "eval"))


def test_planted_fp16_overflow_is_found_in_its_block(folders: dict[str, Path]) -> None:
    in_memory, report = _both(folders["overflow"], ["16-mixed", "bf16-mixed"])
    (overflow,) = [f for f in report.findings if f.kind == "fp16_overflow"]
    assert overflow.policy == "16-mixed" and overflow.module == "model.layers.1.mlp.up_proj"
    assert "first made by module model.layers.1.mlp.up_proj" in overflow.message
    assert not report.policy("16-mixed").within_tolerance and report.recommendation.policy == "bf16-mixed"
    assert [r.overflow_origin for r in report.policy("16-mixed").runs] == ["model.layers.1.mlp.up_proj"] * 2
    _assert_same_verdicts(in_memory, report)
    _assert_same_findings(in_memory, report)
    _assert_never_within_tolerance_next_to_a_nonfinite_value(report)
    rows = _rows(report, "16-mixed", "eval")
    assert rows["model.layers.1.mlp.up_proj"].overflow > 0
    assert all(not s.overflow for n, s in rows.items() if n.startswith("model.layers.0"))


def test_an_overflow_before_the_blocks_is_blamed_on_the_embeddings_not_on_the_first_block(
        folders: dict[str, Path]) -> None:
    """Block 0 overflows too when its fp32 input is cast to fp16, but the embeddings ran first."""
    in_memory, streamed = _both(folders["embeddings"], ["16-true", "bf16-true"], modes=["eval"])
    assert _rows(streamed, "16-true", "eval")["model.layers.0.input_layernorm"].overflow > 0
    assert streamed.policy("16-true").runs[0].overflow_origin == "model.embed_tokens"
    _assert_same_verdicts(in_memory, streamed)
    _assert_same_findings(in_memory, streamed)
    _assert_never_within_tolerance_next_to_a_nonfinite_value(streamed)


UNSCALED_16_MIXED = "params=f32,compute=f16,output=f32,scaling=none"


def _huge_loss(output: object) -> torch.Tensor:
    """A finite fp32 loss whose gradients overflow fp16 in every fp16 matmul's backward (1e6 per logit)."""
    return output.logits.float().sum() * 1e6  # type: ignore[attr-defined]


def test_nonfinite_gradients_fail_a_streamed_policy_unless_its_measured_loss_scale_absorbs_them(
        folders: dict[str, Path]) -> None:
    in_memory, streamed = _both(folders["llama"], ["16-mixed", UNSCALED_16_MIXED, "bf16-true"], loss_fn=_huge_loss,
                                modes=["train"])
    _assert_same_verdicts(in_memory, streamed)
    assert streamed.recommendation.policy == "bf16-true"  # the range of fp32: nothing to absorb
    _assert_same_findings(in_memory, streamed)
    _assert_never_within_tolerance_next_to_a_nonfinite_value(streamed)
    unscaled = streamed.policy(UNSCALED_16_MIXED)
    (run,) = unscaled.runs
    assert run.nonfinite and "gradient values of module model.layers.0.mlp.gate_proj" in run.nonfinite
    assert not unscaled.within_tolerance and run.overflowed and run.loss_scale is None
    (failed,) = [f for f in streamed.findings if f.policy == UNSCALED_16_MIXED]
    assert (failed.kind, failed.severity, failed.module) == ("gradient_overflow", "error", "model.layers.0.mlp.gate_proj")
    assert "the policy has no loss scaling" in failed.message
    (scaled,) = streamed.policy("16-mixed").runs
    assert scaled.absorbed and scaled.nonfinite and streamed.policy("16-mixed").within_tolerance
    assert scaled.loss_scale == in_memory.policy("16-mixed").runs[0].loss_scale  # every block's and the head's need
    (absorbed,) = [f for f in streamed.findings if f.policy == "16-mixed"]
    assert absorbed.kind == "loss_scale" and f"skips {scaled.loss_scale.skipped_steps} steps" in absorbed.message
    jsonschema.validate(json.loads(streamed.to_json()), REPORT_SCHEMA)


def test_a_policy_that_raises_in_a_block_is_reported_and_fixed_there(
        folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    mlp_class = transformers.models.llama.modeling_llama.LlamaMLP
    forward = mlp_class.forward

    def strict(self: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.bfloat16 and not torch.is_autocast_enabled("cpu"):
            raise RuntimeError("mat1 and mat2 must have the same dtype, but got BFloat16 and Float")
        return forward(self, x)

    monkeypatch.setattr(mlp_class, "forward", strict)
    in_memory, streamed = _both(folders["llama"], ["bf16-mixed", "bf16-true"], modes=["eval"])
    expected, run = in_memory.policy("bf16-true").runs[0], streamed.policy("bf16-true").runs[0]
    assert not run.ok and run.failing_module == expected.failing_module == "model.layers.0.mlp"
    assert run.exception == expected.exception and run.explanation == expected.explanation
    assert streamed.recommendation == in_memory.recommendation
    (fix,) = streamed.recommendation.keep_fp32
    assert fix.ok and fix.modules == ["model.layers.0.mlp", "model.layers.1.mlp"]


def test_one_block_is_in_memory_at_a_time(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Structural bound: whenever a block is read, no other block (fp32 or a policy's copy) is alive."""
    layer_class = transformers.LlamaForCausalLM._no_split_modules
    alive_at_reads: list[int] = []
    read = Weights.block

    def counting(self: Weights, index: int) -> torch.nn.Module:
        gc.collect()
        alive_at_reads.append(sum(
            1 for o in gc.get_objects()
            if type(o).__name__ in layer_class and any(not p.is_meta for p in o.parameters())
        ))
        return read(self, index)

    monkeypatch.setattr(Weights, "block", counting)
    skeleton = load_transformers(folders["planted"], meta=True)
    report = cw.diagnose(skeleton.model, skeleton.inputs, policies=["tf32", "bf16-mixed"],
                         loss_fn=skeleton.loss_fn, stream=True)
    passes = 2 * (1 + report.recommendation.keep_fp32[0].tried)  # forward and backward, and so for each trial
    assert alive_at_reads == [0] * (2 * passes)
    batch, length = skeleton.inputs["input_ids"].shape
    assert report.stream is not None
    assert report.stream.activation_bytes == (2 + 1) * 2 * batch * length * 32 * 4  # (blocks+1) x modes x h


def test_report_reads_back_and_follows_the_schema(folders: dict[str, Path]) -> None:
    skeleton = load_transformers(folders["llama"], meta=True)
    seen: list[tuple[str, int, int]] = []
    report = cw.diagnose(skeleton.model, skeleton.inputs, policies=["bf16-mixed"], modes=["eval"], stream=True,
                         progress=lambda description, done, total: seen.append((description, done, total)))
    data = json.loads(report.to_json())
    jsonschema.validate(data, REPORT_SCHEMA)
    assert data["stream"] == {"blocks": 2, "path": "model.layers", "block_bytes": report.stream.block_bytes,
                              "outside_bytes": 2 * 64 * 32 * 4 + 32 * 4, "activation_bytes": 3 * 2 * 16 * 32 * 4}
    assert cw.Report.from_json(report.to_json()) == report
    console = Console(record=True, width=100)
    console.print(render_text(report))
    text = " ".join(console.export_text().split())
    assert "2 blocks of model.layers, one in memory at a time" in text
    assert "Module errors are per block, on the fp32 input of that block" in text
    assert [d for d, _, _ in seen][:3] == ["32-true: embeddings and block inputs", "bf16-mixed: embeddings and "
                                           "block inputs", "block 1/2: 32-true forward"]
    assert [done for _, done, _ in seen] == list(range(len(seen))) and all(done < total for _, done, total in seen)
    for run in [*report.reference, *report.policy("bf16-mixed").runs]:  # each block's and the head's after a warm-up
        assert run.warmup_steps == WARMUP_STEPS and ENOUGH_STEPS <= run.timed_steps <= TIMED_STEPS
    assert "times (each a median after a warm-up) and memory add up the blocks and the head" in text


def test_unsupported_architecture_says_it_needs_the_in_memory_doctor(tmp_path: Path) -> None:
    config = transformers.BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=32)
    transformers.BertModel(config).save_pretrained(tmp_path / "bert")
    skeleton = load_transformers(tmp_path / "bert", meta=True)
    with pytest.raises(StreamError, match="not model_type 'bert': diagnose it with the in-memory doctor"):
        cw.diagnose(skeleton.model, skeleton.inputs, stream=True)
    result = runner.invoke(app, ["doctor", "--hf", str(tmp_path / "bert"), "--stream"])
    assert result.exit_code == 2 and "in-memory doctor" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("change, message", [
    ({"train_steps": 2}, "trial training (train_steps, batches) is in-memory only"),
    ({"policies": ["fp8-mixed"]}, "fp8 policies (fp8-mixed) are diagnosed in memory only: drop them, or diagnose "
                                  "the model in memory (stream=False"),
    ({"checkpoint": "/no/such/folder"}, "pass checkpoint=DIR (/no/such/folder is not a folder)"),
])
def test_settings_streaming_cannot_take_say_so(folders: dict[str, Path], change: dict, message: str) -> None:
    skeleton = load_transformers(folders["llama"], meta=True)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        cw.diagnose(skeleton.model, skeleton.inputs, stream=True, **change)


def test_a_model_in_memory_is_not_streamed(folders: dict[str, Path]) -> None:
    loaded = load_transformers(folders["llama"])
    with pytest.raises(StreamError, match="build the model on the meta device"):
        cw.diagnose(loaded.model, loaded.inputs, stream=True, checkpoint=folders["llama"])


def test_a_checkpoint_without_a_block_says_which(folders: dict[str, Path], tmp_path: Path) -> None:
    skeleton = load_transformers(folders["llama"], meta=True)
    shallow = tmp_path / "shallow"
    transformers.LlamaForCausalLM(_llama(layers=1)).save_pretrained(shallow, max_shard_size=SHARD)
    before = sorted(p.name for p in shallow.iterdir())
    with pytest.raises(StreamError, match="holds no tensors of model.layers.1"):
        cw.diagnose(skeleton.model, skeleton.inputs, stream=True, checkpoint=shallow)
    assert sorted(p.name for p in shallow.iterdir()) == before


def test_a_checkpoint_of_another_shape_says_which_tensor(folders: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "wider"
    shutil.copytree(folders["llama"], folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "intermediate_size": 48}))
    skeleton = load_transformers(folder, meta=True)
    with pytest.raises(StreamError, match=r"checkpoint tensor model.layers.0.mlp.\w+.weight has shape \((64, 32|32, 64)\), "
                                          r"the model's config says \((48, 32|32, 48)\)"):
        cw.diagnose(skeleton.model, skeleton.inputs, stream=True)
    assert {p.name: p.stat().st_size for p in folder.glob("*.safetensors")} == {
        p.name: p.stat().st_size for p in folders["llama"].glob("*.safetensors")}


def test_cli_streams_with_json_and_refuses_train(folders: dict[str, Path]) -> None:
    folder = str(folders["llama"])
    result = runner.invoke(app, ["doctor", "--hf", folder, "--stream", "-p", "bf16-mixed", "--mode", "eval", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    jsonschema.validate(data, REPORT_SCHEMA)
    assert data["stream"]["blocks"] == 2 and data["recommendation"]["policy"] == "bf16-mixed"
    refused = runner.invoke(app, ["doctor", "--hf", folder, "--stream", "--train", "2"])
    assert refused.exit_code == 2 and "trial training runs the whole model in memory" in refused.output
    alone = runner.invoke(app, ["doctor", "--stream"])
    assert alone.exit_code == 2 and "give it with --hf DIR" in alone.output


def test_cli_streams_by_itself_when_the_in_memory_doctor_would_not_fit(
        folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "available_memory", lambda: 1 << 20)
    folder = str(folders["llama"])
    result = runner.invoke(app, ["doctor", "--hf", folder, "-p", "bf16-mixed", "--mode", "eval", "--json"])
    assert result.exit_code == 0, result.output
    assert "streaming the checkpoint one block at a time" in result.stderr
    assert json.loads(result.stdout)["stream"]["path"] == "model.layers"
    refused = runner.invoke(app, ["doctor", "--hf", folder, "-p", "bf16-mixed", "--train", "2"])
    assert refused.exit_code == 2 and "drop --train to diagnose the checkpoint one block at a time" in refused.output


def test_cli_streaming_by_itself_refuses_fp8_policies_without_naming_the_stream_flag_it_was_not_given(
        folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(budget, "available_memory", lambda: 1 << 20)
    out = tmp_path / "r.json"
    refused = runner.invoke(app, ["doctor", "--hf", str(folders["llama"]), "-p", "bf16-mixed", "-p", "fp8",
                                  "--mode", "eval", "--out", str(out)], env={"COLUMNS": "200"})
    assert refused.exit_code == 2 and len(refused.stderr.splitlines()) == 1
    assert "and fp8 policies (fp8) are diagnosed in memory only: drop them to diagnose the checkpoint one block " \
           "at a time (--stream)" in refused.stderr
    assert "without --stream" not in refused.stderr and not out.exists()


def test_cli_stays_in_memory_when_it_fits(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "available_memory", lambda: 1 << 40)
    result = runner.invoke(app, ["doctor", "--hf", str(folders["llama"]), "-p", "bf16-mixed", "--mode", "eval",
                                 "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["stream"] is None
    assert budget.in_memory_fit(folders["llama"], ["eval"]).needed > 4 * sum(
        t.numel for t in cw.inspect(folders["llama"]).tensors)
