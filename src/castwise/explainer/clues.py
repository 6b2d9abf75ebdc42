"""What a traceback's frames say about an error that its message does not: the op and the module.

torch's generic messages (``expected scalar type Float but found BFloat16``) come from convolutions,
norms, batched matmuls, recurrent cells, custom CUDA extensions and the fused transformer fast
path alike; the innermost frames say which (``F.conv2d(...)``, ``torch.layer_norm(...)``,
``torch._transformer_encoder_layer_fwd(...)``, ``ext.dcnv4_backward(...)``). The module is the one
the innermost non-torch frame calls (``latents = self.norm2(latents)`` names ``self.norm2``). A paste's
prose can name the device a kernel name does not (``inference on cpu``). Wrappers name the op their inner error
was raised in (torch.compile's ``Dynamo failed to run FX node ... call_function <built-in function matmul>``, a
DTensor's ``Sharding propagation failed for aten.bmm``, a TorchScript module's own traceback), and a live exception
shows the dtypes of the tensors its innermost frame held (a conv's weight when torch names only its bias).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain

from castwise.explainer.failures import Failure, Frame
from castwise.explainer.spelling import short_dtype

INNERMOST = 6
"""Frames, counted from the innermost, in which the op that raised is looked for."""


@dataclass(frozen=True)
class Op:
    """An op family as frames show it: its name in explanations and the words that give it away."""

    name: str
    pattern: re.Pattern[str]

    def seen_in(self, frame: Frame) -> bool:
        """Whether the frame's function, code line or file shows this op."""
        return bool(self.pattern.search(f"{frame.function} {frame.code} {frame.file}"))


def _op(name: str, pattern: str) -> Op:
    return Op(name, re.compile(pattern, re.IGNORECASE))


FASTPATH = _op("torch's fused transformer fast path",
               r"_transformer_encoder_layer_fwd|_native_multi_head_attention")
CONV = _op("convolution", r"\bconv(?:_transpose)?[123]d\b|_conv_forward|\bconvolution\b|[/\\]modules[/\\]conv\.py|"
                          r"\bindice_conv\w*|/spconv/")
NORM = _op("normalization layer",
           r"layer_norm|group_norm|batch_norm|instance_norm|rms_norm|LayerNorm|RMSNorm|"
           r"[/\\]modules[/\\](?:normalization|_functions)\.py")
"""Also SyncBatchNorm's autograd function, in ``torch/nn/modules/_functions.py`` (code that converts a model to
SyncBatchNorm runs no norm)."""
WHERE = _op("torch.where", r"\btorch\.where\(")
RNN = _op("recurrent layer", r"_VF\.(?:lstm|gru|rnn)|lstm_cell|gru_cell|rnn_tanh|rnn_relu|[/\\]modules[/\\]rnn\.py")
ATTENTION = _op("attention", r"scaled_dot_product_attention|multi_head_attention_forward")
BMM = _op("batched matrix multiply", r"\b(?:bmm|baddbmm)\s*\(")
MATMUL = _op("matrix multiply",
             r"\b(?:F\.linear|linear|addmm|baddbmm|bmm|matmul|einsum|mm)\s*\(|[\w)\]](?:\s+@\s+|@)[\w(]|"
             r"[/\\]modules[/\\]linear\.py|"
             r"\bops\.aten\.(?:mm|addmm|bmm|baddbmm|linear|matmul|_int_mm|_weight_int\d+pack_mm\w*)\.\w+\(")
"""`a @ b` with spaces on both sides or on neither (a decorator, ``the @torch.cuda.amp.autocast``, has one before it
only). Also an exported or traced graph's aten calls (``torch.ops.aten._weight_int8pack_mm.default(x, w, scales)``); its
``aten.bmm`` is what `@` on 3-D tensors runs, so it is a matrix multiply unless the code calls ``bmm`` itself."""
LOSS = _op("loss", r"cross_entropy|nll_loss|binary_cross_entropy|mse_loss|huber_loss|l1_loss|margin_loss|ctc_loss|"
                   r"margin_ranking_loss|hinge_embedding_loss|cosine_embedding_loss|[/\\]modules[/\\]loss\.py")
