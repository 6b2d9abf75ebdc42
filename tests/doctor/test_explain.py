"""``cw.explain``: every catalogue entry against the error torch 2.13 really raises."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import castwise as cw

bf16, f32 = torch.bfloat16, torch.float32


def _raise(action: Callable[[], object]) -> BaseException:
    with pytest.raises(Exception) as caught:
        action()
    return caught.value


def _huber_backward() -> None:
    prediction = torch.rand(3, requires_grad=True)
    F.huber_loss(prediction.to(bf16), torch.rand(3)).backward()


def _unscale_fp16_grads() -> None:
    weight = nn.Parameter(torch.randn(3).half())
    optimizer = torch.optim.SGD([weight], lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale((weight.float() ** 2).sum()).backward()
    scaler.unscale_(optimizer)


def _encoder_fastpath() -> None:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 1).eval()
    padding = torch.tensor([[False, False, False, True]])
    with warnings.catch_warnings(), torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        warnings.simplefilter("ignore")
        encoder(torch.randn(1, 4, 8), src_key_padding_mask=padding)


x = torch.randn(2, 4)
image = torch.randn(1, 1, 4, 4)

CASES: dict[str, tuple[Callable[[], object], str, tuple[str, ...]]] = {
    # id: (what raises, catalogue kind, words the cause must name)
    "addmm": (lambda: torch.addmm(torch.randn(3), x.to(bf16), torch.randn(4, 3)), "matmul_dtype", ("bf16", "f32")),
    "linear": (lambda: F.linear(x.to(bf16), torch.randn(3, 4)), "matmul_dtype", ("bf16", "f32")),
    "matmul-f16": (lambda: x.half() @ torch.randn(4, 3), "matmul_dtype", ("f16", "f32")),
    "bmm": (lambda: torch.bmm(x.to(bf16)[None], torch.randn(1, 4, 3)), "scalar_type", ("bf16", "f32")),
    "conv-f32-input": (lambda: F.conv2d(image, torch.randn(1, 1, 3, 3).to(bf16)), "conv_weight_dtype",
                       ("f32", "bf16")),
    "layernorm": (lambda: nn.LayerNorm(4).to(bf16)(x), "norm_param_dtype", ("f32",)),
    "conv-bias": (lambda: F.conv2d(image.to(bf16), torch.randn(1, 1, 3, 3).to(bf16), torch.randn(1)),
                  "conv_bias_dtype", ("bf16", "f32")),
    "conv-weight": (lambda: F.conv2d(image.to(bf16), torch.randn(1, 1, 3, 3)), "conv_weight_dtype", ("bf16", "f32")),
    "huber-backward": (_huber_backward, "loss_dtype", ("f32", "bf16")),
    "unscale-fp16": (_unscale_fp16_grads, "unscale_fp16", ("fp16",)),
    "fill-half": (lambda: torch.zeros(2, dtype=torch.half).fill_(1e6), "half_overflow", ("f16", "65504")),
    "masked-fill-half": (lambda: torch.zeros(2, dtype=torch.half).masked_fill(torch.tensor([True, False]), -1e9),
                         "half_overflow", ("f16",)),
    "encoder-fastpath": (_encoder_fastpath, "transformer_fastpath", ("bf16", "f32")),
    "sdpa": (lambda: F.scaled_dot_product_attention(*(torch.randn(1, 2, 4, 8).to(d) for d in (bf16, f32, f32))),
             "sdpa_dtype", ("query",)),
    "lstm": (lambda: nn.LSTM(4, 3)(x[None].to(bf16)), "rnn_dtype", ("bf16", "f32")),
    "index-put": (lambda: torch.zeros(3).index_put_((torch.tensor([0]),), torch.ones(1).to(bf16)), "index_dtype", ()),
    "index-add": (lambda: torch.zeros(3).index_add_(0, torch.tensor([0]), torch.ones(1).to(bf16)), "index_dtype", ()),
    "scatter": (lambda: torch.zeros(3).scatter_(0, torch.tensor([0]), torch.ones(1).to(bf16)), "index_dtype", ()),
    "baddbmm": (lambda: torch.baddbmm(torch.randn(1, 2, 3), torch.randn(1, 2, 4).to(bf16), torch.randn(1, 4, 3)),
                "batched_matmul_dtype", ("f32", "bf16")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_explains_the_real_torch_error(case: str) -> None:
    action, kind, words = CASES[case]
    error = _raise(action)
    explanation = cw.explain(error)
    assert explanation is not None, f"no catalogue entry for {error!r}"
    assert explanation.kind == kind
    assert explanation.message == str(error).splitlines()[0]
    for word in words:
        assert word in explanation.cause
    assert explanation.fix and explanation.culprit


def test_fastpath_needs_the_traceback_the_bare_message_is_generic() -> None:
    error = _raise(_encoder_fastpath)
    assert str(error).startswith("expected scalar type Float but found BFloat16")
    assert cw.explain(str(error)).kind == "scalar_type"
    explanation = cw.explain(error)
    assert "set_fastpath_enabled(False)" in explanation.fix and "cw.apply" in explanation.fix


def test_half_constant_without_fill_overflows_silently_to_inf() -> None:
    # torch.tensor(1e6, dtype=half) raises nothing in torch 2.13: it is inf, which diagnose counts as overflow
    assert torch.isinf(torch.tensor(1e6, dtype=torch.half))


def test_a_non_dtype_error_is_not_explained() -> None:
    error = _raise(lambda: F.linear(torch.randn(2, 4), torch.randn(3, 5)))
    assert cw.explain(error) is None
    assert cw.explain("") is None


def test_explanation_reads_as_cause_culprit_fix() -> None:
    text = str(cw.explain(_raise(CASES["addmm"][0])))
    lines = text.splitlines()
    assert lines[1].startswith("Likely culprit: ") and lines[2].startswith("Fix: ")


def test_a_conv_module_mismatch_is_recognised_from_the_traceback_not_the_bare_message() -> None:
    conv = nn.Conv2d(1, 1, 3, bias=False)
    error = _raise(lambda: conv(image.to(bf16)))
    assert str(error).startswith("expected scalar type BFloat16 but found Float")
    explanation = cw.explain(error)
    assert explanation.kind == "conv_weight_dtype"
    assert explanation.cause == "a convolution got a bf16 input but a f32 weight"
    assert cw.explain(str(error)).kind == "scalar_type"
