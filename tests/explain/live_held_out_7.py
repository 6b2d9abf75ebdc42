"""Held-out live set 7: the LLM fine-tuning stack on tiny `transformers` models built from configs (PEFT-style adapters
written by hand, reward and value heads, DPO/PPO log-probs, classification heads, data collators, loss masking,
generation on partly cast models). Defects planted by a helper who never read the rules, written before castwise ran
and graded once with the rules frozen at e4b0263."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from transformers import (
    AutoModelForCausalLM,
    BertConfig,
    BertForTokenClassification,
    BertModel,
    DynamicCache,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    LlamaForSequenceClassification,
    MistralConfig,
    MistralForCausalLM,
    Qwen2Config,
    Qwen2ForCausalLM,
    T5Config,
    T5ForConditionalGeneration,
    ViTConfig,
    ViTForImageClassification,
)

from .live_cases import LiveCase, case

FROZEN_AT = "e4b0263"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


def _llama_config(**extra: object) -> LlamaConfig:
    return LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                       num_key_value_heads=2, max_position_embeddings=64, pad_token_id=0, **extra)


def _tiny_llama(dtype: torch.dtype = bf16) -> LlamaForCausalLM:
    torch.manual_seed(0)
    return LlamaForCausalLM(_llama_config(attn_implementation="sdpa")).to(dtype)


def _gpt2_config(layers: int = 1) -> GPT2Config:
    return GPT2Config(vocab_size=64, n_positions=32, n_embd=16, n_layer=layers, n_head=2, bos_token_id=0,
                      eos_token_id=0, pad_token_id=0)


def _bert_config(**extra: object) -> BertConfig:
    return BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                      max_position_embeddings=32, **extra)


class _LoRALinear(nn.Module):
    """A hand-written LoRA wrapper: the frozen base Linear plus B @ A scaled by alpha / r."""

    def __init__(self, base: nn.Linear, rank: int = 4, alpha: float = 8.0, dtype: torch.dtype | None = None) -> None:
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, rank, bias=False, dtype=dtype)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False, dtype=dtype)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling


# --- PEFT-style adapters ---------------------------------------------------------------------------------------------

def _lora_merge_addmm_fp32_factors() -> None:
    model = _tiny_llama()
    q_proj = model.model.layers[0].self_attn.q_proj
    lora_A = torch.randn(4, 16) * 0.01  # adapter factors trained and saved in fp32
    lora_B = torch.randn(16, 4) * 0.01
    with torch.no_grad():
        q_proj.weight.copy_(torch.addmm(q_proj.weight, lora_B, lora_A, alpha=8.0 / 4))


def _prefix_tuning_fp32_prefix_eager_mistral() -> None:
    torch.manual_seed(0)
    config = MistralConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                           num_attention_heads=2, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
                           pad_token_id=0, attn_implementation="eager")
    model = MistralForCausalLM(config).to(bf16)
    prefix_encoder = nn.Sequential(nn.Embedding(4, 16), nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 2 * 16))
    prefix = prefix_encoder(torch.arange(4)).view(4, 2, 2, 8).permute(1, 2, 0, 3)  # (key/value, heads, prefix, dim)
    cache = DynamicCache(config=config)
    cache.update(prefix[0][None], prefix[1][None], 0)
    model(input_ids=torch.tensor([[5, 6, 7]]), attention_mask=torch.ones(1, 7, dtype=torch.long),
          past_key_values=cache)


class _IA3Scaled(nn.Module):
    """(IA)^3: a learned per-channel rescaling of a projection's output."""

    def __init__(self, base: nn.Linear) -> None:
        super().__init__()
        self.base = base
        self.ia3 = nn.Parameter(torch.ones(base.out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) * self.ia3


def _ia3_vectors_fp32_on_bf16_llama() -> None:
    model = _tiny_llama()
    attention = model.model.layers[0].self_attn
    attention.k_proj = _IA3Scaled(attention.k_proj)
    attention.v_proj = _IA3Scaled(attention.v_proj)
    model(input_ids=torch.tensor([[1, 2, 3]]))


def _qwen2_soft_prompt_fp32_generate() -> None:
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64, pad_token_id=0,
                         eos_token_id=0)
    model = Qwen2ForCausalLM(config).to(bf16).eval()
    soft_prompt = nn.Parameter(torch.randn(1, 4, 16) * 0.02)  # prompt tuning's virtual tokens, default dtype
    token_embeds = model.get_input_embeddings()(torch.tensor([[7, 8, 9]]))
    model.generate(inputs_embeds=torch.cat([soft_prompt, token_embeds], dim=1), max_new_tokens=2, do_sample=False)


