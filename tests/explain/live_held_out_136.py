"""Held-out live set 136: hydrology and flood forecasting written by hand in low precision (river-gauge discharge
series as float64 from pandas, int64 basin ids and catchment attributes, bool missing-observation masks, Nash-Sutcliffe
losses, LSTM rainfall-runoff models in bf16, daily-to-hourly resampling with repeat_interleave and int64 offsets, unit
hydrographs, Muskingum routing, baseflow filters and rating curves). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at d039d1a0."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from scipy import stats
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d039d1a0"

bf16, f16 = torch.bfloat16, torch.float16
_DAYS = 30
_FORCINGS = 5  # prcp, srad, tmax, tmin, vp (normalised)
_GAUGE_IDS = [1013500, 1022500, 1030500, 1031500]  # USGS gauge numbers, int64 in the attributes table


def _seeded() -> None:
    torch.manual_seed(0)


def _gauge_frame(days: int = _DAYS) -> pd.DataFrame:
    """One gauge's daily record as read_csv gives it: float64 discharge (m3/s) with a gap, float64 forcings."""
    rng = np.random.default_rng(0)
    q = rng.gamma(2.0, 15.0, size=days)
    q[[4, 5, 17]] = np.nan  # gauge outage and an ice-affected day
    return pd.DataFrame({
        "QObs": q,
        "prcp": rng.gamma(0.6, 6.0, size=days),
        "tmax": rng.normal(12.0, 5.0, size=days),
        "tmin": rng.normal(2.0, 5.0, size=days),
    }, index=pd.date_range("1995-10-01", periods=days, freq="D"))


def _attributes() -> pd.DataFrame:
    """CAMELS-style static catchment attributes, one row per basin: float64 from the attributes csv."""
    return pd.DataFrame({
        "area_gages2": [2252.7, 573.6, 3676.2, 769.1],
        "elev_mean": [250.3, 92.7, 143.8, 247.8],
        "frac_forest": [0.91, 0.98, 0.93, 0.88],
    }, index=_GAUGE_IDS)


def _integer_attributes() -> torch.Tensor:
    """Attributes kept as whole numbers (km2, m, days) in an int64 table."""
    return torch.tensor([[2253, 250, 12], [574, 93, 9], [3676, 144, 15], [769, 248, 11]])


# ---- two floating dtypes meet -------------------------------------------------------------------------------------


def _ea_lstm_static_attributes_cat_forcings() -> None:
    _seeded()
    forcings = torch.randn(4, _DAYS, _FORCINGS)  # fp32 from the dataset
    static = torch.from_numpy(_attributes().to_numpy())  # float64
    x = torch.cat([forcings, static[:, None, :].expand(-1, _DAYS, -1)], dim=-1)
    lstm = nn.LSTM(_FORCINGS + 3, 32, batch_first=True)
    lstm(x)


def _hourly_lstmcell_bf16_zeros_state() -> None:
    _seeded()
    cell = nn.LSTMCell(_FORCINGS, 32).to(bf16)
    forcings = torch.randn(24, 4, _FORCINGS).to(bf16)
    h = torch.zeros(4, 32)
    c = torch.zeros(4, 32)
    for hour in range(24):
        h, c = cell(forcings[hour], (h, c))


def _bf16_lstm_fp32_discharge_head() -> None:
    _seeded()
    lstm = nn.LSTM(_FORCINGS, 32, batch_first=True).to(bf16)
    head = nn.Linear(32, 1)  # created after the .to(bf16) call
    out, _ = lstm(torch.randn(4, _DAYS, _FORCINGS).to(bf16))
    head(out[:, -1])


def _camels_attributes_f64_static_linear() -> None:
    _seeded()
    attrs = _attributes()
    attrs = (attrs - attrs.mean()) / attrs.std()
    static_embedding = nn.Linear(3, 16)
    static_embedding(torch.tensor(attrs.values))


def _gamma_unit_hydrograph_f64_conv1d() -> None:
    _seeded()
    uh = stats.gamma.pdf(np.arange(1, 16), a=2.5, scale=2.0)  # Nash cascade unit hydrograph, float64
    uh = uh / uh.sum()
    kernel = torch.from_numpy(uh).flip(0).view(1, 1, -1)
    effective_rain = torch.rand(1, 1, _DAYS)
    F.conv1d(F.pad(effective_rain, (14, 0)), kernel)


