"""save_pretrained writes into a folder without losing files; from_pretrained models run as loaded."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import castwise as cw
from castwise.checkpoint import CheckpointError

transformers = pytest.importorskip("transformers")

from castwise.integrations.transformers import from_pretrained, save_pretrained  # noqa: E402
from castwise.model.keep_fp32 import detach_fp32_compute  # noqa: E402

IDS = torch.tensor([[3, 4, 5, 6, 7]])


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative name) with the SHA-256 of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture
def user_folder(tmp_path: Path) -> Path:
    """A folder a user already has: a tokenizer file, a note and a Trainer checkpoint."""
    folder = tmp_path / "out"
    (folder / "checkpoint-1").mkdir(parents=True)
    (folder / "tokenizer.json").write_text('{"model": {"vocab": {"a": 0}}}\n')
    (folder / "NOTES.md").write_text("fine-tuned on the March data; do not delete\n")
    (folder / "checkpoint-1" / "model.safetensors").write_bytes(b"not really weights")
    (folder / "checkpoint-1" / "trainer_state.json").write_text('{"global_step": 1}\n')
    return folder


OURS = ("model.safetensors", "config.json", "generation_config.json")


def theirs(files: dict[str, str]) -> dict[str, str]:
    """The files save_pretrained does not write."""
    return {name: digest for name, digest in files.items() if name not in OURS}


def test_files_it_does_not_own_survive_byte_for_byte(llama, user_folder):
    before = snapshot(user_folder)
    save_pretrained(cw.apply(llama, "bf16-mixed"), user_folder, dtype="bf16")
    after = snapshot(user_folder)
    assert theirs(after) == before
    assert set(OURS) <= set(after)
    assert cw.inspect(user_folder).declared_dtype == "bfloat16"
    assert not [p for p in user_folder.parent.iterdir() if ".castwise-" in p.name], "no staging left behind"


def test_existing_weights_are_replaced_only_with_force(llama, user_folder):
    save_pretrained(llama, user_folder, dtype="bf16")
    before = snapshot(user_folder)
    with pytest.raises(CheckpointError, match=r"already holds model weights \(model.safetensors\); pass force=True"):
        save_pretrained(llama, user_folder, dtype="f16")
    assert snapshot(user_folder) == before
    save_pretrained(llama, user_folder, dtype="f16", force=True)
    assert theirs(snapshot(user_folder)) == theirs(before)
    assert cw.inspect(user_folder).declared_dtype == "float16"
    assert cw.load(user_folder)["model.layers.0.mlp.up_proj.weight"].dtype == torch.float16


def test_force_removes_the_shards_of_an_earlier_save(llama, user_folder):
    save_pretrained(llama, user_folder, dtype="bf16", max_shard_size="2KB")
    assert len(list(user_folder.glob("model-*-of-*.safetensors"))) > 1
    save_pretrained(llama, user_folder, dtype="bf16", force=True)
    assert not list(user_folder.glob("model-*.safetensors"))
    assert not (user_folder / "model.safetensors.index.json").exists()
    assert (user_folder / "tokenizer.json").exists() and (user_folder / "checkpoint-1" / "trainer_state.json").exists()
    loaded = from_pretrained(user_folder, transformers.LlamaForCausalLM)
    assert torch.equal(loaded.lm_head.weight, llama.lm_head.weight.to(torch.bfloat16))


def test_a_failed_save_changes_nothing(llama, user_folder, tmp_path):
    before = snapshot(user_folder)
    with pytest.raises(ValueError):
        save_pretrained(llama, user_folder, dtype="bf16", max_shard_size="a lot")
    assert snapshot(user_folder) == before
    with pytest.raises(ValueError):
        save_pretrained(llama, tmp_path / "new", dtype="bf16", max_shard_size="a lot")
    assert not (tmp_path / "new").exists()
    assert not [p for p in tmp_path.iterdir() if ".castwise-" in p.name]


def test_a_file_in_the_way_is_refused(llama, tmp_path):
    target = tmp_path / "model"
    target.write_text("mine\n")
    with pytest.raises(CheckpointError, match="is a file"):
        save_pretrained(llama, target, dtype="bf16")
    assert target.read_text() == "mine\n"


def test_a_module_that_is_not_a_transformers_model_is_refused(tmp_path):
    with pytest.raises(TypeError, match="transformers PreTrainedModel, got Linear"):
        save_pretrained(torch.nn.Linear(2, 2), tmp_path / "model", dtype="bf16")
    assert not (tmp_path / "model").exists()


def test_pushing_from_save_pretrained_is_refused(llama, tmp_path):
    with pytest.raises(TypeError, match="upload_folder"):
        save_pretrained(llama, tmp_path / "model", dtype="bf16", push_to_hub=True)
    assert not (tmp_path / "model").exists()


def greedy(model, steps: int = 3) -> torch.Tensor:
    tokens = IDS
    for _ in range(steps):
        tokens = torch.cat([tokens, model(input_ids=tokens).logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return tokens


def assert_runs_as_loaded(model, reference) -> None:
    """Forward and generate on the model as loaded: bf16 logits close to the fp32 reference's."""
    with torch.no_grad():
        logits = model(input_ids=IDS).logits
        assert logits.dtype == torch.bfloat16
        torch.testing.assert_close(logits.float(), reference(input_ids=IDS).logits, atol=5e-2, rtol=5e-2)
        generated = model.generate(IDS, max_new_tokens=3, do_sample=False)
        assert torch.equal(generated, greedy(model))


