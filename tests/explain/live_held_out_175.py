"""Held-out live set 175: sports analytics and player tracking written by hand in low precision (int64 player and
event ids, float64 pitch coordinates from pandas, uint8 broadcast video frames, bool possession masks, fp16 trajectory
encoders, bf16 pitch-control models). Defects planted by a helper who never read the rules, written before castwise ran
and graded once with the rules frozen at aec75894."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "aec75894"

bf16, f16 = torch.bfloat16, torch.float16
_PLAYERS = 22
_PITCH = (105.0, 68.0)


def _seeded() -> None:
    torch.manual_seed(0)


def _tracking_f64(frames: int = 10) -> np.ndarray:
    """What a pandas tracking frame's x/y columns give: float64 metres, frames x players x 2."""
    rng = np.random.default_rng(0)
    return rng.uniform(0.0, 1.0, (frames, _PLAYERS, 2)) * np.array(_PITCH)


# --- integer, bool, index, mask and target defects ---


def _pass_completion_uint8_bce_target() -> None:
    _seeded()
    completed = np.array([1, 0, 1, 1, 0], dtype=np.uint8)  # the provider's 'outcome' column as stored
    probs = torch.sigmoid(torch.randn(5))
    F.binary_cross_entropy(probs, torch.from_numpy(completed))


def _shot_type_int32_cross_entropy_target() -> None:
    _seeded()
    shot_types = np.array([0, 2, 1, 3], dtype=np.int32)  # header/left/right/other codes from a parquet int32 column
    logits = torch.randn(4, 4)
    F.cross_entropy(logits, torch.from_numpy(shot_types))


def _xt_grid_float_zone_index_gather() -> None:
    _seeded()
    xt_grid = torch.rand(12, 8)  # expected-threat value per zone
    x = torch.tensor([10.0, 55.0, 99.0])
    y = torch.tensor([5.0, 30.0, 60.0])
    col = torch.floor(y / (_PITCH[1] / 8))  # stays float
    row = torch.floor(x / (_PITCH[0] / 12))
    torch.gather(xt_grid[row.long()], 1, col[:, None])


def _player_speed_cms_int64_histc() -> None:
    speeds = torch.tensor([120, 340, 560, 810, 95, 700])  # cm/s as the tracking feed sends them, int64
    torch.histc(speeds, bins=10, min=0, max=1000)


def _top_threat_zones_bool_topk() -> None:
    _seeded()
    dangerous = torch.rand(96) > 0.7  # zones above the xT threshold
    dangerous.topk(5)


def _rapm_get_dummies_bool_design_matmul() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    on_pitch = rng.random((6, 10)) > 0.5  # pd.get_dummies of the lineups gives a bool frame
    player_impact = torch.randn(10, 1)
    torch.from_numpy(on_pitch) @ player_impact


def _event_clock_int64_ms_div_in_place() -> None:
    clock = torch.tensor([1_200, 61_500, 3_000_250])  # match clock in ms, int64
    clock.div_(1000)  # to seconds


def _minutes_played_int64_index_put_float_table() -> None:
    table = torch.zeros(_PLAYERS)
    players = torch.tensor([3, 7, 11])
    minutes = torch.tensor([90, 45, 67])  # int64 from the lineup sheet
    table.index_put_((players,), minutes)


def _ball_out_of_play_bool_one_minus() -> None:
    out_of_play = torch.tensor([False, False, True, True, False])
    in_play = 1 - out_of_play
    in_play.sum()


def _broadcast_frame_uint8_player_detector_conv() -> None:
    _seeded()
    frame = torch.randint(0, 256, (1, 3, 32, 48), dtype=torch.uint8)  # decoded broadcast frame, HWC -> CHW
    stem = nn.Conv2d(3, 8, 3, padding=1, bias=False)
    stem(frame)


def _possession_durations_float_repeat_interleave() -> None:
    team_in_possession = torch.tensor([0, 1, 0, 1])
    durations = torch.tensor([12.0, 30.0, 7.0, 18.0])  # frames per possession, float from pandas
    team_in_possession.repeat_interleave(durations)


