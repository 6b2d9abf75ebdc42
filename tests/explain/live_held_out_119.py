"""Held-out live set 119: document layout analysis and table-structure recognition written by hand in low precision
(word boxes as int32/int64 pixel coordinates from PDF parsers, page sizes and normalised coordinates in float64,
token-to-box alignment with index tensors, 2-D relative position buckets, cell adjacency graphs with int64 edges, bool
masks over padded tokens, bf16 autocast around the encoders). Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at e376b1d."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e376b1d"

bf16, f16 = torch.bfloat16, torch.float16
_HIDDEN = 32
_PAGE_W, _PAGE_H = 612.0, 792.0  # US Letter in PDF points
_LAYOUT_CLASSES = 5  # text, title, list, table, figure


def _seeded() -> None:
    torch.manual_seed(0)


def _word_boxes_np() -> np.ndarray:
    """Word boxes (x0, y0, x1, y1) in PDF points, as a parser hands them over: int32."""
    return np.array([[72, 90, 140, 104], [146, 90, 230, 104], [72, 110, 118, 124], [124, 110, 300, 124],
                     [72, 300, 160, 312], [320, 300, 400, 312]], dtype=np.int32)


def _rel_buckets(centres: torch.Tensor, buckets: int = 32, max_distance: int = 128) -> torch.Tensor:
    """T5-style log buckets over the signed distance between word centres along one axis (int64)."""
    rel = centres[None, :] - centres[:, None]
    sign = (rel > 0).long() * (buckets // 2)
    distance = rel.abs().clamp(min=1)
    exact = buckets // 4
    large = exact + (torch.log(distance.float() / exact) / np.log(max_distance / exact) * (buckets // 2 - exact)).long()
    large = large.clamp(max=buckets // 2 - 1)
    return sign + torch.where(distance < exact, distance, large)


def _pdfplumber_int32_boxes_normalised_in_place() -> None:
    boxes = torch.from_numpy(_word_boxes_np())
    page = torch.from_numpy(np.array([_PAGE_W, _PAGE_H, _PAGE_W, _PAGE_H]))  # mediabox read as float64
    boxes.div_(page)  # normalise to 0..1 in place before the layout embedding


def _pixel_boxes_int64_into_linear_box_projection() -> None:
    _seeded()
    boxes = torch.from_numpy(_word_boxes_np()).long() * 300 // 72  # rendered at 300 dpi, pixel coordinates
    box_projection = nn.Linear(4, _HIDDEN)  # a DocFormer-style continuous box embedding
    box_projection(boxes[None])


def _rel2d_buckets_int16_bias_embedding() -> None:
    _seeded()
    boxes = torch.from_numpy(_word_boxes_np()).long()
    x_centres = (boxes[:, 0] + boxes[:, 2]) // 2
    buckets = _rel_buckets(x_centres).to(torch.int16)  # (L, L) bucket ids kept small: cached per page
    rel_x_bias = nn.Embedding(32, 4)  # one bias per head
    rel_x_bias(buckets)


def _extended_mask_one_minus_bool_padding() -> None:
    _seeded()
    lengths = torch.tensor([6, 4])
    attention_mask = torch.arange(6)[None, :] < lengths[:, None]  # bool over padded word tokens
    scores = torch.randn(2, 4, 6, 6, dtype=bf16)
    extended = (1.0 - attention_mask[:, None, None, :]) * torch.finfo(bf16).min
    (scores + extended).softmax(-1)


def _cell_pooling_where_int64_attention_mask() -> None:
    _seeded()
    hidden = torch.randn(2, 6, _HIDDEN)
    attention_mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]])  # the tokenizer's int64 mask
    summed = torch.where(attention_mask[..., None], hidden, 0.0).sum(1)
    summed / attention_mask.sum(1, keepdim=True)


def _word_box_coverage_bool_mean() -> None:
    boxes = torch.from_numpy(_word_boxes_np()).long()
    boxes = torch.cat([boxes, torch.zeros(2, 4, dtype=torch.long)])  # OCR tokens without a box: all zeros
    has_box = boxes[:, 2] > boxes[:, 0]
    has_box.mean()  # logged as "box coverage" for the batch


def _tokenizer_int64_attention_mask_into_sdpa() -> None:
    _seeded()
    q = k = v = torch.randn(2, 4, 6, 8)
    attention_mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]])  # straight from the tokenizer
    F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask[:, None, None, :])


def _reading_order_int16_index_select() -> None:
    _seeded()
    word_features = torch.randn(6, _HIDDEN)
    reading_order = torch.from_numpy(np.array([0, 1, 2, 3, 5, 4], dtype=np.int16))  # XY-cut order from the cache
    word_features.index_select(0, reading_order)


def _first_header_row_argmax_bool() -> None:
    _seeded()
    header_logits = torch.randn(8)  # one logit per table row: is it a header row?
    is_header = header_logits > 0.0
    first_body_row = (~is_header).argmax()
    first_body_row.item()


def _cell_adjacency_int64_labels_bce() -> None:
    _seeded()
    cells = 6
    edges = torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]])  # same-row links, int64 edge list
    labels = torch.zeros(cells, cells, dtype=edges.dtype)
    labels[edges[0], edges[1]] = 1
    pair_logits = torch.randn(cells, cells, requires_grad=True)
    F.binary_cross_entropy_with_logits(pair_logits, labels)


def _pdf2image_uint8_page_into_visual_stem() -> None:
    _seeded()
    page = np.full((64, 48, 3), 255, dtype=np.uint8)  # np.asarray(pdf2image page), white background
    page[10:14, 6:40] = 0  # a text line
    pixels = torch.from_numpy(page).permute(2, 0, 1)[None]
    visual_stem = nn.Conv2d(3, 16, kernel_size=4, stride=4)
    visual_stem(pixels)


def _mediabox_f64_normalised_boxes_into_linear() -> None:
    _seeded()
    boxes = torch.from_numpy(_word_boxes_np()).float()
    page_wh = torch.from_numpy(np.array([_PAGE_W, _PAGE_H] * 2))  # page size from the parser: float64
    normalised = boxes / page_wh
    box_projection = nn.Linear(4, _HIDDEN)
    box_projection(normalised)


def _autocast_encoders_bf16_into_fp32_fusion_head() -> None:
    _seeded()
    text_encoder = nn.Linear(_HIDDEN, _HIDDEN)
    layout_encoder = nn.Linear(4, _HIDDEN)
    fusion_head = nn.Linear(2 * _HIDDEN, _LAYOUT_CLASSES)
    tokens = torch.randn(1, 6, _HIDDEN)
    boxes = torch.rand(1, 6, 4)
    with torch.autocast("cpu", dtype=bf16):
        text = text_encoder(tokens)
        layout = layout_encoder(boxes)
    fusion_head(torch.cat([text, layout], -1))  # the head ran outside the autocast block


def _spatial_bias_fp32_baddbmm_bf16_scores() -> None:
    _seeded()
    heads, length, dim = 4, 6, 8
    q = torch.randn(heads, length, dim, dtype=bf16)
    k = torch.randn(heads, length, dim, dtype=bf16)
    spatial_bias = torch.randn(heads, length, length)  # from fp32 bucket embeddings
    torch.baddbmm(spatial_bias, q, k.transpose(1, 2), alpha=dim ** -0.5)


def _cell_graph_dense_adjacency_fp32_bf16_features() -> None:
    _seeded()
    cells = 6
    edges = torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]])
    adjacency = torch.eye(cells)
    adjacency[edges[0], edges[1]] = 1.0
    adjacency[edges[1], edges[0]] = 1.0
    adjacency = adjacency / adjacency.sum(1, keepdim=True)
    cell_features = torch.randn(cells, _HIDDEN, dtype=bf16)  # pooled from the bf16 encoder
    adjacency @ cell_features


def _bf16_page_batch_into_fp32_visual_stem() -> None:
    _seeded()
    batch = {"pixel_values": torch.rand(1, 3, 32, 24), "bbox": torch.zeros(1, 6, 4, dtype=torch.long)}
    batch = {key: value.to(bf16) if value.is_floating_point() else value for key, value in batch.items()}
    visual_stem = nn.Conv2d(3, 16, kernel_size=4, stride=4)  # only the text encoder was cast to bf16
    visual_stem(batch["pixel_values"])


def _word_queries_sdpa_fp32_patch_cache() -> None:
    _seeded()
    word_queries = torch.randn(1, 4, 6, 8, dtype=bf16)
    patch_cache = torch.randn(1, 4, 12, 8)  # visual patch keys/values computed once per page, kept fp32
    F.scaled_dot_product_attention(word_queries, patch_cache, patch_cache)


def _spatial_bias_numpy_f64_distances_sdpa() -> None:
    _seeded()
    centres = _word_boxes_np().reshape(-1, 2, 2).mean(1)  # float64
    distances = np.linalg.norm(centres[:, None] - centres[None], axis=-1) / _PAGE_W
    spatial_bias = -torch.from_numpy(distances)  # nearer words attend more
    q = torch.randn(1, 4, 6, 8, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=spatial_bias)


def _predicted_cell_boxes_bf16_numpy_iou() -> None:
    _seeded()
    with torch.autocast("cpu", dtype=bf16):
        box_head = nn.Linear(_HIDDEN, 4)
        pred_cells = box_head(torch.randn(5, _HIDDEN)).sigmoid()
    gt_cells = np.array([[0.1, 0.1, 0.3, 0.2]] * 5)
    pred = pred_cells.detach().numpy()
    np.maximum(pred[:, :2], gt_cells[:, :2])


def _knn_word_graph_fp16_fill_diagonal() -> None:
    _seeded()
    centres = torch.rand(6, 2, dtype=f16)  # normalised centres from the fp16 feature cache
    distances = (centres[:, None] - centres[None]).pow(2).sum(-1)
    distances.fill_diagonal_(1e9)  # exclude a word from its own neighbours
    distances.topk(3, largest=False)


def _text_line_baseline_lstsq_bf16() -> None:
    _seeded()
    x = torch.tensor([72.0, 140.0, 230.0, 300.0, 380.0], dtype=bf16)
    y = 0.02 * x + 100 + torch.randn(5, dtype=bf16)  # word bottoms along a slightly skewed line
    design = torch.stack([x, torch.ones_like(x)], 1)
    torch.linalg.lstsq(design, y[:, None])


def _table_grid_row_bilstm_bf16_features() -> None:
    _seeded()
    grid = torch.randn(4, 5, _HIDDEN, dtype=bf16)  # 4 rows x 5 columns of bf16 cell features
    row_lstm = nn.LSTM(_HIDDEN, _HIDDEN // 2, batch_first=True, bidirectional=True)
    row_lstm(grid)


def _cell_pair_bilinear_adjacency_scorer() -> None:
    _seeded()
    with torch.autocast("cpu", dtype=bf16):
        cell_encoder = nn.Linear(_HIDDEN, _HIDDEN)
        cells = cell_encoder(torch.randn(6, _HIDDEN))
    scorer = nn.Bilinear(_HIDDEN, _HIDDEN, 1)
    src, dst = torch.tensor([0, 1, 2]), torch.tensor([1, 2, 3])
    scorer(cells[src], cells[dst])


def _words_to_lines_index_reduce_bf16() -> None:
    _seeded()
    word_features = torch.randn(6, _HIDDEN, dtype=bf16)
    line_ids = torch.tensor([0, 0, 1, 1, 2, 2])
    lines = torch.zeros(3, _HIDDEN)
    lines.index_reduce_(0, line_ids, word_features, "mean", include_self=False)


def _ema_teacher_layout_detector_lerp() -> None:
    _seeded()
    student = nn.Linear(_HIDDEN, _LAYOUT_CLASSES).to(bf16)
    teacher = nn.Linear(_HIDDEN, _LAYOUT_CLASSES)  # deep-copied before the student was cast
    with torch.no_grad():
        for t_param, s_param in zip(teacher.parameters(), student.parameters()):
            t_param.lerp_(s_param, 1 - 0.999)


def _word_in_cell_overlap_fp16_and() -> None:
    _seeded()
    words = torch.rand(6, 4, dtype=f16)
    cells = torch.rand(3, 4, dtype=f16)
    inside_x = (words[:, None, 0] >= cells[None, :, 0]).half()
    inside_y = (words[:, None, 1] >= cells[None, :, 1]).half()
    inside_x & inside_y


def _visual_tokens_fp32_bf16_layernorm() -> None:
    _seeded()
    model_norm = nn.LayerNorm(_HIDDEN).to(bf16)  # the multimodal encoder after model.to(bf16)
    patches = torch.rand(1, 3, 32, 32).unfold(2, 8, 8).unfold(3, 8, 8)  # visual tokens made in the collate: fp32
    visual_tokens = patches.reshape(1, 3, 16, 64).permute(0, 2, 1, 3).reshape(1, 16, -1)[..., :_HIDDEN]
    model_norm(visual_tokens)


def _reading_blocks_spectral_eigh_bf16() -> None:
    _seeded()
    centres = torch.rand(6, 2, dtype=bf16)
    affinity = torch.exp(-torch.cdist(centres.float(), centres.float()) / 0.1).to(bf16)
    laplacian = torch.diag(affinity.sum(1)) - affinity
    torch.linalg.eigh(laplacian)  # group words into blocks by the Laplacian's eigenvectors


def _layout_ce_bf16_logits_fp32_class_weights() -> None:
    _seeded()
    class_weights = torch.tensor([0.2, 1.0, 1.0, 3.0, 2.0])  # tables and figures are rare
    with torch.autocast("cpu", dtype=bf16):
        region_head = nn.Linear(_HIDDEN, _LAYOUT_CLASSES)
        logits = region_head(torch.randn(8, _HIDDEN))
    labels = torch.tensor([0, 0, 1, 3, 0, 4, 2, 0])
    F.cross_entropy(logits, labels, weight=class_weights)


def _padding_grad_hook_fp32_mask_on_bf16_embeddings() -> None:
    _seeded()
    word_embeddings = nn.Embedding(100, _HIDDEN).to(bf16)
    token_ids = torch.tensor([[5, 17, 23, 0, 0]])
    hidden = word_embeddings(token_ids)
    keep = (token_ids != 0).float()  # stop gradients flowing into padded positions
    hidden.register_hook(lambda grad: grad * keep[..., None])
    hidden.float().pow(2).mean().backward()


CASES: dict[str, LiveCase] = {
    # pdfplumber's int32 word boxes normalised in place by the float64 mediabox size
    "pdfplumber-int32-boxes-div-in-place-f64-page": case(_pdfplumber_int32_boxes_normalised_in_place, "result_cast",
                                                         "f64", "int32",
        grade="correct", grade_at_freeze="correct"),
    # 300-dpi pixel word boxes (int64) given straight to a continuous box-projection Linear
    "pixel-word-boxes-int64-box-projection-linear": case(_pixel_boxes_int64_into_linear_box_projection,
                                                         "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # 2-D relative x-buckets cached as int16 per page, looked up in the per-head bias embedding
    "rel2d-buckets-int16-bias-embedding": case(_rel2d_buckets_int16_bias_embedding, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # HF-style extended attention mask made with 1.0 - the bool padding mask
    "extended-mask-one-minus-bool-padding": case(_extended_mask_one_minus_bool_padding, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # masked mean pooling with torch.where on the tokenizer's int64 attention mask
    "mean-pool-where-int64-attention-mask": case(_cell_pooling_where_int64_attention_mask, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # share of tokens that have a word box, logged as the mean of a bool tensor
    "word-box-coverage-bool-mean": case(_word_box_coverage_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the tokenizer's int64 attention mask passed as SDPA's attn_mask over word tokens
    "tokenizer-int64-attention-mask-sdpa": case(_tokenizer_int64_attention_mask_into_sdpa, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # XY-cut reading order stored as int16 in the dataset cache, used with index_select
    "reading-order-int16-index-select": case(_reading_order_int16_index_select, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # first body row of a table found with argmax over a bool "not header" row mask
    "first-body-row-argmax-bool": case(_first_header_row_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # same-row cell adjacency labels built in the int64 edge list's dtype, given to BCE with logits
    "cell-adjacency-int64-labels-bce-logits": case(_cell_adjacency_int64_labels_bce, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a pdf2image page as a uint8 HWC array fed to the fp32 visual patch stem
    "pdf2image-uint8-page-visual-stem": case(_pdf2image_uint8_page_into_visual_stem, "integer_operand", "uint8",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # word boxes divided by the float64 page size from the parser, into an fp32 box projection
    "mediabox-f64-normalised-boxes-linear": case(_mediabox_f64_normalised_boxes_into_linear, "matmul_dtype", "f64",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # text and layout encoders under bf16 autocast, the fusion classifier called after the block
    "autocast-encoders-bf16-fusion-head-outside": case(_autocast_encoders_bf16_into_fp32_fusion_head, "matmul_dtype",
                                                       "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 2-D spatial bias as baddbmm's input for bf16 q/k attention scores
    "spatial-bias-fp32-baddbmm-bf16-scores": case(_spatial_bias_fp32_baddbmm_bf16_scores, "batched_matmul_dtype",
                                                  "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # cell graph convolution: a row-normalised fp32 dense adjacency @ bf16 cell features
    "cell-graph-dense-adjacency-fp32-bf16-features": case(_cell_graph_dense_adjacency_fp32_bf16_features,
                                                          "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a batch cast to bf16 in the collate, fed to the visual stem left fp32 (conv with bias)
    "bf16-page-batch-fp32-visual-stem": case(_bf16_page_batch_into_fp32_visual_stem, "conv_weight_dtype", "bf16",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 word queries attending with SDPA to fp32 cached visual patch keys/values
    "word-queries-sdpa-fp32-patch-cache": case(_word_queries_sdpa_fp32_patch_cache, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a spatial distance bias from numpy (float64) as SDPA's float attn_mask for bf16 queries
    "spatial-bias-numpy-f64-distances-sdpa": case(_spatial_bias_numpy_f64_distances_sdpa, "attn_mask_dtype", "f64",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # cell boxes predicted under bf16 autocast handed to numpy for the IoU matching
    "predicted-cell-boxes-bf16-numpy-iou": case(_predicted_cell_boxes_bf16_numpy_iou, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # k-nearest-word graph: fp16 squared distances with the diagonal filled with 1e9
    "knn-word-graph-fp16-fill-diagonal-1e9": case(_knn_word_graph_fp16_fill_diagonal, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # text-line skew: the baseline fitted with linalg.lstsq on bf16 word bottoms
    "text-line-baseline-lstsq-bf16": case(_text_line_baseline_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # table grid: bf16 cell features run through an fp32 row BiLSTM
    "table-grid-row-bilstm-bf16-features": case(_table_grid_row_bilstm_bf16_features, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # cell-pair adjacency scored by an fp32 nn.Bilinear on cells encoded under bf16 autocast
    "cell-pair-bilinear-adjacency-scorer": case(_cell_pair_bilinear_adjacency_scorer, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # word features (bf16) mean-pooled into fp32 text-line features with index_reduce_
    "words-to-lines-index-reduce-bf16": case(_words_to_lines_index_reduce_bf16, "indexed_write_dtype", "f32",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # semi-supervised layout detection: the fp32 EMA teacher lerp'ed toward the bf16 student
    "ema-teacher-layout-detector-lerp": case(_ema_teacher_layout_detector_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # word-in-cell test: fp16 overlap indicators combined with &
    "word-in-cell-overlap-fp16-and": case(_word_in_cell_overlap_fp16_and, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # visual tokens made fp32 in the collate, into the bf16 model's LayerNorm
    "visual-tokens-fp32-bf16-layernorm": case(_visual_tokens_fp32_bf16_layernorm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # words grouped into reading blocks by spectral clustering: eigh of a bf16 graph Laplacian
    "reading-blocks-spectral-eigh-bf16": case(_reading_blocks_spectral_eigh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # layout region classifier: bf16 autocast logits with fp32 class weights in cross_entropy
    "layout-ce-bf16-logits-fp32-class-weights": case(_layout_ce_bf16_logits_fp32_class_weights, "op_dtype", "bf16",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook masking padded tokens multiplies the bf16 gradient by an fp32 mask
    "padding-grad-hook-fp32-mask-bf16-embeddings": case(_padding_grad_hook_fp32_mask_on_bf16_embeddings, "loss_dtype",
                                                        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
