"""Held-out live set 132: human activity recognition from wearable sensors written by hand in low precision (IMU
windows as float64 from pandas, int64 activity labels, bool padding masks, quaternion orientation math, sliding
windows with unfold, fp16 1-D CNNs and LSTMs, class weights computed in numpy). Defects planted by a helper who never
read the rules, written before castwise ran and graded once with the rules frozen at b21193f2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b21193f2"

bf16, f16 = torch.bfloat16, torch.float16
_CHANNELS = ("acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z")
_ACTIVITIES = 6  # walking, upstairs, downstairs, sitting, standing, lying (UCI-HAR style)
_RATE = 50  # Hz
_WINDOW = 128  # 2.56 s at 50 Hz
_STEP = 64  # 50 % overlap


def _seeded() -> None:
    torch.manual_seed(0)


def _recording(samples: int = 1024) -> pd.DataFrame:
    """One subject's session as a wearable's CSV export reads into pandas: float64 channels, int64 activity ids."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(samples, len(_CHANNELS))), columns=list(_CHANNELS))
    frame["acc_z"] += 9.81
    frame["timestamp_ms"] = np.arange(samples, dtype=np.int64) * (1000 // _RATE)
    frame["activity"] = np.repeat(np.arange(samples // 128) % _ACTIVITIES, 128)
    return frame


def _windows(signal: torch.Tensor) -> torch.Tensor:
    """(T, C) -> (N, C, WINDOW) sliding windows with 50 % overlap."""
    return signal.unfold(0, _WINDOW, _STEP)


def _padded_batch() -> tuple[torch.Tensor, torch.Tensor]:
    """Variable-length sessions padded to one length: (B, T, C) fp32 features and a bool mask, True at padding."""
    lengths = torch.tensor([40, 25, 32])
    steps = int(lengths.max())
    features = torch.randn(len(lengths), steps, 16)
    padding = torch.arange(steps)[None, :] >= lengths[:, None]
    return features, padding


def _har_cnn() -> nn.Sequential:
    return nn.Sequential(
        nn.Conv1d(len(_CHANNELS), 32, 5, padding=2, bias=False),
        nn.BatchNorm1d(32),
        nn.ReLU(),
        nn.AdaptiveAvgPool1d(1),
        nn.Flatten(),
        nn.Linear(32, _ACTIVITIES),
    )


# --- labels, masks and integer sensor data


def _annotations_merged_float64_labels_cross_entropy() -> None:
    _seeded()
    frame = _recording().drop(columns="activity")
    annotations = pd.DataFrame({"timestamp_ms": np.arange(0, 20480, 2560, dtype=np.int64),
                                "activity": [0, 1, 2, 3, 4, 5, 0, 1]})
    frame = frame.merge(annotations, on="timestamp_ms", how="left")  # unmatched rows get NaN: the column is float64
    frame["activity"] = frame["activity"].ffill().fillna(0)
    signal = torch.tensor(frame[list(_CHANNELS)].values, dtype=torch.float32)
    labels = torch.tensor(frame["activity"].values)
    windows = _windows(signal)
    window_labels = _windows(labels[:, None])[:, 0, -1]  # label of each window's last sample
    logits = _har_cnn()(windows)
    F.cross_entropy(logits, window_labels)


def _padded_steps_one_minus_bool_masked_mean() -> torch.Tensor:
    _seeded()
    features, padding = _padded_batch()
    valid = 1 - padding.unsqueeze(-1)
    pooled = (features * valid).sum(1) / valid.sum(1)
    return pooled


def _fall_detector_bce_logits_bool_target() -> None:
    _seeded()
    frame = _recording()
    frame["fall"] = (frame["acc_z"] - 9.81).abs() > 2.5  # impact threshold marks the falls
    signal = torch.tensor(frame[list(_CHANNELS)].values, dtype=torch.float32)
    falls = torch.from_numpy(frame["fall"].values)
    window_fall = _windows(falls[:, None])[:, 0].any(dim=-1)
    detector = nn.Sequential(nn.Flatten(), nn.Linear(len(_CHANNELS) * _WINDOW, 1))
    logits = detector(_windows(signal)).squeeze(-1)
    F.binary_cross_entropy_with_logits(logits, window_fall)


def _window_centre_label_float_index() -> None:
    labels = torch.from_numpy(_recording()["activity"].values)
    starts = torch.arange(0, len(labels) - _WINDOW + 1, _STEP)
    centres = starts + _WINDOW / 2
    labels[centres]


def _int64_valid_mask_where_zero_padding() -> torch.Tensor:
    _seeded()
    features, padding = _padded_batch()
    valid = torch.from_numpy((~padding).numpy().astype(np.int64))  # the collate function saved the mask as 0/1 int64
    features = torch.where(valid[..., None], features, 0.0)
    return features


def _first_transition_argmax_bool() -> torch.Tensor:
    labels = torch.from_numpy(_recording()["activity"].values)
    windows = _windows(labels[:, None])[:, 0]
    changes = windows[:, 1:] != windows[:, :-1]
    first_change = changes.argmax(dim=1)
    return first_change


def _axivity_int16_counts_into_mlp() -> None:
    _seeded()
    raw = np.random.default_rng(0).integers(-4096, 4096, size=(512, 3)).astype(np.int16)  # .cwa samples, 1/256 g
    windows = _windows(torch.from_numpy(raw))
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(3 * _WINDOW, 64), nn.ReLU(), nn.Linear(64, _ACTIVITIES))
    mlp(windows)


def _label_smoothing_one_hot_in_place() -> None:
    labels = torch.from_numpy(_recording()["activity"].values)
    window_labels = _windows(labels[:, None])[:, 0, -1]
    eps = 0.1
    targets = F.one_hot(window_labels, _ACTIVITIES)
    targets.mul_(1 - eps).add_(eps / _ACTIVITIES)


def _jitter_augmentation_randn_like_int16_counts() -> torch.Tensor:
    _seeded()
    raw = torch.from_numpy(np.random.default_rng(1).integers(-4096, 4096, size=(4, 3, _WINDOW)).astype(np.int16))
    sigma = 0.05 * 256
    augmented = raw + sigma * torch.randn_like(raw)
    return augmented


def _per_class_recall_mean_of_bool_hits() -> None:
    _seeded()
    targets = torch.tensor([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5])
    predictions = torch.randn(len(targets), _ACTIVITIES).argmax(1)
    recalls = [(predictions[targets == c] == c).mean() for c in range(_ACTIVITIES)]
    torch.stack(recalls).mean()


def _actigraph_int64_counts_std_feature() -> torch.Tensor:
    rng = np.random.default_rng(2)
    counts = pd.DataFrame({"axis1": rng.integers(0, 3000, 600), "axis2": rng.integers(0, 3000, 600),
                           "axis3": rng.integers(0, 3000, 600)})  # 10-s epoch counts from the .agd export
    epochs = torch.tensor(counts.values)
    windows = epochs.unfold(0, 6, 6)  # one-minute windows
    features = torch.cat([windows.mean(-1, dtype=torch.float32), windows.std(-1)], dim=-1)
    return features


# --- IMU windows, filters and orientation


def _pandas_float64_windows_conv1d() -> None:
    _seeded()
    signal = torch.tensor(_recording()[list(_CHANNELS)].values)
    _har_cnn()(_windows(signal))


def _halved_cnn_fp32_windows() -> None:
    _seeded()
    model = _har_cnn().half().eval()
    signal = torch.tensor(_recording()[list(_CHANNELS)].values, dtype=torch.float32)
    with torch.no_grad():
        model(_windows(signal))


def _gravity_fir_taps_f64_conv1d() -> torch.Tensor:
    _seeded()
    taps = 31
    cutoff = 0.3 / (_RATE / 2)  # 0.3 Hz low-pass separates gravity from body acceleration
    n = np.arange(taps) - (taps - 1) / 2
    kernel = np.sinc(cutoff * n) * np.hamming(taps)
    kernel /= kernel.sum()
    acc = torch.tensor(_recording()[["acc_x", "acc_y", "acc_z"]].values, dtype=torch.float32).T[:, None]
    gravity = F.conv1d(acc, torch.from_numpy(kernel)[None, None], padding=taps // 2)
    return gravity


def _deepconvlstm_fp16_lstm_fp32_features() -> None:
    _seeded()
    convs = nn.Sequential(nn.Conv1d(len(_CHANNELS), 64, 5, padding=2), nn.ReLU())
    lstm = nn.LSTM(64, 128, num_layers=2, batch_first=True).half()  # halved to fit the phone's memory
    signal = torch.tensor(_recording()[list(_CHANNELS)].values, dtype=torch.float32)
    features = convs(_windows(signal)).transpose(1, 2)
    lstm(features)


def _quaternion(frame: pd.DataFrame) -> np.ndarray:
    """Unit (w, x, y, z) quaternions as the phone's game rotation vector gives them (float64)."""
    rng = np.random.default_rng(3)
    quat = rng.normal(size=(len(frame), 4))
    return quat / np.linalg.norm(quat, axis=1, keepdims=True)


def _rotation_matrices(q: torch.Tensor) -> torch.Tensor:
    w, x, y, z = q.unbind(-1)
    return torch.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    ], dim=-1).reshape(*q.shape[:-1], 3, 3)


def _orientation_rotmat_f64_matmul_acc() -> torch.Tensor:
    frame = _recording()
    rotations = _rotation_matrices(torch.from_numpy(_quaternion(frame)))
    acc = torch.tensor(frame[["acc_x", "acc_y", "acc_z"]].values, dtype=torch.float32)
    world_acc = (rotations @ acc[..., None]).squeeze(-1)  # body frame to earth frame
    return world_acc


def _bf16_orientation_net_bmm_fp32_gyro() -> torch.Tensor:
    _seeded()
    estimator = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 4)).to(bf16)
    imu = torch.randn(64, 6)
    q = F.normalize(estimator(imu.to(bf16)), dim=-1)
    rotations = _rotation_matrices(q)
    gyro = imu[:, 3:, None]
    world_gyro = torch.bmm(rotations, gyro)
    return world_gyro


