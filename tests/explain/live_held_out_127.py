"""Held-out live set 127: autonomous-driving perception and trajectory prediction written by hand in low precision
(LiDAR point clouds as float64 numpy arrays with uint8 intensity, int32 voxel coordinates, BEV grids filled by
scatter, agent histories and map polylines with bool validity masks, int64 lane ids, rotation matrices from yaw in
float64, bf16 autocast around transformer decoders, Gaussian mixture trajectory losses). Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at 18e1b9f."""

from __future__ import annotations

import json

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "18e1b9f"

bf16, f16 = torch.bfloat16, torch.float16
_AGENTS = 8
_HISTORY = 11  # 1.1 s at 10 Hz
_FUTURE = 30
_MODES = 6
_D = 32
_BEV = 64  # BEV cells per side
_VOXEL = 0.8  # metres per BEV cell
_PC_MIN = -25.6


def _seeded() -> None:
    torch.manual_seed(0)


def _sweep(points: int = 512) -> np.ndarray:
    """A LiDAR sweep as the loaders give it: x, y, z, intensity as one float64 array."""
    rng = np.random.default_rng(0)
    xyz = rng.uniform(-25.0, 25.0, size=(points, 3))
    xyz[:, 2] = rng.uniform(-2.0, 1.0, size=points)
    intensity = rng.integers(0, 256, size=(points, 1)).astype(np.float64)
    return np.concatenate([xyz, intensity], axis=1)


def _intensity_uint8(points: int = 512) -> torch.Tensor:
    return torch.from_numpy(_sweep(points)[:, 3].astype(np.uint8))


def _voxel_coords(points: np.ndarray) -> torch.Tensor:
    """BEV (row, col) voxel coordinates, int32 as the voxelizer emits them."""
    cells = np.floor((points[:, :2] - _PC_MIN) / _VOXEL).clip(0, _BEV - 1)
    return torch.from_numpy(cells.astype(np.int32))


def _agent_validity() -> torch.Tensor:
    valid = torch.ones(2, _AGENTS, _HISTORY, dtype=torch.bool)
    valid[0, 5:, :4] = False  # agents that entered the scene late
    valid[1, 6:] = False  # padded agents
    return valid


def _yaw_rotations(yaw: np.ndarray) -> torch.Tensor:
    """Agent-to-global rotations built from the float64 headings in the scenario file."""
    c, s = np.cos(yaw), np.sin(yaw)
    return torch.from_numpy(np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2))


# --- LiDAR points, intensity and voxels


def _intensity_standardised() -> None:
    intensity = _intensity_uint8()
    (intensity - intensity.mean()) / intensity.std()


def _intensity_histogram_equalisation() -> None:
    intensity = _intensity_uint8()
    histogram = torch.histc(intensity, bins=256, min=0, max=255)
    (histogram.cumsum(0) / histogram.sum())[intensity.long()]


def _open3d_points_into_pointnet() -> None:
    _seeded()
    points = torch.from_numpy(_sweep()[:, :3])  # np.asarray(pcd.points) is float64
    pointnet = nn.Sequential(nn.Conv1d(3, 64, 1, bias=False), nn.BatchNorm1d(64), nn.ReLU())
    pointnet(points.T[None])


def _voxel_mean_index_add() -> None:
    sweep = _sweep()
    coords = _voxel_coords(sweep).long()
    flat = coords[:, 0] * _BEV + coords[:, 1]
    points = torch.from_numpy(sweep[:, :3])
    sums = torch.zeros(_BEV * _BEV, 3)
    counts = torch.zeros(_BEV * _BEV).index_add_(0, flat, torch.ones(len(flat)))
    sums.index_add_(0, flat, points)
    sums / counts.clamp(min=1)[:, None]


def _bev_intensity_scatter() -> None:
    sweep = _sweep()
    coords = _voxel_coords(sweep).long()
    flat = coords[:, 0] * _BEV + coords[:, 1]
    intensity = torch.from_numpy(sweep[:, 3].astype(np.uint8))
    canvas = torch.zeros(1, _BEV * _BEV)
    canvas.scatter_(1, flat[None], intensity[None])


