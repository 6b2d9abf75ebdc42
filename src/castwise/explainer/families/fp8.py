"""fp8: torch's float8 dtypes are for storage and scaled matmuls, and only newer GPUs run them.

Three situations recur. An fp8 tensor (fp8 weights, an fp8 checkpoint or KV cache) reaches an op before it
is dequantized: most ops have no fp8 kernel on any device. An fp8 recipe (torchao's float8, Transformer
Engine, an fp8 checkpoint in vLLM or ComfyUI, a Triton fp8 kernel) runs on a GPU below compute capability
8.9, which has no fp8 tensor cores. And `torch._scaled_mm`, the matmul fp8 layers call, refuses scales or
layouts outside the recipes it knows (float32 scales of set shapes, 16-byte aligned operands, sizes in
multiples of 16). A serving library's quantized kernels (vLLM's fp8, Marlin, CUTLASS) likewise need a minimum
GPU, and a build of the library whose compiled ops match its Python code.
"""

from __future__ import annotations

import re

from castwise.explainer.advice import a
from castwise.explainer.clues import paste_search
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtype_read, dtypes, explained, message_only, rule
from castwise.explainer.spelling import is_floating, is_fp8, short_dtype

_OLDER_GPU = "run in bf16 on this GPU (skip the fp8 conversion, or load the checkpoint dequantized to bf16)"


def storage(failure: Failure, op: str, names: tuple[str, ...], device: str | None) -> Explanation:
    """``op`` (on ``device``) has no kernel for the fp8 dtype ``names[0]``: the tensor was used before it was
    dequantized."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` has no {names[0]} kernel: torch keeps the fp8 dtypes mostly for storage and scaled matmuls, so "
        "most ops (arithmetic, reductions, comparisons, random fills) have no fp8 kernel on any device",
        "a tensor stored in fp8 (fp8 weights or an fp8 checkpoint, an fp8 KV cache, `.to(torch.float8_e4m3fn)`) "
        "used in an op before it was dequantized, or a GPU and torch that run the fp8 model's path without an fp8 "
        "kernel for it",
        "dequantize before the op (`x.to(torch.bfloat16)`, times its scale if it has one), or load the model in "
        "bf16/fp16 instead of fp8 (drop the fp8 option for this model or node); copies, concatenation and indexing "
        "gained fp8 kernels in newer torch releases, so update torch if the op only moves data",
        op=op, names=names, device=device,
    )


_capability = message_only(
    Kind.NO_KERNEL,
    "this GPU (or the CPU) has no fp8 matrix multiply: fp8 tensor cores, which `torch._scaled_mm` and every fp8 "
    "layer use, need compute capability 8.9 or 9.0 (Ada: L4, RTX 40xx; Hopper: H100) or an MI300",
    "an fp8 recipe (torchao's float8 training, Transformer Engine's `fp8_autocast`, an fp8-quantized checkpoint or "
    "model file) run on an older GPU (RTX 30xx and A100 are 8.6 and 8.0)",
    f"{_OLDER_GPU}, or move the run to an fp8-capable GPU",
    op="an fp8 matmul", device="cuda",
)


def _between_fp8(found: re.Match[str], failure: Failure) -> Explanation:
    """Inductor's ``Conversions between float8_e5m2 and float8_e4m3fn is not supported!``: no direct cast between the
    two fp8 formats."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.NO_KERNEL, failure,
        f"the compiler has no direct conversion between {' and '.join(names)}: a cast from one fp8 format to the "
        "other is not generated",
        "a tensor in one fp8 format converted to the other (`x.to(torch.float8_e4m3fn)` on an e5m2 tensor, e5m2 "
        "gradients cast for an e4m3 matmul) inside a compiled region",
        "convert through a wider dtype (`x.to(torch.bfloat16).to(torch.float8_e4m3fn)`, or float32 with its scale), "
        "or keep that conversion out of torch.compile",
        op="an fp8 to fp8 conversion", names=names,
    )


