"""Held-out live set 153: chemistry reaction and retrosynthesis models written by hand in low precision (SMILES token
ids as int64, bond matrices as uint8 and bool, fp16 graph transformers, bf16 template classifiers, float64 RDKit
descriptors from numpy, top-k beam search in half precision). Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at af2f111c."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "af2f111c"

bf16, f16 = torch.bfloat16, torch.float16
_VOCAB = 64  # SMILES tokens: atoms, bonds, ring digits, branches, <pad>=0, <bos>=1, <eos>=2
_PAD, _EOS = 0, 2
_TEMPLATES = 200  # reaction templates extracted from USPTO
_FP_BITS = 256  # Morgan fingerprint length


def _seeded() -> None:
    torch.manual_seed(0)


def _bond_matrix(atoms: int = 6) -> torch.Tensor:
    """Bond orders of a benzene-like ring as RDKit featurisers cache them: uint8, 0 for no bond."""
    bonds = torch.zeros(atoms, atoms, dtype=torch.uint8)
    for i in range(atoms):
        j = (i + 1) % atoms
        bonds[i, j] = bonds[j, i] = 1 + i % 2
    return bonds


def _smiles_ids() -> torch.Tensor:
    """Two tokenised SMILES (int64 ids), right-padded with <pad>."""
    return torch.tensor([[1, 7, 7, 9, 12, 7, 2, 0], [1, 7, 15, 7, 2, 0, 0, 0]])


def _bond_change_by_bool_subtraction() -> None:
    reactant = _bond_matrix() > 0
    product = reactant.clone()
    product[0, 1] = product[1, 0] = False  # the bond broken in the retro direction
    changed = product - reactant
    changed.nonzero()


def _k_hop_reachability_matrix_power() -> None:
    adjacency = _bond_matrix() > 0
    within_three = torch.linalg.matrix_power(adjacency, 3)
    within_three.sum()


def _uint8_bond_types_into_edge_embedding() -> None:
    _seeded()
    edge_embedding = nn.Embedding(5, 16)  # none, single, double, triple, aromatic
    edge_embedding(_bond_matrix())


def _numpy_zeros_padded_smiles_into_embedding() -> None:
    _seeded()
    tokenised = [[1, 7, 7, 9, 2], [1, 7, 15, 2]]
    batch = np.zeros((len(tokenised), 8))  # np.zeros defaults to float64
    for row, ids in enumerate(tokenised):
        batch[row, : len(ids)] = ids
    nn.Embedding(_VOCAB, 32, padding_idx=_PAD)(torch.from_numpy(batch))


def _int64_padding_mask_into_encoder() -> None:
    _seeded()
    tokens = _smiles_ids()
    encoder = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True), 2, enable_nested_tensor=False
    )
    padding = (tokens == _PAD).long()
    encoder(nn.Embedding(_VOCAB, 32)(tokens), src_key_padding_mask=padding)


def _uspto50k_int32_classes_cross_entropy() -> None:
    _seeded()
    classes = np.array([1, 6, 2, 9, 3], dtype=np.int32) - 1  # USPTO-50k reaction classes 1..10, read by pandas
    logits = torch.randn(5, 10)
    F.cross_entropy(logits, torch.from_numpy(classes))


def _eos_position_by_bool_argmax() -> None:
    finished = _smiles_ids() == _EOS
    lengths = finished.argmax(-1) + 1
    lengths.float().mean()


def _beam_scores_full_like_tokens() -> None:
    tokens = torch.full((3, 1), 1)  # <bos> per beam
    scores = torch.full_like(tokens[:, 0], float("-inf"))  # all beams but the first start dead
    scores[0] = 0.0


def _atom_map_float_index_select() -> None:
    _seeded()
    product_atoms = torch.randn(6, 32)
    atom_map = np.array([3.0, 1.0, np.nan, 2.0, 0.0, np.nan])  # product atom per reactant atom, NaN: leaving group
    mapped = atom_map[~np.isnan(atom_map)]  # NaN needs a float array, so the kept map stays float64
    product_atoms.index_select(0, torch.from_numpy(mapped))


def _bond_changed_bool_cross_entropy() -> None:
    _seeded()
    reactant = (_bond_matrix() > 0).triu()
    product = reactant.clone()
    product[0, 1] = False
    changed = (reactant != product)[reactant]  # one label per reactant bond
    edge_logits = torch.randn(changed.numel(), 2)  # per bond: unchanged / changed in the reaction
    F.cross_entropy(edge_logits, changed)


def _uint8_bond_order_image_into_cnn() -> None:
    _seeded()
    bond_image = torch.stack([_bond_matrix(8) == order for order in (1, 2, 3)]).to(torch.uint8)[None]
    cnn = nn.Conv2d(3, 16, 3, padding=1)
    cnn(bond_image)


def _beam_alive_fp16_inverted() -> None:
    _seeded()
    log_probs = torch.randn(4, _VOCAB, dtype=f16).log_softmax(-1)
    finished = torch.tensor([0.0, 1.0, 0.0, 0.0], dtype=f16)  # kept in the model dtype to multiply scores
    log_probs.masked_fill(~finished[:, None], 0.0)


def _descriptors_f64_into_bf16_template_mlp() -> None:
    _seeded()
    descriptors = np.random.default_rng(0).normal(size=(4, 208))  # the 208 RDKit 2D descriptors, float64
    template_mlp = nn.Sequential(nn.Linear(208, 128), nn.ELU(), nn.Linear(128, _TEMPLATES)).to(bf16)
    template_mlp(torch.from_numpy(descriptors))


def _descriptors_f64_into_batch_norm() -> None:
    _seeded()
    descriptors = np.random.default_rng(1).normal(loc=300.0, scale=80.0, size=(8, 16))  # MolWt, TPSA, logP, ...
    head = nn.Sequential(nn.BatchNorm1d(16), nn.Linear(16, 1))
    head(torch.from_numpy(descriptors))


def _descriptor_rows_written_by_valid_mask() -> None:
    features = torch.zeros(4, 16)
    parsed = torch.tensor([True, False, True, True])  # Chem.MolFromSmiles returned None for one product
    descriptors = np.random.default_rng(2).normal(size=(3, 16))
    features[parsed] = torch.from_numpy(descriptors)


def _patent_dates_as_tensor_for_time_split() -> torch.Tensor:
    dates = np.array(["2001-03-06", "2012-11-20", "2016-09-13"], dtype="datetime64[D]")  # USPTO grant dates
    years = torch.as_tensor(dates)
    return years < 2012


def _bf16_template_probabilities_to_numpy() -> None:
    _seeded()
    logits = torch.randn(1, _TEMPLATES, dtype=bf16)  # bf16 template relevance model
    probabilities = logits.softmax(-1)[0]
    np.argsort(-probabilities.numpy())[:50]


def _bf16_template_scores_quantile() -> torch.Tensor:
    _seeded()
    scores = torch.randn(_TEMPLATES, dtype=bf16).sigmoid()
    threshold = torch.quantile(scores, 0.95)  # keep the top 5% of templates for expansion
    return scores > threshold


def _bf16_template_sigmoid_bce_f32_targets() -> None:
    _seeded()
    logits = torch.randn(4, _TEMPLATES, dtype=bf16)
    applicable = (torch.rand(4, _TEMPLATES) > 0.97).float()  # multi-label: every template that applies
    F.binary_cross_entropy(torch.sigmoid(logits), applicable)


def _ema_of_bf16_template_classifier() -> None:
    _seeded()
    model = nn.Linear(_FP_BITS, _TEMPLATES).to(bf16)
    ema = nn.Linear(_FP_BITS, _TEMPLATES)  # the EMA copy made before the cast
    with torch.no_grad():
        for shadow, param in zip(ema.parameters(), model.parameters(), strict=True):
            shadow.lerp_(param, 0.001)


def _fp32_softmax_times_fp16_values() -> None:
    _seeded()
    q = k = v = torch.randn(2, 4, 12, 8, dtype=f16)  # fp16 graph transformer over 12 atoms
    scores = q @ k.transpose(-1, -2) / 8**0.5
    attention = scores.softmax(-1, dtype=torch.float32)  # softmax in fp32 for stability
    attention @ v


def _bmm_fp16_adjacency_fp32_atom_states() -> None:
    _seeded()
    adjacency = (_bond_matrix() > 0).to(f16)[None].expand(2, 6, 6)
    normalised = adjacency / adjacency.sum(-1, keepdim=True)
    atom_states = torch.randn(2, 6, 32)  # from the fp32 atom encoder
    torch.bmm(normalised, atom_states)


def _fp16_messages_index_reduce_amax() -> None:
    _seeded()
    edge_index = (_bond_matrix() > 0).nonzero().T
    messages = torch.randn(edge_index.shape[1], 32, dtype=f16)
    pooled = torch.zeros(6, 32)  # max-aggregation buffer made with torch.zeros: fp32
    pooled.index_reduce_(0, edge_index[1], messages, "amax", include_self=False)


def _laplacian_positional_encoding_fp16() -> None:
    adjacency = (_bond_matrix() > 0).to(f16)  # positional encodings computed in the model dtype
    laplacian = torch.diag(adjacency.sum(-1)) - adjacency
    eigenvalues, eigenvectors = torch.linalg.eigh(laplacian)
    eigenvectors[:, 1:5]


def _reagent_cross_attention_fp32_memory() -> None:
    _seeded()
    reactant_queries = torch.randn(2, 4, 12, 16, dtype=f16)
    reagent_memory = torch.randn(2, 4, 3, 16)  # solvent/catalyst embeddings cached in fp32 once per dataset
    F.scaled_dot_product_attention(reactant_queries, reagent_memory, reagent_memory)


def _fp16_smiles_gru_fp32_initial_state() -> None:
    _seeded()
    product_fp = torch.rand(2, _FP_BITS)
    to_hidden = nn.Linear(_FP_BITS, 64)  # the fingerprint encoder, not halved
    decoder = nn.GRU(32, 64, batch_first=True).half()
    embed = nn.Embedding(_VOCAB, 32).half()
    decoder(embed(_smiles_ids()), to_hidden(product_fp)[None])


def _fp16_retro_decoder_fp32_causal_mask() -> None:
    _seeded()
    self_attention = nn.MultiheadAttention(32, 4, batch_first=True).half()
    x = torch.randn(2, 8, 32, dtype=f16)
    causal = torch.triu(torch.full((8, 8), float("-inf")), diagonal=1)
    self_attention(x, x, x, attn_mask=causal)


def _valence_masked_sampling_all_forbidden() -> None:
    _seeded()
    logits = torch.randn(3, _VOCAB, dtype=f16)
    allowed = torch.ones(3, _VOCAB, dtype=torch.bool)
    allowed[1] = False  # beam 1 ends on a saturated atom: the valence mask forbids every token, <eos> included
    probs = logits.masked_fill(~allowed, float("-inf")).softmax(-1)
    torch.distributions.Categorical(probs=probs).sample()


def _fp16_beam_scores_float32_min_mask() -> None:
    _seeded()
    scores = torch.randn(4, _VOCAB, dtype=f16).log_softmax(-1)
    invalid = torch.zeros(4, _VOCAB, dtype=torch.bool)
    invalid[:, _PAD] = True
    scores.masked_fill_(invalid, torch.finfo(torch.float32).min)


def _numpy_averaged_gradients_into_bf16_policy() -> None:
    _seeded()
    policy = nn.Linear(_FP_BITS, _TEMPLATES).to(bf16)  # expansion policy for MCTS retrosynthesis
    worker_grads = [np.random.default_rng(s).normal(size=(_TEMPLATES, _FP_BITS)) for s in range(2)]
    policy.weight.grad = torch.from_numpy(np.mean(worker_grads, axis=0))


CASES: dict[str, LiveCase] = {
    # reaction-centre bonds as product minus reactant bool adjacency matrices
    "bond-change-bool-adjacency-subtract": case(_bond_change_by_bool_subtraction, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # atoms within three bonds by matrix_power of the bool adjacency matrix
    "k-hop-reachability-matrix-power-bool": case(_k_hop_reachability_matrix_power, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the uint8 bond-order matrix looked up directly in an edge-type Embedding
    "bond-types-uint8-edge-embedding": case(_uint8_bond_types_into_edge_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # SMILES ids padded into np.zeros (float64) and given to the token Embedding
    "smiles-ids-numpy-zeros-f64-embedding": case(_numpy_zeros_padded_smiles_into_embedding, "index_tensor_dtype",
                                                 "f64",
        grade="correct", grade_at_freeze="correct"),
    # the SMILES padding mask made .long() and given to a TransformerEncoder as src_key_padding_mask
    "smiles-padding-mask-int64-encoder": case(_int64_padding_mask_into_encoder, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # USPTO-50k reaction classes read as int32 from pandas, cross_entropy targets
    "uspto50k-classes-int32-cross-entropy": case(_uspto50k_int32_classes_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # generated SMILES lengths from argmax of the bool tokens == EOS tensor
    "eos-position-argmax-bool": case(_eos_position_by_bool_argmax, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # beam scores made by full_like(-inf) of the int64 token buffer
    "beam-scores-full-like-int64-neg-inf": case(_beam_scores_full_like_tokens, "half_overflow", "int64",
        grade="correct", grade_at_freeze="correct"),
    # atom mapping: the NaN-filtered (float64) product-atom map used with index_select
    "atom-map-nan-filtered-f64-index-select": case(_atom_map_float_index_select, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bond-changed labels left bool as cross_entropy targets of a two-class edge head
    "bond-changed-bool-cross-entropy-target": case(_bond_changed_bool_cross_entropy, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # one-hot bond-order channels as a uint8 image into a float Conv2d
    "bond-order-image-uint8-conv2d": case(_uint8_bond_order_image_into_cnn, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # beam search: the fp16 finished flags inverted with ~ for masked_fill
    "beam-finished-fp16-invert": case(_beam_alive_fp16_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the 208 RDKit descriptors (float64 numpy) into a bf16 template-prediction MLP
    "rdkit-descriptors-f64-bf16-template-mlp": case(_descriptors_f64_into_bf16_template_mlp, "matmul_dtype", "f64",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 RDKit descriptors into a fp32 BatchNorm1d yield head
    "rdkit-descriptors-f64-batch-norm": case(_descriptors_f64_into_batch_norm, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # float64 descriptors written into an fp32 feature matrix at the rows RDKit parsed
    "descriptors-f64-parsed-rows-index-put": case(_descriptor_rows_written_by_valid_mask, "indexed_write_dtype",
                                                  "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # USPTO grant dates (numpy datetime64) given to torch.as_tensor for a time split
    "patent-dates-datetime64-as-tensor": case(_patent_dates_as_tensor_for_time_split, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 template probabilities handed to numpy to rank the top 50
    "template-probs-bf16-numpy-argsort": case(_bf16_template_probabilities_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # expansion threshold at the 95th percentile of bf16 template scores with torch.quantile
    "template-scores-bf16-quantile": case(_bf16_template_scores_quantile, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # multi-label template applicability: bf16 sigmoid against fp32 targets in binary_cross_entropy
    "template-multilabel-bf16-bce-f32-targets": case(_bf16_template_sigmoid_bce_f32_targets, "op_dtype", "f32",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # EMA of a bf16 template classifier kept in an fp32 copy updated with lerp_
    "template-classifier-ema-lerp-bf16": case(_ema_of_bf16_template_classifier, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 graph transformer: softmax(dtype=float32) for stability, then @ the fp16 values
    "graph-attention-f32-softmax-f16-values": case(_fp32_softmax_times_fp16_values, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 normalised adjacency bmm'd with fp32 atom states
    "message-passing-bmm-f16-adjacency-f32-atoms": case(_bmm_fp16_adjacency_fp32_atom_states,
                                                        "batched_matmul_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 bond messages max-pooled by index_reduce_ into a torch.zeros (fp32) atom buffer
    "bond-messages-f16-index-reduce-amax": case(_fp16_messages_index_reduce_amax, "indexed_write_dtype", "f32",
                                                "f16",
        grade="correct", grade_at_freeze="correct"),
    # Laplacian eigenvector positional encodings computed in fp16 with eigh
    "laplacian-pe-eigh-f16": case(_laplacian_positional_encoding_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 reactant queries cross-attending to fp32 cached reagent embeddings through SDPA
    "reagent-cross-attention-sdpa-f32-memory": case(_reagent_cross_attention_fp32_memory, "sdpa_dtype", "f16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # halved SMILES GRU decoder given an fp32 initial state from the product-fingerprint encoder
    "smiles-gru-f16-fp32-initial-state": case(_fp16_smiles_gru_fp32_initial_state, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 retrosynthesis decoder self-attention given an fp32 triu(-inf) causal mask
    "retro-decoder-f16-mha-f32-causal-mask": case(_fp16_retro_decoder_fp32_causal_mask, "attn_mask_dtype", "f32",
                                                  "f16",
        grade="correct", grade_at_freeze="correct"),
    # valence-masked fp16 sampling: a beam with every token forbidden softmaxes to NaN, Categorical refuses it
    "valence-mask-all-forbidden-nan-categorical": case(_valence_masked_sampling_all_forbidden, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # fp16 beam scores of <pad> masked with torch.finfo(torch.float32).min
    "beam-pad-mask-f32-min-into-f16": case(_fp16_beam_scores_float32_min_mask, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # MCTS expansion-policy gradients averaged in numpy (float64) assigned to the bf16 policy's .grad
    "mcts-policy-numpy-f64-grads-bf16": case(_numpy_averaged_gradients_into_bf16_policy, "loss_dtype", "f64",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
}
