"""Held-out live set 101: symbolic music generation and music information retrieval written by hand in low precision,
the situations set 60 did not have (REMI bar/position events from tick arithmetic, onset and frame targets from
pretty_midi's float64 seconds, tempo and duration features in float64, Music Transformer relative attention by
matmul/baddbmm/SDPA, CQT kernels and magnitudes from librosa-style numpy, chroma, key templates and pitch-class
histograms, self-similarity and Laplacian structure segmentation, tempograms, DTW score alignment, chord labels from
annotation tables, sampling at low temperature, a hand-written MIDI header parser). Defects planted by a helper who
never read the rules, written before castwise ran and graded once with the rules frozen at b459a42."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b459a42"

bf16, f16 = torch.bfloat16, torch.float16
_PITCHES = 88  # piano keys A0..C8
_TPQ = 480  # ticks per quarter note
_TICKS_PER_BAR = 4 * _TPQ
_POSITIONS = 16  # REMI position events per bar
_VOCAB = 256
_SR, _HOP = 16000, 512


def _seeded() -> None:
    torch.manual_seed(0)


def _onset_seconds() -> np.ndarray:
    """Note onsets as pretty_midi gives them: float64 seconds."""
    return np.array([0.0, 0.5, 0.75, 1.0, 1.5, 2.0, 2.25, 3.0])


def _frames(seconds: float = 4.0) -> int:
    return int(seconds * _SR / _HOP) + 1


# --- REMI events, onset and frame targets, labels


def _remi_position_from_true_division() -> None:
    _seeded()
    onset_ticks = torch.tensor([0, 240, 480, 960, 1200, 1920, 2160, 2880])
    position = (onset_ticks % _TICKS_PER_BAR) / (_TICKS_PER_BAR // _POSITIONS)  # meant: // for the grid slot
    position_embedding = nn.Embedding(_POSITIONS, 32)
    position_embedding(position)


def _onset_targets_scatter_float_frames() -> None:
    frames = np.round(_onset_seconds() * _SR / _HOP)  # float64 frame numbers, never cast
    onset_target = torch.zeros(1, _frames())
    onset_target.scatter_(1, torch.from_numpy(frames)[None], 1.0)


def _chord_labels_float_from_annotation_table() -> None:
    _seeded()
    # chord ids column read from a CSV with pandas: float64 because "N" (no chord) rows were NaN, then filled
    chord_ids = np.array([0.0, 7.0, 9.0, 5.0, 24.0, 0.0])
    logits = torch.randn(6, 25)  # 24 major/minor triads + N
    F.cross_entropy(logits, torch.from_numpy(chord_ids))


def _onsets_and_frames_uint8_targets() -> None:
    _seeded()
    roll = torch.zeros(2, _frames(), _PITCHES, dtype=torch.uint8)  # frame labels from the dataset's uint8 roll
    roll[:, 10:40, 39] = 1
    roll[:, 20:30, 43] = 1
    frame_logits = torch.randn(2, _frames(), _PITCHES)
    F.binary_cross_entropy_with_logits(frame_logits, roll)


def _sustain_pedal_float_mask_inverted() -> None:
    cc64 = torch.tensor([0, 0, 127, 127, 100, 30, 0, 0])
    pedal_down = (cc64 >= 64).float()  # float so it can be multiplied into note offsets later
    release_frames = ~pedal_down
    release_frames.nonzero()


def _note_on_uint8_mask_masked_fill() -> None:
    _seeded()
    roll = torch.zeros(_PITCHES, 32, dtype=torch.uint8)
    roll[39, 0:8] = 1
    roll[43, 8:16] = 1
    logits = torch.randn(_PITCHES, 32)
    logits.masked_fill(roll, float("-inf"))  # forbid re-triggering notes already sounding


def _self_similarity_of_bool_pitch_class_sets() -> None:
    _seeded()
    chroma = torch.rand(64, 12)
    pitch_class_sets = chroma > 0.7  # binarised chroma per beat
    ssm = pitch_class_sets @ pitch_class_sets.T  # shared pitch classes between beats
    ssm.diagonal()


def _velocity_histogram_of_int64_velocities() -> None:
    velocities = torch.tensor([64, 72, 90, 100, 45, 64, 110, 80])  # from pretty_midi Note.velocity
    torch.histc(velocities, bins=32, min=0, max=127)


def _pitch_class_histogram_bincount_normalized() -> None:
    pitches = torch.tensor([60, 64, 67, 72, 62, 65, 69, 60])
    histogram = torch.bincount(pitches % 12, minlength=12)
    F.normalize(histogram, dim=0)  # unit-norm pitch-class profile for key finding


def _first_onset_argmax_of_bool() -> None:
    _seeded()
    activation = torch.rand(_frames())
    onsets = activation > 0.9
    onsets.argmax()  # ported from numpy, where np.argmax of a bool array gives the first True


def _piano_roll_uint8_patches_unfold() -> None:
    roll = torch.zeros(1, 1, _PITCHES, 64, dtype=torch.uint8)  # velocity roll from the cache
    roll[0, 0, 39, 0:16] = 90
    roll[0, 0, 43, 16:32] = 70
    F.unfold(roll, kernel_size=(12, 8), stride=(12, 8))  # pitch x time patches for a ViT-style encoder


def _tempo_stretch_int64_ticks_in_place() -> None:
    onset_ticks = torch.tensor([0, 240, 480, 960, 1200, 1920])
    stretch = 1.1  # tempo augmentation: play 10% slower
    onset_ticks.mul_(stretch)


# --- relative attention and the transformer


def _tempo_float64_concatenated_to_bf16_tokens() -> None:
    _seeded()
    token_embedding = nn.Embedding(_VOCAB, 31).to(bf16)
    tokens = torch.tensor([[3, 17, 40, 88, 120, 7]])
    tempo_bpm = torch.from_numpy(np.full((1, 6, 1), 120.0))  # pretty_midi.get_tempo_changes(): float64
    x = torch.cat([token_embedding(tokens), tempo_bpm / 240.0], dim=-1)
    nn.Linear(32, 32).to(bf16)(x)


def _relative_logits_matmul_fp32_er() -> None:
    _seeded()
    heads, length, dim = 4, 16, 8
    q = torch.randn(2, heads, length, dim, dtype=bf16)
    er = torch.randn(length, dim)  # Music Transformer's E_r: a plain tensor attribute, missed by model.to(bf16)
    torch.matmul(q, er.T)


def _relative_bias_baddbmm_fp32() -> None:
    _seeded()
    heads, length, dim = 4, 16, 8
    q = torch.randn(heads, length, dim, dtype=bf16)
    k = torch.randn(heads, length, dim, dtype=bf16)
    rel_bias = torch.zeros(heads, length, length)  # skewed relative logits accumulated in fp32
    torch.baddbmm(rel_bias, q, k.transpose(1, 2), alpha=dim**-0.5)


def _relative_bias_numpy_float64_sdpa_mask() -> None:
    _seeded()
    length = 16
    distance = np.abs(np.arange(length)[:, None] - np.arange(length)[None, :])
    bias = torch.from_numpy(-np.log1p(distance))  # a beat-distance bias precomputed in numpy: float64
    q = torch.randn(1, 4, length, 8, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=bias)


def _instrument_embedding_fp32_into_bf16_encoder() -> None:
    _seeded()
    token_embedding = nn.Embedding(_VOCAB, 32).to(bf16)
    instrument_embedding = nn.Embedding(128, 32)  # General MIDI programs, added after the cast: still fp32
    encoder = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, norm_first=True).to(bf16)
    tokens = torch.tensor([[3, 17, 40, 88]])
    programs = torch.tensor([[0, 0, 33, 33]])  # piano, piano, bass, bass
    encoder(token_embedding(tokens) + instrument_embedding(programs))


def _bf16_frame_index_copy_into_fp32_roll() -> None:
    _seeded()
    generated = torch.zeros(1, _PITCHES, 32)  # the output roll, allocated fp32
    for step in range(2):
        frame_probs = torch.sigmoid(torch.randn(1, _PITCHES, 1, dtype=bf16))  # the bf16 model's next frame
        generated.index_copy_(2, torch.tensor([step]), frame_probs)


def _chord_bag_float64_durations_embedding_bag() -> None:
    _seeded()
    pitch_class_table = nn.Parameter(torch.randn(12, 16))
    pitch_classes = torch.tensor([0, 4, 7, 2, 5, 9])  # C major, then D minor
    offsets = torch.tensor([0, 3])
    durations = torch.from_numpy(np.array([1.0, 0.5, 0.5, 0.25, 0.25, 0.5]))  # note lengths in beats, float64
    F.embedding_bag(pitch_classes, pitch_class_table, offsets, mode="sum", per_sample_weights=durations)


# --- audio features: CQT, chroma, onsets, tempo, structure, alignment


def _cqt_kernels_from_numpy_conv1d() -> None:
    _seeded()
    n_bins, kernel = 24, 256
    t = np.arange(kernel) / _SR
    freqs = 32.7 * 2.0 ** (np.arange(n_bins) / 12)
    window = np.hanning(kernel)
    real = np.cos(2 * np.pi * freqs[:, None] * t) * window  # nnAudio-style CQT kernels built in numpy: float64
    audio = torch.randn(1, 1, _SR // 4)
    F.conv1d(audio, torch.from_numpy(real)[:, None], stride=_HOP)


def _key_film_conv_bias_fp32() -> None:
    _seeded()
    key_embedding = nn.Embedding(24, 32)  # the key-conditioning table kept fp32 by the "keep embeddings fp32" rule
    conv = nn.Conv1d(32, 32, 3, padding=1, bias=False).to(bf16)
    x = torch.randn(1, 32, 16, dtype=bf16)
    key = torch.tensor(9)  # A major
    F.conv1d(x, conv.weight, bias=key_embedding(key), padding=1)


def _onset_bilstm_fp32_over_bf16_features() -> None:
    _seeded()
    cnn = nn.Sequential(nn.Conv1d(229, 64, 3, padding=1), nn.ReLU()).to(bf16)
    onset_rnn = nn.LSTM(64, 32, batch_first=True, bidirectional=True)  # kept fp32 for stability
    log_mel = torch.randn(1, 229, _frames(), dtype=bf16)
    onset_rnn(cnn(log_mel).transpose(1, 2))


def _tempogram_rfft_of_bf16_novelty() -> None:
    _seeded()
    novelty = torch.relu(torch.randn(_frames() * 2, dtype=bf16))  # onset strength from the bf16 model
    spectrum = torch.fft.rfft(novelty - novelty.mean(), n=256)
    (spectrum.abs() ** 2).argmax()


def _laplacian_segmentation_eigh_bf16() -> None:
    _seeded()
    features = F.normalize(torch.randn(48, 12, dtype=bf16), dim=-1)  # beat-synchronous chroma, bf16 model output
    affinity = torch.relu(features @ features.T)
    degree = affinity.sum(-1)
    laplacian = torch.diag(degree) - affinity
    torch.linalg.eigh(laplacian)


def _dtw_cost_fp16_init_1e10() -> None:
    _seeded()
    score_chroma = torch.rand(20, 12, dtype=f16)
    performance_chroma = torch.rand(24, 12, dtype=f16)  # from the fp16 chroma model
    cost = torch.cdist(score_chroma.float(), performance_chroma.float()).to(score_chroma.dtype)
    accumulated = torch.full((cost.shape[0] + 1, cost.shape[1] + 1), 1e10, dtype=cost.dtype)
    accumulated[0, 0] = 0


def _causal_mask_float32_min_on_bf16_scores() -> None:
    _seeded()
    scores = torch.randn(4, 16, 16, dtype=bf16)
    causal = torch.ones(16, 16, dtype=torch.bool).tril()
    scores.masked_fill(~causal, torch.finfo(torch.float32).min).softmax(-1)


# --- outputs, sampling, training and file I/O


def _onset_activation_bf16_peak_picking() -> None:
    _seeded()
    activation = torch.sigmoid(torch.randn(_frames(), dtype=bf16))
    act = activation.numpy()  # for madmom/librosa-style peak picking
    np.flatnonzero((act[1:-1] > act[:-2]) & (act[1:-1] > act[2:]) & (act[1:-1] > 0.5)) + 1


def _midi_header_big_endian_from_numpy() -> None:
    header = b"MThd\x00\x00\x00\x06\x00\x01\x00\x04\x01\xe0"  # format 1, 4 tracks, 480 ticks per quarter
    fields = np.frombuffer(header[8:14], dtype=">u2")  # MIDI is big-endian
    torch.from_numpy(fields)


def _fp16_logits_low_temperature_categorical() -> None:
    logits = torch.tensor([[8.0, 6.5, -3.0, 2.0, -80.0, 0.5]], dtype=f16)  # the fp16 model's next-event logits
    temperature = 1e-4  # "almost greedy"
    torch.distributions.Categorical(logits=logits / temperature).sample()


def _fp16_music_lm_grad_scaler() -> None:
    _seeded()
    model = nn.Sequential(nn.Embedding(_VOCAB, 32), nn.Linear(32, _VOCAB)).half()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    tokens = torch.tensor([[3, 17, 40, 88, 120, 7]])
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.float().reshape(-1, _VOCAB), tokens[:, 1:].reshape(-1))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


CASES: dict[str, LiveCase] = {
    # --- REMI events, onset and frame targets, labels
    # REMI position-in-bar computed with true division from int64 onset ticks, looked up in a position embedding
    "remi-position-true-division-embedding": case(_remi_position_from_true_division, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # onset targets scattered at frame numbers rounded from pretty_midi's float64 seconds, never cast to int
    "onset-targets-scatter-float64-frames": case(_onset_targets_scatter_float_frames, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # chord labels read from an annotation CSV as float64 (NaN rows filled) used as cross_entropy targets
    "chord-labels-float64-annotation-table-ce": case(_chord_labels_float_from_annotation_table, "target_dtype",
                                                     "f64",
        grade="correct", grade_at_freeze="correct"),
    # Onsets-and-Frames frame loss with the dataset's uint8 piano roll as the BCE-with-logits target
    "onsets-frames-uint8-roll-bce-logits-target": case(_onsets_and_frames_uint8_targets, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # sustain-pedal state kept as a float 0/1 mask, inverted with ~ to find release frames
    "sustain-pedal-float-mask-invert": case(_sustain_pedal_float_mask_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a uint8 piano roll used directly as masked_fill's mask to forbid re-triggering sounding notes
    "note-on-uint8-roll-masked-fill": case(_note_on_uint8_mask_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # structure analysis: self-similarity of binarised (bool) pitch-class sets by @
    "ssm-bool-pitch-class-sets-matmul": case(_self_similarity_of_bool_pitch_class_sets, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a velocity histogram by torch.histc of pretty_midi's int64 velocities
    "velocity-histc-int64": case(_velocity_histogram_of_int64_velocities, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # key finding: an int64 bincount pitch-class histogram unit-normalised with F.normalize
    "pitch-class-bincount-int64-normalize": case(_pitch_class_histogram_bincount_normalized, "integer_operand",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # the first onset frame by argmax of a bool onset mask, ported from numpy
    "first-onset-argmax-bool": case(_first_onset_argmax_of_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # pitch x time patches of a uint8 velocity roll cut with F.unfold for a ViT-style encoder
    "piano-roll-uint8-unfold-patches": case(_piano_roll_uint8_patches_unfold, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # tempo augmentation: int64 onset ticks stretched in place by a float factor
    "tempo-stretch-int64-ticks-mul-inplace": case(_tempo_stretch_int64_ticks_in_place, "result_cast", "f32",
                                                  "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- relative attention and the transformer
    # pretty_midi's float64 tempo concatenated to bf16 token embeddings (cat promotes to f64), then a bf16 Linear
    "tempo-float64-cat-bf16-tokens-linear": case(_tempo_float64_concatenated_to_bf16_tokens, "matmul_dtype", "f64",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Music Transformer relative logits: 4-D bf16 queries torch.matmul'ed with an fp32 E_r left out of model.to
    "relative-logits-matmul-fp32-er": case(_relative_logits_matmul_fp32_er, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 attention scores baddbmm'ed onto relative logits accumulated in fp32
    "relative-bias-baddbmm-fp32-accumulator": case(_relative_bias_baddbmm_fp32, "batched_matmul_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a beat-distance attention bias precomputed in numpy (float64) as SDPA's attn_mask for bf16 queries
    "beat-distance-bias-numpy-f64-sdpa-mask": case(_relative_bias_numpy_float64_sdpa_mask, "attn_mask_dtype",
                                                   "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 instrument embedding added to bf16 token embeddings, fed to a bf16 pre-norm encoder layer
    "instrument-embedding-fp32-bf16-prenorm-encoder": case(_instrument_embedding_fp32_into_bf16_encoder,
                                                           "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # autoregressive roll generation: the bf16 model's frames index_copy_'ed into an fp32 output roll
    "generated-bf16-frame-index-copy-fp32-roll": case(_bf16_frame_index_copy_into_fp32_roll, "indexed_write_dtype",
                                                      "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a chord embedding as an embedding_bag of pitch classes weighted by float64 note durations
    "chord-embedding-bag-float64-durations": case(_chord_bag_float64_durations_embedding_bag, "op_dtype", "f32",
                                                  "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- audio features: CQT, chroma, onsets, tempo, structure, alignment
    # nnAudio-style CQT kernels built in numpy (float64) convolved with fp32 audio
    "cqt-kernels-numpy-f64-conv1d": case(_cqt_kernels_from_numpy_conv1d, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # key conditioning: an fp32 key embedding used as the bias of a bf16 conv
    "key-conditioning-fp32-conv-bias": case(_key_film_conv_bias_fp32, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an onset BiLSTM kept fp32 over a bf16 conv front end's features
    "onset-bilstm-fp32-bf16-features": case(_onset_bilstm_fp32_over_bf16_features, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a tempogram by rfft of the bf16 model's onset-strength curve
    "tempogram-rfft-bf16-novelty": case(_tempogram_rfft_of_bf16_novelty, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Laplacian structure segmentation: eigh of a bf16 graph Laplacian of beat-synchronous chroma
    "laplacian-segmentation-eigh-bf16": case(_laplacian_segmentation_eigh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DTW score-to-performance alignment: the accumulated-cost matrix initialised with 1e10 in fp16
    "dtw-accumulated-cost-fp16-1e10": case(_dtw_cost_fp16_init_1e10, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a causal mask filled with torch.finfo(torch.float32).min on bf16 attention scores
    "causal-mask-float32-min-bf16-scores": case(_causal_mask_float32_min_on_bf16_scores, "half_overflow", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- outputs, sampling, training and file I/O
    # the bf16 onset activation handed to numpy for peak picking
    "onset-activation-bf16-numpy-peak-picking": case(_onset_activation_bf16_peak_picking, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a hand-written MIDI header parser: big-endian uint16 fields from np.frombuffer into torch.from_numpy
    "midi-header-big-endian-from-numpy": case(_midi_header_big_endian_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # near-greedy sampling: fp16 logits divided by temperature 1e-4 overflow to inf, Categorical rejects the NaN
    "fp16-logits-temperature-1e-4-categorical": case(_fp16_logits_low_temperature_categorical, "nonfinite", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a .half() music language model trained with GradScaler, unscale_ of its fp16 gradients
    "fp16-music-lm-grad-scaler-unscale": case(_fp16_music_lm_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