def _triton(found: re.Match[str], failure: Failure) -> Explanation:
    """Triton refusing an fp8 type on this GPU; when it lists the fp8 types the GPU has, the fix names them."""
    e5m2_listed = "fp8e5'" in found.group(0) or "fp8e5\"" in found.group(0)
    return explained(
        Kind.NO_KERNEL, failure,
        "Triton cannot compile this fp8 type for this GPU: its e4m3 type (fp8e4nv, float8_e4m3fn) needs compute "
        "capability 8.9 or newer (Ada: L4, RTX 40xx; Hopper: H100)",
        "an fp8 recipe (torchao's or torchtitan's float8, a compiled fp8 model, an fp8 KV cache) run on an older GPU",
        ("use the e5m2 type this GPU has (fp8e5 is float8_e5m2: vLLM's `--kv-cache-dtype fp8_e5m2`); or "
         if e5m2_listed else "") + f"{_OLDER_GPU}, or move the run to an fp8-capable GPU",
        op="a Triton kernel in fp8", names=("float8_e4m3fn",), device="cuda",
    )


def _rocm(found: re.Match[str], failure: Failure) -> Explanation:
    """``Float8_e4m3fn is only supported for ROCm 6.5 and above``: torch's ROCm build too old for fp8 on AMD GPUs."""
    names, dtype = dtype_read(found, "dtype")
    return rocm_too_old(failure, names, dtype, found["version"])


def rocm_too_old(failure: Failure, names: tuple[str, ...], dtype: str, version: str) -> Explanation:
    """fp8 (``dtype``) on an AMD GPU with torch built for a ROCm older than ``version``."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"this torch's ROCm has no {dtype} kernels: fp8 on AMD GPUs needs ROCm {version} or newer (and a GPU "
        "with fp8 units: MI300-class, RDNA4)",
        "an fp8 model or fp8 weight option (ComfyUI's `weight_dtype` fp8, an fp8 checkpoint) run with an older ROCm "
        "build of torch",
        f"install torch built for ROCm {version} or newer, or run in bf16/fp16 (load the model without the "
        "fp8 option)",
        op=f"{dtype} on ROCm", names=names, device="cuda",
    )


def _minimum_capability(found: re.Match[str], failure: Failure) -> Explanation:
    """vLLM's ``The quantization method fp8 is not supported for the current GPU. Minimum capability: 90. Current
    capability: 86``."""
    method, needed, has = found["method"], found["min"], found["has"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"the {method} quantization method's kernels need compute capability {needed[:-1]}.{needed[-1]} and this GPU "
        f"has {has[:-1]}.{has[-1]}",
        f"a checkpoint quantized with {method} (or `--quantization {method}`) served on an older GPU",
        "serve an unquantized (bf16/fp16) checkpoint or one quantized with a method this GPU supports (AWQ or GPTQ "
        "int4 run on Ampere; newer library releases add fallbacks such as fp8 weight-only kernels), or use a newer "
        "GPU",
        op=f"{method} quantization", device="cuda",
    )


def _config_for_another_format(found: re.Match[str], failure: Failure) -> Explanation:
    """SGLang's ``ModelOptFp8Config only supports static FP8 quantization ... For FP4 quantization, use
    ModelOptFp4Config``: a checkpoint quantized to one format loaded with the config of another."""
    config, want, other = found["config"], found["want"], found["other"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{config}` handles only {found['what']} quantization, and this checkpoint is quantized to {want}",
        f"a checkpoint quantized to {want} loaded with the quantization method of another format (a "
        "`--quantization` flag or a config that names the wrong one)",
        f"load it with `{other}`, the method for {want} (the matching `--quantization` value, or none so the server "
        "reads the checkpoint's own quantization config)",
        op=f"{config}",
    )


def _missing_compiled_op(found: re.Match[str], failure: Failure) -> Explanation:
    """``'_OpNamespace' '_C' object has no attribute 'cutlass_scaled_mm_supports_fp8'``: the library's compiled ops lack
    a quantized kernel its Python code calls."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"the installed library's compiled ops have no `{found['op']}`: its Python code and its compiled `_C` "
        "extension come from different versions, or it was built without its quantized (fp8, CUTLASS, Marlin) "
        "kernels for this GPU",
        "a source or editable install of vLLM (or a fork) whose extension was not rebuilt, a wheel for another "
        "torch or CUDA version, or a build on a machine without the GPU architecture",
        "reinstall a wheel that matches your torch and CUDA (`pip install --force-reinstall vllm==<version>`), or "
        "rebuild the extension for this GPU; until then serve a bf16/fp16 checkpoint",
        op=found["op"], device="cuda", confidence=Confidence.LOW,
    )


