"""Held-out live set 154: fisheries and underwater acoustics written by hand in low precision (hydrophone int16
recordings, float64 sonar and echosounder features from numpy, uint8 echogram images and label masks, fp16 CNN
detectors for clicks and schools, bf16 sequence models over sightings, count regression with Poisson losses and
effort offsets). Defects planted by a helper who never read the rules, written before castwise ran and graded once
with the rules frozen at 0f754d66."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "0f754d66"

bf16, f16 = torch.bfloat16, torch.float16
_FS = 96_000  # hydrophone sample rate (SoundTrap-style), Hz
_PINGS, _SAMPLES = 16, 32  # echogram: pings x range samples
_FREQS = (38.0, 70.0, 120.0, 200.0)  # EK80 transducer frequencies, kHz
_SPECIES = 6  # herring, sprat, mackerel, sandeel, cod, other
_SIGHTING_FEATURES = 8  # bearing, distance, group size, Beaufort, glare, depth, SST, time of day


def _seeded() -> None:
    torch.manual_seed(0)


def _hydrophone_pcm(n: int = 512) -> torch.Tensor:
    """A hydrophone recording as a WAV reader returns it: int16 counts, one porpoise-like click in noise."""
    rng = np.random.default_rng(0)
    pcm = rng.normal(0.0, 300.0, n)
    t = np.arange(64) / _FS
    pcm[200:264] += 12000.0 * np.sin(2 * np.pi * 130_000.0 / 2 * t) * np.hanning(64)
    return torch.from_numpy(pcm.astype(np.int16))


def _sv_echogram() -> torch.Tensor:
    """Volume backscattering strength Sv (dB re 1 m^-1) per ping and range sample, fp32."""
    _seeded()
    sv = torch.full((_PINGS, _SAMPLES), -80.0) + 3.0 * torch.randn(_PINGS, _SAMPLES)
    sv[4:10, 12:18] += 30.0  # a herring school
    sv[:, 26:] = -20.0  # the seabed echo
    return sv


def _sightings(batch: int = 2, length: int = 5) -> torch.Tensor:
    _seeded()
    return torch.randn(batch, length, _SIGHTING_FEATURES)


# --- floating dtypes meeting


def _cpue_glm_log_effort_offset_addmm() -> None:
    _seeded()
    covariates = torch.randn(6, 4)  # year, quarter, depth, vessel power (standardised)
    hours_trawled = np.array([1.0, 0.5, 2.0, 1.5, 0.75, 1.0])  # from the logbook table, float64
    log_effort = torch.from_numpy(np.log(hours_trawled))
    beta = nn.Parameter(torch.zeros(4, 1))
    log_rate = torch.addmm(log_effort[:, None], covariates, beta)  # offset + X @ beta
    torch.exp(log_rate)


def _click_classifier_int8_codes_fp16_head() -> None:
    _seeded()
    features = torch.randn(3, 16, dtype=f16)  # from the halved click CNN
    weight = torch.randn(_SPECIES, 16)
    scale = weight.abs().amax(1, keepdim=True) / 127
    codes = torch.round(weight / scale).to(torch.int8)  # weight-only int8, scale kept for later
    F.linear(features, codes)


def _echogram_unet_halved_fp32_sv() -> None:
    _seeded()
    unet_stem = nn.Sequential(nn.Conv2d(len(_FREQS), 8, 3, padding=1), nn.ReLU()).half()
    sv = torch.stack([_sv_echogram() for _ in _FREQS])[None]  # (1, 4, pings, samples), fp32
    unet_stem((sv + 80.0) / 50.0)


def _porpoise_click_matched_filter_f64_template() -> None:
    waveform = _hydrophone_pcm().float()[None, None] / 32768.0
    t = np.arange(33) / _FS
    template = np.sin(2 * np.pi * 130_000.0 / 2 * t) * np.hanning(33)  # numpy: float64
    kernel = torch.from_numpy(template[::-1].copy())[None, None]
    F.conv1d(waveform, kernel, padding=16)


class _RangeConv(nn.Conv1d):
    """Conv over range samples written by hand for a bf16 model: the weight follows the input, the bias does not."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv1d(x, self.weight.to(x.dtype), self.bias, padding=1)


