"""Held-out live set 148: sports analytics and player tracking written by hand in low precision (player positions as
float64 coordinates, int64 player and team ids, bool possession flags, bf16 transformers over event sequences,
expected-goals logistic heads, fp16 trajectory models). Defects planted by a helper who never read the rules, written
before castwise ran and graded once with the rules frozen at af2f111c."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "af2f111c"

bf16, f16 = torch.bfloat16, torch.float16
_PLAYERS = 22  # both teams on the pitch, ball excluded
_FRAMES = 25  # one second of 25 Hz tracking
_EVENT_TYPES = 33  # pass, carry, shot, tackle, ... as in an event-data provider's vocabulary
_D = 32


def _seeded() -> None:
    torch.manual_seed(0)


def _tracking_frames(frames: int = _FRAMES) -> np.ndarray:
    """Player positions in metres as a tracking loader returns them: float64, (frames, players, xy) on a 105 x 68
    pitch centred on the centre spot."""
    rng = np.random.default_rng(0)
    start = rng.uniform((-50.0, -32.0), (50.0, 32.0), size=(_PLAYERS, 2))
    steps = rng.normal(0.0, 0.2, size=(frames, _PLAYERS, 2))
    return start + np.cumsum(steps, axis=0)


def _team_ids() -> torch.Tensor:
    """int64 team ids per player slot (home 0, away 1), as read from the lineup table."""
    return torch.tensor([0] * 11 + [1] * 11)


def _event_sequences(batch: int = 2, length: int = 12) -> torch.Tensor:
    """int64 event-type tokens of possession sequences."""
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, _EVENT_TYPES, (batch, length), generator=g)


class _TrajectoryConv(nn.Module):
    """A temporal Conv1d encoder over (x, y) tracks and a linear decoder of the next positions."""

    def __init__(self, horizon: int = 5) -> None:
        super().__init__()
        self.conv = nn.Conv1d(2, 16, 3, padding=1)
        self.head = nn.Linear(16, 2 * horizon)

    def forward(self, tracks: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.conv(tracks)).mean(-1))


# --- ids, flags, masks and targets



def _teammate_mask_int_in_masked_fill() -> None:
    positions = torch.from_numpy(_tracking_frames()[-1]).float()
    teams = _team_ids()
    same_team = (teams[:, None] == teams[None, :]).int()  # made int "to sum it later"
    distances = torch.cdist(positions, positions)
    nearest_opponent = distances.masked_fill(same_team, float("inf")).min(1).values
    nearest_opponent.mean()


def _possession_transformer_long_key_padding_mask() -> None:
    _seeded()
    tokens = _event_sequences()
    padding = torch.zeros(2, 12, dtype=torch.long)
    padding[1, 8:] = 1  # the collate function pads with 1 where the possession has ended
    embed = nn.Embedding(_EVENT_TYPES, _D)
    attention = nn.MultiheadAttention(_D, 4, batch_first=True)
    x = embed(tokens)
    attention(x, x, x, key_padding_mask=padding)


def _pass_outcome_int8_nll_target() -> None:
    _seeded()
    logits = torch.randn(6, 3)  # completed, intercepted, out of play
    outcomes = torch.from_numpy(np.array([0, 0, 1, 2, 0, 1], dtype=np.int8))  # the event file's compact outcome codes
    F.nll_loss(logits.log_softmax(-1), outcomes)



def _sprint_flags_bool_max_pool() -> None:
    speeds = torch.from_numpy(np.linalg.norm(np.diff(_tracking_frames(50), axis=0), axis=-1) * 25.0).float()
    sprinting = (speeds > 7.0).T[:, None]  # (players, 1, frames) bool
    F.max_pool1d(sprinting, kernel_size=5, stride=1)  # dilate sprints by two frames each side



def _pass_network_integer_counts_normalize() -> None:
    g = torch.Generator().manual_seed(0)
    passes = torch.randint(0, 11, (200, 2), generator=g)  # passer, receiver slots of one team
    counts = torch.zeros(11, 11, dtype=torch.long)
    counts.index_put_((passes[:, 0], passes[:, 1]), torch.ones(200, dtype=torch.long), accumulate=True)
    F.normalize(counts, p=1, dim=1)  # pass-probability matrix for the Markov chain


def _positions_centimetres_to_metres_in_place() -> None:
    rng = np.random.default_rng(0)
    positions = torch.from_numpy(rng.integers(-5250, 5250, size=(_FRAMES, _PLAYERS, 2)))  # int64 centimetres
    positions.mul_(0.01)


def _possession_flag_written_into_float_features() -> None:
    features = torch.zeros(_FRAMES, 4)  # x, y, speed, in_possession
    in_possession = torch.rand(_FRAMES) > 0.5
    features[torch.arange(_FRAMES), torch.full((_FRAMES,), 3)] = in_possession



def _match_result_f64_cross_entropy_target() -> None:
    _seeded()
    logits = torch.randn(4, 3)  # home win, draw, away win
    results = np.array([0.0, 2.0, 1.0, 0.0])  # the result column of a pandas fixtures table, float64 after a merge
    F.cross_entropy(logits, torch.from_numpy(results))


def _substitute_ids_int16_index_select() -> None:
    _seeded()
    player_table = nn.Parameter(torch.randn(40, _D))  # squad-wide player embeddings
    substitutes = torch.from_numpy(np.array([23, 31, 17], dtype=np.int16))  # squad numbers from the lineup feed
    player_table.index_select(0, substitutes)


# --- event-sequence transformers in bf16


def _event_transformer_bf16_fp32_embeddings() -> None:
    _seeded()
    embed = nn.Embedding(_EVENT_TYPES, _D)
    layer = nn.TransformerEncoderLayer(_D, 4, 64, dropout=0.1, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).to(bf16)  # embedding left out of .to()
    encoder(embed(_event_sequences()))


def _event_transformer_causal_mask_fp32() -> None:
    _seeded()
    attention = nn.MultiheadAttention(_D, 4, batch_first=True).to(bf16)
    x = torch.randn(2, 12, _D, dtype=bf16)
    causal = nn.Transformer.generate_square_subsequent_mask(12)  # fp32 -inf/0 mask
    attention(x, x, x, attn_mask=causal)



def _player_queries_sdpa_bf16_fp32_keys() -> None:
    _seeded()
    ball_query = torch.randn(1, 4, 1, 8, dtype=bf16)  # the bf16 ball-carrier token
    player_keys = torch.randn(1, 4, _PLAYERS, 8)  # cached per-frame player keys, kept fp32
    F.scaled_dot_product_attention(ball_query, player_keys, player_keys)


def _autocast_event_encoder_into_fp32_xg_head() -> None:
    _seeded()
    embed = nn.Embedding(_EVENT_TYPES, _D)
    encoder = nn.Linear(_D, _D)
    xg_head = nn.Linear(_D, 1)
    with torch.autocast("cpu", dtype=bf16):
        states = torch.tanh(encoder(embed(_event_sequences())))
    xg_head(states[:, -1])  # the head run after the autocast block, on its bf16 output


# --- expected-goals heads


def _xg_head_bf16_bce_fp32_goals() -> None:
    _seeded()
    head = nn.Linear(6, 1).to(bf16)
    shots = torch.randn(16, 6, dtype=bf16)
    goals = (torch.rand(16) < 0.1).float()
    F.binary_cross_entropy(torch.sigmoid(head(shots)).squeeze(-1), goals)


def _marking_assignment_cdist_f64_home_f32_away() -> None:
    frame = _tracking_frames()[-1]
    home = torch.from_numpy(frame[:11])  # float64 from the tracking loader
    away = torch.from_numpy(frame[11:]).float()  # went through the fp32 model's preprocessing
    torch.cdist(home, away).argmin(1)



# --- fp16 trajectory models


def _trajectory_lstm_f16_fp32_tracks() -> None:
    _seeded()
    lstm = nn.LSTM(2, 16, batch_first=True).half()
    tracks = torch.from_numpy(_tracking_frames()).float().permute(1, 0, 2)  # (players, frames, xy)
    lstm(tracks)


def _trajectory_conv1d_f16_numpy_f64_positions() -> None:
    _seeded()
    model = _TrajectoryConv().half()
    tracks = torch.from_numpy(_tracking_frames()).permute(1, 2, 0)  # (players, xy, frames), float64
    model(tracks)


def _trajectory_conv1d_bias_kept_fp32() -> None:
    _seeded()
    weight = torch.randn(16, 2, 3).half()  # the checkpoint's conv weight, halved by hand
    bias = torch.zeros(16)  # the bias made fresh at load time
    tracks = torch.from_numpy(_tracking_frames()).half().permute(1, 2, 0)
    F.conv1d(tracks, weight, bias, padding=1)


def _social_pooling_bmm_f16_hidden_f32_weights() -> None:
    _seeded()
    hidden = torch.randn(1, _PLAYERS, 16, dtype=f16)  # fp16 LSTM hidden states per player
    positions = torch.from_numpy(_tracking_frames()[-1]).float()
    weights = torch.softmax(-torch.cdist(positions, positions), -1)[None]  # fp32 proximity weights
    torch.bmm(weights, hidden)



def _stgcn_einsum_bf16_features_fp32_adjacency() -> None:
    _seeded()
    features = torch.randn(2, 8, _FRAMES, _PLAYERS, dtype=bf16)  # (batch, channels, frames, players)
    teams = _team_ids()
    adjacency = (teams[:, None] == teams[None]).float() / 11.0  # teammates graph, fp32
    torch.einsum("nctv,vw->nctw", features, adjacency)



def _kalman_gain_solve_f16() -> None:
    _seeded()
    innovation_cov = (torch.eye(4) * 0.5 + 0.01).half()  # ball state covariance kept in fp16 with the model
    cross_cov = torch.randn(4, 4).half()
    torch.linalg.solve(innovation_cov, cross_cov)


def _team_shape_pca_eigh_bf16() -> None:
    positions = torch.from_numpy(_tracking_frames()[-1, :11]).to(bf16)
    centred = positions - positions.mean(0)
    torch.linalg.eigh(centred.T @ centred / 10)



def _formation_group_norm_f64_positions() -> None:
    _seeded()
    norm = nn.GroupNorm(2, _PLAYERS)  # one group per team over the player channels
    formation = torch.from_numpy(_tracking_frames()[..., 0])  # (frames, players) x coordinates, float64
    norm(formation)


# --- overflow, numpy, gradients, NaN


def _frame_index_int16_full_match() -> None:
    frames = torch.zeros(4, dtype=torch.int16)
    frames.fill_(90 * 60 * 25 + 5 * 60 * 25)  # last frame of a 90 + 5 minute match at 25 Hz


def _offside_distances_f16_masked_fill() -> None:
    positions = torch.from_numpy(_tracking_frames()[-1]).half()
    teams = _team_ids()
    dx = positions[:, None, 0] - positions[None, :, 0]
    same_team = teams[:, None] == teams[None, :]
    dx.masked_fill(same_team, 1e5)  # "far away" for teammates, in centimetres of the old pipeline


def _xg_bf16_into_pandas_column() -> None:
    _seeded()
    head = nn.Linear(6, 1).to(bf16)
    xg = torch.sigmoid(head(torch.randn(5, 6, dtype=bf16))).squeeze(-1)
    np.asarray(xg.detach())


def _nullable_jersey_numbers_object_array() -> None:
    jersey = np.array([7, 10, None, 4], dtype=object)  # pandas Int64 column with <NA> for an unlisted sub
    torch.from_numpy(jersey)




def _mdn_f16_sigma_overflow_normal() -> None:
    _seeded()
    log_sigma = torch.tensor([2.0, 12.0, 3.0], dtype=f16)  # an fp16 mixture-density head on a bad batch
    mu = torch.tensor([1.0, 2.0, 3.0], dtype=f16)
    sigma = log_sigma.exp()  # exp(12) overflows fp16 to inf
    loc = mu + sigma - sigma
    torch.distributions.Normal(loc.float(), sigma.float())



def _trajectory_f16_gradscaler_unscale() -> None:
    _seeded()
    model = _TrajectoryConv().half()  # the whole trajectory model halved to fit long tracking windows
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    tracks = torch.from_numpy(_tracking_frames()).half().permute(1, 2, 0)
    loss = model(tracks).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _shard_averaged_fp32_gradient_assigned_to_bf16() -> None:
    _seeded()
    weight = nn.Parameter(torch.randn(6, dtype=bf16))  # bf16 xG head weights
    shard_grads = [torch.randn(6) for _ in range(4)]  # per-match-shard gradients, accumulated in fp32
    weight.grad = torch.stack(shard_grads).mean(0)


CASES: dict[str, LiveCase] = {
    # --- ids, flags, masks and targets
    # same-team mask made .int() "to sum it later", given to masked_fill to skip teammates in nearest-opponent distances
    "nearest-opponent-int-teammate-mask": case(_teammate_mask_int_in_masked_fill, "mask_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # possession-sequence attention given the collate's int64 0/1 padding mask as key_padding_mask
    "possession-attention-int64-key-padding-mask": case(_possession_transformer_long_key_padding_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # pass outcomes kept as int8 codes from the event file used as nll_loss targets
    "pass-outcome-int8-nll-target": case(_pass_outcome_int8_nll_target, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # home/draw/away labels from a pandas fixtures column that became float64 after a merge, into cross_entropy
    "match-result-f64-cross-entropy-target": case(_match_result_f64_cross_entropy_target, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bool sprint flags dilated in time with max_pool1d
    "sprint-flags-bool-max-pool-dilation": case(_sprint_flags_bool_max_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int64 pass counts of a pass network row-normalised with F.normalize(p=1) for a Markov chain
    "pass-counts-int64-normalize-markov": case(_pass_network_integer_counts_normalize, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 centimetre positions converted to metres in place with mul_(0.01)
    "positions-int64-cm-to-metres-mul-in-place": case(_positions_centimetres_to_metres_in_place, "result_cast",
                                                       "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # bool in-possession flags written by advanced indexing into an fp32 per-frame feature table
    "possession-flags-bool-index-put-features": case(_possession_flag_written_into_float_features,
                                                     "indexed_write_dtype", "f32", "bool",
        grade="correct", grade_at_freeze="correct"),
    # substitutes' squad numbers as int16 from the lineup feed, index_select'ed from the player table
    "substitute-ids-int16-index-select": case(_substitute_ids_int16_index_select, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- event-sequence transformers in bf16
    # event encoder cast to bf16 without its embedding, which stays fp32 and feeds it
    "event-encoder-bf16-fp32-embedding-left-out": case(_event_transformer_bf16_fp32_embeddings, "matmul_dtype", "f32",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 event self-attention given generate_square_subsequent_mask's fp32 causal mask
    "event-attention-fp32-causal-mask-bf16": case(_event_transformer_causal_mask_fp32, "attn_mask_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 output of an autocast event encoder fed to the fp32 xG head after the autocast block
    "autocast-event-encoder-fp32-xg-head": case(_autocast_event_encoder_into_fp32_xg_head, "matmul_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 ball-carrier query attending over cached fp32 player keys with scaled_dot_product_attention
    "ball-carrier-sdpa-bf16-query-fp32-player-keys": case(_player_queries_sdpa_bf16_fp32_keys, "sdpa_dtype", "bf16",
                                                          "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- expected-goals heads
    # bf16 xG logistic head's probabilities in binary_cross_entropy against fp32 goal labels
    "xg-head-bf16-bce-fp32-goals": case(_xg_head_bf16_bce_fp32_goals, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # marking assignment by cdist of float64 home positions and fp32 preprocessed away positions
    "marking-assignment-cdist-f64-f32": case(_marking_assignment_cdist_f64_home_f32_away, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- fp16 trajectory models
    # fp16 trajectory LSTM fed fp32 past tracks
    "trajectory-lstm-f16-fp32-tracks": case(_trajectory_lstm_f16_fp32_tracks, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # halved Conv1d trajectory model given float64 tracks straight from torch.from_numpy
    "trajectory-conv1d-f16-model-f64-tracks": case(_trajectory_conv1d_f16_numpy_f64_positions, "conv_weight_dtype",
                                                   "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # checkpoint conv weight halved by hand, its bias made fresh in fp32, in F.conv1d over fp16 tracks
    "trajectory-conv1d-fresh-fp32-bias": case(_trajectory_conv1d_bias_kept_fp32, "conv_bias_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # social pooling: fp32 proximity weights bmm'd with fp16 per-player LSTM states
    "social-pooling-bmm-fp32-weights-f16-states": case(_social_pooling_bmm_f16_hidden_f32_weights,
                                                       "batched_matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # ST-GCN over players: bf16 features einsum'd with an fp32 teammate adjacency
    "stgcn-einsum-bf16-features-fp32-adjacency": case(_stgcn_einsum_bf16_features_fp32_adjacency, "matmul_dtype",
                                                      "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # formation encoder: GroupNorm (one group per team) given float64 x coordinates
    "formation-group-norm-f64-coordinates": case(_formation_group_norm_f64_positions, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # ball Kalman filter gain with linalg.solve on an fp16 innovation covariance
    "ball-kalman-gain-solve-f16": case(_kalman_gain_solve_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # team-shape PCA with linalg.eigh of a bf16 position covariance
    "team-shape-pca-eigh-bf16": case(_team_shape_pca_eigh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- overflow, numpy, gradients, NaN
    # last frame index of a 95-minute match at 25 Hz written into an int16 buffer
    "frame-index-int16-full-match-fill": case(_frame_index_int16_full_match, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 x-offsets with teammates masked to 1e5 (a centimetre-era "far away")
    "offside-dx-f16-teammates-masked-1e5": case(_offside_distances_f16_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 xG predictions turned into a numpy array for the shots DataFrame
    "xg-bf16-predictions-np-asarray": case(_xg_bf16_into_pandas_column, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pandas nullable Int64 jersey numbers with <NA>, an object array, given to torch.from_numpy
    "jersey-numbers-nullable-object-from-numpy": case(_nullable_jersey_numbers_object_array, "numpy_dtype",
                                                      cause=("object",),
        grade="correct", grade_at_freeze="correct"),
    # fp16 Conv1d trajectory model trained with GradScaler, unscale_ before clipping
    "trajectory-f16-model-gradscaler-unscale": case(_trajectory_f16_gradscaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp32 mean of per-shard gradients assigned to a bf16 parameter's .grad
    "shard-mean-fp32-grad-assigned-bf16": case(_shard_averaged_fp32_gradient_assigned_to_bf16, "loss_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 mixture-density head: exp(log_sigma) overflows to inf, NaN loc rejected by Normal's argument check
    "mdn-f16-sigma-overflow-normal-nan": case(_mdn_f16_sigma_overflow_normal, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
