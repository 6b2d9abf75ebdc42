"""Held-out live set 131: speech enhancement and source separation written by hand in low precision (int16 PCM read
from WAV bytes, complex STFT masks and cRM targets, istft of complex64 and complex32 spectra, SI-SDR losses in fp16,
permutation-invariant training with int64 permutation tables, bf16 autocast around conformer and Demucs-style
separators, MVDR and ERB-domain post-processing), the situations sets 21 and 77 did not have. Defects planted by a
helper who never read the rules, written before castwise ran and graded once with the rules frozen at b21193f2."""

from __future__ import annotations

import io
import itertools
import wave

import numpy as np
import torch
import torch.nn.functional as F
from scipy.optimize import linear_sum_assignment
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b21193f2"

bf16, f16 = torch.bfloat16, torch.float16
_RATE = 8000
_SAMPLES = 4000
_N_FFT = 128
_HOP = 32
_BINS = _N_FFT // 2 + 1


def _seeded() -> None:
    torch.manual_seed(0)


def _wav_bytes(frequency: float = 220.0, seconds: float = 0.5) -> bytes:
    """A mono 16-bit WAV file as the dataset stores it (what soundfile/wave would read from disk)."""
    t = np.arange(int(_RATE * seconds)) / _RATE
    pcm = (0.3 * np.sin(2 * np.pi * frequency * t) * 32767).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(_RATE)
        wav.writeframes(pcm.tobytes())
    return buffer.getvalue()


def _read_pcm(data: bytes) -> torch.Tensor:
    """The hand-written WAV reader: the raw frames as int16, no scaling."""
    with wave.open(io.BytesIO(data)) as wav:
        frames = wav.readframes(wav.getnframes())
    return torch.from_numpy(np.frombuffer(frames, dtype="<i2").copy())


def _sources(batch: int = 2, speakers: int = 2) -> torch.Tensor:
    """Float sources in [-1, 1]: (batch, speakers, samples)."""
    generator = torch.Generator().manual_seed(0)
    t = torch.arange(_SAMPLES) / _RATE
    tones = torch.stack([torch.sin(2 * torch.pi * (180.0 + 90.0 * k) * t) for k in range(speakers)])
    noise = 0.05 * torch.randn(batch, speakers, _SAMPLES, generator=generator)
    return 0.5 * tones[None] + noise


def _stft(waveform: torch.Tensor) -> torch.Tensor:
    return torch.stft(waveform, _N_FFT, _HOP, window=torch.hann_window(_N_FFT), return_complex=True)


def _pairwise_neg_si_sdr(estimates: torch.Tensor, references: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """(batch, est, ref) negative SI-SDR for every estimate/reference pair."""
    estimates = estimates - estimates.mean(-1, keepdim=True)
    references = references - references.mean(-1, keepdim=True)
    dot = torch.einsum("bit,bjt->bij", estimates, references)
    energy = (references**2).sum(-1)[:, None, :] + eps
    alpha = dot / energy
    target = alpha[..., None] * references[:, None]
    noise = estimates[:, :, None] - target
    ratio = (target**2).sum(-1) / ((noise**2).sum(-1) + eps)
    return -10 * torch.log10(ratio + eps)


def _perms(speakers: int, dtype: torch.dtype = torch.long) -> torch.Tensor:
    return torch.tensor(list(itertools.permutations(range(speakers))), dtype=dtype)


def _loss_set(pairwise: torch.Tensor, perms: torch.Tensor) -> torch.Tensor:
    """(batch, n_perms): the mean pairwise loss of each permutation."""
    speakers = pairwise.shape[-1]
    return pairwise[:, torch.arange(speakers), perms].mean(-1)


class _TinyConformerSeparator(nn.Module):
    """A one-block conformer mask estimator over log-magnitude frames (macaron FFN, MHSA, conv module)."""

    def __init__(self, bins: int = _BINS, dim: int = 32, speakers: int = 2, complex_mask: bool = False) -> None:
        super().__init__()
        self.speakers, self.bins, self.complex_mask = speakers, bins, complex_mask
        self.inp = nn.Linear(bins, dim)
        self.ffn1 = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.SiLU(), nn.Linear(2 * dim, dim))
        self.attn_norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.conv_norm = nn.LayerNorm(dim)
        self.pointwise1 = nn.Conv1d(dim, 2 * dim, 1)
        self.depthwise = nn.Conv1d(dim, dim, 7, padding=3, groups=dim)
        self.bn = nn.BatchNorm1d(dim)
        self.pointwise2 = nn.Conv1d(dim, dim, 1)
        self.out_norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, speakers * bins * (2 if complex_mask else 1))

    def forward(self, features: torch.Tensor, attn_mask: torch.Tensor | None = None) -> torch.Tensor:
        x = self.inp(features)
        x = x + 0.5 * self.ffn1(x)
        h = self.attn_norm(x)
        x = x + self.attn(h, h, h, attn_mask=attn_mask)[0]
        h = self.conv_norm(x).transpose(1, 2)
        h = F.glu(self.pointwise1(h), dim=1)
        h = self.pointwise2(F.silu(self.bn(self.depthwise(h))))
        x = self.out_norm(x + h.transpose(1, 2))
        batch, frames, _ = x.shape
        if self.complex_mask:
            return self.out(x).reshape(batch, frames, self.speakers, self.bins, 2)
        return torch.sigmoid(self.out(x)).reshape(batch, frames, self.speakers, self.bins)


