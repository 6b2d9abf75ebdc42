"""Held-out live set 81: sports analytics and player tracking written by hand in low precision (event data with int64
timestamps and player/team ids, pitch coordinates in float64 from pandas, expected-goals (xG) and expected-threat
models, pass networks with bool adjacency, tracking-data interpolation and velocities, pitch-control models with a
softmax over players, possession sequences with padding masks, ball-tracking heatmaps, ratings such as Elo and Glicko
updated in place). Defects planted by a helper who never read the rules, written before castwise ran and graded once
with the rules frozen at 1cce96f."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "1cce96f"

bf16, f16 = torch.bfloat16, torch.float16
_PITCH_X, _PITCH_Y = 105.0, 68.0  # metres
_FPS = 25
_SHOT, _PASS, _CARRY, _PAD = 1, 2, 3, 0


def _seeded() -> None:
    torch.manual_seed(0)


def _shots_frame() -> pd.DataFrame:
    """A StatsBomb-style shot table as pandas reads it: coordinates and provider xG as float64."""
    return pd.DataFrame({
        "x": [94.0, 88.5, 99.2, 80.1, 101.3, 92.7],
        "y": [30.1, 40.2, 35.0, 25.6, 37.9, 44.0],
        "is_header": [0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
        "outcome": ["Goal", "Saved", "Off T", "Blocked", "Goal", "Saved"],
        "team_id": [0, 0, 1, 1, 0, 1],
        "statsbomb_xg": [0.21, 0.05, 0.33, 0.02, 0.41, 0.08],
    })


def _shot_features(shots: pd.DataFrame) -> pd.DataFrame:
    dx = _PITCH_X - shots["x"]
    dy = (_PITCH_Y / 2 - shots["y"]).abs()
    return pd.DataFrame({
        "distance": np.hypot(dx, dy),
        "angle": np.arctan2(7.32 * dx, dx**2 + dy**2 - (7.32 / 2) ** 2),
        "is_header": shots["is_header"],
    })


# --- event data: ids, timestamps, possessions


def _possession_starts_from_bool_ball_in_play() -> None:
    ball_state = np.array(["Dead", "Alive", "Alive", "Alive", "Dead", "Dead", "Alive", "Alive"])
    in_play = torch.from_numpy(ball_state == "Alive")
    starts = (in_play[1:] - in_play[:-1]) == 1  # +1 where the ball comes alive
    starts.nonzero()


def _player_ids_with_nan_into_embedding() -> None:
    _seeded()
    events = pd.DataFrame({
        "type": ["Half Start", "Pass", "Carry", "Pass", "Shot", "Half End"],
        "player_id": [np.nan, 5503, 5470, 5503, 6379, np.nan],  # no player on the period markers: pandas makes float64
    })
    lookup = {pid: i + 1 for i, pid in enumerate(sorted(events["player_id"].dropna().unique()))}
    index = events["player_id"].map(lookup).fillna(0).to_numpy()
    players = nn.Embedding(len(lookup) + 1, 16, padding_idx=0)
    players(torch.from_numpy(index))


def _xt_lookup_with_floor_divided_zones() -> None:
    _seeded()
    xt_grid = torch.rand(12, 8) * 0.2  # expected threat per 12 x 8 zone
    start_x = torch.tensor([34.0, 61.5, 88.0])
    start_y = torch.tensor([12.0, 40.3, 30.0])
    zone_x = (start_x // (_PITCH_X / 12)).clamp(max=11)
    zone_y = (start_y // (_PITCH_Y / 8)).clamp(max=7)
    xt_grid[zone_x, zone_y]


def _first_shot_of_each_possession_argmax_bool() -> None:
    events = torch.tensor([
        [_PASS, _PASS, _CARRY, _SHOT, _PAD, _PAD],
        [_PASS, _SHOT, _PASS, _SHOT, _PAD, _PAD],
        [_CARRY, _PASS, _PASS, _PASS, _PASS, _SHOT],
    ])
    is_shot = events == _SHOT
    first_shot = is_shot.argmax(dim=1)  # index of the first True
    first_shot.tolist()


def _unix_ms_timestamps_into_int32() -> None:
    feed = [1717171717000, 1717171717040, 1717171717080, 1717171717120]  # epoch milliseconds from the event feed
    stamps = torch.tensor(feed, dtype=torch.int32)  # "ids and times fit in 32 bits"
    stamps - stamps[0]


def _opta_qualifier_bitflags_after_half_batch_cast() -> None:
    header_bit, big_chance_bit = 1 << 2, 1 << 5
    batch = {
        "xy": torch.tensor([[88.0, 30.0], [95.0, 36.0], [79.0, 41.0]]),
        "qualifiers": torch.tensor([header_bit, big_chance_bit, header_bit | big_chance_bit]),
    }
    batch = {key: value.half() for key, value in batch.items()}  # the whole batch halved for the fp16 xG model
    is_header = (batch["qualifiers"] & header_bit) > 0
    is_header.sum()


def _possession_sequences_float_key_padding_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)  # attention pooling over a possession
    embed = nn.Embedding(4, 16).to(bf16)
    tokens = torch.tensor([[_PASS, _CARRY, _SHOT, _PAD, _PAD], [_PASS, _PASS, _PASS, _CARRY, _SHOT]])
    events = embed(tokens)
    padding = (tokens == _PAD).float()  # 1.0 where padded
    attention(events, events, events, key_padding_mask=padding)


def _possession_gru_bf16_fp32_event_features() -> None:
    _seeded()
    encoder = nn.GRU(6, 32, batch_first=True).to(bf16)
    sequences = [torch.randn(7, 6), torch.randn(4, 6), torch.randn(9, 6)]  # x, y, end_x, end_y, dt, type
    batch = nn.utils.rnn.pad_sequence(sequences, batch_first=True)
    encoder(batch)


# --- xG, xT and match outcome models


def _xg_logistic_regression_on_pandas_features() -> None:
    _seeded()
    features = torch.from_numpy(_shot_features(_shots_frame()).to_numpy())
    xg_model = nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())
    xg_model(features)


def _xg_bce_with_bool_goal_labels() -> None:
    _seeded()
    shots = _shots_frame()
    is_goal = torch.from_numpy(shots["outcome"].eq("Goal").to_numpy())
    logits = nn.Linear(3, 1)(torch.randn(len(shots), 3)).squeeze(-1)
    F.binary_cross_entropy_with_logits(logits, is_goal)


def _xt_value_iteration_einsum_numpy_transitions() -> None:
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 50, size=(12, 8, 12, 8)).astype(float)
    transitions = torch.from_numpy(counts / counts.sum(axis=(2, 3), keepdims=True))
    shoot_prob, move_prob = torch.full((12, 8), 0.05), torch.full((12, 8), 0.9)
    goal_prob = torch.rand(12, 8, generator=torch.Generator().manual_seed(0)) * 0.1
    xt = torch.zeros(12, 8)
    for _ in range(5):
        xt = shoot_prob * goal_prob + move_prob * torch.einsum("xyuv,uv->xy", transitions, xt)


def _shot_map_histogramdd_xg_weights() -> None:
    _seeded()
    shots = _shots_frame()
    xy = torch.from_numpy(shots[["x", "y"]].to_numpy())
    xg = torch.sigmoid(torch.randn(len(shots)))  # the in-house model's xG
    torch.histogramdd(xy, bins=[12, 8], range=[0.0, _PITCH_X, 0.0, _PITCH_Y], weight=xg)


def _team_xg_totals_scatter_add_provider_xg() -> None:
    shots = _shots_frame()
    team = torch.from_numpy(shots["team_id"].to_numpy())
    provider_xg = torch.from_numpy(shots["statsbomb_xg"].to_numpy())
    team_xg = torch.zeros(2)
    team_xg.scatter_add_(0, team, provider_xg)


def _league_table_tiebreak_rand_like_on_int_points() -> None:
    _seeded()
    results = torch.randint(0, 3, (20, 38))  # 0 loss, 1 draw, 2 win per simulated match
    points = torch.where(results == 2, 3, results).sum(1)
    jitter = 1e-3 * torch.rand_like(points)  # random tie-break
    (points + jitter).argsort(descending=True)


# --- pass networks


def _pass_network_centrality_bool_adjacency() -> None:
    _seeded()
    counts = torch.randint(0, 12, (11, 11))
    adjacency = counts >= 3  # an edge where a pair made at least three passes
    centrality = torch.full((11,), 1 / 11)
    for _ in range(20):
        centrality = adjacency @ centrality
        centrality = centrality / centrality.norm()


def _pass_receiver_bilinear_bf16_passer_embedding() -> None:
    _seeded()
    players = nn.Embedding(30, 8).to(bf16)  # the player table kept in bf16 to save memory
    passer = players(torch.tensor([4, 9, 17]))
    receiver_context = torch.randn(3, 8)  # receiver's position, speed and marking distance
    score = nn.Bilinear(8, 8, 1)
    score(passer, receiver_context)


# --- tracking data


def _tracab_int16_centimetres_speed() -> None:
    positions = np.array([[[1520, -830], [-2210, 450]], [[1544, -826], [-2198, 471]], [[1570, -821], [-2183, 490]]],
                         dtype=np.int16)  # frames x players x (x, y) in cm, as the .dat file stores them
    displacement = torch.diff(torch.from_numpy(positions), dim=0)
    speed = torch.linalg.vector_norm(displacement, dim=-1) * _FPS / 100  # m/s
    speed.max()


def _tracking_gap_interpolation_int64_columns() -> None:
    frame = pd.DataFrame({"home_1_x": [1520, 1544, 1570, 1601], "home_1_y": [-830, -826, -821, -815],
                          "ball_x": [300, 412, 530, 651], "ball_y": [20, 18, 15, 11]})  # 12.5 Hz feed, integer cm
    tracks = torch.from_numpy(frame.to_numpy().T.copy())[None]  # (1, channels, frames)
    F.interpolate(tracks, scale_factor=2, mode="linear", align_corners=True)  # up to 25 Hz


def _frame_interpolation_lerp_fp32_weight() -> None:
    _seeded()
    frames = torch.randn(2, 23, 2).to(bf16) * 30  # tracking cache in bf16: two frames, 22 players and the ball
    frame_ts = torch.tensor([1717171717000, 1717171717040])
    event_ts = torch.tensor([1717171717013])
    weight = (event_ts - frame_ts[0]) / (frame_ts[1] - frame_ts[0])  # fraction between the two frames
    torch.lerp(frames[0], frames[1], weight)


def _nearest_defender_cdist_bf16() -> None:
    _seeded()
    with torch.autocast("cpu", dtype=bf16):
        positions = nn.Linear(4, 2)(torch.randn(22, 4))  # a bf16 trajectory model's predicted positions
    attackers, defenders = positions[:11], positions[11:]
    torch.cdist(attackers, defenders).min(dim=1)


def _player_set_encoder_layer_norm_first() -> None:
    _seeded()
    encoder = nn.Sequential(nn.LayerNorm(5), nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 32)).to(bf16)
    per_player = torch.randn(2, 22, 5)  # x, y, vx, vy, team as fp32 from the tracking loader
    encoder(per_player).amax(dim=1)  # DeepSets pooling over players


# --- pitch control


def _pitch_control_softmax_over_integer_arrival_frames() -> None:
    _seeded()
    players = torch.rand(22, 2) * torch.tensor([_PITCH_X, _PITCH_Y])
    grid = torch.stack(torch.meshgrid(torch.linspace(0, _PITCH_X, 32), torch.linspace(0, _PITCH_Y, 21), indexing="ij"),
                       -1)
    distance = (grid[None] - players[:, None, None]).norm(dim=-1)
    arrival_frames = torch.ceil(distance / 7.0 * _FPS).long()  # frames to reach each cell at 7 m/s
    torch.softmax(-arrival_frames, dim=0)


def _pitch_control_fp16_centimetres_categorical() -> None:
    players = torch.tensor([[1520, -830], [-2210, 450], [310, 1200], [4100, -2000], [-400, -150], [2600, 900]],
                           dtype=torch.int16).half()  # Tracab cm, halved with the rest of the pitch-control inputs
    cells = torch.tensor([[0.0, 0.0], [3000.0, 1500.0], [-4500.0, -2500.0]], dtype=f16)
    sigma = torch.tensor(400.0, dtype=f16)
    sq_distance = ((cells[:, None] - players[None]) ** 2).sum(-1)
    control = torch.softmax(-sq_distance / (2 * sigma**2), dim=-1)
    torch.distributions.Categorical(probs=control).sample()  # who reaches each cell first


def _pitch_control_surface_bf16_to_numpy() -> None:
    _seeded()
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        surface = torch.sigmoid(nn.Linear(8, 32 * 21)(torch.randn(1, 8))).view(32, 21)  # learned pitch control
    surface.numpy()  # for mplsoccer's heatmap


# --- ball tracking


def _tracknet_uint8_stacked_frames() -> None:
    _seeded()
    frames = torch.randint(0, 256, (3, 3, 36, 64), dtype=torch.uint8)  # three consecutive decoded RGB frames
    stacked = frames.reshape(1, 9, 36, 64)
    stem = nn.Conv2d(9, 16, 3, padding=1)
    stem(stacked)


def _ball_heatmap_head_added_after_bf16_cast() -> None:
    _seeded()
    backbone = nn.Sequential(nn.Conv2d(9, 16, 3, stride=2, padding=1), nn.ReLU()).to(bf16)
    head = nn.ConvTranspose2d(16, 1, 4, stride=2, padding=1)  # new heatmap head, added after the cast
    head(backbone(torch.rand(1, 9, 36, 64).to(bf16)))


# --- ratings


def _player_ratings_int_scaled_by_form_in_place() -> None:
    overall = torch.tensor([84, 79, 91, 73, 68])  # FIFA-style 0-99 ratings
    form = torch.tensor([1.02, 0.97, 1.00, 1.05, 0.94])
    overall.mul_(form)


def _elo_int_ratings_written_back_by_index() -> None:
    ratings = torch.full((20,), 1500)  # an int64 table: 1500 is an int
    home, away = torch.tensor([0, 3, 7]), torch.tensor([5, 1, 2])
    score = torch.tensor([1.0, 0.5, 0.0])
    expected = 1 / (1 + 10 ** ((ratings[away] - ratings[home]) / 400))
    ratings[home] = ratings[home] + 20 * (score - expected)


def _glicko_variance_fp16_table() -> None:
    n_players = 1000
    rating = torch.full((n_players,), 1500.0, dtype=f16)  # half precision to keep an amateur league's table small
    variance = torch.full((n_players,), 350.0**2, dtype=f16)  # initial RD 350, stored squared
    rating + variance


def _bradley_terry_numpy_gradient_assigned() -> None:
    strength = nn.Parameter(torch.zeros(4))
    wins = np.array([[0, 3, 1, 2], [1, 0, 2, 2], [2, 1, 0, 3], [0, 1, 1, 0]], dtype=float)
    s = strength.detach().numpy().astype(float)
    p = 1 / (1 + np.exp(s[None] - s[:, None]))  # analytic gradient of the Bradley-Terry log-likelihood in numpy
    grad = -(wins * (1 - p)).sum(1) + (wins.T * (1 - p.T)).sum(1)
    strength.grad = torch.from_numpy(grad)
    torch.optim.SGD([strength], lr=0.1).step()


CASES: dict[str, LiveCase] = {
    # --- event data: ids, timestamps, possessions
    # possession starts from the bool ball-in-play flag by subtracting consecutive frames
    "possession-starts-bool-in-play-minus": case(_possession_starts_from_bool_ball_in_play, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # event player ids with NaN on period markers (pandas float64) mapped and fed to nn.Embedding
    "player-ids-nan-float64-embedding": case(_player_ids_with_nan_into_embedding, "index_tensor_dtype", "f64",
                                             fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # expected-threat zone lookup with zones from floor division of float coordinates
    "xt-zone-floor-divided-float-index": case(_xt_lookup_with_floor_divided_zones, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the first shot of each padded possession by argmax over the bool is-shot mask
    "first-shot-argmax-bool-mask": case(_first_shot_of_each_possession_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # epoch-millisecond event timestamps put into an int32 tensor
    "unix-ms-timestamps-int32-overflow": case(_unix_ms_timestamps_into_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # Opta qualifier bit flags halved with the rest of the batch, then tested with &
    "opta-qualifier-bitflags-half-and": case(_opta_qualifier_bitflags_after_half_batch_cast, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling over a possession in bf16 MultiheadAttention given a float 0/1 padding mask in fp32
    "possession-encoder-float-key-padding-mask": case(_possession_sequences_float_key_padding_mask,
                                                      "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # possession sequences padded in fp32 into a GRU encoder cast to bf16
    "possession-gru-bf16-fp32-events": case(_possession_gru_bf16_fp32_event_features, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- xG, xT and match outcome models
    # xG logistic regression on distance/angle features from a pandas shot table (float64)
    "xg-logreg-pandas-f64-features": case(_xg_logistic_regression_on_pandas_features, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # xG trained with BCEWithLogits on a bool is-goal column
    "xg-bce-bool-goal-labels": case(_xg_bce_with_bool_goal_labels, "target_dtype", "bool", fix=("float",),
        grade="correct", grade_at_freeze="correct"),
    # expected-threat value iteration: numpy float64 transition matrix einsum'd with an fp32 xT grid
    "xt-value-iteration-einsum-f64-transitions": case(_xt_value_iteration_einsum_numpy_transitions, "matmul_dtype",
                                                      "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # shot map as histogramdd of float64 pandas coordinates weighted by the model's fp32 xG
    "shot-map-histogramdd-f64-xy-f32-xg": case(_shot_map_histogramdd_xg_weights, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-team xG totals: provider xG (float64 column) scatter_add_'ed into an fp32 zeros buffer
    "team-xg-scatter-add-provider-f64": case(_team_xg_totals_scatter_add_provider_xg, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # simulated league table tie-broken with rand_like on int64 points
    "league-table-tiebreak-rand-like-int-points": case(_league_table_tiebreak_rand_like_on_int_points, "no_kernel",
                                                       "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- pass networks
    # eigenvector centrality by power iteration on a bool pass adjacency times an fp32 vector
    "pass-network-centrality-bool-adjacency": case(_pass_network_centrality_bool_adjacency, "integer_operand",
                                                   "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pass-receiver scoring: bf16 passer embedding and fp32 receiver context into nn.Bilinear
    "pass-receiver-bilinear-bf16-passer": case(_pass_receiver_bilinear_bf16_passer_embedding, "op_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- tracking data
    # speeds from Tracab int16 centimetre positions with vector_norm of the frame differences
    "tracab-int16-cm-speed-vector-norm": case(_tracab_int16_centimetres_speed, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # 12.5 Hz integer tracking columns from pandas (int64) upsampled with linear interpolate
    "tracking-int64-columns-linear-interpolate": case(_tracking_gap_interpolation_int64_columns, "integer_operand",
                                                      "int64",
        grade="correct", grade_at_freeze="correct"),
    # positions at an event time by lerp between bf16 cached frames with an fp32 fraction
    "event-frame-lerp-bf16-frames-f32-fraction": case(_frame_interpolation_lerp_fp32_weight, "lerp_dtype", "bf16",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # nearest-defender distances with cdist on a bf16 trajectory model's positions
    "nearest-defender-cdist-bf16": case(_nearest_defender_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DeepSets player encoder cast to bf16, its first LayerNorm given fp32 per-player features
    "player-set-encoder-layer-norm-bf16": case(_player_set_encoder_layer_norm_first, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- pitch control
    # pitch control as a softmax over players of int64 arrival frames
    "pitch-control-softmax-int-arrival-frames": case(_pitch_control_softmax_over_integer_arrival_frames,
                                                     "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # pitch control in fp16 on centimetre coordinates: squared distances overflow, NaN probabilities to Categorical
    "pitch-control-f16-centimetres-categorical-nan": case(_pitch_control_fp16_centimetres_categorical, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a learned bf16 pitch-control surface handed to numpy for plotting
    "pitch-control-surface-bf16-numpy": case(_pitch_control_surface_bf16_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- ball tracking
    # TrackNet: three uint8 RGB frames stacked to nine channels into a float Conv2d
    "tracknet-uint8-stacked-frames-conv": case(_tracknet_uint8_stacked_frames, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a ConvTranspose2d heatmap head added in fp32 after the backbone was cast to bf16
    "ball-heatmap-conv-transpose-head-fp32": case(_ball_heatmap_head_added_after_bf16_cast, "conv_weight_dtype",
                                                  "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- ratings
    # int64 FIFA-style player ratings scaled by a float form factor in place
    "player-ratings-int-mul-form-in-place": case(_player_ratings_int_scaled_by_form_in_place, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # Elo ratings from torch.full(..., 1500) (int64) written back by advanced indexing with float updates
    "elo-int-ratings-index-write-back": case(_elo_int_ratings_written_back_by_index, "indexed_write_dtype", "int64",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # Glicko rating variance (RD 350 squared) in an fp16 table
    "glicko-variance-f16-full-overflow": case(_glicko_variance_fp16_table, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Bradley-Terry strengths: a numpy float64 analytic gradient assigned to the fp32 parameter's .grad
    "bradley-terry-numpy-gradient-assigned": case(_bradley_terry_numpy_gradient_assigned, "loss_dtype", "f64",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
}
