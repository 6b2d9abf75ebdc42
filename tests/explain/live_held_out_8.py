"""Held-out live set 8: scientific, graph and tabular ML in low precision (graph networks, physics-informed and neural
ODE models, Gaussian processes, recommenders, tabular and time-series models, reinforcement learning). Defects planted
by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at e4b0263."""

from __future__ import annotations

import zlib

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e4b0263"

bf16, f16 = torch.bfloat16, torch.float16

# a small graph: 5 nodes, directed edges (src -> dst) listed in both directions, node 4 isolated
_EDGES = torch.tensor([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
_NODES = 5


# --- graph neural networks -------------------------------------------------------------------------------------------

def _gcn_degree_pow_in_place() -> None:
    src, dst = _EDGES
    deg = torch.bincount(dst, minlength=_NODES) + 1  # self loops
    deg.pow_(-0.5)  # D^-1/2 computed in place on the integer degrees
    deg[src] * deg[dst]


def _pyg_style_degree_scatter_add() -> None:
    _, dst = _EDGES
    deg = torch.zeros(_NODES, dtype=torch.long)
    deg.scatter_add_(0, dst, torch.ones(dst.numel()))  # counting edges per node with float ones


def _gcn_sparse_adjacency_fp32() -> None:
    src, dst = _EDGES
    deg = torch.bincount(dst, minlength=_NODES).float().clamp(min=1)
    values = deg[src].rsqrt() * deg[dst].rsqrt()
    adjacency = torch.sparse_coo_tensor(torch.stack([dst, src]), values, (_NODES, _NODES)).coalesce()  # once, fp32
    model = nn.Linear(8, 8).to(bf16)
    h = model(torch.randn(_NODES, 8).to(bf16))
    torch.sparse.mm(adjacency, h)


class _EdgeConv(nn.Module):
    def __init__(self, node_dim: int, edge_dim: int) -> None:
        super().__init__()
        self.message = nn.Sequential(nn.Linear(2 * node_dim + edge_dim, node_dim), nn.SiLU())

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, edge_attr: torch.Tensor) -> torch.Tensor:
        src, dst = edge_index
        m = self.message(torch.cat([x[dst], x[src], edge_attr], dim=-1))
        return torch.zeros_like(x).index_add_(0, dst, m)


def _mpnn_edge_attr_fp32() -> None:
    conv = _EdgeConv(8, 3).to(bf16)
    x = torch.randn(_NODES, 8).to(bf16)
    edge_attr = torch.rand(_EDGES.shape[1], 3)  # bond lengths from the dataset, fp32
    conv(x, _EDGES, edge_attr)


def _graph_transformer_uint8_adjacency() -> None:
    adjacency = np.zeros((_NODES, _NODES), dtype=np.uint8)
    adjacency[_EDGES[0].numpy(), _EDGES[1].numpy()] = 1
    adjacency[np.arange(_NODES), np.arange(_NODES)] = 1
    mask = torch.from_numpy(adjacency)
    qkv = nn.Linear(16, 48).to(bf16)
    q, k, v = qkv(torch.randn(1, _NODES, 16).to(bf16)).view(1, _NODES, 3, 2, 8).permute(2, 0, 3, 1, 4)
    F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def _spectral_laplacian_integer() -> None:
    adjacency = torch.zeros(_NODES, _NODES, dtype=torch.long)
    adjacency[_EDGES[0], _EDGES[1]] = 1
    laplacian = torch.diag(adjacency.sum(1)) - adjacency
    torch.linalg.eigh(laplacian)  # Laplacian eigenvector positional encodings


def _gcn_isolated_node_inf_degree() -> None:
    torch.manual_seed(0)
    src, dst = _EDGES  # node 4 has no edge and no self loop was added
    deg = torch.zeros(_NODES).index_add_(0, dst, torch.ones(dst.numel()))
    deg_inv_sqrt = deg.pow(-0.5)
    lin = nn.Linear(4, 2)
    with torch.autograd.detect_anomaly():
        h = lin(torch.randn(_NODES, 4)) * deg_inv_sqrt[:, None]
        out = torch.zeros(_NODES, 2).index_add_(0, dst, h[src]) * deg_inv_sqrt[:, None]
        out.pow(2).mean().backward()


def _link_prediction_labels_from_edge_index() -> None:
    torch.manual_seed(0)
    emb = nn.Embedding(_NODES, 8)
    pos = _EDGES
    neg = torch.randint(0, _NODES, pos.shape)
    edges = torch.cat([pos, neg], dim=1)
    labels = torch.cat([pos.new_ones(pos.shape[1]), pos.new_zeros(neg.shape[1])])  # new_* keeps edge_index's int64
    scores = (emb(edges[0]) * emb(edges[1])).sum(-1)
    F.binary_cross_entropy_with_logits(scores, labels)


# --- physics-informed and neural ODE models --------------------------------------------------------------------------

def _neural_ode_time_f64() -> None:
    func = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2)).to(bf16)
    t_grid = torch.linspace(0, 1, 11, dtype=torch.float64)  # the solver's time grid in float64
    y = torch.randn(4, 2).to(bf16)
    dt = t_grid[1] - t_grid[0]
    for t in t_grid[:-1]:
        k = func(torch.cat([y, t.expand(4, 1)], dim=-1))
        y = y + dt * k


