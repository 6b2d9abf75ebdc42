"""Reading pastes: dtype and device spellings, log prefixes, tracebacks in every format, chains, and the bound on
the pattern work a line costs."""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import castwise as cw
from castwise.explainer import Kind
from castwise.explainer.clues import low_precision_in, low_precision_said
from castwise.explainer.failures import Failure, from_exception, from_text
from castwise.explainer.families import FALLBACKS, RULES
from castwise.explainer.logtext import MAX_CHARS, MAX_LINE, WRAP_INDENT, WRAP_WIDTH, clean_lines
from castwise.explainer.spelling import device_of, short_dtype, short_dtypes

MESSAGE = "RuntimeError: mat1 and mat2 must have the same dtype, but got Float and BFloat16"


@pytest.mark.parametrize(("spelling", "dtype", "device"), [
    ("Float", "f32", None),
    ("float", "f32", None),
    ("c10::Half", "f16", None),
    ("struct c10::BFloat16", "bf16", None),
    ("c 10::BFloat16", "bf16", None),
    ("at::Half", "f16", None),
    ("long int", "int64", None),
    ("unsigned char", "uint8", None),
    ("torch.bfloat16", "bf16", None),
    ("'BFloat16'", "bf16", None),
    ("BFLoat16", "bf16", None),
    ("Double", "f64", None),
    ("c10::Float8_e4m3fn", "float8_e4m3fn", None),
    ("torch.cuda.HalfTensor", "f16", "cuda"),
    ("torch.HalfTensor", "f16", "cpu"),
    ("CPUBFloat16Type", "bf16", "cpu"),
    ("CUDAFloatTensor", "f32", "cuda"),
    ("CUDAIntTensor", "int32", "cuda"),
    ("c10::BFloat16.", "bf16", None),
])
def test_every_spelling_reads_back_to_one_dtype_and_device(spelling: str, dtype: str, device: str | None) -> None:
    assert short_dtype(spelling) == dtype
    assert device_of(spelling) == device


@pytest.mark.parametrize("word", ["Tensor", "struct c10", "xyz", ""])
def test_a_word_that_names_no_dtype_reads_as_none(word: str) -> None:
    assert short_dtype(word) is None


@pytest.mark.parametrize("line", [
    "[rank7]: " + MESSAGE,
    "[default0]:" + MESSAGE,
    "2024-01-20 14:53:22,980 INFO " + MESSAGE,
    "2025-05-14T16:58:21.405612 - " + MESSAGE,
    "[2024-08-30 06:31] ERROR " + MESSAGE,
    "Sep 16 01:13:30 " + MESSAGE,
    "ERROR:root:" + MESSAGE,
    "vtx-lab-1   | " + MESSAGE,
    "E       " + MESSAGE,
    "> " + MESSAGE,
    "│ " + MESSAGE + " │",
    "\x1b[31m" + MESSAGE + "\x1b[0m",
    "[rank0]: 2024-01-20 14:53:22,980 ERROR " + MESSAGE,
])
def test_log_prefixes_colours_and_boxes_are_taken_off(line: str) -> None:
    assert clean_lines(line) == [MESSAGE]


def test_full_width_punctuation_and_markdown_links_are_folded() -> None:
    assert clean_lines("Input type （BFloat16） and bias type (Half)") == ["Input type (BFloat16) and bias type (Half)"]
    assert clean_lines("File [~/x.py:3](vscode-remote://host/x.py:3), in f") == ["File ~/x.py:3, in f"]


