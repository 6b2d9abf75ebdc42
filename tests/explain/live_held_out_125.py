"""Held-out live set 125: scientific machine learning and PDE surrogates written by hand in low precision
(physics-informed networks taking autograd.grad of float64 collocation points, hard and soft boundary conditions with
bool masks, residual-based adaptive sampling, Fourier neural operators with rfft/irfft and complex spectral weights
beside bf16 layers, attention-based neural operators, mesh graph networks with integer cell and edge lists,
torch.func jacrev and vmap in half precision, finite-difference stencils as conv kernels, ODE integrators and latent
ODEs stepping in fp16). Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at c3efaec."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c3efaec"

bf16, f16 = torch.bfloat16, torch.float16
_WIDTH = 16  # hidden width of the small networks below
_MODES = 8  # Fourier modes kept by the spectral convolutions
_GRID = 64  # points of the 1-D grids


def _seeded() -> None:
    torch.manual_seed(0)


def _pinn(inputs: int = 2, outputs: int = 1, width: int = 32) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(),
                         nn.Linear(width, outputs))


def _laplacian_stencil() -> torch.Tensor:
    return torch.tensor([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])[None, None]


def _triangles() -> np.ndarray:
    """A 3 x 3-node structured patch cut into 8 triangles (node ids as a mesh reader returns them)."""
    return np.array([[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4], [3, 4, 7], [3, 7, 6], [4, 5, 8], [4, 8, 7]])


# --- physics-informed networks


def _pinn_numpy_uniform_collocation() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    xt = torch.from_numpy(rng.uniform(0.0, 1.0, size=(256, 2))).requires_grad_()  # (x, t) in the unit square
    net = _pinn()
    u = net(xt)
    du = torch.autograd.grad(u, xt, torch.ones_like(u), create_graph=True)[0]
    (du[:, 1:] - 0.01 * du[:, :1]).pow(2).mean()


def _pinn_hard_dirichlet_one_minus_bool() -> None:
    _seeded()
    net = _pinn()
    x = torch.rand(256, 2)
    on_wall = ((x[:, :1] < 0.02) | (x[:, :1] > 0.98))
    g = torch.sin(torch.pi * x[:, 1:])  # Dirichlet data on the two walls
    u = g * on_wall + (1 - on_wall) * net(x)  # hard constraint: the network only acts inside
    u.mean()


def _pinn_rar_fp16_residual_sampling() -> None:
    _seeded()
    net = _pinn().half()
    candidates = (torch.rand(2048, 2) * torch.tensor([1.0, 10.0])).half().requires_grad_()
    u = net(candidates) * 300.0  # temperature in kelvin, the network predicts T / 300
    du = torch.autograd.grad(u.sum(), candidates, create_graph=True)[0]
    u_xx = torch.autograd.grad(du[:, 0].sum(), candidates)[0][:, 0]
    source = 500.0 * torch.sin(torch.pi * candidates[:, 0].detach())
    residual = du[:, 1].detach() - 0.5 * u_xx - source
    weights = residual.pow(2)  # residual-based adaptive refinement: sample where the residual is large
    new_points = torch.multinomial(weights / weights.sum(), 128, replacement=False)
    candidates[new_points]


def _pinn_boundary_fraction_bool_mean() -> None:
    _seeded()
    x = torch.rand(1024, 2)
    on_boundary = (x < 0.05).any(-1) | (x > 0.95).any(-1)
    boundary_share = on_boundary.mean()  # balance the two loss terms by how many points each has
    1.0 / boundary_share


def _pinn_finite_difference_gradient_assigned() -> None:
    _seeded()
    net = _pinn()
    x = torch.rand(64, 2, dtype=torch.float64)
    weight = net[0].weight
    fd_grad = torch.zeros(weight.shape, dtype=torch.float64)  # central differences in double for the check
    eps = 1e-6
    with torch.no_grad():
        for i in range(2):
            base = weight[0, i].item()
            weight[0, i] = base + eps
            plus = net(x.float()).pow(2).mean().double()
            weight[0, i] = base - eps
            minus = net(x.float()).pow(2).mean().double()
            weight[0, i] = base
            fd_grad[0, i] = (plus - minus) / (2 * eps)
    weight.grad = fd_grad  # train with the verified gradient


# --- Fourier and attention neural operators


def _fno_spectral_path_upcast_not_cast_back() -> None:
    _seeded()
    lift = nn.Linear(2, _WIDTH).to(bf16)
    spectral_weight = torch.randn(_WIDTH, _WIDTH, _MODES, dtype=torch.cfloat) / _WIDTH**2
    local = nn.Conv1d(_WIDTH, _WIDTH, 1).to(bf16)
    project = nn.Linear(_WIDTH, 1).to(bf16)
    a = torch.rand(4, _GRID, 2, dtype=bf16)  # coefficient and grid coordinate
    h = lift(a).transpose(1, 2)
    h_ft = torch.fft.rfft(h.float())  # the FFT has no bf16 kernel, so the spectral path goes through fp32
    out_ft = torch.zeros(4, _WIDTH, _GRID // 2 + 1, dtype=torch.cfloat)
    out_ft[:, :, :_MODES] = torch.einsum("bix,iox->box", h_ft[:, :, :_MODES], spectral_weight)
    h = F.gelu(torch.fft.irfft(out_ft, n=_GRID) + local(h))
    project(h.transpose(1, 2))


def _fno_numpy_complex128_spectral_weights() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    scale = 1.0 / _WIDTH**2
    init = scale * (rng.standard_normal((_WIDTH, _WIDTH, _MODES)) + 1j * rng.standard_normal((_WIDTH, _WIDTH, _MODES)))
    spectral_weight = nn.Parameter(torch.from_numpy(init))  # complex128 from numpy's complex arithmetic
    h = torch.randn(2, _WIDTH, _GRID)
    h_ft = torch.fft.rfft(h)
    torch.einsum("bix,iox->box", h_ft[:, :, :_MODES], spectral_weight)


class _RealPairSpectralConv(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        # complex weights kept as (real, imag) pairs so that optimizers and checkpoints see a real tensor
        self.weight = nn.Parameter(torch.randn(_WIDTH, _WIDTH, _MODES, 2) / _WIDTH**2)

    def forward(self, h_ft: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bix,iox->box", h_ft[:, :, :_MODES], torch.view_as_complex(self.weight))


def _fno_real_pair_weights_view_as_complex_bf16() -> None:
    _seeded()
    spectral = _RealPairSpectralConv().to(bf16)  # the whole operator cast for bf16 training
    h = torch.randn(2, _WIDTH, _GRID)
    spectral(torch.fft.rfft(h))


def _fno_input_instance_norm_bf16() -> None:
    _seeded()
    operator = nn.Sequential(nn.InstanceNorm1d(1, affine=True), nn.Conv1d(1, _WIDTH, 1)).to(bf16)
    permeability = torch.where(torch.rand(8, 1, _GRID) > 0.5, 12.0, 3.0)  # two-phase Darcy coefficient, fp32
    operator(permeability)


def _operator_attention_fp32_function_encoder() -> None:
    _seeded()
    query_net = nn.Linear(2, _WIDTH).to(bf16)  # query points (x, y) of the bf16 operator
    function_encoder = nn.Linear(3, 2 * _WIDTH)  # added after model.to(bf16): encodes (x, y, a(x, y)) samples
    queries = torch.rand(2, 128, 2, dtype=bf16)
    samples = torch.rand(2, 256, 3)
    q = query_net(queries).view(2, 128, 4, 4).transpose(1, 2)
    k, v = function_encoder(samples).view(2, 256, 4, 8).transpose(1, 2).chunk(2, dim=-1)
    F.scaled_dot_product_attention(q, k, v)


# --- mesh graph networks


def _mgn_int32_cells_scatter_add() -> None:
    _seeded()
    cells = torch.from_numpy(_triangles().astype(np.int32))  # MeshGraphNets' TFRecords store cells as int32
    senders = torch.cat([cells[:, 0], cells[:, 1], cells[:, 2]])
    receivers = torch.cat([cells[:, 1], cells[:, 2], cells[:, 0]])
    messages = torch.randn(senders.numel(), _WIDTH)
    aggregated = torch.zeros(9, _WIDTH)
    aggregated.scatter_add_(0, receivers[:, None].expand(-1, _WIDTH), messages)


def _mgn_uint32_topology_indexes_positions() -> None:
    _seeded()
    mesh_pos = torch.rand(9, 2)
    cells = torch.from_numpy(_triangles().astype(np.uint32))  # XDMF topology written as UInt by the solver
    corners = mesh_pos[cells]  # (cells, 3, 2)
    corners[:, 1] - corners[:, 0]


def _mgn_uint16_edges_made_bidirectional() -> None:
    cells = torch.from_numpy(_triangles().astype(np.uint16))  # small meshes saved as uint16 in the HDF5 dataset
    edges = torch.cat([cells[:, [0, 1]], cells[:, [1, 2]], cells[:, [2, 0]]])
    torch.cat([edges, edges.flip(1)])


def _mgn_free_nodes_bool_index_assign_bf16() -> None:
    _seeded()
    world_pos = torch.rand(9, 3)  # fp32 simulator state of the cloth
    is_handle = torch.tensor([True, False, True, False, False, False, False, False, False])
    decoder = nn.Linear(_WIDTH, 3).to(bf16)
    latents = torch.randn(9, _WIDTH, dtype=bf16)
    next_pos = world_pos.to(bf16) + decoder(latents)  # the model side works in bf16
    world_pos[~is_handle] = next_pos[~is_handle]


def _mgn_edges_int16_for_large_mesh() -> None:
    n_nodes = 40_000
    ring = [[i, (i + 1) % n_nodes] for i in range(n_nodes - 3, n_nodes)]
    torch.tensor(ring, dtype=torch.int16)  # "node ids fit in 16 bits" to halve the edge list


# --- torch.func in half precision


def _vmap_jacrev_half_pinn_fp32_points() -> None:
    _seeded()
    net = _pinn().half()
    points = torch.rand(64, 2)
    gradient = torch.func.vmap(torch.func.jacrev(lambda p: net(p).squeeze(-1)))
    gradient(points)


def _jacrev_flow_map_det_half() -> None:
    _seeded()
    vector_field = nn.Sequential(nn.Linear(3, _WIDTH), nn.Tanh(), nn.Linear(_WIDTH, 3)).half()

    def flow(y0: torch.Tensor) -> torch.Tensor:
        y = y0
        for _ in range(10):
            y = y + 0.05 * vector_field(y)
        return y

    jacobian = torch.func.jacrev(flow)(torch.rand(3, dtype=f16))
    torch.linalg.det(jacobian)  # Liouville check: volume change of the learned flow


# --- finite-difference stencils


def _fd_laplacian_fp32_stencil_bf16_field() -> None:
    _seeded()
    u = torch.rand(2, 1, 32, 32, dtype=bf16)  # the surrogate's bf16 prediction
    h = 1.0 / 31
    laplacian = F.conv2d(u, _laplacian_stencil() / h**2, padding=1)
    laplacian.pow(2).mean()


def _fd_obstacle_mask_int_normals() -> None:
    yy, xx = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    obstacle = np.where((xx - 16) ** 2 + (yy - 16) ** 2 < 36, 1, 0)  # cylinder rasterised on the grid, int64
    mask = torch.from_numpy(obstacle)[None, None]
    d_dx = torch.tensor([[-0.5, 0.0, 0.5]])[None, None]
    F.conv2d(mask, d_dx, padding=(0, 1))


def _fd_correction_conv_bias_reset_after_cast() -> None:
    _seeded()
    correction = nn.Conv2d(1, 1, 3, padding=1).to(bf16)
    with torch.no_grad():
        correction.weight.copy_(_laplacian_stencil())  # start from the exact stencil
    correction.bias = nn.Parameter(torch.zeros(1))  # and no offset
    correction(torch.rand(1, 1, 32, 32, dtype=bf16))


# --- ODE integrators and latent ODEs


def _dopri5_float64_tableau_einsum() -> None:
    _seeded()
    b = torch.tensor([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0], dtype=torch.float64)
    stages = torch.randn(7, 16, 3)  # k1..k7 of the learned vector field
    y, dt = torch.randn(16, 3), 0.01
    y + dt * torch.einsum("s,sbd->bd", b, stages)


def _dense_output_lerp_fp16_state() -> None:
    _seeded()
    y_prev = torch.rand(16, 3, dtype=f16)  # trajectory stored in fp16 to fit the rollout
    y_next = torch.rand(16, 3)  # the fp32 step just taken
    theta = (0.013 - 0.01) / 0.005
    torch.lerp(y_prev, y_next, theta)


def _van_der_pol_fp16_explicit_euler() -> None:
    mu, dt = 1000.0, 0.01  # stiff oscillator, stepped explicitly in fp16
    y0 = torch.tensor([2.0, 0.0], dtype=f16, requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = y0
        for _ in range(20):
            x, v = y[0], y[1]
            y = y + dt * torch.stack([v, mu * (1 - x * x) * v - x])
        y.pow(2).sum().backward()


def _latent_ode_gru_encoder_solve_ivp_data() -> None:
    _seeded()
    encoder = nn.GRU(3, _WIDTH, batch_first=True)
    t = np.linspace(0.0, 2.0, 20)
    observations = np.stack([np.sin(t), np.cos(t), np.exp(-t)], -1)[None].repeat(4, 0)  # scipy solve_ivp's sol.y.T
    encoder(torch.from_numpy(observations).flip(1))  # the latent ODE encoder reads the series backwards


def _lorenz_integer_initial_state_in_place() -> None:
    sigma, rho, beta, dt = 10.0, 28.0, 8.0 / 3.0, 0.01
    y = torch.tensor([1, 1, 1])  # the textbook initial condition

    def lorenz(s: torch.Tensor) -> torch.Tensor:
        x, yy, z = s
        return torch.stack([sigma * (yy - x), x * (rho - z) - yy, x * yy - beta * z])

    for _ in range(3):
        y += dt * lorenz(y)


def _implicit_euler_scipy_mass_matrix_solve() -> None:
    _seeded()
    n = 8
    mass = np.diag(np.full(n, 2.0 / 3.0)) + np.diag(np.full(n - 1, 1.0 / 6.0), 1) + np.diag(np.full(n - 1, 1.0 / 6.0), -1)
    stiffness = 2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)  # both from scipy's .toarray(): float64
    dt = 1e-2
    system = torch.from_numpy(mass + dt * stiffness)
    u = torch.rand(n, 1)  # the surrogate's fp32 state
    torch.linalg.solve(system, torch.from_numpy(mass).float() @ u)


# --- sampling, classifiers and export around the surrogate


def _sobol_collocation_in_model_dtype() -> None:
    dtype = bf16  # config.dtype of the bf16 PINN
    sobol = torch.quasirandom.SobolEngine(dimension=2, scramble=True, seed=0)
    sobol.draw(512, dtype=dtype)


def _flow_regime_bce_long_target() -> None:
    _seeded()
    reynolds = torch.rand(64) * 5000
    logits = _pinn(1, 1)(torch.log(reynolds)[:, None]).squeeze(-1)
    turbulent = (reynolds > 2300).long()
    F.binary_cross_entropy_with_logits(logits, turbulent)


def _shock_detector_float_labels_cross_entropy() -> None:
    _seeded()
    u = torch.cumsum(torch.randn(8, _GRID), -1)
    jump = (u[:, 1:] - u[:, :-1]).abs()
    labels = (jump > 2.0).float()  # 1 where a cell face holds a shock
    detector = nn.Conv1d(1, 2, 3, padding=1)
    logits = detector(jump[:, None])
    F.cross_entropy(logits, labels)


def _bf16_prediction_against_scipy_reference() -> None:
    _seeded()
    model = _pinn(1, 1).to(bf16)
    x = torch.linspace(0, 1, _GRID, dtype=bf16)[:, None]
    reference = np.sin(np.pi * np.linspace(0, 1, _GRID))[:, None]  # scipy's reference solution
    with torch.no_grad():
        prediction = model(x)
    np.abs(prediction.numpy() - reference).max()


CASES: dict[str, LiveCase] = {
    # PINN collocation points drawn with numpy's uniform (float64), requires_grad, into the fp32 network
    "pinn-numpy-uniform-f64-collocation": case(_pinn_numpy_uniform_collocation, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # hard Dirichlet constraint u = g * wall + (1 - wall) * net(x) with the bool wall mask
    "pinn-hard-dirichlet-one-minus-bool-wall": case(_pinn_hard_dirichlet_one_minus_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # residual-based adaptive refinement in an fp16 PINN: squared residuals in kelvin overflow, multinomial refuses
    "pinn-rar-fp16-residual-multinomial": case(_pinn_rar_fp16_residual_sampling, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # loss balancing by the share of boundary points, taken with .mean() of the bool boundary mask
    "pinn-boundary-share-bool-mean": case(_pinn_boundary_fraction_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a float64 central-difference gradient check assigned as the fp32 first layer's .grad
    "pinn-f64-finite-difference-grad-assigned": case(_pinn_finite_difference_gradient_assigned, "loss_dtype", "f64",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # FNO: the spectral path upcast to fp32 for the FFT and never cast back, into the bf16 projection Linear
    "fno-spectral-path-fp32-into-bf16-projection": case(_fno_spectral_path_upcast_not_cast_back, "matmul_dtype",
                                                        "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FNO spectral weights initialised with numpy complex arithmetic (complex128), einsum'd with the complex64 rfft
    "fno-numpy-complex128-spectral-weights-einsum": case(_fno_numpy_complex128_spectral_weights, "matmul_dtype",
                                                         "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # spectral weights kept as (real, imag) pairs, cast to bf16 with the operator, then view_as_complex
    "fno-real-pair-weights-bf16-view-as-complex": case(_fno_real_pair_weights_view_as_complex_bf16, "no_kernel",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 FNO opening with an affine InstanceNorm1d, given the fp32 two-phase Darcy coefficient field
    "fno-instance-norm-bf16-fp32-coefficient": case(_fno_input_instance_norm_bf16, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # attention neural operator: bf16 query-point queries, keys/values from an fp32 function encoder added after the cast
    "operator-attention-fp32-function-encoder-sdpa": case(_operator_attention_fp32_function_encoder, "sdpa_dtype",
                                                          "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # MeshGraphNets' int32 cells turned into receivers for scatter_add_ message aggregation
    "mgn-int32-cells-scatter-add-receivers": case(_mgn_int32_cells_scatter_add, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # uint32 XDMF topology used to index the mesh positions for per-cell edge vectors
    "mgn-uint32-topology-index-positions": case(_mgn_uint32_topology_indexes_positions, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # uint16 cells from HDF5 made into bidirectional edges with flip
    "mgn-uint16-edges-flip-bidirectional": case(_mgn_uint16_edges_made_bidirectional, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # cloth rollout: the bf16 decoder's next positions written into the fp32 state at the free nodes by a bool index
    "mgn-free-nodes-bool-index-assign-bf16": case(_mgn_free_nodes_bool_index_assign_bf16, "indexed_write_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # edge list of a 40 000-node mesh stored as int16
    "mgn-edges-int16-40k-nodes": case(_mgn_edges_int16_for_large_mesh, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # per-point gradients by vmap(jacrev) of a .half() PINN on fp32 collocation points
    "vmap-jacrev-half-pinn-fp32-points": case(_vmap_jacrev_half_pinn_fp32_points, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # determinant of a jacrev Jacobian of an fp16 learned flow map (Liouville volume check)
    "jacrev-flow-map-det-f16": case(_jacrev_flow_map_det_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # 5-point Laplacian stencil (fp32) convolved with the surrogate's bf16 field for a physics loss
    "fd-laplacian-fp32-stencil-bf16-field": case(_fd_laplacian_fp32_stencil_bf16_field, "conv_weight_dtype", "bf16",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # boundary normals from a central-difference conv of an int64 rasterised obstacle mask
    "fd-obstacle-mask-int64-gradient-conv": case(_fd_obstacle_mask_int_normals, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a learned-correction stencil conv cast to bf16, its bias then reset with a new fp32 zeros Parameter
    "fd-correction-conv-bias-reset-after-cast": case(_fd_correction_conv_bias_reset_after_cast, "conv_bias_dtype",
                                                     "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Dormand-Prince weights as a float64 tableau einsum'd with the fp32 stages
    "dopri5-f64-tableau-einsum-stages": case(_dopri5_float64_tableau_einsum, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # dense output between an fp16-stored step and the fp32 step just taken, by lerp
    "ode-dense-output-lerp-f16-f32": case(_dense_output_lerp_fp16_state, "lerp_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # stiff Van der Pol stepped by explicit Euler in fp16: overflow, NaN in backward under anomaly mode
    "van-der-pol-fp16-euler-anomaly-nan": case(_van_der_pol_fp16_explicit_euler, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # latent ODE: the fp32 GRU encoder given solve_ivp's float64 trajectories
    "latent-ode-gru-f64-solve-ivp": case(_latent_ode_gru_encoder_solve_ivp_data, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Lorenz system from the integer initial condition [1, 1, 1], Euler-stepped in place
    "lorenz-int-initial-state-in-place-euler": case(_lorenz_integer_initial_state_in_place, "result_cast", "f32",
                                                    "int64",
        grade="correct", grade_at_freeze="correct"),
    # implicit Euler: linalg.solve of the float64 scipy (M + dt K) against the fp32 right side
    "implicit-euler-f64-mass-matrix-solve": case(_implicit_euler_scipy_mass_matrix_solve, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Sobol collocation points drawn in the bf16 model dtype
    "sobol-collocation-bf16-draw": case(_sobol_collocation_in_model_dtype, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # laminar/turbulent classifier with (Re > 2300).long() as BCE-with-logits' target
    "flow-regime-long-target-bce": case(_flow_regime_bce_long_target, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-face shock detector trained with cross_entropy against float 0/1 labels
    "shock-detector-float-labels-cross-entropy": case(_shock_detector_float_labels_cross_entropy, "target_dtype",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 surrogate's prediction compared with the scipy reference through .numpy()
    "bf16-prediction-numpy-reference": case(_bf16_prediction_against_scipy_reference, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
