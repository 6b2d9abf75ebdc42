"""Held-out live set 57: weather, climate and geospatial models by hand in low precision (int16 packed fields, uint16
satellite bands, land-sea and cloud masks, latitude weights and statistics from numpy, spherical transforms and graph
meshes on the sphere, autoregressive rollouts, tiling and patch embeddings). Defects planted by a helper who never read
the rules, written before castwise ran and graded once with the rules frozen at 4c48a12."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "4c48a12"

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32

N_LAT, N_LON = 8, 16


def _packed_t2m() -> torch.Tensor:
    """A 2 m temperature field as ERA5's netCDF stores it: int16 with scale_factor and add_offset attributes."""
    rng = np.random.default_rng(0)
    kelvin = 280.0 + 15.0 * rng.standard_normal((1, 1, N_LAT, N_LON))
    scale_factor, add_offset = 0.0018, 270.0
    return torch.from_numpy(np.round((kelvin - add_offset) / scale_factor).astype(np.int16))


def _sentinel2_bands(bands: int = 4, size: int = 8) -> torch.Tensor:
    """Sentinel-2 L2A surface reflectance as read from the GeoTIFF: uint16 digital numbers (reflectance * 10000)."""
    rng = np.random.default_rng(1)
    return torch.from_numpy(rng.integers(0, 10000, size=(1, bands, size, size)).astype(np.uint16))


def _field(dtype: torch.dtype = f32, channels: int = 4) -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(1, channels, N_LAT, N_LON).to(dtype)


# --- packed int16 fields and their scale and offset


def _era5_int16_into_encoder() -> None:
    encoder = nn.Conv2d(1, 8, 3, padding=1, padding_mode="circular", bias=False).to(bf16)
    encoder(_packed_t2m())  # scale_factor/add_offset never applied: the raw shorts go in


def _era5_unpack_in_place() -> None:
    t2m = _packed_t2m()
    t2m.mul_(0.0018).add_(270.0)  # unpacking in place keeps the int16 storage


def _forecast_packed_with_out() -> None:
    prediction = 280.0 + torch.randn(1, 1, N_LAT, N_LON)
    packed = torch.empty(1, 1, N_LAT, N_LON, dtype=torch.int16)  # the archive's int16 variable
    torch.round((prediction - 270.0) / 0.0018, out=packed)


# --- satellite bands as uint16


def _sentinel2_scale_in_place() -> None:
    bands = _sentinel2_bands()
    bands.div_(10000)  # reflectance in [0, 1], written back into the uint16 tensor


def _uint16_patches_into_linear_embedding() -> None:
    bands = _sentinel2_bands()
    patches = bands.unfold(2, 4, 4).unfold(3, 4, 4)  # (1, C, 2, 2, 4, 4)
    patches = patches.permute(0, 2, 3, 1, 4, 5).reshape(1, 4, -1)
    embed = nn.Linear(patches.shape[-1], 16).to(bf16)
    embed(patches)


def _patch_embed_conv_fp32_bands() -> None:
    bands = _sentinel2_bands(bands=13).float() / 10000.0
    mean = bands.mean(dim=(0, 2, 3), keepdim=True)
    std = bands.std(dim=(0, 2, 3), keepdim=True)
    patch_embed = nn.Conv2d(13, 32, kernel_size=4, stride=4, bias=False).to(bf16)
    patch_embed((bands - mean) / std)  # normalised in fp32, model in bf16


# --- normalisation statistics and latitude weights from numpy


def _stats_from_numpy_into_linear() -> None:
    rng = np.random.default_rng(2)
    archive = rng.standard_normal((100, 4)) * np.array([5.0, 3.0, 800.0, 2.0]) + np.array([280.0, 0.0, 54000.0, 1.0])
    mean = torch.from_numpy(archive.mean(axis=0))
    std = torch.from_numpy(archive.std(axis=0))
    station_obs = torch.randn(8, 4) * 3 + 280
    head = nn.Linear(4, 16).to(bf16)
    head((station_obs - mean) / std)


