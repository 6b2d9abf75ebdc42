"""Held-out live set 162: speech keyword spotting and wake-word detection written by hand in low precision (int16 PCM
audio, float64 MFCCs and statistics from librosa/numpy, bool voice-activity masks, fp16 streaming conv nets, bf16
attention pooling, int64 keyword labels). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at d523f429."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d523f429"

bf16, f16 = torch.bfloat16, torch.float16
_SR = 16000
_HOP = 160  # 10 ms frames
_KEYWORDS = 12  # ten keywords, silence, unknown (Speech Commands v2 style)
_SILENCE, _UNKNOWN = 10, 11
_N_MFCC = 40


def _seeded() -> None:
    torch.manual_seed(0)


def _int16_pcm(seconds: float = 1.0) -> torch.Tensor:
    rng = np.random.default_rng(0)
    t = np.arange(int(_SR * seconds))
    wave = 6000 * np.sin(2 * np.pi * 440 * t / _SR) + 300 * rng.standard_normal(t.size)
    return torch.from_numpy(wave.astype(np.int16))  # what scipy.io.wavfile.read gives for a 16-bit WAV


def _librosa_mfcc(frames: int = 98) -> np.ndarray:
    rng = np.random.default_rng(1)
    return rng.standard_normal((_N_MFCC, frames))  # librosa.feature.mfcc on y = pcm / 32768.0: float64


def _silence_labels_from_ones() -> None:
    _seeded()
    keyword_labels = torch.tensor([0, 3, 7, 11, 2, 5])
    silence_labels = torch.ones(2) * _SILENCE  # background-noise clips added as the silence class
    labels = torch.cat([keyword_labels, silence_labels])
    logits = torch.randn(8, _KEYWORDS)
    F.cross_entropy(logits, labels)


def _keyword_end_frames_from_alignment_seconds() -> None:
    _seeded()
    posteriors = torch.randn(4, 100).sigmoid()  # wake-word posterior per 10 ms frame
    end_seconds = torch.tensor([0.62, 0.71, 0.55, 0.80])  # keyword end times from the forced alignment
    end_frames = (end_seconds * _SR / _HOP).round()
    posteriors[torch.arange(4), end_frames]


def _vad_hangover_max_pool() -> None:
    _seeded()
    frame_energy_db = 20 * torch.log10(torch.rand(1, 100) + 1e-3)
    vad = frame_energy_db > -12.0
    hangover = 8  # frames kept after speech ends
    F.max_pool1d(vad[:, None], kernel_size=2 * hangover + 1, stride=1, padding=hangover)


def _first_trigger_frame_argmax() -> None:
    _seeded()
    smoothed = torch.rand(4, 100)
    triggers = smoothed > 0.95
    first_trigger = triggers.argmax(dim=1)  # detection latency in frames
    first_trigger.float().mean()


def _false_accepts_index_add_bool() -> None:
    _seeded()
    false_accepts = torch.zeros(_KEYWORDS, dtype=torch.long)
    predicted = torch.randint(0, _KEYWORDS, (32,))
    labels = torch.randint(0, _KEYWORDS, (32,))
    wrong = predicted != labels
    false_accepts.index_add_(0, predicted, wrong)


def _two_class_wake_word_bool_targets() -> None:
    _seeded()
    labels = torch.tensor([0, 3, 3, 7, 11, 3, 10, 1])
    wake_id = 3
    is_wake = labels == wake_id
    logits = torch.randn(8, 2)  # wake / not-wake head
    F.cross_entropy(logits, is_wake)


def _focal_loss_on_halved_batch() -> None:
    _seeded()
    batch = {"mfcc": torch.randn(8, _N_MFCC, 98), "label": torch.randint(0, _KEYWORDS, (8,))}
    batch = {key: value.half() for key, value in batch.items()}  # every tensor halved for the fp16 model
    logits = torch.randn(8, _KEYWORDS)  # the model's logits, upcast to fp32 for the loss
    log_p = logits.float().log_softmax(-1).gather(1, batch["label"][:, None]).squeeze(1)
    (-(1 - log_p.exp()) ** 2 * log_p).mean()


def _speech_frames_masked_select_long_vad() -> None:
    _seeded()
    mfcc = torch.randn(98, _N_MFCC)
    energy = torch.rand(98)
    vad = (energy > 0.3).long()  # stored as 0/1 labels next to the features
    mfcc.masked_select(vad[:, None]).view(-1, _N_MFCC)


def _invert_float_vad_mask() -> None:
    _seeded()
    features = torch.randn(4, 98, _N_MFCC)
    vad = (torch.rand(4, 98) > 0.4).float()  # made float to weight the features
    features = features * vad[..., None]
    nonspeech = ~vad
    features.masked_fill(nonspeech[..., None], 0.0)


def _adversarial_int16_pcm_requires_grad() -> None:
    pcm = _int16_pcm()
    audio = pcm.clone().requires_grad_(True)  # FGSM on the raw recording
    (audio.float() / 32768.0).sum()


def _integer_only_int8_output_softmax() -> None:
    _seeded()
    output_q = torch.randint(-128, 128, (1, _KEYWORDS), dtype=torch.int8)  # TFLite-style int8 output tensor
    posteriors = output_q.softmax(-1)
    posteriors.argmax(-1)


def _running_max_posterior_buffer_minus_1e9() -> None:
    _seeded()
    posteriors = torch.rand(2, _KEYWORDS, dtype=f16)  # one streaming step of the fp16 model
    best = torch.full((2, _KEYWORDS), -1e9, dtype=posteriors.dtype)
    torch.maximum(best, posteriors)


class _AttentionPoolingWithPlainQuery(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.attention = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.query = torch.randn(1, 1, dim) * 0.02  # a plain attribute, not a Parameter or buffer

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        query = self.query.expand(frames.shape[0], -1, -1)
        return self.attention(query, frames, frames, need_weights=False)[0]


def _pooling_query_plain_attribute() -> None:
    _seeded()
    pooling = _AttentionPoolingWithPlainQuery(64).to(bf16)
    pooling(torch.randn(2, 49, 64, dtype=bf16))


def _pooling_mask_value_float32_min() -> None:
    _seeded()
    scores = torch.randn(2, 49, dtype=bf16)  # the bf16 attention-pooling scores
    vad = torch.rand(2, 49) > 0.3
    scores = scores.masked_fill(~vad, torch.finfo(torch.float32).min)
    scores.softmax(-1)


def _fp16_frontend_into_bf16_pooling() -> None:
    _seeded()
    frames = torch.randn(2, 49, 64, dtype=f16)  # output of the fp16 streaming conv front end
    score = nn.Linear(64, 1).to(bf16)  # the bf16 attention-pooling back end
    score(frames).softmax(1)


def _global_cmvn_numpy_stats() -> None:
    _seeded()
    mfcc = torch.randn(1, _N_MFCC, 98)
    stats = np.stack([np.zeros(_N_MFCC), np.ones(_N_MFCC)])  # np.load("cmvn.npy"): float64
    mean, std = torch.from_numpy(stats)
    normalised = (mfcc - mean[:, None]) / std[:, None]
    stem = nn.Conv1d(_N_MFCC, 64, 3).half()  # fp16 TC-ResNet stem
    stem(normalised)


def _streaming_fp32_chunk_with_fp16_cache() -> None:
    _seeded()
    conv = nn.Conv1d(_N_MFCC, 64, 3).half()
    cache = torch.zeros(1, _N_MFCC, 2, dtype=f16)  # left context kept from the last chunk
    chunk = torch.randn(1, _N_MFCC, 8)  # new MFCC frames from the fp32 feature extractor
    conv(torch.cat([cache, chunk], dim=-1))


def _posterior_smoothing_box_kernel() -> None:
    _seeded()
    posteriors = torch.rand(1, _KEYWORDS, 100, dtype=f16)  # fp16 streaming model's posteriors
    window = 30
    box = torch.ones(_KEYWORDS, 1, window) / window
    F.conv1d(F.pad(posteriors, (window - 1, 0)), box, groups=_KEYWORDS)


def _fp16_frontend_into_bf16_gru() -> None:
    _seeded()
    frames = torch.randn(2, 49, 64, dtype=f16)
    backend = nn.GRU(64, 64, batch_first=True).to(bf16)
    backend(frames)


def _int8_weight_only_head() -> None:
    _seeded()
    weight = torch.randn(_KEYWORDS, 64)
    scale = weight.abs().amax(1, keepdim=True) / 127
    weight_q = torch.round(weight / scale).to(torch.int8)
    hidden = torch.randn(2, 64, dtype=f16)
    F.linear(hidden, weight_q) * scale.squeeze(1).half()


def _streaming_kv_cache_fp16() -> None:
    _seeded()
    query = torch.randn(1, 4, 1, 16, dtype=bf16)  # pooling query of the bf16 head
    keys = torch.randn(1, 4, 49, 16, dtype=f16)  # cached by the fp16 streaming encoder
    values = torch.randn(1, 4, 49, 16, dtype=f16)
    F.scaled_dot_product_attention(query, keys, values)


def _vad_additive_mask_fp16() -> None:
    _seeded()
    query = torch.randn(1, 4, 1, 16, dtype=bf16)
    frames = torch.randn(1, 4, 49, 16, dtype=bf16)
    vad = torch.rand(1, 49) > 0.3
    additive = torch.zeros(1, 49, dtype=f16).masked_fill(~vad, float("-inf"))  # built in the front end's dtype
    F.scaled_dot_product_attention(query, frames, frames, attn_mask=additive)


def _aiff_big_endian_pcm() -> None:
    raw = (np.arange(1600, dtype=np.int16) * 7).astype(">i2").tobytes()  # AIFF stores 16-bit PCM big-endian
    samples = np.frombuffer(raw, dtype=">i2")
    torch.from_numpy(samples).float() / 32768.0


def _sklearn_class_weights() -> None:
    _seeded()
    train_labels = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] + [11] * 20)
    counts = np.bincount(train_labels, minlength=_KEYWORDS)
    class_weight = len(train_labels) / (_KEYWORDS * counts)  # compute_class_weight("balanced"): float64
    logits = torch.randn(8, _KEYWORDS)
    labels = torch.randint(0, _KEYWORDS, (8,))
    F.cross_entropy(logits, labels, weight=torch.from_numpy(class_weight))


def _posterior_ema_lerp() -> None:
    _seeded()
    ema = torch.zeros(1, _KEYWORDS, dtype=f16)  # smoothed posterior state of the fp16 detector
    for _ in range(3):
        posterior = torch.rand(1, _KEYWORDS)  # the softmax was taken in fp32
        ema.lerp_(posterior, 0.2)


def _bf16_activation_gradient_clip_hook() -> None:
    _seeded()
    frames = torch.randn(2, 49, 64, requires_grad=True)
    pooled_in = frames.to(bf16)
    pooled_in.register_hook(lambda grad: grad.float().clamp(-1.0, 1.0))
    pooled_in.mean(1).float().pow(2).sum().backward()


def _ring_buffer_index_copy() -> None:
    _seeded()
    ring = torch.zeros(100, _N_MFCC, dtype=f16)  # 1 s of features for the fp16 streaming model
    write_pos = 95
    new_frames = torch.randn(8, _N_MFCC)
    ring.index_copy_(0, (torch.arange(8) + write_pos) % 100, new_frames)


def _bf16_layer_norm_fp16_input() -> None:
    _seeded()
    frames = torch.randn(2, 49, 64, dtype=f16)  # fp16 streaming front end
    pre_norm = nn.LayerNorm(64).to(bf16)  # keyword transformer back end cast to bf16
    pre_norm(frames)


def _all_silence_clip_pooling_nan() -> None:
    _seeded()
    frames = torch.randn(2, 49, 64, dtype=bf16)
    vad = torch.ones(2, 49, dtype=torch.bool)
    vad[1] = False  # a background-noise clip: the VAD finds no speech
    scores = (frames @ torch.randn(64, dtype=bf16)).masked_fill(~vad, float("-inf"))
    pooled = (scores.softmax(-1)[..., None] * frames).sum(1)
    probability = torch.sigmoid(pooled @ torch.randn(64, dtype=bf16))
    F.binary_cross_entropy(probability.float(), torch.tensor([1.0, 0.0]))


def _embedding_distillation_huber() -> None:
    _seeded()
    student = nn.Linear(64, 32)
    teacher_embedding = torch.randn(4, 32)  # the fp32 teacher's utterance embeddings
    with torch.autocast("cpu", dtype=bf16):
        student_embedding = student(torch.randn(4, 64))
    F.huber_loss(student_embedding, teacher_embedding).backward()


CASES: dict[str, LiveCase] = {
    # silence-class labels made as torch.ones(n) * SILENCE and cat'ed to the int64 keyword labels
    "silence-labels-ones-times-id-ce-targets": case(_silence_labels_from_ones, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # keyword end frames from the forced alignment in seconds, used to index the wake-word posteriors
    "keyword-end-frame-float-index": case(_keyword_end_frames_from_alignment_seconds, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # VAD hangover: the bool frame VAD dilated with max_pool1d
    "vad-hangover-max-pool1d-bool": case(_vad_hangover_max_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # detection latency: the first trigger frame by argmax of the bool trigger mask
    "detection-latency-first-trigger-argmax-bool": case(_first_trigger_frame_argmax, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # per-keyword false-accept counters: index_add_ of the bool "wrong" mask into int64 counts
    "false-accept-counts-index-add-bool": case(_false_accepts_index_add_bool, "indexed_write_dtype", "int64",
                                               "bool",
        grade="correct", grade_at_freeze="correct"),
    # two-class wake-word head trained with cross_entropy against the bool is-wake-word labels
    "wake-word-two-class-ce-bool-targets": case(_two_class_wake_word_bool_targets, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # focal loss: the whole batch dict halved (int64 keyword labels too), labels used in gather
    "focal-loss-gather-halved-keyword-labels": case(_focal_loss_on_halved_batch, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # speech frames picked with masked_select by a VAD stored as int64 0/1
    "speech-frames-masked-select-int64-vad": case(_speech_frames_masked_select_long_vad, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # non-speech frames by ~ of a VAD mask made float to weight the features
    "nonspeech-invert-float-vad-mask": case(_invert_float_vad_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # FGSM attack on a wake-word model asking the raw int16 PCM for gradients
    "adversarial-wake-word-int16-requires-grad": case(_adversarial_int16_pcm_requires_grad, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # integer-only KWS: softmax of the int8 output tensor for posteriors
    "integer-only-kws-int8-output-softmax": case(_integer_only_int8_output_softmax, "integer_operand", "int8",
        grade="correct", grade_at_freeze="correct"),
    # running-max posterior buffer initialised with -1e9 in the fp16 posteriors' dtype
    "running-max-posterior-minus-1e9-f16": case(_running_max_posterior_buffer_minus_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling cast to bf16: its query a plain fp32 tensor attribute that .to() skipped, into MHA
    "pooling-query-plain-attribute-f32-bf16-mha": case(_pooling_query_plain_attribute, "matmul_dtype", "f32",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 attention-pooling scores masked with torch.finfo(torch.float32).min
    "pooling-mask-finfo-f32-min-bf16-scores": case(_pooling_mask_value_float32_min, "half_overflow", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 streaming conv front end's frames into the bf16 attention-pooling score Linear
    "fp16-frontend-bf16-pooling-score-linear": case(_fp16_frontend_into_bf16_pooling, "matmul_dtype", "f16",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # global CMVN with float64 numpy statistics applied to fp32 MFCCs, into the fp16 TC-ResNet stem
    "global-cmvn-numpy-f64-stats-fp16-conv-stem": case(_global_cmvn_numpy_stats, "conv_weight_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # streaming conv: the fp16 left-context cache cat'ed with an fp32 chunk, into the fp16 conv
    "streaming-fp32-chunk-cat-fp16-cache-conv": case(_streaming_fp32_chunk_with_fp16_cache, "conv_weight_dtype",
                                                     "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # posterior smoothing of fp16 posteriors by conv1d with an fp32 box kernel
    "posterior-smoothing-conv1d-fp16-f32-box": case(_posterior_smoothing_box_kernel, "conv_weight_dtype", "f16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 streaming front end's frames into the bf16 GRU back end
    "fp16-frontend-bf16-gru-backend": case(_fp16_frontend_into_bf16_gru, "rnn_dtype", "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # weight-only int8 keyword head: the int8 codes used directly with fp16 activations in F.linear
    "int8-weight-only-kws-head-fp16-activations": case(_int8_weight_only_head, "matmul_dtype", "f16", "int8",
        grade="correct", grade_at_freeze="correct"),
    # bf16 pooling query attending over keys/values cached by the fp16 streaming encoder through SDPA
    "streaming-kv-cache-fp16-bf16-query-sdpa": case(_streaming_kv_cache_fp16, "sdpa_dtype", "bf16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # additive VAD mask built in fp16 by the front end, given to the bf16 pooling SDPA
    "vad-additive-mask-f16-bf16-sdpa": case(_vad_additive_mask_fp16, "attn_mask_dtype", "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # AIFF 16-bit PCM read big-endian with np.frombuffer, handed to torch.from_numpy
    "aiff-big-endian-pcm-from-numpy": case(_aiff_big_endian_pcm, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # balanced class weights computed in numpy (float64) given to cross_entropy with fp32 logits
    "balanced-class-weights-f64-kws-cross-entropy": case(_sklearn_class_weights, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # the fp16 detector's smoothed-posterior state lerp_'ed toward fp32 posteriors
    "posterior-ema-fp16-state-lerp-f32": case(_posterior_ema_lerp, "lerp_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # gradient clipping hook on the bf16 pooling input returning the clipped gradient in fp32
    "pooling-input-grad-clip-hook-returns-fp32": case(_bf16_activation_gradient_clip_hook, "loss_dtype", "bf16",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 streaming feature ring buffer written with index_copy_ of fp32 MFCC frames
    "ring-buffer-fp16-index-copy-f32-frames": case(_ring_buffer_index_copy, "indexed_write_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # keyword transformer's bf16 pre-norm LayerNorm given the fp16 front end's frames
    "keyword-transformer-bf16-layer-norm-fp16-frames": case(_bf16_layer_norm_fp16_input, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a background-noise clip with no VAD speech: all-masked pooling softmax is NaN, BCE fails
    "all-silence-clip-masked-pooling-nan-bce": case(_all_silence_clip_pooling_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # embedding distillation: Huber of the bf16 autocast student embedding against fp32 teacher, backward
    "embedding-distillation-huber-bf16-backward": case(_embedding_distillation_huber, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