def _complementary_filter_lerp_f64_tilt() -> torch.Tensor:
    frame = _recording()
    gyro_rate = frame["gyro_x"].values
    gyro_tilt = torch.from_numpy(np.cumsum(gyro_rate) / _RATE)  # integrated gyro: float64
    acc = torch.tensor(frame[["acc_x", "acc_y", "acc_z"]].values, dtype=torch.float32)
    acc_tilt = torch.atan2(acc[:, 1], acc[:, 2])
    fused = torch.lerp(gyro_tilt, acc_tilt, 0.02)
    return fused


def _vertical_acceleration_vecdot_f64_gravity() -> torch.Tensor:
    frame = _recording()
    acc_np = frame[["acc_x", "acc_y", "acc_z"]].values
    gravity = acc_np.mean(axis=0)
    gravity_dir = torch.from_numpy(gravity / np.linalg.norm(gravity))
    acc = torch.tensor(acc_np, dtype=torch.float32)
    vertical = torch.linalg.vecdot(acc, gravity_dir)
    return vertical


def _sensor_calibration_f64_matrix_matmul() -> torch.Tensor:
    frame = _recording()
    acc = torch.tensor(frame[["acc_x", "acc_y", "acc_z"]].values, dtype=torch.float32)
    offset = torch.tensor([0.02, -0.05, 0.11])
    scale = np.array([[1.01, 0.002, -0.004], [0.001, 0.99, 0.003], [-0.002, 0.004, 1.02]])  # from calibration.json
    calibrated = (acc - offset) @ torch.from_numpy(scale).T
    return calibrated


