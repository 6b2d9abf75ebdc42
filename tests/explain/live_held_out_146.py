"""Held-out live set 146: citation, patent and scholarly document mining written by hand in low precision (paper and
author ids as int64, citation graphs as sparse int64 COO indices, TF-IDF matrices in float64 from scikit-learn style
code, bool venue masks, bf16 SciBERT-style encoders, contrastive losses with a temperature in fp16). Defects planted
by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
b19dbc97."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b19dbc97"

bf16, f16 = torch.bfloat16, torch.float16
_PAPERS = 50
_VENUES = 40
_VOCAB = 300
_DIM = 32


def _seeded() -> None:
    torch.manual_seed(0)


def _citation_edges() -> torch.Tensor:
    """A small citation graph as edge_index (citing, cited), int64 as torch_geometric keeps it."""
    citing = torch.tensor([0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9])
    cited = torch.tensor([1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 9, 9, 0])
    return torch.stack([citing, cited])


def _tfidf_rows(docs: int = 6, terms: int = _VOCAB) -> np.ndarray:
    """What TfidfVectorizer(...).fit_transform(abstracts).toarray() returns: L2-normalised float64 rows."""
    rng = np.random.default_rng(0)
    counts = rng.poisson(0.05, size=(docs, terms)).astype(np.float64)
    counts[:, :3] += 1.0
    idf = np.log((1 + docs) / (1 + (counts > 0).sum(0))) + 1.0
    tfidf = counts * idf
    return tfidf / np.linalg.norm(tfidf, axis=1, keepdims=True)


class _SciBertLike(nn.Module):
    """A tiny SciBERT-style encoder: token embeddings, one transformer layer, a final LayerNorm, [CLS] pooling."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(_VOCAB, _DIM)
        self.layer = nn.TransformerEncoderLayer(_DIM, 4, 64, dropout=0.0, batch_first=True)
        self.norm = nn.LayerNorm(_DIM)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.norm(self.layer(self.embed(tokens)))[:, 0]


def _abstract_tokens(batch: int = 4, length: int = 12) -> torch.Tensor:
    return torch.randint(1, _VOCAB, (batch, length), generator=torch.Generator().manual_seed(1))


# --- ids, venues and labels


def _cited_rows_from_pandas_with_nan() -> None:
    _seeded()
    refs = pd.DataFrame({"citing_row": [0, 1, 2, 3], "cited_row": [4.0, np.nan, 7.0, 2.0]})  # unresolved reference
    cited = torch.from_numpy(refs["cited_row"].fillna(0).to_numpy())  # still float64 after fillna
    paper_embedding = nn.Embedding(_PAPERS, _DIM)
    paper_embedding(cited)


def _venue_ids_uint8_index_table() -> None:
    _seeded()
    venue_ids = torch.from_numpy(np.array([3, 17, 17, 5, 0, 39], dtype=np.uint8))  # parquet column kept compact
    venue_table = torch.randn(_VENUES, _DIM)
    venue_table[venue_ids]


def _venue_ids_int32_one_hot() -> None:
    venue_ids = torch.from_numpy(np.array([3, 17, 17, 5], dtype=np.int32))  # from the venue vocabulary lookup
    venue_features = F.one_hot(venue_ids, num_classes=_VENUES).float()
    venue_features.sum(0)


def _top_venue_share_bool_mean() -> None:
    venues = torch.tensor([3, 17, 17, 5, 0, 39, 3])
    top_venues = torch.tensor([3, 5])
    in_top_venue = torch.isin(venues, top_venues)
    in_top_venue.mean()  # share of the author's papers at a top venue


def _citations_minus_self_citations_bool() -> None:
    cites = torch.tensor([[False, True, True], [False, False, True], [True, False, False]])
    shares_author = torch.tensor([[True, True, False], [False, True, False], [False, False, True]])
    external = cites - (cites & shares_author)  # citations that are not self-citations
    external.sum(1)


def _citation_counts_log1p_in_place() -> None:
    counts = torch.tensor([0, 3, 12, 250, 1])  # from np.bincount of cited ids
    counts.log1p_()


def _is_cited_bool_bce_target() -> None:
    _seeded()
    scores = torch.randn(6, requires_grad=True)  # link-prediction logits for candidate (citing, cited) pairs
    is_cited = torch.tensor([True, False, True, False, False, True])
    F.binary_cross_entropy_with_logits(scores, is_cited)


def _field_of_study_int32_cross_entropy() -> None:
    _seeded()
    labels = torch.from_numpy(np.array([2, 0, 5, 1], dtype=np.int32))  # field-of-study codes from the label map
    logits = nn.Linear(_DIM, 8)(torch.randn(4, _DIM))
    F.cross_entropy(logits, labels)


