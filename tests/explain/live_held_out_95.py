"""Held-out live set 95: drug discovery and molecular docking written by hand in low precision (protein pocket grids as
uint8/float voxels, ligand poses with float64 coordinates from RDKit, docking score functions with pairwise distance
cutoffs, binding-affinity regression and classification with class weights, SE(3) pose sampling with quaternions,
atom-type one-hots and int64 residue ids, virtual-screening top-k ranking, equivariant scoring networks under bf16/fp16
autocast). Defects planted by a helper who never read the rules, written before castwise ran and graded once with the
rules frozen at 161ed1a."""

from __future__ import annotations

import numpy as np
import scipy.optimize
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "161ed1a"

bf16, f16 = torch.bfloat16, torch.float16
_N_LIGAND = 12
_POCKET_CENTRE = (10.0, 12.0, 8.0)
# AutoDock Vina's weights: gauss1, gauss2, repulsion, hydrophobic, hydrogen bond
_VINA_WEIGHTS = np.array([-0.035579, -0.005156, 0.840245, -0.035069, -0.587439])


def _seeded() -> None:
    torch.manual_seed(0)


def _rdkit_positions(n: int = _N_LIGAND) -> np.ndarray:
    """What RDKit's mol.GetConformer().GetPositions() returns: an (n, 3) float64 array in angstroms."""
    rng = np.random.default_rng(0)
    return rng.normal(scale=1.8, size=(n, 3)) + np.array(_POCKET_CENTRE)


def _pocket_atoms(n: int = 40) -> torch.Tensor:
    generator = torch.Generator().manual_seed(1)
    return torch.randn(n, 3, generator=generator) * 4.0 + torch.tensor(_POCKET_CENTRE)


def _quaternion_to_matrix(q: torch.Tensor) -> torch.Tensor:
    w, x, y, z = q.unbind(-1)
    return torch.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    ], -1).reshape(*q.shape[:-1], 3, 3)


def _ligand_density_into_uint8_pocket_grid() -> None:
    grid = torch.zeros(24, 24, 24, dtype=torch.uint8)  # the pocket's occupancy grid as cached to disk
    origin, spacing = torch.tensor(_POCKET_CENTRE) - 6.0, 0.5
    ligand = torch.from_numpy(_rdkit_positions()).float()
    voxel = ((ligand - origin) / spacing).long().clamp(0, 23)
    centre = origin + (voxel + 0.5) * spacing
    density = torch.exp(-((ligand - centre) ** 2).sum(-1) / (2 * 0.8**2))
    grid.index_put_((voxel[:, 0], voxel[:, 1], voxel[:, 2]), density, accumulate=True)


def _screening_scores_fp8_cache_topk() -> None:
    _seeded()
    scores = torch.randn(50_000) * 1.5 - 7.0  # docking scores of one library shard, kcal/mol
    cache = scores.to(torch.float8_e4m3fn)  # kept in fp8 to hold the whole billion-compound screen in memory
    torch.topk(cache, 100, largest=False)


def _fft_docking_on_halved_feature_grids() -> None:
    _seeded()
    featuriser = nn.Conv3d(4, 1, 3, padding=1).half()  # the docking model halved for screening
    receptor = torch.rand(1, 4, 16, 16, 16, dtype=f16)
    ligand = torch.zeros(1, 4, 16, 16, 16, dtype=f16)
    ligand[..., 6:10, 6:10, 6:10] = 1.0
    r, lig = featuriser(receptor)[0, 0], featuriser(ligand)[0, 0]
    torch.real(torch.fft.ifftn(torch.fft.fftn(r) * torch.fft.fftn(lig).conj()))  # Katchalski-Katzir correlation


def _hit_rate_beta_posterior_from_counts() -> None:
    _seeded()
    confirmed = torch.tensor([3, 7, 1])  # confirmed actives among each target's top-100 picks
    picked = torch.tensor([100, 100, 100])
    posterior = torch.distributions.Beta(confirmed + 1, picked - confirmed + 1)
    posterior.sample((1000,)).quantile(torch.tensor([0.05, 0.95]), dim=0)


