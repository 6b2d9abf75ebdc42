"""Held-out live set 171: network security and log analytics models by hand in low precision (uint8 packet bytes,
int64 event and template ids, float64 flow statistics from pandas, bool attack masks, fp16 sequence encoders, bf16
autoencoders for anomaly scores). Defects planted by a helper who never read the rules, written before castwise ran
and graded once with the rules frozen at bf1ae96f."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "bf1ae96f"

bf16, f16 = torch.bfloat16, torch.float16
_TEMPLATES = 48  # Drain templates mined from an HDFS-style log
_WINDOW = 10  # DeepLog's history window of log keys
_FLOW_COLUMNS = ["Flow Duration", "Total Fwd Packets", "Flow Bytes/s", "Flow IAT Mean", "Fwd Packet Length Max",
                 "Bwd Packet Length Mean", "SYN Flag Count", "Init_Win_bytes_forward"]


def _seeded() -> None:
    torch.manual_seed(0)


def _structured_log() -> pd.DataFrame:
    """A Drain structured log as pandas reads it: block id, int64 EventId index, and the HDFS anomaly label."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "BlockId": rng.choice([f"blk_{i}" for i in range(6)], size=120),
        "EventId": rng.integers(0, _TEMPLATES, size=120),
        "Label": rng.random(120) < 0.1,
    })


def _flow_table() -> pd.DataFrame:
    """A slice of a CICFlowMeter CSV: float64 statistics in realistic ranges (bytes/s reaches the millions)."""
    rng = np.random.default_rng(1)
    data = rng.random((16, len(_FLOW_COLUMNS))) * np.array([1e7, 200, 4e6, 1e5, 1460, 800, 1, 65535])
    return pd.DataFrame(data, columns=_FLOW_COLUMNS)


def _packet_bytes(flows: int = 4, length: int = 100) -> torch.Tensor:
    """The first bytes of each flow's packets, nPrint-style, as np.frombuffer gives them: uint8."""
    raw = np.random.default_rng(2).integers(0, 256, size=flows * length).astype(np.uint8).tobytes()
    return torch.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy()).reshape(flows, 1, length)


# --- log analytics: DeepLog, LogBERT, LogRobust


def _deeplog_next_key_int32_targets() -> None:
    _seeded()
    keys = _structured_log()["EventId"].to_numpy(dtype=np.int32)  # the parser's cache keeps ids as int32
    windows = torch.from_numpy(np.lib.stride_tricks.sliding_window_view(keys, _WINDOW + 1).copy())
    history, next_key = windows[:, :-1], windows[:, -1]
    embed = nn.Embedding(_TEMPLATES, 16)
    lstm = nn.LSTM(16, 32, batch_first=True)
    head = nn.Linear(32, _TEMPLATES)
    out, _ = lstm(embed(history.long()))
    F.cross_entropy(head(out[:, -1]), next_key)


def _deeplog_bf16_embedding_fp32_lstm() -> None:
    _seeded()
    keys = torch.tensor(_structured_log()["EventId"].to_numpy()[: 4 * _WINDOW]).reshape(4, _WINDOW)
    embed = nn.Embedding(_TEMPLATES, 16).to(bf16)  # embeddings cast to save memory, LSTM left fp32
    lstm = nn.LSTM(16, 32, batch_first=True)
    lstm(embed(keys))


def _logrobust_fasttext_float64_vectors_lstm() -> None:
    _seeded()
    vectors = np.random.default_rng(3).standard_normal((_TEMPLATES, 20))  # TF-IDF weighted fastText, float64
    semantic = nn.Embedding.from_pretrained(torch.from_numpy(vectors), freeze=True)
    bilstm = nn.LSTM(20, 32, batch_first=True, bidirectional=True)
    keys = torch.tensor(_structured_log()["EventId"].to_numpy()[:30]).reshape(3, _WINDOW)
    bilstm(semantic(keys))


