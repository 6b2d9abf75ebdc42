"""Held-out live set 76: learning-to-rank and search ranking written by hand in low precision (pairwise RankNet,
listwise ListNet/NeuralSort/Plackett-Luce, NDCG and MRR in torch with integer relevance grades, query groups as sizes,
offsets and segment ids, BM25 and LETOR features arriving as float64 from numpy/scipy, cross-encoder and bi-encoder
rerankers under bf16 autocast, click logs with bool clicks, position-bias propensities and click models, sorting and
ranks, hard-negative mining by index). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at c323d85."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch
import torch.nn.functional as F
from torch import nn
from transformers import BertConfig, BertModel

from .live_cases import LiveCase, case

FROZEN_AT = "c323d85"

bf16, f16 = torch.bfloat16, torch.float16
_LIST = 8  # documents per query list
_FEATURES = 46  # LETOR 4.0 feature count


def _seeded() -> None:
    torch.manual_seed(0)


def _relevance() -> torch.Tensor:
    """Graded relevance 0-4 of three queries' lists (int64, as read from qrels)."""
    return torch.tensor([[4, 2, 0, 1, 0, 0, 3, 0], [0, 0, 1, 0, 2, 0, 0, 0], [1, 3, 0, 0, 0, 2, 0, 1]])


def _clicks() -> torch.Tensor:
    """Bool clicks of three logged sessions, ten results each."""
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.random((3, 10)) < 0.3)


# --- metrics, ranks, query groups


def _ndcg_gains_divided_in_place() -> None:
    relevance = _relevance()
    scores = torch.randn(3, _LIST, generator=torch.Generator().manual_seed(0))
    order = scores.argsort(dim=1, descending=True)
    gains = 2 ** relevance.gather(1, order) - 1  # exponential gain, still int64
    positions = torch.arange(1, _LIST + 1)
    gains /= torch.log2(positions + 1.0)  # discounted in place
    gains.sum(1)


def _mrr_per_query_buffer_from_full() -> None:
    query_ids = torch.tensor([0, 0, 1, 1, 1, 2])
    first_relevant_rank = torch.tensor([3, 1, 2, 5, 1, 4])
    n_queries = 3
    best_rr = torch.full((n_queries,), 0)  # queries with no relevant document keep 0
    best_rr.index_put_((query_ids,), 1.0 / first_relevant_rank)
    best_rr.mean()


def _group_file_float_sizes_repeat_interleave() -> None:
    _seeded()
    groups = np.loadtxt(["3", "5", "2"])  # the LightGBM/XGBoost train.group file, np.loadtxt reads float64
    scores = torch.randn(int(groups.sum()))
    segment_ids = torch.repeat_interleave(torch.arange(len(groups)), torch.from_numpy(groups))
    torch.zeros(len(groups)).index_add_(0, segment_ids, scores.exp())


def _ranks_scattered_into_empty_like_scores() -> None:
    _seeded()
    scores = torch.randn(3, _LIST)
    order = scores.argsort(dim=1, descending=True)
    ranks = torch.empty_like(scores).scatter_(1, order, torch.arange(_LIST).expand_as(order))  # rank of each doc
    ranks.add_(1)


def _neuralsort_scaling_integer_matmul() -> None:
    _seeded()
    scores = torch.randn(2, _LIST, 1, dtype=bf16)  # a bf16 scorer's outputs, (batch, n, 1)
    n = scores.shape[1]
    pairwise = (scores - scores.transpose(1, 2)).abs()
    row_sums = pairwise.sum(-1, keepdim=True)
    scaling = n + 1 - 2 * (torch.arange(n) + 1)  # NeuralSort's (n + 1 - 2i), left int64
    c = torch.matmul(scores, scaling.unsqueeze(0))
    ((c - row_sums.transpose(1, 2)) / 1.0).softmax(-1)


# --- click logs, propensities, click models


def _ranknet_pairs_from_bool_clicks() -> None:
    clicks = _clicks()
    # preference S_ij in {-1, 0, 1} from clicked-vs-not-clicked pairs of a session
    preference = clicks[:, :, None] - clicks[:, None, :]
    (preference > 0).sum()


def _position_bias_tower_uint8_positions() -> None:
    _seeded()
    positions = np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]], dtype=np.uint8)  # stored compactly in the click log
    bias_tower = nn.Embedding(10, 1)  # PAL: a position-only tower added to the relevance logit
    relevance_logits = torch.randn(2, 5)
    relevance_logits + bias_tower(torch.from_numpy(positions)).squeeze(-1)


