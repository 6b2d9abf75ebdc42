"""Held-out live set 135: agriculture and plant phenotyping written by hand in low precision (multispectral uint16
drone imagery from MicaSense and DJI P4 Multispectral captures, calibration panels and band alignment, vegetation
indices such as NDVI, EVI and excess green computed in fp16, int64 plot ids and pandas field books, bool soil masks,
bf16 plant/soil segmentation U-Nets, per-plot pooling, temporal models over flight dates, yield regression against
float64 targets from pandas), the situations set 87 did not have. Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at b21193f2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b21193f2"

bf16, f16 = torch.bfloat16, torch.float16
_H = _W = 48
_BANDS = ("blue", "green", "red", "red_edge", "nir")  # MicaSense RedEdge-MX band order


def _seeded() -> None:
    torch.manual_seed(0)


def _raw_bands(seed: int = 0, bands: int = 5) -> torch.Tensor:
    """A MicaSense capture as tifffile reads it: one uint16 digital-number image per band, stacked (C, H, W)."""
    rng = np.random.default_rng(seed)
    dn = rng.integers(4000, 30000, size=(bands, _H, _W), dtype=np.uint16)
    dn[-1, :, : _W // 2] += 12000  # NIR brighter over the crop half of the tile
    return torch.from_numpy(dn)


def _reflectance(dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Reflectance in [0, 1] for the same capture (1, C, H, W) after panel calibration."""
    return (_raw_bands().float() / 65535.0)[None].to(dtype)


def _ndvi(reflectance: torch.Tensor) -> torch.Tensor:
    red, nir = reflectance[:, 2], reflectance[:, 4]
    return (nir - red) / (nir + red + 1e-3)


def _soil_mask() -> torch.Tensor:
    """Bare soil by excess green (ExG = 2g - r - b) below a threshold: bool (H, W)."""
    refl = _reflectance()[0]
    exg = 2 * refl[1] - refl[2] - refl[0]
    return exg < exg.median()


def _plot_raster() -> torch.Tensor:
    """The trial's plot id raster (int64, 0 = alley) burnt from the plot shapefile: 2 ranges x 3 rows of plots."""
    raster = torch.zeros(_H, _W, dtype=torch.long)
    for r, top in enumerate((2, 26)):
        for c, left in enumerate((2, 18, 34)):
            raster[top:top + 20, left:left + 12] = 101 + 100 * r + c
    return raster


def _field_book() -> pd.DataFrame:
    """The trial's field book as pandas reads it: yields in t/ha (float64), one row per plot."""
    return pd.DataFrame({
        "plot": [101, 102, 103, 201, 202, 203],
        "entry": [12.0, 7.0, 3.0, 7.0, 12.0, 3.0],
        "ndvi_mean": [0.71, 0.64, 0.58, 0.69, 0.73, 0.55],
        "yield_t_ha": [8.4, 7.1, 6.2, 7.9, 8.8, 5.9],
    })


def _tiny_unet(in_channels: int = 5, out_channels: int = 1) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(in_channels, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, out_channels, 1),
    )


# --- raw uint16 captures and calibration


def _calibration_panel_median_uint16() -> None:
    nir = _raw_bands(seed=3)[4]  # the pre-flight capture of the calibration panel
    panel_dn = nir[16:32, 16:32].median()  # the panel's ROI, median digital number
    panel_reflectance = 0.49  # from the panel's calibration sheet for the NIR band
    (panel_reflectance / panel_dn) * nir.float()


def _orthomosaic_tile_reflect_pad_uint16() -> None:
    tile = _raw_bands()[None]  # a 5-band tile cut from the uint16 orthomosaic
    F.pad(tile, (16, 16, 16, 16), mode="reflect")  # overlap margin for sliding-window inference


def _p4m_rgb_uint8_cat_uint16_bands() -> None:
    rgb = torch.from_numpy(np.full((3, _H, _W), 128, dtype=np.uint8))  # the P4 Multispectral's RGB JPEG
    bands = _raw_bands()  # its five uint16 TIFF bands
    torch.cat([rgb, bands], dim=0)


# --- soil masks, plot ids and the field book


