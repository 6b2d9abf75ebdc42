"""Held-out live set 16: diffusion and image-generation pipelines written by hand in plain torch (UNets and DiT blocks,
noise schedules and timesteps, guidance, samplers, VAE latents, ControlNet and adapters, LoRA merges, text conditioning,
inpainting masks, EMA, saving and loading) run in bf16, fp16 or fp8. Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at 41e3601."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "41e3601"

bf16, f16, E4M3 = torch.bfloat16, torch.float16, torch.float8_e4m3fn


# --- shared pieces: a timestep embedding, a time-conditioned UNet, a ControlNet, a DiT, attention with processors ------

def _timestep_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    """The DDPM/DiT sinusoidal embedding of (integer or float) timesteps, computed in fp32 as the reference code does."""
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


def _ddpm_alphas_cumprod(steps: int = 1000) -> torch.Tensor:
    betas = torch.linspace(1e-4, 0.02, steps)
    return torch.cumprod(1.0 - betas, dim=0)


class _ResBlock(nn.Module):
    """GroupNorm-SiLU-conv twice with the time embedding added in between, and a residual."""

    def __init__(self, channels: int, emb_dim: int) -> None:
        super().__init__()
        self.norm1 = nn.GroupNorm(4, channels)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.emb_proj = nn.Linear(emb_dim, channels)
        self.norm2 = nn.GroupNorm(4, channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor, emb: torch.Tensor) -> torch.Tensor:
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.emb_proj(F.silu(emb))[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return x + h


class _TinyUNet(nn.Module):
    """conv_in, one down level, a mid block, one up level concatenating the skip, conv_out; ControlNet residuals, T2I-Adapter
    features and a pooled conditioning vector can be added where a real UNet adds them."""

    def __init__(self, in_ch: int = 4, ch: int = 8, emb_dim: int = 16) -> None:
        super().__init__()
        self.emb_dim = emb_dim
        self.time_mlp = nn.Sequential(nn.Linear(emb_dim, emb_dim), nn.SiLU(), nn.Linear(emb_dim, emb_dim))
        self.conv_in = nn.Conv2d(in_ch, ch, 3, padding=1)
        self.down = _ResBlock(ch, emb_dim)
        self.downsample = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.mid = _ResBlock(ch, emb_dim)
        self.up_conv = nn.Conv2d(2 * ch, ch, 3, padding=1)
        self.up = _ResBlock(ch, emb_dim)
        self.conv_out = nn.Conv2d(ch, 4, 3, padding=1)

    def forward(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None = None,
                down_residuals: list[torch.Tensor] | None = None,
                adapter_features: list[torch.Tensor] | None = None) -> torch.Tensor:
        h = self.conv_in(x)
        emb = self.time_mlp(_timestep_embedding(t, self.emb_dim).to(h.dtype))
        if cond is not None:
            emb = emb + cond
        if adapter_features is not None:
            h = h + adapter_features[0]
        h = self.down(h, emb)
        skip = h
        h = self.downsample(h)
        if adapter_features is not None:
            h = h + adapter_features[1]
        h = self.mid(h, emb)
        if down_residuals is not None:
            skip = skip + down_residuals[0]
            h = h + down_residuals[1]
        h = F.interpolate(h, scale_factor=2, mode="nearest")
        h = self.up(self.up_conv(torch.cat([h, skip], dim=1)), emb)
        return self.conv_out(F.silu(h))


class _ControlNet(nn.Module):
    """The UNet's encoder half copied, a hint embedding (stride 2 from the control image) and zero convs per level."""

    def __init__(self, in_ch: int = 4, ch: int = 8, emb_dim: int = 16, hint_ch: int = 3) -> None:
        super().__init__()
        self.emb_dim = emb_dim
        self.time_mlp = nn.Sequential(nn.Linear(emb_dim, emb_dim), nn.SiLU(), nn.Linear(emb_dim, emb_dim))
        self.conv_in = nn.Conv2d(in_ch, ch, 3, padding=1)
        self.hint_embed = nn.Sequential(nn.Conv2d(hint_ch, 8, 3, padding=1), nn.SiLU(),
                                        nn.Conv2d(8, ch, 3, stride=2, padding=1))
        self.down = _ResBlock(ch, emb_dim)
        self.downsample = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.mid = _ResBlock(ch, emb_dim)
        self.zero_convs = nn.ModuleList([nn.Conv2d(ch, ch, 1), nn.Conv2d(ch, ch, 1)])

    def forward(self, x: torch.Tensor, t: torch.Tensor, hint: torch.Tensor) -> list[torch.Tensor]:
        h = self.conv_in(x) + self.hint_embed(hint)
        emb = self.time_mlp(_timestep_embedding(t, self.emb_dim).to(h.dtype))
        h = self.down(h, emb)
        first = self.zero_convs[0](h)
        h = self.mid(self.downsample(h), emb)
        return [first, self.zero_convs[1](h)]