def test_the_last_error_line_is_read_first_and_its_own_frames_with_it() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in step\n'
        "    out = self.norm(x)\n"
        '  File "/env/torch/nn/functional.py", line 2910, in layer_norm\n'
        "    return torch.layer_norm(\n"
        "RuntimeError: expected scalar type Float but found Half\n"
        "\nThe above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\n"
        '  File "run.py", line 9, in <module>\n'
        "    trainer.fit()\n"
        "RuntimeError: training failed\n"
    )
    failures = list(from_text(text))
    assert [f.message for f in failures[:2]] == ["training failed", "expected scalar type Float but found Half"]
    assert [frame.function for frame in failures[1].frames] == ["step", "layer_norm"]
    assert failures[1].frames[1].code == "return torch.layer_norm("
    assert cw.explain(text).kind is Kind.NORM_PARAM


@pytest.mark.parametrize("frame", [
    'File "/env/torch/nn/modules/rnn.py", line 969, in forward\n    self.bias_ih, self.bias_hh,',
    "File ~/env/torch/nn/modules/rnn.py:969, in LSTMCell.forward(self, input, hx)\n    967 input, hx,\n"
    "--> 969     self.bias_ih, self.bias_hh,",
    "~/env/torch/nn/modules/rnn.py in forward(self, input, hx)\n    967 input, hx,\n--> 969     self.bias_ih,",
    "│ /env/torch/nn/modules/rnn.py:969 in forward │\n│ ❱ 969 │   self.bias_ih, self.bias_hh, │",
    "/env/torch/nn/modules/rnn.py:969: in forward\n    self.bias_ih, self.bias_hh,",
])
def test_frames_are_read_in_every_format_people_paste(frame: str) -> None:
    explanation = cw.explain(frame + "\nRuntimeError: expected scalar type Half but found Float")
    assert explanation.kind is Kind.RNN
    failure = next(from_text(frame + "\nRuntimeError: expected scalar type Half but found Float"))
    assert failure.frames[-1].code.startswith("self.bias_ih")


def test_a_live_chain_is_read_from_the_innermost_error_out() -> None:
    try:
        try:
            raise RuntimeError("expected scalar type Float but found BFloat16")
        except RuntimeError as inner:
            raise ValueError("wrapper") from inner
    except ValueError as outer:
        error = outer
    assert [f.error_type for f in from_exception(error)] == ["RuntimeError", "ValueError"]


def test_a_cyclic_chain_ends() -> None:
    first, second = RuntimeError("a"), RuntimeError("b")
    first.__context__, second.__context__ = second, first
    assert len(list(from_exception(first))) == 2


def test_only_the_tail_of_a_huge_paste_is_read() -> None:
    assert cw.explain(MESSAGE + "\n" + "x" * (MAX_CHARS + 10)) is None
    assert cw.explain("noise line\n" * 200_000 + MESSAGE).kind is Kind.MATMUL


def test_field_lines_below_an_error_are_read_as_part_of_its_message() -> None:
    text = (
        "ValueError: Query/Key/Value should either all have the same dtype\n"
        "  query.dtype: torch.float32\n  key.dtype  : torch.float16\n  value.dtype: torch.float16\n"
        "Steps:   0%|          | 0/500\n"
    )
    explanation = cw.explain(text)
    assert explanation.kind is Kind.SDPA and explanation.dtypes == ("f32", "f16")
    assert explanation.message.endswith("value.dtype: torch.float16")


def test_a_live_message_printed_over_several_lines_is_read_whole() -> None:
    error = ValueError("Query/Key/Value should either all have the same dtype\n  query.dtype: torch.bfloat16\n"
                       "  key.dtype  : torch.float32\n  value.dtype: torch.float32")
    assert cw.explain(error).dtypes == ("bf16", "f32")


def test_a_line_below_an_error_that_lists_no_field_stays_out_of_its_message() -> None:
    failure = next(from_text("RuntimeError: Found dtype Double but expected Float\n"
                             "Exception raised from compute_types at TensorIterator.cpp:183 (most recent call first):"))
    assert failure.message == "Found dtype Double but expected Float"