class _TinyDemucs(nn.Module):
    """A two-level Demucs-style waveform U-Net (conv encoder with GLU, BLSTM bottleneck, transposed-conv decoder)."""

    def __init__(self, channels: int = 8, speakers: int = 2) -> None:
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv1d(1, channels, 8, 4), nn.ReLU(), nn.Conv1d(channels, 2 * channels, 1),
                                  nn.GLU(1))
        self.enc2 = nn.Sequential(nn.Conv1d(channels, 2 * channels, 8, 4), nn.ReLU(),
                                  nn.Conv1d(2 * channels, 4 * channels, 1), nn.GLU(1))
        self.lstm = nn.LSTM(2 * channels, channels, bidirectional=True, batch_first=True)
        self.dec2 = nn.Sequential(nn.Conv1d(2 * channels, 4 * channels, 1), nn.GLU(1),
                                  nn.ConvTranspose1d(2 * channels, channels, 8, 4), nn.ReLU())
        self.dec1 = nn.Sequential(nn.Conv1d(channels, 2 * channels, 1), nn.GLU(1),
                                  nn.ConvTranspose1d(channels, speakers, 8, 4))

    def forward(self, mixture: torch.Tensor) -> torch.Tensor:
        skip1 = self.enc1(mixture)
        skip2 = self.enc2(skip1)
        x = self.lstm(skip2.transpose(1, 2))[0].transpose(1, 2)
        x = self.dec2(x + skip2)
        x = x + skip1[..., : x.shape[-1]]
        out = self.dec1(x)
        return F.pad(out, (0, mixture.shape[-1] - out.shape[-1]))  # back to the input length


# --- int16 PCM, masks, targets and PIT permutation indices


def _wav_bytes_int16_into_bf16_demucs_encoder() -> None:
    _seeded()
    model = _TinyDemucs().to(bf16)
    pcm = _read_pcm(_wav_bytes())
    model(pcm[None, None])


def _peak_normalise_int16_by_quantile() -> None:
    pcm = _read_pcm(_wav_bytes(frequency=330.0))
    peak = pcm.abs().quantile(0.999)  # robust peak: ignore a few clipped samples
    (pcm / peak * 0.9).clamp(-1.0, 1.0)


def _ideal_binary_mask_bool_target() -> None:
    _seeded()
    sources = _sources(batch=2)
    speech, noise = sources[:, 0], sources[:, 1]
    speech_mag, noise_mag = _stft(speech).abs(), _stft(noise).abs()
    ibm = speech_mag > noise_mag  # ideal binary mask: speech dominates the bin
    noisy_mag = _stft(speech + noise).abs()
    estimator = nn.Linear(_BINS, _BINS)
    logits = estimator(torch.log1p(noisy_mag).transpose(1, 2)).transpose(1, 2)
    F.binary_cross_entropy_with_logits(logits, ibm)


