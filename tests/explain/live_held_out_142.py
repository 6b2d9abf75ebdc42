"""Held-out live set 142: pose estimation and human motion from video written by hand in low precision (keypoints as
float64 from OpenCV and MediaPipe, int64 joint indices and skeleton edge lists, bool visibility flags, heatmap argmax
with integer coordinates, bf16 autocast around HRNet-style backbones, OKS losses with float64 sigmas). Defects planted
by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at b19dbc97."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b19dbc97"

bf16, f16 = torch.bfloat16, torch.float16
_JOINTS = 17  # COCO keypoints
_HEATMAP = (16, 12)  # 64 x 48 heatmaps scaled down for the test
_COCO_SIGMAS = np.array([.26, .25, .25, .35, .35, .79, .79, .72, .72, .62, .62, 1.07, 1.07, .87, .87, .89, .89]) / 10.0
_COCO_SKELETON = [(15, 13), (13, 11), (16, 14), (14, 12), (11, 12), (5, 11), (6, 12), (5, 6), (5, 7), (6, 8),
                  (7, 9), (8, 10), (1, 2), (0, 1), (0, 2), (1, 3), (2, 4), (3, 5), (4, 6)]


def _seeded() -> None:
    torch.manual_seed(0)


class _TinyHRNet(nn.Module):
    """A stem and one high-resolution branch: enough of an HRNet-style backbone for the heatmap head to sit on."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(width),
                                  nn.ReLU(), nn.Conv2d(width, width, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        self.branch = nn.Sequential(nn.Conv2d(width, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.branch(self.stem(x))


def _frames_uint8(count: int = 2) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, size=(count, 64, 48, 3), dtype=np.uint8)  # what cv2.VideoCapture.read gives (BGR)


def _keypoints_xy(batch: int = 2) -> torch.Tensor:
    _seeded()
    return torch.rand(batch, _JOINTS, 2) * torch.tensor([48.0, 64.0])


# --- frames, crops and backbones


def _video_frames_uint8_into_hrnet_stem() -> None:
    _seeded()
    frames = torch.from_numpy(_frames_uint8()).permute(0, 3, 1, 2)  # no /255 or normalisation
    _TinyHRNet().eval()(frames)


def _autocast_backbone_fp32_final_layer() -> None:
    _seeded()
    backbone = _TinyHRNet().eval()
    final_layer = nn.Conv2d(8, _JOINTS, 1)  # the heatmap head, kept out of autocast "for precision"
    images = torch.randn(2, 3, 64, 48)
    with torch.no_grad():
        with torch.autocast("cpu", dtype=bf16):
            features = backbone(images)
        final_layer(features)


def _vitpose_bf16_backbone_fp32_patch_tokens() -> None:
    _seeded()
    dim = 32
    patch_embed = nn.Conv2d(3, dim, 8, stride=8)  # left fp32: created after the blocks were cast
    blocks = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True, norm_first=True).to(bf16)
    tokens = patch_embed(torch.randn(1, 3, 64, 48)).flatten(2).transpose(1, 2)
    blocks.norm1(tokens)


# --- geometry: affine crops, cameras, lifting and body models


def _cv2_affine_matrix_f64_transforms_keypoints() -> None:
    keypoints = _keypoints_xy()
    center, scale = np.array([24.0, 32.0]), 1.25
    trans = np.array([[scale, 0.0, 24.0 - scale * center[0]],
                      [0.0, scale, 32.0 - scale * center[1]]])  # what cv2.getAffineTransform returns: float64
    homogeneous = torch.cat([keypoints, torch.ones(2, _JOINTS, 1)], dim=-1)
    homogeneous @ torch.from_numpy(trans).T


def _bf16_root_relative_joints_projected_with_fp32_intrinsics() -> None:
    _seeded()
    lifter = nn.Linear(_JOINTS * 2, _JOINTS * 3)
    with torch.autocast("cpu", dtype=bf16):
        joints_cam = lifter(torch.randn(4, _JOINTS * 2)).view(4, _JOINTS, 3) + 5.0  # root depth about 5 m
    intrinsics = torch.tensor([[1000.0, 0.0, 512.0], [0.0, 1000.0, 384.0], [0.0, 0.0, 1.0]]).expand(4, 3, 3)
    projected = torch.bmm(joints_cam, intrinsics.transpose(1, 2))
    projected[..., :2] / projected[..., 2:]


def _videopose3d_conv1d_f64_keypoint_sequence() -> None:
    _seeded()
    sequence = np.random.default_rng(0).normal(size=(1, 27, _JOINTS * 2))  # np.load'ed detections: float64
    temporal_model = nn.Sequential(nn.Conv1d(_JOINTS * 2, 64, 3, dilation=1), nn.ReLU(),
                                   nn.Conv1d(64, 64, 3, dilation=3), nn.ReLU(), nn.Conv1d(64, _JOINTS * 3, 1))
    temporal_model(torch.from_numpy(sequence).transpose(1, 2))


def _smpl_shapedirs_f64_einsum_betas() -> None:
    _seeded()
    vertices, betas_count = 60, 10
    shapedirs = np.random.default_rng(0).normal(size=(vertices, 3, betas_count)) * 0.01  # from the SMPL pickle
    v_template = torch.randn(vertices, 3)
    betas = torch.zeros(2, betas_count)  # the regressor's fp32 shape output
    v_template + torch.einsum("bl,mkl->bmk", betas, torch.from_numpy(shapedirs))


def _triangulation_dlt_lstsq_fp16() -> None:
    _seeded()
    views = 4
    projections = torch.randn(views, 3, 4, dtype=f16)  # camera matrices kept with the fp16 detector outputs
    points_2d = torch.rand(views, 2, dtype=f16)
    rows = torch.cat([points_2d[:, :1] * projections[:, 2] - projections[:, 0],
                      points_2d[:, 1:] * projections[:, 2] - projections[:, 1]])
    torch.linalg.lstsq(rows[:, :3], -rows[:, 3:])


def _temporal_flow_warp_bf16_heatmaps() -> None:
    _seeded()
    heatmaps = torch.rand(1, _JOINTS, *_HEATMAP, dtype=bf16)  # the previous frame's heatmaps, from autocast
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, _HEATMAP[0]), torch.linspace(-1, 1, _HEATMAP[1]), indexing="ij")
    flow = torch.randn(1, *_HEATMAP, 2) * 0.05
    grid = torch.stack([xs, ys], dim=-1)[None] + flow
    F.grid_sample(heatmaps, grid, align_corners=True)


