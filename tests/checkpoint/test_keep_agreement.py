"""One keep-fp32 rule: cw.apply, cw.save, cw.convert and ``castwise convert`` keep the same tensors.

Tiny GPT-2, Llama, BERT, T5 and Mixtral models are built from transformers configs and saved
fp32 with ``save_pretrained``; every tensor's dtype is compared across the four paths.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

import castwise as cw
from castwise.checkpoint import CheckpointError
from castwise.cli import app

transformers = pytest.importorskip("transformers")

_SMALL = dict(hidden_size=16, intermediate_size=32, num_attention_heads=2, vocab_size=64)
ARCHITECTURES = {
    "gpt2": (
        transformers.GPT2LMHeadModel,
        lambda: transformers.GPT2Config(
            n_layer=2, n_embd=16, n_head=2, vocab_size=64, n_positions=32, bos_token_id=0, eos_token_id=0
        ),
        {"ln_1", "ln_2", "ln_f"},
    ),
    "llama": (
        transformers.LlamaForCausalLM,
        lambda: transformers.LlamaConfig(num_hidden_layers=2, num_key_value_heads=1, **_SMALL),
        {"input_layernorm", "post_attention_layernorm", "norm"},
    ),
    "bert": (
        transformers.BertForMaskedLM,
        lambda: transformers.BertConfig(num_hidden_layers=2, max_position_embeddings=32, **_SMALL),
        {"LayerNorm"},
    ),
    "t5": (
        transformers.T5ForConditionalGeneration,
        lambda: transformers.T5Config(
            num_layers=2, num_decoder_layers=2, d_model=16, d_ff=32, d_kv=8, num_heads=2, vocab_size=64
        ),
        {"layer_norm", "final_layer_norm", "wo"},  # T5 declares `wo` fp32 (_keep_in_fp32_modules)
    ),
    "mixtral": (
        transformers.MixtralForCausalLM,
        lambda: transformers.MixtralConfig(
            num_hidden_layers=2, num_key_value_heads=1, num_local_experts=4, num_experts_per_tok=2, **_SMALL
        ),
        {"input_layernorm", "post_attention_layernorm", "norm"},
    ),
}

runner = CliRunner()


def _build(arch: str) -> torch.nn.Module:
    model_class, config, _ = ARCHITECTURES[arch]
    torch.manual_seed(0)
    return model_class(config()).eval()


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[torch.nn.Module, Path]]:
    """Each architecture: its fp32 model and the folder ``save_pretrained`` wrote."""
    root = tmp_path_factory.mktemp("keep_agreement")
    models = {}
    for arch in ARCHITECTURES:
        model = _build(arch)
        model.save_pretrained(root / arch)
        models[arch] = (model, root / arch)
    return models


def _file_dtypes(path: Path) -> dict[str, torch.dtype]:
    return {t.name: t.dtype for t in cw.inspect(path).tensors}


def _applied_dtypes(model: torch.nn.Module, policy: cw.Policy | str = "bf16-true") -> dict[str, torch.dtype]:
    applied = cw.apply(copy.deepcopy(model), policy)
    return {name: tensor.dtype for name, tensor in cw.unwrap(applied).state_dict().items()}


def _cli_convert(src: Path, dst: Path, *extra: str) -> dict[str, object]:
    result = runner.invoke(app, ["convert", str(src), str(dst), "--dtype", "bf16", "--json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _fp32(dtypes: dict[str, torch.dtype]) -> set[str]:
    return {name for name, dtype in dtypes.items() if dtype == torch.float32}


def _owned_by(names: set[str] | dict[str, torch.dtype], leaves: set[str]) -> set[str]:
    return {n for n in names if n.rsplit(".", 2)[-2] in leaves}


@pytest.mark.parametrize("arch", list(ARCHITECTURES))
def test_apply_save_convert_and_cli_agree_on_every_tensor(saved, tmp_path, arch):
    model, folder = saved[arch]
    applied = _applied_dtypes(model)
    saved_file = _file_dtypes(cw.save(model, tmp_path / "saved.safetensors", dtype="bf16"))
    result = cw.convert(folder, tmp_path / "converted", dtype="bf16")
    converted = _file_dtypes(tmp_path / "converted")
    cli = _cli_convert(folder, tmp_path / "cli")
    by_cli = _file_dtypes(tmp_path / "cli")

    kept = ARCHITECTURES[arch][2]
    assert _fp32(applied) == _owned_by(applied, kept) and _fp32(applied)
    assert saved_file == applied
    assert by_cli == converted
    shared = converted.keys() & applied.keys()
    assert {n: converted[n] for n in shared} == {n: applied[n] for n in shared}
    # Tied weights the file stores once (lm_head, T5's embed_tokens) are in the state dict only.
    assert converted.keys() <= applied.keys() or arch == "mixtral"
    skeleton = f"module classes from the transformers skeleton of {type(model).__name__}"
    assert result.keep_rule.startswith(skeleton) and cli["keep_rule"] == result.keep_rule
    assert _fp32(converted) == _owned_by(converted, kept)


def test_mixtral_experts_stored_under_their_legacy_names_are_cast_like_the_fused_ones(saved, tmp_path):
    model, folder = saved["mixtral"]
    applied = _applied_dtypes(model)
    result = cw.convert(folder, tmp_path / "out", dtype="bf16")
    converted = _file_dtypes(tmp_path / "out")
    legacy = converted.keys() - applied.keys()
    fused = applied.keys() - converted.keys()
    assert legacy and all(".block_sparse_moe." in n for n in legacy)
    assert {converted[n] for n in legacy} == {torch.bfloat16} == {applied[n] for n in fused}
    assert f"; {len(legacy)} stored names it does not hold" in result.keep_rule


def test_a_file_without_config_keeps_gpt2_norms_by_their_name_spellings(saved, tmp_path):
    _, folder = saved["gpt2"]
    shutil.copy(folder / "model.safetensors", tmp_path / "gpt2.safetensors")
    result = cw.convert(tmp_path / "gpt2.safetensors", tmp_path / "out.safetensors", dtype="bf16")
    dtypes = _file_dtypes(tmp_path / "out.safetensors")
    assert _fp32(dtypes) == _owned_by(dtypes, {"ln_1", "ln_2", "ln_f"})
    assert len(_fp32(dtypes)) == 10 and set(dtypes.values()) == {torch.float32, torch.bfloat16}
    assert result.keep_rule.startswith("norm name spellings") and "no config.json" in result.keep_rule
    cli = _cli_convert(tmp_path / "gpt2.safetensors", tmp_path / "cli.safetensors")
    assert _file_dtypes(tmp_path / "cli.safetensors") == dtypes and cli["keep_rule"] == result.keep_rule
    assert "decided by norm name spellings" in " ".join(cw.inspect(tmp_path / "out.safetensors").findings)


@pytest.mark.parametrize("arch", list(ARCHITECTURES))
def test_name_spellings_match_the_classes_except_what_a_model_declares(saved, tmp_path, arch):
    model, folder = saved[arch]
    shutil.copy(folder / "model.safetensors", tmp_path / "bare.safetensors")
    cw.convert(tmp_path / "bare.safetensors", tmp_path / "out.safetensors", dtype="bf16")
    by_names = _file_dtypes(tmp_path / "out.safetensors")
    by_state_dict = _file_dtypes(cw.save(model.state_dict(), tmp_path / "state.safetensors", dtype="bf16"))
    applied = _applied_dtypes(model)
    differ = {n for n in by_names.keys() & applied.keys() if by_names[n] != applied[n]}
    assert differ == (_owned_by(by_names, {"wo"}) if arch == "t5" else set())
    shared = by_names.keys() & by_state_dict.keys()
    assert shared and {n: by_state_dict[n] for n in shared} == {n: by_names[n] for n in shared}


def test_a_lowercase_glob_matches_bert_layernorm_under_apply_save_and_convert(saved, tmp_path):
    model, folder = saved["bert"]
    policy = cw.Policy.parse("bf16-true").replace(keep_fp32=("*layernorm*",))
    applied = _applied_dtypes(model, policy)
    saved_file = _file_dtypes(cw.save(model, tmp_path / "s.safetensors", dtype="bf16", keep_fp32=["*layernorm*"]))
    cw.convert(folder, tmp_path / "c", dtype="bf16", keep_fp32=["*layernorm*"])
    converted = _file_dtypes(tmp_path / "c")
    cli_converted = _cli_convert(folder, tmp_path / "cli", "--keep-fp32", "*layernorm*")
    expected = _owned_by(applied, {"LayerNorm"})
    assert len(expected) == 12 and _fp32(applied) == expected
    assert saved_file == applied
    assert _fp32(converted) == expected & converted.keys() == _fp32(_file_dtypes(tmp_path / "cli"))
    assert cli_converted["keep_rule"] == "module classes from the transformers skeleton of BertForMaskedLM"


def test_a_class_glob_reaches_a_file_through_the_skeleton_and_only_through_it(saved, tmp_path):
    model, folder = saved["gpt2"]
    policy = cw.Policy.parse("bf16-true").replace(keep_fp32=("GPT2MLP",))
    applied = _applied_dtypes(model, policy)
    cw.convert(folder, tmp_path / "c", dtype="bf16", keep_fp32=["GPT2MLP"])
    converted = _file_dtypes(tmp_path / "c")
    assert _fp32(applied) == {n for n in applied if ".mlp." in n} and len(_fp32(applied)) == 8
    assert {n: converted[n] for n in converted} == {n: applied[n] for n in converted}
    shutil.copy(folder / "model.safetensors", tmp_path / "bare.safetensors")
    with pytest.raises(CheckpointError, match="'GPT2MLP' matches no tensor .*module classes are unknown"):
        cw.convert(tmp_path / "bare.safetensors", tmp_path / "bare_out.safetensors", dtype="bf16", keep_fp32=["GPT2MLP"])
    assert not (tmp_path / "bare_out.safetensors").exists()


def test_a_tied_weight_stored_once_follows_the_name_the_glob_keeps(saved, tmp_path):
    model, folder = saved["gpt2"]
    policy = cw.Policy.parse("bf16-true").replace(keep_fp32=("*lm_head*",))
    applied = _applied_dtypes(model, policy)
    saved_file = _file_dtypes(cw.save(model, tmp_path / "s.safetensors", dtype="bf16", keep_fp32=["*lm_head*"]))
    cw.convert(folder, tmp_path / "c", dtype="bf16", keep_fp32=["*lm_head*"])
    converted = _file_dtypes(tmp_path / "c")
    assert "lm_head.weight" not in converted
    assert applied["lm_head.weight"] == applied["transformer.wte.weight"] == torch.float32
    assert saved_file == applied and _fp32(applied) == {"lm_head.weight", "transformer.wte.weight"}
    assert _fp32(converted) == {"transformer.wte.weight"}


def test_files_saved_from_the_base_model_map_onto_the_head_models_skeleton(tmp_path):
    base = transformers.GPT2Model(ARCHITECTURES["gpt2"][1]())
    base.save_pretrained(tmp_path / "base")
    config = json.loads((tmp_path / "base" / "config.json").read_text())
    config["architectures"] = ["GPT2LMHeadModel"]  # as in the original gpt2 folder: no "transformer." prefix
    (tmp_path / "base" / "config.json").write_text(json.dumps(config))
    result = cw.convert(tmp_path / "base", tmp_path / "out", dtype="bf16")
    converted = _file_dtypes(tmp_path / "out")
    assert "h.0.ln_1.weight" in converted
    assert _fp32(converted) == _owned_by(converted, {"ln_1", "ln_2", "ln_f"}) and len(_fp32(converted)) == 10
    assert result.keep_rule == "module classes from the transformers skeleton of GPT2LMHeadModel"


def test_an_architecture_transformers_lacks_falls_back_without_running_the_folders_code(saved, tmp_path):
    _, folder = saved["gpt2"]
    shutil.copytree(folder, tmp_path / "custom")
    marker = tmp_path / "code_ran"
    (tmp_path / "custom" / "modeling_custom.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    config = json.loads((tmp_path / "custom" / "config.json").read_text())
    config.update(
        model_type="castwise-custom",
        architectures=["CustomForCausalLM"],
        auto_map={"AutoModel": "modeling_custom.CustomForCausalLM", "AutoConfig": "modeling_custom.CustomConfig"},
    )
    (tmp_path / "custom" / "config.json").write_text(json.dumps(config))
    result = cw.convert(tmp_path / "custom", tmp_path / "out", dtype="bf16")
    converted = _file_dtypes(tmp_path / "out")
    assert not marker.exists()
    assert _fp32(converted) == _owned_by(converted, {"ln_1", "ln_2", "ln_f"}) and len(_fp32(converted)) == 10
    assert result.keep_rule.startswith("norm name spellings")
    assert "transformers could not build CustomForCausalLM" in result.keep_rule
    assert (tmp_path / "custom" / "modeling_custom.py").read_text().startswith("open(")  # source untouched


def test_inspect_names_the_rule_that_decided(saved, tmp_path):
    _, folder = saved["llama"]
    cw.convert(folder, tmp_path / "out", dtype="bf16")
    findings = " ".join(cw.inspect(tmp_path / "out").findings)
    assert "decided by module classes from the transformers skeleton of LlamaForCausalLM" in findings
    assert _file_dtypes(tmp_path / "out")["model.norm.weight"] == torch.float32


def test_keep_none_keeps_nothing_not_even_what_a_model_declares(saved, tmp_path):
    model, folder = saved["t5"]
    result = cw.convert(folder, tmp_path / "out", dtype="bf16", keep_fp32="none")
    assert _fp32(_file_dtypes(tmp_path / "out")) == set()
    assert _fp32(_file_dtypes(cw.save(model, tmp_path / "s.safetensors", dtype="bf16", keep_fp32="none"))) == set()
    assert result.keep_rule.startswith("nothing kept fp32")


class _ResNetStem(torch.nn.Module):
    """Conv/BatchNorm spellings of torchvision's ResNet, including the bare-index ``downsample.1``."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.bn1 = torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8)
        self.layer1 = torch.nn.ModuleList([torch.nn.ModuleDict({
            "conv2": torch.nn.Conv2d(8, 8, 3), "bn2": torch.nn.BatchNorm2d(8),
            "downsample": torch.nn.Sequential(torch.nn.Conv2d(8, 8, 1), torch.nn.BatchNorm2d(8)),
        })])
        self.bn_head = torch.nn.BatchNorm1d(8)
        self.fc = torch.nn.Linear(8, 2)


