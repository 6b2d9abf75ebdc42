"""Held-out live set 79: causal inference and uplift modelling written by hand in low precision (propensity-score
models, inverse-propensity weights and clipping in float64 from numpy/pandas, treatment indicators as bool/int tensors,
doubly robust and AIPW estimators, nearest-neighbour and caliper matching with integer indices, TARNet/DragonNet/CEVAE
heads under bf16/fp16 autocast, counterfactual outcome masks, balancing losses, bootstrap resampling, uplift/Qini
curves computed in torch). Defects planted by a helper who never read the rules, written before castwise ran and
graded once with the rules frozen at ae38a11."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ae38a11"

bf16, f16 = torch.bfloat16, torch.float16
_N, _D, _H = 64, 6, 16  # units, covariates, representation width


def _seeded() -> None:
    torch.manual_seed(0)


def _covariates(n: int = _N) -> torch.Tensor:
    return torch.randn(n, _D)


def _treatment(n: int = _N) -> torch.Tensor:
    """A randomised bool treatment indicator, about half treated."""
    return torch.rand(n) < 0.5


class _TARNet(nn.Module):
    """A shared representation and one outcome head per arm (Shalit et al.)."""

    def __init__(self) -> None:
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(_D, _H), nn.ELU(), nn.Linear(_H, _H), nn.ELU())
        self.head0 = nn.Sequential(nn.Linear(_H, _H), nn.ELU(), nn.Linear(_H, 1))
        self.head1 = nn.Sequential(nn.Linear(_H, _H), nn.ELU(), nn.Linear(_H, 1))


class _DragonNet(nn.Module):
    """DragonNet: input standardisation, a shared body, two outcome heads and a propensity head."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.BatchNorm1d(_D), nn.Linear(_D, _H), nn.ELU(), nn.Linear(_H, _H), nn.ELU())
        self.y0 = nn.Linear(_H, 1)
        self.y1 = nn.Linear(_H, 1)
        self.g = nn.Linear(_H, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = self.body(x)
        return self.y0(h).squeeze(-1), self.y1(h).squeeze(-1), self.g(h).squeeze(-1)


# --- representation models: TARNet, DragonNet, CEVAE, CRN


def _tarnet_heads_called_after_autocast_block() -> None:
    _seeded()
    model = _TARNet()
    x = _covariates()
    with torch.autocast("cpu", dtype=bf16):
        rep = model.phi(x)
    y0_hat = model.head0(rep).squeeze(-1)  # heads evaluated after the block closed: fp32 weights, bf16 rep
    y1_hat = model.head1(rep).squeeze(-1)
    (y1_hat - y0_hat).mean()


def _cevae_prior_samples_into_bf16_decoder() -> None:
    _seeded()
    z_dim = 4
    decoder_x = nn.Sequential(nn.Linear(z_dim, _H), nn.ELU(), nn.Linear(_H, _D)).to(bf16)
    decoder_t = nn.Linear(z_dim, 1).to(bf16)
    z = torch.randn(_N, z_dim)  # samples from the N(0, I) prior for the generative check
    x_gen = decoder_x(z)
    torch.sigmoid(decoder_t(z)), x_gen


def _dragonnet_bf16_fed_fp32_covariates() -> None:
    _seeded()
    model = _DragonNet().to(bf16)
    x = _covariates()  # standardised covariates straight from the fp32 dataset
    model(x)


def _dragonnet_propensity_bce_on_float_treatment() -> None:
    _seeded()
    model = _DragonNet().to(bf16)
    x, t = _covariates().to(bf16), _treatment()
    y0_hat, y1_hat, g_logit = model(x)
    propensity = torch.sigmoid(g_logit)
    F.binary_cross_entropy(propensity, t.float())


def _crn_history_gru_bf16_fp32_history() -> None:
    _seeded()
    steps = 10
    covariates = torch.randn(_N, steps, _D)
    past_treatments = (torch.rand(_N, steps, 1) < 0.3).float()
    history = torch.cat([covariates, past_treatments], dim=-1)  # Counterfactual Recurrent Network input
    encoder = nn.GRU(_D + 1, _H, batch_first=True).to(bf16)
    encoder(history)


def _cevae_treatment_likelihood_bool_value() -> None:
    _seeded()
    q_t = nn.Linear(_D, 1)
    x, t = _covariates(), _treatment()
    p_t = torch.distributions.Bernoulli(logits=q_t(x).squeeze(-1))
    -p_t.log_prob(t).mean()


def _adversarial_balance_gradient_reversal_hook() -> None:
    _seeded()
    model = _TARNet().to(bf16)
    critic = nn.Linear(_H, 1).to(bf16)
    x, t = _covariates().to(bf16), _treatment()
    rep = model.phi(x)
    rep.register_hook(lambda grad: -0.5 * grad.float())  # reversal done "in fp32 for stability"
    loss = F.binary_cross_entropy_with_logits(critic(rep).squeeze(-1).float(), t.float())
    loss.backward()


def _cfr_sinkhorn_wasserstein_fp32_marginals() -> None:
    _seeded()
    model = _TARNet().to(bf16)
    x, t = _covariates().to(bf16), _treatment()
    rep = model.phi(x)
    rep_t, rep_c = rep[t], rep[~t]
    cost = torch.cdist(rep_t, rep_c) ** 2
    kernel = torch.exp(-10.0 * cost / cost.detach().mean())
    a = torch.ones(rep_t.shape[0]) / rep_t.shape[0]  # uniform marginals
    b = torch.ones(rep_c.shape[0]) / rep_c.shape[0]
    v = torch.ones_like(b)
    for _ in range(10):  # Sinkhorn iterations (Cuturi), as in CFR-Wass
        u = a / (kernel @ v)
        v = b / (kernel.T @ u)
    plan = u[:, None] * kernel * v[None, :]
    (plan * cost).sum().backward()


def _dragonnet_half_with_grad_scaler() -> None:
    _seeded()
    model = _DragonNet().half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x, t = _covariates().half(), _treatment()
    y = torch.randn(_N).half()
    y0_hat, y1_hat, g_logit = model(x)
    y_hat = torch.where(t, y1_hat, y0_hat)
    loss = F.mse_loss(y_hat.float(), y.float()) + F.binary_cross_entropy_with_logits(g_logit.float(), t.float())
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)


