"""Held-out live set 33: hand-written object detection and segmentation in low precision. Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at 68c5d2f."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "68c5d2f"

bf16, f16 = torch.bfloat16, torch.float16


def _boxes(n: int, size: float = 64.0) -> torch.Tensor:
    """``n`` random xyxy boxes inside a ``size`` square image (fp32)."""
    xy = torch.rand(n, 2) * size * 0.6
    wh = torch.rand(n, 2) * size * 0.4 + 1.0
    return torch.cat([xy, xy + wh], dim=1)


def _detr_cost_bbox_cdist_bf16() -> None:
    torch.manual_seed(0)
    pred_boxes = torch.rand(2, 10, 4).to(bf16)  # cxcywh from the bf16 DETR head
    tgt_boxes = torch.cat([torch.rand(3, 4), torch.rand(2, 4)]).to(pred_boxes.dtype)
    out_bbox = pred_boxes.flatten(0, 1)
    torch.cdist(out_bbox, tgt_boxes, p=1)


def _yolox_simota_bce_half() -> None:
    torch.manual_seed(0)
    cls_preds = torch.randn(12, 5).half().sigmoid()
    obj_preds = torch.randn(12, 1).half().sigmoid()
    gt_classes = torch.tensor([1, 3, 0])
    gt_cls = F.one_hot(gt_classes, 5).float()[:, None, :].repeat(1, 12, 1)
    scores = (cls_preds * obj_preds)[None].repeat(3, 1, 1).sqrt_()
    F.binary_cross_entropy(scores, gt_cls, reduction="none").sum(-1)


def _yolo_class_column_one_hot() -> None:
    # targets rows: [image, class, cx, cy, w, h], all float as loaded from the label txt files
    targets = torch.tensor([[0, 2, 0.5, 0.5, 0.2, 0.3], [0, 7, 0.3, 0.6, 0.1, 0.1], [1, 0, 0.4, 0.4, 0.5, 0.5]])
    tcls = targets[:, 1]
    F.one_hot(tcls, 80)


def _matrix_nms_bool_masks() -> None:
    torch.manual_seed(0)
    mask_probs = torch.rand(6, 16, 16)
    seg_masks = (mask_probs > 0.5).flatten(1)
    torch.mm(seg_masks, seg_masks.t())


def _roi_feature_cache_fp8() -> None:
    torch.manual_seed(0)
    roi_feats = torch.randn(8, 16, 7, 7).to(torch.float8_e4m3fn)  # cached proposals' pooled features, stored in fp8
    channel_scale = (torch.rand(16) + 0.5).to(bf16)
    roi_feats * channel_scale[None, :, None, None]


def _nms_suppressed_like_scores() -> None:
    torch.manual_seed(0)
    boxes = _boxes(8).half()
    scores = torch.rand(8).half()
    order = scores.argsort(descending=True)
    suppressed = torch.zeros_like(scores)
    x1, y1, x2, y2 = boxes.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    i = order[0]
    w = (torch.minimum(x2[i], x2) - torch.maximum(x1[i], x1)).clamp(min=0)
    h = (torch.minimum(y2[i], y2) - torch.maximum(y1[i], y1)).clamp(min=0)
    iou = w * h / (areas[i] + areas - w * h)
    suppressed |= iou > 0.5


def _atss_ious_inf_fill_half() -> None:
    torch.manual_seed(0)
    inf = 100000000
    ious = torch.rand(30, 3).half()  # IoUs computed from the fp16 head's anchors
    torch.full_like(ious, -inf).t().contiguous().view(-1)


def _mask_targets_roi_crop_uint8() -> None:
    torch.manual_seed(0)
    gt_masks = (torch.rand(3, 32, 32) > 0.5).to(torch.uint8)  # COCO polygons rasterised to uint8
    rois = torch.tensor([[2.0, 2.0, 20.0, 20.0], [5.0, 8.0, 30.0, 28.0], [0.0, 0.0, 31.0, 31.0]])
    steps = torch.linspace(0, 1, 28)
    x = rois[:, 0:1] + (rois[:, 2:3] - rois[:, 0:1]) * steps
    y = rois[:, 1:2] + (rois[:, 3:4] - rois[:, 1:2]) * steps
    grid = torch.stack(torch.broadcast_tensors(x[:, None, :], y[:, :, None]), dim=-1) / 31 * 2 - 1
    F.grid_sample(gt_masks[:, None], grid, align_corners=True)


def _focal_loss_bool_targets() -> None:
    torch.manual_seed(0)
    logits = torch.randn(20, 4).to(bf16)
    labels = torch.randint(0, 5, (20,))
    targets = labels[:, None] == torch.arange(4)[None]
    alpha = 0.25
    p = logits.sigmoid()
    ce = F.binary_cross_entropy_with_logits(logits, targets.to(logits.dtype), reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    alpha * ce * (1 - p_t) ** 2


def _roi_align_lerp_weights() -> None:
    torch.manual_seed(0)
    feats = torch.randn(16, 12, 12).to(bf16)
    ys = torch.tensor([2.3, 4.7, 6.1])
    xs = torch.tensor([1.2, 5.5, 9.8])
    y0, x0 = ys.floor().long(), xs.floor().long()
    wy, wx = ys - y0, xs - x0
    top = torch.lerp(feats[:, y0, x0], feats[:, y0, x0 + 1], wx)
    bottom = torch.lerp(feats[:, y0 + 1, x0], feats[:, y0 + 1, x0 + 1], wx)
    torch.lerp(top, bottom, wy)


def _detr_query_pos_sdpa() -> None:
    torch.manual_seed(0)
    tgt = torch.randn(2, 4, 10, 8).to(bf16)  # (batch, heads, queries, head_dim) of the bf16 decoder
    query_pos = torch.randn(1, 4, 10, 8)  # learned query positions kept fp32
    q = k = tgt + query_pos
    F.scaled_dot_product_attention(q, k, tgt)


def _mask2former_dice_cost_einsum() -> None:
    torch.manual_seed(0)
    pred_masks = torch.randn(10, 64).to(bf16).sigmoid()  # point-sampled mask logits of 10 queries
    tgt_masks = (torch.rand(3, 64) > 0.5).to(torch.uint8).float()
    numerator = 2 * torch.einsum("nc,mc->nm", pred_masks, tgt_masks)
    denominator = pred_masks.sum(-1)[:, None] + tgt_masks.sum(-1)[None, :]
    1 - (numerator + 1) / (denominator + 1)


def _rotated_box_corners_bmm() -> None:
    torch.manual_seed(0)
    rboxes = torch.rand(5, 5).to(bf16)  # cx, cy, w, h, angle from the bf16 rotated head
    cos, sin = rboxes[:, 4].cos(), rboxes[:, 4].sin()
    rot = torch.stack([cos, -sin, sin, cos], dim=1).view(-1, 2, 2)
    template = torch.tensor([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]).t()
    offsets = template[None] * rboxes[:, 2:4, None].float()
    torch.bmm(rot, offsets)


def _integral_pose_soft_argmax() -> None:
    torch.manual_seed(0)
    heatmaps = torch.randn(2, 17, 16 * 16).to(bf16)  # bf16 keypoint head output, flattened
    ys, xs = torch.meshgrid(torch.linspace(0, 15, 16), torch.linspace(0, 15, 16), indexing="ij")
    grid = torch.stack([xs.flatten(), ys.flatten()], dim=1)
    heatmaps.softmax(-1) @ grid


def _retinanet_prior_bias_after_cast() -> None:
    torch.manual_seed(0)
    cls_logits = nn.Conv2d(8, 9 * 3, 3, padding=1).to(bf16)
    prior = 0.01
    cls_logits.bias = nn.Parameter(torch.full((9 * 3,), -math.log((1 - prior) / prior)))
    cls_logits(torch.randn(1, 8, 10, 10).to(bf16))


def _fpn_lateral_added_after_cast() -> None:
    torch.manual_seed(0)
    fpn = nn.ModuleDict({"lateral_c3": nn.Conv2d(16, 8, 1, bias=False), "norm_c3": nn.GroupNorm(4, 8)}).to(bf16)
    fpn["lateral_c2"] = nn.Conv2d(4, 8, 1, bias=False)  # P2 level added for small objects, after the cast
    fpn["norm_c2"] = nn.GroupNorm(4, 8).to(bf16)
    c2 = torch.randn(1, 4, 32, 32).to(bf16)
    fpn["norm_c2"](fpn["lateral_c2"](c2))


def _condinst_dynamic_conv_coords() -> None:
    torch.manual_seed(0)
    mask_feats = torch.randn(1, 8, 16, 16).to(bf16)
    params = torch.randn(4, 10 * 8).to(bf16)  # controller output for 4 instances
    ys, xs = torch.meshgrid(torch.arange(16.0), torch.arange(16.0), indexing="ij")
    rel_coords = torch.stack([xs, ys])[None] / 16.0
    x = torch.cat([mask_feats, rel_coords], dim=1)
    weight = params.view(4 * 8, 10, 1, 1)
    F.conv2d(x, weight)


def _panoptic_canvas_int32() -> None:
    torch.manual_seed(0)
    label_divisor = 1000
    panoptic = torch.zeros(32, 32, dtype=torch.int32)
    sem = torch.randint(0, 5, (32, 32))
    instance_masks = torch.rand(3, 32, 32) > 0.7
    for inst_id, mask in enumerate(instance_masks, start=1):
        panoptic[mask] = sem[mask] * label_divisor + inst_id


def _regression_targets_bf16_buffer() -> None:
    torch.manual_seed(0)
    anchors = _boxes(20)
    gt = _boxes(3)
    matched = torch.randint(0, 3, (20,))
    pos = torch.rand(20) > 0.5
    reg_targets = torch.zeros(20, 4, dtype=bf16)  # allocated in the head's dtype
    a, g = anchors[pos], gt[matched[pos]]
    aw, ah = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
    gw, gh = g[:, 2] - g[:, 0], g[:, 3] - g[:, 1]
    deltas = torch.stack([
        (g[:, 0] + gw / 2 - a[:, 0] - aw / 2) / aw, (g[:, 1] + gh / 2 - a[:, 1] - ah / 2) / ah,
        torch.log(gw / aw), torch.log(gh / ah)], dim=1)
    reg_targets[pos] = deltas


def _keypoint_heatmap_scatter_add() -> None:
    torch.manual_seed(0)
    heatmaps = torch.zeros(17, 64 * 64, dtype=f16)
    centres = torch.randint(0, 64 * 64, (17, 1))
    sigma = torch.tensor(2.0)
    weights = torch.exp(-torch.zeros(17, 1) / (2 * sigma**2))
    heatmaps.scatter_add_(1, centres, weights)


def _coco_boxes_resize_in_place() -> None:
    boxes = torch.tensor([[10, 20, 110, 220], [50, 60, 80, 90]])  # xywh ints from the annotation json
    boxes[:, 2:] += boxes[:, :2]
    scale = 800 / 480
    boxes *= scale


def _keypoint_head_float_targets() -> None:
    torch.manual_seed(0)
    heatmap_size = 56
    logits = torch.randn(4 * 17, heatmap_size * heatmap_size)
    kps = torch.rand(4, 17, 2) * 200
    roi_offset, roi_scale = torch.tensor([20.0, 30.0]), heatmap_size / torch.tensor([150.0, 180.0])
    xy = ((kps - roi_offset) * roi_scale).floor().clamp(0, heatmap_size - 1)
    lin_ind = xy[..., 1] * heatmap_size + xy[..., 0]
    F.cross_entropy(logits, lin_ind.view(-1))


def _mask_head_float_labels() -> None:
    torch.manual_seed(0)
    mask_logits = torch.randn(6, 80, 28, 28).to(bf16)
    gt_classes = torch.tensor([3.0, 17.0, 0.0])  # from a float annotation array
    matched = torch.tensor([0, 1, 2, 0, 1, 2])
    labels = gt_classes[matched]
    mask_logits[torch.arange(6), labels]


def _coco_eval_bf16_numpy() -> None:
    torch.manual_seed(0)
    boxes = _boxes(5).to(bf16)
    scores = torch.rand(5).to(bf16)
    results = []
    for box, score in zip(boxes.numpy(), scores.numpy(), strict=True):
        results.append({"image_id": 1, "bbox": box.tolist(), "score": float(score)})


def _tood_topk_in_box_mask() -> None:
    torch.manual_seed(0)
    centres = torch.rand(50, 2) * 64
    gt = _boxes(3)
    inside = ((centres[None, :, 0] > gt[:, None, 0]) & (centres[None, :, 0] < gt[:, None, 2])
              & (centres[None, :, 1] > gt[:, None, 1]) & (centres[None, :, 1] < gt[:, None, 3]))
    torch.topk(inside, 9, dim=1)


def _unscale_half_detector() -> None:
    torch.manual_seed(0)
    head = nn.Conv2d(4, 9 * 4, 3, padding=1).half()
    optimizer = torch.optim.SGD(head.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    deltas = head(torch.randn(1, 4, 8, 8).half())
    loss = deltas.float().abs().mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(head.parameters(), 10.0)


def _mask2former_float_attn_mask() -> None:
    torch.manual_seed(0)
    attn = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    queries = torch.randn(1, 10, 16).to(bf16)
    pixels = torch.randn(1, 64, 16).to(bf16)
    mask_logits = torch.randn(10, 64)
    attn_mask = torch.zeros(10, 64).masked_fill(mask_logits.sigmoid() < 0.5, float("-inf"))
    attn(queries, pixels, pixels, attn_mask=attn_mask)


def _encoder_sine_pos_prenorm() -> None:
    torch.manual_seed(0)
    norm = nn.LayerNorm(16).to(bf16)
    feats = torch.randn(1, 16, 8, 8).to(bf16)
    not_mask = torch.ones(1, 8, 8)
    y_embed, x_embed = not_mask.cumsum(1, dtype=torch.float32), not_mask.cumsum(2, dtype=torch.float32)
    dim_t = 10000 ** (2 * (torch.arange(8) // 2) / 8)
    pos = torch.cat([(y_embed[..., None] / dim_t).sin(), (x_embed[..., None] / dim_t).cos()], dim=-1)
    src = feats.flatten(2).transpose(1, 2) + pos.flatten(1, 2)
    norm(src)


def _box_regression_huber_backward() -> None:
    torch.manual_seed(0)
    head = nn.Linear(8, 4).to(bf16)
    deltas = head(torch.randn(6, 8).to(bf16))
    targets = torch.randn(6, 4)  # encoded in fp32 by the box coder
    F.huber_loss(deltas, targets, delta=1 / 9).backward()


def _atss_level_offsets_float() -> None:
    torch.manual_seed(0)
    num_per_level = [64, 16, 4]
    distances = torch.rand(84, 3)
    level_starts = torch.cumsum(torch.tensor([0.0] + num_per_level[:-1]), 0)
    candidates = []
    start = 0
    for level, n in enumerate(num_per_level):
        topk = distances[start:start + n].topk(min(9, n), dim=0, largest=False).indices
        candidates.append(topk + level_starts[level])
        start += n
    anchor_ious = torch.rand(84, 3)
    torch.index_select(anchor_ious, 0, torch.cat(candidates).flatten())


CASES: dict[str, LiveCase] = {
    # DETR's Hungarian matcher: the L1 box cost with torch.cdist on the bf16 predicted boxes
    "detr-cost-bbox-cdist-bf16": case(_detr_cost_bbox_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # YOLOX SimOTA: pairwise class cost with binary_cross_entropy on fp16 scores against float one-hot targets
    "yolox-simota-bce-f16-scores-f32-onehot": case(_yolox_simota_bce_half, "op_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # YOLO target building: the class column of the float targets matrix one-hot encoded as is
    "yolo-float-class-column-one-hot": case(_yolo_class_column_one_hot, "index_tensor_dtype", fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # SOLOv2 matrix NMS: the mask intersection matrix by mm of the bool thresholded masks
    "matrix-nms-bool-masks-mm": case(_matrix_nms_bool_masks, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # pooled ROI features cached in float8 to save memory, rescaled by bf16 per-channel scales
    "roi-feature-cache-fp8-bf16-scale": case(_roi_feature_cache_fp8, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hand-written NMS: the suppressed flags made with zeros_like(scores) (fp16), or'ed with the IoU test
    "nms-suppressed-zeros-like-f16-scores": case(_nms_suppressed_like_scores, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # ATSS: the IoU fill with -INF (1e8) through full_like on fp16 IoUs
    "atss-ious-inf-full-like-f16": case(_atss_ious_inf_fill_half, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Mask R-CNN targets: COCO uint8 instance masks cropped to the ROIs with grid_sample
    "mask-targets-roi-crop-uint8-grid-sample": case(_mask_targets_roi_crop_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # sigmoid focal loss: the alpha/p_t terms computed with 1 - targets on the bool one-hot targets
    "focal-loss-one-minus-bool-targets": case(_focal_loss_bool_targets, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # hand-written ROI Align: bilinear sampling with lerp of bf16 features and fp32 fractional weights
    "roi-align-lerp-fp32-fractions": case(_roi_align_lerp_weights, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DETR decoder self-attention: fp32 query positions added to q and k only, v left bf16
    "detr-query-pos-fp32-q-k-only-sdpa": case(_detr_query_pos_sdpa, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Mask2Former matcher: dice cost by einsum of bf16 mask probabilities and fp32 target masks
    "mask2former-dice-cost-einsum-bf16-f32": case(_mask2former_dice_cost_einsum, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # rotated boxes to corners: bf16 rotation matrices bmm'ed with fp32 corner offsets
    "rotated-box-corners-bmm-fp32-offsets": case(_rotated_box_corners_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # integral pose regression: bf16 heatmap softmax times a linspace (fp32) coordinate grid
    "integral-pose-soft-argmax-linspace-grid": case(_integral_pose_soft_argmax, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RetinaNet fine-tuning: the focal prior bias re-set as a new fp32 Parameter after the head was cast to bf16
    "retinanet-prior-bias-reset-after-cast": case(_retinanet_prior_bias_after_cast, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # FPN: a bias-free lateral conv for a new P2 level added after the bf16 cast stays fp32
    "fpn-p2-lateral-added-after-cast": case(_fpn_lateral_added_after_cast, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # CondInst dynamic mask head: fp32 relative coordinates concatenated to bf16 features, bf16 generated filters
    "condinst-rel-coords-fp32-dynamic-conv": case(_condinst_dynamic_conv_coords, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # panoptic merging: an int32 canvas written with int64 semantic * divisor + instance ids through a mask
    "panoptic-canvas-int32-index-put-int64": case(_panoptic_canvas_int32, "indexed_write_dtype", "int32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # anchor box regression targets preallocated in bf16, positives written with fp32 encoded deltas
    "regression-targets-bf16-buffer-fp32-deltas": case(_regression_targets_bf16_buffer, "indexed_write_dtype",
                                                       "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # keypoint heatmap targets in fp16 accumulated with scatter_add_ of fp32 gaussian weights
    "keypoint-heatmap-f16-scatter-add-f32": case(_keypoint_heatmap_scatter_add, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # COCO xywh int64 boxes converted and rescaled in place by the resize factor
    "coco-int-boxes-resized-in-place": case(_coco_boxes_resize_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # Mask R-CNN keypoint head: the heatmap linear index targets left float after floor
    "keypoint-head-float-linear-index-targets": case(_keypoint_head_float_targets, "target_dtype", "f32",
                                                     fix=("long",), grade="correct", grade_at_freeze="correct"),
    # mask head: the class-specific mask channel picked with float matched labels
    "mask-head-float-labels-select-channel": case(_mask_head_float_labels, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # COCO evaluation export: the bf16 detections turned into numpy for the results json
    "coco-eval-export-bf16-numpy": case(_coco_eval_bf16_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TOOD/ATSS-style candidates: top-k taken directly on the bool centre-in-box mask
    "topk-on-bool-in-box-mask": case(_tood_topk_in_box_mask, "integer_operand", "bool",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (68c5d2f) castwise gave nothing. torch's topk check names the bool dtype in its own words "
             "rather than in the usual not-implemented-for dispatch form, and the frozen rules had no reading of it.")),
    # detector head converted with .half() trained with GradScaler, unscaled to clip gradients
    "half-detector-head-unscale-clip": case(_unscale_half_detector, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Mask2Former masked attention: an fp32 -inf additive mask from the mask logits for a bf16 MultiheadAttention
    "mask2former-fp32-additive-mask-bf16-mha": case(_mask2former_float_attn_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DETR-style pre-norm encoder: fp32 sine positions (cumsum dtype=float32) added to bf16 features before LayerNorm
    "sine-pos-fp32-into-bf16-prenorm": case(_encoder_sine_pos_prenorm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # box regression with huber_loss on bf16 deltas against fp32 encoded targets
    "box-regression-huber-bf16-f32-backward": case(_box_regression_huber_backward, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ATSS per-level candidates offset by float level starts (cumsum of a float tensor) used with index_select
    "atss-float-level-offsets-index-select": case(_atss_level_offsets_float, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
}
