"""Held-out live set 128: protein and molecular structure models written by hand in low precision (atom coordinates
as float64 from Biopython, RDKit or numpy, int64 residue and atom-type indices, pairwise distance matrices with cdist,
equivariant message passing with scatter and index_add, bool residue and atom masks, torsion angles via atan2,
rotation frames from Gram-Schmidt, FAPE-style losses under autocast). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at ddaf648f."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ddaf648f"

bf16, f16 = torch.bfloat16, torch.float16
_L = 16  # residues in a crop
_C = 32  # single / pair channels
_AA = 21  # 20 amino acids and unknown


def _seeded() -> None:
    torch.manual_seed(0)


def _backbone_np(residues: int = _L) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """N, CA, C coordinates as a hand-written PDB parser gives them: float(line[30:38]) into np.array, so float64."""
    rng = np.random.default_rng(0)
    t = np.arange(residues) * 1.745  # an ideal alpha helix: 100 degrees and 1.5 A rise per residue
    ca = np.stack([2.3 * np.cos(t), 2.3 * np.sin(t), 1.5 * np.arange(residues)], axis=-1)
    n = ca + rng.normal(scale=0.3, size=ca.shape) + np.array([-1.2, 0.6, 0.0])
    c = ca + rng.normal(scale=0.3, size=ca.shape) + np.array([1.3, 0.4, 0.2])
    return n, ca, c


def _frames(n: torch.Tensor, ca: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Backbone rotation frames by Gram-Schmidt on C - CA and N - CA (AlphaFold's rigid_from_3_points)."""
    e1 = F.normalize(c - ca, dim=-1)
    u2 = n - ca
    e2 = F.normalize(u2 - (e1 * u2).sum(-1, keepdim=True) * e1, dim=-1)
    return torch.stack([e1, e2, torch.linalg.cross(e1, e2)], dim=-1)


def _sidechain_literature_positions_f64_under_autocast() -> None:
    _seeded()
    # residue_constants-style table of idealised atom14 positions in each residue's frame, a numpy float64 array
    restype_atom14_positions = np.random.default_rng(1).normal(scale=1.5, size=(_AA, 14, 3))
    aatype = torch.randint(0, 20, (_L,))
    literature = torch.tensor(restype_atom14_positions)[aatype]
    rotation_head, translation_head = nn.Linear(_C, 9), nn.Linear(_C, 3)
    single = torch.randn(_L, _C)
    with torch.autocast("cpu", dtype=bf16):
        rotations = rotation_head(single).reshape(_L, 3, 3)
        translations = translation_head(single)
        torch.einsum("lij,laj->lai", rotations, literature) + translations[:, None]


def _gram_schmidt_cross_under_autocast() -> None:
    _seeded()
    direction_head = nn.Linear(_C, 3)
    single = torch.randn(_L, _C)
    lab_z = torch.tensor([0.0, 0.0, 1.0]).expand(_L, 3)  # completes each predicted direction to a frame
    with torch.autocast("cpu", dtype=bf16):
        e1 = direction_head(single)
        e1 = e1 / e1.norm(dim=-1, keepdim=True)
        u2 = lab_z - (e1 * lab_z).sum(-1, keepdim=True) * e1
        e2 = u2 / u2.norm(dim=-1, keepdim=True)
        torch.linalg.cross(e1, e2)


def _gram_schmidt_vecdot_bf16_head_fp32_backbone() -> None:
    _seeded()
    n, ca, _ = (torch.from_numpy(x).float() for x in _backbone_np())
    c_direction_head = nn.Linear(_C, 3).to(bf16)  # structure module halved for inference
    e1 = F.normalize(c_direction_head(torch.randn(_L, _C, dtype=bf16)), dim=-1)
    u2 = n - ca
    projection = torch.linalg.vecdot(e1, u2)[..., None]
    F.normalize(u2 - projection * e1, dim=-1)


def _ca_distances_exact_cdist_bf16() -> None:
    _seeded()
    ca = torch.randn(_L, 3, dtype=bf16) * 8.0  # CA trace from the bf16 structure module
    # exact mode for the distogram, so close contacts are not lost to the matmul expansion's cancellation
    torch.cdist(ca, ca, compute_mode="donot_use_mm_for_euclid_dist")


