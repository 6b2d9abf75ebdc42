"""Held-out live set 84: power systems and energy forecasting written by hand in low precision (load and price profiles
as float64 from pandas, bus admittance matrices as complex tensors, power-flow residuals and Newton steps with linalg
solves, grid graphs with int64 edge lists, physics-informed losses on voltages and angles, battery state-of-charge
simulators with clamps, holiday/weekday indicators as int/bool, quantile losses for probabilistic forecasts under
bf16/fp16). Defects planted by a helper who never read the rules, written before castwise ran and graded once with the
rules frozen at c248a6f."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c248a6f"

bf16, f16 = torch.bfloat16, torch.float16
_N_BUS = 5
_BASE_MVA = 100.0
# a MATPOWER-style branch matrix (every column float64, bus numbers 1-based): fbus, tbus, r, x, b, rateA, status
_BRANCH = np.array([
    [1, 2, 0.02, 0.06, 0.030, 120.0, 1],
    [1, 3, 0.08, 0.24, 0.025, 60.0, 1],
    [2, 3, 0.06, 0.18, 0.020, 60.0, 1],
    [2, 4, 0.06, 0.18, 0.020, 60.0, 1],
    [2, 5, 0.04, 0.12, 0.015, 90.0, 1],
    [3, 4, 0.01, 0.03, 0.010, 120.0, 1],
    [4, 5, 0.08, 0.24, 0.025, 60.0, 0],
])
_PQ, _PV, _SLACK = [2, 3, 4], [1], 0


def _seeded() -> None:
    torch.manual_seed(0)


def _edge_index() -> torch.Tensor:
    return torch.from_numpy(_BRANCH[:, :2].astype(np.int64) - 1).T.contiguous()


def _ybus_numpy() -> np.ndarray:
    y_series = 1.0 / (_BRANCH[:, 2] + 1j * _BRANCH[:, 3])
    ybus = np.zeros((_N_BUS, _N_BUS), dtype=complex)
    for k, (f, t) in enumerate(_BRANCH[:, :2].astype(int) - 1):
        ybus[f, f] += y_series[k] + 0.5j * _BRANCH[k, 4]
        ybus[t, t] += y_series[k] + 0.5j * _BRANCH[k, 4]
        ybus[f, t] -= y_series[k]
        ybus[t, f] -= y_series[k]
    return ybus


def _load_frame(days: int = 14) -> pd.DataFrame:
    index = pd.date_range("2024-12-16", periods=days * 24, freq="h")
    hours = index.hour.to_numpy()
    rng = np.random.default_rng(0)
    load = 800 + 250 * np.sin((hours - 7) / 24 * 2 * np.pi) + rng.normal(0, 20, len(index))
    price = 60 + 40 * np.sin((hours - 9) / 24 * 2 * np.pi) + rng.normal(0, 15, len(index))
    return pd.DataFrame({"load_mw": load, "price_eur_mwh": price, "temp_c": 4 + rng.normal(0, 3, len(index))},
                        index=index)


def _jacobian(n: int = 7) -> torch.Tensor:
    return torch.eye(n) * 10 + 0.1 * torch.randn(n, n)


# --- bus admittance matrices as complex tensors

def _ybus_numpy_complex128_times_complex64_voltages() -> None:
    ybus = torch.from_numpy(_ybus_numpy())  # assembled in numpy, complex128
    vm, va = torch.ones(_N_BUS), torch.zeros(_N_BUS)  # flat start
    voltage = torch.polar(vm, va)  # complex64
    current = ybus @ voltage
    voltage * current.conj()


def _sparse_ybus_flat_start_real_ones() -> None:
    edges = _edge_index()
    y_series = torch.from_numpy(1.0 / (_BRANCH[:, 2] + 1j * _BRANCH[:, 3])).to(torch.complex64)
    rows = torch.cat([edges[0], edges[1], edges[0], edges[1]])
    cols = torch.cat([edges[0], edges[1], edges[1], edges[0]])
    values = torch.cat([y_series, y_series, -y_series, -y_series])
    ybus = torch.sparse_coo_tensor(torch.stack([rows, cols]), values, (_N_BUS, _N_BUS)).coalesce()
    flat_start = torch.ones(_N_BUS, 16)  # 16 load scenarios at 1.0 p.u., written without a complex dtype
    torch.sparse.mm(ybus, flat_start)


def _ybus_index_put_accumulate_numpy_series_admittance() -> None:
    f, t = _edge_index()
    y_series = torch.from_numpy(1.0 / (_BRANCH[:, 2] + 1j * _BRANCH[:, 3]))  # complex128 from numpy
    ybus = torch.zeros(_N_BUS, _N_BUS, dtype=torch.cfloat)
    ybus.index_put_((f, f), y_series, accumulate=True)
    ybus.index_put_((t, t), y_series, accumulate=True)
    ybus.index_put_((f, t), -y_series, accumulate=True)


# --- power-flow residuals and Newton steps

def _newton_lu_reuse_pandas_mismatch() -> None:
    _seeded()
    loads = pd.DataFrame({"bus": [2, 3, 4, 5], "p_mw": [21.7, 94.2, 47.8, 7.6], "q_mvar": [12.7, 19.0, -3.9, 1.6]})
    jacobian = _jacobian()
    lu, pivots = torch.linalg.lu_factor(jacobian)  # factorised once, reused for every iteration
    p_calc = torch.zeros(4)
    q_calc = torch.zeros(3)
    p_spec = -torch.tensor(loads["p_mw"].values) / _BASE_MVA  # float64
    q_spec = -torch.tensor(loads["q_mvar"].values[1:]) / _BASE_MVA
    mismatch = torch.cat([p_spec - p_calc, q_spec - q_calc])
    torch.linalg.lu_solve(lu, pivots, mismatch[:, None])


def _newton_step_f64_index_add_into_fp32_angles() -> None:
    _seeded()
    pvpq = torch.tensor(_PV + _PQ)
    va = torch.zeros(_N_BUS)
    vm = torch.ones(_N_BUS)
    jacobian = _jacobian().double()  # solved in float64 "for accuracy"
    mismatch = torch.randn(7, dtype=torch.float64) * 0.1
    dx = torch.linalg.solve(jacobian, mismatch)
    va.index_add_(0, pvpq, dx[: len(pvpq)])
    vm.index_add_(0, torch.tensor(_PQ), dx[len(pvpq):])


def _scenario_batch_lu_factor_fp16() -> None:
    _seeded()
    jacobians = (_jacobian()[None] + 0.01 * torch.randn(256, 7, 7)).half()  # 256 contingencies kept in fp16
    torch.linalg.lu_factor(jacobians)


def _voltage_stability_min_singular_value_bf16() -> None:
    _seeded()
    surrogate = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 8)).to(bf16)
    state = torch.randn(8, dtype=bf16)  # angles and magnitudes at the operating point
    jacobian = torch.func.jacrev(surrogate)(state)
    torch.linalg.matrix_norm(jacobian, ord=-2)  # smallest singular value: distance to the nose point


# --- grid graphs with integer edge lists

def _dc_flow_int64_incidence_matrix() -> None:
    _seeded()
    f, t = _edge_index()
    lines = torch.arange(len(f))
    incidence = torch.zeros(len(f), _N_BUS, dtype=torch.long)
    incidence[lines, f] = 1
    incidence[lines, t] = -1
    susceptance = torch.from_numpy(1.0 / _BRANCH[:, 3]).float()
    theta = torch.randn(_N_BUS) * 0.05
    susceptance * (incidence @ theta)


def _in_service_float_column_selects_lines() -> None:
    lines = pd.DataFrame({"from_bus": _BRANCH[:, 0].astype(int) - 1, "to_bus": _BRANCH[:, 1].astype(int) - 1})
    outages = pd.DataFrame({"line": [6], "in_service": [False]})
    lines = lines.join(outages.set_index("line"))
    lines["in_service"] = lines["in_service"].fillna(1.0)  # the join left NaN; now float64 1.0/0.0
    edge_index = torch.from_numpy(lines[["from_bus", "to_bus"]].to_numpy().T)
    in_service = torch.from_numpy(lines["in_service"].to_numpy(dtype=float))
    edge_index[:, in_service]


def _matpower_float_bus_numbers_index_select() -> None:
    voltage = torch.polar(torch.ones(_N_BUS), torch.zeros(_N_BUS))
    fbus = torch.from_numpy(_BRANCH[:, 0] - 1)  # MATPOWER's branch matrix is all float64
    tbus = torch.from_numpy(_BRANCH[:, 1] - 1)
    voltage.index_select(0, fbus) - voltage.index_select(0, tbus)


def _bus_max_loading_scatter_reduce_bf16() -> None:
    _seeded()
    f, _ = _edge_index()
    surrogate = nn.Linear(16, len(f)).to(bf16)
    loading = torch.sigmoid(surrogate(torch.randn(16, dtype=bf16)))  # predicted line loading, fraction of rateA
    bus_max = torch.zeros(_N_BUS)
    bus_max.scatter_reduce_(0, f, loading, reduce="amax", include_self=False)


# --- physics-informed losses on voltages and angles

def _slack_bus_gradient_mask_hook_numpy() -> None:
    _seeded()
    model = nn.Linear(8, _N_BUS).to(bf16)
    va = model(torch.randn(4, 8, dtype=bf16))
    slack_mask = torch.from_numpy(np.array([0.0, 1.0, 1.0, 1.0, 1.0]))  # no gradient into the reference angle
    va.register_hook(lambda grad: grad * slack_mask)
    f, t = _edge_index()
    loss = (1 - torch.cos(va[:, f] - va[:, t])).mean()
    loss.backward()


# --- battery state-of-charge simulators

def _bms_soc_percent_int64_clamp_in_place() -> None:
    telemetry = pd.DataFrame({"soc_pct": [55, 80, 97, 12]})  # BMS reports whole percent
    soc = torch.tensor(telemetry["soc_pct"].values)
    soc_min = torch.tensor([10.0, 10.0, 15.0, 20.0])
    soc_max = torch.tensor([90.0, 95.0, 95.0, 90.0])
    soc.clamp_(min=soc_min, max=soc_max)


def _fleet_soc_hardtanh_capacity_wh_fp16() -> None:
    _seeded()
    policy = nn.Linear(6, 1).half()
    soc_wh = torch.full((32, 1), 2500.0, dtype=f16)  # 32 home batteries in the fp16 rollout
    power_w = policy(torch.randn(32, 6, dtype=f16)) * 3000
    capacity_wh = 250_000.0  # the largest unit in the fleet, from the asset register
    for _ in range(4):
        soc_wh = F.hardtanh(soc_wh + power_w * 0.25, 0.0, capacity_wh)


def _arbitrage_revenue_dot_pandas_prices() -> None:
    _seeded()
    prices = torch.tensor(_load_frame(1)["price_eur_mwh"].values)  # float64
    policy = nn.Linear(24, 24).to(bf16)
    discharge_mwh = torch.tanh(policy(torch.randn(24, dtype=bf16)))
    revenue = torch.dot(prices, discharge_mwh)
    (-revenue).backward()


# --- energy forecasting: load and price profiles from pandas

def _meter_gaps_sentinel_index_fill_fp16() -> None:
    readings = torch.rand(96, dtype=f16) * 2.5  # one day of 15-minute kWh readings, fp16 cache
    gaps = torch.tensor([13, 14, 15, 60])
    readings.index_fill_(0, gaps, 99999)  # the MDM's missing-value code


def _daily_profiles_f64_conv1d_bf16() -> None:
    _seeded()
    frame = _load_frame(7)
    profiles = frame.assign(day=frame.index.date, hour=frame.index.hour).pivot(index="day", columns="hour",
                                                                               values="load_mw")
    x = torch.tensor(profiles.values)[:, None] / 1000.0
    encoder = nn.Sequential(nn.Conv1d(1, 16, 5, padding=2, bias=False), nn.BatchNorm1d(16)).to(bf16)
    encoder(x)


def _weather_features_f64_batchnorm_input() -> None:
    _seeded()
    weather = _load_frame(2)[["temp_c"]].assign(ghi_wm2=120.0, wind_ms=5.5)
    features = torch.from_numpy(weather.to_numpy())
    model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 1))
    model(features)


def _kmeans_profiles_cdist_fp32_centroids() -> None:
    _seeded()
    frame = _load_frame(14)
    profiles = torch.tensor(frame["load_mw"].values.reshape(14, 24))
    profiles = (profiles - profiles.mean(1, keepdim=True)) / profiles.std(1, keepdim=True)
    centroids = torch.randn(3, 24)
    torch.cdist(profiles, centroids).argmin(1)


def _negative_prices_log_lognormal_scenarios() -> None:
    prices = torch.tensor([42.0, 18.5, 3.2, -7.9, -12.4, 25.0, 61.3])  # a sunny Sunday in the day-ahead auction
    scenarios = torch.distributions.LogNormal(torch.log(prices), 0.3)
    scenarios.sample((100,))


def _surrogate_bf16_voltages_into_res_bus() -> None:
    _seeded()
    surrogate = nn.Linear(10, _N_BUS).to(bf16)
    vm_pu = 1.0 + 0.05 * torch.tanh(surrogate(torch.randn(10, dtype=bf16)))
    res_bus = pd.DataFrame({"vm_pu": np.ones(_N_BUS), "va_degree": np.zeros(_N_BUS)})  # pandapower-style results
    res_bus["vm_pu"] = vm_pu.detach()


# --- quantile losses for probabilistic forecasts

def _iqn_tau_cosine_embedding_bf16() -> None:
    _seeded()
    hidden = torch.randn(8, 64, dtype=bf16)  # encoder state of the bf16 load forecaster
    tau_embed = nn.Linear(64, 64).to(bf16)
    tau = torch.rand(8, 32, 1)  # sampled quantile levels
    cosines = torch.cos(math.pi * torch.arange(1, 65) * tau)
    hidden[:, None] * torch.relu(tau_embed(cosines))


def _pinball_horizon_weights_einsum_numpy() -> None:
    _seeded()
    levels = torch.tensor([0.1, 0.5, 0.9], dtype=bf16)
    quantiles = torch.randn(8, 24, 3, dtype=bf16)
    target = torch.randn(8, 24, dtype=bf16)
    error = target[..., None] - quantiles
    pinball = torch.maximum(levels * error, (levels - 1) * error)
    horizon_weights = torch.from_numpy(np.linspace(1.0, 0.5, 24))  # near hours matter more
    torch.einsum("bhq,h->", pinball, horizon_weights) / pinball.numel()


# --- holiday and weekday indicators

def _bridge_days_max_pool1d_bool_holidays() -> None:
    days = pd.date_range("2024-12-20", periods=14, freq="D")
    holidays = pd.to_datetime(["2024-12-24", "2024-12-25", "2024-12-26", "2025-01-01"])
    is_holiday = torch.from_numpy(days.isin(holidays))
    F.max_pool1d(is_holiday[None, None], kernel_size=3, stride=1, padding=1)  # a day next to a holiday


def _non_working_day_float_weekend_or_bool_holiday() -> None:
    days = pd.date_range("2024-12-20", periods=14, freq="D")
    is_weekend = torch.from_numpy((days.dayofweek >= 5).astype(np.float32))
    is_holiday = torch.from_numpy(days.isin(pd.to_datetime(["2024-12-25", "2024-12-26", "2025-01-01"])))
    is_weekend | is_holiday


def _weekday_load_masked_select_int_mask() -> None:
    frame = _load_frame(14)
    load = torch.tensor(frame["load_mw"].values, dtype=torch.float32)
    is_weekday = torch.from_numpy((frame.index.dayofweek < 5).astype(int))
    load.masked_select(is_weekday).mean()


def _seasonal_naive_gather_float_weekday() -> None:
    frame = _load_frame(14)
    features = frame.assign(dow=frame.index.dayofweek, hour=frame.index.hour)
    week = torch.tensor(features["load_mw"].values[: 7 * 24].reshape(7, 24))
    dow = torch.tensor(features.values[7 * 24 :: 24, 3])  # the day-of-week column of the float64 feature matrix
    week.gather(0, dow[:, None].expand(-1, 24))


def _peak_hour_cross_entropy_int32_target() -> None:
    _seeded()
    frame = _load_frame(14)
    peak_hour = frame["load_mw"].groupby(frame.index.date).idxmax()
    target = torch.from_numpy(pd.DatetimeIndex(peak_hour.values).hour.to_numpy())  # pandas gives int32
    logits = torch.randn(14, 24, requires_grad=True)
    F.cross_entropy(logits, target)


def _coincident_peak_bce_uint8_target() -> None:
    _seeded()
    frame = _load_frame(14)
    daily_peak = frame["load_mw"].resample("D").max()
    is_cp_day = (daily_peak >= daily_peak.nlargest(3).min()).astype("uint8")
    logits = torch.randn(14, requires_grad=True)
    F.binary_cross_entropy_with_logits(logits, torch.from_numpy(is_cp_day.to_numpy()))


def _meter_register_int64_profile_normalize() -> None:
    register_wh = torch.cumsum(torch.randint(100, 900, (7 * 96 + 1,)), 0)  # cumulative Wh register, int64
    consumption = torch.diff(register_wh).reshape(7, 96)
    F.normalize(consumption, p=1, dim=1)  # daily load shapes for clustering


CASES: dict[str, LiveCase] = {
    # Ybus assembled in numpy (complex128) multiplied with flat-start voltages made by torch.polar (complex64)
    "ybus-numpy-complex128-complex64-voltages": case(_ybus_numpy_complex128_times_complex64_voltages, "matmul_dtype",
                                                     "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # a sparse complex64 Ybus times a batch of flat-start voltages written as real torch.ones
    "sparse-ybus-flat-start-real-ones": case(_sparse_ybus_flat_start_real_ones, "matmul_dtype", "complex64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Ybus built by index_put_(accumulate=True) into a cfloat matrix with numpy's complex128 series admittances
    "ybus-index-put-accumulate-complex128-admittance": case(_ybus_index_put_accumulate_numpy_series_admittance,
                                                            "indexed_write_dtype", "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # Newton with the fp32 Jacobian's LU reused: lu_solve with a float64 mismatch from the pandas load table
    "newton-lu-reuse-f64-pandas-mismatch": case(_newton_lu_reuse_pandas_mismatch, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # the float64 Newton step index_add_'ed into the fp32 angle and magnitude state at the PV/PQ buses
    "newton-step-f64-index-add-fp32-angles": case(_newton_step_f64_index_add_into_fp32_angles, "indexed_write_dtype",
                                                  "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # 256 contingency Jacobians kept in fp16 to save memory, factorised with lu_factor
    "contingency-jacobians-lu-factor-fp16": case(_scenario_batch_lu_factor_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # voltage-stability index: the smallest singular value (matrix_norm ord=-2) of a bf16 surrogate's Jacobian
    "voltage-stability-min-singular-bf16": case(_voltage_stability_min_singular_value_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DC line flows with an int64 bus-branch incidence matrix multiplied with fp32 angles
    "dc-flow-int64-incidence-matrix": case(_dc_flow_int64_incidence_matrix, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # an in_service column turned float64 by a join and fillna used to select the in-service edges
    "in-service-float-column-edge-select": case(_in_service_float_column_selects_lines, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # from/to bus numbers from MATPOWER's float64 branch matrix given to index_select on the bus voltages
    "matpower-float-bus-numbers-index-select": case(_matpower_float_bus_numbers_index_select, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-bus maximum of a bf16 surrogate's line loadings by scatter_reduce_(amax) into an fp32 buffer
    "bus-max-loading-scatter-reduce-bf16": case(_bus_max_loading_scatter_reduce_bf16, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a PINN's slack-bus gradient mask (float64 from numpy) applied by a hook on the bf16 angles
    "slack-bus-grad-mask-hook-numpy-f64": case(_slack_bus_gradient_mask_hook_numpy, "loss_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # BMS state of charge in whole percent (int64) clamped in place to float per-battery limits
    "bms-soc-int64-clamp-in-place-float-limits": case(_bms_soc_percent_int64_clamp_in_place, "result_cast", "f32",
                                                      "int64",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 fleet rollout clamps SoC with hardtanh to a 250,000 Wh capacity
    "fleet-soc-hardtanh-250kwh-fp16": case(_fleet_soc_hardtanh_capacity_wh_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # arbitrage revenue: float64 day-ahead prices from pandas dotted with the bf16 policy's discharge
    "arbitrage-revenue-dot-f64-prices-bf16": case(_arbitrage_revenue_dot_pandas_prices, "matmul_dtype", "f64",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # gaps in fp16 smart-meter readings marked with the 99999 missing-value code by index_fill_
    "meter-gaps-99999-index-fill-fp16": case(_meter_gaps_sentinel_index_fill_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # pandas daily load profiles (float64 pivot) into a bias-free bf16 Conv1d profile encoder
    "daily-profiles-pandas-f64-conv1d-bf16": case(_daily_profiles_f64_conv1d_bf16, "conv_weight_dtype", "f64",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 weather features from the DataFrame into an fp32 forecaster opening with BatchNorm1d
    "weather-f64-batchnorm-fp32-forecaster": case(_weather_features_f64_batchnorm_input, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # k-means over float64 daily load shapes with centroids initialised by torch.randn (fp32)
    "kmeans-f64-load-shapes-fp32-centroids-cdist": case(_kmeans_profiles_cdist_fp32_centroids, "op_dtype", "f64",
                                                        "f32",
        grade="correct", grade_at_freeze="correct"),
    # price scenarios from a LogNormal around log(day-ahead prices), which go negative on a sunny Sunday
    "negative-prices-log-lognormal-nan": case(_negative_prices_log_lognormal_scenarios, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 power-flow surrogate's voltages written into a pandapower-style res_bus DataFrame column
    "surrogate-bf16-voltages-into-res-bus": case(_surrogate_bf16_voltages_into_res_bus, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # implicit quantile network: tau from torch.rand (fp32) cosine-embedded into the bf16 tau embedding Linear
    "iqn-tau-rand-fp32-cosine-embedding-bf16": case(_iqn_tau_cosine_embedding_bf16, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 pinball losses weighted over the horizon by einsum with numpy linspace (float64) weights
    "pinball-horizon-weights-einsum-f64": case(_pinball_horizon_weights_einsum_numpy, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bridge days: the bool holiday calendar dilated with max_pool1d
    "bridge-days-max-pool1d-bool-holidays": case(_bridge_days_max_pool1d_bool_holidays, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # non-working days as a float32 weekend flag | the bool holiday flag
    "non-working-day-float-weekend-or-holiday": case(_non_working_day_float_weekend_or_bool_holiday, "mask_dtype",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # weekday loads picked by masked_select with an int64 0/1 weekday indicator from pandas
    "weekday-load-masked-select-int64-indicator": case(_weekday_load_masked_select_int_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # seasonal-naive baseline: last week's profile gathered by the day-of-week read from the float64 feature matrix
    "seasonal-naive-gather-float-weekday": case(_seasonal_naive_gather_float_weekday, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # daily peak-hour classifier trained with pandas' int32 hour as cross_entropy's target
    "peak-hour-cross-entropy-int32-target": case(_peak_hour_cross_entropy_int32_target, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # coincident-peak day flags as uint8 from pandas in binary_cross_entropy_with_logits
    "coincident-peak-bce-logits-uint8-target": case(_coincident_peak_bce_uint8_target, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # daily load shapes from an int64 cumulative Wh register normalised with F.normalize
    "meter-register-int64-normalize-load-shapes": case(_meter_register_int64_profile_normalize, "integer_operand",
                                                       "int64",
        grade="correct", grade_at_freeze="correct"),
}
