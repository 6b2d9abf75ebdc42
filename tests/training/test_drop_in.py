"""castwise's optimizers and loss scaler behave like torch's under torch habits."""

import io
import pickle

import pytest
import torch
from torch import nn
from torch.optim.lr_scheduler import CyclicLR, OneCycleLR
from training_problems import small_net

import castwise as cw
from castwise.training import StochasticRounding

OPTIMIZERS = ["adamw", "adam", "sgd", "lion"]
SCHEDULERS = {
    "OneCycleLR": lambda optimizer: OneCycleLR(optimizer, max_lr=1e-2, total_steps=20),
    "CyclicLR": lambda optimizer: CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2, step_size_up=5),
}
INPUTS = torch.randn(16, 16, generator=torch.Generator().manual_seed(3))


def train_step(model, optimizer):
    model(INPUTS.to(next(model.parameters()).dtype)).float().pow(2).mean().backward()
    optimizer.step()
    optimizer.zero_grad()


def momentum_of(group):
    return group["betas"][0] if "betas" in group else group["momentum"]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_cyclic_schedulers_with_defaults_cycle_the_momentum_the_step_uses(name, scheduler):
    model = small_net().bfloat16()
    optimizer = cw.make_optimizer(model, name, lr=1e-3)
    schedule = SCHEDULERS[scheduler](optimizer)
    momenta = []
    for _ in range(6):
        train_step(model, optimizer)
        schedule.step()
        momenta.append(momentum_of(optimizer.param_groups[0]))
    assert len(set(momenta)) > 1  # the scheduler moved it
    if "betas" in optimizer.param_groups[0]:
        train_step(model, optimizer)  # the step reads the scheduled beta1
        group = optimizer.param_groups[0]
        assert group["beta1"] == group["betas"][0]


def test_betas_passed_per_group_reach_torch_optimi():
    fast, slow = nn.Linear(4, 4), nn.Linear(4, 4)
    optimizer = cw.make_optimizer(
        [{"params": fast.parameters(), "betas": (0.5, 0.9)}, {"params": slow.parameters()}],
        lr=1e-3,
        betas=(0.8, 0.95),
    )
    first, second = optimizer.param_groups
    assert (first["beta1"], first["beta2"], first["betas"]) == (0.5, 0.9, (0.5, 0.9))
    assert (second["beta1"], second["betas"]) == (0.8, (0.8, 0.95))
    assert optimizer.defaults["betas"] == (0.8, 0.95)


def stepped_optimizer(name, updates):
    torch.manual_seed(0)
    model = small_net().bfloat16()
    kwargs = {"momentum": 0.9} if name == "sgd" else {}
    optimizer = cw.make_optimizer(model, name, lr=1e-2, updates=updates, **kwargs)
    train_step(model, optimizer)
    return optimizer


def step_with_ones(optimizer):
    torch.manual_seed(11)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for param in params:
        param.grad = torch.ones_like(param)
    optimizer.step()
    return [p.detach().clone() for p in params]


def round_trip_by_pickle(optimizer):
    return pickle.loads(pickle.dumps(optimizer))


def round_trip_by_torch_save(optimizer):
    buffer = io.BytesIO()
    torch.save(optimizer, buffer)
    buffer.seek(0)
    # a whole optimizer object is a pickle, loadable only with weights_only=False: this test
    # trusts the buffer it has just written (checkpoints should save optimizer.state_dict())
    return torch.load(buffer, weights_only=False)


@pytest.mark.parametrize("round_trip", [round_trip_by_pickle, round_trip_by_torch_save])
@pytest.mark.parametrize("updates", ["kahan", "stochastic"])
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_every_optimizer_pickles_and_steps_on_identically(name, updates, round_trip):
    optimizer = stepped_optimizer(name, updates)
    copy = round_trip(optimizer)
    assert type(copy) is type(optimizer)
    assert isinstance(copy, StochasticRounding) == (updates == "stochastic")
    assert copy.param_groups[0]["state_precision"] == "auto"
    calls = []
    copy.register_step_post_hook(lambda *_: calls.append(1))
    after_copy, after_original = step_with_ones(copy), step_with_ones(optimizer)
    assert calls == [1]  # torch's hooks still run once per step after unpickling
    for ours, theirs in zip(after_copy, after_original):
        assert torch.equal(ours, theirs)


