"""Held-out live set 64: healthcare and survival models written by hand in low precision (Cox partial-likelihood losses
with risk sets, censoring indicators as bool/uint8, DeepHit and logistic-hazard discrete-time models, time-to-event
bins, EHR visit sequences of ICD/medication code ids with padding, irregular time deltas, lab values with missing-value
masks, calibration and concordance computed in torch, class-imbalance weights). Defects planted by a helper who never
read the rules, written before castwise ran and graded once with the rules frozen at 419d76c."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "419d76c"

bf16, f16 = torch.bfloat16, torch.float16
_PATIENTS = 8
_COVARIATES = 6
_BINS = 10  # discrete time bins for DeepHit / logistic hazard (months of follow-up)
_CODES = 500  # ICD-10 + ATC vocabulary, id 0 is padding
_LABS = 5  # creatinine, sodium, potassium, haemoglobin, lactate


def _seeded() -> None:
    torch.manual_seed(0)


def _cohort() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Covariates, follow-up times in days and the event indicator (True: died, False: censored)."""
    x = torch.randn(_PATIENTS, _COVARIATES)
    times = torch.tensor([120.0, 45.0, 300.0, 90.0, 210.0, 30.0, 365.0, 150.0])
    events = torch.tensor([True, True, False, True, False, True, False, True])
    return x, times, events


def _visits(batch: int = 2, visits: int = 4, codes: int = 3) -> torch.Tensor:
    """Padded EHR visits: code ids per visit per patient (0 is padding)."""
    ids = torch.randint(1, _CODES, (batch, visits, codes))
    ids[0, 3] = 0  # the first patient has only three visits
    ids[:, :, 2] = torch.where(torch.rand(batch, visits) > 0.5, ids[:, :, 2], 0)
    return ids


# --- Cox partial likelihood and risk sets


def _cox_risk_set_bool_matmul() -> None:
    _seeded()
    x, times, events = _cohort()
    log_h = nn.Linear(_COVARIATES, 1)(x).squeeze(-1)
    risk_set = times[None, :] >= times[:, None]  # R[i, j]: patient j still at risk at patient i's time
    denominator = risk_set @ torch.exp(log_h)
    -((log_h - torch.log(denominator)) * events).sum() / events.sum()


def _cox_censored_uint8_masked_fill() -> None:
    _seeded()
    x, times, _ = _cohort()
    events = torch.from_numpy(np.array([1, 1, 0, 1, 0, 1, 0, 1], dtype=np.uint8))  # the registry's death flag column
    order = times.argsort(descending=True)
    log_h = nn.Linear(_COVARIATES, 1)(x[order]).squeeze(-1)
    partial = log_h - torch.logcumsumexp(log_h, 0)
    censored = 1 - events[order]
    -partial.masked_fill(censored, 0.0).sum()


def _cox_clinical_score_logcumsumexp() -> None:
    _, times, events = _cohort()
    score = torch.tensor([3, 5, 1, 4, 2, 6, 0, 3])  # CHA2DS2-VASc points as the baseline's linear predictor
    order = times.argsort(descending=True)
    score, events = score[order], events[order]
    baseline_nll = -(score - torch.logcumsumexp(score, 0))[events].mean()
    baseline_nll.item()


def _cox_newton_step_solve_bf16() -> None:
    _seeded()
    x, times, events = _cohort()
    x = x.to(bf16)  # the covariate matrix cached in the model's dtype
    beta = torch.zeros(_COVARIATES, dtype=bf16)
    order = times.argsort(descending=True)
    x, events = x[order], events[order]
    w = torch.exp(x @ beta)
    cum_w = torch.cumsum(w, 0)
    x_bar = torch.cumsum(w[:, None] * x, 0) / cum_w[:, None]
    gradient = ((x - x_bar) * events[:, None]).sum(0)
    hessian = (x_bar[:, :, None] * x_bar[:, None, :] * events[:, None, None]).sum(0) + 0.1 * torch.eye(
        _COVARIATES, dtype=bf16)
    beta + torch.linalg.solve(hessian, gradient)


