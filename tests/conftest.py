"""Fixtures every test shares."""

import pytest
import torch


@pytest.fixture(autouse=True)
def _one_thread():
    """Tests run single-threaded: the machine is shared and the models are tiny."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
