"""Held-out live set 173: agriculture and crop monitoring written by hand in low precision (uint16 multispectral
bands, int8 soil and crop class maps, float64 sensor logs from pandas, bool cloud masks, int64 field ids, bf16
segmentation U-Nets, fp16 yield regressors). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at f3ddcfe8."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f3ddcfe8"

bf16, f16 = torch.bfloat16, torch.float16
_BANDS = 4  # B02, B03, B04, B08 at 10 m
_SIDE = 16
_DATES = 6
_CROPS = 5  # 0 other, 1 maize, 2 soybean, 3 winter wheat, 4 alfalfa


def _seeded() -> None:
    torch.manual_seed(0)


def _s2_patch() -> torch.Tensor:
    """A Sentinel-2 L2A patch as rasterio reads it: uint16 reflectance x 10000, (1, C, H, W)."""
    rng = np.random.default_rng(0)
    digital_numbers = rng.integers(200, 6000, size=(1, _BANDS, _SIDE, _SIDE)).astype(np.uint16)
    return torch.from_numpy(digital_numbers)


def _crop_map() -> torch.Tensor:
    """The crop-type reference raster stored compactly as int8 (-1 where there is no reference), (1, H, W)."""
    rng = np.random.default_rng(1)
    classes = rng.integers(0, _CROPS, size=(1, _SIDE, _SIDE)).astype(np.int8)
    classes[:, :2, :] = -1
    return torch.from_numpy(classes)


def _soil_map() -> torch.Tensor:
    """A 30 m soil map unit raster (int8 unit ids 0..7) over the same area at 1/3 resolution, (1, 1, h, w)."""
    rng = np.random.default_rng(2)
    return torch.from_numpy(rng.integers(0, 8, size=(1, 1, 6, 6)).astype(np.int8))


def _cloud_stack() -> torch.Tensor:
    """Cloudy flags per date from the SCL band: bool (T, H, W)."""
    torch.manual_seed(3)
    return torch.rand(_DATES, _SIDE, _SIDE) > 0.6


def _probe_log(hours: int = 72) -> pd.DataFrame:
    """Hourly soil-probe and weather-station log as pandas reads the logger's CSV: float64 columns."""
    index = pd.date_range("2024-06-01", periods=hours, freq="h")
    hour = np.arange(hours) % 24
    return pd.DataFrame({
        "vwc_10cm": 0.28 - 0.0004 * np.arange(hours),
        "vwc_30cm": 0.31 - 0.0002 * np.arange(hours),
        "air_temp": 18.0 + 8.0 * np.sin(2 * np.pi * (hour - 9) / 24.0),
        "rh": 70.0 - 20.0 * np.sin(2 * np.pi * (hour - 9) / 24.0),
        "rain_mm": np.where(hour == 4, 1.2, 0.0),
    }, index=index)


def _field_ids() -> torch.Tensor:
    """Each pixel's field id (int64) burnt from the parcel shapefile, flattened."""
    ids = torch.tensor([1040231, 1040231, 1040232, 1040232, 1040232, 1040235], dtype=torch.long)
    return ids.repeat_interleave(4)


class _YieldRegressor(nn.Module):
    """A small per-field yield regressor (t/ha), run in fp16 with .half()."""

    def __init__(self, features: int = 8) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


# --- uint16 multispectral bands


def _uint16_patch_into_bf16_unet_stem() -> None:
    _seeded()
    stem = nn.Conv2d(_BANDS, 16, 3, padding=1).to(bf16)
    stem(_s2_patch())


def _uint16_optical_cat_int16_sar() -> None:
    sar_db_x100 = torch.from_numpy(np.full((1, 2, _SIDE, _SIDE), -1450, dtype=np.int16))  # VV, VH in dB * 100
    torch.cat([_s2_patch(), sar_db_x100], dim=1)


def _uint16_bands_space_to_depth() -> None:
    F.pixel_unshuffle(_s2_patch(), 2)  # 10 m bands onto the 20 m grid as extra channels


# --- int8 soil and crop class maps


def _int8_crop_map_cross_entropy_target() -> None:
    _seeded()
    logits = torch.randn(1, _CROPS, _SIDE, _SIDE)
    F.cross_entropy(logits, _crop_map(), ignore_index=-1)


def _int8_soil_units_into_embedding() -> None:
    _seeded()
    soil_embedding = nn.Embedding(8, 4)
    soil_embedding(_soil_map()[:, 0])


def _cdl_codes_into_int8_remap_table() -> None:
    # CDL codes kept for the train ids: other, corn, soybeans, winter wheat, alfalfa, grass/pasture
    torch.tensor([0, 1, 5, 24, 36, 176], dtype=torch.int8)


def _int8_soil_map_nearest_upsample() -> None:
    F.interpolate(_soil_map(), scale_factor=3, mode="nearest")  # 30 m soil units onto the 10 m grid