def _power_law_propensity_negative_integer_exponent() -> None:
    eta = 1  # the classic 1/rank^eta examination model
    positions = torch.arange(1, 11)
    propensity = positions ** -eta
    clicks = _clicks().float()
    (clicks / propensity).sum()


def _click_model_bernoulli_log_prob_bool_clicks() -> None:
    _seeded()
    examination = torch.sigmoid(torch.randn(10))  # position-based model: P(examined at rank k)
    attractiveness = torch.sigmoid(torch.randn(3, 10))
    click_model = torch.distributions.Bernoulli(probs=examination * attractiveness)
    -click_model.log_prob(_clicks()).sum()


def _ips_weighted_listwise_padding_fp16() -> None:
    _seeded()
    scores = torch.randn(3, 6, dtype=f16)  # fp16 reranker scores, lists of different length padded to 10
    padded = F.pad(scores, (0, 4), value=-1e9)
    padded.softmax(-1)


def _plackett_luce_sampling_fp16_overflow() -> None:
    _seeded()
    scores = (torch.randn(4, 20) * 3 + 12).to(f16)  # an fp16 ranker's logits for stochastic ranking (PL-Rank)
    temperature = 0.1
    weights = torch.exp(scores / temperature)
    probs = weights / weights.sum(-1, keepdim=True)
    torch.multinomial(probs, num_samples=10, replacement=False)  # one sampled ranking per query


# --- hard-negative mining


def _hard_negative_mask_from_one_hot() -> None:
    _seeded()
    similarity = torch.randn(4, 32)  # queries x candidate passages from the bi-encoder
    positive_ids = torch.tensor([3, 17, 8, 30])
    positive_mask = F.one_hot(positive_ids, num_classes=32)
    similarity.masked_fill(positive_mask, float("-inf")).topk(7, dim=1)


def _hard_negatives_nan_padded_float_ids() -> None:
    _seeded()
    # mined negatives per query from a DataFrame column; queries with fewer negatives are padded with NaN, which
    # turns the whole column float64
    negatives = np.array([[12.0, 7.0, 30.0], [5.0, 19.0, np.nan], [2.0, 9.0, 21.0]])
    negatives = np.nan_to_num(negatives, nan=0.0)
    passage_embeddings = torch.randn(32, 16)
    passage_embeddings[torch.from_numpy(negatives)]


def _mmr_diversity_pdist_under_autocast() -> None:
    _seeded()
    encoder = nn.Linear(64, 32)
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        candidates = encoder(torch.randn(10, 64))
        redundancy = F.pdist(candidates)  # pairwise distances between candidates for maximal marginal relevance
    redundancy.min()


def _bi_encoder_index_build_under_autocast() -> None:
    _seeded()
    encoder = nn.Linear(64, 32)
    index = torch.zeros(100, 32)  # preallocated passage index
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        batch_ids = torch.arange(16, 32)
        embeddings = F.normalize(encoder(torch.randn(16, 64)), dim=-1)
        index.index_copy_(0, batch_ids, embeddings)


# --- features, BM25 and hybrid scores from numpy / scipy


def _letor_f64_features_into_bf16_ranker() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    features = rng.random((3 * _LIST, _FEATURES))  # MSLR/LETOR features parsed with numpy: float64
    features = (features - features.mean(0)) / (features.std(0) + 1e-6)
    ranker = nn.Sequential(nn.Linear(_FEATURES, 32), nn.ReLU(), nn.Linear(32, 1)).to(bf16)
    ranker(torch.from_numpy(features))


def _dcg_dot_numpy_discounts() -> None:
    relevance = torch.tensor([3, 2, 3, 0, 1, 2])
    discounts = torch.from_numpy(1.0 / np.log2(np.arange(2, 8)))  # precomputed once in numpy: float64
    gains = (2.0 ** relevance - 1).float()
    torch.dot(gains, discounts)


def _hybrid_bm25_lerp_dense() -> None:
    _seeded()
    bm25 = np.array([12.3, 9.8, 7.1, 6.6, 2.0])  # rank_bm25's get_scores: float64
    bm25 = torch.from_numpy((bm25 - bm25.min()) / (bm25.max() - bm25.min()))
    dense = torch.rand(5)
    torch.lerp(bm25, dense, 0.7)  # convex combination of lexical and dense scores


