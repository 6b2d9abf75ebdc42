"""Held-out live set 44: GPU-first training and inference code (CUDA autocast and AMP recipes, GradScaler, custom_fwd,
optimizer options, per-device dtype choices) run on a CPU-only machine in low precision. Defects planted by a helper who
never read the rules, written before castwise ran and graded once with the rules frozen at b910096."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b910096"

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32
CPU = torch.device("cpu")


def _pick_amp_dtype() -> torch.dtype:
    """The recipe's pick: bf16 where the GPU supports it, else fp16 (on a CPU-only machine: fp16)."""
    return bf16 if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else f16


def _weights_dtype_for(device: torch.device) -> torch.dtype:
    """A device-agnostic helper's per-device choice: bf16 on the CPU, fp16 on GPUs."""
    return bf16 if device.type == "cpu" else f16


def _autocast_cuda_mlp_weights_bf16() -> None:
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4)).to(bf16)  # "autocast casts the inputs"
    features = torch.randn(8, 16)
    with torch.autocast("cuda", dtype=bf16):  # on a CPU-only machine: a warning, then disabled
        mlp(features)


class _StemNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1, bias=False).to(bf16)
        self.bn = nn.BatchNorm2d(8)

    @torch.cuda.amp.autocast(dtype=bf16)
    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.bn(self.stem(images))


def _cuda_amp_decorator_conv_stem() -> None:
    torch.manual_seed(0)
    _StemNet()(torch.rand(2, 3, 16, 16))


class _FusedLinear(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        ctx.save_for_backward(x, weight)
        return x.mm(weight.t())

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        x, weight = ctx.saved_tensors
        return grad.mm(weight), grad.t().mm(x)


def _custom_fwd_cuda_backward_mm() -> None:
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(4, 8))
    x = torch.randn(3, 8, requires_grad=True)
    with torch.autocast(CPU.type, dtype=bf16):
        out = _FusedLinear.apply(x, weight)
    out.float().pow(2).sum().backward()


class _FlowLogDet(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(ctx, jacobian: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return torch.linalg.slogdet(jacobian).logabsdet

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return grad


def _custom_fwd_cuda_flow_slogdet() -> None:
    torch.manual_seed(0)
    coupling = nn.Linear(4, 4)
    z = torch.randn(4, 4)
    with torch.autocast(CPU.type, dtype=bf16):
        jacobian = coupling(z)
        _FlowLogDet.apply(jacobian)


def _fallback_f16_pad_logits() -> None:
    dtype = _pick_amp_dtype()
    logits = torch.randn(2, 5, dtype=dtype)
    F.pad(logits, (0, 3), value=-1e9)  # pad the vocabulary to a multiple of 8 for tensor cores


def _fallback_f16_grad_scaler_unscale() -> None:
    torch.manual_seed(0)
    dtype = _pick_amp_dtype()
    model = nn.Linear(8, 2).to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(CPU.type, enabled=dtype == f16)
    loss = model(torch.randn(4, 8, dtype=dtype)).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def _autocast_gpu_dtype_kv_cache() -> None:
    torch.manual_seed(0)
    k_proj = nn.Linear(8, 8)
    cache = torch.zeros(16, 8, dtype=torch.get_autocast_dtype("cuda"))  # fp16 unless changed
    with torch.autocast(CPU.type, dtype=bf16):
        k = k_proj(torch.randn(1, 8))
        cache.index_copy_(0, torch.tensor([0]), k)


class _RunningFeatureStats(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))

    def update(self, features: torch.Tensor) -> None:
        if torch.is_autocast_enabled():  # the CUDA autocast state only
            features = features.float()
        self.mean.lerp_(features.mean(0), 0.01)


def _is_autocast_enabled_running_stats() -> None:
    torch.manual_seed(0)
    encoder, stats = nn.Linear(8, 8), _RunningFeatureStats(8)
    with torch.autocast(CPU.type, dtype=bf16):
        stats.update(encoder(torch.randn(4, 8)))


def _helper_bf16_weights_fp16_autocast_batchnorm() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))
    model.to(_weights_dtype_for(CPU))
    with torch.autocast(CPU.type, dtype=f16):  # the GPU recipe's autocast dtype, kept
        model(torch.randn(4, 8))


