"""Pasted logs back to the lines Python printed: prefixes, colours, boxes and markup taken off.

What users paste is rarely a bare traceback: distributed launchers prefix every line
(``[rank7]:``), loggers add timestamps and levels (``2024-01-20 14:53:22,980 INFO``,
``ERROR:root:``, ``[2024-08-30 06:31] ERROR``), docker-compose adds ``service-1   |``, rich draws
boxes (``│ ❱ 197 │``), pytest marks failures with ``E   ``, GitHub quotes with ``>``, a reprex marks
its output with ``#>``, prose opens a code span right before an error (``I am getting ```ValueError: ...``),
copied notebooks keep markdown links around paths, prose sets words in bold, and loggers that wrap at the
console's width (SD.Next's rich log) break one message over several indented lines, and ComfyUI's error
report writes ``- Exception Message:`` before the message. The reader needs the plain
lines (code-line markers such as Jupyter's ``--->`` stay: they say which line of a frame ran). A paste is
bounded: only its tail (where the error is) is read.
"""

from __future__ import annotations

import re
import unicodedata

MAX_CHARS = 1_000_000
"""Characters of a paste that are read (its tail)."""

MAX_LINE = 4_000
"""Characters of one line that are read."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\[\d{1,3}(?:;\d{1,3})*m")
_LINK = re.compile(r"\[([^\]\n]{0,400})\]\((?:https?|vscode|file)[^)\s]{0,2000}\)")
_BOLD = re.compile(r"(?<![\w*])\*\*(?=\S)([^*\n]{1,80}?)(?<=\S)\*\*(?![\w*])")
"""Markdown bold around words (``**nan** losses``); ``f(*args, **kwargs)`` has no closing pair and stays."""
_INLINE_FENCE = re.compile(r"```(?=\S)([^`\n]{1,80}?)(?<=\S)```")
"""Words inside a line in markdown's triple backticks (``can give ```NaN``` values``), read as in single ones."""
_BOX_EDGE = re.compile(r"^[\s│┃║]+|[\s│┃║]+$")
_BOX_RULE = re.compile(r"^[\s╭╰─━═┌└┐┘├┤┬┴┼]+(?:Traceback.*)?[\s╮╯─━═]*$")

_PREFIXES = tuple(re.compile(pattern) for pattern in (
    r"^\[?(?:rank|default)\d+\]?:\s?",  # torchrun / torch.distributed.elastic
    r"^\[(?:INFO|WARNING|ERROR|DEBUG)\|[^\]]{0,200}\][^>]{0,80}>>\s?",  # transformers' logging format
    r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s*(?:-\s+)?",
    r"^[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2}\s+",  # syslog / CI timestamps
    r"^[A-Za-z_][\w.]{0,80}:\s?\[(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\]\s?",  # logger: [LEVEL] (torch._dynamo's)
    r"^(?:INFO|ERROR|WARNING|WARN|DEBUG|CRITICAL)(?::[\w.<>-]*:|\s*[:|-]\s+|\s+)",
    r"^[\w.-]{1,60}-\d+\s+\|\s?",  # docker-compose service prefix
    r"^!!![^!\n]{0,80}!!!\s*",  # ComfyUI "!!! Exception during processing !!!"
    r"^!!! ERROR[^:\n]{0,80}:\s*",
    r"^-\s+Exception Message:\s*",  # ComfyUI's error report
    r"^E {2,}",  # pytest's failure lines
    r"^>\s",  # quoted on GitHub
    r"^#>\s?",  # a reprex's output (R's reprex, torch for R)
    r"^#+\s*(?=(?:[A-Za-z_]\w*\.){0,6}[A-Za-z_]\w*(?:Error|Exception)\s*:)",  # a code comment or heading: # ValueError:
    r"^[^`\n]{0,200}?`{1,3}\s*(?=(?:[A-Za-z_]\w*\.){0,6}[A-Za-z_]\w*(?:Error|Exception)\s*:)",  # I got ```ValueError:
    r"^(?:\d{1,2}[.)]|[-*•])\s+(?=(?:[A-Za-z_]\w*\.){0,6}[A-Za-z_]\w*(?:Error|Exception)\s*:)",  # a list of errors
    r"^[^\n:]{0,200}?(?:报错|错误|(?<![A-Za-z])(?:error|got|get|getting|throws|threw|raises|raised|says|shows))\s*:\s*"
    r"(?=(?:[A-Za-z_]\w*\.){0,6}[A-Za-z_]\w*(?:Error|Exception)\s*:)",  # when using X, I get: ValueError:
))


def clean_lines(text: str) -> list[str]:
    """The lines of a paste with log prefixes, colours, rich boxes and markdown taken off (and full-width
    punctuation, as some keyboards type it, folded to ASCII); a log record a console wrapped over several lines is
    one line again."""
    text = _ANSI.sub("", unicodedata.normalize("NFKC", text[-MAX_CHARS:]))
    lines: list[str] = []
    previous = ""
    for raw in text.splitlines():
        line = _INLINE_FENCE.sub(r"`\1`", _BOLD.sub(r"\1", _LINK.sub(r"\1", raw[:MAX_LINE])))
        if _BOX_RULE.match(line):
            continue
        if lines and _continues(previous, line):
            lines[-1] = f"{lines[-1]} {line.strip()}"[:MAX_LINE]
        else:
            lines.extend(_test_summary(_strip_prefixes(_BOX_EDGE.sub("", line))))
        previous = line
    return lines


WRAP_WIDTH = 72
"""A line at least this long, followed by one indented past ``WRAP_INDENT``, was wrapped by a console (loguru, rich)."""

WRAP_INDENT = 20


def _continues(previous: str, line: str) -> bool:
    """Whether ``line`` is the rest of ``previous``, a log record wrapped at the console's width: ``previous`` fills
    the width and ``line`` is indented to the record's message column (far deeper than a traceback's code)."""
    indent = len(line) - len(line.lstrip(" "))
    return len(previous) >= WRAP_WIDTH and indent >= WRAP_INDENT and bool(line.strip())


_TEST_SUMMARY = re.compile(
    r"^(?:FAILED|ERROR) (?P<file>\S+?\.py)::(?:\w+::)?(?P<test>\w+)(?:\[.*?\])? - (?P<error>\S.*)$")
"""pytest's short summary of a failed test: ``FAILED tests/test_norm.py::test_bf16[x] - RuntimeError: ...``."""


def _test_summary(line: str) -> list[str]:
    """A pytest summary line as the test's frame (pytest's own ``file:0: in test``) and the error it failed with: a
    test is often named after the op it tests; any other line as it is."""
    found = _TEST_SUMMARY.match(line)
    return [f"{found['file']}:0: in {found['test']}", found["error"]] if found else [line]


def _strip_prefixes(line: str) -> str:
    stripped = line.strip()
    for _ in range(8):
        for prefix in _PREFIXES:
            shorter = prefix.sub("", stripped, count=1).strip()
            if shorter != stripped:
                stripped = _BOX_EDGE.sub("", shorter)
                break
        else:
            return stripped
    return stripped
