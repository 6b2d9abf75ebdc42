"""Precision policies: what a precision *is*, independent of where it is applied.

A :class:`Policy` is a small frozen value (modelled on jmp's): the dtype parameters are stored
in, the dtype math runs in, the dtype outputs are handed back in, which modules stay in fp32,
the float32 matmul precision and the loss-scaling mode. Policies are parsed from Lightning's
canonical names, from the names other frameworks use, or from jmp's grammar (``p=f32,c=bf16``,
``full``, ``half``, a bare dtype). Defaults are resolved in one place, ``Policy.__post_init__``, so
``Policy(param_dtype=..., compute_dtype=...)`` and the parsed string mean the same policy. One
deliberate difference from jmp: outputs default to float32 (or wider), not to the compute dtype.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import torch

__all__ = [
    "Policy",
    "PolicyLike",
    "DEFAULT_KEEP_FP32",
    "DEFAULT_FP8_KEEP_OUT",
    "dtype_from_name",
    "dtype_name",
    "policies",
]

DEFAULT_KEEP_FP32: tuple[str, ...] = (
    "*LayerNorm",
    "*RMSNorm",
    "*GroupNorm",
    "*BatchNorm*",
    "*InstanceNorm*",
)
"""Normalisation layers, as globs on class names (any class in the module's MRO) or names."""

DEFAULT_FP8_KEEP_OUT: tuple[str, ...] = ("@first", "@last", "*Router", "*Gate")
"""Linears kept out of fp8: the first and the last (e.g. an LM head) and MoE routers/gates.
``@first``/``@last`` name positions in module order; other entries are globs like keep_fp32's."""

_FP8_RECIPES = ("tensorwise", "rowwise")

_DTYPE_NAMES: dict[str, torch.dtype] = {
    "float64": torch.float64, "f64": torch.float64, "fp64": torch.float64,
    "double": torch.float64, "64": torch.float64,
    "float32": torch.float32, "f32": torch.float32, "fp32": torch.float32,
    "float": torch.float32, "32": torch.float32,
    "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
    "float16": torch.float16, "f16": torch.float16, "fp16": torch.float16,
    "half": torch.float16, "16": torch.float16, "full": torch.float32,
}

_SHORT_NAMES: dict[torch.dtype, str] = {
    torch.float64: "f64", torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16",
}

_MATMUL_PRECISIONS = ("highest", "high", "medium")
_LOSS_SCALING = ("none", "dynamic")


def dtype_from_name(name: str | torch.dtype) -> torch.dtype:
    """Resolve a floating dtype from a name such as ``bf16``, ``float32`` or ``torch.float16``."""
    if isinstance(name, torch.dtype):
        if not name.is_floating_point:
            raise ValueError(f"{name} is not a floating dtype; only floating dtypes are accepted (bf16, f16, f32, f64)")
        return name
    key = str(name).strip().lower().removeprefix("torch.")
    if key not in _DTYPE_NAMES:
        close = difflib.get_close_matches(key, _DTYPE_NAMES, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown dtype {name!r}{hint} (valid: bf16, f16, f32, f64)")
    return _DTYPE_NAMES[key]


def dtype_name(dtype: torch.dtype) -> str:
    """The short name of a floating dtype (``bf16``, ``f16``, ``f32``, ``f64``)."""
    name = _SHORT_NAMES.get(dtype)
    return str(dtype).removeprefix("torch.") if name is None else name


@dataclass(frozen=True)
class Policy:
    """How a model's parameters are stored, how its math runs and what dtype comes out.

    ``param_dtype != compute_dtype`` means *mixed*: parameters stay in ``param_dtype`` and the
    forward runs under autocast in ``compute_dtype``; otherwise parameters are converted (*true*).
    ``keep_fp32`` holds globs matched against a module's dotted name and its class names.
    ``fp8`` is a torchao float8 scaling recipe (``tensorwise``/``rowwise``) for the Linears not in
    ``fp8_keep_out``, or None; ``fp8_keep_out`` is empty (ignored) when ``fp8`` is None.
    """

    param_dtype: torch.dtype = torch.float32
    compute_dtype: torch.dtype = None  # type: ignore[assignment]
    output_dtype: torch.dtype = None  # type: ignore[assignment]
    keep_fp32: tuple[str, ...] = None  # type: ignore[assignment]
    matmul_precision: str = "highest"
    loss_scaling: str = None  # type: ignore[assignment]
    fp8: str | None = None
    fp8_keep_out: tuple[str, ...] = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        """Resolve the defaults (the one place they live) and validate every field."""
        param = dtype_from_name(self.param_dtype)
        compute = param if self.compute_dtype is None else dtype_from_name(self.compute_dtype)
        output = _default_output(param, compute) if self.output_dtype is None else dtype_from_name(self.output_dtype)
        keep = _default_keep(param, compute) if self.keep_fp32 is None else _globs(self.keep_fp32, "keep_fp32")
        scaling = _default_scaling(param, compute) if self.loss_scaling is None else self.loss_scaling
        for field, value in (("param_dtype", param), ("compute_dtype", compute), ("output_dtype", output),
                             ("keep_fp32", keep), ("loss_scaling", scaling)):
            object.__setattr__(self, field, value)
        if self.matmul_precision not in _MATMUL_PRECISIONS:
            raise ValueError(
                f"matmul_precision must be one of {_MATMUL_PRECISIONS}, got {self.matmul_precision!r}"
            )
        if self.loss_scaling not in _LOSS_SCALING:
            raise ValueError(f"loss_scaling must be one of {_LOSS_SCALING}, got {self.loss_scaling!r}")
        if self.fp8 not in (None, *_FP8_RECIPES):
            raise ValueError(f"fp8 must be one of {_FP8_RECIPES} or None, got {self.fp8!r}")
        keep_out = DEFAULT_FP8_KEEP_OUT if self.fp8_keep_out is None else _globs(self.fp8_keep_out, "fp8_keep_out")
        object.__setattr__(self, "fp8_keep_out", keep_out if self.fp8 else ())

    @property
    def is_mixed(self) -> bool:
        """True when the forward runs under autocast over parameters kept in ``param_dtype``."""
        return self.param_dtype != self.compute_dtype

    @property
    def is_low_precision(self) -> bool:
        """True when any math runs in a 16-bit dtype."""
        return self.compute_dtype in (torch.bfloat16, torch.float16)

    @property
    def name(self) -> str | None:
        """The canonical name of this policy, or None for a custom one."""
        for canonical, policy in _CANONICAL.items():
            if policy == self:
                return canonical
        return None

    def replace(self, **changes: Any) -> Policy:
        """A copy with some fields changed, e.g. ``p.replace(keep_fp32=("*norm*", "head"))``."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def parse(cls, spec: PolicyLike) -> Policy:
        """Parse a canonical name, an alias, an int (16, 32, 64), a ``p=..,c=..,o=..`` triple, a name
        with fields changed (``bf16-true,keep+=head``: its keep list plus ``head``) or a bare dtype
        (``f16``, ``half``, ``full``: that dtype's ``-true`` policy). Where a jmp spelling is also a
        framework's name (``bf16``, ``16``, ``fp16``), the framework's meaning wins."""
        if isinstance(spec, Policy):
            return spec
        text = str(spec).strip()
        key = text.lower()
        if key in _CANONICAL:
            return _CANONICAL[key]
        if key in _ALIASES:
            return _CANONICAL[_ALIASES[key]]
        if key in _UNSUPPORTED:
            raise ValueError(f"precision {text!r} is not supported yet: {_UNSUPPORTED[key]}")
        if "=" in key:
            head, _, fields = text.partition(",")
            if "=" in head:
                return _parse_fields(text, text, None)
            return _parse_fields(fields, text, cls.parse(head))
        if key in _DTYPE_NAMES:
            return Policy(_DTYPE_NAMES[key])
        raise ValueError(_unknown_message(text))

    def __str__(self) -> str:
        return self.name or self._name_with_more_kept() or self._triple()

    def _name_with_more_kept(self) -> str | None:
        """``NAME,keep+=GLOBS`` when this is a canonical policy keeping more modules in fp32."""
        for canonical, policy in _CANONICAL.items():
            base = policy.keep_fp32
            extra = self.keep_fp32[len(base):]
            if extra and self.keep_fp32[:len(base)] == base and self.replace(keep_fp32=base) == policy:
                return f"{canonical},keep+=" + "|".join(extra)
        return None

    def _triple(self) -> str:
        parts = [
            f"params={dtype_name(self.param_dtype)}",
            f"compute={dtype_name(self.compute_dtype)}",
            f"output={dtype_name(self.output_dtype)}",
        ]
        if self.keep_fp32 != _default_keep(self.param_dtype, self.compute_dtype):
            parts.append("keep=" + "|".join(self.keep_fp32))
        if self.matmul_precision != "highest":
            parts.append(f"matmul={self.matmul_precision}")
        if self.loss_scaling != _default_scaling(self.param_dtype, self.compute_dtype):
            parts.append(f"scaling={self.loss_scaling}")
        if self.fp8:
            parts.append(f"fp8={self.fp8}")
            if self.fp8_keep_out != DEFAULT_FP8_KEEP_OUT:
                parts.append("fp8_keep_out=" + "|".join(self.fp8_keep_out))
        return ",".join(parts)


PolicyLike = Policy | str | int


def _globs(entries: str | type | Iterable[str | type], field: str) -> tuple[str, ...]:
    if isinstance(entries, (str, type)):
        entries = (entries,)
    return tuple(_glob_of(entry, field) for entry in entries)


def _glob_of(entry: str | type, field: str) -> str:
    if isinstance(entry, type):
        return entry.__name__
    if not isinstance(entry, str) or not entry:
        raise ValueError(f"{field} entries are module classes or name globs, got {entry!r}")
    return entry


def _default_keep(param: torch.dtype, compute: torch.dtype) -> tuple[str, ...]:
    low = (torch.bfloat16, torch.float16)
    return DEFAULT_KEEP_FP32 if (param in low or compute in low) else ()


def _default_scaling(param: torch.dtype, compute: torch.dtype) -> str:
    return "dynamic" if torch.float16 in (param, compute) else "none"


def _default_output(param: torch.dtype, compute: torch.dtype) -> torch.dtype:
    """Outputs in float32, or wider when parameters or math are wider (castwise's promise; jmp
    instead lets the output follow the compute dtype)."""
    return max((torch.float32, param, compute), key=lambda d: torch.finfo(d).bits)


_CANONICAL: dict[str, Policy] = {
    "64-true": Policy(torch.float64),
    "32-true": Policy(torch.float32),
    "tf32": Policy(torch.float32, matmul_precision="high"),
    "16-mixed": Policy(torch.float32, torch.float16),
    "bf16-mixed": Policy(torch.float32, torch.bfloat16),
    "16-true": Policy(torch.float16),
    "bf16-true": Policy(torch.bfloat16),
    "fp8-mixed": Policy(torch.float32, torch.bfloat16, fp8="tensorwise"),
    "fp8-rowwise-mixed": Policy(torch.float32, torch.bfloat16, fp8="rowwise"),
}

_DESCRIPTIONS: dict[str, str] = {
    "64-true": "float64 parameters and math; for numerics checks, slow everywhere",
    "32-true": "float32 parameters and math; the reference, stable but slow and large",
    "tf32": "float32 parameters, matmuls in TensorFloat-32 on Ampere+ GPUs (no effect on CPU)",
    "16-mixed": "float32 parameters, fp16 autocast, dynamic loss scaling; norms kept fp32",
    "bf16-mixed": "float32 parameters, bf16 autocast; norms kept fp32",
    "16-true": "fp16 parameters and math, dynamic loss scaling; norms kept fp32",
    "bf16-true": "bf16 parameters and math (half the memory); norms kept fp32",
    "fp8-mixed": "as bf16-mixed, plus Linears in fp8 (torchao, tensorwise scales) but the first, last and MoE routers",
    "fp8-rowwise-mixed": "as fp8-mixed with rowwise fp8 scales (finer, more accurate, slower)",
}

_ALIASES: dict[str, str] = {
    # Lightning's legacy names
    "16": "16-mixed", "bf16": "bf16-mixed", "32": "32-true", "64": "64-true",
    # Accelerate
    "no": "32-true", "fp16": "16-mixed", "fp8": "fp8-mixed",
    # OpenCLIP
    "amp": "16-mixed", "amp_bf16": "bf16-mixed", "amp_bfloat16": "bf16-mixed",
    "pure_bf16": "bf16-true", "pure_fp16": "16-true", "fp32": "32-true",
    # Keras
    "mixed_bfloat16": "bf16-mixed", "mixed_float16": "16-mixed", "float32": "32-true",
    "bfloat16": "bf16-true", "float16": "16-true", "float64": "64-true",
}

_UNSUPPORTED: dict[str, str] = {
    "transformer-engine": "castwise runs fp8 through torchao; use 'fp8-mixed'",
    "8-true": "fp8 compute is 'fp8-mixed' (bf16 weights, fp8 matmuls); int8/fp8 weights are planned",
}

_TRIPLE_KEYS: dict[str, str] = {
    "p": "params", "params": "params", "param": "params",
    "c": "compute", "compute": "compute",
    "o": "output", "output": "output",
    "keep": "keep", "keep_fp32": "keep", "keep+": "keep+",
    "matmul": "matmul", "scaling": "scaling",
    "fp8": "fp8", "fp8_keep_out": "fp8_keep_out",
}


def _parse_fields(text: str, spec: str, base: Policy | None) -> Policy:
    """The policy ``key=value`` fields describe: on top of ``base`` when given (the fields it does not
    name are the base's), else from jmp's cascading defaults. ``keep+=`` adds to the keep list."""
    fields: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        canonical_key = _TRIPLE_KEYS.get(key.strip().lower())
        if not sep or canonical_key is None:
            raise ValueError(
                f"cannot read {part!r} in policy {spec!r}: expected key=value with keys "
                "params/p, compute/c, output/o, keep, keep+, matmul, scaling, fp8, fp8_keep_out "
                "(e.g. 'params=float32,compute=bfloat16,output=float32' or 'bf16-true,keep+=head')"
            )
        if canonical_key in fields:
            raise ValueError(f"{canonical_key!r} given twice in policy {spec!r}")
        fields[canonical_key] = value.strip()
    changes: dict[str, Any] = {field: fields[key] for key, field in _FIELD_OF.items() if key in fields}
    for key in ("keep_fp32", "fp8_keep_out"):
        if key in changes:
            changes[key] = tuple(g for g in changes[key].split("|") if g)
    if "fp8" in changes:
        changes["fp8"] = None if changes["fp8"].lower() == "none" else changes["fp8"].lower()
    policy = Policy(**changes) if base is None else base.replace(**changes)
    if "fp8_keep_out" in fields and not policy.fp8:
        raise ValueError(f"fp8_keep_out needs fp8=tensorwise or fp8=rowwise in policy {spec!r}")
    added = tuple(g for g in fields.get("keep+", "").split("|") if g and g not in policy.keep_fp32)
    return policy.replace(keep_fp32=policy.keep_fp32 + added) if added else policy


_FIELD_OF = {
    "params": "param_dtype", "compute": "compute_dtype", "output": "output_dtype", "keep": "keep_fp32",
    "matmul": "matmul_precision", "scaling": "loss_scaling", "fp8": "fp8", "fp8_keep_out": "fp8_keep_out",
}


def _unknown_message(text: str) -> str:
    names = list(_CANONICAL) + list(_ALIASES)
    close = difflib.get_close_matches(text.lower(), names, n=3, cutoff=0.4)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return (
        f"unknown precision {text!r}.{hint} Valid names: {', '.join(_CANONICAL)} "
        "(or a triple such as 'params=f32,compute=bf16,output=f32')."
    )


def policies() -> dict[str, str]:
    """The canonical policy names, each with a one-line description."""
    return dict(_DESCRIPTIONS)


def aliases() -> dict[str, str]:
    """Names other frameworks use, each mapped to the canonical policy it resolves to."""
    return dict(_ALIASES)


def canonical_policies() -> Iterable[tuple[str, Policy]]:
    """The canonical policies in order, from widest to narrowest."""
    return _CANONICAL.items()
