"""Held-out live set 15: memory- and speed-saving tricks written by hand in plain torch (flat parameter and gradient
buffers, gradient compression and error feedback, stochastic rounding and Kahan updates, 8-bit, 16-bit and fp8
optimizer states and scaling, CPU and NVMe offload, tensor and pipeline sharding, weight tying, chunked attention and
losses). Defects planted by a helper who never read the rules, written before castwise ran and graded once with the
rules frozen at 7871e4c."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "7871e4c"

bf16, f16 = torch.bfloat16, torch.float16
E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


# --- flat parameter and gradient buffers, offload --------------------------------------------------------------------

def _flat_parameter_views_rebound() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 4))
    for module in model:
        if isinstance(module, nn.Linear):
            module.to(bf16)  # norms stay fp32
    params = list(model.parameters())
    flat = torch.cat([p.detach().reshape(-1) for p in params])  # one flat buffer for all of them
    offset = 0
    for p in params:
        p.data = flat[offset:offset + p.numel()].view_as(p)
        offset += p.numel()
    model(torch.randn(2, 8, dtype=bf16))


class _LinearWithMainGrad(torch.autograd.Function):
    """Megatron-style gradient accumulation fusion: the weight gradient is added straight into an fp32 main_grad."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        ctx.save_for_backward(x, weight)
        ctx.main_grad = weight.main_grad
        return x @ weight.t()

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        x, weight = ctx.saved_tensors
        ctx.main_grad.addmm_(grad_out.t(), x)
        return grad_out @ weight, None


def _main_grad_fused_accumulation() -> None:
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(4, 8, dtype=bf16))
    weight.main_grad = torch.zeros(4, 8)  # fp32 accumulation buffer
    x = torch.randn(3, 8, dtype=bf16, requires_grad=True)
    _LinearWithMainGrad.apply(x, weight).float().sum().backward()


def _offloaded_master_assigned_back() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.Conv2d(8, 4, 3, bias=False)).to(bf16)
    masters = {name: p.detach().float().clone() for name, p in model.named_parameters()}  # fp32 copies on the CPU
    optimizer = torch.optim.SGD(list(masters.values()), lr=0.1)
    images = torch.randn(2, 3, 8, 8, dtype=bf16)
    model(images).float().mean().backward()
    for name, p in model.named_parameters():
        masters[name].grad = p.grad.float()
    optimizer.step()
    for name, p in model.named_parameters():
        p.data = masters[name]
    model(images)


def _compressing_post_accumulate_hook() -> None:
    torch.manual_seed(0)
    model = nn.Linear(8, 4)

    def compress(param: torch.Tensor) -> None:
        param.grad = param.grad.to(bf16)  # halve the bytes before the bucket is reduced

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(compress)
    model(torch.randn(2, 8)).sum().backward()


def _nvme_offload_memmap_bf16_state() -> None:
    state = {"exp_avg": torch.zeros(64, dtype=bf16), "exp_avg_sq": torch.zeros(64, dtype=bf16)}
    with tempfile.TemporaryDirectory() as folder:
        for name, tensor in state.items():
            array = tensor.numpy()
            target = np.memmap(os.path.join(folder, f"{name}.bin"), dtype=array.dtype, mode="w+", shape=array.shape)
            target[:] = array
            target.flush()


# --- gradient compression and error feedback -------------------------------------------------------------------------

def _powersgd_q_default_dtype() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(16, 32).to(bf16)
    layer(torch.randn(4, 16, dtype=bf16)).float().pow(2).mean().backward()
    grad = layer.weight.grad
    q = torch.randn(grad.shape[1], 2)  # rank-2 PowerSGD factor
    p = grad @ q
    p @ q.t()


def _topk_payload_float_indices() -> None:
    torch.manual_seed(0)
    grad = torch.randn(1000)
    k = 10
    _, indices = grad.abs().topk(k)
    payload = torch.cat([grad[indices], indices.float()])  # values and indices in one buffer, one all-gather
    values, received = payload[:k], payload[k:]
    torch.zeros_like(grad).scatter_(0, received, values)


def _error_feedback_float_keep_mask() -> None:
    torch.manual_seed(0)
    grad, error = torch.randn(256), torch.zeros(256)
    accumulated = grad + error
    _, indices = accumulated.abs().topk(16)
    keep = torch.zeros_like(accumulated).scatter_(0, indices, 1.0)
    sent = accumulated * keep
    error = accumulated.masked_fill(keep, 0.0)
    sent + error


