"""Held-out live set 138: satellite remote sensing and land-cover mapping written by hand in low precision (Sentinel-2
L2A tiles as uint16 reflectances from rasterio, int64 class maps with a nodata value, bool cloud masks from the SCL
band, spectral indices in fp16, bf16 U-Nets and vision transformers over bands and acquisition dates, georeferenced
patches sampled with int64 pixel offsets, accuracy and area statistics). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at d039d1a0."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d039d1a0"

bf16, f16 = torch.bfloat16, torch.float16
_H = _W = 32
_BANDS = ("B02", "B03", "B04", "B08", "B11", "B12")  # blue, green, red, NIR at 10 m; SWIR at 20 m, resampled
_NODATA = 255  # the class map's nodata value
_CLASSES = 8  # water, tree, grass, crop, shrub, built, bare, snow
_TRANSFORM = (10.0, 0.0, 600000.0, 0.0, -10.0, 5300000.0)  # rasterio Affine (a, b, c, d, e, f), UTM 32N


def _seeded() -> None:
    torch.manual_seed(0)


def _tile(seed: int = 0) -> torch.Tensor:
    """A Sentinel-2 L2A tile as rasterio reads it: uint16 reflectance x 10000 (+1000 offset since PB 04.00), (C, H, W)."""
    rng = np.random.default_rng(seed)
    dn = rng.integers(1000, 6000, size=(len(_BANDS), _H, _W), dtype=np.uint16)
    dn[3, :, : _W // 2] += 3000  # NIR brighter over the vegetated west half
    dn[:, :4, :4] = 0  # the nodata corner outside the swath
    return torch.from_numpy(dn)


def _reflectance(dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Surface reflectance in [0, 1] of the same tile as a batch (1, C, H, W)."""
    return ((_tile().float() - 1000.0).clamp(min=0) / 10000.0)[None].to(dtype)


def _class_map() -> torch.Tensor:
    """The reference land-cover map for the tile: int64 class ids, 255 where there is no reference (H, W)."""
    classes = torch.arange(_H * _W).reshape(_H, _W) // 128 % _CLASSES
    classes[:4, :4] = _NODATA
    return classes


