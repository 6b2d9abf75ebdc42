"""Missing support that a library, a backend or a GPU stack words its own way, each once per place it is raised.

torch's own messages name a kernel and a dtype (``kernels``). The layers on top of it check first and say it in
their own words: accelerate's and the Trainer's device checks, diffusers' fp16-on-cpu warning, DeepSpeed's
accelerators, Composer's precision names, gguf without BF16, torchao's bit widths, xformers' and FlashAttention's
GPU checks, DeepSpeed's Evoformer kernel, vLLM's Marlin kernel, einops' dtype list; and the stacks below it fail in
theirs: cuBLAS statuses for 16-bit GEMMs, MPSGraph and MLIR type checks, OneFlow's compiled graphs, Intel's Level Zero,
Ascend's ``DT_`` dtypes, an XPU without fp64, an extension built without half support. Each reads as the missing
kernel or support it is, with the fix that place has.
"""

from __future__ import annotations

import re

from castwise.explainer.advice import a, dtype_list
from castwise.explainer.clues import low_precision_said, paste_search
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families import integers
from castwise.explainer.families.kernels import no_float64, no_kernel
from castwise.explainer.families.mixed import mixed_float
from castwise.explainer.rules import Rule, dtype_read, dtypes, explained, message_only, rule
from castwise.explainer.spelling import full_name, is_floating, is_low_precision, short_dtype, short_dtypes


def _mixed_precision_device(found: re.Match[str], failure: Failure) -> Explanation:
    names, dtype = dtype_read(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"{dtype} mixed precision was asked for on a device that does not run it here ({found.group(0)})",
        "a launcher or config (accelerate's `mixed_precision`, a Trainer's `fp16=True`/`bf16=True`) set for a GPU, "
        "run where no GPU is visible (the CPU, MPS) or on a GPU without bf16",
        "use a precision this device runs: 'bf16' mixed precision on a recent CPU, fp16 on a GPU older than Ampere, or "
        "'no'; check that torch sees the GPU (`torch.cuda.is_available()`)",
        op=f"{dtype} mixed precision", names=names,
    )


def _cublas_16bit(found: re.Match[str], failure: Failure) -> Explanation:
    if found["type"].upper() == "CUDA_R_16BF":
        return explained(
            Kind.NO_KERNEL, failure,
            "cuBLAS has no bf16 matmul for this GPU (CUBLAS_STATUS_NOT_SUPPORTED with CUDA_R_16BF): bf16 needs compute "
            "capability 8.0 (Ampere) or newer, and a CUDA recent enough for it",
            "a model or config in bf16 (`torch_dtype=torch.bfloat16`, `bf16=True`, `dtype='auto'` reading bf16) run on "
            "an older GPU (T4, V100, P100, RTX 20xx)",
            "use float16 on this GPU (`torch_dtype=torch.float16`, '16-mixed' for training) or float32",
            op="cublasGemmEx (bf16)", names=("bf16",), device="cuda", confidence=Confidence.LOW,
        )
    return no_kernel(failure, "cublasGemmEx", ("f16",), "cuda", Confidence.LOW)


_ampere_attention = message_only(
    Kind.NO_KERNEL,
    "FlashAttention's kernels exist only for Ampere (compute capability 8.0) or newer GPUs, in fp16/bf16",
    "`attn_implementation='flash_attention_2'` (or a model that imports flash_attn) on an older GPU (T4, V100)",
    "use another attention implementation (`attn_implementation='sdpa'`, or 'eager'), or run on an Ampere or newer GPU",
    op="FlashAttention", device="cuda",
)


