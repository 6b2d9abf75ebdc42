"""cw.apply and castwise.integrations.transformers on tiny transformers models built from configs."""

from __future__ import annotations

import json

import pytest
import torch

import castwise as cw

transformers = pytest.importorskip("transformers")

from castwise.integrations.transformers import from_pretrained, save_pretrained  # noqa: E402


@pytest.fixture
def t5():
    """A tiny T5: ``_keep_in_fp32_modules = ["wo"]``, T5LayerNorm norms."""
    config = transformers.T5Config(
        vocab_size=32, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1,
        num_heads=2, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
    )
    torch.manual_seed(0)
    return transformers.T5ForConditionalGeneration(config).eval()


IDS = torch.tensor([[3, 4, 5, 6, 7]])


def _dtypes(model: torch.nn.Module) -> dict[str, torch.dtype]:
    return {name: p.dtype for name, p in model.named_parameters()}


def test_apply_keeps_declared_fp32_modules(t5):
    assert set(t5._keep_in_fp32_modules) == {"wo"}
    cw.apply(t5, "bf16-true")
    fp32 = {name for name, dtype in _dtypes(t5).items() if dtype == torch.float32}
    assert fp32 == {n for n in _dtypes(t5) if ".wo." in n or "layer_norm" in n}
    assert {dtype for name, dtype in _dtypes(t5).items() if name not in fp32} == {torch.bfloat16}


def test_declared_fp32_module_computes_in_fp32_under_autocast(t5):
    wo_outputs = []
    wrapped = cw.apply(t5, "bf16-mixed")
    wo = t5.encoder.block[0].layer[1].DenseReluDense.wo
    wo.register_forward_hook(lambda module, args, output: wo_outputs.append(output.dtype))
    q_outputs = []
    t5.encoder.block[0].layer[0].SelfAttention.q.register_forward_hook(
        lambda module, args, output: q_outputs.append(output.dtype)
    )
    wrapped(input_ids=IDS, decoder_input_ids=torch.tensor([[0]]))
    assert wo_outputs == [torch.float32] and q_outputs == [torch.bfloat16]


@pytest.mark.parametrize(
    ("policy", "logits_dtype"), [("bf16-mixed", torch.float32), ("p=f32,c=bf16,o=bf16", torch.bfloat16)]
)
def test_model_output_fields_take_the_output_dtype(t5, policy, logits_dtype):
    reference = t5(input_ids=IDS, decoder_input_ids=torch.tensor([[0, 5]]))
    out = cw.apply(t5, policy)(input_ids=IDS, decoder_input_ids=torch.tensor([[0, 5]]))
    assert type(out) is type(reference)
    assert out.logits.dtype == logits_dtype
    # T5 upcasts to its fp32 ``wo``, so its residual stream is fp32: kept, never downcast
    assert out.encoder_last_hidden_state.dtype == torch.float32
    torch.testing.assert_close(out.logits.float(), reference.logits, atol=5e-2, rtol=5e-2)


@pytest.mark.parametrize("policy", ["bf16-mixed", "bf16-true"])
def test_generate_on_the_wrapped_model_runs_under_the_policy(llama, policy):
    wrapped = cw.apply(llama, policy)
    projected = []
    llama.model.layers[0].self_attn.q_proj.register_forward_hook(
        lambda module, args, output: projected.append(output.dtype)
    )
    generated = wrapped.generate(IDS, max_new_tokens=3, do_sample=False, use_cache=False)
    assert generated.dtype == torch.int64 and generated.shape == (1, IDS.shape[1] + 3)
    assert set(projected) == {torch.bfloat16} and len(projected) == 3

    greedy = IDS
    for _ in range(3):
        next_token = wrapped(input_ids=greedy).logits[:, -1].argmax(-1, keepdim=True)
        greedy = torch.cat([greedy, next_token], dim=1)
    assert torch.equal(generated, greedy)


def test_the_hubs_model_management_methods_see_tensors_as_they_are(llama, tmp_path):
    """save_pretrained through a bf16-true wrapper: a state dict's fp32 tensor is written as given,
    not cast to the compute dtype like an entry point's input; generate still crosses the boundary."""
    wrapped = cw.apply(llama, "bf16-true")
    assert wrapped.save_pretrained == llama.save_pretrained
    assert wrapped.generate.__wrapped__ == llama.generate
    state = {name: tensor.clone() for name, tensor in llama.state_dict().items()}
    state["model.norm.weight"] = torch.full_like(state["model.norm.weight"], 1 / 3, dtype=torch.float32)
    wrapped.save_pretrained(tmp_path / "out", state_dict=state)
    assert cw.load(tmp_path / "out")["model.norm.weight"].dtype == torch.float32


def test_save_pretrained_writes_storage_dtype_and_agreeing_config(t5, tmp_path):
    wrapped = cw.apply(t5, "bf16-mixed")
    path = save_pretrained(wrapped, tmp_path / "t5-bf16", dtype="bf16")
    config = json.loads((path / "config.json").read_text())
    assert config["dtype"] == "bfloat16"
    stored = cw.load(path)
    kept = {n for n in stored if ".wo." in n or "layer_norm" in n}
    assert kept and {stored[n].dtype for n in kept} == {torch.float32}
    assert {t.dtype for n, t in stored.items() if n not in kept} == {torch.bfloat16}

    loaded = from_pretrained(path, transformers.T5ForConditionalGeneration)
    for name, param in loaded.named_parameters():
        assert param.dtype == stored[name].dtype
        torch.testing.assert_close(param, t5.get_parameter(name).to(param.dtype), atol=0, rtol=0)


def test_save_pretrained_defaults_to_the_policy_storage_dtype(llama, tmp_path):
    path = save_pretrained(cw.apply(llama, "bf16-true"), tmp_path / "llama")
    info = cw.inspect(path)
    assert json.loads((path / "config.json").read_text())["dtype"] == "bfloat16"
    dtypes = {t.name: t.dtype for t in info.tensors}
    assert {n for n, d in dtypes.items() if d == torch.float32} == {n for n in dtypes if "norm" in n}


def test_save_pretrained_needs_a_dtype_for_a_plain_model(llama, tmp_path):
    with pytest.raises(TypeError, match="dtype="):
        save_pretrained(llama, tmp_path / "llama")
    with pytest.raises(ValueError, match="unknown dtype 'bf61'"):
        save_pretrained(llama, tmp_path / "llama", dtype="bf61")
