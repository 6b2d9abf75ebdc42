"""Held-out live set 75: EEG, brain-computer interfaces and biosignals written by hand in low precision (int16 ADC
samples from amplifiers, band-pass and notch filters as conv1d with float64 scipy coefficients, epochs cut around event
markers, EEGNet/ShallowConvNet/EEG-Conformer, channel masks for bad electrodes, spatial covariance and Riemannian (SPD)
features in float64, sleep-stage labels and class weights, EMG/ECG envelopes, channel dropout and time shifts). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
79a7218."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from scipy import signal
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "79a7218"

bf16, f16 = torch.bfloat16, torch.float16
_CHANNELS = 22  # BCI Competition IV 2a montage
_SFREQ = 250
_SAMPLES = 500  # 2 s motor-imagery epochs
_UV_PER_COUNT = 0.02235  # OpenBCI Cyton (ADS1299, gain 24): microvolts per ADC count


def _seeded() -> None:
    torch.manual_seed(0)


def _epochs(n: int = 4, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    _seeded()
    return (torch.randn(n, _CHANNELS, _SAMPLES) * 20.0).to(dtype)  # microvolts


def _raw_counts(samples: int = 1000) -> torch.Tensor:
    _seeded()
    return torch.randint(-3000, 3000, (_CHANNELS, samples), dtype=torch.int16)  # int16 ADC counts


def _covariances(n: int = 4) -> torch.Tensor:
    x = _epochs(n)
    return x @ x.mT / _SAMPLES + 1e-3 * torch.eye(_CHANNELS)


# --- floating dtypes meeting ---------------------------------------------------------------------------------------

def _mne_float64_epochs_into_eegnet() -> None:
    _seeded()
    data = np.random.default_rng(0).standard_normal((4, _CHANNELS, _SAMPLES)) * 20e-6  # epochs.get_data(): float64 V
    temporal = nn.Conv2d(1, 8, (1, 64), padding=(0, 32), bias=False)  # EEGNet block 1
    temporal(torch.from_numpy(data * 1e6)[:, None])


def _firwin_bandpass_depthwise_conv_bf16() -> None:
    taps = signal.firwin(101, [8.0, 30.0], pass_zero=False, fs=_SFREQ)  # mu/beta band, float64
    kernel = torch.from_numpy(taps).flip(0).expand(_CHANNELS, 1, -1)
    x = _epochs(dtype=bf16)  # the loader already casts batches to the bf16 model's dtype
    F.conv1d(x, kernel, padding=50, groups=_CHANNELS)


def _bipolar_montage_numpy_einsum() -> None:
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (7, 8), (8, 9), (9, 10), (10, 11)]
    montage = np.zeros((len(pairs), _CHANNELS))  # anode - cathode rows, np.zeros default float64
    for row, (anode, cathode) in enumerate(pairs):
        montage[row, anode], montage[row, cathode] = 1.0, -1.0
    torch.einsum("bc,nct->nbt", torch.from_numpy(montage), _epochs())


def _tangent_space_float64_features_into_linear() -> None:
    covs = _covariances().double()  # eigh in float64 "for stability"
    eigvals, eigvecs = torch.linalg.eigh(covs)
    logm = eigvecs @ torch.diag_embed(eigvals.log()) @ eigvecs.mT
    rows, cols = torch.triu_indices(_CHANNELS, _CHANNELS)
    weights = torch.where(rows == cols, 1.0, 2.0**0.5).to(logm.dtype)
    features = logm[:, rows, cols] * weights  # 253 tangent-space features per trial
    classifier = nn.Linear(features.shape[1], 4)
    classifier(features)


def _deepsleepnet_bf16_encoder_fp32_bilstm() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Conv1d(1, 16, 50, stride=6), nn.ReLU(), nn.AdaptiveAvgPool1d(8), nn.Flatten())
    encoder = encoder.to(bf16)  # only the epoch encoder was moved to bf16
    sequence = nn.LSTM(128, 32, batch_first=True, bidirectional=True)
    epochs = torch.randn(2 * 5, 1, 3000, dtype=bf16)  # 5 consecutive 30 s Fpz-Cz epochs at 100 Hz
    sequence(encoder(epochs).reshape(2, 5, 128))


def _eegnet_fp32_first_conv_bf16_batchnorm() -> None:
    _seeded()
    temporal = nn.Conv2d(1, 8, (1, 64), padding=(0, 32), bias=False)  # first layer kept fp32 for accuracy
    block = nn.Sequential(nn.BatchNorm2d(8), nn.Conv2d(8, 16, (_CHANNELS, 1), groups=8, bias=False)).to(bf16)
    block(temporal(_epochs(2)[:, None]))


def _conformer_numpy_float64_key_padding_mask() -> None:
    _seeded()
    lengths = np.array([30, 24])  # tokens per trial, trials of different duration
    padding = np.where(np.arange(30)[None, :] < lengths[:, None], 0.0, -np.inf)  # additive, float64
    attention = nn.MultiheadAttention(40, 10, batch_first=True)
    tokens = torch.randn(2, 30, 40)
    attention(tokens, tokens, tokens, key_padding_mask=torch.from_numpy(padding))


def _exponential_moving_standardize_lerp_bf16() -> None:
    running_mean = torch.zeros(_CHANNELS, 1)  # kept fp32 across chunks
    chunk = _epochs(1, dtype=bf16)[0]
    for t in range(4):
        running_mean.lerp_(chunk[:, t : t + 1], 1e-3)


def _bad_channel_interpolation_index_copy_float64() -> None:
    data = torch.from_numpy(np.random.default_rng(0).standard_normal((_CHANNELS, 1000)))  # raw.get_data(): float64
    bad = torch.tensor([4, 17])
    good = torch.tensor([c for c in range(_CHANNELS) if c not in (4, 17)])
    interpolation = torch.softmax(torch.randn(2, len(good)), dim=1)  # spherical-spline weights, fp32 model side
    data.index_copy_(0, bad, interpolation @ data[good].float())


def _erp_sums_index_add_int16_epochs() -> None:
    raw = _raw_counts(5000)
    onsets = torch.tensor([250, 1000, 1750, 2500, 3250, 4000])
    conditions = torch.tensor([0, 1, 0, 0, 1, 0])  # standard / deviant
    epochs = raw[:, onsets[:, None] + torch.arange(200)].permute(1, 0, 2)  # still int16 counts
    sums = torch.zeros(2, _CHANNELS, 200)
    sums.index_add_(0, conditions, epochs)


def _emg_kinematics_huber_bf16_backward() -> None:
    _seeded()
    decoder = nn.Sequential(nn.Conv1d(8, 32, 9, padding=4), nn.ReLU(), nn.Conv1d(32, 3, 1)).to(bf16)
    emg = torch.randn(2, 8, 200, dtype=bf16)  # 8-channel forearm EMG envelope
    joint_angles = torch.randn(2, 3, 200) * 30.0  # degrees from the motion-capture glove, fp32
    F.huber_loss(decoder(emg), joint_angles, delta=5.0).backward()


# --- kernels missing for a low-precision dtype -----------------------------------------------------------------------

def _emg_hilbert_envelope_fft_bf16() -> None:
    _seeded()
    emg = torch.randn(8, 1024, dtype=bf16)  # the bf16 model's cleaned EMG
    spectrum = torch.fft.fft(emg)
    gain = torch.zeros(1024)
    gain[0], gain[1:512], gain[512] = 1.0, 2.0, 1.0
    torch.fft.ifft(spectrum * gain).abs()


def _plv_unit_phasors_f16() -> None:
    _seeded()
    phase = (torch.rand(2, 60, _SAMPLES) * 2 * torch.pi - torch.pi).half()  # Hilbert phases cached in fp16
    phasors = torch.exp(1j * phase)
    (phasors[0] * phasors[1].conj()).mean(-1).abs()


def _spdnet_reeig_half() -> None:
    covs = _covariances().half()  # SPDNet moved to fp16 to fit more trials per batch
    eigvals, eigvecs = torch.linalg.eigh(covs)
    eigvecs @ torch.diag_embed(eigvals.clamp(min=1e-4)) @ eigvecs.mT


def _riemann_logdet_divergence_bf16() -> None:
    covs = _covariances().to(bf16)
    mean = covs.mean(0)
    torch.logdet((covs + mean) / 2) - 0.5 * (torch.logdet(covs) + torch.logdet(mean))


def _channel_dropout_rand_like_bool_mask() -> None:
    good = torch.ones(4, _CHANNELS, 1, dtype=torch.bool)
    good[:, [4, 17]] = False  # bad electrodes marked at import
    dropped = torch.rand_like(good) < 0.2
    _epochs() * (good & ~dropped)


# --- numbers outside the dtype's range ------------------------------------------------------------------------------

def _openbci_24bit_counts_into_int16() -> None:
    packet = bytes.fromhex("7fffff" "800000" "0012ab" "ffedcb")  # four 24-bit two's complement samples
    counts = [int.from_bytes(packet[i : i + 3], "big", signed=True) for i in range(0, 12, 3)]
    torch.tensor(counts, dtype=torch.int16)  # "to save memory"


def _ecg_full_scale_clamp_f16() -> None:
    _seeded()
    ecg = (torch.randn(12, 5000) * 500.0).half()  # 12-lead ECG in microvolts, cached in fp16
    full_scale_uv = 2.4 / 6 * 1e6  # ADS1298: VREF / gain = 400000 uV
    ecg.clamp(-full_scale_uv, full_scale_uv)


# --- numpy interop ---------------------------------------------------------------------------------------------------

def _egi_raw_big_endian_from_numpy() -> None:
    raw = np.arange(4 * 100, dtype=">f4").reshape(4, 100)  # EGI simple binary .raw is big-endian float32
    torch.from_numpy(raw)


def _eegnet_features_bf16_to_numpy() -> None:
    _seeded()
    features = torch.randn(16, 128, dtype=bf16)  # the bf16 EEGNet's penultimate features
    labels = np.arange(16) % 4
    features.numpy()[labels == 0].mean(0)  # class means for shrinkage LDA


# --- NaN and inf ----------------------------------------------------------------------------------------------------

def _shallow_convnet_fp16_dc_offset_nonfinite() -> None:
    _seeded()
    conv_time = nn.Conv2d(1, 40, (1, 25)).half()
    conv_spat = nn.Conv2d(40, 40, (_CHANNELS, 1), bias=False).half()
    head = nn.Linear(40 * 61, 4).half()
    offsets = torch.linspace(-25000, 25000, _CHANNELS)[:, None]  # BioSemi DC offsets (uV), no high-pass applied
    x = (torch.randn(2, 1, _CHANNELS, 1000) * 20 + offsets).half()
    h = conv_spat(conv_time(x))
    h = F.avg_pool2d(h * h, (1, 75), (1, 15)).clamp(min=1e-6).log()  # square, mean, log
    F.cross_entropy(head(h.flatten(1)).float(), torch.tensor([0, 1])).backward()
    params = [*conv_time.parameters(), *conv_spat.parameters(), *head.parameters()]
    torch.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


# --- integer, bool, index, mask and target dtypes --------------------------------------------------------------------

def _epoch_onsets_seconds_float_index() -> None:
    raw = _epochs(1)[0].repeat(1, 10)
    onsets_s = torch.tensor([2.0, 5.5, 9.0, 12.5])  # onset column of the BIDS events.tsv
    starts = onsets_s * _SFREQ - 0.5 * _SFREQ  # 0.5 s before the cue
    raw[:, starts[:, None] + torch.arange(_SAMPLES)]


def _time_shift_gather_rounded_float_shifts() -> None:
    x = _epochs()
    shifts = torch.round((torch.rand(4, 1, 1) * 2 - 1) * 0.1 * _SFREQ)  # up to +-100 ms
    index = (torch.arange(_SAMPLES) + shifts).clamp(0, _SAMPLES - 1).expand(-1, _CHANNELS, -1)
    torch.gather(x, 2, index)


def _biosemi_status_float64_bitmask() -> None:
    status = torch.from_numpy(np.array([0.0, 65281.0, 65281.0, 65282.0, 0.0]) + 2**20)  # stim channel from MNE
    codes = status & 0xFF
    codes.unique()


def _channel_dropout1d_on_int16_counts() -> None:
    raw = _raw_counts(_SAMPLES)[None].repeat(4, 1, 1)
    F.dropout1d(raw, p=0.2, training=True)


def _hypnogram_nan_float64_targets() -> None:
    _seeded()
    stages = np.array([0, 0, 1, 2, 2, np.nan, 3, 4], dtype=np.float64)  # pandas column, NaN = unscored
    logits = torch.randn(8, 5)
    F.cross_entropy(logits, torch.from_numpy(np.nan_to_num(stages, nan=-100)), ignore_index=-100)


def _sleep_class_weights_negative_power() -> None:
    stages = torch.tensor([0] * 40 + [1] * 5 + [2] * 30 + [3] * 10 + [4] * 15)  # W, N1, N2, N3, REM
    counts = torch.bincount(stages, minlength=5)
    weights = counts**-1 * len(stages) / 5
    F.cross_entropy(torch.randn(100, 5), stages, weight=weights)


def _artifact_mask_dilation_conv1d_bool() -> None:
    x = _epochs(1)[0]
    artifact = (x.abs() > 50.0)[:, None]  # samples above 50 uV, per channel
    widened = F.conv1d(artifact, torch.ones(1, 1, 25), padding=12) > 0  # widen each artifact by 50 ms
    widened.any(0)


def _zscore_std_mean_int16_counts() -> None:
    raw = _raw_counts()
    std, mean = torch.std_mean(raw, dim=-1, keepdim=True)
    (raw - mean) / std


def _p300_uint8_labels_bce_logits() -> None:
    _seeded()
    logits = torch.randn(12)  # one score per row/column flash of the speller matrix
    is_target = torch.from_numpy(np.array([0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0], dtype=np.uint8))
    F.binary_cross_entropy_with_logits(logits, is_target)


CASES: dict[str, LiveCase] = {
    # MNE's float64 epochs (get_data, scaled to microvolts) straight into EEGNet's fp32 temporal Conv2d
    "mne-f64-epochs-eegnet-temporal-conv": case(_mne_float64_epochs_into_eegnet, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # scipy firwin band-pass taps (float64) as a depthwise conv1d kernel over bf16 EEG
    "firwin-bandpass-f64-taps-conv1d-bf16": case(_firwin_bandpass_depthwise_conv_bf16, "conv_weight_dtype", "bf16",
                                                 "f64",
        grade="correct", grade_at_freeze="correct"),
    # a bipolar (double-banana style) montage matrix built with np.zeros, applied by einsum to fp32 epochs
    "bipolar-montage-numpy-f64-einsum": case(_bipolar_montage_numpy_einsum, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Riemannian tangent-space features computed in float64 fed to an fp32 Linear classifier
    "tangent-space-f64-features-linear": case(_tangent_space_float64_features_into_linear, "matmul_dtype", "f64",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # DeepSleepNet: only the epoch encoder moved to bf16, its features into the fp32 bidirectional LSTM
    "deepsleepnet-bf16-encoder-fp32-bilstm": case(_deepsleepnet_bf16_encoder_fp32_bilstm, "rnn_dtype", "bf16",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # EEGNet with its first temporal conv kept fp32 and the rest bf16: fp32 output into the bf16 BatchNorm2d
    "eegnet-fp32-first-conv-bf16-batchnorm": case(_eegnet_fp32_first_conv_bf16_batchnorm, "norm_param_dtype",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # EEG-Conformer over trials of different length: an additive float64 numpy key_padding_mask
    "conformer-numpy-f64-key-padding-mask": case(_conformer_numpy_float64_key_padding_mask, "attn_mask_dtype",
                                                 "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # exponential moving standardization: the fp32 running mean lerp_'ed toward bf16 samples
    "ems-running-mean-lerp-bf16-samples": case(_exponential_moving_standardize_lerp_bf16, "lerp_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bad-channel interpolation: fp32 interpolated channels index_copy_'d into MNE's float64 data
    "bad-channel-interpolation-index-copy-f64": case(_bad_channel_interpolation_index_copy_float64,
                                                     "indexed_write_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ERP averaging: int16 epochs cut from the raw counts index_add_'ed into fp32 per-condition sums
    "erp-sums-index-add-int16-epochs": case(_erp_sums_index_add_int16_epochs, "indexed_write_dtype", "f32",
                                            "int16",
        grade="correct", grade_at_freeze="correct"),
    # EMG-to-joint-angle regression: bf16 decoder, Huber loss against fp32 glove angles, backward
    "emg-kinematics-huber-bf16-backward": case(_emg_kinematics_huber_bf16_backward, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # EMG Hilbert envelope by torch.fft.fft of the bf16 signal
    "emg-hilbert-envelope-fft-bf16": case(_emg_hilbert_envelope_fft_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # phase-locking value: unit phasors exp(1j * phase) from phases cached in fp16 (ComplexHalf exp)
    "plv-unit-phasors-exp-f16-phase": case(_plv_unit_phasors_f16, "no_kernel", "complex32",
        grade="correct", grade_at_freeze="correct"),
    # SPDNet ReEig layer run in fp16: eigh of the half covariances
    "spdnet-reeig-eigh-f16": case(_spdnet_reeig_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Jensen-Bregman log-det divergence of bf16 covariances to their mean
    "riemann-logdet-divergence-bf16": case(_riemann_logdet_divergence_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # channel dropout augmentation drawn with rand_like of the bool good-electrode mask
    "channel-dropout-rand-like-bool-mask": case(_channel_dropout_rand_like_bool_mask, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # OpenBCI 24-bit two's complement samples decoded and stored as int16 with torch.tensor
    "openbci-24bit-counts-int16-tensor": case(_openbci_24bit_counts_into_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 ECG in microvolts clipped to the ADS1298 front end's +-400000 uV full scale
    "ecg-full-scale-clamp-f16": case(_ecg_full_scale_clamp_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # EGI simple binary (.raw) read as big-endian float32 with numpy, given to torch.from_numpy
    "egi-raw-big-endian-from-numpy": case(_egi_raw_big_endian_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 EEGNet features turned to numpy for a shrinkage-LDA back end
    "eegnet-features-bf16-numpy-lda": case(_eegnet_features_bf16_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ShallowConvNet in fp16 on BioSemi data with DC offsets: the squared features overflow, clip_grad_norm_ refuses
    "shallow-convnet-f16-dc-offset-nonfinite-clip": case(_shallow_convnet_fp16_dc_offset_nonfinite, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # epochs cut at BIDS events.tsv onsets in seconds times sfreq, still float, as advanced indices
    "epoch-onsets-seconds-float-index": case(_epoch_onsets_seconds_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # time-shift augmentation: shifts rounded with torch.round but left float, used as gather's index
    "time-shift-gather-rounded-float-shifts": case(_time_shift_gather_rounded_float_shifts, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # BioSemi status channel (float64 from MNE) decoded with & 0xFF for the trigger codes
    "biosemi-status-f64-bitmask": case(_biosemi_status_float64_bitmask, "mask_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # channel dropout with F.dropout1d applied to the raw int16 ADC counts
    "channel-dropout1d-int16-counts": case(_channel_dropout1d_on_int16_counts, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # hypnogram read as float64 (NaN for unscored epochs) turned into cross_entropy targets
    "hypnogram-nan-f64-targets": case(_hypnogram_nan_float64_targets, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # inverse-frequency sleep-stage class weights as int64 bincount ** -1
    "sleep-class-weights-int-negative-power": case(_sleep_class_weights_negative_power, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # artifact mask (bool) widened by conv1d with a ones kernel
    "artifact-mask-dilation-conv1d-bool": case(_artifact_mask_dilation_conv1d_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # per-channel z-scoring of the int16 ADC counts with torch.std_mean
    "zscore-std-mean-int16-counts": case(_zscore_std_mean_int16_counts, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # P300 speller target/non-target labels (numpy uint8) as the BCE-with-logits target
    "p300-uint8-labels-bce-logits": case(_p300_uint8_labels_bce_logits, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
}