def _cutlass(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    names = low_precision_said(failure)
    return explained(
        Kind.NO_KERNEL, failure,
        "xformers' memory-efficient attention (cutlass) has no kernel for these inputs on this GPU: their dtype "
        "(fp32 on an older GPU, bf16 below Ampere), head size or alignment",
        "attention inputs in a dtype this GPU's cutlass kernels lack, or an xformers build for another GPU or CUDA",
        "run attention in fp16 (load the model with `torch_dtype=torch.float16`), or disable xformers and use torch's "
        "sdpa; reinstall xformers built for this torch/CUDA",
        op="xformers cutlass attention", names=names[:1], device="cuda", confidence=Confidence.LOW,
    )


_XFORMERS_QUERY = re.compile(r"\bquery\s*:\s*shape=\([^)\n]{0,60}\)\s*\((?P<dtype>torch\.\w{1,20})\)")
_XFORMERS_FLOAT32 = re.compile(r"dtype=torch\.float32 \(supported: \{torch\.(?:float16|bfloat16)|"
                               r"AttentionOpDispatch\(dtype=torch\.float32\b")
_XFORMERS_WITHOUT_CUDA = re.compile(r"xFormers wasn't buil[dt] with CUDA support", re.IGNORECASE)
_XFORMERS_BF16_BELOW_AMPERE = re.compile(r"bf16 is only supported on A100\+? GPUs", re.IGNORECASE)
_XFORMERS_LISTING = 40
"""Lines around xformers' refusal read for its inputs and each operator's reasons (printed below the error line)."""
_NO_XFORMERS = ("or disable xformers and use torch's own attention (`F.scaled_dot_product_attention`; drop "
                "`enable_xformers_memory_efficient_attention()` / `--xformers`)")


def _xformers_no_operator(found: re.Match[str], failure: Failure) -> Explanation | None:
    """xformers' ``No operator found for `memory_efficient_attention_forward` with inputs:``, read with the inputs and
    each operator's reasons it lists: a build without CUDA kernels, float32 inputs, or 16-bit inputs refused for other
    reasons. bf16 refused below Ampere is left to its own rule."""
    del found
    lines = failure.paste or (failure.message,)
    listing = "\n".join(lines[max(0, failure.line - _XFORMERS_LISTING):failure.line + _XFORMERS_LISTING])
    if _XFORMERS_BF16_BELOW_AMPERE.search(listing):
        return None
    query = _XFORMERS_QUERY.search(listing)
    names = dtypes(query, "dtype") if query else ("f32",) if _XFORMERS_FLOAT32.search(listing) else ()
    if _XFORMERS_WITHOUT_CUDA.search(listing):
        return explained(
            Kind.NO_KERNEL, failure,
            "the installed xformers has no CUDA kernels (\"xFormers wasn't built with CUDA support\"), so none of its "
            "attention operators can run these inputs",
            "an xformers wheel built for another torch or CUDA version than the installed one (its compiled ops do not "
            "load), or a CPU-only build; common when a venv is copied or xformers is upgraded without torch",
            f"reinstall xformers built for the installed torch (the release made for that torch version; `python -m "
            f"xformers.info` shows which operators load), {_NO_XFORMERS}",
            op="xformers' memory_efficient_attention", names=names, device="cuda",
        )
    if names == ("f32",):
        return explained(
            Kind.NO_KERNEL, failure,
            "xformers' memory-efficient attention got float32 inputs: its fast kernels take only fp16/bf16, and its "
            "float32 kernels refused these inputs too (for the GPU, the head size or the alignment they list)",
            "attention run in fp32: a model loaded or trained without fp16/bf16 (no autocast around the call), or an "
            "upcast right before it",
            "run attention in fp16/bf16 (train with '16-mixed'/'bf16-mixed' or under `torch.autocast`, or load with "
            f"`torch_dtype=torch.float16`), {_NO_XFORMERS}, which takes float32",
            op="xformers' memory_efficient_attention", names=names, device="cuda",
        )
    dtype = names[0] if names else "these"
    return explained(
        Kind.NO_KERNEL, failure,
        f"no xformers attention operator accepts these {dtype} inputs: each refused them for the reasons it lists (an "
        f"attn_bias type or alignment, the head size, the GPU), not for the dtype alone",
        "an attention call (its bias, head size or GPU) outside what the installed xformers' kernels cover",
        f"meet what the operators list (an attn_bias allocated with a last dimension that is a multiple of 8, then "
        f"sliced; a supported head size), update xformers, {_NO_XFORMERS}",
        op="xformers' memory_efficient_attention", names=names, device="cuda",
    )


_bitsandbytes_int8 = message_only(
    Kind.NO_KERNEL,
    "bitsandbytes' 8-bit matmul (LLM.int8) failed in cuBLASLt: its int8 path used cuBLASLt's col_turing/col_ampere "
    "layouts, which older bitsandbytes releases could not run on every GPU (Hopper such as the H100, and GPUs before "
    "Turing, lacked them)",
    "`load_in_8bit=True` (or an 8-bit optimizer's matmul) with a bitsandbytes release older than the GPU",
    "update bitsandbytes (later releases run int8 without those layouts), or load the model in 4-bit "
    "(`load_in_4bit=True`) or bf16 on this GPU",
    op="bitsandbytes int8 matmul", names=("int8",), device="cuda", confidence=Confidence.LOW,
)


_cutlass_gemm = message_only(
    Kind.NO_KERNEL,
    "a CUTLASS kernel (a low-precision GEMM: fp8, int8, int4) could not start on this GPU: such kernels are built for "
    "one GPU architecture (fp8 rowwise and several int4 kernels need Hopper's TMA, sm90) or need more shared memory "
    "than this GPU has",
    "an fp8/int8/int4 matmul (`torch._scaled_mm`, torchao's or a library's quantized linear) run on a GPU older than "
    "its kernel was written for",
    "run it on a GPU the kernel supports (Hopper for fp8 rowwise), or choose a dtype or quantization this GPU runs "
    "(bf16/fp16 weights, another quantization config); update the library if it should fall back by itself",
    op="CUTLASS GEMM", device="cuda", confidence=Confidence.LOW,
)


def _fused_adam_param_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """Transformer Engine's fused Adam (``multi_tensor_adam``): ``Param tensor 0 has dtype=Float32, but expected
    dtype=BFloat16``, a parameter of another dtype than the one its kernel was set up for."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.OP_DTYPE, failure,
        f"a fused Adam kernel got a parameter in {names[0]} where it was set up for {names[1]}: it updates every "
        "parameter of a group in one launch, so they must share one dtype",
        "a model whose parameters are not all one dtype (norms or embeddings kept in fp32 beside bf16 weights, or a "
        "layer added after the cast) handed to a fused optimizer in one parameter group, or master-weight settings "
        "that do not match the parameters",
        f"give the optimizer parameters of one dtype: cast the model before building it (`model.to(torch."
        f"{full_name(names[1])})`), or put the {names[0]} parameters in their own group (or optimizer); keep master "
        "weights in fp32 through the optimizer's own option, not by mixing dtypes in a group",
        op="fused Adam (multi_tensor_adam)", names=names,
    )


def _tensorrt_input_type(found: re.Match[str], failure: Failure) -> Explanation:
    """Torch-TensorRT's ``Provided an unsupported data type as an input data type (support: bool, int32, long, half,
    float), got: torch.float8_e4m3fn``: an engine input in a dtype it does not take."""
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.NO_KERNEL, failure,
        f"Torch-TensorRT takes engine inputs only in {found['listed']}, and got a {dtype} input",
        f"a {dtype} tensor passed as the compiled module's input (or its `Input(dtype=...)` spec): fp8 and bf16 live "
        "inside a TensorRT engine, not at its inputs",
        "give the engine float/half inputs and let the fp8 (or bf16) conversion happen inside it (a quantized model "
        "from TensorRT Model Optimizer, `enabled_precisions={torch.float8_e4m3fn}`), or update Torch-TensorRT to a "
        "release that takes this dtype at its inputs",
        op="Torch-TensorRT input", names=names,
    )


def _deepspeed_parameters_not_16bit(found: re.Match[str], failure: Failure) -> Explanation:
    """DeepSpeed's ``fp16 is enabled but the following parameters have dtype that is not fp16: ...lora_A.weight``:
    with its fp16 (or bf16) engine every parameter it trains must already be in that dtype."""
    engine = short_dtype(found["dtype"]) or "f16"
    listed = short_dtype(found["listed"]) if found["listed"] else None
    names = (engine, listed if listed and listed != engine else "f32" if engine != "f32" else "bf16")
    if engine == "f32":
        return explained(
            Kind.OP_DTYPE, failure,
            f"DeepSpeed runs its fp32 engine (its config enables neither fp16 nor bf16), and the parameters listed are "
            f"{names[1]}",
            f"a model loaded or cast to {names[1]} (`torch_dtype=torch.{full_name(names[1])}`) trained with a "
            "DeepSpeed config (or Lightning/Trainer precision) that does not enable that 16-bit mode",
            f"enable the matching mode in the DeepSpeed config (`\"{'bf16' if names[1] == 'bf16' else 'fp16'}\": "
            "{\"enabled\": true}`, or the Trainer's/Lightning's matching precision), or load the model in fp32",
            op="DeepSpeed's precision check", names=names,
        )
    return explained(
        Kind.OP_DTYPE, failure,
        f"DeepSpeed's {found['dtype']} engine trains parameters stored in {names[0]} (it keeps its own fp32 master "
        f"copy), and the parameters listed are in another dtype",
        "parameters created after the model was cast: LoRA/adapter weights that PEFT makes in fp32, a new head, or "
        "a module kept in fp32 on purpose",
        f"cast the model, adapters included, to {names[0]} before `deepspeed.initialize` / the Trainer "
        f"(`model.to(torch.{full_name(names[0])})` after `get_peft_model`), or train with bf16 autocast instead of the "
        "fp16 engine so fp32 adapters are allowed",
        op="DeepSpeed's precision check", names=names,
    )


def _cutlass_mma(found: re.Match[str], failure: Failure) -> Explanation:
    """CUTLASS's ``cutlass::arch::Mma<..., cutlass::float_e4m3_t, ...> ... not implemented``: a tensor-core instruction
    for that dtype that this build and GPU architecture do not provide."""
    name = dtypes(found, "type")[0]
    return explained(
        Kind.NO_KERNEL, failure,
        f"CUTLASS has no {name} tensor-core instruction (MMA) for the architecture this kernel was compiled for: the "
        f"{name} path exists only in builds for GPUs that have it (fp8 from sm_89, Ada and Hopper)",
        f"a {name} matmul (torchao's float8, a library's fp8 GEMM) run from a build compiled without that "
        "architecture (`TORCH_CUDA_ARCH_LIST`, a prebuilt wheel for older GPUs), or on a GPU without fp8 cores",
        "use a build compiled for your GPU's architecture (sm_89 or sm_90 for fp8), update the library, or run that "
        "layer in bf16",
        op="CUTLASS MMA", names=(name,), device="cuda", confidence=Confidence.LOW,
    )


def _core_ml_outputs(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Core ML's ``Error computing NN outputs`` with a 16-bit dtype said near it; declined without one."""
    del found
    names = low_precision_said(failure)
    if not names:
        return None
    return explained(
        Kind.NO_KERNEL, failure,
        f"Core ML's runtime failed computing the model's outputs in {names[0]}: a layer it cannot run in "
        f"{names[0]} on this device or OS version (the same model in float32 runs)",
        f"a PyTorch model converted to Core ML with {names[0]} compute precision (coremltools' default for ML "
        "programs), run where that layer has no 16-bit kernel",
        "convert with `compute_precision=ct.precision.FLOAT32`, or run with `compute_units=ct.ComputeUnit.CPU_ONLY`; "
        "update macOS and coremltools",
        op="Core ML prediction", names=names[:1], confidence=Confidence.LOW,
    )


def _sparse_conv_types(found: re.Match[str], failure: Failure) -> Explanation:
    """A sparse-convolution library (MinkowskiEngine) refusing input features and a kernel of two dtypes; the dtypes
    from its message, else the 16-bit dtype the paste names."""
    names = dtypes(found, "a", "b") or low_precision_said(failure)[:1]
    return mixed_float(
        Kind.CONV_WEIGHT, failure, names, "a sparse convolution",
        "a sparse convolution (MinkowskiEngine) got its input features and its kernel (weight) in different dtypes; "
        "its kernels take one dtype for both, and some versions no 16-bit at all",
        culprit="a model converted to 16-bit (`.half()`, a `-true` precision) fed float32 features, or 16-bit "
        "features from autocast or Lightning's 16-bit precision meeting a float32 kernel",
        fix="give the features the kernel's dtype (`features.to(conv.kernel.dtype)`), or keep the sparse network in "
        "float32 (outside autocast); if the library has no 16-bit kernels, run it in float32",
        confidence=Confidence.LOW,
    )


def _sparse_conv_algorithm(found: re.Match[str], failure: Failure) -> Explanation | None:
    """spconv's tuner finding no algorithm, when the paste runs in 16-bit: most often input and weight of two
    dtypes under autocast."""
    del found
    names = low_precision_said(failure)
    if not names:
        return None
    return explained(
        Kind.CONV_WEIGHT, failure,
        f"spconv found no implicit-GEMM algorithm for this sparse convolution: under {names[0]} mixed precision its "
        f"input arrives in {names[0]} while its weight (and output) stay float32, a combination no algorithm covers",
        "autocast or a 16-bit precision (Lightning's '16-mixed') around spconv layers, which autocast does not cast",
        "give input and weight one dtype (convert the sparse network and its inputs to half together, or run it in "
        "float32 outside autocast), or use `algo=ConvAlgo.Native`",
        op="spconv sparse convolution", names=names[:1], confidence=Confidence.LOW,
    )


def _oneflow_graph_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """OneFlow's type check in a graph onediff compiled: its dtypes were fixed when it was built."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"an op in a OneFlow graph (onediff's compiled pipeline) was built for {dtype_list(names[:1])} and got "
        f"{dtype_list(names[1:])}: a compiled graph fixes its dtypes when it is built",
        "`torch.autocast` around a pipeline onediff compiled (autocast hands the graph tensors in another dtype than "
        "it was compiled for), or inputs in another dtype than the pipeline was loaded in",
        "run the compiled pipeline without `torch.autocast`: load it in the dtype you want "
        "(`torch_dtype=torch.float16`) and compile it after, so graph and inputs agree",
        op="OneFlow graph", names=names,
    )


_marlin_without_types = message_only(
    Kind.NO_KERNEL,
    "vLLM's Marlin kernel has no quantized weight type for this GPU (`Only types = []`): Marlin runs on compute "
    "capability 8.0 (Ampere) or newer, and the `min_capability` in the message is this GPU's",
    "a GPTQ or AWQ model served with a Marlin kernel (vLLM picks `gptq_marlin` or `awq_marlin` by itself) on an older "
    "GPU (a T4, V100 or RTX 20-series)",
    "choose the plain kernel: `--quantization gptq` (or `awq`) with `--dtype float16`, or serve on an Ampere-or-newer "
    "GPU",
    op="vLLM Marlin kernel", device="cuda",
)


def _mps_graph_input(found: re.Match[str], failure: Failure) -> Explanation:
    """MPSGraph's ``mlir module expected element type f32 but received bf16``: a graph cached for one dtype given
    another."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"an MPS graph (Apple's Metal backend compiles each op into one) was built for {dtype_list(names[:1])} and "
        f"received {dtype_list(names[1:])}: under autocast, or in a partly converted model, one of the op's inputs "
        "is in another dtype than the others",
        "`torch.autocast` on an MPS device (or a model partly converted to 16-bit) giving an op one 16-bit input "
        "beside fp32 ones, which the MPS graph does not promote",
        "run that part outside autocast, or give the op's inputs one dtype (`x.to(other.dtype)`); bf16 on MPS needs "
        "macOS 14 or newer, and float32 is the safe choice there",
        op="MPSGraph", names=names, device="mps",
    )