def _cox_fp16_unscaled_labs_anomaly() -> None:
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(_LABS, 16), nn.ReLU(), nn.Linear(16, 1)).half()
    # raw creatinine (umol/L), sodium, potassium, haemoglobin (g/L), lactate: never standardised
    labs = torch.tensor([[88.0, 140.0, 4.1, 135.0, 1.2], [410.0, 128.0, 5.9, 92.0, 6.5], [76.0, 138.0, 3.9, 150.0, 0.9],
                         [265.0, 131.0, 5.2, 101.0, 3.8], [102.0, 141.0, 4.4, 128.0, 1.6], [530.0, 125.0, 6.3, 84.0, 8.1],
                         [95.0, 139.0, 4.0, 142.0, 1.1], [180.0, 134.0, 4.8, 115.0, 2.7]], dtype=f16)
    _, times, events = _cohort()
    order = times.argsort(descending=True)
    log_h = model(labs[order]).squeeze(-1)
    loss = -(log_h - torch.log(torch.cumsum(torch.exp(log_h), 0)))[events[order]].mean()
    with torch.autograd.detect_anomaly():
        loss.backward()


def _breslow_baseline_hazard_scatter_add_bf16() -> None:
    _seeded()
    x, times, events = _cohort()
    model = nn.Linear(_COVARIATES, 1).to(bf16)
    risk = torch.exp(model(x.to(bf16)).squeeze(-1))
    day_bins = torch.bucketize(times, torch.tensor([60.0, 120.0, 180.0, 240.0, 300.0]))
    risk_per_bin = torch.zeros(6).scatter_add_(0, day_bins, risk)
    deaths_per_bin = torch.zeros(6).scatter_add_(0, day_bins, events.float())
    deaths_per_bin / risk_per_bin.flip(0).cumsum(0).flip(0)


def _shared_frailty_gamma_bf16() -> None:
    _seeded()
    log_theta = torch.full((), -1.0, dtype=bf16, requires_grad=True)  # frailty log-variance, in the model's bf16
    theta = torch.exp(log_theta)
    hospitals = 4
    frailty = torch.distributions.Gamma(1 / theta * torch.ones(hospitals, dtype=bf16),
                                        1 / theta * torch.ones(hospitals, dtype=bf16)).rsample()
    frailty.log()


# --- discrete-time models: DeepHit, logistic hazard, MTLR


def _deephit_gather_float_bins() -> None:
    _seeded()
    x, times, events = _cohort()
    pmf = nn.Linear(_COVARIATES, _BINS + 1)(x).softmax(-1)
    bins = torch.floor(times / 365.0 * _BINS)  # month-ish bin of each patient's event or censoring time
    observed = pmf.gather(1, bins[:, None]).squeeze(1)
    survival_after = 1 - pmf.cumsum(1).gather(1, bins[:, None]).squeeze(1)
    -torch.where(events, observed.log(), survival_after.log()).mean()


def _logistic_hazard_bce_bool_targets() -> None:
    _seeded()
    x, times, events = _cohort()
    bins = torch.bucketize(times, torch.linspace(0, 365, _BINS + 1)[1:-1])
    hazard_logits = nn.Linear(_COVARIATES, _BINS)(x)
    at_risk = torch.arange(_BINS)[None, :] <= bins[:, None]
    died_here = (torch.arange(_BINS)[None, :] == bins[:, None]) & events[:, None]
    F.binary_cross_entropy_with_logits(hazard_logits[at_risk], died_here[at_risk])


def _mtlr_triangular_matrix_fp32() -> None:
    _seeded()
    model = nn.Linear(_COVARIATES, _BINS).to(bf16)
    x, _, _ = _cohort()
    logits = model(x.to(bf16))
    cumulative = torch.tril(torch.ones(_BINS, _BINS))  # MTLR's fixed G matrix, made in forward: fp32
    (logits @ cumulative).softmax(-1)


def _time_bin_ce_inverse_frequency_weights() -> None:
    _seeded()
    counts = torch.tensor([40, 25, 18, 11, 7, 5, 4, 3, 2, 1], dtype=torch.float32)  # deaths per month bin
    weights = counts.sum() / (counts * _BINS)
    head = nn.Linear(16, _BINS).to(bf16)
    logits = head(torch.randn(_PATIENTS, 16, dtype=bf16))
    F.cross_entropy(logits, torch.tensor([0, 1, 0, 3, 2, 0, 5, 1]), weight=weights)


def _aft_log_time_huber_backward() -> None:
    _seeded()
    x, times, events = _cohort()
    model = nn.Linear(_COVARIATES, 1)
    with torch.autocast("cpu", dtype=bf16):
        log_t = model(x).squeeze(-1)
    F.huber_loss(log_t[events], torch.log(times[events]), delta=0.5).backward()


