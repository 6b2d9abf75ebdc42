"""Held-out live set 93: chemistry and reaction-prediction models written by hand in low precision (SMILES token ids,
molecular graphs with int64 bond indices and bond-type ids, atom-mapping tensors, reaction templates as bool/uint8
masks, RDKit descriptors and fingerprints arriving as float64/uint8 numpy arrays, retrosynthesis beam search with integer
backpointers, yield models with class weights, 3-D conformer coordinates under bf16/fp16 autocast). Defects planted by
a helper who never read the rules, written before castwise ran and graded once with the rules frozen at f9e5f57."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f9e5f57"

bf16, f16 = torch.bfloat16, torch.float16
_VOCAB = 40  # SMILES tokens: specials, atoms, bonds, ring digits, brackets
_PAD, _BOS, _EOS = 0, 1, 2
_N_TEMPLATES = 64


def _seeded() -> None:
    torch.manual_seed(0)


def _aspirin_tokens() -> torch.Tensor:
    # CC(=O)Oc1ccccc1C(=O)O tokenised atom-wise, with BOS/EOS
    return torch.tensor([[_BOS, 5, 5, 10, 13, 8, 11, 8, 6, 16, 6, 6, 6, 6, 6, 16, 5, 10, 13, 8, 11, 8, _EOS]])


# ---- molecular graphs, bond types, atom mapping ----------------------------------------------------------------


def _bond_order_as_double_into_bond_embedding() -> None:
    _seeded()
    # [b.GetBondTypeAsDouble() for b in mol.GetBonds()] for aspirin: aromatic bonds are 1.5
    orders = np.array([1.0, 2.0, 1.0, 1.0, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.0, 2.0, 1.0])
    bond_types = torch.from_numpy(orders * 2)  # 1 -> 2, 1.5 -> 3, 2 -> 4: "integer" bond-type ids
    bond_embedding = nn.Embedding(8, 32).to(bf16)
    bond_embedding(bond_types)


def _atom_map_bool_correspondence_matmul() -> None:
    _seeded()
    product_maps = torch.tensor([3, 1, 2, 5, 4])  # atom-map numbers of the product atoms from the mapped rxn SMILES
    reactant_maps = torch.tensor([1, 2, 3, 4, 5, 0, 0])  # 0: unmapped leaving-group atoms
    correspondence = product_maps[:, None] == reactant_maps[None, :]  # (product, reactant) bool
    reactant_h = torch.randn(7, 64)
    correspondence @ reactant_h  # reactant atom states carried to the product atoms


def _atom_map_permutation_bmm_fp32() -> None:
    _seeded()
    maps = torch.tensor([[2, 0, 1, 3], [1, 3, 0, 2]])  # per reaction: reactant index of each product atom
    permutation = F.one_hot(maps, 4).float()  # (batch, product, reactant)
    reactant_encoder = nn.Linear(16, 64).to(bf16)
    reactant_h = reactant_encoder(torch.randn(2, 4, 16, dtype=bf16))
    torch.bmm(permutation, reactant_h)


def _rdkit_count_fingerprint_embedding_bag() -> None:
    _seeded()
    # GetHashedMorganFingerprint(mol, 2, nBits=2048).GetNonzeroElements(): {bit: count} per molecule
    elements = [{33: 2, 80: 1, 650: 4, 1380: 1}, {33: 1, 1019: 3, 1750: 1}]
    bits = torch.tensor([bit for e in elements for bit in e])
    counts = torch.tensor([count for e in elements for count in e.values()])
    offsets = torch.tensor([0, len(elements[0])])
    fingerprint_bag = nn.EmbeddingBag(2048, 64, mode="sum")
    fingerprint_bag(bits, offsets, per_sample_weights=counts)


def _morgan_bits_uint8_into_bf16_neuralsym() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    fps = np.zeros((4, 2048), dtype=np.uint8)  # DataStructs.ConvertToNumpyArray(fp, arr) into a uint8 buffer
    for row in fps:
        row[rng.choice(2048, 40, replace=False)] = 1
    neuralsym = nn.Sequential(nn.Linear(2048, 512), nn.ELU(), nn.Linear(512, _N_TEMPLATES)).to(bf16)
    neuralsym(torch.from_numpy(fps))


def _formal_charges_plus_gasteiger_in_place() -> None:
    charges = torch.tensor([0, 1, -1, 0, 0])  # atom.GetFormalCharge() of a zwitterion, the partial-charge feature
    gasteiger = np.array([-0.38, 0.12, -0.55, 0.05, 0.02])  # float(atom.GetProp("_GasteigerCharge"))
    charges += torch.from_numpy(gasteiger)


def _readout_mean_fp32_counts_layer_norm() -> None:
    _seeded()
    h = torch.randn(9, 64, dtype=bf16)  # atom states of a bf16 MPNN
    batch = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1, 1])
    summed = torch.zeros(2, 64, dtype=bf16).index_add_(0, batch, h)
    atoms_per_molecule = torch.bincount(batch).float()
    readout_norm = nn.LayerNorm(64).to(bf16)
    readout_norm(summed / atoms_per_molecule[:, None])


def _topological_distance_f64_encoder_mask() -> None:
    _seeded()
    # Chem.GetDistanceMatrix(mol) for ethanol + its OH: topological distances as float64
    distances = np.array([[0, 1, 2, 3, 2],
                          [1, 0, 1, 2, 1],
                          [2, 1, 0, 1, 2],
                          [3, 2, 1, 0, 3],
                          [2, 1, 2, 3, 0]], dtype=np.float64)
    distance_bias = torch.from_numpy(-distances)  # Molecule Attention Transformer style: nearer atoms attend more
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).to(bf16)
    encoder(torch.randn(1, 5, 32, dtype=bf16), mask=distance_bias)


# ---- SMILES models and retrosynthesis decoding -----------------------------------------------------------------


def _smiles_cnn_fp32_one_hot_bf16_conv1d() -> None:
    tokens = _aspirin_tokens()
    one_hot = F.one_hot(tokens, _VOCAB).float().transpose(1, 2)
    conv = nn.Conv1d(_VOCAB, 64, 5, padding=2, bias=False).to(bf16)  # followed by a BatchNorm, so no bias
    conv(one_hot)


def _conditional_smiles_lstm_fp32_properties() -> None:
    _seeded()
    embed = nn.Embedding(_VOCAB, 48).to(bf16)
    lstm = nn.LSTM(48 + 3, 128, batch_first=True).to(bf16)
    tokens = _aspirin_tokens()
    properties = torch.tensor([[1.19, 0.55, 180.16]])  # target logP, QED, MW from the dataframe
    x = torch.cat([embed(tokens), properties[:, None, :].expand(-1, tokens.shape[1], -1)], -1)
    lstm(x)


def _graph2smiles_bf16_decoder_fp32_graph_memory() -> None:
    _seeded()
    graph_encoder = nn.Linear(32, 64)  # D-MPNN encoder left fp32 "for the message-passing sums"
    decoder_query = nn.Linear(64, 64).to(bf16)
    memory = graph_encoder(torch.randn(1, 11, 32)).view(1, 11, 4, 16).transpose(1, 2)
    q = decoder_query(torch.randn(1, 6, 64, dtype=bf16)).view(1, 6, 4, 16).transpose(1, 2)
    F.scaled_dot_product_attention(q, memory, memory)


def _retro_beam_backpointers_float_buffer_gather() -> None:
    _seeded()
    beam, steps = 4, 5
    tokens = torch.zeros(beam, steps, dtype=torch.long)
    backpointers = torch.zeros(beam, steps)  # preallocated without dtype=torch.long
    scores = torch.zeros(beam)
    for t in range(steps):
        log_probs = torch.randn(beam, _VOCAB).log_softmax(-1)
        scores, flat = (scores[:, None] + log_probs).view(-1).topk(beam)
        backpointers[:, t] = flat // _VOCAB
        tokens[:, t] = flat % _VOCAB
    hypothesis = torch.arange(beam)
    reversed_tokens = []
    for t in reversed(range(steps)):
        reversed_tokens.append(tokens[:, t].gather(0, hypothesis))
        hypothesis = backpointers[:, t].gather(0, hypothesis)


def _retro_beam_token_buffer_int32_index_put() -> None:
    _seeded()
    beam, max_len = 4, 12
    sequences = torch.full((beam, max_len), _PAD, dtype=torch.int32)  # int32 "as the ONNX export wants"
    alive = torch.tensor([True, False, True, True])
    next_tokens = torch.randn(beam, _VOCAB).argmax(-1)
    sequences[alive, 3] = next_tokens[alive]


def _beam_finished_float_or_eos() -> None:
    _seeded()
    beam = 4
    finished = torch.zeros(beam)  # "no hypothesis has finished yet"
    for _ in range(3):
        next_tokens = torch.randint(0, _VOCAB, (beam,))
        finished = finished | (next_tokens == _EOS)


# ---- reaction templates, reaction centres, yields ------------------------------------------------------------


def _template_relevance_uint8_multilabel_bce() -> None:
    _seeded()
    applicable = np.zeros((4, _N_TEMPLATES), dtype=np.uint8)  # 1 where RDChiral's run of the template gave the reactants
    applicable[0, [3, 17]] = 1
    applicable[1, 5] = 1
    applicable[2, [17, 40, 41]] = 1
    applicable[3, 63] = 1
    head = nn.Linear(256, _N_TEMPLATES)
    F.binary_cross_entropy_with_logits(head(torch.randn(4, 256)), torch.from_numpy(applicable))


def _bond_edit_labels_f64_cross_entropy() -> None:
    _seeded()
    # GetBondTypeAsDouble() over candidate atom pairs in reactants and product (0.0 where no bond)
    reactant_orders = np.array([1.0, 2.0, 1.0, 0.0, 1.5, 1.0])
    product_orders = np.array([1.0, 1.0, 0.0, 1.0, 1.5, 1.0])
    edit_class = torch.from_numpy(product_orders - reactant_orders + 1.0)  # -1 / 0 / +1 -> classes 0 / 1 / 2
    edit_head = nn.Linear(64, 3)
    F.cross_entropy(edit_head(torch.randn(6, 64)), edit_class)


def _yield_bins_balanced_f64_class_weights() -> None:
    _seeded()
    yields = np.array([5.0, 12.0, 88.0, 91.0, 47.0, 3.0, 65.0, 99.0])  # Buchwald-Hartwig plate yields, %
    bins = np.digitize(yields, [20.0, 50.0, 80.0])  # low / moderate / good / excellent
    weights = len(bins) / (4 * np.bincount(bins, minlength=4))  # sklearn's "balanced" class weights: float64
    yield_head = nn.Linear(64, 4).to(bf16)
    logits = yield_head(torch.randn(8, 64, dtype=bf16))
    F.cross_entropy(logits, torch.from_numpy(bins), weight=torch.from_numpy(weights))


def _reaction_bo_gp_cholesky_bf16() -> None:
    _seeded()
    conditions = torch.rand(10, 6, dtype=bf16)  # encoded base/ligand/solvent/temperature, cast with the surrogate
    sq_dist = ((conditions[:, None] - conditions[None]) ** 2).sum(-1)
    kernel = torch.exp(-0.5 * sq_dist) + 1e-2 * torch.eye(10, dtype=bf16)
    torch.linalg.cholesky(kernel)


def _missing_pressure_one_atm_pascal_fp16() -> None:
    _seeded()
    conditions = torch.rand(4, 3, dtype=f16)  # temperature, equivalents, pressure for the fp16 condition encoder
    missing_pressure = torch.tensor([False, True, False, True])
    conditions[:, 2].masked_fill_(missing_pressure, 101325.0)  # "1 atm" for reactions that do not say


def _atom_map_numbers_int8() -> None:
    map_numbers = list(range(1, 141))  # a 140-atom mapped macrocyclisation
    torch.tensor(map_numbers, dtype=torch.int8)


# ---- descriptors and fingerprints from RDKit/numpy ---------------------------------------------------------------


def _tanimoto_kernel_f64_query_fingerprints() -> None:
    _seeded()
    train_fps = (torch.rand(16, 1024) < 0.05).float()  # cached training fingerprints, fp32
    query = np.zeros((2, 1024))  # ConvertToNumpyArray into np.zeros: float64
    query[0, [5, 99, 300, 871]] = 1
    query[1, [5, 7, 640]] = 1
    q = torch.from_numpy(query)
    intersection = q @ train_fps.T
    intersection / (q.sum(-1, keepdim=True) + train_fps.sum(-1) - intersection)


def _fp8_fingerprint_cache_cat_bf16_descriptors() -> None:
    _seeded()
    fingerprints = (torch.rand(4, 1024) < 0.05).to(torch.float8_e4m3fn)  # 0/1 exact in e4m3, a quarter of fp32's memory
    descriptors = torch.randn(4, 200, dtype=bf16)
    torch.cat([fingerprints, descriptors], -1)


def _descriptor_rows_none_for_failed_smiles() -> None:
    smiles_descriptors = [[1.19, 180.16, 4.0], None, [0.31, 46.07, 1.0]]  # None where MolFromSmiles failed
    table = np.array([row if row is not None else [None, None, None] for row in smiles_descriptors])
    torch.from_numpy(table)


def _ipc_descriptor_inf_clip_grad_norm() -> None:
    _seeded()
    # MolLogP, MolWt, Ipc: Ipc reaches 1e40 for a large molecule, inf once made float32
    raw = np.array([[2.1, 310.4, 1.8e3], [0.4, 180.2, 4.2e1], [3.3, 820.9, 1.0e40], [1.2, 250.3, 6.1e2]])
    x = torch.tensor(raw, dtype=torch.float32)
    x = (x - x.mean(0)) / x.std(0)
    model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
    F.mse_loss(model(x).squeeze(-1), torch.tensor([0.6, 0.2, 0.9, 0.4])).backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)


# ---- 3-D conformers under autocast and in low precision ----------------------------------------------------------


def _conformer_denoise_lerp_under_autocast() -> None:
    _seeded()
    denoiser = nn.Sequential(nn.Linear(3 + 16, 64), nn.SiLU(), nn.Linear(64, 3))
    noisy = torch.randn(12, 3) * 2.0  # fp32 noisy coordinates
    atom_features = torch.randn(12, 16)
    with torch.autocast("cpu", dtype=bf16):
        x0_hat = denoiser(torch.cat([noisy, atom_features], -1))
        noisy = torch.lerp(noisy, x0_hat, 0.1)


def _conformer_energy_readout_scatter_add_under_autocast() -> None:
    _seeded()
    energy_head = nn.Sequential(nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, 1))
    batch = torch.tensor([0, 0, 0, 0, 0, 1, 1, 1])  # two conformers' atoms
    with torch.autocast("cpu", dtype=bf16):
        atom_energy = energy_head(torch.randn(8, 32)).squeeze(-1)
        torch.zeros(2).scatter_add_(0, batch, atom_energy)


def _torsion_plane_cross_fp16_autocast() -> None:
    _seeded()
    positions = torch.randn(4, 3)  # fp32 conformer: atoms i-j-k-l around a rotatable bond
    axis_head = nn.Linear(16, 3)
    with torch.autocast("cpu", dtype=f16):
        b1 = positions[1] - positions[0]
        predicted_axis = axis_head(torch.randn(16))  # fp16 under autocast
        torch.linalg.cross(b1, predicted_axis)


def _clash_filter_pdist_bf16_autocast() -> None:
    _seeded()
    generator = nn.Sequential(nn.Linear(16, 64), nn.SiLU(), nn.Linear(64, 3))
    with torch.autocast("cpu", dtype=bf16):
        conformer = generator(torch.randn(9, 16))  # bf16 coordinates
        (F.pdist(conformer) < 0.8).any()  # reject conformers with atoms closer than 0.8 Å


def _boltzmann_weights_fp16_multinomial() -> None:
    energies = torch.tensor([0.0, -28.0, -12.0, 9.0], dtype=f16)  # kJ/mol relative to the first conformer, not the minimum
    weights = torch.exp(-energies / 2.479)  # RT at 298 K
    torch.multinomial(weights, 2)


def _torsional_score_hook_fp32_sigma() -> None:
    _seeded()
    score_head = nn.Linear(32, 1).to(bf16)
    sigma = torch.tensor([0.3, 1.2, 2.5, 0.8])  # per-torsion noise levels, fp32
    score = score_head(torch.randn(4, 32, dtype=bf16)).squeeze(-1)
    score.register_hook(lambda grad: grad * sigma ** 2)  # the sigma^2-weighted score-matching loss, as a hook
    score.sum().backward()


CASES: dict[str, LiveCase] = {
    # bond types from GetBondTypeAsDouble (aromatic 1.5) doubled into "ids" for the bf16 bond-type Embedding
    "bond-order-as-double-bond-embedding": case(_bond_order_as_double_into_bond_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # atom mapping: the bool product-to-reactant correspondence from atom-map numbers @ fp32 reactant atom states
    "atom-map-bool-correspondence-matmul": case(_atom_map_bool_correspondence_matmul, "integer_operand", "bool",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # atom mapping: one-hot permutation matrices (.float(), fp32) bmm'd with the bf16 reactant encoder's states
    "atom-map-one-hot-permutation-bmm": case(_atom_map_permutation_bmm_fp32, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hashed Morgan count fingerprint as an EmbeddingBag over the on-bits, the int64 counts as per_sample_weights
    "count-fingerprint-embedding-bag-int64-counts": case(_rdkit_count_fingerprint_embedding_bag, "integer_operand",
                                                         "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # NeuralSym-style template classifier in bf16 fed Morgan bits converted into a uint8 numpy buffer
    "morgan-bits-uint8-bf16-neuralsym": case(_morgan_bits_uint8_into_bf16_neuralsym, "integer_operand", "uint8",
                                             "bf16",
        grade="wrong", grade_at_freeze="wrong",
        why=("At freeze (f9e5f57) castwise gave matmul_dtype [uint8, bf16] (low confidence). The Linear's 'mat1 and "
             "mat2 must have the same dtype, but got Byte and BFloat16' has an integer dtype (Byte) on one side: the "
             "uint8 fingerprint bits are integer data fed to float math and want .to(bf16) or .float(), but the rules read "
             "this wording as two floating dtypes meeting in a matmul, though they read the same defect right in the "
             "'expected m1 and m2' wording (atom-map-bool-correspondence-matmul)")),
    # the partial-charge atom feature started from int64 formal charges, float64 Gasteiger charges added in place
    "formal-charge-int64-gasteiger-in-place": case(_formal_charges_plus_gasteiger_in_place, "result_cast", "f64",
                                                   "int64",
        grade="correct", grade_at_freeze="correct"),
    # molecule readout: bf16 summed atom states divided by fp32 atom counts, then the bf16 readout LayerNorm
    "readout-fp32-atom-counts-bf16-layer-norm": case(_readout_mean_fp32_counts_layer_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Molecule Attention Transformer: -GetDistanceMatrix (float64) as the bf16 TransformerEncoder's additive mask
    "topological-distance-f64-encoder-mask": case(_topological_distance_f64_encoder_mask, "attn_mask_dtype", "f64",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SMILES CNN: one-hot tokens made .float() (fp32) into a bf16 Conv1d
    "smiles-cnn-fp32-one-hot-bf16-conv1d": case(_smiles_cnn_fp32_one_hot_bf16_conv1d, "conv_weight_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # property-conditioned SMILES LSTM: fp32 logP/QED/MW concatenated to bf16 token embeddings promotes the input
    "conditional-smiles-lstm-fp32-properties": case(_conditional_smiles_lstm_fp32_properties, "rnn_dtype", "f32",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Graph2SMILES: bf16 decoder queries attend to the fp32 graph encoder's memory through SDPA
    "graph2smiles-bf16-queries-fp32-graph-memory": case(_graph2smiles_bf16_decoder_fp32_graph_memory, "sdpa_dtype",
                                                        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # retrosynthesis beam: backpointers preallocated with torch.zeros (fp32), gathered while backtracking
    "retro-beam-backpointers-float-buffer-gather": case(_retro_beam_backpointers_float_buffer_gather,
                                                        "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # retrosynthesis beam: an int32 token buffer written with int64 argmax ids for the alive beams
    "retro-beam-int32-token-buffer-index-put": case(_retro_beam_token_buffer_int32_index_put, "indexed_write_dtype",
                                                    "int32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # beam search: the finished flags started as torch.zeros (float), or'ed with next_tokens == EOS
    "beam-finished-float-or-eos": case(_beam_finished_float_or_eos, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # template relevance: the uint8 multi-hot applicable-template matrix from numpy as the BCE-with-logits target
    "template-relevance-uint8-multilabel-bce": case(_template_relevance_uint8_multilabel_bce, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # reaction-centre bond edits: product minus reactant bond orders (float64) + 1 as cross_entropy classes
    "bond-edit-f64-orders-cross-entropy": case(_bond_edit_labels_f64_cross_entropy, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # yield bins with sklearn-style "balanced" class weights (float64) for a bf16 yield head's cross_entropy
    "yield-bins-balanced-f64-class-weights": case(_yield_bins_balanced_f64_class_weights, "op_dtype", "bf16",
                                                  "f64",
        grade="correct", grade_at_freeze="correct"),
    # Bayesian reaction optimisation: the GP surrogate cast to bf16, cholesky of its kernel matrix
    "reaction-bo-gp-cholesky-bf16": case(_reaction_bo_gp_cholesky_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 reaction conditions: missing pressures filled with 1 atm in pascal (101325)
    "missing-pressure-101325-pa-fp16": case(_missing_pressure_one_atm_pascal_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # atom-map numbers of a 140-atom mapped reaction put into an int8 tensor
    "atom-map-numbers-int8": case(_atom_map_numbers_int8, "half_overflow", "int8",
        grade="correct", grade_at_freeze="correct"),
    # Tanimoto kernel: query fingerprints converted into np.zeros (float64) @ the fp32 training fingerprints
    "tanimoto-f64-query-fingerprints-matmul": case(_tanimoto_kernel_f64_query_fingerprints, "matmul_dtype", "f64",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # fingerprints cached in float8_e4m3fn concatenated with bf16 descriptors
    "fp8-fingerprint-cache-cat-bf16-descriptors": case(_fp8_fingerprint_cache_cat_bf16_descriptors,
                                                       "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # RDKit descriptor rows with None for SMILES that failed to parse: an object array into torch.from_numpy
    "descriptor-rows-none-object-array": case(_descriptor_rows_none_for_failed_smiles, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the Ipc descriptor (1e40) becomes inf in float32, standardisation makes NaN, clip_grad_norm_ refuses
    "ipc-descriptor-inf-clip-grad-norm": case(_ipc_descriptor_inf_clip_grad_norm, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # conformer denoising under bf16 autocast: lerp from the fp32 noisy coordinates toward the bf16 prediction
    "conformer-denoise-lerp-autocast": case(_conformer_denoise_lerp_under_autocast, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-conformer energy readout under bf16 autocast: bf16 atom energies scatter_add_'ed into torch.zeros (fp32)
    "conformer-energy-scatter-add-autocast": case(_conformer_energy_readout_scatter_add_under_autocast,
                                                  "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # torsion plane under fp16 autocast: cross product of an fp32 bond vector with an fp16 predicted axis
    "torsion-plane-cross-fp16-autocast": case(_torsion_plane_cross_fp16_autocast, "op_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # steric-clash filter with F.pdist on conformers generated under bf16 autocast
    "clash-filter-pdist-bf16-autocast": case(_clash_filter_pdist_bf16_autocast, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Boltzmann weights of fp16 conformer energies not shifted by the minimum: exp overflows, multinomial refuses
    "boltzmann-weights-fp16-multinomial": case(_boltzmann_weights_fp16_multinomial, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # torsional diffusion: a hook weighting the bf16 score's gradient by fp32 sigma^2 returns it fp32
    "torsional-score-hook-fp32-sigma": case(_torsional_score_hook_fp32_sigma, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