def _lat_weighted_rmse_tensordot() -> None:
    lats = np.linspace(-87.5, 87.5, N_LAT)
    weights = np.cos(np.deg2rad(lats))
    weights = torch.from_numpy(weights / weights.mean())
    err = (_field(bf16) - _field(bf16) * 0.9) ** 2  # (1, C, lat, lon)
    per_lat = err.mean(dim=-1)  # (1, C, lat)
    _ = torch.tensordot(per_lat, weights, dims=([2], [0])).sqrt()


def _gauss_legendre_quadrature_einsum() -> None:
    _, quad_weights = np.polynomial.legendre.leggauss(N_LAT)
    w = torch.from_numpy(quad_weights)  # float64
    zonal_modes = torch.fft.rfft(_field(), dim=-1).real.to(bf16)  # (1, C, lat, m)
    torch.einsum("bclm,l->bcm", zonal_modes, w)


def _legendre_bmm_per_wavenumber() -> None:
    n_m, n_l = 5, 6
    legendre = torch.randn(n_m, n_l, N_LAT).to(bf16)  # buffer cast with the bf16 model
    fourier = torch.fft.rfft(_field(), dim=-1)[0, :, :, :n_m].real  # (C, lat, m), fp32
    torch.bmm(legendre, fourier.permute(2, 1, 0))  # (m, l, lat) x (m, lat, C)


# --- land-sea and cloud masks


def _lsm_fraction_as_mask() -> None:
    torch.manual_seed(0)
    lsm = torch.rand(N_LAT, N_LON)  # ERA5 land-sea mask: land fraction 0..1
    sst = _field(bf16, channels=1)
    sst.masked_fill(lsm, 0.0)


def _sea_mask_one_minus_bool() -> None:
    torch.manual_seed(0)
    land = torch.rand(N_LAT, N_LON) > 0.5
    sea = 1 - land
    _ = (_field(bf16, channels=1) * sea).sum()


# --- overflow and non-finite values in fp16


def _surface_pressure_fill_f16() -> None:
    msl = _field(f16, channels=1)
    missing = msl.new_full(msl.shape, 101325.0)  # standard pressure in Pa for the gaps
    _ = torch.where(msl.isnan(), missing, msl)


def _rollout_geopotential_f16_nonfinite() -> None:
    torch.manual_seed(0)
    step = nn.Linear(4, 4).half()
    state = torch.tensor([[54000.0, 280.0, 101000.0, 5.0]], dtype=f16)  # z500 (m2/s2), T, msl (Pa), wind: raw units
    target = state.clone()
    loss = torch.zeros((), dtype=f16)
    for _ in range(2):
        state = state + step(state)
        loss = loss + ((state - target) ** 2).mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(step.parameters(), 1.0, error_if_nonfinite=True)


# --- graph meshes on the sphere, regridding and tiling


def _grid2mesh_index_reduce() -> None:
    torch.manual_seed(0)
    n_mesh = 12
    receivers = torch.randint(0, n_mesh, (N_LAT * N_LON,))
    messages = torch.randn(N_LAT * N_LON, 8).to(bf16)  # from the bf16 edge MLP
    mesh_nodes = torch.zeros(n_mesh, 8)
    mesh_nodes.index_reduce_(0, receivers, messages, "mean", include_self=False)


def _tile_stitching_index_put() -> None:
    torch.manual_seed(0)
    canvas = torch.zeros(16, 16)
    ys, xs = torch.meshgrid(torch.arange(4, 12), torch.arange(4, 12), indexing="ij")
    tile_pred = torch.randn(8, 8).to(bf16)  # one tile's prediction from the bf16 segmenter
    canvas.index_put_((ys.reshape(-1), xs.reshape(-1)), tile_pred.reshape(-1), accumulate=True)


def _mesh_edge_normals_cross() -> None:
    torch.manual_seed(0)
    nodes = F.normalize(torch.randn(12, 3), dim=-1)
    senders, receivers = torch.randint(0, 12, (20,)), torch.randint(0, 12, (20,))
    sender_pos = nodes[senders].to(bf16)  # node features moved to the model dtype
    torch.linalg.cross(sender_pos, nodes[receivers], dim=-1)


