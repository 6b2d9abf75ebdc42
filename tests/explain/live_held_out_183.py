"""Held-out live set 183: ophthalmology and retinal imaging by hand in low precision (uint8 fundus photographs, uint16
OCT volumes, float64 measurements from pandas, int64 patient and eye ids, bool lesion masks, fp16/bf16 U-Nets and
ViTs). Defects planted by a helper who never read the rules, written before castwise ran and graded once with the
rules frozen at 16c7b941."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "16c7b941"

bf16, f16 = torch.bfloat16, torch.float16


def _fundus(n: int = 1, size: int = 16) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, 256, (n, 3, size, size), dtype=torch.uint8, generator=g)


def _oct(depth: int = 4, size: int = 8) -> torch.Tensor:
    return torch.from_numpy(np.arange(depth * size * size, dtype=np.uint16).reshape(1, 1, depth, size, size))


def _measurements() -> pd.DataFrame:
    return pd.DataFrame({"eye_id": [0, 1, 2, 3], "axial_length": [23.1, 24.5, 22.8, 26.0],
                         "iop": [14.0, 17.5, 21.0, 12.5], "cdr": [0.3, 0.5, 0.7, 0.4]})


def _fundus_uint8_first_conv() -> None:
    stem = nn.Conv2d(3, 8, 3, padding=1)
    stem(_fundus())


def _bf16_unet_float_input() -> None:
    enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()).to(bf16)
    enc(_fundus().float() / 255)


def _oct_uint16_conv3d() -> None:
    nn.Conv3d(1, 4, 3, padding=1)(_oct())


def _vit_patch_embed_half() -> None:
    proj = nn.Linear(3 * 4 * 4, 32).half()
    img = _fundus().float() / 255
    patches = F.unfold(img, 4, stride=4).transpose(1, 2)
    proj(patches)


def _dr_grading_uint8_label_map() -> None:
    logits = torch.randn(1, 5, 8, 8)
    labels = torch.randint(0, 5, (1, 8, 8), dtype=torch.uint8)
    F.cross_entropy(logits, labels)


def _eye_embedding_pandas_float_ids() -> None:
    table = _measurements()
    eyes = nn.Embedding(4, 8)
    eyes(torch.tensor(table["eye_id"].astype(float).values))


def _background_from_bool_mask() -> None:
    lesion = torch.rand(8, 8) > 0.8
    1 - lesion


def _invert_half_vessel_mask() -> None:
    vessel = (torch.rand(8, 8) > 0.5).half()
    background = ~vessel  # noqa: F841


def _lesion_area_scatter_add_half() -> None:
    per_eye = torch.zeros(4)
    eye = torch.tensor([0, 1, 1, 3])
    area = torch.rand(4, dtype=f16)
    per_eye.scatter_add_(0, eye, area)


def _measurement_index_put_float64() -> None:
    table = _measurements()
    features = torch.zeros(4, 3)
    rows = torch.tensor(table["eye_id"].values)
    features[rows, 0] = torch.from_numpy(table["axial_length"].values)


def _bf16_embeddings_to_numpy() -> None:
    feats = torch.randn(4, 16, dtype=bf16)
    np.asarray(feats)


def _pandas_object_column_to_tensor() -> None:
    table = _measurements()
    table["laterality"] = ["OD", "OS", "OD", "OS"]
    torch.tensor(table[["axial_length", "laterality"]].values)


def _oct_uint16_resample() -> None:
    F.interpolate(_oct(), size=(8, 16, 16), mode="trilinear")


def _vit_layer_norm_bf16_weight() -> None:
    norm = nn.LayerNorm(32).to(bf16)
    norm(torch.randn(1, 16, 32, dtype=f16))


def _batch_norm_pandas_stats() -> None:
    table = _measurements()
    mean = torch.from_numpy(table[["axial_length", "iop", "cdr"]].mean().values)
    var = torch.from_numpy(table[["axial_length", "iop", "cdr"]].var().values)
    F.batch_norm(torch.randn(4, 3), mean, var, training=False)


def _vit_sdpa_mixed() -> None:
    q = torch.randn(1, 2, 16, 8, dtype=bf16)
    k = torch.randn(1, 2, 16, 8)
    v = torch.randn(1, 2, 16, 8)
    F.scaled_dot_product_attention(q, k, v)


def _vit_mha_float64_mask() -> None:
    mha = nn.MultiheadAttention(16, 2, batch_first=True)
    tokens = torch.randn(1, 5, 16)
    mask = torch.from_numpy(np.triu(np.full((5, 5), -1e4), 1))
    mha(tokens, tokens, tokens, attn_mask=mask)


def _oct_bscan_bmm_half() -> None:
    scans = torch.randn(4, 8, 16, dtype=f16)
    proj = torch.randn(4, 16, 8)
    torch.bmm(scans, proj)


def _eye_onehot_matmul() -> None:
    eye = torch.tensor([0, 2, 1])
    onehot = F.one_hot(eye, 4)
    onehot @ torch.randn(4, 8)


def _fundus_histogram_uint8() -> None:
    torch.histc(_fundus()[0, 1], bins=256, min=0, max=255)


def _top_lesion_pixels_bool() -> None:
    mask = torch.rand(64) > 0.7
    torch.topk(mask, 5)


def _mask_accumulate_uint8_inplace() -> None:
    votes = torch.zeros(8, 8, dtype=torch.uint8)
    votes += torch.rand(8, 8)


def _ema_half_weights_lerp() -> None:
    ema = torch.randn(8, dtype=f16)
    live = torch.randn(8)
    ema.lerp_(live, 0.001)


def _grad_scaler_half_params() -> None:
    head = nn.Linear(8, 5).half()
    opt = torch.optim.SGD(head.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    loss = head(torch.randn(2, 8, dtype=f16)).float().sum()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)


def _masked_fill_half_overflow() -> None:
    scores = torch.randn(1, 16, 16, dtype=f16)
    outside = torch.rand(16) > 0.5
    scores.masked_fill(outside[None, None, :], -1e9)


def _axial_length_vecdot() -> None:
    table = _measurements()
    a = torch.from_numpy(table[["axial_length", "iop"]].values)
    w = torch.randn(2)
    torch.linalg.vecdot(a, w)


def _half_mask_bitwise_and() -> None:
    a = (torch.rand(8, 8) > 0.5).half()
    b = (torch.rand(8, 8) > 0.5).half()
    a & b


def _visit_gru_float64() -> None:
    gru = nn.GRU(3, 8, batch_first=True)
    table = _measurements()
    seq = torch.from_numpy(table[["axial_length", "iop", "cdr"]].values)[None]
    gru(seq)


def _conv_f16_bias_float() -> None:
    conv = nn.Conv2d(3, 8, 3).half()
    conv.bias = nn.Parameter(torch.zeros(8))
    conv(torch.randn(1, 3, 8, 8, dtype=f16))


def _float_mask_index() -> None:
    img = torch.rand(8, 8)
    mask = (torch.rand(8, 8) > 0.5).float()
    img[mask]


CASES: dict[str, LiveCase] = {
    # a fundus photograph decoded as uint8 goes straight into the float stem convolution
    "fundus-uint8-into-first-conv": case(_fundus_uint8_first_conv, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a vessel-segmentation U-Net cast to bf16 is fed the fundus image normalised in float32
    "bf16-unet-fed-float-fundus": case(_bf16_unet_float_input, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a raw uint16 OCT volume from the device export goes into a float Conv3d
    "oct-uint16-volume-conv3d": case(_oct_uint16_conv3d, "integer_operand", "uint16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a ViT patch projection cast to fp16 receives float32 unfolded fundus patches
    "fundus-vit-half-patch-projection": case(_vit_patch_embed_half, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a lesion class map loaded from a uint8 PNG is the cross-entropy target
    "dr-lesion-uint8-label-map-ce": case(_dr_grading_uint8_label_map, "target_dtype", "int64", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # eye ids that pandas turned into float64 index an eye embedding
    "eye-id-embedding-pandas-float": case(_eye_embedding_pandas_float_ids, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # the background mask is taken as 1 minus a bool lesion mask
    "background-as-one-minus-bool-lesion": case(_background_from_bool_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a vessel mask already cast to fp16 is inverted with ~
    "invert-half-vessel-mask": case(_invert_half_vessel_mask, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-lesion areas computed in fp16 are summed per eye into a float32 buffer
    "lesion-area-scatter-add-half": case(_lesion_area_scatter_add_half, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # axial lengths from pandas (float64) are written into a float32 feature table
    "axial-length-index-put-float64": case(_measurement_index_put_float64, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 fundus embeddings are handed to numpy for the UMAP plot
    "bf16-fundus-embeddings-to-numpy": case(_bf16_embeddings_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the measurement frame with its OD/OS laterality column is turned into a tensor
    "pandas-laterality-object-column-to-tensor": case(_pandas_object_column_to_tensor, "numpy_dtype", cause=("object",),
        grade="correct", grade_at_freeze="correct"),
    # a uint16 OCT volume is resampled trilinearly to isotropic voxels before any cast
    "oct-uint16-trilinear-resample": case(_oct_uint16_resample, "integer_operand", "uint16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (16c7b941) castwise gave integer_operand [uint16] (high confidence). The op that raised is "
             "trilinear interpolate's index computation, which has no kernel for UInt16 (\"not implemented for "
             "'UInt16'\"): a missing kernel for the volume's dtype, no_kernel, which castwise read as an integer "
             "operand of a float op; the fix (cast the volume to float before resampling) is the same either way. "
             "Expectation corrected after grading from no_kernel to integer_operand, the convention "
             "live_held_out_103's realsense-uint16-depth-bilinear-resize already had for interpolate of a uint16 "
             "tensor; the grade at freeze stands.")),
    # a ViT block's LayerNorm was cast to bf16 while the tokens run in fp16
    "fp16-vit-bf16-layernorm": case(_vit_layer_norm_bf16_weight, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # population statistics of the biometry columns from pandas (float64) normalise float32 features
    "batch-norm-pandas-float64-stats": case(_batch_norm_pandas_stats, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a hand-written ViT attention casts only the query to bf16
    "fundus-vit-sdpa-bf16-query": case(_vit_sdpa_mixed, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a causal mask over visits built with numpy (float64) goes to float32 MultiheadAttention
    "visit-attention-numpy-float64-mask": case(_vit_mha_float64_mask, "attn_mask_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 B-scan features are projected per scan with a float32 bmm
    "oct-bscan-bmm-half-projection": case(_oct_bscan_bmm_half, "batched_matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a one-hot of eye ids (int64) is multiplied with a float32 table
    "eye-one-hot-matmul": case(_eye_onehot_matmul, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the green channel's histogram for CLAHE is taken with histc on uint8 pixels
    "fundus-green-channel-histc-uint8": case(_fundus_histogram_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # the top lesion pixels are picked with topk on the bool lesion mask
    "top-lesion-pixels-topk-bool": case(_top_lesion_pixels_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # float grader probabilities are added in place into a uint8 vote map
    "grader-votes-uint8-inplace-add": case(_mask_accumulate_uint8_inplace, "result_cast", "f32", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # the EMA copy of the U-Net is kept in fp16 and lerped toward float32 weights
    "ema-half-unet-lerp": case(_ema_half_weights_lerp, "lerp_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a DR grading head cast to fp16 is trained with GradScaler
    "dr-head-half-grad-scaler": case(_grad_scaler_half_params, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 attention scores outside the optic disc are filled with -1e9
    "optic-disc-attention-fill-minus-1e9-half": case(_masked_fill_half_overflow, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # pandas biometry (float64) is scored with vecdot against float32 weights
    "biometry-vecdot-float64": case(_axial_length_vecdot, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # two fp16 lesion masks are intersected with &
    "half-masks-bitwise-and": case(_half_mask_bitwise_and, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a GRU over a patient's visits is fed pandas measurements in float64
    "visit-gru-pandas-float64": case(_visit_gru_float64, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a fp16 decoder convolution's bias is re-initialised as a float32 Parameter
    "half-conv-float-bias-reset": case(_conv_f16_bias_float, "conv_bias_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pixels are selected with a lesion mask stored as float
    "fundus-float-mask-index": case(_float_mask_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
}
