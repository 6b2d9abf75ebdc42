"""Held-out live set 77: audio source separation and speech enhancement written by hand in low precision (STFT/iSTFT
with complex spectrograms and complex ratio masks, int16 wav I/O, SI-SDR and PIT (permutation-invariant) losses with
integer permutation indices, Conv-TasNet/DPRNN encoders and decoders, mask estimation under fp16/bf16 autocast,
overlap-add with fold/unfold, VAD masks as bool, loudness normalisation in float64, mixing with random gains). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
c323d85."""

from __future__ import annotations

import itertools

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c323d85"

bf16, f16 = torch.bfloat16, torch.float16
_SR = 8000
_SAMPLES = 4000  # half a second at 8 kHz
_N_SRC = 2
_N_FILTERS, _KERNEL, _STRIDE = 64, 16, 8  # Conv-TasNet encoder basis


def _seeded() -> None:
    torch.manual_seed(0)


def _sources(batch: int = 2) -> torch.Tensor:
    _seeded()
    return 0.1 * torch.randn(batch, _N_SRC, _SAMPLES)


def _pcm(batch: int = 2) -> torch.Tensor:
    """int16 PCM as a wav reader returns it."""
    return (_sources(batch)[:, 0] * 32767).round().to(torch.int16)


def _encoder() -> nn.Conv1d:
    return nn.Conv1d(1, _N_FILTERS, _KERNEL, stride=_STRIDE, bias=False)


def _frame_energies(frames: int = 50) -> torch.Tensor:
    _seeded()
    return torch.rand(2, frames)


# --- Conv-TasNet / DPRNN encoders, masker and decoders


def _loudness_normalised_f64_mixture_into_encoder() -> None:
    mixture = _sources().sum(1)
    mean_square = mixture.double().pow(2).mean(-1, keepdim=True)  # BS.1770-style loudness in float64 for accuracy
    loudness = -0.691 + 10 * torch.log10(mean_square)
    gain = 10 ** ((-23.0 - loudness) / 20)
    normalised = mixture * gain
    _encoder()(normalised[:, None])


def _tied_decoder_fp32_encoder_weight() -> None:
    mixture = _sources().sum(1)
    encoder = _encoder()  # the learned front end is kept in fp32 "for precision"
    masker = nn.Sequential(nn.Conv1d(_N_FILTERS, 128, 1), nn.PReLU(), nn.Conv1d(128, _N_SRC * _N_FILTERS, 1))
    masker = masker.to(bf16)
    w = F.relu(encoder(mixture[:, None])).to(bf16)
    masks = masker(w).view(2, _N_SRC, _N_FILTERS, -1).sigmoid()
    masked = (w[:, None] * masks).flatten(0, 1)
    F.conv_transpose1d(masked, encoder.weight, stride=_STRIDE)  # decoder tied to the encoder's basis


def _gln_groupnorm_bf16_fp32_bottleneck() -> None:
    mixture = _sources().sum(1)
    w = F.relu(_encoder()(mixture[:, None]))
    bottleneck = nn.Conv1d(_N_FILTERS, 128, 1)
    tcn_blocks = nn.ModuleList([nn.GroupNorm(1, 128, eps=1e-8)])  # gLN written as GroupNorm(1, N)
    for block in tcn_blocks:
        block.to(bf16)  # only the TCN stack was cast; the bottleneck before it stayed fp32
    tcn_blocks[0](bottleneck(w))


def _dprnn_chunk_padding_zeros_fp32() -> None:
    _seeded()
    feats = torch.randn(2, 32, 97, dtype=bf16)  # bf16 bottleneck output
    chunk, hop = 20, 10
    gap = chunk - (hop + feats.shape[-1] % chunk) % chunk
    pad = torch.zeros(2, 32, gap)
    feats = torch.cat([feats, pad], -1)
    chunks = feats.unfold(-1, chunk, hop)  # (B, N, S, K)
    intra_rnn = nn.LSTM(32, 16, batch_first=True, bidirectional=True).to(bf16)
    intra_rnn(chunks.permute(0, 2, 3, 1).reshape(-1, chunk, 32))