def _soil_fraction_mean_bool_per_plot() -> None:
    soil = _soil_mask()
    raster = _plot_raster()
    plots = torch.stack([soil[raster == pid].reshape(20, 12) for pid in (101, 102, 103)])
    plots.mean(dim=(1, 2))  # bare-soil fraction per plot for the emergence score


def _soil_mask_erosion_by_negation() -> None:
    soil = _soil_mask()[None, None]
    -F.max_pool2d(-soil, 3, stride=1, padding=1)  # erosion as -maxpool(-mask)


def _soil_mask_resized_bilinear_masked_fill() -> None:
    _seeded()
    loss_map = torch.rand(1, 1, _H // 2, _W // 2)  # per-pixel loss at the U-Net's output resolution
    soil = F.interpolate(_soil_mask()[None, None].float(), size=loss_map.shape[-2:], mode="bilinear")
    loss_map.masked_fill(soil, 0.0).mean()  # ignore bare soil in the loss


def _plot_ids_range_true_divide_in_place() -> None:
    plot_ids = torch.tensor(_field_book()["plot"].to_numpy())  # 101 ... 203, int64
    range_ids = plot_ids.clone()
    range_ids /= 100  # the range number is the plot id's hundreds
    range_ids.floor_()


def _plant_soil_cross_entropy_bool_target() -> None:
    _seeded()
    unet = _tiny_unet(out_channels=2)
    logits = unet(_reflectance())
    target = ~_soil_mask()[None]  # plant = not soil
    F.cross_entropy(logits, target)


def _entry_ids_pandas_float64_embedding() -> None:
    _seeded()
    book = _field_book()
    book.loc[len(book)] = [999, np.nan, np.nan, np.nan]  # a border plot with no entry, dropped below
    book = book.dropna()
    entries = torch.tensor(book["entry"].to_numpy())  # float64: the column held NaN
    genotype = nn.Embedding(16, 8)
    genotype(entries)


def _soil_mask_box_filter_conv2d() -> None:
    soil = _soil_mask()[None, None]
    box = torch.ones(1, 1, 5, 5) / 25
    F.conv2d(soil, box, padding=2)  # local soil fraction in a 5 x 5 window


def _plot_ids_nullable_int64_as_tensor() -> None:
    book = pd.DataFrame({"plot": pd.array([101, 102, None, 201], dtype="Int64"),  # numpy_nullable backend
                         "yield_t_ha": [8.4, 7.1, 6.5, 7.9]})
    torch.as_tensor(book["plot"].values)


# --- vegetation indices in fp16


def _ndvi_f16_concat_bf16_bands_unet_stem() -> None:
    _seeded()
    unet = _tiny_unet(in_channels=6).to(bf16)
    refl = _reflectance(bf16)
    ndvi = _ndvi(_reflectance(f16))  # NDVI from the fp16 index cache
    x = torch.cat([refl, ndvi[:, None]], dim=1)
    unet(x)


def _nodata_65535_masked_fill_f16_ndvi() -> None:
    raw = _raw_bands()
    ndvi = _ndvi(_reflectance(f16))[0]
    nodata = raw[4] == 65535  # saturated / outside the orthomosaic
    nodata[:4] = True
    ndvi.masked_fill(nodata, 65535)  # the GeoTIFF's nodata value, before writing the index map


def _evi_raw_dn_f16_patch_sampling() -> None:
    _seeded()
    dn = _raw_bands().half()  # digital numbers, not reflectance
    blue, red, nir = dn[0], dn[2], dn[4]
    evi = 2.5 * (nir - red) / (nir + 6 * red - 7.5 * blue + 1)
    weights = evi.clamp(min=0).flatten().float()
    torch.multinomial(weights, 16)  # training patch centres drawn where vegetation is dense


def _crop_row_spacing_rfft_f16() -> None:
    refl = _reflectance(f16)[0]
    exg = 2 * refl[1] - refl[2] - refl[0]
    profile = exg.mean(dim=0)  # across-row profile of excess green
    spectrum = torch.fft.rfft(profile - profile.mean())
    spectrum.abs().argmax()


def _ndvi_histogram_per_plot_f16() -> None:
    ndvi = _ndvi(_reflectance(f16))[0]
    raster = _plot_raster()
    torch.histogram(ndvi[raster == 101], bins=20)


def _tasseled_cap_numpy_f64_coefficients_einsum() -> None:
    refl = _reflectance(f16)[:, [0, 1, 2, 4]]  # blue, green, red, nir
    coeffs = np.array([[0.3037, 0.2793, 0.4743, 0.5585],  # brightness
                       [-0.2848, -0.2435, -0.5436, 0.7243],  # greenness
                       [0.1509, 0.1973, 0.3279, 0.3406]])  # wetness
    torch.einsum("bchw,kc->bkhw", refl, torch.from_numpy(coeffs))


# --- band alignment, segmentation U-Nets and their losses


def _band_alignment_f64_homography_grid_sample() -> None:
    red_edge = _reflectance(f16)[:, 3:4]  # the band to warp onto the NIR band
    homography = np.array([[1.0, 0.002, 0.01], [-0.002, 1.0, -0.015], [0.0, 0.0, 1.0]])  # cv2.findHomography
    theta = torch.from_numpy(homography[:2])[None]
    grid = F.affine_grid(theta, list(red_edge.shape), align_corners=False)
    F.grid_sample(red_edge, grid, align_corners=False)


def _input_batchnorm_bf16_fp32_reflectance() -> None:
    _seeded()
    model = nn.Sequential(nn.BatchNorm2d(5), _tiny_unet()).to(bf16)  # BatchNorm as the learned input scaler
    model(_reflectance())


def _plant_mask_bce_bf16_probs_fp32_target() -> None:
    _seeded()
    unet = _tiny_unet().to(bf16)
    prob = unet(_reflectance(bf16)).sigmoid()
    target = (~_soil_mask()).float()[None, None]
    F.binary_cross_entropy(prob, target)


def _prediction_bf16_numpy_for_geotiff() -> None:
    _seeded()
    unet = _tiny_unet().to(bf16)
    with torch.no_grad():
        prob = unet(_reflectance(bf16)).sigmoid()
    prob[0, 0].numpy()  # handed to rasterio's dst.write


def _gradient_accumulator_fp32_assigned_bf16_unet() -> None:
    _seeded()
    unet = _tiny_unet().to(bf16)
    accum = [torch.zeros_like(p, dtype=torch.float32) for p in unet.parameters()]
    refl = _reflectance(bf16)
    for tile in (refl[..., :24], refl[..., 24:]):
        unet(tile).float().mean().backward()
        for buffer, p in zip(accum, unet.parameters()):
            buffer += p.grad.float()
            p.grad = None
    for buffer, p in zip(accum, unet.parameters()):
        p.grad = buffer / 2


# --- per-plot pooling, time series and yield regression


def _plot_predictions_painted_bf16_index_put() -> None:
    _seeded()
    unet = _tiny_unet().to(bf16)
    with torch.no_grad():
        pixel_yield = unet(_reflectance(bf16))[0, 0]
    yield_map = torch.zeros(_H, _W)
    in_plots = _plot_raster() > 0
    yield_map[in_plots] = pixel_yield[in_plots]


def _per_plot_pooling_bmm_one_hot_assignment() -> None:
    _seeded()
    features = torch.randn(1, _H * _W, 16, dtype=bf16)  # bf16 U-Net decoder features, flattened
    raster = _plot_raster().flatten()
    ids = torch.unique(raster, return_inverse=True)[1]
    assign = F.one_hot(ids).T.float()
    assign = (assign / assign.sum(1, keepdim=True))[None]
    torch.bmm(assign, features)


def _ndvi_series_f16_into_bf16_gru() -> None:
    _seeded()
    ndvi_series = torch.rand(6, 9, 1, dtype=f16)  # per plot, 9 flight dates, from the fp16 index cache
    gru = nn.GRU(1, 16, batch_first=True).to(bf16)
    gru(ndvi_series)


def _gdd_attention_bias_f16_sdpa() -> None:
    _seeded()
    gdd = torch.tensor([210.0, 395.0, 560.0, 742.0, 905.0, 1130.0, 1288.0, 1460.0], dtype=f16)  # weather cache
    bias = -(gdd[:, None] - gdd[None, :]).abs() / 200.0
    q = k = v = torch.randn(6, 2, 8, 16, dtype=bf16)
    F.scaled_dot_product_attention(q, k, v, attn_mask=bias)


def _yield_head_added_after_bf16_cast() -> None:
    _seeded()
    backbone = nn.Sequential(nn.Conv2d(5, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    backbone = backbone.to(bf16)
    head = nn.Linear(16, 1)  # the regression head, built after the cast
    head(backbone(_reflectance(bf16)))


def _ridge_yield_normal_equations_f64_targets() -> None:
    _seeded()
    book = _field_book()
    features = torch.randn(len(book), 4)  # per-plot NDVI statistics over the season
    targets = torch.from_numpy(book["yield_t_ha"].to_numpy())
    gram = features.T @ features + 0.1 * torch.eye(4)
    torch.linalg.solve(gram, features.T @ targets)


def _ndvi_yield_calibration_lstsq_f64() -> None:
    book = _field_book()
    ndvi = torch.tensor(book["ndvi_mean"].to_numpy(), dtype=torch.float32)
    design = torch.stack([ndvi, torch.ones_like(ndvi)], dim=1)
    targets = torch.from_numpy(book["yield_t_ha"].to_numpy())[:, None]
    torch.linalg.lstsq(design, targets)


def _yield_huber_bf16_prediction_f64_target() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1)).to(bf16)
    book = _field_book()
    features = torch.randn(len(book), 4, dtype=bf16)
    targets = torch.from_numpy(book["yield_t_ha"].to_numpy())
    F.huber_loss(model(features).squeeze(1), targets, delta=0.5).backward()


CASES: dict[str, LiveCase] = {
    # --- raw uint16 captures and calibration
    # MicaSense panel calibration: median digital number of the panel ROI taken on the raw uint16 NIR band
    "panel-roi-median-uint16-nir": case(_calibration_panel_median_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # reflect padding of a 5-band uint16 orthomosaic tile for sliding-window inference
    "orthomosaic-tile-reflect-pad-uint16": case(_orthomosaic_tile_reflect_pad_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # DJI P4 Multispectral: the uint8 RGB JPEG concatenated with the five uint16 TIFF bands
    "p4m-rgb-uint8-cat-uint16-bands": case(_p4m_rgb_uint8_cat_uint16_bands, "no_kernel", "uint8", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # --- soil masks, plot ids and the field book
    # bare-soil fraction per plot as the mean of the bool ExG soil mask
    "soil-fraction-mean-bool-per-plot": case(_soil_fraction_mean_bool_per_plot, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # soil mask erosion written as -max_pool2d(-mask) on the bool mask
    "soil-mask-erosion-negated-bool": case(_soil_mask_erosion_by_negation, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the soil mask resized bilinearly to the loss map (float) and used as masked_fill's mask
    "soil-mask-bilinear-resized-masked-fill": case(_soil_mask_resized_bilinear_masked_fill, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # range numbers from int64 plot ids by `/= 100` in place
    "plot-ids-range-true-divide-in-place": case(_plot_ids_range_true_divide_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # plant/soil segmentation with the bool plant mask as cross_entropy's target
    "plant-soil-cross-entropy-bool-target": case(_plant_soil_cross_entropy_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # genotype entry ids from the field book (float64 after a NaN border plot) into nn.Embedding
    "entry-ids-pandas-f64-embedding": case(_entry_ids_pandas_float64_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # local soil fraction by conv2d of the bool soil mask with a 5 x 5 box kernel
    "soil-mask-box-filter-conv2d-bool": case(_soil_mask_box_filter_conv2d, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # plot ids in a pandas nullable Int64 column with a missing plot, given to torch.as_tensor
    "plot-ids-nullable-int64-as-tensor": case(_plot_ids_nullable_int64_as_tensor, "numpy_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (b21193f2) castwise gave nothing. torch raised `Could not infer dtype of NAType` from torch.as_tensor "
             "walking a pandas nullable Int64 extension array (not a numpy array) and meeting pd.NA for the missing plot; "
             "the message names neither numpy nor a tensor dtype, only pandas' NA type, and the frozen rules read no "
             "dtype, op or cause from it, so the case of torch refusing a pandas container it cannot convert is not "
             "recognised.")),
    # --- vegetation indices in fp16
    # fp16 NDVI concatenated to bf16 reflectance (cat promotes to fp32) into the bf16 U-Net's stem conv
    "ndvi-f16-cat-bf16-bands-unet-stem": case(_ndvi_f16_concat_bf16_bands_unet_stem, "conv_weight_dtype", "f32",
                                              "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the GeoTIFF nodata value 65535 written into the fp16 NDVI map with masked_fill
    "ndvi-nodata-65535-masked-fill-f16": case(_nodata_65535_masked_fill_f16_ndvi, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # EVI on raw digital numbers in fp16: 6 * red overflows, inf - inf is NaN, multinomial refuses the weights
    "evi-raw-dn-f16-patch-sampling-nan": case(_evi_raw_dn_f16_patch_sampling, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # crop-row spacing from rfft of the fp16 excess-green profile
    "crop-row-spacing-rfft-f16": case(_crop_row_spacing_rfft_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # NDVI distribution of one plot with torch.histogram on the fp16 index
    "ndvi-histogram-per-plot-f16": case(_ndvi_histogram_per_plot_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # tasseled-cap coefficients from numpy (float64) einsum'd with the fp16 reflectance cache
    "tasseled-cap-numpy-f64-einsum-f16": case(_tasseled_cap_numpy_f64_coefficients_einsum, "matmul_dtype", "f64",
                                              "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- band alignment, segmentation U-Nets and their losses
    # band-to-band alignment: affine_grid of a float64 cv2 homography, grid_sample of the fp16 red-edge band
    "band-alignment-f64-homography-grid-sample": case(_band_alignment_f64_homography_grid_sample, "op_dtype", "f16",
                                                      "f64",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 U-Net opening with an input BatchNorm2d, given fp32 reflectance
    "input-batchnorm-bf16-fp32-reflectance": case(_input_batchnorm_bf16_fp32_reflectance, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # plant-mask BCE of the bf16 U-Net's sigmoid against the fp32 mask
    "plant-mask-bce-bf16-probs-fp32-target": case(_plant_mask_bce_bf16_probs_fp32_target, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 U-Net's probability map handed to numpy for rasterio
    "prediction-bf16-numpy-for-geotiff": case(_prediction_bf16_numpy_for_geotiff, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # tile gradient accumulation in fp32 buffers assigned back to the bf16 U-Net's .grad
    "grad-accumulator-fp32-assigned-bf16-unet": case(_gradient_accumulator_fp32_assigned_bf16_unet, "loss_dtype",
                                                     "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- per-plot pooling, time series and yield regression
    # the bf16 pixel-yield map painted into an fp32 yield raster by boolean-mask assignment
    "plot-yield-raster-index-put-bf16": case(_plot_predictions_painted_bf16_index_put, "indexed_write_dtype", "f32",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-plot mean pooling by torch.bmm of an fp32 one-hot assignment matrix with bf16 pixel features
    "per-plot-pooling-bmm-fp32-assignment": case(_per_plot_pooling_bmm_one_hot_assignment, "batched_matmul_dtype",
                                                 "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-plot NDVI time series from the fp16 cache into a bf16 GRU
    "ndvi-series-f16-into-bf16-gru": case(_ndvi_series_f16_into_bf16_gru, "rnn_dtype", "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # attention over flight dates with a growing-degree-day bias built in fp16, bf16 queries
    "gdd-attention-bias-f16-sdpa-bf16": case(_gdd_attention_bias_f16_sdpa, "attn_mask_dtype", "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a yield regression head built after backbone.to(bf16), left fp32
    "yield-head-added-after-bf16-cast": case(_yield_head_added_after_bf16_cast, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ridge normal equations: fp32 plot features times float64 yields from pandas
    "ridge-yield-normal-equations-f64-targets": case(_ridge_yield_normal_equations_f64_targets, "matmul_dtype",
                                                     "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # NDVI-to-yield calibration by lstsq of an fp32 design against float64 pandas yields
    "ndvi-yield-calibration-lstsq-f64": case(_ndvi_yield_calibration_lstsq_f64, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Huber loss of a bf16 yield model against float64 pandas yields, raising in backward
    "yield-huber-bf16-f64-target-backward": case(_yield_huber_bf16_prediction_f64_target, "loss_dtype", "f64",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
}