def _deepsurv_fp16_grad_scaler() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(_COVARIATES, 16), nn.ReLU(), nn.Linear(16, 1)).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x, times, events = _cohort()
    order = times.argsort(descending=True)
    log_h = model(x[order].half()).float().squeeze(-1)
    loss = -(log_h - torch.logcumsumexp(log_h, 0))[events[order]].mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)


# --- evaluation: concordance, Kaplan-Meier, calibration


def _harrell_c_float_event_column() -> None:
    _seeded()
    x, times, _ = _cohort()
    events = torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0])  # the event column as the CSV loader gives it
    risk = nn.Linear(_COVARIATES, 1)(x).squeeze(-1).detach()
    comparable = (times[:, None] < times[None, :]) & events[:, None]
    concordant = comparable & (risk[:, None] > risk[None, :])
    concordant.sum() / comparable.sum()


def _harrell_c_bool_mean() -> None:
    _seeded()
    x, times, events = _cohort()
    risk = nn.Linear(_COVARIATES, 1).to(bf16)(x.to(bf16)).squeeze(-1).detach()
    comparable = (times[:, None] < times[None, :]) & events[:, None]
    concordant = risk[:, None] > risk[None, :]
    concordant[comparable].mean()


def _kaplan_meier_hazard_in_place() -> None:
    _, times, events = _cohort()
    event_days, inverse = torch.unique(times, return_inverse=True)
    deaths = torch.zeros(len(event_days), dtype=torch.long).index_add_(0, inverse, events.long())
    at_risk = (times[None, :] >= event_days[:, None]).sum(1)
    hazard = deaths
    hazard /= at_risk
    torch.cumprod(1 - hazard, 0)


def _calibration_deciles_quantile_bf16() -> None:
    _seeded()
    model = nn.Linear(_COVARIATES, 1).to(bf16)
    x = torch.randn(200, _COVARIATES, dtype=bf16)
    predicted_risk = torch.sigmoid(model(x)).squeeze(-1).detach()
    edges = torch.quantile(predicted_risk, torch.linspace(0, 1, 11, dtype=bf16))
    torch.bucketize(predicted_risk, edges[1:-1])


def _risk_scores_bf16_to_numpy_for_lifelines() -> None:
    _seeded()
    x, times, events = _cohort()
    model = nn.Linear(_COVARIATES, 1).to(bf16)
    with torch.no_grad():
        risk = model(x.to(bf16)).squeeze(-1)
    # lifelines.utils.concordance_index(times, -risk, events) wants numpy arrays
    (times.numpy(), -risk.numpy(), events.numpy())


# --- EHR visit sequences: codes, padding, time deltas


def _icd_codes_float64_from_pandas_embedding() -> None:
    _seeded()
    # a wide dataframe of code ids per visit, NaN-padded and filled with 0: pandas keeps the columns float64
    codes = np.array([[12.0, 407.0, 88.0], [5.0, 0.0, 0.0], [301.0, 12.0, 0.0]])
    embed = nn.Embedding(_CODES, 32, padding_idx=0)
    embed(torch.from_numpy(codes)).sum(1)


def _retain_visit_gru_bf16_embeddings() -> None:
    _seeded()
    embed = nn.Embedding(_CODES, 32, padding_idx=0).to(bf16)
    alpha_rnn = nn.GRU(32, 32, batch_first=True)  # RETAIN's visit-level attention RNN left fp32
    visits = embed(_visits()).sum(2)
    alpha_rnn(visits.flip(1))


def _retain_context_einsum_fp32_alpha() -> None:
    _seeded()
    visits = torch.randn(2, 4, 32, dtype=bf16)  # bf16 visit embeddings
    alpha_head = nn.Linear(32, 1)  # kept fp32 "for a stable softmax"
    alpha = alpha_head(visits.float()).squeeze(-1).softmax(-1)
    beta = torch.tanh(visits)
    torch.einsum("btd,bt->bd", beta * visits, alpha)


def _dipole_attention_bmm_fp32_query() -> None:
    _seeded()
    hidden = torch.randn(2, 4, 32, dtype=bf16)  # bf16 BiGRU states over visits
    query = torch.randn(2, 32, 1)  # location-based attention vector created per call: fp32
    scores = torch.bmm(hidden, query).squeeze(-1)
    scores.softmax(-1)


def _padded_visit_tensor_index_put_bf16() -> None:
    _seeded()
    visit_embeddings = torch.randn(7, 32, dtype=bf16)  # the bf16 encoder's output, one row per visit
    patient = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    position = torch.tensor([0, 1, 2, 0, 1, 2, 3])
    padded = torch.zeros(2, 4, 32)
    padded[patient, position] = visit_embeddings


