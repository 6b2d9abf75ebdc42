"""Held-out live set 157: social network analysis and community detection written by hand in low precision (int64
edge lists, sparse COO adjacency, bool node and community masks, fp16 spectral embeddings, bf16 GNN message passing
with scatter, label propagation and Louvain-style aggregation, random walks, centralities, modularity losses).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at 0f754d66."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "0f754d66"

bf16, f16 = torch.bfloat16, torch.float16
_NODES = 10


def _seeded() -> None:
    torch.manual_seed(0)


def _edge_index() -> torch.Tensor:
    """Two friend circles of five users joined by one bridge (3 -- 6), both directions, int64 like every edge list."""
    pairs = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 4), (3, 4), (3, 6), (5, 6), (5, 7), (6, 8), (7, 8), (8, 9), (7, 9)]
    src = torch.tensor([a for a, _ in pairs] + [b for _, b in pairs])
    dst = torch.tensor([b for _, b in pairs] + [a for a, _ in pairs])
    return torch.stack([src, dst])


def _communities() -> torch.Tensor:
    return torch.tensor([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])


def _dense_adjacency() -> torch.Tensor:
    src, dst = _edge_index()
    adjacency = torch.zeros(_NODES, _NODES)
    adjacency[src, dst] = 1.0
    return adjacency


def _networkx_adjacency() -> np.ndarray:
    return _dense_adjacency().numpy().astype(np.float64)  # what nx.to_numpy_array(G) returns


# --- integer, bool, index and mask defects


def _label_propagation_votes_index_add() -> None:
    src, dst = _edge_index()
    labels = _communities()
    votes = torch.zeros(_NODES, 2)
    votes.index_add_(0, dst, F.one_hot(labels[src], num_classes=2))  # each neighbour votes for its label
    votes.argmax(1)


def _louvain_aggregation_bool_membership() -> None:
    membership = F.one_hot(_communities(), num_classes=2).bool()  # node x community, kept bool to save memory
    adjacency = _dense_adjacency()
    membership.T @ adjacency @ membership.float()  # community-level graph for the next Louvain pass


def _conductance_cut_edges_in_place() -> None:
    src, dst = _edge_index()
    labels = _communities()
    in_community = labels == 0
    cut = (in_community[src] & ~in_community[dst]).sum()
    volume = torch.bincount(src, minlength=_NODES)[in_community].sum()
    cut.div_(volume)  # conductance of community 0


def _uint8_community_ids_embedding() -> None:
    _seeded()
    community_ids = torch.from_numpy(np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1], dtype=np.uint8))  # compact parquet column
    community_embedding = nn.Embedding(2, 16)
    community_embedding(community_ids)


def _deepwalk_step_bool_adjacency_row() -> None:
    _seeded()
    adjacency = _dense_adjacency() > 0  # bool adjacency: neighbours of each user
    current = torch.tensor([0, 5, 9])
    torch.multinomial(adjacency[current], 1)  # next hop drawn uniformly among neighbours


def _friendship_bool_bce_target() -> None:
    _seeded()
    embeddings = torch.randn(_NODES, 16)
    adjacency = _dense_adjacency() > 0
    src = torch.tensor([0, 1, 3, 5, 0, 2])
    dst = torch.tensor([1, 2, 6, 7, 9, 8])
    scores = (embeddings[src] * embeddings[dst]).sum(-1)
    F.binary_cross_entropy_with_logits(scores, adjacency[src, dst])  # are they friends?


def _non_community_uint8_mask_masked_fill() -> None:
    _seeded()
    labels = _communities()
    scores = torch.randn(_NODES, _NODES)
    other_community = torch.from_numpy((labels[:, None] != labels[None, :]).numpy().astype(np.uint8))
    scores.masked_fill(other_community, float("-inf")).softmax(-1)


def _edge_births_bool_snapshot_difference() -> None:
    adjacency_t1 = _dense_adjacency() > 0
    adjacency_t0 = adjacency_t1.clone()
    adjacency_t0[3, 6] = adjacency_t0[6, 3] = False  # the bridge appeared between the two snapshots
    births = adjacency_t1 - adjacency_t0
    births.nonzero()


def _coo_adjacency_int64_ones_values() -> None:
    _seeded()
    edge_index = _edge_index()
    adjacency = torch.sparse_coo_tensor(edge_index, torch.ones_like(edge_index[0]), (_NODES, _NODES))
    features = torch.randn(_NODES, 16)
    torch.sparse.mm(adjacency, features)  # neighbour sum


def _triangle_count_bool_adjacency() -> None:
    adjacency = _dense_adjacency() > 0
    triangles = torch.diagonal(adjacency @ adjacency @ adjacency) // 2  # closed triads per user
    triangles.sum()


# --- floating dtypes meeting, missing kernels, overflow, numpy, gradients


def _gcn_scatter_add_bf16_messages() -> None:
    _seeded()
    src, dst = _edge_index()
    x = torch.randn(_NODES, 16, dtype=bf16)
    lin = nn.Linear(16, 16).to(bf16)
    messages = lin(x)[src]
    out = torch.zeros(_NODES, 16)  # aggregation buffer made with the default dtype
    out.scatter_add_(0, dst[:, None].expand(-1, 16), messages)


def _interaction_weights_f64_index_put() -> None:
    src, dst = _edge_index()
    n_messages = torch.from_numpy(np.arange(1, src.numel() + 1, dtype=np.float64))  # messages per pair, from pandas
    weighted = torch.zeros(_NODES, _NODES)
    weighted.index_put_((src, dst), torch.log1p(n_messages), accumulate=True)


def _spectral_embedding_f16_into_mlp() -> None:
    _seeded()
    embedding = torch.randn(_NODES, 4, dtype=f16)  # spectral coordinates cached in fp16
    classifier = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    classifier(embedding)


def _dmon_modularity_bf16_assignments() -> None:
    _seeded()
    adjacency = _dense_adjacency()
    degrees = adjacency.sum(1)
    two_m = degrees.sum()
    pooler = nn.Linear(16, 2).to(bf16)
    assignments = pooler(torch.randn(_NODES, 16, dtype=bf16)).softmax(-1)
    pooled = assignments.T @ adjacency @ assignments  # DMoN spectral modularity term
    normaliser = torch.outer(assignments.T @ degrees, degrees @ assignments) / two_m
    -torch.trace(pooled - normaliser) / two_m


def _mincut_pool_bmm_bf16_assignments() -> None:
    _seeded()
    adjacency = _dense_adjacency()[None]
    assignments = torch.randn(1, _NODES, 2, dtype=bf16).softmax(-1)  # from the bf16 GNN's pooling head
    pooled_adjacency = torch.bmm(torch.bmm(assignments.transpose(1, 2), adjacency), assignments)
    pooled_adjacency.diagonal(dim1=1, dim2=2).sum()


def _scipy_f64_normalised_coo_sparse_mm() -> None:
    _seeded()
    adjacency = _networkx_adjacency() + np.eye(_NODES)
    d_inv_sqrt = 1.0 / np.sqrt(adjacency.sum(1))
    normalised = d_inv_sqrt[:, None] * adjacency * d_inv_sqrt[None, :]  # scipy-style normalisation, float64
    rows, cols = np.nonzero(normalised)
    sparse = torch.sparse_coo_tensor(torch.from_numpy(np.stack([rows, cols])), torch.from_numpy(normalised[rows, cols]),
                                     (_NODES, _NODES))
    torch.sparse.mm(sparse, torch.randn(_NODES, 16))


def _katz_centrality_solve_bf16() -> None:
    adjacency = _dense_adjacency().to(bf16)  # the graph tensors follow the model to bf16
    alpha = 0.1
    identity = torch.eye(_NODES, dtype=bf16)
    torch.linalg.solve(identity - alpha * adjacency.T, torch.ones(_NODES, dtype=bf16))


def _spectral_lobpcg_f16_laplacian() -> None:
    adjacency = _dense_adjacency().half()
    laplacian = torch.diag(adjacency.sum(1)) - adjacency
    torch.lobpcg(laplacian + torch.eye(_NODES, dtype=f16), k=2, largest=False)  # Fiedler vector for a two-way split


def _link_decoder_bilinear_bf16_embeddings() -> None:
    _seeded()
    encoder = nn.Linear(16, 8).to(bf16)
    decoder = nn.Bilinear(8, 8, 1)  # added after the encoder was cast
    z = encoder(torch.randn(_NODES, 16, dtype=bf16))
    src, dst = _edge_index()
    decoder(z[src], z[dst])


def _evolvegcn_gru_cell_bf16_weights() -> None:
    _seeded()
    gcn_weight = torch.randn(8, 8, dtype=bf16)  # the GCN weight of the previous snapshot, bf16 with the model
    evolve = nn.GRUCell(8, 8)  # EvolveGCN-O's weight-evolving GRU, left fp32
    evolve(gcn_weight, gcn_weight)


def _networkx_adjacency_sdpa_attn_mask() -> None:
    _seeded()
    adjacency = torch.from_numpy(_networkx_adjacency())
    bias = torch.log(adjacency + torch.eye(_NODES))  # -inf for non-neighbours
    q = torch.randn(1, 2, _NODES, 8, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=bias)


def _gnn_bf16_layernorm_fp32_residual() -> None:
    _seeded()
    x = torch.randn(_NODES, 16)  # raw user features, fp32
    conv = nn.Linear(16, 16).to(bf16)
    norm = nn.LayerNorm(16).to(bf16)
    h = conv(x.to(bf16))
    norm(x + h)  # the residual promotes the sum to fp32


def _temporal_memory_lerp_bf16_updates() -> None:
    _seeded()
    memory = torch.zeros(_NODES, 16)  # per-user memory state kept fp32
    updater = nn.Linear(16, 16).to(bf16)
    updates = updater(torch.randn(_NODES, 16, dtype=bf16))
    memory.lerp_(updates, 0.1)


def _bot_detection_conv1d_f64_activity() -> None:
    _seeded()
    hourly_posts = np.random.default_rng(0).poisson(3.0, size=(_NODES, 1, 48)).astype(np.float64)  # from pandas
    detector = nn.Conv1d(1, 8, 5)
    detector(torch.from_numpy(np.log1p(hourly_posts)))


def _similarity_f16_fill_diagonal() -> None:
    _seeded()
    embeddings = F.normalize(torch.randn(_NODES, 16), dim=-1).half()
    similarity = embeddings @ embeddings.T
    similarity.fill_diagonal_(-1e5)  # never recommend a user to themselves
    similarity.topk(3, dim=-1)


def _dangling_node_random_walk() -> None:
    _seeded()
    follows = _dense_adjacency().triu()  # directed follower graph: user 9 follows nobody
    transition = follows / follows.sum(1, keepdim=True)
    walk = [torch.tensor(8)]
    for _ in range(4):
        walk.append(torch.multinomial(transition[walk[-1]], 1)[0])


def _spectral_bf16_embeddings_numpy() -> None:
    _seeded()
    encoder = nn.Linear(_NODES, 4).to(bf16)
    embedding = encoder(_dense_adjacency().to(bf16))
    np.asarray(embedding.detach())  # handed to scikit-learn's KMeans


def _symmetrise_f16_adjacency_bitwise_or() -> None:
    directed = _dense_adjacency().triu().half()  # dense adjacency cached in fp16
    directed | directed.T


def _dp_noise_grad_hook_fp32() -> None:
    _seeded()
    user_embedding = nn.Embedding(_NODES, 16).to(bf16)
    user_embedding.weight.register_hook(lambda grad: grad + 0.01 * torch.randn(grad.shape))  # DP noise on gradients
    src, dst = _edge_index()
    z = user_embedding.weight
    (z[src] * z[dst]).sum().backward()


def _link_bce_sigmoid_bf16_scores() -> None:
    _seeded()
    z = torch.randn(_NODES, 16, dtype=bf16)
    src = torch.tensor([0, 1, 3, 5, 0, 2])
    dst = torch.tensor([1, 2, 6, 7, 9, 8])
    labels = torch.tensor([1.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    F.binary_cross_entropy(torch.sigmoid((z[src] * z[dst]).sum(-1)), labels)


CASES: dict[str, LiveCase] = {
    # label propagation: neighbours' one_hot (int64) labels index_add_'ed into an fp32 vote buffer
    "label-propagation-one-hot-votes-index-add": case(_label_propagation_votes_index_add, "indexed_write_dtype",
                                                      "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # Louvain aggregation: a bool node-to-community membership matrix multiplied with the fp32 adjacency
    "louvain-aggregation-bool-membership-matmul": case(_louvain_aggregation_bool_membership, "integer_operand",
                                                       "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # conductance: the int64 cut-edge count divided in place by the community volume
    "conductance-cut-edges-div-in-place": case(_conductance_cut_edges_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # community ids stored as uint8 looked up in the community Embedding
    "community-ids-uint8-embedding": case(_uint8_community_ids_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # DeepWalk: the next hop drawn by multinomial over rows of a bool adjacency
    "deepwalk-multinomial-bool-adjacency-rows": case(_deepwalk_step_bool_adjacency_row, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # friendship prediction: bool adjacency entries as the BCE-with-logits target
    "friendship-bool-adjacency-bce-target": case(_friendship_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # attention restricted to a user's community by a uint8 mask from numpy in masked_fill
    "same-community-uint8-mask-masked-fill": case(_non_community_uint8_mask_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # edge births between two snapshots as the difference of bool adjacencies
    "edge-births-bool-snapshot-difference": case(_edge_births_bool_snapshot_difference, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a COO adjacency whose values are ones_like(edge_index[0]) (int64), sparse.mm with fp32 features
    "coo-adjacency-int64-ones-values-sparse-mm": case(_coo_adjacency_int64_ones_values, "integer_operand", "int64",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
    # triangle counting as the diagonal of A @ A @ A on a bool adjacency
    "triangle-count-bool-adjacency-matmul": case(_triangle_count_bool_adjacency, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # GCN message passing: bf16 messages scatter_add_'ed into an fp32 torch.zeros buffer
    "gcn-scatter-add-bf16-messages-fp32-zeros": case(_gcn_scatter_add_bf16_messages, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # weighted adjacency: float64 log message counts index_put_(accumulate=True) into fp32 zeros
    "interaction-weights-f64-index-put-accumulate": case(_interaction_weights_f64_index_put, "indexed_write_dtype",
                                                         "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # spectral coordinates cached in fp16 fed to an fp32 node classifier
    "spectral-embedding-f16-fp32-node-classifier": case(_spectral_embedding_f16_into_mlp, "matmul_dtype", "f16",
                                                        "f32",
        grade="correct", grade_at_freeze="correct"),
    # DMoN modularity loss: bf16 soft assignments @ the fp32 dense adjacency
    "dmon-modularity-bf16-assignments-fp32-adjacency": case(_dmon_modularity_bf16_assignments, "matmul_dtype",
                                                            "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # MinCutPool: bf16 assignments bmm'd with the fp32 batched adjacency
    "mincut-pool-bmm-bf16-assignments-fp32-adjacency": case(_mincut_pool_bmm_bf16_assignments,
                                                            "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # GCN with a symmetric-normalised adjacency built in numpy (float64) as COO, sparse.mm with fp32 features
    "gcn-numpy-f64-normalised-coo-sparse-mm": case(_scipy_f64_normalised_coo_sparse_mm, "matmul_dtype", "f64",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # Katz centrality by linalg.solve on the adjacency after it followed the model to bf16
    "katz-centrality-solve-bf16-adjacency": case(_katz_centrality_solve_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # spectral bisection: the Fiedler vector by torch.lobpcg of an fp16 Laplacian
    "spectral-bisection-lobpcg-f16-laplacian": case(_spectral_lobpcg_f16_laplacian, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # link prediction: an nn.Bilinear decoder added in fp32 after the encoder went bf16
    "link-decoder-bilinear-fp32-bf16-encoder": case(_link_decoder_bilinear_bf16_embeddings, "op_dtype", "bf16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # EvolveGCN-O: the fp32 GRUCell evolving the previous snapshot's bf16 GCN weight
    "evolvegcn-fp32-gru-cell-bf16-gcn-weight": case(_evolvegcn_gru_cell_bf16_weights, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # graph attention biased by log of networkx's float64 adjacency as SDPA's attn_mask, bf16 queries
    "networkx-f64-log-adjacency-sdpa-attn-mask": case(_networkx_adjacency_sdpa_attn_mask, "attn_mask_dtype", "f64",
                                                      "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 GNN block whose residual adds the fp32 raw features before its bf16 LayerNorm
    "gnn-block-fp32-residual-bf16-layernorm": case(_gnn_bf16_layernorm_fp32_residual, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # temporal network memory: fp32 per-user memory lerp_'ed toward bf16 updates
    "temporal-user-memory-lerp-bf16-updates": case(_temporal_memory_lerp_bf16_updates, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bot detection: float64 hourly posting counts from pandas into an fp32 Conv1d (with bias)
    "bot-detection-conv1d-f64-hourly-activity": case(_bot_detection_conv1d_f64_activity, "conv_weight_dtype", "f64",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # friend recommendation: fp16 cosine similarities with self-pairs excluded by fill_diagonal_(-1e5)
    "friend-recommendation-f16-fill-diagonal": case(_similarity_f16_fill_diagonal, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # random walk on a directed follower graph: a user following nobody gives a NaN transition row
    "follower-walk-dangling-user-nan-row": case(_dangling_node_random_walk, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # bf16 node embeddings handed to numpy for scikit-learn's KMeans
    "node-embeddings-bf16-numpy-kmeans": case(_spectral_bf16_embeddings_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a directed fp16 dense adjacency symmetrised with |
    "symmetrise-f16-adjacency-bitwise-or": case(_symmetrise_f16_adjacency_bitwise_or, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # differential-privacy noise added in a gradient hook with fp32 randn on bf16 user embeddings
    "dp-noise-grad-hook-fp32-bf16-embeddings": case(_dp_noise_grad_hook_fp32, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # link prediction: sigmoid of bf16 dot-product scores against fp32 labels in binary_cross_entropy
    "link-bce-sigmoid-bf16-scores-fp32-labels": case(_link_bce_sigmoid_bf16_scores, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
