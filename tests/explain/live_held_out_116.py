"""Held-out live set 116: face recognition and verification written by hand in low precision (aligned face crops as
uint8 from OpenCV, identity labels as int64 with tens of thousands of classes, ArcFace/CosFace margin heads with
normalized fp32 weights, cosine logits in fp16, embedding galleries in float64 from numpy, ROC/TAR@FAR evaluation with
Python numbers, bf16 autocast around the backbone). Defects planted by a helper who never read the rules, written
before castwise ran and graded once with the rules frozen at 686ee57."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "686ee57"

bf16, f16 = torch.bfloat16, torch.float16
_IDS = 20_000  # identities in the training split (a trimmed MS1MV2-style label space)
_EMB = 128  # embedding width
_SCALE, _MARGIN = 64.0, 0.5  # ArcFace s and m
_COS_MARGIN = 0.35  # CosFace m
# the five ArcFace reference landmarks for a 112x112 crop: eyes, nose tip, mouth corners
_REFERENCE = np.array([[38.2946, 51.6963], [73.5318, 51.5014], [56.0252, 71.7366], [41.5493, 92.3655],
                       [70.7299, 92.2041]])


def _seeded() -> None:
    torch.manual_seed(0)


def _opencv_crops(batch: int = 2) -> np.ndarray:
    """What cv2.imread + cv2.warpAffine give: HWC uint8 BGR crops of 112x112."""
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, size=(batch, 112, 112, 3), dtype=np.uint8)


def _stem() -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.PReLU(16))


def _backbone() -> nn.Sequential:
    return nn.Sequential(_stem(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, _EMB))


def _labels(batch: int = 4) -> torch.Tensor:
    return torch.tensor([17, 4_203, 11_942, 19_876])[:batch]


def _bf16_embeddings(batch: int = 4) -> torch.Tensor:
    _seeded()
    backbone = _backbone()
    crops = torch.randn(batch, 3, 112, 112)
    with torch.autocast("cpu", dtype=bf16):
        return backbone(crops)


# --- integer, bool, index, mask and target defects


def _opencv_uint8_crops_into_stem() -> None:
    _seeded()
    crops = torch.from_numpy(_opencv_crops()).permute(0, 3, 1, 2)  # BGR HWC -> NCHW, but still uint8
    _stem()(crops)


def _int32_identity_labels_cross_entropy() -> None:
    _seeded()
    labels = torch.from_numpy(np.array([17, 4_203, 11_942, 19_876], dtype=np.int32))  # from the .lst label column
    embeddings = F.normalize(torch.randn(4, _EMB))
    weight = F.normalize(torch.randn(_IDS, _EMB))
    logits = _SCALE * F.linear(embeddings, weight)
    F.cross_entropy(logits, labels)


def _cosface_one_hot_from_float_labels() -> None:
    _seeded()
    labels = torch.tensor([17.0, 4_203.0, 11_942.0, 19_876.0])  # read from a CSV with pandas: float64 -> float()
    cosine = F.linear(F.normalize(torch.randn(4, _EMB)), F.normalize(torch.randn(_IDS, _EMB)))
    one_hot = torch.zeros_like(cosine)
    one_hot.scatter_(1, labels.view(-1, 1), 1.0)
    _SCALE * (cosine - one_hot * _COS_MARGIN)


def _verification_pairs_bool_target() -> None:
    _seeded()
    first, second = F.normalize(torch.randn(6, _EMB)), F.normalize(torch.randn(6, _EMB))
    same_person = torch.tensor([True, False, True, True, False, False])
    pair_head = nn.Linear(_EMB, 1)
    logits = pair_head((first - second).abs()).squeeze(1)
    F.binary_cross_entropy_with_logits(logits, same_person)


def _tar_as_mean_of_accepted() -> None:
    _seeded()
    genuine_scores = torch.rand(100) * 0.6 + 0.3
    threshold = 0.42
    accepted = genuine_scores >= threshold
    accepted.mean()


def _center_loss_float_label_index() -> None:
    _seeded()
    centers = nn.Parameter(torch.randn(_IDS, _EMB))
    labels = _labels().float()  # labels were .float()'d together with the batch by a generic to_float() helper
    embeddings = torch.randn(4, _EMB)
    ((embeddings - centers[labels]) ** 2).sum(1).mean()


def _batch_hard_positive_mask_minus_eye() -> None:
    labels = torch.tensor([3, 3, 7, 7, 7, 12])
    same = labels[:, None] == labels[None, :]
    same - torch.eye(len(labels), dtype=torch.bool)  # positives exclude the anchor itself


def _int8_quantized_gallery_scored_by_float_probe() -> None:
    _seeded()
    gallery = F.normalize(torch.randn(50, _EMB))
    gallery_int8 = torch.round(gallery * 127).to(torch.int8)  # stored as int8 to fit a million identities in RAM
    probe = F.normalize(torch.randn(2, _EMB))
    probe @ gallery_int8.T


def _interocular_distance_from_integer_landmarks() -> None:
    landmarks = torch.tensor([[[38, 51], [73, 51], [56, 71], [41, 92], [70, 92]],
                              [[40, 50], [71, 52], [55, 72], [43, 91], [69, 93]]])  # detector rounded to pixels
    torch.linalg.vector_norm(landmarks[:, 0] - landmarks[:, 1], dim=-1)


def _occlusion_mask_uint8_masked_fill() -> None:
    _seeded()
    features = torch.randn(2, 16, 7, 7)
    parsing = np.zeros((2, 1, 7, 7), dtype=np.uint8)  # face-parsing occlusion mask from cv2.threshold: 0 / 255
    parsing[:, :, 4:, 2:5] = 255
    features.masked_fill(torch.from_numpy(parsing), 0.0)


# --- two floating dtypes meeting


def _float64_numpy_gallery_scored_by_fp32_probe() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    gallery = rng.standard_normal((50, _EMB))
    gallery /= np.linalg.norm(gallery, axis=1, keepdims=True)  # np.save'd after enrolment: float64
    probe = F.normalize(torch.randn(2, _EMB))
    probe @ torch.from_numpy(gallery).T


def _arcface_head_outside_autocast() -> None:
    embeddings = _bf16_embeddings()
    weight = nn.Parameter(torch.randn(_IDS, _EMB))
    cosine = F.linear(F.normalize(embeddings), F.normalize(weight))
    theta = torch.acos(cosine.clamp(-1 + 1e-7, 1 - 1e-7))
    torch.cos(theta + _MARGIN)


def _template_aggregation_quality_weights_bmm() -> None:
    _seeded()
    with torch.autocast("cpu", dtype=bf16):
        features = _backbone()(torch.randn(6, 3, 112, 112)).view(2, 3, _EMB)  # 2 IJB-C templates of 3 media
    quality = torch.softmax(torch.randn(2, 1, 3), dim=-1)
    torch.bmm(quality, features)


def _pair_scores_vecdot_bf16_and_fp32() -> None:
    embeddings = F.normalize(_bf16_embeddings(), dim=-1)
    _seeded()
    enrolled = F.normalize(torch.randn(4, _EMB), dim=-1)  # enrolment done earlier by the fp32 model
    torch.linalg.vecdot(embeddings, enrolled)


def _iresnet_prelu_left_in_fp32() -> None:
    _seeded()
    stem = _stem()
    for module in stem.modules():
        if isinstance(module, (nn.Conv2d, nn.BatchNorm2d)):
            module.to(bf16)  # "only the heavy layers" moved to bf16
    stem(torch.randn(2, 3, 112, 112).to(bf16))


def _half_backbone_fed_fp32_crops() -> None:
    _seeded()
    backbone = _backbone().half()  # halved to export a smaller checkpoint, then evaluated on the CPU
    crops = torch.from_numpy(_opencv_crops()).permute(0, 3, 1, 2).float().sub(127.5).div(128.0)
    backbone(crops)


def _center_loss_index_add_under_autocast() -> None:
    _seeded()
    centers = torch.zeros(_IDS, _EMB)
    backbone = _backbone()
    labels = _labels()
    with torch.autocast("cpu", dtype=bf16):
        embeddings = backbone(torch.randn(4, 3, 112, 112))
        sums = torch.zeros_like(centers).index_add_(0, labels, embeddings.detach())  # per-identity sums
        counts = torch.bincount(labels, minlength=_IDS).clamp(min=1)
        centers.lerp_(sums / counts[:, None], 0.5)


def _float64_template_momentum_update() -> None:
    rng = np.random.default_rng(0)
    template = torch.from_numpy(rng.standard_normal((4, _EMB)))  # enrolled templates loaded from a .npy
    new_embeddings = _bf16_embeddings()
    template.lerp_(F.normalize(new_embeddings), 0.1)


def _cosface_fp16_logits_scatter_fp32_target() -> None:
    _seeded()
    embeddings = F.normalize(torch.randn(4, _EMB)).half()
    weight = F.normalize(torch.randn(_IDS, _EMB)).half()
    cosine = F.linear(embeddings, weight)  # cosine logits in fp16
    labels = _labels().view(-1, 1)
    target = cosine.gather(1, labels).float() - _COS_MARGIN  # margin subtracted in fp32 "for accuracy"
    cosine.scatter_(1, labels, target)


def _alignment_grid_from_float64_affine() -> None:
    _seeded()
    # what cv2.estimateAffinePartial2D returns: a float64 2x3 similarity, normalised to affine_grid's [-1, 1] frame
    affine = np.array([[[0.92, -0.05, 0.03], [0.05, 0.92, -0.02]]])
    grid = F.affine_grid(torch.from_numpy(affine), [1, 3, 112, 112], align_corners=False)
    image = torch.rand(1, 3, 250, 250)
    F.grid_sample(image, grid, align_corners=False)


def _class_balanced_weights_fp16_logits() -> None:
    _seeded()
    counts = torch.randint(5, 500, (_IDS,))
    class_weight = (counts.float() ** -0.5) / (counts.float() ** -0.5).mean()  # long-tail identities rebalanced
    cosine = F.linear(F.normalize(torch.randn(4, _EMB)), F.normalize(torch.randn(_IDS, _EMB))).half()
    F.cross_entropy(_SCALE * cosine, _labels(), weight=class_weight)


# --- no kernel for the dtype


def _binary_face_hash_hamming_fp16() -> None:
    _seeded()
    codes = torch.sign(torch.randn(2, 64)).half()  # sign of the fp16 embedding as a 64-bit face hash
    gallery = torch.sign(torch.randn(10, 64)).half()
    (codes[:, None] ^ gallery[None]).sum(-1)


def _euclidean_matching_cdist_bf16() -> None:
    embeddings = _bf16_embeddings()
    torch.cdist(embeddings, embeddings)


def _far_threshold_index_argmax_bool() -> None:
    _seeded()
    thresholds = torch.linspace(1.0, -1.0, 201)
    impostor = torch.randn(1000) * 0.1
    fars = (impostor[None, :] >= thresholds[:, None]).float().mean(1)
    torch.argmax(fars >= 1e-2)  # first threshold where FAR reaches 1e-2


def _tar_at_far_quantile_fp16_impostors() -> None:
    _seeded()
    probes = F.normalize(torch.randn(40, _EMB)).half()
    scores = probes @ probes.T
    impostor = scores[~torch.eye(40, dtype=torch.bool)]
    for far in (1e-3, 1e-2):
        torch.quantile(impostor, 1 - far)


# --- a number outside the dtype's range


def _fp16_gallery_self_match_fill_diagonal() -> None:
    _seeded()
    gallery = F.normalize(torch.randn(8, _EMB)).half()
    similarity = gallery @ gallery.T
    similarity.fill_diagonal_(-1e9)  # leave-one-out rank-1: never match an image with itself
    similarity.argmax(1)


def _identity_labels_packed_int16() -> None:
    identity_ids = [0, 1, 2, 40_311, 85_741]  # MS1MV2 ids run to 85,741
    torch.tensor(identity_ids, dtype=torch.int16)  # "labels only need two bytes"


# --- numpy interop


def _bf16_scores_into_sklearn_roc_curve() -> None:
    from sklearn.metrics import roc_curve

    with torch.no_grad():
        embeddings = F.normalize(_bf16_embeddings())
        scores = (embeddings[:2] * embeddings[2:]).sum(-1)
    roc_curve(np.array([1, 0]), scores)


# --- gradients and loss scaling


def _partial_fc_sampled_grad_written_back() -> None:
    _seeded()
    weight = nn.Parameter(torch.randn(_IDS, _EMB))
    sampled = torch.tensor([17, 4_203, 11_942, 19_876, 5, 600])
    sub_weight = weight.detach()[sampled].to(bf16).requires_grad_()
    embeddings = F.normalize(torch.randn(4, _EMB)).to(bf16)
    (F.linear(embeddings, F.normalize(sub_weight)) * _SCALE).logsumexp(1).mean().backward()
    full_grad = torch.zeros(_IDS, _EMB, dtype=sub_weight.grad.dtype)
    full_grad[sampled] = sub_weight.grad
    weight.grad = full_grad


def _fp16_margin_head_with_grad_scaler() -> None:
    _seeded()
    backbone = nn.Linear(64, _EMB)
    head = nn.Linear(_EMB, 1_000, bias=False).half()  # margin head stored in fp16 to halve its memory
    optimizer = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    embeddings = F.normalize(backbone(torch.randn(4, 64)))
    logits = _SCALE * F.linear(embeddings.half(), F.normalize(head.weight, dim=1)).float()
    loss = F.cross_entropy(logits, torch.tensor([1, 20, 300, 999]))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


CASES: dict[str, LiveCase] = {
    # aligned OpenCV crops (uint8 HWC) permuted to NCHW and fed to the fp32 IResNet stem
    "opencv-uint8-crops-conv-stem": case(_opencv_uint8_crops_into_stem, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # identity labels from a numpy int32 label column into cross_entropy on ArcFace logits
    "identity-labels-int32-cross-entropy": case(_int32_identity_labels_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # CosFace one-hot built with scatter_ of labels that came from a CSV as floats
    "cosface-one-hot-scatter-float-labels": case(_cosface_one_hot_from_float_labels, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a verification pair head trained with a bool same-person target in BCE-with-logits
    "verification-pairs-bool-bce-target": case(_verification_pairs_bool_target, "target_dtype", "bool",
                                               fix=("float()",),
        grade="correct", grade_at_freeze="correct"),
    # TAR computed as .mean() of the bool accepted mask of genuine scores
    "tar-mean-of-bool-accepted": case(_tar_as_mean_of_accepted, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # center loss indexing its centers with labels float()'d by a batch helper
    "center-loss-float-label-index": case(_center_loss_float_label_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # batch-hard triplet mining: bool same-identity mask minus a bool eye
    "batch-hard-positive-mask-minus-eye": case(_batch_hard_positive_mask_minus_eye, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # an int8-quantized gallery scored with a float probe by @
    "int8-gallery-float-probe-matmul": case(_int8_quantized_gallery_scored_by_float_probe, "integer_operand",
                                            "int8", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (686ee57) castwise gave matmul_dtype (f32, int8, low confidence): it read the mm's "
             "'expected m1 and m2 to have the same dtype' check as two dtypes meeting in a matmul and did not "
             "take the int8 ('signed char') quantized gallery for an integer operand of the matmul, which wants "
             "a .float() (or a dequantize) before @")),
    # inter-ocular distance with linalg.vector_norm of integer detector landmarks
    "interocular-distance-int-landmarks": case(_interocular_distance_from_integer_landmarks, "integer_operand",
                                               "int64",
        grade="correct", grade_at_freeze="correct"),
    # occlusion-robust features masked with a cv2 uint8 (0/255) parsing mask via masked_fill
    "occlusion-mask-uint8-masked-fill": case(_occlusion_mask_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a float64 numpy gallery (np.load) scored against fp32 probes with @
    "numpy-f64-gallery-fp32-probe-matmul": case(_float64_numpy_gallery_scored_by_fp32_probe, "matmul_dtype", "f32",
                                                "f64",
        grade="correct", grade_at_freeze="correct"),
    # ArcFace head run after the bf16 autocast block: bf16 embeddings against normalized fp32 weights
    "arcface-head-after-autocast-linear": case(_arcface_head_outside_autocast, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # IJB-C template aggregation: fp32 quality weights bmm'd with bf16 media features
    "template-quality-weights-bmm": case(_template_aggregation_quality_weights_bmm, "batched_matmul_dtype", "f32",
                                         "bf16",
        grade="correct", grade_at_freeze="correct"),
    # verification scores by linalg.vecdot of bf16 probes and fp32 enrolled embeddings
    "pair-scores-vecdot-bf16-fp32": case(_pair_scores_vecdot_bf16_and_fp32, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # IResNet stem with conv/BN moved to bf16 but the PReLU left in fp32
    "iresnet-prelu-left-fp32": case(_iresnet_prelu_left_in_fp32, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a .half() backbone evaluated on fp32-normalised crops
    "half-backbone-fp32-crops": case(_half_backbone_fed_fp32_crops, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # center loss centres updated with index_add_ inside the bf16 autocast block
    "center-update-index-add-autocast": case(_center_loss_index_add_under_autocast, "indexed_write_dtype", "f32",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 enrolled templates updated in place with lerp_ toward bf16 embeddings
    "f64-template-lerp-bf16-embeddings": case(_float64_template_momentum_update, "lerp_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # CosFace: fp32 margin-adjusted target logit scattered back into fp16 cosine logits
    "cosface-fp16-logits-scatter-fp32-target": case(_cosface_fp16_logits_scatter_fp32_target,
                                                    "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # face alignment: a float64 cv2-style affine turned into a grid for grid_sample of an fp32 image
    "alignment-f64-affine-grid-sample": case(_alignment_grid_from_float64_affine, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # class-balanced fp32 class weights with fp16 cosine logits in cross_entropy
    "class-weights-fp32-fp16-logits-ce": case(_class_balanced_weights_fp16_logits, "op_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Hamming distance of fp16 sign codes with ^
    "face-hash-xor-fp16-codes": case(_binary_face_hash_hamming_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Euclidean matching of bf16 embeddings with torch.cdist
    "euclidean-matching-cdist-bf16": case(_euclidean_matching_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # first threshold reaching the FAR target found with argmax of a bool tensor
    "far-threshold-argmax-bool": case(_far_threshold_index_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # TAR@FAR thresholds by torch.quantile of fp16 impostor scores at Python FAR targets
    "tar-at-far-quantile-fp16-impostors": case(_tar_at_far_quantile_fp16_impostors, "no_kernel",
                                               fix=("float()",),
        grade="correct", grade_at_freeze="correct"),
    # leave-one-out rank-1 on an fp16 gallery: fill_diagonal_(-1e9)
    "fp16-gallery-fill-diagonal-1e9": case(_fp16_gallery_self_match_fill_diagonal, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # identity ids up to 85,741 packed into int16
    "identity-ids-int16-overflow": case(_identity_labels_packed_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 verification scores handed to sklearn's roc_curve
    "bf16-scores-sklearn-roc-curve": case(_bf16_scores_into_sklearn_roc_curve, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Partial FC: bf16 sampled-centre gradient written back as the fp32 weight's .grad
    "partial-fc-bf16-grad-written-back": case(_partial_fc_sampled_grad_written_back, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 margin head trained with GradScaler on the CPU
    "fp16-margin-head-grad-scaler": case(_fp16_margin_head_with_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
