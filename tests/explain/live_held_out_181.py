"""Held-out live set 181: battery state-of-charge estimation and EV charging analytics written by hand in low
precision (float64 pandas telemetry of cell voltages, currents and temperatures, int64 station and vehicle ids, bool
fault flags, uint8 BMS status codes, Coulomb counting and extended Kalman filters on equivalent-circuit models,
fp16/bf16 LSTMs, TCNs and transformers over cell voltages, charging-session demand and occupancy models).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at bbf65169."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "bbf65169"

bf16, f16 = torch.bfloat16, torch.float16
_CELLS = 12  # series cells in the pack
_STATIONS, _VEHICLES = 6, 9
_CAPACITY_AH = 50.0


def _seeded() -> None:
    torch.manual_seed(0)


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _telemetry(rows: int = 32) -> pd.DataFrame:
    """One pack's 1 Hz BMS log as pandas reads it: float64 measurements, uint8 status, bool fault flag."""
    rng = _rng()
    return pd.DataFrame({
        "voltage": 3.6 + 0.1 * rng.standard_normal(rows),
        "current": -20.0 + 5.0 * rng.standard_normal(rows),
        "temperature": 25.0 + rng.standard_normal(rows),
        "status": rng.integers(0, 8, rows).astype(np.uint8),
        "fault": rng.random(rows) > 0.9,
    })


def _sessions(rows: int = 20) -> pd.DataFrame:
    """Charging sessions: int64 station and vehicle ids, energy in Wh (int64), duration in minutes."""
    rng = _rng()
    return pd.DataFrame({
        "station_id": rng.integers(0, _STATIONS, rows),
        "vehicle_id": rng.integers(0, _VEHICLES, rows),
        "energy_wh": rng.integers(2_000, 60_000, rows),
        "minutes": rng.integers(10, 300, rows),
    })


def _cell_windows(batch: int = 2, steps: int = 16) -> torch.Tensor:
    """Cell-voltage windows (batch, cells, time) in fp32."""
    _seeded()
    return 3.6 + 0.05 * torch.randn(batch, _CELLS, steps)


# --- integer ids, status codes, fault flags and targets


def _bms_status_uint8_embedding() -> None:
    status = torch.from_numpy(_telemetry()["status"].to_numpy())
    nn.Embedding(8, 4)(status)


def _station_ids_float_after_merge_embedding() -> None:
    sessions = _sessions()
    meta = pd.DataFrame({"station_id": range(_STATIONS - 1), "power_kw": [11.0, 22.0, 50.0, 150.0, 350.0]})
    merged = sessions.merge(meta, on="station_id", how="left")
    merged["station_id"] = merged["station_id"].where(merged["power_kw"].notna())  # unknown chargers -> NaN
    ids = torch.tensor(merged["station_id"].fillna(0).to_numpy())
    nn.Embedding(_STATIONS, 4)(ids)


def _fault_flags_bool_cross_entropy() -> None:
    _seeded()
    fault = torch.from_numpy(_telemetry()["fault"].to_numpy())
    logits = torch.randn(len(fault), 2)
    F.cross_entropy(logits, fault)


def _fault_onsets_bool_subtract() -> None:
    fault = torch.from_numpy(_telemetry()["fault"].to_numpy())
    onsets = fault[1:] - fault[:-1]
    onsets.clamp(min=0)


def _healthy_rows_invert_float_fault_column() -> None:
    frame = _telemetry()
    frame["fault"] = frame["fault"].astype(float)  # after a resample().max() the flag came back float64
    fault = torch.tensor(frame["fault"].to_numpy())
    voltage = torch.tensor(frame["voltage"].to_numpy())
    voltage[~fault]


def _status_uint8_masked_fill_voltage() -> None:
    frame = _telemetry()
    balancing = torch.from_numpy((frame["status"].to_numpy() == 3).astype(np.uint8))
    voltage = torch.tensor(frame["voltage"].to_numpy(), dtype=torch.float32)
    voltage.masked_fill(balancing, float("nan"))


