"""Held-out live set 46: fp8 by hand (fp8 weights, scales, KV caches, activations, gradients and states without an fp8
library). Defects planted by a helper who never read the rules, written before castwise ran and graded once with the
rules frozen at 02d505d."""

from __future__ import annotations

import tempfile
from collections.abc import Callable

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "02d505d"

bf16 = torch.bfloat16
E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2
E4M3_MAX = 448.0


def _seeded() -> torch.Generator:
    return torch.Generator().manual_seed(46)


def _quantize(x: torch.Tensor, dtype: torch.dtype = E4M3) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-tensor fp8 quantization as the engineer wrote it: the fp8 tensor and the fp32 dequantization scale."""
    scale = x.float().abs().amax().clamp(min=1e-12) / torch.finfo(dtype).max
    return (x.float() / scale).clamp(-torch.finfo(dtype).max, torch.finfo(dtype).max).to(dtype), scale


class _ScaledMMLinear(nn.Module):
    """A hand-written fp8 linear on torch._scaled_mm with a per-tensor weight scale and a static input scale."""

    def __init__(self, weight: torch.Tensor, weight_scale: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("weight", weight)
        self.register_buffer("weight_scale", weight_scale)
        self.register_buffer("input_scale", torch.tensor(1.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xq = (x / self.input_scale).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)
        return torch._scaled_mm(xq, self.weight.t(), scale_a=self.input_scale, scale_b=self.weight_scale,
                                out_dtype=bf16)


def _scaled_mm_scale_from_bf16_weight() -> None:
    weight = torch.randn(16, 32, generator=_seeded()).to(bf16)
    scale = weight.abs().amax() / E4M3_MAX  # computed on the bf16 weight, so the scale is bf16
    layer = _ScaledMMLinear((weight / scale).to(E4M3), scale)
    layer(torch.randn(4, 32, generator=_seeded()).to(bf16))


def _fp8_linear_model_to_bf16_after_quantize() -> None:
    torch.manual_seed(46)
    model = nn.Sequential(nn.Linear(32, 16, bias=False))
    weight, scale = _quantize(model[0].weight.detach())
    model[0] = _ScaledMMLinear(weight, scale)
    model = model.to(bf16)  # the usual cast at the end of loading, now run on the quantized model
    model(torch.randn(4, 32).to(bf16))


def _scaled_mm_int8_weights() -> None:
    weight = torch.randn(16, 32, generator=_seeded())
    scale = weight.abs().amax(dim=1, keepdim=True) / 127.0
    codes = (weight / scale).round().to(torch.int8)  # the int8 export reused for the new fp8 GEMM path
    xq, x_scale = _quantize(torch.randn(4, 32, generator=_seeded()))
    torch._scaled_mm(xq, codes.t(), scale_a=x_scale, scale_b=torch.tensor(1.0), out_dtype=bf16)


def _assign_load_fp8_checkpoint() -> None:
    torch.manual_seed(46)
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 8)).to(bf16)
    source = nn.Sequential(nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 8))
    checkpoint = {name: (value.to(E4M3) if name.endswith("weight") else value.to(bf16))
                  for name, value in source.state_dict().items()}
    model.load_state_dict(checkpoint, assign=True)
    model(torch.randn(2, 32).to(bf16))


def _block_scale_inv_dequant_fp32() -> None:
    block = 4
    weight = torch.randn(8, 16, generator=_seeded()).to(E4M3)
    scale_inv = torch.rand(8 // block, 16 // block, generator=_seeded()) + 0.5  # stored fp32, one per 4x4 block
    dense = weight.to(bf16) * scale_inv.repeat_interleave(block, 0).repeat_interleave(block, 1)
    x = torch.randn(2, 16, generator=_seeded()).to(bf16)
    F.linear(x, dense)


def _fp8_bytes_as_uint8_linear() -> None:
    weight = torch.randn(8, 16, generator=_seeded()).to(E4M3)
    stored = {"proj.weight": weight.view(torch.uint8)}  # saved as raw bytes for readers without fp8
    loaded = stored["proj.weight"].contiguous()
    F.linear(torch.randn(2, 16, generator=_seeded()).to(bf16), loaded)


class _Fp8SavedLinear(torch.autograd.Function):
    """A linear that keeps only an fp8 copy of its input for backward, to save activation memory."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x.to(E4M3), weight)
        return x @ weight.t()

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x_fp8, weight = ctx.saved_tensors  # type: ignore[attr-defined]
        return grad @ weight, grad.t() @ x_fp8


