"""Property-based fuzzing of every format (``format_strategies``): on any structured input,
inspect, load and convert either refuse with ``CheckpointError`` or read what a correct reader
reads (``fuzz_oracle``), with every ``torch.empty`` buffer starting as a sentinel; never a raw
exception, never a wrong or uninitialised output.

The hypothesis runs are derandomized (a fixed seed) and small (seconds per format); the benchmark
runs tens of thousands per format in worker processes. Every safetensors input that ever crashed
castwise is kept below as a regression corpus and replayed on every run.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings

from . import format_strategies
from .fuzz_oracle import CLEAN, CORRECT, Case, judge, sentinel_buffers

_F32x2 = '{"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}'


def _file(header: str, data_bytes: int = 8) -> bytes:
    raw = header.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw + bytes(data_bytes)


CRASHERS = {  # input -> the exception it raised before the fix
    "dtype_list": _file('{"a": {"dtype": ["F32"], "shape": [2], "data_offsets": [0, 8]}}'),  # TypeError
    "dtype_object": _file('{"a": {"dtype": {"F32": 1}, "shape": [2], "data_offsets": [0, 8]}}'),  # TypeError
    "deep_header": _file('{"a": ' + _F32x2[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}}"),  # RecursionError
    "deep_metadata": _file('{"__metadata__": ' + "[" * 5000 + "]" * 5000 + ', "a": ' + _F32x2 + "}"),
    "huge_zero_shape": _file(
        '{"a": {"dtype": "F32", "shape": [1180591620717411303424, 0], "data_offsets": [0, 0]}}', 0
    ),  # TypeError from torch.empty
    "overflowing_zero_shape": _file(
        '{"a": {"dtype": "F32", "shape": [4611686018427387904, 4, 0], "data_offsets": [0, 0]}}', 0
    ),  # RuntimeError from torch.empty
    "surrogate_name": _file('{"\\ud800": ' + _F32x2 + "}"),  # UnicodeEncodeError in convert
    "huge_offsets": _file(
        '{"a": {"dtype": "U8", "shape": [0], "data_offsets": [18446744073709551616, 18446744073709551616]}}', 0
    ),
    "shape_of_many_huge_dims": _file(
        '{"a": {"dtype": "U8", "shape": [' + ", ".join(["4611686018427387904"] * 2000) + '], "data_offsets": [0, 0]}}',
        0,
    ),  # minutes of bigint products
    "f4_scalar": _file('{"a": {"dtype": "F4", "shape": [], "data_offsets": [0, 1]}}', 1),
}


def _judged(case: Case) -> str:
    with sentinel_buffers():
        outcome = judge(case)
    assert outcome.kind in (CLEAN, CORRECT), outcome
    return outcome.kind


@pytest.mark.parametrize("case", sorted(CRASHERS))
def test_regression_corpus(case):
    assert _judged(Case("safetensors", {"f.safetensors": CRASHERS[case]}, "f.safetensors", "zeros")) == CLEAN


def _repeatable(examples: int) -> settings:
    """Hypothesis settings for ``examples`` inputs drawn the same way on every run (no database, no deadline)."""
    return settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


BUDGET = {"safetensors": 150, "index": 80, "config": 15, "fp8": 50, "torch": 80, "dcp": 80, "zero": 40}
"""Inputs per format in the suite (a few seconds each); ``benchmarks/checkpoint_fuzz.py`` runs tens of thousands."""


@pytest.mark.parametrize("name", sorted(BUDGET))
def test_structured_inputs_are_refused_cleanly_or_read_correctly(name):
    if name == "zero":
        pytest.importorskip("deepspeed")  # writes the real checkpoint the inputs start from
    kinds: list[str] = []

    @_repeatable(BUDGET[name])
    @given(getattr(format_strategies, f"{name}_cases")())
    def check(case):
        kinds.append(_judged(case))

    check()
    assert kinds.count(CORRECT) >= len(kinds) // 10, kinds  # the strategy reaches valid inputs, not only garbage