def _mean_session_energy_int64() -> None:
    energy = torch.tensor(_sessions()["energy_wh"].to_numpy())
    energy.mean()


def _cell_mv_int16_into_linear() -> None:
    _seeded()
    millivolts = torch.randint(3300, 4200, (4, _CELLS), dtype=torch.int16)  # raw CAN frame values
    nn.Linear(_CELLS, 1)(millivolts)


def _soc_percent_uint8_histc() -> None:
    soc = torch.tensor([12, 35, 80, 80, 95, 100], dtype=torch.uint8)  # SoC at plug-in from the OCPP MeterValues
    torch.histc(soc, bins=10, min=0, max=100)


def _energy_int64_regression_target_backward() -> None:
    _seeded()
    sessions = _sessions()
    predicted = nn.Linear(2, 1)(torch.randn(len(sessions), 2)).squeeze(-1)
    target = torch.tensor(sessions["energy_wh"].to_numpy())
    F.huber_loss(predicted, target, delta=1000.0).backward()


def _station_energy_scatter_add_int64() -> None:
    sessions = _sessions()
    station = torch.tensor(sessions["station_id"].to_numpy())
    energy = torch.tensor(sessions["energy_wh"].to_numpy())
    torch.zeros(_STATIONS).scatter_add_(0, station, energy)


def _last_soc_take_int32_offsets() -> None:
    _seeded()
    soc = torch.rand(3, 10)
    lengths = np.array([10, 7, 4], dtype=np.int32)  # session lengths from the parquet's int32 column
    flat = torch.from_numpy(np.arange(3, dtype=np.int32) * 10 + lengths - 1)
    soc.take(flat)


def _meter_int64_upsampled_linear() -> None:
    register_wh = torch.tensor(_sessions()["energy_wh"].to_numpy())[None, None]  # 15-minute int64 meter readings
    F.interpolate(register_wh, scale_factor=15, mode="linear")


def _plug_state_int16_nll_target() -> None:
    _seeded()
    state = torch.from_numpy(np.array([0, 1, 2, 1], dtype=np.int16))  # pd.to_numeric(downcast="integer") of the state
    F.nll_loss(torch.randn(4, 3).log_softmax(-1), state)


def _worst_cells_topk_bool_overvoltage() -> None:
    _seeded()
    overvoltage = _cell_windows()[0].amax(-1) > 3.65  # per-cell bool over-voltage flag
    overvoltage.topk(3)


# --- floats meeting: LSTMs, TCNs, transformers, Kalman filters


def _pandas_f64_telemetry_into_bf16_lstm() -> None:
    frame = _telemetry()
    features = torch.tensor(frame[["voltage", "current", "temperature"]].to_numpy())[None]
    nn.LSTM(3, 8, batch_first=True).to(bf16)(features)


def _bf16_tcn_fp32_cell_windows() -> None:
    tcn = nn.Conv1d(_CELLS, 16, 3, padding=2, dilation=2).to(bf16)
    tcn(_cell_windows())


def _cell_attention_numpy_f64_bias_sdpa() -> None:
    _seeded()
    positions = np.arange(_CELLS)
    bias = -np.abs(positions[:, None] - positions[None, :]) / 4.0  # cells far apart in the string attend less
    q = torch.randn(1, 2, _CELLS, 8, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=torch.from_numpy(bias))


def _ekf_numpy_f64_jacobian_matmul_fp32_covariance() -> None:
    soc_grid = np.linspace(0.0, 1.0, 11)
    ocv = 3.0 + 1.2 * soc_grid - 0.2 * soc_grid**2
    d_ocv = np.gradient(ocv, soc_grid)[5]
    h = torch.from_numpy(np.array([[d_ocv, -1.0]]))  # H = [dOCV/dSoC, -1] for state [SoC, V_rc]
    p = torch.eye(2) * 1e-3
    h @ p @ h.T


def _ekf_innovation_solve_fp16() -> None:
    s = torch.tensor([[2e-3, 1e-4], [1e-4, 3e-3]], dtype=f16)  # covariance kept in half on the BMS
    innovation = torch.tensor([[0.01], [0.02]], dtype=f16)
    torch.linalg.solve(s, innovation)