class _SepFormerIntra(nn.Module):
    def __init__(self, dim: int = 32, length: int = 20) -> None:
        super().__init__()
        position = torch.arange(length)[:, None]
        freq = torch.exp(torch.arange(0, dim, 2) * (-np.log(10000.0) / dim))
        pe = torch.zeros(length, dim)
        pe[:, 0::2] = torch.sin(position * freq)
        pe[:, 1::2] = torch.cos(position * freq)
        self.pe = pe  # a plain attribute, not a registered buffer
        self.attention = nn.MultiheadAttention(dim, 4, batch_first=True)

    def forward(self, chunks: torch.Tensor) -> torch.Tensor:
        x = chunks + self.pe
        return self.attention(x, x, x, need_weights=False)[0]


def _sepformer_positional_encoding_plain_attribute() -> None:
    _seeded()
    block = _SepFormerIntra().to(bf16)
    block(torch.randn(6, 20, 32, dtype=bf16))


def _speakerbeam_fp32_adaptation_into_bf16_conv() -> None:
    _seeded()
    speaker_encoder = nn.Sequential(nn.Linear(40, 64), nn.ReLU(), nn.Linear(64, 128))  # frozen, left fp32
    separator = nn.Conv1d(128, 128, 3, padding=1, bias=False).to(bf16)
    enrolment_fbank = torch.randn(2, 30, 40)
    embedding = speaker_encoder(enrolment_fbank).mean(1)
    hidden = torch.randn(2, 128, 50, dtype=bf16)
    adapted = hidden * embedding[:, :, None]  # multiplicative speaker adaptation layer
    separator(adapted)


def _target_speaker_cross_attention_fp32_enrolment() -> None:
    _seeded()
    mixture_queries = torch.randn(2, 4, 50, 16, dtype=bf16)
    enrolment = torch.randn(2, 4, 30, 16)  # enrolment features cached from the fp32 speaker encoder
    F.scaled_dot_product_attention(mixture_queries, enrolment, enrolment)


# --- STFT, complex spectrograms and masks


def _deep_filter_coefficients_on_numpy_stft() -> None:
    rng = np.random.default_rng(0)
    noisy = rng.standard_normal(_SAMPLES)  # soundfile.read gives float64 by default
    n_fft, hop = 128, 64
    frames = np.lib.stride_tricks.sliding_window_view(noisy, n_fft)[::hop] * np.hanning(n_fft)
    spec = torch.from_numpy(np.fft.rfft(frames, axis=-1)).T  # (F, T) complex128
    order = 3
    spec_unfolded = F.pad(spec, (order - 1, 0)).unfold(-1, order, 1)  # (F, T, order)
    _seeded()
    head_out = torch.randn(spec.shape[0], spec.shape[1], order, 2)
    coefficients = torch.view_as_complex(head_out)  # complex64 from the DF head
    torch.einsum("ftk,ftk->ft", coefficients, spec_unfolded)


def _mvdr_solve_complex128_steering() -> None:
    _seeded()
    channels, freqs, frames = 4, 65, 40
    spec = torch.randn(channels, freqs, frames, dtype=torch.complex64)
    noise_mask = torch.rand(freqs, frames)
    psd_noise = torch.einsum("ft,cft,dft->fcd", noise_mask, spec, spec.conj()) / frames
    psd_noise = psd_noise + 1e-3 * torch.eye(channels)
    mic_x = np.array([0.0, 0.05, 0.10, 0.15])
    freq_hz = np.linspace(0, _SR / 2, freqs)
    delays = mic_x * np.cos(np.pi / 3) / 343.0
    steering = torch.from_numpy(np.exp(-2j * np.pi * freq_hz[:, None] * delays[None]))[..., None]  # complex128
    torch.linalg.solve(psd_noise, steering)


