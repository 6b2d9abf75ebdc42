"""Held-out live set 62: classic NLP written by hand in low precision (BiLSTM-CRF and CRF taggers with Viterbi
decoding, char-CNN word encoders, fastText-style bag-of-n-gram classifiers, word2vec and topic models, seq2seq with
attention and greedy/beam decoding, pointer-generator copy distributions, vocabularies and OOV ids, padding masks and
lengths, label smoothing, packed sequences). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at f6737c3."""

from __future__ import annotations

import io

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f6737c3"

bf16, f16 = torch.bfloat16, torch.float16
_TAGS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC")
_K = len(_TAGS)
_PAD, _BOS, _EOS, _UNK = 0, 1, 2, 3
_VOCAB = 60
_BUCKETS = 2000  # fastText hashes n-grams into extra rows after the vocabulary


def _seeded() -> None:
    torch.manual_seed(0)


def _emissions(dtype: torch.dtype = bf16, batch: int = 2, steps: int = 6, tags: int = _K) -> torch.Tensor:
    return torch.randn(batch, steps, tags, dtype=dtype)  # what the tagger's hidden2tag gives


# --- CRF taggers and Viterbi


def _crf_bio_constraints_int_allowed_in_where() -> None:
    _seeded()
    allowed = [[0 if to.startswith("I-") and frm[2:] != to[2:] else 1 for to in _TAGS] for frm in _TAGS]
    allowed = torch.tensor(allowed)  # I-X may only follow B-X or I-X
    transitions = nn.Parameter(torch.randn(_K, _K) * 0.1)
    constrained = torch.where(allowed, transitions, -1e4)
    (_emissions(torch.float32)[:, :, :, None] + constrained).amax(2)


def _viterbi_backtrack_into_float_buffer() -> None:
    _seeded()
    emissions = _emissions()
    transitions = (torch.randn(_K, _K) * 0.1).to(bf16)
    batch, steps, _ = emissions.shape
    score, backpointers = emissions[:, 0], []
    for t in range(1, steps):
        best, prev = (score[:, :, None] + transitions[None]).max(dim=1)
        backpointers.append(prev)
        score = best + emissions[:, t]
    best_tags = torch.zeros(batch, steps)
    best_tags[:, -1] = score.argmax(-1)
    for t in range(steps - 2, -1, -1):
        best_tags[:, t] = backpointers[t].gather(1, best_tags[:, t + 1 : t + 2]).squeeze(1)


def _viterbi_backpointers_stored_uint8() -> None:
    _seeded()
    emissions = _emissions()
    transitions = (torch.randn(_K, _K) * 0.1).to(bf16)
    batch, steps, _ = emissions.shape
    backpointers = torch.zeros(steps, batch, _K, dtype=torch.uint8)  # fewer than 256 tags: one byte each
    score = emissions[:, 0]
    for t in range(1, steps):
        best, prev = (score[:, :, None] + transitions[None]).max(dim=1)
        backpointers[t] = prev
        score = best + emissions[:, t]
    last = score.argmax(-1)
    path = [last]
    for t in range(steps - 1, 0, -1):
        last = backpointers[t][torch.arange(batch), last]
        path.append(last)


def _crf_forward_algorithm_exp_space_matmul() -> None:
    _seeded()
    emissions = _emissions()  # the BiLSTM and hidden2tag cast to bf16
    transitions = nn.Parameter(torch.randn(_K, _K) * 0.1)  # CRF layer attached after model.to(bf16)
    alpha = emissions[:, 0].exp()
    for t in range(1, emissions.shape[1]):
        alpha = (alpha @ transitions.exp()) * emissions[:, t].exp()
        alpha = alpha / alpha.sum(-1, keepdim=True)


def _viterbi_init_minus_1e5_in_emission_dtype() -> None:
    _seeded()
    start = _K  # tags + START + STOP, as in the BiLSTM-CRF tutorial
    emissions = _emissions(f16, tags=_K + 2)  # the halved tagger's scores
    init_vvars = torch.full((emissions.shape[0], _K + 2), -1e5, dtype=emissions.dtype)
    init_vvars[:, start] = 0.0