def _popularity_negatives_multinomial_int64_counts() -> None:
    _seeded()
    cited = _citation_edges()[1]
    popularity = torch.bincount(cited, minlength=10)  # int64 citation counts
    torch.multinomial(popularity, 5, replacement=True)  # negatives sampled in proportion to popularity


def _openalex_work_ids_int32_overflow() -> None:
    work_ids = [4389162947, 2963403868, 1522301498, 3105822476]  # OpenAlex W-ids with the "W" stripped
    torch.tensor(work_ids, dtype=torch.int32)


def _co_citation_sparse_int64_matmul() -> None:
    edges = _citation_edges()
    adjacency = torch.sparse_coo_tensor(edges, torch.ones_like(edges[0]), (10, 10))  # int64 ones
    co_citation = torch.sparse.mm(adjacency.t(), adjacency)
    co_citation.to_dense()


def _preprint_float_mask_inverted() -> None:
    is_preprint = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0])  # kept float to weight the loss
    published = ~is_preprint
    published.sum()


# --- TF-IDF and sparse text features


def _sklearn_tfidf_float64_into_linear() -> None:
    _seeded()
    tfidf = torch.from_numpy(_tfidf_rows())
    projection = nn.Linear(_VOCAB, _DIM)
    projection(tfidf)


def _lsa_svd_lowrank_bf16_tfidf() -> None:
    _seeded()
    tfidf = torch.from_numpy(_tfidf_rows(docs=20)).to(bf16)  # cached in bf16 with the embeddings to save memory
    torch.svd_lowrank(tfidf, q=8)


def _tfidf_csr_bf16_projection() -> None:
    _seeded()
    tfidf = torch.from_numpy(_tfidf_rows()).float().to_sparse_csr()
    projection = nn.Linear(_VOCAB, _DIM, bias=False).to(bf16)
    tfidf.to(bf16) @ projection.weight.T


def _simhash_bf16_sign_bits_xor() -> None:
    _seeded()
    claims = torch.randn(4, _DIM, dtype=bf16)  # patent claim embeddings from the bf16 encoder
    planes = torch.randn(_DIM, 16, dtype=bf16)
    bits = torch.sign(claims @ planes).clamp(min=0)  # 0/1 sign bits, still bf16
    hamming = (bits[:1] ^ bits).sum(1)
    hamming.argmin()


# --- SciBERT-style encoders and heads


def _scibert_bf16_fp32_projection_head() -> None:
    _seeded()
    encoder = _SciBertLike().to(bf16)
    head = nn.Linear(_DIM, 16)  # contrastive projection head built after model.to(bf16)
    head(encoder(_abstract_tokens()))


def _scibert_bf16_norm_fp32_positions() -> None:
    _seeded()
    encoder = _SciBertLike().to(bf16)
    positions = torch.arange(12)[:, None] / 10000 ** (torch.arange(_DIM) / _DIM)  # sinusoidal table, fp32
    hidden = encoder.layer(encoder.embed(_abstract_tokens())) + torch.sin(positions)
    encoder.norm(hidden)


def _citation_context_gru_bf16_glove_fp32() -> None:
    _seeded()
    glove = torch.from_numpy(np.random.default_rng(0).standard_normal((_VOCAB, 50)).astype(np.float32))
    context_encoder = nn.GRU(50, _DIM, batch_first=True).to(bf16)
    context_encoder(glove[_abstract_tokens()])


def _patent_textcnn_bf16_embeddings_fp32_conv() -> None:
    _seeded()
    embeddings = nn.Embedding(_VOCAB, _DIM).to(bf16)  # loaded from a bf16 checkpoint
    ngram_conv = nn.Conv1d(_DIM, 8, kernel_size=3)
    ngram_conv(embeddings(_abstract_tokens()).transpose(1, 2))


def _reranker_sdpa_bf16_query_fp32_cached_candidates() -> None:
    _seeded()
    query = torch.randn(1, 4, 1, 8, dtype=bf16)  # the citing context through the bf16 encoder
    candidates = torch.randn(1, 4, 20, 8)  # candidate papers' keys cached from an fp32 pass
    F.scaled_dot_product_attention(query, candidates, candidates)


def _co_citation_bias_float64_attention_mask() -> None:
    _seeded()
    q = torch.randn(1, 2, 6, 8, dtype=bf16)  # a bag of six cited papers, bf16 states
    co_cited = np.random.default_rng(0).poisson(1.0, size=(6, 6))
    bias = torch.from_numpy(np.log1p(co_cited))  # float64 from numpy
    F.scaled_dot_product_attention(q, q, q, attn_mask=bias)