def _int8_rotation_history_into_half_regressor() -> None:
    _seeded()
    regressor = _YieldRegressor(features=3).half()
    history = torch.tensor([[1, 2, 1], [3, 3, 4], [2, 1, 2]], dtype=torch.int8)  # crop of the last three seasons
    regressor(history)


# --- bool cloud masks


def _first_clear_date_argmax() -> None:
    clear = ~_cloud_stack()
    clear.argmax(dim=0)  # index of the first clear acquisition per pixel


def _cloud_fraction_per_block() -> None:
    cloudy = _cloud_stack()[:1, None]
    F.adaptive_avg_pool2d(cloudy, 4)  # cloud fraction per 4 x 4 block of fields


def _cloud_head_bool_target() -> None:
    _seeded()
    head = nn.Conv2d(_BANDS, 1, 1)
    logits = head(_s2_patch().float() / 10000.0)
    F.binary_cross_entropy_with_logits(logits, _cloud_stack()[:1, None])


def _invert_rounded_cloud_probability() -> None:
    _seeded()
    probability = torch.rand(_SIDE, _SIDE)  # s2cloudless probability resampled to 10 m
    cloudy = torch.round(probability)
    clear = ~cloudy
    clear.sum()


# --- int64 field ids


def _field_pixel_counts_to_hectares_in_place() -> None:
    _, counts = torch.unique(_field_ids(), return_counts=True)
    counts.mul_(0.01)  # 10 m pixels: 0.01 ha each


def _field_ids_into_half_regressor() -> None:
    _seeded()
    field_effect = nn.Linear(1, 4).half()
    ids = torch.unique(_field_ids())
    field_effect(ids[:, None])


# --- float64 sensor logs from pandas


def _soil_probe_log_into_conv1d() -> None:
    _seeded()
    log = _probe_log()
    series = torch.from_numpy(log[["vwc_10cm", "vwc_30cm", "rain_mm"]].to_numpy().T.copy())[None]
    encoder = nn.Conv1d(3, 16, 5, padding=2)
    encoder(series)


def _weather_station_into_gru_cell() -> None:
    _seeded()
    log = _probe_log()
    cell = nn.GRUCell(4, 16)
    hidden = torch.zeros(1, 16)
    for hour in range(3):
        row = torch.tensor(log[["air_temp", "rh", "rain_mm", "vwc_10cm"]].iloc[hour].to_numpy())[None]
        hidden = cell(row, hidden)


def _gdd_quantiles_with_float_q() -> None:
    log = _probe_log()
    gdd = torch.from_numpy(np.clip(log["air_temp"].to_numpy() - 10.0, 0.0, None))
    torch.quantile(gdd, torch.tensor([0.1, 0.5, 0.9]))


def _irrigation_gap_fill_lerp() -> None:
    log = _probe_log(hours=8)
    buffer = torch.zeros(8)  # last good reading per hour, fp32
    latest = torch.from_numpy(log["vwc_10cm"].to_numpy())
    buffer.lerp_(latest, 0.3)


def _kalman_canopy_state() -> None:
    transition = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.98]])  # LAI, dLAI, soil water
    state = torch.tensor([1.2, 0.05, 0.27])
    torch.from_numpy(transition) @ state


def _et0_per_field_index_add() -> None:
    log = _probe_log(hours=24)
    et0 = torch.from_numpy(0.0023 * (log["air_temp"].to_numpy() + 17.8) * 0.4)  # Hargreaves-like, mm per hour
    station_field = torch.arange(24) % 3
    per_field = torch.zeros(3)
    per_field.index_add_(0, station_field, et0)


# --- bf16 segmentation U-Nets


def _unet_up_block_given_fp32_features() -> None:
    _seeded()
    up = nn.ConvTranspose2d(32, 16, 2, stride=2).to(bf16)
    bottleneck = torch.randn(1, 32, 4, 4, dtype=bf16)
    up(bottleneck.float())  # upcast for a NaN check before the decoder, never cast back


def _unet_fp32_class_weights_bf16_logits() -> None:
    _seeded()
    logits = torch.randn(1, _CROPS, _SIDE, _SIDE, dtype=bf16)
    target = _crop_map().long().clamp(min=0)
    pixel_share = torch.bincount(target.flatten(), minlength=_CROPS).float() / target.numel()
    class_weights = 1.0 / (pixel_share + 0.02)
    F.cross_entropy(logits, target, weight=class_weights)


def _aspp_branch_half_in_bf16_unet() -> None:
    _seeded()
    branches = nn.ModuleList([nn.Conv2d(16, 8, 3, padding=r, dilation=r) for r in (1, 2, 4)]).to(bf16)
    branches[2] = branches[2].half()  # the widest branch was moved to fp16 to save memory
    features = torch.randn(1, 16, 8, 8, dtype=bf16)
    torch.cat([branch(features) for branch in branches], dim=1)


