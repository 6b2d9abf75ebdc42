"""Held-out live set 161: veterinary and agricultural imaging written by hand in low precision (uint16 radiographs,
radiometric thermal frames and multispectral crop tiles, uint8 ultrasound and microscopy images, float64 soil readings
and body-condition scores from pandas, bool plant and lesion masks, fp16 leaf-disease and dermatology CNNs, bf16 yield
regressors, int64 BBCH growth-stage labels). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at d523f429."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.signal
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d523f429"

bf16, f16 = torch.bfloat16, torch.float16
_BANDS = 5  # MicaSense RedEdge: blue, green, red, red edge, NIR
_DISEASES = 12  # leaf-disease classes (healthy, rust, blight, mildew, ...)
_STAGES = 10  # principal BBCH growth stages 0-9
_D = 32


def _seeded() -> None:
    torch.manual_seed(0)


def _radiograph(size: int = 64) -> torch.Tensor:
    """A 12-bit digital radiograph as pydicom's pixel_array gives it (uint16), through torch.from_numpy."""
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.integers(200, 4095, size=(size, size), dtype=np.uint16))


def _multispectral_tile(size: int = 32) -> torch.Tensor:
    """A (bands, H, W) tile of raw uint16 digital numbers from the camera's TIFFs."""
    rng = np.random.default_rng(1)
    return torch.from_numpy(rng.integers(800, 42000, size=(_BANDS, size, size), dtype=np.uint16))


def _plant_mask(size: int = 32) -> torch.Tensor:
    """A bool plant/soil mask from excess-green thresholding."""
    gen = torch.Generator().manual_seed(2)
    return torch.rand(1, 1, size, size, generator=gen) > 0.6


def _soil_table() -> pd.DataFrame:
    """Per-plot soil lab results as pandas reads the CSV: float64 columns."""
    return pd.DataFrame({"ph": [6.1, 6.8, 5.9, 7.2], "ec_ds_m": [0.42, 0.55, 0.38, 0.91],
                         "om_pct": [2.8, 3.4, 2.1, 4.0], "moisture": [0.21, 0.25, 0.18, 0.30]})


def _leaf_cnn() -> nn.Module:
    """A small leaf-disease CNN, converted with .half() for inference."""
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(16, _DISEASES)).half()


# --- veterinary radiographs, thermography, ultrasound and microscopy

def _canine_thorax_normalised_by_max() -> None:
    pixels = _radiograph()
    pixels.float() / pixels.amax()  # scale each thoracic radiograph to [0, 1] by its brightest pixel


def _equine_limb_patches_unfold() -> None:
    pixels = _radiograph()[None, None]
    patches = F.unfold(pixels, kernel_size=16, stride=16)  # 16 x 16 patches for the lesion classifier
    patches.transpose(1, 2).float() / 4095.0


def _hoof_roi_median_temperature() -> None:
    rng = np.random.default_rng(3)
    raw = torch.from_numpy(rng.integers(14000, 16500, size=(60, 80), dtype=np.uint16))  # radiometric counts
    roi = torch.zeros(60, 80, dtype=torch.bool)
    roi[35:55, 20:40] = True  # coronary band of the left fore hoof
    raw[roi].median()


def _ultrasound_scan_conversion() -> None:
    rng = np.random.default_rng(4)
    sector = torch.from_numpy(rng.integers(0, 255, size=(1, 1, 128, 64), dtype=np.uint8))  # B-mode, depth x beams
    ys, xs = torch.meshgrid(torch.linspace(0.05, 1.0, 96), torch.linspace(-0.6, 0.6, 96), indexing="ij")
    radius = torch.sqrt(xs**2 + ys**2) * 2 - 1
    angle = torch.atan2(xs, ys) / 0.6
    grid = torch.stack([angle, radius], dim=-1)[None]
    F.grid_sample(sector, grid, align_corners=False)  # convex-probe sector to a Cartesian image


