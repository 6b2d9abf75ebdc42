"""A dtype said to fail on a GPU that has no units for it: bf16 before Ampere, fp8 before Ada and Hopper.

Many reports show no error line, only a title such as "FP8 doesn't work on GTX 1650" or "bf16 error on V100".
The GPU named is then the clue: each generation's compute capability fixes which dtypes its tensor cores
run (bf16 from 8.0, fp8 from 8.9). That reading is tried only when no rule recognised a line, and said with
low confidence. The GPU compiler's own refusals are rules: ptxas's ``Feature '.bf16' requires .target sm_80``, and
nvcc not knowing bf16 intrinsics when an extension is built for an older architecture.
"""

from __future__ import annotations

import re

from castwise.explainer.clues import low_precision_in, low_precision_name, low_precision_said, paste_search
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, explained, message_only, rule
from castwise.explainer.spelling import is_fp8

_BEFORE_AMPERE = (r"(?:Tesla )?(?:V100|P100|P40|P4|K80|K40|M40|M60|T4)\b|GTX ?\d{3,4}(?: ?Ti)?\b|"
                  r"RTX ?20[5-8]0(?: ?Ti| ?Super)?\b|20[5-8]0 ?Ti\b|Quadro RTX ?[4-8]000\b|Titan ?(?:V|Xp?|RTX)\b|"
                  r"Volta\b|Turing\b|Pascal\b")
_AMPERE = r"A(?:100|10G?|30|40|[2456]000)\b|RTX ?30[5-9]0(?: ?Ti)?\b|Ampere\b"
_FAILED = re.compile(r"\berror|\bfail|\bnot (?:work|support)|\bdoes(?:n't| not) work|\bcrash|\bbroken\b|报错|不支持",
                     re.IGNORECASE)

_CAPABILITIES = ((re.compile(_BEFORE_AMPERE, re.IGNORECASE), "below 8.0, before Ampere", ("bf16", "fp8")),
                 (re.compile(_AMPERE, re.IGNORECASE), "8.0 to 8.6, Ampere", ("fp8",)))
"""GPU names by compute capability, and the low-precision dtypes their tensor cores lack."""


def _lacking(found: re.Match[str], failure: Failure) -> Explanation | None:
    """fp8 or bf16 named on a line with a GPU that lacks it, in a paste that says something failed."""
    if not _FAILED.search(failure.message) and not any(map(_FAILED.search, failure.paste[:1])):
        return None
    gpu = _GPU.search(failure.message)
    if gpu is None:
        return None
    dtype = low_precision_name(found.group(0))
    generation = next(((capability, lacks) for pattern, capability, lacks in _CAPABILITIES
                       if pattern.match(gpu.group(0))), None)
    if generation is None or ("fp8" if is_fp8(dtype) else dtype) not in generation[1]:
        return None
    needs = "8.9 (Ada: L4, RTX 40xx; Hopper: H100)" if is_fp8(dtype) else "8.0 (Ampere: A100, RTX 30xx)"
    return explained(
        Kind.NO_KERNEL, failure,
        f"the {gpu.group(0)} (compute capability {generation[0]}) has no {dtype} tensor cores: {dtype} needs compute "
        f"capability {needs}; the report names the GPU, not the error, so this is the likely cause",
        f"a model, checkpoint or option in {dtype} (an fp8 weight dtype, `torch_dtype=torch.bfloat16`, a quantized "
        "checkpoint) run on an older GPU",
        "use fp16 on this GPU (bf16 and fp8 models load in fp16 with `torch_dtype=torch.float16`, or drop the fp8 "
        "option), or move to a GPU that has the dtype; run `castwise explain` on the full error to confirm",
        op=f"{dtype} on this GPU", names=(dtype,), device="cuda", confidence=Confidence.LOW,
    )


