"""16-true with loss scaling: fp16 weights get fp32 gradients, so unscaling loses nothing."""

import pytest
import torch
from torch import nn
from training_problems import small_net

import castwise as cw
from castwise.training import training_bytes

INPUTS = torch.randn(64, 16, generator=torch.Generator().manual_seed(3))
TARGETS = torch.randn(64, 1, generator=torch.Generator().manual_seed(4))
TINY = 1e-5  # a loss this small sends fp16 gradients into the subnormal range


def scaled_step(model, optimizer, scaler):
    """One AdamW step on the tiny loss; what it moved each weight by (weight + Kahan buffer)."""
    loss = (model(INPUTS).float() - TARGETS).pow(2).mean() * TINY
    scaler.scale(loss).backward()
    params = list(model.parameters())
    before = [p.detach().float().clone() for p in params]
    scaler.unscale_(optimizer)
    grads = torch.cat([p.grad.float().flatten() for p in params])
    assert scaler.step(optimizer) is True
    scaler.update()
    moved = []
    for param, old in zip(params, before):
        held = optimizer.state[param].get("kahan_comp")
        new = param.detach().float() + (0 if held is None else held.float())
        moved.append((new - old).flatten())
    return grads, torch.cat(moved)


def fp32_reference():
    model = small_net()
    return scaled_step(model, cw.make_optimizer(model, lr=1e-3), cw.LossScaler("32-true"))


def fp16_true(grad_dtype=None):
    model = cw.apply(small_net(), "16-true")
    optimizer = cw.make_optimizer(model, lr=1e-3)
    if grad_dtype is not None:
        for param in model.parameters():
            param.grad_dtype = grad_dtype
    return model, scaled_step(model, optimizer, cw.LossScaler("16-true"))


def relative_error(ours, reference):
    return ((ours - reference).norm() / reference.norm()).item()


def test_fp16_true_unscales_into_fp32_and_every_weight_moves_like_fp32():
    reference_grads, reference_moves = fp32_reference()
    model, (grads, moves) = fp16_true()
    assert {p.dtype for p in model.parameters()} == {torch.float16}
    assert {p.grad_dtype for p in model.parameters()} == {torch.float32}
    assert (reference_moves == 0).float().mean() == 0.0
    assert (moves == 0).float().mean() == 0.0  # no update lost (measured: 0.0)
    assert relative_error(grads, reference_grads) < 0.002  # measured 0.04%
    assert relative_error(moves, reference_moves) < 0.02  # measured 0.69%


def test_unscaling_fp16_gradients_in_place_flushes_them_and_warns():
    reference_grads, reference_moves = fp32_reference()
    with pytest.warns(UserWarning, match="flushes values below 6e-8"):
        _, (grads, moves) = fp16_true(grad_dtype=torch.float16)
    assert (grads == 0).float().mean() > 0.15  # measured: 18% of gradients flushed to zero
    assert (moves == 0).float().mean() > 0.15  # and as many weights left unchanged
    assert relative_error(grads, reference_grads) > 0.03  # measured 4.3%
    assert relative_error(moves, reference_moves) > 0.05  # measured 6.3%


def test_fp32_gradients_cost_two_bytes_per_fp16_weight_and_clip_like_fp32():
    model = cw.apply(small_net(), "16-true")
    optimizer = cw.make_optimizer(model, lr=1e-3)
    scaler = cw.LossScaler("16-true")
    scaler.scale((model(INPUTS).float() - TARGETS).pow(2).mean()).backward()
    scaler.unscale_(optimizer)
    reference = small_net()
    (reference(INPUTS) - TARGETS).pow(2).mean().backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01)
    reference_norm = torch.nn.utils.clip_grad_norm_(reference.parameters(), 0.01)
    torch.testing.assert_close(norm, reference_norm, rtol=5e-3, atol=0)
    optimizer.step()
    numel = sum(p.numel() for p in model.parameters())
    footprint = training_bytes(model, optimizer)
    assert footprint.parameters == 2 * numel and footprint.gradients == 4 * numel
    # fp32 moments for fp16 weights (auto), plus the fp16 Kahan buffer
    assert footprint.optimizer == (4 + 4 + 2) * numel


def test_an_existing_fp16_gradient_becomes_fp32_and_fp32_weights_are_untouched():
    half = nn.Linear(4, 4).half()
    half(torch.ones(1, 4, dtype=torch.float16)).float().sum().backward()
    expected = half.weight.grad.float()
    mixed = nn.Linear(4, 4)
    cw.make_optimizer([*half.parameters(), *mixed.parameters()], lr=1e-3)
    assert half.weight.grad.dtype == torch.float32 and torch.equal(half.weight.grad, expected)
    assert mixed.weight.grad_dtype == torch.float32 and mixed.weight.grad is None
    bf16 = nn.Linear(4, 4).bfloat16()
    cw.make_optimizer(bf16, lr=1e-3)
    assert bf16.weight.grad_dtype == torch.bfloat16  # bf16 has fp32's range: unscaled in place