def _pinn_collocation_arange() -> None:
    net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
    x = torch.arange(0, 100)[:, None].requires_grad_()  # collocation points on an integer grid
    u = net(x)
    torch.autograd.grad(u.sum(), x, create_graph=True)


def _finite_difference_stencil_numpy() -> None:
    u = torch.randn(1, 1, 64)  # a 1-D heat field on a grid, fp32
    dx = 1.0 / 63
    stencil = torch.from_numpy(np.array([1.0, -2.0, 1.0]) / dx**2).view(1, 1, 3)  # numpy's float64
    F.conv1d(u, stencil, padding=1)


# --- Gaussian processes ----------------------------------------------------------------------------------------------

def _rbf(a: torch.Tensor, b: torch.Tensor, lengthscale: float = 0.5) -> torch.Tensor:
    return torch.exp(-0.5 * torch.cdist(a, b).pow(2) / lengthscale**2)


def _gp_jitter_f64() -> None:
    torch.manual_seed(0)
    x, y = torch.rand(6, 1), torch.randn(6, 1)
    jitter = 1e-6 * torch.eye(6, dtype=torch.float64)  # jitter in float64 "for stability"
    chol = torch.linalg.cholesky(_rbf(x, x) + jitter)
    torch.cholesky_solve(y, chol)