def _topk_decompress_bf16_values() -> None:
    torch.manual_seed(0)
    grad = torch.randn(512)
    _, indices = grad.abs().topk(32)
    values = grad[indices].to(bf16)  # values travel in bf16
    dense = torch.zeros(512)
    dense[indices] = values


def _int8_gradients_averaged_before_dequant() -> None:
    torch.manual_seed(0)
    worker_grads = [torch.randn(64) * 0.01 for _ in range(4)]
    scales = torch.stack([g.abs().max() / 127 for g in worker_grads])
    quantized = torch.stack([torch.round(g / s).to(torch.int8) for g, s in zip(worker_grads, scales)])
    averaged = quantized.mean(0)
    averaged * scales.mean()


def _qsgd_levels_of_zero_rows() -> None:
    torch.manual_seed(0)
    embedding = nn.Embedding(32, 4)
    embedding(torch.tensor([1, 5, 9])).sum().backward()
    grad = embedding.weight.grad.view(-1)  # rows not in the batch are exact zeros
    levels = 4
    scaled = grad.abs() / grad.norm() * levels
    lower, upper = scaled.floor(), scaled.ceil()
    probability = (scaled - lower) / (upper - lower)
    lower + torch.bernoulli(probability)


def _fp16_allreduce_of_scaled_grads() -> None:
    torch.manual_seed(0)
    model = nn.Linear(16, 4)
    loss_scale = 2.0 ** 15
    received = []
    for _ in range(8):
        model.zero_grad()
        x, y = torch.randn(32, 16) * 4, torch.randn(32, 4)
        (F.mse_loss(model(x), y) * loss_scale).backward()
        received.append([p.grad.half() for p in model.parameters()])  # fp16 compression of still-scaled grads
    for index, p in enumerate(model.parameters()):
        p.grad = torch.stack([grads[index] for grads in received]).sum(0).float() / (8 * loss_scale)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)


# --- stochastic rounding and Kahan summation -------------------------------------------------------------------------

def _stochastic_rounding_float_noise() -> None:
    torch.manual_seed(0)
    updated = torch.randn(64)  # fp32 result of the update, to be rounded to bf16
    bits = updated.view(torch.int32)
    noise = torch.randint_like(updated, 0, 1 << 16)
    bits.add_(noise)


def _stochastic_rounding_mask_constant() -> None:
    torch.manual_seed(0)
    updated = torch.randn(64)
    bits = updated.view(torch.int32) + torch.randint_like(updated.view(torch.int32), 0, 1 << 16)
    mask = torch.full_like(bits, 0xFFFF0000)
    (bits & mask).view(torch.float32).to(bf16)


def _stochastic_rounding_rand_on_bits() -> None:
    torch.manual_seed(0)
    updated = torch.randn(64)
    bits = updated.view(torch.int32)
    noise = (torch.rand_like(bits) * 65536).int()
    (bits + noise).view(torch.float32).to(bf16)


def _kahan_sparse_rows_update() -> None:
    torch.manual_seed(0)
    table = torch.randn(100, 8, dtype=bf16)  # bf16 embedding weights
    compensation = torch.zeros(100, 8)  # fp32 Kahan buffer
    rows = torch.tensor([3, 17, 42])
    grad_rows = torch.randn(3, 8)
    step = -0.01 * grad_rows - compensation[rows]
    before = table[rows].float()
    table.index_add_(0, rows, step)
    compensation[rows] = (table[rows].float() - before) - step


# --- 8-bit, 16-bit and fp8 optimizer states and scaling --------------------------------------------------------------

def _bf16_moments_fp32_master_grads() -> None:
    torch.manual_seed(0)
    master = nn.Parameter(torch.randn(16, 8))
    master.grad = torch.randn(16, 8)
    exp_avg = torch.zeros_like(master, dtype=bf16)  # 16-bit optimizer state
    exp_avg_sq = torch.zeros_like(master, dtype=bf16)
    exp_avg.lerp_(master.grad, 1 - 0.9)
    exp_avg_sq.mul_(0.999).addcmul_(master.grad, master.grad, value=0.001)


