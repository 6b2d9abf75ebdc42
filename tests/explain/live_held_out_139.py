"""Held-out live set 139: tabular anomaly detection and fraud scoring written by hand in low precision (reconstruction
autoencoders, LSTM, Conv1d and attention autoencoders over float64 features from pandas, int64 account ids and
counts, bool fraud labels and rule hits, isolation-forest path lengths and scores, Mahalanobis distances with
covariance inverses and per-segment Gaussians, bf16 autocast around the reconstruction models, percentile thresholds
with quantile), the situations sets 63 and 106 did not have. Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at d039d1a0."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d039d1a0"

bf16, f16 = torch.bfloat16, torch.float16
_N = 64
_NUMERIC = ["amount", "log_amount", "n_txn_24h", "n_merchants_7d", "mins_since_last", "amount_vs_account_mean"]


def _seeded() -> None:
    torch.manual_seed(0)


def _transactions(n: int = _N) -> pd.DataFrame:
    """A card-transaction table as pandas reads it from the feature store: float64 amounts, int64 ids and counts,
    a uint8 hour, a bool label and datetime64 timestamps."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({
        "account_id": rng.integers(40_000_000, 40_000_012, n),
        "merchant_category": rng.integers(0, 5, n),
        "amount": rng.lognormal(3.4, 1.1, n).round(2),
        "n_txn_24h": rng.integers(0, 30, n),
        "n_merchants_7d": rng.integers(1, 12, n),
        "mins_since_last": rng.exponential(240.0, n).round(1),
        "hour": rng.integers(0, 24, n).astype(np.uint8),
        "is_fraud": rng.random(n) < 0.06,
        "ts": pd.date_range("2024-03-01", periods=n, freq="7min"),
    })
    frame.loc[[3, 17], "is_fraud"] = True
    frame["log_amount"] = np.log1p(frame["amount"])
    frame["amount_vs_account_mean"] = frame["amount"] / frame.groupby("account_id")["amount"].transform("mean")
    return frame


def _standardised(frame: pd.DataFrame) -> np.ndarray:
    """StandardScaler by hand in pandas: float64 (n, 6)."""
    numeric = frame[_NUMERIC].astype(float)
    return ((numeric - numeric.mean()) / numeric.std()).to_numpy()


def _autoencoder(features: int = len(_NUMERIC), bottleneck: int = 3) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(features, 16), nn.ReLU(),
        nn.Linear(16, bottleneck), nn.ReLU(),
        nn.Linear(bottleneck, 16), nn.ReLU(),
        nn.Linear(16, features),
    )


def _average_path_length(size: torch.Tensor) -> torch.Tensor:
    """c(n) of the isolation forest paper: the average path length of an unsuccessful BST search over n points."""
    size = size.clamp(min=1)
    harmonic = torch.log((size - 1).clamp(min=1)) + 0.5772156649
    return torch.where(size > 1, 2 * harmonic - 2 * (size - 1) / size, torch.zeros(()))


# --- isolation-style scores


def _isolation_path_lengths_int64_leaf_correction() -> None:
    _seeded()
    trees = 8
    depth = torch.randint(2, 8, (trees, _N))  # edges walked until the point reached a leaf, counted per tree
    leaf_size = torch.randint(1, 6, (trees, _N))  # points left in that leaf when the depth limit stopped splitting
    depth.add_(_average_path_length(leaf_size))  # h(x) = e + c(size)


def _isolation_split_values_uniform_int64_counts() -> None:
    _seeded()
    frame = _transactions()
    column = torch.from_numpy(frame["n_txn_24h"].to_numpy())  # the split feature chosen for this node
    low, high = column.min().item(), column.max().item()
    torch.empty_like(column[:8]).uniform_(low, high)  # one split value per tree, uniform in [min, max]


