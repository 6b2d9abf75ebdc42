"""Held-out live set 3: data pipelines, interop and edges (numpy, Python values, index and mask dtypes, devices,
quantized, sparse, complex and fp8 tensors, state-dict round trips). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at 91069b4."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "91069b4"

bf16, f16 = torch.bfloat16, torch.float16
E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _numpy_position_table() -> None:
    positions = np.arange(6)[:, None] / 10000 ** (np.arange(8)[None] / 8)
    table = torch.from_numpy(np.sin(positions))  # float64, as numpy computes it
    tokens = torch.randn(6, 8)
    nn.Linear(8, 8)(tokens + table)


def _numpy_features_into_bf16_gru() -> None:
    model = nn.GRU(4, 3, batch_first=True).to(bf16)
    features = torch.from_numpy(_rng().random((2, 5, 4)))
    model(features)


def _numpy_flow_grid() -> None:
    frame = torch.randn(1, 3, 8, 8)
    flow = _rng().uniform(-1, 1, (1, 8, 8, 2))  # a grid computed with numpy
    F.grid_sample(frame, torch.from_numpy(flow), align_corners=False)


def _ragged_numpy_batch() -> None:
    token_lists = np.array([np.array([5, 9, 2]), np.array([7, 1])], dtype=object)
    torch.tensor(token_lists)


def _calibrate_bf16_activations_with_numpy() -> None:
    activations = torch.randn(64).to(bf16)
    np.percentile(activations, 99.9)


def _uint16_depth_map() -> None:
    depth = torch.from_numpy((_rng().random((4, 4)) * 5000).astype(np.uint16))  # a 16-bit PNG read with numpy
    depth - depth.min()


def _uint8_image_into_stem() -> None:
    stem = nn.Conv2d(3, 8, 3, bias=False)
    image = torch.from_numpy(np.zeros((8, 8, 3), dtype=np.uint8)).permute(2, 0, 1)[None]
    stem(image)


def _uint8_token_ids() -> None:
    ids = np.array([[3, 1, 4, 1]], dtype=np.uint8)  # vocabulary small enough to store ids in a byte
    nn.Embedding(10, 4)(torch.from_numpy(ids))


def _pair_index_by_true_division() -> None:
    token_scores = torch.rand(6)
    pair_of_token = torch.arange(6) / 2
    torch.zeros(3).scatter_add_(0, pair_of_token, token_scores)


def _length_regulator_float_durations() -> None:
    phonemes = torch.randn(3, 4)
    durations = torch.from_numpy(np.array([1.0, 3.0, 2.0], dtype=np.float32))  # predicted durations, rounded
    torch.repeat_interleave(phonemes, durations.round(), dim=0)


def _bincount_of_float_labels() -> None:
    labels = torch.tensor([0.0, 2.0, 1.0, 2.0])  # labels loaded as floats from a csv
    torch.bincount(labels, minlength=3)


def _normalise_counts_in_place() -> None:
    counts = torch.bincount(torch.tensor([0, 2, 1, 2]), minlength=3)
    counts /= counts.sum()


def _median_predicted_class() -> None:
    logits = torch.randn(8, 5)
    torch.quantile(logits.argmax(-1), 0.5)


def _accuracy_from_comparison() -> None:
    predictions, labels = torch.tensor([1, 0, 2]), torch.tensor([1, 1, 2])
    (predictions == labels).mean()


def _legacy_uint8_mask_select() -> None:
    scores = torch.randn(4)
    keep = torch.from_numpy(np.array([1, 0, 1, 1], dtype=np.uint8))
    scores.masked_select(keep)


def _tokenizer_mask_as_condition() -> None:
    scores = torch.randn(1, 4)
    attention_mask = torch.from_numpy(np.array([[1, 1, 1, 0]]))  # int64 from the tokenizer's numpy output
    torch.where(attention_mask, scores, float("-inf"))


def _tokenizer_mask_as_key_padding() -> None:
    attention = nn.MultiheadAttention(8, 2, batch_first=True)
    tokens = torch.randn(1, 4, 8)
    padding = torch.from_numpy(np.array([[0, 0, 1, 1]]))
    attention(tokens, tokens, tokens, key_padding_mask=padding)


def _numpy_float_key_padding_in_bf16() -> None:
    attention = nn.MultiheadAttention(8, 2, batch_first=True).to(bf16)
    tokens = torch.randn(1, 4, 8).to(bf16)
    padding = torch.from_numpy(np.array([[0.0, 0.0, float("-inf"), float("-inf")]]))  # float64 additive mask
    attention(tokens, tokens, tokens, key_padding_mask=padding)


def _extended_mask_from_bool() -> None:
    attention_mask = torch.tensor([[True, True, False]])
    (1 - attention_mask[:, None, None, :]) * -10000.0


def _regression_on_bool_target() -> None:
    prediction = torch.rand(4)
    is_positive = torch.tensor([True, False, True, False])
    F.l1_loss(prediction, is_positive)


def _causal_mask_filled_in_half() -> None:
    torch.full((4, 4), -1e9, dtype=f16).triu(1)


def _labels_list_in_uint8() -> None:
    labels = [3, 17, 255, 300]  # 300 classes, stored in a byte to save memory
    torch.tensor(labels, dtype=torch.uint8)


def _fp8_weight_times_scale() -> None:
    weight = torch.randn(4, 4).to(E4M3)
    scale = torch.full((4, 1), 0.5)
    weight * scale


def _fp8_two_formats() -> None:
    forward_activations = torch.randn(4).to(E4M3)
    gradients = torch.randn(4).to(E5M2)
    torch.cat([forward_activations, gradients])


def _fp8_amax_on_cpu() -> None:
    weight = torch.randn(4, 4).to(E4M3)
    weight.abs().amax()


def _sparse_adjacency_bf16_features() -> None:
    adjacency = torch.eye(4).to_sparse()
    features = torch.randn(4, 3).to(bf16)
    torch.sparse.mm(adjacency, features)


def _rotary_polar_in_bf16() -> None:
    inverse_frequencies = 1.0 / (10000 ** (torch.arange(0, 8, 2) / 8))
    angles = torch.outer(torch.arange(4.0), inverse_frequencies).to(bf16)
    torch.polar(torch.ones_like(angles), angles)


def _quantized_activation_into_float_head() -> None:
    features = torch.quantize_per_tensor(torch.randn(2, 4), 0.1, 128, torch.quint8)
    nn.Linear(4, 3)(features)


def _float_input_into_quantized_linear() -> None:
    layer = torch.ao.nn.quantized.Linear(4, 3)
    layer(torch.randn(2, 4))


def _quantized_tensor_to_numpy() -> None:
    torch.quantize_per_tensor(torch.randn(4), 0.1, 0, torch.qint8).numpy()


def _meta_model_moved_to_cpu() -> None:
    with torch.device("meta"):
        model = nn.Linear(4, 3)
    model.to("cpu")


def _non_persistent_buffer_left_on_meta() -> None:
    class Rotary(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(4, 4)
            self.register_buffer("inv_freq", torch.ones(4), persistent=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.proj(x) * self.inv_freq

    with torch.device("meta"):
        model = Rotary()
    model.load_state_dict(Rotary().state_dict(), assign=True)
    model(torch.randn(2, 4))


def _half_checkpoint_loaded_with_assign() -> None:
    def build() -> nn.Module:
        return nn.Sequential(nn.Conv1d(2, 4, 3, bias=False), nn.BatchNorm1d(4), nn.ReLU())

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.pt")
        torch.save(build().half().state_dict(), path)
        model = build()
        model.load_state_dict(torch.load(path, weights_only=True), assign=True)
    model(torch.randn(1, 2, 8))


def _bf16_checkpoint_into_meta_model() -> None:
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 2))
    checkpoint = {name: torch.randn(value.shape).to(bf16) for name, value in model.state_dict().items()}
    model.load_state_dict(checkpoint, assign=True)
    model(torch.randn(2, 4))


def _fp32_checkpoint_into_halved_model() -> None:
    model = nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 2)).half()  # halved earlier for an export
    model.load_state_dict(nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 2)).state_dict())  # resume training
    model(torch.randn(2, 8))


CASES: dict[str, LiveCase] = {
    # a sinusoidal position table built with numpy (float64) added to fp32 embeddings promotes them to float64
    "numpy-position-table-f64": case(_numpy_position_table, "matmul_dtype", "f64", "f32", grade="correct", grade_at_freeze="correct"),
    # features read with numpy (float64) fed straight into a GRU cast to bf16
    "numpy-features-bf16-gru": case(_numpy_features_into_bf16_gru, "rnn_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # a sampling grid computed with numpy (float64) for an fp32 frame
    "numpy-grid-sample-f64": case(_numpy_flow_grid, "op_dtype", "f32", "f64", grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave scalar_type [f32, f64] (low confidence). grid_sample's bare 'expected scalar type Float but found Double' names no op, so it was read as a generic scalar-type check rather than grid_sample's input/grid dtype check (its float32 fix is still the right one)."),
    # ragged token lists become a numpy object array that torch cannot take
    "numpy-object-array": case(_ragged_numpy_batch, "numpy_dtype", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. torch.tensor's TypeError for a numpy object_ array (numpy to torch, the reverse of the bf16/fp8 .numpy() errors) is not a message it reads."),
    # calibration statistics taken with numpy on bf16 activations
    "numpy-percentile-bf16": case(_calibrate_bf16_activations_with_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # a 16-bit depth map read through numpy as uint16, which torch barely supports
    "uint16-depth-map": case(_uint16_depth_map, "no_kernel", grade="correct", grade_at_freeze="correct"),
    # a uint8 HWC image from numpy sent to the stem conv without converting to float
    "uint8-image-into-conv": case(_uint8_image_into_stem, "integer_operand", "uint8", "f32", grade="correct", grade_at_freeze="correct"),
    # token ids stored as uint8 in numpy fed to an embedding
    "embedding-uint8-ids": case(_uint8_token_ids, "index_tensor_dtype", "uint8", grade="correct", grade_at_freeze="correct"),
    # a scatter index computed with true division (float) instead of //
    "scatter-add-float-index": case(_pair_index_by_true_division, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # a TTS length regulator repeating by float durations
    "repeat-interleave-float-durations": case(_length_regulator_float_durations, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave no_kernel [f32] (high confidence). The 'not implemented for Float' wording was read as a missing float kernel, but repeat_interleave's repeats must be integer counts, so its upcast-to-float32 fix is wrong."),
    # class frequencies counted from float labels
    "bincount-float-labels": case(_bincount_of_float_labels, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave no_kernel [f32] (high confidence). The 'not implemented for Float' wording was read as a missing float kernel, but bincount counts integer labels, so its upcast-to-float32 fix is wrong."),
    # bincount's int64 counts normalised in place into frequencies
    "counts-divided-in-place": case(_normalise_counts_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # argmax results (int64) used in float statistics
    "quantile-of-argmax": case(_median_predicted_class, "integer_operand", grade="wrong", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave no_kernel [] (low confidence). quantile's 'must be either float or double' was read as a missing kernel; its culprit mentions integer tensors and its x.float() fix works, but the cause is an integer (argmax) operand."),
    # accuracy as the mean of a bool comparison
    "accuracy-bool-mean": case(_accuracy_from_comparison, "integer_operand", "bool", grade="correct", grade_at_freeze="correct"),
    # a legacy uint8 keep-mask from numpy used to select
    "masked-select-uint8-mask": case(_legacy_uint8_mask_select, "mask_dtype", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. masked_select's 'expected BoolTensor for mask' is not a wording it reads."),
    # the tokenizer's int64 attention mask used as torch.where's condition
    "where-int-attention-mask": case(_tokenizer_mask_as_condition, "mask_dtype", "int64", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. torch.where's 'expected condition to be a boolean tensor' is not a wording it reads."),
    # the tokenizer's int64 padding mask given to MultiheadAttention
    "mha-int-key-padding-mask": case(_tokenizer_mask_as_key_padding, "mask_dtype", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. MultiheadAttention's AssertionError 'only bool and floating types of key_padding_mask are supported' is not a wording it reads."),
    # an additive float64 padding mask from numpy given to a bf16 MultiheadAttention
    "mha-f64-key-padding-mask-bf16": case(_numpy_float_key_padding_in_bf16, "attn_mask_dtype", "f64", "bf16", grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave batched_matmul_dtype [f64, bf16, bf16] (high confidence). The error comes from the baddbmm that adds the mask inside MultiheadAttention, so the op was read and not the mask's role: its fix converts to float32 or the model to float64 instead of casting the mask to the query's dtype."),
    # an extended attention mask built as (1 - mask) from a bool mask
    "extended-mask-from-bool": case(_extended_mask_from_bool, "mask_dtype", "bool", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. torch's 'Subtraction ... with a bool tensor is not supported' is not a wording it reads."),
    # a regression loss given a bool target
    "l1-loss-bool-target": case(_regression_on_bool_target, "target_dtype", "bool", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. torch's 'Subtraction ... with a bool tensor is not supported', raised inside the loss, is not a wording it reads."),
    # a causal mask built with a -1e9 fill directly in fp16
    "causal-mask-full-f16": case(_causal_mask_filled_in_half, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # a Python list of labels up to 300 put into uint8
    "labels-list-uint8-overflow": case(_labels_list_in_uint8, "half_overflow", "uint8", grade="correct", grade_at_freeze="correct"),
    # an fp8 weight dequantised by multiplying with an fp32 scale
    "fp8-weight-times-f32-scale": case(_fp8_weight_times_scale, "fp8_promotion", "float8_e4m3fn", "f32", grade="correct", grade_at_freeze="correct"),
    # e4m3 activations and e5m2 gradients concatenated
    "fp8-e4m3-e5m2-cat": case(_fp8_two_formats, "fp8_promotion", "float8_e4m3fn", "float8_e5m2", grade="correct", grade_at_freeze="correct"),
    # an fp8 tensor's amax computed on the CPU for rescaling
    "fp8-amax-cpu": case(_fp8_amax_on_cpu, "no_kernel", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # a GNN's fp32 sparse adjacency multiplied with bf16 node features
    "sparse-adjacency-bf16-features": case(_sparse_adjacency_bf16_features, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # rotary frequencies turned complex with torch.polar in bf16
    "rotary-polar-bf16": case(_rotary_polar_in_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave scalar_type [f16, f32, f64, bf16] (low confidence). polar's 'Expected both inputs to be Half, Float or Double tensors but got BFloat16 and BFloat16' lists the dtypes it accepts, which were read as dtypes meeting in one op rather than bf16 having no kernel."),
    # a quantized activation sent to a float Linear head without dequantising
    "quantized-into-float-linear": case(_quantized_activation_into_float_head, "matmul_dtype", "f32",
                                        fix=("dequantize",), grade="correct", grade_at_freeze="partly",
        why="At freeze (91069b4) castwise gave matmul_dtype [f32] (high confidence). The kind is right, but QUInt8 was not read as a quantized tensor, so the fix casts dtypes instead of calling dequantize() (or a DeQuantStub)."),
    # a float input sent to a quantized Linear without quantising it
    "float-into-quantized-linear": case(_float_input_into_quantized_linear, "no_kernel", fix=("quantize",), grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. 'Could not run quantized::linear with arguments from the CPU backend' (a float tensor reaching a quantized op) is not a wording it reads."),
    # a quantized tensor exported with .numpy()
    "quantized-to-numpy": case(_quantized_tensor_to_numpy, "numpy_dtype", grade="correct", grade_at_freeze="correct"),
    # a model built on the meta device moved with .to("cpu")
    "meta-model-to-cpu": case(_meta_model_moved_to_cpu, "device_mismatch", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. 'Cannot copy out of meta tensor; no data!' is not read as a device problem."),
    # a non-persistent buffer stays on meta after load_state_dict(assign=True)
    "meta-buffer-after-assign": case(_non_persistent_buffer_left_on_meta, "device_mismatch", grade="correct", grade_at_freeze="correct"),
    # an fp16 checkpoint loaded with assign=True leaves the conv in fp16
    "half-checkpoint-assign-conv": case(_half_checkpoint_loaded_with_assign, "conv_weight_dtype", "f32", "f16", grade="correct", grade_at_freeze="correct"),
    # a bf16 checkpoint assigned into a meta-built model, fed fp32 inputs
    "bf16-checkpoint-into-meta-model": case(_bf16_checkpoint_into_meta_model, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # an fp32 checkpoint loaded into a model halved earlier keeps it in fp16
    "fp32-checkpoint-into-halved-model": case(_fp32_checkpoint_into_halved_model, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
}