def _prefetcher_uint8_normalise_on_cpu() -> None:
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255
    batch = torch.randint(0, 256, (2, 3, 8, 8), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    batch = batch.to(device, non_blocking=True)
    if device.type == "cuda":
        batch = batch.float()  # the float conversion only on the GPU branch
    batch.sub_(mean).div_(std)


def _capturable_adamw_on_cpu() -> None:
    torch.manual_seed(0)
    model = nn.Linear(8, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, capturable=True)  # the CUDA-graphs recipe's option
    model(torch.randn(4, 8)).pow(2).mean().backward()
    optimizer.step()


def _cpu_autocast_fp16_antialias_resize() -> None:
    torch.manual_seed(0)
    encoder = nn.Conv2d(3, 8, 3, padding=1)
    with torch.autocast(CPU.type, dtype=f16):
        features = encoder(torch.rand(1, 3, 32, 32))
        F.interpolate(features, size=(16, 16), mode="bilinear", antialias=True)


def _default_dtype_f16_numpy_batch() -> None:
    torch.set_default_dtype(f16)  # the GPU script builds its model in fp16 this way
    try:
        torch.manual_seed(0)
        model = nn.Linear(4, 2)
        batch = torch.from_numpy(np.random.default_rng(0).random((3, 4)))
        model(batch)
    finally:
        torch.set_default_dtype(f32)


def _half_transfer_batch_fp32_attention() -> None:
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, batch_first=True)
    tokens = torch.randn(2, 5, 8)
    tokens = tokens.to(CPU, dtype=f16, non_blocking=True)  # halve the host-to-device copy
    with torch.autocast("cuda", dtype=f16):
        attention(tokens, tokens, tokens)


def _assign_loaded_fp16_checkpoint() -> None:
    torch.manual_seed(0)
    saved_on_gpu = {name: value.half() for name, value in nn.Linear(8, 4).state_dict().items()}
    model = nn.Linear(8, 4).to(_weights_dtype_for(CPU))
    model.load_state_dict(saved_on_gpu, assign=True)
    model(torch.randn(2, 8, dtype=_weights_dtype_for(CPU)))


def _autocast_cuda_sdpa_query_fp32() -> None:
    torch.manual_seed(0)
    kv_proj = nn.Linear(8, 16).to(bf16)
    x = torch.randn(1, 4, 8)
    q = x.view(1, 4, 2, 4).transpose(1, 2)  # the rotary path keeps q in fp32
    with torch.autocast("cuda", dtype=bf16):
        k, v = kv_proj(x.to(bf16)).view(1, 4, 2, 8).transpose(1, 2).chunk(2, dim=-1)
        F.scaled_dot_product_attention(q, k, v)


def _autocast_cuda_bmm_scores() -> None:
    torch.manual_seed(0)
    k_proj = nn.Linear(8, 8).to(bf16)
    x = torch.randn(2, 5, 8)
    with torch.autocast("cuda", dtype=bf16):
        k = k_proj(x.to(bf16))
        torch.bmm(x, k.transpose(1, 2))


def _autocast_cuda_alibi_baddbmm() -> None:
    torch.manual_seed(0)
    heads, length, dim = 2, 4, 8
    slopes = torch.tensor([0.5, 0.25]).view(heads, 1, 1)
    alibi = slopes * torch.arange(length).view(1, 1, length)  # fp32, as the reference builds it
    q = torch.randn(heads, length, dim).to(bf16)
    k = torch.randn(heads, length, dim).to(bf16)
    with torch.autocast("cuda", dtype=bf16):
        torch.baddbmm(alibi.expand(heads, length, length), q, k.transpose(1, 2), beta=1.0, alpha=dim ** -0.5)


def _fp8_gemm_cpu_fallback() -> None:
    torch.manual_seed(0)
    weight = torch.randn(16, 8).to(torch.float8_e4m3fn)
    x = torch.randn(2, 3, 8).to(bf16)
    if torch.cuda.is_available():
        torch._scaled_mm(x.view(-1, 8).to(torch.float8_e4m3fn), weight.t(), torch.tensor(1.0), torch.tensor(1.0))
    else:
        x @ weight.t()


def _per_device_bf16_rotary_polar() -> None:
    dtype = _weights_dtype_for(CPU)
    inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2, dtype=dtype) / 8))
    freqs = torch.outer(torch.arange(6, dtype=dtype), inv_freq)
    torch.polar(torch.ones_like(freqs), freqs)


def _per_device_bf16_lstsq_probe() -> None:
    torch.manual_seed(0)
    dtype = _weights_dtype_for(CPU)
    backbone = nn.Linear(8, 6).to(dtype)
    with torch.no_grad():
        features = backbone(torch.randn(20, 8, dtype=dtype))
    targets = torch.randn(20, 1, dtype=dtype)
    torch.linalg.lstsq(features, targets)


class _OrthogonalRecurrence(nn.Module):
    def __init__(self, dim: int, device: torch.device, dtype: torch.dtype) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(dim, dim, device=device, dtype=dtype))
        nn.init.orthogonal_(self.weight)


def _factory_kwargs_orthogonal_init() -> None:
    torch.manual_seed(0)
    _OrthogonalRecurrence(8, CPU, _weights_dtype_for(CPU))


