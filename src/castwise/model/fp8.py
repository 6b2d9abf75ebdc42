"""fp8 policies: which Linears go to fp8, swapping them for torchao's float8 training linears.

A policy with ``fp8`` set runs as its 16-bit counterpart does, and its eligible ``nn.Linear``
layers become torchao ``Float8Linear`` (dynamic scales, ``tensorwise`` or ``rowwise``). The
swap is in place and shares the original ``Parameter`` objects, so ``state_dict`` keys and dtypes,
optimizers and checkpoints are those of the original model. A Linear is kept out, with its
reason reported, when it is kept in fp32, when the policy's ``fp8_keep_out`` names it (by default
the first and last Linear and MoE routers), or when fp8 matmul kernels cannot take its shape.
Routers and fused experts that are not Linears stay in the 16-bit compute dtype and are reported.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import ModuleType

import torch
from torch import nn

from castwise.keep import kept_modules
from castwise.policy import Policy

FP8_DIM_MULTIPLE = 16
"""fp8 matmuls (``torch._scaled_mm``) need both Linear dimensions divisible by this."""

_POSITIONS = {"@first": "first Linear", "@last": "last Linear (e.g. an LM head)"}
_DEFAULT_GLOB_MEANING = {"*Router": "MoE router", "*Gate": "MoE router/gate"}
_FLOAT8_LINEAR_MODULE = "torchao.float8.float8_linear"
_MIN_CUDA_CAPABILITY = (8, 9)
_MIN_ROCM_CAPABILITY = (9, 4)


@dataclass(frozen=True)
class Fp8Plan:
    """Which Linears of a model run in fp8 under a policy, and why each of the others does not."""

    recipe: str
    converted: tuple[str, ...]
    kept_out: tuple[tuple[str, str], ...]
    """(module name, reason), in module order, for each Linear that stays out of fp8 and for the
    modules with matmul weights that are not Linears (routers, fused experts)."""

    def summary(self) -> str:
        """One line: how many Linears run in fp8 and what is kept out, with why."""
        kept = "; ".join(f"{name or '<model>'}: {reason}" for name, reason in self.kept_out) or "nothing"
        return f"fp8 ({self.recipe}): {len(self.converted)} Linears converted; kept out: {kept}"


def plan_fp8(model: nn.Module, policy: Policy) -> Fp8Plan:
    """Decide, without changing ``model``, which Linears ``policy`` puts in fp8 (see :class:`Fp8Plan`)."""
    if policy.fp8 is None:
        raise ValueError(f"policy {policy} has no fp8 recipe; use e.g. 'fp8-mixed'")
    linears = [(name, m) for name, m in model.named_modules() if isinstance(m, nn.Linear)]
    reasons = _kept_out_reasons(model, policy, linears)
    converted = tuple(name for name, _ in linears if name not in reasons)
    order = {name: index for index, (name, _) in enumerate(model.named_modules())}
    return Fp8Plan(policy.fp8, converted, tuple(sorted(reasons.items(), key=lambda item: order[item[0]])))


def _kept_out_reasons(model: nn.Module, policy: Policy, linears: list[tuple[str, nn.Linear]]) -> dict[str, str]:
    """name -> reason for what stays out; the first rule that applies wins: kept in fp32, then
    ``fp8_keep_out`` in its order, then dimensions the fp8 kernels cannot take."""
    reasons: dict[str, str] = {}
    for root_name, root in kept_modules(model, policy.keep_fp32):
        for name in _linears_under(root_name, root):
            reasons.setdefault(name, "kept in fp32 (keep_fp32)")
    for entry in policy.fp8_keep_out:
        if entry in _POSITIONS:
            if linears:
                name = linears[0 if entry == "@first" else -1][0]
                reasons.setdefault(name, f"{_POSITIONS[entry]} (fp8_keep_out {entry!r})")
            continue
        meaning = _DEFAULT_GLOB_MEANING.get(entry, "kept out")
        for root_name, root in kept_modules(model, (entry,)):
            for name in _linears_under(root_name, root) or _if_owns_weights(root_name, root):
                reasons.setdefault(name, f"{meaning} (fp8_keep_out {entry!r})")
    for name, module in model.named_modules():
        if _owns_fused_weights(module):
            reasons.setdefault(name, "weights of 3 dims in a module that is not an nn.Linear (e.g. fused MoE "
                               "experts): torchao's float8 training converts nn.Linear only")
    for name, linear in linears:
        if name == "":
            reasons.setdefault(name, "the model itself is a Linear; fp8 conversion is in place, wrap it")
        elif linear.in_features % FP8_DIM_MULTIPLE or linear.out_features % FP8_DIM_MULTIPLE:
            shape = f"{linear.in_features}->{linear.out_features}"
            reasons.setdefault(name, f"features {shape} not divisible by {FP8_DIM_MULTIPLE} (fp8 matmul kernels)")
    return reasons


def _linears_under(root_name: str, root: nn.Module) -> list[str]:
    prefix = root_name + "." if root_name else ""
    return [prefix + name if name else root_name for name, m in root.named_modules() if isinstance(m, nn.Linear)]


def _if_owns_weights(root_name: str, root: nn.Module) -> list[str]:
    """A kept-out module with matmul weights but no Linear (e.g. a router with its own weight)."""
    return [root_name] if any(p.dim() >= 2 for p in root.parameters()) else []


def _owns_fused_weights(module: nn.Module) -> bool:
    if isinstance(module, (nn.Linear, nn.modules.conv._ConvNd)):
        return False
    return any(p.dim() == 3 and p.is_floating_point() for p in module.parameters(recurse=False))


def fp8_supported(capability: tuple[int, int], rocm: bool = False) -> bool:
    """True when a GPU of this compute capability runs fp8 matmuls (CUDA sm89+, ROCm gfx94x+)."""
    return tuple(capability) >= (_MIN_ROCM_CAPABILITY if rocm else _MIN_CUDA_CAPABILITY)


def check_fp8_device(policy: Policy, device_type: str, capability: tuple[int, int] | None = None) -> None:
    """Raise if ``policy``'s fp8 matmuls cannot run on ``device_type`` (a CUDA GPU's ``capability``
    is read from the current device when not given). CPU runs them (numerics, not speed)."""
    if policy.fp8 is None or device_type in ("cpu", "meta"):
        return
    if device_type != "cuda":
        raise RuntimeError(
            f"policy {policy} needs fp8 matmuls, which castwise runs on CUDA sm89+ GPUs and on CPU, "
            f"not on {device_type}; use 'bf16-mixed'"
        )
    rocm = torch.version.hip is not None
    capability = capability or torch.cuda.get_device_capability()
    if not fp8_supported(capability, rocm):
        gpu = f"sm{capability[0]}{capability[1]}"
        need = "an MI300-class GPU (gfx94x+)" if rocm else "sm89+ (L4, L40, H100, H200, B200)"
        raise RuntimeError(
            f"policy {policy} needs fp8 matmuls, which this GPU ({gpu}) does not have: fp8 needs "
            f"{need}; use 'bf16-mixed' on this GPU"
        )


def convert_fp8(model: nn.Module, policy: Policy) -> Fp8Plan | None:
    """Swap the Linears ``policy`` puts in fp8 for torchao float8 training linears, in place.

    Linears an earlier fp8 policy converted are swapped back first, so re-applying a policy
    without fp8 leaves no fp8 layer behind. Checks torchao and the device before changing anything.
    """
    if policy.fp8 is None:
        restore_linears(model)
        return None
    float8 = _import_float8(policy)
    check_fp8_device(policy, next((p.device.type for p in model.parameters()), "cpu"))
    restore_linears(model)
    plan = plan_fp8(model, policy)
    chosen = set(plan.converted)
    training = {name: model.get_submodule(name).training for name in chosen}
    config = float8.Float8LinearConfig.from_recipe_name(policy.fp8)
    float8.convert_to_float8_training(model, module_filter_fn=lambda _, fqn: fqn in chosen, config=config)
    for name, mode in training.items():
        model.get_submodule(name).train(mode)
    return plan


def restore_linears(model: nn.Module) -> None:
    """Swap every torchao float8 training linear in ``model`` back for a plain ``nn.Linear``
    holding the same parameters."""
    float8_linear = sys.modules.get(_FLOAT8_LINEAR_MODULE)
    if float8_linear is None:
        return
    for name, module in list(model.named_modules()):
        if isinstance(module, float8_linear.Float8Linear) and name:
            parent_name, _, child = name.rpartition(".")
            setattr(model.get_submodule(parent_name), child, _plain_linear(module))


def _plain_linear(module: nn.Linear) -> nn.Linear:
    with torch.device("meta"):
        linear = nn.Linear(module.in_features, module.out_features, bias=False)
    linear.weight = module.weight
    linear.bias = module.bias
    return linear.train(module.training)


def _import_float8(policy: Policy) -> ModuleType:
    try:
        import torchao.float8 as float8
    except ImportError as exc:
        raise ImportError(
            f"policy {policy} needs torchao for its fp8 linears: pip install 'castwise[fp8]' "
            f"(or torchao>=0.18)"
        ) from exc
    return float8
