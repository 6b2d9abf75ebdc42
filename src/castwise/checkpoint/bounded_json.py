"""JSON parsing that a hostile file cannot turn into a crash: bounded nesting, optional strictness.

Python's ``json`` recurses once per nesting level, so a few thousand ``[`` raise
``RecursionError``. safetensors' parser (serde_json) refuses the 128th level; every JSON file
castwise reads (safetensors headers, index files, ``config.json``) gets the same bound, checked
before parsing. ``standard=True`` also refuses what serde_json refuses and Python accepts:
``NaN``/``Infinity``, numbers that overflow a float, and lone UTF-16 surrogates.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

MAX_NESTING = 127
"""Deepest accepted nesting of arrays and objects (serde_json, and so safetensors, refuse 128)."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_STRUCTURAL = np.zeros(256, dtype=bool)
_STRUCTURAL[[ord(c) for c in '[]{}"']] = True
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_json(text: str, standard: bool = False) -> Any:
    """Parse ``text``; raise ``ValueError`` (with the reason) for bad or too deeply nested JSON."""
    depth = nesting(text)
    if depth > MAX_NESTING:
        raise ValueError(f"nested {depth:,} levels deep; at most {MAX_NESTING} are allowed")
    if not standard:
        return json.loads(text)
    document = json.loads(
        text, parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys
    )
    if _SURROGATE_ESCAPE.search(text):
        lone = next((s for s in _strings(document) if _SURROGATE.search(s)), None)
        if lone is not None:
            raise ValueError(f"the string {lone!r} holds a lone UTF-16 surrogate, which is not Unicode text")
    return document


def read_json_file(path: Path, limit: int) -> Any:
    """The JSON in a file of at most ``limit`` bytes (``ValueError`` says why not; ``OSError`` passes)."""
    with open(path, "rb") as file:
        raw = file.read(limit + 1)
    if len(raw) > limit:
        raise ValueError(f"more than the {limit:,} bytes castwise reads of such a file")
    return parse_json(raw.decode("utf-8"))


def nesting(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (brackets inside strings ignored).

    Vectorised over the brackets and quotes alone; when no quote is escaped, every quote opens or
    closes a string, otherwise strings are cut out with a regular expression first.
    """
    if '\\"' in text:
        text = _STRING.sub("", text)
    codes = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    codes = codes[_STRUCTURAL[codes]]
    quotes = codes == ord('"')
    outside = np.cumsum(quotes, dtype=np.int64) % 2 == 0
    opens = ((codes == ord("[")) | (codes == ord("{"))) & outside
    closes = ((codes == ord("]")) | (codes == ord("}"))) & outside
    return int((opens.astype(np.int64) - closes).cumsum().max(initial=0))


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text} is out of range")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        repeated = sorted(key for key, n in Counter(key for key, _ in pairs).items() if n > 1)
        raise ValueError(f"duplicate keys {repeated}")
    return document


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
