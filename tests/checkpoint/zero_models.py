"""The tiny models zero_worker.py trains under DeepSpeed (importable without DeepSpeed)."""

from __future__ import annotations

import torch
from torch import nn


class Net(nn.Module):
    """Odd sizes (so ZeRO pads), a frozen layer, the head tied to the embedding, buffers (one transposed)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(13, 5)
        self.frozen = nn.Linear(5, 5)
        self.body = nn.Linear(5, 7)
        self.norm = nn.LayerNorm(7)
        self.proj = nn.Linear(7, 5, bias=False)
        self.head = nn.Linear(5, 13, bias=False)
        self.head.weight = self.embed.weight
        self.register_buffer("ids", torch.arange(4))
        self.register_buffer("scale", torch.tensor([1.5, 0.5]))
        self.register_buffer("scratch", torch.zeros(3), persistent=False)
        self.register_buffer("table", torch.arange(6.0).reshape(2, 3).t())
        self.frozen.requires_grad_(False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden = self.embed(tokens).mean(1)
        hidden = self.proj(self.norm(self.body(self.frozen(hidden))))
        return self.head(hidden * self.scale[0].to(hidden.dtype))


def llama() -> nn.Module:
    import transformers

    config = transformers.LlamaConfig(
        vocab_size=31,
        hidden_size=12,
        intermediate_size=18,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=16,
        tie_word_embeddings=True,
    )
    return transformers.LlamaForCausalLM(config)
