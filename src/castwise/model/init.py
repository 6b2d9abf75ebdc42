"""``cw.init_module``: create parameters directly in a policy's storage dtype."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from castwise.policy import Policy, PolicyLike


@contextlib.contextmanager
def init_module(policy: PolicyLike, device: torch.device | str | None = None) -> Iterator[Policy]:
    """Within this context new parameters are created in the policy's param dtype (and device).

    Kept-fp32 modules are created in that dtype too; ``cw.apply`` restores them to fp32.
    The previous default dtype is restored on exit.
    """
    policy = Policy.parse(policy)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(policy.param_dtype)
    try:
        with torch.device(device) if device is not None else contextlib.nullcontext():
            yield policy
    finally:
        torch.set_default_dtype(previous)