class _TimestepEmbedder(nn.Module):
    """DiT's timestep embedder as the reference writes it: fp32 frequencies straight into the MLP."""

    def __init__(self, dim: int, freq_dim: int = 16) -> None:
        super().__init__()
        self.freq_dim = freq_dim
        self.mlp = nn.Sequential(nn.Linear(freq_dim, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        return self.mlp(_timestep_embedding(t, self.freq_dim))


class _DiT(nn.Module):
    """Patchify conv, timestep embedder, one adaLN-Zero transformer block, a linear unpatchify head."""

    def __init__(self, in_ch: int = 4, patch: int = 2, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads, self.patch, self.in_ch = heads, patch, in_ch
        self.patch_embed = nn.Conv2d(in_ch, dim, patch, stride=patch)
        self.t_embedder = _TimestepEmbedder(dim)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(dim, 6 * dim))
        self.norm = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))
        self.final = nn.Linear(dim, patch * patch * in_ch)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        b, _, height, width = x.shape
        h = self.patch_embed(x).flatten(2).transpose(1, 2)
        c = self.t_embedder(t)
        shift1, scale1, gate1, shift2, scale2, gate2 = self.adaLN_modulation(c)[:, None].chunk(6, dim=-1)
        q, k, v = self.qkv(self.norm(h) * (1 + scale1) + shift1).chunk(3, dim=-1)
        q, k, v = (z.unflatten(-1, (self.heads, -1)).transpose(1, 2) for z in (q, k, v))
        h = h + gate1 * self.proj(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2))
        h = h + gate2 * self.mlp(self.norm(h) * (1 + scale2) + shift2)
        out = self.final(h).reshape(b, height // self.patch, width // self.patch, self.patch, self.patch, self.in_ch)
        return out.permute(0, 5, 1, 3, 2, 4).reshape(b, self.in_ch, height, width)


AttentionProcessor = Callable[["_Attention", torch.Tensor, torch.Tensor], torch.Tensor]


class _Attention(nn.Module):
    """A UNet transformer block's attention: projections here, the computation in a swappable processor."""

    def __init__(self, dim: int = 16, context_dim: int | None = None, heads: int = 2) -> None:
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(context_dim or dim, dim, bias=False)
        self.to_v = nn.Linear(context_dim or dim, dim, bias=False)
        self.to_out = nn.Linear(dim, dim)
        self.processor: AttentionProcessor = _sdpa_processor

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, tokens, dim) -> (batch, heads, tokens, head_dim)."""
        return x.unflatten(-1, (self.heads, -1)).transpose(1, 2)

    def forward(self, hidden: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        return self.to_out(self.processor(self, hidden, hidden if context is None else context))


def _sdpa_processor(attn: _Attention, hidden: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
    q, k, v = (attn.split_heads(z) for z in (attn.to_q(hidden), attn.to_k(context), attn.to_v(context)))
    return F.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2)


def _to_batch_heads(attn: _Attention, x: torch.Tensor) -> torch.Tensor:
    """(batch, tokens, dim) -> (batch * heads, tokens, head_dim), the layout of bmm-based attention processors."""
    return attn.split_heads(x).flatten(0, 1)


def _from_batch_heads(attn: _Attention, x: torch.Tensor) -> torch.Tensor:
    return x.unflatten(0, (-1, attn.heads)).transpose(1, 2).flatten(2)


# --- timesteps and conditioning --------------------------------------------------------------------------------------

def _dit_timestep_embedder_fp32_frequencies() -> None:
    torch.manual_seed(0)
    model = _DiT().to(bf16).eval()
    latents = torch.randn(2, 4, 8, 8, dtype=bf16)
    t = torch.randint(0, 1000, (2,))
    with torch.no_grad():
        model(latents, t)


def _sdxl_micro_conditioning_time_embeds() -> None:
    torch.manual_seed(0)
    pooled_dim, proj_dim, emb_dim = 16, 8, 32
    add_embedding = nn.Sequential(nn.Linear(pooled_dim + 6 * proj_dim, emb_dim), nn.SiLU(),
                                  nn.Linear(emb_dim, emb_dim)).to(bf16)
    pooled_text_embeds = torch.randn(2, pooled_dim, dtype=bf16)  # the bf16 second text encoder's pooled output
    original_size, crop_top_left, target_size = (1024, 1024), (0, 0), (1024, 1024)
    add_time_ids = torch.tensor([[*original_size, *crop_top_left, *target_size]] * 2)
    time_embeds = _timestep_embedding(add_time_ids.flatten(), proj_dim).reshape(2, -1)
    add_embedding(torch.cat([pooled_text_embeds, time_embeds], dim=-1))


def _continuous_time_mlp_integer_timesteps() -> None:
    torch.manual_seed(0)
    time_mlp = nn.Sequential(nn.Linear(1, 16), nn.SiLU(), nn.Linear(16, 16)).to(bf16)
    t = torch.randint(0, 1000, (4,))  # the DDPM loop's integer timesteps, kept for the new continuous-time model
    time_mlp(t[:, None])


def _cfg_label_dropout_arithmetic() -> None:
    generator = torch.Generator().manual_seed(0)
    num_classes, p_uncond = 10, 0.1
    class_embed = nn.Embedding(num_classes + 1, 16).to(bf16)  # the last row is the null class
    labels = torch.randint(0, num_classes, (8,), generator=generator)
    keep = (torch.rand(8, generator=generator) >= p_uncond).float()
    labels = labels * keep + num_classes * (1 - keep)
    class_embed(labels)


def _dit_2d_rope_numpy_grid() -> None:
    head_dim, grid = 8, 4
    ys, xs = np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij")
    positions = np.stack([ys.reshape(-1), xs.reshape(-1)], axis=-1) * (16 / grid)  # float64 patch coordinates
    inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim // 2, 2, dtype=torch.float32) / (head_dim // 2)))
    angles = (torch.from_numpy(positions)[..., None] * inv_freq).flatten(1)
    freqs_cis = torch.polar(torch.ones(angles.shape), angles)
    q = torch.randn(1, 2, grid * grid, head_dim, dtype=bf16)
    torch.view_as_real(torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2)) * freqs_cis).flatten(3)


# --- training: noising, losses, weighting ----------------------------------------------------------------------------

def _flow_matching_t_default_dtype() -> None:
    torch.manual_seed(0)
    model = _DiT().to(bf16)
    x0 = torch.randn(2, 4, 8, 8, dtype=bf16)  # VAE latents of the batch
    noise = torch.randn_like(x0)
    t = torch.rand(2)
    t_ = t.view(-1, 1, 1, 1)
    x_t = (1 - t_) * x0 + t_ * noise
    F.mse_loss(model(x_t, t * 1000), noise - x0)


def _fp8_latent_cache_noised() -> None:
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "latents.pt"
        torch.save((torch.randn(4, 4, 8, 8) * 0.18215).to(E4M3), cache)  # pre-encoded latents, fp8 to fit the set
        latents = torch.load(cache, weights_only=True)[:2]
    alphas_cumprod = _ddpm_alphas_cumprod()
    t = torch.randint(0, 1000, (2,))
    noise = torch.randn(latents.shape)
    a = alphas_cumprod[t].view(-1, 1, 1, 1)
    a.sqrt() * latents + (1 - a).sqrt() * noise


def _maskgit_int16_token_targets() -> None:
    rng = np.random.default_rng(0)
    codebook, mask_id, dim = 1024, 1024, 16
    codes = torch.from_numpy(rng.integers(0, codebook, (2, 16), dtype=np.int16))  # pre-tokenised images, int16 on disk
    embed = nn.Embedding(codebook + 1, dim).to(bf16)
    head = nn.Linear(dim, codebook).to(bf16)
    masked = torch.from_numpy(rng.random((2, 16)) < 0.5)
    inputs = codes.masked_fill(masked, mask_id).long()
    logits = head(embed(inputs))
    F.cross_entropy(logits[masked].float(), codes[masked])


def _cosine_schedule_integer_arange_in_place() -> None:
    steps, s = 1000, 0.008
    t = torch.arange(steps + 1)
    t.div_(steps).add_(s).div_(1 + s).mul_(math.pi / 2)
    alphas_cumprod = torch.cos(t) ** 2
    alphas_cumprod / alphas_cumprod[0]


def _min_snr_zero_terminal_snr_nan() -> None:
    torch.manual_seed(0)
    steps, gamma = 1000, 5.0
    alphas_bar_sqrt = torch.cumprod(1 - torch.linspace(0.00085 ** 0.5, 0.012 ** 0.5, steps) ** 2, 0).sqrt()
    first, last = alphas_bar_sqrt[0].clone(), alphas_bar_sqrt[-1].clone()
    alphas_bar_sqrt = (alphas_bar_sqrt - last) * first / (first - last)  # rescaled to zero terminal SNR
    alphas_cumprod = alphas_bar_sqrt ** 2
    model = _TinyUNet()
    x0 = torch.randn(4, 4, 8, 8)
    noise = torch.randn_like(x0)
    t = torch.linspace(0, steps - 1, 4).round().long()  # stratified timesteps, one per quarter of the schedule
    a = alphas_cumprod[t].view(-1, 1, 1, 1)
    with torch.autocast("cpu", dtype=bf16):
        pred = model(a.sqrt() * x0 + (1 - a).sqrt() * noise, t)
    snr = alphas_cumprod[t] / (1 - alphas_cumprod[t])
    weights = torch.clamp(snr, max=gamma) / snr
    loss = (weights * F.mse_loss(pred.float(), noise, reduction="none").mean(dim=(1, 2, 3))).mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)


def _ve_sde_prior_variance_f16() -> None:
    torch.manual_seed(0)
    sigma_max = 378.0
    z = torch.randn(2, 3, 8, 8, dtype=f16) * sigma_max  # a sample from the VE prior, fp16 like the model
    variance = torch.full_like(z, sigma_max ** 2)
    (-0.5 * (z ** 2 / variance + torch.log(2 * math.pi * variance))).flatten(1).sum(1)


# --- sampling: guidance, samplers, schedulers ------------------------------------------------------------------------

def _cfg_per_sample_guidance_lerp() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet().to(bf16).eval()
    latents = torch.randn(2, 4, 8, 8, dtype=bf16)
    t = torch.full((4,), 500)
    guidance_scale = torch.tensor([7.5, 3.0])  # one guidance scale per prompt in the batch
    with torch.no_grad():
        noise_uncond, noise_cond = unet(torch.cat([latents, latents]), t).chunk(2)
        torch.lerp(noise_uncond, noise_cond, guidance_scale.view(-1, 1, 1, 1))


def _dynamic_thresholding_quantile_bf16() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet().to(bf16).eval()
    alphas_cumprod = _ddpm_alphas_cumprod()
    x_t = torch.randn(2, 4, 8, 8, dtype=bf16)
    t = torch.full((2,), 900)
    with torch.no_grad():
        eps = unet(x_t, t)
    a = alphas_cumprod[t].view(-1, 1, 1, 1).to(bf16)
    x0 = (x_t - (1 - a).sqrt() * eps) / a.sqrt()
    s = torch.quantile(x0.abs().reshape(2, -1), 0.995, dim=1).clamp(min=1.0)
    (x0.clamp(-s.view(-1, 1, 1, 1), s.view(-1, 1, 1, 1)) / s.view(-1, 1, 1, 1))


def _fourier_filter(x: torch.Tensor, threshold: int, scale: float) -> torch.Tensor:
    """FreeU's low-frequency scaling of skip features."""
    x_freq = torch.fft.fftshift(torch.fft.fftn(x, dim=(-2, -1)), dim=(-2, -1))
    _, _, height, width = x_freq.shape
    mask = torch.ones(x.shape, device=x.device)
    crow, ccol = height // 2, width // 2
    mask[..., crow - threshold:crow + threshold, ccol - threshold:ccol + threshold] = scale
    x_freq = torch.fft.ifftshift(x_freq * mask, dim=(-2, -1))
    return torch.fft.ifftn(x_freq, dim=(-2, -1)).real.to(x.dtype)


