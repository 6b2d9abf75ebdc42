"""A config.json decides nothing about how much work castwise does: junk types, huge counts and
widths, and skeletons with too many modules fall back to the name rule with a one-line reason."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import save_file

import castwise as cw
from castwise.checkpoint import CheckpointError, skeleton_limits

pytest.importorskip("transformers")

_LLAMA = {"model_type": "llama", "hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2, "vocab_size": 64}


def _folder(tmp_path, config: object) -> object:
    folder = tmp_path / "model"
    folder.mkdir()
    save_file(
        {"model.norm.weight": torch.ones(16), "model.layers.0.mlp.up_proj.weight": torch.ones(32, 16)},
        folder / "model.safetensors",
    )
    (folder / "config.json").write_text(config if isinstance(config, str) else json.dumps(config))
    return folder


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({**_LLAMA, "architectures": 9}, "'architectures' is not a short list of class names (got 9)"),
        ({**_LLAMA, "architectures": [1, "LlamaForCausalLM"]}, "'architectures' is not a short list"),
        ({**_LLAMA, "architectures": ["x" * 500]}, "'architectures' is not a short list"),
        ({**_LLAMA, "architectures": ["Llama\nForCausalLM"]}, "'architectures' is not a short list"),
        ({**_LLAMA, "a\nb": 10**9}, "its 'a\\nb' is 1,000,000,000, more than the 16,777,216"),
        ({**_LLAMA, "model_type": 5}, "names no model_type (not a transformers config): got 5"),
        ({**_LLAMA, "model_type": "../../evil"}, "its model_type '../../evil' is not a model type name"),
        ({**_LLAMA, "num_hidden_layers": 10**9}, "its 'num_hidden_layers' is 1,000,000,000, more than the 65,536"),
        ({**_LLAMA, "hidden_size": 2**40}, "its 'hidden_size' is 1,099,511,627,776, more than the 16,777,216"),
        ({**_LLAMA, "text_config": {"num_experts": [2**20]}}, "its 'text_config.num_experts' is 1,048,576"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_junk_configs_fall_back_to_the_name_rule_with_the_reason(tmp_path, config, reason):
    folder = _folder(tmp_path, config)
    if isinstance(config, list):  # not an object: no dtype to read either, a clear error for convert
        with pytest.raises(CheckpointError, match=reason):
            cw.convert(folder, tmp_path / "out", "bf16")
        return
    result = cw.convert(folder, tmp_path / "out", "bf16")
    assert result.keep_rule.startswith("norm name spellings") and reason in result.keep_rule
    assert "\n" not in result.keep_rule
    assert cw.load(tmp_path / "out")["model.norm.weight"].dtype == torch.float32


def test_a_skeleton_that_builds_too_many_modules_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(skeleton_limits, "MAX_MODULES", 100)
    folder = _folder(tmp_path, {**_LLAMA, "num_hidden_layers": 20})  # 13 modules a layer
    result = cw.convert(folder, tmp_path / "out", "bf16")
    assert "transformers could not build llama (it builds more than 100 modules)" in result.keep_rule
    monkeypatch.undo()
    result = cw.convert(folder, tmp_path / "again", "bf16")
    assert result.keep_rule == "module classes from the transformers skeleton of LlamaModel"


def test_an_oversized_config_is_a_finding_for_inspect_and_an_error_for_convert(tmp_path, monkeypatch):
    from castwise.checkpoint import hf_config

    folder = _folder(tmp_path, _LLAMA)
    monkeypatch.setattr(hf_config, "MAX_CONFIG_BYTES", 50)
    assert any("more than the 50 bytes castwise reads" in f for f in cw.inspect(folder).findings)
    with pytest.raises(CheckpointError, match="more than the 50 bytes castwise reads"):
        cw.convert(folder, tmp_path / "out", "bf16")
    assert not (tmp_path / "out").exists()


def test_no_skeleton_is_built_under_zero_init_inside_a_zero3_run(tmp_path, monkeypatch):
    """In a process whose Trainer registered a ZeRO-3 config, AutoModel would build under zero.Init and
    wait for every rank: the class named in the config is built directly, or the name rule is used."""
    pytest.importorskip("deepspeed")
    monkeypatch.setenv("DS_ACCELERATOR", "cpu")
    from transformers.integrations.deepspeed import HfDeepSpeedConfig, unset_hf_deepspeed_config

    registered = HfDeepSpeedConfig({"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": 1})
    try:
        result = cw.convert(_folder(tmp_path, _LLAMA), tmp_path / "out", "bf16")
        assert result.keep_rule.startswith("norm name spellings")
        assert "a DeepSpeed ZeRO-3 config is registered in this process" in result.keep_rule
        (tmp_path / "named").mkdir()
        named = _folder(tmp_path / "named", {**_LLAMA, "architectures": ["LlamaForCausalLM"]})
        result = cw.convert(named, tmp_path / "named_out", "bf16")
        assert result.keep_rule == "module classes from the transformers skeleton of LlamaForCausalLM"
    finally:
        unset_hf_deepspeed_config()
    del registered
    (tmp_path / "after").mkdir()
    result = cw.convert(_folder(tmp_path / "after", _LLAMA), tmp_path / "after_out", "bf16")
    assert result.keep_rule == "module classes from the transformers skeleton of LlamaModel"