def _starting_poses_around_integer_pocket_centre() -> None:
    _seeded()
    probability = torch.rand(24, 24, 24)
    probability[8:14, 9:15, 6:12] += 1.0
    centre_voxel = (probability > 0.9).nonzero().median(0).values  # int64 voxel indices
    torch.normal(centre_voxel.expand(8, 3), 2.0)


def _pose_cluster_mean_quaternion_eigh() -> None:
    _seeded()
    rotation_head = nn.Linear(32, 4).to(bf16)
    q = F.normalize(rotation_head(torch.randn(16, 32, dtype=bf16)), dim=-1)  # one cluster's pose rotations
    accumulator = q.T @ q / q.shape[0]  # Markley's average: the principal eigenvector
    torch.linalg.eigh(accumulator)


def _egnn_edges_from_rdkit_f64_under_autocast() -> None:
    _seeded()
    positions = torch.from_numpy(_rdkit_positions())
    h = torch.randn(_N_LIGAND, 16)
    edge_mlp = nn.Sequential(nn.Linear(2 * 16 + 1, 32), nn.SiLU(), nn.Linear(32, 32))
    src, dst = torch.triu_indices(_N_LIGAND, _N_LIGAND, 1)
    with torch.autocast("cpu", dtype=bf16):
        d2 = ((positions[src] - positions[dst]) ** 2).sum(-1, keepdim=True)
        edge_mlp(torch.cat([h[src], h[dst], d2], -1))


def _vina_terms_times_numpy_weights() -> None:
    _seeded()
    poses = torch.from_numpy(_rdkit_positions()).float() + torch.randn(6, 1, 3)  # six translated poses
    protein = _pocket_atoms()
    d = torch.cdist(poses, protein.expand(6, -1, -1))
    surface = d - 3.6  # minus the two van der Waals radii
    inside = (d < 8.0).float()  # Vina's pairwise cutoff
    terms = torch.stack([
        torch.exp(-(surface / 0.5) ** 2), torch.exp(-((surface - 3.0) / 2.0) ** 2),
        surface.clamp(max=0) ** 2, (1.5 - surface).clamp(0, 1.0), (-surface).clamp(0, 0.7) / 0.7,
    ], -1)
    per_pose = (terms * inside[..., None]).sum((1, 2))
    per_pose @ torch.from_numpy(_VINA_WEIGHTS)


def _pose_batch_baddbmm_fp32_translations() -> None:
    _seeded()
    n_poses = 8
    conformer = torch.randn(_N_LIGAND, 3, dtype=bf16)  # the bf16 generator's centred ligand conformer
    q = F.normalize(torch.randn(n_poses, 4), dim=-1)  # uniform random rotations
    rotations = _quaternion_to_matrix(q).to(bf16)
    translations = torch.tensor(_POCKET_CENTRE) + 2.0 * torch.randn(n_poses, 1, 3)
    torch.baddbmm(translations, conformer.expand(n_poses, -1, -1), rotations.transpose(1, 2))


def _quaternion_refinement_lerp_toward_bf16_prediction() -> None:
    _seeded()
    q_pose = F.normalize(torch.randn(8, 4), dim=-1)  # the sampler's current pose rotations
    refiner = nn.Linear(4 + 16, 4).to(bf16)
    context = torch.randn(8, 16)
    q_pred = F.normalize(refiner(torch.cat([q_pose, context], -1).to(bf16)), dim=-1)
    F.normalize(torch.lerp(q_pose, q_pred, 0.3), dim=-1)  # nlerp step toward the prediction