# --- temporal models and attention


def _vibe_gru_bf16_autocast_features() -> None:
    _seeded()
    encoder = nn.Linear(64, 32)
    temporal = nn.GRU(32, 32, batch_first=True)
    with torch.autocast("cpu", dtype=bf16):
        features = encoder(torch.randn(2, 16, 64))
    temporal(features)


def _tokenpose_sdpa_bf16_keypoint_tokens_fp32_visual() -> None:
    _seeded()
    dim, heads = 32, 4
    keypoint_tokens = nn.Parameter(torch.randn(1, _JOINTS, dim)).to(bf16)  # cast with the head only
    visual_tokens = torch.randn(1, 48, dim)
    q = keypoint_tokens.view(1, _JOINTS, heads, dim // heads).transpose(1, 2)
    kv = visual_tokens.view(1, 48, heads, dim // heads).transpose(1, 2)
    F.scaled_dot_product_attention(q, kv, kv)


def _poseformer_bf16_temporal_window_bias_f64() -> None:
    _seeded()
    frames, dim = 9, 32
    attention = nn.MultiheadAttention(dim, 4, batch_first=True).to(bf16)
    offsets = np.arange(frames)[:, None] - np.arange(frames)[None, :]
    window_bias = torch.from_numpy(-(offsets ** 2) / 8.0)  # Gaussian temporal prior computed in numpy
    x = torch.randn(2, frames, dim, dtype=bf16)
    attention(x, x, x, attn_mask=window_bias)


def _one_euro_filter_fp32_state_lerp_bf16_keypoints() -> None:
    _seeded()
    smoothed = torch.zeros(_JOINTS, 2)  # the filter's state, created fp32
    for _ in range(3):
        detection = torch.rand(_JOINTS, 2, dtype=bf16) * 48  # the bf16 pose model's keypoints for this frame
        smoothed.lerp_(detection, 0.4)


def _track_buffer_index_put_bf16_keypoints() -> None:
    _seeded()
    track_buffer = torch.zeros(8, _JOINTS, 2)  # fp32 keypoints of every live track
    matched_tracks = torch.tensor([1, 4, 6])
    with torch.autocast("cpu", dtype=bf16):
        refined = nn.Linear(_JOINTS * 2, _JOINTS * 2)(torch.randn(3, _JOINTS * 2)).view(3, _JOINTS, 2)
    track_buffer[matched_tracks] = refined


# --- losses, gradients and scaling


def _oks_quality_bce_target_f64_sigmas() -> None:
    _seeded()
    pred, gt = _keypoints_xy(), _keypoints_xy() + 1.0
    area = torch.tensor([900.0, 1200.0])
    variances = torch.from_numpy((2 * _COCO_SIGMAS) ** 2)  # float64 sigmas from the COCO eval code
    d2 = ((pred - gt) ** 2).sum(-1)
    oks = torch.exp(-d2 / (2 * area[:, None] * variances)).mean(-1)  # promoted to float64
    quality_logits = torch.randn(2, requires_grad=True)
    F.binary_cross_entropy(torch.sigmoid(quality_logits), oks.detach())


def _rle_normal_nan_from_zero_torso_scale() -> None:
    _seeded()
    keypoints = torch.zeros(1, _JOINTS, 2)  # a person whose hips and shoulders are all at the padded origin
    torso = (keypoints[:, 5] + keypoints[:, 6] - keypoints[:, 11] - keypoints[:, 12]).norm(dim=-1, keepdim=True)
    normalised = (keypoints - keypoints[:, 11:13].mean(1, keepdim=True)) / torso[..., None]
    sigma = torch.ones(1, _JOINTS, 2) * 0.1
    torch.distributions.Normal(normalised, sigma).log_prob(torch.zeros(1, _JOINTS, 2))


def _smplify_analytic_f64_gradient_assigned() -> None:
    _seeded()
    body_pose = nn.Parameter(torch.zeros(1, 69))
    jacobian = np.random.default_rng(0).normal(size=(_JOINTS * 2, 69))  # reprojection Jacobian from numpy
    residual = np.random.default_rng(1).normal(size=(_JOINTS * 2,))
    body_pose.grad = torch.from_numpy(jacobian.T @ residual)[None]


def _halved_hrnet_grad_scaler_unscale() -> None:
    _seeded()
    model = nn.Sequential(_TinyHRNet(), nn.Conv2d(8, _JOINTS, 1)).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    heatmaps = model(torch.randn(1, 3, 64, 48, dtype=f16))
    scaler.scale(heatmaps.float().pow(2).mean()).backward()
    scaler.unscale_(optimizer)


def _fp16_bbox_area_full_like_for_oks() -> None:
    _seeded()
    scores = torch.rand(4, dtype=f16)
    area = torch.full_like(scores, 1920.0 * 1080.0)  # no box: the whole frame as each person's area
    area.sum()


# --- keypoint decoding, visibility and indices


def _heatmap_argmax_coords_quarter_offset_in_place() -> None:
    _seeded()
    heatmaps = torch.rand(2, _JOINTS, *_HEATMAP)
    flat = heatmaps.flatten(2).argmax(-1)
    coords = torch.stack([flat % _HEATMAP[1], flat // _HEATMAP[1]], dim=-1)  # int64 pixel coordinates
    x = coords[..., 0].clamp(1, _HEATMAP[1] - 2)
    y = coords[..., 1]
    rows = heatmaps.flatten(2).gather(-1, (y * _HEATMAP[1] + x + 1)[..., None]) - heatmaps.flatten(2).gather(
        -1, (y * _HEATMAP[1] + x - 1)[..., None])
    coords[..., :1] += 0.25 * torch.sign(rows)  # DarkPose / SimpleBaseline quarter-pixel shift


def _pck_mse_on_integer_argmax_coords() -> None:
    _seeded()
    heatmaps = torch.rand(2, _JOINTS, *_HEATMAP)
    flat = heatmaps.flatten(2).argmax(-1)
    pred = torch.stack([flat % _HEATMAP[1], flat // _HEATMAP[1]], dim=-1)
    gt = torch.randint(0, 12, (2, _JOINTS, 2))  # MPII annotations are integer pixels
    F.mse_loss(pred, gt, reduction="none").sum(-1).sqrt()


def _simcc_float_bin_targets_cross_entropy() -> None:
    _seeded()
    split_ratio = 2.0
    logits_x = torch.randn(2 * _JOINTS, _HEATMAP[1] * 2)
    target_x = (_keypoints_xy()[..., 0] / 4 * split_ratio).round().reshape(-1)  # rounded but never .long()
    F.cross_entropy(logits_x, target_x)


def _visibility_head_bce_bool_target() -> None:
    _seeded()
    visibility_logits = torch.randn(2, _JOINTS, requires_grad=True)
    visible = torch.from_numpy(np.random.default_rng(0).integers(0, 3, size=(2, _JOINTS)) == 2)
    F.binary_cross_entropy_with_logits(visibility_logits, visible)


def _coco_visibility_int64_where_condition() -> None:
    _seeded()
    pred = _keypoints_xy()
    gt = _keypoints_xy() + 0.5
    v = torch.from_numpy(np.random.default_rng(0).integers(0, 3, size=(2, _JOINTS)))  # COCO v in {0, 1, 2}
    error = torch.where(v, (pred - gt).norm(dim=-1), torch.zeros(()))
    error.sum()


def _invisible_joints_by_invert_of_float_visibility() -> None:
    _seeded()
    visible = (torch.rand(2, _JOINTS) > 0.3).float()  # stored as target_weight for the heatmap loss
    heatmaps = torch.rand(2, _JOINTS, *_HEATMAP)
    heatmaps[~visible] = 0.0


def _visibility_map_bool_max_pool_downsample() -> None:
    _seeded()
    visible_pixels = torch.rand(1, _JOINTS, 64, 48) > 0.5  # per-joint visibility rendered at input resolution
    F.max_pool2d(visible_pixels, kernel_size=4, stride=4)


def _skeleton_edges_np_loadtxt_bone_vectors() -> None:
    keypoints = _keypoints_xy()
    edges = torch.from_numpy(np.array(_COCO_SKELETON, dtype=np.float64))  # np.loadtxt("skeleton.txt") default
    keypoints[:, edges[:, 1]] - keypoints[:, edges[:, 0]]


def _joint_type_embedding_uint8_ids() -> None:
    _seeded()
    joint_ids = torch.from_numpy(np.arange(_JOINTS, dtype=np.uint8))  # joint ids from the dataset's h5 file
    joint_embedding = nn.Embedding(_JOINTS, 32)
    joint_embedding(joint_ids)[None].expand(2, -1, -1)


def _multi_person_keypoints_object_array() -> None:
    people_per_frame = [np.zeros((1, _JOINTS, 3)), np.zeros((3, _JOINTS, 3))]  # MediaPipe/OpenPose results per frame
    torch.from_numpy(np.array(people_per_frame, dtype=object))


def _bf16_keypoints_numpy_for_cv2_drawing() -> None:
    _seeded()
    head = nn.Linear(64, _JOINTS * 2)
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        keypoints = head(torch.randn(1, 64)).view(_JOINTS, 2)
    keypoints.numpy().astype(np.int32)  # for cv2.circle


CASES: dict[str, LiveCase] = {
    # --- frames, crops and backbones
    # decoded uint8 video frames (cv2) permuted to NCHW and fed to the HRNet-style stem without /255
    "video-frames-uint8-hrnet-stem": case(_video_frames_uint8_into_hrnet_stem, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # HRNet backbone under bf16 autocast, the 1x1 heatmap final layer (with bias) run after the autocast block
    "autocast-hrnet-fp32-final-layer-outside": case(_autocast_backbone_fp32_final_layer, "conv_weight_dtype", "bf16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # ViTPose-style: transformer blocks cast to bf16, patch embedding added afterwards in fp32, its tokens to norm1
    "vitpose-bf16-blocks-fp32-patch-tokens-layer-norm": case(_vitpose_bf16_backbone_fp32_patch_tokens,
                                                             "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- geometry: affine crops, cameras, lifting and body models
    # keypoints mapped back to the frame with cv2.getAffineTransform's float64 matrix via @
    "cv2-affine-f64-matrix-keypoints-matmul": case(_cv2_affine_matrix_f64_transforms_keypoints, "matmul_dtype",
                                                   "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autocast camera-space joints projected with fp32 intrinsics via torch.bmm
    "bf16-joints-bmm-fp32-intrinsics": case(_bf16_root_relative_joints_projected_with_fp32_intrinsics,
                                            "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # VideoPose3D temporal Conv1d fed np.load'ed float64 2-D keypoint sequences
    "videopose3d-conv1d-f64-keypoints": case(_videopose3d_conv1d_f64_keypoint_sequence, "conv_weight_dtype", "f64",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # SMPL shape blend: fp32 betas einsum'd with the pickle's float64 shapedirs
    "smpl-shapedirs-f64-einsum-betas": case(_smpl_shapedirs_f64_einsum_betas, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # multi-view DLT triangulation solved with torch.linalg.lstsq on fp16 camera matrices
    "triangulation-dlt-lstsq-fp16": case(_triangulation_dlt_lstsq_fp16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # temporal propagation: bf16 heatmaps warped by an fp32 flow grid with grid_sample
    "flow-warp-grid-sample-bf16-heatmaps": case(_temporal_flow_warp_bf16_heatmaps, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- temporal models and attention
    # VIBE-style: bf16 autocast per-frame features fed to the fp32 temporal GRU outside autocast
    "vibe-gru-bf16-autocast-features": case(_vibe_gru_bf16_autocast_features, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TokenPose: bf16 keypoint tokens attending over fp32 visual tokens with SDPA
    "tokenpose-sdpa-bf16-keypoint-tokens": case(_tokenpose_sdpa_bf16_keypoint_tokens_fp32_visual, "sdpa_dtype",
                                                "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # PoseFormer in bf16 given a numpy (float64) Gaussian temporal-window bias as attn_mask
    "poseformer-bf16-f64-temporal-window-mask": case(_poseformer_bf16_temporal_window_bias_f64, "attn_mask_dtype",
                                                     "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # One-Euro/EMA smoothing: the fp32 filter state lerp_'ed toward the bf16 model's keypoints
    "one-euro-fp32-state-lerp-bf16-keypoints": case(_one_euro_filter_fp32_state_lerp_bf16_keypoints, "lerp_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pose tracking: bf16 autocast refined keypoints written into the fp32 track buffer by matched track ids
    "track-buffer-index-put-bf16-keypoints": case(_track_buffer_index_put_bf16_keypoints, "indexed_write_dtype",
                                                  "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- losses, gradients and scaling
    # pose-quality head trained with BCE against an OKS computed with the float64 COCO sigmas
    "oks-quality-bce-f64-sigmas-target": case(_oks_quality_bce_target_f64_sigmas, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RLE normal likelihood on keypoints normalised by a zero torso length (padded person): NaN loc
    "rle-normal-zero-torso-scale-nan": case(_rle_normal_nan_from_zero_torso_scale, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # SMPLify-style fitting: the numpy (float64) analytic gradient assigned to the fp32 body pose's .grad
    "smplify-f64-analytic-grad-assigned": case(_smplify_analytic_f64_gradient_assigned, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # HRNet halved with .half() and trained with GradScaler, unscale_ before clipping
    "halved-hrnet-grad-scaler-unscale": case(_halved_hrnet_grad_scaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 person areas for OKS filled with the full 1080p frame area
    "fp16-oks-area-full-frame-full-like": case(_fp16_bbox_area_full_like_for_oks, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- keypoint decoding, visibility and indices
    # quarter-pixel shift added in place to the int64 coordinates from the heatmap argmax
    "heatmap-argmax-int64-quarter-offset-in-place": case(_heatmap_argmax_coords_quarter_offset_in_place,
                                                         "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # PCK distance by mse_loss of the integer argmax coordinates and integer MPII annotations
    "pck-mse-integer-argmax-coords": case(_pck_mse_on_integer_argmax_coords, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # SimCC coordinate classification with rounded float bin targets in cross_entropy
    "simcc-float-bin-targets-cross-entropy": case(_simcc_float_bin_targets_cross_entropy, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # keypoint visibility head trained with BCE-with-logits against bool "v == 2" labels
    "visibility-head-bce-logits-bool-target": case(_visibility_head_bce_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # masked keypoint error with torch.where on COCO's int64 visibility flags v
    "coco-visibility-int64-where-condition": case(_coco_visibility_int64_where_condition, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # invisible joints taken as ~target_weight where target_weight was made .float()
    "invisible-joints-invert-float-target-weight": case(_invisible_joints_by_invert_of_float_visibility, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a bool per-pixel visibility map downsampled to heatmap stride with max_pool2d
    "visibility-map-bool-max-pool-downsample": case(_visibility_map_bool_max_pool_downsample, "integer_operand",
                                                    "bool",
        grade="correct", grade_at_freeze="correct"),
    # bone vectors indexed by a skeleton edge list loaded as float64
    "skeleton-edges-float64-bone-vectors": case(_skeleton_edges_np_loadtxt_bone_vectors, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # joint-type embedding looked up with uint8 joint ids from the dataset file
    "joint-type-embedding-uint8-ids": case(_joint_type_embedding_uint8_ids, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # per-frame multi-person keypoints of different person counts stacked into an object array
    "multi-person-keypoints-object-array": case(_multi_person_keypoints_object_array, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autocast keypoints turned into numpy for cv2 drawing
    "bf16-keypoints-numpy-cv2-drawing": case(_bf16_keypoints_numpy_for_cv2_drawing, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
