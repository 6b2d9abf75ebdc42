"""Module outputs during a run: recorded for the fp32 reference, or compared with it as they come."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from castwise.doctor.measure.compare import SMALL, Comparison, Group, Numerics, Reference


class _Repeats:
    """Spots a module handing on the previous module's output unchanged (a Sequential, the root,
    Dropout in eval), so that output is measured once."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.tensors: list[torch.Tensor] = []
        self.versions: list[int] = []

    def earlier(self, name: str, tensors: list[torch.Tensor]) -> str | None:
        """The previous module's name if ``tensors`` are its very outputs, unchanged; else None."""
        same = bool(tensors) and len(tensors) == len(self.tensors) and all(
            a is b and a._version == version for a, b, version in zip(tensors, self.tensors, self.versions)
        )
        if same:
            return self.name
        self.name, self.tensors, self.versions = name, tensors, [t._version for t in tensors]
        return None


class Recorder:
    """Keeps a float32 :class:`Reference` of every module's output (the reference run): large ones
    at once, small ones copied and summarised together in :meth:`finish`."""

    def __init__(self) -> None:
        self.outputs: dict[str, list[Reference]] = {}
        self._repeats = _Repeats()
        self._aliases: dict[str, str] = {}
        self._waiting: list[tuple[str, list[torch.Tensor]]] = []

    def __call__(self, name: str, tensors: list[torch.Tensor]) -> None:
        earlier = self._repeats.earlier(name, tensors)
        if earlier:
            self._aliases[name] = earlier
        elif sum(t.numel() for t in tensors) >= SMALL:
            self.outputs[name] = Reference.many(tensors)
        else:
            self._waiting.append((name, [t.detach().to(torch.float32, copy=True) for t in tensors]))

    def finish(self, extra: Sequence[torch.Tensor]) -> list[Reference]:
        """Summarise the waiting outputs together with ``extra`` (the run's outputs and gradients);
        returns ``extra``'s references."""
        references = iter(Reference.many([*(t for _, tensors in self._waiting for t in tensors), *extra]))
        for name, tensors in self._waiting:
            self.outputs[name] = [next(references) for _ in tensors]
        for name, earlier in self._aliases.items():
            self.outputs[name] = self.outputs[earlier]
        self._waiting = []
        return list(references)


class Measurer:
    """Compares every module's output with the reference's: small ones copied at once and measured
    together in :meth:`finish`, large ones measured as they come."""

    def __init__(self, reference: dict[str, list[Reference]]) -> None:
        self.reference = reference
        self.numerics: dict[str, Numerics] = {}
        self._repeats = _Repeats()
        self._aliases: dict[str, str] = {}
        self._names: list[str] = []
        self._comparison = Comparison()

    def __call__(self, name: str, tensors: list[torch.Tensor]) -> None:
        expected = self.reference.get(name)
        earlier = self._repeats.earlier(name, tensors)
        if expected is None:
            return
        if earlier is not None and self.reference.get(earlier) is expected:
            self._aliases[name] = earlier
            return
        self._names.append(name)
        self._comparison.add(tensors, expected)

    def finish(self, extra: Sequence[Group]) -> list[Numerics]:
        """Measure everything together with ``extra`` (the run's outputs and gradients) and return
        ``extra``'s numerics; every module's are in :attr:`numerics` then."""
        for candidates, references in extra:
            self._comparison.add(candidates, references)
        results = self._comparison.results()
        self.numerics.update(zip(self._names, results))
        for name, earlier in self._aliases.items():
            if earlier in self.numerics:
                self.numerics[name] = self.numerics[earlier]
        return results[len(self._names):]
