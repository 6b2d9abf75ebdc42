"""What the streamed doctor keeps of its runs: per policy and mode, each block's run and the head's.

A block's run (from :func:`castwise.doctor.measure.runner.run_mode`) is kept as its report entry
only; its captured tensors go with the block. Forwards that are not measured (the frame recording
what each block receives, and the propagated pass) are traced only to say where they raised.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from castwise.doctor.measure.runner import Call, Capture, Subject, seeded
from castwise.doctor.measure.trace import Tracer
from castwise.doctor.report.data import ROOT, ModeRun
from castwise.explainer import explain


@dataclass(frozen=True)
class Failure:
    """A forward that raised: ``Type: first line``, the innermost module running, and what cw.explain says of it."""

    exception: str
    module: str | None
    explanation: dict[str, str] | None

    @classmethod
    def of(cls, exc: Exception, module: str | None) -> Failure:
        """The failure ``exc`` raised inside ``module``."""
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        explanation = explain(exc)
        return cls(f"{type(exc).__name__}: {first_line}", module, asdict(explanation) if explanation else None)


def traced_forward(subject: Subject, call: Call, mode: str, seed: int) -> Any:
    """One forward of ``subject``'s model in ``mode`` under no_grad, seeded; a :class:`Failure` if it raised."""
    subject.model.train(mode == "train")
    tracer = Tracer(subject.index)
    try:
        with seeded(seed, subject.index.cuda_devices), tracer, torch.no_grad():
            return subject.model(*call.args, **call.kwargs)
    except Exception as exc:  # reported as the policy's failure, like the measured runs' exceptions
        return Failure.of(exc, tracer.failing_module)


@dataclass
class Parts:
    """One policy in one mode: each block's run on its fp32 input, the head's, the propagated final
    run (blocks in sequence under the policy) and its loss as computed (inf/nan kept), which module
    finished before each one, and a failure outside the measured runs."""

    blocks: dict[int, ModeRun] = field(default_factory=dict)
    head: ModeRun | None = None
    final: ModeRun | None = None
    final_loss: float | None = None
    previous: dict[str, str | None] = field(default_factory=dict)
    head_previous: dict[str, str | None] = field(default_factory=dict)
    failure: Failure | None = None

    def add_block(self, index: int, capture: Capture) -> None:
        """Keep block ``index``'s run and the order its modules ran in (the frame's root left out)."""
        self.blocks[index] = capture.run
        self.previous.update({name: None if before == ROOT else before
                              for name, before in capture.previous.items() if name != ROOT})

    def fail(self, failure: Failure) -> None:
        """Remember the first failure outside the measured runs."""
        self.failure = self.failure or failure
