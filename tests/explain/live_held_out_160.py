"""Held-out live set 160: sports analytics written by hand in low precision (player keypoints as int16 from a broadcast
pose estimator, ball trajectories in float64 from pandas, bool possession masks, fp16 tracking transformers, bf16 event
classifiers, int64 action labels, uint8 broadcast frames). Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at 2db850b3."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "2db850b3"

bf16, f16 = torch.bfloat16, torch.float16
_PLAYERS = 22  # both teams on the pitch
_JOINTS = 17  # COCO keypoints per player
_FRAMES = 25  # one second of 25 Hz tracking
_ACTIONS = 17  # action-spotting classes (pass, drive, shot, foul, ...)
_D = 32


def _seeded() -> None:
    torch.manual_seed(0)


def _pose_keypoints(players: int = 4) -> torch.Tensor:
    """(players, joints, xy) pixel keypoints of a 1280 x 720 broadcast frame, stored int16 by the pose cache."""
    rng = np.random.default_rng(0)
    xy = rng.integers((0, 0), (1280, 720), size=(players, _JOINTS, 2)).astype(np.int16)
    return torch.from_numpy(xy)


def _ball_track(frames: int = _FRAMES) -> pd.DataFrame:
    """Ball positions (metres, with height) as a tracking provider's CSV reads into pandas: float64 columns."""
    t = np.arange(frames) / 25.0
    return pd.DataFrame({"x": 10.0 + 12.0 * t, "y": -4.0 + 3.0 * t, "z": 0.2 + 8.0 * t - 4.9 * t**2})


def _broadcast_frames(frames: int = 2, height: int = 32, width: int = 48) -> torch.Tensor:
    """Decoded broadcast frames as the video reader gives them: uint8, (frames, height, width, 3)."""
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.integers(0, 256, size=(frames, height, width, 3), dtype=np.uint8))


def _possession(frames: int = _FRAMES) -> torch.Tensor:
    """bool per-frame flag: the home team has the ball."""
    return torch.tensor([True] * 9 + [False] * 7 + [True] * (frames - 16))


def _action_labels() -> torch.Tensor:
    return torch.tensor([0, 3, 3, 7, 12, 1])  # int64 action ids from the annotation json


# --- int16 player keypoints


def _int16_keypoints_into_pose_embedding() -> None:
    _seeded()
    pose_embed = nn.Linear(_JOINTS * 2, _D)
    pose_embed(_pose_keypoints().flatten(1))


def _heatmap_confidence_gather_int16_index() -> None:
    _seeded()
    height, width = 64, 48
    heatmaps = torch.rand(4, _JOINTS, height * width)
    keypoints = _pose_keypoints() // 20  # image pixels to heatmap cells, still int16
    flat = keypoints[..., 1].clamp(0, height - 1) * width + keypoints[..., 0].clamp(0, width - 1)
    heatmaps.gather(2, flat[..., None])


def _missing_joints_int16_sentinel() -> None:
    keypoints = _pose_keypoints()
    missing = torch.zeros(4, _JOINTS, 2, dtype=torch.bool)
    missing[:, 13:] = True  # ankles and knees cut off by the frame edge
    keypoints.masked_fill(missing, -99999)


# --- float64 ball trajectories from pandas


def _ball_track_f64_into_gru() -> None:
    _seeded()
    track = torch.from_numpy(_ball_track()[["x", "y", "z"]].to_numpy())[None]
    encoder = nn.GRU(3, _D, batch_first=True)
    encoder(track)


def _ball_track_f64_into_f16_transformer() -> None:
    _seeded()
    input_proj = nn.Linear(3, _D).half()  # the fp16 tracking transformer's ball-token projection
    ball = torch.from_numpy(_ball_track().to_numpy())
    input_proj(ball)


def _savgol_f64_coefficients_conv1d() -> None:
    from scipy.signal import savgol_coeffs

    track = torch.from_numpy(_ball_track(50)[["x", "y"]].to_numpy().T.astype(np.float32))[:, None]
    kernel = torch.from_numpy(savgol_coeffs(7, 2))[None, None]  # float64 from scipy
    F.conv1d(track, kernel, padding=3)


def _ball_3d_per_frame_camera_bmm() -> None:
    _seeded()
    ball = _ball_track()
    homogeneous = torch.from_numpy(np.c_[ball.to_numpy(), np.ones(len(ball))])[:, :, None]  # (frames, 4, 1) f64
    cameras = torch.randn(_FRAMES, 3, 4)  # the broadcast camera's per-frame projection, fp32 from the calibrator
    torch.bmm(cameras, homogeneous)


