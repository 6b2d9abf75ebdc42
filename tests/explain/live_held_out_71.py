"""Held-out live set 71: computational pathology and whole-slide imaging by hand in low precision (uint8 RGB tiles from
OpenSlide-style readers, stain normalisation in optical density space with float64 numpy matrices, tile coordinates
and levels as int32/int64, multiple-instance learning with attention pooling over bags of tile features, slide-level
labels and survival targets, tissue masks from thresholds, an fp16 feature backbone with an fp32 aggregator, heatmaps
written back to uint8). Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at 6e187c7."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "6e187c7"

bf16, f16 = torch.bfloat16, torch.float16
_TILE = 32  # tiles are 256 px at 20x in practice; kept small here
_FEAT = 64  # tile feature width (1024 for a ResNet50 trunk, 1536 for UNI-2)
_RGB_FROM_HED = np.array([[0.65, 0.70, 0.29], [0.07, 0.99, 0.11], [0.27, 0.57, 0.78]])  # skimage's stain vectors


def _seeded() -> None:
    torch.manual_seed(0)


def _read_region(seed: int = 0) -> np.ndarray:
    """What openslide's read_region gives after np.asarray and dropping alpha: an H x W x 3 uint8 RGB tile."""
    rng = np.random.default_rng(seed)
    tile = rng.integers(120, 256, size=(_TILE, _TILE, 4), dtype=np.uint8)
    tile[..., 3] = 255
    return np.ascontiguousarray(tile[..., :3])


def _thumbnail_tissue_mask() -> torch.Tensor:
    """A thumbnail saturation threshold (bool), tissue in the middle."""
    rng = np.random.default_rng(1)
    saturation = rng.integers(0, 40, size=(64, 64), dtype=np.uint8)
    saturation[16:48, 8:56] += 60
    return torch.from_numpy(saturation) > 30


def _coords_h5(n: int = 12) -> np.ndarray:
    """Tile origins at level 0 as CLAM's patching step stores them in the h5 file: int32 (x, y)."""
    xs = np.arange(n, dtype=np.int32) % 4 * 256 + 20480
    ys = np.arange(n, dtype=np.int32) // 4 * 256 + 40960
    return np.stack([xs, ys], axis=1)


class _GatedAttention(nn.Module):
    """ABMIL gated attention pooling (Ilse et al.): a = w^T (tanh(V h) * sigmoid(U h))."""

    def __init__(self, dim: int = _FEAT, hidden: int = 32) -> None:
        super().__init__()
        self.v = nn.Linear(dim, hidden)
        self.u = nn.Linear(dim, hidden)
        self.w = nn.Linear(hidden, 1)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.w(torch.tanh(self.v(h)) * torch.sigmoid(self.u(h))).squeeze(-1)


# --- tiles and tissue masks


def _openslide_uint8_tile_into_resnet_stem() -> None:
    _seeded()
    tiles = torch.stack([torch.from_numpy(_read_region(s)).permute(2, 0, 1) for s in range(2)])
    stem = nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False)  # torchvision's resnet conv1
    stem(tiles)


def _tissue_fraction_per_tile_avg_pool_bool() -> None:
    mask = _thumbnail_tissue_mask()  # thumbnail at 1/64: a 4 x 4 block is one 256 px tile at level 0
    fraction = F.avg_pool2d(mask[None, None], kernel_size=4)
    (fraction > 0.5).nonzero()


def _tissue_minus_pen_marks_bool() -> None:
    tissue = _thumbnail_tissue_mask()
    pen = torch.zeros_like(tissue)
    pen[20:24, 10:40] = True  # blue ink from the pathologist's circling
    usable = tissue - pen
    usable.sum()


def _artifact_mask_fp16_and_tissue() -> None:
    _seeded()
    tissue = _thumbnail_tissue_mask()
    artifact_net = nn.Conv2d(3, 1, 3, padding=1).half()  # blur/fold detector run in fp16 on the thumbnail
    thumb = torch.rand(1, 3, 64, 64, dtype=f16)
    with torch.no_grad():
        artifact = torch.sigmoid(artifact_net(thumb))[0, 0].round()
    tissue & (1 - artifact)


