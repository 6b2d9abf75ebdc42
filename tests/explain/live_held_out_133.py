"""Held-out live set 133: knowledge tracing and educational data mining written by hand in low precision (student-
exercise interaction sequences as int64 ids, bool correctness labels, skill embeddings, causal bool attention masks,
DKT's LSTM/GRU over one-hot interactions, DKVMN memories, SAKT/AKT/SAINT bf16 transformers, BKT updates, item-response-
theory parameters in float64, performance factor analysis counts, EdNet timestamps, AUC with sklearn). Defects planted
by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at b21193f2."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.metrics import roc_auc_score
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b21193f2"

bf16, f16 = torch.bfloat16, torch.float16
_SKILLS = 12  # knowledge components (ASSISTments-style skill ids)
_ITEMS = 40  # exercises
_STUDENTS = 6
_LENGTH = 8  # interactions per student sequence
_DIM = 16


def _seeded() -> None:
    torch.manual_seed(0)


def _interactions() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A batch of student sequences: int64 skill ids, int64 exercise ids and bool correctness."""
    _seeded()
    skills = torch.randint(0, _SKILLS, (_STUDENTS, _LENGTH))
    items = torch.randint(0, _ITEMS, (_STUDENTS, _LENGTH))
    correct = torch.rand(_STUDENTS, _LENGTH) > 0.4
    return skills, items, correct


def _causal_bool_mask(length: int = _LENGTH) -> torch.Tensor:
    """True above the diagonal: the future interactions an exercise may not attend to."""
    return torch.ones(length, length, dtype=torch.bool).triu(1)


# --- interaction ids, correctness labels and masks


def _sakt_response_embedding_indexed_by_bool() -> None:
    _, items, correct = _interactions()
    exercise_emb = nn.Embedding(_ITEMS, _DIM)
    response_emb = nn.Embedding(2, _DIM)  # wrong / right
    interaction = exercise_emb(items) + response_emb(correct)
    interaction.sum()


def _dkt_interaction_ids_with_float_correctness() -> None:
    skills, _, _ = _interactions()
    frame_correct = np.array([[1.0, 0.0, 1.0, 1.0, np.nan, 0.0, 1.0, 0.0]] * _STUDENTS)  # pandas column with NaN: float
    correct = torch.from_numpy(np.nan_to_num(frame_correct)).float()
    interaction_ids = skills + _SKILLS * correct
    F.one_hot(interaction_ids, num_classes=2 * _SKILLS)


def _dkt_one_hot_into_linear_input_layer() -> None:
    skills, _, correct = _interactions()
    interaction_ids = skills + _SKILLS * correct.long()
    x = F.one_hot(interaction_ids, num_classes=2 * _SKILLS)  # int64 one-hot, no .float()
    input_layer = nn.Linear(2 * _SKILLS, _DIM)
    input_layer(x)


def _dkt_bce_with_logits_bool_next_correct() -> None:
    skills, _, correct = _interactions()
    logits = torch.randn(_STUDENTS, _LENGTH - 1, _SKILLS)
    next_skill = skills[:, 1:]
    next_logit = logits.gather(-1, next_skill[..., None]).squeeze(-1)
    F.binary_cross_entropy_with_logits(next_logit, correct[:, 1:])


def _accuracy_as_mean_of_bool_hits() -> None:
    _, _, correct = _interactions()
    probabilities = torch.rand(_STUDENTS, _LENGTH)
    hits = (probabilities > 0.5) == correct
    hits.mean()


def _pfa_failure_counts_one_minus_bool() -> None:
    skills, _, correct = _interactions()
    skill_one_hot = F.one_hot(skills, _SKILLS)
    successes = torch.cumsum(skill_one_hot * correct[..., None], dim=1)
    failures = torch.cumsum(skill_one_hot * (1 - correct)[..., None], dim=1)
    successes - failures


def _sakt_future_mask_by_tilde_of_float_tril() -> None:
    _seeded()
    scores = torch.randn(_STUDENTS, _LENGTH, _LENGTH)
    future = ~torch.tril(torch.ones(_LENGTH, _LENGTH))
    scores.masked_fill(future, float("-inf")).softmax(-1)


def _akt_numpy_uint8_causal_mask_masked_fill() -> None:
    _seeded()
    scores = torch.randn(_STUDENTS, 2, _LENGTH, _LENGTH)
    peek = torch.from_numpy(np.triu(np.ones((_LENGTH, _LENGTH)), k=1).astype("uint8"))  # copied from a numpy KT repo
    scores.masked_fill(peek, float("-inf")).softmax(-1)


