"""Held-out live set 61: spiking neural networks and neuromorphic / event-camera models by hand in low precision
(surrogate-gradient LIF and ALIF neurons, membrane potentials and thresholds, bool/uint8 spike trains, spike counts and
rates, DVS event tensors, voxel grids, time surfaces, refractory masks, STDP updates, spike-count losses). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
eea4c28."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "eea4c28"

bf16, f16 = torch.bfloat16, torch.float16
_H, _W = 34, 34  # N-MNIST sensor
_STEPS = 8
_BETA = 0.9
_THRESHOLD = 1.0


def _seeded() -> None:
    torch.manual_seed(0)


def _events(n: int = 64) -> dict[str, np.ndarray]:
    """A DVS event stream as tonic/aedat hand it over: x, y as int16, polarity int8, timestamps int64 microseconds."""
    rng = np.random.default_rng(0)
    return {
        "x": rng.integers(0, _W, n).astype(np.int16),
        "y": rng.integers(0, _H, n).astype(np.int16),
        "p": rng.integers(0, 2, n).astype(np.int8),
        "t": np.sort(rng.integers(0, 300_000, n)).astype(np.int64),
    }


def _lif_hard_reset_with_bool_spike() -> None:
    _seeded()
    current = torch.randn(_STEPS, 4, 32)
    mem = torch.zeros(4, 32)
    for step in range(_STEPS):
        mem = _BETA * mem + current[step]
        spk = mem >= _THRESHOLD
        mem = mem * (1 - spk)  # hard reset to zero where the neuron fired


def _poisson_rate_coding_of_uint8_pixels() -> None:
    _seeded()
    images = torch.randint(0, 256, (4, 1, 28, 28), dtype=torch.uint8)  # MNIST straight from the dataset's tensor
    spikes = [torch.rand_like(images) < images / 255 for _ in range(_STEPS)]
    torch.stack(spikes)


def _time_to_first_spike_by_argmax() -> None:
    _seeded()
    raster = torch.rand(_STEPS, 4, 10) > 0.7  # output layer spikes, time first
    raster.argmax(dim=0)  # the first step at which each output neuron fired


def _spiking_maxpool_on_bool_spike_maps() -> None:
    _seeded()
    conv = nn.Conv2d(2, 8, 3, padding=1, bias=False)
    frame = torch.rand(4, 2, _H, _W)
    mem = conv(frame)
    spk = mem > _THRESHOLD
    F.max_pool2d(spk, 2)


def _refractory_counter_as_mask() -> None:
    _seeded()
    mem = torch.randn(4, 32)
    refractory = torch.zeros(4, 32, dtype=torch.long)
    refractory[mem > 1.0] = 3  # steps left in the refractory period
    mem = mem.masked_fill(refractory, 0.0)  # clamp the membrane while refractory
    refractory.clamp_(min=1).sub_(1)


def _int16_event_coords_into_event_frame() -> None:
    events = _events()
    x, y = torch.from_numpy(events["x"]), torch.from_numpy(events["y"])
    frame = torch.zeros(2, _H, _W)
    polarity = torch.from_numpy(events["p"]).long()
    frame.index_put_((polarity, y, x), torch.ones(len(x)), accumulate=True)


def _voxel_grid_float_time_bins() -> None:
    events = _events()
    t = torch.from_numpy(events["t"]).double()
    x, y = torch.from_numpy(events["x"]).long(), torch.from_numpy(events["y"]).long()
    bins = 5
    t_norm = (bins - 1) * (t - t[0]) / (t[-1] - t[0])
    t_bin = t_norm.floor().float()
    voxel = torch.zeros(bins * _H * _W)
    voxel.index_add_(0, t_bin * _H * _W + y * _W + x, torch.ones(len(x)))


def _int32_labels_on_spike_count_logits() -> None:
    _seeded()
    counts = torch.rand(_STEPS, 4, 10).gt(0.5).float().sum(0)
    labels = torch.from_numpy(np.array([3, 7, 0, 1], dtype=np.int32))  # tonic N-MNIST targets kept as int32
    F.cross_entropy(counts, labels)


def _desired_spike_train_bool_target() -> None:
    _seeded()
    mem_out = torch.randn(_STEPS, 4, 10, requires_grad=True)
    desired = torch.zeros(_STEPS, 4, 10, dtype=torch.bool)
    desired[2::3, :, 3] = True  # the label neuron should fire every third step
    F.binary_cross_entropy_with_logits(mem_out - _THRESHOLD, desired)


def _int16_membrane_leak_in_place() -> None:
    # fixed-point emulation of a neuromorphic core: 16-bit membranes, leak as a multiply
    mem = torch.tensor([[1200, -300, 850, 4000]], dtype=torch.int16)
    weights = torch.tensor([[12, -7, 30, 5]], dtype=torch.int16)
    mem.mul_(0.875).add_(weights)


def _spike_counts_of_bool_raster_into_cross_entropy() -> None:
    _seeded()
    raster = torch.rand(_STEPS, 4, 10) > 0.6  # output spikes
    counts = raster.sum(dim=0)  # spike count per output neuron: the rate-coded logits
    F.cross_entropy(counts, torch.tensor([3, 7, 0, 1]))


def _prophesee_uint16_coords_flattened() -> None:
    events = np.zeros(16, dtype=[("x", "<u2"), ("y", "<u2"), ("p", "<i2"), ("t", "<i8")])  # metavision EventCD
    events["x"] = np.arange(16) * 2
    events["y"] = np.arange(16)
    x = torch.from_numpy(np.ascontiguousarray(events["x"]))
    y = torch.from_numpy(np.ascontiguousarray(events["y"]))
    pixel = y * 640 + x
    torch.bincount(pixel.long(), minlength=480 * 640)


def _aedat_timestamps_into_int32() -> None:
    # a 55-minute recording: the parser's Python ints, microseconds
    timestamps = [0, 1_000_000, 2_500_000_000, 3_300_000_000]
    torch.tensor(timestamps, dtype=torch.int32)


def _silenced_neurons_threshold_fp16() -> torch.Tensor:
    _seeded()
    mem = torch.randn(4, 32, dtype=f16)
    threshold = torch.full_like(mem, _THRESHOLD)
    silenced = torch.zeros(32, dtype=torch.bool)
    silenced[:4] = True
    threshold = torch.where(silenced, torch.full_like(mem, 1e5), threshold)  # ablated neurons never fire
    return mem >= threshold


def _structured_event_array_from_numpy() -> None:
    events = np.zeros(8, dtype=[("x", "<i2"), ("y", "<i2"), ("p", "i1"), ("t", "<i8")])  # tonic's event dtype
    events["t"] = np.arange(8) * 1000
    torch.from_numpy(events)


def _recurrent_lif_bf16_spikes_fp32_weights() -> None:
    _seeded()
    fc_in = nn.Linear(64, 32).to(bf16)
    w_rec = nn.Parameter(torch.randn(32, 32) * 0.1)  # recurrent weights built by hand, never cast
    x = torch.randn(_STEPS, 4, 64, dtype=bf16)
    mem = torch.zeros(4, 32, dtype=bf16)
    spk = torch.zeros(4, 32, dtype=bf16)
    for step in range(_STEPS):
        mem = _BETA * mem + fc_in(x[step]) + spk @ w_rec
        spk = (mem > _THRESHOLD).to(bf16)


def _bf16_event_frames_into_fp32_conv() -> None:
    _seeded()
    frames = torch.rand(_STEPS, 4, 2, _H, _W).to(bf16)  # event frames cached in bf16 to fit the dataset in RAM
    conv1 = nn.Conv2d(2, 16, 3, padding=1, bias=False)
    mem = torch.zeros(4, 16, _H, _W)
    for step in range(_STEPS):
        mem = _BETA * mem + conv1(frames[step])


def _numpy_voxel_grid_into_conv3d() -> None:
    _seeded()
    events = _events()
    voxel = np.zeros((5, _H, _W))  # np.zeros defaults to float64
    t_bin = (4 * (events["t"] - events["t"][0]) // (events["t"][-1] - events["t"][0])).astype(np.int64)
    np.add.at(voxel, (t_bin, events["y"], events["x"]), np.where(events["p"] > 0, 1.0, -1.0))
    encoder = nn.Conv3d(1, 8, 3, padding=1, bias=False)
    encoder(torch.from_numpy(voxel)[None, None])


def _bntt_bf16_norms_fp32_encoder() -> None:
    _seeded()
    encoder = nn.Conv2d(2, 16, 3, padding=1, bias=False)  # the direct-encoding layer kept fp32 for accuracy
    bntt = nn.ModuleList(nn.BatchNorm2d(16) for _ in range(_STEPS)).to(bf16)  # batch norm through time
    frames = torch.rand(_STEPS, 4, 2, _H, _W)
    for step in range(_STEPS):
        bntt[step](encoder(frames[step]))


def _alif_threshold_adaptation_lerp() -> None:
    _seeded()
    rho = 0.98
    adaptation = torch.zeros(4, 32)  # ALIF threshold adaptation state, fp32 for the slow time constant
    mem = torch.randn(4, 32, dtype=bf16)
    spk = (mem > _THRESHOLD).to(mem.dtype)
    adaptation.lerp_(spk, 1 - rho)


def _stdp_update_by_addmm() -> None:
    _seeded()
    weights = torch.rand(32, 64) * 0.1  # synapses kept fp32
    pre_trace = torch.rand(1, 64, dtype=bf16)
    post_spk = (torch.rand(1, 32) > 0.8).to(bf16)
    weights.addmm_(post_spk.T, pre_trace, alpha=0.01)  # LTP: A+ * post spikes x pre traces


def _per_sample_stdp_baddbmm() -> None:
    _seeded()
    batch = 4
    delta_w = torch.zeros(batch, 32, 64)
    post_trace = torch.rand(batch, 32, 1, dtype=f16)  # traces stored in fp16 across the whole simulation
    pre_spk = (torch.rand(batch, 1, 64) > 0.8).half()
    torch.baddbmm(delta_w, post_trace, pre_spk, alpha=-0.012)  # LTD: A- * post traces x pre spikes


def _bilinear_voxel_index_put_bf16_grid() -> None:
    events = _events()
    t = torch.from_numpy(events["t"]).float()
    x, y = torch.from_numpy(events["x"]).long(), torch.from_numpy(events["y"]).long()
    pol = torch.from_numpy(events["p"]).float() * 2 - 1
    bins = 5
    t_norm = (bins - 1) * (t - t[0]) / (t[-1] - t[0])
    left = t_norm.floor().long()
    voxel = torch.zeros(bins, _H, _W, dtype=bf16)  # the bf16 input buffer of the E2VID-style network
    voxel.index_put_((left, y, x), pol * (1 - (t_norm - left)), accumulate=True)


def _time_surface_latest_timestamp_scatter_reduce() -> None:
    events = _events()
    seconds = events["t"] / 1e6  # numpy float64 seconds
    x, y = torch.from_numpy(events["x"]).long(), torch.from_numpy(events["y"]).long()
    latest = torch.zeros(_H * _W)
    latest.scatter_reduce_(0, y * _W + x, torch.from_numpy(seconds), reduce="amax")
    torch.exp(-(seconds[-1] - latest) / 0.05)


def _event_voxel_warped_by_flow() -> None:
    _seeded()
    voxel = torch.randn(1, 5, _H, _W, dtype=bf16)  # events from the bf16 flow network's input pipeline
    flow = torch.randn(1, 2, _H, _W, dtype=bf16)
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, _H), torch.linspace(-1, 1, _W), indexing="ij")
    grid = torch.stack([xs, ys], dim=-1)[None] + flow.permute(0, 2, 3, 1).float() * 0.05
    F.grid_sample(voxel, grid, align_corners=True)


def _spiking_transformer_float_causal_mask() -> None:
    _seeded()
    tokens = torch.randn(2, 16, 32, dtype=bf16)  # event-patch tokens of a bf16 spiking transformer
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    causal = torch.triu(torch.full((16, 16), float("-inf")), diagonal=1)
    attention(tokens, tokens, tokens, attn_mask=causal)


def _event_features_bf16_into_lstm() -> None:
    _seeded()
    features = torch.randn(4, _STEPS, 64, dtype=bf16)  # per-bin features from the bf16 event encoder
    temporal = nn.LSTM(64, 128, batch_first=True)
    temporal(features)


def _fp16_snn_with_grad_scaler() -> None:
    _seeded()
    fc = nn.Linear(64, 10).half()  # the whole SNN cast to fp16 "for neuromorphic-like precision"
    optimizer = torch.optim.Adam(fc.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    spikes = (torch.rand(_STEPS, 4, 64) > 0.7).half()
    counts = torch.stack([fc(spikes[step]) for step in range(_STEPS)]).float().sum(0)
    scaler.scale(F.cross_entropy(counts, torch.tensor([3, 7, 0, 1]))).backward()
    scaler.unscale_(optimizer)


def _reservoir_spectral_radius_bf16() -> None:
    _seeded()
    w_res = (torch.rand(64, 64) < 0.1).to(bf16) * torch.randn(64, 64, dtype=bf16)  # liquid state machine
    radius = torch.linalg.eigvals(w_res).abs().max()
    w_res / radius * 0.95


def _cochlea_front_end_stft_fp16() -> torch.Tensor:
    _seeded()
    audio = torch.randn(1, 4000, dtype=f16)  # SHD-style audio, loaded in fp16
    window = torch.hann_window(256, dtype=f16)
    spec = torch.stft(audio, 256, hop_length=64, window=window, return_complex=True).abs()
    return torch.rand_like(spec) < spec / spec.amax()  # delta/rate encoding of the cochleagram


CASES: dict[str, LiveCase] = {
    # LIF hard reset written as mem * (1 - spk) with the bool spike from mem >= threshold
    "lif-hard-reset-one-minus-bool-spike": case(_lif_hard_reset_with_bool_spike, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Poisson rate coding of uint8 MNIST pixels with rand_like of the uint8 image
    "poisson-rate-code-rand-like-uint8": case(_poisson_rate_coding_of_uint8_pixels, "no_kernel", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # time-to-first-spike decoding by argmax over time of the bool output raster
    "ttfs-argmax-bool-raster": case(_time_to_first_spike_by_argmax, "no_kernel", "bool",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (eea4c28) castwise gave nothing. torch's own check in argmax (\"argmax(): does not support "
             'bool input") names the bool dtype but not in the "not implemented for" form; castwise did not read '
             'it as the bool spike raster given to an op without a bool kernel (decode the first spike with '
             'raster.int().argmax(0) or a float cast).')),
    # a spiking CNN max-pooling the bool spike maps from mem > threshold
    "spiking-maxpool-bool-spike-maps": case(_spiking_maxpool_on_bool_spike_maps, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the int64 refractory countdown used directly as the masked_fill mask
    "refractory-counter-masked-fill": case(_refractory_counter_as_mask, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # DVS x, y coordinates left int16 from tonic, used as index_put_ indices to build an event frame
    "dvs-int16-coords-index-put-frame": case(_int16_event_coords_into_event_frame, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # voxel-grid binning: the flattened index built from floor()ed float time bins, given to index_add_
    "voxel-float-time-bin-index-add": case(_voxel_grid_float_time_bins, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # spike-count classification with tonic's int32 labels in cross_entropy
    "spike-count-ce-int32-labels": case(_int32_labels_on_spike_count_logits, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # a desired output spike train kept bool as the BCE-with-logits target on the membrane
    "desired-spike-train-bool-bce-target": case(_desired_spike_train_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # fixed-point neuromorphic emulation: int16 membranes leaked in place with mul_(0.875)
    "int16-membrane-leak-mul-inplace": case(_int16_membrane_leak_in_place, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # rate-coded logits as sum over time of the bool raster (int64) into cross_entropy
    "bool-raster-sum-counts-cross-entropy": case(_spike_counts_of_bool_raster_into_cross_entropy,
                                                 "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # Prophesee EventCD uint16 x, y flattened to a pixel index with y * 640 + x
    "prophesee-uint16-coords-flatten": case(_prophesee_uint16_coords_flattened, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # microsecond timestamps of a long AEDAT recording put into an int32 tensor
    "aedat-timestamps-int32-overflow": case(_aedat_timestamps_into_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # ablated neurons given a 1e5 threshold with full_like of the fp16 membrane
    "silenced-neuron-threshold-fp16-full-like": case(_silenced_neurons_threshold_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # tonic's structured event array (x, y, p, t fields) given to torch.from_numpy
    "structured-event-array-from-numpy": case(_structured_event_array_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # recurrent LIF layer: bf16 spikes @ a hand-made fp32 recurrent weight
    "recurrent-lif-bf16-spikes-fp32-wrec": case(_recurrent_lif_bf16_spikes_fp32_weights, "matmul_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16-cached event frames into the fp32 first conv of a spiking CNN
    "event-frames-bf16-fp32-conv": case(_bf16_event_frames_into_fp32_conv, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a float64 numpy voxel grid (np.zeros default) into a Conv3d event encoder
    "numpy-f64-voxel-grid-conv3d": case(_numpy_voxel_grid_into_conv3d, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # batch norm through time cast to bf16 after an fp32 direct-encoding conv
    "bntt-bf16-norms-fp32-encoder": case(_bntt_bf16_norms_fp32_encoder, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ALIF threshold adaptation state (fp32) lerped toward bf16 spikes
    "alif-adaptation-lerp-bf16-spikes": case(_alif_threshold_adaptation_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # STDP potentiation by addmm_ of bf16 post spikes and pre traces into fp32 synapses
    "stdp-addmm-bf16-traces-fp32-weights": case(_stdp_update_by_addmm, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-sample STDP depression by baddbmm of fp16 traces onto an fp32 delta-w buffer
    "stdp-per-sample-baddbmm-fp16-traces": case(_per_sample_stdp_baddbmm, "batched_matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bilinear-in-time voxel grid: fp32 event weights index_put_ accumulated into a bf16 voxel buffer
    "voxel-bilinear-index-put-bf16-grid": case(_bilinear_voxel_index_put_bf16_grid, "indexed_write_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # time surface: latest float64 numpy timestamps scatter_reduce_'d (amax) into an fp32 surface
    "time-surface-scatter-reduce-f64-seconds": case(_time_surface_latest_timestamp_scatter_reduce,
                                                    "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # event warping for flow: a bf16 voxel grid sampled at an fp32 grid (meshgrid + flow)
    "event-voxel-flow-warp-grid-sample": case(_event_voxel_warped_by_flow, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # spiking transformer over event patches: an fp32 -inf causal mask for a bf16 MultiheadAttention
    "spiking-transformer-fp32-causal-mask": case(_spiking_transformer_float_causal_mask, "attn_mask_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 event-encoder features over time bins into an fp32 LSTM
    "event-features-bf16-fp32-lstm": case(_event_features_bf16_into_lstm, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an SNN cast to fp16 entirely, trained with GradScaler: unscale_ of fp16 gradients
    "fp16-snn-grad-scaler-unscale": case(_fp16_snn_with_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # liquid state machine: spectral radius of a bf16 reservoir by linalg.eigvals
    "reservoir-spectral-radius-eigvals-bf16": case(_reservoir_spectral_radius_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # cochlea front end for an audio SNN: stft of fp16 audio with an fp16 window
    "cochlea-stft-fp16-audio": case(_cochlea_front_end_stft_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
}
