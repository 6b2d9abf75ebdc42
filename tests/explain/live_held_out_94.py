"""Held-out live set 94: epidemiological and compartmental models written by hand in low precision (SIR/SEIR ODE
integration with float64 parameters from numpy, contact matrices by age group, case counts as int64 with reporting
delays, negative-binomial and Poisson likelihoods, Rt estimation with renewal equations and convolution over serial
intervals, region ids as embeddings, intervention masks as bool, neural ODE surrogates under bf16/fp16 autocast).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at 161ed1a."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "161ed1a"

bf16, f16 = torch.bfloat16, torch.float16
_AGES = 4  # 0-19, 20-39, 40-59, 60+
_REGIONS = 5
_DAYS = 28
# a POLYMOD-style mean daily contacts table by age group, as read from the csv
_POLYMOD = np.array([
    [7.9, 3.1, 2.4, 0.8],
    [3.1, 6.2, 3.3, 1.0],
    [2.4, 3.3, 4.7, 1.5],
    [0.8, 1.0, 1.5, 2.9],
])


def _seeded() -> None:
    torch.manual_seed(0)


def _serial_interval_numpy(max_days: int = 14, shape: float = 2.3, scale: float = 2.8) -> np.ndarray:
    days = np.arange(1, max_days + 1)
    weights = days ** (shape - 1) * np.exp(-days / scale)  # discretised gamma density, float64
    return weights / weights.sum()


def _daily_cases() -> torch.Tensor:
    return torch.tensor([3, 4, 6, 9, 12, 17, 25, 31, 44, 60, 71, 90, 118, 140,
                         151, 170, 182, 190, 185, 177, 160, 148, 131, 117, 99, 85, 70, 61])  # int64


def _vector_field(width: int = 32) -> nn.Sequential:
    return nn.Sequential(nn.Linear(_AGES, width), nn.Tanh(), nn.Linear(width, _AGES))


# --- contact matrices, renewal equations and linear algebra


def _polymod_contacts_f64_batched_matmul() -> None:
    _seeded()
    contacts = torch.from_numpy(_POLYMOD)  # float64
    prevalence = torch.rand(_REGIONS, _AGES, 1) * 0.01  # infected fraction per region and age group
    force_of_infection = 0.04 * (contacts @ prevalence)
    force_of_infection.squeeze(-1)


def _renewal_conv1d_numpy_serial_interval() -> None:
    _seeded()
    incidence = _daily_cases().float()
    w = torch.from_numpy(_serial_interval_numpy()[::-1].copy())  # flipped for conv1d's cross-correlation
    padded = F.pad(incidence[None, None], (w.numel(), 0))
    infection_pressure = F.conv1d(padded, w[None, None])[..., :-1]
    infection_pressure.squeeze()


def _renewal_conv1d_int64_case_counts() -> None:
    incidence = _daily_cases()
    w = torch.from_numpy(_serial_interval_numpy()[::-1].astype(np.float32))
    padded = F.pad(incidence[None, None], (w.numel(), 0))
    F.conv1d(padded, w[None, None])


def _renewal_fft_convolution_fp16() -> None:
    _seeded()
    surrogate = _vector_field().half()
    incidence = surrogate(torch.rand(_DAYS, _AGES, dtype=f16)).sum(-1).abs()  # the fp16 surrogate's daily incidence
    w = torch.from_numpy(_serial_interval_numpy().astype(np.float16))
    n = 2 * _DAYS
    pressure = torch.fft.irfft(torch.fft.rfft(incidence, n=n) * torch.fft.rfft(w, n=n), n=n)[:_DAYS]
    pressure.sum()


def _next_generation_matrix_eigvals_bf16() -> None:
    _seeded()
    beta = torch.tensor(0.04, dtype=bf16)  # transmissibility read from the bf16 surrogate's head
    contacts = torch.from_numpy(_POLYMOD).to(bf16)
    infectious_period = 5.0
    ngm = beta * contacts * infectious_period
    r0 = torch.linalg.eigvals(ngm).abs().max()
    r0.item()


def _stiff_seir_implicit_euler_solve_fp16() -> None:
    _seeded()
    surrogate = _vector_field(16).half()
    y = torch.tensor([0.99, 0.005, 0.004, 0.001], dtype=f16)  # S, E, I, R fractions
    h = 0.5
    jacobian = torch.func.jacrev(surrogate)(y)
    system = torch.eye(_AGES, dtype=f16) - h * jacobian  # backward Euler: (I - h J) dy = h f(y)
    torch.linalg.solve(system, h * surrogate(y))


# --- neural ODE surrogates


class _HybridSIR(nn.Module):
    """A universal differential equation: mechanistic recovery plus a learned transmission term."""

    def __init__(self) -> None:
        super().__init__()
        self.transmission = _vector_field(16)
        self.recovery = torch.full((_AGES,), 0.2)  # per age group, a plain attribute

    def forward(self, infected: torch.Tensor) -> torch.Tensor:
        return self.transmission(infected) - self.recovery * infected


def _ude_fp32_mechanistic_term_rk4() -> None:
    _seeded()
    model = _HybridSIR().to(bf16)
    y = torch.full((2, _AGES), 0.01, dtype=bf16)
    dt = 0.25
    k1 = model(y)
    k2 = model(y + dt / 2 * k1)
    k3 = model(y + dt / 2 * k2)
    k4 = model(y + dt * k3)
    y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def _latent_ode_autocast_hidden_into_grucell() -> None:
    _seeded()
    encoder = nn.Linear(3, 16)
    odefunc = nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 16))
    update = nn.GRUCell(3, 16)
    observations = torch.rand(4, 2, 3)  # weekly (cases, hospitalisations, deaths) per 100k, two regions
    with torch.autocast("cpu", dtype=bf16):
        h = encoder(observations[0])
        for _ in range(7):  # evolve the latent state one day at a time between weekly reports
            h = h + (1 / 7) * odefunc(h)
    update(observations[1], h)


def _rt_smoothing_lerp_bf16_estimate() -> None:
    _seeded()
    rt_head = nn.Linear(8, _REGIONS).to(bf16)
    rt_smoothed = torch.ones(_REGIONS)  # running Rt per region kept in fp32
    rt_today = F.softplus(rt_head(torch.randn(8, dtype=bf16)))
    rt_smoothed.lerp_(rt_today, 0.2)


def _mobility_log_flow_mask_half_mha() -> None:
    _seeded()
    flows = torch.rand(_REGIONS, _REGIONS) * 1000 + torch.eye(_REGIONS) * 5000  # commuter flows between regions
    log_share = torch.log(flows / flows.sum(-1, keepdim=True))
    attention = nn.MultiheadAttention(16, 2, batch_first=True).half()
    regions = torch.randn(1, _REGIONS, 16, dtype=f16)
    attention(regions, regions, regions, attn_mask=log_share)


def _region_queries_sdpa_fp32_mobility_keys() -> None:
    _seeded()
    region_encoder = nn.Linear(6, 32).to(bf16)
    mobility_encoder = nn.Linear(_REGIONS, 32)  # added later, never cast
    q = region_encoder(torch.randn(1, _REGIONS, 6, dtype=bf16)).view(1, _REGIONS, 4, 8).transpose(1, 2)
    kv = mobility_encoder(torch.rand(1, _REGIONS, _REGIONS)).view(1, _REGIONS, 4, 8).transpose(1, 2)
    F.scaled_dot_product_attention(q, kv, kv)


def _per_region_contact_bmm_bf16_prevalence() -> None:
    _seeded()
    contacts = torch.from_numpy(_POLYMOD).float().expand(_REGIONS, _AGES, _AGES).contiguous()
    contacts = contacts * (0.5 + torch.rand(_REGIONS, 1, 1))  # regional scaling of the survey matrix
    surrogate = _vector_field().to(bf16)
    prevalence = torch.sigmoid(surrogate(torch.randn(_REGIONS, _AGES, dtype=bf16)))[..., None] * 0.01
    torch.bmm(contacts, prevalence)


def _neural_ode_half_grad_scaler() -> None:
    _seeded()
    surrogate = _vector_field().half()
    optimizer = torch.optim.Adam(surrogate.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    y = torch.full((_REGIONS, _AGES), 0.01, dtype=f16)
    for _ in range(5):
        y = y + 0.2 * surrogate(y)
    observed = torch.rand(_REGIONS, _AGES) * 0.02
    loss = F.mse_loss(y.float(), observed)
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _vector_field_layer_norm_bf16_fp32_state() -> None:
    _seeded()
    field = nn.Sequential(nn.LayerNorm(_AGES), nn.Linear(_AGES, 32), nn.SiLU(), nn.Linear(32, _AGES)).to(bf16)
    y0 = torch.tensor([[0.97, 0.02, 0.01, 0.0]])  # initial S, E, I, R fractions from the line list
    field(y0)


def _seeding_sensitivity_jvp_fp32_tangent() -> None:
    _seeded()
    surrogate = _vector_field().to(bf16)

    def rollout(y: torch.Tensor) -> torch.Tensor:
        for _ in range(10):
            y = y + 0.1 * surrogate(y)
        return y

    y0 = torch.tensor([0.99, 0.0, 0.01, 0.0], dtype=bf16)
    tangent = torch.zeros(_AGES)
    tangent[2] = 1.0  # direction: one more unit of initially infected
    torch.func.jvp(rollout, (y0,), (tangent,))


def _hospital_occupancy_huber_outside_autocast() -> None:
    _seeded()
    surrogate = _vector_field()
    states = torch.full((7, _AGES), 0.01)  # a week of daily compartment states
    with torch.autocast("cpu", dtype=f16):
        derivatives = surrogate(states)
    occupancy = 0.01 + torch.cumsum(derivatives[:, 2], 0) * 0.001  # hospital compartment integrated over the week
    observed = torch.tensor([0.011, 0.012, 0.012, 0.014, 0.015, 0.017, 0.018])  # beds per capita
    F.huber_loss(occupancy, observed, delta=0.005).backward()


# --- overflow and non-finite values


def _susceptibles_clamped_to_population_fp16() -> None:
    population = 8_400_000.0
    s = torch.tensor([0.9, 0.8, 0.95], dtype=f16) * 60000  # susceptibles in the fp16 rollout (per region, counts)
    s.clamp_(min=0.0, max=population)


def _global_populations_int32() -> None:
    torch.tensor([8.1e9, 1.43e9, 1.41e9], dtype=torch.int32)  # world, India, China, "ints are enough for people"


def _seir_fp16_raw_counts_poisson_nan() -> None:
    population = 50_000.0
    s, e, i = (torch.tensor([v], dtype=f16) for v in (49_990.0, 0.0, 10.0))
    beta, sigma, gamma = 0.3, 0.2, 0.1
    expected_reports = []
    for _ in range(4):
        infections = beta * s * i / population  # s * i overflows fp16 before the division
        s, e, i = s - infections, e + infections - sigma * e, i + sigma * e - gamma * i
        expected_reports.append(0.4 * sigma * e)
    rate = torch.cat(expected_reports).float()
    torch.distributions.Poisson(rate).log_prob(torch.tensor([2.0, 3.0, 5.0, 4.0]))


def _negative_binomial_zero_dispersion_zero_mean() -> None:
    raw_dispersion = torch.tensor([1.2, -0.3, 0.8])
    dispersion = torch.relu(raw_dispersion)
    mean = torch.relu(torch.tensor([14.0, -2.0, 6.0]))  # region 2 has not reported any case yet
    probs = mean / (mean + dispersion)
    torch.distributions.NegativeBinomial(total_count=dispersion, probs=probs).log_prob(torch.tensor([12.0, 0.0, 7.0]))


# --- numpy interop


def _rt_posterior_bf16_numpy_percentile() -> None:
    _seeded()
    rt_head = nn.Linear(8, _REGIONS).to(bf16)
    with torch.no_grad():
        samples = F.softplus(rt_head(torch.randn(200, 8, dtype=bf16)))  # posterior draws of Rt per region
    np.percentile(samples, [2.5, 50.0, 97.5], axis=0)


def _suppressed_small_counts_object_array() -> None:
    weekly = np.array([12, 31, "<5", 48, "<5", 27], dtype=object)  # what df["cases"].to_numpy() gives
    torch.from_numpy(weekly)


# --- integer, bool, index and mask dtypes


def _phase_classifier_float64_labels() -> None:
    _seeded()
    smoothed = np.convolve(_daily_cases().numpy(), np.ones(7) / 7, mode="same")
    phase = np.sign(np.diff(smoothed)) + 1  # 0 declining, 1 plateau, 2 growing: float64
    logits = torch.randn(phase.size, 3)
    F.cross_entropy(logits, torch.from_numpy(phase))


def _first_intervention_day_argmax_bool() -> None:
    stringency = torch.tensor([0, 0, 0, 11, 20, 45, 71, 71, 71, 65, 60], dtype=torch.float32)
    lockdown = stringency > 50
    lockdown.argmax()


def _cumulative_uint32_counts_diff() -> None:
    cumulative = np.array([10, 14, 20, 29, 41, 58, 83], dtype=np.uint32)  # as stored in the parquet export
    torch.from_numpy(cumulative).diff()


def _school_closure_uint8_masked_fill() -> None:
    _seeded()
    contacts = torch.from_numpy(_POLYMOD).float()
    school_closed = np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=np.uint8)
    contacts.masked_fill(torch.from_numpy(school_closed), 0.5)


def _npi_float_flags_where() -> None:
    beta = torch.full((_DAYS,), 0.3)
    npi = torch.zeros(_DAYS)
    npi[10:20] = 1.0  # lockdown flag column from the policy tracker, read as float
    torch.where(npi, beta * 0.4, beta)


def _fips_true_division_state_embedding() -> None:
    _seeded()
    county_fips = torch.tensor([6037, 17031, 48201, 4013, 6073])
    state_fips = torch.floor(county_fips / 1000)  # first two digits: the state
    state_embedding = nn.Embedding(57, 8)
    state_embedding(state_fips)


def _reported_cases_scatter_add_by_onset() -> None:
    reported = torch.tensor([5, 9, 14, 11, 20, 17])  # cases by report day
    delay = torch.tensor([3, 2, 4, 3, 2, 3])  # days from onset to report
    onset_day = (torch.arange(6) - delay).clamp(min=0)
    by_onset = torch.zeros(6)
    by_onset.scatter_add_(0, onset_day, reported)


def _chain_binomial_susceptibles_in_place() -> None:
    _seeded()
    susceptible = torch.tensor([990, 985, 995])  # Reed-Frost per household cluster
    infected = torch.tensor([10, 15, 5])
    p_infect = 1 - (1 - 0.002) ** infected.float()
    new_infections = torch.binomial(susceptible.float(), p_infect)
    susceptible -= new_infections


CASES: dict[str, LiveCase] = {
    # a POLYMOD contact matrix from numpy (float64) @ the fp32 per-region, per-age prevalence (3-D matmul)
    "polymod-contacts-f64-batched-matmul": case(_polymod_contacts_f64_batched_matmul, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # renewal equation: fp32 incidence conv1d'd with a discretised gamma serial interval from numpy (float64)
    "renewal-conv1d-numpy-serial-interval-f64": case(_renewal_conv1d_numpy_serial_interval, "conv_weight_dtype",
                                                     "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # renewal equation: the int64 daily case counts conv1d'd straight with an fp32 serial interval
    "renewal-conv1d-int64-case-counts": case(_renewal_conv1d_int64_case_counts, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # renewal equation by FFT convolution of the fp16 surrogate's incidence on the CPU
    "renewal-fft-convolution-fp16": case(_renewal_fft_convolution_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # R0 as the spectral radius of a bf16 next-generation matrix with linalg.eigvals
    "next-generation-matrix-eigvals-bf16": case(_next_generation_matrix_eigvals_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a stiff SEIR step by backward Euler: linalg.solve of (I - hJ) from an fp16 surrogate's jacrev
    "stiff-seir-implicit-euler-solve-fp16": case(_stiff_seir_implicit_euler_solve_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # universal differential equation cast to bf16: an fp32 per-age recovery attribute promotes RK4's second stage
    "ude-fp32-mechanistic-term-rk4-stage": case(_ude_fp32_mechanistic_term_rk4, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ODE-RNN: the latent evolved under bf16 autocast, the fp32 GRUCell observation update after the region
    "latent-ode-autocast-hidden-grucell": case(_latent_ode_autocast_hidden_into_grucell, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a running fp32 Rt per region lerp_'d toward the bf16 head's daily estimate
    "rt-smoothing-lerp-bf16-estimate": case(_rt_smoothing_lerp_bf16_estimate, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # log commuter-flow shares (fp32) as the float attention mask of a halved MultiheadAttention over regions
    "mobility-log-flow-mask-half-mha": case(_mobility_log_flow_mask_half_mha, "attn_mask_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 region queries attending over keys/values from a mobility encoder added after the cast (fp32) by SDPA
    "region-queries-sdpa-fp32-mobility-keys": case(_region_queries_sdpa_fp32_mobility_keys, "sdpa_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-region fp32 contact matrices torch.bmm'd with the bf16 surrogate's prevalence
    "per-region-contact-bmm-bf16-prevalence": case(_per_region_contact_bmm_bf16_prevalence, "batched_matmul_dtype",
                                                   "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a halved neural ODE surrogate trained with GradScaler on the CPU
    "neural-ode-half-grad-scaler": case(_neural_ode_half_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 vector field opening with LayerNorm given the fp32 initial compartments
    "vector-field-layer-norm-bf16-fp32-state": case(_vector_field_layer_norm_bf16_fp32_state, "norm_param_dtype",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # seeding sensitivity by torch.func.jvp of a bf16 surrogate rollout with an fp32 tangent
    "seeding-sensitivity-jvp-fp32-tangent": case(_seeding_sensitivity_jvp_fp32_tangent, "matmul_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hospital occupancy from an fp16-autocast surrogate, Huber loss taken outside autocast against fp32 data, backward
    "hospital-occupancy-huber-outside-autocast": case(_hospital_occupancy_huber_outside_autocast, "loss_dtype", "f32",
                                                      "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 susceptibles clamped to [0, N] with a city's population of 8.4 million
    "susceptibles-clamped-to-population-fp16": case(_susceptibles_clamped_to_population_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # world and national populations put into an int32 tensor
    "global-populations-int32": case(_global_populations_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 SEIR on raw counts: beta*S*I overflows, inf - inf gives NaN rates that Poisson's validation refuses
    "seir-fp16-raw-counts-poisson-nan": case(_seir_fp16_raw_counts_poisson_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # negative binomial p = mu / (mu + r) with relu'd r and mu both 0 in a region: 0/0 NaN probs
    "negative-binomial-zero-dispersion-zero-mean": case(_negative_binomial_zero_dispersion_zero_mean, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # credible intervals of bf16 Rt posterior draws with np.percentile
    "rt-posterior-bf16-numpy-percentile": case(_rt_posterior_bf16_numpy_percentile, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # weekly counts with "<5" small-cell suppression: an object array from pandas into torch.from_numpy
    "suppressed-small-counts-object-array": case(_suppressed_small_counts_object_array, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # epidemic-phase labels from np.sign(np.diff(...)) + 1 (float64) as cross_entropy's target
    "phase-classifier-float64-labels": case(_phase_classifier_float64_labels, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # the first lockdown day as argmax of the bool stringency > 50 mask
    "first-intervention-day-argmax-bool": case(_first_intervention_day_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # daily new cases as diff of cumulative counts stored as uint32 in the parquet export
    "cumulative-uint32-counts-diff": case(_cumulative_uint32_counts_diff, "no_kernel", "uint32",
        grade="correct", grade_at_freeze="correct"),
    # school-closure mask (numpy uint8) used in masked_fill to halve the contact matrix's school-age block
    "school-closure-uint8-masked-fill": case(_school_closure_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a float 0/1 lockdown flag column used as torch.where's condition on the daily beta
    "npi-float-flags-where": case(_npi_float_flags_where, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # state ids from county FIPS codes by true division and floor (float), looked up in nn.Embedding
    "fips-true-division-state-embedding": case(_fips_true_division_state_embedding, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # reporting delays: int64 cases by report day scatter_add_'ed into an fp32 by-onset buffer
    "reported-cases-scatter-add-by-onset": case(_reported_cases_scatter_add_by_onset, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Reed-Frost chain binomial: float binomial draws subtracted in place from the int64 susceptibles
    "chain-binomial-susceptibles-in-place": case(_chain_binomial_susceptibles_in_place, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
}
