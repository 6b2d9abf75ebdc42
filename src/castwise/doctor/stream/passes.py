"""The streamed passes over a checkpoint, one decoder block in memory at a time.

1. **Frame**: the model's own forward with every block stubbed, under fp32 and each policy, in each
   mode: the embeddings' output and what every block receives (masks, rotary embeddings, ...).
2. **Forward**, blocks in order: the fp32 reference block makes the next fp32 block input (kept, in
   memory: the only activations kept between blocks); in eval mode every policy's block is measured
   on that fp32 input against the fp32 block; and every policy's own hidden state is carried one
   block further (the propagated pass).
3. **Backward** (train mode), blocks in reverse: the fp32 gradient at the model's output goes back
   one block at a time (the fp32 block, on its kept input, backpropagates the gradient at its
   output); each policy's block is measured on the same input and output gradient: outputs, weight
   gradients and the gradient at its input.
4. **Head**: the final norm, head and loss on the fp32 final state, per policy (with the embeddings'
   gradient from the fp32 gradient at the first block's input); then on each policy's propagated
   final state, against fp32's: the error a policy makes end to end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from castwise.doctor.measure.compare import Reference, compare
from castwise.doctor.measure.runner import Call, Capture, LossFn, Subject, run_mode
from castwise.doctor.measure.scoring import score
from castwise.doctor.measure.trace import ModelIndex, floating_tensors
from castwise.doctor.stream.architecture import Blocks, StreamError
from castwise.doctor.stream.frame import BlockFrame, Entry, Switchboard
from castwise.doctor.stream.runs import Failure, Parts, traced_forward
from castwise.doctor.stream.weights import Weights
from castwise.model import apply
from castwise.policy import Policy

REFERENCE = Policy.parse("32-true")

Step = Callable[[str], None]
"""Called before each piece of work with its description (the progress bar's next step)."""
Observe = Callable[[int, BlockFrame, Policy, Call, int], None]
"""Called with (block index, block, policy, the block's call, its seed) before a block carries a policy's
hidden state on in the propagated pass (eval mode when diagnosed): MoE routing counts there."""
Hidden = torch.Tensor | Failure
"""A policy's propagated hidden state, or where carrying it on raised."""


@dataclass(frozen=True)
class Setup:
    """What every pass reads: the checkpoint, the frame, the example call and the settings."""

    weights: Weights
    frame: nn.Module
    board: Switchboard
    call: Call
    policies: Sequence[Policy]
    modes: Sequence[str]
    loss_fn: LossFn | None
    seed: int
    declared_fp32: tuple[str, ...]

    @property
    def blocks(self) -> Blocks:
        return self.weights.blocks

    def block_seed(self, index: int) -> int:
        """Each block's runs are seeded alike under fp32 and every policy (dropout draws the same masks)."""
        return self.seed + 1 + index

    @property
    def head_seed(self) -> int:
        return self.seed + 1 + self.blocks.count

    def load(self, index: int) -> BlockFrame:
        """Block ``index`` in fp32, at its place in the module tree."""
        return BlockFrame(self.blocks.name(index), self.weights.block(index), self.declared_fp32)


def reference_subject(model: nn.Module) -> Subject:
    """``model`` under fp32 as it is (no copy: fp32 changes nothing)."""
    return Subject(apply(model, REFERENCE), ModelIndex.of(model))


class Streamed:
    """The passes and what they measured: per policy name (``32-true`` too) and mode, :class:`Parts`."""

    def __init__(self, setup: Setup, step: Step, observe: Observe | None = None) -> None:
        self.setup, self.step, self._observe = setup, step, observe
        self.parts = {str(p): {m: Parts() for m in setup.modes} for p in (REFERENCE, *setup.policies)}
        self.activations: dict[str, list[torch.Tensor]] = {}
        """Per mode, the fp32 reference's input to each block and its final state (kept in memory)."""
        self._head = reference_subject(setup.frame)
        self._propagated: dict[str, dict[str, Hidden]] = {}
        self._finals: dict[str, Capture] = {}

    def run(self) -> None:
        """All passes, in order."""
        setup = self.setup
        entries = {str(p): self._entries(p) for p in (REFERENCE, *setup.policies)}
        self._forward(entries)
        first_gradient = self._backward(entries) if "train" in setup.modes else None
        self._heads(first_gradient)

    def activation_bytes(self) -> int:
        """Bytes of the fp32 inter-block activations kept."""
        return sum(t.numel() * t.element_size() for kept in self.activations.values() for t in kept)

    def _entries(self, policy: Policy) -> dict[str, Entry | Failure]:
        """The frame under ``policy`` in each mode: what every block receives."""
        self.step(f"{policy}: embeddings and block inputs")
        subject = self._head if policy == REFERENCE else Subject.of(self.setup.frame, policy)
        entries = {mode: frame_entry(self.setup, subject, mode) for mode in self.setup.modes}
        for mode, entry in entries.items():
            if isinstance(entry, Failure):
                if policy == REFERENCE:
                    raise _reference_failed(entry)
                self.parts[str(policy)][mode].fail(entry)
        return entries

    def _forward(self, entries: dict[str, dict[str, Entry | Failure]]) -> None:
        setup, count = self.setup, self.setup.blocks.count
        reference = entries[str(REFERENCE)]
        self.activations = {mode: [reference[mode].first] for mode in setup.modes}  # type: ignore[union-attr]
        hidden: dict[str, dict[str, Hidden]] = {
            str(p): {m: e.first if isinstance(e, Entry) else e for m, e in entries[str(p)].items()}
            for p in setup.policies
        }
        for index in range(count):
            self.step(f"block {index + 1}/{count}: {REFERENCE} forward")
            block = setup.load(index)
            fp32 = reference_subject(block)
            expected = self._measure_eval(fp32, reference, index)
            self._watch(self._observe, block, REFERENCE, reference, index,
                        {m: a[index] for m, a in self.activations.items()})
            for mode in setup.modes:
                carried = carry(setup, fp32, reference[mode], index, self.activations[mode][index], mode)
                if isinstance(carried, Failure):
                    raise _reference_failed(carried)
                self.activations[mode].append(carried)
            for policy in setup.policies:
                self.step(f"block {index + 1}/{count}: {policy} forward")
                subject = Subject.of(block, policy)
                self._measure_eval(subject, entries[str(policy)], index, expected, str(policy))
                self._watch(self._observe, block, policy, entries[str(policy)], index, hidden[str(policy)])
                for mode in setup.modes:
                    hidden[str(policy)][mode] = carry(setup, subject, entries[str(policy)][mode], index,
                                                      hidden[str(policy)][mode], mode)
                del subject
            del block, fp32, expected
        self._propagated = hidden

    def _measure_eval(self, subject: Subject, entries: dict[str, Entry | Failure], index: int,
                      expected: Capture | None = None, name: str = str(REFERENCE)) -> Capture | None:
        """Block ``index`` in eval mode on the fp32 reference's input, against ``expected`` (fp32's)."""
        entry = entries.get("eval")
        if not isinstance(entry, Entry) or (name != str(REFERENCE) and expected is None):
            return None
        call = entry.arguments[index].call(self.activations["eval"][index])
        capture = run_mode(subject, call, "eval", None, self.setup.block_seed(index), expected)
        if expected is None:
            _check_reference(capture)
        else:
            score(capture, expected)
        self.parts[name]["eval"].add_block(index, capture)
        return capture

    def _backward(self, entries: dict[str, dict[str, Entry | Failure]]) -> torch.Tensor:
        """The fp32 gradient at the model's output, back through every block in turn (each measured);
        returns the gradient at the first block's input."""
        setup, count = self.setup, self.setup.blocks.count
        gradient = self._output_gradient()
        reference = entries[str(REFERENCE)]["train"]
        assert isinstance(reference, Entry)
        for index in reversed(range(count)):
            self.step(f"block {index + 1}/{count}: {REFERENCE} backward")
            block = setup.load(index)
            fp32 = reference_subject(block)
            inputs = self.activations["train"][index]
            loss = _against(gradient)
            leaf = inputs.detach().requires_grad_()
            expected = run_mode(fp32, reference.arguments[index].call(leaf), "train", loss, setup.block_seed(index))
            _check_reference(expected)
            for _, param in fp32.index.params:
                param.grad = None  # the capture holds copies
            self.parts[str(REFERENCE)]["train"].add_block(index, expected)
            next_gradient = leaf.grad if leaf.grad is not None else torch.zeros_like(inputs)
            expected_input_grad = Reference.of(next_gradient)
            for policy in setup.policies:
                self.step(f"block {index + 1}/{count}: {policy} backward")
                entry = entries[str(policy)]["train"]
                if not isinstance(entry, Entry):
                    continue
                leaf = inputs.detach().requires_grad_()
                capture = run_mode(Subject.of(block, policy), entry.arguments[index].call(leaf), "train", loss,
                                   setup.block_seed(index), expected)
                score(capture, expected)
                parts = self.parts[str(policy)]["train"]
                parts.add_block(index, capture)
                if capture.run.ok and leaf.grad is not None:
                    parts.input_grads[index] = compare([leaf.grad], [expected_input_grad])
            gradient = next_gradient
            del block, fp32, expected
        return gradient

    def _output_gradient(self) -> torch.Tensor:
        """The fp32 gradient of the loss at the last block's output (the final norm's input)."""
        self.step(f"{REFERENCE}: head backward")
        final = self.activations["train"][-1]
        leaf = final.detach().requires_grad_()
        params = [param for _, param in self._head.index.params if param.requires_grad]
        for param in params:  # only the gradient at the final state is wanted here
            param.requires_grad_(False)
        try:
            capture = self._head_run(self._head, "train", leaf, self.setup.loss_fn, per_module=False)
        finally:
            for param in params:
                param.requires_grad_(True)
        _check_reference(capture)
        return leaf.grad if leaf.grad is not None else torch.zeros_like(final)

    def _heads(self, first_gradient: torch.Tensor | None) -> None:
        """The head per policy on the fp32 final state (measured), then on its propagated one."""
        setup = self.setup
        self.step(f"{REFERENCE}: head")
        expected = {mode: self._head_parts(self._head, str(REFERENCE), mode, first_gradient) for mode in setup.modes}
        for _, param in self._head.index.params:
            param.grad = None  # the reference captures hold copies
        finals = {mode: self._final(self._head, str(REFERENCE), mode, self.activations[mode][-1])
                  for mode in setup.modes}
        self._finals = finals
        for policy in setup.policies:
            self.step(f"{policy}: head")
            subject = Subject.of(setup.frame, policy)
            for mode in setup.modes:
                self._head_parts(subject, str(policy), mode, first_gradient, expected[mode])
                hidden = self._propagated[str(policy)][mode]
                if isinstance(hidden, Failure):
                    self.parts[str(policy)][mode].fail(hidden)
                else:
                    self._final(subject, str(policy), mode, hidden, finals[mode])

    def _head_parts(self, subject: Subject, name: str, mode: str, first_gradient: torch.Tensor | None,
                    expected: Capture | None = None) -> Capture:
        final = self.activations[mode][-1].detach().requires_grad_(mode == "train")
        loss = _tapped(self.setup, first_gradient) if mode == "train" else self.setup.loss_fn
        capture = self._head_run(subject, mode, final, loss, expected)
        parts = self.parts[name][mode]
        parts.head, parts.head_previous = capture.run, capture.previous
        return capture

    def _final(self, subject: Subject, name: str, mode: str, hidden: torch.Tensor,
               expected: Capture | None = None) -> Capture:
        """The head on a propagated final state, outputs and loss only (eval: no backward)."""
        capture = self._head_run(subject, "eval", hidden, self.setup.loss_fn, expected, per_module=False)
        capture.run.mode = mode
        self.parts[name][mode].final = capture.run
        return capture

    def _head_run(self, subject: Subject, mode: str, final: torch.Tensor, loss: LossFn | None,
                  expected: Capture | None = None, per_module: bool = True) -> Capture:
        """The frame's forward with the last block handing on ``final``."""
        setup = self.setup
        setup.board.final = final
        try:
            capture = run_mode(subject, setup.call, mode, loss, setup.head_seed, expected, per_module)
        finally:
            setup.board.final = None
        capture.run.memory.params = sum(p.numel() * p.element_size() for _, p in subject.index.params if not p.is_meta)
        if expected is not None:
            score(capture, expected)
        return capture

    def propagated(self, policy: Policy, observe: Observe | None = None) -> list[Capture | Failure]:
        """One more streamed pass for a policy alone (the keep-fp32 search's trials, routing with the
        routers kept): the frame, every block in sequence, then the head, against the fp32 finals."""
        setup, count = self.setup, self.setup.blocks.count
        head = Subject.of(setup.frame, policy)
        entries = {mode: frame_entry(setup, head, mode) for mode in setup.modes}
        hidden: dict[str, Hidden] = {m: e.first if isinstance(e, Entry) else e for m, e in entries.items()}
        for index in range(count):
            if all(isinstance(h, Failure) for h in hidden.values()):
                break
            self.step(f"block {index + 1}/{count}: {policy} forward")
            block = setup.load(index)
            self._watch(observe, block, policy, entries, index, hidden)
            subject = Subject.of(block, policy)
            for mode in setup.modes:
                hidden[mode] = carry(setup, subject, entries[mode], index, hidden[mode], mode)
            del subject, block
        self.step(f"{policy}: head")
        results: list[Capture | Failure] = []
        for mode in setup.modes:
            carried = hidden[mode]
            if isinstance(carried, Failure):
                results.append(carried)
                continue
            capture = self._head_run(head, "eval", carried, setup.loss_fn, self._finals[mode], per_module=False)
            capture.run.mode = mode
            results.append(capture)
        return results


    def _watch(self, observe: Observe | None, block: BlockFrame, policy: Policy,
               entries: dict[str, Entry | Failure], index: int, hidden: dict[str, Hidden]) -> None:
        """Hand the block and the hidden state it carries in eval mode (or the one mode) to ``observe``."""
        mode = "eval" if "eval" in self.setup.modes else self.setup.modes[0]
        entry, state = entries.get(mode), hidden.get(mode)
        if observe is not None and isinstance(entry, Entry) and isinstance(state, torch.Tensor):
            observe(index, block, policy, entry.arguments[index].call(state), self.setup.block_seed(index))


def frame_entry(setup: Setup, subject: Subject, mode: str) -> Entry | Failure:
    """The frame's forward under ``subject``'s policy: what each block receives."""
    setup.board.final = None
    output = traced_forward(subject, setup.call, mode, setup.seed)
    return output if isinstance(output, Failure) else setup.board.entry()


def carry(setup: Setup, subject: Subject, entry: Entry | Failure, index: int, hidden: Hidden, mode: str) -> Hidden:
    """``hidden`` through block ``index`` under ``subject``'s policy (no_grad): the next block's input."""
    if isinstance(hidden, Failure):
        return hidden
    if isinstance(entry, Failure):
        return entry
    output = traced_forward(subject, entry.arguments[index].call(hidden), mode, setup.block_seed(index))
    if isinstance(output, Failure):
        return output
    return floating_tensors(output)[0].detach()


def _against(gradient: torch.Tensor) -> LossFn:
    """The loss whose gradient at a block's output is ``gradient``: <output, gradient>."""
    return lambda output: (floating_tensors(output)[0].float() * gradient).sum()


def _tapped(setup: Setup, first_gradient: torch.Tensor | None) -> LossFn:
    """The model's loss (or the sum of its outputs, as the in-memory doctor backpropagates without one),
    plus a term worth nothing whose gradient at the embeddings' output is fp32's gradient there: the
    embeddings get the gradient they would get through every block."""
    def loss(output: Any) -> torch.Tensor:
        if setup.loss_fn is not None:
            base = setup.loss_fn(output)
        else:
            base = sum((t.float().sum() for t in floating_tensors(output) if t.requires_grad), torch.zeros(()))
        first = setup.board.first
        if first_gradient is None or first is None or not first.requires_grad:
            return base
        tap = (first.float() * first_gradient).sum()
        return base + tap - tap.detach()

    return loss


def _check_reference(capture: Capture) -> None:
    """An fp32 reference run that raised ends the diagnosis: nothing can be compared with it."""
    if not capture.run.ok:
        raise _reference_failed(Failure(capture.run.exception or "", capture.run.failing_module, None))


def _reference_failed(failure: Failure) -> StreamError:
    where = f" in {failure.module}" if failure.module else ""
    return StreamError(f"the fp32 reference raised{where}: {failure.exception}; make the model run in float32 "
                       "first (this is not a precision problem)")
