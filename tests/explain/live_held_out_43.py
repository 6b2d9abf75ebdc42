"""Held-out live set 43: errors whose message is ambiguous about the culprit (a bias, a buffer, a class weight, a
source tensor, a hidden state or an integer input where torch names only the op or a dtype). Defects planted by a
helper who never read the rules, written before castwise ran and graded once with the rules frozen at b910096."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b910096"

bf16 = torch.bfloat16


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _head_bias_log_prior() -> None:
    torch.manual_seed(0)
    head = nn.Linear(16, 4).to(bf16)
    label_counts = torch.tensor([900.0, 60.0, 30.0, 10.0])
    head.bias = nn.Parameter(torch.log(label_counts / label_counts.sum()))  # "start from the class prior"
    head(torch.randn(8, 16, dtype=bf16))


def _lora_merge_weight_data() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(16, 16).to(bf16)
    lora_a, lora_b = torch.randn(4, 16, dtype=bf16), torch.randn(16, 4, dtype=bf16)
    with torch.no_grad():
        layer.weight.data = layer.weight.float() + (lora_b.float() @ lora_a.float()) * (8 / 4)  # merged in fp32
    layer(torch.randn(2, 5, 16, dtype=bf16))


def _layernorm_bias_from_old_checkpoint() -> None:
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(16, 16), nn.LayerNorm(16)).to(bf16)
    legacy = {"ln.gamma": torch.ones(16), "ln.beta": torch.zeros(16)}  # an old checkpoint's names, stored fp32
    block[1].bias = nn.Parameter(legacy["ln.beta"])  # only beta was re-mapped by hand
    block(torch.randn(4, 16, dtype=bf16))


def _groupnorm_zero_gamma_after_cast() -> None:
    torch.manual_seed(0)
    res_block = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.GroupNorm(2, 8)).to(bf16)
    res_block[1].weight = nn.Parameter(torch.zeros(8))  # zero-init the last norm's gamma, done after .to(bf16)
    res_block(torch.randn(1, 8, 6, 6, dtype=bf16))


def _prelu_left_by_linear_only_cast() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.PReLU(16), nn.Linear(16, 2))
    for module in model.modules():
        if isinstance(module, nn.Linear):  # "cast the heavy layers only"
            module.to(bf16)
    model(torch.randn(4, 8, dtype=bf16))


def _svm_head_numpy_class_weights() -> None:
    torch.manual_seed(0)
    labels = np.array([0, 0, 0, 1, 2, 2])
    weights = len(labels) / (3 * np.bincount(labels))  # sklearn-style "balanced" weights, float64
    scores = nn.Linear(10, 3)(torch.randn(6, 10))
    F.multi_margin_loss(scores, torch.from_numpy(labels), weight=torch.from_numpy(weights))


def _token_histogram_scatter_add() -> None:
    ids = torch.tensor([[3, 5, 5, 1], [2, 3, 3, 0]])
    counts = torch.zeros(8)
    counts.scatter_add_(0, ids.flatten(), torch.ones_like(ids.flatten()))  # ones shaped like the ids: int64


def _dense_targets_masked_scatter() -> None:
    labels = torch.tensor([4, 1, 7])  # one label per kept token
    keep = torch.tensor([[True, False, True], [False, True, False]])
    targets = torch.zeros(2, 3)
    targets.masked_scatter_(keep, labels)


def _soft_targets_index_put() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4, 5, dtype=bf16)
    labels = torch.tensor([0, 3, 1, 4])
    annotator_agreement = torch.tensor([0.9, 0.6, 1.0, 0.75])  # per-sample confidence from the dataset, fp32
    soft = torch.full_like(logits, 0.02)
    soft[torch.arange(4), labels] = annotator_agreement
    F.cross_entropy(logits, soft)


def _pruning_restore_put() -> None:
    torch.manual_seed(0)
    dense = nn.Linear(8, 8)
    saved = {"index": torch.tensor([1, 9, 17, 40]), "values": torch.randn(4, dtype=bf16)}  # sparse export in bf16
    with torch.no_grad():
        flat = torch.zeros_like(dense.weight).flatten()
        flat.put_(saved["index"], saved["values"])


def _dna_one_hot_conv1d() -> None:
    torch.manual_seed(0)
    lookup = {"A": 0, "C": 1, "G": 2, "T": 3}
    sequence = torch.tensor([[lookup[base] for base in "ACGTTGCAAC"]])
    motif_scanner = nn.Conv1d(4, 8, kernel_size=5)
    motif_scanner(F.one_hot(sequence, 4).transpose(1, 2))


def _char_rnn_one_hot() -> None:
    torch.manual_seed(0)
    chars = torch.tensor([[7, 4, 11, 11, 14]])
    rnn = nn.LSTM(input_size=27, hidden_size=16, batch_first=True)
    rnn(F.one_hot(chars, 27))


def _fasttext_numpy_embedding() -> None:
    vectors = _rng().standard_normal((20, 8))  # pretrained vectors loaded with numpy: float64
    embed = nn.Embedding.from_pretrained(torch.from_numpy(vectors), freeze=True)
    classifier = nn.Linear(8, 3)
    classifier(embed(torch.tensor([[1, 4, 9], [2, 2, 0]])).mean(1))


def _where_fill_default_dtype() -> None:
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 5, 8, dtype=bf16) for _ in range(3))
    scores = q @ k.transpose(-1, -2) / math.sqrt(8)
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    scores = torch.where(causal, scores, torch.full(scores.shape, float("-inf")))
    scores.softmax(-1) @ v


class _NtkRotaryAttention(nn.Module):
    def __init__(self, dim: int = 8, trained_len: int = 4) -> None:
        super().__init__()
        self.dim, self.trained_len = dim, trained_len
        self.register_buffer("inv_freq", 1.0 / 10000 ** (torch.arange(0, dim, 2).float() / dim), persistent=False)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        seq_len = q.shape[-2]
        if seq_len > self.trained_len:  # dynamic NTK scaling: recompute the frequencies for a longer input
            base = 10000 * (seq_len / self.trained_len) ** (self.dim / (self.dim - 2))
            self.inv_freq = 1.0 / base ** (torch.arange(0, self.dim, 2).float() / self.dim)
        angles = torch.outer(torch.arange(seq_len, device=q.device), self.inv_freq)
        cos, sin = angles.cos().repeat(1, 2), angles.sin().repeat(1, 2)

        def rotate(x: torch.Tensor) -> torch.Tensor:
            half = x.shape[-1] // 2
            return torch.cat([-x[..., half:], x[..., :half]], -1)

        q, k = q * cos + rotate(q) * sin, k * cos + rotate(k) * sin
        weights = torch.einsum("bhqd,bhkd->bhqk", q, k).softmax(-1)
        return torch.einsum("bhqk,bhkd->bhqd", weights, v)


def _dynamic_ntk_inv_freq() -> None:
    torch.manual_seed(0)
    attention = _NtkRotaryAttention().to(bf16)
    q, k, v = (torch.randn(1, 2, 6, 8, dtype=bf16) for _ in range(3))
    attention(q, k, v)


def _kv_cache_value_default_dtype() -> None:
    torch.manual_seed(0)
    batch, heads, max_len, head_dim = 1, 2, 8, 8
    key_cache = torch.zeros(batch, heads, max_len, head_dim, dtype=bf16)
    value_cache = torch.zeros(batch, heads, max_len, head_dim)  # dtype= forgotten on this one
    k, v = torch.randn(1, 2, 3, 8, dtype=bf16), torch.randn(1, 2, 3, 8, dtype=bf16)
    key_cache[:, :, :3], value_cache[:, :, :3] = k, v
    q = torch.randn(1, 2, 1, 8, dtype=bf16)
    F.scaled_dot_product_attention(q, key_cache[:, :, :3], value_cache[:, :, :3])


def _torque_numpy_forces() -> None:
    torch.manual_seed(0)
    positions = nn.Linear(4, 3)(torch.randn(5, 4))  # predicted lever arms
    forces = torch.from_numpy(_rng().standard_normal((5, 3)))  # measured forces from the simulator's numpy export
    torch.linalg.cross(positions, forces, dim=-1)


def _ctc_target_lengths_float_mask() -> None:
    torch.manual_seed(0)
    log_probs = torch.randn(12, 2, 6).log_softmax(-1)
    targets = torch.tensor([[1, 2, 3, 0], [4, 5, 0, 0]])
    target_mask = (targets != 0).float()  # a float mask, reused for a masked mean elsewhere
    F.ctc_loss(log_probs, targets, torch.tensor([12, 12]), target_mask.sum(-1))


def _multilabel_margin_numpy_int32() -> None:
    torch.manual_seed(0)
    label_lists = [[2, 0], [1]]
    padded = np.full((2, 4), -1, dtype=np.int32)  # padded with -1 as the loss wants, in int32
    for row, labels in enumerate(label_lists):
        padded[row, : len(labels)] = labels
    scores = nn.Linear(6, 4)(torch.randn(2, 6))
    F.multilabel_margin_loss(scores, torch.from_numpy(padded))


def _batchnorm_running_var_from_numpy() -> None:
    torch.manual_seed(0)
    bn = nn.BatchNorm1d(6)
    exported = {"mean": np.zeros(6), "var": np.full(6, 2.0)}  # statistics ported from another framework
    bn.running_mean = torch.from_numpy(exported["mean"]).float()
    bn.running_var = torch.from_numpy(exported["var"])
    bn.eval()(torch.randn(4, 6))


def _conv_weight_orthogonal_reinit() -> None:
    torch.manual_seed(0)
    stem = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU()).to(bf16)
    weight = torch.empty(8, 3, 3, 3)
    nn.init.orthogonal_(weight)
    stem[0].weight = nn.Parameter(weight)  # re-initialised after the cast; the bias stays bf16
    stem(torch.randn(1, 3, 8, 8, dtype=bf16))


def _genre_multi_hot_isin() -> None:
    torch.manual_seed(0)
    movie_genres = torch.tensor([[3, 7, 0], [1, 0, 0]])
    multi_hot = torch.stack([torch.isin(torch.arange(10), row[row > 0]) for row in movie_genres])
    nn.Linear(10, 4)(multi_hot)


def _moco_queue_index_copy() -> None:
    torch.manual_seed(0)
    queue = F.normalize(torch.randn(16, 32), dim=0)  # feature dim x queue length, fp32 buffer
    key_encoder = nn.Linear(20, 16)
    with torch.autocast("cpu", dtype=bf16), torch.no_grad():
        keys = F.normalize(key_encoder(torch.randn(4, 20)), dim=1)
    pointer = 8
    queue.index_copy_(1, torch.arange(pointer, pointer + 4), keys.T)


def _concept_direction_npy_dot() -> None:
    torch.manual_seed(0)
    hidden = nn.Linear(8, 8)(torch.randn(8))
    direction = torch.from_numpy(_rng().standard_normal(8))  # a saved .npy steering direction: float64
    torch.dot(hidden, direction / np.linalg.norm(direction.numpy()))


def _gcn_numpy_adjacency_spmm() -> None:
    torch.manual_seed(0)
    rows, cols = np.array([0, 1, 1, 2, 3]), np.array([1, 0, 2, 1, 3])
    degree = np.bincount(rows, minlength=4).astype(np.float64)
    values = 1.0 / np.sqrt(degree[rows] * degree[cols])  # symmetric normalisation in numpy
    adjacency = torch.sparse_coo_tensor(torch.from_numpy(np.vstack([rows, cols])), torch.from_numpy(values), (4, 4))
    features = nn.Linear(5, 8)(torch.randn(4, 5))
    torch.sparse.mm(adjacency, features)


def _calibration_numpy_bin_edges() -> None:
    torch.manual_seed(0)
    confidences = torch.rand(50)
    edges = torch.from_numpy(np.linspace(0.0, 1.0, 11))
    torch.histogram(confidences, bins=edges)


def _calibration_numpy_sample_weights() -> None:
    torch.manual_seed(0)
    confidences = torch.rand(50)
    importance = torch.from_numpy(_rng().uniform(0.5, 2.0, 50))  # importance weights from a pandas column
    torch.histogram(confidences, bins=10, range=(0.0, 1.0), weight=importance)


CASES: dict[str, LiveCase] = {
    # a bf16 text classifier whose head bias was replaced by the log class prior, computed in fp32
    "classifier-bias-log-prior-fp32": case(_head_bias_log_prior, "matmul_dtype", "f32", "bf16", fix=("bias",),
                                           grade="correct", grade_at_freeze="partly",
        why="At freeze (b910096) castwise gave matmul_dtype [f32, bf16] (high confidence). Its culprit lists a "
            "Linear bias among the possible causes, but its fix only says to cast the odd operand or the "
            "activations and never names the bias that was replaced."),
    # a LoRA merge written into weight.data in fp32 on a bf16 layer whose bias stays bf16
    "lora-merge-weight-data-fp32": case(_lora_merge_weight_data, "matmul_dtype", "bf16", "f32", fix=("weight",),
                                        grade="correct", grade_at_freeze="correct"),
    # a bf16 block whose LayerNorm bias alone was re-mapped by hand from an fp32 legacy checkpoint
    "layernorm-bias-remapped-fp32": case(_layernorm_bias_from_old_checkpoint, "norm_param_dtype", "bf16", "f32",
                                         fix=("bias",), grade="correct", grade_at_freeze="partly",
        why="At freeze (b910096) castwise gave norm_param_dtype [bf16, f32] (high confidence). It reads the f32 "
            "tensor as the norm's weight or its input and its fix casts the norm or the input, never naming the "
            "re-mapped bias."),
    # a GroupNorm gamma zero-initialised as a new fp32 Parameter after the block was cast to bf16
    "groupnorm-zero-gamma-after-cast": case(_groupnorm_zero_gamma_after_cast, "norm_param_dtype", "f32",
                                            fix=("weight",), grade="correct", grade_at_freeze="correct"),
    # a cast loop over nn.Linear only: the PReLU slopes between them stay fp32
    "prelu-slopes-left-by-linear-only-cast": case(_prelu_left_by_linear_only_cast, "op_dtype", "bf16", "f32",
                                                  fix=("prelu",), grade="correct", grade_at_freeze="partly",
        why="At freeze (b910096) castwise gave op_dtype [bf16, f32] (high confidence). Its cause and culprit name "
            "the PReLU's slope, but its fix is the generic cast-the-odd-operand advice and does not name the PReLU."),
    # multi-class hinge loss with sklearn-style "balanced" class weights from numpy (float64)
    "multi-margin-numpy-balanced-weights": case(_svm_head_numpy_class_weights, "op_dtype", "f32", "f64",
                                                fix=("weight",), grade="correct", grade_at_freeze="correct"),
    # a token frequency histogram whose scatter_add_ source is ones_like(ids): int64 into a float buffer
    "token-histogram-scatter-add-ones-like-ids": case(_token_histogram_scatter_add, "indexed_write_dtype",
                                                      grade="correct", grade_at_freeze="correct"),
    # dense per-token targets filled with masked_scatter_ from the int64 label list
    "dense-targets-masked-scatter-int-labels": case(_dense_targets_masked_scatter, "indexed_write_dtype", "f32",
                                                    "int64", grade="correct", grade_at_freeze="correct"),
    # soft targets built like the bf16 logits, with per-sample fp32 annotator agreement written by index
    "soft-targets-index-put-fp32-agreement": case(_soft_targets_index_put, "indexed_write_dtype", "bf16", "f32",
                                                  grade="correct", grade_at_freeze="correct"),
    # restoring a pruned layer's surviving weights, exported in bf16, into its fp32 weight with put_
    "pruning-restore-put-bf16-survivors": case(_pruning_restore_put, "indexed_write_dtype", "f32", "bf16",
                                               grade="correct", grade_at_freeze="correct"),
    # a DNA motif scanner fed F.one_hot of the bases (int64), where torch's message names the conv's bias
    "dna-one-hot-conv1d": case(_dna_one_hot_conv1d, "integer_operand", "int64", "f32", grade="correct",
                               grade_at_freeze="correct"),
    # a character-level LSTM fed F.one_hot of the characters (int64)
    "char-rnn-one-hot-lstm": case(_char_rnn_one_hot, "integer_operand", "int64", "f32", grade="correct",
                                  grade_at_freeze="correct"),
    # fastText-style classifier whose pretrained embedding table came from numpy as float64
    "fasttext-numpy-embedding-f64-linear": case(_fasttext_numpy_embedding, "matmul_dtype", "f64", "f32",
                                                fix=("embedding",), grade="partly", grade_at_freeze="partly",
        why="At freeze (b910096) castwise gave matmul_dtype [f64, f32] (high confidence). It blames float64 data "
            "from numpy in general and never traces the float64 activation to the embedding table it came from."),
    # causal masking with torch.where and a torch.full fill (default fp32) that promotes the bf16 scores
    "where-full-fill-promotes-scores": case(_where_fill_default_dtype, "matmul_dtype", "f32", "bf16", grade="correct",
                                            grade_at_freeze="correct"),
    # dynamic NTK rotary scaling recomputes the inv_freq buffer in fp32 inside a bf16 model's forward
    "dynamic-ntk-inv-freq-recomputed-fp32": case(_dynamic_ntk_inv_freq, "matmul_dtype", "f32", "bf16", grade="correct",
                                                 grade_at_freeze="correct"),
    # a static KV cache whose value buffer was allocated without dtype= while the key buffer has it
    "kv-cache-value-buffer-default-dtype": case(_kv_cache_value_default_dtype, "sdpa_dtype", "bf16", "f32",
                                                grade="correct", grade_at_freeze="correct"),
    # torque from predicted lever arms (fp32) and simulator forces loaded from numpy (float64)
    "torque-cross-numpy-forces": case(_torque_numpy_forces, "op_dtype", "f32", "f64", grade="correct",
                                      grade_at_freeze="correct"),
    # CTC target lengths summed from a float token mask; the input lengths are fine
    "ctc-target-lengths-float-mask-sum": case(_ctc_target_lengths_float_mask, "target_dtype", fix=("target",),
                                              grade="correct", grade_at_freeze="wrong",
        why="At freeze (b910096) castwise gave target_dtype [] (high confidence). It files ctc_loss's lengths with "
            "targets (target_dtype), where this set files an integer length argument as index_tensor_dtype; it did "
            "name target_lengths and the right fix. Expectation corrected after grading from index_tensor_dtype to "
            "target_dtype, the corpus's convention for ctc_loss's lengths (live_held_out_17 "
            "keras-ocr-ctc-float-input-length, live_held_out_21 ctc-lengths-true-division)."),
    # multilabel margin targets padded with -1 in a numpy int32 array
    "multilabel-margin-numpy-int32-targets": case(_multilabel_margin_numpy_int32, "target_dtype", "int64", "int32",
                                                  grade="correct", grade_at_freeze="partly",
        why="At freeze (b910096) castwise gave target_dtype [int32] (high confidence). It read only the found dtype"
            " (Int) and not the expected Long, and its text describes cross_entropy/nll_loss class-index targets, "
            "not multilabel_margin_loss."),
    # BatchNorm running_var buffer assigned from a numpy export (float64), running_mean converted
    "batchnorm-running-var-numpy-f64": case(_batchnorm_running_var_from_numpy, "norm_param_dtype", "f32", "f64",
                                            fix=("running",), grade="correct", grade_at_freeze="partly",
        why="At freeze (b910096) castwise gave norm_param_dtype [f32, f64] (high confidence). It takes the f64 "
            "tensor for the input or the weight and never names the running_var buffer that was assigned from "
            "numpy."),
    # a bf16 stem conv whose weight was orthogonally re-initialised in a new fp32 Parameter after the cast
    "conv-weight-orthogonal-reinit-after-cast": case(_conv_weight_orthogonal_reinit, "conv_weight_dtype", "bf16", "f32",
                                                     fix=("weight",), grade="correct", grade_at_freeze="correct"),
    # multi-hot genre features from torch.isin (bool) fed straight to a Linear
    "genre-multi-hot-isin-bool-linear": case(_genre_multi_hot_isin, "integer_operand", "bool", "f32", grade="correct",
                                             grade_at_freeze="correct"),
    # MoCo queue (fp32) enqueued with index_copy_ from keys computed under bf16 autocast
    "moco-queue-index-copy-autocast-keys": case(_moco_queue_index_copy, "indexed_write_dtype", "f32", "bf16",
                                                grade="correct", grade_at_freeze="correct"),
    # a steering direction loaded from a .npy (float64) dotted with an fp32 hidden state
    "concept-direction-npy-dot": case(_concept_direction_npy_dot, "matmul_dtype", "f32", "f64", grade="correct",
                                      grade_at_freeze="correct"),
    # a GCN whose normalised sparse adjacency values were computed in numpy (float64)
    "gcn-numpy-adjacency-values-spmm": case(_gcn_numpy_adjacency_spmm, "matmul_dtype", "f64", "f32", grade="correct",
                                            grade_at_freeze="correct"),
    # a reliability diagram binned with numpy linspace edges (float64) over fp32 confidences
    "calibration-histogram-numpy-bin-edges": case(_calibration_numpy_bin_edges, "op_dtype", "f32", "f64",
                                                  grade="correct", grade_at_freeze="correct"),
    # the same histogram with importance weights from a pandas/numpy column (float64); the bins are an int
    "calibration-histogram-numpy-sample-weights": case(_calibration_numpy_sample_weights, "op_dtype", "f32", "f64",
                                                       fix=("weight",), grade="correct", grade_at_freeze="partly",
        why="At freeze (b910096) castwise gave op_dtype [f32, f64] (high confidence). Its cause names histogramdd's"
            " f64 weight, but the culprit and fix fall back to the generic numpy-float64 advice and do not say to "
            "convert the weight tensor."),
}
