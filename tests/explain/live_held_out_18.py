"""Held-out live set 18: hand-written model building blocks in bf16/fp16 models (positional encodings, attention
variants, normalisation layers, activations and gates, initialisation, dropout and stochastic depth, scaled embeddings,
weight sharing, custom layers with their own parameters and buffers). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at 41e3601."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "41e3601"

bf16, f16 = torch.bfloat16, torch.float16


# --- positional encodings --------------------------------------------------------------------------------------------

def _t5_bucket(relative_position: torch.Tensor, num_buckets: int = 32, max_distance: int = 128) -> torch.Tensor:
    num_buckets //= 2
    buckets = (relative_position > 0).long() * num_buckets
    distance = relative_position.abs()
    max_exact = num_buckets // 2
    is_small = distance < max_exact
    large = max_exact + (
        torch.log(distance.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    )
    large = torch.clamp(large, max=num_buckets - 1)  # the `.long()` of the original is missing
    return buckets + torch.where(is_small, distance, large)


def _t5_relative_bucket_float() -> None:
    relative_attention_bias = nn.Embedding(32, 4).to(bf16)
    position = torch.arange(8)
    buckets = _t5_bucket(position[None, :] - position[:, None])
    relative_attention_bias(buckets).permute(2, 0, 1)


def _log_bucket_position(relative: torch.Tensor, bucket_size: int, max_position: int) -> torch.Tensor:
    sign = torch.sign(relative)
    mid = bucket_size // 2
    near = (relative < mid) & (relative > -mid)
    abs_pos = torch.where(near, torch.full_like(relative, mid - 1), relative.abs())
    log_pos = torch.ceil(torch.log(abs_pos / mid) / math.log((max_position - 1) / mid) * (mid - 1)) + mid
    return torch.where(abs_pos <= mid, relative.type_as(log_pos), log_pos * sign)  # never turned back into long


def _deberta_log_bucket_positions_float() -> None:
    heads, length, dim, span = 2, 6, 8, 4
    position = torch.arange(length)
    relative = _log_bucket_position(position[:, None] - position[None, :], bucket_size=8, max_position=64)
    query = torch.randn(heads, length, dim, dtype=bf16)
    position_keys = torch.randn(2 * span, dim, dtype=bf16)
    c2p = torch.bmm(query, position_keys.T.expand(heads, dim, 2 * span))
    c2p_pos = torch.clamp(relative + span, 0, 2 * span - 1)
    torch.gather(c2p, dim=-1, index=c2p_pos.expand(heads, length, length))


def _alibi_in_place_on_integer_distances() -> None:
    heads, length = 4, 6
    slopes = torch.tensor([2 ** (-8 * (h + 1) / heads) for h in range(heads)])
    position = torch.arange(length)
    distance = (position[None, :] - position[:, None]).abs()
    bias = distance.unsqueeze(0).repeat(heads, 1, 1)
    bias.mul_(-slopes[:, None, None])  # in place to save the (H, T, T) copy


class _LearnedFourierFeatures(nn.Module):
    def __init__(self, features: int = 16) -> None:
        super().__init__()
        self.proj = nn.Linear(2, features // 2)

    def forward(self, coords: torch.Tensor) -> torch.Tensor:
        projected = self.proj(coords)
        return torch.cat([projected.sin(), projected.cos()], dim=-1)


def _fourier_features_integer_pixel_grid() -> None:
    encoding = _LearnedFourierFeatures().to(bf16)
    ys, xs = torch.meshgrid(torch.arange(4), torch.arange(5), indexing="ij")
    coords = torch.stack([ys, xs], dim=-1).reshape(-1, 2)  # pixel indices, never normalised to [0, 1]
    encoding(coords)


class _NerfEncoding(nn.Module):
    def __init__(self, max_freq_log2: int = 16) -> None:
        super().__init__()
        self.max_freq_log2 = max_freq_log2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bands = torch.linspace(2.0 ** 0, 2.0 ** self.max_freq_log2, self.max_freq_log2 + 1, dtype=x.dtype)
        scaled = x[..., None] * bands
        return torch.cat([x, scaled.sin().flatten(-2), scaled.cos().flatten(-2)], dim=-1)


def _nerf_frequency_bands_linspace_fp16() -> None:
    _NerfEncoding()(torch.rand(8, 1, dtype=f16))


class _ViTPositions(nn.Module):
    def __init__(self, grid: int = 4, dim: int = 8) -> None:
        super().__init__()
        self.grid = grid
        self.pos_embed = nn.Parameter(torch.randn(1, grid * grid, dim) * 0.02)

    def forward(self, tokens: torch.Tensor, grid_hw: tuple[int, int]) -> torch.Tensor:
        table = self.pos_embed.reshape(1, self.grid, self.grid, -1).permute(0, 3, 1, 2)
        table = F.interpolate(table, size=grid_hw, mode="bicubic", antialias=True, align_corners=False)
        return tokens + table.flatten(2).transpose(1, 2)


def _vit_pos_embed_antialias_resize_bf16() -> None:
    positions = _ViTPositions().to(bf16)
    positions(torch.randn(1, 36, 8, dtype=bf16), (6, 6))  # fine-tuning at a higher resolution


def _timestep_embedding(timesteps: torch.Tensor, dim: int, max_period: float = 10000.0) -> torch.Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


def _sinusoidal_timestep_embedding_not_cast() -> None:
    torch.manual_seed(0)
    time_mlp = nn.Sequential(nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 16)).to(bf16)
    time_mlp(_timestep_embedding(torch.randint(0, 1000, (2,)), 8))


def _learned_positions_linspace_interpolation() -> None:
    max_positions, length = 8, 12
    position_embeddings = nn.Embedding(max_positions, 4).to(bf16)
    position_ids = torch.linspace(0, max_positions - 1, length)  # stretch the table to a longer input
    position_embeddings(position_ids)


class _DistanceDecayAttention(nn.Module):
    def __init__(self, dim: int = 8, power: int = 1) -> None:
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.power = power

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        position = torch.arange(x.shape[1])
        distance = (position[None, :] - position[:, None]).abs().clamp(min=1)
        prior = distance.pow(-self.power)  # 1 / distance ** power
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + prior.log()
        return scores.softmax(-1) @ v


def _inverse_distance_prior_integer_power() -> None:
    _DistanceDecayAttention().to(bf16)(torch.randn(1, 5, 8, dtype=bf16))


def _rel_shift(scores: torch.Tensor) -> torch.Tensor:
    batch, heads, q_len, k_len = scores.shape
    zero_pad = torch.zeros(batch, heads, q_len, 1)
    padded = torch.cat([zero_pad, scores], dim=-1).view(batch, heads, k_len + 1, q_len)
    return padded[:, :, 1:].view_as(scores)


def _transformer_xl_rel_shift_zero_pad() -> None:
    heads, length, dim = 2, 5, 8
    q, k, v = (torch.randn(1, heads, length, dim, dtype=bf16) for _ in range(3))
    r = torch.randn(1, heads, length, dim, dtype=bf16)
    content = q @ k.transpose(-2, -1)
    position = _rel_shift(q @ r.transpose(-2, -1))
    probs = ((content + position) / math.sqrt(dim)).softmax(-1)
    probs @ v


class _CachedAlibiAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.slopes = [2 ** (-8 * (h + 1) / heads) for h in range(heads)]
        self._bias_cache: dict[int, torch.Tensor] = {}  # keyed by length only

    def _bias(self, length: int, dtype: torch.dtype) -> torch.Tensor:
        if length not in self._bias_cache:
            position = torch.arange(length)
            distance = -(position[None, :] - position[:, None]).abs()
            self._bias_cache[length] = torch.stack([s * distance for s in self.slopes]).to(dtype)
        return self._bias_cache[length]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, dim = x.shape
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self._bias(length, x.dtype))


def _alibi_cache_from_fp16_run() -> None:
    attention = _CachedAlibiAttention().half()
    with torch.no_grad():
        attention(torch.randn(1, 4, 8, dtype=f16))  # validation served in fp16
    attention.to(bf16)  # training continues in bf16
    attention(torch.randn(1, 4, 8, dtype=bf16))


# --- attention variants ----------------------------------------------------------------------------------------------

def _gqa_kv_head_map_true_division() -> None:
    batch, heads, kv_heads, length, dim = 1, 4, 2, 5, 8
    q = torch.randn(batch, heads, length, dim, dtype=bf16)
    k, v = (torch.randn(batch, kv_heads, length, dim, dtype=bf16) for _ in range(2))
    kv_head = (torch.arange(heads) / (heads // kv_heads)).floor()
    k, v = k.index_select(1, kv_head), v.index_select(1, kv_head)
    F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _sliding_window_band_uint8_masked_fill() -> None:
    length, window = 8, 3
    band = torch.ones(length, length, dtype=torch.uint8).tril().triu(-(window - 1))
    scores = torch.randn(1, 2, length, length, dtype=bf16)
    scores.masked_fill(~band, float("-inf")).softmax(-1)


def _packed_documents_block_diag_where() -> None:
    lengths = [3, 2, 3]
    same_document = torch.block_diag(*[torch.ones(n, n) for n in lengths])
    allowed = same_document.tril()
    scores = torch.randn(1, 2, sum(lengths), sum(lengths), dtype=bf16)
    torch.where(allowed, scores, float("-inf")).softmax(-1)


def _linear_attention_fp32_kv_state() -> None:
    q, k, v = (torch.randn(1, 2, 6, 4, dtype=bf16) for _ in range(3))
    q, k = F.elu(q).float() + 1, F.elu(k).float() + 1  # the running sums in fp32
    kv = torch.einsum("bhnd,bhne->bhde", k, v)
    normaliser = 1 / torch.einsum("bhnd,bhd->bhn", q, k.sum(2))
    torch.einsum("bhnd,bhde,bhn->bhne", q, kv, normaliser)


class _RMSNormUpcast(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * self.weight.float()


class _QKNormAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.q_norm = _RMSNormUpcast(dim // heads)
        self.k_norm = _RMSNormUpcast(dim // heads)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        return F.scaled_dot_product_attention(self.q_norm(q), self.k_norm(k), v, is_causal=True)


def _qk_rmsnorm_without_cast_back() -> None:
    _QKNormAttention().to(bf16)(torch.randn(1, 4, 8, dtype=bf16))


# --- normalisation ---------------------------------------------------------------------------------------------------

class _PreNormBlock(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mixer = nn.Linear(dim, dim)

    def forward(self, hidden: torch.Tensor, residual: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        residual = hidden if residual is None else hidden + residual
        residual = residual.float()  # residual_in_fp32
        return self.mixer(self.norm(residual)), residual


def _prenorm_residual_in_fp32_layer_norm() -> None:
    blocks = nn.ModuleList(_PreNormBlock() for _ in range(2)).to(bf16)
    hidden, residual = torch.randn(1, 4, 8, dtype=bf16), None
    for block in blocks:
        hidden, residual = block(hidden, residual)


class _EMACodebook(nn.Module):
    def __init__(self, codes: int = 6, dim: int = 4, decay: float = 0.99) -> None:
        super().__init__()
        self.decay = decay
        self.register_buffer("embed", torch.randn(codes, dim))
        self.register_buffer("cluster_size", torch.zeros(codes))
        self.register_buffer("embed_avg", self.embed.clone())

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        codes = torch.cdist(z.float(), self.embed).argmin(-1)
        onehot = F.one_hot(codes, self.embed.shape[0]).type(z.dtype)
        if self.training:
            self.cluster_size.lerp_(onehot.sum(0), 1 - self.decay)
            self.embed_avg.lerp_(onehot.T @ z, 1 - self.decay)
        return self.embed[codes]


def _vq_ema_codebook_bf16_statistics() -> None:
    torch.manual_seed(0)
    encoder, codebook = nn.Linear(8, 4), _EMACodebook()
    with torch.autocast("cpu", dtype=bf16):
        z = encoder(torch.randn(10, 8))
    codebook(z)


class _RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-8) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rmsnorm_fp16_eps_underflow_anomaly() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(10, 8, padding_idx=0), _RMSNorm(8), nn.Linear(8, 10)).half()
    ids = torch.tensor([[3, 5, 7, 0, 0]])
    targets = torch.tensor([5, 7, 2, -100, -100])
    with torch.autograd.detect_anomaly():
        logits = model(ids).float().view(-1, 10)
        F.cross_entropy(logits, targets, ignore_index=-100).backward()


# --- activations and gates -------------------------------------------------------------------------------------------

class _SwiGLU(nn.Module):
    def __init__(self, dim: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.w12 = nn.Linear(dim, 2 * hidden, bias=False)
        self.w3 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.w12(x).chunk(2, dim=-1)
        return self.w3(F.silu(gate.float()) * up)  # the gate in fp32 for stability


def _swiglu_gate_upcast_into_down_proj() -> None:
    _SwiGLU().to(bf16)(torch.randn(2, 3, 8, dtype=bf16))


class _SpikeFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, membrane: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(membrane)
        return torch.heaviside(membrane, torch.tensor(0.0))

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:
        (membrane,) = ctx.saved_tensors
        return grad / (1 + (math.pi * membrane).pow(2))


class _LIFLayer(nn.Module):
    def __init__(self, inputs: int = 4, outputs: int = 3, beta: float = 0.9, threshold: float = 1.0) -> None:
        super().__init__()
        self.fc = nn.Linear(inputs, outputs)
        self.beta, self.threshold = beta, threshold

    def forward(self, spikes_in: torch.Tensor) -> torch.Tensor:
        membrane = torch.zeros(spikes_in.shape[1], self.fc.out_features, dtype=spikes_in.dtype)
        spikes = []
        for step in spikes_in:
            membrane = self.beta * membrane + self.fc(step)
            spike = _SpikeFunction.apply(membrane - self.threshold)
            membrane = membrane - spike * self.threshold
            spikes.append(spike)
        return torch.stack(spikes)


def _snn_surrogate_spike_heaviside() -> None:
    torch.manual_seed(0)
    layer = _LIFLayer().to(bf16)
    layer((torch.rand(3, 2, 4) < 0.5).to(bf16))


class _Snake(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        alpha = self.alpha[None, :, None]
        return x + torch.sin(alpha * x).pow(2) / (alpha + 1e-9)


def _snake_alpha_kept_fp32_into_conv() -> None:
    block = nn.Sequential(nn.Conv1d(1, 4, 5, padding=2, bias=False), _Snake(4), nn.Conv1d(4, 4, 3, padding=1, bias=False))
    for parameter in block.parameters():
        if parameter.ndim > 1:  # vectors (biases, gains, alphas) stay fp32
            parameter.data = parameter.data.to(bf16)
    block(torch.randn(1, 1, 16, dtype=bf16))


class _GatedResidual(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.branch = nn.Sequential(nn.Linear(dim, dim), nn.GELU())
        self.gate_logit = nn.Parameter(torch.full((dim,), -2.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(self.gate_logit.float())  # the gate computed in fp32
        return torch.lerp(x, self.branch(x), gate)


def _gated_residual_per_channel_lerp() -> None:
    _GatedResidual().to(bf16)(torch.randn(2, 8, dtype=bf16))


# --- initialisation --------------------------------------------------------------------------------------------------

class _Fp8Linear(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features, dtype=torch.float8_e4m3fn),
                                   requires_grad=False)
        self.register_buffer("weight_scale", torch.ones(()))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight.to(x.dtype) * self.weight_scale.to(x.dtype))


def _fp8_linear_kaiming_init() -> None:
    _Fp8Linear(8, 4)


def _lsuv_init_numpy_std_bf16_model() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).to(bf16)
    batch = torch.randn(32, 8, dtype=bf16)
    captured: list[torch.Tensor] = []
    for layer in (m for m in model if isinstance(m, nn.Linear)):
        captured.clear()
        hook = layer.register_forward_hook(lambda module, inputs, output: captured.append(output))
        with torch.no_grad():
            model(batch)
        hook.remove()
        std = float(np.std(captured[0].detach().numpy()))
        layer.weight.data /= std


# --- dropout and stochastic depth ------------------------------------------------------------------------------------

def _drop_path(x: torch.Tensor, drop_prob: float, training: bool) -> torch.Tensor:
    if not training or drop_prob == 0.0:
        return x
    keep_prob = 1 - drop_prob
    keep = torch.rand((x.shape[0],) + (1,) * (x.ndim - 1)) < keep_prob
    keep.div_(keep_prob)
    return x * keep


def _droppath_bool_keep_mask_div() -> None:
    torch.manual_seed(0)
    block = nn.Linear(8, 8).to(bf16)
    x = torch.randn(4, 3, 8, dtype=bf16)
    x + _drop_path(block(x), 0.1, training=True)


# --- embeddings and weight sharing -----------------------------------------------------------------------------------

class _BagOfVectors(nn.Module):
    def __init__(self, vocab: int = 20, dim: int = 6, classes: int = 3) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.fc = nn.Linear(dim, classes)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.fc(self.embed(ids).mean(1))


def _glove_vectors_loaded_after_cast() -> None:
    model = _BagOfVectors().to(bf16)
    vectors = np.random.default_rng(0).standard_normal((20, 6))  # as np.loadtxt reads a GloVe file: float64
    model.embed.weight = nn.Parameter(torch.from_numpy(vectors), requires_grad=False)
    model(torch.tensor([[1, 4, 7], [2, 2, 9]]))


class _TiedConvAutoencoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Conv2d(1, 8, 3, stride=2, padding=1, bias=False)
        self.bottleneck = nn.Sequential(nn.Conv2d(8, 8, 1, bias=False), nn.GELU()).to(bf16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.encoder(x))
        z = self.bottleneck(h.to(bf16))  # the bottleneck in bf16 to save memory
        return F.conv_transpose2d(z, self.encoder.weight, stride=2, padding=1, output_padding=1)


def _tied_conv_autoencoder_transpose() -> None:
    _TiedConvAutoencoder()(torch.randn(1, 1, 8, 8))


class _ScaledEmbedding(nn.Module):
    def __init__(self, vocab: int, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, dim, dtype=torch.float16) * 0.02)  # from an fp16 codebase
        self.scale = math.sqrt(dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return F.embedding(ids, self.weight) * self.scale


def _scaled_embedding_hardcoded_fp16() -> None:
    default = torch.get_default_dtype()
    torch.set_default_dtype(bf16)  # build the model directly in bf16
    try:
        model = nn.Sequential(_ScaledEmbedding(16, 8), nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 16))
        model(torch.tensor([[1, 2, 3]]))
    finally:
        torch.set_default_dtype(default)


# --- custom layers with their own parameters -------------------------------------------------------------------------

class _PerChannelScale(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(dim, dtype=torch.float16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale


def _custom_layer_half_parameter_grad_scaler() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), _PerChannelScale(4), nn.Linear(4, 2))
    optimizer = torch.optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("cpu")
    with torch.autocast("cpu", dtype=f16):
        loss = model(torch.randn(3, 4)).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)


CASES: dict[str, LiveCase] = {
    # --- positional encodings
    # T5 relative position buckets re-implemented without the .long() on the log-spaced bucket: float ids into the
    # bf16 relative_attention_bias embedding
    "t5-relative-bucket-float": case(_t5_relative_bucket_float, "index_tensor_dtype", "f32", grade="correct",
                                     grade_at_freeze="correct"),
    # DeBERTa log-bucket relative positions left float (no final .to(long)), used as gather's index for c2p scores
    "deberta-log-bucket-positions-float-gather": case(_deberta_log_bucket_positions_float, "index_tensor_dtype",
                                                      grade="correct", grade_at_freeze="correct"),
    # ALiBi bias scaled by the fp32 slopes in place on the int64 distance matrix from arange
    "alibi-in-place-on-integer-distances": case(_alibi_in_place_on_integer_distances, "result_cast", "f32", "int64",
                                                grade="correct", grade_at_freeze="correct"),
    # learned Fourier features of a pixel grid from arange (int64) fed to a bf16 Linear without normalising
    "fourier-features-integer-pixel-grid": case(_fourier_features_integer_pixel_grid, "integer_operand", "int64",
                                                "bf16", grade="correct", grade_at_freeze="correct"),
    # NeRF-style linearly spaced frequency bands up to 2**16 built with linspace in the fp16 input's dtype
    "nerf-frequency-bands-linspace-fp16": case(_nerf_frequency_bands_linspace_fp16, "half_overflow", "f16",
                                               grade="correct", grade_at_freeze="correct"),
    # a bf16 ViT's learned position table resized with bicubic antialias interpolation without upcasting
    "vit-pos-embed-antialias-resize-bf16": case(_vit_pos_embed_antialias_resize_bf16, "no_kernel", "bf16",
                                                grade="correct", grade_at_freeze="correct"),
    # a sinusoidal timestep embedding computed in fp32 and not cast to the bf16 time MLP's dtype
    "sinusoidal-timestep-embedding-not-cast": case(_sinusoidal_timestep_embedding_not_cast, "matmul_dtype", "f32",
                                                   "bf16", grade="correct", grade_at_freeze="correct"),
    # a learned position table stretched to a longer input with linspace position ids (float)
    "learned-positions-linspace-interpolation": case(_learned_positions_linspace_interpolation, "index_tensor_dtype",
                                                     "f32", grade="correct", grade_at_freeze="correct"),
    # a 1/distance**power attention prior on int64 distances with an integer power from the config
    "inverse-distance-prior-integer-power": case(_inverse_distance_prior_integer_power, "integer_operand",
                                                 grade="correct", grade_at_freeze="not_recognised",
                                                 why="At freeze (41e3601) castwise gave nothing. torch's \"Integers to "
                                                     "negative integer powers are not allowed\" (int64 distances "
                                                     "raised to a negative integer power) is not read as an integer "
                                                     "tensor where a float one is needed."),
    # Transformer-XL relative shift padding with torch.zeros (fp32): the scores become fp32 and meet bf16 values
    "transformer-xl-rel-shift-zero-pad": case(_transformer_xl_rel_shift_zero_pad, "matmul_dtype", "f32", "bf16",
                                              grade="correct", grade_at_freeze="wrong",
                                              why="At freeze (41e3601) castwise gave matmul_dtype [f32, bf16] (high "
                                                  "confidence). The bare \"expected scalar type\" message names no op, "
                                                  "and the 4-D `probs @ v` (a batched matmul) was read as a plain "
                                                  "matrix multiply; its dtypes and its fix (cast one operand) are "
                                                  "right. After grading, the expectation was corrected from "
                                                  "batched_matmul_dtype to matmul_dtype, the corpus's convention for "
                                                  "`@`, einsum and torch.matmul on 4-D tensors (held_out_2 "
                                                  "swin-yolov5-3, pykan-105); grade_at_freeze stays wrong."),
    # an ALiBi bias cache keyed by length only, filled during fp16 validation, reused after the switch to bf16
    "alibi-cache-from-fp16-run": case(_alibi_cache_from_fp16_run, "attn_mask_dtype", "f16", "bf16", grade="correct",
                                      grade_at_freeze="correct"),
    # --- attention variants
    # grouped-query attention mapping query heads to kv heads with true division and floor (float index)
    "gqa-kv-head-map-true-division": case(_gqa_kv_head_map_true_division, "index_tensor_dtype", grade="correct",
                                          grade_at_freeze="correct"),
    # a sliding-window band built as a uint8 tensor, inverted with ~ and used in masked_fill
    "sliding-window-band-uint8-masked-fill": case(_sliding_window_band_uint8_masked_fill, "mask_dtype", "uint8",
                                                  grade="correct", grade_at_freeze="correct"),
    # a packed-sequence document mask from block_diag of float ones, tril'd, used as torch.where's condition
    "packed-documents-block-diag-where": case(_packed_documents_block_diag_where, "mask_dtype", "f32", grade="correct",
                                              grade_at_freeze="correct"),
    # linear attention upcasting the feature-mapped q and k to fp32 for the kv state, v left bf16, in einsum
    "linear-attention-fp32-kv-state": case(_linear_attention_fp32_kv_state, "matmul_dtype", "f32", "bf16",
                                           grade="correct", grade_at_freeze="wrong",
                                           why="At freeze (41e3601) castwise gave matmul_dtype [f32, bf16] (high "
                                               "confidence). The bare \"expected scalar type\" message from a 4-D "
                                               "einsum (run as a batched matmul) was read as a plain matrix multiply; "
                                               "its dtypes and its fix (cast one operand) are right. After grading, "
                                               "the expectation was corrected from batched_matmul_dtype to "
                                               "matmul_dtype, the corpus's convention for `@`, einsum and "
                                               "torch.matmul on 4-D tensors (held_out_2 swin-yolov5-3, pykan-105); "
                                               "grade_at_freeze stays wrong."),
    # QK-norm with an RMSNorm that computes in fp32 and never casts back: fp32 q and k, bf16 v into SDPA
    "qk-rmsnorm-without-cast-back": case(_qk_rmsnorm_without_cast_back, "sdpa_dtype", "f32", "bf16", grade="correct",
                                         grade_at_freeze="correct"),
    # --- normalisation
    # pre-norm blocks keeping the residual stream in fp32 (residual_in_fp32) fed to the bf16 LayerNorm as is
    "prenorm-residual-in-fp32-layer-norm": case(_prenorm_residual_in_fp32_layer_norm, "norm_param_dtype", "f32",
                                                grade="correct", grade_at_freeze="correct"),
    # a VQ codebook's fp32 EMA buffers updated with lerp_ from bf16 statistics of an autocast encoder
    "vq-ema-codebook-bf16-statistics": case(_vq_ema_codebook_bf16_statistics, "lerp_dtype", "f32", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # an RMSNorm with eps=1e-8 in an fp16 model: eps underflows, padding rows give NaN, anomaly mode catches it
    "rmsnorm-fp16-eps-underflow-anomaly": case(_rmsnorm_fp16_eps_underflow_anomaly, "nonfinite", grade="correct",
                                               grade_at_freeze="correct"),
    # --- activations and gates
    # SwiGLU computing silu(gate) in fp32 for stability, the product fed to the bf16 down projection
    "swiglu-gate-upcast-into-down-proj": case(_swiglu_gate_upcast_into_down_proj, "matmul_dtype", "f32", "bf16",
                                              grade="correct", grade_at_freeze="correct"),
    # a spiking neuron's surrogate-gradient Function firing with heaviside and a default-dtype value in a bf16 SNN
    "snn-surrogate-spike-heaviside": case(_snn_surrogate_spike_heaviside, "op_dtype", grade="correct",
                                          grade_at_freeze="not_recognised",
                                          why="At freeze (41e3601) castwise gave nothing. heaviside's \"not yet "
                                              "implemented for tensors with different dtypes\" (bf16 membrane "
                                              "potentials with a default-dtype fp32 values tensor) is not read as two "
                                              "floating dtypes in one op."),
    # a Snake activation whose 1-D alpha stayed fp32 (only matrices cast to bf16) promotes the next conv's input
    "snake-alpha-kept-fp32-into-conv": case(_snake_alpha_kept_fp32_into_conv, "conv_weight_dtype", "f32", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # a gated residual mixing skip and branch with lerp and a per-channel gate computed in fp32
    "gated-residual-per-channel-lerp": case(_gated_residual_per_channel_lerp, "lerp_dtype", "bf16", "f32",
                                            grade="correct", grade_at_freeze="correct"),
    # --- initialisation
    # a custom fp8 Linear allocating its weight in float8_e4m3fn and initialising it with kaiming_uniform_
    "fp8-linear-kaiming-init": case(_fp8_linear_kaiming_init, "no_kernel", "float8_e4m3fn", grade="correct",
                                    grade_at_freeze="correct"),
    # LSUV-style data-dependent init measuring each layer's output std with numpy on a bf16 model
    "lsuv-init-numpy-std-bf16-model": case(_lsuv_init_numpy_std_bf16_model, "numpy_dtype", "bf16", grade="correct",
                                           grade_at_freeze="correct"),
    # --- dropout and stochastic depth
    # drop path with the keep mask drawn as a bool comparison, rescaled in place with div_
    "droppath-bool-keep-mask-div": case(_droppath_bool_keep_mask_div, "result_cast", "f32", "bool", grade="correct",
                                        grade_at_freeze="correct"),
    # --- embeddings and weight sharing
    # float64 GloVe vectors assigned to the embedding after the model was cast to bf16
    "glove-vectors-loaded-after-cast": case(_glove_vectors_loaded_after_cast, "matmul_dtype", "f64", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # a tied conv autoencoder whose decoder reuses the fp32 encoder weight for a bf16 bottleneck's output
    "tied-conv-autoencoder-transpose": case(_tied_conv_autoencoder_transpose, "conv_weight_dtype", "bf16", "f32",
                                            grade="correct", grade_at_freeze="correct"),
    # a scaled embedding layer hard-coding dtype=float16 in a model built with the default dtype set to bf16
    "scaled-embedding-hardcoded-fp16": case(_scaled_embedding_hardcoded_fp16, "matmul_dtype", "f16", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # --- custom layers with their own parameters
    # a per-channel scale layer creating its parameter in float16, trained under fp16 autocast with GradScaler
    "custom-layer-half-parameter-grad-scaler": case(_custom_layer_half_parameter_grad_scaler, "unscale_fp16", "f16",
                                                    grade="correct", grade_at_freeze="correct"),
}
