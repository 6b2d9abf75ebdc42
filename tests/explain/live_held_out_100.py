"""Held-out live set 100: event-camera vision and spiking neural networks written by hand in low precision (event
streams with int64 microsecond timestamps, int16/uint16 pixel coordinates and bool/int8 polarities, raw EVT 2.0 words,
event frames, voxel grids and time surfaces binned with scatter/index_add, surrogate-gradient LIF neurons with
membrane potentials under fp16/bf16 autocast, spike counts and firing-rate losses, event-based optical flow, image
reconstruction and recognition heads). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at b459a42."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b459a42"

bf16, f16 = torch.bfloat16, torch.float16
_H, _W = 260, 346  # DAVIS346 sensor
_STEPS = 8  # time bins / SNN time steps
_BATCH = 4
_CLASSES = 11  # DVS128 Gesture


def _seeded() -> None:
    torch.manual_seed(0)


class _Events(NamedTuple):
    """An event stream as a tonic-style loader hands it over: x, y int16, t int64 microseconds, p bool."""

    x: torch.Tensor
    y: torch.Tensor
    t: torch.Tensor
    p: torch.Tensor


def _events(n: int = 2000) -> _Events:
    _seeded()
    x = torch.randint(0, _W, (n,), dtype=torch.int16)
    y = torch.randint(0, _H, (n,), dtype=torch.int16)
    t = 1_650_000_000 + torch.randint(0, 50_000, (n,)).sort().values  # 50 ms window, absolute µs clock
    p = torch.rand(n) > 0.5
    return _Events(x, y, t, p)


class _FastSigmoidSpike(torch.autograd.Function):
    """Heaviside forward, fast-sigmoid surrogate gradient backward (SuperSpike / snnTorch style)."""

    @staticmethod
    def forward(ctx, v):  # noqa: ANN001, ANN205 - autograd.Function signature
        ctx.save_for_backward(v)
        return (v >= 0).to(v.dtype)

    @staticmethod
    def backward(ctx, grad):  # noqa: ANN001, ANN205 - autograd.Function signature
        (v,) = ctx.saved_tensors
        return grad / (1 + 10 * v.abs()) ** 2


def _lif(currents: torch.Tensor, beta: float = 0.9, threshold: float = 1.0) -> torch.Tensor:
    """Leaky integrate-and-fire over time: currents (T, B, N) to spikes (T, B, N) in the currents' dtype."""
    mem = torch.zeros_like(currents[0])
    spikes = []
    for current in currents:
        mem = beta * mem + current
        spike = _FastSigmoidSpike.apply(mem - threshold)
        mem = mem - spike * threshold  # soft reset
        spikes.append(spike)
    return torch.stack(spikes)


# --- event streams: decoding, coordinates, timestamps, polarities


def _evt2_raw_words_decoded_with_shifts() -> None:
    # Prophesee EVT 2.0: 4-bit type | 6-bit timestamp LSB | 11-bit x | 11-bit y, read with np.fromfile(dtype=uint32)
    raw = np.array([(1 << 28) | (5 << 22) | (100 << 11) | 40, (0 << 28) | (7 << 22) | (101 << 11) | 41,
                    (8 << 28) | 1234], dtype=np.uint32)
    words = torch.from_numpy(raw)
    event_type = words >> 28
    x = (words >> 11) & 0x7FF
    y = words & 0x7FF
    torch.stack([event_type, x, y])


def _dsec_rectify_map_uint16_coords() -> None:
    # DSEC's events.h5 stores x, y as uint16; rectify_map.h5 is (480, 640, 2) float32
    height, width = 480, 640
    ys, xs = torch.meshgrid(torch.arange(height, dtype=torch.float32), torch.arange(width, dtype=torch.float32),
                            indexing="ij")
    rectify_map = torch.stack([xs + 0.3, ys - 0.2], -1)
    x = torch.from_numpy(np.array([12, 300, 639, 5], dtype=np.uint16))
    y = torch.from_numpy(np.array([0, 240, 479, 17], dtype=np.uint16))
    rectified = rectify_map[y, x]
    rectified.sum()


def _timestamps_normalised_in_place() -> None:
    events = _events()
    t = events.t.clone()
    t0, t1 = t[0].item(), t[-1].item()
    t.sub_(t0).div_(t1 - t0)  # to [0, 1] for the voxel grid


def _random_polarity_flip_on_bool_polarities() -> None:
    events = _events()
    flip = torch.rand(()) < 1.0  # augmentation drawn per sample; written for tonic's +1/-1 polarities
    p = -events.p if flip else events.p
    p.sum()


