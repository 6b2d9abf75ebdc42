import math

import pytest
import torch
from torch import nn
from training_problems import small_net, teacher_student

import castwise as cw


def observed_step(model, optimizer, monitor, loss, scaler=None):
    (scaler.scale(loss) if scaler else loss).backward()
    with monitor.observe():
        scaler.step(optimizer) if scaler else optimizer.step()
    if scaler:
        scaler.update()
    optimizer.zero_grad()


def test_monitor_reports_one_plus_two_to_minus_nine_swamped():
    model = nn.Linear(1, 1, bias=False).bfloat16()
    nn.init.ones_(model.weight)
    optimizer = cw.make_optimizer(model, "sgd", lr=2.0**-9, updates="none")
    monitor = cw.PrecisionMonitor(model, optimizer)
    observed_step(model, optimizer, monitor, -model(torch.ones(1, 1, dtype=torch.bfloat16)).float().sum())
    assert model.weight.item() == 1.0  # 1 + 2^-9 rounds back to 1 in bf16
    health = monitor.per_parameter()["weight"]
    assert (health.intended, health.swamped, health.update_ulp) == (1, 1, 0.0)
    assert monitor.metrics["swamping_rate"] == 1.0
    summary = monitor.summary()
    assert "100% of updates to weight (bf16) are rounded away" in summary
    assert "updates='kahan'" in summary and "keep_fp32=['weight']" in summary


def monitored_rate(dtype, updates, lr):
    monitors = []

    def optimizer_for(model):
        optimizer = cw.make_optimizer(model, "adamw", lr=lr, updates=updates, weight_decay=0.0)
        monitors.append(cw.PrecisionMonitor(model, optimizer, every=10))
        return optimizer

    teacher_student(dtype, lambda model: _observing(optimizer_for(model), monitors), steps=60)
    return monitors[0]


class _observing:
    """Route ``step`` through the monitor, as a training loop would."""

    def __init__(self, optimizer, monitors):
        self.optimizer, self.monitors = optimizer, monitors

    def step(self):
        with self.monitors[0].observe():
            self.optimizer.step()

    def zero_grad(self):
        self.optimizer.zero_grad()


def test_swamping_rate_is_high_for_bf16_at_a_small_lr_and_zero_in_fp32():
    bf16 = monitored_rate(torch.bfloat16, "none", 1e-4)
    fp32 = monitored_rate(torch.float32, "none", 1e-4)
    big_steps = monitored_rate(torch.bfloat16, "none", 0.3)  # updates of many ulps
    assert len(bf16.history) == 6 and bf16.samples == 6 and bf16.steps == 60
    assert bf16.metrics["swamping_rate"] > 0.5
    assert bf16.metrics["update_ulp_median"] == 0.0  # most weights did not move at all
    assert fp32.metrics["swamping_rate"] == 0.0
    assert fp32.metrics["update_ulp_median"] > 100
    assert max(h["swamping_rate"] for h in big_steps.history) < 0.02
    assert "rounded away" in bf16.summary() and "ok: no swamped updates" in fp32.summary()


def test_kahan_holds_what_bf16_would_round_away():
    kahan = monitored_rate(torch.bfloat16, "kahan", 1e-4)
    metrics = kahan.metrics
    assert metrics["swamping_rate"] == 0.0
    assert metrics["deferred_rate"] > 0.5
    assert 0.05 < metrics["compensation_ulp"] < 0.5  # what is held stays below half an ulp
    assert 0.1 < metrics["update_ulp_median"] < 0.5  # the intended update, not the stored one
    assert "are carried by Kahan compensation or stochastic rounding: no action needed" in kahan.summary()
    stochastic = monitored_rate(torch.bfloat16, "stochastic", 1e-4)
    assert stochastic.metrics["swamping_rate"] == 0.0 and stochastic.metrics["deferred_rate"] > 0.5


