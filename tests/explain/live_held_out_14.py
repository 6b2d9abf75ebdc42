"""Held-out live set 14: the code around a low-precision model (evaluation loops and metrics, calibration, retrieval,
logging, augmentation, collate functions, samplers and class weights) where the model's tensors are bf16/fp16/fp8 and
the rest int, bool, fp32 or fp64. Defects planted by a helper who never read the rules, written before castwise ran and
graded once with the rules frozen at 7871e4c."""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "7871e4c"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


# --- evaluation loops and metrics ------------------------------------------------------------------------------------

def _recall_at_k_fp32_gallery() -> None:
    encoder = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 8)).to(bf16).eval()
    gallery = F.normalize(torch.randn(50, 8), dim=-1)  # embedded by last week's fp32 evaluation and kept on disk
    gallery_labels = torch.arange(50) % 5
    queries, query_labels = torch.randn(6, 16, dtype=bf16), torch.arange(6) % 5
    with torch.no_grad():
        q = F.normalize(encoder(queries), dim=-1)
        top = (q @ gallery.T).topk(5, dim=-1).indices
    (gallery_labels[top] == query_labels[:, None]).any(-1).float().mean()


def _parity_allclose_bf16_vs_fp32() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()
    x = torch.randn(4, 8)
    with torch.no_grad():
        reference = model(x)
        served = copy.deepcopy(model).to(bf16)(x.to(bf16))
    assert torch.allclose(served, reference, atol=1e-2), "bf16 export drifted from the fp32 model"


def _fp8_logits_parity_vs_bf16() -> None:
    torch.manual_seed(0)
    head = nn.Linear(16, 10).to(bf16)
    x = torch.randn(4, 16, dtype=bf16)
    with torch.no_grad():
        reference = head(x)
        fp8_logits = (x.to(E4M3).float() @ head.weight.to(E4M3).float().T + head.bias.float()).to(E4M3)
    (fp8_logits - reference).abs().max()


def _validation_hinge_loss_bf16() -> None:
    torch.manual_seed(0)
    model = nn.Linear(12, 5)
    x, y = torch.randn(8, 12), torch.randint(0, 5, (8,))
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        logits = model(x)
    F.multi_margin_loss(logits, y)  # the validation report's multi-class hinge loss


def _macro_f1_index_add_bool() -> None:
    torch.manual_seed(0)
    logits, target = torch.randn(16, 4, dtype=bf16), torch.randint(0, 4, (16,))
    pred = logits.argmax(-1)
    true_positives = torch.zeros(4, dtype=torch.long)
    true_positives.index_add_(0, target, pred == target)


def _eval_predictions_int32_buffer() -> None:
    model = nn.Linear(8, 5).to(bf16).eval()
    loader = [torch.randn(4, 8, dtype=bf16) for _ in range(2)]
    predictions = torch.empty(8, dtype=torch.int32)  # half the memory of int64 for the whole test set
    with torch.no_grad():
        for i, x in enumerate(loader):
            torch.argmax(model(x), dim=-1, out=predictions[4 * i:4 * (i + 1)])


def _multilabel_f1_bf16_targets() -> None:
    torch.manual_seed(0)
    logits = torch.randn(6, 5, dtype=bf16)
    targets = (torch.rand(6, 5) > 0.6).to(bf16)  # multi-hot targets cast to bf16 along with the rest of the batch
    predicted = logits.sigmoid() > 0.5
    (predicted & targets).sum(0)


def _confusion_matrix_histogramdd() -> None:
    torch.manual_seed(0)
    logits, target = torch.randn(20, 4, dtype=bf16), torch.randint(0, 4, (20,))
    pairs = torch.stack([target, logits.argmax(-1)], dim=1)
    torch.histogramdd(pairs, bins=[4, 4], range=[0.0, 4.0, 0.0, 4.0])


def _hamming_retrieval_cdist_bool() -> None:
    torch.manual_seed(0)
    hasher = nn.Linear(16, 32).to(bf16).eval()
    with torch.no_grad():
        database = hasher(torch.randn(20, 16, dtype=bf16)) > 0
        queries = hasher(torch.randn(3, 16, dtype=bf16)) > 0
    torch.cdist(queries, database, p=0).topk(5, largest=False)