def _padded_events_int16_sentinel() -> None:
    events = _events(50)
    xy = torch.stack([events.x, events.y], 1)
    pad = 64 - len(xy)
    invalid = torch.full((pad, 2), 65535, dtype=xy.dtype)  # "no event" as in the uint16 recording format
    torch.cat([xy, invalid])


def _event_rate_histc_int64_timestamps() -> None:
    events = _events()
    t0, t1 = events.t[0].item(), events.t[-1].item()
    rate = torch.histc(events.t, bins=50, min=t0, max=t1)  # events per millisecond bin
    rate.max()


def _background_activity_noise_exponential_int64() -> None:
    # v2e-style background-activity noise: exponential inter-event gaps at 0.1 Hz per pixel
    events = _events(500)
    gaps = torch.empty_like(events.t).exponential_(0.1 * 1e-6)
    noise_t = events.t[0] + gaps.cumsum(0)
    noise_t.max()


# --- event representations: frames, voxel grids, time surfaces


def _voxel_flat_index_int16_index_add() -> None:
    events = _events()
    pixel = events.y * _W + events.x  # stays int16 like the coordinates
    count_image = torch.zeros(_H * _W)
    count_image.index_add_(0, pixel, events.p.float() * 2 - 1)


def _int8_two_channel_event_frame_into_conv() -> None:
    events = _events()
    frame = torch.zeros(2, _H, _W, dtype=torch.int8)  # int8 "to save memory": counts are small
    frame.index_put_((events.p.long(), events.y.long(), events.x.long()), torch.ones(len(events.t), dtype=torch.int8),
                     accumulate=True)
    stem = nn.Conv2d(2, 16, 3, padding=1)
    stem(frame[None])


def _sae_index_put_int64_timestamps() -> None:
    # surface of active events: each pixel keeps its latest timestamp (events are time-sorted)
    events = _events()
    sae = torch.zeros(_H, _W)
    sae.index_put_((events.y.long(), events.x.long()), events.t)
    torch.exp(-(events.t[-1] - sae) / 50_000.0)


def _contrast_max_gaussian_fp64_kernel() -> None:
    # contrast maximisation: image of warped events smoothed with a cv2-style Gaussian kernel (numpy float64)
    events = _events()
    iwe = torch.zeros(_H, _W)
    iwe.index_put_((events.y.long(), events.x.long()), torch.ones(len(events.t)), accumulate=True)
    g = np.exp(-0.5 * (np.arange(-2, 3) / 1.0) ** 2)
    g /= g.sum()
    kernel = torch.from_numpy(np.outer(g, g))[None, None]
    smoothed = F.conv2d(iwe[None, None], kernel, padding=2)
    smoothed.var()


# --- spiking neurons and spike-count losses


def _lif_bool_spikes_into_next_layer() -> None:
    _seeded()
    fc1, fc2 = nn.Linear(32, 64), nn.Linear(64, _CLASSES)
    inputs = torch.rand(_STEPS, _BATCH, 32)
    mem = torch.zeros(_BATCH, 64)
    out = []
    for x_t in inputs:
        mem = 0.9 * mem + fc1(x_t)
        spk = mem >= 1.0
        mem = mem - spk.float()
        out.append(fc2(spk))
    torch.stack(out).sum(0)


def _firing_rate_regulariser_mean_of_bool_raster() -> None:
    _seeded()
    fc = nn.Linear(32, 64)
    mem_trace = torch.cumsum(fc(torch.rand(_STEPS, _BATCH, 32)), 0)
    raster = mem_trace >= 1.0
    rate = raster.mean()
    (rate - 0.02) ** 2


def _spike_count_huber_int64_targets() -> None:
    _seeded()
    fc = nn.Linear(32, _CLASSES)
    spikes = _lif(fc(torch.rand(_STEPS, _BATCH, 32)))
    counts = spikes.sum(0)
    labels = torch.tensor([0, 3, 5, 10])
    target = torch.where(F.one_hot(labels, _CLASSES).bool(), 6, 1)  # 6 spikes for the right class, 1 otherwise
    F.huber_loss(counts, target).backward()


def _refractory_index_fill_fp16() -> None:
    _seeded()
    mem = torch.rand(_BATCH, 64).half()  # SNN converted with model.half()
    refractory = torch.zeros(64, dtype=torch.long)
    refractory[[3, 17, 40]] = 2
    silenced = (refractory > 0).nonzero().squeeze(1)
    mem.index_fill_(1, silenced, -1e9)