# --- models, losses and training


def _numpy_class_weights_f64_cross_entropy() -> None:
    _seeded()
    labels = _recording(2048)["activity"].values
    counts = np.bincount(labels, minlength=_ACTIVITIES)
    weights = len(labels) / (_ACTIVITIES * counts)  # sklearn's "balanced" class weights
    criterion = nn.CrossEntropyLoss(weight=torch.from_numpy(weights))
    logits = torch.randn(8, _ACTIVITIES, requires_grad=True)
    criterion(logits, torch.tensor([0, 1, 2, 3, 4, 5, 0, 1]))


def _attention_pooling_sdpa_bf16_query() -> torch.Tensor:
    _seeded()
    lstm = nn.LSTM(len(_CHANNELS), 64, batch_first=True)
    query = nn.Parameter(torch.randn(1, 1, 64, dtype=bf16))  # pooling query made bf16 "to match the head"
    signal = torch.randn(4, _WINDOW, len(_CHANNELS))
    states, _ = lstm(signal)
    pooled = F.scaled_dot_product_attention(query.expand(4, 1, 64), states, states)
    return pooled


def _fp16_har_transformer_fp32_time_bias_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(32, 4, batch_first=True).half().eval()
    tokens = torch.randn(2, 16, 32).half()  # 16 patches of 8 samples each
    positions = torch.arange(16)
    time_bias = -(positions[None, :] - positions[:, None]).abs().float() / 4  # ALiBi-like decay with distance
    with torch.no_grad():
        attention(tokens, tokens, tokens, attn_mask=time_bias)


def _input_batchnorm_f64_windows() -> None:
    _seeded()
    model = nn.Sequential(nn.BatchNorm1d(len(_CHANNELS)), *_har_cnn())  # BatchNorm as the input standardiser
    signal = torch.from_numpy(_recording()[list(_CHANNELS)].values)
    model(_windows(signal))


