"""Held-out live set 105: continual, active and curriculum learning written by hand in low precision (replay buffers
with int64 task ids and sample indices, class-incremental heads with bool masks over seen classes, EWC Fisher
information in float64, knowledge distillation from an fp32 teacher to a bf16 student, uncertainty sampling with
entropy and margins in fp16, core-set selection with pairwise distances, task-boundary bookkeeping). Defects planted by
a helper who never read the rules, written before castwise ran and graded once with the rules frozen at fd82b52."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "fd82b52"

bf16, f16 = torch.bfloat16, torch.float16
_CLASSES = 10
_TASKS = 5
_DIM = 16


def _seeded() -> None:
    torch.manual_seed(0)


def _backbone_bf16() -> nn.Module:
    return nn.Sequential(nn.Linear(_DIM, _DIM), nn.ReLU()).to(bf16)


# --- replay buffers -------------------------------------------------------------------------------------------------


def _er_replay_indices_from_floor() -> None:
    _seeded()
    buffer_x = torch.randn(200, _DIM)
    n_stored = torch.tensor(137)  # how many slots the reservoir has filled so far
    idx = (torch.rand(8) * n_stored).floor()  # uniform replay indices, never made .long()
    buffer_x[idx]


def _der_logits_bf16_into_fp32_buffer() -> None:
    _seeded()
    model = nn.Sequential(_backbone_bf16(), nn.Linear(_DIM, _CLASSES).to(bf16))
    buffer_logits = torch.zeros(200, _CLASSES)  # DER++ stores logits; the buffer was made with the default dtype
    x = torch.randn(4, _DIM, dtype=bf16)
    slots = torch.tensor([3, 17, 42, 99])
    with torch.no_grad():
        buffer_logits[slots] = model(x)


def _reservoir_uint8_buffer_write_augmented() -> None:
    _seeded()
    buffer_x = torch.zeros(100, 3, 8, 8, dtype=torch.uint8)  # raw images kept as uint8 to fit more exemplars
    x_aug = torch.rand(4, 3, 8, 8)  # the stream batch after ToTensor() and augmentation
    slots = torch.randint(0, 100, (4,))
    buffer_x[slots] = x_aug


def _sample_counter_int16() -> None:
    seen_at = torch.full((64,), -1, dtype=torch.int16)  # stream step at which each buffer slot was written
    n_seen = 40_000
    seen_at[5] = n_seen


def _task_one_hot_into_film() -> None:
    _seeded()
    film = nn.Linear(_TASKS, 2 * _DIM)  # task-conditioned FiLM generator
    task_ids = torch.tensor([0, 0, 3, 1])  # int64 task ids sampled with the replay batch
    gamma, beta = film(F.one_hot(task_ids, _TASKS)).chunk(2, -1)
    torch.randn(4, _DIM) * gamma + beta


# --- class-incremental heads and masks ------------------------------------------------------------------------------


def _unseen_classes_one_minus_bool() -> None:
    _seeded()
    logits = torch.randn(4, _CLASSES)
    seen = torch.zeros(_CLASSES, dtype=torch.bool)
    seen[:4] = True
    unseen = 1 - seen
    logits.masked_fill(unseen.bool(), float("-inf"))


def _seen_classes_uint8_masked_fill() -> None:
    _seeded()
    logits = torch.randn(4, _CLASSES)
    unseen = torch.from_numpy(np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1], dtype=np.uint8))  # from the benchmark's npz
    logits.masked_fill(unseen, float("-inf"))


def _expanded_head_after_bf16_cast() -> None:
    _seeded()
    backbone = _backbone_bf16()
    old_head = nn.Linear(_DIM, 4).to(bf16)
    new_head = nn.Linear(_DIM, _CLASSES)  # grown for task 2 after the model was cast; left fp32
    with torch.no_grad():
        new_head.weight[:4] = old_head.weight
        new_head.bias[:4] = old_head.bias
    new_head(backbone(torch.randn(4, _DIM, dtype=bf16)))


def _task_il_label_offset_true_division() -> None:
    _seeded()
    classes_per_task = _CLASSES / _TASKS  # 2.0, a float
    task_id = 3
    y = torch.tensor([6, 7, 7, 6])
    logits = torch.randn(4, 2)
    F.cross_entropy(logits, y - task_id * classes_per_task)


def _icarl_ncm_numpy_class_means() -> None:
    _seeded()
    exemplar_feats = np.random.default_rng(0).standard_normal((_CLASSES, 20, _DIM))  # cached exemplar features
    means = exemplar_feats.mean(axis=1)
    means /= np.linalg.norm(means, axis=1, keepdims=True)
    class_means = torch.from_numpy(means)
    feats = F.normalize(_backbone_bf16()(torch.randn(4, _DIM, dtype=bf16)), dim=-1)
    (feats @ class_means.T).argmax(-1)


def _per_class_correct_scatter_add_bool() -> None:
    _seeded()
    logits = torch.randn(16, _CLASSES)
    y = torch.randint(0, _CLASSES, (16,))
    correct_per_class = torch.zeros(_CLASSES)
    correct_per_class.scatter_add_(0, y, logits.argmax(-1) == y)


# --- EWC, GEM and other regularisers ---------------------------------------------------------------------------------


def _online_ewc_fisher_lerp() -> None:
    _seeded()
    fisher = torch.rand(_DIM, dtype=torch.float64)  # running Fisher kept in float64 for stability
    new_fisher = torch.randn(_DIM).pow(2)  # squared fp32 gradients of this task
    gamma = 0.9
    fisher.lerp_(new_fisher, 1 - gamma)


def _ewc_vecdot_penalty() -> None:
    _seeded()
    fisher = torch.rand(_DIM * _DIM, dtype=torch.float64)
    weight = torch.randn(_DIM * _DIM, dtype=bf16)
    anchor = weight.clone() + 0.01
    0.5 * 100.0 * torch.linalg.vecdot(fisher, (weight - anchor).pow(2))


def _fisher_preconditioning_hook() -> None:
    _seeded()
    layer = nn.Linear(_DIM, _CLASSES)
    fisher = torch.rand(_CLASSES, _DIM, dtype=torch.float64) + 0.1
    layer.weight.register_hook(lambda grad: grad / (1.0 + 10.0 * fisher))  # damp moves along important weights
    F.cross_entropy(layer(torch.randn(4, _DIM)), torch.tensor([1, 2, 3, 4])).backward()


def _gem_numpy_projection_grad() -> None:
    _seeded()
    layer = nn.Linear(_DIM, _CLASSES).to(bf16)
    F.cross_entropy(layer(torch.randn(4, _DIM, dtype=bf16)), torch.tensor([1, 2, 3, 4])).backward()
    g = layer.weight.grad.float().numpy().ravel()
    memory = np.random.default_rng(0).standard_normal((2, g.size))  # previous tasks' gradients
    violated = memory @ g < 0
    g_proj = g - (memory[violated].T @ np.linalg.lstsq(memory[violated] @ memory[violated].T,
                                                        memory[violated] @ g, rcond=None)[0])
    layer.weight.grad = torch.from_numpy(g_proj.reshape(_CLASSES, _DIM))


def _agem_dot_bf16_grads_fp32_reference() -> None:
    _seeded()
    layer = nn.Linear(_DIM, _CLASSES).to(bf16)
    F.cross_entropy(layer(torch.randn(4, _DIM, dtype=bf16)), torch.tensor([1, 2, 3, 4])).backward()
    g = torch.cat([p.grad.flatten() for p in layer.parameters()])
    g_ref = torch.randn(g.numel())  # the memory batch's gradient, flattened into a torch.zeros buffer
    if torch.dot(g, g_ref) < 0:
        g = g - torch.dot(g, g_ref) / torch.dot(g_ref, g_ref) * g_ref


# --- knowledge distillation from an fp32 teacher to a bf16 student ---------------------------------------------------


def _fitnets_regressor_fp32() -> None:
    _seeded()
    student = nn.Conv2d(3, 8, 3, padding=1).to(bf16)
    regressor = nn.Conv2d(8, 16, 1)  # hint regressor created in the distiller, not in the student
    teacher_hint = torch.randn(2, 16, 8, 8)
    guided = student(torch.randn(2, 3, 8, 8, dtype=bf16))
    F.mse_loss(regressor(guided).float(), teacher_hint)


def _teacher_tokens_student_layernorm() -> None:
    _seeded()
    student_norm = nn.LayerNorm(_DIM).to(bf16)
    teacher_tokens = torch.randn(2, 5, _DIM)  # fp32 teacher
    student_tokens = torch.randn(2, 5, _DIM, dtype=bf16)
    F.mse_loss(student_norm(student_tokens).float(), student_norm(teacher_tokens).float())


def _cross_model_attention_bmm() -> None:
    _seeded()
    student_q = torch.randn(2, 5, 8, dtype=bf16)
    teacher_k = torch.randn(2, 5, 8)  # fp32 teacher's keys
    scores = torch.bmm(student_q, teacher_k.transpose(1, 2)) / 8 ** 0.5
    scores.softmax(-1)


# --- active learning: uncertainty, committees, core-sets ------------------------------------------------------------


def _labeled_pool_index_fill_sentinel() -> None:
    _seeded()
    probs = torch.randn(100, _CLASSES, dtype=f16).softmax(-1)
    entropy = -(probs * probs.clamp_min(1e-4).log()).sum(-1)
    labeled = torch.tensor([3, 7, 11])
    entropy.index_fill_(0, labeled, -1e9)  # never pick an already-labelled sample
    entropy.topk(5)


def _entropy_histogram_fp16() -> None:
    _seeded()
    probs = torch.randn(100, _CLASSES, dtype=f16).softmax(-1)
    entropy = -(probs * probs.clamp_min(1e-4).log()).sum(-1)
    torch.histogram(entropy, bins=10)  # distribution of pool uncertainty, for the round's log


def _query_scores_bf16_argsort() -> None:
    _seeded()
    probs = torch.randn(100, _CLASSES, dtype=bf16).softmax(-1)
    top2 = probs.topk(2, dim=-1).values
    margin = top2[:, 0] - top2[:, 1]
    np.argsort(margin)[:10]  # the labelling tool wants numpy indices


def _qbc_vote_one_hot_mean() -> None:
    _seeded()
    committee_logits = torch.randn(5, 100, _CLASSES)
    votes = F.one_hot(committee_logits.argmax(-1), _CLASSES)
    vote_share = votes.mean(0)
    -(vote_share * vote_share.clamp_min(1e-8).log()).sum(-1)


def _dpp_batch_logdet_fp16() -> None:
    _seeded()
    feats = F.normalize(torch.randn(6, _DIM, dtype=f16), dim=-1)
    kernel = feats @ feats.T + 0.1 * torch.eye(6, dtype=f16)
    torch.logdet(kernel)  # diversity of the candidate batch


def _coreset_raw_uint8_pixels() -> None:
    _seeded()
    pool = torch.randint(0, 256, (50, 3 * 8 * 8), dtype=torch.uint8)  # images flattened straight from the dataset
    labeled = pool[:5]
    torch.cdist(pool, labeled).min(1).values.argmax()


def _kcenter_pdist_fp16() -> None:
    _seeded()
    feats = torch.randn(20, _DIM, dtype=f16)  # penultimate features from the fp16 model
    torch.pdist(feats).max()


def _coreset_cached_f64_labeled_features() -> None:
    _seeded()
    labeled_feats = torch.from_numpy(np.random.default_rng(0).standard_normal((5, _DIM)))  # np.load of last round
    pool_feats = torch.randn(50, _DIM)
    min_dist = torch.cdist(pool_feats, labeled_feats).min(1).values
    min_dist.argmax()


# --- curriculum -----------------------------------------------------------------------------------------------------


def _competence_pacing_float_slice() -> None:
    _seeded()
    difficulty = torch.rand(1000)
    order = difficulty.argsort()
    step, total, c0 = torch.tensor(300.0), 1000.0, 0.1
    competence = torch.sqrt(step * (1 - c0 ** 2) / total + c0 ** 2).clamp(max=1.0)
    order[: torch.ceil(competence * len(order))]


def _self_paced_dot_bool_weights() -> None:
    _seeded()
    losses = torch.rand(32) * 3
    lam = 1.5
    v = losses < lam  # self-paced selection: keep the easy samples
    torch.dot(losses, v) / v.sum()


def _curriculum_softmax_weights_fp16() -> None:
    _seeded()
    scores = torch.linspace(0, 20, 64, dtype=f16)  # per-sample competence scores from the fp16 scorer
    weights = torch.exp(scores / 0.1)
    torch.multinomial(weights / weights.sum(), 16)


CASES: dict[str, LiveCase] = {
    # ER replay indices drawn as floor(rand * n_stored), left float, used to index the buffer
    "er-replay-indices-floor-float": case(_er_replay_indices_from_floor, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # DER++: a bf16 model's logits written into the fp32 logit buffer by slot indices
    "der-logits-bf16-into-fp32-buffer": case(_der_logits_bf16_into_fp32_buffer, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # reservoir sampling: an augmented float batch written into the uint8 image buffer
    "reservoir-uint8-buffer-float-write": case(_reservoir_uint8_buffer_write_augmented, "indexed_write_dtype",
                                               "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # task-boundary bookkeeping: the stream step of each buffer slot kept as int16, past 32767 steps
    "slot-step-counter-int16-overflow": case(_sample_counter_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # task-conditioned FiLM fed the int64 one-hot of the replayed task ids
    "task-one-hot-int64-film-linear": case(_task_one_hot_into_film, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # class-incremental: unseen classes as 1 - the bool seen-class mask
    "unseen-classes-one-minus-bool": case(_unseen_classes_one_minus_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # class-incremental: the unseen-class mask from the benchmark's npz (uint8) given to masked_fill
    "unseen-classes-uint8-masked-fill": case(_seen_classes_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # class-incremental: the head grown for a new task after the model was cast to bf16, left fp32
    "expanded-head-fp32-after-bf16-cast": case(_expanded_head_after_bf16_cast, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # task-incremental: label offset task_id * (classes / tasks) with true division makes float targets
    "task-il-label-offset-float-target": case(_task_il_label_offset_true_division, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # iCaRL nearest-mean-of-exemplars: class means from numpy (float64) against bf16 features
    "icarl-ncm-numpy-f64-class-means": case(_icarl_ncm_numpy_class_means, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # per-class accuracy bookkeeping: bool correct flags scatter_add_'ed into a float counter
    "per-class-correct-scatter-add-bool": case(_per_class_correct_scatter_add_bool, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # online EWC: the float64 running Fisher lerp_'ed toward this task's fp32 Fisher
    "online-ewc-f64-fisher-lerp-f32": case(_online_ewc_fisher_lerp, "lerp_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # EWC penalty as linalg.vecdot of the float64 Fisher and the bf16 squared weight change
    "ewc-vecdot-f64-fisher-bf16-delta": case(_ewc_vecdot_penalty, "op_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook damping important weights divides by the float64 Fisher, changing the gradient's dtype
    "fisher-damping-hook-f64": case(_fisher_preconditioning_hook, "loss_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # GEM: the numpy (float64) projected gradient assigned to a bf16 parameter's .grad
    "gem-numpy-projected-grad-f64": case(_gem_numpy_projection_grad, "loss_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # A-GEM: the bf16 flattened gradient dotted with the fp32 reference gradient
    "agem-dot-bf16-grad-fp32-reference": case(_agem_dot_bf16_grads_fp32_reference, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # FitNets: the bf16 student's guided features into the fp32 hint regressor (a conv with bias)
    "fitnets-fp32-regressor-bf16-student": case(_fitnets_regressor_fp32, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # feature KD: the fp32 teacher's tokens normalised with the bf16 student's LayerNorm
    "teacher-tokens-bf16-student-layernorm": case(_teacher_tokens_student_layernorm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # cross-model attention distillation: bf16 student queries bmm'd with the fp32 teacher's keys
    "cross-model-attention-bmm-fp32-keys": case(_cross_model_attention_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # entropy sampling: labelled samples excluded with index_fill_(-1e9) on fp16 entropies
    "labeled-pool-index-fill-f16-sentinel": case(_labeled_pool_index_fill_sentinel, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the round's log: a histogram of the fp16 pool entropies with torch.histogram
    "entropy-histogram-fp16": case(_entropy_histogram_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # margin sampling: bf16 margins handed to np.argsort for the labelling tool
    "margin-scores-bf16-np-argsort": case(_query_scores_bf16_argsort, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # query-by-committee vote entropy: the int64 one-hot votes averaged with mean(0)
    "qbc-one-hot-votes-int64-mean": case(_qbc_vote_one_hot_mean, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # DPP batch diversity: logdet of an fp16 similarity kernel
    "dpp-batch-logdet-fp16-kernel": case(_dpp_batch_logdet_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # core-set on raw pixels: uint8 flattened images given to cdist
    "coreset-raw-uint8-pixels-cdist": case(_coreset_raw_uint8_pixels, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # k-center greedy: the diameter of the fp16 feature set from pdist
    "kcenter-pdist-fp16-features": case(_kcenter_pdist_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # core-set: last round's labelled features loaded from numpy (float64), cdist (its matmul path) to the fp32 pool
    "coreset-cdist-f64-labeled-fp32-pool": case(_coreset_cached_f64_labeled_features, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # competence-based curriculum: the pacing size ceil(competence * N) left a float tensor, used as a slice end
    "competence-pacing-float-slice": case(_competence_pacing_float_slice, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # self-paced learning: losses dotted with the bool easy-sample selection
    "self-paced-dot-bool-selection": case(_self_paced_dot_bool_weights, "integer_operand", "f32", "bool",
        grade="correct", grade_at_freeze="correct"),
    # curriculum sampling with exp(score / 0.1) in fp16: inf / inf gives NaN, multinomial refuses it
    "curriculum-exp-weights-fp16-nan": case(_curriculum_softmax_weights_fp16, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
