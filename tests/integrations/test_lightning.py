"""CastwisePrecision with the real Lightning Trainer and Fabric on CPU."""

from __future__ import annotations

import csv

import pytest
import torch
import torch.nn.functional as F
from torch import nn

L = pytest.importorskip("lightning")

from lightning_models import EncoderModule, MlpModule, encoder_data, mlp_data  # noqa: E402

import castwise as cw  # noqa: E402
from castwise.integrations.lightning import CastwisePrecision  # noqa: E402

BF16_TOL = dict(atol=5e-2, rtol=5e-2)


@pytest.fixture
def trainer_kwargs(tmp_path) -> dict:
    """A thrifty CPU Trainer: two steps, one validation batch, no progress bar, no logger."""
    return dict(
        accelerator="cpu",
        devices=1,
        max_steps=2,
        limit_val_batches=1,
        num_sanity_val_steps=0,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
        logger=False,
        default_root_dir=tmp_path,
    )


def test_lightning_bf16_mixed_crashes_in_validation(trainer_kwargs):
    """The user report, reproduced: training passes, validation with a padding mask crashes."""
    model = EncoderModule()
    trainer = L.Trainer(precision="bf16-mixed", **trainer_kwargs)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found BFloat16"):
        trainer.fit(model, encoder_data(), encoder_data())
    assert model.output_dtypes == {"train": torch.bfloat16}  # trained (in bf16), never validated


def test_castwise_plugin_trains_and_validates_with_one_output_dtype(trainer_kwargs):
    torch.manual_seed(0)
    model = EncoderModule()
    plugin = CastwisePrecision("bf16-mixed")
    trainer = L.Trainer(plugins=[plugin], **trainer_kwargs)
    assert trainer.precision_plugin is plugin and trainer.precision == "bf16-mixed"
    trainer.fit(model, encoder_data(), encoder_data())

    assert model.output_dtypes == {"train": torch.float32, "val": torch.float32}
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    assert torch.backends.mha.get_fastpath_enabled()
    x, mask, _ = next(iter(encoder_data()))
    model.eval()
    with torch.no_grad():
        reference = model.head(model.encoder(x, src_key_padding_mask=mask))
    unpadded = ~mask
    torch.testing.assert_close(model.val_outputs[0][unpadded], reference[unpadded], **BF16_TOL)


def test_true_policy_keeps_norms_fp32_and_targets_untouched(trainer_kwargs):
    model = MlpModule()
    L.Trainer(plugins=[CastwisePrecision("bf16-true")], **trainer_kwargs).fit(model, mlp_data())
    dtypes = {name: p.dtype for name, p in model.named_parameters()}
    assert dtypes["net.0.weight"] == dtypes["net.3.weight"] == torch.bfloat16
    assert dtypes["net.1.weight"] == dtypes["net.1.bias"] == torch.float32
    assert model.target_dtypes == [torch.float32, torch.float32]
    assert model(torch.randn(2, 8)).dtype == torch.float32

    lightning_model = MlpModule()
    L.Trainer(precision="bf16-true", **trainer_kwargs).fit(lightning_model, mlp_data())
    assert lightning_model.target_dtypes == [torch.bfloat16, torch.bfloat16]


@pytest.mark.parametrize(
    ("policy", "output_dtype"),
    [
        ("bf16-mixed", torch.float32),
        ("params=f32,compute=bf16,output=bf16", torch.bfloat16),
        ("bf16-true", torch.float32),
    ],
)
def test_fabric_output_dtype_follows_the_policy(policy, output_dtype):
    fabric = L.Fabric(accelerator="cpu", devices=1, plugins=[CastwisePrecision(policy)])
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.Linear(16, 4))
    reference = [p.detach().clone() for p in net.parameters()]
    model, optimizer = fabric.setup(net, torch.optim.SGD(net.parameters(), lr=0.1))
    x = torch.randn(4, 8)
    out = model(x)
    assert out.dtype == output_dtype
    torch.testing.assert_close(out.float(), _fp32_forward(reference, x), **BF16_TOL)
    fabric.backward(out.float().square().mean())
    optimizer.step()
    assert all(not torch.equal(p.float(), r) for p, r in zip(net.parameters(), reference))
    assert net[1].weight.dtype == torch.float32