def _spectrogram_stft_fp16_windows() -> torch.Tensor:
    _seeded()
    signal = torch.tensor(_recording()[["acc_x", "acc_y", "acc_z"]].values, dtype=torch.float32)
    magnitude = signal.norm(dim=-1).half()  # the whole pipeline was halved for the watch
    window = torch.hann_window(64, dtype=f16)
    spectrogram = torch.stft(magnitude, 64, hop_length=16, window=window, return_complex=True).abs()
    return spectrogram


def _attention_pooling_fp16_masked_fill_1e9() -> torch.Tensor:
    _seeded()
    features, padding = _padded_batch()
    features = features.half()
    scorer = nn.Linear(16, 1).half()
    scores = scorer(features).squeeze(-1)
    scores = scores.masked_fill(padding, -1e9)
    weights = scores.softmax(-1)
    return weights


def _halved_cnn_grad_scaler_unscale() -> None:
    _seeded()
    model = _har_cnn().half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    windows = torch.randn(8, len(_CHANNELS), _WINDOW).half()
    labels = torch.tensor([0, 1, 2, 3, 4, 5, 0, 1])
    loss = F.cross_entropy(model(windows).float(), labels)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()


def _autocast_bf16_probabilities_numpy_f1() -> np.ndarray:
    _seeded()
    model = _har_cnn().eval()
    windows = torch.randn(8, len(_CHANNELS), _WINDOW)
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        probabilities = model(windows).softmax(-1)
    predicted = probabilities.numpy().argmax(1)  # for sklearn's f1_score
    return predicted


def _overlap_add_scatter_add_fp16_votes() -> None:
    _seeded()
    samples = 1024
    starts = torch.arange(0, samples - _WINDOW + 1, _STEP)
    window_probs = torch.randn(len(starts), _ACTIVITIES).half().softmax(-1)  # from the fp16 model
    index = (starts[:, None] + torch.arange(_WINDOW)[None, :]).reshape(-1)
    votes = torch.zeros(samples, _ACTIVITIES)
    src = window_probs.repeat_interleave(_WINDOW, dim=0)
    votes.scatter_add_(0, index[:, None].expand(-1, _ACTIVITIES), src)
    votes.argmax(-1)


def _balanced_sampler_inverse_frequency_inf_multinomial() -> None:
    _seeded()
    labels = np.array([0, 0, 1, 1, 1, 2, 3, 3, 4, 4, 4, 4])  # no "lying" (5) windows in this fold
    with np.errstate(divide="ignore"):
        class_weights = 1.0 / np.bincount(labels, minlength=_ACTIVITIES)
    sample_probs = torch.from_numpy(class_weights)[torch.arange(_ACTIVITIES)]
    torch.multinomial(sample_probs, 16, replacement=True)


