"""Numeric comparison against the fp32 reference: relative error, overflow and underflow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch


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
"""Tensors below this many elements are handled together in one concatenated pass: for them the
per-op overhead, not memory traffic, is the cost."""


@dataclass(frozen=True)
class Reference:
    """A float32 copy of a reference tensor with what every comparison needs of it, computed once."""

    tensor: torch.Tensor
    scale: float
    nonzero: int
    finite: bool

    @classmethod
    def of(cls, tensor: torch.Tensor) -> Reference:
        """Copy ``tensor`` (later in-place ops must not change the reference) and summarise it."""
        copy = tensor.detach().to(torch.float32, copy=True)
        if not copy.numel():
            return cls(copy, 0.0, 0, True)
        finite = bool(torch.isfinite(copy).all())
        magnitude = copy.abs() if finite else torch.where(torch.isfinite(copy), copy.abs(), 0.0)
        return cls(copy, float(magnitude.max()), int(torch.count_nonzero(copy)), finite)

    @classmethod
    def many(cls, tensors: Sequence[torch.Tensor]) -> list[Reference]:
        """:meth:`of` for many tensors: the small ones summarised together in one concatenated pass."""
        small = [t for t in tensors if 0 < t.numel() < SMALL]
        if len(small) < 2:
            return [cls.of(t) for t in tensors]
        copies = [t.detach().to(torch.float32, copy=True) for t in small]
        flat = torch.cat([c.reshape(-1) for c in copies])
        lengths = torch.tensor([c.numel() for c in copies], device=flat.device)
        finite = torch.isfinite(flat)
        scales = torch.segment_reduce(torch.where(finite, flat.abs(), 0.0), "max", lengths=lengths, initial=0.0)
        counts = _segment_sums(torch.stack([~finite, flat != 0], dim=1), lengths)
        summary = torch.cat([scales[:, None], counts], dim=1)
        summaries = iter(zip(copies, summary.tolist()))
        references = []
        for tensor in tensors:
            if 0 < tensor.numel() < SMALL:
                copy, (scale, not_finite, nonzero) = next(summaries)
                references.append(cls(copy, scale, int(nonzero), not_finite == 0))
            else:
                references.append(cls.of(tensor))
        return references


Group = tuple[Sequence[torch.Tensor], Sequence[Reference]]
"""Candidate tensors and their references, compared together as one module's outputs."""


def compare(candidates: Sequence[torch.Tensor], references: Sequence[Reference]) -> Numerics:
    """Compare tensors pairwise and combine: worst error, total overflow, overall underflow fraction."""
    return compare_all([(candidates, references)])[0]


def compare_all(groups: Sequence[Group]) -> list[Numerics]:
    """:func:`compare` for many groups at once (small tensors in one batch, large ones one by one)."""
    valid = [bool(c) and len(c) == len(r) and all(a.shape == b.tensor.shape for a, b in zip(c, r)) for c, r in groups]
    pairs = [(c.detach(), r) for (cs, rs), ok in zip(groups, valid) if ok for c, r in zip(cs, rs)]
    large = {i: _pair(c.float(), r) for i, (c, r) in enumerate(pairs) if r.tensor.numel() >= SMALL}
    small = [i for i in range(len(pairs)) if i not in large]
    if small:
        large.update(zip(small, _batched([pairs[i] for i in small]).unbind(0)))
    values = iter(torch.stack([large[i] for i in range(len(pairs))]).tolist() if pairs else [])
    results = []
    for (_, references), ok in zip(groups, valid):
        if not ok:
            results.append(NOTHING)
            continue
        measured = [next(values) for _ in references]
        errors = [d / r.scale if r.scale > 0 else d for (d, _, _), r in zip(measured, references)]
        nonzero = sum(r.nonzero for r in references)
        flushed = sum(f for _, _, f in measured)
        overflow = int(sum(o for _, o, _ in measured))
        results.append(Numerics(max(errors), overflow, flushed / nonzero if nonzero else 0.0))
    return results


def _batched(pairs: Sequence[tuple[torch.Tensor, Reference]]) -> torch.Tensor:
    """One row per pair, like :func:`_pair`, computed over all pairs concatenated."""
    expected = torch.cat([r.tensor.reshape(-1) for _, r in pairs])
    candidate = torch.cat([c.reshape(-1).float() for c, _ in pairs])
    lengths = torch.tensor([r.tensor.numel() for _, r in pairs], device=expected.device)
    differences = (candidate - expected).abs()
    diff = torch.segment_reduce(differences, "max", lengths=lengths, initial=0.0)
    if bool(torch.isfinite(diff).all()):  # NaN and inf propagate through the max: all values finite
        overflow = diff.new_zeros(len(pairs))
    else:
        expected_finite = torch.isfinite(expected)
        both = expected_finite & torch.isfinite(candidate)
        diff = torch.segment_reduce(torch.where(both, differences, 0.0), "max", lengths=lengths, initial=0.0)
        overflow = _segment_sums(expected_finite & ~both, lengths)
    zero = candidate == 0
    flushed = _segment_sums(zero & (expected != 0), lengths) if bool(zero.any()) else diff.new_zeros(len(pairs))
    return torch.stack([diff, overflow, flushed], dim=1)


def _segment_sums(mask: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """How many values are True in each run of ``lengths`` consecutive rows of ``mask``, as float32
    (exact: a run is shorter than :data:`SMALL`)."""
    return torch.segment_reduce(mask.to(torch.float32), "sum", lengths=lengths, axis=0)


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
