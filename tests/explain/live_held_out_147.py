"""Held-out live set 147: smart-home and IoT sensor event modelling written by hand in low precision (device event
logs as int64 ids and uint8 states, irregular float64 timestamps, bool occupancy labels, embedding bags over sensor
types, bf16 GRU and TCN models, Poisson losses for event counts). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at b19dbc97."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b19dbc97"

bf16, f16 = torch.bfloat16, torch.float16
_SENSOR_TYPES = 12  # motion, door, temperature, light, power, ...
_STATES = 6  # OFF, ON, CLOSE, OPEN, ABSENT, PRESENT
_DEVICES = 40
_HIDDEN = 16


def _seeded() -> None:
    torch.manual_seed(0)


def _event_log() -> dict[str, np.ndarray]:
    """A CASAS-style event log as a loader reads it: float64 seconds, int64 device ids, uint8 state codes."""
    rng = np.random.default_rng(0)
    gaps = rng.exponential(45.0, size=24)  # irregular: seconds between events
    return {
        "ts": 1_700_000_000.0 + np.cumsum(gaps),
        "device": rng.integers(0, _DEVICES, size=24).astype(np.int64),
        "state": rng.integers(0, _STATES, size=24).astype(np.uint8),
    }


class _EventTCN(nn.Module):
    """Two dilated causal Conv1d blocks over per-minute event channels, then a linear head."""

    def __init__(self, channels: int, out: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(channels, _HIDDEN, 3, dilation=1)
        self.conv2 = nn.Conv1d(_HIDDEN, _HIDDEN, 3, dilation=2)
        self.head = nn.Linear(_HIDDEN, out)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.conv1(F.pad(x, (2, 0))))
        return torch.relu(self.conv2(F.pad(x, (4, 0))))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).transpose(1, 2))


# --- integer states, ids, labels and masks


def _uint8_states_into_state_embedding() -> None:
    _seeded()
    log = _event_log()
    states = torch.from_numpy(log["state"])  # uint8 state codes straight from the log
    state_emb = nn.Embedding(_STATES, 8)
    state_emb(states)


def _uint8_device_ids_index_bias_table() -> None:
    _seeded()
    device_bias = torch.randn(_DEVICES)  # learned per-device offset
    batch_devices = torch.tensor([3, 17, 17, 29, 5], dtype=torch.uint8)  # ids packed as uint8 "fewer than 256 devices"
    device_bias[batch_devices]


def _embedding_bag_offsets_from_float_zeros() -> None:
    _seeded()
    sensor_types = torch.tensor([0, 3, 3, 7, 1, 1, 1, 9, 4])  # sensor type of every event, windows concatenated
    lengths = torch.tensor([3, 4, 2])  # events per window
    offsets = torch.cat([torch.zeros(1), lengths.cumsum(0)[:-1]])  # torch.zeros(1) is float: offsets become float
    bag = nn.EmbeddingBag(_SENSOR_TYPES, 8, mode="mean")
    bag(sensor_types, offsets)


def _bool_occupancy_cross_entropy() -> None:
    _seeded()
    logits = torch.randn(8, 2)  # two-class head: vacant / occupied
    occupied = torch.tensor([True, False, False, True, True, False, True, False])
    F.cross_entropy(logits, occupied)


def _uint8_occupancy_bce_with_logits() -> None:
    _seeded()
    labels = np.array([1, 0, 0, 1, 1, 0], dtype=np.uint8)  # ground-truth occupancy from the annotation CSV
    logits = torch.randn(6)
    F.binary_cross_entropy_with_logits(logits, torch.from_numpy(labels))


def _room_occupancy_rate_bool_mean() -> None:
    _seeded()
    occupied = torch.rand(4, 60) > 0.5  # 4 rooms x 60 minutes
    occupied.mean(dim=1)  # fraction of the hour each room was occupied


def _pir_off_transitions_bool_difference() -> None:
    motion = torch.tensor([[False, True, True, False, False, True, False]])  # PIR state per 10 s tick
    previous = F.pad(motion, (1, 0))[:, :-1]
    off_edges = previous - motion  # 1 where motion just stopped
    off_edges.clamp(min=0).sum()


def _hourly_int64_counts_into_tcn() -> None:
    _seeded()
    counts = torch.randint(0, 20, (2, 5, 48))  # events per hour for 5 sensor types over 2 days, int64 from bincount
    _EventTCN(5)(counts)


def _bool_occupancy_labels_upsampled() -> None:
    occupied_5min = torch.tensor([[[True, True, False, False, True, False]]])  # 30 minutes at 5-minute resolution
    F.interpolate(occupied_5min, scale_factor=5, mode="nearest")


def _int64_event_counts_log1p_in_place() -> None:
    counts = torch.tensor([0, 3, 12, 1, 0, 45])  # target event counts per window
    counts.log1p_()  # compress the heavy tail before the regression loss


def _uint8_hour_histogram_scatter_add() -> None:
    log = _event_log()
    ts = torch.from_numpy(log["ts"])
    hours = (ts // 3600 % 24).long()
    histogram = torch.zeros(24, dtype=torch.uint8)  # "counts never exceed 255 in an hour"
    histogram.scatter_add_(0, hours, torch.ones_like(hours))


def _zigbee_invalid_lux_sentinel_int16() -> None:
    readings = 12  # illuminance readings of a batch, stored as int16 to save memory
    torch.full((readings,), 0xFFFF, dtype=torch.int16)  # Zigbee's "invalid measurement" value before filling


# --- floats meeting, kernels, overflow, numpy, gradients and NaN


def _fp32_embedding_bag_into_bf16_gru() -> None:
    _seeded()
    bag = nn.EmbeddingBag(_SENSOR_TYPES, 8, mode="sum")  # left fp32: built outside the model that was cast
    gru = nn.GRU(8, _HIDDEN, batch_first=True).to(bf16)
    sensor_types = torch.randint(0, _SENSOR_TYPES, (2 * 10, 4))  # 2 homes x 10 minutes, 4 events per minute
    minute_vectors = bag(sensor_types).view(2, 10, 8)
    gru(minute_vectors)


def _float64_time_deltas_into_bf16_gru() -> None:
    _seeded()
    log = _event_log()
    dt = torch.from_numpy(np.diff(log["ts"], prepend=log["ts"][0]))  # float64 seconds since the previous event
    device_emb = nn.Embedding(_DEVICES, 7)
    gru = nn.GRU(8, _HIDDEN, batch_first=True).to(bf16)
    events = torch.cat([device_emb(torch.from_numpy(log["device"])), torch.log1p(dt)[:, None]], dim=-1)
    with torch.no_grad():
        gru(events[None])


def _streaming_gru_fp32_hidden_cache() -> None:
    _seeded()
    gru = nn.GRU(8, _HIDDEN, batch_first=True).to(bf16)
    hidden_cache: dict[str, torch.Tensor] = {}
    event = torch.randn(1, 1, 8, dtype=bf16)  # one new event from home "h42"
    hidden = hidden_cache.get("h42", torch.zeros(1, 1, _HIDDEN))  # first event of a home: fp32 zeros
    with torch.no_grad():
        gru(event, hidden)


def _bf16_tcn_given_fp32_one_hot_events() -> None:
    _seeded()
    tcn = _EventTCN(_STATES).to(bf16)
    states = torch.randint(0, _STATES, (2, 30))
    one_hot = F.one_hot(states, _STATES).float().transpose(1, 2)  # (batch, state, minute)
    with torch.no_grad():
        tcn(one_hot)


def _tcn_autocast_features_fp32_occupancy_head() -> None:
    _seeded()
    tcn = _EventTCN(4)
    occupancy_head = nn.Linear(_HIDDEN, 1)
    x = torch.randn(2, 4, 30)
    with torch.autocast("cpu", dtype=bf16):
        features = tcn.features(x)
    occupancy_head(features.transpose(1, 2))  # run after the autocast block on its bf16 output


def _time2vec_float64_timestamps() -> None:
    _seeded()
    log = _event_log()
    seconds_of_day = torch.from_numpy(log["ts"] % 86400.0)[:, None] / 86400.0  # float64
    periodic = nn.Linear(1, 8)  # Time2Vec frequencies and phases
    torch.sin(periodic(seconds_of_day))


def _time_decay_weights_float64_times_bf16_values() -> None:
    _seeded()
    log = _event_log()
    ts = torch.from_numpy(log["ts"])
    dt = (ts[:, None] - ts[None, :]).abs()  # float64 seconds between events
    decay = torch.exp(-dt / 600.0)
    weights = decay / decay.sum(-1, keepdim=True)
    values = torch.randn(1, 24, _HIDDEN, dtype=bf16)  # bf16 event states
    weights[None] @ values


def _time_decay_bias_float64_sdpa() -> None:
    _seeded()
    log = _event_log()
    ts = torch.from_numpy(log["ts"])
    time_bias = -(ts[:, None] - ts[None, :]).abs() / 600.0  # float64 decay bias on the attention logits
    q, k, v = (torch.randn(1, 2, 24, 8, dtype=bf16) for _ in range(3))
    F.scaled_dot_product_attention(q, k, v, attn_mask=time_bias)


def _activity_class_weights_fp32_bf16_logits() -> None:
    _seeded()
    activity_counts = torch.tensor([500.0, 120.0, 40.0, 8.0, 300.0])  # sleep, cook, bathe, leave, relax
    class_weights = activity_counts.sum() / (len(activity_counts) * activity_counts)
    logits = torch.randn(6, 5, dtype=bf16)  # from the bf16 activity model
    targets = torch.tensor([0, 1, 2, 3, 4, 0])
    F.cross_entropy(logits, targets, weight=class_weights)


def _sensor_baseline_ema_lerp() -> None:
    _seeded()
    baseline = torch.zeros(_DEVICES)  # running per-device baseline, fp32 buffer
    readings = torch.randn(_DEVICES, dtype=bf16)  # this window's mean readings from the bf16 model input
    baseline.lerp_(readings, 0.05)


def _room_max_temperature_scatter_reduce() -> None:
    _seeded()
    rooms = torch.tensor([0, 0, 1, 2, 2, 2, 3])  # room of each thermometer
    temperatures = (20 + torch.randn(7)).to(bf16)  # denormalised bf16 model output
    room_max = torch.full((4,), -273.15)
    room_max.scatter_reduce_(0, rooms, temperatures, reduce="amax")


def _packed_status_word_cast_to_bf16() -> None:
    batch = {
        "reading": torch.tensor([21.5, 22.0, 19.75]),
        "status": torch.tensor([0x31, 0x52, 0x14]),  # battery level in the high nibble, flags in the low one
    }
    batch = {key: value.to(bf16) for key, value in batch.items()}  # whole batch cast for the bf16 model
    (batch["status"] >> 4) & 0xF


def _daily_seasonality_rfft_bf16() -> None:
    _seeded()
    hourly_rate = torch.rand(7 * 24).to(bf16)  # bf16 predicted events per hour over a week
    spectrum = torch.fft.rfft(hourly_rate)
    spectrum.abs()[7]  # the daily component


def _time_since_last_event_fp16_one_day() -> None:
    dt = torch.tensor([12.0, 300.0, 45.0], dtype=f16)  # time-since-last-event features kept fp16
    torch.full_like(dt, 86400.0)  # a never-seen sensor padded with "one day"


def _bf16_anomaly_scores_to_numpy() -> None:
    _seeded()
    scores = torch.rand(24, dtype=bf16)  # reconstruction error per event from the bf16 autoencoder
    np.percentile(scores.numpy(), 99)


def _fedavg_fp32_mean_gradient_into_bf16_model() -> None:
    _seeded()
    global_model = nn.Linear(8, 1).to(bf16)
    client_grads = [torch.randn(1, 8) for _ in range(3)]  # gradients uploaded by three homes, fp32
    global_model.weight.grad = torch.stack(client_grads).mean(0)


def _poisson_rate_zero_exposure_nan() -> None:
    counts = torch.tensor([4.0, 0.0, 9.0])  # door events per sensor
    exposure_hours = torch.tensor([2.0, 0.0, 3.0])  # the second sensor was offline all window
    rate = counts / exposure_hours
    torch.distributions.Poisson(rate).log_prob(counts).sum()


def _float64_windows_into_instance_norm_tcn() -> None:
    _seeded()
    readings = np.random.default_rng(0).normal(size=(3, 64))  # 3 sensors, 64 irregular samples resampled
    windows = np.lib.stride_tricks.sliding_window_view(readings, 16, axis=1)[:, ::8]  # float64
    x = torch.from_numpy(np.ascontiguousarray(windows.transpose(1, 0, 2)))
    norm = nn.InstanceNorm1d(3, affine=True)  # per-window normalisation in front of the TCN
    norm(x)


CASES: dict[str, LiveCase] = {
    # --- integer states, ids, labels and masks
    # uint8 state codes from a CASAS-style log looked up in the state nn.Embedding
    "sensor-state-uint8-embedding": case(_uint8_states_into_state_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # device ids packed as uint8 index a per-device bias table (read as a mask)
    "device-ids-uint8-index-bias-table": case(_uint8_device_ids_index_bias_table, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # EmbeddingBag offsets built by cat with torch.zeros(1), so float, over sensor types
    "embedding-bag-offsets-float-zeros-cat": case(_embedding_bag_offsets_from_float_zeros, "index_tensor_dtype",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # bool occupancy labels as cross_entropy target of a two-class head
    "occupancy-bool-cross-entropy-target": case(_bool_occupancy_cross_entropy, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # uint8 occupancy labels from numpy as BCE-with-logits target
    "occupancy-uint8-bce-logits-target": case(_uint8_occupancy_bce_with_logits, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # per-room occupancy rate as mean over a bool occupancy grid
    "room-occupancy-rate-bool-mean": case(_room_occupancy_rate_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # PIR motion-off edges by subtracting the bool motion state from its shifted copy
    "pir-off-edges-bool-subtract": case(_pir_off_transitions_bool_difference, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int64 hourly event counts fed to a float dilated TCN
    "hourly-counts-int64-tcn": case(_hourly_int64_counts_into_tcn, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bool 5-minute occupancy labels upsampled to 1-minute with interpolate
    "occupancy-bool-interpolate-upsample": case(_bool_occupancy_labels_upsampled, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int64 event-count targets log-compressed in place with log1p_
    "event-counts-int64-log1p-in-place": case(_int64_event_counts_log1p_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # hour-of-day histogram kept uint8, scatter_add_ of int64 ones
    "hour-histogram-uint8-scatter-add-int64": case(_uint8_hour_histogram_scatter_add, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Zigbee's 0xFFFF invalid-lux sentinel written with torch.full into int16
    "zigbee-lux-sentinel-0xffff-int16": case(_zigbee_invalid_lux_sentinel_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # --- floats meeting, kernels, overflow, numpy, gradients and NaN
    # fp32 EmbeddingBag minute vectors over sensor types into a GRU cast to bf16
    "embedding-bag-fp32-into-bf16-gru": case(_fp32_embedding_bag_into_bf16_gru, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # log1p of float64 inter-event seconds concatenated to device embeddings, into a bf16 GRU
    "irregular-dt-f64-concat-bf16-gru": case(_float64_time_deltas_into_bf16_gru, "rnn_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # streaming per-home inference: first event's hidden state from an fp32 zeros default, bf16 GRU
    "streaming-gru-fp32-default-hidden": case(_streaming_gru_fp32_hidden_cache, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TCN cast to bf16 given one_hot(states).float() (fp32)
    "tcn-bf16-fp32-one-hot-states": case(_bf16_tcn_given_fp32_one_hot_events, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TCN features under bf16 autocast, the fp32 occupancy head run after the block
    "tcn-autocast-features-fp32-occupancy-head": case(_tcn_autocast_features_fp32_occupancy_head, "matmul_dtype",
                                                      "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Time2Vec on float64 seconds-of-day from the pandas timestamps through an fp32 Linear
    "time2vec-f64-seconds-of-day-linear": case(_time2vec_float64_timestamps, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # exponential time-decay weights (float64 from the timestamps) @ bf16 event states
    "time-decay-f64-weights-matmul-bf16-states": case(_time_decay_weights_float64_times_bf16_values, "matmul_dtype",
                                                      "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 time-decay bias given to bf16 SDPA as attn_mask
    "time-decay-f64-bias-sdpa-mask": case(_time_decay_bias_float64_sdpa, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # inverse-frequency activity class weights (fp32) with bf16 logits in cross_entropy
    "activity-class-weights-fp32-bf16-logits": case(_activity_class_weights_fp32_bf16_logits, "op_dtype", "bf16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp32 per-device baseline EMA lerp_'ed toward bf16 readings
    "sensor-baseline-ema-lerp-bf16-readings": case(_sensor_baseline_ema_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-room max temperature: scatter_reduce_ amax of bf16 outputs into an fp32 full buffer
    "room-max-temp-scatter-reduce-bf16": case(_room_max_temperature_scatter_reduce, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the whole batch cast to bf16, packed status word then decoded with >> and &
    "status-word-cast-bf16-bit-shift": case(_packed_status_word_cast_to_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # daily seasonality of the bf16 hourly event rate by rfft
    "daily-seasonality-rfft-bf16-rate": case(_daily_seasonality_rfft_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 time-since-last-event padded with one day (86400 s) by full_like
    "time-since-event-fp16-one-day-pad": case(_time_since_last_event_fp16_one_day, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 anomaly scores handed to numpy's percentile for the alert threshold
    "anomaly-scores-bf16-numpy-percentile": case(_bf16_anomaly_scores_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # federated averaging: mean of fp32 client gradients assigned to the bf16 global model's .grad
    "fedavg-fp32-mean-grad-bf16-model": case(_fedavg_fp32_mean_gradient_into_bf16_model, "loss_dtype", "f32",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Poisson rate as counts / exposure with an offline sensor (0 / 0 is NaN) reaching Poisson's check
    "poisson-rate-zero-exposure-nan": case(_poisson_rate_zero_exposure_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # float64 sliding windows from numpy into the TCN's fp32 affine InstanceNorm1d
    "sensor-windows-f64-instance-norm": case(_float64_windows_into_instance_norm_tcn, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
}