def _perplexity_int16_token_shard() -> None:
    torch.manual_seed(0)
    shard = torch.from_numpy(np.random.default_rng(0).integers(0, 1000, 65, dtype=np.int16))  # tokens saved as int16
    lm = nn.Sequential(nn.Embedding(1000, 16), nn.Linear(16, 1000)).to(bf16).eval()
    inputs, targets = shard[:-1].long(), shard[1:]
    with torch.no_grad():
        log_probs = lm(inputs[None]).float().log_softmax(-1)
    nll = -torch.take_along_dim(log_probs, targets[None, :, None], dim=-1)
    nll.mean().exp()


def _pairwise_ranking_bool_target() -> None:
    torch.manual_seed(0)
    scorer = nn.Linear(6, 1).to(bf16)
    a, b = torch.randn(5, 6, dtype=bf16), torch.randn(5, 6, dtype=bf16)
    relevance_a, relevance_b = torch.tensor([3, 1, 2, 0, 4]), torch.tensor([1, 2, 0, 3, 1])
    F.margin_ranking_loss(scorer(a).squeeze(-1), scorer(b).squeeze(-1), relevance_a > relevance_b, margin=0.1)


def _top5_excluding_background_fp16() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4, 10).half()  # eval outputs of an fp16 detector's classifier
    background = torch.tensor([0])
    logits.index_fill(1, background, -1e9).topk(5, dim=-1)


# --- calibration and logging -----------------------------------------------------------------------------------------

def _ece_softmax_fp8_cached_logits() -> None:
    torch.manual_seed(0)
    cached = torch.randn(32, 10).to(E4M3)  # eval logits cached in fp8 to fit the whole validation set in memory
    labels = torch.randint(0, 10, (32,))
    confidence, predicted = cached.softmax(-1).max(-1)
    (predicted == labels).float().mean() - confidence.float().mean()


def _reliability_histogram_bool_weight() -> None:
    torch.manual_seed(0)
    logits, target = torch.randn(50, 5, dtype=bf16), torch.randint(0, 5, (50,))
    confidence, predicted = logits.float().softmax(-1).max(-1)
    correct = predicted == target
    torch.histogram(confidence, bins=10, range=(0.0, 1.0), weight=correct)


def _log_confidence_histogram_numpy() -> None:
    torch.manual_seed(0)
    logits = torch.randn(64, 10).to(bf16)
    confidence = logits.softmax(-1).amax(-1)
    np.histogram(confidence, bins=10, range=(0.0, 1.0))


def _attention_rollout_fp32_identity() -> None:
    torch.manual_seed(0)
    layers = [nn.MultiheadAttention(16, 2, batch_first=True).to(bf16).eval() for _ in range(2)]
    x = torch.randn(2, 5, 16, dtype=bf16)
    with torch.no_grad():
        maps = [layer(x, x, x, need_weights=True)[1] for layer in layers]
    rollout = torch.eye(5).expand(2, 5, 5)
    for attention in maps:
        attention = attention + torch.eye(5, dtype=attention.dtype)
        attention = attention / attention.sum(-1, keepdim=True)
        rollout = torch.bmm(attention, rollout)


def _ssim_gaussian_window_fp32() -> None:
    torch.manual_seed(0)
    decoder = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1), nn.Sigmoid()).to(bf16).eval()
    target = torch.rand(2, 3, 16, 16)
    with torch.no_grad():
        reconstruction = decoder(target.to(bf16))
    coords = torch.arange(5, dtype=torch.float32) - 2
    gauss = torch.exp(-coords ** 2 / (2 * 1.5 ** 2))
    gauss = gauss / gauss.sum()
    window = (gauss[:, None] * gauss[None, :]).expand(3, 1, 5, 5)
    F.conv2d(reconstruction, window, padding=2, groups=3)


# --- augmentation ----------------------------------------------------------------------------------------------------

def _mixup_per_sample_lambda() -> None:
    torch.manual_seed(0)
    images = torch.rand(4, 3, 8, 8).to(bf16)
    perm = torch.randperm(4)
    lam = torch.distributions.Beta(0.4, 0.4).sample((4, 1, 1, 1))
    images.lerp(images[perm], 1 - lam)


def _mixup_class_indices() -> None:
    torch.manual_seed(0)
    model = nn.Linear(8, 3).to(bf16)
    x, y = torch.randn(4, 8, dtype=bf16), torch.tensor([0, 2, 1, 2])
    lam, perm = 0.7, torch.randperm(4)
    F.cross_entropy(model(lam * x + (1 - lam) * x[perm]), lam * y + (1 - lam) * y[perm])


