"""Held-out live set 32: mixture-of-experts routing and sparse / jagged data in low precision. Defects planted by a
helper who never read the rules, written before castwise ran and graded once with the rules frozen at 68c5d2f."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from .live_cases import LiveCase, case

FROZEN_AT = "68c5d2f"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


class _TopKMoE(nn.Module):
    """A Mixtral-style sparse MoE block: a linear router, top-k experts, outputs weighted by the renormalised gates."""

    def __init__(self, dim: int = 16, hidden: int = 32, experts: int = 4, top_k: int = 2) -> None:
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, dim)) for _ in range(experts)
        )

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        flat = hidden.reshape(-1, hidden.shape[-1])
        probs = F.softmax(self.gate(flat), dim=-1, dtype=torch.float32)
        weights, chosen = probs.topk(self.top_k, dim=-1)
        weights = (weights / weights.sum(-1, keepdim=True)).to(flat.dtype)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            token, slot = torch.where(chosen == e)
            out.index_add_(0, token, expert(flat[token]) * weights[token, slot, None])
        return out.reshape(hidden.shape)


def _router_kept_fp32_bf16_hidden() -> None:
    torch.manual_seed(0)
    moe = _TopKMoE().to(bf16)
    moe.gate.float()  # router upcast "for stable routing", but forward never casts the hidden states
    moe(torch.randn(2, 5, 16, dtype=bf16))


def _gshard_masks(tokens: int, experts: int, capacity: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Top-1 GShard-style gates (bf16) and the (token, expert, slot) combine weights built from them in fp32."""
    logits = torch.randn(tokens, experts, dtype=bf16)
    gates = F.softmax(logits.float(), dim=-1)
    expert = gates.argmax(-1)
    mask = F.one_hot(expert, experts)
    slot = (torch.cumsum(mask, 0) - 1) * mask
    keep = mask * (slot < capacity)
    gate = (gates * keep).sum(-1)
    combine = gate[:, None, None] * keep[:, :, None] * F.one_hot((slot * keep).sum(-1), capacity)[:, None, :]
    return combine, combine.bool()


def _gshard_dispatch_einsum_bool_mask() -> None:
    torch.manual_seed(0)
    tokens = torch.randn(8, 16, dtype=bf16)
    _, dispatch = _gshard_masks(8, 4, 3)
    torch.einsum("sec,sm->ecm", dispatch, tokens)  # dispatch mask left bool, not cast to the tokens' dtype


def _gshard_combine_einsum_fp32_weights() -> None:
    torch.manual_seed(0)
    combine, dispatch = _gshard_masks(8, 4, 3)
    tokens = torch.randn(8, 16, dtype=bf16)
    expert_in = torch.einsum("sec,sm->ecm", dispatch.to(tokens.dtype), tokens)
    expert_out = torch.tanh(expert_in)
    torch.einsum("sec,ecm->sm", combine, expert_out)  # combine weights from the fp32 softmax, outputs bf16


def _topk_combine_bmm_fp32_weights() -> None:
    torch.manual_seed(0)
    logits = torch.randn(6, 4, dtype=bf16)
    weights, _ = F.softmax(logits, dim=-1, dtype=torch.float32).topk(2, dim=-1)
    expert_out = torch.randn(6, 2, 16, dtype=bf16)  # each token's two expert outputs, stacked
    torch.bmm(weights[:, None, :], expert_out)  # the fp32 routing weights never cast back


class _StackedExperts(nn.Module):
    """Experts as one stacked weight (experts, dim, hidden) and bias, applied to capacity-padded token groups."""

    def __init__(self, experts: int = 4, dim: int = 16, hidden: int = 32) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(experts, dim, hidden) * 0.05)
        self.bias = nn.Parameter(torch.zeros(experts, 1, hidden))

    def forward(self, grouped: torch.Tensor) -> torch.Tensor:
        return torch.baddbmm(self.bias, grouped, self.weight)


def _stacked_experts_baddbmm_fp32_bias() -> None:
    torch.manual_seed(0)
    experts = _StackedExperts()
    for name, param in experts.named_parameters():
        if not name.endswith("bias"):  # "biases and norms stay fp32" rule, applied by hand
            param.data = param.data.to(bf16)
    experts(torch.randn(4, 3, 16, dtype=bf16))