def _tracking_int64_cm_randn_like_jitter() -> None:
    positions_cm = torch.tensor([[5250, 3400], [1020, 2210], [8800, 600]])  # int64 centimetres
    positions_cm + 15 * torch.randn_like(positions_cm)


# --- floating dtypes meeting, missing kernels, overflow, numpy, gradients ---


def _pitch_control_bf16_mlp_f64_grid() -> None:
    _seeded()
    gx, gy = np.meshgrid(np.linspace(0, _PITCH[0], 21), np.linspace(0, _PITCH[1], 14))
    grid = torch.from_numpy(np.stack([gx.ravel(), gy.ravel()], -1))  # float64 grid points
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1)).to(bf16)
    model(grid)


def _soccermap_f16_conv_fp32_channels() -> None:
    _seeded()
    surfaces = torch.rand(1, 13, 34, 52)  # location, velocity and distance channels built in fp32
    soccermap = nn.Sequential(nn.Conv2d(13, 32, 5, padding=2), nn.ReLU()).half()
    soccermap(surfaces)


def _soccermap_bf16_conv_fp32_bias_reset() -> None:
    _seeded()
    head = nn.Conv2d(32, 1, 1).to(bf16)
    head.bias = nn.Parameter(torch.full((1,), -2.0))  # prior on the pass-success logit, set after the cast
    head(torch.randn(1, 32, 34, 52).to(bf16))


def _pitch_control_bf16_layernorm_fp32_input() -> None:
    _seeded()
    player_features = torch.randn(_PLAYERS, 16)  # speed, direction, distance-to-ball in fp32
    norm = nn.LayerNorm(16).to(bf16)
    norm(player_features)


def _player_gnn_index_add_bf16_messages() -> None:
    _seeded()
    dst = torch.tensor([1, 0, 3, 2, 0])
    with torch.autocast("cpu", dtype=bf16):
        messages = nn.Linear(8, 8)(torch.randn(5, 8))
    aggregated = torch.zeros(_PLAYERS, 8)
    aggregated.index_add_(0, dst, messages)


def _team_max_speed_scatter_reduce_f16() -> None:
    _seeded()
    team = torch.tensor([0, 0, 1, 1, 1])
    speeds = (torch.rand(5) * 9).half()  # fp16 trajectory encoder output
    torch.zeros(2).scatter_reduce_(0, team, speeds, "amax")


def _pitch_homography_dlt_svd_bf16() -> None:
    _seeded()
    a = torch.randn(8, 9).to(bf16)  # DLT system from 4 pitch keypoints, kept in the model's bf16
    torch.linalg.svd(a)


def _ball_flight_parabola_lstsq_bf16() -> None:
    t = torch.linspace(0, 1, 12)
    design = torch.stack([torch.ones_like(t), t, t**2], -1).to(bf16)
    heights = (3 * t - 4.9 * t**2).to(bf16)[:, None]
    torch.linalg.lstsq(design, heights)


def _pressure_quantile_bf16() -> None:
    _seeded()
    pressure = torch.rand(200).to(bf16)  # per-frame pressure from the bf16 pitch-control model
    torch.quantile(pressure, 0.9)


def _missing_frames_f16_pad_sentinel() -> None:
    _seeded()
    track = torch.randn(_PLAYERS, 2, 40).half()  # fp16 trajectory encoder input
    F.pad(track, (0, 10), value=1e5)  # off-camera frames marked far off the pitch


def _pitch_control_surface_bf16_grid_sample_fp32_positions() -> None:
    _seeded()
    surface = torch.rand(1, 1, 34, 52).to(bf16)
    positions = torch.rand(1, _PLAYERS, 1, 2) * 2 - 1  # normalised player positions in fp32
    F.grid_sample(surface, positions, align_corners=False)


def _lineup_embedding_bag_bf16_fp32_minutes_weights() -> None:
    _seeded()
    players = nn.EmbeddingBag(500, 16, mode="sum").to(bf16)
    ids = torch.tensor([12, 44, 301, 7, 99])
    minutes_share = torch.tensor([1.0, 1.0, 0.5, 0.5, 1.0])
    players(ids, torch.tensor([0, 3]), per_sample_weights=minutes_share)


