"""Methods besides ``forward`` under CastwisePrecision: ``forward_method`` routes one through the
plugin's boundary with Fabric (one device or DDP) and the Trainer; Fabric's ``mark_forward_method``
does where a strategy wraps the module; what runs unrouted is what docs/integrations.md says."""

from __future__ import annotations

import copy
import os

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

L = pytest.importorskip("lightning")

from castwise.integrations.lightning import CastwisePrecision, forward_method  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class Encoder(nn.Sequential):
    """Two linears, a plain method, and routed methods (one calls ``self(...)`` inside)."""

    def __init__(self) -> None:
        super().__init__(nn.Linear(8, 8), nn.Linear(8, 4))

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        return self[0](x)

    @forward_method
    def routed_embed(self, x: torch.Tensor) -> torch.Tensor:
        """Embed under the plugin's policy."""
        return self[0](x)

    @forward_method
    def refine(self, x: torch.Tensor) -> torch.Tensor:
        return self[1](self[0](self(x).new_zeros(x.shape[0], 8)) + self[0](x))


def _encoder() -> Encoder:
    torch.manual_seed(0)
    return Encoder()


X = torch.randn(2, 8, generator=torch.Generator().manual_seed(1))


def _fabric_module(policy: str, strategy: str = "auto") -> tuple[nn.Module, Encoder]:
    reference = _encoder()
    fabric = L.Fabric(accelerator="cpu", devices=1, strategy=strategy, plugins=[CastwisePrecision(policy)])
    if strategy != "auto":
        fabric.launch()
    module = fabric.setup_module(copy.deepcopy(reference))
    for name in ("embed", "routed_embed", "refine"):
        module.mark_forward_method(name)
    return module, reference


@pytest.fixture
def ddp_process_group():
    """DDP with one process on gloo; the process group and the environment Fabric set are undone."""
    environment = dict(os.environ)
    yield "ddp"
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    os.environ.clear()
    os.environ.update(environment)


def _assert_under_bf16(out: torch.Tensor, reference: torch.Tensor) -> None:
    assert out.dtype == torch.float32 and not torch.equal(out, reference)
    torch.testing.assert_close(out, reference, atol=5e-2, rtol=5e-2)


@pytest.mark.parametrize("policy", ["bf16-mixed", "bf16-true"])
def test_fabric_runs_a_forward_method_under_the_policy_on_one_device(policy):
    module, reference = _fabric_module(policy)
    with torch.no_grad():
        _assert_under_bf16(module.routed_embed(X), reference.embed(X))
        _assert_under_bf16(module.refine(X), reference.refine(X))
    assert module.routed_embed.__doc__ == "Embed under the plugin's policy."


def test_fabric_calls_a_marked_plain_method_directly_on_one_device():
    """What the docs warn of: with no strategy wrapping the module, Fabric's ``mark_forward_method``
    does not route a method, so a plain method runs outside the policy (here: in fp32)."""
    module, reference = _fabric_module("bf16-mixed")
    with torch.no_grad():
        assert torch.equal(module.embed(X), reference.embed(X))


@pytest.mark.parametrize("policy", ["bf16-mixed", "bf16-true"])
def test_fabric_ddp_routes_marked_methods_through_the_policy(policy, ddp_process_group):
    """Under a strategy that wraps the module, a marked plain method runs under the policy, and a
    routed one that calls ``self(...)`` crosses the boundary once (no fp32 into a bf16 layer)."""
    module, reference = _fabric_module(policy, strategy=ddp_process_group)
    with torch.no_grad():
        _assert_under_bf16(module.embed(X), reference.embed(X))
        _assert_under_bf16(module.refine(X), reference.refine(X))


class EncoderModule(L.LightningModule):
    """A LightningModule whose predict step calls a plain and a routed method."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = _encoder()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)

    def plain(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder.embed(x)

    @forward_method
    def routed(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder.embed(x)

    def predict_step(self, batch: list, batch_idx: int) -> dict[str, torch.Tensor]:
        (x,) = batch
        return {"routed": self.routed(x), "forward": self(x)}


def _predict(policy: str, module: L.LightningModule, tmp_path) -> dict[str, torch.Tensor]:
    trainer = L.Trainer(
        accelerator="cpu", devices=1, plugins=[CastwisePrecision(policy)], logger=False,
        enable_progress_bar=False, enable_model_summary=False, default_root_dir=tmp_path,
    )
    (outputs,) = trainer.predict(module, DataLoader(TensorDataset(X), batch_size=2))
    return outputs


@pytest.mark.parametrize("policy", ["bf16-mixed", "bf16-true"])
def test_trainer_runs_a_forward_method_of_the_lightning_module_under_the_policy(policy, tmp_path):
    module, reference = EncoderModule(), _encoder()
    outputs = _predict(policy, module, tmp_path)
    _assert_under_bf16(outputs["routed"], reference.embed(X))
    _assert_under_bf16(outputs["forward"], reference(X))
    with torch.no_grad():
        _assert_under_bf16(module.routed(X), reference.embed(X))


class PlainStep(EncoderModule):
    def predict_step(self, batch: list, batch_idx: int) -> dict[str, torch.Tensor]:
        (x,) = batch
        return {"plain": self.plain(x)}


def test_trainer_runs_a_plain_method_in_the_step_context_without_the_casts(tmp_path):
    """What the docs say of an unrouted method in a step: autocast is on (bf16 math) but its output
    is not handed back in the policy's output dtype, and under ``-true`` its inputs are not cast."""
    reference = _encoder()
    plain = _predict("bf16-mixed", PlainStep(), tmp_path)["plain"]
    assert plain.dtype == torch.bfloat16
    torch.testing.assert_close(plain.float(), reference.embed(X), atol=5e-2, rtol=5e-2)
    with pytest.raises(RuntimeError):
        _predict("bf16-true", PlainStep(), tmp_path)


def test_forward_method_runs_as_written_on_a_module_no_plugin_prepared():
    module, reference = _encoder(), _encoder()
    assert torch.equal(module.routed_embed(X), reference.embed(X))
