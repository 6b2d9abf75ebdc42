"""Optimizer state of 16-bit weights keeps decaying: moments computed in fp32, stored by choice."""

import functools
import io

import pytest
import torch
from torch import nn

import castwise as cw

BIG_STEPS, SMALL_STEPS = 20, 2000  # |g| ~ 1, then |g| ~ 0.01 (the scenario, 64 weights)


@functools.cache
def fp32_second_moment():
    return second_moment_after_a_gradient_drop(torch.float32).mean().item()


def second_moment_after_a_gradient_drop(dtype, updates="auto", state="auto"):
    """Mean AdamW ``exp_avg_sq`` (beta2 = 0.999) after the gradients shrink 100x."""
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(64).to(dtype))
    optimizer = cw.make_optimizer([weight], lr=1e-3, updates=updates, state=state, betas=(0.9, 0.999), weight_decay=0.0)
    gradients = torch.Generator().manual_seed(1)
    for step in range(BIG_STEPS + SMALL_STEPS):
        size = 1.0 if step < BIG_STEPS else 0.01
        weight.grad = (torch.randn(64, generator=gradients) * size).to(dtype)
        optimizer.step()
    return optimizer.state[weight]["exp_avg_sq"]


def test_bf16_second_moment_rounded_to_nearest_stops_decaying():
    fp32 = fp32_second_moment()
    stuck = second_moment_after_a_gradient_drop(torch.bfloat16, state="nearest")
    assert stuck.dtype == torch.bfloat16
    assert stuck.float().mean().item() > 10 * fp32  # 0.999 * v rounds back to v (measured 13.5x)


@pytest.mark.parametrize(
    ("updates", "state", "stored", "within"),
    [
        ("kahan", "auto", torch.bfloat16, 0.1),  # auto: stochastic rounding for bf16 weights
        ("stochastic", "auto", torch.bfloat16, 0.1),
        ("kahan", "fp32", torch.float32, 0.01),
    ],
)
def test_bf16_second_moment_tracks_fp32(updates, state, stored, within):
    fp32 = fp32_second_moment()
    tracked = second_moment_after_a_gradient_drop(torch.bfloat16, updates, state)
    assert tracked.dtype == stored
    assert tracked.float().mean().item() == pytest.approx(fp32, rel=within)  # measured <= 1%


def bf16_model_and_optimizer(state):
    torch.manual_seed(0)
    model = nn.Linear(16, 16).bfloat16()
    return model, cw.make_optimizer(model, lr=1e-2, state=state)


def step(model, optimizer, seed):
    inputs = torch.randn(8, 16, generator=torch.Generator().manual_seed(seed))
    model(inputs.bfloat16()).float().pow(2).mean().backward()
    optimizer.step()
    optimizer.zero_grad()


@pytest.mark.parametrize("state", ["fp32", "stochastic", "nearest"])
def test_state_round_trip_keeps_stored_dtypes_and_resumes_identically(state):
    model, optimizer = bf16_model_and_optimizer(state)
    step(model, optimizer, seed=0)
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optim": optimizer.state_dict()}, buffer)
    torch.manual_seed(7)
    step(model, optimizer, seed=1)

    buffer.seek(0)
    saved = torch.load(buffer, weights_only=True)
    resumed, resumed_optimizer = bf16_model_and_optimizer("auto")  # the saved choice wins
    resumed.load_state_dict(saved["model"])
    resumed_optimizer.load_state_dict(saved["optim"])
    assert resumed_optimizer.param_groups[0]["state_precision"] == state
    moments = resumed_optimizer.state[resumed.weight]
    expected = torch.float32 if state == "fp32" else torch.bfloat16
    assert {moments["exp_avg"].dtype, moments["exp_avg_sq"].dtype} == {expected}
    torch.manual_seed(7)
    step(resumed, resumed_optimizer, seed=1)
    assert torch.equal(model.weight, resumed.weight)
    for key in ("exp_avg", "exp_avg_sq", "kahan_comp"):
        assert torch.equal(optimizer.state[model.weight][key], moments[key])


def test_fp32_weights_keep_plain_fp32_state_under_every_choice():
    model = nn.Linear(4, 4)
    optimizer = cw.make_optimizer(model, lr=1e-3, state="nearest")
    model(torch.randn(2, 4)).sum().backward()
    optimizer.step()
    assert {v.dtype for v in optimizer.state[model.weight].values() if torch.is_tensor(v)} == {torch.float32}


def test_bad_state_choices_raise_clear_errors_and_change_nothing():
    half = nn.Linear(2, 2).half()
    with pytest.raises(ValueError, match="fp16 weights are not bf16"):
        cw.make_optimizer(half, lr=1e-3, state="stochastic")
    assert half.weight.grad_dtype == torch.float16  # refused before any wiring
    with pytest.raises(ValueError, match="Did you mean 'stochastic'"):
        cw.make_optimizer(nn.Linear(2, 2), lr=1e-3, state="stochastc")