_e5m2_cache_with_fp8_weights = message_only(
    Kind.NO_KERNEL,
    "vLLM refuses an e5m2 KV cache with an fp8-quantized checkpoint: its fp8 path (and any KV-cache scales the "
    "checkpoint carries) is e4m3",
    "`--kv-cache-dtype fp8_e5m2` (`kv_cache_dtype='fp8_e5m2'`) given with a model quantized to fp8",
    "use `--kv-cache-dtype fp8` (or `fp8_e4m3`) with an fp8 checkpoint, or `auto` for a cache in the model's dtype",
    op="vLLM's KV cache", names=("float8_e5m2",),
)

_SCALED_MM_GOT = re.compile(
    r"mat_a\.dtype\(\)=(?P<mat_a>\w+), scale_a\.dtype\(\)=(?P<scale_a>\w+).{0,120}?mat_b\.dtype\(\)=(?P<mat_b>\w+), "
    r"scale_b\.dtype\(\)=(?P<scale_b>\w+)")


def _scales(found: re.Match[str], failure: Failure) -> Explanation:
    """``torch._scaled_mm`` refusing its configuration; newer torch adds what it got, which says whether an operand
    or a scale has the wrong dtype."""
    del found
    got = paste_search(failure, _SCALED_MM_GOT)
    held = {key: short_dtype(value) or value for key, value in got.groupdict().items()} if got else {}
    mats = [held[key] for key in ("mat_a", "mat_b") if key in held]
    odd_mat = next((name for name in mats if not is_fp8(name)), None)
    fp8 = next((name for name in mats if is_fp8(name)), "float8_e4m3fn")
    if odd_mat is not None and not is_floating(odd_mat):
        return explained(
            Kind.INTEGER_OPERAND, failure,
            f"`torch._scaled_mm` got {a(odd_mat)} operand: it multiplies fp8 operands only",
            f"int8 codes (an int8-quantized weight) handed to the fp8 matmul, or fp8 bytes kept as {odd_mat}",
            "use the kernel for the codes' format (`torch._int_mm` for int8 × int8), or quantize the weight to fp8 "
            "(`(w / scale).to(torch.float8_e4m3fn)`); fp8 bytes stored as uint8 are reinterpreted with "
            "`w.view(torch.float8_e4m3fn)`",
            op="torch._scaled_mm", names=(odd_mat,),
        )
    odd_scale = next((held[key] for key in ("scale_a", "scale_b") if key in held and held[key] != "f32"), None)
    odd = odd_mat or odd_scale
    if odd is not None:
        which = "an operand" if odd_mat else "a scale"
        return explained(
            Kind.MATMUL, failure,
            f"`torch._scaled_mm` got {which} in {odd} beside {fp8}: it wants both operands in fp8 and both scales "
            "in float32",
            "a `model.to(torch.bfloat16)` (or `.half()`) after quantizing, which converts the fp8 weight and its "
            "float32 scales back" if odd_mat else "a scale computed from a bf16 tensor (`w.abs().max() / 448` keeps "
            "w's dtype), or float32 scales converted with the model (`model.to(torch.bfloat16)` after quantizing)",
            "keep the scales float32 (`scale = (w.abs().max().float() / 448)`, registered as a buffer the model's "
            "conversions skip, or converted back with `.float()` before the call) and both operands fp8; quantize "
            "after the last `model.to(...)`, not before",
            op="torch._scaled_mm", names=(fp8, odd),
        )
    return explained(
        Kind.SCALAR_TYPE, failure,
        "`torch._scaled_mm` refused its scales: each recipe it runs wants float32 scales of set shapes (one scalar "
        "per operand for tensor-wise scaling, (M, 1) and (1, N) for row-wise, both contiguous) and fp8 operands",
        "scales in bf16/fp16 (made from the activations' dtype, or converted with the model), of the wrong shape, or "
        "overwritten in place between calls (a layer's cached scale reused by a second branch or batch)",
        "pass float32 scales of the shape the message lists (`scale.float().reshape(-1, 1)` for row-wise), computed "
        "per call rather than cached and changed in place; keep the operands float8_e4m3fn/e5m2",
        op="torch._scaled_mm", confidence=Confidence.LOW,
    )


