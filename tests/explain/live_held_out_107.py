"""Held-out live set 107: materials science and crystal property prediction written by hand in low precision (crystal
graphs from pymatgen/ase-style readers with float64 lattice matrices and fractional coordinates, int64 atomic numbers
and periodic neighbour lists with integer image shifts, radial basis expansions of distances, formation-energy and
band-gap regression with per-atom pooling, force and stress targets, bf16/fp16 message passing, phonons, XRD patterns
and charge densities). Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at 8009be2."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8009be2"

bf16, f16 = torch.bfloat16, torch.float16
_E4M3 = torch.float8_e4m3fn
_CUTOFF = 4.0  # angstrom
_RBF = 16
_DIM = 32
_ELEMENTS = 118


def _seeded() -> None:
    torch.manual_seed(0)


def _srtio3() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What pymatgen's Structure gives for cubic SrTiO3: lattice.matrix and frac_coords (float64), atomic_numbers."""
    lattice = np.eye(3) * 3.905
    frac = np.array([[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.5]])
    numbers = np.array([38, 22, 8, 8, 8])
    return lattice, frac, numbers


def _neighbour_list(cutoff: float = _CUTOFF) -> tuple[np.ndarray, ...]:
    """What ase.neighborlist.neighbor_list("ijSd", atoms, cutoff) gives: int64 i, j and shifts S, float64 d."""
    lattice, frac, _ = _srtio3()
    cart = frac @ lattice
    shifts = np.array([[a, b, c] for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)])
    i_list, j_list, s_list, d_list = [], [], [], []
    for i in range(len(cart)):
        for j in range(len(cart)):
            for shift in shifts:
                d = np.linalg.norm(cart[j] + shift @ lattice - cart[i])
                if 0.0 < d < cutoff:
                    i_list.append(i)
                    j_list.append(j)
                    s_list.append(shift)
                    d_list.append(d)
    return np.array(i_list), np.array(j_list), np.array(s_list), np.array(d_list)


# --- coordinates, lattices and periodic images


def _frac_coords_times_bf16_lattice() -> None:
    lattice, frac, _ = _srtio3()
    cell = torch.from_numpy(lattice).to(bf16)  # the collate casts every float tensor of the batch to the model dtype
    frac_coords = torch.from_numpy(frac)  # ...but frac_coords are added to the batch after that cast
    frac_coords @ cell


def _edge_vectors_bmm_float_shifts_f64_lattice() -> None:
    lattice, frac, _ = _srtio3()
    i, j, shifts, _ = _neighbour_list()
    cells = torch.from_numpy(lattice)[None].expand(len(i), 3, 3)  # one lattice per edge, float64 from pymatgen
    pos = torch.from_numpy(frac @ lattice).float()
    offsets = torch.bmm(torch.from_numpy(shifts).float()[:, None, :], cells)[:, 0]
    pos[torch.from_numpy(j)] + offsets - pos[torch.from_numpy(i)]


def _strain_for_stress_fp32_times_bf16_lattice() -> None:
    lattice, _, _ = _srtio3()
    cells = torch.from_numpy(lattice).to(bf16)[None].repeat(2, 1, 1)  # batch of two bf16 cells
    strain = torch.zeros(2, 3, 3, requires_grad=True)  # stress = dE/d(strain) / volume; strain made fp32 by default
    cells @ (torch.eye(3) + strain)


def _neb_images_lerp_f64_initial_f32_final() -> None:
    _, frac, _ = _srtio3()
    initial = torch.from_numpy(frac * 3.905)  # ase atoms.get_positions(): float64
    final = initial.float().clone()
    final[4, 2] += 0.8  # the relaxed end point of the oxygen hop, predicted by the fp32 potential
    fractions = torch.linspace(0.0, 1.0, 7)[1:-1, None, None]
    torch.lerp(initial, final, fractions)


def _supercell_scaling_matrix_det_int64() -> None:
    scaling = torch.tensor([[2, 0, 0], [0, 2, 0], [0, 0, 3]])  # pymatgen make_supercell's integer scaling matrix
    n_formula_units = torch.linalg.det(scaling)
    int(n_formula_units) * 5


# --- radial basis and message passing


