"""Small models shared by the model tests (tiny: bf16 math is emulated on this CPU)."""

import pytest
import torch
from torch import nn


class TokenEncoder(nn.Module):
    """Embedding -> nn.TransformerEncoder -> LayerNorm -> Linear, one output per token."""

    def __init__(self, vocab: int = 64, width: int = 32) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(width, 4, 2 * width, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 8)

    def forward(self, ids, padding_mask=None):
        return self.head(self.norm(self.encoder(self.embed(ids), src_key_padding_mask=padding_mask)))


@pytest.fixture
def token_encoder():
    torch.manual_seed(0)
    return TokenEncoder()


@pytest.fixture
def tokens():
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 64, (3, 10), generator=generator)
    mask = torch.zeros(3, 10, dtype=torch.bool)
    mask[1, 7:] = True
    mask[2, 4:] = True
    return ids, mask
