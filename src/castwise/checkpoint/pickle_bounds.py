"""Bounds on a pickle, checked by walking its opcodes before any unpickler builds an object.

A restricted unpickler decides *which* objects a pickle may build, not *how* it may arrange them,
and arrangement alone can kill a process: a tuple nested 100,000 deep used as a dict key
segfaults (CPython hashes tuples by recursing in C without a limit), and a few hundred bytes that
reuse memoized tuples (``t1 = (t0, t0)``, ``t2 = (t1, t1)``, ...) describe 2**n nodes that one
hash walks in full. This module simulates the unpickler's stack and memo without building
anything and follows, for every container the pickle would make, its nesting depth and its size
once shared parts are expanded. A pickle that nests deeper than :data:`MAX_DEPTH`, whose
expanded size outgrows its own length many times over, that reserves memo slots it never
fills, or that is malformed is refused with a ``CheckpointError`` in time linear in its length.

It also refuses a pickle that changes a container after placing it inside another (only
self-referencing structures need that, and no checkpoint holds one): the bounds stay exact
without tracking parents.
"""

from __future__ import annotations

import pickle
import warnings
from array import array
from collections.abc import Callable
from typing import Any

from castwise.checkpoint.errors import CheckpointError

MAX_DEPTH = 100
"""Deepest nesting of containers accepted (checkpoints nest a dozen levels at most)."""
MIN_WORK = 1 << 22
WORK_PER_BYTE = 64
"""Expanded size (objects visited by one full walk of everything built) allowed per byte read, at
least :data:`MIN_WORK` in all: an honest pickle describes each object it builds about once."""
_DIGITS = 24
"""Longest decimal memo index accepted in a text opcode."""

# What each opcode does to the stack, by kind.
_SCALAR, _EMPTY, _NEW, _FROM_MARK, _ADD, _ADD_FROM_MARK = range(6)
_MARK, _POP, _POP_MARK, _DUP, _PUT, _GET, _MEMOIZE, _STOP, _NOTHING = range(6, 15)
# How each opcode's argument is laid out.
_NONE, _FIXED, _SIZED, _LINE, _TWO_LINES = range(5)

_OPS: dict[int, tuple[int, int, int]] = {}
"""Opcode byte -> (stack kind, argument layout, fixed size / length-prefix size / items taken)."""


def _define(codes: str, kind: int, layout: int = _NONE, n: int = 0) -> None:
    for code in codes.encode("latin-1"):
        _OPS[code] = (kind, layout, n)


_define("N\x88\x89", _SCALAR)  # NONE, NEWTRUE, NEWFALSE
_define("ILSVF", _SCALAR, _LINE)  # INT, LONG, STRING, UNICODE, FLOAT
_define("J", _SCALAR, _FIXED, 4)  # BININT
_define("K", _SCALAR, _FIXED, 1)  # BININT1
_define("M", _SCALAR, _FIXED, 2)  # BININT2
_define("G", _SCALAR, _FIXED, 8)  # BINFLOAT
_define("\x8aUC\x8c", _SCALAR, _SIZED, 1)  # LONG1, SHORT_BINSTRING, SHORT_BINBYTES, SHORT_BINUNICODE
_define("\x8bTBX", _SCALAR, _SIZED, 4)  # LONG4, BINSTRING, BINBYTES, BINUNICODE
_define("\x8e\x96\x8d", _SCALAR, _SIZED, 8)  # BINBYTES8, BYTEARRAY8, BINUNICODE8
_define("\x97", _SCALAR)  # NEXT_BUFFER
_define("\x82", _NEW, _FIXED, 1)  # EXT1 (a registered global: its own node, like GLOBAL)
_define("\x83", _NEW, _FIXED, 2)  # EXT2
_define("\x84", _NEW, _FIXED, 4)  # EXT4
_define("c", _NEW, _TWO_LINES)  # GLOBAL
_define("P", _NEW, _LINE)  # PERSID
_define("])}\x8f", _EMPTY)  # EMPTY_LIST, EMPTY_TUPLE, EMPTY_DICT, EMPTY_SET
_define("\x85", _NEW, _NONE, 1)  # TUPLE1
_define("\x86\x93R\x81", _NEW, _NONE, 2)  # TUPLE2, STACK_GLOBAL, REDUCE, NEWOBJ
_define("\x87\x92", _NEW, _NONE, 3)  # TUPLE3, NEWOBJ_EX
_define("Q", _NEW, _NONE, 1)  # BINPERSID
_define("tld\x91o", _FROM_MARK)  # TUPLE, LIST, DICT, FROZENSET, OBJ
_define("i", _FROM_MARK, _TWO_LINES)  # INST
_define("a", _ADD, _NONE, 1)  # APPEND
_define("s", _ADD, _NONE, 2)  # SETITEM
_define("b", _ADD, _NONE, 1)  # BUILD
_define("eu\x90", _ADD_FROM_MARK)  # APPENDS, SETITEMS, ADDITEMS
_define("(", _MARK)
_define("0", _POP)
_define("1", _POP_MARK)
_define("2", _DUP)
_define("p", _PUT, _LINE)
_define("q", _PUT, _FIXED, 1)
_define("r", _PUT, _FIXED, 4)
_define("g", _GET, _LINE)
_define("h", _GET, _FIXED, 1)
_define("j", _GET, _FIXED, 4)
_define("\x94", _MEMOIZE)
_define(".", _STOP)
_define("\x80", _NOTHING, _FIXED, 1)  # PROTO
_define("\x95", _NOTHING, _FIXED, 8)  # FRAME
_define("\x98", _NOTHING)  # READONLY_BUFFER


