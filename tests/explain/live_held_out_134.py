"""Held-out live set 134: energy and power-systems forecasting written by hand in low precision (smart-meter load
curves as float64 from pandas, int64 calendar features, bool holiday and event flags, quantile and pinball losses,
bf16 autocast around N-BEATS, N-HiTS and temporal-fusion models, grid topology as int64 edge indices, phasors, PTDFs
and forecast-error scenarios). Defects planted by a helper who never read the rules, written before castwise ran and
graded once with the rules frozen at b21193f2."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b21193f2"

bf16, f16 = torch.bfloat16, torch.float16
_HOURS = 24
_HORIZON = 24
_LOOKBACK = 96


def _seeded() -> None:
    torch.manual_seed(0)


def _load_curve(days: int = 4) -> np.ndarray:
    """Half-hourly-ish smart-meter load in kW as pandas gives it: float64."""
    hours = np.arange(days * _HOURS, dtype=np.float64)
    return 0.6 + 0.4 * np.sin(2 * np.pi * (hours - 7) / 24) ** 2 + 0.05 * np.cos(2 * np.pi * hours / 168)


# --- integer, bool, index, mask and target defects


def _interval_coverage_mean_of_bool() -> None:
    _seeded()
    observed = torch.rand(7, _HORIZON)
    lower, upper = observed - 0.2, observed + 0.1 * torch.randn(7, _HORIZON)
    inside = (observed >= lower) & (observed <= upper)
    inside.mean()  # empirical coverage of the 80% interval


def _nilm_switch_events_abs_diff() -> None:
    _seeded()
    kettle_on = torch.rand(_LOOKBACK) > 0.9  # disaggregated on/off state of one appliance
    switches = torch.abs(torch.diff(kettle_on))
    switches.sum()


def _pandas_hour_int32_one_hot() -> None:
    index = pd.date_range("2024-03-01", periods=_LOOKBACK, freq="h")
    hours = torch.from_numpy(index.hour.to_numpy())  # pandas gives int32 here
    F.one_hot(hours, num_classes=_HOURS).float()


def _edge_index_int16_bus_lookup() -> None:
    _seeded()
    branches = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [1, 4]], dtype=np.int16)  # compact branch table on disk
    edge_index = torch.from_numpy(branches.T.copy())
    bus_voltage = 1.0 + 0.02 * torch.randn(5)
    bus_voltage.index_select(0, edge_index[0]) - bus_voltage.index_select(0, edge_index[1])


def _gcn_degree_integer_inverse() -> None:
    edge_index = torch.tensor([[0, 1, 1, 2, 2, 3, 3, 4], [1, 0, 2, 1, 3, 2, 4, 3]])
    degree = torch.bincount(edge_index[0], minlength=5)
    degree**-1  # row normalisation of the substation graph's adjacency


def _quality_flag_uint8_masked_fill() -> None:
    _seeded()
    readings = torch.rand(_LOOKBACK)
    quality = np.zeros(_LOOKBACK, dtype=np.uint8)  # MDM validation flag: 1 = estimated/missing
    quality[10:14] = 1
    readings.masked_fill(torch.from_numpy(quality), float("nan"))


def _ev_session_bool_target_bce() -> None:
    _seeded()
    logits = torch.randn(_HORIZON, requires_grad=True)
    plugged_in = torch.rand(_HORIZON) > 0.6  # charger occupancy per hour, kept as bool
    F.binary_cross_entropy_with_logits(logits, plugged_in)


def _meter_wh_int64_loss_factor_in_place() -> None:
    register_wh = torch.tensor([10_512, 10_987, 11_460, 12_002])  # int64 Wh from the head-end system
    register_wh.mul_(1.018)  # distribution-loss factor applied in place


def _calendar_int64_autocast_known_inputs() -> None:
    _seeded()
    index = pd.date_range("2024-01-01", periods=_HORIZON, freq="h")
    calendar = torch.tensor(np.stack([index.hour, index.dayofweek, index.month], axis=-1), dtype=torch.long)
    known_input_proj = nn.Linear(3, 16)
    with torch.autocast("cpu", dtype=bf16):
        known_input_proj(calendar)


def _holiday_window_conv1d_bool() -> None:
    holidays = torch.zeros(1, 1, 60, dtype=torch.bool)
    holidays[0, 0, [0, 20, 21, 45]] = True
    window = torch.ones(1, 1, 7)  # holidays within the last seven days
    F.conv1d(holidays, window, padding=3)


# --- two floating dtypes, autocast boundaries and models cast by hand


def _nbeats_seasonality_numpy_basis_autocast() -> None:
    _seeded()
    harmonics = 4
    t = np.arange(_HORIZON) / _HORIZON
    basis = np.concatenate([np.cos(2 * np.pi * k * t)[None] for k in range(harmonics)]
                           + [np.sin(2 * np.pi * k * t)[None] for k in range(harmonics)])
    fc = nn.Linear(_LOOKBACK, 2 * harmonics)
    with torch.autocast("cpu", dtype=bf16):
        theta = fc(torch.randn(8, _LOOKBACK))
        theta @ torch.from_numpy(basis)


def _tft_quantile_head_after_autocast() -> None:
    _seeded()
    decoder = nn.Sequential(nn.Linear(16, 32), nn.ELU(), nn.Linear(32, 32))
    quantile_head = nn.Linear(32, 3)  # p10, p50, p90
    with torch.autocast("cpu", dtype=bf16):
        hidden = decoder(torch.randn(4, _HORIZON, 16))
    quantile_head(hidden)


def _smart_meter_f64_nbeats_autocast() -> None:
    _seeded()
    frame = pd.DataFrame({"kw": _load_curve(5)})
    windows = np.lib.stride_tricks.sliding_window_view(frame["kw"].to_numpy(), _LOOKBACK)[:8]
    stack = nn.Sequential(nn.Linear(_LOOKBACK, 64), nn.ReLU(), nn.Linear(64, _LOOKBACK + _HORIZON))
    with torch.autocast("cpu", dtype=bf16):
        stack(torch.from_numpy(windows.copy()))


def _tft_attention_fp32_causal_mask_weights() -> None:
    _seeded()
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    x = torch.randn(2, _HORIZON, 32, dtype=bf16)
    causal = nn.Transformer.generate_square_subsequent_mask(_HORIZON)  # fp32 -inf/0 mask
    attention(x, x, x, attn_mask=causal, need_weights=True)  # TFT reports the weights for interpretability


def _tft_grn_layer_norm_bf16_fp32_skip() -> None:
    _seeded()
    fc1, fc2, gate = nn.Linear(16, 16).to(bf16), nn.Linear(16, 16).to(bf16), nn.Linear(16, 32).to(bf16)
    grn_norm = nn.LayerNorm(16).to(bf16)
    static_embedding = torch.randn(4, 16)  # fp32 entity embedding, also the GRN's skip connection
    eta = fc2(F.elu(fc1(static_embedding.to(bf16))))
    grn_norm(static_embedding + F.glu(gate(eta)))


def _gru_decoder_bf16_fp32_encoder_context() -> None:
    _seeded()
    encoder = nn.GRU(4, 32, batch_first=True)  # left fp32 "for stability"
    decoder = nn.GRU(3, 32, batch_first=True).to(bf16)
    _, context = encoder(torch.randn(2, _LOOKBACK, 4))
    decoder(torch.randn(2, _HORIZON, 3, dtype=bf16), context)


def _lstm_bf16_zero_state_fp32() -> None:
    _seeded()
    lstm = nn.LSTM(5, 16, batch_first=True).to(bf16)
    batch = torch.randn(3, _LOOKBACK, 5, dtype=bf16)
    state = (torch.zeros(1, 3, 16), torch.zeros(1, 3, 16))  # initial state made each batch with torch.zeros
    lstm(batch, state)


def _weather_calendar_bilinear_bf16() -> None:
    _seeded()
    interaction = nn.Bilinear(6, 4, 8)  # temperature x day-type interaction
    weather = torch.randn(16, 6).to(bf16)  # weather encoder output, model half cast to bf16
    day_type = torch.randn(16, 4)
    interaction(weather, day_type)


def _tcn_conv1d_bf16_fp32_load() -> None:
    _seeded()
    tcn = nn.Sequential(nn.Conv1d(1, 8, 3, padding=2, dilation=1), nn.ReLU(),
                        nn.Conv1d(8, 8, 3, padding=4, dilation=2)).to(bf16)
    load = torch.from_numpy(_load_curve()).float()
    tcn(((load - load.mean()) / load.std())[None, None])


def _line_flows_bf16_into_bus_injection() -> None:
    _seeded()
    edge_index = torch.tensor([[0, 1, 2, 3, 1], [1, 2, 3, 4, 4]])
    surrogate = nn.Linear(4, 1).to(bf16)
    line_features = torch.randn(5, 4, dtype=bf16)
    flows = surrogate(line_features).squeeze(-1)
    injection = torch.zeros(5)
    injection.index_add_(0, edge_index[0], -flows)
    injection.index_add_(0, edge_index[1], flows)


def _ptdf_pinv_bf16_susceptance() -> None:
    _seeded()
    incidence = torch.tensor([[1.0, -1.0, 0.0, 0.0], [0.0, 1.0, -1.0, 0.0], [0.0, 0.0, 1.0, -1.0],
                              [1.0, 0.0, 0.0, -1.0]])
    b_line = torch.diag(torch.tensor([10.0, 8.0, 12.0, 5.0])).to(bf16)  # grid model kept in the network's bf16
    b_bus = incidence.T.to(bf16) @ b_line @ incidence.to(bf16)
    ptdf = b_line @ incidence.to(bf16)[:, 1:] @ torch.linalg.pinv(b_bus[1:, 1:])
    ptdf.sum()


def _scenarios_mvn_bf16_error_covariance() -> None:
    _seeded()
    errors = torch.randn(200, _HORIZON, dtype=bf16) * 0.1  # past forecast errors from the bf16 model
    centred = errors - errors.mean(0)
    covariance = centred.T @ centred / (errors.shape[0] - 1) + 1e-3 * torch.eye(_HORIZON, dtype=bf16)
    torch.distributions.MultivariateNormal(torch.zeros(_HORIZON, dtype=bf16), covariance).sample((50,))


def _phasors_polar_bf16() -> None:
    _seeded()
    magnitude = (1.0 + 0.03 * torch.randn(14)).to(bf16)  # state-estimator outputs from the bf16 model
    angle = (0.1 * torch.randn(14)).to(bf16)
    torch.polar(magnitude, angle)


def _annual_energy_full_like_fp16() -> None:
    load_kw = torch.from_numpy(_load_curve()).to(f16)
    annual_wh = 4_200 * 1_000.0  # the customer's annual consumption in Wh, for normalising
    load_kw / torch.full_like(load_kw, annual_wh)


def _sunspec_ac_power_int16() -> None:
    ac_power_w = [12_400, 28_900, 36_750, 41_200]  # 50 kW inverter, W read with the scale factor applied
    torch.tensor(ac_power_w, dtype=torch.int16)  # the SunSpec register type


def _iqn_quantile_huber_backward() -> None:
    _seeded()
    features = torch.randn(4, 16)
    quantile_net = nn.Linear(16, 8)
    taus = torch.rand(8)
    with torch.autocast("cpu", dtype=bf16):
        quantiles = quantile_net(features)
    target = torch.randn(4, 1).expand(4, 8)
    huber = F.huber_loss(quantiles, target, reduction="none")
    weight = (taus - (target < quantiles.float()).float()).abs()
    (weight * huber).mean().backward()


def _bf16_quantiles_np_asarray() -> None:
    _seeded()
    with torch.autocast("cpu", dtype=bf16):
        quantiles = nn.Linear(8, 3)(torch.randn(_HORIZON, 8))
    np.percentile(np.asarray(quantiles.detach()), 50, axis=-1)


def _timestamps_datetime64_from_numpy() -> None:
    index = pd.date_range("2024-06-01", periods=_LOOKBACK, freq="15min")
    torch.from_numpy(index.to_numpy())  # timestamps kept alongside the readings


def _clear_sky_index_beta_at_night() -> None:
    hours = torch.arange(_HOURS, dtype=torch.float32)
    clear_sky = torch.clamp(800 * torch.sin(math.pi * (hours - 6) / 12), min=0.0)
    pv = 0.7 * clear_sky
    k = pv / clear_sky  # clear-sky index: 0/0 at night
    kappa = 20.0
    torch.distributions.Beta(k * kappa + 1e-3, (1 - k) * kappa + 1e-3)


def _nhits_bmm_fp32_interpolation() -> None:
    _seeded()
    coarse = 6
    block = nn.Linear(_LOOKBACK, coarse).to(bf16)
    theta = block(torch.randn(8, _LOOKBACK, dtype=bf16))
    interpolation = F.interpolate(torch.eye(coarse)[None], size=_HORIZON, mode="linear",
                                  align_corners=True)[0]  # made per call, fp32
    torch.bmm(theta[:, None, :], interpolation.expand(8, coarse, _HORIZON))


CASES: dict[str, LiveCase] = {
    # prediction-interval coverage: the mean of the bool inside-the-interval indicator
    "interval-coverage-mean-bool-inside": case(_interval_coverage_mean_of_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # NILM: switching events of a bool appliance on/off state by abs() of its diff
    "nilm-switch-events-abs-diff-bool": case(_nilm_switch_events_abs_diff, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # hour of day from pandas' DatetimeIndex.hour (int32) one-hot encoded
    "pandas-hour-int32-one-hot-calendar": case(_pandas_hour_int32_one_hot, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # grid edge index read from a compact int16 branch table used with index_select on bus voltages
    "grid-edge-index-int16-index-select": case(_edge_index_int16_bus_lookup, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # GCN row normalisation of the substation graph: int64 degree from bincount raised to -1
    "gcn-degree-int64-inverse-power": case(_gcn_degree_integer_inverse, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # meter-data quality flags (uint8 from numpy) as masked_fill's mask for missing readings
    "meter-quality-flag-uint8-masked-fill": case(_quality_flag_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # EV charger occupancy classifier trained with the bool plugged-in flag as BCE-with-logits target
    "ev-charger-occupancy-bool-bce-target": case(_ev_session_bool_target_bce, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int64 Wh register readings multiplied in place by a distribution-loss factor
    "meter-wh-int64-loss-factor-mul-in-place": case(_meter_wh_int64_loss_factor_in_place, "result_cast", "f32",
                                                    "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 hour/weekday/month calendar features into TFT's known-input Linear under bf16 autocast
    "calendar-int64-known-inputs-autocast-linear": case(_calendar_int64_autocast_known_inputs, "integer_operand",
                                                        "int64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # holidays in the last seven days counted by conv1d of the bool holiday flags with a ones kernel
    "holiday-window-count-conv1d-bool-flags": case(_holiday_window_conv1d_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # N-BEATS seasonality block: theta under bf16 autocast times a Fourier basis built with numpy (float64)
    "nbeats-seasonality-numpy-fourier-basis-autocast": case(_nbeats_seasonality_numpy_basis_autocast,
                                                            "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # TFT decoder under bf16 autocast, its fp32 quantile output Linear applied after the autocast block
    "tft-quantile-head-after-autocast-block": case(_tft_quantile_head_after_autocast, "matmul_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # float64 smart-meter windows from pandas into an N-BEATS FC stack under bf16 autocast
    "smart-meter-f64-windows-nbeats-autocast": case(_smart_meter_f64_nbeats_autocast, "matmul_dtype", "f64",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TFT interpretable attention in bf16 with the fp32 causal mask and need_weights=True
    "tft-attention-fp32-causal-mask-need-weights": case(_tft_attention_fp32_causal_mask_weights,
                                                        "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TFT gated residual network: bf16 LayerNorm given the fp32 static-embedding skip connection
    "tft-grn-layernorm-bf16-fp32-skip": case(_tft_grn_layer_norm_bf16_fp32_skip, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # seq2seq load forecaster: bf16 GRU decoder seeded with the fp32 encoder's final hidden state
    "gru-decoder-bf16-fp32-encoder-context": case(_gru_decoder_bf16_fp32_encoder_context, "rnn_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an LSTM load forecaster cast to bf16, initial (h0, c0) made each batch by torch.zeros (fp32)
    "lstm-bf16-fp32-zero-initial-state": case(_lstm_bf16_zero_state_fp32, "rnn_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (b21193f2) castwise gave nothing. The bf16 LSTM was given fp32 (h0, c0) made by "
             "torch.zeros; on this CPU torch reports it only as oneDNN failing to create the LSTM forward "
             "primitive, a message that names neither dtype, and that failure was not read as an RNN's "
             "input/state dtype mismatch.")),
    # weather x day-type interaction by an fp32 nn.Bilinear given the bf16 weather encoding
    "weather-day-type-bilinear-bf16-weather": case(_weather_calendar_bilinear_bf16, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # dilated TCN cast to bf16 given the fp32 z-scored smart-meter load
    "tcn-bf16-fp32-zscored-load": case(_tcn_conv1d_bf16_fp32_load, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 surrogate line flows index_add_'ed into an fp32 bus injection vector along the edge index
    "line-flows-bf16-index-add-bus-injection": case(_line_flows_bf16_into_bus_injection, "indexed_write_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PTDF from the pseudo-inverse of a reduced B matrix kept in bf16
    "ptdf-pinv-bf16-reduced-susceptance": case(_ptdf_pinv_bf16_susceptance, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # forecast-error scenarios from a MultivariateNormal with a bf16 error covariance
    "error-scenarios-mvn-bf16-covariance": case(_scenarios_mvn_bf16_error_covariance, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bus voltage phasors by torch.polar of bf16 state-estimator magnitudes and angles
    "voltage-phasors-polar-bf16": case(_phasors_polar_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 load normalised by full_like with the annual consumption in Wh (4.2e6)
    "annual-energy-wh-full-like-fp16": case(_annual_energy_full_like_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # inverter AC power in W put into an int16 tensor (SunSpec register type), 36 kW and up
    "sunspec-ac-power-int16-overflow": case(_sunspec_ac_power_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # IQN quantile Huber loss between bf16 autocast quantiles and fp32 targets, backward
    "iqn-quantile-huber-bf16-quantiles-backward": case(_iqn_quantile_huber_backward, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 quantile forecasts handed to np.asarray for the median
    "bf16-quantiles-np-asarray-median": case(_bf16_quantiles_np_asarray, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the pandas timestamp index (datetime64[ns]) passed to torch.from_numpy
    "meter-timestamps-datetime64-from-numpy": case(_timestamps_datetime64_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # PV clear-sky index 0/0 at night: NaN concentrations into a Beta forecast distribution
    "clear-sky-index-night-nan-beta": case(_clear_sky_index_beta_at_night, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # N-HiTS: bf16 coarse coefficients bmm'd with an fp32 interpolation matrix made per call
    "nhits-bmm-fp32-interpolation-matrix": case(_nhits_bmm_fp32_interpolation, "batched_matmul_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
}