def _freeu_fourier_filter_bf16() -> None:
    torch.manual_seed(0)
    h = torch.randn(1, 8, 8, 8, dtype=bf16)  # up block input and skip of a bf16 UNet
    skip = torch.randn(1, 8, 8, 8, dtype=bf16)
    h[:, :4] = h[:, :4] * 1.2
    skip = _fourier_filter(skip, threshold=1, scale=0.9)
    torch.cat([h, skip], dim=1)


def _initial_noise_in_fp8_model_dtype() -> None:
    unet = _TinyUNet().to(E4M3)  # an fp8 checkpoint loaded as is to save memory
    generator = torch.Generator().manual_seed(42)
    torch.randn(1, 4, 8, 8, generator=generator, dtype=unet.conv_in.weight.dtype)


def _sigma_to_t_numpy_interp_bf16() -> None:
    torch.manual_seed(0)
    alphas_cumprod = _ddpm_alphas_cumprod()
    log_sigmas = np.log(((1 - alphas_cumprod) / alphas_cumprod).sqrt().numpy())
    latents = torch.randn(1, 4, 8, 8, dtype=bf16)
    sigmas = torch.linspace(14.6, 0.03, 10).to(latents.dtype)
    sigma = sigmas[0]
    t = np.interp(np.log(sigma.numpy()), log_sigmas, np.arange(len(log_sigmas)))
    torch.as_tensor(t)


