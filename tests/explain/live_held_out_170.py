"""Held-out live set 170: ad click-through-rate and ranking models written by hand in low precision (int64 hashed
sparse feature ids, int32 bucket indices, float64 dense features from pandas, bool masks, fp16 embedding tables,
bf16 interaction MLPs). Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at 4ed40aec."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "4ed40aec"

bf16, f16 = torch.bfloat16, torch.float16
_BUCKETS = 1000
_DIM = 8


def _seeded() -> None:
    torch.manual_seed(0)


def _impressions() -> pd.DataFrame:
    return pd.DataFrame({
        "price": [1.5, 20.0, 3.25, 7.0],
        "hour": [3, 14, 22, 9],
        "age": [25.0, np.nan, 41.0, 33.0],
        "ad_id": [9_000_000_123, 9_000_000_456, 9_000_000_789, 9_000_000_123],
        "clicked": [True, False, False, True],
    })


def _wide_part_f64_cross_features_fp16_linear() -> None:
    _seeded()
    crosses = torch.tensor(_impressions()[["price", "hour"]].to_numpy())  # float64 from pandas
    wide = nn.Linear(2, 1).half()
    wide(crosses)


def _dcn_cross_layer_bf16_weight_f32_x0() -> None:
    _seeded()
    x0 = torch.randn(4, 16)
    cross = nn.Linear(16, 16).to(bf16)
    xl = x0
    xl = x0 * cross(xl) + xl


def _din_attention_bmm_bf16_query_f32_history() -> None:
    _seeded()
    candidate = torch.randn(4, 1, _DIM, dtype=bf16)
    history = torch.randn(4, 10, _DIM)
    torch.bmm(candidate, history.transpose(1, 2))


def _pandas_nan_age_buckets_into_embedding() -> None:
    _seeded()
    age_bucket = torch.tensor((_impressions()["age"] // 10).to_numpy())  # NaN made the column float64
    nn.Embedding(16, _DIM)(age_bucket)


def _slate_scores_indexed_by_float_positions() -> None:
    _seeded()
    scores = torch.randn(20)
    shown_positions = torch.tensor(pd.Series([0, 3, np.nan, 7]).fillna(0).to_numpy())  # float64 after the NaN
    scores[shown_positions]


def _per_campaign_embedding_scatter_add_bf16() -> None:
    _seeded()
    campaign = torch.tensor([0, 2, 1, 2])[:, None].expand(4, _DIM)
    ad_vectors = torch.randn(4, _DIM, dtype=bf16)
    torch.zeros(3, _DIM).scatter_add(0, campaign, ad_vectors)


def _hashed_ids_shift_fp16_cross_feature() -> None:
    ids = torch.tensor([123456.0, 98765.0], dtype=f16)  # ids came through the fp16 feature tensor
    ids >> 3


def _history_padding_float_mask_invert() -> None:
    lengths = torch.tensor([3, 5])
    valid = (torch.arange(6)[None] < lengths[:, None]).float()
    padded = ~valid  # noqa: F841


def _din_history_masked_fill_float_mask() -> None:
    _seeded()
    weights = torch.randn(2, 6)
    padding = torch.tensor([[0.0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 1]])
    weights.masked_fill(padding, float("-inf"))


def _ctr_bce_logits_int64_labels() -> None:
    _seeded()
    logits = torch.randn(4)
    labels = torch.tensor(_impressions()["clicked"].astype("int64").to_numpy())
    F.binary_cross_entropy_with_logits(logits, labels)


def _listwise_softmax_ce_int32_clicked_slot() -> None:
    _seeded()
    logits = torch.randn(4, 10)
    clicked_slot = torch.tensor([2, 0, 7, 1], dtype=torch.int32)
    F.cross_entropy(logits, clicked_slot)


def _impression_count_fill_fp16() -> None:
    counts = torch.empty(4, dtype=f16)
    counts.fill_(120_000)


def _campaign_budget_micros_int32_full() -> None:
    torch.full((3,), 5_000_000_000, dtype=torch.int32)  # budget in micros doesn't fit int32


def _export_bf16_item_tower_to_numpy() -> None:
    _seeded()
    tower = nn.Embedding(50, _DIM).to(bf16)
    tower.weight.detach().numpy()


def _mixed_object_feature_frame_as_tensor() -> None:
    frame = pd.DataFrame({"price": [1.5, 2.0], "device": ["ios", "android"]})
    torch.as_tensor(frame.to_numpy())


def _embedding_cache_write_fp32_rows_fp16_table() -> None:
    _seeded()
    table = torch.zeros(_BUCKETS, _DIM, dtype=f16)
    ids = torch.tensor([3, 17, 999])
    table[ids] = torch.randn(3, _DIM)


def _per_ad_click_sum_index_add_bf16() -> None:
    _seeded()
    totals = torch.zeros(5, _DIM)
    ad_rows = torch.tensor([0, 3, 3])
    totals.index_add_(0, ad_rows, torch.randn(3, _DIM, dtype=bf16))


def _ema_item_embeddings_lerp_f32_into_fp16() -> None:
    _seeded()
    ema = torch.randn(10, _DIM, dtype=f16)
    fresh = torch.randn(10, _DIM)
    ema.lerp_(fresh, 0.01)


def _interaction_layernorm_bf16_params_f32_input() -> None:
    _seeded()
    norm = nn.LayerNorm(16).to(bf16)
    norm(torch.randn(4, 16))


def _bst_target_attention_sdpa_bf16_query_f32_keys() -> None:
    _seeded()
    query = torch.randn(2, 2, 1, _DIM, dtype=bf16)
    keys = torch.randn(2, 2, 10, _DIM)
    F.scaled_dot_product_attention(query, keys, keys)


def _behaviour_transformer_f64_numpy_mask() -> None:
    _seeded()
    mha = nn.MultiheadAttention(_DIM, 2, batch_first=True)
    causal = torch.from_numpy(np.triu(np.full((5, 5), -1e9), 1))
    seq = torch.randn(2, 5, _DIM)
    mha(seq, seq, seq, attn_mask=causal)


def _session_lstm_fp16_weights_f32_clicks() -> None:
    _seeded()
    lstm = nn.LSTM(_DIM, 16, batch_first=True).half()
    lstm(torch.randn(2, 6, _DIM))


def _caser_horizontal_conv_bf16_f32_embeddings() -> None:
    _seeded()
    conv = nn.Conv2d(1, 4, (2, _DIM), bias=False).to(bf16)
    conv(torch.randn(2, 1, 5, _DIM))


def _fibinet_bilinear_bf16_f32_fields() -> None:
    _seeded()
    bilinear = nn.Bilinear(_DIM, _DIM, _DIM).to(bf16)
    field = torch.randn(4, _DIM)
    bilinear(field, field)


def _two_tower_vecdot_bf16_user_f32_item() -> None:
    _seeded()
    user = torch.randn(4, _DIM, dtype=bf16)
    item = torch.randn(4, _DIM)
    torch.linalg.vecdot(user, item)


def _rerank_topk_bool_eligible() -> None:
    eligible = torch.tensor([True, False, True, True, False])
    torch.topk(eligible, 2)


def _bool_clicks_one_hot_for_two_class_head() -> None:
    clicked = torch.tensor(_impressions()["clicked"].to_numpy())
    F.one_hot(clicked, 2)


def _dense_quantile_clip_fp16() -> None:
    _seeded()
    dense = torch.rand(100, dtype=f16) * 50
    torch.quantile(dense, 0.99)


def _fp16_table_grad_assigned_fp32() -> None:
    _seeded()
    table = nn.Embedding(20, _DIM).half()
    table.weight.grad = torch.zeros(20, _DIM)


def _wide_deep_top_mlp_fp16_grad_scaler() -> None:
    _seeded()
    top = nn.Linear(_DIM, 1).half()
    optimizer = torch.optim.Adagrad(top.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    loss = top(torch.randn(4, _DIM, dtype=f16)).float().sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)


CASES: dict[str, LiveCase] = {
    # wide part of a wide-and-deep model: float64 cross features from pandas into an fp16 wide Linear
    "wide-part-f64-crosses-fp16-linear": case(_wide_part_f64_cross_features_fp16_linear, "matmul_dtype", "f64",
        "f16",
        grade="correct", grade_at_freeze="correct"),
    # DCN-v2 cross layer cast to bf16 applied to the fp32 x0 stack
    "dcn-v2-cross-bf16-weight-f32-x0": case(_dcn_cross_layer_bf16_weight_f32_x0, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DIN local activation: bf16 candidate ad against fp32 behaviour history with torch.bmm
    "din-bmm-bf16-candidate-f32-history": case(_din_attention_bmm_bf16_query_f32_history, "batched_matmul_dtype",
        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # age buckets from a pandas column with NaN (float64) looked up in an Embedding
    "pandas-nan-age-buckets-embedding": case(_pandas_nan_age_buckets_into_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # slate scores indexed by shown positions that a NaN in pandas made float64
    "slate-scores-float-positions-index": case(_slate_scores_indexed_by_float_positions, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-campaign sums of bf16 ad vectors with scatter_add into an fp32 accumulator
    "campaign-scatter-add-bf16-into-f32": case(_per_campaign_embedding_scatter_add_bf16, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # hashed ids shifted right for a cross feature after they went through an fp16 feature tensor
    "hashed-ids-shift-fp16-cross": case(_hashed_ids_shift_fp16_cross_feature, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # float padding mask of a behaviour sequence inverted with ~
    "history-float-mask-invert": case(_history_padding_float_mask_invert, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # DIN attention weights masked with a float padding mask in masked_fill
    "din-masked-fill-float-padding": case(_din_history_masked_fill_float_mask, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # BCE-with-logits CTR loss fed int64 clicked labels from pandas
    "ctr-bce-logits-int64-clicks": case(_ctr_bce_logits_int64_labels, "target_dtype", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # softmax cross-entropy over a slate with int32 clicked-slot targets
    "slate-ce-int32-clicked-slot": case(_listwise_softmax_ce_int32_clicked_slot, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # impression count buffer in fp16 filled with 120000
    "impression-count-fill-fp16": case(_impression_count_fill_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # campaign budget in micros put into an int32 tensor
    "budget-micros-int32-full": case(_campaign_budget_micros_int32_full, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 item tower table exported to numpy for an ANN index
    "bf16-item-tower-to-numpy": case(_export_bf16_item_tower_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a feature frame with a string column turned into a tensor (object array)
    "mixed-object-feature-frame-tensor": case(_mixed_object_feature_frame_as_tensor, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # fp32 rows written into an fp16 embedding cache by index
    "embedding-cache-fp32-rows-fp16-table": case(_embedding_cache_write_fp32_rows_fp16_table,
        "indexed_write_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-ad sums with index_add_ of bf16 embeddings into an fp32 accumulator
    "per-ad-sum-index-add-bf16": case(_per_ad_click_sum_index_add_bf16, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # EMA of item embeddings kept in fp16, lerped toward fp32 fresh embeddings
    "ema-item-embeddings-lerp-fp16-f32": case(_ema_item_embeddings_lerp_f32_into_fp16, "lerp_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # interaction MLP's LayerNorm cast to bf16 applied to fp32 features
    "interaction-layernorm-bf16-f32-input": case(_interaction_layernorm_bf16_params_f32_input, "norm_param_dtype",
        "f32",
        grade="correct", grade_at_freeze="correct"),
    # BST target attention with SDPA: bf16 target query, fp32 behaviour keys
    "bst-sdpa-bf16-query-f32-keys": case(_bst_target_attention_sdpa_bf16_query_f32_keys, "sdpa_dtype", "bf16",
        "f32",
        grade="correct", grade_at_freeze="correct"),
    # behaviour sequence transformer given a float64 numpy causal mask
    "behaviour-mha-f64-numpy-mask": case(_behaviour_transformer_f64_numpy_mask, "attn_mask_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # session LSTM cast to fp16 fed fp32 click embeddings
    "session-lstm-fp16-f32-clicks": case(_session_lstm_fp16_weights_f32_clicks, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Caser horizontal convolution in bf16 over fp32 item embeddings
    "caser-conv-bf16-f32-embeddings": case(_caser_horizontal_conv_bf16_f32_embeddings, "conv_weight_dtype", "f32",
        "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FiBiNET bilinear interaction in bf16 over fp32 field embeddings
    "fibinet-bilinear-bf16-f32-fields": case(_fibinet_bilinear_bf16_f32_fields, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # two-tower score with vecdot of a bf16 user vector and an fp32 item vector
    "two-tower-vecdot-bf16-f32": case(_two_tower_vecdot_bf16_user_f32_item, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # re-ranker takes topk of a bool eligibility vector
    "rerank-topk-bool-eligible": case(_rerank_topk_bool_eligible, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # bool clicked labels one-hot encoded for a two-class click head
    "bool-clicks-one-hot-two-class": case(_bool_clicks_one_hot_for_two_class_head, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # p99 clip of an fp16 dense feature with torch.quantile
    "dense-quantile-clip-fp16": case(_dense_quantile_clip_fp16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # zeroed fp32 gradient assigned to an fp16 embedding table's .grad
    "fp16-table-grad-assigned-fp32": case(_fp16_table_grad_assigned_fp32, "loss_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 top MLP trained with Adagrad under a GradScaler (unscale of fp16 gradients)
    "top-mlp-fp16-adagrad-grad-scaler": case(_wide_deep_top_mlp_fp16_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