def _grouped_mm_fp32_master_experts() -> None:
    torch.manual_seed(0)
    master = torch.randn(4, 16, 16)  # fp32 master copy of the stacked expert weights
    tokens = torch.randn(12, 16, dtype=bf16)
    tokens_per_expert = torch.tensor([3, 3, 3, 3])
    F.grouped_mm(tokens, master, offs=torch.cumsum(tokens_per_expert, 0).to(torch.int32))


def _grouped_mm_int64_offsets() -> None:
    torch.manual_seed(0)
    weight = torch.randn(4, 16, 16, dtype=bf16)
    chosen = torch.tensor([0, 2, 1, 0, 3, 2, 1, 1, 0, 3, 3, 2])
    order = chosen.argsort(stable=True)
    tokens = torch.randn(12, 16, dtype=bf16)[order]
    offs = torch.cumsum(torch.bincount(chosen, minlength=4), 0)  # int64, straight from bincount/cumsum
    F.grouped_mm(tokens, weight, offs=offs)


def _inverse_permutation_scatter_int32_arange() -> None:
    chosen = torch.tensor([2, 0, 1, 0, 2, 1])
    order = chosen.argsort(stable=True)
    inverse = torch.empty_like(order)
    inverse.scatter_(0, order, torch.arange(order.numel(), dtype=torch.int32))  # kernel-friendly int32 positions


def _switch_aux_loss_dot_int_counts() -> None:
    torch.manual_seed(0)
    probs = F.softmax(torch.randn(16, 4), dim=-1)
    chosen = probs.argmax(-1)
    counts = torch.bincount(chosen, minlength=4)  # token counts per expert, never turned into fractions
    4 * torch.dot(counts, probs.mean(0)) / chosen.numel()


def _router_probs_take_along_int32_indices() -> None:
    torch.manual_seed(0)
    probs = F.softmax(torch.randn(6, 4, dtype=bf16), dim=-1)
    chosen = probs.topk(2, dim=-1).indices.to(torch.int32)  # int32 expert ids handed to the dispatch kernel
    torch.take_along_dim(probs, chosen, dim=-1)


def _static_routing_topk_out_int32() -> None:
    torch.manual_seed(0)
    values = torch.empty(6, 2, dtype=bf16)
    indices = torch.empty(6, 2, dtype=torch.int32)  # static buffers for graph capture, indices made int32
    torch.topk(torch.randn(6, 4, dtype=bf16), 2, dim=-1, out=(values, indices))


class _UsageTracker(nn.Module):
    """Keeps an exponential moving average of the router's mean probability per expert."""

    def __init__(self, experts: int = 4) -> None:
        super().__init__()
        self.register_buffer("usage", torch.full((experts,), 1.0 / experts))

    def update(self, probs: torch.Tensor) -> None:
        self.usage.lerp_(probs.mean(0), 0.01)


def _expert_usage_ema_lerp_bf16() -> None:
    torch.manual_seed(0)
    tracker = _UsageTracker()  # created after the model was cast, so its buffer stays fp32
    tracker.update(F.softmax(torch.randn(8, 4, dtype=bf16), dim=-1))


def _fp8_dispatch_gates_mul() -> None:
    torch.manual_seed(0)
    received = torch.randn(6, 16).to(E4M3)  # expert outputs sent back in fp8 to halve the all-to-all
    gates = torch.rand(6, 1, dtype=bf16)
    gates * received


def _expert_load_numpy_histogram_bf16() -> None:
    torch.manual_seed(0)
    probs = F.softmax(torch.randn(32, 4, dtype=bf16), dim=-1)
    np.histogram(probs.max(-1).values.numpy(), bins=10)


def _stochastic_routing_fp16_temperature_nan() -> None:
    torch.manual_seed(0)
    router = nn.Linear(16, 4, bias=False).half()
    with torch.no_grad():
        router.weight.mul_(400.0)
    hidden = torch.randn(8, 16, dtype=f16) * 10
    probs = F.softmax(router(hidden) / 0.05, dim=-1)  # sampled routing: a low temperature in fp16 overflows
    torch.multinomial(probs, 1)


def _capacity_keep_mask_gate_dtype_where() -> None:
    torch.manual_seed(0)
    gates = F.softmax(torch.randn(8, 4, dtype=bf16), dim=-1)
    chosen = gates.argmax(-1)
    slot = torch.cumsum(F.one_hot(chosen, 4), 0).gather(1, chosen[:, None]).squeeze(1) - 1
    keep = (slot < 2).to(gates.dtype)  # cast to the gates' dtype "so it can multiply them"
    torch.where(keep[:, None], gates, 0.0)