def _range_conv_bias_left_fp32() -> None:
    _seeded()
    conv = _RangeConv(_PINGS, 8, 3)
    conv(_sv_echogram().T[None].to(bf16))


def _sound_speed_profile_f64_layer_norm() -> None:
    _seeded()
    depth = np.linspace(0.0, 200.0, 16)
    temperature, salinity = 12.0 - 0.03 * depth, 35.0 + 0.002 * depth
    sound_speed = 1449.2 + 4.6 * temperature - 0.055 * temperature**2 + 1.34 * (salinity - 35) + 0.016 * depth
    profiles = torch.from_numpy(np.stack([sound_speed, sound_speed + 1.5]))  # Medwin's formula, float64
    nn.LayerNorm(16)(profiles)


def _whistle_contour_fp32_into_bf16_lstm() -> None:
    _seeded()
    contour_khz = torch.tensor([[8.0, 9.5, 11.0, 12.2, 13.0, 12.1]])[..., None]  # dolphin whistle peak frequency
    tracker = nn.LSTM(1, 16, batch_first=True).to(bf16)
    tracker(contour_khz / 20.0)


def _sightings_sdpa_fp32_effort_keys() -> None:
    _seeded()
    query_proj = nn.Linear(_SIGHTING_FEATURES, 16).to(bf16)
    effort_encoder = nn.Linear(3, 16)  # Beaufort, visibility, observers on effort; left fp32
    sightings = _sightings().to(bf16)
    effort = torch.rand(2, 5, 3)
    q = query_proj(sightings)[:, None]
    kv = effort_encoder(effort)[:, None]
    F.scaled_dot_product_attention(q, kv, kv)


def _sightings_mha_fp32_distance_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(_SIGHTING_FEATURES, 2, batch_first=True).to(bf16)
    positions_km = torch.tensor([0.0, 1.2, 3.5, 9.0, 15.0])  # along the transect
    decay = -(positions_km[:, None] - positions_km[None, :]).abs() / 5.0  # additive distance bias, fp32
    x = _sightings().to(bf16)
    attention(x, x, x, attn_mask=decay)


def _hydrophone_array_beamforming_bmm() -> None:
    _seeded()
    bands, elements, looks = 4, 8, 12
    snapshots = torch.randn(bands, 10, elements, dtype=bf16)  # per-band real snapshots from the bf16 front end
    steering = torch.randn(bands, elements, looks)  # delay-and-sum weights built from geometry in fp32
    torch.bmm(snapshots, steering).pow(2).mean(1)


def _echogram_denoised_written_back_by_mask() -> None:
    _seeded()
    sv = _sv_echogram()
    denoiser = nn.Linear(_SAMPLES, _SAMPLES).to(bf16)
    denoised = denoiser(sv.to(bf16) / 80.0) * 80.0
    noisy = sv > -60.0  # impulse noise from the ship's other sounder
    sv[noisy] = denoised[noisy]


def _ctd_casts_lerp_bf16_weight() -> None:
    _seeded()
    morning_cast = torch.linspace(1510.0, 1490.0, 16)
    evening_cast = torch.linspace(1512.0, 1488.0, 16)
    fraction = (torch.tensor(14.5) - 6.0) / 12.0
    weight = torch.full((16,), fraction.item(), dtype=bf16)  # time fraction made beside the bf16 model
    torch.lerp(morning_cast, evening_cast, weight)


def _presence_bce_fp16_probabilities() -> None:
    _seeded()
    detector = nn.Sequential(nn.Conv1d(1, 4, 9, padding=4), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
                             nn.Linear(4, 1)).half()
    clips = torch.randn(3, 1, 256, dtype=f16)
    present = torch.tensor([1.0, 0.0, 1.0])  # annotator labels per clip, fp32
    probabilities = torch.sigmoid(detector(clips)).squeeze(1)
    F.binary_cross_entropy(probabilities, present)