def _cell_power_vecdot_f64_voltage_fp32_current() -> None:
    _seeded()
    voltage = torch.tensor(_telemetry(4)["voltage"].to_numpy())[:, None].expand(4, _CELLS)  # float64 from pandas
    current = torch.randn(4, _CELLS)
    torch.linalg.vecdot(voltage, current)


def _bf16_gru_fp32_initial_hidden() -> None:
    gru = nn.GRU(3, 8, batch_first=True).to(bf16)
    x = torch.zeros(2, 5, 3, dtype=bf16)
    h0 = torch.zeros(1, 2, 8)  # carried over from the previous chunk of the drive cycle
    gru(x, h0)


def _cell_attention_bmm_bf16_weights_fp32_values() -> None:
    _seeded()
    weights = torch.softmax(torch.randn(2, _CELLS, _CELLS, dtype=bf16), -1)
    values = _cell_windows().float()
    torch.bmm(weights, values)


def _cell_norm_bf16_fp32_windows() -> None:
    norm = nn.InstanceNorm1d(_CELLS, affine=True).to(bf16)  # per-cell normalisation at the TCN's input
    norm(_cell_windows())


def _coulomb_counting_int64_soc_in_place() -> None:
    soc_permille = torch.tensor([800, 650, 420])  # integer SoC in 0.1 % from the BMS
    current = torch.tensor([-20.0, -35.0, 12.0])
    soc_permille += current * (1.0 / 3600.0) / _CAPACITY_AH * 1000.0


def _pack_energy_fp16_full_wh() -> None:
    torch.full((4,), 75_000.0, dtype=f16)  # a 75 kWh pack's usable energy in Wh


def _eis_spectrum_rfft_bf16() -> None:
    _seeded()
    current = torch.randn(64, dtype=bf16)  # impedance-spectroscopy excitation recorded in bf16
    torch.fft.rfft(current)


def _ecm_fit_lstsq_fp16() -> None:
    _seeded()
    a = torch.randn(16, 3).half()  # [I_k, I_{k-1}, V_{k-1}] regressors of the RC model
    b = torch.randn(16, 1).half()
    torch.linalg.lstsq(a, b)


def _soc_predictions_bf16_to_pandas() -> None:
    soc = torch.rand(6).to(bf16)
    pd.DataFrame({"soc": soc.numpy()})


def _station_occupancy_categorical_zero_rows() -> None:
    counts = torch.tensor([[3.0, 1.0, 0.0], [0.0, 0.0, 0.0]])  # a station with no sessions that week
    probs = counts / counts.sum(-1, keepdim=True)
    torch.distributions.Categorical(probs=probs)