def _isolation_score_from_f64_features_in_f16() -> None:
    frame = _transactions()
    frame.loc[5, "amount"] = 182_500.0  # a wire-like card payment
    raw = torch.from_numpy(frame[_NUMERIC].to_numpy()).half()  # "the scorer runs in fp16"
    raw.clamp_(max=1e6)  # cap amounts at one million before the trees see them


# --- labels, flags and counts


def _alert_churn_bool_flags_subtracted() -> None:
    _seeded()
    scores_yesterday, scores_today = torch.rand(_N), torch.rand(_N)
    flagged_yesterday = scores_yesterday > 0.9
    flagged_today = scores_today > 0.9
    new_alerts = flagged_today - flagged_yesterday  # alerts raised today that were not up yesterday
    new_alerts.sum()


def _train_on_normals_invert_f64_chargeback_label() -> None:
    _seeded()
    frame = _transactions()
    chargebacks = pd.DataFrame({"account_id": frame["account_id"].iloc[[3, 17]], "chargeback": [1, 1]})
    merged = frame.merge(chargebacks.drop_duplicates("account_id"), on="account_id", how="left")
    is_fraud = torch.from_numpy(merged["chargeback"].fillna(0).to_numpy())  # float64 after the left merge
    features = torch.from_numpy(_standardised(merged)).float()
    features[~is_fraud]  # the autoencoder trains on normal rows only


def _semi_supervised_head_cross_entropy_bool_labels() -> None:
    _seeded()
    frame = _transactions()
    x = torch.from_numpy(_standardised(frame)).float()
    encoder = _autoencoder()[:4]
    head = nn.Linear(3, 2)
    is_fraud = torch.from_numpy(frame["is_fraud"].to_numpy())
    F.cross_entropy(head(encoder(x)), is_fraud)


def _hour_of_day_uint8_embedding() -> None:
    _seeded()
    frame = _transactions()
    hours = torch.from_numpy(frame["hour"].to_numpy())  # stored as uint8 in the parquet file
    hour_embedding = nn.Embedding(24, 4)
    hour_embedding(hours)


def _denoising_noise_randn_like_int64_counts() -> None:
    _seeded()
    frame = _transactions()
    counts = torch.from_numpy(frame[["n_txn_24h", "n_merchants_7d"]].to_numpy())
    noisy = counts + 0.5 * torch.randn_like(counts)  # denoising autoencoder input corruption
    noisy.log1p()


def _raw_count_columns_int64_into_encoder() -> None:
    _seeded()
    frame = _transactions()
    counts = torch.from_numpy(frame[["n_txn_24h", "n_merchants_7d"]].to_numpy())  # int64 velocity counts
    count_ae = _autoencoder(features=2, bottleneck=1)
    count_ae(counts)


def _amount_cents_int64_var_mean_zscore() -> None:
    frame = _transactions()
    cents = torch.from_numpy((frame["amount"] * 100).round().astype("int64").to_numpy())  # ledger amounts in cents
    var, mean = torch.var_mean(cents)
    (cents - mean) / var.sqrt()


def _first_rule_hit_argmax_bool() -> None:
    frame = _transactions()
    amount = torch.from_numpy(frame["amount"].to_numpy())
    velocity = torch.from_numpy(frame["n_txn_24h"].to_numpy())
    night = torch.from_numpy(frame["hour"].to_numpy()) < 5
    hits = torch.stack([amount > 200.0, velocity > 20, night, amount > 1000.0], dim=1)  # bool (n, rules)
    hits.argmax(dim=1)  # the first rule that fired, for the analyst's reason code


def _merchant_mix_bincount_int64_normalize() -> None:
    frame = _transactions()
    categories = torch.from_numpy(frame["merchant_category"].to_numpy())
    accounts = torch.from_numpy(pd.factorize(frame["account_id"])[0])
    profile = torch.stack([torch.bincount(categories[accounts == a], minlength=5) for a in range(int(accounts.max()) + 1)])
    profile = F.normalize(profile, dim=1)  # unit-length merchant mix per account for cosine peer comparison
    profile @ profile.T


