"""Held-out live set 10: deployment, export and model optimisation on the CPU (tracing, export, quantization, folding,
model surgery, checkpointing, offload). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at f0752d3."""

from __future__ import annotations

import os
import tempfile

import torch
import torch.nn.functional as F
from torch import nn
from torch.ao.quantization import get_default_qat_qconfig, prepare_qat, quantize_dynamic
from torch.ao.quantization.stubs import DeQuantStub, QuantStub
from torch.utils.checkpoint import checkpoint

from .live_cases import LiveCase, case

FROZEN_AT = "f0752d3"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


# --- TorchScript and torch.export ------------------------------------------------------------------------------------

class _PositionalMLP(nn.Module):
    """Adds integer positions in the input's dtype before a projection."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(x.shape[1], dtype=x.dtype)[None, :, None]
        return self.proj(x + positions)


def _trace_in_fp32_then_cast() -> None:
    torch.manual_seed(0)
    traced = torch.jit.trace(_PositionalMLP().eval(), torch.randn(2, 4, 8))  # example input in fp32
    traced = traced.to(bf16)  # serve in bf16
    traced(torch.randn(2, 4, 8, dtype=bf16))


class _NormalisedStem(nn.Module):
    """ImageNet normalisation kept in plain tensor attributes, then a stem conv."""

    def __init__(self) -> None:
        super().__init__()
        self.mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
        self.stem = nn.Conv2d(3, 8, 3, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.stem((x - self.mean) / self.std)


def _traced_stem_halved() -> None:
    torch.manual_seed(0)
    traced = torch.jit.trace(_NormalisedStem().eval(), torch.rand(1, 3, 16, 16))
    traced.half()
    traced(torch.rand(1, 3, 16, 16).half())


def _scripted_model_loaded_and_halved() -> None:
    torch.manual_seed(0)
    scripted = torch.jit.script(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).eval())
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.pt")
        scripted.save(path)
        served = torch.jit.load(path).half()  # halved at load time for serving
    request = torch.tensor([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]])  # JSON payload, default dtype
    served(request)


def _frozen_then_cast() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU()).eval()
    frozen = torch.jit.freeze(torch.jit.script(model))  # conv-bn folded into constants
    frozen = frozen.to(bf16)
    frozen(torch.rand(1, 3, 16, 16, dtype=bf16))


class _Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(16, 16)
        self.out = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(F.relu(self.hidden(x)))


def _exported_program_run_in_bf16() -> None:
    torch.manual_seed(0)
    program = torch.export.export(_Classifier().eval(), (torch.randn(2, 16),))
    runner = program.module()
    features = torch.randn(2, 16).to(bf16)  # the upstream encoder now emits bf16
    runner(features)


# --- quantization ----------------------------------------------------------------------------------------------------

def _fp16_dynamic_quantized_fed_half() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).eval()
    model = quantize_dynamic(model, {nn.Linear}, dtype=torch.float16)  # "an fp16 model"
    model(torch.randn(2, 16).half())


def _dynamic_quantized_lstm_bf16_features() -> None:
    torch.manual_seed(0)
    frontend = nn.Sequential(nn.Linear(12, 16), nn.GELU()).to(bf16)
    decoder = quantize_dynamic(nn.LSTM(16, 16), {nn.LSTM}, dtype=torch.qint8)
    decoder(frontend(torch.randn(5, 2, 12, dtype=bf16)))


def _qat_model_cast_to_bf16() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(QuantStub(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4), DeQuantStub()).train()
    model.qconfig = get_default_qat_qconfig("x86")
    prepare_qat(model, inplace=True)
    model.to(bf16)  # QAT fine-tuning in bf16 to go faster
    model(torch.randn(8, 16, dtype=bf16))


def _per_channel_int8_export_of_bf16_weights() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(16, 8).to(bf16)  # the released checkpoint is bf16
    weight = layer.weight.detach()
    scales = weight.abs().amax(dim=1).float() / 127
    zero_points = torch.zeros(8, dtype=torch.long)
    torch.quantize_per_channel(weight, scales, zero_points, 0, torch.qint8)


def _fake_quant_zero_points_long() -> None:
    torch.manual_seed(0)
    weight = torch.randn(8, 16)
    low, high = weight.amin(dim=1), weight.amax(dim=1)
    scale = (high - low) / 255
    zero_point = torch.round(-128 - low / scale).long()
    torch.fake_quantize_per_channel_affine(weight, scale, zero_point, 0, -128, 127)


def _quantized_activations_offloaded_into_layer_norm() -> None:
    torch.manual_seed(0)
    hidden = torch.randn(2, 16)
    stored = torch.quantize_per_tensor(hidden, 0.05, 128, torch.quint8)  # activation offloaded in 8 bits
    next_stage = nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 16))
    next_stage(stored)


def _dequantized_into_bf16_head() -> None:
    torch.manual_seed(0)
    features = torch.randn(1, 8, 6, 6).to(bf16)
    scale = features.abs().amax().item() / 127
    packed = torch.quantize_per_tensor(features.float(), scale, 0, torch.qint8)  # shipped between stages
    head = nn.Conv2d(8, 4, 1, bias=False).to(bf16)
    head(packed.dequantize())


def _int8_output_checked_with_allclose() -> None:
    torch.manual_seed(0)
    reference = torch.randn(4, 8)
    scale = reference.abs().amax().item() / 127
    exported = torch.quantize_per_tensor(reference, scale, 0, torch.qint8)
    torch.allclose(exported.int_repr(), reference, atol=scale)


def _calibration_histogram_accumulated_in_long() -> None:
    torch.manual_seed(0)
    counts = torch.zeros(64, dtype=torch.long)
    for _ in range(3):
        activations = torch.randn(256)
        counts += torch.histc(activations, bins=64, min=-4.0, max=4.0)


# --- folding, pruning and model surgery -----------------------------------------------------------------------------

def _batchnorm_folded_into_bf16_conv() -> None:
    torch.manual_seed(0)
    conv = nn.Conv2d(3, 8, 3, bias=False).to(bf16)
    bn = nn.BatchNorm2d(8).eval()  # norms kept in fp32
    with torch.no_grad():
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        conv.weight.mul_(scale.view(-1, 1, 1, 1))
    conv.bias = nn.Parameter(bn.bias - bn.running_mean * scale)
    conv(torch.rand(1, 3, 16, 16, dtype=bf16))


def _pruning_with_float_keep_mask() -> None:
    weight = torch.arange(32, dtype=torch.float32).view(8, 4) / 10
    keep = (weight.norm(dim=1) > 2.0).float()  # made to multiply the weight during fine-tuning
    weight = weight * keep[:, None]
    weight[keep]


def _pruning_mask_exported_as_uint8() -> None:
    weight = torch.arange(16, dtype=torch.float32).view(4, 4)
    mask = (weight.abs() > 5).to(torch.uint8)  # stored as bytes in the export
    weight.masked_fill(~mask, 0.0)


def _vocab_resized_after_cast() -> None:
    torch.manual_seed(0)
    old = nn.Embedding(10, 4).to(bf16)
    new = nn.Embedding(12, 4)  # two added special tokens
    kept = torch.arange(10)
    new.weight.data[kept] = old.weight.data[kept]


class _TiedLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(32, 16)
        self.body = nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 16), nn.GELU())
        self.lm_head = nn.Linear(16, 32, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        hidden = self.body(self.embed(ids))
        return self.lm_head(hidden.to(self.lm_head.weight.dtype))


def _tied_head_cast_alone() -> None:
    torch.manual_seed(0)
    model = _TiedLM()
    model.lm_head.to(bf16)  # only the biggest matmul in bf16
    model(torch.tensor([[1, 5, 7]]))


def _cosine_attention_swapped_in_after_cast() -> None:
    torch.manual_seed(0)
    q_proj = nn.Linear(16, 16).to(bf16)
    k_proj = nn.Linear(16, 16).to(bf16)
    logit_scale = nn.Parameter(torch.log(10 * torch.ones(1, 1, 1)))  # new layer's parameter, made after the cast
    x = torch.randn(2, 5, 16, dtype=bf16)
    q = F.normalize(q_proj(x), dim=-1) * logit_scale.exp()
    k = F.normalize(k_proj(x), dim=-1)
    torch.bmm(q, k.transpose(1, 2))


def _tf_same_padding_in_fp16() -> None:
    torch.manual_seed(0)
    x = torch.randn(1, 8, 7, 7).half()
    x = F.pad(x, (0, 1, 0, 1), value=-1e9)  # ported TF "SAME" max-pool padding
    F.max_pool2d(x, 3, 2)


def _soup_of_fp16_and_fp32_checkpoints() -> None:
    torch.manual_seed(0)
    fine_tuned = nn.Linear(8, 8).half().state_dict()
    base = nn.Linear(8, 8).state_dict()
    {name: torch.lerp(base[name], fine_tuned[name], 0.5) for name in base}


def _fp8_export_biases_too() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(16, 8).to(bf16)
    exported = {name: tensor.detach().to(E4M3) for name, tensor in layer.state_dict().items()}
    x = torch.randn(2, 16, dtype=bf16)
    weight = exported["weight"].to(bf16)  # the runtime dequantizes weights only
    F.linear(x, weight) + exported["bias"]


def _channels_last_half_input_for_bf16_model() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.ReLU()).to(bf16, memory_format=torch.channels_last)
    images = torch.rand(2, 3, 16, 16).to(memory_format=torch.channels_last, dtype=torch.half)  # from a CUDA recipe
    model(images)


# --- checkpointing, activation memory and offload -------------------------------------------------------------------

class _Tower(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(32, 16)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 16), nn.GELU()) for _ in range(2))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        hidden = self.embed(ids)
        for block in self.blocks:
            hidden = hidden + checkpoint(block, hidden, use_reentrant=False)
        return hidden


def _checkpointed_bf16_blocks_fp32_embedding() -> None:
    torch.manual_seed(0)
    tower = _Tower()
    tower.blocks.to(bf16)  # embedding kept in fp32
    tower(torch.tensor([[1, 2, 3]]))


def _saved_activations_packed_in_bf16() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor.to(bf16) if tensor.is_floating_point() else tensor

    def unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = model(torch.randn(4, 16)).pow(2).mean()
    loss.backward()


def _saved_activations_packed_in_fp8() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    labels = torch.tensor([0, 1, 2, 3])
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.to(E4M3) if t.is_floating_point() else t,
                                                  lambda t: t):
        loss = F.cross_entropy(model(torch.randn(4, 16)), labels)
    loss.backward()


def _offloaded_gru_kept_fp32() -> None:
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh()).to(bf16)
    decoder = nn.GRU(16, 16, batch_first=True)  # offloaded to the CPU, left in fp32

    def to_cpu(module: nn.Module, args: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
        return tuple(arg.to("cpu") for arg in args)

    decoder.register_forward_pre_hook(to_cpu)
    decoder(encoder(torch.randn(2, 5, 8, dtype=bf16)))


def _kv_cache_offloaded_in_fp16() -> None:
    torch.manual_seed(0)
    qkv = nn.Linear(16, 48).to(bf16)
    x = torch.randn(1, 6, 16, dtype=bf16)
    q, k, v = qkv(x).view(1, 6, 3, 2, 8).permute(2, 0, 3, 1, 4)
    cache = {"k": k.to("cpu", torch.float16), "v": v.to("cpu", torch.float16)}  # offloaded, halved to save memory
    F.scaled_dot_product_attention(q, cache["k"], cache["v"], is_causal=True)


def _offloaded_fp32_master_gets_bf16_grads() -> None:
    torch.manual_seed(0)
    model = nn.Linear(8, 4).to(bf16)
    master = [p.detach().float().clone().requires_grad_() for p in model.parameters()]  # fp32 copy on the CPU
    model(torch.randn(2, 8, dtype=bf16)).float().pow(2).mean().backward()
    for copy, param in zip(master, model.parameters(), strict=True):
        copy.grad = param.grad


CASES: dict[str, LiveCase] = {
    # a model traced with fp32 example inputs (dtype=x.dtype baked as fp32 in the graph) then cast to bf16 for serving
    "trace-fp32-example-then-bf16": case(_trace_in_fp32_then_cast, "matmul_dtype", "f32", "bf16", fix=("trac",),
        grade="correct", grade_at_freeze="partly",
        why="At freeze (f0752d3) castwise gave matmul_dtype [f32, bf16] (high confidence). Kind and dtypes right, but nothing says the f32 came from the trace: torch.jit.trace baked the fp32 example input's dtype (`dtype=x.dtype`) into the graph, so the fix is to trace again after the cast with bf16 example inputs, not to cast an operand."),
    # a traced stem whose mean/std are plain tensor attributes (not buffers), halved after tracing
    "traced-stem-plain-attribute-halved": case(_traced_stem_halved, "conv_weight_dtype", "f32", "f16",
                                               fix=("buffer",),
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave scalar_type [f32, f16] (low confidence). The bare 'expected scalar type Float but found Half' is this CPU's wording for a convolution with an f32 input and an f16 weight; the traced module's error carries the recorded trace stack (the stem conv), which was not read as the convolution, and nothing says the f32 came from mean/std kept as plain attributes that .half() does not cast (buffers would be)."),
    # a TorchScript model saved, loaded with torch.jit.load and halved, fed an fp32 request
    "jit-load-halved-fp32-request": case(_scripted_model_loaded_and_halved, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a conv-bn model frozen with torch.jit.freeze (weights folded into constants), cast to bf16 after freezing
    "jit-freeze-then-bf16": case(_frozen_then_cast, "conv_bias_dtype", "bf16", "f32", fix=("freez",),
        grade="correct", grade_at_freeze="partly",
        why='At freeze (f0752d3) castwise gave conv_bias_dtype [bf16, f32] (high confidence). Kind and dtypes right, but the fix casts an operand: torch.jit.freeze turned the folded weights and biases into constants that .to() does not touch, so the module must be cast before freezing.'),
    # a torch.export program traced with fp32 inputs run on bf16 features
    "exported-program-bf16-features": case(_exported_program_run_in_bf16, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 dynamic quantization (fp16 weights, fp32 activations) fed halved activations
    "fp16-dynamic-quant-half-input": case(_fp16_dynamic_quantized_fed_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave matmul_dtype [f32, f16] (high confidence). The error comes from the fp16 dynamic-quantized linear, which has a kernel for fp32 activations only (its weights are stored fp16); it was read as two floats meeting in a matmul, whose fix (cast the input to the weight's dtype) keeps the f16 input the op cannot take."),
    # a dynamically quantized int8 LSTM decoder fed a bf16 front end's features
    "dynamic-quant-lstm-bf16-features": case(_dynamic_quantized_lstm_bf16_features, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a QAT-prepared model cast to bf16: the fake-quant observers get bf16
    "qat-prepared-cast-bf16": case(_qat_model_cast_to_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave scalar_type [f32, bf16] (low confidence). The error is raised in torch.fused_moving_avg_obs_fake_quant (QAT's FakeQuantize), which runs in fp32 only; the frames naming it were not read, so the generic mixed-dtype reading came instead of no bf16 kernel (keep the QAT model in fp32)."),
    # a bf16 checkpoint's weights quantized per channel to int8 for a runtime, without going through fp32
    "per-channel-int8-export-bf16": case(_per_channel_int8_export_of_bf16_weights, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (f0752d3) castwise gave nothing. 'quantize_tensor_per_channel_affine expects a Float Tensor, got BFloat16' is a wording it does not read: torch.quantize_per_channel takes fp32 weights only, so the bf16 checkpoint must go through .float() first."),
    # asymmetric per-channel fake quant with zero points rounded to int64
    "fake-quant-zero-point-long": case(_fake_quant_zero_points_long, "integer_operand", "int64", fix=("int32",),
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (f0752d3) castwise gave nothing. 'Zero-point must be Int32, Float or Half, found Long' (fake_quantize_per_channel_affine) is a wording it does not read: zero points rounded with .long() must be int32."),
    # activations offloaded as quint8 handed to the next float stage without dequantizing
    "quantized-activation-into-layer-norm": case(_quantized_activations_offloaded_into_layer_norm, "no_kernel",
                                                 fix=("dequant",),
        grade="correct", grade_at_freeze="correct"),
    # int8-shipped bf16 features dequantized (fp32) into a bf16 conv head
    "dequantized-fp32-into-bf16-head": case(_dequantized_into_bf16_head, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an int8 export checked against the float reference with allclose on its int_repr
    "allclose-int-repr-vs-float": case(_int8_output_checked_with_allclose, "integer_operand", "int8", "f32",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (f0752d3) castwise gave nothing. 'Char did not match Float' from torch.allclose is a wording it does not read: the int8 int_repr was compared with the float reference instead of the dequantized output."),
    # calibration histograms accumulated into an int64 buffer from histc's float counts
    "calibration-histogram-long-accumulator": case(_calibration_histogram_accumulated_in_long, "result_cast", "f32",
                                                   "int64",
        grade="correct", grade_at_freeze="correct"),
    # BatchNorm (kept fp32) folded by hand into a bias-less bf16 conv: the new bias is fp32
    "bn-folded-into-bf16-conv-bias-fp32": case(_batchnorm_folded_into_bf16_conv, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # structured pruning: the float keep-mask made for multiplying reused to select the kept rows
    "pruning-float-keep-mask-index": case(_pruning_with_float_keep_mask, "index_tensor_dtype", fix=("bool",),
        grade="correct", grade_at_freeze="partly",
        why='At freeze (f0752d3) castwise gave index_tensor_dtype [] (high confidence). Kind right, but the fix says to make the indices long: a 0/1 float keep-mask turned long would pick rows 0 and 1; the mask must become bool.'),
    # a pruning mask exported as uint8, inverted with ~ and applied with masked_fill
    "pruning-mask-uint8-masked-fill": case(_pruning_mask_exported_as_uint8, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # vocabulary resized after the cast: an fp32 embedding given the bf16 rows by advanced indexing
    "vocab-resize-rows-bf16-into-fp32": case(_vocab_resized_after_cast, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # only the lm_head cast to bf16, which also casts the tied input embedding feeding the fp32 body
    "tied-lm-head-cast-alone": case(_tied_head_cast_alone, "matmul_dtype", "bf16", "f32", culprit=("tie",),
        grade="correct", grade_at_freeze="partly",
        why='At freeze (f0752d3) castwise gave matmul_dtype [bf16, f32] (high confidence). Kind and dtypes right, but nothing says the bf16 came from the input embedding tied to the lm_head, which casting the head alone cast too.'),
    # a cosine attention swapped in after the cast, its learnable logit scale made in fp32
    "cosine-attention-logit-scale-fp32": case(_cosine_attention_swapped_in_after_cast, "batched_matmul_dtype", "f32",
                                              "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a TF-ported "SAME" max-pool padding with -1e9 in an fp16 export
    "tf-same-pad-minus-1e9-fp16": case(_tf_same_padding_in_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a model soup averaging an fp16 fine-tuned checkpoint with the fp32 base through lerp
    "model-soup-lerp-fp16-fp32": case(_soup_of_fp16_and_fp32_checkpoints, "lerp_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # an fp8 export of every tensor, biases too, whose runtime dequantizes only the weights
    "fp8-export-bias-not-dequantized": case(_fp8_export_biases_too, "fp8_promotion", "bf16", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # a channels_last conversion copied from a CUDA fp16 recipe, for a bf16 model
    "channels-last-half-images-bf16-model": case(_channels_last_half_input_for_bf16_model, "conv_weight_dtype",
                                                 "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # activation checkpointing around bf16 blocks while the embedding feeding them stays fp32
    "checkpointed-bf16-blocks-fp32-embedding": case(_checkpointed_bf16_blocks_fp32_embedding, "norm_param_dtype",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # activation memory saved by packing saved tensors in bf16, never cast back when unpacked
    "saved-tensors-packed-bf16": case(_saved_activations_packed_in_bf16, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # saved tensors packed in fp8 and unpacked as they are: the loss's backward runs on an fp8 saved tensor
    "saved-tensors-packed-fp8": case(_saved_activations_packed_in_fp8, "no_kernel", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # a GRU decoder offloaded to the CPU in fp32 by a hook that moves inputs' device but not their dtype
    "offloaded-gru-fp32-bf16-inputs": case(_offloaded_gru_kept_fp32, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a KV cache offloaded in fp16 to save memory, attended by bf16 queries
    "kv-cache-offloaded-fp16": case(_kv_cache_offloaded_in_fp16, "sdpa_dtype", "bf16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # ZeRO-offload style fp32 master weights on the CPU handed the bf16 model's gradients
    "offload-master-weights-bf16-grads": case(_offloaded_fp32_master_gets_bf16_grads, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
