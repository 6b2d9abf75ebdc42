"""A native kernel that crashed while running in 16-bit: no dtype in the message.

``Floating point exception (core dumped)`` (a Chinese locale's ``浮点数例外``), ``Illegal instruction``, ``Signal 8
(SIGFPE)``: a native kernel crashed with no Python error; ``cublas runtime error``, ``an illegal memory access``: one
failed and raised; ``LLVM ERROR: ...``, ``CUDA NVRTC compile error: ptxas ...``: the compiler building one (Triton's for
torch.compile or vLLM, nvfuser's) aborted. When the report ties it to a 16-bit dtype (``bf16 causes Floating
point exception``, a model made ``.to(torch.bfloat16)``), the usual parent is a kernel for that dtype that is
broken on that hardware or build (a oneDNN/AMX bf16 matmul on a CPU, a cuBLAS/attention kernel on a new GPU
with an older CUDA). A compiler that cannot build the 16-bit code at all (TorchScript's fuser: ``MALFORMED
INPUT: bad dtype``; a C++ toolchain without ``_Float16``) reads the same. cuDNN's own refusals
(``CUDNN_STATUS_NOT_SUPPORTED``, ``unable to find an engine``) are read the same way: a layer it has no 16-bit
kernel for. The message names neither op nor dtype, so the answer is a low-confidence one and says how to
confirm it. Tried only after no rule recognised any line, and only when the paste names a 16-bit dtype; a
crash said in prose (``crashes with fp16``) only when the same line names it.
"""

from __future__ import annotations

import re

from castwise.explainer.clues import low_precision_in, low_precision_said
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, explained, rule


def _crash(found: re.Match[str], failure: Failure) -> Explanation | None:
    names = low_precision_said(failure)
    if not names:
        return None
    said, groups = found.group(0), found.groupdict()
    if groups.get("compiler"):
        return _crashed(failure, names[0], f"the compiler aborted: {said}")
    if groups.get("cudnn"):
        return _cudnn_refused(failure, names[0], said)
    if groups.get("raised"):
        return _crashed(failure, names[0], f"a native kernel failed and raised `{said}`")
    return _crashed(failure, names[0], f"the process died in a native kernel (killed by {said}) with no "
                                       "Python error")


def _cudnn_refused(failure: Failure, dtype: str, said: str) -> Explanation:
    return explained(
        Kind.NO_KERNEL, failure,
        f"cuDNN has no kernel for this layer in {dtype} on this GPU, or failed running it (`{said}`)",
        f"a {dtype} convolution or RNN with a shape, memory layout or GPU that the installed cuDNN has no {dtype} "
        "kernel for (a non-contiguous input, a pre-Volta GPU in fp16, bf16 before Ampere, an old cuDNN)",
        "confirm it by running that layer once in float32; then make its input contiguous (`x.contiguous()`), "
        "update torch (which ships cuDNN), or keep that layer in fp32 (a keep rule)",
        op="a cuDNN kernel", names=(dtype,), confidence=Confidence.LOW,
    )


def _crash_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A crash said in prose on the same line as a 16-bit dtype (``crashes with fp16``)."""
    names = low_precision_in(failure.message)
    return _crashed(failure, names[0], "the report says it crashed") if names else None


def _crashed(failure: Failure, dtype: str, how: str) -> Explanation:
    return explained(
        Kind.NO_KERNEL, failure,
        f"{how} while running in {dtype}: a {dtype} kernel (a matmul, attention or convolution) failed on this "
        "hardware or build",
        f"a {dtype} kernel of torch or of a library that is broken for this GPU/CPU (a torch, CUDA, cuBLAS or oneDNN "
        "bug, or a build older than the hardware), not a wrong dtype in your code",
        f"confirm it by running once in float32 (and once in fp16 instead of {dtype}); then keep only the layers that "
        "crash in float32 (a keep rule) and update torch and the CUDA toolkit/driver, where such kernel bugs get fixed",
        op=f"a {dtype} kernel", names=(dtype,), confidence=Confidence.LOW,
    )


SIGNALS: tuple[Rule, ...] = (
    rule(r"浮点数例外|\b(?:SIG(?:FPE|ILL|SEGV)\b|Floating[ -]point exception\b|Illegal instruction\b|"
         r"Segmentation fault\b|"
         r"(?P<raised>cublas runtime error\b)|"
         r"(?P<compiler>LLVM ERROR\b|NVRTC compile error\b|ptxas\b[^\n]{0,80}?\berror\b|"
         r"default_program\(\d+\): error\b|MALFORMED INPUT: bad dtype\b|_Float16[’'\"]? does not name a type)|"
         r"(?P<cudnn>CUDNN_STATUS_(?:NOT_SUPPORTED|EXECUTION_FAILED|INTERNAL_ERROR|BAD_PARAM|ARCH_MISMATCH)\b|"
         r"unable to find an engine to execute\b))",
         _crash),
)
"""A signal's own words, with a 16-bit dtype named anywhere near."""

SAID: tuple[Rule, ...] = (
    rule(r"(?P<raised>\billegal memory access\b)", _crash),
    rule(r"\bcrash(?:es|ed|ing)?\b", _crash_said),
)
"""The weakest readings, tried last: a CUDA illegal memory access (a crash with many other causes) with a 16-bit
dtype named near, and a crash said in prose with a 16-bit dtype on the same line."""
