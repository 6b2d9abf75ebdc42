"""Held-out live set 126: recommender systems with embedding tables written by hand in low precision (DLRM-style sparse
features as int64/int32 indices and offsets for nn.EmbeddingBag, per_sample_weights, hashed feature ids, dense
features from pandas float64, two-tower retrieval with bf16 dot products and in-batch negatives, bool click labels,
int64 user/item ids in torch.unique and bincount, fp16 embedding tables). Defects planted by a helper who never read
the rules, written before castwise ran and graded once with the rules frozen at 18e1b9f."""

from __future__ import annotations

import zlib

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "18e1b9f"

bf16, f16 = torch.bfloat16, torch.float16
_BATCH = 8
_DIM = 16
_ITEMS = 50
_USERS = 20


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _ids(high: int, n: int = _BATCH) -> torch.Tensor:
    return torch.randint(0, high, (n,), generator=_generator())


def _clicks() -> torch.Tensor:
    return torch.tensor([True, False, False, True, False, True, False, False])


# --- sparse features into EmbeddingBag ------------------------------------------------------------------------------


def _criteo_float_row_categoricals_into_embedding_bag() -> None:
    g = _generator()
    # the Criteo loader yields one fp32 tensor per row: 13 dense columns, then 26 categorical ids already hashed
    rows = torch.cat([torch.rand(_BATCH, 13, generator=g),
                      torch.randint(0, 1000, (_BATCH, 26), generator=g).float()], dim=1)
    tables = nn.ModuleList(nn.EmbeddingBag(1000, _DIM, mode="sum") for _ in range(2))
    sparse = rows[:, 13:]
    [table(sparse[:, i : i + 1]) for i, table in enumerate(tables)]


def _crc32_uint32_hashes_into_2d_embedding_bag() -> None:
    tags = [["sports", "nba"], ["music", "jazz"], ["news", "sports"], ["jazz", "news"]]
    buckets = np.uint32(4096)
    # crc32 fits in 32 bits, so the hashes are kept uint32 to halve the feature file
    hashed = np.fromiter((zlib.crc32(tag.encode()) for row in tags for tag in row), dtype=np.uint32) % buckets
    bags = torch.from_numpy(hashed).view(len(tags), 2)
    nn.EmbeddingBag(int(buckets), _DIM, mode="mean")(bags)


def _bool_clicks_as_per_sample_weights() -> None:
    history = _ids(_ITEMS)
    offsets = torch.tensor([0, 3, 5])
    clicked = _clicks()  # only clicked impressions should count in the user's bag
    nn.EmbeddingBag(_ITEMS, _DIM, mode="sum")(history, offsets, per_sample_weights=clicked)