def _level0_coords_scaled_in_place() -> None:
    coords = torch.from_numpy(_coords_h5()).long()
    level_downsample = 4.000345  # openslide's level_downsamples[1] is never a round 4
    coords.div_(level_downsample)  # to level-1 pixels for read_region's size arithmetic


def _patch_gcn_knn_on_integer_coords() -> None:
    coords = torch.from_numpy(_coords_h5()).long()
    distances = torch.cdist(coords, coords)  # Patch-GCN: 8 nearest tiles by spatial distance
    distances.topk(8, largest=False)


def _positional_embedding_coords_over_tile_size() -> None:
    _seeded()
    coords = torch.from_numpy(_coords_h5()).long()
    grid = (coords - coords.min(0).values) / 256  # tile grid position, meant as an integer index
    pos_x = nn.Embedding(128, _FEAT)
    pos_x(grid[:, 0])


def _uniform_tile_subsample_linspace() -> None:
    _seeded()
    features = torch.randn(500, _FEAT)
    keep = torch.linspace(0, features.shape[0] - 1, 64)  # 64 evenly spaced tiles per bag for training
    features.index_select(0, keep)


# --- stain normalisation in optical density space


def _macenko_numpy_od_times_fp32_stain_inverse() -> None:
    tile = _read_region().reshape(-1, 3).astype(np.float64)
    od = -np.log((tile + 1) / 240.0)  # optical density with Io = 240, float64 from numpy
    he = torch.tensor([[0.5626, 0.2159], [0.7201, 0.8012], [0.4062, 0.5581]])  # reference H&E vectors (fp32)
    concentrations = torch.from_numpy(od) @ torch.linalg.pinv(he).T
    concentrations.clamp(min=0)


def _macenko_eigh_bf16_od_covariance() -> None:
    _seeded()
    od = torch.rand(4096, 3, dtype=bf16) * 1.5  # OD of the tissue pixels, kept in the pipeline's bf16
    od = od[(od > 0.15).all(1)]
    covariance = torch.cov(od.T)
    torch.linalg.eigh(covariance)


def _macenko_max_concentration_quantile_f16() -> None:
    _seeded()
    concentrations = torch.rand(2, 4096, dtype=f16) * 2  # H and E concentrations from the fp16 OD
    torch.quantile(concentrations, 0.99, dim=1)  # robust maximum used to rescale to the target


def _colour_deconvolution_1x1_conv_skimage_matrix() -> None:
    _seeded()
    tiles = torch.rand(2, 3, _TILE, _TILE)
    od = -torch.log(tiles.clamp(min=1e-6))
    hed_from_rgb = torch.from_numpy(np.linalg.inv(_RGB_FROM_HED))  # skimage.color.hed_from_rgb, float64
    F.conv2d(od, hed_from_rgb.T[:, :, None, None])


def _hed_jitter_lerp_toward_augmented() -> None:
    _seeded()
    tiles = torch.rand(4, 3, _TILE, _TILE, dtype=bf16)  # the loader's tiles, already bf16
    augmented = (tiles.float() * (1 + 0.05 * torch.randn(4, 3, 1, 1))).clamp(0, 1)  # HED jitter done in fp32
    strength = 0.5
    torch.lerp(tiles, augmented, strength)


# --- feature extraction


def _halved_clip_pathology_tower_fp32_tiles() -> None:
    _seeded()
    patch_embed = nn.Conv2d(3, _FEAT, 16, stride=16, bias=False).half()  # a CONCH/PLIP-style CLIP tower, halved
    mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None]
    std = torch.tensor([0.229, 0.224, 0.225])[:, None, None]
    tiles = torch.from_numpy(_read_region()).permute(2, 0, 1).float() / 255
    with torch.inference_mode():
        patch_embed(((tiles - mean) / std)[None])


def _kmeans_phenotypes_index_add_f16_features() -> None:
    _seeded()
    features = torch.randn(200, _FEAT, dtype=f16)  # tile features stored fp16 by the extractor
    centroids = features[:8].float()
    assignment = torch.cdist(features.float(), centroids).argmin(1)
    sums = torch.zeros(8, _FEAT).index_add_(0, assignment, features)
    sums / torch.bincount(assignment, minlength=8)[:, None]