_divisible = message_only(
    Kind.NO_KERNEL,
    "fp8 matrix multiplies need every dimension to be a multiple of 16 (Transformer Engine asks for a height "
    "divisible by 8 and a width divisible by 16): fp8 tensor cores have no kernel for other sizes",
    "a layer run under fp8 (`te.fp8_autocast`, torchao's float8) whose input rows or features are not multiples of "
    "16 (an odd batch times sequence length, a small head or embedding size)",
    "pad the input (and the weight's dimensions) to a multiple of 16 (32 is safest), or run that layer outside the "
    "fp8 region in bf16",
    op="an fp8 matmul",
)


def _unknown_cache_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """vLLM's ``Unknown TurboQuant cache dtype: 'auto'``: a KV-cache backend handed a cache dtype it has no path for
    (a layer that resolved to another cache dtype than the one asked for)."""
    backend = f"{found['backend']} " if found["backend"] else ""
    return explained(
        Kind.NO_KERNEL, failure,
        f"the {backend}KV-cache backend got cache dtype '{found['dtype']}', which it has no path for: it runs only "
        "the cache dtypes (presets) it lists",
        f"a `--kv-cache-dtype` the model's layers do not all take: in a hybrid model (linear-attention or state "
        f"layers beside attention) some layers resolve to '{found['dtype']}' and reach that backend anyway; or a "
        "preset name from another vLLM version",
        "use a cache dtype every layer of this model supports (`--kv-cache-dtype auto`, or `fp8`), or a model "
        "without state layers for that preset; update vLLM if a newer one lists this combination",
        op="KV-cache dtype", confidence=Confidence.LOW,
    )


_fp8_backend_missing = message_only(
    Kind.NO_KERNEL,
    "accelerate runs fp8 through a backend library (Transformer Engine, MS-AMP or torchao), and none is installed",
    "`mixed_precision='fp8'` (or `--mixed_precision fp8`) in an environment with only torch and accelerate; fp8 also "
    "needs an Ada or Hopper GPU (compute capability 8.9 or newer)",
    "install a backend (`pip install transformer_engine[pytorch]`, or torchao with accelerate's `fp8_backend='AO'`) "
    "on a GPU with fp8 cores; otherwise use `mixed_precision='bf16'`",
    op="accelerate fp8",
)


