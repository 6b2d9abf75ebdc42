"""One report entry per policy and mode from the streamed parts, read like the in-memory doctor's.

The module rows are the head run's (the root, embeddings, final norm, head) with each stubbed block's
row replaced by that block's own rows, in call order, so names and order match a whole-model trace.
The errors of the block rows are per block on the fp32 reference's input; the run's output and loss
figures, and the root row, are the propagated final run's: the blocks in sequence under the policy.
Every inf/nan is then judged by the in-memory doctor's one rule: listed in ``nonfinite`` from the
rows and the propagated output and loss, the overflow's origin the first part's in the model's order,
and the loss scale the one every part's gradients need.
"""

from __future__ import annotations

import dataclasses

from castwise.doctor.measure.scoring import nonfinite_text
from castwise.doctor.report.data import LOSS, ROOT, LossScale, Memory, ModeRun, ModuleStats
from castwise.doctor.stream.architecture import Blocks
from castwise.doctor.stream.runs import Parts


def mode_run(parts: Parts, mode: str, blocks: Blocks) -> ModeRun:
    """The report entry of one policy in one mode. Its time and memory add up the measured parts (each
    block's and the head's; a time is a median after a warm-up, see :class:`ModeRun`)."""
    measured = [parts.blocks[i] for i in sorted(parts.blocks)] + ([parts.head] if parts.head else [])
    final = parts.final
    run = ModeRun(
        mode=mode, ok=parts.failure is None and final is not None and all(r.ok for r in [*measured, final]),
        seconds=sum(r.seconds for r in measured),
        memory=Memory(*(sum(getattr(r.memory, key) for r in measured) for key in ("params", "grads", "activations"))),
        warmup_steps=min((r.warmup_steps for r in measured), default=0),
        timed_steps=min((r.timed_steps for r in measured), default=0),
        modules=_rows(parts, blocks),
    )
    if final is not None:
        for key in ("output_dtype", "error", "overflow", "loss", "loss_error", "loss_overflow"):
            setattr(run, key, getattr(final, key))
    failure = next(((r.exception, r.failing_module, r.explanation) for r in [*measured, final] if r and not r.ok),
                   None)
    if failure is None and parts.failure is not None:
        failure = (parts.failure.exception, parts.failure.module, parts.failure.explanation)
    if failure is not None:
        run.exception, run.failing_module, run.explanation = failure
        return run
    run.nonfinite = nonfinite_text(run, parts.final_loss)
    if run.forward_overflow:
        run.overflow_origin = _origin(parts, blocks) or (LOSS if run.loss_overflow else None)
    elif run.gradient_overflows():
        run.loss_scale = _loss_scale(measured)
    return run


def previous(parts: Parts, blocks: Blocks) -> dict[str, str | None]:
    """Which module finished before each one started: within its block (None for a block's first),
    and in the head run, where a module after the blocks had the fp32 final state as its input."""
    merged = dict(parts.previous)
    for name, before in parts.head_previous.items():
        if blocks.block_of(name) is None:
            merged[name] = None if before is not None and blocks.block_of(before) is not None else before
    return merged


def _origin(parts: Parts, blocks: Blocks) -> str | None:
    """Where the overflow started: the first origin found by the parts' follow-ups in the model's order
    (the head run's before the blocks when it is a module that ran before them, else after them)."""
    head = parts.head.overflow_origin if parts.head else None
    first = head is not None and head != ROOT and head in {s.name for s in _around_blocks(parts, blocks)[0]}
    ordered = [head if first else None, *(parts.blocks[i].overflow_origin for i in sorted(parts.blocks)),
               None if first else head]
    return next((origin for origin in ordered if origin), None)


def _loss_scale(runs: list[ModeRun]) -> LossScale | None:
    """The scale the policy's scaler settles at for the whole step, where every part's gradients are
    finite: the one that skips the most steps (overflow only shrinks with the scale), or a part's that
    no scale absorbs."""
    scales = [r.loss_scale for r in runs if r.loss_scale is not None]
    unabsorbed = next((s for s in scales if not s.absorbed), None)
    return unabsorbed or max(scales, key=lambda s: s.skipped_steps, default=None)


def _around_blocks(parts: Parts, blocks: Blocks) -> tuple[list[ModuleStats], list[ModuleStats]]:
    """The head run's rows outside the blocks: those that ran before the first block, and the rest."""
    head = parts.head.modules if parts.head else []
    stubs = [k for k, stats in enumerate(head) if blocks.block_of(stats.name) is not None]
    first = stubs[0] if stubs else len(head)
    outside = [s for s in head if blocks.block_of(s.name) is None]
    return outside[:first], outside[first:]


def _rows(parts: Parts, blocks: Blocks) -> list[ModuleStats]:
    before, after = _around_blocks(parts, blocks)
    rows = [_root(s, parts.final) if s.name == ROOT else s for s in before]
    for index in sorted(parts.blocks):
        rows += [stats for stats in parts.blocks[index].modules if stats.name != ROOT]
    return rows + after


def _root(stats: ModuleStats, final: ModeRun | None) -> ModuleStats:
    """The model's own row carries the propagated output's figures."""
    if final is None:
        return stats
    return dataclasses.replace(stats, error=final.error, overflow=final.overflow)
