"""Held-out live set 92: finite-element and structural-mechanics surrogates written by hand in low precision (meshes
with int64 element connectivity, nodal coordinates and stiffness matrices in float64 from scipy, sparse assembly with
index_put/index_fill, boundary-condition masks, mesh graph networks over element adjacency, stress/strain fields and
von Mises stresses, time stepping of structural dynamics, material-id embeddings, surrogates trained under bf16/fp16).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at f9e5f57."""

from __future__ import annotations

import io

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f9e5f57"

bf16, f16 = torch.bfloat16, torch.float16
_E_STEEL = 210e9  # Young's modulus of steel in Pa
_NU = 0.3


def _seeded() -> None:
    torch.manual_seed(0)


def _grid_mesh(nx: int = 3, ny: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """A structured mesh of the unit rectangle split into triangles: float64 node coordinates (what meshio and
    scipy-based preprocessing give) and int64 element connectivity."""
    xs, ys = np.meshgrid(np.linspace(0.0, 1.0, nx + 1), np.linspace(0.0, 0.5, ny + 1))
    points = np.stack([xs.ravel(), ys.ravel()], axis=1)
    cells = []
    for j in range(ny):
        for i in range(nx):
            a = j * (nx + 1) + i
            b, c, d = a + 1, a + nx + 1, a + nx + 2
            cells += [[a, b, d], [a, d, c]]
    return points, np.array(cells, dtype=np.int64)


def _plane_stress_d() -> np.ndarray:
    """The plane-stress constitutive matrix in Voigt notation, built with numpy (float64)."""
    return _E_STEEL / (1 - _NU**2) * np.array([[1.0, _NU, 0.0], [_NU, 1.0, 0.0], [0.0, 0.0, (1 - _NU) / 2]])


def _spring_chain_stiffness(n: int = 6) -> np.ndarray:
    """A fixed-free chain of unit springs assembled densely in numpy (float64)."""
    k = 2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    k[-1, -1] = 1.0
    return k


# --- mesh I/O, connectivity and indices


def _gmsh_uint64_element_node_tags() -> None:
    # gmsh.model.mesh.getElements returns node tags as 1-based uint64 arrays
    elem_node_tags = np.array([1, 2, 5, 1, 5, 4, 2, 3, 6, 2, 6, 5], dtype=np.uint64)
    conn = torch.from_numpy(elem_node_tags).view(-1, 3) - 1
    conn.max()


def _abaqus_inp_float_connectivity_assembly() -> None:
    inp_block = "1, 1, 2, 5\n2, 1, 5, 4\n3, 2, 3, 6\n4, 2, 6, 5\n"  # *Element, type=CPS3 data lines
    rows = np.genfromtxt(io.StringIO(inp_block), delimiter=",")  # float64 for every column
    conn = torch.from_numpy(rows[:, 1:]) - 1
    n_nodes = 6
    k_global = torch.zeros(n_nodes, n_nodes)
    ke = torch.ones(conn.shape[0], 3, 3)
    rows_idx = conn[:, :, None].expand(-1, 3, 3).reshape(-1)
    cols_idx = conn[:, None, :].expand(-1, 3, 3).reshape(-1)
    k_global.index_put_((rows_idx, cols_idx), ke.reshape(-1), accumulate=True)


def _material_ids_f64_embedding() -> None:
    _seeded()
    # meshio cell_data["gmsh:physical"] went through a pandas frame with a NaN row: float64 material ids
    material_ids = torch.from_numpy(np.array([1.0, 1.0, 2.0, 0.0, 2.0, 1.0]))
    material_embedding = nn.Embedding(3, 16)
    material_embedding(material_ids)


def _dirichlet_flags_uint8_masked_fill() -> None:
    _seeded()
    clamped = np.zeros(12, dtype=np.uint8)  # boundary flags saved per dof in the npz as uint8
    clamped[[0, 1, 6, 7]] = 1
    u_pred = torch.randn(12)
    u_pred.masked_fill(torch.from_numpy(clamped), 0.0)


def _free_dof_indicator_int64_masked_select() -> None:
    _seeded()
    n_dofs = 12
    free = np.ones(n_dofs, dtype=np.int64)
    free[[0, 1, 6, 7]] = 0  # left edge clamped
    f_global = torch.randn(n_dofs)
    f_global.masked_select(torch.from_numpy(free))


def _triangle_areas_det_int64_grid() -> None:
    # structured grid in integer millimetres, meshgrid of aranges (int64)
    ys, xs = torch.meshgrid(torch.arange(0, 30, 10), torch.arange(0, 40, 10), indexing="ij")
    coords = torch.stack([xs.reshape(-1), ys.reshape(-1)], dim=1)
    _, cells = _grid_mesh(3, 2)
    tri = coords[torch.from_numpy(cells)]  # (E, 3, 2)
    homogeneous = torch.cat([torch.ones_like(tri[..., :1]), tri], dim=-1)
    0.5 * torch.linalg.det(homogeneous).abs()


def _voxel_part_uint8_conv3d() -> None:
    _seeded()
    voxels = np.zeros((1, 1, 8, 8, 8), dtype=np.uint8)  # a binvox part: 1 = material
    voxels[..., 2:6, 2:6, :] = 1
    encoder = nn.Conv3d(1, 8, 3, padding=1, bias=False)
    encoder(torch.from_numpy(voxels))


def _yield_classifier_bce_logits_bool_target() -> None:
    _seeded()
    stress_features = torch.randn(16, 6)
    head = nn.Linear(6, 1)
    von_mises = torch.rand(16) * 400e6
    yielded = von_mises > 250e6  # the element-yields label straight from the comparison
    F.binary_cross_entropy_with_logits(head(stress_features).squeeze(-1), yielded)


def _failure_mode_ce_f64_labels() -> None:
    _seeded()
    # failure mode per design (0 intact, 1 yield, 2 buckling) read from a CSV with pandas: float64 column
    labels = torch.from_numpy(np.array([0.0, 2.0, 1.0, 0.0]))
    classifier = nn.Linear(10, 3)
    F.cross_entropy(classifier(torch.randn(4, 10)), labels)


def _load_vector_zeros_like_dofs() -> None:
    points, _ = _grid_mesh(3, 2)
    dofs = torch.arange(2 * points.shape[0])
    f_global = torch.zeros_like(dofs)  # meant: the load vector shaped like the dof list
    tip_y_dofs = torch.tensor([15, 23])
    f_global[tip_y_dofs] += torch.tensor([-500.0, -500.0])  # 1 kN tip load shared by two nodes


# --- two floating dtypes meeting


def _surrogate_ke_bf16_index_put_accumulate() -> None:
    _seeded()
    points, cells = _grid_mesh(3, 2)
    conn = torch.from_numpy(cells)
    ke_net = nn.Sequential(nn.Linear(6, 32), nn.SiLU(), nn.Linear(32, 9))
    element_coords = torch.from_numpy(points).float()[conn].reshape(-1, 6)
    with torch.autocast("cpu", dtype=bf16):
        ke = ke_net(element_coords).view(-1, 3, 3)  # learned element stiffness, bf16 under autocast
    k_global = torch.zeros(points.shape[0], points.shape[0])
    rows = conn[:, :, None].expand(-1, 3, 3).reshape(-1)
    cols = conn[:, None, :].expand(-1, 3, 3).reshape(-1)
    k_global.index_put_((rows, cols), ke.reshape(-1), accumulate=True)


def _physics_residual_scipy_k_autocast_u() -> None:
    _seeded()
    k = torch.from_numpy(_spring_chain_stiffness())  # float64
    f = torch.zeros(6, dtype=torch.float64)
    f[-1] = 1.0
    displacement_net = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 6))
    with torch.autocast("cpu", dtype=bf16):
        u = displacement_net(torch.randn(4))
        residual = k @ u - f
    residual.pow(2).mean()


