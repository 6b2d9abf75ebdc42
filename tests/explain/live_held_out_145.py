"""Held-out live set 145: handwritten and printed math formula recognition written by hand in low precision (LaTeX
token ids as int64, tree-structured decoders with int64 parent pointers, bool coverage and pixel masks, bf16/fp16
DenseNet and ViT encoders, WAP-style coverage attention, counting modules, online ink encoders, beam search
bookkeeping with integer tensors). Defects planted by a helper who never read the rules, written before castwise ran
and graded once with the rules frozen at b19dbc97."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b19dbc97"

bf16, f16 = torch.bfloat16, torch.float16
_VOCAB = 113  # CROHME: 111 symbols + <sos> + <eos>
_SOS, _EOS = 1, 2
_RELATIONS = 6  # right, above, below, sup, sub, inside


def _seeded() -> None:
    torch.manual_seed(0)


def _formula_image(height: int = 32, width: int = 96) -> torch.Tensor:
    """A white uint8 page crop with a few black strokes, as cv2.imread(..., IMREAD_GRAYSCALE) gives it."""
    image = torch.full((height, width), 255, dtype=torch.uint8)
    image[14:17, 8:40] = 0  # fraction bar
    image[4:12, 20:23] = 0  # numerator stroke
    image[20:29, 18:26] = 0  # denominator stroke
    image[10:20, 60:63] = 0  # a digit to the right
    return image


def _latex_ids_packed_uint8() -> None:
    # im2latex-100k vocabulary of 543 tokens; ids of "\frac { a } { b }" with <sos>/<eos>
    ids = [1, 212, 7, 389, 45, 530, 8, 2]
    torch.tensor(ids, dtype=torch.uint8)  # packed "to halve the LMDB size"


def _binarised_formula_bool_stem() -> None:
    _seeded()
    image = _formula_image()
    ink = (image < 128)[None, None]  # Otsu-style binarisation kept as the model input
    stem = nn.Conv2d(1, 48, 7, stride=2, padding=3)  # DenseWAP stem
    stem(ink)


def _coverage_fp16_into_fp32_coverage_conv() -> None:
    _seeded()
    alphas = torch.softmax(torch.randn(3, 1, 8 * 24, dtype=f16), -1).reshape(3, 1, 8, 24)  # fp16 attention maps
    coverage = alphas.sum(0, keepdim=True)  # sum of the past attention maps, kept in the decoder's fp16
    coverage_conv = nn.Conv2d(1, 32, 11, padding=5)  # WAP's Q, built later and never cast
    coverage_conv(coverage)


def _covered_mask_bf16_or() -> None:
    _seeded()
    alpha = torch.softmax(torch.randn(1, 8 * 24, dtype=bf16), -1).reshape(1, 8, 24)
    covered = torch.zeros_like(alpha)  # the "already attended" mask, made like alpha: bf16
    covered |= alpha > 1.0 / (8 * 24)


def _context_einsum_bf16_alpha_fp32_annotations() -> None:
    _seeded()
    annotations = torch.randn(2, 8 * 24, 64)  # DenseNet features, encoder left in fp32
    alpha = torch.softmax(torch.randn(2, 8 * 24, dtype=bf16), -1)  # from the bf16 decoder's attention
    torch.einsum("bn,bnd->bd", alpha, annotations)


def _tree_parent_attention_bmm() -> None:
    _seeded()
    batch, steps, dim = 2, 5, 32
    node_memory = torch.zeros(batch, steps, dim)  # SAN-style stack of decoded node states, torch.zeros: fp32
    node_memory[:, :3] = torch.randn(batch, 3, dim, dtype=bf16)
    query = torch.randn(batch, dim, dtype=bf16)  # the bf16 decoder's current child query
    torch.bmm(node_memory, query[:, :, None])


def _encoder_mha_float_key_padding_mask() -> None:
    _seeded()
    features = torch.randn(2, 12, 32, dtype=bf16)  # flattened bf16 DenseNet features
    padded = torch.zeros(2, 12, dtype=torch.bool)
    padded[1, 8:] = True  # the narrower formula in the batch
    key_padding = torch.zeros(2, 12).masked_fill(padded, float("-inf"))  # additive, fp32
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    attention(features, features, features, key_padding_mask=key_padding)


def _gru_decoder_fp32_initial_state() -> None:
    _seeded()
    annotations = torch.randn(2, 8 * 24, 64, dtype=bf16)
    init_proj = nn.Linear(64, 32)  # a separate init module the .to(bf16) call missed
    h0 = torch.tanh(init_proj(annotations.float().mean(1)))[None]
    decoder = nn.GRU(16, 32, batch_first=True).to(bf16)
    decoder(torch.randn(2, 1, 16, dtype=bf16), h0)


def _transformer_decoder_bf16_fp32_memory() -> None:
    _seeded()
    decoder = nn.TransformerDecoderLayer(32, 4, 64, dropout=0.0, batch_first=True).to(bf16)
    tokens = torch.randn(2, 6, 32, dtype=bf16)
    memory = torch.randn(2, 12, 32, dtype=bf16).float()  # ViT encoder output upcast "for stability"
    decoder(tokens, memory)


def _sine_pe2d_numpy_f64() -> None:
    _seeded()
    height, width, dim = 4, 12, 16
    ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    freqs = 1.0 / 10000 ** (np.arange(dim // 4) / (dim // 4))
    pe = np.concatenate([np.sin(ys[..., None] * freqs), np.cos(ys[..., None] * freqs),
                         np.sin(xs[..., None] * freqs), np.cos(xs[..., None] * freqs)], -1)  # float64
    features = torch.randn(1, height, width, dim)
    features = features + torch.from_numpy(pe)
    nn.Linear(dim, 32)(features.flatten(1, 2))


def _counting_context_fp32_bf16_layernorm() -> None:
    _seeded()
    embed = nn.Embedding(_VOCAB, 32).to(bf16)
    counting = nn.Linear(_VOCAB, 32)  # CAN's counting-context projection, left fp32
    counts = torch.rand(2, _VOCAB) * 3
    hidden = embed(torch.tensor([[_SOS, 40, 17], [_SOS, 52, 9]])) + counting(counts)[:, None]
    nn.LayerNorm(32).to(bf16)(hidden)


def _illegal_brace_mask_fp16_masked_fill() -> None:
    _seeded()
    close_brace = 8
    logits = torch.randn(4, _VOCAB, dtype=f16)  # fp16 beam logits
    brace_depth = torch.tensor([0, 1, 0, 2])
    illegal = torch.zeros(4, _VOCAB, dtype=torch.bool)
    illegal[:, close_brace] = brace_depth == 0  # no "}" without an open "{"
    logits.masked_fill(illegal, -1e9)


def _attention_map_bf16_numpy() -> None:
    _seeded()
    alpha = torch.softmax(torch.randn(1, 8 * 24, dtype=bf16), -1)
    heat = alpha.reshape(8, 24).detach().numpy()  # overlaid on the formula with cv2.applyColorMap
    heat.max()


def _ink_affine_normalise_pinv_fp16() -> None:
    _seeded()
    points = torch.randn(40, 2, dtype=f16)  # online ink cached in fp16
    design = torch.cat([points, torch.ones(40, 1, dtype=f16)], 1)
    target = torch.randn(40, 2, dtype=f16)
    torch.linalg.pinv(design) @ target  # least-squares slant/scale normalisation


def _tree_node_memory_index_copy() -> None:
    _seeded()
    memory = torch.zeros(2, 6, 32)  # node memory allocated once, fp32
    hidden = torch.randn(2, 1, 32, dtype=bf16)  # bf16 decoder state of the node just emitted
    memory.index_copy_(1, torch.tensor([2]), hidden)


def _counting_map_gradient_hook_fp32_weights() -> None:
    _seeded()
    counting_map = torch.randn(1, _VOCAB, 4, 12, dtype=bf16, requires_grad=True)
    symbol_weight = torch.rand(_VOCAB)[None, :, None, None]  # rare-symbol reweighting, fp32
    counting_map.register_hook(lambda grad: grad * symbol_weight)
    counting_map.sum((2, 3)).pow(2).mean().backward()


def _gabor_f64_kernels_conv() -> None:
    _seeded()
    size, thetas = 7, np.linspace(0, np.pi, 4, endpoint=False)
    ys, xs = np.mgrid[-3:4, -3:4]
    kernels = np.stack([np.exp(-(xs**2 + ys**2) / 8) * np.cos(2 * np.pi * (xs * np.cos(t) + ys * np.sin(t)) / 4)
                        for t in thetas])[:, None]  # float64 directional stroke filters
    image = _formula_image().float()[None, None] / 255
    F.conv2d(image, torch.from_numpy(kernels), padding=size // 2)


def _kv_cache_fp32_sdpa() -> None:
    _seeded()
    heads, dim, max_len = 4, 8, 16
    k_cache = torch.zeros(1, heads, max_len, dim)  # incremental decoding cache, torch.zeros: fp32
    v_cache = torch.zeros(1, heads, max_len, dim)
    step = 3
    k_cache[:, :, :step] = torch.randn(1, heads, step, dim, dtype=bf16)
    v_cache[:, :, :step] = torch.randn(1, heads, step, dim, dtype=bf16)
    q = torch.randn(1, heads, 1, dim, dtype=bf16)
    F.scaled_dot_product_attention(q, k_cache[:, :, :step], v_cache[:, :, :step])


def _fp16_tree_decoder_clip_nonfinite() -> None:
    _seeded()
    relation_head = nn.Linear(64, _RELATIONS).half()
    hidden = torch.full((8, 64), 1000.0, dtype=f16)  # un-normalised node states
    loss = relation_head(hidden).pow(2).sum()  # overflows fp16
    loss.backward()
    nn.utils.clip_grad_norm_(relation_head.parameters(), 1.0, error_if_nonfinite=True)


def _tree_parent_pointers_int32_take_along_dim() -> None:
    _seeded()
    hidden = torch.randn(2, 5, 32)
    parents = torch.from_numpy(np.array([[0, 0, 1, 1, 3], [0, 0, 0, 2, 2]], dtype=np.int32))  # from the tree .npz
    torch.take_along_dim(hidden, parents[..., None], dim=1)


def _beam_origin_true_division_index_select() -> None:
    _seeded()
    beam = 4
    hyps = torch.full((beam, 3), _SOS, dtype=torch.long)
    scores = torch.zeros(beam)[:, None] + torch.log_softmax(torch.randn(beam, _VOCAB), -1)
    top, flat = scores.view(-1).topk(beam)
    origin = flat / _VOCAB  # meant //
    token = flat % _VOCAB
    torch.cat([hyps.index_select(0, origin), token[:, None]], 1)


def _sos_prepended_with_float_ones() -> None:
    _seeded()
    targets = torch.tensor([[40, 17, 52, _EOS], [9, 31, _EOS, 0]])
    decoder_in = torch.cat([torch.ones(2, 1) * _SOS, targets[:, :-1]], 1)  # teacher forcing shift
    nn.Embedding(_VOCAB, 32)(decoder_in)


def _relation_labels_float64_cross_entropy() -> None:
    _seeded()
    logits = torch.randn(5, _RELATIONS)
    labels = torch.from_numpy(np.array([0.0, 3.0, 4.0, 0.0, 5.0]))  # read from the LG files through np.array
    F.cross_entropy(logits, labels)


def _inkml_points_int32_gru() -> None:
    _seeded()
    points = np.array([[120, 340, 0], [124, 338, 0], [131, 335, 1], [200, 330, 0]], dtype=np.int32)  # x, y, pen-up
    encoder = nn.GRU(3, 32, batch_first=True, bidirectional=True)  # TAP-style online encoder
    encoder(torch.from_numpy(points)[None])


def _patch_mask_int32_sdpa() -> None:
    _seeded()
    widths = np.array([12, 8], dtype=np.int32)  # patch columns per formula after resizing
    valid = torch.from_numpy((np.arange(12)[None] < widths[:, None]).astype(np.int32))
    q = torch.randn(2, 4, 12, 8)
    F.scaled_dot_product_attention(q, q, q, attn_mask=valid[:, None, None, :])


def _uncovered_ink_bool_subtract() -> None:
    _seeded()
    ink = F.max_pool2d((_formula_image() < 128).float()[None], 4)[0] > 0
    coverage = torch.rand(8, 24)
    uncovered = ink - (coverage > 0.5)  # ink not yet attended: for the coverage loss
    uncovered.sum()


def _first_eos_argmax_bool() -> None:
    hyps = torch.tensor([[_SOS, 40, 17, _EOS, 0], [_SOS, 9, _EOS, 0, 0]])
    ends = (hyps == _EOS).argmax(-1)  # first <eos> per hypothesis
    ends + 1


def _symbol_presence_bool_bce() -> None:
    _seeded()
    targets = torch.tensor([[40, 17, 40, _EOS], [9, 31, _EOS, 0]])
    counts = torch.zeros(2, _VOCAB).scatter_add_(1, targets, torch.ones(2, 4))
    presence_logits = torch.randn(2, _VOCAB)
    F.binary_cross_entropy(torch.sigmoid(presence_logits), counts > 0)  # CAN-style auxiliary presence loss


def _coverage_zeros_like_int64_mask() -> None:
    _seeded()
    image_mask = torch.ones(1, 8, 24, dtype=torch.long)  # the collate's padding mask, .long()
    coverage = torch.zeros_like(image_mask)
    for _ in range(3):
        coverage += torch.softmax(torch.randn(1, 8 * 24), -1).reshape(1, 8, 24)


def _scheduled_sampling_uniform_on_ids() -> None:
    _seeded()
    targets = torch.tensor([[40, 17, 52, _EOS], [9, 31, _EOS, 0]])
    use_model = torch.empty_like(targets).uniform_() < 0.25  # scheduled-sampling coin flips
    use_model.sum()


CASES: dict[str, LiveCase] = {
    # im2latex token ids (vocabulary of 543) packed into uint8 with torch.tensor
    "im2latex-ids-packed-uint8": case(_latex_ids_packed_uint8, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # the binarised bool formula image fed to the fp32 DenseWAP stem conv
    "binarised-formula-bool-densewap-stem": case(_binarised_formula_bool_stem, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # WAP coverage (sum of fp16 attention maps) into the fp32 coverage conv with bias
    "wap-coverage-fp16-fp32-coverage-conv": case(_coverage_fp16_into_fp32_coverage_conv, "conv_weight_dtype", "f16",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # an "already attended" mask made with zeros_like of bf16 attention, updated with |=
    "attended-mask-bf16-in-place-or": case(_covered_mask_bf16_or, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # WAP context vector: bf16 attention einsum'd with fp32 DenseNet annotations
    "wap-context-einsum-bf16-alpha-fp32-annotations": case(_context_einsum_bf16_alpha_fp32_annotations,
                                                           "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # tree decoder parent attention: fp32 node-memory stack bmm'ed with the bf16 child query
    "tree-parent-attention-bmm-fp32-node-memory": case(_tree_parent_attention_bmm, "batched_matmul_dtype", "f32",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 encoder self-attention given an additive fp32 key_padding_mask for the narrower formula
    "formula-encoder-mha-fp32-additive-key-padding": case(_encoder_mha_float_key_padding_mask, "attn_mask_dtype",
                                                          "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 GRU decoder started from an initial state made by an fp32 init projection
    "gru-decoder-fp32-initial-state": case(_gru_decoder_fp32_initial_state, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 TransformerDecoderLayer given ViT memory upcast to fp32: the cross-attention projection raises
    "bf16-latex-decoder-fp32-vit-memory": case(_transformer_decoder_bf16_fp32_memory, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # 2-D sine positional encoding built in numpy (float64) added to features, into an fp32 Linear
    "sine-pe2d-numpy-f64-into-linear": case(_sine_pe2d_numpy_f64, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # CAN counting context from an fp32 projection added to bf16 embeddings, into the bf16 LayerNorm
    "can-counting-context-fp32-bf16-layernorm": case(_counting_context_fp32_bf16_layernorm, "norm_param_dtype",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # grammar-constrained beam: an illegal closing brace masked with -1e9 in fp16 logits
    "illegal-close-brace-fp16-masked-fill-1e9": case(_illegal_brace_mask_fp16_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 attention map turned to numpy for the heat-map overlay
    "attention-heatmap-bf16-numpy": case(_attention_map_bf16_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # online ink slant/scale normalisation fitted with linalg.pinv on fp16 points
    "online-ink-affine-normalise-pinv-fp16": case(_ink_affine_normalise_pinv_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # tree decoder: the bf16 node state index_copy_'ed into an fp32 node-memory buffer
    "tree-node-memory-index-copy-bf16": case(_tree_node_memory_index_copy, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # gradient hook on the bf16 counting map multiplying by fp32 rare-symbol weights
    "counting-map-grad-hook-fp32-weights": case(_counting_map_gradient_hook_fp32_weights, "loss_dtype", "bf16",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # directional Gabor stroke filters built in numpy (float64) as conv2d weights on an fp32 formula image
    "gabor-stroke-filters-f64-conv": case(_gabor_f64_kernels_conv, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # incremental decoding: bf16 query attending with SDPA to a KV cache allocated fp32
    "latex-decoder-kv-cache-fp32-sdpa": case(_kv_cache_fp32_sdpa, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 relation head overflows, clip_grad_norm_ with error_if_nonfinite raises
    "fp16-relation-head-clip-nonfinite": case(_fp16_tree_decoder_clip_nonfinite, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # tree decoder parent pointers read as int32 from the .npz, used with take_along_dim
    "tree-parent-pointers-int32-take-along-dim": case(_tree_parent_pointers_int32_take_along_dim,
                                                      "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # beam search: the origin beam computed with true division, used with index_select
    "beam-origin-true-division-index-select": case(_beam_origin_true_division_index_select, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # teacher-forcing shift prepending <sos> with torch.ones * sos: float ids into the embedding
    "sos-prepended-float-ones-embedding": case(_sos_prepended_with_float_ones, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # tree relation labels parsed through np.array as float64, as cross_entropy targets
    "relation-labels-f64-cross-entropy": case(_relation_labels_float64_cross_entropy, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # InkML points as an int32 array into the TAP-style GRU encoder
    "inkml-points-int32-gru-encoder": case(_inkml_points_int32_gru, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # per-formula valid-patch mask built in numpy as int32, given as SDPA's attn_mask
    "valid-patch-mask-int32-sdpa": case(_patch_mask_int32_sdpa, "mask_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # coverage loss: uncovered ink found by subtracting two bool masks
    "uncovered-ink-bool-subtract": case(_uncovered_ink_bool_subtract, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # first <eos> per hypothesis found with argmax of a bool tensor
    "first-eos-argmax-bool": case(_first_eos_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # CAN-style symbol presence loss with the bool counts > 0 as BCE target
    "symbol-presence-bool-bce-target": case(_symbol_presence_bool_bce, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # coverage accumulator made with zeros_like of the int64 image mask, += float attention
    "coverage-zeros-like-int64-mask-iadd": case(_coverage_zeros_like_int64_mask, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # scheduled-sampling coin flips with empty_like(targets).uniform_() on int64 ids
    "scheduled-sampling-uniform-on-int64-ids": case(_scheduled_sampling_uniform_on_ids, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
}