def _structured_perceptron_counts_as_gradient() -> None:
    transitions = nn.Parameter(torch.zeros(_K, _K))
    gold = torch.tensor([0, 1, 2, 0, 3, 4, 0])
    predicted = torch.tensor([0, 1, 0, 0, 3, 0, 0])

    def bigram_counts(path: torch.Tensor) -> torch.Tensor:
        return torch.bincount(path[:-1] * _K + path[1:], minlength=_K * _K).view(_K, _K)

    transitions.grad = bigram_counts(predicted) - bigram_counts(gold)  # perceptron update through SGD
    torch.optim.SGD([transitions], lr=1.0).step()


def _tagger_loss_masked_with_one_minus_bool() -> None:
    _seeded()
    tokens = torch.tensor([[5, 9, 13, 21, _PAD, _PAD], [7, 30, _PAD, _PAD, _PAD, _PAD]])
    tags = torch.tensor([[1, 2, 0, 3, 0, 0], [3, 4, 0, 0, 0, 0]])
    token_loss = F.cross_entropy(_emissions().transpose(1, 2), tags, reduction="none")
    padding = tokens == _PAD
    (token_loss * (1 - padding)).sum() / (~padding).sum()


def _subword_to_word_pooling_nan_word_ids() -> None:
    _seeded()
    word_ids = [None, 0, 1, 1, 2, 3, 3, 3, None]  # a fast tokenizer's word_ids(): None for [CLS] and [SEP]
    ids = np.array([np.nan if w is None else w for w in word_ids])
    keep = ~np.isnan(ids)
    subword_states = torch.randn(len(word_ids), 16, dtype=bf16)
    words = torch.zeros(4, 16, dtype=bf16)
    words.index_add_(0, torch.from_numpy(ids[keep]), subword_states[torch.from_numpy(keep)])


# --- char-CNN word encoders and embeddings

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789,;.!?:'\"/\\|_@#$%^&*~`+-=<>()[]{}"


def _char_cnn_quantised_one_hot_uint8() -> None:
    _seeded()
    text = "the quick brown fox jumps"
    one_hot = np.zeros((len(_ALPHABET), 32), dtype=np.uint8)  # character quantisation as in the char-CNN paper
    for position, char in enumerate(text[:32]):
        row = _ALPHABET.find(char)
        if row >= 0:
            one_hot[row, position] = 1
    conv = nn.Conv1d(len(_ALPHABET), 64, 7)
    conv(torch.from_numpy(one_hot)[None])


def _char_cnn_numpy_char_vectors_conv1d() -> None:
    _seeded()
    char_vectors = np.random.default_rng(0).normal(size=(len(_ALPHABET) + 2, 16))  # pretrained, from a .npy
    char_embed = nn.Embedding.from_pretrained(torch.from_numpy(char_vectors), freeze=False, padding_idx=0)
    conv = nn.Conv1d(16, 32, 3, padding=1)
    chars = torch.tensor([[21, 9, 6, 0, 0], [18, 22, 10, 4, 12]])  # (words, max word length)
    torch.amax(conv(char_embed(chars).transpose(1, 2)), dim=2)


def _char_features_fp32_meet_bf16_layer_norm() -> None:
    _seeded()
    word_embed = nn.Embedding(_VOCAB, 24).to(bf16)
    char_encoder = nn.Conv1d(8, 8, 3, padding=1)  # char-CNN kept fp32 "for small kernels"
    layer_norm = nn.LayerNorm(32).to(bf16)
    tokens = torch.tensor([[5, 9, 13]])
    char_features = char_encoder(torch.randn(3, 8, 6)).amax(2)[None]
    layer_norm(torch.cat([word_embed(tokens), char_features], dim=-1))


def _glove_rows_written_from_float64_vectors() -> None:
    glove_txt = "the 0.418 0.24968 -0.41242 0.1217\nof 0.70853 0.57088 -0.4716 0.18048\nto 0.68047 -0.039263 0.30186 -0.17792\n"
    vocab = {"<pad>": 0, "<unk>": 1, "the": 4, "of": 9, "to": 17}
    embedding = nn.Embedding(_VOCAB, 4, padding_idx=0)
    rows, ids = [], []
    for line in io.StringIO(glove_txt):
        word, *values = line.split()
        rows.append(np.asarray(values, dtype=float))
        ids.append(vocab[word])
    with torch.no_grad():
        embedding.weight[torch.tensor(ids)] = torch.from_numpy(np.stack(rows))


