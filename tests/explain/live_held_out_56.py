"""Held-out live set 56: learned compression and neural codecs by hand in low precision. Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at ea741e9."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ea741e9"

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32


def _latent(channels: int = 8, dtype: torch.dtype = bf16) -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(1, channels, 4, 4).to(dtype)


# --- GDN layers and the analysis/synthesis transforms


def _gdn_gamma_kept_fp32() -> None:
    gamma = torch.eye(8) * 0.1 + 1e-3  # reparametrized, lower-bounded: excluded from the bf16 cast on purpose
    beta = torch.ones(8)
    x = _latent()
    norm = F.conv2d(x * x, gamma[:, :, None, None]) + beta[None, :, None, None]
    _ = x * torch.rsqrt(norm)


def _gdn_beta_kept_fp32() -> None:
    x = _latent()
    gamma = (torch.eye(8) * 0.1 + 1e-3).to(x.dtype)
    beta = torch.ones(8)  # the "small vector" beta stayed fp32 after the gamma cast
    norm = F.conv2d(x * x, gamma[:, :, None, None], beta)
    _ = x * torch.rsqrt(norm)


def _context_model_fp32_y_hat() -> None:
    context = nn.Conv2d(8, 16, 5, padding=2, bias=False).to(bf16)
    with torch.no_grad():
        mask = torch.ones_like(context.weight)
        mask[:, :, 2, 2:] = 0
        mask[:, :, 3:] = 0
        context.weight.mul_(mask)
    symbols = torch.zeros(1, 8, 4, 4, dtype=torch.int32)
    means = torch.zeros(1, 8, 4, 4)
    y_hat = symbols.float() + means  # the decoder rebuilds y_hat in fp32 and feeds the bf16 context model
    context(y_hat)


def _groupnorm_synthesis_block() -> None:
    norm = nn.GroupNorm(2, 8).to(bf16)
    upsampled = F.pixel_shuffle(torch.randn(1, 32, 2, 2), 2)  # an fp32 skip branch kept fp32 "for quality"
    norm(upsampled)


# --- entropy bottleneck, hyperprior and Gaussian conditional


def _factorized_prior_matrices_fp32() -> None:
    matrix = nn.Parameter(torch.randn(8, 3, 1))  # EntropyBottleneck density params kept fp32 as "aux" params
    logits = _latent().reshape(8, 1, -1)
    torch.matmul(F.softplus(matrix), logits)


def _variable_rate_gain_lerp() -> None:
    gains = nn.Parameter(torch.rand(6, 8) + 0.5)  # one gain vector per rate point, fp32
    level = torch.tensor(2.3, dtype=bf16)  # requested rate from the bf16 controller head
    t = (level - level.floor()).expand(8)
    torch.lerp(gains[2], gains[3], t)


def _entropy_bottleneck_half_grad_scaler() -> None:
    quantiles = nn.Parameter(torch.randn(8, 1, 3).half())  # entropy bottleneck halved to save memory
    analysis = nn.Parameter(torch.randn(8, 8))
    optimizer = torch.optim.Adam([analysis, quantiles], lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    loss = (analysis.sum() + quantiles.float().abs().sum()) * 0.01
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _pmf_fp16_rate_estimate() -> None:
    lower = torch.tensor([20.0, 20.5, 21.0], dtype=f16)
    upper = lower + 0.5
    pmf = torch.sigmoid(-lower) - torch.sigmoid(-upper)  # saturated channel: every bin is 0 in fp16
    pmf = pmf / pmf.sum()
    torch.distributions.Categorical(probs=pmf).entropy()


def _meta_offset_buffer() -> None:
    class Conditional(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale_table = nn.Parameter(torch.linspace(0.11, 64.0, 8))
            self.register_buffer("offset", torch.full((8,), -3, dtype=torch.int32), persistent=False)

    with torch.device("meta"):
        model = Conditional()
    model.load_state_dict({"scale_table": torch.linspace(0.11, 64.0, 8)}, assign=True)
    symbols = torch.round(torch.randn(8) * 3).to(torch.int32)
    symbols - model.offset


# --- CDF tables and range coding with integer symbols


def _frequency_table_normalised_in_place() -> None:
    symbols = torch.randint(0, 16, (256,), dtype=torch.int32)
    freqs = torch.zeros(16, dtype=torch.int32).index_add_(0, symbols, torch.ones(256, dtype=torch.int32))
    freqs.div_(freqs.sum())


def _quantized_cdf_round_out() -> None:
    pmf = torch.softmax(torch.randn(16), 0)
    cdf = torch.empty(17, dtype=torch.int32)
    cdf[0] = 0
    torch.round(torch.cumsum(pmf, 0) * (1 << 16), out=cdf[1:])


def _cdf_table_fp16_total() -> None:
    torch.full((8, 17), 1 << 16, dtype=f16)  # the 16-bit precision total written into a table in the model's dtype


def _range_coder_high_int32() -> None:
    state = torch.zeros(2, dtype=torch.int32)
    state[1:] = torch.full((1,), 0xFFFFFFFF, dtype=torch.int32)  # 32-bit range coder "high" kept in int32


def _symbol_histogram_histc() -> None:
    symbols = torch.round(torch.randn(1024) * 4).to(torch.int32)
    torch.histc(symbols, bins=33, min=-16, max=16)


def _symbol_counts_bincount_float() -> None:
    y = torch.randn(1024) * 4
    symbols = torch.round(y).clamp(-16, 16) + 16  # still float
    torch.bincount(symbols, minlength=33)


def _decoded_symbols_into_synthesis() -> None:
    synthesis = nn.ConvTranspose2d(8, 3, 5, stride=2, padding=2, output_padding=1)
    symbols = torch.randint(-4, 5, (1, 8, 4, 4), dtype=torch.int32)  # straight from the range decoder
    synthesis(symbols)


def _uniform_noise_on_symbols() -> None:
    symbols = torch.round(torch.randn(1, 8, 4, 4) * 3).to(torch.int32)  # cached symbols for entropy-model training
    symbols + torch.rand_like(symbols) - 0.5


# --- residual vector quantization and codebooks


def _rvq_dead_code_restart() -> None:
    codebook = nn.Parameter(torch.randn(16, 8))
    usage = torch.zeros(16)
    usage[:10] = 5.0
    latents = torch.randn(32, 8).to(bf16)  # bf16 encoder output
    dead = usage < 1.0
    with torch.no_grad():
        codebook.data[dead] = latents[: int(dead.sum())]


def _rvq_cdist_bf16() -> None:
    codebooks = [torch.randn(16, 8).to(bf16) for _ in range(2)]
    residual = torch.randn(32, 8).to(bf16)
    for codebook in codebooks:
        idx = torch.cdist(residual, codebook, compute_mode="donot_use_mm_for_euclid_dist").argmin(-1)  # exact
        residual = residual - codebook[idx]


def _rvq_min_values_as_codes() -> None:
    codebook = torch.randn(16, 8)
    latents = torch.randn(32, 8)
    dist = (latents[:, None] - codebook[None]).pow(2).sum(-1)
    codes = dist.min(-1)[0]  # the values, not the indices
    F.embedding(codes, codebook)


def _fp8_latent_dequant() -> None:
    latents = (torch.randn(1, 8, 4, 4) * 4).to(torch.float8_e4m3fn)  # latents cached in fp8 to train the prior
    step = torch.full((1, 8, 1, 1), 0.5, dtype=bf16)
    latents * step


def _block_transform_bmm() -> None:
    basis = nn.Parameter(torch.linalg.qr(torch.randn(16, 16))[0].expand(4, 16, 16).clone())  # learned per-band basis
    blocks = torch.randn(4, 10, 16).to(bf16)
    torch.bmm(blocks, basis)


# --- attention and recurrent entropy models


def _entroformer_causal_mask() -> None:
    attn = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    tokens = torch.randn(1, 6, 16).to(bf16)
    mask = torch.triu(torch.full((6, 6), float("-inf")), 1)  # built in fp32
    attn(tokens, tokens, tokens, attn_mask=mask)


def _temporal_context_fp32_reference() -> None:
    query = torch.randn(1, 2, 6, 8).to(bf16)
    reference = torch.randn(1, 2, 6, 8)  # the previous frame's features cached fp32 in the decoded-picture buffer
    F.scaled_dot_product_attention(query, reference, reference)


def _video_latent_lstm() -> None:
    temporal_prior = nn.LSTM(8, 16, batch_first=True)
    latents = torch.randn(1, 5, 8).to(bf16)  # per-frame hyper-latents from the bf16 encoder
    temporal_prior(latents)


# --- rate-distortion evaluation


def _psnr_uint8() -> None:
    original = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8)
    decoded = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8)
    mse = ((original - decoded) ** 2).mean()
    _ = 10 * torch.log10(255**2 / mse)


def _ms_ssim_avgpool_uint8() -> None:
    decoded = torch.randint(0, 256, (1, 3, 16, 16), dtype=torch.uint8)
    F.avg_pool2d(decoded, 2)  # the downsampling between MS-SSIM scales


# --- bit-plane and bitstream packing


def _bitplane_shift_bf16() -> None:
    q = torch.round(torch.randn(1, 8, 4, 4) * 10).abs().to(bf16)  # symbols kept in the model's dtype
    planes = [(q >> k) for k in range(8)]
    torch.stack(planes)


def _lsb_plane_float_symbols() -> None:
    q = torch.round(torch.randn(64) * 10).abs()
    q & 1


def _side_info_numpy_bf16() -> None:
    scales = torch.rand(8).to(bf16) + 0.1
    header = np.array([4, 4], dtype=np.uint16).tobytes()
    _ = header + scales.numpy().tobytes()


CASES: dict[str, LiveCase] = {
    # --- GDN layers and the transforms
    # GDN as a 1x1 conv of x^2 with gamma: gamma and beta kept fp32 (lower-bounded), x from the bf16 encoder conv
    "gdn-gamma-fp32-bf16-input": case(_gdn_gamma_kept_fp32, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # GDN with gamma cast to the input's dtype but beta, passed as the conv bias, left fp32
    "gdn-beta-fp32-as-conv-bias": case(_gdn_beta_kept_fp32, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # decoder side: y_hat rebuilt from int symbols in fp32 and fed to the bf16 masked-conv context model
    "context-model-fp32-y-hat": case(_context_model_fp32_y_hat, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a synthesis block's GroupNorm cast to bf16, its input from an fp32 pixel-shuffle branch
    "synthesis-groupnorm-bf16-fp32-branch": case(_groupnorm_synthesis_block, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- entropy bottleneck and hyperprior
    # factorized prior: softplus(matrix) (fp32 aux parameter) matmul'ed with the bf16 latents
    "factorized-prior-matrix-fp32": case(_factorized_prior_matrices_fp32, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # continuous variable rate: lerp between fp32 gain vectors with a bf16 fractional rate level
    "variable-rate-gain-lerp-bf16-weight": case(_variable_rate_gain_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the entropy bottleneck's quantiles halved to save memory, trained through GradScaler
    "entropy-bottleneck-half-grad-scaler": case(_entropy_bottleneck_half_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # rate estimate from a pmf of sigmoid differences in fp16: a saturated channel's bins all 0, 0/0 NaN probs
    "pmf-fp16-saturated-channel-nan": case(_pmf_fp16_rate_estimate, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a codec built on meta; its non-persistent symbol offset buffer stays on meta after load_state_dict(assign=True)
    "meta-offset-buffer-after-assign": case(_meta_offset_buffer, "device_mismatch",
        grade="correct", grade_at_freeze="correct"),
    # --- CDF tables and range coding
    # symbol frequencies (int32) normalised in place by their total
    "frequency-table-div-in-place": case(_frequency_table_normalised_in_place, "result_cast", "f32", "int32",
        grade="correct", grade_at_freeze="correct"),
    # quantized CDF: round(cumsum(pmf) * 2^16) written with out= into an int32 CDF table
    "quantized-cdf-round-out-int32": case(_quantized_cdf_round_out, "indexed_write_dtype", "int32", "f32",
                                          cause=("out=",), grade="correct", grade_at_freeze="wrong",
        why="At freeze (ea741e9) castwise gave integer_operand [int32, f32] (high confidence). The int32 tensor is "
            "the out= buffer the float rounded CDF is written into, not an integer input to float math: the fix "
            "is a float buffer (or rounding first and casting with .to(torch.int32)), not converting an input."),
    # CDF table of 16-bit precision made in fp16: the total 65536 does not fit
    "cdf-total-65536-fp16": case(_cdf_table_fp16_total, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a 32-bit range coder's initial high 0xFFFFFFFF written into an int32 state tensor
    "range-coder-high-int32": case(_range_coder_high_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # symbol histogram with torch.histc on the int32 symbols
    "symbol-histc-int32": case(_symbol_histogram_histc, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # symbol counts with bincount on the rounded (still float) symbols
    "symbol-bincount-float": case(_symbol_counts_bincount_float, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the range decoder's int32 symbols fed straight to the synthesis transposed conv
    "decoded-int32-symbols-synthesis": case(_decoded_symbols_into_synthesis, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # additive uniform noise drawn with rand_like of cached int32 symbols
    "uniform-noise-rand-like-int32-symbols": case(_uniform_noise_on_symbols, "no_kernel", "int32",
        grade="correct", grade_at_freeze="correct"),
    # --- residual VQ and codebooks
    # dead-code restart: bf16 encoder latents written into the fp32 codebook through a boolean mask
    "rvq-dead-code-restart-bf16": case(_rvq_dead_code_restart, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # RVQ nearest-codeword search with torch.cdist on bf16 residuals and codebooks
    "rvq-cdist-bf16": case(_rvq_cdist_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # RVQ codes taken as dist.min(-1)[0] (the distances), looked up with F.embedding
    "rvq-min-values-as-codes": case(_rvq_min_values_as_codes, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # latents cached in float8_e4m3fn, dequantized by a bf16 quantization step
    "fp8-cached-latents-bf16-step": case(_fp8_latent_dequant, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a learned per-band block transform: bmm of bf16 blocks with the fp32 orthogonal basis
    "learned-block-transform-bmm": case(_block_transform_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- attention and recurrent entropy models
    # Entroformer-style bf16 context model given an fp32 additive causal mask
    "entroformer-causal-mask-fp32": case(_entroformer_causal_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # video codec temporal context: bf16 queries attend to fp32 cached reference-frame features
    "temporal-context-fp32-reference": case(_temporal_context_fp32_reference, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # video codec temporal prior: an fp32 LSTM over bf16 per-frame hyper-latents
    "video-temporal-prior-lstm": case(_video_latent_lstm, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- rate-distortion evaluation
    # PSNR computed on the uint8 original and decoded images
    "psnr-uint8-mean": case(_psnr_uint8, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # MS-SSIM's downsampling between scales run on the uint8 decoded image
    "ms-ssim-avgpool-uint8": case(_ms_ssim_avgpool_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # --- bit-plane and bitstream packing
    # bit planes by >> on symbols kept in bf16
    "bitplane-shift-bf16-symbols": case(_bitplane_shift_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the least-significant bit plane by & 1 on float symbols
    "lsb-plane-and-float-symbols": case(_lsb_plane_float_symbols, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 per-channel scales written into the bitstream's side information through numpy
    "side-info-scales-numpy-bf16": case(_side_info_numpy_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
