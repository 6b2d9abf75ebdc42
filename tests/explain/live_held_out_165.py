"""Held-out live set 165: music transcription and symbolic music written by hand in low precision, the situations sets
60 and 101 did not have (MT3-style note-event tokens with absolute-time tokens from pretty_midi's float64 onsets and
a bf16 decoder over audio-encoder memory, Onsets-and-Frames and high-resolution piano transcription heads: onset,
frame, velocity and sub-frame offset regression, an input BatchNorm over mel bins in a halved transcriber, frame
LSTMs, HMM note smoothing, NMF transcription with note templates, tuning estimation, uint8 velocity values and MIDI
pitches stored in a byte, bool note-on masks, fp16 piano-roll CNNs, pitch-shift augmentation, a mean teacher for
semi-supervised transcription, score-to-audio cross-attention, notes as a numpy structured array). Defects planted by
a helper who never read the rules, written before castwise ran and graded once with the rules frozen at d523f429."""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d523f429"

bf16, f16 = torch.bfloat16, torch.float16
_KEYS = 88  # piano keys, A0 (MIDI 21) to C8 (MIDI 108)
_LOWEST = 21
_FPS = 100  # 10 ms hop: 1600 samples at 16 kHz
_SAMPLE_RATE = 16000
_N_MELS = 48
_D_MODEL = 32
# MT3-style vocabulary: 3 specials, 600 absolute-time bins (10 ms), 128 pitches, 128 velocities, 1 note-off marker
_TIME_OFFSET, _PITCH_OFFSET, _VELOCITY_OFFSET = 3, 603, 731
_VOCAB = 860


def _seeded() -> None:
    torch.manual_seed(0)


def _notes() -> list[tuple[int, float, float, int]]:
    """(pitch, onset seconds, offset seconds, velocity) as pretty_midi's note list gives them."""
    return [(60, 0.10, 0.52, 80), (64, 0.10, 0.48, 72), (67, 0.55, 0.98, 90), (72, 0.61, 0.90, 64)]


def _rolls(frames: int = 100) -> tuple[torch.Tensor, torch.Tensor]:
    """Onset and frame piano rolls (88 x frames) as bool tensors."""
    onset = torch.zeros(_KEYS, frames, dtype=torch.bool)
    active = torch.zeros(_KEYS, frames, dtype=torch.bool)
    for pitch, start, end, _ in _notes():
        on, off = round(start * _FPS), round(end * _FPS)
        onset[pitch - _LOWEST, on] = True
        active[pitch - _LOWEST, on:off] = True
    return onset, active


def _decoder(dtype: torch.dtype) -> nn.TransformerDecoder:
    layer = nn.TransformerDecoderLayer(_D_MODEL, 4, 64, dropout=0.0, batch_first=True)
    return nn.TransformerDecoder(layer, 2).to(dtype)


# --- note-event tokens, pitches and velocities


def _mt3_time_tokens_from_float64_onsets() -> None:
    _seeded()
    notes = _notes()
    onsets = np.array([n[1] for n in notes])  # pretty_midi seconds: float64
    pitches = np.array([n[0] for n in notes])
    time_tokens = torch.from_numpy(np.round(onsets * _FPS)) + _TIME_OFFSET  # rounded, never made integer
    pitch_tokens = torch.from_numpy(pitches) + _PITCH_OFFSET
    tokens = torch.stack([time_tokens, pitch_tokens], dim=1).flatten()
    token_embedding = nn.Embedding(_VOCAB, _D_MODEL)
    token_embedding(tokens[None])


def _uint8_pitches_index_frequency_table() -> None:
    pitches = torch.from_numpy(np.array([60, 64, 67, 72], dtype=np.uint8))  # MIDI pitches fit in a byte
    midi_to_hz = 440.0 * 2.0 ** ((torch.arange(128) - 69) / 12)
    midi_to_hz[pitches]


