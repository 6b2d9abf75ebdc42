"""Held-out live set 129: RLHF and preference optimisation written by hand in low precision (token ids and attention
masks as int64 and bool, log-probabilities gathered from bf16 logits, reward-model score heads kept in fp32, KL
penalties against a bf16 reference model beside an fp32 policy, advantage whitening and value clipping in fp16, PPO
ratios with exp overflowing in fp16, DPO losses with logsigmoid, int64 response lengths and masks), the situations
sets 7 and 40 did not have. Defects planted by a helper who never read the rules, written before castwise ran and
graded once with the rules frozen at ddaf648f."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from scipy.signal import lfilter
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ddaf648f"

bf16, f16 = torch.bfloat16, torch.float16
_VOCAB = 64
_HIDDEN = 32
_PAD = 0
_EOS = 2


def _seeded() -> None:
    torch.manual_seed(0)


def _rollout(batch: int = 4, prompt: int = 5, response: int = 7) -> dict[str, torch.Tensor]:
    """A left-padded prompt and a right-padded response, as a rollout collator returns them (int64 ids and masks)."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(3, _VOCAB, (batch, prompt + response), generator=generator)
    attention_mask = torch.ones(batch, prompt + response, dtype=torch.long)
    attention_mask[0, :2] = 0  # left padding of a short prompt
    ids[0, :2] = _PAD
    ends = torch.tensor([prompt + 3, prompt + 7, prompt + 5, prompt + 6])[:batch]
    for row, end in enumerate(ends.tolist()):
        ids[row, end - 1] = _EOS
        ids[row, end:] = _PAD
        attention_mask[row, end:] = 0
    prompt_mask = torch.zeros_like(attention_mask)
    prompt_mask[:, :prompt] = attention_mask[:, :prompt]
    return {"input_ids": ids, "attention_mask": attention_mask, "prompt_mask": prompt_mask}


def _policy_logits(batch: dict[str, torch.Tensor], dtype: torch.dtype = bf16) -> torch.Tensor:
    _seeded()
    embed = nn.Embedding(_VOCAB, _HIDDEN).to(dtype)
    lm_head = nn.Linear(_HIDDEN, _VOCAB, bias=False).to(dtype)
    return lm_head(torch.tanh(embed(batch["input_ids"])))