def _p_tuning_lstm_prompt_encoder_fp32() -> None:
    model = _tiny_llama()
    prompt_encoder = nn.LSTM(16, 8, bidirectional=True, batch_first=True)  # P-tuning's reparameterisation
    virtual_tokens = model.get_input_embeddings()(torch.arange(4)[None])
    prompt_encoder(virtual_tokens)


def _pissa_init_svd_lowrank_bf16() -> None:
    model = _tiny_llama()
    weight = model.model.layers[0].self_attn.q_proj.weight.data
    torch.svd_lowrank(weight, q=4, niter=2)  # PiSSA: principal singular vectors of the base weight as LoRA A/B


def _lora_merge_into_fp8_base() -> None:
    base_weight = (torch.randn(16, 16) * 0.1).to(E4M3)  # weight-only fp8 storage of the frozen base
    lora_A = (torch.randn(4, 16) * 0.01).to(bf16)
    lora_B = (torch.randn(16, 4) * 0.01).to(bf16)
    base_weight + (lora_B @ lora_A) * 2.0


def _lora_fp16_base_grad_scaler() -> None:
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(_llama_config(), dtype=f16)
    model.requires_grad_(False)
    attention = model.model.layers[0].self_attn
    attention.q_proj = _LoRALinear(attention.q_proj, dtype=model.dtype)
    attention.v_proj = _LoRALinear(attention.v_proj, dtype=model.dtype)
    adapters = [p for name, p in model.named_parameters() if "lora_" in name]
    optimizer = torch.optim.AdamW(adapters, lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    input_ids = torch.tensor([[1, 2, 3, 4]])
    scaler.scale(model(input_ids=input_ids, labels=input_ids).loss).backward()
    scaler.step(optimizer)


def _cross_attention_adapter_mask_f16() -> None:
    torch.manual_seed(0)
    to_q, to_kv = nn.Linear(16, 16).to(bf16), nn.Linear(12, 32).to(bf16)  # a gated cross-attention adapter
    text = torch.randn(1, 5, 16).to(bf16)
    media = torch.randn(1, 3, 12).to(bf16)
    media_present = torch.tensor([True, True, False])
    media_mask = torch.zeros(5, 3, dtype=torch.float16).masked_fill(~media_present, float("-inf"))  # from fp16 days
    q = to_q(text).view(1, 5, 2, 8).transpose(1, 2)
    k, v = to_kv(media).view(1, 3, 2, 2, 8).permute(2, 0, 3, 1, 4)
    F.scaled_dot_product_attention(q, k, v, attn_mask=media_mask)


# --- generation on partly cast models --------------------------------------------------------------------------------

def _gpt2_embeddings_kept_fp32_generate() -> None:
    torch.manual_seed(0)
    model = GPT2LMHeadModel(_gpt2_config()).half().eval()
    model.transformer.wte.float()  # embeddings kept in full precision
    model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, do_sample=False)


