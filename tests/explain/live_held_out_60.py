"""Held-out live set 60: symbolic music and MIDI models by hand in low precision (event tokens, piano rolls, relative
attention over bars, chord/key conditioning, drums, pitch bends, nucleus sampling). Defects planted by a helper who
never read the rules, written before castwise ran and graded once with the rules frozen at 7cb9348."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "7cb9348"

bf16, f16 = torch.bfloat16, torch.float16
_PITCHES = 128
_VOCAB = 388  # 128 note-on, 128 note-off, 100 time-shift, 32 velocity bins


def _seeded() -> None:
    torch.manual_seed(0)


def _piano_roll(steps: int = 32) -> torch.Tensor:
    roll = torch.zeros(_PITCHES, steps, dtype=torch.uint8)
    roll[60, 0:8] = 1
    roll[64, 8:16] = 1
    roll[67, 16:24] = 1
    return roll


def _uint8_piano_roll_into_conv2d() -> None:
    _seeded()
    rolls = torch.stack([_piano_roll(), _piano_roll()])[:, None]
    encoder = nn.Conv2d(1, 16, (12, 3), padding=(0, 1), bias=False)
    encoder(rolls)


def _bool_multi_hot_frame_into_linear() -> None:
    _seeded()
    frames = (_piano_roll() > 0).T
    frame_proj = nn.Linear(_PITCHES, 64)
    frame_proj(frames)


def _pretty_midi_float64_roll_into_linear() -> None:
    _seeded()
    roll = np.zeros((_PITCHES, 16))  # what pretty_midi's get_piano_roll returns: float64 velocities
    roll[60, :4] = 90.0
    roll[67, 4:8] = 70.0
    frames = torch.from_numpy(roll.T / 127.0)
    frame_proj = nn.Linear(_PITCHES, 64)
    frame_proj(frames)


def _int16_event_tokens_into_embedding() -> None:
    _seeded()
    events = np.array([60, 188, 300, 256 + 60, 64, 188], dtype=np.int16)  # tokenizer stores events compactly
    tokens = torch.from_numpy(events)[None]
    nn.Embedding(_VOCAB, 32)(tokens)


def _int32_chord_ids_one_hot() -> None:
    chords = np.array([0, 5, 7, 0], dtype=np.int32)  # C, F, G, C from the chord annotation file
    condition = F.one_hot(torch.from_numpy(chords), num_classes=24).float()
    condition.sum()


def _velocity_normalised_in_place() -> None:
    velocities = torch.tensor([64, 90, 110, 32])
    velocities.div_(127)


def _pitch_bend_center_int8() -> None:
    steps = 16
    bends = torch.full((steps,), 8192, dtype=torch.int8)  # 14-bit pitch bend centre, packed "to save memory"
    bends.sum()


def _tick_durations_fp16_clamp() -> None:
    durations = torch.tensor([480.0, 960.0, 240.0, 1920.0], dtype=f16)  # ticks at 480 PPQ
    durations.clamp(min=1.0, max=1e5)


def _relative_position_einsum_fp32_table() -> None:
    _seeded()
    heads, length, dim = 4, 16, 32
    q = torch.randn(2, heads, length, dim, dtype=bf16)
    rel_table = nn.Parameter(torch.randn(2 * length - 1, dim))  # kept fp32 after model.to(bf16): not registered
    torch.einsum("bhld,md->bhlm", q, rel_table)


def _music_transformer_skew_bmm() -> None:
    _seeded()
    heads, length, dim = 4, 16, 32
    q = torch.randn(2 * heads, length, dim, dtype=bf16)
    er = torch.randn(length, dim)  # relative embeddings created per call with torch.randn: fp32
    qer = torch.bmm(q, er.T.expand(2 * heads, dim, length))
    F.pad(qer, (1, 0)).reshape(2 * heads, length + 1, length)[:, 1:]


def _beat_relative_bias_float_index() -> None:
    _seeded()
    bias_table = nn.Parameter(torch.zeros(33, 4))
    onsets_in_beats = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])  # from onset seconds * tempo / 60
    rel = onsets_in_beats[:, None] - onsets_in_beats[None, :] + 16
    bias_table[rel]


def _drum_onsets_by_bool_difference() -> None:
    hits = torch.tensor([[1, 1, 0, 0, 1, 0, 1, 1]], dtype=torch.bool)
    previous = F.pad(hits, (1, 0))[:, :-1]
    onsets = hits - previous
    onsets.sum()


def _drum_velocity_fp16_masked_with_and() -> None:
    _seeded()
    velocities = torch.rand(9, 16, dtype=f16)  # 9 drum voices, 16 steps
    hits = torch.rand(9, 16) > 0.7
    velocities & hits


def _nucleus_mask_as_long_in_masked_fill() -> None:
    _seeded()
    logits = torch.randn(1, _VOCAB)
    sorted_logits, sorted_idx = logits.sort(descending=True)
    cumulative = sorted_logits.softmax(-1).cumsum(-1)
    remove_sorted = (cumulative > 0.9).long()
    remove = remove_sorted.scatter(1, sorted_idx, remove_sorted)
    logits.masked_fill(remove, float("-inf"))


def _nucleus_unshifted_mask_removes_every_token() -> None:
    _seeded()
    logits = torch.full((1, _VOCAB), -4.0)
    logits[0, 60] = 8.0  # one confident note-on: its own probability is above top_p
    sorted_logits, sorted_idx = logits.sort(descending=True)
    cumulative = sorted_logits.softmax(-1).cumsum(-1)
    remove_sorted = cumulative > 0.9  # missing the shift that keeps the first token past top_p
    remove = remove_sorted.scatter(1, sorted_idx, remove_sorted)
    probs = (logits.masked_fill(remove, float("-inf")) / 0.9).softmax(-1)
    torch.multinomial(probs, 1)


def _gumbel_noise_shaped_like_tokens() -> None:
    _seeded()
    tokens = torch.tensor([[60, 188, 300, 316]])
    logits = torch.randn(1, 4, _VOCAB)
    gumbel = -torch.log(-torch.log(torch.rand_like(tokens)))
    (logits + gumbel[..., None]).argmax(-1)


def _controller_values_int16_avg_pool() -> None:
    cc64 = torch.tensor([[0, 0, 127, 127, 127, 0, 0, 0]], dtype=torch.int16)  # sustain pedal, read as int16
    F.avg_pool1d(cc64[None], kernel_size=2)


def _bool_roll_nearest_upsample() -> None:
    roll = (_piano_roll(16) > 0)[None]  # 16th-note grid to 32nd-note frames
    F.interpolate(roll, scale_factor=2, mode="nearest")


def _pitch_class_histogram_scatter_add_fp16() -> None:
    pitches = torch.tensor([60, 64, 67, 72, 62])
    durations = torch.tensor([1.0, 0.5, 0.5, 2.0, 0.25], dtype=f16)  # from the fp16 dataset cache
    histogram = torch.zeros(12)
    histogram.scatter_add_(0, pitches % 12, durations)


def _roll_from_events_int16_velocity() -> None:
    roll = torch.zeros(_PITCHES, 32, dtype=torch.uint8)
    pitches = torch.tensor([60, 64, 67])
    starts = torch.tensor([0, 8, 16])
    velocities = torch.tensor([90, 70, 100], dtype=torch.int16)
    roll.index_put_((pitches, starts), velocities)


def _chord_conditioned_layer_norm() -> None:
    _seeded()
    hidden = torch.randn(2, 16, 64)
    chord_embedding = nn.Embedding(24, 64).to(bf16)  # conditioning module cast, backbone left fp32
    gamma = 1 + chord_embedding(torch.tensor(3))
    F.layer_norm(hidden, (64,), weight=gamma)


def _melody_gru_bf16_fp32_embeddings() -> None:
    _seeded()
    embed = nn.Embedding(_VOCAB, 32)
    melody_rnn = nn.GRU(32, 64, batch_first=True).to(bf16)
    melody_rnn(embed(torch.tensor([[60, 188, 300]])))


def _groove_template_lerp() -> None:
    _seeded()
    timing = torch.randn(9, 16, dtype=bf16)  # the bf16 model's predicted micro-timing offsets
    groove = torch.from_numpy(np.linspace(-0.02, 0.02, 16, dtype=np.float32)).expand(9, 16)
    torch.lerp(timing, groove, 0.3)


def _drum_vae_bce_bool_target() -> None:
    _seeded()
    probs = torch.sigmoid(torch.randn(4, 9, 16))
    target = torch.rand(4, 9, 16) > 0.8
    F.binary_cross_entropy(probs, target)


def _int16_token_targets_in_cross_entropy() -> None:
    _seeded()
    logits = torch.randn(2, 6, _VOCAB)
    targets = torch.from_numpy(np.array([[60, 188, 300, 316, 64, 188]] * 2, dtype=np.int16))
    F.cross_entropy(logits.reshape(-1, _VOCAB), targets.reshape(-1))


def _generated_bf16_roll_to_numpy() -> None:
    _seeded()
    roll = torch.sigmoid(torch.randn(_PITCHES, 32, dtype=bf16))
    np.asarray(roll > 0.5) * np.asarray(roll)  # velocities for pretty_midi's piano_roll_to_instrument


def _transposed_conv_decoder_bf16_latent() -> None:
    _seeded()
    latent = torch.randn(2, 32, 8, dtype=bf16)
    decoder = nn.ConvTranspose1d(32, _PITCHES, 4, stride=4, bias=False)
    decoder(latent)


def _chord_memory_sdpa_fp32_keys() -> None:
    _seeded()
    q = torch.randn(2, 4, 16, 16, dtype=bf16)
    chord_memory = torch.randn(2, 4, 8, 16)  # precomputed chord keys/values, cached fp32
    F.scaled_dot_product_attention(q, chord_memory, chord_memory)


def _bar_mask_fp32_for_bf16_mha() -> None:
    _seeded()
    bars = torch.arange(16) // 4
    bar_mask = torch.zeros(16, 16).masked_fill(bars[:, None] < bars[None, :], float("-inf"))
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    x = torch.randn(1, 16, 32, dtype=bf16)
    attention(x, x, x, attn_mask=bar_mask)


def _fp32_master_grad_assigned_to_bf16_param() -> None:
    _seeded()
    model = nn.Linear(32, _VOCAB).to(bf16)
    master = nn.Linear(32, _VOCAB)
    master(torch.randn(4, 32)).sum().backward()
    model.weight.grad = master.weight.grad


CASES: dict[str, LiveCase] = {
    # a uint8 piano roll (128 x T) batched straight into a float Conv2d encoder
    "piano-roll-uint8-conv2d": case(_uint8_piano_roll_into_conv2d, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bool multi-hot frames of a piano roll fed to an fp32 frame projection
    "bool-multi-hot-frame-linear": case(_bool_multi_hot_frame_into_linear, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pretty_midi's float64 piano roll through torch.from_numpy into an fp32 Linear
    "pretty-midi-f64-roll-linear": case(_pretty_midi_float64_roll_into_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # MIDI event tokens stored as int16 by the tokenizer, looked up in nn.Embedding
    "event-tokens-int16-embedding": case(_int16_event_tokens_into_embedding, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # chord ids read from numpy as int32 and one-hot encoded for conditioning
    "chord-ids-int32-one-hot": case(_int32_chord_ids_one_hot, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int64 MIDI velocities normalised to [0, 1] in place with div_
    "velocity-int64-inplace-div": case(_velocity_normalised_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # pitch bend centre value 8192 written into an int8 buffer
    "pitch-bend-centre-int8-full": case(_pitch_bend_center_int8, "half_overflow", "int8",
        grade="correct", grade_at_freeze="correct"),
    # fp16 tick durations clamped with a max of 1e5 ticks
    "tick-durations-fp16-clamp": case(_tick_durations_fp16_clamp, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # relative-position logits: bf16 queries einsum'd with an fp32 relative embedding table
    "relative-position-einsum-fp32-table": case(_relative_position_einsum_fp32_table, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Music Transformer skewing: bf16 queries bmm'd with fp32 relative embeddings made per call
    "music-transformer-skew-bmm": case(_music_transformer_skew_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # relative beat-distance bias looked up with float beat offsets
    "beat-relative-bias-float-index": case(_beat_relative_bias_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # drum onsets found by subtracting the shifted bool hit pattern
    "drum-onsets-bool-subtract": case(_drum_onsets_by_bool_difference, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # fp16 drum velocities masked by hits with `&`
    "drum-velocity-fp16-and-hits": case(_drum_velocity_fp16_masked_with_and, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # nucleus filtering: the removal mask made .long() before masked_fill
    "nucleus-long-mask-masked-fill": case(_nucleus_mask_as_long_in_masked_fill, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # nucleus filtering without the shift: a confident token removes every token, softmax of all -inf is NaN
    "nucleus-unshifted-all-removed-nan": case(_nucleus_unshifted_mask_removes_every_token, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # Gumbel-max sampling with noise made by rand_like of the int64 token tensor
    "gumbel-noise-rand-like-int64-tokens": case(_gumbel_noise_shaped_like_tokens, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # sustain-pedal CC values kept int16, smoothed with avg_pool1d
    "cc-int16-avg-pool": case(_controller_values_int16_avg_pool, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # a bool piano roll upsampled in time with nearest interpolation
    "bool-roll-nearest-upsample": case(_bool_roll_nearest_upsample, "integer_operand", "bool",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (7cb9348) castwise gave integer_operand [bool] (high confidence). Nearest interpolation only "
             "copies values, so the bool roll meets an op lacking a bool kernel for moving data, not float math; the rules "
             "read an interpolation kernel's not-implemented on a bool tensor as integer data fed to float math. "
             "Expectation corrected after grading (no_kernel to integer_operand), to the convention the live sets "
             "already had for a bool or integer tensor given to interpolate, nearest mode included "
             "(live_held_out_2's interpolate-bool-mask, live_held_out_5's label-map-nearest-resize-int64, "
             "live_held_out_21's resample-int16-interpolate); the frozen grade stays wrong.")),
    # pitch-class histogram: fp16 durations scatter_add'ed into an fp32 histogram
    "pitch-class-scatter-add-fp16-durations": case(_pitch_class_histogram_scatter_add_fp16, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # piano roll built from events: int16 velocities index_put_ into a uint8 roll
    "roll-index-put-int16-velocities": case(_roll_from_events_int16_velocity, "indexed_write_dtype", "uint8",
                                            "int16",
        grade="correct", grade_at_freeze="correct"),
    # chord-conditioned LayerNorm: gamma from a bf16 chord embedding, fp32 hidden states
    "chord-conditioned-layer-norm-bf16-gamma": case(_chord_conditioned_layer_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 melody GRU fed the fp32 token embeddings
    "melody-gru-bf16-fp32-embeddings": case(_melody_gru_bf16_fp32_embeddings, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # humanisation: bf16 predicted micro-timing lerped toward an fp32 groove template
    "groove-template-lerp": case(_groove_template_lerp, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # drum-pattern VAE: a bool hit grid as the BCE target
    "drum-vae-bce-bool-target": case(_drum_vae_bce_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # next-event cross_entropy with int16 token targets from the numpy cache
    "token-ce-int16-targets": case(_int16_token_targets_in_cross_entropy, "target_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # a generated bf16 piano roll handed to numpy for pretty_midi export
    "generated-bf16-roll-to-numpy": case(_generated_bf16_roll_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # piano-roll VAE decoder: a bf16 latent into an fp32 ConvTranspose1d
    "transposed-conv-decoder-bf16-latent": case(_transposed_conv_decoder_bf16_latent, "conv_weight_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # cross-attention from bf16 melody queries to a cached fp32 chord memory through SDPA
    "chord-memory-sdpa-fp32-keys": case(_chord_memory_sdpa_fp32_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bar-causal float mask built in fp32 for a bf16 MultiheadAttention
    "bar-mask-fp32-bf16-mha": case(_bar_mask_fp32_for_bf16_mha, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp32 master gradients assigned to a bf16 model's parameter .grad
    "master-grad-fp32-to-bf16-param": case(_fp32_master_grad_assigned_to_bf16_param, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