def _author_paper_bilinear_bf16_authors() -> None:
    _seeded()
    authors = torch.randn(5, _DIM, dtype=bf16)  # author embeddings from the bf16 SciBERT pass over their papers
    papers = torch.randn(5, _DIM)
    scorer = nn.Bilinear(_DIM, _DIM, 1)
    scorer(authors, papers)


# --- contrastive training, memory banks, gradients


def _fp16_scores_exclude_cited_index_fill() -> None:
    _seeded()
    queries = F.normalize(torch.randn(2, _DIM), dim=-1).half()
    papers = F.normalize(torch.randn(_PAPERS, _DIM), dim=-1).half()
    scores = queries @ papers.T / 0.05
    already_cited = torch.tensor([1, 4, 9])
    scores.index_fill_(1, already_cited, -1e5)


def _hard_negatives_fp16_exp_over_temperature() -> None:
    _seeded()
    papers = F.normalize(torch.randn(_PAPERS, _DIM), dim=-1).half()
    queries = papers[:4]  # the anchors are in the candidate pool too
    temperature = 0.01
    weights = torch.exp(queries @ papers.T / temperature)
    probs = weights / weights.sum(-1, keepdim=True)
    torch.multinomial(probs, 3)


def _memory_bank_index_copy_bf16_keys() -> None:
    _seeded()
    bank = F.normalize(torch.randn(_PAPERS, _DIM), dim=-1)  # fp32 memory bank of paper embeddings
    keys = F.normalize(torch.randn(4, _DIM, dtype=bf16), dim=-1)  # from the bf16 key encoder
    bank.index_copy_(0, torch.tensor([3, 8, 21, 40]), keys)


def _momentum_key_encoder_lerp_toward_bf16() -> None:
    _seeded()
    query_encoder = nn.Linear(_DIM, 16)
    key_encoder = copy.deepcopy(query_encoder)  # copied before the query encoder went to bf16
    query_encoder.to(bf16)
    with torch.no_grad():
        for key_param, query_param in zip(key_encoder.parameters(), query_encoder.parameters(), strict=True):
            key_param.lerp_(query_param, 1 - 0.999)


