"""Held-out live set 113: image captioning and visual question answering written by hand in low precision (caption
token ids as int64 with bool padding masks, bottom-up region features from detector dumps in float64 .npy, answer
vocabularies with soft-score targets, beam search with int64 beams and length penalties, CIDEr/BLEU scoring with
Python numbers, cross-attention between fp32 visual features and a bf16 decoder). Defects planted by a helper who never
read the rules, written before castwise ran and graded once with the rules frozen at 41ea083."""

from __future__ import annotations

import io

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "41ea083"

bf16, f16 = torch.bfloat16, torch.float16
_REGIONS = 36  # bottom-up attention: 36 boxes per image
_FEAT = 2048  # Faster R-CNN (ResNet-101) pooled region feature
_D = 256  # model width
_VOCAB = 1000  # caption vocabulary (pad 0, bos 1, eos 2)
_PAD, _BOS, _EOS = 0, 1, 2
_ANSWERS = 3129  # VQA v2 answer vocabulary


def _seeded() -> None:
    torch.manual_seed(0)


def _detector_dump(images: int = 2) -> dict[str, np.ndarray]:
    """What a bottom-up-attention extraction script wrote per batch: np.savez of float64 arrays (numpy's default)."""
    rng = np.random.default_rng(0)
    x1y1 = rng.uniform(0, 300, size=(images, _REGIONS, 2))
    wh = rng.uniform(20, 300, size=(images, _REGIONS, 2))
    buffer = io.BytesIO()
    np.savez(buffer,
             features=rng.random((images, _REGIONS, _FEAT)),
             boxes=np.concatenate([x1y1, x1y1 + wh], -1),
             objects_id=rng.integers(0, 1600, size=(images, _REGIONS)).astype(np.float64),
             num_boxes=np.array([36, 28]),
             image_w=np.array([640.0, 500.0]), image_h=np.array([480.0, 375.0]))
    buffer.seek(0)
    return dict(np.load(buffer))


def _captions(batch: int = 2, steps: int = 12) -> torch.Tensor:
    """int64 caption ids: bos, words, eos, then pad."""
    ids = torch.randint(3, _VOCAB, (batch, steps), generator=torch.Generator().manual_seed(0))
    ids[:, 0] = _BOS
    ids[0, 9], ids[0, 10:] = _EOS, _PAD
    ids[1, 6], ids[1, 7:] = _EOS, _PAD
    return ids


def _bottom_up_f64_regions_into_fp32_projection() -> None:
    _seeded()
    dump = _detector_dump()
    regions = torch.from_numpy(dump["features"])
    feat_proj = nn.Linear(_FEAT, _D)
    feat_proj(regions)


def _fp16_npy_dump_into_bf16_projection() -> None:
    _seeded()
    dump = _detector_dump()
    buffer = io.BytesIO()
    np.save(buffer, dump["features"].astype(np.float16))  # re-saved as float16 to halve the feature cache on disk
    buffer.seek(0)
    regions = torch.from_numpy(np.load(buffer))
    feat_proj = nn.Linear(_FEAT, _D).to(bf16)
    feat_proj(regions)


def _box_geometry_f64_into_bf16_location_embedding() -> None:
    _seeded()
    dump = _detector_dump()
    boxes = dump["boxes"]
    size = np.stack([dump["image_w"], dump["image_h"]] * 2, -1)[:, None]
    normalised = boxes / size
    area = (normalised[..., 2] - normalised[..., 0]) * (normalised[..., 3] - normalised[..., 1])
    geometry = np.concatenate([normalised, area[..., None]], -1)
    loc_embed = nn.Linear(5, _D).to(bf16)
    loc_embed(torch.from_numpy(geometry))


def _fp32_feature_projection_plus_bf16_location_into_layernorm() -> None:
    _seeded()
    dump = _detector_dump()
    feat_proj, loc_embed, norm = nn.Linear(_FEAT, _D), nn.Linear(4, _D), nn.LayerNorm(_D)
    loc_embed.to(bf16)
    norm.to(bf16)  # the model was cast to bf16 except the input projection, kept fp32 "for accuracy"
    regions = feat_proj(torch.from_numpy(dump["features"]).float())
    boxes = torch.from_numpy(dump["boxes"] / 640.0).to(bf16)
    norm(regions + loc_embed(boxes))


