"""What ``cw.explain`` hands back: the kind of error, its cause, the likely culprit and the fix.

The five string fields (``kind``, ``message``, ``cause``, ``culprit``, ``fix``) are the contract
doctor reports serialize with ``dataclasses.asdict``; what the reader found along the way (the
family, how sure it is, the op, the dtypes, the device, the module) rides along as typed read-only
attributes that are deliberately not dataclass fields, so a report's JSON keeps its documented
shape. Kinds and families are closed sets (enums whose values are the strings reports carry).
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, replace
from enum import Enum
from typing import Any


class _Named(str, Enum):
    """An enum whose members are their string values wherever they are printed or serialized."""

    def __str__(self) -> str:
        return str(self.value)


class Family(_Named):
    """The families of errors castwise recognises, each with its own kind of fix."""

    MIXED_FLOAT = "mixed_float"  # two floating dtypes met in one op
    NO_KERNEL = "no_kernel"  # the op has no kernel for a low-precision dtype on that device
    INTEGER = "integer"  # an integer/bool/index tensor where another dtype is required (or the reverse)
    OVERFLOW = "overflow"  # a number outside the target dtype's range (fp16: 65504)
    GRADIENT = "gradient"  # gradient dtypes, loss scaling and unscaling
    DEVICE = "device"  # tensors on two devices: not a dtype problem
    NUMPY = "numpy"  # numpy has no such dtype (bf16, fp8)
    NONFINITE = "nonfinite"  # NaN/inf in a loss or a gradient


class Kind(_Named):
    """One recognised error, finer than its family; ``Kind.X.family`` says which family."""

    MATMUL = "matmul_dtype"
    BATCHED_MATMUL = "batched_matmul_dtype"
    CONV_WEIGHT = "conv_weight_dtype"
    CONV_BIAS = "conv_bias_dtype"
    NORM_PARAM = "norm_param_dtype"
    SDPA = "sdpa_dtype"
    ATTN_MASK = "attn_mask_dtype"
    RNN = "rnn_dtype"
    INDEXED_WRITE = "indexed_write_dtype"
    LERP = "lerp_dtype"
    FP8_PROMOTION = "fp8_promotion"
    OP_DTYPE = "op_dtype"
    TRANSFORMER_FASTPATH = "transformer_fastpath"
    SCALAR_TYPE = "scalar_type"
    NO_KERNEL = "no_kernel"
    TARGET = "target_dtype"
    INDEX_TENSOR = "index_tensor_dtype"
    MASK = "mask_dtype"
    RESULT_CAST = "result_cast"
    INTEGER_OPERAND = "integer_operand"
    VALUE_OVERFLOW = "half_overflow"
    LOSS_DTYPE = "loss_dtype"
    UNSCALE_FP16 = "unscale_fp16"
    LOSS_SCALE = "loss_scale"
    DEVICE_MISMATCH = "device_mismatch"
    NUMPY_DTYPE = "numpy_dtype"
    NONFINITE = "nonfinite"

    @property
    def family(self) -> Family:
        """The family this kind belongs to."""
        return _FAMILIES[self]


_FAMILIES: dict[Kind, Family] = {
    **dict.fromkeys(
        (Kind.MATMUL, Kind.BATCHED_MATMUL, Kind.CONV_WEIGHT, Kind.CONV_BIAS, Kind.NORM_PARAM, Kind.SDPA,
         Kind.ATTN_MASK, Kind.RNN, Kind.INDEXED_WRITE, Kind.LERP, Kind.FP8_PROMOTION, Kind.OP_DTYPE,
         Kind.TRANSFORMER_FASTPATH, Kind.SCALAR_TYPE),
        Family.MIXED_FLOAT,
    ),
    Kind.NO_KERNEL: Family.NO_KERNEL,
    **dict.fromkeys(
        (Kind.TARGET, Kind.INDEX_TENSOR, Kind.MASK, Kind.RESULT_CAST, Kind.INTEGER_OPERAND), Family.INTEGER
    ),
    Kind.VALUE_OVERFLOW: Family.OVERFLOW,
    **dict.fromkeys((Kind.LOSS_DTYPE, Kind.UNSCALE_FP16, Kind.LOSS_SCALE), Family.GRADIENT),
    Kind.DEVICE_MISMATCH: Family.DEVICE,
    Kind.NUMPY_DTYPE: Family.NUMPY,
    Kind.NONFINITE: Family.NONFINITE,
}


class Confidence(_Named):
    """How sure the reading is: ``low`` when the message alone fits several causes."""

    HIGH = "high"
    LOW = "low"


@dataclass(frozen=True)
class Facts:
    """What the reader found besides the prose: dtypes as castwise's short names (``bf16``, ``int64``)."""

    confidence: Confidence = Confidence.HIGH
    op: str | None = None
    dtypes: tuple[str, ...] = ()
    device: str | None = None
    module: str | None = None


