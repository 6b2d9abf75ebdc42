"""Finding and removing the forward hooks castwise put on a module (identified by their owner)."""

from __future__ import annotations

from torch import nn


def _owned(module: nn.Module, owner: type) -> list[int]:
    hooks = {**module._forward_pre_hooks, **module._forward_hooks}
    return [key for key, hook in hooks.items() if isinstance(getattr(hook, "__self__", None), owner)]


def has_hooks(module: nn.Module, owner: type) -> bool:
    """True when ``module`` carries a forward hook that is a method of an ``owner`` instance."""
    return bool(_owned(module, owner))


def remove_hooks(module: nn.Module, owner: type) -> None:
    """Remove every forward (pre-)hook of ``module`` that is a method of an ``owner`` instance."""
    for key in _owned(module, owner):
        for registry in (
            module._forward_pre_hooks, module._forward_hooks, module._forward_pre_hooks_with_kwargs,
            module._forward_hooks_with_kwargs, module._forward_hooks_always_called,
        ):
            registry.pop(key, None)
