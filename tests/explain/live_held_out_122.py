"""Held-out live set 122: weather and climate forecasting written by hand in low precision (gridded ERA5/CMIP fields
from xarray and netCDF as float64 and big-endian float32, int64 lat/lon and pressure-level indices, bool land-sea
masks, area-weighted latitude losses with cos(lat) in float64, normalisation statistics kept as numpy float64, bf16
autocast around graph and transformer forecasters, spherical padding with roll and gather). Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at 8f00974."""

from __future__ import annotations

import io

import numpy as np
import torch
import torch.nn.functional as F
from scipy.io import netcdf_file
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8f00974"

bf16, f16 = torch.bfloat16, torch.float16
_NLAT, _NLON = 16, 32  # an 11.25-degree toy grid, poles excluded
_LEVELS = [50, 100, 150, 200, 250, 300, 400, 500, 600, 700, 850, 925, 1000]  # hPa, ERA5's 13 WeatherBench levels
_VARS = ("z", "t", "u", "v", "q")


def _seeded() -> None:
    torch.manual_seed(0)


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _lat_degrees() -> np.ndarray:
    """Cell-centre latitudes as the netCDF coordinate gives them: float64, north to south."""
    return np.linspace(90.0, -90.0, _NLAT + 2)[1:-1]


def _lon_degrees() -> np.ndarray:
    return np.arange(_NLON) * (360.0 / _NLON)


def _era5_field(*shape: int) -> np.ndarray:
    """A standardised ERA5 field as `ds[var].values` returns it from xarray: float64."""
    return _rng().normal(0.0, 1.0, size=shape)


def _land_sea_mask() -> torch.Tensor:
    """A bool land-sea mask: the lsm fraction thresholded at 0.5."""
    lsm = _rng().uniform(0.0, 1.0, size=(_NLAT, _NLON))
    return torch.from_numpy(lsm > 0.5)


# --- reading netCDF and xarray fields

def _cmip6_netcdf3_tas_from_numpy() -> None:
    buffer = io.BytesIO()
    writer = netcdf_file(buffer, "w")
    writer.createDimension("lat", _NLAT)
    writer.createDimension("lon", _NLON)
    tas = writer.createVariable("tas", "f", ("lat", "lon"))
    tas[:] = np.full((_NLAT, _NLON), 288.0, dtype=np.float32)
    writer.flush()
    reader = netcdf_file(io.BytesIO(buffer.getvalue()), "r", mmap=False)  # netCDF3 classic: big-endian >f4
    field = reader.variables["tas"][:]
    torch.from_numpy(field)[None, None]


def _era5_time_coordinate_from_numpy() -> None:
    times = np.arange("2020-01-01T00", "2020-01-03T00", 6, dtype="datetime64[h]").astype("datetime64[ns]")
    hours = torch.from_numpy(times)  # ds.time.values, for the time-of-year features
    torch.sin(2 * torch.pi * hours / (365.25 * 24))


