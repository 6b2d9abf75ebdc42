"""Held-out live set 67: LLM pretraining data pipelines and the training step around them, written by hand in low
precision (sequence packing with document masks, cu_seqlens and position ids as int32/int64, loss masks and label
shifting with ignore_index, token-id memmaps from numpy uint16/uint32, z-loss and logit soft-capping, gradient
accumulation with loss normalisation by token counts, MFU/throughput counters, curriculum and data-mixture weights).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at b102518."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b102518"

bf16, f16 = torch.bfloat16, torch.float16
_VOCAB = 96
_EOS, _BOS = 0, 1
_HEADS, _HEAD_DIM = 2, 8


def _seeded() -> None:
    torch.manual_seed(0)


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _uint16_shard(n: int = 256) -> np.ndarray:
    """A nanoGPT-style .bin shard as the loader sees it through np.memmap: raw little-endian uint16 token ids."""
    tokens = _rng().integers(2, _VOCAB, n).astype(np.uint16)
    tokens[::17] = _EOS
    return np.frombuffer(tokens.tobytes(), dtype=np.uint16)


def _packed_doc_lengths() -> list[int]:
    return [5, 3, 8]  # three documents packed into one 16-token row


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


# --- token-id shards from numpy


def _bos_prepended_to_uint16_document() -> None:
    shard = _uint16_shard()
    start, end = 18, 34  # from the document index
    document = torch.from_numpy(shard[start:end])
    torch.cat([torch.tensor([_BOS]), document, torch.tensor([_EOS])])


def _document_lengths_from_uint32_offsets() -> None:
    offsets = np.array([0, 5, 8, 16, 31, 40], dtype=np.uint32)  # the .idx file stores document offsets as uint32
    lengths = torch.diff(torch.from_numpy(offsets))
    lengths.max()


def _label_shift_pad_ignore_index_uint16() -> tuple[torch.Tensor, torch.Tensor]:
    shard = _uint16_shard()
    batch = torch.from_numpy(shard[: 4 * 17].copy()).view(4, 17)
    inputs = batch[:, :-1]
    labels = F.pad(batch[:, 1:], (0, 1), value=-100)  # last position has no next token
    return inputs, labels


def _unigram_counts_bincount_uint16() -> None:
    shard = torch.from_numpy(_uint16_shard().copy())
    counts = torch.bincount(shard, minlength=_VOCAB)  # unigram frequencies for the mixture report
    counts / counts.sum()


def _ragged_documents_numpy_object_array() -> None:
    documents = [np.array([1, 17, 23, 5, 0]), np.array([1, 44, 0]), np.array([1, 9, 9, 12, 60, 0])]
    batch = np.array(documents, dtype=object)  # ragged: numpy keeps an array of arrays
    torch.from_numpy(batch)


# --- packing: cu_seqlens, document ids, position ids, document masks


def _unpack_documents_tensor_split_float_cu_seqlens() -> None:
    _seeded()
    attention_mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]]).float()  # collator
    hidden = torch.randn(3, 6, 16, dtype=bf16)
    seqlens = attention_mask.sum(-1)
    cu_seqlens = F.pad(seqlens.cumsum(0), (1, 0))
    unpadded = hidden[attention_mask.bool()]
    torch.tensor_split(unpadded, cu_seqlens[1:-1])


def _packed_rope_angles_int32_position_ids() -> None:
    lengths = _packed_doc_lengths()
    position_ids = torch.cat([torch.arange(n, dtype=torch.int32) for n in lengths])[None]  # varlen convention
    inv_freq = 1.0 / (10000 ** (torch.arange(0, _HEAD_DIM, 2).float() / _HEAD_DIM))
    inv_freq_expanded = inv_freq[None, :, None].expand(position_ids.shape[0], -1, 1)
    freqs = (inv_freq_expanded @ position_ids[:, None, :]).transpose(1, 2)
    torch.cat((freqs, freqs), dim=-1).cos()


def _packed_rope_fp32_cache_promotes_q_and_k() -> None:
    _seeded()
    length = sum(_packed_doc_lengths())
    position_ids = torch.cat([torch.arange(n) for n in _packed_doc_lengths()])
    inv_freq = 1.0 / (10000 ** (torch.arange(0, _HEAD_DIM, 2).float() / _HEAD_DIM))
    angles = torch.outer(torch.arange(64).float(), inv_freq)
    cos_cache, sin_cache = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()  # fp32
    q, k, v = (torch.randn(1, _HEADS, length, _HEAD_DIM, dtype=bf16) for _ in range(3))
    cos, sin = cos_cache[position_ids], sin_cache[position_ids]
    q = q * cos + _rotate_half(q) * sin
    k = k * cos + _rotate_half(k) * sin
    F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _document_mask_numpy_float64_sdpa() -> None:
    _seeded()
    doc_ids = np.repeat(np.arange(3), _packed_doc_lengths())
    allowed = np.equal.outer(doc_ids, doc_ids) & np.tril(np.ones((len(doc_ids), len(doc_ids)), dtype=bool))
    doc_mask = torch.from_numpy(np.where(allowed, 0.0, -np.inf))  # additive mask built in the collator
    q, k, v = (torch.randn(1, _HEADS, len(doc_ids), _HEAD_DIM, dtype=bf16) for _ in range(3))
    F.scaled_dot_product_attention(q, k, v, attn_mask=doc_mask)


def _document_mask_uint8_block_diag_sdpa() -> None:
    _seeded()
    blocks = [torch.tril(torch.ones(n, n, dtype=torch.uint8)) for n in _packed_doc_lengths()]  # GPT-2's old buffer
    doc_mask = torch.block_diag(*blocks)
    q, k, v = (torch.randn(1, _HEADS, doc_mask.shape[0], _HEAD_DIM, dtype=bf16) for _ in range(3))
    F.scaled_dot_product_attention(q, k, v, attn_mask=doc_mask)


def _doc_start_offsets_indexed_by_float_doc_ids() -> None:
    tokens = torch.tensor([1, 17, 23, 0, 1, 44, 0, 1, 9, 9, 12, 0])
    is_eos = (tokens == _EOS).to(torch.float32)  # also used as a float weight for the EOS loss
    doc_ids = is_eos.cumsum(0) - is_eos
    doc_starts = torch.tensor([0, 4, 7])
    torch.arange(len(tokens)) - doc_starts[doc_ids]


def _sequence_length_warmup_linspace_slice() -> None:
    step, warmup_steps = 300, 1000
    batch = torch.randint(0, _VOCAB, (4, 256))
    schedule = torch.linspace(64, 256, warmup_steps)  # sequence-length warmup curriculum
    seq_len = schedule[min(step, warmup_steps - 1)]
    batch[:, :seq_len]


# --- labels and loss masks


def _loss_mask_float_where_ignore_index() -> torch.Tensor:
    input_ids = torch.tensor([[1, 17, 23, 5, 0, 44, 2, 0]])
    loss_mask = torch.from_numpy(np.array([[0, 0, 1, 1, 1, 0, 1, 1]], dtype=np.float32))  # stored with the shard
    return torch.where(loss_mask, input_ids, -100)


def _packer_label_buffer_from_torch_empty() -> None:
    _seeded()
    documents = [torch.tensor([1, 17, 23, 5, 0]), torch.tensor([1, 44, 0])]
    labels = torch.empty(2, 6).fill_(-100)
    for row, document in enumerate(documents):
        labels[row, : len(document) - 1] = document[1:]
    logits = torch.randn(2, 6, _VOCAB, dtype=bf16)
    F.cross_entropy(logits.float().view(-1, _VOCAB), labels.view(-1), ignore_index=-100)


def _hf_llama_packed_int32_labels() -> None:
    from transformers import LlamaConfig, LlamaForCausalLM

    _seeded()
    config = LlamaConfig(vocab_size=_VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64)
    model = LlamaForCausalLM(config).to(bf16)
    documents = [np.array([1, 5, 6, 7, 0], dtype=np.int32), np.array([1, 9, 10, 0], dtype=np.int32)]
    input_ids = torch.from_numpy(np.concatenate(documents))[None]  # the packer writes int32 arrays
    position_ids = torch.from_numpy(np.concatenate([np.arange(len(d), dtype=np.int32) for d in documents]))[None]
    model(input_ids=input_ids, position_ids=position_ids, labels=input_ids)


def _sft_assistant_mask_int64_masked_fill() -> torch.Tensor:
    input_ids = torch.tensor([1, 30, 31, 32, 40, 41, 42, 0])
    assistant_mask = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])  # the chat template's assistant_masks, a list of ints
    return input_ids.masked_fill(~assistant_mask, -100)


def _loss_mask_density_bool_mean() -> None:
    labels = torch.tensor([[-100, -100, 23, 5, 0, -100, 44, 0]])
    loss_mask = labels != -100
    {"tokens/supervised_fraction": loss_mask.mean().item()}


# --- z-loss, soft-capping, the loss


def _softcapped_attention_fp32_doc_mask_bmm() -> None:
    _seeded()
    length, cap = sum(_packed_doc_lengths()), 50.0
    q, k, v = (torch.randn(_HEADS, length, _HEAD_DIM, dtype=bf16) for _ in range(3))
    doc_ids = torch.repeat_interleave(torch.arange(3), torch.tensor(_packed_doc_lengths()))
    allowed = (doc_ids[:, None] == doc_ids[None, :]) & torch.ones(length, length, dtype=torch.bool).tril()
    doc_mask = torch.zeros(length, length).masked_fill(~allowed, float("-inf"))
    scores = torch.bmm(q, k.transpose(1, 2)) / _HEAD_DIM**0.5
    scores = cap * torch.tanh(scores / cap)  # Gemma-2-style attention logit soft-capping
    probs = (scores + doc_mask).softmax(-1)
    torch.bmm(probs, v)


class _FusedLinearCrossEntropyZLoss(torch.autograd.Function):
    """Chunk-free fused lm-head + cross-entropy + z-loss, computed in fp32 for stability."""

    @staticmethod
    def forward(ctx, hidden, weight, labels, z_coef):  # noqa: ANN001, ANN205
        logits = hidden.float() @ weight.float().T
        lse = torch.logsumexp(logits, -1)
        ce = lse - logits.gather(-1, labels[:, None]).squeeze(-1)
        probs = (logits - lse[:, None]).exp()
        ctx.save_for_backward(hidden, weight, labels, probs, lse)
        ctx.z_coef = z_coef
        return (ce + z_coef * lse.square()).mean()

    @staticmethod
    def backward(ctx, grad_output):  # noqa: ANN001, ANN205
        hidden, weight, labels, probs, lse = ctx.saved_tensors
        grad_logits = probs.clone()
        grad_logits[torch.arange(len(labels)), labels] -= 1
        grad_logits += 2 * ctx.z_coef * lse[:, None] * probs
        grad_logits *= grad_output / len(labels)
        grad_hidden = grad_logits @ weight
        grad_weight = grad_logits.T @ hidden.float()
        return grad_hidden, grad_weight.to(weight.dtype), None, None


def _fused_ce_z_loss_backward_bf16_weight() -> None:
    _seeded()
    hidden = torch.randn(12, 32, dtype=bf16, requires_grad=True)
    lm_head = nn.Linear(32, _VOCAB, bias=False).to(bf16)
    labels = torch.randint(0, _VOCAB, (12,))
    loss = _FusedLinearCrossEntropyZLoss.apply(hidden, lm_head.weight, labels, 1e-4)
    loss.backward()


def _grad_accum_token_weighted_loss_dot() -> None:
    _seeded()
    micro_losses = [torch.rand((), dtype=bf16) + 2 for _ in range(4)]  # per-micro-batch mean losses, bf16 model
    tokens = torch.tensor([4096, 3817, 4096, 1290])
    weights = tokens / tokens.sum()  # normalise by tokens, not by micro-batches
    torch.dot(torch.stack(micro_losses), weights)


def _all_padding_micro_batch_zero_token_count() -> None:
    _seeded()
    logits = torch.randn(2, 4, _VOCAB, requires_grad=True)
    labels = torch.randint(0, _VOCAB, (2, 4))
    loss_mask = torch.zeros(2, 4)  # the last micro-batch of the epoch is all padding
    with torch.autograd.detect_anomaly():
        token_loss = F.cross_entropy(logits.view(-1, _VOCAB), labels.view(-1), reduction="none")
        loss = (token_loss * loss_mask.view(-1)).sum() / loss_mask.sum()
        loss.backward()


def _tokens_per_micro_batch_fp16_counts() -> None:
    micro_batch_size, seq_len, accum_steps = 8, 8192, 4
    token_counts = torch.full((accum_steps,), micro_batch_size * seq_len, dtype=f16)  # the fp16 loss's dtype
    token_counts.sum()


# --- MFU and throughput counters


def _mfu_counters_int32_tensor() -> None:
    n_params, tokens_per_step = 124_000_000, 524_288
    flops_per_step = 6 * n_params * tokens_per_step
    torch.tensor([tokens_per_step, flops_per_step], dtype=torch.int32)  # packed to all-reduce in one call


class _ThroughputMeter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("tokens_per_sec", torch.tensor(0))

    def update(self, tokens: int, seconds: float) -> None:
        self.tokens_per_sec.mul_(0.9).add_(0.1 * tokens / seconds)


def _throughput_ema_int64_buffer() -> None:
    meter = _ThroughputMeter()
    meter.update(524_288, 1.7)


# --- data-mixture and curriculum weights


def _doremi_per_domain_loss_scatter_add_bf16() -> None:
    _seeded()
    domain_ids = torch.tensor([0, 0, 1, 2, 2, 2, 3, 1])  # per token, from the packer
    model_loss = torch.rand(8, dtype=bf16) + 2
    reference_loss = torch.rand(8, dtype=bf16) + 2
    excess = (model_loss - reference_loss).clamp(min=0)
    per_domain = torch.zeros(4)
    per_domain.scatter_add_(0, domain_ids, excess)


def _doremi_fp16_domain_weights_exp_overflow() -> None:
    weights = torch.full((4,), 0.25, dtype=f16)
    excess = torch.tensor([3.0, 12.0, 0.5, 1.0], dtype=f16)  # per-domain excess loss from the proxy model
    weights = weights * torch.exp(1.0 * excess)
    weights = weights / weights.sum()
    torch.distributions.Categorical(probs=weights).sample((16,))


class _MixtureSchedule(nn.Module):
    def __init__(self, start: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("start", start)


def _mixture_schedule_lerp_bf16_start() -> None:
    schedule = _MixtureSchedule(torch.tensor([0.6, 0.3, 0.1])).to(bf16)  # moved with the bf16 model
    domain_tokens = torch.tensor([8e9, 2e9, 1e9])
    end = domain_tokens / domain_tokens.sum()
    torch.lerp(schedule.start, end, 0.25)


def _domain_weights_bf16_to_numpy_sampler() -> None:
    domain_weights = torch.tensor([0.5, 0.3, 0.2], dtype=bf16)  # updated by the bf16 DoReMi step
    _rng().choice(3, size=16, p=domain_weights.numpy())


def _regmix_dirichlet_proposals_bf16() -> None:
    _seeded()
    schedule = _MixtureSchedule(torch.tensor([0.6, 0.3, 0.1])).to(bf16)
    concentration = schedule.start * 10.0  # token-share prior for the proxy runs
    torch.distributions.Dirichlet(concentration).sample((64,))


def _per_token_loss_histogram_bf16() -> None:
    _seeded()
    token_loss = F.cross_entropy(torch.randn(64, _VOCAB, dtype=bf16), torch.randint(0, _VOCAB, (64,)),
                                 reduction="none")
    torch.histogram(token_loss.detach(), bins=20)  # logged to the dashboard


CASES: dict[str, LiveCase] = {
    # a BOS/EOS pair (int64) concatenated around a document read from a uint16 memmap shard
    "bos-eos-int64-cat-uint16-document": case(_bos_prepended_to_uint16_document, "no_kernel", "int64", "uint16",
        grade="correct", grade_at_freeze="not_recognised",
        why=('At freeze (b102518) castwise gave nothing. torch.cat of the int64 BOS/EOS tensors with the uint16 '
             "document raised 'Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
             "Long and UInt16': torch's missing support for the new unsigned dtypes said as a promotion refusal "
             "(no op named, no 'not implemented for'), which no rule read; the fix is to convert the shard to "
             'int64 (.long()) before joining.')),
    # document lengths by torch.diff of the uint32 offsets from the shard's index file
    "document-lengths-diff-uint32-offsets": case(_document_lengths_from_uint32_offsets, "no_kernel", "uint32",
        grade="correct", grade_at_freeze="correct"),
    # next-token labels shifted with F.pad(value=-100) on the uint16 token batch
    "label-shift-pad-ignore-index-uint16": case(_label_shift_pad_ignore_index_uint16, "half_overflow", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # unigram frequencies by bincount over a uint16 token shard
    "unigram-counts-bincount-uint16": case(_unigram_counts_bincount_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # ragged tokenized documents kept in a numpy object array, handed to torch.from_numpy
    "ragged-documents-numpy-object-array": case(_ragged_documents_numpy_object_array, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # unpadding to varlen: cu_seqlens from the sum of a float attention mask, used by tensor_split
    "unpack-documents-tensor-split-float-cu-seqlens": case(_unpack_documents_tensor_split_float_cu_seqlens,
                                                           "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (b102518) castwise gave nothing. tensor_split's own check on its boundaries, 'tensor_split "
             "expected tensor_indices_or_sections to have dtype of long, but got Float', was not read as an index "
             'tensor of the wrong dtype: cu_seqlens came from the sum of a float attention mask and needed '
             '.long().')),
    # RoPE angles by matmul of fp32 inverse frequencies with packed int32 position ids
    "packed-rope-angles-int32-position-ids": case(_packed_rope_angles_int32_position_ids, "integer_operand",
                                                  "int32", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RoPE cos/sin gathered from an fp32 cache by packed position ids promote q and k, v stays bf16, then SDPA
    "packed-rope-fp32-cache-promotes-q-k": case(_packed_rope_fp32_cache_promotes_q_and_k, "sdpa_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an additive document-causal mask built with numpy (float64) given to bf16 SDPA
    "document-mask-numpy-float64-sdpa": case(_document_mask_numpy_float64_sdpa, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a block-diagonal document mask from uint8 tril blocks given to bf16 SDPA
    "document-mask-uint8-block-diag-sdpa": case(_document_mask_uint8_block_diag_sdpa, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # per-token document ids from the cumsum of a float EOS flag, used to index the document starts
    "doc-start-offsets-float-doc-ids": case(_doc_start_offsets_indexed_by_float_doc_ids, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # sequence-length warmup: the current length read from a float linspace schedule, used to slice the batch
    "sequence-length-warmup-linspace-slice": case(_sequence_length_warmup_linspace_slice, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # labels set to -100 by torch.where on a float32 loss mask stored with the shard
    "loss-mask-float-where-ignore-index": case(_loss_mask_float_where_ignore_index, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the packer's label buffer made with torch.empty(...).fill_(-100) (float), into cross_entropy
    "packer-label-buffer-torch-empty": case(_packer_label_buffer_from_torch_empty, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a tiny bf16 Llama given packed int32 input_ids, position_ids and labels from a numpy packer
    "hf-llama-packed-int32-labels": case(_hf_llama_packed_int32_labels, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # SFT labels masked with ~assistant_mask where the mask is an int64 list from the chat template
    "sft-assistant-mask-int64-masked-fill": case(_sft_assistant_mask_int64_masked_fill, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the supervised-token fraction logged as the mean of the bool loss mask
    "loss-mask-density-bool-mean": case(_loss_mask_density_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # soft-capped eager attention: an fp32 additive document mask promotes the bf16 scores, bmm with bf16 values
    "softcapped-attention-fp32-doc-mask-bmm": case(_softcapped_attention_fp32_doc_mask_bmm, "batched_matmul_dtype",
                                                   "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a fused lm-head + cross-entropy + z-loss Function whose backward multiplies fp32 grad logits by the bf16 weight
    "fused-ce-z-loss-backward-bf16-weight": case(_fused_ce_z_loss_backward_bf16_weight, "matmul_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # gradient accumulation: bf16 micro-batch losses weighted by fp32 token shares with torch.dot
    "grad-accum-token-weighted-loss-dot": case(_grad_accum_token_weighted_loss_dot, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an all-padding micro-batch: loss normalised by its zero token count, anomaly detection in backward
    "all-padding-micro-batch-zero-token-count": case(_all_padding_micro_batch_zero_token_count, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # per-micro-batch token counts (8 x 8192) kept in fp16 for the loss normalisation
    "tokens-per-micro-batch-fp16-counts": case(_tokens_per_micro_batch_fp16_counts, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # MFU counters (tokens, FLOPs per step) packed into an int32 tensor for one all-reduce
    "mfu-counters-int32-tensor": case(_mfu_counters_int32_tensor, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # a tokens-per-second EMA kept in a buffer registered as torch.tensor(0), updated in place
    "throughput-ema-int64-buffer": case(_throughput_ema_int64_buffer, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # DoReMi per-domain excess loss: bf16 token losses scatter_add_'ed into an fp32 per-domain buffer
    "doremi-per-domain-loss-scatter-add-bf16": case(_doremi_per_domain_loss_scatter_add_bf16,
                                                    "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # DoReMi domain weights updated in fp16: exp of the excess loss overflows, Categorical gets NaN
    "doremi-fp16-domain-weights-exp-overflow": case(_doremi_fp16_domain_weights_exp_overflow, "nonfinite", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a data-mixture schedule lerping its bf16 start weights (moved with the model) toward fp32 end weights
    "mixture-schedule-lerp-bf16-start": case(_mixture_schedule_lerp_bf16_start, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 domain weights handed to numpy's sampler with .numpy()
    "domain-weights-bf16-to-numpy-sampler": case(_domain_weights_bf16_to_numpy_sampler, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # RegMix-style mixture proposals drawn from a Dirichlet with a bf16 concentration
    "regmix-dirichlet-proposals-bf16": case(_regmix_dirichlet_proposals_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a histogram of bf16 per-token losses for the dashboard with torch.histogram
    "per-token-loss-histogram-bf16": case(_per_token_loss_histogram_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
