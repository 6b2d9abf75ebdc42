"""One report entry per policy and mode from the streamed parts, read like the in-memory doctor's.

The module rows are the head run's (the root, embeddings, final norm, head) with each stubbed block's
row replaced by that block's own rows, in call order, so names and order match a whole-model trace.
The errors of the block rows are per block on the fp32 reference's input; the run's output and loss
figures, and the root row, are the propagated final run's: the blocks in sequence under the policy.
"""

from __future__ import annotations

import dataclasses

from castwise.doctor.report.data import Memory, ModeRun, ModuleStats
from castwise.doctor.stream.architecture import Blocks
from castwise.doctor.stream.runs import ROOT, Parts


def mode_run(parts: Parts, mode: str, blocks: Blocks) -> ModeRun:
    """The report entry of one policy in one mode."""
    runs = [parts.blocks[i] for i in sorted(parts.blocks)] + [r for r in (parts.head, parts.final) if r]
    final = parts.final
    run = ModeRun(
        mode=mode, ok=parts.failure is None and final is not None and all(r.ok for r in runs),
        seconds=sum(r.seconds for r in runs),
        memory=Memory(*(sum(getattr(r.memory, key) for r in runs) for key in ("params", "grads", "activations"))),
        modules=_rows(parts, blocks),
    )
    if final is not None:
        for key in ("output_dtype", "error", "overflow", "nonfinite", "loss", "loss_error"):
            setattr(run, key, getattr(final, key))
    failure = next(((r.exception, r.failing_module, r.explanation) for r in runs if not r.ok), None)
    if failure is None and parts.failure is not None:
        failure = (parts.failure.exception, parts.failure.module, parts.failure.explanation)
    if failure is not None:
        run.exception, run.failing_module, run.explanation = failure
    return run


def previous(parts: Parts, blocks: Blocks) -> dict[str, str | None]:
    """Which module finished before each one started: within its block (None for a block's first),
    and in the head run, where a module after the blocks had the fp32 final state as its input."""
    merged = dict(parts.previous)
    for name, before in parts.head_previous.items():
        if blocks.block_of(name) is None:
            merged[name] = None if before is not None and blocks.block_of(before) is not None else before
    return merged


def _rows(parts: Parts, blocks: Blocks) -> list[ModuleStats]:
    head = parts.head.modules if parts.head else []
    stubs = [k for k, stats in enumerate(head) if blocks.block_of(stats.name) is not None]
    first = stubs[0] if stubs else len(head)
    outside = [s for s in head if blocks.block_of(s.name) is None]
    before, after = outside[:first], outside[first:]
    rows = [_root(s, parts.final) if s.name == ROOT else s for s in before]
    for index in sorted(parts.blocks):
        grads = parts.input_grads.get(index)
        for stats in parts.blocks[index].modules:
            if stats.name == ROOT:
                continue
            if grads is not None and stats.name == blocks.name(index):
                stats = dataclasses.replace(stats, input_grad_error=grads.error, input_grad_overflow=grads.overflow)
            rows.append(stats)
    return rows + after


def _root(stats: ModuleStats, final: ModeRun | None) -> ModuleStats:
    """The model's own row carries the propagated output's figures."""
    if final is None:
        return stats
    return dataclasses.replace(stats, error=final.error, overflow=final.overflow)
