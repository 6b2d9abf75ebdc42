"""The built-in example: a small Transformer classifier that walks into every pitfall castwise fixes.

An embedding, an ``nn.TransformerEncoder`` (whose eval fast path breaks under CPU autocast with a
padding mask), LayerNorms that want fp32, and a classifier head whose logits change dtype.
"""

from __future__ import annotations

import torch
from torch import nn


class ExampleClassifier(nn.Module):
    """Token ids and a padding mask in, class logits out (mean over unpadded positions)."""

    def __init__(self, vocab: int = 128, width: int = 32, heads: int = 4, layers: int = 2, classes: int = 4):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(width, heads, 2 * width, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)

    def forward(self, ids: torch.Tensor, padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        hidden = self.encoder(self.embed(ids), src_key_padding_mask=padding_mask)
        if padding_mask is None:
            pooled = hidden.mean(dim=1)
        else:
            keep = (~padding_mask).unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * keep).sum(dim=1) / keep.sum(dim=1)
        return self.head(self.norm(pooled))


def example_inputs(
    batch: int = 4, length: int = 16, vocab: int = 128, seed: int = 0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and a padding mask (True = padding) with sequences of different lengths."""
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (batch, length), generator=generator)
    lengths = torch.linspace(length, length // 2, batch).long()
    mask = torch.arange(length).unsqueeze(0) >= lengths.unsqueeze(1)
    return ids, mask


def example_model(seed: int = 0) -> ExampleClassifier:
    """A freshly initialised example model, the same for the same seed."""
    torch.manual_seed(seed)
    return ExampleClassifier()


def example_labels(batch: int = 4, classes: int = 4) -> torch.Tensor:
    """Class labels for :func:`example_inputs`, the trial training's targets."""
    return torch.arange(batch) % classes