def _einops_mean(found: re.Match[str], failure: Failure) -> Explanation:
    """einops refusing a mean or other floating reduction: an integer tensor, or (in a paste about bf16) an einops
    older than its support for bfloat16, which it took for non-floating."""
    del found
    if "bf16" in low_precision_said(failure):
        return explained(
            Kind.NO_KERNEL, failure,
            "einops took a bfloat16 tensor for a non-floating one: older einops versions check the dtype against a "
            "list of floating types that lacks bfloat16, so `reduce(..., 'mean')` refuses it",
            "`einops.reduce` (or `Reduce`) with 'mean' on bf16 activations, with an einops release from before its "
            "bfloat16 support",
            "update einops (`pip install -U einops`); or reduce in float32 and cast back (`reduce(x.float(), ...)"
            ".to(x.dtype)`)",
            op="einops.reduce", names=("bf16",),
        )
    return explained(
        Kind.INTEGER_OPERAND, failure,
        "einops' mean (or another floating reduction) got an integer tensor",
        "counts, ids or a mask reduced with 'mean' before being made floating",
        "convert first (`reduce(x.float(), ...)`), or use 'sum'/'max' where an integer result is meant",
        op="einops.reduce", confidence=Confidence.LOW,
    )


_evoformer_arch = message_only(
    Kind.NO_KERNEL,
    "DeepSpeed's Evoformer attention kernel (DS4Sci_EvoformerAttention, which OpenFold-style models call) has no build "
    "for this GPU with this dtype: its kernels are compiled per GPU architecture and dtype, and bf16 needs compute "
    "capability 8.0 (Ampere) or newer",
    "the DeepSpeed Evoformer kernel switched on (`use_deepspeed_evo_attention`) on an older GPU (V100, T4) or with a "
    "dtype it was not built for",
    "turn the DeepSpeed Evoformer kernel off (OpenFold: `use_deepspeed_evo_attention=False`, the plain attention "
    "runs every dtype), or run on an Ampere-or-newer GPU; check `torch.cuda.get_device_capability()`",
    op="DS4Sci_EvoformerAttention", device="cuda", confidence=Confidence.LOW,
)


_half_conversion_in_build = message_only(
    Kind.NO_KERNEL,
    "an extension's half-precision CUDA code does not compile with this toolkit: more than one conversion of `half` "
    "applies (CUDA's headers define several), so the fp16 kernels cannot be built",
    "building a project's fp16 kernels (an fp16 build option, a GPU arch list) with a CUDA toolkit or for a GPU "
    "architecture its code was not written for",
    "build without the fp16 option (e.g. `USE_FP16=OFF`) or with the toolkit and GPU architectures the project "
    "supports; update the project, whose newer code may cast `half` explicitly",
    op="nvcc build of half kernels", names=("f16",), device="cuda", confidence=Confidence.LOW,
)


_half2_from_integers = message_only(
    Kind.NO_KERNEL,
    "an extension's half-precision CUDA code builds a `__half2` from two integers (or two floats), a constructor "
    "this CUDA toolkit's `cuda_fp16.h` does not have, so its fp16 kernels do not compile",
    "a project's CUDA code written against a newer (or older) toolkit than the one `nvcc` runs, built by "
    "`pip install` of its extension",
    "build with the CUDA toolkit the project names (check `nvcc --version` against torch's `torch.version.cuda`), or "
    "convert the arguments explicitly (`__halves2half2(__int2half_rn(a), __int2half_rn(b))`); update the project",
    op="nvcc build of half kernels", names=("f16",), device="cuda", confidence=Confidence.LOW,
)


_stale_fp16_op = message_only(
    Kind.NO_KERNEL,
    "a library's compiled extension lacks the 16-bit function its Python code calls: the extension in use was built "
    "from another version of the library",
    "a stale build (a JIT-compiled op cached in `~/.cache/torch_extensions`, or a prebuilt wheel) left from another "
    "version of the library (DeepSpeed's `transformer_inference`), or a build without its fp16/bf16 kernels",
    "rebuild the extension for the installed version: delete the cached build (`rm -rf ~/.cache/torch_extensions`) "
    "and rerun, or reinstall the library with its ops (`DS_BUILD_OPS=1 pip install deepspeed`); update the library "
    "so its Python and kernels match",
    op="a compiled extension", confidence=Confidence.LOW,
)


_unsupported_type_meta = message_only(
    Kind.NO_KERNEL,
    "ATen got a tensor whose dtype it has no scalar type for: the type id came from code built against another "
    "torch, or from a dtype the binary does not know",
    "an extension or a converter's runtime (PyTorch3D, Torch-TensorRT) compiled against another torch version than "
    "the installed one, or a tensor made with an uninitialized or unsupported dtype",
    "rebuild or reinstall the extension against the installed torch (matching torch and extension versions), and "
    "check the dtypes of the tensors passed to it (`print(t.dtype)`)",
    op="ATen TypeMeta", confidence=Confidence.LOW,
)


_half_intrinsic_undefined = message_only(
    Kind.NO_KERNEL,
    "an extension's CUDA code calls half-precision intrinsics (`__hfma2`, `__hadd2`, `__hmul`) that nvcc did not "
    "define: they exist only when compiling for GPUs of compute capability 5.3 or newer (bf16 ones 8.0), or with "
    "`cuda_fp16.h` included",
    "an extension built for an old GPU architecture (`-gencode=arch=compute_52` when `TORCH_CUDA_ARCH_LIST` is unset "
    "and no GPU was visible at build time) or a source file that misses the fp16 header",
    "build for your GPU's architecture: set `TORCH_CUDA_ARCH_LIST` to its compute capability (`\"7.0\"` for a V100, "
    "`torch.cuda.get_device_capability()`) and rebuild; update the extension if its build flags force an old arch",
    op="nvcc build of half kernels", names=("f16",), device="cuda", confidence=Confidence.LOW,
)


_half_conversion_undeclared = message_only(
    Kind.NO_KERNEL,
    "an extension's GPU code calls a half-precision conversion intrinsic (`__double2half`, `__float2bfloat16`) that "
    "the compiler's headers do not declare: clang and ROCm's HIP headers lack some of CUDA's fp16 and bf16 "
    "conversions, and CUDA declares them only with `cuda_fp16.h` (`cuda_bf16.h`) included",
    "an extension (DeepSpeed's ops, a custom kernel) built with hipcc or clang, or with a toolkit older than its code "
    "expects",
    "update the extension (its kernels may convert through float now: `__float2half((float)x)`), or build it with the "
    "toolkit it supports (a newer ROCm or CUDA); skip building that op if you do not use it",
    op="GPU build of half kernels", names=("f16",), confidence=Confidence.LOW,
)


_diffusers_on_cpu = message_only(
    Kind.NO_KERNEL,
    "diffusers warns that a pipeline loaded in float16 cannot run on the CPU: torch has (or, in the versions it checks "
    "for, had) no fp16 kernels for much of what a pipeline runs there",
    "`torch_dtype=torch.float16` on a pipeline that ends up on the CPU (no `.to('cuda')`, no GPU visible, "
    "`enable_model_cpu_offload` without an accelerator, or a CPU-only torch install)",
    "run it on a GPU (`pipe.to('cuda')`; check `torch.cuda.is_available()`), or drop `torch_dtype=torch.float16` "
    "(float32, or bfloat16 on a recent CPU) to run on the CPU",
    op="diffusers pipeline on cpu", names=("f16",), device="cpu",
)


_low_bit_dtype = message_only(
    Kind.NO_KERNEL,
    "torchao's low-bit quantization got a weight whose dtype it has no bit width for (it takes its own "
    "uint1-uint7/int dtypes from a float weight)",
    "a layer that is already quantized, or an adapter or weight in a dtype the quantizer does not expect, "
    "handed to the quantizer again",
    "quantize the plain floating weights once (load the model, quantize, then attach adapters), skip the layers "
    "that hold other dtypes, or update torchao and the library that calls it together",
    op="torchao quantize", confidence=Confidence.LOW,
)


_gguf_without_bf16 = message_only(
    Kind.NO_KERNEL,
    "the installed gguf package has no BF16 quantization type: it is older than the checkpoint (or the code loading "
    "it), which stores bf16 tensors",
    "a GGUF checkpoint with bf16 tensors read by an old `gguf` package (ComfyUI-GGUF, FramePack and llama.cpp's Python "
    "tools read through it)",
    "update the gguf package (`pip install -U gguf`) and the node or tool that loads the file; or use a GGUF file "
    "quantized to another type (F16, Q8_0)",
    op="gguf BF16", names=("bf16",),
)


