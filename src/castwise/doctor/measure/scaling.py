"""What a policy's dynamic loss scaler does with gradients that overflow: measured, not assumed.

castwise's scaler (torch's GradScaler recipe) starts at a large scale and, each time a gradient is
inf/nan, skips the optimizer step and halves the scale. A skipped step leaves the weights as they
were, so the steps it skips are the same forward with the loss times smaller and smaller scales:
this runs that forward once and its backward at the scales the scaler would try, bisecting for the
first one with every gradient finite (overflow only shrinks as the scale does): the parameters' and
those of inputs that need one (a streamed block's input). That scale and the number of steps skipped
before it are what the report states; a non-finite loss is never absorbed.
"""

from __future__ import annotations

import math

import torch

from castwise.doctor.measure.runner import Call, LossFn, Subject, seeded, state_kept, training_loss
from castwise.doctor.measure.trace import floating_tensors
from castwise.doctor.report.data import LossScale
from castwise.policy import Policy
from castwise.training import LossScaler

SMALLEST_SCALE = torch.finfo(torch.float32).tiny
"""The scaler never backs off below this."""


def settle_loss_scale(subject: Subject, policy: Policy, call: Call, loss_fn: LossFn | None, seed: int) -> LossScale:
    """The scale ``policy``'s loss scaler settles at for one train step of ``subject``, and the steps it skips."""
    scaler = LossScaler(policy)
    initial, backoff = scaler.get_scale(), scaler.get_backoff_factor()
    tries = math.floor(math.log(SMALLEST_SCALE / initial) / math.log(backoff)) + 1
    model, index = subject.model, subject.index
    with state_kept(subject, call), seeded(seed, index.cuda_devices):
        model.train()
        loss = training_loss(model(*call.args, **call.kwargs), loss_fn)
        if loss is None or not bool(torch.isfinite(loss.detach()).all()):
            return LossScale(initial, 0, None)
        inputs = [t for t in floating_tensors((call.args, call.kwargs)) if t.requires_grad]
        leaves = [p for _, p in index.params] + inputs

        def finite_at(skipped: int) -> bool:
            for tensor in leaves:
                tensor.grad = None
            (loss.float() * (initial * backoff**skipped)).backward(retain_graph=True)
            return all(bool(torch.isfinite(t.grad).all()) for t in leaves if t.grad is not None)

        if not finite_at(tries - 1):
            return LossScale(initial, 0, None)
        low, high = -1, tries - 1  # finite_at(high) holds; finite_at(low) is taken not to
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (low, middle) if finite_at(middle) else (middle, high)
    return LossScale(initial, high, initial * backoff**high)