CASES: dict[str, LiveCase] = {
    # uint8 BMS status codes from the pandas log looked up in a status nn.Embedding
    "bms-status-uint8-embedding": case(_bms_status_uint8_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # station ids float64 after a left merge and NaN fill, into the station nn.Embedding
    "station-ids-f64-merge-embedding": case(_station_ids_float_after_merge_embedding, "index_tensor_dtype", "f64",
                                            fix=(".long()",),
        grade="correct", grade_at_freeze="correct"),
    # bool fault flags from the BMS log as cross_entropy's target of a two-class fault head
    "fault-flag-bool-cross-entropy-target": case(_fault_flags_bool_cross_entropy, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # fault onsets by subtracting the bool fault flag from its shifted copy
    "fault-onsets-bool-subtract": case(_fault_onsets_bool_subtract, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # healthy rows by ~ of a fault column that came back float64 from a resample
    "healthy-rows-invert-f64-fault": case(_healthy_rows_invert_float_fault_column, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # cell-balancing rows blanked with masked_fill by a uint8 status mask
    "balancing-uint8-masked-fill": case(_status_uint8_masked_fill_voltage, "mask_dtype", "uint8", fix=("bool",),
        grade="correct", grade_at_freeze="correct"),
    # mean delivered energy per session of the int64 Wh column
    "session-energy-int64-mean": case(_mean_session_energy_int64, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # raw int16 cell millivolts from a CAN frame straight into an fp32 Linear
    "cell-mv-int16-linear": case(_cell_mv_int16_into_linear, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # plug-in SoC histogram with torch.histc of uint8 percents
    "plugin-soc-uint8-histc": case(_soc_percent_uint8_histc, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # session energy regression with the int64 Wh column as huber_loss's target, failing in backward
    "session-energy-int64-huber-target": case(_energy_int64_regression_target_backward, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-station delivered energy by scatter_add_ of int64 Wh into an fp32 zeros buffer
    "station-energy-scatter-add-int64": case(_station_energy_scatter_add_int64, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # last valid SoC per session by torch.take at flat offsets built from int32 lengths
    "last-soc-take-int32-offsets": case(_last_soc_take_int32_offsets, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # 15-minute int64 meter readings upsampled to minutes with interpolate(mode="linear")
    "meter-int64-interpolate-linear": case(_meter_int64_upsampled_linear, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # charger plug-state classifier with pandas-downcast int16 states as nll_loss's target
    "plug-state-int16-nll-target": case(_plug_state_int16_nll_target, "target_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # the three worst cells by topk of the bool over-voltage flags
    "worst-cells-topk-bool-overvoltage": case(_worst_cells_topk_bool_overvoltage, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # float64 pandas voltage/current/temperature into an LSTM cast to bf16
    "telemetry-f64-bf16-lstm": case(_pandas_f64_telemetry_into_bf16_lstm, "rnn_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a dilated TCN cast to bf16 given fp32 cell-voltage windows
    "tcn-bf16-fp32-cell-windows": case(_bf16_tcn_fp32_cell_windows, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # cell-distance attention bias built in numpy (float64) as bf16 SDPA's attn_mask
    "cell-distance-f64-bias-sdpa": case(_cell_attention_numpy_f64_bias_sdpa, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SoC EKF: the OCV Jacobian from numpy (float64) @ the fp32 covariance
    "ekf-f64-jacobian-fp32-covariance": case(_ekf_numpy_f64_jacobian_matmul_fp32_covariance, "matmul_dtype", "f64",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # SoC EKF gain: linalg.solve of the fp16 innovation covariance
    "ekf-innovation-solve-fp16": case(_ekf_innovation_solve_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # per-sample pack power by linalg.vecdot of float64 pandas voltages with fp32 cell currents
    "pack-power-vecdot-f64-fp32": case(_cell_power_vecdot_f64_voltage_fp32_current, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 GRU over a drive cycle given the previous chunk's fp32 hidden state
    "drive-cycle-gru-bf16-fp32-hidden": case(_bf16_gru_fp32_initial_hidden, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # cell-to-cell attention weights (bf16) bmm'd with fp32 cell windows
    "cell-attention-bmm-bf16-fp32": case(_cell_attention_bmm_bf16_weights_fp32_values, "batched_matmul_dtype",
                                         "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an affine InstanceNorm1d over cells cast to bf16 given fp32 cell-voltage windows
    "cell-instance-norm-bf16-fp32-windows": case(_cell_norm_bf16_fp32_windows, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Coulomb counting added in place into an int64 per-mille SoC
    "coulomb-count-int64-soc-in-place": case(_coulomb_counting_int64_soc_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a 75 kWh pack's usable energy in Wh made with torch.full in fp16
    "pack-energy-75kwh-fp16-full": case(_pack_energy_fp16_full_wh, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # impedance spectrum by rfft of a bf16 excitation current
    "eis-rfft-bf16": case(_eis_spectrum_rfft_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # RC equivalent-circuit parameters by linalg.lstsq on fp16 regressors
    "ecm-fit-lstsq-fp16": case(_ecm_fit_lstsq_fp16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # bf16 SoC predictions through .numpy() into a pandas DataFrame
    "soc-predictions-bf16-numpy": case(_soc_predictions_bf16_to_pandas, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # station occupancy distribution normalised by row sums, an unused station's row 0 / 0
    "station-occupancy-categorical-nan": case(_station_occupancy_categorical_zero_rows, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
