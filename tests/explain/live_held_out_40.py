"""Held-out live set 40: preference and RL fine-tuning of language models written by hand in low precision (DPO, cDPO,
KTO, ORPO, RLOO, GRPO, PPO: log-probs, rewards, advantages, KL penalties, masks, rollouts). Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at cd6d50a."""

from __future__ import annotations

import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.optim import ZeroRedundancyOptimizer
from transformers import LlamaConfig, LlamaForCausalLM, LlamaForSequenceClassification

from .live_cases import LiveCase, case

FROZEN_AT = "cd6d50a"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn
VOCAB = 64


def _llama_config(**extra: object) -> LlamaConfig:
    return LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                       attn_implementation="sdpa", pad_token_id=0, **extra)


def _token_logps(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    return torch.gather(logits.log_softmax(-1), 2, ids.unsqueeze(2)).squeeze(2)


# --- preference losses (DPO, cDPO, KTO, ORPO, reward models)

def _dpo_reference_logps_cached_fp8() -> None:
    torch.manual_seed(0)
    policy_chosen = torch.randn(4).to(bf16) - 20
    ref_chosen = (torch.randn(4) - 20).to(E4M3)  # precomputed reference log-probs cached in fp8 to save memory
    beta = 0.1
    beta * (policy_chosen - ref_chosen)


def _cdpo_per_pair_smoothing_lerp() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4).to(bf16)
    confidence = torch.tensor([0.9, 0.6, 1.0, 0.75])  # annotator agreement per pair, from the dataset
    torch.lerp(-F.logsigmoid(0.1 * logits), -F.logsigmoid(-0.1 * logits), 1 - confidence)


def _kto_float_desirable_flags() -> None:
    torch.manual_seed(0)
    policy_logps = torch.randn(4).to(bf16)
    batch = {"label": [True, False, True, False]}
    flags = torch.tensor(batch["label"], dtype=torch.float)  # collated with the other float columns
    policy_logps[flags]


def _reward_pairwise_ce_float_labels() -> None:
    torch.manual_seed(0)
    r_chosen, r_rejected = torch.randn(4).to(bf16), torch.randn(4).to(bf16)
    logits = torch.stack([r_chosen, r_rejected], dim=1)
    F.cross_entropy(logits, torch.zeros(4))  # "the chosen answer is class 0"


def _reward_last_token_float_lengths() -> None:
    torch.manual_seed(0)
    token_scores = torch.randn(2, 6).to(bf16)
    mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]).float()  # float so it can multiply scores
    ends = mask.sum(-1, keepdim=True) - 1
    token_scores.gather(1, ends)


def _orpo_token_weights_fp32() -> None:
    torch.manual_seed(0)
    logits = torch.randn(2, 5, VOCAB).to(bf16)
    labels = torch.randint(1, VOCAB, (2, 5))
    labels[:, :2] = -100
    token_weights = torch.ones(VOCAB)
    token_weights[:3] = 0.1  # down-weight special tokens in the NLL term
    F.cross_entropy(logits.view(-1, VOCAB), labels.view(-1), weight=token_weights, ignore_index=-100)


def _critic_head_from_fp16_reward_model() -> None:
    torch.manual_seed(0)
    policy = LlamaForCausalLM(_llama_config()).to(bf16)
    reward_model = LlamaForSequenceClassification(_llama_config(num_labels=1)).half()
    critic_head = reward_model.score  # initialise the critic from the reward model's head
    hidden = policy(torch.randint(1, VOCAB, (2, 5)), output_hidden_states=True).hidden_states[-1]
    critic_head(hidden)


# --- PPO: log-probs, rewards, values, ratios

