"""Held-out live set 176: wearable health sensors written by hand in low precision (int16 ADC samples of ECG and
accelerometers, float64 arrays from scipy filters, uint8 sleep-stage labels, bool artifact masks, fp16 conv1d
encoders, bf16 transformers over heartbeats). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at ee996c86."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ee996c86"

bf16, f16 = torch.bfloat16, torch.float16
_FS = 250  # Hz, the patch's ECG sampling rate
_STAGES = 5  # W, N1, N2, N3, REM


def _seeded() -> None:
    torch.manual_seed(0)


def _ecg_counts(n: int = 2 * _FS) -> np.ndarray:
    t = np.arange(n) / _FS
    r_waves = np.exp(-(((t % 0.8) - 0.2) ** 2) / 2e-4)  # an R wave every 0.8 s
    return (600 * r_waves + 20 * np.sin(2 * np.pi * 0.3 * t)).astype(np.int16)  # ADC counts as the front end stores them


def _sosfiltfilt_output() -> np.ndarray:
    counts = _ecg_counts().astype(np.float64)
    return counts - np.convolve(counts, np.ones(25) / 25, mode="same")  # what scipy.signal.sosfiltfilt returns: float64


def _hypnogram() -> torch.Tensor:
    return torch.tensor([0, 0, 1, 2, 2, 3, 3, 2, 4, 4, 2, 0], dtype=torch.uint8)  # one stage per 30 s epoch


def _artifact_mask(n: int = 2 * _FS) -> torch.Tensor:
    mask = torch.zeros(n, dtype=torch.bool)
    mask[100:140] = True  # electrode pop
    mask[300:320] = True  # motion
    return mask


def _accel_counts(samples: int = 100) -> torch.Tensor:
    xyz = np.zeros((1, 3, samples), dtype=np.int16)
    xyz[0, 2] = 4096  # +-8 g range: 4096 counts per g, gravity on z
    return torch.from_numpy(xyz)


# --- labels, masks and integer sensor data
def _artifact_fraction_per_second_avg_pool() -> None:
    F.avg_pool1d(_artifact_mask()[None, None], kernel_size=_FS)


def _artifact_edges_by_bool_difference() -> None:
    mask = _artifact_mask()
    mask[1:] - mask[:-1]


def _artifact_flag_byte_masked_fill() -> None:
    ecg = torch.from_numpy(_sosfiltfilt_output()).float()
    flags = np.zeros(ecg.shape[0], dtype=np.uint8)  # the device's per-sample status byte, 1 = lead off
    flags[100:140] = 1
    ecg.masked_fill(torch.from_numpy(flags), 0.0)


def _resting_heart_rate_mean_of_int_bpm() -> None:
    bpm = torch.tensor([72, 75, 71, 80, 78, 74])  # chest strap reports whole beats per minute
    bpm.mean()


def _noisiest_epochs_topk_of_bool_mask() -> None:
    per_epoch = _artifact_mask().reshape(-1, 50)  # 0.2 s epochs
    per_epoch.topk(2, dim=1)


def _baseline_removed_in_place_from_int16_counts() -> None:
    ecg = torch.from_numpy(_ecg_counts())
    ecg -= ecg.float().mean()


def _accel_jitter_uniform_on_int16_counts() -> None:
    _seeded()
    acc = _accel_counts()
    acc + torch.empty_like(acc).uniform_(-20, 20)


def _hypnogram_one_hot_uint8() -> None:
    F.one_hot(_hypnogram(), num_classes=_STAGES)


def _previous_stage_embedding_uint8() -> None:
    previous = _hypnogram()[:-1][None]
    nn.Embedding(_STAGES, 16)(previous)


def _beat_windows_at_float_r_peaks() -> None:
    ecg = torch.from_numpy(_sosfiltfilt_output()).float()
    rr_seconds = torch.tensor([0.8, 0.8, 0.8])
    r_peaks = 0.2 * _FS + (torch.cumsum(rr_seconds, 0) - 0.8) * _FS  # sample positions rebuilt from RR in seconds
    ecg[r_peaks[:, None] + torch.arange(-50, 50)]


def _inverse_dower_on_int16_leads() -> None:
    _seeded()
    leads = torch.from_numpy(np.stack([_ecg_counts()] * 8))  # I, II, V1..V6 in ADC counts
    inverse_dower = torch.randn(3, 8)  # 8 leads to the X, Y, Z vectorcardiogram
    inverse_dower @ leads


def _artifact_detector_bce_bool_target() -> None:
    _seeded()
    logits = torch.randn(2 * _FS, requires_grad=True)
    F.binary_cross_entropy_with_logits(logits, _artifact_mask())


# --- filters, encoders and heartbeat transformers
def _sosfiltfilt_float64_into_fp16_encoder() -> None:
    _seeded()
    encoder = nn.Conv1d(1, 8, 7, padding=3, bias=False).half()
    encoder(torch.from_numpy(_sosfiltfilt_output())[None, None])


def _fp16_encoder_given_fp32_ecg() -> None:
    _seeded()
    encoder = nn.Conv1d(1, 8, 7, padding=3).half()  # halved for the wristband, bias kept
    encoder(torch.from_numpy(_sosfiltfilt_output()).float()[None, None])


def _hanning_taps_float64_on_fp16_ppg() -> None:
    _seeded()
    taps = torch.from_numpy(np.hanning(15) / np.hanning(15).sum())[None, None]  # smoothing FIR from numpy
    ppg = torch.randn(1, 1, 200, dtype=f16)
    F.conv1d(ppg, taps, padding=7)


def _beat_transformer_fp32_positional_embedding() -> None:
    _seeded()
    beats = torch.randn(2, 10, 32, dtype=bf16)  # 10 heartbeats per window, embedded
    position = nn.Parameter(torch.randn(10, 32))  # kept as a plain fp32 Parameter outside the bf16 model
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True).to(bf16)
    layer(beats + position)


def _beat_transformer_float_padding_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    beats = torch.randn(2, 10, 32, dtype=bf16)
    padding = torch.zeros(2, 10)  # additive mask for windows with fewer beats, fp32
    padding[1, 7:] = float("-inf")
    attention(beats, beats, beats, key_padding_mask=padding)


def _beat_queries_sdpa_fp32_templates() -> None:
    _seeded()
    beats = torch.randn(2, 4, 10, 8, dtype=bf16)
    templates = torch.randn(2, 4, 6, 8)  # per-patient beat templates cached in fp32
    F.scaled_dot_product_attention(beats, templates, templates)


def _beat_prototype_bmm() -> None:
    _seeded()
    beats = torch.randn(2, 10, 16, dtype=f16)
    prototypes = torch.randn(2, 16, 4)  # N, S, V, F morphology prototypes, fp32
    torch.bmm(beats, prototypes)


def _beat_transformer_layer_norm_bf16_fp32_input() -> None:
    _seeded()
    norm = nn.LayerNorm(32).to(bf16)
    norm(torch.randn(2, 10, 32))


def _sleep_gru_fp16_given_fp32_accel_features() -> None:
    _seeded()
    gru = nn.GRU(3, 16, batch_first=True).half()
    gru(torch.randn(2, 50, 3))


def _spo2_missing_sentinel_fp16() -> None:
    spo2 = torch.tensor([97.0, 96.0, 98.0, 95.0], dtype=f16)
    torch.full_like(spo2, 1e6)  # "missing" marker of the vendor export


def _bf16_stage_probabilities_to_numpy() -> None:
    _seeded()
    torch.randn(12, _STAGES, dtype=bf16).softmax(-1).numpy()


def _baseline_wander_lstsq_bf16() -> None:
    t = torch.linspace(0, 1, 50, dtype=bf16)
    design = torch.stack([torch.ones_like(t), t, t**2], 1)
    torch.linalg.lstsq(design, torch.randn(50, 1, dtype=bf16))


def _heart_rate_ema_lerp_float64() -> None:
    smoothed = torch.tensor([70.0, 72.0])
    smoothed.lerp_(torch.from_numpy(np.array([75.0, 71.0])), 0.1)  # new readings from numpy


def _beat_template_index_add_fp16() -> None:
    _seeded()
    templates = torch.zeros(3, 100)
    beat_class = torch.tensor([0, 1, 0])
    templates.index_add_(0, beat_class, torch.randn(3, 100, dtype=f16))


def _template_matching_cdist_bf16() -> None:
    _seeded()
    torch.cdist(torch.randn(4, 8, dtype=bf16), torch.randn(3, 8, dtype=bf16))


def _hrv_spectrum_rfft_fp16() -> None:
    _seeded()
    tachogram = torch.randn(256, dtype=f16)  # resampled RR series at 4 Hz
    torch.fft.rfft(tachogram)


def _stage_transitions_nan_categorical() -> None:
    counts = torch.zeros(_STAGES, _STAGES)
    counts[0, 1] = 3  # only one transition seen in a short night
    transition = counts / counts.sum(1, keepdim=True)
    torch.distributions.Categorical(probs=transition)


def _fp16_sleep_model_grad_scaler_step() -> None:
    _seeded()
    model = nn.Linear(4, _STAGES).half()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(model(torch.randn(3, 4).half()).float().sum()).backward()
    scaler.step(optimizer)


CASES: dict[str, LiveCase] = {
    # --- labels, masks and integer sensor data
    # fraction of artifact samples per second by avg_pool1d of the bool artifact mask
    "artifact-fraction-avg-pool-bool-mask": case(_artifact_fraction_per_second_avg_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # artifact onsets and offsets as the difference of the shifted bool mask
    "artifact-edges-bool-difference": case(_artifact_edges_by_bool_difference, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the device's uint8 lead-off flag byte used directly in masked_fill
    "lead-off-uint8-flag-masked-fill": case(_artifact_flag_byte_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # resting heart rate as the mean of int64 beats-per-minute readings
    "resting-hr-mean-int64-bpm": case(_resting_heart_rate_mean_of_int_bpm, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # noisiest sub-epochs picked by topk over the bool artifact mask
    "noisiest-epochs-topk-bool-mask": case(_noisiest_epochs_topk_of_bool_mask, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # baseline (fp32 mean) subtracted in place from int16 ADC counts
    "ecg-baseline-in-place-int16-counts": case(_baseline_removed_in_place_from_int16_counts, "result_cast", "f32",
                                               "int16",
        grade="correct", grade_at_freeze="correct"),
    # accelerometer jitter drawn with uniform_ on an empty_like of the int16 counts
    "accel-jitter-uniform-int16-counts": case(_accel_jitter_uniform_on_int16_counts, "no_kernel", "int16",
        grade="correct", grade_at_freeze="correct"),
    # the uint8 hypnogram one-hot encoded for stage-transition features
    "hypnogram-uint8-one-hot": case(_hypnogram_one_hot_uint8, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # previous sleep stage (uint8) looked up in an nn.Embedding
    "previous-stage-uint8-embedding": case(_previous_stage_embedding_uint8, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # beat windows cut at R-peak positions rebuilt from RR seconds (float index)
    "beat-windows-float-r-peak-index": case(_beat_windows_at_float_r_peaks, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # inverse Dower transform (fp32) @ the int16 ADC leads
    "inverse-dower-int16-leads-matmul": case(_inverse_dower_on_int16_leads, "integer_operand", "int16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-sample artifact detector trained with BCE-with-logits against the bool mask
    "artifact-detector-bce-bool-target": case(_artifact_detector_bce_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # --- filters, encoders and heartbeat transformers
    # scipy sosfiltfilt output (float64) straight into the halved conv1d encoder
    "sosfiltfilt-f64-fp16-conv1d-encoder": case(_sosfiltfilt_float64_into_fp16_encoder, "conv_weight_dtype", "f64",
                                                "f16",
        grade="correct", grade_at_freeze="correct"),
    # the conv1d encoder halved for the wristband (bias kept) given fp32 ECG
    "halved-conv1d-encoder-fp32-ecg": case(_fp16_encoder_given_fp32_ecg, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # numpy Hanning smoothing taps (float64) as an F.conv1d kernel over fp16 PPG
    "hanning-taps-f64-conv1d-fp16-ppg": case(_hanning_taps_float64_on_fp16_ppg, "conv_weight_dtype", "f16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 beat embeddings plus an fp32 positional Parameter into a bf16 encoder layer
    "beat-transformer-fp32-positional-parameter": case(_beat_transformer_fp32_positional_embedding, "matmul_dtype",
                                                       "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an additive fp32 key_padding_mask for a bf16 MultiheadAttention over beats
    "beat-mha-fp32-key-padding-mask": case(_beat_transformer_float_padding_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 beat queries attending to fp32 cached beat templates through SDPA
    "beat-templates-sdpa-fp32-keys": case(_beat_queries_sdpa_fp32_templates, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 beats bmm'd with fp32 morphology prototypes
    "morphology-prototypes-bmm-fp16-beats": case(_beat_prototype_bmm, "batched_matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 LayerNorm of the beat transformer given fp32 hidden states
    "beat-layer-norm-bf16-fp32-input": case(_beat_transformer_layer_norm_bf16_fp32_input, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a halved sleep GRU given fp32 accelerometer features
    "sleep-gru-fp16-fp32-accel": case(_sleep_gru_fp16_given_fp32_accel_features, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 SpO2 filled with the export's 1e6 missing marker
    "spo2-missing-sentinel-full-like-fp16": case(_spo2_missing_sentinel_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 sleep-stage probabilities handed to numpy for the hypnogram plot
    "stage-probabilities-bf16-numpy": case(_bf16_stage_probabilities_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # baseline wander fitted with a quadratic by linalg.lstsq in bf16
    "baseline-wander-lstsq-bf16": case(_baseline_wander_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # heart-rate EMA: fp32 state lerp_'ed toward float64 readings from numpy
    "heart-rate-ema-lerp-f64-readings": case(_heart_rate_ema_lerp_float64, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # per-class beat templates: fp16 beats index_add_'ed into fp32 sums
    "beat-templates-index-add-fp16": case(_beat_template_index_add_fp16, "indexed_write_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # beat-to-template distances by torch.cdist in bf16
    "template-matching-cdist-bf16": case(_template_matching_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # HRV power spectrum by torch.fft.rfft of an fp16 tachogram
    "hrv-spectrum-rfft-fp16-tachogram": case(_hrv_spectrum_rfft_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # stage-transition matrix from counts with unseen stages (0/0 NaN rows) given to Categorical
    "stage-transitions-nan-categorical": case(_stage_transitions_nan_categorical, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 sleep-stage head stepped through GradScaler on the CPU
    "fp16-sleep-head-grad-scaler-step": case(_fp16_sleep_model_grad_scaler_step, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
