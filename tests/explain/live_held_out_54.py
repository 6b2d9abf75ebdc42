"""Held-out live set 54: protein, molecular and chemistry models by hand in low precision. Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at 585041e."""

from __future__ import annotations

import io

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "585041e"

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32


def _numpy_coordinates(atoms: int = 6) -> np.ndarray:
    """Coordinates as a structure parser hands them over: a float64 numpy array, in angstroms."""
    return np.random.default_rng(0).normal(scale=3.0, size=(atoms, 3))


def _schnet_filter_fp32_rbf() -> None:
    # positions kept fp32 for precision, so the Gaussian expansion is fp32 going into the bf16 filter network
    torch.manual_seed(0)
    filter_net = nn.Sequential(nn.Linear(16, 32), nn.SiLU(), nn.Linear(32, 32)).to(bf16)
    pos = torch.randn(6, 3)
    src, dst = torch.triu_indices(6, 6, offset=1)
    distance = (pos[src] - pos[dst]).norm(dim=-1)
    offsets = torch.linspace(0.0, 5.0, 16)
    rbf = torch.exp(-10.0 * (distance[:, None] - offsets) ** 2)
    filter_net(rbf)


def _clebsch_gordan_numpy_tensor_product() -> None:
    torch.manual_seed(0)
    cg = torch.from_numpy(np.random.default_rng(0).normal(size=(3, 3, 5)))  # coupling table built with numpy
    x, y = torch.randn(4, 3, dtype=bf16), torch.randn(4, 3, dtype=bf16)
    torch.einsum("ijk,ni,nj->nk", cg, x, y)


def _random_rotation_augmentation_f64() -> None:
    q, r = np.linalg.qr(np.random.default_rng(0).normal(size=(3, 3)))
    rotation = torch.from_numpy(q * np.sign(np.diag(r)))
    coords = torch.randn(10, 3)
    coords @ rotation.T


def _msa_row_attention_pair_bias_baddbmm() -> None:
    torch.manual_seed(0)
    q, k = torch.randn(4, 6, 8, dtype=bf16), torch.randn(4, 6, 8, dtype=bf16)
    pair_bias = nn.Linear(8, 4)(torch.randn(6, 6, 8)).permute(2, 0, 1)  # pair trunk kept fp32
    torch.baddbmm(pair_bias, q, k.transpose(1, 2), alpha=8 ** -0.5)


def _pair_bias_fp32_multihead_attn_mask() -> None:
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    single = torch.randn(1, 6, 16, dtype=bf16)
    pos = torch.randn(6, 3)
    distance_bias = -torch.cdist(pos, pos) ** 2 / 8.0
    attention(single, single, single, attn_mask=distance_bias)


def _outer_product_mean_fp32_into_bf16_layernorm() -> None:
    torch.manual_seed(0)
    msa = torch.randn(3, 5, 4, dtype=bf16)
    outer = torch.einsum("sic,sjd->ijcd", msa.float(), msa.float()).reshape(5, 5, 16) / 3  # upcast for the mean
    pair_norm = nn.LayerNorm(16).to(bf16)
    pair_norm(outer)