def test_an_error_pasted_above_its_traceback_takes_the_frames_below_it() -> None:
    text = (
        "RuntimeError: expected scalar type Float but found Half\n\n"
        '  File "/env/torch/nn/modules/normalization.py", line 201, in forward\n    return F.layer_norm(\n'
        '  File "/env/torch/nn/functional.py", line 2546, in layer_norm\n    return torch.layer_norm(input)\n'
    )
    failure = next(from_text(text))
    assert [frame.function for frame in failure.frames] == ["forward", "layer_norm"]
    assert cw.explain(text).kind is Kind.NORM_PARAM


def test_frames_below_an_error_are_not_read_when_frames_lead_to_it() -> None:
    text = (
        '  File "/env/torch/nn/functional.py", line 2546, in layer_norm\n    return torch.layer_norm(input)\n'
        "RuntimeError: expected scalar type Float but found Half\n"
        '  File "/env/torch/nn/modules/conv.py", line 549, in _conv_forward\n    return F.conv2d(\n'
    )
    assert [frame.function for frame in next(from_text(text)).frames] == ["layer_norm"]


def test_frames_below_an_error_stop_at_the_next_exception_of_a_chain() -> None:
    text = (
        "RuntimeError: expected scalar type Float but found Half\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        '  File "/env/torch/nn/modules/conv.py", line 549, in _conv_forward\n    return F.conv2d(\n'
    )
    assert next(from_text(text)).frames == ()


def test_code_pasted_below_a_first_line_error_is_read_and_at_is_a_matmul() -> None:
    text = "RuntimeError: expected scalar type Half but found Float\n\nx = (attn @ v).transpose(1, 2)\n"
    assert cw.explain(text).kind is Kind.MATMUL
    decorated = "RuntimeError: expected scalar type Half but found Float\n\n@torch.no_grad()\ndef run(x):\n"
    assert cw.explain(decorated).kind is Kind.SCALAR_TYPE


def _leading_run(items: list[tuple[object, object]]) -> bool | None:
    """True when an unbounded repeat comes before the first literal, False when a literal comes first, None when
    the items end first (a regex walked as ``re``'s parser writes it)."""
    for op, argument in items:
        name = str(op)
        if name == "LITERAL":
            return False
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, inner = argument  # type: ignore[misc]
            found = True if high == _PARSER.MAXREPEAT else _leading_run(list(inner))
            if found or (found is False and low > 0):
                return found
        elif name == "SUBPATTERN":
            found = _leading_run(list(argument[-1]))  # type: ignore[index]
            if found is not None:
                return found
        elif name == "BRANCH":
            branches = [_leading_run(list(branch)) for branch in argument[1]]  # type: ignore[index]
            if True in branches or all(found is False for found in branches):
                return True in branches
    return None


_PARSER = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")


@pytest.mark.parametrize("rule", RULES + FALLBACKS, ids=[rule.pattern.pattern[:40] for rule in RULES + FALLBACKS])
def test_every_pattern_reaches_a_literal_before_any_unbounded_run(rule) -> None:
    """The bound on the pattern work a line costs: a search tries every start position, and a leading unbounded run
    (``\\w+ is not implemented``) rescans a long unbroken line from each of them (quadratic; a log took minutes)."""
    assert _leading_run(list(_PARSER.parse(rule.pattern.pattern, rule.pattern.flags))) is False


@pytest.mark.parametrize(("pattern", "leading_run"), [
    (r"\b(?P<op>\w+) is not implemented", True),
    (r"(?:x|\w*)y", True),
    (r"(?P<op>[\w.]{1,80})?[\w.]+: Low", True),
    (r"\b(?P<op>\w{1,80}) is not implemented", False),
    (r"(?:^|[\W_])loss\w+", False),
])
def test_the_bound_check_tells_a_leading_unbounded_run(pattern: str, leading_run: bool) -> None:
    assert _leading_run(list(_PARSER.parse(pattern))) is leading_run


