"""Tiny LightningModules and data for the Lightning tests (bf16 math is emulated on this CPU)."""

from __future__ import annotations

import lightning as L
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

WIDTH = 16
SEQ = 5


class EncoderModule(L.LightningModule):
    """A LightningModule around ``nn.TransformerEncoder``, the shape of the user report.

    Records the dtype of its forward output in training and in validation.
    """

    def __init__(self) -> None:
        super().__init__()
        layer = nn.TransformerEncoderLayer(WIDTH, 2, 2 * WIDTH, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1)
        self.head = nn.Linear(WIDTH, 3)
        self.output_dtypes: dict[str, torch.dtype] = {}
        self.val_outputs: list[torch.Tensor] = []

    def forward(self, x: torch.Tensor, padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        return self.head(self.encoder(x, src_key_padding_mask=padding_mask))

    def training_step(self, batch: tuple, batch_idx: int) -> torch.Tensor:
        x, mask, y = batch
        out = self(x, mask)
        self.output_dtypes["train"] = out.dtype
        return F.cross_entropy(out[:, 0].float(), y)

    def validation_step(self, batch: tuple, batch_idx: int) -> None:
        x, mask, _ = batch
        out = self(x, mask)
        self.output_dtypes["val"] = out.dtype
        self.val_outputs.append(out)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.1)


def encoder_data(n: int = 4) -> DataLoader:
    """Sequences whose last two positions are padding (mask True), with a class per sequence."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, SEQ, WIDTH, generator=g)
    mask = torch.zeros(n, SEQ, dtype=torch.bool)
    mask[:, -2:] = True
    y = torch.randint(0, 3, (n,), generator=g)
    return DataLoader(TensorDataset(x, mask, y), batch_size=2)


class MlpModule(L.LightningModule):
    """Linear -> LayerNorm -> Linear, trained on a regression target kept in float32."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.ReLU(), nn.Linear(16, 1))
        self.target_dtypes: list[torch.dtype] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def training_step(self, batch: tuple, batch_idx: int) -> torch.Tensor:
        x, y = batch
        self.target_dtypes.append(y.dtype)
        return F.mse_loss(self(x), y)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.01)


def mlp_data(n: int = 8) -> DataLoader:
    g = torch.Generator().manual_seed(0)
    return DataLoader(TensorDataset(torch.randn(n, 8, generator=g), torch.randn(n, 1, generator=g)), batch_size=4)