def _blockwise_8bit_state_uint8_codes() -> None:
    torch.manual_seed(0)
    code = torch.linspace(-1, 1, 256)  # quantization map
    state = torch.randn(64) * 0.1
    absmax = state.abs().max()
    codes = torch.bucketize(state / absmax, code).clamp_(max=255).to(torch.uint8)  # one byte per entry
    code[codes] * absmax


def _fp8_first_moment_in_place() -> None:
    torch.manual_seed(0)
    grad = torch.randn(16, 8)
    exp_avg = torch.zeros(16, 8).to(E4M3)  # one byte per moment
    exp_avg.mul_(0.9).add_(grad, alpha=0.1)


def _e5m2_gradients_into_main_grad() -> None:
    torch.manual_seed(0)
    main_grad = torch.zeros(4, 8)
    scale = 2.0 ** 10
    for _ in range(2):
        grad = torch.randn(4, 8) * 1e-3
        received = (grad * scale).to(E5M2)  # all-reduced in e5m2 to cut traffic
        main_grad.add_(received)
    main_grad.div_(scale)


def _mx_block_scales_e8m0() -> None:
    torch.manual_seed(0)
    blocks = torch.randn(4, 64).view(4, 2, 32)
    amax = blocks.abs().amax(-1, keepdim=True)
    scales = torch.exp2(torch.floor(torch.log2(amax)) - 8).to(torch.float8_e8m0fnu)  # shared exponent per block
    quantized = (blocks / scales.float()).to(E4M3)
    quantized.float() * scales


class _Int8StashedLinear(torch.autograd.Function):
    """A linear layer that keeps its input as int8 for the backward, to save activation memory."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        scale = x.abs().amax() / 127
        ctx.save_for_backward(torch.round(x / scale).to(torch.int8), weight)
        ctx.scale = scale
        return x @ weight.t()

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        x_int8, weight = ctx.saved_tensors
        grad_weight = grad_out.t() @ x_int8
        return grad_out @ weight, grad_weight


def _int8_stashed_activation_backward() -> None:
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(4, 8, dtype=bf16))
    x = torch.randn(3, 8, dtype=bf16)
    _Int8StashedLinear.apply(x, weight).float().pow(2).sum().backward()


# --- tensor and pipeline sharding, weight tying ----------------------------------------------------------------------

def _context_parallel_kv_gather_buffer() -> None:
    torch.manual_seed(0)
    world, heads, local_len, dim = 2, 2, 4, 8
    q = torch.randn(1, heads, local_len, dim, dtype=bf16)
    kv_shards = [(torch.randn(1, heads, local_len, dim, dtype=bf16), torch.randn(1, heads, local_len, dim, dtype=bf16))
                 for _ in range(world)]
    k_full = torch.empty(1, heads, world * local_len, dim)  # gather buffers
    v_full = torch.empty(1, heads, world * local_len, dim)
    for rank, (k, v) in enumerate(kv_shards):
        k_full[:, :, rank * local_len:(rank + 1) * local_len] = k
        v_full[:, :, rank * local_len:(rank + 1) * local_len] = v
    F.scaled_dot_product_attention(q, k_full, v_full)


def _pipeline_later_stage_cast_alone() -> None:
    torch.manual_seed(0)
    blocks = [nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 16), nn.GELU()) for _ in range(4)]
    stage0 = nn.Sequential(nn.Embedding(50, 16), *blocks[:2])
    stage1 = nn.Sequential(*blocks[2:]).to(bf16)  # only the second stage's device is short of memory
    stage1(stage0(torch.randint(0, 50, (2, 6))))


def _pipeline_recurrent_stage_fp32() -> None:
    torch.manual_seed(0)
    stage0 = nn.Sequential(nn.Linear(12, 16), nn.Tanh()).to(bf16)
    stage1 = nn.LSTM(16, 16, batch_first=True)  # recurrent stage kept fp32 for stability
    stage1(stage0(torch.randn(2, 5, 12, dtype=bf16)))


class _TiedShardLM(nn.Module):
    """An LM shard whose head reuses the embedding table through a plain tensor attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.block = nn.Linear(16, 16)
        self.head_weight = self.embed.weight.detach()

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        hidden = torch.tanh(self.block(self.embed(ids)))
        return F.linear(hidden, self.head_weight)