CRITERION = _op("loss", r"\b(?:criterion|loss_fn|loss_func|loss_function)\s*\(")
"""A loss called the way training code names it, whatever loss it is."""
CLASS_INDEX_LOSS = _op("classification loss", r"cross_entropy|nll_loss|multi_margin|CrossEntropy|NLLLoss")
LERP = _op("lerp", r"\blerp_?\s*\(")
"""A call of lerp (``torch.lerp(a, b, weight=w)``, ``ema.lerp_(p, w)``), whose check words its error as a loss
backward's does."""
GRID_SAMPLE = _op("grid_sample", r"^grid_sample\b")
"""Anchored: only a frame of grid_sample itself (its function), not a code line or prose that mentions it."""
LOWRANK = _op("torch's low-rank SVD/PCA", r"[/\\]_lowrank\.py")
PRELU = _op("prelu", r"\bprelu\s*\(|^prelu\b")
"""A frame calling (or of) prelu: its learned slope and its input."""
CDIST = _op("cdist", r"^cdist\b")
"""Anchored as grid_sample is: a frame of torch.cdist itself."""
WEIGHT_NORM = _op("weight norm", r"\b_weight_norm\b|[/\\]utils[/\\]weight_norm\.py")
UNSCALE = _op("GradScaler.unscale_", r"unscale_|_unscale_grads")
VISION_NMS = _op("torchvision's nms", r"\btorchvision(?:\.|::)nms\b|^nms\b.*torchvision[/\\]ops[/\\]boxes\.py")
EXTENSION = _op("custom extension", r"\b\w+_cuda\.\w+\(|\bext\.\w+\(|_C\.\w+\(|\bops\.(?!aten\.)\w+\.\w+\(|"
                                     r"[/\\](?:mmcv|torchvision)[/\\]ops[/\\]")

_CALL = re.compile(r"\bself\.([A-Za-z][\w.]*)\s*\(")
_MODULE_CALL = frozenset({"_wrapped_call_impl", "_call_impl", "__call__"})


_CPU_WORD = re.compile(r"(?<![A-Za-z])cpu(?![A-Za-z])", re.IGNORECASE)
_GPU_WORD = re.compile(r"(?<![A-Za-z])(?:cuda|gpu|gpus)(?![A-Za-z])", re.IGNORECASE)


def cpu_said(failure: Failure) -> bool:
    """Whether a paste speaks of the CPU and never of a GPU (``i wanna use fp16 to inference on cpu``): the device
    a kernel name that names none ran on."""
    text = "\n".join(failure.paste)
    return bool(_CPU_WORD.search(text)) and not _GPU_WORD.search(text)


FLOAT32_SAID = re.compile(r"\b(?:float32|fp32|full precision)\b", re.IGNORECASE)
"""float32 named in words (``the loaded videos is `float32` already``, ``q and k dtypes seem to be fp32``, ``in full
precision``)."""


def paste_search(failure: Failure, pattern: re.Pattern[str], lines: int | None = None) -> re.Match[str] | None:
    """The first match of ``pattern`` in the paste's lines (only its first ``lines`` when given), or in the message
    of a live exception, which has no paste."""
    return next(filter(None, map(pattern.search, failure.paste[:lines] or (failure.message,))), None)


def operand_dtype(failure: Failure, name: str) -> str | None:
    """The short dtype of the tensor ``name`` (``weight``) that a live exception's innermost frame held, if any."""
    return dict(failure.operands).get(name)


_TORCH_CALL = re.compile(r"\btorch\.((?:linalg\.|fft\.|special\.|nn\.functional\.)?[a-z_][a-z0-9_]*)\s*\(")


