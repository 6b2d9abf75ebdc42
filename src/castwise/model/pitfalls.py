"""Known framework pitfalls that break low-precision models, and how castwise steps around them.

``nn.TransformerEncoderLayer`` and ``nn.MultiheadAttention`` have an inference fast path
(eval + no grad) whose guard asks ``torch.is_autocast_enabled()`` without a device, which only
reports CUDA autocast. Under CPU autocast the fused kernel then receives bf16 activations with
fp32 weights and raises ``expected scalar type Float but found BFloat16`` (with a padding mask)
or silently returns bf16 (without one). With fp32-kept norms under a true policy the fused kernel
sees mixed weight dtypes. castwise turns the fast path off for the duration of the forward.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TypeVar

from torch import nn

from castwise.policy import Policy

T = TypeVar("T")

FASTPATH_MODULES = (nn.TransformerEncoderLayer, nn.MultiheadAttention)


def has_mha_fastpath(model: nn.Module) -> bool:
    """True when the model holds a module with torch's fused MHA/encoder inference fast path."""
    return any(isinstance(m, FASTPATH_MODULES) for m in model.modules())


def fastpath_modules(model: nn.Module, policy: Policy) -> list[nn.Module]:
    """The modules whose fast path is unsafe under ``policy`` (any, when its math runs in 16 bits).

    The fast path runs only in eval mode, so a forward needs the guard only while one of these
    is in eval mode (a frozen encoder inside a training model included)."""
    if not policy.is_low_precision:
        return []
    return [m for m in model.modules() if isinstance(m, FASTPATH_MODULES)]


@contextlib.contextmanager
def global_setting(get: Callable[[], T], set_: Callable[[T], None], value: T) -> Iterator[None]:
    """Set a torch global (``set_(value)``) for the duration, restoring what ``get()`` gave, also on error."""
    previous = get()
    set_(value)
    try:
        yield
    finally:
        set_(previous)


def mha_fastpath_disabled() -> contextlib.AbstractContextManager[None]:
    """Turn torch's MHA fast path off and restore the previous global setting afterwards."""
    from torch.backends import mha

    return global_setting(mha.get_fastpath_enabled, mha.set_fastpath_enabled, False)
