"""Held-out live set 91: autonomous-driving motion prediction and planning written by hand in low precision (agent
trajectories in float64 map coordinates, lane-graph polylines with int64 edges, rasterized BEV occupancy grids as
uint8/bool, multimodal trajectory heads with mode probabilities, minADE/minFDE with argmin over modes, collision
checks with bool masks, cost maps and waypoint sampling, vectorized scene encoders under bf16/fp16 autocast). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
f9e5f57."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f9e5f57"

bf16, f16 = torch.bfloat16, torch.float16
_AGENTS = 6
_HISTORY = 11  # 1.1 s at 10 Hz
_FUTURE = 30  # 3 s at 10 Hz
_MODES = 6
_BEV = 64  # 64 x 64 cells at 0.5 m


def _seeded() -> None:
    torch.manual_seed(0)


def _map_frame_histories() -> np.ndarray:
    """Agent histories (x, y, heading) in UTM-like map coordinates, float64 as the dataset's parquet gives them."""
    rng = np.random.default_rng(0)
    start = np.array([452310.7, 5411920.3])
    xy = start + np.cumsum(rng.normal(0.0, 0.5, (_AGENTS, _HISTORY, 2)), axis=1)
    heading = rng.uniform(-np.pi, np.pi, (_AGENTS, _HISTORY, 1))
    return np.concatenate([xy, heading], axis=-1)


def _occupancy(seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(1, 1, _BEV, _BEV, generator=generator) > 0.9


# ---- floating dtypes meeting


def _agent_history_f64_lstm_encoder() -> None:
    _seeded()
    history = _map_frame_histories()
    history[..., :2] -= history[:, -1:, :2]  # agent-centric: relative to the last observed position
    encoder = nn.LSTM(3, 64, batch_first=True)
    encoder(torch.from_numpy(history))


def _scene_encoder_autocast_f64_polylines() -> None:
    _seeded()
    polylines = np.random.default_rng(1).normal(0.0, 20.0, (16, 20, 4))  # lane points (x, y, dx, dy), float64
    point_mlp = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64))
    with torch.autocast("cpu", dtype=bf16):  # "autocast takes care of the dtypes"
        point_mlp(torch.as_tensor(polylines)).amax(dim=1)


def _agents_to_ego_frame_bmm() -> None:
    _seeded()
    history = torch.from_numpy(_map_frame_histories())
    xy = history[..., :2] - history[:, -1:, :2]
    yaw = torch.tensor(history[:, -1, 2].tolist(), dtype=torch.float32)  # read back through a list: fp32
    cos, sin = yaw.cos(), yaw.sin()
    rotation = torch.stack([torch.stack([cos, sin], -1), torch.stack([-sin, cos], -1)], -2)
    torch.bmm(xy, rotation.transpose(1, 2))


def _autocast_agent_tokens_scattered_into_padded_scene() -> None:
    _seeded()
    valid = torch.tensor([[True, True, True, False], [True, True, False, False]])
    agent_features = torch.randn(int(valid.sum()), 16)
    agent_encoder = nn.Linear(16, 32)
    with torch.autocast("cpu", dtype=bf16):
        tokens = agent_encoder(agent_features)
        scene = torch.zeros(2, 4, 32)  # padded (scene, agent, channel) buffer
        scene[valid] = tokens


def _motion_queries_attend_fp32_map_tokens() -> None:
    _seeded()
    queries = torch.randn(1, 4, _MODES, 16, dtype=bf16)  # bf16 intention queries of the motion decoder
    map_tokens = torch.randn(1, 4, 32, 16)  # map encoder output cached once per scene, kept fp32
    F.scaled_dot_product_attention(queries, map_tokens, map_tokens)


def _agent_distance_bias_f64_mask() -> None:
    _seeded()
    positions = torch.from_numpy(_map_frame_histories()[:, -1, :2])
    distance = torch.cdist(positions, positions)
    bias = -distance / 10.0  # nearer agents attend more; float64 from the map frame
    q = torch.randn(1, 2, _AGENTS, 16, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=bias)


