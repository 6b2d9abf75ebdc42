"""Held-out live set 58: document AI and OCR by hand in low precision (CTC and attention decoders, character
vocabularies and label lengths, boxes and polygons as integer pixel coordinates, layout models with 2-D position
embeddings, uint8 page scans, table structure recognition, key-value extraction heads, beam search over characters).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at bb02554."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "bb02554"

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32

CHARSET = "0123456789abcdefghijklmnopqrstuvwxyz"
BLANK = 0
HIDDEN = 16


def _page_scan(height: int = 32, width: int = 24) -> torch.Tensor:
    """A grayscale page scan as PIL hands it over: uint8, dark text on a light background."""
    rng = np.random.default_rng(0)
    page = np.full((height, width), 235, dtype=np.uint8)
    page[4:8, 2:20] = rng.integers(0, 60, size=(4, 18)).astype(np.uint8)
    page[14:18, 2:16] = rng.integers(0, 60, size=(4, 14)).astype(np.uint8)
    return torch.from_numpy(page)


def _word_boxes() -> torch.Tensor:
    """Word boxes from the OCR engine as integer pixel coordinates (x0, y0, x1, y1) on a 1700 x 2200 page."""
    return torch.tensor([[[120, 80, 410, 132], [450, 80, 790, 132], [120, 300, 960, 352]]])


def _tokens(batch: int = 2, length: int = 6, dtype: torch.dtype = f32) -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(batch, length, HIDDEN).to(dtype)


def _layoutlm_bbox_true_division() -> None:
    boxes = _word_boxes()
    page_w, page_h = 1700, 2200
    scale = torch.tensor([page_w, page_h, page_w, page_h])
    normalised = boxes / scale * 1000  # LayoutLM wants 0..1000
    x_position = nn.Embedding(1024, HIDDEN).to(bf16)
    x_position(normalised[..., 0])


def _layoutlmv3_rel2d_bucket_float() -> None:
    centres_x = _word_boxes()[0, :, [0, 2]].sum(-1) // 2
    relative = centres_x[None, :] - centres_x[:, None]
    num_buckets, max_exact, max_distance = 32, 8, 1024
    sign = (relative > 0).long() * (num_buckets // 2)
    distance = relative.abs()
    large = max_exact + torch.log(distance.float().clamp(min=1) / max_exact) / np.log(max_distance / max_exact) * (
        num_buckets // 2 - max_exact
    )
    bucket = sign + torch.where(distance < max_exact, distance, large.clamp(max=num_buckets // 2 - 1))
    rel_2d_bias = torch.randn(num_buckets, 2).to(bf16)
    rel_2d_bias[bucket]


def _pix2struct_row_ids_from_patches() -> None:
    torch.manual_seed(0)
    rows, cols, patch = 3, 4, 4
    row_ids = torch.arange(1, rows + 1).repeat_interleave(cols).float()
    col_ids = torch.arange(1, cols + 1).repeat(rows).float()
    pixels = torch.rand(rows * cols, patch * patch * 3)
    flattened = torch.cat([row_ids[:, None], col_ids[:, None], pixels], dim=-1)[None].to(bf16)  # processor output
    row_embedder = nn.Embedding(64, HIDDEN).to(bf16)
    row_embedder(flattened[:, :, 0])


def _char_beam_backpointers_int16() -> None:
    torch.manual_seed(0)
    beams, steps = 4, 5
    backpointers = torch.zeros(steps, beams, dtype=torch.int16)  # saves memory on long lines
    backpointers[1] = torch.tensor([0, 0, 2, 1], dtype=torch.int16)
    decoder_state = torch.randn(beams, HIDDEN).to(bf16)
    decoder_state.index_select(0, backpointers[1])


def _char_beam_score_history_bf16() -> None:
    torch.manual_seed(0)
    beams, steps, vocab = 3, 6, len(CHARSET) + 1
    history = torch.full((beams, steps), float("-inf"), dtype=bf16)  # made in the model's dtype
    log_probs = torch.randn(beams, vocab).to(bf16).float().log_softmax(-1)
    best, char = log_probs.max(-1)
    beam_rows = torch.arange(beams)
    history[beam_rows, torch.full((beams,), 2)] = best


def _ctc_greedy_collapse_uint8_mask() -> None:
    torch.manual_seed(0)
    best = torch.randn(10, len(CHARSET) + 1).argmax(-1)
    previous = torch.cat([torch.tensor([-1]), best[:-1]])
    keep = ((best != previous) & (best != BLANK)).to(torch.uint8)  # as the old Lua port stored it
    best.masked_select(keep)


def _dbnet_shrink_map_uint8_bce() -> None:
    torch.manual_seed(0)
    gt_shrink = torch.zeros(1, 16, 16, dtype=torch.uint8)
    gt_shrink[:, 4:8, 2:14] = 1  # drawn with cv2.fillPoly on a uint8 canvas
    probability = torch.sigmoid(torch.randn(1, 16, 16))
    F.binary_cross_entropy(probability, gt_shrink)


def _dbnet_polygon_perimeter_int32() -> None:
    polygon = torch.from_numpy(np.array([[10, 10], [90, 12], [88, 40], [12, 38]], dtype=np.int32))
    area = 0.5 * (polygon[:, 0] * polygon.roll(-1, 0)[:, 1] - polygon.roll(-1, 0)[:, 0] * polygon[:, 1]).sum().abs()
    perimeter = torch.linalg.vector_norm(polygon - polygon.roll(-1, 0), dim=-1).sum()
    area * (1 - 0.4**2) / perimeter


def _dbnet_rasterise_polygon_uint8() -> None:
    canvas = torch.zeros(16, 16, dtype=torch.uint8)
    ys, xs = torch.meshgrid(torch.arange(4, 8), torch.arange(2, 14), indexing="ij")
    canvas.index_put_((ys.flatten(), xs.flatten()), torch.ones(ys.numel()))


def _scan_contrast_stretch_quantile() -> None:
    page = _page_scan()
    low, high = torch.quantile(page.flatten(), torch.tensor([0.02, 0.98]))
    (page - low) / (high - low)


def _otsu_threshold_histc() -> None:
    page = _page_scan()
    histogram = torch.histc(page, bins=256, min=0, max=255)
    histogram / histogram.sum()


def _sar_2d_attention_glimpse() -> None:
    torch.manual_seed(0)
    feature_map = torch.randn(2, HIDDEN, 4, 12)  # the ResNet encoder kept in fp32
    decoder_query = torch.randn(2, 1, HIDDEN).to(bf16)  # the LSTM decoder cast to bf16
    flat = feature_map.flatten(2)
    scores = torch.bmm(decoder_query, flat.to(bf16))
    weights = scores.softmax(-1)
    torch.bmm(weights, flat.transpose(1, 2))


def _attention_ocr_gru_cell_glimpse() -> None:
    torch.manual_seed(0)
    char_embedding = nn.Embedding(len(CHARSET) + 2, 8).to(bf16)
    cell = nn.GRUCell(8 + HIDDEN, HIDDEN).to(bf16)
    glimpse = torch.randn(2, HIDDEN)  # attention context from the fp32 encoder features
    previous_char = torch.tensor([1, 5])
    hidden = torch.zeros(2, HIDDEN, dtype=bf16)
    cell(torch.cat([char_embedding(previous_char), glimpse], dim=-1), hidden)


def _kie_linking_bilinear() -> None:
    torch.manual_seed(0)
    linker = nn.Bilinear(HIDDEN, HIDDEN, 1).to(bf16)
    key_entities = torch.randn(3, HIDDEN).to(bf16)
    value_entities = torch.randn(3, HIDDEN)  # pooled from the frozen fp32 text encoder
    linker(key_entities, value_entities)


def _kie_linking_bce_bool_adjacency() -> None:
    torch.manual_seed(0)
    link_logits = torch.randn(4, 4)
    links = torch.zeros(4, 4, dtype=torch.bool)
    links[0, 2] = links[1, 3] = True
    F.binary_cross_entropy_with_logits(link_logits, links)


def _table_row_assignment_bool_matmul() -> None:
    torch.manual_seed(0)
    cell_rows = torch.tensor([0, 0, 1, 1, 2])
    in_row = cell_rows[None, :] == torch.arange(3)[:, None]  # (rows, cells)
    cell_features = torch.randn(5, HIDDEN)
    (in_row @ cell_features) / in_row.sum(-1, keepdim=True)


def _table_word_to_cell_scatter_reduce() -> None:
    torch.manual_seed(0)
    word_features = torch.randn(6, HIDDEN).to(bf16)
    word_cell = torch.tensor([0, 0, 1, 2, 2, 2])
    cells = torch.zeros(3, HIDDEN)
    cells.scatter_reduce_(0, word_cell[:, None].expand(-1, HIDDEN), word_features, reduce="mean", include_self=False)


def _word_to_char_repeat_interleave_int16() -> None:
    torch.manual_seed(0)
    words = ["invoice", "no", "4711"]
    char_counts = torch.from_numpy(np.array([len(w) for w in words], dtype=np.int16))  # from the arrow dataset
    word_boxes = _word_boxes()[0]
    word_boxes.repeat_interleave(char_counts, dim=0)


def _char_beam_length_penalty() -> None:
    lengths = torch.tensor([3, 5, 7])
    alpha = 0.6
    lengths.add_(5).div_(6).pow_(alpha)


def _charset_restriction_bias_fp16() -> None:
    vocab = len(CHARSET) + 1
    bias = torch.full((2, vocab), -1e5, dtype=f16)  # digits-only field on the fp16 recogniser
    bias[:, 1:11] = 0


def _kie_span_head_word_start_mask() -> None:
    torch.manual_seed(0)
    word_ids = [None, 0, 0, 1, 2, 2, None]
    word_start = torch.tensor([0, 1, 0, 1, 1, 0, 0])  # from the tokenizer's word_ids
    start_logits = torch.randn(1, len(word_ids)).to(bf16)
    start_logits.masked_fill(~word_start[None], -1e4)


def _byte_vocab_one_hot() -> None:
    text = "Total: 42.00"
    codes = torch.from_numpy(np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy())
    F.one_hot(codes, num_classes=256)


def _kie_linking_scores_numpy() -> None:
    torch.manual_seed(0)
    keys = torch.randn(3, HIDDEN).to(bf16)
    values = torch.randn(4, HIDDEN).to(bf16)
    with torch.no_grad():
        cost = -(keys @ values.T)
    np.argsort(cost.numpy(), axis=1)  # handed on to scipy's linear_sum_assignment


def _deskew_grid_sample() -> None:
    page = _page_scan().to(bf16)[None, None] / 255
    angle = torch.tensor(0.03)
    theta = torch.stack([
        torch.stack([angle.cos(), -angle.sin(), torch.tensor(0.0)]),
        torch.stack([angle.sin(), angle.cos(), torch.tensor(0.0)]),
    ])[None]
    grid = F.affine_grid(theta, list(page.shape), align_corners=False)
    F.grid_sample(page, grid, align_corners=False)


def _trocr_numpy_f64_pixels() -> None:
    scan = _page_scan().numpy()
    pixels = (np.stack([scan] * 3)[None] / 255.0 - 0.5) / 0.5  # the processor done by hand in numpy
    patch_embed = nn.Conv2d(3, HIDDEN, 4, 4, bias=False).to(bf16)
    patch_embed(torch.from_numpy(pixels))


def _layoutlmv2_spatial_bias_mha() -> None:
    torch.manual_seed(0)
    boxes = _word_boxes()[0].float()
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    spatial_bias = -torch.cdist(centres, centres) / 1000  # fp32: computed from the pixel boxes
    attention = nn.MultiheadAttention(HIDDEN, 2, batch_first=True).to(bf16)
    x = _tokens(1, 3, bf16)
    attention(x, x, x, attn_mask=spatial_bias)


def _layout_sincos_2d_layernorm() -> None:
    torch.manual_seed(0)
    boxes = _word_boxes()[0] * 1000 // 2200
    freqs = torch.exp(-np.log(10000.0) * torch.arange(0, HIDDEN // 4) / (HIDDEN // 4))
    x_angles, y_angles = boxes[:, 0:1] * freqs, boxes[:, 1:2] * freqs
    layout = torch.cat([x_angles.sin(), x_angles.cos(), y_angles.sin(), y_angles.cos()], dim=-1)
    words = torch.randn(3, HIDDEN).to(bf16)
    norm = nn.LayerNorm(HIDDEN).to(bf16)
    norm(words + layout)


def _aster_tps_solve() -> None:
    torch.manual_seed(0)
    fiducials = 6
    control = torch.rand(fiducials, 2).to(bf16)  # predicted by the bf16 localisation network
    pairwise = torch.cdist(control.float(), control.float()).to(bf16)
    kernel = pairwise**2 * torch.log(pairwise**2 + 1e-6)
    system = torch.cat([
        torch.cat([kernel, torch.ones(fiducials, 1, dtype=bf16), control], dim=1),
        torch.cat([torch.ones(1, fiducials, dtype=bf16), torch.zeros(1, 3, dtype=bf16)], dim=1),
        torch.cat([control.T, torch.zeros(2, 3, dtype=bf16)], dim=1),
    ])
    target = torch.cat([torch.rand(fiducials, 2), torch.zeros(3, 2)]).to(bf16)
    torch.linalg.solve(system, target)


def _digits_field_all_masked_sampling() -> None:
    torch.manual_seed(0)
    logits = torch.randn(2, len(CHARSET) + 1).to(f16)
    allowed = torch.zeros_like(logits, dtype=torch.bool)
    allowed[0, 1:11] = True  # the second line's field type had no allowed characters
    torch.distributions.Categorical(logits=logits.masked_fill(~allowed, float("-inf"))).sample()


CASES: dict[str, LiveCase] = {
    # LayoutLM boxes normalised to 0..1000 with true division (float) before the bf16 x-position embedding
    "layoutlm-bbox-true-division-embedding": case(
        _layoutlm_bbox_true_division, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="correct",
    ),
    # LayoutLMv3-style relative 2-D bucket: torch.where mixes the int distance with the float log branch, then indexes
    "layoutlmv3-rel2d-bucket-where-float": case(
        _layoutlmv3_rel2d_bucket_float, "index_tensor_dtype", grade="correct", grade_at_freeze="correct",
    ),
    # Pix2Struct row ids read back from the flattened patches the processor returned in bf16
    "pix2struct-row-ids-from-bf16-patches": case(
        _pix2struct_row_ids_from_patches, "index_tensor_dtype", "bf16", grade="correct", grade_at_freeze="correct",
    ),
    # character beam search keeping its backpointers in an int16 buffer, used to reorder the decoder state
    "char-beam-backpointers-int16-index-select": case(
        _char_beam_backpointers_int16, "index_tensor_dtype", grade="correct", grade_at_freeze="correct",
    ),
    # beam score history allocated in the bf16 model's dtype, written with fp32 scores by advanced indexing
    "char-beam-score-history-bf16-setitem": case(
        _char_beam_score_history_bf16, "indexed_write_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct",
    ),
    # CTC greedy collapse keeping characters with a uint8 keep mask, then masked_select
    "ctc-greedy-collapse-uint8-keep-mask": case(
        _ctc_greedy_collapse_uint8_mask, "mask_dtype", grade="correct", grade_at_freeze="correct",
    ),
    # DBNet shrink-map target drawn on a uint8 canvas given straight to binary_cross_entropy
    "dbnet-shrink-map-uint8-bce": case(
        _dbnet_shrink_map_uint8_bce, "target_dtype", "uint8", "f32", grade="correct", grade_at_freeze="partly",
        why=(
            "At freeze (bb02554) castwise gave target_dtype [uint8] (high confidence). The kind and fix were "
            "right, but it read only the target's dtype and left out the prediction's f32 that the message names "
            "('expected Float')."
        ),
    ),
    # DBNet shrink offset: the perimeter of an int32 polygon taken with vector_norm
    "dbnet-polygon-perimeter-int32-norm": case(
        _dbnet_polygon_perimeter_int32, "integer_operand", "int32", grade="correct", grade_at_freeze="correct",
    ),
    # rasterising a text polygon into a uint8 mask with index_put_ of float ones
    "dbnet-rasterise-polygon-index-put-uint8": case(
        _dbnet_rasterise_polygon_uint8, "indexed_write_dtype", "uint8", "f32",
        grade="correct", grade_at_freeze="correct",
    ),
    # contrast stretch of a uint8 page scan between its 2nd and 98th percentiles with torch.quantile
    "scan-contrast-stretch-quantile-uint8": case(
        _scan_contrast_stretch_quantile, "integer_operand", grade="correct", grade_at_freeze="correct",
    ),
    # Otsu binarisation: the grey-level histogram of a uint8 page scan taken with histc
    "otsu-threshold-histc-uint8": case(
        _otsu_threshold_histc, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct",
    ),
    # SAR-style 2-D attention: bf16 attention weights bmm'ed with the fp32 encoder feature map for the glimpse
    "sar-2d-attention-glimpse-bmm": case(
        _sar_2d_attention_glimpse, "batched_matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct",
    ),
    # attention OCR decoder: bf16 GRUCell given the previous character's embedding concatenated with an fp32 glimpse
    "attention-ocr-gru-cell-fp32-glimpse": case(
        _attention_ocr_gru_cell_glimpse, "rnn_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct",
    ),
    # key-value linking with a bf16 Bilinear scorer over bf16 keys and fp32 values
    "kie-linking-bilinear-mixed": case(
        _kie_linking_bilinear, "op_dtype", "bf16", "f32", grade="correct", grade_at_freeze="wrong",
        why=(
            "At freeze (bb02554) castwise gave op_dtype [bf16, f32] (high confidence). It read nn.Bilinear as its"
            " own op with a dtype check, not as a matmul layer; it named the layer, the dtypes and a right fix, "
            "so the miss is the kind the expectation gives Bilinear's product. Expectation corrected after "
            "grading (matmul_dtype to op_dtype), to the convention the live sets already had for nn.Bilinear "
            "(live_held_out_5's vqa-bilinear-fusion-fp32-text, live_held_out_25's trainer-mixed-biaffine-bilinear); "
            "the frozen grade stays wrong."
        ),
    ),
    # key-value link labels kept as a bool adjacency, given to binary_cross_entropy_with_logits
    "kie-linking-bce-bool-adjacency": case(
        _kie_linking_bce_bool_adjacency, "target_dtype", "bool", fix=("float",), grade="correct",
        grade_at_freeze="wrong",
        why=(
            "At freeze (bb02554) castwise gave target_dtype [bool] (high confidence). It read the loss's bool "
            "target (the planted cause, with the right target.float() fix) rather than the bool subtraction "
            "inside binary_cross_entropy_with_logits that raised, which the corpus's convention calls mask_dtype. "
            "Expectation corrected after grading (mask_dtype to target_dtype): the live sets file a bool target "
            "given to a BCE loss as target_dtype (live_held_out_5's binary-segmentation-bool-target, live_held_out_48's "
            "gripper-bool-target-bce-logits, live_held_out_54's contact-map-bool-target-bce-logits); mask_dtype is "
            "for a bool mask in the user's own arithmetic. The frozen grade stays wrong."
        ),
    ),
    # table structure: row features pooled by @ with the bool cell-in-row matrix
    "table-row-assignment-bool-matmul": case(
        _table_row_assignment_bool_matmul, "integer_operand", "bool", "f32", grade="correct", grade_at_freeze="correct",
    ),
    # table cells pooled from bf16 word features with scatter_reduce_ into an fp32 torch.zeros buffer
    "table-word-to-cell-scatter-reduce": case(
        _table_word_to_cell_scatter_reduce, "indexed_write_dtype", grade="correct", grade_at_freeze="correct",
    ),
    # word boxes expanded to characters with repeat_interleave of int16 character counts
    "word-to-char-repeat-interleave-int16": case(
        _word_to_char_repeat_interleave_int16, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct",
    ),
    # GNMT length penalty for character beams computed in place on the int64 lengths
    "char-beam-length-penalty-pow-in-place": case(
        _char_beam_length_penalty, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct",
    ),
    # digits-only field: a charset bias filled with -1e5 in the fp16 recogniser's dtype
    "charset-restriction-bias-full-fp16": case(
        _charset_restriction_bias_fp16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct",
    ),
    # key-value span head masking non-first subwords with ~ of the int64 word-start mask
    "kie-span-head-int64-word-start-mask": case(
        _kie_span_head_word_start_mask, "mask_dtype", "int64", grade="correct", grade_at_freeze="correct",
    ),
    # byte-level character vocabulary: one_hot of the uint8 UTF-8 codes
    "byte-vocab-one-hot-uint8": case(
        _byte_vocab_one_hot, "index_tensor_dtype", grade="correct", grade_at_freeze="correct",
    ),
    # key-value linking cost from bf16 entity features handed to numpy for the Hungarian matcher
    "kie-linking-scores-bf16-numpy": case(
        _kie_linking_scores_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct",
    ),
    # page deskew: a bf16 scan resampled with grid_sample on the fp32 grid affine_grid made
    "deskew-grid-sample-bf16-page": case(
        _deskew_grid_sample, "op_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct",
    ),
    # TrOCR-style preprocessing done in numpy (float64) into the bf16 patch-embedding conv
    "trocr-numpy-f64-pixels-bf16-patch-conv": case(
        _trocr_numpy_f64_pixels, "conv_weight_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct",
    ),
    # LayoutLMv2-style spatial bias from the pixel boxes (fp32) as a bf16 MultiheadAttention's attn_mask
    "layoutlmv2-spatial-bias-fp32-bf16-mha": case(
        _layoutlmv2_spatial_bias_mha, "attn_mask_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct",
    ),
    # 2-D sin-cos layout embedding computed in fp32 added to bf16 word embeddings, into the bf16 LayerNorm
    "layout-sincos-2d-fp32-layernorm": case(
        _layout_sincos_2d_layernorm, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct",
    ),
    # ASTER thin-plate-spline rectification: the TPS system solved in bf16
    "aster-tps-solve-bf16": case(_aster_tps_solve, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # constrained field sampling in fp16 where one line's allowed-character mask was empty: NaN logits
    "digits-field-all-masked-sampling": case(
        _digits_field_all_masked_sampling, "nonfinite", grade="correct", grade_at_freeze="correct",
    ),
}