def _t5_encoder_outputs_cached_before_cast() -> None:
    torch.manual_seed(0)
    config = T5Config(vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    model = T5ForConditionalGeneration(config).eval()
    with torch.no_grad():
        encoder_outputs = model.get_encoder()(input_ids=torch.tensor([[5, 6, 7, 1]]))
    model.to(bf16)
    model.generate(encoder_outputs=encoder_outputs, attention_mask=torch.ones(1, 4, dtype=torch.long),
                   max_new_tokens=2, do_sample=False)


def _vit_only_layers_halved() -> None:
    torch.manual_seed(0)
    config = ViTConfig(image_size=8, patch_size=4, num_channels=3, hidden_size=16, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32, num_labels=3)
    model = ViTForImageClassification(config).eval()
    model.vit.layers.half()  # the transformer layers halved to save memory, the embeddings left fp32
    model(pixel_values=torch.randn(1, 3, 8, 8))


def _mistral_stored_in_fp8() -> None:
    torch.manual_seed(0)
    config = MistralConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                           num_attention_heads=2, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
                           pad_token_id=0)
    model = MistralForCausalLM(config).to(E4M3)
    model(input_ids=torch.tensor([[1, 2, 3]]))


def _fp16_serving_of_massive_activations() -> None:
    torch.manual_seed(0)
    model = GPT2LMHeadModel(_gpt2_config(layers=2)).eval()
    with torch.no_grad():
        for block in model.transformer.h:  # a massive-activation channel, as trained LLMs grow (fine in bf16)
            block.mlp.c_proj.bias[3] = 4e4
    model.half()
    model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, do_sample=True)


# --- reward, value and reference models, DPO / PPO -------------------------------------------------------------------

def _value_head_added_after_cast() -> None:
    torch.manual_seed(0)
    policy = GPT2LMHeadModel(_gpt2_config()).to(bf16)
    value_head = nn.Sequential(nn.Dropout(0.1), nn.Linear(16, 1))  # AutoModelForCausalLMWithValueHead-style
    outputs = policy(torch.tensor([[1, 2, 3]]), output_hidden_states=True)
    value_head(outputs.hidden_states[-1]).squeeze(-1)


def _dpo_reference_fp16_fed_policy_embeds() -> None:
    policy = _tiny_llama(bf16)
    reference = _tiny_llama(f16)  # the frozen reference loaded in fp16 to save memory
    inputs_embeds = policy.get_input_embeddings()(torch.tensor([[1, 2, 3]]))
    with torch.no_grad():
        reference(inputs_embeds=inputs_embeds)


def _tr_dpo_reference_sync_lerp() -> None:
    policy = _tiny_llama(bf16)
    reference = _tiny_llama(f16)
    with torch.no_grad():
        for ref_param, param in zip(reference.parameters(), policy.parameters()):
            ref_param.lerp_(param, 0.1)  # TR-DPO soft update of the reference toward the policy


def _reward_classifier_numpy_int32_labels() -> None:
    torch.manual_seed(0)
    model = LlamaForSequenceClassification(_llama_config(num_labels=2)).to(bf16)
    labels = torch.from_numpy(np.array([1, 0], dtype=np.int32))  # preference labels from a numpy collator
    model(input_ids=torch.tensor([[1, 2, 3], [4, 5, 6]]), labels=labels)


def _ppo_rollout_values_masked_write() -> None:
    torch.manual_seed(0)
    value_head = nn.Linear(16, 1).to(bf16)
    values_buffer = torch.zeros(2, 4)  # rollout storage
    response_mask = torch.tensor([[True, True, False, False], [True, True, True, False]])
    values = value_head(torch.randn(2, 4, 16).to(bf16)).squeeze(-1)
    values_buffer[response_mask] = values[response_mask]


def _ppo_rewards_zeros_like_response() -> None:
    response_ids = torch.tensor([[11, 12, 13], [21, 22, 23]])
    scores = torch.tensor([0.7, -0.2]).to(bf16)  # the bf16 reward model's scores
    rewards = torch.zeros_like(response_ids)
    rewards[:, -1] += scores