def _mlir_broadcast(found: re.Match[str], failure: Failure) -> Explanation:
    names = tuple(dict.fromkeys(dtypes(found, "a", "b")))
    return explained(
        Kind.NO_KERNEL, failure,
        f"an MPS kernel built a graph that mixes {' and '.join(names)} (a 16-bit input with an f32 constant, or the "
        "reverse): a torch bug in that op's MPS version for 16-bit inputs",
        "a 16-bit tensor on MPS reaching an op whose MPS implementation creates its constants in another dtype",
        "update torch (these are fixed op by op); until then run that op in float32 on MPS "
        "(`op(x.float()).to(x.dtype)`)",
        op="MPS graph", names=names, device="mps", confidence=Confidence.LOW,
    )


_no_bf16_conversion = message_only(
    Kind.NO_KERNEL,
    "the GPU's compiler backend (Intel's Level Zero, through Triton) has no bf16 conversion instruction for this GPU: "
    "a kernel compiled for bf16 cannot be built",
    "bf16 compute (autocast, a bf16 model, torch.compile's generated Triton kernels) on a GPU without native bf16 "
    "conversions, with a Triton backend that emits them anyway",
    "update torch and its Triton backend (newer ones emit bf16 conversions only where the GPU has them); until then "
    "run in fp16 or fp32, or without torch.compile",
    op="bf16 conversion", names=("bf16",),
)


def _built_without(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "dtype") or ("f16",)
    return explained(
        Kind.NO_KERNEL, failure,
        f"the extension was compiled without {names[0]} kernels, so a {names[0]} run cannot use it",
        "a CUDA extension (tiny-cuda-nn and the like) built for this GPU with its half-precision support turned off "
        "(by its build flags, or automatically for a GPU or toolkit it judged too old)",
        f"run that part in float32 (the extension's fp32 mode, or `.float()` on its inputs), or rebuild the extension "
        f"with {names[0]} support enabled for this GPU",
        op="extension kernels", names=names, confidence=Confidence.LOW,
    )


def _accelerator_refuses(found: re.Match[str], failure: Failure) -> Explanation:
    names, dtype = dtype_read(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"the DeepSpeed accelerator ({found['device']}) does not list {dtype} among its supported dtypes, so "
        f"{dtype} inference or training is refused before it runs",
        f"`dtype={found['dtype']}` (for `init_inference`, or a config's precision) with a DeepSpeed version whose "
        "accelerators do not list it",
        f"use a dtype the accelerator lists (`get_accelerator().supported_dtypes()`: fp16/bf16/fp32), or update "
        f"DeepSpeed (or pin the last version that accepted {dtype})",
        op="deepspeed accelerator", names=names,
    )


def _widget_dtype(found: re.Match[str], failure: Failure) -> Explanation | None:
    """ComfyUI refusing a workflow whose dtype widget holds a value the node does not offer (``Value not in list:
    data_type: 'bfloat16' not in ['float16']``): the node (on this GPU or install) has no such choice."""
    names = short_dtypes((found["value"],))
    offered = re.findall(r"'([^'\n]{1,30})'", found["offered"])
    if not names:
        return None
    choices = ", ".join(f"'{value}'" for value in offered) or "none"
    return explained(
        Kind.NO_KERNEL, failure,
        f"the node's `{found['widget']}` widget is set to '{found['value']}', which this node does not offer here "
        f"(it lists {choices}): the node, its version or this GPU has no {names[0]} path",
        "a workflow saved on another machine or with another version of the node pack (a newer GPU that runs "
        f"{names[0]}), loaded where the node lists other dtypes",
        f"set the widget to one it lists ({choices}) and queue again; update the node pack if its documentation says "
        f"it supports {names[0]} on this GPU",
        op=f"the node's {found['widget']} choice", names=names,
    )


