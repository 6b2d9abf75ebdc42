"""Numeric comparison against the fp32 reference: relative error, overflow and underflow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from castwise.doctor.measure.packed import Packed


@dataclass(frozen=True)
class Numerics:
    """``error``: max |c - r| over positions finite in both, over max |r| (None if shapes differ);
    ``overflow``: values inf/nan where the reference is finite; ``underflow``: fraction of the
    reference's nonzero values that came out exactly zero."""

    error: float | None
    overflow: int
    underflow: float


NOTHING = Numerics(None, 0, 0.0)

SMALL = 1 << 15
"""Tensors below this many elements are packed together (:class:`Packed`) and measured in one pass:
for them the per-op overhead, not memory traffic, is the cost."""


@dataclass(frozen=True)
class Reference:
    """A float32 copy of a reference tensor with what every comparison needs of it, computed once.
    A small one is a slot of a :class:`Packed` buffer (``packed``, ``slot``)."""

    tensor: torch.Tensor
    scale: float
    nonzero: int
    finite: bool
    packed: Packed | None = None
    slot: int = 0

    @classmethod
    def of(cls, tensor: torch.Tensor) -> Reference:
        """Copy ``tensor`` (later in-place ops must not change the reference) and summarise it."""
        return cls.many([tensor])[0]

    @classmethod
    def many(cls, tensors: Sequence[torch.Tensor]) -> list[Reference]:
        """:meth:`of` for many tensors: the small ones on each device packed and summarised together."""
        references: list[Reference | None] = [None] * len(tensors)
        small: dict[torch.device, list[int]] = {}
        for index, tensor in enumerate(tensors):
            if 0 < tensor.numel() < SMALL:
                small.setdefault(tensor.device, []).append(index)
            else:
                references[index] = cls._alone(tensor)
        for indices in small.values():
            packed = Packed([tensors[i] for i in indices])
            for slot, (index, view, (scale, nonzero, finite)) in enumerate(
                    zip(indices, packed.views, packed.summaries())):
                references[index] = cls(view, scale, nonzero, finite, packed, slot)
        return [r for r in references if r is not None]

    @classmethod
    def _alone(cls, tensor: torch.Tensor) -> Reference:
        copy = tensor.detach().to(torch.float32, copy=True)
        if not copy.numel():
            return cls(copy, 0.0, 0, True)
        finite = bool(torch.isfinite(copy).all())
        magnitude = copy.abs() if finite else torch.where(torch.isfinite(copy), copy.abs(), 0.0)
        return cls(copy, float(magnitude.max()), int(torch.count_nonzero(copy)), finite)


Group = tuple[Sequence[torch.Tensor], Sequence[Reference]]
"""Candidate tensors and their references, compared together as one module's outputs."""


