"""Held-out live set 149: legal and contract text classification written by hand in low precision (long judgments and
contracts chunked into int64 token ids with bool attention masks, fp16 hierarchical chunk/document encoders, bf16
pooling over chunks, label-wise attention and label graphs for EuroVoc-style multi-label BCE heads, int32 label ids
from pandas). Defects planted by a helper who never read the rules, written before castwise ran and graded once with
the rules frozen at af2f111c."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import precision_recall_curve
from sklearn.preprocessing import MultiLabelBinarizer
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "af2f111c"

bf16, f16 = torch.bfloat16, torch.float16
_VOCAB = 500  # a tiny legal wordpiece vocabulary
_PAD, _CLS, _SEP, _MASK = 0, 1, 2, 3
_CHUNK = 16  # tokens per chunk (512 in the real model)
_MAX_CHUNKS = 4
_HIDDEN = 16
_LABELS = 12  # EuroVoc concepts / contract clause types


def _seeded() -> None:
    torch.manual_seed(0)


def _chunked_batch() -> tuple[torch.Tensor, torch.Tensor]:
    """Two long documents tokenized and split into chunks: int64 ids (docs, chunks, tokens) and the bool mask.

    The first judgment fills three chunks and part of the fourth; the second contract fills one and a half."""
    lengths = [3 * _CHUNK + 5, _CHUNK + 9]
    ids = torch.full((2, _MAX_CHUNKS * _CHUNK), _PAD, dtype=torch.long)
    for doc, length in enumerate(lengths):
        ids[doc, :length] = torch.randint(4, _VOCAB, (length,))
    ids = ids.view(2, _MAX_CHUNKS, _CHUNK)
    ids[:, :, 0] = torch.where(ids[:, :, 1] != _PAD, _CLS, _PAD)
    return ids, ids != _PAD


def _label_table() -> pd.DataFrame:
    """The EuroVoc annotations as a long table read with pandas: one row per (document, concept), int32 ids."""
    return pd.DataFrame({
        "celex": ["32019R0001", "32019R0001", "32019R0001", "32020L0044", "32021D0107", "32021D0107"],
        "doc": np.array([0, 0, 0, 1, 2, 2], dtype=np.int32),
        "concept": np.array([3, 7, 11, 3, 0, 7], dtype=np.int32),
    })


class _ChunkEncoder(nn.Module):
    """A BERT-like chunk encoder shrunk to one block: token states for every chunk, the first token as its CLS."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(_VOCAB, _HIDDEN, padding_idx=_PAD)
        self.position = nn.Embedding(_CHUNK, _HIDDEN)
        self.ff = nn.Sequential(nn.Linear(_HIDDEN, 2 * _HIDDEN), nn.GELU(), nn.Linear(2 * _HIDDEN, _HIDDEN))
        self.norm = nn.LayerNorm(_HIDDEN)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        flat = ids.reshape(-1, ids.shape[-1])
        x = self.embed(flat) + self.position(torch.arange(flat.shape[-1]))
        return self.norm(x + self.ff(x))