def _effort_weighting_gradient_hook_f64() -> None:
    _seeded()
    head = nn.Linear(_SIGHTING_FEATURES, 1)
    effort_km = np.array([12.0, 3.5, 20.0])  # survey effort per leg from the cruise database
    rate = head(torch.randn(3, _SIGHTING_FEATURES)).exp()
    rate.register_hook(lambda grad: grad * torch.from_numpy(effort_km / effort_km.mean())[:, None])
    F.poisson_nll_loss(rate, torch.tensor([[1.0], [0.0], [4.0]]), log_input=False).backward()


def _halved_click_detector_grad_scaler() -> None:
    _seeded()
    detector = nn.Sequential(nn.Conv1d(1, 4, 9), nn.ReLU(), nn.AdaptiveMaxPool1d(1), nn.Flatten()).half()
    optimizer = torch.optim.Adam(detector.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    clips = (_hydrophone_pcm().float() / 32768.0).half().reshape(2, 1, 256)
    loss = detector(clips).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(detector.parameters(), 1.0)


# --- kernels missing for the dtype


def _music_doa_eigh_bf16_covariance() -> None:
    _seeded()
    snapshots = torch.randn(8, 50, dtype=bf16)  # 8-element towed array, bf16 front end
    covariance = snapshots @ snapshots.T / 50
    torch.linalg.eigh(covariance)


def _hydrophone_stft_fp16() -> None:
    waveform = (_hydrophone_pcm().float() / 32768.0).half()  # "halve everything" to fit a day of recordings
    torch.stft(waveform, 128, hop_length=32, window=torch.hann_window(128, dtype=f16), return_complex=True)


def _noise_augmentation_randn_like_int16() -> None:
    _seeded()
    pcm = _hydrophone_pcm()
    pcm + 200 * torch.randn_like(pcm)


def _click_detections_median_filter_bool() -> None:
    _seeded()
    energy = torch.rand(40)
    detections = energy > 0.7
    detections.unfold(0, 5, 1).median(-1)  # remove isolated detections


# --- a number outside the dtype's range


def _echoview_no_data_in_fp16_echogram() -> None:
    sv = _sv_echogram().half()
    below_bottom = torch.zeros(_PINGS, _SAMPLES, dtype=torch.bool)
    below_bottom[:, 27:] = True
    sv.masked_fill(below_bottom, -9.9e37)  # Echoview's "no data" Sv value


def _echogram_label_mask_padded_with_ignore() -> None:
    labels = torch.zeros(_PINGS, 30, dtype=torch.uint8)  # 0 background, 1 herring, 2 sandeel, from a PNG mask
    labels[4:10, 12:18] = 1
    F.pad(labels, (0, 2), value=-1)  # pad range to 32 with ignore_index=-1


# --- numpy interop


def _raven_selection_table_bf16_scores() -> None:
    _seeded()
    detector_head = nn.Linear(16, 1).to(bf16)
    scores = torch.sigmoid(detector_head(torch.randn(5, 16, dtype=bf16))).squeeze(1)
    begin_s = np.arange(5) * 2.0
    np.stack([begin_s, begin_s + 2.0, scores.detach().numpy()], axis=1)  # Raven selection table rows


# --- NaN


def _poisson_deviance_zero_catch_anomaly() -> None:
    catch = torch.tensor([0.0, 3.0, 12.0, 0.0])  # hauls with no catch are common
    log_rate = nn.Parameter(torch.tensor([0.1, 1.0, 2.4, -0.5]))
    rate = log_rate.exp()
    with torch.autograd.detect_anomaly():
        deviance = 2 * (catch * torch.log(catch / rate) - (catch - rate))
        deviance.mean().backward()


# --- integer, bool, index and mask dtypes


def _uint8_echogram_image_into_conv() -> None:
    _seeded()
    image = torch.zeros(1, 1, _PINGS, _SAMPLES, dtype=torch.uint8)  # echogram exported as 8-bit greyscale PNG
    image[..., 4:10, 12:18] = 200
    nn.Conv2d(1, 8, 3, padding=1)(image)


def _ambient_noise_rms_vector_norm_int16() -> None:
    pcm = _hydrophone_pcm()
    rms = torch.linalg.vector_norm(pcm) / pcm.numel() ** 0.5
    20 * torch.log10(rms)


def _pcm_calibration_gain_in_place() -> None:
    pcm = _hydrophone_pcm()
    end_to_end_sensitivity_db = -176.2
    pcm.mul_(10 ** (-end_to_end_sensitivity_db / 20) / 32768.0)  # counts to micropascals, in place


def _echogram_label_mask_uint8_cross_entropy() -> None:
    _seeded()
    labels = torch.zeros(1, _PINGS, _SAMPLES, dtype=torch.uint8)  # read from the annotation PNG
    labels[:, 4:10, 12:18] = 1
    logits = torch.randn(1, 3, _PINGS, _SAMPLES, requires_grad=True)
    F.cross_entropy(logits, labels)


def _catch_counts_int64_huber_target() -> None:
    _seeded()
    regressor = nn.Linear(4, 1)
    counts = torch.tensor([0, 14, 3, 120])  # fish per haul from the catch sampling table
    predicted = regressor(torch.randn(4, 4)).squeeze(1).exp()
    F.huber_loss(predicted, counts, delta=5.0).backward()


def _bottom_depth_gather_float_index() -> None:
    sv = _sv_echogram()
    bottom_m = torch.full((_PINGS, 1), 26.0 * 0.5)  # bottom line in metres, 0.5 m range samples
    bottom_sample = bottom_m / 0.5
    torch.gather(sv, 1, bottom_sample)  # bottom Sv per ping


def _school_region_uint8_masked_select() -> None:
    sv = _sv_echogram()
    region = np.zeros((_PINGS, _SAMPLES), dtype=np.uint8)  # Echoview region mask export
    region[4:10, 12:18] = 1
    inside = torch.masked_select(sv, torch.from_numpy(region))
    10 * torch.log10(torch.pow(10, inside / 10).mean())  # mean Sv of the school


CASES: dict[str, LiveCase] = {
    # CPUE standardisation: float64 log(hours trawled) from the logbook as addmm's offset of an fp32 Poisson GLM
    "cpue-log-effort-f64-addmm-offset": case(_cpue_glm_log_effort_offset_addmm, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # weight-only int8 codes of the species head used directly with the halved click CNN's fp16 features
    "click-head-int8-codes-fp16-linear": case(_click_classifier_int8_codes_fp16_head, "matmul_dtype", "f16", "int8",
        grade="correct", grade_at_freeze="correct"),
    # a halved multi-frequency echogram U-Net stem given the fp32 normalised Sv stack
    "echogram-unet-halved-fp32-sv": case(_echogram_unet_halved_fp32_sv, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # porpoise click matched filter: fp32 hydrophone waveform conv1d'd with a numpy (float64) click template
    "porpoise-click-template-f64-conv1d": case(_porpoise_click_matched_filter_f64_template, "conv_weight_dtype",
                                               "f32", "f64", grade="correct",
                                               grade_at_freeze="correct"),
    # hand-written range conv in a bf16 model casting its weight to the input but passing the fp32 bias
    "range-conv-bias-left-fp32": case(_range_conv_bias_left_fp32, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # sound-speed profiles from Medwin's formula in numpy (float64) through an fp32 LayerNorm
    "sound-speed-profile-f64-layer-norm": case(_sound_speed_profile_f64_layer_norm, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # dolphin whistle contours (fp32 peak frequency) fed to a bf16 LSTM contour tracker
    "whistle-contour-fp32-bf16-lstm": case(_whistle_contour_fp32_into_bf16_lstm, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 sighting queries attending to keys/values from an fp32 survey-effort encoder through SDPA
    "sightings-sdpa-fp32-effort-keys": case(_sightings_sdpa_fp32_effort_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 MultiheadAttention over transect sightings with an fp32 additive along-track distance bias
    "sightings-mha-fp32-distance-mask": case(_sightings_mha_fp32_distance_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # delay-and-sum beamforming of bf16 array snapshots with fp32 steering weights by torch.bmm
    "array-beamforming-bmm-fp32-steering": case(_hydrophone_array_beamforming_bmm, "batched_matmul_dtype", "bf16",
                                                "f32", grade="correct",
                                                grade_at_freeze="correct"),
    # impulse-noise cells of the fp32 echogram replaced by a bf16 denoiser's output through a bool mask
    "echogram-denoised-bf16-written-by-mask": case(_echogram_denoised_written_back_by_mask, "indexed_write_dtype",
                                                   "f32", "bf16", grade="correct",
                                                   grade_at_freeze="correct"),
    # sound speed interpolated between two fp32 CTD casts with torch.lerp and a bf16 time-fraction weight
    "ctd-casts-lerp-bf16-weight": case(_ctd_casts_lerp_bf16_weight, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # presence BCE of a halved detector's fp16 probabilities against fp32 annotator labels
    "presence-bce-fp16-probabilities": case(_presence_bce_fp16_probabilities, "op_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook on the per-leg encounter rate weighting it by numpy (float64) survey effort
    "effort-gradient-hook-f64": case(_effort_weighting_gradient_hook_f64, "loss_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a click detector halved with .half() and trained through GradScaler, unscale_ before clipping
    "halved-click-detector-grad-scaler": case(_halved_click_detector_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # MUSIC direction of arrival: eigh of a bf16 towed-array covariance
    "music-doa-eigh-bf16-covariance": case(_music_doa_eigh_bf16_covariance, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # spectrogram of a hydrophone recording halved to fp16 by torch.stft
    "hydrophone-stft-fp16": case(_hydrophone_stft_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # noise augmentation of raw int16 hydrophone counts with randn_like
    "noise-augmentation-randn-like-int16": case(_noise_augmentation_randn_like_int16, "no_kernel", "int16",
        grade="correct", grade_at_freeze="correct"),
    # isolated click detections removed by a sliding median over the bool detection train
    "click-detections-median-filter-bool": case(_click_detections_median_filter_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Echoview's -9.9e37 "no data" Sv written below the bottom of an fp16 echogram with masked_fill
    "echoview-no-data-fp16-masked-fill": case(_echoview_no_data_in_fp16_echogram, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a uint8 echogram label mask padded in range with the ignore index -1
    "echogram-labels-uint8-pad-ignore": case(_echogram_label_mask_padded_with_ignore, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # bf16 detection scores through .numpy() for a Raven selection table
    "raven-selection-table-bf16-numpy": case(_raven_selection_table_bf16_scores, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Poisson deviance with y * log(y / mu) over hauls with zero catch, under anomaly mode
    "poisson-deviance-zero-catch-anomaly": case(_poisson_deviance_zero_catch_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # an 8-bit greyscale echogram PNG (uint8) fed straight to an fp32 Conv2d
    "echogram-png-uint8-conv2d": case(_uint8_echogram_image_into_conv, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ambient noise level (RMS, dB) by linalg.vector_norm of raw int16 hydrophone counts
    "ambient-noise-rms-vector-norm-int16": case(_ambient_noise_rms_vector_norm_int16, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # int16 counts calibrated to micropascals in place with the end-to-end sensitivity
    "pcm-calibration-gain-in-place-int16": case(_pcm_calibration_gain_in_place, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # echogram segmentation with the uint8 annotation mask as cross_entropy's target
    "echogram-labels-uint8-cross-entropy": case(_echogram_label_mask_uint8_cross_entropy, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # count regressor trained with huber_loss against int64 fish-per-haul counts, backward
    "catch-counts-int64-huber-target": case(_catch_counts_int64_huber_target, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # bottom Sv per ping gathered at the bottom line's float sample index
    "bottom-depth-gather-float-index": case(_bottom_depth_gather_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # school echo integration with masked_select on Echoview's uint8 region mask
    "school-region-uint8-masked-select": case(_school_region_uint8_masked_select, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
}