def _cgcnn_numpy_gaussian_f64_nbr_fea_into_bf16_conv() -> None:
    _seeded()
    i, _, _, d = _neighbour_list()
    centres = np.linspace(0.0, _CUTOFF, _RBF)
    nbr_fea = torch.from_numpy(np.exp(-((d[:, None] - centres) ** 2) / 0.2**2))  # CGCNN's GaussianDistance, numpy
    atom_fea = torch.randn(5, _DIM, dtype=bf16)
    fc_full = nn.Linear(2 * _DIM + _RBF, 2 * _DIM).to(bf16)
    idx = torch.from_numpy(i)
    fc_full(torch.cat([atom_fea[idx], atom_fea[idx], nbr_fea], dim=1))


def _alignn_fp32_rbf_edges_into_bf16_layernorm() -> None:
    _seeded()
    _, _, _, d = _neighbour_list()
    distances = torch.from_numpy(d).float()  # positions kept fp32 so that forces by autograd stay accurate
    centres = torch.linspace(0.0, _CUTOFF, _RBF)
    rbf = torch.exp(-((distances[:, None] - centres) ** 2) / 0.1)
    edge_embedding = nn.Sequential(nn.LayerNorm(_RBF), nn.SiLU(), nn.Linear(_RBF, _DIM)).to(bf16)
    edge_embedding(rbf)


def _rbf_cache_fp8_plus_bf16() -> None:
    _seeded()
    _, _, _, d = _neighbour_list()
    centres = torch.linspace(0.0, _CUTOFF, _RBF)
    rbf = torch.exp(-((torch.from_numpy(d).float()[:, None] - centres) ** 2) / 0.1)
    cached = rbf.to(_E4M3)  # the expansion of a large neighbour list cached in fp8 between epochs
    learned_shift = torch.randn(_RBF, dtype=bf16)
    cached + learned_shift


def _cutoff_float_mask_and_not_self() -> None:
    lattice, frac, _ = _srtio3()
    cart = torch.from_numpy(frac @ lattice).float()
    d = torch.cdist(cart, cart)
    within = (d < _CUTOFF).float()  # kept float: it also multiplies the smooth envelope
    not_self = ~torch.eye(5, dtype=torch.bool)
    within & not_self


def _cgcnn_padded_neighbours_int_mask_masked_fill() -> None:
    _seeded()
    nbr_fea = torch.randn(5, 12, _RBF)
    counts = np.array([6, 8, 4, 4, 4])
    pad = np.zeros((5, 12), dtype=int)  # 1 where the fixed-size neighbour table was padded
    for atom, n in enumerate(counts):
        pad[atom, n:] = 1
    nbr_fea.masked_fill(torch.from_numpy(pad)[..., None], 0.0)


def _batched_neighbours_float_atom_offsets_index_select() -> None:
    _seeded()
    i, j, _, _ = _neighbour_list()
    n_atoms = torch.tensor([5.0, 5.0])  # kept float to divide the pooled sum by it
    offsets = torch.cumsum(n_atoms, 0) - n_atoms
    j_batch = torch.cat([torch.from_numpy(j) + offsets[0], torch.from_numpy(j) + offsets[1]])
    atom_fea = torch.randn(10, _DIM)
    atom_fea.index_select(0, j_batch)


def _forces_buffer_new_zeros_from_edge_index() -> None:
    _seeded()
    i, j, _, _ = _neighbour_list()
    edge_index = torch.from_numpy(np.stack([i, j]))
    pair_forces = torch.randn(edge_index.shape[1], 3)
    forces = edge_index.new_zeros((5, 3))  # new_zeros of the edge index: int64
    forces.index_add_(0, edge_index[0], pair_forces)


def _atoms_per_structure_uint32_repeat_interleave() -> None:
    n_atoms = np.array([5, 8, 12], dtype=np.uint32)  # the LMDB/HDF5 dataset stores the counts as uint32
    batch = torch.repeat_interleave(torch.arange(3), torch.from_numpy(n_atoms))
    batch.bincount()


def _megnet_set2set_zeros_q_star_bf16_lstm() -> None:
    _seeded()
    lstm = nn.LSTM(2 * _DIM, _DIM, batch_first=True).to(bf16)
    atom_fea = torch.randn(2, 5, _DIM, dtype=bf16)
    q_star = torch.zeros(2, 1, 2 * _DIM)  # Set2Set's first read-out query, made without dtype=
    q, _ = lstm(q_star)
    attention = (atom_fea * q).sum(-1).softmax(-1)
    torch.cat([q[:, 0], (attention[..., None] * atom_fea).sum(1)], -1)


