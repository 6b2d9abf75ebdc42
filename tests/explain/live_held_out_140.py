"""Held-out live set 140: clinical time series and electronic health records written by hand in low precision
(irregular vital-sign sequences with float64 timestamps from pandas, int64 ICD code ids, bool missingness masks,
time-aware attention with exponential decay, bf16 GRU-D style models, in-hospital mortality labels as int64, survival
losses with cumulative hazards, imputation and hourly binning). Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at d039d1a0."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d039d1a0"

bf16, f16 = torch.bfloat16, torch.float16
_VITALS = 6  # heart rate, systolic BP, diastolic BP, respiratory rate, SpO2, temperature
_STEPS = 12
_ICD_VOCAB = 2000


def _seeded() -> None:
    torch.manual_seed(0)


def _chart_hours(patients: int = 2, steps: int = _STEPS) -> np.ndarray:
    """Irregular chart times in hours since admission, as pandas gives them: float64."""
    rng = np.random.default_rng(0)
    gaps = rng.exponential(1.5, size=(patients, steps))
    return np.cumsum(gaps, axis=1)


def _observed_mask(patients: int = 2, steps: int = _STEPS) -> torch.Tensor:
    rng = np.random.default_rng(1)
    return torch.from_numpy(rng.random((patients, steps, _VITALS)) > 0.4)


# --- labels, masks, code ids and integer chart data


def _mortality_int64_bce_logits() -> None:
    _seeded()
    head = nn.Linear(32, 1)
    hidden = torch.randn(4, 32)
    hospital_expire_flag = torch.tensor([0, 1, 0, 0])  # from the admissions table: int64
    F.binary_cross_entropy_with_logits(head(hidden).squeeze(-1), hospital_expire_flag)


def _mortality_float64_after_merge_cross_entropy() -> None:
    _seeded()
    cohort = np.array([0.0, 1.0, np.nan, 0.0])  # left merge of stays with outcomes: NaN, so float64
    labels = torch.from_numpy(np.nan_to_num(cohort, nan=0.0))
    logits = nn.Linear(32, 2)(torch.randn(4, 32))
    F.cross_entropy(logits, labels)


def _missingness_bool_avg_pool_observed_fraction() -> None:
    mask = _observed_mask().permute(0, 2, 1)  # (patient, vital, hour) bool
    F.avg_pool1d(mask, kernel_size=4, stride=4)  # fraction observed in each 4-hour window


def _heart_rate_int64_histc() -> None:
    heart_rate = torch.tensor([72, 88, 104, 131, 64, 97, 150, 58])  # charted as integers by the monitor export
    torch.histc(heart_rate, bins=16, min=30, max=190)


def _observed_float_mask_where_impute() -> None:
    _seeded()
    values = torch.randn(2, _STEPS, _VITALS)
    observed = _observed_mask().float()  # df.notna().astype(float) in the preprocessing script
    last_value = torch.zeros_like(values)
    torch.where(observed, values, last_value)


def _bf16_batch_cast_missing_mask_invert() -> None:
    _seeded()
    batch = {"values": torch.randn(2, _STEPS, _VITALS), "observed": _observed_mask()}
    batch = {key: value.to(bf16) for key, value in batch.items()}  # "move the batch to the model's dtype"
    missing = ~batch["observed"]
    batch["values"].masked_fill(missing, 0.0)


def _chart_gap_int64_minutes_div_in_place() -> None:
    charttime_minutes = torch.tensor([[0, 37, 95, 240, 260], [0, 15, 30, 300, 1440]])
    gaps = charttime_minutes.diff(dim=1)
    gaps.div_(60.0)  # minutes to hours, in place


def _chart_time_int64_randn_like_jitter() -> None:
    _seeded()
    charttime_minutes = torch.tensor([[0, 37, 95, 240], [0, 15, 30, 300]])
    charttime_minutes + 5.0 * torch.randn_like(charttime_minutes)  # augmentation: jitter the chart times


def _icd_codes_int16_embedding() -> None:
    _seeded()
    codes = np.array([[12, 407, 1999, 0], [5, 88, 0, 0]], dtype=np.int16)  # vocab < 32768, cached as int16
    nn.Embedding(_ICD_VOCAB, 16, padding_idx=0)(torch.from_numpy(codes))


def _nelson_aalen_bool_events_index_add() -> None:
    event = torch.tensor([True, False, True, True, False, True])
    time_bin = torch.tensor([0, 1, 1, 3, 4, 4])
    deaths = torch.zeros(6).index_add_(0, time_bin, event)
    at_risk = torch.arange(6, 0, -1).float()
    (deaths / at_risk).cumsum(0)


def _cumulative_hazard_bool_tril_matmul() -> None:
    _seeded()
    hazard = F.softplus(torch.randn(4, 10, dtype=bf16))  # discrete-time hazard per bin from a bf16 model
    lower = torch.tril(torch.ones(10, 10, dtype=torch.bool))
    cumulative_hazard = hazard @ lower.T
    torch.exp(-cumulative_hazard)


# --- two floating dtypes meeting, low-precision kernels, overflow, numpy, NaN, gradients


def _time2vec_float64_chart_hours_bf16_linear() -> None:
    _seeded()
    hours = torch.from_numpy(_chart_hours())[..., None]  # float64
    periodic = nn.Linear(1, 15).to(bf16)
    torch.sin(periodic(hours))


def _decay_attention_fp32_weights_matmul_bf16_values() -> None:
    _seeded()
    q = torch.randn(2, 4, _STEPS, 16, dtype=bf16)
    k = torch.randn(2, 4, _STEPS, 16, dtype=bf16)
    v = torch.randn(2, 4, _STEPS, 16, dtype=bf16)
    hours = torch.from_numpy(_chart_hours()).float()
    decay_rate = nn.Parameter(torch.full((4, 1, 1), 0.1))  # learned per head, fp32
    gap = (hours[:, None, :, None] - hours[:, None, None, :]).abs()
    scores = (q @ k.transpose(-2, -1)) / 4.0 - decay_rate * gap  # bf16 + fp32 -> fp32
    weights = scores.softmax(-1)
    torch.matmul(weights, v)


def _decay_bias_baddbmm_fp32() -> None:
    _seeded()
    heads = 4
    q = torch.randn(2 * heads, _STEPS, 16, dtype=bf16)
    k = torch.randn(2 * heads, _STEPS, 16, dtype=bf16)
    hours = torch.from_numpy(_chart_hours()).float().repeat_interleave(heads, 0)
    decay_bias = -0.1 * (hours[:, :, None] - hours[:, None, :]).abs()
    torch.baddbmm(decay_bias, q, k.transpose(1, 2), alpha=0.25)


def _grud_bf16_grucell_fp32_zero_hidden() -> None:
    _seeded()
    cell = nn.GRUCell(2 * _VITALS, 32).to(bf16)
    x_hat = torch.randn(2, _VITALS, dtype=bf16)
    mask = _observed_mask()[:, 0].to(bf16)
    h = torch.zeros(2, 32)  # initial hidden state made without dtype=
    cell(torch.cat([x_hat, mask], -1), h)


def _visit_mha_fp32_time_decay_attn_mask() -> None:
    _seeded()
    visits = torch.randn(2, 5, 32, dtype=bf16)
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    days = torch.tensor([0.0, 3.0, 40.0, 41.0, 200.0])
    decay = -0.05 * (days[:, None] - days[None, :]).abs()  # fp32 additive mask
    attention(visits, visits, visits, attn_mask=decay)


def _sdpa_bf16_queries_fp32_time_keys() -> None:
    _seeded()
    values = torch.randn(2, 4, _STEPS, 16, dtype=bf16)
    hours = torch.from_numpy(_chart_hours()).float()
    freqs = torch.exp(torch.arange(8) * -1.0)
    time_code = torch.cat([torch.sin(hours[..., None] * freqs), torch.cos(hours[..., None] * freqs)], -1)
    keys = values + time_code[:, None]  # bf16 + fp32 -> fp32
    F.scaled_dot_product_attention(values, keys, values)


def _vitals_fp32_into_bf16_layer_norm() -> None:
    _seeded()
    encoder = nn.Sequential(nn.LayerNorm(_VITALS), nn.Linear(_VITALS, 32)).to(bf16)
    standardised = torch.randn(2, _STEPS, _VITALS)  # (x - mean) / std from the training split, fp32
    encoder(standardised)


def _vitals_float64_bf16_conv1d_stem() -> None:
    _seeded()
    rng = np.random.default_rng(2)
    vitals = rng.normal(size=(2, _VITALS, 48))  # hourly-resampled DataFrame .values: float64
    stem = nn.Conv1d(_VITALS, 16, kernel_size=3, padding=1).to(bf16)
    stem(torch.from_numpy(vitals))


def _hourly_mean_scatter_reduce_float64_vitals() -> None:
    hours = _chart_hours(1)[0]
    heart_rate = np.linspace(80.0, 110.0, _STEPS)  # pandas column: float64
    hour_bin = torch.from_numpy(np.floor(hours).astype(np.int64))
    hourly = torch.zeros(int(hours.max()) + 1)
    hourly.scatter_reduce_(0, hour_bin, torch.from_numpy(heart_rate), reduce="mean", include_self=False)


def _icd_recency_weights_fp32_bf16_embedding_bag() -> None:
    _seeded()
    bag = nn.EmbeddingBag(_ICD_VOCAB, 32, mode="sum").to(bf16)
    codes = torch.tensor([12, 407, 1999, 5, 88])
    offsets = torch.tensor([0, 3])
    days_ago = torch.tensor([400.0, 30.0, 2.0, 90.0, 1.0])
    recency = torch.exp(-days_ago / 180.0)  # fp32
    bag(codes, offsets, per_sample_weights=recency)


def _mortality_bf16_sigmoid_bce_fp32_labels() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1)).to(bf16)
    risk = torch.sigmoid(model(torch.randn(4, 32, dtype=bf16))).squeeze(-1)
    labels = torch.tensor([0.0, 1.0, 0.0, 0.0])
    F.binary_cross_entropy(risk, labels)


def _gp_imputation_cholesky_bf16() -> None:
    _seeded()
    hours = torch.from_numpy(_chart_hours(1)[0]).to(bf16)  # the model's dtype
    kernel = torch.exp(-0.5 * (hours[:, None] - hours[None, :]) ** 2 / 4.0)
    kernel = kernel + 1e-2 * torch.eye(_STEPS, dtype=bf16)
    torch.linalg.cholesky(kernel)


def _never_observed_delta_fp16_full() -> None:
    # GRU-D time since last observation, initialised "large" for variables never measured in the stay
    torch.full((2, _VITALS), 1e5, dtype=f16)


def _epoch_ms_charttime_int32() -> None:
    charttimes = [1_700_000_000_000, 1_700_000_360_000, 1_700_003_600_000]  # epoch milliseconds
    torch.tensor(charttimes, dtype=torch.int32)


def _pandas_object_vitals_from_numpy() -> None:
    rows = np.array([[1001, 88.0, "M"], [1002, 104.0, "F"]], dtype=object)  # df.values with the sex column left in
    torch.from_numpy(rows)


def _bf16_mortality_probs_numpy_auroc() -> None:
    _seeded()
    model = nn.Linear(32, 1).to(bf16)
    with torch.no_grad():
        probs = torch.sigmoid(model(torch.randn(8, 32, dtype=bf16))).squeeze(-1)
    probs.numpy()  # for sklearn.metrics.roc_auc_score


def _log_zero_filled_labs_nan_bernoulli() -> None:
    lactate = torch.tensor([[2.1, 0.0, 3.4], [0.0, 0.0, 1.2]])  # missing labs zero-filled before the log transform
    observed = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    features = torch.log(lactate) * observed  # -inf * 0 is NaN
    logit = features.sum(-1) - 1.0
    torch.distributions.Bernoulli(logits=logit).log_prob(torch.tensor([1.0, 0.0]))


def _sqrt_gap_duplicate_timestamps_anomaly() -> None:
    gaps = torch.tensor([[0.0, 0.5, 2.0], [1.0, 0.0, 0.0]], requires_grad=True)  # duplicate chart times give gap 0
    padding = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    with torch.autograd.detect_anomaly():
        (torch.sqrt(gaps) * padding).sum().backward()


def _vital_forecast_bf16_huber_float64_target() -> None:
    _seeded()
    forecaster = nn.Linear(_VITALS, _VITALS)
    history = torch.randn(4, _VITALS)
    with torch.autocast("cpu", dtype=bf16):
        next_hour = forecaster(history)
    target = torch.from_numpy(np.random.default_rng(3).normal(size=(4, _VITALS)))  # float64 from pandas
    F.huber_loss(next_hour, target).backward()


CASES: dict[str, LiveCase] = {
    # in-hospital mortality label (int64 from the admissions table) as the BCE-with-logits target
    "mortality-int64-bce-logits": case(_mortality_int64_bce_logits, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # two-class mortality head given labels from a left merge (NaN, filled, float64) in cross_entropy
    "mortality-float64-after-merge-cross-entropy": case(_mortality_float64_after_merge_cross_entropy, "target_dtype",
                                                        "f64",
        grade="correct", grade_at_freeze="correct"),
    # fraction of each 4-hour window observed: avg_pool1d over the bool missingness mask
    "missingness-bool-avg-pool-observed-fraction": case(_missingness_bool_avg_pool_observed_fraction,
                                                        "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # heart-rate distribution feature by torch.histc of integer monitor readings (int64)
    "heart-rate-int64-histc": case(_heart_rate_int64_histc, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # forward-fill imputation with torch.where on an observed mask made float by astype(float)
    "observed-float-mask-where-impute": case(_observed_float_mask_where_impute, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the whole batch dict cast to bf16, the missingness mask inverted with ~
    "bf16-batch-cast-missing-mask-invert": case(_bf16_batch_cast_missing_mask_invert, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int64 chart-time gaps in minutes turned into hours with div_ in place
    "chart-gap-int64-minutes-div-in-place": case(_chart_gap_int64_minutes_div_in_place, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # chart-time jitter augmentation with randn_like of the int64 minute stamps
    "chart-time-int64-randn-like-jitter": case(_chart_time_int64_randn_like_jitter, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # ICD code ids cached as int16 in numpy, looked up in nn.Embedding
    "icd-codes-int16-embedding": case(_icd_codes_int16_embedding, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # Nelson-Aalen cumulative hazard: deaths per bin by index_add_ of the bool event indicator into fp32 zeros
    "nelson-aalen-bool-events-index-add": case(_nelson_aalen_bool_events_index_add, "indexed_write_dtype", "f32",
                                               "bool",
        grade="correct", grade_at_freeze="correct"),
    # cumulative hazard as bf16 hazards times a bool lower-triangular matrix
    "cumulative-hazard-bool-tril-matmul": case(_cumulative_hazard_bool_tril_matmul, "integer_operand", "bf16",
                                               "bool",
        grade="correct", grade_at_freeze="correct"),
    # Time2Vec on float64 chart hours from pandas through a bf16 Linear
    "time2vec-float64-chart-hours-bf16-linear": case(_time2vec_float64_chart_hours_bf16_linear, "matmul_dtype",
                                                     "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # time-decay attention: an fp32 learned decay promotes the scores, softmax weights @ bf16 values
    "decay-attention-fp32-weights-matmul-bf16-values": case(_decay_attention_fp32_weights_matmul_bf16_values,
                                                            "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # time-decay bias (fp32) added to bf16 q k^T with an explicit baddbmm
    "decay-bias-baddbmm-fp32": case(_decay_bias_baddbmm_fp32, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 GRU-D cell given the fp32 zeros initial hidden state
    "grud-bf16-grucell-fp32-zero-hidden": case(_grud_bf16_grucell_fp32_zero_hidden, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # visit-level bf16 MultiheadAttention with an fp32 time-decay attn_mask over visit days
    "visit-mha-fp32-time-decay-attn-mask": case(_visit_mha_fp32_time_decay_attn_mask, "attn_mask_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SDPA: bf16 queries, keys made fp32 by adding an fp32 continuous-time encoding
    "sdpa-bf16-queries-fp32-time-keys": case(_sdpa_bf16_queries_fp32_time_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # standardised vitals (fp32) into an encoder cast to bf16, LayerNorm first
    "vitals-fp32-into-bf16-layer-norm": case(_vitals_fp32_into_bf16_layer_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # hourly-resampled vitals from DataFrame.values (float64) into a bf16 Conv1d stem
    "vitals-float64-bf16-conv1d-stem": case(_vitals_float64_bf16_conv1d_stem, "conv_weight_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hourly mean heart rate: scatter_reduce_ of float64 pandas values into fp32 hourly bins
    "hourly-mean-scatter-reduce-float64-vitals": case(_hourly_mean_scatter_reduce_float64_vitals,
                                                      "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # recency-weighted ICD bag: fp32 exp(-days/180) weights as per_sample_weights of a bf16 EmbeddingBag
    "icd-recency-weights-fp32-bf16-embedding-bag": case(_icd_recency_weights_fp32_bf16_embedding_bag, "op_dtype",
                                                        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 mortality probabilities against fp32 labels in binary_cross_entropy
    "mortality-bf16-sigmoid-bce-fp32-labels": case(_mortality_bf16_sigmoid_bce_fp32_labels, "op_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Gaussian-process imputation of irregular vitals: Cholesky of a bf16 RBF kernel over chart hours
    "gp-imputation-cholesky-bf16": case(_gp_imputation_cholesky_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GRU-D time-since-observed initialised to 1e5 hours with torch.full in fp16
    "never-observed-delta-fp16-full": case(_never_observed_delta_fp16_full, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # epoch-millisecond chart times put in an int32 tensor
    "epoch-ms-charttime-int32": case(_epoch_ms_charttime_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # DataFrame.values with a string column left in (object array) into torch.from_numpy
    "pandas-object-vitals-from-numpy": case(_pandas_object_vitals_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 mortality probabilities handed to numpy for sklearn's AUROC
    "bf16-mortality-probs-numpy-auroc": case(_bf16_mortality_probs_numpy_auroc, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # log of zero-filled missing lactate times the observed mask: NaN logits reach Bernoulli's check
    "log-zero-filled-labs-nan-bernoulli": case(_log_zero_filled_labs_nan_bernoulli, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # sqrt of time gaps with duplicate chart times (gap 0) masked by padding: anomaly mode finds NaN in backward
    "sqrt-gap-duplicate-timestamps-anomaly": case(_sqrt_gap_duplicate_timestamps_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # next-hour vital forecast under bf16 autocast, Huber loss against float64 pandas targets, backward
    "vital-forecast-bf16-huber-float64-target": case(_vital_forecast_bf16_huber_float64_target, "loss_dtype", "f64",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
}
