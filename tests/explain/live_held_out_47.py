"""Held-out live set 47: fp8 from the serving and conversion side (bf16 checkpoints converted to fp8, fp8 state dicts
loaded, fp8 KV caches and paged attention by hand, fp8 weights in embeddings, norms, convs and attention, calibration
and fp8-versus-bf16 evaluation, without an fp8 library). Defects planted by a helper who never read the rules, written
before castwise ran and graded once with the rules frozen at fbe1b73."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrize

from .live_cases import LiveCase, case

FROZEN_AT = "fbe1b73"

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32
E4M3, E5M2, E4M3_FNUZ = torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz
FP8_MAX = 448.0


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _quantize(weight: torch.Tensor, dtype: torch.dtype = E4M3) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-tensor fp8 quantization as a conversion script writes it: the fp8 tensor and its fp32 scale."""
    scale = weight.float().abs().amax().clamp(min=1e-12) / torch.finfo(dtype).max
    return (weight.float() / scale).to(dtype), scale


def _convert_all_floats(module: nn.Module) -> dict[str, torch.Tensor]:
    """The converter's output: every floating tensor of the state dict stored in e4m3fn (scales dropped for brevity)."""
    return {name: _quantize(t)[0] for name, t in module.state_dict().items() if t.is_floating_point()}


# --- fp8 KV caches and paged attention by hand


def _paged_kv_torch_gather_fp8_pool() -> None:
    num_blocks, block, heads, dim = 8, 4, 2, 16
    k_pool = torch.randn(num_blocks * block, heads, dim, generator=_gen()).to(E4M3)
    block_table = torch.tensor([3, 5, 1])
    slots = (block_table[:, None] * block + torch.arange(block)).reshape(-1)
    index = slots[:, None, None].expand(-1, heads, dim)
    torch.gather(k_pool, 0, index)


def _paged_kv_fp16_block_scales_bmm() -> None:
    heads, dim, blocks, block = 4, 16, 3, 4
    q = torch.randn(heads, 1, dim, generator=_gen()).to(bf16)
    k_pool = torch.randn(8, block, heads, dim, generator=_gen()).to(E4M3)
    k_scale = torch.rand(8, generator=_gen()).to(f16)  # per-block scales kept in fp16 by the cache manager
    block_table = torch.tensor([2, 6, 0])
    k = k_pool[block_table].to(bf16) * k_scale[block_table][:, None, None, None]
    k = k.reshape(blocks * block, heads, dim).transpose(0, 1)
    torch.bmm(q, k.transpose(1, 2))


def _kv_cache_e5m2_pool_e4m3_writes() -> None:
    # the cache was allocated from the "fp8_e5m2" config, the write path quantizes with the e4m3fn helper
    cache = torch.zeros(16, 2, 8, dtype=E5M2)
    slot_mapping = torch.tensor([5, 6])
    k_new = torch.randn(2, 2, 8, generator=_gen()).to(bf16)
    cache[slot_mapping] = _quantize(k_new)[0]


def _kv_dequant_helper_defaults_fp16() -> None:
    def dequantize(q: torch.Tensor, scale: torch.Tensor, out_dtype: torch.dtype = f16) -> torch.Tensor:
        return q.to(out_dtype) * scale.to(out_dtype)

    q = torch.randn(1, 2, 1, 8, generator=_gen()).to(bf16)
    k_cache, k_scale = _quantize(torch.randn(1, 2, 6, 8, generator=_gen()))
    v_cache, v_scale = _quantize(torch.randn(1, 2, 6, 8, generator=_gen()))
    F.scaled_dot_product_attention(q, dequantize(k_cache, k_scale), dequantize(v_cache, v_scale))


class _AlibiAttention(nn.Module):
    alibi: torch.Tensor

    def __init__(self, heads: int, length: int) -> None:
        super().__init__()
        slopes = torch.tensor([2.0 ** (-8 * (h + 1) / heads) for h in range(heads)])
        distance = torch.arange(length)[None, :] - torch.arange(length)[:, None]
        self.register_buffer("alibi", (slopes[:, None, None] * distance).tril())

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self.alibi)


