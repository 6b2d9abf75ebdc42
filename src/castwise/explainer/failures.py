"""Where an error is in a paste or an exception chain: its message and the frames that led to it.

A pasted log holds one or more tracebacks among other output; the error is the ``...Error: ...``
line (the last one first, as Python prints a chain cause-first), or, for a paste of a bare message,
any line. Some messages print their details on the lines below (xformers lists ``query.dtype:``
and ``key.dtype:`` under its error); those field lines are read as part of the message. Frames come
in every format people paste: Python's ``File "x.py", line 3, in f`` with the code line under it,
IPython's ``File ~/x.py:3, in f`` and ``~/x.py in f(...)``, rich's ``/x.py:3 in f``, pytest's
``/x.py:3: in f``. An error pasted above its traceback or its code (an issue's title, a report's
first line) takes the frames or code below it. A live exception is read the same way, walking its
``__cause__``/``__context__`` chain from the innermost error outwards; frames its message carries (a TorchScript
module's own traceback, a DataLoader worker's original one) are inner to its traceback's.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice, takewhile
from types import TracebackType

from castwise.explainer.held_model import HeldModel, read_model, tensor_dtype
from castwise.explainer.logtext import clean_lines

BARE_CODE_LINES = 6
"""Lines above an error read as code when a paste shows no frame headers."""

MAX_CHAIN = 16
"""Exceptions of a ``__cause__``/``__context__`` chain that are read."""

MAX_OPERANDS = 16
"""Locals of a live exception's innermost frame looked at for the tensors the failing op got."""

MAX_DETAILS = 8
"""Field lines below an error line (``key.dtype  : torch.float16``) read as part of its message."""

FRAMES_BELOW = 200
"""Lines below an error with nothing above it that are searched for its frames or code."""

_ERROR_LINE = re.compile(
    r"^(?P<type>(?:[A-Za-z_]\w*\.){0,6}[A-Za-z_]\w*(?:Error|Exception|Interrupt|Failure))\s*:\s*(?P<message>\S.*)$"
    r"|^(?P<r_type>Error) in .{1,300}? : (?P<r_message>\S.*)$"
)
"""Python's error line, or R's (torch for R: ``Error in (function (self, mat1, ...) : expected scalar type ...``)."""
_R_UNEXPECTED = re.compile(r"threw an unexpected error\.?$")
_R_MESSAGE = re.compile(r"^Message: (?P<message>\S.*)$")
"""testthat's report of an R error: ```object` threw an unexpected error.`` and, on the next line, ``Message: ...``."""
_VSCODE_HEADER = re.compile(r"^Exception has occurred: (?P<type>(?:[A-Za-z_]\w*\.){0,6}[A-Za-z_]\w{0,80})$")
"""VS Code's debugger: ``Exception has occurred: RuntimeError`` and, on the next line, the message."""
_FRAME_FORMATS = tuple(re.compile(pattern) for pattern in (
    # Python (also cut short), generated code included (an FX graph's ``<eval_with_key>.9``, ``<string>``)
    r"^(?:File )?\"?(?P<file>[^\"\n]+?\.py|<[\w ]{1,40}>(?:\.\d{1,9})?)\"?, line \d+, in (?P<function>[\w.<>]+)",
    r"^File (?P<file>\S[^\n]*?\.py):\d+, in (?P<function>[\w.<>]+)",  # IPython >= 8
    r"^(?P<file>\S+\.py):\d+:? in (?P<function>[\w.<>]+)",  # rich, pytest
    r"^(?P<file>\S+\.py) in (?P<function>[\w.<>]+)\(",  # IPython < 8
))
_RECORDED_FRAME = re.compile(r"^(?P<file>\S+\.py)\(\d+\): (?P<function>[\w.<>]+)$")
"""A frame of the stack ``torch.jit.trace`` recorded, which a traced module's error prints innermost first."""
_CHAINED = re.compile(r"^(?:During handling of the above exception|The above exception was the direct cause)")
_BOUNDARY = re.compile(rf"^Traceback \(most recent call last\)|{_CHAINED.pattern}")
_DETAIL = re.compile(r"^[A-Za-z_][\w.\[\]]{0,40}?(?:dtype|shape|device)\s*:\s*\S")
_WRAPPED_REST = re.compile(r"^(?:but|and|got|expected|found)\b")
"""The start of an error message's rest on the next line, after a terminal wrapped it at a comma."""
_CODE = re.compile(r"[\w.\]]\(")
_CARETS = re.compile(r"^[\s~^]+$")
_RAN_MARKER = re.compile(r"^(?:-+>|❱)\s*\d*\s*│?\s*")
_LINE_NUMBER = re.compile(r"^\d+\s*│?\s+")


