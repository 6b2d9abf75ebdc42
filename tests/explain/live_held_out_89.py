"""Held-out live set 89: code models and program-analysis ML written by hand in low precision (token ids from
tokenizers, AST node types and edges, graph networks over data-flow graphs, copy/pointer mechanisms over vocabulary
indices, fill-in-the-middle masks, code-search contrastive losses, execution traces and line numbers, unit-test
outcomes, near-duplicate detection). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at 3957142."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "3957142"

bf16, f16 = torch.bfloat16, torch.float16
_VOCAB = 512  # a tiny BPE vocabulary for code
_FIM_PREFIX, _FIM_MIDDLE, _FIM_SUFFIX = 509, 510, 511  # sentinel ids appended to the vocabulary
_NODE_TYPES = 64  # tree-sitter node kinds kept
_RELATIONS = 4  # data-flow edges: last-read, last-write, computed-from, next-token


def _seeded() -> None:
    torch.manual_seed(0)


def _unit(x: torch.Tensor) -> torch.Tensor:
    return F.normalize(x, dim=-1)


# --- code search and clone detection


def _code_search_inverse_temperature_on_keys() -> None:
    _seeded()
    nl_tower, code_tower = nn.Linear(32, 16).to(bf16), nn.Linear(32, 16).to(bf16)
    log_inv_temperature = nn.Parameter(torch.tensor([math.log(1 / 0.07)]))  # kept fp32 "for stability"
    queries = _unit(nl_tower(torch.randn(4, 32, dtype=bf16)))
    snippets = _unit(code_tower(torch.randn(4, 32, dtype=bf16)))
    logits = torch.mm(queries, (snippets * log_inv_temperature.exp()).T)  # temperature folded into the keys
    F.cross_entropy(logits.float(), torch.arange(4))


def _code_search_labels_to_logits() -> None:
    _seeded()
    queries = _unit(torch.randn(6, 16, dtype=bf16))
    snippets = _unit(torch.randn(6, 16, dtype=bf16))
    logits = queries @ snippets.T / 0.05
    labels = torch.arange(len(queries)).to(logits)  # meant to put the labels on the logits' device
    F.cross_entropy(logits, labels)


def _code_index_fp8_scored_without_dequant() -> None:
    _seeded()
    corpus = _unit(torch.randn(100, 16))
    scales = corpus.abs().amax(-1, keepdim=True) / 448.0
    index = (corpus / scales).to(torch.float8_e4m3fn)  # fp8 code-embedding index, per-row scales kept aside
    query = _unit(torch.randn(1, 16, dtype=bf16))
    scores = query @ index.T
    scores.topk(5)


def _clone_embeddings_to_faiss() -> None:
    _seeded()
    encoder = nn.EmbeddingBag(_VOCAB, 16, mode="mean").to(bf16)  # bag-of-subtokens function encoder
    functions = torch.randint(0, _VOCAB, (8, 12))
    embeddings = _unit(encoder(functions)).detach()
    np.ascontiguousarray(embeddings, dtype=np.float32)  # what faiss' index.add wants


def _test_focal_method_bilinear_linking() -> None:
    _seeded()
    scorer = nn.Bilinear(16, 16, 1).to(bf16)
    test_methods = torch.randn(5, 16, dtype=bf16)
    focal_methods = torch.randn(5, 16)  # cached by the fp32 encoder run offline
    scorer(test_methods, focal_methods)


# --- graph networks over ASTs and data-flow graphs


class _RGCNBasis(nn.Module):
    def __init__(self, dim: int, bases: int = 2) -> None:
        super().__init__()
        self.bases = nn.Parameter(torch.randn(bases, dim, dim) * 0.1)
        self.coefficients = torch.randn(_RELATIONS, bases)  # plain tensor attribute: .to() does not move it

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, edge_type: torch.Tensor) -> torch.Tensor:
        weights = torch.einsum("rb,bio->rio", self.coefficients, self.bases)
        messages = torch.einsum("ei,eio->eo", x[edge_index[0]], weights[edge_type])
        return torch.zeros_like(x).index_add_(0, edge_index[1], messages)


def _rgcn_basis_coefficients_plain_attribute() -> None:
    _seeded()
    layer = _RGCNBasis(16).to(bf16)
    x = torch.randn(6, 16, dtype=bf16)
    edge_index = torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]])
    layer(x, edge_index, torch.tensor([0, 1, 2, 3, 0]))


def _ggnn_zero_padded_annotations() -> None:
    _seeded()
    hidden, annotation_dim = 32, 8
    node_type_embedding = nn.Embedding(_NODE_TYPES, annotation_dim).to(bf16)
    edge_fc = nn.Linear(hidden, hidden * _RELATIONS).to(bf16)
    annotations = node_type_embedding(torch.tensor([3, 17, 17, 40, 5]))
    h = torch.cat([annotations, torch.zeros(5, hidden - annotation_dim)], dim=-1)  # GGNN pads annotations with 0s
    edge_fc(h)


def _tree_lstm_child_sum_index_add() -> None:
    _seeded()
    hidden = 16
    child_h = nn.Linear(hidden, hidden).to(bf16)(torch.randn(5, hidden, dtype=bf16))
    parent = torch.tensor([0, 0, 1, 1, 1])  # AST child -> parent
    h_tilde = torch.zeros(2, hidden)  # child-sum accumulator
    h_tilde.index_add_(0, parent, child_h)


def _dataflow_sparse_bool_adjacency() -> None:
    _seeded()
    edge_index = torch.tensor([[0, 0, 1, 2, 3], [1, 2, 3, 3, 4]])  # def-use edges
    adjacency = torch.sparse_coo_tensor(edge_index, torch.ones(5, dtype=torch.bool), (5, 5))
    node_states = torch.randn(5, 16)
    torch.sparse.mm(adjacency, node_states)


def _code2vec_attention_vector_loaded_after_cast() -> None:
    _seeded()
    model = nn.Module()
    model.context_fc = nn.Linear(48, 32, bias=False)
    model.to(bf16)
    released = np.random.default_rng(0).standard_normal((32, 1)).astype(np.float32)  # from the TF checkpoint
    model.attention = nn.Parameter(torch.from_numpy(released))
    contexts = torch.tanh(model.context_fc(torch.randn(2, 10, 48, dtype=bf16)))  # (batch, path contexts, dim)
    scores = torch.bmm(contexts, model.attention.expand(2, 32, 1))
    scores.softmax(1)


def _token_cnn_halved_embedding_conv_bn() -> None:
    _seeded()
    embedding = nn.Embedding(_VOCAB, 16).to(bf16)  # only the table halved, to save memory
    block = nn.Sequential(nn.Conv1d(16, 32, 3, padding=1, bias=False), nn.BatchNorm1d(32), nn.ReLU())
    tokens = torch.randint(0, _VOCAB, (2, 20))
    block(embedding(tokens).transpose(1, 2))


# --- structure-aware transformers, copy mechanisms and decoding


def _ast_ancestor_bias_multihead_attention() -> None:
    _seeded()
    nodes = 6
    attention = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    parent = torch.tensor([-1, 0, 0, 1, 1, 2])
    ancestor = torch.eye(nodes, dtype=torch.bool)
    for node in range(nodes):
        up = int(parent[node])
        while up >= 0:
            ancestor[node, up] = True
            up = int(parent[up])
    bias = torch.zeros(nodes, nodes).masked_fill(~(ancestor | ancestor.T), -1e4)  # additive AST-path bias
    x = torch.randn(1, nodes, 16, dtype=bf16)
    attention(x, x, x, attn_mask=bias)


def _docstring_decoder_over_cached_code_memory() -> None:
    _seeded()
    code_memory = torch.randn(1, 2, 12, 8)  # code encoder states cached once by the fp32 encoder
    q = torch.randn(1, 2, 4, 8, dtype=bf16)
    F.scaled_dot_product_attention(q, code_memory, code_memory)


def _line_number_sinusoid_into_bf16_layernorm() -> None:
    _seeded()
    dim = 16
    token_embedding = nn.Embedding(_VOCAB, dim).to(bf16)
    norm = nn.LayerNorm(dim).to(bf16)
    tokens = torch.randint(0, _VOCAB, (1, 10))
    line_numbers = torch.tensor([[1, 1, 1, 2, 2, 3, 3, 3, 3, 4]])
    inv_freq = 1.0 / 10000 ** (torch.arange(0, dim, 2) / dim)
    angles = line_numbers[..., None] * inv_freq
    line_encoding = torch.cat([angles.sin(), angles.cos()], -1)
    norm(token_embedding(tokens) + line_encoding)


def _copy_distribution_index_put_accumulate() -> None:
    _seeded()
    batch, src_len, n_oov = 2, 7, 3
    attention = torch.softmax(torch.randn(batch, src_len, dtype=bf16), -1)
    p_gen = torch.sigmoid(nn.Linear(8, 1)(torch.randn(batch, 8)))  # fp32 switch
    vocab_dist = torch.softmax(torch.randn(batch, _VOCAB), -1)
    final = torch.cat([p_gen * vocab_dist, torch.zeros(batch, n_oov)], -1)  # extended vocabulary for identifiers
    src_ext_ids = torch.tensor([[5, 9, 512, 9, 77, 513, 2], [3, 514, 3, 3, 8, 1, 2]])
    rows = torch.arange(batch)[:, None].expand(batch, src_len)
    final.index_put_((rows, src_ext_ids), attention * (1 - p_gen.to(bf16)), accumulate=True)


def _opennmt_copy_src_map_one_hot_bmm() -> None:
    _seeded()
    src = torch.tensor([[5, 9, 512, 9], [3, 513, 3, 1]])  # source ids in the extended vocabulary
    src_map = F.one_hot(src, _VOCAB + 2)  # (batch, src_len, extended vocab)
    copy_attention = torch.softmax(torch.randn(2, 3, 4, dtype=bf16), -1)  # (batch, tgt_len, src_len)
    torch.bmm(copy_attention, src_map)


def _vocab_padded_with_sentinel_logits_fp16() -> None:
    _seeded()
    lm_head = nn.Linear(16, _VOCAB - 3).half()  # trained before the FIM sentinels were added
    logits = lm_head(torch.randn(2, 16).half())
    F.pad(logits, (0, 3), value=-1e5)  # sentinels never sampled


def _fim_prefix_lm_mask_after_batch_cast() -> None:
    length = 8
    batch = {
        "input_ids": torch.randint(0, _VOCAB, (1, length), generator=torch.Generator().manual_seed(0)),
        "causal_mask": torch.ones(length, length, dtype=torch.bool).tril(),
        "bidirectional_mask": torch.zeros(length, length, dtype=torch.bool),
    }
    batch["bidirectional_mask"][:3, :3] = True  # prefix/suffix context attends both ways
    batch = {k: v if k.endswith("_ids") else v.to(bf16) for k, v in batch.items()}  # the trainer's precision cast
    batch["causal_mask"] | batch["bidirectional_mask"]


# --- fill-in-the-middle, tokens and near-duplicates


def _fim_sentinel_positions_uint32_ids() -> None:
    ids = np.array([1, 40, 41, _FIM_SUFFIX, 77, 78, _FIM_MIDDLE, 90], dtype=np.uint32)  # tokenizers' u32 ids
    tokens = torch.from_numpy(ids)
    sentinels = torch.tensor([_FIM_PREFIX, _FIM_MIDDLE, _FIM_SUFFIX], dtype=tokens.dtype)
    torch.isin(tokens, sentinels).nonzero()


def _fim_split_points_float() -> None:
    _seeded()
    document = torch.randint(0, _VOCAB - 3, (40,))
    cuts = (torch.rand(2) * len(document)).sort().values
    prefix, middle, suffix = document[: cuts[0]], document[cuts[0]: cuts[1]], document[cuts[1]:]
    torch.cat([torch.tensor([_FIM_PREFIX]), prefix, torch.tensor([_FIM_SUFFIX]), suffix,
               torch.tensor([_FIM_MIDDLE]), middle])


def _pad_with_eos_into_int16_buffer() -> None:
    eos = 50256  # GPT-2's <|endoftext|> used as pad, as CodeGen does
    sequences = [[12, 517, 2048], [99, 4]]
    padded = torch.full((len(sequences), 4), eos, dtype=torch.int16)  # int16 "to halve the shard"
    for row, ids in enumerate(sequences):
        padded[row, : len(ids)] = torch.tensor(ids)


def _minhash_signatures_uint64() -> None:
    rng = np.random.default_rng(0)
    shingle_hashes = torch.from_numpy(rng.integers(0, 2**61, size=20, dtype=np.uint64))  # xxhash64 of 5-grams
    a = torch.from_numpy(rng.integers(1, 2**31, size=8, dtype=np.uint64))
    b = torch.from_numpy(rng.integers(0, 2**31, size=8, dtype=np.uint64))
    signature = ((a[:, None] * shingle_hashes[None] + b[:, None]) % ((1 << 61) - 1)).amin(1)
    signature.tolist()


# --- execution traces, line numbers and unit tests


def _trace_values_float64_into_gru() -> None:
    trace = {"values": [[3, -1, 0], [4, -1, 1], [4, 7, 2], [1024, 7, 3]]}  # variable values per executed line
    values = np.array(trace["values"], dtype=np.float64)
    features = torch.from_numpy(np.sign(values) * np.log1p(np.abs(values)))
    nn.GRU(3, 16, batch_first=True)(features[None])


def _trace_line_numbers_with_missing_into_embedding() -> None:
    _seeded()
    executed = [12, 13, 14, None, 13, 14, 15]  # None: a frame inside a library
    line_ids = torch.from_numpy(np.array(executed, dtype=np.float64))
    line_embedding = nn.Embedding(256, 16)
    line_embedding(line_ids)


def _line_labels_to_tokens_float_counts() -> None:
    attention_mask = torch.tensor([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])  # per line
    tokens_per_line = attention_mask.sum(-1)
    line_is_buggy = torch.tensor([0, 1, 0])
    line_is_buggy.repeat_interleave(tokens_per_line)


def _first_failing_line_argmax_bool() -> None:
    passing = torch.tensor([True, True, False, True, True])
    failing = torch.tensor([True, True, True, True, False])
    only_in_failing = failing & ~passing  # lines covered by the failing run only
    only_in_failing.argmax()


def _coderl_reward_where_float_passed() -> None:
    results = [{"passed": 1.0}, {"passed": 0.0}, {"passed": 1.0}]  # json from the sandbox
    passed = torch.tensor([r["passed"] for r in results])
    compiled = torch.tensor([True, True, False])
    torch.where(passed, torch.tensor(1.0), torch.where(compiled, torch.tensor(-0.3), torch.tensor(-1.0)))


def _test_outcome_bernoulli_log_prob_bool() -> None:
    _seeded()
    head = nn.Linear(16, 1)
    logits = head(torch.randn(4, 16)).squeeze(-1)
    passed = torch.tensor([True, False, True, True])
    loss = -torch.distributions.Bernoulli(logits=logits).log_prob(passed).mean()
    loss.backward()


def _varmisuse_candidate_mask_target() -> None:
    _seeded()
    pointer_logits = torch.randn(2, 5)  # over candidate variable slots
    is_correct_slot = torch.tensor([[False, True, False, False, False], [False, False, False, True, False]])
    F.cross_entropy(pointer_logits, is_correct_slot)


def _test_prioritisation_exp_fp16() -> None:
    coverage_gain = torch.tensor([0.2, 1.4, 2.5, 0.9], dtype=f16)
    weights = (coverage_gain * 50).exp()  # sharpen toward high-gain tests
    torch.multinomial(weights / weights.sum(), 2)


CASES: dict[str, LiveCase] = {
    # code search: an fp32 log inverse temperature multiplied into the bf16 code embeddings before torch.mm
    "code-search-inverse-temperature-folded-into-keys": case(_code_search_inverse_temperature_on_keys,
                                                             "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # in-batch contrastive labels made with arange(...).to(logits), meant for the device, so bf16
    "code-search-arange-labels-to-logits": case(_code_search_labels_to_logits, "target_dtype", "bf16",
                                                fix=(".long()",),
        grade="correct", grade_at_freeze="correct"),
    # an fp8 code-embedding index scored with bf16 queries by @, the per-row dequantisation forgotten
    "code-index-fp8-scored-without-dequant": case(_code_index_fp8_scored_without_dequant, "matmul_dtype", "bf16",
                                                  "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # bf16 clone-detection embeddings handed to faiss through np.ascontiguousarray
    "clone-embeddings-bf16-ascontiguousarray": case(_clone_embeddings_to_faiss, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # test-to-focal-method linking: a bf16 Bilinear scorer given fp32 focal-method embeddings cached offline
    "test-focal-method-bilinear-fp32-cache": case(_test_focal_method_bilinear_linking, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # R-GCN over data-flow relations: the basis coefficients a plain tensor attribute, left fp32 by .to(bf16)
    "rgcn-basis-coefficients-plain-attribute": case(_rgcn_basis_coefficients_plain_attribute, "matmul_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GGNN annotations zero-padded to the hidden size with torch.zeros (fp32), into the bf16 edge Linear
    "ggnn-annotations-zero-padded-fp32": case(_ggnn_zero_padded_annotations, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # child-sum Tree-LSTM: bf16 child states index_add_'ed into an fp32 torch.zeros accumulator over AST parents
    "tree-lstm-child-sum-index-add-bf16": case(_tree_lstm_child_sum_index_add, "indexed_write_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a def-use sparse adjacency built with bool values, sparse.mm with fp32 node states
    "dataflow-sparse-bool-adjacency-mm": case(_dataflow_sparse_bool_adjacency, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # code2vec's attention vector loaded from the released checkpoint (fp32) after the cast, bmm with bf16 contexts
    "code2vec-attention-vector-loaded-after-cast": case(_code2vec_attention_vector_loaded_after_cast,
                                                        "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a token CNN whose embedding table alone was halved to bf16, into the fp32 conv-bn block (conv without bias)
    "token-cnn-halved-embedding-conv-bn": case(_token_cnn_halved_embedding_conv_bn, "conv_weight_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # an additive AST ancestor bias built in fp32 given to a bf16 MultiheadAttention as attn_mask
    "ast-ancestor-bias-fp32-mha": case(_ast_ancestor_bias_multihead_attention, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 docstring decoder cross-attending with SDPA over code memory cached by the fp32 encoder
    "docstring-decoder-fp32-code-memory-sdpa": case(_docstring_decoder_over_cached_code_memory, "sdpa_dtype",
                                                    "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 sinusoidal line-number encoding added to bf16 token embeddings, into the bf16 LayerNorm
    "line-number-sinusoid-fp32-layernorm": case(_line_number_sinusoid_into_bf16_layernorm, "norm_param_dtype",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # pointer-generator over an extended vocabulary: bf16 copy weights index_put_(accumulate=True) into fp32
    "copy-dist-index-put-accumulate-bf16": case(_copy_distribution_index_put_accumulate, "indexed_write_dtype",
                                                "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # OpenNMT-style copy generator with src_map from F.one_hot (int64), bmm with the bf16 copy attention
    "copy-src-map-one-hot-int64-bmm": case(_opennmt_copy_src_map_one_hot_bmm, "integer_operand", "int64",
                                           "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 LM logits padded for the new FIM sentinel tokens with F.pad(value=-1e5)
    "fim-sentinel-logits-pad-minus-1e5-fp16": case(_vocab_padded_with_sentinel_logits_fp16, "half_overflow",
                                                   "f16",
        grade="correct", grade_at_freeze="correct"),
    # prefix-LM FIM masks cast to bf16 by the trainer's batch cast, combined with |
    "fim-prefix-lm-masks-bf16-bitwise-or": case(_fim_prefix_lm_mask_after_batch_cast, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FIM sentinel positions found with torch.isin on uint32 ids from the tokenizers library
    "fim-sentinel-isin-uint32-ids": case(_fim_sentinel_positions_uint32_ids, "no_kernel", "uint32",
        grade="correct", grade_at_freeze="correct"),
    # FIM split points drawn as torch.rand * length (float) and used as slice bounds
    "fim-split-points-float-slice": case(_fim_split_points_float, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # CodeGen-style padding with eos id 50256 into a torch.full int16 token buffer
    "pad-eos-50256-int16-buffer": case(_pad_with_eos_into_int16_buffer, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # MinHash near-duplicate signatures computed on uint64 xxhash values
    "minhash-signatures-uint64-hashes": case(_minhash_signatures_uint64, "no_kernel", "uint64",
        grade="correct", grade_at_freeze="correct"),
    # execution-trace variable values log-scaled in numpy (float64), into an fp32 GRU trace encoder
    "trace-values-f64-gru": case(_trace_values_float64_into_gru, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # executed line numbers with None for library frames (float64 NaN) looked up in a line Embedding
    "trace-line-numbers-nan-f64-embedding": case(_trace_line_numbers_with_missing_into_embedding,
                                                 "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # line-level bug labels expanded to tokens with repeat_interleave of float per-line token counts
    "line-labels-repeat-interleave-float-counts": case(_line_labels_to_tokens_float_counts, "index_tensor_dtype",
                                                       "f32",
        grade="correct", grade_at_freeze="correct"),
    # spectrum-based fault localisation: the first line covered only by the failing run by argmax of a bool
    "fault-localisation-first-line-argmax-bool": case(_first_failing_line_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # CodeRL-style reward: torch.where on the sandbox's float 0/1 "passed" flags
    "coderl-reward-where-float-passed": case(_coderl_reward_where_float_passed, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # test-outcome model: Bernoulli.log_prob of the bool pass/fail labels
    "test-outcome-bernoulli-log-prob-bool": case(_test_outcome_bernoulli_log_prob_bool, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # VarMisuse repair pointer trained with cross_entropy on the bool correct-slot mask
    "varmisuse-pointer-bool-slot-target": case(_varmisuse_candidate_mask_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # test prioritisation sampling with exp(50 * gain) in fp16: inf / inf NaN into multinomial
    "test-prioritisation-exp-fp16-multinomial": case(_test_prioritisation_exp_fp16, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
