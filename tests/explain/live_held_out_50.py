"""Held-out live set 50: training diffusion and flow-matching models by hand in low precision (timestep sampling and
embeddings, noise schedules from numpy, v/epsilon/velocity targets and loss weighting, classifier-free guidance
dropout, EMA, latent caches and VAEs in another dtype, cached text embeddings, LoRA/DoRA/LoCon and DreamBooth-style
fine-tuning, IP-Adapter and LCM distillation, logging samples and FID). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at 67c4921."""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "67c4921"

bf16, f16 = torch.bfloat16, torch.float16
VOCAB, D, HEADS, HEAD_DIM, T = 40, 16, 2, 8, 1000


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(shape, generator=_gen())


def _ids(batch: int = 4, length: int = 7) -> torch.Tensor:
    return torch.randint(1, VOCAB, (batch, length), generator=_gen())


def _sd_alphas_cumprod() -> torch.Tensor:
    betas = np.linspace(0.00085**0.5, 0.012**0.5, T) ** 2  # scaled_linear, as the scheduler config says
    return torch.from_numpy(np.cumprod(1.0 - betas))


# --- timestep sampling and embeddings


def _sd3_logit_normal_indices_floored() -> None:
    schedule_timesteps = torch.linspace(float(T), 1.0, T)  # the flow-match scheduler's (float) timesteps
    u = torch.sigmoid(torch.randn(4, generator=_gen()))  # logit-normal density
    indices = (u * T).floor()
    schedule_timesteps[indices]


def _learned_time_table_continuous_t() -> None:
    time_embed = nn.Embedding(T, D).to(bf16)  # a learned per-step table from the discrete-time model
    t = torch.rand(4, generator=_gen())  # the trainer moved to continuous time
    time_embed((t * (T - 1)).round())


def _lcm_guidance_embedding_fp32() -> None:
    def guidance_scale_embedding(w: torch.Tensor, dim: int) -> torch.Tensor:
        w = w * 1000.0
        half = dim // 2
        freqs = torch.exp(torch.arange(half) * -(math.log(10000.0) / (half - 1)))
        args = w[:, None] * freqs[None, :]
        return torch.cat([torch.sin(args), torch.cos(args)], dim=1)

    cond_proj = nn.Linear(D, 4 * D, bias=False).to(bf16)  # the student UNet's time_embedding.cond_proj
    w = (15.0 - 3.0) * torch.rand(4, generator=_gen()) + 3.0
    cond_proj(guidance_scale_embedding(w, D))


# --- classifier-free guidance dropout and text conditioning


def _cfg_keep_one_minus_bool() -> None:
    prompt_embeds = _randn(4, 7, D).to(bf16)
    drop = torch.rand(4, generator=_gen()) < 0.1
    keep = 1 - drop
    prompt_embeds * keep[:, None, None]


def _cfg_uncond_embeds_cached_before_cast() -> None:
    text_encoder = nn.Embedding(VOCAB, D)
    with torch.no_grad():
        uncond = text_encoder(torch.zeros(1, 7, dtype=torch.long))[0]  # the empty prompt, cached at startup
        text_encoder.to(bf16)
        prompt_embeds = text_encoder(_ids())
    drop = torch.rand(4, generator=_gen()) < 0.5
    prompt_embeds[drop] = uncond


def _text_cache_attention_mask_into_sdpa() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "caption_0001.pt")
        mask = torch.ones(2, 7, dtype=torch.long)
        mask[:, 5:] = 0
        torch.save({"embeds": _randn(2, 7, D).to(bf16), "attention_mask": mask}, path)
        cached = torch.load(path, weights_only=True)
    to_q, to_k, to_v = (nn.Linear(D, D, bias=False).to(bf16) for _ in range(3))
    hidden = _randn(2, 16, D).to(bf16)
    context = cached["embeds"]
    q = to_q(hidden).view(2, 16, HEADS, HEAD_DIM).transpose(1, 2)
    k = to_k(context).view(2, 7, HEADS, HEAD_DIM).transpose(1, 2)
    v = to_v(context).view(2, 7, HEADS, HEAD_DIM).transpose(1, 2)
    F.scaled_dot_product_attention(q, k, v, attn_mask=cached["attention_mask"][:, None, None, :])


def _text_embeds_cached_with_np_save() -> None:
    text_encoder = nn.Embedding(VOCAB, D).to(bf16)
    with tempfile.TemporaryDirectory() as folder, torch.no_grad():
        for i, ids in enumerate(_ids(2).split(1)):
            np.save(os.path.join(folder, f"{i:05d}.npy"), text_encoder(ids).numpy())


