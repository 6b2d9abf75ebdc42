"""Held-out live set 184: sea-surface temperature from satellites and buoys written by hand in low precision (GHRSST L2P
swaths packed as int16 counts with fp16-cast bit flags and int8 platform codes, uint8 sea-ice percentages,
big-endian netCDF variables, buoy records from pandas in float64 with datetime64 times, optimal interpolation and
EOF analysis by linear algebra, bias correction by least squares, fp16/bf16 gap-filling and super-resolution
networks). Defects planted by a helper who never read the rules, written before castwise ran (committed after the
set's deadline and after the freeze had been cut, the rules not having seen them) and graded once with the rules
frozen at 7c102806."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "7c102806"

bf16, f16 = torch.bfloat16, torch.float16


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(184)


def _l2p_counts(size: int = 8) -> torch.Tensor:
    """A GHRSST L2P sea_surface_temperature tile as stored: int16 counts (scale 0.01 K, offset 273.15 K)."""
    return torch.randint(1000, 3000, (1, 1, size, size), dtype=torch.int16, generator=_gen())


def _buoys() -> pd.DataFrame:
    """Drifting and moored buoy records as pandas reads them: float64 values, datetime64 times."""
    return pd.DataFrame({
        "time": pd.to_datetime(["2024-06-01T00:00", "2024-06-01T06:00", "2024-06-01T12:00", "2024-06-01T18:00"]),
        "lat": [10.2, -3.5, 45.1, 30.0], "lon": [-150.3, 20.8, -30.2, 140.6],
        "sst": [28.4, 25.1, 16.2, 22.9], "platform": [0, 1, 0, 2]})


def _int16_counts_into_conv() -> None:
    denoiser = nn.Conv2d(1, 8, 3, padding=1)
    denoiser(_l2p_counts())


def _l2_flags_half_bit_test() -> None:
    l2_flags = torch.tensor([0, 4, 6, 2, 12], dtype=torch.int16).half()  # the whole granule cast to fp16 on load
    cloudy = (l2_flags & 4) > 0  # noqa: F841


def _ocean_from_negated_land() -> None:
    land = torch.rand(8, 8, generator=_gen()) > 0.7
    ocean = -land  # noqa: F841


def _eof_covariance_eigh_half() -> None:
    anomalies = torch.randn(24, 16, generator=_gen()).half()
    cov = anomalies.T @ anomalies / 23
    torch.linalg.eigh(cov)


def _buoy_bias_correction_lstsq() -> None:
    buoys = _buoys()
    sat_sst = torch.tensor([28.9, 25.0, 16.8, 23.4])
    design = torch.stack([sat_sst, torch.ones(4)], dim=1)
    in_situ = torch.from_numpy(buoys["sst"].values)[:, None]
    torch.linalg.lstsq(design, in_situ)


def _diurnal_fourier_features_int64_hours() -> None:
    hours = torch.arange(0, 24, 6)[:, None]  # int64 hours of day
    freqs = 2 * torch.pi / torch.tensor([[24.0, 12.0]])
    torch.sin(hours @ freqs)


def _ice_fraction_avg_pool_uint8() -> None:
    ice = torch.randint(0, 101, (1, 1, 8, 8), dtype=torch.uint8, generator=_gen())  # OSI SAF sea-ice percent
    F.avg_pool2d(ice, 4)


def _half_gapfill_groupnorm_float_input() -> None:
    block = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.GroupNorm(2, 4)).half()
    block[1](torch.randn(1, 4, 8, 8, generator=_gen()))


def _cloud_mask_bce_numpy_target() -> None:
    prob = torch.rand(16, generator=_gen())
    labels = torch.from_numpy((np.arange(16) % 3 == 0).astype(np.float64))  # hand-labelled cloud flags
    F.binary_cross_entropy(prob, labels)


def _phenomena_multilabel_margin_int32() -> None:
    scores = torch.randn(2, 4, generator=_gen())  # upwelling, front, eddy, filament per tile
    present = torch.from_numpy(np.array([[0, 2, -1, -1], [1, -1, -1, -1]], dtype=np.int32))
    F.multilabel_margin_loss(scores, present)


def _buoy_to_grid_scatter_reduce_float64() -> None:
    buoys = _buoys()
    cell = torch.tensor([3, 1, 3, 0])
    grid = torch.zeros(5)
    grid.scatter_reduce_(0, cell, torch.from_numpy(buoys["sst"].values), "mean", include_self=False)


def _swath_binning_bincount_float_cells() -> None:
    lat = torch.tensor([10.2, -3.5, 45.1, 30.0])
    lon = torch.tensor([-150.3, 20.8, -30.2, 140.6])
    cell = torch.floor((lat + 90) / 30) * 12 + torch.floor((lon + 180) / 30)
    torch.bincount(cell, minlength=72)


def _buoy_times_to_tensor() -> None:
    buoys = _buoys()
    torch.from_numpy(buoys["time"].values)


def _big_endian_netcdf_variable() -> None:
    raw = np.frombuffer(np.arange(16, dtype=">f4").tobytes(), dtype=">f4")  # netCDF-3 stores big-endian
    torch.from_numpy(raw.reshape(4, 4))


def _halo_pad_fill_value_half() -> None:
    tile = torch.randn(1, 1, 8, 8, generator=_gen()).half()
    F.pad(tile, (2, 2, 2, 2), value=1e20)  # the CF _FillValue of the model output


def _buoy_series_conv1d_float64() -> None:
    buoys = _buoys()
    series = torch.from_numpy(buoys[["sst", "lat", "lon"]].values.T.copy())[None]
    nn.Conv1d(3, 8, 3, padding=1)(series)


def _superres_convtranspose_bf16() -> None:
    up = nn.ConvTranspose2d(1, 1, 2, stride=2).to(bf16)
    up(torch.randn(1, 1, 8, 8, generator=_gen()))


def _valid_obs_int32_attention_mask() -> None:
    q = k = v = torch.randn(1, 2, 4, 8, generator=_gen())
    valid = torch.from_numpy(np.tril(np.ones((4, 4), dtype=np.int32)))
    F.scaled_dot_product_attention(q, k, v, attn_mask=valid)


def _platform_code_int8_embedding() -> None:
    platform = torch.tensor([0, 1, 0, 2], dtype=torch.int8)  # GHRSST-style byte platform code
    nn.Embedding(3, 4)(platform)


def _day_night_lerp_float64_night() -> None:
    day = torch.tensor([28.9, 25.0, 16.8, 23.4])
    night = torch.from_numpy(_buoys()["sst"].values)
    torch.lerp(day, night, 0.5)


def _repack_l2p_div_out_int16() -> None:
    sst_kelvin = torch.tensor([301.5, 298.2, 289.4])
    packed = torch.empty(3, dtype=torch.int16)
    torch.div(sst_kelvin - 273.15, 0.01, out=packed)


def _oi_weights_pinv_half() -> None:
    dist = torch.cdist(torch.rand(5, 2, generator=_gen()), torch.rand(5, 2, generator=_gen()))
    cov = torch.exp(-dist / 0.3).half()
    torch.linalg.pinv(cov)


def _meta_initialised_forecaster() -> None:
    with torch.device("meta"):
        head = nn.Linear(16, 1)
    head(torch.randn(4, 16, generator=_gen()))


def _eof_reconstruction_einsum_float64_pcs() -> None:
    pcs = torch.from_numpy(np.random.default_rng(184).standard_normal((6, 3)))
    eofs = torch.randn(3, 8, 8, generator=_gen())
    torch.einsum("tk,kxy->txy", pcs, eofs)


def _argo_depth_unpool_int32_indices() -> None:
    pooled = torch.randn(1, 1, 2, 2, generator=_gen())
    where = torch.from_numpy(np.array([[[[0, 3], [9, 14]]]], dtype=np.int32))
    F.max_unpool2d(pooled, where, 2)


def _huber_backward_float64_buoy_targets() -> None:
    pred = torch.randn(4, generator=_gen(), requires_grad=True)
    target = torch.from_numpy(_buoys()["sst"].values)
    F.huber_loss(pred, target).backward()


def _buoy_lstm_bf16_float_series() -> None:
    model = nn.LSTM(3, 8, batch_first=True).to(bf16)
    model(torch.randn(2, 24, 3, generator=_gen()))


def _per_buoy_calibration_baddbmm() -> None:
    offset = torch.zeros(4, 1, 1)
    x = torch.randn(4, 1, 2, generator=_gen()).to(bf16)
    gain = torch.randn(4, 2, 1, generator=_gen())
    torch.baddbmm(offset, x, gain)


def _single_buoy_std_normal_scale() -> None:
    group = torch.tensor([22.9])  # only one buoy in this cell
    mean = group.mean().expand(2)
    spread = group.std().expand(2)
    torch.distributions.Normal(mean, spread)


def _bf16_mha_float_gap_mask() -> None:
    mha = nn.MultiheadAttention(8, 2, batch_first=True).to(bf16)
    x = torch.randn(1, 5, 8, generator=_gen()).to(bf16)
    gaps = torch.zeros(5, 5)
    gaps[:, 3] = float("-inf")
    mha(x, x, x, attn_mask=gaps)


CASES: dict[str, LiveCase] = {
    # raw int16 L2P SST counts (scale_factor never applied) go straight into a float denoising Conv2d
    "l2p-int16-counts-into-conv": case(_int16_counts_into_conv, "integer_operand", "int16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the L2 flags variable was cast to fp16 with the rest of the granule, then bit-tested for the cloud bit
    "l2-flags-half-bit-test-cloud": case(_l2_flags_half_bit_test, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the ocean mask is taken as the negation of the bool land mask
    "ocean-mask-as-minus-bool-land": case(_ocean_from_negated_land, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # EOFs of SST anomalies from eigh of a covariance computed in fp16
    "eof-covariance-eigh-half": case(_eof_covariance_eigh_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # satellite-minus-buoy bias correction by lstsq: float32 design matrix, float64 buoy SST from pandas
    "buoy-bias-correction-lstsq-float64": case(_buoy_bias_correction_lstsq, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # diurnal-warming Fourier features: int64 hours of day matmul'ed with float32 frequencies
    "diurnal-fourier-int64-hours-matmul": case(_diurnal_fourier_features_int64_hours, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # OSI SAF sea-ice percent (uint8) coarsened to the SST grid with avg_pool2d
    "sea-ice-percent-uint8-avg-pool": case(_ice_fraction_avg_pool_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 gap-filling block's GroupNorm receives float32 features
    "gapfill-half-groupnorm-float-features": case(_half_gapfill_groupnorm_float_input, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # cloud-detection probabilities against hand-labelled cloud flags that numpy made float64
    "cloud-mask-bce-numpy-float64-labels": case(_cloud_mask_bce_numpy_target, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # which ocean phenomena a tile shows, as numpy int32 label lists for multilabel_margin_loss
    "phenomena-multilabel-margin-int32": case(_phenomena_multilabel_margin_int32, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # float64 buoy SST from pandas averaged onto a float32 grid with scatter_reduce_
    "buoy-to-grid-scatter-reduce-float64": case(_buoy_to_grid_scatter_reduce_float64, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # L3 binning of swath pixels: grid cell numbers from floor() stay float and go to bincount
    "swath-binning-bincount-float-cells": case(_swath_binning_bincount_float_cells, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # buoy observation times (datetime64 from pandas) turned into a tensor
    "buoy-datetime64-times-from-numpy": case(_buoy_times_to_tensor, "numpy_dtype", cause=("datetime64",),
        grade="correct", grade_at_freeze="correct"),
    # a netCDF-3 variable read as raw big-endian float32 bytes handed to torch.from_numpy
    "netcdf3-big-endian-from-numpy": case(_big_endian_netcdf_variable, "numpy_dtype", cause=("byte order",),
        grade="correct", grade_at_freeze="correct"),
    # an fp16 SST tile padded with a halo of the model output's _FillValue 1e20
    "halo-pad-fill-value-1e20-half": case(_halo_pad_fill_value_half, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a moored buoy's float64 pandas series (SST, lat, lon) into a float32 Conv1d
    "buoy-series-conv1d-float64": case(_buoy_series_conv1d_float64, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a super-resolution ConvTranspose2d cast to bf16 receives the float32 coarse SST
    "superres-convtranspose-bf16-float-input": case(_superres_convtranspose_bf16, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a valid-observation attention mask built with numpy int32 ones
    "valid-obs-int32-attention-mask": case(_valid_obs_int32_attention_mask, "mask_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # int8 platform-type codes from the L2P file index a platform embedding
    "platform-code-int8-embedding": case(_platform_code_int8_embedding, "index_tensor_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # a day/night SST blend by lerp: float32 day pass, float64 night values from pandas
    "day-night-lerp-float64-night": case(_day_night_lerp_float64_night, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # re-packing SST into L2P int16 counts with torch.div(..., out=int16 buffer)
    "repack-l2p-div-out-int16": case(_repack_l2p_div_out_int16, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # optimal-interpolation weights from the pseudo-inverse of an fp16 covariance
    "oi-weights-pinv-half-covariance": case(_oi_weights_pinv_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the forecast head was built under torch.device("meta") for fast init and never materialised
    "meta-initialised-forecast-head": case(_meta_initialised_forecaster, "device_mismatch",
        grade="correct", grade_at_freeze="correct"),
    # SST reconstructed from float64 principal components (numpy) and float32 EOF maps with einsum
    "eof-reconstruction-einsum-float64-pcs": case(_eof_reconstruction_einsum_float64_pcs, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a profile decoder's max_unpool2d given argmax indices saved by numpy as int32
    "profile-unpool-int32-indices": case(_argo_depth_unpool_int32_indices, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # Huber loss of float32 predictions against float64 buoy SST, failing in backward
    "huber-backward-float64-buoy-targets": case(_huber_backward_float64_buoy_targets, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 LSTM over hourly buoy series is fed the float32 series
    "buoy-lstm-bf16-float-series": case(_buoy_lstm_bf16_float_series, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-buoy linear calibration with baddbmm: bf16 inputs, float32 offsets and gains
    "per-buoy-calibration-baddbmm-bf16": case(_per_buoy_calibration_baddbmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a cell's SST spread from std() of a single buoy (NaN) used as a Normal's scale
    "single-buoy-std-normal-scale-nan": case(_single_buoy_std_normal_scale, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 MultiheadAttention over SST patches given a float32 -inf mask for cloud gaps
    "bf16-mha-float32-cloud-gap-mask": case(_bf16_mha_float_gap_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