def _logbert_mask_positions_from_bernoulli() -> None:
    _seeded()
    keys = torch.tensor(_structured_log()["EventId"].to_numpy()[:40]).reshape(4, _WINDOW)
    mask_token = _TEMPLATES  # [MASK] appended after the templates
    chosen = torch.bernoulli(torch.full(keys.shape, 0.15))  # 0./1. floats
    keys.masked_fill(chosen, mask_token)


def _logbert_fp16_mha_fp32_causal_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(32, 4, batch_first=True).half()
    states = torch.randn(2, _WINDOW, 32).half()
    causal = nn.Transformer.generate_square_subsequent_mask(_WINDOW)  # fp32 0/-inf
    attention(states, states, states, attn_mask=causal)


def _logbert_fp16_scores_masked_fill_minus_1e9() -> None:
    _seeded()
    q = torch.randn(2, _WINDOW, 32).half()
    k = torch.randn(2, _WINDOW, 32).half()
    padding = torch.zeros(2, _WINDOW, dtype=torch.bool)
    padding[1, 7:] = True
    scores = q @ k.transpose(1, 2) / 32**0.5
    scores.masked_fill(padding[:, None, :], -1e9).softmax(-1)


def _logbert_fp16_layernorm_fp32_positions() -> None:
    _seeded()
    embed = nn.Embedding(_TEMPLATES + 1, 32).half()
    norm = nn.LayerNorm(32).half()
    position = torch.arange(_WINDOW)[:, None] / 10000 ** (torch.arange(0, 32, 2) / 32)
    sinusoid = torch.stack([position.sin(), position.cos()], -1).flatten(1)  # fp32 buffer
    keys = torch.randint(0, _TEMPLATES, (2, _WINDOW))
    norm(embed(keys) + sinusoid)


def _template_tfidf_weights_float64_embedding_bag() -> None:
    _seeded()
    counts = _structured_log().groupby("EventId").size()
    idf = np.log(len(counts) / counts.to_numpy())  # float64 from numpy
    ids = torch.tensor(counts.index.to_numpy()[:12])
    bag = nn.EmbeddingBag(_TEMPLATES, 16, mode="sum")
    bag(ids, torch.tensor([0, 6]), per_sample_weights=torch.from_numpy(idf[:12]))


def _event_count_matrix_int64_linear() -> None:
    _seeded()
    log = _structured_log()
    counts = pd.crosstab(log["BlockId"], log["EventId"]).reindex(columns=range(_TEMPLATES), fill_value=0)
    scorer = nn.Linear(_TEMPLATES, 1)
    scorer(torch.tensor(counts.to_numpy()))


def _hdfs_bool_block_labels_bce() -> None:
    _seeded()
    log = _structured_log()
    labels = torch.tensor(log.groupby("BlockId")["Label"].any().to_numpy())  # bool
    logits = torch.randn(len(labels), requires_grad=True)
    F.binary_cross_entropy_with_logits(logits, labels)


def _deeplog_one_hot_int32_keys() -> None:
    _seeded()
    keys = torch.from_numpy(_structured_log()["EventId"].to_numpy(dtype=np.int32)[:_WINDOW])
    F.one_hot(keys, _TEMPLATES)


def _event_count_noise_randn_like_int64() -> None:
    _seeded()
    log = _structured_log()
    counts = torch.tensor(pd.crosstab(log["BlockId"], log["EventId"]).to_numpy())  # int64
    counts + 0.1 * torch.randn_like(counts)


def _template_hash_md5_prefix_int64() -> None:
    _seeded()
    templates = ["Receiving block <*> src: <*> dest: <*>", "PacketResponder <*> for block <*> terminating"]
    ids = [int(hashlib.md5(t.encode()).hexdigest()[:16], 16) for t in templates]  # 64-bit template ids
    torch.tensor(ids)