def _text_embeds_fp16_npy_into_bf16_cross_attention() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "00000.npy")
        np.save(path, np.random.default_rng(0).standard_normal((2, 7, D)).astype(np.float16))  # an earlier fp16 run
        context = torch.from_numpy(np.load(path))
    to_k = nn.Linear(D, D, bias=False).to(bf16)
    to_k(context)


def _caption_mask_float_key_padding() -> None:
    cross_attn = nn.MultiheadAttention(D, HEADS, batch_first=True).to(bf16)
    tokens = _randn(2, 16, D).to(bf16)
    context = _randn(2, 7, D).to(bf16)
    text_mask = torch.ones(2, 7, dtype=torch.long)
    text_mask[1, 4:] = 0
    key_padding_mask = 1.0 - text_mask.float()  # 1 where padded
    cross_attn(tokens, context, context, key_padding_mask=key_padding_mask)


# --- VAE latents and the denoiser's input


def _vae_fp32_latents_into_fp16_unet() -> None:
    vae_encoder = nn.Conv2d(3, 8, 3, stride=2, padding=1)  # kept fp32: the fp16 VAE gave NaNs
    conv_in = nn.Conv2d(4, 16, 3, padding=1).half()
    pixels = torch.rand(2, 3, 16, 16, generator=_gen()) * 2 - 1
    alphas_cumprod = _sd_alphas_cumprod().float()
    with torch.no_grad():
        mean, _logvar = vae_encoder(pixels).chunk(2, dim=1)
        latents = mean * 0.13025
    t = torch.randint(0, T, (2,), generator=_gen())
    noise = torch.randn_like(latents)
    a = alphas_cumprod[t].view(-1, 1, 1, 1)
    conv_in(a.sqrt() * latents + (1 - a).sqrt() * noise)


def _inpainting_conv_in_expanded_bias_fp32() -> None:
    conv_in = nn.Conv2d(4, 16, 3, padding=1).to(bf16)
    new_conv_in = nn.Conv2d(9, 16, 3, padding=1)  # 4 latent + 4 masked-image + 1 mask channels
    new_conv_in.weight = nn.Parameter(torch.cat([conv_in.weight.detach(), torch.zeros(16, 5, 3, 3, dtype=bf16)], 1))
    latents = _randn(2, 4, 8, 8).to(bf16)
    masked_latents = _randn(2, 4, 8, 8).to(bf16)
    mask = torch.ones(2, 1, 8, 8, dtype=bf16)
    new_conv_in(torch.cat([latents, masked_latents, mask], dim=1))