@dataclass(frozen=True)
class Frame:
    """One frame of a traceback: the file, the function and the code line (empty when not shown)."""

    file: str
    function: str
    code: str = ""

    @property
    def in_torch(self) -> bool:
        """Whether the frame is torch's own code (``.../torch/...``), not the user's or a library's."""
        return "/torch/" in self.file.replace("\\", "/") or self.file.startswith("torch/")


@dataclass(frozen=True)
class Failure:
    """An error found: its type (empty when the paste shows none), its message and its frames.

    A paste's frames are read only when asked for (most candidate lines are never explained).
    """

    error_type: str
    message: str
    live_frames: tuple[Frame, ...] = ()
    paste: tuple[str, ...] = field(default=(), repr=False, compare=False)
    line: int = 0
    operands: tuple[tuple[str, str], ...] = field(default=(), repr=False, compare=False)
    """A live exception's innermost frame's tensors, as (name, short dtype): ``(("input", "f32"), ("weight",
    "f64"))`` for the ``_conv_forward`` that called the kernel which raised; empty for a paste."""
    model: HeldModel = field(default=HeldModel(), repr=False, compare=False)
    """What a live exception's modules hold: the tensors of the module that raised in another dtype than its input,
    the outermost module's parameters tied under two names; empty for a paste."""
    code_below: bool = field(default=True, repr=False, compare=False)
    """Whether code pasted below the error (a report's listing after its title) may stand in for missing frames."""

    @cached_property
    def frames(self) -> tuple[Frame, ...]:
        """The frames that led to the error, outermost first."""
        return self.live_frames or _frames_of(self.paste, self.line, self.code_below)

    @cached_property
    def frames_from_code_below(self) -> bool:
        """Whether the frames are only code pasted below the error: what the report shows, not what raised."""
        return bool(self.frames) and not self.live_frames and not _frames_of(self.paste, self.line, False)


def from_text(text: str) -> Iterator[Failure]:
    """The errors in a paste, most likely first: ``...Error:`` lines from the last, then every line."""
    return from_lines(tuple(clean_lines(text)))


def from_lines(lines: tuple[str, ...]) -> Iterator[Failure]:
    """The errors in a paste's cleaned lines (``logtext.clean_lines``), most likely first; a field line with no error
    line above it (``query.dtype: torch.float16``) is read with the field lines below it."""
    errors = {index: error for index, error in enumerate(map(_error_at, lines, ("", *lines))) if error}
    for index, (error_type, said) in reversed(errors.items()):
        message = _with_details(said.strip(), lines[index + 1:index + 1 + MAX_DETAILS])
        yield Failure(error_type.rsplit(".", 1)[-1], message, paste=lines, line=index)
    for index in reversed(range(len(lines))):
        if lines[index] and index not in errors:
            below = lines[index + 1:index + 1 + MAX_DETAILS]
            message = (_with_details(lines[index], below) if _DETAIL.match(lines[index])
                       else _unwrapped(lines[index], below[0] if below else ""))
            yield Failure("", message, paste=lines, line=index)


def _error_at(line: str, above: str) -> tuple[str, str] | None:
    """The error type and message ``line`` shows (``above`` is the line before it), or None."""
    found = _ERROR_LINE.match(line)
    if found:
        return (found["type"], found["message"]) if found["type"] else ("Error", found["r_message"])
    header = _VSCODE_HEADER.match(above)
    if header and line:
        return header["type"], line
    said = _R_MESSAGE.match(line)
    return ("Error", said["message"]) if said and _R_UNEXPECTED.search(above) else None


