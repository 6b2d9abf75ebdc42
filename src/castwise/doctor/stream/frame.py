"""The model around its blocks, run by the model's own forward with every block stubbed out.

The frame is the transformers model with its embeddings, final norm and head materialised and its
decoder blocks left on the meta device, each block's ``forward`` replaced by a stub. Running the
frame's own forward therefore makes the embeddings, the position ids, the rotary embeddings and the
attention masks exactly the way that architecture makes them (under whatever policy the frame runs),
and the stubs record what each block would have received. Run again with a final hidden state set,
the last stub hands it on, so the model's own final norm, head and loss run on it.

A block is run alone inside a :class:`BlockFrame`, which puts it at its place in the module tree so
that its modules keep their full names (``model.layers.3.mlp.down_proj``) in traces, keep-fp32 rules
and findings.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from castwise.doctor.measure.runner import Call
from castwise.doctor.stream.architecture import Blocks


@dataclass(frozen=True)
class Arguments:
    """What one block received besides its hidden state: positional and keyword arguments."""

    args: tuple
    kwargs: dict[str, Any]

    def call(self, hidden: torch.Tensor) -> Call:
        """The block's call with ``hidden`` as its hidden state."""
        return Call((hidden, *self.args), dict(self.kwargs))


@dataclass(frozen=True)
class Entry:
    """One run of the frame under a policy and mode: the hidden state the first block received (the
    embeddings' output) and every block's other arguments."""

    first: torch.Tensor
    arguments: list[Arguments]


class Switchboard:
    """Shared by the stubs of a frame and its copies: what they record and what the last one returns."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.first: torch.Tensor | None = None
        self.arguments: list[Arguments] = []
        self.final: torch.Tensor | None = None
        """When set, the last block returns it (cast to the dtype the blocks receive) instead of its input."""

    @contextlib.contextmanager
    def handing_on(self, final: torch.Tensor) -> Iterator[None]:
        """Inside, the last block returns ``final``."""
        self.final = final
        try:
            yield
        finally:
            self.final = None

    def entry(self) -> Entry:
        """What the last forward recorded."""
        assert self.first is not None, "the frame has not run"
        return Entry(self.first.detach(), list(self.arguments))


class _Stub:
    """A block's ``forward``: records its arguments and hands its input on (the last one: the final state)."""

    def __init__(self, board: Switchboard, index: int) -> None:
        self.board, self.index = board, index

    def __call__(self, *args: Any, **kwargs: Any) -> torch.Tensor:
        hidden, rest = (args[0], args[1:]) if args else (kwargs.pop("hidden_states"), ())
        board = self.board
        if self.index == 0:
            board.first, board.arguments = hidden, []
        board.arguments.append(Arguments(tuple(rest), kwargs))
        if self.index == board.count - 1 and board.final is not None:
            return board.final.to(hidden.dtype)
        return hidden

    def __deepcopy__(self, memo: dict) -> _Stub:
        return self  # a policy's copy of the frame reports to the same switchboard


def stub_blocks(frame: nn.Module, blocks: Blocks) -> Switchboard:
    """Replace the ``forward`` of every block of ``frame`` by a stub; returns their switchboard."""
    board = Switchboard(blocks.count)
    for index, block in enumerate(blocks.of(frame)):
        block.forward = _Stub(board, index)
    return board


class BlockFrame(nn.Module):
    """One block at its dotted ``path`` (``model.layers.3``) under empty parent modules; the model's
    declared fp32 modules (transformers' ``_keep_in_fp32_modules``) carried over for the keep rule."""

    def __init__(self, path: str, block: nn.Module, declared_fp32: tuple[str, ...] = ()) -> None:
        super().__init__()
        parent: nn.Module = self
        *parents, last = path.split(".")
        for part in parents:
            child = nn.Module()
            parent.add_module(part, child)
            parent = child
        parent.add_module(last, block)
        self._path = path
        self._keep_in_fp32_modules = list(declared_fp32)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.get_submodule(self._path)(*args, **kwargs)
