"""Errors torch 2.13 raises on the CPU, each family, with what a right explanation of each holds.

Each case is checked by kind and dtypes (and a few words where the situation matters), never by
torch's wording, which differs by CPU and build. Convolutions run without a bias so that the weight
check is the one that fires, whichever wording this CPU uses for it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .grading import Expect

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32
E4M3 = torch.float8_e4m3fn


@dataclass(frozen=True)
class LiveCase:
    """What raises, what a right explanation holds, and the grade it is expected to get; a held-out live case also
    keeps the grade it got from the rules frozen when it was written, and why, unless correct."""

    action: Callable[[], object]
    expect: Expect
    grade: str = "correct"
    grade_at_freeze: str | None = None
    why: str = ""


def raised(action: Callable[[], object]) -> BaseException:
    """The exception ``action`` raises (warnings silenced), run with torch.distributions' argument checks on as a
    fresh process has them (torch.compile turns them off for the rest of a process); AssertionError if it raises
    none."""
    validating = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            action()
    except Exception as error:  # noqa: BLE001 - every error is data here
        return error
    finally:
        torch.distributions.Distribution.set_default_validate_args(validating)
    raise AssertionError("expected an error")


def _x() -> torch.Tensor:
    return torch.randn(2, 4)


def _image() -> torch.Tensor:
    return torch.randn(1, 1, 4, 4)


def _encoder_fastpath() -> None:
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 1).eval()
    padding = torch.tensor([[False, False, False, True]])
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        encoder(torch.randn(1, 4, 8), src_key_padding_mask=padding)


def _unscale_fp16() -> None:
    weight = nn.Parameter(torch.randn(3).half())
    optimizer = torch.optim.SGD([weight], lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale((weight.float() ** 2).sum()).backward()
    scaler.unscale_(optimizer)


def _huber_backward() -> None:
    prediction = torch.rand(3, requires_grad=True)
    F.huber_loss(prediction.to(bf16), torch.rand(3)).backward()


def _gradient_of_another_dtype() -> None:
    weight = nn.Parameter(torch.randn(3))
    weight.grad = torch.randn(3).half()


def _anomaly() -> None:
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        torch.sqrt(x).sum().backward()


def _wrapped_by_cause() -> None:
    try:
        F.linear(_x().to(bf16), torch.randn(3, 4))
    except RuntimeError as error:
        raise RuntimeError("training_step failed on batch 3") from error


def _wrapped_by_context() -> None:
    try:
        nn.LayerNorm(4).to(bf16)(_x())
    except RuntimeError:
        raise ValueError("the trainer stopped: see above") from None


def _classifier_step_true_precision() -> None:
    logits = torch.randn(3, 5)
    batch = {"x": logits, "y": torch.tensor([1.0, 2.0, 0.0])}
    batch = {key: value.to(bf16) for key, value in batch.items()}  # what a -true precision does to a batch
    F.cross_entropy(batch["x"], batch["y"])


def _restricted_attention() -> object:
    q = torch.randn(1, 2, 4, 8)
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION):
        return F.scaled_dot_product_attention(q, q, q)


def _quantized_add() -> object:
    x = torch.quantize_per_tensor(torch.randn(3), 0.1, 0, torch.qint8)
    return x + x


def case(action: Callable[[], object], kind: str, *dtypes: str, cause: tuple[str, ...] = (),
         fix: tuple[str, ...] = (), culprit: tuple[str, ...] = (), grade: str = "correct",
         grade_at_freeze: str | None = None, why: str = "") -> LiveCase:
    """A live case: ``action`` raises, and a right explanation has ``kind``, ``dtypes`` and the words given."""
    return LiveCase(action, Expect(kind, dtypes, cause, fix, culprit), grade, grade_at_freeze, why)


LIVE: dict[str, LiveCase] = {
    # two floating dtypes in one op
    "addmm": case(lambda: torch.addmm(torch.randn(3), _x().to(bf16), torch.randn(4, 3)), "matmul_dtype", "bf16", "f32"),
    "addmm-bias": case(lambda: torch.addmm(torch.randn(3).to(bf16), _x(), torch.randn(4, 3)), "matmul_dtype", "bf16",
                       "f32"),
    "mm": case(lambda: torch.mm(_x().to(bf16), torch.randn(4, 3)), "matmul_dtype", "bf16", "f32"),
    "linear": case(lambda: F.linear(_x().to(bf16), torch.randn(3, 4)), "matmul_dtype", "bf16", "f32"),
    "linear-f16": case(lambda: _x().half() @ torch.randn(4, 3), "matmul_dtype", "f16", "f32"),
    "bmm": case(lambda: torch.bmm(_x().to(bf16)[None], torch.randn(1, 4, 3)), "batched_matmul_dtype", "bf16",
                "f32"),
    "baddbmm": case(lambda: torch.baddbmm(torch.randn(1, 2, 3), torch.randn(1, 2, 4).to(bf16), torch.randn(1, 4, 3)),
                    "batched_matmul_dtype", "bf16", "f32"),
    "addmv": case(lambda: torch.mv(_x().to(bf16), torch.randn(4)), "matmul_dtype", "bf16", "f32"),
    "dot": case(lambda: torch.dot(torch.randn(3).to(bf16), torch.randn(3)), "matmul_dtype", "bf16", "f32"),
    "conv-bf16-input": case(lambda: nn.Conv2d(1, 1, 3, bias=False)(_image().to(bf16)), "conv_weight_dtype", "bf16",
                            "f32"),
    "conv-bf16-weight": case(lambda: F.conv2d(_image(), torch.randn(1, 1, 3, 3).to(bf16)), "conv_weight_dtype",
                             "f32", "bf16"),
    "conv-bias": case(lambda: F.conv2d(_image().to(bf16), torch.randn(1, 1, 3, 3).to(bf16), torch.randn(1)),
                      "conv_bias_dtype", "bf16", "f32"),
    "conv-f64-input": case(lambda: F.conv2d(_image().double(), torch.randn(1, 1, 3, 3)), "conv_weight_dtype", "f64",
                           fix=("float32",)),
    "layer-norm": case(lambda: nn.LayerNorm(4).to(bf16)(_x()), "norm_param_dtype", "f32", fix=("keep norms in fp32",)),
    "group-norm": case(lambda: F.group_norm(_x()[..., None], 1, torch.ones(4).to(bf16), torch.zeros(4).to(bf16)),
                       "norm_param_dtype", "f32"),
    "batch-norm": case(lambda: nn.BatchNorm1d(4).to(bf16)(_x()), "norm_param_dtype", "f32"),
    "sdpa": case(lambda: F.scaled_dot_product_attention(*(torch.randn(1, 2, 4, 8).to(d) for d in (bf16, f32, f32))),
                 "sdpa_dtype", "bf16", "f32", fix=("k.to(q.dtype)",)),
    "sdpa-float-mask": case(lambda: F.scaled_dot_product_attention(
        *(torch.randn(1, 2, 4, 8).to(bf16) for _ in range(3)), attn_mask=torch.zeros(4, 4, dtype=f16)),
        "attn_mask_dtype", "f16", "bf16", fix=("mask.to(q.dtype)",)),
    "normal-int8-weight": case(lambda: torch.empty(3, 4, dtype=torch.int8).normal_(), "no_kernel", "int8",
                               cause=("initialis",)),
    "linear-int8-weight": case(lambda: F.linear(_x().to(bf16), torch.ones(3, 4, dtype=torch.int8)), "matmul_dtype",
                               "bf16", "int8", cause=("quantized",)),
    "lstm": case(lambda: nn.LSTM(4, 3)(_x()[None].to(bf16)), "rnn_dtype", "bf16", "f32"),
    "lstm-cell": case(lambda: nn.LSTMCell(4, 3)(_x().to(bf16)), "rnn_dtype", "bf16", "f32"),
    "index-put": case(lambda: torch.zeros(3).index_put_((torch.tensor([0]),), torch.ones(1).to(bf16)),
                      "indexed_write_dtype", "f32", "bf16"),
    "index-put-int32-into-int64": case(
        lambda: torch.zeros(3, dtype=torch.long).index_put_((torch.tensor([0]),), torch.ones(1, dtype=torch.int32)),
        "indexed_write_dtype", "int64", "int32", fix=("src.to(dst.dtype)",)),
    "mm-out-bf16": case(lambda: torch.mm(_x(), _x().T, out=torch.empty(2, 2, dtype=bf16)), "indexed_write_dtype",
                        "f32", "bf16", cause=("`out=`",)),
    "index-add": case(lambda: torch.zeros(3).index_add_(0, torch.tensor([0]), torch.ones(1).to(bf16)),
                      "indexed_write_dtype", "f32", "bf16"),
    "index-copy": case(lambda: torch.zeros(3).index_copy_(0, torch.tensor([0]), torch.ones(1).to(bf16)),
                       "indexed_write_dtype", "f32", "bf16"),
    "scatter": case(lambda: torch.zeros(3).scatter_(0, torch.tensor([0]), torch.ones(1).to(bf16)),
                    "indexed_write_dtype"),
    "masked-scatter": case(lambda: torch.zeros(3).masked_scatter_(torch.tensor([True, False, False]),
                                                                  torch.ones(3).to(bf16)),
                           "indexed_write_dtype", "f32", "bf16"),
    "put": case(lambda: torch.zeros(3).put_(torch.tensor([0]), torch.ones(1).to(bf16)), "indexed_write_dtype",
                "f32", "bf16"),
    "ema-lerp": case(lambda: torch.zeros(3).lerp_(torch.ones(3).to(bf16), 0.5), "lerp_dtype", "f32", "bf16"),
    "prelu": case(lambda: nn.PReLU()(_x().to(bf16)), "op_dtype", "bf16", "f32"),
    "fp8-add": case(lambda: torch.ones(2).to(E4M3) + torch.ones(2).to(bf16), "fp8_promotion", "float8_e4m3fn", "bf16"),
    "fp8-linear": case(lambda: F.linear(torch.ones(2, 2).to(bf16), torch.ones(2, 2).to(E4M3)), "matmul_dtype",
                       "bf16", "float8_e4m3fn", fix=("w.to(torch.bfloat16)",)),
    "encoder-fastpath": case(_encoder_fastpath, "transformer_fastpath", "bf16", "f32",
                             fix=("set_fastpath_enabled(False)", "cw.apply")),
    # gradients and loss scaling
    "huber-backward": case(_huber_backward, "loss_dtype", "f32", "bf16", fix=("pred.float()",)),
    "grad-assigned-f16": case(_gradient_of_another_dtype, "loss_dtype", "f16", "f32", fix=("p.dtype",)),
    "unscale-fp16": case(_unscale_fp16, "unscale_fp16", "f16", fix=("fp32",)),
    # integer, bool and index dtypes
    "target-float": case(lambda: F.cross_entropy(torch.randn(3, 5), torch.tensor([1.0, 2.0, 0.0])), "target_dtype",
                         "f32", fix=("target.long()",)),
    "target-cast-by-true-precision": case(_classifier_step_true_precision, "target_dtype", "bf16",
                                          fix=("target.long()",), culprit=("-true",)),
    "target-int32": case(lambda: F.nll_loss(torch.randn(3, 5), torch.tensor([1, 2, 0], dtype=torch.int32)),
                         "target_dtype", "int32"),
    "target-probabilities-long": case(lambda: F.cross_entropy(torch.randn(3, 5), torch.ones(3, 5, dtype=torch.long)),
                                      "target_dtype", "int64", fix=("target.float()",)),
    "bce-long-target": case(lambda: F.binary_cross_entropy(torch.rand(3), torch.ones(3, dtype=torch.long)),
                            "target_dtype", "int64", fix=("target.float()",)),
    "bce-logits-long-target": case(lambda: F.binary_cross_entropy_with_logits(torch.rand(3),
                                                                              torch.ones(3, dtype=torch.long)),
                                   "target_dtype", "int64", fix=("target.float()",)),
    "embedding-float-ids": case(lambda: nn.Embedding(5, 3)(torch.tensor([1.0, 2.0])), "index_tensor_dtype", "f32",
                                fix=(".long()",)),
    "index-select-float": case(lambda: torch.randn(3).index_select(0, torch.tensor([0.0])), "index_tensor_dtype"),
    "float-index": case(lambda: torch.randn(3)[torch.tensor([0.0])], "index_tensor_dtype"),
    "cdist-long": case(lambda: torch.cdist(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long)),
                       "integer_operand", "int64", fix=("x.float()",)),
    "multinomial-long": case(lambda: torch.multinomial(torch.ones(3, dtype=torch.long), 1), "integer_operand",
                             "int64"),
    "nanmean-long": case(lambda: torch.ones(3, dtype=torch.long).nanmean(), "integer_operand", "int64"),
    "std-long": case(lambda: torch.ones(3, dtype=torch.long).std(), "integer_operand", fix=("x.float()",)),
    "one-hot-float": case(lambda: F.one_hot(torch.tensor([0.0, 1.0])), "index_tensor_dtype", fix=("long()",)),
    "masked-fill-float-mask": case(lambda: torch.randn(3).masked_fill(torch.tensor([1.0, 0.0, 0.0]), 0.0),
                                   "mask_dtype", "f32", fix=("bool",)),
    "sdpa-long-mask": case(lambda: F.scaled_dot_product_attention(
        *(torch.randn(1, 2, 4, 8).to(bf16) for _ in range(3)), attn_mask=torch.ones(4, 4, dtype=torch.long)),
        "mask_dtype", "int64", fix=("mask.bool()",)),
    "bitwise-float-mask": case(lambda: torch.ones(3) & torch.ones(3), "mask_dtype", "f32"),
    "result-cast": case(lambda: torch.zeros(3, dtype=torch.long).add_(torch.randn(3)), "result_cast", "f32", "int64"),
    "linear-long-input": case(lambda: F.linear(torch.ones(2, 4, dtype=torch.long), torch.randn(3, 4)),
                              "integer_operand", "int64", fix=("x.float()",)),
    "gru-long-input": case(lambda: nn.GRU(4, 3)(torch.ones(1, 2, 4, dtype=torch.long)), "integer_operand", "int64"),
    "log-softmax-long": case(lambda: torch.ones(3, dtype=torch.long).log_softmax(0), "integer_operand", "int64"),
    "mm-long-and-int": case(lambda: torch.mm(torch.ones(2, 2, dtype=torch.long), torch.ones(2, 2, dtype=torch.int32)),
                            "integer_operand", "int64", "int32", fix=(".long()",)),
    "mean-long": case(lambda: torch.ones(3, dtype=torch.long).mean(), "integer_operand", "int64"),
    # a number outside the dtype's range
    "fill-half": case(lambda: torch.zeros(2, dtype=f16).fill_(1e6), "half_overflow", "f16", cause=("65504",)),
    "mask-value-half": case(lambda: torch.zeros(2, dtype=f16).masked_fill(torch.tensor([True, False]), -1e9),
                            "half_overflow", "f16", fix=("finfo(x.dtype)",)),
    "mask-value-bf16": case(lambda: torch.zeros(2, dtype=bf16).masked_fill(torch.tensor([True, False]), -1e39),
                            "half_overflow", "bf16"),
    # no kernel for the dtype on this device
    "ctc-half": case(lambda: F.ctc_loss(torch.randn(5, 1, 4).log_softmax(2).half(), torch.tensor([[1, 2]]),
                                        torch.tensor([5]), torch.tensor([2])), "no_kernel", "f16", fix=("x.float()",)),
    "svd-bf16": case(lambda: torch.linalg.svd(torch.randn(3, 3).to(bf16)), "no_kernel", "bf16",
                     cause=("linear algebra",)),
    "inv-bf16": case(lambda: torch.linalg.inv(torch.randn(3, 3).to(bf16)), "no_kernel", "bf16"),
    "qr-half": case(lambda: torch.linalg.qr(torch.randn(3, 3).half()), "no_kernel", "f16"),
    "cholesky-half": case(lambda: torch.linalg.cholesky(torch.eye(3).half()), "no_kernel", "f16"),
    "fft-half": case(lambda: torch.fft.rfft(torch.randn(8).half()), "no_kernel", "f16"),
    "stft-half": case(lambda: torch.stft(torch.randn(64).half(), 16, return_complex=True), "no_kernel", "f16"),
    "cdist-half": case(lambda: torch.cdist(torch.randn(2, 3).half(), torch.randn(2, 3).half()), "no_kernel", "f16"),
    "view-as-complex-bf16": case(lambda: torch.view_as_complex(torch.randn(2, 2).to(bf16)), "no_kernel", "bf16"),
    "quantize-half": case(lambda: torch.quantize_per_tensor(torch.ones(3).half(), 0.1, 0, torch.qint8), "no_kernel",
                          "f16"),
    "sdpa-no-backend": case(_restricted_attention, "no_kernel", fix=("sdpa_kernel",)),
    "quantized-add": case(_quantized_add, "no_kernel", "int8", fix=("FloatFunctional",)),
    "quantile-half": case(lambda: torch.quantile(torch.randn(4).half(), 0.5), "no_kernel", fix=("float()",)),
    # tensors on two devices
    "meta-and-cpu": case(lambda: torch.cat([torch.randn(2), torch.randn(2, device="meta")]), "device_mismatch",
                         cause=("not a dtype problem",)),
    "lstm-on-meta": case(lambda: nn.LSTM(4, 3).to("meta")(_x()[None]), "device_mismatch"),
    # numpy interop
    "numpy-bf16": case(lambda: torch.ones(2, dtype=bf16).numpy(), "numpy_dtype", "bf16", fix=("x.float().numpy()",)),
    "numpy-fp8": case(lambda: torch.ones(2).to(E4M3).numpy(), "numpy_dtype", "float8_e4m3fn"),
    # NaN
    "anomaly-nan": case(_anomaly, "nonfinite", fix=("castwise doctor",)),
    "multinomial-nan": case(lambda: torch.multinomial(torch.tensor([float("nan"), 1.0]), 1), "nonfinite",
                            fix=("bfloat16",)),
    "bce-nan": case(lambda: F.binary_cross_entropy(torch.tensor([float("nan"), 0.5]), torch.rand(2)), "nonfinite",
                    fix=("BCEWithLogitsLoss",)),
    # integers asked for gradients
    "integer-requires-grad": case(lambda: nn.Parameter(torch.tensor([1, 2])), "integer_operand",
                                  fix=("is_floating_point()",)),
    # chained: the dtype error is the __cause__ / __context__ of a wrapper's error
    "chained-cause": case(_wrapped_by_cause, "matmul_dtype", "bf16", "f32"),
    "chained-context": case(_wrapped_by_context, "norm_param_dtype", "f32"),
}