def _fp32_forward(params: list[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    w0, b0, gn, bn, w2, b2 = (p.float() for p in params)
    h = F.layer_norm(F.linear(x, w0, b0), (16,), gn, bn)
    return F.linear(h, w2, b2)


def test_fabric_own_plugin_always_returns_float32():
    """The behaviour castwise makes a choice: Fabric's bf16-true hands back float32 logits."""
    fabric = L.Fabric(accelerator="cpu", devices=1, precision="bf16-true")
    model = fabric.setup(nn.Linear(8, 4))
    assert next(model.parameters()).dtype == torch.bfloat16
    assert model(torch.randn(2, 8)).dtype == torch.float32


def test_init_module_creates_parameters_in_storage_dtype(trainer_kwargs):
    fabric = L.Fabric(accelerator="cpu", devices=1, plugins=[CastwisePrecision("bf16-true")])
    trainer = L.Trainer(plugins=[CastwisePrecision("bf16-true")], **trainer_kwargs)
    with fabric.init_module():
        from_fabric = nn.Linear(4, 4)
    with trainer.init_module():
        from_trainer = nn.Linear(4, 4)
    assert from_fabric.weight.dtype == from_trainer.weight.dtype == torch.bfloat16
    assert torch.get_default_dtype() == torch.float32


def test_fabric_loss_scaling_skips_overflow_steps():
    plugin = CastwisePrecision("16-mixed")
    fabric = L.Fabric(accelerator="cpu", devices=1, plugins=[plugin])
    net = nn.Linear(8, 1)
    model, optimizer = fabric.setup(net, torch.optim.SGD(net.parameters(), lr=0.1))
    x = torch.randn(4, 8)

    fabric.backward(model(x).mean() * 1e-2)  # fp16 gradients stay finite at scale 65536
    optimizer.step()
    assert plugin.metrics() == {"loss_scale": 65536.0, "skipped_steps": 0.0}

    before = net.weight.detach().clone()
    optimizer.zero_grad()
    fabric.backward(model(x).mean() * 1e3)  # 65536 * 1e3 overflows fp16
    optimizer.step()
    assert torch.equal(net.weight, before)
    assert plugin.metrics() == {"loss_scale": 32768.0, "skipped_steps": 1.0}


def test_checkpoint_holds_scaler_state_and_resume_restores_it(trainer_kwargs, tmp_path):
    trainer_kwargs.update(enable_checkpointing=True)
    plugin = CastwisePrecision("16-mixed")
    trainer = L.Trainer(plugins=[plugin], **trainer_kwargs)
    trainer.fit(MlpModule(), mlp_data())
    path = tmp_path / "edited.ckpt"
    checkpoint = torch.load(trainer.checkpoint_callback.best_model_path, weights_only=False)
    state = checkpoint["CastwisePrecision"]
    assert state["policy"] == "16-mixed"
    scaler = state["scaler"]
    assert {"loss_scale": scaler["scale"], "skipped_steps": scaler["skipped_steps"]} == plugin.metrics()
    state["scaler"]["scale"], state["scaler"]["skipped_steps"] = 512.0, 3
    torch.save(checkpoint, path)

    resumed = CastwisePrecision("16-mixed")
    trainer_kwargs.update(default_root_dir=tmp_path / "resumed")  # restores, then has no step left
    L.Trainer(plugins=[resumed], **trainer_kwargs).fit(MlpModule(), mlp_data(), ckpt_path=path)
    assert resumed.metrics() == {"loss_scale": 512.0, "skipped_steps": 3.0}


def test_checkpoint_tensors_keep_the_storage_dtype(trainer_kwargs):
    trainer_kwargs.update(enable_checkpointing=True)
    trainer = L.Trainer(plugins=[CastwisePrecision("bf16-true")], **trainer_kwargs)
    trainer.fit(MlpModule(), mlp_data())
    state = torch.load(trainer.checkpoint_callback.best_model_path, weights_only=False)["state_dict"]
    assert {k: v.dtype for k, v in state.items()} == {
        "net.0.weight": torch.bfloat16, "net.0.bias": torch.bfloat16,
        "net.1.weight": torch.float32, "net.1.bias": torch.float32,
        "net.3.weight": torch.bfloat16, "net.3.bias": torch.bfloat16,
    }


def test_health_metrics_reach_the_lightning_logger(trainer_kwargs, tmp_path):
    logger = L.pytorch.loggers.CSVLogger(tmp_path, name="run")
    trainer_kwargs.update(logger=logger, log_every_n_steps=1)
    plugin = CastwisePrecision("16-mixed")
    L.Trainer(plugins=[plugin], **trainer_kwargs).fit(MlpModule(), mlp_data())
    with open(f"{logger.log_dir}/metrics.csv") as handle:
        rows = [row for row in csv.DictReader(handle) if row.get("castwise/loss_scale")]
    logged = [(float(r["castwise/loss_scale"]), float(r["castwise/skipped_steps"])) for r in rows]
    assert len(logged) == 2 and logged[-1] == (plugin.metrics()["loss_scale"], plugin.metrics()["skipped_steps"])
    assert all(scale * 2**overflows == 65536.0 for scale, overflows in logged)  # halved per overflow


def test_precision_monitor_figures_reach_the_logger(trainer_kwargs, tmp_path):
    logger = L.pytorch.loggers.CSVLogger(tmp_path, name="run")
    trainer_kwargs.update(logger=logger, log_every_n_steps=1)
    plugin = CastwisePrecision("bf16-true", monitor_every=1)
    L.Trainer(plugins=[plugin], **trainer_kwargs).fit(MlpModule(), mlp_data())
    with open(f"{logger.log_dir}/metrics.csv") as handle:
        rows = [row for row in csv.DictReader(handle) if row.get("castwise/swamping_rate")]
    assert len(rows) == 2
    assert all(0.0 <= float(r["castwise/swamping_rate"]) <= 1.0 for r in rows)
    assert [float(r["castwise/nonfinite_weights"]) for r in rows] == [0.0, 0.0]
    assert "castwise/loss_scale" not in rows[0]  # bf16 policies do not scale losses
    assert plugin.metrics()["swamping_rate"] == float(rows[-1]["castwise/swamping_rate"])


def test_unknown_policy_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown precision 'bf16-mixd'.*'bf16-mixed'"):
        CastwisePrecision("bf16-mixd")
    with pytest.raises(ValueError, match="monitor_every"):
        CastwisePrecision("bf16-mixed", monitor_every=-1)


def test_plugin_and_precision_flag_together_are_refused(trainer_kwargs):
    with pytest.raises(ValueError, match="precision"):
        L.Trainer(precision="bf16-mixed", plugins=[CastwisePrecision("bf16-mixed")], **trainer_kwargs)


def test_plugin_trains_and_validates_a_compiled_module(trainer_kwargs):
    """``Trainer.fit(torch.compile(model))`` under the plugin: train and eval (padding mask) compile,
    hand back float32, and agree with the same weights run eagerly under the policy."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = EncoderModule()
    compiled = torch.compile(model, backend="aot_eager")
    trainer = L.Trainer(plugins=[CastwisePrecision("bf16-mixed")], **trainer_kwargs)
    trainer.fit(compiled, encoder_data(), encoder_data())

    assert model.output_dtypes == {"train": torch.float32, "val": torch.float32}
    assert torch.backends.mha.get_fastpath_enabled() and not torch.is_autocast_enabled("cpu")
    x, mask, _ = next(iter(encoder_data()))
    model.eval()
    with torch.no_grad(), trainer.precision_plugin.forward_context():
        eager = model(x, mask)
    unpadded = ~mask
    torch.testing.assert_close(model.val_outputs[0][unpadded], eager[unpadded], **BF16_TOL)
    torch._dynamo.reset()


class _NestedOutputs(nn.Module):
    """Linear -> LayerNorm -> Linear, handing back a dict with a float tensor, a tuple and token ids."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.Linear(16, 4))

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> dict:
        out = self.net(x) * scale
        return {"logits": out, "pair": (out.sum(-1), out.argmax(-1)), "ids": torch.arange(3)}


@pytest.mark.parametrize("policy", ["32-true", "bf16-mixed", "16-mixed", "bf16-true", "p=f32,c=bf16,o=bf16"])
def test_plugin_and_wrapper_cross_the_same_boundary(policy):
    """Fabric with the plugin and ``cw.apply`` give bit-identical outputs of identical dtypes."""
    torch.manual_seed(0)
    net = _NestedOutputs()
    twin = _NestedOutputs()
    twin.load_state_dict(net.state_dict())
    fabric = L.Fabric(accelerator="cpu", devices=1, plugins=[CastwisePrecision(policy)])
    plugged = fabric.setup_module(net)
    wrapped = cw.apply(twin, policy)
    x, scale = torch.randn(4, 8), torch.tensor(0.5, dtype=torch.float64)
    ours, theirs = plugged(x, scale=scale), wrapped(x, scale=scale)
    flat_ours, flat_theirs = _flatten(ours), _flatten(theirs)
    assert [t.dtype for t in flat_ours] == [t.dtype for t in flat_theirs]
    assert all(torch.equal(a, b) for a, b in zip(flat_ours, flat_theirs))
    assert flat_ours[-1].dtype == torch.int64 and flat_ours[-2].dtype == torch.int64


def _flatten(output: dict) -> list[torch.Tensor]:
    return [output["logits"], *output["pair"], output["ids"]]
