"""Held-out live set 120: sequential and session-based recommendation written by hand in low precision (item-id
sequences as int64 with padding id 0, bool padding and causal masks, time intervals in float64 seconds from pandas,
SASRec/BERT4Rec/GRU4Rec/TiSASRec/FMLP-Rec/NARM blocks, sampled softmax with int64 negatives, top-k metrics (HR, NDCG,
MRR) computed with Python numbers, bf16 autocast around the encoders). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at e376b1d."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e376b1d"

bf16, f16 = torch.bfloat16, torch.float16
_ITEMS = 500  # item ids 1..499, 0 is padding
_LEN = 8  # max sequence length
_DIM = 16


def _seeded() -> None:
    torch.manual_seed(0)


def _sequences() -> torch.Tensor:
    """Three left-padded item-id sequences (int64, padding id 0), as the collate function builds them."""
    return torch.tensor([
        [0, 0, 0, 12, 45, 7, 301, 88],
        [0, 0, 0, 0, 0, 3, 3, 19],
        [41, 5, 77, 230, 9, 12, 460, 31],
    ])


def _session_log() -> pd.DataFrame:
    """A small click log: one row per (session, item, timestamp), timestamps as pandas datetimes."""
    return pd.DataFrame({
        "session": [1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3],
        "item": [12, 45, 7, 301, 3, 3, 19, 41, 5, 77, 230, 9],
        "ts": pd.to_datetime([
            "2024-03-01 10:00:00", "2024-03-01 10:00:41", "2024-03-01 10:03:12", "2024-03-01 10:30:05",
            "2024-03-02 08:15:00", "2024-03-02 08:15:09", "2024-03-02 08:16:30",
            "2024-03-03 21:00:00", "2024-03-03 21:02:00", "2024-03-04 09:00:00", "2024-03-04 09:00:30",
            "2024-03-05 12:00:00",
        ]),
    })


def _sasrec_blocks(dtype: torch.dtype = torch.float32) -> tuple[nn.Embedding, nn.TransformerEncoder]:
    item_emb = nn.Embedding(_ITEMS, _DIM, padding_idx=0).to(dtype)
    layer = nn.TransformerEncoderLayer(_DIM, 2, 2 * _DIM, dropout=0.0, batch_first=True, norm_first=True)
    return item_emb, nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).to(dtype)


# --- masks and padding


def _sasrec_timeline_mask_one_minus_bool() -> None:
    _seeded()
    seq = _sequences()
    item_emb = nn.Embedding(_ITEMS, _DIM, padding_idx=0)
    timeline_mask = 1 - (seq == 0)  # ported from the TF code's 1 - tf.to_float(tf.equal(seq, 0))
    item_emb(seq) * timeline_mask[..., None]


def _sasrec_float_keep_mask_inverted_with_tilde() -> None:
    _seeded()
    seq = _sequences()
    item_emb, encoder = _sasrec_blocks()
    keep = (seq != 0).float()  # kept float to multiply the embeddings with
    encoder(item_emb(seq) * keep[..., None], src_key_padding_mask=~keep)


def _gru4rec_session_reset_long_mask() -> None:
    _seeded()
    gru = nn.GRU(_DIM, 32, batch_first=True)
    item_emb = nn.Embedding(_ITEMS, _DIM)
    hidden = torch.zeros(1, 3, 32)
    _, hidden = gru(item_emb(torch.tensor([[12], [3], [41]])), hidden)
    session_ended = torch.from_numpy(np.array([0, 1, 0]))  # session-parallel batching: 1 where a new session starts
    hidden.masked_fill_(session_ended[None, :, None], 0.0)


def _bert4rec_mask_prob_bernoulli_full_like_ids() -> None:
    _seeded()
    seq = _sequences()
    mask_prob = torch.full_like(seq, 0.2)  # meant as a 20% Cloze masking probability per position
    torch.bernoulli(mask_prob).bool() & (seq != 0)


def _first_padding_position_argmax_bool() -> None:
    seq = torch.tensor([[12, 45, 7, 301, 88, 0, 0, 0], [3, 3, 19, 0, 0, 0, 0, 0]])  # right-padded for GRU4Rec
    lengths = (seq == 0).argmax(1)
    lengths.max()


# --- indices and targets


def _eval_negatives_int32_take_along_dim() -> None:
    _seeded()
    scores = torch.randn(3, _ITEMS)
    negatives = np.random.default_rng(0).integers(1, _ITEMS, size=(3, 100), dtype=np.int32)  # np.load'ed int32
    positives = np.array([[88], [19], [31]], dtype=np.int32)
    candidates = torch.from_numpy(np.concatenate([positives, negatives], axis=1))  # 1 positive + 100 negatives
    torch.take_along_dim(scores, candidates, 1)


def _tisasrec_relative_interval_float_index() -> None:
    _seeded()
    log = _session_log()
    seconds = torch.from_numpy((log["ts"] - log["ts"].min()).dt.total_seconds().to_numpy()[:8])[None]
    time_unit = 60.0  # personalised time scale: minutes
    rel = torch.clamp((seconds[:, :, None] - seconds[:, None, :]).abs() // time_unit, max=256)
    time_k = nn.Parameter(torch.randn(257, _DIM))
    time_k[rel]


def _sampled_softmax_labels_zeros_float() -> None:
    _seeded()
    hidden = torch.randn(3, _DIM)
    item_table = torch.randn(_ITEMS, _DIM)
    positives = torch.tensor([88, 19, 31])
    negatives = torch.randint(1, _ITEMS, (3, 20))
    candidates = torch.cat([positives[:, None], negatives], 1)
    logits = (item_table[candidates] * hidden[:, None]).sum(-1)
    labels = torch.zeros(len(logits))  # the positive sits in column 0
    F.cross_entropy(logits, labels)


def _sasrec_bce_ones_like_positive_ids() -> None:
    _seeded()
    seq = _sequences()
    pos = torch.roll(seq, -1, 1)
    item_emb, _ = _sasrec_blocks()
    feats = torch.randn(3, _LEN, _DIM)
    pos_logits = (feats * item_emb(pos)).sum(-1)
    F.binary_cross_entropy_with_logits(pos_logits, torch.ones_like(pos))


# --- metrics with Python numbers


def _hit_rate_python_ints_tensor_mean() -> None:
    _seeded()
    scores = torch.randn(3, 101)  # column 0 is the held-out item, 100 sampled negatives
    hits = []
    for row in scores:
        rank = int((row[1:] > row[0]).sum())
        hits.append(int(rank < 10))
    torch.tensor(hits).mean()


def _mrr_reciprocal_in_place_int_ranks() -> None:
    _seeded()
    scores = torch.randn(3, 101)
    ranks = (scores[:, 1:] > scores[:, :1]).sum(1) + 1
    ranks.reciprocal_().mean().item()


# --- mixed floats around the encoders


def _sasrec_autocast_logits_outside() -> None:
    _seeded()
    seq = _sequences()
    item_emb, encoder = _sasrec_blocks()
    user_proj = nn.Linear(_DIM, _DIM)  # projects the last state into the item-embedding space
    with torch.autocast("cpu", dtype=bf16):
        feats = user_proj(encoder(item_emb(seq), src_key_padding_mask=seq == 0)[:, -1])
    feats @ item_emb.weight.T  # full-catalogue scores after leaving autocast


def _sampled_softmax_bmm_bf16_negatives() -> None:
    _seeded()
    item_table = nn.Embedding(_ITEMS, _DIM).to(bf16)  # the big table kept in bf16 to save memory
    hidden = torch.randn(3, _DIM)  # fp32 user state from the encoder
    negatives = torch.randint(1, _ITEMS, (3, 50))
    torch.bmm(item_table(negatives), hidden[:, :, None])


def _bert4rec_candidates_einsum_outside_autocast() -> None:
    _seeded()
    seq = _sequences().clone()
    seq[:, -1] = _ITEMS  # the [MASK] token appended at the end
    item_emb = nn.Embedding(_ITEMS + 1, _DIM, padding_idx=0)
    layer = nn.TransformerEncoderLayer(_DIM, 2, 2 * _DIM, dropout=0.0, batch_first=True, activation="gelu")
    bert = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    transform = nn.Sequential(nn.Linear(_DIM, _DIM), nn.GELU())  # BERT4Rec's output transform before scoring
    with torch.autocast("cpu", dtype=bf16):
        hidden = transform(bert(item_emb(seq), src_key_padding_mask=seq == 0)[:, -1])
    candidates = torch.randint(1, _ITEMS, (3, 101))
    torch.einsum("bd,bnd->bn", hidden, item_emb(candidates))


def _tisasrec_interval_bias_f64_sdpa() -> None:
    _seeded()
    log = _session_log()
    seconds = (log["ts"] - log["ts"].min()).dt.total_seconds().to_numpy()[:_LEN]  # float64
    bias = -np.log1p(np.abs(seconds[:, None] - seconds[None, :]) / 3600.0)  # closer clicks attend more
    q = torch.randn(1, 2, _LEN, _DIM // 2, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=torch.from_numpy(bias))


def _gru4rec_bf16_gru_fp32_initial_hidden() -> None:
    _seeded()
    item_emb = nn.Embedding(_ITEMS, _DIM).to(bf16)
    gru = nn.GRU(_DIM, 32, batch_first=True).to(bf16)
    hidden = torch.zeros(1, 3, 32)  # init_hidden() written before the model was cast
    gru(item_emb(_sequences()), hidden)


def _gru4rec_dwell_time_f64_concat() -> None:
    _seeded()
    log = _session_log()
    dwell = log.groupby("session")["ts"].diff().shift(-1).dt.total_seconds().fillna(0.0).to_numpy()  # float64
    items = torch.tensor(log["item"].to_numpy()[:8])[None]
    item_emb = nn.Embedding(_ITEMS, _DIM)
    gru = nn.GRU(_DIM + 1, 32, batch_first=True)
    features = torch.cat([item_emb(items), torch.from_numpy(np.log1p(dwell[:8]))[None, :, None]], -1)
    gru(features)


def _sasrec_bf16_layernorm_fp32_item_embeddings() -> None:
    _seeded()
    seq = _sequences()
    item_emb = nn.Embedding(_ITEMS, _DIM, padding_idx=0)  # kept fp32 for the large table's precision
    pos_emb = nn.Embedding(_LEN, _DIM)
    attention_layernorm = nn.LayerNorm(_DIM, eps=1e-8).to(bf16)  # the blocks cast with model.to(bf16)
    seqs = item_emb(seq) * _DIM**0.5 + pos_emb(torch.arange(_LEN))
    attention_layernorm(seqs)


def _time_gap_log1p_f64_linear() -> None:
    _seeded()
    log = _session_log()
    gaps = log.groupby("session")["ts"].diff().dt.total_seconds().fillna(0.0)  # seconds since the previous click
    gap_feature = torch.from_numpy(np.log1p(gaps.to_numpy()))[:, None]
    time_proj = nn.Linear(1, _DIM)
    time_proj(gap_feature)


def _fmlp_rec_rfft_bf16() -> None:
    _seeded()
    seqs = nn.Embedding(_ITEMS, _DIM).to(bf16)(_sequences())  # FMLP-Rec cast with model.to(bf16)
    complex_weight = torch.randn(1, _LEN // 2 + 1, _DIM, 2) * 0.02
    spectrum = torch.fft.rfft(seqs, dim=1, norm="ortho")
    torch.fft.irfft(spectrum * torch.view_as_complex(complex_weight), n=_LEN, dim=1, norm="ortho")


def _session_pooling_index_add_bf16_autocast() -> None:
    _seeded()
    items = torch.tensor([12, 45, 7, 301, 3, 3, 19, 41, 5, 77])
    session_of_click = torch.tensor([0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
    item_emb = nn.Embedding(_ITEMS, _DIM)
    proj = nn.Linear(_DIM, _DIM)
    with torch.autocast("cpu", dtype=bf16):
        states = proj(item_emb(items))
        session_repr = torch.zeros(3, _DIM).index_add_(0, session_of_click, states)
    session_repr / torch.bincount(session_of_click)[:, None]


def _popularity_time_decay_scatter_add_f64() -> None:
    log = _session_log()
    age_days = (log["ts"].max() - log["ts"]).dt.total_seconds() / 86400.0
    decay = torch.from_numpy(np.exp(-age_days.to_numpy() / 7.0))  # a one-week half-life, float64 from pandas
    popularity = torch.zeros(_ITEMS)
    popularity.scatter_add_(0, torch.from_numpy(log["item"].to_numpy()), decay)
    torch.multinomial(popularity ** 0.75, 20, replacement=True)  # popularity-based negatives


def _interval_cap_one_year_full_like_f16() -> None:
    intervals = torch.tensor([41.0, 151.0, 1613.0, 0.0], dtype=f16)  # seconds, from the fp16 feature cache
    cap = torch.full_like(intervals, 365 * 86400)
    torch.minimum(intervals, cap)


def _sasrec_all_padding_session_nan_sampling() -> None:
    _seeded()
    seq = torch.tensor([[0] * _LEN, [0, 0, 0, 12, 45, 7, 301, 88]])  # a user whose history was filtered out
    item_emb = nn.Embedding(_ITEMS, _DIM, padding_idx=0)
    attention = nn.MultiheadAttention(_DIM, 2, batch_first=True)
    x = item_emb(seq)
    feats, _ = attention(x, x, x, key_padding_mask=seq == 0)
    probs = (feats[:, -1] @ item_emb.weight.T).softmax(-1)
    torch.multinomial(probs, 10)


def _eval_bf16_scores_numpy_argpartition() -> None:
    _seeded()
    scores = torch.randn(3, _ITEMS, dtype=bf16)  # from the model cast with .to(bf16)
    top = np.argpartition(-scores.numpy(), 10, axis=1)[:, :10]
    hits = (top == np.array([[88], [19], [31]])).any(1)
    float(hits.mean())


def _gru4rec_half_gradscaler_unscale() -> None:
    _seeded()
    item_emb = nn.Embedding(_ITEMS, _DIM).half()
    gru = nn.GRU(_DIM, 32, batch_first=True).half()
    params = list(item_emb.parameters()) + list(gru.parameters())
    optimizer = torch.optim.Adagrad(params, lr=0.05)
    scaler = torch.amp.GradScaler("cpu")
    out, _ = gru(item_emb(_sequences()))
    scaler.scale(out.float().pow(2).mean()).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(params, 1.0)


def _bf16_item_table_grad_to_fp32_master() -> None:
    _seeded()
    item_emb = nn.Embedding(_ITEMS, _DIM).to(bf16)
    master = nn.Parameter(item_emb.weight.detach().float())  # fp32 master copy of the table
    item_emb(_sequences()).float().pow(2).mean().backward()
    master.grad = item_emb.weight.grad


def _sknn_session_item_csr_f64_sparse_mm() -> None:
    _seeded()
    log = _session_log()
    rows = torch.from_numpy(log["session"].to_numpy() - 1)
    cols = torch.from_numpy(log["item"].to_numpy())
    weights = torch.from_numpy(1.0 / log.groupby("session")["item"].transform("size").to_numpy())  # float64
    session_items = torch.sparse_coo_tensor(torch.stack([rows, cols]), weights, (3, _ITEMS)).to_sparse_csr()
    item_vectors = torch.randn(_ITEMS, _DIM)
    torch.sparse.mm(session_items, item_vectors)


def _narm_bilinear_decoder_bf16_candidates() -> None:
    _seeded()
    item_emb = nn.Embedding(_ITEMS, _DIM).to(bf16)
    session_repr = torch.randn(3, 2 * _DIM)  # [c_global; c_local] from the fp32 GRU encoder
    decoder = nn.Bilinear(_DIM, 2 * _DIM, 1, bias=False)
    candidates = item_emb(torch.tensor([88, 19, 31]))
    decoder(candidates, session_repr)


def _neighbour_sessions_cdist_bf16() -> None:
    _seeded()
    session_vectors = torch.randn(3, _DIM, dtype=bf16)  # encoder outputs of the bf16 model
    memory = torch.randn(20, _DIM, dtype=bf16)  # the last 20 sessions' vectors
    torch.cdist(session_vectors, memory).topk(5, largest=False)


CASES: dict[str, LiveCase] = {
    # SASRec timeline mask ported from TF as 1 - (seq == 0) on the bool padding test
    "sasrec-timeline-mask-one-minus-bool": case(_sasrec_timeline_mask_one_minus_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # SASRec keep mask made float to scale embeddings, inverted with ~ for src_key_padding_mask
    "sasrec-float-keep-mask-inverted-with-tilde": case(_sasrec_float_keep_mask_inverted_with_tilde, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # GRU4Rec session-parallel batches: hidden reset with masked_fill_ of an int64 session-start flag array
    "gru4rec-session-reset-int64-flags-masked-fill": case(_gru4rec_session_reset_long_mask, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # BERT4Rec Cloze masking: bernoulli of full_like(item ids, 0.2), which is an int64 tensor of zeros
    "bert4rec-cloze-bernoulli-full-like-ids": case(_bert4rec_mask_prob_bernoulli_full_like_ids, "no_kernel",
                                                   "int64",
        grade="correct", grade_at_freeze="correct"),
    # sequence lengths as argmax of the bool padding test of right-padded sessions
    "first-padding-position-argmax-bool": case(_first_padding_position_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # 1-positive-100-negatives evaluation: int32 candidates from numpy in take_along_dim
    "eval-100-negatives-int32-take-along-dim": case(_eval_negatives_int32_take_along_dim, "index_tensor_dtype",
                                                    "int32",
        grade="correct", grade_at_freeze="correct"),
    # TiSASRec: relative interval matrix from float64 seconds // unit (still float) indexing the time-key table
    "tisasrec-relative-interval-float-index-table": case(_tisasrec_relative_interval_float_index,
                                                         "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # sampled softmax with the positive in column 0: labels made by torch.zeros(B), fp32
    "sampled-softmax-labels-zeros-float": case(_sampled_softmax_labels_zeros_float, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SASRec BCE: positive labels by ones_like of the int64 positive item ids
    "sasrec-bce-ones-like-positive-ids": case(_sasrec_bce_ones_like_positive_ids, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # HR@10 accumulated as Python ints, averaged with torch.tensor(hits).mean()
    "hit-rate-python-ints-tensor-mean": case(_hit_rate_python_ints_tensor_mean, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # MRR: reciprocal_ in place on the int64 ranks
    "mrr-reciprocal-in-place-int64-ranks": case(_mrr_reciprocal_in_place_int_ranks, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # SASRec encoder under bf16 autocast, full-catalogue logits with the fp32 item table after leaving it
    "sasrec-autocast-logits-outside-matmul": case(_sasrec_autocast_logits_outside, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # sampled softmax: bf16 item table's negatives bmm'ed with the fp32 user state
    "sampled-softmax-bmm-bf16-negatives-f32-state": case(_sampled_softmax_bmm_bf16_negatives,
                                                         "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # BERT4Rec: [MASK] position's bf16 state (autocast) einsum'ed with fp32 candidate embeddings outside it
    "bert4rec-candidates-einsum-outside-autocast": case(_bert4rec_candidates_einsum_outside_autocast,
                                                        "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TiSASRec-style interval bias computed in numpy float64 as SDPA's attn_mask with bf16 queries
    "tisasrec-interval-bias-f64-sdpa-mask": case(_tisasrec_interval_bias_f64_sdpa, "attn_mask_dtype", "f64",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GRU4Rec cast to bf16, initial hidden state still torch.zeros fp32
    "gru4rec-bf16-gru-fp32-initial-hidden": case(_gru4rec_bf16_gru_fp32_initial_hidden, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GRU4Rec with a dwell-time feature: float64 seconds from pandas cat'ed to fp32 item embeddings
    "gru4rec-dwell-time-f64-concat-input": case(_gru4rec_dwell_time_f64_concat, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SASRec cast to bf16 but its item table kept fp32: fp32 sequence into the bf16 attention LayerNorm
    "sasrec-bf16-layernorm-fp32-item-embeddings": case(_sasrec_bf16_layernorm_fp32_item_embeddings,
                                                       "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # log1p of pandas float64 inter-click gaps into an fp32 time projection
    "time-gap-log1p-f64-linear": case(_time_gap_log1p_f64_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # FMLP-Rec filter layer: rfft over the sequence of a model cast to bf16
    "fmlp-rec-rfft-bf16-sequence": case(_fmlp_rec_rfft_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # session pooling inside bf16 autocast: index_add_ of bf16 states into an fp32 zeros buffer
    "session-pooling-index-add-bf16-autocast": case(_session_pooling_index_add_bf16_autocast,
                                                    "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # time-decayed popularity for the negative sampler: float64 decay weights scatter_add_'ed into fp32 counts
    "popularity-time-decay-scatter-add-f64": case(_popularity_time_decay_scatter_add_f64, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a one-year interval cap in seconds put in full_like of fp16 intervals
    "interval-cap-one-year-full-like-f16": case(_interval_cap_one_year_full_like_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a user with an all-padding history: attention over no keys is NaN, sampling next items fails
    "sasrec-all-padding-history-nan-multinomial": case(_sasrec_all_padding_session_nan_sampling, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # evaluation by np.argpartition of the bf16 model's scores via .numpy()
    "eval-bf16-scores-numpy-argpartition": case(_eval_bf16_scores_numpy_argpartition, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GRU4Rec made .half() trained with GradScaler, unscale_ before gradient clipping
    "gru4rec-half-gradscaler-unscale": case(_gru4rec_half_gradscaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 item table's gradient assigned to its fp32 master copy
    "bf16-item-table-grad-to-fp32-master": case(_bf16_item_table_grad_to_fp32_master, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # session-kNN: float64 session-item CSR weights from pandas times fp32 item vectors in torch.sparse.mm
    "sknn-session-item-csr-f64-sparse-mm": case(_sknn_session_item_csr_f64_sparse_mm, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # NARM bilinear decoder: bf16 candidate embeddings against the fp32 session representation
    "narm-bilinear-decoder-bf16-candidates": case(_narm_bilinear_decoder_bf16_candidates, "op_dtype", "bf16",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # neighbour sessions by cdist of the bf16 model's session vectors
    "neighbour-sessions-cdist-bf16": case(_neighbour_sessions_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
