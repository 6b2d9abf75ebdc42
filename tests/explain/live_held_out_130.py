"""Held-out live set 130: earthquake seismology and geophysics written by hand in low precision (waveforms as int32
counts and float64 arrays from ObsPy, bandpass filters and STFTs, phase picking with argmax over int64 sample indices,
bool event masks, station coordinates in float64, bf16 autocast around U-Net pickers and transformer detectors).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at b21193f2."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from scipy.signal import firwin
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b21193f2"

bf16, f16 = torch.bfloat16, torch.float16
_FS = 100.0  # samples per second
_NPTS = 3001  # a 30 s window at 100 Hz, as PhaseNet takes it


def _seeded() -> None:
    torch.manual_seed(0)


def _mseed_counts() -> np.ndarray:
    """What ObsPy's read() gives for a Steim-compressed miniSEED stream: int32 counts, three components."""
    rng = np.random.default_rng(0)
    return rng.integers(-40_000, 40_000, size=(3, _NPTS), dtype=np.int32)


def _station_table() -> np.ndarray:
    """Latitude, longitude, elevation (km) of five stations, float64 as read from a StationXML inventory."""
    return np.array([[35.71, -117.50, 0.68], [35.80, -117.60, 0.75], [35.65, -117.41, 0.71],
                     [35.90, -117.72, 1.02], [35.59, -117.66, 0.80]])


def _phasenet_stem() -> nn.Sequential:
    return nn.Sequential(nn.Conv1d(3, 8, 7, padding=3), nn.BatchNorm1d(8), nn.ReLU())


# --- waveforms: int32 counts and float64 arrays ---------------------------------------------------------------------


def _mseed_int32_counts_into_phasenet() -> None:
    _seeded()
    waveform = torch.from_numpy(_mseed_counts())[None]
    _phasenet_stem()(waveform)


def _obspy_filtered_f64_into_phasenet() -> None:
    _seeded()
    data = _mseed_counts().astype(np.float64)  # Stream.detrend() and .filter() leave float64 data
    data -= data.mean(axis=1, keepdims=True)
    data /= np.abs(data).max(axis=1, keepdims=True)
    _phasenet_stem()(torch.from_numpy(data)[None])


def _counts_noise_augmentation() -> torch.Tensor:
    _seeded()
    counts = torch.from_numpy(_mseed_counts())
    noise = torch.randn_like(counts) * counts.abs().max() * 0.05
    return counts + noise


def _counts_clamped_at_digitiser_limit() -> None:
    counts = torch.from_numpy(_mseed_counts())
    counts.clamp(-2**31, 2**31)  # 24-bit digitiser written as a 32-bit range, one past int32's max


def _counts_response_removed_in_place() -> None:
    counts = torch.from_numpy(_mseed_counts())
    sensitivity = 6.29e8  # counts per m/s from the inventory's overall sensitivity
    counts.div_(sensitivity)


# --- bandpass filters and STFTs -------------------------------------------------------------------------------------


def _fir_bandpass_with_firwin_taps() -> None:
    _seeded()
    traces = torch.randn(3, 1, _NPTS)
    taps = torch.from_numpy(firwin(101, [1.0, 20.0], pass_zero=False, fs=_FS))  # float64 from scipy
    F.conv1d(traces, taps.view(1, 1, -1), padding=50)


def _stft_of_bf16_waveforms() -> None:
    _seeded()
    day = torch.randn(3, 60 * 60 * 100).to(bf16)  # an hour of 100 Hz data stored bf16 to save memory
    window = torch.hann_window(256, dtype=day.dtype)
    torch.stft(day, 256, hop_length=64, window=window, return_complex=True)


# --- phase picking: argmax over int64 sample indices ----------------------------------------------------------------


def _pick_residual_mean_in_samples() -> None:
    _seeded()
    probs = torch.rand(8, 3, _NPTS).softmax(1)
    predicted = probs[:, 0].argmax(-1)  # P picks as int64 sample indices
    catalogue = torch.randint(0, _NPTS, (8,))
    (predicted - catalogue).abs().mean()


def _p_onset_from_catalogue_seconds_gathered() -> None:
    _seeded()
    waveforms = torch.randn(4, _NPTS)
    p_seconds = torch.tensor([5.21, 7.80, 3.13, 12.47])  # arrival minus window start, UTCDateTime arithmetic
    onset = torch.round(p_seconds * _FS)[:, None]
    torch.gather(waveforms, 1, onset + torch.arange(-50, 50))