def _ppo_rollout_token_buffer_float() -> None:
    torch.manual_seed(0)
    tokens = torch.zeros(2, 3)  # rollout buffer for sampled tokens
    for step in range(3):
        tokens[:, step] = torch.randint(0, 64, (2,))
    logits = torch.randn(2, 3, 64).to(bf16)
    logits.log_softmax(-1).gather(-1, tokens.unsqueeze(-1))


def _reward_percentile_clip_bf16() -> None:
    rewards = torch.randn(16).to(bf16)
    low, high = torch.quantile(rewards, torch.tensor([0.05, 0.95]).to(bf16))
    rewards.clamp(low, high)


# --- classification heads, collators and loss masking ----------------------------------------------------------------

def _token_tagging_bool_labels() -> None:
    torch.manual_seed(0)
    model = BertForTokenClassification(_bert_config(num_labels=2))
    positions = torch.arange(6)[None]
    labels = (positions >= 2) & (positions <= 3)  # the answer span's tokens
    model(input_ids=torch.tensor([[2, 5, 6, 7, 8, 3]]), labels=labels)


def _causal_lm_labels_where_float() -> None:
    torch.manual_seed(0)
    model = GPT2LMHeadModel(_gpt2_config())
    input_ids = torch.tensor([[1, 2, 3, 0]])
    attention_mask = torch.tensor([[1, 1, 1, 0]])
    labels = torch.where(attention_mask.bool(), input_ids, -100.0)
    model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)


def _byte_level_collator_pad_labels_uint8() -> list[torch.Tensor]:
    examples = [torch.tensor(list(b"hello"), dtype=torch.uint8), torch.tensor(list(b"hi"), dtype=torch.uint8)]
    longest = max(len(e) for e in examples)
    return [F.pad(e, (0, longest - len(e)), value=-100) for e in examples]


def _mlm_collator_special_tokens_mask_int() -> None:
    torch.manual_seed(0)
    input_ids = torch.tensor([[2, 11, 12, 13, 3, 0]])
    special_tokens_mask = torch.tensor([[1, 0, 0, 0, 1, 1]])  # as the tokenizer returns it
    probability = torch.full(input_ids.shape, 0.15)
    probability.masked_fill_(special_tokens_mask, 0.0)
    torch.bernoulli(probability)


def _sft_loss_masked_select_attention_mask() -> None:
    torch.manual_seed(0)
    logits = torch.randn(2, 4, 64)
    labels = torch.randint(0, 64, (2, 4))
    attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    per_token = F.cross_entropy(logits.transpose(1, 2), labels, reduction="none")
    per_token.masked_select(attention_mask).mean()


def _sft_loss_mask_weighted_in_place() -> None:
    attention_mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    token_weights = torch.tensor([[1.0, 1.0, 0.5, 2.0, 1.0], [1.0, 0.5, 0.5, 1.0, 2.0]])
    loss_mask = attention_mask.clone()
    loss_mask[:, :2] = 0  # no loss on the prompt
    loss_mask *= token_weights


def _sentence_embedding_mean_pool_bmm() -> None:
    torch.manual_seed(0)
    encoder = BertModel(_bert_config()).to(bf16)
    input_ids = torch.tensor([[2, 5, 6, 3, 0], [2, 7, 3, 0, 0]])
    attention_mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]])
    hidden = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    torch.bmm(attention_mask.unsqueeze(1), hidden).squeeze(1) / attention_mask.sum(-1, keepdim=True)


def _ner_metrics_bf16_logits_numpy() -> None:
    torch.manual_seed(0)
    model = BertForTokenClassification(_bert_config(num_labels=5)).to(bf16).eval()
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([[2, 5, 6, 3]])).logits
    np.argmax(logits.cpu().numpy(), axis=-1)


