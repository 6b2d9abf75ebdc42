"""Held-out live set 87: precision agriculture and plant phenotyping by hand in low precision (drone RGB/NIR and
thermal tiles as uint8/uint16, vegetation indices from band arithmetic, leaf and fruit counting with point labels,
yield regression from float64 weather and soil tables, crop-type segmentation with an ignore label, NDVI growth
curves and time series with missing dates as masks, plant-disease classifiers with class weights, row/plot ids as
int64 for grouped metrics). Defects planted by a helper who never read the rules, written before castwise ran and
graded once with the rules frozen at 3957142."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from scipy.signal import windows
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "3957142"

bf16, f16 = torch.bfloat16, torch.float16
_DATES = 24  # Sentinel-2 / drone revisits in one season
_CROPS = 6  # crop-type classes; 255 marks field borders and unlabelled pixels
_IGNORE = 255


def _seeded() -> None:
    torch.manual_seed(0)


def _drone_tile(size: int = 32) -> torch.Tensor:
    """A 4-band (R, G, B, NIR) uint8 tile as the multispectral orthomosaic export stores it."""
    generator = torch.Generator().manual_seed(0)
    return torch.randint(0, 256, (4, size, size), dtype=torch.uint8, generator=generator)


def _ndvi_series_with_clouds() -> np.ndarray:
    """NDVI of 8 pixels over the season (float64, NaN on cloudy dates), as the extraction script saves it."""
    rng = np.random.default_rng(0)
    doy = np.linspace(90, 300, _DATES)
    curve = 0.2 + 0.6 / (1 + np.exp(-(doy - 160) / 12)) - 0.6 / (1 + np.exp(-(doy - 250) / 10))
    series = curve[None] + 0.03 * rng.standard_normal((8, _DATES))
    series[rng.random((8, _DATES)) < 0.3] = np.nan
    return series


def _cloudy_dates() -> torch.Tensor:
    return torch.from_numpy(np.isnan(_ndvi_series_with_clouds()))


# --- drone tiles and vegetation indices


def _ndvi_in_place_on_uint8_bands() -> None:
    tile = _drone_tile()
    red, nir = tile[0], tile[3]
    ndvi = (nir - red).div_(nir + red)  # in place "to save memory" on the full orthomosaic
    ndvi.mean()


def _canopy_cover_avg_pool_bool_mask() -> None:
    rgb = _drone_tile(64)[:3].float() / 255
    r, g, b = rgb
    vegetation = (2 * g - r - b) > 0.1  # excess-green threshold
    cover = F.avg_pool2d(vegetation[None, None], kernel_size=16)  # 16 x 16 pixel plots: fraction of green pixels
    cover.flatten()


def _thermal_uint16_tile_flip_augmentation() -> None:
    generator = torch.Generator().manual_seed(0)
    # MicaSense Altum: 5 reflectance bands and the LWIR band in centikelvin, all uint16 from tifffile
    sample = torch.randint(29000, 31500, (6, 32, 32), generator=generator).to(torch.uint16)
    sample = torch.flip(sample, dims=(-1,))  # the random horizontal flip's branch, taken for this sample
    sample.float() / 100.0 - 273.15


def _colour_checker_ccm_bmm_f64() -> None:
    tiles = _drone_tile(16)[:3].expand(2, 3, 16, 16)
    rng = np.random.default_rng(0)
    measured = rng.random((24, 3))  # the 24 ColorChecker patches as seen in each flight's first image
    reference = measured @ np.diag([1.1, 0.95, 1.05])
    ccm = np.stack([np.linalg.lstsq(measured, reference, rcond=None)[0].T for _ in range(2)])  # per flight, float64
    pixels = tiles.float().div(255).flatten(2)
    torch.bmm(torch.from_numpy(ccm), pixels)


# --- leaf and fruit counting with point labels


def _fruit_density_gaussian_kernel_f64() -> None:
    points = torch.tensor([[10, 12], [30, 40], [31, 44], [50, 8]])  # (row, col) of each apple from the point labels
    dots = torch.zeros(1, 1, 64, 64)
    dots[0, 0, points[:, 0], points[:, 1]] = 1.0
    g = windows.gaussian(15, std=3.0)
    kernel = np.outer(g, g) / np.outer(g, g).sum()  # sums to 1 so the density integrates to the count
    F.conv2d(dots, torch.from_numpy(kernel)[None, None], padding=7)


def _point_matching_cdist_bf16() -> None:
    _seeded()
    head = nn.Linear(64, 2).to(bf16)  # P2PNet-style point regression head of a bf16 counter
    predicted = head(torch.randn(16, 64, dtype=bf16)).sigmoid() * 64
    gt_points = torch.tensor([[10.0, 12.0], [30.0, 40.0], [50.0, 8.0]])  # leaf-tip point labels
    cost = torch.cdist(predicted, gt_points.to(predicted.dtype))  # Hungarian matching cost
    cost.argmin(0)


def _stand_counts_quantile_int64() -> None:
    # each detected seedling's crop-row id (int64) after assigning detections to rows
    row_of_plant = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4])
    _, per_row = torch.unique(row_of_plant, return_counts=True)
    q1, median, q3 = torch.quantile(per_row, torch.tensor([0.25, 0.5, 0.75]))
    (q3 - q1) / median


# --- yield regression from weather and soil tables


def _soil_table_concat_bf16_yield_head() -> None:
    _seeded()
    soil = pd.DataFrame({"clay": [22.0, 31.5, 18.2, 27.9], "sand": [41.0, 30.2, 55.1, 38.8],
                         "soc": [1.8, 2.4, 1.1, 2.0], "ph": [6.4, 7.1, 5.9, 6.8], "cec": [14.2, 19.8, 9.7, 16.5]})
    soil_features = torch.from_numpy(((soil - soil.mean()) / soil.std()).to_numpy())
    image_features = torch.randn(4, 32, dtype=bf16)  # pooled output of the bf16 drone-image backbone
    head = nn.Linear(32 + 5, 1).to(bf16)
    head(torch.cat([image_features, soil_features], dim=1))


def _daily_weather_lstm_f64() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    days = 150
    weather = pd.DataFrame({
        "tmax": 24 + 6 * rng.standard_normal(4 * days), "tmin": 11 + 4 * rng.standard_normal(4 * days),
        "prcp": rng.gamma(0.6, 5.0, 4 * days), "srad": 18 + 5 * rng.standard_normal(4 * days),
    })
    sequences = torch.from_numpy(weather.to_numpy().reshape(4, days, 4))  # 4 county-years of daily weather
    encoder = nn.LSTM(4, 32, batch_first=True)
    encoder(sequences)


def _gxe_bilinear_f64_environment() -> None:
    _seeded()
    hybrid_ids = torch.tensor([3, 17, 3, 42])
    environment = pd.DataFrame({"gdd": [1650.0, 1710.0, 1490.0, 1580.0], "prcp": [410.0, 520.0, 300.0, 455.0],
                                "heat_days": [4.0, 9.0, 2.0, 6.0]})
    env = torch.from_numpy(((environment - environment.mean()) / environment.std()).to_numpy())
    genotype = nn.Embedding(50, 16)
    interaction = nn.Bilinear(16, 3, 1)  # genotype-by-environment term of the yield model
    interaction(genotype(hybrid_ids), env)


def _radiation_gap_fill_f16_overflow() -> None:
    _seeded()
    srad = (18 + 4 * torch.randn(4, 150)).to(f16)  # MJ m-2 day-1, kept fp16 with the other weather channels
    missing = torch.rand(4, 150) < 0.05
    climatology = 1.8e7  # ERA5-Land ssrd daily mean, in J m-2
    srad.masked_fill_(missing, climatology)


def _genomic_prediction_int8_snps() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    genotypes = torch.from_numpy(rng.integers(0, 3, size=(10, 500), dtype=np.int8))  # 0/1/2 dosages from the VCF
    marker_effects = torch.randn(500) * 0.01  # rrBLUP marker effects
    genotypes @ marker_effects  # genomic estimated breeding values


def _disease_loss_weight_buffer_cast_with_model() -> None:
    _seeded()

    class DiseaseClassifier(nn.Module):
        def __init__(self, counts: torch.Tensor) -> None:
            super().__init__()
            self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                          nn.Flatten(), nn.Linear(8, len(counts)))
            self.register_buffer("class_weight", counts.sum() / (len(counts) * counts.float()))

        def forward(self, images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            logits = self.backbone(images)
            return F.cross_entropy(logits.float(), labels, weight=self.class_weight)  # loss in fp32 for stability

    counts = torch.tensor([1200, 310, 95, 640])  # healthy, rust, blight, powdery mildew
    model = DiseaseClassifier(counts).to(bf16)
    model(torch.rand(2, 3, 16, 16, dtype=bf16), torch.tensor([2, 0]))


def _halved_disease_classifier_grad_scaler() -> None:
    _seeded()
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(8, 4)).half()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    loss = F.cross_entropy(model(torch.rand(2, 3, 16, 16).half()).float(), torch.tensor([1, 3]))
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _disease_severity_coral_bool_levels() -> None:
    _seeded()
    severity = torch.tensor([0, 2, 4, 1, 3])  # 0 healthy .. 4 severe, scored by the pathologist
    levels = severity[:, None] > torch.arange(4)  # CORAL: one binary task per threshold
    head = nn.Linear(32, 4)
    F.binary_cross_entropy_with_logits(head(torch.randn(5, 32)), levels)


def _ndvi_beta_head_f16_overflow() -> None:
    _seeded()
    hidden = torch.tensor([[9.0, 12.0], [1.0, 3.0]], dtype=f16)  # fp16 head: mean logit and log-precision per pixel
    mean = torch.sigmoid(hidden[:, 0])
    precision = torch.exp(hidden[:, 1])
    torch.distributions.Beta(mean * precision, (1 - mean) * precision)  # NDVI in (0, 1) as a Beta


# --- crop-type segmentation with an ignore label


def _cdl_codes_uint8_lut_remap() -> None:
    # USDA Cropland Data Layer codes read from the GeoTIFF (uint8): corn 1, soybeans 5, winter wheat 24, alfalfa 36
    cdl = torch.from_numpy(np.array([[1, 5, 24, 0], [36, 1, 1, 5], [24, 24, 0, 36]], dtype=np.uint8))
    lut = torch.full((256,), _IGNORE, dtype=torch.long)
    for train_id, code in enumerate((1, 5, 24, 36)):
        lut[code] = train_id
    lut[cdl]


def _crop_dice_one_hot_uint8_labels() -> None:
    _seeded()
    labels = torch.randint(0, _CROPS, (2, 16, 16)).to(torch.uint8)  # label PNGs from PIL
    labels[:, 0] = _IGNORE  # field borders
    logits = torch.randn(2, _CROPS, 16, 16)
    valid = labels != _IGNORE
    one_hot = F.one_hot(labels.masked_fill(~valid, 0), _CROPS).permute(0, 3, 1, 2)
    inter = (logits.softmax(1) * one_hot * valid[:, None]).sum((0, 2, 3))
    1 - 2 * inter / (logits.softmax(1).sum((0, 2, 3)) + one_hot.sum((0, 2, 3)))


def _field_boundary_film_fp32_gamma() -> None:
    _seeded()
    conv1 = nn.Conv2d(4, 16, 3, padding=1).to(bf16)
    conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False).to(bf16)  # followed by a BatchNorm in the full block
    film = nn.Linear(6, 32)  # weather-conditioned FiLM generator, left fp32 ("it is tiny")
    features = conv1(_drone_tile(16)[None].to(bf16) / 255)
    gamma, beta = film(torch.randn(1, 6)).chunk(2, dim=-1)
    features = features * (1 + gamma[..., None, None]) + beta[..., None, None]
    conv2(features)


# --- NDVI growth curves and time series with missing dates


def _acquisition_dates_datetime64() -> None:
    scenes = pd.DataFrame({"date": pd.to_datetime(["2023-04-12", "2023-04-22", "2023-05-07", "2023-05-27"]),
                           "cloud": [0.1, 0.6, 0.0, 0.2]})
    dates = torch.from_numpy(scenes["date"].to_numpy())
    (dates - dates[0]) // 86_400_000_000_000


def _ndvi_valid_float_mask_inverted() -> None:
    series = _ndvi_series_with_clouds()
    observed = torch.from_numpy(~np.isnan(series)).float()  # float so it can weight the reconstruction loss
    ndvi = torch.from_numpy(np.nan_to_num(series)).float()
    ndvi.masked_fill(~observed, 0.0)


def _ltae_uint8_cloud_flags_key_padding() -> None:
    _seeded()
    cloudy = torch.from_numpy(np.isnan(_ndvi_series_with_clouds()).astype(np.uint8))  # SCL-derived flags, uint8
    attention = nn.MultiheadAttention(32, 4, batch_first=True)
    x = torch.randn(8, _DATES, 32)
    master_query = torch.randn(8, 1, 32)
    attention(master_query, x, x, key_padding_mask=cloudy)


def _ltae_float_key_padding_mask_bf16() -> None:
    _seeded()
    cloudy = _cloudy_dates()
    padding = torch.zeros(8, _DATES).masked_fill(cloudy, float("-inf"))  # additive, made in the default fp32
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    x = torch.randn(8, _DATES, 32, dtype=bf16)
    attention(x.mean(1, keepdim=True), x, x, key_padding_mask=padding)


def _doy_encoding_fp32_into_bf16_layer_norm() -> None:
    _seeded()
    doy = torch.tensor([[95, 105, 120, 140, 150, 175, 190, 210]])
    freqs = torch.exp(torch.arange(0, 32, 2) * (-math.log(1000.0) / 32))
    angle = doy[..., None] * freqs
    encoding = torch.cat([angle.sin(), angle.cos()], dim=-1)  # fp32, computed each forward
    embed = nn.Linear(10, 32).to(bf16)
    norm = nn.LayerNorm(32).to(bf16)  # first op of the pre-norm temporal encoder
    norm(embed(torch.randn(1, 8, 10, dtype=bf16)) + encoding)


def _gap_fill_lerp_bf16_cache_fp32_scene() -> None:
    _seeded()
    cube = torch.rand(16, 16, 10, dtype=bf16)  # NDVI composites cached in bf16
    new_scene = torch.rand(16, 16)  # the latest acquisition, fp32 from the reader
    weight = torch.tensor(0.4)  # the missing date sits 40 % of the way from the last composite to the new scene
    torch.lerp(cube[..., -1], new_scene, weight)


def _whittaker_smoother_solve_f64_penalty() -> None:
    series = _ndvi_series_with_clouds()
    weights = np.diag((~np.isnan(series[0])).astype(float))  # zero weight on cloudy dates
    d = np.diff(np.eye(_DATES), 2, axis=0)
    system = torch.from_numpy(weights + 10.0 * d.T @ d)
    y = torch.from_numpy(np.nan_to_num(series[0])).float()
    torch.linalg.solve(system, torch.from_numpy(weights).float() @ y)


def _harmonic_fit_lstsq_f16_cache() -> None:
    rng = np.random.default_rng(0)
    ndvi = torch.from_numpy(rng.random((100, _DATES)).astype(np.float16))  # per-pixel series cached as float16
    doy = torch.linspace(90, 300, _DATES)
    t = 2 * math.pi * doy / 365
    design = torch.stack([torch.ones_like(t), t.cos(), t.sin(), (2 * t).cos(), (2 * t).sin()], dim=1)
    torch.linalg.lstsq(design.to(ndvi.dtype), ndvi.T)


# --- row and plot ids, grouped metrics


def _plot_ids_pandas_nan_float_index_add() -> None:
    harvest = pd.DataFrame({"plot_id": [101, 101, 102, None, 103, 103], "yield_t_ha": [9.1, 8.7, 10.2, 3.0, 7.9, 8.4]})
    plot_ids = torch.from_numpy(harvest["plot_id"].fillna(0).to_numpy())  # the headland row has no plot id
    values = torch.tensor(harvest["yield_t_ha"].to_numpy(), dtype=torch.float32)
    torch.zeros(104).index_add_(0, plot_ids, values)


def _plot_mean_scatter_reduce_bf16() -> None:
    _seeded()
    pixel_yield = nn.Linear(8, 1).to(bf16)(torch.randn(200, 8, dtype=bf16)).squeeze(1)
    plot_of_pixel = torch.randint(0, 12, (200,))
    per_plot = torch.zeros(12)
    per_plot.scatter_reduce_(0, plot_of_pixel, pixel_yield, reduce="mean", include_self=False)


def _parcel_ids_int32_overflow() -> None:
    parcels = pd.DataFrame({"parcel_id": [4102338771, 4102338772, 3987001245], "crop": ["maize", "wheat", "rapeseed"]})
    torch.tensor(parcels["parcel_id"].tolist(), dtype=torch.int32)  # "ids fit in 32 bits"


CASES: dict[str, LiveCase] = {
    # NDVI computed in place with div_ on (nir - red) of a uint8 drone tile
    "ndvi-uint8-bands-in-place-div": case(_ndvi_in_place_on_uint8_bands, "result_cast", "f32", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # canopy cover per plot by avg_pool2d of the bool excess-green vegetation mask
    "canopy-cover-avg-pool-bool-exg-mask": case(_canopy_cover_avg_pool_bool_mask, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # random horizontal flip of a uint16 multispectral + thermal (centikelvin) drone sample
    "thermal-uint16-tile-flip-augment": case(_thermal_uint16_tile_flip_augmentation, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # ColorChecker colour-correction matrices from numpy lstsq (float64) applied to fp32 pixels with torch.bmm
    "colour-checker-ccm-f64-bmm": case(_colour_checker_ccm_bmm_f64, "batched_matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fruit density map: point-label dot map convolved with a scipy Gaussian window (float64) kernel
    "fruit-density-scipy-gaussian-f64-kernel": case(_fruit_density_gaussian_kernel_f64, "conv_weight_dtype", "f32",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # P2PNet-style leaf-tip matching cost by cdist of a bf16 point head's predictions
    "leaf-tip-matching-cdist-bf16": case(_point_matching_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # seedling stand counts per crop row (int64 from unique's counts) summarised with quantile
    "stand-counts-per-row-quantile-int64": case(_stand_counts_quantile_int64, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # pandas float64 soil properties concatenated to bf16 image features for a bf16 yield head
    "soil-table-f64-concat-bf16-yield-head": case(_soil_table_concat_bf16_yield_head, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # daily weather from pandas (float64) into an fp32 LSTM yield encoder
    "daily-weather-f64-lstm-yield": case(_daily_weather_lstm_f64, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # genotype-by-environment nn.Bilinear fed float64 environmental covariates from pandas
    "gxe-bilinear-f64-environment": case(_gxe_bilinear_f64_environment, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # fp16 solar radiation in MJ/m2 gap-filled with an ERA5-Land climatology in J/m2
    "radiation-gap-fill-j-m2-f16": case(_radiation_gap_fill_f16_overflow, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # genomic prediction: int8 SNP dosage matrix @ fp32 rrBLUP marker effects
    "gebv-int8-snp-dosages-matvec": case(_genomic_prediction_int8_snps, "integer_operand", "int8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # disease classifier: class-weight buffer cast to bf16 by model.to(bf16), logits upcast with .float() for the loss
    "disease-class-weight-buffer-bf16-float-logits": case(_disease_loss_weight_buffer_cast_with_model, "op_dtype",
                                                          "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a .half() disease classifier trained with GradScaler, which refuses to unscale its fp16 gradients
    "disease-classifier-half-grad-scaler": case(_halved_disease_classifier_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # CORAL ordinal disease severity: bool threshold levels as the BCE-with-logits target
    "disease-severity-coral-bool-levels": case(_disease_severity_coral_bool_levels, "target_dtype", "bool",
                                                 fix=("float",),
        grade="correct", grade_at_freeze="correct"),
    # Beta NDVI head in fp16: exp of the log-precision overflows, (1 - mean) * inf is NaN, Beta refuses it
    "ndvi-beta-head-f16-precision-nan": case(_ndvi_beta_head_f16_overflow, "nonfinite", "f16",
        grade="correct", grade_at_freeze="correct"),
    # CDL crop codes (uint8 raster) remapped to train ids with a lookup table indexed by the raster
    "cdl-uint8-codes-lut-remap": case(_cdl_codes_uint8_lut_remap, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # crop-type Dice loss: F.one_hot of the uint8 label map with the 255 ignore label zeroed
    "crop-dice-one-hot-uint8-labels": case(_crop_dice_one_hot_uint8_labels, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # field-boundary net: fp32 weather FiLM gamma/beta promote bf16 features before the next bf16 conv
    "field-net-film-fp32-gamma-bf16-conv": case(_field_boundary_film_fp32_gamma, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Sentinel-2 acquisition dates (pandas datetime64[ns]) given to torch.from_numpy for day offsets
    "acquisition-dates-datetime64-from-numpy": case(_acquisition_dates_datetime64, "numpy_dtype",
                                                      cause=("datetime64",),
        grade="correct", grade_at_freeze="correct"),
    # NDVI observed-date mask kept float for the loss, inverted with ~ for masked_fill
    "ndvi-observed-float-mask-invert": case(_ndvi_valid_float_mask_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # L-TAE over dates with uint8 cloud flags as MultiheadAttention's key_padding_mask
    "ltae-uint8-cloud-flags-key-padding": case(_ltae_uint8_cloud_flags_key_padding, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # L-TAE in bf16 given an additive fp32 key_padding_mask (-inf on cloudy dates)
    "ltae-fp32-additive-key-padding-bf16": case(_ltae_float_key_padding_mask_bf16, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # day-of-year sinusoidal encoding made in fp32 added to bf16 date embeddings before a bf16 LayerNorm
    "doy-encoding-fp32-bf16-layer-norm": case(_doy_encoding_fp32_into_bf16_layer_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # missing date filled by lerp between the bf16 composite cache and the fp32 new scene
    "gap-fill-lerp-bf16-cache-fp32-scene": case(_gap_fill_lerp_bf16_cache_fp32_scene, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Whittaker smoother with cloud weights: float64 numpy system solved against an fp32 NDVI right side
    "whittaker-smoother-f64-system-f32-ndvi": case(_whittaker_smoother_solve_f64_penalty, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # harmonic (Fourier) phenology fit by lstsq on the fp16 NDVI cache
    "harmonic-phenology-lstsq-f16": case(_harmonic_fit_lstsq_f16_cache, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # harvest plot ids from pandas (float64 after a NaN) used as index_add_'s index
    "plot-ids-pandas-nan-f64-index-add": case(_plot_ids_pandas_nan_float_index_add, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # per-plot mean of bf16 pixel yields scatter_reduce_'d into an fp32 zeros buffer
    "plot-mean-scatter-reduce-bf16-pixels": case(_plot_mean_scatter_reduce_bf16, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # 10-digit LPIS parcel ids put in an int32 tensor
    "lpis-parcel-ids-int32-overflow": case(_parcel_ids_int32_overflow, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
}