def _nse_star_basin_weights_einsum_f64() -> None:
    _seeded()
    frame = _gauge_frame()
    q_std = frame["QObs"].std()  # float64 per-basin discharge std from the training period
    basin_std = torch.from_numpy(np.array([q_std, 0.8 * q_std, 1.3 * q_std, 0.5 * q_std]))
    sim = torch.randn(4, _DAYS).to(bf16)
    obs = torch.randn(4, _DAYS).to(bf16)
    weights = 1.0 / (basin_std + 0.1) ** 2
    torch.einsum("bt,b->", (sim - obs) ** 2, weights) / sim.numel()


def _muskingum_routing_bmm_bf16_inflows() -> None:
    _seeded()
    k_hours, x_weight, dt = 12.0, 0.2, 24.0
    denom = 2 * k_hours * (1 - x_weight) + dt
    c0 = (dt - 2 * k_hours * x_weight) / denom
    c1 = (dt + 2 * k_hours * x_weight) / denom
    routing = torch.diag_embed(torch.full((4, _DAYS), c0 + c1))  # fp32 routing operator per basin
    lateral = torch.rand(4, _DAYS, 1).to(bf16)  # bf16 LSTM's lateral inflows
    torch.bmm(routing, lateral)


def _bf16_model_input_layernorm_fp32_forcings() -> None:
    _seeded()
    model = nn.Sequential(nn.LayerNorm(_FORCINGS), nn.Linear(_FORCINGS, 32), nn.Tanh()).to(bf16)
    forcings = torch.from_numpy(_gauge_frame()[["prcp", "tmax", "tmin"]].to_numpy()).float()
    forcings = torch.cat([forcings, torch.zeros(_DAYS, 2)], dim=1)
    model(forcings)


def _mha_bf16_fp32_missing_day_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    states = torch.randn(1, _DAYS, 16).to(bf16)
    missing = torch.from_numpy(_gauge_frame()["QObs"].isna().to_numpy())
    mask = torch.zeros(_DAYS, _DAYS).masked_fill(missing[None, :], float("-inf"))
    attention(states, states, states, attn_mask=mask)


def _baseflow_filter_lerp_f64_discharge() -> None:
    q = torch.from_numpy(_gauge_frame()["QObs"].ffill().to_numpy())  # float64
    alpha = 0.925
    baseflow = torch.zeros(())  # filter state, fp32
    series = []
    for t in range(len(q)):
        baseflow.lerp_(torch.minimum(q[t], baseflow + q[t] * (1 - alpha)), 1 - alpha)
        series.append(baseflow.clone())


def _valid_days_setitem_bf16_predictions() -> None:
    _seeded()
    obs = torch.from_numpy(_gauge_frame()["QObs"].to_numpy())
    valid = ~torch.isnan(obs)
    q_sim = torch.full((_DAYS,), float("nan"))
    with torch.no_grad():
        lstm = nn.LSTM(_FORCINGS, 8, batch_first=True).to(bf16)
        out, _ = lstm(torch.randn(1, _DAYS, _FORCINGS).to(bf16))
        pred = out[0, :, 0]
    q_sim[valid] = pred[valid]


def _hydroeval_bf16_simulation_dataframe() -> None:
    _seeded()
    frame = _gauge_frame()
    with torch.no_grad():
        pred = torch.rand(_DAYS).to(bf16) * 40.0
    pd.DataFrame({"qobs": frame["QObs"], "qsim": pred}, index=frame.index)


def _nwis_qualifier_column_object_array() -> None:
    frame = _gauge_frame()
    frame["QObs_cd"] = ["A"] * 25 + ["P"] * 5  # NWIS approval code column left in the frame
    torch.from_numpy(frame[["QObs", "prcp", "QObs_cd"]].to_numpy())


def _fp16_hourly_pad_missing_sentinel() -> None:
    hourly = torch.rand(1, 1, 24 * 7 + 5).half() * 50.0
    F.pad(hourly, (0, 24 - hourly.shape[-1] % 24), value=-99999.0)  # NWIS-style missing-value code