def _voxel_coords_into_int32_buffer() -> None:
    points = torch.from_numpy(_sweep()[:, :3]).float()
    coords = torch.empty(len(points), 3, dtype=torch.int32)
    torch.div(points - _PC_MIN, _VOXEL, rounding_mode="floor", out=coords)


def _bev_points_density_histogramdd() -> None:
    points = torch.from_numpy(_sweep()[:, :2]).half()  # sweeps cached in fp16 to fit the replay buffer
    torch.histogramdd(points, bins=[_BEV, _BEV])


def _bev_backbone_bf16_fp32_canvas() -> None:
    _seeded()
    backbone = nn.Sequential(nn.Conv2d(4, 16, 3, padding=1), nn.ReLU()).to(bf16)
    canvas = torch.zeros(1, 4, _BEV, _BEV)  # the pillar scatter's canvas, fp32 by default
    backbone(canvas)


def _lidarseg_labels_int32() -> None:
    _seeded()
    raw = np.random.default_rng(0).integers(0, 260, size=256).astype(np.uint32)
    learning_map = np.zeros(260, dtype=np.int32)
    learning_map[:20] = np.arange(20)
    labels = torch.from_numpy(learning_map[raw])
    logits = torch.randn(256, 20, requires_grad=True)
    F.cross_entropy(logits, labels, ignore_index=0)


def _bev_heatmap_to_numpy() -> None:
    _seeded()
    head = nn.Conv2d(16, 3, 1)
    with torch.autocast("cpu", dtype=bf16):
        heatmap = head(torch.randn(1, 16, _BEV, _BEV)).sigmoid()
    np.asarray(heatmap[0, 0].detach())


# --- agent histories, map polylines and validity masks


def _masked_mean_pool_einsum() -> None:
    _seeded()
    valid = _agent_validity()
    features = torch.randn(2, _AGENTS, _HISTORY, _D)
    pooled = torch.einsum("bnt,bntd->bnd", valid, features)
    pooled / valid.sum(-1, keepdim=True).clamp(min=1)


def _key_padding_mask_int64() -> None:
    _seeded()
    batch = {"agent_mask": np.array([[1] * 6 + [0] * 2, [1] * 8])}  # 1 = padded, from the collate function
    padding = torch.as_tensor(batch["agent_mask"])
    attention = nn.MultiheadAttention(_D, 4, batch_first=True)
    tokens = torch.randn(2, _AGENTS, _D)
    attention(tokens, tokens, tokens, key_padding_mask=padding)


def _polyline_validity_uint8_sdpa() -> None:
    _seeded()
    valid = torch.from_numpy(np.ones((2, 1, 1, 20), dtype=np.uint8))  # npz stores masks as uint8
    valid[0, ..., 15:] = 0
    proj = nn.Linear(_D, _D)
    with torch.autocast("cpu", dtype=bf16):
        queries = proj(torch.randn(2, 4, _MODES, _D))
        map_tokens = proj(torch.randn(2, 4, 20, _D))
        F.scaled_dot_product_attention(queries, map_tokens, map_tokens, attn_mask=valid)


def _polyline_validity_float_inverted() -> None:
    _seeded()
    polylines = torch.randn(2, 20, 10, 2)
    valid = torch.ones(2, 20, 10)  # dataset stores the mask as float 0/1
    valid[:, 15:] = 0.0
    polylines.masked_fill(~valid[..., None], 0.0)


def _lane_successor_float_index() -> None:
    table = np.array([[1, 2], [2, np.nan], [3, np.nan], [np.nan, np.nan]])  # pandas column with NaN: float64
    successors = torch.arange(4 * _D, dtype=torch.float32).reshape(4, _D)
    first = torch.from_numpy(np.nan_to_num(table[:, 0], nan=3.0))
    successors[first]


def _intersection_flag_embedding() -> None:
    is_intersection = torch.tensor([False, True, False, False, True])  # per-lane flag from the HD map
    nn.Embedding(2, _D)(is_intersection)