def _station_take_int32() -> None:
    field = _field(channels=1)[0, 0]
    station_flat = torch.from_numpy(np.array([3, 17, 40, 99], dtype=np.int32))  # from the station table
    torch.take(field, station_flat)


# --- land cover labels and classes


def _landcover_uint8_embedding() -> None:
    classes = torch.from_numpy(np.array([[10, 20, 30], [40, 50, 80]], dtype=np.uint8))  # WorldCover codes
    nn.Embedding(101, 8)(classes)


def _landcover_uint8_segmentation_targets() -> None:
    torch.manual_seed(0)
    labels = torch.from_numpy(np.random.default_rng(3).integers(0, 11, (1, 8, 8)).astype(np.uint8))
    logits = torch.randn(1, 11, 8, 8)
    F.cross_entropy(logits, labels)


# --- forcings, attention and recurrent nowcasting


def _forcing_time_lerp() -> None:
    toa_t0 = _field(channels=1)  # 6-hourly forcing kept fp32 in the data module
    toa_t1 = _field(bf16, channels=1)  # the next forcing slice, cast with the batch
    torch.lerp(toa_t0, toa_t1, 0.5)


def _sdpa_static_keys_fp32() -> None:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 6, 8).to(bf16)
    static_kv = torch.randn(1, 2, 10, 8)  # orography/soil-type embeddings cached once in fp32
    F.scaled_dot_product_attention(q, static_kv, static_kv)


def _sdpa_land_mask_from_numpy() -> None:
    torch.manual_seed(0)
    land = np.random.default_rng(4).random(6) > 0.5
    additive = torch.from_numpy(np.where(land[None, :], 0.0, -1e4))  # keys over the sea masked out
    q = torch.randn(1, 2, 6, 8).to(bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=additive)


def _station_gru_fp32_obs() -> None:
    torch.manual_seed(0)
    nowcaster = nn.GRU(5, 16, batch_first=True).to(bf16)
    obs = torch.randn(2, 12, 5)  # hourly station observations in fp32
    nowcaster(obs)


def _radar_input_groupnorm() -> None:
    torch.manual_seed(0)
    input_norm = nn.GroupNorm(2, 4).to(bf16)
    radar = torch.rand(1, 4, N_LAT, N_LON) * 60.0  # four past reflectivity frames in dBZ, fp32
    input_norm(radar)


def _precip_occurrence_bce() -> None:
    torch.manual_seed(0)
    logits = torch.randn(1, 1, N_LAT, N_LON).to(bf16)
    rain = (torch.rand(1, 1, N_LAT, N_LON) > 0.7).float()  # radar-derived rain/no-rain target
    F.binary_cross_entropy(torch.sigmoid(logits), rain)


# --- statistics, distributions and outputs


def _eof_eigh_bf16() -> None:
    torch.manual_seed(0)
    anomalies = torch.randn(30, 24).to(bf16)  # SST anomalies (time, grid points) from the bf16 pipeline
    cov = anomalies.T @ anomalies / (anomalies.shape[0] - 1)
    torch.linalg.eigh(cov)


def _precip_gamma_sample_bf16() -> None:
    torch.manual_seed(0)
    head = torch.randn(1, 2, N_LAT, N_LON).to(bf16)
    concentration, rate = F.softplus(head[:, 0]) + 1e-3, F.softplus(head[:, 1]) + 1e-3
    torch.distributions.Gamma(concentration, rate).sample()


def _dem_coarsen_avgpool_int16() -> None:
    rng = np.random.default_rng(5)
    dem = torch.from_numpy(rng.integers(0, 3000, (1, 1, 16, 16)).astype(np.int16))  # SRTM heights in metres
    F.avg_pool2d(dem, 4)


def _forecast_to_xarray_numpy() -> None:
    forecast = _field(bf16)
    _ = {"t2m": (("time", "channel", "lat", "lon"), forecast.numpy())}


