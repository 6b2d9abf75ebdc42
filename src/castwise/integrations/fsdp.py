"""FSDP2 (``torch.distributed.fsdp.fully_shard``) under a castwise policy.

FSDP2 applies mixed precision per unit: a unit's parameters are all-gathered and used in one
``param_dtype``. castwise therefore makes every kept-fp32 module (norms by default) a unit of its
own that gathers in fp32, and lets everything else follow the policy. Gradients are reduced in
fp32 whenever the policy computes in 16 bits. FSDP2's mixed precision is per module, not per op
like autocast: under ``bf16-mixed`` the fp32 master weights are gathered as bf16 and every op of a
unit runs in bf16, kept modules in fp32. Nothing here depends on the backend or the number of
processes: the same code runs on CPU with gloo and on many GPUs across machines with NCCL.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import torch
from torch import nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard

from castwise.keep import kept_modules
from castwise.model import PrecisionModule
from castwise.model.boundary import ForwardBoundary
from castwise.model.wrapper import prepare_module
from castwise.policy import Policy, PolicyLike

__all__ = ["full_state_dict", "mixed_precision_policy", "shard"]


def mixed_precision_policy(policy: PolicyLike) -> MixedPrecisionPolicy:
    """The FSDP2 ``MixedPrecisionPolicy`` for a castwise policy's root unit."""
    policy = Policy.parse(policy)
    return MixedPrecisionPolicy(
        param_dtype=policy.compute_dtype,
        reduce_dtype=torch.float32 if policy.is_low_precision else None,
        output_dtype=policy.output_dtype,
        cast_forward_inputs=True,
    )


_KEPT_UNIT = MixedPrecisionPolicy(
    param_dtype=torch.float32, reduce_dtype=torch.float32, cast_forward_inputs=False
)
"""Kept modules gather and reduce in fp32; their fp32 forward upcasts inputs and restores outputs."""


def shard(
    model: nn.Module,
    policy: PolicyLike,
    units: Iterable[nn.Module] = (),
    **fully_shard_kwargs: Any,
) -> FSDPModule:
    """Apply ``policy`` to ``model`` and ``fully_shard`` it: kept-fp32 modules, then ``units``, then the root.

    ``units`` are extra modules to shard on their own (typically each transformer block);
    ``fully_shard_kwargs`` (``mesh``, ``reshard_after_forward``, ...) are passed to every call.
    The model is converted in place and returned, now an ``FSDPModule``.
    """
    if isinstance(model, PrecisionModule):
        raise TypeError(
            "shard() takes the plain model, not the result of cw.apply: it applies the policy "
            "itself (pass cw.unwrap(model))"
        )
    if "mp_policy" in fully_shard_kwargs:
        raise TypeError("shard() derives mp_policy from the castwise policy; do not pass mp_policy")
    policy = prepare_module(model, policy)
    inner = dataclasses.replace(mixed_precision_policy(policy), output_dtype=None)
    for _, module in kept_modules(model, policy.keep_fp32):
        fully_shard(module, mp_policy=_KEPT_UNIT, **fully_shard_kwargs)
    for module in units:
        if not isinstance(module, FSDPModule):
            fully_shard(module, mp_policy=inner, **fully_shard_kwargs)
    ForwardBoundary(model, policy, autocast=False).attach(model)
    return fully_shard(model, mp_policy=dataclasses.replace(inner, cast_forward_inputs=False), **fully_shard_kwargs)


def full_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    """Gather a sharded model's full state dict on CPU in rank 0 (other ranks get an empty dict).

    Tensors keep the dtype they are stored in (fp32 master weights under a mixed policy); pass the
    result to ``cw.save(..., dtype=...)`` to choose the storage dtype on disk. Call on every rank.
    """
    options = StateDictOptions(full_state_dict=True, cpu_offload=True)
    return get_model_state_dict(model, options=options)  # type: ignore[return-value]