def _dispatch_failed(found: re.Match[str], failure: Failure) -> Explanation:
    """An extension's own dtype dispatch refusing what it got (``qk_int8_sv_f8_..._attn(...) failed to dispatch data
    type Float``): the kernel was built for other dtypes (a fused attention kernel for fp16/bf16 only)."""
    names, dtype = dtype_read(found, "dtype")
    op = found["op"] or "an extension kernel"
    wider = names and names[0] in ("f32", "f64")
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` dispatches only the dtypes it was built for and got {dtype}"
        + (": fused attention and quantized kernels like it run fp16/bf16 inputs only" if wider else ""),
        f"{a(dtype)} tensor (queries, keys or values left in {dtype}, or a model run outside autocast) reaching an "
        "extension kernel that has no version for it",
        ("cast the inputs to fp16 or bf16 before the call (`q.to(torch.bfloat16)`), or run the model in that dtype; "
         "fall back to torch's `scaled_dot_product_attention` where fp32 is needed") if wider else
        "give the kernel a dtype it dispatches (its README lists them), or fall back to torch's op for this dtype",
        op=op, names=names, confidence=Confidence.LOW,
    )


def _npu_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    names, dtype = dtype_read(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"the NPU operator has no kernel for its `{found['op']}` input in {dtype} on this device/CANN version",
        f"{dtype} tensors (an online-quantized model, a 16-bit model) reaching an Ascend operator that does not "
        "implement that dtype",
        f"turn off the {dtype} path (quantization, that dtype) for this model on this device, or update CANN, "
        "torch_npu and the serving library together",
        op=found["op"], names=names, device="npu", confidence=Confidence.LOW,
    )


def _cublas_failed(found: re.Match[str], failure: Failure) -> Explanation:
    names = ("bf16",) if found["type"].upper() == "CUDA_R_16BF" else ("f16",)
    return explained(
        Kind.NO_KERNEL, failure,
        f"cuBLAS failed running a {names[0]} matrix multiply ({found['status']}): its 16-bit GEMM for these shapes "
        "broke on this GPU, CUDA or driver (or an earlier kernel had already corrupted memory)",
        f"a {names[0]} model or extension on a CUDA/cuBLAS version with a bug for it, or a GPU the build does not "
        "fully support",
        "update CUDA, the driver and torch (these cuBLAS failures were fixed in later versions); run once with "
        "`CUDA_LAUNCH_BLOCKING=1` to see the op; meanwhile run that layer in float32",
        op="cublasGemmEx", names=names, device="cuda", confidence=Confidence.LOW,
    )


_whisper_cpu_fp16 = message_only(
    Kind.NO_KERNEL,
    "openai-whisper warns that it cannot decode in fp16 on the CPU and falls back to fp32: this line is a warning, not "
    "the failure",
    "`model.transcribe(...)` left at its default `fp16=True` while the model runs on the CPU: no GPU, a CPU-only torch "
    "install on a machine that has one, or an app that asks for fp16 whatever the device",
    "if the machine has a GPU, torch is not using it: install a CUDA build of torch (`torch.cuda.is_available()` is "
    "False now); on a CPU, pass `fp16=False` to `model.transcribe(...)` (`--fp16 False` on the command line) to decode "
    "in fp32 without the warning, or update the app that passes it; if the run stopped, the error is on a later line",
    op="whisper transcribe", names=("f16",), device="cpu",
)


_transformers_fp16_device = message_only(
    Kind.NO_KERNEL,
    "transformers' Trainer runs fp16 mixed precision (`--fp16`, AMP or apex) only on CUDA devices, and none is in use",
    "`fp16=True` in TrainingArguments on the CPU, on MPS, or where torch does not see the GPU (a CPU-only torch, no "
    "GPU in the runtime)",
    "run on a GPU (check `torch.cuda.is_available()`), or drop `fp16=True` (use `bf16=True` on a CPU that has it, or "
    "fp32)",
    op="Trainer fp16", names=("f16",),
)


_lightning_amp_on_cpu = message_only(
    Kind.NO_KERNEL,
    "Lightning (before 1.6) ran 16-bit native AMP only on GPUs, and the Trainer it was given uses none",
    "`precision=16` with a Trainer that was given no GPUs (`gpus=` unset): on a CPU-only machine, where torch sees no "
    "GPU, or where a plugin (Ray Lightning's, a cluster launcher's) holds the GPU count instead of the Trainer",
    "give the Trainer the GPUs it runs on (`Trainer(gpus=1, precision=16)`, `accelerator='gpu'` in newer releases) "
    "and check `torch.cuda.is_available()`; on a CPU use 32-bit, or update Lightning and use `precision='bf16'`, "
    "which later releases run on CPUs",
    op="Lightning's native AMP", names=("f16",),
)


def _compute_type_refused(found: re.Match[str], failure: Failure) -> Explanation:
    """CTranslate2's (faster-whisper's, whisperX's) ``Requested int8 compute type, but the target device or backend do
    not support efficient int8 computation``: the device runs no fast kernel for that compute type."""
    requested = found["type"]
    names = short_dtypes(part for part in requested.split("_") if part)
    return explained(
        Kind.NO_KERNEL, failure,
        f"CTranslate2 (under faster-whisper or whisperX) was asked for the `{requested}` compute type, and this device "
        "or build has no efficient kernels for it",
        "a `compute_type` chosen for another machine: float16 or int8_float16 on a CPU or a GPU without fast fp16 "
        "(compute capability below 7.0), bfloat16 below 8.0, int8 on a GPU or CPU build without int8 support",
        "pass a compute type the device has (`ctranslate2.get_supported_compute_types('cuda')` or `('cpu')` lists "
        "them): `compute_type='float32'` always runs, `'int8'` on most CPUs, `'float16'` on a recent GPU, or "
        "`'default'` to keep the model's own; if the device should have it, update ctranslate2 (its wheel must match "
        "the installed CUDA and cuDNN)",
        op="CTranslate2 compute_type", names=names,
    )


def _ct2_storage_type(found: re.Match[str], failure: Failure) -> Explanation:
    """CTranslate2's ``expected storage to be of type float16, but is of type bfloat16``."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"CTranslate2 found model weights stored as {found['b']} where it expects {found['a']}: the model was "
        "converted (or saved) in a type this CTranslate2 release does not read that way",
        "a model converted with a newer CTranslate2 (bfloat16 storage) run by an older one, or a model's quantization "
        "that does not match the requested `compute_type`",
        "update ctranslate2 (and faster-whisper) to a release that reads the model's storage, or convert the model "
        "again with the installed one (`ct2-transformers-converter ... --quantization float16`)",
        op="CTranslate2 model storage", names=names,
    )


_ggml_needs_f16 = message_only(
    Kind.NO_KERNEL,
    "a ggml op (whisper.cpp's convolution, `ggml_conv_1d`) takes its weights only as F16 and got another type: "
    "the model file holds them in F32",
    "a whisper.cpp or ggml model converted to float32 (`--outtype f32`, a script's f32 option) run with a build "
    "whose convolutions take F16 weights only",
    "use the f16 conversion of the model (the default of `convert-pt-to-ggml.py`), or update whisper.cpp to a "
    "release whose ops take F32 weights",
    op="ggml op", names=("f16", "f32"),
)


_long_double_inputs = message_only(
    Kind.NO_KERNEL,
    "Torch-TensorRT cannot give a TensorRT subgraph int64 or float64 inputs: TensorRT has no 64-bit types, so it "
    "refuses them unless asked to narrow them",
    "a model whose partitioned graph passes int64 (indices, shapes, `torch.arange`) or float64 tensors between "
    "the parts TensorRT runs and the parts torch runs",
    "compile with `truncate_long_and_double=True` (newer releases: `truncate_double=True`, with int64 narrowed by "
    "default) so they run as int32/float32, or make those tensors int32/float32 in the model",
    op="Torch-TensorRT partitioning", names=("int64", "f64"),
)


def _mps_element_type(found: re.Match[str], failure: Failure) -> Explanation:
    said = (word for line in (failure.message, *failure.paste) for word in _MLIR_TYPE.findall(line))
    names = short_dtypes(said)
    op = found["op"]
    return explained(
        Kind.OP_DTYPE, failure,
        f"an MPS graph op (`{op}`) got operands of different element types ({', '.join(names) or 'two dtypes'}): "
        "inside its graphs MPS does not promote",
        "a 16-bit tensor meeting an f32 one on MPS (a model converted to fp16 with an input, buffer or constant left "
        "f32), in an op whose MPS version does not cast first",
        "give both operands one dtype before the op (`x.to(other.dtype)`), or update torch (such MPS ops gain the "
        "cast); on MPS, float32 throughout avoids it",
        op=op, names=names, device="mps", confidence=Confidence.LOW,
    )


_MLIR_TYPE = re.compile(r"tensor<[\dx?*]{0,40}?x?((?:b?f)\d{1,2})>")


def _precision_dtype(value: str) -> tuple[str, ...]:
    """The 16-bit dtype a trainer's precision name stands for (``bf16-true``, ``amp_fp16``), if any."""
    return ("bf16",) if "bf" in value.lower() else ("f16",) if "16" in value else ()


def _composer_precision(found: re.Match[str], failure: Failure) -> Explanation:
    value = found["value"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"the precision name `{value}` is not one this trainer knows (Composer's `Precision` takes 'fp32', "
        "'amp_fp16', 'amp_bf16', 'amp_fp8')",
        "a precision written in another library's spelling (`bf16`, `bf_16`, `fp16`) in a Composer/LLM Foundry "
        "config or `Trainer(precision=...)`",
        "use the trainer's own name: `precision='amp_bf16'` for bf16 mixed precision (or 'amp_fp16')",
        op="precision name", names=_precision_dtype(value),
    )


def _lightning_precision(found: re.Match[str], failure: Failure) -> Explanation:
    value = found["value"] or found["value2"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"the precision `{value}` is not one this Lightning version knows: 2.0 renamed `16` and `'bf16'` to "
        "'16-mixed' and 'bf16-mixed' and added 'bf16-true', and an older Lightning lists only the old names",
        "code or a config written for another Lightning version than the one installed (a repo pinned to an old "
        "pytorch_lightning, or old names passed to Lightning 2)",
        f"update Lightning (`pip install -U lightning`) to use `precision='{value}'`, or pass the name this version "
        "lists in the message (`16`, `'bf16'`)",
        op="precision name", names=_precision_dtype(value),
    )


_no_precision_set = message_only(
    Kind.NO_KERNEL,
    "Lightning found no precision plugin for the precision it was given: its connector tried every precision it "
    "knows and none matched",
    "a precision name from another Lightning version (`'16-mixed'` and `'bf16-mixed'` are Lightning 2.0's names; "
    "1.x knows 16, 32, 64 and 'bf16') or a precision/`amp_backend` pair that version does not handle, often set by a "
    "library or config built on Lightning",
    "update Lightning (`pip install -U lightning`, or the pytorch_lightning version the code was written for), or "
    "pass a precision this version knows (`precision=16`, `'bf16'`, 32)",
    op="precision name",
)

def _deepspeed_config_mismatch(found: re.Match[str], failure: Failure) -> Explanation:
    """transformers' ``ds fp16.enabled=True vs hf fp16|fp16_full_eval+fp16_backend(amp)=False``: the DeepSpeed config
    and the Trainer's arguments disagree on a precision."""
    key = found["key"]
    flag = "--bf16" if key.startswith("bf16") else "--fp16"
    return explained(
        Kind.NO_KERNEL, failure,
        f"the DeepSpeed config sets `{key}={found['ds']}` but the Trainer's arguments say {found['value']}: "
        "transformers refuses to start when the two disagree on a precision",
        f"a DeepSpeed JSON with `{key}` written by hand (true or false) beside Trainer arguments that say the "
        "opposite (no `--fp16`/`--bf16`, or the other one)",
        f"set the config's value to \"auto\" (the Trainer fills it from its arguments), or pass the matching "
        f"argument (`{flag}` when the config enables it)",
        op="DeepSpeed config", names=_precision_dtype(key),
    )


_dtype_argument_refused = message_only(
    Kind.NO_KERNEL,
    "a class was given a dtype argument (`torch_dtype=`/`dtype=`) its version does not take: the dtype option is "
    "newer than the installed library, or belongs to another class than the one called",
    "a script, example or node written for a newer release of the library that defines the class (transformers, "
    "peft, a model repository's own code) run with an older one, or a wrapper passing its loader's arguments on",
    "update the library that defines the class to the version the script was written for; or drop the argument and "
    "convert after loading (`model.to(torch.float16)`)",
    op="a dtype argument", confidence=Confidence.LOW,
)


_batch_encoding_to_dtype = message_only(
    Kind.NO_KERNEL,
    "a tokenizer's output (`BatchEncoding`) was moved with `.to(device, dtype=...)`: its `.to()` takes a device only, "
    "since what it holds are integer token ids and masks, which must stay integers",
    "code that casts a whole model input to the model's dtype (fp16/bf16) written for an image processor's output "
    "(`BatchFeature.to()`, which takes a dtype and casts only its floating tensors), or a library updated on one side",
    "move the encoding with `.to(device)` alone and cast only its floating tensors, if any "
    "(`inputs['pixel_values'] = inputs['pixel_values'].to(torch.float16)`); if the call is a library's, update it",
    op="BatchEncoding.to()",
)


def _precision_argument(found: re.Match[str], failure: Failure) -> Explanation:
    """``got an unexpected keyword argument 'fp16'`` (or 'bf16'): accelerate's ``Accelerator(fp16=True)``, replaced by
    ``mixed_precision``, when accelerate is named; otherwise a function or config that takes no such argument."""
    name = found["dtype"].lower()
    if paste_search(failure, _ACCELERATE) is not None:
        return explained(
            Kind.NO_KERNEL, failure,
            f"this accelerate has no `{name}=` argument: `Accelerator(fp16=True)` was replaced by `mixed_precision`",
            "a script written for an old accelerate (before 0.6) run with a newer one",
            f"use `Accelerator(mixed_precision='{name}')` (`--mixed_precision {name}` with `accelerate launch`)",
            op=f"Accelerator({name}=...)", names=(short_dtype(name) or name,),
        )
    return explained(
        Kind.NO_KERNEL, failure,
        f"a function or config class was given a `{name}=` argument it does not take",
        f"a script, config file or command-line flag (`--{name}`) written for another version of the library it calls "
        "(an older one without the flag, or a newer one that renamed it, as accelerate's and transformers' moved to "
        "`mixed_precision`), or passed down to a function that never took it",
        f"install the library version the script was written for, or pass the precision the way the installed one "
        f"takes it (`mixed_precision='{name}'`, `torch_dtype=torch.{'bfloat16' if name == 'bf16' else 'float16'}`); "
        "the traceback's last frame shows which call refused it",
        op=f"{name}=", names=(short_dtype(name) or name,), confidence=Confidence.LOW,
    )


_ACCELERATE = re.compile(r"\baccelerat(?:e|or)\b", re.IGNORECASE)

_scaler_under_bf16 = message_only(
    Kind.LOSS_SCALE,
    "Lightning's bf16 precision takes no gradient scaler (bf16 has fp32's range), but a scaler was handed to it: "
    "in that version the sharded strategies added FairScale's ShardedGradScaler whatever the precision",
    "`precision='bf16'` with a sharded strategy (`ddp_sharded`, `fsdp` through FairScale) in a Lightning release "
    "with that bug",
    "update Lightning (the fix landed in the next releases), or pass no scaler with bf16 (use `precision=16` if "
    "the strategy needs one)",
    op="Lightning's precision plugin", names=("bf16",),
)


def _served_input_type(found: re.Match[str], failure: Failure) -> Explanation:
    """Triton Inference Server's ``unexpected datatype TYPE_FP32 for inference input 'images', expecting TYPE_FP16``."""
    names = dtypes(found, "got", "want")
    got, want = names if len(names) == 2 else ("another dtype", "its own")
    declared = f"np.{full_name(want)}" if len(names) == 2 else "the declared dtype"
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"the served model declares input '{found['name']}' as {want} and the request sent {got}; the server never "
        "converts inputs",
        f"a model exported or deployed in {want} (an fp16 TensorRT/ONNX engine, `half=True` export) called by a "
        f"client that still builds {got} arrays",
        f"send the declared dtype (`np.asarray(x, dtype={declared})` and the matching datatype in the request), or "
        "deploy a model that declares the client's dtype",
        op="inference server input", names=names,
    )


def _element_types(found: re.Match[str], failure: Failure) -> Explanation | None:
    """OpenVINO's ``Argument element types are inconsistent`` (a node given f16 and f32), with the element types the
    paste prints near it."""
    del found
    near = failure.paste[max(0, failure.line - 3):failure.line + 4]
    names = tuple(name for name in short_dtypes(word for line in (failure.message, *near)
                                                for word in _ELEMENT_TYPE.findall(line)) if is_floating(name))
    return mixed_float(
        Kind.SCALAR_TYPE, failure, names, "an OpenVINO graph node",
        f"an OpenVINO graph node got inputs of different element types ({', '.join(names)}): OpenVINO does not "
        "promote inside its graph",
        confidence=Confidence.LOW,
    ) if len(names) == 2 else None


_ELEMENT_TYPE = re.compile(r"[:<](bf16|f16|f32|f64)[{>\s]")
"""An element type as OpenVINO prints a node's input (``Mul_565/mul[0]:f32{1,4}``)."""


_quantized_model_cast = message_only(
    Kind.NO_KERNEL,
    "a model loaded in 4-bit or 8-bit by bitsandbytes cannot be cast or moved with `.to(...)` or `.float()`: its "
    "weights are "
    "packed integers whose dtype and device transformers set at load time",
    "`model.to(device)`, `model.half()` or `.to(torch.bfloat16)` called on a model loaded with `load_in_4bit`/"
    "`load_in_8bit` (a `quantization_config`), often by a pipeline or a library's own code",
    "drop the `.to(...)` call and pass the dtype and device at load time (`torch_dtype=...`, `device_map=...`, "
    "`bnb_4bit_compute_dtype`); if a library makes the call, update it or load the model without quantization",
    op="`.to` on a quantized model",
)

_bf16_optimizer = message_only(
    Kind.NO_KERNEL,
    "DeepSpeed's bf16 optimizer wrapper lacks an attribute its fp16 one has: code (a trainer, a checkpoint or "
    "logging hook) that assumes the fp16 optimizer ran with `bf16` enabled",
    "`bf16: {enabled: true}` in a DeepSpeed config with a trainer (GPT-NeoX, a fork) or DeepSpeed version whose "
    "code still reads the fp16 optimizer's fields",
    "use versions of DeepSpeed and the trainer made for each other (update both), or train with fp16 until they "
    "are",
    op="DeepSpeed BF16_Optimizer", names=("bf16",),
)

_no_fp16_accumulation = message_only(
    Kind.NO_KERNEL,
    "fp16 accumulation for matmuls (`torch.backends.cuda.matmul.allow_fp16_accumulation`) does not exist in this "
    "torch: it arrived in torch 2.7",
    "a node or script that turns on fp16 accumulation (a speed option) run with an older torch",
    "update torch to 2.7 or newer, or turn the fp16-accumulation option off",
    op="fp16 accumulation", names=("f16",),
)


def _xpu_without_float64(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    return no_float64(failure, "xpu")


def _directml_without_float64(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    return no_float64(failure, "directml")


_device_without_half = message_only(
    Kind.NO_KERNEL,
    "the app's own check found this GPU cannot run half precision (fp16), so it refuses to load the model in fp16",
    "a GPU the app judges too old or too small for fp16 (a laptop MX or GTX 10-series card, or an ONNX/DirectML build "
    "whose fp16 check fails)",
    "turn off half precision in the app's settings (full precision, fp32), or update the app: newer versions fall back "
    "to fp32 by themselves",
    op="the app's fp16 check", names=("f16",),
)


_old_safetensors_fp8 = message_only(
    Kind.NO_KERNEL,
    "this safetensors cannot read fp8 tensors (`F8_E4M3`, `F8_E5M2`): older versions do not know those dtypes",
    "an fp8 checkpoint (a Flux or SD3 fp8 file, a quantized LLM) opened with an older safetensors",
    "update safetensors (`pip install -U safetensors`) and torch (2.1 or newer has the float8 dtypes)",
    op="safetensors", names=("float8_e4m3fn",),
)


_trainer_dtype_and_optimizer = message_only(
    Kind.OP_DTYPE,
    "the trainer (SimpleTuner) refuses a bf16 base model with an optimizer that keeps fp32 state and a mixed "
    "precision that is not bf16: pure-bf16 weights need a bf16-aware optimizer or fp32 weights",
    "a configuration whose base model dtype is bf16 (its default for FLUX) while `MIXED_PRECISION` is not bf16 or "
    "the optimizer is a plain fp32 one",
    "follow the options its message lists: set `MIXED_PRECISION=bf16`, use its bf16 optimizer (`--adam_bfloat16`), "
    "or load the base model in fp32 (`--base_model_default_dtype fp32`, at the cost of memory)",
    op="the trainer's precision check", names=("bf16",),
)


def _parameter_not_in_recipe_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """torchtune's ``Parameter <name> has dtype torch.X``: a recipe's check that every parameter is in its dtype."""
    names = dtypes(found, "a")
    return explained(
        Kind.OP_DTYPE, failure,
        f"the recipe checks that every parameter is in its training dtype (`dtype:` in the config) and found "
        f"`{found['name']}` in {names[0] if names else 'another dtype'}",
        "a checkpoint or quantized weight (QLoRA's NF4) that loaded in another dtype than the recipe's, most often "
        "torchtune and torchao versions that do not match, or a checkpoint saved in another dtype",
        "install the torchao version your torchtune release pins (or update both), and set the config's `dtype` to "
        "the checkpoint's (bf16 or fp32)",
        op="torchtune's parameter dtype check", names=names,
    )


_zero_accumulation_dtype = message_only(
    Kind.OP_DTYPE,
    "DeepSpeed's ZeRO optimizer accumulates gradients in the model's dtype, and the config asks for another "
    "gradient-accumulation dtype (`data_types.grad_accum_dtype`)",
    "a bf16 or fp16 model whose DeepSpeed config sets `\"data_types\": {\"grad_accum_dtype\": \"fp32\"}` (or a newer "
    "DeepSpeed's default for it) under ZeRO stage 1 or 2",
    "remove `grad_accum_dtype` (or set it to the model's dtype) under ZeRO; to accumulate in fp32 with bf16, use "
    "ZeRO stage 0 with DeepSpeed's bf16 optimizer, or the DeepSpeed version your scripts were written for",
    op="DeepSpeed ZeRO's gradient accumulation",
)


