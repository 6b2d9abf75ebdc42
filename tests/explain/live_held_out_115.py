"""Held-out live set 115: predictive maintenance and remaining-useful-life estimation written by hand in low precision
(C-MAPSS-style sensor tables from pandas as float64, int64 unit and cycle ids, bool failure labels, piecewise-linear RUL
targets clipped as integers, 1-D CNN/TCN/LSTM encoders, sliding windows by unfold and stride tricks, survival-style
losses, min-max scalers kept in float64, bf16 autocast around the models). Defects planted by a helper who never read
the rules, written before castwise ran and graded once with the rules frozen at aee33e1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "aee33e1"

bf16, f16 = torch.bfloat16, torch.float16
_SENSORS = 14  # the informative C-MAPSS sensors
_WINDOW = 30
_RUL_CAP = 125


def _seeded() -> None:
    torch.manual_seed(0)


def _sensor_frame(units: int = 2, cycles: int = 40) -> pd.DataFrame:
    """A small C-MAPSS-like table: one row per (unit, cycle), float64 sensor columns as pandas reads them."""
    rng = np.random.default_rng(0)
    rows = units * cycles
    frame = pd.DataFrame({
        "unit": np.repeat(np.arange(1, units + 1), cycles),
        "cycle": np.tile(np.arange(1, cycles + 1), units),
    })
    for k in range(_SENSORS):
        frame[f"s{k + 2}"] = 500.0 + 10.0 * k + rng.normal(0.0, 1.0, rows) + 0.05 * frame["cycle"].to_numpy()
    return frame


def _sensor_columns() -> list[str]:
    return [f"s{k + 2}" for k in range(_SENSORS)]


def _rul_clipped_int64_huber_target() -> None:
    _seeded()
    frame = _sensor_frame()
    frame["rul"] = (frame.groupby("unit")["cycle"].transform("max") - frame["cycle"]).clip(upper=_RUL_CAP)
    last = frame.groupby("unit").tail(1)
    features = torch.tensor(last[_sensor_columns()].to_numpy(), dtype=torch.float32)
    head = nn.Linear(_SENSORS, 1)
    prediction = head(features).squeeze(-1)
    target = torch.from_numpy(last["rul"].to_numpy())  # int64 cycles, clipped at 125
    F.huber_loss(prediction, target, delta=10.0).backward()


def _failure_horizon_bool_target_bce_logits() -> None:
    _seeded()
    rul = torch.tensor([150, 90, 31, 30, 12, 0])
    will_fail_soon = rul <= 30  # "fails within 30 cycles" label
    logits = nn.Linear(_SENSORS, 1)(torch.randn(6, _SENSORS)).squeeze(-1)
    F.binary_cross_entropy_with_logits(logits, will_fail_soon, pos_weight=torch.tensor(4.0))


def _unit_id_float64_after_merge_embedding() -> None:
    _seeded()
    readings = pd.DataFrame({"serial": ["ESN-7781", "ESN-7790", "ESN-8012"], "s2": [641.8, 642.1, 642.5]})
    registry = pd.DataFrame({"serial": ["ESN-7781", "ESN-7790"], "unit": [1, 2]})
    merged = readings.merge(registry, on="serial", how="left")  # ESN-8012 not registered yet: unit NaN, float64
    merged["unit"] = merged["unit"].fillna(0)  # "unknown unit" bucket 0
    unit_embedding = nn.Embedding(200, 8)
    unit_embedding(torch.from_numpy(merged["unit"].to_numpy()))


def _discrete_hazard_one_minus_bool_event() -> None:
    _seeded()
    hazards = torch.sigmoid(torch.randn(4, 10))  # per-interval failure hazard
    event = torch.tensor([True, False, True, False])  # failed (True) or right-censored
    last_bin = torch.tensor([3, 9, 6, 5])
    log_survival = torch.log1p(-hazards).cumsum(1)
    log_hazard_at_event = torch.log(hazards.gather(1, last_bin[:, None])).squeeze(1)
    survived = log_survival.gather(1, last_bin[:, None]).squeeze(1)
    nll = -(event * log_hazard_at_event + (1 - event) * survived)
    nll.mean()


def _padded_history_int64_mask_masked_fill() -> None:
    _seeded()
    frame = _sensor_frame(units=2, cycles=_WINDOW)
    frame = frame[~((frame["unit"] == 2) & (frame["cycle"] <= 12))]  # unit 2 has only 18 cycles so far
    lengths = frame.groupby("unit").size().to_numpy()
    is_pad = (np.arange(_WINDOW)[None, :] < (_WINDOW - lengths)[:, None]).astype(np.int64)
    scores = torch.randn(2, _WINDOW)  # attention-pooling scores over the window
    scores.masked_fill(torch.from_numpy(is_pad), float("-inf")).softmax(-1)


def _health_stage_cross_entropy_int32_digitize() -> None:
    _seeded()
    rul = np.array([140, 95, 60, 22, 5, 0])
    stage = np.digitize(rul, bins=[25, 75]).astype(np.int32)  # 0 critical, 1 degrading, 2 healthy
    logits = nn.Linear(_SENSORS, 3)(torch.randn(6, _SENSORS))
    F.cross_entropy(logits, torch.from_numpy(stage))


def _deephit_float_time_bin_gather() -> None:
    _seeded()
    bin_width = 20.0
    durations = torch.tensor([37.0, 112.0, 64.0, 188.0])  # cycles to failure or censoring
    time_bin = torch.floor(durations / bin_width)
    pmf = torch.softmax(torch.randn(4, 10), dim=1)
    -torch.log(pmf.gather(1, time_bin[:, None])).mean()


def _raw_counts_int64_conv1d() -> None:
    _seeded()
    raw = np.random.default_rng(1).integers(0, 4096, size=(2, _SENSORS, _WINDOW))  # 12-bit ADC counts, int64
    encoder = nn.Conv1d(_SENSORS, 32, kernel_size=5, padding=2)
    encoder(torch.from_numpy(raw))


def _c_index_mean_of_bool_concordant_pairs() -> None:
    _seeded()
    times = torch.tensor([45.0, 80.0, 120.0, 150.0])
    events = torch.tensor([True, True, False, True])
    risk = torch.randn(4)
    earlier = (times[:, None] < times[None, :]) & events[:, None]
    concordant = (risk[:, None] > risk[None, :])[earlier]
    concordant.mean()


def _irregular_cycles_int64_interpolate() -> None:
    _seeded()
    oil_debris = torch.tensor([[[3, 3, 4, 6, 9, 15]]])  # particle counts logged every 10 cycles, int64
    F.interpolate(oil_debris, size=_WINDOW, mode="linear", align_corners=True)


def _sliding_window_view_float64_conv1d() -> None:
    _seeded()
    frame = _sensor_frame(units=1, cycles=50)
    values = frame[_sensor_columns()].to_numpy()
    windows = np.lib.stride_tricks.sliding_window_view(values, _WINDOW, axis=0)  # (21, 14, 30), float64
    encoder = nn.Conv1d(_SENSORS, 32, kernel_size=3, padding=1)
    encoder(torch.from_numpy(np.ascontiguousarray(windows)))


def _minmax_float64_stats_as_strided_bf16_lstm() -> None:
    _seeded()
    frame = _sensor_frame(units=1, cycles=45)
    data_min = torch.from_numpy(frame[_sensor_columns()].min().to_numpy())  # scaler state kept in float64
    data_max = torch.from_numpy(frame[_sensor_columns()].max().to_numpy())
    series = torch.tensor(frame[_sensor_columns()].to_numpy(), dtype=torch.float32)
    steps = series.shape[0] - _WINDOW + 1
    windows = series.as_strided((steps, _WINDOW, _SENSORS), (_SENSORS, _SENSORS, 1))
    scaled = (windows - data_min) / (data_max - data_min)
    encoder = nn.LSTM(_SENSORS, 32, batch_first=True).to(bf16)
    encoder(scaled)


class _RulMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(_SENSORS * _WINDOW, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x).squeeze(-1)


def _autocast_float64_scaled_windows_linear() -> None:
    _seeded()
    frame = _sensor_frame(units=1, cycles=_WINDOW)
    values = frame[_sensor_columns()].to_numpy()
    scaled = (values - values.min(0)) / (values.max(0) - values.min(0))  # numpy min-max: float64
    model = _RulMLP()
    with torch.autocast("cpu", dtype=bf16):
        model(torch.from_numpy(scaled)[None])


def _autocast_encoder_bf16_into_fp32_rul_head() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Conv1d(_SENSORS, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten())
    rul_head = nn.Linear(32, 1)
    x = torch.randn(4, _SENSORS, _WINDOW)
    with torch.autocast("cpu", dtype=bf16):
        features = encoder(x)
    rul_head(features)  # the head was moved out of autocast to keep it "in full precision"


class _TemporalBlock(nn.Module):
    """A TCN residual block whose 1x1 downsample is built on first use."""

    def __init__(self, c_in: int, c_out: int, dilation: int) -> None:
        super().__init__()
        self.c_in, self.c_out = c_in, c_out
        self.conv = nn.Conv1d(c_in, c_out, 3, padding=2 * dilation, dilation=dilation)
        self.downsample: nn.Module | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.conv(x)[..., : x.shape[-1]])
        if self.downsample is None and self.c_in != self.c_out:
            self.downsample = nn.Conv1d(self.c_in, self.c_out, 1)
        residual = x if self.downsample is None else self.downsample(x)
        return torch.relu(out + residual)


def _tcn_downsample_made_in_forward_fp32() -> None:
    _seeded()
    block = _TemporalBlock(_SENSORS, 32, dilation=2).to(bf16)
    block(torch.randn(2, _SENSORS, _WINDOW, dtype=bf16))


def _tcn_group_norm_bf16_fp32_input() -> None:
    _seeded()
    conv = nn.Conv1d(_SENSORS, 32, 3, padding=1)
    norm = nn.GroupNorm(4, 32).to(bf16)  # the norm was cast with the bf16 head by mistake
    norm(conv(torch.randn(2, _SENSORS, _WINDOW)))


def _sensor_channel_attention_bmm_fp32() -> None:
    _seeded()
    features = torch.randn(2, _SENSORS, 16, dtype=bf16)  # per-sensor embeddings from the bf16 encoder
    channel_query = torch.randn(16, 1)  # made with torch.randn in forward: fp32
    scores = torch.bmm(features, channel_query.expand(2, 16, 1))
    (scores.softmax(1) * features).sum(1)


def _causal_mask_float64_bf16_mha() -> None:
    _seeded()
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    x = torch.randn(2, _WINDOW, 32, dtype=bf16)
    causal = torch.from_numpy(np.triu(np.full((_WINDOW, _WINDOW), -np.inf), k=1))  # float64 from numpy
    attention(x, x, x, attn_mask=causal)


def _per_unit_index_add_autocast_rul() -> None:
    _seeded()
    model = _RulMLP()
    windows = torch.randn(6, _SENSORS, _WINDOW)
    unit_of_window = torch.tensor([0, 0, 0, 1, 1, 2])
    with torch.autocast("cpu", dtype=bf16):
        rul = model(windows)
    totals = torch.zeros(3)
    totals.index_add_(0, unit_of_window, rul.detach())
    totals / torch.bincount(unit_of_window)


def _imputation_float64_column_means_index_put() -> None:
    _seeded()
    frame = _sensor_frame(units=1, cycles=_WINDOW)
    column_means = torch.from_numpy(frame[_sensor_columns()].mean().to_numpy())  # float64
    window = torch.tensor(frame[_sensor_columns()].to_numpy(), dtype=torch.float32)
    window[5, 3] = float("nan")
    window[17, 8] = float("nan")
    rows, cols = torch.isnan(window).nonzero(as_tuple=True)
    window[rows, cols] = column_means[cols]


def _health_index_ema_lerp_bf16() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(_SENSORS, 16), nn.Tanh(), nn.Linear(16, 1), nn.Sigmoid()).to(bf16)
    smoothed = torch.ones(4, 1)  # EMA state of the health index, kept fp32
    for _ in range(3):
        health = model(torch.randn(4, _SENSORS, dtype=bf16))
        smoothed.lerp_(health, 0.2)


def _linear_health_index_vecdot_float64_weights() -> None:
    _seeded()
    frame = _sensor_frame(units=1, cycles=_WINDOW)
    weights = torch.from_numpy(np.linalg.lstsq(  # linear health index fitted in numpy: float64 weights
        frame[_sensor_columns()].to_numpy(), np.linspace(1.0, 0.0, _WINDOW), rcond=None)[0])
    readings = torch.randn(8, _SENSORS)
    torch.linalg.vecdot(readings, weights)


def _vibration_spectrum_rfft_fp16() -> None:
    _seeded()
    vibration = torch.randn(4, 2048, dtype=f16)  # accelerometer frames cached as fp16
    spectrum = torch.fft.rfft(vibration * torch.hann_window(2048, dtype=f16)).abs()
    spectrum[:, 100:200].mean(1)


def _healthy_centroid_cdist_bf16() -> None:
    _seeded()
    encoder = nn.Linear(_SENSORS, 8).to(bf16)
    with torch.no_grad():
        healthy = encoder(torch.randn(32, _SENSORS, dtype=bf16))
        current = encoder(torch.randn(5, _SENSORS, dtype=bf16))
    centroid = healthy.mean(0, keepdim=True)
    torch.cdist(current, centroid)


def _operating_hours_full_fp16() -> None:
    _seeded()
    window = torch.randn(2, _WINDOW, _SENSORS, dtype=f16)
    hours_since_overhaul = 87_600.0  # ten years of operation
    hours = torch.full((2, _WINDOW, 1), hours_since_overhaul, dtype=window.dtype)
    torch.cat([window, hours], dim=-1)


def _int64_counts_in_place_minmax_float64() -> None:
    counts = torch.tensor([[120, 4000], [360, 3900], [800, 3500]])  # cycles and vibration counts, int64
    data_min = torch.from_numpy(np.array([100.0, 3000.0]))
    data_range = torch.from_numpy(np.array([900.0, 1500.0]))
    counts.sub_(data_min).div_(data_range)


def _fp16_rul_model_grad_scaler() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(_SENSORS, 32), nn.ReLU(), nn.Linear(32, 1)).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    prediction = model(torch.randn(8, _SENSORS, dtype=f16)).squeeze(-1)
    loss = F.mse_loss(prediction.float(), torch.rand(8) * _RUL_CAP)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def _constant_sensor_minmax_nan_normal_head() -> None:
    _seeded()
    frame = _sensor_frame(units=1, cycles=_WINDOW)
    frame["s1"] = 518.67  # a sensor that is constant in this operating condition
    values = torch.tensor(frame[["s1", *_sensor_columns()]].to_numpy(), dtype=torch.float32)
    scaled = (values - values.min(0).values) / (values.max(0).values - values.min(0).values)
    head = nn.Linear(_SENSORS + 1, 2)
    mean, raw_scale = head(scaled).unbind(-1)
    torch.distributions.Normal(mean, F.softplus(raw_scale))  # probabilistic RUL head


def _bf16_rul_predictions_numpy_score() -> None:
    _seeded()
    model = _RulMLP()
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        predicted = model(torch.randn(4, _SENSORS, _WINDOW))
    d = predicted.numpy() - np.array([112.0, 98.0, 69.0, 82.0])  # NASA asymmetric score in numpy
    np.where(d < 0, np.exp(-d / 13.0) - 1, np.exp(d / 10.0) - 1).sum()


def _sensor_timestamps_datetime64() -> None:
    frame = pd.DataFrame({"timestamp": pd.date_range("2024-01-01", periods=_WINDOW, freq="h"),
                          "s2": np.linspace(641.0, 643.0, _WINDOW)})
    torch.from_numpy(frame["timestamp"].to_numpy())  # hours between readings for a time-aware LSTM


CASES: dict[str, LiveCase] = {
    # piecewise-linear RUL clipped at 125 with pandas (int64) as the Huber loss target of an fp32 head
    "rul-clipped-int64-huber-target": case(_rul_clipped_int64_huber_target, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # "fails within 30 cycles" label kept bool for binary_cross_entropy_with_logits with a pos_weight
    "failure-horizon-bool-target-bce-logits": case(_failure_horizon_bool_target_bce_logits, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # unit ids made float64 by a left merge with the engine registry (NaN, then fillna), looked up in Embedding
    "unit-id-float64-after-merge-embedding": case(_unit_id_float64_after_merge_embedding, "index_tensor_dtype",
                                                  "f64",
        grade="correct", grade_at_freeze="correct"),
    # discrete-time survival NLL weighting censored units by 1 - the bool event indicator
    "discrete-hazard-one-minus-bool-event": case(_discrete_hazard_one_minus_bool_event, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # left padding of short unit histories marked with an int64 0/1 array, used in masked_fill
    "padded-history-int64-mask-masked-fill": case(_padded_history_int64_mask_masked_fill, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # health stage labels from np.digitize cast to int32 as cross_entropy's target
    "health-stage-cross-entropy-int32-digitize": case(_health_stage_cross_entropy_int32_digitize, "target_dtype",
                                                      "int32",
        grade="correct", grade_at_freeze="correct"),
    # DeepHit-style PMF likelihood: the event time bin from floor(duration / width) (float) used in gather
    "deephit-float-time-bin-gather": case(_deephit_float_time_bin_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # raw 12-bit ADC counts (int64 from numpy) fed to an fp32 Conv1d encoder
    "raw-counts-int64-conv1d": case(_raw_counts_int64_conv1d, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # concordance index as the mean of the bool concordant-pair tensor
    "c-index-mean-of-bool-concordant-pairs": case(_c_index_mean_of_bool_concordant_pairs, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # oil-debris counts logged every 10 cycles (int64) resampled to the window with linear interpolate
    "irregular-cycles-int64-interpolate": case(_irregular_cycles_int64_interpolate, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # windows by numpy's sliding_window_view over the pandas float64 sensors into an fp32 Conv1d
    "sliding-window-view-float64-conv1d": case(_sliding_window_view_float64_conv1d, "conv_weight_dtype", "f64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # as_strided windows scaled by a min-max scaler kept in float64, into an LSTM cast to bf16
    "minmax-float64-stats-as-strided-bf16-lstm": case(_minmax_float64_stats_as_strided_bf16_lstm, "rnn_dtype", "f64",
                                                      "bf16",
        grade="correct", grade_at_freeze="correct"),
    # numpy min-max scaled (float64) windows into an MLP under bf16 autocast (autocast leaves float64 alone)
    "autocast-float64-scaled-windows-linear": case(_autocast_float64_scaled_windows_linear, "matmul_dtype", "f64",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a CNN encoder under bf16 autocast whose features reach an fp32 RUL head outside the autocast block
    "autocast-encoder-bf16-into-fp32-rul-head": case(_autocast_encoder_bf16_into_fp32_rul_head, "matmul_dtype",
                                                     "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a TCN block cast to bf16 whose 1x1 downsample conv is created in forward (fp32)
    "tcn-downsample-made-in-forward-fp32": case(_tcn_downsample_made_in_forward_fp32, "conv_weight_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # a TCN's GroupNorm cast to bf16 with the head, given the fp32 conv features
    "tcn-group-norm-bf16-fp32-input": case(_tcn_group_norm_bf16_fp32_input, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # sensor-channel attention: bf16 per-sensor embeddings bmm'd with a query made by torch.randn (fp32)
    "sensor-channel-attention-bmm-fp32": case(_sensor_channel_attention_bmm_fp32, "batched_matmul_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # a causal mask from np.triu (float64) for a bf16 MultiheadAttention over the cycle window
    "causal-mask-float64-bf16-mha": case(_causal_mask_float64_bf16_mha, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # window-level RUL predictions made under bf16 autocast index_add_'ed into fp32 per-unit totals
    "per-unit-index-add-autocast-rul": case(_per_unit_index_add_autocast_rul, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # missing sensor readings imputed with pandas column means (float64) by advanced-index assignment
    "imputation-float64-column-means-index-put": case(_imputation_float64_column_means_index_put,
                                                      "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 EMA of the health index lerp_'ed toward the bf16 model's health output
    "health-index-ema-lerp-bf16": case(_health_index_ema_lerp_bf16, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a linear health index: fp32 readings vecdot'd with weights fitted by numpy lstsq (float64)
    "linear-health-index-vecdot-float64-weights": case(_linear_health_index_vecdot_float64_weights, "op_dtype",
                                                       "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # band energy of the vibration spectrum by rfft of fp16 accelerometer frames
    "vibration-spectrum-rfft-fp16": case(_vibration_spectrum_rfft_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # health as the distance of bf16 embeddings to the healthy-state centroid with cdist
    "healthy-centroid-cdist-bf16": case(_healthy_centroid_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hours since overhaul (87,600) added as a channel with torch.full in the fp16 window's dtype
    "operating-hours-full-fp16": case(_operating_hours_full_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # int64 cycle and vibration counts min-max scaled in place with float64 scaler statistics
    "int64-counts-in-place-minmax-float64": case(_int64_counts_in_place_minmax_float64, "result_cast", "f64",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # an RUL regressor .half()'d entirely, GradScaler's unscale_ before gradient clipping
    "fp16-rul-model-grad-scaler": case(_fp16_rul_model_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a sensor constant in the operating condition: max - min is 0, NaN reaches the Normal RUL head's check
    "constant-sensor-minmax-nan-normal-head": case(_constant_sensor_minmax_nan_normal_head, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # RUL predicted under bf16 autocast handed to numpy for the NASA asymmetric score
    "bf16-rul-predictions-numpy-score": case(_bf16_rul_predictions_numpy_score, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pandas datetime64 reading timestamps given to torch.from_numpy for a time-aware encoder
    "sensor-timestamps-datetime64": case(_sensor_timestamps_datetime64, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
}