def _stereo_coincidence_and_fp16_spikes() -> None:
    _seeded()
    fc = nn.Linear(32, 64).half()
    left = _lif(fc(torch.rand(_STEPS, _BATCH, 32).half()))
    right = _lif(fc(torch.rand(_STEPS, _BATCH, 32).half()))
    coincident = left & right  # disparity-tuned coincidence detectors
    coincident.sum()


def _population_class_counts_index_add_autocast() -> None:
    _seeded()
    fc = nn.Linear(32, 10 * _CLASSES)  # ten output neurons per class
    with torch.autocast("cpu", dtype=bf16):
        spikes = _lif(fc(torch.rand(_STEPS, _BATCH, 32)))
    neuron_class = torch.arange(10 * _CLASSES) // 10
    class_counts = torch.zeros(_BATCH, _CLASSES)
    class_counts.index_add_(1, neuron_class, spikes.sum(0))


def _weighted_ce_bf16_counts_fp32_weights() -> None:
    _seeded()
    fc = nn.Linear(32, _CLASSES)
    with torch.autocast("cpu", dtype=bf16):
        counts = _lif(fc(torch.rand(_STEPS, _BATCH, 32))).sum(0)
    class_weights = torch.tensor([1.0, 1.2, 0.8, 1.0, 1.5, 1.0, 1.0, 0.9, 1.1, 1.0, 2.0])  # gesture imbalance
    F.cross_entropy(counts, torch.tensor([0, 3, 5, 10]), weight=class_weights)


def _rate_bce_backward_bf16_rates() -> None:
    _seeded()
    fc = nn.Linear(32, _CLASSES)
    with torch.autocast("cpu", dtype=bf16):
        rates = _lif(fc(torch.rand(_STEPS, _BATCH, 32))).mean(0)
    target_rates = F.one_hot(torch.tensor([0, 3, 5, 10]), _CLASSES).float() * 0.8 + 0.05
    F.binary_cross_entropy(rates, target_rates).backward()


def _poisson_encoding_nan_rates_empty_window() -> None:
    counts = torch.zeros(2, 32, 32)  # a 10 ms window with no events (sensor idle)
    rates = counts / counts.amax()
    spikes = torch.distributions.Poisson(rates * 0.5).sample((_STEPS,))
    spikes.sum()


def _spike_raster_sdpa_uint8_valid_mask() -> None:
    _seeded()
    tokens = torch.randn(_BATCH, 1, 16, 32)
    valid_np = np.ones((_BATCH, 16), dtype=np.uint8)  # padding flags stored in the h5 as uint8
    valid_np[:, 12:] = 0
    valid = torch.from_numpy(valid_np)[:, None, None, :]
    F.scaled_dot_product_attention(tokens, tokens, tokens, attn_mask=valid)


# --- recognition, flow and reconstruction heads


def _polarity_embedding_bool() -> None:
    _seeded()
    events = _events(256)
    x_embed, y_embed, pol_embed = nn.Embedding(_W, 32), nn.Embedding(_H, 32), nn.Embedding(2, 32)
    tokens = x_embed(events.x.long()) + y_embed(events.y.long()) + pol_embed(events.p)
    tokens.mean()


def _mha_event_padding_mask_int64() -> None:
    _seeded()
    lengths = torch.tensor([16, 9, 12, 5])
    tokens = torch.randn(_BATCH, 16, 32)
    padding = (torch.arange(16)[None] >= lengths[:, None]).long()
    attention = nn.MultiheadAttention(32, 4, batch_first=True)
    attention(tokens, tokens, tokens, key_padding_mask=padding)


def _event_transformer_head_layernorm_bf16() -> None:
    _seeded()
    backbone = nn.Linear(4, 32)
    head = nn.Sequential(nn.LayerNorm(32), nn.Linear(32, _CLASSES)).to(bf16)  # head cast to save memory
    tokens = backbone(torch.rand(_BATCH, 64, 4))
    head(tokens.mean(1))


def _recurrent_head_grucell_bf16_hidden() -> None:
    _seeded()
    context = nn.Linear(32, 48)
    cell = nn.GRUCell(32, 48)
    features = torch.randn(_STEPS, _BATCH, 32)
    with torch.autocast("cpu", dtype=bf16):
        hidden = torch.tanh(context(features[0]))
    for x_t in features:
        hidden = cell(x_t, hidden)


