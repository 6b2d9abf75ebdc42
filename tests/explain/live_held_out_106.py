"""Held-out live set 106: payment fraud detection written by hand in low precision (transaction tables from pandas with
float64 amounts and int64 account/merchant ids, hashed card ids, heterogeneous account-merchant transaction graphs with
int64 edge lists, relation-wise message passing, time-since-last-transaction features, class-imbalanced BCE, focal and
weighted NLL losses with float64 class weights, label masks for delayed chargeback labels, bf16 autocast around the
scorer, Platt scaling and threshold calibration). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at 8009be2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8009be2"

bf16, f16 = torch.bfloat16, torch.float16
_ACCOUNTS = 6
_MERCHANTS = 5
_HIDDEN = 16


def _seeded() -> None:
    torch.manual_seed(0)


def _transactions() -> pd.DataFrame:
    """A small transaction table as the warehouse export gives it: int64 ids and ns timestamps, float64 amounts."""
    return pd.DataFrame({
        "account_id": [0, 0, 1, 2, 2, 2, 3, 4, 5, 5],
        "merchant_id": [1, 3, 0, 4, 4, 2, 1, 0, 3, 2],
        "amount": [12.5, 830.0, 4.99, 59.0, 61.0, 2400.0, 15.75, 7.2, 320.0, 19.99],
        "ts": pd.to_datetime([
            "2024-03-01 10:00", "2024-03-01 10:02", "2024-03-01 11:30", "2024-03-02 09:00", "2024-03-02 09:01",
            "2024-03-02 09:03", "2024-03-03 18:45", "2024-03-04 07:10", "2024-03-04 23:59", "2024-03-05 00:01",
        ]),
        "is_fraud": [0, 1, 0, 0, 0, 1, 0, 0, 1, 0],
    })


def _scorer(in_features: int = 4) -> nn.Module:
    _seeded()
    return nn.Sequential(nn.Linear(in_features, _HIDDEN), nn.ReLU(), nn.Linear(_HIDDEN, 1))


# --- integer, bool, index, mask and target dtypes ---


def _card_hash_uint64_buckets_into_embedding() -> None:
    _seeded()
    cards = pd.Series(["4111-xxxx-1111", "5500-xxxx-0004", "4111-xxxx-1111", "3400-xxxx-0009"])
    buckets = pd.util.hash_pandas_object(cards, index=False).to_numpy() % np.uint64(1024)  # hashing trick: uint64
    card_embedding = nn.Embedding(1024, 8)
    card_embedding(torch.from_numpy(buckets))


def _merchant_edges_float_after_left_merge() -> None:
    _seeded()
    txns = _transactions()
    merchants = pd.DataFrame({"merchant_id": [0, 1, 2, 3], "node": [0, 1, 2, 3]})  # merchant 4 not onboarded yet
    edges = txns.merge(merchants, on="merchant_id", how="left")  # NaN for merchant 4 turns "node" into float64
    src = torch.from_numpy(edges["account_id"].to_numpy())
    dst = torch.from_numpy(edges["node"].fillna(0).to_numpy())
    merchant_x = torch.randn(4, _HIDDEN)
    account_x = torch.randn(_ACCOUNTS, _HIDDEN)
    (account_x[src] * merchant_x[dst]).sum(-1)


def _is_fraud_bool_target_bce_logits() -> None:
    _seeded()
    txns = _transactions()
    features = torch.tensor(txns[["amount"]].to_numpy(), dtype=torch.float32).log1p()
    target = torch.from_numpy(txns["is_fraud"].to_numpy().astype(bool))
    logits = nn.Linear(1, 1)(features).squeeze(-1)
    F.binary_cross_entropy_with_logits(logits, target, pos_weight=torch.tensor(4.0))


def _fraud_rate_mean_of_bool_labels() -> None:
    txns = _transactions()
    is_fraud = torch.from_numpy(txns["is_fraud"].to_numpy() == 1)
    fraud_rate = is_fraud.mean()
    torch.tensor((1 - fraud_rate) / fraud_rate)  # pos_weight for BCEWithLogitsLoss


def _delayed_labels_float_mask_masked_select() -> None:
    _seeded()
    txns = _transactions()
    txns["label_known"] = (txns["ts"] < "2024-03-04").astype(float)  # chargebacks arrive weeks later
    logits = torch.randn(len(txns))
    labels = torch.tensor(txns["is_fraud"].to_numpy(), dtype=torch.float32)
    known = torch.from_numpy(txns["label_known"].to_numpy()).float()
    F.binary_cross_entropy_with_logits(logits.masked_select(known), labels.masked_select(known))


def _focal_pt_where_on_float_labels() -> None:
    _seeded()
    logits = torch.randn(10)
    labels = torch.tensor(_transactions()["is_fraud"].to_numpy(), dtype=torch.float32)
    p = logits.sigmoid()
    p_t = torch.where(labels, p, 1 - p)
    (-(1 - p_t) ** 2.0 * p_t.log()).mean()


def _transaction_counts_int64_batchnorm() -> None:
    _seeded()
    txns = _transactions()
    counts = txns.groupby("account_id")["amount"].agg(["count", "nunique"])  # int64 velocity features
    counts["merchants"] = txns.groupby("account_id")["merchant_id"].nunique()
    velocity = torch.from_numpy(counts.to_numpy())
    nn.BatchNorm1d(3)(velocity)


def _hour_of_day_histc_int64() -> None:
    txns = _transactions()
    hours = torch.from_numpy(txns["ts"].dt.hour.to_numpy().astype(np.int64))
    torch.histc(hours, bins=24, min=0, max=23)  # the account's hour-of-day profile


def _seconds_since_last_log1p_in_place() -> None:
    txns = _transactions().sort_values(["account_id", "ts"])
    ts = torch.from_numpy(txns["ts"].to_numpy().astype(np.int64))  # ns since epoch
    account = torch.from_numpy(txns["account_id"].to_numpy())
    since_last = torch.zeros_like(ts)
    same_account = account[1:] == account[:-1]
    since_last[1:] = torch.where(same_account, (ts[1:] - ts[:-1]) // 1_000_000_000, 0)
    since_last.log1p_()


def _history_padding_mask_int64_in_mha() -> None:
    _seeded()
    history = torch.randn(2, 5, _HIDDEN)  # the last 5 transactions of two accounts
    lengths = torch.tensor([5, 2])
    padding = (torch.arange(5)[None, :] >= lengths[:, None]).long()  # 1 marks padding
    attention = nn.MultiheadAttention(_HIDDEN, 2, batch_first=True)
    attention(history, history, history, key_padding_mask=padding)


# --- two floating dtypes, low-precision kernels, overflow, numpy interop and gradients ---


def _pandas_float64_features_into_bf16_scorer() -> None:
    txns = _transactions()
    txns["log_amount"] = np.log1p(txns["amount"])
    txns["hour"] = txns["ts"].dt.hour / 23.0
    txns["weekday"] = txns["ts"].dt.weekday / 6.0
    txns["amount_z"] = (txns["amount"] - txns["amount"].mean()) / txns["amount"].std()
    features = torch.tensor(txns[["log_amount", "hour", "weekday", "amount_z"]].values)
    scorer = _scorer().to(bf16)
    scorer(features)


def _time2vec_float64_seconds_matmul() -> None:
    _seeded()
    txns = _transactions()
    gaps = txns.groupby("account_id")["ts"].diff().dt.total_seconds().fillna(0.0)  # float64 seconds
    dt = torch.from_numpy(gaps.to_numpy())[:, None]
    frequencies = nn.Parameter(torch.randn(1, 8))
    phases = nn.Parameter(torch.randn(8))
    torch.sin(dt @ frequencies + phases)


def _platt_scaling_fp32_on_autocast_logits() -> None:
    scorer = _scorer()
    features = torch.randn(10, 4)
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        logits = scorer(features)  # bf16 logits on the validation fold
    platt = nn.Linear(1, 1)  # calibrator fitted outside autocast
    torch.sigmoid(platt(logits))


def _rgcn_relation_bmm_fp32_weights() -> None:
    _seeded()
    relations = 3  # paid_at, shares_device_with, shares_card_with
    messages = torch.randn(relations, _ACCOUNTS, _HIDDEN, dtype=bf16)
    relation_weights = nn.Parameter(torch.randn(relations, _HIDDEN, _HIDDEN) / _HIDDEN**0.5)  # added after .to(bf16)
    torch.bmm(messages, relation_weights)


def _merchant_messages_index_add_under_autocast() -> None:
    _seeded()
    txns = _transactions()
    src = torch.from_numpy(txns["account_id"].to_numpy())
    dst = torch.from_numpy(txns["merchant_id"].to_numpy())
    account_x = torch.randn(_ACCOUNTS, _HIDDEN)
    message_mlp = nn.Linear(_HIDDEN, _HIDDEN)
    with torch.autocast("cpu", dtype=bf16):
        messages = message_mlp(account_x[src])
        merchant_h = torch.zeros(_MERCHANTS, _HIDDEN)
        merchant_h.index_add_(0, dst, messages)


def _card_merchant_sparse_adjacency_bf16_features() -> None:
    _seeded()
    txns = _transactions()
    edge_index = torch.from_numpy(txns[["account_id", "merchant_id"]].to_numpy().T.copy())
    adjacency = torch.sparse_coo_tensor(edge_index, torch.ones(edge_index.shape[1]), (_ACCOUNTS, _MERCHANTS))
    merchant_h = torch.randn(_MERCHANTS, _HIDDEN).to(bf16)
    torch.sparse.mm(adjacency, merchant_h)


def _smote_lerp_float64_minority_fp32_neighbours() -> None:
    _seeded()
    txns = _transactions()
    minority = torch.from_numpy(txns.loc[txns["is_fraud"] == 1, ["amount"]].to_numpy())  # float64
    neighbours = torch.randn(len(minority), 1).abs() * 500  # nearest fraud neighbours from the fp32 feature store
    gap = torch.rand(len(minority), 1)
    torch.lerp(minority, neighbours, gap)


def _class_weights_float64_nll_under_autocast() -> None:
    txns = _transactions()
    counts = np.bincount(txns["is_fraud"].to_numpy())
    class_weight = torch.from_numpy(len(txns) / (2 * counts))  # "balanced" weights, float64
    scorer = nn.Sequential(nn.Linear(4, _HIDDEN), nn.ReLU(), nn.Linear(_HIDDEN, 2))
    target = torch.from_numpy(txns["is_fraud"].to_numpy())
    with torch.autocast("cpu", dtype=bf16):
        log_probs = scorer(torch.randn(len(txns), 4)).log_softmax(-1)
    F.nll_loss(log_probs, target, weight=class_weight)


def _account_history_gru_bf16_embeddings() -> None:
    _seeded()
    merchant_embedding = nn.Embedding(_MERCHANTS, _HIDDEN).to(bf16)
    history = torch.tensor([[1, 3, 3, 0], [4, 4, 2, 1]])
    encoder = nn.GRU(_HIDDEN, _HIDDEN, batch_first=True)
    encoder(merchant_embedding(history))


def _history_padding_mask_float64_from_numpy() -> None:
    _seeded()
    history = torch.randn(2, 5, _HIDDEN)
    padding = torch.from_numpy(np.array([[0, 0, 0, 0, 0], [0, 0, -np.inf, -np.inf, -np.inf]]))  # float64 additive
    attention = nn.MultiheadAttention(_HIDDEN, 2, batch_first=True)
    attention(history, history, history, key_padding_mask=padding)


def _transaction_sequence_conv1d_bf16_fp32_input() -> None:
    _seeded()
    sequence = torch.randn(2, 4, 12)  # 4 features over the last 12 transactions, fp32 from the feature store
    local_patterns = nn.Conv1d(4, 8, kernel_size=3, padding=1).to(bf16)
    local_patterns(sequence)


def _no_previous_transaction_sentinel_fp16() -> None:
    txns = _transactions()
    gaps = txns.groupby("account_id")["ts"].diff().dt.total_seconds()
    since_last = torch.tensor(gaps.fillna(0.0).to_numpy(), dtype=f16)
    first = torch.from_numpy(gaps.isna().to_numpy())
    since_last.masked_fill(first, 30 * 24 * 3600.0)  # "no previous transaction" as 30 days in seconds


def _roc_auc_on_bf16_scores() -> None:
    scorer = _scorer().to(bf16)
    with torch.no_grad():
        scores = scorer(torch.randn(10, 4, dtype=bf16)).sigmoid().squeeze(-1)
    scores.numpy()  # for sklearn.metrics.roc_auc_score(y_true, scores)


def _mixed_dtype_frame_values_from_numpy() -> None:
    txns = _transactions()
    txns["country"] = ["US", "US", "GB", "DE", "DE", "DE", "US", "FR", "NG", "NG"]
    torch.from_numpy(txns[["amount", "account_id", "country"]].values)


def _mahalanobis_eigh_bf16_embeddings() -> None:
    _seeded()
    embeddings = torch.randn(64, 8, dtype=bf16)  # bf16 account embeddings of legitimate traffic
    covariance = torch.cov(embeddings.T) + 1e-3 * torch.eye(8, dtype=bf16)
    torch.linalg.eigh(covariance)


def _rule_flags_fp16_combined_with_and() -> None:
    _seeded()
    flags = torch.stack([torch.rand(10) > 0.7, torch.rand(10) > 0.5]).half()  # stored beside fp16 features
    high_amount, new_device = flags
    high_amount & new_device


def _fp16_scorer_grad_scaler_on_cpu() -> None:
    scorer = _scorer().half()
    optimizer = torch.optim.SGD(scorer.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    logits = scorer(torch.randn(10, 4).half()).float().squeeze(-1)
    labels = torch.tensor(_transactions()["is_fraud"].to_numpy(), dtype=torch.float32)
    scaler.scale(F.binary_cross_entropy_with_logits(logits, labels)).backward()
    scaler.unscale_(optimizer)


def _class_ratio_gradient_hook_float64() -> None:
    txns = _transactions()
    labels = txns["is_fraud"].to_numpy()
    ratio = torch.from_numpy(np.where(labels == 1, (labels == 0).sum() / labels.sum(), 1.0))  # float64
    scorer = _scorer()
    logits = scorer(torch.randn(len(txns), 4)).squeeze(-1)
    logits.register_hook(lambda grad: grad * ratio)  # upweight the fraud gradients
    F.binary_cross_entropy_with_logits(logits, torch.tensor(labels, dtype=torch.float32)).backward()


def _calibrated_bce_bf16_probs_fp32_labels() -> None:
    scorer = _scorer()
    labels = torch.tensor(_transactions()["is_fraud"].to_numpy(), dtype=torch.float32)
    with torch.autocast("cpu", dtype=bf16):
        probs = scorer(torch.randn(10, 4)).squeeze(-1).sigmoid()
    F.binary_cross_entropy(probs, labels)


def _alert_threshold_quantile_float64_scores() -> None:
    txns = _transactions()
    scores = torch.from_numpy((txns["amount"] / txns["amount"].max()).to_numpy())  # rule score from pandas
    alert_budget = torch.tensor([0.95, 0.99])  # review 5% and 1% of traffic
    torch.quantile(scores, alert_budget)


CASES: dict[str, LiveCase] = {
    # hashed card ids from pd.util.hash_pandas_object (uint64) modulo the bucket count into nn.Embedding
    "card-hash-uint64-buckets-embedding": case(_card_hash_uint64_buckets_into_embedding, "index_tensor_dtype",
                                               "uint64",
        grade="correct", grade_at_freeze="correct"),
    # account-merchant edges after a left merge with a missing merchant: the node column became float64
    "merchant-edges-f64-after-left-merge": case(_merchant_edges_float_after_left_merge, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # is_fraud labels cast to bool for binary_cross_entropy_with_logits with a pos_weight
    "is-fraud-bool-target-bce-logits": case(_is_fraud_bool_target_bce_logits, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the fraud rate for pos_weight computed as .mean() of the bool label tensor
    "fraud-rate-mean-bool-labels": case(_fraud_rate_mean_of_bool_labels, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # delayed chargeback labels: the label-known mask made float by pandas astype(float), used in masked_select
    "delayed-labels-float-mask-masked-select": case(_delayed_labels_float_mask_masked_select, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # hand-written focal loss: p_t = torch.where(labels, p, 1 - p) with float 0/1 labels as the condition
    "focal-pt-where-float-labels": case(_focal_pt_where_on_float_labels, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-account velocity counts from a pandas groupby (int64) into BatchNorm1d
    "velocity-counts-int64-batchnorm": case(_transaction_counts_int64_batchnorm, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # an account's hour-of-day profile by torch.histc of int64 hours
    "hour-of-day-histc-int64": case(_hour_of_day_histc_int64, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # seconds since the account's last transaction kept int64, then log1p_ in place
    "seconds-since-last-log1p-inplace-int64": case(_seconds_since_last_log1p_in_place, "result_cast", "f32",
                                                   "int64",
        grade="correct", grade_at_freeze="correct"),
    # transaction-history attention given an int64 (.long()) key_padding_mask
    "history-padding-mask-int64-mha": case(_history_padding_mask_int64_in_mha, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # float64 engineered features from pandas (torch.tensor(df.values)) into a scorer cast to bf16
    "pandas-f64-features-bf16-scorer": case(_pandas_float64_features_into_bf16_scorer, "matmul_dtype", "f64",
                                            "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Time2Vec encoding: float64 seconds since last transaction @ fp32 frequencies
    "time2vec-f64-seconds-matmul": case(_time2vec_float64_seconds_matmul, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Platt scaling: an fp32 nn.Linear(1, 1) fitted on logits the scorer made under bf16 autocast
    "platt-scaling-fp32-linear-autocast-logits": case(_platt_scaling_fp32_on_autocast_logits, "matmul_dtype",
                                                      "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # R-GCN: bf16 messages per relation torch.bmm'd with fp32 relation weights added after .to(bf16)
    "rgcn-relation-bmm-fp32-weights": case(_rgcn_relation_bmm_fp32_weights, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # account-to-merchant messages made under bf16 autocast, index_add_'ed into an fp32 merchant buffer
    "merchant-messages-index-add-autocast": case(_merchant_messages_index_add_under_autocast, "indexed_write_dtype",
                                                 "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a sparse fp32 account-merchant adjacency times bf16 merchant states with torch.sparse.mm
    "sparse-adjacency-fp32-bf16-merchant-states": case(_card_merchant_sparse_adjacency_bf16_features, "matmul_dtype",
                                                       "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SMOTE by hand: float64 minority rows from pandas lerp'ed toward fp32 neighbours
    "smote-lerp-f64-minority-fp32-neighbours": case(_smote_lerp_float64_minority_fp32_neighbours, "lerp_dtype",
                                                    "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # "balanced" float64 class weights from numpy in nll_loss on bf16 log-probabilities made under autocast
    "balanced-class-weights-f64-nll-autocast": case(_class_weights_float64_nll_under_autocast, "op_dtype", "bf16",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # merchant embeddings cast to bf16 feeding an fp32 GRU over an account's transaction history
    "account-history-gru-bf16-embeddings": case(_account_history_gru_bf16_embeddings, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an additive float64 key_padding_mask from numpy in fp32 MultiheadAttention over the history
    "history-padding-mask-f64-mha": case(_history_padding_mask_float64_from_numpy, "attn_mask_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a Conv1d over the transaction sequence cast to bf16, fed fp32 features
    "txn-sequence-conv1d-bf16-fp32-input": case(_transaction_sequence_conv1d_bf16_fp32_input, "conv_weight_dtype",
                                                "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 seconds-since-last with "no previous transaction" filled as 30 days (2.6e6 s)
    "no-previous-txn-sentinel-fp16": case(_no_previous_transaction_sentinel_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 scores turned to numpy for sklearn's roc_auc_score
    "roc-auc-bf16-scores-numpy": case(_roc_auc_on_bf16_scores, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DataFrame.values over float, int and string columns (object array) into torch.from_numpy
    "mixed-dtype-frame-values-from-numpy": case(_mixed_dtype_frame_values_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Mahalanobis anomaly score: linalg.eigh of the covariance of bf16 account embeddings
    "mahalanobis-eigh-bf16-embeddings": case(_mahalanobis_eigh_bf16_embeddings, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # two rule flags stored as fp16 combined with `&`
    "rule-flags-fp16-and": case(_rule_flags_fp16_combined_with_and, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a scorer halved with .half() and trained with GradScaler on the CPU
    "fp16-scorer-grad-scaler-cpu": case(_fp16_scorer_grad_scaler_on_cpu, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook on the logits multiplying by a float64 class-ratio tensor from numpy
    "class-ratio-grad-hook-f64": case(_class_ratio_gradient_hook_float64, "loss_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # calibration loss: binary_cross_entropy of bf16 probabilities made under autocast against fp32 labels
    "calibration-bce-bf16-probs-fp32-labels": case(_calibrated_bce_bf16_probs_fp32_labels, "op_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # alert thresholds at the review budget: torch.quantile of float64 rule scores with fp32 quantile levels
    "alert-threshold-quantile-f64-scores": case(_alert_threshold_quantile_float64_scores, "op_dtype",
        grade="correct", grade_at_freeze="correct"),
}
