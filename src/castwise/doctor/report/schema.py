"""The documented JSON layout of a doctor report (JSON Schema, draft 2020-12).

Errors are relative (max |x - ref| / max |ref| over finite values, against a float32 run); one-step
bytes are estimated from tensor sizes, trial-training bytes are measured; ``seconds`` is the median
wall time of several untraced forwards (train: + backward) after a warm-up. A figure that is not
finite is ``null``, with the reason in ``nonfinite``; finding kinds and severities are closed lists.
Dtypes use castwise's short names (``f32``, ...).
"""

from __future__ import annotations

from typing import Any

from castwise.doctor.report.data import SCHEMA_ID, FindingKind, Severity

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
    "input_grad_error": {**_NUMBER_OR_NULL, "description": "streamed blocks: the gradient at the block's input"},
    "input_grad_overflow": {"type": "integer"},
}, optional=("input_grad_error", "input_grad_overflow"))

_MEMORY = _object({"params": {"type": "integer"}, "grads": {"type": "integer"}, "activations": {"type": "integer"}})

_EXPLANATION = {
    "oneOf": [
        {"type": "null"},
        _object({k: {"type": "string"} for k in ("kind", "message", "cause", "culprit", "fix")}),
    ]
}

_LOSS_SCALE = {
    "oneOf": [{"type": "null"}, _object({
        "init_scale": {"type": "number", "description": "the scale the policy's dynamic loss scaler starts at"},
        "skipped_steps": {"type": "integer", "description": "steps it skips before every gradient is finite"},
        "scale": {**_NUMBER_OR_NULL, "description": "the scale it backs off to; null: none makes them finite"},
    })],
    "description": "measured when gradients alone overflowed under a dynamically scaled policy, else null",
}

_RUN = _object({
    "mode": {"enum": ["train", "eval"]},
    "ok": {"type": "boolean", "description": "the run finished without an exception"},
    "seconds": {"type": "number", "description": "median of timed_steps untraced steps after warmup_steps "
                                                  "(streamed: the blocks' and the head's added up)"},
    "memory": _MEMORY,
    "warmup_steps": {"type": "integer", "description": "untimed steps before the timed ones"},
    "timed_steps": {"type": "integer", "description": "steps timed (0: a run that raised, its traced step)"},
    "output_dtype": _STRING_OR_NULL,
    "error": _NUMBER_OR_NULL,
    "overflow": {"type": "integer"},
    "nonfinite": {**_STRING_OR_NULL, "description": "every inf/nan measured where fp32's value is finite "
                  "(outputs, loss, module outputs, gradients); the run fails unless loss_scale absorbs it"},
    "loss": _NUMBER_OR_NULL,
    "loss_error": _NUMBER_OR_NULL,
    "loss_overflow": {"type": "boolean", "description": "the loss is inf/nan where fp32's is finite"},
    "exception": {**_STRING_OR_NULL, "description": "'Type: first line' of what torch raised"},
    "failing_module": {**_STRING_OR_NULL, "description": "innermost module whose forward raised"},
    "explanation": _EXPLANATION,
    "overflow_origin": {**_STRING_OR_NULL, "description": "the module whose own computation first made inf/nan "
                        "in the forward ('(loss)': the loss alone), where the forward overflowed"},
    "loss_scale": _LOSS_SCALE,
    "modules": {"type": "array", "items": _MODULE},
})

_FP8_LAYER = _object({
    "name": {"type": "string", "description": "a Linear the policy converts to fp8"},
    "error": {**_NUMBER_OR_NULL, "description": "its fp8 output, run alone on its fp32 input, against fp32"},
    "bf16_error": {**_NUMBER_OR_NULL, "description": "the same against its bf16-mixed output"},
    "input_amax": {"type": "number", "description": "max |input|, the value the scale maps to e4m3's 448"},
    "input_underflow": {"type": "number", "description": "fraction of nonzero inputs below 2**-9 once scaled"},
    "weight_underflow": {"type": "number", "description": "fraction of nonzero weights below 2**-9 once scaled"},
})

_POLICY = _object({
    "policy": {"type": "string"},
    "runs": {"type": "array", "items": _RUN},
    "within_tolerance": {"type": "boolean"},
    "fp8": {"oneOf": [{"type": "null"}, {"type": "array", "items": _FP8_LAYER}],
            "description": "fp8 policies: one row per converted Linear, worst error first"},
}, optional=("fp8",))

