"""``cw.explain``: the public contract, live exceptions against pasted text, and saying nothing.

Every error here is raised by torch 2.13 itself; assertions are on kinds, families, dtypes and the
advice, never on torch's wording (which differs by CPU and build).
"""

from __future__ import annotations

import dataclasses
import json
import traceback

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import castwise as cw
from castwise.explainer import Confidence, Family, Kind

from .live_cases import LIVE, raised

bf16 = torch.bfloat16


def _pasted(error: BaseException) -> str:
    return "".join(traceback.format_exception(error))


def test_explains_a_live_error_with_cause_culprit_and_fix() -> None:
    error = raised(LIVE["addmm"].action)
    explanation = cw.explain(error)
    assert isinstance(explanation, cw.Explanation)
    assert explanation.kind is Kind.MATMUL and explanation.family is Family.MIXED_FLOAT
    assert explanation.message == str(error).splitlines()[0]
    assert explanation.dtypes == ("bf16", "f32")
    assert explanation.confidence is Confidence.HIGH
    assert "bf16" in explanation.cause and explanation.culprit and explanation.fix


def test_a_report_serializes_exactly_the_five_contract_strings() -> None:
    explanation = cw.explain(raised(LIVE["layer-norm"].action))
    as_report = dataclasses.asdict(explanation)
    assert list(as_report) == ["kind", "message", "cause", "culprit", "fix"]
    assert json.loads(json.dumps(as_report))["kind"] == "norm_param_dtype"
    assert all(isinstance(value, str) for value in as_report.values())


def test_as_dict_carries_what_was_read() -> None:
    data = cw.explain(raised(LIVE["lstm"].action)).as_dict()
    assert data["kind"] == "rnn_dtype" and data["family"] == "mixed_float" and data["confidence"] == "high"
    assert data["dtypes"] == ["bf16", "f32"] and data["op"]
    assert json.loads(json.dumps(data)) == data


def test_explanation_reads_as_cause_culprit_fix() -> None:
    lines = str(cw.explain(raised(LIVE["addmm"].action))).splitlines()
    assert lines[1].startswith("Likely culprit: ") and lines[2].startswith("Fix: ")


def test_every_kind_has_a_family() -> None:
    assert {kind.family for kind in Kind} == set(Family)


@pytest.mark.parametrize("action", [
    lambda: F.linear(torch.randn(2, 4), torch.randn(3, 5)),
    lambda: {}["missing"],
    lambda: torch.randn(2).view(3),
])
def test_an_error_that_is_not_about_dtypes_is_not_explained(action) -> None:
    error = raised(action)
    assert cw.explain(error) is None
    assert cw.explain(_pasted(error)) is None


@pytest.mark.parametrize("text", ["", "\n\n", "Epoch 3: loss 0.41, accuracy 0.87", "Traceback (most recent call last):"])
def test_text_without_a_recognised_error_is_not_explained(text: str) -> None:
    assert cw.explain(text) is None


def test_the_fast_path_is_read_from_a_live_traceback_and_from_a_pasted_one() -> None:
    error = raised(LIVE["encoder-fastpath"].action)
    for source in (error, _pasted(error)):
        explanation = cw.explain(source)
        assert explanation.kind is Kind.TRANSFORMER_FASTPATH
        assert "set_fastpath_enabled(False)" in explanation.fix and "cw.apply" in explanation.fix


def test_the_bare_fast_path_message_gets_a_cautious_generic_answer() -> None:
    message = str(raised(LIVE["encoder-fastpath"].action)).splitlines()[0]
    explanation = cw.explain(message)
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.confidence is Confidence.LOW


def test_a_conv_module_mismatch_is_recognised_whatever_this_cpu_calls_it() -> None:
    error = raised(lambda: nn.Conv2d(1, 1, 3, bias=False)(torch.randn(1, 1, 4, 4).to(bf16)))
    for source in (error, _pasted(error)):
        explanation = cw.explain(source)
        assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("bf16", "f32")


@pytest.mark.parametrize("wording", [
    "RuntimeError: Input type (CPUBFloat16Type) and weight type (torch.FloatTensor) should be the same or input "
    "should be a MKLDNN tensor and weight is a dense tensor",
    "  File \"/x/torch/nn/modules/conv.py\", line 549, in _conv_forward\n    return F.conv2d(\n"
    "RuntimeError: expected scalar type BFloat16 but found Float",
])
def test_both_cpu_wordings_of_one_conv_error_read_the_same(wording: str) -> None:
    explanation = cw.explain(wording)
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("bf16", "f32")


def test_layer_norm_and_scaler_frames_name_the_op() -> None:
    assert cw.explain(raised(LIVE["group-norm"].action)).op == "group_norm"
    error = raised(LIVE["unscale-fp16"].action)
    for source in (error, _pasted(error)):
        assert cw.explain(source).op == "GradScaler.unscale_ (called from _unscale_fp16)"
    assert cw.explain("ValueError: Attempting to unscale FP16 gradients.").op == "GradScaler.unscale_"


def test_a_device_mismatch_says_it_is_not_a_dtype_problem() -> None:
    text = "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.HalfTensor) should be the same"
    explanation = cw.explain(text)
    assert explanation.kind is Kind.DEVICE_MISMATCH and explanation.family is Family.DEVICE
    assert "not a dtype problem" in explanation.cause and explanation.device == "cuda and cpu"
    assert "model.to(device)" in explanation.fix and "one policy" not in explanation.fix


def test_a_device_mismatch_with_two_dtypes_says_both() -> None:
    text = "Expected object of type torch.FloatTensor but found type torch.cuda.HalfTensor for argument #2 'mat2'"
    explanation = cw.explain(text)
    assert explanation.kind is Kind.DEVICE_MISMATCH and "dtypes differ too" in explanation.cause


def test_targets_cast_by_a_true_precision_are_said_to_be() -> None:
    explanation = cw.explain(raised(LIVE["target-cast-by-true-precision"].action))
    assert explanation.kind is Kind.TARGET and "-true" in explanation.culprit
    assert "target.long()" in explanation.fix and not explanation.fix.startswith("run the model under")


def test_the_module_is_the_one_the_traceback_calls() -> None:
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm2 = nn.LayerNorm(4).to(bf16)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.norm2(x)

    error = raised(lambda: Net()(torch.randn(2, 4)))
    assert cw.explain(error).module == "self.norm2"
    assert cw.explain(_pasted(error)).module == "self.norm2"


def test_a_method_call_is_not_taken_for_a_module() -> None:
    class Net(nn.Module):
        def project(self, x: torch.Tensor) -> torch.Tensor:
            return F.linear(x, torch.randn(3, 4))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.project(x)

    assert cw.explain(raised(lambda: Net()(torch.randn(2, 4).to(bf16)))).module is None