@dataclass(frozen=True)
class Explanation:
    """Why torch raised an error: its kind, the error line read, the cause, the likely culprit, the fix.

    ``family``, ``confidence``, ``op``, ``dtypes``, ``device`` and ``module`` say what was read;
    they are attributes, not dataclass fields (``asdict`` gives the five strings reports carry).
    """

    kind: Kind
    message: str
    cause: str
    culprit: str
    fix: str
    facts: InitVar[Facts]

    def __post_init__(self, facts: Facts) -> None:
        object.__setattr__(self, "_facts", facts)

    @property
    def _read(self) -> Facts:
        facts: Facts = self.__dict__["_facts"]
        return facts

    @property
    def family(self) -> Family:
        """The family of the error (what kind of fix it needs)."""
        return self.kind.family

    @property
    def confidence(self) -> Confidence:
        """``low`` when the error line alone fits several causes and nothing else narrowed it."""
        return self._read.confidence

    @property
    def op(self) -> str | None:
        """The torch op or layer that raised, when the message or the frames name it."""
        return self._read.op

    @property
    def dtypes(self) -> tuple[str, ...]:
        """The dtypes the error names, in its order, as short names (``bf16``, ``f32``, ``int64``)."""
        return self._read.dtypes

    @property
    def device(self) -> str | None:
        """The device the error names (``cuda``, ``cpu``, ...), when it names one."""
        return self._read.device

    @property
    def module(self) -> str | None:
        """The module the traceback shows calling the op (``self.norm2``), when it shows one."""
        return self._read.module

    def less_sure(self, because: str) -> Explanation:
        """The same explanation with low confidence, ``because`` added to its likely culprit."""
        facts = replace(self._read, confidence=Confidence.LOW)
        return Explanation(self.kind, self.message, self.cause, f"{self.culprit}; {because}", self.fix, facts)

    def fixed_first(self, first: str) -> Explanation:
        """The same explanation with ``first`` leading its fix (what the paste itself shows to change)."""
        return Explanation(self.kind, self.message, self.cause, self.culprit, f"{first}; then {self.fix}", self._read)

    def also_naming(self, names: tuple[str, ...]) -> Explanation:
        """The same explanation with ``names``, which other lines of the paste say the same of, added to its dtypes."""
        facts = replace(self._read, dtypes=self.dtypes + names)
        return Explanation(self.kind, self.message, self.cause,
                           f"{self.culprit}; the paste's other error lines say the same of {', '.join(names)}",
                           self.fix, facts)

    def as_dict(self) -> dict[str, Any]:
        """Everything, for JSON: the five contract strings and what was read."""
        return {
            "kind": self.kind.value, "family": self.family.value, "confidence": self.confidence.value,
            "message": self.message, "cause": self.cause, "culprit": self.culprit, "fix": self.fix,
            "op": self.op, "dtypes": list(self.dtypes), "device": self.device, "module": self.module,
        }

    def __str__(self) -> str:
        return f"{self.cause}\nLikely culprit: {self.culprit}\nFix: {self.fix}"