def _dit_bucket_sincos_pos_embed_fp32() -> None:
    def sincos_2d(dim: int, height: int, width: int) -> np.ndarray:
        grid = np.stack(np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64)))
        omega = 1.0 / 10000 ** (np.arange(dim // 4, dtype=np.float64) / (dim / 4))
        parts = [f(np.outer(g.reshape(-1), omega)) for g in grid for f in (np.sin, np.cos)]
        return np.concatenate(parts, axis=1)

    patch_embed = nn.Conv2d(4, D, 2, stride=2).to(bf16)
    norm1 = nn.LayerNorm(D).to(bf16)
    latents = _randn(2, 4, 8, 12).to(bf16)  # a 64x96 aspect bucket
    x = patch_embed(latents).flatten(2).transpose(1, 2)
    pos = torch.from_numpy(sincos_2d(D, 4, 6)).float().unsqueeze(0)  # recomputed per bucket
    norm1(x + pos)


# --- LoRA, DoRA and LoCon on a frozen base


def _locon_fp32_adapters_on_bf16_conv() -> None:
    class LoConConv(nn.Module):
        def __init__(self, base: nn.Conv2d, rank: int = 4) -> None:
            super().__init__()
            self.base = base
            self.lora_down = nn.Conv2d(base.in_channels, rank, 3, padding=1, bias=False)
            self.lora_up = nn.Conv2d(rank, base.out_channels, 1, bias=False)
            nn.init.zeros_(self.lora_up.weight)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.base(x) + self.lora_up(self.lora_down(x))

    base = nn.Conv2d(16, 16, 3, padding=1).to(bf16).requires_grad_(False)
    layer = LoConConv(base)  # adapters kept fp32 for stable training
    layer(_randn(2, 16, 8, 8).to(bf16))


def _dora_fp32_magnitude() -> None:
    base = nn.Linear(D, D).to(bf16).requires_grad_(False)
    lora_a = nn.Parameter(_randn(4, D) * 0.01)
    lora_b = nn.Parameter(torch.zeros(D, 4))
    magnitude = nn.Parameter(base.weight.detach().float().norm(dim=1, keepdim=True))
    merged = base.weight + lora_b @ lora_a
    weight = magnitude * merged / merged.norm(dim=1, keepdim=True)
    F.linear(_randn(2, 7, D).to(bf16), weight, base.bias)


def _ip_adapter_fp32_kv_bf16_query() -> None:
    to_q = nn.Linear(D, D, bias=False).to(bf16).requires_grad_(False)
    image_proj = nn.Linear(32, 4 * D)  # trainable, upcast to fp32 with the other trainable params
    to_k_ip, to_v_ip = nn.Linear(D, D, bias=False), nn.Linear(D, D, bias=False)
    hidden = _randn(2, 16, D).to(bf16)
    clip_image_embeds = _randn(2, 32)  # the frozen image encoder's output, .float()'d for the projection
    ip_tokens = image_proj(clip_image_embeds).view(2, 4, D)
    q = to_q(hidden).view(2, 16, HEADS, HEAD_DIM).transpose(1, 2)
    k = to_k_ip(ip_tokens).view(2, 4, HEADS, HEAD_DIM).transpose(1, 2)
    v = to_v_ip(ip_tokens).view(2, 4, HEADS, HEAD_DIM).transpose(1, 2)
    F.scaled_dot_product_attention(q, k, v)


def _upcast_attention_query_only() -> None:
    to_q, to_k = nn.Linear(D, D, bias=False).to(bf16), nn.Linear(D, D, bias=False).to(bf16)
    hidden, context = _randn(2, 16, D).to(bf16), _randn(2, 7, D).to(bf16)
    q = to_q(hidden).view(2, 16, HEADS, HEAD_DIM).transpose(1, 2).reshape(2 * HEADS, 16, HEAD_DIM)
    k = to_k(context).view(2, 7, HEADS, HEAD_DIM).transpose(1, 2).reshape(2 * HEADS, 7, HEAD_DIM)
    q = q.float()  # upcast_attention, as the SD 2.x config asks
    empty = torch.empty(2 * HEADS, 16, 7, dtype=q.dtype)
    torch.baddbmm(empty, q, k.transpose(-1, -2), beta=0, alpha=HEAD_DIM**-0.5)


# --- noising, targets and loss weighting


def _rectified_flow_lerp_fp32_t() -> None:
    latents = _randn(4, 4, 8, 8).to(bf16)
    noise = torch.randn_like(latents)
    t = torch.sigmoid(torch.randn(4, generator=_gen()))
    torch.lerp(latents, noise, t.view(-1, 1, 1, 1))


def _min_snr_weighted_mean_as_dot() -> None:
    alphas_cumprod = _sd_alphas_cumprod()
    t = torch.randint(0, T, (4,), generator=_gen())
    snr = alphas_cumprod[t] / (1 - alphas_cumprod[t])
    weights = torch.clamp(snr, max=5.0) / snr
    model_pred, target = _randn(4, 4, 8, 8).to(bf16), _randn(4, 4, 8, 8)
    per_sample = F.mse_loss(model_pred.float(), target.float(), reduction="none").mean(dim=(1, 2, 3))
    torch.dot(weights, per_sample) / len(t)


def _flow_sigma_sqrt_weighting_stratified_t0() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.SiLU(), nn.Conv2d(8, 4, 3, padding=1)).to(bf16)
    latents = _randn(8, 4, 8, 8).to(bf16)
    noise = torch.randn(latents.shape, generator=torch.Generator().manual_seed(1)).to(bf16)
    timesteps = torch.linspace(0, T - 1, 8).round().long()  # stratified over the batch
    sigmas = (timesteps.float() / T).to(bf16).view(-1, 1, 1, 1)
    x_t = (1 - sigmas) * latents + sigmas * noise
    weighting = sigmas**-2.0  # "sigma_sqrt"
    loss = (weighting * (model(x_t) - (noise - latents)) ** 2).mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)


def _frequency_loss_fft_bf16() -> None:
    model_pred, target = _randn(2, 4, 8, 8).to(bf16), _randn(2, 4, 8, 8).to(bf16)
    (torch.fft.rfft2(model_pred).abs() - torch.fft.rfft2(target).abs()).abs().mean()