def _qr_embedding_quotient_by_true_division() -> None:
    collisions = 64
    ids = torch.tensor([12_345, 999, 40_000, 7])
    remainder_table = nn.Embedding(collisions, _DIM)
    quotient_table = nn.Embedding(40_000 // collisions + 1, _DIM)
    # quotient-remainder trick: `/` where `//` was meant, so the quotient ids are fp32
    remainder_table(ids % collisions) * quotient_table(ids / collisions)


# --- hashed ids and integer ranges ----------------------------------------------------------------------------------


def _xxhash64_feature_hashes_into_tensor() -> None:
    # 64-bit unsigned feature hashes as Python ints (what xxhash's intdigest returns), bucketed later in torch
    hashes = [0x9AE16A3B2F90404F, 0x0123456789ABCDEF, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9]
    torch.tensor(hashes) % 100_000


def _negative_sampler_randint_int16() -> None:
    catalogue = 120_000
    # negatives drawn as int16 "to keep the sampled id buffer small"
    torch.randint(0, catalogue, (_BATCH, 20), dtype=torch.int16, generator=_generator())


def _item_ids_uint64_from_parquet_bincount() -> None:
    item_ids = np.array([3, 17, 3, 42, 17, 3], dtype=np.uint64)  # parquet column written as UInt64 by the ETL
    popularity = torch.bincount(torch.from_numpy(item_ids), minlength=_ITEMS)
    popularity.sum()


# --- bool clicks, labels and masks ----------------------------------------------------------------------------------


def _in_batch_softmax_labels_arange_int32() -> None:
    g = _generator()
    users = torch.randn(_BATCH, _DIM, generator=g)
    items = torch.randn(_BATCH, _DIM, generator=g)
    logits = users @ items.T / 0.05
    labels = torch.arange(_BATCH, dtype=torch.int32)  # int32 to match the int32 item-id column
    F.cross_entropy(logits, labels)


def _ctr_head_bce_with_logits_bool_clicks() -> None:
    logits = torch.randn(_BATCH, generator=_generator())
    F.binary_cross_entropy_with_logits(logits, _clicks())


def _accidental_hit_mask_inverted_float_eye() -> None:
    g = _generator()
    item_ids = torch.tensor([4, 9, 4, 1, 7, 9, 2, 3])
    _, inverse = torch.unique(item_ids, return_inverse=True)
    logits = torch.randn(_BATCH, _BATCH, generator=g)
    same_item = inverse[:, None] == inverse[None, :]
    off_diagonal = ~torch.eye(_BATCH)  # keep each row's own positive
    logits.masked_fill(same_item & off_diagonal, float("-inf"))


def _gauc_per_user_clicks_index_add_bool() -> None:
    user_ids = torch.tensor([11, 3, 11, 7, 3, 3, 7, 11])
    users, inverse = torch.unique(user_ids, return_inverse=True)
    positives = torch.zeros(len(users))
    positives.index_add_(0, inverse, _clicks())  # clicks per user for group AUC


def _ease_gram_of_bool_interactions() -> None:
    interactions = torch.rand(_USERS, _ITEMS, generator=_generator()) > 0.8  # implicit feedback as bool
    gram = interactions.T @ interactions
    gram.diagonal().add_(50.0)


def _interaction_counts_int64_sparse_mm() -> None:
    g = _generator()
    users = torch.randint(0, _USERS, (30,), generator=g)
    items = torch.randint(0, _ITEMS, (30,), generator=g)
    counts = torch.randint(1, 5, (30,), generator=g)  # groupby(["user", "item"]).size(): int64 counts
    matrix = torch.sparse_coo_tensor(torch.stack([users, items]), counts, (_USERS, _ITEMS)).coalesce()
    item_table = torch.randn(_ITEMS, _DIM, generator=g)
    torch.sparse.mm(matrix, item_table)  # user profile = weighted sum of item vectors


# --- two towers and serving -----------------------------------------------------------------------------------------


def _two_tower_in_batch_bf16_user_fp32_item() -> None:
    g = _generator()
    user_tower = nn.Linear(32, _DIM).to(bf16)
    item_tower = nn.Linear(24, _DIM)  # the item tower was left in fp32
    users = user_tower(torch.randn(_BATCH, 32, generator=g).to(bf16))
    items = item_tower(torch.randn(_BATCH, 24, generator=g))
    users @ items.T


def _serving_bf16_query_fp16_item_cache() -> None:
    g = _generator()
    item_cache = torch.randn(_ITEMS, _DIM, generator=g).half()  # item vectors exported in fp16 for the ANN host
    query = torch.randn(1, _DIM, generator=g).to(bf16)
    torch.topk(query @ item_cache.T, 10)


def _two_tower_vecdot_bf16_user_fp32_item() -> None:
    g = _generator()
    users = F.normalize(torch.randn(_BATCH, _DIM, generator=g)).to(bf16)
    items = F.normalize(torch.randn(_BATCH, _DIM, generator=g))
    torch.linalg.vecdot(users, items)


def _catalogue_scoring_mv_fp16_table() -> None:
    g = _generator()
    item_table = nn.Embedding(_ITEMS, _DIM).half()  # fp16 table to fit the catalogue in memory
    user = torch.randn(_DIM, generator=g)
    torch.mv(item_table.weight, user)


def _in_batch_logits_addmm_fp32_item_bias() -> None:
    g = _generator()
    item_bias = nn.Parameter(torch.zeros(_BATCH))  # log-popularity correction, a plain fp32 parameter
    users = torch.randn(_BATCH, _DIM, generator=g).to(bf16)
    items = torch.randn(_BATCH, _DIM, generator=g).to(bf16)
    torch.addmm(item_bias, users, items.T)


def _hard_negative_mixing_lerp() -> None:
    g = _generator()
    negatives = torch.randn(_BATCH, 4, _DIM, generator=g).to(bf16)  # from the bf16 item tower
    positives = torch.randn(_BATCH, 1, _DIM, generator=g)  # cached fp32 positive embeddings
    torch.lerp(negatives, positives, 0.3)


# --- CTR models: dense features, DIN, BST, ESMM ---------------------------------------------------------------------


def _criteo_dense_f64_into_bf16_bottom_mlp() -> None:
    dense = np.log1p(np.random.default_rng(0).integers(0, 500, size=(_BATCH, 13)).astype(np.float64))
    bottom_mlp = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, _DIM)).to(bf16)
    bottom_mlp(torch.from_numpy(dense))


