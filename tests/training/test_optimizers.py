import copy

import pytest
import torch
from torch import nn
from training_problems import teacher_student

import castwise as cw
from castwise.training import StochasticRounding, update_rule


def adamw(updates):
    return lambda model: cw.make_optimizer(model, "adamw", lr=1e-4, updates=updates, weight_decay=0.0)


def test_kahan_and_stochastic_rounding_close_most_of_the_bf16_gap():
    fp32 = teacher_student(torch.float32, adamw("none"))
    plain = teacher_student(torch.bfloat16, adamw("none"))
    kahan = teacher_student(torch.bfloat16, adamw("kahan"))
    stochastic = teacher_student(torch.bfloat16, adamw("stochastic"))
    gap = plain - fp32
    assert gap > 0.1 * fp32  # plain bf16 updates are measurably worse
    assert abs(kahan - fp32) < 0.05 * gap
    assert abs(stochastic - fp32) < 0.05 * gap


def test_auto_picks_kahan_for_16_bit_weights_only():
    bf16 = cw.make_optimizer(nn.Linear(4, 4).bfloat16(), lr=1e-3)
    fp32 = cw.make_optimizer(nn.Linear(4, 4), lr=1e-3)
    assert update_rule(bf16) == "kahan" and update_rule(fp32) == "none"
    assert isinstance(bf16, torch.optim.Optimizer)
    stochastic = cw.make_optimizer(nn.Linear(4, 4).bfloat16(), "lion", lr=1e-4, updates="stochastic")
    assert update_rule(stochastic) == "stochastic" and isinstance(stochastic, StochasticRounding)


def step_once(model, optimizer, dtype=torch.bfloat16):
    model(torch.randn(8, 8, dtype=dtype)).float().pow(2).mean().backward()
    optimizer.step()
    optimizer.zero_grad()


def test_policy_kept_fp32_norms_get_plain_fp32_updates():
    model = cw.apply(nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8)), "bf16-true")
    optimizer = cw.make_optimizer(model, lr=1e-3)
    step_once(model, optimizer)
    linear, norm = model.module[0].weight, model.module[1].weight
    assert linear.dtype == torch.bfloat16 and norm.dtype == torch.float32
    assert optimizer.state[linear]["kahan_comp"].dtype == torch.bfloat16
    assert optimizer.state[norm]["kahan_comp"] is None
    assert optimizer.state[norm]["exp_avg"].dtype == torch.float32


def test_stochastic_rounding_keeps_weights_grads_and_state_in_bf16():
    model = nn.Linear(8, 8).bfloat16()
    optimizer = cw.make_optimizer(model, lr=1e-3, updates="stochastic")
    calls = []
    optimizer.register_step_post_hook(lambda *_: calls.append(1))
    for _ in range(3):
        model(torch.randn(4, 8, dtype=torch.bfloat16)).float().pow(2).mean().backward()
        assert model.weight.grad.dtype == torch.bfloat16
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
    assert model.weight.dtype == torch.bfloat16
    state = optimizer.state[model.weight]
    assert state["kahan_comp"] is None  # no compensation buffer: +0 bytes
    assert {state["exp_avg"].dtype, state["exp_avg_sq"].dtype} == {torch.bfloat16}
    assert len(calls) == 3  # torch's step hooks run once per step


def test_stochastic_rounding_runs_a_closure_in_the_weights_dtype():
    model = nn.Linear(8, 8).bfloat16()
    optimizer = cw.make_optimizer(model, lr=1e-3, updates="stochastic")

    def closure():
        optimizer.zero_grad()
        loss = model(torch.ones(2, 8, dtype=torch.bfloat16)).float().sum()
        loss.backward()
        return loss

    before = model.weight.detach().clone()
    assert torch.is_tensor(optimizer.step(closure))
    assert not torch.equal(before, model.weight)


def test_stochastic_rounding_state_round_trip():
    def fresh():
        torch.manual_seed(0)
        model = nn.Linear(8, 8).bfloat16()
        return model, cw.make_optimizer(model, lr=1e-2, updates="stochastic")

    model, optimizer = fresh()
    step_once(model, optimizer)
    saved_model, saved_optim = copy.deepcopy((model.state_dict(), optimizer.state_dict()))
    torch.manual_seed(5)
    step_once(model, optimizer)
    resumed, resumed_optimizer = fresh()
    resumed.load_state_dict(saved_model)
    resumed_optimizer.load_state_dict(saved_optim)
    torch.manual_seed(5)
    step_once(resumed, resumed_optimizer)
    assert torch.equal(model.weight, resumed.weight)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (("adamm",), {"lr": 1e-3}, ValueError, "Did you mean 'adam'"),
        (("adamw",), {"lr": 1e-3, "updates": "kahn"}, ValueError, "Did you mean 'kahan'"),
        (("adamw",), {"lr": 0.0}, ValueError, "lr must be a positive"),
        (("adamw",), {"lr": 1e-3, "kahan_sum": True}, TypeError, "updates='kahan'"),
    ],
)
def test_bad_arguments_raise_clear_errors(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        cw.make_optimizer(nn.Linear(2, 2), *args, **kwargs)


def test_bad_parameters_raise_clear_errors():
    with pytest.raises(ValueError, match="fp16"):
        cw.make_optimizer(nn.Linear(2, 2).half(), lr=1e-3, updates="stochastic")
    with pytest.raises(TypeError, match="only floating"):
        cw.make_optimizer([torch.zeros(2, dtype=torch.int64)], lr=1e-3)
    with pytest.raises(ValueError, match="no parameters"):
        cw.make_optimizer([], lr=1e-3)
    with pytest.raises(TypeError, match="params must be"):
        cw.make_optimizer(["weight"], lr=1e-3)


@pytest.mark.parametrize("name", ["adamw", "adam", "sgd", "lion"])
def test_stochastic_rounding_wraps_every_optimizer(name):
    model = cw.apply(nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8)), "bf16-true")
    kwargs = {"momentum": 0.9} if name == "sgd" else {}
    optimizer = cw.make_optimizer(model, name, lr=1e-2, updates="stochastic", **kwargs)
    before = model.module[0].weight.detach().clone()
    for _ in range(2):
        step_once(model, optimizer, dtype=torch.float32)
    weight = model.module[0].weight
    assert weight.dtype == torch.bfloat16 and not torch.equal(before, weight)
    state = optimizer.state[weight]
    assert {v.dtype for v in state.values() if torch.is_tensor(v)} == {torch.bfloat16}
