"""Held-out live set 102: neural audio codecs and speech tokenizers written by hand in low precision (EnCodec, DAC and
SoundStream-style residual vector quantization with int64 codebook indices, EMA codebook updates and dead-code resets,
codebook perplexity, a MusicGen-style delay pattern and a MaskGIT/SoundStorm-style masked codec LM, multi-scale STFT,
mel and spectral-convergence losses, multi-period and multi-scale STFT discriminators, int16 PCM from wav readers,
bitrate and frame-rate bookkeeping, HuBERT k-means units, bf16/fp16 autocast and casts). Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at e697b0b."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e697b0b"

bf16, f16 = torch.bfloat16, torch.float16
_SAMPLE_RATE = 24_000
_HOP = 320  # encoder strides 2 * 4 * 5 * 8: 75 frames per second at 24 kHz
_CODEBOOK_SIZE = 1024  # 10 bits per code
_N_Q = 8  # residual quantizers: 8 * 10 bits * 75 Hz = 6 kbps
_DIM = 16


def _seeded() -> None:
    torch.manual_seed(0)


def _wav_int16(samples: int = 4 * _HOP, channels: int = 1) -> np.ndarray:
    """What scipy.io.wavfile.read returns for a 16-bit PCM file: int16 samples, (samples, channels)."""
    t = np.arange(samples) / _SAMPLE_RATE
    tone = 0.3 * np.sin(2 * np.pi * 440.0 * t)[:, None].repeat(channels, 1)
    return np.round(tone * 32767).astype(np.int16)


def _nearest_codes(latents: torch.Tensor, codebook: torch.Tensor) -> torch.Tensor:
    return torch.cdist(latents, codebook).argmin(-1)


# --- codebook indices, usage and EMA updates


def _rvq_codes_written_into_zeros_buffer() -> None:
    _seeded()
    latents = torch.randn(12, _DIM)
    codebooks = torch.randn(_N_Q, 64, _DIM)
    codes = torch.zeros(_N_Q, latents.shape[0])  # preallocated without dtype=torch.long
    residual = latents
    for q in range(_N_Q):
        codes[q] = _nearest_codes(residual, codebooks[q])
        residual = residual - codebooks[q][codes[q]]


def _ema_cluster_size_buffer_registered_long() -> None:
    _seeded()

    class EMACodebook(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.decay = 0.99
            self.register_buffer("embed", torch.randn(64, _DIM))
            self.register_buffer("cluster_size", torch.zeros(64, dtype=torch.long))  # "it counts codes"

        @torch.no_grad()
        def update(self, latents: torch.Tensor) -> None:
            codes = _nearest_codes(latents, self.embed)
            counts = torch.bincount(codes, minlength=64)
            self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)

    EMACodebook().update(torch.randn(32, _DIM))


def _dead_code_alive_mask_one_minus_bool() -> None:
    _seeded()
    cluster_size = torch.rand(64) * 4
    embed = torch.randn(64, _DIM)
    dead = cluster_size < 0.5
    alive = 1 - dead
    replacement = torch.randn(64, _DIM)
    embed * alive[:, None] + replacement * dead[:, None]


def _codebook_perplexity_from_one_hot_mean() -> None:
    _seeded()
    codes = torch.randint(0, _CODEBOOK_SIZE, (4, 75))
    avg_probs = F.one_hot(codes.flatten(), _CODEBOOK_SIZE).mean(0)
    torch.exp(-(avg_probs * torch.log(avg_probs + 1e-10)).sum())


def _ema_embed_sum_with_bool_one_hot() -> None:
    _seeded()
    latents = torch.randn(32, _DIM)
    embed = torch.randn(64, _DIM)
    codes = _nearest_codes(latents, embed)
    onehot = codes[:, None] == torch.arange(64)[None]  # (N, K) assignment, left as a comparison
    embed_sum = latents.t() @ onehot
    embed_sum.t()


def _ema_embed_sum_scatter_add_under_autocast() -> None:
    _seeded()
    encoder = nn.Conv1d(1, _DIM, _HOP, stride=_HOP)
    embed_sum = torch.zeros(64, _DIM)  # fp32 running sums outside the autocast region's reach
    embed = torch.randn(64, _DIM)
    with torch.autocast("cpu", dtype=bf16):
        latents = encoder(torch.randn(2, 1, 8 * _HOP)).transpose(1, 2).reshape(-1, _DIM)
        codes = _nearest_codes(latents.float(), embed)
        embed_sum.scatter_add_(0, codes[:, None].expand(-1, _DIM), latents)


def _kmeans_codebook_init_with_scipy_on_bf16_latents() -> None:
    from scipy.cluster.vq import kmeans2

    _seeded()
    encoder = nn.Conv1d(1, _DIM, _HOP, stride=_HOP).to(bf16)
    with torch.no_grad():
        latents = encoder(torch.randn(4, 1, 16 * _HOP, dtype=bf16)).transpose(1, 2).reshape(-1, _DIM)
    centroids, _ = kmeans2(latents.numpy(), 64, seed=0, minit="points")
    torch.from_numpy(centroids)


def _code_packing_shift_on_cast_codes() -> None:
    _seeded()
    batch = {"codes": torch.randint(0, _CODEBOOK_SIZE, (2, 75)), "audio": torch.randn(2, 75 * _HOP)}
    batch = {key: value.to(bf16) for key, value in batch.items()}  # the bf16 run casts every tensor of the batch
    codes = batch["codes"]
    codes[0] | (codes[1] << 10)  # two 10-bit codes per 20-bit word of the bitstream


def _grouped_rvq_codebooks_stacked_bmm() -> None:
    _seeded()
    groups = 4
    codebooks = torch.randn(groups, 64, _DIM)  # a plain stacked tensor, not a registered parameter: stays fp32
    encoder = nn.Conv1d(1, groups * _DIM, _HOP, stride=_HOP).to(bf16)
    with torch.no_grad():
        latents = encoder(torch.randn(1, 1, 8 * _HOP, dtype=bf16))[0].reshape(groups, _DIM, -1)
        scores = torch.bmm(codebooks, latents)
        scores.argmax(1)


# --- quantizers, encoder and decoder in low precision


def _dac_quantizer_in_proj_with_autocast_disabled() -> None:
    _seeded()
    encoder = nn.Conv1d(1, 64, _HOP, stride=_HOP)
    in_proj = nn.Conv1d(64, 8, 1)  # factorized codes: project to an 8-dim lookup space
    with torch.autocast("cpu", dtype=bf16):
        z = encoder(torch.randn(1, 1, 8 * _HOP))
        with torch.autocast("cpu", enabled=False):  # "quantize in full precision"
            F.normalize(in_proj(z), dim=1)


def _weight_norm_direction_cast_by_size_policy() -> None:
    _seeded()
    conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(32, 32, 7, padding=3))
    for param in conv.parameters():
        if param.numel() > 1024:  # cast only the big tensors; small ones "don't matter"
            param.data = param.data.to(bf16)
    conv(torch.randn(1, 32, 75, dtype=bf16))


def _encodec_slstm_kept_fp32_after_bf16_convs() -> None:
    _seeded()
    convs = nn.Sequential(nn.Conv1d(1, 32, 8, stride=8), nn.ELU(), nn.Conv1d(32, 64, 40, stride=40)).to(bf16)
    slstm = nn.LSTM(64, 64, num_layers=2)  # left fp32 "because LSTMs are unstable in bf16"
    with torch.no_grad():
        x = convs(torch.randn(1, 1, 8 * _HOP, dtype=bf16))
        y, _ = slstm(x.permute(2, 0, 1))
        y.permute(1, 2, 0) + x


def _seanet_fp32_stem_into_bf16_group_norm() -> None:
    _seeded()
    stem = nn.Conv1d(1, 32, 7, padding=3)  # first and last layers kept fp32 by the precision policy
    body = nn.Sequential(nn.GroupNorm(1, 32), nn.ELU(), nn.Conv1d(32, 32, 3, padding=1)).to(bf16)
    with torch.no_grad():
        body(stem(torch.randn(1, 1, 4 * _HOP)))


def _mimi_transformer_rope_upcasts_q_and_k() -> None:
    _seeded()
    heads, frames, head_dim = 4, 25, 16
    q, k, v = (torch.randn(1, heads, frames, head_dim, dtype=bf16) for _ in range(3))
    inv_freq = 1.0 / (10_000 ** (torch.arange(0, head_dim, 2) / head_dim))
    angles = torch.arange(frames)[:, None] * inv_freq[None]
    cos, sin = angles.cos().repeat(1, 2), angles.sin().repeat(1, 2)  # fp32 tables

    def rotate(x: torch.Tensor) -> torch.Tensor:
        x1, x2 = x.chunk(2, -1)
        return x * cos + torch.cat([-x2, x1], -1) * sin

    F.scaled_dot_product_attention(rotate(q), rotate(k), v, is_causal=True)


def _nearest_code_running_best_distance_f16() -> None:
    _seeded()
    latents = torch.randn(300, _DIM, dtype=f16)
    codebook = torch.randn(_CODEBOOK_SIZE, _DIM, dtype=f16)
    best = torch.full((latents.shape[0],), 1e9, dtype=latents.dtype)  # chunked search over the codebook
    best_idx = torch.zeros(latents.shape[0], dtype=torch.long)
    for start in range(0, _CODEBOOK_SIZE, 256):
        dist = torch.cdist(latents.float(), codebook[start:start + 256].float()).to(latents.dtype)
        d, i = dist.min(-1)
        better = d < best
        best = torch.where(better, d, best)
        best_idx = torch.where(better, i + start, best_idx)


# --- losses and discriminators


def _mel_basis_on_complex_stft() -> None:
    _seeded()
    n_fft = 1024
    audio = torch.randn(1, _SAMPLE_RATE // 4)
    spec = torch.stft(audio, n_fft, 256, window=torch.hann_window(n_fft), return_complex=True)
    mel_basis = torch.rand(80, n_fft // 2 + 1)  # stands in for librosa.filters.mel (float32)
    torch.log(torch.clamp(mel_basis @ spec, min=1e-5))  # the magnitude step forgotten


def _ms_stft_discriminator_fed_complex_spectrogram() -> None:
    _seeded()
    n_fft = 512
    audio = torch.randn(1, _SAMPLE_RATE // 4)
    spec = torch.stft(audio, n_fft, 128, window=torch.hann_window(n_fft), return_complex=True)
    first = nn.Conv2d(1, 32, (3, 9), padding=(1, 4))  # EnCodec's MS-STFT disc. expects real and imag as channels
    first(spec[:, None].transpose(-1, -2))


def _spectral_convergence_on_silent_target() -> None:
    _seeded()
    n_fft = 512
    window = torch.hann_window(n_fft)
    target = torch.zeros(1, 4 * _HOP * 4)  # a clip from the zero-padded end of a file
    estimate = (0.01 * torch.randn(1, target.shape[-1])).requires_grad_()
    with torch.autograd.detect_anomaly():
        y = torch.stft(target, n_fft, 128, window=window, return_complex=True).abs()
        x = torch.stft(estimate, n_fft, 128, window=window, return_complex=True).abs()
        loss = torch.linalg.norm(y - x) / torch.linalg.norm(y)
        loss.backward()


def _halved_period_discriminator_with_grad_scaler() -> None:
    _seeded()
    period = 3
    disc = nn.Sequential(nn.Conv2d(1, 8, (5, 1), (3, 1), padding=(2, 0)), nn.LeakyReLU(0.1),
                         nn.Conv2d(8, 1, (3, 1), padding=(1, 0))).half()  # "fp16 to fit the batch"
    optimizer = torch.optim.AdamW(disc.parameters(), lr=2e-4, betas=(0.8, 0.99))
    scaler = torch.amp.GradScaler("cpu")
    real = torch.randn(2, 1, 4 * _HOP + 1, dtype=f16)
    padded = F.pad(real, (0, period - real.shape[-1] % period), mode="reflect")
    score = disc(padded.view(2, 1, -1, period))
    scaler.scale(torch.mean((1 - score.float()) ** 2)).backward()
    scaler.unscale_(optimizer)


def _vocos_istft_head_complex_from_bf16_parts() -> None:
    _seeded()
    n_fft, hop = 1280, _HOP
    head = nn.Conv1d(64, n_fft + 2, 1).to(bf16)  # WavTokenizer/Vocos-style decoder predicting log-magnitude and phase
    with torch.no_grad():
        x = head(torch.randn(1, 64, 25, dtype=bf16))
        log_mag, phase = x.chunk(2, dim=1)
        mag = torch.exp(log_mag).clamp(max=1e2)
        spec = torch.complex(mag * torch.cos(phase), mag * torch.sin(phase))
        torch.istft(spec.to(torch.complex64), n_fft, hop, window=torch.hann_window(n_fft))


# --- codec language models over the tokens


def _delay_pattern_buffer_targets() -> None:
    _seeded()
    pad_id = _CODEBOOK_SIZE
    codes = torch.randint(0, _CODEBOOK_SIZE, (4, 20))  # 4 codebooks, 20 frames
    delayed = torch.empty(4, 20 + 3).fill_(pad_id)
    for k in range(4):
        delayed[k, k:k + 20] = codes[k]
    logits = torch.randn(4, 20 + 3, _CODEBOOK_SIZE + 1)
    F.cross_entropy(logits.reshape(-1, _CODEBOOK_SIZE + 1), delayed.reshape(-1))


def _codec_tokens_from_uint16_shard_into_embeddings() -> None:
    _seeded()
    shard = np.random.default_rng(0).integers(0, _CODEBOOK_SIZE, (4, 50)).astype(np.uint16)  # np.memmap'd shard
    tokens = torch.from_numpy(shard)
    embeddings = nn.ModuleList(nn.Embedding(_CODEBOOK_SIZE, 32) for _ in range(4))
    sum(embeddings[k](tokens[k]) for k in range(4))


def _maskgit_remask_long_condition() -> None:
    _seeded()
    mask_id = _CODEBOOK_SIZE
    codes = torch.randint(0, _CODEBOOK_SIZE, (1, 75))
    confidence = torch.rand(1, 75)
    n_masked = int(75 * 0.6)
    remask = torch.zeros_like(codes).scatter(1, confidence.topk(n_masked, largest=False).indices, 1)
    torch.where(remask, mask_id, codes)


def _codec_lm_low_temperature_sampling_fp16() -> None:
    _seeded()
    logits = torch.randn(1, _CODEBOOK_SIZE, dtype=f16) * 6  # the fp16 codec LM's last-frame logits
    probs = torch.softmax(logits / 1e-4, dim=-1)  # "near-greedy" temperature
    torch.multinomial(probs, 1)


# --- speech tokenizers


def _hubert_kmeans_units_with_float64_centroids() -> None:
    _seeded()
    centers = np.random.default_rng(0).normal(size=(100, 64))  # km_model.cluster_centers_ after fitting on float64
    c = torch.from_numpy(centers.T)
    c_norm = (c**2).sum(0, keepdim=True)
    features = torch.randn(50, 64)  # HuBERT layer-6 features, fp32
    dist = (features**2).sum(1, keepdim=True) - 2 * torch.matmul(features, c) + c_norm
    dist.argmin(1)


# --- PCM, bitrate and frame-rate bookkeeping


def _dac_float_n_quantizers_slice_codes() -> None:
    _seeded()
    batch = 4
    codes = torch.randint(0, _CODEBOOK_SIZE, (batch, _N_Q, 75))
    n_quantizers = torch.ones((batch,)) * _N_Q + 1  # DAC's quantizer-dropout bookkeeping is float
    dropout = torch.randint(1, _N_Q + 1, (batch,))
    n_quantizers[: batch // 2] = dropout[: batch // 2].float()
    bits = [codes[b, : n_quantizers[b]].numel() * 10 for b in range(batch)]
    sum(bits) / batch


def _sample_lengths_in_pcm_dtype() -> None:
    wavs = [torch.from_numpy(_wav_int16(n)[:, 0]) for n in (40_000, 24_000, 36_000)]
    audio = nn.utils.rnn.pad_sequence(wavs, batch_first=True)
    lengths = torch.tensor([w.shape[0] for w in wavs], dtype=audio.dtype)
    (lengths + _HOP - 1) // _HOP


def _padding_mask_to_frame_rate_avg_pool() -> None:
    lengths = torch.tensor([4 * _HOP, 3 * _HOP])
    sample_mask = torch.arange(4 * _HOP)[None] < lengths[:, None]
    frame_mask = F.avg_pool1d(sample_mask[:, None], _HOP, _HOP) > 0.5
    frame_mask.sum(-1)


def _int16_pcm_standardised_with_std_mean() -> None:
    pcm = torch.from_numpy(_wav_int16(8 * _HOP))[:, 0]
    std, mean = torch.std_mean(pcm)
    (pcm - mean) / (std + 1e-5)


def _tpdf_dither_on_int16_pcm() -> None:
    _seeded()
    pcm = torch.from_numpy(_wav_int16(4 * _HOP))[:, 0]
    pcm + (torch.rand_like(pcm) - torch.rand_like(pcm))  # TPDF dither of +-1 LSB


CASES: dict[str, LiveCase] = {
    # --- codebook indices, usage and EMA updates
    # RVQ encode writes argmin codes into a torch.zeros buffer (float), then looks the codebook up with them
    "rvq-codes-zeros-buffer-codebook-index": case(_rvq_codes_written_into_zeros_buffer, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # EMA codebook's cluster_size buffer registered as int64 "counts", decayed in place with mul_(0.99)
    "ema-cluster-size-long-buffer-decay": case(_ema_cluster_size_buffer_registered_long, "result_cast", "f32",
                                               "int64",
        grade="correct", grade_at_freeze="correct"),
    # dead-code reset: the alive weight computed as 1 - dead on the bool dead-code mask
    "dead-code-alive-one-minus-bool": case(_dead_code_alive_mask_one_minus_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # codebook perplexity from the mean of F.one_hot (int64) assignments
    "codebook-perplexity-one-hot-mean": case(_codebook_perplexity_from_one_hot_mean, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # EMA embed sums by latents.t() @ (codes == arange(K)): a bool one-hot into the matmul
    "ema-embed-sum-bool-one-hot-matmul": case(_ema_embed_sum_with_bool_one_hot, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # EMA embed sums scatter_add_'ed from the bf16 latents of an autocast encoder into fp32 running sums
    "ema-embed-sum-scatter-add-autocast-latents": case(_ema_embed_sum_scatter_add_under_autocast,
                                                       "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # k-means codebook initialisation with scipy's kmeans2 on a bf16 encoder's latents via .numpy()
    "kmeans-init-scipy-bf16-latents": case(_kmeans_codebook_init_with_scipy_on_bf16_latents, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bitstream packing of two 10-bit codes with << and |, after the bf16 run cast the whole batch, codes too
    "code-packing-shift-bf16-cast-batch": case(_code_packing_shift_on_cast_codes, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # group residual VQ: stacked fp32 codebooks bmm'ed with the bf16 encoder's grouped latents
    "grouped-rvq-stacked-codebooks-bmm": case(_grouped_rvq_codebooks_stacked_bmm, "batched_matmul_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- quantizers, encoder and decoder in low precision
    # DAC factorized codes: the quantizer's 1x1 in_proj run with autocast disabled on the bf16 encoder output
    "dac-in-proj-autocast-disabled-bf16-latents": case(_dac_quantizer_in_proj_with_autocast_disabled,
                                                       "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a size-based cast policy turns weight norm's direction v to bf16 and leaves its small gain g fp32
    "weight-norm-direction-cast-by-size": case(_weight_norm_direction_cast_by_size_policy, "op_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # EnCodec SEANet: bf16 conv stack, its SLSTM kept fp32
    "encodec-slstm-fp32-bf16-convs": case(_encodec_slstm_kept_fp32_after_bf16_convs, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SEANet with an fp32 stem conv (policy keeps first/last layers fp32) into the bf16 GroupNorm of the body
    "seanet-fp32-stem-bf16-group-norm": case(_seanet_fp32_stem_into_bf16_group_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Mimi-style transformer: fp32 RoPE cos/sin tables promote q and k to fp32, v stays bf16 in SDPA
    "mimi-rope-fp32-tables-qk-sdpa": case(_mimi_transformer_rope_upcasts_q_and_k, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # chunked nearest-code search initialising the running best distance with 1e9 in the fp16 latents' dtype
    "nearest-code-best-distance-1e9-f16": case(_nearest_code_running_best_distance_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- losses and discriminators
    # mel loss: the mel basis applied to the complex STFT, the magnitude never taken
    "mel-basis-on-complex-stft": case(_mel_basis_on_complex_stft, "matmul_dtype", "complex64", "f32", fix=("abs",),
        grade="correct", grade_at_freeze="partly",
        why=("At freeze (e697b0b) castwise gave matmul_dtype [complex64, f32] (high confidence), kind and dtypes "
             "right, but its fix is to give both operands one dtype (x.to(other.dtype)): a complex input needs "
             "its magnitude taken (spec.abs()) before the mel basis, not a cast, and the fix never says abs")),
    # MS-STFT discriminator's first Conv2d fed the complex spectrogram instead of its real and imaginary parts
    "ms-stft-discriminator-complex-spectrogram": case(_ms_stft_discriminator_fed_complex_spectrogram,
                                                      "conv_weight_dtype", "complex64", "f32", fix=("real",),
        grade="correct", grade_at_freeze="partly",
        why=("At freeze (e697b0b) castwise gave conv_weight_dtype [complex64, f32] (high confidence), kind and "
             "dtypes right, but its fix is to give both operands one dtype (x.to(other.dtype)): a complex "
             "spectrogram must be split into its real and imaginary parts (view_as_real / .real, .imag as "
             "channels) for a real Conv2d, and the fix never says so")),
    # spectral convergence loss without an epsilon on a silent (zero-padded) target clip, under anomaly mode
    "spectral-convergence-silent-target-anomaly": case(_spectral_convergence_on_silent_target, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # multi-period discriminator .half()'d to fit the batch, its optimizer unscaled by GradScaler
    "halved-period-discriminator-grad-scaler": case(_halved_period_discriminator_with_grad_scaler, "unscale_fp16",
                                                    "f16",
        grade="correct", grade_at_freeze="correct"),
    # Vocos-style iSTFT head in bf16 assembling its complex spectrum with torch.complex from the bf16 parts
    "vocos-head-torch-complex-bf16-parts": case(_vocos_istft_head_complex_from_bf16_parts, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- codec language models over the tokens
    # MusicGen-style delay pattern built with torch.empty(...).fill_(pad_id) (float), used as cross_entropy targets
    "delay-pattern-float-buffer-ce-targets": case(_delay_pattern_buffer_targets, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # codec tokens memmapped from a uint16 shard, looked up in the per-codebook embeddings
    "codec-tokens-uint16-shard-embeddings": case(_codec_tokens_from_uint16_shard_into_embeddings,
                                                 "index_tensor_dtype", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # MaskGIT/SoundStorm re-masking: the remask set scattered into zeros_like(codes) (int64) used as where's condition
    "maskgit-remask-int64-where-condition": case(_maskgit_remask_long_condition, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # fp16 codec LM sampled at temperature 1e-4: logits / T overflow fp16, softmax NaN, multinomial raises
    "codec-lm-fp16-low-temperature-multinomial": case(_codec_lm_low_temperature_sampling_fp16, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # --- speech tokenizers
    # HuBERT k-means units: sklearn centroids fitted on float64 features against fp32 HuBERT features by matmul
    "hubert-kmeans-float64-centroids-matmul": case(_hubert_kmeans_units_with_float64_centroids, "matmul_dtype",
                                                   "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- PCM, bitrate and frame-rate bookkeeping
    # DAC's float n_quantizers (ones * n + 1) used to slice each item's codes for the bitrate count
    "dac-float-n-quantizers-slice-codes": case(_dac_float_n_quantizers_slice_codes, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-item sample lengths made in the padded int16 PCM batch's dtype (40000 samples)
    "sample-lengths-int16-pcm-dtype": case(_sample_lengths_in_pcm_dtype, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # the bool sample-level padding mask brought to the 75 Hz frame rate with avg_pool1d
    "padding-mask-frame-rate-avg-pool-bool": case(_padding_mask_to_frame_rate_avg_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int16 PCM from scipy's wavfile standardised with torch.std_mean before converting to float
    "int16-pcm-std-mean-standardise": case(_int16_pcm_standardised_with_std_mean, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # TPDF dither added with rand_like of the already-int16 PCM
    "tpdf-dither-rand-like-int16-pcm": case(_tpdf_dither_on_int16_pcm, "no_kernel", "int16",
        grade="correct", grade_at_freeze="correct"),
}