def _ncd_mastery_times_bool_q_matrix() -> None:
    _seeded()
    q_matrix = torch.rand(_ITEMS, _SKILLS) > 0.7  # exercise -> skill tags, bool
    mastery = torch.sigmoid(torch.randn(_STUDENTS, _SKILLS))
    difficulty = torch.sigmoid(torch.randn(_STUDENTS, _ITEMS, _SKILLS))
    expected_mastery = mastery @ q_matrix.T
    expected_mastery[..., None] - difficulty


def _pfa_int64_counts_plus_decayed_float() -> None:
    skills, _, correct = _interactions()
    counts = torch.zeros(_SKILLS, dtype=torch.long)
    for t in range(_LENGTH):
        decayed = correct[:, t].float() * 0.8 ** (_LENGTH - t)
        counts += torch.zeros(_SKILLS).index_add(0, skills[:, t], decayed)


# --- item response theory, BKT and float64 parameters


def _irt_theta_float64_into_ncd_linear() -> None:
    _seeded()
    theta_from_mirt = np.linspace(-2.0, 2.0, _STUDENTS)[:, None] * np.ones((1, _SKILLS))  # fitted in R, float64
    ability = torch.from_numpy(theta_from_mirt)
    interaction_layer = nn.Linear(_SKILLS, 1)
    torch.sigmoid(interaction_layer(ability))


def _irt_2pl_bce_float64_probabilities() -> None:
    _, items, correct = _interactions()
    discrimination = torch.from_numpy(np.full(_ITEMS, 1.2))
    difficulty = torch.from_numpy(np.linspace(-1.5, 1.5, _ITEMS))
    theta = torch.from_numpy(np.linspace(-1.0, 1.0, _STUDENTS))[:, None]
    p = torch.sigmoid(discrimination[items] * (theta - difficulty[items]))
    F.binary_cross_entropy(p, correct.float())


def _bkt_learning_lerp_float64_transit() -> None:
    skills, _, correct = _interactions()
    pybkt_params = {"prior": np.full(_SKILLS, 0.3), "learns": np.full(_SKILLS, 0.15), "slips": np.full(_SKILLS, 0.1),
                    "guesses": np.full(_SKILLS, 0.2)}
    learns = torch.from_numpy(pybkt_params["learns"])
    p_known = torch.full((_STUDENTS,), 0.3)
    slip, guess = 0.1, 0.2
    obs = correct[:, 0].float()
    posterior = torch.where(obs.bool(), p_known * (1 - slip) / (p_known * (1 - slip) + (1 - p_known) * guess),
                            p_known * slip / (p_known * slip + (1 - p_known) * (1 - guess)))
    torch.lerp(posterior, torch.ones_like(posterior), learns[skills[:, 0]])


def _irt_newton_step_solve_in_bf16() -> None:
    _seeded()
    n_params = 4
    jacobian = torch.randn(60, n_params, dtype=bf16)
    hessian = jacobian.T @ jacobian + torch.eye(n_params, dtype=bf16)
    gradient = torch.randn(n_params, dtype=bf16)
    torch.linalg.solve(hessian, gradient)


def _irt_3pl_fp16_simulated_responses_bernoulli() -> None:
    discrimination = torch.tensor([1.2, 2.5, 1.8], dtype=f16)
    difficulty = torch.tensor([-1.0, 0.3, 2.0], dtype=f16)
    guessing = torch.tensor([0.2, 0.25, 0.2], dtype=f16)
    theta = torch.tensor([3.5, -2.0, 1.0], dtype=f16)[:, None]
    z = 1.702 * discrimination * 2.5 * (theta - difficulty)  # "a" rescaled to the logistic metric twice
    p = guessing + (1 - guessing) * torch.exp(z) / (1 + torch.exp(z))
    torch.distributions.Bernoulli(probs=p).sample()


# --- DKT, DKVMN and convolutional knowledge tracing


def _dkt_lstm_numpy_one_hot_float64() -> None:
    skills, _, correct = _interactions()
    interaction_ids = (skills + _SKILLS * correct.long()).numpy()
    x = torch.from_numpy(np.eye(2 * _SKILLS)[interaction_ids])  # np.eye is float64
    lstm = nn.LSTM(2 * _SKILLS, _DIM, batch_first=True)
    lstm(x)


def _dkt_gru_model_bf16_one_hot_float() -> None:
    skills, _, correct = _interactions()
    x = F.one_hot(skills + _SKILLS * correct.long(), 2 * _SKILLS).float()
    gru = nn.GRU(2 * _SKILLS, _DIM, batch_first=True).to(bf16)
    gru(x)


