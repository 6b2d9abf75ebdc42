"""Held-out live set 169: autonomous-driving trajectory prediction written by hand in low precision (float64 map
polylines and agent histories from numpy, int64 agent-type ids, bool validity masks, uint8 rasterised maps, fp16
transformer encoders, bf16 decoders). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at 4ed40aec."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "4ed40aec"

bf16, f16 = torch.bfloat16, torch.float16
_AGENTS = 6
_STEPS = 11  # 1.1 s of history at 10 Hz
_MODES = 6
_D = 32


def _seeded() -> None:
    torch.manual_seed(0)


def _np_polylines(lanes: int = 4, points: int = 10) -> np.ndarray:
    rng = np.random.default_rng(0)
    xy = np.cumsum(rng.normal(0.0, 1.0, (lanes, points, 2)), axis=1)  # float64 map coordinates in metres
    return np.concatenate([xy[:, :-1], xy[:, 1:]], axis=-1)  # start/end vectors, VectorNet style


def _np_history() -> np.ndarray:
    rng = np.random.default_rng(1)
    return np.cumsum(rng.normal(0.0, 0.5, (_AGENTS, _STEPS, 2)), axis=1)  # float64 x/y per agent and step


def _validity() -> torch.Tensor:
    valid = torch.ones(_AGENTS, _STEPS, dtype=torch.bool)
    valid[2, :4] = False
    valid[5, :7] = False
    return valid


def _agent_types() -> torch.Tensor:
    return torch.tensor([0, 0, 1, 2, 0, 1])  # int64: vehicle, pedestrian, cyclist


def _uint8_raster() -> torch.Tensor:
    raster = torch.zeros(1, 3, 64, 64, dtype=torch.uint8)  # drivable area, lanes, crosswalks as 0/255
    raster[:, 0, 16:48] = 255
    raster[:, 1, :, 30:34] = 255
    return raster


def _vectornet_subgraph_np_f64_vectors() -> None:
    _seeded()
    vectors = torch.from_numpy(_np_polylines())
    subgraph = nn.Linear(4, _D)
    subgraph(vectors)


def _agent_type_int64_ids_into_linear() -> None:
    _seeded()
    type_proj = nn.Linear(1, _D)
    type_proj(_agent_types()[:, None])


def _fp16_scene_encoder_fp32_agent_tokens() -> None:
    _seeded()
    encoder = nn.TransformerEncoderLayer(_D, 4, 64, batch_first=True).half()
    tokens = torch.randn(1, _AGENTS, _D)  # agent embeddings built outside the halved module
    encoder(tokens)


def _bf16_decoder_head_fp32_memory() -> None:
    _seeded()
    head = nn.Sequential(nn.Linear(_D, 64), nn.ReLU(), nn.Linear(64, _MODES * 30 * 2)).to(bf16)
    agent_feature = torch.randn(_AGENTS, _D)
    head(agent_feature)


def _uint8_raster_into_resnet_stem() -> None:
    _seeded()
    stem = nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False)
    stem(_uint8_raster())


def _np_f64_history_into_fp16_gru() -> None:
    _seeded()
    gru = nn.GRU(2, _D, batch_first=True).half()
    gru(torch.from_numpy(_np_history()))


def _fp16_temporal_conv_np_f64_history() -> None:
    _seeded()
    conv = nn.Conv1d(2, _D, 3, padding=1).half()
    history = torch.from_numpy(_np_history()).transpose(1, 2)
    conv(history)


def _bf16_decoder_batchnorm_fp32_features() -> None:
    _seeded()
    norm = nn.BatchNorm1d(_D).to(bf16)
    norm(torch.randn(_AGENTS, _D))


def _bf16_mode_queries_sdpa_fp16_encoder_memory() -> None:
    _seeded()
    queries = torch.randn(1, 4, _MODES, 8, dtype=bf16)
    memory = torch.randn(1, 4, _AGENTS + 4, 8, dtype=f16)  # output of the fp16 scene encoder
    F.scaled_dot_product_attention(queries, memory, memory)


def _bf16_decoder_mha_fp16_encoder_mask() -> None:
    _seeded()
    attn = nn.MultiheadAttention(_D, 4, batch_first=True).to(bf16)
    queries = torch.randn(1, _MODES, _D, dtype=bf16)
    memory = torch.randn(1, _AGENTS, _D, dtype=bf16)
    distance_bias = torch.zeros(_MODES, _AGENTS, dtype=f16)  # built by the fp16 encoder's relative-position code
    attn(queries, memory, memory, attn_mask=distance_bias)


def _lane_frame_baddbmm_bf16_offsets() -> None:
    _seeded()
    offsets = torch.randn(_AGENTS, 30, 2, dtype=bf16)  # decoder output, lane-relative
    local = torch.randn(_AGENTS, 30, 2)
    rotations = torch.randn(_AGENTS, 2, 2)
    torch.baddbmm(offsets, local, rotations)


def _centerline_cdist_f64_map_f16_agents() -> None:
    _seeded()
    centerline = torch.from_numpy(_np_polylines()[..., :2].reshape(-1, 2))
    agents = torch.randn(_AGENTS, 2, dtype=f16)
    torch.cdist(agents, centerline)


def _polyline_maxpool_scatter_reduce_bf16_points() -> None:
    _seeded()
    point_features = torch.randn(36, _D, dtype=bf16)
    polyline_of_point = torch.arange(36).div(9, rounding_mode="floor")[:, None].expand(-1, _D)
    pooled = torch.zeros(4, _D)
    pooled.scatter_reduce(0, polyline_of_point, point_features, "amax", include_self=False)


def _scene_tensor_index_put_np_f64_history() -> None:
    _seeded()
    scene = torch.zeros(16, _STEPS, 2)
    slots = torch.tensor([0, 3, 4, 7, 9, 12])
    scene[slots] = torch.from_numpy(_np_history())


def _bf16_refinement_lerp_fp32_anchors() -> None:
    _seeded()
    predicted = torch.randn(_AGENTS, _MODES, 30, 2, dtype=bf16)
    anchors = torch.randn(_AGENTS, _MODES, 30, 2)
    torch.lerp(predicted, anchors, 0.3)


def _bf16_mode_logits_ce_fp32_class_weights() -> None:
    _seeded()
    logits = torch.randn(_AGENTS, _MODES, dtype=bf16)
    winner = torch.tensor([0, 2, 1, 5, 3, 0])
    mode_weights = torch.ones(_MODES)
    F.cross_entropy(logits, winner, weight=mode_weights)


def _fp16_lane_scores_masked_fill_neg_1e9() -> None:
    _seeded()
    scores = torch.randn(_AGENTS, 4, dtype=f16)
    invalid_lane = torch.tensor([False, False, True, True]).expand(_AGENTS, -1)
    scores.masked_fill(invalid_lane, -1e9)


def _fp16_squared_distance_mode_categorical() -> None:
    _seeded()
    endpoints = torch.randn(_AGENTS, _MODES, 2, dtype=f16) * 20000.0  # centimetres from the raw log
    ground_truth = torch.zeros(_AGENTS, 1, 2, dtype=f16)
    logits = -((endpoints - ground_truth) ** 2).sum(-1)
    torch.distributions.Categorical(logits=logits)


def _bf16_forecast_numpy_min_fde() -> None:
    _seeded()
    forecast = torch.randn(_AGENTS, _MODES, 30, 2, dtype=bf16)
    ground_truth = np.zeros((_AGENTS, 1, 30, 2))
    np.linalg.norm(forecast[..., -1, :].numpy() - ground_truth[..., -1, :], axis=-1).min(-1)


def _fp16_encoder_np_f64_finite_difference_grad() -> None:
    _seeded()
    encoder = nn.Linear(2, _D).half()
    numeric = np.full((_D, 2), 1e-3)  # central-difference gradient from the numpy reference, float64
    encoder.weight.grad = torch.from_numpy(numeric)


def _fp16_agent_padding_or_map_padding() -> None:
    _seeded()
    agent_padding = torch.zeros(1, _AGENTS, dtype=f16)
    map_padding = torch.ones(1, _AGENTS, dtype=f16)
    agent_padding | map_padding


def _observed_in_both_windows_bool_minus() -> None:
    past_valid = _validity()
    future_valid = torch.ones(_AGENTS, _STEPS, dtype=torch.bool)
    future_valid - past_valid


def _collated_int64_validity_masked_fill() -> None:
    _seeded()
    history = torch.randn(_AGENTS, _STEPS, 2)
    valid = _validity().long()  # the collate_fn stacks masks with torch.tensor(list_of_ints)
    history.masked_fill(valid[..., None], 0.0)


def _float_last_valid_step_index() -> None:
    _seeded()
    history = torch.randn(_AGENTS, _STEPS, 2)
    last = _validity().float().sum(-1) - 1
    history[torch.arange(_AGENTS), last]


def _int32_agent_type_one_hot() -> None:
    types = _agent_types().to(torch.int32)  # from the int32 column of the scenario proto
    F.one_hot(types, 3)


def _int16_lane_type_embedding() -> None:
    _seeded()
    lane_types = torch.from_numpy(np.array([1, 1, 3, 2], dtype=np.int16))  # parquet map cache
    nn.Embedding(8, _D)(lane_types)


def _int32_winner_mode_cross_entropy() -> None:
    _seeded()
    logits = torch.randn(_AGENTS, _MODES)
    winner = torch.tensor([0, 2, 1, 5, 3, 0], dtype=torch.int32)
    F.cross_entropy(logits, winner)


def _int64_cm_history_normal_noise() -> None:
    history_cm = torch.from_numpy((_np_history() * 100).astype(np.int64))
    history_cm.normal_(0.0, 5.0)


def _bf16_gmm_covariance_cholesky() -> None:
    _seeded()
    sigma = torch.rand(_AGENTS, _MODES, 2, dtype=bf16) + 0.5
    covariance = torch.diag_embed(sigma**2)
    torch.linalg.cholesky(covariance)


def _bool_validity_replicate_pad() -> None:
    valid = _validity()[None]
    F.pad(valid, (2, 2), mode="replicate")


CASES: dict[str, LiveCase] = {
    # VectorNet subgraph: float64 polyline vectors from numpy into an fp32 Linear
    "vectornet-subgraph-np-f64-vectors": case(_vectornet_subgraph_np_f64_vectors, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # int64 agent-type ids fed straight into a Linear instead of an embedding
    "agent-type-int64-ids-into-linear": case(_agent_type_int64_ids_into_linear, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a halved scene encoder fed fp32 agent tokens
    "fp16-scene-encoder-fp32-agent-tokens": case(_fp16_scene_encoder_fp32_agent_tokens, "matmul_dtype", "f32",
                                                 "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 trajectory decoder head fed the fp32 agent feature
    "bf16-decoder-head-fp32-agent-feature": case(_bf16_decoder_head_fp32_memory, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # uint8 rasterised map into the fp32 ResNet stem
    "uint8-raster-into-resnet-stem": case(_uint8_raster_into_resnet_stem, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # float64 numpy agent history into an fp16 GRU encoder
    "np-f64-history-into-fp16-gru": case(_np_f64_history_into_fp16_gru, "rnn_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 temporal Conv1d over float64 numpy history
    "fp16-temporal-conv-np-f64-history": case(_fp16_temporal_conv_np_f64_history, "conv_weight_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 decoder BatchNorm1d fed fp32 features
    "bf16-decoder-batchnorm-fp32-features": case(_bf16_decoder_batchnorm_fp32_features, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 mode queries attend over the fp16 encoder's memory through SDPA
    "bf16-mode-queries-sdpa-fp16-memory": case(_bf16_mode_queries_sdpa_fp16_encoder_memory, "sdpa_dtype", "bf16",
                                               "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 decoder MultiheadAttention with an fp16 distance-bias mask from the encoder
    "bf16-decoder-mha-fp16-distance-bias": case(_bf16_decoder_mha_fp16_encoder_mask, "attn_mask_dtype", "f16",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # lane-frame transform with baddbmm: bf16 offsets, fp32 local points and rotations
    "lane-frame-baddbmm-bf16-offsets": case(_lane_frame_baddbmm_bf16_offsets, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # agent-to-centerline cdist: fp16 agents, float64 numpy centerline points
    "centerline-cdist-f16-agents-f64-map": case(_centerline_cdist_f64_map_f16_agents, "matmul_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (4ed40aec) castwise gave matmul_dtype [f16, f64] (high confidence). The op that raised is "
             "torch.cdist (agent-to-centerline distances), whose own dtype check says `expected m1 and m2 to have the "
             "same dtype`; the rules read the m1/m2 wording as a matrix multiply's operands, so a distance op meeting "
             "two floats is taken for a Linear/matmul and the fix points at the wrong call. Expectation corrected "
             "after grading from op_dtype to matmul_dtype, the convention the corpus already had for cdist's matmul "
             "path raising `expected m1 and m2 to have the same dtype` (live_held_out_105's "
             "coreset-cdist-f64-labeled-fp32-pool); the grade at freeze stands.")),
    # polyline max-pool with scatter_reduce: bf16 point features into an fp32 buffer
    "polyline-maxpool-scatter-reduce-bf16": case(_polyline_maxpool_scatter_reduce_bf16_points,
                                                 "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # scene tensor filled by index with float64 numpy history
    "scene-slots-index-put-np-f64-history": case(_scene_tensor_index_put_np_f64_history, "indexed_write_dtype",
                                                 "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # refinement: bf16 prediction lerped toward fp32 anchors
    "bf16-refinement-lerp-fp32-anchors": case(_bf16_refinement_lerp_fp32_anchors, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 mode logits with fp32 per-mode class weights in cross_entropy
    "bf16-mode-logits-ce-fp32-weights": case(_bf16_mode_logits_ce_fp32_class_weights, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 lane scores masked with -1e9 before the softmax
    "fp16-lane-scores-masked-fill-neg-1e9": case(_fp16_lane_scores_masked_fill_neg_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 squared endpoint distances in centimetres overflow; the mode Categorical sees NaN
    "fp16-cm-endpoint-distance-categorical": case(_fp16_squared_distance_mode_categorical, "nonfinite", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 forecast handed to numpy for minFDE
    "bf16-forecast-numpy-min-fde": case(_bf16_forecast_numpy_min_fde, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 numpy finite-difference gradient assigned to an fp16 encoder weight's .grad
    "fp16-encoder-np-f64-finite-difference-grad": case(_fp16_encoder_np_f64_finite_difference_grad, "loss_dtype",
                                                       "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 agent and map padding masks combined with |
    "fp16-agent-padding-or-map-padding": case(_fp16_agent_padding_or_map_padding, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # agents observed in both windows computed with - on bool validity masks
    "observed-both-windows-bool-minus": case(_observed_in_both_windows_bool_minus, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # collated int64 validity used as the masked_fill mask
    "collated-int64-validity-masked-fill": case(_collated_int64_validity_masked_fill, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # last valid step counted in float and used as an index
    "float-last-valid-step-index": case(_float_last_valid_step_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int32 agent types from the scenario proto one-hot encoded
    "int32-agent-type-one-hot": case(_int32_agent_type_one_hot, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int16 lane types from the parquet map cache into an embedding
    "int16-lane-type-embedding": case(_int16_lane_type_embedding, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # int32 winner-mode targets in the mode-classification cross_entropy
    "int32-winner-mode-cross-entropy": case(_int32_winner_mode_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # noise augmentation with normal_ on int64 centimetre history
    "int64-cm-history-normal-noise": case(_int64_cm_history_normal_noise, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 GMM covariance factorised with cholesky
    "bf16-gmm-covariance-cholesky": case(_bf16_gmm_covariance_cholesky, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bool validity mask padded with replicate mode
    "bool-validity-replicate-pad": case(_bool_validity_replicate_pad, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
}