_autocast_outside_deepspeed = message_only(
    Kind.OP_DTYPE,
    "DeepSpeed found the model running under `torch.autocast` that its config does not enable: it picks its "
    "communication dtype from the config, so autocast must be turned on there",
    "a trainer or script that wraps the forward in `torch.autocast` (bitsandbytes or trl code, accelerate's "
    "`mixed_precision`) while the DeepSpeed config has no `torch_autocast` section",
    "enable it in the DeepSpeed config (`\"torch_autocast\": {\"enabled\": true, \"dtype\": \"bfloat16\"}`) or drop "
    "the outer autocast and use the config's `bf16`/`fp16` sections alone",
    op="DeepSpeed's autocast check",
)


def _precision_flags_disagree(found: re.Match[str], failure: Failure) -> Explanation:
    """accelerate's ```--mixed_precision` arg cannot be set to `bf16` when `fp16` is set in the DeepSpeed config file``:
    the launcher and the DeepSpeed config name two 16-bit dtypes."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.OP_DTYPE, failure,
        f"accelerate's `--mixed_precision` asks for {names[0]} while the DeepSpeed config enables {names[1]}: the "
        "two must name the same 16-bit dtype",
        "an accelerate config (or `--mixed_precision` flag) and a DeepSpeed JSON written separately, one for bf16 and "
        "the other for fp16",
        "make them agree: set the DeepSpeed config's `bf16`/`fp16` sections to `\"auto\"` and choose the dtype once "
        "with `--mixed_precision`, or set both to the same dtype",
        op="accelerate's DeepSpeed precision check", names=names,
    )


def _amp_promote_double(found: re.Match[str], failure: Failure) -> Explanation:
    """apex amp's ``Do not know how to handle these types to promote: {'DoubleTensor', 'FloatTensor'}``."""
    names = tuple(dict.fromkeys(dtypes(found, "a", "b")))
    return explained(
        Kind.OP_DTYPE, failure,
        f"apex amp patches torch's ops to promote their inputs to one type, and has no rule for {dtype_list(names)}: "
        "it promotes only between fp16 and fp32",
        "a float64 tensor (a numpy array, a Python-built tensor, `torch.tensor(x, dtype=torch.double)`) reaching an op "
        "that apex amp patched",
        "convert the float64 tensor to float32 where it is made (`torch.from_numpy(arr).float()`, `x.float()`); apex "
        "amp is deprecated: `torch.autocast` with a GradScaler (or castwise's '16-mixed') replaces it",
        op="apex amp's type promotion", names=names,
    )