# --- reconstruction autoencoders over pandas features


def _pandas_f64_features_fp32_autoencoder() -> None:
    _seeded()
    frame = _transactions()
    x = torch.from_numpy(_standardised(frame))
    ae = _autoencoder()
    ((ae(x) - x) ** 2).mean(dim=1)


def _autocast_weighted_recon_error_f64_inverse_variances() -> None:
    _seeded()
    frame = _transactions()
    x = torch.from_numpy(_standardised(frame)).float()
    inverse_variance = torch.from_numpy(1.0 / frame[_NUMERIC].var().to_numpy())  # float64 feature weights
    ae = _autoencoder()
    with torch.autocast("cpu", dtype=bf16):
        recon = ae(x)
        ((x - recon) ** 2) @ inverse_variance  # weighted squared reconstruction error per row


def _layernorm_first_autoencoder_f64_input() -> None:
    _seeded()
    frame = _transactions()
    ae = nn.Sequential(nn.LayerNorm(len(_NUMERIC)), _autoencoder())  # "normalises the raw columns itself"
    ae(torch.from_numpy(frame[_NUMERIC].to_numpy()))


def _lstm_autoencoder_f64_amount_windows() -> None:
    _seeded()
    frame = _transactions()
    windows = np.lib.stride_tricks.sliding_window_view(frame["log_amount"].to_numpy(), 8)  # float64 (57, 8)
    sequences = torch.from_numpy(windows.copy())[..., None]
    encoder = nn.LSTM(1, 8, batch_first=True)
    encoder(sequences)


def _conv1d_autoencoder_f64_hourly_profiles() -> None:
    _seeded()
    frame = _transactions()
    profiles = np.stack([
        np.histogram(group["hour"], bins=24, range=(0, 24))[0] / len(group)
        for _, group in frame.groupby("account_id")
    ])  # each account's share of transactions per hour: float64 (accounts, 24)
    conv_ae = nn.Sequential(nn.Conv1d(1, 4, 5, padding=2), nn.ReLU(), nn.Conv1d(4, 1, 5, padding=2))
    conv_ae(torch.from_numpy(profiles)[:, None])


def _sequence_autoencoder_bf16_mha_numpy_causal_mask() -> None:
    _seeded()
    steps, width = 8, 8
    attention = nn.MultiheadAttention(width, 2, batch_first=True).to(bf16)
    history = torch.randn(4, steps, width).to(bf16)  # embedded last 8 transactions per account
    causal = torch.from_numpy(np.triu(np.full((steps, steps), -np.inf), k=1))  # float64 additive mask
    attention(history, history, history, attn_mask=causal)


def _merchant_embedding_bag_f64_amount_weights() -> None:
    _seeded()
    frame = _transactions()
    merchants = torch.from_numpy(frame["merchant_category"].to_numpy())
    offsets = torch.arange(0, _N, 8)  # 8 transactions per account window
    amount_share = torch.from_numpy((frame["amount"] / frame["amount"].sum()).to_numpy())  # float64
    merchant_bag = nn.EmbeddingBag(5, 4, mode="sum")
    merchant_bag(merchants, offsets, per_sample_weights=amount_share)


def _per_account_worst_error_scatter_reduce_bf16() -> None:
    _seeded()
    frame = _transactions()
    codes, uniques = pd.factorize(frame["account_id"])
    x = torch.from_numpy(_standardised(frame)).float()
    ae = _autoencoder()
    with torch.autocast("cpu", dtype=bf16):
        error = (ae(x) - x.to(bf16)).abs().sum(dim=1)  # L1 reconstruction error per transaction
    worst = torch.zeros(len(uniques))
    worst.scatter_reduce_(0, torch.from_numpy(codes), error, reduce="amax")