def _fp8_saved_input_custom_backward() -> None:
    weight = nn.Parameter(torch.randn(8, 16, generator=_seeded()).to(bf16))
    x = torch.randn(4, 16, generator=_seeded()).to(bf16)
    _Fp8SavedLinear.apply(x, weight).float().pow(2).mean().backward()


def _e5m2_grad_times_e4m3_weight() -> None:
    weight, _ = _quantize(torch.randn(8, 16, generator=_seeded()))
    grad_out, _ = _quantize(torch.randn(4, 8, generator=_seeded()), E5M2)  # hybrid recipe: e5m2 gradients
    torch.mm(grad_out, weight)  # grad_input of y = x W^T, both operands still in their fp8 formats


def _moe_fp8_expert_weights_bmm() -> None:
    experts = torch.randn(4, 8, 16, generator=_seeded()).to(E4M3)  # per-expert up projections stored in fp8
    tokens = torch.randn(4, 2, 8, generator=_seeded()).to(bf16)  # decode-time tokens already grouped by expert
    torch.bmm(tokens, experts)


def _vision_patch_embed_fp8_conv() -> None:
    torch.manual_seed(46)
    patch_embed = nn.Conv2d(3, 16, kernel_size=4, stride=4, bias=False)
    patch_embed.weight.data = patch_embed.weight.data.to(E4M3)  # the vision tower loaded from an fp8 checkpoint
    patch_embed(torch.randn(1, 3, 16, 16).to(bf16))


def _pipeline_fp8_activations_layer_norm() -> None:
    torch.manual_seed(46)
    stage = nn.Sequential(nn.LayerNorm(32), nn.Linear(32, 32)).to(bf16)
    received, _ = _quantize(torch.randn(2, 4, 32))  # activations sent between stages in fp8 to halve the traffic
    stage(received)


def _fp8_kv_cache_dequant_float_sdpa() -> None:
    k_cache, k_scale = _quantize(torch.randn(1, 2, 6, 8, generator=_seeded()))
    v_cache, v_scale = _quantize(torch.randn(1, 2, 6, 8, generator=_seeded()))
    query = torch.randn(1, 2, 1, 8, generator=_seeded()).to(bf16)
    F.scaled_dot_product_attention(query, k_cache.float() * k_scale, v_cache.float() * v_scale)


def _fp8_embedding_sparse_update_index_add() -> None:
    table = torch.randn(10, 8, generator=_seeded()).to(E4M3)  # recsys embedding table kept in fp8
    ids = torch.tensor([1, 4, 4])
    row_grads = torch.randn(3, 8, generator=_seeded()).to(bf16)
    table.index_add_(0, ids, row_grads, alpha=-0.01)


def _bf16_ema_lerp_toward_fp8_weights() -> None:
    torch.manual_seed(46)
    serving = nn.Linear(16, 8, bias=False)
    serving.weight.data = serving.weight.data.to(E4M3)  # the served copy after the fp8 export
    ema = nn.Linear(16, 8, bias=False).to(bf16)
    with torch.no_grad():
        for shadow, live in zip(ema.parameters(), serving.parameters(), strict=True):
            shadow.lerp_(live, 1 - 0.999)


def _quantizer_roundtrip_isclose() -> None:
    weight = torch.randn(8, 16, generator=_seeded()).to(bf16)
    quantized, _ = _quantize(weight)
    torch.isclose(weight, quantized, rtol=0.125).float().mean()


