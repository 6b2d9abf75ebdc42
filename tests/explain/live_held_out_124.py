"""Held-out live set 124: tabular deep learning written by hand in low precision (pandas DataFrames with float64
numeric columns and int64 or categorical codes, nn.Embedding for categorical columns, FT-Transformer, TabTransformer,
TabNet, NODE, TabM and AutoInt style layers, bool missing-value masks, quantile and standard scalers in numpy
float64, sklearn-style class weights as float64, bf16 autocast MLPs, ranking losses with int64 group ids). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
c3efaec."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c3efaec"

bf16, f16 = torch.bfloat16, torch.float16
_NUMERIC = ["income", "balance", "age", "tenure"]
_CATEGORICAL = ["city", "plan"]


def _seeded() -> None:
    torch.manual_seed(0)


def _frame(rows: int = 12) -> pd.DataFrame:
    """A customer table as pd.read_csv gives it: float64 money columns (one with a hole), int64 counts, two
    categorical columns and an int64 three-class label."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "income": rng.normal(52_000.0, 15_000.0, rows),
        "balance": rng.normal(1_200.0, 400.0, rows),
        "age": rng.integers(18, 80, rows),
        "tenure": rng.integers(0, 30, rows),
        "city": pd.Categorical(rng.choice(["lyon", "nice", "paris"], rows)),
        "plan": pd.Categorical(rng.choice(["basic", "pro"], rows)),
        "label": rng.integers(0, 3, rows),
        "target": rng.normal(0.3, 0.1, rows),
    })
    frame.loc[3, "income"] = np.nan
    return frame


def _mlp(inputs: int, outputs: int = 1) -> nn.Module:
    return nn.Sequential(nn.Linear(inputs, 32), nn.ReLU(), nn.Linear(32, outputs))


def _standardised(frame: pd.DataFrame) -> np.ndarray:
    """What StandardScaler().fit_transform(frame[_NUMERIC].fillna(median)) returns: float64."""
    values = frame[_NUMERIC].fillna(frame[_NUMERIC].median()).to_numpy(dtype=np.float64)
    return (values - values.mean(0)) / values.std(0)


# --- categorical codes, indices and group ids


def _ordinal_encoder_codes_into_embeddings() -> None:
    _seeded()
    frame = _frame()
    # sklearn's OrdinalEncoder().fit_transform(frame[_CATEGORICAL]) returns float64 codes
    codes = np.stack([frame[c].cat.codes.to_numpy() for c in _CATEGORICAL], axis=1).astype(np.float64)
    x_cat = torch.from_numpy(codes)
    embeddings = nn.ModuleList([nn.Embedding(3, 8), nn.Embedding(2, 8)])
    torch.stack([table(x_cat[:, i]) for i, table in enumerate(embeddings)], dim=1)


def _get_dummies_bool_into_wide_linear() -> None:
    _seeded()
    frame = _frame()
    one_hot = pd.get_dummies(frame[_CATEGORICAL])  # bool columns since pandas 2
    wide = nn.Linear(one_hot.shape[1], 1)
    wide(torch.from_numpy(one_hot.to_numpy()))


def _query_codes_int16_scatter_add() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    docs = pd.DataFrame({"qid": np.repeat(np.arange(7_000, 7_200), 3), "rel": rng.integers(0, 5, 600)})
    group = torch.from_numpy(docs["qid"].astype("category").cat.codes.to_numpy())  # 200 queries: int16 codes
    scores = _mlp(8)(torch.randn(600, 8)).squeeze(-1)
    denominators = torch.zeros(200).scatter_add_(0, group, scores.exp())
    (scores.exp() / denominators[group]).log()


def _groupby_rank_float_positions_gather() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    docs = pd.DataFrame({"qid": np.repeat(np.arange(4), 5), "bm25": rng.normal(10.0, 3.0, 20),
                         "rel": rng.integers(0, 4, 20)})
    # each document's position in its query's first-stage ranking, 0-based
    position = docs.groupby("qid")["bm25"].rank(method="first", ascending=False) - 1
    order = torch.from_numpy(position.to_numpy().reshape(4, 5))
    rel = torch.from_numpy(docs["rel"].to_numpy().reshape(4, 5))
    rel.gather(1, order)


def _isnan_uint8_mask_masked_fill() -> None:
    frame = _frame()
    values = frame[["income", "balance"]].to_numpy()
    missing = torch.from_numpy(np.isnan(values).astype(np.uint8))  # compact 0/1 missing indicator
    x = torch.from_numpy(values).float()
    x.masked_fill(missing, 0.0)


