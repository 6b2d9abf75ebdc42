"""Tiny models and their hand-written low-precision versions, for the torch.compile tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F
from transformers import LlamaConfig, LlamaForCausalLM

from castwise.policy import Policy


def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 10))


def encoder() -> nn.Module:
    layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.0)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def llama() -> nn.Module:
    config = LlamaConfig(
        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
    )
    return LlamaForCausalLM(config)


BUILDERS: dict[str, Callable[[], nn.Module]] = {"mlp": mlp, "encoder": encoder, "llama": llama}


def build(name: str) -> nn.Module:
    """The named model with the same initial weights every time."""
    torch.manual_seed(0)
    return BUILDERS[name]()


def inputs(name: str, masked: bool) -> tuple[tuple, dict]:
    """Positional and keyword inputs for the named model; ``masked`` pads the last positions."""
    generator = torch.Generator().manual_seed(1)
    if name == "mlp":
        return (torch.randn(8, 64, generator=generator),), {}
    if name == "encoder":
        x = torch.randn(4, 10, 32, generator=generator)
        mask = torch.zeros(4, 10, dtype=torch.bool)
        mask[:, 7:] = True
        return (x,), ({"src_key_padding_mask": mask} if masked else {})
    ids = torch.randint(0, 128, (2, 8), generator=generator)
    attention = torch.ones(2, 8, dtype=torch.long)
    attention[:, 6:] = 0
    return (ids,), ({"attention_mask": attention} if masked else {})


def valid_positions(name: str, masked: bool) -> Any:
    """Index of the outputs to compare (padded positions differ between torch's fast and slow paths)."""
    if masked and name == "encoder":
        return (slice(None), slice(0, 7))
    if masked and name == "llama":
        return (slice(None), slice(0, 6))
    return (...,)


def logits(output: Any) -> torch.Tensor:
    """The tensor to compare: the output itself, or a transformers output's logits."""
    return output if isinstance(output, torch.Tensor) else output.logits


class LayerNormFp32(nn.LayerNorm):
    """OpenCLIP's fp32 LayerNorm: compute in fp32, hand back the dtype that came in."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast(x.device.type, enabled=False):
            out = F.layer_norm(x.float(), self.normalized_shape, self.weight, self.bias, self.eps)
        return out.to(x.dtype)


class HandWritten(nn.Module):
    """What a careful user writes without castwise: fp32 LayerNorms and ``torch.autocast``."""

    def __init__(self, model: nn.Module, policy: Policy) -> None:
        super().__init__()
        for module in model.modules():
            if type(module) is nn.LayerNorm:
                module.__class__ = LayerNormFp32
        self.model = model
        self.dtype = policy.compute_dtype

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        with torch.autocast("cpu", dtype=self.dtype):
            return self.model(*args, **kwargs)
