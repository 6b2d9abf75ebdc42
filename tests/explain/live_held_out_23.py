"""Held-out live set 23: LLM weight-only quantization and low-bit inference written by hand in plain torch (int8/int4
weights with per-channel or per-group scales and zero points, 4-bit packing with shifts and masks, GPTQ/SpQR-style
dequantization, LLM.int8 outliers, SmoothQuant, fp8 and NF4 weights, KV-cache quantization, calibration statistics,
dequantize-then-matmul in bf16/fp16). Defects planted by a helper who never read the rules, written before castwise ran
and graded once with the rules frozen at 8696f3d."""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8696f3d"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn

# the 16 NormalFloat4 levels (QLoRA), as a lookup table
NF4_LEVELS = torch.tensor([
    -1.0, -0.6962, -0.5251, -0.3949, -0.2844, -0.1848, -0.0911, 0.0,
    0.0796, 0.1609, 0.2461, 0.3379, 0.4407, 0.5626, 0.7230, 1.0,
])


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _gptq_qweight(in_features: int, out_features: int) -> torch.Tensor:
    """A GPTQ checkpoint's packed weight: eight 4-bit codes per int32 along the input dimension."""
    return torch.randint(-2**31, 2**31 - 1, (in_features // 8, out_features), dtype=torch.int32,
                         generator=_generator())


def _unpack_int4_rows(packed: torch.Tensor) -> torch.Tensor:
    """Eight 4-bit codes per int32 along dim 0, unpacked to one int32 code per row."""
    shifts = torch.arange(0, 32, 4, dtype=torch.int32)
    codes = (packed.unsqueeze(1) >> shifts.view(1, -1, 1)) & 0xF
    return codes.reshape(-1, packed.shape[-1])


def _symmetric_int8(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-output-channel absmax int8 quantization: the codes and the scales (in ``w``'s dtype)."""
    scale = w.abs().amax(dim=-1, keepdim=True).clamp(min=1e-8) / 127
    return torch.round(w / scale).clamp(-127, 127).to(torch.int8), scale


# --- packing and unpacking 4-bit codes --------------------------------------------------------------------------------


def _int4_kv_cache_pack_bf16_codes() -> None:
    keys = torch.randn(1, 2, 16, 8, generator=_generator()).to(bf16)  # new keys from a bf16 attention layer
    low, high = keys.amin(-1, keepdim=True), keys.amax(-1, keepdim=True)
    scale = (high - low).clamp(min=1e-5) / 15
    codes = ((keys - low) / scale).round().clamp(0, 15)  # asymmetric per-token int4 codes, never made integers
    packed = (codes[..., 1::2] << 4) | codes[..., 0::2]  # two codes per byte for the int4 KV cache
    packed.to(torch.uint8)


def _gptq_unpack_shifts_from_linspace() -> None:
    bits = 4
    qweight = _gptq_qweight(64, 16)
    shifts = torch.linspace(0, 32 - bits, 32 // bits)  # [0, 4, ..., 28]
    codes = (qweight.unsqueeze(1) >> shifts.view(1, -1, 1)) & (2**bits - 1)
    codes.reshape(64, 16)


def _nf4_lookup_with_int8_codes() -> None:
    block = 64
    packed = torch.randint(-128, 128, (4 * block // 2,), dtype=torch.int8, generator=_generator())  # exported as int8
    absmax = torch.rand(4, generator=_generator()) + 0.5  # one absmax per 64-weight block
    high, low = (packed >> 4) & 0xF, packed & 0xF
    codes = torch.stack([high, low], dim=-1).flatten()
    weight = NF4_LEVELS[codes].view(4, block) * absmax[:, None]
    weight.view(16, 16)


def _squeezellm_per_row_lut_uint8_codes() -> None:
    out_features, in_features = 16, 32
    luts = torch.randn(out_features, 16, generator=_generator()).sort(dim=1).values  # k-means centroids per row
    packed = torch.randint(0, 256, (out_features, in_features // 2), dtype=torch.uint8, generator=_generator())
    codes = torch.stack([packed & 0xF, packed >> 4], dim=-1).view(out_features, in_features)  # still uint8
    weight = torch.gather(luts, 1, codes)
    F.linear(torch.randn(2, in_features), weight)


# --- GPTQ and SpQR ----------------------------------------------------------------------------------------------------


def _gptq_act_order_g_idx_from_true_division() -> None:
    in_features, out_features, group_size = 64, 16, 16
    codes = _unpack_int4_rows(_gptq_qweight(in_features, out_features))
    perm = torch.randperm(in_features, generator=_generator())  # act-order: columns quantized by Hessian diagonal
    g_idx = torch.floor(torch.arange(in_features) / group_size)[perm]
    scales = torch.rand(in_features // group_size, out_features, generator=_generator()).half() * 0.02
    zeros = torch.full((in_features // group_size, out_features), 8, dtype=torch.int32)
    weight = (codes - zeros[g_idx]) * scales[g_idx]
    weight.t()


def _gptq_dequantize_in_place() -> None:
    in_features, out_features, group_size = 64, 16, 32
    weight = _unpack_int4_rows(_gptq_qweight(in_features, out_features))  # int32 codes, shape (in, out)
    g_idx = torch.arange(in_features) // group_size
    zeros = torch.full((in_features // group_size, out_features), 7, dtype=torch.int32) + 1  # GPTQ's qzeros + 1
    scales = (torch.rand(in_features // group_size, out_features, generator=_generator()) * 0.02).half()
    weight.sub_(zeros[g_idx]).mul_(scales[g_idx])  # in place, to avoid a second full-size copy per layer


def _gptq_weights_left_bf16_error_feedback() -> None:
    columns, rows = 32, 16
    weight = nn.Linear(columns, rows, bias=False).to(bf16).weight.data.clone()  # the layer's bf16 weight, no .float()
    inputs = torch.randn(256, columns, generator=_generator())
    hessian = 2 * inputs.t() @ inputs / inputs.shape[0] + 0.01 * torch.eye(columns)
    hessian_inverse = torch.linalg.cholesky(torch.cholesky_inverse(torch.linalg.cholesky(hessian)), upper=True)
    scale = weight.abs().amax(dim=1).clamp(min=1e-5) / 7
    for i in range(columns):
        w = weight[:, i]
        q = torch.clamp(torch.round(w / scale), -8, 7) * scale
        err = (w - q) / hessian_inverse[i, i]
        weight[:, i:] -= err.unsqueeze(1).matmul(hessian_inverse[i, i:].unsqueeze(0))


def _gptq_hessian_addmm_bf16_calibration_inputs() -> None:
    layer = nn.Linear(32, 32).to(bf16)
    hessian = torch.zeros(32, 32)  # accumulated in fp32 "for the Cholesky"
    samples = 0

    def add_batch(module: nn.Module, args: tuple[torch.Tensor, ...], output: torch.Tensor) -> None:
        nonlocal samples
        inp = args[0].reshape(-1, args[0].shape[-1]).t()
        new = args[0].shape[0]
        hessian.mul_(samples / (samples + new))
        samples += new
        inp = math.sqrt(2 / samples) * inp
        hessian.addmm_(inp, inp.t())

    layer.register_forward_hook(add_batch)
    with torch.no_grad():
        layer(torch.randn(4, 8, 32, generator=_generator()).to(bf16))


def _spqr_outliers_written_into_f16_weight() -> None:
    weight_q, scale = _symmetric_int8(torch.randn(16, 32, generator=_generator()))
    weight = weight_q.half() * scale.half()  # the dense part, dequantized to the fp16 compute dtype
    rows = torch.tensor([0, 3, 7, 12])
    cols = torch.tensor([5, 5, 30, 1])
    values = torch.tensor([4.1, -3.7, 5.2, -6.0])  # SpQR keeps its outliers unquantized, in fp32
    weight[rows, cols] = values


# --- SmoothQuant and LLM.int8 -----------------------------------------------------------------------------------------


def _smoothquant_fc_weight_rewrapped_fp32() -> None:
    ln, fc = nn.LayerNorm(32), nn.Linear(32, 64)
    block = nn.Sequential(ln, fc).to(bf16)
    act_scales = torch.rand(32, generator=_generator()) * 20 + 0.1  # per-channel absmax from calibration, fp32
    alpha = 0.5
    weight_scales = fc.weight.abs().amax(dim=0).float().clamp(min=1e-5)
    s = (act_scales.pow(alpha) / weight_scales.pow(1 - alpha)).clamp(min=1e-5)
    with torch.no_grad():
        ln.weight.div_(s)
        ln.bias.div_(s)
    fc.weight = nn.Parameter(fc.weight * s)  # migrate the difficulty into the weight
    block(torch.randn(2, 5, 32, generator=_generator()).to(bf16))


def _smoothquant_ln_weight_data_replaced() -> None:
    ln, fc = nn.LayerNorm(32), nn.Linear(32, 64)  # an OPT-style block: LayerNorm with a bias
    block = nn.Sequential(ln, fc).to(bf16)
    act_scales = torch.rand(32, generator=_generator()) * 20 + 0.1
    s = (act_scales.sqrt() / fc.weight.abs().amax(dim=0).float().clamp(min=1e-5).sqrt()).clamp(min=1e-5)
    with torch.no_grad():
        ln.weight.data = ln.weight.data / s
        ln.bias.data.div_(s)
        fc.weight.data.mul_(s)
    block(torch.randn(2, 5, 32, generator=_generator()).to(bf16))


def _llm_int8_outlier_columns_float_mask() -> None:
    x = torch.randn(8, 32, generator=_generator())
    x[:, [3, 17]] *= 40  # the systematic outlier features of a large LLM
    x = x.to(bf16)
    outlier_cols = (x.abs().amax(dim=0) > 6.0).to(x.dtype)  # 0/1, kept to multiply the fp16 path with later
    weight_q, weight_scale = _symmetric_int8(torch.randn(16, 32, generator=_generator()).to(bf16))
    x_regular = x.masked_fill(outlier_cols, 0.0)
    x_outlier = x * outlier_cols
    x_q, x_scale = _symmetric_int8(x_regular)
    regular = torch.mm(x_q.int(), weight_q.int().t()) * (x_scale * weight_scale.t())
    regular + F.linear(x_outlier, weight_q.to(bf16) * weight_scale)


# --- rotations and dequantize-then-matmul -----------------------------------------------------------------------------


def _quarot_hadamard_from_integer_literals() -> None:
    def hadamard(n: int) -> torch.Tensor:
        base = torch.tensor([[1, 1], [1, -1]])
        matrix = base
        while matrix.shape[0] < n:
            matrix = torch.kron(matrix, base)
        return matrix

    hidden = torch.randn(2, 5, 64, generator=_generator()).to(bf16)  # down_proj's input in a bf16 Llama MLP
    rotated = torch.matmul(hidden, hadamard(64)) / math.sqrt(64)  # online rotation to spread the outliers
    rotated.amax()


def _random_orthogonal_rotation_in_model_dtype() -> None:
    def random_orthogonal(n: int, dtype: torch.dtype) -> torch.Tensor:
        a = torch.randn(n, n, generator=_generator()).to(dtype)
        q, r = torch.linalg.qr(a)
        return q * torch.sign(torch.diagonal(r)).unsqueeze(0)

    embed = nn.Embedding(100, 32).to(bf16)
    rotation = random_orthogonal(32, embed.weight.dtype)  # SpinQuant-style R1, built in the model's dtype
    with torch.no_grad():
        embed.weight.copy_(embed.weight @ rotation)


def _moe_int8_experts_bmm_scale_after() -> None:
    experts, capacity, hidden, ffn = 4, 6, 16, 32
    experts_q = torch.randint(-127, 128, (experts, hidden, ffn), dtype=torch.int8, generator=_generator())
    experts_scale = (torch.rand(experts, 1, ffn, generator=_generator()) * 0.01).to(bf16)
    dispatched = torch.randn(experts, capacity, hidden, generator=_generator()).to(bf16)
    # per-output-channel scales commute with the GEMM, so they are applied to its result
    out = torch.bmm(dispatched, experts_q) * experts_scale
    out.sum(0)


def _group_wise_dequant_fused_in_einsum() -> None:
    out_features, in_features, group_size = 16, 64, 16
    groups = in_features // group_size
    codes = torch.randint(-8, 8, (out_features, groups, group_size), dtype=torch.int8, generator=_generator())
    scales = (torch.rand(out_features, groups, generator=_generator()) * 0.05).to(bf16)
    x = torch.randn(3, in_features, generator=_generator()).to(bf16)
    y = torch.einsum("bgk,ogk,og->bo", x.view(3, groups, group_size), codes, scales)
    y.float()


def _lora_init_svd_of_bf16_quantization_residual() -> None:
    weight = torch.randn(32, 32, generator=_generator()).to(bf16)
    weight_q, scale = _symmetric_int8(weight)
    residual = weight - weight_q * scale  # what the 4-bit base cannot represent, in the model's bf16
    u, s, vh = torch.linalg.svd(residual, full_matrices=False)  # LoftQ-style LoRA initialisation
    rank = 4
    (u[:, :rank] * s[:rank]).t() @ vh[:rank]


def _qlora_fp16_compute_dtype_into_bf16_layer_norm() -> None:
    class QLoRALinear(nn.Module):
        def __init__(self, dim: int, rank: int = 4) -> None:
            super().__init__()
            codes = torch.randint(0, 16, (dim, dim), generator=_generator())
            self.register_buffer("codes", codes.to(torch.uint8))
            self.register_buffer("absmax", torch.rand(dim, 1, generator=_generator()) + 0.5)
            self.compute_dtype = f16  # bnb_4bit_compute_dtype copied from an fp16 recipe
            self.lora_a = nn.Linear(dim, rank, bias=False)
            self.lora_b = nn.Linear(rank, dim, bias=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            weight = (NF4_LEVELS[self.codes.long()] * self.absmax).to(self.compute_dtype)
            base = F.linear(x.to(self.compute_dtype), weight)
            return base + self.lora_b(self.lora_a(x)) * 2.0

    model = nn.Sequential(QLoRALinear(32), nn.LayerNorm(32)).to(bf16)  # adapters and norms prepared in bf16
    model(torch.randn(2, 5, 32, generator=_generator()).to(bf16))


def _fused_qkv_with_fp8_q_and_bf16_kv() -> None:
    hidden, kv_dim = 64, 16
    projections = {name: nn.Linear(hidden, dim, bias=False).to(bf16)
                   for name, dim in (("q_proj", hidden), ("k_proj", kv_dim), ("v_proj", kv_dim))}
    skip = ("k_proj", "v_proj")  # small GQA projections left unquantized for accuracy
    stored = {}
    for name, proj in projections.items():
        if name in skip:
            stored[name] = proj.weight.data
        else:
            scale = proj.weight.abs().amax().float() / 448
            stored[name] = (proj.weight.float() / scale).to(E4M3)
    torch.cat([stored["q_proj"], stored["k_proj"], stored["v_proj"]], dim=0)  # one fused QKV weight


def _fp8_weights_pruned_two_four_in_place() -> None:
    weight = torch.randn(16, 32, generator=_generator()).to(bf16)
    scale = weight.abs().amax().float() / 448
    weight_fp8 = (weight.float() / scale).to(E4M3)  # the checkpoint was already converted to fp8
    groups = weight.abs().view(16, 8, 4)
    keep = torch.zeros_like(groups, dtype=torch.bool).scatter_(2, groups.topk(2, dim=2).indices, True).view(16, 32)
    weight_fp8.masked_fill_(~keep, 0)  # 2:4 sparsity applied to the stored weight


# --- integer GEMMs (W8A8) ---------------------------------------------------------------------------------------------


def _w8a8_uint8_activations_int8_weights() -> None:
    x = torch.randn(4, 32, generator=_generator())
    x_min, x_max = x.amin(), x.amax()
    x_scale = (x_max - x_min) / 255
    x_zero = torch.round(-x_min / x_scale)
    x_q = torch.clamp(torch.round(x / x_scale) + x_zero, 0, 255).to(torch.uint8)  # asymmetric activations
    w_q, w_scale = _symmetric_int8(torch.randn(16, 32, generator=_generator()))  # symmetric weights
    acc = torch.mm(x_q, w_q.t())
    (acc - x_zero * w_q.sum(1)) * x_scale * w_scale.t()


def _w8a8_int32_accumulator_as_out() -> None:
    x_q, x_scale = _symmetric_int8(torch.randn(4, 32, generator=_generator()))
    w_q, w_scale = _symmetric_int8(torch.randn(16, 32, generator=_generator()))
    acc = torch.empty(4, 16, dtype=torch.int32)  # int32 accumulation so the int8 products cannot wrap
    torch.mm(x_q, w_q.t(), out=acc)
    acc * x_scale * w_scale.t()


def _int8_attention_softmax_before_rescale() -> None:
    q = torch.randn(1, 2, 6, 8, generator=_generator())
    k = torch.randn(1, 2, 6, 8, generator=_generator())
    q_q, q_scale = _symmetric_int8(q)
    k_q, k_scale = _symmetric_int8(k)
    scores = torch.matmul(q_q.int(), k_q.int().transpose(-1, -2))  # exact int32 QK^T
    probs = F.softmax(scores, dim=-1) * (q_scale * k_scale.transpose(-1, -2) / math.sqrt(8))
    probs.sum()


def _quantize_into_preallocated_int8_buffer() -> None:
    state = {name: torch.randn(16, 32, generator=_generator()) for name in ("q_proj", "k_proj")}
    buffer = torch.empty(16, 32, dtype=torch.int8)  # reused for every layer to keep the peak memory low
    for weight in state.values():
        scale = weight.abs().amax(dim=1, keepdim=True) / 127
        torch.div(weight, scale, out=buffer)
        buffer.clamp_(-127, 127)


# --- KV-cache quantization --------------------------------------------------------------------------------------------


def _int8_kv_cache_fp32_scales_into_sdpa() -> None:
    batch, heads, max_len, dim = 1, 2, 16, 8
    k_cache = torch.zeros(batch, heads, max_len, dim, dtype=torch.int8)
    v_cache = torch.zeros(batch, heads, max_len, dim, dtype=torch.int8)
    k_scale = torch.ones(batch, heads, max_len, 1)  # per-token scales
    v_scale = torch.ones(batch, heads, max_len, 1)
    keys = torch.randn(batch, heads, 5, dim, generator=_generator()).to(bf16)
    values = torch.randn(batch, heads, 5, dim, generator=_generator()).to(bf16)
    for cache, scale_cache, new in ((k_cache, k_scale, keys), (v_cache, v_scale, values)):
        codes, scale = _symmetric_int8(new)
        cache[:, :, :5] = codes
        scale_cache[:, :, :5] = scale
    k = k_cache[:, :, :5] * k_scale[:, :, :5]
    v = v_cache[:, :, :5] * v_scale[:, :, :5]
    query = torch.randn(batch, heads, 1, dim, generator=_generator()).to(bf16)
    F.scaled_dot_product_attention(query, k, v)


def _paged_int8_kv_cache_scales_index_copy() -> None:
    slots, heads, dim = 32, 2, 8
    key_codes = torch.zeros(slots, heads, dim, dtype=torch.int8)
    key_scales = torch.zeros(slots, heads, 1, dtype=torch.float32)  # scales kept in fp32 for precision
    keys = torch.randn(3, heads, dim, generator=_generator()).to(bf16)  # three new tokens from a bf16 model
    slot_mapping = torch.tensor([5, 6, 17])
    codes, scale = _symmetric_int8(keys)
    key_codes.index_copy_(0, slot_mapping, codes)
    key_scales.index_copy_(0, slot_mapping, scale)


def _quantized_cache_mask_hard_coded_bf16() -> None:
    class QuantizedCacheMask:
        def __init__(self, max_len: int) -> None:
            self.valid = torch.zeros(max_len, dtype=torch.bool)

        def additive_mask(self, q_len: int) -> torch.Tensor:
            mask = torch.zeros(q_len, self.valid.numel(), dtype=torch.bfloat16)
            return mask.masked_fill(~self.valid, float("-inf"))

    cache = QuantizedCacheMask(8)
    cache.valid[:6] = True
    q = torch.randn(1, 2, 1, 8, generator=_generator()).half()  # an fp16 checkpoint served with the cache
    k = torch.randn(1, 2, 8, 8, generator=_generator()).half()
    F.scaled_dot_product_attention(q, k, k, attn_mask=cache.additive_mask(1))


# --- calibration statistics -------------------------------------------------------------------------------------------


def _ema_absmax_observer_lerp_bf16_batch() -> None:
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16)).to(bf16)

    class EmaAbsMax:
        def __init__(self, channels: int) -> None:
            self.absmax = torch.zeros(channels, dtype=torch.float32)  # statistics kept in fp32 on purpose
            self.seen = False

        def __call__(self, module: nn.Module, args: tuple[torch.Tensor, ...]) -> None:
            batch_absmax = args[0].detach().abs().amax(dim=(0, 1))
            if self.seen:
                self.absmax.lerp_(batch_absmax, 0.01)
            else:
                self.absmax.copy_(batch_absmax)
                self.seen = True

    model[2].register_forward_pre_hook(EmaAbsMax(32))
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(4, 8, 16, generator=_generator()).to(bf16))


def _entropy_calibration_histogram_numpy_edges() -> None:
    acts = torch.randn(4096, generator=_generator()) * 3
    amax = float(acts.abs().max())
    edges = torch.from_numpy(np.linspace(-amax, amax, 2049))  # TensorRT-style 2048-bin entropy calibration
    hist, _ = torch.histogram(acts, bins=edges)
    hist / hist.sum()


def _minmax_observer_sentinels_in_activation_dtype() -> None:
    class MinMaxObserver:
        def __init__(self, channels: int, dtype: torch.dtype) -> None:
            self.min_val = torch.full((channels,), 1e9, dtype=dtype)
            self.max_val = torch.full((channels,), -1e9, dtype=dtype)

        def update(self, x: torch.Tensor) -> None:
            self.min_val = torch.minimum(self.min_val, x.amin(dim=0))
            self.max_val = torch.maximum(self.max_val, x.amax(dim=0))

    acts = torch.randn(8, 32, generator=_generator()).half()  # calibration run on the fp16 checkpoint
    MinMaxObserver(32, acts.dtype).update(acts)


def _fake_quant_constant_group_nan_sampling() -> None:
    def fake_quant_asym(w: torch.Tensor, bits: int = 4, group: int = 32) -> torch.Tensor:
        wg = w.reshape(-1, group)
        w_min, w_max = wg.amin(dim=1, keepdim=True), wg.amax(dim=1, keepdim=True)
        scale = (w_max - w_min) / (2**bits - 1)
        zero = torch.round(-w_min / scale)
        q = torch.clamp(torch.round(wg / scale) + zero, 0, 2**bits - 1)
        return ((q - zero) * scale).reshape(w.shape)

    vocab, hidden = 64, 32
    lm_head = torch.randn(vocab, hidden, generator=_generator())
    lm_head[60:] = 0.0  # vocabulary padded to a multiple of 64 with zero rows
    hidden_state = torch.randn(1, hidden, generator=_generator())
    logits = hidden_state @ fake_quant_asym(lm_head).t()  # simulated 4-bit lm_head for a perplexity/sampling check
    torch.multinomial(F.softmax(logits / 0.8, dim=-1), 1, generator=_generator())


def _tensor_parallel_absmax_all_gather_into_fp32() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = dist.FileStore(os.path.join(tmp, "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)
        try:
            shard = nn.Linear(16, 8).to(bf16)  # this rank's column shard of a bf16 layer
            with torch.no_grad():
                acts = shard(torch.randn(4, 16, generator=_generator()).to(bf16))
            local_absmax = acts.abs().amax(dim=0)
            gathered = [torch.zeros(8) for _ in range(dist.get_world_size())]
            dist.all_gather(gathered, local_absmax)
        finally:
            dist.destroy_process_group()


def _fp8_checkpoint_export_through_numpy() -> None:
    model = nn.Sequential(nn.Linear(16, 32), nn.Linear(32, 16)).to(bf16)
    exported = {}
    for name, param in model.named_parameters():
        if name.endswith("weight"):
            scale = param.detach().abs().amax().float() / 448
            exported[name] = (param.detach().float() / scale).to(E4M3)
            exported[name + "_scale"] = scale
    with tempfile.TemporaryDirectory() as tmp:
        np.savez(os.path.join(tmp, "model-fp8.npz"), **{name: t.numpy() for name, t in exported.items()})


# --- quantization-aware training --------------------------------------------------------------------------------------


def _ste_clip_hook_with_float_mask() -> None:
    weight = nn.Parameter(torch.randn(16, 32, generator=_generator()).to(bf16))
    clip = 2.0
    # PACT-style straight-through estimator: no gradient for weights outside the clipping range
    weight.register_hook(lambda grad: grad * (weight.detach().abs() <= clip).float())
    scale = clip / 7
    fake_q = torch.clamp(torch.round(weight / scale), -8, 7) * scale
    weight_q = weight + (fake_q - weight).detach()
    x = torch.randn(4, 32, generator=_generator()).to(bf16)
    F.linear(x, weight_q).float().pow(2).mean().backward()


CASES: dict[str, LiveCase] = {
    # --- packing and unpacking 4-bit codes
    # int4 KV-cache packing with the rounded codes still bf16: (hi << 4) | lo on a bf16 tensor
    "int4-kv-pack-bf16-codes": case(_int4_kv_cache_pack_bf16_codes, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GPTQ qweight unpacked with shift amounts made by torch.linspace (float), so the int32 >> becomes a float shift
    "gptq-unpack-linspace-shifts": case(_gptq_unpack_shifts_from_linspace, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # NF4 blocks exported as int8: the unpacked int8 codes index the NF4 lookup table
    "nf4-lookup-int8-codes": case(_nf4_lookup_with_int8_codes, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # SqueezeLLM-style per-row lookup tables gathered with the unpacked uint8 codes
    "squeezellm-lut-gather-uint8-codes": case(_squeezellm_per_row_lut_uint8_codes, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- GPTQ and SpQR
    # GPTQ act-order g_idx built with true division and floor (float), used to index the scales and zeros
    "gptq-g-idx-true-division": case(_gptq_act_order_g_idx_from_true_division, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # GPTQ dequantization done in place on the unpacked int32 codes with fp16 scales
    "gptq-dequant-in-place-int32": case(_gptq_dequantize_in_place, "result_cast", "f16", "int32",
        grade="correct", grade_at_freeze="correct"),
    # GPTQ run on the layer's bf16 weight (no .float()) with an fp32 inverse Hessian: the error feedback matmul
    "gptq-bf16-weight-error-feedback": case(_gptq_weights_left_bf16_error_feedback, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # GPTQ Hessian kept fp32 and accumulated with addmm_ from a bf16 model's calibration inputs
    "gptq-hessian-addmm-bf16-inputs": case(_gptq_hessian_addmm_bf16_calibration_inputs, "matmul_dtype", "f32",
        "bf16", grade="correct", grade_at_freeze="correct"),
    # SpQR: unquantized fp32 outliers written back into the fp16 dequantized weight by advanced indexing
    "spqr-fp32-outliers-into-f16-weight": case(_spqr_outliers_written_into_f16_weight, "indexed_write_dtype", "f16",
        "f32", grade="correct", grade_at_freeze="correct"),
    # --- SmoothQuant and LLM.int8
    # SmoothQuant migration: the bf16 fc weight times the fp32 smoothing factors rewrapped as a new (fp32) Parameter
    "smoothquant-fc-weight-rewrapped-fp32": case(_smoothquant_fc_weight_rewrapped_fp32, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SmoothQuant on an OPT-style LayerNorm: weight.data replaced by an fp32 quotient, bias divided in place (bf16)
    "smoothquant-ln-weight-data-fp32": case(_smoothquant_ln_weight_data_replaced, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # LLM.int8 decomposition: the outlier-column mask kept as a 0/1 bf16 tensor and given to masked_fill
    "llm-int8-outlier-mask-bf16": case(_llm_int8_outlier_columns_float_mask, "mask_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- rotations and dequantize-then-matmul
    # QuaRot online Hadamard rotation built with torch.kron from integer literals (int64), matmul with bf16
    "quarot-hadamard-int64": case(_quarot_hadamard_from_integer_literals, "integer_operand", "bf16", "int64",
        grade="correct", grade_at_freeze="correct"),
    # SpinQuant-style random orthogonal rotation made by QR in the bf16 model's dtype
    "spinquant-rotation-qr-bf16": case(_random_orthogonal_rotation_in_model_dtype, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MoE with int8 expert weights: bmm of bf16 dispatched tokens with the int8 codes, scales applied after
    "moe-int8-experts-bmm": case(_moe_int8_experts_bmm_scale_after, "batched_matmul_dtype", "bf16", "int8",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (8696f3d) castwise gave matmul_dtype [bf16, int8] (low confidence). It named the op as bmm in "
            "its cause, but its quantized-int8-weight reading files every such mix as matmul_dtype whatever the op, so"
            " an explicit torch.bmm did not get batched_matmul_dtype."),
    # group-wise dequantization fused into one einsum with the int8 codes and bf16 per-group scales
    "group-dequant-einsum-int8-codes": case(_group_wise_dequant_fused_in_einsum, "matmul_dtype", "bf16", "int8",
        grade="correct", grade_at_freeze="correct"),
    # LoftQ-style LoRA initialisation: SVD of the bf16 quantization residual
    "loftq-svd-bf16-residual": case(_lora_init_svd_of_bf16_quantization_residual, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # QLoRA with an fp16 compute dtype and bf16 adapters: their sum (fp32) reaches the bf16 LayerNorm
    "qlora-fp16-compute-bf16-layernorm": case(_qlora_fp16_compute_dtype_into_bf16_layer_norm, "norm_param_dtype",
        "f32", grade="correct", grade_at_freeze="correct"),
    # fp8 weight-only with k/v projections on a skip list (bf16): the fused QKV weight concatenates fp8 and bf16
    "fused-qkv-fp8-q-bf16-kv": case(_fused_qkv_with_fp8_q_and_bf16_kv, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # 2:4 pruning applied in place to weights already stored as float8_e4m3fn
    "fp8-weights-two-four-masked-fill": case(_fp8_weights_pruned_two_four_in_place, "no_kernel", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # --- integer GEMMs (W8A8)
    # W8A8 with asymmetric uint8 activations and symmetric int8 weights in one integer mm
    "w8a8-uint8-activations-int8-weights": case(_w8a8_uint8_activations_int8_weights, "integer_operand", "uint8",
        "int8", grade="correct", grade_at_freeze="correct"),
    # W8A8 int8 mm given a preallocated int32 out= buffer, expecting int32 accumulation
    "w8a8-int32-out-accumulator": case(_w8a8_int32_accumulator_as_out, "indexed_write_dtype", "int8", "int32",
        grade="correct", grade_at_freeze="correct"),
    # int8 attention: softmax over the exact int32 QK^T before the dequantizing rescale
    "int8-attention-softmax-int32-scores": case(_int8_attention_softmax_before_rescale, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # per-channel quantizer dividing into a reused int8 buffer with out=
    "quantize-div-into-int8-buffer": case(_quantize_into_preallocated_int8_buffer, "result_cast", "f32", "int8",
        grade="correct", grade_at_freeze="correct"),
    # --- KV-cache quantization
    # int8 KV cache with fp32 per-token scale buffers: dequantized keys/values are fp32 against bf16 queries
    "int8-kv-cache-fp32-scales-sdpa": case(_int8_kv_cache_fp32_scales_into_sdpa, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # paged int8 KV cache: bf16 per-token scales index_copy_'d into an fp32 scale pool
    "paged-kv-scales-index-copy-bf16": case(_paged_int8_kv_cache_scales_index_copy, "indexed_write_dtype", "f32",
        "bf16", grade="correct", grade_at_freeze="correct"),
    # a quantized cache building its additive mask in hard-coded bf16, served with an fp16 model
    "quantized-cache-mask-bf16-fp16-model": case(_quantized_cache_mask_hard_coded_bf16, "attn_mask_dtype", "bf16",
        "f16", grade="correct", grade_at_freeze="correct"),
    # --- calibration statistics
    # an EMA absmax observer (fp32 on purpose) lerp_'ed toward a bf16 batch's absmax
    "ema-absmax-observer-lerp-bf16": case(_ema_absmax_observer_lerp_bf16_batch, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # entropy calibration: fp32 activations histogrammed with bin edges from numpy (float64)
    "entropy-calibration-numpy-bin-edges": case(_entropy_calibration_histogram_numpy_edges, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (8696f3d) castwise gave nothing. No rule reads torch.histogram's (histogramdd's) own check that"
            " the input and the bin edges share a dtype (float against double), so float64 bin edges from numpy went "
            "unexplained."),
    # a min/max observer initialising its sentinels (+-1e9) in the fp16 activations' dtype
    "minmax-observer-1e9-sentinel-f16": case(_minmax_observer_sentinels_in_activation_dtype, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # simulated asymmetric 4-bit lm_head: zero-padded vocabulary rows give scale 0, NaN weights, sampling refuses
    "fake-quant-zero-group-nan-sampling": case(_fake_quant_constant_group_nan_sampling, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # tensor-parallel calibration: bf16 per-rank absmax all_gather'ed into fp32 buffers
    "tp-absmax-all-gather-bf16-into-fp32": case(_tensor_parallel_absmax_all_gather_into_fp32, "scalar_type", "f32",
        "bf16", grade="correct", grade_at_freeze="correct"),
    # an fp8 checkpoint exported to .npz through .numpy()
    "fp8-checkpoint-numpy-export": case(_fp8_checkpoint_export_through_numpy, "numpy_dtype", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # --- quantization-aware training
    # PACT-style STE gradient hook multiplying the bf16 gradient by a float32 clip mask
    "ste-clip-hook-float-mask": case(_ste_clip_hook_with_float_mask, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