def _cublaslt_layout(found: re.Match[str], failure: Failure) -> Explanation | None:
    """cuBLASLt refusing a matmul in a paste that runs fp8 (``torch._scaled_mm``): the operands' layout, not a
    missing dtype."""
    if paste_search(failure, _FP8_SAID) is None:
        return None
    return explained(
        Kind.NO_KERNEL, failure,
        f"cuBLASLt refused an fp8 matrix multiply ({found['status']}): its fp8 kernels need 16-byte aligned operands "
        "(a storage offset that is a multiple of 16 elements), sizes and leading dimensions in multiples of 16, the "
        "first operand row-major and the second column-major",
        "fp8 operands that are views (a slice with an odd storage offset, a transpose of the wrong operand), or "
        "shapes that are not multiples of 16",
        "make each fp8 operand contiguous in the layout `torch._scaled_mm` wants (`a.contiguous()`, "
        "`b.t().contiguous().t()`) and pad its sizes to multiples of 16",
        op="torch._scaled_mm", device="cuda", confidence=Confidence.LOW,
    )


_FP8_SAID = re.compile(r"_scaled_mm|float8|\bfp8", re.IGNORECASE)


def _dtype_too_new(found: re.Match[str], failure: Failure) -> Explanation:
    """``module 'torch' has no attribute 'float8_e4m3fn'``: a torch older than the dtype the code names."""
    names, dtype = dtype_read(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"this torch has no `torch.{found['dtype']}`: it predates the dtype (float8_e4m3fn and float8_e5m2 came in "
        "torch 2.1, uint16/32/64 in 2.3, float8_e8m0fnu in 2.7)",
        f"a library or checkpoint loader that names {dtype} run with an older torch than it needs",
        "update torch (`pip install -U torch`, with the CUDA build you use) to the version the library requires",
        op=f"torch.{found['dtype']}", names=names,
    )


_mxfp4_fallback = message_only(
    Kind.NO_KERNEL,
    "transformers runs MXFP4 weights (gpt-oss's) only with Triton 3.4 or newer and the `kernels` package; without "
    "them it dequantizes the whole model to bf16, which takes about four times the memory of the MXFP4 weights",
    "an environment whose Triton is older than 3.4 (torch pins its Triton) or lacks `kernels`, or a GPU the MXFP4 "
    "kernels do not support; fine-tuning dequantizes as well",
    "install a torch whose Triton is 3.4 or newer and `pip install -U kernels`, then load with "
    "`Mxfp4Config(dequantize=False)`; where that cannot run, plan for the bf16 model's memory",
    op="MXFP4 kernels",
)


_fp8_kv_cache_backend = message_only(
    Kind.NO_KERNEL,
    "the serving engine's attention backend has no kernel for an fp8 KV cache: `--kv-cache-dtype fp8` rules it out "
    "(vLLM's selector says `[kv_cache_dtype not supported]`, or falls back from FlashAttention)",
    "an fp8 KV cache asked of a model, GPU or engine version whose attention backend (FlashAttention 2 or 3, "
    "FlashMLA, FlashInfer for some quantizations) does not list it",
    "serve with `--kv-cache-dtype auto` (the model's dtype), or pick a backend that lists fp8 caches for this model "
    "and GPU (`VLLM_ATTENTION_BACKEND`), or update the engine",
    op="attention with an fp8 KV cache",
)


_fp8_needs_newer_gpu = message_only(
    Kind.NO_KERNEL,
    "this GPU has no fp8 tensor cores: fp8 matmuls need compute capability 8.9 (Ada) or 9.0 (Hopper) and newer, so the "
    "engine either refuses the fp8 model or runs it with slower weight-only kernels",
    "an fp8 checkpoint (or `--quantization fp8`) served on an Ampere or older GPU (A100, A10, RTX 30xx), or on a "
    "newer GPU that the engine version does not recognise",
    "on Ampere serve the bf16 model, or an int8/int4 (GPTQ, AWQ) quantization; on Ada or Hopper, update the engine so "
    "it detects the GPU's fp8 support",
    op="fp8 matmul", names=("float8_e4m3fn",), confidence=Confidence.LOW,
)