def _bf16_gradient_accumulators_assigned_fp32_autoencoder() -> None:
    _seeded()
    frame = _transactions()
    x = torch.from_numpy(_standardised(frame)).float()
    ae = _autoencoder()
    accumulators = [torch.zeros_like(p, dtype=bf16) for p in ae.parameters()]  # halve the memory of accumulation
    for chunk in x.split(16):
        ae.zero_grad()
        F.mse_loss(ae(chunk), chunk).backward()
        for acc, p in zip(accumulators, ae.parameters(), strict=True):
            acc.add_(p.grad)
    for acc, p in zip(accumulators, ae.parameters(), strict=True):
        p.grad = acc / 4


def _vae_fp16_unclipped_amount_normal_nan() -> None:
    _seeded()
    frame = _transactions()
    frame.loc[9, "amount"] = 71_000.0  # one car purchase
    raw = torch.from_numpy(frame[_NUMERIC].to_numpy()).half()
    vae = nn.ModuleDict({"enc": nn.Linear(6, 4), "dec": nn.Linear(2, 6)}).half()
    mu, logvar = vae["enc"](raw).chunk(2, dim=1)
    z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
    recon = vae["dec"](z)
    torch.distributions.Normal(recon, torch.ones_like(recon)).log_prob(raw).sum(dim=1)


# --- Mahalanobis distances and Gaussian scores


def _mahalanobis_einsum_bf16_latents_fp32_precision() -> None:
    _seeded()
    frame = _transactions()
    x = torch.from_numpy(_standardised(frame)).float()
    encoder = _autoencoder()[:4]
    with torch.no_grad():
        z_train = encoder(x)
        mean = z_train.mean(0)
        precision = torch.linalg.inv(torch.cov(z_train.T) + 1e-3 * torch.eye(3))
        encoder.to(bf16)  # scoring runs in bf16
        z = encoder(x.to(bf16))
        delta = z - mean.to(z.dtype)
        torch.einsum("ni,ij,nj->n", delta, precision, delta)


def _per_category_mahalanobis_bmm_numpy_precisions() -> None:
    frame = _transactions()
    x = _standardised(frame)
    categories = frame["merchant_category"].to_numpy()
    precisions = np.stack([np.linalg.pinv(np.cov(x[categories == c].T)) for c in range(5)])  # float64 (5, 6, 6)
    means = np.stack([x[categories == c].mean(0) for c in range(5)])
    delta = torch.from_numpy(x - means[categories]).float()[:, None]  # (n, 1, 6)
    precision = torch.from_numpy(precisions)[torch.from_numpy(categories)]
    torch.bmm(torch.bmm(delta, precision), delta.transpose(1, 2))


def _mahalanobis_solve_fp32_covariance_pandas_deltas() -> None:
    frame = _transactions()
    train, test = frame.iloc[:48], frame.iloc[48:]
    covariance = torch.cov(torch.tensor(train[_NUMERIC].to_numpy(), dtype=torch.float32).T)
    deltas = torch.from_numpy((test[_NUMERIC] - train[_NUMERIC].mean()).to_numpy())  # float64 from pandas
    solved = torch.linalg.solve(covariance, deltas.T)
    (deltas.T * solved).sum(0)


def _mahalanobis_pinv_f16_covariance() -> None:
    frame = _transactions()
    x = torch.from_numpy(_standardised(frame)).half()  # the feature matrix kept in fp16 to fit in memory
    covariance = torch.cov(x.T)
    torch.linalg.pinv(covariance)


def _latent_gaussian_density_mvn_bf16() -> None:
    _seeded()
    frame = _transactions()
    encoder = _autoencoder()[:4].to(bf16)
    with torch.no_grad():
        z = encoder(torch.from_numpy(_standardised(frame)).to(bf16))
        covariance = torch.cov(z.T) + 1e-2 * torch.eye(3, dtype=bf16)
        density = torch.distributions.MultivariateNormal(z.mean(0), covariance_matrix=covariance)
        -density.log_prob(z)