def _lovasz_hinge_bf16() -> None:
    _seeded()
    logits = torch.randn(64, dtype=bf16)
    labels = (torch.rand(64) > 0.5).float()
    signs = 2.0 * labels.to(logits.dtype) - 1.0  # kept in the logits' dtype
    errors = 1.0 - logits * signs
    errors_sorted, perm = torch.sort(errors, descending=True)
    gt_sorted = labels[perm]
    gts = gt_sorted.sum()
    intersection = gts - gt_sorted.cumsum(0)
    union = gts + (1.0 - gt_sorted).cumsum(0)
    jaccard = 1.0 - intersection / union
    jaccard[1:] = jaccard[1:] - jaccard[:-1]
    torch.dot(F.relu(errors_sorted), jaccard)


def _unet_bottleneck_attention_distance_bias() -> None:
    _seeded()
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    tokens = torch.randn(1, 16, 32, dtype=bf16)
    rows, cols = torch.meshgrid(torch.arange(4), torch.arange(4), indexing="ij")
    centres = torch.stack([rows.flatten(), cols.flatten()], dim=1).float()
    distance_bias = -torch.cdist(centres, centres) / 4.0  # nearer patches of the field attend more
    attention(tokens, tokens, tokens, attn_mask=distance_bias)


# --- fp16 yield regressors


def _per_field_min_yield_tracker() -> None:
    torch.full((6,), 99999.0, dtype=f16)  # running minimum in kg/ha, as the yield monitor's sentinel


def _yield_residual_kriging_solve() -> None:
    _seeded()
    coords = torch.rand(6, 2) * 500.0
    covariance = torch.exp(-torch.cdist(coords, coords) / 150.0) + 0.01 * torch.eye(6)
    residuals = torch.randn(6, 1)
    torch.linalg.solve(covariance.half(), residuals.half())


def _pandas_features_into_half_regressor() -> None:
    _seeded()
    frame = pd.DataFrame(np.random.default_rng(4).normal(size=(5, 8)),
                         columns=["ndvi_max", "ndvi_auc", "gdd", "rain", "som", "ph", "clay", "sand"])
    regressor = _YieldRegressor().half()
    regressor(torch.tensor(frame.to_numpy()))


def _crop_mix_embedding_bag() -> None:
    _seeded()
    crop_bag = nn.EmbeddingBag(_CROPS, 8, mode="sum").half()
    crops = torch.tensor([[1, 2, 4]])
    shares = torch.tensor([[0.6, 0.3, 0.1]])  # area share of each crop on the farm
    crop_bag(crops, per_sample_weights=shares)


def _half_lstm_yield_on_ndvi_series() -> None:
    _seeded()
    lstm = nn.LSTM(1, 16, batch_first=True).half()
    ndvi = torch.linspace(0.2, 0.8, _DATES)[None, :, None]
    lstm(ndvi)