_scaled_mm_bias_float32 = message_only(
    Kind.NO_KERNEL,
    "torch._scaled_mm (the fp8 matmul) has no kernel that adds a bias when it is asked for a float32 output: with "
    "`out_dtype=torch.float32` it takes no bias",
    "an fp8 Linear (an fp8 checkpoint's layer, a node or library that patches Linear to run `_scaled_mm`) called with "
    "its bias and a float32 output dtype, e.g. when the model or the sampler runs in float32",
    "ask for a 16-bit output (`out_dtype=torch.bfloat16`) so the bias can be fused, or add the bias after the matmul "
    "(`torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.float32) + bias`); in a UI, run the model in "
    "bf16/fp16 or update the node that patches Linear",
    op="torch._scaled_mm", names=("f32",),
)


_lora_beside_fp8_matmul = message_only(
    Kind.NO_KERNEL,
    "an fp8 matmul (scaled mm over fp8 weights) has no path for LoRA weights kept unmerged beside it: the fp8 "
    "kernel takes one fp8 weight, not a base weight plus low-rank updates in 16-bit",
    "a model loaded with fp8 matmul (fp8 scaled weights) and LoRAs applied without merging them into the weights",
    "merge the LoRAs into the weights (the loader's merge option) before fp8 matmul, or turn fp8 matmul off and run "
    "the weights in bf16/fp16 with the LoRAs unmerged",
    op="fp8 matmul with LoRA", names=("float8_e4m3fn",),
)


_scaled_checkpoint_refused = message_only(
    Kind.NO_KERNEL,
    "this loader (a node or script) does not read \"fp8 scaled\" checkpoints: fp8 weights stored with a scale per "
    "tensor (`scale_weight`), which it would load as plain fp8 and get wrong",
    "a `*_fp8_scaled.safetensors` file (a text encoder or a model made for another loader, such as ComfyUI's native "
    "one) given to a loader that takes plain fp8_e4m3fn or 16-bit weights",
    "give this loader the file it supports (the plain fp8_e4m3fn or the bf16/fp16 checkpoint), or load the scaled "
    "file with the loader made for it (the app's native loader)",
    op="the loader's fp8 check", names=("float8_e4m3fn",),
)


_scaled_mm_fell_back = message_only(
    Kind.NO_KERNEL,
    "the fp8 matmul (`torch._scaled_mm`) failed on this setup, and the app fell back to dequantizing the fp8 weights "
    "to 16-bit for each matmul: it runs on, slower and with more memory; the words after the colon are why the fp8 "
    "path failed",
    "fp8 fast matmul turned on for a model, GPU, torch or app version where the fp8 path has a gap or a bug (a scale "
    "or a weight the path does not expect)",
    "nothing is lost but speed: to silence it, turn fp8 fast matmul off (run the weights as stored, or in bf16/fp16); "
    "to get the fp8 speed, update the app and torch (such fallbacks are fixed there) and check the GPU has fp8 units "
    "(Ada, Hopper, Blackwell)",
    op="torch._scaled_mm", names=("float8_e4m3fn",), confidence=Confidence.LOW,
)


def _rocm_said(found: re.Match[str], failure: Failure) -> Explanation:
    """FP8 said to need a newer ROCm (``FP8 not running claiming I need ROCm 6.5 or higher``): torch's ROCm build too
    old for fp8, as its own ``Float8_e4m3fn is only supported for ROCm 6.5 and above`` says."""
    return rocm_too_old(failure, ("float8_e4m3fn",), "float8_e4m3fn", found["version"]).less_sure(
        "the paste says so in its own words, not in torch's message")