def _uint8_velocities_into_linear() -> None:
    _seeded()
    velocities = torch.from_numpy(np.array([n[3] for n in _notes()], dtype=np.uint8))[:, None]  # from the MIDI file
    velocity_proj = nn.Linear(1, _D_MODEL)
    velocity_proj(velocities)


def _one_hot_pitches_matmul_embedding() -> None:
    _seeded()
    pitch_index = torch.tensor([n[0] for n in _notes()]) - _LOWEST
    pitch_matrix = nn.Parameter(torch.randn(_KEYS, _D_MODEL) * 0.02)
    one_hot = F.one_hot(pitch_index, _KEYS)
    one_hot @ pitch_matrix


def _pitch_shift_int64_tokens_in_place() -> None:
    _seeded()
    pitch_tokens = torch.tensor([n[0] for n in _notes()]) + _PITCH_OFFSET
    shift = torch.empty(1).uniform_(-3, 3).round()  # semitones of pitch-shift augmentation
    pitch_tokens.add_(shift)


def _velocity_sequences_padded_with_minus_one() -> None:
    tracks = [torch.tensor([80, 72, 90, 64], dtype=torch.uint8), torch.tensor([100, 45], dtype=torch.uint8)]
    nn.utils.rnn.pad_sequence(tracks, batch_first=True, padding_value=-1)  # -1 marks padding


def _notes_as_structured_array() -> None:
    note_dtype = np.dtype([("pitch", np.uint8), ("onset", np.float64), ("offset", np.float64), ("velocity", np.uint8)])
    notes = np.array(_notes(), dtype=note_dtype)
    torch.from_numpy(notes)


def _note_frames_by_repeat_interleave_of_float_durations() -> None:
    notes = _notes()
    pitches = torch.tensor([n[0] for n in notes])
    durations = torch.from_numpy(np.round((np.array([n[2] for n in notes]) - np.array([n[1] for n in notes])) * _FPS))
    torch.repeat_interleave(pitches, durations)  # frame-level pitch labels, one per 10 ms


# --- frame, onset, velocity and offset heads and their losses


def _frame_pitch_targets_from_float_zeros() -> None:
    _seeded()
    frames = 100
    targets = torch.zeros(frames)  # 0 = silence, 1..88 = key
    for pitch, start, end, _ in _notes()[2:3]:  # the monophonic melody line
        targets[round(start * _FPS):round(end * _FPS)] = pitch - _LOWEST + 1
    logits = torch.randn(frames, _KEYS + 1, requires_grad=True)
    F.cross_entropy(logits, targets)


def _velocity_huber_against_int64_velocities() -> None:
    _seeded()
    velocity_head = nn.Linear(_D_MODEL, 1)
    note_features = torch.randn(4, _D_MODEL)
    velocities = torch.tensor([n[3] for n in _notes()])  # MIDI velocities, int64
    predicted = torch.sigmoid(velocity_head(note_features)).squeeze(-1) * 127
    F.huber_loss(predicted, velocities, delta=8.0).backward()


def _onset_offset_huber_against_float64_targets() -> None:
    _seeded()
    offset_head = nn.Linear(_D_MODEL, 1)
    note_features = torch.randn(4, _D_MODEL)
    onset_frames = np.array([n[1] for n in _notes()]) * _FPS + 0.37  # float64, from pretty_midi seconds
    targets = torch.from_numpy(onset_frames - np.floor(onset_frames))  # sub-frame onset position
    predicted = torch.sigmoid(offset_head(note_features)).squeeze(-1)
    F.huber_loss(predicted, targets).backward()


def _onset_bce_on_bf16_sigmoid() -> None:
    _seeded()
    onset_head = nn.Linear(_N_MELS, _KEYS).to(bf16)
    features = torch.randn(100, _N_MELS, dtype=bf16)
    onset_roll, _ = _rolls()
    onset_probs = torch.sigmoid(onset_head(features))
    F.binary_cross_entropy(onset_probs, onset_roll.T.float())