def _pit_best_permutation_from_min_values() -> None:
    _seeded()
    references = _sources(batch=3, speakers=3)
    estimates = references.flip(1) + 0.1 * torch.randn_like(references)
    perms = _perms(3)
    loss_set = _loss_set(_pairwise_neg_si_sdr(estimates, references), perms)
    best = loss_set.min(dim=1)[0]  # meant the argmin: [1]
    best_perm = perms[best]
    estimates[torch.arange(3)[:, None], best_perm]


def _pit_loss_set_one_hot_from_perms_new_zeros() -> None:
    _seeded()
    references = _sources(batch=2, speakers=3)
    estimates = references + 0.1 * torch.randn_like(references)
    pairwise = _pairwise_neg_si_sdr(estimates, references)
    perms = _perms(3)
    perms_one_hot = perms.new_zeros((*perms.size(), 3)).scatter_(2, perms[..., None], 1)  # meant pairwise.new_zeros
    loss_set = torch.einsum("bij,pij->bp", pairwise, perms_one_hot) / 3
    loss_set.min(dim=1)


def _pit_permutation_usage_histogram() -> None:
    _seeded()
    references = _sources(batch=4, speakers=3)
    estimates = references[:, torch.tensor([2, 0, 1])] + 0.1 * torch.randn_like(references)
    perms = _perms(3)
    best = _loss_set(_pairwise_neg_si_sdr(estimates, references), perms).argmin(dim=1)
    usage = torch.histc(best, bins=len(perms), min=0, max=len(perms) - 1)  # a collapsed PIT picks one permutation
    (usage / usage.sum()).tolist()


def _pit_inverse_permutation_scatter_into_zeros() -> None:
    _seeded()
    references = _sources(batch=2, speakers=3)
    estimates = references[:, torch.tensor([1, 2, 0])] + 0.1 * torch.randn_like(references)
    perms = _perms(3)
    best_perm = perms[_loss_set(_pairwise_neg_si_sdr(estimates, references), perms).argmin(dim=1)]
    inverse = torch.zeros(2, 3).scatter_(1, best_perm, torch.arange(3).expand(2, 3))  # reference order per estimate
    references[torch.arange(2)[:, None], inverse.long()]


def _pit_int32_permutation_table_take_along_dim() -> None:
    _seeded()
    references = _sources(batch=2, speakers=4)
    estimates = references[:, torch.tensor([3, 1, 0, 2])] + 0.1 * torch.randn_like(references)
    perms = _perms(4, dtype=torch.int32)  # the 4! x 4 table kept int32 to save memory
    best_perm = perms[_loss_set(_pairwise_neg_si_sdr(estimates, references), perms.long()).argmin(dim=1)]
    torch.take_along_dim(estimates, best_perm[..., None], dim=1)


def _noise_bins_by_inverting_float_speech_mask() -> None:
    _seeded()
    sources = _sources(batch=1)
    speech_power, noise_power = _stft(sources[:, 0]).abs() ** 2, _stft(sources[:, 1]).abs() ** 2
    irm = (speech_power / (speech_power + noise_power)).sqrt()
    speech_bins = (irm > 0.5).float()  # float so it can weight the PSD sums
    noisy_power = _stft(sources.sum(1)).abs() ** 2
    noise_bins = ~speech_bins
    (noisy_power * noise_bins).sum(-1) / noise_bins.sum(-1)


def _magnitude_in_place_times_complex_mask() -> None:
    _seeded()
    noisy = _stft(_sources(batch=1).sum(1))
    head = nn.Linear(_BINS, 2 * _BINS)
    out = head(torch.log1p(noisy.abs()).transpose(1, 2)).reshape(1, -1, _BINS, 2).transpose(1, 2)
    crm = torch.view_as_complex(torch.tanh(out).contiguous())  # the new complex ratio mask head
    enhanced = noisy.abs()
    enhanced.mul_(crm)  # left from the magnitude-mask version: mask applied in place to |Y|


def _pcm_int16_full_scale_from_new_tensor() -> None:
    pcm = _read_pcm(_wav_bytes())
    pcm / pcm.new_tensor(32768.0)