def _ligand_queries_attend_to_fp16_esm_cache() -> None:
    _seeded()
    esm = np.random.default_rng(0).standard_normal((1, 120, 64)).astype(np.float16)  # per-residue ESM .npy cache
    keys = torch.from_numpy(esm).view(1, 120, 4, 16).transpose(1, 2)
    q_proj = nn.Linear(32, 64).to(bf16)
    q = q_proj(torch.randn(1, _N_LIGAND, 32, dtype=bf16)).view(1, _N_LIGAND, 4, 16).transpose(1, 2)
    F.scaled_dot_product_attention(q, keys, keys)


def _apbs_potential_channel_into_conv3d() -> None:
    _seeded()
    occupancy = torch.rand(1, 4, 16, 16, 16)  # C, N, O, S density channels
    potential = np.random.default_rng(0).normal(size=(16, 16, 16))  # APBS .dx grid read with gridData: float64
    grid = torch.cat([occupancy, torch.from_numpy(potential)[None, None]], dim=1)
    nn.Conv3d(5, 16, 3, padding=1)(grid)


def _complex_coordinates_index_copy_rdkit_pose() -> None:
    protein = _pocket_atoms()
    ligand = torch.from_numpy(_rdkit_positions())
    n_protein = protein.shape[0]
    coords = torch.zeros(n_protein + _N_LIGAND, 3)
    coords.index_copy_(0, torch.arange(n_protein), protein)
    coords.index_copy_(0, torch.arange(n_protein, n_protein + _N_LIGAND), ligand)


def _affinity_bilinear_ligand_pocket() -> None:
    _seeded()
    ligand_tower = nn.Linear(16, 32).to(bf16)
    pocket = torch.randn(4, 24)  # pocket descriptors from the fp32 featuriser
    affinity_head = nn.Bilinear(32, 24, 1)
    affinity_head(ligand_tower(torch.randn(4, 16, dtype=bf16)), pocket)


def _fusion_layer_norm_after_promoting_cat() -> None:
    _seeded()
    pocket_encoder = nn.Linear(24, 32).to(bf16)
    fusion_norm = nn.LayerNorm(64).to(bf16)  # the scoring model cast to bf16 as a whole
    ligand_embeddings = torch.randn(4, 32)  # pretrained ligand embeddings precomputed in fp32
    fused = torch.cat([pocket_encoder(torch.randn(4, 24, dtype=bf16)), ligand_embeddings], -1)
    fusion_norm(fused)


def _activity_classes_weighted_cross_entropy() -> None:
    _seeded()
    labels = torch.tensor([0, 0, 0, 0, 0, 0, 1, 1, 0, 2, 0, 1])  # inactive / weak / potent from pIC50 cut-offs
    counts = torch.bincount(labels, minlength=3)
    weights = counts.sum() / (3 * counts.float())
    head = nn.Linear(32, 3).to(bf16)
    logits = head(torch.randn(len(labels), 32, dtype=bf16))
    F.cross_entropy(logits, labels, weight=weights, label_smoothing=0.05)


def _binder_probability_bce_float64_labels() -> None:
    _seeded()
    is_binder = np.array([1, 0, 0, 1, 0, 0, 0, 1], dtype=float)  # the index's is_binder column as pandas gives it
    model = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))
    probability = torch.sigmoid(model(torch.randn(8, 32))).squeeze(-1)
    F.binary_cross_entropy(probability, torch.from_numpy(is_binder)).backward()


def _score_grid_padded_with_penalty_fp16() -> None:
    _seeded()
    affinity_map = torch.randn(1, 1, 16, 16, 16, dtype=f16)  # a precomputed Vina-like map kept in fp16
    F.pad(affinity_map, (2, 2, 2, 2, 2, 2), value=1e5)  # outside the box: a large penalty


def _pdb_atom_serials_int16() -> None:
    serials = list(range(38_990, 38_990 + _N_LIGAND))  # HETATM serial numbers of the ligand after a large receptor
    torch.tensor(serials, dtype=torch.int16)


