"""Train/eval parity: the same model runs in every mode under every policy, same output dtype."""

import copy

import pytest
import torch
from transformers import BertConfig, BertModel

import castwise as cw
from castwise.policy import Policy

POLICIES = ["64-true", "32-true", "tf32", "16-mixed", "bf16-mixed", "16-true", "bf16-true"]
TOLERANCE = {torch.bfloat16: 4e-2, torch.float16: 5e-3, torch.float32: 1e-5, torch.float64: 1e-5}
GRAD_MODES = {"grad": torch.enable_grad, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}

pytestmark = pytest.mark.filterwarnings("ignore::castwise.PrecisionWarning", "ignore:.*nested tensors.*")


def _relative_error(output, reference, keep):
    difference = (output.double() - reference.double())[keep].abs().max()
    return (difference / reference.double()[keep].abs().max()).item()


def test_plain_autocast_reproduces_the_known_eval_crash(token_encoder, tokens):
    ids, mask = tokens
    token_encoder.eval()
    with pytest.raises(RuntimeError, match="expected scalar type Float but found BFloat16"):
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            token_encoder(ids, mask)


@pytest.mark.parametrize("name", POLICIES)
def test_transformer_encoder_parity_matrix(token_encoder, tokens, name):
    ids, full_mask = tokens
    policy = Policy.parse(name)
    with torch.no_grad():
        reference = token_encoder.eval()(ids, full_mask)
    model = cw.apply(copy.deepcopy(token_encoder), policy)
    for use_mask in (True, False):
        mask = full_mask if use_mask else None
        keep = ~full_mask if use_mask else torch.ones_like(full_mask)
        if not use_mask:
            with torch.no_grad():
                reference = token_encoder.eval()(ids)
        for mode in ("train", "eval"):
            model.train(mode == "train")
            for grad_name, grad_mode in GRAD_MODES.items():
                with grad_mode():
                    output = model(ids, mask)
                where = f"{name} {mode} {grad_name} mask={use_mask}"
                assert output.dtype == policy.output_dtype, where
                assert torch.isfinite(output).all(), where
                assert _relative_error(output, reference, keep) < TOLERANCE[policy.compute_dtype], where


def _tiny_bert():
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=32, hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    return BertModel(config)


@pytest.mark.parametrize("name", ["bf16-mixed", "bf16-true", "16-mixed", "32-true"])
def test_transformers_bert_parity(name):
    bert = _tiny_bert().eval()
    ids = torch.randint(0, 100, (2, 12), generator=torch.Generator().manual_seed(2))
    attention = torch.ones(2, 12, dtype=torch.long)
    attention[1, 8:] = 0
    with torch.no_grad():
        reference = bert(input_ids=ids, attention_mask=attention).last_hidden_state
    policy = Policy.parse(name)
    model = cw.apply(copy.deepcopy(bert), policy)
    keep = attention.bool()
    for mode in ("train", "eval"):
        model.train(mode == "train")
        for grad_name, grad_mode in GRAD_MODES.items():
            with grad_mode():
                output = model(input_ids=ids, attention_mask=attention)
            assert type(output).__name__ == "BaseModelOutputWithPoolingAndCrossAttentions"
            assert output.last_hidden_state.dtype == policy.output_dtype, (mode, grad_name)
            assert output.pooler_output.dtype == policy.output_dtype
            assert output["last_hidden_state"] is output.last_hidden_state
            error = _relative_error(output.last_hidden_state, reference, keep)
            assert error < TOLERANCE[policy.compute_dtype], (mode, grad_name, error)
    embeddings = cw.unwrap(model).embeddings
    assert embeddings.LayerNorm.weight.dtype == torch.float32
    assert embeddings.word_embeddings.weight.dtype == policy.param_dtype