def _fp16_chunk_states() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Token states (docs * chunks, tokens, hidden) from the fp16 chunk encoder, with the ids and mask they came from."""
    _seeded()
    ids, mask = _chunked_batch()
    encoder = _ChunkEncoder().half().eval()
    with torch.no_grad():
        states = encoder(ids)
    return states, ids, mask


# --- ids, labels, masks and counts


def _multilabel_binarizer_matrix_as_bce_target() -> None:
    _seeded()
    table = _label_table()
    concepts = table.groupby("doc")["concept"].apply(list).tolist()
    targets = MultiLabelBinarizer(classes=list(range(_LABELS))).fit_transform(concepts)  # int64 0/1 matrix
    head = nn.Linear(_HIDDEN, _LABELS)
    logits = head(torch.randn(len(concepts), _HIDDEN))
    nn.BCEWithLogitsLoss()(logits, torch.from_numpy(targets))


def _label_cooccurrence_from_get_dummies() -> None:
    table = _label_table()
    multi_hot = pd.get_dummies(table["concept"]).groupby(table["doc"]).max()  # bool columns in pandas 2+
    y = torch.from_numpy(multi_hot.to_numpy())
    cooccurrence = y.T @ y  # concept co-occurrence counts for the label graph
    cooccurrence / cooccurrence.diagonal()[:, None]


def _token_to_chunk_mean_pool_with_bmm() -> None:
    states, _, mask = _fp16_chunk_states()
    token_mask = mask.reshape(-1, _CHUNK)
    summed = torch.bmm(token_mask[:, None, :], states).squeeze(1)
    summed / token_mask.sum(-1, keepdim=True).clamp(min=1)


def _chunk_positions_by_true_division() -> None:
    _seeded()
    ids, _ = _chunked_batch()
    token_offsets = torch.arange(0, ids.shape[1] * _CHUNK, _CHUNK).expand(ids.shape[0], -1)
    chunk_positions = token_offsets / _CHUNK  # 0, 1, 2, 3 for the document-level position embedding
    nn.Embedding(_MAX_CHUNKS, _HIDDEN)(chunk_positions)


def _chunk_validity_kept_float_in_masked_fill() -> None:
    _seeded()
    _, mask = _chunked_batch()
    chunk_valid = mask.any(-1).float()  # kept float: it also weights the chunk mean
    scores = torch.randn(2, _MAX_CHUNKS, dtype=bf16)
    scores = scores.masked_fill(1 - chunk_valid, -1e4)
    scores.softmax(-1)


def _mean_pool_denominator_clamped_in_place() -> None:
    states, _, mask = _fp16_chunk_states()
    token_mask = mask.reshape(-1, _CHUNK)
    summed = (states * token_mask[..., None]).sum(1)
    counts = token_mask.sum(-1, keepdim=True)
    counts.clamp_(min=1e-9)  # empty padding chunks would divide by zero
    summed / counts


def _mlm_probability_matrix_full_like_ids() -> None:
    _seeded()
    ids, _ = _chunked_batch()
    input_ids = ids.reshape(-1, _CHUNK)
    probability = torch.full_like(input_ids, 0.15)  # domain-adaptive MLM on contracts
    probability.masked_fill_((input_ids == _PAD) | (input_ids == _CLS), 0.0)
    masked = torch.bernoulli(probability).bool()
    input_ids.masked_fill(masked, _MASK)


def _clause_char_offsets_in_int16() -> None:
    recital = "WHEREAS the Parties wish to set out the terms on which the Services are supplied; "
    body = "".join(f"ARTICLE {n}. " + recital * 60 for n in range(1, 21))  # a ~100k-character master agreement
    starts = [match.start() for match in re.finditer(r"ARTICLE \d+\.", body)]
    torch.tensor(starts, dtype=torch.int16)  # clause spans cached compactly next to the chunks


def _padded_label_ids_int32_in_multilabel_margin_loss() -> None:
    _seeded()
    table = _label_table()
    label_ids = np.full((3, _LABELS), -1, dtype=np.int32)  # MultiLabelMarginLoss wants ids padded with -1
    for doc, concepts in table.groupby("doc")["concept"]:
        label_ids[doc, : len(concepts)] = concepts.to_numpy()
    logits = torch.randn(3, _LABELS, requires_grad=True)
    nn.MultiLabelMarginLoss()(logits, torch.from_numpy(label_ids))


def _chunk_mask_int64_in_einsum_pool() -> None:
    states, ids, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0].view(2, _MAX_CHUNKS, _HIDDEN)
    chunk_mask = (ids[:, :, 0] != _PAD).long()
    pooled = torch.einsum("dc,dch->dh", chunk_mask, chunk_cls)
    pooled / chunk_mask.sum(-1, keepdim=True)


def _document_length_histogram_with_histc() -> None:
    _seeded()
    token_counts = torch.randint(300, 40_000, (200,))  # tokens per judgment, from the tokenizer's lengths
    histogram = torch.histc(token_counts, bins=20, min=0, max=40_000)
    histogram.cumsum(0) / histogram.sum()  # how many chunks cover 95 % of the corpus


def _global_attention_on_fp16_cast_mask() -> None:
    _seeded()
    ids, mask = _chunked_batch()
    batch = {"input_ids": ids, "attention_mask": mask}
    batch = {key: value.half() if key == "attention_mask" else value for key, value in batch.items()}  # "fp16 batch"
    global_attention = batch["input_ids"] == _CLS  # Longformer-style: every chunk's CLS attends globally
    batch["attention_mask"] & global_attention


# --- fp16 chunk encoders, bf16 pooling, document encoders and heads


def _chunk_distance_bias_from_numpy_in_sdpa() -> None:
    states, _, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0].view(2, 1, _MAX_CHUNKS, _HIDDEN)
    distance = np.abs(np.arange(_MAX_CHUNKS)[:, None] - np.arange(_MAX_CHUNKS)[None, :])
    bias = torch.from_numpy(-0.5 * distance)  # ALiBi-like decay between chunks, float64 from numpy
    F.scaled_dot_product_attention(chunk_cls, chunk_cls, chunk_cls, attn_mask=bias)


def _fp16_chunk_cls_into_fp32_document_lstm() -> None:
    states, _, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0].view(2, _MAX_CHUNKS, _HIDDEN)
    document_lstm = nn.LSTM(_HIDDEN, _HIDDEN, batch_first=True, bidirectional=True)  # built after .half()
    document_lstm(chunk_cls)


def _label_wise_attention_with_fp32_label_queries() -> None:
    states, _, _ = _fp16_chunk_states()
    tokens = states.view(2, _MAX_CHUNKS * _CHUNK, _HIDDEN)
    label_queries = nn.Parameter(torch.randn(_LABELS, _HIDDEN) * 0.02)  # plain attribute: missed by .half()
    scores = torch.einsum("bth,lh->blt", tokens, label_queries)
    scores.softmax(-1)


def _chunk_cls_written_into_fp32_document_buffer() -> None:
    states, _, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0]
    doc_index = torch.arange(2).repeat_interleave(_MAX_CHUNKS)
    chunk_index = torch.arange(_MAX_CHUNKS).repeat(2)
    documents = torch.zeros(2, _MAX_CHUNKS, _HIDDEN)
    documents[doc_index, chunk_index] = chunk_cls


def _bf16_max_pooled_document_into_fp32_head() -> None:
    states, _, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0].view(2, _MAX_CHUNKS, _HIDDEN).to(bf16)  # pooling over chunks done in bf16
    document = chunk_cls.amax(1)
    head = nn.Linear(_HIDDEN, _LABELS)
    torch.sigmoid(head(document))


def _length_weighted_chunk_pool_into_bf16_layernorm() -> None:
    states, _, mask = _fp16_chunk_states()
    chunk_cls = states[:, 0].view(2, _MAX_CHUNKS, _HIDDEN).to(bf16)
    weights = mask.sum(-1).float()  # weight each chunk by its real token count
    weights = weights / weights.sum(-1, keepdim=True)
    document = (chunk_cls * weights[..., None]).sum(1)
    document_norm = nn.LayerNorm(_HIDDEN).to(bf16)
    document_norm(document)


def _han_chunk_attention_fp16_masked_fill() -> None:
    states, ids, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0].view(2, _MAX_CHUNKS, _HIDDEN)
    context = nn.Linear(_HIDDEN, 1, bias=False).half()
    scores = context(torch.tanh(chunk_cls)).squeeze(-1)
    scores = scores.masked_fill(ids[:, :, 0] == _PAD, -1e9)
    scores.softmax(-1)


def _document_mha_with_float_key_padding_mask() -> None:
    states, ids, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0].view(2, _MAX_CHUNKS, _HIDDEN)
    document_attention = nn.MultiheadAttention(_HIDDEN, 2, batch_first=True).half()
    padding = torch.zeros(2, _MAX_CHUNKS).masked_fill(ids[:, :, 0] == _PAD, float("-inf"))
    document_attention(chunk_cls, chunk_cls, chunk_cls, key_padding_mask=padding)


def _chunk_sums_index_add_bf16_into_fp32() -> None:
    states, _, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0].to(bf16)
    doc_of_chunk = torch.arange(2).repeat_interleave(_MAX_CHUNKS)
    sums = torch.zeros(2, _HIDDEN)
    sums.index_add_(0, doc_of_chunk, chunk_cls)


def _per_label_thresholds_with_sklearn_on_bf16() -> None:
    _seeded()
    head = nn.Linear(_HIDDEN, _LABELS).to(bf16)
    with torch.no_grad():
        probabilities = torch.sigmoid(head(torch.randn(8, _HIDDEN, dtype=bf16)))
    targets = np.random.default_rng(0).integers(0, 2, size=(8, _LABELS))
    scores = probabilities.cpu().numpy()
    [precision_recall_curve(targets[:, label], scores[:, label]) for label in range(_LABELS)]


def _per_label_thresholds_as_bf16_quantiles() -> None:
    _seeded()
    validation_logits = torch.randn(64, _LABELS, dtype=bf16)
    probabilities = torch.sigmoid(validation_logits)
    torch.quantile(probabilities, 0.9, dim=0)  # keep each label's top 10 %


def _fp16_chunk_encoder_unscaled_by_gradscaler() -> None:
    _seeded()
    ids, _ = _chunked_batch()
    encoder = _ChunkEncoder().half()
    head = nn.Linear(_HIDDEN, _LABELS).half()
    optimizer = torch.optim.AdamW([*encoder.parameters(), *head.parameters()], lr=2e-5)
    scaler = torch.amp.GradScaler("cpu")
    logits = head(encoder(ids)[:, 0].view(2, _MAX_CHUNKS, _HIDDEN).amax(1))
    loss = F.binary_cross_entropy_with_logits(logits.float(), torch.zeros(2, _LABELS))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)


def _chunk_microbatch_gradients_accumulated_in_bf16() -> None:
    _seeded()
    ids, _ = _chunked_batch()
    encoder = _ChunkEncoder()
    head = nn.Linear(_HIDDEN, _LABELS)
    accumulated = {name: torch.zeros_like(p, dtype=bf16) for name, p in head.named_parameters()}  # saves memory
    for chunk in range(_MAX_CHUNKS):  # one chunk of every document per micro-batch
        logits = head(encoder(ids[:, chunk])[:, 0])
        F.binary_cross_entropy_with_logits(logits, torch.zeros(2, _LABELS)).backward()
        for name, p in head.named_parameters():
            accumulated[name] += p.grad.to(bf16)
            p.grad = None
    for name, p in head.named_parameters():
        p.grad = accumulated[name] / _MAX_CHUNKS


def _empty_document_attention_pool_nan_bce() -> None:
    _seeded()
    ids, _ = _chunked_batch()
    ids[1] = _PAD  # a judgment whose text failed to extract: every chunk is padding
    chunk_cls = torch.randn(2, _MAX_CHUNKS, _HIDDEN)
    scores = (chunk_cls @ torch.randn(_HIDDEN)).masked_fill(ids[:, :, 0] == _PAD, float("-inf"))
    document = (scores.softmax(-1)[..., None] * chunk_cls).sum(1)
    probabilities = torch.sigmoid(nn.Linear(_HIDDEN, _LABELS)(document))
    F.binary_cross_entropy(probabilities, torch.zeros(2, _LABELS))


def _relative_chunk_bias_in_baddbmm() -> None:
    states, _, _ = _fp16_chunk_states()
    chunk_cls = states[:, 0].view(2, _MAX_CHUNKS, _HIDDEN)
    relative = torch.arange(_MAX_CHUNKS)[None, :] - torch.arange(_MAX_CHUNKS)[:, None]
    bias_table = nn.Embedding(2 * _MAX_CHUNKS - 1, 1)  # created after the model went to fp16
    bias = bias_table(relative + _MAX_CHUNKS - 1).squeeze(-1).expand(2, -1, -1)
    torch.baddbmm(bias, chunk_cls, chunk_cls.transpose(1, 2), alpha=_HIDDEN**-0.5)


def _textcnn_over_bf16_embeddings_with_fp32_conv() -> None:
    _seeded()
    ids, _ = _chunked_batch()
    embed = nn.Embedding(_VOCAB, _HIDDEN).to(bf16)  # only the (large) embedding table was halved
    conv = nn.Conv1d(_HIDDEN, 8, kernel_size=3, padding=1)
    tokens = embed(ids.view(2, -1)).transpose(1, 2)
    conv(tokens).amax(-1)


def _label_graph_adjacency_from_numpy_times_fp32() -> None:
    _seeded()
    table = _label_table()
    y = pd.crosstab(table["doc"], table["concept"]).reindex(columns=range(_LABELS), fill_value=0).to_numpy()
    cooccurrence = y.T @ y + np.eye(_LABELS)
    degree = cooccurrence.sum(1)
    adjacency = torch.from_numpy(cooccurrence / np.sqrt(np.outer(degree, degree)))  # ML-GCN, float64
    label_embeddings = nn.Parameter(torch.randn(_LABELS, _HIDDEN))
    gcn = nn.Linear(_HIDDEN, _HIDDEN)
    F.leaky_relu(gcn(adjacency @ label_embeddings))


def _tfidf_weights_from_sklearn_in_embedding_bag() -> None:
    _seeded()
    clauses = ["the licensee shall indemnify the licensor", "this agreement is governed by the laws of england"]
    vectorizer = TfidfVectorizer()
    tfidf = vectorizer.fit_transform(clauses).tocoo()  # float64
    bag = nn.EmbeddingBag(len(vectorizer.vocabulary_), _HIDDEN, mode="sum")
    offsets = torch.from_numpy(np.searchsorted(tfidf.row, np.arange(len(clauses))))
    bag(torch.from_numpy(tfidf.col).long(), offsets, per_sample_weights=torch.from_numpy(tfidf.data))


CASES: dict[str, LiveCase] = {
    # --- ids, labels, masks and counts
    # EuroVoc concepts binarised with sklearn's MultiLabelBinarizer (int64) as BCEWithLogitsLoss' target
    "multilabel-binarizer-int64-bce-target": case(_multilabel_binarizer_matrix_as_bce_target, "target_dtype",
                                                  "int64",
        grade="correct", grade_at_freeze="correct"),
    # concept co-occurrence for the label graph as Y.T @ Y of pandas get_dummies' bool multi-hot
    "get-dummies-bool-cooccurrence-matmul": case(_label_cooccurrence_from_get_dummies, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # token-to-chunk mean pooling by torch.bmm of the bool attention mask with the fp16 token states
    "chunk-mean-pool-bmm-bool-mask": case(_token_to_chunk_mean_pool_with_bmm, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # document-level chunk positions computed as token offset / chunk length (float) into the position Embedding
    "chunk-positions-true-division-embedding": case(_chunk_positions_by_true_division, "index_tensor_dtype",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # chunk-validity mask kept float to weight the mean, then 1 - mask given to masked_fill of bf16 chunk scores
    "chunk-validity-float-masked-fill": case(_chunk_validity_kept_float_in_masked_fill, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # masked mean pooling: the int64 token count of the bool mask clamped in place with min=1e-9
    "mean-pool-count-int64-clamp-inplace": case(_mean_pool_denominator_clamped_in_place, "result_cast", "f32",
                                                "int64",
        grade="correct", grade_at_freeze="correct"),
    # legal-domain MLM: the masking probabilities made with full_like(input_ids, 0.15), int64, into bernoulli
    "mlm-full-like-int64-ids-bernoulli": case(_mlm_probability_matrix_full_like_ids, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # article start offsets of a ~100k-character master agreement cached as int16
    "clause-char-offsets-int16-overflow": case(_clause_char_offsets_in_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # EuroVoc label ids padded with -1 in an int32 numpy array from pandas into MultiLabelMarginLoss
    "label-ids-int32-multilabel-margin": case(_padded_label_ids_int32_in_multilabel_margin_loss, "target_dtype",
                                              "int32",
        grade="correct", grade_at_freeze="correct"),
    # chunk-to-document pooling by einsum of the int64 chunk mask with fp16 chunk CLS vectors
    "chunk-mask-int64-einsum-pool": case(_chunk_mask_int64_in_einsum_pool, "integer_operand", "int64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # choosing max_chunks from a torch.histc of the int64 token counts per judgment
    "token-count-histc-int64": case(_document_length_histogram_with_histc, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # Longformer-style global attention: the attention mask made fp16 by a batch cast, combined with & of CLS positions
    "global-attention-fp16-mask-and": case(_global_attention_on_fp16_cast_mask, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- fp16 chunk encoders, bf16 pooling, document encoders and heads
    # an ALiBi-like distance decay between chunks from numpy (float64) as SDPA's attn_mask over fp16 chunk CLS
    "chunk-distance-bias-f64-sdpa-mask": case(_chunk_distance_bias_from_numpy_in_sdpa, "attn_mask_dtype", "f64",
                                              "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 chunk CLS vectors into a document BiLSTM built in fp32 after the encoder was halved
    "chunk-cls-fp16-fp32-document-lstm": case(_fp16_chunk_cls_into_fp32_document_lstm, "rnn_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # label-wise attention (LWAN): fp16 token states einsum'd with fp32 label queries missed by .half()
    "label-wise-attention-fp32-queries-einsum": case(_label_wise_attention_with_fp32_label_queries,
                                                     "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 chunk CLS vectors written by advanced indexing into a torch.zeros (fp32) document buffer
    "chunk-cls-fp16-into-fp32-doc-buffer": case(_chunk_cls_written_into_fp32_document_buffer,
                                                "indexed_write_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # max pooling over chunks in bf16, the multi-label head left fp32
    "bf16-max-pooled-doc-fp32-head": case(_bf16_max_pooled_document_into_fp32_head, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 chunk CLS weighted by fp32 token-count weights (promoted to fp32) into the bf16 document LayerNorm
    "length-weighted-pool-f32-bf16-layernorm": case(_length_weighted_chunk_pool_into_bf16_layernorm,
                                                    "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # hierarchical-attention-network chunk scores in fp16 with padding chunks filled with -1e9
    "han-chunk-scores-fp16-fill-1e9": case(_han_chunk_attention_fp16_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 document MultiheadAttention over chunks given an fp32 additive key_padding_mask
    "document-mha-fp32-key-padding-mask": case(_document_mha_with_float_key_padding_mask, "attn_mask_dtype", "f32",
                                               "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 chunk CLS summed per document with index_add_ into a torch.zeros (fp32) buffer
    "chunk-sums-index-add-bf16-into-fp32": case(_chunk_sums_index_add_bf16_into_fp32, "indexed_write_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-label decision thresholds from sklearn's precision_recall_curve on bf16 sigmoid outputs
    "per-label-thresholds-bf16-numpy": case(_per_label_thresholds_with_sklearn_on_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-label thresholds as the 90th-percentile torch.quantile of bf16 validation probabilities
    "per-label-thresholds-bf16-quantile": case(_per_label_thresholds_as_bf16_quantiles, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # the hierarchical encoder made .half() for fp16 training, GradScaler.unscale_ before clipping
    "fp16-hierarchical-encoder-unscale": case(_fp16_chunk_encoder_unscaled_by_gradscaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # chunk micro-batch gradients accumulated in bf16 buffers, assigned back as the fp32 head's .grad
    "chunk-microbatch-bf16-grad-assign": case(_chunk_microbatch_gradients_accumulated_in_bf16, "loss_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # a judgment with no extracted text: all chunks masked with -inf, softmax NaN, binary_cross_entropy of the NaN
    "empty-document-all-chunks-masked-bce": case(_empty_document_attention_pool_nan_bce, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # relative chunk-distance bias from an fp32 Embedding as baddbmm's input for fp16 chunk scores
    "relative-chunk-bias-fp32-baddbmm": case(_relative_chunk_bias_in_baddbmm, "batched_matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a TextCNN baseline over a bf16 embedding table into an fp32 Conv1d with bias
    "textcnn-bf16-embeddings-fp32-conv": case(_textcnn_over_bf16_embeddings_with_fp32_conv, "conv_weight_dtype",
                                              "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ML-GCN label graph: the normalised float64 numpy adjacency @ fp32 label embeddings
    "ml-gcn-f64-adjacency-matmul": case(_label_graph_adjacency_from_numpy_times_fp32, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TF-IDF clause features: sklearn's float64 weights as EmbeddingBag's per_sample_weights for an fp32 table
    "tfidf-f64-per-sample-weights-embedding-bag": case(_tfidf_weights_from_sklearn_in_embedding_bag, "op_dtype",
                                                       "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
}