def _pose_score_histogram_with_clash_overflow() -> None:
    _seeded()
    poses = torch.from_numpy(_rdkit_positions()).half() + torch.randn(6, 1, 3, dtype=f16)
    protein = _pocket_atoms().half()
    d = (poses[:, :, None] - protein[None, None]).norm(dim=-1)
    clash = torch.where(d < 4.0, (3.5 / d) ** 12, 0.0)  # steric clash penalty inside the 4 A cutoff
    attraction = torch.where(d < 8.0, torch.exp(-((d - 4.0) / 2.0) ** 2), 0.0)
    scores = (clash - attraction).sum((1, 2))
    torch.histc(scores, bins=20)  # score distribution logged per batch


def _symmetry_corrected_rmsd_hungarian() -> None:
    _seeded()
    predicted = torch.randn(6, 3, dtype=bf16)  # the six symmetric carbons of a phenyl ring, bf16 model output
    crystal = torch.randn(6, 3)
    cost = ((predicted[:, None] - crystal.to(bf16)[None]) ** 2).sum(-1)
    scipy.optimize.linear_sum_assignment(cost)


def _element_symbols_straight_into_tensor() -> None:
    elements = np.array(["C", "C", "N", "O", "C", "S", "C", "Cl"])  # per-atom element column of the parsed SDF
    torch.as_tensor(elements)


def _igso3_score_norm_table_float_index() -> None:
    _seeded()
    log_min, log_max, n_sigma = np.log(0.1), np.log(1.65), 200
    sigma_grid = np.exp(np.linspace(log_min, log_max, n_sigma))  # DiffDock-style precomputed rotation sigmas
    score_norms = torch.from_numpy(np.sqrt(3.0) / sigma_grid)
    sigma = torch.rand(8) * 1.5 + 0.1  # rotation noise level drawn per complex
    position = ((sigma.log() - log_min) / (log_max - log_min) * (n_sigma - 1)).round()
    score_norms[position]


def _vina_map_lookup_take_float_index() -> None:
    _seeded()
    affinity_map = torch.randn(24 * 24 * 24)  # one AutoDock .map flattened
    origin = torch.tensor(_POCKET_CENTRE) - 4.5
    voxel = ((torch.from_numpy(_rdkit_positions()).float() - origin) / 0.375).round().clamp(0, 23)
    flat = (voxel[:, 0] * 24 + voxel[:, 1]) * 24 + voxel[:, 2]
    affinity_map.take(flat)


def _pocket_centre_from_voxel_indices() -> None:
    _seeded()
    probability = torch.rand(24, 24, 24)
    probability[8:14, 9:15, 6:12] += 1.0
    pocket = probability > 0.9
    pocket.nonzero().mean(0)


def _flexible_atoms_uint8_masked_scatter() -> None:
    _seeded()
    flexible = np.zeros(_N_LIGAND, dtype=np.uint8)
    flexible[[3, 4, 5, 9]] = 1  # atoms moved by rotatable torsions, flagged by the featuriser
    coords = torch.from_numpy(_rdkit_positions()).float()
    mask = torch.from_numpy(flexible)[:, None].expand(-1, 3)
    refined = coords[mask.bool()] + 0.1 * torch.randn(12)
    coords.masked_scatter_(mask, refined)


def _chembl_multitask_int8_labels() -> None:
    _seeded()
    labels = torch.from_numpy(np.array([[1, -1, 0], [0, 0, -1], [-1, 1, 1], [1, 0, -1]], dtype=np.int8))  # -1 unmeasured
    logits = nn.Linear(32, 3)(torch.randn(4, 32))
    measured = labels >= 0
    F.binary_cross_entropy_with_logits(logits[measured], labels[measured])


def _atom_types_uint8_one_hot() -> None:
    types = torch.from_numpy(np.array([0, 0, 1, 2, 0, 5, 0, 7], dtype=np.uint8))  # smina atom-type codes saved as uint8
    F.one_hot(types, num_classes=14)


