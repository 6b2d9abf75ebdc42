"""Held-out live set 34: time-series forecasting and recurrent networks in low precision. Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at 42cc880."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "42cc880"

bf16, f16 = torch.bfloat16, torch.float16


def _series(batch: int = 4, length: int = 48, seed: int = 0) -> torch.Tensor:
    """Daily sales-like series: a level, a weekly season and noise, as float32 (batch, length)."""
    generator = torch.Generator().manual_seed(seed)
    days = torch.arange(length, dtype=torch.float32)
    season = 20.0 * torch.sin(2 * math.pi * days / 7)
    return 300.0 + season + 5.0 * torch.randn(batch, length, generator=generator)


# --- normalising and scaling series

def _revin_fp32_stats_bf16_patch_embedding() -> None:
    patch_embedding = nn.Linear(8, 16).to(bf16)
    x = _series().to(bf16)
    x32 = x.float()  # statistics in fp32 "for stability"
    mean, std = x32.mean(-1, keepdim=True), x32.std(-1, keepdim=True) + 1e-5
    normalised = (x32 - mean) / std  # defect: the normalised series stays fp32
    patches = normalised.unfold(-1, 8, 8)
    patch_embedding(patches)


def _revin_manual_variance_fp16_nan_distribution() -> None:
    head = nn.Linear(48, 2).half()
    x = _series().half()
    mean = x.mean(-1, keepdim=True)
    variance = (x * x).mean(-1, keepdim=True) - mean * mean  # defect: E[x^2] overflows fp16 at sales ~300: inf - inf
    normalised = (x - mean) / variance.sqrt()
    loc, raw_scale = head(normalised).unbind(-1)
    torch.distributions.Normal(loc, F.softplus(raw_scale))


def _sales_max_scale_full_fp16() -> None:
    history = np.array([1200.0, 98000.0, 120000.0, 87000.0])  # weekly units of a best seller
    torch.full((4, 1), float(history.max()), dtype=f16)  # defect: the scale made directly in fp16


# --- basis expansions and trends

class _TrendBlock(nn.Module):
    """An N-BEATS trend block: theta from an MLP times a fixed polynomial basis over the horizon."""

    def __init__(self, horizon: int, degree: int) -> None:
        super().__init__()
        self.theta = nn.Linear(16, degree + 1)
        t = torch.linspace(0, 1, horizon)
        self.basis = torch.stack([t ** p for p in range(degree + 1)])  # defect: a plain attribute, not a buffer

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.theta(h) @ self.basis


def _nbeats_trend_basis_plain_attribute() -> None:
    block = _TrendBlock(horizon=12, degree=3).to(bf16)
    block(torch.randn(4, 16).to(bf16))


def _prophet_changepoint_indicator_bool() -> None:
    t = torch.linspace(0, 1, 30)
    changepoints = torch.linspace(0.1, 0.9, 5)
    rate_changes = torch.randn(5, 1) * 0.1
    indicator = t[:, None] >= changepoints[None, :]  # defect: the indicator matrix left bool
    indicator @ rate_changes


# --- calendar, lag and mask features

def _informer_calendar_features_f64() -> None:
    time_feature_embedding = nn.Linear(4, 16).to(bf16)
    hours = np.arange(48) % 24
    calendar = np.stack([hours / 23.0 - 0.5, (hours // 24) % 7 / 6.0 - 0.5, np.full(48, 0.1), np.full(48, -0.2)], -1)
    x_mark = torch.from_numpy(calendar)[None].repeat(4, 1, 1)  # defect: pandas/numpy float64 time features
    time_feature_embedding(x_mark)


def _hour_of_day_int64_scaled_in_place() -> None:
    timestamps = np.arange("2024-01-01T00", "2024-01-03T00", dtype="datetime64[h]")
    hours = torch.from_numpy((timestamps.astype(np.int64) % 24).copy())
    hours.mul_(2 * math.pi / 24)  # defect: scaled in place on the int64 hours


def _lag_gather_float_day_offsets() -> None:
    series = _series(length=60)
    lag_timedeltas = np.array([1, 7, 28], dtype="timedelta64[D]")
    lags = torch.from_numpy(lag_timedeltas / np.timedelta64(1, "D"))  # defect: timedelta / 1 day is float64
    t = torch.arange(30, 60)
    index = (t[:, None] - lags[None, :]).reshape(1, -1).expand(4, -1)
    series.gather(1, index)


def _observed_values_float_mask_select() -> None:
    target = _series()
    forecast = target + torch.randn_like(target)
    observed = (torch.rand_like(target) > 0.1).float()  # GluonTS-style past_observed_values: 1.0 / 0.0
    errors = (forecast - target).abs()
    errors.masked_select(observed).mean()  # defect: the float 0/1 mask used as a mask


def _holiday_embedding_bag_f64_weights() -> None:
    holidays = nn.EmbeddingBag(10, 8, mode="sum")
    holiday_ids = torch.tensor([2, 5, 7, 1])
    offsets = torch.tensor([0, 2])
    days_to_holiday = np.array([0, 3, 1, 6])
    weights = torch.from_numpy(np.exp(-days_to_holiday / 3.0))  # defect: numpy float64 proximity weights
    holidays(holiday_ids, offsets, per_sample_weights=weights)


# --- recurrent encoders and decoders

def _lstm_double_model_float_batch() -> None:
    model = nn.LSTM(3, 8, batch_first=True).double()  # made float64 to match the pandas frame
    frame = np.random.default_rng(0).normal(size=(4, 24, 3))
    batch = torch.from_numpy(frame).float()  # defect: the collate casts the batch to float32
    model(batch)


def _autoregressive_fp32_head_fed_back() -> None:
    cell = nn.LSTMCell(1, 16).to(bf16)
    head = nn.Linear(16, 1)  # the output layer kept in fp32
    y = _series()[:, -1:].to(bf16)
    state = None
    for _ in range(3):
        state = cell(y, state)
        y = head(state[0].float())  # defect: the fp32 prediction is the next step's input


def _teacher_forcing_fp32_targets_gru() -> None:
    encoder = nn.GRU(1, 16, batch_first=True).to(bf16)
    decoder = nn.GRU(1, 16, batch_first=True).to(bf16)
    series = _series(length=60)
    _, hidden = encoder(series[:, :48, None].to(bf16))
    targets = series[:, 48:, None]
    decoder_inputs = torch.cat([series[:, 47:48, None], targets[:, :-1]], 1)  # defect: fp32 ground truth fed in
    decoder(decoder_inputs, hidden)


def _bilstm_attention_pooling_plain_query() -> None:
    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(1, 8, batch_first=True, bidirectional=True)
            self.query = torch.randn(16)  # defect: a plain tensor, not a Parameter

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out, _ = self.lstm(x)
            weights = torch.softmax(out @ self.query, dim=1)
            return (weights[..., None] * out).sum(1)

    torch.manual_seed(0)
    Encoder().to(bf16)(_series()[..., None].to(bf16))


def _pad_packed_fp16_padding_value() -> None:
    lstm = nn.LSTM(2, 4, batch_first=True).half()
    lengths = torch.tensor([12, 9, 5])
    x = torch.randn(3, 12, 2).half()
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True)
    out, _ = lstm(packed)
    padded, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, padding_value=-1e9)  # defect: -1e9 in fp16
    padded.max(1)


def _tbptt_hidden_grad_hook_fp32() -> None:
    lstm = nn.LSTM(1, 8, batch_first=True).to(bf16)
    out, (h, _) = lstm(_series(length=24)[..., None].to(bf16))
    h.register_hook(lambda grad: grad.float().clamp(-1.0, 1.0))  # defect: the clipping hook returns fp32
    (out.float().pow(2).mean() + h.float().pow(2).mean()).backward()


# --- temporal convolutions and decomposition

def _dlinear_moving_average_kernel_fp32() -> None:
    x = _series().to(bf16)[:, None]
    kernel = torch.ones(1, 1, 7) / 7  # defect: the averaging kernel built in fp32
    trend = F.conv1d(F.pad(x, (3, 3), mode="replicate"), kernel)
    x - trend


def _series_decomposition_avgpool_int32() -> None:
    counts = torch.from_numpy(np.random.default_rng(1).poisson(4.0, size=(4, 1, 48)).astype(np.int32))
    nn.AvgPool1d(7, stride=1, padding=3)(counts)  # defect: int32 counts from a nullable Int32 column


def _tcn_weights_halved_biases_left() -> None:
    tcn = nn.Sequential(nn.Conv1d(1, 8, 3, dilation=1, padding=2), nn.ReLU(), nn.Conv1d(8, 8, 3, dilation=2, padding=4))
    for module in tcn.modules():
        if isinstance(module, nn.Conv1d):
            module.weight.data = module.weight.data.to(bf16)  # defect: weights halved, biases left fp32
    tcn(_series().to(bf16)[:, None])


def _autocorrelation_rfft_bf16() -> None:
    x = _series().to(bf16)  # an Autoformer-style model run in bf16
    spectrum = torch.fft.rfft(x, dim=-1)
    torch.fft.irfft(spectrum * torch.conj(spectrum), n=x.shape[-1])


def _ar_lstsq_bf16_lagged_windows() -> None:
    series = _series(batch=1, length=64)[0].to(bf16)
    windows = series.unfold(0, 5, 1)
    lagged, target = windows[:, :4], windows[:, 4:]
    torch.linalg.lstsq(lagged, target)  # defect: AR coefficients solved in bf16


def _kalman_gain_solve_bf16() -> None:
    transition = torch.eye(2).to(bf16)
    observation = torch.tensor([[1.0, 0.0]]).to(bf16)
    covariance = torch.eye(2).to(bf16)
    noise = torch.tensor([[0.5]]).to(bf16)
    predicted = transition @ covariance @ transition.T
    innovation = observation @ predicted @ observation.T + noise
    torch.linalg.solve(innovation, observation @ predicted)  # defect: the filter layer kept in the model's bf16


# --- heads, decoding loops and evaluation

def _cached_encoder_memory_fp32_attention() -> None:
    torch.manual_seed(0)
    memory = torch.randn(4, 2, 48, 8)  # encoder states cached once (fp32) for every forecast origin
    query = torch.randn(4, 2, 12, 8).to(bf16)  # the bf16 decoder's horizon queries
    F.scaled_dot_product_attention(query, memory, memory)


def _time_of_day_encoding_before_layernorm() -> None:
    embed = nn.Linear(1, 16).to(bf16)
    norm = nn.LayerNorm(16).to(bf16)
    x = _series(length=24)[..., None].to(bf16)
    hours = torch.arange(24)
    frequencies = torch.arange(1, 9)
    angles = 2 * math.pi * hours[:, None] * frequencies[None, :] / 24
    encoding = torch.cat([angles.sin(), angles.cos()], -1)  # defect: computed in fp32 every batch
    norm(embed(x) + encoding)


def _imputation_mask_bf16_predictions() -> None:
    series = _series()
    missing = torch.rand_like(series) < 0.2
    predictions = (series + torch.randn_like(series)).to(bf16)  # the bf16 imputation model's output
    series[missing] = predictions[missing]


def _hierarchy_bottom_up_scatter_add() -> None:
    store_forecasts = torch.rand(6, 14).to(bf16) * 100
    region_of_store = torch.tensor([0, 0, 1, 1, 1, 2])
    regional = torch.zeros(3, 14)
    regional.scatter_add_(0, region_of_store[:, None].expand(-1, 14), store_forecasts)


def _ets_level_lerp_bf16_observation() -> None:
    series = _series().to(bf16)
    level = torch.zeros(4)  # defect: the smoothing state made with the default dtype
    level.copy_(series[:, 0])
    for t in range(1, series.shape[1]):
        level = torch.lerp(level, series[:, t], 0.3)


def _ar_loop_outputs_index_copy() -> None:
    decoder = nn.Linear(16, 16).to(bf16)
    readout = nn.Linear(16, 1).to(bf16)
    outputs = torch.zeros(4, 12)  # defect: the forecast buffer allocated in fp32
    h = torch.randn(4, 16).to(bf16)
    for step in range(12):
        h = torch.tanh(decoder(h))
        outputs.index_copy_(1, torch.tensor([step]), readout(h))


def _sample_quantile_take_along_float_index() -> None:
    samples = torch.randn(4, 100, 12).sort(dim=1).values
    levels = torch.tensor([0.1, 0.5, 0.9])
    ranks = torch.round(levels * (samples.shape[1] - 1))  # defect: ranks left float
    torch.take_along_dim(samples, ranks[None, :, None].expand(4, -1, 12), dim=1)


def _forecast_metrics_numpy_bf16() -> None:
    forecast = _series().to(bf16)
    actual = _series(seed=1)
    np.abs(forecast.detach().numpy() - actual.numpy()).mean()  # defect: the bf16 forecast handed to numpy


CASES: dict[str, LiveCase] = {
    # RevIN computing its statistics in fp32 and handing the fp32 normalised patches to the bf16 patch embedding
    "revin-fp32-stats-bf16-patch-embedding": case(_revin_fp32_stats_bf16_patch_embedding, "matmul_dtype", "f32",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # RevIN in fp16 with the variance as E[x^2] - E[x]^2: sales ~300 overflow, NaN reaches the Normal head's check
    "revin-manual-variance-fp16-nan-distribution": case(_revin_manual_variance_fp16_nan_distribution, "nonfinite",
                                                        "f16", grade="correct", grade_at_freeze="correct"),
    # a per-series scale (the history's max, 120000 units) created with torch.full directly in fp16
    "sales-max-scale-full-fp16": case(_sales_max_scale_full_fp16, "half_overflow", "f16", cause=("65504",),
                                      grade="correct", grade_at_freeze="correct"),
    # an N-BEATS trend block whose polynomial basis is a plain attribute, left fp32 when the model goes bf16
    "nbeats-trend-basis-plain-attribute": case(_nbeats_trend_basis_plain_attribute, "matmul_dtype", "bf16", "f32",
                                               grade="correct", grade_at_freeze="correct"),
    # a Prophet-style piecewise trend: the bool changepoint indicator matrix multiplied with the rate changes
    "prophet-changepoint-indicator-bool": case(_prophet_changepoint_indicator_bool, "integer_operand", "bool", "f32",
                                               grade="correct", grade_at_freeze="correct"),
    # Informer's time-feature embedding (bf16) given calendar features built with numpy (float64)
    "informer-calendar-features-f64": case(_informer_calendar_features_f64, "matmul_dtype", "f64", "bf16",
                                           grade="correct", grade_at_freeze="correct"),
    # hour-of-day from datetime64 timestamps (int64) turned into an angle in place
    "hour-of-day-int64-scaled-in-place": case(_hour_of_day_int64_scaled_in_place, "result_cast", "f32", "int64",
                                              grade="correct", grade_at_freeze="correct"),
    # lag features gathered with lags from timedelta / 1 day, which numpy makes float64
    "lag-gather-float-day-offsets": case(_lag_gather_float_day_offsets, "index_tensor_dtype",
                                         grade="correct", grade_at_freeze="correct"),
    # a masked MAE with GluonTS-style float 0/1 observed values passed to masked_select
    "observed-values-float-mask-select": case(_observed_values_float_mask_select, "mask_dtype",
                                              grade="correct", grade_at_freeze="correct"),
    # holiday-proximity weights from numpy (float64) as EmbeddingBag's per_sample_weights
    "holiday-embedding-bag-f64-weights": case(_holiday_embedding_bag_f64_weights, "op_dtype", "f32", "f64",
                                              grade="correct", grade_at_freeze="correct"),
    # an LSTM forecaster made float64 to match pandas, fed batches the collate casts to float32
    "lstm-double-model-float-batch": case(_lstm_double_model_float_batch, "rnn_dtype", "f32", "f64",
                                          grade="correct", grade_at_freeze="correct"),
    # an autoregressive bf16 LSTMCell whose fp32 output layer's prediction is fed back as the next input
    "autoregressive-fp32-head-fed-back": case(_autoregressive_fp32_head_fed_back, "rnn_dtype", "f32", "bf16",
                                              grade="correct", grade_at_freeze="correct"),
    # teacher forcing: the bf16 GRU decoder given the fp32 ground-truth targets shifted by one step
    "teacher-forcing-fp32-targets-gru": case(_teacher_forcing_fp32_targets_gru, "rnn_dtype", "f32", "bf16",
                                             grade="correct", grade_at_freeze="correct"),
    # a bidirectional LSTM's attention pooling with a plain-tensor query, left fp32 by .to(bf16)
    "bilstm-attention-pooling-plain-query": case(_bilstm_attention_pooling_plain_query, "matmul_dtype", "bf16",
                                                 "f32", grade="correct", grade_at_freeze="correct"),
    # fp16 LSTM outputs unpacked with padding_value=-1e9 for max-over-time pooling
    "pad-packed-fp16-padding-value": case(_pad_packed_fp16_padding_value, "half_overflow", "f16", cause=("65504",),
                                          grade="correct", grade_at_freeze="correct"),
    # truncated BPTT: a gradient-clipping hook on the bf16 hidden state returns an fp32 gradient
    "tbptt-hidden-grad-hook-fp32": case(_tbptt_hidden_grad_hook_fp32, "loss_dtype", "bf16", "f32",
                                        grade="correct", grade_at_freeze="correct"),
    # DLinear's moving average as a conv1d with an fp32 averaging kernel over the bf16 series
    "dlinear-moving-average-kernel-fp32": case(_dlinear_moving_average_kernel_fp32, "conv_weight_dtype", "bf16",
                                               "f32", grade="correct", grade_at_freeze="correct"),
    # Autoformer series decomposition (AvgPool1d) run on int32 counts
    "series-decomposition-avgpool-int32": case(_series_decomposition_avgpool_int32, "integer_operand", "int32",
                                               grade="correct", grade_at_freeze="correct"),
    # a dilated TCN whose conv weights were halved to bf16 by hand, the biases left fp32
    "tcn-weights-halved-biases-left": case(_tcn_weights_halved_biases_left, "conv_bias_dtype", "bf16", "f32",
                                           grade="correct", grade_at_freeze="correct"),
    # Autoformer's FFT auto-correlation run on a bf16 series on the CPU
    "autocorrelation-rfft-bf16": case(_autocorrelation_rfft_bf16, "no_kernel", "bf16",
                                      grade="correct", grade_at_freeze="correct"),
    # AR(4) coefficients solved by least squares on bf16 lagged windows made with unfold
    "ar-lstsq-bf16-lagged-windows": case(_ar_lstsq_bf16_lagged_windows, "no_kernel",
                                         grade="correct", grade_at_freeze="correct"),
    # a differentiable Kalman filter layer computing its gain with linalg.solve in bf16
    "kalman-gain-solve-bf16": case(_kalman_gain_solve_bf16, "no_kernel", "bf16",
                                   grade="correct", grade_at_freeze="correct"),
    # a bf16 decoder's queries attending over encoder states cached in fp32
    "cached-encoder-memory-fp32-attention": case(_cached_encoder_memory_fp32_attention, "sdpa_dtype", "bf16", "f32",
                                                 grade="correct", grade_at_freeze="correct"),
    # a time-of-day sin/cos encoding computed in fp32 added to bf16 embeddings before the bf16 LayerNorm
    "time-of-day-encoding-before-layernorm": case(_time_of_day_encoding_before_layernorm, "norm_param_dtype", "f32",
                                                  grade="correct", grade_at_freeze="correct"),
    # imputation: bf16 predictions written into the fp32 series at the missing positions
    "imputation-mask-bf16-predictions": case(_imputation_mask_bf16_predictions, "indexed_write_dtype", "f32", "bf16",
                                             grade="correct", grade_at_freeze="correct"),
    # bottom-up hierarchical reconciliation: bf16 store forecasts scatter-added into fp32 regional totals
    "hierarchy-bottom-up-scatter-add": case(_hierarchy_bottom_up_scatter_add, "indexed_write_dtype",
                                            grade="correct", grade_at_freeze="correct"),
    # an exponential-smoothing level kept fp32 and lerp'ed toward the bf16 observations
    "ets-level-lerp-bf16-observation": case(_ets_level_lerp_bf16_observation, "lerp_dtype", "f32", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # an autoregressive loop writing each bf16 step into an fp32 forecast buffer with index_copy_
    "ar-loop-outputs-index-copy": case(_ar_loop_outputs_index_copy, "indexed_write_dtype", "f32", "bf16",
                                       grade="correct", grade_at_freeze="correct"),
    # empirical quantiles of sample paths picked by take_along_dim with rounded (float) ranks
    "sample-quantile-take-along-float-index": case(_sample_quantile_take_along_float_index, "index_tensor_dtype",
                                                   "f32", grade="correct", grade_at_freeze="correct"),
    # bf16 forecasts handed to numpy for the evaluation metrics
    "forecast-metrics-numpy-bf16": case(_forecast_metrics_numpy_bf16, "numpy_dtype", "bf16",
                                        grade="correct", grade_at_freeze="correct"),
}
