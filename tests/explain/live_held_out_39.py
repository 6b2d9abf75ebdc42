"""Held-out live set 39: evaluation, metrics, logging, early stopping, TTA and ensembling in low precision, revisited.
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen
at ab1286f."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ab1286f"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


def _labels_and_logits(classes: int = 4, n: int = 16) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.randint(0, classes, (n,)), torch.randn(n, classes)


# --- metrics written by hand -------------------------------------------------------------------------------------------


def _confusion_matrix_index_put_float_ones() -> None:
    target, logits = _labels_and_logits()
    prediction = logits.argmax(-1)
    matrix = torch.zeros(4, 4, dtype=torch.long)
    matrix.index_put_((target, prediction), torch.ones(len(target)), accumulate=True)


def _eval_predictions_scattered_into_sentinel_buffer() -> None:
    # a distributed sampler hands out shuffled indices; the loop puts each batch's confidences back in dataset order
    torch.manual_seed(0)
    confidences = torch.full((10,), -1)
    order = torch.randperm(10)
    for batch in order.split(4):
        probs = torch.rand(len(batch))
        confidences.scatter_(0, batch, probs)


def _bleu_bigram_keys_shifted_bf16_ids() -> None:
    # the eval collate casts every tensor of the batch to the model's dtype, the decoded ids included
    torch.manual_seed(0)
    batch = {"hyp": torch.randint(0, 1000, (2, 8)), "ref": torch.randint(0, 1000, (2, 8))}
    batch = {name: value.to(bf16) for name, value in batch.items()}
    hyp = batch["hyp"]
    keys = (hyp[:, :-1] << 16) | hyp[:, 1:]
    torch.unique(keys, return_counts=True)


def _retrieval_ann_uint64_neighbour_ids() -> None:
    # hnswlib-style knn_query returns the neighbour labels as numpy uint64
    torch.manual_seed(0)
    gallery_labels = torch.randint(0, 5, (50,))
    query_labels = torch.randint(0, 5, (3,))
    neighbours = torch.from_numpy(np.random.default_rng(0).integers(0, 50, (3, 5)).astype(np.uint64))
    hits = gallery_labels[neighbours] == query_labels[:, None]
    hits.any(1).float().mean()


def _fp8_served_model_accuracy_argmax() -> None:
    torch.manual_seed(0)
    target, logits = _labels_and_logits()
    served_logits = logits.to(E4M3)  # the fp8 serving path returns its logits unconverted
    (served_logits.argmax(-1) == target).float().mean()


def _auroc_sort_fp8_cached_scores() -> None:
    torch.manual_seed(0)
    labels = torch.rand(32) > 0.5
    scores = torch.rand(32).to(E4M3)  # detector scores cached in fp8 by the serving stack
    order = torch.sort(scores, descending=True).indices
    tps = labels[order].cumsum(0)
    fps = (~labels[order]).cumsum(0)
    torch.trapezoid(tps / tps[-1], fps / fps[-1])


def _boundary_iou_bool_subtraction() -> None:
    mask = torch.zeros(1, 1, 8, 8, dtype=torch.bool)
    mask[..., 2:6, 2:6] = True
    eroded = -F.max_pool2d(-mask.float(), 3, 1, 1) > 0.5
    boundary = mask - eroded
    boundary.sum()


def _soft_dice_metric_einsum_int64_one_hot() -> None:
    torch.manual_seed(0)
    probs = torch.randn(2, 3, 4, 4).softmax(1).to(bf16)
    target = torch.randint(0, 3, (2, 4, 4))
    one_hot = F.one_hot(target, 3).permute(0, 3, 1, 2)
    intersection = torch.einsum("nchw,nchw->nc", probs, one_hot)
    (2 * intersection / (probs.sum((2, 3)) + one_hot.sum((2, 3)))).mean()


def _iou_accumulator_zeros_like_counts() -> None:
    matrix = torch.tensor([[5, 1, 0], [2, 7, 1], [0, 1, 4]])
    iou_sum = torch.zeros_like(matrix.diag())
    for _ in range(2):  # accumulated over two evaluation shards
        inter = matrix.diag()
        union = matrix.sum(0) + matrix.sum(1) - inter
        iou_sum += inter / union


def _retrieval_int8_quantized_index_normalised() -> None:
    torch.manual_seed(0)
    index = torch.randint(-127, 128, (20, 8), dtype=torch.int8)  # embedding index quantized to int8 to save memory
    queries = F.normalize(torch.randn(2, 8), dim=-1)
    gallery = F.normalize(index, dim=-1)
    (queries @ gallery.T).topk(5)


def _f1_threshold_heaviside_bf16_probs() -> None:
    torch.manual_seed(0)
    probs = torch.rand(16).to(bf16)
    target = torch.rand(16) > 0.5
    predicted = torch.heaviside(probs - 0.5, torch.tensor([0.0]))
    tp = (predicted * target).sum()
    2 * tp / (predicted.sum() + target.sum())


def _reliability_bins_in_logits_dtype() -> None:
    torch.manual_seed(0)
    logits = torch.randn(32, 5).to(bf16)
    edges = torch.linspace(0, 1, 11, dtype=logits.dtype)
    confidences = logits.float().softmax(-1).amax(-1)
    torch.histogram(confidences, bins=edges)


# --- accumulating across batches and ranks, logging --------------------------------------------------------------------


def _per_class_counts_int16_all_reduce() -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        labels = torch.tensor([0, 2, 1, 2], dtype=torch.int16)  # the label shard is int16 on disk
        counts = torch.zeros(3, dtype=labels.dtype)
        counts += F.one_hot(labels.long(), 3).sum(0).to(labels.dtype)
        dist.all_reduce(counts)
    finally:
        dist.destroy_process_group()


def _metrics_dataframe_bf16_probabilities() -> None:
    target, logits = _labels_and_logits()
    probs = logits.to(bf16).softmax(-1)
    frame = pd.DataFrame({"target": target, "confidence": probs.amax(-1)})
    frame.to_csv(index=False)


def _epoch_loss_np_mean_bf16_losses() -> None:
    model = nn.Linear(4, 3).to(bf16)
    target, _ = _labels_and_logits(3, 8)
    losses = []
    with torch.no_grad():
        for x, y in zip(torch.randn(2, 4, 4).to(bf16), target.view(2, 4)):
            losses.append(F.cross_entropy(model(x), y))
    np.mean(losses)


def _mc_dropout_variance_fp16_nan() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.Dropout(0.2), nn.Linear(16, 1)).half().train()
    with torch.no_grad():
        model[2].weight.mul_(2000.0)
        samples = torch.stack([model(torch.randn(2, 4).half() * 4) for _ in range(8)])
    variance = (samples ** 2).mean(0) - samples.mean(0) ** 2
    torch.distributions.Normal(samples.mean(0), variance.sqrt()).log_prob(torch.zeros(2, 1, dtype=f16))


# --- early stopping and checkpoint selection ----------------------------------------------------------------------------


def _multitask_early_stopping_sentinel_f16() -> None:
    val_losses = torch.tensor([0.7, 1.3, 0.2], dtype=f16)  # per-task validation losses from the fp16 model
    best = torch.full_like(val_losses, 1e9)
    best = torch.minimum(best, val_losses)


def _early_stopping_plateau_isclose() -> None:
    best = torch.tensor(0.8123)  # kept as an fp32 tensor by the callback
    val_metric = torch.tensor(0.8125).to(bf16)  # the eval loop's mean under bf16
    plateau = torch.isclose(val_metric, best, rtol=1e-3)
    bool(plateau)


# --- test-time augmentation ---------------------------------------------------------------------------------------------


def _tta_per_channel_gain_promotes_batch() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.AdaptiveAvgPool2d(1), nn.Flatten()).to(bf16).eval()
    images = torch.randn(2, 3, 8, 8).to(bf16)
    gains = [torch.tensor([1.0, 1.0, 1.0]), torch.tensor([1.1, 1.0, 0.9])]
    with torch.no_grad():
        torch.stack([model(images * g[:, None, None]) for g in gains]).mean(0)


def _tta_running_mean_lerp() -> None:
    torch.manual_seed(0)
    model = nn.Linear(6, 3).to(bf16).eval()
    x = torch.randn(2, 6).to(bf16)
    mean = torch.zeros(2, 3)
    with torch.no_grad():
        for i, view in enumerate((x, x.flip(-1), x.roll(1, -1))):
            mean.lerp_(model(view).softmax(-1), 1 / (i + 1))


# --- ensembling models of different dtypes ------------------------------------------------------------------------------


def _ensemble_halved_gru_member() -> None:
    torch.manual_seed(0)
    embedding = nn.Embedding(20, 8)
    members = [nn.GRU(8, 6, batch_first=True), nn.GRU(8, 6, batch_first=True).half()]  # one halved to save memory
    tokens = torch.randint(0, 20, (2, 5))
    with torch.no_grad():
        features = embedding(tokens)
        torch.stack([member(features)[1][-1].float() for member in members]).mean(0)


def _ensemble_halved_layernorm_member() -> None:
    torch.manual_seed(0)
    head = nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 3))
    members = [head, nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 3)).half()]
    features = torch.randn(4, 8)
    with torch.no_grad():
        sum(member(features).float().softmax(-1) for member in members)


def _stacking_lstsq_bf16_out_of_fold() -> None:
    torch.manual_seed(0)
    out_of_fold = torch.rand(32, 3).to(bf16)  # three members' bf16 predictions on the held-out fold
    target = torch.rand(32, 1).to(bf16)
    weights = torch.linalg.lstsq(out_of_fold, target).solution
    weights.softmax(0)


def _ensemble_concat_embeddings_bf16_index() -> None:
    torch.manual_seed(0)
    text_emb = torch.randn(2, 4).to(bf16)  # from the bf16 member
    image_emb = torch.randn(2, 4)  # from the fp32 member
    query = F.normalize(torch.cat([text_emb, image_emb], -1), dim=-1)
    index = F.normalize(torch.randn(10, 8), dim=-1).to(bf16)  # the index stored in bf16
    (query @ index.T).topk(3)


def _max_ensemble_fp8_member() -> None:
    torch.manual_seed(0)
    cached = torch.rand(4, 3).softmax(-1).to(E4M3)  # an fp8-quantized member's probabilities, cached
    live = torch.rand(4, 3).softmax(-1).to(bf16)
    torch.maximum(cached, live).argmax(-1)


def _hard_vote_counts_softmax() -> None:
    torch.manual_seed(0)
    votes = torch.stack([torch.randint(0, 3, (5,)) for _ in range(4)])  # argmax of four members
    counts = F.one_hot(votes, 3).sum(0)
    counts.softmax(-1)


def _rerank_candidates_bmm_fp32_cache() -> None:
    torch.manual_seed(0)
    queries = torch.randn(2, 1, 8).to(bf16)  # from the bf16 query encoder
    candidates = torch.randn(2, 10, 8)  # candidate embeddings cached by an earlier fp32 run
    torch.bmm(queries, candidates.transpose(1, 2)).squeeze(1).topk(3)


CASES: dict[str, LiveCase] = {
    # --- metrics written by hand
    # a confusion matrix accumulated with index_put_ of torch.ones (fp32) into an int64 matrix
    "confusion-matrix-index-put-float-ones": case(_confusion_matrix_index_put_float_ones, "indexed_write_dtype",
                                                  "int64", "f32", grade="correct", grade_at_freeze="correct"),
    # eval confidences put back in dataset order with scatter_ into a torch.full(-1) sentinel buffer (int64)
    "eval-confidences-scatter-int-sentinel": case(_eval_predictions_scattered_into_sentinel_buffer,
                                                  "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # BLEU bigram keys packed with << on hypothesis ids the eval collate cast to bf16
    "bleu-bigram-keys-shift-bf16-ids": case(_bleu_bigram_keys_shifted_bf16_ids, "no_kernel", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # retrieval recall@k indexing gallery labels with an ANN library's uint64 neighbour ids
    "retrieval-ann-uint64-neighbour-ids": case(_retrieval_ann_uint64_neighbour_ids, "index_tensor_dtype",
                                               grade="correct", grade_at_freeze="correct"),
    # accuracy of an fp8 serving path: argmax of its fp8 logits
    "fp8-served-accuracy-argmax": case(_fp8_served_model_accuracy_argmax, "no_kernel", "float8_e4m3fn",
                                       grade="correct", grade_at_freeze="correct"),
    # AUROC by sorting detector scores cached in fp8
    "auroc-sort-fp8-cached-scores": case(_auroc_sort_fp8_cached_scores, "no_kernel", "float8_e4m3fn",
                                         grade="correct", grade_at_freeze="correct"),
    # boundary IoU: the boundary as the bool mask minus its (bool) erosion
    "boundary-iou-bool-mask-minus-erosion": case(_boundary_iou_bool_subtraction, "mask_dtype", "bool",
                                                 grade="correct", grade_at_freeze="correct"),
    # a soft Dice metric by einsum of bf16 probabilities with F.one_hot's int64 target
    "soft-dice-einsum-int64-one-hot": case(_soft_dice_metric_einsum_int64_one_hot, "integer_operand", "bf16",
                                           "int64", grade="correct", grade_at_freeze="correct"),
    # per-class IoU summed over shards into zeros_like of the int64 confusion diagonal
    "iou-accumulator-zeros-like-int-counts": case(_iou_accumulator_zeros_like_counts, "result_cast", "f32",
                                                  "int64", grade="correct", grade_at_freeze="correct"),
    # retrieval against an int8-quantized embedding index L2-normalised without dequantizing
    "retrieval-int8-index-normalize": case(_retrieval_int8_quantized_index_normalised, "integer_operand", "int8",
                                           grade="correct", grade_at_freeze="correct"),
    # F1 predictions thresholded with heaviside on bf16 probabilities and an fp32 value tensor
    "f1-threshold-heaviside-bf16": case(_f1_threshold_heaviside_bf16_probs, "op_dtype",
                                        grade="correct", grade_at_freeze="correct"),
    # reliability-diagram bin edges made in the logits' bf16 dtype, confidences upcast to fp32
    "reliability-bins-in-logits-dtype": case(_reliability_bins_in_logits_dtype, "op_dtype", "f32", "bf16",
                                             grade="correct", grade_at_freeze="correct"),
    # --- accumulating across batches and ranks, logging
    # per-class counts kept in the int16 label shard's dtype, all-reduced over gloo
    "per-class-counts-int16-all-reduce-gloo": case(_per_class_counts_int16_all_reduce, "no_kernel",
                                                   grade="correct", grade_at_freeze="correct"),
    # an eval report built as a pandas DataFrame from bf16 confidences
    "metrics-dataframe-bf16-confidences": case(_metrics_dataframe_bf16_probabilities, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (ab1286f) castwise gave nothing: cw.explain itself raised RecursionError instead of returning. "
            "Walking the traceback's frames it called getattr(self, \"named_parameters\") on the half-built pandas "
            "DataFrame in DataFrame.__init__, whose __getattr__ recurses without end, so the RecursionError escaped "
            "getattr's default."),
    # the epoch's loss logged as np.mean over a list of bf16 loss tensors
    "epoch-loss-np-mean-bf16-tensors": case(_epoch_loss_np_mean_bf16_losses, "numpy_dtype", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # MC-dropout predictive variance as E[x^2] - E[x]^2 in fp16 overflows to NaN, into Normal
    "mc-dropout-variance-fp16-nan-normal": case(_mc_dropout_variance_fp16_nan, "nonfinite", "f16",
                                                grade="correct", grade_at_freeze="correct"),
    # --- early stopping and checkpoint selection
    # multi-task early stopping: best losses initialised by full_like(val_losses, 1e9) on fp16 losses
    "multitask-early-stopping-sentinel-f16": case(_multitask_early_stopping_sentinel_f16, "half_overflow", "f16",
                                                  grade="correct", grade_at_freeze="correct"),
    # early-stopping plateau check with isclose of the bf16 metric against the fp32 best
    "early-stopping-plateau-isclose": case(_early_stopping_plateau_isclose, "op_dtype", "bf16", "f32",
                                           grade="correct", grade_at_freeze="correct"),
    # --- test-time augmentation
    # TTA brightness views made with an fp32 per-channel gain, promoting the bf16 batch for the bf16 conv
    "tta-per-channel-gain-conv": case(_tta_per_channel_gain_promotes_batch, "conv_weight_dtype", "f32", "bf16",
                                      grade="correct", grade_at_freeze="correct"),
    # TTA running mean kept fp32 and updated with lerp_ toward each bf16 view's probabilities
    "tta-running-mean-lerp-bf16-views": case(_tta_running_mean_lerp, "lerp_dtype", "f32", "bf16",
                                             grade="correct", grade_at_freeze="correct"),
    # --- ensembling models of different dtypes
    # a text ensemble whose second GRU member was halved, fed the shared fp32 embeddings
    "ensemble-halved-gru-member": case(_ensemble_halved_gru_member, "rnn_dtype", "f32", "f16",
                                       grade="correct", grade_at_freeze="correct"),
    # an ensemble head halved (LayerNorm first) fed the shared fp32 features
    "ensemble-halved-layernorm-member": case(_ensemble_halved_layernorm_member, "norm_param_dtype", "f32",
                                             grade="correct", grade_at_freeze="correct"),
    # stacking weights fitted with lstsq on bf16 out-of-fold predictions
    "stacking-lstsq-bf16-out-of-fold": case(_stacking_lstsq_bf16_out_of_fold, "no_kernel",
                                            grade="correct", grade_at_freeze="correct"),
    # bf16 and fp32 member embeddings concatenated (fp32) and scored against a bf16 index
    "ensemble-concat-embeddings-bf16-index": case(_ensemble_concat_embeddings_bf16_index, "matmul_dtype", "f32",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # max-confidence ensembling of an fp8 member's cached probabilities with a bf16 member's
    "max-ensemble-fp8-member": case(_max_ensemble_fp8_member, "fp8_promotion", "float8_e4m3fn", "bf16",
                                    grade="correct", grade_at_freeze="correct"),
    # hard-vote counts (int64 one-hot sums) turned into probabilities with softmax
    "hard-vote-counts-softmax": case(_hard_vote_counts_softmax, "integer_operand", "int64",
                                     grade="correct", grade_at_freeze="correct"),
    # re-ranking: bf16 queries bmm'ed with candidate embeddings cached by an fp32 run
    "rerank-candidates-bmm-fp32-cache": case(_rerank_candidates_bmm_fp32_cache, "batched_matmul_dtype", "bf16",
                                             "f32", grade="correct", grade_at_freeze="correct"),
}