def _expert_count_all_to_all_int32_recv() -> None:
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group("gloo", init_method=f"file://{Path(folder) / 'store'}", rank=0, world_size=1)
        try:
            counts = torch.bincount(torch.tensor([0, 1, 1, 0]), minlength=2)
            received = torch.empty(2, dtype=torch.int32)  # receive buffer sized for the kernel's int32 counts
            dist.all_to_all_single(received, counts)
        finally:
            dist.destroy_process_group()


def _sparse_embedding_grad_accumulated_fp32() -> None:
    torch.manual_seed(0)
    table = nn.Embedding(20, 8, sparse=True).to(bf16)
    accumulated = None
    for ids in (torch.tensor([1, 4]), torch.tensor([4, 7])):
        table(ids).float().pow(2).sum().backward()
        grad = table.weight.grad.float()  # micro-batch gradients accumulated in fp32
        accumulated = grad if accumulated is None else accumulated + grad
        table.weight.grad = None
    table.weight.grad = accumulated.coalesce()


def _sparse_adjacency_ones_like_int64_values() -> None:
    torch.manual_seed(0)
    edges = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
    adjacency = torch.sparse_coo_tensor(edges, torch.ones_like(edges[0]), (4, 4))  # values int64 like the edges
    torch.sparse.mm(adjacency, torch.randn(4, 8))


def _pruned_expert_sparse_addmm_fp32_bias() -> None:
    torch.manual_seed(0)
    dense = nn.Linear(16, 8)
    weight = dense.weight.detach()
    pruned = (weight * (weight.abs() > 0.2)).to(bf16).to_sparse()  # pruned expert kept sparse in bf16
    x = torch.randn(16, 4, dtype=bf16)
    torch.sparse.addmm(dense.bias.detach()[:, None], pruned, x)  # the dense layer's bias still fp32


def _sparse_topk_attention_softmax_bf16() -> None:
    torch.manual_seed(0)
    scores = torch.randn(6, 6, dtype=bf16)
    top = scores.topk(2, dim=-1)
    rows = torch.arange(6).repeat_interleave(2)
    sparse_scores = torch.sparse_coo_tensor(torch.stack([rows, top.indices.flatten()]), top.values.flatten(), (6, 6))
    torch.sparse.softmax(sparse_scores, dim=1)


def _sampled_addmm_bf16_scores() -> None:
    torch.manual_seed(0)
    q, k = torch.randn(6, 8, dtype=bf16), torch.randn(6, 8, dtype=bf16)
    pattern = torch.ones(6, 6).tril().to(bf16).to_sparse_csr()  # causal sparsity pattern in the model's dtype
    torch.sparse.sampled_addmm(pattern, q, k.T, beta=0.0)


def _jagged_bf16_batch_fp32_linear() -> None:
    torch.manual_seed(0)
    head = nn.Linear(16, 4)  # a new classification head added after the encoder was cast to bf16
    batch = torch.nested.nested_tensor([torch.randn(3, 16), torch.randn(7, 16)], layout=torch.jagged, dtype=bf16)
    head(batch)


def _nested_from_mixed_dtype_samples() -> None:
    torch.manual_seed(0)
    cached = torch.randn(5, 16, dtype=bf16)  # features cached in bf16 on an earlier epoch
    fresh = torch.randn(3, 16)  # a sample just recomputed in fp32
    torch.nested.nested_tensor([cached, fresh], layout=torch.jagged)


def _nested_padded_fp16_minus_1e9() -> None:
    torch.manual_seed(0)
    scores = torch.nested.nested_tensor([torch.randn(3), torch.randn(5)], dtype=f16)
    torch.nested.to_padded_tensor(scores, -1e9).max(-1)  # pad so padding never wins the max


def _unpad_masked_select_int_attention_mask() -> None:
    torch.manual_seed(0)
    hidden = torch.randn(2, 5, 8, dtype=bf16)
    attention_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])  # the tokenizer's int64 mask
    hidden.masked_select(attention_mask[..., None]).view(-1, 8)


def _jagged_sdpa_bf16_q_fp32_kv() -> None:
    torch.manual_seed(0)
    lengths = (3, 5)
    q = torch.nested.nested_tensor([torch.randn(n, 2, 8) for n in lengths], layout=torch.jagged, dtype=bf16)
    kv = torch.nested.nested_tensor([torch.randn(n, 2, 8) for n in lengths], layout=torch.jagged)  # memory in fp32
    F.scaled_dot_product_attention(q.transpose(1, 2), kv.transpose(1, 2), kv.transpose(1, 2))


