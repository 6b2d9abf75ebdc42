"""The last resort: a line shaped like a dtype error, in a wording no rule knows, answered cautiously.

Every new sample of reports brings wordings no rule was written for: a library's own check, a
backend's, an app's wrapper, a retyped message. Three shapes recur whatever the wording: two
floating dtypes named beside a mismatch (``same dtype``, ``different precisions``, ``expected A
... got B``); a 16-bit dtype named beside a missing kernel or support (``not implemented``, ``not
supported``, ``only supports``); and NaN or inf said to have appeared, said of a loss or a gradient in
prose (``the loss is always nan``, ``a nan loss``, ``nan as train loss``, ``loss一直为nan``), or said to be
what something became (``training goes NaN``, ``getting inf``). Two weaker shapes come from reports whose error
line is not in the paste at all: a mismatch said in words near a 16-bit dtype (``fails due to dtype mismatch``),
and outputs said to be wrong rather than broken (``fail_accuracy``, ``bad results``) in 16-bit. These rules
are tried only after no rule recognised any line of the paste, and they answer with low confidence:
the family is likely, the details are not known. Dtypes are taken only as torch and libraries print them
(``Half``, ``BFloat16``, ``torch.float16``, ``fp16``, SDK enums such as ``FLOAT``), never from lowercase prose
(``half of``).
"""

from __future__ import annotations

import re
from itertools import chain

from castwise.explainer.advice import dtype_list
from castwise.explainer.clues import (
    CRITERION,
    FLOAT32_SAID,
    GTX_16XX_NOTE,
    gtx_16xx_named,
    low_precision_in,
    low_precision_said,
    paste_search,
    shows,
)
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families.integers import class_index_loss, integer_pair, integer_required, target
from castwise.explainer.families.kernels import higher_only, no_float64, no_kernel
from castwise.explainer.families.mixed import in_op_named, mixed_float, norm_param, shown_op
from castwise.explainer.families.nonfinite import (
    appeared,
    broken_output,
    diverged,
    drifted,
    nan_generation,
    nan_loss,
    stalled,
    truncated,
    zero_loss,
)
from castwise.explainer.families.overflow import range_exceeded
from castwise.explainer.rules import Rule, dtypes, explained, rule
from castwise.explainer.spelling import is_floating, is_fp8, is_low_precision, short_dtype

_PRINTED_DTYPE = re.compile(
    r"(?<![\w.])(?:(?:c10|at|torch)::k?|torch\.(?:cuda\.)?|(?:[a-z_]{1,12}\.){1,2}(?=b?float))?(?:Half|BFloat16|"
    r"Float(?:16|32|64)?|Double|Float8_\w{1,12}|float16|bfloat16|float32|float64|fp16|bf16|fp32|FP16|BF16|FP32|"
    r"FLOAT(?:16|32|64)?|HALF|DOUBLE|BFLOAT16|Bfloat16)"
    r"(?:Tensor|Type)?(?![\w])"
)
_WORD_START = r"(?<![A-Za-z0-9])"
_WORD_END = r"(?![A-Za-z0-9])"
"""Word edges for English words inside text of any script (``\\b`` fails between ``loss`` and ``一直为``)."""
_DEVICE = re.compile(r"\b(cpu|cuda|mps|xpu|npu|xla)\b", re.IGNORECASE)


def _printed_dtypes(text: str) -> tuple[str, ...]:
    """The floating dtypes a line names as torch and libraries print them, each once, in order."""
    return tuple(name for name in _first_printed(_PRINTED_DTYPE, text) if is_floating(name))