def _scheduler_tables_built_on_meta() -> None:
    torch.manual_seed(0)
    reference = _TinyUNet().state_dict()
    with torch.device("meta"):
        unet = _TinyUNet()
        alphas_cumprod = _ddpm_alphas_cumprod()  # the scheduler built in the same fast-init block
    unet = unet.to_empty(device="cpu")
    unet.load_state_dict(reference)
    x0 = torch.randn(2, 4, 8, 8)
    t = torch.randint(0, 1000, (2,))
    a = alphas_cumprod[t].view(-1, 1, 1, 1)
    unet(a.sqrt() * x0 + (1 - a).sqrt() * torch.randn_like(x0), t)


# --- VAE latents -----------------------------------------------------------------------------------------------------

class _VAEDecoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.post_quant_conv = nn.Conv2d(4, 4, 1)
        self.conv_in = nn.Conv2d(4, 16, 3, padding=1)
        self.norm = nn.GroupNorm(4, 16)
        self.conv_out = nn.Conv2d(16, 3, 3, padding=1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        h = F.silu(self.norm(self.conv_in(self.post_quant_conv(z))))
        return self.conv_out(F.interpolate(h, scale_factor=2, mode="nearest"))


def _vae_scaling_factor_one_element_tensor() -> None:
    torch.manual_seed(0)
    vae_config = {"scaling_factor": 0.18215}
    decoder = _VAEDecoder().to(bf16).eval()
    scaling_factor = torch.tensor([vae_config["scaling_factor"]])
    latents = torch.randn(1, 4, 8, 8, dtype=bf16)  # the sampler's final bf16 latents
    with torch.no_grad():
        decoder(latents / scaling_factor)


def _tome_unmerge_default_dtype() -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 16, 8, dtype=bf16)  # tokens of a bf16 UNet transformer block
    r = 4
    a, b = x[:, ::2], x[:, 1::2]
    an, bn = F.normalize(a, dim=-1), F.normalize(b, dim=-1)
    node_max, node_idx = (an @ bn.transpose(-1, -2)).max(dim=-1)
    edge_idx = node_max.argsort(dim=-1, descending=True)[..., None]
    unm_idx, src_idx = edge_idx[:, r:], edge_idx[:, :r]
    dst_idx = node_idx[..., None].gather(1, src_idx)
    c = x.shape[-1]
    unm = a.gather(1, unm_idx.expand(-1, -1, c))
    src = a.gather(1, src_idx.expand(-1, -1, c))
    dst = b.scatter_reduce(1, dst_idx.expand(-1, -1, c), src, reduce="mean")
    merged = torch.cat([unm, dst], dim=1)  # the attention runs on these tokens
    unm, dst = merged[:, :unm_idx.shape[1]], merged[:, unm_idx.shape[1]:]
    out = torch.zeros(x.shape[0], x.shape[1], c)
    out[:, 1::2] = dst
    out.scatter_(1, (2 * unm_idx).expand(-1, -1, c), unm)
    out.scatter_(1, (2 * src_idx).expand(-1, -1, c), dst.gather(1, dst_idx.expand(-1, -1, c)))


# --- attention processors --------------------------------------------------------------------------------------------

def _baddbmm_processor_default_dtype_input(attn: _Attention, hidden: torch.Tensor,
                                           context: torch.Tensor) -> torch.Tensor:
    q, k, v = (_to_batch_heads(attn, z) for z in (attn.to_q(hidden), attn.to_k(context), attn.to_v(context)))
    baddbmm_input = torch.empty(q.shape[0], q.shape[1], k.shape[1])
    scores = torch.baddbmm(baddbmm_input, q, k.transpose(-1, -2), beta=0, alpha=attn.scale)
    return _from_batch_heads(attn, torch.bmm(scores.softmax(dim=-1), v))


def _attention_baddbmm_input_default_dtype() -> None:
    torch.manual_seed(0)
    attn = _Attention(context_dim=12).to(bf16)
    attn.processor = _baddbmm_processor_default_dtype_input
    attn(torch.randn(1, 16, 16, dtype=bf16), torch.randn(1, 7, 12, dtype=bf16))