def _anomalous_window_rate_mean_bool() -> None:
    _seeded()
    errors = torch.rand(200)
    flagged = errors > 0.95
    flagged.mean()


# --- network security: packets, flows, alerts


def _nprint_uint8_packet_bytes_conv1d() -> None:
    _seeded()
    encoder = nn.Conv1d(1, 16, 7, stride=2)
    encoder(_packet_bytes())


def _packet_cnn_bf16_fp32_scaled_bytes() -> None:
    _seeded()
    encoder = nn.Conv1d(1, 16, 7, stride=2).to(bf16)
    encoder(_packet_bytes().float() / 255.0)


def _dga_domain_char_ids_uint8_embedding_bag() -> None:
    _seeded()
    domain = np.frombuffer(b"xkqjzvwpleomtr.com", dtype=np.uint8)  # ASCII codes as ids
    bag = nn.EmbeddingBag(128, 16, mode="mean")
    bag(torch.from_numpy(domain.copy())[None])


def _flow_stats_float64_bf16_autoencoder() -> None:
    _seeded()
    flows = _flow_table()
    scaled = (flows - flows.mean()) / flows.std()
    autoencoder = nn.Sequential(nn.Linear(len(_FLOW_COLUMNS), 4), nn.ReLU(),
                                nn.Linear(4, len(_FLOW_COLUMNS))).to(bf16)
    autoencoder(torch.tensor(scaled.values))


def _flow_features_fp16_overflow_gaussian_score() -> None:
    _seeded()
    features = torch.tensor(_flow_table().values).half()  # Flow Duration and Flow Bytes/s exceed 65504
    z = (features - features.mean(0)) / features.std(0)
    torch.distributions.Normal(z, torch.ones_like(z)).log_prob(torch.zeros_like(z))


def _cicids_frame_values_with_label_from_numpy() -> None:
    flows = _flow_table()
    flows["Label"] = ["BENIGN"] * 12 + ["DDoS"] * 4
    torch.from_numpy(flows.values)


def _anomaly_scores_bf16_roc_auc() -> None:
    from sklearn.metrics import roc_auc_score

    _seeded()
    labels = torch.tensor([0, 0, 1, 0, 1, 1, 0, 0])
    with torch.autocast("cpu", dtype=bf16):
        scores = nn.Linear(8, 1)(torch.randn(8, 8)).squeeze(1)
    roc_auc_score(labels, scores.detach())


def _mahalanobis_inverse_bf16_latents() -> None:
    _seeded()
    latents = torch.randn(64, 4).to(bf16)  # bf16 autoencoder bottleneck
    centred = latents - latents.mean(0)
    covariance = centred.T @ centred / 63
    torch.linalg.inv(covariance + 1e-3 * torch.eye(4, dtype=bf16))


def _per_host_scores_bf16_index_put_fp32() -> None:
    _seeded()
    host_score = torch.zeros(10)
    hosts = torch.tensor([2, 5, 7])
    with torch.autocast("cpu", dtype=bf16):
        scores = nn.Linear(8, 1)(torch.randn(3, 8)).squeeze(1)
    host_score[hosts] = scores.detach()


def _packet_attention_fp16_query_bmm_fp32_keys() -> None:
    _seeded()
    query = torch.randn(4, 1, 16).half()  # fp16 flow summary
    keys = torch.randn(4, 20, 16)  # packet states from the fp32 encoder
    torch.bmm(query, keys.transpose(1, 2))


def _flow_transformer_fp16_queries_sdpa_fp32_memory() -> None:
    _seeded()
    queries = torch.randn(2, 4, 8, 16).half()
    memory = torch.randn(2, 4, 32, 16)  # cached fp32 states of earlier flows of the host
    F.scaled_dot_product_attention(queries, memory, memory)