_FINDING = _object({
    "kind": {"enum": [kind.value for kind in FindingKind]},
    "severity": {"enum": [severity.value for severity in Severity]},
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
    "tried": {"type": "integer", "description": "re-runs the search made"},
    "trials": {"type": "array", "description": "every re-run, in order", "items": _object({
        "modules": {**_STRINGS, "description": "the modules kept in fp32 (fp8: kept out of fp8)"},
        "passed": {"type": "boolean"},
        "error": _NUMBER_OR_NULL,
    })},
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

_TRAINING_MEMORY = _object({k: {"type": "integer", "description": "bytes measured"}
                            for k in ("params", "grads", "optimizer", "activations")})

_TRAINING_RUN = _object({
    "policy": {"type": "string"},
    "updates": {"enum": ["none", "kahan"], "description": "plain or Kahan-compensated 16-bit updates"},
    "ok": {"type": "boolean", "description": "trained without an exception"},
    "losses": {"type": "array", "items": _NUMBER_OR_NULL, "description": "loss per step; null: not finite"},
    "memory": _TRAINING_MEMORY,
    "step_seconds": {**_NUMBER_OR_NULL, "description": "median wall time of an unmonitored step"},
    "final_gap": {**_NUMBER_OR_NULL, "description": "mean loss of the last tenth of steps vs fp32's, relative, signed"},
    "max_gap": {**_NUMBER_OR_NULL, "description": "largest |relative loss gap| at any step"},
    "swamping_rate": {"type": "number", "description": "fraction of weight updates rounded away"},
    "grad_underflow": {"type": "number", "description": "fraction of gradients underflowing"},
    "skipped_steps": {"type": "integer", "description": "steps the loss scaler skipped for inf/nan gradients"},
    "loss_scale": _NUMBER_OR_NULL,
    "time_ratio": {**_NUMBER_OR_NULL, "description": "step time / fp32's, measured alternately"},
    "memory_ratio": {**_NUMBER_OR_NULL, "description": "memory total / fp32's"},
    "nonfinite": _STRING_OR_NULL,
    "exception": _STRING_OR_NULL,
})

_TRAINING = {
    "oneOf": [{"type": "null"}, _object({
        "steps": {"type": "integer"},
        "optimizer": {"type": "string"},
        "lr": {"type": "number"},
        "loss": {"type": "string"},
        "tolerance": {"type": "number"},
        "reference": _TRAINING_RUN,
        "runs": {"type": "array", "items": _TRAINING_RUN},
    })],
    "description": "the trial training (train_steps > 0), else null",
}

_ROUTING = {
    "oneOf": [{"type": "null"}, {"type": "array", "items": _object({
        "policy": {"type": "string"},
        "routers": _STRINGS,
        "tokens": {"type": "integer", "description": "token choices compared (tokens x router calls)"},
        "changed": {"type": "integer", "description": "token choices whose experts differ from fp32's"},
        "keep_policy": _STRING_OR_NULL,
        "changed_kept": {"type": ["integer", "null"]},
    })}],
    "description": "top-k routers (MoE gates) only, else null",
}

_STREAM = {
    "oneOf": [{"type": "null"}, _object({
        "blocks": {"type": "integer", "description": "decoder blocks, read one at a time"},
        "path": {"type": "string", "description": "their module list, e.g. model.layers"},
        "block_bytes": {"type": "integer", "description": "the largest block in fp32"},
        "outside_bytes": {"type": "integer", "description": "embeddings, final norm and head in fp32"},
        "activation_bytes": {"type": "integer", "description": "fp32 block inputs kept between blocks"},
    })],
    "description": "streamed diagnoses only: module errors are per block on fp32 inputs, output and loss "
                   "errors propagated through every block under the policy",
}

REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_ID,
    "title": "castwise doctor report",
    **_object({
        "schema": {"const": SCHEMA_ID},
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
            "updates": {"enum": ["none", "kahan"]},
            "fp8_keep_out": {"type": "array", "items": _KEEP_FIX,
                             "description": "fp8 policies: the Linears to keep out of fp8 for them to pass"},
        }, optional=("fp8_keep_out",)),
        "parity": {
            "oneOf": [{"type": "null"}, {"type": "array", "items": _PARITY_ROW}],
            "description": "plain PyTorch against castwise per policy (the built-in example only)",
        },
        "training": _TRAINING,
        "routing": _ROUTING,
        "stream": _STREAM,
    }, optional=("parity", "training", "routing", "stream")),
}
"""JSON Schema of ``Report.to_json()``."""