INPUTS = torch.randn(64, 16, generator=torch.Generator().manual_seed(3))
TARGETS = torch.randn(64, 1, generator=torch.Generator().manual_seed(4))
TINY = 1e-5  # a loss this small sends fp16 gradients into the subnormal range


def fp16_gradients(scaler):
    model = cw.apply(small_net(), "16-mixed")
    optimizer = cw.make_optimizer(model, "sgd", lr=0.1)
    monitor = cw.PrecisionMonitor(model, optimizer, scaler=scaler)
    loss = (model(INPUTS) - TARGETS).pow(2).mean() * TINY
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    grad = model.module[0].weight.grad.clone()
    with monitor.observe():
        scaler.step(optimizer)
    scaler.update()
    return grad, monitor


def test_fp16_gradient_underflow_is_detected_and_cured_by_scaling():
    reference = small_net()
    ((reference(INPUTS) - TARGETS).pow(2).mean() * TINY).backward()
    expected = reference[0].weight.grad

    unscaled, plain = fp16_gradients(cw.LossScaler("16-mixed", mode="none"))
    scaled, cured = fp16_gradients(cw.LossScaler("16-mixed"))

    assert plain.underflow_dtype == torch.float16
    assert plain.metrics["grad_underflow"] > 0.9
    assert cured.metrics["grad_underflow"] < 0.01
    assert (unscaled - expected).norm() / expected.norm() > 0.05
    assert (scaled - expected).norm() / expected.norm() < 0.005
    assert "underflow in f16 at loss scale 1: use dynamic loss scaling" in plain.summary()
    assert "underflow" not in cured.summary() and cured.metrics["loss_scale"] == 65536.0


def test_skipped_steps_and_broken_weights_are_reported():
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = cw.LossScaler("16-mixed")
    monitor = cw.PrecisionMonitor(model, optimizer, scaler=scaler)
    loss = (model(INPUTS) - TARGETS).pow(2).mean()
    scaler.scale(loss).backward()
    model[0].weight.grad[0, 0] = math.inf
    with monitor.observe():
        scaler.step(optimizer)
    scaler.update()
    assert monitor.metrics["skipped_steps"] == 1.0 and monitor.metrics["loss_scale"] == 32768.0
    assert "1 of 1 steps skipped for inf/nan gradients (loss scale 32768)" in monitor.summary()

    unguarded = cw.PrecisionMonitor(model, optimizer)
    optimizer.zero_grad()
    (model(INPUTS) - TARGETS).pow(2).mean().backward()
    model[0].weight.grad[0, 0] = math.nan
    with unguarded.observe():
        optimizer.step()
    assert unguarded.metrics["nonfinite_grads"] == 1.0 and unguarded.metrics["nonfinite_weights"] == 1.0
    assert "inf/nan reached the weights of 0" in unguarded.summary()


def test_metrics_are_floats_and_off_steps_cost_nothing():
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    monitor = cw.PrecisionMonitor(model, optimizer, every=4)
    for _ in range(9):
        observed_step(model, optimizer, monitor, (model(INPUTS) - TARGETS).pow(2).mean())
    assert (monitor.steps, monitor.samples) == (9, 3)
    assert all(isinstance(value, float) for value in monitor.metrics.values())
    assert {
        "swamping_rate",
        "update_ulp_median",
        "grad_underflow",
        "loss_scale",
        "compensation_ulp",
    } <= set(monitor.metrics)


def test_bad_arguments_raise_clear_errors():
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="every"):
        cw.PrecisionMonitor(model, optimizer, every=0)
    with pytest.raises(ValueError, match="bf16 or fp16"):
        cw.PrecisionMonitor(model, optimizer, dtype=torch.float32)
    with pytest.raises(TypeError, match="torch optimizer"):
        cw.PrecisionMonitor(model, "adamw")
    with pytest.raises(TypeError, match="nn.Module"):
        cw.PrecisionMonitor(optimizer, optimizer)
    with pytest.raises(TypeError, match="LossScaler"):
        cw.PrecisionMonitor(model, optimizer, scaler=torch.amp.GradScaler("cpu"))