CASES: dict[str, LiveCase] = {
    # a raw uint16 Sentinel-2 patch fed to the bf16 U-Net's first Conv2d (with bias)
    "s2-uint16-patch-bf16-unet-stem": case(_uint16_patch_into_bf16_unet_stem, "integer_operand", "uint16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # uint16 optical bands concatenated with int16 Sentinel-1 backscatter (dB x 100)
    "optical-uint16-cat-s1-int16-backscatter": case(_uint16_optical_cat_int16_sar, "no_kernel", "uint16", "int16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (f3ddcfe8) castwise gave no_kernel [uint16, int16] (high confidence). It read torch's "
             "'Promotion for uint16, uint32, uint64 types is not supported' as a missing kernel for the unsigned "
             "type, where the writer expected scalar_type for two integer widths meeting in torch.cat. Expectation "
             "corrected after grading from scalar_type to no_kernel, the convention the corpus already had for this "
             "promotion refusal in torch.cat (live_held_out_67's bos-eos-int64-cat-uint16-document and "
             "live_held_out_135's p4m-rgb-uint8-cat-uint16-bands); the grade at freeze stands.")),
    # space-to-depth of the uint16 10 m bands with pixel_unshuffle to stack them on the 20 m grid
    "s2-10m-bands-pixel-unshuffle-uint16": case(_uint16_bands_space_to_depth, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # crop-type int8 reference map (-1 nodata) as cross_entropy's target with ignore_index=-1
    "crop-type-int8-map-ce-target": case(_int8_crop_map_cross_entropy_target, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # int8 soil map unit ids looked up in an nn.Embedding
    "soil-unit-int8-map-embedding": case(_int8_soil_units_into_embedding, "index_tensor_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # CDL codes for the remap table put in an int8 tensor, grass/pasture is 176
    "cdl-grass-pasture-176-int8-table": case(_cdl_codes_into_int8_remap_table, "half_overflow", "int8",
        grade="correct", grade_at_freeze="correct"),
    # the 30 m int8 soil unit map upsampled with nearest interpolate onto the 10 m grid
    "soil-unit-int8-nearest-upsample": case(_int8_soil_map_nearest_upsample, "integer_operand", "int8",
        grade="correct", grade_at_freeze="correct"),
    # int8 crop-rotation history (last three seasons) fed straight to the .half() yield regressor
    "rotation-history-int8-half-regressor": case(_int8_rotation_history_into_half_regressor, "matmul_dtype", "int8",
                                                 "f16",
        grade="correct", grade_at_freeze="correct"),
    # first clear acquisition per pixel by argmax over dates of the bool clear-sky stack
    "first-clear-date-argmax-bool": case(_first_clear_date_argmax, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # cloud fraction per block by adaptive_avg_pool2d of the bool SCL cloud mask
    "cloud-fraction-adaptive-avg-pool-bool": case(_cloud_fraction_per_block, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a cloud-segmentation head trained with the bool SCL mask as the BCE-with-logits target
    "cloud-head-bool-bce-target": case(_cloud_head_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # s2cloudless probability rounded (still float) and inverted with ~ for the clear-sky mask
    "cloud-probability-rounded-float-invert": case(_invert_rounded_cloud_probability, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-field pixel counts (int64 from unique) turned into hectares in place with mul_(0.01)
    "field-pixel-counts-int64-hectares-in-place": case(_field_pixel_counts_to_hectares_in_place, "result_cast",
                                                       "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 parcel ids given to a .half() Linear as a "field effect" feature
    "field-ids-int64-half-linear": case(_field_ids_into_half_regressor, "integer_operand", "int64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # hourly soil-probe log (float64 from pandas) into an fp32 Conv1d encoder
    "soil-probe-log-f64-conv1d": case(_soil_probe_log_into_conv1d, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # weather-station rows (float64 from pandas) stepped through an fp32 GRUCell
    "weather-station-f64-gru-cell": case(_weather_station_into_gru_cell, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # growing-degree-hour quantiles of a float64 series with an fp32 q tensor
    "gdd-f64-quantile-f32-q": case(_gdd_quantiles_with_float_q, "op_dtype",
        grade="correct", grade_at_freeze="correct"),
    # soil-moisture gap fill: fp32 buffer lerp_'ed toward the float64 pandas reading
    "irrigation-gap-fill-lerp-f64-reading": case(_irrigation_gap_fill_lerp, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # canopy Kalman filter: numpy float64 transition matrix @ fp32 state
    "kalman-canopy-f64-transition-f32-state": case(_kalman_canopy_state, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # hourly ET0 (float64 from pandas) index_add_'ed into an fp32 per-field buffer
    "et0-per-field-index-add-f64": case(_et0_per_field_index_add, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 U-Net up-block ConvTranspose2d given features upcast with .float() for a NaN check
    "unet-up-block-convtranspose-fp32-features": case(_unet_up_block_given_fp32_features, "conv_weight_dtype",
                                                      "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # inverse-frequency class weights (fp32) for cross_entropy of the bf16 U-Net's logits
    "unet-fp32-class-weights-bf16-logits": case(_unet_fp32_class_weights_bf16_logits, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # one ASPP branch moved to fp16 inside the bf16 U-Net
    "aspp-branch-half-bf16-unet": case(_aspp_branch_half_in_bf16_unet, "conv_weight_dtype", "bf16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Lovasz hinge: dot of bf16 sorted errors with the fp32 Jaccard gradient
    "lovasz-hinge-dot-bf16-errors": case(_lovasz_hinge_bf16, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 U-Net bottleneck MultiheadAttention with an fp32 additive distance bias as attn_mask
    "unet-bottleneck-mha-fp32-distance-bias": case(_unet_bottleneck_attention_distance_bias, "attn_mask_dtype",
                                                   "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 running minimum of yield in kg/ha initialised with a 99999 sentinel
    "min-yield-sentinel-99999-f16": case(_per_field_min_yield_tracker, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # kriging the fp16 regressor's residuals: linalg.solve of an fp16 covariance
    "yield-residual-kriging-solve-f16": case(_yield_residual_kriging_solve, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # pandas float64 field features into the .half() yield regressor
    "pandas-f64-features-half-regressor": case(_pandas_features_into_half_regressor, "matmul_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # farm crop mix: .half() EmbeddingBag with fp32 area shares as per_sample_weights
    "crop-mix-embedding-bag-f32-shares": case(_crop_mix_embedding_bag, "op_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a .half() LSTM yield model given an fp32 NDVI series
    "half-lstm-yield-fp32-ndvi-series": case(_half_lstm_yield_on_ndvi_series, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
}
