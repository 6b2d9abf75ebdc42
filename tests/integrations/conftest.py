"""Tiny transformers models the integration tests share (built from configs: no download)."""

import pytest
import torch


@pytest.fixture
def llama():
    """A tiny Llama causal LM with RMSNorm norms."""
    transformers = pytest.importorskip("transformers")
    config = transformers.LlamaConfig(
        vocab_size=32,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=32,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
    )
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(config).eval()


@pytest.fixture
def gpt2():
    """A tiny GPT-2 causal LM with LayerNorm norms named ``ln_*``."""
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(
        vocab_size=32, n_positions=32, n_embd=16, n_layer=1, n_head=2, bos_token_id=1, eos_token_id=2
    )
    torch.manual_seed(0)
    return transformers.GPT2LMHeadModel(config).eval()
