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

from castwise.explainer.advice import CPU_HALF_IN_NEWER_TORCH, a, dtype_list, keep_rule
from castwise.explainer.clues import (
    CLASS_INDEX_LOSS,
    FLOAT32_SAID,
    cpu_said,
    first_shown,
    held_dtypes,
    input_dtype,
    low_precision_said,
    paste_search,
)
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families import fp8, integers
from castwise.explainer.rules import Rule, dtype_read, dtypes, explained, message_only, rule, word_before
from castwise.explainer.spelling import (
    device_of,
    full_name,
    is_complex,
    is_floating,
    is_fp8,
    is_low_precision,
    is_quantized,
    short_dtype,
    short_dtypes,
)

_BY_DESIGN = (
    (re.compile(r"(?<![a-z])(?:g?e?svd|eigh?|eigvalsh?|qr|geqrf|lu|cholesky|inv|inverse|solve|lstsq|(?:slog|log)?det|"
                r"pinv|linalg|orgqr|triangular)(?![a-z])", re.I),
     "linear algebra has no 16-bit kernels by design (LAPACK, cuSOLVER and MAGMA work in fp32/fp64)"),
    (re.compile(r"fft|stft", re.I), "FFTs have no bf16 kernels, and fp16 only on CUDA for power-of-two sizes"),
    (re.compile(r"ctc", re.I), "CTC loss has no 16-bit kernels"),
)


_CPU_KERNELS = ("LayerNormKernelImpl", "baddbmm_with_gemm", "unfolded2d_copy", "unfolded2d_acc")
"""Kernels whose names do not say CPU but whose 16-bit gaps were on the CPU (CUDA had them; ``unfolded2d_*`` is the
im2col of the CPU's slow convolution); so do the CPU kernels named ``..._kernel_impl``
(``log_softmax_lastdim_kernel_impl``)."""


def _device(op: str) -> str | None:
    if op in _CPU_KERNELS or op.endswith("_kernel_impl"):
        return "cpu"
    lowered = op.lower()
    if "cuda" in lowered or "cudnn" in lowered or "cufft" in lowered:
        return "cuda"
    if lowered.endswith(("_xpu", "_mps")):
        return lowered[-3:]
    return "cpu" if "cpu" in lowered or "mkl" in lowered else device_of(op)


def _upcast(op: str) -> str:
    return f"upcast to float32 around the op (`{op}(x.float())`, then `.to(x.dtype)` on the result)"


def no_kernel(
    failure: Failure, op: str, names: tuple[str, ...], device: str | None, confidence: Confidence = Confidence.HIGH,
) -> Explanation:
    """``op`` has no kernel for the 16-bit dtype ``names[0]`` on ``device``."""
    dtype = names[0] if names else "this dtype"
    on = f" on {device if device == 'cuda' else device.upper()}" if device else ""
    shown = f"`{op}`" if op.strip("_ ") else "an op (or a library's kernel)"
    caller = _torch_function_calling(failure, op)
    shown += f" (inside `{caller}`)" if caller else ""
    reason = next((text for pattern, text in _BY_DESIGN if pattern.search(op)), "")
    if not reason and device == "cpu" and dtype == "f16":
        return explained(
            Kind.NO_KERNEL, failure,
            f"{shown} has no fp16 kernel on the CPU in this torch: an fp16 model is running on the CPU",
            "a model converted to fp16 (`.half()`, `torch_dtype=torch.float16`) that is not on a GPU: no "
            "`.cuda()`/`device_map`, no GPU visible, or a CPU-only torch install (`torch.cuda.is_available()` is "
            "False)",
            f"run it on the GPU (`model.cuda()`; install a CUDA build of torch if `torch.cuda.is_available()` is "
            f"False), or use fp32 (float32: `model.float()`, `torch_dtype=torch.float32`) or bf16 "
            f"(`torch.bfloat16`) on the CPU; {CPU_HALF_IN_NEWER_TORCH}",
            op=op, names=names, device=device, confidence=confidence,
        )
    return explained(
        Kind.NO_KERNEL, failure,
        (f"{shown} has no {dtype} kernel{on}" if names else f"{shown} has no kernel{on} for the dtype it got")
        + (f": {reason}" if reason else ""),
        (f"{a(dtype)} tensor" if names else "a tensor of a dtype it lacks") + " reaching an op that only runs in "
        "higher precision"
        + ("" if reason else " (an op torch or an extension never implemented for it)"),
        f"{_upcast(op.split('_')[0] if reason else 'op')}; or {keep_rule('the module that calls it')}; "
        f"or use another dtype for it ({_OTHER_SIXTEEN_BIT.get(dtype, _OTHER_SIXTEEN_BIT['f16'])}; fp32 where nothing "
        "else has a kernel)"
        + ("" if reason else "; or update torch: each release adds 16-bit kernels"),
        op=op or None, names=names, device=device, confidence=confidence,
    )


_OTHER_SIXTEEN_BIT = {
    "f16": "bf16, bfloat16, instead of fp16 on the CPU",
    "bf16": "fp16, float16, instead of bf16 on a GPU without bf16 (before Ampere: T4, V100, RTX 20xx)",
}
"""The other 16-bit dtype to try where one has no kernel."""


_FUNCTIONAL = (("/torch/nn/functional.py", "F."), ("/torch/functional.py", "torch."))
"""torch's Python modules whose functions call kernels of other names, with the prefix users call them by."""


def _torch_function_calling(failure: Failure, op: str) -> str | None:
    """The torch function the traceback shows calling the kernel ``op`` when it has another name (``F.affine_grid``
    calling ``linspace_cuda``), so the cause names what the user called."""
    for frame in reversed(failure.frames):
        file = frame.file.replace("\\", "/")
        prefix = next((prefix for module, prefix in _FUNCTIONAL if file.endswith(module)), None)
        if prefix and frame.function.isidentifier() and frame.function not in op:
            return f"{prefix}{frame.function}"
    return None


def _typed_data(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Old torch's ``data() cast to unexpected type`` (a kernel reading a tensor as another type, most often a 16-bit
    tensor in an op with no kernel for it), when the paste names a 16-bit dtype."""
    del found
    names = low_precision_said(failure)
    return no_kernel(failure, "", names[:1], None, Confidence.LOW) if names else None


_BAREBONES_UNSIGNED = ("uint16", "uint32", "uint64")
"""Unsigned dtypes torch stores and converts but implements almost no ops for."""


def _barebones_unsigned(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    """An op given uint16/uint32/uint64, which torch keeps for storage and interop only."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` has no {names[0]} kernel: torch implements almost no ops for uint16, uint32 and uint64, which it "
        "keeps for storage and interop",
        f"image or sensor data read as {names[0]} (16-bit PNG or TIFF, DICOM, microscopy, satellite bands, depth "
        "maps, `torch.from_numpy` of a `>u2`/`uint16` array) used in math as it is",
        "convert it first: `x.to(torch.int32)` (exact for uint16, and bit operations work on it) or `x.float()` for "
        "math; keep the unsigned dtype only for storage",
        op=op, names=names,
    )


def _not_implemented(found: re.Match[str], failure: Failure) -> Explanation | None:
    op, names = found["op"], dtypes(found, "dtype")
    if names and names[0] in _BAREBONES_UNSIGNED and not (_RESIZE.search(op) or _PATCHES.search(op)):
        return _barebones_unsigned(failure, op, names)
    if names and is_fp8(names[0]):
        return fp8.storage(failure, op, names, _device(op))
    integer_only = integers.integer_only_op(failure, op, names)
    if integer_only is not None:
        return integer_only
    if names and not is_low_precision(names[0]):
        return _wrong_kind_of_dtype(failure, op, names)
    if names and _BIT_OP.search(op):
        return _bit_op_in_sixteen_bit(failure, op, names)
    names = _every_dtype_of(op, failure, found.re) or names
    return no_kernel(failure, op, names, _device(op) or ("cpu" if cpu_said(failure) else None))