def _ball_positions_f64_index_put() -> None:
    features = torch.zeros(_FRAMES, _PLAYERS + 1, 2)  # per-frame (player slots + ball) xy table, fp32
    ball = torch.from_numpy(_ball_track()[["x", "y"]].to_numpy())
    frames = torch.arange(_FRAMES)
    features.index_put_((frames, torch.full((_FRAMES,), _PLAYERS)), ball)


def _unseen_ball_nan_owner_multinomial() -> None:
    _seeded()
    ball = _ball_track()
    ball.loc[10:14, ["x", "y"]] = np.nan  # ball out of the camera's view: NaN rows in the provider's file
    ball_xy = torch.from_numpy(ball[["x", "y"]].to_numpy()).float()
    players = torch.randn(_FRAMES, _PLAYERS, 2) * 20
    distances = (players - ball_xy[:, None]).norm(dim=-1)
    owner_probs = (-distances).softmax(-1)
    torch.multinomial(owner_probs, 1)


def _player_tokens_f16_sdpa_f64_ball_tokens() -> None:
    _seeded()
    players = torch.randn(1, 4, _PLAYERS, 8, dtype=f16)  # fp16 tracking transformer's player queries
    ball = torch.from_numpy(_ball_track().to_numpy())  # (frames, 3) float64 from pandas
    ball_tokens = ball @ torch.randn(3, 8).double()
    ball_tokens = ball_tokens[None, None].expand(1, 4, _FRAMES, 8)
    F.scaled_dot_product_attention(players, ball_tokens, ball_tokens)


# --- bool possession masks


def _possession_share_bool_avg_pool() -> None:
    possession = _possession()[None, None]
    F.avg_pool1d(possession, kernel_size=5, stride=1)


def _possession_bool_einsum_team_pooling() -> None:
    _seeded()
    in_possession = torch.rand(_FRAMES, _PLAYERS) > 0.5  # bool: player on the team with the ball
    player_features = torch.randn(_FRAMES, _PLAYERS, _D)
    torch.einsum("tp,tpd->td", in_possession, player_features)


def _off_ball_mask_invert_halved_possession() -> None:
    _seeded()
    batch = {"positions": torch.randn(_FRAMES, _PLAYERS, 2), "possession": torch.rand(_FRAMES, _PLAYERS) > 0.5}
    batch = {name: value.half() for name, value in batch.items()}  # fp16 tracking model: the whole batch halved
    off_ball = ~batch["possession"]
    batch["positions"][off_ball]


# --- int64 action labels


def _one_hot_int64_bce_logits_target() -> None:
    _seeded()
    logits = torch.randn(6, _ACTIONS)
    targets = F.one_hot(_action_labels(), _ACTIONS)  # multi-label action spotting
    F.binary_cross_entropy_with_logits(logits, targets)


def _one_hot_int64_label_smoothing_in_place() -> None:
    eps = 0.1
    targets = F.one_hot(_action_labels(), _ACTIONS)
    targets.mul_(1 - eps).add_(eps / _ACTIONS)


def _one_hot_int64_label_embedding_matmul() -> None:
    _seeded()
    label_table = torch.randn(_ACTIONS, _D)  # learned action-label embedding for the label-aware decoder
    F.one_hot(_action_labels(), _ACTIONS) @ label_table


# --- uint8 broadcast frames


def _uint8_frames_inplace_normalise() -> None:
    frames = _broadcast_frames().permute(0, 3, 1, 2)
    mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None] * 255
    std = torch.tensor([0.229, 0.224, 0.225])[:, None, None] * 255
    frames.sub_(mean).div_(std)


def _uint8_frame_vit_unfold_patches() -> None:
    frames = _broadcast_frames().permute(0, 3, 1, 2)
    F.unfold(frames, kernel_size=16, stride=16).transpose(1, 2)