def _multi_resolution_stft_loss_bf16_estimates() -> None:
    _seeded()
    estimate = torch.randn(2, _SAMPLES, dtype=bf16)  # the bf16 separator's output
    reference = torch.randn(2, _SAMPLES)
    loss = 0.0
    for n_fft in (512, 256, 128):
        window = torch.hann_window(n_fft, dtype=estimate.dtype)
        est_mag = torch.stft(estimate, n_fft, n_fft // 4, window=window, return_complex=True).abs()
        ref_mag = torch.stft(reference, n_fft, n_fft // 4, window=window.float(), return_complex=True).abs()
        loss = loss + F.l1_loss(est_mag.log1p(), ref_mag.log1p())


def _dccrn_e_mask_angle_under_fp16_autocast() -> None:
    _seeded()
    freqs, frames = 33, 20
    mask_head = nn.Linear(64, freqs * 2)
    features = torch.randn(2, frames, 64)
    with torch.autocast("cpu", dtype=f16):
        raw = mask_head(features)
    mask = torch.view_as_complex(raw.view(2, frames, freqs, 2))
    magnitude = torch.tanh(mask.abs())
    phase = torch.angle(mask)
    torch.polar(magnitude.float(), phase.float())


# --- overlap-add, framing and int16 PCM


def _overlap_add_index_add_autocast_frames() -> None:
    _seeded()
    win, hop, frames = 16, 8, 499
    decoder = nn.Linear(_N_FILTERS, win, bias=False)
    masked = torch.randn(2, frames, _N_FILTERS)
    with torch.autocast("cpu", dtype=bf16):
        segments = decoder(masked)  # (B, T, win)
    out = torch.zeros(2, (frames - 1) * hop + win)
    index = (torch.arange(frames)[:, None] * hop + torch.arange(win)).flatten()
    out.index_add_(1, index, segments.flatten(1))


def _overlap_add_float_hop_index() -> None:
    _seeded()
    win, frames = 16, 499
    hop = win / 2
    segments = torch.randn(2, frames, win)
    out = torch.zeros(2, _SAMPLES)
    index = (torch.arange(frames)[:, None] * hop + torch.arange(win)).flatten()
    out.index_add_(1, index, segments.flatten(1))


def _pcm_framed_with_f_unfold_int16() -> None:
    pcm = _pcm()
    win, hop = 256, 128
    frames = F.unfold(pcm[:, None, None, :], kernel_size=(1, win), stride=(1, hop))  # (B, win, T)
    frames * torch.hann_window(win)[:, None]


def _enhanced_pcm_clamped_after_int16_cast() -> None:
    _seeded()
    enhanced = torch.randn(2, _SAMPLES) * 0.3
    pcm = torch.round(enhanced * 32768).to(torch.int16)
    pcm.clamp(-32768, 32768)


def _int16_mixture_in_place_random_gain() -> None:
    pcm = _pcm()
    speech, interference = pcm[0].clone(), pcm[1]
    gain = torch.empty(1).uniform_(0.3, 1.0)
    mixture = speech
    mixture += gain * interference


def _bss_eval_numpy_bf16_estimates() -> None:
    _seeded()
    references = torch.randn(_N_SRC, _SAMPLES)
    estimates = torch.randn(_N_SRC, _SAMPLES, dtype=bf16)  # the bf16 separator's output
    ref, est = references.numpy(), estimates.detach().numpy()
    projection = (est * ref).sum(-1, keepdims=True) / (ref**2).sum(-1, keepdims=True) * ref
    10 * np.log10((projection**2).sum(-1) / ((est - projection) ** 2).sum(-1))


# --- SI-SDR and PIT


def _si_sdr_projection_bmm() -> None:
    _seeded()
    estimates = torch.randn(2 * _N_SRC, _SAMPLES, dtype=bf16)
    references = torch.randn(2 * _N_SRC, _SAMPLES)
    references = references - references.mean(-1, keepdim=True)
    dot = torch.bmm(estimates[:, None, :], references[:, :, None]).squeeze(-1)
    dot / references.pow(2).sum(-1, keepdim=True)


def _si_sdr_fp16_unnormalised_pcm_anomaly() -> None:
    pcm = _pcm()
    estimate = (pcm.float() + 50 * torch.randn(pcm.shape)).half().requires_grad_()
    reference = pcm.half()  # int16 values given to the fp16 loss without / 32768
    with torch.autograd.detect_anomaly():
        alpha = (estimate * reference).sum(-1, keepdim=True) / reference.pow(2).sum(-1, keepdim=True)
        target = alpha * reference
        noise = estimate - target
        si_sdr = 10 * torch.log10(target.pow(2).sum(-1) / noise.pow(2).sum(-1))
        (-si_sdr.mean()).backward()


def _pit_losses(estimates: torch.Tensor, references: torch.Tensor,
                perms: torch.Tensor) -> torch.Tensor:
    pair = ((estimates[:, :, None] - references[:, None]) ** 2).mean(-1)  # (B, est, ref)
    return torch.stack([pair[:, perm, torch.arange(_N_SRC)].mean(-1) for perm in perms.long()], -1)


def _pit_one_hot_permutation_einsum() -> None:
    estimates, references = _sources(), _sources().flip(1)
    perms = torch.tensor(list(itertools.permutations(range(_N_SRC))))
    best = _pit_losses(estimates, references, perms).argmin(-1)
    permutation = F.one_hot(perms[best], _N_SRC)  # (B, ref, est)
    torch.einsum("bij,bjt->bit", permutation, estimates)


def _pit_permutation_table_int8_gather() -> None:
    estimates, references = _sources(), _sources().flip(1)
    perms = torch.tensor(list(itertools.permutations(range(_N_SRC))), dtype=torch.int8)  # a small table
    best = perms[_pit_losses(estimates, references, perms).argmin(-1)]  # (B, C)
    torch.gather(estimates, 1, best[:, :, None].expand(-1, -1, _SAMPLES))


def _pit_permutation_table_uint8_advanced_index() -> None:
    estimates, references = _sources(3), _sources(3).flip(1)
    perms = torch.from_numpy(np.array(list(itertools.permutations(range(_N_SRC))), dtype=np.uint8))
    best = perms[_pit_losses(estimates, references, perms).argmin(-1)]  # (B, C) uint8
    estimates[torch.arange(3)[:, None], best]


def _random_gains_like_int_lengths_uniform() -> None:
    sources = _sources()
    lengths = torch.tensor([_SAMPLES, _SAMPLES - 800])
    gains = lengths.new_empty(sources.shape[:2]).uniform_(0.25, 1.0)
    (gains[..., None] * sources).sum(1)


def _mixing_gains_numpy_f64_matmul() -> None:
    sources = _sources()
    rng = np.random.default_rng(0)
    gains = torch.from_numpy(rng.uniform(0.25, 1.0, size=(2, _N_SRC)))
    (gains[:, None, :] @ sources).squeeze(1)


# --- VAD masks and loudness


def _vad_reflect_padded_bool() -> None:
    energies = _frame_energies(_SAMPLES // 80)
    vad = (energies > 0.3).repeat_interleave(80, -1)  # sample-level bool VAD
    n_fft = 256
    F.pad(vad[:, None], (n_fft // 2, n_fft // 2), mode="reflect")  # align with stft(center=True)


def _vad_median_smoothing_bool() -> torch.Tensor:
    vad = _frame_energies() > 0.4
    return F.pad(vad, (2, 2)).unfold(-1, 5, 1).median(-1).values


def _vad_float_mask_and_pitch() -> None:
    energies = _frame_energies()
    speech = (energies > 0.3).float()  # kept float to multiply the frames later
    voiced = _frame_energies().flip(-1) > 0.2
    speech & voiced


def _loudness_gating_padded_fp16_floor() -> torch.Tensor:
    _seeded()
    block_loudness = [torch.randn(n, dtype=f16) * 5 - 30 for n in (12, 9)]  # 400 ms block loudness, LUFS
    longest = max(len(blocks) for blocks in block_loudness)
    padded = torch.stack([F.pad(blocks, (0, longest - len(blocks)), value=-1e5) for blocks in block_loudness])
    return padded > -70.0


def _overlap_detector_uint8_frame_labels() -> None:
    _seeded()
    logits = torch.randn(2, 3, 50)  # silence / single speaker / overlap per frame
    labels = torch.from_numpy(np.random.default_rng(0).integers(0, 3, size=(2, 50)).astype(np.uint8))
    F.cross_entropy(logits, labels)


def _noise_psd_recursive_average_lerp() -> None:
    _seeded()
    noise_psd = torch.full((65,), 1e-3)  # running noise estimate kept as a plain fp32 tensor
    frame_power = torch.rand(20, 65, dtype=bf16)  # |Y|^2 from the bf16 enhancement front end
    for power in frame_power:
        noise_psd.lerp_(power, 0.05)


CASES: dict[str, LiveCase] = {
    # loudness normalisation computed in float64 (BS.1770 style), the f64 mixture fed to the fp32 Conv-TasNet encoder
    "loudness-f64-mixture-into-tasnet-encoder": case(_loudness_normalised_f64_mixture_into_encoder,
                                                     "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Conv-TasNet decoder tied to the fp32 encoder's weight by conv_transpose1d, the masked features from a bf16 masker
    "tied-decoder-conv-transpose-fp32-encoder-weight": case(_tied_decoder_fp32_encoder_weight, "conv_weight_dtype",
                                                            "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # gLN written as GroupNorm(1, N), cast to bf16 with the TCN stack while the fp32 bottleneck conv feeds it
    "gln-groupnorm-bf16-fp32-bottleneck": case(_gln_groupnorm_bf16_fp32_bottleneck, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DPRNN segmentation pads bf16 features with torch.zeros (fp32); cat promotes, the bf16 intra-chunk LSTM gets fp32
    "dprnn-chunk-padding-zeros-fp32-lstm": case(_dprnn_chunk_padding_zeros_fp32, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SepFormer intra-chunk block: sinusoidal PE a plain attribute left fp32 by .to(bf16), promoting the MHA input
    "sepformer-pe-plain-attribute-bf16-mha": case(_sepformer_positional_encoding_plain_attribute, "matmul_dtype",
                                                  "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SpeakerBeam multiplicative adaptation by an fp32 speaker embedding, promoting the input of the bf16 separator conv
    "speakerbeam-fp32-adaptation-bf16-conv": case(_speakerbeam_fp32_adaptation_into_bf16_conv, "conv_weight_dtype",
                                                  "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # target speaker extraction: bf16 mixture queries attend to enrolment features cached from the fp32 speaker encoder
    "tse-cross-attention-fp32-enrolment": case(_target_speaker_cross_attention_fp32_enrolment, "sdpa_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # deep filtering: complex64 DF coefficients einsum'd with a complex128 numpy STFT of soundfile's float64 audio
    "deep-filter-complex64-coefs-numpy-complex128-stft": case(_deep_filter_coefficients_on_numpy_stft,
                                                              "matmul_dtype", "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # MVDR: complex64 noise PSD solved against a complex128 plane-wave steering vector built in numpy
    "mvdr-solve-complex128-steering": case(_mvdr_solve_complex128_steering, "op_dtype", "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # multi-resolution STFT loss on the bf16 separator's estimates (window made in the estimate's dtype)
    "multi-resolution-stft-loss-bf16-estimates": case(_multi_resolution_stft_loss_bf16_estimates, "no_kernel",
                                                      "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DCCRN E-mask: the complex mask viewed from an fp16 autocast head is complex32, its phase taken with torch.angle
    "dccrn-e-mask-angle-complex32": case(_dccrn_e_mask_angle_under_fp16_autocast, "no_kernel", "complex32",
        grade="correct", grade_at_freeze="correct"),
    # overlap-add by index_add_ into an fp32 buffer of decoder segments made under bf16 autocast
    "overlap-add-index-add-autocast-segments": case(_overlap_add_index_add_autocast_frames, "indexed_write_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # overlap-add sample indices built with hop = win / 2 (a float) and given to index_add_
    "overlap-add-float-hop-index": case(_overlap_add_float_hop_index, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # int16 PCM framed with F.unfold (im2col) for a hand-written STFT before converting to float
    "pcm-int16-framed-f-unfold": case(_pcm_framed_with_f_unfold_int16, "integer_operand", "int16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (c323d85) castwise gave integer_operand [int16] (high confidence). F.unfold is called here "
             "on its own to frame the int16 PCM: its im2col only copies samples into overlapping columns, and "
             "torch has no int16 im2col kernel, an op that moves data lacking an integer kernel (no_kernel; "
             "Tensor.unfold frames int16 without one); the rules read im2col_out_cpu not implemented for Short as "
             "integer data fed to a convolution's float math. The fix they give (convert to float, / 32768) would "
             "also clear it. Expectation corrected after grading from no_kernel to integer_operand: the corpus "
             "already files F.unfold (im2col) of integer data as integer_operand (live_held_out_2 "
             "unfold-uint8-patches); the frozen grade is kept.")),
    # enhanced audio cast to int16 first, then clipped with clamp(-32768, 32768)
    "enhanced-pcm-int16-clamp-32768": case(_enhanced_pcm_clamped_after_int16_cast, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # an int16 utterance mixed in place with a randomly gained int16 interferer (+=)
    "int16-mixture-in-place-random-gain": case(_int16_mixture_in_place_random_gain, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # SI-SDR of the bf16 separator's estimates in numpy (mir_eval style)
    "bss-eval-numpy-bf16-estimates": case(_bss_eval_numpy_bf16_estimates, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SI-SDR scale projection by torch.bmm of bf16 estimates and fp32 zero-mean references
    "si-sdr-projection-bmm-bf16-estimates": case(_si_sdr_projection_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 SI-SDR on int16-scale values (no / 32768): the energies overflow to inf, inf/inf NaN caught by anomaly mode
    "si-sdr-fp16-unnormalised-pcm-anomaly": case(_si_sdr_fp16_unnormalised_pcm_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # PIT: the best permutation as an int64 one-hot matrix einsum'd with the float estimates to reorder them
    "pit-one-hot-permutation-einsum": case(_pit_one_hot_permutation_einsum, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # PIT: the permutation table stored as int8, its best rows used as gather's index
    "pit-permutation-table-int8-gather": case(_pit_permutation_table_int8_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # PIT: the permutation table from numpy as uint8, used as an advanced index (read as a mask)
    "pit-permutation-table-uint8-advanced-index": case(_pit_permutation_table_uint8_advanced_index,
                                                       "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # random mixing gains allocated with new_empty of the int64 lengths tensor, filled with uniform_
    "random-gains-new-empty-int-lengths-uniform": case(_random_gains_like_int_lengths_uniform, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # random mixing gains from numpy (float64) applied to fp32 sources with @
    "mixing-gains-numpy-f64-matmul": case(_mixing_gains_numpy_f64_matmul, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a sample-level bool VAD reflect-padded by n_fft // 2 to align with a centred STFT
    "vad-bool-reflect-pad": case(_vad_reflect_padded_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # frame-level bool VAD smoothed with a 5-frame median over unfold windows
    "vad-bool-median-smoothing": case(_vad_median_smoothing_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (c323d85) castwise gave integer_operand [bool] (high confidence). The 5-frame median of a "
             "bool VAD only selects one of the values it is given, no float math: torch's median has no bool "
             "kernel, the corpus's no_kernel for an op taking bool data as it is (argmax, sum, where); the rules "
             "read median_out not implemented for Bool as bool data fed to float arithmetic. The fix is the median "
             "of vad.to(torch.uint8) (or a majority vote, mean > 0.5 of the float mask) turned back to bool.")),
    # a float VAD mask combined with a bool voicing mask by `&`
    "vad-float-mask-and-voicing": case(_vad_float_mask_and_pitch, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # loudness gating: fp16 block loudness padded with -1e5 so padding never passes the -70 LUFS gate
    "loudness-gating-pad-fp16-minus-1e5": case(_loudness_gating_padded_fp16_floor, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # overlapped-speech detection: per-frame 3-class labels read from numpy as uint8 given to cross_entropy
    "overlap-detector-uint8-frame-labels": case(_overlap_detector_uint8_frame_labels, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # noise PSD by recursive averaging: an fp32 running estimate lerp_'ed toward bf16 frame powers
    "noise-psd-recursive-average-lerp-bf16": case(_noise_psd_recursive_average_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
