"""Held-out live set 69: knowledge-graph embeddings and link prediction written by hand in low precision (TransE,
TransR, DistMult, ComplEx with complex embeddings, RotatE, HolE, ConvE, TuckER; negative sampling with integer
entity/relation ids, filtered ranking with masks, margin and self-adversarial losses, MRR/Hits@k in torch, R-GCN and
KBGAT over sparse adjacency). Defects planted by a helper who never read the rules, written before castwise ran and
graded once with the rules frozen at f71fe15."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f71fe15"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn
_ENTITIES = 500  # a slice of the entity vocabulary, small enough for the CPU
_RELATIONS = 11  # WN18RR's relation count
_DIM = 32


def _seeded() -> None:
    torch.manual_seed(0)


def _triples(batch: int = 8) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    heads = torch.randint(0, _ENTITIES, (batch,))
    relations = torch.randint(0, _RELATIONS, (batch,))
    tails = torch.randint(0, _ENTITIES, (batch,))
    return heads, relations, tails


class _TransR(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ent = nn.Embedding(_ENTITIES, _DIM)
        self.rel = nn.Embedding(_RELATIONS, _DIM)
        self.proj = torch.eye(_DIM).repeat(_RELATIONS, 1, 1)  # M_r initialised to the identity, kept frozen

    def forward(self, h: torch.Tensor, r: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        m_r = self.proj[r]
        h_r = torch.matmul(self.ent(h)[:, None], m_r)[:, 0]
        t_r = torch.matmul(self.ent(t)[:, None], m_r)[:, 0]
        return -(h_r + self.rel(r) - t_r).norm(p=1, dim=-1)


def _transr_identity_projections_plain_attribute() -> None:
    _seeded()
    model = _TransR().to(bf16)
    model(*_triples())


def _distmult_one_to_n_bf16_entity_table() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM).to(bf16)  # the big entity table halved to fit memory
    rel = nn.Embedding(_RELATIONS, _DIM)  # relations are few, left fp32
    h, r, _ = _triples()
    query = ent(h) * rel(r)
    query @ ent.weight.t()


def _complex_relations_from_numpy_complex128() -> torch.Tensor:
    _seeded()
    rng = np.random.default_rng(0)
    ent = nn.Parameter(torch.randn(_ENTITIES, _DIM, dtype=torch.cfloat) * 0.1)
    pretrained = rng.normal(size=(_RELATIONS, _DIM)) + 1j * rng.normal(size=(_RELATIONS, _DIM))  # numpy ComplEx
    rel = nn.Parameter(torch.from_numpy(pretrained))
    h, r, _ = _triples()
    query = ent[h] * rel[r]
    return (query @ ent.conj().t()).real


def _conve_bf16_tables_into_fp32_conv() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, 200).to(bf16)  # embeddings cast for memory, conv stack left as built
    rel = nn.Embedding(_RELATIONS, 200).to(bf16)
    bn0 = nn.BatchNorm2d(1)
    conv = nn.Conv2d(1, 32, (3, 3), bias=False)  # use_bias=False in the config
    h, r, _ = _triples()
    stacked = torch.cat([ent(h).view(-1, 1, 10, 20), rel(r).view(-1, 1, 10, 20)], 2)
    conv(bn0(stacked))


class _TuckER(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.E = nn.Embedding(_ENTITIES, _DIM)
        self.R = nn.Embedding(_RELATIONS, 16)
        self.W = nn.Parameter(torch.empty(16, _DIM, _DIM).uniform_(-1, 1))
        self.bn0 = nn.BatchNorm1d(_DIM)
        self.bn1 = nn.BatchNorm1d(_DIM)

    def forward(self, h: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        x = self.bn0(self.E(h))
        w = (self.R(r) @ self.W.view(16, -1)).view(-1, _DIM, _DIM)
        x = self.bn1(torch.bmm(x[:, None], w)[:, 0])
        return torch.sigmoid(x @ self.E.weight.t())


def _tucker_entity_table_kept_fp32() -> None:
    _seeded()
    model = _TuckER().to(bf16)
    model.E.float()  # entity table kept fp32 for its sparse updates
    h, r, _ = _triples()
    model(h, r)


def _rgcn_inverse_relation_weights_added_after_cast_bmm() -> None:
    _seeded()
    x = nn.Embedding(_ENTITIES, _DIM).to(bf16).weight  # node features: the bf16 entity table
    weight = nn.Parameter(torch.randn(2 * _RELATIONS, _DIM, _DIM) * 0.1)  # resized for inverse relations after .to()
    src = torch.randint(0, _ENTITIES, (40,))
    edge_type = torch.randint(0, 2 * _RELATIONS, (40,))
    torch.bmm(x[src].unsqueeze(1), weight[edge_type]).squeeze(1)


def _filtered_rank_restores_bf16_target_score() -> None:
    _seeded()
    scores = torch.randn(4, _ENTITIES, dtype=bf16)  # 1-N scores from the bf16 model
    tails = torch.tensor([3, 17, 250, 499])
    known = torch.rand(4, _ENTITIES) < 0.05  # other true tails from train/valid/test
    rows = torch.arange(4)
    target = scores[rows, tails].clone()
    filtered = scores.float()  # ranking done in fp32
    filtered[known] = float("-inf")
    filtered[rows, tails] = target
    (filtered > filtered[rows, tails][:, None]).sum(1) + 1


def _entity_table_ema_lerp() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM)
    ema = ent.weight.detach().clone()  # averaged embeddings for evaluation, taken before the cast
    ent.to(bf16)
    with torch.no_grad():
        ema.lerp_(ent.weight, 1 - 0.999)


def _kbgat_relation_keys_fp32_sdpa() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM).to(bf16)
    rel = nn.Embedding(2 * _RELATIONS, _DIM)  # relation table rebuilt with inverses after the cast
    centre = torch.randint(0, _ENTITIES, (4,))
    neighbours = torch.randint(0, _ENTITIES, (4, 6))
    neighbour_rels = torch.randint(0, 2 * _RELATIONS, (4, 6))
    q = ent(centre)[:, None, None]
    k = (ent(neighbours) + rel(neighbour_rels))[:, None]
    v = ent(neighbours)[:, None]
    F.scaled_dot_product_attention(q, k, v)


def _hitter_float_neighbour_padding_mask() -> None:
    _seeded()
    context = nn.MultiheadAttention(_DIM, 4, batch_first=True).to(bf16)
    tokens = torch.randn(2, 7, _DIM, dtype=bf16)  # [CLS] plus (relation, entity) neighbour tokens
    lengths = torch.tensor([7, 4])
    padding = torch.arange(7)[None] >= lengths[:, None]
    mask = torch.zeros(2, 7).masked_fill(padding, float("-inf"))
    context(tokens, tokens, tokens, key_padding_mask=mask)


def _path_lstm_fp32_relation_paths() -> None:
    _seeded()
    rel = nn.Embedding(_RELATIONS, _DIM)
    encoder = nn.LSTM(_DIM, _DIM, batch_first=True).to(bf16)
    paths = torch.randint(0, _RELATIONS, (4, 3))  # relation paths between head and tail
    encoder(rel(paths))


def _conve_bce_label_smoothed_fp32_targets() -> None:
    _seeded()
    logits = torch.randn(4, _ENTITIES, dtype=bf16)
    tails = torch.tensor([3, 17, 250, 499])
    targets = F.one_hot(tails, _ENTITIES).float()
    targets = (1.0 - 0.1) * targets + 1.0 / _ENTITIES
    F.binary_cross_entropy(torch.sigmoid(logits), targets)


def _fp8_entity_table_distmult() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM).to(bf16)
    rel = nn.Embedding(_RELATIONS, _DIM).to(bf16)
    table = ent.weight.detach().to(E4M3)  # entity table stored in fp8 for serving
    h, r, t = _triples()
    (table[h] * rel(r) * table[t]).sum(-1)


def _halved_entity_table_grad_scaler() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM).half()
    rel = nn.Embedding(_RELATIONS, _DIM)
    optimizer = torch.optim.Adam([*ent.parameters(), *rel.parameters()], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    h, r, t = _triples()
    score = -(ent(h).float() + rel(r) - ent(t).float()).norm(p=1, dim=-1)
    scaler.scale(F.softplus(-score).mean()).backward()
    scaler.step(optimizer)


def _unscale_each_micro_batch_for_logging() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM)
    rel = nn.Embedding(_RELATIONS, _DIM)
    optimizer = torch.optim.Adam([*ent.parameters(), *rel.parameters()], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    for _ in range(2):  # gradient accumulation over two micro-batches
        h, r, t = _triples()
        score = (ent(h) * rel(r) * ent(t)).sum(-1)
        scaler.scale(F.softplus(-score).mean() / 2).backward()
        scaler.unscale_(optimizer)  # to log the gradient norm of each micro-batch
        torch.nn.utils.clip_grad_norm_(ent.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()


def _hole_circular_correlation_fp16() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM).half()
    rel = nn.Embedding(_RELATIONS, _DIM).half()
    h, r, t = _triples()
    a, b = ent(h), ent(t)
    correlation = torch.fft.irfft(torch.conj(torch.fft.rfft(a)) * torch.fft.rfft(b), n=_DIM)
    torch.sigmoid((rel(r) * correlation).sum(-1))


def _rotate_polar_bf16_phases() -> None:
    _seeded()
    gamma, epsilon = 12.0, 2.0
    embedding_range = (gamma + epsilon) / _DIM
    rel = nn.Embedding(_RELATIONS, _DIM).to(bf16)
    nn.init.uniform_(rel.weight, -embedding_range, embedding_range)
    _, r, _ = _triples()
    phase = rel(r) / (embedding_range / math.pi)
    torch.polar(torch.ones_like(phase), phase)


def _transe_all_tails_cdist_bf16() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM).to(bf16)
    rel = nn.Embedding(_RELATIONS, _DIM).to(bf16)
    h, r, _ = _triples()
    -torch.cdist(ent(h) + rel(r), ent.weight, p=1)


def _rgcn_csr_adjacency_cast_with_model() -> None:
    _seeded()
    src = torch.randint(0, _ENTITIES, (60,))
    dst = torch.randint(0, _ENTITIES, (60,))
    adjacency = torch.sparse_coo_tensor(torch.stack([dst, src]), torch.ones(60), (_ENTITIES, _ENTITIES))
    adjacency = adjacency.coalesce().to_sparse_csr().to(bf16)  # cast with the rest of the model's tensors
    x = torch.randn(_ENTITIES, _DIM, dtype=bf16)
    adjacency @ x


def _kbgat_sparse_edge_softmax_bf16() -> None:
    _seeded()
    src = torch.randint(0, _ENTITIES, (60,))
    dst = torch.randint(0, _ENTITIES, (60,))
    edge_logits = torch.randn(60, dtype=bf16)  # attention logits of the bf16 model
    attention = torch.sparse_coo_tensor(torch.stack([dst, src]), edge_logits, (_ENTITIES, _ENTITIES)).coalesce()
    torch.sparse.softmax(attention, dim=1)


def _candidate_padding_entity_count_int16() -> None:
    num_entities = 40943  # WN18RR
    candidates = torch.full((4, 64), num_entities, dtype=torch.int16)  # padding id = num_entities, "to save memory"
    candidates[:, 0] = torch.tensor([3, 17, 250, 499])


def _bf16_scores_numpy_argsort() -> None:
    _seeded()
    scores = torch.randn(4, _ENTITIES, dtype=bf16)
    order = np.argsort(-scores.detach().cpu().numpy(), axis=1)
    order[:, :10]


def _rgcn_adjacency_values_new_ones() -> None:
    _seeded()
    edge_index = torch.randint(0, _ENTITIES, (2, 60))
    adjacency = torch.sparse_coo_tensor(edge_index, edge_index.new_ones(60), (_ENTITIES, _ENTITIES))
    x = torch.randn(_ENTITIES, _DIM)
    torch.sparse.mm(adjacency, x)


def _rank_by_argmax_of_bool_match() -> None:
    _seeded()
    scores = torch.randn(4, _ENTITIES)
    tails = torch.tensor([3, 17, 250, 499])
    order = scores.argsort(1, descending=True)
    (order == tails[:, None]).argmax(1) + 1


def _hits_at_10_mean_of_bool() -> dict[str, torch.Tensor]:
    ranks = torch.tensor([1, 4, 12, 2, 57, 9])
    return {"hits@10": (ranks <= 10).mean(), "mrr": (1.0 / ranks).mean()}


def _realistic_rank_in_place() -> None:
    _seeded()
    scores = torch.randn(4, _ENTITIES).round(decimals=1)  # ties
    target = scores[:, :1]
    optimistic = (scores > target).sum(1) + 1
    pessimistic = (scores >= target).sum(1)
    optimistic.add_(pessimistic).div_(2)  # realistic rank: the mean of both


def _negative_tails_uniform_floor() -> None:
    _seeded()
    ent = nn.Embedding(_ENTITIES, _DIM)
    negatives = (torch.rand(8, 16) * _ENTITIES).floor()  # 16 corrupted tails per positive
    ent(negatives)


def _relation_ids_uint8_from_numpy() -> None:
    _seeded()
    rel = nn.Embedding(237, _DIM)  # FB15k-237
    triples = np.array([[12, 5, 900], [44, 236, 3], [7, 101, 12]])
    relations = triples[:, 1].astype(np.uint8)  # 237 relations fit a byte
    rel(torch.from_numpy(relations))


def _filter_mask_uint8_from_numpy() -> None:
    _seeded()
    scores = torch.randn(3, _ENTITIES)
    known = np.zeros((3, _ENTITIES), dtype=np.uint8)  # filter matrix built from the train/valid/test triples
    known[0, [5, 9]] = 1
    known[2, [40, 41, 300]] = 1
    scores.masked_fill(torch.from_numpy(known), float("-inf"))


def _one_to_n_bce_logits_bool_targets() -> None:
    _seeded()
    logits = torch.randn(4, _ENTITIES)
    targets = torch.rand(4, _ENTITIES) < 0.01  # every known tail of (h, r), as the filter mask
    F.binary_cross_entropy_with_logits(logits, targets)


CASES: dict[str, LiveCase] = {
    # TransR whose identity-initialised projection matrices are a plain tensor attribute: model.to(bf16) leaves them fp32
    "transr-identity-projections-plain-attribute": case(_transr_identity_projections_plain_attribute, "matmul_dtype",
                                                        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DistMult 1-N scoring: the entity table halved to bf16, the fp32 relation table promotes the query to fp32
    "distmult-1n-bf16-entity-table-fp32-query": case(_distmult_one_to_n_bf16_entity_table, "matmul_dtype", "f32",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ComplEx with complex embeddings: relations loaded from a numpy complex128 array, scored against complex64 entities
    "complex-relations-numpy-complex128": case(_complex_relations_from_numpy_complex128, "matmul_dtype", "complex128",
                                               "complex64",
        grade="correct", grade_at_freeze="partly",
        why=("At freeze (f71fe15) castwise gave matmul_dtype [] (low confidence). The kind is right, but torch names the two "
             "complex dtypes in C++ spelling (c10::complex<double> != c10::complex<float>), which the reader did not read "
             "as complex128 and complex64, so the explanation lists no dtypes")),
    # ConvE: embedding tables cast to bf16 for memory, the reshaped stack fed to the fp32 bn0 and Conv2d
    "conve-bf16-tables-fp32-conv2d": case(_conve_bf16_tables_into_fp32_conv, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TuckER cast to bf16 with its entity table put back to fp32 for sparse updates, into the bf16 bn0
    "tucker-fp32-entity-table-bf16-batchnorm": case(_tucker_entity_table_kept_fp32, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # R-GCN relation weights resized for inverse relations after the cast (fp32), bmm'd with bf16 node features per edge
    "rgcn-inverse-relation-weights-bmm": case(_rgcn_inverse_relation_weights_added_after_cast_bmm,
                                              "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # filtered ranking: scores upcast to fp32, the bf16 target score written back by advanced indexing
    "filtered-rank-restore-bf16-target-score": case(_filtered_rank_restores_bf16_target_score, "indexed_write_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 EMA of the entity table (copied before the cast) lerp_'ed toward the bf16 table
    "entity-table-ema-lerp": case(_entity_table_ema_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # KBGAT-style neighbour attention: keys get an fp32 relation table rebuilt after the cast, bf16 queries and values
    "kbgat-relation-keys-fp32-sdpa": case(_kbgat_relation_keys_fp32_sdpa, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # HittER-style context transformer: neighbour padding mask built as float -inf (fp32) for a bf16 attention
    "hitter-float-padding-mask-bf16-mha": case(_hitter_float_neighbour_padding_mask, "attn_mask_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # relation-path encoder: LSTM cast to bf16, relation embeddings of the paths left fp32
    "path-lstm-fp32-relation-paths": case(_path_lstm_fp32_relation_paths, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ConvE 1-N BCE: sigmoid of bf16 logits against label-smoothed fp32 targets
    "conve-bce-label-smoothed-fp32-targets": case(_conve_bce_label_smoothed_fp32_targets, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DistMult serving with the entity table stored in fp8, multiplied with the bf16 relation embeddings
    "fp8-entity-table-distmult": case(_fp8_entity_table_distmult, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a TransE entity table halved with .half() to fit memory, trained with GradScaler
    "halved-entity-table-grad-scaler": case(_halved_entity_table_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # GradScaler with gradient accumulation: unscale_ each micro-batch to log and clip the gradient norm
    "unscale-each-micro-batch": case(_unscale_each_micro_batch_for_logging, "loss_scale",
        grade="correct", grade_at_freeze="correct"),
    # HolE circular correlation by rfft/irfft on fp16 embeddings
    "hole-circular-correlation-fp16-rfft": case(_hole_circular_correlation_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # RotatE relation rotations by torch.polar of bf16 phases
    "rotate-polar-bf16-phases": case(_rotate_polar_bf16_phases, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TransE 1-N scoring: L1 distances to every entity by cdist on the bf16 table
    "transe-all-tails-cdist-bf16": case(_transe_all_tails_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # R-GCN with a CSR adjacency cast to bf16 with the model, multiplied with bf16 node features
    "rgcn-csr-adjacency-bf16-spmm": case(_rgcn_csr_adjacency_cast_with_model, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # KBGAT edge attention normalised by torch.sparse.softmax over bf16 logits
    "kbgat-sparse-edge-softmax-bf16": case(_kbgat_sparse_edge_softmax_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # candidate lists padded with id = num_entities (40943 for WN18RR) in an int16 buffer
    "candidate-padding-40943-int16": case(_candidate_padding_entity_count_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 1-N scores ranked with np.argsort
    "bf16-scores-numpy-argsort": case(_bf16_scores_numpy_argsort, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # R-GCN sparse adjacency values made with edge_index.new_ones (int64), sparse.mm with fp32 features
    "rgcn-adjacency-values-new-ones-int64": case(_rgcn_adjacency_values_new_ones, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # rank as the position of the true tail in the argsort, found by argmax of the bool match
    "rank-by-argmax-of-bool-match": case(_rank_by_argmax_of_bool_match, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Hits@10 as the mean of the bool (ranks <= 10)
    "hits-at-10-mean-of-bool": case(_hits_at_10_mean_of_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # tie-aware realistic rank: (optimistic + pessimistic) / 2 in place on the int64 counts
    "realistic-rank-in-place-div": case(_realistic_rank_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # uniform negative tails drawn as floor(rand * num_entities), still float, looked up in the entity table
    "negative-tails-uniform-floor-float-ids": case(_negative_tails_uniform_floor, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # FB15k-237 relation ids stored as uint8 (237 < 256), looked up in the relation Embedding
    "relation-ids-uint8-embedding": case(_relation_ids_uint8_from_numpy, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # the filtered-setting mask built as a numpy uint8 matrix, used in masked_fill
    "filter-mask-uint8-masked-fill": case(_filter_mask_uint8_from_numpy, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # 1-N training with the bool known-tails mask as the BCE-with-logits target
    "one-to-n-bce-logits-bool-targets": case(_one_to_n_bce_logits_bool_targets, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
}