def _batch_cast_bf16_nan_mask_inverted() -> None:
    _seeded()
    batch = {"x_num": torch.randn(8, 4), "nan_mask": torch.rand(8, 4) < 0.1}
    batch = {key: value.to(bf16) for key, value in batch.items()}  # cast the whole batch for the bf16 model
    batch["x_num"] * ~batch["nan_mask"]


def _label_column_float64_cross_entropy() -> None:
    _seeded()
    frame = _frame()
    frame.loc[5, "label"] = np.nan  # an unlabelled row: the label column becomes float64
    frame = frame.dropna(subset=["label", "income"])
    x = torch.from_numpy(_standardised(frame)).float()
    y = torch.from_numpy(frame["label"].to_numpy())
    F.cross_entropy(_mlp(4, 3)(x), y)


def _int64_counts_standardised_in_place() -> None:
    frame = _frame()
    counts = torch.from_numpy(frame[["age", "tenure"]].to_numpy())  # int64
    mean = torch.from_numpy(np.array([47.3, 14.1]))  # StandardScaler.mean_ (float64)
    scale = torch.from_numpy(np.array([17.9, 8.6]))  # StandardScaler.scale_ (float64)
    counts.sub_(mean).div_(scale)


def _ple_bin_edges_quantile_int64_age() -> None:
    frame = _frame()
    age = torch.from_numpy(frame["age"].to_numpy())
    # piecewise-linear encoding: 4 bins per feature, edges at the quantiles of the training column
    torch.quantile(age, torch.linspace(0, 1, 5))


def _vime_mask_bernoulli_full_like_codes() -> None:
    _seeded()
    frame = _frame()
    x_cat = torch.from_numpy(np.stack([frame[c].cat.codes.to_numpy() for c in _CATEGORICAL], 1)).long()
    corrupt = torch.bernoulli(torch.full_like(x_cat, 0.3))  # VIME self-supervision: mask probability p_m
    shuffled = x_cat[torch.randperm(x_cat.shape[0])]
    torch.where(corrupt.bool(), shuffled, x_cat)


def _tags_padded_full_int8_codes() -> None:
    tags = pd.Series(pd.Categorical(["vip", "new", "promo", "new", "vip", "churned"]))  # the exploded tag column
    owner = torch.tensor([0, 1, 1, 2, 3, 3])  # which customer each tag belongs to
    slot = torch.tensor([0, 0, 1, 0, 0, 1])
    codes = torch.from_numpy(tags.cat.codes.to_numpy())  # int8
    pad_id = 300  # the shared embedding table's padding row comes after every categorical column's ids
    padded = torch.full((4, 3), pad_id, dtype=codes.dtype)
    padded[owner, slot] = codes


# --- numeric embeddings and backbones