def _alibi_bias_buffer_quantized_fp8_sdpa() -> None:
    attention = _AlibiAttention(2, 6)
    attention.load_state_dict(_convert_all_floats(attention), assign=True)
    q, k, v = torch.randn(3, 1, 2, 6, 8, generator=_gen()).to(bf16)
    attention(q, k, v)


def _fp8_attention_all_operands_quantized_sdpa() -> None:
    # "fp8 attention" on the serving path: q, k and v all quantized, hoping SDPA runs in fp8 like FA3
    q, k, v = (_quantize(t)[0] for t in torch.randn(3, 1, 2, 6, 8, generator=_gen()))
    F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _mamba_conv_state_in_fp8_cache() -> None:
    channels, width = 8, 4
    conv_weight = torch.randn(channels, width, generator=_gen()).to(bf16)
    conv_state = torch.zeros(1, channels, width, dtype=E4M3)  # allocated with the engine's kv_cache_dtype
    x = torch.randn(1, channels, generator=_gen()).to(bf16)
    conv_state = conv_state.roll(-1, dims=-1)
    conv_state[:, :, -1] = x
    (conv_state * conv_weight).sum(-1)


# --- fp8 weights in embeddings, norms, convs, recurrent and attention layers


def _embedding_max_norm_fp8_table() -> None:
    embed = nn.Embedding(32, 8, max_norm=1.0)
    embed.load_state_dict(_convert_all_floats(embed), assign=True)
    embed(torch.tensor([[1, 4, 7]]))


class _TiedLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(32, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.norm(self.embed(ids).to(bf16).float()).to(bf16)
        return F.linear(h, self.embed.weight)  # tied lm_head


def _tied_lm_head_fp8_embedding() -> None:
    model = _TiedLM()
    model.embed.weight = nn.Parameter(_quantize(model.embed.weight.detach())[0], requires_grad=False)
    with torch.inference_mode():
        model(torch.tensor([[1, 2, 3]]))


def _rmsnorm_weight_quantized_with_linears() -> None:
    norm = nn.RMSNorm(16)
    norm.load_state_dict(_convert_all_floats(norm), assign=True)
    with torch.inference_mode():
        norm(torch.randn(2, 16, generator=_gen()).to(bf16))


def _batchnorm_running_stats_quantized() -> None:
    block = nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8)).to(bf16).eval()
    state = block.state_dict()
    state["1.running_var"] = _quantize(state["1.running_var"])[0]
    block.load_state_dict(state, assign=True)
    with torch.inference_mode():
        block(torch.randn(1, 3, 8, 8, generator=_gen()).to(bf16))


def _vae_decoder_conv_transpose_fp8() -> None:
    upsample = nn.ConvTranspose2d(4, 4, 2, stride=2, bias=False).to(bf16)
    upsample.weight = nn.Parameter(_quantize(upsample.weight.detach())[0], requires_grad=False)
    with torch.inference_mode():
        upsample(torch.randn(1, 4, 8, 8, generator=_gen()).to(bf16))


def _conv_bias_left_fp8_after_weight_dequant() -> None:
    conv = nn.Conv1d(8, 8, 3, padding=1)
    q_weight, w_scale = _quantize(conv.weight.detach())
    q_bias, _ = _quantize(conv.state_dict()["bias"])
    # the loader dequantizes every tensor that has a "weight_scale" beside it; the bias has none
    conv.weight = nn.Parameter((q_weight.to(bf16) * w_scale.to(bf16)), requires_grad=False)
    conv.bias = nn.Parameter(q_bias, requires_grad=False)
    conv(torch.randn(1, 8, 10, generator=_gen()).to(bf16))


def _w8a8_fp8_conv_both_quantized() -> None:
    weight, _ = _quantize(torch.randn(8, 3, 3, 3, generator=_gen()))
    image, _ = _quantize(torch.randn(1, 3, 8, 8, generator=_gen()))
    F.conv2d(image, weight)


