"""Held-out live set 182: music information retrieval by hand in low precision (float64 librosa features, int64 frame
and beat indices, uint8 piano rolls, bool onset masks, fp16/bf16 CRNNs and transformers for beat tracking, chord and
key recognition). Defects planted by a helper who never read the rules, written before castwise ran and graded once
with the rules frozen at e4c1051d."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e4c1051d"

bf16, f16 = torch.bfloat16, torch.float16
_SR = 22050
_HOP = 512
_FRAMES = 64
_BINS = 84  # a librosa CQT: 7 octaves x 12 bins


def _seeded() -> None:
    torch.manual_seed(0)


def _cqt_f64() -> np.ndarray:
    """|librosa.cqt| in dB as numpy gives it: float64, bins x frames."""
    return np.random.default_rng(1).normal(-40.0, 10.0, size=(_BINS, _FRAMES))


def _chroma_f64() -> np.ndarray:
    """librosa.feature.chroma_cqt: float64, 12 x frames."""
    return np.random.default_rng(2).random((12, _FRAMES))


def _beat_times() -> np.ndarray:
    """Annotated beat times in seconds from a .beats file (np.loadtxt: float64)."""
    return np.arange(0.2, _FRAMES * _HOP / _SR, 0.5)


def _beat_frames_int64() -> torch.Tensor:
    """librosa.time_to_frames of the beats: int64 frame indices."""
    return torch.from_numpy(np.floor(_beat_times() * _SR / _HOP).astype(np.int64))


def _piano_roll_uint8() -> torch.Tensor:
    """pretty_midi.get_piano_roll(fs=...) > 0 saved as uint8, 128 pitches x frames."""
    rng = np.random.default_rng(3)
    return torch.from_numpy((rng.random((128, _FRAMES)) > 0.95).astype(np.uint8))


def _onset_mask() -> torch.Tensor:
    mask = torch.zeros(_FRAMES, dtype=torch.bool)
    mask[::8] = True
    return mask


# --- beat and downbeat tracking
def _beat_sync_chroma_index_select_seconds() -> None:
    chroma = torch.from_numpy(_chroma_f64()).float()
    beat_frames = torch.from_numpy(_beat_times() * _SR / _HOP)  # frames computed by hand, never rounded
    torch.index_select(chroma, 1, beat_frames)


def _beat_frames_to_seconds_in_place() -> None:
    beats = _beat_frames_int64()
    beats.mul_(_HOP / _SR)


def _beat_position_int8_embedding() -> None:
    _seeded()
    position = nn.Embedding(5, 16)  # beat-in-bar 1..4, 0 = no beat
    beat_in_bar = torch.from_numpy(np.tile(np.arange(1, 5, dtype=np.int8), 4))  # madmom's downbeat column as int8
    position(beat_in_bar)


def _beat_downbeat_bf16_activations_or() -> None:
    _seeded()
    beat = torch.rand(_FRAMES).to(bf16).round()
    downbeat = torch.rand(_FRAMES).to(bf16).round()
    beat | downbeat  # noqa: B018 - "either activation" meant as a union of binarised maps


def _dbn_transition_log_zero_fp16() -> None:
    states = 16
    log_transition = torch.full((states, states), -1.0e30, dtype=f16)  # log(0) in a half-precision DBN
    log_transition.fill_diagonal_(0.0)


def _spectral_flux_sqrt_of_square_anomaly() -> None:
    spectrogram = torch.zeros(_FRAMES, 8, requires_grad=True)  # a silent intro: identical frames
    with torch.autograd.detect_anomaly():
        flux = torch.sqrt((spectrogram[1:] - spectrogram[:-1]) ** 2).sum()
        flux.backward()


def _beat_activation_bf16_to_numpy_for_mir_eval() -> None:
    _seeded()
    activation = torch.sigmoid(torch.randn(_FRAMES)).to(bf16)
    activation.numpy()


def _peak_pick_int64_flags_where() -> None:
    envelope = torch.rand(_FRAMES)
    peaks = torch.zeros(_FRAMES, dtype=torch.int64)
    peaks[[3, 17, 40]] = 1  # a 0/1 peak flag vector built from librosa.util.peak_pick's indices
    torch.where(peaks, envelope, 0.0)


def _inter_beat_interval_std_int64() -> None:
    intervals = torch.diff(_beat_frames_int64())
    torch.std(intervals)  # tempo stability of a track


def _median_tempo_quantile_int64_intervals() -> None:
    intervals = torch.diff(_beat_frames_int64())
    torch.quantile(intervals, 0.5)


def _tempo_class_targets_from_rounded_bpm_ce() -> None:
    _seeded()
    logits = torch.randn(4, 300)
    bpm = torch.tensor([120.2, 89.7, 140.0, 174.9])
    F.cross_entropy(logits, torch.round(bpm))


def _tempo_smoothing_lerp_f64_f32() -> None:
    previous = torch.from_numpy(_chroma_f64()[:, 0])  # tracker state kept as numpy gave it
    current = torch.rand(12)
    torch.lerp(previous, current, 0.9)


def _non_downbeat_frames_invert_fp16_targets() -> None:
    downbeat_targets = torch.zeros(_FRAMES, dtype=f16)
    downbeat_targets[::16] = 1.0
    ~downbeat_targets  # noqa: B018


def _online_beat_mha_uint8_causal_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(16, 2, batch_first=True)
    x = torch.randn(1, 8, 16)
    causal = torch.triu(torch.ones(8, 8, dtype=torch.uint8), diagonal=1)
    attention(x, x, x, attn_mask=causal)


def _time_stretch_grid_sample_bf16_spectrogram() -> None:
    _seeded()
    spectrogram = torch.rand(1, 1, 16, _FRAMES).to(bf16)
    theta = torch.tensor([[[1.1, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(theta, [1, 1, 16, _FRAMES], align_corners=False)
    F.grid_sample(spectrogram, grid, align_corners=False)


def _beat_upsampler_conv_transpose_fp32_bias() -> None:
    _seeded()
    weight = torch.randn(16, 1, 4).to(bf16)
    bias = torch.zeros(1)  # left in fp32 by a hand-written half() of the weights only
    F.conv_transpose1d(torch.randn(1, 16, 16).to(bf16), weight, bias, stride=4)


# --- chord recognition
def _chord_cnn_f16_on_librosa_cqt_f64() -> None:
    _seeded()
    cnn = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU()).half()
    cnn(torch.from_numpy(_cqt_f64())[None, None])


def _chord_bigru_bf16_librosa_chroma_f64() -> None:
    _seeded()
    gru = nn.GRU(12, 16, bidirectional=True, batch_first=True).to(bf16)
    gru(torch.from_numpy(_chroma_f64().T)[None])


def _chord_lstm_packed_bf16_chroma_fp32_lstm() -> None:
    _seeded()
    lstm = nn.LSTM(12, 16, batch_first=True)
    chroma = torch.rand(2, _FRAMES, 12).to(bf16)
    packed = nn.utils.rnn.pack_padded_sequence(chroma, torch.tensor([_FRAMES, 40]), batch_first=True)
    lstm(packed)


def _chord_vocab_ids_f64_embedding() -> None:
    _seeded()
    chord_embedding = nn.Embedding(170, 32)
    previous_chords = torch.from_numpy(np.array([0.0, 12.0, 12.0, 97.0]))  # pandas read the id column as float64
    chord_embedding(previous_chords)


def _chord_labels_string_array_from_numpy() -> None:
    labels = np.array(["C:maj", "A:min", "F:maj", "G:7"])  # a .lab file's third column
    torch.from_numpy(labels)


def _chord_templates_bmm_bf16_chroma() -> None:
    _seeded()
    chroma = torch.rand(2, _FRAMES, 12).to(bf16)
    templates = torch.rand(2, 12, 25)  # 24 major/minor templates + no-chord
    torch.bmm(chroma, templates)


def _beat_sync_chroma_scatter_add_f64() -> None:
    chroma = torch.from_numpy(_chroma_f64())
    segment = torch.bucketize(torch.arange(_FRAMES), _beat_frames_int64())
    pooled = torch.zeros(12, int(segment.max()) + 1)
    pooled.scatter_add_(1, segment.expand(12, -1), chroma)


def _chord_frame_buffer_index_put_bf16_logits() -> None:
    _seeded()
    buffer = torch.zeros(_FRAMES, 25)
    frames = torch.tensor([4, 5, 6, 6])
    logits = torch.randn(4, 25).to(bf16)
    buffer.index_put_((frames,), logits, accumulate=True)


def _chord_transformer_bf16_queries_fp16_keys() -> None:
    _seeded()
    q = torch.randn(1, 2, 8, 16).to(bf16)
    k = torch.randn(1, 2, 8, 16).half()  # keys from a cached fp16 encoder
    q @ k.transpose(-2, -1)  # noqa: B018


# --- key recognition and structure
def _key_profile_uint8_roll_fold_matmul() -> None:
    fold = torch.zeros(128, 12)
    fold[torch.arange(128), torch.arange(128) % 12] = 1.0
    _piano_roll_uint8().T @ fold  # noqa: B018


def _self_similarity_einsum_bf16_chroma_fp32() -> None:
    _seeded()
    chroma = torch.rand(1, _FRAMES, 12).to(bf16)
    reference = torch.rand(1, _FRAMES, 12)
    torch.einsum("btc,bsc->bts", chroma, reference)


def _key_cnn_instance_norm_fp16_fp32_cqt() -> None:
    _seeded()
    norm = nn.InstanceNorm1d(12, affine=True).half()
    norm(torch.rand(1, 12, _FRAMES))


def _chroma_dft_fp16_key_features() -> None:
    chroma = torch.from_numpy(_chroma_f64()).half()
    torch.fft.fft(chroma, dim=0)  # the DFT-of-chroma key and tonnetz features


def _chord_hmm_fundamental_matrix_inv_fp16() -> None:
    transition = torch.full((25, 25), 0.1 / 24).half()
    transition.fill_diagonal_(0.9)
    torch.linalg.inv(torch.eye(25).half() - 0.5 * transition)


CASES: dict[str, LiveCase] = {
    # beat-synchronous chroma: beat frames computed as float64 seconds * sr / hop and used with index_select
    "beat-sync-chroma-index-select-f64-frames": case(_beat_sync_chroma_index_select_seconds, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int64 librosa beat frames converted to seconds in place with mul_(hop / sr)
    "beat-frames-to-seconds-mul-inplace-int64": case(_beat_frames_to_seconds_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # beat-in-bar positions kept as int8 from a madmom annotation into nn.Embedding
    "beat-in-bar-int8-embedding": case(_beat_position_int8_embedding, "index_tensor_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # beat and downbeat bf16 activations rounded and combined with |
    "beat-downbeat-bf16-activations-bitwise-or": case(_beat_downbeat_bf16_activations_or, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a half-precision DBN beat tracker with log(0) written as -1e30
    "dbn-log-transition-minus-1e30-fp16": case(_dbn_transition_log_zero_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # spectral flux as sqrt of squared differences on a silent intro, anomaly detection on
    "spectral-flux-sqrt-square-silence-anomaly": case(_spectral_flux_sqrt_of_square_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 beat activation handed to .numpy() for mir_eval.beat
    "beat-activation-bf16-numpy-mir-eval": case(_beat_activation_bf16_to_numpy_for_mir_eval, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an int64 0/1 peak flag vector used as torch.where's condition on the onset envelope
    "peak-flags-int64-where-condition": case(_peak_pick_int64_flags_where, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # tempo stability as torch.std of int64 inter-beat intervals in frames
    "inter-beat-interval-std-int64": case(_inter_beat_interval_std_int64, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # median tempo by torch.quantile of int64 inter-beat intervals
    "median-ibi-quantile-int64": case(_median_tempo_quantile_int64_intervals, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # tempo classification with torch.round(bpm), still float, as cross-entropy targets
    "tempo-class-rounded-bpm-float-ce-targets": case(_tempo_class_targets_from_rounded_bpm_ce, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a key tracker's float64 chroma state smoothed toward an fp32 frame with lerp
    "key-tracker-chroma-lerp-f64-state-fp32": case(_tempo_smoothing_lerp_f64_f32, "lerp_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # non-downbeat frames as ~ of fp16 downbeat targets
    "non-downbeat-invert-fp16-targets": case(_non_downbeat_frames_invert_fp16_targets, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # an online beat tracker's causal mask built as uint8 triu for MultiheadAttention
    "online-beat-mha-uint8-causal-mask": case(_online_beat_mha_uint8_causal_mask, "mask_dtype",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (e4c1051d) castwise gave mask_dtype [] (high confidence). MultiheadAttention's assertion "
             "'only bool and floating types of attn_mask are supported' is about the attention mask: a uint8 causal "
             "mask (torch.triu of uint8 ones) given as attn_mask, fixed by building it as bool (or as a float "
             "additive mask of the query's dtype); castwise read it as a generic boolean-mask error rather than the "
             "attention mask's dtype. Expectation corrected after grading from attn_mask_dtype to mask_dtype, the "
             "convention live_held_out_42's decoder-tgt-mask-numpy-triu-int already had for an integer attention "
             "mask refused this way; the grade at freeze stands.")),
    # time-stretch augmentation with grid_sample on a bf16 spectrogram and an fp32 affine grid
    "time-stretch-grid-sample-bf16-spectrogram": case(_time_stretch_grid_sample_bf16_spectrogram, "op_dtype",
                                                      "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a beat-activation upsampler with bf16 transposed-conv weights and its bias left fp32
    "beat-upsampler-conv-transpose-fp32-bias": case(_beat_upsampler_conv_transpose_fp32_bias, "conv_bias_dtype",
                                                    "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a halved chord CNN fed librosa's float64 CQT straight from numpy
    "chord-cnn-fp16-librosa-cqt-f64": case(_chord_cnn_f16_on_librosa_cqt_f64, "conv_weight_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 BiGRU chord model fed librosa's float64 chroma
    "chord-bigru-bf16-librosa-chroma-f64": case(_chord_bigru_bf16_librosa_chroma_f64, "rnn_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 chroma packed with pack_padded_sequence into an fp32 chord LSTM
    "chord-lstm-packed-bf16-chroma-fp32": case(_chord_lstm_packed_bf16_chroma_fp32_lstm, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # previous-chord ids read by pandas as float64 into the chord embedding
    "previous-chord-ids-f64-embedding": case(_chord_vocab_ids_f64_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # chord labels from a .lab file as a numpy string array into torch.from_numpy
    "chord-lab-strings-from-numpy": case(_chord_labels_string_array_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # template matching of bf16 chroma against fp32 chord templates with bmm
    "chord-templates-bmm-bf16-chroma": case(_chord_templates_bmm_bf16_chroma, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # beat-synchronous pooling: float64 librosa chroma scatter_add_ into an fp32 buffer
    "beat-sync-pool-scatter-add-f64-chroma": case(_beat_sync_chroma_scatter_add_f64, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # overlapping windows' bf16 chord logits accumulated into an fp32 frame buffer with index_put_
    "chord-buffer-index-put-bf16-logits": case(_chord_frame_buffer_index_put_bf16_logits, "indexed_write_dtype",
                                               "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # chord transformer attention scores of bf16 queries against cached fp16 keys
    "chord-attention-bf16-queries-fp16-keys": case(_chord_transformer_bf16_queries_fp16_keys, "matmul_dtype",
                                                   "bf16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # pitch-class folding of a uint8 piano roll with an fp32 fold matrix for key profiles
    "key-profile-uint8-roll-fold-matmul": case(_key_profile_uint8_roll_fold_matmul, "integer_operand",
                                               "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a self-similarity matrix by einsum of bf16 chroma and an fp32 reference
    "ssm-einsum-bf16-chroma-fp32-reference": case(_self_similarity_einsum_bf16_chroma_fp32, "matmul_dtype",
                                                  "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a halved affine InstanceNorm1d in a key CNN on an fp32 chroma batch
    "key-cnn-instance-norm-fp16-fp32-chroma": case(_key_cnn_instance_norm_fp16_fp32_cqt, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the DFT-of-chroma key features computed on fp16 chroma
    "chroma-dft-fft-fp16": case(_chroma_dft_fp16_key_features, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a chord HMM's fundamental matrix inverted in fp16
    "chord-hmm-fundamental-matrix-inv-fp16": case(_chord_hmm_fundamental_matrix_inv_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
}