def _object_tags_from_f64_dump_into_embedding() -> None:
    _seeded()
    dump = _detector_dump()
    tag_ids = torch.from_numpy(dump["objects_id"])  # Visual Genome class ids, stored in the float64 dump
    tag_embed = nn.Embedding(1600, _D)
    tag_embed(tag_ids)


def _region_mask_int64_as_key_padding_mask() -> None:
    _seeded()
    dump = _detector_dump()
    num_boxes = torch.from_numpy(dump["num_boxes"])
    region_mask = torch.zeros(2, _REGIONS, dtype=torch.long)  # 1 = real box, like a tokenizer's attention_mask
    for i, n in enumerate(num_boxes.tolist()):
        region_mask[i, :n] = 1
    regions = torch.randn(2, _REGIONS, _D)
    encoder_attn = nn.MultiheadAttention(_D, 8, batch_first=True)
    encoder_attn(regions, regions, regions, key_padding_mask=1 - region_mask)


def _bf16_transformer_decoder_fp32_visual_memory() -> None:
    _seeded()
    visual_encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(_D, 8, 512, dropout=0.0, batch_first=True), 1)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(_D, 8, 512, dropout=0.0, batch_first=True), 2)
    word_embed = nn.Embedding(_VOCAB, _D)
    decoder.to(bf16)
    word_embed.to(bf16)  # only the language side cast; the frozen visual encoder left as loaded
    memory = visual_encoder(torch.randn(2, _REGIONS, _D))
    captions = _captions()
    causal = nn.Transformer.generate_square_subsequent_mask(captions.shape[1]).to(bf16)
    decoder(word_embed(captions), memory, tgt_mask=causal)


