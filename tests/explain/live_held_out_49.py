"""Held-out live set 49: LLM decoding and serving engines by hand in low precision (sampling and logits processors,
structured-output masks, speculative decoding, paged and quantized KV caches, MLA and attention sinks, multi-LoRA,
continuous batching, stop handling, logprobs and perplexity). Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at 83a11b2."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "83a11b2"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn
VOCAB, D, HEADS, HEAD_DIM = 50, 16, 2, 8


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(shape, generator=_gen())


# --- sampling and logits processors


def _top_p_scatter_back_upcast_sorted_logits() -> None:
    logits = _randn(2, VOCAB).to(bf16)
    sorted_logits, sorted_idx = torch.sort(logits.float(), dim=-1, descending=True)  # fp32 "for a stable cumsum"
    cumulative = sorted_logits.softmax(-1).cumsum(-1)
    remove = cumulative > 0.9
    remove[:, 1:] = remove[:, :-1].clone()
    remove[:, 0] = False
    sorted_logits = sorted_logits.masked_fill(remove, float("-inf"))
    logits.scatter_(1, sorted_idx, sorted_logits)


def _packed_sampling_params_top_k_gather() -> None:
    requests = [{"temperature": 0.7, "top_p": 0.9, "top_k": 5}, {"temperature": 1.0, "top_p": 1.0, "top_k": 20}]
    params = torch.tensor([[r["temperature"], r["top_p"], r["top_k"]] for r in requests])  # one tensor per batch
    temperature, top_k = params[:, 0:1], params[:, 2:3]
    logits = _randn(2, VOCAB).to(bf16) / temperature
    sorted_logits = logits.sort(dim=-1, descending=True).values
    kth = sorted_logits.gather(1, top_k - 1)
    logits.masked_fill(logits < kth, float("-inf"))


def _sampler_probs_into_fp32_buffer() -> None:
    probs = torch.empty(4, VOCAB)  # preallocated once by the sampler, default dtype
    logits = _randn(4, VOCAB).to(bf16)
    torch.softmax(logits / 0.7, dim=-1, out=probs)
    torch.multinomial(probs, 1, generator=_gen())


def _greedy_argmax_into_int32_graph_buffer() -> None:
    next_tokens = torch.zeros(4, dtype=torch.int32)  # static buffer for graph replay, int32 like the engine's ids
    logits = _randn(4, VOCAB).to(bf16)
    torch.argmax(logits, dim=-1, out=next_tokens)


def _logits_clamped_1e5_fp16() -> None:
    logits = _randn(2, VOCAB).half() * 30
    logits = logits.clamp(-1e5, 1e5)  # "keep infinities out before the softmax"
    logits.softmax(-1)


def _percentile_logit_threshold_bf16() -> None:
    logits = _randn(2, 100).to(bf16)
    threshold = torch.quantile(logits, 0.95, dim=-1, keepdim=True)  # keep the top 5% of the vocabulary
    logits.masked_fill(logits < threshold, float("-inf"))


def _h2o_heavy_hitter_scores_int_buffer() -> None:
    position_ids = torch.arange(6).unsqueeze(0)
    accumulated = torch.zeros_like(position_ids)  # one attention score per cached token
    q = _randn(1, HEADS, 1, HEAD_DIM).to(bf16)
    k = _randn(1, HEADS, 6, HEAD_DIM).to(bf16)
    probs = (q @ k.transpose(-1, -2) / HEAD_DIM**0.5).softmax(-1)
    accumulated += probs.sum(dim=(1, 2))


# --- structured outputs and stopping


def _grammar_allowed_ids_empty_list() -> None:
    logits = _randn(2, VOCAB).to(bf16)
    allowed_per_request = [[3, 7, 11], []]  # the second request's JSON state machine has no token left to allow
    disallowed = torch.ones(2, VOCAB, dtype=torch.bool)
    for row, allowed in enumerate(allowed_per_request):
        disallowed[row, torch.tensor(allowed)] = False
    logits.masked_fill_(disallowed, float("-inf"))


def _grammar_bitmask_unpacked_bits_as_mask() -> None:
    bitmask = torch.tensor([[0x000000FF, 0x0F], [-1, 0x03]], dtype=torch.int32)  # 32 tokens a word, 1 = allowed
    bits = (bitmask.unsqueeze(-1) >> torch.arange(32, dtype=torch.int32)) & 1
    allowed = bits.flatten(1)[:, :VOCAB]
    logits = _randn(2, VOCAB).to(bf16)
    logits.masked_fill(1 - allowed, float("-inf"))


def _grammar_bitmask_buffer_in_logits_dtype() -> None:
    logits = _randn(2, VOCAB).to(bf16)
    words = (VOCAB + 31) // 32
    bitmask = torch.zeros(2, words, dtype=logits.dtype)  # allocated beside the logits, like them
    bitmask[0] = torch.tensor([255.0, 15.0])
    bitmask[1] = torch.tensor([7.0, 3.0])
    bits = (bitmask.unsqueeze(-1) >> torch.arange(32)) & 1
    logits.masked_fill(bits.flatten(1)[:, :VOCAB] == 0, float("-inf"))


def _finished_rows_padded_with_bool_unfinished() -> None:
    pad_id, eos_id = 0, 2
    unfinished = torch.tensor([True, True, False])
    next_tokens = torch.tensor([5, 2, 9])
    next_tokens = next_tokens * unfinished + pad_id * (1 - unfinished)
    unfinished &= next_tokens != eos_id


# --- speculative decoding


def _eagle_draft_fusion_f16_token_embeds() -> None:
    target_hidden = _randn(2, 5, D).to(bf16)  # the bf16 target's last hidden states
    draft_embed = nn.Embedding(VOCAB, D).half()  # the draft's embedding, copied from its fp16 export
    fuse = nn.Linear(2 * D, D).to(bf16)
    tokens = torch.randint(0, VOCAB, (2, 5), generator=_gen())
    fused = torch.cat([draft_embed(tokens), target_hidden], dim=-1)
    fuse(fused)


def _draft_probs_cached_fp8_acceptance() -> torch.Tensor:
    k = 3
    draft_probs = torch.softmax(_randn(k, VOCAB), -1).to(E4M3)  # kept for the verify step in fp8 to save memory
    target_probs = torch.softmax(_randn(k, VOCAB).to(bf16), -1)
    draft_tokens = torch.tensor([1, 5, 7])
    rows = torch.arange(k)
    ratio = target_probs[rows, draft_tokens] / draft_probs[rows, draft_tokens]
    return torch.rand(k, generator=_gen()) < ratio


def _speculative_residual_all_zero() -> None:
    logits = _randn(3, VOCAB).to(bf16)
    target = logits.float().softmax(-1)
    draft = logits.float().softmax(-1)  # self-speculation: the early-exit draft shares the target's head
    residual = (target - draft).clamp_min(0)
    residual = residual / residual.sum(-1, keepdim=True)  # recovered tokens computed for every position at once
    torch.multinomial(residual, 1, generator=_gen())


def _draft_head_distill_engine_int32_tokens() -> None:
    draft_head = nn.Linear(D, VOCAB).to(bf16)
    hidden = _randn(6, D).to(bf16)
    target_tokens = torch.from_numpy(np.array([3, 9, 9, 1, 0, 44], dtype=np.int32))  # the engine's output buffer
    F.cross_entropy(draft_head(hidden).float(), target_tokens)


# --- attention variants and caches


def _attention_sinks_fp32_parameter() -> None:
    sinks = nn.Parameter(torch.zeros(HEADS))  # per-head sink logits added after the model was cast to bf16
    q, k, v = (_randn(1, HEADS, 4, HEAD_DIM).to(bf16) for _ in range(3))
    scores = q @ k.transpose(-1, -2) / HEAD_DIM**0.5
    sink = sinks.view(1, HEADS, 1, 1).expand(1, HEADS, 4, 1)
    probs = torch.cat([scores, sink], dim=-1).softmax(-1)
    probs[..., :-1] @ v


def _mla_absorbed_key_weight_fp32() -> None:
    nope, rank = HEAD_DIM, 6
    kv_b_proj = nn.Linear(rank, HEADS * nope * 2, bias=False).to(bf16)
    w = kv_b_proj.weight.float().view(HEADS, 2 * nope, rank)  # absorbed at load time in fp32 "for accuracy"
    w_uk = w[:, :nope]
    q_nope = _randn(3, HEADS, nope).to(bf16)
    torch.bmm(q_nope.transpose(0, 1), w_uk)


def _mla_rope_key_part_fp32_cache() -> None:
    nope, rope, t = HEAD_DIM, 4, 4
    q = _randn(1, HEADS, t, nope + rope).to(bf16)
    v = _randn(1, HEADS, t, nope + rope).to(bf16)
    k_nope = _randn(1, HEADS, t, nope).to(bf16)
    k_pe = _randn(1, 1, t, rope).to(bf16)
    inv_freq = 1.0 / 10000 ** (torch.arange(0, rope, 2).float() / rope)
    freqs = torch.outer(torch.arange(t).float(), inv_freq)
    cos, sin = freqs.cos().repeat(1, 2), freqs.sin().repeat(1, 2)  # the rotary cache, fp32
    x1, x2 = k_pe.chunk(2, dim=-1)
    k_pe = k_pe * cos + torch.cat([-x2, x1], dim=-1) * sin
    k = torch.cat([k_nope, k_pe.expand(1, HEADS, t, rope)], dim=-1)
    F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _cascade_prefix_suffix_merge_lerp() -> None:
    out_prefix = _randn(2, 4, HEAD_DIM).to(bf16)  # attention over the shared cached prefix
    out_suffix = _randn(2, 4, HEAD_DIM).to(bf16)  # attention over each request's own tokens
    lse_prefix, lse_suffix = _randn(2, 4), _randn(2, 4).flip(0)  # log-sum-exps kept in fp32
    w_suffix = torch.sigmoid(lse_suffix - lse_prefix).unsqueeze(-1)
    torch.lerp(out_prefix, out_suffix, w_suffix)


class _RotaryAttention(nn.Module):
    """A query projection with its rotary tables as non-persistent buffers."""

    def __init__(self) -> None:
        super().__init__()
        self.q_proj = nn.Linear(D, D, bias=False)
        inv_freq = 1.0 / 10000 ** (torch.arange(0, D, 2).float() / D)
        freqs = torch.outer(torch.arange(32).float(), inv_freq)
        self.register_buffer("cos", freqs.cos().repeat(1, 2), persistent=False)
        self.register_buffer("sin", freqs.sin().repeat(1, 2), persistent=False)

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        q = self.q_proj(x)
        q1, q2 = q.chunk(2, dim=-1)
        return q * self.cos[positions] + torch.cat([-q2, q1], dim=-1) * self.sin[positions]


def _rotary_cache_left_on_meta() -> None:
    state = {"q_proj.weight": _randn(D, D).to(bf16)}
    with torch.device("meta"):
        attention = _RotaryAttention()  # built on meta to skip initialisation
    attention.load_state_dict(state, assign=True)
    attention(_randn(1, 3, D).to(bf16), torch.arange(3))


def _last_token_hidden_buffer_default_dtype() -> None:
    final_norm = nn.LayerNorm(D).to(bf16)
    lm_head = nn.Linear(D, VOCAB, bias=False).to(bf16)
    hidden = _randn(3, 7, D).to(bf16)  # a padded prefill of three requests
    last = torch.zeros(3, D)  # the sampler's buffer of last positions
    for row, position in enumerate([2, 6, 4]):
        last[row] = hidden[row, position]
    lm_head(final_norm(last))


def _multi_lora_shrink_fp32_adapters() -> None:
    adapters = [torch.randn((D, 4), generator=_gen()) for _ in range(3)]  # each LoRA A from its fp32 safetensors
    lora_a = torch.stack(adapters)
    x = _randn(4, D).to(bf16)
    adapter_ids = torch.tensor([0, 2, 1, 0])
    torch.einsum("bd,bdr->br", x, lora_a[adapter_ids])


# --- paged and quantized KV caches, continuous batching


def _int8_kv_cache_write_rounded_not_cast() -> None:
    k_cache = torch.zeros(16, HEADS, HEAD_DIM, dtype=torch.int8)  # slots, heads, head_dim
    k_scales = torch.ones(16, HEADS, 1, dtype=bf16)
    k_new = _randn(3, HEADS, HEAD_DIM).to(bf16)
    slots = torch.tensor([4, 5, 9])
    scale = k_new.abs().amax(-1, keepdim=True) / 127
    k_scales.index_copy_(0, slots, scale)
    k_quantized = torch.round(k_new / scale).clamp(-128, 127)
    k_cache.index_copy_(0, slots, k_quantized)


def _prefix_block_copy_on_write_int32_ids() -> None:
    key_cache = _randn(8, 4, HEADS, HEAD_DIM).to(bf16)  # blocks, block_size, heads, head_dim
    block_table = torch.tensor([[0, 3, 5], [0, 3, 5]], dtype=torch.int32)  # two samples sharing the prompt's blocks
    free_block = torch.tensor([7], dtype=torch.int32)
    shared_last = block_table[1, 2:3]
    key_cache.index_copy_(0, free_block, key_cache.index_select(0, shared_last))  # copy on write before appending
    block_table[1, 2] = free_block[0]


def _block_counts_ceil_repeat_interleave() -> None:
    seq_lens = torch.tensor([5, 17, 9])
    block_size = 8
    blocks_per_seq = torch.ceil(seq_lens / block_size)
    torch.repeat_interleave(torch.arange(3), blocks_per_seq)  # the owning sequence of each allocated block


def _tp_vocab_logits_gather_fp32_buffer() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = dist.FileStore(os.path.join(folder, "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)
        try:
            shard = _randn(VOCAB, 2).to(bf16)  # this rank's vocabulary slice of the logits, vocab-major
            full = torch.empty(VOCAB * dist.get_world_size(), 2)  # gathered in fp32 "for the sampler"
            dist.all_gather_into_tensor(full, shard)
        finally:
            dist.destroy_process_group()


def _scheduler_p90_prompt_length() -> None:
    prompt_lens = torch.tensor([12, 512, 77, 1024, 33])
    p90 = torch.quantile(prompt_lens, 0.9)  # sizes the next prefill chunk
    int(p90)


# --- logprobs and perplexity


def _top_logprobs_response_numpy() -> None:
    logits = _randn(2, VOCAB).to(bf16)
    top = torch.log_softmax(logits, dim=-1).topk(5, dim=-1)
    {"token_ids": top.indices.tolist(), "logprobs": np.asarray(top.values).round(4).tolist()}


def _bits_per_byte_uint8_byte_counts() -> None:
    texts = ["a short document", "é" * 200]
    logits = _randn(2, 6, VOCAB).to(bf16)
    targets = torch.randint(0, VOCAB, (2, 6), generator=_gen())
    nll = F.cross_entropy(logits.float().transpose(1, 2), targets, reduction="none").sum(-1)
    n_bytes = torch.tensor([len(t.encode("utf-8")) for t in texts], dtype=torch.uint8)
    nll / n_bytes / np.log(2)


CASES: dict[str, LiveCase] = {
    # top-p computed on logits sorted in fp32, the filtered values scattered back into the bf16 logits
    "top-p-scatter-back-upcast-sorted-logits": case(_top_p_scatter_back_upcast_sorted_logits, "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # per-request sampling parameters packed into one float tensor; its top_k column used as gather's index
    "packed-sampling-params-top-k-gather": case(_packed_sampling_params_top_k_gather, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # the sampler's probabilities written with softmax(out=) into a buffer preallocated in fp32 for bf16 logits
    "sampler-probs-softmax-out-fp32-buffer": case(_sampler_probs_into_fp32_buffer, "indexed_write_dtype", "bf16",
                                                  "f32", grade="correct", grade_at_freeze="correct"),
    # greedy decoding writing argmax into a static int32 token buffer with out=
    "greedy-argmax-out-int32-buffer": case(_greedy_argmax_into_int32_graph_buffer, "indexed_write_dtype", "int64",
                                           "int32", grade="correct", grade_at_freeze="correct"),
    # an fp16 model's logits clamped to +-1e5 before the softmax
    "logits-clamp-1e5-fp16": case(_logits_clamped_1e5_fp16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # a percentile cut-off on the vocabulary by torch.quantile of bf16 logits
    "percentile-logit-threshold-quantile-bf16": case(_percentile_logit_threshold_bf16, "no_kernel", grade="correct", grade_at_freeze="correct"),
    # H2O heavy-hitter scores accumulated in a buffer made with zeros_like(position_ids), so int64
    "h2o-heavy-hitter-scores-int64-buffer": case(_h2o_heavy_hitter_scores_int_buffer, "result_cast", "bf16",
                                                 "int64", grade="correct", grade_at_freeze="correct"),
    # JSON-schema decoding: an empty allowed-token list becomes torch.tensor([]) (float) used as an index
    "grammar-empty-allowed-list-float-index": case(_grammar_allowed_ids_empty_list, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # a grammar bitmask unpacked to int32 0/1 bits, 1 - allowed passed as masked_fill's mask
    "grammar-bitmask-int-bits-masked-fill": case(_grammar_bitmask_unpacked_bits_as_mask, "mask_dtype", "int32", grade="correct", grade_at_freeze="correct"),
    # the grammar bitmask buffer allocated in the logits' bf16 dtype, unpacked with >>
    "grammar-bitmask-bf16-buffer-shift": case(_grammar_bitmask_buffer_in_logits_dtype, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # finished rows padded HF-style with 1 - unfinished where unfinished is a bool tensor
    "finished-rows-pad-one-minus-bool": case(_finished_rows_padded_with_bool_unfinished, "mask_dtype", "bool", grade="correct", grade_at_freeze="correct"),
    # EAGLE-style draft fusion: fp16 draft token embeddings concatenated with bf16 target hidden states, bf16 fc
    "eagle-fusion-f16-embeds-bf16-hidden": case(_eagle_draft_fusion_f16_token_embeds, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # draft probabilities cached in fp8, the acceptance ratio divides bf16 target probabilities by them
    "draft-probs-fp8-acceptance-ratio": case(_draft_probs_cached_fp8_acceptance, "fp8_promotion", "bf16",
                                             "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # recovered-token sampling from the normalised residual at every position: where draft equals target it is 0/0
    "speculative-residual-zero-over-zero": case(_speculative_residual_all_zero, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # online draft-head distillation against the engine's int32 output tokens as cross_entropy's target
    "draft-distill-int32-target-tokens": case(_draft_head_distill_engine_int32_tokens, "target_dtype", "int32", grade="correct", grade_at_freeze="correct"),
    # attention sinks as an fp32 Parameter concatenated to bf16 scores; the fp32 probabilities meet bf16 values
    "attention-sinks-fp32-parameter": case(_attention_sinks_fp32_parameter, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # MLA weight absorption done in fp32 at load time, bmm with the bf16 no-rope queries
    "mla-absorbed-key-weight-fp32-bmm": case(_mla_absorbed_key_weight_fp32, "batched_matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # MLA's decoupled rope key rotated with an fp32 cos/sin cache, concatenated with bf16 k_nope into SDPA
    "mla-rope-key-fp32-cache-sdpa": case(_mla_rope_key_part_fp32_cache, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # cascade attention merging prefix and suffix outputs with lerp by an fp32 weight from the log-sum-exps
    "cascade-merge-lerp-fp32-lse-weight": case(_cascade_prefix_suffix_merge_lerp, "lerp_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # rotary tables as non-persistent buffers left on meta after load_state_dict(assign=True)
    "rotary-buffers-left-on-meta": case(_rotary_cache_left_on_meta, "device_mismatch", grade="correct", grade_at_freeze="correct"),
    # last-position hidden states copied into a torch.zeros (fp32) buffer before the bf16 final LayerNorm
    "last-token-buffer-fp32-final-layernorm": case(_last_token_hidden_buffer_default_dtype, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # multi-LoRA serving: fp32 adapter A matrices stacked and einsum'd with bf16 activations
    "multi-lora-fp32-adapters-einsum": case(_multi_lora_shrink_fp32_adapters, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # an int8 KV cache written with index_copy_ of rounded bf16 keys, the .to(int8) forgotten
    "int8-kv-cache-index-copy-rounded-bf16": case(_int8_kv_cache_write_rounded_not_cast, "indexed_write_dtype",
                                                  "int8", "bf16", grade="correct", grade_at_freeze="correct"),
    # copy-on-write of a shared prefix block with index_copy_ and the block table's int32 block ids
    "prefix-block-copy-on-write-int32-ids": case(_prefix_block_copy_on_write_int32_ids, "index_tensor_dtype",
                                                 "int32", grade="correct", grade_at_freeze="correct"),
    # blocks per sequence from ceil of a true division, used as repeat_interleave's repeats
    "block-counts-ceil-repeat-interleave": case(_block_counts_ceil_repeat_interleave, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # tensor-parallel vocabulary logits (bf16) all_gather_into_tensor'd into an fp32 buffer
    "tp-vocab-logits-all-gather-fp32-buffer": case(_tp_vocab_logits_gather_fp32_buffer, "scalar_type", "bf16",
                                                   "f32", grade="correct", grade_at_freeze="correct"),
    # a scheduler's 90th percentile of int64 prompt lengths by torch.quantile
    "scheduler-p90-prompt-lengths-quantile": case(_scheduler_p90_prompt_length, "integer_operand", grade="correct", grade_at_freeze="correct"),
    # top logprobs of a bf16 model put into the JSON response through np.asarray
    "top-logprobs-response-numpy-bf16": case(_top_logprobs_response_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # bits-per-byte evaluation storing each document's UTF-8 byte count in uint8
    "bits-per-byte-uint8-byte-counts": case(_bits_per_byte_uint8_byte_counts, "half_overflow", "uint8", grade="correct", grade_at_freeze="correct"),
}