def test_a_bare_resnet_file_keeps_its_batchnorms_by_name_like_the_model_does_by_class(tmp_path):
    from safetensors.torch import save_file

    model = _ResNetStem()
    save_file(model.state_dict(), tmp_path / "bare.safetensors")
    cw.convert(tmp_path / "bare.safetensors", tmp_path / "out.safetensors", dtype="bf16")
    by_names = _file_dtypes(tmp_path / "out.safetensors")
    by_classes = _file_dtypes(cw.save(model, tmp_path / "classes.safetensors", dtype="bf16"))
    bare_index = {n for n in by_names if n.startswith("layer1.0.downsample.1.")}
    assert {n: d for n, d in by_names.items() if n not in bare_index} == {
        n: d for n, d in by_classes.items() if n not in bare_index}
    assert {by_classes[n] for n in bare_index} == {torch.float32, torch.int64}
    assert {by_names[n] for n in bare_index if by_names[n].is_floating_point} == {torch.bfloat16}
    for prefix in ("bn1.", "layer1.0.bn2.", "bn_head."):
        assert {by_names[prefix + k] for k in ("weight", "bias", "running_mean", "running_var")} == {torch.float32}
        assert by_names[prefix + "num_batches_tracked"] == torch.int64
    assert by_names["conv1.weight"] == by_names["layer1.0.conv2.weight"] == by_names["fc.weight"] == torch.bfloat16