def _bev_raster_bf16_into_fp32_backbone() -> None:
    _seeded()
    raster = torch.zeros(2, 5, _BEV, _BEV, dtype=bf16)  # rasterizer writes bf16 to halve the cache
    raster[:, 0] = _occupancy().to(bf16)[0, 0]
    backbone = nn.Sequential(nn.Conv2d(5, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU())
    backbone(raster)


def _ground_truth_smoothed_with_fp32_savgol() -> None:
    _seeded()
    future = torch.from_numpy(np.cumsum(np.random.default_rng(2).normal(0, 0.3, (_AGENTS, 2, _FUTURE)), axis=-1))
    savgol = torch.tensor([-3.0, 12.0, 17.0, 12.0, -3.0]) / 35.0  # window 5, order 2
    kernel = savgol.expand(2, 1, 5)
    F.conv1d(F.pad(future, (2, 2), mode="replicate"), kernel, groups=2)


def _polyline_point_batchnorm_f64() -> None:
    _seeded()
    points = torch.from_numpy(np.random.default_rng(3).normal(0.0, 5.0, (128, 8)))  # lane point features, float64
    subgraph = nn.Sequential(nn.BatchNorm1d(8), nn.Linear(8, 64))
    subgraph(points)


def _prediction_blended_toward_centerline() -> None:
    _seeded()
    centerline = torch.from_numpy(np.stack([np.linspace(0.0, 30.0, _FUTURE), np.zeros(_FUTURE)], -1))  # float64
    predicted = torch.randn(_FUTURE, 2).cumsum(0)
    torch.lerp(centerline, predicted, 0.7)


def _drivable_area_lookup_f64_waypoints() -> None:
    _seeded()
    cost_map = torch.rand(1, 1, _BEV, _BEV)
    origin = np.array([452300.0, 5411900.0])
    waypoints = _map_frame_histories()[0, :, :2]
    normalised = (waypoints - origin) / (0.5 * _BEV) * 2.0 - 1.0
    grid = torch.from_numpy(normalised)[None, None]
    F.grid_sample(cost_map, grid, align_corners=False)


def _cost_map_fp16_obstacle_penalty() -> None:
    cost_map = torch.rand(_BEV, _BEV, dtype=f16)  # planner cost map kept fp16
    obstacles = _occupancy()[0, 0]
    cost_map.masked_fill(obstacles, 1e5)


def _gmm_endpoint_head_bf16_mvn() -> None:
    _seeded()
    head = nn.Linear(32, _MODES * 5).to(bf16)
    out = head(torch.randn(1, 32, dtype=bf16)).view(_MODES, 5)
    loc, log_sigma, rho = out[:, :2], out[:, 2:4], torch.tanh(out[:, 4])
    sigma = log_sigma.exp()
    cov_xy = rho * sigma[:, 0] * sigma[:, 1]
    covariance = torch.stack([torch.stack([sigma[:, 0] ** 2, cov_xy], -1),
                              torch.stack([cov_xy, sigma[:, 1] ** 2], -1)], -2)
    endpoints = torch.distributions.MultivariateNormal(loc, covariance_matrix=covariance)
    endpoints.log_prob(torch.zeros(2, dtype=bf16))


def _endpoint_nms_pdist_f16() -> None:
    _seeded()
    trajectories = torch.randn(64, _FUTURE, 2, dtype=f16).cumsum(1)  # 64 intention-query outputs of the fp16 decoder
    endpoints = trajectories[:, -1]
    close = F.pdist(endpoints) < 2.5  # endpoints within 2.5 m suppress each other (pairs, condensed)
    close.sum()


def _mode_probabilities_by_hand_fp16() -> None:
    mode_logits = torch.tensor([[12.0, 3.5, 1.0, -2.0, 0.5, 2.0]], dtype=f16)  # the fp16 head's raw logits
    weights = mode_logits.exp()
    probs = weights / weights.sum(-1, keepdim=True)
    torch.multinomial(probs, 1)


def _collision_probability_fp16_and_footprint() -> None:
    _seeded()
    occupancy_prob = torch.rand(_FUTURE, _BEV, _BEV, dtype=f16)  # occupancy-flow head output, fp16
    footprint = torch.zeros(_FUTURE, _BEV, _BEV, dtype=torch.bool)
    footprint[:, 30:34, 31:33] = True
    (occupancy_prob & footprint).any()


def _bf16_predictions_for_submission() -> None:
    _seeded()
    trajectories = torch.randn(_AGENTS, _MODES, _FUTURE, 2, dtype=bf16).cumsum(2)
    scores = torch.softmax(torch.randn(_AGENTS, _MODES, dtype=bf16), -1)
    {"trajectories": trajectories.numpy(), "scores": scores.numpy()}


def _halved_planner_with_grad_scaler() -> None:
    _seeded()
    planner = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, _FUTURE * 2)).half()
    optimizer = torch.optim.Adam(planner.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    plan = planner(torch.randn(4, 32, dtype=f16)).float()
    scaler.scale(F.smooth_l1_loss(plan, torch.randn(4, _FUTURE * 2))).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(planner.parameters(), 1.0)


def _trajectory_optimisation_grad_from_fp32_cost() -> None:
    _seeded()
    waypoints = nn.Parameter(torch.from_numpy(np.linspace([0.0, 0.0], [30.0, 2.0], _FUTURE)))  # float64
    cost_gradient_map = torch.randn(2, _BEV, _BEV)  # d(cost)/d(x, y) precomputed with Sobel on the fp32 cost map
    cells = (waypoints.detach() / 0.5).long().clamp(0, _BEV - 1)
    waypoints.grad = cost_gradient_map[:, cells[:, 1], cells[:, 0]].T


def _lane_graph_sparse_adjacency_bf16_features() -> None:
    _seeded()
    edges = torch.tensor([[0, 1, 2, 3, 3], [1, 2, 3, 4, 5]])  # successor edges of 6 lane segments, int64
    adjacency = torch.sparse_coo_tensor(edges, torch.ones(edges.shape[1]), (6, 6))
    lane_features = torch.randn(6, 32, dtype=bf16)  # lane encoder output in the bf16 model
    torch.sparse.mm(adjacency, lane_features)


# ---- integer, bool, index, mask and target dtypes


def _occupancy_dilated_with_max_pool() -> None:
    occupied = _occupancy()
    F.max_pool2d(occupied, kernel_size=5, stride=1, padding=2)  # 1 m safety margin around obstacles


def _first_collision_step_argmax() -> None:
    _seeded()
    ego = torch.randn(_MODES, _FUTURE, 2).cumsum(1)
    other = torch.randn(_FUTURE, 2).cumsum(0)
    collided = (ego - other).norm(dim=-1) < 2.0
    collided.argmax(dim=-1)  # first step in collision per mode


def _miss_rate_bool_mean() -> None:
    _seeded()
    predictions = torch.randn(_AGENTS, _MODES, _FUTURE, 2).cumsum(2)
    ground_truth = torch.randn(_AGENTS, _FUTURE, 2).cumsum(1)
    min_fde = (predictions[:, :, -1] - ground_truth[:, None, -1]).norm(dim=-1).min(-1).values
    (min_fde > 2.0).mean()


def _cost_map_lookup_float_pixels() -> None:
    _seeded()
    cost_map = torch.rand(_BEV, _BEV)
    waypoints = torch.rand(_FUTURE, 2) * 32.0  # ego frame, metres
    pixels = (waypoints / 0.5).floor().clamp(0, _BEV - 1)
    cost_map[pixels[:, 1], pixels[:, 0]].sum()


def _agent_type_uint8_embedding() -> None:
    agent_types = torch.from_numpy(np.array([0, 0, 1, 2, 0, 1], dtype=np.uint8))  # vehicle/pedestrian/cyclist
    nn.Embedding(3, 16)(agent_types)


def _mode_classification_winner_mask_target() -> None:
    _seeded()
    predictions = torch.randn(_AGENTS, _MODES, _FUTURE, 2).cumsum(2)
    ground_truth = torch.randn(_AGENTS, _FUTURE, 2).cumsum(1)
    ade = (predictions - ground_truth[:, None]).norm(dim=-1).mean(-1)
    winner = ade == ade.min(dim=-1, keepdim=True).values
    mode_logits = torch.randn(_AGENTS, _MODES)
    F.cross_entropy(mode_logits, winner)


def _rasterize_agent_boxes_into_uint8() -> None:
    raster = torch.zeros(_BEV, _BEV, dtype=torch.uint8)
    rows = torch.tensor([30, 30, 31, 31])
    cols = torch.tensor([40, 41, 40, 41])
    inside = torch.ones(4, dtype=torch.bool)
    raster.index_put_((rows, cols), inside)


def _occupancy_grid_loss_uint8_target() -> None:
    _seeded()
    logits = torch.randn(2, _BEV, _BEV)
    target = torch.from_numpy(np.random.default_rng(4).integers(0, 2, (2, _BEV, _BEV), dtype=np.uint8))
    F.binary_cross_entropy_with_logits(logits, target)


def _waypoint_cells_to_metres_in_place() -> None:
    cells = torch.tensor([[0, 0], [2, 1], [4, 2], [6, 4]])  # sampled lattice cells, int64
    cells.mul_(0.5)  # to metres at 0.5 m/cell


def _free_space_by_bool_difference() -> None:
    drivable = torch.ones(_BEV, _BEV, dtype=torch.bool)
    occupied = _occupancy()[0, 0]
    free = drivable - occupied
    free.sum()


CASES: dict[str, LiveCase] = {
    # agent-centric float64 histories from the parquet through torch.from_numpy into an fp32 LSTM history encoder
    "agent-history-f64-lstm-encoder": case(_agent_history_f64_lstm_encoder, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # float64 lane polylines into a point MLP under bf16 CPU autocast, which leaves float64 inputs as they are
    "scene-encoder-autocast-f64-polylines": case(_scene_encoder_autocast_f64_polylines, "matmul_dtype", "f64",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 relative histories rotated into each agent's frame by bmm with fp32 rotations built from the yaw
    "agents-to-ego-frame-bmm-f64-f32-rotations": case(_agents_to_ego_frame_bmm, "batched_matmul_dtype", "f64",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # agent tokens encoded under bf16 autocast written into a padded fp32 scene buffer with the validity mask
    "autocast-agent-tokens-into-padded-scene": case(_autocast_agent_tokens_scattered_into_padded_scene,
                                                    "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 motion-decoder queries attending to the fp32 map tokens cached once per scene
    "motion-queries-sdpa-fp32-map-tokens": case(_motion_queries_attend_fp32_map_tokens, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an agent-agent distance bias from float64 map positions as the bf16 attention's float mask
    "agent-distance-bias-f64-attn-mask": case(_agent_distance_bias_f64_mask, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a BEV raster cached in bf16 fed to an fp32 conv-BN backbone
    "bev-raster-bf16-fp32-backbone": case(_bev_raster_bf16_into_fp32_backbone, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # float64 ground-truth futures smoothed by conv1d with an fp32 Savitzky-Golay kernel
    "ground-truth-f64-savgol-conv1d": case(_ground_truth_smoothed_with_fp32_savgol, "conv_weight_dtype", "f64",
                                           "f32",
        grade="correct", grade_at_freeze="correct"),
    # VectorNet-style polyline subgraph: float64 point features into an fp32 BatchNorm1d
    "polyline-points-f64-batchnorm": case(_polyline_point_batchnorm_f64, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the fp32 prediction lerped toward a float64 lane centerline from the map
    "prediction-lerp-toward-f64-centerline": case(_prediction_blended_toward_centerline, "lerp_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # waypoints normalised in float64 map coordinates as the grid of grid_sample over an fp32 cost map
    "drivable-area-grid-sample-f64-waypoints": case(_drivable_area_lookup_f64_waypoints, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # obstacles in an fp16 planner cost map given a penalty of 1e5
    "cost-map-fp16-obstacle-penalty-1e5": case(_cost_map_fp16_obstacle_penalty, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 GMM endpoint head scored with MultivariateNormal (its Cholesky in bf16)
    "gmm-endpoint-head-bf16-multivariate-normal": case(_gmm_endpoint_head_bf16_mvn, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # trajectory NMS over the fp16 decoder's endpoints with pairwise distances from F.pdist
    "endpoint-nms-pdist-f16": case(_endpoint_nms_pdist_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # mode probabilities by a hand-written softmax in fp16: exp(12) is inf, inf/inf NaN, multinomial refuses
    "mode-probabilities-fp16-exp-overflow-multinomial": case(_mode_probabilities_by_hand_fp16, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # collision check: fp16 occupancy probabilities and'ed with the bool ego footprint
    "collision-fp16-occupancy-and-footprint": case(_collision_probability_fp16_and_footprint, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 multimodal trajectories and scores turned to numpy for the benchmark submission
    "bf16-trajectories-numpy-submission": case(_bf16_predictions_for_submission, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a planner MLP halved with .half() and trained with GradScaler, unscaled before clipping
    "halved-planner-grad-scaler-unscale": case(_halved_planner_with_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # trajectory optimisation: float64 waypoints given an fp32 cost-map gradient as .grad
    "trajopt-f64-waypoints-fp32-cost-grad": case(_trajectory_optimisation_grad_from_fp32_cost, "loss_dtype", "f32",
                                                 "f64",
        grade="correct", grade_at_freeze="correct"),
    # lane-graph propagation: an fp32 sparse successor adjacency times bf16 lane features
    "lane-graph-sparse-adjacency-bf16-features": case(_lane_graph_sparse_adjacency_bf16_features, "matmul_dtype",
                                                      "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bool occupancy grid dilated with max_pool2d for a safety margin
    "occupancy-bool-max-pool-dilation": case(_occupancy_dilated_with_max_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the first colliding step per mode found with argmax over a bool collision mask
    "first-collision-step-argmax-bool": case(_first_collision_step_argmax, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # miss rate as the mean of a bool (minFDE > 2 m)
    "miss-rate-bool-mean": case(_miss_rate_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # cost-map lookup with pixel coordinates floor()ed but left float
    "cost-map-lookup-float-pixel-index": case(_cost_map_lookup_float_pixels, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # agent types stored uint8 in the dataset, looked up in nn.Embedding
    "agent-type-uint8-embedding": case(_agent_type_uint8_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # mode classification: the bool winner mask (ADE equal to the minimum) as cross_entropy's target
    "mode-classification-bool-winner-target": case(_mode_classification_winner_mask_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # agent boxes rasterized: a bool "inside" written with index_put_ into a uint8 BEV raster
    "rasterize-agents-bool-into-uint8": case(_rasterize_agent_boxes_into_uint8, "indexed_write_dtype", "uint8",
                                             "bool",
        grade="correct", grade_at_freeze="correct"),
    # occupancy-grid loss with a uint8 target grid from numpy
    "occupancy-bce-logits-uint8-target": case(_occupancy_grid_loss_uint8_target, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # int64 lattice cells turned into metres in place with mul_(0.5)
    "waypoint-cells-to-metres-inplace-int64": case(_waypoint_cells_to_metres_in_place, "result_cast", "f32",
                                                   "int64",
        grade="correct", grade_at_freeze="correct"),
    # free space as drivable minus occupied, two bool grids
    "free-space-bool-subtract": case(_free_space_by_bool_difference, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
}
