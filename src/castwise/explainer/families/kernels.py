"""No kernel for a dtype on a device: the op exists, but not in fp16/bf16 there.

torch names the kernel (``"addmm_impl_cpu_" not implemented for 'Half'``), and its name usually
says the device. Three situations recur: an fp16 model running on the CPU (older torch had no CPU
fp16 matmul or convolution; a CPU-only torch install is a common way to get there), ops that have
no 16-bit kernels anywhere by design (linear algebra, FFT of most sizes, CTC loss), and a kernel
from an extension built without them. The fixes are the same three: keep that module in fp32 with
a keep rule, upcast around the op, or use another dtype. The same message naming an integer or
float32 dtype is an integer-family error (a float mask in ``&``, a float target in ``nll_loss``).

Two mirror images of the same gap: kernels that exist only in 16-bit (FlashAttention refuses fp32,
so the model or its attention inputs were never converted), and backends that lack a dtype
altogether (MPS had no bf16 before macOS 14 and has no float64 at all; a GPU below compute capability 8.0 has no
native bf16).
"""

from __future__ import annotations

import re

from castwise.explainer.advice import CPU_HALF_IN_NEWER_TORCH, a, keep_rule
from castwise.explainer.clues import CLASS_INDEX_LOSS, cpu_said, first_shown, low_precision_said
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families import integers
from castwise.explainer.rules import Rule, dtypes, explained, message_only, rule
from castwise.explainer.spelling import device_of, is_floating, is_low_precision, short_dtype

_BY_DESIGN = (
    (re.compile(r"svd|gesvd|eig|qr|geqrf|lu|cholesky|inv|solve|lstsq|det|pinv|linalg|orgqr|triangular", re.I),
     "linear algebra has no 16-bit kernels by design (LAPACK, cuSOLVER and MAGMA work in fp32/fp64)"),
    (re.compile(r"fft|stft", re.I), "FFTs have no bf16 kernels, and fp16 only on CUDA for power-of-two sizes"),
    (re.compile(r"ctc", re.I), "CTC loss has no 16-bit kernels"),
)
_CPU_FP16 = re.compile(r"addmm|conv|unfold|LayerNorm|baddbmm|bmm|matmul|gemm", re.I)


_CPU_KERNELS = ("LayerNormKernelImpl",)
"""Kernels whose names do not say CPU but whose 16-bit gaps were on the CPU (CUDA had them)."""


def _device(op: str) -> str | None:
    if op in _CPU_KERNELS:
        return "cpu"
    lowered = op.lower()
    if "cuda" in lowered or "cudnn" in lowered or "cufft" in lowered:
        return "cuda"
    return "cpu" if "cpu" in lowered or "mkl" in lowered else device_of(op)


def _upcast(op: str) -> str:
    return f"upcast around the op (`{op}(x.float())`, then `.to(x.dtype)` on the result)"


def no_kernel(
    failure: Failure, op: str, names: tuple[str, ...], device: str | None, confidence: Confidence = Confidence.HIGH,
) -> Explanation:
    """``op`` has no kernel for the 16-bit dtype ``names[0]`` on ``device``."""
    dtype = names[0] if names else "this dtype"
    on = f" on {device.upper() if device == 'cpu' else device}" if device else ""
    shown = f"`{op}`" if op.strip("_ ") else "an op (or a library's kernel)"
    reason = next((text for pattern, text in _BY_DESIGN if pattern.search(op)), "")
    if not reason and device == "cpu" and dtype == "f16" and _CPU_FP16.search(op):
        return explained(
            Kind.NO_KERNEL, failure,
            f"`{op}` has no fp16 kernel on the CPU in this torch: an fp16 model is running on the CPU",
            "a model converted to fp16 (`.half()`, `torch_dtype=torch.float16`) that is not on a GPU: no "
            "`.cuda()`/`device_map`, no GPU visible, or a CPU-only torch install (`torch.cuda.is_available()` is "
            "False)",
            f"run it on the GPU (`model.cuda()`; install a CUDA build of torch if `torch.cuda.is_available()` is "
            f"False), or use fp32 (`model.float()`) or bf16 on the CPU; {CPU_HALF_IN_NEWER_TORCH}",
            op=op, names=names, device=device, confidence=confidence,
        )
    return explained(
        Kind.NO_KERNEL, failure,
        f"{shown} has no {dtype} kernel{on}" + (f": {reason}" if reason else ""),
        f"{a(dtype)} tensor reaching an op that only runs in higher precision"
        + ("" if reason else " (an op torch or an extension never implemented for it)"),
        f"{_upcast(op.split('_')[0] if reason else 'op')}; or {keep_rule('the module that calls it')}; "
        "or use another dtype for it (bf16 instead of fp16 on the CPU, fp32 where nothing else has a kernel)",
        op=op or None, names=names, device=device, confidence=confidence,
    )


