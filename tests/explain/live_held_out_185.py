"""Held-out live set 185: urban mobility and bike-sharing demand by hand in low precision (float64 trip and weather
tables from pandas, int64 rental counts and station ids, numpy datetimes, bool dock-status masks, fp16/bf16 demand
forecasters over station graphs and city grids). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at d683ef61."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d683ef61"

bf16, f16 = torch.bfloat16, torch.float16


def _trips() -> pd.DataFrame:
    return pd.DataFrame({"start_station": [0, 3, 1, 2, 3, 0], "end_station": [1, 0, 2, 2, 1, 3],
                         "duration_s": [420, 1310, 95, 2400, 780, 610],
                         "temp_c": [12.5, 14.0, 9.5, 18.0, 16.5, 11.0], "wind_kmh": [8.0, 12.5, 20.0, 5.0, 7.5, 9.0],
                         "hour": [7, 8, 8, 17, 18, 22]})


def _hourly_rentals(stations: int = 4, hours: int = 24) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, 30, (stations, hours), generator=g)


def _weather_f64_into_linear() -> None:
    table = _trips()
    head = nn.Linear(2, 8)
    head(torch.tensor(table[["temp_c", "wind_kmh"]].values))


def _station_ids_by_true_division() -> None:
    docks = torch.tensor([12, 36, 18, 24])
    station = docks / 6
    nn.Embedding(8, 4)(station)


def _rentals_int64_conv1d() -> None:
    conv = nn.Conv1d(1, 4, 3, padding=1)
    conv(_hourly_rentals()[:1, None])


def _bf16_gru_fp32_trips() -> None:
    gru = nn.GRU(2, 8, batch_first=True).to(bf16)
    gru(torch.randn(1, 6, 2))


def _bf16_layernorm_fp32_features() -> None:
    norm = nn.LayerNorm(8).to(bf16)
    norm(torch.randn(4, 8))


def _demand_bucket_int32_target() -> None:
    buckets = torch.from_numpy(np.digitize(np.array([3, 17, 25, 8]), [5, 15, 25]).astype(np.int32))
    F.cross_entropy(torch.randn(4, 4), buckets)


def _empty_dock_from_bool() -> None:
    has_bike = torch.tensor([True, False, True, True])
    empty = -has_bike  # noqa: F841


def _float_open_flag_invert() -> None:
    open_flag = torch.tensor([1.0, 0.0, 1.0, 1.0])
    closed = ~open_flag  # noqa: F841


def _trips_scatter_add_int64_into_fp32() -> None:
    per_station = torch.zeros(4)
    per_station.scatter_add_(0, torch.tensor(_trips()["end_station"].values), torch.ones(6, dtype=torch.long))


def _returns_index_add_half() -> None:
    returns = torch.zeros(4)
    returns.index_add_(0, torch.tensor([1, 0, 2, 2]), torch.ones(4, dtype=f16))


def _uint8_maintenance_mask_fill() -> None:
    demand = torch.rand(4)
    in_repair = torch.from_numpy(np.array([0, 1, 0, 0], dtype=np.uint8))
    demand.masked_fill(in_repair, 0.0)


def _bf16_forecast_to_numpy() -> None:
    forecast = torch.rand(4, 24).to(bf16)
    np.percentile(forecast.numpy(), 90)


def _trip_start_times_from_numpy() -> None:
    starts = np.array(["2024-05-01T07:42", "2024-05-01T08:05"], dtype="datetime64[m]")
    torch.from_numpy(starts)


def _rebalancing_solve_half() -> None:
    flows = (torch.eye(3) * 4 - torch.ones(3, 3)).half()
    torch.linalg.solve(flows, torch.tensor([2.0, -1.0, -1.0]).half())


def _duration_histc_int64() -> None:
    durations = torch.tensor(_trips()["duration_s"].values)
    torch.histc(durations, bins=5, min=0, max=3000)


def _mean_hourly_rentals_int64() -> None:
    _hourly_rentals().mean(dim=1)


def _bikes_available_minus_float_rebalance() -> None:
    available = torch.tensor([5, 12, 0, 7])
    available -= torch.tensor([1.5, 3.0, 0.0, 2.5])


def _running_demand_lerp_f64() -> None:
    running = torch.zeros(4)
    observed = torch.tensor(_trips()["temp_c"].values[:4])
    running.lerp_(observed, 0.1)


def _lost_bike_sentinel_half() -> None:
    durations = torch.tensor([420.0, 1310.0, 95.0, 2400.0], dtype=f16)
    lost = torch.tensor([False, True, False, False])
    durations.masked_fill(lost, 86400)


def _zero_hours_open_poisson_rate() -> None:
    trips = torch.tensor([12.0, 0.0, 7.0])
    hours_open = torch.tensor([6.0, 0.0, 4.0])
    torch.distributions.Poisson(rate=trips / hours_open)


def _occupancy_grid_uint8_conv() -> None:
    grid = torch.randint(0, 255, (1, 1, 8, 8), dtype=torch.uint8)
    nn.Conv2d(1, 4, 3, padding=1)(grid)


def _bf16_grid_conv_fp32_bias() -> None:
    weight = torch.randn(4, 2, 3, 3).to(bf16)
    bias = torch.zeros(4)
    F.conv2d(torch.randn(1, 2, 8, 8).to(bf16), weight, bias, padding=1)


def _st_resnet_bf16_fp32_grid() -> None:
    net = nn.Conv2d(2, 8, 3, padding=1, bias=False).to(bf16)
    net(torch.randn(1, 2, 8, 8))


def _station_sdpa_bf16_query_fp32_keys() -> None:
    q = torch.randn(1, 2, 4, 8).to(bf16)
    k = torch.randn(1, 2, 4, 8)
    v = torch.randn(1, 2, 4, 8)
    F.scaled_dot_product_attention(q, k, v)


def _distance_bias_f64_attn_mask() -> None:
    coords = np.array([[0.0, 0.0], [1.2, 0.4], [0.3, 2.1], [2.2, 1.8]])
    km = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
    q = k = v = torch.randn(1, 1, 4, 8)
    F.scaled_dot_product_attention(q, k, v, attn_mask=torch.from_numpy(-km))


def _od_bmm_f64_f32() -> None:
    od = torch.from_numpy(np.full((7, 4, 4), 0.25))
    flows = torch.rand(7, 4, 1)
    torch.bmm(od, flows)


def _station_coords_cdist_f64() -> None:
    stations = torch.tensor(np.array([[52.52, 13.40], [52.50, 13.42], [52.53, 13.37]]))
    riders = torch.tensor([[52.51, 13.41]])
    torch.cdist(riders, stations)


def _empty_station_bce_f64_target() -> None:
    probability = torch.sigmoid(torch.randn(4))
    was_empty = torch.tensor(np.array([0.0, 1.0, 0.0, 1.0]))
    F.binary_cross_entropy(probability, was_empty)


def _hour_one_hot_float() -> None:
    hours = torch.tensor(_trips()["hour"].values, dtype=torch.float32)
    F.one_hot(hours, 24)


def _half_forecaster_grad_scaler() -> None:
    model = nn.Linear(4, 1).half()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    loss = model(torch.randn(2, 4).half()).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


CASES: dict[str, LiveCase] = {
    # pandas temperature and wind columns (float64) straight into the fp32 demand head
    "weather-f64-demand-linear": case(_weather_f64_into_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # station index derived as docks / 6 (true division makes float) looked up in the station Embedding
    "station-index-true-division-embedding": case(_station_ids_by_true_division, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # int64 hourly rental counts fed straight into a Conv1d demand smoother
    "hourly-rentals-int64-conv1d": case(_rentals_int64_conv1d, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # trip-sequence GRU cast to bf16, fed the fp32 trip features
    "trip-gru-bf16-fp32-input": case(_bf16_gru_fp32_trips, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the station encoder's LayerNorm cast to bf16 alone, given fp32 features
    "station-layernorm-bf16-fp32": case(_bf16_layernorm_fp32_features, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # demand buckets from np.digitize stored as int32, used as cross_entropy's target
    "demand-bucket-int32-target": case(_demand_bucket_int32_target, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # an "empty dock" mask made by negating the bool has-bike mask with unary minus
    "empty-dock-negate-bool": case(_empty_dock_from_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a float 0/1 station-open flag inverted with ~ to get closed stations
    "open-flag-float-invert": case(_float_open_flag_invert, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int64 trip ones scatter_add_'ed into an fp32 per-station arrivals buffer
    "arrivals-scatter-add-int64-into-fp32": case(_trips_scatter_add_int64_into_fp32, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # fp16 returns index_add_'ed into an fp32 per-station buffer
    "returns-index-add-half": case(_returns_index_add_half, "indexed_write_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a numpy uint8 in-repair flag used as masked_fill's mask on station demand
    "in-repair-uint8-masked-fill": case(_uint8_maintenance_mask_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # bf16 forecast handed to numpy for the 90th-percentile capacity plan
    "bf16-forecast-numpy-percentile": case(_bf16_forecast_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # trip start times as numpy datetime64 passed to torch.from_numpy
    "trip-start-datetime64-from-numpy": case(_trip_start_times_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # rebalancing flow system solved with linalg.solve in the model's fp16
    "rebalancing-solve-half": case(_rebalancing_solve_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # int64 trip durations histogrammed with torch.histc
    "duration-histc-int64": case(_duration_histc_int64, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # mean hourly rentals per station taken on the int64 counts
    "mean-rentals-int64": case(_mean_hourly_rentals_int64, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 bikes-available decremented in place by fractional rebalancing moves
    "bikes-available-int64-minus-float": case(_bikes_available_minus_float_rebalance, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # fp32 running demand lerp_'d toward a float64 pandas observation
    "running-demand-lerp-f64": case(_running_demand_lerp_f64, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # lost bikes' durations set to a one-day sentinel (86400 s) in an fp16 tensor
    "lost-bike-86400-sentinel-half": case(_lost_bike_sentinel_half, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # trips per open hour with a station open zero hours: 0/0 NaN Poisson rate
    "zero-hours-open-poisson-nan-rate": case(_zero_hours_open_poisson_rate, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # uint8 city occupancy grid fed to a float Conv2d
    "occupancy-grid-uint8-conv": case(_occupancy_grid_uint8_conv, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 grid convolution given a bias left in fp32
    "grid-conv-bf16-fp32-bias": case(_bf16_grid_conv_fp32_bias, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ST-ResNet closeness branch cast to bf16, fed the fp32 inflow/outflow grid
    "st-resnet-bf16-fp32-grid": case(_st_resnet_bf16_fp32_grid, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 station queries attending over fp32 keys/values with SDPA
    "station-sdpa-bf16-fp32-keys": case(_station_sdpa_bf16_query_fp32_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # numpy station distance (float64) negated as SDPA's attn_mask for fp32 attention
    "station-distance-f64-attn-mask": case(_distance_bias_f64_attn_mask, "attn_mask_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # daily origin-destination shares from numpy (float64) torch.bmm'd with fp32 flows
    "od-shares-f64-bmm": case(_od_bmm_f64_f32, "batched_matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # float64 station coordinates cdist'ed against fp32 rider locations
    "station-coords-f64-cdist": case(_station_coords_cdist_f64, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # station-empty probability trained with BCE against a float64 numpy target
    "empty-station-bce-f64-target": case(_empty_station_bce_f64_target, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # hour of day as float32 one-hot encoded
    "hour-float-one-hot": case(_hour_one_hot_float, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # demand forecaster .half()'d entirely and trained with GradScaler
    "half-forecaster-grad-scaler": case(_half_forecaster_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