class _AttentionReplace:
    """Prompt-to-Prompt's attention replace: the source prompt's cross-attention maps, stored, reused for the edit."""

    def __init__(self) -> None:
        self.stored: list[torch.Tensor] = []
        self.editing = False

    def __call__(self, attn: _Attention, hidden: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        q, k, v = (_to_batch_heads(attn, z) for z in (attn.to_q(hidden), attn.to_k(context), attn.to_v(context)))
        probs = (torch.bmm(q, k.transpose(-1, -2)) * attn.scale).softmax(dim=-1)
        if self.editing:
            probs = self.stored.pop(0)
        else:
            self.stored.append(probs.detach().float())  # kept in fp32 so the maps can be edited and visualised
        return _from_batch_heads(attn, torch.bmm(probs, v))


def _p2p_attention_maps_stored_fp32() -> None:
    torch.manual_seed(0)
    attn = _Attention(context_dim=12).to(bf16)
    controller = _AttentionReplace()
    attn.processor = controller
    hidden = torch.randn(1, 16, 16, dtype=bf16)
    with torch.no_grad():
        attn(hidden, torch.randn(1, 7, 12, dtype=bf16))  # "a photo of a cat"
        controller.editing = True
        attn(hidden, torch.randn(1, 7, 12, dtype=bf16))  # "a photo of a dog"


class _ReferenceBank:
    """Reference-only attention: the reference image's self-attention keys and values, shared with the generation."""

    def __init__(self) -> None:
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    def __call__(self, attn: _Attention, hidden: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        k, v = attn.to_k(context), attn.to_v(context)
        if self.keys is None or self.values is None:
            self.keys, self.values = k.detach().float(), v.detach().float()  # banked in fp32 to avoid drift
        else:
            k, v = torch.cat([k, self.keys], dim=1), torch.cat([v, self.values], dim=1)
        q, k, v = (attn.split_heads(z) for z in (attn.to_q(hidden), k, v))
        return F.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2)


def _reference_only_attention_bank_fp32() -> None:
    torch.manual_seed(0)
    attn = _Attention().to(bf16)
    attn.processor = _ReferenceBank()
    with torch.no_grad():
        attn(torch.randn(1, 16, 16, dtype=bf16))  # the noised reference image's pass writes the bank
        attn(torch.randn(1, 16, 16, dtype=bf16))  # the generation's pass reads it


def _regional_prompt_numpy_bias() -> None:
    torch.manual_seed(0)
    height = width = 4
    tokens_per_prompt = 4
    attn = _Attention(context_dim=12).to(bf16)
    region = np.zeros((height, width))
    region[:, : width // 2] = 1.0  # left half: the first prompt, right half: the second
    in_first = region.reshape(-1, 1) > 0.5
    token_of_first = np.arange(2 * tokens_per_prompt)[None] < tokens_per_prompt
    bias = torch.from_numpy(np.where(in_first == token_of_first, 0.0, -1e4))

    def regional(attn_: _Attention, hidden: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        q, k, v = (attn_.split_heads(z) for z in (attn_.to_q(hidden), attn_.to_k(context), attn_.to_v(context)))
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias).transpose(1, 2).flatten(2)

    attn.processor = regional
    context = torch.randn(1, 2 * tokens_per_prompt, 12, dtype=bf16)  # the two prompts' embeddings, concatenated
    with torch.no_grad():
        attn(torch.randn(1, height * width, 16, dtype=bf16), context)


# --- ControlNet, adapters, LoRA --------------------------------------------------------------------------------------

def _controlnet_canny_hint_uint8() -> None:
    torch.manual_seed(0)
    controlnet = _ControlNet().to(bf16).eval()
    edges = np.zeros((16, 16, 3), dtype=np.uint8)  # a Canny edge map as OpenCV returns it
    edges[4:12, 8] = 255
    hint = torch.from_numpy(edges).permute(2, 0, 1)[None]
    with torch.no_grad():
        controlnet(torch.randn(1, 4, 8, 8, dtype=bf16), torch.tensor([500]), hint)


def _controlnet_fp32_residuals_into_bf16_unet() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet().to(bf16).eval()
    controlnet = _ControlNet().eval()  # kept in fp32 for precision
    latents = torch.randn(1, 4, 8, 8, dtype=bf16)
    hint = torch.rand(1, 3, 16, 16)
    t = torch.tensor([500])
    with torch.no_grad():
        residuals = controlnet(latents.float(), t, hint)
        unet(latents, t, down_residuals=residuals)


def _zero_module(conv: nn.Conv2d) -> nn.Conv2d:
    conv.weight = nn.Parameter(torch.zeros_like(conv.weight))
    conv.bias = nn.Parameter(torch.zeros(conv.out_channels))
    return conv


def _controlnet_zero_conv_bias_recreated() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet().to(bf16)
    controlnet = _ControlNet().to(bf16)
    controlnet.load_state_dict(unet.state_dict(), strict=False)  # the encoder half copied from the UNet
    for conv in controlnet.zero_convs:
        _zero_module(conv)
    controlnet(torch.randn(1, 4, 8, 8, dtype=bf16), torch.tensor([500]), torch.rand(1, 3, 16, 16, dtype=bf16))


class _T2IAdapter(nn.Module):
    """A T2I-Adapter: the condition image to one feature map per UNet level."""

    def __init__(self, ch: int = 8) -> None:
        super().__init__()
        self.body = nn.ModuleList([nn.Conv2d(3, ch, 3, stride=2, padding=1), nn.Conv2d(ch, ch, 3, stride=2, padding=1)])

    def forward(self, condition: torch.Tensor) -> list[torch.Tensor]:
        features, h = [], condition
        for conv in self.body:
            h = F.silu(conv(h))
            features.append(h)
        return features


def _t2i_adapter_fp32_features() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet().to(bf16).eval()
    adapter = _T2IAdapter().eval()  # trained separately in fp32
    sketch = torch.rand(1, 3, 16, 16)
    with torch.no_grad():
        features = adapter(sketch)
        unet(torch.randn(1, 4, 8, 8, dtype=bf16), torch.tensor([500]), adapter_features=features)


def _locon_merge_down_factor_not_cast() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet().half()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "locon.pt"
        torch.save({"down.conv1.lora_down.weight": torch.randn(4, 8, 3, 3, dtype=bf16),
                    "down.conv1.lora_up.weight": torch.randn(8, 4, 1, 1, dtype=bf16) * 0.01,
                    "down.conv1.alpha": torch.tensor(4.0)}, path)
        lora = torch.load(path, weights_only=True)
    conv = unet.down.conv1
    up = lora["down.conv1.lora_up.weight"].to(conv.weight.dtype)
    down = lora["down.conv1.lora_down.weight"]
    scale = lora["down.conv1.alpha"].item() / down.shape[0]
    delta = F.conv2d(down.permute(1, 0, 2, 3), up).permute(1, 0, 2, 3)
    conv.weight.data += delta * scale


# --- inpainting ------------------------------------------------------------------------------------------------------

def _inpainting_unet_numpy_mask_f64() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet(in_ch=9).half().eval()
    mask_image = np.zeros((8, 8), dtype=np.uint8)
    mask_image[2:6, 2:6] = 255
    mask = torch.from_numpy(mask_image / 255.0)[None, None]
    latents = torch.randn(1, 4, 8, 8, dtype=f16)
    masked_image_latents = torch.randn(1, 4, 8, 8, dtype=f16)
    with torch.no_grad():
        unet(torch.cat([latents, mask, masked_image_latents], dim=1), torch.tensor([500]))


def _inpainting_resized_float_mask_where() -> None:
    torch.manual_seed(0)
    alphas_cumprod = _ddpm_alphas_cumprod()
    mask_image = np.zeros((16, 16), dtype=np.float32)
    mask_image[4:12, 4:12] = 1.0
    mask = F.interpolate(torch.from_numpy(mask_image)[None, None], size=(8, 8), mode="nearest")
    init_latents = torch.randn(1, 4, 8, 8, dtype=bf16)
    latents = torch.randn(1, 4, 8, 8, dtype=bf16)
    t = torch.tensor([500])
    a = alphas_cumprod[t].view(-1, 1, 1, 1).to(bf16)
    noised_init = a.sqrt() * init_latents + (1 - a).sqrt() * torch.randn_like(init_latents)
    torch.where(mask, latents, noised_init)


def _inpainting_uint8_mask_masked_fill() -> None:
    torch.manual_seed(0)
    image = torch.rand(1, 3, 16, 16, dtype=bf16) * 2 - 1
    mask_image = np.zeros((16, 16), dtype=np.uint8)  # the user's mask as PIL gives it: 255 where to repaint
    mask_image[4:12, 4:12] = 255
    mask = torch.from_numpy(mask_image)[None, None]
    image.masked_fill(mask, 0.0)


# --- fine-tuning: EMA, textual inversion, DreamBooth -----------------------------------------------------------------

def _ema_averaged_model_fp32_copy() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet().to(bf16)
    ema = torch.optim.swa_utils.AveragedModel(unet, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9999))
    ema.float()  # the EMA copy kept in fp32 so that small updates are not lost
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    for _ in range(2):
        x0 = torch.randn(2, 4, 8, 8, dtype=bf16)
        noise = torch.randn_like(x0)
        F.mse_loss(unet(x0 + noise, torch.randint(0, 1000, (2,))), noise).backward()
        optimizer.step()
        optimizer.zero_grad()
        ema.update_parameters(unet)


class _TextEncoder(nn.Module):
    """Token embedding, one MLP layer, mean pooling: a pooled prompt embedding of the UNet's conditioning width."""

    def __init__(self, vocab: int = 100, dim: int = 16) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, dim)
        self.layer = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.encode(self.token_embedding(ids))

    def encode(self, embeds: torch.Tensor) -> torch.Tensor:
        return self.layer(embeds).mean(dim=1)