class _ExactGP(nn.Module):
    x: torch.Tensor
    chol: torch.Tensor
    y: torch.Tensor

    def __init__(self, x: torch.Tensor, y: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("x", x)
        self.register_buffer("chol", torch.linalg.cholesky(_rbf(x, x) + 1e-4 * torch.eye(x.shape[0])))
        self.register_buffer("y", y)

    def forward(self, x_new: torch.Tensor) -> torch.Tensor:
        alpha = torch.linalg.solve_triangular(self.chol, self.y, upper=False)
        return _rbf(x_new, self.x).matmul(torch.linalg.solve_triangular(self.chol.mT, alpha, upper=True))


def _gp_cached_cholesky_bf16() -> None:
    torch.manual_seed(0)
    gp = _ExactGP(torch.rand(6, 1), torch.randn(6, 1)).to(bf16)  # the whole model cast for serving
    with torch.no_grad():
        gp(torch.rand(3, 1).to(bf16))


def _sparse_gp_inducing_points() -> None:
    torch.manual_seed(0)
    feature_net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(bf16)
    inducing = nn.Parameter(torch.randn(5, 2))  # inducing points kept fp32 outside the cast feature net
    features = feature_net(torch.randn(10, 4).to(bf16))
    torch.cdist(inducing, features)  # K_uf


# --- recommender systems ---------------------------------------------------------------------------------------------

def _two_tower_bmm_score() -> None:
    torch.manual_seed(0)
    user_tower = nn.Embedding(10, 8).to(bf16)
    item_tower = nn.Embedding(20, 8)  # the item tower was left in fp32
    users, items = torch.randint(0, 10, (4,)), torch.randint(0, 20, (4, 5))
    u = user_tower(users)[:, None, :]
    torch.bmm(u, item_tower(items).transpose(1, 2))


def _dlrm_fp8_embedding_tables() -> None:
    torch.manual_seed(0)
    tables = [torch.randn(20, 8).to(torch.float8_e4m3fn) for _ in range(2)]  # tables stored in fp8 to save memory
    bottom_mlp = nn.Linear(4, 8).to(bf16)
    dense = bottom_mlp(torch.randn(3, 4).to(bf16))
    ids = torch.randint(0, 20, (2, 3))
    sparse = [table[idx] for table, idx in zip(tables, ids)]
    dense + sparse[0] + sparse[1]


class _SASRecBlock(nn.Module):
    def __init__(self, n_items: int, dim: int) -> None:
        super().__init__()
        self.items = nn.Embedding(n_items, dim)
        self.qkv = nn.Linear(dim, 3 * dim)


def _sasrec_position_fp32_query() -> None:
    torch.manual_seed(0)
    block = _SASRecBlock(50, 8).to(bf16)
    block.positions = nn.Embedding(6, 8)  # learned positions added after the cast
    seq = torch.randint(0, 50, (2, 6))
    h = block.items(seq)
    q, k, v = block.qkv(h).chunk(3, dim=-1)
    q = q + block.positions(torch.arange(6))  # positions only on the queries
    F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None], is_causal=True)


def _feature_hash_int32() -> None:
    user_agents = ["Mozilla/5.0", "curl/8.4", "okhttp/4.9", "python-requests/2.31"]
    hashed = [zlib.crc32(ua.encode()) for ua in user_agents]
    torch.tensor(hashed, dtype=torch.int32) % 1000  # 32-bit hashes stored in int32 to halve the memory


# --- tabular models --------------------------------------------------------------------------------------------------

def _pandas_category_codes_target() -> None:
    codes = np.array([0, 2, 1, 2], dtype=np.int8)  # what pandas' Series.cat.codes gives for a 3-level target
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    F.cross_entropy(model(torch.randn(4, 6)), torch.from_numpy(codes))


def _high_cardinality_codes_int16() -> None:
    codes = np.array([[17, 240], [3, 999], [512, 7]], dtype=np.int16)  # pandas codes for a 1000-level column
    embeddings = nn.ModuleList([nn.Embedding(1000, 4) for _ in range(2)])
    x = torch.from_numpy(codes)
    torch.cat([emb(x[:, i]) for i, emb in enumerate(embeddings)], dim=-1)


class _NumericTokenizer(nn.Module):
    def __init__(self, n_features: int, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_features, dim))
        self.bias = nn.Parameter(torch.zeros(n_features, dim))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x[..., None] * self.weight + self.bias)


def _ft_transformer_numeric_f64() -> None:
    tokenizer = _NumericTokenizer(3, 8).to(bf16)
    frame_values = np.array([[1.5, 20.0, 0.3], [2.5, 31.0, 0.1]])  # df[numeric_cols].values: float64
    tokenizer(torch.from_numpy(frame_values))


def _imputation_medians_f64() -> None:
    raw = np.array([[1.0, np.nan], [np.nan, 4.0], [3.0, 5.0]])
    medians = np.nanmedian(raw, axis=0)
    x = torch.from_numpy(raw).half()  # features kept in fp16
    missing = torch.isnan(x)
    x[missing] = torch.from_numpy(medians).expand_as(x)[missing]


def _target_encoding_take_int32() -> None:
    codes = torch.from_numpy(np.array([0, 3, 2, 3], dtype=np.int32))
    category_means = torch.tensor([0.2, 0.5, 0.1, 0.9])  # mean target per category, from the training fold
    torch.take(category_means, codes)