def _bit_op_in_sixteen_bit(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    """A bit operation (``"rshift_cpu" not implemented for 'Half'``) given a 16-bit tensor: packed integer data (shifts
    unpack it) or a mask or multi-hot labels (``&``, ``|``, ``^`` combine them) that were converted to floats."""
    packed = ("packed quantized weights (4-bit weights packed in int32/uint8, GPTQ/AWQ `qweight`, `qzeros`) converted "
              "to 16-bit with everything else: a checkpoint or model converted as a whole (`model.half()`, "
              "`torch_dtype=...` applied to quantized buffers)")
    masks = ("a bool mask or multi-hot labels converted to 16-bit with everything else (`batch.to(dtype)`, a `-true` "
             "precision, a buffer under `model.half()`)")
    shifting = "shift" in op
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` has no {names[0]} kernel: bit operations (`&`, `|`, `<<`, `>>`) run on integers and bool, so "
        f"{a(names[0])} tensor here is integer data that was converted to floats",
        f"{packed}; or {masks}" if shifting else f"{masks}; or {packed}",
        "keep masks and labels bool (`mask.bool()`) and packed weights integer: cast only floating tensors "
        "(`t.to(dtype) if t.is_floating_point() else t`); if a library converted them, update it or load the "
        "quantized model the way it documents",
        op=op, names=names,
    )


def _every_dtype_of(op: str, failure: Failure, pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The 16-bit dtypes the error line and the title say ``op`` has no kernel for (``"angle_xpu" not implemented for
    'BFloat16' / ... for 'Half'``), in order, each once; the rest of a long log is not rescanned for each error."""
    said = (dtypes(other, "dtype") for line in (failure.message, *failure.paste[:1])
            for other in pattern.finditer(line) if other["op"] == op)
    return tuple(dict.fromkeys(name for names in said for name in names if is_low_precision(name)))


def _wrong_kind_of_dtype(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    """A kernel missing for an integer or full-precision dtype: the tensor has the wrong kind of dtype."""
    classification = "nll_loss" in op or first_shown(failure, CLASS_INDEX_LOSS) is not None
    if is_complex(names[0]) and ("softmax" in op or classification):
        return explained(
            Kind.NO_KERNEL, failure,
            f"`{op}` has no {names[0]} kernel: softmax and classification losses are defined on real scores, and "
            "got complex ones",
            "the output of a complex-valued network (complex layers, an FFT) given to softmax or cross_entropy as is",
            "turn the complex output into real scores first: its magnitude (`z.abs()`), its real part (`z.real`), or "
            "the real and imaginary parts side by side (`torch.view_as_real(z).flatten(-2)`) into a real layer",
            op=op, names=names,
        )
    if "softmax" in op:
        return integers.integer_operand(failure, names, op)
    if classification:
        return integers.target(failure, names, wants_float=False, op="nll_loss/cross_entropy")
    if _BIT_OP.search(op):
        return explained(
            Kind.MASK, failure,
            f"`{op}` (`&`, `|`, `^`, `~`, shifts) got {a(names[0])} tensor; bit operations need bool masks or integers",
            "a mask built as floats (`(x > 0).float()`, an attention mask of 0.0/1.0) combined with `&`/`|`; or "
            "integer data left floating (grid coordinates after `floor()` hashed with `^`, ids or codes packed with "
            "shifts)",
            "keep masks bool (`mask.bool()`, or build them with comparisons) before combining them, and integer data "
            "integer (`coords.floor().long()` before hashing or shifting)",
            op=op, names=names,
        )
    if is_floating(names[0]) or is_complex(names[0]):
        return no_kernel(failure, op, names, _device(op))
    if names[0] == "uint8" and _RESIZE.search(op) and _device(op) in ("xpu", "mps"):
        return no_kernel(failure, op, names, _device(op), Confidence.LOW)
    bare = op.lstrip("_")
    moves = bool(_DATA_OP.match(bare))
    if moves or (names[0] == "bool" and _BOOL_FRIENDLY.match(bare)):
        return _data_op_lacks(failure, op, names, moves)
    if names[0] == "bool" and _ADD_OR_SUB.match(bare):
        return integers.bool_arithmetic(failure)
    if _SAMPLER.match(bare):
        return _integer_rates(failure, op, names)
    if _RANDOM_FILL.search(op):
        return _random_integers(failure, op, names)
    return integers.integer_operand(failure, names, op)


_BIT_OP = re.compile(r"bitwise|logical|[lr]shift")
"""Bit operations: they take bool or integer tensors, so a floating one is integer data converted to floats."""

_DATA_OP = re.compile(r"(?:roll|flip|rot90|linspace|logspace|arange|range|cat|stack|nonzero|eye|tril|triu|repeat|"
                      r"index_select|masked_select|constant_pad|reflection_pad\w{0,3}|replication_pad\w{0,3}|fill|"
                      r"zeros|ones|full|coalesce|to_dense|to_sparse\w{0,4}|unique\w{0,12})(?:_|$)")
"""Ops that move, select or make data without arithmetic: an integer or bool dtype is theirs to take."""

_BOOL_FRIENDLY = re.compile(r"(?:sum|prod|cumsum|cumprod|argmax|argmin|max|min|where|abs|sign|neg|clamp|any|all|"
                            r"count_nonzero|median|nanmedian|mode|kthvalue)(?!_pool)(?:_|$)")
"""Ops that take bool tensors as data (counting, selecting, comparing): a bool kernel missing there is a gap in that
torch, not float math on a mask."""

_ADD_OR_SUB = re.compile(r"(?:th_)?(?:add|sub)(?:_|$)")
"""Old torch's arithmetic kernels (``add_cuda``, ``_th_sub``), matched with the op's leading underscores off."""

_RESIZE = re.compile(r"upsample|interpolate|resize|compute_indices_weights", re.I)
"""Image resizing: on the CPU and CUDA an integer tensor there (uint16 depth maps too) is integer data in float math (a
mask or an image not yet converted), while some other devices' kernels lack uint8 for modes the CPU has."""


_PATCHES = re.compile(r"im2col|col2im|conv")
"""Patch extraction (``F.unfold``, ``F.fold``) and convolution (``slow_conv2d_cpu``): float math on pixels, so integer
data there, uint16 included, is an image not yet converted rather than a dtype torch keeps for storage."""

_SAMPLER = re.compile(r"(?:poisson|binomial|multinomial|dirichlet|standard_gamma|sample_gamma)(?:_|$)")
"""Kernels that draw samples from the rates, counts or probabilities a tensor holds."""

_RANDOM_FILL = re.compile(r"normal|uniform|bernoulli|exponential|geometric|cauchy|random_|randn")
"""Kernels that fill a tensor with random values: what initialises a layer's weights."""


_DISTRIBUTIONS = re.compile(r"[/\\]torch[/\\]distributions[/\\]")


def _data_op_lacks(failure: Failure, op: str, names: tuple[str, ...], moves: bool) -> Explanation:
    """An op that moves, selects or makes data (``roll``, ``linspace``, ``cat``: ``moves``), or takes bool as data
    (``sum``, ``argmax``), with no kernel for that integer or bool dtype in this torch: the dtype is a fair one, the
    kernel is missing."""
    dtype, device = names[0], _device(op)
    use = "moves or makes data without arithmetic" if moves else "takes it as data (counting, selecting, comparing)"
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` has no {dtype} kernel{f' on {device}' if device else ''} in this torch: it {use}, so {dtype} is a "
        "fair dtype for it; the kernel is missing",
        f"{a(dtype)} tensor (a mask, ids, a `dtype=` given to a factory) passed to an op whose {dtype} kernel this "
        "torch version lacks on that device",
        "update torch (later releases add these kernels); meanwhile convert around the op: "
        "`op(mask.to(torch.uint8)).bool()` for bool, `op(x.float()).long()` for integers, or make a factory's result "
        "in a floating dtype and cast it (`torch.linspace(...).long()`)",
        op=op, names=names, device=device,
    )


def _integer_rates(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    """A sampler (``"poisson_cpu" not implemented for 'Long'``) given integer rates or counts: it has no kernel for
    them, its parameters are floats."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` draws samples from the rates or probabilities a tensor holds and has no kernel for {a(names[0])} "
        "one: its parameters must be floating",
        "rates, counts or probabilities made as integers (`torch.full((d,), 100)`, `torch.tensor([3, 5])`, counts "
        "from `bincount`)",
        "give it floats (`torch.poisson(rates.float())`) and convert the samples back if you need integers "
        "(`.long()`)",
        op=op, names=names,
    )


def _random_integers(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    """A random fill (``normal_``, ``uniform_``) of an integer tensor: weights initialised after being made integer, or
    a torch.distributions object built from integer tensors sampling into their dtype."""
    if any(_DISTRIBUTIONS.search(frame.file) for frame in failure.frames):
        return explained(
            Kind.INTEGER_OPERAND, failure,
            f"a torch.distributions object sampled with `{op}` into {a(names[0])} tensor: its parameters are "
            "integer tensors, and a sample takes their dtype",
            "a distribution built from Python ints (`Normal(torch.tensor(0), torch.tensor(1))`, `Uniform(torch.tensor("
            "0), torch.tensor(10))`) or from integer data",
            "build its parameters as floats, in the dtype you compute in: `Normal(torch.tensor(0.0), "
            "torch.tensor(1.0))` (or `torch.zeros(d, dtype=dtype)`, `torch.ones(...)`)",
            op=op, names=names,
        )
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


def _continuous_fill(found: re.Match[str], failure: Failure) -> Explanation:
    """``Exponential distribution is a continuous probability distribution. dtype must be a floating point but you
    specified Long``: a continuous random fill (``exponential_``, ``cauchy_``) of an integer tensor."""
    return _random_integers(failure, f"{found['dist'].lower().replace('-', '_')}_", dtypes(found, "a"))


def _legacy(found: re.Match[str], failure: Failure) -> Explanation:
    """Old torch's ``_th_normal is not implemented for type torch.LongTensor`` (or ``_th_addmm_out not supported on
    CPUType for Half``, which names the device): an integer dtype is read as the newer wording is; bool, which old
    torch's ops often lacked kernels for (``s__th_or ... CUDABoolType``), stays missing."""
    names = dtypes(found, "dtype")
    if names and not is_low_precision(names[0]) and names[0] != "bool":
        return _wrong_kind_of_dtype(failure, found["op"], names)
    backend = (found.groupdict().get("backend") or "").lower()
    return no_kernel(failure, found["op"], names, backend or device_of(found["dtype"]))


def _missing_tensor_type(found: re.Match[str], failure: Failure) -> Explanation:
    """``'module' object has no attribute 'HalfTensor'``: a torch older than that tensor type (early torch had no CPU
    HalfTensor, so `.cpu()` or `torch.save` of a CUDA half tensor failed)."""
    name = found["dtype"] or f"sparse.{found['sparse']}"
    names, dtype = dtype_read(found, "dtype" if found["dtype"] else "sparse")
    return explained(
        Kind.NO_KERNEL, failure,
        f"this torch has no `{name}` type: it predates {dtype} support there (early torch had no CPU HalfTensor and "
        "no sparse half gradients, so moving a CUDA half tensor to the CPU, saving it, or assigning a half gradient "
        "failed)",
        f"a {dtype} tensor moved to the CPU, saved, or built by name with a torch release older than the code expects",
        "update torch; on an old torch, convert to float32 before `.cpu()`/`torch.save` (`x.float()`)",
        op=f"torch.{name}", names=names,
    )


def _op_lacks_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    return no_kernel(failure, found["op"], dtypes(found, "dtype"), None)


def _pair_lacks(found: re.Match[str], failure: Failure) -> Explanation:
    """A GEMM with no kernel for one input and output dtype pair (``bgemm input type at::Half and output type float
    is not supported for ROCm``, vLLM's LoRA kernels' ``No suitable kernel. ... dtype=Float out_dtype=Half``)."""
    names = dtypes(found, "dtype", "out")
    pair = " and ".join(f"{role} {name}" for role, name in zip(("input", "output"), names, strict=False))
    on_gpu = re.search(r"\b(?:ROCm|CUDA|HIP)\b", found.string)
    named = found.groupdict().get("op")
    op = named or "a library"
    return explained(
        Kind.NO_KERNEL, failure,
        f"{f'`{named}`' if named else op} has no kernel for {pair or 'this input and output dtype pair'}"
        f"{' on this GPU' if on_gpu else ''}: it computes in the inputs' dtype and was asked for another output dtype",
        "a matmul asked for an output in another dtype than its inputs (`out_dtype=`, a compiled or autotuned GEMM "
        "choosing a float32 output for 16-bit inputs)",
        "let the output take the inputs' dtype and cast after (`(a @ b).float()`), or update torch (newer releases add "
        "such pairs, on ROCm too)",
        op=op, names=names, device="cuda" if on_gpu else None,
    )


_autocast_device = message_only(
    Kind.NO_KERNEL,
    "autocast in this torch runs only on the devices it names ('cuda' or 'cpu'), and the model runs on another one "
    "(DirectML's privateuseone, an XPU or MPS build without autocast)",
    "`torch.autocast(device_type=...)` (or a framework's mixed precision) used with a device autocast does not cover",
    "convert explicitly instead: the model and its floating inputs to one dtype (`model.half()`, "
    "`x.to(torch.float16)`) or run in float32; or update torch and the device's plugin to one whose autocast covers "
    "the device (MPS: torch 2.5 or newer)",
    op="torch.autocast",
)

