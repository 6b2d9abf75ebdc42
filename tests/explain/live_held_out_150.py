"""Held-out live set 150: maritime vessel tracking and AIS trajectory modelling written by hand in low precision
(float64 latitude/longitude from pandas, int64 MMSI ids and unix timestamps, uint8 navigation status, irregular
reporting intervals, fp16 GRU encoders, bf16 attention over tracks, haversine losses, Kalman smoothing, traffic density
grids). Defects planted by a helper who never read the rules, written before castwise ran and graded once with the
rules frozen at af2f111c."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "af2f111c"

bf16, f16 = torch.bfloat16, torch.float16
_EARTH_RADIUS_KM = 6371.0
_FEATURES = 4  # lat, lon, sog, cog
_HIDDEN = 16
_NAV_STATUSES = 16  # AIS navigational status 0..15 (0 under way using engine, 1 at anchor, 5 moored, 15 undefined)
_SHIP_TYPES = 100  # AIS ship and cargo type 0..99


def _seeded() -> None:
    torch.manual_seed(0)


def _ais_frame(pings: int = 12) -> pd.DataFrame:
    """Decoded AIS position reports for one vessel as a pandas loader gives them: float64 positions and kinematics,
    int64 MMSI and unix seconds at irregular intervals, uint8 navigational status."""
    rng = np.random.default_rng(0)
    gaps = rng.choice([2, 10, 10, 30, 180, 360], size=pings)  # class A reports every 2-10 s, gaps in coverage
    return pd.DataFrame({
        "mmsi": np.full(pings, 257123450, dtype=np.int64),
        "timestamp": 1_700_000_000 + np.cumsum(gaps).astype(np.int64),
        "lat": 59.90 + np.cumsum(rng.normal(0.001, 0.0005, pings)),
        "lon": 10.70 + np.cumsum(rng.normal(0.002, 0.0005, pings)),
        "sog": rng.uniform(0.0, 14.0, pings),
        "cog": rng.uniform(0.0, 360.0, pings),
        "nav_status": rng.choice([0, 0, 0, 1, 5], size=pings).astype(np.uint8),
    })


def _track_batch(batch: int = 2, steps: int = 12) -> torch.Tensor:
    """Normalised fp32 track features (batch, steps, lat/lon/sog/cog)."""
    _seeded()
    return torch.randn(batch, steps, _FEATURES)


# --- floating dtypes meeting


def _pandas_f64_kinematics_into_linear() -> None:
    _seeded()
    frame = _ais_frame()
    features = torch.from_numpy(frame[["lat", "lon", "sog", "cog"]].to_numpy())  # float64 straight from pandas
    input_proj = nn.Linear(_FEATURES, _HIDDEN)
    input_proj(features)


def _half_gru_encoder_fp32_tracks() -> None:
    encoder = nn.GRU(_FEATURES, _HIDDEN, batch_first=True).half()  # "fp16 to fit a week of pings per vessel"
    tracks = _track_batch()  # the collate function standardises in fp32
    encoder(tracks)


def _track_sdpa_bf16_queries_fp32_time_keys() -> None:
    _seeded()
    heads, steps, dim = 2, 12, 8
    q = torch.randn(2, heads, steps, dim, dtype=bf16)
    v = torch.randn(2, heads, steps, dim, dtype=bf16)
    hours = torch.rand(2, heads, steps, 1) * 24.0  # irregular report times, fp32
    time_keys = torch.sin(hours * torch.linspace(0.1, 1.0, dim))  # continuous-time encoding used as keys
    F.scaled_dot_product_attention(q, time_keys, v)


def _mha_bf16_fp32_time_decay_mask() -> None:
    _seeded()
    steps = 12
    attention = nn.MultiheadAttention(_HIDDEN, 2, batch_first=True).to(bf16)
    tokens = torch.randn(1, steps, _HIDDEN, dtype=bf16)
    seconds = torch.from_numpy(_ais_frame(steps)["timestamp"].to_numpy()).float()
    decay = -(seconds[:, None] - seconds[None, :]).abs() / 3600.0  # closer pings attend more
    attention(tokens, tokens, tokens, attn_mask=decay)


def _kinematic_batchnorm_half_fp32_input() -> None:
    _seeded()
    stem = nn.Sequential(nn.BatchNorm1d(_FEATURES), nn.Conv1d(_FEATURES, _HIDDEN, 3, padding=1)).half()
    tracks = _track_batch().transpose(1, 2)  # (batch, features, steps), fp32
    stem(tracks)


def _manoeuvre_conv1d_half_fp32_turn_rate() -> None:
    _seeded()
    detector = nn.Conv1d(2, 8, kernel_size=5, padding=2).half()  # turn / speed-change detector
    cog = torch.rand(1, 12) * 360.0
    sog = torch.rand(1, 12) * 14.0
    turn_rate = torch.diff(cog, dim=1, prepend=cog[:, :1])
    accel = torch.diff(sog, dim=1, prepend=sog[:, :1])
    detector(torch.stack([turn_rate, accel], dim=1))


def _vessel_interaction_bmm_bf16_fp32_relpos() -> None:
    _seeded()
    vessels = 5
    embeddings = torch.randn(1, vessels, _HIDDEN, dtype=bf16)  # bf16 encoder output per vessel in the scene
    positions = torch.randn(1, vessels, 2)  # fp32 local east/north km
    rel = positions[:, :, None, :] - positions[:, None, :, :]
    rel_proj = torch.randn(2, _HIDDEN)  # fp32 projection of relative displacement
    keys = (rel @ rel_proj).mean(dim=2)
    torch.bmm(embeddings, keys.transpose(1, 2))


def _great_circle_vecdot_bf16_fp32_unit_vectors() -> None:
    _seeded()

    def unit(lat: torch.Tensor, lon: torch.Tensor) -> torch.Tensor:
        lat, lon = torch.deg2rad(lat), torch.deg2rad(lon)
        return torch.stack([lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()], dim=-1)

    predicted = unit(torch.full((4,), 59.9, dtype=bf16), torch.full((4,), 10.7, dtype=bf16))  # bf16 model output
    target = unit(torch.full((4,), 59.91), torch.full((4,), 10.72))  # fp32 next reported position
    cosine = torch.linalg.vecdot(predicted, target)
    (_EARTH_RADIUS_KM * torch.acos(cosine.clamp(-1.0, 1.0))).mean()


def _coast_distance_raster_grid_sample_f64() -> None:
    _seeded()
    distance_to_coast = torch.rand(1, 1, 32, 32)  # fp32 raster over the bounding box, km
    frame = _ais_frame()
    lat_min, lat_max, lon_min, lon_max = 59.8, 60.1, 10.5, 11.0
    x = 2.0 * (frame["lon"].to_numpy() - lon_min) / (lon_max - lon_min) - 1.0
    y = 2.0 * (frame["lat"].to_numpy() - lat_min) / (lat_max - lat_min) - 1.0
    grid = torch.from_numpy(np.stack([x, y], axis=-1))[None, None]  # float64 normalised positions
    F.grid_sample(distance_to_coast, grid, align_corners=True)


def _position_head_mvn_bf16_covariance() -> None:
    _seeded()
    head = nn.Linear(_HIDDEN, 5).to(bf16)  # mean east/north, log sigma x2, correlation
    out = head(torch.randn(3, _HIDDEN, dtype=bf16))
    mean, log_sigma, rho = out[:, :2], out[:, 2:4], torch.tanh(out[:, 4])
    sigma = log_sigma.exp()
    cov = torch.stack([
        torch.stack([sigma[:, 0] ** 2, rho * sigma[:, 0] * sigma[:, 1]], dim=-1),
        torch.stack([rho * sigma[:, 0] * sigma[:, 1], sigma[:, 1] ** 2], dim=-1),
    ], dim=-2)
    torch.distributions.MultivariateNormal(mean, covariance_matrix=cov)


def _cpa_cdist_half_positions() -> None:
    _seeded()
    own = torch.randn(1, 2, dtype=f16)  # fp16 predicted positions of the own ship, km east/north
    traffic = torch.randn(6, 2, dtype=f16)  # fp16 predicted positions of surrounding traffic
    torch.cdist(own, traffic).min()


def _bf16_predictions_numpy_haversine_metric() -> None:
    _seeded()
    predicted = torch.tensor([[59.91, 10.72], [59.92, 10.74]], dtype=bf16)  # bf16 decoder output, degrees
    target = np.array([[59.912, 10.721], [59.921, 10.738]])
    lat1, lon1 = np.radians(predicted[:, 0]), np.radians(predicted[:, 1])
    lat2, lon2 = np.radians(target[:, 0]), np.radians(target[:, 1])
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    2 * _EARTH_RADIUS_KM * np.arcsin(np.sqrt(a))


def _eta_fp16_padding_sentinel() -> None:
    _seeded()
    eta_seconds = torch.rand(2, 12, dtype=f16) * 3000.0  # fp16 time-to-arrival targets per ping
    padded = torch.zeros(2, 12, dtype=torch.bool)
    padded[1, 8:] = True
    eta_seconds.masked_fill(padded, 1e6)  # "far future" sentinel for padded pings


def _epoch_milliseconds_int32_reference() -> None:
    frame = _ais_frame()
    reference = torch.full((len(frame),), 1_700_000_000_000, dtype=torch.int32)  # voyage start in epoch ms
    torch.from_numpy(frame["timestamp"].to_numpy()).int() * 1000 - reference


def _resample_lerp_f64_time_weights() -> None:
    frame = _ais_frame()
    seconds = frame["timestamp"].to_numpy()
    positions = torch.from_numpy(frame[["lat", "lon"]].to_numpy()).float()
    grid = np.arange(seconds[0], seconds[-1], 60)  # one-minute grid
    right = np.clip(np.searchsorted(seconds, grid, side="right"), 1, len(seconds) - 1)
    left = right - 1
    weight = (grid - seconds[left]) / (seconds[right] - seconds[left])  # float64
    torch.lerp(positions[left], positions[right], torch.from_numpy(weight)[:, None])


def _half_gru_grad_scaler_unscale() -> None:
    _seeded()
    model = nn.Sequential()
    model.add_module("encoder", nn.GRU(_FEATURES, _HIDDEN, batch_first=True))
    model.add_module("head", nn.Linear(_HIDDEN, 2))
    model.half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    hidden, _ = model.encoder(_track_batch().half())
    loss = model.head(hidden[:, -1]).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _haversine_moored_vessel_nan_anomaly() -> None:
    frame = _ais_frame()
    frame.loc[3:6, ["lat", "lon"]] = frame.loc[3, ["lat", "lon"]].to_numpy()  # moored: identical positions
    with torch.autograd.detect_anomaly():
        lat = torch.tensor(frame["lat"].to_numpy(), dtype=torch.float32, requires_grad=True)
        lon = torch.tensor(frame["lon"].to_numpy(), dtype=torch.float32, requires_grad=True)
        phi, lam = torch.deg2rad(lat), torch.deg2rad(lon)
        dphi, dlam = phi[1:] - phi[:-1], lam[1:] - lam[:-1]
        a = torch.sin(dphi / 2) ** 2 + torch.cos(phi[1:]) * torch.cos(phi[:-1]) * torch.sin(dlam / 2) ** 2
        step_km = 2 * _EARTH_RADIUS_KM * torch.asin(torch.sqrt(a))
        step_km.sum().backward()  # track-length regulariser


def _gap_imputation_index_put_bf16() -> None:
    _seeded()
    track = torch.randn(12, 2)  # fp32 east/north positions with a coverage gap
    gap = torch.tensor([5, 6, 7])
    imputer = nn.Linear(4, 2).to(bf16)
    context = torch.cat([track[4], track[8]]).to(bf16).expand(3, 4)
    track[gap] = imputer(context)


def _status_flags_buffer_half_bitwise_and() -> None:
    class StationaryFilter(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            stationary = torch.zeros(_NAV_STATUSES)  # 0/1 per navigational status
            stationary[[1, 5, 6]] = 1  # at anchor, moored, aground
            self.register_buffer("stationary", stationary)
            self.speed_proj = nn.Linear(1, _HIDDEN)

        def forward(self, status: torch.Tensor, sog: torch.Tensor) -> torch.Tensor:
            slow = sog < 0.5  # knots
            return slow & self.stationary[status.long()]  # pings that are really stationary

    frame = _ais_frame()
    status = torch.from_numpy(frame["nav_status"].to_numpy())
    sog = torch.from_numpy(frame["sog"].to_numpy()).half()
    StationaryFilter().half()(status, sog)


# --- integer, bool and index dtypes


def _ship_type_nan_column_embedding() -> None:
    _seeded()
    static = pd.DataFrame({"mmsi": [257123450, 257000111, 311000222], "ship_type": [70, np.nan, 30]})
    static["ship_type"] = static["ship_type"].fillna(0)  # NaN made the column float64
    nn.Embedding(_SHIP_TYPES, 8)(torch.from_numpy(static["ship_type"].to_numpy()))


def _nav_status_uint8_one_hot() -> None:
    status = torch.from_numpy(_ais_frame()["nav_status"].to_numpy())  # uint8
    F.one_hot(status, num_classes=_NAV_STATUSES).float()


def _valid_ping_bool_one_minus() -> None:
    lengths = torch.tensor([12, 7])
    valid = torch.arange(12)[None, :] < lengths[:, None]  # bool
    padding = 1 - valid
    padding.sum()


def _in_port_uint8_masked_fill() -> None:
    _seeded()
    speeds = torch.rand(12) * 14.0
    in_port = torch.from_numpy((_ais_frame()["nav_status"].to_numpy() == 5).astype(np.uint8))  # moored flag
    speeds.masked_fill(in_port, 0.0)


def _traffic_density_scatter_add_float_cells() -> None:
    frame = _ais_frame()
    lat = torch.from_numpy(frame["lat"].to_numpy())
    lon = torch.from_numpy(frame["lon"].to_numpy())
    rows = ((lat - 59.8) / 0.01).floor()
    cols = ((lon - 10.5) / 0.01).floor()
    cell = rows * 50 + cols  # float64 cell ids of a 50 x 50 grid
    density = torch.zeros(50 * 50, dtype=torch.float64)
    density.scatter_add_(0, cell, torch.ones_like(cell))


def _moving_fraction_bool_mean() -> None:
    sog = torch.from_numpy(_ais_frame()["sog"].to_numpy())
    moving = sog > 0.5  # knots
    moving.mean()


def _sog_tenths_int64_histc() -> None:
    frame = _ais_frame()
    sog_raw = torch.from_numpy((frame["sog"].to_numpy() * 10).astype(np.int64))  # AIS reports SOG in 1/10 knot
    torch.histc(sog_raw, bins=20, min=0, max=1023)


def _raw_ais_int32_positions_interpolate() -> None:
    frame = _ais_frame()
    # AIS message 1/2/3 fields: longitude and latitude in 1/10000 minute, signed 28/27-bit integers
    raw = np.stack([frame["lon"].to_numpy() * 600000, frame["lat"].to_numpy() * 600000]).astype(np.int32)
    F.interpolate(torch.from_numpy(raw)[None], size=48, mode="linear", align_corners=True)


def _timestamps_int64_inplace_hours() -> None:
    seconds = torch.from_numpy(_ais_frame()["timestamp"].to_numpy())  # int64 unix seconds
    seconds.sub_(seconds.min()).div_(3600.0)  # hours since the first ping


def _static_dims_int16_linear() -> None:
    _seeded()
    # AIS message 5 dimensions to bow/stern/port/starboard, metres, stored as int16
    dims = torch.tensor([[120, 30, 8, 12], [60, 15, 5, 5]], dtype=torch.int16)
    static_encoder = nn.Linear(4, _HIDDEN)
    static_encoder(dims)


def _fishing_bool_bce_target() -> None:
    _seeded()
    logits = torch.randn(12)
    is_fishing = torch.from_numpy(_ais_frame()["sog"].to_numpy() < 4.0)  # labels from a speed heuristic: bool
    F.binary_cross_entropy_with_logits(logits, is_fishing)


CASES: dict[str, LiveCase] = {
    # --- floating dtypes meeting
    # float64 lat/lon/sog/cog from a pandas AIS frame given to an fp32 input projection
    "ais-pandas-f64-kinematics-linear": case(_pandas_f64_kinematics_into_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 GRU track encoder given the collate function's fp32 standardised tracks
    "gru-encoder-half-fp32-track-features": case(_half_gru_encoder_fp32_tracks, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 track attention with keys from an fp32 continuous-time encoding of the report times
    "track-sdpa-bf16-queries-fp32-time-keys": case(_track_sdpa_bf16_queries_fp32_time_keys, "sdpa_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 MultiheadAttention over pings with an fp32 time-decay additive mask from unix seconds
    "mha-bf16-fp32-time-decay-mask": case(_mha_bf16_fp32_time_decay_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a halved BatchNorm1d + Conv1d stem given fp32 kinematic features
    "kinematic-batchnorm-half-fp32-input": case(_kinematic_batchnorm_half_fp32_input, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a halved Conv1d manoeuvre detector given fp32 turn rate and acceleration
    "manoeuvre-conv1d-half-fp32-turn-rate": case(_manoeuvre_conv1d_half_fp32_turn_rate, "conv_weight_dtype", "f32",
                                                 "f16",
        grade="correct", grade_at_freeze="correct"),
    # vessel-vessel interaction scores: bf16 embeddings bmm'd with keys from fp32 relative positions
    "vessel-interaction-bmm-bf16-fp32-relpos": case(_vessel_interaction_bmm_bf16_fp32_relpos,
                                                    "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # great-circle loss by linalg.vecdot of bf16 predicted and fp32 target unit vectors
    "great-circle-vecdot-bf16-fp32-unit-vectors": case(_great_circle_vecdot_bf16_fp32_unit_vectors, "op_dtype",
                                                       "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # distance-to-coast raster sampled at pings with a float64 grid from pandas positions
    "coast-distance-raster-grid-sample-f64": case(_coast_distance_raster_grid_sample_f64, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bivariate Gaussian position head in bf16 building a MultivariateNormal from its covariance
    "position-head-mvn-bf16-covariance": case(_position_head_mvn_bf16_covariance, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # closest point of approach screening with cdist on fp16 predicted positions
    "cpa-cdist-half-positions": case(_cpa_cdist_half_positions, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # numpy haversine evaluation metric called on the bf16 decoder output
    "bf16-predictions-numpy-haversine-metric": case(_bf16_predictions_numpy_haversine_metric, "numpy_dtype",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 ETA targets of padded pings filled with a 1e6-second sentinel
    "eta-fp16-padding-sentinel-overflow": case(_eta_fp16_padding_sentinel, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # voyage start in epoch milliseconds put in an int32 tensor
    "epoch-milliseconds-int32-full": case(_epoch_milliseconds_int32_reference, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # resampling to a one-minute grid: lerp of fp32 positions with float64 time weights
    "resample-lerp-f64-time-weights": case(_resample_lerp_f64_time_weights, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a halved GRU trajectory model trained through GradScaler
    "half-gru-grad-scaler-unscale": case(_half_gru_grad_scaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # haversine track-length regulariser on a moored vessel (identical pings): sqrt(0) gives NaN gradients
    "haversine-moored-vessel-nan-anomaly": case(_haversine_moored_vessel_nan_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # coverage-gap imputation writing a bf16 imputer's output into the fp32 track by index
    "gap-imputation-index-put-bf16": case(_gap_imputation_index_put_bf16, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a 0/1 stationary-status lookup buffer halved by model.half(), combined with a bool speed mask by `&`
    "stationary-status-buffer-half-bitwise-and": case(_status_flags_buffer_half_bitwise_and, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- integer, bool and index dtypes
    # AIS ship type read with NaN (so float64 after fillna) looked up in the ship-type embedding
    "ship-type-f64-nan-column-embedding": case(_ship_type_nan_column_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # uint8 navigational status one-hot encoded
    "nav-status-uint8-one-hot": case(_nav_status_uint8_one_hot, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # padding mask made as 1 - the bool valid-ping mask
    "valid-ping-bool-one-minus": case(_valid_ping_bool_one_minus, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # speeds of moored pings zeroed with masked_fill and a uint8 flag from numpy
    "in-port-uint8-masked-fill": case(_in_port_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # traffic density grid by scatter_add_ with float64 cell ids from floor()
    "traffic-density-scatter-add-float-cells": case(_traffic_density_scatter_add_float_cells, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # fraction of moving pings as the mean of a bool speed mask
    "moving-fraction-bool-mean": case(_moving_fraction_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # histogram of raw int64 SOG in tenths of a knot with histc
    "sog-tenths-int64-histc": case(_sog_tenths_int64_histc, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # raw int32 AIS positions (1/10000 minute) resampled with linear interpolate
    "raw-ais-int32-positions-interpolate": case(_raw_ais_int32_positions_interpolate, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # int64 unix seconds turned into hours in place with sub_ and div_
    "timestamps-int64-inplace-hours": case(_timestamps_int64_inplace_hours, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int16 static dimensions from AIS message 5 given to an fp32 static encoder
    "static-dims-int16-linear": case(_static_dims_int16_linear, "integer_operand", "int16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bool fishing labels from a speed heuristic as the BCE-with-logits target
    "fishing-bool-bce-logits-target": case(_fishing_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
}
