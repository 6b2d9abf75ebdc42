"""castwise.integrations.transformers.from_pretrained keeps every stored dtype."""

from __future__ import annotations

import pytest
import torch

import castwise as cw

transformers = pytest.importorskip("transformers")
from castwise.integrations.transformers import from_pretrained  # noqa: E402


@pytest.fixture(scope="module")
def mixed_folder(tiny_bert, tmp_path_factory):
    out = tmp_path_factory.mktemp("mixed") / "bert"
    fp32 = tmp_path_factory.mktemp("mixed") / "fp32"
    cw.convert(tiny_bert["single"], fp32, "f32")
    cw.convert(fp32, out, "bf16", keep_fp32=["*LayerNorm*"])
    return out


def test_mixed_bf16_with_fp32_norms_comes_back_as_stored(mixed_folder):
    stored = cw.inspect(mixed_folder).dtypes()
    model = from_pretrained(mixed_folder)
    loaded = {n: str(p.dtype).removeprefix("torch.") for n, p in model.state_dict().items()}
    assert {n: loaded[n] for n in stored} == stored
    assert model.embeddings.LayerNorm.weight.dtype == torch.float32
    assert model.encoder.layer[1].output.dense.weight.dtype == torch.bfloat16
    reference = cw.load(mixed_folder)
    assert all(model.state_dict()[n].equal(t) for n, t in reference.items())


def test_plain_transformers_loses_the_fp32_norms(mixed_folder):
    model = transformers.AutoModel.from_pretrained(mixed_folder)
    assert model.embeddings.LayerNorm.weight.dtype == torch.bfloat16
    assert cw.inspect(mixed_folder).transformers_dtype == "bfloat16"


def test_head_model_maps_the_base_prefix(mixed_folder):
    model = from_pretrained(mixed_folder, transformers.BertForSequenceClassification, num_labels=3)
    assert model.bert.embeddings.LayerNorm.weight.dtype == torch.float32
    assert model.bert.encoder.layer[0].attention.self.query.weight.dtype == torch.bfloat16


def test_forcing_a_dtype_is_refused(mixed_folder):
    with pytest.raises(TypeError, match="keeps each stored dtype"):
        from_pretrained(mixed_folder, dtype=torch.float16)