def _visit_time_bias_float64_sdpa() -> None:
    _seeded()
    visit_days = np.array([0.0, 3.0, 40.0, 41.0])  # days since admission, from the timestamp column
    gaps = np.abs(visit_days[:, None] - visit_days[None, :])
    time_bias = torch.from_numpy(-np.log1p(gaps))  # nearer visits attend more
    q = k = v = torch.randn(1, 2, 4, 16)
    F.scaled_dot_product_attention(q, k, v, attn_mask=time_bias)


def _irregular_deltas_from_datetime64() -> None:
    admissions = np.array(["2021-01-04", "2021-02-17", "2021-06-30", "2022-01-11"], dtype="datetime64[D]")
    deltas = torch.from_numpy(np.diff(admissions, prepend=admissions[:1]))
    torch.log1p(deltas.float())


# --- lab values and missingness (GRU-D), static features, ECG


def _grud_mask_complement_bool() -> None:
    _seeded()
    labs = torch.randn(2, 6, _LABS)
    observed = torch.rand(2, 6, _LABS) > 0.4  # True where the lab was measured
    lab_mean = labs.nanmean(dim=(0, 1))
    observed * labs + (1 - observed) * lab_mean


def _grud_decay_imputation_lerp_float64_mean() -> None:
    _seeded()
    train_labs = np.random.default_rng(0).normal(size=(100, _LABS))
    lab_mean = torch.from_numpy(train_labs.mean(0))  # empirical means, float64 from numpy
    last_observed = torch.randn(2, _LABS, dtype=bf16)
    delta = torch.rand(2, _LABS, dtype=bf16) * 48  # hours since each lab was last measured
    gamma = torch.exp(-torch.relu(nn.Linear(_LABS, _LABS).to(bf16)(delta)))
    torch.lerp(lab_mean, last_observed, gamma)


def _missing_labs_sentinel_fp16() -> None:
    _seeded()
    labs = torch.randn(2, 6, _LABS).half()
    missing = torch.rand(2, 6, _LABS) > 0.7
    labs.masked_fill(missing, -99999.0)  # the sentinel the SAS export used for "not measured"


def _static_features_bf16_batchnorm() -> None:
    _seeded()
    static = nn.Sequential(nn.BatchNorm1d(4), nn.Linear(4, 16)).to(bf16)
    age_sex_bmi_egfr = torch.tensor([[67.0, 1.0, 27.4, 58.0], [45.0, 0.0, 31.2, 92.0], [80.0, 1.0, 22.9, 35.0]])
    static(age_sex_bmi_egfr)


def _ecg_int16_digital_signal_conv1d() -> None:
    _seeded()
    # WFDB's d_signal: 12-lead ECG in ADC units, int16
    ecg = torch.from_numpy(np.random.default_rng(0).integers(-2048, 2048, size=(1, 12, 500), dtype=np.int16))
    stem = nn.Conv1d(12, 32, kernel_size=15, stride=2, padding=7)
    stem(ecg)