def _body_condition_scores_to_classes() -> None:
    _seeded()
    scores = pd.DataFrame({"cow": [101, 102, 103, 104], "bcs": [2.75, 3.25, 3.5, 4.0]})
    logits = torch.randn(4, 17)  # BCS 1.0 to 5.0 in 0.25 steps
    classes = torch.tensor((scores["bcs"].to_numpy() - 1.0) / 0.25)
    F.cross_entropy(logits, classes)


def _gradcam_hook_upcasts() -> None:
    _seeded()
    cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                        nn.Linear(8, 4)).half()
    lesion = torch.rand(1, 3, 32, 32, dtype=f16)
    stored = {}
    features = cnn[1](cnn[0](lesion))
    features.register_hook(lambda grad: stored.setdefault("grad", grad.float()))  # keep CAM gradients in fp32
    logits = cnn[4](cnn[3](cnn[2](features)))
    logits[0, 2].backward()


def _fecal_egg_stain_separation() -> None:
    rng = np.random.default_rng(5)
    rgb = torch.from_numpy(rng.integers(30, 255, size=(32, 32, 3), dtype=np.uint8)).float()
    od = -torch.log((rgb + 1) / 256).reshape(-1, 3)  # optical density of the flotation slide
    stains = np.array([[0.65, 0.70, 0.29], [0.07, 0.99, 0.11], [0.27, 0.57, 0.78]])
    od @ torch.from_numpy(np.linalg.inv(stains))


def _radiograph_vit_background_patches_masked() -> None:
    _seeded()
    scores = torch.randn(1, 4, 16, 16, dtype=f16)  # fp16 ViT attention over 16 radiograph patches
    background = torch.zeros(16, dtype=torch.bool)
    background[12:] = True  # patches outside the collimated field
    scores.masked_fill(background, torch.finfo(torch.float32).min).softmax(-1)


def _ultrasound_cine_pooled_in_bf16() -> None:
    _seeded()
    cine = torch.rand(1, 1, 8, 32, 32, dtype=bf16)  # bovine ovary cine loop, frames x H x W
    stem = nn.Conv3d(1, 8, 3, padding=1).to(bf16)
    F.avg_pool3d(stem(cine), kernel_size=2)


def _egg_counts_into_uint8() -> None:
    counts = [12, 48, 300, 7]  # eggs in the McMaster chambers, from the detector; one heavily infected ewe
    torch.tensor(counts, dtype=torch.uint8)


# --- uint16 multispectral and thermal crop tiles

def _altum_thermal_upsampled() -> None:
    rng = np.random.default_rng(6)
    lwir = torch.from_numpy(rng.integers(29000, 31000, size=(1, 1, 12, 16), dtype=np.uint16))  # centikelvin
    F.interpolate(lwir, size=(32, 32), mode="bilinear", align_corners=False)  # onto the multispectral grid


# --- bool plant and lesion masks

def _lesion_mask_median_filter() -> None:
    mask = _plant_mask()
    windows = F.pad(mask, (1, 1, 1, 1)).unfold(2, 3, 1).unfold(3, 3, 1)
    windows.reshape(1, 1, 32, 32, 9).median(dim=-1)  # 3 x 3 median filter removes salt-and-pepper lesions


def _plant_mask_dilated() -> None:
    mask = _plant_mask()
    F.max_pool2d(mask, kernel_size=5, stride=1, padding=2)  # grow the plant mask by two pixels


# --- int64 BBCH growth-stage labels

def _principal_stage_by_true_division() -> None:
    _seeded()
    bbch = torch.tensor([13, 31, 65, 89])  # codes from the field scouting app
    stage_embedding = nn.Embedding(_STAGES, _D)
    stage_embedding(bbch / 10)


def _stage_labels_smoothed_in_place() -> None:
    stages = torch.tensor([1, 3, 6, 8])
    targets = F.one_hot(stages, _STAGES)
    targets.mul_(0.9).add_(0.1 / _STAGES)


def _stage_frequencies_histc() -> None:
    stages = torch.tensor([1, 1, 3, 3, 3, 5, 6, 6, 8, 9])
    counts = torch.histc(stages, bins=_STAGES, min=0, max=_STAGES - 1)
    counts.sum() / counts  # inverse-frequency class weights