# --- floating dtypes meeting


def _hybrid_demucs_fp32_spectral_branch_into_bf16_decoder() -> None:
    _seeded()
    time_encoder = nn.Conv1d(1, 16, 8, 4).to(bf16)
    time_decoder = nn.ConvTranspose1d(16, 2, 8, 4).to(bf16)
    freq_encoder = nn.Conv1d(_BINS, 16, 1)  # spectral branch kept fp32: there is no bf16 FFT on the CPU
    mixture = _sources(batch=1).sum(1, keepdim=True)
    z_time = time_encoder(mixture.to(bf16))
    z_freq = freq_encoder(_stft(mixture[:, 0]).abs())
    z_freq = F.interpolate(z_freq, size=z_time.shape[-1], mode="linear")
    time_decoder(z_time + z_freq)


class _TcnBlock(nn.Module):
    def __init__(self, channels: int = 16, hidden: int = 32) -> None:
        super().__init__()
        self.conv1x1 = nn.Conv1d(channels, hidden, 1)
        self.prelu1 = nn.PReLU()
        self.norm1 = nn.GroupNorm(1, hidden)
        self.dconv = nn.Conv1d(hidden, hidden, 3, padding=2, dilation=2, groups=hidden)
        self.prelu2 = nn.PReLU()
        self.norm2 = nn.GroupNorm(1, hidden)
        self.res = nn.Conv1d(hidden, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm1(self.prelu1(self.conv1x1(x)))
        h = self.norm2(self.prelu2(self.dconv(h)))
        return x + self.res(h)


def _tcn_prelu_reinitialised_after_cast() -> None:
    _seeded()
    tcn = nn.Sequential(*(_TcnBlock() for _ in range(2))).to(bf16)
    for block in tcn:
        block.prelu1 = nn.PReLU(init=0.1)  # slope reset for the fine-tune, after the cast
    tcn(torch.randn(1, 16, 50, dtype=bf16))


def _erb_filterbank(bins: int = _BINS, bands: int = 16) -> torch.Tensor:
    edges = torch.linspace(0, bins - 1, bands + 2)
    grid = torch.arange(bins, dtype=torch.float32)
    left, centre, right = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    return torch.clamp(torch.minimum((grid - left) / (centre - left), (right - grid) / (right - centre)), min=0.0)


class _ErbGainNet(nn.Module):
    def __init__(self, bands: int = 16) -> None:
        super().__init__()
        self.register_buffer("erb_fb", _erb_filterbank(bands=bands).T.contiguous())  # (bins, bands)
        self.erb_inverse = _erb_filterbank(bands=bands)  # (bands, bins), a plain attribute
        self.gru = nn.GRU(bands, 32, batch_first=True)
        self.head = nn.Linear(32, bands)

    def forward(self, power: torch.Tensor) -> torch.Tensor:
        erb = torch.log1p(power @ self.erb_fb)
        gains = torch.sigmoid(self.head(self.gru(erb)[0]))
        return gains @ self.erb_inverse


def _erb_gains_bf16_through_fp32_inverse_filterbank() -> None:
    _seeded()
    model = _ErbGainNet().to(bf16)
    noisy = _stft(_sources(batch=1).sum(1))
    model((noisy.abs() ** 2).transpose(1, 2).to(bf16))


def _si_sdr_vecdot_f16_estimates() -> None:
    _seeded()
    separator = _TinyDemucs(speakers=1).half()
    clean = _sources(batch=2)[:, :1]
    estimate = separator((clean + 0.05).half())
    estimate = estimate - estimate.mean(-1, keepdim=True)
    reference = clean - clean.mean(-1, keepdim=True)
    alpha = torch.linalg.vecdot(estimate, reference) / torch.linalg.vecdot(reference, reference)
    alpha.mean()


def _streaming_conformer_chunk_mask_fp32() -> None:
    _seeded()
    model = _TinyConformerSeparator().to(bf16)
    frames, chunk, left_chunks = 24, 4, 2
    chunk_id = torch.arange(frames) // chunk
    visible = (chunk_id[None, :] <= chunk_id[:, None]) & (chunk_id[None, :] >= chunk_id[:, None] - left_chunks)
    attn_mask = torch.zeros(frames, frames).masked_fill(~visible, float("-inf"))  # additive, default dtype
    model(torch.randn(1, frames, _BINS, dtype=bf16), attn_mask=attn_mask)


def _target_speaker_xvector_f64_concat() -> None:
    _seeded()
    encoder = nn.Conv1d(1, 32, 16, 8)
    fusion = nn.Conv1d(32 + 24, 32, 1)
    xvector = np.random.default_rng(0).standard_normal(24)  # enrolment x-vector as read from the .ark (float64)
    mixture = _sources(batch=1).sum(1, keepdim=True)
    features = encoder(mixture)
    speaker = torch.from_numpy(xvector)[None, :, None].expand(-1, -1, features.shape[-1])
    fusion(torch.cat([features, speaker], dim=1))


def _irm_bce_bf16_sigmoid_fp32_targets() -> None:
    _seeded()
    sources = _sources(batch=2)
    speech_power, noise_power = _stft(sources[:, 0]).abs() ** 2, _stft(sources[:, 1]).abs() ** 2
    irm = (speech_power / (speech_power + noise_power + 1e-8)).sqrt().transpose(1, 2)
    estimator = nn.Sequential(nn.Linear(_BINS, 64), nn.ReLU(), nn.Linear(64, _BINS)).to(bf16)
    noisy_power = _stft(sources.sum(1)).abs() ** 2
    mask = torch.sigmoid(estimator(torch.log1p(noisy_power).transpose(1, 2).to(bf16)))
    F.binary_cross_entropy(mask, irm)


def _chunk_stitching_index_copy_under_autocast() -> None:
    _seeded()
    separator = _TinyDemucs()
    mixture = _sources(batch=1).sum(1, keepdim=True)
    out = torch.zeros(1, 2, _SAMPLES)
    previous = None
    for start in range(0, _SAMPLES - 1000 + 1, 1000):
        with torch.autocast("cpu", dtype=bf16):
            chunk = separator(mixture[..., start:start + 1000])
        perm = torch.tensor([0, 1])
        if previous is not None and (chunk[:, 0] * previous[:, 1]).sum() > (chunk[:, 0] * previous[:, 0]).sum():
            perm = torch.tensor([1, 0])  # keep speakers consistent across chunks
        out[..., start:start + 1000].index_copy_(1, perm, chunk)
        previous = chunk


def _quality_net_huber_f64_pesq_targets() -> None:
    _seeded()
    discriminator = nn.Sequential(nn.Conv1d(2, 8, 5, 2), nn.LeakyReLU(0.3), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
                                  nn.Linear(8, 1), nn.Sigmoid())
    clean = _sources(batch=3)[:, 0]
    enhanced = clean + 0.1 * torch.randn_like(clean)
    pesq_scores = np.array([3.21, 2.87, 4.02])  # from the pesq package, one float per utterance
    target = torch.from_numpy((pesq_scores - 1.0) / 3.5)[:, None]
    predicted = discriminator(torch.stack([enhanced, clean], dim=1))
    F.huber_loss(predicted, target).backward()


def _mvdr_weights_complex64_on_complex32_stft() -> None:
    _seeded()
    mics = 4
    sources = _sources(batch=1, speakers=2)
    delays = torch.tensor([0, 1, 2, 3])
    multichannel = torch.stack([torch.roll(sources[0, 0], int(d)) + sources[0, 1] * (0.5 + 0.1 * m)
                                for m, d in enumerate(delays)])
    spec = _stft(multichannel).to(torch.complex32)  # (mics, bins, frames), cached at half size
    speech_mask = torch.rand(_BINS, spec.shape[-1])
    spec64 = spec.to(torch.complex64)
    phi_s = torch.einsum("mft,nft->fmn", spec64 * speech_mask, spec64.conj()) / spec.shape[-1]
    phi_n = torch.einsum("mft,nft->fmn", spec64 * (1 - speech_mask), spec64.conj()) / spec.shape[-1]
    phi_n = phi_n + 1e-3 * torch.eye(mics, dtype=torch.complex64)
    numerator = torch.linalg.solve(phi_n, phi_s)
    weights = numerator[..., 0] / torch.diagonal(numerator, dim1=-2, dim2=-1).sum(-1, keepdim=True)
    torch.einsum("fm,mft->ft", weights.conj(), spec)


# --- kernels missing for the dtype


def _istft_of_complex32_enhanced_spectrum() -> None:
    _seeded()
    model = _TinyConformerSeparator(speakers=1, complex_mask=True).half()
    noisy = _stft(_sources(batch=1).sum(1))
    out = model(torch.log1p(noisy.abs()).transpose(1, 2).half())[:, :, 0]
    crm = torch.complex(out[..., 0], out[..., 1]).transpose(1, 2)  # complex32 from the half model
    enhanced = noisy.to(torch.complex32) * crm  # spectrum matched to the half model
    torch.istft(enhanced, _N_FFT, _HOP, window=torch.hann_window(_N_FFT), length=_SAMPLES)


def _crm_targets_from_complex32_cache() -> None:
    sources = _sources(batch=2)
    clean = _stft(sources[:, 0]).to(torch.complex32)  # the feature cache stores spectra at half size
    noisy = _stft(sources.sum(1)).to(torch.complex32)
    crm_target = clean / noisy
    torch.view_as_real(crm_target).clamp(-10, 10)


def _log_spectrum_of_clamped_complex_stft() -> None:
    noisy = _stft(_sources(batch=1).sum(1))
    features = torch.log(torch.clamp(noisy, min=1e-8))  # meant noisy.abs()
    features.mean()


def _complex_spectral_mse_loss() -> None:
    _seeded()
    sources = _sources(batch=2)
    noisy, clean = _stft(sources.sum(1)), _stft(sources[:, 0])
    head = nn.Linear(_BINS, 2 * _BINS)
    out = head(torch.log1p(noisy.abs()).transpose(1, 2)).reshape(2, -1, _BINS, 2).transpose(1, 2)
    enhanced = noisy * torch.view_as_complex(torch.tanh(out).contiguous())
    F.mse_loss(enhanced, clean)


def _sdr_distortion_filter_solve_f16() -> None:
    _seeded()
    taps = 16
    reference = _sources(batch=1)[0, 0, :2000].half()  # evaluation run end to end in fp16
    estimate = (reference + 0.05 * torch.randn_like(reference)).half()
    frames = reference.unfold(0, taps, 1)
    autocorr = frames.T @ frames / frames.shape[0]
    crosscorr = frames.T @ estimate[taps - 1:] / frames.shape[0]
    torch.linalg.solve(autocorr, crosscorr)  # the allowed 16-tap distortion filter


def _crm_view_as_complex_after_autocast_block() -> None:
    _seeded()
    model = _TinyConformerSeparator(speakers=1, complex_mask=True)
    noisy = _stft(_sources(batch=1).sum(1))
    with torch.autocast("cpu", dtype=bf16):
        out = model(torch.log1p(noisy.abs()).transpose(1, 2))
    crm = torch.view_as_complex(out[:, :, 0].contiguous()).transpose(1, 2)
    torch.istft(noisy * crm, _N_FFT, _HOP, window=torch.hann_window(_N_FFT))


# --- numpy, overflow and non-finite values


def _hungarian_pit_on_autocast_correlation_cost() -> None:
    _seeded()
    separator = _TinyDemucs(speakers=3)
    references = _sources(batch=2, speakers=3)
    with torch.autocast("cpu", dtype=bf16):
        estimates = separator(references.sum(1, keepdim=True))
        # a cheap assignment cost: negative correlation of every estimate/reference pair
        cost = -torch.einsum("bit,bjt->bij", F.normalize(estimates, dim=-1), F.normalize(references, dim=-1))
    for b in range(cost.shape[0]):
        rows, cols = linear_sum_assignment(cost[b].detach().numpy())


def _pit_running_best_loss_1e9_f16() -> None:
    _seeded()
    references = _sources(batch=2, speakers=2).half()
    estimates = references.flip(1) + 0.05 * torch.randn_like(references)
    best = torch.full((2,), 1e9, dtype=estimates.dtype)  # larger than any loss
    for perm in itertools.permutations(range(2)):
        loss = _pairwise_neg_si_sdr(estimates, references)[:, torch.arange(2), torch.tensor(perm)].mean(-1)
        best = torch.minimum(best, loss)


def _si_sdr_fp16_silent_reference_clip_grad() -> None:
    _seeded()
    separator = _TinyDemucs()
    references = _sources(batch=2)
    references[1, 1] = 0.0  # a single-speaker utterance: the second reference is silence
    estimates = separator(references.sum(1, keepdim=True))
    loss = _loss_set(_pairwise_neg_si_sdr(estimates.half(), references.half()), _perms(2)).min(dim=1)[0].mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(separator.parameters(), 5.0, error_if_nonfinite=True)


CASES: dict[str, LiveCase] = {
    # WAV bytes read as int16 PCM with np.frombuffer, fed straight to the bf16 Demucs encoder
    "wav-bytes-int16-bf16-demucs-encoder": case(_wav_bytes_int16_into_bf16_demucs_encoder, "integer_operand",
                                                "int16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # peak normalisation of int16 PCM by its 99.9th percentile taken with quantile
    "pcm-int16-quantile-peak-normalise": case(_peak_normalise_int16_by_quantile, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # an ideal binary mask (speech |S| > noise |N|, bool) as the BCE-with-logits target of a mask estimator
    "ibm-bool-target-bce-logits": case(_ideal_binary_mask_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # PIT: the min values of the loss set taken instead of the argmin, used to index the permutation table
    "pit-min-values-as-permutation-index": case(_pit_best_permutation_from_min_values, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Asteroid-style PIT: the permutation one-hot made with perms.new_zeros (int64), einsum'd with the loss matrix
    "pit-perms-new-zeros-one-hot-einsum": case(_pit_loss_set_one_hot_from_perms_new_zeros, "integer_operand",
                                               "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a histogram of the chosen permutations (int64 argmin) with histc, to spot PIT collapse
    "pit-chosen-permutation-histc-int64": case(_pit_permutation_usage_histogram, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the inverse permutation built by scatter_ of the int64 arange into a float torch.zeros buffer
    "pit-inverse-permutation-scatter-float-zeros": case(_pit_inverse_permutation_scatter_into_zeros,
                                                        "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a 4-speaker permutation table stored as int32, its best rows used with take_along_dim
    "pit-int32-permutation-table-take-along-dim": case(_pit_int32_permutation_table_take_along_dim,
                                                       "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # noise-dominant bins taken as ~ of a speech-bin mask kept float to weight PSD sums
    "noise-bins-invert-float-speech-mask": case(_noise_bins_by_inverting_float_speech_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a new complex ratio mask applied in place to the noisy magnitude (left from the magnitude-mask code)
    "magnitude-in-place-times-complex-mask": case(_magnitude_in_place_times_complex_mask, "result_cast",
                                                  "complex64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # int16 PCM divided by pcm.new_tensor(32768.0): full scale made in the PCM's dtype
    "pcm-int16-full-scale-new-tensor-32768": case(_pcm_int16_full_scale_from_new_tensor, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # hybrid Demucs: the fp32 spectral branch (no bf16 FFT) added to the bf16 time branch before its ConvTranspose1d
    "hybrid-demucs-fp32-spectral-branch-bf16-conv-transpose": case(
        _hybrid_demucs_fp32_spectral_branch_into_bf16_decoder, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Conv-TasNet TCN: PReLU slopes re-initialised with fresh nn.PReLU modules after the bf16 cast
    "tcn-prelu-reinitialised-after-bf16-cast": case(_tcn_prelu_reinitialised_after_cast, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DeepFilterNet-style ERB gains (bf16 model) mapped back to bins by an inverse filterbank kept as a plain fp32 attribute
    "erb-gains-bf16-inverse-filterbank-fp32-attribute": case(_erb_gains_bf16_through_fp32_inverse_filterbank,
                                                             "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SI-SDR scale by linalg.vecdot of the .half() separator's estimates and fp32 references
    "si-sdr-vecdot-f16-estimates-f32-references": case(_si_sdr_vecdot_f16_estimates, "op_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # streaming conformer: the chunked additive -inf attention mask built in fp32 for the bf16 MHSA
    "streaming-conformer-chunk-mask-fp32-bf16-mhsa": case(_streaming_conformer_chunk_mask_fp32, "attn_mask_dtype",
                                                          "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # target speaker extraction: a float64 x-vector from the .ark concatenated to fp32 features before the fusion conv
    "tse-xvector-f64-concat-fusion-conv1d": case(_target_speaker_xvector_f64_concat, "conv_weight_dtype", "f64",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # IRM estimation: BCE between the bf16 estimator's sigmoid mask and the fp32 IRM target
    "irm-bce-bf16-mask-fp32-target": case(_irm_bce_bf16_sigmoid_fp32_targets, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # chunked separation under bf16 autocast, each chunk index_copy_'ed by its speaker permutation into an fp32 buffer
    "chunk-stitching-index-copy-perm-autocast": case(_chunk_stitching_index_copy_under_autocast,
                                                     "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MetricGAN-style quality net trained with Huber loss against float64 PESQ scores, backward
    "quality-net-huber-f64-pesq-targets-backward": case(_quality_net_huber_f64_pesq_targets, "loss_dtype", "f64",
                                                        "f32",
        grade="correct", grade_at_freeze="correct"),
    # MVDR: complex64 beamforming weights einsum'd with the multichannel STFT cached as complex32
    "mvdr-weights-complex64-einsum-complex32-stft": case(_mvdr_weights_complex64_on_complex32_stft, "matmul_dtype",
                                                         "complex64", "complex32",
        grade="correct", grade_at_freeze="correct"),
    # a .half() conformer's cRM (complex32 by torch.complex) times the noisy spectrum moved to complex32, then istft
    "istft-complex32-enhanced-spectrum": case(_istft_of_complex32_enhanced_spectrum, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # cRM training targets clean / noisy computed on spectra cached as complex32
    "crm-targets-complex32-cache-division": case(_crm_targets_from_complex32_cache, "no_kernel", "complex32",
        grade="correct", grade_at_freeze="correct"),
    # log-spectral features from clamp(min=1e-8) of the complex STFT, .abs() forgotten
    "log-spectrum-clamp-complex-stft": case(_log_spectrum_of_clamped_complex_stft, "no_kernel",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (b21193f2) castwise gave nothing (the pasted traceback: nothing too). Torch says 'clamp is not "
             "supported for complex types': a missing complex kernel worded with no dtype name and not in torch's usual "
             "'not implemented for' form, and no rule of the frozen reader read that wording as a missing kernel, so the "
             "cause (clamp given the complex STFT where its magnitude was meant) went unexplained")),
    # complex spectral loss written as F.mse_loss of the complex64 enhanced and clean spectra
    "complex-spectral-mse-loss": case(_complex_spectral_mse_loss, "no_kernel", "complex64",
        grade="correct", grade_at_freeze="correct"),
    # BSS-eval-style SDR with a 16-tap distortion filter solved from fp16 correlation matrices
    "sdr-distortion-filter-solve-f16": case(_sdr_distortion_filter_solve_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a conformer cRM head run under bf16 autocast, viewed as complex after the autocast block
    "crm-view-as-complex-after-autocast-block": case(_crm_view_as_complex_after_autocast_block, "no_kernel",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Hungarian PIT: the estimate/reference correlation cost einsum'd under bf16 autocast, handed to linear_sum_assignment
    "hungarian-pit-autocast-correlation-cost-numpy": case(_hungarian_pit_on_autocast_correlation_cost, "numpy_dtype",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PIT loop over permutations in fp16, the running best loss initialised with torch.full(1e9) in the fp16 dtype
    "pit-running-best-loss-full-1e9-f16": case(_pit_running_best_loss_1e9_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 SI-SDR with eps=1e-8 (0 in fp16) on a silent second reference: 0/0 NaN grads, clip_grad_norm_ refuses
    "si-sdr-fp16-silent-reference-clip-grad": case(_si_sdr_fp16_silent_reference_clip_grad, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
