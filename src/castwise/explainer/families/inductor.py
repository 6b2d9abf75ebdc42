"""What torch.compile's Inductor cannot generate code for, read from its own wordings.

Inductor lowers a graph to Triton (GPU) or C++ (CPU) kernels, and its code generators have no entry for some dtypes:
complex numbers above all (a complex constant in the graph, ``KeyError: 'complex64'`` in Triton codegen; a Python
``1j`` that reaches a lowering, ``'complex' object has no attribute 'get_name'``; a decomposition that calls an op with
no complex version, ``Complex dtype is not supported for isneginf``), and dtypes its printer misses (a ``float64``
KeyError). Each is a gap of the compiler, not of the model: eager mode runs the same code, so the fix keeps that
code out of the compiled graph or computes on real tensors, and updating torch is where the gap closes.
"""

from __future__ import annotations

import re

from castwise.explainer.clues import paste_search
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtype_read, explained, message_only, rule

_COMPILED = re.compile(r"\binductor\b|torch\.compile|\btriton\b|\bcodegen\b|_dynamo", re.IGNORECASE)
"""torch.compile named in the paste: a dtype KeyError then comes from its code generators."""
_KEEP_OUT = ("keep that code out of the compiled graph (`@torch.compiler.disable` on the function, or compile only "
             "the rest), compute on real tensors there (`torch.view_as_real(z)`, real and imaginary parts apart), and "
             "update torch: each release lowers more of it")


def _codegen_key(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``KeyError: 'complex64'`` (or a ``float64`` KeyError) in a paste that names torch.compile: Inductor's code
    generator has no entry for that dtype; declined without torch.compile in view."""
    if paste_search(failure, _COMPILED) is None:
        return None
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.NO_KERNEL, failure,
        f"torch.compile's Inductor has no code generation for {dtype} here: its kernel generator (Triton on GPU, C++ "
        "on CPU) looked the dtype up and found no entry (a KeyError, not a bug in your code: eager mode runs it)",
        f"a {dtype} tensor or constant inside the compiled function (a complex constant, a float64 value made "
        "with numpy or Python floats) reaching a lowering that does not handle it",
        f"{_KEEP_OUT}; for float64 that is not needed, make it float32 where it is created",
        op="Inductor code generation", names=names, confidence=Confidence.LOW,
    )


def _complex_unsupported(found: re.Match[str], failure: Failure) -> Explanation:
    """``Complex dtype is not supported for isneginf, got dtype torch.complex128``: an op with no complex version, most
    often called by a decomposition (``nan_to_num`` under Inductor)."""
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.NO_KERNEL, failure,
        f"`torch.{found['op']}` has no {dtype} version, and something called it on a complex tensor: under "
        "torch.compile most often a decomposition (`nan_to_num` lowers to `isneginf`/`isposinf`) that eager mode "
        "does not run",
        "a complex tensor passed to an op (or a compiled function) that handles only real values",
        f"apply the op to the real and imaginary parts (`torch.complex(f(z.real), f(z.imag))`), or {_KEEP_OUT}",
        op=f"torch.{found['op']}", names=names,
    )


_python_complex = message_only(
    Kind.NO_KERNEL,
    "torch.compile met a Python complex number (`1j`, `complex(...)`) in the graph where it needs a tensor: Inductor "
    "(and the TorchScript-style op schema it checks against) cannot lower a complex Python constant",
    "a complex constant written in the compiled function (`x * 1j`, `torch.conj` of a Python complex, a rotation "
    "`exp(1j * theta)`)",
    "make the constant a tensor outside the graph (`j = torch.tensor(1j, device=x.device)`, passed in), or "
    + _KEEP_OUT,
    op="Inductor lowering", names=("complex64",), confidence=Confidence.LOW,
)


RULES: tuple[Rule, ...] = (
    rule(r"\bComplex dtype is not supported for (?P<op>\w{1,40}), got dtype (?P<a>torch\.complex\d{2,3})",
         _complex_unsupported),
    rule(r"\bKeyError:? '(?P<a>complex(?:32|64|128)|float64)'", _codegen_key),
    rule(r"`?(?P<a>float64|complex(?:64|128))`? KeyError\b", _codegen_key),
    rule(r"'complex' object has no attribute 'get_name'|\bExpected a value of type 'Tensor' for argument '\w{1,30}' "
         r"but instead found type 'complex'", _python_complex),
)
