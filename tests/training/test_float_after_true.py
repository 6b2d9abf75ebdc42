"""The model inside a bf16-true apply runs alone after a change of dtype (issue 16)."""

import pytest
import torch
from torch import nn

import castwise as cw


def bf16_true_model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 4))
    return model, cw.apply(model, "bf16-true")


@pytest.mark.parametrize(
    ("convert", "dtype", "tolerance"),
    [
        (lambda m: m.float(), torch.float32, 1e-2),
        (lambda m: m.to(torch.float32), torch.float32, 1e-2),
        (lambda m: m.half(), torch.float16, 3e-2),
    ],
    ids=["float", "to-float32", "half"],
)
def test_unwrapped_model_runs_alone_after_a_dtype_change(convert, dtype, tolerance):
    model, wrapped = bf16_true_model()
    inputs = torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
    expected = wrapped(inputs).float()
    plain = convert(cw.unwrap(wrapped))
    assert plain is model
    output = plain(inputs.to(dtype))
    assert output.dtype == dtype  # a kept LayerNorm hands back the model's dtype, not bf16
    torch.testing.assert_close(output.float(), expected, rtol=tolerance, atol=tolerance)
