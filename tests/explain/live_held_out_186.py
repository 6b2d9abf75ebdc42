"""Held-out live set 186: wind energy and turbine condition monitoring written by hand in low precision (10-minute
SCADA records from pandas in float64 with datetime64 stamps and int status codes, int16 accelerometer counts from
drivetrain vibration loggers, uint8 drone images of blades, bf16/fp16 power-curve, forecasting and fault-detection
networks, rainflow fatigue counters, wind-rose and power-curve binning, operational modal analysis by linear
algebra). Defects planted by a helper who never read the rules, written before castwise ran (committed before the
set's deadline; the freeze, c1093bb0, is the commit the writing started from, so the rules had not seen them) and
graded once with the rules frozen at c1093bb0."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c1093bb0"

bf16, f16 = torch.bfloat16, torch.float16


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(186)


def _scada() -> pd.DataFrame:
    """10-minute SCADA records as pandas reads them: float64 channels, datetime64 stamps, int64 status codes."""
    return pd.DataFrame({
        "time": pd.date_range("2024-01-01", periods=6, freq="10min"),
        "wind_speed": [5.1, 6.3, 7.8, 9.2, 11.4, 13.0], "power_kw": [310.0, 620.0, 1150.0, 1790.0, 2900.0, 3450.0],
        "pitch_deg": [0.0, 0.0, 0.5, 1.2, 4.8, 9.6], "gen_temp": [55.0, 58.2, 61.0, 66.3, 71.9, 74.4],
        "status": [0, 0, 2, 0, 0, 5]})


def _vibration_counts(n: int = 256) -> torch.Tensor:
    """Raw int16 accelerometer counts from a drivetrain vibration logger: (batch, channel, samples)."""
    return torch.randint(-2000, 2000, (1, 3, n), dtype=torch.int16, generator=_gen())


def _power_curve_mlp_bf16_pandas_f64() -> None:
    model = nn.Sequential(nn.Linear(3, 16), nn.SiLU(), nn.Linear(16, 1)).to(bf16)
    features = torch.from_numpy(_scada()[["wind_speed", "pitch_deg", "gen_temp"]].values)
    model(features)


def _vibration_int16_into_conv1d() -> None:
    encoder = nn.Conv1d(3, 8, 7, padding=3)
    encoder(_vibration_counts())


def _fault_classes_float_targets() -> None:
    logits = torch.randn(6, 4, generator=_gen())
    fault_code = torch.tensor(_scada()["status"].values, dtype=torch.float32)  # 0 normal, 2 yaw, 5 pitch fault
    F.cross_entropy(logits, fault_code.clamp(max=3))


def _turbine_id_embedding_float() -> None:
    turbine_emb = nn.Embedding(40, 8)
    ids = torch.tensor([3.0, 17.0, 22.0])  # turbine ids read from the farm layout csv as floats
    turbine_emb(ids)


def _bf16_layernorm_fp32_nacelle_features() -> None:
    norm = nn.LayerNorm(5).to(bf16)
    norm(torch.randn(4, 5, generator=_gen()))


def _lstm_forecaster_f64_window() -> None:
    lstm = nn.LSTM(2, 16, batch_first=True)
    window = torch.from_numpy(_scada()[["wind_speed", "power_kw"]].values)[None]
    lstm(window)


def _sdpa_bf16_query_fp32_memory() -> None:
    q = torch.randn(1, 2, 6, 8, generator=_gen()).to(bf16)  # decoder queries under the bf16 forecaster
    memory = torch.randn(1, 2, 24, 8, generator=_gen())  # NWP encoder memory kept in fp32
    F.scaled_dot_product_attention(q, memory, memory)


def _mha_float64_causal_mask() -> None:
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.randn(1, 6, 8, generator=_gen())
    causal = torch.from_numpy(np.triu(np.full((6, 6), -np.inf), 1))  # float64 from numpy
    mha(x, x, x, attn_mask=causal)


def _blade_images_conv_bf16_weights() -> None:
    detector = nn.Conv2d(3, 8, 3, padding=1).to(bf16)
    frames = torch.rand(1, 3, 16, 16, generator=_gen())  # normalised drone frames, fp32
    detector(frames)


def _spectrogram_conv_bias_left_fp32() -> None:
    conv = nn.Conv2d(1, 4, 3, bias=True)
    conv.weight.data = conv.weight.data.to(bf16)  # only the weight was converted by a hand-written cast loop
    spec = torch.rand(1, 1, 8, 8, generator=_gen()).to(bf16)
    conv(spec)


def _wind_direction_histc_int() -> None:
    direction = torch.randint(0, 360, (500,), dtype=torch.int16, generator=_gen())  # vane degrees from SCADA
    torch.histc(direction, bins=12, min=0, max=360)


def _envelope_spectrum_fft_half() -> None:
    accel = _vibration_counts(512).half() / 1000.0
    envelope = accel.abs()
    torch.fft.rfft(envelope, dim=-1)


def _oma_ssi_svd_bf16() -> None:
    hankel = torch.randn(12, 12, generator=_gen()).to(bf16)  # block Hankel of tower accelerations
    torch.linalg.svd(hankel)


def _bearing_kurtosis_quantile_fp16() -> None:
    rms = torch.rand(64, generator=_gen()).half()
    torch.quantile(rms, 0.99)


def _rainflow_damage_into_int_counter() -> None:
    cycles = torch.zeros(8, dtype=torch.int64)  # cycle counts per load range bin
    damage = torch.rand(8, generator=_gen()) * 1e-6  # Miner's-rule damage per bin
    cycles += damage


def _curtailment_mask_minus_bool() -> None:
    curtailed = torch.tensor([False, True, False, False, True])
    available = -curtailed  # noqa: F841


def _icing_mask_where_float() -> None:
    icing_flag = torch.tensor([0.0, 1.0, 0.0, 1.0])  # from the icing detector's csv as float
    power = torch.tensor([900.0, 120.0, 1500.0, 80.0])
    torch.where(icing_flag, torch.zeros(4), power)


def _status_uint8_masked_fill() -> None:
    power = torch.tensor([1200.0, 0.0, 900.0, 0.0])
    stopped = torch.tensor([0, 1, 0, 1], dtype=torch.uint8)  # status bit from the controller log
    power.masked_fill(stopped, float("nan"))


def _fp16_attention_fill_minus_1e9() -> None:
    scores = torch.randn(1, 6, 6, generator=_gen()).half()
    future = torch.ones(6, 6, dtype=torch.bool).triu(1)
    scores.masked_fill(future, -1e9)


def _fp16_annual_energy_buffer() -> None:
    aep = torch.zeros(12, dtype=f16)  # monthly energy in kWh
    aep.fill_(850_000.0)


def _ema_baseline_lerp_bf16() -> None:
    baseline = torch.zeros(5)  # fp32 normal-behaviour baseline per channel
    latest = torch.randn(5, generator=_gen()).to(bf16)  # residuals out of the bf16 NBM
    baseline.lerp_(latest, 0.01)


def _scatter_add_fp16_power_into_bins() -> None:
    wind = torch.tensor(_scada()["wind_speed"].values, dtype=torch.float32)
    bins = (wind / 0.5).long()
    curve = torch.zeros(40)
    power = torch.rand(6, generator=_gen()).half()
    curve.scatter_add_(0, bins, power)


def _one_hot_int32_azimuth_bins() -> None:
    azimuth_bin = torch.randint(0, 36, (100,), dtype=torch.int32, generator=_gen())  # 10-degree rotor azimuth bins
    F.one_hot(azimuth_bin, 36)


def _index_put_float64_downtime() -> None:
    availability = torch.ones(144)  # fp32, 10-minute slots of a day
    slots = torch.tensor([10, 11, 12])
    availability[slots] = torch.from_numpy(np.array([0.0, 0.0, 0.5]))


def _wake_features_bmm_bf16() -> None:
    adjacency = torch.rand(1, 10, 10, generator=_gen()).to(bf16)  # wake adjacency between turbines, bf16 model
    states = torch.randn(1, 10, 16, generator=_gen())  # node states from the fp32 encoder
    torch.bmm(adjacency, states)


def _status_one_hot_int_matmul() -> None:
    status = torch.tensor(_scada()["status"].values)
    one_hot = F.one_hot(status, 8)
    status_proj = torch.randn(8, 4, generator=_gen())
    one_hot @ status_proj


def _scada_timestamps_to_tensor() -> None:
    torch.tensor(_scada()["time"].values)


def _wind_field_grid_sample_f64_grid() -> None:
    lidar = torch.randn(1, 1, 8, 8, generator=_gen())  # scanning lidar wind field, fp32
    hub_xy = torch.from_numpy(np.random.default_rng(186).uniform(-1, 1, (1, 4, 1, 2)))  # float64 positions
    F.grid_sample(lidar, hub_xy, align_corners=False)


def _blade_patches_unfold_uint8() -> None:
    frame = torch.randint(0, 256, (1, 3, 32, 32), dtype=torch.uint8, generator=_gen())  # drone image as decoded
    F.unfold(frame, kernel_size=8, stride=8)


def _power_residual_normal_nan_scale() -> None:
    predicted = torch.tensor([1200.0, 1800.0])
    residuals = torch.tensor([[35.0], [-20.0]])  # only one valid 10-minute sample left per turbine after filtering
    scale = residuals.std(dim=1)  # the sample std of one value
    torch.distributions.Normal(predicted, scale)


CASES: dict[str, LiveCase] = {
    # a bf16 power-curve MLP fed the SCADA DataFrame's float64 columns straight from pandas
    "power-curve-mlp-bf16-pandas-f64": case(_power_curve_mlp_bf16_pandas_f64, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # raw int16 accelerometer counts from the drivetrain logger go straight into a Conv1d encoder
    "vibration-int16-counts-into-conv1d": case(_vibration_int16_into_conv1d, "integer_operand", "int16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SCADA fault codes made float32 for the class targets of a fault classifier
    "fault-code-float-targets-cross-entropy": case(_fault_classes_float_targets, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # turbine ids read from the layout csv as floats looked up in a turbine embedding
    "turbine-id-float-embedding": case(_turbine_id_embedding_float, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the whole normal-behaviour model cast to bf16, LayerNorm included, fed fp32 nacelle features
    "nacelle-bf16-layernorm-fp32-features": case(_bf16_layernorm_fp32_nacelle_features, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 LSTM power forecaster fed a float64 window straight from pandas
    "lstm-forecaster-f64-scada-window": case(_lstm_forecaster_f64_window, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 decoder queries attend over NWP encoder memory kept in fp32
    "sdpa-bf16-queries-fp32-nwp-memory": case(_sdpa_bf16_query_fp32_memory, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a causal mask built with numpy (float64) handed to an fp32 MultiheadAttention forecaster
    "mha-numpy-f64-causal-mask": case(_mha_float64_causal_mask, "attn_mask_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a blade-damage detector cast to bf16 fed fp32 drone frames
    "blade-detector-bf16-conv-fp32-frames": case(_blade_images_conv_bf16_weights, "conv_weight_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a hand-written cast loop converted a spectrogram Conv2d's weight to bf16 but left its bias fp32
    "spectrogram-conv-bias-left-fp32": case(_spectrogram_conv_bias_left_fp32, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a wind rose binned with histc of the int16 vane degrees
    "wind-rose-histc-int16-direction": case(_wind_direction_histc_int, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # the envelope spectrum of bearing vibration taken with rfft of an fp16 signal on the CPU
    "envelope-spectrum-rfft-fp16": case(_envelope_spectrum_fft_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # stochastic subspace identification of tower modes: SVD of a bf16 block Hankel matrix
    "oma-ssi-svd-bf16-hankel": case(_oma_ssi_svd_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the bearing-RMS alarm threshold taken as the fp16 99th percentile
    "bearing-rms-quantile-fp16-threshold": case(_bearing_kurtosis_quantile_fp16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # Miner's-rule damage added in place to the int64 rainflow cycle counter
    "rainflow-damage-into-int64-counter": case(_rainflow_damage_into_int_counter, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the available mask taken as minus the bool curtailment mask
    "available-as-minus-bool-curtailment": case(_curtailment_mask_minus_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # an icing flag read as float used as torch.where's condition
    "icing-flag-float-where-condition": case(_icing_mask_where_float, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a uint8 stopped-status column used as the mask to blank power
    "stopped-status-uint8-masked-fill": case(_status_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # fp16 forecaster attention scores masked with -1e9
    "fp16-scores-masked-minus-1e9": case(_fp16_attention_fill_minus_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a monthly energy buffer in fp16 filled with 850 MWh written in kWh
    "monthly-energy-fp16-kwh-fill": case(_fp16_annual_energy_buffer, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 normal-behaviour baseline updated by lerp toward bf16 residuals
    "nbm-baseline-lerp-bf16-residuals": case(_ema_baseline_lerp_bf16, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 power scatter-added into fp32 power-curve bins
    "power-curve-scatter-add-fp16-power": case(_scatter_add_fp16_power_into_bins, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int32 rotor azimuth bins one-hot encoded for a blade-load model
    "azimuth-bins-int32-one-hot": case(_one_hot_int32_azimuth_bins, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # downtime fractions from numpy (float64) written into an fp32 availability series by index
    "availability-index-put-numpy-f64": case(_index_put_float64_downtime, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 wake adjacency batch-multiplied with fp32 turbine node states
    "wake-graph-bmm-bf16-adjacency": case(_wake_features_bmm_bf16, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the one-hot of the SCADA status code (int64) multiplied by an fp32 projection
    "status-one-hot-int64-matmul": case(_status_one_hot_int_matmul, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the SCADA datetime64 timestamps handed to torch.tensor
    "scada-datetime64-stamps-to-tensor": case(_scada_timestamps_to_tensor, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # hub positions from numpy (float64) as grid_sample's grid over an fp32 lidar wind field
    "lidar-grid-sample-f64-hub-positions": case(_wind_field_grid_sample_f64_grid, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # uint8 drone frames cut into patches with F.unfold
    "blade-frames-unfold-uint8-patches": case(_blade_patches_unfold_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a power-residual Normal likelihood scaled by the std of a single filtered residual per turbine
    "power-residual-normal-nan-scale": case(_power_residual_normal_nan_scale, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