def _element_stiffness_bmm_numpy_d() -> None:
    _seeded()
    n_elements = 6
    b = torch.randn(n_elements, 3, 6)  # strain-displacement matrices (fp32)
    d = torch.from_numpy(_plane_stress_d()).expand(n_elements, 3, 3)
    torch.bmm(b.transpose(1, 2), torch.bmm(d, b))  # ke = B^T D B per element


def _strain_energy_einsum_bf16_strain() -> None:
    _seeded()
    strain_net = nn.Linear(8, 3).to(bf16)  # predicts Voigt strains per element
    eps = strain_net(torch.randn(10, 8, dtype=bf16))
    d = torch.tensor(_plane_stress_d() / 1e9, dtype=torch.float32)  # in GPa, fp32
    torch.einsum("ei,ij,ej->e", eps, d, eps)


def _modal_lobpcg_bf16_stiffness() -> None:
    _seeded()
    model_dtype = bf16
    k = torch.from_numpy(_spring_chain_stiffness(12)).to(model_dtype)  # stiffness kept in the model dtype
    torch.lobpcg(k, k=2, largest=False)


def _random_field_mvn_f64_covariance() -> None:
    _seeded()
    x = np.linspace(0.0, 1.0, 8)
    covariance = 0.01 * np.exp(-np.abs(x[:, None] - x[None, :]) / 0.3)  # exponential kernel for log E
    mean = torch.zeros(8)
    field = torch.distributions.MultivariateNormal(mean, covariance_matrix=torch.from_numpy(covariance))
    field.rsample((4,))