# --- multiple-instance learning aggregators


def _fp16_h5_features_into_fp32_abmil() -> None:
    _seeded()
    features = torch.from_numpy(np.random.default_rng(0).standard_normal((300, _FEAT)).astype(np.float16))
    attention = _GatedAttention()  # the aggregator is trained in fp32
    attention(features).softmax(0)


def _batched_bags_bmm_fp16_features() -> None:
    _seeded()
    bags = torch.randn(2, 100, _FEAT, dtype=f16)  # two slides' features padded to 100 tiles, from the fp16 cache
    scores = torch.randn(2, 1, 100).softmax(-1)  # fp32 attention from the aggregator
    torch.bmm(scores, bags)


def _transmil_bf16_layer_norm_fp32_tokens() -> None:
    _seeded()
    tokens = torch.randn(1, 50, _FEAT)  # the class token and 49 tile features, fp32
    norm = nn.LayerNorm(_FEAT).to(bf16)  # TransMIL's layers were cast with .to(bf16), the input was not
    norm(tokens)


def _padded_bags_float_key_padding_mask_bf16_mha() -> None:
    _seeded()
    lengths = torch.tensor([40, 25])
    padding = torch.zeros(2, 40).masked_fill(torch.arange(40)[None] >= lengths[:, None], float("-inf"))
    attention = nn.MultiheadAttention(_FEAT, 4, batch_first=True).to(bf16)
    tiles = torch.randn(2, 40, _FEAT, dtype=bf16)
    query = tiles.mean(1, keepdim=True)
    attention(query, tiles, tiles, key_padding_mask=padding)


def _mil_rnn_bf16_gru_fp32_top_tiles() -> None:
    _seeded()
    tile_features = torch.randn(1, 10, _FEAT)  # the 10 most suspicious tiles (Campanella et al.), fp32 features
    rnn = nn.GRU(_FEAT, 32, batch_first=True).to(bf16)
    rnn(tile_features)


def _fp32_class_token_sdpa_bf16_tiles() -> None:
    _seeded()
    class_token = nn.Parameter(torch.randn(1, 4, 1, 16))  # a learned query added after model.to(bf16)
    tiles = torch.randn(1, 4, 120, 16, dtype=bf16)
    F.scaled_dot_product_attention(class_token, tiles, tiles)


def _padded_attention_logits_fp16_float32_min() -> None:
    _seeded()
    logits = torch.randn(2, 40, dtype=f16)  # attention logits of the fp16 aggregator
    valid = torch.arange(40)[None] < torch.tensor([40, 25])[:, None]
    logits.masked_fill(~valid, torch.finfo(torch.float32).min).softmax(-1)


def _padded_attention_uint8_mask() -> None:
    _seeded()
    logits = torch.randn(2, 40)
    pad = np.zeros((2, 40), dtype=np.uint8)  # padding flags collated in numpy
    pad[1, 25:] = 1
    logits.masked_fill(torch.from_numpy(pad), float("-inf")).softmax(-1)


def _fp16_aggregator_grad_scaler() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(_FEAT, 32), nn.ReLU(), nn.Linear(32, 2)).half()  # "fp16 to fit longer bags"
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
    scaler = torch.amp.GradScaler("cpu")
    bag = torch.randn(300, _FEAT, dtype=f16)
    logits = model(bag).float().mean(0, keepdim=True)
    scaler.scale(F.cross_entropy(logits, torch.tensor([1]))).backward()
    scaler.step(optimizer)


# --- slide labels and survival targets


def _subtype_labels_int8_cross_entropy() -> None:
    _seeded()
    labels = torch.from_numpy(np.array([0, 2, 1, 2], dtype=np.int8))  # LUAD/LUSC/normal, packed as int8 in the csv
    F.cross_entropy(torch.randn(4, 3), labels)


def _bool_slide_label_bce_with_logits() -> None:
    _seeded()
    logits = torch.randn(4)
    metastasis = torch.tensor([True, False, False, True])  # CAMELYON16 slide labels
    F.binary_cross_entropy_with_logits(logits, metastasis)