def _stage_interpolated_between_flights() -> None:
    stage_june_3 = torch.tensor([31, 32, 30, 33])
    stage_june_17 = torch.tensor([51, 55, 49, 59])
    torch.lerp(stage_june_3, stage_june_17, 5 / 14)  # stage on the drone flight of June 8


# --- float64 soil readings from pandas

def _soil_lab_detection_limits() -> None:
    table = _soil_table()
    table["p_mg_kg"] = [12.5, "<0.5", 8.1, 22.0]  # the lab reports values under its detection limit as "<0.5"
    torch.tensor(table.to_numpy())


def _soil_moisture_series_bf16_lstm() -> None:
    _seeded()
    hours = np.arange(48)
    series = pd.DataFrame({"vwc_10cm": 0.25 + 0.02 * np.sin(hours / 7), "vwc_30cm": 0.30 + 0.01 * np.cos(hours / 9),
                           "temp_c": 14.0 + 3.0 * np.sin(hours / 4)})
    encoder = nn.LSTM(3, _D, batch_first=True).to(bf16)
    encoder(torch.from_numpy(series.to_numpy())[None])


def _soil_film_bf16_linear() -> None:
    _seeded()
    soil = torch.from_numpy(_soil_table().to_numpy())
    film = nn.Linear(4, 2 * _D).to(bf16)  # gamma and beta for the bf16 yield backbone
    film(soil)


# --- bf16 yield regressors

def _yield_bilinear_fusion() -> None:
    _seeded()
    image_features = torch.randn(4, _D, dtype=bf16)
    soil_features = nn.Linear(4, 8)(torch.from_numpy(_soil_table().to_numpy()).float())  # soil encoder left fp32
    fusion = nn.Bilinear(_D, 8, 1).to(bf16)
    fusion(image_features, soil_features)


def _yield_spatial_lag_bmm() -> None:
    _seeded()
    rng = np.random.default_rng(7)
    adjacency = (rng.random((6, 6)) > 0.5).astype(np.float64)
    np.fill_diagonal(adjacency, 0.0)
    weights = adjacency / np.maximum(adjacency.sum(1, keepdims=True), 1.0)  # row-standardised neighbour weights
    plot_features = torch.randn(2, 6, _D, dtype=bf16)
    torch.bmm(torch.from_numpy(weights).expand(2, 6, 6), plot_features)


def _yield_predictions_to_trial_report() -> None:
    _seeded()
    predictions = nn.Linear(_D, 1).to(bf16)(torch.randn(4, _D, dtype=bf16)).squeeze(1).detach()
    pd.DataFrame({"plot": [101, 102, 103, 104], "yield_t_ha": predictions})


def _yield_group_norm_fp32_features() -> None:
    _seeded()
    head = nn.Sequential(nn.Conv1d(6, 16, 3, padding=1), nn.GroupNorm(4, 16), nn.GELU()).to(bf16)
    head[0].float()  # first conv put back to fp32 for the raw weather channels
    head(torch.randn(2, 6, 20))  # 20 days of fp32 weather and NDVI


def _field_mean_yield_index_reduce() -> None:
    _seeded()
    pixel_yield = torch.rand(100, dtype=bf16) * 12  # bf16 regressor's t/ha per pixel
    field_ids = torch.randint(0, 3, (100,))
    per_field = torch.zeros(3)
    per_field.index_reduce_(0, field_ids, pixel_yield, "mean", include_self=False)


# --- fp16 leaf-disease CNNs

def _leaf_edges_sobel_fp32() -> None:
    leaf = torch.rand(1, 1, 32, 32, dtype=f16)  # fp16 grayscale leaf from the preprocessing cache
    sobel_x = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])[None, None]
    F.conv2d(leaf, sobel_x, padding=1)  # leaf-margin edges for serration features


def _leaf_spectra_savgol_derivative() -> None:
    rng = np.random.default_rng(8)
    spectra = torch.from_numpy(rng.random((4, 1, 200)).astype(np.float16))  # leaf-clip reflectance, 400-1000 nm
    kernel = torch.from_numpy(scipy.signal.savgol_coeffs(11, 2, deriv=1))
    F.conv1d(spectra, kernel.view(1, 1, -1), padding=5)  # first derivative for the red-edge position