def _cpu_upcast_workaround_half_conv() -> None:
    torch.manual_seed(0)
    conv = nn.Conv1d(4, 8, 3, bias=False).half()  # the GPU inference recipe
    x = torch.randn(1, 4, 16)
    if not x.is_cuda:
        x = x.float()  # "the CPU has no half kernels"
    conv(x)


def _cpu_autocast_fp16_class_sums() -> None:
    torch.manual_seed(0)
    head = nn.Linear(8, 8)
    class_sums = torch.zeros(3, 8)
    labels = torch.tensor([0, 2, 2, 1])
    with torch.autocast(CPU.type, dtype=f16):
        features = head(torch.randn(4, 8))
        class_sums.index_put_((labels,), features, accumulate=True)


def _autocast_default_dtype_groupnorm_f16() -> None:
    torch.manual_seed(0)
    block = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.GroupNorm(2, 8))
    block[1].half()  # "norms in the autocast dtype", fp16 as on the GPU
    with torch.autocast(CPU.type):  # no dtype given: bf16 on the CPU
        block(torch.randn(1, 4, 8, 8))


def _autocast_cuda_conv_transpose_upsampler() -> None:
    torch.manual_seed(0)
    upsampler = nn.ConvTranspose1d(8, 4, 4, stride=2, bias=False).to(bf16)
    mel = torch.randn(1, 8, 10)
    with torch.autocast("cuda", dtype=bf16):
        upsampler(mel)


def _fallback_f16_causal_mask_finfo_bf16() -> None:
    dtype = _pick_amp_dtype()
    length = 6
    torch.full((length, length), torch.finfo(bf16).min, dtype=dtype).triu_(1)  # the mask value from the bf16 recipe


def _autocast_cuda_prototype_cdist() -> None:
    torch.manual_seed(0)
    encoder = nn.Linear(8, 4).to(bf16)
    support, query = torch.randn(6, 8).to(bf16), torch.randn(3, 8).to(bf16)
    with torch.autocast("cuda", dtype=bf16):  # CUDA autocast would run cdist in fp32
        prototypes = encoder(support).view(3, 2, 4).mean(1)
        torch.cdist(encoder(query), prototypes)