def _network_codes_from_pandas_into_embedding() -> None:
    import pandas as pd

    _seeded()
    picks = pd.DataFrame({"station": ["CI.CCC", "CI.SLA", "CI.WBM", "NC.XYZ"]})
    codes = pd.DataFrame({"station": ["CI.CCC", "CI.SLA", "CI.WBM"], "sta_id": [0, 1, 2]})
    merged = picks.merge(codes, on="station", how="left").fillna(0)  # the NaN turns sta_id into float64
    nn.Embedding(16, 8)(torch.from_numpy(merged["sta_id"].to_numpy()))


# --- bool event masks -----------------------------------------------------------------------------------------------


def _noise_mask_as_one_minus_event_mask() -> None:
    _seeded()
    detection = torch.rand(4, _NPTS)
    event_mask = detection > 0.5
    noise_mask = 1 - event_mask
    noise_mask.sum()


def _coincidence_trigger_mean_over_stations() -> torch.Tensor:
    _seeded()
    sta_lta = torch.rand(5, _NPTS) * 6.0
    triggered = sta_lta > 3.5
    fraction = triggered.mean(0)  # share of the five stations triggered at each sample
    return fraction > 0.6


def _event_mask_median_filter() -> None:
    _seeded()
    event_mask = torch.rand(4, _NPTS) > 0.3
    event_mask.unfold(-1, 5, 1).median(-1)


def _detector_int64_padding_mask_from_numpy() -> None:
    _seeded()
    lengths = np.array([120, 94])  # windows of feature frames, the second one padded
    padding = torch.from_numpy((np.arange(120)[None] >= lengths[:, None]).astype(int))
    attention = nn.MultiheadAttention(32, 4, batch_first=True)
    frames = torch.randn(2, 120, 32)
    attention(frames, frames, frames, key_padding_mask=padding)


# --- station coordinates in float64 ---------------------------------------------------------------------------------


def _station_coordinates_f64_into_linear() -> None:
    _seeded()
    station_encoder = nn.Sequential(nn.Linear(3, 32), nn.GELU(), nn.Linear(32, 32))
    station_encoder(torch.from_numpy(_station_table()))


def _geiger_step_lstsq_f64_jacobian() -> None:
    _seeded()
    stations = torch.from_numpy(_station_table())
    source = torch.tensor([35.75, -117.55, 8.0], dtype=torch.float64)
    jacobian = torch.cat([(source[:2] - stations[:, :2]) / 0.5, torch.ones(5, 1, dtype=torch.float64)], 1)
    residuals = torch.randn(5, 1)  # observed minus predicted times from the picker, fp32
    torch.linalg.lstsq(jacobian, residuals)


def _geiger_gradient_from_numpy_assigned() -> None:
    hypocentre = nn.Parameter(torch.tensor([35.75, -117.55, 8.0]))
    optimizer = torch.optim.Adam([hypocentre], lr=0.01)
    jacobian = np.ones((5, 3)) * 0.2
    residuals = np.array([0.1, -0.2, 0.05, 0.3, -0.1])
    hypocentre.grad = torch.from_numpy(jacobian.T @ residuals)
    optimizer.step()


def _travel_time_misfit_source_on_station() -> None:
    stations = torch.tensor([[0.0, 0.0], [12.0, 5.0], [-8.0, 9.0]])  # km east, km north
    source = nn.Parameter(torch.tensor([0.0, 0.0]))  # started at the first station, as the grid search picked it
    observed = torch.tensor([0.4, 2.3, 2.1])
    with torch.autograd.detect_anomaly():
        distance = torch.sqrt(((stations - source) ** 2).sum(-1))
        ((distance / 6.0 - observed) ** 2).sum().backward()


def _polarisation_eigh_of_bf16_covariance() -> None:
    _seeded()
    window = torch.randn(3, 200).to(bf16)  # Z, N, E around the P pick, from the bf16 detector's input
    window = window - window.mean(-1, keepdim=True)
    covariance = window @ window.T / window.shape[-1]
    torch.linalg.eigh(covariance)


# --- bf16 autocast and bf16/fp16 models: U-Net pickers and transformer detectors ------------------------------------


def _autocast_phasenet_f64_waveforms() -> None:
    _seeded()
    picker = _phasenet_stem().eval()
    waveform = torch.from_numpy(_mseed_counts().astype(np.float64) / 4e4)[None]
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        picker(waveform)


def _phasenet_bf16_after_fp32_first_conv() -> None:
    _seeded()
    first = nn.Conv1d(3, 8, 7, padding=3)  # kept fp32 for the raw amplitudes
    rest = nn.Sequential(nn.BatchNorm1d(8), nn.ReLU(), nn.Conv1d(8, 8, 7, padding=3)).to(bf16)
    rest(first(torch.randn(2, 3, _NPTS)))