def _lane_ids_int32_overflow() -> None:
    record = json.loads('{"lane_ids": [3149850123, 3149850124, 42]}')  # 64-bit hashed ids from the map db
    torch.tensor(record["lane_ids"], dtype=torch.int32)


def _utm_history_fp16_laplace() -> None:
    _seeded()
    utm = torch.tensor([[512340.5, 4412877.25]]).repeat(_HISTORY, 1)
    utm = utm + torch.arange(_HISTORY, dtype=torch.float32)[:, None] * 0.5
    history = utm.half()  # the scene cache was converted to fp16
    local = history - history[-1]
    predicted = torch.zeros_like(local, dtype=torch.float32)
    torch.distributions.Laplace(predicted, torch.ones_like(predicted)).log_prob(local.float())


def _agent_rotation_einsum_f64() -> None:
    _seeded()
    yaw = np.random.default_rng(0).uniform(-np.pi, np.pi, size=_AGENTS)
    rotations = _yaw_rotations(yaw)
    decoder = nn.Linear(_D, _FUTURE * 2)
    with torch.autocast("cpu", dtype=bf16):
        local = decoder(torch.randn(_AGENTS, _D)).reshape(_AGENTS, _FUTURE, 2)
    torch.einsum("nij,ntj->nti", rotations, local)


def _kalman_update_f64_covariance() -> None:
    _seeded()
    transition_covariance = torch.from_numpy(np.eye(4) * 0.5)  # tracker state from numpy
    observation = torch.from_numpy(np.eye(2, 4))
    measurement_noise = torch.from_numpy(np.eye(2) * 0.1)
    innovation_covariance = observation @ transition_covariance @ observation.T + measurement_noise
    state = torch.zeros(4, dtype=torch.float64)
    detection = torch.randn(2)  # detector output, fp32
    residual = detection - (observation @ state).float()
    torch.linalg.solve(innovation_covariance, residual)


def _history_gru_bf16() -> None:
    _seeded()
    encoder = nn.GRU(6, _D, batch_first=True).to(bf16)
    history = torch.randn(_AGENTS, _HISTORY, 6)  # x, y, vx, vy, sin, cos
    encoder(history)


def _map_mask_bf16_fp32_decoder() -> None:
    _seeded()
    map_encoder = nn.Linear(_D, 8)
    valid = torch.ones(2, 20, dtype=torch.bool)
    valid[1, 12:] = False
    with torch.autocast("cpu", dtype=bf16):
        map_tokens = map_encoder(torch.randn(2, 4, 20, _D))
    additive = torch.zeros(2, 1, 1, 20, dtype=map_tokens.dtype).masked_fill(~valid[:, None, None], float("-inf"))
    queries = torch.randn(2, 4, _MODES, 8)  # the refinement decoder runs in fp32
    keys = map_tokens.float()
    F.scaled_dot_product_attention(queries, keys, keys, attn_mask=additive)


# --- transformer decoders under autocast and mixture losses


def _mode_queries_fp32_bf16_decoder() -> None:
    _seeded()
    layer = nn.TransformerDecoderLayer(_D, 4, 64, dropout=0.0, batch_first=True)
    decoder = nn.TransformerDecoder(layer, 2).to(bf16)
    mode_queries = nn.Parameter(torch.randn(1, _MODES, _D))  # kept on the wrapper, not in the decoder
    scene = torch.randn(1, 40, _D, dtype=bf16)
    decoder(mode_queries, scene)


def _head_layer_norm_bf16() -> None:
    _seeded()
    head = nn.Sequential(nn.LayerNorm(_D), nn.Linear(_D, _FUTURE * 5)).to(bf16)  # head halved for memory
    scene_embedding = torch.randn(_AGENTS, _D)  # from the fp32 encoder
    head(scene_embedding)


def _agent_attention_fp16_masked_fill() -> None:
    _seeded()
    proj = nn.Linear(_D, _D)
    valid = _agent_validity()[..., -1]
    with torch.autocast("cpu", dtype=f16):
        tokens = proj(torch.randn(2, _AGENTS, _D))
        scores = tokens @ tokens.transpose(1, 2) / _D**0.5
        scores = scores.masked_fill(~valid[:, None, :], -1e9)
        scores.softmax(-1)