CASES: dict[str, LiveCase] = {
    # merging fp32 LoRA factors into a bf16 q_proj with addmm
    "lora-merge-addmm-fp32-factors": case(_lora_merge_addmm_fp32_factors, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # prefix tuning: an fp32 prefix encoder's keys/values put in the cache of an eager-attention bf16 Mistral
    "prefix-tuning-fp32-prefix-eager-mistral": case(_prefix_tuning_fp32_prefix_eager_mistral, "matmul_dtype",
                                                    "bf16", "f32", grade="correct", grade_at_freeze="wrong",
        why="At freeze (e4b0263) castwise gave matmul_dtype [bf16, f32] (high confidence). The generic 'expected scalar type BFloat16 but found Float' comes from eager attention's torch.matmul of 4-D query and key tensors, a batched matmul; it was read as a plain matrix multiply, the op's batch dimensions not taken from the frames."
        " Expectation corrected after grading from batched_matmul_dtype to matmul_dtype, the corpus's convention for a"
        " torch.matmul or `@` frame (held_out_2 swin-yolov5-3's `attn @ v`); the frozen grade stays wrong."),
    # (IA)^3 scaling vectors created in fp32 on the keys and values of a bf16 Llama (SDPA attention)
    "ia3-vectors-fp32-bf16-llama": case(_ia3_vectors_fp32_on_bf16_llama, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # prompt tuning: an fp32 soft prompt prepended to a bf16 Qwen2's embeddings, then generate(inputs_embeds=...)
    "qwen2-soft-prompt-fp32-generate": case(_qwen2_soft_prompt_fp32_generate, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # P-tuning: an fp32 LSTM prompt encoder fed virtual-token embeddings from the bf16 model
    "p-tuning-lstm-prompt-encoder-fp32": case(_p_tuning_lstm_prompt_encoder_fp32, "rnn_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # PiSSA initialisation with torch.svd_lowrank on a bf16 base weight
    "pissa-init-svd-lowrank-bf16": case(_pissa_init_svd_lowrank_bf16, "matmul_dtype", "bf16", "f32", fix=("float",), grade="correct", grade_at_freeze="partly",
        why="At freeze (e4b0263) castwise gave matmul_dtype [bf16, f32] (high confidence). The mismatch is inside torch.svd_lowrank, which has no bf16 path (it makes its random projection in fp32), so the fix is to run it on the weight in float32; castwise's fix, cast the odd operand or apply a policy, points at user operands the caller cannot reach."),
    # a bf16 LoRA delta merged into an fp8-stored base weight without dequantising
    "lora-merge-into-fp8-base": case(_lora_merge_into_fp8_base, "fp8_promotion", "float8_e4m3fn", "bf16", grade="correct", grade_at_freeze="correct"),
    # LoRA adapters made in the fp16 base model's dtype and trained with GradScaler
    "lora-fp16-base-grad-scaler": case(_lora_fp16_base_grad_scaler, "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
    # a cross-attention adapter written for fp16 builds its additive media mask in fp16, now run with bf16 q/k/v
    "cross-attention-adapter-mask-f16": case(_cross_attention_adapter_mask_f16, "attn_mask_dtype", "f16", "bf16", grade="correct", grade_at_freeze="correct"),
    # a halved GPT-2 whose token embeddings were put back to fp32, generating
    "gpt2-embeddings-kept-fp32-generate": case(_gpt2_embeddings_kept_fp32_generate, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # T5 encoder outputs cached in fp32 before the model was cast to bf16, then generate(encoder_outputs=...)
    "t5-encoder-outputs-cached-before-cast": case(_t5_encoder_outputs_cached_before_cast, "matmul_dtype", "f32",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # a ViT classifier with only its transformer layers halved, the patch embeddings left fp32
    "vit-only-layers-halved": case(_vit_only_layers_halved, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # a Mistral cast whole to float8_e4m3fn to fit memory, then run
    "mistral-stored-in-fp8": case(_mistral_stored_in_fp8, "no_kernel", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # a model with massive-activation channels (fine in bf16) served in fp16 with sampling: the logits become NaN
    "fp16-serving-massive-activations-nan": case(_fp16_serving_of_massive_activations, "nonfinite", fix=("bfloat16",), grade="correct", grade_at_freeze="correct"),
    # a value head added in fp32 after the policy was cast to bf16
    "value-head-added-after-cast": case(_value_head_added_after_cast, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # DPO: an fp16 reference model given the bf16 policy's inputs_embeds
    "dpo-reference-fp16-fed-policy-embeds": case(_dpo_reference_fp16_fed_policy_embeds, "matmul_dtype", "f32",
                                                 "f16", grade="correct", grade_at_freeze="correct"),
    # TR-DPO: an fp16 reference soft-updated toward the bf16 policy with lerp_
    "tr-dpo-reference-sync-lerp": case(_tr_dpo_reference_sync_lerp, "lerp_dtype", "f16", "bf16", grade="correct", grade_at_freeze="correct"),
    # a reward classifier (sequence classification) given int32 preference labels from numpy
    "reward-classifier-numpy-int32-labels": case(_reward_classifier_numpy_int32_labels, "target_dtype", "int32",
                                                 fix=("long",), grade="correct", grade_at_freeze="correct"),
    # PPO: bf16 values written into an fp32 rollout buffer through a boolean response mask
    "ppo-rollout-values-masked-write": case(_ppo_rollout_values_masked_write, "indexed_write_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # PPO: per-token rewards allocated with zeros_like(response_ids), an int64, the bf16 score added in place
    "ppo-rewards-zeros-like-response": case(_ppo_rewards_zeros_like_response, "result_cast", "bf16", "int64", grade="correct", grade_at_freeze="correct"),
    # PPO: sampled tokens stored in a default-dtype (float) rollout buffer, then used to gather log-probs
    "ppo-rollout-token-buffer-float": case(_ppo_rollout_token_buffer_float, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # RLHF reward clipping at the 5th/95th percentiles of bf16 rewards
    "reward-percentile-clip-bf16": case(_reward_percentile_clip_bf16, "no_kernel", fix=("float",), grade="correct", grade_at_freeze="correct"),
    # a BERT span tagger given its token labels as a bool comparison
    "token-tagging-bool-labels": case(_token_tagging_bool_labels, "target_dtype", "bool", fix=("long",), grade="correct", grade_at_freeze="correct"),
    # causal-LM labels built with torch.where(mask, input_ids, -100.0): the float -100 makes them float
    "causal-lm-labels-where-float": case(_causal_lm_labels_where_float, "target_dtype", "f32", fix=("long",), grade="correct", grade_at_freeze="correct"),
    # a byte-level model's collator padding uint8 byte labels with -100
    "byte-level-collator-pad-labels-uint8": case(_byte_level_collator_pad_labels_uint8, "half_overflow", "uint8", grade="correct", grade_at_freeze="correct"),
    # an MLM collator using the tokenizer's 0/1 special_tokens_mask (int64) in masked_fill_
    "mlm-collator-special-tokens-mask-int": case(_mlm_collator_special_tokens_mask_int, "mask_dtype", "int64", grade="correct", grade_at_freeze="correct"),
    # SFT loss masking with masked_select and the tokenizer's int64 attention_mask
    "sft-loss-masked-select-attention-mask": case(_sft_loss_masked_select_attention_mask, "mask_dtype", grade="correct", grade_at_freeze="correct"),
    # SFT: the int64 attention mask reused as a loss mask and multiplied in place by float token weights
    "sft-loss-mask-weighted-in-place": case(_sft_loss_mask_weighted_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # sentence-embedding mean pooling with bmm between the int64 attention mask and bf16 hidden states
    "sentence-embedding-mean-pool-bmm": case(_sentence_embedding_mean_pool_bmm, "integer_operand", "int64", "bf16", grade="correct", grade_at_freeze="correct"),
    # NER evaluation turning a bf16 token classifier's logits into numpy for the metrics
    "ner-metrics-bf16-logits-numpy": case(_ner_metrics_bf16_logits_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
}
