"""Held-out live set 96: oceanography and ocean-forecasting models written by hand in low precision (NetCDF sea-surface
temperature grids with float64 lat/lon and fill values, NEMO land masks as int8/uint8/bool, tide harmonics with complex
amplitudes, Argo float profiles with ragged depth indices, currents as vector fields interpolated with grid_sample,
anomaly baselines from climatology, U-Net forecasters and graph models over ocean meshes under bf16/fp16 autocast).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen
at 161ed1a."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "161ed1a"

bf16, f16 = torch.bfloat16, torch.float16
_NY, _NX = 12, 16  # a small regional SST tile (0.25 degree)
_NC_FILL_F4 = 9.969209968386869e36  # netCDF4.default_fillvals["f4"]


def _seeded() -> None:
    torch.manual_seed(0)


def _lat_lon() -> tuple[np.ndarray, np.ndarray]:
    """The tile's coordinate variables as a NetCDF reader returns them: float64."""
    lat = np.linspace(30.0, 32.75, _NY)
    lon = np.linspace(-40.0, -36.25, _NX)
    return lat, lon


def _land_mask() -> np.ndarray:
    """True on land: a coast in the tile's south-west corner."""
    land = np.zeros((_NY, _NX), dtype=bool)
    land[:4, :5] = True
    land[:2, 5:7] = True
    return land