class Comparison:
    """Groups of candidates measured against their references. A candidate with a packed reference
    is copied at once into a buffer laid out like the reference's (later in-place ops cannot change
    it) and measured with the others in :meth:`results`; any other is measured when added."""

    def __init__(self) -> None:
        self._buffers: dict[int, tuple[Packed, tuple[torch.Tensor, list[torch.Tensor]]]] = {}
        self._filled: set[tuple[int, int]] = set()
        self._groups: list[tuple[list[tuple[int, int] | torch.Tensor], Sequence[Reference]] | None] = []

    def add(self, candidates: Sequence[torch.Tensor], references: Sequence[Reference]) -> None:
        """Measure ``candidates`` against ``references`` as one group (no numerics if shapes differ)."""
        if not candidates or len(candidates) != len(references) or any(
                c.shape != r.tensor.shape for c, r in zip(candidates, references)):
            self._groups.append(None)
            return
        entries: list[tuple[int, int] | torch.Tensor] = []
        for candidate, reference in zip(candidates, references):
            key = (id(reference.packed), reference.slot)
            if reference.packed is None or key in self._filled:
                entries.append(_pair(candidate.detach().float(), reference))
                continue
            self._slots(reference.packed)[reference.slot].copy_(candidate.detach())
            self._filled.add(key)
            entries.append(key)
        self._groups.append((entries, references))

    def results(self) -> list[Numerics]:
        """The numerics of each group, in the order they were added (once: the buffers are given back)."""
        packed_rows = {key: packed.measure(lent[0]).tolist() for key, (packed, lent) in self._buffers.items()}
        for packed, lent in self._buffers.values():
            packed.take_back(lent)
        self._buffers.clear()
        alone = [e for group in self._groups if group for e in group[0] if isinstance(e, torch.Tensor)]
        alone_rows = iter(torch.stack(alone).tolist() if alone else [])
        results = []
        for group in self._groups:
            if group is None:
                results.append(NOTHING)
                continue
            entries, references = group
            measured = [next(alone_rows) if isinstance(e, torch.Tensor) else packed_rows[e[0]][e[1]] for e in entries]
            results.append(_combine(measured, references))
        return results

    def _slots(self, packed: Packed) -> list[torch.Tensor]:
        if id(packed) not in self._buffers:
            self._buffers[id(packed)] = (packed, packed.lend())
        return self._buffers[id(packed)][1][1]


def _combine(measured: list[list[float]], references: Sequence[Reference]) -> Numerics:
    """One group's numerics from its rows of [max difference, overflow, flushed]."""
    if len(measured) == 1:  # most modules return one tensor
        (difference, overflow, flushed), (reference,) = measured[0], references
        error = difference / reference.scale if reference.scale > 0 else difference
        return Numerics(error, int(overflow), flushed / reference.nonzero if reference.nonzero else 0.0)
    errors = [d / r.scale if r.scale > 0 else d for (d, _, _), r in zip(measured, references)]
    nonzero = sum(r.nonzero for r in references)
    flushed = sum(f for _, _, f in measured)
    return Numerics(max(errors), int(sum(o for _, o, _ in measured)), flushed / nonzero if nonzero else 0.0)


def compare(candidates: Sequence[torch.Tensor], references: Sequence[Reference]) -> Numerics:
    """Compare tensors pairwise and combine: worst error, total overflow, overall underflow fraction."""
    return compare_all([(candidates, references)])[0]


def compare_all(groups: Sequence[Group]) -> list[Numerics]:
    """:func:`compare` for many groups at once (small tensors packed and measured in one pass)."""
    comparison = Comparison()
    for candidates, references in groups:
        comparison.add(candidates, references)
    return comparison.results()


def _pair(candidate: torch.Tensor, reference: Reference) -> torch.Tensor:
    """[max |c - ref| over positions finite in both, values overflowed, nonzero values flushed to zero]."""
    expected = reference.tensor
    if not expected.numel():
        return expected.new_zeros(3)
    if int(torch.count_nonzero(candidate)) == candidate.numel():  # no zeros: nothing flushed
        flushed = expected.new_zeros(())
    else:
        flushed = torch.count_nonzero((candidate == 0) & (expected != 0)).to(expected.dtype)
    diff = (candidate - expected).abs().max()
    if reference.finite and torch.isfinite(diff):  # NaN and inf propagate through max: all finite
        return torch.stack([diff, expected.new_zeros(()), flushed])
    expected_finite = torch.isfinite(expected)
    both = expected_finite & torch.isfinite(candidate)
    return torch.stack([
        torch.where(both, (candidate - expected).abs(), 0.0).max(),
        (expected_finite & ~both).sum().to(expected.dtype),
        flushed,
    ])


def relative_difference(value: float | None, reference: float | None) -> float | None:
    """|value - reference| / |reference| (absolute difference when the reference is zero)."""
    if value is None or reference is None:
        return None
    scale = abs(reference)
    return abs(value - reference) / scale if scale > 0 else abs(value - reference)
