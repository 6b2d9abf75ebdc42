"""Held-out live set 74: molecular dynamics and particle simulation written by hand in low precision (neighbour lists
with integer cell indices, periodic boundary conditions and box vectors in float64, Lennard-Jones and Coulomb forces,
Verlet/Langevin integrators and particle pushers, bonded topology as integer index pairs, Ewald and PME sums with
complex FFTs, radial distribution function histograms, atom types as embeddings, equivariant message passing with
spherical harmonics, machine-learned potentials). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at 79a7218."""

from __future__ import annotations

import io
import itertools
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "79a7218"

bf16, f16 = torch.bfloat16, torch.float16
_N = 12  # atoms in the toy boxes (four TIP3P-like waters where charges matter)
_BOX = 10.0  # cubic box length, angstrom
_KE = 332.0637  # Coulomb constant, kcal mol^-1 angstrom e^-2


def _seeded() -> None:
    torch.manual_seed(0)


def _positions(n: int = _N) -> torch.Tensor:
    _seeded()
    return torch.rand(n, 3) * _BOX


def _box_f64() -> torch.Tensor:
    return torch.tensor([_BOX, _BOX, _BOX], dtype=torch.float64)  # what the trajectory reader hands back


def _pairs(n: int = _N) -> tuple[torch.Tensor, torch.Tensor]:
    i, j = torch.triu_indices(n, n, 1)
    return i, j


