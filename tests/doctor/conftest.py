"""Models and reports the doctor tests share."""

import pytest
import torch


class Loud(torch.nn.Module):
    """Activations around 1e5 inside (above fp16's 65504), scaled back down before the output."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.up = torch.nn.Linear(width, width)
        self.down = torch.nn.Linear(width, 2)
        with torch.no_grad():
            self.up.weight.mul_(1e6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.up(x) / 1e4)


@pytest.fixture(scope="session")
def overflow_report():
    """16-true overflows on :class:`Loud`, bf16-true does not."""
    import castwise as cw

    torch.manual_seed(0)
    return cw.diagnose(Loud(), torch.randn(4, 8), policies=["16-true", "bf16-true"], tolerance=5e-2)