# --- propensity scores and inverse-propensity weights


def _propensity_logistic_on_dataframe_covariates() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(_N, _D)), columns=[f"x{i}" for i in range(_D)])
    df["treated"] = rng.integers(0, 2, _N)
    x = torch.from_numpy(df[[f"x{i}" for i in range(_D)]].to_numpy())
    logit_model = nn.Linear(_D, 1)
    torch.sigmoid(logit_model(x))


def _ipw_fp16_clip_rounds_to_one_weighted_resample() -> None:
    _seeded()
    scores = torch.linspace(-12.0, 12.0, _N).half()  # propensity logits from the fp16 head, some extreme
    e = torch.sigmoid(scores).clamp(1e-8, 1 - 1e-8)  # 1 - 1e-8 is 1 in fp16, sigmoid(12) too
    t = _treatment()
    w = torch.where(t, 1 / e, 1 / (1 - e))
    torch.multinomial(w.float(), _N, replacement=True)  # weighted resample of the pseudo-population


def _propensity_hand_sigmoid_fp16_bernoulli() -> None:
    _seeded()
    scores = torch.tensor([-3.0, 0.5, 4.0, 12.0, 15.0], dtype=f16)
    e = torch.exp(scores) / (1 + torch.exp(scores))  # exp(12) overflows fp16: inf / inf
    torch.distributions.Bernoulli(probs=e).sample()  # simulate assignments from the fitted propensities


def _overlap_histogram_bf16_propensities() -> None:
    _seeded()
    e = torch.sigmoid(torch.randn(_N)).to(bf16)  # the propensity head's output in the model's dtype
    t = _treatment()
    edges = torch.linspace(0.0, 1.0, 11)  # shared bin edges so the two histograms line up
    treated_hist, _ = torch.histogram(e[t], bins=edges)
    control_hist, _ = torch.histogram(e[~t], bins=edges)
    treated_hist - control_hist


# --- outcomes, masks and estimators


def _potential_outcome_lerp_with_float_treatment() -> None:
    _seeded()
    y0_hat = torch.randn(_N, dtype=bf16)
    y1_hat = torch.randn(_N, dtype=bf16)
    t = _treatment().float()
    y_factual_hat = torch.lerp(y0_hat, y1_hat, t)  # picks y1 where t == 1
    y_factual_hat.mean()


