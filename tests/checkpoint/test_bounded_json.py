"""Bounded JSON: nesting is measured exactly (brackets in strings ignored) and bounded like serde_json."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from castwise.checkpoint.bounded_json import MAX_NESTING, nesting, parse_json

tricky_text = st.text(alphabet='[]{}"\\ aé', max_size=6)
values = st.recursive(
    st.none() | st.integers() | tricky_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tricky_text, inner, max_size=3),
    max_leaves=12,
)


def _depth(value: object) -> int:
    children = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else None
    if children is None:
        return 0
    return 1 + max((_depth(child) for child in children), default=0)


@settings(max_examples=300, derandomize=True, database=None)
@given(values, st.booleans())
def test_nesting_counts_containers_not_brackets_in_strings(value, ascii_only):
    assert nesting(json.dumps(value, ensure_ascii=ascii_only)) == _depth(value)


def test_the_bound_is_serde_json_s():
    assert parse_json("[" * MAX_NESTING + "]" * MAX_NESTING) is not None
    with pytest.raises(ValueError, match=f"nested {MAX_NESTING + 1} levels deep; at most {MAX_NESTING}"):
        parse_json("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1))
    with pytest.raises(ValueError, match="nested 100,000 levels deep"):
        parse_json('{"a": ' + "[" * 99_999 + "]" * 99_999 + "}")


def test_standard_mode_refuses_what_python_accepts():
    assert parse_json('{"x": NaN}')["x"] != parse_json('{"x": NaN}')["x"]  # lenient: Python's NaN
    for text, reason in [
        ('{"x": NaN}', "NaN is not a JSON value"),
        ("[Infinity]", "Infinity is not"),
        ("[1e999]", "1e999 is out of range"),
        ('{"a": 1, "a": 2}', "duplicate keys \\['a'\\]"),
        ('["ok", {"k": ["\\udc00"]}]', "lone UTF-16 surrogate"),
    ]:
        with pytest.raises(ValueError, match=reason):
            parse_json(text, standard=True)
    assert parse_json('["\\ud83d\\ude00"]', standard=True) == ["\U0001f600"]
