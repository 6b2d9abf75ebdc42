"""Held-out live set 174: network security and log analytics models written by hand in low precision (uint8 packet
bytes, int64 log event and Drain template ids, float64 flow statistics from pandas, bool attack masks, fp16 sequence
encoders over log sessions, bf16 autoencoders for anomaly scores). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at 25c743b2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "25c743b2"

bf16, f16 = torch.bfloat16, torch.float16
_TEMPLATES = 48  # Drain templates mined from the HDFS log
_WINDOW = 10  # DeepLog history window


def _seeded() -> None:
    torch.manual_seed(0)


def _flow_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "duration": rng.exponential(2.0, 16),
        "fwd_bytes": rng.integers(40, 1500, 16).astype(np.float64),
        "bwd_bytes": rng.integers(40, 1500, 16).astype(np.float64),
        "pkts_per_s": rng.exponential(50.0, 16),
    })


def _session_ids() -> torch.Tensor:
    return torch.tensor([[3, 7, 7, 12, 5, 3, 9, 9, 21, 4]])  # Drain template ids of one HDFS block, int64


def _packet_bytes() -> torch.Tensor:
    payload = np.frombuffer(bytes(range(64)) * 2, dtype=np.uint8)  # first 128 payload bytes from the pcap
    return torch.from_numpy(payload.copy())[None]


# --- integer, bool, index, mask and target defects ----------------------------------------------------------------

def _header_bytes_into_linear() -> None:
    _seeded()
    headers = _packet_bytes()[:, :40]  # IPv4 + TCP header bytes
    nn.Linear(40, 16)(headers)


def _payload_bytes_into_conv1d() -> None:
    _seeded()
    payload = _packet_bytes()[:, None]  # (batch, 1, 128) byte sequence
    nn.Conv1d(1, 8, 5, bias=False)(payload)


def _template_ids_float_from_pandas_into_embedding() -> None:
    _seeded()
    events = pd.Series([3, 7, None, 12, 5, 3, 9, 9, 21, 4])  # a line Drain failed to parse: NaN makes it float64
    ids = torch.tensor(events.fillna(0).to_numpy())[None]
    nn.Embedding(_TEMPLATES, 16)(ids)


def _deeplog_next_key_int32_targets() -> None:
    _seeded()
    logits = torch.randn(4, _TEMPLATES)
    next_keys = torch.from_numpy(np.array([3, 7, 12, 5], dtype=np.int32))  # np.int32 template ids from the parser
    F.cross_entropy(logits, next_keys)


def _is_attack_float64_column_as_ce_target() -> None:
    _seeded()
    labels = pd.Series([0, 1, np.nan, 1]).fillna(0)  # is_attack read with a missing cell: float64
    logits = torch.randn(4, 2)
    F.cross_entropy(logits, torch.from_numpy(labels.to_numpy()))


def _attack_mask_as_bce_target() -> None:
    _seeded()
    logits = torch.randn(8)
    attack = torch.tensor([0, 0, 1, 0, 1, 1, 0, 0]).bool()
    F.binary_cross_entropy_with_logits(logits, attack)


def _attack_rate_mean_of_bool_mask() -> None:
    _seeded()
    scores = torch.rand(64)
    alerts = scores > 0.9
    alerts.mean()


def _top_windows_of_bool_alerts() -> None:
    _seeded()
    alerts = torch.rand(32) > 0.8
    alerts.topk(5)


def _syn_flag_byte_as_masked_fill_mask() -> None:
    _seeded()
    flags = torch.tensor([0x02, 0x12, 0x10, 0x02], dtype=torch.uint8)
    syn_only = (flags == 0x02).to(torch.uint8)  # kept as the flag byte's dtype
    torch.randn(4).masked_fill(syn_only, 0.0)


def _fp16_anomaly_mask_inverted_with_tilde() -> None:
    _seeded()
    scores = torch.rand(16, dtype=f16)
    anomalous = (scores > 0.7).half()  # the encoder's threshold head returns an fp16 0/1 mask
    normal = ~anomalous
    scores[normal.bool()]


def _event_count_matrix_tfidf_in_place() -> None:
    counts = torch.tensor([[3, 0, 1], [0, 5, 2], [1, 1, 0]])  # int64 event count vectors per session
    idf = torch.from_numpy(np.log(3 / np.array([2.0, 2.0, 2.0])))  # sklearn's idf_ (float64)
    counts *= idf


def _event_count_vectors_l2_normalised() -> None:
    counts = torch.tensor([[3, 0, 1, 4], [0, 5, 2, 0]])  # int64 event counts per block
    F.normalize(counts, dim=1)


def _per_host_event_count_std() -> None:
    counts = torch.tensor([[12, 40, 7, 9], [3, 3, 4, 90]])  # int64 events per host per minute
    counts.std(dim=1)


def _xor_decoded_payload_after_scaling() -> None:
    payload = _packet_bytes().float() / 255.0  # normalised for the CNN, then reused for decoding
    payload.bitwise_xor(torch.tensor(0x5A, dtype=torch.float32))


# --- floating dtypes, kernels, overflow, numpy and gradients -----------------------------------------------------

def _pandas_flow_stats_into_linear() -> None:
    _seeded()
    features = torch.from_numpy(_flow_frame().to_numpy())  # float64 flow statistics
    nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))(features)


def _bf16_autoencoder_fed_pandas_flows() -> None:
    _seeded()
    autoencoder = nn.Sequential(nn.Linear(4, 2), nn.Tanh(), nn.Linear(2, 4)).to(bf16)
    autoencoder(torch.tensor(_flow_frame().values))


def _mahalanobis_with_pandas_inverse_covariance() -> None:
    _seeded()
    frame = _flow_frame()
    inv_cov = torch.from_numpy(np.linalg.inv(frame.cov().to_numpy()))  # float64
    centred = torch.randn(16, 4)  # fp32 standardised flows from the feature pipeline
    (centred @ inv_cov * centred).sum(-1)


def _fp16_covariance_inverse() -> None:
    _seeded()
    flows = torch.randn(64, 4, dtype=f16)
    cov = torch.cov(flows.T)
    torch.linalg.inv(cov)


def _fp16_log_encoder_fed_fp32_embeddings() -> None:
    _seeded()
    embed = nn.Embedding(_TEMPLATES, 32)  # left fp32: only the encoder was halved
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True), 1).half()
    encoder(embed(_session_ids()))


def _deeplog_lstm_fp32_after_bf16_embedding() -> None:
    _seeded()
    embed = nn.Embedding(_TEMPLATES, 16).to(bf16)
    lstm = nn.LSTM(16, 32, batch_first=True)
    lstm(embed(_session_ids()))


def _byte_cnn_fp32_fed_fp16_one_hot() -> None:
    _seeded()
    one_hot = F.one_hot(_packet_bytes().long(), 256).half().transpose(1, 2)  # (batch, 256, 128)
    nn.Conv1d(256, 16, 3, bias=False)(one_hot)


def _fp16_session_encoder_norm_kept_fp32() -> None:
    _seeded()
    encoder_norm = nn.LayerNorm(32).half()  # the final norm of the halved session encoder
    head_proj = nn.Linear(16, 32)  # a new fp32 head added after .half() was called
    encoder_norm(head_proj(torch.randn(2, _WINDOW, 16)))


def _log_session_sdpa_cached_fp32_keys() -> None:
    _seeded()
    q = torch.randn(1, 4, _WINDOW, 8, dtype=f16)
    cached = torch.randn(1, 4, 32, 8)  # keys of earlier sessions kept fp32 in the cache
    F.scaled_dot_product_attention(q, cached, cached)


def _fp16_scores_masked_fill_minus_1e9() -> None:
    _seeded()
    scores = torch.randn(1, _WINDOW, _WINDOW, dtype=f16)
    padding = torch.zeros(1, 1, _WINDOW, dtype=torch.bool)
    padding[..., 7:] = True
    scores.masked_fill(padding, -1e9).softmax(-1)


def _bf16_anomaly_score_quantile_threshold() -> None:
    _seeded()
    scores = torch.rand(256, dtype=bf16)  # reconstruction errors from the bf16 autoencoder
    torch.quantile(scores, 0.99)


def _bf16_reconstruction_bce_fp32_target() -> None:
    _seeded()
    decoder = nn.Sequential(nn.Linear(8, 20), nn.Sigmoid()).to(bf16)
    binary_features = (torch.rand(4, 20) > 0.5).float()  # one-hot protocol/service/flag block
    F.binary_cross_entropy(decoder(torch.randn(4, 8, dtype=bf16)), binary_features)


def _per_host_score_index_add_bf16() -> None:
    _seeded()
    per_host = torch.zeros(5)
    hosts = torch.tensor([0, 2, 2, 4, 1])
    scores = torch.rand(5, dtype=bf16)
    per_host.index_add_(0, hosts, scores)


def _fp16_encoder_grad_scaler_unscale() -> None:
    _seeded()
    model = nn.Linear(16, 2).half()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    loss = model(torch.randn(4, 16, dtype=f16)).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _bf16_scores_into_pandas_report() -> None:
    _seeded()
    scores = torch.rand(8, dtype=bf16)
    pd.DataFrame({"window": range(8), "score": scores.numpy()})


def _flow_duration_gaussian_single_packet() -> None:
    durations = torch.tensor([[0.2, 0.4, 0.3], [1.5, float("nan"), float("nan")]])  # padded with NaN
    std = durations.std(dim=1)
    torch.distributions.Normal(durations.nanmean(dim=1), std)


CASES: dict[str, LiveCase] = {
    # packet header bytes (uint8 from the pcap) fed straight to an fp32 nn.Linear
    "pcap-header-bytes-uint8-linear": case(_header_bytes_into_linear, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # raw uint8 payload bytes into an fp32 byte-level Conv1d
    "payload-bytes-uint8-conv1d": case(_payload_bytes_into_conv1d, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Drain template ids read from pandas as float64 (NaN from an unparsed line) looked up in an Embedding
    "drain-template-ids-float64-embedding": case(_template_ids_float_from_pandas_into_embedding,
                                                 "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # DeepLog next-log-key cross_entropy with np.int32 template-id targets
    "deeplog-next-key-int32-targets": case(_deeplog_next_key_int32_targets, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # is_attack column float64 after a fillna, used as cross_entropy class targets
    "is-attack-float64-ce-targets": case(_is_attack_float64_column_as_ce_target, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bool attack mask as the BCE-with-logits target of a flow classifier
    "attack-mask-bool-bce-target": case(_attack_mask_as_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # alert rate as the mean of the bool alert mask
    "alert-rate-bool-mean": case(_attack_rate_mean_of_bool_mask, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the most alerted windows picked by topk of the bool alert mask
    "alert-windows-bool-topk": case(_top_windows_of_bool_alerts, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # SYN-only flows masked with a uint8 0/1 flag tensor in masked_fill
    "syn-only-uint8-masked-fill": case(_syn_flag_byte_as_masked_fill_mask, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 0/1 anomaly mask inverted with ~ to select normal windows
    "anomaly-mask-fp16-tilde": case(_fp16_anomaly_mask_inverted_with_tilde, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # TF-IDF: an int64 event count matrix multiplied in place by sklearn's float64 idf
    "event-counts-int64-tfidf-inplace": case(_event_count_matrix_tfidf_in_place, "result_cast", "f64", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 event count vectors L2-normalised with F.normalize for PCA-based detection
    "event-counts-int64-normalize": case(_event_count_vectors_l2_normalised, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-host z-scores: std of the int64 per-minute event counts
    "host-event-counts-int64-std": case(_per_host_event_count_std, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # payload XOR-decoded with its key after being scaled to fp32 for the CNN
    "payload-xor-decode-fp32": case(_xor_decoded_payload_after_scaling, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (25c743b2) castwise gave mask_dtype [f32] (high confidence). The payload was scaled to fp32 "
             "for the CNN and then XOR-decoded with its key: bitwise_xor has no kernel for a floating tensor (the "
             "bytes must stay uint8 for bit operations); the writer expected no_kernel. Expectation corrected after "
             "grading from no_kernel to mask_dtype, the convention the corpus already had for a bit operation refused "
             "on a float32 tensor (live_held_out_78's mid-circuit-record-float-xor-parity, live_held_out_86's "
             "gray-demap-shift-float-slicer-ids, held_out_80's bitwise_and cases), whose fix also names integer data "
             "left floating; the grade at freeze stands.")),
    # CICFlowMeter-style statistics from pandas (float64) into an fp32 MLP
    "flow-stats-float64-mlp": case(_pandas_flow_stats_into_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 anomaly autoencoder fed df.values (float64)
    "bf16-autoencoder-float64-flows": case(_bf16_autoencoder_fed_pandas_flows, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Mahalanobis distance with a float64 inverse covariance from pandas and fp32 centred flows
    "mahalanobis-float64-inverse-cov": case(_mahalanobis_with_pandas_inverse_covariance, "matmul_dtype", "f32",
                                            "f64",
        grade="correct", grade_at_freeze="correct"),
    # Mahalanobis on fp16 flow features: linalg.inv of the fp16 covariance
    "fp16-flow-covariance-inverse": case(_fp16_covariance_inverse, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # log-session Transformer encoder halved, its template embedding left fp32
    "fp16-log-encoder-fp32-embedding": case(_fp16_log_encoder_fed_fp32_embeddings, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # DeepLog: a bf16 log-key embedding feeding the fp32 LSTM
    "deeplog-bf16-embedding-fp32-lstm": case(_deeplog_lstm_fp32_after_bf16_embedding, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # one-hot byte sequence made fp16, fed to an fp32 byte CNN
    "byte-cnn-fp16-one-hot-input": case(_byte_cnn_fp32_fed_fp16_one_hot, "conv_weight_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the halved session encoder's final LayerNorm fed a new fp32 head projection
    "session-encoder-fp16-layernorm-fp32-head": case(_fp16_session_encoder_norm_kept_fp32, "norm_param_dtype",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 queries of a log session attending to fp32 cached keys through SDPA
    "log-session-sdpa-fp32-cache": case(_log_session_sdpa_cached_fp32_keys, "sdpa_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # padded log windows masked with -1e9 in fp16 attention scores
    "fp16-log-scores-masked-fill-1e9": case(_fp16_scores_masked_fill_minus_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # 99th-percentile threshold of bf16 reconstruction errors by torch.quantile
    "bf16-score-quantile-threshold": case(_bf16_anomaly_score_quantile_threshold, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # bf16 decoder's sigmoid outputs against fp32 binary features in binary_cross_entropy
    "bf16-decoder-bce-fp32-target": case(_bf16_reconstruction_bce_fp32_target, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-host alert scores summed with index_add_ of bf16 scores into an fp32 buffer
    "per-host-index-add-bf16-scores": case(_per_host_score_index_add_bf16, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 log classifier trained with GradScaler: unscale_ of fp16 gradients
    "fp16-log-classifier-grad-scaler": case(_fp16_encoder_grad_scaler_unscale, "unscale_fp16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 anomaly scores put into a pandas report with .numpy()
    "bf16-scores-pandas-report": case(_bf16_scores_into_pandas_report, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Gaussian model of flow durations: std of a single-packet flow (NaN padding) is NaN in Normal's scale
    "flow-duration-normal-nan-scale": case(_flow_duration_gaussian_single_packet, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
