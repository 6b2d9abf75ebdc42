"""CastwiseCallback in real transformers.Trainer runs on a tiny Llama (CPU, a few steps)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import torch

import castwise as cw

transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")

from castwise.integrations.transformers import CastwiseCallback, from_pretrained  # noqa: E402
from castwise.integrations.transformers.plan import TrainerMath, check_trainable  # noqa: E402
from castwise.model import PrecisionWarning  # noqa: E402

NORMS = ("model.layers.0.input_layernorm", "model.layers.0.post_attention_layernorm", "model.norm")


def tiny_llama(dtype: torch.dtype = torch.float32) -> transformers.LlamaForCausalLM:
    config = transformers.LlamaConfig(
        vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
        bos_token_id=1, eos_token_id=2, pad_token_id=0,
    )
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(config).to(dtype)


class Tokens(torch.utils.data.Dataset):
    """Eight random token rows, each its own label."""

    def __init__(self) -> None:
        self.ids = torch.randint(3, 32, (8, 6), generator=torch.Generator().manual_seed(1))

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return {"input_ids": self.ids[index], "labels": self.ids[index]}


def trainer(model, out: Path, callbacks=(), optimizers=(None, None), **overrides) -> transformers.Trainer:
    settings = {
        "output_dir": str(out), "max_steps": 4, "per_device_train_batch_size": 4, "learning_rate": 1e-3,
        "logging_steps": 2, "save_strategy": "no", "bf16": True, "report_to": [], "use_cpu": True,
        "disable_tqdm": True,
    }
    args = transformers.TrainingArguments(**{**settings, **overrides})
    return transformers.Trainer(
        model=model, args=args, train_dataset=Tokens(), callbacks=list(callbacks), optimizers=optimizers
    )


def stored(path: Path) -> dict[str, torch.dtype]:
    return {t.name: t.dtype for t in cw.inspect(path).tensors}


def assert_storage(path: Path, dtype: torch.dtype) -> None:
    """Norms fp32, every other tensor ``dtype``, config.json declaring ``dtype``."""
    dtypes = stored(path)
    assert len(dtypes) == 12
    for name, stored_dtype in dtypes.items():
        assert stored_dtype == (torch.float32 if name.removesuffix(".weight") in NORMS else dtype), name
    assert json.loads((path / "config.json").read_text())["dtype"] == str(dtype).removeprefix("torch.")


def test_checkpoints_and_save_model_are_written_in_the_save_dtype(tmp_path):
    model = tiny_llama()
    run = trainer(model, tmp_path / "run", [CastwiseCallback("bf16-mixed", save_dtype="bf16")],
                  save_strategy="steps", save_steps=2)
    run.train()
    assert {p.dtype for p in model.parameters()} == {torch.float32}, "fp32 master weights trained"
    middle = tmp_path / "run" / "checkpoint-2"
    assert_storage(middle, torch.bfloat16)
    assert {"optimizer.pt", "trainer_state.json", "training_args.bin"} <= {p.name for p in middle.iterdir()}
    run.save_model(str(tmp_path / "final"))
    assert_storage(tmp_path / "final", torch.bfloat16)
    assert (tmp_path / "final" / "training_args.bin").exists()

    loaded = from_pretrained(tmp_path / "final", transformers.LlamaForCausalLM)
    for name, param in loaded.named_parameters():
        expected = model.get_parameter(name).detach().to(param.dtype)
        assert torch.equal(param, expected), name


def test_plain_trainer_saves_the_fp32_master_weights(tmp_path):
    run = trainer(tiny_llama(), tmp_path / "run")
    run.train()
    run.save_model(str(tmp_path / "final"))
    assert set(stored(tmp_path / "final").values()) == {torch.float32}


def test_a_callback_added_after_construction_still_rules_the_saves(tmp_path):
    run = trainer(tiny_llama(), tmp_path / "run", max_steps=1)
    run.add_callback(CastwiseCallback("bf16-mixed", save_dtype="bf16"))
    run.train()
    run.save_model(str(tmp_path / "final"))
    assert_storage(tmp_path / "final", torch.bfloat16)


def test_sharded_checkpoints_keep_the_storage_rules(tmp_path):
    callback = CastwiseCallback("bf16-mixed", save_dtype="bf16", max_shard_size="2KB")
    run = trainer(tiny_llama(), tmp_path / "run", [callback], max_steps=2, save_strategy="steps", save_steps=2)
    run.train()
    middle = tmp_path / "run" / "checkpoint-2"
    shards = sorted(p.name for p in middle.glob("model-*.safetensors"))
    assert len(shards) > 1 and (middle / "model.safetensors.index.json").exists()
    assert not (middle / "model.safetensors").exists()
    assert_storage(middle, torch.bfloat16)


@pytest.mark.parametrize(
    ("loaded_in", "save_dtype", "expected"),
    [
        (None, None, torch.float32),                    # built from a config: the policy's param dtype
        (torch.bfloat16, None, torch.bfloat16),         # loaded in bf16: written back in bf16
        (torch.float32, None, torch.float32),           # loaded in fp32 on purpose
        (torch.float32, "bf16", torch.bfloat16),        # an explicit dtype wins
    ],
)
def test_save_dtype_defaults_to_the_dtype_the_model_was_loaded_in(tmp_path, loaded_in, save_dtype, expected):
    model = tiny_llama()
    if loaded_in is not None:
        model.to(torch.bfloat16).save_pretrained(tmp_path / "hub")
        model = transformers.LlamaForCausalLM.from_pretrained(tmp_path / "hub", dtype=loaded_in)
    callback = CastwiseCallback("bf16-mixed", save_dtype=save_dtype)
    run = trainer(model, tmp_path / "run", [callback], max_steps=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)
        run.train()
    run.save_model(str(tmp_path / "final"))
    assert callback.save_dtype == expected
    assert_storage(tmp_path / "final", expected)


def _pure_warnings(record: list[warnings.WarningMessage]) -> list[str]:
    messages = [str(w.message) for w in record if issubclass(w.category, PrecisionWarning)]
    return [message for message in messages if "pure bf16" in message]


@pytest.mark.parametrize(
    ("dtype", "updates", "warned"),
    [(torch.bfloat16, None, True), (torch.bfloat16, "kahan", False), (torch.bfloat16, "stochastic", False),
     (torch.float32, None, False)],
)
def test_pure_bf16_warning_fires_only_for_uncompensated_bf16_weights(tmp_path, dtype, updates, warned):
    pytest.importorskip("optimi")
    model = tiny_llama(dtype)
    callback = CastwiseCallback("bf16-mixed")
    optimizers = (None, None)
    if updates is not None:
        optimizers = (cw.make_optimizer(model, "adamw", lr=1e-3, updates=updates), None)
    run = trainer(model, tmp_path / "run", [callback], optimizers=optimizers, max_steps=1)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        run.train()
    found = _pure_warnings(record)
    assert bool(found) == warned
    plan = callback.plan
    assert plan is not None and plan.running.param_dtype == dtype
    assert plan.update_rule == (updates or "none")
    if warned:
        assert "3,584 trainable parameters are bf16" in found[0]
        assert "dtype=torch.float32" in found[0] and "updates='kahan'" in found[0]
        assert "the policy bf16-mixed keeps fp32 master weights" in found[0]
        assert found[0] in str(plan)


def test_the_plan_says_what_will_really_happen(tmp_path):
    callback = CastwiseCallback("bf16-mixed", save_dtype="bf16")
    trainer(tiny_llama(torch.bfloat16), tmp_path / "run", [callback], max_steps=1).train()
    plan = callback.plan
    assert plan is not None
    assert plan.math == TrainerMath(torch.bfloat16, False, False, "TrainingArguments bf16=True")
    assert plan.kept == NORMS and plan.optimizer == "AdamW"
    assert plan.trainable == {"bfloat16": 3584}
    text = str(plan)
    assert "pure bf16, no fp32 master copy" in text and "bf16 autocast (TrainingArguments bf16=True)" in text
    assert "3 modules kept fp32" in text and "config.json dtype bfloat16" in text


def test_policy_and_arguments_that_disagree_are_named(tmp_path):
    callback = CastwiseCallback("bf16-mixed")
    run = trainer(tiny_llama(), tmp_path / "run", [callback], max_steps=1, bf16=False)
    with pytest.warns(PrecisionWarning, match="computes in bf16 but the Trainer will compute in f32.*pass bf16=True"):
        run.train()
    assert callback.plan is not None and callback.plan.running.compute_dtype == torch.float32


def test_fp16_on_cpu_is_named_as_doing_nothing(tmp_path):
    callback = CastwiseCallback("16-mixed")
    run = trainer(tiny_llama(), tmp_path / "run", [callback], max_steps=1, bf16=False, fp16=True)
    with pytest.warns(PrecisionWarning, match="fp16=True, which Accelerate ignores on CPU"):
        run.train()
    assert callback.plan is not None and callback.plan.math.autocast is None


def test_fp16_weights_under_the_grad_scaler_are_refused():
    model = tiny_llama(torch.float16)
    with pytest.raises(ValueError, match="3,632 trainable fp16 parameters.*GradScaler refuses fp16 gradients"):
        check_trainable(model, TrainerMath(torch.float16, True, False, "TrainingArguments fp16=True"))
    check_trainable(tiny_llama(), TrainerMath(torch.float16, True, False, "TrainingArguments fp16=True"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the Trainer's GradScaler exists only on a GPU")
def test_fp16_weights_with_fp16_true_fail_at_trainer_construction(tmp_path):
    model = tiny_llama(torch.float16)
    with pytest.raises(ValueError, match="GradScaler refuses fp16 gradients"):
        trainer(model, tmp_path / "run", [CastwiseCallback("16-mixed")], bf16=False, fp16=True, use_cpu=False)
    assert {p.dtype for p in model.parameters()} == {torch.float16}


def test_kept_modules_are_fp32_and_compute_in_fp32_under_bf16_weights(tmp_path):
    model = tiny_llama(torch.bfloat16)
    seen: list[tuple[torch.dtype, torch.dtype]] = []
    model.model.norm.register_forward_hook(lambda module, args, out: seen.append((args[0].dtype, out.dtype)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)
        trainer(model, tmp_path / "run", [CastwiseCallback("bf16-true")], max_steps=1, bf16=False).train()
    assert {model.get_submodule(n).weight.dtype for n in NORMS} == {torch.float32}
    assert model.model.embed_tokens.weight.dtype == torch.bfloat16
    # an fp32 RMSNorm weight times bf16 gives fp32: castwise hands the bf16 that came in back,
    # so the bf16 Linears after it run with no autocast (plain transformers raises a dtype error)
    assert seen and set(seen) == {(torch.bfloat16, torch.bfloat16)}
    logits = model(input_ids=Tokens().ids[:2]).logits
    assert logits.dtype == torch.bfloat16


def test_health_metrics_reach_the_log_history(tmp_path):
    callback = CastwiseCallback("bf16-mixed")
    run = trainer(tiny_llama(torch.bfloat16), tmp_path / "run", [callback], learning_rate=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)
        run.train()
    logged = [entry for entry in run.state.log_history if "loss" in entry]
    assert [entry["step"] for entry in logged] == [2, 4]
    for entry in logged:
        assert 0.5 < entry["castwise/swamping_rate"] <= 1.0, "lr 1e-5 on bf16 weights: most updates lost"
        assert entry["castwise/grad_underflow"] == 0.0 and entry["castwise/nonfinite_grads"] == 0.0
    assert not any("castwise/swamping_rate" in e for e in run.state.log_history if "loss" not in e)
    assert callback._monitor is not None and callback._monitor.samples == 2


def test_fp32_master_weights_lose_no_updates(tmp_path):
    callback = CastwiseCallback("bf16-mixed")
    run = trainer(tiny_llama(), tmp_path / "run", [callback], learning_rate=1e-5)
    run.train()
    rates = [e["castwise/swamping_rate"] for e in run.state.log_history if "loss" in e]
    assert len(rates) == 2 and max(rates) < 0.01


def test_monitor_off_logs_nothing_extra(tmp_path):
    run = trainer(tiny_llama(), tmp_path / "run", [CastwiseCallback("bf16-mixed", monitor=False)])
    run.train()
    assert not any(key.startswith("castwise/") for entry in run.state.log_history for key in entry)


def test_trl_sft_trainer_with_the_callback(tmp_path):
    trl = pytest.importorskip("trl", reason="TRL is not installed with this torch")
    datasets = pytest.importorskip("datasets")
    tokenizers = pytest.importorskip("tokenizers")
    words = ["<pad>", "<s>", "</s>", "<unk>"] + [f"w{i}" for i in range(28)]
    backend = tokenizers.Tokenizer(tokenizers.models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    backend.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    texts = [" ".join(f"w{(i * 3 + j) % 28}" for j in range(6)) for i in range(8)]
    config = trl.SFTConfig(
        output_dir=str(tmp_path / "sft"), max_steps=2, per_device_train_batch_size=4, logging_steps=1,
        save_strategy="steps", save_steps=2, bf16=True, report_to=[], use_cpu=True, disable_tqdm=True,
        max_length=16,
    )
    callback = CastwiseCallback("bf16-mixed", save_dtype="bf16")
    sft = trl.SFTTrainer(
        model=tiny_llama(), args=config, train_dataset=datasets.Dataset.from_dict({"text": texts}),
        processing_class=tokenizer, callbacks=[callback],
    )
    sft.train()
    assert_storage(tmp_path / "sft" / "checkpoint-2", torch.bfloat16)
    assert (tmp_path / "sft" / "checkpoint-2" / "tokenizer.json").exists()
    assert any("castwise/swamping_rate" in entry for entry in sft.state.log_history)