def _tied_head_plain_attribute() -> None:
    torch.manual_seed(0)
    _TiedShardLM().to(bf16)(torch.randint(0, 100, (2, 5)))


def _experts_stacked_from_fp32_masters() -> None:
    torch.manual_seed(0)
    experts = [nn.Linear(16, 32, bias=False) for _ in range(4)]  # fp32 master experts
    grouped = torch.stack([expert.weight.t() for expert in experts])  # one contiguous tensor for one bmm
    tokens = torch.randn(4, 6, 16, dtype=bf16)  # (expert, capacity, hidden) after dispatch
    torch.bmm(tokens, grouped)


def _vocab_parallel_embedding_float_keep() -> None:
    torch.manual_seed(0)
    vocab, shards, rank = 64, 2, 1
    table = nn.Embedding(vocab, 8).weight.detach()
    start, end = rank * vocab // shards, (rank + 1) * vocab // shards
    shard = table[start:end]
    ids = torch.tensor([[3, 40, 63, 10]])
    in_shard = ((ids >= start) & (ids < end)).float()
    local_ids = (ids - start) * in_shard  # out-of-shard ids become 0
    F.embedding(local_ids, shard) * in_shard[..., None]


# --- chunked attention and losses ------------------------------------------------------------------------------------

def _online_softmax_fp32_accumulator() -> None:
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 16, 8, dtype=bf16) for _ in range(3))
    block = 8
    running_max = torch.full((2, 16, 1), float("-inf"))
    denominator = torch.zeros(2, 16, 1)
    acc = torch.zeros(2, 16, 8)  # fp32 statistics and accumulator
    for start in range(0, 16, block):
        scores = torch.bmm(q, k[:, start:start + block].transpose(1, 2)) * 8 ** -0.5
        new_max = torch.maximum(running_max, scores.amax(-1, keepdim=True).float())
        p = torch.exp(scores - new_max)
        alpha = torch.exp(running_max - new_max)
        denominator = denominator * alpha + p.sum(-1, keepdim=True)
        acc = torch.baddbmm(acc * alpha, p.to(v.dtype), v[:, start:start + block])
        running_max = new_max
    acc / denominator


def _online_softmax_fp16_running_max_init() -> None:
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 16, 8, dtype=f16) for _ in range(3))
    running_max = torch.full((1, 2, 16, 1), torch.finfo(torch.float32).min, dtype=q.dtype)
    denominator = torch.zeros(1, 2, 16, 1, dtype=q.dtype)
    acc = torch.zeros_like(q)
    for start in range(0, 16, 8):
        scores = q @ k[:, :, start:start + 8].transpose(-1, -2) * 8 ** -0.5
        new_max = torch.maximum(running_max, scores.amax(-1, keepdim=True))
        p = torch.exp(scores - new_max)
        alpha = torch.exp(running_max - new_max)
        denominator = denominator * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p @ v[:, :, start:start + 8]
        running_max = new_max


def _ring_attention_merge_lerp() -> None:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 4, 8, dtype=bf16)
    blocks = [(torch.randn(1, 2, 4, 8, dtype=bf16), torch.randn(1, 2, 4, 8, dtype=bf16)) for _ in range(2)]
    out = lse = None
    for k, v in blocks:
        scores = (q @ k.transpose(-1, -2)).float() * 8 ** -0.5
        block_lse = torch.logsumexp(scores, -1, keepdim=True)
        block_out = torch.softmax(scores, -1).to(v.dtype) @ v
        if out is None or lse is None:
            out, lse = block_out, block_lse
            continue
        out = torch.lerp(out, block_out, torch.sigmoid(block_lse - lse))
        lse = torch.logaddexp(lse, block_lse)


def _chunked_attention_bias_cached_bf16() -> None:
    torch.manual_seed(0)
    heads, max_len, length = 2, 64, 16
    slopes = torch.tensor([0.5, 0.25])
    positions = torch.arange(max_len)
    bias = (slopes[:, None, None] * (positions[None, :] - positions[:, None])).to(bf16)  # cached once, half the bytes
    q = k = v = torch.randn(1, heads, length, 8)
    outputs = [F.scaled_dot_product_attention(q[:, :, start:start + 4], k, v,
                                              attn_mask=bias[:, start:start + 4, :length])
               for start in range(0, length, 4)]
    torch.cat(outputs, dim=2)


