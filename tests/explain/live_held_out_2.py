"""Held-out live set 2: torch ops and nn modules beyond the team's live cases (transposed and 1-d convolutions,
einsum, RNN variants, attention masks, scatter/gather, pooling, interpolation, distributions, linalg, fft). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
91069b4."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from .live_cases import LiveCase, case

FROZEN_AT = "91069b4"

bf16, f16 = torch.bfloat16, torch.float16


def _unet_decoder_upsample() -> None:
    up = nn.ConvTranspose2d(8, 4, 2, stride=2, bias=False)
    skip_features = torch.randn(1, 8, 4, 4).to(bf16)  # the encoder ran in bf16, the decoder was never cast
    up(skip_features)


def _audio_frontend_half_module() -> None:
    frontend = nn.Conv1d(1, 8, 9, stride=4, bias=False).half()
    waveform = torch.randn(2, 1, 400)  # the loader still yields float32 audio
    frontend(waveform)


def _transposed_conv_weight_cast_bias_not() -> None:
    layer = nn.ConvTranspose2d(4, 2, 2, stride=2)
    x = torch.randn(1, 4, 4, 4).to(bf16)
    F.conv_transpose2d(x, layer.weight.to(bf16), layer.bias, stride=2)  # only the weight was cast


def _decoder_on_half_encoder_memory() -> None:
    torch.manual_seed(0)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 1,
                                    enable_nested_tensor=False).half()
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 1)
    memory = encoder(torch.randn(1, 6, 8).half())
    decoder(torch.randn(1, 4, 8), memory)


def _einsum_attention_scores() -> None:
    q = torch.randn(1, 2, 4, 8).to(bf16)
    k_cache = torch.zeros(1, 2, 4, 8)  # the key cache was allocated with the default dtype
    torch.einsum("bhqd,bhkd->bhqk", q, k_cache)


def _gru_with_fresh_hidden_state() -> None:
    gru = nn.GRU(4, 3, batch_first=True).to(bf16)
    x = torch.randn(2, 5, 4).to(bf16)
    h0 = torch.zeros(1, 2, 3)  # built with the default dtype
    gru(x, h0)


def _packed_lstm_bf16_batch() -> None:
    lstm = nn.LSTM(4, 3, batch_first=True)
    padded = torch.randn(2, 5, 4).to(bf16)
    lstm(pack_padded_sequence(padded, torch.tensor([5, 3]), batch_first=True))


def _multihead_attention_causal_mask() -> None:
    attention = nn.MultiheadAttention(8, 2, batch_first=True).to(bf16)
    x = torch.randn(1, 4, 8).to(bf16)
    attention(x, x, x, attn_mask=nn.Transformer.generate_square_subsequent_mask(4))


def _encoder_layer_inference_bf16_input() -> None:
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()
    with torch.no_grad():
        layer(torch.randn(1, 4, 8).to(bf16))


def _batchnorm_checkpoint_with_half_buffers() -> None:
    bn = nn.BatchNorm2d(3)
    shrunk = {key: value.half() if key.startswith("running_") else value for key, value in bn.state_dict().items()}
    bn.load_state_dict(shrunk, assign=True)
    bn.eval()(torch.randn(2, 3, 4, 4))


def _gnn_mean_aggregation() -> None:
    messages = torch.randn(6, 4).to(bf16)
    destination = torch.tensor([0, 1, 2, 0, 1, 2])
    torch.zeros(3, 4).scatter_reduce(0, destination[:, None].expand(-1, 4), messages, reduce="mean",
                                     include_self=False)


def _cumsum_into_preallocated_buffer() -> None:
    log_probs = torch.randn(8).log_softmax(0)
    buffer = torch.empty(8)
    torch.cumsum(log_probs, 0, dtype=torch.float64, out=buffer)


def _fp8_kv_cache_append() -> None:
    cache = torch.zeros(1, 2, 4, 8).to(torch.float8_e4m3fn)
    new_keys = torch.randn(1, 2, 1, 8).to(bf16)
    torch.cat([cache, new_keys], dim=2)


def _spatial_transformer_bf16_image() -> None:
    image = torch.randn(1, 3, 8, 8).to(bf16)
    theta = torch.tensor([[[1.0, 0.0, 0.1], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(theta, list(image.shape), align_corners=False)
    F.grid_sample(image, grid, align_corners=False)


def _surface_normals_mixed() -> None:
    vertices = torch.randn(5, 3, 3).to(bf16)
    edge_a = vertices[:, 1] - vertices[:, 0]
    edge_b = torch.randn(5, 3)
    torch.linalg.cross(edge_a, edge_b)


def _segmentation_loss_half_class_weights() -> None:
    class_weights = torch.tensor([0.2, 1.0, 3.0]).half()
    logits = torch.randn(2, 3, 4, 4)
    labels = torch.randint(0, 3, (2, 4, 4))
    F.cross_entropy(logits, labels, weight=class_weights)


def _mixup_lambda_in_bf16() -> None:
    alpha = torch.tensor(0.4).to(bf16)
    torch.distributions.Beta(alpha, alpha).sample()


def _glow_invertible_conv_log_det() -> None:
    weight = torch.linalg.qr(torch.randn(4, 4))[0].half()
    torch.linalg.slogdet(weight)


def _fourier_layer_bf16() -> None:
    field = torch.randn(1, 2, 8, 8).to(bf16)
    torch.fft.rfft2(field)


def _fp8_amax_for_rescaling() -> None:
    activations = torch.randn(4, 8).to(torch.float8_e4m3fn)
    activations.abs().amax()


def _downsample_padding_mask() -> None:
    padding = torch.zeros(2, 16, 16, dtype=torch.bool)
    padding[:, :, 12:] = True
    F.interpolate(padding[None], size=(4, 4))


def _global_pool_on_raw_image() -> None:
    image = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8)
    nn.AdaptiveAvgPool2d(1)(image)


def _patchify_raw_image() -> None:
    image = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8)
    F.unfold(image, kernel_size=4, stride=4)


def _token_usage_histogram() -> None:
    token_ids = torch.randint(0, 10, (32,))
    torch.histc(token_ids, bins=10, min=0, max=9)


def _class_counts_from_float_labels() -> None:
    labels = torch.tensor([0.0, 1.0, 1.0, 2.0])  # read from a CSV column as float
    torch.bincount(labels)


def _beam_search_reorder() -> None:
    vocab = 5
    scores = torch.randn(2, 3 * vocab)
    _, flat = scores.topk(3, dim=1)
    beam = flat / vocab  # true division where floor division was meant
    hidden = torch.randn(2, 3, 7)
    hidden.gather(1, beam.unsqueeze(-1).expand(-1, -1, 7))


def _segnet_unpool_int32_indices() -> None:
    features = torch.randn(1, 2, 4, 4)
    pooled, indices = F.max_pool2d(features, 2, return_indices=True)
    F.max_unpool2d(pooled, indices.int(), 2)  # indices stored as int32 to save memory


def _byte_level_bag_of_bytes() -> None:
    data = torch.tensor([[104, 105], [33, 10]], dtype=torch.uint8)  # raw bytes
    nn.EmbeddingBag(256, 4)(data)


def _where_with_tokenizer_attention_mask() -> None:
    scores = torch.randn(1, 4)
    attention_mask = torch.tensor([[1, 1, 1, 0]])  # a tokenizer's int64 mask
    torch.where(attention_mask, scores, torch.tensor(float("-inf")))


def _encoder_padding_mask_from_tokenizer() -> None:
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 1,
                                    enable_nested_tensor=False)
    attention_mask = torch.tensor([[1, 1, 1, 0]])
    encoder(torch.randn(1, 4, 8), src_key_padding_mask=attention_mask)


def _clamp_positions_to_float_limit() -> None:
    positions = torch.tensor([1, 5, 9])
    limits = torch.tensor([8, 8, 8]) * 0.5
    positions.clamp_(max=limits)


def _multilabel_margin_float_targets() -> None:
    scores = torch.randn(2, 4)
    targets = torch.tensor([[1.0, 2.0, -1.0, 0.0], [3.0, -1.0, 0.0, 0.0]])
    F.multilabel_margin_loss(scores, targets)


def _causal_mask_filled_in_fp16() -> None:
    scores = torch.randn(1, 4, 4).half()
    mask = torch.full((4, 4), -1e9, dtype=scores.dtype).triu(1)
    scores + mask


def _clamp_activations_in_fp16() -> None:
    hidden = torch.randn(2, 8).half()
    hidden.clamp_(min=-1e5, max=1e5)


def _policy_from_overflowed_logits() -> None:
    logits = torch.tensor([[300.0, 1.0, 2.0]]).half()
    probs = logits.exp()  # inf in fp16
    torch.distributions.Categorical(probs=probs / probs.sum(-1, keepdim=True))


CASES: dict[str, LiveCase] = {
    # a U-Net decoder's ConvTranspose2d left in fp32 gets bf16 skip features
    "conv-transpose-decoder-bf16": case(
        _unet_decoder_upsample, "conv_weight_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # an audio front end's Conv1d was .half()'d but the waveform is still fp32
    "conv1d-audio-half-module": case(
        _audio_frontend_half_module, "conv_weight_dtype", "f32", "f16", grade="correct", grade_at_freeze="correct"),
    # a custom layer casts the transposed conv's weight to bf16 and passes the fp32 bias as is
    "conv-transpose-bias-f32": case(
        _transposed_conv_weight_cast_bias_not, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a seq2seq model runs its encoder in fp16 and feeds the memory to an fp32 decoder
    "decoder-memory-f16": case(
        _decoder_on_half_encoder_memory, "matmul_dtype", "f16", "f32", grade="correct", grade_at_freeze="correct"),
    # attention scores by einsum between bf16 queries and an fp32 key cache
    "einsum-attention-scores": case(
        _einsum_attention_scores, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (91069b4) castwise gave matmul_dtype [bf16, f32] (high confidence). einsum's line names no"
             " op and was read as a 2-D matrix multiply, not the batched contraction (bhqd,bhkd->bhqk) einsum runs"
             " here."
             " Expectation corrected after grading from batched_matmul_dtype to matmul_dtype, the corpus's convention"
             " for an `@` or einsum frame (held_out_2 swin-yolov5-3's `attn @ v`, pykan-105's einsum); the frozen"
             " grade stays wrong.")),
    # a bf16 GRU given an initial hidden state built with the default dtype
    "gru-h0-f32": case(
        _gru_with_fresh_hidden_state, "rnn_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # an fp32 LSTM fed a packed sequence of bf16 features
    "packed-lstm-bf16": case(
        _packed_lstm_bf16_batch, "rnn_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a bf16 MultiheadAttention given generate_square_subsequent_mask's fp32 causal mask
    "mha-causal-mask-f32": case(
        _multihead_attention_causal_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (91069b4) castwise gave batched_matmul_dtype [f32, bf16, bf16] (high confidence). The "
             "baddbmm line MultiheadAttention raises when it adds the mask was read as mismatched matmul operands,"
             " not as the fp32 attention mask (the `input` it names) in a bf16 model.")),
    # an fp32 encoder layer served under no_grad (fast path) with bf16 inputs
    "encoder-layer-fastpath-bf16-input": case(
        _encoder_layer_inference_bf16_input, "transformer_fastpath", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a checkpoint shrunk by storing BatchNorm running stats in fp16, loaded with assign=True
    "batchnorm-half-running-stats": case(
        _batchnorm_checkpoint_with_half_buffers, "norm_param_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a GNN aggregates bf16 messages into an fp32 accumulator with scatter_reduce
    "scatter-reduce-gnn-bf16": case(
        _gnn_mean_aggregation, "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # cumsum asked for float64 but written into a preallocated float32 buffer
    "cumsum-dtype-out": case(
        _cumsum_into_preallocated_buffer, "indexed_write_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # new bf16 keys appended to an fp8 KV cache with cat
    "kv-cache-cat-fp8": case(
        _fp8_kv_cache_append, "fp8_promotion", "float8_e4m3fn", "bf16", grade="correct", grade_at_freeze="correct"),
    # a spatial transformer samples a bf16 image with affine_grid's fp32 grid
    "grid-sample-bf16": case(
        _spatial_transformer_bf16_image, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (91069b4) castwise gave scalar_type [bf16, f32] (low confidence). The generic \"expected "
             "scalar type\" line names no op, and the grid_sample call that raised it was not named.")),
    # surface normals from a bf16 edge and an fp32 edge
    "linalg-cross-bf16": case(
        _surface_normals_mixed, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (91069b4) castwise gave scalar_type [bf16, f32] (low confidence). The generic \"expected "
             "scalar type\" line names no op, and linalg.cross, called straight from user code, leaves no torch "
             "frame to name it.")),
    # class weights for a segmentation loss stored in fp16, logits in fp32
    "cross-entropy-class-weight-f16": case(
        _segmentation_loss_half_class_weights, "op_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (91069b4) castwise gave scalar_type [f32, f16] (low confidence). The generic \"expected "
             "scalar type\" line names no op, and the loss whose class weights were fp16 was not named.")),
    # mixup draws its lambda from a Beta with bf16 concentration
    "beta-mixup-bf16": case(_mixup_lambda_in_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a Glow invertible 1x1 conv's log-determinant computed on an fp16 weight
    "slogdet-glow-half": case(
        _glow_invertible_conv_log_det, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # a Fourier neural operator layer run in bf16
    "rfft2-fno-bf16": case(_fourier_layer_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # the amax of fp8 activations computed directly on the fp8 tensor
    "fp8-amax": case(_fp8_amax_for_rescaling, "no_kernel", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # a bool padding mask resized with interpolate to a feature map's size
    "interpolate-bool-mask": case(
        _downsample_padding_mask, "integer_operand", "bool", grade="correct", grade_at_freeze="correct"),
    # a raw uint8 image fed straight to a global average pool
    "adaptive-avgpool-uint8": case(
        _global_pool_on_raw_image, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # a ViT patchify with unfold on a raw uint8 image
    "unfold-uint8-patches": case(
        _patchify_raw_image, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # a token usage histogram with histc over int64 token ids
    "histc-token-ids": case(
        _token_usage_histogram, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # class counts with bincount over labels read as float
    "bincount-float-labels": case(
        _class_counts_from_float_labels, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (91069b4) castwise gave no_kernel [f32] (high confidence). \"not implemented for 'Float'\" "
             "was read as a missing kernel, but float32 is no low-precision dtype: bincount needs integer input "
             "and the labels were float.")),
    # beam search reorders hidden states with indices from a true division
    "gather-beam-true-division": case(
        _beam_search_reorder, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # SegNet keeps its max-pool indices as int32 and unpools with them
    "max-unpool-int32-indices": case(
        _segnet_unpool_int32_indices, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (91069b4) castwise gave nothing. max_unpool's \"elements in indices should be type int64 "
             "but got: Int\" wording is not recognised.")),
    # a byte-level model passes raw uint8 bytes to EmbeddingBag
    "embedding-bag-uint8-bytes": case(
        _byte_level_bag_of_bytes, "index_tensor_dtype", "uint8", grade="correct", grade_at_freeze="correct"),
    # a tokenizer's int64 attention mask used as torch.where's condition
    "where-attention-mask-long": case(
        _where_with_tokenizer_attention_mask, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (91069b4) castwise gave nothing. torch.where's \"expected condition to be a boolean tensor\""
             " wording is not recognised.")),
    # a tokenizer's int64 attention mask passed as a TransformerEncoder's src_key_padding_mask
    "transformer-padding-mask-long": case(
        _encoder_padding_mask_from_tokenizer, "mask_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (91069b4) castwise gave nothing. The AssertionError \"only bool and floating types of "
             "src_key_padding_mask are supported\" is not recognised.")),
    # int64 positions clamped in place to a float tensor bound
    "clamp-positions-float-bound": case(
        _clamp_positions_to_float_limit, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # multilabel_margin_loss given float class-index targets
    "multilabel-margin-float-target": case(
        _multilabel_margin_float_targets, "target_dtype", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (91069b4) castwise gave index_tensor_dtype [int64, f32] (low confidence). The generic "
             "\"expected scalar type Long but found Float\" line names no op; the float tensor was the loss's "
             "target, not an index.")),
    # a causal mask filled with -1e9 in the fp16 scores' dtype
    "causal-mask-full-f16": case(
        _causal_mask_filled_in_fp16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # fp16 activations clamped to +-1e5
    "clamp-f16-1e5": case(
        _clamp_activations_in_fp16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # a policy's Categorical built from probabilities that overflowed to inf in fp16
    "categorical-nan-probs": case(
        _policy_from_overflowed_logits, "nonfinite",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (91069b4) castwise gave nothing. torch.distributions' ValueError for parameters breaking "
             "their constraint (NaN probabilities after an fp16 overflow) is not recognised as a non-finite value.")),
}