def _bm25_scipy_csr_sparse_mm() -> None:
    _seeded()
    doc_term = sp.random(6, 50, density=0.2, format="csr", random_state=0)  # BM25-weighted doc-term matrix, float64
    docs = torch.sparse_csr_tensor(torch.from_numpy(doc_term.indptr), torch.from_numpy(doc_term.indices),
                                   torch.from_numpy(doc_term.data), size=doc_term.shape)
    query = torch.zeros(50, 1)
    query[[3, 17, 41]] = 1.0
    docs @ query


def _embedding_bag_bm25_term_weights() -> None:
    _seeded()
    term_embeddings = nn.EmbeddingBag(1000, 16, mode="sum")
    term_ids = torch.tensor([12, 501, 77, 3, 940])
    offsets = torch.tensor([0, 3])
    bm25_weights = torch.from_numpy(np.array([1.7, 0.4, 2.2, 0.9, 1.1]))  # per-term BM25 weights, float64
    term_embeddings(term_ids, offsets, per_sample_weights=bm25_weights)


def _idf_fp16_collection_size() -> None:
    document_frequency = torch.tensor([120.0, 5300.0, 41000.0], dtype=f16)  # kept with the fp16 index statistics
    n_docs = torch.full_like(document_frequency, 8_841_823)  # MS MARCO passage count
    torch.log((n_docs - document_frequency + 0.5) / (document_frequency + 0.5) + 1)


def _trec_run_bf16_scores_numpy() -> None:
    _seeded()
    reranker = nn.Linear(32, 1)
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        scores = reranker(torch.randn(5, 32)).squeeze(-1)
    lines = [f"q1 Q0 d{i} {rank} {score:.4f} rerank" for rank, (i, score) in
             enumerate(zip(range(5), scores.numpy()), start=1)]
    "\n".join(lines)


# --- rerankers


def _cross_encoder_pooler_outside_autocast() -> None:
    _seeded()
    config = BertConfig(vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    encoder = BertModel(config).eval()
    score_head = nn.Linear(32, 1)
    pairs = torch.randint(0, 128, (4, 16))  # [CLS] query [SEP] passage [SEP]
    with torch.no_grad():
        with torch.autocast("cpu", dtype=bf16):
            pooled = encoder(input_ids=pairs, attention_mask=torch.ones_like(pairs)).pooler_output
        score_head(pooled).squeeze(-1)


def _cross_encoder_fp16_extended_mask_bf16() -> None:
    _seeded()
    batch, heads, length, dim = 2, 4, 12, 8
    attention_mask = torch.ones(batch, length, dtype=torch.long)
    attention_mask[1, 9:] = 0
    # extended mask copied from a GPU fp16 recipe; the CPU run keeps the model in bf16
    extended = (1.0 - attention_mask[:, None, None, :].to(f16)) * torch.finfo(f16).min
    q, k, v = (torch.randn(batch, heads, length, dim, dtype=bf16) for _ in range(3))
    F.scaled_dot_product_attention(q, k, v, attn_mask=extended)


def _setrank_float_key_padding_mask() -> None:
    _seeded()
    setrank = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)  # self-attention across a query's documents
    docs = torch.randn(2, _LIST, 16, dtype=bf16)
    padding = torch.tensor([[False] * _LIST, [False] * 5 + [True] * 3])
    key_padding_mask = torch.zeros(2, _LIST).masked_fill(padding, float("-inf"))
    setrank(docs, docs, docs, key_padding_mask=key_padding_mask)


def _rank_position_embedding_before_bf16_layernorm() -> None:
    _seeded()
    hidden, n = 16, _LIST
    reranker_norm = nn.LayerNorm(hidden).to(bf16)
    doc_states = torch.randn(2, n, hidden, dtype=bf16)
    first_stage_rank = nn.Embedding(100, hidden)  # added after the reranker was cast to bf16
    x = doc_states + first_stage_rank(torch.arange(n))[None]
    reranker_norm(x)