# --- time series -----------------------------------------------------------------------------------------------------

def _elman_rnn_f64_windows() -> None:
    series = np.sin(np.linspace(0, 20, 200))  # float64
    windows = np.lib.stride_tricks.sliding_window_view(series, 24)[::8]
    x = torch.from_numpy(windows.copy())[..., None]
    rnn = nn.RNN(1, 16, batch_first=True)
    rnn(x)


def _tcn_integer_counts() -> None:
    counts = torch.from_numpy(np.array([[3, 0, 5, 2, 8, 1, 0, 4]], dtype=np.int32))[:, None]  # daily sales counts
    tcn = nn.Sequential(nn.ConstantPad1d((2, 0), 0), nn.Conv1d(1, 4, 3))
    tcn(counts)


def _tcn_bias_reinit_after_cast() -> None:
    conv = nn.Conv1d(2, 4, 3, dilation=2)
    tcn = nn.Sequential(nn.ConstantPad1d((4, 0), 0.0), conv, nn.ReLU()).to(bf16)
    conv.bias = nn.Parameter(torch.zeros(4))  # bias re-initialised to zero after the cast
    tcn(torch.randn(1, 2, 16).to(bf16))


# --- reinforcement learning ------------------------------------------------------------------------------------------

class _ReplayBuffer:
    def __init__(self, capacity: int, obs_dim: int) -> None:
        self.obs = np.zeros((capacity, obs_dim), dtype=np.float32)
        self.actions = np.zeros((capacity, 1))  # np.zeros' default float64
        self.rewards = np.zeros(capacity)
        self.size = 0

    def add(self, obs: np.ndarray, action: int, reward: float) -> None:
        self.obs[self.size], self.actions[self.size], self.rewards[self.size] = obs, action, reward
        self.size += 1


def _dqn_replay_actions_f64() -> None:
    rng = np.random.default_rng(0)
    buffer = _ReplayBuffer(8, 4)
    for _ in range(8):
        buffer.add(rng.standard_normal(4), int(rng.integers(0, 2)), 1.0)
    q_net = nn.Linear(4, 2)
    q = q_net(torch.from_numpy(buffer.obs))
    q.gather(1, torch.from_numpy(buffer.actions))


def _world_model_one_hot_actions() -> None:
    torch.manual_seed(0)
    dynamics = nn.Linear(3, 4).to(bf16)
    actions = torch.randint(0, 3, (5,))
    dynamics(F.one_hot(actions, 3))


def _a3c_shared_gradients() -> None:
    shared = nn.Linear(4, 2)  # the global model, fp32
    local = nn.Linear(4, 2).to(bf16)  # a worker's copy in bf16
    local.load_state_dict(shared.state_dict())
    local(torch.randn(3, 4).to(bf16)).pow(2).mean().backward()
    for shared_param, local_param in zip(shared.parameters(), local.parameters()):
        shared_param._grad = local_param.grad


def _ppo_scaler_step_per_minibatch() -> None:
    torch.manual_seed(0)
    policy = nn.Linear(4, 2)
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cpu")
    obs, advantages = torch.randn(8, 4), torch.randn(8)
    for minibatch in obs.split(4):
        with torch.autocast("cpu", dtype=bf16):
            loss = -(policy(minibatch).log_softmax(-1)[:, 0] * advantages[:4]).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        optimizer.zero_grad()
    scaler.update()  # only once per PPO epoch


def _polyak_foreach_lerp() -> None:
    online = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    target = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    target.load_state_dict(online.state_dict())
    online.to(bf16)  # the learner switched to bf16, the target network kept fp32
    with torch.no_grad():
        torch._foreach_lerp_(list(target.parameters()), list(online.parameters()), 0.005)


def _nstep_returns_conv1d() -> None:
    rewards = torch.from_numpy(np.array([0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0]))  # from the env: float64
    gamma, n = 0.99, 3
    discounts = gamma ** torch.arange(n, dtype=torch.float32)
    F.conv1d(F.pad(rewards, (0, n - 1))[None, None], discounts.view(1, 1, n))


