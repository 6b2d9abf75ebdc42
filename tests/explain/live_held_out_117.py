"""Held-out live set 117: keyword spotting and TinyML audio written by hand in low precision (int16 PCM from WAV files,
MFCC/log-mel features computed in float64 with numpy, int8 quantization-aware training with fake-quant observers,
depthwise-separable CNNs, int64 label ids with a silence/unknown class, streaming ring buffers, bf16 autocast around the
model). Defects planted by a helper who never read the rules, written before castwise ran and graded once with the
rules frozen at 686ee57."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "686ee57"

bf16, f16 = torch.bfloat16, torch.float16
_SR = 16000
_N_MELS = 40
_N_MFCC = 10
_FRAMES = 49  # 1 s at a 20 ms hop with 40 ms windows
_KEYWORDS = ("yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go")
_N_CLASSES = len(_KEYWORDS) + 2  # + _silence_ + _unknown_
_SILENCE, _UNKNOWN = 10, 11


def _seeded() -> None:
    torch.manual_seed(0)


def _pcm_int16(seconds: float = 1.0) -> np.ndarray:
    """What scipy.io.wavfile.read returns for a Speech Commands clip: int16 samples."""
    rng = np.random.default_rng(0)
    n = int(_SR * seconds)
    tone = 8000 * np.sin(2 * np.pi * 440 * np.arange(n) / _SR)
    return (tone + rng.normal(0, 300, n)).astype(np.int16)


def _mfcc_numpy(frames: int = _FRAMES) -> np.ndarray:
    """MFCCs computed librosa-style in numpy: float64."""
    rng = np.random.default_rng(1)
    return rng.normal(0, 1, (_N_MFCC, frames))


def _ds_block(channels: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False),
        nn.BatchNorm2d(channels),
        nn.ReLU(),
        nn.Conv2d(channels, channels, 1, bias=False),
        nn.BatchNorm2d(channels),
        nn.ReLU(),
    )


class _DSCNN(nn.Module):
    """Hello-Edge DS-CNN: a 10x4 stem conv, depthwise-separable blocks, average pool, classifier."""

    def __init__(self, channels: int = 16) -> None:
        super().__init__()
        self.stem = nn.Conv2d(1, channels, (10, 4), stride=(2, 2), padding=(5, 1))
        self.blocks = nn.Sequential(_ds_block(channels), _ds_block(channels))
        self.head = nn.Linear(channels, _N_CLASSES)

    def forward(self, mfcc: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.stem(mfcc))
        x = self.blocks(x)
        return self.head(x.mean((2, 3)))


# --- labels, targets and the silence/unknown class


def _labels_from_loadtxt_into_cross_entropy() -> None:
    _seeded()
    # the split file "clip_id,label_id" read with np.loadtxt, which returns float64
    rows = np.loadtxt(["0,3", "1,10", "2,11", "3,7"], delimiter=",")
    labels = torch.from_numpy(rows[:, 1])
    logits = _DSCNN()(torch.randn(4, 1, _FRAMES, _N_MFCC))
    F.cross_entropy(logits, labels)


def _multi_keyword_sigmoid_head_one_hot_targets() -> None:
    _seeded()
    # a sigmoid-per-keyword head (several wake words may fire), targets made with F.one_hot (int64)
    labels = torch.tensor([0, 4, _SILENCE, 8])
    logits = _DSCNN()(torch.randn(4, 1, _FRAMES, _N_MFCC))
    targets = F.one_hot(labels, _N_CLASSES)[:, : len(_KEYWORDS)]
    F.binary_cross_entropy_with_logits(logits[:, : len(_KEYWORDS)], targets)


def _speech_weight_one_minus_silence_mask() -> None:
    _seeded()
    frames = torch.randn(_FRAMES, _N_MELS)
    energy = frames.pow(2).mean(1)
    is_silence = energy < 0.5
    speech_weight = 1 - is_silence  # frames that count toward the utterance-level pooling
    (frames * speech_weight[:, None]).sum(0)


def _false_alarm_rate_mean_of_bool_triggers() -> None:
    _seeded()
    posteriors = torch.rand(3600, _N_CLASSES).softmax(-1)  # an hour of background audio, one decision per second
    triggers = posteriors[:, : len(_KEYWORDS)].max(1).values > 0.1
    triggers.mean()


def _custom_keyword_phoneme_ids_int16_embedding() -> None:
    _seeded()
    # open-vocabulary KWS: the enrolled keyword's phoneme ids kept as int16 in the device config
    phoneme_ids = torch.from_numpy(np.array([23, 5, 31, 12, 40], dtype=np.int16))  # "hey tiny"
    phoneme_embedding = nn.Embedding(44, 32)
    query = phoneme_embedding(phoneme_ids).mean(0)
    audio_embedding = torch.randn(_FRAMES, 32)
    (audio_embedding @ query).max()


# --- ring buffers, streaming and augmentation on integer audio


def _ring_buffer_narrow_float_read_offset() -> None:
    _seeded()
    ring = torch.zeros(4 * _FRAMES, _N_MFCC)  # a streaming feature ring buffer of 4 s
    ring[: _FRAMES * 2] = torch.randn(_FRAMES * 2, _N_MFCC)
    elapsed_s = torch.tensor(1.34)  # stream clock in seconds
    read_start = torch.floor(elapsed_s * 50) % ring.shape[0]  # 50 frames a second, still float
    ring.narrow(0, read_start, _FRAMES)


def _spec_augment_frequency_mask_uint8_from_numpy() -> None:
    _seeded()
    log_mel = torch.randn(_N_MELS, _FRAMES)
    freq_mask = np.zeros(_N_MELS, dtype=np.uint8)  # built with numpy by the augmentation worker
    freq_mask[12:19] = 1
    log_mel.masked_fill(torch.from_numpy(freq_mask)[:, None], 0.0)


def _snr_mixing_noise_power_from_int16_pcm() -> None:
    pcm = torch.from_numpy(_pcm_int16())
    noise = torch.from_numpy(_pcm_int16() // 4)
    snr_db = 10.0
    speech_power = pcm.pow(2).mean()
    noise_power = noise.pow(2).mean()
    scale = torch.sqrt(speech_power / (noise_power * 10 ** (snr_db / 10)))
    pcm + scale * noise


# --- integer-only inference and requantization


def _requantize_int32_accumulator_in_place() -> None:
    _seeded()
    x_q = torch.randint(-128, 128, (1, 64), dtype=torch.int32)
    w_q = torch.randint(-128, 128, (12, 64), dtype=torch.int32)
    acc = x_q @ w_q.T  # int32 accumulator as on the microcontroller
    multiplier = 0.0123 * 0.0045 / 0.0871  # s_in * s_w / s_out
    acc.mul_(multiplier)
    acc.clamp_(-128, 127)


def _int8_linear_with_int32_bias() -> None:
    _seeded()
    x_q = torch.randint(-128, 128, (1, 64), dtype=torch.int8)
    w_q = torch.randint(-127, 128, (_N_CLASSES, 64), dtype=torch.int8)
    bias_q = torch.randint(-1000, 1000, (_N_CLASSES,), dtype=torch.int32)  # TFLite-style int32 bias
    F.linear(x_q, w_q, bias_q)


def _asymmetric_zero_point_128_in_int8() -> None:
    # uint8 activations converted to int8 by subtracting a zero point buffer of 128, made in the int8 dtype
    _seeded()
    act_u8 = torch.randint(0, 256, (1, 64), dtype=torch.uint8)
    zero_point = torch.full((64,), 128, dtype=torch.int8)
    act_u8.to(torch.int16) - zero_point


# --- MFCC and log-mel features in float64 and fp16


def _numpy_mfcc_into_ds_cnn() -> None:
    _seeded()
    model = _DSCNN().eval()
    mfcc = torch.from_numpy(_mfcc_numpy().T.copy())[None, None]  # (1, 1, frames, n_mfcc)
    model(mfcc)


def _dct_matrix_numpy_float64_on_log_mel() -> None:
    _seeded()
    n = np.arange(_N_MELS)
    k = np.arange(_N_MFCC)[:, None]
    dct = np.sqrt(2.0 / _N_MELS) * np.cos(np.pi / _N_MELS * (n + 0.5) * k)  # DCT-II, orthonormal: float64
    log_mel = torch.randn(8, _FRAMES, _N_MELS)
    log_mel @ torch.from_numpy(dct.T)


def _mfcc_deltas_with_integer_regression_kernel() -> None:
    _seeded()
    mfcc = torch.randn(1, _N_MFCC, _FRAMES)
    kernel = torch.tensor([-2, -1, 0, 1, 2]).expand(_N_MFCC, 1, 5)  # delta regression window, N = 2
    F.conv1d(F.pad(mfcc, (2, 2), mode="replicate"), kernel, groups=_N_MFCC) / 10


def _log_mel_padding_floor_fp16() -> None:
    _seeded()
    log_mel = torch.randn(4, _N_MELS, _FRAMES).half()
    lengths = torch.tensor([49, 40, 31, 49])
    pad = torch.arange(_FRAMES)[None, :] >= lengths[:, None]
    log_mel.masked_fill(pad[:, None, :], -1e5)  # floor for padded frames, far below log(1e-10)


def _low_precision_frontend_rfft_bf16() -> None:
    pcm = torch.from_numpy(_pcm_int16()).to(bf16) / 32768
    frames = pcm.unfold(0, 640, 320) * torch.hann_window(640, dtype=bf16)
    torch.fft.rfft(frames, n=1024)


# --- depthwise-separable CNN in bf16, int8 weights and quantization-aware training


def _ds_cnn_pointwise_kept_fp32() -> None:
    _seeded()
    depthwise = nn.Conv2d(16, 16, 3, padding=1, groups=16).to(bf16)
    pointwise = nn.Conv2d(16, 32, 1)  # a keep-list leaves 1x1 convs fp32 for accuracy
    x = torch.randn(1, 16, 25, 5, dtype=bf16)
    pointwise(F.relu(depthwise(x)))


def _depthwise_bias_kept_fp32_for_int32_bias() -> None:
    _seeded()
    conv = nn.Conv2d(16, 16, 3, padding=1, groups=16).to(bf16)
    conv.bias = nn.Parameter(conv.bias.detach().float())  # the bias becomes int32 at export: "keep it full precision"
    conv(torch.randn(1, 16, 25, 5, dtype=bf16))


def _int8_depthwise_weights_in_float_reference() -> None:
    _seeded()
    conv = nn.Conv2d(16, 16, 3, padding=1, groups=16)
    scale = conv.weight.detach().abs().amax((1, 2, 3), keepdim=True) / 127
    w_q = torch.round(conv.weight.detach() / scale).clamp(-127, 127).to(torch.int8)
    x = torch.randn(1, 16, 25, 5)
    # float reference run of the exported int8 kernel, the per-channel scale applied to the output
    F.conv2d(x, w_q, conv.bias.detach(), padding=1, groups=16) * scale.view(1, -1, 1, 1)


def _fake_quant_stub_on_int16_pcm() -> None:
    # QAT with a fake-quant stub at the model input, fed the raw int16 PCM window of a raw-waveform model
    input_fake_quant = torch.ao.quantization.FakeQuantize()
    pcm = torch.from_numpy(_pcm_int16())[None, None]
    input_fake_quant(pcm)


def _ptq_calibration_quantize_bf16_activations() -> None:
    _seeded()
    model = _DSCNN().eval()
    captured = []
    model.blocks.register_forward_hook(lambda _m, _i, out: captured.append(out))
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        model(torch.randn(2, 1, _FRAMES, _N_MFCC))
    act = captured[0]
    scale = float(act.abs().max()) / 127
    torch.quantize_per_tensor(act, scale, 0, torch.qint8)


# --- recurrent and attention keyword models


def _crnn_gru_outside_autocast() -> None:
    _seeded()
    conv = nn.Conv1d(_N_MELS, 64, 5, padding=2)
    gru = nn.GRU(64, 64, batch_first=True)
    with torch.autocast("cpu", dtype=bf16):
        h = F.relu(conv(torch.randn(2, _N_MELS, _FRAMES)))
        with torch.autocast("cpu", enabled=False):  # "GRUs are unstable in bf16"
            gru(h.transpose(1, 2))


def _kwt_causal_mask_fp32_for_bf16_model() -> None:
    _seeded()
    attention = nn.MultiheadAttention(64, 4, batch_first=True).to(bf16)
    tokens = torch.randn(1, _FRAMES, 64, dtype=bf16)
    causal = torch.triu(torch.full((_FRAMES, _FRAMES), float("-inf")), diagonal=1)  # streaming: no look-ahead
    attention(tokens, tokens, tokens, attn_mask=causal)


def _streaming_kwt_sdpa_fp32_kv_cache() -> None:
    _seeded()
    heads, dim, cache_len = 4, 16, 32
    k_cache = torch.zeros(1, heads, cache_len, dim)  # allocated once at stream start
    v_cache = torch.zeros(1, heads, cache_len, dim)
    q = torch.randn(1, heads, 1, dim, dtype=bf16)
    k_cache[:, :, -1:] = torch.randn(1, heads, 1, dim, dtype=bf16)
    v_cache[:, :, -1:] = torch.randn(1, heads, 1, dim, dtype=bf16)
    F.scaled_dot_product_attention(q, k_cache, v_cache)


def _ds_cnn_stem_kept_fp32_into_bf16_batch_norm() -> None:
    _seeded()
    model = _DSCNN().eval()
    stem_bn = nn.Sequential(model.stem, nn.BatchNorm2d(16)).eval()
    stem_bn.to(bf16)
    stem_bn[0].float()  # first layer kept at full precision, as int8 deployments keep it int16
    stem_bn(torch.randn(1, 1, _FRAMES, _N_MFCC))


def _vector_scaling_after_autocast() -> None:
    _seeded()
    model = _DSCNN().eval()
    calibrator = nn.Linear(_N_CLASSES, _N_CLASSES)  # vector scaling fitted on the dev set, fp32
    with torch.no_grad():
        with torch.autocast("cpu", dtype=bf16):
            logits = model(torch.randn(4, 1, _FRAMES, _N_MFCC))
        calibrator(logits).softmax(-1)


# --- training, gradients and export


def _wake_word_bce_outside_autocast() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(_N_MFCC * _FRAMES, 32), nn.ReLU(), nn.Linear(32, 1))
    x = torch.randn(8, _N_MFCC * _FRAMES)
    targets = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    with torch.autocast("cpu", dtype=bf16):
        prob = torch.sigmoid(model(x)).squeeze(1)
    F.binary_cross_entropy(prob, targets).backward()  # loss computed outside autocast "for stability"


def _halved_ds_cnn_with_grad_scaler() -> None:
    _seeded()
    model = _DSCNN().half()  # fp16 end to end, as on the target MCU
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    logits = model(torch.randn(4, 1, _FRAMES, _N_MFCC).half())
    loss = F.cross_entropy(logits.float(), torch.tensor([0, 3, _SILENCE, _UNKNOWN]))
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _on_device_head_gradient_from_numpy() -> None:
    _seeded()
    head = nn.Linear(16, _N_CLASSES)
    features = np.random.default_rng(2).normal(size=(4, 16))
    probs = np.full((4, _N_CLASSES), 1.0 / _N_CLASSES)
    probs[np.arange(4), [0, 3, _SILENCE, _UNKNOWN]] -= 1.0
    # the on-device trainer's softmax-cross-entropy gradient for the last layer, computed in numpy
    head.weight.grad = torch.from_numpy(probs.T @ features / 4)


def _tflite_parity_check_bf16_logits() -> None:
    _seeded()
    model = _DSCNN().eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        logits = model(torch.randn(1, 1, _FRAMES, _N_MFCC))
    reference = np.zeros((1, _N_CLASSES), dtype=np.float32)  # what the TFLite interpreter returned
    np.abs(logits.numpy() - reference).max()


CASES: dict[str, LiveCase] = {
    # split-file label ids read with np.loadtxt (float64) as cross_entropy targets
    "split-labels-loadtxt-f64-ce-targets": case(_labels_from_loadtxt_into_cross_entropy, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a sigmoid-per-keyword head trained against F.one_hot (int64) targets with BCE-with-logits
    "multi-keyword-sigmoid-one-hot-long-targets": case(_multi_keyword_sigmoid_head_one_hot_targets, "target_dtype",
                                                       "int64",
        grade="correct", grade_at_freeze="correct"),
    # utterance pooling weights made as 1 - is_silence on the bool silence mask
    "speech-weight-one-minus-silence-mask": case(_speech_weight_one_minus_silence_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # false-alarm rate per hour taken as the mean of the bool trigger decisions
    "false-alarm-rate-mean-bool-triggers": case(_false_alarm_rate_mean_of_bool_triggers, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # open-vocabulary KWS: the enrolled keyword's int16 phoneme ids looked up in nn.Embedding
    "custom-keyword-phoneme-ids-int16-embedding": case(_custom_keyword_phoneme_ids_int16_embedding,
                                                       "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # streaming feature ring buffer read with narrow at a floor()'d float offset from the stream clock
    "ring-buffer-narrow-float-read-offset": case(_ring_buffer_narrow_float_read_offset, "index_tensor_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (686ee57) castwise gave nothing. It does not recognise narrow's check that a tensor start be a "
             "0-dim integral tensor ('start must be an 0-dim integral Tensor.'): the ring buffer's read offset was "
             "floor()'d from the float stream clock but never made an integer, so the fix is .long() (or int()) on the "
             "offset.")),
    # SpecAugment frequency mask built as a numpy uint8 array and given to masked_fill
    "spec-augment-freq-mask-uint8-numpy": case(_spec_augment_frequency_mask_uint8_from_numpy, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # background-noise mixing at a target SNR with signal powers taken as the mean of int16 PCM squared
    "snr-mixing-int16-pcm-power-mean": case(_snr_mixing_noise_power_from_int16_pcm, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # integer-only inference: the int32 accumulator requantized in place by the float multiplier
    "requantize-int32-accumulator-mul-inplace": case(_requantize_int32_accumulator_in_place, "result_cast", "f32",
                                                     "int32",
        grade="correct", grade_at_freeze="correct"),
    # integer-only classifier: int8 activations and weights with a TFLite-style int32 bias in F.linear
    "int8-linear-int32-bias": case(_int8_linear_with_int32_bias, "integer_operand", "int32", "int8",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (686ee57) castwise gave integer_operand [int32, int8] (high confidence). It read the int32 bias "
             "meeting the int8 activations and weights in F.linear as an integer operand of a float matmul; the writer "
             "followed COLLECTING.md's convention that two integer widths meeting are the op's own kind (a matmul's "
             "matmul_dtype), the fix being one integer dtype for operands and bias (int32 accumulation) or a float "
             "reference. live_cases' mm-long-and-int (integer_operand) reads the other way, so the lead may judge which "
             "convention holds. Corrected after grading to integer_operand, the kind every earlier set gave two "
             "integer widths in a matmul (live_cases' mm-long-and-int, live_held_out_23, 59 and 86); COLLECTING.md's "
             "wording now says so. The frozen grade is kept.")),
    # uint8-to-int8 activation conversion with a zero-point buffer of 128 made in int8
    "asymmetric-zero-point-128-int8-full": case(_asymmetric_zero_point_128_in_int8, "half_overflow", "int8",
        grade="correct", grade_at_freeze="correct"),
    # librosa-style float64 MFCCs through torch.from_numpy into the fp32 DS-CNN
    "numpy-mfcc-f64-into-ds-cnn": case(_numpy_mfcc_into_ds_cnn, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # hand-built orthonormal DCT-II matrix (numpy float64) applied to fp32 log-mel frames with @
    "dct-matrix-numpy-f64-log-mel-matmul": case(_dct_matrix_numpy_float64_on_log_mel, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # MFCC deltas by a grouped conv1d with the regression window written as an int64 tensor
    "mfcc-delta-conv1d-int64-kernel": case(_mfcc_deltas_with_integer_regression_kernel, "conv_weight_dtype", "f32",
                                           "int64",
        grade="correct", grade_at_freeze="correct"),
    # padded frames of an fp16 log-mel batch floored with masked_fill(-1e5)
    "log-mel-padding-floor-minus-1e5-f16": case(_log_mel_padding_floor_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 front end framing int16 PCM and taking torch.fft.rfft of the bf16 frames
    "bf16-frontend-rfft-frames": case(_low_precision_frontend_rfft_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # depthwise conv cast to bf16, its 1x1 pointwise conv kept fp32 by a keep-list
    "ds-cnn-pointwise-kept-fp32": case(_ds_cnn_pointwise_kept_fp32, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 depthwise conv whose bias was put back in fp32 because it becomes int32 at export
    "depthwise-bias-kept-fp32-for-int32-export": case(_depthwise_bias_kept_fp32_for_int32_bias, "conv_bias_dtype",
                                                      "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # float reference run of exported per-channel int8 depthwise weights with F.conv2d
    "int8-depthwise-weights-float-reference-conv": case(_int8_depthwise_weights_in_float_reference,
                                                        "conv_weight_dtype", "f32", "int8",
        grade="correct", grade_at_freeze="correct"),
    # QAT input FakeQuantize stub fed the raw int16 PCM window
    "qat-input-fake-quant-int16-pcm": case(_fake_quant_stub_on_int16_pcm, "integer_operand", "int16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (686ee57) castwise gave integer_operand [int16] (high confidence). It read the raw int16 PCM "
             "given to the input FakeQuantize stub as an integer operand where fake_quantize needs a float tensor; the "
             "writer expected no_kernel because torch says the fake-quant kernel is not implemented for 'Short', but the"
             " corpus's convention keeps no_kernel for integer kernels missing from ops that move or make data, and a "
             "float-math kernel missing for an integer dtype is integer_operand (live_cases' log-softmax-long), so "
             "castwise's kind may be the corpus's; the expectation is left as committed for the lead. Corrected after "
             "grading to integer_operand, that convention; the frozen grade is kept.")),
    # PTQ calibration: activations captured under bf16 autocast quantized with quantize_per_tensor
    "ptq-quantize-per-tensor-bf16-activations": case(_ptq_calibration_quantize_bf16_activations, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # CRNN: conv under bf16 autocast, its GRU run in an autocast-disabled block on the bf16 output
    "crnn-gru-autocast-disabled-bf16-input": case(_crnn_gru_outside_autocast, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # streaming keyword transformer cast to bf16 given an fp32 -inf causal mask
    "kwt-bf16-causal-mask-fp32": case(_kwt_causal_mask_fp32_for_bf16_model, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # streaming KWT: bf16 query against a KV cache allocated with torch.zeros (fp32)
    "streaming-kwt-sdpa-fp32-kv-cache": case(_streaming_kwt_sdpa_fp32_kv_cache, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DS-CNN cast to bf16 with its first conv kept fp32: the fp32 stem output reaches the bf16 BatchNorm2d
    "ds-cnn-stem-kept-fp32-bf16-batch-norm": case(_ds_cnn_stem_kept_fp32_into_bf16_batch_norm, "norm_param_dtype",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp32 vector-scaling calibrator applied to logits from a bf16 autocast forward
    "vector-scaling-calibrator-bf16-logits": case(_vector_scaling_after_autocast, "matmul_dtype", "bf16",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # wake-word BCE on bf16 sigmoid probabilities computed outside autocast against fp32 targets, backward
    "wake-word-bce-outside-autocast-backward": case(_wake_word_bce_outside_autocast, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (686ee57) castwise gave op_dtype [f32, bf16] (high confidence). The error is "
             "binary_cross_entropy's forward check of the bf16 autocast probabilities against the fp32 targets (raised "
             "in F.binary_cross_entropy, before backward), not the backward the writer assumed when writing loss_dtype; "
             "by the corpus's convention a loss's forward check of two floats is op_dtype, so castwise's kind follows "
             "the convention and the expectation is the writer's error, left as committed for the lead. Corrected "
             "after grading to op_dtype, that convention; the frozen grade is kept.")),
    # a DS-CNN halved for the MCU and trained with GradScaler
    "halved-ds-cnn-grad-scaler-step": case(_halved_ds_cnn_with_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # on-device head fine-tuning: a numpy (float64) last-layer gradient assigned to weight.grad
    "on-device-head-grad-numpy-f64": case(_on_device_head_gradient_from_numpy, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TFLite parity check of bf16 autocast logits through .numpy()
    "tflite-parity-numpy-bf16-logits": case(_tflite_parity_check_bf16_logits, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
