"""Held-out live set 179: hydrology and flood forecasting by hand in low precision (int64 gauge and basin ids, float64
discharge series from pandas, bool dry-day masks, uint8 land-cover rasters, fp16 LSTMs, bf16 graph networks over
river reaches). Defects planted by a helper who never read the rules, written before castwise ran and graded once
with the rules frozen at 83dc6519."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "83dc6519"

bf16, f16 = torch.bfloat16, torch.float16
_REACHES = 6
_CLASSES = 12  # land-cover classes of the raster


def _seeded() -> None:
    torch.manual_seed(0)


def _discharge_f64(days: int = 30) -> np.ndarray:
    """What ``df["q_cms"].to_numpy()`` gives: float64 daily discharge."""
    return np.linspace(3.0, 40.0, days) + np.sin(np.arange(days))


def _land_cover(size: int = 8) -> torch.Tensor:
    raster = torch.arange(size * size).reshape(size, size) % _CLASSES
    return raster.to(torch.uint8)


def _dry_days(days: int = 30) -> torch.Tensor:
    return torch.from_numpy(_discharge_f64(days) < 10.0)


def _reach_edges() -> torch.Tensor:
    return torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]])  # upstream -> downstream


def _land_cover_raster_into_conv2d() -> None:
    _seeded()
    encoder = nn.Conv2d(1, 8, 3, padding=1, bias=False)
    encoder(_land_cover()[None, None])


def _dry_day_fraction_by_mean() -> None:
    _dry_days().mean()


def _pandas_discharge_into_half_lstm() -> None:
    _seeded()
    lstm = nn.LSTM(1, 16, batch_first=True).half()
    flows = torch.from_numpy(_discharge_f64())[None, :, None]
    lstm(flows)


def _bf16_messages_index_added_into_fp32_reach_state() -> None:
    _seeded()
    messages = torch.randn(5, 4).to(bf16)
    state = torch.zeros(_REACHES, 4)
    state.index_add_(0, _reach_edges()[1], messages)


def _downstream_ids_as_float_index_select() -> None:
    _seeded()
    downstream = torch.tensor([1, 2, 3, 4, 5]) * 1.0  # ids read back from the routing table's float column
    flows = torch.rand(_REACHES)
    torch.index_select(flows, 0, downstream)


def _gauge_ids_with_nan_into_embedding() -> None:
    _seeded()
    gauge_ids = np.array([0.0, 3.0, np.nan, 5.0])  # a pandas id column with a missing gauge becomes float64
    gauge_ids = np.nan_to_num(gauge_ids, nan=0.0)
    embedding = nn.Embedding(10, 4)
    embedding(torch.from_numpy(gauge_ids))


def _sparse_fp32_adjacency_times_bf16_reach_features() -> None:
    _seeded()
    adjacency = torch.sparse_coo_tensor(_reach_edges(), torch.ones(5), (_REACHES, _REACHES))
    features = torch.randn(_REACHES, 4).to(bf16)
    torch.sparse.mm(adjacency, features)


def _dry_spell_starts_by_subtracting_shifted_mask() -> None:
    dry = _dry_days()
    dry[1:] - dry[:-1]


def _int32_land_cover_one_hot() -> None:
    raster = _land_cover().numpy().astype(np.int32)  # rasterio reads the band as int32
    F.one_hot(torch.from_numpy(raster), _CLASSES)


def _half_discharge_clamped_to_physical_max() -> None:
    flows = torch.from_numpy(_discharge_f64()).half()
    flows.clamp_(min=0.0, max=1e6)


def _pandas_catchment_features_into_bf16_gnn() -> None:
    _seeded()
    attributes = torch.from_numpy(np.random.default_rng(0).normal(size=(_REACHES, 5)))  # df[attrs].to_numpy()
    node_encoder = nn.Linear(5, 16).to(bf16)
    node_encoder(attributes)


def _bf16_gauge_encoder_batchnorm_fp32_attributes() -> None:
    _seeded()
    encoder = nn.Sequential(nn.BatchNorm1d(5), nn.Linear(5, 16)).to(bf16)
    encoder(torch.randn(_REACHES, 5))


def _flow_duration_curve_quantile_half() -> None:
    flows = torch.from_numpy(_discharge_f64()).half()
    torch.quantile(flows, 0.95)


def _flow_duration_curve_fp32_probabilities_f64_flows() -> None:
    flows = torch.from_numpy(_discharge_f64())
    exceedance = torch.linspace(0.05, 0.95, 19)
    torch.quantile(flows, 1.0 - exceedance)


def _int64_missing_flag_masked_fill() -> None:
    flows = torch.from_numpy(_discharge_f64()).float()
    missing = torch.zeros(30, dtype=torch.int64)  # the QC column: 1 where the gauge was down
    missing[4:7] = 1
    flows.masked_fill(missing, float("nan"))


def _bool_dry_day_target_in_bce() -> None:
    _seeded()
    probabilities = torch.sigmoid(torch.randn(30))
    F.binary_cross_entropy(probabilities, _dry_days())


def _half_discharge_seasonality_rfft() -> None:
    flows = torch.from_numpy(_discharge_f64()).half()
    torch.fft.rfft(flows - flows.mean())


def _fp32_adjacency_bmm_bf16_reach_features() -> None:
    _seeded()
    adjacency = torch.zeros(2, _REACHES, _REACHES)
    adjacency[:, _reach_edges()[1], _reach_edges()[0]] = 1.0
    features = torch.randn(2, _REACHES, 4).to(bf16)
    torch.bmm(adjacency, features)


def _float64_river_distance_mask_bf16_attention() -> None:
    _seeded()
    attention = nn.MultiheadAttention(8, 2, batch_first=True).to(bf16)
    reaches = torch.randn(1, _REACHES, 8).to(bf16)
    hops = np.abs(np.subtract.outer(np.arange(_REACHES), np.arange(_REACHES)))
    bias = torch.from_numpy(-hops.astype(np.float64))  # networkx shortest path lengths, float64
    attention(reaches, reaches, reaches, attn_mask=bias)


def _bf16_reach_discharge_to_numpy_for_xarray() -> None:
    _seeded()
    predicted = torch.rand(_REACHES, 30).to(bf16)
    predicted.numpy()


def _rain_gauge_kriging_inverse_bf16() -> None:
    _seeded()
    covariance = torch.eye(4) + 0.1
    torch.linalg.inv(covariance.to(bf16))


def _resampled_land_cover_bincount() -> None:
    raster = F.interpolate(_land_cover().float()[None, None], scale_factor=0.5, mode="nearest")
    torch.bincount(raster.flatten())


def _land_cover_histc() -> None:
    torch.histc(_land_cover(), bins=_CLASSES, min=0, max=_CLASSES - 1)


def _first_dry_day_argmax() -> None:
    torch.argmax(_dry_days())


def _land_cover_noise_rand_like() -> None:
    raster = _land_cover()
    raster + (torch.rand_like(raster) < 0.05)


def _half_quality_flags_bitwise_and() -> None:
    flags = torch.tensor([0, 1, 4, 5, 1]).half()  # USGS-style bit flags loaded with the fp16 batch
    flags & 1


def _bf16_upstream_max_scatter_reduce() -> None:
    _seeded()
    peak = torch.zeros(_REACHES)
    peak.scatter_reduce_(0, _reach_edges()[1], torch.rand(5).to(bf16), reduce="amax")


def _gauge_distance_cdist_bf16() -> None:
    _seeded()
    coordinates = torch.rand(5, 2).to(bf16)
    torch.cdist(coordinates, coordinates)


def _half_unit_hydrograph_conv1d_fp32_rain() -> None:
    _seeded()
    routing = nn.Conv1d(1, 1, 5, bias=False).half()
    rain = torch.rand(1, 1, 30)
    routing(rain)


def _uint8_land_cover_as_segmentation_target() -> None:
    _seeded()
    logits = torch.randn(1, _CLASSES, 8, 8)
    F.cross_entropy(logits, _land_cover()[None])

CASES: dict[str, LiveCase] = {
    # a uint8 land-cover raster (class codes) batched straight into an fp32 Conv2d catchment encoder
    "land-cover-uint8-conv2d": case(_land_cover_raster_into_conv2d, "integer_operand", "uint8", "f32", grade="correct", grade_at_freeze="correct"),
    # the fraction of dry days in a window as .mean() of the bool dry-day mask
    "dry-day-fraction-bool-mean": case(_dry_day_fraction_by_mean, "integer_operand", "bool", grade="correct", grade_at_freeze="correct"),
    # float64 discharge from a pandas column into a .half() rainfall-runoff LSTM
    "pandas-f64-discharge-half-lstm": case(_pandas_discharge_into_half_lstm, "rnn_dtype", "f64", "f16", grade="correct", grade_at_freeze="correct"),
    # bf16 GNN messages summed with index_add_ into an fp32 torch.zeros reach state
    "bf16-messages-index-add-fp32-state": case(_bf16_messages_index_added_into_fp32_reach_state,
                                               "indexed_write_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # downstream reach ids read back from a float column, used as index_select's index
    "float-downstream-ids-index-select": case(_downstream_ids_as_float_index_select, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # gauge ids from a pandas column with a missing gauge (float64 after NaN) into the gauge Embedding
    "nan-gauge-ids-f64-embedding": case(_gauge_ids_with_nan_into_embedding, "index_tensor_dtype", "f64", grade="correct", grade_at_freeze="correct"),
    # fp32 sparse COO river adjacency times bf16 reach features with torch.sparse.mm
    "sparse-fp32-adjacency-bf16-features": case(_sparse_fp32_adjacency_times_bf16_reach_features, "matmul_dtype",
                                                "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # starts of dry spells by subtracting the bool dry-day mask shifted by one day
    "dry-spell-starts-bool-minus": case(_dry_spell_starts_by_subtracting_shifted_mask, "mask_dtype", "bool", grade="correct", grade_at_freeze="correct"),
    # a land-cover band read by rasterio as int32, one-hot encoded into class channels
    "land-cover-int32-one-hot": case(_int32_land_cover_one_hot, "index_tensor_dtype", "int64", grade="correct", grade_at_freeze="partly",
                                       why=("At freeze (83dc6519) castwise gave index_tensor_dtype [] (high confidence). The kind is right but it read no dtype from one_hot's message, which names only the LongTensor it wants (int64), so the dtype the "
                                       "message shows was missing.")),
    # fp16 discharge clamped in place to a 1e6 m3/s physical maximum
    "half-discharge-clamp-1e6": case(_half_discharge_clamped_to_physical_max, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # standardised float64 catchment attributes from pandas into a bf16 graph network's node encoder
    "pandas-f64-attributes-bf16-gnn-linear": case(_pandas_catchment_features_into_bf16_gnn, "matmul_dtype", "f64",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # a gauge encoder opening with BatchNorm1d, cast to bf16 whole, given fp32 attributes
    "bf16-batchnorm-gauge-encoder-fp32-input": case(_bf16_gauge_encoder_batchnorm_fp32_attributes,
                                                    "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # the Q95 of a flow duration curve by torch.quantile of fp16 discharge
    "fdc-quantile-half-discharge": case(_flow_duration_curve_quantile_half, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # a flow duration curve from float64 pandas discharge at fp32 linspace exceedance probabilities
    "fdc-quantile-f32-q-f64-flows": case(_flow_duration_curve_fp32_probabilities_f64_flows, "op_dtype", grade="correct", grade_at_freeze="correct"),
    # the int64 gauge-down QC column used as masked_fill's mask to blank out discharge
    "qc-int64-flag-masked-fill": case(_int64_missing_flag_masked_fill, "mask_dtype", "int64", grade="correct", grade_at_freeze="correct"),
    # a dry-day classifier's sigmoid output in binary_cross_entropy with the bool dry-day mask as target
    "dry-day-bool-bce-target": case(_bool_dry_day_target_in_bce, "target_dtype", "bool", "f32", grade="correct", grade_at_freeze="correct"),
    # spectral seasonality of fp16 discharge with torch.fft.rfft
    "half-discharge-rfft-seasonality": case(_half_discharge_seasonality_rfft, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # batched fp32 river adjacency times bf16 reach features with torch.bmm
    "fp32-adjacency-bmm-bf16-reaches": case(_fp32_adjacency_bmm_bf16_reach_features, "batched_matmul_dtype",
                                            "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # bf16 attention over reaches with a float64 -hop-distance attn_mask from networkx
    "f64-river-distance-mask-bf16-mha": case(_float64_river_distance_mask_bf16_attention, "attn_mask_dtype",
                                             "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # bf16 predicted reach discharge through .numpy() for an xarray Dataset
    "bf16-reach-discharge-numpy-xarray": case(_bf16_reach_discharge_to_numpy_for_xarray, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # ordinary kriging of rain gauges: linalg.inv of a bf16 covariance matrix
    "kriging-bf16-linalg-inv": case(_rain_gauge_kriging_inverse_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # class areas by bincount of a land-cover raster made float for nearest resampling
    "resampled-land-cover-float-bincount": case(_resampled_land_cover_bincount, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # land-cover class histogram by torch.histc of the uint8 raster
    "land-cover-uint8-histc": case(_land_cover_histc, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # first dry day of the season by argmax of the bool dry-day mask
    "first-dry-day-bool-argmax": case(_first_dry_day_argmax, "no_kernel", "bool", grade="correct", grade_at_freeze="correct"),
    # land-cover noise augmentation with rand_like of the uint8 raster
    "land-cover-uint8-rand-like": case(_land_cover_noise_rand_like, "no_kernel", "uint8", grade="correct", grade_at_freeze="correct"),
    # USGS-style bit quality flags loaded with the fp16 batch and tested with & 1
    "half-quality-flags-bitwise-and": case(_half_quality_flags_bitwise_and, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # peak upstream inflow by scatter_reduce_ amax of bf16 messages into an fp32 torch.zeros
    "bf16-upstream-peak-scatter-reduce": case(_bf16_upstream_max_scatter_reduce, "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # gauge-to-gauge distances for a graph by torch.cdist of bf16 coordinates
    "gauge-distance-bf16-cdist": case(_gauge_distance_cdist_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a learnable unit hydrograph Conv1d halved with .half(), convolved with fp32 rainfall
    "half-unit-hydrograph-conv1d-fp32-rain": case(_half_unit_hydrograph_conv1d_fp32_rain, "conv_weight_dtype",
                                                  "f32", "f16", grade="correct", grade_at_freeze="correct"),
    # land-cover segmentation with the uint8 raster as cross_entropy's target
    "land-cover-uint8-cross-entropy-target": case(_uint8_land_cover_as_segmentation_target, "target_dtype",
                                                  "uint8", "int64", grade="correct", grade_at_freeze="correct"),
}
