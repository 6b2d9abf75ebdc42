"""The module wrapper that applies a policy: ``cw.apply`` and ``cw.unwrap``."""

from __future__ import annotations

import inspect
from typing import Any

from torch import nn

from castwise.keep import declared_fp32_globs
from castwise.model.boundary import ForwardBoundary
from castwise.model.convert import convert_parameters
from castwise.model.fp8 import Fp8Plan, convert_fp8, plan_fp8
from castwise.model.keep_fp32 import attach_fp32_compute
from castwise.policy import Policy, PolicyLike

_INNER = "module"


class PrecisionModule(nn.Module):
    """Runs the wrapped module under a policy: input casting, autocast, pitfall guards, output dtype.

    ``state_dict()`` keys are the inner module's (no prefix), so checkpoints are interchangeable
    with the unwrapped model. Attributes the wrapper lacks are looked up on the inner module:
    its methods (``encode_image``, ``generate``, ...) come back running under the policy exactly
    as ``forward`` does; the hub's model-management methods (``save_pretrained``, ...) and anything
    else (parameters, submodules, config, properties' values) as they are. ``cw.unwrap(model)``
    gives the inner module itself, whose methods run as written.
    """

    __castwise_wrapper__ = True  # checkpoint/ unwraps by this marker without importing model/

    def __init__(self, module: nn.Module, policy: Policy) -> None:
        super().__init__()
        self.module = module
        self.policy = policy
        self.training = module.training  # cw.apply(model.eval()) is in eval mode, like the model it wraps
        self._boundary = ForwardBoundary(module, policy)
        self.register_state_dict_post_hook(_strip_inner_prefix)
        self.register_load_state_dict_pre_hook(_add_inner_prefix)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._boundary.run(self._inner(), args, kwargs)

    def _inner(self) -> nn.Module:
        return self._modules[_INNER]  # type: ignore[return-value]

    @property
    def fp8_report(self) -> Fp8Plan | None:
        """Which Linears run in fp8 and why the others do not (None when the policy has no fp8)."""
        return plan_fp8(unwrap(self), self.policy) if self.policy.fp8 else None

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            modules = self.__dict__.get("_modules", {})
            if name == _INNER or _INNER not in modules:
                raise
            inner = modules[_INNER]
            found = getattr(inner, name)
            if inspect.ismethod(found) and found.__self__ is inner and _is_entry_point(inner, name):
                return self._boundary.entry(found)
            return found

    def extra_repr(self) -> str:
        return f"policy={self.policy}"


_MANAGING_MODULES = (
    "transformers.modeling_utils", "transformers.integrations.", "transformers.utils.", "huggingface_hub.",
)
"""Where the hub's base classes define the methods that manage a model rather than run it
(``save_pretrained``, ``push_to_hub``, ``resize_token_embeddings``, ``load_adapter``)."""


def _is_entry_point(inner: object, name: str) -> bool:
    """Whether the method ``name`` of ``inner`` runs the model: not one of Python's protocol names
    (``__deepcopy__``, ...) and not a hub base class's management method, which must see tensors as
    they are (``save_pretrained(state_dict=...)`` under a -true policy would otherwise cast them)."""
    if name.startswith("__") and name.endswith("__"):
        return False
    owner = next((cls for cls in type(inner).__mro__ if name in vars(cls)), None)
    return owner is None or not owner.__module__.startswith(_MANAGING_MODULES)


def _strip_inner_prefix(module: nn.Module, state_dict: dict, prefix: str, local_metadata: dict) -> None:
    inner = prefix + _INNER + "."
    for key in [k for k in state_dict if k.startswith(inner)]:
        state_dict[prefix + key[len(inner):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in [k for k in metadata if k == prefix + _INNER or k.startswith(inner)]:
            new_key = prefix[:-1] if key == prefix + _INNER else prefix + key[len(inner):]
            metadata[new_key] = metadata.pop(key)


def _add_inner_prefix(module: nn.Module, state_dict: dict, prefix: str, *_: Any) -> None:
    inner = prefix + _INNER + "."
    for key in [k for k in state_dict if k.startswith(prefix) and not k.startswith(inner)]:
        state_dict[inner + key[len(prefix):]] = state_dict.pop(key)


def model_policy(model: nn.Module, policy: PolicyLike) -> Policy:
    """``policy`` with the modules ``model`` itself declares fp32 (transformers') added to keep_fp32."""
    policy = Policy.parse(policy)
    return policy.replace(keep_fp32=policy.keep_fp32 + _declared_fp32_globs(model, policy))


def _declared_fp32_globs(model: nn.Module, policy: Policy) -> tuple[str, ...]:
    """Name globs for what a model itself says must stay fp32 (transformers' ``_keep_in_fp32_modules``)."""
    if not policy.is_low_precision:
        return ()
    return tuple(g for g in declared_fp32_globs(model) if g not in policy.keep_fp32)


def unwrap(model: nn.Module) -> nn.Module:
    """The original module inside a castwise wrapper (the same object); other modules as they are."""
    while isinstance(model, PrecisionModule):
        model = model.module
    return model


def prepare_module(model: nn.Module, policy: PolicyLike) -> Policy:
    """Convert ``model``'s parameters in place and hook its kept-fp32 modules; returns the policy
    in effect (with the modules the model declares fp32). For plugins that keep the model itself."""
    policy = model_policy(model, policy)
    convert_fp8(model, policy)
    convert_parameters(model, policy)
    attach_fp32_compute(model, policy)
    return policy


def apply(model: nn.Module, policy: PolicyLike) -> PrecisionModule:
    """Apply ``policy`` to ``model``: convert its parameters and return a wrapper that runs it.

    Kept-fp32 modules stay fp32 and compute in fp32. Applying to a wrapped model re-applies to
    the original (no double wrapping).
    """
    policy = Policy.parse(policy)
    inner = unwrap(model)
    if not isinstance(inner, nn.Module):
        raise TypeError(f"cw.apply expects a torch.nn.Module, got {type(inner).__name__}")
    wrapper = PrecisionModule(inner, prepare_module(inner, policy))
    wrapper._boundary.check_parameters_device()
    return wrapper