def from_exception(error: BaseException) -> Iterator[Failure]:
    """The errors of a live exception chain, the innermost (``__cause__``/``__context__``) first; each raised one keeps
    its message's lines, then those of the errors that wrap it, as its paste (a tensor printed below a message, or a
    wrapper's line naming the op, read as in a pasted traceback); its frames are its wrappers' (the calls that led to
    it, the user's among them) and then its traceback's."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain and len(chain) < MAX_CHAIN:
        chain.append(current)
        current = current.__cause__ or current.__context__
    messages = [tuple(line.strip() for line in str(exc).splitlines() if line.strip()) or (type(exc).__name__,)
                for exc in chain]
    stacks = [tuple(Frame(summary.filename, summary.name, (summary.line or "").strip())
                    for summary in traceback.extract_tb(exc.__traceback__)) for exc in chain]
    for depth in reversed(range(len(chain))):
        exc, lines = chain[depth], messages[depth]
        frames = stacks[depth] and tuple(frame for outer in stacks[:depth] for frame in outer) + stacks[depth]
        frames += _frames_in(lines, 0, len(lines))
        operands = _operands(exc.__traceback__)
        model = read_model(exc.__traceback__)
        paste = lines + tuple(line for outer in reversed(messages[:depth]) for line in outer) if frames else ()
        for index, line in enumerate(lines):
            yield Failure(type(exc).__name__, _with_details(line, lines[index + 1:index + 1 + MAX_DETAILS]), frames,
                          paste=paste, line=index, operands=operands, model=model)


def _operands(trace: TracebackType | None) -> tuple[tuple[str, str], ...]:
    """The tensors among the innermost frame's first locals, and the parameters of its ``self`` when that is a module
    (``self.kernel``), as (name, short dtype); only their dtypes are kept."""
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    if trace is None:
        return ()
    held = list(islice(trace.tb_frame.f_locals.items(), MAX_OPERANDS))
    owner = dict(held).get("self")
    parameters = vars(owner).get("_parameters") if hasattr(owner, "__dict__") else None
    if isinstance(parameters, dict):
        held += [(f"self.{name}", value) for name, value in islice(parameters.items(), MAX_OPERANDS)]
    tensors = ((name, tensor_dtype(value)) for name, value in held)
    return tuple((name, dtype) for name, dtype in tensors if dtype)


def _with_details(message: str, below: Sequence[str]) -> str:
    """The message (``_unwrapped``) with the field lines printed right below it (``query.dtype: torch.float32``)
    joined on."""
    rest = below[0] if below else ""
    wrapped = _is_wrapped(message, rest)
    details = takewhile(lambda line: bool(_DETAIL.match(line)) and not _ERROR_LINE.match(line), below[wrapped:])
    return "; ".join([f"{message} {rest}" if wrapped else message, *details])


def _unwrapped(message: str, rest: str) -> str:
    """The message with its rest (the next line) when a terminal wrapped it after a comma (``... same dtype,`` then
    ``but got BFloat16 and Float``)."""
    return f"{message} {rest}" if _is_wrapped(message, rest) else message


def _is_wrapped(message: str, rest: str) -> bool:
    return message.endswith(",") and bool(_WRAPPED_REST.match(rest))


def _frames_of(lines: tuple[str, ...], line: int, code_below: bool) -> tuple[Frame, ...]:
    """The frames of the traceback that ends at ``line`` (back to its ``Traceback`` header), else the code lines
    pasted just above it; for an error with neither above it, the frames pasted below it, or (when ``code_below``)
    the code."""
    start = line
    while start > 0 and not _BOUNDARY.match(lines[start - 1]):
        start -= 1
    above = _frames_in(lines, start, line) or _code(_bare_code(lines[max(start, line - BARE_CODE_LINES):line]))
    if above:
        return above
    end = line + 1
    while end < min(len(lines), line + 1 + FRAMES_BELOW) and not (
        _ERROR_LINE.match(lines[end]) or _CHAINED.match(lines[end])
    ):
        end += 1
    below = _frames_in(lines, line + 1, end)
    return below or (_code(_bare_code(lines[line + 1:end])[:BARE_CODE_LINES]) if code_below else ())


def _frames_in(lines: tuple[str, ...], start: int, end: int) -> tuple[Frame, ...]:
    """The frames whose headers are in ``lines[start:end]``, each with its code line, outermost first (a recorded
    trace's frames, printed innermost first, follow the others reversed)."""
    headers = ((index, _frame(lines[index])) for index in range(start, end))
    printed = tuple(Frame(*header, _code_after(lines, index, end)) for index, header in headers if header is not None)
    recorded = (_RECORDED_FRAME.match(lines[index]) for index in reversed(range(start, end)))
    return printed + tuple(Frame(found["file"], found["function"]) for found in recorded if found)


def _code(lines: list[str]) -> tuple[Frame, ...]:
    """Bare code lines as frames that show only their code."""
    return tuple(Frame("", "", line) for line in lines)


def _bare_code(lines: tuple[str, ...]) -> list[str]:
    """Code lines pasted just above an error without their frame headers (``return torch.layer_norm(...)``)."""
    return [line for line in lines if _CODE.search(line) and _frame(line) is None and not _ERROR_LINE.match(line)]


def _frame(line: str) -> tuple[str, str] | None:
    for pattern in _FRAME_FORMATS:
        found = pattern.match(line)
        if found:
            return found["file"].strip(), found["function"]
    return None


def _code_after(lines: tuple[str, ...], index: int, end: int) -> str:
    """The code line a frame ran: the marked one (Jupyter's ``-->``, rich's ``❱``) or the first shown."""
    shown = []
    for line in lines[index + 1:min(end, index + 12)]:
        if _frame(line) is not None or _ERROR_LINE.match(line) or _BOUNDARY.match(line):
            break
        if _RAN_MARKER.match(line):
            return _RAN_MARKER.sub("", line, count=1).strip()
        code = _LINE_NUMBER.sub("", line, count=1).strip()
        if code and not _CARETS.match(code) and not code.startswith(("...", "(...)")):
            shown.append(code)
    return shown[0] if shown else ""
