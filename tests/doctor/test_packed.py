"""Packed comparison: small tensors measured together in one buffer give each tensor's own numbers."""

from __future__ import annotations

import math

import pytest
import torch

from castwise.doctor.measure.compare import SMALL, Comparison, Numerics, Reference, compare_all
from castwise.doctor.measure.packed import BLOCK

SIZES = (1, BLOCK - 1, BLOCK, BLOCK + 1, 300, 7)


def _expected(candidate: torch.Tensor, reference: torch.Tensor) -> Numerics:
    """The definition, one tensor at a time in float64 with boolean masks."""
    c, r = candidate.double().flatten(), reference.float().double().flatten()
    both = torch.isfinite(c) & torch.isfinite(r)
    scale = float(torch.where(torch.isfinite(r), r.abs(), 0.0).max())
    difference = float((c - r).abs()[both].max()) if both.any() else 0.0
    nonzero = int((r != 0).sum())
    return Numerics(
        error=difference / scale if scale > 0 else difference,
        overflow=int((torch.isfinite(r) & ~torch.isfinite(c)).sum()),
        underflow=int(((c == 0) & (r != 0)).sum()) / nonzero if nonzero else 0.0,
    )


def _tensors(seed: int) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """References of awkward sizes and bf16 candidates with zeros flushed, some rounding and exact copies."""
    generator = torch.Generator().manual_seed(seed)
    references = [torch.randn(size, generator=generator) * 10.0 ** (i - 2) for i, size in enumerate(SIZES)]
    references[4][:5] = 0.0
    candidates = [r.to(torch.bfloat16) for r in references]
    candidates[4][5:9] = 0.0
    return references, candidates


def _assert_close(got: list[Numerics], want: list[Numerics]) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.overflow == w.overflow and g.underflow == pytest.approx(w.underflow)
        assert g.error == pytest.approx(w.error, rel=1e-5, abs=1e-12)


def test_packed_references_summarise_each_tensor() -> None:
    tensors = [torch.tensor([0.0, -3.0, 1.0]), torch.tensor([math.inf, 2.0, math.nan]), torch.zeros(BLOCK),
               torch.ones(BLOCK + 1)]
    references = Reference.many(tensors)
    assert {id(r.packed) for r in references} == {id(references[0].packed)}
    assert [(r.scale, r.nonzero, r.finite) for r in references] == [
        (3.0, 2, True), (2.0, 3, False), (0.0, 0, True), (1.0, BLOCK + 1, True)]
    assert all(torch.equal(r.tensor.nan_to_num(), t.nan_to_num()) for r, t in zip(references, tensors))


def test_each_slot_measured_as_if_alone() -> None:
    references, candidates = _tensors(0)
    got = compare_all([([c], [r]) for c, r in zip(candidates, Reference.many(references))])
    _assert_close(got, [_expected(c, r) for c, r in zip(candidates, references)])


def test_inf_and_nan_in_one_slot_leave_the_others_exact() -> None:
    references, candidates = _tensors(1)
    references[2][3] = math.inf  # a reference value that is not finite counts nowhere
    candidates[1][0], candidates[3][2:4] = math.nan, math.inf
    got = compare_all([([c], [r]) for c, r in zip(candidates, Reference.many(references))])
    _assert_close(got, [_expected(c, r) for c, r in zip(candidates, references)])
    assert [n.overflow for n in got] == [0, 1, 0, 2, 0, 0]


def test_candidates_are_copied_when_added() -> None:
    references, candidates = _tensors(2)
    comparison = Comparison()
    for candidate, reference in zip(candidates, Reference.many(references)):
        comparison.add([candidate], [reference])
    want = [_expected(c, r) for c, r in zip(candidates, references)]
    for candidate in candidates:
        candidate.mul_(0.0)  # a later in-place op on a module's output
    _assert_close(comparison.results(), want)


def test_a_reused_buffer_carries_nothing_over() -> None:
    references, candidates = _tensors(3)
    packed = Reference.many(references)
    poisoned = [torch.full_like(c, math.nan) for c in candidates]
    compare_all([([c], [r]) for c, r in zip(poisoned, packed)])
    got = compare_all([([candidates[4]], [packed[4]])])  # one slot filled, the rest left from the first
    _assert_close(got, [_expected(candidates[4], references[4])])


def test_groups_large_tensors_and_a_repeated_reference() -> None:
    generator = torch.Generator().manual_seed(4)
    small, large = torch.randn(50, generator=generator), torch.randn(SMALL + 3, generator=generator)
    (ref_small, ref_large) = Reference.many([small, large])
    assert ref_small.packed is not None and ref_large.packed is None
    shifted = small + 0.5
    got = compare_all([
        ([small.half(), large.half()], [ref_small, ref_large]),  # one module returning two tensors
        ([shifted], [ref_small]),  # the same reference again: measured on its own
        ([torch.ones(3)], [ref_small]),  # shapes differ: no numbers
    ])
    pair = [_expected(small.half(), small), _expected(large.half(), large)]
    assert got[0].error == pytest.approx(max(p.error for p in pair if p.error is not None), rel=1e-5)
    _assert_close(got[1:2], [_expected(shifted, small)])
    assert got[2].error is None