RULES: tuple[Rule, ...] = (
    rule(r"\bfp8[ _]scaled (?:models? |weights |checkpoints? )?(?:is |are )?not supported", _scaled_checkpoint_refused),
    rule(r"\bFP8 _scaled_mm failed, falling back to dequantization", _scaled_mm_fell_back),
    rule(r"\b(?:fp8|float8)\b[^\n]{0,60}?\b(?:requires?|needs?|need)\b[^\n]{0,12}?\bROCm (?P<version>\d+(?:\.\d+)?)"
         r"(?: or (?:higher|newer|above)|\+)", _rocm_said),
    rule(r"Conversions? between (?P<a>float8_e[45]m[23]\w{0,4}) and (?P<b>float8_e[45]m[23]\w{0,4}) (?:is|are) not "
         r"supported", _between_fp8),
    rule(r"Bias is not supported when out_dtype is set to Float32", _scaled_mm_bias_float32),
    rule(r"FP8 matmul with unmerged LoRAs? is not supported", _lora_beside_fp8_matmul),
    rule(r"fp8_e5m2 kv-cache is not supported with fp8 checkpoints", _e5m2_cache_with_fp8_weights),
    rule(r"\btype fp8e(?:4nv|5|4b15|4b8|5b16) not supported in this architecture[^\n]{0,120}", _triton),
    rule(r"\b(?:fp8e4nv|f8e4m3nv)\b[^\n]{0,40}?(?:is )?(?:only supported|not supported) on (?:compute capability|"
         r"CUDA arch)", _triton),
    rule(r"_scaled_mm is only supported on (?:CUDA )?devices with compute capability|\b(?:fp8|float8)\b[^\n]{0,40}?"
         r"only supported on (?:sm_?8\.?9|sm_?9\.?0|H100|Hopper|Ada)|\bFP8 (?:models|execution|training|"
         r"inference)?\s?requires? a GPU with [Cc]ompute [Cc]apability|[Cc]ompute capability 8\.9 or higher required "
         r"for FP8", _capability),
    rule(r"\b(?P<dtype>[Ff]loat8_\w{1,12}) is only supported (?:for|on|with) ROCm (?P<version>\d+(?:\.\d+)?)", _rocm),
    rule(r"quantization method (?P<method>[\w-]{1,30}) is not supported for the current GPU\.? Minimum capability: "
         r"(?P<min>\d{2,3})\.? Current capability: (?P<has>\d{2,3})", _minimum_capability),
    rule(r"\b(?P<config>\w{1,40}Config) only supports (?P<what>[\w -]{1,40}?) quantization\b[^\n]{0,40}?\. For "
         r"(?P<want>[\w-]{1,12}) quantization,? use (?P<other>\w{1,40}Config)\b", _config_for_another_format),
    rule(r"'_OpNamespace' '_C' object has no attribute '(?P<op>\w{0,40}(?:fp8|scaled_mm|cutlass|marlin|gptq|awq)"
         r"\w{0,40})'", _missing_compiled_op),
    rule(r"Invalid scaling configuration\.?(?:\s*-\s*For (?:TensorWise|RowWise) scaling)?", _scales),
    rule(r"FP8 execution requires 2D input matrices with height divisible by \d+ and width divisible by \d+|"
         r"Tensor dimensions are not compatible for FP8 execution", _divisible),
    rule(r"Using `?fp8`? precision requires `?transformer_engine`? or `?MS-AMP`?", _fp8_backend_missing),
    rule(r"Unknown (?:(?P<backend>\w{1,30}) )?cache dtype:? '(?P<dtype>[\w.-]{1,40})'", _unknown_cache_dtype),
    rule(r"(?P<status>CUBLAS_STATUS_(?:NOT_SUPPORTED|INVALID_VALUE)) when calling cublasLtMatmul", _cublaslt_layout),
    rule(r"module '?torch'? has no attribute '(?P<dtype>float8_\w{1,12}|uint(?:16|32|64))'", _dtype_too_new),
    rule(r"MXFP4 quantization requires `?triton ?>= ?3\.4", _mxfp4_fallback),
    rule(r"Cannot use [\w-]{1,40} backend for FP8 KV cache|\[kv_cache_dtype not supported\]", _fp8_kv_cache_backend),
    rule(r"Your GPU does not have native support for FP8 computation|FP8 quantized models is only supported on GPUs "
         r"with compute capability >= ?[89]\.\d", _fp8_needs_newer_gpu),
)