def _counterfactual_buffer_index_put_under_fp16_autocast() -> None:
    _seeded()
    model = _TARNet()
    x, t = _covariates(), _treatment()
    with torch.autocast("cpu", dtype=f16):
        rep = model.phi(x)
        y0_hat = model.head0(rep).squeeze(-1)
        y1_hat = model.head1(rep).squeeze(-1)
        y_cf = torch.empty(_N)  # counterfactual predictions: the arm each unit did not get
        y_cf[t] = y0_hat[t]
        y_cf[~t] = y1_hat[~t]


def _factual_where_int64_treatment() -> None:
    _seeded()
    t = torch.from_numpy(np.random.default_rng(0).integers(0, 2, _N))  # the 0/1 treatment column
    y0_hat, y1_hat = torch.randn(_N), torch.randn(_N)
    torch.where(t, y1_hat, y0_hat)


def _control_mask_inverted_float_treatment() -> None:
    _seeded()
    y = torch.randn(_N)
    t = torch.tensor(np.random.default_rng(0).integers(0, 2, _N), dtype=torch.float32)
    control = ~t
    y[control].mean()


def _simulated_outcomes_one_minus_bool_treatment() -> None:
    _seeded()
    x, t = _covariates(), _treatment()
    y0 = x[:, 0] + 0.1 * torch.randn(_N)
    y1 = y0 + 1.0 + 0.5 * x[:, 1]
    y = t * y1 + (1 - t) * y0  # semi-synthetic benchmark: observed outcome from the two potential outcomes
    y.mean()


def _stacked_heads_gather_bernoulli_treatment() -> None:
    _seeded()
    x = _covariates()
    e = torch.sigmoid(x[:, 0])
    t = torch.distributions.Bernoulli(probs=e).sample()  # simulated assignment
    mu = torch.randn(_N, 2)  # [mu0, mu1] from the two heads
    mu.gather(1, t[:, None]).squeeze(1)


def _treated_share_mean_bool() -> None:
    _seeded()
    t = _treatment()
    p_treated = t.mean()  # marginal propensity for stabilised weights
    p_treated / torch.sigmoid(torch.randn(_N))


def _placebo_permutation_rand_like_treatment() -> None:
    _seeded()
    t = _treatment()
    y = torch.randn(_N) + t.float()
    placebo = t[torch.rand_like(t).argsort()]  # permutation test: shuffle the treatment labels
    y[placebo].mean() - y[~placebo].mean()


def _bootstrap_ates_fp16_percentile_interval() -> None:
    _seeded()
    psi = torch.randn(_N, dtype=f16)  # AIPW scores from the fp16 model
    idx = torch.randint(0, _N, (200, _N))
    ates = psi[idx].mean(dim=1)
    torch.quantile(ates, torch.tensor([0.025, 0.975], dtype=f16))


def _bayesian_bootstrap_dirichlet_fp16() -> None:
    _seeded()
    psi = torch.randn(_N, dtype=f16)
    weights = torch.distributions.Dirichlet(torch.ones(200, _N, dtype=f16)).sample()  # Rubin's Bayesian bootstrap
    (weights * psi).sum(dim=1)


def _bootstrap_replicates_bmm_fp32_weights() -> None:
    _seeded()
    mu = torch.randn(_N, 2, dtype=bf16)  # bf16 head outputs [mu0, mu1]
    boots = 50
    idx = torch.randint(0, _N, (boots, _N))
    resampled = mu[idx]  # (B, N, 2)
    averaging = torch.full((boots, 1, _N), 1.0 / _N)  # one row of 1/N per replicate
    means = torch.bmm(averaging, resampled)
    (means[..., 1] - means[..., 0]).std()


# --- matching


def _caliper_matching_fp16_distances_big_fill() -> None:
    _seeded()
    e = torch.sigmoid(torch.randn(_N)).half()
    t = _treatment()
    dist = (e[t][:, None] - e[~t][None, :]).abs()
    dist = dist.masked_fill(dist > 0.05, 1e9)  # outside the caliper: never chosen
    dist.argmin(dim=1)