def _bf16_autoencoder_fp32_master_grads() -> None:
    _seeded()
    model = nn.Linear(8, 8).to(bf16)
    master = [p.detach().float().requires_grad_() for p in model.parameters()]
    F.mse_loss(F.linear(torch.randn(4, 8), *master), torch.randn(4, 8)).backward()
    for param, fp32 in zip(model.parameters(), master, strict=True):
        param.grad = fp32.grad


def _fp16_sequence_encoder_grad_scaler() -> None:
    _seeded()
    encoder = nn.GRU(8, 16, batch_first=True).half()
    optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    out, _ = encoder(torch.randn(2, 12, 8).half())
    scaler.scale(out.float().pow(2).mean()).backward()
    scaler.unscale_(optimizer)


def _alert_onset_bool_subtraction() -> None:
    _seeded()
    alerts = torch.rand(50) > 0.8
    alerts[1:] - alerts[:-1]


def _top_alerted_flows_topk_bool() -> None:
    _seeded()
    alerts = torch.rand(32) > 0.7
    torch.topk(alerts, 5)


def _inter_arrival_ns_std_int64() -> None:
    timestamps = torch.tensor(pd.to_datetime(["2024-01-01 00:00:00.000", "2024-01-01 00:00:00.012",
                                              "2024-01-01 00:00:00.013", "2024-01-01 00:00:01.500"]).asi8)
    torch.diff(timestamps).std()