def _dense_f64_layer_norm() -> None:
    dense = np.random.default_rng(0).normal(size=(_BATCH, 13))  # df[dense_cols].to_numpy(): float64
    nn.LayerNorm(13)(torch.from_numpy(dense))


def _din_activation_unit_bf16_fp32_candidate() -> None:
    g = _generator()
    activation_unit = nn.Sequential(nn.Linear(4 * _DIM, 32), nn.Sigmoid(), nn.Linear(32, 1)).to(bf16)
    history = torch.randn(_BATCH, 10, _DIM, generator=g).to(bf16)
    candidate = torch.randn(_BATCH, 1, _DIM, generator=g).expand(-1, 10, -1)  # candidate from an fp32 table
    features = torch.cat([candidate, history, candidate - history, candidate * history], dim=-1)
    activation_unit(features)


def _bst_bf16_mha_fp32_additive_padding_mask() -> None:
    g = _generator()
    attention = nn.MultiheadAttention(_DIM, 2, batch_first=True).to(bf16)
    behaviours = torch.randn(2, 6, _DIM, generator=g).to(bf16)
    lengths = torch.tensor([6, 3])
    padding = torch.arange(6)[None, :] >= lengths[:, None]
    additive = torch.zeros(2, 6).masked_fill(padding, float("-inf"))  # additive key mask, fp32
    attention(behaviours, behaviours, behaviours, key_padding_mask=additive)


def _esmm_ctcvr_bce_bf16_fp32_labels() -> None:
    g = _generator()
    ctr = torch.sigmoid(torch.randn(_BATCH, generator=g)).to(bf16)
    cvr = torch.sigmoid(torch.randn(_BATCH, generator=g)).to(bf16)
    conversions = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    F.binary_cross_entropy(ctr * cvr, conversions)


def _cold_start_negative_sampler_zero_popularity() -> None:
    counts = torch.zeros(_ITEMS)
    counts[:5] = torch.tensor([40.0, 12.0, 9.0, 3.0, 1.0])
    category_items = torch.arange(30, 40)  # a category with only new items: no interactions yet
    weights = counts[category_items] ** 0.75
    torch.multinomial(weights / weights.sum(), 4, generator=_generator())


# --- fp16 embedding tables: init, updates, gradients ----------------------------------------------------------------


def _fp16_table_orthogonal_init() -> None:
    table = nn.Embedding(_ITEMS, _DIM).half()
    nn.init.orthogonal_(table.weight)


def _fp16_table_sparse_sgd_index_put_fp32_grads() -> None:
    g = _generator()
    table = torch.randn(_ITEMS, _DIM, generator=g).half()
    rows = torch.tensor([3, 17, 42])
    grad_rows = torch.randn(3, _DIM, generator=g)  # row gradients accumulated in fp32
    table.index_put_((rows,), -0.05 * grad_rows, accumulate=True)


