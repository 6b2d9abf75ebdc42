"""Held-out live set 12: research model code written from papers in plain torch (state-space models and linear
attention, mixture-of-experts routing, flows and diffusion, memory layers, geometric layers, contrastive objectives,
capsules, hypernetworks) run in bf16 or fp16. Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at f0752d3."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f0752d3"

bf16, f16 = torch.bfloat16, torch.float16


# --- state-space models and linear attention -------------------------------------------------------------------------

def _selective_scan_state_default_dtype() -> None:
    batch, dim, d_state, length = 2, 4, 3, 5
    u = torch.randn(batch, dim, length, dtype=bf16)
    delta = F.softplus(torch.randn(batch, dim, length, dtype=bf16))
    a = -torch.rand(dim, d_state, dtype=bf16)
    b = torch.randn(batch, d_state, length, dtype=bf16)
    c = torch.randn(batch, d_state, length, dtype=bf16)
    delta_a = torch.exp(torch.einsum("bdl,dn->bdln", delta, a))
    delta_b_u = torch.einsum("bdl,bnl,bdl->bdln", delta, b, u)
    state = torch.zeros(batch, dim, d_state)
    ys = []
    for i in range(length):
        state = delta_a[:, :, i] * state + delta_b_u[:, :, i]
        ys.append(torch.einsum("bdn,bn->bd", state, c[:, :, i]))
    torch.stack(ys, dim=2)


class _MambaMixer(nn.Module):
    """A sequential-scan Mamba mixer: input projection, selective SSM with A_log and D, gated output projection."""

    def __init__(self, d_model: int = 8, d_inner: int = 16, d_state: int = 4) -> None:
        super().__init__()
        self.in_proj = nn.Linear(d_model, 2 * d_inner, bias=False)
        self.x_proj = nn.Linear(d_inner, 1 + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(1, d_inner)
        self.A_log = nn.Parameter(torch.log(torch.arange(1, d_state + 1, dtype=torch.float32)).repeat(d_inner, 1))
        self.D = nn.Parameter(torch.ones(d_inner))
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)
        self.d_state = d_state

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        x, z = self.in_proj(hidden).chunk(2, dim=-1)
        x = F.silu(x)
        a = -torch.exp(self.A_log)
        dt, b, c = self.x_proj(x).split([1, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))
        h = x.new_zeros(x.shape[0], x.shape[2], self.d_state)
        ys = []
        for t in range(x.shape[1]):
            h = torch.exp(dt[:, t, :, None] * a) * h + dt[:, t, :, None] * b[:, t, None, :] * x[:, t, :, None]
            ys.append((h * c[:, t, None, :]).sum(-1))
        y = torch.stack(ys, dim=1) + x * self.D
        return self.out_proj(y * F.silu(z))


def _mamba_a_log_and_d_restored_fp32() -> None:
    mixer = _MambaMixer().to(bf16)
    mixer.A_log.data = mixer.A_log.data.float()
    mixer.D.data = mixer.D.data.float()
    mixer(torch.randn(2, 5, 8, dtype=bf16))


def _segsum_float_tril_mask() -> None:
    length = 6
    log_decay = -F.softplus(torch.randn(2, 3, length)).to(bf16)
    x = log_decay[..., None].repeat(1, 1, 1, length)
    mask = torch.tril(torch.ones(length, length), diagonal=-1)
    x = x.masked_fill(~mask, 0)
    segsum = torch.cumsum(x, dim=-2)
    torch.exp(segsum)


class _S4DKernel(nn.Module):
    """S4D-Lin: diagonal complex A from a log real part and an imaginary part, ZOH-discretised, Vandermonde kernel."""

    def __init__(self, heads: int = 4, n: int = 8) -> None:
        super().__init__()
        self.log_dt = nn.Parameter(torch.rand(heads) * (math.log(0.1) - math.log(0.001)) + math.log(0.001))
        self.C_re = nn.Parameter(torch.randn(heads, n // 2))
        self.C_im = nn.Parameter(torch.randn(heads, n // 2))
        self.log_A_real = nn.Parameter(torch.log(0.5 * torch.ones(heads, n // 2)))
        self.A_imag = nn.Parameter(math.pi * torch.arange(n // 2, dtype=torch.float32).repeat(heads, 1))

    def forward(self, length: int) -> torch.Tensor:
        dt = torch.exp(self.log_dt)
        a = torch.complex(-torch.exp(self.log_A_real), self.A_imag)
        c = torch.complex(self.C_re, self.C_im)
        dt_a = a * dt[:, None]
        k = dt_a[..., None] * torch.arange(length, device=a.device)
        c = c * (torch.exp(dt_a) - 1.0) / a
        return 2 * torch.einsum("hn,hnl->hl", c, torch.exp(k)).real


def _s4d_kernel_in_bf16() -> None:
    _S4DKernel().to(bf16)(16)


def _hippo_legs(order: int) -> tuple[np.ndarray, np.ndarray]:
    q = np.arange(order, dtype=np.float64)
    col, row = np.meshgrid(q, q)
    r = 2 * q + 1
    m = -(np.where(row >= col, r, 0) - np.diag(q))
    t = np.sqrt(np.diag(2 * q + 1))
    return t @ m @ np.linalg.inv(t), np.diag(t)[:, None]


class _LegendreMemory(nn.Module):
    """A Legendre memory unit: HiPPO-LegS matrices discretised (bilinear) with numpy, then a linear readout."""

    def __init__(self, order: int = 4, dt: float = 0.1) -> None:
        super().__init__()
        a, b = _hippo_legs(order)
        eye = np.eye(order)
        self.Ad = torch.from_numpy(np.linalg.solve(eye - dt / 2 * a, eye + dt / 2 * a))
        self.Bd = torch.from_numpy(np.linalg.solve(eye - dt / 2 * a, dt * b))
        self.readout = nn.Linear(order, 3)

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        m = u.new_zeros(u.shape[0], self.Ad.shape[0])
        for t in range(u.shape[1]):
            m = m @ self.Ad.T + u[:, t] @ self.Bd.T
        return self.readout(m)


def _lmu_numpy_hippo_in_bf16_model() -> None:
    _LegendreMemory().to(bf16)(torch.randn(2, 5, 1, dtype=bf16))


def _retention_decay_mask_default_dtype() -> None:
    heads, length, dim = 2, 5, 8
    q, k, v = (torch.randn(1, heads, length, dim, dtype=bf16) for _ in range(3))
    gamma = 1 - 2.0 ** (-5 - torch.arange(heads))
    n = torch.arange(length)
    distance = n[:, None] - n[None, :]
    decay = gamma[:, None, None] ** distance.clamp(min=0) * (distance >= 0)
    retention = (q @ k.transpose(-1, -2)) * decay
    retention @ v


def _mamba_state_cache_fp32_index_copy() -> None:
    slots, d_inner, d_state = 4, 8, 3
    ssm_states = torch.zeros(slots, d_inner, d_state)
    slot_ids = torch.tensor([2, 0])
    state = ssm_states.index_select(0, slot_ids).to(bf16)
    decay = torch.rand(2, d_inner, d_state, dtype=bf16)
    update = torch.randn(2, d_inner, d_state, dtype=bf16)
    new_state = decay * state + update
    ssm_states.index_copy_(0, slot_ids, new_state)


# --- mixture-of-experts routing ---------------------------------------------------------------------------------------

def _moe_dispatch_buffer_default_dtype() -> None:
    torch.manual_seed(0)
    n_experts, capacity, d = 3, 4, 8
    tokens = torch.randn(6, d, dtype=bf16)
    router = nn.Linear(d, n_experts, bias=False).to(bf16)
    probs = router(tokens).float().softmax(-1)
    _, expert = probs.max(-1)
    one_hot = F.one_hot(expert, n_experts)
    position = (torch.cumsum(one_hot, 0) * one_hot).sum(-1) - 1
    keep = position < capacity
    dispatched = torch.zeros(n_experts, capacity, d)
    dispatched[expert[keep], position[keep]] = tokens[keep]


def _moe_locations_from_gate_dtype_mask() -> None:
    torch.manual_seed(0)
    n_experts, capacity = 3, 4
    gates = torch.randn(6, n_experts, dtype=bf16).softmax(-1)
    mask = F.one_hot(gates.argmax(-1), n_experts).to(gates.dtype)
    locations = torch.cumsum(mask, dim=0) - 1
    mask = mask * (locations < capacity)
    slot = (locations * mask).sum(-1)
    gate = (gates * mask).sum(-1)
    dispatch = F.one_hot(slot, capacity)
    gate[:, None, None] * mask[:, :, None] * dispatch[:, None, :]


class _ExpertLoadTracker(nn.Module):
    """Keeps an exponential moving average of how many tokens each expert receives, for monitoring and rebalancing."""

    def __init__(self, n_experts: int, decay: float = 0.99) -> None:
        super().__init__()
        self.decay = decay
        self.register_buffer("load", torch.zeros(n_experts, dtype=torch.long))

    def update(self, expert_idx: torch.Tensor) -> None:
        counts = torch.bincount(expert_idx.flatten(), minlength=self.load.numel())
        self.load.mul_(self.decay).add_(counts, alpha=1 - self.decay)


def _expert_load_ema_int_buffer() -> None:
    tracker = _ExpertLoadTracker(4).to(bf16)
    logits = torch.randn(6, 4, dtype=bf16)
    tracker.update(logits.topk(2, dim=-1).indices)


def _cv_squared(x: torch.Tensor) -> torch.Tensor:
    return x.var() / (x.mean() ** 2 + 1e-10)


def _noisy_top_k_load_balancing_int_load() -> None:
    torch.manual_seed(0)
    x = torch.randn(6, 8, dtype=bf16)
    w_gate = torch.randn(8, 4, dtype=bf16)
    w_noise = torch.randn(8, 4, dtype=bf16)
    clean = x @ w_gate
    logits = clean + torch.randn_like(clean) * F.softplus(x @ w_noise)
    top = logits.topk(2, dim=-1)
    gates = torch.zeros_like(logits).scatter(1, top.indices, top.values.softmax(-1))
    importance = gates.sum(0)
    load = (gates > 0).sum(0)
    _cv_squared(importance) + _cv_squared(load)


def _fp8_dispatch_merged_with_bf16_residual() -> None:
    x = torch.randn(6, 8, dtype=bf16)
    scale = x.abs().amax().float() / 448
    received = (x.float() / scale).to(torch.float8_e4m3fn)
    dropped = torch.tensor([False, True, False, False, True, False])
    torch.where(dropped[:, None], x, received)


def _top2_gating_first_choice_scatter_f16() -> None:
    logits = torch.randn(6, 4, dtype=f16)
    top1 = logits.argmax(-1)
    logits_except1 = logits.scatter(1, top1[:, None], -1e9)
    logits_except1.argmax(-1)


# --- normalising flows and diffusion ----------------------------------------------------------------------------------

def _glow_lu_reparametrised_from_bf16_weight() -> None:
    conv = nn.Conv2d(4, 4, 1, bias=False)
    with torch.no_grad():
        conv.weight.copy_(torch.linalg.qr(torch.randn(4, 4))[0][:, :, None, None])
    conv = conv.to(bf16)
    p, lower, upper = torch.linalg.lu(conv.weight.squeeze())
    torch.log(torch.abs(torch.diagonal(upper)))


class _AffineCoupling(nn.Module):
    """RealNVP affine coupling with an unbounded log-scale: the second half scaled by exp(log_s) and shifted."""

    def __init__(self, dim: int = 4, hidden: int = 16) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim // 2, hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x1, x2 = x.chunk(2, dim=-1)
        log_s, t = self.net(x1).chunk(2, dim=-1)
        return torch.cat([x1, x2 * torch.exp(log_s) + t], dim=-1), log_s.sum(-1)


def _realnvp_fp16_raw_pixels_anomaly() -> None:
    torch.manual_seed(0)
    flow = _AffineCoupling().half()
    pixels = torch.randint(0, 256, (8, 4)).half()
    with torch.autograd.detect_anomaly():
        z, log_det = flow(pixels)
        nll = (0.5 * z**2).sum(-1) - log_det
        nll.mean().backward()


def _two_couplings_fp16_base_log_prob_nan() -> None:
    torch.manual_seed(0)
    layers = [_AffineCoupling().half() for _ in range(2)]
    base = torch.distributions.Normal(torch.zeros(4), torch.ones(4))
    z = torch.randint(0, 256, (8, 4)).half()
    log_det = torch.zeros(8, dtype=f16)
    with torch.no_grad():
        for i, layer in enumerate(layers):
            z, ld = layer(z.flip(-1) if i % 2 else z)
            log_det = log_det + ld
    base.log_prob(z).sum(-1) + log_det


def _continuous_time_rescaled_in_place() -> None:
    steps = 1000
    t = torch.randint(0, steps, (4,))
    t.div_(steps)
    x0 = torch.randn(4, 8, dtype=bf16)
    alpha = torch.cos(t * math.pi / 2)[:, None]
    alpha * x0 + (1 - alpha**2).sqrt() * torch.randn_like(x0)


# --- memory and retrieval layers -------------------------------------------------------------------------------------

def _lsh_random_rotations_default_dtype() -> None:
    torch.manual_seed(0)
    qk = torch.randn(2, 8, 16, dtype=bf16)
    n_buckets = 4
    rotations = torch.randn(16, n_buckets // 2)
    rotated = qk @ rotations
    torch.cat([rotated, -rotated], dim=-1).argmax(-1)


def _knn_memory_f16_bank_into_sdpa() -> None:
    torch.manual_seed(0)
    mem_k = torch.randn(64, 8).half()
    mem_v = torch.randn(64, 8).half()
    q = torch.randn(1, 2, 4, 8, dtype=bf16)
    idx = (q.float() @ mem_k.float().T).topk(3, dim=-1).indices
    k, v = mem_k[idx], mem_v[idx]
    F.scaled_dot_product_attention(q.unsqueeze(-2), k, v)


def _knn_leave_one_out_fill_diagonal_f16() -> None:
    torch.manual_seed(0)
    bank = F.normalize(torch.randn(16, 8), dim=-1).half()
    distances = 2 - 2 * bank @ bank.T
    distances.fill_diagonal_(1e10)
    distances.topk(3, largest=False)


# --- equivariant and geometric layers --------------------------------------------------------------------------------

def _spherical_harmonics_legendre_bf16() -> None:
    edge_vec = F.normalize(torch.randn(10, 3), dim=-1).to(bf16)
    cos_theta = edge_vec[:, 2]
    features = [math.sqrt((2 * deg + 1) / (4 * math.pi)) * torch.special.legendre_polynomial_p(cos_theta, deg)
                for deg in range(4)]
    torch.stack(features, dim=-1)


def _dimenet_spherical_bessel_bf16() -> None:
    cutoff = 5.0
    pos = torch.randn(5, 3, dtype=bf16)
    distances = (pos[:, None] - pos[None]).norm(dim=-1)
    freq = math.pi * torch.arange(1, 7, dtype=bf16)
    torch.special.spherical_bessel_j0(freq * distances[..., None] / cutoff)


def _egnn_coordinates_kept_fp32() -> None:
    torch.manual_seed(0)
    h = torch.randn(5, 8, dtype=bf16)
    pos = torch.randn(5, 3)
    row = torch.tensor([0, 1, 1, 2, 3, 4])
    col = torch.tensor([1, 0, 2, 1, 4, 3])
    phi_e = nn.Sequential(nn.Linear(17, 8), nn.SiLU()).to(bf16)
    phi_x = nn.Linear(8, 1).to(bf16)
    rel = pos[row] - pos[col]
    dist2 = (rel**2).sum(-1, keepdim=True)
    m = phi_e(torch.cat([h[row], h[col], dist2.to(bf16)], dim=-1))
    trans = rel.to(bf16) * phi_x(m)
    pos.clone().index_add_(0, row, trans)


def _pbc_integer_cell_offsets() -> None:
    lattice = (torch.eye(3) * 4.0).to(bf16)
    pos = torch.rand(4, 3, dtype=bf16) @ lattice
    src = torch.tensor([0, 1, 2])
    dst = torch.tensor([1, 2, 3])
    cell_offsets = torch.tensor([[0, 0, 0], [1, 0, 0], [0, -1, 0]])
    shift = cell_offsets @ lattice
    (pos[dst] + shift - pos[src]).norm(dim=-1)


def _kabsch_rotation_fp32_bmm() -> None:
    pred = torch.randn(2, 6, 3, dtype=bf16)
    target = torch.randn(2, 6, 3, dtype=bf16)
    p = pred - pred.mean(1, keepdim=True)
    q = target - target.mean(1, keepdim=True)
    u, _, vh = torch.linalg.svd(p.transpose(1, 2).float() @ q.float())
    d = torch.sign(torch.linalg.det(vh.transpose(1, 2) @ u.transpose(1, 2)))
    correction = torch.diag_embed(torch.stack([torch.ones_like(d), torch.ones_like(d), d], dim=-1))
    rotation = vh.transpose(1, 2) @ correction @ u.transpose(1, 2)
    aligned = torch.bmm(p, rotation.transpose(1, 2))
    ((aligned - q) ** 2).sum(-1).mean().sqrt()


def _distance_bias_numpy_coords_attn_mask() -> None:
    coords = torch.from_numpy(np.random.default_rng(0).normal(size=(6, 3)))
    bias = -torch.cdist(coords, coords) ** 2
    q, k, v = (torch.randn(1, 2, 6, 8, dtype=bf16) for _ in range(3))
    F.scaled_dot_product_attention(q, k, v, attn_mask=bias)


# --- contrastive and self-supervised objectives ---------------------------------------------------------------------

def _moco_labels_default_float() -> None:
    torch.manual_seed(0)
    q = F.normalize(torch.randn(4, 8), dim=1).to(bf16)
    k = F.normalize(torch.randn(4, 8), dim=1).to(bf16)
    queue = F.normalize(torch.randn(8, 16), dim=0).to(bf16)
    logits = torch.cat([(q * k).sum(1, keepdim=True), q @ queue], dim=1) / 0.07
    labels = torch.zeros(logits.shape[0])
    F.cross_entropy(logits, labels)


def _nt_xent_float_eye_mask() -> None:
    torch.manual_seed(0)
    z = F.normalize(torch.randn(8, 16), dim=1).to(bf16)
    sim = z @ z.T / 0.5
    sim = sim.masked_fill(torch.eye(8), float("-inf"))
    targets = torch.arange(8).roll(4)
    F.cross_entropy(sim, targets)


def _sinkhorn_numpy(scores: np.ndarray, eps: float = 0.05, iterations: int = 3) -> np.ndarray:
    q = np.exp(scores / eps).T
    q /= q.sum()
    k, b = q.shape
    for _ in range(iterations):
        q /= q.sum(axis=1, keepdims=True) * k
        q /= q.sum(axis=0, keepdims=True) * b
    return (q * b).T


def _swav_numpy_sinkhorn_bf16_scores() -> None:
    torch.manual_seed(0)
    prototypes = nn.Linear(16, 5, bias=False).to(bf16)
    z = F.normalize(torch.randn(8, 16), dim=1).to(bf16)
    scores = prototypes(z)
    with torch.no_grad():
        codes = torch.from_numpy(_sinkhorn_numpy(scores.detach().cpu().numpy()))
    -(codes * F.log_softmax(scores / 0.1, dim=1)).sum(1).mean()


# --- capsule networks and hypernetworks ------------------------------------------------------------------------------

def _squash(s: torch.Tensor, dim: int = -2) -> torch.Tensor:
    norm2 = (s**2).sum(dim, keepdim=True)
    return norm2 / (1 + norm2) * s / torch.sqrt(norm2 + 1e-8)


class _CapsuleRouting(nn.Module):
    """Dynamic routing between capsules (Sabour et al.): prediction vectors, routing logits, agreement by matmul."""

    def __init__(self, in_caps: int = 6, in_dim: int = 4, out_caps: int = 3, out_dim: int = 5) -> None:
        super().__init__()
        self.W = nn.Parameter(0.01 * torch.randn(1, in_caps, out_caps, out_dim, in_dim))
        self.in_caps, self.out_caps = in_caps, out_caps

    def forward(self, u: torch.Tensor, iterations: int = 3) -> torch.Tensor:
        u_hat = self.W @ u[:, :, None, :, None]
        b = torch.zeros(u.shape[0], self.in_caps, self.out_caps, 1, 1)
        for i in range(iterations):
            c = b.softmax(dim=2)
            v = _squash((c * u_hat).sum(1, keepdim=True))
            if i < iterations - 1:
                b = b + u_hat.transpose(-1, -2) @ v
        return v.squeeze(1).squeeze(-1)


def _capsule_routing_logits_default_dtype() -> None:
    torch.manual_seed(0)
    _CapsuleRouting().to(bf16)(torch.randn(2, 6, 4, dtype=bf16))


class _HyperConvNet(nn.Module):
    """A conv net whose middle 3x3 kernel is generated by a small hypernetwork from a learned layer embedding."""

    def __init__(self, channels: int = 4, z_dim: int = 4) -> None:
        super().__init__()
        self.stem = nn.Conv2d(1, channels, 3, padding=1)
        self.layer_z = nn.Parameter(torch.randn(z_dim))
        self.hyper = nn.Linear(z_dim, channels * channels * 9)
        self.channels = channels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.stem(x))
        weight = self.hyper(self.layer_z).view(self.channels, self.channels, 3, 3)
        return F.conv2d(x, weight, padding=1)


def _hypernetwork_kept_fp32_generated_kernel() -> None:
    net = _HyperConvNet().to(bf16)
    net.hyper.float()
    net.layer_z.data = net.layer_z.data.float()
    net(torch.randn(2, 1, 8, 8, dtype=bf16))


def _hypernetwork_halved_grad_scaler() -> None:
    torch.manual_seed(0)
    z = nn.Parameter(torch.randn(4).half())
    hyper = nn.Linear(4, 8 * 8).half()
    optimizer = torch.optim.Adam([z, *hyper.parameters()], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    weight = hyper(z).view(8, 8)
    x = torch.randn(3, 8).half()
    loss = F.mse_loss((x @ weight).float(), torch.randn(3, 8))
    scaler.scale(loss).backward()
    scaler.step(optimizer)


CASES: dict[str, LiveCase] = {
    # --- state-space models and linear attention
    # a reference selective scan run on bf16 inputs without its .float() upcasts: its state from torch.zeros is fp32
    "selective-scan-state-default-dtype": case(_selective_scan_state_default_dtype, "matmul_dtype", "f32",
                                               "bf16", grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave matmul_dtype [f32, bf16] (high confidence). einsum's contraction runs as a batched matmul (bmm), and its bare \"expected scalar type Float but found BFloat16\" was read as a plain matrix multiply since no frame names bmm."
        " Expectation corrected after grading from batched_matmul_dtype to matmul_dtype, the corpus's convention for an"
        " `@` or einsum frame (held_out_2 swin-yolov5-3's `attn @ v`, pykan-105's einsum); the frozen grade stays"
        " wrong."),    # a bf16 Mamba mixer whose A_log and D were put back to fp32 (as the paper keeps them), run without autocast
    "mamba-a-log-d-restored-fp32": case(_mamba_a_log_and_d_restored_fp32, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # Mamba-2 segment sums masked with torch.tril(torch.ones(...)) (float), inverted with ~
    "mamba2-segsum-float-tril-mask": case(_segsum_float_tril_mask, "mask_dtype", fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # an S4D-Lin kernel cast to bf16 builds its complex A with torch.complex
    "s4d-kernel-complex-bf16": case(_s4d_kernel_in_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a Legendre memory unit whose HiPPO matrices were discretised with numpy (float64), kept as plain attributes
    "lmu-numpy-hippo-f64": case(_lmu_numpy_hippo_in_bf16_model, "matmul_dtype", "bf16", "f64", grade="correct", grade_at_freeze="correct"),
    # RetNet parallel retention: the decay mask built each forward from arange (fp32) times bf16 scores, then @ v
    "retnet-decay-mask-default-dtype": case(_retention_decay_mask_default_dtype, "matmul_dtype", "f32",
                                            "bf16", grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave matmul_dtype [f32, bf16] (high confidence). `@` on 4-D tensors runs as a batched matmul (bmm), and its bare \"expected scalar type\" message was read as a plain matrix multiply since no frame names bmm."
        " Expectation corrected after grading from batched_matmul_dtype to matmul_dtype, the corpus's convention for an"
        " `@` or einsum frame (held_out_2 swin-yolov5-3's `attn @ v`, pykan-105's einsum); the frozen grade stays"
        " wrong."),    # serving Mamba with an fp32 SSM state cache, bf16 new states written back by slot with index_copy_
    "mamba-state-cache-fp32-index-copy": case(_mamba_state_cache_fp32_index_copy, "indexed_write_dtype", "f32",
                                              "bf16", grade="correct", grade_at_freeze="correct"),
    # --- mixture-of-experts routing
    # Switch-style dispatch of bf16 tokens into an (expert, slot) buffer made with torch.zeros (fp32)
    "moe-dispatch-buffer-default-dtype": case(_moe_dispatch_buffer_default_dtype, "indexed_write_dtype", "f32",
                                              "bf16", grade="correct", grade_at_freeze="correct"),
    # GShard gating with the expert mask made in the gates' dtype (bf16): the slot from its cumsum is one-hot encoded
    "moe-locations-gate-dtype-one-hot": case(_moe_locations_from_gate_dtype_mask, "index_tensor_dtype",
                                             fix=("long",), grade="correct", grade_at_freeze="correct"),
    # an expert-load moving average kept in an int64 buffer (token counts), decayed in place
    "moe-expert-load-ema-int-buffer": case(_expert_load_ema_int_buffer, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # noisy top-k gating's load-balancing loss: cv_squared of the load (gates > 0).sum(0), an int64, without .float()
    "moe-cv-squared-int-load": case(_noisy_top_k_load_balancing_int_load, "integer_operand", grade="correct", grade_at_freeze="correct"),
    # fp8 tokens received from the expert all-to-all merged with the bf16 residual of dropped tokens by where
    "moe-fp8-dispatch-where-bf16-residual": case(_fp8_dispatch_merged_with_bf16_residual, "fp8_promotion",
                                                 "float8_e4m3fn", "bf16", grade="correct", grade_at_freeze="correct"),
    # top-2 gating in an fp16 model knocking out the first choice with scatter(..., -1e9)
    "moe-top2-scatter-minus-1e9-f16": case(_top2_gating_first_choice_scatter_f16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # --- normalising flows and diffusion
    # a bf16 Glow switched to the LU-decomposed 1x1 conv, the LU taken of its current bf16 weight
    "glow-lu-of-bf16-weight": case(_glow_lu_reparametrised_from_bf16_weight, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a RealNVP coupling with unbounded log-scale in fp16 on raw 0-255 pixels: exp overflows, NaN in backward (anomaly)
    "realnvp-fp16-raw-pixels-anomaly": case(_realnvp_fp16_raw_pixels_anomaly, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # two fp16 couplings on raw pixels: the first overflows to inf, the second makes NaN, the base log_prob refuses
    "flow-fp16-base-log-prob-nan": case(_two_couplings_fp16_base_log_prob_nan, "nonfinite", "f16", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (f0752d3) castwise gave nothing. A torch.distributions support check (ValueError: value not within the support Real(), the printed fp16 tensor holding inf and nan) is not read as NaN from an fp16 overflow."),
    # a diffusion trainer moving to continuous time rescales its int64 sampled timesteps in place
    "diffusion-timesteps-rescaled-in-place": case(_continuous_time_rescaled_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # --- memory and retrieval layers
    # Reformer-style LSH hashing draws its random rotations with torch.randn (fp32) for bf16 shared query-keys
    "lsh-random-rotations-default-dtype": case(_lsh_random_rotations_default_dtype, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a Memorizing-Transformer kNN memory stored in fp16, retrieved keys/values attended by bf16 queries
    "knn-memory-f16-bank-sdpa": case(_knn_memory_f16_bank_into_sdpa, "sdpa_dtype", "bf16", "f16", grade="correct", grade_at_freeze="correct"),
    # leave-one-out kNN over an fp16 embedding bank, the self-distances filled with 1e10
    "knn-leave-one-out-fill-diagonal-f16": case(_knn_leave_one_out_fill_diagonal_f16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # --- equivariant and geometric layers
    # spherical-harmonic edge features from torch.special.legendre_polynomial_p on bf16 edge vectors
    "spherical-harmonics-legendre-bf16": case(_spherical_harmonics_legendre_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a DimeNet-style spherical Bessel radial basis on bf16 distances
    "dimenet-spherical-bessel-bf16": case(_dimenet_spherical_bessel_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # an EGNN keeping coordinates in fp32 for precision, its bf16 coordinate updates index_add_'ed into them
    "egnn-fp32-coords-index-add": case(_egnn_coordinates_kept_fp32, "indexed_write_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # a periodic crystal graph: integer cell offsets from the neighbour list times the bf16 lattice, no .float()
    "pbc-int-cell-offsets-times-lattice": case(_pbc_integer_cell_offsets, "integer_operand", "int64", "bf16", grade="correct", grade_at_freeze="correct"),
    # Kabsch alignment: covariance upcast for the SVD, the fp32 rotation applied to bf16 coordinates with bmm
    "kabsch-fp32-rotation-bmm": case(_kabsch_rotation_fp32_bmm, "batched_matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # an equivariant transformer biasing attention by -distance² from numpy (float64) coordinates, bf16 q/k/v
    "distance-bias-f64-attn-mask": case(_distance_bias_numpy_coords_attn_mask, "attn_mask_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- contrastive and self-supervised objectives
    # MoCo InfoNCE with positives at column 0, labels from torch.zeros(n) without dtype=torch.long
    "moco-infonce-labels-zeros-float": case(_moco_labels_default_float, "target_dtype", "f32", fix=("long",), grade="correct", grade_at_freeze="correct"),
    # SimCLR NT-Xent removing self-similarity with masked_fill(torch.eye(2n), -inf): eye is float
    "simclr-float-eye-mask": case(_nt_xent_float_eye_mask, "mask_dtype", "f32", fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # SwAV codes from a numpy Sinkhorn-Knopp on the bf16 prototype scores
    "swav-numpy-sinkhorn-bf16-scores": case(_swav_numpy_sinkhorn_bf16_scores, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- capsule networks and hypernetworks
    # dynamic routing in a bf16 capsule net, routing logits from torch.zeros (fp32) make the outputs fp32
    "capsule-routing-logits-default-dtype": case(_capsule_routing_logits_default_dtype, "matmul_dtype", "bf16",
                                                 "f32", grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave matmul_dtype [bf16, f32] (high confidence). `@` on 5-D capsule tensors runs as a batched matmul (bmm), and its bare \"expected scalar type\" message was read as a plain matrix multiply since no frame names bmm."
        " Expectation corrected after grading from batched_matmul_dtype to matmul_dtype, the corpus's convention for an"
        " `@` or einsum frame (held_out_2 swin-yolov5-3's `attn @ v`, pykan-105's einsum); the frozen grade stays"
        " wrong."),    # a hypernetwork kept in fp32 generating the conv kernel of a bf16 network
    "hypernetwork-fp32-generated-conv-kernel": case(_hypernetwork_kept_fp32_generated_kernel, "conv_weight_dtype",
                                                    "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a hypernetwork halved with .half() and trained with GradScaler
    "hypernetwork-halved-grad-scaler": case(_hypernetwork_halved_grad_scaler, "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
}
