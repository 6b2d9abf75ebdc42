"""Held-out live set 66: LiDAR and point-cloud perception by hand in low precision (voxelization with integer voxel
coordinates and hashing, farthest point sampling and ball query, kNN neighbour indices, uint8/uint16 intensity channels,
range images, bird's-eye-view pillar scatter, point-wise segmentation labels with an ignore index, float64 poses and
calibration matrices from numpy, 3-D box encodings). Defects planted by a helper who never read the rules, written
before castwise ran and graded once with the rules frozen at 439a35c."""

from __future__ import annotations

import io
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "439a35c"

bf16, f16 = torch.bfloat16, torch.float16
_PC_MIN = (0.0, -5.12, -3.0)  # x, y, z of the point-cloud range, metres
_VOXEL = (0.16, 0.16, 4.0)  # pillar size
_NX, _NY = 64, 64  # BEV grid of the small range above
_RANGE_H, _RANGE_W = 16, 128  # a 16-beam spinning LiDAR's range image


def _seeded() -> None:
    torch.manual_seed(0)


def _sweep(n: int = 256) -> torch.Tensor:
    """A KITTI-style sweep as read from a .bin file: float32 x, y, z, intensity in [0, 1]."""
    rng = np.random.default_rng(0)
    xyz = rng.uniform((0.5, -5.0, -2.0), (10.0, 5.0, 0.5), size=(n, 3))
    intensity = rng.uniform(0.0, 1.0, size=(n, 1))
    return torch.from_numpy(np.concatenate([xyz, intensity], 1).astype(np.float32))


def _pillar_coords(points: torch.Tensor) -> torch.Tensor:
    """Integer pillar coordinates (y, x) of each point, as voxelization code returns them."""
    x = ((points[:, 0] - _PC_MIN[0]) / _VOXEL[0]).floor().long().clamp(0, _NX - 1)
    y = ((points[:, 1] - _PC_MIN[1]) / _VOXEL[1]).floor().long().clamp(0, _NY - 1)
    return torch.stack([y, x], 1)