def _chunked_logps_reference_hidden_policy_head() -> None:
    torch.manual_seed(0)
    policy_head = nn.Linear(32, VOCAB, bias=False).to(bf16)
    ref_hidden = torch.randn(2, 5, 32)  # the fp32 reference model's last hidden state

    def logps_from_hidden(hidden: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        return _token_logps(F.linear(hidden, policy_head.weight), ids)

    logps_from_hidden(ref_hidden, torch.randint(0, VOCAB, (2, 5)))


def _value_head_upcast_hidden() -> None:
    torch.manual_seed(0)
    policy = LlamaForCausalLM(_llama_config()).to(bf16)
    value_head = nn.Linear(32, 1).to(bf16)
    hidden = policy(torch.randint(1, VOCAB, (2, 5)), output_hidden_states=True).hidden_states[-1]
    value_head(hidden.float()).squeeze(-1)  # "values in fp32 for stability"


def _ppo_kl_rewards_scatter_add_score() -> None:
    torch.manual_seed(0)
    logps, ref_logps = torch.randn(2, 6).to(bf16), torch.randn(2, 6).to(bf16)
    rewards = -0.05 * (logps - ref_logps)
    scores = torch.randn(2)  # from the fp32 reward model
    ends = torch.tensor([3, 5])
    rewards.scatter_add_(1, ends[:, None], scores[:, None])


def _reward_running_moments_int_mean() -> None:
    class RunningMoments:
        def __init__(self) -> None:
            self.mean, self.var, self.count = torch.tensor(0), torch.tensor(1), 1e-24

        def update(self, xs: torch.Tensor) -> None:
            batch_mean, batch_count = xs.mean(), xs.numel()
            total = self.count + batch_count
            self.mean += (batch_mean - self.mean) * batch_count / total
            self.count = total

    torch.manual_seed(0)
    RunningMoments().update(torch.randn(8))


def _ppo_fp16_ratio_overflow() -> None:
    torch.manual_seed(0)
    head = nn.Linear(8, VOCAB).half()
    ids = torch.randint(0, VOCAB, (1, 4))
    logps = _token_logps(head(torch.randn(1, 4, 8).half()), ids)
    old_logps = torch.tensor([[-4.0, -16.0, -4.0, -4.0]])  # from the fp32 rollout engine's stale policy
    advantages = torch.tensor([[0.5, -1.0, 0.5, 0.5]]).half()
    ratio = torch.exp(logps - old_logps.half())
    clipped = torch.clamp(ratio, 0.8, 1.2)
    torch.max(-advantages * ratio, -advantages * clipped).mean().backward()
    torch.nn.utils.clip_grad_norm_(head.parameters(), 1.0, error_if_nonfinite=True)


def _critic_value_clip_1e5_fp16() -> None:
    torch.manual_seed(0)
    values = torch.randn(2, 6).half()
    values.clamp(-1e5, 1e5)  # "just to keep out infinities"


def _repetition_penalty_index_put() -> None:
    torch.manual_seed(0)
    logits = torch.randn(2, VOCAB).to(bf16)
    prev_ids = torch.randint(0, VOCAB, (2, 3))
    penalty = torch.tensor([1.2, 1.5])[:, None]  # per-request sampling parameter
    rows = torch.arange(2)[:, None]
    score = logits[rows, prev_ids]
    logits[rows, prev_ids] = torch.where(score < 0, score * penalty, score / penalty)


def _token_kl_einsum_full_vocab() -> None:
    torch.manual_seed(0)
    policy_logp = torch.randn(2, 4, VOCAB).to(bf16).log_softmax(-1)
    ref_logp = torch.randn(2, 4, VOCAB).log_softmax(-1)  # the reference kept fp32
    torch.einsum("btv,btv->bt", policy_logp.exp(), policy_logp - ref_logp)


def _sequence_logps_bmm_float_mask() -> None:
    torch.manual_seed(0)
    token_logps = torch.randn(2, 6).to(bf16)
    loss_mask = torch.tensor([[0, 0, 1, 1, 1, 0], [0, 1, 1, 1, 1, 1]])
    torch.bmm(token_logps.unsqueeze(1), loss_mask.float().unsqueeze(2))


def _zero_optimizer_policy_and_value_head() -> None:
    policy = nn.Linear(8, 8).to(bf16)
    value_head = nn.Linear(8, 1)  # kept fp32 for stability
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group("gloo", init_method=f"file://{folder}/store", rank=0, world_size=1)
        try:
            ZeroRedundancyOptimizer([*policy.parameters(), *value_head.parameters()], torch.optim.AdamW, lr=1e-6)
        finally:
            dist.destroy_process_group()


# --- GRPO / RLOO: group rewards, advantages, masks

def _grpo_int_rewards_group_mean() -> None:
    rewards = torch.tensor([1, 0, 1, 1, 0, 0, 1, 0])  # rule-based verifier: 1 if the answer matches
    grouped = rewards.view(-1, 4)
    grouped - grouped.mean(1, keepdim=True)


def _rloo_bool_rewards() -> None:
    answers, targets = torch.tensor([3, 5, 3, 7]), torch.tensor([3, 3, 3, 3])
    rewards = (answers == targets).view(1, 4)
    baseline = (rewards.sum(1, keepdim=True) - rewards) / 3
    rewards - baseline


def _grpo_completion_mask_int_where() -> None:
    torch.manual_seed(0)
    ids = torch.tensor([[5, 7, 2, 9, 9], [4, 2, 8, 8, 8]])
    is_eos = ids == 2
    eos_idx = is_eos.int().argmax(1)
    completion_mask = (torch.arange(5)[None] <= eos_idx[:, None]).int()
    per_token_logps = torch.randn(2, 5).to(bf16)
    torch.where(completion_mask, per_token_logps, 0.0)


def _grpo_equal_rewards_zero_std() -> None:
    torch.manual_seed(0)
    logits = nn.Parameter(torch.randn(6))
    rewards = torch.tensor([1.0, 1.0, 1.0, 0.0, 1.0, 0.0]).view(2, 3)  # the first group all right
    advantages = ((rewards - rewards.mean(1, keepdim=True)) / rewards.std(1, keepdim=True)).view(-1)
    with torch.autograd.detect_anomaly():
        (-(advantages * logits.log_softmax(0))).mean().backward()


def _grpo_multi_reward_int_matrix() -> None:
    format_ok, answer_ok = [1, 0, 1, 1], [1, 0, 0, 1]
    rewards_per_func = torch.tensor([format_ok, answer_ok]).T
    weights = torch.tensor([0.2, 1.0])
    rewards_per_func @ weights


def _raft_softmax_pass_counts() -> None:
    pass_counts = torch.tensor([[3, 0, 5, 2]])  # unit tests passed by each of four samples
    torch.softmax(pass_counts, dim=-1)


def _grpo_diversity_cdist_bf16() -> None:
    torch.manual_seed(0)
    embeddings = torch.randn(4, 16).to(bf16)  # completions' mean-pooled hidden states from the bf16 policy
    torch.cdist(embeddings, embeddings).mean(1)


def _grpo_shared_prompt_cache_fp32_reference() -> None:
    torch.manual_seed(0)
    reference = LlamaForCausalLM(_llama_config()).eval()
    policy = LlamaForCausalLM(_llama_config()).to(bf16)
    prompt = torch.randint(1, VOCAB, (1, 6))
    with torch.no_grad():
        cache = reference(prompt, use_cache=True).past_key_values  # the prompt encoded once for the group
    policy(torch.randint(1, VOCAB, (1, 3)), past_key_values=cache, use_cache=True)


def _onpolicy_distill_engine_int32_one_hot() -> None:
    torch.manual_seed(0)
    sampled = torch.from_numpy(np.array([[4, 9, 2], [7, 7, 1]], dtype=np.int32))  # the rollout engine's token ids
    student_logp = torch.randn(2, 3, VOCAB).to(bf16).log_softmax(-1)
    (F.one_hot(sampled, VOCAB) * student_logp).sum(-1)


def _reward_stats_numpy_bf16() -> None:
    torch.manual_seed(0)
    rewards = torch.randn(8).to(bf16)
    np.percentile(rewards, [5, 50, 95])


# --- generation with sampling

def _rollout_finished_flags_float() -> None:
    torch.manual_seed(0)
    eos = 2
    finished = torch.zeros(3)
    for step in range(2):
        next_tokens = torch.tensor([2, 5, 2]) if step else torch.tensor([5, 5, 2])
        finished |= next_tokens == eos


def _completion_dedup_hash() -> None:
    torch.manual_seed(0)
    ids = torch.randint(0, VOCAB, (4, 5))
    old_logps = torch.randn(4, 5).to(bf16)
    digest = torch.zeros_like(old_logps[:, 0])
    for t in range(ids.shape[1]):
        digest = (digest * 31) ^ ids[:, t]


CASES: dict[str, LiveCase] = {
    # DPO with reference log-probs precomputed and cached in float8_e4m3fn, subtracted from the bf16 policy's
    "dpo-reference-logps-cached-fp8": case(_dpo_reference_logps_cached_fp8, "fp8_promotion", "bf16", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # cDPO with per-pair label smoothing from fp32 annotator agreement as lerp's weight between bf16 losses
    "cdpo-per-pair-smoothing-lerp": case(_cdpo_per_pair_smoothing_lerp, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # KTO desirable/undesirable flags collated as float, used to select the chosen log-probs
    "kto-float-desirable-flags-index": case(_kto_float_desirable_flags, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a pairwise reward loss written as 2-way cross-entropy with labels torch.zeros(B) (float)
    "reward-pairwise-ce-float-zero-labels": case(_reward_pairwise_ce_float_labels, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a reward taken at the last real token with lengths summed from a float attention mask, used as gather's index
    "reward-last-token-float-lengths-gather": case(_reward_last_token_float_lengths, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # ORPO's NLL term with fp32 per-vocabulary token weights on bf16 logits
    "orpo-token-weights-fp32-ce": case(_orpo_token_weights_fp32, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a PPO critic head taken from an fp16 reward model, applied to the bf16 policy's hidden states
    "critic-head-from-fp16-reward-model": case(_critic_head_from_fp16_reward_model, "matmul_dtype", "bf16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a chunked log-prob helper given the fp32 reference's hidden states and the bf16 policy's lm_head weight
    "chunked-logps-reference-hidden-policy-head": case(_chunked_logps_reference_hidden_policy_head, "matmul_dtype",
                                                       "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 value head given the bf16 policy's hidden states upcast to fp32 "for stability"
    "value-head-upcast-hidden-states": case(_value_head_upcast_hidden, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PPO: bf16 KL-penalty rewards, the fp32 reward model's score scatter-added at the last token
    "ppo-kl-rewards-scatter-add-score": case(_ppo_kl_rewards_scatter_add_score, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # reward normalisation's running moments started with torch.tensor(0) (int64), updated in place
    "reward-running-moments-int-mean": case(_reward_running_moments_int_mean, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # PPO on a pure-fp16 head: exp of a large log-ratio against stale fp32 log-probs overflows, clipping refuses
    "ppo-fp16-ratio-overflow-clip": case(_ppo_fp16_ratio_overflow, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 critic's values clamped to +-1e5 "to keep out infinities"
    "critic-value-clip-1e5-fp16": case(_critic_value_clip_1e5_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a rollout's repetition penalty with per-request fp32 penalties written back into bf16 logits by indexing
    "repetition-penalty-index-put-fp32": case(_repetition_penalty_index_put, "indexed_write_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a full-vocabulary token KL by einsum of bf16 policy probabilities and an fp32 log-ratio (reference kept fp32)
    "token-kl-einsum-full-vocab": case(_token_kl_einsum_full_vocab, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # sequence log-probs summed over the response by bmm of bf16 token log-probs and the mask made .float()
    "sequence-logps-bmm-float-mask": case(_sequence_logps_bmm_float_mask, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ZeroRedundancyOptimizer over a bf16 policy and its fp32 value head
    "zero-optimizer-policy-bf16-value-head-fp32": case(_zero_optimizer_policy_and_value_head, "op_dtype", "bf16",
                                                       "f32",
        grade="correct", grade_at_freeze="correct"),
    # GRPO with a rule-based verifier's 0/1 rewards as int64, normalised by the group mean
    "grpo-int-rewards-group-mean": case(_grpo_int_rewards_group_mean, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # RLOO with rewards left as the bool comparison with the reference answers, leave-one-out baseline subtracted
    "rloo-bool-rewards-leave-one-out": case(_rloo_bool_rewards, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # GRPO's completion mask made with .int() used as torch.where's condition
    "grpo-completion-mask-int-where": case(_grpo_completion_mask_int_where, "mask_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # GRPO advantages divided by the group std without an epsilon: an all-correct group gives NaN, anomaly mode raises
    "grpo-equal-rewards-zero-std-nan": case(_grpo_equal_rewards_zero_std, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # GRPO's per-function integer rewards (format, answer) combined with fp32 weights by @
    "grpo-multi-reward-int-matrix-weights": case(_grpo_multi_reward_int_matrix, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RAFT / best-of-n sample weights by softmax over integer unit-test pass counts
    "raft-softmax-integer-pass-counts": case(_raft_softmax_pass_counts, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a GRPO diversity bonus from cdist between completions' bf16 embeddings
    "grpo-diversity-cdist-bf16": case(_grpo_diversity_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the group's shared prompt encoded once by the fp32 reference, its KV cache reused by the bf16 policy (SDPA)
    "grpo-shared-prompt-cache-fp32-reference": case(_grpo_shared_prompt_cache_fp32_reference, "sdpa_dtype", "bf16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # on-policy distillation: the rollout engine's int32 token ids one-hot'd to pick the student's log-probs
    "onpolicy-distill-engine-int32-one-hot": case(_onpolicy_distill_engine_int32_one_hot, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # reward percentiles for logging with np.percentile on the bf16 reward model's scores
    "reward-stats-numpy-bf16": case(_reward_stats_numpy_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a sampling loop's finished flags made with torch.zeros(B) (float), updated with |= on EOS
    "rollout-finished-flags-float-or": case(_rollout_finished_flags_float, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # completion dedup hashes accumulated with ^ in a tensor made by zeros_like(old_logps), so bf16
    "completion-dedup-hash-zeros-like-logps": case(_completion_dedup_hash, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
