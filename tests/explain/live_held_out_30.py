"""Held-out live set 30: Bayesian deep learning and uncertainty in low precision. Defects planted by a helper who never
read the rules, written before castwise ran and graded once with the rules frozen at aa85a67."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import distributions as D
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "aa85a67"

bf16, f16 = torch.bfloat16, torch.float16


class _BayesLinear(nn.Module):
    """Bayes-by-backprop linear layer: weight means and log-variances, one weight sample per forward."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.weight_mu = nn.Parameter(torch.randn(n_out, n_in) * 0.1)
        self.weight_logvar = nn.Parameter(torch.full((n_out, n_in), -6.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        eps = torch.randn(self.weight_mu.shape)  # defect: default dtype, not the parameters' bf16
        weight = self.weight_mu + torch.exp(0.5 * self.weight_logvar) * eps
        return F.linear(x, weight)


def _bbb_linear_weight_eps_fp32() -> None:
    torch.manual_seed(0)
    layer = _BayesLinear(8, 4).to(bf16)
    layer(torch.randn(2, 8, dtype=bf16))


def _bayes_conv_local_reparam_fp32_logvar() -> None:
    torch.manual_seed(0)
    mu = torch.randn(4, 3, 3, 3, dtype=bf16) * 0.1
    logvar = torch.full((4, 3, 3, 3), -6.0)  # kept fp32 "for stability" while the layer runs in bf16
    x = torch.randn(1, 3, 8, 8, dtype=bf16)
    mean = F.conv2d(x, mu, padding=1)
    var = F.conv2d(x * x, torch.exp(logvar), padding=1)
    (mean + var.sqrt() * torch.randn_like(mean)).sum()


def _laplace_mvn_bf16_map_mean() -> None:
    torch.manual_seed(0)
    map_weights = torch.randn(6, dtype=bf16)  # last-layer MAP read from the bf16 model
    precision = torch.eye(6) * 4.0 + 0.1
    scale_tril = torch.linalg.cholesky(torch.linalg.inv(precision))
    D.MultivariateNormal(map_weights, scale_tril=scale_tril).rsample((10,))


def _laplace_ggn_covariance_bf16() -> None:
    torch.manual_seed(0)
    jac = torch.randn(32, 6, dtype=bf16)  # per-sample Jacobians from the bf16 model
    ggn = jac.T @ jac + torch.eye(6, dtype=bf16)
    covariance = torch.linalg.inv(ggn.float()).to(bf16)
    D.MultivariateNormal(torch.zeros(6, dtype=bf16), covariance_matrix=covariance)


def _laplace_marglik_logdet_bf16() -> None:
    torch.manual_seed(0)
    features = torch.randn(64, 5, dtype=bf16)
    prior_precision = 1.0
    posterior_precision = features.T @ features + prior_precision * torch.eye(5, dtype=bf16)
    -0.5 * torch.logdet(posterior_precision)


def _laplace_posterior_solve_bf16_jacobian() -> None:
    torch.manual_seed(0)
    hessian = torch.eye(5) * 3.0  # fp32 Hessian of the last layer
    jac = torch.randn(5, 2, dtype=bf16)  # the test points' Jacobians from the bf16 model
    torch.linalg.solve(hessian, jac)


def _laplace_glm_predictive_jacobian_bf16() -> None:
    torch.manual_seed(0)
    sigma = torch.eye(6) * 0.01  # fp32 posterior covariance
    jac = torch.randn(4, 6, dtype=bf16)
    (jac @ sigma * jac).sum(-1)


def _swag_second_moment_fp8() -> None:
    torch.manual_seed(0)
    mean = torch.randn(16)
    sq_mean = (mean * mean + 0.01).to(torch.float8_e4m3fn)  # second moments stored in fp8 to save memory
    torch.clamp(sq_mean - mean * mean, min=1e-8)


def _evidential_dirichlet_bf16_rsample() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4, 3, dtype=bf16)
    alpha = F.softplus(logits) + 1.0
    D.Dirichlet(alpha).rsample()


def _evidential_fp16_exp_evidence_nan() -> None:
    logits = torch.tensor([[12.0, 1.0, 0.5], [0.2, 0.1, 0.3]], dtype=f16)
    alpha = torch.exp(logits) * 10.0 + 1.0  # exp evidence overflows fp16 to inf
    probs = alpha / alpha.sum(-1, keepdim=True)
    D.Categorical(probs=probs)


def _ece_bin_accuracy_index_add_bool() -> None:
    torch.manual_seed(0)
    probs = torch.softmax(torch.randn(20, 5), -1)
    labels = torch.randint(0, 5, (20,))
    confidence, prediction = probs.max(-1)
    bins = torch.bucketize(confidence, torch.linspace(0, 1, 11)[1:-1])
    correct = prediction == labels
    torch.zeros(10).index_add_(0, bins, correct)


def _ece_bin_confidence_scatter_add_bf16() -> None:
    torch.manual_seed(0)
    confidence = torch.rand(20, dtype=bf16)  # max softmax of the bf16 model
    bins = torch.bucketize(confidence.float(), torch.linspace(0, 1, 11)[1:-1])
    torch.zeros(10).scatter_add_(0, bins, confidence)


def _conformal_qhat_level_float64_tensor() -> None:
    torch.manual_seed(0)
    scores = 1 - torch.rand(100)  # 1 - softmax of the true class on the calibration split
    n, alpha = scores.numel(), 0.1
    level = torch.from_numpy(np.array([np.ceil((n + 1) * (1 - alpha)) / n]))
    torch.quantile(scores, level)


def _conformal_aps_gather_float_labels() -> None:
    torch.manual_seed(0)
    probs = torch.softmax(torch.randn(8, 5), -1)
    labels = torch.tensor(np.array([0, 1, 2, 3, 4, 0, 1, 2], dtype=np.float32))  # label column read as float
    order = probs.argsort(-1, descending=True)
    cumulative = probs.gather(-1, order).cumsum(-1)
    ranks = order.argsort(-1)
    cumulative.gather(-1, ranks.gather(-1, labels[:, None]))


def _mondrian_conformal_bincount_float_labels() -> None:
    labels = torch.tensor([0.0, 1.0, 1.0, 2.0, 2.0, 2.0])  # calibration labels stored as float
    torch.bincount(labels, minlength=3)


def _temperature_scaling_integer_init() -> None:
    class TemperatureScaler(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.temperature = nn.Parameter(torch.tensor(1))  # defect: integer initial temperature

    TemperatureScaler()


def _matrix_scaling_fp32_on_bf16_logits() -> None:
    torch.manual_seed(0)
    calibrator = nn.Linear(5, 5)  # matrix scaling fitted in fp32
    logits = torch.randn(8, 5, dtype=bf16)  # cached from the bf16 classifier
    calibrator(logits)


def _ensemble_weighted_average_einsum() -> None:
    torch.manual_seed(0)
    member_probs = torch.softmax(torch.randn(4, 8, 5), -1).to(bf16)  # 4 bf16 ensemble members
    weights = torch.softmax(torch.randn(4), 0)  # fp32 stacking weights
    torch.einsum("m,mnc->nc", weights, member_probs)


def _ensemble_fp8_member_logits_mean() -> None:
    torch.manual_seed(0)
    member_logits = [torch.randn(8, 5).to(torch.float8_e4m3fn) for _ in range(3)]  # cached in fp8
    torch.stack(member_logits).mean(0)


def _stacking_lstsq_bf16_member_predictions() -> None:
    torch.manual_seed(0)
    member_predictions = torch.randn(32, 4, dtype=bf16)  # regression outputs of 4 bf16 members
    targets = torch.randn(32, 1)
    torch.linalg.lstsq(member_predictions, targets)


def _platt_scaling_bce_bf16_probs() -> None:
    torch.manual_seed(0)
    scores = torch.randn(16, dtype=bf16)  # bf16 detector scores
    a, b = torch.tensor(1.0), torch.tensor(0.0)
    labels = torch.randint(0, 2, (16,)).float()
    F.binary_cross_entropy(torch.sigmoid(a.to(bf16) * scores + b.to(bf16)), labels)


def _evidential_evidence_clamp_fp16() -> None:
    torch.manual_seed(0)
    evidence = F.softplus(torch.randn(4, 3)).half()
    torch.clamp(evidence, max=1e6)  # cap meant for fp32 evidence


def _sgld_noise_grad_fp32_on_bf16() -> None:
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(4, dtype=bf16))
    (weight.float() ** 2).sum().backward()
    lr = 1e-3
    noise = torch.randn(weight.shape) * (2 / lr) ** 0.5  # Langevin noise in default dtype
    weight.grad = weight.grad + noise


def _conformal_set_complement_bool_minus() -> None:
    torch.manual_seed(0)
    probs = torch.softmax(torch.randn(4, 5), -1)
    in_set = probs >= 0.15
    excluded = 1 - in_set
    excluded.sum(-1)


CASES: dict[str, LiveCase] = {
    # Bayes-by-backprop linear layer in bf16 draws its weight noise with torch.randn(shape) (fp32)
    "bbb-linear-weight-eps-fp32": case(_bbb_linear_weight_eps_fp32, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # local reparameterisation in a bf16 Bayesian conv with the log-variance kept fp32
    "bayes-conv-local-reparam-fp32-logvar": case(_bayes_conv_local_reparam_fp32_logvar, "conv_weight_dtype", "bf16",
                                                 "f32", grade="correct", grade_at_freeze="correct"),
    # last-layer Laplace: posterior MultivariateNormal with the bf16 MAP as mean and an fp32 scale_tril
    "laplace-mvn-bf16-map-mean": case(_laplace_mvn_bf16_map_mean, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Laplace posterior covariance cast back to bf16 handed to MultivariateNormal (Cholesky in bf16)
    "laplace-ggn-covariance-bf16": case(_laplace_ggn_covariance_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Laplace log marginal likelihood: logdet of a bf16 posterior precision
    "laplace-marglik-logdet-bf16": case(_laplace_marglik_logdet_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # linearised Laplace: fp32 Hessian solved against bf16 Jacobians
    "laplace-posterior-solve-bf16-jacobian": case(_laplace_posterior_solve_bf16_jacobian, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GLM predictive variance J Sigma J^T with bf16 Jacobians and the fp32 covariance
    "laplace-glm-predictive-jacobian-bf16": case(_laplace_glm_predictive_jacobian_bf16, "matmul_dtype", "bf16",
                                                 "f32", grade="correct", grade_at_freeze="correct"),
    # SWAG keeps its second moment in fp8; the variance subtracts the fp32 mean squared
    "swag-second-moment-fp8": case(_swag_second_moment_fp8, "fp8_promotion", "float8_e4m3fn", "f32",
        grade="correct", grade_at_freeze="correct"),
    # evidential classifier samples its bf16 Dirichlet for a Monte Carlo loss
    "evidential-dirichlet-bf16-rsample": case(_evidential_dirichlet_bf16_rsample, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # evidential head in fp16 with exp evidence: inf / inf = NaN probabilities into Categorical
    "evidential-fp16-exp-evidence-nan": case(_evidential_fp16_exp_evidence_nan, "nonfinite", "f16",
        grade="correct", grade_at_freeze="correct"),
    # ECE per-bin accuracy accumulated with index_add_ of the bool correctness
    "ece-bin-accuracy-index-add-bool": case(_ece_bin_accuracy_index_add_bool, "indexed_write_dtype", "f32", "bool",
        grade="correct", grade_at_freeze="correct"),
    # ECE per-bin confidence sums scatter_add_'ed from bf16 confidences into an fp32 buffer
    "ece-bin-confidence-scatter-add-bf16": case(_ece_bin_confidence_scatter_add_bf16, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # split conformal: the quantile level built with numpy arrives as a float64 tensor
    "conformal-qhat-level-float64-tensor": case(_conformal_qhat_level_float64_tensor, "op_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (aa85a67) castwise gave nothing. torch.quantile's check that the q tensor has the input's "
             "dtype names neither dtype, and no rule reads that message.")),
    # APS conformal scores gather the true class's cumulative mass with float labels
    "conformal-aps-gather-float-labels": case(_conformal_aps_gather_float_labels, "index_tensor_dtype", "int64",
        grade="correct", grade_at_freeze="partly",
        why=("At freeze (aa85a67) castwise gave index_tensor_dtype [] (high confidence). Kind and fix are right, "
             "but gather's 'int32/int64' wording was not read for the int64 it names, so the dtypes are missing.")),
    # class-conditional (Mondrian) conformal counts the calibration labels per class with bincount on float labels
    "mondrian-conformal-bincount-float-labels": case(_mondrian_conformal_bincount_float_labels, "index_tensor_dtype",
                                                     "f32", fix=("long",), grade="correct", grade_at_freeze="correct"),
    # temperature scaling initialised with torch.tensor(1): an integer Parameter
    "temperature-scaling-integer-init": case(_temperature_scaling_integer_init, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # matrix scaling fitted in fp32 applied to cached bf16 logits
    "matrix-scaling-fp32-on-bf16-logits": case(_matrix_scaling_fp32_on_bf16_logits, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # deep ensemble averaged with fp32 stacking weights by einsum over bf16 member probabilities
    "ensemble-weighted-average-einsum": case(_ensemble_weighted_average_einsum, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ensemble members' logits cached in fp8 and averaged as they are
    "ensemble-fp8-member-logits-mean": case(_ensemble_fp8_member_logits_mean, "no_kernel", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # stacking weights fitted by least squares on bf16 member predictions and fp32 targets
    "stacking-lstsq-bf16-member-predictions": case(_stacking_lstsq_bf16_member_predictions, "op_dtype", "bf16",
                                                   "f32", grade="correct", grade_at_freeze="wrong",
        why=("At freeze (aa85a67) castwise gave scalar_type [bf16, f32] (low confidence). torch.linalg.lstsq's own"
             " same-dtype check on input and other was not recognised as an op's check, so it fell to the generic "
             "scalar-type reading.")),
    # Platt scaling of a bf16 detector fitted with binary_cross_entropy against fp32 labels
    "platt-scaling-bce-bf16-probs": case(_platt_scaling_bce_bf16_probs, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # evidence capped at 1e6 with clamp after the evidential head was halved
    "evidential-evidence-clamp-fp16": case(_evidential_evidence_clamp_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # SGLD adds fp32 Langevin noise to a bf16 parameter's gradient and assigns it back
    "sgld-noise-grad-fp32-on-bf16": case(_sgld_noise_grad_fp32_on_bf16, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the classes outside a conformal prediction set computed as 1 - the bool set mask
    "conformal-set-complement-bool-minus": case(_conformal_set_complement_bool_minus, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
}
