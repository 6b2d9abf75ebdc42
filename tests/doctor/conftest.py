"""Models and reports the doctor tests share."""

import pytest
import torch
from planted import Loud


@pytest.fixture(scope="session")
def overflow_report():
    """16-true overflows on :class:`Loud`, bf16-true does not."""
    import castwise as cw

    torch.manual_seed(0)
    return cw.diagnose(Loud(), torch.randn(4, 8), policies=["16-true", "bf16-true"], tolerance=5e-2)
