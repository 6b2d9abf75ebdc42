"""The documented JSON layout of a doctor report (JSON Schema, draft 2020-12).

Errors are relative (max |x - ref| / max |ref| over finite values, against a float32 run); bytes are
estimated from tensor sizes; ``seconds`` is wall time of one forward (train: + backward) with the
tracing hooks' own time subtracted. Dtypes use castwise's short names (``f32``, ``bf16``, ...).
"""

from __future__ import annotations

from typing import Any

_NUMBER_OR_NULL = {"type": ["number", "null"]}
_STRING_OR_NULL = {"type": ["string", "null"]}
_STRINGS = {"type": "array", "items": {"type": "string"}}


def _object(properties: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": [k for k in properties if k not in optional],
        "additionalProperties": False,
    }


_MODULE = _object({
    "name": {"type": "string", "description": "dotted module name; '(model)' is the root"},
    "type": {"type": "string", "description": "the module's class name"},
    "inputs": {**_STRINGS, "description": "dtypes of the tensors it received"},
    "params": {**_STRINGS, "description": "dtypes of its own parameters and buffers"},
    "outputs": {**_STRINGS, "description": "dtypes of the tensors it returned"},
    "autocast": {"type": "boolean", "description": "autocast was on for the device when it ran"},
    "kept_fp32": {"type": "boolean", "description": "the policy keeps it in fp32 (fp32 compute)"},
    "error": _NUMBER_OR_NULL,
    "overflow": {"type": "integer", "description": "values inf/nan where the reference is finite"},
    "underflow": {"type": "number", "description": "fraction of the reference's nonzero values that are zero"},
    "grad_error": _NUMBER_OR_NULL,
    "grad_overflow": {"type": "integer"},
    "grad_underflow": {"type": "number"},
})

_MEMORY = _object({"params": {"type": "integer"}, "grads": {"type": "integer"}, "activations": {"type": "integer"}})

_EXPLANATION = {
    "oneOf": [
        {"type": "null"},
        _object({k: {"type": "string"} for k in ("kind", "message", "cause", "culprit", "fix")}),
    ]
}

_RUN = _object({
    "mode": {"enum": ["train", "eval"]},
    "ok": {"type": "boolean", "description": "the run finished without an exception"},
    "seconds": {"type": "number"},
    "memory": _MEMORY,
    "output_dtype": _STRING_OR_NULL,
    "error": _NUMBER_OR_NULL,
    "overflow": {"type": "integer"},
    "loss": _NUMBER_OR_NULL,
    "loss_error": _NUMBER_OR_NULL,
    "exception": {**_STRING_OR_NULL, "description": "'Type: first line' of what torch raised"},
    "failing_module": {**_STRING_OR_NULL, "description": "innermost module whose forward raised"},
    "explanation": _EXPLANATION,
    "modules": {"type": "array", "items": _MODULE},
})

_POLICY = _object({
    "policy": {"type": "string"},
    "runs": {"type": "array", "items": _RUN},
    "within_tolerance": {"type": "boolean"},
})

_FINDING = _object({
    "kind": {"type": "string"},
    "severity": {"enum": ["error", "warning", "info"]},
    "message": {"type": "string"},
    "fix": {"type": "string"},
    "policy": _STRING_OR_NULL,
    "module": _STRING_OR_NULL,
})

_KEEP_FIX = _object({
    "policy": {"type": "string"},
    "modules": _STRINGS,
    "error": _NUMBER_OR_NULL,
    "ok": {"type": "boolean"},
    "tried": {"type": "integer"},
})

_MODE_RESULT = _object({
    "ok": {"type": "boolean"},
    "output_dtype": _STRING_OR_NULL,
    "max_rel_error": _NUMBER_OR_NULL,
    "error": {**_STRING_OR_NULL, "description": "'Type: first line' of what the forward raised"},
})

_PARITY_ROW = _object({
    "policy": {"type": "string"},
    "way": {"enum": ["torch", "castwise"], "description": "torch: autocast or model.to(dtype) by hand"},
    "train": _MODE_RESULT,
    "eval": _MODE_RESULT,
    "param_bytes": {"type": "integer"},
})

REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "castwise.doctor.report/1",
    "title": "castwise doctor report",
    **_object({
        "schema": {"const": "castwise.doctor.report/1"},
        "model": {"type": "string"},
        "tolerance": {"type": "number"},
        "modes": {"type": "array", "items": {"enum": ["train", "eval"]}},
        "reference": {"type": "array", "items": _RUN, "description": "the float32 reference runs"},
        "policies": {"type": "array", "items": _POLICY},
        "findings": {"type": "array", "items": _FINDING},
        "recommendation": _object({
            "policy": _STRING_OR_NULL,
            "tolerance": {"type": "number"},
            "reason": {"type": "string"},
            "keep_fp32": {"type": "array", "items": _KEEP_FIX},
        }),
        "parity": {
            "oneOf": [{"type": "null"}, {"type": "array", "items": _PARITY_ROW}],
            "description": "plain PyTorch against castwise per policy (the built-in example only)",
        },
    }, optional=("parity",)),
}
"""JSON Schema of ``Report.to_json()``."""