def _ligand_residue_clash_cdist_rdkit_f64() -> None:
    _seeded()
    # a 12-heavy-atom ligand conformer from RDKit's conf.GetPositions(): float64
    ligand = np.random.default_rng(2).normal(scale=2.0, size=(12, 3))
    atom14 = torch.randn(_L, 14, 3) * 3.0  # predicted pocket side chains, fp32
    distances = torch.cdist(torch.from_numpy(ligand).expand(_L, 12, 3), atom14)
    (distances < 2.5).any(-1)


def _contact_map_cdist_parsed_ca_f64() -> None:
    _seeded()
    _, ca_true, _ = _backbone_np(40)
    ca_pred = torch.randn(40, 3) * 10.0  # the fp32 model's CA trace for a 40-residue chain
    contacts_pred = torch.cdist(ca_pred, ca_pred) < 8.0
    contacts_true = torch.cdist(torch.from_numpy(ca_true), ca_pred) < 8.0  # the true trace from the PDB file
    (contacts_pred & contacts_true).sum()


def _triangle_attention_bf16_bias_fp32_pair() -> None:
    _seeded()
    heads, dim = 4, 8
    pair = torch.randn(_L, _L, _C)  # pair stack kept fp32
    to_qkv = nn.Linear(_C, 3 * heads * dim, bias=False)
    to_bias = nn.Linear(_C, heads, bias=False).to(bf16)  # triangle bias projection halved to save memory
    q, k, v = to_qkv(pair).reshape(_L, _L, 3, heads, dim).permute(2, 0, 3, 1, 4)
    bias = to_bias(pair.to(bf16)).permute(2, 0, 1)[None]
    F.scaled_dot_product_attention(q, k, v, attn_mask=bias)


def _template_pair_fp32_into_bf16_layer_norm() -> None:
    _seeded()
    _, ca, _ = _backbone_np()
    ca_t = torch.from_numpy(ca).float()
    distances = torch.cdist(ca_t, ca_t)
    bins = torch.linspace(3.25, 50.75, _C)
    template_distogram = (distances[..., None] > bins).float()  # one-hot-ish template features in fp32
    template_pair_stack_norm = nn.LayerNorm(_C).to(bf16)
    template_pair_stack_norm(template_distogram)


def _contact_refiner_conv2d_bf16_fp32_pair() -> None:
    _seeded()
    refiner = nn.Sequential(nn.Conv2d(_C, _C, 3, padding=1), nn.ELU(), nn.Conv2d(_C, 1, 1)).to(bf16)
    pair = torch.randn(1, _L, _L, _C)  # pair representation from the fp32 trunk
    refiner(pair.permute(0, 3, 1, 2))


def _torsion_gru_biopython_phi_psi_f64() -> None:
    _seeded()
    # Polypeptide.get_phi_psi_list(): python floats with None at the termini, filled with 0
    phi_psi = [(None, -0.8)] + [(-1.1, -0.7)] * (_L - 2) + [(-1.0, None)]
    angles = torch.tensor(np.array([[a or 0.0 for a in pair] for pair in phi_psi]))
    features = torch.cat([angles.sin(), angles.cos()], dim=-1)
    nn.GRU(4, _C, batch_first=True)(features[None])


def _backbone_update_bmm_fp32_frames_bf16_update() -> None:
    _seeded()
    n, ca, c = (torch.from_numpy(x).float() for x in _backbone_np())
    frames = _frames(n, ca, c)  # fp32 frames of the input backbone
    update_head = nn.Linear(_C, 6).to(bf16)
    update = update_head(torch.randn(_L, _C, dtype=bf16))
    quaternion = F.normalize(torch.cat([torch.ones(_L, 1, dtype=bf16), update[:, :3]], dim=-1), dim=-1)
    a, b, c_, d = quaternion.unbind(-1)
    rotation_update = torch.stack([
        a * a + b * b - c_ * c_ - d * d, 2 * (b * c_ - a * d), 2 * (b * d + a * c_),
        2 * (b * c_ + a * d), a * a - b * b + c_ * c_ - d * d, 2 * (c_ * d - a * b),
        2 * (b * d - a * c_), 2 * (c_ * d + a * b), a * a - b * b - c_ * c_ + d * d,
    ], dim=-1).reshape(_L, 3, 3)
    torch.bmm(frames, rotation_update)