def _word_vectors_bf16_exported_to_numpy() -> None:
    _seeded()
    embedding = nn.Embedding(_VOCAB, 16).to(bf16)  # skip-gram vectors trained in bf16
    vectors = embedding.weight.detach().cpu().numpy()  # for gensim's KeyedVectors.add_vectors
    np.linalg.norm(vectors, axis=1)


def _ragged_token_ids_to_tensor() -> None:
    encoded = [[_BOS, 14, 27, 9, _EOS], [_BOS, 31, _EOS], [_BOS, 8, 8, 40, 12, 6, _EOS]]  # tokenizer, no padding
    batch = np.array(encoded, dtype=object)
    torch.from_numpy(batch)


# --- fastText-style classifiers, word2vec, bag-of-words and topic models


def _fasttext_fnv1a_uint32_buckets() -> None:
    ngrams = ["<wh", "whe", "her", "ere", "re>"]  # character 3-grams of "where"
    codes = torch.tensor([list(ngram.encode()) for ngram in ngrams], dtype=torch.uint8)
    hashes = torch.full((len(ngrams),), 2166136261, dtype=torch.uint32)  # 32-bit FNV-1a, as fastText does
    for i in range(codes.shape[1]):
        hashes = (hashes ^ codes[:, i].to(torch.uint32)) * 16777619
    _VOCAB + hashes % _BUCKETS


def _fasttext_table_halved_classifier_fp32() -> None:
    _seeded()
    embedding = nn.EmbeddingBag(_VOCAB + _BUCKETS, 32, mode="mean")
    classifier = nn.Linear(32, 4)
    embedding.to(bf16)  # the big (vocabulary + buckets) table halved to save memory
    text = torch.tensor([5, 9, 13, _VOCAB + 101, _VOCAB + 877, 7, 30, _VOCAB + 1500])
    offsets = torch.tensor([0, 5])
    classifier(embedding(text, offsets))


def _bag_of_words_bincount_into_linear() -> None:
    _seeded()
    document = torch.tensor([4, 17, 4, 9, 23, 17, 4])
    counts = torch.bincount(document, minlength=_VOCAB)
    classifier = nn.Linear(_VOCAB, 3)
    classifier(counts[None])


def _tfidf_sparse_coo_float64_mm() -> None:
    _seeded()
    rows, cols = np.array([0, 0, 1, 1, 1]), np.array([3, 17, 3, 8, 40])
    values = np.array([0.6, 0.8, 0.3, 0.5, 0.81])  # sklearn TfidfVectorizer's scipy COO data: float64
    tfidf = torch.sparse_coo_tensor(torch.from_numpy(np.vstack([rows, cols])), torch.from_numpy(values), (2, _VOCAB))
    weight = nn.Parameter(torch.randn(_VOCAB, 4) * 0.01)
    torch.sparse.mm(tfidf, weight)


def _word2vec_unigram_counts_pow_in_place() -> None:
    corpus = torch.tensor([4, 9, 4, 17, 23, 4, 9, 31, 4, 17])
    counts = torch.bincount(corpus, minlength=_VOCAB)
    noise = counts.pow_(0.75)  # unigram^0.75 noise distribution
    noise / noise.sum()


def _skip_gram_negatives_bmm_halved_context_table() -> None:
    _seeded()
    center_embed = nn.Embedding(_VOCAB, 32)  # the exported vectors, kept fp32
    context_embed = nn.Embedding(_VOCAB, 32).to(bf16)  # output table halved to save memory
    noise = torch.rand(_VOCAB) ** 0.75
    centers = torch.tensor([4, 17])
    negatives = torch.multinomial(noise, 2 * 5, replacement=True).view(2, 5)
    scores = torch.bmm(context_embed(negatives), center_embed(centers).unsqueeze(2)).squeeze(2)
    F.logsigmoid(-scores).sum()