class _UNet(nn.Module):
    """A one-level U-Net SST forecaster: encoder, bottleneck, decoder concatenating the skip, head."""

    def __init__(self, in_ch: int = 2, ch: int = 8, out_ch: int = 1) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(in_ch, ch, 3, padding=1), nn.GELU())
        self.down = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.mid = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.GELU())
        self.up = nn.ConvTranspose2d(ch, ch, 2, stride=2)
        self.dec = nn.Sequential(nn.Conv2d(2 * ch, ch, 3, padding=1), nn.GELU())
        self.head = nn.Conv2d(ch, out_ch, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skip = self.enc(x)
        h = self.up(self.mid(self.down(skip)))
        return self.head(self.dec(torch.cat([h, skip], dim=1)))


# --- land masks, fill values and NetCDF coordinates

def _nemo_tmask_int8_masked_fill() -> None:
    _seeded()
    tmask = (~_land_mask()).astype(np.int8)[None]  # NEMO mesh_mask.nc: tmask is a byte (int8) variable, 1 on ocean
    sst = torch.randn(1, _NY, _NX, dtype=bf16)
    land = torch.from_numpy(1 - tmask)
    sst.masked_fill(land, 0.0)


def _coastal_buffer_max_pool_bool_land() -> None:
    land = torch.from_numpy(_land_mask())[None, None]
    coastal = F.max_pool2d(land, 3, stride=1, padding=1)  # dilate the land mask by one cell for a coastal buffer
    coastal & ~land


def _partial_conv_mask_update_uint8() -> None:
    valid = (~_land_mask()).astype(np.uint8)  # the L4 product's "mask" variable read as bytes
    valid[6:8, 9:12] = 0  # cloud gap
    mask = torch.from_numpy(valid)[None, None]
    ones = torch.ones(1, 1, 3, 3)
    with torch.no_grad():
        F.conv2d(mask, ones, padding=1)  # partial-convolution mask update: valid cells under each window


def _latlon_f64_coordinate_mlp_bf16() -> None:
    _seeded()
    lat, lon = _lat_lon()
    lat2d, lon2d = np.meshgrid(np.deg2rad(lat), np.deg2rad(lon), indexing="ij")
    coords = torch.from_numpy(np.stack([np.sin(lat2d), np.cos(lat2d), np.sin(lon2d), np.cos(lon2d)], -1))
    coord_mlp = nn.Sequential(nn.Linear(4, 16), nn.SiLU(), nn.Linear(16, 16)).to(bf16)
    coord_mlp(coords.reshape(-1, 4))


def _unet_input_cat_float_land_mask() -> None:
    _seeded()
    model = _UNet(in_ch=2).to(bf16).eval()
    sst_anom = torch.randn(1, 1, _NY, _NX, dtype=bf16)
    land = torch.from_numpy(_land_mask())[None, None]
    x = torch.cat([sst_anom, land.float()], dim=1)  # the land mask as a second input channel
    with torch.no_grad():
        model(x)


def _netcdf_default_fill_masked_fill_f16() -> None:
    _seeded()
    forecast = torch.randn(_NY, _NX, dtype=f16) + 18.0
    land = torch.from_numpy(_land_mask())
    forecast.masked_fill(land, _NC_FILL_F4)  # restore the NetCDF default _FillValue on land before writing


def _forecast_bf16_to_netcdf_variable() -> None:
    _seeded()
    model = _UNet(in_ch=1).to(bf16).eval()
    with torch.no_grad():
        forecast = model(torch.randn(1, 1, _NY, _NX, dtype=bf16))[0, 0]
    sst_var = np.empty((_NY, _NX), dtype=np.float32)  # stands for netCDF4's Variable: var[:] = data
    sst_var[:] = np.asarray(forecast)


# --- climatology and anomaly baselines

def _welford_climatology_zeros_like_count() -> None:
    _seeded()
    count = torch.zeros(_NY, _NX, dtype=torch.long)
    mean = torch.zeros_like(count)
    m2 = torch.zeros_like(count)
    for _ in range(3):
        sst = torch.randn(_NY, _NX) + 18.0
        count += 1
        delta = sst - mean
        mean += delta / count
        m2 += delta * (sst - mean)


def _daily_climatology_index_add_f64_sst() -> None:
    _seeded()
    sums = torch.zeros(366, _NY, _NX)
    counts = torch.zeros(366)
    daily_sst = np.random.default_rng(0).normal(18.0, 1.0, (10, _NY, _NX))  # xarray decoded the packed SST to float64
    doy = torch.arange(100, 110)
    sums.index_add_(0, doy, torch.from_numpy(daily_sst))
    counts.index_add_(0, doy, torch.ones(10))


def _running_climatology_lerp_f16_autocast() -> None:
    _seeded()
    model = _UNet(in_ch=1)
    running_mean = torch.zeros(1, 1, _NY, _NX)
    with torch.autocast("cpu", dtype=f16), torch.no_grad():
        forecast = model(torch.randn(1, 1, _NY, _NX))
        running_mean.lerp_(forecast, 1.0 / 365.0)


def _mhw_threshold_nanquantile_bf16() -> None:
    _seeded()
    window = torch.randn(31, _NY, _NX, dtype=bf16) + 18.0  # +-15 days around each day of year, cached in bf16
    window[:, torch.from_numpy(_land_mask())] = float("nan")
    torch.nanquantile(window, 0.9, dim=0)  # Hobday et al. marine-heatwave threshold


def _mhw_occurrence_bool_bce_target() -> None:
    _seeded()
    head = nn.Conv2d(4, 1, 1)
    features = torch.randn(2, 4, _NY, _NX)
    threshold = torch.full((_NY, _NX), 19.0)
    sst_next = torch.randn(2, 1, _NY, _NX) + 18.5
    F.binary_cross_entropy_with_logits(head(features), sst_next > threshold)


def _eddy_segmentation_f64_labels_cross_entropy() -> None:
    _seeded()
    labels = np.zeros((2, _NY, _NX))  # py-eddy-tracker contours rasterised with np.zeros: 1 cyclonic, 2 anticyclonic
    labels[0, 3:7, 4:9] = 1
    labels[1, 5:10, 8:13] = 2
    logits = _UNet(in_ch=1, out_ch=3)(torch.randn(2, 1, _NY, _NX))
    F.cross_entropy(logits, torch.from_numpy(labels))


def _sea_ice_class_weights_numpy_f64() -> None:
    _seeded()
    classes = np.array([0, 0, 0, 0, 0, 1, 2, 2, 3])  # open water, new ice, first-year, multi-year
    freq = np.bincount(classes, minlength=4) / len(classes)
    weight = torch.from_numpy(1.0 / freq)
    logits = torch.randn(9, 4, requires_grad=True)
    F.cross_entropy(logits, torch.from_numpy(classes), weight=weight)


def _probabilistic_sst_normal_nan_land() -> None:
    _seeded()
    sst = torch.randn(1, 1, _NY, _NX) + 18.0
    sst[..., torch.from_numpy(_land_mask())] = float("nan")  # xarray's mask_and_scale turned _FillValue into NaN
    head = nn.Conv2d(1, 2, 3, padding=1)
    loc, log_scale = head(sst).chunk(2, dim=1)
    torch.distributions.Normal(loc, F.softplus(log_scale) + 1e-3)


def _sst_spectrum_fft2_bf16() -> None:
    _seeded()
    model = _UNet(in_ch=1).to(bf16)
    forecast = model(torch.randn(1, 1, _NY, _NX, dtype=bf16))
    power = torch.fft.fft2(forecast).abs() ** 2  # spectral loss on the wavenumber power spectrum
    power.mean()


# --- Argo profiles: ragged levels and depth indices

def _argo_collocation_take_float_index() -> None:
    _seeded()
    lat, lon = _lat_lon()
    sst = torch.randn(_NY * _NX) + 18.0
    float_lat = torch.tensor([30.6, 31.9, 32.2], dtype=torch.float64)  # JULD/LATITUDE/LONGITUDE from the prof file
    float_lon = torch.tensor([-39.1, -37.7, -36.9], dtype=torch.float64)
    i = torch.floor((float_lat - lat[0]) / 0.25)
    j = torch.floor((float_lon - lon[0]) / 0.25)
    sst.take(i * _NX + j)


def _argo_padded_grid_float_level_index() -> None:
    _seeded()
    row_size = [5, 3, 4]  # CF contiguous ragged array: observations per profile
    pres = torch.tensor([5.0, 15.0, 25.0, 35.0, 45.0, 4.0, 16.0, 24.0, 6.0, 14.0, 26.0, 36.0])
    temp = torch.randn(12) + 15.0
    profile = torch.repeat_interleave(torch.arange(3), torch.tensor(row_size))
    level = torch.round(pres / 10.0)  # 10-dbar bins
    padded = torch.full((3, 6), float("nan"))
    padded[profile, level] = temp


def _mld_threshold_argmax_bool() -> None:
    _seeded()
    depth = torch.arange(0.0, 200.0, 10.0)
    temp = 20.0 - 0.02 * depth + 0.05 * torch.randn(4, 20)
    below = (temp[:, 1:2] - temp).abs() > 0.2  # de Boyer Montegut: 0.2 degC from the 10 m value
    first = below.argmax(dim=1)
    depth[first]


def _argo_gru_bf16_padded_fp32_profiles() -> None:
    _seeded()
    profiles = [torch.randn(n, 2) for n in (7, 4, 5)]  # (temperature, salinity) per level, normalised in fp32
    padded = nn.utils.rnn.pad_sequence(profiles, batch_first=True)
    encoder = nn.GRU(2, 16, batch_first=True).to(bf16)
    encoder(padded)


def _argo_mha_float_key_padding_mask() -> None:
    _seeded()
    lengths = torch.tensor([7, 4, 5])
    levels = torch.arange(7)
    key_padding = torch.zeros(3, 7).masked_fill(levels[None] >= lengths[:, None], float("-inf"))
    attn = nn.MultiheadAttention(16, 4, batch_first=True).to(bf16)
    x = torch.randn(3, 7, 16, dtype=bf16)
    attn(x, x, x, key_padding_mask=key_padding)


def _vertical_eof_bmm_fp32_modes() -> None:
    _seeded()
    profiles = torch.randn(3, 1, 20, dtype=bf16)  # interpolated to 20 standard depths by the bf16 encoder
    anomalies = torch.randn(3, 50, 20)
    _, _, vh = torch.linalg.svd(anomalies, full_matrices=False)  # per-region vertical EOFs, fp32
    modes = vh[:, :4].transpose(1, 2)
    torch.bmm(profiles, modes)


# --- tides: harmonic constituents with complex amplitudes

def _tide_phasor_c64_times_c128_amplitudes() -> None:
    speeds_deg_per_hour = torch.tensor([28.984104, 30.0, 15.041069, 13.943036])  # M2, S2, K1, O1
    omega = torch.deg2rad(speeds_deg_per_hour)
    t = torch.arange(0.0, 48.0)
    amplitude = np.array([0.52, 0.18, 0.07, 0.05])  # metres, from the tidal atlas
    greenwich_phase = np.deg2rad(np.array([355.0, 21.0, 190.0, 180.0]))
    coefficients = torch.from_numpy(amplitude * np.exp(-1j * greenwich_phase))  # complex128
    phasor = torch.exp(1j * omega[None] * t[:, None])  # complex64
    sea_level = (phasor @ coefficients).real
    sea_level.max()


def _tide_phase_f16_exp_complex32() -> None:
    greenwich_phase = torch.tensor([355.0, 21.0, 190.0, 180.0], dtype=f16)  # phase lags cached as fp16 in the atlas
    amplitude = torch.tensor([0.52, 0.18, 0.07, 0.05])
    amplitude * torch.exp(-1j * torch.deg2rad(greenwich_phase))


# --- currents as vector fields

def _particle_advection_grid_sample_bf16_currents() -> None:
    _seeded()
    model = _UNet(in_ch=1, out_ch=2).to(bf16).eval()  # predicts surface (u, v)
    with torch.no_grad():
        uv = model(torch.randn(1, 1, _NY, _NX, dtype=bf16))
    particles = torch.rand(1, 32, 1, 2) * 2 - 1  # drifter positions normalised to [-1, 1], fp32
    F.grid_sample(uv, particles, align_corners=True)


# --- partial convolutions for gap filling

class _PartialConv(nn.Conv2d):
    """Liu et al. partial convolution: convolve the valid part only and renormalise by the window's valid fraction."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        with torch.no_grad():
            kernel = torch.ones(1, 1, *self.kernel_size, dtype=x.dtype)
            valid = F.conv2d(mask, kernel, padding=self.padding)
        ratio = self.kernel_size[0] * self.kernel_size[1] / valid.clamp(min=1.0)
        out = F.conv2d(x * mask, self.weight.to(x.dtype), self.bias, padding=self.padding)
        return out * ratio, (valid > 0).to(x.dtype)


def _partial_conv_bias_uncast() -> None:
    _seeded()
    layer = _PartialConv(1, 4, 3, padding=1)  # kept fp32: excluded from the model's bf16 cast
    sst = torch.randn(1, 1, _NY, _NX, dtype=bf16)
    mask = torch.from_numpy(~_land_mask()).to(bf16)[None, None]
    layer(sst, mask)


# --- graph models over unstructured ocean meshes

def _mesh_edges() -> tuple[torch.Tensor, torch.Tensor]:
    src = torch.tensor([0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 0])
    dst = torch.tensor([1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 0, 5])
    return src, dst


def _mesh_laplacian_numpy_f64_sparse_mm() -> None:
    _seeded()
    src, dst = _mesh_edges()
    degree = np.bincount(src.numpy(), minlength=6).astype(np.float64)
    weights = -1.0 / np.sqrt(degree[src.numpy()] * degree[dst.numpy()])  # normalised Laplacian, as scipy.sparse gives
    indices = torch.cat([torch.stack([src, dst]), torch.arange(6).repeat(2, 1)], dim=1)
    values = torch.from_numpy(np.concatenate([weights, np.ones(6)]))
    laplacian = torch.sparse_coo_tensor(indices, values, (6, 6)).coalesce()
    node_states = torch.randn(6, 8, dtype=bf16)
    torch.sparse.mm(laplacian, node_states)


def _mesh_gnn_autocast_index_add_fp32_aggregate() -> None:
    _seeded()
    src, dst = _mesh_edges()
    message_mlp = nn.Linear(2 * 8, 8)
    nodes = torch.randn(6, 8)
    with torch.autocast("cpu", dtype=bf16):
        messages = message_mlp(torch.cat([nodes[src], nodes[dst]], dim=-1))
        aggregate = torch.zeros(6, 8)
        aggregate.index_add_(0, dst, messages)


def _forcing_cross_attention_sdpa_fp32_keys() -> None:
    _seeded()
    ocean_tokens = torch.randn(1, 4, 6, 8, dtype=bf16)  # (batch, heads, mesh nodes, head dim) from the bf16 processor
    forcing_encoder = nn.Linear(5, 2 * 4 * 8)  # ERA5 wind stress / heat flux encoder kept fp32
    forcing = forcing_encoder(torch.randn(1, 10, 5)).view(1, 10, 2, 4, 8).permute(2, 0, 3, 1, 4)
    F.scaled_dot_product_attention(ocean_tokens, forcing[0], forcing[1])


def _area_weight_gradient_hook_f64() -> None:
    _seeded()
    lat, _ = _lat_lon()
    area = torch.from_numpy(np.cos(np.deg2rad(lat)))[:, None]  # float64 from numpy
    model = _UNet(in_ch=1).to(bf16)
    forecast = model(torch.randn(1, 1, _NY, _NX, dtype=bf16))
    forecast.register_hook(lambda grad: grad * area / area.mean())
    F.mse_loss(forecast, torch.randn(1, 1, _NY, _NX, dtype=bf16)).backward()


CASES: dict[str, LiveCase] = {
    # NEMO's int8 tmask turned into a land mask as 1 - tmask, given to masked_fill on bf16 SST
    "nemo-tmask-int8-one-minus-masked-fill": case(_nemo_tmask_int8_masked_fill, "mask_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # a coastal buffer made by max_pool2d dilation of the bool land mask
    "coastal-buffer-max-pool-bool-land": case(_coastal_buffer_max_pool_bool_land, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # partial-convolution mask update: the L4 product's uint8 valid mask convolved with an fp32 ones kernel
    "partial-conv-mask-update-uint8-valid": case(_partial_conv_mask_update_uint8, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # sin/cos of the NetCDF float64 lat/lon meshgrid into a bf16 coordinate MLP
    "latlon-f64-coordinate-mlp-bf16": case(_latlon_f64_coordinate_mlp_bf16, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 SST anomalies concatenated with land.float(): the input becomes fp32 for the bf16 U-Net's first conv
    "unet-input-cat-float-land-mask": case(_unet_input_cat_float_land_mask, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # NetCDF's default float _FillValue (9.97e36) written into land cells of an fp16 forecast with masked_fill
    "netcdf-default-fill-masked-fill-f16": case(_netcdf_default_fill_masked_fill_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 forecast assigned into a NetCDF variable (np.asarray of the tensor)
    "forecast-bf16-netcdf-variable-asarray": case(_forecast_bf16_to_netcdf_variable, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Welford climatology whose mean and M2 are zeros_like of the int64 observation counter
    "welford-climatology-zeros-like-int64-count": case(_welford_climatology_zeros_like_count, "result_cast", "f32",
                                                       "int64",
        grade="correct", grade_at_freeze="correct"),
    # daily climatology sums: float64 SST from xarray index_add_'ed by day of year into an fp32 buffer
    "daily-climatology-index-add-f64-sst": case(_daily_climatology_index_add_f64_sst, "indexed_write_dtype", "f32",
                                                "f64",
        grade="correct", grade_at_freeze="correct"),
    # running climatology of forecasts: an fp16-autocast U-Net output lerp_'ed into an fp32 running mean
    "running-climatology-lerp-f16-autocast": case(_running_climatology_lerp_f16_autocast, "lerp_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # marine-heatwave 90th-percentile threshold by nanquantile over a bf16 SST window with NaN land
    "mhw-threshold-nanquantile-bf16-window": case(_mhw_threshold_nanquantile_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # marine-heatwave occurrence (sst > threshold, bool) as the BCE-with-logits target
    "mhw-occurrence-bool-bce-target": case(_mhw_occurrence_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # eddy segmentation whose rasterised label map is float64 from np.zeros, as cross_entropy's target
    "eddy-segmentation-f64-label-map-ce": case(_eddy_segmentation_f64_labels_cross_entropy, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # sea-ice stage classes weighted by numpy inverse frequencies (float64) in cross_entropy with fp32 logits
    "sea-ice-class-weights-numpy-f64": case(_sea_ice_class_weights_numpy_f64, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a Gaussian SST head fed fields whose land cells are NaN from xarray's mask_and_scale: Normal refuses loc
    "gaussian-sst-head-nan-land-normal": case(_probabilistic_sst_normal_nan_land, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # spectral loss: fft2 of the bf16 U-Net forecast for its wavenumber power spectrum
    "sst-spectral-loss-fft2-bf16": case(_sst_spectrum_fft2_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Argo-to-grid collocation: the flat cell index from floor of float64 positions, used with take
    "argo-collocation-take-f64-cell-index": case(_argo_collocation_take_float_index, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a CF ragged Argo file scattered into a padded [profile, level] array with rounded (float) 10-dbar level bins
    "argo-ragged-padded-float-level-bins": case(_argo_padded_grid_float_level_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # mixed-layer depth by the 0.2 degC threshold: argmax over the bool exceedance along depth
    "mld-threshold-argmax-bool-exceedance": case(_mld_threshold_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # ragged Argo profiles padded with pad_sequence (fp32) into a bf16 GRU profile encoder
    "argo-gru-bf16-padded-fp32-profiles": case(_argo_gru_bf16_padded_fp32_profiles, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Argo level padding given to a bf16 MultiheadAttention as an fp32 -inf key_padding_mask
    "argo-levels-fp32-key-padding-mask-mha": case(_argo_mha_float_key_padding_mask, "attn_mask_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 standard-depth profiles projected on fp32 per-region vertical EOFs with torch.bmm
    "vertical-eof-bmm-fp32-modes": case(_vertical_eof_bmm_fp32_modes, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # tide prediction: complex64 constituent phasors @ complex128 amplitudes built with numpy
    "tide-phasor-c64-at-c128-amplitudes": case(_tide_phasor_c64_times_c128_amplitudes, "matmul_dtype", "complex128",
                                               "complex64",
        grade="correct", grade_at_freeze="correct"),
    # fp16 Greenwich phase lags turned complex by exp(-1j * phase): complex32 has no exp kernel
    "tide-phase-f16-exp-complex32": case(_tide_phase_f16_exp_complex32, "no_kernel", "complex32",
        grade="correct", grade_at_freeze="correct"),
    # Lagrangian drifter advection: bf16 (u, v) currents sampled with grid_sample at fp32 positions
    "drifter-advection-grid-sample-bf16-currents": case(_particle_advection_grid_sample_bf16_currents, "op_dtype",
                                                        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a partial convolution kept fp32 casting its weight to the bf16 input but passing self.bias uncast
    "partial-conv-weight-cast-bias-fp32": case(_partial_conv_bias_uncast, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ocean-mesh normalised Laplacian with float64 numpy values, sparse.mm with bf16 node states
    "mesh-laplacian-f64-sparse-mm-bf16": case(_mesh_laplacian_numpy_f64_sparse_mm, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ocean-mesh GNN under bf16 autocast: edge messages index_add_'ed into an fp32 zeros aggregate
    "mesh-gnn-autocast-index-add-fp32-aggregate": case(_mesh_gnn_autocast_index_add_fp32_aggregate,
                                                       "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 ocean mesh tokens cross-attending to keys/values from an fp32 atmospheric forcing encoder
    "forcing-cross-attention-sdpa-fp32-kv": case(_forcing_cross_attention_sdpa_fp32_keys, "sdpa_dtype", "bf16",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook weighting the bf16 forecast's gradient by float64 cos(lat) area weights from numpy
    "area-weight-gradient-hook-f64": case(_area_weight_gradient_hook_f64, "loss_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
}