def _fape_per_chain_index_add_under_autocast() -> None:
    _seeded()
    chain_index = torch.tensor([0] * 10 + [1] * 6)
    n, ca, c = (torch.from_numpy(x).float() for x in _backbone_np())
    true_frames = _frames(n, ca, c)
    position_head = nn.Linear(_C, 3)
    single = torch.randn(_L, _C)
    with torch.autocast("cpu", dtype=bf16):
        pred_ca = position_head(single)
        pred_local = torch.einsum("lji,lmj->lmi", true_frames, pred_ca[None] - pred_ca[:, None])
        true_local = torch.einsum("lji,lmj->lmi", true_frames, ca[None] - ca[:, None])
        errors = torch.sqrt(((pred_local - true_local) ** 2).sum(-1) + 1e-4).clamp(max=10.0).mean(-1)
        per_chain = torch.zeros(2).index_add_(0, chain_index, errors)
    per_chain.mean()


def _egnn_coordinate_update_scatter_add_rdkit_f64() -> None:
    _seeded()
    positions = torch.from_numpy(np.random.default_rng(3).normal(scale=1.5, size=(9, 3)))  # RDKit conformer, float64
    src = torch.tensor([0, 1, 1, 2, 2, 3, 4, 5, 6, 7])
    dst = torch.tensor([1, 0, 2, 1, 3, 2, 5, 4, 7, 6])
    h = torch.randn(9, _C)
    coordinate_mlp = nn.Sequential(nn.Linear(2 * _C + 1, _C), nn.SiLU(), nn.Linear(_C, 1))
    relative = positions[src] - positions[dst]
    squared = (relative ** 2).sum(-1, keepdim=True)
    weight = coordinate_mlp(torch.cat([h[src], h[dst], squared.float()], dim=-1))
    messages = relative * weight
    shift = torch.zeros(9, 3).scatter_add_(0, dst[:, None].expand(-1, 3), messages)
    positions + shift


def _fape_huber_bf16_prediction_backward() -> None:
    _seeded()
    structure_module = nn.Linear(_C, 3).to(bf16)  # trainer's "bf16-true" precision
    _, ca, _ = _backbone_np()
    pred_ca = structure_module(torch.randn(_L, _C, dtype=bf16))
    true_ca = torch.from_numpy(ca).float()
    pred_local = pred_ca[None] - pred_ca[:, None]
    true_local = true_ca[None] - true_ca[:, None]
    F.huber_loss(pred_local, true_local, delta=10.0).backward()


def _frames_by_qr_bf16() -> None:
    _seeded()
    n, ca, c = (torch.from_numpy(x) for x in _backbone_np())
    predicted_offsets = torch.randn(_L, 3, 2, dtype=bf16) * 0.1  # the bf16 structure module's backbone refinement
    # Gram-Schmidt on [C - CA, N - CA] done as a QR decomposition: Q's columns are e1, e2
    columns = torch.stack([c - ca, n - ca], dim=-1).to(bf16) + predicted_offsets
    torch.linalg.qr(columns)


def _ramachandran_histogramdd_bf16_torsions() -> None:
    _seeded()
    torsions = (torch.rand(_L, 2) * 2 - 1).to(bf16) * torch.pi  # phi, psi from the bf16 torsion head via atan2
    # Ramachandran occupancy of the sampled backbones (10-degree bins over the sampled range), logged each validation
    torch.histogramdd(torsions, bins=[36, 36])


def _predicted_bf16_structure_numpy_rmsd() -> None:
    _seeded()
    predicted = torch.randn(_L, 3, dtype=bf16) * 8.0
    _, ca, _ = _backbone_np()
    # Bio.SVDSuperimposer-style numpy RMSD on the structure module's output
    np.sqrt(((np.asarray(predicted) - ca) ** 2).sum(-1).mean())