def _xnnpack_operands(found: re.Match[str], failure: Failure) -> Explanation:
    """XNNPACK's ``failed to define Binary Elementwise operator ...: mismatching datatypes across the first input
    (FP32), the second input (FP16)``: an exported graph whose elementwise op got two dtypes."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"XNNPACK could not build an elementwise op whose inputs are {dtype_list(names)}: its operators take one dtype",
        "a model exported for fp16 (`.half()`, `dtype=torch.float16` in an export script) with a buffer, constant or "
        "input left fp32 (or the reverse), which the delegate does not cast",
        "export with every weight, buffer and input in one dtype (convert the model and its example inputs together "
        "before `torch.export`), or keep the model in fp32 for XNNPACK",
        op="XNNPACK elementwise op", names=names,
    )


def _coreml_named_inputs(found: re.Match[str], failure: Failure) -> Explanation:
    """coremltools' ``In op, of type linear, named out_w, the named input `weight` must have the same data type as the
    named input `x`. However, weight has dtype fp32 whereas x has dtype int32``."""
    names = dtypes(found, "a", "b")
    op = f"Core ML {found['type']}"
    if integers.integer_names(names):
        return integers.integer_operand(failure, names[::-1], op)
    kind = Kind.MATMUL if found["type"] in ("linear", "matmul") else Kind.OP_DTYPE
    return explained(
        kind, failure,
        f"a converted Core ML `{found['type']}` op got {dtype_list(names)} inputs; it takes one dtype",
        "a traced PyTorch model whose tensors reach that op in two dtypes (a constant or buffer in another dtype than "
        "the activations, often after a partial `.half()`)",
        "convert the model and its inputs to one dtype before tracing, and set the precision with coremltools' "
        "`compute_precision` instead of casting parts by hand",
        op=op, names=names,
    )


def _coreml_type_domain(found: re.Match[str], failure: Failure) -> Explanation | None:
    """coremltools' ``(op_type: inverse) Input x="1308" expects tensor or scalar of dtype from type domain ['fp16',
    'fp32'] but got tensor[1,int32]``: integer data reaching a float-only Core ML op, or a 16-bit dtype the op has no
    kernel for; declined for other dtypes and for one the domain lists."""
    got = dtypes(found, "a")
    domain = short_dtypes(re.findall(r"\w+", found["domain"]))
    if not got or got[0] in domain:
        return None
    op = f"Core ML {found['type']}"
    if integers.integer_names(got) and any(map(is_floating, domain)):
        return integers.integer_operand(failure, got, op)
    return no_kernel(failure, op, got, None, Confidence.LOW) if is_low_precision(got[0]) else None


def _coreml_saved_narrower(found: re.Match[str], failure: Failure) -> Explanation | None:
    """coremltools' ``Saving value type of float16 into a builtin type of i8``: a float value narrowed into an integer
    on conversion, said with low confidence (it is a warning); declined for int64 into int32, which it warns about in
    every conversion."""
    names = dtypes(found, "a", "b")
    if len(names) != 2 or not is_floating(names[0]):
        return None
    return explained(
        Kind.RESULT_CAST, failure,
        f"coremltools stored {dtype_list(names)} values as the narrower second dtype (its warning `Saving value type "
        "of ... into a builtin type of ...`): the values may not survive, and outputs that then go wrong were changed "
        "here",
        "a PyTorch graph with constants or tensors whose dtype the Core ML op cannot hold (float16 values written into "
        "an int8 slot, int64 into int32), often integer indices or masks computed as floats",
        "make the tensor the dtype the op takes before tracing (`.long()`/`.int()` for indices, `.float()` for "
        "values), and compare the converted model's outputs with PyTorch's",
        op="coremltools conversion", names=names, confidence=Confidence.LOW,
    )


def _explicit_typing_precisions(found: re.Match[str], failure: Failure) -> Explanation:
    """Torch-TensorRT's ``use_explicit_typing was set to True, however found that enabled_precisions was also specified
    (saw: {torch.float16}, ...)``: with explicit typing the model's own dtypes decide, so the list is refused."""
    names = tuple(dict.fromkeys((*dtypes(found, "saw"), "f32")))
    return explained(
        Kind.OP_DTYPE, failure,
        "Torch-TensorRT was asked for strongly typed compilation (`use_explicit_typing=True`), which takes each "
        "layer's dtype from the model, and also given `enabled_precisions`, which only weakly typed compilation reads",
        "`enabled_precisions={torch.float16}` kept from an older script when `use_explicit_typing` was turned on",
        "drop `enabled_precisions` and convert the model itself to the dtype wanted (`model.half()`, or cast the "
        "layers that should run in fp16) before compiling; or set `use_explicit_typing=False` to let TensorRT choose",
        op="torch_tensorrt.compile", names=names,
    )


_java_scalar_type = message_only(
    Kind.SCALAR_TYPE,
    "PyTorch Android's Java `Tensor` cannot hold the dtype the model returned: it wraps only uint8, int8, int32, "
    "int64, float32 and float64",
    "a quantized model whose output is still quantized (quint8/qint8: no `DeQuantStub` at its end), or a model "
    "returning fp16/bf16 or bool",
    "convert the output before returning it from `forward` (`self.dequant(x)` after `torch.quantization.DeQuantStub`, "
    "or `x.float()`), then trace and export again",
    op="PyTorch Android (Java Tensor)",
)