def _track_association_bmm() -> None:
    _seeded()
    descriptor_net = nn.Linear(16, 32)
    templates = torch.randn(_BATCH, 5, 32)  # per-track templates kept in fp32
    with torch.autocast("cpu", dtype=bf16):
        descriptors = descriptor_net(torch.randn(_BATCH, 20, 16))
    affinity = torch.bmm(descriptors, templates.transpose(1, 2))
    affinity.softmax(-1)


def _cross_window_attention_sdpa_fp32_cache() -> None:
    _seeded()
    project = nn.Linear(32, 32)
    with torch.autocast("cpu", dtype=bf16):
        q = project(torch.randn(_BATCH, 16, 32)).view(_BATCH, 16, 4, 8).transpose(1, 2)
    cache = torch.randn(_BATCH, 4, 24, 8).to(bf16).float()  # previous windows' keys/values stored .float()
    F.scaled_dot_product_attention(q, cache, cache)


def _plane_fit_normal_flow_lstsq_bf16() -> None:
    # local plane fitting of t(x, y) around an event (Benosman et al.): the pipeline runs in bf16
    events = _events(25)
    a = torch.stack([events.x.float(), events.y.float(), torch.ones(25)], 1).to(bf16)
    b = ((events.t - events.t[0]) * 1e-3).to(bf16)[:, None]
    solution = torch.linalg.lstsq(a, b).solution
    1.0 / solution[:2]


def _e2vid_decoder_bf16_convtranspose() -> None:
    _seeded()
    encoder = nn.Conv2d(_STEPS, 32, 3, stride=2, padding=1)
    decoder = nn.ConvTranspose2d(32, 1, 4, stride=2, padding=1).to(bf16)  # only the decoder halved
    voxel = torch.randn(1, _STEPS, 64, 64)
    decoder(torch.relu(encoder(voxel)))


def _e2vid_reconstruction_bf16_to_numpy() -> None:
    _seeded()
    reconstruction = torch.rand(1, 1, 64, 64).to(bf16)
    frame = (reconstruction[0, 0].clamp(0, 1) * 255).numpy()  # for cv2.imwrite
    frame.astype(np.uint8)


