"""Held-out live set 143: industrial visual inspection and defect segmentation written by hand in low precision (uint8
and uint16 Mono8/Mono12 camera frames from machine-vision SDKs, dead-pixel maps and burst dark frames, flat-field
gains from numpy, int64 defect class maps read from PNGs, bool region-of-interest and exclusion masks, PatchCore-style
patch memory banks scored with cdist/einsum and topk, product-quantized banks, SimpleNet adaptors and discriminators,
bf16 feature extractors and decoders, anomaly maps upsampled with interpolate, unwarped with grid_sample and
thresholded). Defects planted by a helper who never read the rules, written before castwise ran and graded once with
the rules frozen at b19dbc97."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b19dbc97"

bf16, f16 = torch.bfloat16, torch.float16
_H, _W = 32, 48  # a cropped camera frame (rows, columns)
_MONO12_MAX = 4095
_CLASSES = 4  # background, scratch, dent, stain
_C = 32  # feature channels of the hooked backbone layers
_P = 6  # feature-map side: 6 x 6 patches per image


def _seeded() -> None:
    torch.manual_seed(0)


def _mono12_frame(batch: int = 2) -> torch.Tensor:
    """A batch of Mono12 frames as the camera SDK hands them over: uint16, values 0..4095."""
    _seeded()
    return torch.randint(0, _MONO12_MAX + 1, (batch, 1, _H, _W), dtype=torch.int32).to(torch.uint16)


def _mono8_frame(batch: int = 2) -> torch.Tensor:
    """A batch of Mono8 frames (uint8), as cv2.imread(..., IMREAD_GRAYSCALE) gives them."""
    _seeded()
    return torch.randint(0, 256, (batch, 1, _H, _W), dtype=torch.uint8)


def _class_map(batch: int = 2) -> torch.Tensor:
    """A defect class map (int64 ids 0..3): background with a scratch, a dent and a stain."""
    cmap = torch.zeros(batch, _H, _W, dtype=torch.long)
    cmap[:, 4:6, 5:30] = 1
    cmap[:, 12:18, 20:26] = 2
    cmap[:, 22:28, 8:14] = 3
    return cmap


def _roi(h: int = _H, w: int = _W) -> torch.Tensor:
    """The inspection region of interest (bool): the part, without the fixture's border."""
    roi = torch.zeros(h, w, dtype=torch.bool)
    roi[2:-2, 3:-3] = True
    return roi


