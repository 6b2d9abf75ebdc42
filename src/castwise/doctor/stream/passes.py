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

Every measured run of a block or of the head that meets inf/nan is followed up while its part is in
memory, as the in-memory doctor follows up a run of the whole model
(:func:`castwise.doctor.measure.nonfinite.follow_nonfinite`): where the overflow started, from one
more forward of that part under the policy and under fp32 on the same input, or what the policy's
loss scaler does with that part's gradients.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

import torch
from torch import nn

from castwise.doctor.measure.compare import Reference, compare
from castwise.doctor.measure.nonfinite import follow_nonfinite
from castwise.doctor.measure.origin import Finiteness, finiteness
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
    """The passes and what they measured, per mode: the fp32 reference's :class:`Parts` and each policy's
    (by name; a policy of the reference's name is measured as a policy). In the methods a policy of None
    is the reference. ``timed``: each measured run's time is the median of untraced steps after a
    warm-up (else its traced step's, as for the keep-fp32 search's trials)."""

    def __init__(self, setup: Setup, step: Step, observe: Observe | None = None, timed: bool = True) -> None:
        self.setup, self.step, self._observe, self._timed = setup, step, observe, timed
        self.reference = {m: Parts() for m in setup.modes}
        self.parts = {str(p): {m: Parts() for m in setup.modes} for p in setup.policies}
        self.activations: dict[str, list[torch.Tensor]] = {}
        """Per mode, the fp32 reference's input to each block and its final state (kept in memory)."""
        self._head = reference_subject(setup.frame)
        self._propagated: dict[str, dict[str, Hidden]] = {}

    def run(self) -> None:
        """All passes, in order."""
        setup = self.setup
        reference = self._entries(None)
        entries = {str(p): self._entries(p) for p in setup.policies}
        self._forward(reference, entries)
        first_gradient = self._backward(reference, entries) if "train" in setup.modes else None
        self._heads(first_gradient)

    def activation_bytes(self) -> int:
        """Bytes of the fp32 inter-block activations kept."""
        return sum(t.numel() * t.element_size() for kept in self.activations.values() for t in kept)

    def _parts(self, policy: Policy | None, mode: str) -> Parts:
        return self.reference[mode] if policy is None else self.parts[str(policy)][mode]

    def _entries(self, policy: Policy | None) -> dict[str, Entry | Failure]:
        """The frame under ``policy`` in each mode: what every block receives."""
        self.step(f"{policy or REFERENCE}: embeddings and block inputs")
        subject = self._head if policy is None else Subject.of(self.setup.frame, policy)
        entries = {mode: frame_entry(self.setup, subject, mode) for mode in self.setup.modes}
        for mode, entry in entries.items():
            if isinstance(entry, Failure):
                if policy is None:
                    raise _reference_failed(entry)
                self._parts(policy, mode).fail(entry)
        return entries

    def _forward(self, reference: dict[str, Entry | Failure], entries: dict[str, dict[str, Entry | Failure]]) -> None:
        self.activations = {mode: [reference[mode].first] for mode in self.setup.modes}  # type: ignore[union-attr]
        hidden: dict[str, dict[str, Hidden]] = {
            name: {m: e.first if isinstance(e, Entry) else e for m, e in by_mode.items()}
            for name, by_mode in entries.items()
        }
        for index in range(self.setup.blocks.count):
            self._forward_block(index, reference, entries, hidden)  # the block is freed when this returns
        self._propagated = hidden

    def _forward_block(self, index: int, reference: dict[str, Entry | Failure],
                       entries: dict[str, dict[str, Entry | Failure]], hidden: dict[str, dict[str, Hidden]]) -> None:
        """Block ``index``: fp32 makes the next block's input; each policy is measured on fp32's input (eval)
        and carries its own hidden state one block further."""
        setup, count = self.setup, self.setup.blocks.count
        self.step(f"block {index + 1}/{count}: {REFERENCE} forward")
        block = setup.load(index)
        fp32 = reference_subject(block)
        fp32_finiteness = self._fp32_finiteness(fp32, reference, index, "eval") if "eval" in setup.modes else None
        expected = self._measure_eval(fp32, reference, index, None)
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
            self._measure_eval(subject, entries[str(policy)], index, policy, expected, fp32_finiteness)
            self._watch(self._observe, block, policy, entries[str(policy)], index, hidden[str(policy)])
            for mode in setup.modes:
                hidden[str(policy)][mode] = carry(setup, subject, entries[str(policy)][mode], index,
                                                  hidden[str(policy)][mode], mode)
            del subject  # before the next policy's copy is made

    def _measure_eval(self, subject: Subject, entries: dict[str, Entry | Failure], index: int, policy: Policy | None,
                      expected: Capture | None = None,
                      fp32_finiteness: Callable[[], Finiteness] | None = None) -> Capture | None:
        """Block ``index`` in eval mode on the fp32 reference's input; a policy's against ``expected`` (fp32's)."""
        entry = entries.get("eval")
        if not isinstance(entry, Entry) or (policy is not None and expected is None):
            return None
        call = entry.arguments[index].call(self.activations["eval"][index])
        seed = self.setup.block_seed(index)
        capture = run_mode(subject, call, "eval", None, seed, expected, timed=self._timed)
        if policy is None:
            _check_reference(capture)
        elif expected is not None and fp32_finiteness is not None:
            score(capture, expected)
            follow_nonfinite(capture.run, subject, policy, call, None, seed, fp32_finiteness)
        self._parts(policy, "eval").add_block(index, capture)
        return capture

    def _fp32_finiteness(self, fp32: Subject, entries: dict[str, Entry | Failure], index: int,
                         mode: str) -> Callable[[], Finiteness]:
        """fp32's finiteness of block ``index`` on its input in ``mode``, recorded when first asked for."""
        entry = entries[mode]
        assert isinstance(entry, Entry), "the reference's frame ran (it raises otherwise)"
        call = entry.arguments[index].call(self.activations[mode][index])
        return cache(partial(finiteness, fp32, call, mode, self.setup.block_seed(index)))

    def _backward(self, reference: dict[str, Entry | Failure], entries: dict[str, dict[str, Entry | Failure]]
                  ) -> torch.Tensor:
        """The fp32 gradient at the model's output, back through every block in turn (each measured);
        returns the gradient at the first block's input."""
        gradient = self._output_gradient()
        for index in reversed(range(self.setup.blocks.count)):
            gradient = self._backward_block(index, reference, entries, gradient)  # the block is freed on return
        return gradient

    def _backward_block(self, index: int, references: dict[str, Entry | Failure],
                        entries: dict[str, dict[str, Entry | Failure]], gradient: torch.Tensor) -> torch.Tensor:
        """Block ``index`` in train mode on fp32's input and the fp32 ``gradient`` at its output, under fp32
        and each policy (measured); returns fp32's gradient at its input."""
        setup, count = self.setup, self.setup.blocks.count
        reference = references["train"]
        assert isinstance(reference, Entry)
        self.step(f"block {index + 1}/{count}: {REFERENCE} backward")
        block = setup.load(index)
        fp32 = reference_subject(block)
        inputs = self.activations["train"][index]
        loss = _against(gradient)
        leaf = inputs.detach().requires_grad_()
        seed = setup.block_seed(index)
        expected = run_mode(fp32, reference.arguments[index].call(leaf), "train", loss, seed, timed=self._timed)
        _check_reference(expected)
        for _, param in fp32.index.params:
            param.grad = None  # the capture holds copies
        self.reference["train"].add_block(index, expected)
        input_gradient = leaf.grad if leaf.grad is not None else torch.zeros_like(inputs)
        expected_input_gradient = Reference.of(input_gradient)
        fp32_finiteness = self._fp32_finiteness(fp32, references, index, "train")
        for policy in setup.policies:
            self.step(f"block {index + 1}/{count}: {policy} backward")
            entry = entries[str(policy)]["train"]
            if not isinstance(entry, Entry):
                continue
            leaf = inputs.detach().requires_grad_()
            subject, call = Subject.of(block, policy), entry.arguments[index].call(leaf)
            capture = run_mode(subject, call, "train", loss, seed, expected, timed=self._timed)
            score(capture, expected)
            if capture.run.ok and leaf.grad is not None:
                numerics = compare([leaf.grad], [expected_input_gradient])
                row = next(m for m in capture.run.modules if m.name == setup.blocks.name(index))
                row.input_grad_error, row.input_grad_overflow = numerics.error, numerics.overflow
            follow_nonfinite(capture.run, subject, policy, call, loss, seed, fp32_finiteness)
            self._parts(policy, "train").add_block(index, capture)
            del subject  # before the next policy's copy is made
        return input_gradient

    def _output_gradient(self) -> torch.Tensor:
        """The fp32 gradient of the loss at the last block's output (the final norm's input)."""
        self.step(f"{REFERENCE}: head backward")
        final = self.activations["train"][-1]
        leaf = final.detach().requires_grad_()
        params = [param for _, param in self._head.index.params if param.requires_grad]
        for param in params:  # only the gradient at the final state is wanted here
            param.requires_grad_(False)
        try:
            capture = self._head_run(self._head, "train", leaf, self.setup.loss_fn, per_module=False, timed=False)
        finally:
            for param in params:
                param.requires_grad_(True)
        _check_reference(capture)
        return leaf.grad if leaf.grad is not None else torch.zeros_like(final)

    def _heads(self, first_gradient: torch.Tensor | None) -> None:
        """The head per policy on the fp32 final state (measured), then on its propagated one."""
        setup = self.setup
        self.step(f"{REFERENCE}: head")
        expected = {mode: self._head_parts(self._head, None, mode, first_gradient) for mode in setup.modes}
        for _, param in self._head.index.params:
            param.grad = None  # the reference captures hold copies
        finals = {mode: self._final(self._head, None, mode, self.activations[mode][-1]) for mode in setup.modes}
        fp32_finiteness = {mode: cache(partial(finiteness, self._head, setup.call, mode, setup.head_seed))
                           for mode in setup.modes}
        for policy in setup.policies:
            self.step(f"{policy}: head")
            subject = Subject.of(setup.frame, policy)
            for mode in setup.modes:
                self._head_parts(subject, policy, mode, first_gradient, expected[mode], fp32_finiteness[mode])
                hidden = self._propagated[str(policy)][mode]
                if isinstance(hidden, Failure):
                    self._parts(policy, mode).fail(hidden)
                else:
                    self._final(subject, policy, mode, hidden, finals[mode])

    def _head_parts(self, subject: Subject, policy: Policy | None, mode: str, first_gradient: torch.Tensor | None,
                    expected: Capture | None = None,
                    fp32_finiteness: Callable[[], Finiteness] | None = None) -> Capture:
        """The frame and head on the fp32 final state (train: with backward); a policy's run against
        ``expected`` (fp32's), followed up where it meets inf/nan."""
        setup = self.setup
        final = self.activations[mode][-1].detach().requires_grad_(mode == "train")
        loss = _tapped(setup, first_gradient) if mode == "train" else setup.loss_fn
        capture = self._head_run(subject, mode, final, loss, expected, timed=self._timed)
        if policy is not None and expected is not None and fp32_finiteness is not None:
            score(capture, expected)
            with setup.board.handing_on(final):
                follow_nonfinite(capture.run, subject, policy, setup.call, loss, setup.head_seed, fp32_finiteness)
        parts = self._parts(policy, mode)
        parts.head, parts.head_previous = capture.run, capture.previous
        return capture

    def _final(self, subject: Subject, policy: Policy | None, mode: str, hidden: torch.Tensor,
               expected: Capture | None = None) -> Capture:
        """The head on a propagated final state, outputs and loss only (eval: no backward)."""
        capture = self._head_run(subject, "eval", hidden, self.setup.loss_fn, expected, per_module=False)
        capture.run.mode = mode
        parts = self._parts(policy, mode)
        parts.final, parts.final_loss = capture.run, capture.run.loss
        if expected is not None:
            score(capture, expected)
        return capture

    def _head_run(self, subject: Subject, mode: str, final: torch.Tensor, loss: LossFn | None,
                  expected: Capture | None = None, per_module: bool = True, timed: bool = False) -> Capture:
        """The frame's forward with the last block handing on ``final``."""
        setup = self.setup
        with setup.board.handing_on(final):
            capture = run_mode(subject, setup.call, mode, loss, setup.head_seed, expected, per_module, timed)
        capture.run.memory.params = sum(p.numel() * p.element_size() for _, p in subject.index.params if not p.is_meta)
        return capture

    def count_routing(self, policy: Policy, observe: Observe) -> None:
        """One more streamed pass for a policy alone, handing each block and the policy's hidden state it
        carries to ``observe`` (MoE routing with the routers kept): the frame, then every block in sequence."""
        setup, count = self.setup, self.setup.blocks.count
        mode = _watched(setup)
        entries = {mode: frame_entry(setup, Subject.of(setup.frame, policy), mode)}
        entry = entries[mode]
        hidden: dict[str, Hidden] = {mode: entry.first if isinstance(entry, Entry) else entry}
        for index in range(count):
            if isinstance(hidden[mode], Failure):
                break
            self.step(f"block {index + 1}/{count}: {policy} forward")
            block = setup.load(index)
            self._watch(observe, block, policy, entries, index, hidden)
            subject = Subject.of(block, policy)
            hidden[mode] = carry(setup, subject, entry, index, hidden[mode], mode)
            del subject, block

    def _watch(self, observe: Observe | None, block: BlockFrame, policy: Policy,
               entries: dict[str, Entry | Failure], index: int, hidden: dict[str, Hidden]) -> None:
        """Hand the block and the hidden state it carries in eval mode (or the one mode) to ``observe``."""
        mode = _watched(self.setup)
        entry, state = entries.get(mode), hidden.get(mode)
        if observe is not None and isinstance(entry, Entry) and isinstance(state, torch.Tensor):
            observe(index, block, policy, entry.arguments[index].call(state), self.setup.block_seed(index))


def _watched(setup: Setup) -> str:
    """The mode whose propagated pass MoE routing is counted in: eval, or the one mode diagnosed."""
    return "eval" if "eval" in setup.modes else setup.modes[0]


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
