"""Held-out live set 53: knowledge distillation, pruning and low-rank compression by hand in low precision (teacher
and student in different dtypes, distillation losses on logits and features, temperature scaling, magnitude and
structured pruning masks, low-rank factorisation with SVD, weight sharing and clustering, fake-quant during compression
fine-tuning). Defects planted by a helper who never read the rules, written before castwise ran and graded once with
the rules frozen at ecde1b6."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ecde1b6"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


# --- distillation on logits


def _hard_labels_cast_to_student_dtype() -> None:
    torch.manual_seed(0)
    teacher_logits = torch.randn(4, 10)
    student_logits = torch.randn(4, 10, dtype=bf16, requires_grad=True)
    hard = teacher_logits.argmax(-1).to(student_logits.dtype)  # "keep everything in the student's dtype"
    F.cross_entropy(student_logits, hard)


def _topk_teacher_cache_int16_ids_gather() -> None:
    torch.manual_seed(0)
    vocab, k = 32000, 8
    teacher = torch.randn(2, 6, vocab)
    values, ids = teacher.topk(k, dim=-1)
    cache = {"ids": ids.to(torch.int16), "values": values.to(bf16)}  # ids fit int16 for a 32k vocabulary
    student_log_probs = torch.randn(2, 6, vocab, dtype=bf16).log_softmax(-1)
    picked = student_log_probs.gather(-1, cache["ids"])
    (cache["values"].softmax(-1) * picked).sum()


def _topk_teacher_probs_scattered_into_fp32_dense() -> None:
    torch.manual_seed(0)
    vocab, k = 50, 5
    values, ids = torch.randn(3, vocab, dtype=bf16).topk(k, dim=-1)
    dense = torch.zeros(3, vocab)  # the full-vocabulary target, default dtype
    dense.scatter_(-1, ids, values.softmax(-1))


def _int8_teacher_logit_cache_scaled_in_place() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4, 10) * 6
    scale = logits.abs().amax() / 127
    cached = torch.round(logits / scale).clamp(-127, 127).to(torch.int8)  # logits cached as int8 codes
    temperature = 2.0
    cached.mul_(scale).div_(temperature)  # dequantise and soften in place


def _teacher_fp16_sharpened_sequence_sampling() -> None:
    torch.manual_seed(0)
    teacher_logits = (torch.randn(2, 32) * 12).half()
    temperature = 1e-4  # near-greedy sequence-level distillation
    probs = (teacher_logits / temperature).softmax(-1)
    torch.multinomial(probs, 1)


# --- distillation on features and attention


def _feature_projector_fp32_for_bf16_student() -> None:
    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 32)).to(bf16)
    projector = nn.Linear(32, 64)  # FitNets regressor added after the student was cast
    teacher_features = torch.randn(4, 64)
    hint = projector(student(torch.randn(4, 16, dtype=bf16)))
    F.mse_loss(hint, teacher_features)


def _fp32_lstm_teacher_fed_bf16_shared_embeddings() -> None:
    torch.manual_seed(0)
    embedding = nn.Embedding(100, 16).to(bf16)  # shared with the bf16 student
    teacher = nn.LSTM(16, 32, batch_first=True).eval()  # the fp32 teacher
    tokens = torch.randint(0, 100, (2, 7))
    with torch.no_grad():
        teacher(embedding(tokens))


def _crd_fp32_memory_bank_bmm_bf16_student() -> None:
    torch.manual_seed(0)
    bank = F.normalize(torch.randn(1000, 32), dim=1)  # teacher memory bank, fp32 buffer
    student_embed = F.normalize(torch.randn(4, 32, dtype=bf16), dim=1)
    idx = torch.randint(0, 1000, (4, 17))
    negatives = bank[idx]  # (B, K+1, D)
    torch.bmm(negatives, student_embed.unsqueeze(2))


def _attention_kd_student_queries_teacher_kv() -> None:
    torch.manual_seed(0)
    student_q = torch.randn(1, 4, 6, 8, dtype=bf16)
    teacher_k = torch.randn(1, 4, 6, 8)  # cached from the fp32 teacher's forward
    teacher_v = torch.randn(1, 4, 6, 8)
    F.scaled_dot_product_attention(student_q, teacher_k, teacher_v)


def _student_init_from_every_other_teacher_layer() -> None:
    torch.manual_seed(0)
    teacher_layers = torch.randn(12, 16, 16, dtype=bf16)  # stacked bf16 teacher weights
    student_layers = torch.empty(6, 16, 16)  # fp32 student being initialised
    student_layers.index_copy_(0, torch.arange(6), teacher_layers[::2])


def _bf16_teacher_encoder_eval_fed_fp32_inputs() -> None:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    teacher = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False).to(bf16).eval()
    student_inputs = torch.randn(2, 5, 8)  # the fp32 student's embeddings
    with torch.no_grad():
        teacher(student_inputs)


# --- pruning


def _global_magnitude_threshold_quantile_bf16() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 16), nn.Linear(16, 4)).to(bf16)
    scores = torch.cat([p.detach().abs().flatten() for p in model.parameters() if p.dim() > 1])
    torch.quantile(scores, 0.8)


def _iterative_pruning_sentinel_score_fp16() -> None:
    torch.manual_seed(0)
    weight = torch.randn(8, 8, dtype=f16)
    already_pruned = weight.abs() < 0.2
    scores = weight.abs().clone()
    scores.masked_fill_(already_pruned, 1e10)  # keep the pruned ones out of the next round's bottom-k


def _pruning_gradient_remask_fp32_mask() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(8, 4).to(bf16)
    mask = (torch.rand(4, 8) > 0.5).float()  # the saved keep-mask, fp32
    layer(torch.randn(2, 8, dtype=bf16)).float().pow(2).mean().backward()
    layer.weight.grad = layer.weight.grad * mask


def _two_four_mask_stored_int8_used_as_index() -> None:
    torch.manual_seed(0)
    weight = torch.randn(4, 8, dtype=bf16)
    groups = weight.abs().view(4, 2, 4)
    keep = torch.zeros_like(groups, dtype=torch.int8).scatter_(-1, groups.topk(2, dim=-1).indices, 1)
    prune_mask = (1 - keep).view(4, 8)  # int8 to halve the mask's memory
    weight[prune_mask] = 0


def _sparsity_report_mean_of_bool() -> None:
    torch.manual_seed(0)
    weight = torch.randn(16, 16, dtype=bf16)
    weight[weight.abs() < 0.5] = 0
    (weight == 0).mean()


def _channel_importance_norm_on_int8_codes() -> None:
    torch.manual_seed(0)
    codes = torch.randint(-127, 128, (8, 16), dtype=torch.int8)  # an already-quantised layer's weight
    importance = torch.linalg.vector_norm(codes, dim=1)
    importance.argsort(descending=True)[:4]


def _pruned_conv_rebuilt_fp32_bias_bf16_weight() -> None:
    torch.manual_seed(0)
    old = nn.Conv2d(3, 8, 3, padding=1).to(bf16)
    keep = old.weight.detach().abs().sum(dim=(1, 2, 3)).argsort(descending=True)[:4]
    new = nn.Conv2d(3, 4, 3, padding=1)  # default fp32
    new.weight.data = old.weight.data[keep].clone()
    new(torch.randn(1, 3, 8, 8, dtype=bf16))


def _pruned_weight_to_sparse_coo_fp32_activations() -> None:
    torch.manual_seed(0)
    weight = torch.randn(16, 8, dtype=bf16)
    weight[weight.abs() < 1.0] = 0
    sparse_weight = weight.to_sparse()
    activations = torch.randn(8, 4)  # the fp32 calibration batch, transposed
    torch.sparse.mm(sparse_weight, activations)


def _head_pruning_fp32_additive_head_mask_mha() -> None:
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, batch_first=True).to(bf16)
    x = torch.randn(1, 4, 8, dtype=bf16)
    head_mask = torch.zeros(2, 4, 4)  # (batch * heads, L, S), fp32
    head_mask[1] = float("-inf")  # prune head 1
    head_mask[1, :, 0] = 0.0
    attention(x, x, x, attn_mask=head_mask)


# --- low-rank factorisation


def _svd_factors_fp32_into_bf16_linear() -> None:
    torch.manual_seed(0)
    dense = nn.Linear(32, 16, bias=False).to(bf16)
    u, s, vh = torch.linalg.svd(dense.weight.float(), full_matrices=False)
    rank = 4
    down = nn.Linear(32, rank, bias=False).to(bf16)
    up = nn.Linear(rank, 16, bias=False).to(bf16)
    down.weight.data = torch.diag(s[:rank].sqrt()) @ vh[:rank]
    up.weight.data = u[:, :rank] @ torch.diag(s[:rank].sqrt())
    up(down(torch.randn(2, 32, dtype=bf16)))


def _tucker_core_conv_fp32_between_bf16_convs() -> None:
    torch.manual_seed(0)
    first = nn.Conv2d(8, 4, 1, bias=False).to(bf16)
    core = nn.Conv2d(4, 4, 3, padding=1, bias=False)  # core made from the fp32 decomposition
    last = nn.Conv2d(4, 8, 1, bias=False).to(bf16)
    last(core(first(torch.randn(1, 8, 6, 6, dtype=bf16))))


def _activation_aware_factor_lstsq_bf16() -> None:
    torch.manual_seed(0)
    inputs = torch.randn(64, 16, dtype=bf16)  # calibration activations from the bf16 model
    targets = inputs @ torch.randn(16, 8, dtype=bf16)
    torch.linalg.lstsq(inputs, targets)


def _whitening_eigh_of_bf16_covariance() -> None:
    torch.manual_seed(0)
    activations = torch.randn(128, 16, dtype=bf16)
    covariance = activations.T @ activations / activations.shape[0]
    torch.linalg.eigh(covariance)


# --- weight sharing and clustering


def _kmeans_centroid_sums_index_add_bf16_weights() -> None:
    torch.manual_seed(0)
    weights = torch.randn(64, dtype=bf16)
    centroids = torch.linspace(-2, 2, 8)
    assign = (weights.float()[:, None] - centroids).abs().argmin(1)
    sums = torch.zeros(8)
    sums.index_add_(0, assign, weights)


def _fp8_centroids_times_bf16_channel_scale() -> None:
    torch.manual_seed(0)
    centroids = torch.linspace(-1, 1, 16).to(E4M3)  # shared values stored in fp8
    codes = torch.randint(0, 16, (8, 4))
    scale = torch.rand(8, 1, dtype=bf16)
    centroids[codes] * scale


def _weight_clustering_with_numpy_on_bf16() -> None:
    torch.manual_seed(0)
    weight = torch.randn(16, 16, dtype=bf16)
    flat = weight.detach().flatten().numpy()
    np.quantile(flat, np.linspace(0, 1, 8))


# --- fake-quant during compression fine-tuning


def _compressed_student_halved_trained_with_grad_scaler() -> None:
    torch.manual_seed(0)
    student = nn.Linear(8, 4).half()
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    loss = student(torch.randn(2, 8, dtype=f16)).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _fake_quant_on_int8_codes() -> None:
    torch.manual_seed(0)
    weight = torch.randn(4, 8)
    scale = float(weight.abs().max()) / 127
    codes = torch.round(weight / scale).to(torch.int8)  # the weights were already replaced by codes
    torch.fake_quantize_per_tensor_affine(codes, scale, 0, -128, 127)


def _per_channel_fake_quant_numpy_f64_scales() -> None:
    torch.manual_seed(0)
    weight = torch.randn(4, 8)
    running_absmax = np.zeros(4)  # calibration statistics kept in numpy (float64 by default)
    running_absmax = np.maximum(running_absmax, np.abs(weight.numpy()).max(axis=1))
    scales = torch.from_numpy(running_absmax / 127)
    zero_points = torch.zeros(4, dtype=torch.int32)
    torch.fake_quantize_per_channel_affine(weight, scales, zero_points, 0, -128, 127)


CASES: dict[str, LiveCase] = {
    # --- distillation on logits
    # hard labels from the teacher's argmax cast to the bf16 student's dtype, given to cross_entropy
    "kd-hard-labels-cast-to-student-dtype": case(_hard_labels_cast_to_student_dtype, "target_dtype", "bf16",
                                                 fix=("long",), grade="correct", grade_at_freeze="correct"),
    # sparse top-k logit distillation: the teacher cache's ids stored as int16, gathered from the student log-probs
    "topk-kd-int16-ids-gather": case(_topk_teacher_cache_int16_ids_gather, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # top-k teacher probabilities (bf16) scattered into an fp32 full-vocabulary target
    "topk-kd-bf16-probs-scatter-into-fp32": case(_topk_teacher_probs_scattered_into_fp32_dense,
                                                 "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # teacher logits cached as int8 codes, dequantised and divided by the temperature in place
    "int8-teacher-logit-cache-in-place-temperature": case(_int8_teacher_logit_cache_scaled_in_place, "result_cast",
                                                          "f32", "int8", grade="correct", grade_at_freeze="correct"),
    # sequence-level KD sampling from an fp16 teacher sharpened by temperature 1e-4: inf logits, the softmax goes NaN
    "fp16-teacher-sharpened-sampling-nan": case(_teacher_fp16_sharpened_sequence_sampling, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # --- distillation on features and attention
    # a FitNets regressor added (fp32) after the student was cast to bf16
    "fitnets-projector-fp32-bf16-student": case(_feature_projector_fp32_for_bf16_student, "matmul_dtype", "bf16",
                                                "f32", grade="correct", grade_at_freeze="correct"),
    # an fp32 LSTM teacher fed the bf16 student's shared embedding outputs
    "lstm-teacher-fp32-bf16-shared-embeddings": case(_fp32_lstm_teacher_fed_bf16_shared_embeddings, "rnn_dtype",
                                                     "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # CRD: fp32 teacher memory-bank negatives bmm'd with the bf16 student embedding
    "crd-fp32-memory-bank-bmm": case(_crd_fp32_memory_bank_bmm_bf16_student, "batched_matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # attention distillation: bf16 student queries over the fp32 teacher's cached keys and values in SDPA
    "attention-kd-student-q-teacher-kv": case(_attention_kd_student_queries_teacher_kv, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # DistilBERT-style init: every other bf16 teacher layer index_copy_'d into the fp32 student's stacked weights
    "student-init-every-other-layer-index-copy": case(_student_init_from_every_other_teacher_layer,
                                                      "indexed_write_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # a bf16 nn.TransformerEncoder teacher in eval/no_grad fed the fp32 student's embeddings
    "bf16-teacher-encoder-fp32-inputs-fastpath": case(_bf16_teacher_encoder_eval_fed_fp32_inputs,
                                                      "transformer_fastpath", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- pruning
    # global magnitude pruning threshold by torch.quantile over a bf16 model's weights
    "global-magnitude-quantile-bf16": case(_global_magnitude_threshold_quantile_bf16, "no_kernel", grade="correct", grade_at_freeze="correct"),
    # iterative pruning marks already-pruned fp16 scores with a 1e10 sentinel
    "iterative-pruning-1e10-sentinel-fp16": case(_iterative_pruning_sentinel_score_fp16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # pruning fine-tune re-masking gradients with p.grad = p.grad * mask, the mask fp32 and the weight bf16
    "pruning-grad-remask-fp32-mask-assigned": case(_pruning_gradient_remask_fp32_mask, "loss_dtype", "f32",
                                                   "bf16", grade="correct", grade_at_freeze="correct"),
    # a 2:4 pruning mask kept as int8 to save memory, used to zero the weights by indexing
    "two-four-mask-int8-index": case(_two_four_mask_stored_int8_used_as_index, "index_tensor_dtype",
                                     fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # sparsity reported as (weight == 0).mean() on the bool comparison
    "sparsity-report-bool-mean": case(_sparsity_report_mean_of_bool, "integer_operand", "bool", grade="correct", grade_at_freeze="correct"),
    # structured pruning ranking channels by the L2 norm of an already-quantised layer's int8 codes
    "channel-importance-norm-int8-codes": case(_channel_importance_norm_on_int8_codes, "integer_operand", "int8", grade="correct", grade_at_freeze="correct"),
    # a channel-pruned conv rebuilt in fp32 with the bf16 weight slice assigned by .data, its bias left fp32
    "pruned-conv-rebuilt-fp32-bias": case(_pruned_conv_rebuilt_fp32_bias_bf16_weight, "conv_bias_dtype", "bf16",
                                          "f32", grade="correct", grade_at_freeze="correct"),
    # a pruned bf16 weight converted to sparse COO, multiplied with fp32 activations by torch.sparse.mm
    "pruned-sparse-coo-mm-fp32-activations": case(_pruned_weight_to_sparse_coo_fp32_activations, "matmul_dtype",
                                                  "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # head pruning by an fp32 additive per-head mask given to a bf16 MultiheadAttention
    "head-pruning-fp32-head-mask-mha": case(_head_pruning_fp32_additive_head_mask_mha, "attn_mask_dtype", "f32",
                                            "bf16", grade="correct", grade_at_freeze="correct"),
    # --- low-rank factorisation
    # a bf16 Linear factorised by SVD of its .float() weight, the fp32 factors assigned into bf16 Linears by .data
    "svd-factors-fp32-into-bf16-linears": case(_svd_factors_fp32_into_bf16_linear, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # Tucker-decomposed conv: the core conv built fp32 between the bf16 1x1 convs
    "tucker-core-conv-fp32": case(_tucker_core_conv_fp32_between_bf16_convs, "conv_weight_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # activation-aware low-rank fit by least squares on the bf16 model's calibration activations
    "activation-aware-lstsq-bf16": case(_activation_aware_factor_lstsq_bf16, "no_kernel", grade="correct", grade_at_freeze="correct"),
    # SVD-LLM-style whitening: eigh of the bf16 activation covariance
    "whitening-eigh-bf16-covariance": case(_whitening_eigh_of_bf16_covariance, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- weight sharing and clustering
    # k-means weight clustering: per-centroid sums index_add_'ed from bf16 weights into an fp32 buffer
    "kmeans-centroid-sums-index-add-bf16": case(_kmeans_centroid_sums_index_add_bf16_weights, "indexed_write_dtype",
                                                "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # weight sharing with fp8 centroids looked up by code and multiplied by bf16 per-channel scales
    "fp8-shared-centroids-times-bf16-scale": case(_fp8_centroids_times_bf16_channel_scale, "fp8_promotion",
                                                  "float8_e4m3fn", "bf16", grade="correct", grade_at_freeze="correct"),
    # weight clustering done in numpy on a bf16 layer's weights
    "weight-clustering-numpy-bf16": case(_weight_clustering_with_numpy_on_bf16, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- fake-quant during compression fine-tuning
    # the compressed student halved to fp16 and fine-tuned through GradScaler
    "compressed-student-fp16-grad-scaler": case(_compressed_student_halved_trained_with_grad_scaler,
                                                "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
    # fake quantisation applied to weights already replaced by their int8 codes
    "fake-quant-on-int8-codes": case(_fake_quant_on_int8_codes, "integer_operand", "int8", grade="correct", grade_at_freeze="correct"),
    # per-channel fake quant with scales from a numpy running absmax started with np.zeros (float64)
    "per-channel-fake-quant-f64-scales": case(_per_channel_fake_quant_numpy_f64_scales, "op_dtype", "f64", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (ecde1b6) castwise gave nothing. fake_quantize_per_channel_affine's own check on its scale (\"Scale must be Float or BFloat16, found Double\") is not a wording the rules read: the float64 scales came from numpy calibration statistics started with np.zeros."),
}