def _readout_query_fp32_sdpa_bf16_atoms() -> None:
    _seeded()
    atoms = torch.randn(2, 4, 5, 8, dtype=bf16)  # (crystals, heads, atoms, head dim) from the bf16 backbone
    pool_query = nn.Parameter(torch.randn(1, 4, 1, 8))  # attention-pooling head added after backbone.to(bf16)
    F.scaled_dot_product_attention(pool_query.expand(2, -1, -1, -1), atoms, atoms)


# --- composition, diffraction, densities and phonons


def _elemnet_stoichiometry_int_counts_linear() -> None:
    _seeded()
    composition = {"Sr": 1, "Ti": 1, "O": 3}
    z = {"Sr": 38, "Ti": 22, "O": 8}
    counts = np.zeros(_ELEMENTS, dtype=int)
    for element, amount in composition.items():
        counts[z[element] - 1] = amount
    head = nn.Sequential(nn.Linear(_ELEMENTS, _DIM), nn.ReLU(), nn.Linear(_DIM, 1))
    head(torch.from_numpy(counts)[None])


def _roost_fractional_composition_f64_embedding_bag() -> None:
    _seeded()
    elements = torch.tensor([37, 21, 7])  # Sr, Ti, O as 0-based atomic numbers
    fractions = torch.tensor([0.2, 0.2, 0.6], dtype=torch.float64)  # Composition.fractional_composition values
    element_bag = nn.EmbeddingBag(_ELEMENTS, _DIM, mode="sum")
    element_bag(elements, torch.tensor([0]), per_sample_weights=fractions)


def _xrd_pattern_np_interp_f64_conv1d_bf16() -> None:
    _seeded()
    two_theta = np.array([22.8, 32.4, 40.0, 46.5, 52.3, 57.8, 67.8])  # XRDCalculator peak positions
    intensity = np.array([12.0, 100.0, 25.0, 45.0, 5.0, 38.0, 20.0])
    grid = np.linspace(10.0, 80.0, 256)
    pattern = np.interp(grid, two_theta, intensity) / 100.0
    encoder = nn.Conv1d(1, 8, 7, padding=3).to(bf16)
    encoder(torch.from_numpy(pattern)[None, None])


def _chgcar_density_fftn_f16() -> None:
    _seeded()
    density = torch.rand(16, 16, 16).half()  # CHGCAR grid stored in fp16 to fit the dataset in memory
    torch.fft.fftn(density).abs()


def _phonon_dynamical_matrix_eigh_f16() -> None:
    _seeded()
    force_constants = torch.randn(15, 15).half()  # predicted by the fp16 model
    dynamical = (force_constants + force_constants.T) / 2
    torch.linalg.eigvalsh(dynamical)


def _reciprocal_lattice_inv_bf16() -> None:
    lattice, _, _ = _srtio3()
    cell = torch.from_numpy(lattice).to(bf16)  # cells cast to the model dtype with the batch
    2 * torch.pi * torch.linalg.inv(cell).T


def _elastic_constants_lstsq_bf16() -> None:
    _seeded()
    strains = torch.randn(12, 6, dtype=bf16) * 0.01  # Voigt strains of the deformed cells
    stresses = torch.randn(12, 6, dtype=bf16)  # stresses predicted by the bf16 potential
    torch.linalg.lstsq(strains, stresses)


# --- targets, losses and bookkeeping


def _space_group_spglib_int32_cross_entropy() -> None:
    _seeded()
    space_groups = np.array([221, 62, 225, 194], dtype=np.int32)  # spglib's dataset number, an int32
    logits = torch.randn(4, 230)
    F.cross_entropy(logits, torch.from_numpy(space_groups - 1))


def _metal_classifier_bool_target_bce_logits() -> None:
    _seeded()
    band_gap = torch.tensor([0.0, 1.8, 0.0, 3.2])
    is_metal = band_gap == 0
    logits = torch.randn(4)
    F.binary_cross_entropy_with_logits(logits, is_metal)


