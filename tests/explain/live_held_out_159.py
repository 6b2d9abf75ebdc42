"""Held-out live set 159: financial document and invoice extraction written by hand in low precision (OCR word boxes
as int32 pixel coordinates, float64 amounts from decimal.Decimal values, bool field masks, fp16 layout transformers,
bf16 CRF taggers, int64 BIO tags from pandas). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at 0f754d66."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "0f754d66"

bf16, f16 = torch.bfloat16, torch.float16
_TAGS = ["O", "B-VENDOR", "I-VENDOR", "B-DATE", "B-INVOICE_NO", "B-TOTAL", "I-TOTAL"]
_TAG_ID = {tag: i for i, tag in enumerate(_TAGS)}
_INVOICE_TOTALS = [Decimal("1249.90"), Decimal("87.15"), Decimal("15320.00"), Decimal("412.38")]


def _seeded() -> None:
    torch.manual_seed(0)


def _tesseract_boxes() -> torch.Tensor:
    # (x0, y0, x1, y1) word boxes of a 300-dpi invoice scan, int32 as the OCR wrapper returns them
    boxes = np.array([[112, 1540, 248, 1578], [1710, 1540, 1902, 1578], [112, 1610, 300, 1648],
                      [1710, 1610, 1880, 1648], [112, 1680, 262, 1718], [1690, 1680, 1902, 1718]], dtype=np.int32)
    return torch.from_numpy(boxes)


def _tag_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "doc": [0, 0, 0, 0, 0, 1, 1, 1],
        "token": ["ACME", "GmbH", "Invoice", "#4471", "1.249,90", "Date", "2024-03-01", "Total"],
        "tag": ["B-VENDOR", "I-VENDOR", "O", "B-INVOICE_NO", "B-TOTAL", "O", "B-DATE", "O"],
    })


def _key_value_linking_by_int32_box_centres() -> None:
    boxes = _tesseract_boxes()
    centres = (boxes[:, :2] + boxes[:, 2:]) // 2
    keys, values = centres[0::2], centres[1::2]  # "Subtotal:" -> "1,180.00", "VAT:" -> ...
    torch.cdist(keys, values).argmin(-1)


def _bio_tags_category_codes_cross_entropy() -> None:
    _seeded()
    frame = _tag_frame()
    tags = torch.from_numpy(frame["tag"].astype("category").cat.codes.to_numpy())
    logits = torch.randn(len(frame), frame["tag"].nunique(), requires_grad=True)
    F.cross_entropy(logits, tags)


def _field_type_ids_int8_embedding() -> None:
    _seeded()
    field_types = np.array([3, 3, 0, 1, 5, 5, 2], dtype=np.int8)  # per-token field type, int8 in the parquet cache
    field_type_embedding = nn.Embedding(8, 32)
    field_type_embedding(torch.from_numpy(field_types))


def _padded_bio_tags_float_gold_path() -> None:
    _seeded()
    frame = _tag_frame()
    frame["tag_id"] = frame["tag"].map(_TAG_ID)
    per_doc = frame.groupby("doc")["tag_id"].apply(list).tolist()
    tags = torch.tensor(pd.DataFrame(per_doc).fillna(0).to_numpy())  # ragged docs padded by pandas: float64
    transitions = nn.Parameter(torch.randn(len(_TAGS), len(_TAGS), dtype=bf16))
    transitions[tags[:, :-1], tags[:, 1:]].sum(-1)


def _viterbi_int32_backpointers_take_along_dim() -> None:
    _seeded()
    emissions = torch.randn(2, 6, len(_TAGS), dtype=bf16)
    transitions = torch.randn(len(_TAGS), len(_TAGS), dtype=bf16)
    score = emissions[:, 0]
    history = []
    for t in range(1, emissions.shape[1]):
        score, best_prev = (score[:, :, None] + transitions + emissions[:, t, None]).max(1)
        history.append(best_prev.to(torch.int32))  # backpointers kept as int32 to save memory
    best_last = score.argmax(-1, keepdim=True)
    path = [best_last]
    for best_prev in reversed(history):
        path.append(torch.take_along_dim(best_prev, path[-1], dim=1))


def _total_amount_bool_field_mask_bce_logits() -> None:
    _seeded()
    is_total = torch.tensor([[False, False, False, True, True, False]])  # tokens inside the "Total" field
    logits = torch.randn(1, 6, requires_grad=True)
    F.binary_cross_entropy_with_logits(logits, is_total)


def _line_item_row_bool_mask_avg_pool() -> None:
    is_line_item = torch.tensor([False, True, True, False, True, True, True, False])  # per text line of the page
    F.avg_pool1d(is_line_item[None, None], kernel_size=3, stride=1, padding=1)


def _invoice_cents_fx_rate_in_place() -> None:
    cents = torch.tensor([int(total * 100) for total in _INVOICE_TOTALS])  # int64 cents
    usd_per_eur = 1.0834
    cents.mul_(usd_per_eur)


def _key_mask_fp16_batch_cast_invert() -> None:
    _seeded()
    batch = {
        "embeddings": torch.randn(1, 6, 16),
        "is_key": torch.tensor([[1.0, 0.0, 1.0, 0.0, 1.0, 0.0]]),
    }
    batch = {name: value.to(f16) for name, value in batch.items()}  # collate casts the whole batch for the fp16 model
    value_candidates = ~batch["is_key"]
    batch["embeddings"].masked_fill(value_candidates[..., None], 0.0)


def _inside_tokens_bool_entity_minus_begin() -> None:
    frame = _tag_frame()
    in_entity = torch.tensor((frame["tag"] != "O").to_numpy())
    is_begin = torch.tensor(frame["tag"].str.startswith("B-").to_numpy())
    in_entity - is_begin


def _line_height_histc_int32() -> None:
    boxes = _tesseract_boxes()
    heights = boxes[:, 3] - boxes[:, 1]
    torch.histc(heights, bins=40, min=0, max=80)  # dominant font height picks the line-merging threshold


def _ocr_box_jitter_randn_like_int32() -> None:
    _seeded()
    boxes = _tesseract_boxes()
    boxes + (torch.randn_like(boxes) * 3).round()  # augmentation: jitter each coordinate by a few pixels


def _decimal_amounts_into_bf16_amount_encoder() -> None:
    _seeded()
    amounts = torch.from_numpy(np.array([float(total) for total in _INVOICE_TOTALS]))  # float64
    amount_encoder = nn.Sequential(nn.Linear(1, 32), nn.GELU(), nn.Linear(32, 32)).to(bf16)
    amount_encoder(torch.log1p(amounts)[:, None])


def _line_items_isclose_bf16_sum_f64_total() -> None:
    _seeded()
    line_amounts = torch.tensor([499.95, 499.95, 250.00], dtype=bf16)  # the bf16 extractor's line-item amounts
    total = torch.tensor(float(_INVOICE_TOTALS[0]), dtype=torch.float64)
    torch.isclose(line_amounts.sum(), total, rtol=0.0, atol=0.01)


def _fp16_layout_mha_fp32_extended_padding_mask() -> None:
    _seeded()
    attention_mask = torch.tensor([[1, 1, 1, 1, 0, 0]])  # tokenizer's int64 mask
    extended = (1.0 - attention_mask) * -10000.0  # BERT-style additive mask: float32
    encoder_attention = nn.MultiheadAttention(32, 4, batch_first=True).half()
    tokens = torch.randn(1, 6, 32, dtype=f16)
    encoder_attention(tokens, tokens, tokens, key_padding_mask=extended)


def _fp16_layout_encoder_fp32_patch_tokens_layernorm() -> None:
    _seeded()
    text_tokens = torch.randn(1, 6, 32, dtype=f16)
    patch_tokens = torch.randn(1, 4, 32)  # page patches from a visual backbone left fp32
    embedding_norm = nn.LayerNorm(32).half()
    embedding_norm(torch.cat([text_tokens, patch_tokens], dim=1))


def _bf16_crf_emission_head_fp32_bilstm() -> None:
    _seeded()
    encoder = nn.LSTM(32, 16, batch_first=True, bidirectional=True)
    emission_head = nn.Linear(32, len(_TAGS)).to(bf16)  # the CRF side cast to bf16, the encoder not
    hidden, _ = encoder(torch.randn(2, 6, 32))
    emission_head(hidden)


def _bio_constraints_f64_min_bf16_transitions() -> None:
    _seeded()
    transitions = nn.Parameter(torch.randn(len(_TAGS), len(_TAGS), dtype=bf16))
    allowed = torch.ones(len(_TAGS), len(_TAGS), dtype=torch.bool)
    allowed[0, _TAG_ID["I-VENDOR"]] = False  # O -> I-VENDOR
    allowed[0, _TAG_ID["I-TOTAL"]] = False  # O -> I-TOTAL
    with torch.no_grad():
        transitions.masked_fill_(~allowed, torch.finfo(torch.float64).min)


def _key_value_linking_bmm_fp32_values() -> None:
    _seeded()
    key_states = torch.randn(1, 3, 32, dtype=bf16)  # from the bf16 tagger
    value_states = torch.randn(1, 5, 32)  # value candidates encoded by the fp32 amount/date encoder
    torch.bmm(key_states, value_states.transpose(1, 2)).softmax(-1)


def _amount_string_char_gru_fp16_fp32_embeddings() -> None:
    _seeded()
    char_ids = torch.tensor([[ord(c) % 64 for c in "1.249,90 EUR"]])
    char_embedding = nn.Embedding(64, 16)
    amount_reader = nn.GRU(16, 32, batch_first=True).half()
    amount_reader(char_embedding(char_ids))


def _receipt_photo_fp16_stem_fp32_pixels() -> None:
    _seeded()
    pixels = torch.rand(1, 3, 64, 48)  # processor output, float32
    patch_stem = nn.Conv2d(3, 32, 16, stride=16, bias=False).half()
    patch_stem(pixels)


def _line_amounts_f16_scatter_add_f64_totals() -> None:
    invoice_of_line = torch.tensor([0, 0, 1, 2, 2, 3])
    line_amounts = torch.tensor([624.95, 624.95, 87.15, 15000.0, 320.0, 412.38], dtype=f16)
    totals = torch.zeros(len(_INVOICE_TOTALS), dtype=torch.float64)
    totals.scatter_add_(0, invoice_of_line, line_amounts)


def _deskew_affine_inv_bf16() -> None:
    _seeded()
    corners_head = nn.Linear(32, 6).to(bf16)
    affine = torch.cat([corners_head(torch.randn(1, 32, dtype=bf16)).view(2, 3),
                        torch.tensor([[0.0, 0.0, 1.0]], dtype=bf16)])
    torch.linalg.inv(affine)


def _line_pitch_rfft_fp16_ink_profile() -> None:
    _seeded()
    page = (torch.rand(1, 256, 128) > 0.9).to(f16)  # binarised page, cast with the fp16 batch
    profile = page.mean(-1)
    torch.fft.rfft(profile - profile.mean()).abs().argmax(-1)


def _missing_amount_sentinel_fp16_masked_fill() -> None:
    amount_feature = torch.tensor([1249.9, 0.0, 412.38, 0.0], dtype=f16)
    missing = torch.tensor([False, True, False, True])
    amount_feature.masked_fill(missing, -99999.0)  # the sentinel the pandas pipeline used in fillna


def _invoice_total_cents_int32() -> None:
    totals = [*_INVOICE_TOTALS, Decimal("24750000.00")]  # a construction contract's invoice
    torch.tensor([int(total * 100) for total in totals], dtype=torch.int32)


def _predicted_amounts_bf16_to_numpy_for_decimal() -> None:
    _seeded()
    amount_head = nn.Linear(32, 1).to(bf16)
    predicted = amount_head(torch.randn(4, 32, dtype=bf16)).squeeze(-1).detach()
    [Decimal(str(value)).quantize(Decimal("0.01")) for value in predicted.numpy()]


def _nullable_int64_bio_tags_with_na() -> None:
    frame = _tag_frame()
    frame["tag_id"] = frame["tag"].map(_TAG_ID).astype("Int64")
    frame.loc[[1, 6], "tag_id"] = pd.NA  # continuation subwords left unlabelled
    torch.tensor(frame["tag_id"])


def _fp16_field_extractor_grad_scaler_unscale() -> None:
    _seeded()
    field_head = nn.Linear(32, len(_TAGS)).half()
    optimizer = torch.optim.AdamW(field_head.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    logits = field_head(torch.randn(6, 32, dtype=f16))
    loss = F.cross_entropy(logits.float(), torch.tensor([1, 2, 0, 4, 5, 0]))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _field_query_vecdot_fp16_tokens_fp32_cache() -> None:
    _seeded()
    token_states = torch.randn(6, 32, dtype=f16)  # fp16 layout transformer output
    total_query = torch.randn(32)  # "total amount" query embedding cached once in fp32
    torch.linalg.vecdot(token_states, total_query).argmax()


CASES: dict[str, LiveCase] = {
    # key-value linking by nearest box centre: cdist over the OCR's int32 word-box centres
    "tesseract-int32-centres-cdist-linking": case(_key_value_linking_by_int32_box_centres, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # BIO tags encoded with pandas astype("category").cat.codes (int8) as cross_entropy targets
    "bio-tags-category-codes-int8-cross-entropy": case(_bio_tags_category_codes_cross_entropy, "target_dtype",
                                                       "int8",
        grade="correct", grade_at_freeze="correct"),
    # per-token field-type ids cached as int8 in the annotation parquet, looked up in nn.Embedding
    "field-type-ids-int8-embedding": case(_field_type_ids_int8_embedding, "index_tensor_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # ragged BIO tag lists padded through pd.DataFrame (float64), indexing the bf16 CRF's transitions for the gold path
    "padded-bio-tags-f64-gold-transitions": case(_padded_bio_tags_float_gold_path, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Viterbi backtrack of a bf16 CRF with backpointers kept int32, followed with take_along_dim
    "viterbi-int32-backpointers-take-along-dim": case(_viterbi_int32_backpointers_take_along_dim,
                                                      "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # the bool "inside the Total field" token mask as BCE-with-logits target
    "total-amount-bool-field-mask-bce-logits": case(_total_amount_bool_field_mask_bce_logits, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the bool per-line "is a line item" mask smoothed with avg_pool1d
    "line-item-row-bool-mask-avg-pool": case(_line_item_row_bool_mask_avg_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # invoice totals in int64 cents converted to USD in place with mul_ by the exchange rate
    "invoice-cents-int64-fx-rate-mul-in-place": case(_invoice_cents_fx_rate_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the "is key" field mask cast to fp16 with the batch, inverted with ~
    "key-mask-fp16-batch-cast-invert": case(_key_mask_fp16_batch_cast_invert, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # inside-entity tokens found as the bool entity mask minus the bool B- mask
    "inside-tokens-bool-entity-minus-begin": case(_inside_tokens_bool_entity_minus_begin, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # dominant line height from a torch.histc of int32 box heights
    "line-height-histc-int32": case(_line_height_histc_int32, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # box-jitter augmentation with randn_like of the int32 OCR boxes
    "ocr-box-jitter-randn-like-int32": case(_ocr_box_jitter_randn_like_int32, "no_kernel", "int32",
        grade="correct", grade_at_freeze="correct"),
    # Decimal invoice totals made float64 through numpy, log1p'd into a bf16 amount encoder
    "decimal-amounts-f64-bf16-amount-encoder": case(_decimal_amounts_into_bf16_amount_encoder, "matmul_dtype", "f64",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # reconciliation: the bf16 line-item sum checked with torch.isclose against the float64 invoice total
    "line-items-isclose-bf16-sum-f64-total": case(_line_items_isclose_bf16_sum_f64_total, "op_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # fp16 layout encoder attention given the BERT-style (1.0 - mask) * -10000.0 fp32 key_padding_mask
    "fp16-layout-mha-fp32-extended-padding-mask": case(_fp16_layout_mha_fp32_extended_padding_mask,
                                                       "attn_mask_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 text tokens concatenated with fp32 visual patch tokens, into the fp16 embedding LayerNorm
    "fp16-layout-encoder-fp32-patch-tokens-layernorm": case(_fp16_layout_encoder_fp32_patch_tokens_layernorm,
                                                            "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # BiLSTM-CRF whose emission head was cast to bf16 with the CRF while the BiLSTM stayed fp32
    "bf16-crf-emission-head-fp32-bilstm": case(_bf16_crf_emission_head_fp32_bilstm, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # BIO constraints: impossible transitions filled with torch.finfo(torch.float64).min in the bf16 CRF
    "bio-constraints-f64-min-bf16-transitions": case(_bio_constraints_f64_min_bf16_transitions, "half_overflow",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # key-value linking: bf16 key states torch.bmm'd with value candidates from an fp32 encoder
    "key-value-linking-bmm-fp32-values": case(_key_value_linking_bmm_fp32_values, "batched_matmul_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # a character GRU reading amount strings halved to fp16, fed fp32 character embeddings
    "amount-string-char-gru-fp16-fp32-embeddings": case(_amount_string_char_gru_fp16_fp32_embeddings, "rnn_dtype",
                                                        "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # receipt-photo patch stem halved to fp16 given the processor's fp32 pixels
    "receipt-photo-fp16-stem-fp32-pixels": case(_receipt_photo_fp16_stem_fp32_pixels, "conv_weight_dtype", "f32",
                                                "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 predicted line amounts scatter_add_'ed into float64 per-invoice totals
    "line-amounts-f16-scatter-add-f64-totals": case(_line_amounts_f16_scatter_add_f64_totals, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # page deskew: the affine from a bf16 corner head inverted with torch.linalg.inv
    "deskew-affine-inv-bf16": case(_deskew_affine_inv_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # line pitch from the rfft of the fp16 binarised page's ink profile
    "line-pitch-rfft-fp16-ink-profile": case(_line_pitch_rfft_fp16_ink_profile, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # missing amounts filled with the pandas pipeline's -99999 sentinel in an fp16 feature
    "missing-amount-sentinel-fp16-masked-fill": case(_missing_amount_sentinel_fp16_masked_fill, "half_overflow",
                                                     "f16",
        grade="correct", grade_at_freeze="correct"),
    # invoice totals in cents packed into int32, one total of 24.75 million
    "invoice-total-cents-int32-overflow": case(_invoice_total_cents_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 predicted amounts through .numpy() to be quantised as Decimal
    "predicted-amounts-bf16-numpy-decimal": case(_predicted_amounts_bf16_to_numpy_for_decimal, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # nullable Int64 BIO tag ids with pd.NA for continuation subwords given to torch.tensor
    "nullable-int64-bio-tags-na-tensor": case(_nullable_int64_bio_tags_with_na, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a field-extraction head halved to fp16 and trained with GradScaler on the CPU
    "fp16-field-extractor-grad-scaler-unscale": case(_fp16_field_extractor_grad_scaler_unscale, "unscale_fp16",
                                                     "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 token states scored with linalg.vecdot against an fp32 cached field query
    "field-query-vecdot-fp16-tokens-fp32-cache": case(_field_query_vecdot_fp16_tokens_fp32_cache, "op_dtype", "f16",
                                                      "f32",
        grade="correct", grade_at_freeze="correct"),
}
