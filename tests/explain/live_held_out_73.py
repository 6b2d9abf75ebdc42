"""Held-out live set 73: normalizing flows and probabilistic modelling by hand in low precision (RealNVP/Glow coupling
layers and ActNorm, invertible 1x1 convolutions with LU factors, neural spline flows with searchsorted over bin edges,
MADE/MAF and LU-linear flows on tabular data, TarFlow blocks, amortised planar flows, log-det Jacobians in float64,
torch.distributions with bf16/fp16 parameters, dequantization of uint8 images, HMC/Langevin samplers, ELBO and
importance weights, discrete latent variables as integer indices). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at 8435631."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import distributions as D
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8435631"

bf16, f16 = torch.bfloat16, torch.float16
_C = 4  # channels after the first squeeze (12 for a 3-channel Glow; kept small here)
_HW = 8  # spatial size after the first squeeze


def _seeded() -> None:
    torch.manual_seed(0)


def _uint8_batch(n: int = 2, channels: int = 3, size: int = 16) -> torch.Tensor:
    """What a torchvision dataset with PILToTensor (no ToTensor) collates: N x C x H x W uint8."""
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.integers(0, 256, size=(n, channels, size, size), dtype=np.uint8))


class _ActNorm(nn.Module):
    """Glow's ActNorm with data-dependent initialisation on the first batch."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.log_scale = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.initialized = False

    def initialize(self, x: torch.Tensor) -> None:
        with torch.no_grad():
            statistics = x.float()  # batch statistics in fp32 for stability
            mean = statistics.mean(dim=(0, 2, 3), keepdim=True)
            std = statistics.std(dim=(0, 2, 3), keepdim=True)
            # replaced rather than copied into: new Parameters made from the batch as it comes
            self.loc = nn.Parameter(-mean)
            self.log_scale = nn.Parameter(torch.log(1.0 / (std + 1e-6)))
        self.initialized = True

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.initialized:
            self.initialize(x)
        height, width = x.shape[2:]
        logdet = height * width * self.log_scale.sum()
        return (x + self.loc) * torch.exp(self.log_scale), logdet