def _fft_best_translation_refined_in_place() -> None:
    _seeded()
    correlation = torch.randn(16, 16, 16)
    shift = torch.stack(torch.unravel_index(correlation.argmax(), correlation.shape))  # int64 voxel shift
    score_gradient = torch.randn(3)
    shift.sub_(0.1 * score_gradient)  # continuous refinement of the FFT pose


def _atom_one_hot_times_type_table() -> None:
    _seeded()
    types = torch.tensor([0, 0, 1, 2, 0, 5, 0, 7])
    type_table = nn.Parameter(torch.randn(14, 32))
    F.one_hot(types, num_classes=14) @ type_table


CASES: dict[str, LiveCase] = {
    # a ligand's Gaussian atom densities accumulated with index_put_ into the pocket's uint8 occupancy grid
    "ligand-density-index-put-uint8-pocket-grid": case(_ligand_density_into_uint8_pocket_grid,
                                                       "indexed_write_dtype", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # virtual screening: top-100 of a library's docking scores cached in float8_e4m3fn
    "screening-scores-fp8-cache-topk": case(_screening_scores_fp8_cache_topk, "no_kernel", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # FFT rigid docking: correlation by fftn of the feature grids of a halved (fp16) docking model
    "fft-docking-fftn-halved-feature-grids": case(_fft_docking_on_halved_feature_grids, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a Beta posterior of per-target hit rates built from int64 hit counts, sampled
    "hit-rate-beta-posterior-int64-counts": case(_hit_rate_beta_posterior_from_counts, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # starting poses drawn with torch.normal around the int64 pocket-centre voxel
    "starting-poses-normal-int64-pocket-centre": case(_starting_poses_around_integer_pocket_centre, "no_kernel",
                                                      "int64",
        grade="correct", grade_at_freeze="correct"),
    # the mean rotation of a pose cluster by eigh of the bf16 quaternion accumulator (Markley)
    "pose-cluster-quaternion-average-eigh-bf16": case(_pose_cluster_mean_quaternion_eigh, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # EGNN scoring under bf16 autocast: RDKit float64 positions give float64 distances into the edge MLP
    "egnn-edge-mlp-autocast-rdkit-f64-distances": case(_egnn_edges_from_rdkit_f64_under_autocast, "matmul_dtype",
                                                       "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Vina-like score: fp32 per-pose term sums @ the published weights held as a float64 numpy array
    "vina-terms-numpy-f64-weights-matmul": case(_vina_terms_times_numpy_weights, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # SE(3) poses by baddbmm: fp32 sampled translations as the input, bf16 conformer times bf16 rotations
    "pose-baddbmm-fp32-translations-bf16-rotations": case(_pose_batch_baddbmm_fp32_translations,
                                                          "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pose refinement: fp32 sampler quaternions lerped toward a bf16 refiner's predicted quaternions
    "quaternion-nlerp-fp32-pose-bf16-prediction": case(_quaternion_refinement_lerp_toward_bf16_prediction,
                                                       "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 ligand-atom queries attending to per-residue ESM embeddings cached as float16 through SDPA
    "ligand-queries-bf16-esm-f16-cache-sdpa": case(_ligand_queries_attend_to_fp16_esm_cache, "sdpa_dtype", "bf16",
                                                   "f16",
        grade="correct", grade_at_freeze="correct"),
    # an APBS float64 potential grid concatenated to fp32 density channels, into an fp32 Conv3d
    "apbs-f64-potential-channel-conv3d": case(_apbs_potential_channel_into_conv3d, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # complex coordinates: the RDKit float64 pose index_copy_'d into torch.zeros (fp32)
    "complex-coords-index-copy-rdkit-f64-pose": case(_complex_coordinates_index_copy_rdkit_pose,
                                                     "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # affinity head nn.Bilinear fed a bf16 ligand embedding and fp32 pocket descriptors
    "affinity-bilinear-bf16-ligand-fp32-pocket": case(_affinity_bilinear_ligand_pocket, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pocket-ligand fusion: bf16 pocket features cat'ed with fp32 cached ligand embeddings into the bf16 LayerNorm
    "fusion-layernorm-bf16-after-promoting-cat": case(_fusion_layer_norm_after_promoting_cat, "norm_param_dtype",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # activity classes with fp32 inverse-frequency class weights and label smoothing, bf16 logits
    "activity-classes-fp32-weights-bf16-logits": case(_activity_classes_weighted_cross_entropy, "op_dtype", "bf16",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # binder probability BCE against the float64 is_binder column, backward
    "binder-bce-float64-labels-backward": case(_binder_probability_bce_float64_labels, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (161ed1a) castwise gave op_dtype [f64, f32] (high confidence). The error is raised in autograd's "
             "backward of binary_cross_entropy, where the float64 is_binder target meets the fp32 gradient (the "
             "forward ran), so it is a loss-gradient dtype error (loss_dtype, as the team's huber-backward case reads the "
             "same 'Found dtype X but expected Y' wording); castwise read it as a forward op meeting two floats. "
             "Expectation corrected after grading from loss_dtype to op_dtype: the traceback's innermost frame is "
             "binary_cross_entropy's forward, and a loss's forward check of two floats is op_dtype in the corpus; "
             "the frozen grade is kept.")),
    # an fp16 affinity map padded with a 1e5 out-of-box penalty by F.pad
    "score-grid-pad-1e5-penalty-fp16": case(_score_grid_padded_with_penalty_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # ligand HETATM serial numbers (about 39 000) put into an int16 tensor
    "pdb-atom-serials-int16": case(_pdb_atom_serials_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 (sigma/d)^12 clash penalty overflows to inf for clashing poses; histc of the scores refuses the range
    "pose-scores-fp16-clash-inf-histc": case(_pose_score_histogram_with_clash_overflow, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # symmetry-corrected RMSD: the bf16 atom-pair cost handed to scipy's linear_sum_assignment
    "symmetry-rmsd-hungarian-bf16-cost": case(_symmetry_corrected_rmsd_hungarian, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the parsed SDF's per-atom element symbols (a numpy str array) given to torch.as_tensor
    "element-symbols-str-array-as-tensor": case(_element_symbols_straight_into_tensor, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # IGSO(3) score-norm table looked up at rounded (still float) sigma positions
    "igso3-score-norm-table-rounded-float-index": case(_igso3_score_norm_table_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # an AutoDock map looked up with take at a flat voxel index built from round()ed float coordinates
    "vina-map-take-float-flat-index": case(_vina_map_lookup_take_float_index, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pocket centre as the mean of the pocket's nonzero() voxel indices (int64)
    "pocket-centre-mean-int64-voxel-indices": case(_pocket_centre_from_voxel_indices, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # refined flexible-atom coordinates put back by masked_scatter_ with the featuriser's uint8 flags
    "flexible-atoms-uint8-masked-scatter": case(_flexible_atoms_uint8_masked_scatter, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (161ed1a) castwise gave nothing. masked_scatter_'s mask check ('masked_scatter_ only supports "
             "boolean masks, but got mask with dtype Byte') names a uint8 mask where a bool one is needed, as "
             "masked_fill_'s check does; the rules recognise no wording of masked_scatter_'s mask check.")),
    # multitask ChEMBL activity matrix kept int8 (-1 unmeasured) as the BCE-with-logits target
    "chembl-multitask-int8-labels-bce": case(_chembl_multitask_int8_labels, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # smina atom-type codes saved as uint8 one-hot encoded with F.one_hot
    "atom-types-uint8-one-hot": case(_atom_types_uint8_one_hot, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # FFT docking's best int64 voxel shift refined in place with an fp32 gradient step
    "fft-translation-int64-in-place-refine": case(_fft_best_translation_refined_in_place, "result_cast", "f32",
                                                  "int64",
        grade="correct", grade_at_freeze="correct"),
    # atom-type one-hot (int64) @ an fp32 learnable type table
    "atom-one-hot-int64-matmul-type-table": case(_atom_one_hot_times_type_table, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
}
