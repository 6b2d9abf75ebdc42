"""Held-out live set 52: video models by hand in low precision (frame sampling and decoding, temporal and space-time
attention, 3-D convolutions and tubelets, optical flow, video VAEs and latent caches, frame interpolation, action
recognition heads, clip augmentation, temporal positions, video metrics). Defects planted by a helper who never read
the rules, written before castwise ran and graded once with the rules frozen at 9149651."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "9149651"

bf16, f16 = torch.bfloat16, torch.float16


def _uint8_clip(frames: int = 4, size: int = 8) -> torch.Tensor:
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.integers(0, 256, size=(frames, size, size, 3), dtype=np.uint8))


# --- decoding, timestamps and frame sampling


def _decoded_uint8_clip_into_tubelet_conv3d() -> None:
    torch.manual_seed(0)
    tubelet = nn.Conv3d(3, 16, kernel_size=(2, 4, 4), stride=(2, 4, 4), bias=False)
    clip = _uint8_clip().permute(3, 0, 1, 2)[None]  # (T, H, W, C) -> (B, C, T, H, W), the /255 forgotten
    tubelet(clip)


def _decord_float64_clip_into_bf16_tubelet() -> None:
    torch.manual_seed(0)
    tubelet = nn.Conv3d(3, 16, kernel_size=(2, 4, 4), stride=(2, 4, 4), bias=False).to(bf16)
    frames = _uint8_clip().numpy() / 255.0  # decord's asnumpy() / 255.0 is float64
    clip = torch.from_numpy(frames).permute(3, 0, 1, 2)[None]
    tubelet(clip)


def _temporal_embedding_rounded_frame_ids() -> None:
    torch.manual_seed(0)
    time_embed = nn.Embedding(64, 16).to(bf16)
    seconds = torch.from_numpy(np.array([0.0, 0.1001, 0.2002, 0.3003]))  # timestamps from the container
    fps = 29.97
    frame_ids = torch.round(seconds * fps)  # rounded but still float64
    time_embed(frame_ids)


def _svd_added_time_ids_float64_fps() -> None:
    torch.manual_seed(0)
    add_embedding = nn.Linear(3, 32).to(bf16)
    fps = np.float64(30000 / 1001)  # avg_rate from the container, as a numpy float64
    added_time_ids = torch.from_numpy(np.array([[fps - 1, 127, 0.02]]))
    add_embedding(added_time_ids)


def _uint8_clip_buffer_written_by_indices() -> None:
    buffer = torch.zeros(8, 8, 8, 3, dtype=torch.uint8)
    frames = _uint8_clip().float() / 255.0  # resized and normalised frames, still float
    indices = torch.tensor([0, 2, 4, 6])
    buffer[indices] = frames


def _pad_timestamps_sentinel_f16() -> None:
    timestamps = torch.tensor([0.0, 33.3, 66.7], dtype=f16)  # ms, in the model's fp16
    padded = timestamps.new_full((8,), 1e6)  # "never attend" sentinel for padded frames
    padded[:3] = timestamps


# --- clip-level augmentation and labels


def _mixup_uint8_clips_in_place() -> None:
    clips = torch.stack([_uint8_clip(), _uint8_clip().flip(0)])
    lam = float(np.random.default_rng(0).beta(0.8, 0.8))
    clips.mul_(lam).add_((1 - lam) * clips.flip(0))


def _segmentation_labels_uint8_pad_ignore() -> None:
    frame_labels = torch.tensor([3, 3, 3, 7, 7, 1], dtype=torch.uint8)  # per-frame action ids stored as uint8
    F.pad(frame_labels, (0, 10), value=-100)  # padded with cross_entropy's ignore_index


def _videomae_tube_mask_float64_invert() -> None:
    torch.manual_seed(0)
    tokens = torch.randn(1, 16, 8).to(bf16)
    mask = np.hstack([np.zeros(4), np.ones(12)])  # tube mask, as VideoMAE's generator builds it
    np.random.default_rng(0).shuffle(mask)
    visible = torch.from_numpy(mask)
    tokens[:, ~visible]


# --- temporal and space-time attention


def _block_causal_frame_mask_long() -> None:
    torch.manual_seed(0)
    frames, tokens = 3, 4
    scores = torch.randn(frames * tokens, frames * tokens).to(bf16)
    frame_causal = torch.ones(frames, frames, dtype=torch.long).tril()
    allowed = frame_causal.repeat_interleave(tokens, 0).repeat_interleave(tokens, 1)
    scores.masked_fill(1 - allowed, float("-inf"))


def _memory_bank_fp32_kv_sdpa() -> None:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 8, 16).to(bf16)  # current clip's queries
    memory = [torch.randn(1, 2, 8, 16) for _ in range(2)]  # earlier clips' keys cached with .float()
    k = v = torch.cat(memory, dim=2)
    F.scaled_dot_product_attention(q, k, v)


def _long_term_feature_bank_bmm() -> None:
    torch.manual_seed(0)
    theta = torch.randn(2, 6, 32).to(bf16)  # short-term features from the bf16 backbone
    bank = torch.randn(2, 32, 20)  # precomputed long-term feature bank loaded in fp32
    torch.bmm(theta, bank)


def _timestamp_rope_float64() -> None:
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 4, 8).to(bf16) for _ in range(3))
    seconds = torch.from_numpy(np.array([0.0, 0.5, 1.0, 1.5]))  # frame times from the container, float64
    inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2) / 8))
    angles = torch.outer(seconds, inv_freq)
    cos, sin = torch.cat([angles, angles], -1).cos(), torch.cat([angles, angles], -1).sin()

    def rotate(x: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin

    F.scaled_dot_product_attention(rotate(q), rotate(k), v)


def _frame_padding_mask_float_mha() -> None:
    torch.manual_seed(0)
    attn = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    frames = torch.randn(2, 5, 16).to(bf16)
    padding = torch.tensor([[0.0, 0, 0, 1, 1], [0, 0, 0, 0, 0]]) * -1e4  # padded frames as an additive float mask
    attn(frames, frames, frames, key_padding_mask=padding)


# --- 3-D convolutions, video VAEs and latent caches


def _i3d_inflation_float_weights() -> None:
    torch.manual_seed(0)
    stem = nn.Conv3d(3, 8, kernel_size=(3, 3, 3), padding=1, bias=False).to(bf16)
    weight_2d = torch.randn(8, 3, 3, 3).to(bf16)  # the bf16 ImageNet checkpoint's conv1
    stem.weight = nn.Parameter(weight_2d.float().unsqueeze(2).repeat(1, 1, 3, 1, 1) / 3)  # I3D inflation
    stem(torch.randn(1, 3, 4, 8, 8).to(bf16))


def _action_segmentation_head_prior_bias() -> None:
    torch.manual_seed(0)
    head = nn.Conv1d(16, 5, kernel_size=1).to(bf16)
    head.bias = nn.Parameter(torch.full((5,), -math.log(4.0)))  # prior-probability init after the cast
    head(torch.randn(1, 16, 12).to(bf16))


def _latent_cache_f16_noise_bf16_patch_embed() -> None:
    torch.manual_seed(0)
    patch_embed = nn.Conv3d(4, 32, kernel_size=(1, 2, 2), stride=(1, 2, 2), bias=False).to(bf16)
    cached = torch.randn(1, 4, 3, 8, 8).half()  # video VAE latents cached as fp16
    noise = torch.randn(1, 4, 3, 8, 8).to(bf16)
    t = 0.3
    noisy = (1 - t) * cached + t * noise
    patch_embed(noisy)


def _video_latent_cache_npy_bf16() -> None:
    torch.manual_seed(0)
    latents = torch.randn(4, 3, 8, 8).to(bf16)  # the bf16 video VAE's encode output
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "clip_000.npy", latents.numpy())


def _lrcn_bf16_frames_fp32_lstm() -> None:
    torch.manual_seed(0)
    frame_encoder = nn.Linear(32, 16).to(bf16)
    temporal = nn.LSTM(16, 16, batch_first=True)  # left fp32: "recurrent layers are unstable in bf16"
    frame_features = frame_encoder(torch.randn(2, 6, 32).to(bf16))
    temporal(frame_features)


# --- optical flow and frame interpolation


def _raft_corr_previous_frame_fp32() -> None:
    torch.manual_seed(0)
    fmap_prev = torch.randn(1, 16, 8 * 8)  # previous frame's features, computed before autocast was on
    with torch.autocast("cpu", dtype=bf16):
        fmap_cur = nn.Linear(16, 16)(torch.randn(1, 64, 16)).transpose(1, 2)
    torch.matmul(fmap_cur.transpose(1, 2), fmap_prev)


def _occlusion_mask_bool_minus() -> None:
    torch.manual_seed(0)
    flow_fw = torch.randn(1, 2, 8, 8).to(bf16)
    flow_bw = torch.randn(1, 2, 8, 8).to(bf16)
    error = (flow_fw + flow_bw).norm(dim=1)
    occluded = error > 1.0
    non_occluded = 1 - occluded
    (error * non_occluded).mean()


def _frame_blend_lerp_fp32_t() -> None:
    torch.manual_seed(0)
    frame0 = torch.randn(1, 3, 8, 8).to(bf16)
    frame1 = torch.randn(1, 3, 8, 8).to(bf16)
    t = torch.linspace(0, 1, 5)[1:-1].view(-1, 1, 1, 1)  # intermediate times
    torch.lerp(frame0, frame1, t)


def _softmax_splatting_accumulate_fp32() -> None:
    torch.manual_seed(0)
    frame = torch.randn(3, 64).to(bf16)  # flattened bf16 source frame
    target = torch.randint(0, 64, (64,))  # pixel each source pixel lands on after forward warping
    splatted = torch.zeros(3, 64)
    splatted.index_put_((torch.arange(3)[:, None], target[None]), frame, accumulate=True)


def _charbonnier_fp16_static_background() -> None:
    torch.manual_seed(0)
    pred = torch.zeros(1, 3, 8, 8, dtype=f16, requires_grad=True)
    gt = torch.zeros(1, 3, 8, 8, dtype=f16)  # static background: identical pixels
    eps = 1e-4
    with torch.autograd.detect_anomaly():
        torch.sqrt((pred - gt) ** 2 + eps**2).mean().backward()


# --- action recognition heads, training and evaluation


def _gradient_reversal_hook_fp32_lambda() -> None:
    torch.manual_seed(0)
    backbone = nn.Linear(8, 8).to(bf16)
    domain_head = nn.Linear(8, 2).to(bf16)
    features = backbone(torch.randn(4, 8).to(bf16))
    lam = torch.tensor(0.1)  # GRL coefficient scheduled as a tensor
    features.register_hook(lambda grad: -lam * grad.float())
    domain_head(features).sum().backward()


def _video_level_scores_scatter_reduce() -> None:
    torch.manual_seed(0)
    clip_probs = torch.randn(6, 5).to(bf16).softmax(-1)  # multi-clip test views from the bf16 model
    video_of_clip = torch.tensor([0, 0, 0, 1, 1, 1])
    video_scores = torch.zeros(2, 5)
    video_scores.scatter_reduce_(0, video_of_clip[:, None].expand(-1, 5), clip_probs, reduce="mean")


def _fvd_frechet_eigh_bf16() -> None:
    torch.manual_seed(0)
    feats = torch.randn(32, 8).to(bf16)  # I3D features from the bf16 evaluator
    cov = torch.cov(feats.T)
    torch.linalg.eigh(cov)


def _psnr_mse_loss_uint8() -> None:
    pred = _uint8_clip()
    gt = _uint8_clip().flip(0)
    mse = F.mse_loss(pred, gt)
    10 * torch.log10(255**2 / mse)


def _frame_dedupe_hamming_f16() -> None:
    torch.manual_seed(0)
    features = torch.randn(4, 64).to(f16)
    hashes = (features > features.median(dim=1, keepdim=True).values).to(features.dtype)  # perceptual hash bits
    (hashes[:-1] ^ hashes[1:]).sum(-1)


def _lfq_codes_in_bf16() -> None:
    torch.manual_seed(0)
    z = torch.randn(2, 10).to(bf16)  # lookup-free quantizer's latent bits
    bits = (z > 0).to(z.dtype)
    codes = (bits * 2 ** torch.arange(10)).sum(-1)
    nn.Embedding(1024, 8).to(bf16)(codes)


CASES: dict[str, LiveCase] = {
    # --- decoding, timestamps and frame sampling
    # decoded uint8 frames permuted to (B, C, T, H, W) and fed to an fp32 tubelet Conv3d without /255
    "uint8-clip-into-tubelet-conv3d": case(_decoded_uint8_clip_into_tubelet_conv3d, "integer_operand", "uint8", "f32", grade="correct", grade_at_freeze="correct"),
    # decord's asnumpy() / 255.0 (float64) fed to a bf16 tubelet Conv3d
    "decord-float64-clip-bf16-tubelet": case(_decord_float64_clip_into_bf16_tubelet, "conv_weight_dtype", "f64",
                                             "bf16", grade="correct", grade_at_freeze="correct"),
    # temporal embedding looked up with frame ids rounded from float64 container timestamps times fps
    "temporal-embedding-rounded-f64-frame-ids": case(_temporal_embedding_rounded_frame_ids, "index_tensor_dtype",
                                                     "f64", grade="correct", grade_at_freeze="correct"),
    # SVD-style added_time_ids built with numpy from the container's float64 fps, into the bf16 add_embedding
    "svd-added-time-ids-f64-fps": case(_svd_added_time_ids_float64_fps, "matmul_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # resized float frames written into a preallocated uint8 clip buffer at the sampled indices
    "uint8-clip-buffer-float-frames-index-put": case(_uint8_clip_buffer_written_by_indices, "indexed_write_dtype",
                                                     "uint8", "f32", grade="correct", grade_at_freeze="correct"),
    # padded frame timestamps (ms) in the model's fp16 given a 1e6 "never attend" sentinel with new_full
    "timestamps-pad-sentinel-1e6-f16": case(_pad_timestamps_sentinel_f16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # --- clip-level augmentation and labels
    # clip mixup done in place on the raw uint8 clips with a float lambda
    "mixup-uint8-clips-in-place": case(_mixup_uint8_clips_in_place, "result_cast", "f32", "uint8", grade="correct", grade_at_freeze="correct"),
    # per-frame action labels stored as uint8 padded with ignore_index -100
    "frame-labels-uint8-pad-ignore-index": case(_segmentation_labels_uint8_pad_ignore, "half_overflow", "uint8", grade="correct", grade_at_freeze="correct"),
    # VideoMAE tube mask built with np.hstack (float64), inverted with ~ to pick visible tokens
    "videomae-tube-mask-f64-invert": case(_videomae_tube_mask_float64_invert, "mask_dtype", grade="correct", grade_at_freeze="correct"),
    # --- temporal and space-time attention
    # block-causal frame mask built from int64 ones().tril(), given to masked_fill as 1 - allowed
    "block-causal-frame-mask-long": case(_block_causal_frame_mask_long, "mask_dtype", "int64", grade="correct", grade_at_freeze="correct"),
    # streaming video attention: bf16 queries over a memory of earlier clips' keys/values cached with .float()
    "memory-bank-fp32-kv-sdpa": case(_memory_bank_fp32_kv_sdpa, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # long-term feature bank loaded in fp32 bmm'd with the bf16 backbone's short-term features
    "long-term-feature-bank-fp32-bmm": case(_long_term_feature_bank_bmm, "batched_matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # temporal RoPE from float64 frame timestamps rotates q and k, v stays bf16
    "timestamp-rope-f64-qk": case(_timestamp_rope_float64, "sdpa_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # padded frames given to a bf16 MultiheadAttention as an additive fp32 key_padding_mask
    "frame-padding-float-mask-mha-bf16": case(_frame_padding_mask_float_mha, "attn_mask_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- 3-D convolutions, video VAEs and latent caches
    # I3D inflation of a bf16 2-D checkpoint's conv1 through .float(), assigned to the bf16 stem
    "i3d-inflation-float-weight": case(_i3d_inflation_float_weights, "conv_weight_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # action segmentation head's bias re-initialised to the prior (fp32) after the model's bf16 cast
    "action-seg-head-prior-bias-fp32": case(_action_segmentation_head_prior_bias, "conv_bias_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # fp16-cached video latents noised with bf16 noise (promoted to fp32) into the bf16 Conv3d patch embed
    "latent-cache-f16-bf16-noise-patch-embed": case(_latent_cache_f16_noise_bf16_patch_embed, "conv_weight_dtype",
                                                    "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # bf16 video VAE latents cached to .npy with np.save
    "video-latent-cache-npy-bf16": case(_video_latent_cache_npy_bf16, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # LRCN: bf16 frame features into an LSTM left in fp32
    "lrcn-bf16-frames-fp32-lstm": case(_lrcn_bf16_frames_fp32_lstm, "rnn_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # --- optical flow and frame interpolation
    # RAFT correlation of the current frame's bf16 features (autocast) with the previous frame's fp32 features
    "raft-corr-previous-frame-fp32": case(_raft_corr_previous_frame_fp32, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # forward-backward occlusion check: the non-occluded mask as 1 - (bool)
    "occlusion-mask-one-minus-bool": case(_occlusion_mask_bool_minus, "mask_dtype", "bool", grade="correct", grade_at_freeze="correct"),
    # linear frame-interpolation baseline: lerp of bf16 frames with fp32 times from linspace
    "frame-blend-lerp-fp32-t": case(_frame_blend_lerp_fp32_t, "lerp_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # softmax splatting: bf16 frame accumulated into an fp32 zeros buffer with index_put_(accumulate=True)
    "softmax-splatting-fp32-accumulator": case(_softmax_splatting_accumulate_fp32, "indexed_write_dtype", "f32",
                                               "bf16", grade="correct", grade_at_freeze="correct"),
    # Charbonnier loss with eps=1e-4 in fp16 on a static background: eps**2 underflows, NaN in backward (anomaly)
    "charbonnier-fp16-eps-underflow": case(_charbonnier_fp16_static_background, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # --- action recognition heads, training and evaluation
    # gradient reversal for video domain adaptation: a hook returning -lam * grad.float() for bf16 features
    "grl-hook-returns-fp32-grad": case(_gradient_reversal_hook_fp32_lambda, "loss_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # multi-view test: bf16 clip probabilities averaged into fp32 video scores with scatter_reduce_
    "video-scores-scatter-reduce-bf16-clips": case(_video_level_scores_scatter_reduce, "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # FVD's Frechet distance: covariance square root by eigh on the bf16 evaluator's features
    "fvd-eigh-bf16-covariance": case(_fvd_frechet_eigh_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # frame-interpolation PSNR with mse_loss on the raw uint8 frames
    "psnr-mse-loss-uint8-frames": case(_psnr_mse_loss_uint8, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # near-duplicate frame removal: Hamming distance by ^ of perceptual-hash bits kept in fp16
    "frame-dedupe-hash-xor-f16": case(_frame_dedupe_hamming_f16, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # lookup-free quantizer codes summed from bits in the latents' bf16, into the bf16 code embedding
    "lfq-codes-bf16-embedding": case(_lfq_codes_in_bf16, "index_tensor_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
}