def _caliper_match_buffer_made_with_minus_one_float() -> None:
    _seeded()
    e = torch.sigmoid(torch.randn(_N))
    t = _treatment()
    dist = (e[t][:, None] - e[~t][None, :]).abs()
    best, nn_idx = dist.min(dim=1)
    matches = torch.full((int(t.sum()),), -1.0)  # -1 marks unmatched treated units
    within = best < 0.02
    matches[within] = nn_idx[within]


def _matching_reuse_counts_bincount_float64() -> None:
    matched = np.array([3, 7, np.nan, 3, 12, 7, 7, np.nan])  # saved by the matching step; NaN = no match found
    used = torch.from_numpy(matched[~np.isnan(matched)])
    torch.bincount(used, minlength=16)  # how often each control is reused (frequency weights)


# --- uplift and Qini curves


def _qini_int64_conversions_subtract_in_place() -> None:
    _seeded()
    uplift = torch.randn(_N)
    t = _treatment()
    y = (torch.rand(_N) < 0.3).long()  # binary conversions
    order = uplift.argsort(descending=True)
    t_s, y_s = t[order], y[order]
    cum_n_t = t_s.cumsum(0)
    cum_n_c = (~t_s).cumsum(0)
    cum_y_t = (y_s * t_s).cumsum(0)
    cum_y_c = (y_s * ~t_s).cumsum(0)
    qini = cum_y_t
    qini.sub_(cum_y_c * cum_n_t / cum_n_c.clamp(min=1))


def _cate_percentile_with_numpy_bf16() -> None:
    _seeded()
    cate = torch.randn(_N, dtype=bf16)  # tau(x) from the bf16 uplift model
    threshold = np.percentile(cate, 70)  # treat the top 30%
    (cate > float(threshold)).sum()


def _dataframe_values_with_bool_treatment_column() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.normal(40, 10, 8), "income": rng.normal(5, 1, 8)})
    df["treated"] = rng.random(8) < 0.5
    df["y"] = rng.normal(size=8)
    torch.tensor(df[["age", "income", "treated"]].values, dtype=torch.float32)