def _uint8_clip_f16_conv3d_stem() -> None:
    _seeded()
    clip = _broadcast_frames(frames=4).permute(3, 0, 1, 2)[None]  # (1, 3, T, H, W) uint8
    stem = nn.Conv3d(3, 8, (3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False).half()
    stem(clip)


# --- fp16 tracking transformers


def _f16_tracking_mha_fp32_distance_bias() -> None:
    _seeded()
    attention = nn.MultiheadAttention(_D, 4, batch_first=True).half()
    players = torch.randn(1, _PLAYERS, _D, dtype=f16)
    positions = torch.randn(_PLAYERS, 2) * 20
    distance_bias = -torch.cdist(positions, positions) / 10.0  # fp32: nearby players attend more
    attention(players, players, players, attn_mask=distance_bias)


def _f16_absent_players_masked_fill() -> None:
    _seeded()
    q = torch.randn(1, _PLAYERS, _D, dtype=f16)
    scores = q @ q.transpose(1, 2) / _D**0.5
    absent = torch.zeros(1, 1, _PLAYERS, dtype=torch.bool)
    absent[..., 20:] = True  # two red cards: padded slots
    scores.masked_fill(absent, -1e9).softmax(-1)


def _f16_player_ball_einsum_fp32_query() -> None:
    _seeded()
    players = torch.randn(2, _PLAYERS, _D, dtype=f16)
    ball_query = nn.Parameter(torch.randn(_D))  # added after model.half(), stays fp32
    torch.einsum("bpd,d->bp", players, ball_query)


def _f16_pairwise_pdist() -> None:
    _seeded()
    positions = (torch.randn(_PLAYERS, 2) * 20).half()
    F.pdist(positions)


def _f16_pitch_homography_inverse() -> None:
    homography = torch.tensor([[0.9, 0.1, 12.0], [0.02, 1.1, -4.0], [0.0001, 0.0002, 1.0]], dtype=f16)
    torch.linalg.inv(homography)


# --- bf16 event classifiers


def _bf16_event_batchnorm_fp32_features() -> None:
    _seeded()
    head = nn.Sequential(nn.BatchNorm1d(_D), nn.Linear(_D, _ACTIONS)).to(bf16)
    clip_features = torch.randn(6, _D)  # pooled features of the frozen fp32 backbone
    head(clip_features)


def _bf16_spotting_conv1d_fp32_features() -> None:
    _seeded()
    temporal_head = nn.Conv1d(_D, _ACTIONS, kernel_size=9, padding=4).to(bf16)
    features = torch.randn(1, _D, 60)  # per-frame fp32 features saved by the feature-extraction run
    temporal_head(features)


def _bf16_event_probs_to_numpy() -> None:
    _seeded()
    classifier = nn.Linear(_D, _ACTIONS).to(bf16)
    probs = classifier(torch.randn(6, _D, dtype=bf16)).softmax(-1)
    probs.detach().numpy()  # for sklearn's average_precision_score


def _bf16_event_ema_foreach_lerp() -> None:
    _seeded()
    model = nn.Linear(_D, _ACTIONS).to(bf16)
    ema = [p.detach().float().clone() for p in model.parameters()]  # fp32 EMA shadow weights
    torch._foreach_lerp_(ema, [p.detach() for p in model.parameters()], 0.001)


def _bf16_event_vecdot_fp32_prototypes() -> None:
    _seeded()
    event_embedding = torch.randn(6, 1, _D, dtype=bf16)
    prototypes = torch.randn(1, _ACTIONS, _D)  # few-shot class prototypes averaged in fp32
    torch.linalg.vecdot(event_embedding, prototypes)


def _bf16_event_grad_hook_upcast() -> None:
    _seeded()
    classifier = nn.Linear(_D, _ACTIONS).to(bf16)
    for param in classifier.parameters():
        param.register_hook(lambda grad: grad.float())  # "accumulate in fp32"
    logits = classifier(torch.randn(6, _D, dtype=bf16))
    F.cross_entropy(logits.float(), _action_labels()).backward()


CASES: dict[str, LiveCase] = {
    # --- int16 player keypoints
    # int16 pose keypoints (17 x 2 pixels) flattened straight into the fp32 pose-embedding Linear
    "pose-keypoints-int16-flattened-pose-embedding": case(_int16_keypoints_into_pose_embedding, "integer_operand",
                                                          "int16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # heatmap confidence at each keypoint read by gather with a flat index computed from int16 keypoints
    "heatmap-confidence-gather-int16-flat-index": case(_heatmap_confidence_gather_int16_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # joints cut off by the frame edge marked with a -99999 sentinel in the int16 keypoints
    "missing-joints-int16-sentinel-masked-fill": case(_missing_joints_int16_sentinel, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # --- float64 ball trajectories from pandas
    # pandas float64 ball x/y/z columns into the fp32 GRU trajectory encoder
    "ball-track-pandas-f64-gru-encoder": case(_ball_track_f64_into_gru, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pandas float64 ball track into the halved tracking transformer's ball-token projection
    "ball-track-f64-f16-transformer-input-projection": case(_ball_track_f64_into_f16_transformer, "matmul_dtype",
                                                            "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Savitzky-Golay smoothing of fp32 ball tracks with scipy's float64 coefficients as the conv1d weight
    "ball-track-savgol-f64-coefficients-conv1d": case(_savgol_f64_coefficients_conv1d, "conv_weight_dtype", "f32",
                                                      "f64",
        grade="correct", grade_at_freeze="correct"),
    # float64 3-D ball positions projected by per-frame fp32 broadcast camera matrices with torch.bmm
    "ball-3d-f64-per-frame-camera-bmm": case(_ball_3d_per_frame_camera_bmm, "batched_matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # float64 ball xy written with index_put_ into the fp32 per-frame player-and-ball table
    "ball-xy-f64-index-put-frame-table": case(_ball_positions_f64_index_put, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # ball out of view (NaN rows): ball-owner probabilities from distances are NaN, multinomial refuses them
    "unseen-ball-nan-owner-multinomial": case(_unseen_ball_nan_owner_multinomial, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # fp16 player queries attending over float64 ball-trajectory tokens with scaled_dot_product_attention
    "player-queries-f16-sdpa-f64-ball-tokens": case(_player_tokens_f16_sdpa_f64_ball_tokens, "sdpa_dtype", "f16",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- bool possession masks
    # rolling possession share as avg_pool1d of the bool home-possession flag
    "possession-share-bool-avg-pool1d": case(_possession_share_bool_avg_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # in-possession team features pooled by einsum of the bool player mask and fp32 player features
    "possession-bool-einsum-team-pooling": case(_possession_bool_einsum_team_pooling, "integer_operand", "bool",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # the whole batch halved for the fp16 model, possession mask included, then inverted with ~ for off-ball players
    "off-ball-invert-halved-possession-mask": case(_off_ball_mask_invert_halved_possession, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- int64 action labels
    # multi-label action spotting: F.one_hot's int64 labels as the BCE-with-logits target
    "action-one-hot-int64-bce-logits-target": case(_one_hot_int64_bce_logits_target, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # label smoothing done in place (mul_) on the int64 one-hot action labels
    "action-one-hot-int64-label-smoothing-mul-in-place": case(_one_hot_int64_label_smoothing_in_place,
                                                              "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 one-hot action labels @ an fp32 label-embedding table
    "action-one-hot-int64-label-embedding-matmul": case(_one_hot_int64_label_embedding_matmul, "integer_operand",
                                                        "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- uint8 broadcast frames
    # ImageNet normalisation done in place (sub_) on the uint8 broadcast frames
    "broadcast-frames-uint8-in-place-normalise": case(_uint8_frames_inplace_normalise, "result_cast", "f32",
                                                      "uint8",
        grade="correct", grade_at_freeze="correct"),
    # ViT patches cut from uint8 broadcast frames with F.unfold
    "broadcast-frame-uint8-vit-unfold-patches": case(_uint8_frame_vit_unfold_patches, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a uint8 broadcast clip into a halved Conv3d action-recognition stem
    "broadcast-clip-uint8-f16-conv3d-stem": case(_uint8_clip_f16_conv3d_stem, "integer_operand", "uint8", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- fp16 tracking transformers
    # halved player MultiheadAttention given an fp32 distance bias (negative cdist) as attn_mask
    "tracking-mha-f16-fp32-distance-bias-mask": case(_f16_tracking_mha_fp32_distance_bias, "attn_mask_dtype", "f32",
                                                     "f16",
        grade="correct", grade_at_freeze="correct"),
    # hand-written fp16 player attention: padded (sent-off) player slots masked_fill'ed with -1e9
    "tracking-f16-sent-off-slots-masked-fill-1e9": case(_f16_absent_players_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 player tokens einsum'd with a ball query Parameter added after .half() (fp32)
    "tracking-f16-player-ball-einsum-fp32-query": case(_f16_player_ball_einsum_fp32_query, "matmul_dtype", "f16",
                                                       "f32",
        grade="correct", grade_at_freeze="correct"),
    # pairwise player distances by F.pdist on the fp16 positions
    "tracking-f16-player-pdist": case(_f16_pairwise_pdist, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # image-to-pitch homography inverted with linalg.inv in fp16
    "tracking-f16-pitch-homography-inv": case(_f16_pitch_homography_inverse, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- bf16 event classifiers
    # bf16 event head (BatchNorm1d first) given pooled fp32 backbone features
    "event-head-bf16-batchnorm-fp32-features": case(_bf16_event_batchnorm_fp32_features, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 temporal Conv1d spotting head (with bias) over saved fp32 per-frame features
    "spotting-head-bf16-conv1d-fp32-features": case(_bf16_spotting_conv1d_fp32_features, "conv_weight_dtype", "f32",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 event probabilities turned into numpy for sklearn's average precision
    "event-probs-bf16-numpy-average-precision": case(_bf16_event_probs_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp32 EMA shadow weights updated with _foreach_lerp_ toward the bf16 event classifier's parameters
    "event-ema-fp32-foreach-lerp-bf16-params": case(_bf16_event_ema_foreach_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # few-shot event classification: bf16 event embeddings vecdot fp32 class prototypes
    "event-embedding-bf16-vecdot-fp32-prototypes": case(_bf16_event_vecdot_fp32_prototypes, "op_dtype", "bf16",
                                                        "f32",
        grade="correct", grade_at_freeze="correct"),
    # gradient hooks on the bf16 event classifier that return grad.float() "to accumulate in fp32"
    "event-classifier-bf16-grad-hook-returns-fp32": case(_bf16_event_grad_hook_upcast, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
