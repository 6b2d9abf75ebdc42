"""Accelerate with a castwise policy: castwise runs the precision, Accelerate the devices.

    accelerator = Accelerator(mixed_precision="no")        # castwise autocasts; Accelerate must not
    model, optimizer, loader = prepare(accelerator, model, optimizer, loader, policy="bf16-mixed")
    ...
    save_model(accelerator, model, "out", dtype="bf16")     # bf16 weights, kept modules fp32

Accelerate's own ``mixed_precision`` ("fp16", "bf16", "fp8") wraps the forward in its autocast
and casts the outputs to fp32; around a castwise policy that autocasts a second time and
overrides the policy's output dtype, so ``prepare`` requires ``mixed_precision="no"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch
from torch import nn

from castwise.checkpoint import CheckpointError, save
from castwise.integrations.storage import kept_fp32_modules, storage_policy
from castwise.model import apply, unwrap
from castwise.policy import PolicyLike

__all__ = ["check_mixed_precision", "prepare", "save_model"]

WEIGHTS_NAME = "model.safetensors"


def check_mixed_precision(accelerator: Any) -> None:
    """Refuse an Accelerator whose own mixed precision would autocast around castwise's."""
    mixed = accelerator.mixed_precision
    if mixed != "no":
        raise ValueError(
            f"Accelerator(mixed_precision={mixed!r}) autocasts the forward and casts outputs to fp32 "
            "itself; under a castwise policy that autocasts twice and overrides the policy's output "
            "dtype. Create Accelerator(mixed_precision='no') and let the policy decide (e.g. 'bf16-mixed')"
        )


def prepare(accelerator: Any, model: nn.Module, *objects: Any, policy: PolicyLike) -> Any:
    """``cw.apply(model, policy)`` then ``accelerator.prepare(model, *objects)``; returns what that does.

    Parameters are converted in place, so an optimizer built on ``model`` before still holds them.
    """
    check_mixed_precision(accelerator)
    return accelerator.prepare(apply(model, policy), *objects)


def save_model(
    accelerator: Any,
    model: nn.Module,
    path: str | Path,
    dtype: str | torch.dtype | None = None,
    keep_fp32: Iterable[str] | None = None,
    force: bool = False,
) -> Path | None:
    """Save ``model`` (prepared or not) into folder ``path`` from the main process, in storage
    ``dtype`` (default: the policy's param dtype) with kept modules fp32.

    A transformers model is written as a model folder by castwise's ``save_pretrained``, its
    ``config.json`` declaring ``dtype``; any other module as ``model.safetensors``. Every process
    must call it; the main process returns ``path``, the others None.
    """
    accelerator.wait_for_everyone()
    state = accelerator.get_state_dict(model)
    wrapper = accelerator.unwrap_model(model)
    if not accelerator.is_main_process:
        return None
    policy = storage_policy(wrapper, dtype)
    kept = tuple(keep_fp32) if keep_fp32 is not None else kept_fp32_modules(wrapper, policy)
    inner = unwrap(wrapper)
    if hasattr(inner, "config") and hasattr(inner, "save_pretrained"):
        from castwise.integrations.transformers import save_pretrained

        return save_pretrained(wrapper, path, dtype=policy.param_dtype, keep_fp32=kept, force=force, state_dict=state)
    path = Path(path)
    weights = path / WEIGHTS_NAME
    if weights.exists() and not force:
        raise CheckpointError(f"{weights} already exists; pass force=True to replace it")
    path.mkdir(parents=True, exist_ok=True)
    save(state, weights, dtype=policy.param_dtype, keep_fp32=kept)
    return path
