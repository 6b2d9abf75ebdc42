"""Filling a candidate run's numerics in from what its capture measured against the fp32 reference,
and writing down every inf/nan it measured where fp32's value is finite (what that means is judged
from :attr:`ModeRun.overflowed <castwise.doctor.report.data.ModeRun.overflowed>`)."""

from __future__ import annotations

import math

from castwise.doctor.measure.compare import relative_difference
from castwise.doctor.measure.runner import Capture
from castwise.doctor.report.data import ModeRun

LISTED = 3
"""At most this many modules are named in a run's ``nonfinite`` text, per kind (activations, gradients)."""


def score(candidate: Capture, reference: Capture) -> None:
    """Set output, loss, per-module and per-module-gradient numerics of ``candidate.run`` in place."""
    run = candidate.run
    if not run.ok or not reference.run.ok or candidate.output_numerics is None:
        return
    run.error, run.overflow = candidate.output_numerics.error, candidate.output_numerics.overflow
    loss = run.loss
    if loss is not None and not math.isfinite(loss):
        reference_loss = reference.run.loss
        run.loss_overflow = reference_loss is None or math.isfinite(reference_loss)
        run.loss = None
    run.loss_error = relative_difference(run.loss, reference.run.loss)
    for stats in run.modules:
        numerics = candidate.module_numerics.get(stats.name)
        if numerics is not None:
            stats.error, stats.overflow, stats.underflow = numerics.error, numerics.overflow, numerics.underflow
        grads = candidate.grad_numerics.get(stats.name)
        if grads is not None:
            stats.grad_error, stats.grad_overflow, stats.grad_underflow = grads.error, grads.overflow, grads.underflow
    if run.overflow or run.loss_overflow:
        run.error = None
    run.nonfinite = nonfinite_text(run, loss)


def nonfinite_text(run: ModeRun, loss: float | None) -> str | None:
    """Every inf/nan ``run`` measured where fp32's value is finite, in words; None when there is none."""
    parts = [f"{run.overflow} output values"] if run.overflow else []
    if run.loss_overflow:
        parts.append(f"the loss ({loss})")
    parts += [f"{m.overflow} values out of module {m.name}" for m in run.overflowing_modules()[:LISTED]]
    parts += [f"{m.nonfinite_gradients} gradient values of module {m.name}" for m in run.gradient_overflows()[:LISTED]]
    return f"inf/nan where fp32's values are finite: {', '.join(parts)}" if parts else None