def _ragged_sidechains_object_array() -> None:
    rng = np.random.default_rng(4)
    atoms_per_residue = [5, 8, 4, 11, 7, 9]  # ALA GLU GLY TRP LEU LYS heavy atoms
    sidechains = np.array([rng.normal(size=(k, 3)) for k in atoms_per_residue], dtype=object)
    torch.as_tensor(sidechains)


def _unresolved_rows_index_fill_1e5_f16() -> None:
    _seeded()
    ca = torch.randn(_L, 3) * 8.0
    distances = torch.cdist(ca, ca).half()  # half-precision pair features
    unresolved = torch.tensor([0, 1, 15])
    distances.index_fill_(0, unresolved, 1e5)  # keep unresolved residues out of every k-nearest search


def _von_mises_torsion_nll_missing_backbone_atoms() -> None:
    _seeded()
    n, ca, c = (torch.from_numpy(x).float() for x in _backbone_np())
    n[3] = 0.0  # residue 4's backbone absent from the mmCIF, left at the origin
    ca[3] = 0.0
    c[3] = 0.0
    e1 = (c - ca) / (c - ca).norm(dim=-1, keepdim=True)  # Gram-Schmidt written out by hand, no epsilon
    u2 = n - ca
    e2 = u2 - (e1 * u2).sum(-1, keepdim=True) * e1
    e2 = e2 / e2.norm(dim=-1, keepdim=True)
    next_n = torch.roll(n, -1, 0) - ca
    psi = torch.atan2((next_n * e2).sum(-1), (next_n * e1).sum(-1))
    predicted = torch.distributions.VonMises(torch.zeros(_L), torch.full((_L,), 4.0))
    (-predicted.log_prob(psi)).mean()


def _relpos_one_hot_into_linear() -> None:
    _seeded()
    residue_index = torch.arange(_L)
    offset = (residue_index[:, None] - residue_index[None, :]).clamp(-32, 32) + 32
    relpos = nn.Linear(65, _C)
    relpos(F.one_hot(offset, num_classes=65))


def _sequence_ascii_bytes_embedding() -> None:
    sequence = "MKTAYIAKQRQISFVK"
    codes = np.frombuffer(sequence.encode("ascii"), dtype=np.uint8) - ord("A")
    residue_embedding = nn.Embedding(26, _C)
    residue_embedding(torch.from_numpy(codes))


def _attention_bias_from_bool_seq_mask() -> None:
    _seeded()
    seq_mask = torch.ones(1, _L, dtype=torch.bool)  # the dataloader's residue mask, already bool
    seq_mask[:, 12:] = False
    logits = torch.randn(1, 4, _L, _L)
    bias = 1e9 * (seq_mask - 1)[:, None, None, :]  # AlphaFold's mask bias, written for float masks
    (logits + bias).softmax(-1)


def _atom_exists_float_inverted() -> None:
    _seeded()
    atom37_atom_exists = torch.ones(_L, 37)  # AlphaFold features keep masks as float32
    atom37_atom_exists[:, 20:] = 0.0
    positions = torch.randn(_L, 37, 3)
    positions.masked_fill(~atom37_atom_exists[..., None], 0.0)


def _resolved_fraction_mean_bool_mask() -> None:
    resolved = torch.ones(_L, dtype=torch.bool)
    resolved[[0, 1, 15]] = False
    if resolved.mean() < 0.5:
        raise RuntimeError("too few resolved residues")


def _bool_contact_map_into_conv2d() -> None:
    _seeded()
    ca = torch.randn(_L, 3) * 8.0
    contacts = (torch.cdist(ca, ca) < 8.0)[None, None]
    contact_encoder = nn.Conv2d(1, 8, 3, padding=1)
    contact_encoder(contacts)