def _textual_inversion_grad_mask_hook() -> None:
    torch.manual_seed(0)
    text_encoder = _TextEncoder().to(bf16)
    unet = _TinyUNet().to(bf16)
    placeholder_id = 99
    grad_mask = torch.zeros(100, 1)
    grad_mask[placeholder_id] = 1.0

    def keep_placeholder_row_only(grad: torch.Tensor) -> torch.Tensor:
        return grad * grad_mask

    text_encoder.token_embedding.weight.register_hook(keep_placeholder_row_only)
    ids = torch.tensor([[1, 5, placeholder_id, 7]] * 2)
    x0 = torch.randn(2, 4, 8, 8, dtype=bf16)
    noise = torch.randn_like(x0)
    pred = unet(x0 + noise, torch.randint(0, 1000, (2,)), cond=text_encoder(ids))
    F.mse_loss(pred.float(), noise.float()).backward()


def _textual_inversion_f16_token_grad_scaler() -> None:
    torch.manual_seed(0)
    text_encoder = _TextEncoder().half().requires_grad_(False)
    placeholder = nn.Parameter(text_encoder.token_embedding.weight[42].clone())  # initialised from "sculpture"
    optimizer = torch.optim.AdamW([placeholder], lr=5e-4)
    scaler = torch.amp.GradScaler("cpu")
    embeds = text_encoder.token_embedding(torch.tensor([[1, 5, 0, 7]]))
    embeds = torch.cat([embeds[:, :2], placeholder[None, None], embeds[:, 3:]], dim=1)
    target = torch.randn(1, 16)
    loss = F.mse_loss(text_encoder.encode(embeds).float(), target)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()


