"""Held-out live set 59: game-playing AI by hand in low precision (policy-value nets, MCTS, NNUE, card games). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
4e67606."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "4e67606"

bf16, f16 = torch.bfloat16, torch.float16
_MOVES = 64


def _seeded() -> None:
    torch.manual_seed(0)


def _int8_planes_into_conv_stem() -> None:
    _seeded()
    board = np.zeros((2, 17, 8, 8), dtype=np.int8)
    board[:, 0, 1, :] = 1
    stem = nn.Conv2d(17, 32, 3, padding=1)
    stem(torch.from_numpy(board))


def _bool_stone_planes_into_conv() -> None:
    _seeded()
    board = torch.randint(-1, 2, (4, 9, 9))
    planes = torch.stack([board == 1, board == -1, board == 0], dim=1)
    nn.Conv2d(3, 16, 3, padding=1)(planes)


def _replay_states_float64_into_bf16_tower() -> None:
    _seeded()
    states = np.zeros((8, 17, 8, 8))
    states[:, 3] = 1.0
    tower = nn.Sequential(nn.Conv2d(17, 16, 3, padding=1), nn.ReLU()).to(bf16)
    tower(torch.from_numpy(states))


def _illegal_as_one_minus_bool_legal() -> None:
    _seeded()
    logits = torch.randn(2, _MOVES)
    legal = torch.rand(2, _MOVES) > 0.5
    illegal = 1 - legal
    (logits - 1e4 * illegal).softmax(-1)


def _fp16_policy_masked_minus_1e5() -> None:
    _seeded()
    logits = torch.randn(2, _MOVES).half()
    legal = torch.rand(2, _MOVES) > 0.5
    logits.masked_fill_(~legal, -1e5)


def _int_visit_counts_as_soft_targets() -> None:
    _seeded()
    logits = torch.randn(4, _MOVES, requires_grad=True)
    visits = torch.randint(0, 50, (4, _MOVES), dtype=torch.int32)
    F.cross_entropy(logits, visits)


def _visit_counts_temperature_in_place() -> None:
    visits = torch.tensor([[10, 3, 0, 87], [40, 40, 19, 1]])
    visits.pow_(1.0 / 0.7)


def _move_sampled_from_int_visit_counts() -> None:
    _seeded()
    visits = torch.tensor([10, 3, 0, 87])
    torch.multinomial(visits, 1)


def _value_head_bce_int8_results() -> None:
    _seeded()
    value_logit = torch.randn(4, requires_grad=True)
    results = torch.from_numpy(np.array([1, 0, 1, 1], dtype=np.int8))
    F.binary_cross_entropy_with_logits(value_logit, results)


def _symmetry_policy_float_permutation() -> None:
    _seeded()
    policy = torch.rand(4, 81)
    rows, cols = np.divmod(np.arange(81), 9)
    rotated = torch.from_numpy(cols * 9.0 + (8 - rows))
    policy[:, rotated]


def _dirichlet_noise_gamma_fp16() -> None:
    _seeded()
    prior = torch.rand(_MOVES).half().softmax(-1)
    noise = torch.distributions.Gamma(torch.full_like(prior, 0.3), torch.ones_like(prior)).sample()
    prior.lerp_(noise / noise.sum(), 0.25)


def _root_noise_lerp_fp32_into_bf16_prior() -> None:
    _seeded()
    prior = torch.rand(_MOVES, dtype=bf16).softmax(-1)
    noise = torch.distributions.Dirichlet(torch.full((_MOVES,), 0.3)).sample()
    prior.lerp_(noise, 0.25)


def _muzero_support_floor_index_float() -> None:
    _seeded()
    value = torch.tensor([3.4, -1.2, 0.0])
    support = torch.zeros(3, 21)
    low = value.floor() + 10
    support.scatter_(1, low[:, None], (1 - (value - value.floor()))[:, None])


def _muzero_support_bf16_weights_into_fp32() -> None:
    _seeded()
    value = torch.tensor([3.4, -1.2, 0.0], dtype=bf16)
    support = torch.zeros(3, 21)
    low = (value.floor() + 10).long()
    support.scatter_(1, low[:, None], (1 - (value - value.floor()))[:, None])


def _muzero_support_to_scalar_mv() -> None:
    _seeded()
    logits = torch.randn(3, 21, dtype=bf16)
    support = torch.arange(-10, 11, dtype=torch.float32)
    logits.softmax(-1) @ support


def _muzero_action_one_hot_into_linear() -> None:
    _seeded()
    action = torch.tensor([3, 0, 7])
    encode = nn.Linear(8, 16)
    encode(F.one_hot(action, 8))


def _muzero_hidden_bmm_fp32_action_table() -> None:
    _seeded()
    hidden = torch.randn(3, 1, 16, dtype=bf16)
    action_table = torch.randn(3, 16, 9)
    torch.bmm(hidden, action_table)


def _scatter_legal_priors_into_bf16_policy() -> None:
    _seeded()
    full = torch.zeros(4672, dtype=bf16)
    legal = torch.tensor([12, 40, 511, 3000])
    priors = torch.rand(4).softmax(-1)
    full[legal] = priors


def _priors_to_numpy_for_mcts() -> None:
    _seeded()
    net = nn.Linear(16, _MOVES).to(bf16)
    with torch.no_grad():
        net(torch.randn(1, 16, dtype=bf16)).softmax(-1)[0].numpy()


def _attention_policy_einsum_fp32_keys() -> None:
    _seeded()
    queries = torch.randn(2, 64, 32, dtype=bf16)
    keys = torch.randn(2, 64, 32, dtype=bf16) + torch.randn(64, 32)
    torch.einsum("bqd,bkd->bqk", queries, keys)


def _piece_embedding_fp32_positions_into_bf16_norm() -> None:
    _seeded()
    pieces = nn.Embedding(13, 32).to(bf16)
    positions = torch.randn(64, 32)
    norm = nn.LayerNorm(32).to(bf16)
    norm(pieces(torch.randint(0, 13, (2, 64))) + positions)


def _nnue_feature_indices_int16() -> None:
    _seeded()
    transformer = nn.EmbeddingBag(41024, 32, mode="sum")
    active = torch.tensor([[17, 2048, 30000, 411]], dtype=torch.int16)
    transformer(active)


def _nnue_int16_accumulator_mm_int8_weights() -> None:
    _seeded()
    accumulator = torch.randint(0, 127, (1, 32), dtype=torch.int16)
    l1 = torch.randint(-64, 64, (32, 8), dtype=torch.int8)
    torch.mm(accumulator, l1)


def _nnue_fp8_rows_into_bf16_accumulator() -> None:
    _seeded()
    rows = torch.randn(4, 32).to(torch.float8_e4m3fn)
    accumulator = torch.randn(32, dtype=bf16)
    for row in rows:
        accumulator += row


def _bitboards_uint64_unpacked_by_shift() -> None:
    bitboards = torch.from_numpy(np.array([0x000000000000FF00, 0x00FF000000000000], dtype=np.uint64))
    (bitboards[:, None] >> torch.arange(64).to(torch.uint64)) & 1


def _card_ids_int8_into_embedding() -> None:
    _seeded()
    cards = torch.from_numpy(np.array([[12, 51, 3, 7, 30]], dtype=np.int8))
    nn.Embedding(52, 16)(cards)


def _betting_history_fp32_into_bf16_lstm() -> None:
    _seeded()
    encoder = nn.LSTM(6, 16, batch_first=True).to(bf16)
    history = torch.zeros(2, 10, 6)
    encoder(history)


def _regret_matching_all_negative_bf16() -> None:
    _seeded()
    regrets = -torch.rand(3, dtype=bf16)
    positive = regrets.clamp_min(0)
    torch.distributions.Categorical(probs=positive / positive.sum())


def _terminal_state_all_illegal_fp16() -> None:
    logits = torch.randn(1, _MOVES).half()
    legal = torch.zeros(1, _MOVES, dtype=torch.bool)
    masked = logits.masked_fill(~legal, float("-inf")).float().softmax(-1)
    torch.multinomial(masked, 1)


def _int8_output_masked_fill_255() -> None:
    activations = torch.randint(-127, 127, (1, 32), dtype=torch.int8)
    activations.masked_fill_(activations > 100, 255)



CASES: dict[str, LiveCase] = {
    # --- board encodings into the network
    # AlphaZero board planes built as numpy int8, fed as they are to the fp32 conv stem
    "az-int8-planes-conv-stem": case(_int8_planes_into_conv_stem, "integer_operand", "int8",
        grade="correct", grade_at_freeze="correct"),
    # Go stone planes stacked from comparisons (bool) into the conv input
    "go-bool-stone-planes-conv": case(_bool_stone_planes_into_conv, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # self-play states kept in a np.zeros (float64) replay buffer, fed to a residual tower cast to bf16
    "replay-float64-states-bf16-tower": case(_replay_states_float64_into_bf16_tower, "conv_weight_dtype", "f64",
                                             "bf16", grade="correct", grade_at_freeze="correct"),
    # a chess transformer's bf16 piece embeddings plus fp32 learned positions, into a bf16 LayerNorm
    "piece-embedding-fp32-positions-bf16-layernorm": case(_piece_embedding_fp32_positions_into_bf16_norm,
                                                          "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # 64-bit bitboards from python-chess via numpy uint64, unpacked into planes with >> by uint64 shifts
    "bitboards-uint64-shift-unpack": case(_bitboards_uint64_unpacked_by_shift, "no_kernel", "uint64",
        grade="correct", grade_at_freeze="correct"),
    # --- legal-move masks and the policy
    # the illegal-move penalty made as 1 - legal on the bool legality mask
    "illegal-moves-one-minus-bool-legal": case(_illegal_as_one_minus_bool_legal, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # fp16 policy logits: illegal moves masked_fill_'ed with -1e5
    "fp16-policy-illegal-masked-fill-minus-1e5": case(_fp16_policy_masked_minus_1e5, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a terminal position with no legal move: all -inf logits, softmax gives NaN, the move sampler refuses
    "terminal-state-all-illegal-multinomial": case(_terminal_state_all_illegal_fp16, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # priors over the legal moves (fp32) written into the bf16 full 4672-move policy by advanced indexing
    "legal-priors-index-put-bf16-policy": case(_scatter_legal_priors_into_bf16_policy, "indexed_write_dtype", "bf16",
                                               "f32", grade="correct", grade_at_freeze="correct"),
    # Leela-style attention policy head: bf16 queries against keys that picked up an fp32 positional term, einsum
    "attention-policy-einsum-fp32-keys": case(_attention_policy_einsum_fp32_keys, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 network's priors handed to a numpy MCTS
    "bf16-priors-to-numpy-mcts": case(_priors_to_numpy_for_mcts, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- MCTS targets and move selection
    # MCTS visit counts (int32) given as the policy's soft targets without normalising
    "int32-visit-counts-soft-targets": case(_int_visit_counts_as_soft_targets, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # visit counts raised to 1/temperature in place on the int64 counts
    "visit-counts-temperature-pow-in-place": case(_visit_counts_temperature_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the move sampled in proportion to the int64 visit counts at temperature 1
    "move-sampled-from-int-visit-counts": case(_move_sampled_from_int_visit_counts, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # root Dirichlet noise drawn from Gamma with concentration in the fp16 prior's dtype
    "dirichlet-noise-gamma-fp16": case(_dirichlet_noise_gamma_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # root noise (fp32 Dirichlet sample) mixed into the bf16 prior with lerp_
    "root-noise-lerp-fp32-into-bf16-prior": case(_root_noise_lerp_fp32_into_bf16_prior, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- value targets
    # game results stored as numpy int8 in the replay buffer, BCE-with-logits value target
    "value-head-bce-int8-game-results": case(_value_head_bce_int8_results, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # --- symmetry augmentation
    # the board rotation's policy permutation computed with numpy arithmetic (float64), used as an index
    "symmetry-policy-float-permutation": case(_symmetry_policy_float_permutation, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- MuZero
    # scalar-to-support transform: floor of the value (float) used as scatter_'s index
    "muzero-support-floor-index-float": case(_muzero_support_floor_index_float, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # scalar-to-support transform: bf16 value's interpolation weights scattered into an fp32 support
    "muzero-support-bf16-weights-into-fp32": case(_muzero_support_bf16_weights_into_fp32, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # support-to-scalar: bf16 softmax @ an fp32 arange support
    "muzero-support-to-scalar-mv": case(_muzero_support_to_scalar_mv, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the dynamics network's action encoded with F.one_hot (int64) straight into a Linear
    "muzero-action-one-hot-linear": case(_muzero_action_one_hot_into_linear, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 hidden states bmm'd with a per-state fp32 action embedding table
    "muzero-hidden-bmm-fp32-action-table": case(_muzero_hidden_bmm_fp32_action_table, "batched_matmul_dtype", "bf16",
                                                "f32", grade="correct", grade_at_freeze="correct"),
    # --- NNUE
    # HalfKP active feature indices kept as int16 to save memory, into the EmbeddingBag feature transformer
    "nnue-feature-indices-int16-embedding-bag": case(_nnue_feature_indices_int16, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # the int16 accumulator multiplied by the int8 L1 weights with torch.mm
    "nnue-int16-accumulator-mm-int8-weights": case(_nnue_int16_accumulator_mm_int8_weights, "integer_operand",
                                                   "int16", "int8", grade="correct", grade_at_freeze="correct"),
    # feature transformer rows stored in fp8, added incrementally into a bf16 accumulator
    "nnue-fp8-rows-into-bf16-accumulator": case(_nnue_fp8_rows_into_bf16_accumulator, "fp8_promotion", "bf16",
                                                "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # the clipped int8 output saturated with masked_fill_ of 255 (the uint8 range)
    "nnue-int8-output-masked-fill-255": case(_int8_output_masked_fill_255, "half_overflow", "int8",
        grade="correct", grade_at_freeze="correct"),
    # --- card games
    # poker hole and board cards as numpy int8 ids into nn.Embedding
    "poker-card-ids-int8-embedding": case(_card_ids_int8_into_embedding, "index_tensor_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # a betting-history encoder (LSTM) cast to bf16, given the fp32 action history
    "betting-history-fp32-bf16-lstm": case(_betting_history_fp32_into_bf16_lstm, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Deep CFR regret matching on bf16 advantages, all negative: 0/0 into Categorical (no uniform fallback)
    "regret-matching-all-negative-bf16": case(_regret_matching_all_negative_bf16, "nonfinite", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