def _subject_mask_avg_pool_uint8() -> None:
    mask = torch.zeros(2, 1, 64, 64, dtype=torch.uint8)  # the subject's segmentation PNG, 0/1
    mask[:, :, 16:48, 16:48] = 1
    F.avg_pool2d(mask, 8)  # down to latent size


def _masked_loss_masked_select_uint8() -> None:
    mask = torch.zeros(2, 1, 64, 64, dtype=torch.uint8)
    mask[:, :, 16:48, 16:48] = 1
    latent_mask = F.interpolate(mask, size=(8, 8), mode="nearest").expand(2, 4, 8, 8)
    model_pred, target = _randn(2, 4, 8, 8).to(bf16), _randn(2, 4, 8, 8)
    per_pixel = F.mse_loss(model_pred.float(), target.float(), reduction="none")
    per_pixel.masked_select(latent_mask).mean()


def _noise_level_classifier_float_bucket_targets() -> None:
    head = nn.Sequential(nn.Linear(D, D), nn.SiLU(), nn.Linear(D, 10)).to(bf16)
    t = torch.randint(0, T, (4,), generator=_gen())
    bucket = (t / T * 10).floor()
    F.cross_entropy(head(_randn(4, D).to(bf16)), bucket)


def _add_discriminator_bce_ones_fp32() -> None:
    discriminator = nn.Sequential(nn.Linear(D, D), nn.SiLU(), nn.Linear(D, 1)).to(bf16)
    real_features = _randn(4, D).to(bf16)
    d_real = discriminator(real_features).sigmoid().squeeze(-1)
    F.binary_cross_entropy(d_real, torch.ones(4))


# --- latent caches, EMA, master weights and optimizers


def _uint8_latent_cache_dequantized_in_place() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "latents_0001.pt")
        torch.save({"q": torch.randint(0, 256, (4, 8, 8), generator=_gen(), dtype=torch.uint8),
                    "lo": -4.0, "hi": 4.0}, path)
        cached = torch.load(path, weights_only=True)
    latents = cached["q"]
    latents.div_(255.0).mul_(cached["hi"] - cached["lo"]).add_(cached["lo"])


def _ema_foreach_lerp_fp32_shadow() -> None:
    unet = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.SiLU(), nn.Conv2d(8, 4, 3, padding=1)).to(bf16)
    ema_params = [p.detach().float().clone() for p in unet.parameters()]  # fp32 shadow for precision
    with torch.no_grad():
        torch._foreach_lerp_(ema_params, list(unet.parameters()), 1 - 0.9999)


def _fp16_master_weights_grad_assigned() -> None:
    model = nn.Sequential(nn.Linear(D, D), nn.SiLU(), nn.Linear(D, D)).half()
    master = [p.detach().float().clone().requires_grad_() for p in model.parameters()]
    loss = model(_randn(4, D).half()).float().pow(2).mean() * 1024.0
    loss.backward()
    for m, p in zip(master, model.parameters(), strict=True):
        m.grad = p.grad


def _textual_inversion_resized_embedding_optimizer_stale() -> None:
    token_embedding = nn.Embedding(VOCAB, D)
    optimizer = torch.optim.AdamW(token_embedding.parameters(), lr=5e-4)
    resized = nn.Embedding(VOCAB + 1, D)  # the placeholder token added after the optimizer was built
    with torch.no_grad():
        resized.weight[:VOCAB] = token_embedding.weight
    token_embedding = resized
    scaler = torch.amp.GradScaler("cpu")
    ids = torch.full((2, 7), VOCAB)
    scaler.scale(token_embedding(ids).pow(2).mean()).backward()
    scaler.step(optimizer)


# --- validation samples and FID


def _fid_uint8_samples_into_feature_net() -> None:
    samples = (torch.rand(2, 3, 32, 32, generator=_gen()) * 2 - 1).to(bf16)
    images = ((samples.float() + 1) * 127.5).round().clamp(0, 255).to(torch.uint8)  # also logged as PNGs
    feature_net = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    feature_net(images)


def _fid_sqrtm_eigh_bf16_covariance() -> None:
    feature_net = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                nn.Flatten()).to(bf16)
    with torch.no_grad():
        features = feature_net(_randn(16, 3, 16, 16).to(bf16))
    covariance = torch.cov(features.T)
    eigenvalues, eigenvectors = torch.linalg.eigh(covariance)
    eigenvectors @ torch.diag(eigenvalues.clamp(min=0).sqrt()) @ eigenvectors.T