def _halved_scibert_classifier_grad_scaler() -> None:
    _seeded()
    classifier = nn.Sequential(nn.Linear(_DIM, 16), nn.ReLU(), nn.Linear(16, 4)).half()
    optimizer = torch.optim.AdamW(classifier.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    logits = classifier(torch.randn(8, _DIM, dtype=f16))
    loss = F.cross_entropy(logits.float(), torch.tensor([0, 1, 2, 3, 0, 1, 2, 3]))
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _citation_count_huber_bf16_float64_targets() -> None:
    _seeded()
    regressor = nn.Linear(_DIM, 1).to(bf16)
    log_citations = torch.from_numpy(np.log1p(np.array([0.0, 3.0, 12.0, 250.0])))  # float64 from pandas
    prediction = regressor(torch.randn(4, _DIM, dtype=bf16)).squeeze(-1)
    F.huber_loss(prediction, log_citations).backward()


def _faiss_index_from_bf16_embeddings() -> None:
    _seeded()
    encoder = _SciBertLike().to(bf16)
    with torch.no_grad():
        paper_vectors = F.normalize(encoder(_abstract_tokens()), dim=-1)
    paper_vectors.numpy()  # for faiss.IndexFlatIP.add


CASES: dict[str, LiveCase] = {
    # --- ids, venues and labels
    # cited paper rows from pandas with NaN for unresolved references: fillna keeps float64, into the paper Embedding
    "cited-rows-pandas-nan-float64-embedding": case(_cited_rows_from_pandas_with_nan, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # venue ids kept uint8 in parquet used to index the venue table: read as a mask
    "venue-ids-uint8-index-table": case(_venue_ids_uint8_index_table, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int32 venue ids from the vocabulary lookup one-hot encoded
    "venue-ids-int32-one-hot": case(_venue_ids_int32_one_hot, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # share of an author's papers at top venues as the mean of a bool isin mask
    "top-venue-share-bool-mean": case(_top_venue_share_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # external citations as the bool citation mask minus the bool self-citation mask
    "citations-minus-self-citations-bool": case(_citations_minus_self_citations_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int64 citation counts log-transformed in place with log1p_
    "citation-counts-log1p-in-place": case(_citation_counts_log1p_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # link prediction: bool is-cited labels as the BCE-with-logits target
    "is-cited-bool-bce-target": case(_is_cited_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # field-of-study labels kept int32 from numpy into cross_entropy
    "field-of-study-int32-cross-entropy": case(_field_of_study_int32_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # popularity-weighted negative citations: multinomial over int64 bincount citation counts
    "popularity-negatives-multinomial-int64": case(_popularity_negatives_multinomial_int64_counts,
                                                   "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # OpenAlex work ids (beyond 2**31) put into an int32 tensor
    "openalex-work-ids-int32-overflow": case(_openalex_work_ids_int32_overflow, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # co-citation counts as A^T A of a sparse COO citation matrix with int64 ones as values
    "co-citation-sparse-int64-matmul": case(_co_citation_sparse_int64_matmul, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a float is-preprint mask (kept float to weight the loss) inverted with ~
    "preprint-float-mask-inverted": case(_preprint_float_mask_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- TF-IDF and sparse text features
    # scikit-learn TF-IDF rows (float64 from toarray) into an fp32 projection Linear
    "sklearn-tfidf-float64-linear": case(_sklearn_tfidf_float64_into_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # LSA with torch.svd_lowrank on a TF-IDF matrix cached in bf16
    "lsa-svd-lowrank-bf16-tfidf": case(_lsa_svd_lowrank_bf16_tfidf, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a sparse CSR TF-IDF matrix cast to bf16 times the bf16 projection weight
    "tfidf-csr-bf16-projection": case(_tfidf_csr_bf16_projection, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # patent near-duplicate SimHash: Hamming distance by ^ of bf16 sign bits
    "simhash-bf16-sign-bits-xor": case(_simhash_bf16_sign_bits_xor, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- SciBERT-style encoders and heads
    # a contrastive projection head built in fp32 after the SciBERT-style encoder went to bf16
    "scibert-bf16-fp32-projection-head": case(_scibert_bf16_fp32_projection_head, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 sinusoidal position table added before the bf16 encoder's final LayerNorm
    "scibert-bf16-norm-fp32-positions": case(_scibert_bf16_norm_fp32_positions, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # citation-context GRU cast to bf16 fed fp32 GloVe vectors from numpy
    "citation-context-gru-bf16-glove-fp32": case(_citation_context_gru_bf16_glove_fp32, "rnn_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # patent TextCNN: bf16 checkpoint embeddings into an fp32 Conv1d with bias
    "patent-textcnn-bf16-embeddings-fp32-conv": case(_patent_textcnn_bf16_embeddings_fp32_conv,
                                                     "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # citation recommendation reranker: bf16 citing-context query over fp32 cached candidate keys in SDPA
    "reranker-sdpa-bf16-query-fp32-candidates": case(_reranker_sdpa_bf16_query_fp32_cached_candidates,
                                                     "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # attention over a bag of cited papers biased by log co-citation counts from numpy (float64)
    "co-citation-bias-float64-attn-mask": case(_co_citation_bias_float64_attention_mask, "attn_mask_dtype", "f64",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # author-paper compatibility nn.Bilinear: bf16 author embeddings, fp32 papers and scorer
    "author-paper-bilinear-bf16-authors": case(_author_paper_bilinear_bf16_authors, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- contrastive training, memory banks, gradients
    # already-cited papers excluded from fp16 similarity scores with index_fill_(-1e5)
    "fp16-scores-exclude-cited-index-fill": case(_fp16_scores_exclude_cited_index_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # hard negatives sampled by exp(sim / 0.01) in fp16: inf weights, NaN probabilities into multinomial
    "hard-negatives-fp16-exp-over-temperature": case(_hard_negatives_fp16_exp_over_temperature, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # bf16 key-encoder outputs index_copy_'d into the fp32 paper memory bank
    "memory-bank-index-copy-bf16-keys": case(_memory_bank_index_copy_bf16_keys, "indexed_write_dtype", "f32",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MoCo momentum update: fp32 key encoder lerp_'d toward the bf16 query encoder
    "momentum-key-encoder-lerp-bf16": case(_momentum_key_encoder_lerp_toward_bf16, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 paper vectors handed to numpy to build the FAISS inner-product index
    "faiss-index-bf16-paper-vectors-numpy": case(_faiss_index_from_bf16_embeddings, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a halved SciBERT-style classifier trained with GradScaler: step unscales fp16 gradients
    "halved-classifier-grad-scaler-step": case(_halved_scibert_classifier_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # citation-count regression: bf16 predictions against float64 log counts from pandas, Huber backward
    "citation-count-huber-bf16-f64-backward": case(_citation_count_huber_bf16_float64_targets, "loss_dtype", "f64",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
}