def _dkvmn_value_memory_write_bf16_into_fp32() -> None:
    _seeded()
    memory_slots = 5
    value_memory = torch.zeros(_STUDENTS, memory_slots, _DIM)  # per-student buffer, fp32 by default
    erase = torch.sigmoid(torch.randn(_STUDENTS, 1, _DIM, dtype=bf16))
    add = torch.tanh(torch.randn(_STUDENTS, 1, _DIM, dtype=bf16))
    weight = torch.softmax(torch.randn(_STUDENTS, memory_slots, 1, dtype=bf16), dim=1)
    active = torch.tensor([0, 2, 3])
    new_memory = value_memory[active].to(bf16) * (1 - weight[active] * erase[active]) + weight[active] * add[active]
    value_memory[active] = new_memory


def _ckt_conv1d_fp32_over_bf16_embeddings() -> None:
    _, items, _ = _interactions()
    embedding = nn.Embedding(_ITEMS, _DIM).to(bf16)
    conv = nn.Conv1d(_DIM, _DIM, kernel_size=3, padding=2)  # causal by trimming; left fp32
    h = embedding(items).transpose(1, 2)
    conv(h)[..., :_LENGTH]


# --- SAKT, AKT and SAINT transformers in bf16


def _sakt_bf16_attention_fp32_interaction_keys() -> None:
    skills, items, correct = _interactions()
    attention = nn.MultiheadAttention(_DIM, 2, batch_first=True).to(bf16)
    exercise_emb = nn.Embedding(_ITEMS, _DIM).to(bf16)
    interaction_emb = nn.Embedding(2 * _SKILLS, _DIM)  # built after model.to(bf16)
    query = exercise_emb(items[:, 1:])
    keys = interaction_emb(skills[:, :-1] + _SKILLS * correct[:, :-1].long())
    attention(query, keys, keys, attn_mask=_causal_bool_mask(_LENGTH - 1))


def _sakt_bf16_attention_fp32_neg_inf_mask() -> None:
    _, items, _ = _interactions()
    attention = nn.MultiheadAttention(_DIM, 2, batch_first=True).to(bf16)
    x = nn.Embedding(_ITEMS, _DIM).to(bf16)(items)
    future = torch.triu(torch.full((_LENGTH, _LENGTH), float("-inf")), diagonal=1)
    attention(x, x, x, attn_mask=future)


def _akt_distance_decay_bmm_bf16_values() -> None:
    _seeded()
    heads = 2
    q = torch.randn(_STUDENTS * heads, _LENGTH, _DIM, dtype=bf16)
    k = torch.randn(_STUDENTS * heads, _LENGTH, _DIM, dtype=bf16)
    v = torch.randn(_STUDENTS * heads, _LENGTH, _DIM, dtype=bf16)
    gamma = nn.Parameter(torch.full((_STUDENTS * heads, 1, 1), 0.5))  # AKT's learned decay rate, fp32
    positions = torch.arange(_LENGTH)
    distance = (positions[None, :] - positions[:, None]).abs().float()
    scores = torch.bmm(q, k.transpose(1, 2)) / _DIM ** 0.5
    scores = scores * torch.exp(-F.softplus(gamma) * distance)
    weights = scores.masked_fill(_causal_bool_mask(), float("-inf")).softmax(-1)
    torch.bmm(weights, v)


