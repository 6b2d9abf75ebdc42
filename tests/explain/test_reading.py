"""Reading pastes: dtype and device spellings, log prefixes, tracebacks in every format, chains."""

from __future__ import annotations

import pytest

import castwise as cw
from castwise.explainer import Kind
from castwise.explainer.failures import from_exception, from_text
from castwise.explainer.logtext import MAX_CHARS, clean_lines
from castwise.explainer.spelling import device_of, short_dtype

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