def _survival_bins_int8_codes_one_hot() -> None:
    _seeded()
    hazards = torch.sigmoid(torch.randn(4, 4))  # discrete-time hazards over 4 quartile bins of overall survival
    survival = torch.cumprod(1 - hazards, dim=1)
    pmf = hazards * torch.cat([torch.ones(4, 1), survival[:, :-1]], 1)
    codes = np.array([0, 3, 1, 2], dtype=np.int8)  # pd.qcut(df.survival_months, 4).cat.codes: int8
    event_bin = F.one_hot(torch.from_numpy(codes), num_classes=4)
    -(torch.log(pmf.clamp(min=1e-7)) * event_bin).sum(1).mean()


# --- heatmaps back to uint8


def _attention_scores_into_uint8_canvas() -> None:
    _seeded()
    canvas = torch.zeros(16, 16, dtype=torch.uint8)  # one pixel per tile at the heatmap level
    coords = torch.from_numpy(_coords_h5()).long()
    grid = (coords - coords.min(0).values) // 256
    scores = torch.rand(12)  # normalised attention in [0, 1]
    canvas[grid[:, 1], grid[:, 0]] = scores * 255


def _uint8_heatmap_area_downscale() -> None:
    _seeded()
    heatmap = (torch.rand(1, 1, 128, 128) * 255).to(torch.uint8)  # the attention heatmap rendered at level 2, uint8
    F.interpolate(heatmap, size=(32, 32), mode="area")  # down to the thumbnail for the overlay


def _bf16_heatmap_to_numpy_for_colormap() -> None:
    _seeded()
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        attention = torch.softmax(nn.Linear(_FEAT, 1)(torch.randn(256, _FEAT)).squeeze(-1), 0)
    heat = (attention - attention.min()) / (attention.max() - attention.min())
    (heat.reshape(16, 16).numpy() * 255).astype(np.uint8)  # for cv2.applyColorMap