CASES: dict[str, LiveCase] = {
    # --- packed int16 fields and their scale and offset
    # ERA5 2 m temperature read as packed int16 (scale_factor/add_offset never applied) into a bf16 conv encoder
    "era5-packed-int16-into-conv": case(_era5_int16_into_encoder, "integer_operand", "int16", "bf16", grade="correct",
                                        grade_at_freeze="correct"),
    # unpacking the int16 field in place with mul_ and add_ by scale_factor and add_offset
    "era5-unpack-in-place-int16": case(_era5_unpack_in_place, "result_cast", "f32", "int16", grade="correct",
                                       grade_at_freeze="correct"),
    # packing the fp32 forecast into the archive's int16 variable with torch.round(..., out=)
    "forecast-pack-round-out-int16": case(_forecast_packed_with_out, "indexed_write_dtype", "int16", "f32",
                                          cause=("out=",), grade="correct", grade_at_freeze="correct"),
    # --- satellite bands as uint16
    # Sentinel-2 uint16 digital numbers scaled to reflectance in place with div_(10000)
    "sentinel2-reflectance-div-in-place-uint16": case(_sentinel2_scale_in_place, "result_cast", "f32", "uint16",
                                                      grade="correct", grade_at_freeze="correct"),
    # raw uint16 band patches flattened into a bf16 Linear patch embedding
    "uint16-patches-linear-embedding": case(_uint16_patches_into_linear_embedding, "integer_operand", "uint16",
                                            "bf16", grade="correct", grade_at_freeze="correct"),
    # 13-band image normalised in fp32 fed to a bf16 Conv2d patch embedding
    "multispectral-patch-embed-fp32-bands": case(_patch_embed_conv_fp32_bands, "conv_weight_dtype", "f32", "bf16",
                                                 grade="correct", grade_at_freeze="correct"),
    # --- normalisation statistics and latitude weights from numpy
    # station normalisation mean/std computed in numpy (float64) make the inputs float64 for a bf16 Linear
    "station-stats-numpy-f64-into-linear": case(_stats_from_numpy_into_linear, "matmul_dtype", "f64", "bf16",
                                                grade="correct", grade_at_freeze="correct"),
    # latitude-weighted RMSE with cos(lat) weights from numpy (float64) contracted by tensordot with bf16 errors
    "lat-weighted-rmse-tensordot-f64": case(_lat_weighted_rmse_tensordot, "matmul_dtype", grade="correct",
                                            grade_at_freeze="correct"),
    # Gauss-Legendre quadrature weights from numpy's leggauss (float64) in an einsum with bf16 zonal modes
    "gauss-legendre-weights-einsum-f64": case(_gauss_legendre_quadrature_einsum, "matmul_dtype", "bf16", "f64",
                                              grade="correct", grade_at_freeze="correct"),
    # spherical-harmonic transform per zonal wavenumber: bf16 Legendre buffer bmm'ed with fp32 Fourier coefficients
    "sht-legendre-bmm-bf16-fp32": case(_legendre_bmm_per_wavenumber, "batched_matmul_dtype", "bf16", "f32",
                                       grade="correct", grade_at_freeze="correct"),
    # --- land-sea and cloud masks
    # ERA5's land-sea mask (a float land fraction) used directly as masked_fill's mask
    "lsm-fraction-masked-fill": case(_lsm_fraction_as_mask, "mask_dtype", "f32", grade="correct",
                                     grade_at_freeze="correct"),
    # the sea mask made as 1 - land from a bool land mask
    "sea-mask-one-minus-bool": case(_sea_mask_one_minus_bool, "mask_dtype", "bool", grade="correct",
                                    grade_at_freeze="correct"),
    # --- overflow and non-finite values in fp16
    # gaps in an fp16 mean-sea-level pressure field filled with 101325 Pa by new_full
    "msl-fill-101325-pa-f16": case(_surface_pressure_fill_f16, "half_overflow", "f16", grade="correct",
                                   grade_at_freeze="correct"),
    # an fp16 autoregressive step on unnormalised geopotential and pressure: the rollout loss overflows, clipping refuses
    "rollout-raw-units-f16-nonfinite-clip": case(_rollout_geopotential_f16_nonfinite, "nonfinite", grade="correct",
                                                 grade_at_freeze="correct"),
    # --- graph meshes on the sphere, regridding and tiling
    # grid-to-mesh aggregation: bf16 edge messages index_reduce_'d (mean) into fp32 mesh node features
    "grid2mesh-index-reduce-bf16-into-fp32": case(_grid2mesh_index_reduce, "indexed_write_dtype", "f32", "bf16",
                                                  grade="correct", grade_at_freeze="correct"),
    # stitching overlapping tiles: bf16 tile predictions accumulated into an fp32 canvas with index_put_
    "tile-stitch-index-put-accumulate": case(_tile_stitching_index_put, "indexed_write_dtype", "f32", "bf16",
                                             grade="correct", grade_at_freeze="correct"),
    # icosahedral mesh edge normals: cross product of bf16 sender positions with fp32 receiver positions
    "mesh-edge-normals-cross-bf16-fp32": case(_mesh_edge_normals_cross, "op_dtype", "bf16", "f32", grade="correct",
                                              grade_at_freeze="correct"),
    # station values extracted with torch.take at flat indices from a numpy int32 station table
    "station-take-int32-indices": case(_station_take_int32, "index_tensor_dtype", "int32", grade="correct",
                                       grade_at_freeze="correct"),
    # --- land cover labels and classes
    # ESA WorldCover class codes (uint8) looked up in an nn.Embedding
    "worldcover-uint8-embedding": case(_landcover_uint8_embedding, "index_tensor_dtype", "uint8", grade="correct",
                                       grade_at_freeze="correct"),
    # land-cover segmentation with the uint8 label raster as cross_entropy's target
    "landcover-uint8-ce-targets": case(_landcover_uint8_segmentation_targets, "target_dtype", "uint8",
                                       grade="correct", grade_at_freeze="correct"),
    # --- forcings, attention and recurrent nowcasting
    # time interpolation of forcings: fp32 slice lerp'ed toward the bf16 next slice
    "forcing-time-lerp-fp32-bf16": case(_forcing_time_lerp, "lerp_dtype", "f32", "bf16", grade="correct",
                                        grade_at_freeze="correct"),
    # bf16 queries attending over static surface embeddings cached in fp32
    "static-keys-fp32-sdpa": case(_sdpa_static_keys_fp32, "sdpa_dtype", "bf16", "f32", grade="correct",
                                  grade_at_freeze="correct"),
    # an additive land-only attention mask built with np.where (float64) given to bf16 SDPA
    "land-attn-mask-numpy-f64": case(_sdpa_land_mask_from_numpy, "attn_mask_dtype", "f64", "bf16", grade="correct",
                                     grade_at_freeze="correct"),
    # a bf16 GRU nowcaster fed fp32 station observations
    "station-gru-bf16-fp32-obs": case(_station_gru_fp32_obs, "rnn_dtype", "f32", "bf16", grade="correct",
                                      grade_at_freeze="correct"),
    # a bf16 input GroupNorm given fp32 radar reflectivity frames
    "radar-input-groupnorm-fp32": case(_radar_input_groupnorm, "norm_param_dtype", "f32", grade="correct",
                                       grade_at_freeze="correct"),
    # rain-occurrence BCE of bf16 probabilities against an fp32 radar-derived target
    "precip-occurrence-bce-bf16-fp32": case(_precip_occurrence_bce, "op_dtype", "f32", "bf16", grade="correct",
                                            grade_at_freeze="correct"),
    # --- statistics, distributions and outputs
    # EOF analysis of bf16 SST anomalies with linalg.eigh of their covariance
    "eof-eigh-bf16-covariance": case(_eof_eigh_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # precipitation amounts sampled from a Gamma head in bf16
    "precip-gamma-sample-bf16": case(_precip_gamma_sample_bf16, "no_kernel", "bf16", grade="correct",
                                     grade_at_freeze="correct"),
    # an int16 SRTM elevation model coarsened with avg_pool2d
    "dem-coarsen-avgpool-int16": case(_dem_coarsen_avgpool_int16, "integer_operand", "int16", grade="correct",
                                      grade_at_freeze="correct"),
    # the bf16 forecast handed to numpy to build an xarray dataset
    "forecast-bf16-to-xarray-numpy": case(_forecast_to_xarray_numpy, "numpy_dtype", "bf16", grade="correct",
                                          grade_at_freeze="correct"),
}