def _leaf_mixup_numpy_lambdas() -> None:
    _seeded()
    leaves = torch.rand(4, 3, 32, 32, dtype=f16)
    lam = torch.from_numpy(np.random.default_rng(9).beta(0.4, 0.4, size=4))[:, None, None, None]
    mixed = lam * leaves + (1 - lam) * leaves.flip(0)
    _leaf_cnn()(mixed)


def _leaf_cnn_ema_shadow() -> None:
    _seeded()
    model = _leaf_cnn()
    shadow = {name: p.detach().float().clone() for name, p in model.named_parameters()}  # fp32 EMA teacher
    for name, p in model.named_parameters():
        shadow[name].lerp_(p.detach(), 1 - 0.999)


def _leaf_patch_attention_pooling() -> None:
    _seeded()
    pool = nn.MultiheadAttention(_D, 4, batch_first=True).half()
    patches = torch.randn(2, 9, _D, dtype=f16)  # 3 x 3 leaf patches from the fp16 backbone
    query = torch.randn(2, 1, _D, dtype=f16)
    background = torch.zeros(2, 9)
    background[:, 6:] = 1.0  # patches with no leaf pixels
    pool(query, patches, patches, key_padding_mask=background)


CASES: dict[str, LiveCase] = {
    # --- veterinary radiographs, thermography, ultrasound and microscopy
    # a canine thoracic radiograph (uint16 from pydicom) normalised by its own maximum with amax
    "canine-thorax-uint16-amax-normalise": case(_canine_thorax_normalised_by_max, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # an equine limb radiograph (uint16) cut into patches with F.unfold for a patch lesion classifier
    "equine-limb-uint16-unfold-patches": case(_equine_limb_patches_unfold, "integer_operand", "uint16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (d523f429) castwise gave no_kernel ['uint16'] (high confidence). F.unfold of the uint16 radiograph "
             "is integer pixel data fed to im2col, the float patch extraction of a convolution-style op, so the fix is "
             "to convert the radiograph to float before unfolding; the rules read the im2col_out_cpu kernel missing "
             "for UInt16 as an op that has no kernel for the dtype, not as integer data given to float math, against "
             "the corpus convention that F.unfold (im2col) of integer data is integer_operand.")),
    # equine thermography: median of the raw uint16 radiometric counts inside the hoof ROI
    "hoof-roi-median-uint16-thermal": case(_hoof_roi_median_temperature, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # bovine ultrasound: scan conversion of the uint8 B-mode sector with grid_sample
    "ultrasound-scan-conversion-uint8-grid-sample": case(_ultrasound_scan_conversion, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # dairy body-condition scores from pandas (float64) turned into class ids by arithmetic, cross_entropy's target
    "dairy-bcs-f64-class-ids-cross-entropy": case(_body_condition_scores_to_classes, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Grad-CAM on an fp16 dermatology CNN: the feature hook returns grad.float() to keep it
    "derm-gradcam-hook-upcasts-f16-grad": case(_gradcam_hook_upcasts, "loss_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fecal-egg slide colour separation: fp32 optical density times numpy's float64 inverse stain matrix
    "fecal-egg-stain-od-f64-inverse-matrix": case(_fecal_egg_stain_separation, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # fp16 radiograph ViT: background patches masked with float32's finfo min in the fp16 scores
    "radiograph-vit-f16-scores-float32-min": case(_radiograph_vit_background_patches_masked, "half_overflow", "f16",
                                                  fix=("finfo",),
        grade="correct", grade_at_freeze="correct"),
    # bovine ovary cine loops through a bf16 Conv3d stem and avg_pool3d
    "ultrasound-cine-bf16-avg-pool3d": case(_ultrasound_cine_pooled_in_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # McMaster egg counts put in a uint8 tensor, one ewe with 300 eggs
    "egg-counts-uint8-overflow": case(_egg_counts_into_uint8, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # --- uint16 multispectral and thermal crop tiles
    # MicaSense Altum thermal band (uint16 centikelvin) upsampled bilinearly onto the multispectral grid
    "altum-thermal-uint16-bilinear-upsample": case(_altum_thermal_upsampled, "integer_operand", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # --- bool plant and lesion masks
    # 3 x 3 median filter of the bool lesion mask via unfold and median
    "lesion-mask-median-filter-bool": case(_lesion_mask_median_filter, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the bool plant mask dilated with max_pool2d
    "plant-mask-dilate-max-pool-bool": case(_plant_mask_dilated, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # --- int64 BBCH growth-stage labels
    # principal growth stage as BBCH code / 10 (true division) looked up in nn.Embedding
    "bbch-principal-stage-true-division-embedding": case(_principal_stage_by_true_division, "index_tensor_dtype",
                                                         "f32",
        grade="correct", grade_at_freeze="correct"),
    # label smoothing in place on the int64 one-hot of growth stages
    "growth-stage-one-hot-smoothed-in-place": case(_stage_labels_smoothed_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # growth-stage class frequencies counted with histc on the int64 labels
    "growth-stage-frequencies-histc-int64": case(_stage_frequencies_histc, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # BBCH stage on a flight date interpolated with lerp between two int64 scouting surveys
    "bbch-stage-lerp-int64-between-surveys": case(_stage_interpolated_between_flights, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- float64 soil readings from pandas
    # soil lab table with "<0.5" detection-limit strings made into a tensor (object array)
    "soil-lab-detection-limit-object-array": case(_soil_lab_detection_limits, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # hourly soil-moisture probe series (float64 from pandas) into a bf16 LSTM encoder
    "soil-moisture-f64-series-bf16-lstm": case(_soil_moisture_series_bf16_lstm, "rnn_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 soil readings into the bf16 FiLM Linear of a yield backbone
    "soil-readings-f64-film-bf16-linear": case(_soil_film_bf16_linear, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- bf16 yield regressors
    # nn.Bilinear fusion of bf16 image features with an fp32 soil encoder's features
    "yield-bilinear-fusion-bf16-fp32-soil": case(_yield_bilinear_fusion, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # spatial-lag layer: float64 row-standardised neighbour weights bmm'd with bf16 plot features
    "yield-spatial-lag-bmm-f64-weights": case(_yield_spatial_lag_bmm, "batched_matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 per-plot yield predictions put into a pandas DataFrame for the trial report
    "yield-bf16-predictions-pandas-report": case(_yield_predictions_to_trial_report, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 GroupNorm in a yield head whose Conv1d was kept fp32
    "yield-head-bf16-group-norm-fp32-conv": case(_yield_group_norm_fp32_features, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-field mean yield: bf16 pixel yields index_reduce_'d into an fp32 buffer
    "field-mean-yield-index-reduce-bf16": case(_field_mean_yield_index_reduce, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- fp16 leaf-disease CNNs
    # an fp32 Sobel kernel convolved with the fp16 grayscale leaf
    "leaf-margin-sobel-fp32-kernel-f16-leaf": case(_leaf_edges_sobel_fp32, "conv_weight_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Savitzky-Golay derivative of fp16 leaf spectra with scipy's float64 coefficients in conv1d
    "leaf-spectra-savgol-f64-conv1d-f16": case(_leaf_spectra_savgol_derivative, "conv_weight_dtype", "f16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # per-sample mixup lambdas from numpy (float64) promote the fp16 leaf batch before the .half() CNN
    "leaf-mixup-numpy-f64-lambdas-half-cnn": case(_leaf_mixup_numpy_lambdas, "conv_weight_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp32 EMA shadow of the fp16 leaf-disease CNN updated with lerp_
    "leaf-cnn-ema-fp32-shadow-lerp-f16": case(_leaf_cnn_ema_shadow, "lerp_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling over leaf patches in an fp16 MultiheadAttention with an fp32 float key_padding_mask
    "leaf-patch-attention-pool-fp32-padding-mask": case(_leaf_patch_attention_pooling, "attn_mask_dtype", "f32",
                                                        "f16",
        grade="correct", grade_at_freeze="correct"),
}