def _beam_cached_fp32_visual_keys_matmul() -> None:
    _seeded()
    heads, beams = 8, 3
    q_proj, k_proj = nn.Linear(_D, _D), nn.Linear(_D, _D)
    visual = torch.randn(1, _REGIONS, _D)
    keys = k_proj(visual).view(1, _REGIONS, heads, -1).transpose(1, 2)  # cached once per image before the cast
    keys = keys.expand(beams, -1, -1, -1).detach()
    q_proj.to(bf16)
    hidden = torch.randn(beams, 1, _D, dtype=bf16)  # the bf16 decoder's state for the current token
    queries = q_proj(hidden).view(beams, 1, heads, -1).transpose(1, 2)
    scores = queries @ keys.transpose(-1, -2) / (_D // heads) ** 0.5
    scores.softmax(-1)


def _relation_transformer_fp32_geometry_bias_as_attn_mask() -> None:
    _seeded()
    heads = 8
    boxes = torch.rand(2, _REGIONS, 4).sort(-1).values  # x1 <= y1 <= x2 <= y2 is enough for widths > 0
    cx, cy = (boxes[..., 0] + boxes[..., 2]) / 2, (boxes[..., 1] + boxes[..., 3]) / 2
    w, h = boxes[..., 2] - boxes[..., 0] + 1e-3, boxes[..., 3] - boxes[..., 1] + 1e-3
    delta = torch.stack([
        torch.log((cx[:, :, None] - cx[:, None]).abs().clamp(min=1e-3) / w[:, :, None]),
        torch.log((cy[:, :, None] - cy[:, None]).abs().clamp(min=1e-3) / h[:, :, None]),
        torch.log(w[:, :, None] / w[:, None]),
        torch.log(h[:, :, None] / h[:, None]),
    ], -1)
    geometry_weights = nn.Linear(4, heads)  # W_G of the Object Relation Transformer, fp32
    bias = torch.log(F.relu(geometry_weights(delta)).clamp(min=1e-6))  # (B, R, R, heads)
    bias = bias.permute(0, 3, 1, 2).reshape(2 * heads, _REGIONS, _REGIONS)
    attention = nn.MultiheadAttention(_D, heads, batch_first=True).to(bf16)
    regions = torch.randn(2, _REGIONS, _D, dtype=bf16)
    attention(regions, regions, regions, attn_mask=bias)


def _show_attend_tell_context_bmm_fp32_regions() -> None:
    _seeded()
    att_feat, att_hidden, att_out = nn.Linear(_D, 128), nn.Linear(512, 128), nn.Linear(128, 1)
    for layer in (att_feat, att_hidden, att_out):
        layer.to(bf16)
    regions = torch.randn(2, _REGIONS, _D)  # fp32 CNN encoder output
    hidden = torch.randn(2, 512, dtype=bf16)
    scores = att_out(torch.tanh(att_feat(regions.to(bf16)) + att_hidden(hidden)[:, None])).squeeze(-1)
    alpha = scores.softmax(-1)
    torch.bmm(alpha.unsqueeze(1), regions)


def _updown_attention_lstm_fp32_mean_feature() -> None:
    _seeded()
    word_embed = nn.Embedding(_VOCAB, 300).to(bf16)
    attention_lstm = nn.LSTMCell(512 + _FEAT + 300, 512).to(bf16)
    regions = torch.from_numpy(_detector_dump()["features"]).float()  # cast once to fp32 in the dataset
    h_lang = torch.zeros(2, 512, dtype=bf16)
    state = (torch.zeros(2, 512, dtype=bf16), torch.zeros(2, 512, dtype=bf16))
    words = word_embed(_captions()[:, 0])
    attention_lstm(torch.cat([h_lang, regions.mean(1), words], -1), state)


def _adaptive_attention_sentinel_lerp() -> None:
    _seeded()
    regions = torch.randn(2, _REGIONS, 512)
    alpha = torch.randn(2, _REGIONS, dtype=bf16).float().softmax(-1)  # attention in fp32 for a stable softmax
    context = (alpha[:, :, None] * regions).sum(1)
    sentinel = torch.randn(2, 512, dtype=bf16)  # visual sentinel from the bf16 LSTM's gate
    beta = torch.rand(2, 1)
    torch.lerp(context, sentinel, beta)


def _textcaps_copy_probs_scatter_add_into_fp32_vocab() -> None:
    _seeded()
    ocr_tokens = 20
    logits = torch.randn(2, _VOCAB, dtype=bf16)
    p_vocab = logits.float().softmax(-1)  # upcast for the softmax
    copy_attention = torch.randn(2, ocr_tokens, dtype=bf16).softmax(-1)
    p_gen = torch.rand(2, 1, dtype=bf16)
    ocr_vocab_ids = torch.randint(3, _VOCAB, (2, ocr_tokens))
    p_vocab.scatter_add_(1, ocr_vocab_ids, (1 - p_gen) * copy_attention)


def _vqa_soft_scores_f64_into_bce() -> None:
    _seeded()
    counts = np.zeros((2, _ANSWERS))
    counts[0, [12, 40]] = [7, 3]  # ten annotators per question
    counts[1, [5, 6, 900]] = [4, 4, 2]
    soft_scores = torch.from_numpy(np.minimum(counts / 3.0, 1.0))
    logits = torch.randn(2, _ANSWERS)
    F.binary_cross_entropy(torch.sigmoid(logits), soft_scores) * _ANSWERS


def _answer_class_weights_f64_into_cross_entropy() -> None:
    _seeded()
    answer_freq = np.random.default_rng(0).integers(0, 5000, size=_ANSWERS)
    weights = torch.from_numpy(1.0 / np.maximum(answer_freq, 1) ** 0.5)
    logits = torch.randn(4, _ANSWERS)
    top_answer = torch.tensor([3, 17, 3, 250])
    F.cross_entropy(logits, top_answer, weight=weights)


def _yes_no_head_bool_target() -> None:
    _seeded()
    answers = np.array(["yes", "no", "yes", "yes"])
    is_yes = torch.from_numpy(answers == "yes")
    yes_no_logit = nn.Linear(_D, 1)(torch.randn(4, _D)).squeeze(-1)
    F.binary_cross_entropy_with_logits(yes_no_logit, is_yes)


def _answer_type_table_uint8_masked_fill() -> None:
    _seeded()
    allowed = np.zeros((3, _ANSWERS), dtype=np.uint8)  # per question type (yes/no, number, other), saved as uint8
    allowed[0, :2] = 1
    allowed[1, 2:40] = 1
    allowed[2, 40:] = 1
    question_type = torch.tensor([0, 2])
    type_mask = torch.from_numpy(allowed)[question_type]
    logits = torch.randn(2, _ANSWERS)
    logits.masked_fill(1 - type_mask, -1e4).softmax(-1)


def _caption_collate_float_buffer_into_embedding() -> None:
    _seeded()
    captions = [[_BOS, 14, 87, 5, _EOS], [_BOS, 9, 33, 120, 411, 6, _EOS]]
    batch = torch.zeros(len(captions), max(map(len, captions)))
    for i, ids in enumerate(captions):
        batch[i, :len(ids)] = torch.tensor(ids)
    nn.Embedding(_VOCAB, _D)(batch)


def _gpt2_pad_id_into_int16_caption_cache() -> None:
    pad_id = 50256  # GPT-2's eos, used as pad by the captioner's tokenizer
    cached = torch.full((2, 20), pad_id, dtype=torch.int16)  # caption cache kept as int16 "to halve it"
    cached[0, :4] = torch.tensor([464, 3797, 318, 257])


def _caption_loss_weights_one_minus_bool_pad() -> None:
    _seeded()
    captions = _captions()
    pad = captions[:, 1:] == _PAD
    logits = torch.randn(2, captions.shape[1] - 1, _VOCAB)
    nll = F.cross_entropy(logits.transpose(1, 2), captions[:, 1:], reduction="none")
    weights = 1 - pad
    (nll * weights).sum() / weights.sum()


def _caption_lengths_first_eos_argmax_bool() -> None:
    _seeded()
    generated = _captions()
    lengths = (generated == _EOS).argmax(1) + 1
    lengths.float().mean()


def _karpathy_uint32_labels_into_cross_entropy() -> None:
    _seeded()
    labels = np.zeros((2, 16), dtype=np.uint32)  # prepro_labels.py writes the label array as uint32 to the h5 file
    labels[0, :5] = [14, 87, 5, 31, _EOS]
    labels[1, :3] = [9, 33, _EOS]
    targets = torch.from_numpy(labels)
    logits = torch.randn(2, 16, _VOCAB)
    F.cross_entropy(logits.reshape(-1, _VOCAB), targets.reshape(-1), ignore_index=_PAD)


def _diverse_beam_hamming_penalty_index_add() -> None:
    _seeded()
    beams, diversity = 3, 0.5
    logprobs = torch.randn(beams, _VOCAB, dtype=bf16).log_softmax(-1)  # second group of a bf16 decoder's beams
    previous_group_tokens = torch.tensor([14, 87, 14])
    penalty = -diversity * torch.ones(beams, len(previous_group_tokens))
    logprobs.index_add_(1, previous_group_tokens, penalty)


def _beam_scores_zeros_like_token_buffer() -> None:
    _seeded()
    beams, alpha = 3, 0.6
    tokens = torch.full((beams, 8), _PAD, dtype=torch.long)
    tokens[:, 0] = _BOS
    beam_scores = torch.zeros_like(tokens[:, 0])
    lengths = torch.ones(beams, dtype=torch.long)
    logprobs = torch.randn(beams, _VOCAB).log_softmax(-1)
    top_logprobs, top_ids = logprobs.max(-1)
    penalty = ((5 + lengths) / 6) ** alpha  # GNMT length penalty
    beam_scores += top_logprobs / penalty
    tokens[:, 1] = top_ids


def _scst_cider_rewards_f64_dot() -> None:
    _seeded()
    sample_cider = [0.82, 1.14, 0.37, 0.95]  # CIDEr-D of the sampled captions, Python floats from the scorer
    greedy_cider = [0.90, 1.02, 0.51, 0.95]
    rewards = torch.from_numpy(np.array(sample_cider) - np.array(greedy_cider))
    token_logprobs = torch.randn(4, 12, requires_grad=True).log_softmax(-1)
    mask = torch.ones(4, 12)
    sequence_logprobs = (token_logprobs * mask).sum(1)
    loss = -torch.dot(rewards, sequence_logprobs) / len(sample_cider)
    loss.backward()


def _cider_int64_ngram_counts_matmul_fp32_idf() -> None:
    _seeded()
    buckets = 512
    candidates = torch.zeros(2, buckets, dtype=torch.long)
    references = torch.zeros(5, buckets, dtype=torch.long)
    for row, ids in enumerate(([14, 87, 5], [9, 33, 120])):
        for a, b in zip(ids, ids[1:]):
            candidates[row, (a * 31 + b) % buckets] += 1
    references[:, 10:20] = 1
    doc_freq = (references > 0).sum(0).clamp(min=1)
    idf = torch.log(torch.tensor(5.0) / doc_freq)
    candidates @ (references * idf).T


def _attention_maps_bf16_to_numpy_for_overlay() -> None:
    _seeded()
    alphas = torch.randn(12, 7 * 7, dtype=bf16).softmax(-1)  # one 7x7 grid attention map per generated word
    maps = alphas.view(12, 7, 7).detach().numpy()
    np.kron(maps[0], np.ones((32, 32)))


def _grid_features_f64_normalised_pixels_into_conv() -> None:
    _seeded()
    image = np.random.default_rng(0).integers(0, 256, size=(64, 64, 3), dtype=np.uint8)  # what PIL gave
    pixels = (image / 255.0 - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
    stem = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
    stem(torch.from_numpy(pixels).permute(2, 0, 1)[None])


def _scst_fp32_accumulated_grads_assigned_to_bf16_decoder() -> None:
    _seeded()
    decoder = nn.Linear(_D, _VOCAB).to(bf16)
    accumulated = {name: torch.zeros_like(p, dtype=torch.float32) for name, p in decoder.named_parameters()}
    for _ in range(2):  # two sampled captions per image
        decoder.zero_grad()
        decoder(torch.randn(4, _D, dtype=bf16)).log_softmax(-1).mean().backward()
        for name, p in decoder.named_parameters():
            accumulated[name] += p.grad.float()
    for name, p in decoder.named_parameters():
        p.grad = accumulated[name] / 2


def _nearest_neighbour_captions_cdist_bf16() -> None:
    _seeded()
    train_features = torch.randn(200, _D, dtype=bf16)  # pooled grid features of the training images, bf16 model
    query_features = torch.randn(4, _D, dtype=bf16)
    distances = torch.cdist(query_features, train_features, compute_mode="donot_use_mm_for_euclid_dist")  # exact ties
    distances.topk(5, largest=False)


CASES: dict[str, LiveCase] = {
    # --- region features from detector dumps
    # bottom-up-attention region features loaded from the float64 .npz dump into the fp32 feature projection
    "bottom-up-f64-npz-regions-fp32-projection": case(_bottom_up_f64_regions_into_fp32_projection, "matmul_dtype",
                                                      "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # region features re-saved as float16 .npy to halve the cache, fed to the bf16 captioner's feature projection
    "fp16-npy-feature-cache-bf16-projection": case(_fp16_npy_dump_into_bf16_projection, "matmul_dtype", "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # 5-d box geometry (normalised corners and area) computed in numpy float64, into a bf16 location embedding
    "box-geometry-f64-bf16-location-embedding": case(_box_geometry_f64_into_bf16_location_embedding, "matmul_dtype",
                                                     "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # input projection kept fp32 "for accuracy", added to the bf16 location embedding, into the bf16 LayerNorm
    "fp32-projection-plus-bf16-location-layernorm": case(_fp32_feature_projection_plus_bf16_location_into_layernorm,
                                                         "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # OSCAR-style object tags: Visual Genome class ids stored in the float64 dump, looked up in nn.Embedding
    "object-tag-ids-f64-dump-embedding": case(_object_tags_from_f64_dump_into_embedding, "index_tensor_dtype",
                                              "f64",
        grade="correct", grade_at_freeze="correct"),
    # region padding as 1 - an int64 box mask (1 = real box) given to MultiheadAttention as key_padding_mask
    "region-mask-int64-key-padding-mask": case(_region_mask_int64_as_key_padding_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- cross-attention between fp32 visual features and a bf16 decoder
    # a bf16 nn.TransformerDecoder given the memory of the frozen visual encoder left fp32
    "bf16-transformer-decoder-fp32-visual-memory": case(_bf16_transformer_decoder_fp32_visual_memory,
                                                        "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # beam search caches the visual keys once per image before the cast, bf16 queries @ the fp32 cached keys
    "beam-cached-fp32-visual-keys-matmul": case(_beam_cached_fp32_visual_keys_matmul, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Object Relation Transformer: the fp32 geometric bias log(relu(W_G delta)) as a bf16 MultiheadAttention's attn_mask
    "relation-transformer-fp32-geometry-bias-attn-mask": case(
        _relation_transformer_fp32_geometry_bias_as_attn_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Show, Attend and Tell: bf16 attention weights bmm'ed with the fp32 CNN encoder's regions for the context
    "show-attend-tell-context-bmm-fp32-regions": case(_show_attend_tell_context_bmm_fp32_regions,
                                                      "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Up-Down: the bf16 attention LSTMCell given cat(h_lang, mean of the fp32 regions, word), promoted to fp32
    "updown-attention-lstm-fp32-mean-feature": case(_updown_attention_lstm_fp32_mean_feature, "rnn_dtype", "f32",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # adaptive attention: the fp32 visual context lerp'ed toward the bf16 visual sentinel by beta
    "adaptive-attention-sentinel-lerp": case(_adaptive_attention_sentinel_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TextCaps pointer-generator: bf16 copy probabilities scatter_add_'ed into the upcast fp32 vocabulary distribution
    "textcaps-copy-probs-scatter-add-fp32-vocab": case(_textcaps_copy_probs_scatter_add_into_fp32_vocab,
                                                       "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # --- VQA answer vocabularies and soft-score targets
    # VQA soft scores min(count / 3, 1) from numpy (float64) as binary_cross_entropy's target for fp32 sigmoid outputs
    "vqa-soft-scores-f64-bce-target": case(_vqa_soft_scores_f64_into_bce, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # inverse-sqrt answer-frequency class weights from numpy (float64) given to cross_entropy
    "answer-class-weights-f64-cross-entropy": case(_answer_class_weights_f64_into_cross_entropy, "op_dtype", "f32",
                                                   "f64",
        grade="correct", grade_at_freeze="correct"),
    # the yes/no head trained with the bool answers == "yes" from numpy as BCEWithLogits's target
    "yes-no-head-bool-target": case(_yes_no_head_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # answers restricted by question type with 1 - a uint8 allowed-answer table as masked_fill's mask
    "answer-type-table-uint8-masked-fill": case(_answer_type_table_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # --- caption tokens and padding masks
    # the caption collate pads into torch.zeros (float) and the batch goes to the word embedding
    "caption-collate-float-buffer-embedding": case(_caption_collate_float_buffer_into_embedding,
                                                   "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a caption cache kept as int16, padded with GPT-2's pad id 50256 by torch.full
    "gpt2-pad-id-int16-caption-cache": case(_gpt2_pad_id_into_int16_caption_cache, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # token loss weights written as 1 - the bool padding mask
    "caption-loss-weights-one-minus-bool-pad": case(_caption_loss_weights_one_minus_bool_pad, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # generated caption lengths as the first EOS position by argmax of the bool == EOS mask
    "caption-lengths-first-eos-argmax-bool": case(_caption_lengths_first_eos_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Karpathy-split labels read from the h5 prepro_labels.py wrote as uint32, given to cross_entropy
    "karpathy-uint32-labels-cross-entropy": case(_karpathy_uint32_labels_into_cross_entropy, "target_dtype",
                                                 "uint32",
        grade="correct", grade_at_freeze="correct"),
    # --- beam search
    # diverse beam search: the Hamming penalty built with torch.ones (fp32) index_add_'ed into bf16 log-probs
    "diverse-beam-hamming-penalty-index-add": case(_diverse_beam_hamming_penalty_index_add, "indexed_write_dtype",
                                                   "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # beam scores made by zeros_like of the int64 token buffer, += length-penalised log-probs
    "beam-scores-zeros-like-int64-tokens": case(_beam_scores_zeros_like_token_buffer, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a nearest-neighbour caption baseline: bf16 image features ranked against the training set by exact cdist
    "nearest-neighbour-captions-cdist-bf16": case(_nearest_neighbour_captions_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- CIDEr/BLEU scoring and self-critical training
    # SCST: CIDEr-D rewards as Python floats through numpy (float64), the loss as a dot with fp32 sequence log-probs
    "scst-cider-rewards-f64-dot": case(_scst_cider_rewards_f64_dot, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # CIDEr in torch: int64 hashed bigram counts @ the fp32 idf-weighted reference vectors
    "cider-int64-ngram-counts-matmul-fp32-idf": case(_cider_int64_ngram_counts_matmul_fp32_idf, "integer_operand",
                                                     "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SCST gradients accumulated over samples in fp32 buffers, assigned back to the bf16 decoder's .grad
    "scst-fp32-accumulated-grads-bf16-decoder": case(_scst_fp32_accumulated_grads_assigned_to_bf16_decoder,
                                                     "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- visualisation and grid features
    # per-word bf16 attention maps turned into numpy to upsample over the image
    "attention-maps-bf16-numpy-overlay": case(_attention_maps_bf16_to_numpy_for_overlay, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # grid features: pixels normalised in numpy (float64) into the fp32 ResNet stem
    "grid-features-f64-normalised-pixels-conv": case(_grid_features_f64_normalised_pixels_into_conv,
                                                     "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
}