def _patch_features(batch: int = 2, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Locally aware patch features (N*P*P, C) as PatchCore collects them from layer2/layer3."""
    _seeded()
    return torch.randn(batch * _P * _P, _C).to(dtype)


def _bf16_backbone() -> nn.Module:
    """A small frozen feature extractor cast to bf16 for throughput on the line PC."""
    _seeded()
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, _C, 3, stride=2, padding=1), nn.BatchNorm2d(_C), nn.ReLU(),
    ).eval().to(bf16)


# --- camera frames


def _mono12_uint16_frame_into_conv_stem() -> None:
    frames = _mono12_frame()
    stem = nn.Conv2d(1, 8, 3, padding=1)
    stem(frames)


def _pixel_noise_std_over_uint8_burst() -> None:
    burst = _mono8_frame(batch=8)[:, 0]  # 8 shots of a static grey target for the camera health check
    temporal_noise = burst.std(dim=0)
    temporal_noise.mean()


def _dead_pixel_masked_fill_uint16() -> None:
    frames = _mono12_frame()
    dead = torch.zeros(_H, _W, dtype=torch.bool)  # from the camera's defect-pixel list
    dead[3, 7] = dead[19, 40] = True
    frames.masked_fill(dead, 0)


def _burst_minimum_initialised_at_two_to_sixteen() -> None:
    frames = _mono12_frame(batch=4)
    running_min = torch.full((_H, _W), 2 ** 16, dtype=torch.uint16)  # "larger than any 16-bit value"
    for frame in frames[:, 0]:
        running_min = torch.minimum(running_min, frame)


def _dark_frame_burst_minimum_uint16() -> None:
    frames = _mono12_frame(batch=4)[:, 0]  # lens cap on: a burst for the dark frame
    dark = frames[0].clone()
    for frame in frames[1:]:
        dark = torch.minimum(dark, frame)


def _flat_field_gain_numpy_f64_into_conv() -> None:
    _seeded()
    flat = np.full((_H, _W), 3000.0)
    flat[:, :8] = 2600.0  # vignetting at the left edge of the field
    gain = flat.mean() / flat  # float64 per-pixel gain from the calibration script
    frames = _mono12_frame().float() / _MONO12_MAX
    corrected = frames * torch.from_numpy(gain)
    nn.Conv2d(1, 8, 3, padding=1, bias=False)(corrected)


# --- defect class maps


def _class_map_uint16_png_cross_entropy() -> None:
    _seeded()
    target = _class_map().numpy().astype(np.uint16)  # the labelling tool writes 16-bit PNG label maps
    logits = torch.randn(2, _CLASSES, _H, _W)
    F.cross_entropy(logits, torch.from_numpy(target))


def _class_map_uint8_one_hot_for_dice() -> None:
    _seeded()
    cmap = _class_map().to(torch.uint8)  # cv2.imread of the 8-bit label PNG
    probs = torch.randn(2, _CLASSES, _H, _W).softmax(1)
    onehot = F.one_hot(cmap, _CLASSES).permute(0, 3, 1, 2).float()
    inter = (probs * onehot).sum((2, 3))
    dice_loss = 1 - (2 * inter / (probs.sum((2, 3)) + onehot.sum((2, 3)))).mean()
    dice_loss.item()


def _class_map_nearest_downsample_int64() -> None:
    cmap = _class_map()
    F.interpolate(cmap[:, None], size=(_H // 4, _W // 4), mode="nearest")  # deep-supervision target at 1/4


def _confusion_matrix_bincount_float_prediction() -> None:
    _seeded()
    gt = _class_map().flatten()
    logits = torch.randn(2, _CLASSES, _H, _W)
    pred = F.interpolate(logits.argmax(1, keepdim=True).float(), size=(_H, _W), mode="nearest").flatten()
    torch.bincount(gt * _CLASSES + pred, minlength=_CLASSES ** 2).reshape(_CLASSES, _CLASSES)


# --- region-of-interest masks


def _roi_minus_exclusion_zone_bools() -> None:
    roi = _roi()
    exclusion = torch.zeros(_H, _W, dtype=torch.bool)
    exclusion[10:14, 20:30] = True  # the embossed serial number is never inspected
    inspect = roi - exclusion
    inspect.sum()


def _roi_from_fillpoly_uint8_masked_select() -> None:
    _seeded()
    canvas = np.zeros((_H, _W), dtype=np.uint8)  # cv2.fillPoly(canvas, [polygon], 1)
    canvas[2:-2, 3:-3] = 1
    anomaly_map = torch.rand(_H, _W)
    anomaly_map.masked_select(torch.from_numpy(canvas))  # pixel scores inside the ROI for the AUROC


def _top_defect_patches_topk_of_bool_decisions() -> None:
    _seeded()
    patch_scores = torch.rand(_P * _P)
    defective = patch_scores > 0.8
    defective.topk(3)  # the three patches to crop for the operator's review screen


def _vit_roi_token_mask_fp32_in_bf16_attention() -> None:
    _seeded()
    attention = nn.MultiheadAttention(_C, 4, batch_first=True).to(bf16)
    tokens = torch.randn(2, _P * _P, _C).to(bf16)
    roi_tokens = torch.rand(_P * _P) > 0.2
    additive = torch.zeros(_P * _P, _P * _P)
    additive[:, ~roi_tokens] = float("-inf")  # tokens outside the ROI attend nowhere
    attention(tokens, tokens, tokens, attn_mask=additive)


# --- patch memory banks


def _memory_bank_bf16_cdist() -> None:
    bank = _patch_features(batch=4, dtype=bf16)  # collected from the bf16 extractor and kept as it came
    query = _patch_features(batch=1, dtype=bf16)
    exact = torch.cdist(query, bank, compute_mode="donot_use_mm_for_euclid_dist")  # exact, no |a|^2 - 2ab + |b|^2
    exact.min(dim=1).values.max()


def _product_quantized_uint8_codes_cdist() -> None:
    _seeded()
    codebook_ids = torch.randint(0, 256, (4 * _P * _P, 8), dtype=torch.uint8)  # 8 sub-quantizers per patch
    query_ids = torch.randint(0, 256, (_P * _P, 8), dtype=torch.uint8)
    torch.cdist(query_ids, codebook_ids, p=0).min(dim=1)


def _numpy_f64_memory_bank_cdist() -> None:
    _seeded()
    bank = np.concatenate([np.random.default_rng(i).normal(size=(_P * _P, _C)) for i in range(3)])  # bank.npy
    query = _patch_features(batch=1)
    torch.cdist(query, torch.from_numpy(bank)).amin(dim=1)


def _batched_queries_einsum_bf16_bank() -> None:
    query = F.normalize(_patch_features(batch=2).reshape(2, _P * _P, _C), dim=-1)
    bank = F.normalize(_patch_features(batch=4), dim=-1).to(bf16)  # bank halved to fit the line PC
    similarity = torch.einsum("bpd,md->bpm", query, bank)
    similarity.amax(dim=-1)


def _threshold_np_percentile_bf16_validation_maps() -> None:
    _seeded()
    validation_maps = torch.rand(4, _H, _W).to(bf16)  # from the bf16 pipeline on good parts
    np.percentile(validation_maps, 99.5)


def _coreset_index_copy_bf16_into_fp32_bank() -> None:
    _seeded()
    bank = torch.zeros(16, _C)  # preallocated coreset bank
    features = _patch_features(batch=1, dtype=bf16)
    picked = torch.randperm(features.shape[0])[:16]
    bank.index_copy_(0, torch.arange(16), features[picked])


# --- bf16 feature extractors and heads


def _bf16_backbone_uint8_frame_divided_by_255() -> None:
    rgb = _mono8_frame().expand(-1, 3, -1, -1)
    _bf16_backbone()(rgb.float() / 255)


def _patch_aggregation_layer_norm_bf16_on_fp32_features() -> None:
    _seeded()
    norm = nn.LayerNorm(_C).to(bf16)  # created beside the backbone and cast with it
    features = torch.randn(2, _C, _P, _P).to(bf16).float()  # upcast for the 3x3 neighbourhood aggregation
    aggregated = F.avg_pool2d(features, 3, stride=1, padding=1)
    norm(aggregated.permute(0, 2, 3, 1))


def _simplenet_fp32_adaptor_on_bf16_features() -> None:
    _seeded()
    adaptor = nn.Linear(_C, _C)
    features = _patch_features(dtype=bf16)
    adaptor(features)


def _simplenet_discriminator_bool_targets() -> None:
    _seeded()
    discriminator = nn.Sequential(nn.Linear(_C, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    real = _patch_features(batch=1)
    fake = real + 0.015 * torch.randn_like(real)
    logits = discriminator(torch.cat([real, fake])).squeeze(-1)
    is_real = torch.arange(logits.shape[0]) < real.shape[0]
    F.binary_cross_entropy_with_logits(logits, is_real)


def _segmentation_decoder_fp32_upsampler_on_bf16_features() -> None:
    _seeded()
    features = _bf16_backbone()(torch.randn(1, 3, _H, _W).to(bf16))
    upsampler = nn.ConvTranspose2d(_C, 16, 2, stride=2, bias=False)  # the decoder added after the cast
    upsampler(features)


# --- anomaly maps


def _anomaly_map_antialias_bf16_thumbnail() -> None:
    _seeded()
    anomaly_map = torch.rand(1, 1, _H, _W).to(bf16)
    F.interpolate(anomaly_map, size=(_H // 4, _W // 4), mode="bilinear", antialias=True)  # report thumbnail


def _anomaly_map_outside_roi_fill_f16() -> None:
    _seeded()
    patch_scores = torch.rand(1, 1, _P, _P).half()
    anomaly_map = F.interpolate(patch_scores, size=(_H, _W), mode="bilinear", align_corners=False)[0, 0]
    anomaly_map.masked_fill(~_roi(), -1e5)  # below any real score


def _image_score_quantile_bf16_upsampled_map() -> None:
    _seeded()
    patch_scores = torch.rand(2, 1, _P, _P).to(bf16)
    anomaly_map = F.interpolate(patch_scores, size=(_H, _W), mode="bilinear", align_corners=False)
    torch.quantile(anomaly_map.flatten(1), 0.99, dim=1)  # robust image-level score


def _anomaly_map_unwarped_grid_sample_bf16() -> None:
    _seeded()
    anomaly_map = torch.rand(1, 1, _H, _W).to(bf16)
    theta = torch.tensor([[[0.98, 0.05, 0.01], [-0.05, 0.98, -0.02]]])  # inverse of the part registration
    grid = F.affine_grid(theta, [1, 1, _H, _W], align_corners=False)
    F.grid_sample(anomaly_map, grid, align_corners=False)


def _defect_segmentation_bf16_sigmoid_bce_fp32_gt() -> None:
    _seeded()
    logits = torch.randn(1, 1, _H // 4, _W // 4).to(bf16)  # the bf16 decoder's output at 1/4
    probs = torch.sigmoid(F.interpolate(logits, size=(_H, _W), mode="bilinear", align_corners=False))
    gt = (_class_map(batch=1) > 0).float()[:, None]
    F.binary_cross_entropy(probs, gt)


CASES: dict[str, LiveCase] = {
    # --- camera frames
    # a Mono12 frame (uint16 from the GigE SDK) batched straight into a float Conv2d stem with bias
    "mono12-uint16-frame-conv-stem": case(_mono12_uint16_frame_into_conv_stem, "integer_operand", "uint16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # camera health check: per-pixel temporal noise as std over a burst of uint8 Mono8 frames
    "pixel-noise-std-uint8-burst": case(_pixel_noise_std_over_uint8_burst, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # dead pixels from the camera's defect list zeroed with masked_fill on the uint16 frame
    "dead-pixel-masked-fill-uint16": case(_dead_pixel_masked_fill_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # burst running minimum started at 2 ** 16 in a uint16 tensor
    "burst-min-init-two-to-sixteen-uint16": case(_burst_minimum_initialised_at_two_to_sixteen, "half_overflow",
                                                 "uint16", grade="correct", grade_at_freeze="correct"),
    # dark frame as the per-pixel torch.minimum over a lens-capped uint16 burst
    "dark-frame-burst-minimum-uint16": case(_dark_frame_burst_minimum_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # flat-field correction with a float64 numpy gain map, the corrected frame into an fp32 Conv2d
    "flat-field-numpy-f64-gain-into-conv": case(_flat_field_gain_numpy_f64_into_conv, "conv_weight_dtype", "f64",
                                                "f32", grade="correct", grade_at_freeze="correct"),
    # --- defect class maps
    # a defect class map saved as a 16-bit PNG (uint16) given to cross_entropy as the target
    "class-map-uint16-png-cross-entropy": case(_class_map_uint16_png_cross_entropy, "target_dtype", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # dice loss: the 8-bit label PNG's uint8 class map one-hot encoded with F.one_hot
    "class-map-uint8-one-hot-dice": case(_class_map_uint8_one_hot_for_dice, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # deep supervision: the int64 class map downsampled to 1/4 with nearest interpolate
    "class-map-int64-nearest-downsample": case(_class_map_nearest_downsample_int64, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-class confusion matrix by bincount with a prediction left float after nearest upsampling
    "confusion-matrix-bincount-float-prediction": case(_confusion_matrix_bincount_float_prediction,
                                                       "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- region-of-interest masks
    # the inspected area as roi - exclusion zone on two bool masks
    "roi-minus-exclusion-zone-bools": case(_roi_minus_exclusion_zone_bools, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the ROI polygon rasterised by cv2.fillPoly (uint8) used as masked_select's mask for ROI-only scoring
    "roi-fillpoly-uint8-masked-select": case(_roi_from_fillpoly_uint8_masked_select, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the three worst patches for the review screen picked by topk of the bool defect decisions
    "review-patches-topk-bool-decisions": case(_top_defect_patches_topk_of_bool_decisions, "integer_operand",
                                               "bool", grade="correct", grade_at_freeze="correct"),
    # a bf16 ViT block masking non-ROI tokens with an fp32 additive attn_mask in MultiheadAttention
    "vit-roi-token-mask-f32-bf16-mha": case(_vit_roi_token_mask_fp32_in_bf16_attention, "attn_mask_dtype", "f32",
                                            "bf16", grade="correct", grade_at_freeze="correct"),
    # --- patch memory banks
    # PatchCore kNN scoring with exact (no-mm) cdist on a memory bank kept in bf16 as the extractor produced it
    "memory-bank-bf16-cdist": case(_memory_bank_bf16_cdist, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a product-quantized bank: uint8 PQ code ids compared with cdist(p=0) as a Hamming distance
    "pq-uint8-codes-cdist-hamming": case(_product_quantized_uint8_codes_cdist, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a memory bank built in numpy (float64) scored by cdist against fp32 query patches
    "numpy-f64-memory-bank-cdist": case(_numpy_f64_memory_bank_cdist, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # cosine kNN of fp32 batched queries against a bf16 bank with einsum
    "cosine-knn-einsum-bf16-bank": case(_batched_queries_einsum_bf16_bank, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the decision threshold as np.percentile of bf16 anomaly maps of good parts
    "threshold-np-percentile-bf16-maps": case(_threshold_np_percentile_bf16_validation_maps, "numpy_dtype",
                                              "bf16", grade="correct", grade_at_freeze="correct"),
    # coreset features (bf16) written into the preallocated fp32 bank with index_copy_
    "coreset-index-copy-bf16-into-fp32-bank": case(_coreset_index_copy_bf16_into_fp32_bank, "indexed_write_dtype",
                                                   "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- bf16 feature extractors and heads
    # a uint8 frame made fp32 by .float() / 255 into the bf16 backbone (conv weight and bias bf16)
    "bf16-backbone-fp32-frame-div-255": case(_bf16_backbone_uint8_frame_divided_by_255, "conv_weight_dtype", "f32",
                                             "bf16", grade="correct", grade_at_freeze="correct"),
    # neighbourhood aggregation upcast to fp32, then the LayerNorm cast to bf16 with the backbone
    "patch-aggregation-bf16-layer-norm-fp32": case(_patch_aggregation_layer_norm_bf16_on_fp32_features,
                                                   "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SimpleNet: the fp32 feature adaptor applied to bf16 patch features
    "simplenet-fp32-adaptor-bf16-features": case(_simplenet_fp32_adaptor_on_bf16_features, "matmul_dtype", "bf16",
                                                 "f32", grade="correct", grade_at_freeze="correct"),
    # SimpleNet's discriminator trained with BCE-with-logits against bool real/fake targets
    "simplenet-discriminator-bool-targets": case(_simplenet_discriminator_bool_targets, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 ConvTranspose2d decoder added after the backbone was cast, fed bf16 features
    "seg-decoder-fp32-convtranspose-bf16-features": case(_segmentation_decoder_fp32_upsampler_on_bf16_features,
                                                         "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- anomaly maps
    # the bf16 anomaly map downsampled for the report thumbnail with antialiased bilinear interpolate
    "anomaly-map-antialias-bf16-thumbnail": case(_anomaly_map_antialias_bf16_thumbnail, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the fp16 upsampled anomaly map outside the ROI filled with -1e5
    "anomaly-map-outside-roi-fill-f16": case(_anomaly_map_outside_roi_fill_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # image-level score as the 99th percentile (torch.quantile) of the upsampled bf16 anomaly map
    "image-score-quantile-bf16-map": case(_image_score_quantile_bf16_upsampled_map, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 anomaly map unwarped to the camera frame with grid_sample on an fp32 affine grid
    "anomaly-map-unwarp-grid-sample-bf16": case(_anomaly_map_unwarped_grid_sample_bf16, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # defect segmentation: sigmoid of the upsampled bf16 logits in binary_cross_entropy against an fp32 GT
    "defect-seg-bf16-probs-bce-fp32-gt": case(_defect_segmentation_bf16_sigmoid_bce_fp32_gt, "op_dtype", "bf16",
                                              "f32", grade="correct", grade_at_freeze="correct"),
}