def _mismatch(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Two floating dtypes printed beside a mismatch; a check that says only ``same dtype`` or ``dtype mismatch`` is
    read as a mismatch said in words."""
    names = _printed_dtypes(failure.message)
    if len(names) < 2:
        said_only = _DTYPE_CHECK.search(found.group(0)) and len(_PRINTED_DTYPE.findall(failure.message)) < 2
        return _mismatch_in_words(found, failure) if said_only else None
    extension = _EXTENSION_OP.search(failure.message)
    if extension and not is_low_precision(names[0]) and is_low_precision(names[1]):
        return higher_only(failure, names[:2], f"`{extension.group(0)}`")
    cause = f"an op (or a library's check before it) got {dtype_list(names)} tensors where it needs one dtype"
    return _in_op_named(failure, names, cause)


_EXTENSION_OP = re.compile(r"(?<![\w.])(?:(?!torch\.)\w+\.)?_C\.\w+")
"""A library's compiled extension op (``_C.rasterize_meshes``), not torch's own ``torch._C``."""


_DTYPE_CHECK = re.compile(r"\bsame (?:scalar |data ?)?d?types?\b|\bd?types? (?:mismatch|do(?:es)? not match)",
                          re.IGNORECASE)
"""A check said of dtypes (``must have the same dtype``, ``dtypes do not match``), not of sizes (``must be equal``)."""


def _device_named(failure: Failure) -> str | None:
    """The device the error line names (``cpu``, ``cuda``, ``mps``, ...), if any."""
    device = _DEVICE.search(failure.message)
    return device.group(1).lower() if device else None


def _missing_support(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A missing kernel or support said beside a 16-bit dtype as torch prints it, or beside fp8 (a word prose uses for
    nothing else)."""
    names = tuple(name for name in _printed_dtypes(failure.message) if is_low_precision(name)) or tuple(
        name for name in low_precision_in(failure.message) if is_fp8(name))
    del found
    return no_kernel(failure, "", names[:1], _device_named(failure), Confidence.LOW) if names else None


def _unsupported_input(found: re.Match[str], failure: Failure) -> Explanation | None:
    """An error that says an op does not support its input's data type without naming it (``Unsupported input data
    type for quantize_to_fp4``): the op has no kernel for the dtype it got (the 16-bit one the paste names, if any)."""
    del found
    if not failure.error_type:
        return None
    return no_kernel(failure, "", low_precision_said(failure)[:1], _device_named(failure), Confidence.LOW)


def _listed_support(found: re.Match[str], failure: Failure) -> Explanation:
    """An op that lists the dtypes it supports (``scatter add only supports float, bfloat16, int, int64 and double``):
    it got another, the 16-bit dtype the paste names when that one is not listed."""
    missing = _unlisted(failure, found["listed"], _listed_names(found["listed"]))
    return no_kernel(failure, "", (missing,) if missing else (), _device_named(failure), Confidence.LOW)


def _accepted_only(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A library's check that an operand's dtype be one of a few (``a_dtype should be float16 or float8``): its kernel
    takes only those; it got another, the low-precision dtype the paste names outside the list when there is one."""
    listed = _listed_names(found["listed"])
    if len(listed) < 2 or not (failure.error_type or _ERROR_NAMED.search(failure.message)):
        return None
    got = _unlisted(failure, found["listed"], listed)
    given = f"got {got}" if got else "got another dtype"
    return explained(
        Kind.NO_KERNEL, failure,
        f"a library's kernel takes `{found['operand']}` only as {' or '.join(listed)} and {given}",
        "a model or input in a dtype the library's kernel was not built for (bf16 or fp32 where it takes fp16 or fp8, "
        "or the reverse): its check refused the operand before the kernel ran",
        f"convert what reaches that call to {' or '.join(listed)} (the model with `.to(...)`, or the input "
        "before the call), or use the library's path for your dtype; update the library if a newer release takes it",
        op=f"a kernel's `{found['operand']}`", names=((got,) if got else ()) + listed, confidence=Confidence.LOW,
    )


_LISTING = re.compile(r"[,/\s]+|\band\b|\bor\b")
_ERROR_NAMED = re.compile(r"\b\w{0,30}Error\(")
"""An error quoted as its constructor call in prose (``TypeError('PreMulSum Data type must be ...')``)."""


def _listed_names(listing: str) -> tuple[str, ...]:
    """The short names of the dtypes an op's ``listing`` gives (``half, float, or double``; ``float16 or float8``), each
    once, in order."""
    words = (word for word in _LISTING.split(listing) if word)
    return tuple(dict.fromkeys(filter(None, (short_dtype(word) or next(iter(low_precision_in(word)), None)
                                             for word in words))))


def _unlisted(failure: Failure, listing: str, listed: tuple[str, ...]) -> str | None:
    """The first low-precision dtype the paste names outside an op's ``listing`` of the dtypes it takes."""
    lines = chain((failure.message.replace(listing, ""),),
                  (line for index, line in enumerate(failure.paste) if index != failure.line))
    return next((name for line in lines for name in low_precision_in(line) if name not in listed), None)


def _kernel_not_found(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A kernel said not to be found (OneFlow's ``OP Kernel Not Found``, ``Cannot find the kernel matching``): a missing
    kernel for the 16-bit dtype the paste names nearest, declined when it names none."""
    del found
    names = low_precision_said(failure)
    return no_kernel(failure, "", names[:1], _device_named(failure), Confidence.LOW) if names else None


def _support_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A missing kernel said in prose with the dtype in lowercase (``dot not being implemented for half``)."""
    name = short_dtype(found["dtype"])
    return None if name is None else no_kernel(failure, "", (name,), _device_named(failure), Confidence.LOW)


def _run_dtype(failure: Failure) -> tuple[str | None, str]:
    """The 16-bit dtype the paste says the run used, and the GTX 16xx note when it names none but names such a card
    (then fp16, that card's known trouble); (None, "") when it names neither."""
    names = low_precision_said(failure)
    card = GTX_16XX_NOTE if not names and gtx_16xx_named(failure) else ""
    return (names[0] if names else "f16" if card else None), card


def _black(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Black (or uniformly gray) images: NaN outputs when the paste names a 16-bit dtype, when numpy said NaN reached
    its cast, or when every output is said to be black (``completely solid black``), which NaN leaves and a wrong model
    does not; when the line only says the outputs came out black (``got black images``), as the likely cause. A black
    image the line merely mentions (``a black image with a white cat``) is not read."""
    dtype, card = _run_dtype(failure)
    sure = "cast" in found.group(0) or bool(_EVERY_OUTPUT.search(failure.message))
    shown = (found["gray"] or found["gray2"] or "black").lower() if "gray" in found.groupdict() else "black"
    if dtype or sure:
        return broken_output(failure, dtype, shown, card)
    if not _OUTCOME.search(failure.message):
        return None
    return broken_output(failure, None, shown, "; the report names no 16-bit dtype, so this is the likely cause "
                         "rather than a certain one (a safety checker that blanks a flagged image also returns black: "
                         "its warning shows in the log)")


_EVERY_OUTPUT = re.compile(r"\b(?:all|every|completely|solid|pure|fully|entirely)\b[^\n.]{0,30}\bblack\b|"
                           r"(?:全为|全是|都是|全部为?)黑色?|全黑", re.I)


def _no_detections(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A detector said to find nothing (``FP16 engine does not detect object``, ``fp16 models return no detections``)
    near a 16-bit dtype it ran in: scores that went NaN or overflowed leave no box past the threshold."""
    dtype = _training_dtype(failure)
    return broken_output(failure, dtype, "with no detections") if dtype else None


def _silent(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Audio said to come out silent (``FP16 results in silence``, ``Completely Silent Audio Output``, 没有声音): what
    NaN samples leave, read when the paste names a 16-bit dtype or a GTX 16xx card, or says the whole output is
    silent."""
    if _NOT_OUTPUT.search(failure.message):
        return None
    dtype, card = _run_dtype(failure)
    if dtype is None and not re.search(r"\b(?:complete|entire|total)(?:ly)?\b", found.group(0), re.IGNORECASE):
        return None
    return broken_output(failure, dtype, "silent", card)


_NOT_OUTPUT = re.compile(r"\b(?:crash\w{0,2}|errors?|fail\w{0,4}|exceptions?|warnings?)\b", re.IGNORECASE)
"""Words that make ``silent`` say how something failed (``the crash is silent``), not what the audio sounds like."""


def _in_title(failure: Failure) -> bool:
    """Whether the line read is a report's title: the first line of a paste that has more below it."""
    return failure.line == 0 and len(failure.paste) > 1


def _nan_in_title(found: re.Match[str], failure: Failure) -> Explanation | None:
    """NaN named in a report's title (``NaN in GPT NeoX model (generation)``, ``Nan When training``): what the report
    is about, read as the likely cause; a title that denies it (``never goes NaN``) or sets a value to it is not."""
    if not _in_title(failure) or _DENIED.search(failure.message):
        return None
    return appeared(found, failure)


_DENIED = re.compile(r"\b(?:no|not|never|without|set|sets|setting|fill\w{0,3}|pad\w{0,4}|replace\w{0,2})\b|n't\b",
                     re.IGNORECASE)


_OUTCOME = re.compile(r"\b(?:got|gets?|getting|generat\w{0,5}|produc\w{0,5}|outputs?|results?|resulting|render\w{0,3}|"
                      r"returns?|goes|went|turns?|turned|became|comes? out|sporadic|eventual|always|sometimes|instead)"
                      r"\b|推理|生成|生产|出来", re.IGNORECASE)
"""Words that say the black image is what a run gave (``got black images``, ``the output is black``), not an image
the line mentions."""


_CALL_STATEMENT = re.compile(r"\s*(?:return\s+|[\w.\[\], ]{1,80}=\s*)?[\w.]{1,80}\(")
"""A line of source code that calls something (``output = self.inner_sample(noise, latent)``), as tracebacks print."""


def _garbage(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Garbage, gibberish or noise said of outputs within three lines of (or in a title) naming a 16-bit dtype; a
    traceback's source line (a sampler called with its ``noise`` argument) says nothing of the outputs."""
    if _CALL_STATEMENT.match(failure.message):
        return None
    names = low_precision_said(failure, within=3)
    return broken_output(failure, names[0], (found["what"] or found["what2"]).lower()) if names else None


def _unknown_tokens(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Generations of only ``<unk>`` within three lines of (or in a title) naming a 16-bit dtype: logits that were NaN,
    decoded to one token."""
    del found
    names = low_precision_said(failure, within=3)
    return broken_output(failure, names[0], "as only <unk> tokens") if names else None


def _drift(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Outputs said to be wrong but not broken (``fail_accuracy``, ``gives bad results``) within three lines of (or in
    a title) naming a 16-bit dtype, or AMP (read as fp16); not when what is wrong is the dtype itself."""
    if _DTYPE_WRONG.search(failure.message):
        return None
    dtype = _training_dtype(failure)
    return drifted(failure, dtype, found.group(0).strip()) if dtype else None


def _tolerance_assert(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A test's numeric check that failed (``AssertionError: db eps: 0.109375``, ``max abs diff: 0.03``) in a paste
    that names a 16-bit dtype anywhere: values that drifted past the test's tolerance."""
    if "AssertionError" not in (failure.error_type or found.group(0)):
        return None
    dtype = _training_dtype(failure, within=None)
    return drifted(failure, dtype, found.group(0).strip()) if dtype else None


def _stall(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Training said not to progress (``the loss doesn't decrease``, ``WER stays at 100``) near a training dtype."""
    dtype = _training_dtype(failure)
    return stalled(failure, dtype, found.group(0).strip()) if dtype else None


def _zero_loss(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A training loss said to be exactly 0 in a paste that names a 16-bit dtype anywhere (a ``--fp16`` flag in the
    command counts), or AMP near it."""
    dtype = _training_dtype(failure, within=None)
    return zero_loss(failure, dtype, found.group(0).strip()) if dtype else None


def _diverge(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Training said to blow up (``the loss becomes very large``, ``exploding gradients``) near a training dtype."""
    dtype = _training_dtype(failure)
    return diverged(failure, dtype, found.group(0).strip()) if dtype else None


_AMP_SAID = re.compile(r"\b(?:amp|mixed[ -]precision)\b", re.IGNORECASE)


def _training_dtype(failure: Failure, within: int | None = 3) -> str | None:
    """The 16-bit dtype named within ``within`` lines of (or in a title) a symptom, anywhere in the paste when None;
    fp16 when only mixed precision (AMP) is named on the symptom's line or in the title; None when neither is."""
    names = low_precision_said(failure, within=within)
    if names:
        return names[0]
    return "f16" if any(map(_AMP_SAID.search, (failure.message, *failure.paste[:1]))) else None


def _truncate(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Values said to be cast silently to a narrower dtype (``silently truncates atom_pos to float32``)."""
    dtype = short_dtype(found["dtype"])
    return truncated(failure, dtype, found.group(0).strip()) if dtype else None


def _saved_in_fp32(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A model said to be saved, merged or reported in fp32 (``Merge-lora saves the file as fp32``, ``reported as
    torch_dtype Float32``): weights that were fp32 when written, whatever the base model's dtype; not master weights or
    optimizer states, which are fp32 by design."""
    del found
    if not _MODEL_SAVED.search(failure.message) or _KEPT_IN_FP32.search(failure.message):
        return None
    names = ("f32", *low_precision_said(failure)[:1])
    return explained(
        Kind.SCALAR_TYPE, failure,
        "the saved model is in fp32 (twice the size of a 16-bit one): `save_pretrained` and merges write the dtype the "
        "weights hold when saved, and they were fp32",
        "a base model loaded without `torch_dtype` (transformers' default is fp32) before merging or saving, or a "
        "merge that upcasts the adapter's base weights and does not cast them back",
        "load the base model in its own dtype (`torch_dtype=torch.bfloat16` or `'auto'`) before merging, or convert "
        "before saving (`model.to(torch.bfloat16).save_pretrained(path)`); if a tool's merge upcasts, update it",
        op="saving a model", names=names, confidence=Confidence.LOW,
    )


_MODEL_SAVED = re.compile(r"\b(?:models?|merg\w{0,3}|files?|checkpoints?|lora|adapters?|safetensors)\b", re.IGNORECASE)
_KEPT_IN_FP32 = re.compile(r"\b(?:master|optimi[sz]er)", re.IGNORECASE)


def _metric(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A metric logged as NaN or inf (``actor/grad_norm:nan``, ``'grad_norm': nan``) in a paste that names a 16-bit
    dtype or a GTX 16xx card (fp16's known trouble there)."""
    if low_precision_said(failure):
        return appeared(found, failure)
    return appeared(found, failure, GTX_16XX_NOTE) if gtx_16xx_named(failure) else None


def _exclamations(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Generations of only ``!``: NaN logits, in the 16-bit dtype the paste names; when it names none, only a run of
    ``!`` that follows no word (``Hello!!!!`` is text) in a paste that does not say the run was fp32."""
    names = low_precision_said(failure)
    if names:
        return nan_generation(failure, names[0])
    if not _BARE_BANGS.search(found.group(0)) or paste_search(failure, FLOAT32_SAID):
        return None
    return nan_generation(failure, None)


_BARE_BANGS = re.compile(r"(?<![\w!])(?:!\s?){4}|exclamation|感叹号|\b(?:series|lines?|strings?|bunch|lots|full) of")


def _range_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Values said in prose to pass a 16-bit dtype's range (``beyond the max num of fp16``), or outputs all zero
    after a conversion to fp16."""
    said = next((found[group] for group in ("dtype", "dtype2", "dtype3") if found.groupdict().get(group)), "f16")
    return range_exceeded(failure, short_dtype(said) or "f16")


_PROSE_DTYPE = r"(?:torch\.)?(?:half|fp16|float16|bfloat16|bfloat|bf16|float32|float|fp32|double|float64)"
"""A floating dtype as people write it in prose (``wants half``, ``float expected but received half``)."""


def _said_mismatch(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Two floating dtypes said in prose to have met: one expected (``a``) and another received (``b``)."""
    names = tuple(dict.fromkeys(dtypes(found, "a", "b")))
    if len(names) < 2:
        return None
    linear = _LINEAR_SAID.search(failure.message)
    return mixed_float(
        Kind.MATMUL if linear else Kind.SCALAR_TYPE, failure, names, "a linear layer (matmul)" if linear else "an op",
        f"{'a linear layer' if linear else 'an op (or a library check)'} expected {names[0]} and got {names[1]}, as "
        "the report says", confidence=Confidence.LOW,
    )


_LINEAR_SAID = re.compile(r"\b(?:linear|matmul|addmm|mm)\b", re.IGNORECASE)
"""A linear layer or a matrix multiply named in the prose that says two dtypes met."""


def _pair_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Two floating dtypes said in prose to mismatch, neither named as the one expected (``float/bfloat16 mismatch
    errors``)."""
    names = tuple(dict.fromkeys(dtypes(found, "a", "b")))
    if len(names) < 2:
        return None
    return mixed_float(
        Kind.SCALAR_TYPE, failure, names, "an op",
        f"the report says {names[0]} and {names[1]} tensors met in one op (`{found.group(0).strip()}`); its error line "
        "is not in the paste",
        confidence=Confidence.LOW,
    )


_DTYPE_WRONG = re.compile(r"\b(?:d|data ?)types? (?:of|for) (?:the )?[\w.()]{1,30} (?:outputs? |results? |tensors? )?"
                          r"(?:is|are|was|were) (?:wrong|incorrect)\b|"
                          r"\b(?:returns?|returned|gives?|outputs?) (?:an? |the )?(?:wrong|incorrect) "
                          r"(?:d|data ?)types?\b",
                          re.IGNORECASE)
"""A result said to come out in the wrong dtype (``the dtype for randn output is wrong``), not with wrong values."""

_RESULT_LINES = 24
"""Lines after the sentence a wrong result dtype is said in that are read for the dtypes it prints."""


def _wrong_result_dtype(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A result said to come out in another dtype than asked for, with the two floating dtypes the paste prints after
    it (``Expected: torch.bfloat16`` / ``Output: torch.float32``); declined unless two are printed."""
    del found
    after = failure.paste[failure.line:failure.line + _RESULT_LINES] or (failure.message,)
    names = tuple(dict.fromkeys(name for line in after for name in _printed_dtypes(line)))
    if len(names) < 2:
        return None
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"a result comes out in another dtype than the code asks for ({dtype_list(names[:2])} are named): an op "
        "returned the default or a promoted dtype instead of the one requested",
        "torch.compile, autocast or `torch.set_default_dtype` changing what a factory function (`randn`, `zeros`, "
        "`arange`) or a reduction returns, so an explicit `dtype=` or the input's dtype is not kept",
        "cast the result where its dtype matters (`.to(torch.bfloat16)`); if eager and compiled code differ, it is a "
        "torch.compile bug: report it, and meanwhile run that function eagerly (`torch.compiler.disable`)",
        op="an op's result", names=names[:2], confidence=Confidence.LOW,
    )


def _mismatch_in_words(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A dtype mismatch said in words (``inference fails due to dtype mismatch``, ``bf16/float RuntimeError - dtype
    incompatibility``, ``精度不一致``) on a line that names a floating dtype, or within three lines of (or in a title)
    naming a 16-bit one: the op the frames show, else any op."""
    del found
    printed = _printed_dtypes(failure.message)
    near = None if failure.error_type else 3
    said = () if any(map(is_low_precision, printed)) else low_precision_said(failure, within=near)
    names = tuple(dict.fromkeys(said + printed))
    norm = paste_search(failure, _NORM_SAID)
    if not names and norm and _NORM_PARAMETERS.search(failure.message):
        return norm_param(failure, (), norm.group(0), confidence=Confidence.LOW)
    if not names:
        return None
    unnamed = (f"a check refused tensors of two dtypes without naming them ({dtype_list(names)} named nearest)"
               if failure.error_type else f"the report says tensors of two dtypes ({dtype_list(names)} among them) "
               "met in one op; its error line is not in the paste")
    shown = shown_op(failure, names)
    return shown.less_sure(unnamed) if shown is not None else _in_op_named(failure, names, unnamed)


_NORM_SAID = re.compile(r"layer_?norm|group_?norm|batch_?norm|rms_?norm", re.IGNORECASE)
_NORM_PARAMETERS = re.compile(r"(?<![A-Za-z])(?:gamma|beta|weight|bias)(?![A-Za-z])", re.IGNORECASE)
"""A norm's parameters named on a line that says a mismatch (``inputs和gamma、beta的类型不一致``)."""


def _roles_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Prose that gives an op's input, weight and bias their dtypes (``the data types of input, weight, and bias are
    fp32, fp16, and fp16``): a norm's parameters and input apart when the paste names a norm, else two dtypes met."""
    names = tuple(dict.fromkeys(dtypes(found, "a", "b", "c")))
    if len(names) < 2:
        return None
    norm = paste_search(failure, _NORM_SAID)
    if norm:
        return norm_param(failure, names, norm.group(0), confidence=Confidence.LOW)
    return _pair_said(found, failure)


def _in_op_named(failure: Failure, names: tuple[str, ...], cause: str) -> Explanation:
    """Two dtypes met in the op the line names in words (``in matrix multiplication``), else in some op."""
    return in_op_named(failure, names, cause) or mixed_float(Kind.SCALAR_TYPE, failure, names, "an op", cause,
                                                             confidence=Confidence.LOW)


def _overflow_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """An overflow said in prose on a line that names a 16-bit dtype (``fp16 inputs, otherwise overflow happens``)."""
    del found
    names = low_precision_in(failure.message)
    return range_exceeded(failure, names[0]) if names else None


def _cpu_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A 16-bit run said to fail on the CPU (``half precision xlmr error when model on cpu``)."""
    del found
    names = low_precision_in(failure.message)
    return no_kernel(failure, "", names[:1], "cpu", Confidence.LOW) if names else None


def _float64_on_mps(found: re.Match[str], failure: Failure) -> Explanation:
    del found
    return no_float64(failure, "mps", Confidence.LOW)


_SIXTEEN_BIT = r"(?:fp16|float16|half(?:[ -]precision)?|bf16|bfloat16|amp|mixed[ -]precision|autocast)(?:_[a-z]{1,10})?"
"""A 16-bit dtype or the mode that brings it, as people write it in prose."""

_PRINTED_INTEGER = re.compile(
    r"(?<![\w.])(?<!tensor\()(?:torch\.(?:cuda\.)?)?(?:u?int(?:8|16|32|64)|U?INT(?:8|16|32|64)|(?<=torch\.)(?:long|int|short)|"
    r"(?:Long|Int|Short)(?:Tensor)?)(?![\w])"
)
"""An integer dtype as torch and libraries print it (``int32``, ``torch.long``, ``Long``, ``INT64``); lowercase
``long``/``int`` only after ``torch.``, never from prose; not ONNX's ``tensor(int64)``, a graph's type check."""
_INDEX_NAMED = re.compile(r"\b(?:\w{0,12}_)?(?:ind(?:ex|ices|ptr)|edge[ _]index|offsets?|ids|rowptr|col|crow|"
                          r"seqlens?|positions?|labels?|targets?)\b", re.IGNORECASE)
_INDEX_CHECK = "the op (or a library's check before it) that takes this tensor"


def _integer_widths(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Two index widths printed beside a mismatch and no floating dtype (``expected int64, found int32``): ids or
    offsets of one width meeting another, or an int32 class target in a loss; an integer then a floating dtype beside
    an index's name (``expected 'edge_index' to be of type 'torch.long' (got 'torch.float32')``): an index built as
    floats. A list of the widths accepted (``Long, Int``) is no mismatch."""
    del found
    float_spans = {name: span for name, span in _first_printed(_PRINTED_DTYPE, failure.message).items()
                   if is_floating(name)}
    integer_spans = _first_printed(_PRINTED_INTEGER, failure.message)
    floats = tuple(float_spans)
    printed = {name: span for name, span in integer_spans.items() if name in _WIDTHS}
    names = tuple(printed)
    index_named = _INDEX_NAMED.search(failure.message)
    if len(names) == 1 and len(floats) == 1 and index_named and _said_first(integer_spans, float_spans):
        return integer_required(failure, (names[0], floats[0]), None, confident=False)
    if len(names) < 2 or floats or _LISTED.fullmatch(failure.message[printed[names[0]][1]:printed[names[1]][0]]):
        return None
    if "int64" in names[:2] and (class_index_loss(failure) or shows(failure, CRITERION, everywhere=True)):
        explanation = target(failure, tuple(name for name in names[:2] if name != "int64"), wants_float=False)
    else:
        explanation = integer_pair(Kind.INDEX_TENSOR, failure, names[:2], _INDEX_CHECK)
    return explanation.less_sure("read from a check in a wording castwise does not know: which tensor holds the odd "
                                 "width is a guess")


_WIDTHS = ("int16", "int32", "int64")
_LISTED = re.compile(r"\s*(?:,|/|\||or)\s*")
"""What joins the dtypes of a list of those accepted (``Long, Int``; ``int32 or int64``)."""


def _first_printed(pattern: re.Pattern[str], message: str) -> dict[str, tuple[int, int]]:
    """Each dtype ``pattern`` finds printed in ``message``, with the span of its first spelling, in order."""
    spans: dict[str, tuple[int, int]] = {}
    for word in pattern.finditer(message):
        name = short_dtype(word.group(0))
        if name:
            spans.setdefault(name, word.span())
    return spans


def _said_first(first: dict[str, tuple[int, int]], then: dict[str, tuple[int, int]]) -> bool:
    """Whether a dtype of ``first`` is printed before any of ``then`` (spans as ``_first_printed`` gives them): the
    dtype wanted is said first."""
    return bool(first and then) and min(first.values())[0] < min(then.values())[0]


_VERSUS = r"(?:Half|BFloat16|Float|Double|float16|bfloat16|float32)"
"""A dtype on either side of ``(Half vs. Float)``, as a title or a prose line sets two against each other."""

_MISMATCH_WORD = r"(?:mismatch\w{0,3}|incompatib\w{1,6}|conflicts?)"
_MISMATCH_SAID = (r"\bmismatch\w{0,3} (?:d|data |tensor )?types?\b|\btype mismatch\w{0,3}\b|"
                  r"(?:精度|类型|dtype)\s*(?:不一致|不匹配)|\bhas_different_input_dtypes\b|"
                  r"\.(?:dtype|scalar_type)\(\) == \w{1,20}\.(?:dtype|scalar_type)\(\)")
"""A dtype mismatch said in words: ``dtype mismatch``, ``mismatched dtypes``, ``精度不一致``, an equality check."""

MISMATCH: tuple[Rule, ...] = (
    rule(r"\b(?:expect(?:ed|s)?|got|found|but|mismatch\w{0,3}|must|requires?|same|match(?:es)?|vs\.?|!=)\b",
         _integer_widths),
    rule(rf"\bmismatch\w{{0,3}} between (?:the )?(?:types? )?[`'\"]?(?:c10::)?(?P<a>{_PROSE_DTYPE})[`'\"]? and "
         rf"(?:the )?[`'\"]?(?:c10::)?(?P<b>{_PROSE_DTYPE})[`'\"]?(?![\w.])", _pair_said),
    rule(r"\bsame (?:scalar |data ?)?d?types?\b|\bd?types? (?:mismatch|do(?:es)? not match)|"
         r"\bmixed (?:precision|dtypes?) (?:is )?(?:not|disallowed)|(?<!\bwith )\bdifferent precisions?\b|"
         r"\bexpected\b[^\n]{0,80}?\b(?:got|found)\b|\bexpect(?:ed)? scalar type \w{1,20} but\b|"
         r"\bmust be (?:equal|the same)\b|\bd?types?\b[^\n]{0,80}?\bare not (?:equal|the same)\b|"
         r"\b(?:to|must) match\b|\bmust (?:have|be of) the type\b|"
         r"\b(?:has|is of) (?:d|scalar |data ?)?type \w{1,20},? but\b[^\n]{0,40}?"
         r"\b(?:has|is of) (?:d|scalar |data ?)?type\b|"
         rf"\({_VERSUS} vs\.? {_VERSUS}\)", _mismatch),
    rule(rf"\b(?P<a>{_PROSE_DTYPE}) (?:is )?expected,? but (?:received|got|found|gets) (?P<b>{_PROSE_DTYPE})\b",
         _said_mismatch),
    rule(rf"\bmismatch\w{{0,4}} dtypes?\b[^\n]{{0,80}}?\bgot (?P<a>{_PROSE_DTYPE}) and (?P<b>{_PROSE_DTYPE})\b",
         _said_mismatch),
    rule(rf"\b(?P<a>{_PROSE_DTYPE})\s?/\s?(?P<b>{_PROSE_DTYPE}) mismatch\w{{0,3}}\b", _pair_said),
    rule(rf"\b(?:d|data ?)types? of (?:the )?input,? weights?,? and bias(?:es)? (?:are|were) (?P<a>{_PROSE_DTYPE}), "
         rf"(?P<b>{_PROSE_DTYPE}),? and (?P<c>{_PROSE_DTYPE})\b", _roles_said),
    rule(_DTYPE_WRONG.pattern, _wrong_result_dtype),
    rule(r"(?:Error|Exception):?\s+(?:torch\.)?(?:cuda\.)?(?P<a>(?:Double|Float|Half|BFloat16)Tensor)\W{1,5}"
         r"(?:torch\.)?(?:cuda\.)?(?P<b>(?:Double|Float|Half|BFloat16)Tensor)\s*$", _pair_said),
    rule(rf"(?:doesn't|does not|don't|do not) want (?P<b>{_PROSE_DTYPE})\b[^\n.]{{0,20}}?\bwants? "
         rf"(?P<a>{_PROSE_DTYPE})\b", _said_mismatch),
    rule(rf"\bwrong \(?(?P<b>{_PROSE_DTYPE})\)? (?:dtype |tensors? )?instead of (?:a )?(?P<a>{_PROSE_DTYPE})\b",
         _said_mismatch),
    rule(rf"\b(?:weights?|parameters?|params|inputs?|outputs?|activations?|features?|tensors?)\b[^\n.,]{{0,20}}? "
         rf"(?:is|are|was|were|becomes?|became) (?:in |all )?(?P<a>{_PROSE_DTYPE})(?: dtype)?,? "
         rf"(?:but|however|while|whereas)\b[^\n.]{{0,60}}?\b(?:weights?|parameters?|params|inputs?|"
         rf"outputs?|activations?|features?|tensors?|bias(?:es)?) (?:is|are) (?:in |all\s+)?(?P<b>{_PROSE_DTYPE})\b",
         _said_mismatch),
    rule(rf"\b(?:d|data |tensor )types? (?:errors?|{_MISMATCH_WORD})\b|{_MISMATCH_SAID}", _mismatch_in_words),
)
"""Two floating dtypes named beside a mismatch, or a mismatch said in words near a 16-bit dtype."""


def _unnamed_mismatch(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A dtype mismatch said in words with no dtype named near it (``Dtype mismatch in ResNet50_Backbone``): two
    dtypes met in the op the frames or the words show, said with low confidence; tried after every other shape."""
    if _INTEGER_WORD.search(failure.message):
        return None
    cause = "the report says tensors of two dtypes met in one op, without naming them"
    shown = shown_op(failure, ())
    return shown.less_sure(cause) if shown is not None else _in_op_named(failure, (), cause)


UNNAMED: tuple[Rule, ...] = (
    rule(rf"\b(?:d|data |tensor )types? {_MISMATCH_WORD}\b|\bmismatch\w{{0,3}} (?:d|data |tensor )types?\b|"
         r"(?:精度|类型|dtype)\s*(?:不一致|不匹配)", _unnamed_mismatch),
)
"""A dtype mismatch said in words (not a bare ``type mismatch``, which any Python type may be) with no dtype named:
the last shape tried."""
_INTEGER_WORD = re.compile(r"\b(?:u?int(?:8|16|32|64)|long|bool|byte|labels?|targets?|ids|indices)\b", re.IGNORECASE)
"""Integer dtypes, or the tensors that hold them, named beside a mismatch: not two floating dtypes meeting."""

SYMPTOMS: tuple[Rule, ...] = (
    rule(r"\bsilently (?:truncat|downcast|cast|convert|round)\w{0,3}\b[^\n]{0,80}?\bto (?P<dtype>float32|fp32|float16|"
         r"fp16|bfloat16|bf16)\b", _truncate),
    rule(r"\b(?<!\bno )(?<!\bnot )(?<!\bwithout )(?P<value>NaNs?|inf)\b[^\n]{0,60}?\b(?:was |were |is |are |been )?"
         r"(?:produced|found|detected|encountered|appear(?:s|ed|ing)?|aris(?:e|es|en|ed|ing)|arose|occurr?(?:s|ed|ing)?)\b",
         appeared),
    rule(rf"{_WORD_START}(?:loss(?:es)?|loses){_WORD_END}(?!_scal)[^\n.;]{{0,40}}?{_WORD_START}(?<!\bno )(?<!\bnot )"
         rf"(?P<value>nan|inf(?:inity)?)s?{_WORD_END}", nan_loss),
    rule(rf"{_WORD_START}(?<!\bno )(?<!\bnot )(?<!\bwithout )(?P<value>nan|inf)s?[`'\"*]?\s+"
         rf"(?:loss(?:es)?|errors?|gradients?|grads?){_WORD_END}", appeared),
    rule(rf"{_WORD_START}grad(?:ient)?s?\s+(?P<value>nan|inf){_WORD_END}", appeared),
    rule(rf"\b(?:show(?:s|ed|ing)? up|come(?:s)? out|turn(?:s|ed)? out|end(?:s|ed)? up) as (?:all )?"
         rf"(?P<value>nan|inf){_WORD_END}", appeared),
    rule(rf"{_WORD_START}(?<!\bno )(?<!\bnot )(?<!\bwithout )(?P<value>nan|inf)s?{_WORD_END}[^\n.;]{{0,30}}?"
         rf"\b(?:when|with|in|under|using|for|on)\s+(?:the\s+)?(?:[\w,]{{1,20}}\s+){{0,2}}?{_SIXTEEN_BIT}\b", appeared),
    rule(rf"\b{_SIXTEEN_BIT}\b[^\n.;]{{0,40}}?\b(?:gives?|giving|produces?|producing|outputs?|returns?|results? in|"
         rf"causes?|leads? to|yields?|generates?|generating)\s+(?:all\s+)?(?P<value>nan|inf|non-?finite)s?{_WORD_END}",
         appeared),
    rule(r"\bInput contains (?P<value>NaN|infinity)\b", appeared),
    rule(r"\b(?:in|is|are|was|were|be|becomes?|became|just|only|pure|(?:complete|entire|total)(?:ly)?)\s+silen(?:ce|t)\b|"
         r"\bsilent (?:audio|outputs?|wavs?|files?|results?|speech)\b|\bsound of silence\b|\bit'?s silent\b|"
         r"\b(?:has|have|with|produces?|gives?) no (?:sound|audio)\b|没有?声音|静音|无声",
         _silent),
    rule(r"\b(?:do(?:es)?n'?t|does not|do not|cannot|can'?t) detect\b|\bno (?:objects? )?(?:detections?|boxes)\b|"
         r"\bno objects? (?:is |are |were |was )?detected\b|\b(?:0|zero) (?:detections?|detects|boxes)\b",
         _no_detections),
    rule(r"(?:\btensor\(|^)\s{0,8}\[{1,4}\s{0,4}(?P<value>nan|inf)(?:,\s{0,12}(?:nan|-?inf|\.\.\.)){2,}", appeared),
    rule(r"\b(?<!\bnot )(?<!n't )contains? (?:a |some )?(?P<value>NaNs?|infs?|NaN/inf|inf/NaN)(?![A-Za-z])", appeared),
    rule(r"\b(?:encountered|found|detected) (?:an? )?(?P<value>nan|inf)s?(?: values?)? (?:in (?:the )?\w|while\b)",
         appeared),
    rule(r"\b(?<!\bno )(?<!\bnot )(?P<value>nan|inf)s? (?:outputs?|problems?|issues?)\b", appeared),
    rule(r"\b(?<!\bno )(?<!\bnot )(?P<value>nan|inf)s? (?:in|from|for) (?:the )?(?:[\w-]{1,20} ){0,3}"
         r"(?:outputs?|logits|activations|predictions?|latents?|results?)\b", appeared),
    rule(r"\binvalid value encountered in cast\b", _black),
    rule(r"\b(?:outputs?|results?|images?|text|generat\w{0,5}|produc\w{0,5}|gives?|returns?)\b[^\n]{0,30}?"
         r"\b(?P<what>garbage|gibberish|garbled|nonsense|noise|noisy|artifacts?|corrupt(?:ed|ion))\b|"
         r"\b(?P<what2>garbage|gibberish|garbled|broken|"
         r"nonsense|noisy)\s+(?:outputs?|text|images?|results?)\b", _garbage),
    rule(r"\b(?:generated|generates|output|outputs|response|responses|answer|text|content)\b[^\n]{0,30}?(?:!\s?){4}|"
         r"\bexclamation marks\b|(?:全是|都是|全为|一行|一串|一堆)感叹号|"
         r"(?:结果|输出|回复|回答|生成)[^\n]{0,12}?(?:!\s?){4}|"
         r"\b(?:series|lines?|strings?|bunch|lots|full) of ['\"`]?!{3,}", _exclamations),
    rule(r"(?:<unk>\s?){4}", _unknown_tokens),
    rule(r"黑图|黑屏|(?:全为|全是|都是)黑色|\b(?:completely|entirely|fully|solid|pure) black\b|"
         r"\bblack (?:images?|outputs?|frames?|videos?|results?|pictures?|pics|screens?|pixels?|squares?|blocks?|"
         r"patch(?:es)?)\b|"
         r"\b(?:images?|outputs?|results?|samples?) (?:are|is|come out|comes out|turns?|became) (?:all |just "
         r"|completely |pure )?(?:solid )?(?:black\b|(?P<gray>gr[ae]y)\b)|\b(?P<gray2>gr[ae]y) (?:images?|outputs?|"
         r"pictures?)\b|\b(?:returns?|generates?|produces?) (?:only |all |just |pure )?black\b|"
         r"\b(?:will|would) (?:always )?be (?:all |completely )?black\b", _black),
    rule(rf"{_WORD_START}(?<!\bno )(?<!\bnot )(?P<value>nan|inf)s?\s+(?:values?\s+)?(?:as|for|in|on)\s+"
         rf"(?:the\s+|my\s+)?(?:\w{{1,20}}\s+)?loss(?:es)?{_WORD_END}", nan_loss),
    rule(rf"{_WORD_START}(?<!n't )(?<!\bnot )(?<!\bnever )(?:go(?:es|ing|ne)?|went|turn(?:s|ed|ing)?|"
         rf"bec(?:ome|omes|ame|oming)|get(?:s|ting)?|got|receiv(?:e|es|ed|ing)|jump(?:s|ed)?|explod(?:e|es|ed)|"
         rf"return(?:s|ing|ed)?|"
         rf"output(?:s|ting)?|produc(?:e|es|ed|ing)|emit(?:s|ted|ting)?|giv(?:e|es|ing)|gave|yield(?:s|ing|ed)?|generat(?:e|es|ed|ing)|"
         rf"filled with|overflow(?:s|ed|ing)? to|result(?:s|ed|ing)? in)\s+(?:to\s+(?:be\s+)?|as\s+)?"
         rf"(?:all\s+|some\s+)?[`'\"]?-?"
         rf"(?P<value>nan|inf|non-?finite)s?{_WORD_END}", appeared),
    rule(r"\b(?:is|are|was|were|being|been|gets?|got) set to (?P<value>nan)\b", appeared),
    rule(r"\b(?:training|model|run|it)\b(?:\s+(?!no\b|not\b|without\b|never\b)\w+)?\s+(?P<value>nan)'?s\b", appeared),
    rule(r"(?<![\w.])[A-Za-z_][\w/.]{1,40}['\"]?\s?[:=]\s?(?P<value>nan|inf)(?![\w.])", _metric),
    rule(r"\b(?:results?|images?|outputs?|latents?|values?|tensors?|predictions?|logits|weights|gradients?|metrics?)\b"
         r"[^\n.]{0,20}?\b(?:is|are|was|were|becomes?|became)\s+(?:all\s+)?[\"'`]?(?P<value>nan|inf)s?(?![A-Za-z0-9])",
         appeared),
    rule(r"(?:变成了?|变为|出现了?|都是|全是|全为|总是|一直(?:是|为)?|返回|得到|生成|产生|(?:输出|梯度|损失)(?:为|是|变成)?)\s*"
         r"(?P<value>nan|inf)(?![A-Za-z])", appeared),
    rule(r"\b(?:beyond|exceeds?|exceed(?:ed|ing)|larger than|greater than|bigger than|out of|outside|over)\s+"
         r"(?:the\s+)?(?:max(?:imum)?|range|largest)\b[^\n]{0,30}?\b(?P<dtype>fp16|float16|half|bf16|bfloat16)\b|"
         r"\b(?P<dtype2>fp16|float16|half)(?:[ -]precision)? overflows?\b|\boverflows? (?:in|with|under) "
         r"(?P<dtype3>fp16|float16|half)\b", _range_said),
    rule(r"(?<!\bno )(?<!\bnot )(?<!\bwithout )(?<![A-Za-z])overflow(?:s|ed|ing)?(?![A-Za-z])|溢出", _overflow_said),
    rule(r"(?:\.half\(\)|\b(?:fp16|float16|half[ -]precision))[^\n]{0,30}?(?:outputs?|results?|predictions?|输出)"
         r"[^\n]{0,12}?(?:\ball |\bare all |\bbecomes? |都成|全是|全为|全部为)\s*(?P<zero>0|zeros?)(?![A-Za-z0-9.])",
         _range_said),
    rule(r"\b(?:fail_accuracy\b|accuracy (?:check )?fail\w{0,3}\b|accuracy (?:drops?|degrad\w{0,6})\b|"
         r"accuracy (?:of [\w -]{1,40} )?(?:has |have )?(?:deteriorat\w{1,5}|dropped|decreased|degraded)\b|"
         r"spurious ties\b|collapse (?:in)?to identical (?:values|scores)\b|"
         r"(?:bad|poor|wrong|incorrect|inaccurate|degraded) "
         r"(?:results?|outputs?|accuracy|predictions?|values|answers?)\b(?! (?:scalar )?d?types?\b)|"
         r"(?:do(?:es)?n'?t|do(?:es)? not|never) (?:return|give|produce) (?:the )?(?:correct|right|expected) "
         r"(?:answers?|results?|outputs?|values)\b|"
         r"different (?:[\w-]{1,20} )?(?:outputs?|results?|predictions?) (?:with|under|in|than|from|for|between|"
         r"when)\b|(?:outputs?|results?|gradients?|grads?) mismatch(?:es)? between\b|"
         r"(?:causes?|caused|gives?|produces?|gets?) different (?:[\w-]{1,20} )?(?:outputs?|results?|predictions?)\b|"
         r"less (?:accurate|precise)\b|(?:weird|strange|odd|uncertain) (?:results?|outputs?|predictions?)\b|"
         r"\b(?:changes|changed|alters|altered) (?:the )?(?:model(?:'s)? )?(?:outputs?|results?|predictions?)\b|"
         r"\b(?:results?|outputs?|predictions?) (?:is|are|becomes?|became) (?:totally |completely |entirely |just )?"
         r"(?:incorrect|wrong|inaccurate)\b|\b(?:results?|outputs?|predictions?)\b[^\n.]{0,25}?\b(?:were|was|are|is) "
         r"(?:still )?(?:rather |very |quite |really )?(?:odd|weird|strange)\b|"
         r"inconsisten(?:t|cy|cies) (?:results?|outputs?|when|between|in)\b|accuracy errors?\b|"
         r"(?:outputs?|results?) (?:is|are) empty\b|no results? (?:is |are )?(?:generated|produced|returned)\b|"
         r"accuracy\b[^\n.]{0,40}?\bis (?:zero|0(?:\.0)?)\b|"
         r"(?:large|big|huge|significant) (?:numeric(?:al)? )?(?:numeric(?:al)?|precision|relative) errors?\b|"
         r"imprecision\b|"
         r"(?:precision|accuracy) (?:loss|issues?|problems?)\b|parity (?:issues?|problems?|failures?)\b|"
         r"(?:outputs?|results?|predictions?) (?:are|is) (?:\w+ )?different\b|"
         r"(?:disparit(?:y|ies)|differences?) (?:between|in) (?:the )?(?:outputs?|results?|predictions?)\b|"
         r"(?:significant|large|big|huge) differences?\b|allclose\b[^\n]{0,30}?\b(?:returns?|returned|is|gives?) "
         r"False\b|numeric(?:al)? (?:divergences?|differences?|mismatch(?:es)?|discrepanc(?:y|ies))\b|"
         r"(?:large|big|huge|significant) [`'\"]?(?:bf16|bfloat16|fp16|float16)[`'\"]? errors?\b|"
         r"(?:loss of|los(?:e|es|ing|t)) (?:accuracy|precision)\b|accuracy (?:is )?(?:misaligned|differs?)\b|"
         r"FAILED \| Output\b|(?:not|isn't) within (?:the )?tolerance\b|"
         r"(?:outputs?|results?) (?:is|are) (?:wrong|incorrect|inaccurate)\b|accuracy (?:is )?(?:much |significantly "
         r"|far |a lot )?(?:worse|lower)\b|lost (?:a lot of|much|some) accuracy\b|"
         r"(?:Tensor-likes|Scalars) are not close\b)|"
         r"结果(?:差距|差异)(?:较大|很大)|结果不一致|精度(?:下降|损失)", _drift),
    rule(r"(?:AssertionError:?\s{0,4}|^)(?:\w{1,20}\s{1,4})?"
         r"(?:eps|max(?:imum)?[ _]?(?:abs(?:olute)?[ _]?)?(?:err(?:or)?|diff(?:erence)?)|"
         r"abs(?:olute)?[ _]?(?:err(?:or)?|diff(?:erence)?))\s*[:=]\s*[-+]?\d[\d.e+-]*", _tolerance_assert),
    rule(r"\bloss(?:es)?\b[^\n.]{0,20}?\b(?:is|are|was|were|becomes?|became|goes to|went to|stays? at)\s+"
         r"(?:always\s+|all\s+)?0(?:\.0+)?(?![\d.])|"
         r"loss\s*值?\s*(?:全|一直|都|就|总是|会)?\s*(?:为|是|变成|等于|降为|变为)\s*0(?![\d.])|"
         r"loss\s*值?\s*(?:就|直接|都|全)\s*0\s*了|"
         r"\b(?:caus\w{1,3}|gets?|got|getting|reach\w{0,3}) (?:a |the )?loss (?:of )?0(?:\.0+)?(?![\d.])",
         _zero_loss),
    rule(r"\b(?:loss|wer|cer|accuracy|metrics?|mAP)\b[^\n.]{0,30}?\b(?:does(?:n'?t| not|'t)|do(?:n'?t| not)|not|never|"
         r"won'?t|stopped|stops)\s+(?:\w+\s+)?(?:decreas\w*|go(?:es|ing)? down|converg\w*|improv\w*)\b|"
         r"\b(?:don'?t|do not|didn'?t) see any (?:decrease|improvement)\b|"
         r"\b(?:much |significantly |far )higher loss(?:es)?\b|"
         r"\b(?:loss|wer|cer|accuracy|mAP)\b[^\n.]{0,20}?\b(?:stays?|stayed|stuck|remains?|remained) (?:at|the same)\b",
         _stall),
    rule(r"\b(?:loss(?:es)?|grad(?:ient)?s?(?: norms?)?)\b[^\n.]{0,40}?\b(?:become|becomes|became|get|gets|got|"
         r"grow|grows|grew|goes|went)\s+(?:very |extremely |really |too |so )?(?:large|huge|big|high)\b|"
         r"\b(?:loss|gradients?)\b[^\n.]{0,20}?\bexplod(?:e|es|ed|ing)\b|\bexploding (?:loss|gradients?)\b|"
         r"\bloss spikes?\b|\bspikes? in (?:the )?(?:training )?loss\b|\b(?:gradient|grad|loss) explosion\b|"
         r"\bgrad(?:ient)?[ _]norms? (?:is |are |was |were )?(?:too|very|extremely) (?:large|big|high)\b|"
         r"(?:梯度|loss\s*)爆炸|\b(?:loss|training) instabilit(?:y|ies)\b|\bunstable (?:training )?loss\b|"
         r"\b(?:model|training|loss|run)\b[^\n.]{0,20}?\bdiverg(?:e|es|ed|ing)\b",
         _diverge),
    rule(r"^(?:\[[^\]\n]{1,40}\]:?\s*){0,3}[^\n]{0,80}?(?<![A-Za-z0-9_.(`'\":=,])(?P<value>NaNs?|all-NaN)"
         r"(?![A-Za-z0-9_(])",
         _nan_in_title),
    rule(r"\b(?:sav(?:e|es|ed|ing)|merg(?:e|es|ed|ing)|export(?:s|ed|ing)?|reported|written)\b[^\n.]{0,40}?\b"
         r"(?:as|in|to) (?:an? )?(?:(?:torch_)?dtype:? )?(?:fp32|float32|full precision)\b", _saved_in_fp32),
)
"""NaN, inf or values out of range said in prose, the outputs they leave (black images, all zeros), outputs said to
be wrong (a failed accuracy check), and training said to stall, to blow up or to log a loss of 0."""


def _wrong_in_title(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A report's title that says values come out wrong in a low-precision dtype it names (``bf16 is very
    inaccurate``, ``The inference results of the FP16 model are incorrect``): precision lost on the way, the likely
    cause; not when what is said to be wrong is a dtype or a cast."""
    if not _in_title(failure) or _TYPE_OR_CAST.search(failure.message):
        return None
    names = low_precision_in(failure.message)
    return drifted(failure, names[0], found.group(0).strip()) if names else None


_TYPE_OR_CAST = re.compile(r"\b(?:d|scalar |data ?)types?\b|\bcasts?\b", re.IGNORECASE)
"""Words that make a title's ``wrong`` say the dtype is wrong (``generates wrong output scalar type``), not values."""


TITLE_SAID: tuple[Rule, ...] = (
    rule(r"\b(?:inaccura(?:te|cy)|incorrect|wrong (?:values?|cache|results?|outputs?|answers?|predictions?)|"
         r"(?:significantly|very|quite|totally|completely) different|mismatched (?:outputs?|results?)|"
         r"invalid results?|returns? (?:all )?zeros|all zeros|trash|bad quality|"
         r"poor (?:\w+ )?(?:precision|accuracy|quality|results?)|"
         r"(?:precision|accuracy) (?:appears to be |is (?:still )?)?(?:lower|worse|insufficient)|"
         r"not (?:calculated|computed) correctly|strange (?:\w+ )?(?:rounding|results?|outputs?|behaviou?r)|"
         r"weird (?:results?|outputs?|behaviou?r)|degraded|degradation|catastrophic cancellation|"
         r"(?:loss of|los(?:es|ing|t)) (?:\w+ )?precision|precision (?:loss|wall)|PCC (?:collapses|drops))\b",
         _wrong_in_title),
)
"""A title that says values come out wrong in 16-bit, read last: the report's words about it, not its error."""


SUPPORT: tuple[Rule, ...] = (
    rule(r"\bnot (?:implemented|supported)\b|\bnot available (?:on|in|for)\b|\bno (?:kernel|support)\b|"
         r"\bdo(?:es)?(?: not|n't) (?:have )?support\b|\bunsupported\b|\black of support\b|\bcannot run (?:with|on)\b|"
         r"不支持", _missing_support),
    rule(r"\b(?:not (?:being |yet )?(?:implemented|supported)|lack of support|no support) (?:for|in|with|on) "
         r"[`'\"]?(?P<dtype>half|fp16|float16|bf16|bfloat16|bfloat)\b", _support_said),
    rule(r"\bunsupported (?:input )?(?:data ?type|dtype)\b", _unsupported_input),
    rule(r"\b(?P<operand>\w{0,30}?_?d?type|[Dd]ata type) (?:should|must) be (?:one of )?\[?(?P<listed>(?:(?:"
         r"float(?:8|16|32|64)?|double|bfloat16|half|bf16|fp16|fp32|fp8|int8|uint8)(?:,\s*(?:or\s+)?|\s+or\s+|"
         r"\s*/\s*)?){2,6})", _accepted_only),
    rule(r"\bkernel (?:was )?not found\b|\bcannot find (?:the |a )?kernel\b|\bno (?:\w{1,20} )?kernels? found\b",
         _kernel_not_found),
    rule(r"\bonly supports? (?P<listed>(?:(?:float|double|bfloat16|half|bf16|fp16|fp32|float16|float32|int|int32|int64|"
         r"long|bool)(?:,\s*|\s+and\s+|\s+or\s+|\s*/\s*)?){2,8})", _listed_support),
    rule(r"\bhas to be one of (?P<listed>(?:(?:float(?:16|32|64)?|double|bfloat16|half|int(?:8|16|32|64)?|uint8|bool)"
         r"(?:,\s*|\s+or\s+)?){2,8}) types?\b", _listed_support),
    rule(r"\b(?:data ?)?d?types? must be one of \[?(?P<listed>(?:(?:float|double|bfloat16|half|float16|float32|float64|"
         r"int8|int16|int32|int64|uint8|bool)(?:,\s*|\s+or\s+)?){2,8})\]?", _listed_support),
    rule(r"(?:不支持|不支援)\s*[`'\"]?(?P<dtype>half|fp16|float16|bf16|bfloat16)(?![A-Za-z0-9])", _support_said),
    rule(rf"\b{_SIXTEEN_BIT}\b[^\n.]{{0,60}}?\b(?:error|fails?|failed|failing|crash\w{{0,3}}|not working|"
         r"doesn't work)\b[^\n.]{0,30}?\b(?:on|with) (?:the )?cpu\b|"
         rf"\b(?:on|with) (?:the )?cpu\b[^\n.]{{0,40}}?\berrors?\b[^\n.]{{0,40}}?\b{_SIXTEEN_BIT}\b", _cpu_said),
    rule(r"\bmps\b[^\n]{0,80}?\b(?:float64|double)\b|\b(?:float64|double)\b[^\n]{0,80}?\bmps\b", _float64_on_mps),
)
"""A 16-bit dtype named beside a missing kernel or support."""
