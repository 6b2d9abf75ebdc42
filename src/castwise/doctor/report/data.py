"""The report ``cw.diagnose`` returns: plain values only, read by the renderers (text, HTML).

The JSON layout is :data:`castwise.doctor.report.schema.REPORT_SCHEMA` (``schema`` field: ``SCHEMA_ID``).
A figure that is not finite is ``None`` here (``null`` in JSON) with the reason next to it.
"""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from castwise.doctor.report.serialize import from_dict

SCHEMA_ID = "castwise.doctor.report/3"
ROOT = "(model)"
"""The name the report gives the model itself among its modules."""
LOSS = "(loss)"
"""Where the report places an overflow of the loss computed from finite outputs."""


class Word(str, enum.Enum):
    """A closed vocabulary written as its plain value (in JSON, f-strings and comparisons with str)."""

    def __str__(self) -> str:
        return str(self.value)


class Severity(Word):
    """How much a finding matters: ``error`` (the policy is unusable as it is), ``warning``, ``info``."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class FindingKind(Word):
    """What a finding is about (the JSON schema lists these)."""

    REFERENCE_FAILED = "reference_failed"
    MODEL_DTYPE = "model_dtype"
    TENSOR_ATTRIBUTE = "tensor_attribute"
    FASTPATH = "fastpath"
    EXCEPTION = "exception"
    FP16_OVERFLOW = "fp16_overflow"
    OVERFLOW = "overflow"
    GRADIENT_OVERFLOW = "gradient_overflow"
    LOSS_SCALE = "loss_scale"
    GRADIENT_UNDERFLOW = "gradient_underflow"
    PARAM_DTYPE = "param_dtype"
    KEEP_FP32 = "keep_fp32"
    TRAINING_FAILED = "training_failed"
    TRAINING_GAP = "training_gap"
    SKIPPED_STEPS = "skipped_steps"
    MOE_ROUTING = "moe_routing"


@dataclass
class ModuleStats:
    """One module in one run: dtypes seen, autocast state and numerics against the fp32 reference.

    ``error`` is max |out - ref| over positions finite in both, divided by max |ref|; ``overflow``
    counts values that are inf/nan where the reference is finite; ``underflow`` is the fraction of
    the reference's nonzero values that came out as zero. ``grad_*`` are the same for the module's
    own parameter gradients; ``input_grad_*`` the same for the gradient at the module's input (set on
    each block by the streamed doctor, which feeds every block the fp32 gradient at its output).
    """

    name: str
    type: str
    inputs: list[str]
    params: list[str]
    outputs: list[str]
    autocast: bool
    kept_fp32: bool = False
    error: float | None = None
    overflow: int = 0
    underflow: float = 0.0
    grad_error: float | None = None
    grad_overflow: int = 0
    grad_underflow: float = 0.0
    input_grad_error: float | None = None
    input_grad_overflow: int = 0

    @property
    def nonfinite_gradients(self) -> int:
        """Gradient values inf/nan where fp32's are finite: its parameters' and, on a streamed block, at its input."""
        return self.grad_overflow + self.input_grad_overflow


@dataclass
class Memory:
    """Bytes of parameters, gradients and activations (module outputs), estimated from tensor sizes."""

    params: int = 0
    grads: int = 0
    activations: int = 0

    @property
    def total(self) -> int:
        return self.params + self.grads + self.activations


@dataclass
class LossScale:
    """What a dynamic loss scaler does with gradients that overflow in an unscaled backward, measured
    by repeating the step's backward at the scales it tries: ``init_scale`` first, halved after each
    skipped step. ``scale``: the first with finite gradients (None: none down to float32's smallest)."""

    init_scale: float
    skipped_steps: int
    scale: float | None

    @property
    def absorbed(self) -> bool:
        """Some scale the scaler reaches makes every gradient finite."""
        return self.scale is not None


@dataclass
class ModeRun:
    """One policy in one mode (``train``: forward + backward; ``eval``: eval() under no_grad).

    ``seconds``: the median of ``timed_steps`` untraced steps after ``warmup_steps`` untimed ones
    (a run that raised: its one traced step). ``nonfinite``: every inf/nan measured where fp32's value
    is finite (outputs, loss, activations, gradients); ``overflow_origin``: the module whose own
    computation first made inf/nan in the forward (:data:`LOSS` for the loss alone); ``loss_scale``: the
    dynamic loss scaler's answer to overflowing gradients, measured when they are the only inf/nan.
    """

    mode: str
    ok: bool
    seconds: float
    memory: Memory
    warmup_steps: int = 0
    timed_steps: int = 0
    output_dtype: str | None = None
    error: float | None = None
    overflow: int = 0
    nonfinite: str | None = None
    loss: float | None = None
    loss_error: float | None = None
    loss_overflow: bool = False
    exception: str | None = None
    failing_module: str | None = None
    explanation: dict[str, str] | None = None
    overflow_origin: str | None = None
    loss_scale: LossScale | None = None
    modules: list[ModuleStats] = field(default_factory=list)

    @property
    def forward_overflow(self) -> bool:
        """The forward measured inf/nan where fp32 is finite: in the outputs, a module's output or the loss."""
        return bool(self.overflow) or self.loss_overflow or any(m.overflow for m in self.modules)

    def overflowing_modules(self) -> list[ModuleStats]:
        """Modules whose output overflowed while none of their submodules' did, in call order."""
        names = {m.name for m in self.modules if m.overflow}
        return [m for m in self.modules if m.name in names and not any(
            other != m.name and (m.name == ROOT or other.startswith(m.name + ".")) for other in names)]

    def gradient_overflows(self) -> list[ModuleStats]:
        """Modules with gradients that overflowed (:attr:`ModuleStats.nonfinite_gradients`), the most first."""
        return sorted((m for m in self.modules if m.nonfinite_gradients), key=lambda m: -m.nonfinite_gradients)

    @property
    def absorbed(self) -> bool:
        """Non-finite values were measured only in gradients, and the loss scaler was measured to absorb them."""
        return self.loss_scale is not None and self.loss_scale.absorbed and not self.forward_overflow

    @property
    def overflowed(self) -> bool:
        """The doctor's one rule: any inf/nan measured where fp32 is finite fails the run, unless the
        policy's loss scaler absorbs it."""
        return self.nonfinite is not None and not self.absorbed


@dataclass
class Fp8Layer:
    """One Linear an fp8 policy converts, run alone on its fp32 input (see ``doctor.fp8_report``).

    ``error``: its fp8 output against fp32; ``bf16_error``: against bf16-mixed's output;
    ``input_underflow``/``weight_underflow``: fraction of nonzero values below e4m3's smallest
    subnormal (2**-9) after the recipe's 448 / amax scale; ``input_amax``: the value mapped to 448.
    """

    name: str
    error: float | None
    bf16_error: float | None
    input_amax: float
    input_underflow: float
    weight_underflow: float


@dataclass
class PolicyResult:
    """A policy across modes, and whether it stays within the tolerance (``fp8``: its fp8 rows)."""

    policy: str
    runs: list[ModeRun]
    within_tolerance: bool
    fp8: list[Fp8Layer] | None = None

    @property
    def ok(self) -> bool:
        return all(run.ok for run in self.runs)

    @property
    def overflowed(self) -> bool:
        """Some run measured inf/nan where the fp32 reference is finite that no loss scaler absorbs."""
        return any(run.overflowed for run in self.runs)

    @property
    def max_error(self) -> float | None:
        """The largest output/loss error over the runs; None when unknown or not finite (overflow)."""
        if self.overflowed:
            return None
        errors = [e for run in self.runs for e in (run.error, run.loss_error) if e is not None]
        return max(errors) if errors else None

    def run(self, mode: str) -> ModeRun | None:
        """The run in ``mode``, if that mode was diagnosed."""
        return next((r for r in self.runs if r.mode == mode), None)


@dataclass
class Finding:
    """Something worth changing, with the fix."""

    kind: FindingKind
    severity: Severity
    message: str
    fix: str
    policy: str | None = None
    module: str | None = None


@dataclass
class KeepTrial:
    """One re-run of a search: the modules kept (in fp32, or out of fp8), whether it passed, its error."""

    modules: list[str]
    passed: bool
    error: float | None


@dataclass
class KeepFix:
    """The smallest set of modules found that, kept in fp32 (or out of fp8), brings ``policy`` within
    tolerance; ``trials``: every re-run the search made, in order (``tried`` of them)."""

    policy: str
    modules: list[str]
    error: float | None
    ok: bool
    tried: int
    trials: list[KeepTrial] = field(default_factory=list)


@dataclass
class Recommendation:
    """The cheapest policy within tolerance, and keep-fp32 fixes for cheaper policies that fail
    (``fp8_keep_out``: for fp8 policies, the Linears to keep out of fp8 instead).

    ``updates``: how to update its 16-bit weights (``kahan`` when trial training showed plain
    updates fall behind fp32 and Kahan-compensated ones do not; else ``none``).
    """

    policy: str | None
    tolerance: float
    reason: str
    keep_fp32: list[KeepFix] = field(default_factory=list)
    updates: str = "none"
    fp8_keep_out: list[KeepFix] = field(default_factory=list)


@dataclass
class TrainingMemory:
    """Bytes measured during a training step: weights, gradients and optimizer state as stored, and
    activations as the tensors autograd saved for backward (parameters not counted twice)."""

    params: int = 0
    grads: int = 0
    optimizer: int = 0
    activations: int = 0

    @property
    def total(self) -> int:
        return self.params + self.grads + self.optimizer + self.activations


@dataclass
class TrainingRun:
    """N optimizer steps under one policy and update rule (``none``: plain; ``kahan``: compensated).

    ``losses`` per step (None where not finite); ``final_gap``: the mean loss of the last tenth of
    the steps against fp32's, relative, signed (positive: higher than fp32); ``max_gap``: the
    largest |relative gap| at any step; ``swamping_rate``: the fraction of intended weight updates
    rounded away (sampled steps); ``step_seconds``: median wall time of an unsampled step;
    ``time_ratio`` and ``memory_ratio``: against fp32 (below 1: faster, smaller).
    """

    policy: str
    updates: str
    ok: bool
    losses: list[float | None]
    memory: TrainingMemory
    step_seconds: float | None = None
    final_gap: float | None = None
    max_gap: float | None = None
    swamping_rate: float = 0.0
    grad_underflow: float = 0.0
    skipped_steps: int = 0
    loss_scale: float | None = None
    time_ratio: float | None = None
    memory_ratio: float | None = None
    nonfinite: str | None = None
    exception: str | None = None

    @property
    def label(self) -> str:
        """The policy, with the update rule when it is not plain."""
        return self.policy if self.updates == "none" else f"{self.policy} + {self.updates}"


@dataclass
class Training:
    """The trial training: the same initial weights and batches for fp32 and every policy."""

    steps: int
    optimizer: str
    lr: float
    loss: str
    tolerance: float
    reference: TrainingRun
    runs: list[TrainingRun]

    def run(self, policy: str, updates: str = "none") -> TrainingRun:
        """The run of ``policy`` with ``updates`` (``none`` or ``kahan``)."""
        for run in self.runs:
            if run.policy == policy and run.updates == updates:
                return run
        raise KeyError(f"no training run of {policy!r} with updates={updates!r}")

    def passes(self, run: TrainingRun) -> bool:
        """Finite, and the final loss at most ``tolerance`` above fp32's."""
        return run.ok and run.nonfinite is None and run.final_gap is not None and run.final_gap <= self.tolerance

    def best(self, policy: str) -> TrainingRun | None:
        """The policy's passing run, plain updates first (the reference for ``32-true``); None if none passes."""
        runs = [self.reference] if policy == self.reference.policy else self.runs
        return next((r for r in runs if r.policy == policy and self.passes(r)), None)


@dataclass
class Routing:
    """Top-k routers (MoE gates) under one policy: tokens whose chosen experts differ from fp32's."""

    policy: str
    routers: list[str]
    tokens: int
    changed: int
    keep_policy: str | None = None
    changed_kept: int | None = None

    @property
    def rate(self) -> float:
        """The fraction of (token, router) choices that changed."""
        return self.changed / self.tokens if self.tokens else 0.0

    @property
    def keeping_helps(self) -> bool:
        """Keeping the routers in fp32 was measured to at least halve the changed choices."""
        return self.keep_policy is not None and self.changed_kept is not None and self.changed_kept * 2 <= self.changed


@dataclass
class ModeResult:
    """One forward in one mode: the output dtype, or the first line of the error it raised."""

    ok: bool
    output_dtype: str | None
    max_rel_error: float | None
    error: str | None


@dataclass
class ParityRow:
    """One policy run one way (``torch``: the naive way; ``castwise``: under ``cw.apply``)."""

    policy: str
    way: str
    train: ModeResult
    eval: ModeResult
    param_bytes: int

    @property
    def ok(self) -> bool:
        return self.train.ok and self.eval.ok


@dataclass
class Streaming:
    """How a streamed diagnosis (``stream=True``) read the checkpoint: one decoder block at a time.

    Module errors are per block, each block run on the fp32 reference's input (in train mode with the
    fp32 gradient at its output); a policy's output and loss errors are propagated: the final output
    with every block run in sequence under the policy. A run's ``seconds`` and memory add up each block's
    and the head's (a median after a warm-up each; ``warmup_steps`` and ``timed_steps``: the fewest any
    of them had). ``blocks`` blocks at ``path`` (``model.layers``); ``block_bytes``: the largest in
    fp32; ``outside_bytes``: everything else (embeddings, final norm, head) in fp32;
    ``activation_bytes``: the fp32 block inputs kept in memory between blocks.
    """

    blocks: int
    path: str
    block_bytes: int
    outside_bytes: int
    activation_bytes: int


@dataclass
class Report:
    """What ``cw.diagnose`` found: per policy and mode, findings, and a recommendation."""

    model: str
    tolerance: float
    modes: list[str]
    reference: list[ModeRun]
    policies: list[PolicyResult]
    findings: list[Finding]
    recommendation: Recommendation
    parity: list[ParityRow] | None = None
    training: Training | None = None
    routing: list[Routing] | None = None
    stream: Streaming | None = None
    schema: str = SCHEMA_ID

    def policy(self, name: str) -> PolicyResult:
        """The result for policy ``name`` (as written in the report)."""
        for result in self.policies:
            if result.policy == name:
                return result
        raise KeyError(f"{name!r} was not diagnosed; diagnosed: {', '.join(p.policy for p in self.policies)}")

    @property
    def ok(self) -> bool:
        """True when every diagnosed policy runs in every mode within tolerance (and, with a trial
        training, trains like fp32 with plain or Kahan updates)."""
        trains = self.training is None or all(self.training.best(p.policy) for p in self.policies)
        return trains and all(p.ok and p.within_tolerance for p in self.policies)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready values (the documented schema)."""
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text following ``REPORT_SCHEMA``."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> Report:
        """Read a report back from :meth:`to_json` output."""
        return from_dict(cls, json.loads(text))