def _forces_huber_bf16_dft_f64_backward() -> None:
    _seeded()
    predicted = torch.randn(5, 3, requires_grad=True)
    forces = predicted.to(bf16)  # -dE/dpos from the bf16 potential
    dft_forces = torch.from_numpy(np.random.default_rng(0).normal(size=(5, 3)))  # from vasprun.xml: float64
    F.huber_loss(forces, dft_forces, delta=0.01).backward()


def _coordination_number_quantile_int64() -> None:
    i, _, _, _ = _neighbour_list(3.0)
    coordination = torch.bincount(torch.from_numpy(i), minlength=5)
    torch.quantile(coordination, torch.tensor([0.25, 0.5, 0.75]))


def _valence_electron_density_in_place_div() -> None:
    valence = torch.tensor([10, 12, 6, 6, 6])  # Sr 4s2 4p6 5s2, Ti 3s2 3p6 3d2 4s2, O 2s2 2p4
    volume = torch.tensor(3.905**3)
    valence.div_(volume)


def _enthalpy_external_pressure_pa_fp16() -> None:
    energy = torch.tensor([-38.1, -37.9], dtype=f16)  # eV per cell from the fp16 model
    pressure = torch.full_like(energy, 1e9)  # 1 GPa in Pa
    energy + pressure * 3.905**3 * 1e-30 / 1.602e-19


def _ase_calculator_bf16_forces_numpy() -> None:
    _seeded()
    forces = torch.randn(5, 3, dtype=bf16)  # a calculator's results: the bf16 model's forces
    results = {"forces": forces.detach().numpy()}
    results["forces"].max()


def _empty_crystal_mean_pool_nan_normal() -> None:
    _seeded()
    atom_gap = torch.randn(5)
    batch = torch.tensor([0, 0, 0, 0, 0])  # the second structure lost all its atoms to an element filter
    n_atoms = torch.bincount(batch, minlength=2)
    mean_gap = torch.zeros(2).index_add_(0, batch, atom_gap) / n_atoms
    torch.distributions.Normal(mean_gap, torch.ones(2)).log_prob(torch.tensor([1.1, 0.0]))