CASES: dict[str, LiveCase] = {
    # --- labels, masks and integer sensor data
    # activity annotations joined on timestamp with a left merge (NaN, then ffill/fillna): float64 window labels in CE
    "annotations-merge-float64-labels-cross-entropy": case(_annotations_merged_float64_labels_cross_entropy,
                                                           "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # masked mean pooling over padded sessions with valid = 1 - the bool padding mask
    "padded-steps-one-minus-bool-masked-mean": case(_padded_steps_one_minus_bool_masked_mean, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # fall detector trained with BCE-with-logits against bool "any impact in the window" labels
    "fall-detector-bce-logits-bool-target": case(_fall_detector_bce_logits_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # each window's label read at its centre sample, start + WINDOW / 2 (a float index)
    "window-centre-label-float-index": case(_window_centre_label_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # padded steps zeroed with torch.where on a 0/1 valid mask the collate function saved as int64
    "int64-valid-mask-where-zero-padding": case(_int64_valid_mask_where_zero_padding, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the first activity transition inside each label window found with argmax over the bool change mask
    "first-transition-argmax-bool": case(_first_transition_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Axivity raw int16 counts windowed and fed straight to an fp32 MLP
    "axivity-int16-counts-into-mlp": case(_axivity_int16_counts_into_mlp, "integer_operand", "int16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # label smoothing applied in place to F.one_hot's int64 targets
    "label-smoothing-one-hot-in-place": case(_label_smoothing_one_hot_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # jitter augmentation with randn_like on int16 raw accelerometer counts
    "jitter-augmentation-randn-like-int16-counts": case(_jitter_augmentation_randn_like_int16_counts, "no_kernel",
                                                        "int16",
        grade="correct", grade_at_freeze="correct"),
    # per-class recall as the mean of the bool hit tensor
    "per-class-recall-mean-of-bool-hits": case(_per_class_recall_mean_of_bool_hits, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # ActiGraph int64 epoch counts from pandas windowed with unfold, std taken as a feature
    "actigraph-int64-counts-std-feature": case(_actigraph_int64_counts_std_feature, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # --- IMU windows, filters and orientation
    # torch.tensor(df.values) keeps pandas' float64: unfolded windows into the fp32 Conv1d (bias=False, BatchNorm next)
    "pandas-float64-windows-conv1d": case(_pandas_float64_windows_conv1d, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the 1-D CNN halved with .half() for the watch, still given fp32 windows
    "halved-cnn-fp32-windows": case(_halved_cnn_fp32_windows, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # gravity separation: windowed-sinc FIR taps built in numpy (float64) applied with F.conv1d to fp32 acceleration
    "gravity-fir-taps-f64-conv1d": case(_gravity_fir_taps_f64_conv1d, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # DeepConvLSTM with only its LSTM halved, given the fp32 conv features
    "deepconvlstm-fp16-lstm-fp32-features": case(_deepconvlstm_fp16_lstm_fp32_features, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # body-to-earth frame: rotation matrices from the phone's float64 quaternions @ fp32 acceleration
    "orientation-rotmat-f64-matmul-acc": case(_orientation_rotmat_f64_matmul_acc, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 orientation estimator's rotation matrices bmm'd with fp32 gyro vectors
    "bf16-orientation-net-bmm-fp32-gyro": case(_bf16_orientation_net_bmm_fp32_gyro, "batched_matmul_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # complementary filter: torch.lerp from the float64 integrated-gyro tilt toward the fp32 accelerometer tilt
    "complementary-filter-lerp-f64-tilt": case(_complementary_filter_lerp_f64_tilt, "lerp_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # vertical acceleration: linalg.vecdot of fp32 acceleration with a numpy (float64) gravity direction
    "vertical-acceleration-vecdot-f64-gravity": case(_vertical_acceleration_vecdot_f64_gravity, "op_dtype", "f32",
                                                     "f64",
        grade="correct", grade_at_freeze="correct"),
    # accelerometer calibration: fp32 readings @ a float64 misalignment/scale matrix from calibration.json
    "sensor-calibration-f64-matrix-matmul": case(_sensor_calibration_f64_matrix_matmul, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- models, losses and training
    # sklearn-style "balanced" class weights computed in numpy (float64) given to CrossEntropyLoss with fp32 logits
    "numpy-class-weights-f64-cross-entropy": case(_numpy_class_weights_f64_cross_entropy, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling: a bf16 learned query attending over fp32 LSTM states with SDPA
    "attention-pooling-sdpa-bf16-query": case(_attention_pooling_sdpa_bf16_query, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 patch-transformer's MultiheadAttention given an fp32 time-distance bias as attn_mask
    "fp16-har-transformer-fp32-time-bias-mask": case(_fp16_har_transformer_fp32_time_bias_mask, "attn_mask_dtype",
                                                     "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a BatchNorm1d input standardiser in front of the CNN, fed float64 windows from pandas
    "input-batchnorm-f64-windows": case(_input_batchnorm_f64_windows, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # spectrogram features: torch.stft of the halved acceleration magnitude
    "spectrogram-stft-fp16-windows": case(_spectrogram_stft_fp16_windows, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling in fp16 with padded steps masked_fill'ed with -1e9
    "attention-pooling-fp16-masked-fill-1e9": case(_attention_pooling_fp16_masked_fill_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the CNN halved with .half() and trained with GradScaler, unscale_ before gradient clipping
    "halved-cnn-grad-scaler-unscale": case(_halved_cnn_grad_scaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autocast probabilities turned into numpy for sklearn's F1
    "autocast-bf16-probabilities-numpy-f1": case(_autocast_bf16_probabilities_numpy_f1, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # overlapping-window votes: the fp16 model's window probabilities scatter_add_'ed into an fp32 timeline
    "overlap-add-scatter-add-fp16-votes": case(_overlap_add_scatter_add_fp16_votes, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # class-balanced sampling with 1 / count weights: a class absent from the fold gives inf into multinomial
    "balanced-sampler-inverse-frequency-inf-multinomial": case(_balanced_sampler_inverse_frequency_inf_multinomial,
                                                               "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
