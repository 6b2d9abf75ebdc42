"""The report ``cw.diagnose`` returns: plain values only, rendered as text, JSON or HTML.

The JSON layout is :data:`castwise.doctor.schema.REPORT_SCHEMA` (``schema`` field: ``SCHEMA_ID``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from castwise.doctor.parity import ParityRow
from castwise.doctor.serialize import from_dict

SCHEMA_ID = "castwise.doctor.report/1"


@dataclass
class ModuleStats:
    """One module in one run: dtypes seen, autocast state and numerics against the fp32 reference.

    ``error`` is max |out - ref| over positions finite in both, divided by max |ref|; ``overflow``
    counts values that are inf/nan where the reference is finite; ``underflow`` is the fraction of
    the reference's nonzero values that came out as zero. ``grad_*`` are the same for the module's
    own parameter gradients.
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
class ModeRun:
    """One policy in one mode (``train``: forward + backward; ``eval``: eval() under no_grad)."""

    mode: str
    ok: bool
    seconds: float
    memory: Memory
    output_dtype: str | None = None
    error: float | None = None
    overflow: int = 0
    loss: float | None = None
    loss_error: float | None = None
    exception: str | None = None
    failing_module: str | None = None
    explanation: dict[str, str] | None = None
    modules: list[ModuleStats] = field(default_factory=list)


@dataclass
class PolicyResult:
    """A policy across modes, and whether it stays within the tolerance."""

    policy: str
    runs: list[ModeRun]
    within_tolerance: bool

    @property
    def ok(self) -> bool:
        return all(run.ok for run in self.runs)

    @property
    def max_error(self) -> float | None:
        errors = [e for run in self.runs for e in (run.error, run.loss_error) if e is not None]
        return max(errors) if errors else None

    def run(self, mode: str) -> ModeRun | None:
        """The run in ``mode``, if that mode was diagnosed."""
        return next((r for r in self.runs if r.mode == mode), None)


@dataclass
class Finding:
    """Something worth changing, with the fix; ``severity`` is ``error``, ``warning`` or ``info``."""

    kind: str
    severity: str
    message: str
    fix: str
    policy: str | None = None
    module: str | None = None


@dataclass
class KeepFix:
    """The smallest set of modules found that, kept in fp32, brings ``policy`` within tolerance."""

    policy: str
    modules: list[str]
    error: float | None
    ok: bool
    tried: int


@dataclass
class Recommendation:
    """The cheapest policy within tolerance, and keep-fp32 fixes for cheaper policies that fail."""

    policy: str | None
    tolerance: float
    reason: str
    keep_fp32: list[KeepFix] = field(default_factory=list)


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
    schema: str = SCHEMA_ID

    def policy(self, name: str) -> PolicyResult:
        """The result for policy ``name`` (as written in the report)."""
        for result in self.policies:
            if result.policy == name:
                return result
        raise KeyError(f"{name!r} was not diagnosed; diagnosed: {', '.join(p.policy for p in self.policies)}")

    @property
    def ok(self) -> bool:
        """True when every diagnosed policy runs in every mode within tolerance."""
        return all(p.ok and p.within_tolerance for p in self.policies)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready values (the documented schema)."""
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text following ``REPORT_SCHEMA``."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> "Report":
        """Read a report back from :meth:`to_json` output."""
        return from_dict(cls, json.loads(text))

    def to_html(self, path: str | Path | None = None) -> str:
        """A self-contained HTML page with charts; written to ``path`` when given. Needs matplotlib."""
        from castwise.doctor.render_html import render_html

        page = render_html(self)
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

    def __rich__(self) -> Any:
        from castwise.doctor.render_text import render_text

        return render_text(self)