def _ranknet_bce_outside_autocast() -> None:
    _seeded()
    scorer = nn.Linear(_FEATURES, 1)
    relevance = _relevance()[0].float()
    with torch.autocast("cpu", dtype=bf16):
        s = scorer(torch.randn(_LIST, _FEATURES)).squeeze(-1)
    i, j = torch.triu_indices(_LIST, _LIST, offset=1)
    target = 0.5 * (1 + torch.sign(relevance[i] - relevance[j]))  # RankNet's P_ij
    F.binary_cross_entropy(torch.sigmoid(s[i] - s[j]), target)


def _bilinear_query_document_interaction() -> None:
    _seeded()
    query_tower = nn.Linear(24, 16)
    interaction = nn.Bilinear(16, _FEATURES, 1)
    with torch.autocast("cpu", dtype=bf16):
        q = query_tower(torch.randn(_LIST, 24))
    doc_features = torch.randn(_LIST, _FEATURES)
    interaction(q, doc_features)


def _neural_click_model_gru_bf16() -> None:
    _seeded()
    ncm = nn.GRU(input_size=33, hidden_size=16, batch_first=True).to(bf16)  # NCM over a session's result list
    doc_vectors = torch.randn(3, 10, 32, dtype=bf16)
    previous_click = F.pad(_clicks().float(), (1, 0))[:, :-1, None]  # click on the previous result, fp32
    ncm(torch.cat([doc_vectors, previous_click], dim=-1))


def _linear_ranker_lambda_gradients_assigned() -> None:
    _seeded()
    ranker = nn.Linear(_FEATURES, 1, bias=False).to(bf16)
    features = torch.randn(_LIST, _FEATURES)
    relevance = _relevance()[0].float()
    with torch.no_grad():
        scores = ranker(features.to(bf16)).squeeze(-1).float()
        diff = scores[:, None] - scores[None, :]
        better = (relevance[:, None] > relevance[None, :]).float()
        lambdas = (better * -torch.sigmoid(-diff)).sum(1) - (better * -torch.sigmoid(-diff)).sum(0)
    ranker.weight.grad = (lambdas @ features)[None]  # LambdaRank gradients computed in fp32 and set by hand