def torch_call(failure: Failure) -> str | None:
    """The torch function (``polar`` in ``torch.polar(torch.ones(n), theta)``) the innermost frame's code line calls,
    when that frame is a real one (a header, not code pasted without it: that may be the fix) and not torch's own (a
    builtin op raised in it), and every other torch call on the line is among its arguments; None otherwise.
    ``torch.where`` is not named: old torch's where raised the generic message for two floats, which the corpus reads
    as such (held_out_11 comfyui-daremerge-6)."""
    frames = failure.frames
    if not frames or not frames[-1].file or frames[-1].in_torch:
        return None
    code = frames[-1].code
    calls = list(_TORCH_CALL.finditer(code))
    if not calls or calls[0][1] == "where":
        return None
    end = _closing(code, calls[0].end())
    return calls[0][1] if all(call.start() < end for call in calls[1:]) else None


def _closing(code: str, start: int) -> int:
    """The index just past the parenthesis that closes the call opened right before ``start`` (the end of the line
    when it is cut short)."""
    depth = 1
    for index in range(start, len(code)):
        depth += {"(": 1, ")": -1}.get(code[index], 0)
        if depth == 0:
            return index + 1
    return len(code)


_ATEN_FAILED = re.compile(r"(?:Sharding propagation failed for|attempting to run meta for) aten\.(\w+)")


def aten_op_failed(failure: Failure) -> str | None:
    """The aten op a DTensor's sharding propagation or a fake tensor's meta function failed for (``bmm`` in
    ``Sharding propagation failed for aten.bmm.default(...)``), when the paste says one."""
    found = paste_search(failure, _ATEN_FAILED)
    return found[1] if found else None


_TRACED_NODE = re.compile(r"Dynamo failed to run FX node with fake tensors: call_(?:function|method|module) "
                          r"(?:<(?:built-in )?(?:function|method) )?(\w+)")


def traced_call(failure: Failure) -> str | None:
    """The function torch.compile was tracing when a fake tensor raised (``matmul`` in ``call_function <built-in
    function matmul>``, ``bmm``, ``lerp``), when the paste (a live error's wrappers included) says one."""
    found = paste_search(failure, _TRACED_NODE)
    return found[1] if found else None


_FAKE_DTYPE = re.compile(r"FakeTensor\(\.\.\.(?:(?!FakeTensor\().){0,200}?\bdtype=(torch\.\w{1,20})")


def traced_dtypes(failure: Failure) -> tuple[str, ...]:
    """The dtypes torch.compile printed for the fake tensors of the call it was tracing (``FakeTensor(..., size=(),
    dtype=torch.int64)``), in order; a tensor of the default dtype is printed without one and is left out."""
    found = paste_search(failure, _TRACED_NODE)
    printed = (short_dtype(dtype) for dtype in _FAKE_DTYPE.findall(found.string, found.end())) if found else ()
    return tuple(dict.fromkeys(name for name in printed if name is not None))


_WEIGHT_NAME = re.compile(r"^(?:self\.)?(?:weight|kernel)$")


_SECOND_ARGUMENT = re.compile(r"\b(?:F|functional|torch)\.\w+\(\s*[A-Za-z_]\w*\s*,\s*([A-Za-z_]\w*)\s*[,)]")
"""The second argument of a functional call (``laplacian`` in ``F.conv2d(field, laplacian, padding=1)``): the weight
of ``F.conv*``/``F.linear``."""

_CAST_TO_FIRST = re.compile(
    r"\b(?:F|functional|torch)\.\w+\(\s*([A-Za-z_]\w*)\s*,\s*[\w.]{1,80}\.(?:to\(\s*\1\.dtype\s*\)|type_as\(\s*\1\s*\))\s*[,)]")
"""A functional call whose second argument is cast to its first one's dtype (``F.conv1d(x, w.to(x.dtype), b)``): the
group names the first."""