def _lstm_fp8_weights_from_checkpoint() -> None:
    lstm = nn.LSTM(8, 8, batch_first=True)
    lstm.load_state_dict(_convert_all_floats(lstm), assign=True)
    lstm(torch.randn(1, 5, 8, generator=_gen()).to(bf16))


def _mha_in_proj_fp8() -> None:
    mha = nn.MultiheadAttention(8, 2, batch_first=True).to(bf16).eval()
    state = mha.state_dict()
    state["in_proj_weight"] = _quantize(state["in_proj_weight"])[0]
    mha.load_state_dict(state, assign=True)
    x = torch.randn(1, 4, 8, generator=_gen()).to(bf16)
    with torch.inference_mode():
        mha(x, x, x, need_weights=False)


class _Dequantize(nn.Module):
    scale: torch.Tensor

    def __init__(self, scale: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("scale", scale)

    def forward(self, q_weight: torch.Tensor) -> torch.Tensor:
        return q_weight.to(bf16) * self.scale.to(bf16)


def _dequant_parametrization_on_fp8_weight() -> None:
    linear = nn.Linear(8, 8, bias=False)
    q_weight, scale = _quantize(linear.weight.detach())
    linear.weight = nn.Parameter(q_weight, requires_grad=False)
    parametrize.register_parametrization(linear, "weight", _Dequantize(scale))


def _vocoder_weight_norm_fp8() -> None:
    conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(4, 4, 3))
    original0, original1 = conv.parametrizations.weight.original0, conv.parametrizations.weight.original1
    conv.parametrizations.weight.original0 = nn.Parameter(_quantize(original0.detach())[0], requires_grad=False)
    conv.parametrizations.weight.original1 = nn.Parameter(_quantize(original1.detach())[0], requires_grad=False)
    nn.utils.parametrize.remove_parametrizations(conv, "weight")


class _Fp8Linear(nn.Module):
    def __init__(self, q_weight: torch.Tensor, scale: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("q_weight", q_weight)
        self.register_buffer("scale", scale)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.q_weight) * self.scale


def _scripted_fp8_linear_served() -> None:
    q_weight, scale = _quantize(torch.randn(8, 8, generator=_gen()))
    scripted = torch.jit.script(_Fp8Linear(q_weight, scale))
    scripted(torch.randn(2, 8, generator=_gen()).to(bf16))


def _fuse_conv_bn_after_fp8_conversion() -> None:
    conv, bn = nn.Conv2d(3, 8, 3, bias=False).eval(), nn.BatchNorm2d(8).eval()
    conv.weight = nn.Parameter(_quantize(conv.weight.detach())[0], requires_grad=False)
    nn.utils.fusion.fuse_conv_bn_eval(conv, bn)


# --- torch._scaled_mm serving GEMMs


def _scaled_mm_uint8_bytes_weight() -> None:
    x, x_scale = _quantize(torch.randn(16, 32, generator=_gen()))
    w, w_scale = _quantize(torch.randn(16, 32, generator=_gen()))
    w_bytes = w.view(torch.uint8).clone()  # as a hand-written safetensors reader returns "F8_E4M3" payloads
    torch._scaled_mm(x, w_bytes.t(), scale_a=x_scale, scale_b=w_scale, out_dtype=bf16)


def _scaled_mm_float64_scales_from_numpy() -> None:
    x, _ = _quantize(torch.randn(16, 32, generator=_gen()))
    w, _ = _quantize(torch.randn(16, 32, generator=_gen()))
    calibration = np.array([0.02, 0.01])  # offline calibration results, numpy float64
    x_scale, w_scale = (torch.from_numpy(calibration[i : i + 1]).reshape(()) for i in range(2))
    torch._scaled_mm(x, w.t(), scale_a=x_scale, scale_b=w_scale, out_dtype=bf16)


def _linear_fp8_activations_and_weight_bf16_bias() -> None:
    x, _ = _quantize(torch.randn(4, 8, generator=_gen()))
    w, _ = _quantize(torch.randn(8, 8, generator=_gen()))
    F.linear(x, w, torch.randn(8, generator=_gen()).to(bf16))


# --- conversion scripts