# --- percentile thresholds and numpy interop


def _threshold_quantile_bf16_errors() -> None:
    _seeded()
    frame = _transactions()
    ae = _autoencoder().to(bf16)  # cast for inference
    with torch.no_grad():
        x = torch.from_numpy(_standardised(frame)).to(bf16)
        errors = ((ae(x) - x) ** 2).mean(dim=1)
        threshold = torch.quantile(errors, 0.99)  # alert on the top 1% of reconstruction errors
        (errors > threshold).nonzero()


def _threshold_np_percentile_bf16_errors() -> None:
    _seeded()
    frame = _transactions()
    x = torch.from_numpy(_standardised(frame)).float()
    ae = _autoencoder()
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        errors = (ae(x) - x.to(bf16)).abs().sum(dim=1)
    np.percentile(errors, 99.5)


def _time_since_last_datetime64_from_numpy() -> None:
    frame = _transactions()
    timestamps = torch.from_numpy(frame["ts"].to_numpy())  # datetime64[ns]
    timestamps.diff()


CASES: dict[str, LiveCase] = {
    # --- isolation-style scores
    # isolation forest path lengths counted as int64 edges, then the float leaf correction c(size) added in place
    "isolation-path-length-int64-add-leaf-correction": case(_isolation_path_lengths_int64_leaf_correction,
                                                            "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # isolation tree split values drawn with uniform_ on empty_like of the int64 velocity-count column
    "isolation-split-values-uniform-int64-counts": case(_isolation_split_values_uniform_int64_counts, "no_kernel",
                                                        "int64",
        grade="correct", grade_at_freeze="correct"),
    # raw pandas features made fp16 for the scorer, amounts capped with clamp_(max=1e6)
    "isolation-fp16-features-amount-cap-1e6": case(_isolation_score_from_f64_features_in_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- labels, flags and counts
    # alert churn between two scoring runs: today's bool flags minus yesterday's
    "alert-churn-bool-flags-subtracted": case(_alert_churn_bool_flags_subtracted, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # chargeback label float64 after a left merge and fillna, inverted with ~ to keep the normal rows
    "normal-rows-invert-f64-chargeback-label": case(_train_on_normals_invert_f64_chargeback_label, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a semi-supervised two-class head on the autoencoder's code trained with the bool is_fraud column
    "semi-supervised-head-cross-entropy-bool-labels": case(_semi_supervised_head_cross_entropy_bool_labels,
                                                           "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # hour-of-day stored as uint8 in parquet looked up in an nn.Embedding
    "hour-of-day-uint8-embedding": case(_hour_of_day_uint8_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # denoising autoencoder corruption by randn_like of the raw int64 velocity counts
    "denoising-corruption-randn-like-int64-counts": case(_denoising_noise_randn_like_int64_counts, "no_kernel",
                                                         "int64",
        grade="correct", grade_at_freeze="correct"),
    # raw int64 velocity counts straight into a count autoencoder
    "velocity-counts-int64-count-autoencoder": case(_raw_count_columns_int64_into_encoder, "integer_operand",
                                                    "int64",
        grade="correct", grade_at_freeze="correct"),
    # ledger amounts in int64 cents z-scored with torch.var_mean
    "amount-cents-int64-var-mean-zscore": case(_amount_cents_int64_var_mean_zscore, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # the analyst's reason code: argmax over the bool rule-hit matrix for the first rule that fired
    "reason-code-first-rule-argmax-bool": case(_first_rule_hit_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # per-account merchant-category mix from bincount (int64) L2-normalised for cosine peer comparison
    "merchant-mix-bincount-int64-normalize": case(_merchant_mix_bincount_int64_normalize, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- reconstruction autoencoders over pandas features
    # standardised pandas features (float64) into the fp32 reconstruction autoencoder
    "standardised-pandas-f64-fp32-autoencoder": case(_pandas_f64_features_fp32_autoencoder, "matmul_dtype", "f64",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autocast reconstruction error weighted by float64 inverse variances from pandas with @
    "autocast-recon-error-f64-inverse-variance-weights": case(
        _autocast_weighted_recon_error_f64_inverse_variances, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # an autoencoder that starts with a LayerNorm given the raw float64 pandas columns
    "layernorm-first-autoencoder-f64-columns": case(_layernorm_first_autoencoder_f64_input, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # LSTM autoencoder over float64 sliding windows of log amounts from numpy
    "lstm-autoencoder-f64-sliding-windows": case(_lstm_autoencoder_f64_amount_windows, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Conv1d autoencoder over float64 hourly activity profiles built with np.histogram
    "conv1d-autoencoder-f64-hourly-profiles": case(_conv1d_autoencoder_f64_hourly_profiles, "conv_weight_dtype",
                                                   "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # transaction-sequence autoencoder's attention cast to bf16 with a float64 causal mask from np.triu
    "sequence-ae-bf16-mha-numpy-causal-mask": case(_sequence_autoencoder_bf16_mha_numpy_causal_mask,
                                                   "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # merchant EmbeddingBag weighted by each transaction's float64 amount share
    "merchant-embedding-bag-f64-amount-share": case(_merchant_embedding_bag_f64_amount_weights, "op_dtype", "f32",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # per-account worst reconstruction error: bf16 autocast errors scatter_reduce_'d (amax) into an fp32 buffer
    "per-account-worst-error-scatter-reduce-bf16": case(_per_account_worst_error_scatter_reduce_bf16,
                                                        "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 gradient accumulators over table chunks assigned back as the fp32 autoencoder's .grad
    "bf16-grad-accumulators-assigned-fp32-autoencoder": case(_bf16_gradient_accumulators_assigned_fp32_autoencoder,
                                                             "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 VAE on unscaled columns: a 71,000 amount becomes inf, the Gaussian likelihood's loc NaN
    "vae-fp16-unscaled-amount-normal-nan-loc": case(_vae_fp16_unclipped_amount_normal_nan, "nonfinite", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- Mahalanobis distances and Gaussian scores
    # Mahalanobis on bf16 latent codes with the fp32 precision matrix in einsum
    "mahalanobis-einsum-bf16-codes-fp32-precision": case(_mahalanobis_einsum_bf16_latents_fp32_precision,
                                                         "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-merchant-category Gaussians: float64 precisions from np.linalg.pinv bmm'd with fp32 deltas
    "per-category-mahalanobis-bmm-numpy-precisions": case(_per_category_mahalanobis_bmm_numpy_precisions,
                                                          "batched_matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Mahalanobis by linalg.solve of the fp32 training covariance against float64 pandas deltas
    "mahalanobis-solve-fp32-covariance-f64-deltas": case(_mahalanobis_solve_fp32_covariance_pandas_deltas,
                                                         "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Mahalanobis precision by linalg.pinv of a covariance computed from fp16 features
    "mahalanobis-pinv-f16-covariance": case(_mahalanobis_pinv_f16_covariance, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # latent density score: MultivariateNormal over bf16 codes and their bf16 covariance
    "latent-density-mvn-bf16-codes": case(_latent_gaussian_density_mvn_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- percentile thresholds and numpy interop
    # alert threshold at the 99th percentile by torch.quantile of bf16 reconstruction errors
    "alert-threshold-quantile-bf16-recon-errors": case(_threshold_quantile_bf16_errors, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # alert threshold by np.percentile of bf16 autocast reconstruction errors
    "alert-threshold-np-percentile-bf16-errors": case(_threshold_np_percentile_bf16_errors, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # time since the last transaction from the datetime64 timestamp column through torch.from_numpy
    "time-since-last-datetime64-from-numpy": case(_time_since_last_datetime64_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
}