def _frame_loss_weight_one_minus_onset_mask() -> None:
    _seeded()
    onset_roll, frame_roll = _rolls()
    frame_logits = torch.randn(_KEYS, 100, requires_grad=True)
    per_frame = F.binary_cross_entropy_with_logits(frame_logits, frame_roll.float(), reduction="none")
    weight = 1 - onset_roll  # the onset frames are counted by the onset head already
    (per_frame * weight).mean()


def _note_velocity_kept_where_float_active() -> None:
    _seeded()
    frame_probs = torch.rand(_KEYS, 100)
    velocity_pred = torch.rand(_KEYS, 100) * 127
    active = (frame_probs > 0.5).float()  # kept float to sum and average with
    polyphony = active.sum(0)
    velocities = torch.where(active, velocity_pred, torch.zeros_like(velocity_pred))
    velocities.sum(0) / polyphony.clamp(min=1)


def _onset_mask_reflect_padded_for_peak_picking() -> None:
    onset_roll, _ = _rolls()
    padded = F.pad(onset_roll[None], (2, 2), mode="reflect")  # a 5-frame window around every frame
    padded.unfold(-1, 5, 1)


# --- acoustic models: CNNs, norms, recurrent and attention layers


def _fp16_piano_roll_cnn_given_fp32_roll() -> None:
    _seeded()
    chord_cnn = nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=(12, 3), padding=(0, 1)), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(8, 24),
    ).half()
    _, frame_roll = _rolls()
    roll = torch.zeros(1, 1, _KEYS, 100)
    roll[0, 0] = frame_roll.float()
    chord_cnn(roll)


class _HighResTranscriber(nn.Module):
    """Kong et al.-style: a BatchNorm over the mel bins first, then a conv block."""

    def __init__(self) -> None:
        super().__init__()
        self.bn0 = nn.BatchNorm2d(_N_MELS)
        self.conv = nn.Conv2d(1, 8, 3, padding=1)

    def forward(self, mel: torch.Tensor) -> torch.Tensor:  # (batch, 1, time, mels)
        x = self.bn0(mel.transpose(1, 3)).transpose(1, 3)
        return self.conv(x)


def _halved_transcriber_input_batch_norm_fp32_mel() -> None:
    _seeded()
    model = _HighResTranscriber().half()
    log_mel = torch.randn(2, 1, 100, _N_MELS)  # from the fp32 feature pipeline
    model(log_mel)


def _halved_frame_lstm_fp32_initial_state() -> None:
    _seeded()
    frame_lstm = nn.LSTM(_KEYS, 48, batch_first=True).half()
    frame_features = torch.randn(2, 100, _KEYS, dtype=f16)
    h0 = torch.zeros(1, 2, 48)
    c0 = torch.zeros(1, 2, 48)
    frame_lstm(frame_features, (h0, c0))


def _mt3_bf16_decoder_fp32_encoder_memory() -> None:
    _seeded()
    decoder = _decoder(bf16)
    token_embedding = nn.Embedding(_VOCAB, _D_MODEL).to(bf16)
    memory = torch.randn(1, 64, _D_MODEL)  # audio-encoder outputs cached to disk in fp32
    tokens = torch.tensor([[1, 13, 663, 13, 667]])
    decoder(token_embedding(tokens), memory)


def _mt3_decoder_int64_frame_padding_mask() -> None:
    _seeded()
    decoder = _decoder(bf16)
    memory = torch.randn(1, 8, _D_MODEL, dtype=bf16)
    audio_attention_mask = torch.tensor([[1, 1, 1, 1, 1, 1, 0, 0]])  # from the feature extractor: 1 = real frame
    decoder(torch.randn(1, 5, _D_MODEL, dtype=bf16), memory, memory_key_padding_mask=audio_attention_mask)


def _score_audio_cross_attention_fp32_memory_mask() -> None:
    _seeded()
    cross = nn.MultiheadAttention(_D_MODEL, 4, batch_first=True).to(bf16)
    score_notes = torch.randn(1, 4, _D_MODEL, dtype=bf16)
    audio_frames = torch.randn(1, 8, _D_MODEL, dtype=bf16)
    padded = torch.tensor([False] * 6 + [True] * 2)
    memory_mask = torch.zeros(4, 8).masked_fill(padded, float("-inf"))
    _, alignment = cross(score_notes, audio_frames, audio_frames, attn_mask=memory_mask)  # weights for the plot