def _in_one_rank_group(action: Callable[[], object]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group("gloo", init_method=f"file://{folder}/store", rank=0, world_size=1)
        try:
            action()
        finally:
            dist.destroy_process_group()


def _sequence_parallel_all_gather_fp8_bf16_buffer() -> None:
    shard, _ = _quantize(torch.randn(4, 16, generator=_seeded()))  # fp8 on the wire to cut the all-gather
    gathered = torch.empty(4, 16, dtype=bf16)  # world size 1
    _in_one_rank_group(lambda: dist.all_gather_into_tensor(gathered, shard))


def _manual_fsdp_fp8_shard_all_gather_list() -> None:
    shard, _ = _quantize(torch.randn(32, generator=_seeded()))  # this rank's flat fp8 weight shard
    full = [torch.empty(32, dtype=bf16)]  # one slot per rank, allocated in the compute dtype
    _in_one_rank_group(lambda: dist.all_gather(full, shard))


def _fp8_gemm_output_times_tensorwise_scales() -> None:
    xq, x_scale = _quantize(torch.randn(4, 16, generator=_seeded()))
    wq, w_scale = _quantize(torch.randn(8, 16, generator=_seeded()))
    (xq @ wq.t()) * (x_scale * w_scale)


def _fp8_mlp_hidden_gelu() -> None:
    torch.manual_seed(46)
    fc1, fc2 = nn.Linear(16, 64).to(bf16), nn.Linear(64, 16).to(bf16)
    hidden, scale = _quantize(fc1(torch.randn(2, 16).to(bf16)))  # hidden kept in fp8 to save activation memory
    fc2(F.gelu(hidden).to(bf16) * scale.to(bf16))


def _stochastic_rounding_rand_like_fp8() -> None:
    x = torch.randn(4, 16, generator=_seeded()) * 3
    q = x.to(E4M3)
    spacing = (x - q.float()).abs()
    (q.float() + spacing * torch.rand_like(q)).to(E4M3)


def _adamw_on_fp8_params() -> None:
    torch.manual_seed(46)
    model = nn.Linear(16, 8, bias=False)
    model.weight.data = model.weight.data.to(E4M3)  # "train in fp8": the master weight itself stored as fp8
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.weight.grad = torch.randn(8, 16).to(E4M3)
    optimizer.step()


def _fp8_lm_head_cross_entropy() -> None:
    hidden, _ = _quantize(torch.randn(4, 16, generator=_seeded()))
    lm_head, _ = _quantize(torch.randn(32, 16, generator=_seeded()))
    logits = hidden @ lm_head.t()  # the fp8 GEMM result, still fp8 on this path
    F.cross_entropy(logits, torch.tensor([1, 5, 7, 30]))


def _nan_to_num_after_fp8_cast() -> None:
    activations = torch.randn(4, 16, generator=_seeded()) * 1000  # outliers beyond 448 become NaN in e4m3fn
    activations.to(E4M3).nan_to_num(nan=0.0)


def _e5m2_second_moment_addcmul() -> None:
    torch.manual_seed(46)
    param = nn.Parameter(torch.randn(8, 16).to(bf16))
    param.grad = torch.randn(8, 16).to(bf16)
    exp_avg_sq = torch.zeros(8, 16, dtype=E5M2)  # second moment in e5m2 for its range
    exp_avg_sq.addcmul_(param.grad, param.grad, value=1 - 0.999)


def _tp_merge_fnuz_and_fn_shards() -> None:
    rank0 = torch.randn(4, 16, generator=_seeded()).to(E4M3)  # shard exported on an NVIDIA box
    rank1 = torch.randn(4, 16, generator=_seeded()).to(torch.float8_e4m3fnuz)  # shard exported on a ROCm box
    torch.cat([rank0, rank1], dim=0)


def _fp8_grid_bucketize_rounding() -> None:
    grid = torch.arange(127, dtype=torch.uint8).view(E4M3)  # every non-negative finite e4m3fn value, ascending
    x = torch.randn(32, generator=_seeded()).to(bf16)
    torch.bucketize(x.abs(), grid)


class _DelayedScaling(nn.Module):
    """Delayed-scaling bookkeeping: a rolling amax history and a step counter kept as buffers."""

    def __init__(self, history: int = 16) -> None:
        super().__init__()
        self.register_buffer("amax_history", torch.zeros(history))
        self.register_buffer("step", torch.zeros(()))

    def observe(self, x: torch.Tensor) -> None:
        self.amax_history[self.step % self.amax_history.numel()] = x.abs().amax().float()
        self.step += 1


def _amax_history_float_step_index() -> None:
    _DelayedScaling().observe(torch.randn(4, 16, generator=_seeded()).to(bf16))


def _int64_scale_buffer_div_out() -> None:
    scale = torch.tensor(1)  # registered as torch.tensor(1): int64
    amax = torch.randn(4, 16, generator=_seeded()).abs().amax()
    torch.div(torch.tensor(E4M3_MAX), amax, out=scale)


def _fp8_causal_mask_minus_inf() -> None:
    cache_dtype = E4M3
    length = 6
    torch.full((length, length), float("-inf"), dtype=cache_dtype).triu(1)  # mask built in the KV cache's dtype


def _e5m2_compressed_grad_assigned() -> None:
    torch.manual_seed(46)
    model = nn.Linear(16, 8).to(bf16)
    model(torch.randn(4, 16).to(bf16)).float().pow(2).mean().backward()
    for param in model.parameters():
        param.grad = param.grad.to(E5M2)  # hold gradients in e5m2 between accumulation steps


CASES: dict[str, LiveCase] = {
    # --- fp8 GEMMs on torch._scaled_mm
    # the per-tensor weight scale computed from the bf16 weight (so bf16) and handed to torch._scaled_mm
    "scaled-mm-scale-from-bf16-weight": case(_scaled_mm_scale_from_bf16_weight, "matmul_dtype", "float8_e4m3fn",
                                             "bf16", fix=("scale",),
                                             grade="correct", grade_at_freeze="not_recognised",
                                             why="At freeze (02d505d) castwise gave nothing. torch._scaled_mm's "
                                                 "ValueError ('Invalid scaling configuration ... Got ... "
                                                 "scale_b.dtype()=BFloat16') is read by no rule: the scale computed "
                                                 "from the bf16 weight is bf16 where the fp8 GEMM needs fp32 scales."),
    # a model whose linears were swapped for _scaled_mm fp8 linears, then cast with model.to(bfloat16) as before
    "fp8-linear-model-to-bf16-after-quantize": case(_fp8_linear_model_to_bf16_after_quantize, "matmul_dtype",
                                                    "float8_e4m3fn", "bf16",
                                                    grade="correct", grade_at_freeze="not_recognised",
                                                    why="At freeze (02d505d) castwise gave nothing. The same "
                                                        "torch._scaled_mm ValueError, here after model.to(bfloat16) "
                                                        "cast the fp8 weight buffer back to bf16 and the fp32 scales "
                                                        "to bf16, is read by no rule."),
    # the int8 export's codes reused as the weight of the new torch._scaled_mm path
    "scaled-mm-int8-weights": case(_scaled_mm_int8_weights, "integer_operand", "int8",
                                   grade="correct", grade_at_freeze="not_recognised",
                                   why="At freeze (02d505d) castwise gave nothing. torch._scaled_mm's ValueError "
                                       "naming mat_b.dtype()=Char (int8 codes where an fp8 operand is required) is "
                                       "read by no rule."),
    # --- loading fp8 checkpoints into bf16 models
    # a meta-initialised bf16 model filled from an fp8 checkpoint with load_state_dict(assign=True)
    "assign-load-fp8-checkpoint": case(_assign_load_fp8_checkpoint, "matmul_dtype", "bf16", "float8_e4m3fn",
                                       grade="correct", grade_at_freeze="correct"),
    # DeepSeek-style block dequantization with the fp32 scale_inv: the dense weight comes out fp32
    "block-scale-inv-dequant-fp32": case(_block_scale_inv_dequant_fp32, "matmul_dtype", "bf16", "f32",
                                         grade="correct", grade_at_freeze="correct"),
    # fp8 weights saved as raw uint8 bytes, loaded without viewing them back as float8_e4m3fn
    "fp8-bytes-as-uint8-linear": case(_fp8_bytes_as_uint8_linear, "matmul_dtype", "bf16", "uint8", fix=("view",),
                                      grade="correct", grade_at_freeze="partly",
                                      why="At freeze (02d505d) castwise gave matmul_dtype [bf16, uint8] (low "
                                          "confidence). It reads the uint8 weight as a packed quantized weight and "
                                          "says to dequantize it or call the quantized layer, but not that these are "
                                          "fp8 bytes to reinterpret with .view(torch.float8_e4m3fn) (a cast would turn"
                                          " the byte codes into the numbers 0 to 255)."),
    # a vision tower's patch-embedding conv loaded from an fp8 checkpoint as stored
    "vision-patch-embed-fp8-conv": case(_vision_patch_embed_fp8_conv, "conv_weight_dtype", "bf16", "float8_e4m3fn",
                                        grade="correct", grade_at_freeze="correct"),
    # --- hand-written fp8 layers
    # a custom autograd linear saving an fp8 copy of its input; backward multiplies the bf16 grad by it
    "fp8-saved-input-custom-backward": case(_fp8_saved_input_custom_backward, "matmul_dtype", "bf16",
                                            "float8_e4m3fn",
                                            grade="correct", grade_at_freeze="correct"),
    # hybrid recipe by hand: grad_input as e5m2 gradients times the e4m3 weight with torch.mm
    "e5m2-grad-times-e4m3-weight": case(_e5m2_grad_times_e4m3_weight, "matmul_dtype", "float8_e5m2",
                                        "float8_e4m3fn",
                                        grade="correct", grade_at_freeze="correct"),
    # MoE expert weights stored in fp8, multiplied with bf16 grouped tokens by bmm
    "moe-fp8-expert-weights-bmm": case(_moe_fp8_expert_weights_bmm, "batched_matmul_dtype", "bf16", "float8_e4m3fn",
                                       grade="correct", grade_at_freeze="correct"),
    # fp8 x fp8 matmul (which runs on the CPU) scaled by the product of the two per-tensor scales while still fp8
    "fp8-gemm-output-times-tensorwise-scales": case(_fp8_gemm_output_times_tensorwise_scales, "no_kernel",
                                                    "float8_e4m3fn",
                                                    grade="correct", grade_at_freeze="correct"),
    # an MLP keeping its hidden activation in fp8 for memory, GELU applied before dequantizing
    "fp8-mlp-hidden-gelu": case(_fp8_mlp_hidden_gelu, "no_kernel", "float8_e4m3fn",
                                grade="correct", grade_at_freeze="correct"),
    # an fp8 lm_head GEMM whose fp8 logits go straight into cross_entropy
    "fp8-lm-head-cross-entropy": case(_fp8_lm_head_cross_entropy, "no_kernel", "float8_e4m3fn",
                                      grade="correct", grade_at_freeze="correct"),
    # --- quantization helpers
    # stochastic rounding noise drawn with rand_like of the already-quantized fp8 tensor
    "stochastic-rounding-rand-like-fp8": case(_stochastic_rounding_rand_like_fp8, "no_kernel", "float8_e4m3fn",
                                              grade="correct", grade_at_freeze="correct"),
    # NaNs from out-of-range values cleaned with nan_to_num after the e4m3fn cast
    "nan-to-num-after-fp8-cast": case(_nan_to_num_after_fp8_cast, "no_kernel", "float8_e4m3fn",
                                      grade="correct", grade_at_freeze="correct"),
    # simulated fp8 rounding: bf16 values bucketized against the table of e4m3fn values kept in fp8
    "fp8-grid-bucketize-rounding": case(_fp8_grid_bucketize_rounding, "fp8_promotion", "float8_e4m3fn", "bf16",
                                        grade="correct", grade_at_freeze="correct"),
    # a quantizer's unit test comparing the bf16 weight with its fp8 quantization by isclose
    "quantizer-roundtrip-isclose": case(_quantizer_roundtrip_isclose, "op_dtype", "bf16", "float8_e4m3fn",
                                        grade="correct", grade_at_freeze="correct"),
    # --- amax and scale bookkeeping
    # delayed scaling's step counter buffer made with torch.zeros(()) (fp32), used to index the amax history
    "amax-history-float-step-index": case(_amax_history_float_step_index, "index_tensor_dtype",
                                          grade="correct", grade_at_freeze="correct"),
    # the fp8 scale buffer registered as torch.tensor(1) (int64), updated with div(..., out=scale)
    "int64-scale-buffer-div-out": case(_int64_scale_buffer_div_out, "result_cast", "f32", "int64",
                                       grade="correct", grade_at_freeze="correct"),
    # --- fp8 KV caches and masks
    # decode keys/values dequantized with .float() times the fp32 scale, attended by bf16 queries
    "fp8-kv-cache-dequant-float-sdpa": case(_fp8_kv_cache_dequant_float_sdpa, "sdpa_dtype", "bf16", "f32",
                                            grade="correct", grade_at_freeze="correct"),
    # the causal mask built with -inf in the KV cache's dtype, e4m3fn
    "fp8-causal-mask-minus-inf": case(_fp8_causal_mask_minus_inf, "half_overflow", "float8_e4m3fn", cause=("448",),
                                      grade="correct", grade_at_freeze="partly",
                                      why="At freeze (02d505d) castwise gave half_overflow [float8_e4m3fn] (high "
                                          "confidence). The kind and dtype are right, but it names no range (e4m3fn's "
                                          "finite range is +-448 and it has no infinity) and its fix suggests "
                                          "float('-inf') for masks, which is the very value that overflows here."),
    # --- fp8 activations for communication and storage
    # pipeline stage receiving fp8 activations straight into its bf16 LayerNorm
    "pipeline-fp8-activations-layer-norm": case(_pipeline_fp8_activations_layer_norm, "norm_param_dtype", "f32",
                                                grade="correct", grade_at_freeze="correct"),
    # sequence-parallel all_gather_into_tensor of an fp8 shard into a bf16 output buffer
    "sequence-parallel-all-gather-fp8-bf16-buffer": case(_sequence_parallel_all_gather_fp8_bf16_buffer,
                                                         "scalar_type", "float8_e4m3fn", "bf16",
                                                         grade="correct", grade_at_freeze="correct"),
    # hand-rolled FSDP: each rank's fp8 flat shard all_gathered into a list of bf16 slots
    "manual-fsdp-fp8-shard-all-gather-list": case(_manual_fsdp_fp8_shard_all_gather_list, "scalar_type", "bf16",
                                                  "float8_e4m3fn",
                                                  grade="correct", grade_at_freeze="correct"),
    # tensor-parallel shards exported on two vendors' machines (e4m3fn and e4m3fnuz) merged with cat
    "tp-merge-fnuz-and-fn-shards": case(_tp_merge_fnuz_and_fn_shards, "fp8_promotion", "float8_e4m3fn",
                                        "float8_e4m3fnuz",
                                        grade="correct", grade_at_freeze="correct"),
    # --- fp8 weights, gradients and optimizer states
    # a recsys fp8 embedding table updated sparsely with index_add_ of bf16 row gradients
    "fp8-embedding-sparse-update-index-add": case(_fp8_embedding_sparse_update_index_add, "indexed_write_dtype",
                                                  "float8_e4m3fn", "bf16",
                                                  grade="correct", grade_at_freeze="correct"),
    # a bf16 EMA shadow lerp_'d toward the fp8-stored served weights
    "bf16-ema-lerp-toward-fp8-weights": case(_bf16_ema_lerp_toward_fp8_weights, "lerp_dtype", "bf16",
                                             "float8_e4m3fn",
                                             grade="correct", grade_at_freeze="correct"),
    # "fp8 training": the parameter itself stored in fp8 and stepped with AdamW
    "adamw-on-fp8-params": case(_adamw_on_fp8_params, "no_kernel", "float8_e4m3fn",
                                grade="correct", grade_at_freeze="correct"),
    # Adam's second moment kept in e5m2, updated with addcmul_ of the bf16 gradient
    "e5m2-second-moment-addcmul": case(_e5m2_second_moment_addcmul, "fp8_promotion", "float8_e5m2", "bf16",
                                       grade="correct", grade_at_freeze="correct"),
    # gradients replaced by e5m2 copies between accumulation steps to save memory
    "e5m2-compressed-grad-assigned": case(_e5m2_compressed_grad_assigned, "loss_dtype", "float8_e5m2", "bf16",
                                          grade="correct", grade_at_freeze="correct"),
}