def _target(found: re.Match[str], failure: Failure) -> Explanation:
    """ptxas refusing an instruction for the GPU it compiles for (``Feature '.bf16' requires .target sm_80 or
    higher``): a kernel compiled in bf16 (or fp8) for an older GPU."""
    dtype = low_precision_name(found["dtype"])
    return explained(
        Kind.NO_KERNEL, failure,
        f"the GPU compiler (ptxas) has no {dtype} instructions for this GPU: they need sm_{found['sm']} (compute "
        f"capability {found['sm'][:-1]}.{found['sm'][-1]}) or newer, and the kernel was compiled for an older one",
        f"a Triton or CUDA kernel (torch.compile's, a library's fused kernel) compiled in {dtype} on a GPU below that "
        + ("capability (Maxwell sm_52 and older, such as a GTX 900 or a Tesla M40)" if dtype == "f16" else
           "capability (T4, V100, RTX 20xx for bf16)"),
        ("run in float32 on this GPU (`dtype=torch.float32`, no `.half()`), or use a GPU with that capability"
         if dtype == "f16" else "run in fp16 on this GPU (float16: `dtype=torch.float16`, '16-mixed') or float32, or "
         "use a GPU with that capability"),
        op="ptxas", names=(dtype,), device="cuda",
    )


def _bf16_intrinsics_missing(found: re.Match[str], failure: Failure) -> Explanation:
    """nvcc not knowing the bf16 intrinsics (``__high2bfloat16``, ``__nv_bfloat162`` conversions) an extension uses."""
    del found
    return _built_for_older_gpu(
        failure,
        "nvcc does not know the bf16 intrinsics an extension's CUDA code uses (`__high2bfloat16`, `__nv_bfloat162` "
        "conversions): cuda_bf16.h defines them only when compiling for compute capability 8.0 or newer (and a recent "
        "CUDA)",
        "bf16", "8.0", "bf16 CUDA intrinsics at build time",
    )


def _built_for_older_gpu(failure: Failure, cause: str, dtype: str, capability: str, op: str) -> Explanation:
    """A CUDA extension's 16-bit code that nvcc refuses because it compiles for a GPU architecture below
    ``capability``."""
    return explained(
        Kind.NO_KERNEL, failure, cause,
        f"a CUDA extension with {dtype} kernels built from source for an older GPU architecture: no GPU visible at "
        f"build time, `TORCH_CUDA_ARCH_LIST` including an architecture below {capability}, or a CUDA toolkit older "
        "than the extension needs",
        f"build for your GPU's architecture only (`TORCH_CUDA_ARCH_LIST={capability}` or higher, e.g. 8.6 for RTX "
        f"30xx, 8.9 for RTX 40xx) with a recent CUDA; on an older GPU, build without the {dtype} kernels or use the "
        "extension's fp32 path (or a prebuilt wheel)",
        op=op, names=(dtype,), device="cuda",
    )


def _no_kernel_image(found: re.Match[str], failure: Failure) -> Explanation:
    """CUDA's ``no kernel image is available for execution on the device``: GPU code (torch's, a library's such as
    bitsandbytes', a custom extension's) compiled for other architectures than this GPU's; the dtype the paste names
    (its kernels are often 16-bit or 8-bit ones for newer GPUs), with low confidence."""
    del found
    names = low_precision_said(failure)[:1]
    return explained(
        Kind.NO_KERNEL, failure,
        "the GPU has no compiled kernel to run: the binary (torch's, or a library's such as bitsandbytes', or a "
        "custom CUDA extension's) was built for other GPU architectures than this one"
        + (f", and its {names[0]} kernels are among those missing" if names else ""),
        "a prebuilt wheel without your GPU's compute capability (a GPU newer than the build, or an old one it "
        "dropped, such as Pascal or Maxwell), or an extension compiled on another machine or with another "
        "`TORCH_CUDA_ARCH_LIST`",
        "install a build that includes your GPU (torch and bitsandbytes wheels for its CUDA version and compute "
        "capability; a newer release for a new GPU), or rebuild the extension with `TORCH_CUDA_ARCH_LIST` set to "
        "your GPU's capability; on an old GPU, turn off the feature whose kernel is missing (8-bit optimizers, "
        "bf16/fp8 kernels) and use fp16 or fp32",
        op="a CUDA kernel", names=names, device="cuda", confidence=Confidence.LOW,
    )


_SLSTM_DTYPE = re.compile(r"D[A-Z](?P<code>[bh])(?=D|NG|$)")
"""A dtype in xLSTM's sLSTM extension name (``slstm_HS128...DBfDRbDWb...``): each tensor's dtype as ``D``, its role
letter and ``f`` (fp32), ``h`` (fp16) or ``b`` (bf16)."""


def _slstm_dtypes(extension: str) -> tuple[str, ...]:
    """The 16-bit dtypes xLSTM's sLSTM extension name encodes, bf16 first; empty for any other extension."""
    if not extension.startswith("slstm_"):
        return ()
    codes = {found["code"] for found in _SLSTM_DTYPE.finditer(extension)}
    return tuple(name for code, name in (("b", "bf16"), ("h", "f16")) if code in codes)