def _sdpa_bf16_decoder_over_fp16_encoder_keys() -> None:
    _seeded()
    queries = torch.randn(1, 4, 5, 8, dtype=bf16)  # the bf16 decoder's cross-attention queries
    keys = torch.randn(1, 4, 64, 8, dtype=f16)  # projected by the encoder exported in fp16
    values = torch.randn(1, 4, 64, 8, dtype=f16)
    F.scaled_dot_product_attention(queries, keys, values)


def _hmm_note_smoothing_bmm_fp32_transitions() -> None:
    _seeded()
    posteriors = torch.rand(_KEYS, 100, 2, dtype=bf16)  # per key: P(off), P(on) from the bf16 model
    transition = torch.tensor([[0.99, 0.01], [0.05, 0.95]])  # fp32
    alpha = posteriors[:, 0]
    for t in range(1, 100):
        alpha = torch.bmm(alpha[:, None, :], transition.expand(_KEYS, 2, 2)).squeeze(1) * posteriors[:, t]
        alpha = alpha / alpha.sum(-1, keepdim=True)


def _chroma_by_tensordot_of_bf16_roll() -> None:
    _seeded()
    roll = torch.rand(2, 128, 100, dtype=bf16)  # the bf16 model's 128-pitch activations
    fold = torch.zeros(128, 12)
    fold[torch.arange(128), torch.arange(128) % 12] = 1.0
    torch.tensordot(roll, fold, dims=([1], [0]))


def _note_velocity_scatter_reduce_bf16_frames() -> None:
    _seeded()
    frame_velocity = torch.rand(40, dtype=bf16) * 127  # the bf16 velocity head, on the frames of each note
    frame_note = torch.arange(40) // 10  # which of the 4 notes each frame belongs to
    note_velocity = torch.zeros(4)
    note_velocity.scatter_reduce_(0, frame_note, frame_velocity, reduce="amax", include_self=False)


def _mean_teacher_ema_lerp_toward_halved_student() -> None:
    _seeded()
    teacher = nn.Sequential(nn.Linear(_N_MELS, 64), nn.ReLU(), nn.Linear(64, _KEYS))
    student = copy.deepcopy(teacher).half()  # the student trains in fp16
    with torch.no_grad():
        for teacher_param, student_param in zip(teacher.parameters(), student.parameters()):
            teacher_param.lerp_(student_param, 1 - 0.999)


def _onset_head_gradient_hook_returns_fp32() -> None:
    _seeded()
    trunk = nn.Linear(_N_MELS, 64).to(bf16)
    onset_head = nn.Linear(64, _KEYS).to(bf16)
    hidden = trunk(torch.randn(100, _N_MELS, dtype=bf16))
    hidden.register_hook(lambda grad: grad.float() * 2.0)  # weigh the onset head's gradient up, "in fp32 for safety"
    onset_head(hidden).float().square().mean().backward()


# --- transcription post-processing and analysis


def _nmf_activations_by_lstsq_fp16_templates() -> None:
    _seeded()
    templates = torch.rand(_N_MELS, _KEYS, dtype=f16)  # one spectral template per key, stored fp16
    spectrogram = torch.rand(_N_MELS, 100, dtype=f16)
    torch.linalg.lstsq(templates, spectrogram).solution.clamp(min=0)


def _tuning_histogram_of_fp16_pitch() -> None:
    _seeded()
    pitch = torch.tensor([60.12, 64.08, 67.15, 71.9, 72.1], dtype=f16)  # the fp16 pitch head, in semitones
    deviation = (pitch - pitch.round()) * 100
    torch.histogram(deviation, bins=20)


def _frame_sample_positions_by_linspace_fp16() -> None:
    frames = 5 * _FPS  # a 5-second clip
    torch.linspace(0, 5 * _SAMPLE_RATE, frames, dtype=f16)  # the fp16 pipeline's dtype