def _argument_dtype(failure: Failure, call: re.Pattern[str]) -> str | None:
    """The short dtype of the tensor a live exception's innermost frame passed in the call ``call`` finds on its code
    line (its first non-empty group names the argument), when the frame held it."""
    frames = failure.frames
    found = call.search(frames[-1].code) if frames and failure.operands else None
    return operand_dtype(failure, next(name for name in found.groups() if name)) if found else None


def subscript_dtype(failure: Failure) -> str | None:
    """The short dtype of the tensor a live exception's innermost frame used as a subscript (``codes`` in
    ``centers[codes]``), when the frame held it."""
    return _argument_dtype(failure, _SUBSCRIPT)


_SUBSCRIPT = re.compile(r"[\w\])]\[\s*([A-Za-z_]\w*)\s*\]")


def input_dtype(failure: Failure, op: str) -> str | None:
    """The short dtype of the tensor a live exception's innermost frame passed to ``op`` as its input: the first
    argument of ``torch.op(x, ...)`` or the tensor of ``x.op(...)`` on the frame's code line, when the frame held it."""
    if not op.isidentifier():
        return None
    return _argument_dtype(failure, re.compile(rf"\b(?:torch\.{op}\(\s*([A-Za-z_]\w*)\s*[,)]|([A-Za-z_]\w*)\.{op}\()"))


def weight_dtype(failure: Failure) -> str | None:
    """The short dtype of the weight a live exception's innermost frame passed: the second argument of the functional
    call on the frame's code line when the frame held it (its first argument's, when it is cast to that one's dtype
    there: ``F.conv1d(x, w.to(x.dtype), b)``), else a local named ``weight`` (or its module's ``self.weight``, a
    hand-written layer's ``self.kernel``)."""
    for call in (_SECOND_ARGUMENT, _CAST_TO_FIRST):
        passed = _argument_dtype(failure, call)
        if passed is not None:
            return passed
    return next((dtype for name, dtype in failure.operands if _WEIGHT_NAME.match(name)), None)


def tied_parameter(failure: Failure, names: tuple[str, ...]) -> tuple[str, str, str] | None:
    """A parameter of a live exception's model tied under two names, in one of the dtypes ``names`` and not in the
    dtype most of the model's tensors have, as (name, other name, short dtype)."""
    return next((group for group in failure.model.tied if group[2] in names), None)


def held_dtypes(failure: Failure) -> frozenset[str]:
    """The short dtypes of every tensor a live exception's innermost frame held."""
    return frozenset(dtype for _, dtype in failure.operands)


def innermost(failure: Failure) -> tuple[Frame, ...]:
    """The innermost frames, where the op that raised shows."""
    return failure.frames[-INNERMOST:]


def shows(failure: Failure, op: Op, everywhere: bool = False) -> bool:
    """Whether the innermost frames (or, with ``everywhere``, any frame) show ``op``."""
    return any(op.seen_in(frame) for frame in (failure.frames if everywhere else innermost(failure)))


def first_shown(failure: Failure, *ops: Op) -> Op | None:
    """The op of ``ops`` shown by the innermost frame that shows any of them."""
    for frame in reversed(innermost(failure)):
        for op in ops:
            if op.seen_in(frame):
                return op
    return None


def module_called(failure: Failure) -> str | None:
    """The module (``self.norm2``) the innermost non-torch frame calls, when the next frame shows that call
    entering ``nn.Module.__call__`` (so a method call such as ``self.build_targets(...)`` is not taken)."""
    frames = failure.frames
    for index in reversed(range(len(frames) - 1)):
        found = None if frames[index].in_torch else _CALL.search(frames[index].code)
        if found and frames[index + 1].in_torch and frames[index + 1].function in _MODULE_CALL:
            return f"self.{found.group(1)}"
    return None


_TORCHSCRIPT = re.compile(r"^Traceback of TorchScript\b|\bfailed in the TorchScript interpreter\b")