_TABLE: list[tuple[int, int, int] | None] = [_OPS.get(code) for code in range(256)]
_TEXT_INDEX = frozenset(b"pg")
"""PUT and GET: memo indices written as decimal text; the other memo opcodes write binary."""


class PickleTruncated(CheckpointError):
    """The pickle runs past the end of the bytes given (more of the file may hold the rest)."""


def check_pickle(data: bytes, where: str, start: int = 0) -> int:
    """Refuse (``CheckpointError``) the pickle at ``data[start:]`` if it is malformed or outgrows the
    bounds above; returns the offset just past its STOP opcode. No object is built."""
    return _Walk(data, where, start).run()


class _Walk:
    """One pass over a pickle's opcodes, simulating its stack and memo as node numbers.

    Node 0 stands for every scalar (never changed, never nested); each other node is a
    container or object the unpickler would build, with its depth and expanded size. The loop
    is flat (locals, no calls for the common opcodes): it runs once per opcode of every pickle read.
    """

    def __init__(self, data: bytes, where: str, start: int) -> None:
        self.data, self.where, self.start, self.pos = data, where, start, start
        self.depth = bytearray(1)
        self.size = array("q", [1])
        self.placed = bytearray(1)
        self.stack: list[int] = []
        self.marks: list[int] = [0]
        """Stack heights at each MARK; the first entry is the bottom of the stack."""
        self.memo: dict[int, int] = {}
        self.work = 0

    def run(self) -> int:
        data, end, table, memo, stack, marks = self.data, len(self.data), _TABLE, self.memo, self.stack, self.marks
        pos, ops = self.pos, 0
        while pos < end:
            code = data[pos]
            spec = table[code]
            if spec is None:
                raise self.refuse(f"byte {code:#04x} at offset {pos:,} is not a pickle opcode: the file is corrupt")
            kind, layout, n = spec
            pos += 1
            ops += 1
            argument = b""
            if layout == _FIXED:
                argument = data[pos : pos + n]
                pos += n
                if pos > end:
                    raise self.truncated("inside an opcode")
            elif layout:
                self.pos = pos
                argument = self.argument(layout, n)
                pos = self.pos
            if kind == _SCALAR:
                stack.append(0)
            elif kind == _GET:
                index = _index(argument, self) if code in _TEXT_INDEX else int.from_bytes(argument, "little")
                if index not in memo:
                    raise self.refuse(f"it reads memo entry {index:,}, which was never stored: the file is corrupt")
                stack.append(memo[index])
            elif kind == _PUT or kind == _MEMOIZE:
                if kind == _MEMOIZE:
                    index = len(memo)
                else:
                    index = _index(argument, self) if code in _TEXT_INDEX else int.from_bytes(argument, "little")
                if index > ops:
                    raise self.refuse(f"it stores memo entry {index:,} after only {ops:,} opcodes")
                memo[index] = stack[-1] if len(stack) > marks[-1] else self.top()
            elif kind == _MARK:
                marks.append(len(stack))
            elif kind == _EMPTY:
                stack.append(self.node(1, 1))
            elif kind <= _ADD_FROM_MARK:  # build an object, or add to one, from the top of the stack
                self.pos = pos
                taken = self.pop(n) if kind == _NEW or kind == _ADD else self.pop_mark()
                if kind == _NEW or kind == _FROM_MARK:
                    stack.append(self.build(taken))
                else:
                    self.add(taken)
            elif kind == _STOP:
                self.pop(1)
                return pos
            elif kind == _POP:
                self.pop(1) if len(stack) > marks[-1] else self.pop_mark()
            elif kind == _POP_MARK:
                self.pop_mark()
            elif kind == _DUP:
                stack.append(self.top())
        raise self.truncated("without its STOP opcode")

    def node(self, depth: int, size: int) -> int:
        self.depth.append(depth)
        self.size.append(size)
        self.placed.append(0)
        return len(self.size) - 1

    def build(self, children: list[int]) -> int:
        """A new object holding ``children``."""
        depth, size = self.consume(children)
        self.depth.append(depth)
        self.size.append(size)
        self.placed.append(0)
        return len(self.size) - 1

    def add(self, items: list[int]) -> None:
        """Items added to the object below them (APPEND, SETITEMS, BUILD, ...), which stays on the stack."""
        target = self.top()
        if target == 0:
            raise self.refuse("it adds items to a number or a string: the file is corrupt")
        if self.placed[target]:
            raise self.refuse(
                "it changes an object after placing it inside another (a self-referencing structure), "
                "which no checkpoint holds"
            )
        depth, size = self.consume(items)
        if depth > self.depth[target]:
            self.depth[target] = depth
        self.size[target] += size - 1

    def consume(self, children: list[int]) -> tuple[int, int]:
        """Depth and expanded size of an object made of ``children``; counts the work.

        Every size is counted in the work when its object is placed, so no size can pass the
        budget without the work passing it first.
        """
        depths, sizes, placed = self.depth, self.size, self.placed
        depth, size = 0, 1
        for child in children:
            if child:
                if depths[child] > depth:
                    depth = depths[child]
                size += sizes[child]
                placed[child] = 1
            else:
                size += 1
        self.work += size - 1
        if depth >= MAX_DEPTH:
            raise self.refuse(
                f"it nests containers more than {MAX_DEPTH} levels deep (a deeply nested key or value "
                "crashes Python when hashed or printed)"
            )
        budget = max(MIN_WORK, WORK_PER_BYTE * (self.pos - self.start))
        if self.work > budget:
            raise self.refuse(
                f"its objects, once shared parts are expanded, exceed {budget:,} (it reuses parts "
                f"of itself to describe far more than its {self.pos - self.start:,} bytes; hashing or "
                "comparing them would not finish)"
            )
        return depth + 1, size

    def top(self) -> int:
        if len(self.stack) <= self.marks[-1]:
            raise self.refuse("an opcode needs an object but the stack is empty: the file is corrupt")
        return self.stack[-1]

    def pop(self, n: int) -> list[int]:
        stack = self.stack
        floor = len(stack) - n
        if floor < self.marks[-1]:
            raise self.refuse("an opcode needs more objects than the stack holds: the file is corrupt")
        taken = stack[floor:]
        del stack[floor:]
        return taken

    def pop_mark(self) -> list[int]:
        if len(self.marks) == 1:
            raise self.refuse("an opcode needs a MARK that was never set: the file is corrupt")
        floor = self.marks.pop()
        taken = self.stack[floor:]
        del self.stack[floor:]
        return taken

    def argument(self, layout: int, n: int) -> bytes:
        """Skip a length-prefixed argument (returns nothing) or read a one- or two-line one."""
        data, pos = self.data, self.pos
        if layout == _SIZED:
            head = self.need(pos + n)
            length = int.from_bytes(data[pos:head], "little", signed=n == 4)
            if length < 0:
                raise self.refuse(f"a negative length at offset {pos:,}: the file is corrupt")
            self.pos = self.need(head + length)
            return b""
        stop = pos
        for _ in range(2 if layout == _TWO_LINES else 1):
            newline = data.find(b"\n", stop)
            if newline < 0:
                raise self.truncated("inside an opcode")
            stop = newline + 1
        self.pos = stop
        return bytes(data[pos : stop - 1])

    def need(self, end: int) -> int:
        if end > len(self.data):
            raise self.truncated("inside an opcode")
        return end

    def truncated(self, where: str) -> PickleTruncated:
        return PickleTruncated(f"{self.where}: the pickle ends {where}: the file is truncated")

    def refuse(self, reason: str) -> CheckpointError:
        return CheckpointError(f"{self.where}: refused: its pickle is not plain checkpoint data: {reason}")