def _ipa_point_keys_fp32_sdpa() -> None:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 6, 8, dtype=bf16)
    v = torch.randn(1, 2, 6, 8, dtype=bf16)
    rotations = torch.linalg.qr(torch.randn(6, 3, 3)).Q  # backbone frames kept fp32
    local_points = torch.randn(6, 8 // 3 + 1, 3)
    k = torch.einsum("nij,npj->npi", rotations, local_points).reshape(6, -1)[:, :8].expand(1, 2, 6, 8)
    F.scaled_dot_product_attention(q, k, v)


def _plm_embeddings_bf16_into_fp32_bilstm() -> None:
    torch.manual_seed(0)
    residue_embeddings = torch.randn(1, 12, 16, dtype=bf16)  # from a protein language model served in bf16
    secondary_structure_head = nn.LSTM(16, 8, batch_first=True, bidirectional=True)
    secondary_structure_head(residue_embeddings)


def _contact_resnet_numpy_coevolution_features() -> None:
    torch.manual_seed(0)
    couplings = np.random.default_rng(0).normal(size=(1, 4, 10, 10))  # coevolution couplings saved with numpy
    resnet_stem = nn.Conv2d(4, 8, 3, padding=1, bias=False)
    resnet_stem(torch.from_numpy(couplings))


def _contact_head_log_prior_bias_fp32() -> None:
    torch.manual_seed(0)
    head = nn.Conv2d(8, 1, 3, padding=1).to(bf16)
    head.bias = nn.Parameter(torch.full((1,), float(np.log(0.05 / 0.95))))  # contact prior set after the cast
    head(torch.randn(1, 8, 10, 10, dtype=bf16))


def _atom14_to_atom37_index_put() -> None:
    torch.manual_seed(0)
    atom14_pred = torch.randn(5, 14, 3, dtype=bf16)
    atom37 = torch.zeros(5, 37, 3)
    residx = torch.arange(5)[:, None].expand(5, 14)
    atom37_index = torch.randint(0, 37, (5, 14))
    atom37[residx, atom37_index] = atom14_pred


def _flow_matching_lerp_numpy_coordinates() -> None:
    torch.manual_seed(0)
    x1 = torch.from_numpy(_numpy_coordinates())
    x0 = torch.randn(6, 3)
    t = torch.rand(1, 1)
    torch.lerp(x0, x1, t)


def _cryo_em_map_grid_sample_numpy_coords() -> None:
    torch.manual_seed(0)
    density = torch.randn(1, 1, 8, 8, 8)  # the map, read as float32
    coords = _numpy_coordinates()
    grid = torch.from_numpy(np.clip(coords / 10.0, -1.0, 1.0)).view(1, 6, 1, 1, 3)
    F.grid_sample(density, grid, align_corners=True)


def _chebyshev_radial_basis_bf16() -> None:
    torch.manual_seed(0)
    distance = torch.rand(12, dtype=bf16) * 5.0
    scaled = 2.0 * distance / 5.0 - 1.0
    torch.stack([torch.special.chebyshev_polynomial_t(scaled, n) for n in range(6)], dim=-1)


def _chirality_signed_volume_det_bf16() -> None:
    torch.manual_seed(0)
    coords = torch.randn(4, 4, 3, dtype=bf16)  # a chiral centre and three neighbours, per molecule
    bonds = coords[:, 1:] - coords[:, :1]
    torch.linalg.det(bonds)


def _spherical_harmonics_complex_phase_bf16() -> None:
    torch.manual_seed(0)
    edge = torch.randn(10, 3, dtype=bf16)
    phi = torch.atan2(edge[:, 1], edge[:, 0])
    m = 2
    torch.complex(torch.cos(m * phi), torch.sin(m * phi))


def _distogram_floor_bins_cross_entropy() -> None:
    torch.manual_seed(0)
    logits = torch.randn(1, 16, 6, 6)
    pos = torch.randn(6, 3) * 4
    bins = (torch.cdist(pos, pos) / 1.5).floor().clamp(max=15)
    F.cross_entropy(logits, bins[None])


def _contact_map_bool_target_bce() -> None:
    torch.manual_seed(0)
    logits = torch.randn(6, 6)
    pos = torch.randn(6, 3) * 4
    contacts = torch.cdist(pos, pos) < 8.0
    F.binary_cross_entropy_with_logits(logits, contacts)


def _batch_vector_repeat_interleave_float_counts() -> None:
    atoms_per_molecule = torch.tensor([5.0, 3.0, 7.0])  # collated with the float targets
    torch.repeat_interleave(torch.arange(3), atoms_per_molecule)


def _padded_neighbour_table_float_gather() -> None:
    torch.manual_seed(0)
    features = torch.randn(6, 8)
    neighbours = torch.full((6, 4), -1.0)
    neighbours[:, :3] = torch.randint(0, 6, (6, 3)).float()
    valid = neighbours.clamp(min=0)
    torch.gather(features[None].expand(6, 6, 8), 1, valid[..., None].expand(6, 4, 8))


def _atom_type_embedding_numpy_atomic_numbers() -> None:
    atomic_numbers = np.array([6.0, 1.0, 1.0, 8.0, 7.0])  # from a float feature matrix's first column
    atom_embedding = nn.Embedding(100, 16)
    atom_embedding(torch.from_numpy(atomic_numbers))


def _cosine_cutoff_where_float_mask() -> None:
    torch.manual_seed(0)
    distance = torch.rand(10) * 8
    within = (distance < 5.0).float()  # neighbour mask as float, to multiply messages later
    torch.where(within, 0.5 * (torch.cos(distance * torch.pi / 5.0) + 1.0), 0.0)


def _rdkit_atom_features_int64_linear() -> None:
    torch.manual_seed(0)
    # atomic number, degree, formal charge, hydrogens, aromatic: an int64 matrix from the featuriser
    features = torch.from_numpy(np.array([[6, 4, 0, 3, 0], [8, 1, 0, 0, 0], [7, 3, 0, 1, 1]]))
    atom_encoder = nn.Linear(5, 16)
    atom_encoder(features)


def _fixed_point_coordinates_in_place_divide() -> None:
    coords = torch.from_numpy(np.array([[12345, -2210, 880], [13001, -1500, 1200]]))  # thousandths of angstrom
    coords /= 1000


def _padded_atom_distance_sentinel_fp16() -> None:
    torch.manual_seed(0)
    pos = torch.randn(1, 6, 3).half()
    atom_mask = torch.tensor([[True, True, True, True, False, False]])
    distance = (pos[:, :, None] - pos[:, None]).float().norm(dim=-1).half()
    pair_mask = atom_mask[:, :, None] & atom_mask[:, None]
    distance.masked_fill(~pair_mask, 1e6)


def _geometry_optimisation_external_forces_as_grad() -> None:
    pos = nn.Parameter(torch.randn(6, 3))
    optimizer = torch.optim.SGD([pos], lr=0.01)
    forces = -_numpy_coordinates()  # a force field's forces, float64 from numpy
    pos.grad = torch.from_numpy(-forces)
    optimizer.step()


def _trajectory_bf16_numpy_writer() -> None:
    torch.manual_seed(0)
    frames = torch.randn(3, 6, 3, dtype=bf16)  # sampled conformers from the bf16 generator
    for frame in frames:
        np.savetxt(io.StringIO(), frame.numpy(), fmt="%.3f")


def _self_distance_sqrt_nan_anomaly() -> None:
    torch.manual_seed(0)
    pos = torch.randn(5, 3, requires_grad=True)
    with torch.autograd.detect_anomaly():
        distance = ((pos[:, None] - pos[None]) ** 2).sum(-1).sqrt()
        energy = (1.0 / (distance + torch.eye(5)) ** 6).triu(1).sum()
        energy.backward()


def _pair_representation_fp8_cache_residual() -> None:
    torch.manual_seed(0)
    pair_cache = torch.randn(6, 6, 8).to(torch.float8_e4m3fn)  # recycled pair stored in fp8 to save memory
    update = torch.randn(6, 6, 8, dtype=bf16)
    pair_cache + update


def _half_potential_grad_scaler_unscale() -> None:
    torch.manual_seed(0)
    potential = nn.Sequential(nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 1)).half()
    optimizer = torch.optim.Adam(potential.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    energy = potential(torch.randn(4, 8).half()).float()
    scaler.scale(F.mse_loss(energy, torch.randn(4, 1))).backward()
    scaler.unscale_(optimizer)


CASES: dict[str, LiveCase] = {
    # SchNet-style filter network cast to bf16, the Gaussian distance expansion from fp32 positions fed to it
    "schnet-fp32-rbf-bf16-filter": case(_schnet_filter_fp32_rbf, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an equivariant tensor product: Clebsch-Gordan table built with numpy (float64) contracted with bf16 features
    "clebsch-gordan-numpy-einsum-bf16": case(_clebsch_gordan_numpy_tensor_product, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # random-rotation augmentation: a numpy QR rotation (float64) applied to fp32 coordinates with @
    "random-rotation-numpy-f64-augment": case(_random_rotation_augmentation_f64, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # MSA row attention: the fp32 pair trunk's per-head bias as baddbmm's input for bf16 q and k
    "msa-row-attention-fp32-pair-bias-baddbmm": case(_msa_row_attention_pair_bias_baddbmm, "batched_matmul_dtype",
                                                     "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a -distance² bias from fp32 positions as a bf16 MultiheadAttention's attn_mask
    "distance-bias-fp32-mha-attn-mask": case(_pair_bias_fp32_multihead_attn_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # outer product mean upcast to fp32 for the average, then the pair trunk's bf16 LayerNorm
    "outer-product-mean-fp32-bf16-layernorm": case(_outer_product_mean_fp32_into_bf16_layernorm, "norm_param_dtype",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # invariant point attention: keys from points rotated by the fp32 backbone frames, bf16 queries and values
    "ipa-fp32-frame-point-keys-sdpa": case(_ipa_point_keys_fp32_sdpa, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-residue embeddings from a bf16 protein language model fed to an fp32 BiLSTM secondary-structure head
    "plm-bf16-embeddings-fp32-bilstm": case(_plm_embeddings_bf16_into_fp32_bilstm, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a contact-map ResNet (fp32) fed coevolution couplings saved with numpy (float64)
    "contact-resnet-numpy-f64-couplings": case(_contact_resnet_numpy_coevolution_features, "conv_weight_dtype",
                                               "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 contact head whose bias is re-initialised to the contact log-prior as a new fp32 Parameter after the cast
    "contact-head-log-prior-bias-fp32": case(_contact_head_log_prior_bias_fp32, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # atom14 to atom37 conversion: bf16 predicted positions written into a torch.zeros (fp32) atom37 tensor
    "atom14-to-atom37-index-put-bf16": case(_atom14_to_atom37_index_put, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # flow matching on coordinates: lerp from fp32 noise toward numpy (float64) ground-truth positions
    "flow-matching-lerp-numpy-f64-target": case(_flow_matching_lerp_numpy_coordinates, "lerp_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fitting atoms into a cryo-EM map: grid_sample of the fp32 density at float64 numpy coordinates
    "cryo-em-map-grid-sample-numpy-coords": case(_cryo_em_map_grid_sample_numpy_coords, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a Chebyshev radial basis of bf16 distances with torch.special.chebyshev_polynomial_t
    "chebyshev-radial-basis-bf16": case(_chebyshev_radial_basis_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # chirality from the signed volume of three bond vectors with linalg.det in bf16
    "chirality-signed-volume-det-bf16": case(_chirality_signed_volume_det_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # spherical-harmonic phase e^{imφ} built with torch.complex from bf16 cos and sin
    "spherical-harmonic-phase-complex-bf16": case(_spherical_harmonics_complex_phase_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # distogram loss: distance bins from floor() never made .long(), given to cross_entropy
    "distogram-floor-bins-cross-entropy": case(_distogram_floor_bins_cross_entropy, "target_dtype", "f32",
                                               fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # contact prediction loss given the bool contact map (distance < 8 Å) as the target
    "contact-map-bool-target-bce-logits": case(_contact_map_bool_target_bce, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # graph batch vector by repeat_interleave with the atom counts collated as float
    "batch-vector-repeat-interleave-float-counts": case(_batch_vector_repeat_interleave_float_counts,
                                                        "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a neighbour table padded with torch.full(-1.0), so float, used as gather's index
    "neighbour-table-float-padding-gather": case(_padded_neighbour_table_float_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # atomic numbers taken from a float64 numpy feature matrix into the atom-type Embedding
    "atom-type-embedding-numpy-f64-numbers": case(_atom_type_embedding_numpy_atomic_numbers, "index_tensor_dtype",
                                                  "f64",
        grade="correct", grade_at_freeze="correct"),
    # cosine cutoff with torch.where on a neighbour mask kept as float
    "cosine-cutoff-where-float-mask": case(_cosine_cutoff_where_float_mask, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RDKit-style integer atom features (int64) fed straight to the fp32 atom encoder
    "rdkit-int64-atom-features-linear": case(_rdkit_atom_features_int64_linear, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fixed-point coordinates (int64 thousandths of an angstrom) divided in place to angstroms
    "fixed-point-coords-in-place-divide": case(_fixed_point_coordinates_in_place_divide, "result_cast", "f32",
                                               "int64",
        grade="correct", grade_at_freeze="correct"),
    # fp16 pair distances of padded atoms set to a 1e6 Å sentinel so the cutoff drops them
    "padded-atom-distance-sentinel-1e6-fp16": case(_padded_atom_distance_sentinel_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # geometry optimisation: a force field's float64 forces assigned as the fp32 positions' .grad
    "geometry-opt-numpy-forces-as-grad": case(_geometry_optimisation_external_forces_as_grad, "loss_dtype", "f64",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # sampled bf16 conformers handed to numpy for an XYZ writer
    "conformer-writer-bf16-numpy": case(_trajectory_bf16_numpy_writer, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Lennard-Jones energy from sqrt of squared distances including the zero self-distances, anomaly mode on
    "lennard-jones-self-distance-sqrt-nan": case(_self_distance_sqrt_nan_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # recycled pair representation cached in float8_e4m3fn, the bf16 update added to it
    "recycled-pair-fp8-cache-residual-add": case(_pair_representation_fp8_cache_residual, "fp8_promotion",
                                                 "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a .half() interatomic potential trained with GradScaler, unscaled before clipping
    "half-potential-grad-scaler-unscale": case(_half_potential_grad_scaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