def _gmm_nll_slogdet_bf16() -> None:
    _seeded()
    head = nn.Linear(_D, _MODES * 5)
    with torch.autocast("cpu", dtype=bf16):
        params = head(torch.randn(_AGENTS, _D)).reshape(_AGENTS, _MODES, 5)
    log_sigma, rho = params[..., 2:4], torch.tanh(params[..., 4])
    sigma = log_sigma.exp()
    off_diagonal = rho * sigma[..., 0] * sigma[..., 1]
    covariance = torch.stack([sigma[..., 0] ** 2, off_diagonal, off_diagonal, sigma[..., 1] ** 2], -1)
    torch.linalg.slogdet(covariance.reshape(_AGENTS, _MODES, 2, 2))


def _mode_target_one_hot() -> None:
    _seeded()
    mode_logits = torch.randn(_AGENTS, _MODES, requires_grad=True)
    final_displacement = torch.rand(_AGENTS, _MODES) * 5
    best_mode = final_displacement.argmin(-1)
    F.cross_entropy(mode_logits, F.one_hot(best_mode, _MODES))


def _occupancy_bce_bf16_probabilities() -> None:
    _seeded()
    head = nn.Conv2d(8, 1, 1)
    with torch.autocast("cpu", dtype=bf16):
        probabilities = head(torch.randn(1, 8, 16, 16)).sigmoid()
    occupied = (torch.rand(1, 1, 16, 16) > 0.8).float()
    F.binary_cross_entropy(probabilities, occupied).backward()


def _trajectory_grad_clip_hook() -> None:
    _seeded()
    decoder = nn.Linear(_D, _FUTURE * 2)
    with torch.autocast("cpu", dtype=bf16):
        trajectory = decoder(torch.randn(_AGENTS, _D)).reshape(_AGENTS, _FUTURE, 2)
    trajectory.register_hook(lambda grad: grad.float().clamp(-1.0, 1.0))
    ground_truth = torch.randn(_AGENTS, _FUTURE, 2)
    (trajectory.float() - ground_truth).abs().mean().backward()


def _ragged_polylines_object_array() -> None:
    lanes = [np.zeros((12, 2)), np.zeros((7, 2)), np.zeros((20, 2))]
    polylines = np.empty(len(lanes), dtype=object)
    polylines[:] = lanes
    torch.from_numpy(polylines)