def _sliding_window_overlap_add_bf16() -> None:
    _seeded()
    picker = nn.Sequential(nn.Conv1d(3, 3, 7, padding=3), nn.Softmax(dim=1)).eval()
    stream = torch.randn(3, 9000)
    accumulated = torch.zeros(3, 9000)
    window, step = 3000, 1500
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        for start in range(0, 9000 - window + 1, step):
            probabilities = picker(stream[None, :, start:start + window])[0]
            accumulated.index_add_(1, torch.arange(start, start + window), probabilities)


def _detector_head_outside_autocast() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Conv1d(3, 16, 11, stride=4, padding=5), nn.ReLU())
    head = nn.Linear(16, 1)
    with torch.autocast("cpu", dtype=bf16):
        features = encoder(torch.randn(2, 3, _NPTS))
    head(features.transpose(1, 2))


def _bf16_detector_float_key_padding_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    frames = torch.randn(2, 120, 32, dtype=bf16)
    padding = torch.zeros(2, 120)
    padding[1, 94:] = float("-inf")
    attention(frames, frames, frames, key_padding_mask=padding)


def _autocast_station_attention_numpy_distance_bias() -> None:
    _seeded()
    table = _station_table()
    distance_km = np.linalg.norm((table[:, None, :2] - table[None, :, :2]) * 111.2, axis=-1)
    bias = torch.from_numpy(-distance_km / 50.0)  # nearer stations attend more: float64
    q = k = v = torch.randn(1, 4, 5, 16)
    with torch.autocast("cpu", dtype=bf16):
        F.scaled_dot_product_attention(q, k, v, attn_mask=bias)


def _waveform_queries_fp32_station_keys() -> None:
    _seeded()
    station_encoder = nn.Linear(3, 64)  # built after model.to(bf16), left fp32
    waveform_features = torch.randn(1, 4, 750, 16, dtype=bf16)
    stations = station_encoder(torch.from_numpy(_station_table()).float()).view(5, 4, 16).transpose(0, 1)[None]
    F.scaled_dot_product_attention(waveform_features, stations, stations)


def _eqtransformer_bilstm_bf16_fp32_features() -> None:
    _seeded()
    frontend = nn.Conv1d(3, 16, 11, stride=4, padding=5)  # kept fp32
    bilstm = nn.LSTM(16, 16, bidirectional=True, batch_first=True).to(bf16)
    features = frontend(torch.randn(2, 3, _NPTS)).transpose(1, 2)
    bilstm(features)


def _fp16_autocast_detector_causal_mask() -> None:
    _seeded()
    frames = torch.randn(2, 47, 32)
    projection = nn.Linear(32, 32)
    with torch.autocast("cpu", dtype=f16):
        q = projection(frames)
        scores = q @ q.transpose(1, 2) / 32**0.5
        future = torch.ones(47, 47, dtype=torch.bool).triu(1)
        scores.masked_fill(future, -1e9).softmax(-1)


def _bf16_picks_to_numpy_for_trace() -> None:
    _seeded()
    picker = nn.Sequential(nn.Conv1d(3, 3, 7, padding=3), nn.Softmax(dim=1)).to(bf16).eval()
    with torch.no_grad():
        probabilities = picker(torch.randn(1, 3, _NPTS).to(bf16))
    probabilities[0, 0].numpy()  # to build an ObsPy Trace of the P probability


def _denoiser_bf16_mask_bce_fp32_target() -> None:
    _seeded()
    denoiser = nn.Sequential(nn.Conv2d(2, 2, 3, padding=1), nn.Sigmoid()).to(bf16)
    spectrogram = torch.randn(1, 2, 31, 201, dtype=bf16)
    target_mask = torch.rand(1, 2, 31, 201)  # signal / (signal + noise) from the clean and noise STFTs
    F.binary_cross_entropy(denoiser(spectrogram), target_mask)


