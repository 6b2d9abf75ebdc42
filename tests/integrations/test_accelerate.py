"""castwise.integrations.accelerate with a real Accelerator on CPU."""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn

import castwise as cw
from castwise.checkpoint import CheckpointError

accelerate = pytest.importorskip("accelerate")
from accelerate.state import AcceleratorState  # noqa: E402

from castwise.integrations.accelerate import prepare, save_model  # noqa: E402


@pytest.fixture
def accelerator_with():
    """Accelerators with different mixed precision in one process (Accelerate keeps one shared state)."""
    def make(mixed_precision: str) -> accelerate.Accelerator:
        AcceleratorState._reset_state(reset_partial_state=True)
        return accelerate.Accelerator(cpu=True, mixed_precision=mixed_precision)

    yield make
    AcceleratorState._reset_state(reset_partial_state=True)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.body = nn.Linear(8, 16)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.body(x)))


def train_steps(accelerator, model, optimizer, steps: int = 3) -> None:
    x, y = torch.randn(16, 8), torch.randn(16, 4)
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()


@pytest.mark.parametrize("mixed_precision", ["bf16", "fp16"])
def test_accelerate_own_mixed_precision_is_refused(accelerator_with, mixed_precision):
    accelerator = accelerator_with(mixed_precision)
    net = Net()
    with pytest.raises(ValueError, match=f"mixed_precision='{mixed_precision}'.*autocasts twice"):
        prepare(accelerator, net, policy="bf16-mixed")
    assert {p.dtype for p in net.parameters()} == {torch.float32}, "the model was not touched"


def test_prepared_model_runs_the_policy_and_saves_its_storage_dtype(accelerator_with, tmp_path):
    accelerator = accelerator_with("no")
    net = Net()
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
    model, optimizer = prepare(accelerator, net, optimizer, policy="bf16-true")
    assert net.body.weight.dtype == torch.bfloat16 and net.norm.weight.dtype == torch.float32
    assert model(torch.randn(2, 8)).dtype == torch.float32, "the policy's output dtype, not Accelerate's"
    train_steps(accelerator, model, optimizer)

    path = save_model(accelerator, model, tmp_path / "out")
    stored = cw.load(path / "model.safetensors")
    assert {n: t.dtype for n, t in stored.items()} == {
        "body.weight": torch.bfloat16, "body.bias": torch.bfloat16, "norm.weight": torch.float32,
        "norm.bias": torch.float32, "head.weight": torch.bfloat16, "head.bias": torch.bfloat16,
    }
    for name, tensor in stored.items():
        assert torch.equal(tensor, net.get_parameter(name).detach()), name


def test_save_model_in_another_dtype_and_the_force_rule(accelerator_with, tmp_path):
    accelerator = accelerator_with("no")
    net = Net()
    model = prepare(accelerator, net, policy="bf16-mixed")
    save_model(accelerator, model, tmp_path / "out", dtype="f16")
    first = (tmp_path / "out" / "model.safetensors").read_bytes()
    assert cw.load(tmp_path / "out")["head.weight"].dtype == torch.float16
    assert cw.load(tmp_path / "out")["norm.weight"].dtype == torch.float32
    with pytest.raises(CheckpointError, match="already exists; pass force=True"):
        save_model(accelerator, model, tmp_path / "out", dtype="bf16")
    assert (tmp_path / "out" / "model.safetensors").read_bytes() == first
    save_model(accelerator, model, tmp_path / "out", dtype="bf16", force=True)
    assert cw.load(tmp_path / "out")["head.weight"].dtype == torch.bfloat16


def test_a_plain_model_needs_a_dtype(accelerator_with, tmp_path):
    accelerator = accelerator_with("no")
    model = accelerator.prepare(Net())
    with pytest.raises(TypeError, match="needs dtype="):
        save_model(accelerator, model, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_transformers_model_saves_a_model_folder_that_reloads_exactly(accelerator_with, tmp_path):
    transformers = pytest.importorskip("transformers")
    from castwise.integrations.transformers import from_pretrained

    accelerator = accelerator_with("no")
    config = transformers.LlamaConfig(
        vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
    )
    torch.manual_seed(0)
    llama = transformers.LlamaForCausalLM(config)
    optimizer = torch.optim.AdamW(llama.parameters(), lr=1e-3)
    model, optimizer = prepare(accelerator, llama, optimizer, policy="bf16-mixed")
    ids = torch.randint(3, 32, (4, 6))
    for _ in range(2):
        accelerator.backward(model(input_ids=ids, labels=ids).loss)
        optimizer.step()
        optimizer.zero_grad()

    path = save_model(accelerator, model, tmp_path / "llama", dtype="bf16")
    assert json.loads((path / "config.json").read_text())["dtype"] == "bfloat16"
    loaded = from_pretrained(path, transformers.LlamaForCausalLM)
    for name, param in loaded.named_parameters():
        expected = torch.float32 if "norm" in name else torch.bfloat16
        assert param.dtype == expected, name
        assert torch.equal(param, llama.get_parameter(name).detach().to(expected)), name