def _dreambooth_frozen_text_encoder_scaler_step() -> None:
    torch.manual_seed(0)
    unet, text_encoder = _TinyUNet(), _TextEncoder()
    unet_optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
    text_optimizer = torch.optim.AdamW(text_encoder.parameters(), lr=1e-6)
    scaler = torch.amp.GradScaler("cpu")
    train_text_encoder_steps = 1
    ids = torch.tensor([[1, 23, 45, 7]] * 2)  # "a photo of sks dog"
    for step in range(2):
        if step == train_text_encoder_steps:
            text_encoder.requires_grad_(False)
        x0 = torch.randn(2, 4, 8, 8)
        noise = torch.randn_like(x0)
        with torch.autocast("cpu", dtype=f16):
            pred = unet(x0 + noise, torch.randint(0, 1000, (2,)), cond=text_encoder(ids))
        scaler.scale(F.mse_loss(pred.float(), noise)).backward()
        scaler.step(unet_optimizer)
        scaler.step(text_optimizer)
        scaler.update()
        unet_optimizer.zero_grad()
        text_optimizer.zero_grad()


CASES: dict[str, LiveCase] = {
    # --- timesteps and conditioning
    # DiT's timestep embedder as the reference writes it (fp32 frequencies into the MLP), the DiT cast to bf16, no autocast
    "dit-timestep-embedder-fp32-frequencies": case(_dit_timestep_embedder_fp32_frequencies, "matmul_dtype", "f32",
                                                   "bf16", grade="correct", grade_at_freeze="correct"),
    # SDXL micro-conditioning: the size/crop ids' sinusoidal projection (fp32) concatenated to bf16 pooled text embeds
    # without a cast back, into the bf16 add_embedding
    "sdxl-micro-conditioning-time-embeds-fp32": case(_sdxl_micro_conditioning_time_embeds, "matmul_dtype", "f32",
                                                     "bf16", grade="correct", grade_at_freeze="correct"),
    # a continuous-time model's time MLP (Linear(1, d), bf16) fed the integer timesteps the DDPM loop samples
    "continuous-time-mlp-integer-timesteps": case(_continuous_time_mlp_integer_timesteps, "integer_operand", "int64",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # classifier-free guidance label dropout done by arithmetic with a float keep-mask: the class labels become float
    "cfg-label-dropout-arithmetic-float-labels": case(_cfg_label_dropout_arithmetic, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # a DiT's 2-D RoPE with patch coordinates from np.meshgrid (float64): torch.polar of fp32 ones and float64 angles
    "dit-2d-rope-numpy-grid-polar": case(_dit_2d_rope_numpy_grid, "op_dtype", "f32", "f64", grade="correct", grade_at_freeze="wrong",
        why="At freeze (41e3601) castwise gave scalar_type [f32, f64] (low confidence). torch.polar's old-style 'Expected object of scalar type Float but got scalar type Double for second argument' was read as a generic scalar-type mismatch, not as the two floating operands of one op meeting, so the kind differs although its cause and fix (the float64 angles from numpy to float32) are the right ones."),
    # --- training: noising, losses, weighting
    # rectified-flow training: t from torch.rand (fp32) interpolates bf16 latents and noise, into the bf16 DiT's patchify
    "flow-matching-t-default-dtype": case(_flow_matching_t_default_dtype, "conv_weight_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # pre-encoded latents cached to disk in fp8, loaded and noised with the fp32 schedule
    "fp8-latent-cache-noised": case(_fp8_latent_cache_noised, "fp8_promotion", "f32", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # MaskGIT-style training on image tokens stored as int16: the input converted with .long(), the targets not
    "maskgit-int16-token-targets": case(_maskgit_int16_token_targets, "target_dtype", "int16", grade="correct", grade_at_freeze="correct"),
    # a cosine noise schedule computed in place on torch.arange's int64 steps
    "cosine-schedule-integer-arange-in-place": case(_cosine_schedule_integer_arange_in_place, "result_cast", "f32",
                                                    "int64", grade="correct", grade_at_freeze="correct"),
    # min-SNR-gamma weighting on a zero-terminal-SNR schedule: 0/0 at the last timestep, clipping refuses the NaN norm
    "min-snr-weight-zero-terminal-snr-nan": case(_min_snr_zero_terminal_snr_nan, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # a VE-SDE prior log-density in fp16: sigma_max**2 (378**2) filled into a half tensor
    "ve-sde-prior-variance-f16": case(_ve_sde_prior_variance_f16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # --- sampling: guidance, samplers, schedulers
    # classifier-free guidance written as lerp with a per-prompt fp32 guidance-scale tensor on bf16 noise predictions
    "cfg-per-sample-guidance-lerp": case(_cfg_per_sample_guidance_lerp, "lerp_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # Imagen's dynamic thresholding: the percentile of a bf16 UNet's x0 prediction taken with torch.quantile
    "dynamic-thresholding-quantile-bf16": case(_dynamic_thresholding_quantile_bf16, "no_kernel", grade="correct", grade_at_freeze="partly",
        why="At freeze (41e3601) castwise gave no_kernel [] (low confidence). quantile's message ('must be either float or double dtype') names no dtype, so bf16 could not be read from it; the expectation's bf16 comes from the planted defect, not from the message as the set's rules ask. After grading, bf16 was taken out of the expectation, as the helper's own report said the rules required; grade_at_freeze stays partly."),
    # FreeU's Fourier filter applied to a bf16 UNet's skip features
    "freeu-fourier-filter-bf16": case(_freeu_fourier_filter_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # the initial noise drawn with torch.randn in the UNet's dtype, an fp8 checkpoint loaded as is
    "initial-noise-randn-fp8-model-dtype": case(_initial_noise_in_fp8_model_dtype, "no_kernel", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # a k-diffusion-style sigma_to_t with np.interp, the sigmas cast to the bf16 latents' dtype
    "sigma-to-t-numpy-interp-bf16": case(_sigma_to_t_numpy_interp_bf16, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # the scheduler's alphas_cumprod built inside the same torch.device("meta") block as the UNet, never materialised
    "scheduler-tables-built-on-meta": case(_scheduler_tables_built_on_meta, "device_mismatch", grade="correct", grade_at_freeze="correct"),
    # --- VAE latents and token merging
    # the VAE's scaling factor read into a one-element tensor: dividing bf16 latents by it makes them fp32
    "vae-scaling-factor-one-element-tensor": case(_vae_scaling_factor_one_element_tensor, "conv_weight_dtype", "f32",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # token merging (ToMe) unmerge into an output buffer made with torch.zeros (fp32) for bf16 tokens
    "tome-unmerge-buffer-default-dtype": case(_tome_unmerge_default_dtype, "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # --- attention processors
    # a hand-written attention processor's baddbmm input made with torch.empty without dtype=query.dtype
    "attention-baddbmm-input-default-dtype": case(_attention_baddbmm_input_default_dtype, "batched_matmul_dtype", "f32",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # Prompt-to-Prompt attention replace: the source prompt's maps stored as fp32, bmm'd with the bf16 values
    "p2p-attention-maps-stored-fp32": case(_p2p_attention_maps_stored_fp32, "batched_matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # reference-only attention: the reference pass's keys and values banked in fp32, concatenated to bf16 ones for SDPA
    "reference-only-attention-bank-fp32": case(_reference_only_attention_bank_fp32, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # regional prompting: the region layout computed in numpy (float64) as an additive cross-attention bias, bf16 q/k/v
    "regional-prompt-numpy-bias-f64": case(_regional_prompt_numpy_bias, "attn_mask_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- ControlNet, adapters, LoRA
    # a Canny edge map (uint8 from OpenCV) given to the bf16 ControlNet's hint embedding as is
    "controlnet-canny-hint-uint8": case(_controlnet_canny_hint_uint8, "integer_operand", "uint8", "bf16", grade="correct", grade_at_freeze="correct"),
    # a ControlNet kept in fp32 (its inputs upcast), its residuals added to the bf16 UNet's skips without a cast
    "controlnet-fp32-residuals-into-bf16-unet": case(_controlnet_fp32_residuals_into_bf16_unet, "conv_weight_dtype",
                                                     "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # ControlNet zero convs reset after the cast by a helper that makes a fresh (fp32) bias
    "controlnet-zero-conv-bias-recreated-fp32": case(_controlnet_zero_conv_bias_recreated, "conv_bias_dtype", "bf16",
                                                     "f32", grade="correct", grade_at_freeze="correct"),
    # a T2I-Adapter trained in fp32 whose features are added to the bf16 UNet's hidden states
    "t2i-adapter-fp32-features": case(_t2i_adapter_fp32_features, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # a bf16 LoCon file merged into an fp16 UNet conv: the up factor cast to the UNet's dtype, the down factor not
    "locon-merge-down-factor-not-cast": case(_locon_merge_down_factor_not_cast, "conv_weight_dtype", "bf16", "f16", grade="correct", grade_at_freeze="correct"),
    # --- inpainting
    # an inpainting UNet in fp16 given the mask as numpy uint8 / 255.0 (float64) concatenated with the latents
    "inpainting-unet-numpy-mask-f64": case(_inpainting_unet_numpy_mask_f64, "conv_weight_dtype", "f64", "f16", grade="correct", grade_at_freeze="correct"),
    # the inpainting mask resized to latent size with interpolate (float) used as torch.where's condition
    "inpainting-resized-float-mask-where": case(_inpainting_resized_float_mask_where, "mask_dtype", "f32",
                                                fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # the user's 0/255 uint8 mask used in masked_fill to blank the region to repaint
    "inpainting-uint8-mask-masked-fill": case(_inpainting_uint8_mask_masked_fill, "mask_dtype", "uint8",
                                              fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # --- fine-tuning: EMA, textual inversion, DreamBooth
    # EMA of a bf16 UNet with AveragedModel and get_ema_multi_avg_fn, the EMA copy cast to fp32
    "ema-averaged-model-fp32-copy": case(_ema_averaged_model_fp32_copy, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # textual inversion in bf16: a gradient hook masks the embedding's gradient with an fp32 row mask
    "textual-inversion-grad-mask-hook-fp32": case(_textual_inversion_grad_mask_hook, "loss_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # textual inversion on a halved text encoder: the new token's fp16 embedding trained with GradScaler
    "textual-inversion-f16-token-grad-scaler": case(_textual_inversion_f16_token_grad_scaler, "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
    # DreamBooth with GradScaler: the text encoder frozen after N steps, its optimizer still stepped through the scaler
    "dreambooth-frozen-text-encoder-scaler-step": case(_dreambooth_frozen_text_encoder_scaler_step, "loss_scale", grade="correct", grade_at_freeze="correct"),
}