def _token_logps(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    logps = logits[:, :-1].log_softmax(-1)
    return torch.gather(logps, 2, ids[:, 1:, None]).squeeze(-1)


# --- masks, lengths, ids and labels


def _ppo_clip_fraction_of_bool() -> None:
    _seeded()
    logps = torch.randn(4, 11) * 0.1 - 1.0
    old_logps = logps + torch.randn(4, 11) * 0.3
    ratio = torch.exp(logps - old_logps)
    clipped = (ratio - 1.0).abs() > 0.2
    stats = {"ppo/clipfrac": clipped.mean()}  # logged every minibatch
    stats["ppo/clipfrac"].item()


def _sequence_logps_einsum_with_attention_mask() -> None:
    batch = _rollout()
    token_logps = _token_logps(_policy_logits(batch), batch["input_ids"])  # bf16 from the bf16 policy
    response_mask = (batch["attention_mask"] - batch["prompt_mask"])[:, 1:]  # int64 0/1
    torch.einsum("bt,bt->b", token_logps, response_mask)


def _response_mask_by_bool_subtraction() -> None:
    batch = _rollout()
    full = batch["attention_mask"].bool()
    prompt = batch["prompt_mask"].bool()
    response_mask = full - prompt
    response_mask.sum(-1)


def _reward_model_sdpa_with_tokenizer_mask() -> None:
    _seeded()
    batch = _rollout()
    heads, head_dim = 4, 8
    qkv = nn.Linear(_HIDDEN, 3 * heads * head_dim).to(bf16)
    hidden = torch.randn(4, 12, _HIDDEN, dtype=bf16)
    q, k, v = qkv(hidden).view(4, 12, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
    padding = batch["attention_mask"][:, None, None, :]  # the tokenizer's int64 mask, broadcast over heads
    F.scaled_dot_product_attention(q, k, v, attn_mask=padding)


def _bradley_terry_bce_with_dataset_labels() -> None:
    _seeded()
    chosen_scores = torch.randn(8, requires_grad=True)
    rejected_scores = torch.randn(8, requires_grad=True)
    labels = torch.tensor([1, 1, 0, 1, 0, 1, 1, 0])  # the dataset's "label" column: 1 if A preferred (int64)
    F.binary_cross_entropy_with_logits(chosen_scores - rejected_scores, labels)


def _engine_int32_ids_cross_entropy_logps() -> None:
    batch = _rollout()
    logits = _policy_logits(batch)
    engine_ids = batch["input_ids"].numpy().astype(np.int32)  # token ids as the rollout engine returns them
    targets = torch.from_numpy(engine_ids)[:, 1:]
    token_logps = -F.cross_entropy(logits[:, :-1].reshape(-1, _VOCAB), targets.reshape(-1), reduction="none")
    token_logps.view(4, -1).sum(-1)


def _rollout_batch_cast_to_policy_dtype() -> None:
    _seeded()
    batch = _rollout()
    batch = {key: value.to(bf16) for key, value in batch.items()}  # "move the batch to the policy's dtype"
    policy_embed = nn.Embedding(_VOCAB, _HIDDEN).to(bf16)
    policy_embed(batch["input_ids"])


def _response_start_from_float_prompt_length() -> None:
    batch = _rollout()
    token_logps = _token_logps(_policy_logits(batch), batch["input_ids"])
    prompt_lengths = batch["prompt_mask"].float().sum(-1)  # float: the mask was made float for the loss
    responses = [token_logps[row, prompt_lengths[row] - 1:] for row in range(4)]
    torch.cat(responses)


def _value_mask_float_inverted() -> None:
    _seeded()
    batch = _rollout()
    response_mask = (batch["attention_mask"] - batch["prompt_mask"]).float()  # float to multiply losses with
    values = torch.randn(4, 12)
    values.masked_fill(~response_mask, 0.0)


def _token_counts_int64_accumulate_float_mask() -> None:
    batch = _rollout()
    tokens_seen = torch.zeros(4, dtype=torch.long)  # per-prompt token budget for length control
    loss_mask = (batch["attention_mask"] - batch["prompt_mask"]).float()
    tokens_seen += loss_mask.sum(-1)


def _ragged_preference_pairs_from_pandas() -> None:
    chosen = [[5, 17, 23, 2], [5, 9, 2], [5, 31, 40, 41, 2]]  # a pandas column of token-id lists
    column = np.array(chosen, dtype=object)  # what df["chosen_input_ids"].values holds
    torch.from_numpy(column)


def _loss_mask_fp16_and_labels() -> None:
    batch = _rollout()
    labels = batch["input_ids"].masked_fill(batch["prompt_mask"].bool(), -100)
    loss_mask = batch["attention_mask"].to(f16)  # cast with the rest of the batch for the fp16 policy
    loss_mask & (labels != -100)


# --- reward models, critics and reference models


def _reward_score_head_kept_fp32() -> None:
    _seeded()
    batch = _rollout()
    trunk = nn.Sequential(nn.Embedding(_VOCAB, _HIDDEN), nn.Tanh()).to(bf16)
    score = nn.Linear(_HIDDEN, 1)  # the score head, .float()'ed back after model.to(bf16)
    hidden = trunk(batch["input_ids"])
    last = batch["attention_mask"].sum(-1) - 1
    score(hidden[torch.arange(4), last])


def _reference_functional_call_bf16_state_dict() -> None:
    _seeded()
    policy = nn.Sequential(nn.Linear(_HIDDEN, _HIDDEN), nn.GELU(), nn.Linear(_HIDDEN, _VOCAB))  # fp32 policy
    reference = {name: tensor.detach().to(bf16) for name, tensor in policy.state_dict().items()}  # halve memory
    hidden = torch.randn(4, 11, _HIDDEN)
    with torch.no_grad():
        torch.func.functional_call(policy, reference, (hidden,))


def _pairwise_preference_bilinear_head() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Embedding(_VOCAB, _HIDDEN), nn.Tanh()).to(bf16)
    pair_head = nn.Bilinear(_HIDDEN, _HIDDEN, 1)  # added after the encoder was cast
    chosen = encoder(torch.randint(3, _VOCAB, (4, 9))).mean(1)
    rejected = encoder(torch.randint(3, _VOCAB, (4, 9))).mean(1)
    pair_head(chosen, rejected)


def _critic_head_copied_from_bf16_reward_model() -> None:
    _seeded()
    reward_head = nn.Sequential(nn.LayerNorm(_HIDDEN), nn.Linear(_HIDDEN, 1)).to(bf16)
    critic_head = nn.Sequential(nn.LayerNorm(_HIDDEN), nn.Linear(_HIDDEN, 1)).to(bf16)
    critic_head.load_state_dict(reward_head.state_dict())  # value model initialised from the reward model
    policy_hidden = torch.randn(4, 11, _HIDDEN)  # the fp32 policy trunk the critic shares
    critic_head(policy_hidden)


def _fp32_reward_model_bf16_padding_mask() -> None:
    _seeded()
    batch = _rollout()
    policy_dtype = bf16
    additive = (1.0 - batch["attention_mask"][:, None, None, :].to(policy_dtype)) * -1e4  # built beside the policy
    q = torch.randn(4, 2, 12, 16)  # the reward model runs in fp32
    F.scaled_dot_product_attention(q, q, q, attn_mask=additive)


def _nash_md_geometric_mixture_lerp() -> None:
    _seeded()
    policy_logits = torch.randn(4, _VOCAB)  # fp32 policy
    reference_logits = torch.randn(4, _VOCAB, dtype=bf16)  # bf16 reference
    mixture_logits = torch.lerp(policy_logits, reference_logits, 0.125)
    torch.multinomial(mixture_logits.softmax(-1), 1)


def _token_rewards_score_at_last_token() -> None:
    _seeded()
    batch = _rollout()
    policy_logps = torch.randn(4, 11) - 2.0
    reference_logps = (torch.randn(4, 11) - 2.0).to(bf16)
    token_rewards = -0.05 * (policy_logps - reference_logps)  # fp32: the KL penalty promotes
    scores = torch.randn(4, dtype=bf16)  # the bf16 reward model's scores
    last = batch["attention_mask"].sum(-1) - 2
    token_rewards[torch.arange(4), last] = scores


def _reference_logps_masked_scatter_into_buffer() -> None:
    _seeded()
    batch = _rollout()
    response_mask = (batch["attention_mask"] - batch["prompt_mask"]).bool()
    reference_logps = (torch.randn(int(response_mask.sum())) - 2.0).to(bf16)  # packed, from the bf16 reference
    full = torch.zeros(4, 12)  # fp32 buffer laid out like the policy's logps
    full.masked_scatter_(response_mask, reference_logps)


def _ppo_value_huber_bf16_values() -> None:
    _seeded()
    value_head = nn.Linear(_HIDDEN, 1).to(bf16)
    values = value_head(torch.randn(4, 11, _HIDDEN, dtype=bf16)).squeeze(-1)
    returns = torch.randn(4, 11)  # fp32 from GAE
    F.huber_loss(values, returns, delta=1.0).backward()


def _reward_probe_lstsq_bf16() -> None:
    _seeded()
    hidden = torch.randn(64, _HIDDEN, dtype=bf16)  # last-token states of the bf16 reward model
    rewards = torch.randn(64, 1, dtype=bf16)
    torch.linalg.lstsq(hidden, rewards)


def _reward_attention_pooling_bmm() -> None:
    _seeded()
    batch = _rollout()
    hidden = torch.randn(4, 12, _HIDDEN, dtype=bf16)
    pool_query = nn.Linear(_HIDDEN, 1).to(bf16)
    scores = pool_query(hidden).squeeze(-1).float()  # softmax in fp32 for stability
    weights = scores.masked_fill(batch["attention_mask"] == 0, float("-inf")).softmax(-1)
    torch.bmm(weights[:, None], hidden)


def _critic_queries_attend_policy_states() -> None:
    _seeded()
    critic_queries = nn.Parameter(torch.randn(1, 2, 4, 16))  # learned queries, created after the cast
    policy_states = torch.randn(4, 2, 12, 16, dtype=bf16)
    F.scaled_dot_product_attention(critic_queries.expand(4, -1, -1, -1), policy_states, policy_states)


def _prm_token_weights_gradient_hook() -> None:
    _seeded()
    batch = _rollout()
    logits = _policy_logits(batch).requires_grad_()
    step_weights = torch.rand(4, 12)  # a process reward model's per-token credit, fp32
    logits.register_hook(lambda grad: grad * step_weights[..., None])
    _token_logps(logits, batch["input_ids"]).sum().backward()


# --- fp16 advantages, ratios and overflow


def _fp16_logits_masked_with_float32_min() -> None:
    _seeded()
    logits = torch.randn(4, _VOCAB, dtype=f16)  # the fp16 policy
    allowed = torch.zeros(4, _VOCAB, dtype=torch.bool)
    allowed[:, 3:40] = True  # the action space of the structured-output task
    logits.masked_fill(~allowed, torch.finfo(torch.float32).min)


def _ppo_fp16_ratio_overflow_anomaly() -> None:
    logps = torch.tensor([[-0.10, -0.40, -0.20, -0.30]], dtype=f16, requires_grad=True)
    old_logps = torch.tensor([[-14.0, -0.50, -0.30, -0.25]], dtype=f16)  # a stale rollout: the policy moved a lot
    advantages = torch.tensor([[0.8, -0.3, 0.2, 0.5]], dtype=f16)
    with torch.autograd.detect_anomaly():
        ratio = torch.exp(logps - old_logps)  # exp(13.9) is past fp16's 65504
        pg_loss = torch.max(-advantages * ratio, -advantages * ratio.clamp(0.8, 1.2))
        pg_loss.mean().backward()


def _gae_lfilter_bf16_deltas() -> None:
    _seeded()
    score = torch.tensor(0.7, dtype=bf16)  # the bf16 reward model's score for the response
    rewards = torch.zeros(11, dtype=bf16)
    rewards[-1] = score
    values = torch.randn(12, dtype=bf16)  # the bf16 critic's values
    deltas = rewards + 1.0 * values[1:] - values[:-1]
    advantages = lfilter([1.0], [1.0, -0.95], deltas.flip(0).numpy())[::-1]
    torch.from_numpy(advantages.copy())


def _advantage_percentile_clip_fp16() -> None:
    _seeded()
    advantages = torch.randn(256, dtype=f16) * 3.0
    low, high = torch.quantile(advantages, torch.tensor([0.01, 0.99], dtype=f16))
    advantages.clamp(low, high)


def _dpo_fp16_summed_logps_overflow_anomaly() -> None:
    chosen_tokens = torch.full((1, 2000), -1.5, dtype=f16, requires_grad=True)
    rejected_tokens = torch.full((1, 6000), -12.0, dtype=f16, requires_grad=True)  # off-policy rejected response
    reference_chosen = torch.tensor([-3100.0], dtype=f16)
    reference_rejected = torch.tensor([float("-inf")], dtype=f16)  # cached by the same fp16 code path
    with torch.autograd.detect_anomaly():
        chosen = chosen_tokens.sum(-1)
        rejected = rejected_tokens.sum(-1)  # -72000 in fp16
        logits = (chosen - reference_chosen) - (rejected - reference_rejected)
        (-F.logsigmoid(0.1 * logits)).mean().backward()


CASES: dict[str, LiveCase] = {
    # PPO's clip fraction logged as the mean of the bool "ratio outside the clip range" tensor
    "ppo-clipfrac-bool-mean": case(_ppo_clip_fraction_of_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # per-sequence log-probs by einsum of the bf16 token log-probs with the int64 response mask
    "sequence-logps-einsum-int64-response-mask": case(_sequence_logps_einsum_with_attention_mask, "integer_operand",
                                                      "int64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the response mask made by subtracting the bool prompt mask from the bool attention mask
    "response-mask-bool-subtract-prompt-mask": case(_response_mask_by_bool_subtraction, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a hand-written bf16 reward model passing the tokenizer's int64 attention mask to SDPA
    "reward-model-sdpa-int64-tokenizer-mask": case(_reward_model_sdpa_with_tokenizer_mask, "mask_dtype", "int64",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Bradley-Terry reward loss as BCE-with-logits on the dataset's int64 preference labels
    "bradley-terry-bce-int64-preference-labels": case(_bradley_terry_bce_with_dataset_labels, "target_dtype",
                                                      "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-token log-probs as -cross_entropy(reduction="none") with the rollout engine's int32 token ids
    "engine-int32-ids-cross-entropy-logps": case(_engine_int32_ids_cross_entropy_logps, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # the whole rollout batch cast to the policy's bf16, input_ids included, then embedded
    "rollout-batch-cast-bf16-input-ids-embedding": case(_rollout_batch_cast_to_policy_dtype, "index_tensor_dtype",
                                                        "bf16",
        grade="correct", grade_at_freeze="correct"),
    # response log-probs sliced from a prompt length summed from the mask made float
    "response-start-float-prompt-length-slice": case(_response_start_from_float_prompt_length,
                                                     "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the float response mask inverted with ~ to zero the values outside the response
    "value-mask-float-inverted": case(_value_mask_float_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # an int64 per-prompt token counter accumulating the float loss mask's sums in place
    "token-counter-int64-plus-float-mask-sums": case(_token_counts_int64_accumulate_float_mask, "result_cast", "f32",
                                                     "int64",
        grade="correct", grade_at_freeze="correct"),
    # ragged chosen-response token-id lists from a pandas column turned into a tensor
    "ragged-chosen-ids-object-array": case(_ragged_preference_pairs_from_pandas, "numpy_dtype", fix=("pad",),
        grade="correct", grade_at_freeze="correct"),
    # a loss mask cast to fp16 with the batch, combined with the label mask by &
    "loss-mask-fp16-and-label-mask": case(_loss_mask_fp16_and_labels, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a reward model's score head kept fp32 on the bf16 trunk's last-token hidden state
    "reward-score-head-fp32-bf16-last-token": case(_reward_score_head_kept_fp32, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the reference model run as functional_call of the fp32 policy with a bf16 copy of its initial weights
    "reference-functional-call-bf16-state-dict": case(_reference_functional_call_bf16_state_dict, "matmul_dtype",
                                                      "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a PairRM-style nn.Bilinear preference head left fp32 on bf16 pooled chosen/rejected states
    "pairwise-preference-bilinear-fp32-head": case(_pairwise_preference_bilinear_head, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a critic head (LayerNorm + Linear) copied from the bf16 reward model, on the fp32 policy's hidden states
    "critic-head-from-bf16-reward-model-layer-norm": case(_critic_head_copied_from_bf16_reward_model,
                                                          "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 reward model given an additive padding mask built in the bf16 policy's dtype
    "fp32-reward-model-bf16-additive-padding-mask": case(_fp32_reward_model_bf16_padding_mask, "attn_mask_dtype",
                                                         "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Nash-MD's geometric mixture: fp32 policy logits lerped toward the bf16 reference's logits
    "nash-md-mixture-lerp-bf16-reference": case(_nash_md_geometric_mixture_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 reward model's scores written at the last response token of fp32 KL-penalty rewards
    "token-rewards-bf16-score-setitem": case(_token_rewards_score_at_last_token, "indexed_write_dtype", "f32",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # packed bf16 reference log-probs masked_scatter_'ed into an fp32 buffer shaped like the policy's
    "reference-logps-masked-scatter-fp32-buffer": case(_reference_logps_masked_scatter_into_buffer,
                                                       "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PPO value loss: huber_loss of a bf16 value head's values against fp32 GAE returns
    "ppo-value-huber-bf16-values-fp32-returns": case(_ppo_value_huber_bf16_values, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a linear reward probe fit by lstsq on the bf16 reward model's hidden states
    "reward-probe-lstsq-bf16-hidden": case(_reward_probe_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # reward-model attention pooling: fp32 softmax weights bmm'ed with bf16 hidden states
    "reward-attention-pooling-bmm-fp32-weights": case(_reward_attention_pooling_bmm, "batched_matmul_dtype", "f32",
                                                      "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a critic's learned fp32 query tokens attending the bf16 policy's states through SDPA
    "critic-fp32-queries-sdpa-bf16-policy-states": case(_critic_queries_attend_policy_states, "sdpa_dtype", "f32",
                                                        "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook on the bf16 logits weighting by a process reward model's fp32 token credit
    "prm-token-credit-grad-hook-fp32": case(_prm_token_weights_gradient_hook, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 policy logits outside the allowed actions masked with torch.finfo(torch.float32).min
    "fp16-logits-action-mask-float32-min": case(_fp16_logits_masked_with_float32_min, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # PPO in fp16 with stale old log-probs: exp overflows to inf, the clipped branch's backward gives 0 * inf
    "ppo-fp16-ratio-exp-overflow-anomaly": case(_ppo_fp16_ratio_overflow_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # GAE as scipy's lfilter over the bf16 critic's TD residuals handed to numpy
    "gae-lfilter-numpy-bf16-deltas": case(_gae_lfilter_bf16_deltas, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # advantages clipped at their 1st/99th percentiles with torch.quantile in fp16
    "advantage-percentile-clip-quantile-fp16": case(_advantage_percentile_clip_fp16, "no_kernel", fix=("float()",),
        grade="correct", grade_at_freeze="correct"),
    # DPO in fp16: a long rejected response's summed log-probs overflow to -inf, -inf - -inf is NaN in logsigmoid
    "dpo-fp16-summed-logps-overflow-anomaly": case(_dpo_fp16_summed_logps_overflow_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