def _dssp_int8_lookup_targets() -> None:
    _seeded()
    dssp = "  HHHHHHHHEEEE  "  # DSSP string of the crop: blank, H, E, G, I, B, T, S
    lookup = np.zeros(256, dtype=np.int8)
    for label, code in enumerate(" HEGIBTS"):
        lookup[ord(code)] = label
    labels = torch.from_numpy(lookup[np.frombuffer(dssp.encode("ascii"), dtype=np.uint8)])
    ss_logits = torch.randn(_L, 8)
    F.cross_entropy(ss_logits, labels)


def _torsion_atan2_out_residue_index_buffer() -> None:
    _seeded()
    residue_index = torch.arange(_L)
    sin_cos = F.normalize(torch.randn(_L, 2), dim=-1)  # torsion head output
    chi1 = torch.zeros_like(residue_index)
    torch.atan2(sin_cos[:, 0], sin_cos[:, 1], out=chi1)


def _atom37_take_along_dim_int32_map() -> None:
    _seeded()
    atom14_positions = torch.randn(_L, 14, 3)
    # residx_atom37_to_atom14 as the numpy featuriser stores it: int32
    atom37_to_atom14 = np.random.default_rng(5).integers(0, 14, size=(_L, 37)).astype(np.int32)
    index = torch.from_numpy(atom37_to_atom14)[..., None].expand(-1, -1, 3)
    torch.take_along_dim(atom14_positions, index, dim=1)


def _atoms_to_residues_index_add_float_residue_numbers() -> None:
    _seeded()
    # biopandas ATOM rows: residue_number went float64 when HETATM rows with NaN were concatenated and dropped
    residue_number = np.repeat(np.arange(1, _L + 1), 4).astype(np.float64)
    atom_features = torch.randn(4 * _L, _C)
    residue_of_atom = torch.from_numpy(residue_number - 1)
    torch.zeros(_L, _C).index_add_(0, residue_of_atom, atom_features)