def torchscript_shown(failure: Failure) -> bool:
    """Whether the error was raised inside a TorchScript module (traced, scripted, frozen or loaded): its message
    carries TorchScript's own traceback."""
    return paste_search(failure, _TORCHSCRIPT) is not None


_INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\](?P<package>[A-Za-z_][\w.-]*?)(?:[/\\]|\.py$)|"
                        r"[/\\](?:custom_nodes|extensions)[/\\](?P<plugin>[A-Za-z_][\w.-]*?)[/\\]")
"""An installed package, or an app's plugin (a ComfyUI custom node, a web UI extension) installed the same way."""
_NOT_A_LIBRARY = frozenset({"torch", "torchvision", "torchaudio", "_pytest", "pytest", "IPython", "ipykernel"})


def version_in_title(failure: Failure) -> tuple[str, str] | None:
    """A library and the release a paste's title ties the failure to (``when using transformers 4.49.0``), if any: only
    the libraries ``_TITLE_VERSION`` lists, since titles give versions of toolkits, systems and models too (CUDA 12.1,
    Python 3.10, Qwen2.5)."""
    found = _TITLE_VERSION.search(failure.paste[0]) if failure.paste else None
    return (found["library"], found["version"]) if found else None


_TITLE_VERSION = re.compile(
    r"(?<![\w-])(?P<library>transformers|diffusers|accelerate|peft|trl|vllm|sglang|deepspeed|flash[-_]attn|xformers|"
    r"bitsandbytes|torchvision|torchaudio|lightning|pytorch[-_]lightning|tensorrt|onnxruntime|triton|timm|open_clip|"
    r"optimum|torchao|unsloth|mmcv|ultralytics|numpy|sageattention|apex|lmdeploy|llama-factory)"
    r"(?:==| ?v| version | )(?P<version>\d{1,3}\.\d{1,3}(?:\.\d{1,4})?)\b", re.IGNORECASE)
"""A library a version follows in a title (``transformers 4.49.0``, ``vllm==0.6.3``): a release that may be at fault.
torch itself is left out: its release is what the rest of the advice is about."""


def library_calling(failure: Failure) -> str | None:
    """The installed library (``diffusers``, or an app's plugin such as a ComfyUI custom node) whose code made the
    failing call: the innermost frame outside torch, when it lies under site-packages (or the app's plugin folder)
    and not in a test runner or notebook; None when it is the user's code."""
    for frame in reversed(failure.frames):
        if frame.in_torch or not frame.file:
            continue
        found = _INSTALLED.search(frame.file)
        package = (found["package"] or found["plugin"]) if found else None
        if package in _NOT_A_LIBRARY:
            continue
        return package
    return None


def library_linked(failure: Failure) -> str | None:
    """The repository whose source a paste with no frames links at a line
    (``github.com/ray-project/ray/blob/<commit>/rllib/agents/ppo/ppo_torch_policy.py#L118``): a report pointing at a
    library's own code; None when the paste shows frames or links no source line."""
    if failure.frames:
        return None
    found = next(filter(None, map(_SOURCE_LINE.search, failure.paste)), None)
    return found["repo"] if found else None


_SOURCE_LINE = re.compile(
    r"github\.com/[\w.-]+/(?P<repo>[\w.-]+)/blob/[\w.-]+/[^\s)\]>\"']+?\.(?:py|cu|cuh|cpp|h)#L\d+", re.IGNORECASE)


_LOW_PRECISION_WORD = re.compile(
    r"半精度|\.half\(\)|\bprecision[\s=:'\"]{1,3}half\b|"
    r"(?<![A-Za-z0-9])(?:bf16|bfloat16|fp16|f16|float16|half[ -]precision|torch\.half|"
    r"dtype\s*=\s*[\"']half[\"'])(?![A-Za-z0-9])|\b__half\b|\b__nv_bfloat16\b"
    r"|(?<![A-Za-z0-9])(?:Half|BFloat16)(?:Tensor)?(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])(?:fp8|float8)(?:_e4m3fn|_e5m2)?(?![A-Za-z0-9])", re.IGNORECASE,
)
_HALF_IN_PROSE = re.compile(r"^half$")
"""Lowercase ``half`` alone is English (``half of the images``); only ``Half`` as torch prints it is a dtype."""