def _chunked_ffn_out_buffer() -> None:
    torch.manual_seed(0)
    up, down = nn.Linear(16, 64).to(bf16), nn.Linear(64, 16, bias=False).to(bf16)
    x = torch.randn(2, 32, 16, dtype=bf16)
    out = torch.empty(2, 32, 16)  # preallocated once for every chunk
    with torch.no_grad():
        for start in range(0, 32, 8):
            hidden = F.gelu(up(x[:, start:start + 8]))
            torch.matmul(hidden, down.weight.t(), out=out[:, start:start + 8])


def _chunked_cross_entropy_int16_labels() -> None:
    torch.manual_seed(0)
    vocab = 1000
    hidden = torch.randn(2, 16, 8, dtype=bf16)
    head = nn.Linear(8, vocab, bias=False).to(bf16)
    labels = torch.randint(0, vocab, (2, 16)).to(torch.int16)  # token shard stored in two bytes per token
    total = torch.zeros(())
    for start in range(0, 16, 4):
        logits = head(hidden[:, start:start + 4]).float()
        total += F.cross_entropy(logits.flatten(0, 1), labels[:, start:start + 4].flatten(), reduction="sum")


def _weight_streaming_conv_weights_only() -> None:
    torch.manual_seed(0)
    conv = nn.Conv2d(3, 8, 3, padding=1)  # resident module; only weights are offloaded and streamed back
    offloaded = {"weight": conv.weight.detach().to(bf16).clone()}
    images = torch.randn(1, 3, 8, 8, dtype=bf16)
    F.conv2d(images, offloaded["weight"], conv.bias, padding=1)


