"""Held-out live set 177: insurance and credit-risk scoring written by hand in low precision (int64 policy and customer
ids, float64 columns from pandas, bool default flags, uint8 categorical codes, fp16 MLPs, bf16 attention over claim
histories, credibility weighting, scorecards per segment, portfolio loss simulation). Defects planted by a helper who
never read the rules, written before castwise ran and graded once with the rules frozen at 9f23f2d7."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "9f23f2d7"

bf16, f16 = torch.bfloat16, torch.float16
_N_BROKERS = 40
_N_VEHICLE_CLASSES = 12
_N_GRADES = 7  # internal rating grades AAA..CCC
_FEATURES = 16
_HISTORY = 10  # claims kept per policy


def _seeded() -> None:
    torch.manual_seed(0)


def _pandas_features(rows: int = 8) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.normal(size=(rows, _FEATURES))  # float64, as df[cols].to_numpy() gives


def _pd_mlp(dtype: torch.dtype) -> nn.Sequential:
    _seeded()
    return nn.Sequential(nn.Linear(_FEATURES, 32), nn.ReLU(), nn.Linear(32, 1)).to(dtype)


# ---- integer, bool, index, mask and target defects ----

def _broker_code_float_after_merge_embedding() -> None:
    _seeded()
    broker = np.array([3.0, 17.0, np.nan, 8.0])  # left merge on the broker table: missing broker makes the column float
    broker = np.nan_to_num(broker, nan=0.0)
    nn.Embedding(_N_BROKERS, 8)(torch.from_numpy(broker))


def _vehicle_class_uint8_codes_embedding() -> None:
    _seeded()
    codes = np.array([0, 4, 11, 4, 2], dtype=np.uint8)  # df["vehicle_class"].cat.codes for 12 classes
    nn.Embedding(_N_VEHICLE_CLASSES, 4)(torch.from_numpy(codes))


def _default_flag_bool_bce_target() -> None:
    _seeded()
    pd_hat = torch.sigmoid(_pd_mlp(torch.float32)(torch.randn(6, _FEATURES))).squeeze(1)
    defaulted = torch.tensor([False, False, True, False, True, False])  # df["default_12m"] is a bool column
    F.binary_cross_entropy(pd_hat, defaulted)


def _rating_grade_int32_cross_entropy() -> None:
    _seeded()
    logits = torch.randn(5, _N_GRADES)
    grades = torch.from_numpy(np.array([0, 3, 6, 2, 2], dtype=np.int32))  # grades mapped with .astype("int32")
    F.cross_entropy(logits, grades)


def _last_claim_position_float64_gather() -> None:
    _seeded()
    history = torch.randn(4, _HISTORY)
    n_claims = torch.from_numpy(np.array([3.0, 10.0, 1.0, 6.0]))  # claim counts after reindex().fillna(0): float64
    torch.gather(history, 1, (n_claims - 1)[:, None])


def _exposure_float_mask_masked_fill() -> None:
    exposure = np.array([1.0, 0.0, 0.5, 0.0, 0.25])  # policy-years in force
    in_force = torch.from_numpy((exposure > 0).astype(float))  # astype(float) "to be safe"
    frequency = torch.tensor([0.1, 0.2, 0.05, 0.3, 0.12])
    frequency.masked_fill(in_force, 0.0)


def _reject_inference_negated_bool_default() -> None:
    defaulted = torch.tensor([True, False, False, True])
    accepted_sign = -defaulted  # parcelling: flip the sign of the known outcomes
    accepted_sign.sum()


def _payment_history_int64_days_past_due_conv1d() -> None:
    _seeded()
    dpd = torch.tensor([[0, 0, 30, 60, 90, 0, 0, 30, 0, 0, 0, 0]])  # days past due for each of 12 months
    nn.Conv1d(1, 4, kernel_size=3, padding=1)(dpd[:, None])


def _claim_frequency_counts_div_in_place() -> None:
    claim_counts = torch.tensor([0, 2, 1, 0, 3])
    exposure = torch.tensor([1.0, 0.5, 1.0, 0.25, 1.0])
    claim_counts.div_(exposure)


def _policy_id_table_index_put_int32() -> None:
    policy_ids = torch.zeros(6, dtype=torch.int64)
    renewed = torch.from_numpy(np.array([900112, 900233], dtype=np.int32))  # ids read by a legacy CSV reader
    policy_ids[torch.tensor([1, 4])] = renewed


def _bureau_flags_uint8_fp16_mlp() -> None:
    _seeded()
    flags = torch.from_numpy(np.random.default_rng(0).integers(0, 2, size=(4, _FEATURES), dtype=np.uint8))
    _pd_mlp(f16)(flags)


# ---- floating dtypes meeting, overflow, kernels, numpy, gradients ----

def _pandas_float64_features_fp16_pd_mlp() -> None:
    _pd_mlp(f16)(torch.from_numpy(_pandas_features()))


def _fp16_mlp_layernorm_fp32_input() -> None:
    _seeded()
    scorer = nn.Sequential(nn.LayerNorm(_FEATURES), nn.Linear(_FEATURES, 1)).half()
    scorer(torch.randn(4, _FEATURES))


def _claim_history_gru_bf16_fp32_embeddings() -> None:
    _seeded()
    claim_type = nn.Embedding(20, 8)
    gru = nn.GRU(8, 16, batch_first=True).to(bf16)
    gru(claim_type(torch.randint(0, 20, (3, _HISTORY))))


def _sum_insured_full_fp16() -> None:
    torch.full((4,), 250_000.0, dtype=f16)  # default sum insured for the policies missing one


def _claim_history_fp16_attention_masked_fill_big_negative() -> None:
    _seeded()
    scores = torch.randn(2, _HISTORY, _HISTORY, dtype=f16)
    padding = torch.zeros(2, 1, _HISTORY, dtype=torch.bool)
    padding[:, :, 7:] = True
    scores.masked_fill(padding, -1e9).softmax(-1)


def _bf16_pd_estimates_to_numpy_scorecard_export() -> None:
    _seeded()
    with torch.no_grad():
        pd_hat = torch.sigmoid(_pd_mlp(bf16)(torch.randn(4, _FEATURES, dtype=bf16)))
    np.round(pd_hat.numpy() * 1000)


def _portfolio_copula_cholesky_fp16() -> None:
    _seeded()
    sectors = 4
    rho = torch.full((sectors, sectors), 0.2) + 0.8 * torch.eye(sectors)
    torch.linalg.cholesky(rho.half())  # correlated sector factors for the credit-loss Monte Carlo


def _buhlmann_credibility_lerp_bf16_experience() -> None:
    _seeded()
    manual_rate = torch.tensor([0.08, 0.12, 0.05])
    experience = (torch.rand(3) * 0.2).to(bf16)  # observed loss cost from the bf16 scorer
    credibility = torch.tensor([0.3, 0.7, 0.5])
    torch.lerp(manual_rate, experience, credibility)


def _claim_amounts_float64_index_add_per_policy() -> None:
    totals = torch.zeros(3)
    policy_index = torch.tensor([0, 2, 2, 1])
    paid = torch.from_numpy(np.array([1200.5, 340.0, 89.9, 5600.0]))  # df["paid"] is float64
    totals.index_add_(0, policy_index, paid)


def _segment_scorecards_bmm_bf16_fp32() -> None:
    _seeded()
    segments = 3
    weights = torch.randn(segments, _FEATURES, 1).to(bf16)  # one logistic scorecard per segment, cast for speed
    applicants = torch.randn(segments, 5, _FEATURES)
    torch.bmm(applicants, weights)


def _exposure_weighted_loss_cost_einsum() -> None:
    _seeded()
    exposure = torch.from_numpy(np.array([1.0, 0.5, 0.75, 1.0]))  # float64 policy-years
    loss_cost = torch.rand(4, 3)  # per coverage, fp32 from the model
    torch.einsum("p,pc->c", exposure, loss_cost)


def _repayment_conv1d_bf16_fp32_input() -> None:
    _seeded()
    encoder = nn.Conv1d(3, 8, kernel_size=3, padding=1).to(bf16)
    encoder(torch.randn(2, 3, 12))  # balance, payment, utilisation over 12 months


def _claim_history_sdpa_bf16_query_fp32_keys() -> None:
    _seeded()
    query = torch.randn(2, 1, 1, 16, dtype=bf16)  # the policy's current state
    claims = torch.randn(2, 1, _HISTORY, 16)  # claim encodings cached in fp32
    F.scaled_dot_product_attention(query, claims, claims)


def _claim_history_sdpa_bf16_numpy_additive_mask() -> None:
    _seeded()
    q = torch.randn(2, 2, _HISTORY, 8, dtype=bf16)
    recency = np.arange(_HISTORY)
    bias = torch.from_numpy(-np.abs(recency[None, :] - recency[:, None]) * 0.1)  # recency decay built in numpy
    F.scaled_dot_product_attention(q, q, q, attn_mask=bias)


def _customer_product_bilinear_float64() -> None:
    _seeded()
    customer = torch.from_numpy(_pandas_features(4)[:, :8])
    product = torch.randn(4, 6)
    nn.Bilinear(8, 6, 1)(customer, product)


def _fp16_pd_mlp_grad_scaler_cpu() -> None:
    _seeded()
    model = _pd_mlp(f16)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(8, _FEATURES, dtype=f16)
    y = torch.randint(0, 2, (8, 1)).to(f16)
    loss = F.binary_cross_entropy_with_logits(model(x).float(), y.float())
    scaler.scale(loss).backward()
    scaler.step(optimiser)


def _fp32_grads_assigned_to_fp16_mlp() -> None:
    _seeded()
    model = _pd_mlp(f16)
    for parameter in model.parameters():
        parameter.grad = torch.zeros_like(parameter, dtype=torch.float32)  # averaged across folds in fp32


def _fp16_unscaled_premium_bernoulli_nan_logits() -> None:
    premium = torch.tensor([450.0, 1200.0, 70000.0, 980.0], dtype=f16)  # 70000 becomes inf in fp16
    z = (premium - premium.mean()) / premium.std()
    torch.distributions.Bernoulli(logits=z.float())


def _lapse_bce_fp16_probs_fp32_labels() -> None:
    _seeded()
    probs = torch.sigmoid(torch.randn(6, dtype=f16))
    lapsed = torch.tensor([0.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    F.binary_cross_entropy(probs, lapsed)


CASES: dict[str, LiveCase] = {
    # broker code column made float64 by a left merge (NaN filled with 0) looked up in nn.Embedding
    "broker-code-f64-after-merge-embedding": case(_broker_code_float_after_merge_embedding, "index_tensor_dtype",
                                                  "f64",
        grade="correct", grade_at_freeze="correct"),
    # vehicle-class category codes (uint8) from pandas looked up in nn.Embedding
    "vehicle-class-uint8-codes-embedding": case(_vehicle_class_uint8_codes_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # 12-month default flag as a bool column used as binary_cross_entropy's target
    "default-flag-bool-bce-target": case(_default_flag_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # rating grades mapped to int32 as cross_entropy's target
    "rating-grade-int32-cross-entropy": case(_rating_grade_int32_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # the last claim of each policy picked by gather with float64 claim counts after a reindex
    "last-claim-f64-counts-gather": case(_last_claim_position_float64_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # in-force mask made float64 by astype(float), used in masked_fill
    "in-force-f64-mask-masked-fill": case(_exposure_float_mask_masked_fill, "mask_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # reject inference: the bool default flags negated with unary minus
    "reject-inference-negate-bool-default": case(_reject_inference_negated_bool_default, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int64 days-past-due history fed to an fp32 Conv1d
    "days-past-due-int64-conv1d": case(_payment_history_int64_days_past_due_conv1d, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # claim frequency by dividing the int64 claim counts in place by the float exposure
    "claim-counts-int64-div-in-place-exposure": case(_claim_frequency_counts_div_in_place, "result_cast", "f32",
                                                     "int64",
        grade="correct", grade_at_freeze="correct"),
    # renewed policy ids (int32 from a legacy reader) index_put_ into the int64 policy id table
    "policy-ids-int32-index-put-int64-table": case(_policy_id_table_index_put_int32, "indexed_write_dtype", "int64",
                                                   "int32",
        grade="correct", grade_at_freeze="correct"),
    # 0/1 credit-bureau flags kept uint8 straight into the fp16 PD MLP
    "bureau-flags-uint8-fp16-mlp": case(_bureau_flags_uint8_fp16_mlp, "matmul_dtype", "uint8", "f16",
        grade="correct", grade_at_freeze="correct"),
    # float64 pandas features into the PD MLP halved with .half()
    "pandas-f64-features-fp16-pd-mlp": case(_pandas_float64_features_fp16_pd_mlp, "matmul_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a scorer halved whole, its leading LayerNorm given fp32 features
    "fp16-scorer-layernorm-fp32-input": case(_fp16_mlp_layernorm_fp32_input, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # claim-history GRU cast to bf16, fed the fp32 claim-type embeddings
    "claim-history-gru-bf16-fp32-embeddings": case(_claim_history_gru_bf16_fp32_embeddings, "rnn_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # default sum insured of 250,000 filled in fp16 with torch.full
    "sum-insured-250k-full-fp16": case(_sum_insured_full_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 attention over padded claim histories masked with -1e9
    "claim-history-fp16-masked-fill-minus-1e9": case(_claim_history_fp16_attention_masked_fill_big_negative,
                                                     "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 PD estimates turned to numpy for the scorecard points export
    "pd-estimates-bf16-numpy-scorecard-export": case(_bf16_pd_estimates_to_numpy_scorecard_export, "numpy_dtype",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # sector correlation matrix halved before linalg.cholesky for the credit-loss Monte Carlo
    "portfolio-copula-cholesky-fp16": case(_portfolio_copula_cholesky_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Buhlmann credibility: fp32 manual rate lerp'ed toward bf16 experience
    "buhlmann-credibility-lerp-bf16-experience": case(_buhlmann_credibility_lerp_bf16_experience, "lerp_dtype",
                                                      "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 paid claim amounts index_add_'ed into fp32 per-policy totals
    "paid-claims-f64-index-add-policy-totals": case(_claim_amounts_float64_index_add_per_policy,
                                                    "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # one scorecard per segment, weights cast to bf16, torch.bmm'd with fp32 applicants
    "segment-scorecards-bmm-bf16-weights": case(_segment_scorecards_bmm_bf16_fp32, "batched_matmul_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # exposure-weighted loss cost: float64 exposure einsum'd with fp32 loss costs
    "exposure-weighted-loss-cost-einsum-f64": case(_exposure_weighted_loss_cost_einsum, "matmul_dtype", "f64",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # repayment-behaviour Conv1d cast to bf16, given fp32 monthly series
    "repayment-conv1d-bf16-fp32-series": case(_repayment_conv1d_bf16_fp32_input, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 policy-state query attending fp32 cached claim encodings through SDPA
    "claim-history-sdpa-bf16-query-fp32-cache": case(_claim_history_sdpa_bf16_query_fp32_keys, "sdpa_dtype", "bf16",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 claim-history SDPA given a recency-decay additive mask built in numpy (float64)
    "claim-recency-decay-f64-mask-bf16-sdpa": case(_claim_history_sdpa_bf16_numpy_additive_mask, "attn_mask_dtype",
                                                   "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # customer x product interaction: float64 pandas customer features into nn.Bilinear
    "customer-product-bilinear-f64": case(_customer_product_bilinear_float64, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # PD MLP halved and trained with GradScaler on the CPU
    "fp16-pd-mlp-grad-scaler-cpu": case(_fp16_pd_mlp_grad_scaler_cpu, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fold-averaged fp32 gradients assigned to the fp16 PD MLP's .grad
    "fold-averaged-fp32-grads-fp16-mlp": case(_fp32_grads_assigned_to_fp16_mlp, "loss_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # premiums standardised in fp16: a 70,000 premium is inf, the Bernoulli logits NaN
    "premium-fp16-standardise-bernoulli-nan": case(_fp16_unscaled_premium_bernoulli_nan_logits, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # lapse model: binary_cross_entropy of fp16 probabilities against fp32 labels
    "lapse-bce-fp16-probs-fp32-labels": case(_lapse_bce_fp16_probs_fp32_labels, "op_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