def _dtype_as_device_string(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``Invalid device string: 'torch.float16'``: a dtype passed as a string, which ``Tensor.to`` reads as a device."""
    names = dtypes(found, "a")
    if not names:
        return None
    return explained(
        Kind.OP_DTYPE, failure,
        f"`{found['a']}` reached `.to()` as a string, and `.to()` reads a string as a device name, not a dtype",
        "a dtype kept as text (read from a config file, a command-line flag or `str(model.dtype)`) and passed on as it "
        "is",
        f"pass the dtype object: `x.to(torch.{full_name(names[0])})`, or turn the text into one first "
        "(`getattr(torch, name.removeprefix('torch.'))`)",
        op="Tensor.to", names=names,
    )


RULES: tuple[Rule, ...] = (
    rule(r"Invalid device string: '(?P<a>torch\.\w{1,20})'", _dtype_as_device_string),
    rule(r"use_explicit_typing was set to True, however found that enabled_precisions was also specified"
         r"(?: \(saw: \{(?P<saw>torch\.\w{1,20}))?", _explicit_typing_precisions),
    rule(r"at::Tensor scalar type is not supported on java side", _java_scalar_type),
    rule(r"Model data type and gradient accumulation data type must be equal to use ZeRO", _zero_accumulation_dtype),
    rule(r"torch\.autocast is enabled outside DeepSpeed,? but not in the DeepSpeed config",
         _autocast_outside_deepspeed),
    rule(r"`?--mixed_precision`? arg cannot be set to `?(?P<a>bf16|fp16)`? when `?(?P<b>bf16|fp16)`? is set in the "
         r"DeepSpeed config", _precision_flags_disagree),
    rule(r"Do not know how to handle these types to promote: \{'(?P<a>\w{1,20})', '(?P<b>\w{1,20})'\}",
         _amp_promote_double),
    rule(r"\bParameter (?P<name>[\w.]{1,200}) has dtype (?P<a>{DTYPE})$", _parameter_not_in_recipe_dtype),
    rule(r"mismatching datatypes across the first input \((?P<a>\w{1,10})\),? the second input \((?P<b>\w{1,10})\)",
         _xnnpack_operands),
    rule(r"In op, of type (?P<type>\w{1,30}), named \w{1,80}, the named input `\w{1,30}` must have the same data "
         r"type as the named input `\w{1,30}`\. However, \w{1,30} has dtype (?P<a>\w{1,10}) whereas \w{1,30} has dtype "
         r"(?P<b>\w{1,10})", _coreml_named_inputs),
    rule(r"Saving value type of (?P<a>\w{1,10}) into a builtin type of (?P<b>\w{1,10})", _coreml_saved_narrower),
    rule(r"\(op_type: (?P<type>\w{1,30})\) Input \w{1,30}=\S{1,80} expects tensor or scalar of dtype from type domain "
         r"\[(?P<domain>[^\]\n]{1,120})\] but got tensor\[[^\]\n]{0,80}?(?P<a>\w{1,10})\]", _coreml_type_domain),
    rule(r"Your configuration is requesting an incompatible dtype and optimizer combination",
         _trainer_dtype_and_optimizer),
    rule(r"\b(?P<dtype>fp16|bf16) mixed precision requires (?:a GPU|PyTorch >= [\d.]+ and a supported device)",
         _mixed_precision_device),
    rule(r"CUBLAS_STATUS_NOT_SUPPORTED\b[^\n]{0,200}?\b(?P<type>CUDA_R_16BF|CUDA_R_16F)\b", _cublas_16bit),
    rule(r"FlashAttention only supports? Ampere GPUs or newer", _ampere_attention),
    rule(r"cutlassF: no kernel found to launch", _cutlass),
    rule(r"\bcublaslt ran into an error", _bitsandbytes_int8),
    rule(r"AttributeError: BF16\b|^BF16\. Did you mean", _gguf_without_bf16),
    rule(r"(?:input types|\w{1,20} type) '?tensor<[\dx?]{0,40}?(?P<a>[fb]f?\d{1,2})>'? and (?:\w{1,20} type )?'?"
         r"tensor<[\dx?]{0,40}?(?P<b>[fb]f?\d{1,2})>'? are not broadcast compatible", _mlir_broadcast),
    rule(r"\bbf conversion instruction not supported", _no_bf16_conversion),
    rule(r"(?P<status>CUBLAS_STATUS_(?:EXECUTION_FAILED|INVALID_VALUE|INTERNAL_ERROR))\b[^\n]{0,300}?\b"
         r"(?P<type>CUDA_R_16BF|CUDA_R_16F)\b", _cublas_failed),
    rule(r"FP16 is not supported on CPU;? using FP32 instead", _whisper_cpu_fp16),
    rule(r"Mixed precision train\w{0,5} with AMP or APEX ?\(`?'?--fp16'?`?\)[^\n]{0,160}?can only be used on CUDA\b",
         _transformers_fp16_device),
    rule(r"You have asked for native AMP on CPU, but AMP is only available on GPU", _lightning_amp_on_cpu),
    rule(r"Requested (?P<type>(?:int8|int16|float16|bfloat16|float32)(?:_float16|_float32|_bfloat16)?) compute type, "
         r"but the target device or backend do(?:es)? not support efficient", _compute_type_refused),
    rule(r"expected storage to be of type (?P<a>{DTYPE}), but is of type (?P<b>{DTYPE})", _ct2_storage_type),
    rule(r"src0->type == GGML_TYPE_F16 failed", _ggml_needs_f16),
    rule(r"Unable to process subgraph input type of at::kLong/at::kDouble", _long_double_inputs),
    rule(r"'(?P<op>mps\.\w{1,30})' op requires the same element type", _mps_element_type),
    rule(r"Value (?P<value>\w{1,20}) (?:is )?not (?:available|found) in Precision", _composer_precision),
    rule(r"Precision '?(?P<value>[\w-]{1,20})'? is invalid|invalid literal for int\(\) with base 10: "
         r"'(?P<value2>(?:bf)?16-(?:true|mixed))'", _lightning_precision),
    rule(r"\bNo precision set\b", _no_precision_set),
    rule(r"\bin_feat\.scalar_type\(\) == kernel\.scalar_type\(\)|\bType mismatch input:\s*(?P<a>{DTYPE})\s*!=\s*"
         r"kernel:\s*(?P<b>{DTYPE})", _sparse_conv_types),
    rule(r"\bcan't find suitable algorithm for \d+", _sparse_conv_algorithm),
    rule(r"more than one conversion function from \"const (?:__)?half\" to a built-in type applies",
         _half_conversion_in_build),
    rule(r"no instance of constructor \"__half2::__half2\" matches the argument list", _half2_from_integers),
    rule(r"module '\w{1,60}' has no attribute '\w{0,60}_(?:fp16|bf16|half)'", _stale_fp16_op),
    rule(r"Unsupported TypeMeta in ATen", _unsupported_type_meta),
    rule(r"\bidentifier \"__h(?:fma|add|sub|mul|div|max|min|neg|abs|exp|log|sqrt)\w{0,6}\" is undefined",
         _half_intrinsic_undefined),
    rule(r"\buse of undeclared identifier '__(?:double|float|int|uint|ll|short)2(?:half|bfloat16)\w{0,6}'",
         _half_conversion_undeclared),
    rule(r"\bds (?P<key>(?:fp16|bf16)\.enabled)=(?P<ds>\w{1,10}) vs hf (?:[\w|+()]{1,80})=(?P<value>\w{1,10})",
         _deepspeed_config_mismatch),
    rule(r"Param tensor \d+ has dtype=(?P<a>\w{1,12}), but expected dtype=(?P<b>\w{1,12})", _fused_adam_param_dtype),
    rule(r"Provided an unsupported data type as an input data type \(support: (?P<listed>[\w, ]{1,80})\), got: "
         r"(?P<a>torch\.\w{1,20})", _tensorrt_input_type),
    rule(r"\b(?P<dtype>fp16|bf16|torch\.(?:float32|float16|bfloat16)) is enabled but the following parameters have "
         r"dtype that is not (?:fp16|bf16|torch\.\w{1,12})(?::[^\n]{0,200}?(?P<listed>torch\.(?:float32|float16|"
         r"bfloat16)))?", _deepspeed_parameters_not_16bit),
    rule(r"cutlass::arch::Mma<[^\n]{0,200}?cutlass::(?P<type>float_e4m3_t|float_e5m2_t|bfloat16_t|half_t)\b[^\n]{0,900}?"
         r"\bnot implemented\b", _cutlass_mma),
    rule(r"\bcutlass cannot (?:initialize|implement|run)\b|Arch conditional MMA instruction used without targeting "
         r"appropriate compute capability", _cutlass_gemm),
    rule(r"\bError computing NN outputs\b", _core_ml_outputs),
    rule(r"No operator found for (?:`?memory_efficient_attention(?:_forward|_backward)?`?|this attention)|"
         r"xFormers wasn't buil[dt] with CUDA support", _xformers_no_operator),
    rule(r"unexpected datatype TYPE_(?P<got>\w{1,10}) for (?:inference )?input '(?P<name>[^'\n]{1,80})',? expecting "
         r"TYPE_(?P<want>\w{1,10})", _served_input_type),
    rule(r"Argument element types are inconsistent", _element_types),
    rule(r"`?\.to`? is not supported for `?4-bit`? or `?8-bit`? bitsandbytes models|"
         r"`?\.(?:float|half|bfloat16)\(\)`? is not supported for quantized models?", _quantized_model_cast),
    rule(r"'BF16_Optimizer' object has no attribute '(?P<attribute>\w{1,40})'", _bf16_optimizer),
    rule(r"(?i:\bunexpected keyword argument) '(?P<dtype>fp16|bf16)'", _precision_argument),
    rule(r"__init__\(\) got an unexpected keyword argument '(?:torch_)?dtype'", _dtype_argument_refused),
    rule(r"BatchEncoding\.to\(\) got an unexpected keyword argument 'dtype'", _batch_encoding_to_dtype),
    rule(r"`precision='?bf16'?` does not use a scaler", _scaler_under_bf16),
    rule(r"\bnot (?:compiled|built) with (?P<dtype>half|fp16|bf16|bfloat16)(?:[ -]precision)? support", _built_without),
    rule(r"Data type (?P<dtype>torch\.\w{1,20}) is\s+not supported by (?P<device>\w{1,20}) accelerator",
         _accelerator_refuses),
    rule(r"\b(?P<op>\w{1,40}) not implemented for DT_(?P<dtype>[A-Z0-9]{2,12})\b", _npu_dtype),
    rule(r"(?:\b(?P<op>\w{1,80})\([^\n]{0,400}?\) )?failed to dispatch data type (?P<dtype>{DTYPE})", _dispatch_failed),
    rule(r"Value not in list: (?P<widget>\w{0,30}(?:dtype|data_type|precision)\w{0,20}): '(?P<value>[\w.]{1,30})' "
         r"not in (?P<offered>\[[^\]\n]{0,300}\])", _widget_dtype),
    rule(r"\bPipelines loaded with [`'\"]?dtype=torch\.f", _diffusers_on_cpu),
    rule(r"Expected dtype to be one of \{?_DTYPE_TO_BIT_WIDTH", _low_bit_dtype),
    rule(r"allow_fp16_accumulation is not available in this version of torch", _no_fp16_accumulation),
    rule(r"Required aspect fp64 is not supported on the device|FP64 data type is unsupported on current platform",
         _xpu_without_float64),
    rule(r"The GPU device does not support Double \(Float64\) operations", _directml_without_float64),
    rule(r"DeviceCannotSupportHalfPrecision|"
         r"\b(?:device|GPU) (?:cannot|can't|does not|doesn't) support half[ -]precision", _device_without_half),
    rule(r"Dtype not understood: F8_E[45]M[23]", _old_safetensors_fp8),
    rule(r"InferDataType Failed\. Expected (?P<a>{DTYPE}), but got (?P<b>{DTYPE})", _oneflow_graph_dtype),
    rule(r"Unsupported GPU and data type combination", _evoformer_arch),
    rule(r"reduce_(?:mean|prod) is not available for non-floating tensors", _einops_mean),
    rule(r"mlir module expected element type (?P<a>[a-z]{1,4}\d{1,2}) but received (?P<b>[a-z]{1,4}\d{1,2})",
         _mps_graph_input),
    rule(r"Marlin does not support weight_bits = \w{1,20}\.? Only types = \[\]", _marlin_without_types),
)
