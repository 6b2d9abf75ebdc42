"""Held-out live set 141: neural machine translation written by hand in low precision (source and target token ids as
int64 with padding masks, fairseq-style binarized corpora, label-smoothed cross-entropy, beam search with int64
back-pointers, n-gram blocking, lexical shortlists and length penalties, bf16 autocast around transformer
encoder-decoders, shared source/target embeddings tied to an fp32 output layer, BLEU and MBR computed on numpy
arrays, kNN-MT datastores, sampled back-translation). Defects planted by a helper who never read the rules, written
before castwise ran and graded once with the rules frozen at d039d1a0."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d039d1a0"

bf16, f16 = torch.bfloat16, torch.float16
_BOS, _PAD, _EOS, _UNK = 0, 1, 2, 3  # fairseq dictionary order
_VOCAB = 96  # joint BPE vocabulary shared by source and target
_D = 32  # model width
_HEADS = 4
_BEAM = 4


def _seeded() -> None:
    torch.manual_seed(0)


def _src_tokens() -> torch.Tensor:
    """Two source sentences (int64), right-padded with <pad>, each ending in </s>."""
    return torch.tensor([[17, 44, 9, 61, 23, _EOS],
                         [52, 11, 70, _EOS, _PAD, _PAD]])


def _tgt_tokens() -> torch.Tensor:
    """Their references (int64), right-padded, each ending in </s>."""
    return torch.tensor([[31, 8, 77, 40, _EOS],
                         [19, 66, _EOS, _PAD, _PAD]])


def _shift_right(tgt: torch.Tensor) -> torch.Tensor:
    """prev_output_tokens: </s> first, as fairseq feeds the decoder."""
    return torch.cat([torch.full_like(tgt[:, :1], _EOS), tgt[:, :-1]], dim=1)


def _tiny_transformer() -> nn.Transformer:
    return nn.Transformer(_D, _HEADS, 1, 1, 64, dropout=0.0, batch_first=True)


# --- token ids, padding masks and targets


def _fairseq_bin_uint16_src_ids_into_shared_embedding() -> None:
    _seeded()
    # MMapIndexedDataset stores a vocabulary under 65500 types as uint16; the .bin buffer read with np.frombuffer
    raw = np.array([17, 44, 9, 61, 23, _EOS, 52, 11, 70, _EOS], dtype=np.uint16).tobytes()
    sizes = [6, 4]
    data = np.frombuffer(raw, dtype=np.uint16)
    sentences = [torch.from_numpy(data[start:start + n].copy()) for start, n in zip((0, 6), sizes, strict=True)]
    src = nn.utils.rnn.pad_sequence(sentences, batch_first=True, padding_value=_PAD)
    shared = nn.Embedding(_VOCAB, _D, padding_idx=_PAD)
    shared(src) * math.sqrt(_D)


def _byte_padding_mask_into_bf16_nn_transformer() -> None:
    _seeded()
    model = _tiny_transformer().to(bf16)
    shared = nn.Embedding(_VOCAB, _D, padding_idx=_PAD).to(bf16)
    src, tgt = _src_tokens(), _tgt_tokens()
    src_pad = src.eq(_PAD).byte()  # the old fairseq idiom, from before bool masks
    model(shared(src), shared(_shift_right(tgt)), src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad)


def _beam_alive_mask_one_minus_finished() -> None:
    _seeded()
    lprobs = torch.randn(2 * _BEAM, _VOCAB).log_softmax(-1)
    cand_scores, cand_tokens = lprobs.topk(2, dim=-1)
    cand_tokens[0, 0] = _EOS
    finished = cand_tokens.eq(_EOS)
    alive = 1 - finished  # hypotheses still open
    cand_scores * alive


def _ngram_block_uint8_banned_tokens() -> None:
    _seeded()
    bsz_beam, step = 2 * _BEAM, 5
    tokens = torch.randint(4, _VOCAB, (bsz_beam, step))
    tokens[0, 1] = tokens[0, -1]  # hypothesis 0 repeats a word: the bigram after it gets banned
    lprobs = torch.randn(bsz_beam, _VOCAB, dtype=bf16).log_softmax(-1)
    banned = torch.zeros(bsz_beam, _VOCAB, dtype=torch.uint8)
    for row in range(bsz_beam):  # no_repeat_ngram_size=2: ban what followed the last token before
        last = tokens[row, -1]
        for pos in range(step - 1):
            if tokens[row, pos] == last:
                banned[row, tokens[row, pos + 1]] = 1
    lprobs.masked_fill_(banned, -math.inf)


def _label_smoothed_ce_int32_targets_from_npz() -> None:
    _seeded()
    # the preprocessed corpus was saved with np.savez(..., tgt=np.int32 array) to halve its size
    tgt = torch.from_numpy(_tgt_tokens().numpy().astype(np.int32))
    logits = torch.randn(2, tgt.shape[1], _VOCAB)
    F.cross_entropy(logits.view(-1, _VOCAB), tgt.view(-1), ignore_index=_PAD, label_smoothing=0.1)


def _learned_positions_cumsum_of_float_mask() -> None:
    _seeded()
    src = _src_tokens()
    mask = src.ne(_PAD).float()
    positions = torch.cumsum(mask, dim=1) * mask + _PAD  # make_positions, padding keeps padding_idx
    embed_positions = nn.Embedding(64 + _PAD + 1, _D, padding_idx=_PAD)
    embed_positions(positions)


def _word_dropout_noise_rand_like_src_tokens() -> None:
    _seeded()
    src = _src_tokens()
    drop = torch.rand_like(src) < 0.1  # back-translation noise: drop 10% of the words
    src.masked_fill(drop & src.ne(_PAD) & src.ne(_EOS), _UNK)


def _bleu_modified_precision_div_inplace_int64_counts() -> None:
    matches = torch.tensor([9, 5, 3, 1])  # clipped n-gram matches, n = 1..4 (int64 from Counter sums)
    totals = torch.tensor([12, 11, 10, 9])
    precisions = matches.div_(totals)
    torch.exp(torch.log(precisions).mean())


def _copy_attention_bmm_one_hot_src_map() -> None:
    _seeded()
    src = _src_tokens()
    attn = torch.rand(2, 5, src.shape[1], dtype=bf16).softmax(-1)  # decoder cross-attention, 5 target steps
    src_map = F.one_hot(src, _VOCAB)  # (B, S, V): where each source token sits in the vocabulary
    copy_probs = torch.bmm(attn, src_map)
    copy_probs.sum(-1)


def _multilingual_temperature_sampling_int64_counts() -> None:
    _seeded()
    sentences_per_pair = torch.tensor([2_000_000, 450_000, 38_000, 6_000])  # en-de, en-fr, en-ro, en-ne
    temperature = 1.0
    weights = sentences_per_pair if temperature == 1.0 else sentences_per_pair.float() ** (1.0 / temperature)
    torch.multinomial(weights, 16, replacement=True)


def _lexical_shortlist_int32_ids_into_int64_hypotheses() -> None:
    _seeded()
    shortlist = torch.tensor([_EOS, 8, 19, 31, 40, 66, 77], dtype=torch.int32)  # Marian-style shortlist from fast_align
    hyps = torch.full((2 * _BEAM, 6), _PAD)
    hyps[:, 0] = _EOS
    step = 1
    lprobs = torch.randn(2 * _BEAM, len(shortlist)).log_softmax(-1)
    best = lprobs.argmax(-1)
    active = torch.tensor([0, 1, 2, 4, 5, 7])
    hyps[active, step] = shortlist[best[active]]


# --- bf16 autocast, tied embeddings, scores and losses


def _beam_search_encoder_eval_autocast_with_padding() -> None:
    _seeded()
    model = _tiny_transformer().eval()
    shared = nn.Embedding(_VOCAB, _D, padding_idx=_PAD)
    src = _src_tokens()
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        model.encoder(shared(src) * math.sqrt(_D), src_key_padding_mask=src.eq(_PAD))


def _output_bias_registered_after_bf16_cast() -> None:
    _seeded()

    class TiedGenerator(nn.Module):
        def __init__(self, shared: nn.Embedding) -> None:
            super().__init__()
            self.shared = shared

        def forward(self, h: torch.Tensor) -> torch.Tensor:
            return F.linear(h, self.shared.weight, self.out_bias)

    generator = TiedGenerator(nn.Embedding(_VOCAB, _D, padding_idx=_PAD)).to(bf16)
    generator.out_bias = nn.Parameter(torch.zeros(_VOCAB))  # added when fine-tuning, after the cast
    generator(torch.randn(2, 5, _D, dtype=bf16))


def _tied_logits_outside_autocast_after_project_out() -> None:
    _seeded()
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(_D, _HEADS, 64, dropout=0.0, batch_first=True), 1)
    project_out_dim = nn.Linear(_D, 24, bias=False)  # decoder_output_dim 24 != d_model
    shared = nn.Embedding(_VOCAB, 24, padding_idx=_PAD)
    memory = torch.randn(2, 6, _D)
    with torch.autocast("cpu", dtype=bf16):
        h = decoder(torch.randn(2, 5, _D), memory)
        h = project_out_dim(h)
    logits = h @ shared.weight.T  # tied output layer, outside the autocast block
    logits.log_softmax(-1)


def _finalized_hypothesis_scores_index_put_bf16() -> None:
    _seeded()
    bsz = 2
    finalized_scores = torch.full((bsz, _BEAM), -math.inf)
    lprobs = torch.randn(bsz * _BEAM, _VOCAB, dtype=bf16).log_softmax(-1)
    eos_bbsz_idx = torch.tensor([1, 6])
    eos_scores = lprobs[eos_bbsz_idx, _EOS] / (3 ** 1.0)  # length-normalised with lenpen 1.0
    slots = torch.tensor([0, 0])
    finalized_scores[eos_bbsz_idx // _BEAM, slots] = eos_scores


def _cross_attention_pad_mask_filled_with_float32_min_in_bf16() -> None:
    _seeded()
    src = _src_tokens()
    q = torch.randn(2, _HEADS, 5, _D // _HEADS, dtype=bf16)
    k = torch.randn(2, _HEADS, src.shape[1], _D // _HEADS, dtype=bf16)
    scores = q @ k.transpose(-1, -2) / math.sqrt(_D // _HEADS)
    scores = scores.masked_fill(src.eq(_PAD)[:, None, None, :], torch.finfo(torch.float32).min)
    scores.softmax(-1)


def _vocabulary_frequency_weights_in_label_smoothed_ce() -> None:
    _seeded()
    tgt = _tgt_tokens()
    counts = torch.bincount(torch.randint(0, _VOCAB, (5000,)), minlength=_VOCAB).float() + 1
    weight = (counts.sum() / counts).clamp(max=10.0)  # upweight rare target words (fp32)
    weight[_PAD] = 0.0
    with torch.autocast("cpu", dtype=bf16):
        logits = nn.Linear(_D, _VOCAB)(torch.randn(2, tgt.shape[1], _D))
    F.cross_entropy(logits.view(-1, _VOCAB), tgt.view(-1), weight=weight, ignore_index=_PAD, label_smoothing=0.1)


def _fp32_master_shared_embedding_given_bf16_grad() -> None:
    _seeded()
    model_shared = nn.Embedding(_VOCAB, _D, padding_idx=_PAD).to(bf16)
    master_shared = nn.Parameter(model_shared.weight.detach().float())
    logits = F.linear(model_shared(_tgt_tokens()), model_shared.weight)
    F.cross_entropy(logits.view(-1, _VOCAB).float(), _tgt_tokens().view(-1), ignore_index=_PAD).backward()
    master_shared.grad = model_shared.weight.grad  # copy grads to the fp32 master before the optimizer step


def _fp16_nmt_params_with_grad_scaler_unscale() -> None:
    _seeded()
    model = nn.ModuleDict({"embed": nn.Embedding(_VOCAB, _D, padding_idx=_PAD),
                           "proj": nn.Linear(_D, _D)}).half()  # --fp16 without the fp32 master copy
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    scaler = torch.amp.GradScaler("cpu")
    h = model["proj"](model["embed"](_tgt_tokens()))
    logits = F.linear(h, model["embed"].weight).float()
    loss = F.cross_entropy(logits.view(-1, _VOCAB), _tgt_tokens().view(-1), ignore_index=_PAD, label_smoothing=0.1)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), 0.1)


def _alignment_extraction_mha_weights_with_fp32_pad_mask() -> None:
    _seeded()
    cross_attn = nn.MultiheadAttention(_D, _HEADS, batch_first=True).to(bf16)
    src = _src_tokens()
    memory = torch.randn(2, src.shape[1], _D, dtype=bf16)
    queries = torch.randn(2, 5, _D, dtype=bf16)
    src_lengths = src.ne(_PAD).sum(-1)
    key_padding = torch.zeros(2, src.shape[1])  # additive: 0 for words, -inf for padding
    key_padding[torch.arange(src.shape[1])[None, :] >= src_lengths[:, None]] = -math.inf
    _, alignment = cross_attn(queries, memory, memory, key_padding_mask=key_padding, need_weights=True)
    alignment.argmax(-1)  # hard word alignment for the guided-alignment loss


def _bahdanau_grucell_bf16_fed_fp32_context() -> None:
    _seeded()
    embed = nn.Embedding(_VOCAB, _D, padding_idx=_PAD).to(bf16)
    cell = nn.GRUCell(2 * _D, _D).to(bf16)
    energy = nn.Linear(_D, 1)  # attention scorer kept fp32 "for a stable softmax"
    encoder_out = torch.randn(2, 6, _D)
    hidden = torch.zeros(2, _D, dtype=bf16)
    weights = energy(torch.tanh(encoder_out + hidden.float()[:, None])).squeeze(-1).softmax(-1)
    context = (weights[..., None] * encoder_out).sum(1)
    cell(torch.cat([embed(torch.full((2,), _EOS)), context], dim=-1), hidden)


def _luong_general_attention_bmm_fp32_encoder_states() -> None:
    _seeded()
    w_a = nn.Linear(_D, _D, bias=False).to(bf16)
    decoder_h = torch.randn(2, 1, _D, dtype=bf16)
    encoder_states = torch.randn(2, 6, _D)  # encoder outputs cached once per batch, before the decoder's cast
    scores = torch.bmm(w_a(decoder_h), encoder_states.transpose(1, 2))
    scores.softmax(-1)


def _norm_first_bf16_encoder_fed_fp32_shared_embedding() -> None:
    _seeded()
    encoder = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(_D, _HEADS, 64, dropout=0.0, batch_first=True, norm_first=True), 1,
        enable_nested_tensor=False,
    ).to(bf16)
    shared = nn.Embedding(_VOCAB, _D, padding_idx=_PAD)  # kept fp32 because the output layer is tied to it
    src = _src_tokens()
    encoder(shared(src) * math.sqrt(_D), src_key_padding_mask=src.eq(_PAD))


# --- decoding utilities, BLEU on numpy, datastores and sampling


def _greedy_buffer_in_model_dtype_to_numpy_for_bleu() -> None:
    _seeded()
    embed = nn.Embedding(_VOCAB, _D, padding_idx=_PAD).to(bf16)
    out = nn.Linear(_D, _VOCAB).to(bf16)
    lprobs = out(torch.randn(2, _D, dtype=bf16)).log_softmax(-1)
    hyps = torch.full((2, 5), _PAD, dtype=lprobs.dtype)  # same dtype as the scores
    prev = torch.full((2,), _EOS)
    for step in range(5):
        lprobs = out(embed(prev)).log_softmax(-1)
        prev = lprobs.argmax(-1)
        hyps[:, step] = prev
    references = np.array([[31, 8, 77, 40, _EOS], [19, 66, _EOS, _PAD, _PAD]])
    (hyps.numpy() == references).mean()


def _mbr_expected_bleu_numpy_utility_bf16_probabilities() -> None:
    _seeded()
    candidates = 6
    utility = np.random.default_rng(0).uniform(0.1, 0.6, size=(candidates, candidates))  # pairwise sentence BLEU
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        seq_logprobs = nn.Linear(_D, 1)(torch.randn(candidates, _D)).squeeze(-1)
    probs = seq_logprobs.softmax(-1)
    expected = utility @ np.asarray(probs)
    int(expected.argmax())


def _knn_mt_fp16_datastore_cdist() -> None:
    _seeded()
    keys = torch.randn(512, _D).half()  # decoder states saved as fp16 to keep the datastore small
    values = torch.randint(4, _VOCAB, (512,))
    query = torch.randn(2, _D).half()
    knn_i = torch.randint(0, 512, (2, 8))  # the 8 neighbours the approximate (faiss) index returned per query
    dists = torch.cdist(query[:, None], keys[knn_i]).squeeze(1)  # exact L2 to the retrieved keys for the weights
    torch.zeros(2, _VOCAB, dtype=f16).scatter_add_(1, values[knn_i], (-dists / 10).softmax(-1))


def _procrustes_bilingual_dictionary_svd_bf16() -> None:
    _seeded()
    src_emb = torch.randn(_VOCAB, _D, dtype=bf16)  # embeddings exported from the bf16 checkpoint
    tgt_emb = torch.randn(_VOCAB, _D, dtype=bf16)
    pairs = torch.tensor([[17, 31], [44, 8], [9, 77], [61, 40]])
    x, y = src_emb[pairs[:, 0]], tgt_emb[pairs[:, 1]]
    u, _, vt = torch.linalg.svd(y.T @ x)
    u @ vt


def _prefix_constrained_allowed_mask_in_fp16_anded() -> None:
    _seeded()
    lprobs = torch.randn(2 * _BEAM, _VOCAB, dtype=f16).log_softmax(-1)
    allowed = torch.zeros_like(lprobs)  # terminology constraints: 1 for tokens allowed after this prefix
    allowed[:, [_EOS, 31, 8, 77]] = 1
    not_special = torch.ones_like(lprobs)
    not_special[:, [_BOS, _PAD, _UNK]] = 0
    keep = allowed & not_special
    lprobs.masked_fill(keep == 0, -math.inf)


def _sampled_back_translation_empty_shortlist_nan() -> None:
    _seeded()
    logits = torch.randn(2, _VOCAB)
    in_shortlist = torch.zeros(2, _VOCAB, dtype=torch.bool)
    in_shortlist[0, [_EOS, 12, 40, 55]] = True  # sentence 2's words were all OOV for the lexicon: empty shortlist
    logits = logits.masked_fill(~in_shortlist, -math.inf)
    probs = (logits / 0.9).softmax(-1)
    torch.multinomial(probs, 1)


def _ngram_keys_hashed_into_int32() -> None:
    vocab = 32000  # the real joint BPE vocabulary size
    hyp = [17, 4410, 931, 28731, 5, 190]
    keys = [((hyp[i] * vocab + hyp[i + 1]) * vocab + hyp[i + 2]) * vocab + hyp[i + 3] for i in range(len(hyp) - 3)]
    torch.tensor(keys, dtype=torch.int32).unique(return_counts=True)


CASES: dict[str, LiveCase] = {
    # --- token ids, padding masks and targets
    # a fairseq-binarized corpus read as uint16 with np.frombuffer, padded and looked up in the shared embedding
    "fairseq-bin-uint16-src-ids-shared-embedding": case(_fairseq_bin_uint16_src_ids_into_shared_embedding,
                                                        "index_tensor_dtype", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # the old fairseq .byte() padding mask given to a bf16 nn.Transformer as src/memory key padding mask
    "byte-src-padding-mask-nn-transformer": case(_byte_padding_mask_into_bf16_nn_transformer, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # beam search: the still-open hypotheses as 1 - (cand_tokens == eos) on the bool finished mask
    "beam-alive-one-minus-bool-finished": case(_beam_alive_mask_one_minus_finished, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # no_repeat_ngram blocking: banned tokens marked in a uint8 table, masked_fill_ of the bf16 log-probs
    "ngram-block-uint8-banned-table-masked-fill": case(_ngram_block_uint8_banned_tokens, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # label-smoothed cross-entropy with ignore_index on int32 targets from a compact .npz corpus
    "label-smoothed-ce-int32-npz-targets": case(_label_smoothed_ce_int32_targets_from_npz, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # learned positions by make_positions written with a float mask: cumsum gives float positions
    "make-positions-cumsum-float-mask-embedding": case(_learned_positions_cumsum_of_float_mask,
                                                       "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # back-translation word-dropout noise drawn with rand_like of the int64 source tokens
    "word-dropout-rand-like-int64-src-tokens": case(_word_dropout_noise_rand_like_src_tokens, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # BLEU modified precisions computed in place with div_ on int64 n-gram match counts
    "bleu-precisions-div-inplace-int64-matches": case(_bleu_modified_precision_div_inplace_int64_counts,
                                                      "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # pointer-generator copy distribution: bf16 cross-attention bmm'd with F.one_hot's int64 source map
    "copy-attention-bmm-int64-one-hot-src-map": case(_copy_attention_bmm_one_hot_src_map, "integer_operand",
                                                     "bf16", "int64",
        grade="correct", grade_at_freeze="correct"),
    # multilingual language-pair sampling at temperature 1 skips the float cast: multinomial of int64 counts
    "multilingual-pair-sampling-multinomial-int64": case(_multilingual_temperature_sampling_int64_counts,
                                                         "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # lexical shortlist ids kept int32, written into the int64 hypothesis buffer at the active rows
    "lexical-shortlist-int32-ids-into-int64-hyps": case(_lexical_shortlist_int32_ids_into_int64_hypotheses,
                                                        "indexed_write_dtype", "int64", "int32",
        grade="correct", grade_at_freeze="correct"),
    # --- bf16 autocast, tied embeddings, scores and losses
    # beam search encodes under no_grad + bf16 autocast with the eval() nn.Transformer's padding mask
    "beam-encoder-eval-autocast-padding-fastpath": case(_beam_search_encoder_eval_autocast_with_padding,
                                                        "transformer_fastpath", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # tied generator: an fp32 output bias Parameter added after the bf16 cast, F.linear with the bf16 weight
    "tied-generator-output-bias-added-after-cast": case(_output_bias_registered_after_bf16_cast, "matmul_dtype",
                                                        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # project_out_dim ran under autocast (bf16), the tied logits h @ shared.weight.T computed after the block
    "tied-logits-after-autocast-project-out-dim": case(_tied_logits_outside_autocast_after_project_out,
                                                       "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # finished hypotheses' bf16 scores written into the fp32 finalized_scores table by advanced indexing
    "finalized-scores-index-put-bf16-eos-scores": case(_finalized_hypothesis_scores_index_put_bf16,
                                                       "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # cross-attention padding filled with torch.finfo(torch.float32).min on bf16 scores
    "cross-attn-pad-fill-float32-min-bf16": case(_cross_attention_pad_mask_filled_with_float32_min_in_bf16,
                                                 "half_overflow", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # rare-word fp32 class weights in label-smoothed cross_entropy on bf16 logits made under autocast
    "rare-word-fp32-weights-label-smoothed-ce": case(_vocabulary_frequency_weights_in_label_smoothed_ce, "op_dtype",
                                                     "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 shared embedding's gradient assigned to its fp32 master copy
    "fp32-master-shared-embedding-bf16-grad": case(_fp32_master_shared_embedding_given_bf16_grad, "loss_dtype",
                                                   "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an NMT model made .half() for --fp16 training, then GradScaler.unscale_ before gradient clipping
    "fp16-nmt-params-grad-scaler-unscale": case(_fp16_nmt_params_with_grad_scaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # alignment extraction: bf16 MultiheadAttention with need_weights and an fp32 additive key padding mask
    "alignment-mha-need-weights-fp32-key-padding": case(_alignment_extraction_mha_weights_with_fp32_pad_mask,
                                                        "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Bahdanau decoder: bf16 GRUCell fed the embedding concatenated with the fp32 attention context
    "bahdanau-grucell-bf16-fp32-attention-context": case(_bahdanau_grucell_bf16_fed_fp32_context, "rnn_dtype",
                                                         "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Luong general attention: bf16 W_a h bmm'd with encoder states cached in fp32
    "luong-general-bmm-fp32-cached-encoder-states": case(_luong_general_attention_bmm_fp32_encoder_states,
                                                         "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pre-norm encoder cast to bf16 fed the fp32 shared embedding kept for the tied output layer
    "norm-first-bf16-encoder-fp32-shared-embedding": case(_norm_first_bf16_encoder_fed_fp32_shared_embedding,
                                                          "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- decoding utilities, BLEU on numpy, datastores and sampling
    # greedy hypotheses kept in a buffer made in the scores' dtype (bf16), turned into numpy for BLEU
    "greedy-hyps-bf16-buffer-numpy-bleu": case(_greedy_buffer_in_model_dtype_to_numpy_for_bleu, "numpy_dtype",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MBR decoding: numpy pairwise-BLEU utility @ np.asarray of bf16 candidate probabilities
    "mbr-numpy-utility-bf16-candidate-probs": case(_mbr_expected_bleu_numpy_utility_bf16_probabilities,
                                                   "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # kNN-MT: exact distances from the query to the retrieved neighbours' fp16 datastore keys with torch.cdist
    "knn-mt-fp16-datastore-cdist": case(_knn_mt_fp16_datastore_cdist, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bilingual lexicon Procrustes alignment by SVD of bf16 checkpoint embeddings
    "procrustes-lexicon-svd-bf16-embeddings": case(_procrustes_bilingual_dictionary_svd_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # terminology-constrained decoding: allowed and not-special masks made with zeros_like(fp16 lprobs), combined with &
    "constrained-decoding-fp16-masks-and": case(_prefix_constrained_allowed_mask_in_fp16_anded, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # sampled back-translation over a lexical shortlist that is empty for one sentence: all -inf, NaN into multinomial
    "sampled-bt-empty-shortlist-nan-multinomial": case(_sampled_back_translation_empty_shortlist_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # BLEU n-gram keys hashed with the 32k vocabulary as base into an int32 tensor
    "ngram-keys-32k-base-int32-overflow": case(_ngram_keys_hashed_into_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
}
