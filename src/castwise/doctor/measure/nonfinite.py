"""What a run that measured inf/nan is asked next, the same whether it ran the whole model or one part.

A forward that overflowed gets one more forward to find the module where the overflow started
(:mod:`origin`); gradients that overflowed after a finite forward, under a policy with a dynamic loss
scaler, get the scaler's answer measured (:mod:`scaling`). The in-memory doctor asks this of each
run of the model; the streamed doctor of each block's run and the head's.
"""

from __future__ import annotations

from collections.abc import Callable

from castwise.doctor.measure.origin import Finiteness, finiteness, overflow_origin
from castwise.doctor.measure.runner import Call, LossFn, Subject
from castwise.doctor.measure.scaling import settle_loss_scale
from castwise.doctor.report.data import LOSS, ModeRun
from castwise.policy import Policy


def follow_nonfinite(run: ModeRun, subject: Subject, policy: Policy, call: Call, loss_fn: LossFn | None, seed: int,
                     reference: Callable[[], Finiteness]) -> None:
    """Set ``run.overflow_origin`` (its forward overflowed; ``reference()``: fp32's finiteness of the same
    forward) or ``run.loss_scale`` (only gradients overflowed, and ``policy`` scales the loss dynamically)."""
    if run.forward_overflow:
        origin = overflow_origin(finiteness(subject, call, run.mode, seed), reference())
        run.overflow_origin = origin or (LOSS if run.loss_overflow else None)
    elif policy.loss_scaling == "dynamic" and run.gradient_overflows():
        run.loss_scale = settle_loss_scale(subject, policy, call, loss_fn, seed)