CASES: dict[str, LiveCase] = {
    # SD3-style logit-normal timestep sampling: indices into the scheduler's timesteps made with floor(), not .long()
    "sd3-logit-normal-indices-floored": case(_sd3_logit_normal_indices_floored, "index_tensor_dtype",
                                             grade="correct", grade_at_freeze="correct"),
    # a learned per-step time table (nn.Embedding) fed continuous t * (T - 1) rounded with round(), still float
    "learned-time-table-continuous-t": case(_learned_time_table_continuous_t, "index_tensor_dtype", "f32",
                                            grade="correct", grade_at_freeze="correct"),
    # LCM distillation: the guidance-scale embedding built in fp32 and given to the bf16 UNet's cond_proj uncast
    "lcm-guidance-embedding-fp32-cond-proj": case(_lcm_guidance_embedding_fp32, "matmul_dtype", "f32", "bf16",
                                                  grade="correct", grade_at_freeze="correct"),
    # classifier-free guidance dropout: the keep factor written as 1 - drop on the bool drop mask
    "cfg-keep-one-minus-bool-drop": case(_cfg_keep_one_minus_bool, "mask_dtype", "bool",
                                         grade="correct", grade_at_freeze="correct"),
    # CFG dropout: the empty-prompt embedding cached (fp32) before the text encoder was cast, written in by bool mask
    "cfg-uncond-embeds-cached-before-cast": case(_cfg_uncond_embeds_cached_before_cast, "indexed_write_dtype",
                                                 "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # cached text conditioning: the tokenizer's int64 attention_mask from the cache given to SDPA as the mask
    "text-cache-int64-mask-into-sdpa": case(_text_cache_attention_mask_into_sdpa, "mask_dtype", "int64",
                                            grade="correct", grade_at_freeze="correct"),
    # text-encoder embeddings cached to disk with np.save straight from the bf16 encoder
    "text-embeds-cached-np-save-bf16": case(_text_embeds_cached_with_np_save, "numpy_dtype", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # text embeddings cached as float16 .npy by an earlier fp16 run, fed to the bf16 cross-attention's to_k
    "text-embeds-fp16-npy-into-bf16-to-k": case(_text_embeds_fp16_npy_into_bf16_cross_attention, "matmul_dtype",
                                                "f16", "bf16", grade="correct", grade_at_freeze="correct"),
    # the text padding mask as a float key_padding_mask (1 - mask.float()) for a bf16 MultiheadAttention
    "caption-mask-float-key-padding-bf16-mha": case(_caption_mask_float_key_padding, "attn_mask_dtype", "f32",
                                                    "bf16", grade="correct", grade_at_freeze="correct"),
    # the VAE kept fp32 to avoid fp16 NaNs; its latents noised and fed to the fp16 UNet's conv_in without a cast
    "vae-fp32-latents-into-fp16-unet": case(_vae_fp32_latents_into_fp16_unet, "conv_weight_dtype", "f32", "f16",
                                            grade="correct", grade_at_freeze="correct"),
    # inpainting fine-tune: conv_in widened to 9 channels, weights from the bf16 conv, the new layer's fp32 bias kept
    "inpainting-conv-in-expanded-bias-fp32": case(_inpainting_conv_in_expanded_bias_fp32, "conv_bias_dtype", "bf16",
                                                  "f32", grade="correct", grade_at_freeze="correct"),
    # aspect-bucketed DiT training: the 2-D sincos position embedding recomputed per bucket in fp32, added uncast
    "dit-bucket-pos-embed-fp32-layernorm": case(_dit_bucket_sincos_pos_embed_fp32, "norm_param_dtype", "f32",
                                                grade="correct", grade_at_freeze="correct"),
    # LoCon on a frozen bf16 UNet conv: the LoRA down/up convs kept fp32 for training, fed bf16 hidden states
    "locon-fp32-adapters-on-bf16-conv": case(_locon_fp32_adapters_on_bf16_conv, "conv_weight_dtype", "bf16", "f32",
                                             grade="correct", grade_at_freeze="correct"),
    # DoRA: the magnitude vector taken in fp32 makes the recomposed weight fp32 for bf16 activations
    "dora-fp32-magnitude-weight": case(_dora_fp32_magnitude, "matmul_dtype", "bf16", "f32",
                                       grade="correct", grade_at_freeze="correct"),
    # IP-Adapter training: fp32 trainable image K/V projections, the frozen bf16 to_q's query, into SDPA
    "ip-adapter-fp32-kv-bf16-query-sdpa": case(_ip_adapter_fp32_kv_bf16_query, "sdpa_dtype", "bf16", "f32",
                                               grade="correct", grade_at_freeze="correct"),
    # a hand-written attention processor with upcast_attention that upcasts the query only, scores by baddbmm
    "upcast-attention-query-only-baddbmm": case(_upcast_attention_query_only, "batched_matmul_dtype", "f32", "bf16",
                                                grade="correct", grade_at_freeze="correct"),
    # rectified-flow interpolation with torch.lerp(latents, noise, t), t from the logit-normal sampler in fp32
    "rectified-flow-lerp-fp32-t": case(_rectified_flow_lerp_fp32_t, "lerp_dtype", "bf16", "f32",
                                       grade="correct", grade_at_freeze="correct"),
    # min-SNR weights from the numpy (float64) schedule, the weighted mean written as a dot with fp32 losses
    "min-snr-weighted-mean-dot-f64": case(_min_snr_weighted_mean_as_dot, "matmul_dtype", "f64", "f32",
                                          grade="correct", grade_at_freeze="correct"),
    # flow matching with sigma**-2 weighting and stratified integer timesteps that include t=0: inf loss, clipping
    "flow-sigma-sqrt-weight-stratified-t0": case(_flow_sigma_sqrt_weighting_stratified_t0, "nonfinite",
                                                 grade="correct", grade_at_freeze="correct"),
    # a Fourier-space loss term on the bf16 noise prediction
    "frequency-loss-rfft2-bf16": case(_frequency_loss_fft_bf16, "no_kernel", "bf16",
                                      grade="correct", grade_at_freeze="correct"),
    # subject-masked loss: the uint8 segmentation mask downsampled to latent size with avg_pool2d
    "subject-mask-avg-pool-uint8": case(_subject_mask_avg_pool_uint8, "integer_operand", "uint8",
                                        grade="correct", grade_at_freeze="correct"),
    # masked loss: per-pixel MSE selected with the nearest-resized uint8 mask
    "masked-loss-masked-select-uint8": case(_masked_loss_masked_select_uint8, "mask_dtype",
                                            grade="correct", grade_at_freeze="correct"),
    # a noise-level (timestep-bucket) classifier trained on floor()'d float bucket targets
    "noise-level-classifier-float-buckets": case(_noise_level_classifier_float_bucket_targets, "target_dtype",
                                                 "f32", grade="correct", grade_at_freeze="correct"),
    # adversarial diffusion distillation: the bf16 discriminator's probabilities against torch.ones (fp32) in BCE
    "add-discriminator-bce-ones-fp32": case(_add_discriminator_bce_ones_fp32, "op_dtype", "f32", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # latents cached as uint8 (min/max quantised) and dequantised in place after loading
    "uint8-latent-cache-dequantized-in-place": case(_uint8_latent_cache_dequantized_in_place, "result_cast", "f32",
                                                    "uint8", grade="correct", grade_at_freeze="correct"),
    # EMA of a bf16 UNet with fp32 shadow weights updated by torch._foreach_lerp_
    "ema-foreach-lerp-fp32-shadow": case(_ema_foreach_lerp_fp32_shadow, "lerp_dtype", "f32", "bf16",
                                         grade="correct", grade_at_freeze="correct"),
    # hand-written fp16 master weights: the fp16 UNet's gradients assigned to the fp32 master copies' .grad
    "fp16-master-weights-grad-assigned": case(_fp16_master_weights_grad_assigned, "loss_dtype", "f16", "f32",
                                              grade="correct", grade_at_freeze="correct"),
    # textual inversion: token embeddings resized after the optimizer was built; scaler.step finds no gradients
    "textual-inversion-resized-embedding-stale-optimizer": case(
        _textual_inversion_resized_embedding_optimizer_stale, "loss_scale", grade="correct", grade_at_freeze="correct"),
    # validation samples quantised to uint8 for logging, the same uint8 batch fed to the FID feature network
    "fid-uint8-samples-into-feature-net": case(_fid_uint8_samples_into_feature_net, "integer_operand", "uint8",
                                               grade="correct", grade_at_freeze="correct"),
    # FID's matrix square root by eigh of the covariance of bf16 features
    "fid-sqrtm-eigh-bf16-covariance": case(_fid_sqrtm_eigh_bf16_covariance, "no_kernel", "bf16",
                                           grade="correct", grade_at_freeze="correct"),
}