def test_a_converted_llama_runs_as_loaded(llama, tmp_path):
    llama.save_pretrained(tmp_path / "fp32")
    cw.convert(tmp_path / "fp32", tmp_path / "bf16", "bf16")
    stored = cw.inspect(tmp_path / "bf16").dtypes()
    assert stored["model.norm.weight"] == "float32" and stored["lm_head.weight"] == "bfloat16"

    model = from_pretrained(tmp_path / "bf16", transformers.LlamaForCausalLM).eval()
    assert model.model.norm.weight.dtype == torch.float32
    assert_runs_as_loaded(model, llama)

    detach_fp32_compute(model)
    with pytest.raises(RuntimeError, match="dtype"):
        model(input_ids=IDS)


def test_a_gpt2_saved_in_bf16_runs_as_loaded(gpt2, tmp_path):
    save_pretrained(gpt2, tmp_path / "gpt2", dtype="bf16")
    model = from_pretrained(tmp_path / "gpt2", transformers.GPT2LMHeadModel).eval()
    norms = [m for m in model.modules() if isinstance(m, torch.nn.LayerNorm)]
    assert len(norms) == 3 and {m.weight.dtype for m in norms} == {torch.float32}
    assert model.transformer.h[0].attn.c_attn.weight.dtype == torch.bfloat16
    assert_runs_as_loaded(model, gpt2)


def test_an_all_fp32_folder_is_loaded_untouched(llama, tmp_path):
    llama.save_pretrained(tmp_path / "fp32")
    model = from_pretrained(tmp_path / "fp32", transformers.LlamaForCausalLM)
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    assert type(model.model.norm) is type(llama.model.norm)


def test_the_staging_folder_of_a_killed_save_is_removed_by_the_next_save(llama, tmp_path):
    code = (
        "import time, torch, transformers\n"
        "import castwise.integrations.transformers.folders as folders\n"
        "def hang(*args, **kwargs):\n"
        "    print('started', flush=True)\n"
        "    time.sleep(60)\n"
        "folders.convert = hang\n"
        "config = transformers.LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,\n"
        "                                  num_attention_heads=2, num_key_value_heads=2)\n"
        f"folders.save_pretrained(transformers.LlamaForCausalLM(config), {str(tmp_path / 'out')!r}, dtype='bf16')\n"
    )
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert "started" in (line.strip() for line in process.stdout)  # past any library's log lines (DeepSpeed's)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    [litter] = [p for p in tmp_path.iterdir() if ".castwise-" in p.name]
    assert re.fullmatch(rf"\.out\.castwise-{process.pid}-[0-9a-f]{{8}}\.tmp", litter.name)
    assert (litter / "saved" / "model.safetensors").exists() and not (tmp_path / "out").exists()
    save_pretrained(llama, tmp_path / "out", dtype="bf16")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert cw.inspect(tmp_path / "out").declared_dtype == "bfloat16"
