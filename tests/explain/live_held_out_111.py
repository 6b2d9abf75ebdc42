"""Held-out live set 111: traffic and mobility forecasting with spatio-temporal graph networks written by hand in low
precision (sensor speed and flow tables as float64 from pandas, int64 road-graph edge lists and adjacency, bool
missing-value masks, time-of-day and day-of-week indices into embeddings, DCRNN/Graph WaveNet diffusion convolutions
with sparse adjacency, masked MAE/RMSE/MAPE losses, z-score scalers kept in float64, bf16 autocast around the model).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at 7c1bda1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "7c1bda1"

bf16, f16 = torch.bfloat16, torch.float16
_SENSORS = 12  # a small METR-LA-like loop-detector network
_STEPS = 12  # one hour of 5-minute readings in, one hour out
_SLOTS = 288  # 5-minute slots in a day


def _seeded() -> None:
    torch.manual_seed(0)


def _speed_table(steps: int = 2 * _STEPS) -> pd.DataFrame:
    """What pd.read_hdf("metr-la.h5") gives: float64 speeds (mph), 0.0 where the detector reported nothing."""
    rng = np.random.default_rng(0)
    index = pd.date_range("2012-03-01", periods=steps, freq="5min")
    speeds = rng.uniform(20.0, 70.0, size=(steps, _SENSORS))
    speeds[rng.random((steps, _SENSORS)) < 0.1] = 0.0
    return pd.DataFrame(speeds, index=index, columns=[f"7739{i:02d}" for i in range(_SENSORS)])


def _road_edges() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A ring road with a few shortcuts: int64 (src, dst) sensor pairs and road distances in metres (float64)."""
    src = np.concatenate([np.arange(_SENSORS), np.array([0, 3, 6])])
    dst = np.concatenate([(np.arange(_SENSORS) + 1) % _SENSORS, np.array([6, 9, 0])])
    distances = np.linspace(400.0, 2600.0, len(src))
    return src, dst, distances


def _random_walk_transition() -> np.ndarray:
    """DCRNN's D^-1 W from the Gaussian-kernel weights, as numpy computes it: float64."""
    src, dst, distances = _road_edges()
    weights = np.zeros((_SENSORS, _SENSORS))
    weights[src, dst] = np.exp(-((distances / distances.std()) ** 2))
    return weights / weights.sum(1, keepdims=True)