CASES: dict[str, LiveCase] = {
    # --- representation models
    # TARNet: the shared representation computed under bf16 autocast, the outcome heads called after the block closed
    "tarnet-heads-after-autocast-block": case(_tarnet_heads_called_after_autocast_block, "matmul_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # CEVAE generative check: fp32 samples from the N(0, I) prior fed to the decoders cast to bf16
    "cevae-prior-z-into-bf16-decoder": case(_cevae_prior_samples_into_bf16_decoder, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DragonNet cast to bf16 whose first layer is a BatchNorm1d input standardisation, given fp32 covariates
    "dragonnet-bf16-batchnorm-fp32-covariates": case(_dragonnet_bf16_fed_fp32_covariates, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DragonNet's propensity head: bf16 sigmoid outputs against t.float() in binary_cross_entropy
    "dragonnet-propensity-bce-float-treatment": case(_dragonnet_propensity_bce_on_float_treatment, "op_dtype", "f32",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Counterfactual Recurrent Network: a bf16 GRU encoder over the fp32 covariate/treatment history
    "crn-history-gru-bf16": case(_crn_history_gru_bf16_fp32_history, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # CEVAE's treatment likelihood: Bernoulli(logits).log_prob of the bool treatment indicator
    "cevae-bernoulli-log-prob-bool-treatment": case(_cevae_treatment_likelihood_bool_value, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # adversarial balancing: gradient reversal written as a hook returning -lambda * grad.float() on bf16 representations
    "balance-gradient-reversal-hook-fp32": case(_adversarial_balance_gradient_reversal_hook, "loss_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # CFR-Wass balancing term: Sinkhorn iterations with uniform marginals from torch.ones (fp32) against a bf16 kernel
    "cfr-sinkhorn-fp32-marginals-bf16-kernel": case(_cfr_sinkhorn_wasserstein_fp32_marginals, "matmul_dtype", "bf16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # DragonNet converted with .half() and trained with a GradScaler that unscales before clipping
    "dragonnet-half-grad-scaler-unscale": case(_dragonnet_half_with_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- propensity scores and weights
    # a logistic propensity model fed a pandas covariate frame through torch.from_numpy (float64)
    "propensity-logistic-dataframe-float64": case(_propensity_logistic_on_dataframe_covariates, "matmul_dtype", "f64",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 propensities clipped to [1e-8, 1 - 1e-8] (1 - 1e-8 is 1 in fp16): infinite IPW weights into multinomial
    "ipw-fp16-clip-rounds-to-one-weighted-resample": case(_ipw_fp16_clip_rounds_to_one_weighted_resample, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # propensities as exp(s) / (1 + exp(s)) by hand in fp16: inf / inf NaN refused by Bernoulli when simulating
    "propensity-hand-sigmoid-fp16-bernoulli-nan": case(_propensity_hand_sigmoid_fp16_bernoulli, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # overlap diagnostics: torch.histogram of the bf16 propensity scores over shared bin edges from torch.linspace (fp32)
    "overlap-histogram-bf16-scores-fp32-edges": case(_overlap_histogram_bf16_propensities, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- outcomes, masks and estimators
    # the factual prediction picked with torch.lerp(y0_hat, y1_hat, t.float()) on bf16 head outputs
    "factual-lerp-float-treatment-weight": case(_potential_outcome_lerp_with_float_treatment, "lerp_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # counterfactual predictions written under fp16 autocast into a torch.empty (fp32) buffer by the treatment mask
    "counterfactual-buffer-index-put-fp16-autocast": case(_counterfactual_buffer_index_put_under_fp16_autocast,
                                                          "indexed_write_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the factual outcome chosen by torch.where on the int64 0/1 treatment column from numpy
    "factual-where-int64-treatment": case(_factual_where_int64_treatment, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the control mask made with ~t on a treatment column stored as float32
    "control-mask-invert-float-treatment": case(_control_mask_inverted_float_treatment, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # semi-synthetic outcomes y = t * y1 + (1 - t) * y0 with a bool treatment
    "semi-synthetic-outcome-one-minus-bool-treatment": case(_simulated_outcomes_one_minus_bool_treatment, "mask_dtype",
                                                            "bool",
        grade="correct", grade_at_freeze="correct"),
    # the factual head picked by gather with a treatment simulated by Bernoulli(...).sample() (float)
    "heads-gather-bernoulli-sampled-treatment": case(_stacked_heads_gather_bernoulli_treatment, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the marginal treated share for stabilised weights as t.mean() on the bool indicator
    "stabilised-weights-treated-share-mean-bool": case(_treated_share_mean_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # placebo permutation test: treatment labels shuffled by rand_like(t).argsort() on the bool indicator
    "placebo-permutation-rand-like-bool": case(_placebo_permutation_rand_like_treatment, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # --- bootstrap
    # percentile bootstrap interval by torch.quantile over fp16 bootstrap ATEs
    "bootstrap-ate-quantile-fp16": case(_bootstrap_ates_fp16_percentile_interval, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # Bayesian bootstrap: Dirichlet(1, ..., 1) weights sampled in fp16
    "bayesian-bootstrap-dirichlet-fp16": case(_bayesian_bootstrap_dirichlet_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bootstrap replicates averaged with torch.bmm by a torch.full (fp32) 1/N matrix over bf16 head outputs
    "bootstrap-replicates-bmm-fp32-averaging": case(_bootstrap_replicates_bmm_fp32_weights, "batched_matmul_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- matching
    # propensity caliper matching on fp16 distances: pairs outside the caliper masked_fill'ed with 1e9
    "caliper-fp16-distances-masked-fill-1e9": case(_caliper_matching_fp16_distances_big_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # caliper matches written into a torch.full(-1.0) buffer (fp32) from min()'s int64 indices
    "caliper-match-buffer-float-minus-one": case(_caliper_match_buffer_made_with_minus_one_float, "indexed_write_dtype",
                                                 "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # control reuse counts by bincount over matched indices saved as float64 (NaN for unmatched)
    "matching-reuse-bincount-float64-indices": case(_matching_reuse_counts_bincount_float64, "index_tensor_dtype",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- uplift and Qini
    # Qini curve on int64 conversions: the scaled control conversions subtracted in place from the treated cumsum
    "qini-int64-cumsum-sub-in-place": case(_qini_int64_conversions_subtract_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # targeting threshold: np.percentile of the bf16 uplift model's CATE estimates
    "cate-threshold-np-percentile-bf16": case(_cate_percentile_with_numpy_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # covariates and a bool treatment column taken together as df.values (object) into torch.tensor
    "dataframe-values-object-bool-treatment": case(_dataframe_values_with_bool_treatment_column, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
}