class _InvConv1x1(nn.Module):
    """Glow's invertible 1x1 convolution (plain weight, not LU)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        weight = torch.linalg.qr(torch.randn(channels, channels))[0]
        self.weight = nn.Parameter(weight)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        height, width = x.shape[2:]
        logdet = height * width * torch.linalg.slogdet(self.weight.float())[1]
        return F.conv2d(x, self.weight[:, :, None, None]), logdet

    def reverse(self, y: torch.Tensor) -> torch.Tensor:
        return F.conv2d(y, torch.inverse(self.weight)[:, :, None, None])


class _CouplingNet(nn.Module):
    """The small CNN inside an affine coupling: conv, ReLU, zero-initialised output conv (Glow's ZeroConv2d)."""

    def __init__(self, channels: int, hidden: int = 16) -> None:
        super().__init__()
        self.conv_in = nn.Conv2d(channels // 2, hidden, 3, padding=1)
        self.zero_conv = nn.Conv2d(hidden, channels, 3, padding=1)

    def reset_zero_conv(self) -> None:
        """Called by the trainer after building (and casting) the model, as in the reference implementation."""
        with torch.no_grad():
            self.zero_conv.weight.zero_()
        self.zero_conv.bias = nn.Parameter(torch.zeros(self.zero_conv.out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.zero_conv(F.relu(self.conv_in(x)))


# --- dequantization and the start of a flow's objective ---------------------------------------------------------------


def _uniform_dequantization_in_place() -> None:
    _seeded()
    images = _uint8_batch()
    images.add_(torch.rand(images.shape))  # x + u, u ~ U[0, 1)
    images.div_(256.0)


def _glow_objective_zeros_like_raw_batch() -> None:
    _seeded()
    images = _uint8_batch(channels=_C, size=_HW)
    logdet = torch.zeros_like(images[:, 0, 0, 0])  # per-sample objective started from the batch as loaded
    x = images.float() / 255.0 - 0.5
    _, actnorm_logdet = _ActNorm(_C)(x)
    logdet += actnorm_logdet


def _n_bins_tensor_in_image_dtype() -> None:
    images = _uint8_batch()
    n_bits = 8
    n_bins = torch.tensor(2**n_bits, dtype=images.dtype)  # kept on the images' device and dtype
    images.float() / n_bins - 0.5


def _dynamic_binarisation_of_uint8_mnist() -> None:
    _seeded()
    images = _uint8_batch(channels=1, size=28)
    torch.bernoulli(images)  # dynamic binarisation for a discrete VAE's Bernoulli likelihood


# --- discrete latent variables -------------------------------------------------------------------------------------


def _one_hot_categorical_sample_into_embedding() -> None:
    _seeded()
    logits = torch.randn(4, 16)  # encoder's logits over 16 discrete codes
    codes = D.OneHotCategorical(logits=logits).sample()
    codebook = nn.Embedding(16, 8)
    codebook(codes)


def _mixture_prior_component_ids_into_decoder() -> None:
    _seeded()
    prior = D.MixtureSameFamily(
        D.Categorical(logits=torch.zeros(10)),
        D.Independent(D.Normal(torch.randn(10, 6), torch.ones(10, 6)), 1),
    )
    component = prior.mixture_distribution.sample((4,))  # which mode each sample came from
    decoder_condition = nn.Linear(1, 32)
    decoder_condition(component[:, None])


# --- neural spline flows -------------------------------------------------------------------------------------------


def _spline_bins(batch: int = 6, bins: int = 8, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    _seeded()
    widths = F.softmax(torch.randn(batch, bins), dim=-1).to(dtype)
    heights = F.softmax(torch.randn(batch, bins), dim=-1).to(dtype)
    cumwidths = F.pad(torch.cumsum(widths, dim=-1), (1, 0)) * 6 - 3  # tail bound 3
    cumheights = F.pad(torch.cumsum(heights, dim=-1), (1, 0)) * 6 - 3
    return widths, heights, cumwidths, cumheights


def _spline_bin_index_int32_take_along_dim() -> None:
    widths, _, cumwidths, _ = _spline_bins()
    inputs = torch.linspace(-2.5, 2.5, 6)
    cumwidths = cumwidths.contiguous()
    cumwidths[..., -1] += 1e-6
    bin_idx = torch.searchsorted(cumwidths, inputs[:, None], out_int32=True) - 1  # int32 "to save memory"
    torch.take_along_dim(widths, bin_idx, dim=-1)


def _spline_inside_interval_index_put() -> None:
    widths, heights, cumwidths, cumheights = _spline_bins(dtype=bf16)  # spline parameters from the bf16 conditioner
    inputs = torch.tensor([-4.0, -1.0, 0.0, 0.5, 2.0, 5.0])
    inside = (inputs >= -3) & (inputs <= 3)
    outputs = torch.zeros_like(inputs)
    logabsdet = torch.zeros_like(inputs)
    outputs[~inside] = inputs[~inside]  # identity tails
    bin_idx = torch.searchsorted(cumwidths[inside].float(), inputs[inside, None]) - 1
    bin_idx = bin_idx.clamp(0, widths.shape[-1] - 1)
    theta = (inputs[inside, None].to(bf16) - cumwidths[inside].gather(-1, bin_idx)) / widths[inside].gather(-1, bin_idx)
    spline_out = cumheights[inside].gather(-1, bin_idx) + heights[inside].gather(-1, bin_idx) * theta
    outputs[inside] = spline_out.squeeze(-1)
    logabsdet[inside] = 0.0


# --- HMC and Langevin ----------------------------------------------------------------------------------------------


def _log_density(q: torch.Tensor) -> torch.Tensor:
    return -0.5 * (q**2).sum(-1)


def _hmc_acceptance_rate_bool_mean() -> None:
    _seeded()
    q = torch.randn(64, 3)
    p = torch.randn(64, 3)
    q_new, p_new = q + 0.1 * p, p - 0.1 * q
    log_alpha = _log_density(q_new) - 0.5 * (p_new**2).sum(-1) - _log_density(q) + 0.5 * (p**2).sum(-1)
    accept = torch.rand(64).log() < log_alpha
    accept.mean()  # logged to tune the step size


def _hmc_masked_scatter_fp32_proposal() -> None:
    _seeded()
    chain = torch.randn(16, 3).to(bf16)  # chain state stored in bf16 to fit many chains
    q = chain.float()
    p = torch.randn(16, 3)
    for _ in range(5):  # leapfrog in fp32
        p = p + 0.05 * q * -1
        q = q + 0.1 * p
    accept = torch.rand(16) < 0.7
    chain.masked_scatter_(accept[:, None].expand_as(chain), q[accept])


def _hmc_momentum_from_numpy_mass_matrix() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    warmup_samples = rng.normal(size=(200, 3)) @ np.array([[1.0, 0.3, 0.0], [0.0, 1.0, 0.2], [0.0, 0.0, 0.5]])
    mass_inverse = np.cov(warmup_samples, rowvar=False)  # adapted during warm-up with numpy
    mass = torch.from_numpy(np.linalg.inv(mass_inverse))
    momentum = D.MultivariateNormal(torch.zeros(3), covariance_matrix=mass)
    momentum.rsample((8,))


def _langevin_score_clipping_hook() -> None:
    _seeded()
    energy = nn.Sequential(nn.Linear(2, 16), nn.SiLU(), nn.Linear(16, 1)).to(bf16)
    x = torch.randn(32, 2).to(bf16).requires_grad_()
    x.register_hook(lambda grad: grad.float().clamp(-0.03, 0.03))  # score clipped in fp32 for stability
    score = torch.autograd.grad(-energy(x).sum(), x)[0]
    x.detach() + 0.01 * score + math.sqrt(0.02) * torch.randn_like(x)


def _posterior_interval_quantile_bf16() -> None:
    _seeded()
    samples = (torch.randn(500, 3) * 0.5 + 1.0).to(bf16)  # HMC draws kept in the model's dtype
    torch.quantile(samples, torch.tensor([0.025, 0.975], dtype=bf16), dim=0)


def _hutchinson_rademacher_randint() -> None:
    _seeded()
    f = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4))  # FFJORD / residual-flow dynamics
    z = torch.randn(8, 4, requires_grad=True)
    dz = f(z)
    noise = torch.randint(0, 2, z.shape) * 2 - 1  # Rademacher probe
    vjp = torch.autograd.grad(dz, z, noise, create_graph=True)[0]
    torch.einsum("bi,bi->b", vjp, noise)  # trace estimate e^T (df/dz) e


# --- Glow and RealNVP layers ---------------------------------------------------------------------------------------


def _realnvp_checkerboard_bool_complement() -> None:
    _seeded()
    ii, jj = torch.meshgrid(torch.arange(_HW), torch.arange(_HW), indexing="ij")
    mask = ((ii + jj) % 2 == 0)[None, None]  # checkerboard
    x = torch.randn(2, 1, _HW, _HW)
    s = torch.tanh(torch.randn(2, 1, _HW, _HW))
    x * mask + (1 - mask) * (x * torch.exp(s))


def _glow_weight_float64_for_accurate_slogdet() -> None:
    _seeded()
    x = torch.randn(2, _C, _HW, _HW)
    weight = torch.linalg.qr(torch.randn(_C, _C))[0]
    weight64 = weight.double()  # slogdet in float64: fp32 loses the log-det of deep flows
    logdet = _HW * _HW * torch.linalg.slogdet(weight64)[1]
    F.conv2d(x, weight64[:, :, None, None]), logdet


class _InvConv1x1LU(nn.Module):
    """Glow's LU-decomposed 1x1 convolution: W = P L (U + diag(sign(s) exp(log|s|)))."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        weight = torch.linalg.qr(torch.randn(channels, channels))[0]
        p, lower, upper = torch.linalg.lu(weight)
        s = torch.diagonal(upper)
        self.p = p  # fixed permutation, kept as a plain attribute (it is not trained)
        self.sign_s = torch.sign(s)
        self.lower = nn.Parameter(lower)
        self.upper = nn.Parameter(torch.triu(upper, 1))
        self.log_s = nn.Parameter(torch.log(torch.abs(s)))
        self.register_buffer("l_mask", torch.tril(torch.ones(channels, channels), -1))
        self.register_buffer("eye", torch.eye(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lower = self.lower * self.l_mask + self.eye
        upper = self.upper * self.l_mask.T + torch.diag(torch.exp(self.log_s))
        weight = self.p @ lower @ upper
        return F.conv2d(x, weight[:, :, None, None])


def _glow_lu_permutation_plain_attribute() -> None:
    _seeded()
    layer = _InvConv1x1LU(_C).to(bf16)
    layer(torch.randn(2, _C, _HW, _HW).to(bf16))


def _glow_reverse_inverse_bf16() -> None:
    _seeded()
    layer = _InvConv1x1(_C).to(bf16)
    z = torch.randn(2, _C, _HW, _HW).to(bf16) * 0.7  # temperature 0.7 sample from the prior
    layer.reverse(z)


def _actnorm_data_init_after_cast() -> None:
    _seeded()
    flow = nn.ModuleList([_ActNorm(_C), _InvConv1x1(_C)]).to(bf16)
    x = (torch.rand(2, _C, _HW, _HW) - 0.5).to(bf16)  # dequantised batch cast to the flow's dtype
    x, _ = flow[0](x)  # first call: ActNorm initialises from this batch
    flow[1](x)


def _zero_conv_reset_after_cast() -> None:
    _seeded()
    net = _CouplingNet(_C).to(bf16)
    net.reset_zero_conv()
    x = torch.randn(2, _C, _HW, _HW).to(bf16)
    x_a, _ = x.chunk(2, dim=1)
    net(x_a)


class _LULinear(nn.Module):
    """nflows-style LU-linear flow for tabular data, its LU factors cached at init for fast sampling."""

    def __init__(self, features: int) -> None:
        super().__init__()
        weight = torch.linalg.qr(torch.randn(features, features))[0]
        self.weight = nn.Parameter(weight)
        self.lu, self.pivots = torch.linalg.lu_factor(weight.detach())  # cached once, plain attributes

    def inverse(self, z: torch.Tensor) -> torch.Tensor:
        return torch.linalg.lu_solve(self.lu, self.pivots, z.T).T


def _lu_linear_cached_factors_inverse() -> None:
    _seeded()
    flow = _LULinear(5).to(bf16)
    z = torch.randn(16, 5).to(bf16)  # base samples in the model's dtype
    flow.inverse(z)


class _AffineCoupling1d(nn.Module):
    def __init__(self, features: int, hidden: int = 32) -> None:
        super().__init__()
        self.half = features // 2
        self.net = nn.Sequential(nn.Linear(self.half, hidden), nn.ReLU(), nn.Linear(hidden, 2 * (features - self.half)))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x_a, x_b = x[:, : self.half], x[:, self.half :]
        s, t = self.net(x_a).chunk(2, dim=-1)
        s = torch.tanh(s)
        return torch.cat([x_a, x_b * torch.exp(s) + t], dim=-1), s.sum(-1)


def _tabular_realnvp_numpy_float64() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    power = rng.normal(size=(64, 6))  # UCI POWER after the MAF preprocessing, a float64 numpy array
    power = (power - power.mean(0)) / power.std(0)
    batch = torch.from_numpy(power[:16])
    _AffineCoupling1d(6)(batch)


# --- TarFlow (transformer autoregressive flow) ------------------------------------------------------------------------


def _tarflow_causal_mask_fp32_mha() -> None:
    _seeded()
    tokens = 6
    attention = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    causal = torch.triu(torch.full((tokens, tokens), float("-inf")), diagonal=1)
    x = torch.randn(2, tokens, 16).to(bf16)
    out, _ = attention(x, x, x, attn_mask=causal)


def _tarflow_upcast_into_bf16_layer_norm() -> None:
    _seeded()
    patch_embed = nn.Linear(12, 16).to(bf16)
    norm = nn.LayerNorm(16).to(bf16)
    patches = torch.randn(2, 6, 12).to(bf16)
    h = patch_embed(patches).float()  # the flow's residual stream kept fp32 so the log-det stays accurate
    h = h + torch.randn(6, 16) * 0.02  # learned position embedding
    norm(h)


# --- amortised flows, ELBO and importance weights -----------------------------------------------------------------


def _amortised_planar_flow_bmm() -> None:
    _seeded()
    encoder_head = nn.Linear(8, 2 * 4 + 1)  # per-sample u, w, b of a planar flow (Rezende & Mohamed)
    h = torch.randn(5, 8)
    params = encoder_head(h)
    u, w, b = params[:, :4, None], params[:, 4:8, None], params[:, 8:, None]
    z = (torch.randn(5, 4) * 0.5).to(bf16)  # reparameterised sample from the bf16 encoder's Gaussian
    wz_b = torch.bmm(w.transpose(1, 2), z[:, :, None]) + b
    z[:, :, None] + u * torch.tanh(wz_b)


def _iwae_fp16_gaussian_log_likelihood() -> None:
    _seeded()
    k, pixels = 8, 3 * 64 * 64
    x = torch.rand(pixels)
    mean = (x + 0.5 * torch.randn(k, pixels)).half()  # K decoder means from an fp16 decoder
    log_px = D.Normal(mean, torch.tensor(0.1).half()).log_prob(x.half()).sum(-1)
    log_pz = torch.randn(k).half() - 3
    log_qz = torch.randn(k).half() - 2
    log_w = log_px + log_pz - log_qz
    normalised = log_w - torch.logsumexp(log_w, dim=0)
    D.Categorical(logits=normalised).sample()  # SIR: resample one of the K importance samples


def _psis_numpy_bf16_log_weights() -> None:
    _seeded()
    log_w = (torch.randn(128) * 3).to(bf16)  # log importance weights from the bf16 model
    tail = log_w.detach().numpy()  # Pareto-smoothed importance sampling diagnostics in numpy
    np.sort(tail)[-20:]


def _bits_per_dim_constant_full_like_fp16() -> None:
    _seeded()
    n_bins, n_pixels = 256, 3 * 64 * 64
    z = torch.randn(2, n_pixels).half()  # the fp16 flow's output
    logdet = torch.zeros(2).half()
    log_p = torch.full_like(logdet, -math.log(n_bins) * n_pixels)  # discretisation correction
    log_p = log_p + logdet + D.Normal(0.0, 1.0).log_prob(z.float()).sum(-1).half()
    -log_p / (math.log(2.0) * n_pixels)


def _pixel_cnn_prior_uint8_targets() -> None:
    _seeded()
    images = _uint8_batch(channels=1, size=8)
    logits = torch.randn(2, 256, 1, 8, 8)  # 256-way discrete likelihood per pixel
    F.cross_entropy(logits, images)


def _binomial_pixel_decoder_bf16() -> None:
    _seeded()
    decoder_logits = torch.randn(2, 1, 8, 8).to(bf16)  # bf16 decoder output
    likelihood = D.Binomial(total_count=255, logits=decoder_logits)
    likelihood.sample()  # samples for the reconstructions grid


CASES: dict[str, LiveCase] = {
    # uniform dequantization x + u written in place on the uint8 batch from PILToTensor
    "uniform-dequantization-add-in-place-uint8": case(_uniform_dequantization_in_place, "result_cast", "f32",
                                                      "uint8",
        grade="correct", grade_at_freeze="correct"),
    # Glow's per-sample objective started with zeros_like of the raw uint8 batch, ActNorm's log-det added in place
    "glow-objective-zeros-like-uint8-batch": case(_glow_objective_zeros_like_raw_batch, "result_cast", "f32",
                                                  "uint8",
        grade="correct", grade_at_freeze="correct"),
    # n_bins = 2**8 made as a tensor in the images' dtype (uint8)
    "n-bins-256-tensor-uint8": case(_n_bins_tensor_in_image_dtype, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # dynamic binarisation of MNIST with torch.bernoulli on the uint8 batch
    "dynamic-binarisation-bernoulli-uint8": case(_dynamic_binarisation_of_uint8_mnist, "no_kernel", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a discrete latent drawn with OneHotCategorical (float one-hot) looked up in the codebook embedding
    "one-hot-categorical-sample-embedding": case(_one_hot_categorical_sample_into_embedding, "index_tensor_dtype",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # a Gaussian-mixture prior's component ids (int64 from its Categorical) fed to the decoder's conditioning Linear
    "mixture-component-ids-int64-linear": case(_mixture_prior_component_ids_into_decoder, "integer_operand", "int64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # neural spline flow: bin indices from searchsorted(out_int32=True) picking the bin widths with take_along_dim
    "spline-searchsorted-int32-take-along-dim": case(_spline_bin_index_int32_take_along_dim, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # rational-quadratic spline in bf16 written into the fp32 outputs tensor through the inside-interval mask
    "spline-inside-mask-index-put-bf16": case(_spline_inside_interval_index_put, "indexed_write_dtype", "f32",
                                              "bf16",
        grade="correct", grade_at_freeze="correct"),
    # HMC acceptance rate as the mean of the bool accept vector
    "hmc-acceptance-rate-bool-mean": case(_hmc_acceptance_rate_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # HMC chains stored bf16, accepted fp32 leapfrog proposals written back with masked_scatter_
    "hmc-chain-bf16-masked-scatter-fp32": case(_hmc_masked_scatter_fp32_proposal, "indexed_write_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # HMC momentum drawn from a MultivariateNormal whose mass matrix was adapted with numpy (float64)
    "hmc-momentum-mvn-numpy-mass-matrix": case(_hmc_momentum_from_numpy_mass_matrix, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Langevin sampler on a bf16 energy model clipping the score with a hook that upcasts it to fp32
    "langevin-score-clip-hook-fp32": case(_langevin_score_clipping_hook, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # 95% credible intervals from bf16 HMC draws with torch.quantile
    "posterior-interval-quantile-bf16": case(_posterior_interval_quantile_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # Hutchinson trace estimator: Rademacher probes from randint (int64) contracted by einsum with the VJP
    "hutchinson-rademacher-int64-einsum": case(_hutchinson_rademacher_randint, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RealNVP checkerboard coupling with a bool mask complemented as 1 - mask
    "realnvp-checkerboard-bool-one-minus": case(_realnvp_checkerboard_bool_complement, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # invertible 1x1 conv: weight taken to float64 for an accurate slogdet, convolved without casting back
    "glow-1x1-float64-weight-conv": case(_glow_weight_float64_for_accurate_slogdet, "conv_weight_dtype", "f32",
                                         "f64",
        grade="correct", grade_at_freeze="correct"),
    # Glow LU 1x1 conv with the permutation P kept as a plain attribute: fp32 P @ bf16 L after .to(bf16)
    "glow-lu-permutation-plain-attribute": case(_glow_lu_permutation_plain_attribute, "matmul_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # sampling a bf16 Glow: the 1x1 conv's reverse pass inverts its weight with torch.inverse
    "glow-reverse-inverse-bf16": case(_glow_reverse_inverse_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ActNorm's data-dependent init replaces its parameters from the fp32 first batch after the flow was cast to bf16
    "actnorm-data-init-fp32-after-cast": case(_actnorm_data_init_after_cast, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ZeroConv2d re-zeroed after the cast: weight zeroed in place (bf16), bias replaced by a new fp32 Parameter
    "zero-conv-bias-reset-after-cast": case(_zero_conv_reset_after_cast, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # LU-linear tabular flow sampling in bf16 with lu_solve on LU factors cached in fp32 at init
    "lu-linear-cached-factors-lu-solve-bf16": case(_lu_linear_cached_factors_inverse, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # tabular RealNVP fed UCI POWER straight from a float64 numpy array
    "tabular-realnvp-numpy-float64-batch": case(_tabular_realnvp_numpy_float64, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TarFlow block in bf16 with an fp32 additive causal mask into MultiheadAttention
    "tarflow-mha-fp32-causal-mask": case(_tarflow_causal_mask_fp32_mha, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TarFlow residual stream upcast to fp32 for the log-det, fed to the bf16 LayerNorm
    "tarflow-fp32-stream-bf16-layer-norm": case(_tarflow_upcast_into_bf16_layer_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # amortised planar flow: fp32 per-sample w from the encoder head bmm'd with the bf16 latent sample
    "amortised-planar-flow-bmm": case(_amortised_planar_flow_bmm, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # IWAE on 64x64x3 with an fp16 Gaussian decoder: the summed log-likelihood overflows, SIR's Categorical sees NaN
    "iwae-fp16-log-likelihood-sum-nan-categorical": case(_iwae_fp16_gaussian_log_likelihood, "nonfinite", "f16",
        grade="correct", grade_at_freeze="correct"),
    # PSIS diagnostics: bf16 log importance weights handed to numpy
    "psis-bf16-log-weights-numpy": case(_psis_numpy_bf16_log_weights, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bits-per-dim discretisation constant -log(256) * 12288 made with full_like on the fp16 log-det
    "bits-per-dim-constant-full-like-fp16": case(_bits_per_dim_constant_full_like_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a 256-way discrete pixel likelihood trained with cross_entropy against the uint8 pixels
    "pixel-256-way-cross-entropy-uint8": case(_pixel_cnn_prior_uint8_targets, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # Binomial(255) pixel decoder with bf16 logits sampled for the reconstruction grid
    "binomial-pixel-decoder-bf16-sample": case(_binomial_pixel_decoder_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