def _mixup_uint8_images() -> None:
    torch.manual_seed(0)
    batch = torch.randint(0, 256, (4, 3, 16, 16), dtype=torch.uint8)  # decoded JPEGs, not yet converted
    lam = float(np.random.default_rng(0).beta(0.4, 0.4))
    torch.lerp(batch, batch.flip(0), 1 - lam)


def _cutmix_float_box_mask() -> None:
    torch.manual_seed(0)
    images = torch.rand(4, 3, 16, 16, dtype=bf16)
    perm = torch.randperm(4)
    box = torch.zeros(1, 1, 16, 16)
    box[..., 4:12, 2:10] = 1
    torch.where(box, images[perm], images)


def _random_erasing_uint8() -> None:
    torch.manual_seed(0)
    image = torch.randint(0, 256, (3, 16, 16), dtype=torch.uint8)
    region = torch.zeros(16, 16, dtype=torch.bool)
    region[4:10, 3:9] = True
    image[:, region] = torch.randn(3, int(region.sum()))


def _random_crop_float_offsets() -> None:
    torch.manual_seed(0)
    image, size = torch.rand(3, 32, 32, dtype=bf16), 24
    top, left = (torch.rand(2) * (32 - size + 1)).floor()
    image[:, top:top + size, left:left + size]


def _random_grayscale_uint8() -> None:
    torch.manual_seed(0)
    image = torch.randint(0, 256, (3, 16, 16), dtype=torch.uint8)
    luma = torch.tensor([0.299, 0.587, 0.114])
    torch.einsum("c,chw->hw", luma, image).expand(3, 16, 16)


def _label_smoothing_log_of_fp16_softmax() -> None:
    logits = torch.tensor([[30.0, 0.0, -5.0], [0.0, 1.0, 2.0]], requires_grad=True)
    probs = torch.softmax(logits.half(), -1)
    smooth = torch.full((2, 3), 0.05, dtype=f16)
    smooth[0, 0], smooth[1, 2] = 0.9, 0.9
    with torch.autograd.detect_anomaly():
        (-(smooth * torch.log(probs)).sum(-1).mean()).backward()


def _clip_start_jitter_in_place() -> None:
    torch.manual_seed(0)
    num_frames, clip_len, n_clips = 300, 16, 4
    starts = torch.linspace(0, num_frames - clip_len, n_clips).long()
    starts += (torch.rand(n_clips) - 0.5) * 8  # temporal jitter of each clip's first frame


# --- data statistics, audio, collate functions, samplers and class weights -------------------------------------------

def _dataset_channel_stats_uint8() -> None:
    torch.manual_seed(0)
    images = torch.randint(0, 256, (8, 3, 16, 16), dtype=torch.uint8)
    torch.var_mean(images, dim=(0, 2, 3))


def _loudness_rms_int16() -> None:
    pcm = torch.from_numpy((np.sin(np.linspace(0.0, 100.0, 1600)) * 8000).astype(np.int16))
    rms = torch.linalg.vector_norm(pcm) / pcm.numel() ** 0.5
    10 ** (-20 / 20) / (rms / 32768)