def _index(argument: bytes, walk: _Walk) -> int:
    """A memo index written as decimal text (PUT, GET)."""
    digits = argument.strip()
    if not digits.isdigit() or len(digits) > _DIGITS:
        raise walk.refuse(f"memo index {argument[:_DIGITS]!r} is not a number: the file is corrupt")
    return int(digits)


class Refused(pickle.UnpicklingError):
    """A restricted unpickler met something the checkpoint it reads never holds."""


def load_restricted(make: Callable[[bytes], pickle.Unpickler], raw: bytes, where: str, what: str,
                    if_trusted: str) -> Any:
    """The object pickle ``raw`` describes, walked within the bounds first, then built by ``make(raw)``.

    Any failure is a ``CheckpointError`` naming ``where``: a :class:`Refused` one says what to do
    ``if_trusted`` (the file's author is), the rest say it is not readable as ``what``.
    """
    check_pickle(raw, where)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(raw).load()
    except CheckpointError:
        raise
    except Refused as exc:
        raise CheckpointError(
            f"{where}: refused: {exc}; castwise reads {what} without running code. If you trust its author, "
            f"{if_trusted}"
        ) from None
    except Exception as exc:  # a truncated or corrupt pickle fails in many ways
        raise CheckpointError(f"{where}: not readable as {what} ({type(exc).__name__}: {exc})") from None