def _nse_loss_unmasked_nan_gauge_anomaly() -> None:
    _seeded()
    obs = torch.from_numpy(_gauge_frame()["QObs"].to_numpy()).float()
    sim = nn.Linear(_FORCINGS, 1)(torch.randn(_DAYS, _FORCINGS)).squeeze(-1)
    with torch.autograd.detect_anomaly():
        nse_loss = ((sim - obs) ** 2).sum() / ((obs - obs.mean()) ** 2).sum()
        nse_loss.backward()


def _halved_lstm_gradscaler_unscale() -> None:
    _seeded()
    lstm = nn.LSTM(_FORCINGS, 16, batch_first=True).half()
    head = nn.Linear(16, 1).half()
    optimizer = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    out, _ = lstm(torch.randn(2, 10, _FORCINGS).half())
    loss = ((head(out[:, -1]).float() - torch.rand(2, 1)) ** 2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _flood_probability_bf16_bce_fp32_target() -> None:
    _seeded()
    classifier = nn.Sequential(nn.Linear(_FORCINGS, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid()).to(bf16)
    prob = classifier(torch.randn(8, _FORCINGS).to(bf16)).squeeze(-1)
    exceeded = torch.tensor([0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    F.binary_cross_entropy(prob, exceeded)


def _rating_curve_normal_equations_solve_fp16() -> None:
    stage = torch.tensor([0.42, 0.55, 0.71, 0.93, 1.20, 1.58, 2.04], dtype=f16)  # logger stage (m), stored as half
    q = torch.tensor([3.1, 5.2, 8.8, 15.0, 26.0, 46.0, 79.0], dtype=f16)
    design = torch.stack([torch.ones_like(stage), torch.log(stage - 0.3)], dim=1)
    torch.linalg.solve(design.T @ design, design.T @ torch.log(q))


def _missing_mask_fp16_or_ice_flags() -> None:
    batch = {
        "missing": torch.tensor([0, 0, 1, 1, 0, 0, 0, 1], dtype=torch.bool),
        "x": torch.randn(8, _FORCINGS),
    }
    batch = {key: value.half() for key, value in batch.items()}  # "train in half": the whole batch cast
    ice_affected = torch.tensor([0, 0, 0, 1, 1, 0, 0, 0], dtype=torch.bool)
    batch["missing"] | ice_affected


# ---- integer, bool, index, mask and target dtypes ---------------------------------------------------------------


def _nse_valid_mask_float_inverted() -> None:
    obs = torch.from_numpy(_gauge_frame()["QObs"].to_numpy()).float()
    missing = torch.isnan(obs).float()  # the dataset returns the mask as float to weight the loss
    sim = torch.rand(_DAYS) * 40.0
    sim[~missing], obs[~missing]


def _ice_flag_uint8_masked_fill() -> None:
    obs = torch.from_numpy(_gauge_frame()["QObs"].fillna(0.0).to_numpy()).float()
    ice_flag = torch.from_numpy(np.array([0] * 10 + [1] * 5 + [0] * 15, dtype=np.uint8))  # netCDF byte variable
    obs.masked_fill(ice_flag, float("nan"))


def _missing_hours_fraction_avg_pool_bool() -> None:
    missing = torch.zeros(24 * 7, dtype=torch.bool)
    missing[30:41] = True
    missing[100:103] = True
    F.avg_pool1d(missing[None, None], 24)


def _daily_to_hourly_repeat_interleave_f64_hours() -> None:
    days = pd.date_range("1996-03-30", periods=4, freq="D", tz="Europe/Zurich")  # spans the DST switch
    hours_per_day = ((days + pd.Timedelta("1D")) - days) / pd.Timedelta("1h")  # float64: 24, 23, 24, 24
    daily_q = torch.tensor([12.1, 11.8, 14.6, 19.2])
    torch.repeat_interleave(daily_q, torch.from_numpy(np.asarray(hours_per_day)))


def _hour_to_day_floor_division_gather() -> None:
    daily_q = torch.rand(4, _DAYS) * 40.0
    hour_offsets = torch.arange(24 * 3).expand(4, -1)  # int64 hours since the window's start
    day_index = torch.floor(hour_offsets / 24)
    torch.gather(daily_q, 1, day_index)


def _basin_batch_cast_bf16_basin_embedding() -> None:
    _seeded()
    batch = {
        "x_d": torch.randn(4, _DAYS, _FORCINGS),
        "basin_idx": torch.tensor([0, 1, 2, 3]),
        "y": torch.rand(4, _DAYS, 1),
    }
    batch = {key: value.to(bf16) for key, value in batch.items()}
    basin_embedding = nn.Embedding(len(_GAUGE_IDS), 8).to(bf16)
    basin_embedding(batch["basin_idx"])


def _flood_exceedance_bce_logits_bool_target() -> None:
    _seeded()
    obs = torch.from_numpy(_gauge_frame()["QObs"].fillna(0.0).to_numpy()).float()
    threshold = torch.quantile(obs, 0.9)
    logits = nn.Linear(_FORCINGS, 1)(torch.randn(_DAYS, _FORCINGS)).squeeze(-1)
    F.binary_cross_entropy_with_logits(logits, obs > threshold)


def _warning_level_cross_entropy_f64_target() -> None:
    _seeded()
    frame = _gauge_frame()
    frame["level"] = pd.cut(frame["QObs"], [0, 20, 40, 80, 1e9], labels=False)  # float64: NaN on gap days
    frame = frame.dropna()
    logits = nn.Linear(_FORCINGS, 4)(torch.randn(len(frame), _FORCINGS))
    F.cross_entropy(logits, torch.from_numpy(frame["level"].to_numpy()))


def _utc_offset_added_in_place_int64_hours() -> None:
    hours_since_1980 = torch.tensor([[140256, 140257, 140258]] * 4)  # int64 offsets from the hourly NLDAS index
    utc_offset_h = torch.from_numpy(np.array([-5.0, -5.0, -3.5, -6.0]))  # per-basin time zone, float64 from pandas
    hours_since_1980 += utc_offset_h[:, None]


def _donor_basins_cdist_int64_attributes() -> None:
    attrs = _integer_attributes()
    target = torch.tensor([[1200, 180, 10]])
    torch.cdist(target, attrs).argmin()


def _ghcn_tenths_mm_int64_interpolate_hourly() -> None:
    prcp = torch.tensor([0, 0, 38, 152, 41, 0, 0, 5])  # GHCN-D PRCP in tenths of mm, int64
    F.interpolate(prcp[None, None], scale_factor=24, mode="linear", align_corners=False) / 240.0


CASES: dict[str, LiveCase] = {
    # EA-LSTM-style inputs: fp32 forcings concatenated with the float64 CAMELS attributes, into an fp32 LSTM
    "ea-lstm-static-f64-cat-forcings-fp32-lstm": case(_ea_lstm_static_attributes_cat_forcings, "rnn_dtype", "f64",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # an hourly rollout with a bf16 LSTMCell, its (h, c) started from torch.zeros (fp32)
    "hourly-lstmcell-bf16-zeros-state": case(_hourly_lstmcell_bf16_zeros_state, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a rainfall-runoff LSTM cast to bf16, its discharge head created afterwards in fp32
    "bf16-lstm-fp32-discharge-head": case(_bf16_lstm_fp32_discharge_head, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # standardised float64 catchment attributes from pandas into the fp32 static embedding
    "camels-attributes-f64-static-linear": case(_camels_attributes_f64_static_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a gamma-distribution unit hydrograph from scipy (float64) as the conv1d kernel over fp32 effective rainfall
    "gamma-unit-hydrograph-f64-conv1d": case(_gamma_unit_hydrograph_f64_conv1d, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # NSE* loss: bf16 squared errors weighted per basin by einsum with float64 1/std^2 from pandas
    "nse-star-basin-weights-einsum-f64": case(_nse_star_basin_weights_einsum_f64, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Muskingum routing operator built fp32, bmm'ed with the bf16 model's lateral inflows
    "muskingum-routing-bmm-bf16-inflows": case(_muskingum_routing_bmm_bf16_inflows, "batched_matmul_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a model opening with LayerNorm cast to bf16, given fp32 forcings from the DataFrame
    "bf16-model-input-layernorm-fp32-forcings": case(_bf16_model_input_layernorm_fp32_forcings, "norm_param_dtype",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 temporal attention with an fp32 additive -inf mask over the days the gauge was missing
    "mha-bf16-fp32-missing-day-mask": case(_mha_bf16_fp32_missing_day_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # one-parameter baseflow filter: an fp32 state lerp_'ed toward the float64 discharge from pandas
    "baseflow-filter-lerp-f64-discharge": case(_baseflow_filter_lerp_f64_discharge, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 LSTM predictions written on the valid days of an fp32 NaN-filled simulation buffer
    "valid-days-setitem-bf16-predictions": case(_valid_days_setitem_bf16_predictions, "indexed_write_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 simulated discharge put into a pandas DataFrame next to the observations for hydroeval
    "hydroeval-bf16-simulation-dataframe": case(_hydroeval_bf16_simulation_dataframe, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the NWIS approval-code string column left in the frame given to torch.from_numpy
    "nwis-qualifier-column-object-array": case(_nwis_qualifier_column_object_array, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a week of fp16 hourly discharge padded to whole days with the -99999 missing-value code
    "fp16-hourly-pad-missing-sentinel": case(_fp16_hourly_pad_missing_sentinel, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # NSE loss over a gauge series with its NaN gaps left unmasked, backward under detect_anomaly
    "nse-loss-unmasked-nan-gauge-anomaly": case(_nse_loss_unmasked_nan_gauge_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a .half() rainfall-runoff LSTM trained with GradScaler on the CPU, unscale_ of its fp16 gradients
    "halved-lstm-gradscaler-unscale": case(_halved_lstm_gradscaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 flood-probability classifier's sigmoid output in binary_cross_entropy with an fp32 exceedance target
    "flood-probability-bf16-bce-fp32-target": case(_flood_probability_bf16_bce_fp32_target, "op_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # a stage-discharge rating curve fit by normal equations and linalg.solve on fp16 logger data
    "rating-curve-normal-equations-solve-fp16": case(_rating_curve_normal_equations_solve_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the bool missing-observation mask halved with the batch, then | with the bool ice-affected flags
    "missing-mask-fp16-or-ice-flags": case(_missing_mask_fp16_or_ice_flags, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the missing-day mask made float to weight the loss, inverted with ~ to pick the valid days
    "nse-valid-mask-float-inverted": case(_nse_valid_mask_float_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # an ice-affected flag read from a netCDF byte variable (uint8) given to masked_fill
    "ice-flag-uint8-masked-fill": case(_ice_flag_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # the fraction of missing hours per day by avg_pool1d over the bool hourly missing mask
    "missing-hours-fraction-avg-pool-bool": case(_missing_hours_fraction_avg_pool_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # daily-to-hourly with repeat_interleave by hours per local day computed as float64 from pandas timedeltas
    "daily-to-hourly-repeat-interleave-f64-hours": case(_daily_to_hourly_repeat_interleave_f64_hours,
                                                        "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # the day of each hour as torch.floor(int64 hour offsets / 24), a float index into gather
    "hour-to-day-floor-division-gather": case(_hour_to_day_floor_division_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the whole training batch cast to bf16, the basin index included, looked up in the basin embedding
    "basin-batch-cast-bf16-basin-embedding": case(_basin_batch_cast_bf16_basin_embedding, "index_tensor_dtype",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # flood exceedance of the 90th-percentile flow as a bool target of BCE-with-logits
    "flood-exceedance-bce-logits-bool-target": case(_flood_exceedance_bce_logits_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # flood warning levels from pd.cut(labels=False), float64, as cross_entropy's target
    "warning-level-cross-entropy-f64-target": case(_warning_level_cross_entropy_f64_target, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # int64 hourly offsets shifted in place by the float64 per-basin UTC offsets
    "utc-offset-added-in-place-int64-hours": case(_utc_offset_added_in_place_int64_hours, "result_cast", "f64",
                                                  "int64",
        grade="correct", grade_at_freeze="correct"),
    # donor basins for regionalisation by cdist over int64 catchment attributes
    "donor-basins-cdist-int64-attributes": case(_donor_basins_cdist_int64_attributes, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # GHCN-D daily precipitation in int64 tenths of mm interpolated linearly to hourly
    "ghcn-tenths-mm-int64-interpolate-hourly": case(_ghcn_tenths_mm_int64_interpolate_hourly, "integer_operand",
                                                    "int64",
        grade="correct", grade_at_freeze="correct"),
}