def _seismic_lstm_f64_accelerogram() -> None:
    _seeded()
    dt = 0.01
    t = np.arange(0.0, 2.0, dt)
    ground_accel = 0.3 * 9.81 * np.sin(2 * np.pi * 1.5 * t) * np.exp(-t)  # an accelerogram record (float64)
    response_lstm = nn.LSTM(1, 32, batch_first=True)
    response_lstm(torch.from_numpy(ground_accel)[None, :, None])


def _topopt_density_f64_unet_conv2d() -> None:
    _seeded()
    density = np.full((1, 1, 16, 32), 0.5)  # SIMP design field from the numpy optimiser (float64)
    density[..., :, :4] = 1.0
    stem = nn.Conv2d(1, 8, 3, padding=1, bias=False)
    stem(torch.from_numpy(density))


def _meshgraphnet_fp32_residual_bf16_layernorm() -> None:
    _seeded()
    node_mlp = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 16)).to(bf16)
    node_norm = nn.LayerNorm(16).to(bf16)
    latents = torch.randn(9, 16)  # node latents kept fp32 "for the residual stream"
    update = node_mlp(latents.to(bf16))
    node_norm(latents + update)


def _load_ramp_lerp_f64_f32() -> None:
    _seeded()
    f_prev = torch.from_numpy(np.linspace(0.0, -1000.0, 12))  # load step n from the scipy preprocessor
    f_next = torch.linspace(0.0, -1200.0, 12)  # load step n + 1 built in torch
    torch.lerp(f_prev, f_next, 0.25)


def _implicit_step_cholesky_solve_f64_factor() -> None:
    _seeded()
    k = _spring_chain_stiffness()
    m = np.eye(6)
    dt, beta = 0.01, 0.25
    k_eff = k + m / (beta * dt**2)
    chol = torch.from_numpy(np.linalg.cholesky(k_eff))  # factorised once in numpy, float64
    rhs = torch.randn(6, 1)
    torch.cholesky_solve(rhs, chol)


def _traction_vecdot_bf16_stress() -> None:
    _seeded()
    stress_net = nn.Linear(4, 4).to(bf16)
    sigma = stress_net(torch.randn(5, 4, dtype=bf16)).view(5, 2, 2)  # Cauchy stress at boundary facets
    normals = F.normalize(torch.randn(5, 2), dim=-1)[:, None, :]
    torch.linalg.vecdot(sigma, normals)


# --- missing low-precision kernels


def _principal_stresses_eigvalsh_bf16() -> None:
    _seeded()
    s = torch.randn(10, 3, 3, dtype=bf16)
    sigma = 0.5 * (s + s.transpose(1, 2))  # symmetric stress tensors from the bf16 surrogate
    torch.linalg.eigvalsh(sigma)


def _newmark_effective_system_solve_f16() -> None:
    _seeded()
    k = torch.from_numpy(_spring_chain_stiffness()).half()  # whole integrator run in fp16 to "match the net"
    m = torch.eye(6, dtype=f16)
    dt, beta = 0.05, 0.25
    k_eff = k + m / (beta * dt**2)
    torch.linalg.solve(k_eff, torch.ones(6, dtype=f16))


# --- numbers outside the dtype's range


def _youngs_modulus_pa_full_f16() -> None:
    n_elements = 6
    torch.full((n_elements,), _E_STEEL, dtype=f16)  # per-element modulus in the fp16 surrogate's dtype