CASES: dict[str, LiveCase] = {
    # --- flat parameter and gradient buffers, offload
    # FSDP-style flattening of mixed-dtype params (bf16 linears, fp32 norms) with torch.cat, views rebound via p.data
    "flat-param-cat-promotes-rebinds-bf16-linear": case(_flat_parameter_views_rebound, "matmul_dtype", "bf16", "f32",
                                                        grade="correct", grade_at_freeze="correct"),
    # Megatron-style fused weight-gradient accumulation: addmm_ of bf16 activations into an fp32 main_grad
    "main-grad-fused-addmm-fp32": case(_main_grad_fused_accumulation, "matmul_dtype", "f32", "bf16",
                                       grade="correct", grade_at_freeze="correct"),
    # ZeRO-offload: the fp32 CPU master weights assigned back with p.data = master instead of copied into bf16 params
    "offload-master-assigned-not-copied-conv": case(_offloaded_master_assigned_back, "conv_weight_dtype", "bf16", "f32",
                                                    grade="correct", grade_at_freeze="correct"),
    # a post-accumulate-grad hook replacing fp32 params' gradients with bf16 copies before bucketing
    "post-accumulate-hook-bf16-compressed-grad": case(_compressing_post_accumulate_hook, "loss_dtype", "bf16", "f32",
                                                      grade="correct", grade_at_freeze="correct"),
    # NVMe offload of bf16 optimizer states through np.memmap, converted with .numpy()
    "nvme-offload-memmap-bf16-state": case(_nvme_offload_memmap_bf16_state, "numpy_dtype", "bf16",
                                           grade="correct", grade_at_freeze="correct"),
    # --- gradient compression and error feedback
    # PowerSGD on a bf16 gradient with its Q factor drawn by torch.randn (fp32)
    "powersgd-q-randn-default-dtype": case(_powersgd_q_default_dtype, "matmul_dtype", "bf16", "f32",
                                           grade="correct", grade_at_freeze="correct"),
    # top-k values and indices packed into one fp32 payload; the unpacked float indices scattered back
    "topk-payload-float-indices-scatter": case(_topk_payload_float_indices, "index_tensor_dtype",
                                               grade="correct", grade_at_freeze="correct"),
    # top-k error feedback: keep-mask built with zeros_like(acc).scatter_(..., 1.0), a float, used in masked_fill
    "error-feedback-float-keep-mask": case(_error_feedback_float_keep_mask, "mask_dtype", "f32",
                                           grade="correct", grade_at_freeze="correct"),
    # top-k values sent in bf16, written into an fp32 dense gradient by advanced indexing
    "topk-decompress-bf16-into-fp32-dense": case(_topk_decompress_bf16_values, "indexed_write_dtype", "f32", "bf16",
                                                 grade="correct", grade_at_freeze="correct"),
    # int8-compressed gradients from the workers averaged with mean before dequantizing
    "int8-compressed-grads-mean": case(_int8_gradients_averaged_before_dequant, "integer_operand", "int8",
                                       grade="correct", grade_at_freeze="correct"),
    # QSGD stochastic levels on a sparse embedding gradient: zero rows give 0/0 = NaN probabilities for bernoulli
    "qsgd-zero-rows-nan-bernoulli": case(_qsgd_levels_of_zero_rows, "nonfinite",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (7871e4c) castwise gave nothing. bernoulli's range check (p_in >= 0 && p_in <= 1) names neither"
            " NaN nor a dtype: the NaN probabilities come from 0/0 on the gradient's exact-zero rows, which the "
            "message does not show."),
    # gradients compressed to fp16 while still multiplied by the loss scale, summed over 8 workers: clipping refuses
    "fp16-compressed-scaled-grads-overflow": case(_fp16_allreduce_of_scaled_grads, "nonfinite",
                                                  grade="correct", grade_at_freeze="correct"),
    # --- stochastic rounding and Kahan summation
    # bf16 stochastic rounding by bits: noise from randint_like(x) is float (x's dtype), added to the int32 view
    "stochastic-rounding-randint-like-float-noise": case(_stochastic_rounding_float_noise, "result_cast", "f32",
                                                         "int32", grade="correct", grade_at_freeze="correct"),
    # bf16 stochastic rounding: the 0xFFFF0000 truncation mask put in an int32 tensor
    "stochastic-rounding-mask-0xffff0000-int32": case(_stochastic_rounding_mask_constant, "half_overflow", "int32",
                                                      grade="correct", grade_at_freeze="correct"),
    # bf16 stochastic rounding: noise drawn with rand_like on the int32 bit view
    "stochastic-rounding-rand-like-int32-bits": case(_stochastic_rounding_rand_on_bits, "no_kernel", "int32",
                                                     grade="correct", grade_at_freeze="correct"),
    # Kahan-compensated sparse update of a bf16 embedding table: the fp32 compensated step index_add_'ed into it
    "kahan-sparse-rows-fp32-step-index-add": case(_kahan_sparse_rows_update, "indexed_write_dtype", "bf16", "f32",
                                                  grade="correct", grade_at_freeze="correct"),
    # --- 8-bit, 16-bit and fp8 optimizer states and scaling
    # 16-bit optimizer: Adam moments in bf16 lerp'ed toward the fp32 master weights' gradients
    "bf16-moments-lerp-fp32-master-grads": case(_bf16_moments_fp32_master_grads, "lerp_dtype", "bf16", "f32",
                                                grade="correct", grade_at_freeze="correct"),
    # blockwise 8-bit state: uint8 codes used directly to look up the quantization map (treated as a mask)
    "8bit-state-uint8-codes-index-map": case(_blockwise_8bit_state_uint8_codes, "index_tensor_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (7871e4c) castwise gave nothing. torch reads a uint8 index tensor as a boolean mask, so the "
            "error is a mask-shape IndexError naming no dtype; the cause, one-byte codes used as indices without "
            ".long(), is not in the message."),
    # Adam's first moment stored in float8_e4m3fn and updated in place
    "fp8-first-moment-mul-in-place": case(_fp8_first_moment_in_place, "no_kernel", "float8_e4m3fn",
                                          grade="correct", grade_at_freeze="correct"),
    # gradients all-reduced in e5m2, added into the fp32 main grad without dequantizing
    "e5m2-allreduced-grads-into-main-grad": case(_e5m2_gradients_into_main_grad, "fp8_promotion", "f32", "float8_e5m2",
                                                 grade="correct", grade_at_freeze="correct"),
    # MX-style block scales stored as float8_e8m0fnu, multiplied into the dequantized blocks as they are
    "mx-e8m0-block-scales-dequant": case(_mx_block_scales_e8m0, "fp8_promotion", "f32",
                                         grade="correct", grade_at_freeze="correct"),
    # activation memory saved by stashing a linear's input as int8: backward multiplies it without dequantizing
    "int8-stashed-activation-backward": case(_int8_stashed_activation_backward, "matmul_dtype", "bf16", "int8",
                                             grade="correct", grade_at_freeze="correct"),
    # --- tensor and pipeline sharding, weight tying
    # context parallel: bf16 K/V shards gathered into buffers made with torch.empty (fp32), bf16 queries
    "context-parallel-kv-gather-buffer-fp32": case(_context_parallel_kv_gather_buffer, "sdpa_dtype", "bf16", "f32",
                                                   grade="correct", grade_at_freeze="correct"),
    # a hand-split pipeline where only the second stage was cast to bf16: fp32 activations reach its LayerNorm
    "pipeline-second-stage-cast-alone-layernorm": case(_pipeline_later_stage_cast_alone, "norm_param_dtype", "f32",
                                                       grade="correct", grade_at_freeze="correct"),
    # a hand-split pipeline whose recurrent stage stays fp32, fed the bf16 stage's output
    "pipeline-lstm-stage-fp32-bf16-activations": case(_pipeline_recurrent_stage_fp32, "rnn_dtype", "bf16", "f32",
                                                      grade="correct", grade_at_freeze="correct"),
    # an LM shard tying its head to the embedding through a plain tensor attribute, then .to(bf16)
    "tied-head-plain-attribute-after-cast": case(_tied_head_plain_attribute, "matmul_dtype", "bf16", "f32",
                                                 grade="correct", grade_at_freeze="correct"),
    # grouped expert GEMM: expert weights stacked from the fp32 masters, bmm with bf16 dispatched tokens
    "grouped-experts-stacked-fp32-bmm": case(_experts_stacked_from_fp32_masters, "batched_matmul_dtype", "bf16", "f32",
                                             grade="correct", grade_at_freeze="correct"),
    # vocab-parallel embedding zeroing out-of-shard ids by multiplying with a float keep-mask
    "vocab-parallel-embedding-float-ids": case(_vocab_parallel_embedding_float_keep, "index_tensor_dtype", "f32",
                                               grade="correct", grade_at_freeze="correct"),
    # --- chunked attention and losses
    # hand-written flash-style attention: fp32 accumulator updated with baddbmm of bf16 probabilities and values
    "online-softmax-fp32-accumulator-baddbmm": case(_online_softmax_fp32_accumulator, "batched_matmul_dtype", "f32",
                                                    "bf16", grade="correct", grade_at_freeze="correct"),
    # memory-efficient attention ported to fp16: the running max initialised with float32's minimum in q's dtype
    "online-softmax-fp16-running-max-f32-min": case(_online_softmax_fp16_running_max_init, "half_overflow", "f16",
                                                    grade="correct", grade_at_freeze="correct"),
    # ring attention merging partial outputs with lerp, the weight sigmoid(lse diff) in fp32, the outputs bf16
    "ring-attention-lerp-merge-fp32-weight": case(_ring_attention_merge_lerp, "lerp_dtype", "bf16", "f32",
                                                  grade="correct", grade_at_freeze="correct"),
    # query-chunked attention with an ALiBi bias cached once in bf16 to save memory, fp32 queries
    "chunked-attention-bias-cached-bf16": case(_chunked_attention_bias_cached_bf16, "attn_mask_dtype", "bf16", "f32",
                                               grade="correct", grade_at_freeze="correct"),
    # sequence-chunked FFN at inference writing each bf16 chunk into a preallocated fp32 output with matmul(out=)
    "chunked-ffn-matmul-out-fp32-buffer": case(_chunked_ffn_out_buffer, "indexed_write_dtype", "bf16", "f32",
                                               grade="correct", grade_at_freeze="correct"),
    # chunked cross-entropy over a token shard stored as int16 to save memory
    "chunked-cross-entropy-int16-labels": case(_chunked_cross_entropy_int16_labels, "target_dtype", "int16",
                                               grade="correct", grade_at_freeze="correct"),
    # weight streaming that offloads and streams back only conv weights (bf16); the resident bias stays fp32
    "weight-streaming-conv-bias-fp32": case(_weight_streaming_conv_weights_only, "conv_bias_dtype", "bf16", "f32",
                                            grade="correct", grade_at_freeze="correct"),
}