def _min_image(pos: torch.Tensor, box: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    i, j = _pairs(pos.shape[0])
    dr = pos[j] - pos[i]
    dr = dr - box * torch.round(dr / box)
    return i, j, dr


# --- periodic boundaries and box vectors


def _min_image_f64_box_into_bf16_radial_net() -> None:
    pos = _positions()
    _, _, dr = _min_image(pos, _box_f64())
    r = dr.norm(dim=-1)
    centres = torch.linspace(0.0, 5.0, 16)
    rbf = torch.exp(-10.0 * (r[:, None] - centres) ** 2)
    radial = nn.Sequential(nn.Linear(16, 32), nn.SiLU(), nn.Linear(32, 32)).to(bf16)
    radial(rbf)


def _triclinic_fractional_coordinates_solve() -> None:
    cell = torch.from_numpy(np.array([[10.0, 0.0, 0.0], [2.0, 9.5, 0.0], [1.0, 1.5, 9.0]]))  # ASE-style cell rows
    pos = _positions() * 0.9
    frac = torch.linalg.solve(cell.T, pos.T).T
    frac - torch.floor(frac)


def _image_flags_int32_updated_in_place() -> None:
    box = _box_f64()
    pos = _positions()
    image = torch.zeros(_N, 3, dtype=torch.int32)  # ix iy iz as LAMMPS dumps them
    vel = torch.randn(_N, 3)
    pos = pos + vel * 2.0  # a (long) Verlet step
    image += torch.floor(pos / box)
    pos - image * box


def _amber_netcdf_bytes() -> bytes:
    from scipy.io import netcdf_file

    buffer = io.BytesIO()
    out = netcdf_file(buffer, "w")
    out.createDimension("frame", None)
    out.createDimension("atom", _N)
    out.createDimension("spatial", 3)
    coordinates = out.createVariable("coordinates", "f4", ("frame", "atom", "spatial"))
    coordinates[0] = _positions().numpy()
    out.flush()
    return buffer.getvalue()


def _amber_netcdf_frame_from_numpy() -> None:
    from scipy.io import netcdf_file

    trajectory = netcdf_file(io.BytesIO(_amber_netcdf_bytes()), "r", mmap=False)
    frame = trajectory.variables["coordinates"][0]
    torch.from_numpy(frame)


# --- neighbour lists and cells


def _neighbour_search_cdist_against_f64_images() -> torch.Tensor:
    pos = _positions()
    shifts = torch.tensor(list(itertools.product((-1, 0, 1), repeat=3)), dtype=torch.float64)
    images = (pos[None] + (shifts * _box_f64())[:, None]).reshape(-1, 3)
    distances = torch.cdist(pos, images)
    return distances < 5.0


def _neighbour_table_int16_padded_with_n_atoms() -> None:
    n_atoms = 40_000  # a solvated protein box
    max_neighbours = 64
    neighbours = torch.full((n_atoms, max_neighbours), n_atoms, dtype=torch.int16)  # int16 "to halve the memory"
    neighbours[:, 0]


def _pic_cloud_in_cell_deposition_float_cells() -> None:
    _seeded()
    n_cells, dx = 64, 0.1
    x = torch.rand(1000) * n_cells * dx
    cell = torch.floor(x / dx)
    frac = x / dx - cell
    charge = torch.full((1000,), -1.0)
    rho = torch.bincount(cell, weights=charge * (1.0 - frac), minlength=n_cells)
    rho += torch.bincount((cell + 1) % n_cells, weights=charge * frac, minlength=n_cells)


# --- forces and energies


def _lj_pair_forces_index_add_f64() -> None:
    pos = _positions()
    i, j, dr = _min_image(pos, _box_f64())
    sigma, epsilon = 3.4, 0.238
    r2 = (dr * dr).sum(-1)
    sr6 = (sigma * sigma / r2) ** 3
    fmag = 24.0 * epsilon * (2.0 * sr6 * sr6 - sr6) / r2
    f_ij = fmag[:, None] * dr
    forces = torch.zeros_like(pos)
    forces.index_add_(0, i, -f_ij)
    forces.index_add_(0, j, f_ij)


def _coulomb_energy_quadratic_form_f64_charges() -> None:
    charges = torch.from_numpy(np.array([-0.834, 0.417, 0.417] * 4))  # TIP3P charges parsed from the topology
    pos = _positions()
    eye = torch.eye(_N)
    r = torch.cdist(pos, pos) + eye
    inv_r = (1.0 - eye) / r
    0.5 * _KE * charges @ inv_r @ charges


def _virial_einsum_wrapped_f64_positions() -> None:
    pos = _positions().requires_grad_()
    anchors = _positions() * 0.5
    energy = 0.5 * 10.0 * ((pos - anchors) ** 2).sum()  # harmonic restraints
    (grad,) = torch.autograd.grad(energy, pos)
    forces = -grad
    wrapped = torch.remainder(pos.detach(), _box_f64())
    virial = torch.einsum("ni,nj->ij", wrapped, forces)
    virial.trace()


def _force_cap_hook_in_f64() -> None:
    pos = _positions().requires_grad_()
    fmax = 50.0

    def cap_forces(grad: torch.Tensor) -> torch.Tensor:
        return grad.double().clamp(-fmax, fmax)  # capped in double "to be safe" on close contacts

    pos.register_hook(cap_forces)
    i, j = _pairs()
    r2 = ((pos[j] - pos[i]) ** 2).sum(-1)
    energy = 4.0 * 0.238 * ((3.4**2 / r2) ** 6 - (3.4**2 / r2) ** 3).sum()
    energy.backward()


def _mlip_half_total_energy_overflow_clip() -> None:
    _seeded()
    potential = nn.Sequential(nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 1)).half()
    with torch.no_grad():
        potential[2].bias.fill_(-5.0)  # per-atom energies around -5 eV
    descriptors = torch.randn(20_000, 8).half()  # a 20 000-atom box
    energy = potential(descriptors).sum()
    loss = (energy - (-100_250.0)) ** 2
    loss.backward()
    torch.nn.utils.clip_grad_norm_(potential.parameters(), 10.0, error_if_nonfinite=True)


# --- Ewald and PME


def _pme_grid_indices(pos: torch.Tensor, k: int) -> tuple[torch.Tensor, ...]:
    idx = (pos / _BOX * k).long() % k
    return idx[:, 0], idx[:, 1], idx[:, 2]