class _LatWeightedForecaster(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("lat", torch.tensor(_lat_degrees(), dtype=torch.float32))
        self.head = nn.Linear(8, 8)


def _bf16_lat_buffer_np_deg2rad() -> None:
    model = _LatWeightedForecaster().to(bf16)  # inference in bf16 casts the lat buffer too
    weights = np.cos(np.deg2rad(model.lat))
    weights / weights.mean()


# --- floating dtypes meeting

def _pangu_conv3d_patch_embed_f64_upper_air() -> None:
    _seeded()
    upper = torch.from_numpy(_era5_field(1, len(_VARS), len(_LEVELS) - 1, _NLAT, _NLON))  # float64 from xarray
    patch_embed = nn.Conv3d(len(_VARS), 16, kernel_size=(2, 4, 4), stride=(2, 4, 4))
    patch_embed(upper)


def _global_mean_dot_coslat() -> None:
    _seeded()
    weights = torch.from_numpy(np.cos(np.deg2rad(_lat_degrees())))
    weights = weights / weights.sum()
    forecast = torch.randn(_NLAT, _NLON).to(bf16)
    zonal_mean = forecast.mean(dim=-1)
    torch.dot(weights, zonal_mean)  # the global-mean 2 m temperature


def _acc_vecdot_bf16_forecast_fp32_analysis() -> None:
    _seeded()
    climatology = torch.randn(_NLAT, _NLON)
    forecast = torch.randn(_NLAT, _NLON).to(bf16)
    analysis = torch.randn(_NLAT, _NLON)
    forecast_anomaly = (forecast - climatology.to(bf16)).flatten()
    analysis_anomaly = (analysis - climatology).flatten()
    numerator = torch.linalg.vecdot(forecast_anomaly, analysis_anomaly)
    numerator / (forecast_anomaly.float().norm() * analysis_anomaly.norm())


def _vit_layernorm_fp32_latlon_encoding() -> None:
    _seeded()
    dim, patches = 16, (_NLAT // 4) * (_NLON // 4)
    patch_embed = nn.Linear(len(_VARS) * 16, dim).to(bf16)
    first_norm = nn.LayerNorm(dim).to(bf16)
    tokens = patch_embed(torch.randn(1, patches, len(_VARS) * 16).to(bf16))
    lat = torch.deg2rad(torch.linspace(78.75, -78.75, _NLAT // 4)).repeat_interleave(_NLON // 4)
    lon = torch.deg2rad(torch.arange(_NLON // 4) * 45.0).repeat(_NLAT // 4)
    frequencies = torch.arange(1, dim // 4 + 1)
    encoding = torch.cat([torch.sin(lat[:, None] * frequencies), torch.cos(lat[:, None] * frequencies),
                          torch.sin(lon[:, None] * frequencies), torch.cos(lon[:, None] * frequencies)], dim=-1)
    first_norm(tokens + encoding)  # the lat/lon encoding is built in forward, in fp32


def _climax_autocast_tokens_numpy_f64_stats() -> None:
    _seeded()
    raw = torch.randn(2, len(_VARS), _NLAT, _NLON) * 10 + 280
    mean = torch.from_numpy(np.full((len(_VARS), 1, 1), 280.0))  # np.load("normalize_mean.npz") as float64
    std = torch.from_numpy(np.full((len(_VARS), 1, 1), 10.0))
    tokens = ((raw - mean) / std).unfold(2, 4, 4).unfold(3, 4, 4).flatten(-2).flatten(2, 3).transpose(1, 2)
    token_embed = nn.Linear(16, 32)
    with torch.autocast("cpu", dtype=bf16):
        token_embed(tokens)


def _graphcast_grid2mesh_scatter_reduce_autocast() -> None:
    _seeded()
    grid_nodes, mesh_nodes, latent = _NLAT * _NLON, 42, 16
    receivers = torch.randint(0, mesh_nodes, (grid_nodes,))
    edge_mlp = nn.Sequential(nn.Linear(2 * latent, latent), nn.SiLU(), nn.Linear(latent, latent))
    grid_latent = torch.randn(grid_nodes, latent)
    mesh_latent = torch.randn(mesh_nodes, latent)
    with torch.autocast("cpu", dtype=bf16):
        messages = edge_mlp(torch.cat([grid_latent, mesh_latent[receivers]], dim=-1))
        aggregated = torch.zeros(mesh_nodes, latent)
        aggregated.scatter_reduce_(0, receivers[:, None].expand(-1, latent), messages, "sum")


def _swin_shifted_window_bmm_after_autocast() -> None:
    _seeded()
    dim, window = 16, 4
    qkv = nn.Linear(dim, 3 * dim)
    grid = torch.randn(1, window * 2, window * 2, dim)
    shifted = torch.roll(grid, shifts=(-window // 2, -window // 2), dims=(1, 2))
    windows = shifted.reshape(1, 2, window, 2, window, dim).transpose(2, 3).reshape(4, window * window, dim)
    with torch.autocast("cpu", dtype=bf16):
        q, k, v = qkv(windows).chunk(3, dim=-1)
        scores = q @ k.transpose(1, 2) / dim**0.5
    attention = scores.softmax(-1)
    torch.bmm(attention, v.float())  # "values in fp32 for stability"


def _great_circle_attn_bias_f64_mha_autocast() -> None:
    _seeded()
    lat = np.deg2rad(_lat_degrees()[::4])
    lon = np.deg2rad(_lon_degrees()[::8])
    lat2d, lon2d = (a.ravel() for a in np.meshgrid(lat, lon, indexing="ij"))
    cos_angle = np.sin(lat2d)[:, None] * np.sin(lat2d) + np.cos(lat2d)[:, None] * np.cos(lat2d) * np.cos(
        lon2d[:, None] - lon2d)
    distance_bias = torch.from_numpy(-np.arccos(np.clip(cos_angle, -1.0, 1.0)))  # float64 great-circle distance
    attention = nn.MultiheadAttention(16, 2, batch_first=True)
    tokens = torch.randn(1, lat2d.size, 16)
    with torch.autocast("cpu", dtype=bf16):
        attention(tokens, tokens, tokens, attn_mask=distance_bias)


def _downscaling_head_conv_outside_autocast() -> None:
    _seeded()
    processor = nn.Sequential(nn.Conv2d(4, 16, 3, padding=1), nn.GELU())
    head = nn.Conv2d(16, 1, 3, padding=1)
    coarse = torch.randn(1, 4, _NLAT, _NLON)
    with torch.autocast("cpu", dtype=bf16):
        latent = processor(coarse)
    upsampled = F.interpolate(latent, scale_factor=4, mode="nearest")
    head(upsampled)


def _vertical_interp_lerp_f64_logp_weight() -> None:
    _seeded()
    below = torch.randn(_NLAT, _NLON)  # temperature on the 925 hPa model level
    above = torch.randn(_NLAT, _NLON)  # and on 850 hPa
    target_hpa = 875.0
    weight = (np.log(925.0) - np.log(target_hpa)) / (np.log(925.0) - np.log(850.0))
    torch.lerp(below, above, torch.from_numpy(np.full((_NLAT, _NLON), weight)))


def _huber_bf16_forecast_f64_era5_target() -> None:
    _seeded()
    model = nn.Linear(8, 8).to(bf16)
    state = torch.randn(4, 8).to(bf16)
    target = torch.from_numpy(_era5_field(4, 8))  # next step from xarray, float64
    F.huber_loss(model(state), target, delta=1.0).backward()


# --- kernels missing for the dtype

def _wind_uv_complex_bf16() -> None:
    _seeded()
    u = torch.randn(_NLAT, _NLON).to(bf16)
    v = torch.randn(_NLAT, _NLON).to(bf16)
    wind = torch.complex(u, v)
    wind.abs(), wind.angle()


def _afno_rfft2_bf16_tokens() -> None:
    _seeded()
    backbone = nn.Conv2d(len(_VARS), 16, 4, stride=4).to(bf16)
    tokens = backbone(torch.randn(1, len(_VARS), _NLAT, _NLON).to(bf16)).permute(0, 2, 3, 1)
    torch.fft.rfft2(tokens, dim=(1, 2), norm="ortho")


def _zonal_legendre_basis_bf16() -> None:
    model = _LatWeightedForecaster().to(bf16)
    mu = torch.sin(torch.deg2rad(model.lat))  # the bf16 lat buffer
    torch.stack([torch.special.legendre_polynomial_p(mu, degree) for degree in range(6)])  # P_n(sin lat)


def _ensemble_perturb_randn_like_int16_packed() -> None:
    packed = torch.from_numpy(_rng().integers(-32000, 32000, size=(_NLAT, _NLON), dtype=np.int16))  # t2m, packed
    members = packed[None].repeat(4, 1, 1)
    members + 0.01 * torch.randn_like(members)


def _pole_padding_reflect_bool_lsm() -> None:
    lsm = _land_sea_mask()[None, None]
    padded = F.pad(lsm, (1, 1, 0, 0), mode="circular")  # longitude wraps around
    F.pad(padded, (0, 0, 1, 1), mode="reflect")  # and latitude reflects at the poles


# --- integer, bool and index dtypes

def _pressure_levels_int64_mean_normalise() -> None:
    levels = torch.tensor(_LEVELS)  # ds.level.values, int64
    (levels - levels.mean()) / levels.float().std()


def _orography_int16_bilinear_regrid() -> None:
    orography = torch.from_numpy(_rng().integers(0, 5000, size=(_NLAT, _NLON), dtype=np.int16))  # metres
    F.interpolate(orography[None, None], size=(2 * _NLAT, 2 * _NLON), mode="bilinear", align_corners=False)


def _sea_mask_invert_float_lsm() -> None:
    _seeded()
    lsm = _land_sea_mask().float()  # stored as 0./1. to multiply losses with
    sst = torch.randn(_NLAT, _NLON).to(bf16)
    sst[~lsm].mean()


def _sea_ice_uint8_masked_select() -> None:
    _seeded()
    sea_ice_flag = torch.from_numpy(_rng().integers(0, 2, size=(_NLAT, _NLON), dtype=np.uint8))  # netCDF byte flag
    forecast = torch.randn(_NLAT, _NLON)
    forecast.masked_select(sea_ice_flag).mean()


def _pole_gather_float_lon_index() -> None:
    _seeded()
    field = torch.randn(1, 4, _NLAT, _NLON)
    lon_index = torch.arange(_NLON)
    across_pole = (lon_index + _NLON / 2) % _NLON  # the meridian on the far side of the pole
    north = field[:, :, :1, :].flip(2)
    index = across_pole.expand(1, 4, 1, _NLON)
    torch.gather(north, -1, index)


def _hour_of_day_f64_embedding() -> None:
    _seeded()
    lead_hours = np.array([0.0, 6.0, 12.0, 18.0])  # np.timedelta64 / np.timedelta64(1, "h"): float64
    hour_embedding = nn.Embedding(24, 16)
    hour_embedding(torch.from_numpy(lead_hours % 24))


def _ptype_int32_cross_entropy() -> None:
    _seeded()
    ptype = torch.from_numpy(_rng().integers(0, 5, size=(2, _NLAT, _NLON), dtype=np.int32))  # ERA5 ptype codes
    logits = torch.randn(2, 5, _NLAT, _NLON, requires_grad=True)
    F.cross_entropy(logits, ptype)


def _frost_bool_bce_target() -> None:
    _seeded()
    t2m = torch.randn(_NLAT, _NLON) * 10 + 275.0
    frost = t2m < 273.15
    probability = torch.sigmoid(torch.randn(_NLAT, _NLON, requires_grad=True))
    F.binary_cross_entropy(probability, frost)


def _precip_accumulation_zeros_like_uint8_lsm() -> None:
    _seeded()
    lsm = torch.from_numpy(_rng().integers(0, 2, size=(_NLAT, _NLON), dtype=np.uint8))
    accumulated = torch.zeros_like(lsm)  # the land-only running precipitation total
    for _ in range(4):
        accumulated += torch.rand(_NLAT, _NLON) * lsm


# --- values outside the dtype's range

def _geopotential_clamp_f16() -> None:
    _seeded()
    geopotential = (torch.rand(len(_LEVELS), _NLAT, _NLON) * 2e5).half()  # m^2 s^-2
    geopotential.clamp_(min=0.0, max=5e5)


def _seconds_since_1900_int32_full() -> None:
    init_time = int((np.datetime64("2020-01-01T00") - np.datetime64("1900-01-01T00")) / np.timedelta64(1, "s"))
    torch.full((4,), init_time, dtype=torch.int32)


CASES: dict[str, LiveCase] = {
    # --- reading netCDF and xarray fields
    # a CMIP6 netCDF3 classic file read with scipy's netcdf_file: its big-endian >f4 tas given to torch.from_numpy
    "cmip6-netcdf3-big-endian-tas-from-numpy": case(_cmip6_netcdf3_tas_from_numpy, "numpy_dtype",
                                                    cause=("byte order",),
        grade="correct", grade_at_freeze="correct"),
    # ERA5's datetime64 time coordinate given to torch.from_numpy for time-of-year features
    "era5-time-coordinate-datetime64-from-numpy": case(_era5_time_coordinate_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # latitude weights from np.cos(np.deg2rad(...)) of a lat buffer that model.to(bf16) cast to bf16
    "bf16-lat-buffer-np-deg2rad-weights": case(_bf16_lat_buffer_np_deg2rad, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- floating dtypes meeting
    # Pangu-style Conv3d patch embedding over pressure levels fed the float64 upper-air stack from xarray
    "pangu-conv3d-patch-embed-f64-upper-air": case(_pangu_conv3d_patch_embed_f64_upper_air, "conv_weight_dtype",
                                                   "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the global mean as torch.dot of float64 cos(lat) weights with the bf16 forecast's zonal mean
    "global-mean-dot-coslat-f64-zonal-mean-bf16": case(_global_mean_dot_coslat, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # anomaly correlation numerator: linalg.vecdot of bf16 forecast anomalies with fp32 analysis anomalies
    "acc-vecdot-bf16-forecast-fp32-analysis": case(_acc_vecdot_bf16_forecast_fp32_analysis, "op_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 ViT forecaster's first LayerNorm given tokens plus a sin/cos lat/lon encoding built in fp32
    "vit-forecaster-layernorm-fp32-latlon-encoding": case(_vit_layernorm_fp32_latlon_encoding, "norm_param_dtype",
                                                          "f32",
        grade="correct", grade_at_freeze="correct"),
    # ClimaX-style tokens normalised by numpy float64 mean/std: bf16 autocast leaves float64 alone in the token Linear
    "climax-autocast-tokens-numpy-f64-stats-linear": case(_climax_autocast_tokens_numpy_f64_stats, "matmul_dtype",
                                                          "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GraphCast-style grid2mesh: bf16 autocast edge messages scatter_reduce_'d (sum) into fp32 mesh nodes
    "graphcast-grid2mesh-scatter-reduce-autocast": case(_graphcast_grid2mesh_scatter_reduce_autocast,
                                                        "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # shifted-window attention: bf16 scores from autocast bmm'd outside it with values cast back to fp32
    "swin-shifted-window-bmm-after-autocast": case(_swin_shifted_window_bmm_after_autocast, "batched_matmul_dtype",
                                                   "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a float64 great-circle distance bias from numpy as MultiheadAttention's attn_mask under bf16 autocast
    "great-circle-attn-bias-f64-mha-autocast": case(_great_circle_attn_bias_f64_mha_autocast, "attn_mask_dtype",
                                                    "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a downscaling U-Net's fp32 output conv applied after the autocast block on its bf16 latents
    "downscaling-head-conv-outside-autocast": case(_downscaling_head_conv_outside_autocast, "conv_weight_dtype",
                                                   "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # vertical interpolation to 875 hPa: lerp of fp32 levels by a float64 log-pressure weight from numpy
    "vertical-interp-lerp-f64-logp-weight": case(_vertical_interp_lerp_f64_logp_weight, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Huber loss of a bf16 forecaster's step against the float64 ERA5 target: backward fails
    "huber-bf16-forecast-f64-era5-target-backward": case(_huber_bf16_forecast_f64_era5_target, "loss_dtype", "f64",
                                                         "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- kernels missing for the dtype
    # wind speed and direction from torch.complex of bf16 u and v components
    "wind-uv-complex-bf16": case(_wind_uv_complex_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FourCastNet-style AFNO token mixing: rfft2 of bf16 tokens from a bf16 model
    "afno-rfft2-bf16-tokens": case(_afno_rfft2_bf16_tokens, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a zonal-harmonic basis P_n(sin lat) for a spectral loss, from legendre_polynomial_p on the bf16 lat buffer
    "zonal-legendre-basis-bf16-lat": case(_zonal_legendre_basis_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # initial-condition ensemble perturbations by randn_like of a packed int16 field never unpacked
    "ensemble-perturb-randn-like-int16-packed": case(_ensemble_perturb_randn_like_int16_packed, "no_kernel",
                                                     "int16",
        grade="correct", grade_at_freeze="correct"),
    # spherical padding of the bool land-sea mask: circular in longitude, then reflect at the poles
    "pole-padding-reflect-bool-lsm": case(_pole_padding_reflect_bool_lsm, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # --- integer, bool and index dtypes
    # int64 pressure levels centred with levels.mean() for a level coordinate feature
    "pressure-levels-int64-mean-normalise": case(_pressure_levels_int64_mean_normalise, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # an int16 orography field regridded to a finer grid with bilinear F.interpolate
    "orography-int16-bilinear-regrid": case(_orography_int16_bilinear_regrid, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # the sea mask as ~lsm where the land-sea mask was kept as 0./1. float
    "sea-mask-invert-float-lsm": case(_sea_mask_invert_float_lsm, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a netCDF byte (uint8) sea-ice flag used as masked_select's mask
    "sea-ice-uint8-masked-select": case(_sea_ice_uint8_masked_select, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # pole padding by gather with the far-side meridian index computed with / (float) instead of //
    "pole-gather-float-lon-index": case(_pole_gather_float_lon_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # lead-time hours from numpy timedeltas (float64) looked up in an hour-of-day nn.Embedding
    "hour-of-day-f64-embedding": case(_hour_of_day_f64_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # ERA5 precipitation-type codes read as int32 used as cross_entropy's target
    "ptype-int32-cross-entropy": case(_ptype_int32_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # frost occurrence (t2m < 273.15, bool) as binary_cross_entropy's target
    "frost-bool-bce-target": case(_frost_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a land-only precipitation accumulator made by zeros_like of the uint8 land-sea mask, += fp32 rain
    "precip-accumulation-zeros-like-uint8-lsm": case(_precip_accumulation_zeros_like_uint8_lsm, "result_cast", "f32",
                                                     "uint8",
        grade="correct", grade_at_freeze="correct"),
    # --- values outside the dtype's range
    # fp16 geopotential clamped to a physical range with max=5e5 m^2 s^-2
    "geopotential-clamp-f16-5e5": case(_geopotential_clamp_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # initialisation time as seconds since 1900 written into an int32 tensor
    "seconds-since-1900-int32-full": case(_seconds_since_1900_int32_full, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
}
