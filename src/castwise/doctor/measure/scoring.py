"""Filling a candidate run's numerics in from what its capture measured against the fp32 reference."""

from __future__ import annotations

import math

from castwise.doctor.measure.compare import relative_difference
from castwise.doctor.measure.runner import Capture


def score(candidate: Capture, reference: Capture) -> None:
    """Set output, loss, per-module and per-module-gradient numerics of ``candidate.run`` in place."""
    run = candidate.run
    if not run.ok or not reference.run.ok or candidate.output_numerics is None:
        return
    run.error, run.overflow = candidate.output_numerics.error, candidate.output_numerics.overflow
    reasons = [f"{run.overflow} output values are inf/nan where fp32's are finite"] if run.overflow else []
    if run.loss is not None and not math.isfinite(run.loss):
        reasons.append(f"the loss is {run.loss}")
        run.loss = None
    if reasons:
        run.error, run.nonfinite = None, "; ".join(reasons)
    run.loss_error = relative_difference(run.loss, reference.run.loss)
    for stats in run.modules:
        numerics = candidate.module_numerics.get(stats.name)
        if numerics is not None:
            stats.error, stats.overflow, stats.underflow = numerics.error, numerics.overflow, numerics.underflow
        grads = candidate.grad_numerics.get(stats.name)
        if grads is not None:
            stats.grad_error, stats.grad_overflow, stats.grad_underflow = grads.error, grads.overflow, grads.underflow
