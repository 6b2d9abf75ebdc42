"""Held-out live set 123: handwriting and scene-text recognition (OCR) written by hand in low precision (grayscale
uint8 line and word images from PIL/OpenCV, CTC targets and lengths, F.ctc_loss with log-probs made under autocast,
greedy and beam-search decoding with integer indices, character vocabularies as int64 lookup tables, bf16/fp16 CRNN
and TrOCR-style encoders and decoders, spatial transformer grids with affine_grid and grid_sample). Defects planted by a
helper who never read the rules, written before castwise ran and graded once with the rules frozen at 8f00974."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8f00974"

bf16, f16 = torch.bfloat16, torch.float16
_CHARSET = "0123456789abcdefghijklmnopqrstuvwxyz"
_BLANK = 0  # CTC blank; character i of _CHARSET is class i + 1
_CLASSES = len(_CHARSET) + 1
_PAD, _BOS, _EOS = 0, 1, 2  # attention decoder specials; character i of _CHARSET is token i + 3
_TOKENS = len(_CHARSET) + 3


def _seeded() -> None:
    torch.manual_seed(0)


def _ctc_ids(word: str) -> list[int]:
    return [_CHARSET.index(c) + 1 for c in word]


def _token_ids(word: str) -> list[int]:
    return [_CHARSET.index(c) + 3 for c in word]


def _line_image(height: int = 32, width: int = 128) -> np.ndarray:
    """A grayscale text-line crop as np.asarray(Image.open(path).convert("L")) gives it: uint8, white paper, dark ink."""
    line = np.full((height, width), 245, dtype=np.uint8)
    for start in range(6, width - 10, 14):  # one dark stroke per "character"
        line[8:24, start:start + 3] = 30
        line[8:11, start:start + 9] = 40
    return line


# --- images in


def _grayscale_lines_into_crnn_stem() -> None:
    _seeded()
    lines = np.stack([_line_image(), _line_image()])  # (B, H, W) uint8 straight from the PIL loader
    batch = torch.from_numpy(lines)[:, None]
    stem = nn.Conv2d(1, 64, 3, padding=1)
    stem(batch)


def _line_normalised_in_place() -> None:
    line = torch.from_numpy(_line_image())
    line.sub_(127.5).div_(127.5)  # to [-1, 1] in place, as the float pipeline did before the loader changed


def _ink_noise_randn_like_uint8_line() -> None:
    _seeded()
    line = torch.from_numpy(_line_image())[None]
    noisy = line + 8.0 * torch.randn_like(line)  # scanner-noise augmentation
    noisy.clamp(0, 255)


def _sliding_window_frames_unfold_uint8() -> None:
    line = torch.from_numpy(_line_image())[None, None]
    frames = F.unfold(line, kernel_size=(32, 8), stride=(1, 4))  # 8-px windows every 4 px for the frame classifier
    frames.transpose(1, 2)


def _slant_sobel_integer_kernel() -> None:
    line = torch.from_numpy(_line_image()).float()[None, None] / 255.0
    sobel_x = torch.tensor([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])[None, None]
    sobel_y = sobel_x.transpose(2, 3)
    gx = F.conv2d(line, sobel_x, padding=1)
    gy = F.conv2d(line, sobel_y, padding=1)
    torch.atan2(gy, gx)  # stroke angles for slant estimation


# --- CRNN and CTC


def _packed_bilstm_fp32_on_bf16_columns() -> None:
    _seeded()
    columns = torch.randn(32, 2, 128, dtype=bf16)  # (T, B, C) column features of the bf16 CNN backbone
    widths = torch.tensor([32, 20])  # valid frames per line after 4x horizontal pooling
    sequence_head = nn.LSTM(128, 64, bidirectional=True)  # only the backbone was cast to bf16
    packed = nn.utils.rnn.pack_padded_sequence(columns, widths)
    sequence_head(packed)


def _ctc_log_probs_from_autocast_loss_outside() -> None:
    _seeded()
    columns = torch.randn(2, 32, 128)  # (B, T, C)
    classifier = nn.Linear(128, _CLASSES)
    with torch.autocast("cpu", dtype=bf16):
        log_probs = classifier(columns).log_softmax(-1).permute(1, 0, 2)
    targets = torch.tensor(_ctc_ids("street") + _ctc_ids("exit") + [0, 0])[None].reshape(2, 6)
    input_lengths = torch.tensor([32, 32])
    target_lengths = torch.tensor([6, 4])
    F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=_BLANK)  # the loss taken after the block


def _ctc_anomaly_label_longer_than_frames() -> None:
    _seeded()
    word = "international"  # 13 characters on a narrow crop: the CNN leaves 8 frames
    logits = torch.randn(8, 1, _CLASSES, requires_grad=True)
    targets = torch.tensor([_ctc_ids(word)])
    with torch.autograd.detect_anomaly():
        loss = F.ctc_loss(logits.log_softmax(-1), targets, torch.tensor([8]), torch.tensor([len(word)]))
        loss.backward()


def _ctc_head_int8_codes_with_bf16_features() -> None:
    _seeded()
    weight = torch.randn(_CLASSES, 128)
    scale = weight.abs().amax(dim=1, keepdim=True) / 127
    codes = torch.round(weight / scale).clamp(-127, 127).to(torch.int8)  # weight-only int8 export of the CTC head
    columns = torch.randn(2, 32, 128, dtype=bf16)
    F.linear(columns, codes) * scale.T.to(bf16)  # scale applied after, codes never dequantized


def _bn_folded_into_bf16_conv_fp32_bias() -> None:
    _seeded()
    conv = nn.Conv2d(64, 128, 3, padding=1, bias=False)
    bn = nn.BatchNorm2d(128).eval()
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    fused_weight = (conv.weight * scale[:, None, None, None]).detach().to(bf16)
    fused_bias = (bn.bias - bn.running_mean * scale).detach()  # folded in fp32, never cast
    features = torch.randn(1, 64, 8, 32, dtype=bf16)
    F.conv2d(features, fused_weight, fused_bias, padding=1)


# --- spatial transformer and augmentation


def _stn_bf16_localisation_fp32_line() -> None:
    _seeded()
    line = torch.from_numpy(_line_image()).float()[None, None] / 255.0
    localisation = nn.Sequential(nn.Flatten(), nn.Linear(16 * 64, 6)).to(bf16)  # runs on a half-size bf16 copy
    nn.init.zeros_(localisation[1].weight)
    with torch.no_grad():
        localisation[1].bias.copy_(torch.tensor([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]))
    small = F.interpolate(line, size=(16, 64), mode="bilinear", align_corners=False).to(bf16)
    theta = localisation(small).view(1, 2, 3)
    grid = F.affine_grid(theta, [1, 1, 32, 100], align_corners=False)
    F.grid_sample(line, grid, align_corners=False)  # rectify the full-resolution fp32 line


def _elastic_distortion_float64_field() -> None:
    rng = np.random.default_rng(0)
    height, width = 32, 128
    field = rng.uniform(-1.0, 1.0, size=(2, height, width))
    kernel = np.ones(9) / 9
    for _ in range(3):  # smooth the displacement along both axes
        field = np.apply_along_axis(lambda row: np.convolve(row, kernel, mode="same"), 2, field)
        field = np.apply_along_axis(lambda col: np.convolve(col, kernel, mode="same"), 1, field)
    displacement = torch.from_numpy(field * 0.05).permute(1, 2, 0)[None]  # float64, grid units
    base = F.affine_grid(torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), [1, 1, height, width], align_corners=False)
    line = torch.from_numpy(_line_image()).float()[None, None] / 255.0
    F.grid_sample(line, base + displacement, align_corners=False, padding_mode="border")


def _homography_solve_fp16_quad() -> None:
    quad = torch.tensor([[12.0, 20.0], [118.0, 9.0], [121.0, 47.0], [15.0, 55.0]], dtype=f16)  # fp16 detector corners
    rect = torch.tensor([[0.0, 0.0], [99.0, 0.0], [99.0, 31.0], [0.0, 31.0]], dtype=f16)
    rows, rhs = [], []
    for (x, y), (u, v) in zip(quad.tolist(), rect.tolist()):
        rows.append([x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y])
        rows.append([0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y])
        rhs += [u, v]
    a = torch.tensor(rows, dtype=quad.dtype)
    b = torch.tensor(rhs, dtype=quad.dtype)
    torch.linalg.solve(a, b)  # the 8 homography parameters for perspective rectification


def _rectified_bf16_crop_to_numpy() -> None:
    _seeded()
    crop = torch.rand(1, 1, 32, 100, dtype=bf16)  # the bf16 rectifier's output
    crop.squeeze().mul(255).round().numpy().astype(np.uint8)  # for cv2.imwrite of the debug crops


# --- TrOCR-style encoder and decoder


def _trocr_patch_embed_bf16_fp32_pixels() -> None:
    _seeded()
    patch_embed = nn.Conv2d(3, 64, 16, stride=16).to(bf16)
    pixel_values = torch.rand(1, 3, 32, 128)  # the processor's resized, normalised fp32 batch
    patch_embed((pixel_values - 0.5) / 0.5)


class _DecoderEmbeddings(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tokens = nn.Embedding(_TOKENS, 64, padding_idx=_PAD)
        self.positions = torch.randn(32, 64) * 0.02  # a plain attribute, not a buffer: .to() leaves it fp32
        self.norm = nn.LayerNorm(64)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.norm(self.tokens(ids) + self.positions[: ids.shape[1]])


def _decoder_positions_plain_attribute_layer_norm() -> None:
    _seeded()
    embeddings = _DecoderEmbeddings().to(bf16)
    embeddings(torch.tensor([[_BOS, *_token_ids("stop")]]))


def _trocr_cross_attention_cached_fp32_memory() -> None:
    _seeded()
    queries = torch.randn(2, 4, 6, 16, dtype=bf16)  # from the bf16 decoder
    memory = torch.randn(2, 4, 16, 16)  # encoder keys/values cached once per image by the fp32 encoder
    F.scaled_dot_product_attention(queries, memory, memory)


def _locality_bias_baddbmm_bf16_attention() -> None:
    _seeded()
    heads, patches, dim = 4, 16, 16
    rows, cols = torch.meshgrid(torch.arange(2), torch.arange(8), indexing="ij")
    position = torch.stack([rows.flatten(), cols.flatten()], -1).float()
    locality = -torch.cdist(position, position)  # SATRN-style 2-D locality bias, built once in fp32
    q = torch.randn(2 * heads, patches, dim, dtype=bf16)
    k = torch.randn(2 * heads, patches, dim, dtype=bf16)
    torch.baddbmm(locality.expand(2 * heads, patches, patches), q, k.transpose(1, 2), alpha=dim ** -0.5)


def _decoder_self_attention_fp32_causal_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(64, 4, batch_first=True).to(bf16)
    steps = torch.randn(2, 7, 64, dtype=bf16)
    causal = nn.Transformer.generate_square_subsequent_mask(7)
    attention(steps, steps, steps, attn_mask=causal, need_weights=True)  # weights kept for the attention maps


def _trocr_encoder_fastpath_width_padding() -> None:
    _seeded()
    layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2).eval()
    patches = torch.randn(2, 8, 64)
    width_padding = torch.tensor([[False] * 8, [False] * 5 + [True] * 3])  # the shorter line padded on the right
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        encoder(patches, src_key_padding_mask=width_padding)


def _tied_output_projection_fp32_embedding() -> None:
    _seeded()
    char_embedding = nn.Embedding(_TOKENS, 64)  # left fp32: the cast loop skipped nn.Embedding
    hidden = torch.randn(2, 7, 64, dtype=bf16)  # the bf16 decoder's last hidden states
    hidden @ char_embedding.weight.T


def _causal_mask_fp16_float32_min() -> None:
    steps = 7
    future = torch.triu(torch.ones(steps, steps, dtype=torch.bool), diagonal=1)
    torch.zeros(steps, steps, dtype=f16).masked_fill(future, torch.finfo(torch.float32).min)


def _decoder_labels_float64_into_embedding() -> None:
    _seeded()
    words = ["exit", "street", "open"]
    labels = np.zeros((len(words), 8))  # padded label array; np.zeros gives float64
    for i, word in enumerate(words):
        labels[i, 0] = _BOS
        labels[i, 1:len(word) + 1] = _token_ids(word)
    embed = nn.Embedding(_TOKENS, 64, padding_idx=_PAD)
    embed(torch.from_numpy(labels))


def _attention_decoder_ce_int32_targets() -> None:
    _seeded()
    logits = torch.randn(2, 8, _TOKENS)
    targets = np.zeros((2, 8), dtype=np.int32)  # the LMDB cache stores labels as int32
    targets[0, :5] = [*_token_ids("exit"), _EOS]
    targets[1, :7] = [*_token_ids("street"), _EOS]
    F.cross_entropy(logits.reshape(-1, _TOKENS), torch.from_numpy(targets).reshape(-1), ignore_index=_PAD)


def _writer_style_lerp_fp32_codebook() -> None:
    _seeded()
    style = torch.randn(64, dtype=bf16)  # the bf16 style encoder's vector for this page
    writer_codebook = torch.randn(50, 64)  # fp32 writer prototypes
    torch.lerp(style, writer_codebook[17], 0.5)  # adapt toward the enrolled writer


def _grl_hook_numpy_coefficient() -> None:
    _seeded()
    features = torch.randn(4, 64, dtype=bf16, requires_grad=True)  # bf16 line features shared with the writer head
    progress = 0.3
    coefficient = torch.from_numpy(np.array([2.0 / (1.0 + np.exp(-10 * progress)) - 1.0]))  # DANN schedule
    features.register_hook(lambda grad: -coefficient * grad)  # gradient reversal for writer-invariant features
    writer_head = nn.Linear(64, 10).to(bf16)
    writer_head(features).float().logsumexp(-1).sum().backward()


# --- decoding and metrics


def _lexicon_trie_float_mask_inverted() -> None:
    _seeded()
    logits = torch.randn(1, _TOKENS)
    allowed = torch.zeros(_TOKENS)  # tokens the lexicon trie allows after the prefix "th"
    allowed[[_token_ids(c)[0] for c in "aeiory"]] = 1.0
    logits.masked_fill(~allowed, float("-inf")).argmax(-1)


def _codepoint_lut_int16_codes() -> None:
    lut = torch.full((128,), -1, dtype=torch.long)  # ASCII codepoint -> class id
    lut[torch.tensor([ord(c) for c in _CHARSET])] = torch.arange(1, _CLASSES)
    codes = torch.from_numpy(np.array([ord(c) for c in "exit42"], dtype=np.int16))  # as the label cache stores them
    lut[codes]


def _word_accuracy_mean_of_bool() -> None:
    predicted = torch.tensor([_token_ids("exit"), _token_ids("stop"), _token_ids("open")])
    target = torch.tensor([_token_ids("exit"), _token_ids("step"), _token_ids("open")])
    correct = (predicted == target).all(dim=1)
    correct.mean()


def _per_character_errors_index_add_float() -> None:
    predicted = torch.tensor(_ctc_ids("stre3t"))
    target = torch.tensor(_ctc_ids("street"))
    errors = torch.zeros(_CLASSES, dtype=torch.long)  # error counts per target character
    errors.index_add_(0, target, (predicted != target).float())


CASES: dict[str, LiveCase] = {
    # grayscale uint8 line crops from the PIL loader batched straight into the CRNN's fp32 stem conv
    "gray-lines-uint8-crnn-stem-conv": case(_grayscale_lines_into_crnn_stem, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a uint8 line image normalised to [-1, 1] in place with sub_/div_
    "line-uint8-normalised-in-place": case(_line_normalised_in_place, "result_cast", "f32", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # scanner-noise augmentation with randn_like of the uint8 line image
    "ink-noise-randn-like-uint8-line": case(_ink_noise_randn_like_uint8_line, "no_kernel", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # sliding-window frames cut from the uint8 line with F.unfold
    "sliding-window-unfold-uint8-line": case(_sliding_window_frames_unfold_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # slant estimation: Sobel kernels written with torch.tensor of ints, conv2d over the fp32 line
    "slant-sobel-integer-kernel-conv": case(_slant_sobel_integer_kernel, "conv_weight_dtype", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # variable-width lines: packed bf16 CNN column features into the BiLSTM head left fp32
    "packed-bilstm-fp32-bf16-columns": case(_packed_bilstm_fp32_on_bf16_columns, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # CTC log-probs made inside a bf16 autocast block, ctc_loss called after the block
    "ctc-log-probs-autocast-loss-outside": case(_ctc_log_probs_from_autocast_loss_outside, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # anomaly detection on CTC where a 13-character word gets 8 frames: the infeasible alignment's gradient is NaN
    "ctc-anomaly-label-longer-than-frames": case(_ctc_anomaly_label_longer_than_frames, "nonfinite",
                                                 fix=("zero_infinity",),
        grade="correct", grade_at_freeze="partly",
        why=("At freeze (8f00974) castwise gave nonfinite [] (low confidence). The kind is right, but it read the "
             "anomaly-mode NaN from CtcLossBackward0 as fp16 overflow or a numerically unsafe op and never named the "
             "cause, an infeasible CTC alignment (13 target characters on 8 frames: an inf loss whose gradient is NaN), "
             "nor the fix, zero_infinity=True or dropping samples whose label is longer than their frames.")),
    # weight-only int8 CTC head: int8 codes used directly with bf16 column features in F.linear
    "ctc-head-int8-codes-bf16-features": case(_ctc_head_int8_codes_with_bf16_features, "matmul_dtype", "bf16", "int8",
        grade="correct", grade_at_freeze="correct"),
    # BatchNorm folded by hand into a bf16 conv: the fused bias left fp32
    "bn-folded-bf16-conv-fp32-bias": case(_bn_folded_into_bf16_conv_fp32_bias, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # spatial transformer: bf16 localisation net's theta gives a bf16 grid, sampling the fp32 full-resolution line
    "stn-bf16-theta-grid-fp32-line": case(_stn_bf16_localisation_fp32_line, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # elastic handwriting distortion: a float64 numpy displacement field added to the fp32 base grid
    "elastic-distortion-f64-displacement": case(_elastic_distortion_float64_field, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # scene-text perspective rectification: the 8x8 homography system solved in fp16
    "homography-solve-fp16-quad": case(_homography_solve_fp16_quad, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # debug dump of bf16 rectified crops through .numpy() for cv2.imwrite
    "rectified-bf16-crop-to-numpy": case(_rectified_bf16_crop_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TrOCR-style bf16 patch-embedding conv given the processor's fp32 pixel values
    "trocr-patch-embed-bf16-fp32-pixels": case(_trocr_patch_embed_bf16_fp32_pixels, "conv_weight_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # decoder position table kept as a plain attribute (fp32) promotes the sum into the bf16 LayerNorm
    "decoder-positions-attribute-layer-norm": case(_decoder_positions_plain_attribute_layer_norm, "norm_param_dtype",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # cross-attention of bf16 decoder queries to encoder keys/values cached by the fp32 encoder, through SDPA
    "trocr-cross-attn-cached-fp32-memory": case(_trocr_cross_attention_cached_fp32_memory, "sdpa_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # SATRN-style 2-D locality bias (fp32) added with baddbmm to bf16 query-key scores
    "locality-bias-fp32-baddbmm-bf16": case(_locality_bias_baddbmm_bf16_attention, "batched_matmul_dtype", "f32",
                                            "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 decoder self-attention given generate_square_subsequent_mask's fp32 mask, weights kept for the maps
    "decoder-mha-fp32-causal-mask": case(_decoder_self_attention_fp32_causal_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp32 TransformerEncoder in eval under bf16 autocast with a width padding mask for the shorter line
    "trocr-encoder-fastpath-width-padding": case(_trocr_encoder_fastpath_width_padding, "transformer_fastpath", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # output projection tied by hand to the character embedding left fp32, with bf16 hidden states
    "tied-projection-fp32-char-embedding": case(_tied_output_projection_fp32_embedding, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 causal mask filled with torch.finfo(torch.float32).min
    "causal-mask-fp16-float32-min": case(_causal_mask_fp16_float32_min, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # padded label array made with np.zeros (float64) fed to the attention decoder's embedding
    "decoder-labels-np-zeros-f64-embedding": case(_decoder_labels_float64_into_embedding, "index_tensor_dtype",
                                                  "f64",
        grade="correct", grade_at_freeze="correct"),
    # attention decoder cross_entropy with int32 targets from the LMDB label cache
    "attn-decoder-ce-int32-targets": case(_attention_decoder_ce_int32_targets, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # writer adaptation: the bf16 style vector lerped toward an fp32 writer prototype
    "writer-style-lerp-fp32-prototype": case(_writer_style_lerp_fp32_codebook, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # gradient reversal hook multiplying the bf16 gradient by a float64 DANN coefficient from numpy
    "grl-hook-f64-coefficient": case(_grl_hook_numpy_coefficient, "loss_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # lexicon-constrained decoding: the trie's allowed-token mask built as float, inverted with ~
    "lexicon-trie-float-mask-invert": case(_lexicon_trie_float_mask_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # codepoint-to-class int64 lookup table indexed with int16 codes from the label cache
    "codepoint-lut-int16-codes": case(_codepoint_lut_int16_codes, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # word accuracy as mean() of the bool all-characters-match tensor
    "word-accuracy-mean-bool": case(_word_accuracy_mean_of_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # per-character error counts: float mismatches index_add_'ed into an int64 counter
    "per-char-errors-index-add-float": case(_per_character_errors_index_add_float, "indexed_write_dtype", "int64",
                                            "f32",
        grade="correct", grade_at_freeze="correct"),
}