def _formation_gru_bf16_f64_tracks() -> None:
    _seeded()
    tracks = torch.from_numpy(_tracking_f64().reshape(10, -1))[None]
    encoder = nn.GRU(_PLAYERS * 2, 32, batch_first=True).to(bf16)
    encoder(tracks)


def _pitch_control_bmm_bf16_influence_fp32_weights() -> None:
    _seeded()
    influence = torch.rand(4, 364, _PLAYERS).to(bf16)  # per frame: grid cells x players
    team_sign = torch.randn(4, _PLAYERS, 1)
    torch.bmm(influence, team_sign)


def _ema_player_rating_lerp_bf16_fp32() -> None:
    _seeded()
    ratings = torch.randn(_PLAYERS).to(bf16)
    match_ratings = torch.randn(_PLAYERS)
    ratings.lerp_(match_ratings, 0.1)


def _event_timestamps_datetime64_from_numpy() -> None:
    stamps = np.array(["2024-05-01T19:00:01.200", "2024-05-01T19:00:02.400"], dtype="datetime64[ms]")
    torch.from_numpy(stamps)


def _stationary_player_speed_sqrt_anomaly() -> None:
    xy = torch.tensor([[30.0, 20.0], [30.0, 20.0], [31.0, 21.0]], requires_grad=True)
    with torch.autograd.detect_anomaly():
        step = xy[1:] - xy[:-1]
        torch.sqrt((step**2).sum(-1)).sum().backward()


def _defending_team_f16_mask_invert() -> None:
    _seeded()
    attacking = (torch.rand(_PLAYERS) > 0.5).half()  # kept as fp16 beside the trajectory features
    defending = ~attacking
    defending.sum()


