import io
import math

import pytest
import torch
from torch import nn
from training_problems import small_net

import castwise as cw

INPUTS = torch.randn(64, 16, generator=torch.Generator().manual_seed(3))
TARGETS = torch.randn(64, 1, generator=torch.Generator().manual_seed(4))


def loss_of(model):
    return (model(INPUTS) - TARGETS).pow(2).mean()


def weights(model):
    return [p.detach().clone() for p in model.parameters()]


def train_step(model, optimizer, scaler, poison=None):
    """One scaled step; ``poison`` (inf or nan) is written into a gradient before stepping."""
    scaler.scale(loss_of(model)).backward()
    if poison is not None:
        next(model.parameters()).grad[0, 0] = poison
    stepped = scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return stepped


def test_mode_follows_the_policy():
    assert cw.LossScaler("16-mixed").enabled
    assert cw.LossScaler("16-true").get_scale() == 65536.0
    bf16 = cw.LossScaler("bf16-mixed")
    assert not bf16.enabled and bf16.get_scale() == 1.0
    loss = torch.tensor(2.0)
    assert bf16.scale(loss) is loss
    assert cw.LossScaler("16-mixed").scale(loss).item() == 131072.0
    fp16_loss = cw.LossScaler("16-mixed").scale(torch.tensor([2.0], dtype=torch.float16))
    assert fp16_loss.dtype == torch.float32 and fp16_loss.item() == 131072.0  # beyond fp16's max
    assert cw.LossScaler("bf16-true", mode="dynamic").enabled


@pytest.mark.parametrize("poison", [math.inf, -math.inf, math.nan])
def test_overflow_skips_the_step_halves_the_scale_and_keeps_weights_finite(poison):
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = cw.LossScaler("16-mixed", init_scale=1024.0)
    before = weights(model)
    assert train_step(model, optimizer, scaler, poison=poison) is False
    assert scaler.last_step_skipped and scaler.skipped_steps == 1
    assert scaler.get_scale() == 512.0
    assert all(torch.equal(a, b) for a, b in zip(before, weights(model)))
    assert train_step(model, optimizer, scaler) is True
    assert all(torch.isfinite(p).all() for p in model.parameters())
    assert not all(torch.equal(a, b) for a, b in zip(before, weights(model)))


def test_scale_grows_after_growth_interval_clean_steps():
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    scaler = cw.LossScaler("16-mixed", init_scale=8.0, growth_interval=3)
    scales = []
    for _ in range(7):
        train_step(model, optimizer, scaler)
        scales.append(scaler.get_scale())
    assert scales == [8.0, 8.0, 16.0, 16.0, 16.0, 32.0, 32.0]


def test_unscale_before_clipping_gives_the_true_gradients():
    reference = small_net()
    loss_of(reference).backward()
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = cw.LossScaler("16-mixed")
    scaler.scale(loss_of(model)).backward()
    assert scaler.grad_scale(optimizer) == 65536.0
    scaler.unscale_(optimizer)
    assert scaler.grad_scale(optimizer) == 1.0
    for mine, theirs in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-6, atol=0)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01)
    with pytest.raises(RuntimeError, match="already called"):
        scaler.unscale_(optimizer)
    assert scaler.step(optimizer) is True
    with pytest.raises(RuntimeError, match="already called"):
        scaler.step(optimizer)
    scaler.update()


def run(model, optimizer, scaler, steps, poison_at=()):
    for step in steps:
        train_step(model, optimizer, scaler, poison=math.inf if step in poison_at else None)


def test_state_round_trip_mid_run_resumes_identically():
    def fresh():
        model = small_net()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        return model, optimizer, cw.LossScaler("16-mixed", init_scale=256.0, growth_interval=4)

    model, optimizer, scaler = fresh()
    run(model, optimizer, scaler, range(6), poison_at={2})
    buffer = io.BytesIO()
    torch.save(
        {
            "model": model.state_dict(),
            "optim": optimizer.state_dict(),
            "scaler": scaler.state_dict(),
        },
        buffer,
    )
    run(model, optimizer, scaler, range(6, 12), poison_at={9})

    buffer.seek(0)
    checkpoint = torch.load(buffer)
    resumed_model, resumed_optimizer, resumed_scaler = fresh()
    resumed_model.load_state_dict(checkpoint["model"])
    resumed_optimizer.load_state_dict(checkpoint["optim"])
    resumed_scaler.load_state_dict(checkpoint["scaler"])
    # halved at step 2, three clean steps since: the next clean step (after the restore) grows it
    assert (resumed_scaler.get_scale(), resumed_scaler.state_dict()["growth_tracker"]) == (128.0, 3)
    run(resumed_model, resumed_optimizer, resumed_scaler, range(6, 12), poison_at={9})

    assert resumed_scaler.state_dict() == scaler.state_dict()
    assert scaler.skipped_steps == 2 and scaler.get_scale() == 128.0  # grew at 6, halved at 9
    for a, b in zip(model.parameters(), resumed_model.parameters()):
        assert torch.equal(a, b)


def test_reads_torch_grad_scaler_state():
    theirs = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=10)
    scaler = cw.LossScaler("16-mixed")
    scaler.load_state_dict(theirs.state_dict())
    assert scaler.get_scale() == 1024.0 and scaler.growth_interval == 10


