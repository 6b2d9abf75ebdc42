"""Held-out live set 45: graph neural networks written by hand in low precision (message passing with scatter and
index ops, batching with a batch vector and pooling, sparse COO/CSR adjacency, edge softmax, positional encodings,
neighbour and negative sampling, link prediction, molecular graphs with coordinates). Defects planted by a helper who
never read the rules, written before castwise ran and graded once with the rules frozen at b910096."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b910096"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


def _ring(n: int) -> torch.Tensor:
    """An undirected ring of ``n`` nodes as a (2, 2n) int64 edge_index."""
    src = torch.arange(n)
    dst = (src + 1) % n
    return torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])


def _dense_adjacency(edge_index: torch.Tensor, n: int) -> torch.Tensor:
    """A hand-written to_dense_adj: a float (n, n) adjacency."""
    adj = torch.zeros(n, n)
    adj[edge_index[0], edge_index[1]] = 1.0
    return adj


def _collate_offsets_from_new_tensor() -> None:
    torch.manual_seed(0)
    xs = [torch.randn(3, 8, dtype=bf16), torch.randn(4, 8, dtype=bf16)]  # node features already in the model's dtype
    edges = [_ring(3), _ring(4)]
    x = torch.cat(xs)
    sizes = x.new_tensor([g.size(0) for g in xs])  # node counts per graph
    offsets = torch.cumsum(sizes, 0) - sizes
    edge_index = torch.cat([e + offset for e, offset in zip(edges, offsets)], dim=1)
    src, dst = edge_index
    torch.zeros_like(x).index_add_(0, dst, x.index_select(0, src))


def _graphormer_spd_float_embedding() -> None:
    n = 6
    adj = _dense_adjacency(_ring(n), n)
    dist = torch.full((n, n), float("inf"))
    dist[adj > 0] = 1.0
    dist.fill_diagonal_(0.0)
    for k in range(n):  # Floyd-Warshall, min-plus in float for the inf of unreachable pairs
        dist = torch.minimum(dist, dist[:, k:k + 1] + dist[k:k + 1, :])
    spatial_pos = dist.clamp(max=20)
    spatial_pos_encoder = nn.Embedding(21, 4).to(bf16)
    spatial_pos_encoder(spatial_pos)


def _csr_scipy_indptr_int32() -> None:
    edge_index = _ring(4)
    order = torch.argsort(edge_index[0] * 4 + edge_index[1])
    col = edge_index[1][order]
    counts = np.bincount(edge_index[0].numpy(), minlength=4)
    indptr = torch.from_numpy(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))  # as scipy.sparse stores it
    with torch.sparse.check_sparse_tensor_invariants():
        torch.sparse_csr_tensor(indptr, col, torch.ones(col.numel(), dtype=bf16), (4, 4))


def _gat_edge_softmax_max_buffer() -> None:
    torch.manual_seed(0)
    n = 5
    src, dst = _ring(n)
    x = torch.randn(n, 8, dtype=bf16)
    attention = nn.Linear(16, 1).to(bf16)
    scores = F.leaky_relu(attention(torch.cat([x[src], x[dst]], dim=-1)).squeeze(-1), 0.2)
    node_max = torch.full((n,), float("-inf")).index_reduce_(0, dst, scores, "amax")
    (scores - node_max[dst]).exp()


def _topk_pool_relabel_full_like_score() -> None:
    torch.manual_seed(0)
    n, k = 6, 3
    x = torch.randn(n, 8, dtype=bf16)
    projection = nn.Linear(8, 1).to(bf16)
    score = torch.tanh(projection(x)).squeeze(-1)
    perm = score.topk(k).indices
    mapping = torch.full_like(score, -1)  # old node id -> new node id, -1 for dropped nodes
    mapping[perm] = torch.arange(k)


def _to_dense_batch_zeros_default_dtype() -> None:
    torch.manual_seed(0)
    x = torch.randn(7, 8, dtype=bf16)
    batch = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    counts = torch.bincount(batch)
    max_nodes = int(counts.max())
    ptr = torch.cumsum(counts, 0) - counts
    position = torch.arange(batch.numel()) - ptr[batch]
    out = torch.zeros(counts.numel() * max_nodes, x.size(-1))
    out[batch * max_nodes + position] = x


class _GINConv(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.eps = torch.zeros(1)  # "train_eps=False": a plain tensor, neither parameter nor buffer

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        aggregated = torch.zeros_like(x).index_add_(0, edge_index[1], x[edge_index[0]])
        return self.mlp((1 + self.eps) * x + aggregated)


def _gin_eps_plain_tensor() -> None:
    torch.manual_seed(0)
    conv = _GINConv(8).to(bf16)
    conv(torch.randn(5, 8, dtype=bf16), _ring(5))


def _diffpool_assignment_softmax_fp32() -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 6, 8, dtype=bf16)
    assign = nn.Linear(8, 3).to(bf16)
    s = F.softmax(assign(x), dim=-1, dtype=torch.float32)  # softmax in fp32 "for stability"
    s.transpose(1, 2) @ x


def _painn_vector_features_zeros() -> None:
    torch.manual_seed(0)
    n, features = 4, 8
    z = torch.tensor([6, 1, 1, 8])
    pos = torch.randn(n, 3)
    src, dst = _ring(n)
    embedding = nn.Embedding(10, features).to(bf16)
    phi = nn.Linear(features, features).to(bf16)
    update = nn.Linear(features, features, bias=False).to(bf16)
    s = embedding(z)
    vec = pos[dst] - pos[src]
    unit = (vec / vec.norm(dim=-1, keepdim=True)).to(bf16)
    v = torch.zeros(n, 3, features)  # vector features start at zero
    dv = torch.zeros(n, 3, features, dtype=bf16).index_add_(0, dst, phi(s)[src][:, None, :] * unit[:, :, None])
    v = v + dv
    update(v)


def _nnconv_edge_network_bf16() -> None:
    torch.manual_seed(0)
    n, dim = 5, 4
    src, dst = _ring(n)
    x = torch.randn(n, dim)
    edge_attr = torch.randn(src.numel(), 3)
    edge_network = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, dim * dim))
    edge_network.to(bf16)  # the E x in x out weights are the memory hog, so only the edge network goes to bf16
    weights = edge_network(edge_attr.to(bf16)).view(-1, dim, dim)
    torch.bmm(x[src].unsqueeze(1), weights)


def _tgn_time_encoding_int64_timestamps() -> None:
    timestamps = torch.from_numpy(np.array([1_700_000_000, 1_700_000_360, 1_700_000_900], dtype=np.int64))
    src = torch.tensor([0, 1, 0])
    last_update = torch.tensor([1_699_999_000, 1_700_000_100])
    time_encoder = nn.Linear(1, 8).to(bf16)
    relative = timestamps - last_update[src]
    torch.cos(time_encoder(relative.unsqueeze(-1)))


def _grid_graph_integer_coordinates() -> None:
    rows, cols = torch.meshgrid(torch.arange(4), torch.arange(4), indexing="ij")
    pos = torch.stack([rows, cols], dim=-1).reshape(-1, 2)
    right = torch.arange(16).reshape(4, 4)[:, :-1].reshape(-1)
    src, dst = right, right + 1
    torch.linalg.vector_norm(pos[src] - pos[dst], dim=-1)


def _fastgcn_sampling_by_degree() -> None:
    edge_index = _ring(8)
    degree = torch.bincount(edge_index[1], minlength=8)
    torch.multinomial(degree, num_samples=3, replacement=False)


def _embedding_bag_aggregation_edge_weights() -> None:
    torch.manual_seed(0)
    n = 5
    edge_index = _ring(n)
    order = torch.argsort(edge_index[0] * n + edge_index[1])
    row, col = edge_index[0][order], edge_index[1][order]
    degree = torch.bincount(row, minlength=n)
    rowptr = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(degree, 0)])
    x = torch.randn(n, 8, dtype=bf16)
    edge_weight = 1.0 / degree[row]  # mean aggregation
    F.embedding_bag(col, x, offsets=rowptr[:-1], mode="sum", per_sample_weights=edge_weight)


def _laplacian_pe_eigh_half() -> None:
    n = 6
    adj = _dense_adjacency(_ring(n), n).half()  # the whole pipeline was .half()'d
    inv_sqrt = adj.sum(1).pow(-0.5)
    laplacian = torch.eye(n, dtype=f16) - inv_sqrt[:, None] * adj * inv_sqrt[None, :]
    torch.linalg.eigh(laplacian)


def _ppr_closed_form_inverse_bf16() -> None:
    n, alpha = 6, 0.1
    adj = _dense_adjacency(_ring(n), n).to(bf16) + torch.eye(n, dtype=bf16)
    inv_sqrt = adj.sum(1).pow(-0.5)
    normalised = inv_sqrt[:, None] * adj * inv_sqrt[None, :]
    alpha * torch.linalg.inv(torch.eye(n, dtype=bf16) - (1 - alpha) * normalised)


def _dense_adjacency_cast_and_node_mask() -> None:
    batch = {"adj": torch.stack([_dense_adjacency(_ring(4), 4), _dense_adjacency(_ring(4), 4)]),
             "node_mask": torch.tensor([[True, True, True, False], [True, True, True, True]])}
    batch = {key: value.to(bf16) if value.is_floating_point() else value for key, value in batch.items()}
    pair = batch["node_mask"][:, :, None] & batch["node_mask"][:, None, :]
    batch["adj"] & pair


def _graph_transformer_invert_float_adjacency() -> None:
    torch.manual_seed(0)
    n = 5
    adj = _dense_adjacency(_ring(n), n) + torch.eye(n)
    scores = torch.randn(1, 2, n, n, dtype=bf16)
    scores.masked_fill(~adj[None, None], float("-inf")).softmax(-1)


def _radius_graph_remove_self_loops() -> None:
    torch.manual_seed(0)
    pos = torch.randn(6, 3)
    within = torch.cdist(pos, pos) < 1.5
    within - torch.eye(6, dtype=torch.bool)


def _pygat_masked_fill_half() -> None:
    torch.manual_seed(0)
    n = 5
    adj = _dense_adjacency(_ring(n), n).half()
    h = torch.randn(n, 8, dtype=f16)
    a = torch.randn(16, 1, dtype=f16)
    e = F.leaky_relu(h @ a[:8] + (h @ a[8:]).T, 0.2)
    e.masked_fill(adj == 0, -9e15).softmax(dim=1)


def _historical_embeddings_fp8() -> None:
    torch.manual_seed(0)
    history = torch.zeros(20, 8, dtype=E4M3)  # GNNAutoScale-style history, fp8 to fit the whole graph
    history[torch.arange(10, 20)] = torch.randn(10, 8).to(E4M3)
    in_batch = torch.randn(4, 8, dtype=bf16)
    halo = torch.tensor([12, 15, 17])
    torch.cat([in_batch, history[halo]], dim=0)


def _appnp_teleport_lerp() -> None:
    torch.manual_seed(0)
    n, alpha = 5, 0.1
    adj = _dense_adjacency(_ring(n), n)
    normalised = (adj / adj.sum(1, keepdim=True)).to(bf16)
    h0 = torch.randn(n, 4)  # the MLP's prediction, kept in fp32 as the teleport target
    h = h0.to(bf16)
    for _ in range(3):
        h = torch.lerp(h0, normalised @ h, 1 - alpha)


class _Set2Set(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim
        self.lstm = nn.LSTM(2 * dim, dim)

    def forward(self, x: torch.Tensor, batch: torch.Tensor, num_graphs: int) -> torch.Tensor:
        q_star = x.new_zeros(num_graphs, 2 * self.dim)
        q, _ = self.lstm(q_star.unsqueeze(0))
        return q


def _set2set_readout_left_fp32() -> None:
    torch.manual_seed(0)
    encoder = nn.Linear(8, 8).to(bf16)
    readout = _Set2Set(8)  # added to the model after encoder.to(bf16)
    x = encoder(torch.randn(7, 8, dtype=bf16))
    readout(x, torch.tensor([0, 0, 0, 1, 1, 1, 1]), 2)


def _graph_transformer_key_positional_encoding() -> None:
    torch.manual_seed(0)
    batch, n, dim = 1, 5, 8
    x = torch.randn(batch, n, dim, dtype=bf16)
    laplacian_pe = torch.randn(batch, n, 4)  # eigenvectors computed in fp32
    to_q = nn.Linear(dim, dim).to(bf16)
    to_k = nn.Linear(dim, dim).to(bf16)
    to_v = nn.Linear(dim, dim).to(bf16)
    pe_to_key = nn.Linear(4, dim)  # kept fp32: eigenvectors need the precision
    q, k, v = to_q(x), to_k(x) + pe_to_key(laplacian_pe), to_v(x)
    F.scaled_dot_product_attention(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1))


def _graphormer_spatial_bias_fp32_encoder() -> None:
    torch.manual_seed(0)
    batch, n, dim, heads = 1, 4, 8, 2
    attention = nn.MultiheadAttention(dim, heads, batch_first=True).to(bf16)
    spatial_bias = nn.Embedding(5, heads)  # created after the cast
    spd = torch.tensor([[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]])
    bias = spatial_bias(spd).permute(2, 0, 1).reshape(batch * heads, n, n)
    x = torch.randn(batch, n, dim, dtype=bf16)
    attention(x, x, x, attn_mask=bias)


def _dgcnn_sort_pool_zero_padding() -> None:
    torch.manual_seed(0)
    k, dim = 6, 4
    conv = nn.Conv1d(1, 16, dim, stride=dim, bias=False).to(bf16)
    x = torch.randn(4, dim, dtype=bf16)  # a graph with fewer nodes than k
    order = x[:, -1].argsort(descending=True)
    pooled = torch.cat([x[order], torch.zeros(k - x.size(0), dim)])
    conv(pooled.reshape(1, 1, k * dim))


def _node_labels_with_nan_cross_entropy() -> None:
    torch.manual_seed(0)
    labels = torch.from_numpy(np.array([0, 2, np.nan, 1, np.nan]))  # unlabelled nodes as NaN in the DataFrame
    train_mask = ~torch.isnan(labels)
    logits = nn.Linear(8, 3).to(bf16)(torch.randn(5, 8, dtype=bf16))
    F.cross_entropy(logits[train_mask], labels[train_mask])


def _link_prediction_mrr_in_place() -> None:
    torch.manual_seed(0)
    pos_score = torch.randn(4, dtype=bf16)
    neg_score = torch.randn(4, 10, dtype=bf16)
    rank = (neg_score >= pos_score[:, None]).sum(dim=1) + 1
    rank.reciprocal_().mean()


def _node2vec_embeddings_to_numpy() -> None:
    torch.manual_seed(0)
    node2vec = nn.Embedding(20, 8).to(bf16)
    node2vec.weight.detach().numpy()


def _attention_neighbour_sampling_half() -> None:
    query = torch.linspace(0.5, 2.0, 16, dtype=f16)
    neighbours = torch.linspace(-1.0, 3.0, 5 * 16, dtype=f16).reshape(5, 16)
    logits = neighbours @ query
    weights = logits.exp()
    torch.multinomial(weights / weights.sum(), 2)


CASES: dict[str, LiveCase] = {
    # collate: per-graph node offsets made with x.new_tensor (so bf16 like the features), added to edge_index
    "collate-offsets-new-tensor-bf16-edge-index": case(_collate_offsets_from_new_tensor, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # Graphormer shortest-path distances by float Floyd-Warshall (inf for unreachable) fed to the spatial Embedding
    "graphormer-float-spd-embedding": case(_graphormer_spd_float_embedding, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # a CSR adjacency from scipy's int32 indptr and edge_index's int64 columns, invariant checks on
    "csr-scipy-int32-indptr-int64-col": case(_csr_scipy_indptr_int32, "index_tensor_dtype", "int32", "int64", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (b910096) castwise gave nothing. The sparse CSR constructor's check that its compressed"
            " row indices (int32, as scipy stores indptr) and its column indices (int64) share one index dtype"
            " is a message no rule read."),
    # GAT edge softmax: per-node max of bf16 scores by index_reduce_ into a torch.full(-inf) (fp32) buffer
    "gat-edge-softmax-max-index-reduce-fp32": case(_gat_edge_softmax_max_buffer, "indexed_write_dtype", "f32",
                                                   "bf16", grade="correct", grade_at_freeze="correct"),
    # TopK pooling's node relabel map made with full_like(score, -1), so bf16, assigned an int64 arange
    "topk-pool-relabel-full-like-score": case(_topk_pool_relabel_full_like_score, "indexed_write_dtype", "bf16",
                                              "int64", grade="correct", grade_at_freeze="correct"),
    # a hand-written to_dense_batch writing bf16 node features into torch.zeros (fp32)
    "to-dense-batch-zeros-default-dtype": case(_to_dense_batch_zeros_default_dtype, "indexed_write_dtype", "f32",
                                               "bf16", grade="correct", grade_at_freeze="correct"),
    # GIN's fixed eps kept as a plain fp32 tensor attribute, so (1 + eps) * x is fp32 into the bf16 MLP
    "gin-eps-plain-tensor-fp32": case(_gin_eps_plain_tensor, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # DiffPool assignment softmax taken with dtype=torch.float32, pooled with the bf16 node features by @
    "diffpool-fp32-assignment-matmul": case(_diffpool_assignment_softmax_fp32, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # PaiNN vector features started with torch.zeros (fp32) in a bf16 model, into the bf16 vector update Linear
    "painn-vector-features-zeros-fp32": case(_painn_vector_features_zeros, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # NNConv whose edge network alone went to bf16, fp32 node features bmm'd with the per-edge weights
    "nnconv-bf16-edge-network-bmm": case(_nnconv_edge_network_bf16, "batched_matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # TGN time encoding given int64 unix-second deltas straight into its bf16 Linear
    "tgn-time-encoding-int64-timestamps": case(_tgn_time_encoding_int64_timestamps, "integer_operand", "int64",
                                               "bf16", grade="correct", grade_at_freeze="correct"),
    # a grid graph's node positions from meshgrid of arange (int64), edge lengths by vector_norm
    "grid-graph-integer-positions-norm": case(_grid_graph_integer_coordinates, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # FastGCN-style importance sampling with bincount's int64 degrees as multinomial's weights
    "fastgcn-multinomial-int64-degrees": case(_fastgcn_sampling_by_degree, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # mean aggregation by embedding_bag over CSR offsets, fp32 1/deg weights with bf16 node features
    "embedding-bag-aggregation-fp32-edge-weights": case(_embedding_bag_aggregation_edge_weights, "op_dtype", "bf16",
                                                        "f32", grade="correct", grade_at_freeze="correct"),
    # Laplacian eigenvector positional encodings recomputed on the fly in a .half()'d pipeline
    "laplacian-pe-eigh-half": case(_laplacian_pe_eigh_half, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # PPNP's closed-form propagation: linalg.inv of a bf16 normalised adjacency
    "ppnp-closed-form-inverse-bf16": case(_ppr_closed_form_inverse_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a batch cast moves the dense adjacency to bf16, then & with the bool node-pair mask
    "dense-adjacency-bf16-and-node-mask": case(_dense_adjacency_cast_and_node_mask, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # graph transformer masking non-edges with ~adj where adj is a float dense adjacency
    "graph-transformer-invert-float-adjacency": case(_graph_transformer_invert_float_adjacency, "mask_dtype", grade="correct", grade_at_freeze="correct"),
    # a radius graph's bool adjacency with self loops removed by subtracting a bool eye
    "radius-graph-bool-minus-eye": case(_radius_graph_remove_self_loops, "mask_dtype", grade="correct", grade_at_freeze="correct"),
    # pyGAT's -9e15 non-edge fill written as masked_fill on fp16 attention logits
    "pygat-minus-9e15-masked-fill-half": case(_pygat_masked_fill_half, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # GNNAutoScale-style historical embeddings stored in fp8, concatenated with bf16 in-batch embeddings
    "historical-embeddings-fp8-cat-bf16": case(_historical_embeddings_fp8, "fp8_promotion", "bf16", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # APPNP teleport by torch.lerp from the fp32 MLP prediction to the bf16 propagated features
    "appnp-lerp-fp32-teleport": case(_appnp_teleport_lerp, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # Set2Set readout (its LSTM fp32) added after the encoder went to bf16
    "set2set-lstm-left-fp32": case(_set2set_readout_left_fp32, "rnn_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # graph transformer keys with Laplacian PE from an fp32 projection, bf16 queries and values, into SDPA
    "graph-transformer-fp32-pe-keys-sdpa": case(_graph_transformer_key_positional_encoding, "sdpa_dtype", "bf16",
                                                "f32", grade="correct", grade_at_freeze="correct"),
    # Graphormer spatial bias from an Embedding made after the cast (fp32), as a bf16 MultiheadAttention's attn_mask
    "graphormer-fp32-spatial-bias-attn-mask": case(_graphormer_spatial_bias_fp32_encoder, "attn_mask_dtype", "f32",
                                                   "bf16", grade="correct", grade_at_freeze="correct"),
    # DGCNN SortPooling pads small graphs with torch.zeros (fp32), then the bf16 Conv1d
    "dgcnn-sort-pool-zero-padding-conv1d": case(_dgcnn_sort_pool_zero_padding, "conv_weight_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # node labels with NaN for unlabelled nodes (float64 from numpy), masked and given to cross_entropy
    "node-labels-nan-f64-cross-entropy": case(_node_labels_with_nan_cross_entropy, "target_dtype", "f64",
                                              fix=("long",), grade="correct", grade_at_freeze="correct"),
    # link prediction MRR by reciprocal_ in place on the int64 ranks
    "link-prediction-mrr-reciprocal-in-place": case(_link_prediction_mrr_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # node2vec embeddings trained in bf16 handed to numpy for a scikit-learn probe
    "node2vec-bf16-embeddings-numpy": case(_node2vec_embeddings_to_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # attention-weighted neighbour sampling in fp16: exp of the logits overflows, NaN probabilities into multinomial
    "attention-neighbour-sampling-f16-exp-overflow": case(_attention_neighbour_sampling_half, "nonfinite", grade="correct", grade_at_freeze="correct"),
}