def low_precision_said(failure: Failure, within: int | None = None) -> tuple[str, ...]:
    """The low-precision dtypes (16-bit or fp8) a paste names nearest its error: on the error line, else in the title
    (the first line), else on the closest line that names one (``bf16 causes Floating point exception``, ``Float16`` in
    a title), no further than ``within`` lines away when given."""
    lines = failure.paste or (failure.message,)
    nearest = (lines[index] for index in _outwards(failure.line, len(lines), within))
    return next(filter(None, map(_failing_first, chain((failure.message, lines[0]), nearest))), ())


def _failing_first(line: str) -> tuple[str, ...]:
    """The low-precision dtypes ``line`` names, those it says work (``works fine with bfloat16 but ... float16``)
    last: the one that fails is what a report is about."""
    names = low_precision_in(line)
    if len(names) < 2:
        return names
    working = {low_precision_name(found["dtype"] or found["dtype2"]) for found in _WORKS_WITH.finditer(line)}
    return tuple(sorted(names, key=lambda name: name in working))


_WORKS_WITH = re.compile(r"\bworks? (?:fine |well |ok |correctly )?(?:with|in|on|using) (?:the )?"
                         r"(?P<dtype>bf16|bfloat16|fp16|float16|half)\b|"
                         r"\b(?P<dtype2>bf16|bfloat16|fp16|float16)\s+works\b", re.IGNORECASE)


def _outwards(centre: int, count: int, within: int | None) -> Iterator[int]:
    """Indices of ``range(count)`` from ``centre`` outwards, no further than ``within``: the nearer first, and of two
    at one distance the earlier (read lazily, so a long log is not sorted for a dtype said on the next line)."""
    for distance in range((count if within is None else within) + 1):
        for index in dict.fromkeys((centre - distance, centre + distance)):
            if 0 <= index < count:
                yield index


_GTX_16XX = re.compile(r"\b(?:GTX|RTX)\s?16[56]0(?:\s?(?:Ti|Super))?\b|\b16[56]0\s?(?:Ti|Super)\b", re.IGNORECASE)
GTX_16XX_NOTE = (
    "; the paste names a GTX 16xx card (1650, 1660: Turing TU116/TU117), which is known to give NaN, black or empty "
    "outputs in fp16 in many apps: run it in fp32 (`--no-half`, `--precision full`, `--fp32`, `half=False`)"
)


def gtx_16xx_named(failure: Failure) -> bool:
    """Whether the paste names an NVIDIA GTX 16xx card (``GTX 1660 Ti``, ``RTX 1660Ti``, ``gtx1650``)."""
    return paste_search(failure, _GTX_16XX) is not None


def low_precision_in(text: str) -> tuple[str, ...]:
    """The low-precision dtypes one line names (``bf16``, ``Float16``, ``.half()``, ``半精度``, ``FP8``), each once, in
    order."""
    words = (found.group(0) for found in _LOW_PRECISION_WORD.finditer(text))
    return tuple(dict.fromkeys(low_precision_name(word) for word in words if not _HALF_IN_PROSE.match(word)))


def low_precision_name(word: str) -> str:
    """The short name of a low-precision dtype word, in any case (``fp8``, ``fp8e4nv`` and ``e4m3fn`` are read as e4m3,
    the fp8 most models store; Triton's ``fp8e5`` is e5m2; ``f16x2`` is fp16)."""
    word = word.lower()
    if "8" in word or "e4m3" in word or "e5m2" in word:
        return "float8_e5m2" if "e5m2" in word or word.startswith("fp8e5") else "float8_e4m3fn"
    return "bf16" if "b" in word else "f16"