def after_an_overflow(scaler, clean_steps: int):
    """``scaler`` after SGD steps on a small net: one with an inf gradient, then ``clean_steps`` clean ones."""
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for poison in (float("inf"), *[None] * clean_steps):
        scaler.scale(model(INPUTS).pow(2).mean()).backward()
        if poison is not None:
            model[0].weight.grad[0, 0] = poison
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
    return scaler


def test_loss_scaler_reads_grad_scaler_state_mid_run():
    theirs = after_an_overflow(torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=10), clean_steps=2)
    ours = cw.LossScaler("16-mixed")
    ours.load_state_dict(theirs.state_dict())
    assert ours.get_scale() == theirs.get_scale() == 512.0
    assert ours.state_dict()["growth_tracker"] == theirs._get_growth_tracker() == 2
    assert ours.get_growth_interval() == 10


def test_grad_scaler_reads_loss_scaler_state_mid_run():
    ours = after_an_overflow(
        cw.LossScaler("16-mixed", init_scale=256.0, growth_interval=7, backoff_factor=0.25), clean_steps=3
    )
    theirs = torch.amp.GradScaler("cpu")
    theirs.load_state_dict(ours.state_dict())
    assert theirs.get_scale() == ours.get_scale() == 64.0
    assert theirs._get_growth_tracker() == 3
    assert (theirs.get_growth_interval(), theirs.get_backoff_factor()) == (7, 0.25)


def test_disabled_grad_scaler_state_reads_as_mode_none():
    empty = torch.amp.GradScaler("cpu", enabled=False).state_dict()
    assert empty == {}
    disabled = cw.LossScaler("bf16-mixed")
    disabled.load_state_dict(empty)
    assert not disabled.is_enabled()
    dynamic = cw.LossScaler("16-mixed", init_scale=8.0)
    with pytest.warns(UserWarning, match="saved in mode 'none'"):
        dynamic.load_state_dict(empty)
    assert dynamic.get_scale() == 8.0


def test_grad_scaler_public_methods():
    scaler = cw.LossScaler("16-mixed", init_scale=4.0)
    theirs = torch.amp.GradScaler("cpu", init_scale=4.0)
    for method in ("is_enabled", "get_scale", "get_growth_factor", "get_backoff_factor"):
        assert getattr(scaler, method)() == getattr(theirs, method)(), method
    assert scaler.get_growth_interval() == theirs.get_growth_interval() == 2000
    scaler.set_growth_factor(4.0)
    scaler.set_backoff_factor(0.125)
    scaler.set_growth_interval(3)
    assert (scaler.get_growth_factor(), scaler.get_backoff_factor()) == (4.0, 0.125)
    assert scaler.get_growth_interval() == 3
    scaled = scaler.scale([torch.tensor(1.0), torch.tensor(2.0)])
    assert isinstance(scaled, list) and [t.item() for t in scaled] == [4.0, 8.0]
    assert isinstance(scaler.scale((torch.tensor(1.0),)), tuple)
    scaler.update(new_scale=torch.tensor(32.0))
    assert scaler.get_scale() == 32.0
    scaler.update(new_scale=2.0)
    assert scaler.get_scale() == 2.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.set_growth_factor(1.0), "growth_factor"),
        (lambda s: s.set_backoff_factor(2.0), "backoff_factor"),
        (lambda s: s.set_growth_interval(0), "growth_interval"),
        (lambda s: s.update(new_scale=float("inf")), "new_scale must be a positive finite number"),
        (lambda s: s.update(new_scale=-1.0), "new_scale must be a positive finite number"),
    ],
)
def test_bad_settings_raise_and_leave_the_scaler_as_it_was(call, message):
    scaler = cw.LossScaler("16-mixed", init_scale=8.0)
    before = scaler.state_dict()
    with pytest.raises(ValueError, match=message):
        call(scaler)
    assert scaler.state_dict() == before
