import pytest
import torch
from torch import nn

import castwise as cw
from castwise.training import training_bytes


def footprint(dtype, updates, state="auto"):
    model = nn.Linear(64, 64, bias=False).to(dtype)
    optimizer = cw.make_optimizer(model, lr=1e-3, updates=updates, state=state)
    model(torch.randn(4, 64, dtype=dtype)).float().sum().backward()
    optimizer.step()
    return training_bytes(model, optimizer)


def test_bytes_per_parameter_of_each_update_rule():
    fp32 = footprint(torch.float32, "none")
    assert (fp32.parameters, fp32.gradients, fp32.optimizer) == (4 * 4096, 4 * 4096, 8 * 4096)
    assert fp32.per_parameter == 16.0
    assert footprint(torch.bfloat16, "none").per_parameter == 8.0
    assert footprint(torch.bfloat16, "kahan").per_parameter == 10.0
    assert footprint(torch.bfloat16, "stochastic").per_parameter == 8.0
    assert footprint(torch.bfloat16, "kahan").total / fp32.total <= 0.63


@pytest.mark.parametrize(
    ("dtype", "updates", "state", "expected"),
    [
        # weights + gradients + AdamW's two moments (+ a 16-bit Kahan buffer)
        (torch.bfloat16, "kahan", "auto", 2 + 2 + 2 + 2 + 2),  # auto: stochastic for bf16
        (torch.bfloat16, "kahan", "nearest", 2 + 2 + 2 + 2 + 2),
        (torch.bfloat16, "kahan", "fp32", 2 + 2 + 4 + 4 + 2),
        (torch.bfloat16, "stochastic", "fp32", 2 + 2 + 4 + 4),
        (torch.float16, "kahan", "auto", 2 + 4 + 4 + 4 + 2),  # fp32 gradients and moments
        (torch.float16, "kahan", "nearest", 2 + 4 + 2 + 2 + 2),
    ],
)
def test_bytes_per_parameter_of_each_state_choice(dtype, updates, state, expected):
    assert footprint(dtype, updates, state).per_parameter == expected