CASES: dict[str, LiveCase] = {
    # --- metrics, ranks, query groups
    # NDCG: int64 exponential gains (2**rel - 1) divided in place by the fp32 log2 discount
    "ndcg-int64-gains-in-place-div-log2-discount": case(_ndcg_gains_divided_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # MRR per query: reciprocal ranks index_put_ into a torch.full((n,), 0) buffer, which is int64
    "mrr-per-query-index-put-into-full-int-buffer": case(_mrr_per_query_buffer_from_full, "indexed_write_dtype",
                                                         "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # query segment ids by repeat_interleave over group sizes np.loadtxt read from a .group file as float64
    "group-file-f64-sizes-repeat-interleave": case(_group_file_float_sizes_repeat_interleave, "index_tensor_dtype",
                                                   "f64",
        grade="correct", grade_at_freeze="correct"),
    # ranks from argsort scattered (int64 arange) into empty_like of the fp32 scores
    "ranks-from-argsort-scatter-into-empty-like-scores": case(_ranks_scattered_into_empty_like_scores,
                                                              "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # NeuralSort relaxed permutation: bf16 scores matmul'ed with the int64 (n + 1 - 2i) scaling vector
    "neuralsort-int64-scaling-matmul": case(_neuralsort_scaling_integer_matmul, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- click logs, propensities, click models
    # RankNet preference pairs from a session's bool clicks by subtraction
    "ranknet-pairs-bool-clicks-subtract": case(_ranknet_pairs_from_bool_clicks, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # PAL position-bias tower: uint8 positions from the click log looked up in nn.Embedding
    "pal-position-bias-uint8-positions-embedding": case(_position_bias_tower_uint8_positions, "index_tensor_dtype",
                                                        "uint8",
        grade="correct", grade_at_freeze="correct"),
    # power-law examination propensity positions ** -eta on int64 positions with an integer eta
    "propensity-power-law-int-negative-exponent": case(_power_law_propensity_negative_integer_exponent,
                                                       "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # position-based click model likelihood: Bernoulli.log_prob of the bool click matrix
    "click-model-bernoulli-log-prob-bool-clicks": case(_click_model_bernoulli_log_prob_bool_clicks, "target_dtype",
                                                       "bool",
        grade="correct", grade_at_freeze="correct"),
    # fp16 reranker score lists padded to a fixed length with F.pad(value=-1e9)
    "listwise-padding-f16-pad-minus-1e9": case(_ips_weighted_listwise_padding_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Plackett-Luce ranking sampling: exp(scores / 0.1) of fp16 logits overflows, inf/inf NaN into multinomial
    "plackett-luce-f16-exp-overflow-multinomial": case(_plackett_luce_sampling_fp16_overflow, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # --- hard-negative mining
    # hard negatives: the positive excluded with masked_fill of F.one_hot's int64 mask
    "hard-negative-one-hot-int64-masked-fill": case(_hard_negative_mask_from_one_hot, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # mined negative ids NaN-padded in a DataFrame (float64) used to index the passage embeddings
    "hard-negatives-nan-padded-float-ids-index": case(_hard_negatives_nan_padded_float_ids, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # MMR diversity: F.pdist over candidate embeddings under bf16 autocast
    "mmr-pdist-bf16-under-autocast": case(_mmr_diversity_pdist_under_autocast, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bi-encoder index build: autocast bf16 passage embeddings index_copy_'d into the fp32 index
    "bi-encoder-index-copy-bf16-into-fp32-index": case(_bi_encoder_index_build_under_autocast,
                                                       "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- features, BM25 and hybrid scores from numpy / scipy
    # standardised LETOR features (float64 from numpy) into a ranker cast to bf16
    "letor-f64-features-bf16-ranker": case(_letor_f64_features_into_bf16_ranker, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DCG as torch.dot of fp32 gains with log2 discounts precomputed in numpy (float64)
    "dcg-dot-f32-gains-f64-discounts": case(_dcg_dot_numpy_discounts, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # hybrid retrieval: torch.lerp between min-max BM25 scores (float64) and fp32 dense scores
    "hybrid-lerp-bm25-f64-dense-f32": case(_hybrid_bm25_lerp_dense, "lerp_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a scipy CSR BM25 doc-term matrix (float64) as a torch sparse CSR tensor times an fp32 query vector
    "bm25-scipy-csr-f64-times-f32-query": case(_bm25_scipy_csr_sparse_mm, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bag-of-terms encoder: EmbeddingBag with float64 BM25 term weights as per_sample_weights
    "embedding-bag-bm25-f64-term-weights": case(_embedding_bag_bm25_term_weights, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # IDF in fp16: the collection size 8,841,823 put in full_like of the fp16 document frequencies
    "idf-f16-full-like-collection-size": case(_idf_fp16_collection_size, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # TREC run file written from the autocast reranker's bf16 scores with .numpy()
    "trec-run-bf16-scores-numpy": case(_trec_run_bf16_scores_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- rerankers
    # BERT cross-encoder under bf16 autocast, its fp32 score head applied to the bf16 pooler output outside it
    "cross-encoder-bf16-pooler-fp32-head-outside-autocast": case(_cross_encoder_pooler_outside_autocast,
                                                                 "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # hand-written cross-encoder: an fp16 extended attention mask (GPU recipe) with bf16 queries in SDPA
    "cross-encoder-f16-extended-mask-bf16-sdpa": case(_cross_encoder_fp16_extended_mask_bf16, "attn_mask_dtype",
                                                      "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SetRank: a bf16 MultiheadAttention over the list given an fp32 -inf key_padding_mask
    "setrank-f32-key-padding-mask-bf16-mha": case(_setrank_float_key_padding_mask, "attn_mask_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 first-stage-rank embedding added to bf16 doc states before the bf16 LayerNorm
    "rank-position-embedding-f32-bf16-layernorm": case(_rank_position_embedding_before_bf16_layernorm,
                                                       "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RankNet: scores from bf16 autocast, sigmoid BCE against fp32 P_ij outside autocast
    "ranknet-bce-bf16-scores-f32-targets": case(_ranknet_bce_outside_autocast, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bilinear query-document interaction: bf16 query vector (autocast) with fp32 document features
    "bilinear-bf16-query-f32-doc-features": case(_bilinear_query_document_interaction, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # neural click model: a bf16 GRU fed doc vectors cat'ed with fp32 previous-click flags
    "neural-click-model-bf16-gru-f32-input": case(_neural_click_model_gru_bf16, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # linear LambdaRank: fp32 lambda gradients assigned to the bf16 ranker's weight.grad
    "lambdarank-f32-grad-assigned-bf16-weight": case(_linear_ranker_lambda_gradients_assigned, "loss_dtype", "f32",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
}