CASES: dict[str, LiveCase] = {
    # uint8 LiDAR intensity standardised with its own mean and std before the point MLP
    "intensity-uint8-standardise-mean": case(_intensity_standardised, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # intensity histogram equalisation: torch.histc of the raw uint8 intensity channel
    "intensity-uint8-equalise-histc": case(_intensity_histogram_equalisation, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # open3d's float64 point array (np.asarray(pcd.points)) into a PointNet Conv1d without bias
    "open3d-f64-points-pointnet-conv1d": case(_open3d_points_into_pointnet, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # voxel centroids: float64 points from the loader index_add_'ed into an fp32 sum buffer
    "voxel-centroid-index-add-f64-points": case(_voxel_mean_index_add, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # BEV intensity channel: raw uint8 intensity scatter_'ed into the fp32 BEV canvas
    "bev-intensity-scatter-uint8-into-fp32-canvas": case(_bev_intensity_scatter, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # voxel coordinates floor-divided straight into a preallocated int32 buffer with out=
    "voxel-coords-floor-div-out-int32": case(_voxel_coords_into_int32_buffer, "result_cast", "f32", "int32",
        grade="correct", grade_at_freeze="correct"),
    # BEV point density from a sweep cached in fp16 with torch.histogramdd
    "bev-density-histogramdd-f16-sweep": case(_bev_points_density_histogramdd, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # BEV backbone moved to bf16 for inference, the scatter canvas still made fp32 by torch.zeros
    "bev-backbone-bf16-fp32-scatter-canvas": case(_bev_backbone_bf16_fp32_canvas, "conv_weight_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # LiDAR segmentation labels remapped through an int32 learning_map, given to cross_entropy
    "lidarseg-int32-learning-map-labels": case(_lidarseg_labels_int32, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # a BEV heatmap from a bf16 autocast head passed to np.asarray for visualisation
    "bev-heatmap-bf16-np-asarray": case(_bev_heatmap_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # temporal masked mean over agent histories by einsum with the bool validity mask
    "agent-history-masked-mean-einsum-bool": case(_masked_mean_pool_einsum, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # agent padding mask collated from numpy as int64 and given to MultiheadAttention as key_padding_mask
    "agent-key-padding-mask-int64-collate": case(_key_padding_mask_int64, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # map polyline validity stored uint8 in the npz, used as SDPA's attn_mask under bf16 autocast
    "polyline-validity-uint8-sdpa-autocast": case(_polyline_validity_uint8_sdpa, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # map polyline validity kept as float 0/1, inverted with ~ to zero padded points
    "polyline-validity-float-invert": case(_polyline_validity_float_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # lane successor lookup with an index column that pandas made float64 (NaN present)
    "lane-successor-pandas-f64-index": case(_lane_successor_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-lane bool is_intersection flag looked up in an Embedding(2, d)
    "lane-intersection-bool-flag-embedding": case(_intersection_flag_embedding, "index_tensor_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # 64-bit hashed lane ids from the map database put in an int32 tensor
    "lane-hash-ids-int32-overflow": case(_lane_ids_int32_overflow, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # UTM history cached in fp16: coordinates become inf, agent-frame offsets NaN, Laplace's argument check refuses
    "utm-history-fp16-nan-laplace-nll": case(_utm_history_fp16_laplace, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # bf16 agent-frame trajectories rotated to global by float64 yaw rotation matrices with einsum
    "yaw-rotation-f64-einsum-bf16-trajectories": case(_agent_rotation_einsum_f64, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # tracker Kalman update: float64 innovation covariance from numpy solved against an fp32 detection residual
    "kalman-f64-covariance-solve-f32-residual": case(_kalman_update_f64_covariance, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # agent history GRU converted to bf16, fed the fp32 history features
    "history-gru-bf16-fp32-features": case(_history_gru_bf16, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # additive map mask made in the bf16 map features' dtype, given to a refinement decoder's fp32 SDPA
    "map-additive-mask-bf16-fp32-refinement-sdpa": case(_map_mask_bf16_fp32_decoder, "attn_mask_dtype", "bf16",
                                                        "f32",
        grade="correct", grade_at_freeze="correct"),
    # learned fp32 mode queries fed to a TransformerDecoder converted to bf16
    "mode-queries-fp32-bf16-transformer-decoder": case(_mode_queries_fp32_bf16_decoder, "matmul_dtype", "f32",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # trajectory head (LayerNorm first) halved to bf16, given the fp32 scene embedding
    "trajectory-head-bf16-layer-norm-fp32-embedding": case(_head_layer_norm_bf16, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # hand-written agent attention under fp16 autocast masking invalid agents with -1e9
    "agent-attention-fp16-autocast-mask-1e9": case(_agent_attention_fp16_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bivariate Gaussian mixture NLL: slogdet of covariances built from the bf16 autocast head
    "gmm-nll-slogdet-bf16-covariance": case(_gmm_nll_slogdet_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # winner-takes-all mode classification with the one_hot (int64) best mode as a probability target
    "mode-target-one-hot-int64": case(_mode_target_one_hot, "target_dtype", "int64", fix=(".float()",),
        grade="correct", grade_at_freeze="correct"),
    # occupancy BCE on bf16 sigmoid probabilities from the autocast head against fp32 targets
    "occupancy-bce-bf16-probabilities-fp32-target": case(_occupancy_bce_bf16_probabilities, "op_dtype", "f32",
                                                         "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-element gradient clipping hook on the bf16 decoded trajectory that returns the clipped grad in fp32
    "trajectory-grad-clip-hook-returns-fp32": case(_trajectory_grad_clip_hook, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ragged lane polylines in a numpy object array handed to torch.from_numpy
    "ragged-lane-polylines-object-from-numpy": case(_ragged_polylines_object_array, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
}
