"""Held-out live set 158: robot grasping and manipulation perception written by hand in low precision (uint16 depth
images from RealSense and 16-bit PGM/PNG files, float64 camera intrinsics and extrinsics from numpy and ROS
camera_info, bool grasp-success labels, fp16 point encoders, bf16 6-DoF grasp pose heads, rotation matrices and
quaternions, grasp-quality maps). Defects planted by a helper who never read the rules, written before castwise ran and
graded once with the rules frozen at 0f754d66."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "0f754d66"

bf16, f16 = torch.bfloat16, torch.float16
_H, _W = 48, 64  # a cropped, downsampled depth view around the bin
_K = [[615.3, 0.0, 31.5], [0.0, 615.1, 23.5], [0.0, 0.0, 1.0]]  # fx, fy, cx, cy of the wrist camera at this crop


def _seeded() -> None:
    torch.manual_seed(0)


def _depth_mm(seed: int = 0) -> np.ndarray:
    """A RealSense-style uint16 depth frame in millimetres: a table at 600 mm, a box on it, dropouts as 0."""
    rng = np.random.default_rng(seed)
    depth = np.full((_H, _W), 600, dtype=np.uint16)
    depth[16:32, 20:44] = 540
    depth += rng.integers(0, 4, size=(_H, _W), dtype=np.uint16)
    depth[rng.random((_H, _W)) < 0.05] = 0
    return depth


def _points(n: int = 256) -> torch.Tensor:
    return torch.rand(n, 3) * torch.tensor([0.3, 0.3, 0.2]) + torch.tensor([-0.15, -0.15, 0.45])


def _quat_to_rotmat(q: torch.Tensor) -> torch.Tensor:
    w, x, y, z = q.unbind(-1)
    return torch.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    ], -1).reshape(*q.shape[:-1], 3, 3)


# --- depth images


def _ggcnn_uint16_depth_into_conv_stem() -> None:
    _seeded()
    depth = torch.from_numpy(_depth_mm())[None, None]  # the raw frame, never converted to metres or float
    stem = nn.Conv2d(1, 32, 9, stride=3, padding=4)  # GG-CNN's first layer, with bias
    stem(depth)


def _object_height_above_table_uint16() -> None:
    table = torch.from_numpy(_depth_mm(1))  # the empty-bin frame captured at start-up
    table[16:32, 20:44] = 600
    frame = torch.from_numpy(_depth_mm(2))
    height_mm = table - frame  # both uint16: heights of the objects above the table
    height_mm.clamp(min=0)


def _depth_noise_randn_like_uint16() -> None:
    _seeded()
    depth = torch.from_numpy(_depth_mm())
    noise = torch.randn_like(depth) * 2.0  # sim-to-real: add 2 mm Gaussian sensor noise
    depth + noise


def _depth_pgm_big_endian_from_numpy() -> None:
    header = b"P5\n64 48\n65535\n"
    raw = header + _depth_mm().astype(">u2").tobytes()  # 16-bit PGM stores samples most significant byte first
    depth = np.frombuffer(raw, dtype=">u2", offset=len(header)).reshape(_H, _W)
    torch.from_numpy(depth.copy())


def _fp16_depth_dropouts_filled_far() -> None:
    depth_m = torch.from_numpy(_depth_mm()).to(f16)  # the cached dataset keeps depth in millimetres as fp16
    depth_m.masked_fill(depth_m == 0, 1e5)  # dropouts treated as "very far" before the min-pooling


def _depth_completion_masked_scatter_bf16() -> None:
    _seeded()
    depth = torch.from_numpy(_depth_mm()).float() / 1000.0
    holes = depth == 0
    completion = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1))
    with torch.autocast("cpu", dtype=bf16):
        predicted = completion(depth[None, None])[0, 0]
    depth.masked_scatter_(holes, predicted[holes])


# --- camera geometry and projection


def _backproject_ros_camera_info_k_inverse() -> None:
    k = np.array([615.3, 0.0, 31.5, 0.0, 615.1, 23.5, 0.0, 0.0, 1.0]).reshape(3, 3)  # msg.k from CameraInfo
    k_inv = torch.linalg.inv(torch.from_numpy(k))
    v, u = torch.meshgrid(torch.arange(_H, dtype=torch.float32), torch.arange(_W, dtype=torch.float32),
                          indexing="ij")
    pixels = torch.stack([u, v, torch.ones_like(u)]).reshape(3, -1)
    depth = torch.from_numpy(_depth_mm()).float().reshape(1, -1) / 1000.0
    (k_inv @ pixels) * depth


def _multi_camera_intrinsics_f64_bmm() -> None:
    _seeded()
    intrinsics = torch.from_numpy(np.stack([np.array(_K)] * 3))  # the three fixed cameras' K from the calib .npz
    points_cam = _points(128)[None].expand(3, -1, -1).transpose(1, 2)  # fp32 points in each camera frame
    uvw = torch.bmm(intrinsics, points_cam)
    uvw[:, :2] / uvw[:, 2:]


def _grasp_pixel_minus_principal_point_in_place() -> None:
    _seeded()
    quality = torch.rand(_H, _W)
    best = quality.flatten().argmax()
    uv = torch.stack([best % _W, best // _W])  # int64 pixel of the best grasp
    uv -= torch.from_numpy(np.array(_K)[:2, 2])  # centred at the principal point to get the approach ray


def _grasp_centre_projected_float_pixel_index() -> None:
    _seeded()
    depth = torch.from_numpy(_depth_mm()).float() / 1000.0
    k = torch.tensor(_K)
    centre = torch.tensor([0.01, -0.02, 0.55])  # the predicted grasp centre in the camera frame
    uvw = k @ centre
    u, v = uvw[0] / uvw[2], uvw[1] / uvw[2]
    depth[v.round(), u.round()]  # depth under the grasp centre for the collision check


def _grasp_features_sampled_grid_sample_bf16() -> None:
    _seeded()
    backbone = nn.Conv2d(1, 16, 3, padding=1).to(bf16)  # the dense grasp backbone cast for the arm's computer
    features = backbone(torch.rand(1, 1, _H, _W, dtype=bf16))
    grasp_px = torch.tensor([[[[10.0, 20.0], [33.0, 27.0], [50.0, 12.0]]]])
    grid = grasp_px / torch.tensor([_W - 1.0, _H - 1.0]) * 2 - 1  # built in fp32 from the candidate pixels
    F.grid_sample(features, grid, align_corners=True)


# --- point clouds and fp16 point encoders


def _pointnet_halved_encoder_fp32_points() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Conv1d(3, 64, 1), nn.ReLU(), nn.Conv1d(64, 256, 1)).half()  # fp16 to fit the Jetson
    cloud = _points(512)  # back-projected from depth in fp32
    encoder(cloud.T[None])


def _fp16_scene_feature_into_fp32_grasp_evaluator() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Conv1d(3, 64, 1), nn.ReLU(), nn.Conv1d(64, 128, 1)).half()
    scene = encoder(_points(256).half().T[None]).amax(-1)  # fp16 global feature
    evaluator = nn.Sequential(nn.Linear(128 + 7, 64), nn.ReLU(), nn.Linear(64, 1))  # the grasp evaluator left fp32
    grasp = torch.cat([scene, torch.randn(1, 7).half()], -1)
    evaluator(grasp)


def _fps_indices_in_float_buffer_gather() -> None:
    _seeded()
    cloud = _points(512)[None]
    samples = 32
    chosen = torch.zeros(1, samples)  # written like the CUDA kernel's output buffer, but torch.zeros is fp32
    distance = torch.full((1, 512), 1e10)
    farthest = torch.zeros(1, dtype=torch.long)
    for i in range(samples):
        chosen[:, i] = farthest
        centroid = cloud[0, farthest]
        distance = torch.minimum(distance, ((cloud - centroid) ** 2).sum(-1))
        farthest = distance.argmax(-1)
    torch.gather(cloud, 1, chosen[..., None].expand(-1, -1, 3))


# --- 6-DoF grasp pose heads, rotations and quaternions


def _control_point_loss_bf16_rotation_bmm() -> None:
    _seeded()
    head = nn.Linear(256, 4).to(bf16)
    q = F.normalize(head(torch.randn(8, 256, dtype=bf16)), dim=-1)
    rotation = _quat_to_rotmat(q)  # bf16
    control_points = torch.tensor([[0.0, 0.0, 0.0], [0.04, 0.0, 0.06], [-0.04, 0.0, 0.06], [0.04, 0.0, 0.11],
                                   [-0.04, 0.0, 0.11]])  # the Panda gripper's control points, fp32
    torch.bmm(rotation, control_points.T.expand(8, 3, 5))


def _nine_d_rotation_svd_orthogonalisation_bf16() -> None:
    _seeded()
    head = nn.Linear(256, 9).to(bf16)
    m = head(torch.randn(8, 256, dtype=bf16)).reshape(8, 3, 3)
    u, _, vh = torch.linalg.svd(m)  # special orthogonal projection of the 9-D output
    u @ vh


def _grasp_rotation_handedness_det_fp16() -> None:
    _seeded()
    rotations = _quat_to_rotmat(F.normalize(torch.randn(16, 4), dim=-1)).half()  # stored fp16 with the grasp labels
    proper = torch.linalg.det(rotations) > 0  # drop reflections from the mirrored augmentation
    rotations[proper]


def _pose_head_bf16_layer_norm_fp32_fused_features() -> None:
    _seeded()
    head = nn.Sequential(nn.LayerNorm(256), nn.Linear(256, 9)).to(bf16)  # 6-D rotation + translation, cast to bf16
    rgb_feature, point_feature = torch.randn(4, 128), torch.randn(4, 128)  # fp32 encoders
    head(torch.cat([rgb_feature, point_feature], -1))


def _grasp_queries_sdpa_fp32_scene_tokens() -> None:
    _seeded()
    queries = torch.randn(1, 4, 16, 32, dtype=bf16)  # learned grasp queries of the bf16 decoder
    scene_tokens = torch.randn(1, 4, 128, 32)  # point tokens from the fp32 point backbone
    F.scaled_dot_product_attention(queries, scene_tokens, scene_tokens)


def _local_region_mask_fp32_bf16_mha() -> None:
    _seeded()
    centres = _points(32)
    distances = torch.cdist(centres, centres)
    region_mask = torch.where(distances > 0.05, float("-inf"), 0.0)  # attend within 5 cm of each seed point
    attention = nn.MultiheadAttention(64, 4, batch_first=True).to(bf16)
    tokens = torch.randn(1, 32, 64, dtype=bf16)
    attention(tokens, tokens, tokens, attn_mask=region_mask)


def _camera_to_base_f64_extrinsic_einsum_bf16_grasps() -> None:
    _seeded()
    t_base_cam = torch.from_numpy(np.eye(4))  # hand-eye calibration result from the YAML, float64
    t_base_cam[:3, 3] = torch.tensor([0.4, 0.0, 0.6], dtype=torch.float64)
    grasps_cam = torch.eye(4, dtype=bf16).repeat(8, 1, 1)  # the bf16 pose head's homogeneous grasps
    grasps_cam[:, :3, 3] = torch.randn(8, 3, dtype=bf16) * 0.05
    torch.einsum("ij,njk->nik", t_base_cam, grasps_cam)


# --- labels, masks and targets


def _grasp_success_bool_bce_target() -> None:
    _seeded()
    logits = torch.randn(16, requires_grad=True)
    success = torch.from_numpy(np.array([True, False] * 8))  # the trial log's lifted-and-held flags
    F.binary_cross_entropy(torch.sigmoid(logits), success)


def _grasp_angle_bins_int32_cross_entropy() -> None:
    _seeded()
    angles = np.linspace(-np.pi / 2, np.pi / 2, 16, endpoint=False)
    bins = ((angles + np.pi / 2) / (np.pi / 18)).astype(np.int32)  # 18 angle classes, stored int32 in the HDF5
    logits = torch.randn(16, 18)
    F.cross_entropy(logits, torch.from_numpy(bins))


def _target_object_uint8_segmentation_masked_fill() -> None:
    _seeded()
    quality = torch.rand(_H, _W)
    seg = np.zeros((_H, _W), dtype=np.uint8)
    seg[16:32, 20:44] = 1  # the target object's binary mask saved as a 0/1 PNG
    quality.masked_fill(torch.from_numpy(1 - seg), 0.0)  # only grasp the target object


def _quality_map_invert_float_invalid_mask() -> None:
    _seeded()
    depth = torch.from_numpy(_depth_mm()).float()
    invalid = (depth == 0).float()  # kept float to multiply into the loss weights
    quality = torch.rand(_H, _W)
    quality * ~invalid


def _ycb_object_ids_int16_embedding() -> None:
    _seeded()
    object_ids = torch.from_numpy(np.array([2, 5, 11, 19], dtype=np.int16))  # YCB ids from the scene annotations
    object_embedding = nn.Embedding(21, 32)  # object-conditioned grasping
    object_embedding(object_ids)


# --- training loops, gradients and export


def _halved_grasp_net_grad_scaler_unscale() -> None:
    _seeded()
    net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 1)).half()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    depth = torch.rand(2, 1, 16, 16).half()
    loss = F.mse_loss(net(depth).float(), torch.rand(2, 1, 16, 16))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(net.parameters(), 1.0)


def _grasp_metric_numpy_gradient_assigned() -> None:
    pose = nn.Parameter(torch.zeros(6))  # se(3) correction of the grasp, refined by the analytic grasp metric
    metric_grad = np.array([0.02, -0.01, 0.0, 0.1, 0.0, -0.03])  # d(epsilon quality)/d(pose) computed in numpy
    pose.grad = -torch.from_numpy(metric_grad)


def _grasp_sampling_all_pixels_masked() -> None:
    quality = torch.rand(_H, _W)
    valid = torch.zeros(_H, _W, dtype=torch.bool)  # no valid depth near the object after the workspace crop
    logits = quality.masked_fill(~valid, float("-inf")).flatten()
    torch.multinomial(torch.softmax(logits / 0.1, 0), 8)


def _bf16_grasps_numpy_for_moveit() -> None:
    _seeded()
    head = nn.Linear(64, 7).to(bf16)
    with torch.no_grad():  # inference on the robot
        grasp = head(torch.randn(1, 64, dtype=bf16))[0]  # xyz + quaternion
    position, orientation = grasp[:3].numpy(), grasp[3:].numpy()  # into geometry_msgs/Pose for MoveIt
    position.tolist() + orientation.tolist()


CASES: dict[str, LiveCase] = {
    # GG-CNN: the raw RealSense uint16 depth frame fed to the fp32 conv stem (with bias)
    "ggcnn-uint16-depth-conv-stem": case(_ggcnn_uint16_depth_into_conv_stem, "integer_operand", "uint16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # object heights as the empty-table frame minus the current frame, both uint16 depth images
    "object-height-uint16-table-minus-frame": case(_object_height_above_table_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # sim-to-real depth augmentation: Gaussian noise from randn_like of the uint16 depth frame
    "depth-noise-randn-like-uint16": case(_depth_noise_randn_like_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # a 16-bit PGM depth read with np.frombuffer('>u2') handed to torch.from_numpy
    "depth-pgm-big-endian-from-numpy": case(_depth_pgm_big_endian_from_numpy, "numpy_dtype", cause=("byte order",),
        grade="correct", grade_at_freeze="correct"),
    # fp16 millimetre depth: dropouts filled with 1e5 as "very far"
    "fp16-depth-dropouts-filled-1e5": case(_fp16_depth_dropouts_filled_far, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # depth completion under bf16 autocast written into the fp32 depth holes with masked_scatter_
    "depth-completion-masked-scatter-bf16": case(_depth_completion_masked_scatter_bf16, "indexed_write_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # back-projection: inverse of the ROS CameraInfo K (float64) @ the fp32 pixel grid
    "backproject-ros-camera-info-f64-k-inverse": case(_backproject_ros_camera_info_k_inverse, "matmul_dtype", "f64",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # three fixed cameras' float64 intrinsics from the calibration .npz projecting fp32 points with torch.bmm
    "multi-camera-f64-intrinsics-bmm": case(_multi_camera_intrinsics_f64_bmm, "batched_matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the best grasp's int64 argmax pixel centred in place by the float64 principal point
    "grasp-pixel-int64-minus-f64-principal-point": case(_grasp_pixel_minus_principal_point_in_place, "result_cast",
                                                        "f64", "int64",
        grade="correct", grade_at_freeze="correct"),
    # depth under the projected grasp centre read with rounded (still float) pixel coordinates
    "grasp-centre-rounded-float-pixel-index": case(_grasp_centre_projected_float_pixel_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 dense grasp features sampled at candidate pixels with an fp32 grid
    "grasp-features-grid-sample-bf16-fp32-grid": case(_grasp_features_sampled_grid_sample_bf16, "op_dtype", "bf16",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # a PointNet encoder halved for the Jetson given the fp32 back-projected cloud
    "pointnet-halved-encoder-fp32-cloud": case(_pointnet_halved_encoder_fp32_points, "conv_weight_dtype", "f32",
                                               "f16",
        grade="correct", grade_at_freeze="correct"),
    # the fp16 point encoder's scene feature into the grasp evaluator MLP left fp32
    "fp16-scene-feature-fp32-grasp-evaluator": case(_fp16_scene_feature_into_fp32_grasp_evaluator, "matmul_dtype",
                                                    "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # farthest point sampling written into a torch.zeros (fp32) index buffer, then gathered with it
    "fps-float-index-buffer-gather": case(_fps_indices_in_float_buffer_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # control-point loss: the bf16 head's rotations bmm'd with the fp32 gripper control points
    "control-point-loss-bf16-rotation-bmm": case(_control_point_loss_bf16_rotation_bmm, "batched_matmul_dtype",
                                                 "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # 9-D rotation head: SVD orthogonalisation of the bf16 output
    "nine-d-rotation-svd-bf16": case(_nine_d_rotation_svd_orthogonalisation_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # reflections dropped from fp16-stored grasp rotations with torch.linalg.det
    "grasp-rotation-det-fp16": case(_grasp_rotation_handedness_det_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # 6-D pose head (LayerNorm first) cast to bf16, fed the fp32 RGB and point features
    "pose-head-bf16-layer-norm-fp32-features": case(_pose_head_bf16_layer_norm_fp32_fused_features,
                                                    "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 grasp queries cross-attending to fp32 scene point tokens with SDPA
    "grasp-queries-sdpa-fp32-scene-tokens": case(_grasp_queries_sdpa_fp32_scene_tokens, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a 5 cm local-region -inf mask built in fp32 for a bf16 MultiheadAttention over seed points
    "local-region-mask-fp32-bf16-mha": case(_local_region_mask_fp32_bf16_mha, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hand-eye extrinsic (float64) einsum'd with the bf16 head's homogeneous grasp poses
    "camera-to-base-f64-einsum-bf16-grasps": case(_camera_to_base_f64_extrinsic_einsum_bf16_grasps, "matmul_dtype",
                                                  "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # grasp success classifier trained with BCE against the trial log's bool lifted flags
    "grasp-success-bool-bce-target": case(_grasp_success_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # grasp-angle classes stored int32 in the HDF5 used as cross_entropy targets
    "grasp-angle-bins-int32-cross-entropy": case(_grasp_angle_bins_int32_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # the target object's 0/1 uint8 PNG mask inverted with 1 - seg for masked_fill
    "target-object-uint8-mask-masked-fill": case(_target_object_uint8_segmentation_masked_fill, "mask_dtype",
                                                 "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a float invalid-depth mask inverted with ~ to gate the quality map
    "quality-map-invert-float-invalid-depth": case(_quality_map_invert_float_invalid_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # YCB object ids stored int16 looked up in the object-conditioning embedding
    "ycb-object-ids-int16-embedding": case(_ycb_object_ids_int16_embedding, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # a grasp-quality CNN halved with .half() and trained with GradScaler, unscaled before clipping
    "halved-grasp-cnn-grad-scaler-unscale": case(_halved_grasp_net_grad_scaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the analytic grasp metric's numpy (float64) gradient assigned to the fp32 pose correction's .grad
    "grasp-metric-f64-gradient-assigned": case(_grasp_metric_numpy_gradient_assigned, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # grasp pixels sampled from a quality map where every pixel was masked -inf: softmax NaN into multinomial
    "grasp-sampling-all-masked-multinomial-nan": case(_grasp_sampling_all_pixels_masked, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 head's grasp pose turned into numpy for MoveIt's geometry_msgs/Pose
    "bf16-grasp-pose-numpy-moveit": case(_bf16_grasps_numpy_for_moveit, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