CASES: dict[str, LiveCase] = {
    # idealised atom14 positions from a numpy float64 residue-constants table, einsum'd with bf16 frames under autocast
    "sidechain-literature-positions-f64-einsum-autocast": case(_sidechain_literature_positions_f64_under_autocast,
                                                               "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Gram-Schmidt under bf16 autocast: the bf16 predicted direction crossed with the fp32-promoted second axis
    "gram-schmidt-cross-autocast-bf16-fp32-axis": case(_gram_schmidt_cross_under_autocast, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Gram-Schmidt projection by linalg.vecdot of a halved head's bf16 C direction and the fp32 N - CA vector
    "gram-schmidt-vecdot-bf16-head-fp32-backbone": case(_gram_schmidt_vecdot_bf16_head_fp32_backbone, "op_dtype",
                                                        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 CA trace's distance matrix by cdist in exact (no matmul) mode
    "ca-distogram-exact-cdist-bf16": case(_ca_distances_exact_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # clash check: an RDKit float64 ligand conformer against fp32 atom14 side chains with cdist (small, direct path)
    "ligand-clash-cdist-rdkit-f64-atom14": case(_ligand_residue_clash_cdist_rdkit_f64, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # contact precision: the float64 CA trace parsed from the PDB file against the fp32 prediction by cdist (matmul path)
    "contact-map-cdist-parsed-pdb-f64-ca": case(_contact_map_cdist_parsed_ca_f64, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # triangle attention: fp32 q, k, v of the pair stack with the triangle bias from a bf16 projection as attn_mask
    "triangle-attention-bf16-bias-fp32-sdpa": case(_triangle_attention_bf16_bias_fp32_pair, "attn_mask_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # template distogram features built in fp32 into the template pair stack's bf16 LayerNorm
    "template-distogram-fp32-bf16-layernorm": case(_template_pair_fp32_into_bf16_layer_norm, "norm_param_dtype",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # a contact-refinement ResNet cast to bf16 fed the fp32 trunk's pair representation
    "contact-refiner-bf16-conv2d-fp32-pair": case(_contact_refiner_conv2d_bf16_fp32_pair, "conv_weight_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a backbone-torsion GRU fed sin/cos of Biopython's phi/psi list made into a float64 tensor
    "torsion-gru-biopython-phi-psi-f64": case(_torsion_gru_biopython_phi_psi_f64, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # frame composition: fp32 backbone frames bmm'd with a halved update head's bf16 quaternion rotations
    "backbone-update-bmm-fp32-frames-bf16-quaternion": case(_backbone_update_bmm_fp32_frames_bf16_update,
                                                            "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FAPE under bf16 autocast: per-frame errors index_add_'ed into an fp32 per-chain buffer
    "fape-per-chain-index-add-autocast": case(_fape_per_chain_index_add_under_autocast, "indexed_write_dtype", "f32",
                                              "bf16",
        grade="correct", grade_at_freeze="correct"),
    # EGNN coordinate update: float64 RDKit relative vectors times fp32 weights scatter_add_'ed into an fp32 shift
    "egnn-coordinate-scatter-add-rdkit-f64": case(_egnn_coordinate_update_scatter_add_rdkit_f64,
                                                  "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a FAPE-like huber loss between a bf16-true model's local CA offsets and fp32 true offsets, backward
    "fape-huber-bf16-true-backward": case(_fape_huber_bf16_prediction_backward, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # backbone frames by QR of [C - CA, N - CA] refined by the bf16 structure module
    "frames-qr-bf16-backbone": case(_frames_by_qr_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Ramachandran occupancy of bf16 phi/psi with histogramdd over the sampled range
    "ramachandran-histogramdd-bf16-torsions": case(_ramachandran_histogramdd_bf16_torsions, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a Biopython-style numpy RMSD computed on the bf16 predicted CA trace
    "predicted-ca-bf16-numpy-rmsd": case(_predicted_bf16_structure_numpy_rmsd, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ragged per-residue side-chain coordinates as a numpy object array into torch.as_tensor
    "ragged-sidechains-object-array-as-tensor": case(_ragged_sidechains_object_array, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # unresolved residues' rows of an fp16 distance matrix index_fill_'ed with 1e5 to keep them out of kNN
    "unresolved-rows-index-fill-1e5-f16": case(_unresolved_rows_index_fill_1e5_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # hand-written Gram-Schmidt without epsilon on a residue with missing backbone atoms: NaN psi into VonMises
    "von-mises-psi-missing-backbone-nan": case(_von_mises_torsion_nll_missing_backbone_atoms, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # AlphaFold relpos: one_hot of clipped residue offsets (int64) into the relpos Linear without .float()
    "relpos-one-hot-int64-linear": case(_relpos_one_hot_into_linear, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the sequence as uint8 ASCII codes from np.frombuffer minus ord("A") into the residue Embedding
    "sequence-ascii-uint8-embedding": case(_sequence_ascii_bytes_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # AlphaFold's 1e9 * (mask - 1) attention bias written for float masks, given the bool residue mask
    "mask-bias-bool-seq-mask-minus-one": case(_attention_bias_from_bool_seq_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # AlphaFold's float32 atom37_atom_exists inverted with ~ for masked_fill
    "atom37-exists-float-invert": case(_atom_exists_float_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the fraction of resolved residues as mean() of the bool resolved mask
    "resolved-fraction-mean-bool": case(_resolved_fraction_mean_bool_mask, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the bool contact map (CA distance < 8 A) fed straight into a Conv2d contact encoder
    "contact-map-bool-conv2d": case(_bool_contact_map_into_conv2d, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DSSP 8-state labels through an int8 numpy lookup table as cross_entropy targets
    "dssp-int8-lookup-cross-entropy": case(_dssp_int8_lookup_targets, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # chi1 by torch.atan2 written with out= into zeros_like(residue_index), an int64 buffer
    "chi1-atan2-out-zeros-like-residue-index": case(_torsion_atan2_out_residue_index_buffer, "result_cast", "f32",
                                                    "int64",
        grade="correct", grade_at_freeze="correct"),
    # atom14 to atom37 with the featuriser's int32 residx_atom37_to_atom14 map in take_along_dim
    "atom37-take-along-dim-int32-map": case(_atom37_take_along_dim_int32_map, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # atoms pooled to residues by index_add_ with biopandas' residue_number column left float64
    "atoms-to-residues-index-add-f64-residue-numbers": case(_atoms_to_residues_index_add_float_residue_numbers,
                                                            "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
}