CASES: dict[str, LiveCase] = {
    # --- tiles and tissue masks
    # an OpenSlide read_region tile (uint8 RGB, alpha dropped) permuted to CHW and fed to a ResNet stem conv
    "openslide-uint8-tile-resnet-stem": case(_openslide_uint8_tile_into_resnet_stem, "integer_operand", "uint8",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-tile tissue fraction from the bool thumbnail threshold mask by avg_pool2d
    "tissue-fraction-avg-pool-bool-mask": case(_tissue_fraction_per_tile_avg_pool_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # pen marks removed from the bool tissue mask with `-`
    "tissue-minus-pen-marks-bool": case(_tissue_minus_pen_marks_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 artifact detector's rounded output combined with the bool tissue mask by `&`
    "artifact-mask-fp16-and-tissue": case(_artifact_mask_fp16_and_tissue, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- tile coordinates and levels
    # int64 level-0 tile origins divided in place by openslide's (fractional) level downsample
    "level0-coords-div-in-place-downsample": case(_level0_coords_scaled_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # Patch-GCN's spatial kNN graph built with cdist on the int64 tile coordinates
    "patch-gcn-cdist-int64-coords": case(_patch_gcn_knn_on_integer_coords, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # tile grid positions made with true division (float) looked up in a positional nn.Embedding
    "grid-position-embedding-float-coords": case(_positional_embedding_coords_over_tile_size, "index_tensor_dtype",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # evenly spaced tile subsampling of a bag with linspace indices passed to index_select
    "bag-subsample-linspace-index-select": case(_uniform_tile_subsample_linspace, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- stain normalisation in optical density space
    # Macenko: float64 OD from numpy multiplied with the pinv of fp32 reference H&E vectors
    "macenko-numpy-f64-od-fp32-stain-pinv": case(_macenko_numpy_od_times_fp32_stain_inverse, "matmul_dtype", "f64",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # Macenko: stain plane from linalg.eigh of the covariance of bf16 OD pixels
    "macenko-eigh-bf16-od-covariance": case(_macenko_eigh_bf16_od_covariance, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Macenko: the 99th-percentile concentration of fp16 stain concentrations by torch.quantile
    "macenko-max-concentration-quantile-f16": case(_macenko_max_concentration_quantile_f16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # colour deconvolution as a 1x1 conv with skimage's float64 hed_from_rgb matrix on fp32 OD tiles
    "colour-deconvolution-conv-f64-matrix": case(_colour_deconvolution_1x1_conv_skimage_matrix, "conv_weight_dtype",
                                                 "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # HED stain jitter computed in fp32, lerped back into the bf16 tiles
    "hed-jitter-lerp-bf16-tiles-fp32-augmented": case(_hed_jitter_lerp_toward_augmented, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- feature extraction
    # a halved CLIP-style pathology tower fed fp32 ImageNet-normalised tiles
    "halved-pathology-tower-fp32-tiles": case(_halved_clip_pathology_tower_fp32_tiles, "conv_weight_dtype", "f32",
                                              "f16",
        grade="correct", grade_at_freeze="correct"),
    # k-means morphological phenotypes: fp16 tile features index_add_'ed into fp32 centroid sums
    "kmeans-phenotypes-index-add-f16-features": case(_kmeans_phenotypes_index_add_f16_features,
                                                     "indexed_write_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- multiple-instance learning aggregators
    # fp16 tile features from the h5 cache into an fp32 gated-attention ABMIL
    "abmil-fp32-gated-attention-f16-features": case(_fp16_h5_features_into_fp32_abmil, "matmul_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling of padded bags: fp32 attention bmm'ed with fp16 cached features
    "padded-bags-attention-pool-bmm-f16": case(_batched_bags_bmm_fp16_features, "batched_matmul_dtype", "f32",
                                               "f16",
        grade="correct", grade_at_freeze="correct"),
    # TransMIL's LayerNorm cast to bf16, the fp32 tile tokens not
    "transmil-bf16-layer-norm-fp32-tokens": case(_transmil_bf16_layer_norm_fp32_tokens, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # padded bags: a float (0/-inf) key_padding_mask built in fp32 for a bf16 MultiheadAttention pooler
    "padded-bags-float-key-padding-mask-bf16-mha": case(_padded_bags_float_key_padding_mask_bf16_mha,
                                                        "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MIL-RNN: a bf16 GRU over the fp32 features of the top-ranked tiles
    "mil-rnn-bf16-gru-fp32-top-tiles": case(_mil_rnn_bf16_gru_fp32_top_tiles, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a learned fp32 class-token query attending the bf16 tile features through SDPA
    "class-token-fp32-sdpa-bf16-tiles": case(_fp32_class_token_sdpa_bf16_tiles, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # padded tiles' fp16 attention logits masked with float32's minimum
    "padded-attention-fp16-float32-min": case(_padded_attention_logits_fp16_float32_min, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # padding flags collated as numpy uint8 used as masked_fill's mask
    "padded-attention-uint8-mask-masked-fill": case(_padded_attention_uint8_mask, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a .half() MIL aggregator trained through GradScaler on the CPU
    "fp16-aggregator-grad-scaler": case(_fp16_aggregator_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- slide labels and survival targets
    # NSCLC subtype labels packed as int8 in the slide csv, given to cross_entropy
    "subtype-labels-int8-cross-entropy": case(_subtype_labels_int8_cross_entropy, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # CAMELYON16 bool slide labels as the BCE-with-logits target
    "slide-label-bool-bce-with-logits": case(_bool_slide_label_bce_with_logits, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # discrete-time survival: pd.qcut codes (int8) one-hot encoded into the event-bin indicator
    "survival-bins-int8-codes-one-hot": case(_survival_bins_int8_codes_one_hot, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- heatmaps back to uint8
    # fp32 attention scores written into a uint8 heatmap canvas by advanced indexing
    "attention-scores-into-uint8-canvas": case(_attention_scores_into_uint8_canvas, "indexed_write_dtype", "uint8",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # the uint8 heatmap downscaled to the thumbnail with interpolate(mode="area")
    "uint8-heatmap-area-downscale": case(_uint8_heatmap_area_downscale, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 autocast attention heatmap converted with .numpy() for cv2's colormap
    "bf16-heatmap-numpy-colormap": case(_bf16_heatmap_to_numpy_for_colormap, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