CASES: dict[str, LiveCase] = {
    # --- event streams: decoding, coordinates, timestamps, polarities
    # Prophesee EVT 2.0 raw words (uint32 from np.fromfile) decoded in torch with >> and &
    "evt2-raw-uint32-words-right-shift": case(_evt2_raw_words_decoded_with_shifts, "no_kernel", "uint32",
        grade="correct", grade_at_freeze="correct"),
    # DSEC rectification map looked up with the h5's uint16 x, y as advanced indices
    "dsec-rectify-map-uint16-coords-index": case(_dsec_rectify_map_uint16_coords, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int64 microsecond timestamps normalised to [0, 1] in place with sub_().div_()
    "timestamps-int64-normalised-in-place": case(_timestamps_normalised_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # random polarity flip written for +1/-1 polarities (-p) run on bool polarities
    "polarity-flip-negate-bool": case(_random_polarity_flip_on_bool_polarities, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # events padded to a fixed count with a 65535 "no event" sentinel in the int16 coordinate tensor
    "padded-events-int16-65535-sentinel": case(_padded_events_int16_sentinel, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # event-rate curve by torch.histc of the int64 microsecond timestamps
    "event-rate-histc-int64-timestamps": case(_event_rate_histc_int64_timestamps, "integer_operand", "int64",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (b459a42) castwise gave integer_operand ['int64'] (high confidence). torch.histc has no "
             "kernel for int64 ('\"histogram_cpu\" not implemented for \'Long\''), which the corpus reads as "
             "no_kernel; the reader took the int64 timestamps as integer data given to a float-only reduction "
             "(as for mean or std of an integer tensor). Expectation corrected after grading from no_kernel to "
             "integer_operand: histc of integer data is integer_operand in the corpus (live_held_out_56's "
             "symbol-histc-int32, live_held_out_98's otsu-histc-uint8-thumbnail); the frozen grade is kept")),
    # v2e-style noise events: exponential_ inter-event gaps drawn in empty_like of the int64 timestamps
    "noise-gaps-exponential-int64-timestamps": case(_background_activity_noise_exponential_int64, "no_kernel",
                                                    "int64",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (b459a42) castwise gave nothing. exponential_ on the int64 tensor from empty_like "
             "raises torch's random-distribution dtype check ('Exponential distribution is a continuous probability "
             "distribution. dtype must be a floating point but you specified Long'), a wording the reader does not "
             "know as a random fill of an integer tensor (no_kernel)")),
    # --- event representations: frames, voxel grids, time surfaces
    # event count image: flat pixel index y * W + x left int16, given to index_add_
    "count-image-int16-pixel-index-add": case(_voxel_flat_index_int16_index_add, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # two-channel event frame accumulated in int8 fed to the fp32 conv stem
    "event-frame-int8-conv-stem": case(_int8_two_channel_event_frame_into_conv, "integer_operand", "int8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # surface of active events: int64 timestamps index_put_ into an fp32 surface
    "sae-index-put-int64-timestamps": case(_sae_index_put_int64_timestamps, "indexed_write_dtype", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # contrast maximisation: fp32 image of warped events convolved with a numpy float64 Gaussian
    "iwe-gaussian-float64-kernel-conv2d": case(_contrast_max_gaussian_fp64_kernel, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- spiking neurons and spike-count losses
    # hand-written LIF: bool spikes (mem >= threshold) fed to the next nn.Linear
    "lif-bool-spikes-next-linear": case(_lif_bool_spikes_into_next_layer, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # firing-rate regulariser as the mean of the bool spike raster
    "firing-rate-regulariser-mean-bool": case(_firing_rate_regulariser_mean_of_bool_raster, "integer_operand",
                                              "bool",
        grade="correct", grade_at_freeze="correct"),
    # spike-count loss: huber_loss against int64 desired counts, backward
    "spike-count-huber-int64-targets": case(_spike_count_huber_int64_targets, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # refractory neurons of an fp16 SNN silenced with index_fill_(..., -1e9)
    "refractory-index-fill-fp16-minus-1e9": case(_refractory_index_fill_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # stereo coincidence detection: & of the fp16 spike tensors a halved SNN emits
    "stereo-coincidence-and-fp16-spikes": case(_stereo_coincidence_and_fp16_spikes, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # population coding: bf16 autocast spike counts index_add_ into fp32 per-class counts
    "population-counts-index-add-bf16-spikes": case(_population_class_counts_index_add_autocast,
                                                    "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # class-weighted cross_entropy on bf16 autocast spike counts with fp32 class weights
    "weighted-ce-bf16-counts-fp32-weights": case(_weighted_ce_bf16_counts_fp32_weights, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # firing-rate BCE: bf16 autocast rates against fp32 target rates, backward outside autocast
    "rate-bce-bf16-rates-backward": case(_rate_bce_backward_bf16_rates, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Poisson rate encoding of a window with no events: counts / counts.amax() is NaN
    "poisson-encoding-empty-window-nan": case(_poisson_encoding_nan_rates_empty_window, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # event-token attention with the h5's uint8 valid flags as SDPA's attn_mask
    "event-tokens-sdpa-uint8-valid-mask": case(_spike_raster_sdpa_uint8_valid_mask, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # --- recognition, flow and reconstruction heads
    # event-token embedding: bool polarities looked up in nn.Embedding(2, d)
    "polarity-embedding-bool-ids": case(_polarity_embedding_bool, "index_tensor_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # variable-length event-token batch: int64 key_padding_mask for MultiheadAttention
    "event-tokens-mha-int64-padding-mask": case(_mha_event_padding_mask_int64, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # event transformer: classification head cast to bf16 (LayerNorm first) fed fp32 tokens
    "event-transformer-bf16-head-layernorm": case(_event_transformer_head_layernorm_bf16, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # recurrent recognition head: GRUCell in fp32, hidden state initialised under bf16 autocast
    "grucell-bf16-initial-hidden": case(_recurrent_head_grucell_bf16_hidden, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # feature-track association: bf16 autocast event descriptors torch.bmm'd with fp32 templates
    "track-association-bmm-fp32-templates": case(_track_association_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # cross-window attention: bf16 autocast queries over keys/values cached with .float()
    "cross-window-sdpa-fp32-cache": case(_cross_window_attention_sdpa_fp32_cache, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # normal flow by local plane fitting with linalg.lstsq in the pipeline's bf16
    "plane-fit-normal-flow-lstsq-bf16": case(_plane_fit_normal_flow_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # E2VID-style reconstruction: only the ConvTranspose2d decoder cast to bf16, fp32 encoder features
    "e2vid-bf16-convtranspose-decoder": case(_e2vid_decoder_bf16_convtranspose, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # reconstructed bf16 intensity frame handed to numpy for cv2.imwrite
    "reconstruction-bf16-to-numpy": case(_e2vid_reconstruction_bf16_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