_autocast_unregistered_op = message_only(
    Kind.NO_KERNEL,
    "an op has no autocast kernel in this torch: early autocast (torch 1.6) dispatched every op through its "
    "Autocast key, and ops of extensions built without it (torchvision's RoIAlign and NMS before 0.7) failed there",
    "an old torchvision or C++ extension run under `torch.cuda.amp.autocast` (a detection model's RoI ops)",
    "update torch and torchvision together (their autocast registrations came with torchvision 0.7 and later), or "
    "run that call outside autocast on fp32 inputs (`with torch.autocast('cuda', enabled=False):`)",
    op="torch.autocast (an extension's op)",
)


def _autocast_without_kernel(found: re.Match[str], failure: Failure) -> Explanation:
    """``could not find kernel for HigherOrderOperator triton_kernel_wrapper_mutation at dispatch key
    DispatchKey.AutocastXPU``: an op (a user Triton kernel's wrapper, a custom op) with no autocast rule on that
    device."""
    device = found["device"].lower()
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{found['op']}` has no autocast kernel for {device}: torch's autocast on that device does not know how to "
        "cast its inputs",
        f"a custom or Triton-wrapped op (often under torch.compile) called inside `torch.autocast('{device}')`, on a "
        "torch whose autocast registrations for that device lack it",
        f"call the op outside autocast with inputs cast by hand (`with torch.autocast('{device}', enabled=False): "
        "op(x.to(dtype))`), register an autocast rule for your custom op (`torch.library.register_autocast`), or "
        "update torch",
        op=found["op"], device=device, confidence=Confidence.LOW,
    )


def _legacy_backend_lacks(found: re.Match[str], failure: Failure) -> Explanation | None:
    """torch 0.x's per-type backends missing a tensor type (``Type HalfTensor doesn't implement stateless methods``,
    THNN's ``KeyError: <class 'torch.cuda.DoubleTensor'>``): that torch has no such kernel; later ones do."""
    if found["a2"] and failure.error_type != "KeyError":
        return None
    names = dtypes(found, "a", "a2")
    device = device_of(found["a"] or found["a2"])
    return explained(
        Kind.NO_KERNEL, failure,
        f"this old torch (0.x) has no {names[0] if names else 'such'} kernel"
        f"{f' on {device}' if device else ''} for the op: its per-type backends lacked that tensor type",
        f"{a(names[0]) if names else 'a'} tensor (`.half()`, `.double()`, or data loaded that way) reaching an op "
        "torch 0.x only implemented for float32",
        "update torch (every current release has these kernels); on that torch, convert the tensor or model to "
        "float32 (`x.float()`, `model.float()`)",
        op="", names=names, device=device,
    )