def _pme_charge_spread_into_complex_grid() -> None:
    k = 16
    pos = _positions()
    charges = torch.tensor([-0.834, 0.417, 0.417] * 4)
    grid = torch.zeros(k, k, k, dtype=torch.complex64)  # complex so the forward FFT can work on it directly
    grid.index_put_(_pme_grid_indices(pos, k), charges, accumulate=True)
    torch.fft.fftn(grid)


def _ewald_structure_factor_einsum_complex() -> None:
    cell = torch.from_numpy(np.diag([_BOX, _BOX, _BOX]))
    recip = 2.0 * math.pi * torch.linalg.inv(cell).T
    n = torch.tensor([v for v in itertools.product(range(-2, 3), repeat=3) if any(v)], dtype=torch.float64)
    kvec = n @ recip
    pos = _positions()
    kr = kvec @ pos.double().T  # k.r in double for accuracy
    phase = torch.exp(1j * kr)
    charges = torch.tensor([-0.834, 0.417, 0.417] * 4).to(torch.complex64)
    s_k = torch.einsum("n,kn->k", charges, phase)
    s_k.abs() ** 2


def _pme_reciprocal_rfftn_bf16_grid() -> None:
    k = 16
    pos = _positions()
    charges = torch.tensor([-0.834, 0.417, 0.417] * 4)
    grid = torch.zeros(k, k, k, dtype=bf16)  # the mesh kept in the model's bf16 to save memory
    grid.index_put_(_pme_grid_indices(pos, k), charges.to(bf16), accumulate=True)
    torch.fft.rfftn(grid)


def _pme_bspline_stencil_conv3d_numpy() -> None:
    weights = np.array([1.0, 4.0, 1.0]) / 6.0  # cubic B-spline values at the grid points
    stencil = torch.from_numpy(np.einsum("i,j,k->ijk", weights, weights, weights))[None, None]
    k = 16
    pos = _positions()
    grid = torch.zeros(k, k, k)
    grid.index_put_(_pme_grid_indices(pos, k), torch.tensor([-0.834, 0.417, 0.417] * 4), accumulate=True)
    padded = F.pad(grid[None, None], (1, 1, 1, 1, 1, 1), mode="circular")
    F.conv3d(padded, stencil)


# --- radial distribution function


def _rdf_histogram_f64_bin_edges() -> None:
    pos = _positions(64)
    i, j = _pairs(64)
    r = (pos[j] - pos[i]).norm(dim=-1)
    edges = torch.from_numpy(np.linspace(0.0, _BOX / 2, 51))
    counts, _ = torch.histogram(r[r < _BOX / 2], bins=edges)
    counts.sum()


def _rdf_counts_normalised_in_place() -> None:
    n = 64
    pos = _positions(n)
    i, j = _pairs(n)
    r = (pos[j] - pos[i]).norm(dim=-1)
    dr, n_bins = 0.1, 50
    r = r[r < dr * n_bins]
    g = torch.bincount((r / dr).long(), minlength=n_bins)
    shells = 4.0 * math.pi * ((torch.arange(n_bins) + 0.5) * dr) ** 2 * dr
    rho = n / _BOX**3
    g /= shells * rho * n / 2


# --- bonded topology and exclusions


def _bond_list_int16_index_select() -> None:
    bonds = torch.from_numpy(np.array([[0, 1], [0, 2], [3, 4], [3, 5]], dtype=np.int16))  # topology cached compactly
    pos = _positions()
    b = pos.index_select(0, bonds[:, 1]) - pos.index_select(0, bonds[:, 0])
    ((b.norm(dim=-1) - 0.9572) ** 2).sum()


def _one_three_exclusions_bool_adjacency_squared() -> None:
    bonds = torch.tensor([[0, 1], [1, 2], [2, 3], [3, 4], [1, 5]])
    n = 6
    adj = torch.zeros(n, n, dtype=torch.bool)
    adj[bonds[:, 0], bonds[:, 1]] = True
    adj[bonds[:, 1], bonds[:, 0]] = True
    one_three = adj @ adj
    adj | one_three