@pytest.mark.parametrize("unit", ["a", "loss_", "Half ", "mat1 and ", "1e-"])
def test_a_paste_of_long_unbroken_lines_is_read_through(unit: str) -> None:
    line = (unit * (MAX_LINE // len(unit) + 1))[:MAX_LINE - 1]
    assert cw.explain((line + "\n") * 64) is None
    assert cw.explain((line + "\n") * 64 + MESSAGE).kind is Kind.MATMUL


def test_the_16_bit_dtype_said_nearest_an_error_is_read_nearest_first_and_within_its_bound() -> None:
    lines = ("a title", "run in bf16", "x", "RuntimeError: boom", "x", "then fp16", "x")
    failure = Failure("RuntimeError", "boom", paste=lines, line=3)
    assert low_precision_said(failure) == ("bf16",)
    assert low_precision_said(replace(failure, line=4)) == ("f16",)
    assert low_precision_said(failure, within=1) == ()
    assert low_precision_said(replace(failure, paste=("fp16 title", *lines[1:]))) == ("f16",)


@pytest.mark.parametrize(("line", "said"), [
    ("model.half() gives garbage", ("f16",)), ("x = y.half()", ("f16",)), ("run it with bf16 and torch.half", ("bf16", "f16")),
    ("amp_bf16 fail_accuracy", ("bf16",)), ("half of the images", ()), ("mixed precision", ()),
])
def test_a_16_bit_dtype_is_read_however_a_line_spells_it(line: str, said: tuple[str, ...]) -> None:
    assert low_precision_in(line) == said


@pytest.mark.parametrize(("word", "short"), [
    ("Float32", "f32"), ("torch::kFloat16", "f16"), ("at::kHalf", "f16"), ("kBFloat16", "bf16"),
    ("thunder.dtypes.bfloat16", "bf16"), ("np.float16", "f16"), ("torch.cuda.HalfTensor", "f16"), ("kernel", None),
    ("half_t", "f16"), ("bfloat16_t", "bf16"), ("float_e4m3_t", "float8_e4m3fn"),
    ("float_e5m2_t", "float8_e5m2"),
])
def test_other_libraries_and_c_plus_plus_spellings_of_a_dtype_are_read(word: str, short: str | None) -> None:
    assert short_dtype(word) == short


def test_a_log_record_a_console_wrapped_is_read_as_one_line() -> None:
    head = "17:07:45-760315 ERROR    Processing: args={'prompt': ['woman'], 'width': 1536} Input type (struct"
    paste = f"{head.ljust(WRAP_WIDTH)}\n{' ' * 25}c10::BFloat16) and bias type (float) should be the same\nnext"
    lines = clean_lines(paste)
    assert lines[0].endswith("Input type (struct c10::BFloat16) and bias type (float) should be the same")
    assert lines[1] == "next"


@pytest.mark.parametrize("paste", [
    "short line\n" + " " * 30 + "indented code",
    "x" * 100 + "\n" + " " * (WRAP_INDENT - 4) + "traceback code line",
])
def test_lines_that_were_not_wrapped_by_a_console_stay_apart(paste: str) -> None:
    assert len(clean_lines(paste)) == 2


def test_no_pattern_holds_a_control_character() -> None:
    """A backspace where ``\\b`` was meant (a shell quoting slip) makes a pattern silently never match."""
    assert not [rule.pattern.pattern for rule in (*RULES, *FALLBACKS)
                if re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", rule.pattern.pattern)]
    sources = Path(cw.__file__).parent / "explainer"
    assert not [path.name for path in sources.rglob("*.py") if re.search(r"[\x00-\x08\x0e-\x1f]", path.read_text())]


def test_short_dtypes_names_each_dtype_once_in_order_and_skips_other_words() -> None:
    assert short_dtypes(["torch.float16", "Half", "junk", "torch.cuda.FloatTensor", "c10::BFloat16"]) == (
        "f16", "f32", "bf16")
    assert short_dtypes([]) == ()