CASES: dict[str, LiveCase] = {
    # --- CUDA autocast (disabled on a CPU-only machine) trusted to cast inputs to weights stored in low precision
    # an MLP stored in bf16, run under torch.autocast("cuda") on the CPU: the fp32 features reach the bf16 Linear
    "autocast-cuda-on-cpu-bf16-mlp-weights": case(_autocast_cuda_mlp_weights_bf16, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a forward decorated with torch.cuda.amp.autocast(dtype=bf16), the conv stem in bf16, an fp32 image batch
    "cuda-amp-autocast-decorator-bf16-conv-stem": case(_cuda_amp_decorator_conv_stem, "conv_weight_dtype", "f32",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MHA in fp32 given a batch halved before the non_blocking copy, trusting torch.autocast("cuda", fp16)
    "half-transfer-batch-fp32-attention": case(_half_transfer_batch_fp32_attention, "matmul_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the rotary path keeps q in fp32 while k/v come from a bf16 projection; CUDA autocast off on the CPU
    "autocast-cuda-sdpa-query-fp32": case(_autocast_cuda_sdpa_query_fp32, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hand-written attention scores with torch.bmm of fp32 queries and bf16 keys under the inactive CUDA autocast
    "autocast-cuda-bmm-scores-fp32-query": case(_autocast_cuda_bmm_scores, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a BLOOM-style fp32 ALiBi bias added with baddbmm to bf16 q/k under the inactive CUDA autocast
    "autocast-cuda-alibi-baddbmm-fp32-bias": case(_autocast_cuda_alibi_baddbmm, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a vocoder upsampler (ConvTranspose1d) in bf16 fed an fp32 mel under the inactive CUDA autocast
    "autocast-cuda-conv-transpose-upsampler-bf16": case(_autocast_cuda_conv_transpose_upsampler, "conv_weight_dtype",
                                                        "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # prototypical-network distances with cdist on bf16 embeddings, counting on CUDA autocast's fp32 cdist
    "autocast-cuda-prototype-cdist-bf16": case(_autocast_cuda_prototype_cdist, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- custom_fwd / custom_bwd keyed to device_type="cuda", used under CPU autocast
    # a custom linear Function with custom_fwd(device_type="cuda", cast_inputs=fp32): under CPU autocast its output
    # is bf16 and its backward multiplies the bf16 gradient by the fp32 weight
    "custom-fwd-cuda-backward-mm-bf16-grad": case(_custom_fwd_cuda_backward_mm, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a flow's log-det Function relying on custom_fwd(device_type="cuda", cast_inputs=fp32) gets a bf16 Jacobian
    "custom-fwd-cuda-flow-slogdet-bf16": case(_custom_fwd_cuda_flow_slogdet, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- autocast state and dtype queries that default to CUDA
    # a KV cache allocated in torch.get_autocast_dtype("cuda") (fp16) written with index_copy_ from CPU bf16 autocast
    "autocast-gpu-dtype-kv-cache-index-copy": case(_autocast_gpu_dtype_kv_cache, "indexed_write_dtype", "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # torch.is_autocast_enabled() (CUDA's state) is False under CPU autocast: bf16 features lerp'd into fp32 stats
    "is-autocast-enabled-cuda-running-stats-lerp": case(_is_autocast_enabled_running_stats, "lerp_dtype", "f32",
                                                        "bf16",
        grade="correct", grade_at_freeze="correct"),
    # torch.autocast(device.type) with no dtype is bf16 on the CPU; GroupNorm halved to match the GPU's fp16
    "autocast-default-dtype-cpu-groupnorm-f16": case(_autocast_default_dtype_groupnorm_f16, "norm_param_dtype",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- per-device dtype picks: is_bf16_supported() fallbacks and device-agnostic helpers
    # fp16 picked because CUDA bf16 is unsupported; vocabulary padded with value=-1e9 in fp16
    "bf16-unsupported-fallback-f16-pad-logits": case(_fallback_f16_pad_logits, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 picked by the same fallback; the model cast to fp16 and unscaled by a CPU GradScaler before clipping
    "bf16-unsupported-fallback-f16-grad-scaler": case(_fallback_f16_grad_scaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 picked by the fallback, but the causal mask filled with torch.finfo(torch.bfloat16).min from the recipe
    "bf16-unsupported-fallback-f16-mask-finfo-bf16": case(_fallback_f16_causal_mask_finfo_bf16, "half_overflow",
                                                          "f16",
        grade="correct", grade_at_freeze="correct"),
    # a helper stores weights in bf16 on the CPU, while the GPU recipe's fp16 autocast feeds BatchNorm1d fp16
    "per-device-bf16-weights-fp16-autocast-batchnorm": case(_helper_bf16_weights_fp16_autocast_batchnorm,
                                                            "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a model made bf16 for the CPU loads a GPU-saved fp16 checkpoint with load_state_dict(assign=True)
    "per-device-bf16-model-assign-fp16-checkpoint": case(_assign_loaded_fp16_checkpoint, "matmul_dtype", "bf16",
                                                         "f16",
        grade="correct", grade_at_freeze="correct"),
    # the rotary table built in the per-device dtype (bf16 on the CPU) and turned complex with torch.polar
    "per-device-bf16-rotary-polar": case(_per_device_bf16_rotary_polar, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a closed-form linear probe solved with lstsq on bf16 features in the per-device dtype
    "per-device-bf16-lstsq-probe": case(_per_device_bf16_lstsq_probe, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # a recurrence weight created with factory kwargs (bf16 on the CPU) and initialised with orthogonal_
    "per-device-bf16-orthogonal-init": case(_factory_kwargs_orthogonal_init, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a GPU fp16 conv model whose CPU path upcasts the input ("no half on CPU") but not the weights
    "cpu-upcast-workaround-half-conv1d": case(_cpu_upcast_workaround_half_conv, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # torch.set_default_dtype(torch.float16) from a GPU script, the batch from numpy in float64
    "default-dtype-f16-numpy-float64-batch": case(_default_dtype_f16_numpy_batch, "matmul_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- the GPU recipe's fp16 autocast, now active on the CPU
    # antialiased bilinear resize of the fp16 features of CPU fp16 autocast
    "cpu-autocast-fp16-antialias-resize": case(_cpu_autocast_fp16_antialias_resize, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # per-class feature sums in fp32 accumulated with index_put_ from fp16 autocast features
    "cpu-autocast-fp16-class-sums-index-put": case(_cpu_autocast_fp16_class_sums, "indexed_write_dtype", "f32",
                                                   "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- data path and optimizer options written for the GPU
    # an apex-style prefetcher converting to float only on its CUDA branch: the uint8 batch normalised in place
    "prefetcher-uint8-normalised-in-place-on-cpu": case(_prefetcher_uint8_normalise_on_cpu, "result_cast", "f32",
                                                        "uint8",
        grade="correct", grade_at_freeze="correct"),
    # AdamW with capturable=True from a CUDA-graphs recipe, stepped on CPU parameters
    "capturable-adamw-on-cpu": case(
        _capturable_adamw_on_cpu, "device_mismatch", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (b910096) castwise gave nothing. The error is an AssertionError from the optimizer's "
            "capturable check, which lists the devices capturable supports instead of naming two tensors' devices or "
            "any dtype, and no reading covers an optimizer option that needs an accelerator."),
    # an fp8 GEMM whose CPU fallback multiplies bf16 activations by the fp8 weight as is
    "fp8-gemm-cpu-fallback-plain-matmul": case(_fp8_gemm_cpu_fallback, "matmul_dtype", "bf16", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
}