CASES: dict[str, LiveCase] = {
    # --- note-event tokens, pitches and velocities
    # MT3-style absolute-time tokens from pretty_midi's float64 onsets, rounded but stacked as float64, embedded
    "mt3-time-tokens-float64-onsets-embedding": case(_mt3_time_tokens_from_float64_onsets, "index_tensor_dtype",
                                                     "f64",
        grade="correct", grade_at_freeze="correct"),
    # MIDI pitches kept as uint8 index a 128-entry MIDI-to-Hz table (a uint8 index is read as a mask)
    "uint8-pitches-index-midi-to-hz-table": case(_uint8_pitches_index_frequency_table, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the MIDI file's uint8 note velocities fed to an fp32 velocity projection
    "uint8-velocities-into-linear": case(_uint8_velocities_into_linear, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pitch embedding as F.one_hot (int64) of the keys @ an fp32 pitch matrix
    "one-hot-pitches-matmul-fp32-matrix": case(_one_hot_pitches_matmul_embedding, "integer_operand", "int64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # pitch-shift augmentation: int64 pitch tokens shifted in place by a float semitone offset
    "pitch-shift-int64-tokens-add-inplace": case(_pitch_shift_int64_tokens_in_place, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-track uint8 velocity sequences batched by pad_sequence with padding_value=-1
    "uint8-velocities-pad-sequence-minus-one": case(_velocity_sequences_padded_with_minus_one, "half_overflow",
                                                    "uint8",
        grade="correct", grade_at_freeze="correct"),
    # parsed notes as a numpy structured array (pitch, onset, offset, velocity) given to torch.from_numpy
    "notes-structured-array-from-numpy": case(_notes_as_structured_array, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # frame-level pitch labels by repeat_interleave with note durations in frames left float64
    "note-frames-repeat-interleave-float64-durations": case(_note_frames_by_repeat_interleave_of_float_durations,
                                                            "index_tensor_dtype", "f64", fix=("long",),
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (d523f429) castwise gave index_tensor_dtype [int64, f64] (high confidence). torch raised "
             "\"repeat_interleave_cpu\" not implemented for 'Double': repeat_interleave has no kernel for the "
             "float64 repeats (note durations in frames from pretty_midi seconds, rounded but never made integer); "
             "the set expects no_kernel by the corpus convention that an op with no kernel for a dtype is "
             "no_kernel, while the rules read the float repeats as an integer-only argument (indices, counts) given "
             "the wrong dtype. Its cause and fix (`x.long()`) say what the case's fix asks for; only the kind "
             "differs. Expectation corrected after grading (no_kernel to index_tensor_dtype, at registration), "
             "following live_held_out_104's packed-samples-repeat-interleave-float-counts and live_held_out_109's "
             "repeat-factor-sampling-float-repeats (repeat_interleave given float repeats); the grade at freeze "
             "stays as graded.")),
    # --- frame, onset, velocity and offset heads and their losses
    # monophonic frame-wise pitch targets filled into torch.zeros (fp32) and given to cross_entropy
    "frame-pitch-targets-float-zeros-cross-entropy": case(_frame_pitch_targets_from_float_zeros, "target_dtype",
                                                          "f32",
        grade="correct", grade_at_freeze="correct"),
    # velocity regression: huber_loss against the int64 MIDI velocities, backward
    "velocity-huber-int64-targets-backward": case(_velocity_huber_against_int64_velocities, "target_dtype",
                                                  "int64",
        grade="correct", grade_at_freeze="correct"),
    # sub-frame onset regression: huber_loss against float64 targets from pretty_midi seconds, backward
    "onset-offset-huber-float64-targets-backward": case(_onset_offset_huber_against_float64_targets, "loss_dtype",
                                                        "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # onset head in bf16: binary_cross_entropy of its sigmoid against the fp32 onset roll
    "onset-bce-bf16-sigmoid-fp32-roll": case(_onset_bce_on_bf16_sigmoid, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # frame-loss weight for non-onset frames as 1 - the bool onset roll
    "frame-loss-weight-one-minus-bool-onsets": case(_frame_loss_weight_one_minus_onset_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # note velocities kept by torch.where with the float 0/1 activity as the condition
    "velocity-where-float-active-condition": case(_note_velocity_kept_where_float_active, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # peak picking: the bool onset roll reflect-padded before a 5-frame window
    "onset-mask-bool-reflect-pad": case(_onset_mask_reflect_padded_for_peak_picking, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # --- acoustic models: CNNs, norms, recurrent and attention layers
    # a halved piano-roll chord CNN given the roll built in torch.zeros (fp32)
    "fp16-piano-roll-cnn-fp32-roll": case(_fp16_piano_roll_cnn_given_fp32_roll, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # high-resolution piano transcriber halved for inference: its bn0 over mel bins given the fp32 log-mel
    "halved-transcriber-bn0-fp32-log-mel": case(_halved_transcriber_input_batch_norm_fp32_mel, "norm_param_dtype",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # frame LSTM halved, its (h0, c0) made by torch.zeros (fp32)
    "halved-frame-lstm-fp32-initial-state": case(_halved_frame_lstm_fp32_initial_state, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # MT3-style bf16 decoder over audio-encoder memory cached in fp32
    "mt3-bf16-decoder-fp32-encoder-memory": case(_mt3_bf16_decoder_fp32_encoder_memory, "matmul_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the feature extractor's int64 frame attention mask passed as memory_key_padding_mask
    "mt3-decoder-int64-memory-key-padding-mask": case(_mt3_decoder_int64_frame_padding_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # score-to-audio cross-attention in bf16 with need_weights for the alignment plot, an fp32 additive frame mask
    "score-audio-cross-attention-fp32-memory-mask": case(_score_audio_cross_attention_fp32_memory_mask,
                                                         "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 decoder queries against keys and values from an encoder exported in fp16, through SDPA
    "sdpa-bf16-queries-fp16-encoder-keys": case(_sdpa_bf16_decoder_over_fp16_encoder_keys, "sdpa_dtype", "bf16",
                                                "f16",
        grade="correct", grade_at_freeze="correct"),
    # two-state HMM note smoothing: bf16 posteriors bmm'd with the fp32 transition matrix
    "hmm-note-smoothing-bmm-fp32-transitions": case(_hmm_note_smoothing_bmm_fp32_transitions,
                                                    "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # chroma from the bf16 128-pitch activations by tensordot with an fp32 pitch-class folding matrix
    "chroma-tensordot-bf16-roll-fp32-fold": case(_chroma_by_tensordot_of_bf16_roll, "matmul_dtype",
        grade="correct", grade_at_freeze="correct"),
    # note velocity as the amax of bf16 frame velocities scatter_reduce_'d into an fp32 note buffer
    "note-velocity-scatter-reduce-amax-bf16": case(_note_velocity_scatter_reduce_bf16_frames, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # semi-supervised transcription: fp32 mean-teacher weights lerp_'ed toward the fp16 student
    "mean-teacher-ema-lerp-fp16-student": case(_mean_teacher_ema_lerp_toward_halved_student, "lerp_dtype", "f32",
                                               "f16",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook on the bf16 trunk output returning grad.float() * 2
    "onset-gradient-hook-returns-fp32": case(_onset_head_gradient_hook_returns_fp32, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- transcription post-processing and analysis
    # NMF-style transcription: activations by linalg.lstsq against fp16 key templates
    "nmf-activations-lstsq-fp16-templates": case(_nmf_activations_by_lstsq_fp16_templates, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # tuning estimation: torch.histogram of cents deviations of the fp16 pitch head
    "tuning-histogram-fp16-cents": case(_tuning_histogram_of_fp16_pitch, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # frame positions in samples of a 5 s, 16 kHz clip made by linspace in fp16
    "frame-sample-positions-linspace-fp16": case(_frame_sample_positions_by_linspace_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
}