def _graph_wavenet_supports_list_fp32() -> None:
    _seeded()

    class GraphWaveNetNConv(nn.Module):
        def __init__(self, supports: list[torch.Tensor]) -> None:
            super().__init__()
            self.supports = supports  # a plain list, as in the reference code: not buffers
            self.mlp = nn.Conv2d(32 * (len(supports) + 1), 32, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = [x] + [torch.einsum("ncvl,vw->ncwl", x, a) for a in self.supports]
            return self.mlp(torch.cat(out, 1))

    transition = torch.from_numpy(_random_walk_transition()).float()
    model = GraphWaveNetNConv([transition, transition.T.contiguous()]).to(bf16)
    model(torch.randn(2, 32, _SENSORS, _STEPS, dtype=bf16))


def _graph_wavenet_autocast_f64_start_conv() -> None:
    _seeded()
    table = _speed_table()
    mean, std = table.values.mean(), table.values.std()  # the StandardScaler kept in float64
    x = torch.from_numpy(((table.values[:_STEPS] - mean) / std).T.copy())[None, None]  # (batch, 1, nodes, steps)
    start_conv = nn.Conv2d(1, 32, kernel_size=(1, 1))
    with torch.autocast("cpu", dtype=bf16):
        start_conv(x)


def _dcrnn_scipy_f64_transition_csr() -> None:
    _seeded()
    transition = torch.from_numpy(_random_walk_transition()).to_sparse_csr()  # scipy.sparse's float64 kept
    states = torch.randn(_SENSORS, 64)  # (nodes, batch * hidden) in fp32
    torch.sparse.mm(transition, states)


def _dcrnn_bf16_csr_transition() -> None:
    _seeded()
    transition = torch.from_numpy(_random_walk_transition()).to(bf16).to_sparse_csr()  # cast with the model
    states = torch.randn(_SENSORS, 64, dtype=bf16)
    torch.sparse.mm(transition, states)


def _agcrn_node_embeddings_fp32() -> None:
    _seeded()

    class AGCRNGraphConv(nn.Module):
        def __init__(self, node_embeddings: torch.Tensor) -> None:
            super().__init__()
            self.node_embeddings = node_embeddings  # shared with the other cells, passed in as a plain tensor
            self.weights_pool = nn.Parameter(torch.randn(10, 2, 4, 16))
            self.bias_pool = nn.Parameter(torch.zeros(10, 16))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            supports = F.softmax(F.relu(self.node_embeddings @ self.node_embeddings.T), dim=1)
            weights = torch.einsum("nd,dkio->nkio", self.node_embeddings, self.weights_pool)
            x_g = torch.stack([x, torch.einsum("nm,bmc->bnc", supports.to(x.dtype), x)], 2)
            return torch.einsum("bnki,nkio->bno", x_g, weights)

    layer = AGCRNGraphConv(torch.randn(_SENSORS, 10)).to(bf16)
    layer(torch.randn(4, _SENSORS, 4, dtype=bf16))


def _staeformer_plain_adaptive_embedding() -> None:
    _seeded()

    class STAEformerEmbedding(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.input_proj = nn.Linear(1, 24)
            self.tod_embedding = nn.Embedding(_SLOTS, 24)
            self.adaptive_embedding = torch.randn(_STEPS, _SENSORS, 80)  # meant to be nn.Parameter
            self.output = nn.Linear(128, 128)

        def forward(self, x: torch.Tensor, tod: torch.Tensor) -> torch.Tensor:
            features = [self.input_proj(x), self.tod_embedding(tod),
                        self.adaptive_embedding.expand(x.shape[0], -1, -1, -1)]
            return self.output(torch.cat(features, -1))

    model = STAEformerEmbedding().to(bf16)
    tod = torch.arange(_STEPS)[None, :, None].expand(2, _STEPS, _SENSORS)
    model(torch.randn(2, _STEPS, _SENSORS, 1, dtype=bf16), tod)


def _astgcn_spatial_attention_bmm() -> None:
    _seeded()
    x = torch.randn(2, _SENSORS, 3, _STEPS, dtype=bf16)  # (batch, nodes, features, steps) from the bf16 model
    w1 = torch.randn(_STEPS, dtype=bf16)
    w2 = torch.randn(3, _STEPS, dtype=bf16)
    w3 = torch.randn(3)  # created in forward with torch.randn, so fp32
    lhs = torch.matmul(torch.matmul(x, w1), w2)  # (batch, nodes, steps)
    rhs = (w3[:, None] * x).sum(2).transpose(-1, -2)  # (batch, steps, nodes): the product promoted to fp32
    torch.bmm(lhs, rhs).softmax(-1)


def _road_distance_bias_f64_sdpa() -> None:
    _seeded()
    src, dst, distances = _road_edges()
    hops = np.full((_SENSORS, _SENSORS), 5000.0)
    hops[src, dst] = distances
    np.fill_diagonal(hops, 0.0)
    spatial_bias = torch.from_numpy(-hops / hops.std())  # Gaussian-kernel log-weights, numpy float64
    q = torch.randn(2, 4, _SENSORS, 16, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=spatial_bias)


def _gman_transform_attention_fp32_history() -> None:
    _seeded()
    future_ste = torch.randn(2, 4, _STEPS, 16, dtype=bf16)  # queries from the bf16 future STE
    history_ste = torch.randn(2, 4, _STEPS, 16)  # keys from the cached historical STE, precomputed in fp32
    encoded = torch.randn(2, 4, _STEPS, 16, dtype=bf16)
    F.scaled_dot_product_attention(future_ste, history_ste, encoded)


def _fc_lstm_pandas_f64_window() -> None:
    _seeded()
    encoder = nn.LSTM(_SENSORS, 64, batch_first=True).to(bf16)
    window = torch.tensor(_speed_table().values[:_STEPS] / 70.0)[None]  # float64 from the DataFrame
    encoder(window)


def _stgcn_output_layer_norm_bf16() -> None:
    _seeded()
    temporal_conv = nn.Conv2d(1, 16, kernel_size=(3, 1))  # the first ST-block, left fp32
    output_norm = nn.LayerNorm([_SENSORS, 16]).to(bf16)  # the output block, cast on its own
    hidden = temporal_conv(torch.randn(2, 1, _STEPS, _SENSORS)).permute(0, 2, 3, 1)
    output_norm(hidden)


def _imputation_bf16_into_f64_table() -> None:
    _seeded()
    table = torch.from_numpy(_speed_table().values.copy())  # float64 speeds
    missing = table == 0.0
    with torch.autocast("cpu", dtype=bf16):
        imputed = nn.Linear(_SENSORS, _SENSORS)(table.float())
    table[missing] = imputed[missing]


def _od_demand_bilinear() -> None:
    _seeded()
    zones = nn.Embedding(20, 32).to(bf16)  # the zone encoder runs bf16
    od_head = nn.Bilinear(32, 32, 1)  # the origin-destination head added later, left fp32
    origins, destinations = torch.tensor([0, 4, 7]), torch.tensor([3, 4, 19])
    od_head(zones(origins), zones(destinations))


def _federated_sensor_clients_f64_grad() -> None:
    _seeded()
    model = nn.Linear(_STEPS, _STEPS)
    client_grads = [np.random.default_rng(k).normal(size=(_STEPS, _STEPS)) for k in range(3)]  # from each district
    model.weight.grad = torch.from_numpy(np.mean(client_grads, axis=0))


def _stgcn_half_grad_scaler() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(_STEPS, 32), nn.ReLU(), nn.Linear(32, _STEPS)).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    pred = model(torch.randn(_SENSORS, _STEPS, dtype=f16))
    loss = (pred.float() - torch.randn(_SENSORS, _STEPS)).abs().mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    scaler.step(optimizer)


def _temporal_transformer_missing_steps() -> None:
    _seeded()
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    temporal = nn.TransformerEncoder(layer, 2).eval()
    missing_steps = torch.zeros(_SENSORS, _STEPS, dtype=torch.bool)
    missing_steps[:3, -2:] = True  # the last two readings of three detectors never arrived
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        temporal(torch.randn(_SENSORS, _STEPS, 16), src_key_padding_mask=missing_steps)


def _chebyshev_lambda_max_bf16() -> None:
    _seeded()
    transition = torch.from_numpy(_random_walk_transition()).to(bf16)  # the model's dtype
    adjacency = (transition + transition.T) / 2
    laplacian = torch.diag(adjacency.sum(1)) - adjacency
    lambda_max = torch.linalg.eigvalsh(laplacian)[-1]
    2 * laplacian / lambda_max - torch.eye(_SENSORS, dtype=bf16)


def _flow_poisson_noise_int64() -> None:
    _seeded()
    flow = torch.from_numpy(np.array([[312, 287, 401], [95, 120, 88]]))  # vehicles per 5 minutes, int64
    torch.poisson(flow)


def _last_observed_step_argmax_bool() -> None:
    observed = torch.from_numpy(_speed_table().values[:_STEPS].T != 0.0)  # (nodes, steps) bool
    steps_flipped = observed.flip(-1)
    _STEPS - 1 - steps_flipped.argmax(-1)


def _sparse_edge_attention_softmax_bf16() -> None:
    _seeded()
    src, dst, _ = _road_edges()
    scores = torch.randn(len(src), dtype=bf16)  # bf16 edge scores from the attention MLP
    edge_index = torch.from_numpy(np.stack([src, dst]))
    scores_sparse = torch.sparse_coo_tensor(edge_index, scores, (_SENSORS, _SENSORS))
    torch.sparse.softmax(scores_sparse, dim=1)


def _tod_fraction_f64_embedding() -> None:
    _seeded()
    index = _speed_table().index
    tod = (index.values - index.values.astype("datetime64[D]")) / np.timedelta64(1, "D")  # float64 in [0, 1)
    tod_embedding = nn.Embedding(_SLOTS, 16)
    tod_embedding(torch.from_numpy(tod * _SLOTS))


def _dow_uint8_embedding() -> None:
    _seeded()
    dow = _speed_table().index.dayofweek.values.astype(np.uint8)  # cached as uint8 in the npz "to save space"
    dow_embedding = nn.Embedding(7, 16)
    dow_embedding(torch.from_numpy(dow))


def _masked_mae_bool_mask_mean() -> None:
    _seeded()
    labels = torch.from_numpy(_speed_table().values[_STEPS:]).float()
    preds = torch.rand_like(labels) * 70.0
    mask = labels != 0.0
    mask = mask / mask.mean()
    ((preds - labels).abs() * mask).mean()


def _masked_rmse_invert_float_mask() -> None:
    _seeded()
    labels = torch.from_numpy(_speed_table().values[_STEPS:]).float()
    preds = torch.rand_like(labels) * 70.0
    valid = (labels != 0.0).float()  # kept float to weight the loss
    squared = (preds - labels) ** 2
    squared.masked_fill(~valid, 0.0).sum().div(valid.sum()).sqrt()


def _masked_mape_where_int64_mask() -> None:
    _seeded()
    table = _speed_table()
    null_mask = torch.from_numpy(table.iloc[_STEPS:].eq(0.0).astype(int).values)  # int64 0/1 from pandas
    labels = torch.from_numpy(table.values[_STEPS:]).float()
    preds = torch.rand_like(labels) * 70.0
    ape = torch.where(null_mask, torch.zeros_like(labels), (preds - labels).abs() / labels)
    ape.mean()


def _zscore_in_place_int64_flow() -> None:
    flow = torch.from_numpy(np.array([[312, 287, 401], [95, 120, 88]]))  # PeMS counts, int64
    mean = torch.tensor(217.0, dtype=torch.float64)  # the scaler's statistics, float64
    std = torch.tensor(128.0, dtype=torch.float64)
    flow.sub_(mean).div_(std)


def _congestion_class_f64_target() -> None:
    _seeded()
    levels = pd.Series([0, 2, 1, np.nan, 2]).fillna(0)  # a NaN in the column made it float64
    logits = torch.randn(5, 3)
    F.cross_entropy(logits, torch.from_numpy(levels.values))


def _tod_seconds_linspace_fp16() -> None:
    _seeded()
    speeds = torch.randn(_SLOTS, _SENSORS, dtype=f16)
    seconds = torch.linspace(0, 86400, _SLOTS, dtype=speeds.dtype)  # seconds since midnight, in the data's dtype
    torch.sin(2 * torch.pi * seconds / 86400)


def _bf16_forecast_into_dataframe() -> None:
    _seeded()
    table = _speed_table()
    with torch.autocast("cpu", dtype=bf16):
        forecast = nn.Linear(_STEPS, _STEPS)(torch.randn(_SENSORS, _STEPS))
    pd.DataFrame(forecast.detach().T, columns=table.columns)


def _dead_sensor_zero_std_normal() -> None:
    table = _speed_table().copy()
    table.iloc[:, 5] = 65.0  # a detector stuck at 65 mph
    history = torch.from_numpy(table.values).float()
    mean, std = history.mean(0), history.std(0)
    z = (history - mean) / std
    loc = z[-1] * 0.9
    torch.distributions.Normal(loc, torch.ones_like(loc))


CASES: dict[str, LiveCase] = {
    # Graph WaveNet's supports kept in a plain Python list (fp32) when the model goes bf16, einsum in nconv
    "graph-wavenet-supports-list-fp32-einsum-bf16": case(_graph_wavenet_supports_list_fp32, "matmul_dtype", "f32",
                                                         "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Graph WaveNet's start conv under bf16 autocast given the float64 z-scored speeds (autocast leaves float64)
    "graph-wavenet-autocast-f64-zscore-start-conv": case(_graph_wavenet_autocast_f64_start_conv, "conv_weight_dtype",
                                                         "f64", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (7c1bda1) castwise gave conv_bias_dtype [f64, bf16] (high confidence). torch's message names "
             "only the bias, but bf16 autocast cast both the conv's weight and its bias to bf16 and left the float64 "
             "z-scored input alone (the scaler kept in float64), so the weight differs from the input as much as the "
             "bias; by the corpus's convention a convolution whose weight and bias both differ from its input is "
             "conv_weight_dtype")),
    # DCRNN diffusion step: scipy's float64 random-walk matrix as CSR times the fp32 hidden states
    "dcrnn-scipy-f64-random-walk-csr-sparse-mm": case(_dcrnn_scipy_f64_transition_csr, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # DCRNN diffusion step with the CSR transition matrix cast to bf16 with the model
    "dcrnn-bf16-csr-transition-sparse-mm": case(_dcrnn_bf16_csr_transition, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # AGCRN node embeddings passed in as a plain fp32 tensor, einsum'd with the bf16 weights pool
    "agcrn-fp32-node-embeddings-weights-pool-einsum": case(_agcrn_node_embeddings_fp32, "matmul_dtype", "f32",
                                                           "bf16",
        grade="correct", grade_at_freeze="correct"),
    # STAEformer's adaptive embedding a plain tensor: torch.cat promotes the features to fp32 before the bf16 Linear
    "staeformer-plain-adaptive-embedding-cat-fp32": case(_staeformer_plain_adaptive_embedding, "matmul_dtype", "f32",
                                                         "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ASTGCN spatial attention: a W3 made by torch.randn in forward (fp32), bmm of bf16 and fp32 products
    "astgcn-spatial-attention-bmm-fp32-w3": case(_astgcn_spatial_attention_bmm, "batched_matmul_dtype", "bf16",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # road-distance Gaussian-kernel bias from numpy (float64) as SDPA's attn_mask for bf16 spatial attention
    "road-distance-bias-f64-sdpa-attn-mask": case(_road_distance_bias_f64_sdpa, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GMAN transform attention: bf16 future queries, keys from a historical STE cached in fp32
    "gman-transform-attention-fp32-history-keys": case(_gman_transform_attention_fp32_history, "sdpa_dtype", "bf16",
                                                       "f32",
        grade="correct", grade_at_freeze="correct"),
    # FC-LSTM baseline cast to bf16, given a float64 speed window straight from the DataFrame
    "fc-lstm-bf16-pandas-f64-window": case(_fc_lstm_pandas_f64_window, "rnn_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # STGCN output block's LayerNorm cast to bf16 on its own, fed the fp32 ST-block features
    "stgcn-output-layernorm-bf16-fp32-features": case(_stgcn_output_layer_norm_bf16, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # missing speeds imputed: bf16 autocast predictions written into the float64 speed table by a bool mask
    "imputation-bf16-predictions-into-f64-speed-table": case(_imputation_bf16_into_f64_table, "indexed_write_dtype",
                                                             "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # origin-destination demand: bf16 zone embeddings into an fp32 nn.Bilinear head
    "od-demand-bilinear-fp32-head-bf16-zones": case(_od_demand_bilinear, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # federated traffic forecasting: the districts' gradients averaged in numpy (float64) assigned to .grad
    "federated-districts-numpy-f64-averaged-grad": case(_federated_sensor_clients_f64_grad, "loss_dtype", "f64",
                                                        "f32",
        grade="correct", grade_at_freeze="correct"),
    # a forecaster .half()'d entirely, trained with GradScaler and unscale_ before clipping
    "half-forecaster-grad-scaler-unscale": case(_stgcn_half_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a temporal transformer in eval under bf16 autocast with a padding mask for missing readings
    "temporal-transformer-eval-autocast-missing-steps": case(_temporal_transformer_missing_steps,
                                                             "transformer_fastpath", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ChebNet's lambda_max by eigvalsh of the road Laplacian in the model's bf16
    "chebnet-lambda-max-eigvalsh-bf16-laplacian": case(_chebyshev_lambda_max_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # data augmentation: Poisson resampling of the int64 loop-detector counts
    "flow-counts-poisson-resample-int64": case(_flow_poisson_noise_int64, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the last observed step per detector by argmax over the flipped bool observed mask
    "last-observed-step-argmax-bool-mask": case(_last_observed_step_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # edge attention normalised with torch.sparse.softmax over bf16 scores on the road graph
    "road-edge-attention-sparse-softmax-bf16": case(_sparse_edge_attention_softmax_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # time-of-day as a float64 day fraction times 288 looked up in the time-of-day Embedding
    "time-of-day-f64-fraction-embedding": case(_tod_fraction_f64_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # day-of-week cached as uint8 and looked up in the day-of-week Embedding
    "day-of-week-uint8-embedding": case(_dow_uint8_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # masked MAE: the bool null mask normalised by its own mean
    "masked-mae-bool-mask-divided-by-mean": case(_masked_mae_bool_mask_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # masked RMSE: a float 0/1 valid mask inverted with ~ for masked_fill
    "masked-rmse-invert-float-valid-mask": case(_masked_rmse_invert_float_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # masked MAPE: an int64 0/1 null mask from pandas as torch.where's condition
    "masked-mape-where-int64-null-mask": case(_masked_mape_where_int64_mask, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 PeMS flow counts z-scored in place with the float64 scaler statistics
    "zscore-in-place-int64-flow-counts": case(_zscore_in_place_int64_flow, "result_cast", "f64", "int64",
        grade="correct", grade_at_freeze="correct"),
    # congestion-level classifier trained on a level column that a NaN made float64
    "congestion-level-f64-target-cross-entropy": case(_congestion_class_f64_target, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # seconds since midnight made by linspace in the fp16 data's dtype
    "seconds-since-midnight-linspace-fp16": case(_tod_seconds_linspace_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 autocast forecast handed to pd.DataFrame for the per-sensor report
    "bf16-forecast-into-pandas-dataframe": case(_bf16_forecast_into_dataframe, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a detector stuck at one speed: zero std in the z-score, NaN loc into a Normal forecast head
    "stuck-detector-zero-std-normal-nan": case(_dead_sensor_zero_std_normal, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
