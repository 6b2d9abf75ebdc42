"""Small tensors in one flat float32 buffer: per-tensor reductions then cost a few whole-buffer ops.

A model's module outputs are mostly small, and for small tensors torch's per-op overhead, not memory
traffic, is the cost. Packed into one buffer, each in a slot that starts on a :data:`BLOCK`
boundary with zeros between, a per-tensor maximum or count is one reduction per block plus one
segment reduction over the blocks, whatever the number of tensors.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch

BLOCK = 32
"""Slot alignment in elements. Padding is zero in every buffer laid out alike, so it changes no
maximum of absolute differences and no count."""


class Packed:
    """Float32 copies of ``tensors`` (one device, each with at least one element) in one buffer."""

    def __init__(self, tensors: Sequence[torch.Tensor]) -> None:
        self.shapes = [t.shape for t in tensors]
        self.sizes = [t.numel() for t in tensors]
        blocks = [-(-size // BLOCK) for size in self.sizes]
        self.starts = [start * BLOCK for start in itertools.accumulate(blocks, initial=0)]
        self.buffer = torch.zeros(self.starts[-1], device=tensors[0].device)
        self._lengths = torch.tensor(blocks, device=self.buffer.device)
        self.views = self._slot_views(self.buffer)
        for view, tensor in zip(self.views, tensors):
            view.copy_(tensor.detach())
        self._spare: list[tuple[torch.Tensor, list[torch.Tensor]]] = []

    def __len__(self) -> int:
        return len(self.sizes)

    def lend(self) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """A zeroed buffer laid out like this one and its slots as views; :meth:`take_back` it when done."""
        if self._spare:
            buffer, views = self._spare.pop()
            return buffer.zero_(), views
        buffer = torch.zeros_like(self.buffer)
        return buffer, self._slot_views(buffer)

    def take_back(self, lent: tuple[torch.Tensor, list[torch.Tensor]]) -> None:
        """Keep a lent buffer for the next :meth:`lend` (candidate runs against one reference follow each other)."""
        self._spare.append(lent)

    def summaries(self) -> list[tuple[float, int, bool]]:
        """Per tensor: max |value| over finite values, how many values are nonzero, whether all are finite."""
        magnitude = self.buffer.abs()
        if bool(torch.isfinite(magnitude.sum())):
            nonzero, not_finite = magnitude.sign(), magnitude.new_zeros(len(self))
        else:
            finite = torch.isfinite(self.buffer)
            magnitude = torch.where(finite, magnitude, 0.0)
            nonzero = (self.buffer != 0).to(torch.float32)
            not_finite = self._per_slot((~finite).to(torch.float32), "sum")
        rows = torch.stack([self._per_slot(magnitude, "max"), self._per_slot(nonzero, "sum"), not_finite], 1)
        return [(scale, int(count), bad == 0) for scale, count, bad in rows.tolist()]

    def measure(self, candidate: torch.Tensor) -> torch.Tensor:
        """Per slot of ``candidate`` (a buffer laid out like this one): [max |c - ref| over positions
        finite in both, values inf/nan where the reference is finite, nonzero values flushed to zero]."""
        expected = self.buffer
        differences = (candidate - expected).abs_()
        if bool(torch.isfinite(differences.sum())):  # every value finite in both: float arithmetic will do
            flushed = candidate.sign().abs_().neg_().add_(1.0).mul_(expected.sign().abs_())
            return torch.stack([
                self._per_slot(differences, "max"),
                differences.new_zeros(len(self)),
                self._per_slot(flushed, "sum"),
            ], 1)
        expected_finite = torch.isfinite(expected)
        both = expected_finite & torch.isfinite(candidate)
        flushed = (candidate == 0) & (expected != 0)
        return torch.stack([
            self._per_slot(torch.where(both, differences, 0.0), "max"),
            self._per_slot((expected_finite & ~both).to(torch.float32), "sum"),
            self._per_slot(flushed.to(torch.float32), "sum"),
        ], 1)

    def _slot_views(self, buffer: torch.Tensor) -> list[torch.Tensor]:
        slots = zip(self.starts, self.sizes, self.shapes)
        return [buffer.narrow(0, start, size).view(shape) for start, size, shape in slots]

    def _per_slot(self, values: torch.Tensor, reduce: str) -> torch.Tensor:
        """``reduce`` ("max" of non-negative values, or "sum") of ``values`` over each slot."""
        rows = values.view(-1, BLOCK)
        if reduce == "max":
            return torch.segment_reduce(rows.amax(1), "max", lengths=self._lengths, initial=0.0)
        return torch.segment_reduce(rows.sum(1), "sum", lengths=self._lengths)