def _extension_build_failed(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``Error building extension 'wkv_1024_bf16'``: a JIT-built CUDA extension whose 16-bit kernels did not compile,
    when its name or the build names a 16-bit dtype (low confidence: the compiler's own error says why); declined
    otherwise."""
    names = low_precision_in(found["extension"]) or _slstm_dtypes(found["extension"]) or low_precision_said(failure)
    if not names:
        return None
    return explained(
        Kind.NO_KERNEL, failure,
        f"a CUDA extension with {names[0]} kernels (`{found['extension']}`) failed to compile when it was first "
        f"loaded: the {names[0]} code needs a GPU architecture and a CUDA toolkit that provide it",
        "a JIT-compiled extension (RWKV's wkv kernels, xLSTM's sLSTM, a repo's `load(...)` of .cu files) built for an "
        "older GPU (below compute capability 8.0 for bf16), with a CUDA toolkit older than the code or than torch's, "
        "or without a working compiler",
        f"read the compiler's first error above the failure; build for your GPU (`TORCH_CUDA_ARCH_LIST`) with the CUDA "
        f"toolkit torch was built with; on an older GPU choose the fp16 or fp32 variant of the kernel instead of "
        f"{names[0]}",
        op="JIT-built CUDA extension", names=names[:1], device="cuda", confidence=Confidence.LOW,
    )


_ATOMIC_ADD_ARGUMENTS = (
    (re.compile(r"argument types are: \([^)\n]{0,120}\b(?:__nv_bfloat162?|(?:c10|at)::BFloat16)\b"), "bf16", "8.0"),
    (re.compile(r"argument types are: \([^)\n]{0,120}\b(?:__half|(?:c10|at)::Half)\b"), "f16", "7.0"),
    (re.compile(r"argument types are: \([^)\n]{0,120}\b__half2\b"), "f16", "6.0"),
)
"""nvcc's list of the arguments no ``atomicAdd`` overload takes, by 16-bit type, with the compute capability from
which CUDA defines ``atomicAdd`` for it."""


_half_conversions_disabled = message_only(
    Kind.NO_KERNEL,
    "nvcc found no conversion from `__half` to `float`: torch's extension builds define `__CUDA_NO_HALF_CONVERSIONS__` "
    "(and `__CUDA_NO_HALF_OPERATORS__`), which turn off `__half`'s implicit conversions, and this CUDA code relies on "
    "them",
    "a CUDA extension (built with torch's `CUDAExtension` or `load()`) whose fp16 code converts `__half` to `float` "
    "implicitly",
    "convert explicitly in the kernel (`__half2float(x)`, `__float2half(y)`), or drop those defines from the "
    "extension's `nvcc` flags (`-U__CUDA_NO_HALF_CONVERSIONS__`); update the extension if a fixed version exists",
    op="an extension's fp16 CUDA code", names=("f16",), confidence=Confidence.LOW,
)


def _atomic_add(found: re.Match[str], failure: Failure) -> Explanation | None:
    """nvcc finding no ``atomicAdd`` for ``__half``/``c10::Half`` (or bf16) arguments while building an extension: CUDA
    defines it only from compute capability 7.0 (8.0 for bf16); declined when the arguments are not in view."""
    del found
    dtype, capability = next(((name, sm) for pattern, name, sm in _ATOMIC_ADD_ARGUMENTS
                              if paste_search(failure, pattern)), (None, ""))
    if dtype is None:
        return None
    return _built_for_older_gpu(
        failure,
        f"nvcc has no `atomicAdd` for {dtype} arguments here: CUDA defines it only when compiling for compute "
        f"capability {capability} or newer",
        dtype, capability, "atomicAdd in an extension's CUDA code at build time",
    )


_sm80_only = message_only(
    Kind.NO_KERNEL,
    "a check in torch's fused attention (flash attention's backward at large head dimensions, among others) requires "
    "an A100- or H100-class GPU (compute capability 8.0 or 9.0), and this GPU is another",
    "training through `scaled_dot_product_attention` (or a library that calls it) on a consumer or older GPU (RTX "
    "20xx, 30xx, 40xx, T4), often with 16-bit inputs that select the flash kernel",
    "select another attention kernel for training: `torch.backends.cuda.enable_flash_sdp(False)` (memory-efficient "
    "attention then runs), or the library's xformers or math attention; update torch, whose newer releases run more "
    "of it on more GPUs",
    op="scaled_dot_product_attention", device="cuda", confidence=Confidence.LOW,
)


def _kernel_not_for_this_gpu(found: re.Match[str], failure: Failure) -> Explanation:
    """``This kernel is not supported on your GPU`` (nunchaku's quantized kernels): built for newer GPUs; on a GPU the
    paste names from before Ampere, the bf16 path it takes by default."""
    del found
    gpu = paste_search(failure, re.compile(_BEFORE_AMPERE, re.IGNORECASE))
    older = f" {gpu.group(0)} predates Ampere (compute capability below 8.0), so it has no bf16," if gpu else ""
    return explained(
        Kind.NO_KERNEL, failure,
        f"the library's kernel was not built for this GPU:{older or ' it needs a newer architecture'} and the model "
        "runs its bf16 path by default",
        "a model whose quantized kernels (nunchaku's int4 and fp4 SVDQuant kernels among them) compute in bf16, run on "
        "a Turing or older GPU (RTX 20xx, Quadro RTX, T4), or an fp4 model on a GPU before Blackwell",
        "on a GPU before Ampere run the model in fp16 (`torch_dtype=torch.float16`, the library's fp16 or int4 "
        "variant); fp4 variants need a Blackwell GPU",
        op="a quantized kernel", names=("bf16",) if gpu else (), confidence=Confidence.LOW,
    )


_tf32_needs_ampere = message_only(
    Kind.NO_KERNEL,
    "transformers' `--tf32` (`TrainingArguments(tf32=True)`) found no GPU that has TF32: TF32 matmuls need an "
    "Ampere or newer NVIDIA GPU, CUDA 11 and a CUDA build of torch",
    "`tf32: true` in a training config run on a GPU before Ampere (V100, T4, RTX 20xx), on the CPU, or where torch "
    "cannot see the GPU (a CPU-only torch build, `CUDA_VISIBLE_DEVICES` empty); on a newer GPU, an older transformers "
    "whose check does not know the torch it runs with",
    "set `tf32=False` (drop `--tf32`) where there is no Ampere GPU; on an Ampere or newer one, check "
    "`torch.cuda.is_available()` and update transformers",
    op="TF32 (--tf32)", confidence=Confidence.LOW,
)


RULES: tuple[Rule, ...] = (
    rule(r"--tf32 requires Ampere or a newer GPU arch", _tf32_needs_ampere),
    rule(r"This kernel is not supported on your GPU", _kernel_not_for_this_gpu),
    rule(r"Expected is_sm(?:80|8x|90)(?: \|\| is_sm(?:80|8x|90))* to be true, but got false", _sm80_only),
    rule(r"no instance of overloaded function \"atomicAdd\" matches the argument list", _atomic_add),
    rule(r"no suitable conversion function from \"(?:const )?__half\" to \"(?:const )?float\" exists",
         _half_conversions_disabled),
    rule(r"\bno kernel image is available for execution on the device", _no_kernel_image),
    rule(r"Error building extension '(?P<extension>[\w.-]{1,120})'", _extension_build_failed),
    rule(r"Feature ['\"]?\.?(?P<dtype>bf16|f16x2|f16|e4m3\w{0,8}|fp8\w{0,8})(?: arith\w{0,8} and compare "
         r"instructions)?['\"]? requires \.target sm_(?P<sm>\d{2,3})",
         _target),
    rule(r"identifier \"__(?:high2bfloat16|low2bfloat16|halves2bfloat162|floats2bfloat162_rn|bfloat162float|"
         r"float2bfloat16\w{0,4})\" is undefined|conversion (?:function )?from \"(?:const )?__nv_bfloat162?\" to "
         r"\"(?:const )?(?:__half2?|float2?)\"", _bf16_intrinsics_missing),
)


_DTYPE_WORD = r"(?:fp8\w{0,8}|float8\w{0,12}|e4m3fn\w{0,4}|bf16|bfloat16)"
_GPU = re.compile(rf"\b(?:{_BEFORE_AMPERE}|{_AMPERE})", re.IGNORECASE)

SAID: tuple[Rule, ...] = (rule(rf"\b{_DTYPE_WORD}\b", _lacking),)
"""fp8 or bf16 said beside a GPU that lacks it, tried only when no rule recognised any line."""