class _PeriodicEmbeddings(nn.Module):
    """PLR numeric embeddings: learned frequencies, cos/sin, a linear layer, ReLU."""

    def __init__(self, n_features: int, k: int = 8, d: int = 16) -> None:
        super().__init__()
        self.frequencies = nn.Parameter(torch.randn(n_features, k) * 0.1)
        self.linear = nn.Linear(2 * k, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        v = 2 * math.pi * self.frequencies[None] * x[..., None]
        return F.relu(self.linear(torch.cat([torch.cos(v), torch.sin(v)], -1)))


def _periodic_embeddings_float64_under_autocast() -> None:
    _seeded()
    x = torch.from_numpy(_standardised(_frame()))
    embeddings = _PeriodicEmbeddings(4)
    with torch.autocast("cpu", dtype=bf16):
        embeddings(x)


class _ObliviousTrees(nn.Module):
    """NODE layer: soft feature selection, thresholds, and each leaf's one-hot bin code."""

    def __init__(self, in_features: int, trees: int = 4, depth: int = 3) -> None:
        super().__init__()
        self.selection_logits = nn.Parameter(torch.randn(in_features, trees, depth))
        self.thresholds = nn.Parameter(torch.zeros(trees, depth))
        self.log_temperatures = nn.Parameter(torch.zeros(trees, depth))
        self.response = nn.Parameter(torch.randn(trees, 2 ** depth))
        leaves = torch.arange(2 ** depth)
        codes = ((leaves[None] // 2 ** torch.arange(depth)[:, None]) % 2).float()  # (depth, leaves)
        self.bin_codes_1hot = torch.stack([codes, 1 - codes], dim=-1)  # a plain attribute, not a buffer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        selectors = torch.softmax(self.selection_logits, dim=0)
        values = torch.einsum("bi,ind->bnd", x, selectors)
        logits = (values - self.thresholds) * torch.exp(-self.log_temperatures)
        bins = torch.stack([-logits, logits], dim=-1).sigmoid()
        matches = torch.einsum("bnds,dcs->bndc", bins, self.bin_codes_1hot)
        return torch.einsum("bnc,nc->bn", matches.prod(dim=2), self.response)


def _node_bin_codes_left_fp32() -> None:
    _seeded()
    trees = _ObliviousTrees(6).to(bf16)
    trees(torch.randn(8, 6).to(bf16))


class _BatchEnsembleLinear(nn.Module):
    """TabM-style k-member linear layer applied with torch.bmm."""

    def __init__(self, k: int, inputs: int, outputs: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k, inputs, outputs) / math.sqrt(inputs))
        self.bias = nn.Parameter(torch.zeros(k, 1, outputs))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.bmm(x, self.weight) + self.bias


def _tabm_bf16_members_fp32_rows() -> None:
    _seeded()
    layer = _BatchEnsembleLinear(4, 4, 16).to(bf16)
    rows = torch.from_numpy(_standardised(_frame())).float()
    layer(rows.expand(4, -1, -1))


def _ft_transformer_missing_feature_mask_numpy() -> None:
    _seeded()
    batch, features, heads, d = 4, 5, 2, 8
    tokens = torch.randn(batch, features + 1, heads * d).to(bf16)  # feature tokens + [CLS] from the bf16 model
    missing = np.random.default_rng(0).random((batch, features)) < 0.3  # frame[feature_columns].isna().to_numpy()
    missing = np.concatenate([missing, np.zeros((batch, 1), dtype=bool)], axis=1)  # [CLS] is never missing
    additive = torch.from_numpy(np.where(missing, -np.inf, 0.0))[:, None, None]
    qkv = nn.Linear(heads * d, 3 * heads * d).to(bf16)(tokens)
    q, k, v = (t.view(batch, features + 1, heads, d).transpose(1, 2) for t in qkv.chunk(3, dim=-1))
    F.scaled_dot_product_attention(q, k, v, attn_mask=additive)


def _moa_cnn_trunk_bf16_dense_fp32() -> None:
    _seeded()
    dense = nn.Linear(16, 256)  # the expansion layer is kept in fp32 "for accuracy"
    trunk = nn.Sequential(nn.Conv1d(16, 32, 5, padding=2, bias=False), nn.BatchNorm1d(32), nn.ReLU(),
                          nn.AdaptiveAvgPool1d(4), nn.Flatten()).to(bf16)
    x = dense(torch.randn(8, 16)).view(8, 16, 16)
    trunk(x)


class _TabTransformer(nn.Module):
    """Contextual embeddings for categorical columns; the continuous columns only layer-normalised."""

    def __init__(self, cardinalities: tuple[int, ...], n_continuous: int, d: int = 8) -> None:
        super().__init__()
        self.embeddings = nn.ModuleList(nn.Embedding(c, d) for c in cardinalities)
        self.encoder = nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, batch_first=True)
        self.continuous_norm = nn.LayerNorm(n_continuous)
        self.head = _mlp(len(cardinalities) * d + n_continuous)

    def forward(self, x_cat: torch.Tensor, x_cont: torch.Tensor) -> torch.Tensor:
        tokens = torch.stack([table(x_cat[:, i]) for i, table in enumerate(self.embeddings)], dim=1)
        context = self.encoder(tokens).flatten(1)
        return self.head(torch.cat([context, self.continuous_norm(x_cont)], dim=1))


def _tabtransformer_bf16_continuous_fp32() -> None:
    _seeded()
    frame = _frame()
    model = _TabTransformer((3, 2), 4).to(bf16)
    x_cat = torch.from_numpy(np.stack([frame[c].cat.codes.to_numpy() for c in _CATEGORICAL], 1)).long()
    x_cont = torch.from_numpy(_standardised(frame)).float()
    model(x_cat, x_cont)


class _TabNetStep(nn.Module):
    """One TabNet decision step: attentive transformer with prior scales, then the feature transformer."""

    def __init__(self, n_features: int, d: int = 8, gamma: float = 1.3) -> None:
        super().__init__()
        self.gamma = gamma
        self.attentive = nn.Linear(d, n_features)
        self.feature_transformer = nn.Sequential(nn.Linear(n_features, 2 * d), nn.GLU())

    def forward(self, x: torch.Tensor, attended: torch.Tensor, prior: torch.Tensor) -> tuple[torch.Tensor, ...]:
        mask = torch.softmax(self.attentive(attended) * prior, dim=-1)  # sparsemax in the paper
        return self.feature_transformer(mask * x), prior * (self.gamma - mask)


def _tabnet_prior_ones_fp32_bf16_step() -> None:
    _seeded()
    step = _TabNetStep(4).to(bf16)
    x = torch.from_numpy(_standardised(_frame())).to(bf16)
    prior = torch.ones(x.shape)  # prior scales start at 1
    attended = torch.zeros(x.shape[0], 8, dtype=bf16)
    step(x, attended, prior)


# --- writes into buffers, running statistics, target encoding


def _oof_predictions_autocast_index_put() -> None:
    _seeded()
    x = torch.from_numpy(_standardised(_frame())).float()
    oof = torch.zeros(len(x))
    folds = torch.arange(len(x)) % 3
    for fold in range(3):
        model = _mlp(4)
        val = (folds == fold).nonzero().squeeze(1)
        with torch.autocast("cpu", dtype=bf16), torch.no_grad():
            oof[val] = model(x[val]).squeeze(-1)


def _target_encoding_index_add_float64_target() -> None:
    frame = _frame()
    codes = torch.from_numpy(frame["city"].cat.codes.to_numpy()).long()
    y = torch.from_numpy(frame["target"].to_numpy())  # float64
    sums = torch.zeros(3).index_add_(0, codes, y)
    counts = torch.bincount(codes, minlength=3)
    sums / counts


def _listnet_group_softmax_scatter_add_bf16() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    docs = pd.DataFrame({"qid": rng.choice([11, 42, 97, 130], 24), "rel": rng.integers(0, 4, 24)})
    group = torch.from_numpy(docs.groupby("qid").ngroup().to_numpy())  # int64 group ids
    ranker = _mlp(6)
    with torch.autocast("cpu", dtype=bf16):
        scores = ranker(torch.randn(24, 6)).squeeze(-1)
    denominators = torch.zeros(4).scatter_add_(0, group, scores.exp())
    scores.exp() / denominators[group]


class _RunningStandardScaler(nn.Module):
    def __init__(self, n_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(n_features))
        self.register_buffer("var", torch.ones(n_features))

    def update(self, batch: torch.Tensor) -> None:
        self.mean.lerp_(batch.mean(0), self.momentum)
        self.var.lerp_(batch.var(0), self.momentum)


def _online_scaler_lerp_float64_chunk() -> None:
    frame = _frame()
    scaler = _RunningStandardScaler(2)
    chunk = torch.from_numpy(frame[["balance", "target"]].to_numpy())  # a chunk of pd.read_csv(chunksize=...)
    scaler.update(chunk)


# --- losses and gradients


def _balanced_class_weights_float64_label_smoothing() -> None:
    _seeded()
    frame = _frame().dropna()
    labels = frame["label"].to_numpy()
    # compute_class_weight("balanced", classes=[0, 1, 2], y=labels): float64
    weights = len(labels) / (3 * np.bincount(labels, minlength=3))
    criterion = nn.CrossEntropyLoss(weight=torch.from_numpy(weights), label_smoothing=0.05)
    x = torch.from_numpy(_standardised(frame)).float()
    criterion(_mlp(4, 3)(x), torch.from_numpy(labels))


def _huber_regression_autocast_predictions_backward() -> None:
    _seeded()
    frame = _frame()
    x = torch.from_numpy(_standardised(frame)).float()
    y = torch.from_numpy(frame["target"].to_numpy()).float()
    model = _mlp(4)
    with torch.autocast("cpu", dtype=bf16):
        prediction = model(x).squeeze(-1)
    nn.HuberLoss(delta=0.5)(prediction, y).backward()


def _fp32_gradient_accumulators_bf16_mlp() -> None:
    _seeded()
    frame = _frame()
    x = torch.from_numpy(_standardised(frame)).to(bf16)
    y = torch.from_numpy(frame["target"].to_numpy()).to(bf16)
    model = _mlp(4).to(bf16)
    accumulators = [torch.zeros_like(p, dtype=torch.float32) for p in model.parameters()]  # accumulate in fp32
    for rows, targets in zip(x.split(4), y.split(4)):
        loss = F.mse_loss(model(rows).squeeze(-1).float(), targets.float())
        for accumulator, grad in zip(accumulators, torch.autograd.grad(loss, list(model.parameters()))):
            accumulator.add_(grad)
    for p, accumulator in zip(model.parameters(), accumulators):
        p.grad = accumulator / 3


def _gaussian_head_log_prob_unlabelled_rows() -> None:
    _seeded()
    frame = _frame()
    frame.loc[[2, 7], "target"] = np.nan  # rows not labelled yet, left in the training frame
    x = torch.from_numpy(_standardised(frame)).float()
    y = torch.from_numpy(frame["target"].to_numpy()).float()
    mu, log_sigma = _mlp(4, 2)(x).unbind(-1)
    -torch.distributions.Normal(mu, log_sigma.exp()).log_prob(y).mean()


# --- kernels, overflow and numpy


def _inverse_transform_bf16_predictions_numpy() -> None:
    _seeded()
    frame = _frame()
    x = torch.from_numpy(_standardised(frame)).float()
    y_mean, y_scale = frame["target"].mean(), frame["target"].std()
    model = _mlp(4)
    with torch.autocast("cpu", dtype=bf16), torch.no_grad():
        prediction = model(x).squeeze(-1)
    prediction.numpy() * y_scale + y_mean  # StandardScaler.inverse_transform by hand


def _rank_gauss_ndtri_bf16_batch() -> None:
    _seeded()
    x = torch.randn(16, 4).to(bf16)  # the batch already cast for the bf16 model
    n = x.shape[0]
    ranks = x.argsort(dim=0).argsort(dim=0)
    u = (ranks.to(x.dtype) + 0.5) / n
    torch.special.ndtri(u)


def _psi_histogram_bf16_scores() -> None:
    _seeded()
    model = _mlp(4)
    with torch.autocast("cpu", dtype=bf16), torch.no_grad():
        reference = torch.sigmoid(model(torch.randn(200, 4))).squeeze(-1)
        live = torch.sigmoid(model(torch.randn(200, 4) + 0.2)).squeeze(-1)
    expected, edges = torch.histogram(reference, bins=10)  # population stability index: 10 bins on the reference
    actual, _ = torch.histogram(live, bins=edges)
    p, q = expected / expected.sum(), actual / actual.sum()
    ((q - p) * torch.log(q / p)).sum()


def _autoint_fp16_missing_mask_float32_min() -> None:
    _seeded()
    tokens = torch.randn(4, 6, 8).half()  # AutoInt field embeddings in the fp16 model
    missing = torch.rand(4, 6) < 0.3
    scores = tokens @ tokens.transpose(1, 2) / math.sqrt(8)
    scores = scores.masked_fill(missing[:, None, :], torch.finfo(torch.float32).min)
    scores.softmax(-1)


CASES: dict[str, LiveCase] = {
    # sklearn OrdinalEncoder codes (float64) looked up in the per-column categorical embeddings
    "ordinal-encoder-f64-codes-embedding": case(_ordinal_encoder_codes_into_embeddings, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # pd.get_dummies one-hot columns (bool) straight into the wide part's nn.Linear
    "get-dummies-bool-wide-linear": case(_get_dummies_bool_into_wide_linear, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ranking group ids as category codes of 200 query ids (int16) in scatter_add_ for group softmax
    "query-cat-codes-int16-scatter-add": case(_query_codes_int16_scatter_add, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-query positions from pandas groupby().rank() (float64) as gather's index
    "groupby-rank-f64-positions-gather": case(_groupby_rank_float_positions_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # np.isnan(...).astype(uint8) missing indicator as masked_fill's mask
    "isnan-uint8-missing-mask-masked-fill": case(_isnan_uint8_mask_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # whole batch cast to bf16, the bool NaN mask with it, then inverted with ~
    "batch-cast-bf16-nan-mask-invert": case(_batch_cast_bf16_nan_mask_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # class labels from a pandas column that held a NaN (float64) as cross_entropy's target
    "label-column-f64-cross-entropy": case(_label_column_float64_cross_entropy, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # StandardScaler mean_/scale_ (float64) subtracted in place from int64 count columns
    "int64-counts-standardise-in-place": case(_int64_counts_standardised_in_place, "result_cast", "f64", "int64",
        grade="correct", grade_at_freeze="correct"),
    # PLE bin edges by torch.quantile of the int64 age column
    "ple-bin-edges-quantile-int64-age": case(_ple_bin_edges_quantile_int64_age, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # VIME corruption mask by bernoulli of full_like over the int64 categorical codes
    "vime-mask-bernoulli-full-like-codes": case(_vime_mask_bernoulli_full_like_codes, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # multi-valued tag column padded with id 300 in torch.full of its int8 category codes' dtype
    "tags-pad-300-full-int8-codes": case(_tags_padded_full_int8_codes, "half_overflow", "int8",
        grade="correct", grade_at_freeze="correct"),
    # PLR periodic embeddings of float64 StandardScaler output under bf16 autocast
    "plr-periodic-f64-autocast-linear": case(_periodic_embeddings_float64_under_autocast, "matmul_dtype", "f64",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # NODE cast to bf16: its leaf bin codes a plain tensor attribute left fp32, met in einsum
    "node-bin-codes-attribute-fp32-einsum": case(_node_bin_codes_left_fp32, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TabM batch-ensemble layer cast to bf16 given fp32 rows, through torch.bmm
    "tabm-bf16-members-fp32-rows-bmm": case(_tabm_bf16_members_fp32_rows, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FT-Transformer attention in bf16 with an additive mask for missing features built by np.where (float64)
    "ft-transformer-missing-mask-np-where-sdpa": case(_ft_transformer_missing_feature_mask_numpy, "attn_mask_dtype",
                                                      "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MoA-style 1-D CNN: conv trunk cast to bf16 after an fp32 dense expansion layer
    "moa-cnn-bf16-trunk-fp32-dense": case(_moa_cnn_trunk_bf16_dense_fp32, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TabTransformer cast to bf16, its continuous LayerNorm given fp32 columns
    "tabtransformer-bf16-continuous-layernorm": case(_tabtransformer_bf16_continuous_fp32, "norm_param_dtype",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # TabNet step cast to bf16: prior scales from torch.ones (fp32) promote the masked features before the GLU block
    "tabnet-prior-ones-fp32-bf16-step": case(_tabnet_prior_ones_fp32_bf16_step, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # K-fold out-of-fold predictions from bf16 autocast written into an fp32 buffer
    "oof-predictions-autocast-index-put": case(_oof_predictions_autocast_index_put, "indexed_write_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # target encoding: float64 targets index_add_'ed into an fp32 sum per category
    "target-encoding-index-add-f64": case(_target_encoding_index_add_float64_target, "indexed_write_dtype", "f32",
                                          "f64",
        grade="correct", grade_at_freeze="correct"),
    # ListNet group softmax: bf16 autocast scores scatter_add_'ed into fp32 per-group sums
    "listnet-group-sums-scatter-add-bf16": case(_listnet_group_softmax_scatter_add_bf16, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # running StandardScaler buffer lerp_'ed toward a float64 pandas chunk's mean
    "online-scaler-lerp-f64-chunk": case(_online_scaler_lerp_float64_chunk, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # balanced class weights (float64) in CrossEntropyLoss with label smoothing on fp32 logits
    "balanced-weights-f64-label-smoothing-ce": case(_balanced_class_weights_float64_label_smoothing, "op_dtype",
                                                    "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Huber regression on bf16 autocast predictions against fp32 targets, backward
    "huber-autocast-predictions-backward": case(_huber_regression_autocast_predictions_backward, "loss_dtype",
                                                "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hand-written gradient accumulation: fp32 accumulators assigned as the bf16 MLP's .grad
    "fp32-grad-accumulators-assigned-bf16-mlp": case(_fp32_gradient_accumulators_bf16_mlp, "loss_dtype", "f32",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Gaussian regression head: Normal.log_prob of a target column with NaN for unlabelled rows
    "gaussian-head-log-prob-nan-targets": case(_gaussian_head_log_prob_unlabelled_rows, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autocast predictions turned to numpy to undo the target scaling
    "inverse-transform-bf16-predictions-numpy": case(_inverse_transform_bf16_predictions_numpy, "numpy_dtype",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # rank-gauss transform of a bf16 batch with torch.special.ndtri
    "rank-gauss-ndtri-bf16": case(_rank_gauss_ndtri_bf16_batch, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # population stability index: torch.histogram of bf16 reference scores for the bin edges
    "psi-histogram-bf16-scores": case(_psi_histogram_bf16_scores, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # AutoInt attention in fp16 masking missing fields with torch.finfo(torch.float32).min
    "autoint-fp16-missing-fields-f32-min": case(_autoint_fp16_missing_mask_float32_min, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
}
