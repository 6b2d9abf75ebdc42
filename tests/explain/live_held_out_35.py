"""Held-out live set 35: recommender systems and retrieval in low precision (embedding tables, two towers, sampled
softmax, hand-written retrieval, ranking losses, CTR heads). Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at 42cc880."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "42cc880"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


# --- embedding tables


def _embedding_bag_float_offsets() -> None:
    torch.manual_seed(0)
    bag = nn.EmbeddingBag(1000, 16, mode="sum")
    lengths = torch.from_numpy(np.array([3.0, 1.0, 2.0], dtype=np.float32))  # the lengths column of a float frame
    ids = torch.randint(0, 1000, (int(lengths.sum()),))
    offsets = torch.cat([torch.zeros(1), lengths.cumsum(0)[:-1]])
    bag(ids, offsets)


def _embedding_bag_click_count_weights() -> None:
    torch.manual_seed(0)
    bag = nn.EmbeddingBag(500, 8, mode="sum")
    history = torch.tensor([4, 17, 17, 230, 9])
    offsets = torch.tensor([0, 3])
    clicks = torch.tensor([1, 3, 2, 1, 5])  # per-item click counts as the bag weights
    bag(history, offsets, per_sample_weights=clicks)


def _int8_table_embedding_bag() -> None:
    torch.manual_seed(0)
    table = torch.randn(200, 8)
    scale = table.abs().amax(dim=1, keepdim=True) / 127
    codes = torch.round(table / scale).clamp(-127, 127).to(torch.int8)  # the served int8 table
    F.embedding_bag(torch.tensor([3, 50, 7, 199]), codes, torch.tensor([0, 2]), mode="mean")


def _hashed_ids_xor_bf16() -> None:
    torch.manual_seed(0)
    features = torch.cat([torch.randn(4, 3), torch.randint(0, 50000, (4, 1)).float()], dim=1).to(bf16)
    raw_ids = features[:, 3]  # the id column travelled in the bf16 feature tensor
    (raw_ids ^ 0x5BD1E995) % 4096


def _dlrm_dot_interaction_bmm() -> None:
    torch.manual_seed(0)
    bottom_mlp = nn.Sequential(nn.Linear(13, 16), nn.ReLU())
    tables = nn.ModuleList(nn.EmbeddingBag(100, 16, mode="sum") for _ in range(3)).to(bf16)
    dense = bottom_mlp(torch.randn(4, 13))
    sparse = torch.stack([t(torch.randint(0, 100, (4, 2))) for t in tables], dim=1)
    torch.bmm(dense[:, None, :], sparse.transpose(1, 2))


def _dense_f64_batchnorm() -> None:
    torch.manual_seed(0)
    dense = torch.from_numpy(np.random.default_rng(0).lognormal(size=(8, 13)))  # float64 from the pandas frame
    bottom = nn.Sequential(nn.BatchNorm1d(13), nn.Linear(13, 16))
    bottom(torch.log1p(dense))


def _dense_f64_cat_embeddings_top_mlp() -> None:
    torch.manual_seed(0)
    emb = nn.Embedding(100, 8).to(bf16)
    top = nn.Linear(8 * 2 + 4, 1).to(bf16)
    dense = torch.from_numpy(np.random.default_rng(0).random((4, 4)))  # float64
    x = torch.cat([dense, emb(torch.randint(0, 100, (4, 2))).flatten(1)], dim=1)
    top(x)


def _count_features_log1p_in_place() -> None:
    counts = torch.from_numpy(np.array([[0, 3, 120], [7, 0, 4500]]))  # int64 count features
    counts.clamp_(min=0).log1p_()


def _count_features_int32_linear() -> None:
    torch.manual_seed(0)
    counts = torch.from_numpy(np.array([[1, 0, 12], [4, 2, 0]], dtype=np.int32))  # parquet int32 counters
    nn.Linear(3, 8)(counts)


# --- two towers, sampled softmax, multi-interest


def _mind_multi_interest_matmul() -> None:
    torch.manual_seed(0)
    interests = torch.randn(4, 3, 16).to(bf16)  # bf16 user tower's capsules
    item_tower = nn.Linear(32, 16)  # kept fp32 for the index export
    target = item_tower(torch.randn(4, 32))
    interests @ target[:, :, None]


def _log_uniform_sampler_index_select() -> None:
    torch.manual_seed(0)
    item_emb = torch.randn(1000, 16)
    sampled = torch.floor(torch.exp(torch.rand(20) * np.log(1001.0)) - 1)  # log-uniform ids, still float
    item_emb.index_select(0, sampled)


def _popularity_f16_negative_sampler() -> None:
    counts = torch.tensor([120000.0, 800.0, 35.0, 3.0, 1.0]).half()  # item click counts stored fp16
    probs = counts ** 0.75
    torch.multinomial(probs / probs.sum(), 3)


def _gru4rec_fp32_gru_bf16_items() -> None:
    torch.manual_seed(0)
    items = nn.Embedding(300, 16).to(bf16)
    gru = nn.GRU(16, 32, batch_first=True)
    gru(items(torch.randint(0, 300, (2, 5))))


def _sasrec_float_padding_mask() -> None:
    torch.manual_seed(0)
    seq = torch.tensor([[0, 0, 12, 40], [0, 5, 9, 77]])
    items = nn.Embedding(100, 16, padding_idx=0).to(bf16)
    attn = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    padding = (seq == 0).float()  # 1.0 where padded
    x = items(seq)
    attn(x, x, x, key_padding_mask=padding)


# --- retrieval by hand


def _int8_item_codes_query_mm() -> None:
    torch.manual_seed(0)
    items = torch.randn(50, 16)
    scale = items.abs().amax(dim=1) / 127
    codes = torch.round(items / scale[:, None]).to(torch.int8)
    query = torch.randn(2, 16).to(bf16)
    scores = query @ codes.T
    scores * scale.to(bf16)


def _fp16_item_index_einsum() -> None:
    torch.manual_seed(0)
    index = F.normalize(torch.randn(100, 16), dim=1).half()  # fp16 index to halve memory
    query = F.normalize(torch.randn(16), dim=0)
    torch.einsum("d,nd->n", query, index).topk(5)


def _fp8_item_index_bf16_scales() -> None:
    torch.manual_seed(0)
    items = torch.randn(40, 16)
    scale = items.abs().amax(dim=1, keepdim=True) / 448
    codes = (items / scale).to(E4M3)
    codes * scale.to(bf16)


def _pq_decode_embedding_uint8_codes() -> None:
    torch.manual_seed(0)
    centroids = torch.randn(256, 4)  # one subspace's codebook
    codes = torch.randint(0, 256, (10,), dtype=torch.uint8)
    F.embedding(codes, centroids)


def _pq_adc_gather_int16_codes() -> None:
    torch.manual_seed(0)
    m, ksub = 4, 1024
    query_sub = torch.randn(m, 1, 8)
    codebooks = torch.randn(m, ksub, 8)
    lut = (query_sub * codebooks).sum(-1)  # (m, ksub) inner products
    codes = torch.randint(0, ksub, (m, 50), dtype=torch.int16)  # codes stored int16
    torch.gather(lut, 1, codes).sum(0).topk(5)


def _streaming_topk_into_fp32_buffers() -> None:
    torch.manual_seed(0)
    best_scores = torch.empty(2, 5)
    best_ids = torch.empty(2, 5, dtype=torch.long)
    shard_scores = torch.randn(2, 64).to(bf16)  # scores from the bf16 towers
    torch.topk(shard_scores, 5, out=(best_scores, best_ids))


def _seen_items_index_fill_f16() -> None:
    torch.manual_seed(0)
    scores = torch.randn(1, 50).half()
    seen = torch.tensor([3, 17, 42])
    scores.index_fill_(1, seen, -1e9).topk(5)


# --- ranking losses, CTR heads and calibration


def _bpr_popularity_int_scores() -> None:
    popularity = torch.bincount(torch.tensor([1, 1, 2, 3, 3, 3, 0]), minlength=5)  # int64 counts as scores
    pos, neg = torch.tensor([3, 1]), torch.tensor([0, 4])
    -F.logsigmoid(popularity[pos] - popularity[neg]).mean()


def _listnet_softmax_int_relevance() -> None:
    torch.manual_seed(0)
    scores = torch.randn(2, 4, requires_grad=True)
    relevance = torch.tensor([[3, 0, 1, 2], [0, 0, 4, 1]])  # graded relevance labels
    target = F.softmax(relevance, dim=1)
    -(target * F.log_softmax(scores, dim=1)).sum(1).mean()


def _listwise_hinge_int32_targets() -> None:
    torch.manual_seed(0)
    scores = torch.randn(2, 6)
    relevant = torch.from_numpy(np.array([[1, 4, -1, 0, 0, 0], [2, -1, 0, 0, 0, 0]], dtype=np.int32))
    F.multilabel_margin_loss(scores, relevant)


def _listwise_hinge_bf16_scores() -> None:
    torch.manual_seed(0)
    scores = torch.randn(2, 6).to(bf16)
    relevant = torch.tensor([[1, 4, -1, 0, 0, 0], [2, -1, 0, 0, 0, 0]])
    F.multilabel_margin_loss(scores, relevant)


def _auc_float_clicks_as_mask() -> None:
    torch.manual_seed(0)
    ctr = torch.rand(8)
    clicks = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0])
    ranks = ctr.argsort().argsort() + 1
    n_pos = clicks.sum()
    (ranks[clicks].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * (len(clicks) - n_pos))


def _ctr_calibration_histogram_bf16() -> None:
    torch.manual_seed(0)
    ctr_head = nn.Linear(8, 1).to(bf16)
    predicted = torch.sigmoid(ctr_head(torch.randn(32, 8).to(bf16))).squeeze(1)
    torch.histogram(predicted, bins=10)


def _per_item_max_score_index_reduce() -> None:
    torch.manual_seed(0)
    item_ids = torch.tensor([0, 2, 2, 1, 0])
    served = torch.rand(5).to(bf16)  # predicted CTR logged by the bf16 server
    best = torch.zeros(3)
    best.index_reduce_(0, item_ids, served, "amax")


CASES: dict[str, LiveCase] = {
    # --- embedding tables
    # EmbeddingBag offsets made by cumsum of a float lengths column
    "embedding-bag-float-offsets-from-lengths": case(_embedding_bag_float_offsets, "index_tensor_dtype", "f32",
                                                     grade="correct", grade_at_freeze="correct"),
    # click counts (int64) passed as EmbeddingBag per_sample_weights
    "embedding-bag-int64-click-count-weights": case(_embedding_bag_click_count_weights, "integer_operand", "int64",
                                                    grade="correct", grade_at_freeze="correct"),
    # an int8-quantized table served through F.embedding_bag without dequantizing
    "int8-table-embedding-bag": case(_int8_table_embedding_bag, "integer_operand", "int8", fix=("dequantiz",),
                                     grade="correct", grade_at_freeze="not_recognised",
                                     why=("At freeze (42cc880) castwise gave nothing. The error is embedding_bag's "
                                          "check that the table (weight) has a floating dtype, failed by the int8 "
                                          "quantized table; this check, which names only the allowed types and the "
                                          "CharTensor, was not read as an integer table where a float one is "
                                          "required.")),
    # hashing-trick ids that travelled in the bf16 feature tensor, XOR-hashed
    "hashed-ids-xor-bf16-feature-column": case(_hashed_ids_xor_bf16, "no_kernel", "bf16",
                                               grade="correct", grade_at_freeze="correct"),
    # DLRM dot interaction: fp32 bottom-MLP output bmm'ed with bf16 embedding-bag outputs
    "dlrm-dot-interaction-bmm-fp32-dense-bf16-sparse": case(_dlrm_dot_interaction_bmm, "batched_matmul_dtype", "f32",
                                                            "bf16", grade="correct", grade_at_freeze="correct"),
    # float64 dense features from pandas into the fp32 BatchNorm of the bottom MLP
    "dense-f64-features-batchnorm": case(_dense_f64_batchnorm, "norm_param_dtype",
                                         grade="correct", grade_at_freeze="correct"),
    # float64 dense features concatenated with bf16 embeddings (cat promotes) into the bf16 top MLP
    "dense-f64-cat-bf16-embeddings-top-mlp": case(_dense_f64_cat_embeddings_top_mlp, "matmul_dtype", "f64", "bf16",
                                                  grade="correct", grade_at_freeze="correct"),
    # int64 count features log-transformed in place
    "count-features-log1p-in-place-int64": case(_count_features_log1p_in_place, "result_cast", "f32", "int64",
                                                grade="correct", grade_at_freeze="correct"),
    # int32 counters from parquet straight into an fp32 Linear
    "count-features-int32-into-linear": case(_count_features_int32_linear, "integer_operand", "int32",
                                             grade="correct", grade_at_freeze="correct"),
    # --- two towers, sampled softmax, sequences
    # MIND multi-interest: bf16 user capsules matmul'ed with the fp32 item tower's target embedding
    "mind-multi-interest-bf16-capsules-fp32-items": case(_mind_multi_interest_matmul, "matmul_dtype", "bf16", "f32",
                                                         grade="correct", grade_at_freeze="correct"),
    # log-uniform negative sampler whose ids stay float, used with index_select
    "log-uniform-sampler-float-ids-index-select": case(_log_uniform_sampler_index_select, "index_tensor_dtype",
                                                       grade="correct", grade_at_freeze="correct"),
    # popularity counts in fp16: a 120k-click item overflows to inf, inf/inf = NaN probabilities for multinomial
    "popularity-f16-negative-sampler-nan": case(_popularity_f16_negative_sampler, "nonfinite",
                                                grade="correct", grade_at_freeze="correct"),
    # GRU4Rec: the item embedding cast to bf16, the session GRU left fp32
    "gru4rec-bf16-items-fp32-gru": case(_gru4rec_fp32_gru_bf16_items, "rnn_dtype", "bf16", "f32",
                                        grade="correct", grade_at_freeze="correct"),
    # SASRec: the key padding mask built as float 0/1 (fp32) for a bf16 attention layer
    "sasrec-float-padding-mask-bf16-attention": case(_sasrec_float_padding_mask, "attn_mask_dtype", "f32", "bf16",
                                                     grade="correct", grade_at_freeze="correct"),
    # --- retrieval by hand
    # bf16 queries scored against int8 item codes before applying the scales
    "int8-item-codes-bf16-query-mm": case(_int8_item_codes_query_mm, "matmul_dtype", "bf16", "int8", fix=("dequantiz",),
                                          grade="correct", grade_at_freeze="correct"),
    # an fp16 item index scored by einsum with an fp32 query
    "fp16-item-index-fp32-query-einsum": case(_fp16_item_index_einsum, "matmul_dtype", "f32", "f16",
                                              grade="correct", grade_at_freeze="correct"),
    # an fp8 item index dequantized with bf16 per-row scales
    "fp8-item-index-bf16-scales": case(_fp8_item_index_bf16_scales, "fp8_promotion", "float8_e4m3fn", "bf16",
                                       grade="correct", grade_at_freeze="correct"),
    # product-quantization decode: uint8 PQ codes looked up in the codebook with F.embedding
    "pq-decode-uint8-codes-embedding": case(_pq_decode_embedding_uint8_codes, "index_tensor_dtype", "uint8",
                                            grade="correct", grade_at_freeze="correct"),
    # PQ asymmetric distance: int16 codes (1024 centroids) gathered from the lookup table
    "pq-adc-int16-codes-gather": case(_pq_adc_gather_int16_codes, "index_tensor_dtype",
                                      grade="correct", grade_at_freeze="correct"),
    # sharded retrieval: top-k of bf16 shard scores written into preallocated fp32 buffers with out=
    "streaming-topk-bf16-scores-fp32-out": case(_streaming_topk_into_fp32_buffers, "indexed_write_dtype", "bf16", "f32",
                                                grade="correct", grade_at_freeze="correct"),
    # excluding already-seen items from fp16 scores with index_fill_ of -1e9
    "seen-items-index-fill-minus-1e9-f16": case(_seen_items_index_fill_f16, "half_overflow", "f16",
                                                grade="correct", grade_at_freeze="correct"),
    # --- ranking losses, CTR heads and calibration
    # a BPR baseline on integer popularity scores: logsigmoid of an int64 difference
    "bpr-int64-popularity-logsigmoid": case(_bpr_popularity_int_scores, "integer_operand", "int64",
                                            grade="correct", grade_at_freeze="correct"),
    # ListNet: the target distribution as softmax of integer graded relevance
    "listnet-softmax-int64-relevance": case(_listnet_softmax_int_relevance, "integer_operand", "int64",
                                            grade="correct", grade_at_freeze="correct"),
    # listwise hinge (multilabel_margin_loss) with relevant-item lists read as int32
    "listwise-hinge-int32-relevant-items": case(_listwise_hinge_int32_targets, "target_dtype", "int32",
                                                grade="correct", grade_at_freeze="correct"),
    # listwise hinge (multilabel_margin_loss) on bf16 ranking scores
    "listwise-hinge-bf16-scores": case(_listwise_hinge_bf16_scores, "no_kernel", "bf16",
                                       grade="correct", grade_at_freeze="correct"),
    # rank-based AUC selecting the positives' ranks with the float 0/1 click labels
    "auc-float-click-labels-as-mask": case(_auc_float_clicks_as_mask, "index_tensor_dtype", fix=("bool",),
                                           grade="correct", grade_at_freeze="correct"),
    # CTR calibration: torch.histogram of the bf16 head's predicted CTR
    "ctr-calibration-histogram-bf16": case(_ctr_calibration_histogram_bf16, "no_kernel", "bf16",
                                           grade="correct", grade_at_freeze="correct"),
    # serving-log aggregation: bf16 predicted CTR index_reduce_'d (amax) into an fp32 per-item buffer
    "per-item-max-ctr-index-reduce-bf16": case(_per_item_max_score_index_reduce, "indexed_write_dtype", "f32", "bf16",
                                               grade="correct", grade_at_freeze="correct"),
}