def _scl_cloud_mask() -> torch.Tensor:
    """Cloud (SCL 8, 9, 10) at the SCL band's 20 m resolution: bool (1, 1, H/2, W/2)."""
    scl = torch.full((_H // 2, _W // 2), 4, dtype=torch.uint8)  # 4 = vegetation
    scl[2:7, 3:9] = 9  # cloud high probability
    scl[10:12, 1:5] = 8
    return torch.isin(scl, torch.tensor([8, 9, 10], dtype=torch.uint8))[None, None]


# --- raw uint16 tiles from rasterio


def _pb0400_offset_subtracted_on_uint16() -> None:
    tile = _tile()
    boa_add_offset = 1000  # BOA_ADD_OFFSET from the product's metadata (processing baseline 04.00)
    reflectance = (tile - boa_add_offset) / 10000.0
    reflectance.mean()


def _brightness_cloud_test_on_uint16_blue() -> None:
    tile = _tile()
    blue = tile[0]
    bright = blue > 4500  # a hand-written brightness test in place of the SCL band
    bright.sum()


def _median_composite_uint16_time_stack() -> None:
    stack = torch.stack([_tile(seed) for seed in range(5)])  # five acquisitions (T, C, H, W), all uint16
    composite = stack.median(dim=0).values
    composite.float().mean()


def _corine_codes_uint16_embedding() -> None:
    _seeded()
    clc = torch.full((_H, _W), 211, dtype=torch.uint16)  # CORINE Land Cover codes (111..523) as the raster stores them
    clc[:, : _W // 2] = 311
    clc[:8] = 112
    prior = nn.Embedding(524, 16)  # a learned prior per CORINE code, fed as an extra input to the U-Net
    prior(clc)


# --- class maps, cloud masks and nodata


def _scl_cloud_mask_upsampled_nearest() -> None:
    cloud_20m = _scl_cloud_mask()
    cloud_10m = F.interpolate(cloud_20m, size=(_H, _W), mode="nearest")  # to the 10 m grid of B02..B08
    cloud_10m.sum()


def _clear_sky_valid_minus_cloud() -> None:
    tile = _tile()
    valid = (tile != 0).all(dim=0)
    cloud = F.interpolate(_scl_cloud_mask().float(), size=(_H, _W), mode="nearest")[0, 0].bool()
    clear = valid - cloud
    clear.sum()


def _read_masks_uint8_masked_select() -> None:
    tile = _tile().float()
    dataset_mask = np.where(tile[0].numpy() == 0, 0, 255).astype(np.uint8)  # what src.read_masks(1) returns: 0 / 255
    valid = torch.from_numpy(dataset_mask)
    pixels = torch.masked_select(tile[3], valid)
    pixels.mean()


def _class_map_cast_with_batch_as_ce_target() -> None:
    _seeded()
    batch = {"image": _reflectance(), "mask": _class_map()[None]}
    batch = {key: value.to(bf16) for key, value in batch.items()}  # the "cast the batch to bf16" step of the loader
    head = nn.Conv2d(len(_BANDS), _CLASSES, 1).to(bf16)
    F.cross_entropy(head(batch["image"]), batch["mask"], ignore_index=_NODATA)


def _bigearthnet_multi_hot_int64_labels() -> None:
    _seeded()
    labels = torch.zeros(2, 19, dtype=torch.long)  # BigEarthNet 19-class nomenclature, multi-hot per patch
    labels[0, [2, 11]] = 1
    labels[1, [5]] = 1
    logits = nn.Linear(64, 19)(torch.randn(2, 64))
    F.binary_cross_entropy_with_logits(logits, labels)


def _gedi_canopy_height_int64_huber() -> None:
    _seeded()
    rh98 = torch.tensor([[1830, 2210, 0, 950]])  # GEDI RH98 footprints rasterised as int64 centimetres
    head = nn.Linear(len(_BANDS), 1)
    pixels = _reflectance()[0, :, 5, 10:14].T
    height = head(pixels).T * 100.0
    F.huber_loss(height, rh98, delta=500.0).backward()


def _class_area_f32_index_add_into_int64() -> None:
    classes = _class_map().flatten()
    valid = classes != _NODATA
    pixel_area_ha = torch.full((classes.numel(),), 0.01)  # a 10 m pixel is 0.01 ha
    area = torch.zeros(_CLASSES, dtype=torch.long)  # zeros() as for the pixel counts
    area.index_add_(0, classes[valid], pixel_area_ha[valid])


def _ndvi_composite_accumulator_like_class_map() -> None:
    refl = _reflectance()[0]
    total = torch.zeros_like(_class_map())  # the running NDVI sum shaped like the class map, so int64
    for _ in range(3):
        ndvi = (refl[3] - refl[2]) / (refl[3] + refl[2] + 1e-6)
        total += ndvi


# --- georeferenced patches and int64 pixel offsets


def _field_points_inverse_affine_float_index() -> None:
    tile = _tile().float()
    a, _, c, _, e, f = _TRANSFORM
    eastings = torch.tensor([600055.0, 600173.0, 600281.0])  # field survey points (UTM 32N)
    northings = torch.tensor([5299945.0, 5299802.0, 5299731.0])
    cols = torch.floor((eastings - c) / a)  # ~transform * (x, y), floored like rasterio.transform.rowcol
    rows = torch.floor((northings - f) / e)
    samples = tile[:, rows, cols]
    samples.mean()


def _pixel_offsets_int64_location_linear() -> None:
    _seeded()
    offsets = torch.randint(0, 10980 - 256, (4, 2))  # (row_off, col_off) of each patch in the 10980 x 10980 tile
    location_token = nn.Linear(2, 64)  # location token of a geo-aware ViT
    location_token(offsets)


def _utm_pixel_centres_linspace_fp16() -> None:
    _, _, c, _, _, f = _TRANSFORM
    features = torch.randn(1, 16, _H, _W).to(f16)
    xs = torch.linspace(c + 5.0, c + 10.0 * _W - 5.0, _W, dtype=features.dtype)  # pixel-centre eastings, metres
    ys = torch.linspace(f - 5.0, f - 10.0 * _H + 5.0, _H, dtype=features.dtype)
    torch.stack(torch.meshgrid(ys, xs, indexing="ij"))


# --- spectral indices and bf16 networks


def _fp16_indices_into_bf16_patch_embed() -> None:
    _seeded()
    refl = _reflectance(f16)
    red, nir, swir = refl[:, 2], refl[:, 3], refl[:, 4]
    indices = torch.stack([(nir - red) / (nir + red + 1e-3), (nir - swir) / (nir + swir + 1e-3)], dim=1)  # NDVI, NDMI
    patch_embed = nn.Conv2d(2, 64, kernel_size=8, stride=8).to(bf16)  # the ViT cast to bf16
    patch_embed(indices)


def _unet_skip_cat_fp32_dem_channel() -> None:
    _seeded()
    skip = torch.randn(1, 16, _H, _W).to(bf16)  # encoder features of the bf16 U-Net
    dem = torch.rand(1, 1, _H, _W) * 2.0  # Copernicus DEM (normalised), loaded as fp32 alongside the tile
    decoder_block = nn.Conv2d(17, 16, 3, padding=1).to(bf16)
    decoder_block(torch.cat([skip, dem], dim=1))


def _get_2d_sincos_pos_embed(dim: int, grid: int) -> np.ndarray:
    """MAE's numpy position embedding (float64), as SatMAE copies it."""
    omega = 1.0 / 10000 ** (np.arange(dim // 4, dtype=np.float64) / (dim / 4.0))
    ys, xs = np.meshgrid(np.arange(grid, dtype=np.float64), np.arange(grid, dtype=np.float64), indexing="ij")
    parts = [np.sin(np.outer(xs.ravel(), omega)), np.cos(np.outer(xs.ravel(), omega)),
             np.sin(np.outer(ys.ravel(), omega)), np.cos(np.outer(ys.ravel(), omega))]
    return np.concatenate(parts, axis=1)


def _satmae_f64_pos_embed_into_bf16_layernorm() -> None:
    _seeded()
    patch_embed = nn.Conv2d(len(_BANDS), 32, kernel_size=8, stride=8).to(bf16)
    tokens = patch_embed(_reflectance(bf16)).flatten(2).transpose(1, 2)  # (1, 16, 32)
    pos_embed = torch.from_numpy(_get_2d_sincos_pos_embed(32, 4))[None]  # without .float()
    norm = nn.LayerNorm(32).to(bf16)
    norm(tokens + pos_embed)


def _s1_s2_cross_attention_fp32_sar() -> None:
    _seeded()
    s2_tokens = torch.randn(1, 4, 16, 32).to(bf16)  # bf16 optical ViT tokens (B, heads, N, d)
    sar_encoder = nn.Linear(2, 32)  # Sentinel-1 VV/VH encoder kept fp32 ("SAR dB values need the range")
    sar = sar_encoder(torch.randn(1, 16, 2)).reshape(1, 16, 1, 32).transpose(1, 2).expand(1, 4, 16, 32)
    F.scaled_dot_product_attention(s2_tokens, sar, sar)


def _s2cloudless_fp16_log_bias_attn_mask() -> None:
    _seeded()
    tokens = torch.randn(1, 4, 16, 32).to(bf16)
    cloud_prob = torch.rand(16).to(f16)  # s2cloudless probability per patch, cached in fp16
    bias = torch.log1p(-cloud_prob.clamp(max=0.99))[None, :].expand(16, 16)  # down-weight cloudy keys
    F.scaled_dot_product_attention(tokens, tokens, tokens, attn_mask=bias)


def _satclip_f64_lonlat_location_encoder() -> None:
    _seeded()
    centroids = np.array([[11.25, 47.81], [11.31, 47.78], [11.19, 47.85]])  # GeoDataFrame.centroid x/y (float64)
    location_encoder = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64))
    location_encoder(torch.from_numpy(centroids))


def _ltae_fp32_master_query_bmm_bf16_keys() -> None:
    _seeded()
    dates = torch.randn(2, 12, 32).to(bf16)  # per-date embeddings of the bf16 pixel-set encoder (B, T, d)
    master_query = torch.randn(2, 1, 32)  # L-TAE's learned master query, created after model.to(bf16)
    scores = torch.bmm(master_query, dates.transpose(1, 2)) / 32 ** 0.5
    scores.softmax(-1)


def _temporal_encoder_eval_autocast_missing_dates() -> None:
    _seeded()
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2).eval()
    series = torch.randn(2, 6, 16)  # six Sentinel-2 acquisitions per pixel set
    missing = torch.tensor([[False] * 6, [False, False, False, False, True, True]])  # cloudy dates dropped
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        encoder(series, src_key_padding_mask=missing)


# --- analysis, gradients and export


def _embedding_pca_false_colour_svd_bf16() -> None:
    _seeded()
    embeddings = torch.randn(_H * _W // 64, 32).to(bf16)  # bf16 ViT patch embeddings of the tile
    centred = embeddings - embeddings.mean(dim=0)
    _, _, v = torch.linalg.svd(centred, full_matrices=False)
    centred @ v[:3].T


def _true_colour_percentile_stretch_fp16() -> None:
    rgb = _reflectance(f16)[0, [2, 1, 0]]  # B04, B03, B02
    low = torch.quantile(rgb.flatten(1), 0.02, dim=1)
    high = torch.quantile(rgb.flatten(1), 0.98, dim=1)
    ((rgb - low[:, None, None]) / (high - low)[:, None, None]).clamp(0, 1)


def _kriging_cloud_gaps_cholesky_fp16() -> None:
    _seeded()
    coords = torch.rand(12, 2).to(f16) * 320.0  # clear pixels around a cloud gap, metres
    distance = torch.cdist(coords.float(), coords.float()).to(f16)
    covariance = torch.exp(-distance / 100.0) + 1e-3 * torch.eye(12, dtype=f16)
    torch.linalg.cholesky(covariance)


def _gedi_footprint_gradient_mask_hook() -> None:
    _seeded()
    head = nn.Conv2d(len(_BANDS), 1, 1).to(bf16)
    height = head(_reflectance(bf16))
    footprints = torch.zeros(1, 1, _H, _W)  # fp32 weights: 1 at the GEDI footprints, 0 elsewhere
    footprints[..., ::8, ::8] = 1.0
    height.register_hook(lambda grad: grad * footprints)
    height.float().square().mean().backward()


def _ndvi_nodata_zero_division_clip_grad() -> None:
    _seeded()
    refl = _reflectance()
    red, nir = refl[:, 2:3], refl[:, 3:4]
    ndvi = (nir - red) / (nir + red)  # 0 / 0 in the nodata corner
    model = nn.Conv2d(len(_BANDS) + 1, _CLASSES, 3, padding=1)
    logits = model(torch.cat([refl, ndvi], dim=1))
    F.cross_entropy(logits, _class_map()[None], ignore_index=_NODATA).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)


def _fp8_embedding_archive_cosine_search() -> None:
    _seeded()
    archive = torch.randn(100, 32).to(torch.float8_e4m3fn)  # per-chip embeddings archived in float8 to save space
    query = torch.randn(1, 32)  # embedding of the query chip, fp32
    F.cosine_similarity(archive, query, dim=1).topk(5)


def _bf16_embeddings_to_numpy_random_forest() -> None:
    _seeded()
    embeddings = torch.randn(16, 32).to(bf16)  # bf16 ViT patch embeddings as features for a scikit-learn forest
    np.asarray(embeddings)


CASES: dict[str, LiveCase] = {
    # --- raw uint16 tiles from rasterio
    # processing baseline 04.00: BOA_ADD_OFFSET (1000) subtracted from the raw uint16 tile before scaling
    "pb0400-offset-subtract-uint16-tile": case(_pb0400_offset_subtracted_on_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # a hand-written brightness cloud test (blue > 4500) on the raw uint16 B02 band
    "brightness-cloud-test-uint16-blue": case(_brightness_cloud_test_on_uint16_blue, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # a per-pixel median composite over five uint16 acquisitions
    "median-composite-uint16-time-stack": case(_median_composite_uint16_time_stack, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # CORINE Land Cover codes from the uint16 raster looked up in a learned-prior nn.Embedding
    "corine-codes-uint16-embedding": case(_corine_codes_uint16_embedding, "index_tensor_dtype", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # --- class maps, cloud masks and nodata
    # the bool SCL cloud mask upsampled from 20 m to 10 m with nearest interpolate
    "scl-cloud-mask-bool-nearest-upsample": case(_scl_cloud_mask_upsampled_nearest, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # clear-sky pixels as the bool valid mask minus the bool cloud mask
    "clear-sky-valid-minus-cloud-bool": case(_clear_sky_valid_minus_cloud, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # rasterio's dataset mask (read_masks: uint8 0/255) given to masked_select
    "read-masks-uint8-masked-select": case(_read_masks_uint8_masked_select, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="partly",
        why=("At freeze (d039d1a0) castwise gave mask_dtype [] (high confidence): the right kind, no dtype. By "
             "cause: torch's message ('masked_select: expected BoolTensor for mask') names no dtype, and the "
             "expectation lists uint8, which only the code shows; the writer's slip against the convention to list "
             "only the dtypes the message shows, left as written (expectations are not changed after grading). "
             "Right since round ninety-eight's fix: a live masked op whose message names no dtype names the one "
             "integer dtype its frame held")),
    # the int64 class map cast to bf16 with the rest of the batch, then cross_entropy's target
    "class-map-bf16-batch-cast-ce-target": case(_class_map_cast_with_batch_as_ce_target, "target_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # BigEarthNet multi-hot labels built with torch.zeros(dtype=long) as the BCE-with-logits target
    "bigearthnet-multi-hot-int64-bce": case(_bigearthnet_multi_hot_int64_labels, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # canopy height regression against GEDI RH98 rasterised as int64 centimetres, huber_loss backward
    "gedi-rh98-int64-huber-target": case(_gedi_canopy_height_int64_huber, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-class area in hectares: fp32 pixel areas index_add_'ed into an int64 zeros buffer
    "class-area-f32-index-add-int64": case(_class_area_f32_index_add_into_int64, "indexed_write_dtype", "int64",
                                           "f32",
        grade="correct", grade_at_freeze="correct"),
    # an NDVI sum over dates accumulated in zeros_like(class map), so int64, with +=
    "ndvi-sum-zeros-like-int64-class-map": case(_ndvi_composite_accumulator_like_class_map, "result_cast", "f32",
                                                "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- georeferenced patches and int64 pixel offsets
    # field points to pixels by the inverse affine with floor (still float) used as advanced indices
    "field-points-inverse-affine-float-index": case(_field_points_inverse_affine_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a geo-aware ViT's location token fed the patches' int64 (row_off, col_off) straight into a Linear
    "pixel-offsets-int64-location-linear": case(_pixel_offsets_int64_location_linear, "integer_operand", "int64",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # pixel-centre UTM eastings/northings built with linspace in the fp16 feature dtype
    "utm-pixel-centres-linspace-fp16": case(_utm_pixel_centres_linspace_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- spectral indices and bf16 networks
    # fp16 NDVI/NDMI stack fed to a bf16 ViT's Conv2d patch embedding
    "fp16-indices-bf16-patch-embed": case(_fp16_indices_into_bf16_patch_embed, "conv_weight_dtype", "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 U-Net skip features concatenated with an fp32 DEM channel (cat promotes) into the bf16 decoder conv
    "unet-skip-cat-fp32-dem-bf16-conv": case(_unet_skip_cat_fp32_dem_channel, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SatMAE copy of MAE's numpy (float64) sin-cos position embedding added without .float(), into a bf16 LayerNorm
    "satmae-f64-pos-embed-bf16-layernorm": case(_satmae_f64_pos_embed_into_bf16_layernorm, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Sentinel-1/Sentinel-2 fusion: bf16 optical queries over keys/values of a SAR encoder kept fp32, SDPA
    "s1-s2-cross-attention-fp32-sar-sdpa": case(_s1_s2_cross_attention_fp32_sar, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # s2cloudless probabilities cached fp16 turned into an additive attn_mask for bf16 SDPA
    "s2cloudless-fp16-log-bias-attn-mask": case(_s2cloudless_fp16_log_bias_attn_mask, "attn_mask_dtype", "f16",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SatCLIP-style location encoder fed float64 lon/lat centroids from GeoPandas
    "satclip-f64-lonlat-location-encoder": case(_satclip_f64_lonlat_location_encoder, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # L-TAE: an fp32 master query made after model.to(bf16), torch.bmm with bf16 date embeddings
    "ltae-fp32-master-query-bmm-bf16": case(_ltae_fp32_master_query_bmm_bf16_keys, "batched_matmul_dtype", "f32",
                                            "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a temporal TransformerEncoder in eval under bf16 autocast with a padding mask for cloudy dates
    "temporal-encoder-eval-autocast-missing-dates": case(_temporal_encoder_eval_autocast_missing_dates,
                                                         "transformer_fastpath", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- analysis, gradients and export
    # PCA false-colour of bf16 ViT patch embeddings with torch.linalg.svd
    "embedding-pca-svd-bf16": case(_embedding_pca_false_colour_svd_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # 2-98 % percentile stretch of an fp16 true-colour composite with torch.quantile
    "true-colour-stretch-quantile-fp16": case(_true_colour_percentile_stretch_fp16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # kriging a cloud gap: Cholesky of an fp16 exponential covariance
    "kriging-cloud-gap-cholesky-fp16": case(_kriging_cloud_gaps_cholesky_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook masking the bf16 height map's gradient to GEDI footprints with fp32 weights
    "gedi-footprint-grad-hook-fp32": case(_gedi_footprint_gradient_mask_hook, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # NDVI as an input channel without epsilon: 0/0 in the nodata corner, clip_grad_norm_ refuses the NaN norm
    "ndvi-nodata-zero-division-clip-grad": case(_ndvi_nodata_zero_division_clip_grad, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # chip similarity search over a float8_e4m3fn embedding archive with an fp32 query, cosine_similarity
    "fp8-embedding-archive-cosine-search": case(_fp8_embedding_archive_cosine_search, "fp8_promotion",
                                                "float8_e4m3fn", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 ViT embeddings handed to np.asarray for a scikit-learn random forest
    "bf16-embeddings-numpy-random-forest": case(_bf16_embeddings_to_numpy_random_forest, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