def _spherical_projection(points: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Row, column (both float, before rounding) and range of each point in the range image."""
    depth = points[:, :3].norm(dim=1)
    yaw = torch.atan2(points[:, 1], points[:, 0])
    pitch = torch.asin(points[:, 2] / depth)
    fov_up, fov_down = math.radians(2.0), math.radians(-24.8)
    u = 0.5 * (1.0 - yaw / math.pi) * _RANGE_W
    v = (1.0 - (pitch - fov_down) / (fov_up - fov_down)) * _RANGE_H
    return v.clamp(0, _RANGE_H - 1), u.clamp(0, _RANGE_W - 1), depth


# --- voxels, pillars and the BEV canvas ---


def _pillar_scatter_with_float_coordinates() -> None:
    _seeded()
    points = _sweep()
    batch_column = torch.zeros(len(points), 1)
    cell = torch.stack([((points[:, 1] - _PC_MIN[1]) / _VOXEL[1]).floor(),
                        ((points[:, 0] - _PC_MIN[0]) / _VOXEL[0]).floor()], 1)
    coords, inverse = torch.unique(torch.cat([batch_column, cell], 1), dim=0, return_inverse=True)  # float: b, y, x
    pfn = nn.Linear(4, 32)
    pillar_features = torch.zeros(len(coords), 32).index_reduce_(0, inverse, pfn(points), "amax", include_self=False)
    canvas = torch.zeros(32, _NY * _NX)
    indices = coords[:, 1] * _NX + coords[:, 2]
    canvas[:, indices] = pillar_features.t()


def _pillar_scatter_bf16_features_into_default_canvas() -> None:
    _seeded()
    points = _sweep()
    coords, inverse = torch.unique(_pillar_coords(points), dim=0, return_inverse=True)
    pfn = nn.Sequential(nn.Linear(4, 32), nn.ReLU()).to(bf16)
    point_features = pfn(points.to(bf16))
    pillar_features = torch.zeros(len(coords), 32, dtype=bf16).index_reduce_(0, inverse, point_features, "amax",
                                                                             include_self=False)
    canvas = torch.zeros(32, _NY * _NX)  # PointPillarsScatter: dtype left to the default
    canvas[:, coords[:, 0] * _NX + coords[:, 1]] = pillar_features.t()


def _pfn_bf16_with_fp32_pillar_centre_offsets() -> None:
    _seeded()
    points = _sweep(64).to(bf16)  # the batch cast to the model's dtype by the collate
    coords = _pillar_coords(points.float())
    centre_x = coords[:, 1] * _VOXEL[0] + (_VOXEL[0] / 2 + _PC_MIN[0])
    centre_y = coords[:, 0] * _VOXEL[1] + (_VOXEL[1] / 2 + _PC_MIN[1])
    f_center = torch.stack([points[:, 0] - centre_x, points[:, 1] - centre_y], 1)  # int64 coords * float: fp32
    augmented = torch.cat([points, f_center], 1)
    pfn_linear = nn.Linear(6, 64, bias=False).to(bf16)
    pfn_linear(augmented)


def _dynamic_pillar_max_pool_bf16_into_zeros() -> None:
    _seeded()
    points = _sweep()
    coords, inverse = torch.unique(_pillar_coords(points), dim=0, return_inverse=True)
    point_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU()).to(bf16)
    point_features = point_net(points.to(bf16))
    pooled = torch.zeros(len(coords), 16)  # DynamicScatter's output buffer
    pooled.scatter_reduce_(0, inverse[:, None].expand(-1, 16), point_features, "amax", include_self=False)


def _pillar_padding_mask_type_as_bf16_inverted() -> None:
    _seeded()
    max_points = 8
    num_points = torch.tensor([3, 8, 1, 5])
    features = torch.randn(4, max_points, 9, dtype=bf16)
    mask = (torch.arange(max_points)[None] < num_points[:, None]).type_as(features)  # get_paddings_indicator
    features = features * mask[..., None]
    empty = ~mask  # padded slots, to reset after the PFN's bias
    features.masked_fill(empty[..., None], 0.0)


def _voxel_hash_table_empty_slot_sentinel() -> None:
    capacity = 1 << 12
    # open-addressing voxel hash ported from a CUDA kernel whose key table was uint32 with 0xFFFFFFFF as "empty"
    keys = torch.full((capacity,), 0xFFFFFFFF, dtype=torch.int32)
    keys.numel()


def _rotation_augmentation_in_the_coords_dtype() -> None:
    _seeded()
    voxel_coords = torch.randint(0, 64, (100, 3), dtype=torch.int32)  # from the voxelizer
    angles = torch.empty(1, dtype=voxel_coords.dtype).uniform_(-math.pi / 4, math.pi / 4)
    angles.cos()


# --- range images ---


def _range_image_valid_ratio_of_bool_mask() -> None:
    points = _sweep()
    v, u, depth = _spherical_projection(points)
    range_image = torch.full((_RANGE_H, _RANGE_W), -1.0)
    range_image[v.long(), u.long()] = depth
    valid = range_image > 0
    valid.mean(dim=1)  # per-beam fraction of pixels with a return, for logging


def _range_reconstruction_loss_one_minus_valid() -> None:
    _seeded()
    target = torch.rand(1, 1, _RANGE_H, _RANGE_W) * 50
    target[..., ::3] = -1.0  # no return
    prediction = torch.rand(1, 1, _RANGE_H, _RANGE_W) * 50
    valid = target > 0
    loss = (prediction - target).abs() * valid + 0.1 * prediction.abs() * (1 - valid)
    loss.mean()


def _first_return_row_by_argmax_of_mask() -> None:
    points = _sweep()
    v, u, depth = _spherical_projection(points)
    range_image = torch.zeros(_RANGE_H, _RANGE_W)
    range_image[v.long(), u.long()] = depth
    (range_image > 0).argmax(dim=0)  # topmost beam with a return in each column


def _ouster_uint16_signal_clamped() -> None:
    rng = np.random.default_rng(0)
    signal = torch.from_numpy(rng.integers(0, 9000, size=(_RANGE_H, _RANGE_W), dtype=np.uint16))  # photon counts
    signal = signal.clamp(max=4000)
    torch.log1p(signal.float()) / math.log1p(4000)


def _intensity_uint8_into_point_mlp() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    reflectivity = torch.from_numpy(rng.integers(0, 256, size=256, dtype=np.uint8))  # Livox reflectivity byte
    intensity_embedding = nn.Linear(1, 16)
    intensity_embedding(reflectivity[:, None])


def _livox_millimetre_points_to_metres_in_place() -> None:
    record = np.dtype([("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("reflectivity", "u1"), ("tag", "u1")])
    raw = np.zeros(16, dtype=record)
    raw["x"], raw["y"], raw["z"] = 5230, -1210, -1530
    xyz = torch.from_numpy(np.stack([raw["x"], raw["y"], raw["z"]], 1))
    xyz /= 1000.0


# --- neighbourhoods: FPS, ball query, kNN ---


def _ball_query_out_of_radius_fill_half() -> None:
    _seeded()
    xyz = (torch.rand(1, 128, 3) * 4).half()  # points kept fp16 to fit the batch
    centres = xyz[:, :16]
    sq_dist = ((centres[:, :, None] - xyz[:, None]) ** 2).sum(-1)
    sq_dist = sq_dist.masked_fill(sq_dist > 0.3**2, 1e10)
    sq_dist.topk(8, dim=-1, largest=False)


def _knn_int32_cached_neighbours_take_along_dim() -> None:
    _seeded()
    features = torch.randn(2, 128, 16)
    neighbours = np.random.default_rng(0).integers(0, 128, size=(2, 128, 8)).astype(np.int32)  # saved with the cache
    idx = torch.from_numpy(neighbours)
    grouped = torch.take_along_dim(features, idx.reshape(2, 128 * 8, 1), dim=1)
    grouped.reshape(2, 128, 8, 16).amax(2)


def _icp_kabsch_svd_of_half_sweeps() -> None:
    _seeded()
    source = _sweep(128)[:, :3].half()  # consecutive sweeps stored fp16
    angle = 0.05
    rotation = torch.tensor([[math.cos(angle), -math.sin(angle), 0.0], [math.sin(angle), math.cos(angle), 0.0],
                             [0.0, 0.0, 1.0]], dtype=f16)
    target = source @ rotation.T + 0.1
    src_c, tgt_c = source - source.mean(0), target - target.mean(0)
    u, _, vt = torch.linalg.svd(src_c.T @ tgt_c)
    vt.T @ u.T


# --- poses and calibration from numpy ---


def _kitti_calib_float64_velo_to_cam() -> None:
    calib = io.StringIO("Tr_velo_to_cam: 7.533745e-03 -9.999714e-01 -6.166020e-04 -4.069766e-03 "
                        "1.480249e-02 7.280733e-04 -9.998902e-01 -7.631618e-02 "
                        "9.998621e-01 7.523790e-03 1.480755e-02 -2.717806e-01\n")
    values = calib.readline().split(":")[1].split()
    tr_velo_to_cam = torch.from_numpy(np.array(values, dtype=float).reshape(3, 4))
    points = _sweep()
    points_hom = torch.cat([points[:, :3], torch.ones(len(points), 1)], 1)
    points_hom @ tr_velo_to_cam.T


def _multi_sweep_float64_ego_poses_bmm() -> None:
    sweeps = 3
    transforms = []
    for k in range(sweeps):  # sweep -> key-frame transforms from the ego poses (numpy, float64)
        yaw = 0.01 * k
        transform = np.eye(4)
        transform[:2, :2] = [[np.cos(yaw), -np.sin(yaw)], [np.sin(yaw), np.cos(yaw)]]
        transform[:3, 3] = [-0.5 * k, 0.0, 0.0]
        transforms.append(transform)
    transforms = torch.from_numpy(np.stack(transforms))
    points = torch.stack([_sweep(64)[:, :3] for _ in range(sweeps)])
    points_hom = torch.cat([points, torch.ones(sweeps, 64, 1)], -1)
    torch.bmm(points_hom, transforms.transpose(1, 2))


def _bev_temporal_warp_grid_from_float64_ego_motion() -> None:
    _seeded()
    previous_bev = torch.randn(1, 32, _NY, _NX)
    dx, dyaw = 0.8, 0.02  # ego motion between frames from the poses (numpy, float64)
    extent = _NX * _VOXEL[0] / 2
    theta = torch.from_numpy(np.array([[[np.cos(dyaw), -np.sin(dyaw), dx / extent],
                                        [np.sin(dyaw), np.cos(dyaw), 0.0]]]))
    grid = F.affine_grid(theta, list(previous_bev.shape), align_corners=False)
    F.grid_sample(previous_bev, grid, align_corners=False)


def _extrinsic_refinement_float64_parameter_fp32_grad() -> None:
    _seeded()
    correction = nn.Parameter(torch.from_numpy(np.zeros(6)))  # se(3) correction, initialised like the numpy calib
    working = correction.detach().float().requires_grad_()
    points = _sweep(64)[:, :3]
    projected = points + working[:3] + torch.cross(working[3:].expand_as(points), points, dim=1)
    loss = (projected[:, :2] / projected[:, :1].clamp(min=0.1)).square().mean()
    (gradient,) = torch.autograd.grad(loss, working)
    correction.grad = gradient


# --- point-wise segmentation ---


def _s3dis_labels_from_loadtxt_into_cross_entropy() -> None:
    _seeded()
    room = io.StringIO("\n".join(f"{i * 0.1:.2f} {i * 0.05:.2f} 0.30 120 118 110 {i % 13}" for i in range(64)))
    data = np.loadtxt(room)  # Area_1/office_1.txt: x y z r g b label
    points = torch.from_numpy(data[:, :6]).float()
    labels = torch.from_numpy(data[:, 6])
    segmenter = nn.Linear(6, 13)
    F.cross_entropy(segmenter(points), labels)


def _painted_points_uint8_semantic_ids_embedding() -> None:
    _seeded()
    segmentation = np.random.default_rng(0).integers(0, 19, size=(32, 64), dtype=np.uint8)  # the 2-D model's PNG
    rows = torch.randint(0, 32, (256,))
    cols = torch.randint(0, 64, (256,))
    semantic_ids = torch.from_numpy(segmentation)[rows, cols]
    nn.Embedding(19, 8)(semantic_ids)


def _ground_segmentation_bce_bool_target() -> None:
    _seeded()
    points = _sweep()
    is_ground = points[:, 2] < -1.5  # labels from a height threshold
    ground_logits = nn.Linear(4, 1)(points).squeeze(1)
    F.binary_cross_entropy_with_logits(ground_logits, is_ground)


def _semantic_kitti_instance_ids_by_shift() -> None:
    raw = np.array([40 | (3 << 16), 10 | (7 << 16), 0, 44], dtype=np.uint32).tobytes()  # a .label file
    labels = torch.from_numpy(np.frombuffer(raw, dtype=np.uint32).copy())
    semantic = labels & 0xFFFF
    instance = labels >> 16
    semantic.numel(), instance.numel()


def _segmentation_points_bf16_to_numpy_for_export() -> None:
    _seeded()
    points = _sweep().to(bf16)  # the bf16 model's input batch, kept for visualisation
    labels = nn.Linear(4, 20).to(bf16)(points).argmax(1)
    np.savetxt(io.StringIO(), np.concatenate([points[:, :3].numpy(), labels[:, None].numpy()], 1))


def _ros_pointcloud2_structured_array() -> None:
    cloud = np.zeros(32, dtype=[("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("intensity", "<f4"), ("ring", "<u2")])
    cloud["x"] = np.linspace(1.0, 9.0, 32)  # as ros_numpy.point_cloud2.pointcloud2_to_array returns it
    torch.from_numpy(cloud)


def _point_transformer_fp32_position_bias_mask() -> None:
    _seeded()
    window = 16
    xyz = torch.rand(window, 3)
    position_mlp = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))  # kept fp32 for the offsets
    bias = position_mlp(xyz[:, None] - xyz[None]).squeeze(-1)
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    features = torch.randn(1, window, 32, dtype=bf16)
    attention(features, features, features, attn_mask=bias)


def _temporal_bev_memory_ema_lerp() -> None:
    _seeded()
    memory = torch.zeros(1, 16, _NY, _NX)  # registered buffer, fp32
    current_bev = torch.randn(1, 16, _NY, _NX, dtype=bf16)  # from the bf16 backbone
    memory.lerp_(current_bev, 0.1)


# --- 3-D boxes ---


def _direction_bin_targets_left_float() -> None:
    _seeded()
    gt_yaw = torch.tensor([0.3, -2.8, 1.6, 3.0])
    anchor_yaw = torch.tensor([0.0, 0.0, math.pi / 2, math.pi / 2])
    offset = (gt_yaw + anchor_yaw) % (2 * math.pi)
    direction_targets = torch.floor(offset / math.pi).clamp(0, 1)  # two direction bins
    direction_logits = torch.randn(4, 2)
    F.cross_entropy(direction_logits, direction_targets)


def _points_in_boxes_with_bf16_decoded_boxes() -> None:
    _seeded()
    points = _sweep()[:, :3]
    box_head = nn.Linear(32, 7).to(bf16)
    boxes = box_head(torch.randn(4, 32, dtype=bf16))  # x, y, z, l, w, h, yaw decoded in the head's dtype
    yaw = boxes[:, 6]
    cos, sin = yaw.cos(), yaw.sin()
    rotation = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)  # (boxes, 2, 2)
    offsets = points[None, :, :2] - boxes[:, None, :2]  # promoted to fp32
    local = torch.matmul(offsets, rotation)
    (local.abs() < boxes[:, None, 3:5] / 2).all(-1)


CASES: dict[str, LiveCase] = {
    # PointPillars scatter: pillar coordinates floored from float points and deduplicated with unique, never made long
    "pillar-scatter-float-coords-canvas-index": case(_pillar_scatter_with_float_coordinates, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # PointPillars scatter: bf16 pillar features written into a canvas made with torch.zeros (fp32 by default)
    "pillar-scatter-bf16-features-fp32-canvas": case(_pillar_scatter_bf16_features_into_default_canvas,
                                                     "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PFN input augmentation: offsets to the pillar centres from int64 coords * voxel size (fp32) cat'ed to bf16 points
    "pfn-fp32-centre-offsets-bf16-linear": case(_pfn_bf16_with_fp32_pillar_centre_offsets, "matmul_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # dynamic voxelization: bf16 point features max-pooled per pillar with scatter_reduce_ into an fp32 zeros buffer
    "dynamic-pillar-scatter-reduce-amax-bf16": case(_dynamic_pillar_max_pool_bf16_into_zeros, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # PointPillars padding mask made with type_as(features) (bf16), inverted with ~ to zero the padded slots
    "pillar-padding-mask-type-as-bf16-invert": case(_pillar_padding_mask_type_as_bf16_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (439a35c) castwise gave mask_dtype [] (high confidence). The message names no dtype, "
             "so castwise read `~` on a floating tensor as a mask made float (its cause, a mask cast to the "
             "features' dtype, and its fix, `~mask.bool()`, fit this code) and never found that the tensor is "
             "bf16; the corpus files a bit operation on a 16-bit float tensor as no_kernel, so the kind is "
             "another. Expectation corrected after grading from no_kernel to the corpus's convention for this "
             "message: five live sets (1, 12, 31, 45, 52) file `~` on a floating mask as mask_dtype (the no_kernel "
             "convention is for a bit op whose message names the 16-bit dtype), and a reading that followed this "
             "writer broke all five.")),
    # an open-addressing voxel hash ported from CUDA: the uint32 0xFFFFFFFF empty-slot key put in an int32 table
    "voxel-hash-empty-sentinel-int32": case(_voxel_hash_table_empty_slot_sentinel, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # global rotation augmentation whose angle is drawn with torch.empty(dtype=voxel_coords.dtype) (int32)
    "rotation-aug-angle-int32-coords-dtype": case(_rotation_augmentation_in_the_coords_dtype, "no_kernel", "int32",
        grade="correct", grade_at_freeze="correct"),
    # range image: the per-beam fraction of valid pixels logged with mean() of the bool validity mask
    "range-image-valid-ratio-bool-mean": case(_range_image_valid_ratio_of_bool_mask, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # range-image reconstruction loss penalising the no-return pixels with (1 - valid) on the bool mask
    "range-loss-one-minus-bool-valid": case(_range_reconstruction_loss_one_minus_valid, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # range image: the topmost beam with a return in each column by argmax of the bool mask
    "range-first-return-argmax-bool": case(_first_return_row_by_argmax_of_mask, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Ouster signal channel (uint16 photon counts) clipped with clamp before log scaling
    "ouster-uint16-signal-clamp": case(_ouster_uint16_signal_clamped, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # Livox reflectivity bytes (uint8) fed straight to an fp32 per-point intensity embedding Linear
    "livox-uint8-reflectivity-point-mlp": case(_intensity_uint8_into_point_mlp, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Livox int32 millimetre coordinates converted to metres in place with /= 1000.0
    "livox-int32-millimetres-in-place-divide": case(_livox_millimetre_points_to_metres_in_place, "result_cast", "f32",
                                                    "int32",
        grade="correct", grade_at_freeze="correct"),
    # ball query by sorting: out-of-radius squared distances of fp16 points filled with 1e10
    "ball-query-out-of-radius-1e10-half": case(_ball_query_out_of_radius_fill_half, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # DGCNN-style grouping with kNN neighbour indices cached to disk as int32, gathered with take_along_dim
    "knn-int32-cached-neighbours-take-along-dim": case(_knn_int32_cached_neighbours_take_along_dim,
                                                       "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # ICP point-to-point step: Kabsch SVD of the cross-covariance of two fp16-stored sweeps
    "icp-kabsch-svd-half-sweeps": case(_icp_kabsch_svd_of_half_sweeps, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # KITTI calib.txt parsed with numpy (float64 Tr_velo_to_cam) projecting fp32 velodyne points with @
    "kitti-calib-f64-velo-to-cam": case(_kitti_calib_float64_velo_to_cam, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # nuScenes-style multi-sweep aggregation: float64 sweep-to-key-frame transforms from numpy applied with torch.bmm
    "multi-sweep-f64-ego-poses-bmm": case(_multi_sweep_float64_ego_poses_bmm, "batched_matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # temporal BEV fusion: the previous BEV warped by affine_grid of a float64 ego-motion theta, then grid_sample
    "bev-warp-f64-ego-motion-grid-sample": case(_bev_temporal_warp_grid_from_float64_ego_motion, "op_dtype", "f32",
                                                "f64",
        grade="correct", grade_at_freeze="correct"),
    # LiDAR-camera extrinsic refinement: fp32 gradient assigned by hand to the float64 se(3) correction parameter
    "extrinsic-refinement-f64-param-f32-grad": case(_extrinsic_refinement_float64_parameter_fp32_grad, "loss_dtype",
                                                    "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # S3DIS room read with np.loadtxt: the float64 label column given to cross_entropy
    "s3dis-loadtxt-f64-labels-cross-entropy": case(_s3dis_labels_from_loadtxt_into_cross_entropy, "target_dtype",
                                                   "f64",
        grade="correct", grade_at_freeze="correct"),
    # PointPainting: per-point class ids sampled from the uint8 segmentation PNG looked up in nn.Embedding
    "painted-uint8-class-ids-embedding": case(_painted_points_uint8_semantic_ids_embedding, "index_tensor_dtype",
                                              "uint8",
        grade="correct", grade_at_freeze="correct"),
    # ground segmentation trained with BCE-with-logits against the bool height-threshold labels
    "ground-seg-bce-logits-bool-target": case(_ground_segmentation_bce_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # SemanticKITTI .label (uint32) split into semantic and instance ids with & and >> in torch
    "semantickitti-uint32-label-instance-shift": case(_semantic_kitti_instance_ids_by_shift, "no_kernel", "uint32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 batch points and predicted labels exported to text through .numpy() for visualisation
    "seg-export-bf16-points-numpy": case(_segmentation_points_bf16_to_numpy_for_export, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a ROS PointCloud2 turned into a structured numpy array (x, y, z, intensity, ring) given to torch.from_numpy
    "ros-pointcloud2-structured-from-numpy": case(_ros_pointcloud2_structured_array, "numpy_dtype",
                                                  cause=("structured",),
        grade="correct", grade_at_freeze="partly",
        why=("At freeze (439a35c) castwise gave numpy_dtype [] (high confidence). The kind is right, but it "
             "read numpy.void as text (strings from a CSV column, ragged items) and its cause and fix say to "
             "parse or pad; it never says the array is a structured (record) array with named fields (x, y, z, "
             "intensity, ring), to be unpacked field by field (np.stack of the fields, or "
             "structured_to_unstructured).")),
    # Point Transformer window attention: a relative-position bias from an fp32 MLP as a bf16 MultiheadAttention mask
    "point-transformer-fp32-position-bias-mha": case(_point_transformer_fp32_position_bias_mask, "attn_mask_dtype",
                                                     "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # temporal BEV memory (fp32 buffer) updated by lerp_ toward the bf16 backbone's current BEV
    "bev-memory-ema-lerp-bf16": case(_temporal_bev_memory_ema_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SECOND-style direction classifier: direction-bin targets floored from the yaw offset, never made long
    "direction-bin-targets-float-cross-entropy": case(_direction_bin_targets_left_float, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # points-in-boxes: fp32 points minus bf16 decoded box centres rotated by the boxes' bf16 yaw with torch.matmul
    "points-in-boxes-bf16-yaw-matmul": case(_points_in_boxes_with_bf16_decoded_boxes, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