def _exclusion_matrix_uint8_masked_fill() -> None:
    excluded = np.eye(_N, dtype=np.uint8)
    for w in range(0, _N, 3):  # O-H and H-H within each water
        excluded[w : w + 3, w : w + 3] = 1
    pos = _positions()
    r2 = torch.cdist(pos, pos) ** 2 + torch.eye(_N)
    sr6 = (3.15 ** 2 / r2) ** 3
    e_pair = 4.0 * 0.152 * (sr6 * sr6 - sr6)
    e_pair.masked_fill(torch.from_numpy(excluded), 0.0).sum()


# --- atom types


def _atom_types_int8_embedding() -> None:
    types = torch.from_numpy(np.array([0, 1, 1] * 4, dtype=np.int8))  # type column of the HDF5 trajectory
    embed = nn.Embedding(4, 16).to(bf16)
    embed(types)


def _atom_embedding_cat_fp32_charges() -> None:
    _seeded()
    types = torch.tensor([0, 1, 1] * 4)
    charges = torch.tensor([-0.834, 0.417, 0.417] * 4)  # partial charges from the force field
    embed = nn.Embedding(4, 15).to(bf16)
    project = nn.Linear(16, 32).to(bf16)
    h = torch.cat([embed(types), charges[:, None]], dim=-1)
    project(h)


def _lj_pair_table_float_types_from_loadtxt() -> None:
    atoms = "\n".join(f"{a + 1} {1 + (a % 3 != 0)} {x:.3f} {y:.3f} {z:.3f}" for a, (x, y, z) in
                      enumerate(_positions().tolist()))
    data = np.loadtxt(io.StringIO(atoms))  # LAMMPS "Atoms # atomic" section: id type x y z
    types = torch.from_numpy(data[:, 1]) - 1
    sigma = torch.tensor([[3.15, 1.78], [1.78, 0.40]])
    i, j = _pairs()
    sigma[types[i], types[j]]


# --- equivariant message passing


def _tensor_product_weights_bmm_fp32_sh() -> None:
    _seeded()
    c = 8
    pos = _positions()
    i, j = _pairs()
    edge = pos[j] - pos[i]  # positions kept in fp32 for precision
    sh = math.sqrt(3.0) * edge / edge.norm(dim=-1, keepdim=True)  # l = 1 real spherical harmonics
    node = torch.randn(_N, c).to(bf16)
    radial = nn.Linear(16, c * c).to(bf16)
    rbf = torch.randn(edge.shape[0], 16).to(bf16)
    weights = radial(rbf).view(-1, c, c)
    messages = torch.bmm(weights, node[j][:, :, None] * sh[:, None, :])
    messages.sum()


def _boris_pusher_cross_fp32_field() -> None:
    _seeded()
    v = (torch.randn(_N, 3) * 0.01).to(bf16)  # particle velocities in the bf16 pusher
    b_grid = torch.zeros(16, 3)
    b_grid[:, 2] = 1.0  # fp32 magnetic field on the mesh
    cell = (_positions()[:, 0] / _BOX * 16).long()
    qm, dt = -1.0, 0.1
    t = qm * b_grid[cell] * dt / 2
    v_prime = v + torch.linalg.cross(v, t)
    v_prime.sum()


# --- integrators and thermostats


def _frozen_atoms_bool_index_bf16_positions() -> None:
    pos = _positions().to(bf16)  # positions stored in bf16 in the low-precision MD state
    vel = torch.randn(_N, 3) * 0.1
    mobile = torch.arange(_N) >= 3  # the first water is restrained
    dt = 0.002
    pos[mobile] = pos[mobile] + vel[mobile] * dt


def _maxwell_boltzmann_randn_like_int_masses() -> None:
    masses = torch.tensor([16, 1, 1] * 4)  # integer mass numbers from the element table
    kt = 2.494  # kJ/mol at 300 K
    sigma = torch.sqrt(kt / masses)
    vx = torch.randn_like(masses) * sigma
    vx.sum()


def _argon_mass_atomic_units_half() -> None:
    amu_to_me = 1822.888  # atomic units: masses in electron masses
    pos = _positions().half()
    masses = pos.new_full((_N,), 39.948 * amu_to_me)
    masses.sum()