class _KeywordSpotter(nn.Module):
    """A small speech classifier whose front end normalises each mel channel."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.InstanceNorm1d(20, affine=True)
        self.conv = nn.Conv1d(20, 16, 3, padding=1)
        self.head = nn.Linear(16, 4)

    def forward(self, mel: torch.Tensor) -> torch.Tensor:
        return self.head(self.conv(self.norm(mel)).mean(-1))


def _collate_log_mel(spectra: list[torch.Tensor]) -> torch.Tensor:
    mels = [torch.log(s.clamp_min(1e-5)).T for s in spectra]
    return nn.utils.rnn.pad_sequence(mels, batch_first=True).transpose(1, 2)


def _speech_eval_fp32_log_mel() -> None:
    torch.manual_seed(0)
    model = _KeywordSpotter().to(bf16).eval()
    batch = _collate_log_mel([torch.rand(20, 30), torch.rand(20, 25)])
    with torch.no_grad():
        model(batch)


def _collate_pad_fp16_logprobs() -> None:
    torch.manual_seed(0)
    cached = [torch.randn(5).log_softmax(0).half(), torch.randn(3).log_softmax(0).half()]  # teacher log-probs
    nn.utils.rnn.pad_sequence(cached, batch_first=True, padding_value=-1e9)


def _collate_float64_regression_targets() -> None:
    rows = [(np.random.default_rng(i).standard_normal(6).astype(np.float32), np.float64(0.5 * i)) for i in range(4)]
    features, targets = torch.utils.data.default_collate(rows)
    model = nn.Linear(6, 1).to(bf16)
    F.huber_loss(model(features.to(bf16)).squeeze(-1), targets).backward()


def _epoch_permutation_int16() -> None:
    generator = torch.Generator().manual_seed(0)
    torch.randperm(50_000, generator=generator, dtype=torch.int16)  # a 2-byte index per sample


def _class_weights_integer_division() -> None:
    torch.manual_seed(0)
    labels = torch.tensor([0] * 30 + [1] * 6 + [2] * 4)
    counts = torch.bincount(labels)
    weights = counts.max() // counts
    with torch.autocast("cpu", dtype=bf16):
        logits = nn.Linear(8, 3)(torch.randn(40, 8))
    nn.CrossEntropyLoss(weight=weights)(logits, labels)


def _one_hot_by_eye_uint8() -> None:
    labels = torch.from_numpy(np.array([3, 0, 7, 1], dtype=np.uint8))  # the label file is stored as uint8
    torch.eye(10)[labels]


CASES: dict[str, LiveCase] = {
    # retrieval recall@k: bf16 query embeddings scored against a gallery embedded by an earlier fp32 evaluation
    "recall-at-k-fp32-gallery": case(_recall_at_k_fp32_gallery, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an export parity check comparing the bf16 model's outputs with the fp32 reference by torch.allclose
    "parity-allclose-bf16-vs-fp32": case(_parity_allclose_bf16_vs_fp32, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp8 inference path's logits (kept in fp8) compared with the bf16 reference by subtraction
    "fp8-logits-parity-vs-bf16": case(_fp8_logits_parity_vs_bf16, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the validation report's multi-class hinge loss computed on bf16 logits from autocast
    "validation-hinge-loss-bf16": case(_validation_hinge_loss_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # macro-F1 true positives counted with index_add_ of the bool correctness into an int64 buffer
    "macro-f1-index-add-bool": case(_macro_f1_index_add_bool, "indexed_write_dtype", "int64", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the eval loop writes argmax predictions into a preallocated int32 buffer with out=
    "eval-predictions-int32-buffer": case(_eval_predictions_int32_buffer, "indexed_write_dtype", "int64", "int32",
        cause=("out=",), grade="correct", grade_at_freeze="correct"),
    # multi-label F1: bool predictions and'ed with multi-hot targets the batch cast made bf16
    "multilabel-f1-bf16-targets": case(_multilabel_f1_bf16_targets, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (7871e4c) castwise gave no_kernel [bf16] (high confidence). It read `&` on a bf16 tensor as a "
             "missing kernel (its culprit does name a bool mask cast to 16-bit), where the bf16 operand is a mask "
             "(multi-hot targets) that a bit operation needs as bool: a mask-dtype error. After grading, the "
             "expectation was corrected from mask_dtype to no_kernel, the corpus's convention for a bit operation "
             "on a 16-bit tensor (held_out_55 tt-torch-864, `bitwise_or_cpu` on BFloat16; live_held_out_2's and "
             "_3's shifts); grade_at_freeze stays wrong.")),
    # a confusion matrix as a 2-D histogram of (target, prediction) int64 pairs
    "confusion-matrix-histogramdd-int64": case(_confusion_matrix_histogramdd, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # binary-hash retrieval: Hamming distances with cdist(p=0) on the bool codes
    "hamming-retrieval-cdist-bool": case(_hamming_retrieval_cdist_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # perplexity over a token shard saved as int16, targets gathered with take_along_dim unconverted
    "perplexity-int16-token-shard": case(_perplexity_int16_token_shard, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # a pairwise ranking loss given the bool comparison of relevances as its target
    "pairwise-ranking-bool-target": case(_pairwise_ranking_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (7871e4c) castwise gave mask_dtype [bool] (high confidence). It read the bool negation as a "
             "mask inverted with arithmetic, where the bool tensor is margin_ranking_loss's target (it needs +1/-1 "
             "floats) negated inside the loss, which the message alone does not show.")),
    # top-5 accuracy excluding the background class by index_fill with -1e9 on fp16 logits
    "top5-excluding-background-fp16": case(_top5_excluding_background_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # expected calibration error on eval logits cached in fp8: softmax of the fp8 cache
    "ece-softmax-fp8-cached-logits": case(_ece_softmax_fp8_cached_logits, "no_kernel", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # a reliability diagram's per-bin accuracy by torch.histogram weighted with the bool correctness
    "reliability-histogram-bool-weight": case(_reliability_histogram_bool_weight, "integer_operand", "f32", "bool",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (7871e4c) castwise gave nothing. No rule reads histogramdd's message that the weight's dtype "
             "(bool) must match the input's (float), a bool tensor where a float weight is required.")),
    # a confidence histogram for the logger taken with np.histogram on bf16 confidences
    "log-confidence-histogram-numpy": case(_log_confidence_histogram_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # attention rollout for logging: bf16 attention maps bmm'ed into a rollout started from an fp32 identity
    "attention-rollout-fp32-identity": case(_attention_rollout_fp32_identity, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SSIM of bf16 reconstructions with an fp32 Gaussian window in a grouped conv2d
    "ssim-gaussian-window-fp32": case(_ssim_gaussian_window_fp32, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # mixup with a per-sample lambda from Beta (fp32) as lerp's weight on a bf16 batch
    "mixup-per-sample-lambda": case(_mixup_per_sample_lambda, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # mixup applied to the class indices instead of one-hot targets: cross_entropy gets float indices
    "mixup-class-indices": case(_mixup_class_indices, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # mixup done on the uint8 images before conversion, with torch.lerp
    "mixup-uint8-images": case(_mixup_uint8_images, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # CutMix pasting the box with torch.where and a box mask made with torch.zeros (float)
    "cutmix-float-box-mask": case(_cutmix_float_box_mask, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # random erasing writing normal noise (fp32) into a uint8 image through a boolean region
    "random-erasing-uint8": case(_random_erasing_uint8, "indexed_write_dtype", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a random crop whose offsets come from torch.rand(...).floor(), still float, used as slice bounds
    "random-crop-float-offsets": case(_random_crop_float_offsets, "index_tensor_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (7871e4c) castwise gave nothing. No rule reads the TypeError 'only integer tensors of a single"
             " element can be converted to an index', a float tensor used as a slice bound.")),
    # random grayscale by einsum of fp32 luma weights with a uint8 image
    "random-grayscale-uint8": case(_random_grayscale_uint8, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # label smoothing written as -(smooth * log(softmax)) in fp16: a probability underflows to 0, NaN in backward
    "label-smoothing-log-of-fp16-softmax": case(_label_smoothing_log_of_fp16_softmax, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a video sampler jittering int64 clip start frames in place by a float offset
    "clip-start-jitter-in-place": case(_clip_start_jitter_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # normalisation constants computed with var_mean over a uint8 image stack
    "dataset-channel-stats-uint8": case(_dataset_channel_stats_uint8, "integer_operand",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (7871e4c) castwise gave nothing. No rule reads var_mean's 'only support floating point and "
             "complex dtypes', an integer (uint8) stack given to a float-only reduction, whose message names no "
             "dtype.")),
    # loudness normalisation taking the RMS of raw int16 PCM with vector_norm
    "loudness-rms-int16": case(_loudness_rms_int16, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 keyword spotter (InstanceNorm1d front end) evaluated on the collate's fp32 log-mel features
    "speech-eval-fp32-log-mel": case(_speech_eval_fp32_log_mel, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a collate padding fp16 teacher log-probs with -1e9
    "collate-pad-fp16-logprobs": case(_collate_pad_fp16_logprobs, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # default_collate turns numpy float64 regression targets into float64 for a bf16 model's Huber loss
    "collate-float64-regression-targets": case(_collate_float64_regression_targets, "loss_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an epoch sampler drawing its permutation of 50,000 samples as int16
    "epoch-permutation-int16": case(_epoch_permutation_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # class weights made with integer division of the counts (int64) for a bf16 classifier's cross-entropy
    "class-weights-integer-division": case(_class_weights_integer_division, "integer_operand", "bf16", "int64",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (7871e4c) castwise gave target_dtype [int64] (high confidence). It took the int64 tensor for "
             "the loss's target, where it is cross_entropy's class weight (the target is a proper int64 index): "
             "'expected scalar type BFloat16 but found Long' does not say which argument.")),
    # one-hot targets by indexing torch.eye with uint8 labels (taken as a mask)
    "one-hot-by-eye-uint8": case(_one_hot_by_eye_uint8, "index_tensor_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (7871e4c) castwise gave nothing. No rule reads the IndexError on a mask's shape as uint8 "
             "labels used as an index and so taken as a boolean mask.")),
}
