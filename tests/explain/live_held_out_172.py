"""Held-out live set 172: energy and power-grid forecasting by hand in low precision (float64 load and weather series
from pandas, int64 calendar and holiday features, int32 substation ids, bool outage masks, bf16 temporal transformers,
fp16 quantile heads). Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at bf1ae96f."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "bf1ae96f"

bf16, f16 = torch.bfloat16, torch.float16
_HOURS = 48
_QUANTILES = (0.1, 0.5, 0.9)


def _seeded() -> None:
    torch.manual_seed(0)


def _load_frame(hours: int = _HOURS) -> pd.DataFrame:
    index = pd.date_range("2024-01-01", periods=hours, freq="h")
    hour = np.arange(hours) % 24
    load = 900.0 + 300.0 * np.sin(2 * np.pi * hour / 24.0)  # MW, float64 as pandas keeps it
    temperature = 5.0 + 4.0 * np.cos(2 * np.pi * hour / 24.0)  # degC from the weather feed
    return pd.DataFrame({"load_mw": load, "temp_c": temperature, "hour": hour, "dow": index.dayofweek,
                         "holiday": (index.dayofyear == 1).astype(np.int64)}, index=index)


def _outage_mask(hours: int = _HOURS) -> torch.Tensor:
    mask = torch.zeros(hours, dtype=torch.bool)
    mask[10:14] = True
    mask[30] = True
    return mask


# --- float64 series from pandas meeting fp32/bf16 models


def _pandas_load_window_into_linear() -> None:
    _seeded()
    window = torch.tensor(_load_frame()[["load_mw", "temp_c"]].to_numpy())  # float64
    encoder = nn.Linear(2, 16)
    encoder(window / 1000.0)


def _weather_covariates_into_bf16_conv1d() -> None:
    _seeded()
    weather = torch.from_numpy(_load_frame()[["temp_c"]].to_numpy().T.copy())[None]  # (1, 1, T) float64
    tcn = nn.Conv1d(1, 8, kernel_size=3, padding=1).to(bf16)
    tcn(weather)


def _fp32_load_into_bf16_lstm() -> None:
    _seeded()
    series = torch.from_numpy(_load_frame()["load_mw"].to_numpy()).view(1, _HOURS, 1) / 1000.0
    lstm = nn.LSTM(1, 16, batch_first=True).to(bf16)
    lstm(series.to(torch.float32))


def _f64_scaler_into_bf16_layer_norm() -> None:
    _seeded()
    hidden = torch.from_numpy(np.random.default_rng(0).standard_normal((_HOURS, 32)))  # float64 from a numpy scaler
    norm = nn.LayerNorm(32).to(bf16)
    norm(hidden)


def _feeder_loads_index_add_f64() -> None:
    substation = torch.tensor([0, 0, 1, 2, 2, 2])  # feeder -> substation
    feeder_mw = torch.from_numpy(np.array([12.5, 8.0, 20.1, 5.5, 6.0, 7.2]))  # float64 from the SCADA export
    totals = torch.zeros(3)
    totals.index_add_(0, substation, feeder_mw)


def _fp16_forecast_patched_by_f64_actuals() -> None:
    forecast = torch.full((_HOURS,), 0.9, dtype=f16)
    known = _outage_mask()
    actuals = torch.from_numpy(_load_frame()["load_mw"].to_numpy() / 1000.0)
    forecast[known] = actuals[known]


def _bf16_temperature_ensemble_quantiles() -> None:
    temps = torch.randn(_HOURS, dtype=bf16)  # weather ensemble member kept in the model's bf16
    levels = torch.tensor(_QUANTILES, dtype=bf16)
    torch.quantile(temps, levels)


# --- bf16 temporal transformer and fp16 quantile heads


def _bf16_attention_fp32_causal_mask() -> None:
    _seeded()
    attn = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    x = torch.randn(2, 24, 32, dtype=bf16)
    causal = torch.triu(torch.full((24, 24), float("-inf")), diagonal=1)  # fp32
    attn(x, x, x, attn_mask=causal)


def _sdpa_bf16_query_fp32_memory() -> None:
    _seeded()
    q = torch.randn(2, 4, 24, 8, dtype=bf16)  # decoder queries in bf16
    memory = torch.randn(2, 4, 48, 8)  # encoder memory cached in fp32
    F.scaled_dot_product_attention(q, memory, memory)


def _fp16_quantile_head_fp32_hidden() -> None:
    _seeded()
    hidden = torch.randn(8, 64)
    head = nn.Linear(64, len(_QUANTILES)).half()
    head(hidden)


def _bf16_encoder_einsum_fp32_calendar_embed() -> None:
    _seeded()
    tokens = torch.randn(2, 24, 16, dtype=bf16)
    calendar_proj = torch.randn(16, 16)  # fp32 parameter left out of model.to(bf16)
    torch.einsum("btd,de->bte", tokens, calendar_proj)


def _bmm_bf16_lag_weights_fp32() -> None:
    _seeded()
    lags = torch.randn(4, 24, 7, dtype=bf16)  # weekly lag matrix per region
    weights = torch.randn(4, 7, 1)
    torch.bmm(lags, weights)


def _ema_fp16_forecast_lerp_fp32() -> None:
    smoothed = torch.zeros(_HOURS, dtype=f16)
    fresh = torch.rand(_HOURS)
    smoothed.lerp_(fresh, 0.2)


def _fp16_quantile_head_grad_scaler() -> None:
    _seeded()
    head = nn.Linear(8, len(_QUANTILES)).half()
    optimizer = torch.optim.SGD(head.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    target = torch.rand(4, 1)
    pred = head(torch.randn(4, 8, dtype=f16)).float()
    q = torch.tensor(_QUANTILES)
    err = target - pred
    scaler.scale(torch.maximum(q * err, (q - 1) * err).mean()).backward()
    scaler.unscale_(optimizer)


def _fp16_outage_sentinel_masked_fill() -> None:
    load = torch.rand(_HOURS, dtype=f16)
    load.masked_fill_(_outage_mask(), -1e5)


def _bf16_scores_to_numpy_for_pandas() -> None:
    scores = torch.rand(_HOURS, 3, dtype=bf16)
    pd.DataFrame(scores.numpy(), columns=["p10", "p50", "p90"])


def _fp16_spectral_seasonality_rfft() -> None:
    load = torch.rand(168, dtype=f16)  # a week, hourly
    torch.fft.rfft(load)


# --- integer calendar features, int32 substation ids, bool outage masks, targets


def _int64_calendar_features_into_linear() -> None:
    _seeded()
    calendar = torch.from_numpy(_load_frame()[["hour", "dow", "holiday"]].to_numpy())  # int64
    calendar_proj = nn.Linear(3, 8)
    calendar_proj(calendar)


def _substation_ids_float_from_pandas_into_embedding() -> None:
    _seeded()
    frame = pd.DataFrame({"substation": [3, 7, np.nan, 1]}).fillna(0)  # the NaN made the column float64
    ids = torch.tensor(frame["substation"].to_numpy())
    nn.Embedding(16, 8)(ids)


def _outage_mask_inverted_with_minus() -> None:
    available = 1 - _outage_mask()
    available.sum()


def _outage_rate_mean_of_bool() -> None:
    _outage_mask().mean()


def _holiday_int64_masked_fill() -> None:
    holiday = torch.from_numpy(_load_frame()["holiday"].to_numpy())
    torch.rand(_HOURS).masked_fill(holiday, 0.0)


def _outage_bool_target_bce() -> None:
    _seeded()
    logits = torch.randn(_HOURS, requires_grad=True)
    F.binary_cross_entropy_with_logits(logits, _outage_mask())


def _int64_meter_counts_rescaled_in_place() -> None:
    meter_kwh = torch.randint(0, 500, (_HOURS,))
    meter_kwh.mul_(0.001)


def _hourly_outage_mask_upsampled_to_15min() -> None:
    F.interpolate(_outage_mask().view(1, 1, -1), scale_factor=4, mode="nearest")


def _int64_meter_counts_noise_augment() -> None:
    _seeded()
    meter_kwh = torch.randint(0, 500, (_HOURS,))
    meter_kwh + 0.01 * torch.randn_like(meter_kwh)


def _hour_of_day_histc() -> None:
    hours = torch.from_numpy(_load_frame()["hour"].to_numpy())
    torch.histc(hours, bins=24, min=0, max=23)


def _fp16_outage_flags_bitwise_and() -> None:
    outage = _outage_mask().to(f16)  # cast with the rest of the batch by .to(model dtype)
    planned = torch.zeros(_HOURS, dtype=f16)
    outage & planned


def _timestamp_frame_from_numpy() -> None:
    frame = _load_frame().reset_index()  # the timestamp column makes .to_numpy() an object array
    torch.from_numpy(frame.to_numpy())


def _float_hour_index_into_profile() -> None:
    profile = torch.rand(24)
    hours = torch.from_numpy(_load_frame()["hour"].to_numpy() / 1.0)
    profile[hours]


CASES: dict[str, LiveCase] = {
    # --- float64 series from pandas meeting fp32/bf16 models
    # an hourly load/temperature window from a pandas DataFrame (float64) into the fp32 input projection
    "grid-pandas-load-window-f64-linear": case(_pandas_load_window_into_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # float64 weather covariates from pandas into a TCN's Conv1d already cast to bf16 (weight and bias)
    "grid-weather-f64-bf16-tcn-conv1d": case(_weather_covariates_into_bf16_conv1d, "conv_weight_dtype", "f64",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the load series cast to fp32 for an LSTM forecaster that was moved to bf16
    "grid-load-fp32-bf16-lstm": case(_fp32_load_into_bf16_lstm, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 features from a numpy standard scaler into a LayerNorm cast to bf16 with the model
    "grid-scaled-f64-bf16-layer-norm": case(_f64_scaler_into_bf16_layer_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # feeder loads from a float64 SCADA export summed per substation with index_add_ into an fp32 buffer
    "grid-feeder-f64-index-add-substation": case(_feeder_loads_index_add_f64, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 forecast vector patched at known hours with float64 actuals by boolean-mask assignment
    "grid-fp16-forecast-patched-f64-actuals": case(_fp16_forecast_patched_by_f64_actuals, "indexed_write_dtype",
                                                   "f16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # quantiles of a bf16 weather ensemble member taken with torch.quantile
    "grid-bf16-temperature-ensemble-quantile": case(_bf16_temperature_ensemble_quantiles, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # --- bf16 temporal transformer and fp16 quantile heads
    # a bf16 MultiheadAttention over the day given an fp32 -inf causal mask (need_weights left on)
    "grid-bf16-mha-fp32-causal-mask": case(_bf16_attention_fp32_causal_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 decoder queries attending over encoder memory cached in fp32
    "grid-sdpa-bf16-query-fp32-memory": case(_sdpa_bf16_query_fp32_memory, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 quantile head (p10/p50/p90) fed the fp32 hidden state
    "grid-fp16-quantile-head-fp32-hidden": case(_fp16_quantile_head_fp32_hidden, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 encoder tokens einsum'ed with an fp32 calendar projection left out of model.to(bf16)
    "grid-bf16-tokens-einsum-fp32-calendar-proj": case(_bf16_encoder_einsum_fp32_calendar_embed, "matmul_dtype",
                                                       "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-region weekly lag matrices in bf16 multiplied by fp32 lag weights with torch.bmm
    "grid-bmm-bf16-lags-fp32-weights": case(_bmm_bf16_lag_weights_fp32, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 smoothed forecast updated by lerp_ toward a fresh fp32 forecast
    "grid-fp16-smoothed-forecast-lerp-fp32": case(_ema_fp16_forecast_lerp_fp32, "lerp_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 quantile head trained with the pinball loss through GradScaler
    "grid-fp16-quantile-head-gradscaler": case(_fp16_quantile_head_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # outage hours of an fp16 load tensor filled with a -1e5 sentinel
    "grid-fp16-outage-sentinel-masked-fill": case(_fp16_outage_sentinel_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 quantile forecasts handed to pandas via .numpy()
    "grid-bf16-quantiles-numpy-to-pandas": case(_bf16_scores_to_numpy_for_pandas, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # weekly seasonality of an fp16 load week by torch.fft.rfft
    "grid-fp16-weekly-seasonality-rfft": case(_fp16_spectral_seasonality_rfft, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- integer calendar features, substation ids, bool outage masks, targets
    # int64 hour/day-of-week/holiday columns from pandas straight into an fp32 calendar Linear
    "grid-int64-calendar-features-linear": case(_int64_calendar_features_into_linear, "integer_operand", "int64",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # substation ids from a pandas column a NaN made float64 (fillna kept it float) into nn.Embedding
    "grid-substation-ids-f64-embedding": case(_substation_ids_float_from_pandas_into_embedding,
                                              "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # `1 - outage_mask` on the bool outage mask to get the available hours
    "grid-outage-bool-one-minus": case(_outage_mask_inverted_with_minus, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the outage rate as the mean of the bool outage mask
    "grid-outage-rate-bool-mean": case(_outage_rate_mean_of_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the int64 holiday column used as masked_fill's mask
    "grid-holiday-int64-masked-fill": case(_holiday_int64_masked_fill, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # an outage classifier trained with BCE-with-logits on the bool outage mask as target
    "grid-outage-bool-bce-target": case(_outage_bool_target_bce, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int64 meter counts (kWh) rescaled to MWh in place with mul_(0.001)
    "grid-int64-meter-counts-inplace-mul": case(_int64_meter_counts_rescaled_in_place, "result_cast", "f32",
                                                "int64",
        grade="correct", grade_at_freeze="correct"),
    # an hourly bool outage mask upsampled to 15-minute resolution with F.interpolate
    "grid-outage-bool-interpolate-15min": case(_hourly_outage_mask_upsampled_to_15min, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # noise augmentation of int64 meter counts with randn_like
    "grid-int64-meter-randn-like-noise": case(_int64_meter_counts_noise_augment, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a histogram of the int64 hour-of-day column with torch.histc
    "grid-hour-of-day-int64-histc": case(_hour_of_day_histc, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # outage flags cast to fp16 with the batch, combined with planned outages by &
    "grid-fp16-outage-flags-bitwise-and": case(_fp16_outage_flags_bitwise_and, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a DataFrame with its timestamp column reset into the frame, converted with torch.from_numpy
    "grid-timestamp-object-frame-from-numpy": case(_timestamp_frame_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # an hour column divided into float64 used to index the 24-hour load profile
    "grid-float-hour-index-load-profile": case(_float_hour_index_into_profile, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
}