def _fnuz_port_saturates_at_448() -> None:
    # an e4m3fn quantizer ported to MI300's e4m3fnuz, saturating overflowing values at e4m3fn's maximum
    w = torch.randn(8, 8, generator=_gen()) * 300
    q = w.clamp(-240, 240).to(E4M3_FNUZ)
    torch.where(w.abs() > 240, torch.full_like(q, FP8_MAX), q)


def _quantize_into_uint8_byte_buffer() -> None:
    weight = torch.randn(8, 8, generator=_gen()).to(bf16)
    scale = weight.abs().amax() / FP8_MAX
    payload = torch.empty(8, 8, dtype=torch.uint8)  # the raw bytes written into the output file
    torch.div(weight, scale, out=payload)


# --- calibration


def _amax_ema_lerp_bf16_observation() -> None:
    amax_ema = torch.zeros(())  # the observer's fp32 buffer
    activations = torch.randn(4, 16, generator=_gen()).to(bf16)
    amax_ema.lerp_(activations.abs().amax(), 0.01)


def _moe_per_expert_amax_scatter_reduce() -> None:
    expert_amax = torch.zeros(4)
    tokens = torch.randn(10, 16, generator=_gen()).to(bf16)
    expert_ids = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3, 0, 1])
    expert_amax.scatter_reduce_(0, expert_ids, tokens.abs().amax(-1), "amax")


def _calibration_tokens_uint16_shard() -> None:
    shard = np.arange(64, dtype=np.uint16) % 32  # nanoGPT-style .bin token shard
    embed = nn.Embedding(32, 8).to(bf16)
    embed(torch.from_numpy(shard[:16].reshape(2, 8)))


# --- evaluation against the bf16 reference


def _roundtrip_assert_close_dequant_fp32() -> None:
    weight = torch.randn(8, 8, generator=_gen()).to(bf16)
    q, scale = _quantize(weight)
    torch.testing.assert_close(q.float() * scale, weight, atol=0.1, rtol=0.1)


def _numpy_assert_allclose_fp8_outputs() -> None:
    out, scale = _quantize(torch.randn(4, 8, generator=_gen()))
    reference = out.float() * scale
    np.testing.assert_allclose(out, reference.numpy(), atol=0.1)


