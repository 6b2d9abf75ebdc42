"""Hypothesis strategies for structured safetensors files: plausible headers with hostile fields.

Most drawn files are nearly valid (real dtype codes, consistent offsets, a matching data region)
so that the fuzzer gets past the first check and reaches the later ones; each field is replaced
now and then by a value of the wrong type, size or encoding.
"""

from __future__ import annotations

import json
import math
import struct

from hypothesis import strategies as st

CODES = [
    "BOOL",
    "U8",
    "I8",
    "I16",
    "U16",
    "I32",
    "U32",
    "I64",
    "U64",
    "F16",
    "BF16",
    "F32",
    "F64",
    "C64",
    "F8_E4M3",
    "F8_E5M2",
    "F8_E8M0",
    "F8_E4M3FNUZ",
    "F8_E5M2FNUZ",
    "F4",
    "F6_E2M3",
    "F6_E3M2",
]
BITS = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "I16": 16,
    "U16": 16,
    "I32": 32,
    "U32": 32,
    "I64": 64,
    "U64": 64,
    "F16": 16,
    "BF16": 16,
    "F32": 32,
    "F64": 64,
    "C64": 64,
    "F8_E4M3": 8,
    "F8_E5M2": 8,
    "F8_E8M0": 8,
    "F8_E4M3FNUZ": 8,
    "F8_E5M2FNUZ": 8,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
}
HOSTILE_NAMES = [
    "[/x]",
    "[red]",
    "[bold red]x[/]",
    "\x1b[31mred",
    "a\nb",
    "__metadata__ ",
    "",
    "\x00",
    "\u202eevil",
    "é",
    "😀",
    "\ud800",
    "x\udfff",
]
HUGE = [2**31, 2**32, 2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**70]
SURROGATE_TOKEN = "\ue000surrogate\ue000"
"""Stands for a lone surrogate in a name; ``serialise`` writes it as the JSON escape ``\\ud800``."""

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=8))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def sometimes(draw: st.DrawFn, usual: object, hostile: st.SearchStrategy, odds: int = 14) -> object:
    """``usual`` most of the time; one time in ``odds`` a value drawn from ``hostile``."""
    return draw(hostile) if draw(st.integers(0, odds - 1)) == 0 else usual


@st.composite
def dims(draw: st.DrawFn) -> int:
    """A small dimension, now and then a huge or negative one."""
    return sometimes(draw, draw(st.integers(0, 6)), st.sampled_from([*HUGE, -1]), odds=10)  # type: ignore[return-value]


@st.composite
def tensor_specs(draw: st.DrawFn) -> tuple[str, object, object, int]:
    """(name, dtype field, shape field, bytes it needs or -1 when unknown)."""
    name = sometimes(draw, draw(st.text(max_size=10)), st.sampled_from(HOSTILE_NAMES), odds=6)
    name = name.replace("\ud800", SURROGATE_TOKEN).replace("\udfff", SURROGATE_TOKEN)
    code = draw(st.sampled_from(CODES))
    shape = draw(st.lists(dims(), max_size=4))
    nbytes = -1
    if all(d >= 0 for d in shape) and math.prod(shape) < 2**20:
        nbytes = math.prod(shape) * BITS[code] // 8
    dtype = sometimes(draw, code, json_values | st.sampled_from(["f32", "F128"]))
    return name, dtype, sometimes(draw, shape, json_values), nbytes  # type: ignore[return-value]


@st.composite
def safetensors_files(draw: st.DrawFn) -> bytes:
    """The bytes of a structured, possibly malformed, safetensors file."""
    header: dict[str, object] = {}
    offset = 0
    for name, dtype, shape, nbytes in draw(st.lists(tensor_specs(), min_size=1, max_size=4)):
        size = nbytes if nbytes >= 0 else draw(st.integers(0, 16))
        end = offset + size + sometimes(draw, 0, st.sampled_from([1, -1]), odds=12)
        offsets = sometimes(draw, [offset, end], json_values | st.lists(st.sampled_from([0, *HUGE]), max_size=3))
        info: dict[str, object] = {"dtype": dtype, "shape": shape, "data_offsets": offsets}
        if draw(st.integers(0, 19)) == 0:
            info.pop(draw(st.sampled_from(sorted(info))))
        if draw(st.integers(0, 19)) == 0:
            info["extra"] = draw(json_values)
        header[name] = info
        offset = max(offset, end)
    if draw(st.booleans()):
        plain = draw(st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=3))
        header["__metadata__"] = sometimes(draw, plain, st.none() | json_values, odds=4)
    raw = serialise(header, sometimes(draw, 0, st.sampled_from([126, 127, 128, 5000])))  # type: ignore[arg-type]
    data = bytes(max(0, offset + sometimes(draw, 0, st.sampled_from([1, -1]), odds=12)))  # type: ignore[operator]
    length = len(raw) + sometimes(draw, 0, st.sampled_from([1, -1, 2**40]), odds=12)  # type: ignore[operator]
    return struct.pack("<Q", max(0, length)) + raw + data


def serialise(header: dict[str, object], nesting: int) -> bytes:
    """JSON bytes for ``header`` (NaN allowed, surrogate tokens escaped), wrapped ``nesting`` deep."""
    text = json.dumps(header, ensure_ascii=False).replace(SURROGATE_TOKEN, "\\ud800")
    if nesting:
        deep = '"deep": ' + "[" * (nesting - 1) + "]" * (nesting - 1) + "}"
        text = text[:-1] + (", " + deep if header else deep)
    return text.encode("utf-8")