CASES: dict[str, LiveCase] = {
    # pymatgen frac_coords (float64) times the lattice the collate already cast to bf16, with @
    "frac-coords-f64-times-bf16-lattice": case(_frac_coords_times_bf16_lattice, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # periodic edge vectors: float image shifts bmm'ed with the float64 per-edge lattices from pymatgen
    "edge-vectors-bmm-float-shifts-f64-lattice": case(_edge_vectors_bmm_float_shifts_f64_lattice,
                                                      "batched_matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # stress by a strain derivative: bf16 cells times (I + strain) with the strain made fp32 by default
    "stress-strain-fp32-times-bf16-cells": case(_strain_for_stress_fp32_times_bf16_lattice, "matmul_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # NEB images by lerp from ase's float64 initial positions to the fp32 predicted final positions
    "neb-images-lerp-f64-initial-f32-final": case(_neb_images_lerp_f64_initial_f32_final, "lerp_dtype", "f64",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # formula units of a supercell from linalg.det of pymatgen's integer scaling matrix
    "supercell-scaling-matrix-det-int64": case(_supercell_scaling_matrix_det_int64, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # CGCNN's GaussianDistance done in numpy (float64) cat'ed with bf16 atom features into the bf16 fc_full
    "cgcnn-numpy-gaussian-f64-bf16-conv": case(_cgcnn_numpy_gaussian_f64_nbr_fea_into_bf16_conv, "matmul_dtype",
                                               "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ALIGNN edge embedding: fp32 RBF of fp32 distances into the bf16 embedding's LayerNorm
    "alignn-fp32-rbf-bf16-edge-layernorm": case(_alignn_fp32_rbf_edges_into_bf16_layernorm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the RBF expansion of a large neighbour list cached in float8_e4m3fn, a bf16 learned shift added to it
    "rbf-fp8-cache-plus-bf16-shift": case(_rbf_cache_fp8_plus_bf16, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # neighbour mask: the float cutoff mask and'ed with the bool not-self mask
    "cutoff-float-mask-and-not-self": case(_cutoff_float_mask_and_not_self, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # CGCNN fixed-size neighbour table: an int 0/1 padding array from numpy as masked_fill's mask
    "cgcnn-padded-neighbours-int-mask-masked-fill": case(_cgcnn_padded_neighbours_int_mask_masked_fill, "mask_dtype",
                                                         "int64",
        grade="correct", grade_at_freeze="correct"),
    # batching crystals: neighbour indices shifted by cumsum of float atom counts, used with index_select
    "batched-neighbours-float-offsets-index-select": case(_batched_neighbours_float_atom_offsets_index_select,
                                                          "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # pair forces accumulated into edge_index.new_zeros (int64) with index_add_
    "forces-buffer-new-zeros-edge-index-index-add": case(_forces_buffer_new_zeros_from_edge_index,
                                                         "indexed_write_dtype", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the batch vector by repeat_interleave of uint32 atom counts read from an LMDB/HDF5 dataset
    "atoms-per-structure-uint32-repeat-interleave": case(_atoms_per_structure_uint32_repeat_interleave, "no_kernel",
                                                         "uint32",
        grade="correct", grade_at_freeze="correct"),
    # MEGNet Set2Set: the first q_star made by torch.zeros (fp32) into the bf16 LSTM
    "megnet-set2set-zeros-q-star-bf16-lstm": case(_megnet_set2set_zeros_q_star_bf16_lstm, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # attention-pooling readout: an fp32 query Parameter added after backbone.to(bf16), SDPA over bf16 atoms
    "readout-fp32-query-sdpa-bf16-atoms": case(_readout_query_fp32_sdpa_bf16_atoms, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ElemNet-style composition vector of int stoichiometric counts into the fp32 MLP
    "elemnet-int-stoichiometry-linear": case(_elemnet_stoichiometry_int_counts_linear, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # Roost-style element embedding bag weighted by float64 fractional composition
    "roost-f64-fractions-embedding-bag": case(_roost_fractional_composition_f64_embedding_bag, "op_dtype", "f32",
                                              "f64",
        grade="correct", grade_at_freeze="correct"),
    # an XRD pattern interpolated with np.interp (float64) into the bf16 Conv1d encoder
    "xrd-pattern-np-interp-f64-conv1d-bf16": case(_xrd_pattern_np_interp_f64_conv1d_bf16, "conv_weight_dtype", "f64",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a CHGCAR charge density stored in fp16, its structure factors by fft.fftn
    "chgcar-density-fftn-f16": case(_chgcar_density_fftn_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # phonon frequencies from eigvalsh of an fp16 dynamical matrix
    "phonon-dynamical-matrix-eigvalsh-f16": case(_phonon_dynamical_matrix_eigh_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the reciprocal lattice by linalg.inv of the bf16 cell
    "reciprocal-lattice-inv-bf16": case(_reciprocal_lattice_inv_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # elastic constants fitted by linalg.lstsq of bf16 strains and predicted stresses
    "elastic-constants-lstsq-bf16": case(_elastic_constants_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # space-group classifier with spglib's int32 numbers as cross_entropy's target
    "space-group-spglib-int32-cross-entropy": case(_space_group_spglib_int32_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # metal / non-metal classifier with the bool (band gap == 0) as BCE-with-logits' target
    "metal-classifier-bool-target-bce-logits": case(_metal_classifier_bool_target_bce_logits, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # force loss: Huber of bf16 predicted forces against float64 DFT forces, in backward
    "forces-huber-bf16-dft-f64-backward": case(_forces_huber_bf16_dft_f64_backward, "loss_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # quartiles of the int64 coordination numbers from bincount with torch.quantile
    "coordination-number-quantile-int64": case(_coordination_number_quantile_int64, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # valence electron density: int64 valence counts divided in place by the fp32 cell volume
    "valence-electron-density-in-place-div": case(_valence_electron_density_in_place_div, "result_cast", "f32",
                                                  "int64",
        grade="correct", grade_at_freeze="correct"),
    # enthalpy E + pV with a 1 GPa pressure in Pa made by full_like of the fp16 energies
    "enthalpy-pressure-pa-full-like-f16": case(_enthalpy_external_pressure_pa_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # an ASE calculator returning the bf16 model's forces through .numpy()
    "ase-calculator-bf16-forces-numpy": case(_ase_calculator_bf16_forces_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # band-gap mean pooling over a structure with no atoms left: 0 / 0 is NaN, Normal's argument check refuses it
    "empty-crystal-mean-pool-nan-normal": case(_empty_crystal_mean_pool_nan_normal, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