def _prodlda_dirichlet_in_bf16() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Linear(_VOCAB, 32), nn.Softplus(), nn.Linear(32, 8)).to(bf16)
    bow = torch.bincount(torch.tensor([4, 17, 4, 9, 23]), minlength=_VOCAB).to(bf16)[None]
    concentration = F.softplus(encoder(bow)) + 1e-3
    torch.distributions.Dirichlet(concentration).rsample()  # document-topic proportions


# --- seq2seq with attention, decoding, copying, label smoothing and packing


def _fp32_encoder_state_into_bf16_gru_decoder() -> None:
    _seeded()
    encoder = nn.GRU(16, 32, batch_first=True, bidirectional=True)  # encoder kept fp32 "for accuracy"
    bridge = nn.Linear(64, 32)
    decoder = nn.GRU(16, 32, batch_first=True).to(bf16)
    _, h_n = encoder(torch.randn(2, 7, 16))
    h0 = torch.tanh(bridge(torch.cat([h_n[0], h_n[1]], dim=-1)))[None]
    decoder(torch.randn(2, 5, 16, dtype=bf16), h0)


def _bahdanau_attention_fp32_encoder_outputs() -> None:
    _seeded()
    attn = nn.Linear(64 + 32, 32).to(bf16)  # only the decoder (with its attention) was cast
    v = nn.Linear(32, 1, bias=False).to(bf16)
    encoder_outputs = torch.randn(2, 7, 64)
    hidden = torch.randn(2, 32, dtype=bf16).unsqueeze(1).repeat(1, 7, 1)
    energy = torch.tanh(attn(torch.cat((hidden, encoder_outputs), dim=2)))
    F.softmax(v(energy).squeeze(2), dim=1)


def _luong_input_feeding_zero_attentional_vector() -> None:
    _seeded()
    embed = nn.Embedding(_VOCAB, 16).to(bf16)
    cell = nn.LSTMCell(16 + 32, 32).to(bf16)
    h_tilde = torch.zeros(2, 32)  # the attentional vector fed back in; zeros at the first step
    state = None
    token = torch.full((2,), _BOS)
    state = cell(torch.cat([embed(token), h_tilde], dim=-1), state)


def _greedy_decode_topk_unpacked_swapped() -> None:
    _seeded()
    embed = nn.Embedding(_VOCAB, 16).to(bf16)
    decoder = nn.GRU(16, 32, batch_first=True).to(bf16)
    out_proj = nn.Linear(32, _VOCAB).to(bf16)
    token, hidden = torch.full((2, 1), _BOS), None
    for _ in range(3):
        output, hidden = decoder(embed(token), hidden)
        topi, _topv = out_proj(output).topk(1)
        token = topi.squeeze(-1)


def _sampling_near_zero_temperature_fp16() -> None:
    _seeded()
    logits = (torch.randn(1, _VOCAB) * 4).half()  # the halved decoder's next-token logits
    temperature = 1e-5  # "almost greedy"
    probs = F.softmax(logits / temperature, dim=-1)
    torch.multinomial(probs, 1)


def _pointer_generator_mixture_with_lerp() -> None:
    _seeded()
    batch, src_len, n_oov = 2, 7, 3
    vocab_dist = torch.softmax(torch.randn(batch, _VOCAB, dtype=bf16), -1)
    attn_dist = torch.softmax(torch.randn(batch, src_len, dtype=bf16), -1)
    p_gen = torch.sigmoid(torch.randn(batch, 1, dtype=bf16))
    src_ext_ids = torch.randint(0, _VOCAB + n_oov, (batch, src_len))  # source ids in the extended vocabulary
    copy_dist = torch.zeros(batch, _VOCAB + n_oov).scatter_add(1, src_ext_ids, attn_dist.float())
    torch.lerp(copy_dist, F.pad(vocab_dist, (0, n_oov)), p_gen)


def _label_smoothing_scatter_fp32_confidence() -> None:
    _seeded()
    target = torch.tensor([14, 27, 9, _EOS, _PAD, _PAD])
    lprobs = torch.randn(6, _VOCAB, dtype=bf16).log_softmax(-1)
    smoothing = 0.1
    true_dist = torch.full_like(lprobs, smoothing / (_VOCAB - 2))
    confidence = torch.full((6, 1), 1.0 - smoothing)
    confidence[target == _PAD] = 0.0
    true_dist.scatter_(1, target.unsqueeze(1), confidence)