def test_mode_mismatch_on_load_warns_and_keeps_fresh_state():
    scaler = cw.LossScaler("bf16-mixed")
    with pytest.warns(UserWarning, match="saved in mode 'dynamic'"):
        scaler.load_state_dict(cw.LossScaler("16-mixed").state_dict())
    assert scaler.get_scale() == 1.0


def test_disabled_scaler_is_a_pass_through():
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = cw.LossScaler("bf16-mixed")
    before = weights(model)
    assert train_step(model, optimizer, scaler) is True
    assert not any(torch.equal(a, b) for a, b in zip(before, weights(model)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "dynamc"}, "Did you mean 'dynamic'"),
        ({"mode": "static"}, "Valid modes: dynamic, none"),
        ({"init_scale": 0.0}, "init_scale"),
        ({"init_scale": math.inf}, "init_scale"),
        ({"growth_factor": 0.5}, "growth_factor"),
        ({"backoff_factor": 1.0}, "backoff_factor"),
        ({"growth_interval": 0}, "growth_interval"),
    ],
)
def test_bad_settings_raise_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cw.LossScaler(**kwargs)


def test_bad_calls_raise_clear_errors():
    with pytest.raises(ValueError, match="unknown precision"):
        cw.LossScaler("bf17-mixed")
    scaler = cw.LossScaler("16-mixed")
    with pytest.raises(TypeError, match="loss tensor"):
        scaler.scale(1.0)
    with pytest.raises(RuntimeError, match="before any"):
        scaler.update()
    model = small_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(TypeError, match="closure"):
        scaler.step(optimizer, closure=lambda: loss_of(model))
    with pytest.raises(ValueError, match="missing"):
        scaler.load_state_dict({"scale": 2.0})
    with pytest.raises(TypeError, match="dict"):
        scaler.load_state_dict([("scale", 2.0)])


def test_a_bad_scale_is_named_by_the_argument_or_key_that_carried_it():
    scaler = cw.LossScaler("16-mixed")
    with pytest.raises(ValueError, match=r"^new_scale must be a positive finite number, got -1.0$"):
        scaler.update(new_scale=-1.0)
    with pytest.raises(ValueError, match=r"^the state's scale must be a positive finite number, got nan$"):
        scaler.load_state_dict({**scaler.state_dict(), "scale": math.nan})
    with pytest.raises(ValueError, match=r"^init_scale must be a positive finite number, got 0$"):
        cw.LossScaler("16-mixed", init_scale=0)
    assert scaler.get_scale() == cw.LossScaler("16-mixed").get_scale()


def test_fp16_true_training_with_scaler_and_kahan_learns_without_nan():
    model = cw.apply(small_net(), "16-true")
    optimizer = cw.make_optimizer(model, lr=1e-2)  # auto: Kahan for fp16 weights
    scaler = cw.LossScaler(model.policy)
    first = loss_of(model).item()
    for _ in range(20):
        train_step(model, optimizer, scaler)
    assert scaler.enabled and scaler.skipped_steps == 0
    assert all(p.dtype == torch.float16 and torch.isfinite(p).all() for p in model.parameters())
    assert loss_of(model).item() < 0.9 * first


def mixed_dtype_model():
    """fp32 and bf16 weights in one optimizer, and a sparse embedding: three unscale groups."""
    torch.manual_seed(0)
    return nn.ModuleDict(
        {
            "fp32": nn.Linear(4, 4),
            "bf16": nn.Linear(4, 4).bfloat16(),
            "sparse": nn.Embedding(10, 4, sparse=True),
        }
    )


def backward_scaled(model, scale):
    tokens = torch.tensor([1, 2, 2, 7])
    x = model["sparse"](tokens)
    out = model["bf16"](model["fp32"](x).bfloat16()).float()
    (out.pow(2).mean() * scale).backward()


def test_unscale_covers_every_dtype_and_sparse_gradients():
    reference = mixed_dtype_model()
    backward_scaled(reference, 1.0)
    model = mixed_dtype_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = cw.LossScaler("16-mixed", init_scale=1024.0)
    backward_scaled(model, scaler.get_scale())
    scaler.unscale_(optimizer)
    for (name, mine), theirs in zip(model.named_parameters(), reference.parameters()):
        if mine.grad.is_sparse:
            mine_grad, their_grad = mine.grad.to_dense(), theirs.grad.to_dense()
        else:
            mine_grad, their_grad = mine.grad, theirs.grad
        torch.testing.assert_close(mine_grad, their_grad, rtol=1e-2, atol=1e-6, msg=name)
    assert scaler.step(optimizer) is True


@pytest.mark.parametrize("poisoned", ["bf16", "sparse"])
def test_inf_in_any_group_skips_the_step(poisoned):
    model = mixed_dtype_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = cw.LossScaler("16-mixed", init_scale=1024.0)
    before = weights(model)
    backward_scaled(model, scaler.get_scale())
    grad = model[poisoned].weight.grad
    (grad._values() if grad.is_sparse else grad)[0, 0] = math.inf
    assert scaler.step(optimizer) is False
    scaler.update()
    assert scaler.get_scale() == 512.0
    assert all(torch.equal(a, b) for a, b in zip(before, weights(model)))