CASES: dict[str, LiveCase] = {
    # ObsPy's int32 miniSEED counts through torch.from_numpy straight into PhaseNet's first Conv1d
    "mseed-int32-counts-phasenet-conv1d": case(_mseed_int32_counts_into_phasenet, "integer_operand", "int32", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Stream.detrend()/.filter() leave float64 data, given to the fp32 PhaseNet
    "obspy-filtered-f64-phasenet-conv1d": case(_obspy_filtered_f64_into_phasenet, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Gaussian noise augmentation drawn with randn_like of the int32 counts
    "counts-int32-noise-augment-randn-like": case(_counts_noise_augmentation, "no_kernel", "int32",
        grade="correct", grade_at_freeze="correct"),
    # int32 counts clipped at +-2**31, one past int32's largest value
    "counts-int32-clamp-2-pow-31": case(_counts_clamped_at_digitiser_limit, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # instrument sensitivity removed from the int32 counts in place with div_
    "counts-int32-sensitivity-div-in-place": case(_counts_response_removed_in_place, "result_cast", "f32", "int32",
        grade="correct", grade_at_freeze="correct"),
    # FIR bandpass: scipy firwin taps (float64) convolved with fp32 traces by conv1d
    "fir-bandpass-firwin-f64-taps-conv1d": case(_fir_bandpass_with_firwin_taps, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # spectrograms of an hour of waveforms stored bf16, with a bf16 Hann window
    "stft-bf16-hour-of-waveforms": case(_stft_of_bf16_waveforms, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # mean absolute P-pick residual in samples over argmax's int64 indices
    "pick-residual-int64-mean": case(_pick_residual_mean_in_samples, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # P onsets from catalogue seconds * fs, rounded but left float, used to gather a window around each pick
    "p-onset-float-gather-window": case(_p_onset_from_catalogue_seconds_gathered, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # station ids merged from a pandas table, float64 after the NaN fill, into a station nn.Embedding
    "pandas-f64-station-ids-embedding": case(_network_codes_from_pandas_into_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # noise mask written as 1 - the bool event mask
    "noise-mask-one-minus-bool-event-mask": case(_noise_mask_as_one_minus_event_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # coincidence trigger: fraction of stations triggered as the mean of the bool STA/LTA triggers
    "coincidence-trigger-bool-mean": case(_coincidence_trigger_mean_over_stations, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a bool event mask median-filtered over unfold windows to remove one-sample spikes
    "event-mask-bool-median-filter": case(_event_mask_median_filter, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a transformer detector's key_padding_mask built with numpy .astype(int) (int64)
    "detector-int64-key-padding-mask": case(_detector_int64_padding_mask_from_numpy, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # float64 station latitude/longitude/elevation from the inventory into an fp32 station encoder
    "station-coords-f64-linear-encoder": case(_station_coordinates_f64_into_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Geiger location step: lstsq of a float64 Jacobian from station coordinates and fp32 picker residuals
    "geiger-lstsq-f64-jacobian-fp32-residuals": case(_geiger_step_lstsq_f64_jacobian, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Geiger gradient J^T r computed in numpy (float64), assigned to the fp32 hypocentre's .grad
    "geiger-numpy-f64-gradient-assigned": case(_geiger_gradient_from_numpy_assigned, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # gradient location started on a station: sqrt of a zero distance, NaN gradient under anomaly mode
    "location-source-on-station-sqrt-nan": case(_travel_time_misfit_source_on_station, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # polarisation analysis: eigh of the 3-C covariance of bf16 waveforms
    "polarisation-eigh-bf16-covariance": case(_polarisation_eigh_of_bf16_covariance, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autocast around PhaseNet given float64 waveforms (autocast leaves float64 alone)
    "autocast-phasenet-f64-waveforms": case(_autocast_phasenet_f64_waveforms, "conv_weight_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # first conv kept fp32, the rest of PhaseNet cast to bf16: its BatchNorm1d gets the fp32 features
    "phasenet-bf16-batchnorm-after-fp32-conv": case(_phasenet_bf16_after_fp32_first_conv, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # continuous annotation: bf16 window probabilities index_add_'ed into an fp32 overlap buffer
    "overlap-add-index-add-bf16-windows": case(_sliding_window_overlap_add_bf16, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # detector encoder under bf16 autocast, its fp32 Linear head applied after the block
    "detector-head-outside-autocast": case(_detector_head_outside_autocast, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 MultiheadAttention detector given an fp32 additive key_padding_mask (0 / -inf)
    "bf16-detector-fp32-key-padding-mask": case(_bf16_detector_float_key_padding_mask, "attn_mask_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # station attention under bf16 autocast with a numpy inter-station distance bias (float64) as attn_mask
    "autocast-sdpa-numpy-distance-bias-f64": case(_autocast_station_attention_numpy_distance_bias, "attn_mask_dtype",
                                                  "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 waveform queries attending to station keys/values from an encoder left fp32
    "sdpa-bf16-waveform-fp32-station-keys": case(_waveform_queries_fp32_station_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # EQTransformer-style BiLSTM cast to bf16, fed by the fp32 conv front end
    "eqt-bilstm-bf16-fp32-features": case(_eqtransformer_bilstm_bf16_fp32_features, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 autocast on CPU around a causal detector, future frames masked with -1e9
    "fp16-autocast-detector-mask-minus-1e9": case(_fp16_autocast_detector_causal_mask, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 P probabilities turned into numpy for an ObsPy Trace
    "bf16-probabilities-numpy-for-trace": case(_bf16_picks_to_numpy_for_trace, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DeepDenoiser-style bf16 sigmoid mask trained with BCE against an fp32 target mask
    "denoiser-bf16-mask-bce-fp32-target": case(_denoiser_bf16_mask_bce_fp32_target, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