def _saint_decoder_sdpa_bf16_queries_fp32_encoder_memory() -> None:
    _, items, correct = _interactions()
    encoder_out = torch.randn(_STUDENTS, 2, _LENGTH, _DIM // 2)  # exercise encoder run outside autocast
    decoder_q = nn.Embedding(2, _DIM).to(bf16)(correct.long()).view(_STUDENTS, _LENGTH, 2, _DIM // 2).transpose(1, 2)
    F.scaled_dot_product_attention(decoder_q, encoder_out, encoder_out, is_causal=True)


def _saint_bf16_layer_norm_on_fp32_residual() -> None:
    _, items, _ = _interactions()
    embedding = nn.Embedding(_ITEMS, _DIM).to(bf16)
    ffn = nn.Sequential(nn.Linear(_DIM, 2 * _DIM), nn.ReLU(), nn.Linear(2 * _DIM, _DIM)).to(bf16)
    norm = nn.LayerNorm(_DIM).to(bf16)
    x = embedding(items)
    residual = x.float() + ffn(x).float()  # residual stream upcast "for stability"
    norm(residual)


def _sakt_fp16_scores_masked_fill_minus_1e9() -> None:
    _seeded()
    q = torch.randn(_STUDENTS, _LENGTH, _DIM, dtype=f16)
    scores = q @ q.transpose(1, 2) / _DIM ** 0.5
    scores.masked_fill(_causal_bool_mask(), -1e9).softmax(-1)


# --- timestamps, training loops and metrics


def _ednet_millisecond_timestamps_as_int32() -> None:
    timestamps_ms = [1565096190868, 1565096221062, 1565096293432, 1565096339995]  # EdNet KT1 "timestamp" column
    times = torch.tensor(timestamps_ms, dtype=torch.int32)
    lag_seconds = (times[1:] - times[:-1]) / 1000
    lag_seconds.log1p()


def _dkt_half_model_with_grad_scaler() -> None:
    skills, _, correct = _interactions()
    model = nn.Sequential(nn.Linear(2 * _SKILLS, _DIM), nn.Tanh(), nn.Linear(_DIM, _SKILLS)).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x = F.one_hot(skills + _SKILLS * correct.long(), 2 * _SKILLS).half()
    logits = model(x).float()
    loss = F.binary_cross_entropy_with_logits(logits.gather(-1, skills[..., None]).squeeze(-1), correct.float())
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _rare_skill_gradient_hook_fp32_weights() -> None:
    skills, _, correct = _interactions()
    skill_emb = nn.Parameter(torch.randn(_SKILLS, _DIM).to(bf16))
    frequency = torch.bincount(skills.flatten(), minlength=_SKILLS).float()
    inverse_frequency = (1.0 / (frequency + 1.0))[:, None] * _SKILLS
    skill_emb.register_hook(lambda grad: grad * inverse_frequency)
    logits = (skill_emb[skills].float() * torch.ones(_DIM)).sum(-1)
    F.binary_cross_entropy_with_logits(logits, correct.float()).backward()


def _auc_sklearn_on_bf16_predictions() -> None:
    _, _, correct = _interactions()
    predictions = torch.sigmoid(torch.randn(_STUDENTS, _LENGTH, dtype=bf16))
    roc_auc_score(correct.flatten().numpy(), predictions.flatten())


def _ragged_student_sequences_from_groupby() -> None:
    per_student = [np.array([3, 5, 5, 1, 7]), np.array([2, 2, 9]), np.array([4, 1, 1, 1, 6, 8, 0])]  # groupby().apply
    skills = torch.from_numpy(np.array(per_student, dtype=object))
    nn.Embedding(_SKILLS, _DIM)(skills)


CASES: dict[str, LiveCase] = {
    # --- interaction ids, correctness labels and masks
    # SAKT's response embedding (size 2) indexed directly by the bool correctness tensor
    "sakt-response-embedding-bool-correct": case(_sakt_response_embedding_indexed_by_bool, "index_tensor_dtype",
                                                 "bool",
        grade="correct", grade_at_freeze="correct"),
    # DKT interaction ids skill + K * correct, with correct from a NaN-filled pandas float column, one-hot encoded
    "dkt-interaction-ids-float-correct-one-hot": case(_dkt_interaction_ids_with_float_correctness,
                                                      "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # DKT's int64 one-hot interactions fed to the fp32 input Linear without .float()
    "dkt-one-hot-int64-input-linear": case(_dkt_one_hot_into_linear_input_layer, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DKT next-step loss: BCE-with-logits against the bool correctness of the next interaction
    "dkt-bce-logits-bool-next-correct": case(_dkt_bce_with_logits_bool_next_correct, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # prediction accuracy as the mean of the bool hits tensor
    "accuracy-mean-bool-hits": case(_accuracy_as_mean_of_bool_hits, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # performance factor analysis: failure counts from 1 - the bool correctness
    "pfa-failures-one-minus-bool-correct": case(_pfa_failure_counts_one_minus_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # SAKT's future mask made with ~ of a float torch.tril(torch.ones(L, L))
    "sakt-future-mask-tilde-float-tril": case(_sakt_future_mask_by_tilde_of_float_tril, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # AKT's peek-ahead mask built in numpy as uint8 and handed to masked_fill
    "akt-numpy-uint8-peek-mask-masked-fill": case(_akt_numpy_uint8_causal_mask_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # neural cognitive diagnosis: fp32 mastery matmul'ed with the bool Q-matrix
    "ncd-mastery-matmul-bool-q-matrix": case(_ncd_mastery_times_bool_q_matrix, "integer_operand", "f32", "bool",
        grade="correct", grade_at_freeze="correct"),
    # PFA's int64 success counts accumulating time-decayed float successes in place
    "pfa-int64-counts-plus-decayed-float": case(_pfa_int64_counts_plus_decayed_float, "result_cast", "f32",
                                                "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- item response theory, BKT and float64 parameters
    # abilities fitted by mirt (float64 via numpy) into a neural cognitive diagnosis fp32 Linear
    "irt-theta-f64-ncd-linear": case(_irt_theta_float64_into_ncd_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # 2PL probabilities from float64 item parameters, BCE against float32 responses
    "irt-2pl-bce-f64-probabilities": case(_irt_2pl_bce_float64_probabilities, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # BKT learning step as lerp of the fp32 posterior toward 1 by pyBKT's float64 learn rates
    "bkt-learn-lerp-f64-transit": case(_bkt_learning_lerp_float64_transit, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a Newton step for IRT item parameters solved with torch.linalg.solve in bf16
    "irt-newton-step-solve-bf16": case(_irt_newton_step_solve_in_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # 3PL responses simulated in fp16: exp(z) overflows, inf / inf is NaN, Bernoulli's check fails
    "irt-3pl-fp16-simulated-responses-nan-bernoulli": case(_irt_3pl_fp16_simulated_responses_bernoulli,
                                                           "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # --- DKT, DKVMN and convolutional knowledge tracing
    # DKT one-hot made with np.eye (float64) fed to an fp32 LSTM
    "dkt-lstm-np-eye-f64-one-hot": case(_dkt_lstm_numpy_one_hot_float64, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DKT GRU converted to bf16 given fp32 one-hot interactions
    "dkt-gru-bf16-fp32-one-hot": case(_dkt_gru_model_bf16_one_hot_float, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DKVMN erase/add write of bf16 memory rows into an fp32 per-student value memory
    "dkvmn-value-memory-bf16-write-fp32": case(_dkvmn_value_memory_write_bf16_into_fp32, "indexed_write_dtype",
                                               "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # convolutional knowledge tracing: an fp32 Conv1d over bf16 exercise embeddings
    "ckt-conv1d-fp32-bf16-embeddings": case(_ckt_conv1d_fp32_over_bf16_embeddings, "conv_weight_dtype", "bf16",
                                            "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- SAKT, AKT and SAINT transformers in bf16
    # SAKT in bf16 attending over interaction embeddings created fp32 after model.to(bf16)
    "sakt-bf16-attention-fp32-interaction-keys": case(_sakt_bf16_attention_fp32_interaction_keys, "matmul_dtype",
                                                      "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SAKT in bf16 given an fp32 -inf causal mask
    "sakt-bf16-attention-fp32-neg-inf-mask": case(_sakt_bf16_attention_fp32_neg_inf_mask, "attn_mask_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # AKT's monotonic attention: weights decayed by an fp32 learned gamma, bmm'ed with bf16 values
    "akt-distance-decay-bmm-bf16-values": case(_akt_distance_decay_bmm_bf16_values, "batched_matmul_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SAINT decoder: bf16 response queries into SDPA with the fp32 exercise encoder's output
    "saint-sdpa-bf16-queries-fp32-encoder": case(_saint_decoder_sdpa_bf16_queries_fp32_encoder_memory,
                                                 "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SAINT's bf16 LayerNorm on a residual stream upcast to fp32
    "saint-bf16-layer-norm-fp32-residual": case(_saint_bf16_layer_norm_on_fp32_residual, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SAKT attention in fp16 with future positions filled with -1e9
    "sakt-fp16-scores-masked-fill-minus-1e9": case(_sakt_fp16_scores_masked_fill_minus_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- timestamps, training loops and metrics
    # EdNet's millisecond timestamps put in an int32 tensor for lag-time features
    "ednet-ms-timestamps-int32": case(_ednet_millisecond_timestamps_as_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # a DKT model made .half() trained with GradScaler
    "dkt-half-model-grad-scaler": case(_dkt_half_model_with_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a hook reweighting rare skills multiplies the bf16 skill-embedding gradient by fp32 weights
    "rare-skill-grad-hook-fp32-weights": case(_rare_skill_gradient_hook_fp32_weights, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # sklearn's roc_auc_score given the bf16 predictions tensor
    "auc-sklearn-bf16-predictions": case(_auc_sklearn_on_bf16_predictions, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ragged per-student skill sequences from a groupby as a numpy object array
    "ragged-student-sequences-object-array": case(_ragged_student_sequences_from_groupby, "numpy_dtype",
                                                  fix=("pad",),
        grade="correct", grade_at_freeze="correct"),
}
