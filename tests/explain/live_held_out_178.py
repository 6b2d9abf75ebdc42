"""Held-out live set 178: logistics, delivery and route optimisation by hand in low precision (int64 depot and parcel
ids, float64 coordinates and distances from pandas, bool time-window masks, uint8 vehicle types, fp16 pointer
networks, bf16 attention over stops). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at 935ffc17."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "935ffc17"

bf16, f16 = torch.bfloat16, torch.float16
_STOPS = 12
_VEHICLE_TYPES = 4  # bike, van, truck, refrigerated truck


def _seeded() -> None:
    torch.manual_seed(0)


def _stops_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "parcel_id": np.arange(1000, 1000 + _STOPS, dtype=np.int64),
        "lat": 52.3 + rng.random(_STOPS) * 0.1,
        "lon": 4.8 + rng.random(_STOPS) * 0.1,
        "demand_kg": rng.integers(1, 30, _STOPS).astype(np.float64),
        "tw_open_min": rng.integers(0, 300, _STOPS),
        "vehicle_type": rng.integers(0, _VEHICLE_TYPES, _STOPS).astype(np.uint8),
    })


def _haversine_km(lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
    lat, lon = np.radians(lat), np.radians(lon)
    dlat = lat[:, None] - lat[None, :]
    dlon = lon[:, None] - lon[None, :]
    a = np.sin(dlat / 2) ** 2 + np.cos(lat[:, None]) * np.cos(lat[None, :]) * np.sin(dlon / 2) ** 2
    return 2 * 6371.0 * np.arcsin(np.sqrt(a))


def _depot_ids_into_linear() -> None:
    _seeded()
    depot_ids = torch.tensor([[3, 17], [3, 42], [5, 8]])  # (depot id, zone id) per route
    nn.Linear(2, 16)(depot_ids)


def _pandas_coords_into_stop_encoder() -> None:
    _seeded()
    stops = _stops_frame()
    coords = torch.tensor(stops[["lat", "lon", "demand_kg"]].values)
    nn.Linear(3, 32)(coords)


def _haversine_f64_sdpa_bias_bf16() -> None:
    _seeded()
    stops = _stops_frame()
    dist = torch.from_numpy(_haversine_km(stops["lat"].values, stops["lon"].values))
    q = torch.randn(1, 4, _STOPS, 16, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=-dist[None, None])


def _time_window_bool_subtract() -> None:
    minute = torch.arange(0, 600, 30)
    opened = minute[None, :] >= torch.tensor([[60], [120]])
    closed = minute[None, :] >= torch.tensor([[240], [360]])
    in_window = opened - closed
    in_window.sum()


def _uint8_vehicle_type_embedding() -> None:
    _seeded()
    stops = _stops_frame()
    vehicle = torch.from_numpy(stops["vehicle_type"].values)
    nn.Embedding(_VEHICLE_TYPES, 8)(vehicle)


def _pointer_logits_fp16_mask_minus_1e9() -> None:
    _seeded()
    logits = torch.randn(2, _STOPS, dtype=f16)
    visited = torch.zeros(2, _STOPS, dtype=torch.bool)
    visited[:, 0] = True
    logits.masked_fill(visited, -1e9)


def _stop_attention_bf16_query_fp32_keys() -> None:
    _seeded()
    stops = torch.randn(2, _STOPS, 32, dtype=bf16)
    key_proj = nn.Linear(32, 32).to(bf16)
    keys = key_proj(stops).float()  # "keep keys in fp32 for a stable softmax"
    scores = stops @ keys.transpose(1, 2)
    scores.softmax(-1)


def _pointer_glimpse_bmm_fp16_fp32_encoder() -> None:
    _seeded()
    query = torch.randn(2, 1, 32, dtype=f16)
    encoded = torch.randn(2, _STOPS, 32)  # encoder left in fp32
    torch.bmm(query, encoded.transpose(1, 2))


def _visited_float_mask_inverted() -> None:
    visited = torch.zeros(2, _STOPS)
    visited[:, 0] = 1.0
    feasible = ~visited
    feasible.sum()


def _int16_tour_index_select_coords() -> None:
    _seeded()
    coords = torch.rand(_STOPS, 2)
    tour = torch.from_numpy(np.random.default_rng(0).permutation(_STOPS).astype(np.int16))  # solver's compact tour
    coords.index_select(0, tour)


def _vehicle_capacity_int64_minus_float_demand() -> None:
    stops = _stops_frame()
    remaining = torch.full((3,), 1000)  # kg per vehicle
    demand = torch.tensor(stops["demand_kg"].values[:3], dtype=torch.float32)
    remaining.sub_(demand)


def _stop_layernorm_bf16_params_fp32_input() -> None:
    _seeded()
    norm = nn.LayerNorm(32).to(bf16)
    norm(torch.randn(2, _STOPS, 32))


def _pointer_lstm_decoder_fp16() -> None:
    _seeded()
    decoder = nn.LSTM(32, 32, batch_first=True).half()
    decoder(torch.randn(2, 1, 32))


def _gru_route_encoder_pandas_f64() -> None:
    _seeded()
    stops = _stops_frame()
    seq = torch.from_numpy(stops[["lat", "lon"]].values)[None]
    nn.GRU(2, 16, batch_first=True)(seq)


def _next_stop_ce_int32_targets() -> None:
    _seeded()
    logits = torch.randn(4, _STOPS)
    next_stop = torch.from_numpy(np.array([3, 7, 1, 0], dtype=np.int32))
    F.cross_entropy(logits, next_stop)


def _late_delivery_bce_bool_target() -> None:
    _seeded()
    pred = torch.rand(6)
    late = torch.tensor([True, False, False, True, False, False])
    F.binary_cross_entropy(pred, late)


def _mha_bf16_fp16_distance_mask() -> None:
    _seeded()
    mha = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    x = torch.randn(1, _STOPS, 32, dtype=bf16)
    dist_bias = -(torch.rand(_STOPS, _STOPS) * 10.0).half()  # distance bias cached in fp16 by the preprocessing
    mha(x, x, x, attn_mask=dist_bias, need_weights=False)


def _bf16_route_length_to_numpy() -> None:
    _seeded()
    lengths = torch.rand(8, dtype=bf16) * 40.0
    np.percentile(lengths.numpy(), 95)


def _distance_matrix_float_stop_index() -> None:
    dist = torch.rand(_STOPS, _STOPS)
    tour = torch.tensor([0.0, 4.0, 2.0, 7.0, 0.0])  # tour decoded as float by argmax(...).float() upstream
    dist[tour[:-1], tour[1:]].sum()


def _load_per_vehicle_index_add_f16() -> None:
    load = torch.zeros(3)
    assigned = torch.tensor([0, 1, 0, 2, 1])
    demand = torch.rand(5, dtype=f16) * 20
    load.index_add_(0, assigned, demand)


def _route_conv1d_pandas_f64() -> None:
    _seeded()
    stops = _stops_frame()
    feats = torch.from_numpy(stops[["lat", "lon", "demand_kg"]].values.T.copy())[None]
    nn.Conv1d(3, 8, 3, padding=1)(feats)


def _big_m_distance_fp16_full() -> None:
    torch.full((_STOPS, _STOPS), 99999.0, dtype=f16)


def _time_windows_fp16_bitwise_and() -> None:
    _seeded()
    open_mask = (torch.rand(2, _STOPS) > 0.3).half()
    capacity_ok = (torch.rand(2, _STOPS) > 0.2).half()
    open_mask & capacity_ok


def _first_feasible_stop_argmax_bool() -> None:
    feasible = torch.tensor([[False, False, True, True], [True, False, False, False]])
    feasible.argmax(dim=1)


def _depot_coords_jitter_randn_like_int64() -> None:
    _seeded()
    depot_xy = torch.tensor([[120, 45], [300, 210]])  # grid cells
    depot_xy + torch.randn_like(depot_xy)


def _travel_time_ema_lerp_bf16() -> None:
    estimate = torch.full((_STOPS,), 12.0)
    observed = torch.rand(_STOPS, dtype=bf16) * 30
    estimate.lerp_(observed, 0.1)


def _vehicle_parcel_bilinear_bf16() -> None:
    _seeded()
    score = nn.Bilinear(8, 16, 1)
    score(torch.randn(5, 8, dtype=bf16), torch.randn(5, 16, dtype=bf16))


def _k_nearest_feasible_topk_bool() -> None:
    _seeded()
    feasible = torch.rand(2, _STOPS) > 0.5
    feasible.topk(3, dim=1)


def _depot_sdpa_bf16_query_fp32_keys() -> None:
    _seeded()
    q = torch.randn(1, 4, 3, 16, dtype=bf16)  # one query per depot
    kv = torch.randn(1, 4, _STOPS, 16)
    F.scaled_dot_product_attention(q, kv, kv)


def _pointer_net_unscale_fp16_params() -> None:
    _seeded()
    pointer = nn.Linear(16, 1).half()
    opt = torch.optim.Adam(pointer.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    loss = pointer(torch.randn(4, 16, dtype=f16)).float().mean()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)


CASES: dict[str, LiveCase] = {
    # (depot id, zone id) pairs as int64 fed straight into an fp32 nn.Linear route embedding
    "depot-zone-ids-int64-linear": case(_depot_ids_into_linear, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pandas lat/lon/demand columns (float64) through torch.tensor into an fp32 stop encoder
    "stop-frame-f64-columns-linear-encoder": case(_pandas_coords_into_stop_encoder, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # numpy haversine km matrix (float64) negated as the SDPA attn_mask of bf16 stop queries
    "haversine-km-f64-sdpa-mask-bf16-stops": case(_haversine_f64_sdpa_bias_bf16, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # in-window mask built as opened minus closed on two bool time-window masks
    "time-window-opened-minus-closed-bool": case(_time_window_bool_subtract, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # uint8 vehicle type codes from the fleet table looked up in nn.Embedding
    "fleet-vehicle-type-uint8-embedding": case(_uint8_vehicle_type_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # fp16 pointer-network logits: visited stops masked with -1e9
    "pointer-fp16-visited-stops-minus-1e9": case(_pointer_logits_fp16_mask_minus_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 stop embeddings @ keys cast back to fp32 "for a stable softmax"
    "stop-scores-bf16-at-fp32-keys": case(_stop_attention_bf16_query_fp32_keys, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 pointer glimpse query bmm'd with an encoder left in fp32
    "pointer-glimpse-bmm-f16-fp32-encoder": case(_pointer_glimpse_bmm_fp16_fp32_encoder, "batched_matmul_dtype",
                                                 "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # visited flags kept as a float 0/1 tensor, inverted with ~ to get feasible stops
    "visited-float-flags-inverted": case(_visited_float_mask_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # solver tour stored as int16, used with index_select on the stop coordinates
    "solver-tour-int16-index-select": case(_int16_tour_index_select_coords, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int64 remaining vehicle capacity (kg) decremented in place by float parcel demand
    "vehicle-capacity-int64-sub-float-demand": case(_vehicle_capacity_int64_minus_float_demand, "result_cast",
                                                    "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # stop encoder's LayerNorm cast to bf16, fed fp32 stop features
    "stop-encoder-layernorm-bf16-fp32-input": case(_stop_layernorm_bf16_params_fp32_input, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pointer-network LSTM decoder .half()'d, fed an fp32 decoder input
    "pointer-lstm-decoder-half-fp32-step": case(_pointer_lstm_decoder_fp16, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # GRU route encoder fed the pandas lat/lon sequence as float64
    "route-gru-pandas-f64-latlon": case(_gru_route_encoder_pandas_f64, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # next-stop cross entropy with int32 targets from a numpy solver output
    "next-stop-ce-int32-solver-targets": case(_next_stop_ce_int32_targets, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # late-delivery probability trained with BCE against bool late flags
    "late-delivery-bce-bool-flags": case(_late_delivery_bce_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # bf16 MultiheadAttention over stops with a distance bias cached in fp16
    "stop-mha-bf16-fp16-distance-bias": case(_mha_bf16_fp16_distance_mask, "attn_mask_dtype", "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 route lengths handed to numpy for the 95th percentile
    "route-lengths-bf16-numpy-percentile": case(_bf16_route_length_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # distance matrix indexed with a float tour to sum the route length
    "distance-matrix-float-tour-legs": case(_distance_matrix_float_stop_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-vehicle load accumulated with index_add_ of fp16 parcel demand into fp32
    "vehicle-load-index-add-f16-demand": case(_load_per_vehicle_index_add_f16, "indexed_write_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Conv1d over the route's pandas stop features (float64) with fp32 weight and bias
    "route-conv1d-pandas-f64-features": case(_route_conv1d_pandas_f64, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # big-M 99999 "unreachable" distance matrix filled directly in fp16
    "big-m-unreachable-99999-fp16": case(_big_m_distance_fp16_full, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # time-window and capacity masks stored as fp16 0/1, combined with &
    "time-window-capacity-fp16-and": case(_time_windows_fp16_bitwise_and, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # first feasible stop found with argmax over a bool feasibility mask
    "first-feasible-stop-argmax-bool": case(_first_feasible_stop_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # integer grid-cell depot coordinates jittered with randn_like
    "depot-grid-cells-int64-randn-like": case(_depot_coords_jitter_randn_like_int64, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # fp32 travel-time estimate smoothed in place toward bf16 observations with lerp_
    "travel-time-ema-lerp-bf16-observed": case(_travel_time_ema_lerp_bf16, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # vehicle/parcel compatibility nn.Bilinear (fp32) fed bf16 embeddings
    "vehicle-parcel-bilinear-bf16-embeddings": case(_vehicle_parcel_bilinear_bf16, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # k nearest feasible stops taken with topk of the bool feasibility mask
    "k-feasible-stops-topk-bool": case(_k_nearest_feasible_topk_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # bf16 depot queries attending over fp32 stop keys/values with SDPA
    "depot-sdpa-bf16-query-fp32-stops": case(_depot_sdpa_bf16_query_fp32_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 pointer head trained with GradScaler: unscale_ of its fp16 gradients
    "pointer-head-fp16-gradscaler-unscale": case(_pointer_net_unscale_fp16_params, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