def _penalty_bc_index_fill_f16() -> None:
    k = torch.from_numpy(_spring_chain_stiffness()).half()
    fixed_dofs = torch.tensor([0])
    diagonal = k.diagonal().clone()
    diagonal.index_fill_(0, fixed_dofs, 1e30)  # "big number" method for the clamped dof


# --- numpy / scipy interop


def _scipy_spsolve_bf16_rhs() -> None:
    _seeded()
    k = sp.csc_matrix(_spring_chain_stiffness())
    load_net = nn.Linear(4, 6).to(bf16)
    f = load_net(torch.randn(4, dtype=bf16)).detach()
    spla.spsolve(k, f)


# --- gradients


def _adjoint_sensitivity_f64_grad_assigned() -> None:
    densities = nn.Parameter(torch.full((8,), 0.5))
    optimizer = torch.optim.Adam([densities], lr=0.01)
    compliance_sensitivity = -3.0 * 0.5**2 * np.ones(8)  # dc/drho from the numpy adjoint solve (float64)
    densities.grad = torch.from_numpy(compliance_sensitivity)
    optimizer.step()


# --- non-finite values


def _von_mises_sqrt_unloaded_anomaly() -> None:
    _seeded()
    stress_net = nn.Linear(4, 3, bias=False)
    features = torch.randn(6, 4)
    features[:2] = 0.0  # unloaded elements: zero features give zero stress
    with torch.autograd.detect_anomaly():
        sxx, syy, txy = stress_net(features).unbind(-1)
        von_mises = torch.sqrt(sxx**2 - sxx * syy + syy**2 + 3 * txy**2)
        von_mises.mean().backward()


def _fp16_surrogate_raw_pa_stress() -> None:
    _seeded()
    surrogate = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 3)).half()
    loads = torch.rand(8, 4, dtype=f16)
    stresses_pa = torch.from_numpy(np.full((8, 3), 180e6)).to(f16)  # FE stresses in Pa cast with the batch
    loss = F.mse_loss(surrogate(loads), stresses_pa)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(surrogate.parameters(), 1.0, error_if_nonfinite=True)