def _not_implemented(found: re.Match[str], failure: Failure) -> Explanation | None:
    op, names = found["op"], dtypes(found, "dtype")
    if names and not is_low_precision(names[0]):
        return _wrong_kind_of_dtype(failure, op, names)
    names = _every_dtype_of(op, failure, found.re) or names
    return no_kernel(failure, op, names, _device(op) or ("cpu" if cpu_said(failure) else None))


def _every_dtype_of(op: str, failure: Failure, pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The 16-bit dtypes the paste says ``op`` has no kernel for (``"angle_xpu" not implemented for 'BFloat16' /
    ... for 'Half'``), in order, each once."""
    said = (dtypes(other, "dtype") for line in (failure.message, *failure.paste) for other in pattern.finditer(line)
            if other["op"] == op)
    return tuple(dict.fromkeys(name for names in said for name in names if is_low_precision(name)))


def _wrong_kind_of_dtype(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    """A kernel missing for an integer or full-precision dtype: the tensor has the wrong kind of dtype."""
    if first_shown(failure, CLASS_INDEX_LOSS) or "nll_loss" in op:
        return integers.target(failure, names, wants_float=False, op="nll_loss/cross_entropy")
    if "bitwise" in op or "logical" in op:
        return explained(
            Kind.MASK, failure,
            f"`{op}` (`&`, `|`, `~`) got {a(names[0])} tensor; bitwise ops need bool or integer masks",
            "a mask built as floats (`(x > 0).float()`, an attention mask of 0.0/1.0) combined with `&`/`|`",
            "keep masks bool (`mask.bool()`, or build them with comparisons) before combining them",
            op=op, names=names,
        )
    if is_floating(names[0]):
        return no_kernel(failure, op, names, _device(op))
    if _RANDOM_FILL.search(op):
        return _random_integers(failure, op, names)
    return integers.integer_operand(failure, names, op)


_RANDOM_FILL = re.compile(r"normal|uniform|bernoulli|exponential|geometric|cauchy|random_|randn")
"""Kernels that fill a tensor with random values: what initialises a layer's weights."""


def _random_integers(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    """A random fill (``normal_``, ``uniform_``) of an integer tensor: weights initialised after being made integer."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` fills a tensor with random values and has no kernel for {a(names[0])} tensor: something "
        "initialises an integer tensor, most often a layer's weight",
        "weights created in an integer dtype and then initialised: a model loaded in 8 bit whose quantized "
        "weights get the usual random initialisation (an older or mismatched transformers/bitsandbytes, "
        "`torch_dtype=torch.int8`), or `torch.randn(..., dtype=torch.long)`",
        "let the quantization library make the integer weights from floating ones (`quantization_config="
        "BitsAndBytesConfig(load_in_8bit=True)`, not `torch_dtype=torch.int8`; update transformers and "
        "bitsandbytes together), or initialise in a floating dtype; for random integers use `torch.randint`",
        op=op, names=names, confidence=Confidence.LOW,
    )


def _legacy(found: re.Match[str], failure: Failure) -> Explanation:
    return no_kernel(failure, found["op"], dtypes(found, "dtype"), device_of(found["dtype"]))


def _low_precision_linalg(found: re.Match[str], failure: Failure) -> Explanation:
    return no_kernel(failure, found["op"], dtypes(found, "dtype"), None)


def _fft(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "dtype") if "dtype" in found.groupdict() else ("f16",)
    cuda = "cuFFT" in found.group(0)
    return no_kernel(failure, "fft", names or ("f16",), "cuda" if cuda else "cpu")


def _only_low_precision(found: re.Match[str], failure: Failure) -> Explanation:
    op = found.groupdict().get("op") or ("FlashAttention" if "flash" in failure.message.lower() else "this kernel")
    return explained(
        Kind.NO_KERNEL, failure,
        f"{op} has kernels only for fp16 and bf16 and got tensors in another dtype (almost always fp32)",
        "a model loaded in fp32 (transformers' default without `torch_dtype`) or trained without 16-bit mixed "
        "precision, so the op's inputs (attention's q, k and v) reach the kernel in fp32; or a norm or an upcast "
        "right before it that returns fp32",
        "load the model in bf16/fp16 (`torch_dtype=torch.bfloat16`, or `'auto'`) or train with bf16/fp16 mixed "
        "precision (`bf16=True`, 'bf16-mixed'); or cast the op's inputs to bf16 just before the call; to stay in "
        "fp32, use another implementation (for attention, `attn_implementation='sdpa'`)",
        op=op,
    )


def _backend_lacks_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    names, device = dtypes(found, "dtype"), found["device"].lower()
    dtype = names[0] if names else found["dtype"]
    if dtype == "f64":
        return no_float64(failure, device)
    mps_bf16 = device == "mps" and dtype == "bf16"
    return explained(
        Kind.NO_KERNEL, failure,
        f"the {device.upper()} backend has no {dtype} support here"
        + (": bf16 on MPS needs macOS 14 or newer and a torch that supports it" if mps_bf16 else ""),
        f"a model, checkpoint or tensor in {dtype} (`torch_dtype=`, a config's `torch_dtype` read by `dtype='auto'`) "
        f"moved to {device}",
        f"load it in float16 (`torch_dtype=torch.float16`, which {device.upper()} supports) or float32 on this "
        "machine" + ("; or update to macOS 14+ and a recent torch" if mps_bf16 else ""),
        op=f"{dtype} on {device}", names=names, device=device,
    )


def no_float64(failure: Failure, device: str, confidence: Confidence = Confidence.HIGH) -> Explanation:
    """A backend without float64 (Apple's MPS): float64 data or a float64 default moved to it."""
    shown = device.upper()
    return explained(
        Kind.NO_KERNEL, failure,
        f"the {shown} backend has no float64 at all (Metal has no double precision): a float64 tensor cannot be "
        f"moved to {device} or created there",
        "float64 data moved to the device: numpy arrays are float64 by default (`torch.from_numpy`, "
        "`torch.tensor(array)`), Python/pandas values, `torch.set_default_dtype(torch.float64)`, or a module made "
        "`.double()` (or holding float64 buffers) when `model.to('mps')` runs",
        f"convert to float32 before the move: `x.float().to('{device}')` (`.to('{device}', torch.float32)`), "
        "`torch.from_numpy(a.astype(np.float32))`, `model.float()` before `.to(...)`; keep "
        "`torch.set_default_dtype(torch.float32)`",
        op=f"f64 on {device}", names=("f64",), device=device, confidence=confidence,
    )


def _float_or_double(found: re.Match[str], failure: Failure) -> Explanation:
    """An op that takes only float32/float64 (``quantile() input tensor must be either float or double``): given the
    16-bit dtype the paste names, or, when it names none, some other dtype (16-bit or integer) upcast the same way."""
    called = _CALLED.findall(failure.message[:found.start()])
    op = called[-1] if called else ""
    names = low_precision_said(failure)
    if names:
        return no_kernel(failure, op, names[:1], None, Confidence.LOW)
    shown = f"`{op}`" if op else "this op"
    return explained(
        Kind.NO_KERNEL, failure,
        f"{shown} runs only in float32 or float64 and got a tensor of another dtype",
        "a 16-bit tensor (a `.half()`/bf16 model's output, an autocast region) or an integer one reaching an op with "
        "no kernel for it",
        f"{_upcast(op or 'op')}; or {keep_rule('the module that calls it')}",
        op=op or None, confidence=Confidence.LOW,
    )


_CALLED = re.compile(r"\b(\w{1,40})\(\)")
"""An op named as a call in a message (``quantile() input tensor must be ...``)."""


def _cpu_autocast(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    return explained(
        Kind.NO_KERNEL, failure,
        "CPU autocast in this torch takes only bfloat16: it was asked for another dtype (usually float16, a GPU "
        "setting reused on the CPU)",
        "`torch.autocast('cpu', dtype=torch.float16)` (or `torch.cpu.amp.autocast` / a framework's fp16 mixed "
        "precision) running on the CPU",
        "on the CPU use bf16 (`torch.autocast('cpu', dtype=torch.bfloat16)`, 'bf16-mixed'), or no autocast; update "
        "torch for fp16 CPU autocast (2.13 measured takes it)",
        op="autocast on cpu", names=("bf16",), device="cpu",
    )


def _mixed_precision_device(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "dtype")
    dtype = names[0] if names else found["dtype"]
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


def _low_bit_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    return explained(
        Kind.NO_KERNEL, failure,
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
    names = dtypes(found, "dtype")
    dtype = names[0] if names else found["dtype"]
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


def _npu_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "dtype")
    dtype = names[0] if names else found["dtype"]
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


_transformers_fp16_device = message_only(
    Kind.NO_KERNEL,
    "transformers' Trainer runs fp16 mixed precision (`--fp16`, AMP or apex) only on CUDA devices, and none is in use",
    "`fp16=True` in TrainingArguments on the CPU, on MPS, or where torch does not see the GPU (a CPU-only torch, no "
    "GPU in the runtime)",
    "run on a GPU (check `torch.cuda.is_available()`), or drop `fp16=True` (use `bf16=True` on a CPU that has it, or "
    "fp32)",
    op="Trainer fp16", names=("f16",),
)


def _mps_element_type(found: re.Match[str], failure: Failure) -> Explanation:
    said = (word for line in (failure.message, *failure.paste) for word in _MLIR_TYPE.findall(line))
    names = tuple(dict.fromkeys(name for name in map(short_dtype, said) if name))
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


def _composer_precision(found: re.Match[str], failure: Failure) -> Explanation:
    value = found["value"]
    names = ("bf16",) if "bf" in value.lower() else ("f16",) if "16" in value else ()
    return explained(
        Kind.NO_KERNEL, failure,
        f"the precision name `{value}` is not one this trainer knows (Composer's `Precision` takes 'fp32', "
        "'amp_fp16', 'amp_bf16', 'amp_fp8')",
        "a precision written in another library's spelling (`bf16`, `bf_16`, `fp16`) in a Composer/LLM Foundry "
        "config or `Trainer(precision=...)`",
        "use the trainer's own name: `precision='amp_bf16'` for bf16 mixed precision (or 'amp_fp16')",
        op="precision name", names=names,
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


def _no_casting_kernel(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    names = low_precision_said(failure)
    return explained(
        Kind.OP_DTYPE, failure,
        "an op's CPU/GPU loop got a dtype its kernel was not compiled to cast (an internal assert): the op has no "
        f"path for {names[0] if names else 'this dtype'} here",
        f"a {names[0] if names else '16-bit'} tensor handed to an op that supports it only partly (quantization ops "
        "such as `fake_quantize_per_channel_affine`, older versions of others)",
        "call the op with float32 inputs (`op(x.float(), ...)`, then `.to(x.dtype)`), or update torch",
        op="an op's kernel", names=names[:1], confidence=Confidence.LOW,
    )


_unsafe_to_autocast = message_only(
    Kind.NO_KERNEL,
    "autocast refuses to run binary_cross_entropy (BCELoss) in 16-bit: a sigmoid's output rounded in fp16/bf16 "
    "reaches exactly 0 or 1, where BCE's log is infinite",
    "`F.binary_cross_entropy`/`nn.BCELoss` on a sigmoid's output inside an autocast region (a mixed-precision "
    "Trainer, Lightning's '16-mixed'/'bf16-mixed', `torch.autocast`)",
    "drop the sigmoid and use `BCEWithLogitsLoss` / `binary_cross_entropy_with_logits` on the logits (autocast runs it "
    "in fp32); or compute that loss outside autocast in fp32: `with torch.autocast(device, enabled=False): "
    "loss = F.binary_cross_entropy(p.float(), y.float())`",
    op="binary_cross_entropy under autocast",
)


_compute_capability = message_only(
    Kind.NO_KERNEL,
    "this GPU has no native bf16 (compute capability below 8.0: T4, V100, P100, RTX 20xx); bf16 needs Ampere or newer",
    "a model or config that defaults to bf16 (`torch_dtype=torch.bfloat16`, `dtype='auto'` reading bf16 from "
    "config.json, `bf16=True`) run on an older GPU",
    "use float16 (fp16) instead (e.g. `dtype='half'` / `torch_dtype=torch.float16`; for training use '16-mixed', "
    "which adds loss scaling), or float32",
    op="bf16 on this GPU", names=("bf16",), device="cuda",
)


RULES: tuple[Rule, ...] = (
    rule(r"(?<![\w:.])[\"“”']?(?P<op>[\w:. ]{1,80}?)[\"“”']? not implemented for [\"“”'‘’](?P<dtype>{DTYPE})[\"“”'‘’]?",
         _not_implemented),
    rule(r"\b(?P<op>\w{1,80}) is not implemented for type (?P<dtype>[\w.]{1,80})", _legacy),
    rule(r"(?<![\w.])(?P<op>[\w.]{1,80}): Low precision dtypes not supported\.?\s*Got (?P<dtype>{DTYPE})",
         _low_precision_linalg),
    rule(r"(?P<op>linalg\.\w+)\((?P<dtype>BFloat16|Half)\{", _low_precision_linalg),
    rule(r"^Unsupported dtype (?P<dtype>Half|BFloat16)\b", _fft),
    rule(r"MKL FFT doesn't support tensors of type:?\s*(?P<dtype>{DTYPE})", _fft),
    rule(r"cuFFT only supports dimensions whose sizes are powers of two when computing in half precision", _fft),
    rule(r"cuFFT doesn't support signals of half type", _fft),
    rule(r"\b(?P<op>\w{1,40}) only supports? (?:fp16|float16|half) (?:and|or) (?:bf16|bfloat16)", _only_low_precision),
    rule(r"\b(?:requires?|must be|expects?|supports? only)\s+(?:torch\.)?(?:fp16|float16|half)\s*(?:or|and|/|,)\s*"
         r"(?:torch\.)?(?:bf16|bfloat16)\b", _only_low_precision),
    rule(r"\bmust be (?:either )?(?:a )?float(?:32)? or double\b", _float_or_double),
    rule(r"AutocastCPU only supports? (?:Bfloat16|bf16)|In CPU autocast, but the target dtype is not supported",
         _cpu_autocast),
    rule(r"\b(?P<dtype>fp16|bf16) mixed precision requires (?:a GPU|PyTorch >= [\d.]+ and a supported device)",
         _mixed_precision_device),
    rule(r"CUBLAS_STATUS_NOT_SUPPORTED\b[^\n]{0,200}?\b(?P<type>CUDA_R_16BF|CUDA_R_16F)\b", _cublas_16bit),
    rule(r"FlashAttention only supports? Ampere GPUs or newer", _ampere_attention),
    rule(r"cutlassF: no kernel found to launch", _cutlass),
    rule(r"AttributeError: BF16\b|^BF16\. Did you mean", _gguf_without_bf16),
    rule(r"input types '?tensor<[\dx?]{0,40}?(?P<a>[fb]f?\d{1,2})>'? and '?tensor<[\dx?]{0,40}?"
         r"(?P<b>[fb]f?\d{1,2})>'? are not broadcast compatible", _mlir_broadcast),
    rule(r"\bbf conversion instruction not supported", _no_bf16_conversion),
    rule(r"(?P<status>CUBLAS_STATUS_(?:EXECUTION_FAILED|INVALID_VALUE|INTERNAL_ERROR))\b[^\n]{0,300}?\b"
         r"(?P<type>CUDA_R_16BF|CUDA_R_16F)\b", _cublas_failed),
    rule(r"Mixed precision training with AMP or APEX \(`?--fp16`?\)[^\n]{0,60}?can only be used on CUDA devices",
         _transformers_fp16_device),
    rule(r"'(?P<op>mps\.\w{1,30})' op requires the same element type", _mps_element_type),
    rule(r"Value (?P<value>\w{1,20}) is not available in Precision", _composer_precision),
    rule(r"'torch\.(?:cuda\.)?(?P<dtype>(?:Half|BFloat16)Tensor)' object has no attribute '(?P<op>\w{1,40})'", _legacy),
    rule(r"\bnot (?:compiled|built) with (?P<dtype>half|fp16|bf16|bfloat16)(?:[ -]precision)? support", _built_without),
    rule(r"Data type (?P<dtype>torch\.\w{1,20}) is\s+not supported by (?P<device>\w{1,20}) accelerator",
         _accelerator_refuses),
    rule(r"\b(?P<op>\w{1,40}) not implemented for DT_(?P<dtype>[A-Z0-9]{2,12})\b", _npu_dtype),
    rule(r"\bPipelines loaded with [`'\"]?dtype=torch\.f", _diffusers_on_cpu),
    rule(r"Expected dtype to be one of \{?_DTYPE_TO_BIT_WIDTH", _low_bit_dtype),
    rule(r"binary_cross_entropy and torch\.nn\.BCELoss are unsafe to autocast", _unsafe_to_autocast),
    rule(r"Trying to convert (?P<dtype>\w{1,20}) to the (?P<device>\w{1,10}) backend but it does not have support for "
         r"that dtype", _backend_lacks_dtype),
    rule(r"\b(?P<device>MPS) (?P<dtype>\w{1,20}) is only supported on MacOS", _backend_lacks_dtype),
    rule(r"Cannot convert a (?P<device>MPS) Tensor to (?P<dtype>\w{1,20}) dtype as the MPS framework doesn't support",
         _backend_lacks_dtype),
    rule(r"\b(?P<dtype>\w{1,20}) is not supported on (?P<device>MPS)\b", _backend_lacks_dtype),
    rule(r"Bfloat16 is only supported on GPUs with compute capability of at least 8\.0", _compute_capability),
    rule(r"Your setup doesn't support bf16/gpu", _compute_capability),
    rule(r"\b(?:CUDA|GPU)\b[^\n]{0,40}?(?:does not|doesn't|do not|don't|cannot|can't) support (?:bfloat16|bf16)\b",
         _compute_capability),
    rule(r"\bbf16 is only supported on A100\+? GPUs", _compute_capability),
    rule(r"allow_fp16_accumulation is not available in this version of torch", _no_fp16_accumulation),
    rule(r"Required aspect fp64 is not supported on the device", _xpu_without_float64),
    rule(r"needs_dynamic_casting<func_t>::check\(iter\) INTERNAL ASSERT FAILED", _no_casting_kernel),
)