def _embedding_bag_float_offsets() -> None:
    torch.manual_seed(0)
    bag = nn.EmbeddingBag(50, 8, mode="mean").to(bf16)
    lengths = torch.tensor([3.0, 2.0, 4.0])  # lengths read as floats from a padded-mask sum
    ids = torch.randint(0, 50, (9,))
    bag(ids, torch.cat([torch.zeros(1), lengths.cumsum(0)[:-1]]))


def _segment_reduce_float_lengths() -> None:
    torch.manual_seed(0)
    hidden = torch.randn(2, 4, 8)
    mask = torch.tensor([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0]])
    packed = hidden[mask.bool()]
    torch.segment_reduce(packed, "mean", lengths=mask.sum(1))  # lengths kept in the float mask's dtype


def _repad_int32_token_stream_masked_scatter() -> None:
    flat_ids = torch.from_numpy(np.array([5, 6, 7, 8, 9, 10, 11], dtype=np.int32))  # packed stream from a shard
    lengths = [3, 4]
    mask = pad_sequence([torch.ones(n, dtype=torch.bool) for n in lengths], batch_first=True)
    padded = torch.zeros(mask.shape, dtype=torch.long)
    padded.masked_scatter_(mask, flat_ids)


CASES: dict[str, LiveCase] = {
    # --- routing and combine
    # a Mixtral-style bf16 MoE whose router was upcast to fp32, fed the bf16 hidden states without .float()
    "router-kept-fp32-bf16-hidden": case(_router_kept_fp32_bf16_hidden, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # GShard dispatch by einsum with the dispatch mask left bool
    "gshard-dispatch-einsum-bool-mask": case(_gshard_dispatch_einsum_bool_mask, "integer_operand", "bool", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GShard combine by einsum: fp32 combine weights from the upcast softmax with bf16 expert outputs
    "gshard-combine-einsum-fp32-weights": case(_gshard_combine_einsum_fp32_weights, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # top-2 outputs combined by bmm with routing weights from softmax(dtype=float32) never cast back
    "topk-combine-bmm-fp32-weights": case(_topk_combine_bmm_fp32_weights, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # stacked experts as one baddbmm, their bias kept fp32 by a hand-written "biases stay fp32" cast
    "stacked-experts-baddbmm-fp32-bias": case(_stacked_experts_baddbmm_fp32_bias, "batched_matmul_dtype", "f32",
                                              "bf16",
        grade="correct", grade_at_freeze="correct"),
    # grouped_mm of bf16 dispatched tokens with the fp32 master copy of the stacked expert weights
    "grouped-mm-fp32-master-experts": case(_grouped_mm_fp32_master_experts, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # grouped_mm offsets from bincount/cumsum left int64
    "grouped-mm-int64-offsets": case(_grouped_mm_int64_offsets, "index_tensor_dtype", fix=("int32",),
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (68c5d2f) castwise gave nothing. grouped_mm's \"Offsets have to be int32\" names neither a "
             "dtype nor the op, and the cause (int64 offsets from bincount/cumsum where grouped_mm takes int32) "
             "was not read.")),
    # the inverse of the token sort built by scatter_ of an int32 arange into an int64 buffer
    "inverse-permutation-scatter-int32-arange": case(_inverse_permutation_scatter_int32_arange,
                                                     "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Switch load-balancing loss: dot of bincount's int64 counts with the fp32 mean router probabilities
    "switch-aux-loss-dot-int-counts": case(_switch_aux_loss_dot_int_counts, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # router probabilities picked with take_along_dim by top-k ids converted to int32 for a kernel
    "router-probs-take-along-int32-indices": case(_router_probs_take_along_int32_indices, "index_tensor_dtype",
                                                  "int32",
        grade="correct", grade_at_freeze="correct"),
    # static top-k routing buffers for graph capture, the indices buffer made int32
    "static-routing-topk-out-int32": case(_static_routing_topk_out_int32, "indexed_write_dtype", "int64", "int32",
        grade="correct", grade_at_freeze="correct"),
    # an expert-usage EMA buffer created fp32 after the cast, lerp_'ed toward bf16 router probabilities
    "expert-usage-ema-lerp-bf16": case(_expert_usage_ema_lerp_bf16, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # expert outputs returned in fp8 by the all-to-all, multiplied by the bf16 gates
    "fp8-dispatch-gates-mul": case(_fp8_dispatch_gates_mul, "fp8_promotion", "bf16", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # a histogram of bf16 top router probabilities taken with numpy
    "expert-load-numpy-histogram-bf16": case(_expert_load_numpy_histogram_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # sampled routing in fp16 at a low temperature: the logits overflow, softmax gives NaN, multinomial refuses
    "stochastic-routing-fp16-temperature-nan": case(_stochastic_routing_fp16_temperature_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # an expert-capacity keep mask cast to the gates' bf16, then used as torch.where's condition
    "capacity-keep-mask-gate-dtype-where": case(_capacity_keep_mask_gate_dtype_where, "mask_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # expert parallelism: bincount's int64 token counts all_to_all'd into an int32 receive buffer
    "expert-count-all-to-all-int32-recv": case(_expert_count_all_to_all_int32_recv, "scalar_type", "int32",
                                               "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- sparse tensors
    # sparse embedding gradients accumulated over micro-batches in fp32, assigned back to the bf16 table's grad
    "sparse-embedding-grad-accumulated-fp32": case(_sparse_embedding_grad_accumulated_fp32, "loss_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a COO adjacency whose values are ones_like(edge_index) (int64) multiplied with fp32 node features
    "sparse-adjacency-ones-like-int64-values": case(_sparse_adjacency_ones_like_int64_values, "integer_operand",
                                                    "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a magnitude-pruned expert weight kept sparse in bf16, sparse.addmm with the dense layer's fp32 bias
    "pruned-expert-sparse-addmm-fp32-bias": case(_pruned_expert_sparse_addmm_fp32_bias, "matmul_dtype", "bf16",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # top-k sparse attention: the kept bf16 scores as a COO tensor through torch.sparse.softmax
    "sparse-topk-attention-softmax-bf16": case(_sparse_topk_attention_softmax_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # causal sparse attention scores by sampled_addmm with the CSR pattern and q/k in bf16
    "sampled-addmm-bf16-scores": case(_sampled_addmm_bf16_scores, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (68c5d2f) castwise gave nothing. sampled_addmm refuses bf16 with \"Expected self to be a "
             "floating-point or complex tensor, but got BFloat16\", a missing kernel worded as a type check, which "
             "was not read.")),
    # --- jagged and padded batches
    # a jagged bf16 batch into a classification head added in fp32 after the cast
    "jagged-bf16-batch-fp32-linear": case(_jagged_bf16_batch_fp32_linear, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a jagged batch built from a bf16 cached sample and a freshly computed fp32 one
    "nested-from-mixed-dtype-samples": case(_nested_from_mixed_dtype_samples, "op_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (68c5d2f) castwise gave nothing. The nested tensor constructor's \"all tensors in list must"
             " have the same dtype\" names no dtype, and two floating dtypes meeting in one jagged batch was not "
             "read from it.")),
    # fp16 ragged scores padded with -1e9 by to_padded_tensor before a max
    "nested-padded-fp16-minus-1e9": case(_nested_padded_fp16_minus_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # unpadding hidden states with masked_select and the tokenizer's int64 attention mask
    "unpad-masked-select-int-attention-mask": case(_unpad_masked_select_int_attention_mask, "mask_dtype",
                                                   fix=("bool",),
        grade="correct", grade_at_freeze="correct"),
    # jagged SDPA: bf16 queries against a jagged fp32 memory
    "jagged-sdpa-bf16-q-fp32-kv": case(_jagged_sdpa_bf16_q_fp32_kv, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # EmbeddingBag offsets from the cumsum of float lengths
    "embedding-bag-float-offsets": case(_embedding_bag_float_offsets, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # segment_reduce mean pooling with lengths summed from a float padding mask
    "segment-reduce-float-lengths": case(_segment_reduce_float_lengths, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (68c5d2f) castwise gave no_kernel [f32] (high confidence). The \"not implemented for "
             "'Float'\" wording was read as the data lacking a kernel, while the Float tensor is the lengths, which"
             " must be integer (the kernel's name, _segment_reduce_lengths_..., says so).")),
    # re-padding an int32 packed token stream from numpy into an int64 batch with masked_scatter_
    "repad-int32-token-stream-masked-scatter": case(_repad_int32_token_stream_masked_scatter,
                                                    "indexed_write_dtype", "int64", "int32",
        grade="correct", grade_at_freeze="correct"),
}