def _fp16_tables_gradscaler_unscale() -> None:
    tables = nn.EmbeddingBag(_ITEMS, _DIM, mode="sum").half()
    head = nn.Linear(_DIM, 1)
    optimizer = torch.optim.SGD([*tables.parameters(), *head.parameters()], lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    pooled = tables(_ids(_ITEMS)[None]).float()
    scaler.scale(F.binary_cross_entropy_with_logits(head(pooled).squeeze(1), torch.ones(1))).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(tables.parameters(), 1.0)


def _rating_huber_bf16_scores_backward() -> None:
    g = _generator()
    users = nn.Embedding(_USERS, _DIM).to(bf16)
    items = nn.Embedding(_ITEMS, _DIM).to(bf16)
    scores = (users(_ids(_USERS)) * items(_ids(_ITEMS))).sum(-1)
    ratings = torch.randint(1, 6, (_BATCH,), generator=g).float()
    F.huber_loss(scores, ratings).backward()


def _als_user_update_solve_bf16() -> None:
    g = _generator()
    item_factors = torch.randn(_ITEMS, _DIM, generator=g).to(bf16)  # factors kept bf16 between sweeps
    gram = item_factors.T @ item_factors + 0.1 * torch.eye(_DIM, dtype=item_factors.dtype)
    rhs = item_factors.T @ torch.rand(_ITEMS, 1, generator=g).to(bf16)
    torch.linalg.solve(gram, rhs)


CASES: dict[str, LiveCase] = {
    # --- sparse features into EmbeddingBag
    # Criteo loader's single fp32 row tensor: the categorical columns sliced from it as EmbeddingBag indices
    "criteo-float-row-categoricals-embedding-bag": case(_criteo_float_row_categoricals_into_embedding_bag,
                                                        "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # crc32 tag hashes kept uint32 in numpy, bucketed, given to EmbeddingBag as a 2-D bag batch
    "crc32-uint32-hashes-2d-embedding-bag": case(_crc32_uint32_hashes_into_2d_embedding_bag, "no_kernel", "uint32",
        grade="correct", grade_at_freeze="correct"),
    # the bool click mask of the history given as EmbeddingBag's per_sample_weights
    "bool-clicks-per-sample-weights": case(_bool_clicks_as_per_sample_weights, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # quotient-remainder compositional embedding: quotient ids by true division, fp32 ids into nn.Embedding
    "qr-embedding-quotient-true-division": case(_qr_embedding_quotient_by_true_division, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- hashed ids and integer ranges
    # 64-bit unsigned feature hashes (>= 2**63) as Python ints given to torch.tensor before the modulo
    "xxhash64-feature-hashes-torch-tensor": case(_xxhash64_feature_hashes_into_tensor, "half_overflow",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (18e1b9f) castwise gave nothing. torch.tensor raised Python's ValueError 'Overflow when "
             "unpacking long long': a 64-bit unsigned hash of 2**63 or more does not fit the int64 that torch.tensor "
             "makes from Python ints; the message names no torch dtype (long long is C's int64) and no op, and the rules"
             " had no reading for this wording of an integer outside its dtype's range.")),
    # negative sampler drawing ids of a 120k catalogue with randint(dtype=torch.int16)
    "negative-sampler-randint-int16-catalogue": case(_negative_sampler_randint_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # item popularity by bincount over item ids a parquet column kept as uint64
    "item-ids-uint64-parquet-bincount": case(_item_ids_uint64_from_parquet_bincount, "no_kernel", "uint64",
        grade="correct", grade_at_freeze="correct"),
    # --- bool clicks, labels and masks
    # in-batch softmax labels made with arange(dtype=torch.int32) for cross_entropy
    "in-batch-labels-arange-int32": case(_in_batch_softmax_labels_arange_int32, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # CTR head trained with BCE-with-logits on the bool click labels
    "ctr-bce-logits-bool-clicks": case(_ctr_head_bce_with_logits_bool_clicks, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # accidental-hit removal over torch.unique's inverse, the diagonal kept with ~torch.eye (fp32)
    "accidental-hit-mask-tilde-float-eye": case(_accidental_hit_mask_inverted_float_eye, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # GAUC: bool clicks index_add_'ed per user (torch.unique inverse) into an fp32 zeros buffer
    "gauc-per-user-clicks-index-add-bool": case(_gauc_per_user_clicks_index_add_bool, "indexed_write_dtype", "f32",
                                                "bool",
        grade="correct", grade_at_freeze="correct"),
    # EASE: the item-item Gram matrix of the bool interaction matrix by @
    "ease-gram-bool-interactions": case(_ease_gram_of_bool_interactions, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # user profiles: sparse COO of int64 interaction counts times the fp32 item table in torch.sparse.mm
    "interaction-counts-int64-sparse-mm": case(_interaction_counts_int64_sparse_mm, "integer_operand", "int64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- two towers and serving
    # in-batch negatives: bf16 user tower output @ the fp32 item tower output transposed
    "two-tower-in-batch-bf16-user-fp32-item": case(_two_tower_in_batch_bf16_user_fp32_item, "matmul_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # serving: a bf16 query scored against an item cache exported in fp16
    "serving-bf16-query-fp16-item-cache": case(_serving_bf16_query_fp16_item_cache, "matmul_dtype", "bf16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # two-tower scores with linalg.vecdot of bf16 user and fp32 item vectors
    "two-tower-vecdot-bf16-fp32": case(_two_tower_vecdot_bf16_user_fp32_item, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # whole-catalogue scoring with torch.mv of an fp16 item table and an fp32 user vector
    "catalogue-scoring-mv-fp16-table": case(_catalogue_scoring_mv_fp16_table, "matmul_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # in-batch logits by torch.addmm with an fp32 item-bias parameter and bf16 towers
    "in-batch-addmm-fp32-item-bias": case(_in_batch_logits_addmm_fp32_item_bias, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hard-negative mixing: bf16 negatives lerp'ed toward cached fp32 positives
    "hard-negative-mixing-lerp-bf16-fp32": case(_hard_negative_mixing_lerp, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- CTR models: dense features, DIN, BST, ESMM
    # log1p'd Criteo dense counts (numpy float64) into a bottom MLP cast to bf16
    "criteo-dense-f64-bf16-bottom-mlp": case(_criteo_dense_f64_into_bf16_bottom_mlp, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pandas float64 dense features into the fp32 LayerNorm of the dense branch
    "dense-f64-layer-norm": case(_dense_f64_layer_norm, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # DIN activation unit cast to bf16 given features cat'ed from an fp32 candidate and bf16 history (fp32 after cat)
    "din-activation-unit-fp32-candidate-cat": case(_din_activation_unit_bf16_fp32_candidate, "matmul_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # BST: bf16 MultiheadAttention over behaviours with an fp32 additive key_padding_mask
    "bst-bf16-mha-fp32-additive-padding-mask": case(_bst_bf16_mha_fp32_additive_padding_mask, "attn_mask_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ESMM: bf16 pCTCVR = pCTR * pCVR in binary_cross_entropy against fp32 conversion labels
    "esmm-ctcvr-bce-bf16-fp32-labels": case(_esmm_ctcvr_bce_bf16_fp32_labels, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # category-restricted negative sampler over cold-start items only: 0/0 probabilities into multinomial
    "cold-start-negative-sampler-nan-multinomial": case(_cold_start_negative_sampler_zero_popularity, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # --- fp16 embedding tables
    # orthogonal init of an embedding table already made fp16
    "fp16-table-orthogonal-init": case(_fp16_table_orthogonal_init, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # sparse SGD by hand: fp32 row gradients index_put_(accumulate=True) into the fp16 table
    "fp16-table-sparse-sgd-index-put-fp32-grads": case(_fp16_table_sparse_sgd_index_put_fp32_grads,
                                                       "indexed_write_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 EmbeddingBag tables trained with GradScaler, unscale_ before clipping
    "fp16-tables-gradscaler-unscale": case(_fp16_tables_gradscaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # rating regression: bf16 MF dot products in huber_loss against fp32 ratings, backward
    "rating-huber-bf16-scores-backward": case(_rating_huber_bf16_scores_backward, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ALS user update solved with linalg.solve on bf16 item factors
    "als-user-update-solve-bf16": case(_als_user_update_solve_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