CASES: dict[str, LiveCase] = {
    # --- fp8 KV caches and paged attention
    # hand-written paged attention gathering the decode's key blocks out of the fp8 pool with torch.gather
    "paged-kv-torch-gather-fp8-pool": case(_paged_kv_torch_gather_fp8_pool, "no_kernel", "float8_e4m3fn",
                                           grade="correct", grade_at_freeze="correct"),
    # paged keys dequantized with the cache manager's per-block fp16 scales (bf16 * fp16 gives fp32), then bmm
    "paged-kv-fp16-block-scales-bmm": case(_paged_kv_fp16_block_scales_bmm, "batched_matmul_dtype", "bf16", "f32",
                                           grade="correct", grade_at_freeze="correct"),
    # a KV cache allocated as e5m2 from the config, written through the e4m3fn quantize helper
    "kv-cache-e5m2-pool-e4m3fn-writes": case(_kv_cache_e5m2_pool_e4m3_writes, "indexed_write_dtype", "float8_e5m2",
                                             "float8_e4m3fn",
                                             grade="correct", grade_at_freeze="correct"),
    # the KV dequantize helper's out_dtype defaulting to fp16 in a bf16 model's decode attention
    "kv-dequant-helper-default-fp16-sdpa": case(_kv_dequant_helper_defaults_fp16, "sdpa_dtype", "bf16", "f16",
                                                grade="correct", grade_at_freeze="correct"),
    # a converter quantizing every floating tensor: the ALiBi bias buffer arrives in fp8 as SDPA's mask
    "alibi-bias-buffer-quantized-sdpa-mask": case(_alibi_bias_buffer_quantized_fp8_sdpa, "attn_mask_dtype",
                                                  "float8_e4m3fn", "bf16",
                                                  grade="correct", grade_at_freeze="correct"),
    # "fp8 attention" by quantizing q, k and v and handing all three to SDPA
    "sdpa-all-operands-fp8": case(_fp8_attention_all_operands_quantized_sdpa, "no_kernel", "float8_e4m3fn",
                                  grade="correct", grade_at_freeze="correct"),
    # a Mamba layer's decode conv state allocated in the engine's fp8 kv_cache_dtype, multiplied with bf16 taps
    "mamba-conv-state-fp8-cache": case(_mamba_conv_state_in_fp8_cache, "fp8_promotion", "float8_e4m3fn", "bf16",
                                       grade="correct", grade_at_freeze="correct"),
    # --- fp8 weights in embeddings, norms, convs, recurrent and attention layers
    # an fp8 embedding table (loaded with assign=True) in an Embedding with max_norm: the renorm runs on it
    "embedding-max-norm-fp8-table": case(_embedding_max_norm_fp8_table, "no_kernel", "float8_e4m3fn",
                                         grade="correct", grade_at_freeze="correct"),
    # the embedding quantized for serving while the lm_head is tied to it, run in inference_mode
    "tied-lm-head-fp8-embedding": case(_tied_lm_head_fp8_embedding, "matmul_dtype", "bf16", "float8_e4m3fn",
                                       grade="correct", grade_at_freeze="correct"),
    # an RMSNorm weight quantized along with the linears by the converter
    "rmsnorm-weight-quantized": case(_rmsnorm_weight_quantized_with_linears, "fp8_promotion", "f32",
                                     "float8_e4m3fn",
                                     grade="correct", grade_at_freeze="correct"),
    # a BatchNorm's running_var quantized along with the conv weights and assign-loaded
    "batchnorm-running-var-fp8": case(_batchnorm_running_stats_quantized, "norm_param_dtype", "bf16",
                                      "float8_e4m3fn",
                                      grade="correct", grade_at_freeze="correct"),
    # a VAE decoder's ConvTranspose2d upsampler served with its fp8 weight as stored
    "vae-conv-transpose-fp8-weight": case(_vae_decoder_conv_transpose_fp8, "conv_weight_dtype", "bf16",
                                          "float8_e4m3fn",
                                          grade="correct", grade_at_freeze="correct"),
    # the loader dequantizes only tensors with a scale beside them: the conv's weight, not its fp8 bias
    "conv1d-bias-left-fp8": case(_conv_bias_left_fp8_after_weight_dequant, "conv_bias_dtype", "bf16",
                                 "float8_e4m3fn",
                                 grade="correct", grade_at_freeze="correct"),
    # W8A8 fp8 for a CNN: image and conv weight both quantized and given to conv2d
    "w8a8-conv-both-fp8": case(_w8a8_fp8_conv_both_quantized, "no_kernel", "float8_e4m3fn",
                               grade="correct", grade_at_freeze="correct"),
    # a speech model's LSTM assign-loaded from the all-fp8 checkpoint
    "lstm-fp8-checkpoint-weights": case(_lstm_fp8_weights_from_checkpoint, "rnn_dtype", "bf16", "float8_e4m3fn",
                                        grade="correct", grade_at_freeze="correct"),
    # MultiheadAttention's in_proj_weight quantized and assign-loaded, run in inference_mode
    "mha-in-proj-fp8": case(_mha_in_proj_fp8, "matmul_dtype", "bf16", "float8_e4m3fn",
                            grade="correct", grade_at_freeze="correct"),
    # dequantize-on-the-fly as a parametrization over the fp8 weight (fp8 in, bf16 out)
    "dequant-parametrization-fp8-weight": case(_dequant_parametrization_on_fp8_weight, "op_dtype", "float8_e4m3fn",
                                               "bf16",
                                               grade="correct", grade_at_freeze="correct"),
    # a HiFi-GAN-style vocoder's weight-norm g and v stored in fp8, the weight norm removed for serving
    "vocoder-weight-norm-fp8": case(_vocoder_weight_norm_fp8, "no_kernel", "float8_e4m3fn",
                                    grade="correct", grade_at_freeze="correct"),
    # a TorchScript-scripted fp8 linear (weight buffer fp8, scale after) served bf16 requests
    "scripted-fp8-linear-bf16-request": case(_scripted_fp8_linear_served, "matmul_dtype", "bf16", "float8_e4m3fn",
                                             grade="correct", grade_at_freeze="correct"),
    # conv-bn folding for serving run after the conv weight was converted to fp8
    "fuse-conv-bn-after-fp8-conversion": case(_fuse_conv_bn_after_fp8_conversion, "fp8_promotion", "float8_e4m3fn",
                                              "f32",
                                              grade="correct", grade_at_freeze="correct"),
    # --- fp8 GEMMs
    # a hand-written safetensors reader returning F8_E4M3 payloads as uint8, handed to torch._scaled_mm
    "scaled-mm-uint8-bytes-weight": case(_scaled_mm_uint8_bytes_weight, "integer_operand", "uint8", fix=("view",),
                                         grade="correct", grade_at_freeze="correct"),
    # static scales from an offline calibration saved with numpy (float64) given to torch._scaled_mm
    "scaled-mm-float64-numpy-scales": case(_scaled_mm_float64_scales_from_numpy, "matmul_dtype", "float8_e4m3fn",
                                           "f64",
                                           grade="correct", grade_at_freeze="correct"),
    # CPU fallback of a W8A8 fp8 linear: fp8 activations and weight through F.linear with the bf16 bias
    "linear-fp8-operands-bf16-bias": case(_linear_fp8_activations_and_weight_bf16_bias, "matmul_dtype", "bf16",
                                          "float8_e4m3fn", culprit=("bias",),
                                          grade="correct", grade_at_freeze="partly",
                                          why=("At freeze (fbe1b73) castwise gave matmul_dtype [bf16, float8_e4m3fn]"
                                               " (high confidence). It blamed an fp8 weight used directly and said "
                                               "to upcast it, but both operands are fp8 on purpose and the bf16 "
                                               "tensor torch calls 'self' is the bias, which the explanation never "
                                               "names.")),
    # --- conversion scripts
    # an e4m3fn quantizer ported to e4m3fnuz (max 240) keeping its saturation value of 448
    "fnuz-port-saturates-at-448": case(_fnuz_port_saturates_at_448, "half_overflow", "float8_e4m3fnuz",
                                       cause=("240",),
                                       grade="correct", grade_at_freeze="correct"),
    # a converter quantizing straight into the uint8 byte buffer it writes out, with div(out=)
    "quantize-into-uint8-byte-buffer": case(_quantize_into_uint8_byte_buffer, "result_cast", "bf16", "uint8",
                                            grade="correct", grade_at_freeze="correct"),
    # --- calibration
    # an observer's fp32 amax EMA lerp_'d toward the bf16 activations' amax
    "amax-ema-lerp-bf16-observation": case(_amax_ema_lerp_bf16_observation, "lerp_dtype", "f32", "bf16",
                                           grade="correct", grade_at_freeze="correct"),
    # MoE per-expert activation amax by scatter_reduce_ of bf16 token amaxes into an fp32 buffer
    "moe-per-expert-amax-scatter-reduce": case(_moe_per_expert_amax_scatter_reduce, "indexed_write_dtype",
                                               grade="correct", grade_at_freeze="correct"),
    # calibration batches read from a nanoGPT-style uint16 token shard straight into the embedding
    "calibration-uint16-token-shard": case(_calibration_tokens_uint16_shard, "index_tensor_dtype", "uint16",
                                           grade="correct", grade_at_freeze="correct"),
    # --- evaluation against the bf16 reference
    # the conversion's round-trip check: assert_close of the fp32 dequantized weight against the bf16 original
    "roundtrip-assert-close-fp32-vs-bf16": case(_roundtrip_assert_close_dequant_fp32, "op_dtype", "f32", "bf16",
                                                grade="correct", grade_at_freeze="correct"),
    # fp8 outputs compared with numpy's assert_allclose without dequantizing
    "numpy-assert-allclose-fp8-outputs": case(_numpy_assert_allclose_fp8_outputs, "numpy_dtype", "float8_e4m3fn",
                                              grade="correct", grade_at_freeze="correct"),
}
