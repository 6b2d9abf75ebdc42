"""Held-out live set 63: anomaly detection and industrial visual inspection by hand in low precision (PatchCore memory
banks and coreset sampling, PaDiM per-patch Gaussians and Mahalanobis distances, reconstruction autoencoders and DRAEM,
uint8 ground-truth masks, anomaly-map smoothing and thresholds, pixel AUROC/PRO in torch, frozen fp16/bf16 backbones,
kNN distances). Defects planted by a helper who never read the rules, written before castwise ran and graded once with
the rules frozen at ca92cb6."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ca92cb6"

bf16, f16 = torch.bfloat16, torch.float16
_SIZE = 32  # image side
_GRID = 8  # feature-map side


def _seeded() -> None:
    torch.manual_seed(0)


def _cv2_image(seed: int = 0) -> np.ndarray:
    """What cv2.imread gives for one inspection image: uint8, H x W x 3."""
    return np.random.RandomState(seed).randint(0, 256, (_SIZE, _SIZE, 3), dtype=np.uint8)


def _gt_masks() -> np.ndarray:
    """Ground-truth defect masks as stored in MVTec-style PNGs: uint8, 0 or 255."""
    masks = np.zeros((2, _SIZE, _SIZE), dtype=np.uint8)
    masks[0, 4:10, 6:14] = 255
    masks[1, 20:26, 18:22] = 255
    return masks


def _stem() -> nn.Module:
    """A tiny ResNet-like stem standing in for the frozen wide_resnet50 feature extractor."""
    return nn.Sequential(
        nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
    ).eval()


def _conv_autoencoder() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1), nn.ReLU(),
        nn.ConvTranspose2d(16, 3, 4, stride=2, padding=1), nn.Sigmoid(),
    )


# --- reconstruction autoencoders and DRAEM


def _cv2_uint8_image_into_conv_autoencoder() -> None:
    _seeded()
    image = torch.from_numpy(_cv2_image()).permute(2, 0, 1)[None]
    autoencoder = _conv_autoencoder().eval()
    with torch.no_grad():
        reconstruction = autoencoder(image)
    ((image - reconstruction) ** 2).mean(1)


def _draem_numpy_f64_augmented_image() -> None:
    _seeded()
    rng = np.random.RandomState(0)
    image = _cv2_image().astype(np.float32) / 255.0
    source = _cv2_image(1).astype(np.float32) / 255.0  # DTD texture as the anomaly source
    noise = rng.rand(_SIZE // 4, _SIZE // 4)
    perlin = np.kron(noise, np.ones((4, 4)))  # stand-in for the Perlin noise generator, float64
    mask = (perlin > 0.6).astype(np.float64)[..., None]
    beta = rng.rand() * 0.8
    augmented = image * (1 - mask) + (1 - beta) * source * mask + beta * image * mask
    batch = torch.from_numpy(augmented).permute(2, 0, 1)[None]
    reconstructive = _conv_autoencoder()
    reconstructive(batch)


def _draem_uint8_mask_bce_target() -> None:
    _seeded()
    segmentation_head = nn.Conv2d(6, 1, 3, padding=1)
    joined = torch.rand(2, 6, _SIZE, _SIZE)  # augmented image concatenated with its reconstruction
    anomaly_mask = torch.from_numpy((_gt_masks() > 0).astype(np.uint8))[:, None]
    F.binary_cross_entropy(torch.sigmoid(segmentation_head(joined)), anomaly_mask)


def _draem_focal_loss_gather_uint8_mask() -> None:
    _seeded()
    logits = torch.randn(2, 2, _SIZE, _SIZE)  # DRAEM's two-class discriminative output
    target = torch.from_numpy(_gt_masks() // 255)[:, None]  # uint8 0/1
    logpt = F.log_softmax(logits, dim=1).gather(1, target)
    pt = logpt.exp()
    (-((1 - pt) ** 2) * logpt).mean()


def _reconstruction_autoencoder_gradscaler_fp16() -> None:
    _seeded()
    autoencoder = _conv_autoencoder().half()
    optimizer = torch.optim.Adam(autoencoder.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    images = torch.rand(2, 3, _SIZE, _SIZE)
    loss = F.mse_loss(autoencoder(images.half()).float(), images)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()


# --- frozen backbones and feature extraction


def _fp16_backbone_fp32_imagenet_normalisation() -> None:
    _seeded()
    backbone = _stem().half()
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    image = torch.from_numpy(_cv2_image()).permute(2, 0, 1)[None].half() / 255
    with torch.no_grad():
        backbone((image - mean) / std)


def _vit_final_norm_on_upcast_tokens() -> None:
    _seeded()
    dim = 32
    vit_norm = nn.LayerNorm(dim, eps=1e-6).to(bf16)  # the bf16 DINO backbone's final norm
    hooked = torch.randn(2, 1 + _GRID * _GRID, dim, dtype=bf16)  # tokens a forward hook kept from block 8
    patch_tokens = hooked[:, 1:].float()  # upcast "for stable patch statistics"
    vit_norm(patch_tokens)


def _gradient_localisation_hook_upcast() -> None:
    _seeded()
    backbone = _stem().to(bf16)
    image = torch.rand(1, 3, _SIZE, _SIZE, dtype=bf16)
    features = backbone(image)
    features.requires_grad_(True)
    grads = []

    def keep_fp32(grad: torch.Tensor) -> torch.Tensor:
        grads.append(grad)
        return grad.float()  # accumulate the saliency in fp32

    features.register_hook(keep_fp32)
    score = features.pow(2).mean()
    score.backward()


# --- PatchCore: memory banks, coresets, kNN


def _patchcore_random_projection_fp32_matrix() -> None:
    _seeded()
    features = torch.randn(256, 96, dtype=f16)  # locally aware patch features from the fp16 backbone
    projection = torch.randn(96, 16) / math.sqrt(16)  # Johnson-Lindenstrauss projection for the greedy coreset
    reduced = features @ projection
    torch.cdist(reduced.float(), reduced[:1].float())


def _patchcore_cdist_fp32_query_f16_bank() -> None:
    _seeded()
    memory_bank = torch.randn(512, 64).half()  # saved in fp16 to halve the bank on disk
    query = torch.randn(_GRID * _GRID, 64)
    distances = torch.cdist(query, memory_bank)
    distances.min(dim=1).values.view(_GRID, _GRID)


def _memory_bank_fp8_expanded_distance() -> None:
    _seeded()
    memory_bank = torch.randn(512, 64).to(torch.float8_e4m3fn)  # fp8 bank to fit the edge device
    query = torch.randn(_GRID * _GRID, 64)
    squared = (query ** 2).sum(1, keepdim=True) - 2 * query @ memory_bank.T + (memory_bank.float() ** 2).sum(1)
    squared.clamp_min(0).sqrt().min(1)


def _memory_bank_ring_buffer_index_put() -> None:
    _seeded()
    bank = torch.zeros(300, 32, dtype=f16)
    pointer = 250
    backbone_head = nn.Linear(48, 32)
    with torch.autocast("cpu", dtype=bf16):
        features = backbone_head(torch.randn(_GRID * _GRID, 48))
    rows = (pointer + torch.arange(features.shape[0])) % bank.shape[0]
    bank[rows] = features


def _nn_distance_running_min_full_like_f16() -> None:
    _seeded()
    query = torch.randn(_GRID * _GRID, 32, dtype=f16)
    bank_chunks = [torch.randn(128, 32, dtype=f16) for _ in range(3)]
    nearest = torch.full_like(query[:, 0], 1e6)  # "infinity" before the first chunk
    for chunk in bank_chunks:
        distances = ((query[:, None] - chunk[None]) ** 2).sum(-1).sqrt()
        nearest = torch.minimum(nearest, distances.min(1).values)


def _kmeanspp_coreset_f16_overflow() -> None:
    _seeded()
    features = torch.randn(400, 64, dtype=f16) * 30  # unnormalised layer3 activations
    centres = [features[0]]
    for _ in range(4):
        squared = torch.stack([((features - c) ** 2).sum(1) for c in centres]).min(0).values
        probabilities = squared / squared.sum()
        centres.append(features[torch.multinomial(probabilities, 1)[0]])


def _uniad_learned_queries_fp32_sdpa() -> None:
    _seeded()
    heads, dim = 4, 32
    tokens = torch.randn(2, heads, _GRID * _GRID, dim // heads, dtype=bf16)  # bf16 feature tokens
    queries = torch.randn(_GRID * _GRID, dim)  # learned query embedding, stored as a plain tensor attribute
    q = queries.view(1, _GRID * _GRID, heads, dim // heads).transpose(1, 2).expand(2, -1, -1, -1)
    F.scaled_dot_product_attention(q, tokens, tokens)


# --- PaDiM and Gaussian models


def _padim_channel_subset_linspace() -> None:
    _seeded()
    embedding = torch.randn(2, 96, _GRID, _GRID)  # layer1-3 features concatenated
    keep = torch.linspace(0, 95, 32)  # evenly spaced channels instead of a random subset
    embedding.index_select(1, keep)


def _padim_numpy_inverse_covariance_einsum() -> None:
    _seeded()
    train = torch.randn(40, 16, _GRID * _GRID)  # N x C x patches
    mean = train.mean(0)
    inverse = np.stack([np.linalg.inv(np.cov(train[:, :, p].numpy(), rowvar=False) + 0.01 * np.eye(16))
                        for p in range(_GRID * _GRID)])
    test = torch.randn(16, _GRID * _GRID)
    delta = (test - mean).T
    torch.einsum("pc,pcd,pd->p", delta, torch.from_numpy(inverse), delta).sqrt()


def _padim_bmm_bf16_delta_fp32_inverse() -> None:
    _seeded()
    patches, channels = _GRID * _GRID, 16
    train = torch.randn(40, patches, channels)
    mean = train.mean(0)
    covariance = torch.einsum("npc,npd->pcd", train - mean, train - mean) / 39 + 0.01 * torch.eye(channels)
    inverse = torch.linalg.inv(covariance)
    test = torch.randn(patches, channels, dtype=bf16)  # from the bf16 backbone at test time
    delta = (test - mean.to(bf16)).unsqueeze(1)
    torch.bmm(torch.bmm(delta, inverse), delta.transpose(1, 2)).squeeze()


def _padim_cholesky_solve_bf16() -> None:
    _seeded()
    patches, channels = _GRID * _GRID, 16
    train = torch.randn(40, patches, channels)
    mean = train.mean(0)
    covariance = torch.einsum("npc,npd->pcd", train - mean, train - mean) / 39 + 0.01 * torch.eye(channels)
    cholesky = torch.linalg.cholesky(covariance).to(bf16)  # cast to match the bf16 features
    delta = (torch.randn(patches, channels, dtype=bf16) - mean.to(bf16)).unsqueeze(-1)
    solved = torch.cholesky_solve(delta, cholesky)
    (delta * solved).sum((1, 2))


def _gaussian_ad_slogdet_f16() -> None:
    _seeded()
    features = torch.randn(200, 24, dtype=f16)  # pooled fp16 backbone features of good images
    centred = features - features.mean(0)
    covariance = centred.T @ centred / (features.shape[0] - 1) + 0.01 * torch.eye(24, dtype=f16)
    _, logdet = torch.linalg.slogdet(covariance)
    logdet * 0.5


def _padim_online_mean_lerp_bf16() -> None:
    _seeded()
    running_mean = torch.zeros(_GRID * _GRID, 16)
    seen = 0
    for _ in range(2):
        batch = torch.randn(8, _GRID * _GRID, 16, dtype=bf16)
        seen += batch.shape[0]
        running_mean.lerp_(batch.mean(0), batch.shape[0] / seen)


# --- anomaly maps, thresholds and metrics


def _anomaly_map_gaussian_blur_fp32_kernel() -> None:
    _seeded()
    anomaly_map = torch.rand(1, 1, _SIZE, _SIZE, dtype=f16)  # nearest-neighbour distances upsampled, fp16
    sigma, size = 4.0, 9
    x = torch.arange(size) - size // 2
    kernel_1d = torch.exp(-(x ** 2) / (2 * sigma ** 2))
    kernel = (kernel_1d[:, None] * kernel_1d[None]) / kernel_1d.sum() ** 2
    F.conv2d(anomaly_map, kernel[None, None], padding=size // 2)


def _background_suppression_uint8_foreground() -> None:
    _seeded()
    anomaly_map = torch.rand(_SIZE, _SIZE)
    foreground = torch.zeros(_SIZE, _SIZE, dtype=torch.uint8)  # from cv2.threshold(..., THRESH_BINARY) // 255
    foreground[4:28, 4:28] = 1
    background = 1 - foreground
    anomaly_map.masked_fill(background, 0.0)


def _gt_masks_div_255_in_place() -> None:
    masks = torch.from_numpy(_gt_masks())
    masks.div_(255)
    masks.sum()


def _defect_area_ratio_uint8_mean() -> None:
    masks = torch.from_numpy(_gt_masks() // 255)
    area = masks.mean(dim=(1, 2))  # fraction of defective pixels per image, for size-stratified AUROC
    (area > 0.01).sum()


def _patch_labels_max_pool_bool_mask() -> None:
    masks = torch.from_numpy(_gt_masks() > 0)[:, None]
    patch_labels = F.max_pool2d(masks, kernel_size=_SIZE // _GRID)  # a patch is defective if any pixel is
    patch_labels.flatten()


def _pro_region_overlap_index_add_bool() -> None:
    _seeded()
    regions = torch.zeros(_SIZE, _SIZE, dtype=torch.long)  # connected components of one GT mask, 0 = background
    regions[4:10, 6:14] = 1
    regions[20:26, 18:22] = 2
    anomaly_map = torch.rand(_SIZE, _SIZE)
    predicted = anomaly_map > 0.7
    overlap = torch.zeros(3).index_add_(0, regions.flatten(), predicted.flatten())
    area = torch.bincount(regions.flatten(), minlength=3)
    (overlap[1:] / area[1:]).mean()


def _binary_prediction_half_and_gt() -> None:
    _seeded()
    anomaly_maps = torch.rand(2, _SIZE, _SIZE)
    gt = torch.from_numpy(_gt_masks() > 0)
    for threshold in torch.linspace(0.1, 0.9, 5):
        predicted = (anomaly_maps > threshold).half()  # stored as fp16 for the threshold sweep
        (predicted & gt).sum()


def _efficientad_quantile_numpy_q() -> None:
    _seeded()
    validation_maps = torch.rand(4, _SIZE, _SIZE)  # student-teacher maps on the validation split
    levels = torch.from_numpy(np.array([0.9, 0.995]))
    q_a, q_b = torch.quantile(validation_maps.flatten(), levels)
    0.1 * (validation_maps - q_a) / (q_b - q_a)


def _sklearn_auroc_bf16_anomaly_map() -> None:
    from sklearn.metrics import roc_auc_score

    _seeded()
    anomaly_maps = torch.rand(2, _SIZE, _SIZE, dtype=bf16)  # from the bf16 PatchCore head
    gt = torch.from_numpy(_gt_masks() > 0)
    roc_auc_score(gt.flatten().numpy(), anomaly_maps.flatten())


CASES: dict[str, LiveCase] = {
    # --- reconstruction autoencoders and DRAEM
    # a cv2.imread uint8 image batched straight into a conv autoencoder's first (biased) conv
    "cv2-uint8-image-conv-autoencoder": case(_cv2_uint8_image_into_conv_autoencoder, "integer_operand", "uint8",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # DRAEM augmentation done in numpy with a float64 Perlin mask, the float64 image fed to the reconstructive net
    "draem-numpy-f64-augmented-image": case(_draem_numpy_f64_augmented_image, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DRAEM's segmentation head trained by BCE against the uint8 anomaly mask
    "draem-uint8-mask-bce-target": case(_draem_uint8_mask_bce_target, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # DRAEM's focal loss gathering log-probabilities with the uint8 0/1 mask as the index
    "draem-focal-loss-gather-uint8-mask": case(_draem_focal_loss_gather_uint8_mask, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a reconstruction autoencoder made .half() and trained with GradScaler on the CPU
    "reconstruction-ae-gradscaler-fp16": case(_reconstruction_autoencoder_gradscaler_fp16, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- frozen backbones and feature extraction
    # an fp16 backbone given an image normalised with fp32 ImageNet mean/std tensors (promoted back to fp32)
    "fp16-backbone-fp32-imagenet-normalisation": case(_fp16_backbone_fp32_imagenet_normalisation,
                                                      "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # hooked bf16 ViT patch tokens upcast to fp32, then passed through the bf16 backbone's final LayerNorm
    "vit-final-norm-on-upcast-tokens": case(_vit_final_norm_on_upcast_tokens, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # gradient-based localisation: a hook on bf16 features returns the gradient upcast to fp32
    "gradient-localisation-hook-upcast": case(_gradient_localisation_hook_upcast, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- PatchCore: memory banks, coresets, kNN
    # the coreset's random projection matrix made fp32 by torch.randn, applied to fp16 patch features
    "patchcore-random-projection-fp32-matrix": case(_patchcore_random_projection_fp32_matrix, "matmul_dtype", "f16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # kNN scoring with cdist between fp32 query patches and a memory bank saved in fp16
    "patchcore-cdist-fp32-query-f16-bank": case(_patchcore_cdist_fp32_query_f16_bank, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (ca92cb6) castwise gave matmul_dtype [f32, f16] (high confidence). With more than 25 "
             "rows torch.cdist computes the Euclidean distances through a matrix multiply, so the raise is "
             "mm's 'expected m1 and m2 to have the same dtype'; the rules read the kind from that message's "
             "op, while the expectation follows the op the code called, cdist (the kind live_held_out_8's "
             "sparse-gp-inducing-points-cdist expected for cdist). The dtypes it read and the fix (give the query and the fp16 "
             "bank one dtype) are right; only the kind differs. Expectation corrected after grading from op_dtype "
             "to the corpus's convention: live_held_out_9 and live_held_out_26 file cdist raising through mm's "
             "message as matmul_dtype (the kind follows the op that raised; live_held_out_8's op_dtype is cdist's "
             "own check), and a reading that followed this writer broke both.")),
    # an fp8 memory bank scored by the expanded ||q||^2 - 2 q.b + ||b||^2 distance
    "memory-bank-fp8-expanded-distance": case(_memory_bank_fp8_expanded_distance, "matmul_dtype", "f32",
                                              "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # a ring-buffer fp16 memory bank written with bf16 features from an autocast region
    "memory-bank-ring-buffer-index-put-bf16": case(_memory_bank_ring_buffer_index_put, "indexed_write_dtype", "f16",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # chunked nearest-neighbour search: the running minimum started at 1e6 with full_like of fp16 features
    "nn-distance-running-min-full-like-f16": case(_nn_distance_running_min_full_like_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # k-means++ bank compression: fp16 squared distances overflow to inf, the sampling weights become NaN
    "kmeanspp-coreset-f16-squared-distance-overflow": case(_kmeanspp_coreset_f16_overflow, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # UniAD-style reconstruction: fp32 learned queries attend the bf16 feature tokens through SDPA
    "uniad-learned-queries-fp32-sdpa": case(_uniad_learned_queries_fp32_sdpa, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- PaDiM and Gaussian models
    # PaDiM's channel subset chosen with torch.linspace (float) and passed to index_select
    "padim-channel-subset-linspace-index": case(_padim_channel_subset_linspace, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # PaDiM inverse covariances from np.linalg.inv (float64) einsum'd with fp32 deltas
    "padim-numpy-inverse-covariance-einsum": case(_padim_numpy_inverse_covariance_einsum, "matmul_dtype", "f32",
                                                  "f64",
        grade="correct", grade_at_freeze="correct"),
    # PaDiM Mahalanobis by bmm of bf16 test deltas with the fp32 inverse covariances
    "padim-bmm-bf16-delta-fp32-inverse": case(_padim_bmm_bf16_delta_fp32_inverse, "batched_matmul_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # Mahalanobis through cholesky_solve with the Cholesky factor cast to bf16 to match the features
    "padim-cholesky-solve-bf16": case(_padim_cholesky_solve_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a multivariate Gaussian over fp16 pooled features: its log-determinant by slogdet in fp16
    "gaussian-ad-slogdet-f16-covariance": case(_gaussian_ad_slogdet_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # PaDiM's per-patch mean kept running in fp32, lerped toward bf16 batch means
    "padim-online-mean-lerp-bf16": case(_padim_online_mean_lerp_bf16, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- anomaly maps, thresholds and metrics
    # an fp16 anomaly map smoothed by conv2d with an fp32 Gaussian kernel (sigma 4)
    "anomaly-map-gaussian-blur-fp32-kernel": case(_anomaly_map_gaussian_blur_fp32_kernel, "conv_weight_dtype", "f16",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # background suppression with 1 - a uint8 foreground mask given to masked_fill
    "background-suppression-uint8-mask": case(_background_suppression_uint8_foreground, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # uint8 0/255 GT masks normalised to 0/1 in place with div_
    "gt-masks-div-255-in-place": case(_gt_masks_div_255_in_place, "result_cast", "f32", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # per-image defect area as mean of the uint8 0/1 GT masks
    "defect-area-ratio-uint8-mean": case(_defect_area_ratio_uint8_mean, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # patch-level labels from the bool GT masks with max_pool2d
    "patch-labels-max-pool-bool-mask": case(_patch_labels_max_pool_bool_mask, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # PRO: per-region overlap counted by index_add_ of the bool prediction into fp32 counts
    "pro-region-overlap-index-add-bool": case(_pro_region_overlap_index_add_bool, "indexed_write_dtype", "f32",
                                              "bool",
        grade="correct", grade_at_freeze="correct"),
    # a threshold sweep storing binarised predictions in fp16, true positives by `&` with the bool GT
    "binary-prediction-half-and-gt": case(_binary_prediction_half_and_gt, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # EfficientAD's map normalisation: quantile levels from numpy (float64) for fp32 validation maps
    "efficientad-quantile-numpy-levels": case(_efficientad_quantile_numpy_q, "op_dtype",
        grade="correct", grade_at_freeze="correct"),
    # pixel AUROC with sklearn's roc_auc_score on a bf16 anomaly map
    "sklearn-auroc-bf16-anomaly-map": case(_sklearn_auroc_bf16_anomaly_map, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