CASES: dict[str, LiveCase] = {
    # Cox loss: the bool risk-set matrix multiplied with exp(log-hazard) to get each risk set's denominator
    "cox-risk-set-bool-matmul": case(_cox_risk_set_bool_matmul, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Cox loss: the censoring mask made as 1 - uint8 death flag, given to masked_fill
    "cox-censored-uint8-masked-fill": case(_cox_censored_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # Cox baseline: a clinical points score (int64) as linear predictor through logcumsumexp
    "cox-clinical-score-int64-logcumsumexp": case(_cox_clinical_score_logcumsumexp, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a linear Cox model fitted by Newton-Raphson with linalg.solve on a bf16 Hessian
    "cox-newton-solve-bf16-hessian": case(_cox_newton_step_solve_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 DeepSurv on unstandardised lab values: exp(log-hazard) overflows, anomaly mode finds NaN in backward
    "cox-fp16-raw-labs-anomaly-nan": case(_cox_fp16_unscaled_labs_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # Breslow baseline hazard: bf16 exp(risk) scatter_add'ed into fp32 per-bin sums
    "breslow-risk-scatter-add-bf16": case(_breslow_baseline_hazard_scatter_add_bf16, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # shared gamma frailty per hospital sampled with rsample from bf16 parameters
    "frailty-gamma-rsample-bf16": case(_shared_frailty_gamma_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DeepHit likelihood: pmf gathered at time bins computed with floor (float)
    "deephit-gather-float-time-bins": case(_deephit_gather_float_bins, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # logistic-hazard (nnet-survival) loss with the bool "died in this bin" grid as the BCE target
    "logistic-hazard-bce-bool-targets": case(_logistic_hazard_bce_bool_targets, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # MTLR: bf16 logits times the fixed lower-triangular matrix built in forward in fp32
    "mtlr-bf16-logits-fp32-triangular": case(_mtlr_triangular_matrix_fp32, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # time-bin classifier: fp32 inverse-frequency class weights with bf16 logits in cross_entropy
    "time-bin-ce-fp32-class-weights": case(_time_bin_ce_inverse_frequency_weights, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # AFT regression of log survival time: bf16 autocast output, Huber loss against fp32 targets, backward
    "aft-log-time-huber-bf16-backward": case(_aft_log_time_huber_backward, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 DeepSurv trained with GradScaler on the CPU
    "deepsurv-fp16-grad-scaler": case(_deepsurv_fp16_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Harrell's C in torch with the event column as float 0/1, combined with `&`
    "harrell-c-float-events-and": case(_harrell_c_float_event_column, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Harrell's C as the mean of the bool concordant pairs
    "harrell-c-bool-concordant-mean": case(_harrell_c_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Kaplan-Meier: int64 death counts divided in place by the numbers at risk
    "kaplan-meier-hazard-int64-in-place-div": case(_kaplan_meier_hazard_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # calibration deciles of a bf16 model's predicted risk by torch.quantile
    "calibration-deciles-quantile-bf16": case(_calibration_deciles_quantile_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # bf16 risk scores turned to numpy for lifelines' concordance_index
    "risk-scores-bf16-numpy-lifelines": case(_risk_scores_bf16_to_numpy_for_lifelines, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ICD code ids from a NaN-padded pandas frame (float64) looked up in nn.Embedding
    "icd-codes-float64-embedding": case(_icd_codes_float64_from_pandas_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # RETAIN: bf16 visit embeddings into the fp32 visit-attention GRU
    "retain-bf16-visits-fp32-gru": case(_retain_visit_gru_bf16_embeddings, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RETAIN context vector: einsum of bf16 visit terms with fp32 attention weights
    "retain-context-einsum-fp32-alpha": case(_retain_context_einsum_fp32_alpha, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Dipole location attention: bf16 visit states bmm'd with an fp32 query made per call
    "dipole-attention-bmm-fp32-query": case(_dipole_attention_bmm_fp32_query, "batched_matmul_dtype", "bf16",
                                            "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 visit embeddings scattered into an fp32 padded (patient, visit) tensor by advanced indexing
    "padded-visits-index-put-bf16": case(_padded_visit_tensor_index_put_bf16, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a time-decay attention bias over visits from numpy (float64) as SDPA's float mask with fp32 queries
    "visit-time-bias-float64-sdpa": case(_visit_time_bias_float64_sdpa, "attn_mask_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # irregular visit gaps from numpy datetime64 admissions: timedelta64 into torch.from_numpy
    "visit-gaps-timedelta64-from-numpy": case(_irregular_deltas_from_datetime64, "numpy_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (419d76c) castwise gave nothing. torch.from_numpy refused an array of numpy's timedelta64, a "
             "numpy dtype with no torch counterpart (irregular visit gaps taken by np.diff of datetime64 admission "
             "dates); the rules had no reading of this refusal, whose fix turns the gaps into numbers first "
             "(np.diff(...) / np.timedelta64(1, 'D') or .astype(np.int64)) before torch sees them.")),
    # GRU-D input: the bool observed mask complemented with 1 - mask
    "grud-observed-mask-one-minus-bool": case(_grud_mask_complement_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # GRU-D decay imputation: lerp from the float64 empirical lab means toward bf16 last observations
    "grud-decay-lerp-float64-means": case(_grud_decay_imputation_lerp_float64_mean, "lerp_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # missing fp16 lab values filled with the export's -99999 sentinel
    "missing-labs-sentinel-fp16": case(_missing_labs_sentinel_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # static features (age, sex, BMI, eGFR) in fp32 into a bf16 BatchNorm1d
    "static-features-bf16-batchnorm": case(_static_features_bf16_batchnorm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a 12-lead ECG read as WFDB's int16 digital signal into a float Conv1d stem
    "ecg-int16-digital-signal-conv1d": case(_ecg_int16_digital_signal_conv1d, "integer_operand", "int16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