def _radius_of_gyration_eigvalsh_bf16() -> None:
    pos = _positions().to(bf16)
    d = pos - pos.mean(0)
    gyration = d.T @ d / _N
    torch.linalg.eigvalsh(gyration)


CASES: dict[str, LiveCase] = {
    # minimum image with the float64 box from the trajectory reader: distances become float64 into a bf16 radial MLP
    "min-image-f64-box-bf16-radial-mlp": case(_min_image_f64_box_into_bf16_radial_net, "matmul_dtype", "f64",
                                              "bf16",
        grade="correct", grade_at_freeze="correct"),
    # triclinic fractional coordinates: linalg.solve of the float64 numpy cell against fp32 positions
    "triclinic-fractional-solve-f64-cell": case(_triclinic_fractional_coordinates_solve, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # LAMMPS-style int32 image flags updated in place with floor(pos / box) of the float64 box
    "image-flags-int32-in-place-floor": case(_image_flags_int32_updated_in_place, "result_cast", "f64", "int32",
        grade="correct", grade_at_freeze="correct"),
    # an AMBER NetCDF trajectory read with scipy.io.netcdf_file (big-endian float32) given to torch.from_numpy
    "amber-netcdf-big-endian-from-numpy": case(_amber_netcdf_frame_from_numpy, "numpy_dtype", cause=("byte order",),
        grade="correct", grade_at_freeze="correct"),
    # neighbour search by cdist between fp32 positions and their 27 periodic images shifted by the float64 box
    "neighbour-cdist-f64-periodic-images": case(_neighbour_search_cdist_against_f64_images, "matmul_dtype", "f32",
                                                "f64",
        grade="correct", grade_at_freeze="correct"),
    # an int16 neighbour table for a 40 000-atom box padded with n_atoms as the empty-slot sentinel
    "neighbour-table-int16-n-atoms-sentinel": case(_neighbour_table_int16_padded_with_n_atoms, "half_overflow",
                                                   "int16",
        grade="correct", grade_at_freeze="correct"),
    # particle-in-cell cloud-in-cell charge deposition: floor()'d cell indices never made long, given to bincount
    "pic-cic-deposition-bincount-float-cells": case(_pic_cloud_in_cell_deposition_float_cells,
                                                    "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Lennard-Jones pair forces (float64 through the minimum image) index_add_'ed into zeros_like(fp32 positions)
    "lj-pair-forces-f64-index-add": case(_lj_pair_forces_index_add_f64, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Coulomb energy as 0.5 q^T (1/r) q with TIP3P charges parsed by numpy (float64) and fp32 inverse distances
    "coulomb-quadratic-form-f64-charges": case(_coulomb_energy_quadratic_form_f64_charges, "matmul_dtype", "f64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # virial by einsum of positions wrapped with remainder by the float64 box and fp32 autograd forces
    "virial-einsum-wrapped-f64-positions": case(_virial_einsum_wrapped_f64_positions, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a force-capping gradient hook on the positions computing in double and returning the double gradient
    "force-cap-hook-returns-f64": case(_force_cap_hook_in_f64, "loss_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a .half() machine-learned potential: the total energy of a 20 000-atom box summed in fp16 overflows,
    # clip_grad_norm_ (error_if_nonfinite) refuses the gradients
    "mlip-half-total-energy-overflow-clip": case(_mlip_half_total_energy_overflow_clip, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # PME charge spreading: fp32 charges index_put_(accumulate=True) into a complex64 mesh made for the FFT
    "pme-charge-spread-complex-mesh": case(_pme_charge_spread_into_complex_grid, "indexed_write_dtype", "complex64",
                                           "f32",
        grade="correct", grade_at_freeze="correct"),
    # Ewald structure factor: complex64 charges einsum'd with exp(i k.r) computed in double (complex128)
    "ewald-structure-factor-einsum-complex128": case(_ewald_structure_factor_einsum_complex, "matmul_dtype",
                                                     "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # PME reciprocal sum with the charge mesh kept in bf16, rfftn of it
    "pme-reciprocal-rfftn-bf16-mesh": case(_pme_reciprocal_rfftn_bf16_grid, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PME spreading by a circular conv3d with the cubic B-spline stencil built by numpy (float64) on an fp32 mesh
    "pme-bspline-stencil-conv3d-numpy": case(_pme_bspline_stencil_conv3d_numpy, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # g(r) by torch.histogram of fp32 pair distances with bin edges from np.linspace (float64)
    "rdf-histogram-numpy-f64-edges": case(_rdf_histogram_f64_bin_edges, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # g(r) normalised in place on bincount's int64 pair counts by the fp32 shell volumes
    "rdf-bincount-counts-in-place-normalise": case(_rdf_counts_normalised_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a bond list cached as int16 by numpy used with index_select for bond vectors
    "bond-list-int16-index-select": case(_bond_list_int16_index_select, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # 1-3 exclusions from the bool bond adjacency squared with @
    "one-three-exclusions-bool-adjacency-matmul": case(_one_three_exclusions_bool_adjacency_squared,
                                                       "integer_operand", "bool",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (79a7218) castwise gave integer_operand [bool] (high confidence). It read "
             "torch's addmm_impl_cpu_ not implemented for Bool as a bool operand meeting a float matmul, but here "
             "both operands are the bool adjacency (adj @ adj for the 1-3 exclusions): there is no float side, "
             "torch simply has no bool matmul kernel, which the corpus files as no_kernel (an op taking bool data "
             "as it is); the fix is to multiply in an integer or float dtype and compare with > 0. Expectation "
             "corrected after grading from no_kernel to integer_operand: a matmul given only integer or bool "
             "operands is integer data in float math in the corpus (held_out_131 nx-1009, addmm_cuda not "
             "implemented for Long); the frozen grade is kept.")),
    # a uint8 exclusion matrix from the topology builder (numpy) as masked_fill's mask on the LJ pair energies
    "exclusion-matrix-uint8-masked-fill": case(_exclusion_matrix_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # atom types stored as int8 in the trajectory file looked up in the bf16 atom-type Embedding
    "atom-types-int8-embedding": case(_atom_types_int8_embedding, "index_tensor_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # bf16 atom-type embeddings concatenated with fp32 force-field partial charges into the bf16 projection
    "atom-embedding-cat-fp32-charges-linear": case(_atom_embedding_cat_fp32_charges, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # LJ sigma table indexed by atom types from np.loadtxt of a LAMMPS data file (float64 type column)
    "lj-sigma-table-loadtxt-float-types": case(_lj_pair_table_float_types_from_loadtxt, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # equivariant tensor product: bf16 per-edge radial weights bmm'ed with neighbour features times fp32 l=1 harmonics
    "tensor-product-bf16-weights-bmm-fp32-sh": case(_tensor_product_weights_bmm_fp32_sh, "batched_matmul_dtype",
                                                    "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Boris pusher: v x t with bf16 velocities and the fp32 magnetic field gathered from the mesh
    "boris-pusher-cross-bf16-v-fp32-field": case(_boris_pusher_cross_fp32_field, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Verlet step of only the mobile atoms by boolean indexing: bf16 positions, fp32 velocities
    "frozen-atoms-bool-index-verlet-bf16": case(_frozen_atoms_bool_index_bf16_positions, "indexed_write_dtype",
                                                "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Maxwell-Boltzmann velocities drawn with randn_like of the integer mass numbers
    "maxwell-boltzmann-randn-like-int-masses": case(_maxwell_boltzmann_randn_like_int_masses, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # masses in atomic units (argon, 72 820 electron masses) made with new_full on fp16 positions
    "argon-mass-atomic-units-new-full-f16": case(_argon_mass_atomic_units_half, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # shape analysis: eigenvalues of the gyration tensor of bf16 positions with eigvalsh
    "gyration-tensor-eigvalsh-bf16": case(_radius_of_gyration_eigvalsh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
