"""Where an overflow starts: the module whose own computation first made inf/nan.

The first module to hand back inf/nan is not always the one that made it: in an attention block
that computes ``q @ k.T`` in its own forward, the logits overflow between submodule calls and the
first module to return inf/nan is the output projection, which was handed them. So, only for a run
that overflowed, one more forward records whether each module's inputs and output were finite: the
first module (in the order they finish) whose output newly has inf/nan made them itself if its
inputs were finite, and otherwise was handed them by the code of the module that called it.
"Newly": fp32's own run of the same mode is recorded alike, and what is not finite there (a -inf
attention mask) is not counted.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from castwise.doctor.measure.runner import Call, Subject, seeded, state_kept
from castwise.doctor.measure.trace import Tracer
from castwise.doctor.report.data import ROOT

Finiteness = dict[str, tuple[bool, bool]]
"""Per module, in the order they finished their first call: (inputs all finite, output all finite)."""


def _finite(tensors: Sequence[torch.Tensor]) -> bool:
    return all(bool(torch.isfinite(t).all()) for t in tensors)


def finiteness(subject: Subject, call: Call, mode: str, seed: int) -> Finiteness:
    """One forward of ``subject``'s model in ``mode`` recording which modules saw and made inf/nan
    (``{}`` if it raised: the traced run reports that)."""
    inputs: dict[str, bool] = {}
    recorded: Finiteness = {}
    tracer = Tracer(subject.index, on_output=lambda name, tensors: recorded.__setitem__(
        name, (inputs[name], _finite(tensors))), on_inputs=lambda name, tensors: inputs.__setitem__(
        name, _finite(tensors)))
    with state_kept(subject, call), seeded(seed, subject.index.cuda_devices), tracer:
        subject.model.train(mode == "train")
        try:
            with torch.no_grad():
                subject.model(*call.args, **call.kwargs)
        except Exception:  # the traced run has already reported what the forward raised
            return {}
    return recorded


def overflow_origin(candidate: Finiteness, reference: Finiteness) -> str | None:
    """The module whose own computation first made inf/nan that ``reference`` (fp32) does not have."""
    for name, (inputs_finite, output_finite) in candidate.items():
        reference_inputs, reference_output = reference.get(name, (True, True))
        if output_finite or not reference_output:
            continue
        handed = not inputs_finite and reference_inputs
        return (name.rpartition(".")[0] or ROOT) if handed and name != ROOT else name
    return None