CASES: dict[str, LiveCase] = {
    # --- log analytics
    # DeepLog: next log key targets from the parser's int32 EventId cache given to cross_entropy
    "deeplog-next-key-int32-targets-ce": case(_deeplog_next_key_int32_targets, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # DeepLog with only the log-key embedding cast to bf16, feeding the fp32 LSTM
    "deeplog-bf16-embedding-fp32-lstm": case(_deeplog_bf16_embedding_fp32_lstm, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # LogRobust: float64 TF-IDF fastText template vectors via Embedding.from_pretrained into the fp32 BiLSTM
    "logrobust-f64-template-vectors-bilstm": case(_logrobust_fasttext_float64_vectors_lstm, "rnn_dtype", "f64",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # LogBERT masked log-key prediction: positions drawn with torch.bernoulli (float) used as masked_fill's mask
    "logbert-bernoulli-float-mask-positions": case(_logbert_mask_positions_from_bernoulli, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # LogBERT in fp16 with MultiheadAttention given the fp32 causal mask from generate_square_subsequent_mask
    "logbert-fp16-mha-fp32-causal-mask": case(_logbert_fp16_mha_fp32_causal_mask, "attn_mask_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # hand-written fp16 attention over log-key windows: padded keys filled with -1e9
    "logbert-fp16-scores-masked-fill-minus-1e9": case(_logbert_fp16_scores_masked_fill_minus_1e9, "half_overflow",
                                                      "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 log-key embeddings plus an fp32 sinusoidal position buffer into the fp16 LayerNorm
    "logbert-fp16-layernorm-fp32-positions": case(_logbert_fp16_layernorm_fp32_positions, "norm_param_dtype",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # template semantics: numpy float64 IDF weights as EmbeddingBag's per_sample_weights over fp32 vectors
    "template-idf-f64-embedding-bag-weights": case(_template_tfidf_weights_float64_embedding_bag, "op_dtype",
                                                   "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # PCA-style session scorer: the int64 event count matrix from pd.crosstab into an fp32 Linear
    "event-count-matrix-int64-linear": case(_event_count_matrix_int64_linear, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # HDFS block labels aggregated with groupby().any() (bool) as the BCE-with-logits target
    "hdfs-block-bool-labels-bce-logits": case(_hdfs_bool_block_labels_bce, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # DeepLog's one-hot input variant: F.one_hot of the int32 cached EventIds
    "deeplog-one-hot-int32-event-ids": case(_deeplog_one_hot_int32_keys, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # count-vector augmentation: Gaussian noise drawn with randn_like of the int64 event counts
    "event-count-noise-randn-like-int64": case(_event_count_noise_randn_like_int64, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # template ids as the first 16 hex digits of an md5 (up to 2**64) put in a tensor (int64)
    "template-md5-prefix-ids-int64-overflow": case(_template_hash_md5_prefix_int64, "half_overflow",
        grade="correct", grade_at_freeze="correct"),
    # share of anomalous log windows taken as the mean of the bool flag tensor
    "anomalous-window-rate-mean-bool": case(_anomalous_window_rate_mean_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # --- network security
    # nPrint-style uint8 packet bytes fed straight to the fp32 Conv1d packet encoder
    "nprint-uint8-packet-bytes-conv1d": case(_nprint_uint8_packet_bytes_conv1d, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # packet CNN cast to bf16 fed fp32 bytes scaled by 1/255
    "packet-cnn-bf16-fp32-scaled-bytes": case(_packet_cnn_bf16_fp32_scaled_bytes, "conv_weight_dtype", "f32",
                                              "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DGA detector: domain characters as uint8 ASCII codes from np.frombuffer into EmbeddingBag
    "dga-domain-uint8-chars-embedding-bag": case(_dga_domain_char_ids_uint8_embedding_bag, "index_tensor_dtype",
                                                 "uint8",
        grade="correct", grade_at_freeze="correct"),
    # z-scored CICFlowMeter statistics (pandas float64) into a bf16 autoencoder
    "flow-stats-f64-bf16-autoencoder": case(_flow_stats_float64_bf16_autoencoder, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # flow features cast to fp16 overflow (bytes/s in the millions), the z-score is NaN, Normal refuses it
    "flow-features-fp16-overflow-normal-score": case(_flow_features_fp16_overflow_gaussian_score, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # the CIC-IDS frame's .values with its string Label column kept (object array) into torch.from_numpy
    "cicids-values-object-label-from-numpy": case(_cicids_frame_values_with_label_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 anomaly scores from an autocast scorer given to sklearn's roc_auc_score
    "anomaly-scores-bf16-roc-auc": case(_anomaly_scores_bf16_roc_auc, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Mahalanobis anomaly score: linalg.inv of the covariance of bf16 autoencoder latents
    "mahalanobis-inv-bf16-latents": case(_mahalanobis_inverse_bf16_latents, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-host score table: bf16 autocast scores written into the fp32 buffer by host index
    "per-host-scores-bf16-index-put": case(_per_host_scores_bf16_index_put_fp32, "indexed_write_dtype", "f32",
                                           "bf16",
        grade="correct", grade_at_freeze="correct"),
    # packet attention: fp16 flow query torch.bmm'd with fp32 packet states
    "packet-attention-fp16-query-bmm-fp32": case(_packet_attention_fp16_query_bmm_fp32_keys,
                                                 "batched_matmul_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # host-context flow transformer: fp16 queries attend over cached fp32 flow states with SDPA
    "flow-transformer-fp16-query-sdpa-fp32-memory": case(_flow_transformer_fp16_queries_sdpa_fp32_memory,
                                                         "sdpa_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autoencoder with hand-kept fp32 master weights: their grads assigned to the bf16 params
    "bf16-autoencoder-fp32-master-grads": case(_bf16_autoencoder_fp32_master_grads, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 GRU sequence encoder (model.half()) trained with GradScaler: unscale_ refuses fp16 gradients
    "fp16-gru-encoder-grad-scaler-unscale": case(_fp16_sequence_encoder_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # alert-burst onsets found as alerts[1:] - alerts[:-1] on the bool alert mask
    "alert-onset-bool-subtraction": case(_alert_onset_bool_subtraction, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # analyst queue: torch.topk over the bool alert mask
    "alerted-flows-topk-bool": case(_top_alerted_flows_topk_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # packet inter-arrival jitter: std of int64 nanosecond differences from pandas timestamps
    "inter-arrival-ns-std-int64": case(_inter_arrival_ns_std_int64, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
}