CASES: dict[str, LiveCase] = {
    # gmsh's 1-based uint64 element node tags made 0-based with `- 1` after torch.from_numpy
    "gmsh-uint64-element-node-tags-minus-one": case(_gmsh_uint64_element_node_tags, "no_kernel", "uint64",
        grade="correct", grade_at_freeze="correct"),
    # Abaqus .inp element lines parsed with np.genfromtxt (float64), used as index_put_'s assembly indices
    "abaqus-inp-genfromtxt-float-connectivity-assembly": case(_abaqus_inp_float_connectivity_assembly,
                                                              "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # material ids from meshio cell data gone float64 through pandas, looked up in a material nn.Embedding
    "material-ids-f64-cell-data-embedding": case(_material_ids_f64_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Dirichlet flags stored per dof as uint8 in the npz, used as masked_fill's mask on predicted displacements
    "dirichlet-flags-uint8-masked-fill": case(_dirichlet_flags_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # free-dof indicator built as an int64 0/1 numpy array, used with masked_select on the load vector
    "free-dof-indicator-int64-masked-select": case(_free_dof_indicator_int64_masked_select, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # triangle areas by linalg.det of homogeneous coordinates from an integer-millimetre meshgrid (int64)
    "triangle-areas-det-int64-grid-coords": case(_triangle_areas_det_int64_grid, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a binvox uint8 voxel part fed straight to the fp32 Conv3d encoder of a voxel FE surrogate
    "voxel-part-uint8-conv3d-surrogate": case(_voxel_part_uint8_conv3d, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # element-yields classifier: the bool (von Mises > yield) comparison as BCE-with-logits' target
    "yield-classifier-bce-logits-bool-target": case(_yield_classifier_bce_logits_bool_target, "target_dtype",
                                                    "bool",
        grade="correct", grade_at_freeze="correct"),
    # failure-mode classifier with class labels read from a pandas CSV column (float64)
    "failure-mode-ce-f64-labels": case(_failure_mode_ce_f64_labels, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # global load vector made with zeros_like(dofs) (int64), a float tip load added in place at two dofs
    "load-vector-zeros-like-dofs-in-place-add": case(_load_vector_zeros_like_dofs, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # learned element stiffness matrices (bf16 under autocast) assembled by index_put_(accumulate) into fp32 K
    "surrogate-ke-bf16-index-put-accumulate": case(_surrogate_ke_bf16_index_put_accumulate, "indexed_write_dtype",
                                                   "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # physics-informed residual K @ u - f with the float64 scipy-built K and the autocast bf16 displacement
    "physics-residual-scipy-k-f64-autocast-u": case(_physics_residual_scipy_k_autocast_u, "matmul_dtype", "bf16",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # element stiffness B^T D B by bmm with the plane-stress D from numpy (float64) and fp32 B matrices
    "element-stiffness-bmm-numpy-d-f64": case(_element_stiffness_bmm_numpy_d, "batched_matmul_dtype", "f32",
                                              "f64",
        grade="correct", grade_at_freeze="correct"),
    # strain energy density eps^T D eps by einsum of bf16 predicted strains with an fp32 D
    "strain-energy-einsum-bf16-strain-fp32-d": case(_strain_energy_einsum_bf16_strain, "matmul_dtype", "bf16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # lowest modes by torch.lobpcg of a stiffness matrix kept in the bf16 model dtype
    "modal-lobpcg-bf16-stiffness": case(_modal_lobpcg_bf16_stiffness, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # stochastic FEM: a Young's-modulus random field from MultivariateNormal with a float64 numpy covariance
    "random-field-mvn-f64-covariance-rsample": case(_random_field_mvn_f64_covariance, "matmul_dtype", "f64",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # structural response LSTM fed a float64 ground-motion accelerogram
    "seismic-lstm-f64-accelerogram": case(_seismic_lstm_f64_accelerogram, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # topology-optimisation surrogate: the numpy SIMP density field (float64) into the fp32 conv stem
    "topopt-density-f64-unet-conv2d": case(_topopt_density_f64_unet_conv2d, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # MeshGraphNet node block: fp32 residual latents plus the bf16 MLP update into the bf16 LayerNorm
    "meshgraphnet-fp32-residual-bf16-layernorm": case(_meshgraphnet_fp32_residual_bf16_layernorm,
                                                      "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # load ramp between load steps by lerp of a float64 numpy load vector and an fp32 torch one
    "load-ramp-lerp-f64-f32": case(_load_ramp_lerp_f64_f32, "lerp_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # implicit Newmark step: cholesky_solve of an fp32 right side with the float64 numpy Cholesky factor
    "implicit-step-cholesky-solve-f64-factor": case(_implicit_step_cholesky_solve_f64_factor, "op_dtype", "f32",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # boundary tractions sigma . n by linalg.vecdot of bf16 predicted stresses with fp32 facet normals
    "traction-vecdot-bf16-stress-fp32-normals": case(_traction_vecdot_bf16_stress, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # principal stresses by eigvalsh of the bf16 surrogate's stress tensors
    "principal-stresses-eigvalsh-bf16": case(_principal_stresses_eigvalsh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Newmark integrator run in fp16: the effective system solved with linalg.solve
    "newmark-effective-system-solve-f16": case(_newmark_effective_system_solve_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # steel's Young's modulus in Pa (210e9) filled into an fp16 per-element tensor
    "youngs-modulus-pa-full-f16": case(_youngs_modulus_pa_full_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # penalty method: 1e30 written with index_fill_ onto an fp16 stiffness diagonal at the clamped dof
    "penalty-bc-1e30-index-fill-f16": case(_penalty_bc_index_fill_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 predicted load vector handed to scipy's spsolve as the right side
    "scipy-spsolve-bf16-rhs": case(_scipy_spsolve_bf16_rhs, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # topology optimisation: float64 adjoint compliance sensitivities assigned to the fp32 densities' .grad
    "adjoint-sensitivity-f64-grad-assigned": case(_adjoint_sensitivity_f64_grad_assigned, "loss_dtype", "f64",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # von Mises sqrt of zero on unloaded elements: NaN gradients caught by anomaly mode
    "von-mises-sqrt-unloaded-anomaly": case(_von_mises_sqrt_unloaded_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # fp16 surrogate trained on raw stresses in Pa: inf targets, non-finite gradient norm refused by clipping
    "fp16-surrogate-raw-pa-stress-clip-nonfinite": case(_fp16_surrogate_raw_pa_stress, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