def _kernel_line_cut(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``"LayerNormKernelImpl" not imple`` cut before its dtype: a missing kernel for the 16-bit dtype the paste names,
    declined when it names none."""
    names = low_precision_said(failure)[:1]
    return no_kernel(failure, found["op"], names, _device(found["op"]), Confidence.LOW) if names else None


def _sparse_compressed_cast(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``copy_sparse_csr_: only tensors with the same number of specified elements are supported``, or
    ``"empty_sparse_compressed" expected sparse compressed (non-block) tensor layout but got SparseBsr``, where the
    paste converts a dtype: this torch's ``.to(dtype)`` on a sparse CSR (BSR, BSC) tensor fails."""
    if not paste_search(failure, _DTYPE_CONVERSION):
        return None
    layout = (found.groupdict().get("layout") or "Csr").upper()
    indices = "t.ccol_indices(), t.row_indices()" if layout == "BSC" else "t.crow_indices(), t.col_indices()"
    return explained(
        Kind.NO_KERNEL, failure,
        f"this torch cannot change a sparse {layout} tensor's dtype with `.to(dtype)`"
        + (": it copies into an empty CSR tensor, and that copy needs both to hold the same number of elements"
           if layout == "CSR" else ": its conversion makes an empty tensor of a layout without blocks"),
        f"`.to(dtype=...)`, `.float()` or `.half()` on a sparse {layout} tensor (or a module holding one)",
        f"update torch; meanwhile rebuild it with the new dtype: `torch.sparse_{layout.lower()}_tensor({indices}, "
        "t.values().to(dtype), t.shape)`",
        op=f"Tensor.to (sparse {layout})", names=low_precision_said(failure)[:1],
    )


_cusparselt_dtype = message_only(
    Kind.NO_KERNEL,
    "cuSPARSELt (the library behind 2:4 semi-structured sparse matmuls) does not support these inputs' dtype on this "
    "GPU with this version: its float32 support comes and goes between releases, while fp16, bf16 and int8 are its "
    "main types",
    "a semi-structured sparse matmul (`to_sparse_semi_structured`, `torch._cslt_sparse_mm`) on float32 tensors, or on "
    "a dtype the installed cuSPARSELt does not take on this GPU",
    "run the sparse matmul in float16 or bfloat16 (`x.half()`, `weight.half()` before making it sparse), or update "
    "torch (and with it cuSPARSELt)",
    op="cuSPARSELt", device="cuda", confidence=Confidence.LOW,
)


_DTYPE_CONVERSION = re.compile(r"\.to\([^\n)]{0,60}(?:dtype|torch\.(?:half|float\d{0,2}|bfloat16|double))|"
                               r"\.(?:float|half|double|bfloat16)\(\)")


_vmapped_dtype_view = message_only(
    Kind.NO_KERNEL,
    "vmap (functorch, torch.func) has no batching rule for `Tensor.view(dtype)`: reinterpreting a tensor's bits as "
    "another dtype is not supported inside a vmapped function",
    "a function run under `torch.vmap` / `torch.func` (per-sample gradients, ensembles) that calls `x.view(torch."
    "int16)` or another dtype view, often in a quantization or bit-packing helper",
    "do the dtype view outside the vmapped function, or replace it with a conversion (`x.to(dtype)`) if the values, "
    "not the bits, are meant",
    op="Tensor.view(dtype) under vmap", confidence=Confidence.LOW,
)


_vmapped_complex_view = message_only(
    Kind.NO_KERNEL,
    "this torch's vmap has no batching rule for a complex view (`torch.real`, `imag`, `view_as_real`): those ops "
    "return views of a complex tensor, which the fallback cannot batch",
    "a function of complex tensors (FFT features, complex-valued layers) run under `torch.vmap` in an older torch",
    "update torch (later releases batch these views), or take the part outside the vmapped function, or compute it "
    "without a view (`torch.view_as_real(z).select(-1, 0).clone()`, `(z + z.conj()).real / 2`)",
    op="complex views under vmap", confidence=Confidence.LOW,
)


_autocast_met_another_dtype = message_only(
    Kind.NO_KERNEL,
    "this torch's autocast only knows fp32 and fp16 inputs, and an op under it got another floating dtype (bf16, or "
    "float64): older autocast has no rule for it",
    "a bf16 model or tensor (`dtype = torch.bfloat16` in a training script) run under fp16 autocast, or inside "
    "`torch.cuda.amp.autocast()` on a torch older than bf16 autocast (1.10)",
    "update torch (autocast has taken bf16 since 1.10: `torch.autocast('cuda', dtype=torch.bfloat16)`), or give "
    "autocast the model's dtype, or run the model in fp32 under autocast instead of converting it to bf16",
    op="torch.autocast",
)

_binary_lacks_bf16 = message_only(
    Kind.NO_KERNEL,
    "a compiled library refers to a bf16 function its binary does not have: it was built without that bf16 kernel, "
    "or for another torch, CUDA or ROCm version",
    "a prebuilt extension (bitsandbytes, flash-attn, a custom op) whose build does not match this torch and GPU "
    "platform",
    "install the build made for your torch and CUDA/ROCm version (or build it from source for your GPU), or run "
    "without bf16 in that library",
    op="a compiled extension", names=("bf16",), confidence=Confidence.LOW,
)


def _wide_unsigned_promotion(found: re.Match[str], failure: Failure) -> Explanation:
    """torch refusing to promote uint16/32/64 with another dtype: they are storage dtypes with few kernels."""
    names = dtypes(found, "a", "b")
    wide = next((name for name in names if name in ("uint16", "uint32", "uint64")), "uint16")
    return explained(
        Kind.NO_KERNEL, failure,
        f"torch has no type promotion for {wide} (uint16/32/64 are storage dtypes with few kernels), so an op mixing "
        f"it with {dtype_list(tuple(name for name in names if name != wide)) or 'another dtype'} is refused",
        f"data kept in {wide} to save space (token ids from a numpy memmap shard, 16-bit image or sensor data) meeting "
        "a tensor of another dtype",
        f"convert the {wide} tensor when it is loaded: `.long()` for ids and indices, `.int()` for other integer "
        "values (`torch.from_numpy(shard[i:j].astype(np.int64))`)",
        op="type promotion", names=names,
    )


def _library_lacks(found: re.Match[str], failure: Failure) -> Explanation:
    """A library's own check refusing a 16-bit dtype (``RuntimeError: un-supported dtype: bfloat16``): its kernel was
    built without it."""
    return no_kernel(failure, "", dtypes(found, "dtype"), None)


def _fft(found: re.Match[str], failure: Failure) -> Explanation:
    """An FFT backend without a kernel for a dtype: the one it names, f16 for cuFFT's half-precision messages, none
    when MKL's message is cut before its dtype."""
    names = dtypes(found, "dtype") if found.groupdict().get("dtype") else () if "MKL" in found.group(0) else ("f16",)
    return no_kernel(failure, "fft", names, "cuda" if "cuFFT" in found.group(0) else "cpu")


def _audio_writer(found: re.Match[str], failure: Failure) -> Explanation:
    """torchaudio's writer refusing a dtype it has no sample format for (``No format found for dtype
    torch.bfloat16``)."""
    names = dtypes(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"torchaudio's audio writer has no sample format for {names[0] if names else 'this dtype'}: it writes uint8, "
        "int16, int32, int64, float32 or float64 samples",
        "a waveform saved straight from a 16-bit model (bf16/fp16 output of a TTS model or vocoder)",
        "convert before saving: `torchaudio.save(path, wav.float().cpu(), sample_rate)`",
        op="torchaudio.save", names=names,
    )


def _only_low_precision(found: re.Match[str], failure: Failure) -> Explanation:
    flash = "flash" in failure.message.lower() or "q_dtype" in failure.message
    passed = ("f32",) if FLOAT32_SAID.search(failure.message) else ()
    return _sixteen_bit_only(failure, found.groupdict().get("op") or _kernel_named(failure, flash), passed)


def _only_one_dtype(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A kernel's or optimizer's own check that it takes one 16-bit dtype only (``AssertionError: only bfloat 16 is
    supported.`` from ``assert p.dtype == torch.bfloat16``): it got a tensor in another dtype; declined in prose (no
    exception type), where the words report a library's limit rather than this failure."""
    dtype = short_dtype(found["dtype"].replace(" ", ""))
    if dtype is None or not failure.error_type:
        return None
    return _one_dtype_only(failure, dtype)


def _asserted_one_dtype(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A kernel's own ``assert qkv.dtype == torch.float16`` shown failing (an early FlashAttention wrapper): it takes
    that 16-bit dtype only."""
    dtype = short_dtype(found["dtype"])
    return None if dtype is None else _one_dtype_only(failure, dtype)


def _one_dtype_only(failure: Failure, dtype: str) -> Explanation:
    """A kernel or optimizer that takes ``dtype`` tensors only got another dtype."""
    optimizer = paste_search(failure, _OPTIMIZER_STEP) is not None
    holder = "an optimizer" if optimizer else "a kernel or library function"
    return explained(
        Kind.NO_KERNEL, failure,
        f"{holder} that takes {dtype} tensors only (its own assertion) got a tensor in another dtype",
        "parameters kept in fp32 (a mixed-precision setup, master weights, a layer left out of the conversion) handed "
        f"to an optimizer written for pure {dtype}" if optimizer else f"inputs or weights not converted to {dtype} "
        "before the call",
        f"convert the model to {dtype} before creating the optimizer (`model.to(torch.{full_name(dtype)})`), or, to "
        "keep fp32 master weights, use an optimizer that takes them (`torch.optim.AdamW`)" if optimizer else
        f"convert what reaches it to {dtype} (`x.to(torch.{full_name(dtype)})`), or use a path that takes your dtype",
        op="optimizer.step" if optimizer else "", names=(dtype,), confidence=Confidence.LOW,
    )


_OPTIMIZER_STEP = re.compile(r"\boptimi[sz]er\b|\.step\(|\bAdamW?\b", re.IGNORECASE)
"""An optimizer named in the paste (its ``step`` in the traceback)."""


def _flash_attention_2(found: re.Match[str], failure: Failure) -> Explanation | None:
    """transformers' ``Flash Attention 2.0 only supports torch.float16 and torch.bfloat16``; declined for its logged
    form (``but the current dype in X is``), which loading prints before the model is cast, when the report's title
    says the run went NaN: then the title's failure is the report's."""
    if _CURRENT_DTYPE.search(failure.message) and failure.line > 0 and _NAN_WORD.search(failure.paste[0]):
        return None
    return _only_low_precision(found, failure)


_CURRENT_DTYPE = re.compile(r"\bbut the current dt?ype in\b")
_NAN_WORD = re.compile(r"(?<![\w.])nans?(?![\w(])", re.IGNORECASE)
_FLASH = re.compile(r"flash", re.IGNORECASE)
_SAGE = re.compile(r"\bsage_?attn|\bSageAttention\b", re.IGNORECASE)


def _kernel_named(failure: Failure, flash: bool) -> str:
    """FlashAttention when ``flash`` is true, else SageAttention when the paste names it, else "this kernel"."""
    if flash:
        return "FlashAttention"
    return "SageAttention" if paste_search(failure, _SAGE) else "this kernel"


def _asserted_sixteen_bit(found: re.Match[str], failure: Failure) -> Explanation:
    """A kernel's own ``assert qkv.dtype in [torch.float16, torch.bfloat16]`` (FlashAttention's Python wrapper), with
    float32 named when the paste says that is what the tensor was."""
    del found
    op = _kernel_named(failure, bool(paste_search(failure, _FLASH)))
    return _sixteen_bit_only(failure, op, ("f32",) if paste_search(failure, FLOAT32_SAID) else ())


def _sixteen_bit_only(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    return explained(
        Kind.NO_KERNEL, failure,
        f"{op} runs only in fp16 and bf16 and got tensors in another dtype "
        f"({names[0] if names else 'almost always fp32'})",
        "a model loaded in fp32 (transformers' default without `torch_dtype`) or trained without 16-bit mixed "
        "precision, so the op's inputs (attention's q, k and v) reach the kernel in fp32; or a norm or an upcast "
        "right before it that returns fp32",
        "load the model in bf16/fp16 (`torch_dtype=torch.bfloat16`, or `'auto'`) or train with bf16/fp16 mixed "
        "precision (`bf16=True`, 'bf16-mixed'); or cast the op's inputs to bf16 just before the call; to stay in "
        "fp32, use another implementation (for attention, `attn_implementation='sdpa'`)",
        op=op, names=names,
    )


def _allowlist(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A library's input check that lists the dtypes it accepts and names the one it got (``Expected input of
    [torch.float16, torch.float32, torch.float64]. Got torch.bfloat16``; vLLM's ``torch.bfloat16 is not supported for
    quantization method awq. Supported dtypes: [torch.float16]``): a 16-bit dtype left off its list."""
    said = found["dtype"] or word_before(found)
    names, listed = tuple(filter(None, [short_dtype(said)])), found["listed"] or found["listed2"]
    accepted = {name for name in map(short_dtype, re.split(r"[\s,'\"]+", listed)) if name}
    if not names or not is_low_precision(names[0]) or names[0] in accepted:
        return None
    return explained(
        Kind.NO_KERNEL, failure,
        f"a library's input check accepts only {listed.strip()} and got {names[0]}: {names[0]} is not on its list",
        f"a {names[0]} tensor (a model or an input run in {names[0]}) handed to a library function whose dtype check "
        "was written before it supported that dtype",
        "use a listed dtype: for one call cast the input (`x.float()`) and the result back; for a whole model load it "
        f"in one (`torch_dtype=torch.float16`, vLLM's `--dtype half`); or update the library (a newer version may "
        f"accept {names[0]})",
        op="a library's dtype check", names=names, confidence=Confidence.LOW,
    )


def _triton_listed(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Triton's ``Expected dtype ['fp32', 'fp64'] but got bf16`` (a libdevice function with no 16-bit version)."""
    names = dtypes(found, "dtype")
    if not names or not is_low_precision(names[0]):
        return None
    return no_kernel(failure, "a Triton kernel's math function", names, None)


def higher_only(failure: Failure, names: tuple[str, ...], op: str) -> Explanation:
    """A kernel (``op``) written for ``names[0]`` only (fp32 most often) that got a 16-bit tensor (``names[1]``, when
    named): a custom or extension op without 16-bit kernels."""
    dtype, given = names[0], (names[1] if len(names) > 1 else "a tensor of another dtype (16-bit most often)")
    return explained(
        Kind.NO_KERNEL, failure,
        f"{op} runs only in {dtype} and got {given}",
        f"a 16-bit tensor (a `.half()`/bf16 model's activation, an autocast region) reaching a kernel written for "
        f"{dtype} only (a custom CUDA/C++ op, an extension's kernel)",
        f"{_upcast('op')}; or {keep_rule('the module that calls it')}; update the extension if a version with "
        "16-bit kernels exists",
        op=op, names=names, confidence=Confidence.LOW,
    )


def _custom_float32(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A custom op's own check that an argument is float32 (``f must be float32``) in a paste that runs in 16-bit, or
    raised as an error (``ValueError: logits must be of type float32``), not said in prose."""
    names = low_precision_said(failure)
    if not names and not (failure.error_type or _RAISED.search(failure.message[:found.start()])):
        return None
    return higher_only(failure, (*dtypes(found, "dtype"), *names[:1]),
                       f"a custom op (its '{word_before(found)}' check)")


_RAISED = re.compile(r"\w(?:Error|Exception):")
"""An exception's name before a message inside a line (a title's ``... Fails with ValueError: ...``)."""


def _built_without(found: re.Match[str], failure: Failure) -> Explanation:
    """``turbomind has not been built with fp32 support``: a library's build leaves out the kernels of a dtype."""
    names, dtype = dtype_read(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"the installed build of this library has no {dtype} kernels: it was compiled without them",
        f"a model run in {dtype} (its config's `torch_dtype`, or a `dtype=` option) on a build that left {dtype} out",
        f"run in a dtype the build has (fp16 or bf16 for an inference engine), or install or build a version with "
        f"{dtype} support; another backend of the library may take {dtype}",
        op=f"{dtype} kernels", names=names, confidence=Confidence.LOW,
    )


def _float32_type_check(found: re.Match[str], failure: Failure) -> Explanation:
    """A library op's own check naming what it got (``input should be in float32 type, got torch.float16``)."""
    return higher_only(failure, dtypes(found, "dtype", "got"), f"a library op (its '{found['name']}' check)")


def _quantized_only(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """A quantized GEMM's check that its input is int8 (or fp8): the kernel chosen for this GPU is not the one the
    checkpoint's quantization was written for."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"a quantized matmul kernel written for {names[0]} inputs got another dtype: the library chose a kernel for "
        "this GPU that does not match the checkpoint's quantization (an fp8 checkpoint sent down an int8 path, or the "
        "reverse)",
        "a quantized checkpoint (fp8, int8 w8a8) served on a GPU the library's kernels do not cover yet (a new "
        "architecture such as Blackwell, or an older one without fp8)",
        "update the library (a newer release adds kernels for new GPUs), or use a checkpoint quantized for what this "
        "GPU runs (bf16/fp16 weights, or int8 where fp8 has no kernel)",
        op="a quantized matmul kernel", names=names, confidence=Confidence.LOW,
    )


def _only_in(found: re.Match[str], failure: Failure) -> Explanation:
    """A kernel's own check that its input has one dtype (``Expected A.dtype() == at::kBFloat16``; the pattern admits
    only dtypes torch's spellings read): a 16-bit-only kernel got another (fp32 most often); a float32-only one got a
    16-bit tensor."""
    names = dtypes(found, "dtype")
    dtype, torch_name = names[0], full_name(names[0])
    if dtype in ("int32", "int64"):
        return explained(
            Kind.INDEX_TENSOR, failure,
            f"a kernel takes `{found['name']}` only as {dtype} and got another dtype: compiled kernels read index "
            "and offset tensors at one integer width",
            f"sequence ids, offsets or positions made in torch's default int64 (or the reverse) and passed to a kernel "
            f"written for {dtype} (causal-conv1d's `seq_idx`, varlen attention's `cu_seqlens`)",
            f"convert it where it is passed: `{found['name'] or 'x'}.to(torch.{torch_name})`",
            op="a kernel", names=names,
        )
    if dtype == "int8" or is_fp8(dtype):
        return _quantized_only(failure, names)
    if not is_low_precision(dtype):
        return higher_only(failure, names, "a kernel")
    return explained(
        Kind.NO_KERNEL, failure,
        f"this kernel runs only in {dtype} and got a tensor of another dtype (fp32 most often)",
        f"a model, adapter or activation left in fp32 (or converted to the other 16-bit dtype) reaching a kernel "
        f"written for {dtype} only (an int4/fp8 GEMM, a fused attention or quantization kernel)",
        f"cast its input to {dtype} just before the call (`x.to(torch.{torch_name})`), or load the model in {dtype} "
        f"(`torch_dtype=torch.{torch_name}`); update the library if it makes the call",
        op="a kernel", names=names,
    )


def _backend_lacks_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    (names, dtype), device = dtype_read(found, "dtype"), found["device"].lower()
    if dtype == "f64":
        return no_float64(failure, device)
    if dtype == "complex128":
        return explained(
            Kind.NO_KERNEL, failure, f"the {device.upper()} backend has no complex128 (complex double) support",
            f"complex values made in double precision (numpy's default complex128, `torch.from_numpy` of it) moved to "
            f"{device}",
            "convert to complex64 before moving (`x.to(torch.complex64)`, or `np.complex64` in numpy)",
            op=f"complex128 on {device}", names=names, device=device,
        )
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


def _type_undeclared(found: re.Match[str], failure: Failure) -> Explanation:
    """A C++ compiler's ``'bfloat16' was not declared in this scope`` while building generated or extension code: the
    headers or compiler flags the 16-bit type needs are missing."""
    names, dtype = dtype_read(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"the C++ compiler building this code does not know the {dtype} type: the header or compiler flags that "
        "define it are missing from this build",
        f"code generated for a {dtype} model (torch.compile's or AOTInductor's C++ wrapper, a JIT-built extension) "
        "compiled with a compiler or torch headers older than the code expects",
        "update torch and the compiler (a recent gcc/clang), or compile the model in fp32 and cast around it; report "
        "it to the generator's project if both are current",
        op=f"{dtype} in generated C++", names=names, confidence=Confidence.LOW,
    )


def _fp64_on_intel_gpu(found: re.Match[str], failure: Failure) -> Explanation:
    """SYCL's ``invalid_kernel("uses-fp64-math")``: a kernel with double math on an Intel GPU without fp64 (Arc)."""
    del found
    return no_float64(failure, "xpu", Confidence.LOW)


def _library_lacks_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """``Long is not supported in oneDNN``: a backend library torch calls for that op (oneDNN, cuDNN, XNNPACK) has no
    kernel for the dtype."""
    (names, dtype), library = dtype_read(found, "dtype"), found["library"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"{library}, the library torch calls for this op, has no {dtype} kernel",
        f"a {dtype} tensor given to an op torch runs through {library} (a convolution, a matmul, a pooling or a "
        "reorder)",
        f"convert that tensor to a dtype {library} takes (float32, or bf16/fp16 where it has them) before the op; or "
        f"update torch, whose builds add {library} kernels",
        op=library, names=names, confidence=Confidence.LOW,
    )


def _operator_missing_on_device(found: re.Match[str], failure: Failure) -> Explanation:
    """``The operator 'torch_ipex::ipex_woq_linear' is not currently implemented for the XPU device``: a backend (XPU,
    MPS) without that op at all, for the dtype it got or any; the dtype is the one the paste names, if any (low
    confidence: nothing says a dtype is what is missing)."""
    op, device = found["op"], found["device"].upper()
    names = low_precision_said(failure)[:1]
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` has no kernel on {device} in this build: the backend has not implemented that op (for this dtype, or "
        "at all)",
        "a library's custom op (a weight-only-quantized int4/int8 linear, an fp8 or fused kernel) or a newer op run "
        f"on {device}, whose backend (torch's, or its extension's such as IPEX) lacks it",
        f"set `PYTORCH_ENABLE_{device}_FALLBACK=1` to run that op on the CPU (slow); update torch and the backend's "
        f"extension; or use a model format the {device} backend implements (another quantization, or bf16/fp16 "
        "weights)",
        op=op, names=names, device=device.lower(), confidence=Confidence.LOW,
    )


def _asserted_float32(found: re.Match[str], failure: Failure) -> Explanation:
    """A library's ``assert x.dtype == torch.float32`` failing: a function whose C++ or GPU code takes one dtype, given
    the low-precision one the paste names (low confidence when it names none, or when nothing shows the assertion
    failed: the line may be code that passed)."""
    want = short_dtype(found["want"]) or "f32"
    names = low_precision_said(failure)[:1]
    given = names[0] if names else "another dtype"
    return explained(
        Kind.NO_KERNEL, failure,
        f"a library function checks that its input is {want} (`assert {found['var']}.dtype == torch.{found['want']}`) "
        f"and got {given}: its C++/GPU code has no path for that dtype",
        f"{given} tensors (a 16-bit model's embeddings or features) passed straight to a library that computes in "
        f"{want} only (FAISS's torch bridge, a C++ extension)",
        f"convert before the call (`x.to(torch.{found['want']})`) and back after if needed; to keep 16-bit storage, "
        "use the library's own 16-bit format (FAISS: a scalar quantizer such as `SQfp16`)",
        op="a library's dtype assertion", names=(*names, want),
        confidence=Confidence.HIGH if names and "AssertionError" in (failure.error_type, *failure.message.split())
        else Confidence.LOW,
    )


_INTEGER_DTYPE_SAID = re.compile(r"\btorch\.(int64|int32|long|int|int16|uint8|bool)\b")


def _graph_kernel_needs_float(found: re.Match[str], failure: Failure) -> Explanation:
    """DGL's ``Check failed: (out->dtype).code == kDLFloat``: its message-passing kernels (SpMM/SDDMM) compute floating
    features only, and got integer ones (the integer dtype the paste names, if any)."""
    del found
    said = next(filter(None, map(_INTEGER_DTYPE_SAID.search, failure.paste)), None)
    names = tuple(filter(None, [short_dtype(said.group(1))])) if said else ()
    return explained(
        Kind.NO_KERNEL, failure,
        "DGL's message-passing kernel (`update_all`, SpMM/SDDMM) computes floating features only and got integer "
        f"ones{f' ({names[0]})' if names else ''}",
        "node or edge features that are labels or ids (`node_labels`, `edge_labels`, stored as int64) passed to "
        "message functions as features",
        "convert them to floats before message passing (`g.edata['m'] = g.edata['edge_labels'].float()`), or one-hot "
        "encode labels first",
        op="DGL message passing", names=names,
    )


def _imaginary_of_real(found: re.Match[str], failure: Failure) -> Explanation:
    """``imag is not implemented for tensors with non-complex dtypes``: ``.imag`` of a real tensor (an FFT's output
    made real on the way)."""
    op = found["op"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` exists only for complex tensors and got a real one",
        "a tensor expected complex (an FFT's output, complex weights) that is real: converted with `.float()`/"
        "`.to(dtype)` on the way (which drops the imaginary part), or real data passed where the code expects complex",
        "keep the complex tensor complex (cast with a complex dtype: `.to(torch.complex64)`, not `.float()`), or for "
        "real data use `torch.zeros_like(x)` as its imaginary part (`torch.complex(x, torch.zeros_like(x))`)",
        op=f"Tensor.{op}",
    )


def _real_only_on_complex(found: re.Match[str], failure: Failure) -> Explanation:
    """``clamp is not supported for complex types``: an op defined only on real numbers given a complex tensor (a
    spectrum where its magnitude was meant)."""
    op = found["op"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` has no complex version: complex numbers have no order, so it is defined on real tensors only",
        "a complex tensor (an STFT or FFT output) passed where its magnitude, power or real part was meant "
        "(`spec.clamp(min=1e-8)` before `.log()`)",
        "take the real quantity first: `spec.abs()` (magnitude), `spec.abs() ** 2` (power) or `spec.real`, then "
        f"`{op}` it",
        op=op,
    )


def _undefined_half_type(found: re.Match[str], failure: Failure) -> Explanation:
    """nvcc's ``error: identifier "Half" is undefined`` building an extension that added 16-bit dispatch: the kernel's
    source names a 16-bit type that is not in scope."""
    names = ("bf16",) if "bf" in found["type"].lower() else ("f16",)
    return explained(
        Kind.NO_KERNEL, failure,
        f"the extension's CUDA source names `{found['type']}`, which nvcc does not know there: the kernel has no "
        f"{names[0]} version yet, and the one being added does not compile",
        "a kernel given 16-bit dispatch (`AT_DISPATCH_FLOATING_TYPES_AND_HALF`) whose code spells the type by a name "
        "that is not in scope (`Half` without `at::`), or CUDA's `__half`/`__nv_bfloat16` without their headers",
        "write the kernel against `scalar_t` (what the dispatch macro defines) or spell the type in full (`at::Half`, "
        "`at::BFloat16`); for CUDA's own types include `<cuda_fp16.h>` / `<cuda_bf16.h>` (bf16 needs sm_80 or newer)",
        op="a CUDA extension's kernel", names=names,
    )


def _gaudi_node(found: re.Match[str], failure: Failure) -> Explanation:
    """Habana's ``synNodeCreateWithId failed for node: spatial_convolution``: Gaudi's graph compiler has no kernel for
    that node in the dtype it got."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"Gaudi's graph compiler could not create the node `{found['op']}`: the device has no kernel for that op in "
        "the dtype it got",
        "an op left in a dtype the device's matrix engine lacks: on Gaudi2D fp32 convolutions and matmuls (a VAE, "
        "text encoder or norm kept in fp32 beside a bf16 model); elsewhere a 16-bit or integer dtype the op does not "
        "list",
        "run every part of the model in bf16 (`torch_dtype=torch.bfloat16` for each component, the VAE included), or "
        "run that op on the CPU; Habana's support matrix lists each op's dtypes",
        op=found["op"], device="hpu", confidence=Confidence.LOW,
    )


_DTYPE_CALLED = re.compile(r"\btorch\.(?:complex32|float8_\w{1,12}|u?int(?:16|32|64)|bfloat16)\b")
"""A dtype newer than torch's typed storages named in a paste's code (``dtype=torch.complex32``)."""


def _no_storage(found: re.Match[str], failure: Failure) -> Explanation:
    """``couldn't find storage object Float8_e4m3fnStorage`` (pickle's loader), ``unsupported Storage type`` (a
    complex32 tensor's ``.storage()``): torch's legacy typed storages have no class for the dtype."""
    called = paste_search(failure, _DTYPE_CALLED)
    word = found["dtype"] or (called.group(0) if called else "")
    names = short_dtypes((word,)) if word else ()
    dtype = names[0] if names else "this dtype"
    return explained(
        Kind.NO_KERNEL, failure,
        f"torch's legacy typed storages (`torch.*Storage`, what `.storage()` and pickled checkpoints use) have no "
        f"class for {dtype}: the dtype is newer than them",
        f"a checkpoint or model holding {dtype} tensors saved or loaded through the pickle path (a `.bin`/`.pt` "
        "file, `from_pretrained(..., torch_dtype=...)` of such a dtype), or `.storage()` called on such a tensor",
        "load the weights in bf16 or fp16 and quantize after loading (fp8 through a quantization config, not "
        "`torch_dtype`); save and load with safetensors, which has no storage classes; use `untyped_storage()` in "
        "place of `.storage()`; update torch (and the loading library) when the tensor must stay in that dtype",
        op="torch.storage", names=names,
    )


def _unhandled_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """ExecuTorch's portable kernels' ``Unhandled dtype BFloat16 for index.Tensor_out``, FlashInfer's ``... failed to
    dispatch with dtype Half``, old torch's ``thnn_conv2d_forward is not_implemented for type torch.HalfTensor``: an op
    whose kernel in this runtime has no case for the dtype."""
    return no_kernel(failure, found["op"], dtypes(found, "dtype"), None)


def _cudnn_integer(found: re.Match[str], failure: Failure) -> Explanation:
    """``getCudnnDataType() not supported for Char``: an integer tensor handed to a cuDNN op (a conv or RNN)."""
    names, shown = dtype_read(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"cuDNN (convolutions, RNNs) has no {shown} kernels: it takes floating tensors, and an {shown} layer or input "
        "is not a quantized one",
        "a layer or tensor converted to an integer dtype by hand (`layer.type(torch.int8)`, `.to(torch.int8)`) to "
        "save memory, as `.half()` would",
        "keep layers floating (fp16 or bf16 to save memory); for int8, quantize with a library made for it "
        "(torch.ao quantization on the CPU, TensorRT, bitsandbytes for linear layers)",
        op="cuDNN", names=names, device="cuda",
    )


def _missing_device_kernel(found: re.Match[str], failure: Failure) -> Explanation:
    """DispatchStub's ``missing CUDA kernel``: an op torch builds only for other devices (quantized quint4x2 on a
    GPU), with the quantized dtype the paste names, if any."""
    device = found["device"].lower()
    said = short_dtypes(match.group(1) for match in _TORCH_ATTRIBUTE.finditer("\n".join(failure.paste)))
    names = tuple(filter(is_quantized, said))
    return explained(
        Kind.NO_KERNEL, failure,
        f"torch has no {device.upper()} kernel for this op (DispatchStub found none registered)"
        + (f"; the paste uses {dtype_list(names)}" if names else ""),
        f"an op run on {device} that torch implements only on other devices: quantized ops (quint4x2, quint8 "
        "packing) and some CPU-only kernels",
        f"run that op on the CPU (`x.cpu()`, then move the result back), or use a dtype the {device} kernels take",
        op=f"an op on {device}", names=names, device=device, confidence=Confidence.LOW,
    )


_TORCH_ATTRIBUTE = re.compile(r"\btorch\.(\w{1,20})\b")
"""A name under ``torch.`` in a paste's code (``dtype=torch.quint4x2``), read as a dtype where it is one."""


def _no_kernel_at_dispatch_key(found: re.Match[str], failure: Failure) -> Explanation:
    """A fake/meta tracer (torch.compile, torch.export) finding no kernel for an op at a dispatch key."""
    op, key = found["op"], found["key"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` has no kernel for the {key} dispatch key: torch.compile / torch.export trace with fake (meta) "
        "tensors, and this op has no implementation for them",
        f"a model calling `{op}` (quantization ops such as quantize_per_tensor with tensor scales are the usual ones) "
        "traced or exported",
        "keep that op out of the traced region (`torch.compiler.disable` on the function that calls it), quantize with "
        "the PT2E flow instead of calling the op, or update torch (meta kernels are added release by release)",
        op=op, confidence=Confidence.LOW,
    )


def _dtype_table_lacks(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``KeyError: torch.uint8`` (or a 16-bit or fp8 name as a string key, ``KeyError: 'bf16'``): a library's table of
    dtypes has no entry for that dtype; declined for any other error whose message is a dtype alone."""
    if failure.error_type != "KeyError":
        return None
    return _table_without(found, failure)


def _table_without(found: re.Match[str], failure: Failure) -> Explanation:
    """A library's table of dtypes without the one ``found`` names (its ``dtype`` or ``enum`` group), also when a
    wrapper reports the KeyError as its bare key (vLLM's ``Worker failed with error ''float8_e8m0fnu''``)."""
    names, shown = dtype_read(found, "dtype" if found["dtype"] else "enum")
    return explained(
        Kind.NO_KERNEL, failure,
        f"a library's table of dtypes has no entry for {shown}: it converts torch dtypes to its own through a mapping "
        f"that was written without {shown}",
        f"{a(shown)} tensor (packed or quantized weights, an image) passed to an exporter or converter that handles "
        "only the dtypes its authors listed",
        "update the library (such maps grow); meanwhile convert that tensor to a dtype the map has before the call, "
        "or skip it",
        op="a library's dtype map", names=names, confidence=Confidence.LOW,
    )


_NO_DOUBLE = {
    "mps": "Metal has no double precision",
    "xpu": "this Intel GPU has no fp64 hardware (Arc and most client GPUs; data-center Max GPUs have it)",
    "directml": "this GPU's DirectML driver offers no double precision",
}


def no_float64(failure: Failure, device: str, confidence: Confidence = Confidence.HIGH) -> Explanation:
    """A backend without float64 (Apple's MPS; an Intel GPU without fp64 hardware): float64 data or a float64 default
    moved to it."""
    shown = device.upper()
    why = _NO_DOUBLE.get(device, "the device has no double precision")
    return explained(
        Kind.NO_KERNEL, failure,
        f"the {shown} backend has no float64 at all ({why}): a float64 tensor cannot be moved to {device} or created "
        "there",
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
    16-bit dtype the paste names; integer data when a live frame held integers and no 16-bit tensor; else some other
    dtype (16-bit or integer) upcast the same way."""
    called = _CALLED.findall(failure.message[:found.start()])
    op = called[-1] if called else ""
    given = input_dtype(failure, op)
    if given is not None and not is_floating(given):
        return integers.integer_operand(failure, (given,), f"`{op}`")
    names = (given,) if given is not None and is_low_precision(given) else low_precision_said(failure)
    if names:
        return no_kernel(failure, op, names[:1], None, Confidence.HIGH if given else Confidence.LOW)
    held = held_dtypes(failure)
    if held and not any(map(is_low_precision, held)) and integers.integer_names(tuple(sorted(held))):
        return integers.integer_operand(failure, (), f"`{op}`" if op else None)
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


_cpu_autocast = message_only(
    Kind.NO_KERNEL,
    "CPU autocast in this torch takes only bfloat16: it was asked for another dtype (usually float16, a GPU "
    "setting reused on the CPU)",
    "`torch.autocast('cpu', dtype=torch.float16)` (or `torch.cpu.amp.autocast` / a framework's fp16 mixed "
    "precision) running on the CPU",
    "on the CPU use bf16 (`torch.autocast('cpu', dtype=torch.bfloat16)`, 'bf16-mixed'), or no autocast; update "
    "torch for fp16 CPU autocast (2.13 measured takes it)",
    op="autocast on cpu", names=("bf16",), device="cpu",
)


def _autocast_refused(found: re.Match[str], failure: Failure) -> Explanation:
    """``In MPS autocast, but the target dtype is not supported. Disabling autocast.`` (a warning, and the list of what
    that device's autocast takes): the region ran in fp32, not in the dtype asked for."""
    device = (found["device"] or found["device2"]).lower()
    listed = " ".join(line for line in failure.paste if "autocast only supports" in line.lower())
    names = short_dtypes(re.findall(r"torch\.\w+", listed))
    return explained(
        Kind.NO_KERNEL, failure,
        f"{device.upper()} autocast was asked for a dtype it does not run, so it disabled itself: the region ran in "
        "fp32, not in the dtype asked for" + (f" (it takes {dtype_list(names)})" if names else ""),
        f"`torch.autocast('{device}', dtype=...)` (or a framework's mixed precision) given a dtype this torch's "
        f"{device.upper()} autocast lacks (fp32 is never an autocast dtype; bf16 on MPS needs macOS 14 and a recent "
        "torch)",
        f"ask autocast for a dtype it lists (`torch.autocast('{device}', dtype=torch.float16)`), or update torch "
        "(each release widens autocast's dtypes)",
        op=f"autocast on {device}", names=names or low_precision_said(failure)[:1], device=device,
        confidence=Confidence.LOW,
    )


_old_torch_bf16 = message_only(
    Kind.NO_KERNEL,
    "bf16 mixed precision (native autocast) was asked for on a torch older than 1.10, which has no bf16 autocast",
    "a Lightning `precision='bf16'` (or another framework's bf16 AMP) on torch < 1.10",
    "update torch to 1.10 or later (`pip install -U torch`), or train with precision 16 or 32 on this torch",
    op="bf16 autocast", names=("bf16",),
)


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
    "bf16 was refused because this setup was judged to lack native bf16: GPUs below compute capability 8.0 (T4, "
    "V100, P100, RTX 20xx) have none; bf16 needs Ampere or newer",
    "a model or config that defaults to bf16 (`torch_dtype=torch.bfloat16`, `dtype='auto'` reading bf16 from "
    "config.json, `bf16=True`) run on an older GPU",
    "use float16 (fp16) instead (e.g. `dtype='half'` / `torch_dtype=torch.float16`; for training use '16-mixed', "
    "which adds loss scaling), or float32 (fp32); if the GPU is Ampere or newer (A100, A10, L4, RTX 30xx/40xx, H100), "
    "it has bf16 and the check is wrong for it (`torch.cuda.is_bf16_supported()` tells): update torch (a CUDA 11+ "
    "build) and the library that made the check",
    op="bf16 on this GPU", names=("bf16",), device="cuda",
)


def _gpu_said_to_lack_bf16(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A line that says the GPU does not support bf16 (a library's check in its own words); declined when the line
    asks it (``do you use some GPU which does not support bfloat16 ?``): a question in a thread is a guess."""
    return None if _QUESTION.search(failure.message) else _compute_capability(found, failure)


_QUESTION = re.compile(r"\?\s*$|^\s*(?:do|does|did|is|are|could|can|maybe|perhaps)\b|\b(?:do|does) (?:you|your)\b",
                       re.IGNORECASE)


def _cpu_lacks_sixteen_bit(found: re.Match[str], failure: Failure) -> Explanation:
    """oneDNN's or IPEX's refusal of bf16 (or fp16) on a CPU without the AVX-512 instructions its kernels need
    (``bf16 path needs the cpu support avx512bw, avx512vl and avx512dq``)."""
    names = dtypes(found, "a", "b", "c") or ("bf16",)
    return explained(
        Kind.NO_KERNEL, failure,
        f"this CPU lacks the instructions oneDNN's {dtype_list(names)} kernels need (AVX-512 BW/VL/DQ): the "
        "16-bit path was refused on this machine, not because of the model",
        "a 16-bit model or precision (`torch_dtype=torch.bfloat16`, bf16 mixed precision, IPEX's bf16 weight "
        "prepack, torch.compile's packed linear) run on a CPU with only AVX2 (older Xeons, most desktop and laptop "
        "CPUs, AVX2-VNNI parts)",
        "use float32 on this CPU (`torch_dtype=torch.float32`, mixed precision off, `dtype='float'`); or run on a CPU "
        "with AVX-512 (Xeon Skylake-SP or newer, AMD Zen 4 or newer), best with AVX512-BF16 or AMX; eager mode may "
        "work where torch.compile's weight prepack does not",
        op=f"oneDNN {names[0]} on this CPU", names=names, device="cpu",
    )


_compiler_lacks_neon_bf16 = message_only(
    Kind.NO_KERNEL,
    "the C++ compiler does not know ARM's bf16 vector type (`bfloat16x8_t`): the bf16 kernels being built need a "
    "compiler (and target flags) with ARM's BF16 extension",
    "building a torch-based library's optimized bf16 kernels from source on ARM (a Raspberry Pi, Jetson or phone "
    "toolchain) with an older Clang or GCC, or without `-march=armv8.6-a+bf16`",
    "build with a newer compiler (Clang 15+ or GCC 12+) and the target's bf16 flags, or use the release whose build "
    "worked (or a prebuilt wheel); bf16 models then run, or use float32 on that board",
    op="bf16 kernels built for ARM", names=("bf16",), device="cpu",
)


_no_sdpa_backend = message_only(
    Kind.NO_KERNEL,
    "scaled_dot_product_attention found no backend it may use for these inputs: each one allowed refused them "
    "(flash attention takes only fp16/bf16 q, k, v, no arbitrary attn_mask, head dims up to 256, Ampere or newer)",
    "flash attention forced on (`sdpa_kernel(SDPBackend.FLASH_ATTENTION)`, `torch.backends.cuda.enable_math_sdp("
    "False)`, or a library's `flash=True` option) with fp32 inputs, a mask, or an unsupported GPU or head dim",
    "read the warnings printed just above the error (each backend says why it refused); cast q, k and v to "
    "bf16/fp16 for flash, or allow another backend (`sdpa_kernel([SDPBackend.FLASH_ATTENTION, "
    "SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH])`), or turn off the library's flash option",
    op="scaled_dot_product_attention",
)

_complex_half = message_only(
    Kind.NO_KERNEL,
    "an FFT or complex op ran on fp16 data, which makes complex32 (ComplexHalf) tensors: torch supports them only "
    "experimentally, and many ops have no complex32 kernel",
    "an FFT (`torch.fft.fftn`, FreeU's filter, a spectral layer) or `torch.view_as_complex` in a model run in fp16",
    "run the FFT in float32 and cast back (`torch.fft.fftn(x.float()).real.to(x.dtype)`, or keep the spectral module "
    "in fp32 with a keep rule); update the library if a newer version upcasts it",
    op="an FFT in fp16", names=("complex32",), confidence=Confidence.LOW,
)


def _listed_pair(found: re.Match[str], failure: Failure) -> Explanation:
    """``Expected both inputs to be Half, Float or Double tensors but got BFloat16 and BFloat16`` (torch.polar,
    torch.complex): integers are data for an op that takes floats; one other dtype outside the list is a missing
    kernel for it; two different ones meet in one op."""
    names = dtypes(found, "a", "b")
    if integers.integer_names(names):
        return integers.integer_operand(failure, names[:1] if len(set(names)) == 1 else names,
                                        "torch.polar/torch.complex")
    if len(set(names)) == 1:
        return no_kernel(failure, "torch.polar/torch.complex", names[:1], None)
    return explained(
        Kind.OP_DTYPE, failure,
        f"torch.polar/torch.complex got inputs of {dtype_list(names)}; both must have one dtype (fp16, fp32 or fp64)",
        "a magnitude and an angle (or real and imaginary parts) made in different dtypes",
        "convert both to one of those dtypes: `torch.polar(abs.float(), angle.float())`",
        op="torch.polar/torch.complex", names=names,
    )


RULES: tuple[Rule, ...] = (
    rule(r"\bType (?P<a>(?:cuda\.)?(?:Half|Double|Float)Tensor) doesn't implement stateless methods|"
         r"^<class '(?P<a2>torch\.(?:cuda\.)?(?:Half|Double)Tensor)'>$", _legacy_backend_lacks),
    rule(r"[\"']?(?P<op>\w{1,60})[\"'] not imple(?:m(?:e(?:n(?:t(?:e(?:d)?)?)?)?)?)?\s*$", _kernel_line_cut),
    rule(r"copy_sparse_csr_: only tensors with the same number of specified elements are supported|"
         r"expected sparse compressed \(non-block\) tensor layout but got Sparse(?P<layout>Bsr|Bsc)",
         _sparse_compressed_cast),
    rule(r"operation not supported when calling `?cusparseLt\w{1,40}", _cusparselt_dtype),
    rule(r"Unhandled dtype (?P<dtype>\w{1,20}) for (?P<op>[\w.]{1,60})", _unhandled_dtype),
    rule(r"couldn't find storage object (?P<dtype>\w{2,30}?)Storage\b|\bunsupported Storage type\b", _no_storage),
    rule(r"getCudnnDataType\(\) not supported for (?P<dtype>Char|Byte|Short|Int|Long|Bool)\b", _cudnn_integer),
    rule(r"^(?P<dtype>torch\.(?:u?int(?:8|16|32|64)|bool|float8_\w{1,12}|bfloat16|float16|complex\w{1,4})|"
         r"['\"](?i:bf16|bfloat16|float8_\w{1,12})['\"])$|^<DataType\.(?P<enum>(?i:bf16|bfloat16|f16|float16|fp8\w{0,8}|"
         r"e4m3|e5m2)): \d{1,3}>$", _dtype_table_lacks),
    rule(r"^(?P<dtype>torch\.(?:u?int(?:8|16|32|64)|bool|float(?:16|32|64)|float8_\w{1,12}|bfloat16|half|double|"
         r"complex\w{1,4})) is not a supported (?:d|data ?)?type\b", _table_without),
    rule(r"Check failed: \(\w{1,10}->dtype\)\.code == kDLFloat", _graph_kernel_needs_float),
    rule(r"DispatchStub: missing (?P<device>CUDA|CPU|MPS|XPU|HIP) kernel", _missing_device_kernel),
    rule(r"could not find kernel for (?P<op>aten\.[\w.]{1,80}) at dispatch key (?:DispatchKey\.)?(?P<key>\w{1,30})",
         _no_kernel_at_dispatch_key),
    rule(r"\b(?P<op>clamp|clamp_min|clamp_max|clip|max|min|maximum|minimum|sort|topk|argmax|argmin|sign|floor|ceil|"
         r"round|relu|threshold|heaviside) is not supported for complex types", _real_only_on_complex),
    rule(r"\b(?P<op>imag|real|conj_physical|view_as_real) is not implemented for tensors with non-complex dtypes",
         _imaginary_of_real),
    rule(r"\bassert (?P<var>[\w.]{1,40})\.dtype == torch\.(?P<want>float32|float)\b", _asserted_float32),
    rule(r"The operator '(?P<op>[\w:.]{1,80})' is not currently implemented for the (?P<device>xpu|mps) device",
         _operator_missing_on_device),
    rule(r"No available kernel\.\s+Aborting execution|No viable backend for scaled_dot_product_attention was found",
         _no_sdpa_backend),
    rule(r"ComplexHalf support is experimental", _complex_half),
    rule(r"Expected both inputs to be (?:Half, )?Float or Double tensors but got (?P<a>{DTYPE}) and (?P<b>{DTYPE})",
         _listed_pair),
    rule(r"(?<![\w:.])[\"“”']?(?P<op>[\w:. ]{1,80}?)(?:[\"“”'] ?| )not implemented for \\?[\"“”'‘’](?P<dtype>{DTYPE})"
         r"\\?[\"“”'‘’]?", _not_implemented),
    rule(r"(?<![\w:.])(?P<op>[A-Za-z]\w{0,40}(?:_\w{1,40}|KernelImpl)) not impl\w{0,8}ed for "
         r"(?P<dtype>Half|BFloat16|Float|Double|Long|Int|Bool|Byte|Float8_e4m3fn|Float8_e5m2|float8)\b",
         _not_implemented),
    rule(r"\b(?P<op>\w{1,80}) is not implemented for type (?P<dtype>[\w.]{1,80})", _legacy),
    rule(r"\b(?P<op>\w{1,80}) not supported on (?P<backend>cpu|cuda)Type for (?P<dtype>{DTYPE})", _legacy),
    rule(r"\b(?P<op>topk|[Ss]ort) does not support (?P<dtype>bool|complex) dtypes on (?:CPU|CUDA)\b", _not_implemented),
    rule(r"\b(?P<op>arg(?:max|min))\(\): does not support (?P<dtype>bool|complex) input", _not_implemented),
    rule(r"\b(?P<op>\w{1,40}) input type (?P<dtype>{DTYPE}) and output type (?P<out>{DTYPE}) is not supported",
         _pair_lacks),
    rule(r"(?<![\w.])(?P<op>[\w.]{1,60}): Expected \w{1,20} to be a floating-point or complex tensor,? but got "
         r"(?P<dtype>{DTYPE})", _not_implemented),
    rule(r"(?<![\w.])(?P<op>[\w.]{1,80}): Low precision dtypes not supported\.?\s*Got (?P<dtype>{DTYPE})",
         _op_lacks_dtype),
    rule(r"(?P<op>linalg\.\w+)\((?P<dtype>BFloat16|Half)\{", _op_lacks_dtype),
    rule(r"\b(?P<op>Blockwise quantization) only supports 16/32-bit floats,? but got (?P<dtype>{DTYPE})",
         _op_lacks_dtype),
    rule(r"^Unsupported dtype (?P<dtype>Half|BFloat16)\b", _fft),
    rule(r"(?i:\bonly (?P<dtype>b?float ?16|bf16|fp16|half)(?: precision)? (?:is |are )?supported\b)", _only_one_dtype),
    rule(r"User specified autocast device_type must be 'cuda' or 'cpu'|User specified an unsupported autocast "
         r"device_type '\w{1,20}'", _autocast_device),
    rule(r"Unrecognized tensor type ID: Autocast", _autocast_unregistered_op),
    rule(r"could not find kernel for (?:HigherOrderOperator )?(?P<op>[\w.:]{1,80}) at dispatch key "
         r"DispatchKey\.Autocast(?P<device>CPU|CUDA|XPU|MPS|HPU)\b", _autocast_without_kernel),
    rule(r"Batching rule not implemented for aten::view\.dtype", _vmapped_dtype_view),
    rule(r"Batching rule not implemented for aten::(?:real|imag|view_as_real|view_as_complex)\b",
         _vmapped_complex_view),
    rule(r"Unexpected floating ScalarType in at::autocast::prioritize", _autocast_met_another_dtype),
    rule(r"No suitable kernel\.[^\n]{0,80}?\bdtype=(?P<dtype>\w{1,20}) out_dtype=(?P<out>\w{1,20})", _pair_lacks),
    rule(r"\b(?P<dtype>Float8_\w{1,12}|BFloat16|Half) has not been supported", _library_lacks),
    rule(r"Promotion for uint16, uint32, uint64 types is not supported,? attempted to promote (?P<a>{DTYPE}) and "
         r"(?P<b>{DTYPE})", _wide_unsigned_promotion),
    rule(r"\bundefined symbol: \S{0,200}?(?:hip_bfloat16|nv_bfloat16|BFloat16)", _binary_lacks_bf16),
    rule(r"\bun-?supported dtype:\s*(?:torch\.)?(?P<dtype>b?float16|half|bf16|fp16)\b", _library_lacks),
    rule(r"\bdata\(\) cast to unexpected type\b", _typed_data),
    rule(r"MKL FFT doesn't support tensors? of type(?::?\s*(?P<dtype>{DTYPE}))?", _fft),
    rule(r"No format found for dtype (?P<dtype>torch\.\w{1,20}); dtype must be one of", _audio_writer),
    rule(r"cuFFT only supports dimensions whose sizes are powers of two when computing in half precision", _fft),
    rule(r"cuFFT doesn't support signals of half type", _fft),
    rule(r"\b(?P<op>\w{1,40}) only su[a-z]?pports? (?:fp16|float16|half) ?(?:and|or|/) ?(?:bf16|bfloat16)",
         _only_low_precision),
    rule(r"\bOnly (?:fp16|float16|half) and (?:bf16|bfloat16) are supported\b", _only_low_precision),
    rule(r"Flash Attention(?: 2(?:\.0)?)? only supports torch\.float16 and torch\.bfloat16", _flash_attention_2),
    rule(r"at::cuda::blas::gemm(?:<[^>\n]{1,40}>)?: not implemented for (?:struct )?c10::BFloat16",
         _compute_capability),
    rule(r"\bassert [\w.]{1,40}\.dtype == torch\.(?P<dtype>float16|half|bfloat16)\b", _asserted_one_dtype),
    rule(r"\bassert [\w.]{1,40}\.dtype in [\[(]\s*torch\.(?:float16|half|bfloat16),\s*"
         r"torch\.(?:float16|half|bfloat16)\s*[\])]", _asserted_sixteen_bit),
    rule(r"q_dtype == (?:at|torch)::k(?:Half|Float16) \|\||Expected query, key and value to all be of dtype: "
         r"\{Half, BFloat16\}", _only_low_precision),
    rule(r"(?P<op>view_as_complex) is only supported for half, float and double tensors,? but got a tensor of scalar "
         r"type:?\s*(?P<dtype>{DTYPE})", _op_lacks_dtype),
    rule(r"You can use float16 instead by explicitly setting the ?`dtype` flag", _compute_capability),
    rule(r"Expected dtype \[(?P<listed>[^\]\n]{1,80})\] but got (?P<dtype>\w{1,20})", _triton_listed),
    rule(r"Expected (?:input|tensor|dtype)s? (?:of|in|to be(?: one of)?)\s*\[(?P<listed>[^\]\n]{1,160})\]\.?,?\s*"
         r"(?:but )?got:?\s*(?P<dtype>{DTYPE})|is not supported for quantization method "
         r"\w{1,30}\.?\s*Supported dtypes:?\s*\[(?P<listed2>[^\]\n]{1,160})\]", _allowlist),
    rule(r"Expected (?P<name>\w{1,30})\.(?:dtype|scalar_type)\(\) == (?:(?:at|torch|c10)::)?(?:ScalarType::|k)"
         r"(?P<dtype>BFloat16|Half|Float16|Float|Double|Char|Int8|Float8_e4m3fn|Int32|Int|Long|Int64) to be true",
         _only_in),
    rule(r"[\"“]Expected (?:at|torch|c10)::k(?P<dtype>BFloat16|Half|Char|Int8|Float8_e4m3fn)[\"”]", _only_in),
    rule(r"\b(?:requires?|must be(?: in(?: (?:the )?dtypes? of)?)?|expects?|supports? only)\s+"
         r"(?:\w{1,30}\s+(?:\w{1,30}\s+)?to be\s+)?(?:torch\.)?(?:(?:fp16|float16|half)\s*(?:or|and|/|,)\s*"
         r"(?:torch\.)?(?:bf16|bfloat16)|(?:bf16|bfloat16)\s*(?:or|and|/|,)\s*(?:torch\.)?(?:fp16|float16|half))\b",
         _only_low_precision),
    rule(r"\b(?:must|to) be (?:either )?(?:a )?(?:float(?:32)?|fp32) or (?:double|float64|fp64)\b", _float_or_double),
    rule(r"This function doesn't handle types other than float and double", _float_or_double),
    rule(r"\bonly float(?:32)? and double (?:d?types? )?(?:are|is) (?:implemented|supported)\b", _float_or_double),
    rule(r"\berror: identifier \"(?P<type>(?:at::|c10::)?(?:Half|BFloat16)|__half|__nv_bfloat16|half)\" is undefined",
         _undefined_half_type),
    rule(r"\b(?P<op>\w{1,60}) failed to dispatch with dtype (?P<dtype>\w{1,20})", _unhandled_dtype),
    rule(r"\bfailed with error '(?P<dtype>'(?:float8_|float4_)\w{1,12}')'", _table_without),
    rule(r"\bsynNodeCreateWithId failed for node: (?P<op>\w{1,60})", _gaudi_node),
    rule(r"\b(?P<op>\w{1,60}) is not_implemented for type (?P<dtype>torch\.(?:cuda\.)?\w{1,20}Tensor)",
         _unhandled_dtype),
    rule(r"\b\w{1,30}\.scalar_type\(\) == at::(?:ScalarType::)?k?(?P<dtype>Float|Double)\b[^\n]{0,40}?INTERNAL ASSERT "
         r"FAILED", _custom_float32),
    rule(r"\bhas not been built with (?P<dtype>fp32|fp16|bf16|float32|float16|bfloat16|int8|fp8) support",
         _built_without),
    rule(r"(?P<dist>[\w-]{1,20}) distribution is a continuous probability distribution\.\s*dtype must be a floating "
         r"point but you specified (?P<a>{DTYPE})", _continuous_fill),
    rule(r"Expected \(\w{1,20}\.(?:dtype|scalar_type)\(\) == (?:torch|at)::k(?:Float|Double)\b", _float_or_double),
    rule(r"must be (?:a |of type )?(?P<dtype>float32|torch\.float32|fp32)\b(?! or)", _custom_float32),
    rule(r"\b(?P<name>\w{1,30}) should be in (?P<dtype>float32|torch\.float32) type,? got (?P<got>{DTYPE})",
         _float32_type_check),
    rule(r"AutocastCPU only supports? (?:Bfloat16|bf16)|In CPU autocast, but the target dtype is not supported",
         _cpu_autocast),
    rule(r"In (?P<device>MPS|XPU|CUDA|HPU) autocast, but the target dtype is not supported|"
         r"(?P<device2>MPS|XPU|HPU) Autocast only supports dtypes? of (?P<listed>[\w., ]{1,80}?) currently",
         _autocast_refused),
    rule(r"To use bfloat16 with native amp you must install torch (?:greater or equal to|>=) ?1\.10", _old_torch_bf16),
    rule(r"(?:'module'|module '?torch(?:\.cuda)?'?) (?:object )?has no attribute '(?P<dtype>(?:Half|BFloat16)Tensor)'|"
         r"\btorch\.(?:cuda\.)?sparse\.(?P<sparse>HalfTensor) is not enabled", _missing_tensor_type),
    rule(r"'torch\.(?:cuda\.)?(?P<dtype>(?:Half|BFloat16)Tensor)' object has no attribute '(?P<op>\w{1,40})'", _legacy),
    rule(r"binary_cross_entropy and torch\.nn\.BCELoss are unsafe to autocast", _unsafe_to_autocast),
    rule(r"Trying to convert (?P<dtype>\w{1,20}) to the (?P<device>\w{1,10}) backend but it does not have support for "
         r"that d?type", _backend_lacks_dtype),
    rule(r"\b(?P<device>MPS) (?P<dtype>\w{1,20}) is only supported on MacOS", _backend_lacks_dtype),
    rule(r"invalid_kernel\(\"uses-fp64-math\"\)", _fp64_on_intel_gpu),
    rule(r"Cannot convert a (?P<device>MPS) Tensor to (?P<dtype>\w{1,20}) dtype as the MPS framework doesn't support",
         _backend_lacks_dtype),
    rule(r"\b(?P<dtype>\w{1,20}) is not supported on (?P<device>MPS)\b", _backend_lacks_dtype),
    rule(r"\b(?P<dtype>Long|Int|Short|Char|Byte|Bool|Half|BFloat16|Double|ComplexFloat|ComplexDouble) is not supported "
         r"(?:in|by) (?P<library>oneDNN|MKLDNN|mkl-dnn|cuDNN|NNPACK|XNNPACK|QNNPACK)\b", _library_lacks_dtype),
    rule(r"Bfloat16 is only supported on GPUs with compute capability of at least 8\.0", _compute_capability),
    rule(r"\b(?P<a>bf16|BF16|fp16|FP16)\b[^\n]{0,40}? needs the cpu support avx512|DNNL does not support "
         r"(?P<b>bf16)(?:/(?P<c>f16))? \w{1,20} on the platform with", _cpu_lacks_sixteen_bit),
    rule(r"unknown type name '(?:bfloat16x\d_t|bfloat16_t)'|cannot convert ['‘]?__Uint16x8_t['’]? to "
         r"['‘]?__Bfloat16x8_t", _compiler_lacks_neon_bf16),
    rule(r"['‘](?P<dtype>bfloat16|__bf16|__nv_bfloat16|half|__half)['’] was not declared in this scope",
         _type_undeclared),
    rule(r"Your setup doesn't support bf16/gpu", _compute_capability),
    rule(r"\b(?:CUDA|GPUs?)\b[^\n]{0,40}?(?:does not|doesn't|do not|don't|cannot|can't) support (?:bfloat16|bf16)\b",
         _gpu_said_to_lack_bf16),
    rule(r"\bbf16 is only supported on A100\+? GPUs", _compute_capability),
    rule(r"needs_dynamic_casting<func_t>::check\(iter\) INTERNAL ASSERT FAILED", _no_casting_kernel),
)