CASES: dict[str, LiveCase] = {
    # pass-completion model: BCE on probabilities with the provider's uint8 outcome column as target
    "pass-completion-uint8-bce-target": case(_pass_completion_uint8_bce_target, "target_dtype", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # shot-type classifier: cross_entropy with int32 codes read from parquet
    "shot-type-int32-cross-entropy-target": case(_shot_type_int32_cross_entropy_target, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # xT lookup: zone column computed with floor() and left float, used as a gather index
    "xt-grid-float-zone-index-gather": case(_xt_grid_float_zone_index_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # speed distribution: histc over int64 cm/s speeds from the tracking feed
    "player-speed-cms-int64-histc": case(_player_speed_cms_int64_histc, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # most dangerous zones: topk over a bool threshold mask
    "top-threat-zones-bool-topk": case(_top_threat_zones_bool_topk, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # RAPM: a bool get_dummies lineup design matrix times fp32 player impacts
    "rapm-get-dummies-bool-design-matmul": case(_rapm_get_dummies_bool_design_matmul, "integer_operand", "bool",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # int64 millisecond match clock divided in place to seconds
    "event-clock-int64-ms-div-in-place": case(_event_clock_int64_ms_div_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 minutes from the lineup sheet written into an fp32 per-player table with index_put_
    "minutes-played-int64-index-put-float-table": case(_minutes_played_int64_index_put_float_table,
                                                       "indexed_write_dtype", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # in-play mask made as 1 - a bool out-of-play mask
    "ball-out-of-play-bool-one-minus": case(_ball_out_of_play_bool_one_minus, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # player detector: a decoded uint8 broadcast frame into an fp32 conv stem
    "broadcast-frame-uint8-player-detector-conv": case(_broadcast_frame_uint8_player_detector_conv,
                                                       "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # possession timeline expanded with float durations from pandas
    "possession-durations-float-repeat-interleave": case(_possession_durations_float_repeat_interleave,
                                                         "index_tensor_dtype", "f32", fix=("long",),
        grade="correct", grade_at_freeze="wrong",
        why=('At freeze (aec75894) castwise gave index_tensor_dtype [int64, f32] (high confidence). The repeats of '
             'repeat_interleave (float frame counts from pandas) are data for an op with no Float kernel '
             '("repeat_interleave_cpu" not implemented for \'Float\'): no_kernel, named by the op\'s missing kernel; '
             'castwise read the repeats as an index tensor of the wrong dtype and named int64, which the message '
             'does not show. Expectation corrected after grading (no_kernel to index_tensor_dtype, at registration), '
             'following live_held_out_104, 109 and 165 (repeat_interleave given float repeats is index_tensor_dtype, '
             'the fix `.long()`); the grade at freeze stays as graded.')),
    # augmentation: randn_like of int64 centimetre positions
    "tracking-int64-cm-randn-like-jitter": case(_tracking_int64_cm_randn_like_jitter, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 pitch-control MLP evaluated on a float64 np.meshgrid of pitch points
    "pitch-control-bf16-mlp-f64-grid": case(_pitch_control_bf16_mlp_f64_grid, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SoccerMap halved to fp16 while its input surfaces stay fp32
    "soccermap-f16-conv-fp32-channels": case(_soccermap_f16_conv_fp32_channels, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # SoccerMap head's bias re-set in fp32 after the model was cast to bf16
    "soccermap-bf16-conv-fp32-bias-reset": case(_soccermap_bf16_conv_fp32_bias_reset, "conv_bias_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 LayerNorm over fp32 player features
    "pitch-control-bf16-layernorm-fp32-input": case(_pitch_control_bf16_layernorm_fp32_input, "norm_param_dtype",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # player-graph GNN: autocast bf16 messages index_add_'ed into an fp32 buffer
    "player-gnn-index-add-bf16-messages": case(_player_gnn_index_add_bf16_messages, "indexed_write_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-team max speed: fp16 speeds scatter_reduce'd into an fp32 zeros buffer
    "team-max-speed-scatter-reduce-f16": case(_team_max_speed_scatter_reduce_f16, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # pitch homography from a DLT system kept in bf16, solved by SVD
    "pitch-homography-dlt-svd-bf16": case(_pitch_homography_dlt_svd_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ball-flight parabola fitted with lstsq in bf16
    "ball-flight-parabola-lstsq-bf16": case(_ball_flight_parabola_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # 90th-percentile pressure with quantile over bf16 model output
    "pressure-quantile-bf16": case(_pressure_quantile_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # fp16 tracks padded with a 1e5 off-camera sentinel
    "missing-frames-f16-pad-sentinel-1e5": case(_missing_frames_f16_pad_sentinel, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 pitch-control surface sampled at fp32 player positions with grid_sample
    "pitch-control-surface-bf16-grid-sample-fp32-positions": case(
        _pitch_control_surface_bf16_grid_sample_fp32_positions, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 player EmbeddingBag weighted by fp32 minutes shares
    "lineup-embedding-bag-bf16-fp32-minutes-weights": case(_lineup_embedding_bag_bf16_fp32_minutes_weights,
                                                           "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 formation GRU fed float64 pandas tracks
    "formation-gru-bf16-f64-tracks": case(_formation_gru_bf16_f64_tracks, "rnn_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pitch control: explicit bmm of bf16 influence with fp32 team signs
    "pitch-control-bmm-bf16-influence-fp32-weights": case(_pitch_control_bmm_bf16_influence_fp32_weights,
                                                          "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 player ratings EMA-updated with lerp_ toward fp32 match ratings
    "ema-player-rating-lerp-bf16-fp32": case(_ema_player_rating_lerp_bf16_fp32, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # event timestamps as a datetime64 column handed to torch.from_numpy
    "event-timestamps-datetime64-from-numpy": case(_event_timestamps_datetime64_from_numpy, "numpy_dtype",
                                                   cause=("datetime64",),
        grade="correct", grade_at_freeze="correct"),
    # speed as sqrt of squared steps: a stationary player gives nan gradients under detect_anomaly
    "stationary-player-speed-sqrt-anomaly": case(_stationary_player_speed_sqrt_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # defending mask made with ~ on an fp16 attacking mask
    "defending-team-f16-mask-invert": case(_defending_team_f16_mask_invert, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
}