def _sac_bf16_actions_to_env() -> None:
    torch.manual_seed(0)
    actor = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2)).to(bf16)
    obs = torch.from_numpy(np.array([[0.1, -0.2, 0.3]], dtype=np.float32)).to(bf16)
    with torch.no_grad():
        action = torch.tanh(actor(obs))
    np.clip(action.squeeze(0).numpy(), -1.0, 1.0)  # handed to env.step


def _per_priorities_fp16() -> None:
    td_errors = torch.tensor([0.5, 2.0, 80000.0, 1.0])  # one transition with a huge TD error
    priorities = (td_errors.abs() + 1e-6).half() ** 0.6  # priorities stored in fp16
    torch.multinomial(priorities, 2, replacement=True)


CASES: dict[str, LiveCase] = {
    # GCN normalisation D^-1/2 computed in place on the int64 degrees from bincount
    "gcn-degree-pow-in-place": case(_gcn_degree_pow_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # node degrees counted into an int64 buffer by scatter_add_ of float ones
    "degree-scatter-add-float-ones": case(_pyg_style_degree_scatter_add, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a normalised sparse adjacency built once in fp32, multiplied with a bf16 model's node features
    "gcn-sparse-adjacency-fp32-bf16-features": case(_gcn_sparse_adjacency_fp32, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an edge network in bf16 whose messages concatenate fp32 edge features from the dataset
    "mpnn-edge-attr-fp32": case(_mpnn_edge_attr_fp32, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a graph transformer given a uint8 adjacency matrix from numpy as SDPA's mask
    "graph-transformer-uint8-adjacency-mask": case(_graph_transformer_uint8_adjacency, "mask_dtype", "uint8",
        fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # Laplacian positional encodings: eigh on a Laplacian built from an int64 adjacency
    "laplacian-eigh-int-adjacency": case(_spectral_laplacian_integer, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a GCN without self loops: an isolated node's degree 0 gives inf, NaN in backward under anomaly mode
    "gcn-isolated-node-inf-degree": case(_gcn_isolated_node_inf_degree, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # link prediction labels made with edge_index.new_ones / new_zeros, so int64
    "link-prediction-labels-new-ones": case(_link_prediction_labels_from_edge_index, "target_dtype", "int64",
        fix=("float",), grade="correct", grade_at_freeze="correct"),
    # a neural ODE in bf16 given the float64 solver time concatenated to its state
    "neural-ode-time-f64-concat": case(_neural_ode_time_f64, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PINN collocation points from an integer arange marked requires_grad
    "pinn-collocation-arange-requires-grad": case(_pinn_collocation_arange, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # a finite-difference stencil from numpy (float64) convolved with an fp32 field
    "fd-stencil-numpy-f64-conv1d": case(_finite_difference_stencil_numpy, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # GP: float64 jitter promotes the Cholesky factor, then cholesky_solve with fp32 targets
    "gp-jitter-f64-cholesky-solve": case(_gp_jitter_f64, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="wrong",
        why=(
            "At freeze (e4b0263) castwise gave scalar_type [f32, f64] (low confidence). It named both dtypes and "
            "the float64 culprit but read cholesky_solve's own same-dtype check on b and A as a generic 'one "
            "dtype expected' error, not as the op's dtype error from a factor promoted to float64 by the jitter.")),
    # an exact GP cast to bf16 for serving: triangular solve with its cached Cholesky factor
    "gp-cached-cholesky-bf16-solve": case(_gp_cached_cholesky_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # deep-kernel sparse GP: fp32 inducing points against bf16 features in cdist
    "sparse-gp-inducing-points-cdist": case(_sparse_gp_inducing_points, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why=(
            "At freeze (e4b0263) castwise gave scalar_type [f32, bf16] (low confidence). It read cdist's "
            "'expected scalar type Float but found BFloat16' as the generic expected-scalar-type error without "
            "tying it to cdist, an op whose two operands must share a dtype.")),
    # two-tower recommender: bf16 user tower, item tower left fp32, scored by bmm
    "two-tower-bmm-fp32-item-tower": case(_two_tower_bmm_score, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DLRM embedding tables stored in fp8, looked up and summed with the bf16 dense features
    "dlrm-fp8-tables-plus-bf16-dense": case(_dlrm_fp8_embedding_tables, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SASRec: fp32 position embeddings added after the cast, to the queries only
    "sasrec-fp32-positions-on-queries": case(_sasrec_position_fp32_query, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # 32-bit feature hashes put into an int32 tensor
    "feature-hash-int32-overflow": case(_feature_hash_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # a tabular classifier's target from pandas category codes (int8)
    "pandas-category-codes-int8-target": case(_pandas_category_codes_target, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # categorical embeddings looked up with pandas' int16 codes of a high-cardinality column
    "category-codes-int16-embedding": case(_high_cardinality_codes_int16, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # FT-Transformer numeric tokenizer in bf16 fed the DataFrame's float64 values
    "ft-transformer-numeric-f64": case(_ft_transformer_numeric_f64, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # missing values imputed with float64 medians into fp16 features by boolean indexing
    "imputation-f64-medians-into-f16": case(_imputation_medians_f64, "indexed_write_dtype", "f16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # target encoding looked up with torch.take and int32 category codes
    "target-encoding-take-int32-codes": case(_target_encoding_take_int32, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="not_recognised",
        why=(
            "At freeze (e4b0263) castwise gave nothing. take()'s own index check, 'Expected a long tensor for "
            "index, but got Int', is not among the index-dtype errors it reads.")),
    # sliding windows of a float64 numpy series fed to an fp32 RNN
    "rnn-numpy-f64-windows": case(_elman_rnn_f64_windows, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a causal TCN given integer sales counts
    "tcn-int32-sales-counts": case(_tcn_integer_counts, "integer_operand", "int32", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 TCN whose conv bias was re-initialised as an fp32 parameter after the cast
    "tcn-bias-reinit-after-cast": case(_tcn_bias_reinit_after_cast, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DQN: actions stored in a float64 numpy replay buffer used as gather's index
    "dqn-replay-actions-f64-gather": case(_dqn_replay_actions_f64, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 world model fed one-hot (int64) actions
    "world-model-one-hot-actions": case(_world_model_one_hot_actions, "integer_operand", "int64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # A3C: a bf16 worker's gradients assigned to the fp32 shared model's parameters
    "a3c-bf16-worker-grads-to-shared": case(_a3c_shared_gradients, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # PPO with GradScaler: step() per minibatch, update() once per epoch
    "ppo-scaler-step-per-minibatch": case(_ppo_scaler_step_per_minibatch, "loss_scale", fix=("update",),
        grade="correct", grade_at_freeze="not_recognised",
        why=(
            "At freeze (e4b0263) castwise gave nothing. GradScaler's 'step() has already been called since the "
            "last update()', from stepping each minibatch but updating once per epoch, is not read.")),
    # Polyak target update with _foreach_lerp_: fp32 target network, bf16 online network
    "polyak-foreach-lerp-bf16-online": case(_polyak_foreach_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # n-step returns by conv1d of float64 env rewards with an fp32 discount kernel
    "nstep-returns-conv1d-f64-rewards": case(_nstep_returns_conv1d, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SAC: a bf16 actor's action turned into numpy for env.step
    "sac-bf16-action-numpy": case(_sac_bf16_actions_to_env, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # prioritized replay: fp16 priorities overflow to inf and multinomial refuses them
    "per-fp16-priorities-overflow": case(_per_priorities_fp16, "nonfinite",
        grade="correct", grade_at_freeze="not_recognised",
        why=(
            "At freeze (e4b0263) castwise gave nothing. multinomial's replacement=True wording, 'invalid "
            "multinomial distribution (encountering probability entry = infinity or NaN)', from fp16 priorities "
            "overflowing to inf, is not read as a non-finite input.")),
}