def _annotated_transformer_uint8_subsequent_mask() -> None:
    _seeded()
    tgt = torch.tensor([[_BOS, 14, 27, _PAD]])
    subsequent = torch.from_numpy(np.tril(np.ones((1, 4, 4))).astype("uint8"))  # 1 = may attend
    tgt_mask = (tgt != _PAD).unsqueeze(-2) & subsequent
    scores = torch.randn(1, 4, 4, dtype=bf16)
    scores.masked_fill(~tgt_mask, float("-inf")).softmax(-1)


def _packed_sequence_int32_batch_sizes() -> None:
    _seeded()
    lengths = np.array([4, 3, 1], dtype=np.int32)  # the bucketed dataset's length column, sorted
    batch_sizes = (lengths[None, :] > np.arange(lengths.max())[:, None]).sum(1).astype(np.int32)
    data = torch.randn(int(lengths.sum()), 8)  # time-major packed embeddings, built in the collate
    packed = nn.utils.rnn.PackedSequence(data, torch.from_numpy(batch_sizes))
    nn.GRU(8, 16, bidirectional=True)(packed)


CASES: dict[str, LiveCase] = {
    # --- CRF taggers and Viterbi
    # BIO constraints for a CRF: the allowed-transition matrix from a list of 0/1 (int64) as torch.where's condition
    "crf-bio-allowed-int64-where": case(_crf_bio_constraints_int_allowed_in_where, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # Viterbi backtrack writing the best tags into torch.zeros(batch, steps) (float), then gathering with them
    "viterbi-backtrack-float-tag-buffer-gather": case(_viterbi_backtrack_into_float_buffer, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Viterbi backpointers stored as uint8 to save memory; a uint8 backpointer used as an index is read as a mask
    "viterbi-uint8-backpointers-read-as-mask": case(_viterbi_backpointers_stored_uint8, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # CRF forward algorithm in exp space: bf16 emissions' alphas @ exp of fp32 transitions added after the cast
    "crf-exp-space-forward-fp32-transitions": case(_crf_forward_algorithm_exp_space_matmul, "matmul_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # Viterbi start scores made with torch.full(-1e5) in the fp16 emissions' dtype
    "viterbi-init-minus-1e5-fp16": case(_viterbi_init_minus_1e5_in_emission_dtype, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # structured perceptron: bincount's int64 transition counts assigned as the fp32 transitions' gradient
    "structured-perceptron-int64-count-grad": case(_structured_perceptron_counts_as_gradient, "loss_dtype", "int64",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # tagger token loss masked with 1 - (tokens == pad), a bool
    "tagger-loss-one-minus-bool-pad-mask": case(_tagger_loss_masked_with_one_minus_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # subword-to-word pooling: word_ids() with None made float64 NaN in numpy, used as index_add_'s index
    "word-ids-nan-float64-index-add": case(_subword_to_word_pooling_nan_word_ids, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- char-CNN word encoders and embeddings
    # char-CNN over the paper's quantised one-hot characters built as a uint8 numpy array
    "char-cnn-one-hot-uint8-conv1d": case(_char_cnn_quantised_one_hot_uint8, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # char-CNN whose pretrained character vectors came from numpy (float64) through from_pretrained
    "char-cnn-f64-char-vectors-conv1d": case(_char_cnn_numpy_char_vectors_conv1d, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 word embeddings concatenated with fp32 char-CNN features, into a LayerNorm cast to bf16
    "word-char-concat-fp32-bf16-layer-norm": case(_char_features_fp32_meet_bf16_layer_norm, "norm_param_dtype",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # GloVe rows (float64 from the text file) written into the fp32 embedding by advanced indexing
    "glove-rows-f64-index-put": case(_glove_rows_written_from_float64_vectors, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 skip-gram vectors exported with .numpy() for gensim
    "word-vectors-bf16-numpy-export": case(_word_vectors_bf16_exported_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a batch of unpadded token-id lists of different lengths made a numpy object array, then torch.from_numpy
    "ragged-token-ids-object-array": case(_ragged_token_ids_to_tensor, "numpy_dtype", fix=("pad",),
        grade="correct", grade_at_freeze="correct"),
    # --- fastText-style classifiers, word2vec, bag-of-words and topic models
    # fastText's 32-bit FNV-1a n-gram hash in uint32, bucketed with %
    "fasttext-fnv1a-uint32-bucket-remainder": case(_fasttext_fnv1a_uint32_buckets, "no_kernel", "uint32",
        grade="correct", grade_at_freeze="correct"),
    # fastText-style classifier: the EmbeddingBag table halved to bf16, the Linear classifier left fp32
    "fasttext-bag-halved-classifier-fp32": case(_fasttext_table_halved_classifier_fp32, "matmul_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # bag-of-words counts from bincount (int64) fed to the Linear classifier
    "bow-bincount-counts-linear": case(_bag_of_words_bincount_into_linear, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TF-IDF features as a sparse COO tensor with scipy's float64 values, sparse.mm with fp32 weights
    "tfidf-sparse-f64-mm": case(_tfidf_sparse_coo_float64_mm, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # word2vec noise distribution: the int64 unigram counts raised to 0.75 in place
    "word2vec-unigram-counts-pow-in-place": case(_word2vec_unigram_counts_pow_in_place, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # skip-gram negative sampling: bmm of the bf16 context table's negatives with fp32 center vectors
    "sgns-negatives-bmm-bf16-context-table": case(_skip_gram_negatives_bmm_halved_context_table,
                                                  "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ProdLDA-style neural topic model sampling a Dirichlet with bf16 concentrations
    "prodlda-dirichlet-bf16": case(_prodlda_dirichlet_in_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- seq2seq with attention, decoding, copying, label smoothing and packing
    # an fp32 bidirectional GRU encoder's bridged final state as h0 of a bf16 GRU decoder
    "seq2seq-fp32-encoder-state-bf16-gru-decoder": case(_fp32_encoder_state_into_bf16_gru_decoder, "rnn_dtype",
                                                        "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Bahdanau attention in a bf16 decoder over fp32 encoder outputs: the cat promotes to fp32 before the Linear
    "bahdanau-attention-fp32-encoder-outputs": case(_bahdanau_attention_fp32_encoder_outputs, "matmul_dtype", "f32",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Luong input feeding: the first step's attentional vector made with torch.zeros (fp32) into a bf16 LSTMCell
    "luong-input-feeding-zeros-bf16-lstm-cell": case(_luong_input_feeding_zero_attentional_vector, "rnn_dtype",
                                                     "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # greedy decoding with topk's (values, indices) unpacked the wrong way round: bf16 values fed to the embedding
    "greedy-decode-topk-values-as-ids": case(_greedy_decode_topk_unpacked_swapped, "index_tensor_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # near-greedy sampling with temperature 1e-5 on fp16 logits: the division overflows, softmax gives NaN
    "sampling-temperature-1e-5-fp16-nan": case(_sampling_near_zero_temperature_fp16, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # pointer-generator mixture by torch.lerp: fp32 copy distribution (torch.zeros buffer) and bf16 vocab distribution
    "pointer-generator-lerp-fp32-copy-dist": case(_pointer_generator_mixture_with_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # label smoothing: per-token fp32 confidence scattered into the bf16 smoothed target (full_like of the lprobs)
    "label-smoothing-scatter-fp32-confidence": case(_label_smoothing_scatter_fp32_confidence,
                                                    "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Annotated-Transformer-style mask: bool padding & uint8 numpy subsequent mask is uint8, inverted for masked_fill
    "annotated-transformer-uint8-subsequent-mask": case(_annotated_transformer_uint8_subsequent_mask, "mask_dtype",
                                                        "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a PackedSequence built by hand in the collate with int32 batch_sizes from numpy, into a GRU
    "packed-sequence-int32-batch-sizes": case(_packed_sequence_int32_batch_sizes, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (f6737c3) castwise gave integer_operand [int64, int32] (high confidence). The GRU was given a "
             "hand-built PackedSequence whose batch_sizes came from numpy as int32, where torch needs an int64 "
             "batch_sizes tensor; the bare 'expected scalar type Long but found Int' was read as integer data fed to "
             "float math, not as an integer (index-like) tensor of the wrong integer dtype.")),
}
