"""MoE routing: how many tokens a top-k router sends to other experts under a policy than under fp32.

A router is a module with an integer ``top_k`` (or ``num_experts_per_tok``): either a leaf module that
returns the chosen expert indices (transformers 5's ``MixtralTopKRouter``) or the logits, or a block
whose child ``gate``/``router`` returns the logits they are chosen from (transformers 4's Mixtral block).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from torch import nn

from castwise.doctor.measure.runner import Call, prepare, seeded
from castwise.doctor.measure.trace import cuda_devices, floating_tensors, integer_tensors
from castwise.doctor.report.data import Routing
from castwise.model import unwrap
from castwise.policy import Policy

ROUTING_WARNING = 0.03
"""Above this fraction of changed token choices, the doctor recommends keeping routers in fp32."""
_TOP_K_NAMES = ("top_k", "num_experts_per_tok")
_GATE_NAMES = ("gate", "router")

Choices = dict[str, list[torch.Tensor]]
"""Per router name, the sorted expert indices of every call."""


def _top_k(module: nn.Module) -> int | None:
    for name in _TOP_K_NAMES:
        value = getattr(module, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def find_routers(model: nn.Module) -> dict[str, tuple[nn.Module, int]]:
    """The modules to watch, by name, each with its top-k: leaf routers, or the gates of MoE blocks."""
    found: dict[str, tuple[nn.Module, int]] = {}
    for name, module in model.named_modules():
        k = _top_k(module)
        if k is None:
            continue
        gate = next((g for g in _GATE_NAMES if isinstance(getattr(module, g, None), nn.Module)), None)
        if gate is None and not module._modules:
            found[name] = (module, k)
        elif gate is not None and _top_k(getattr(module, gate)) is None:
            found[f"{name}.{gate}" if name else gate] = (getattr(module, gate), k)
    return found


def router_globs(routers: dict[str, tuple[nn.Module, int]]) -> tuple[str, ...]:
    """``keep_fp32`` globs that keep exactly these routers: their class names when those name a router
    (``MixtralTopKRouter``), else their module names (a gate that is a plain ``Linear``)."""
    classes = list(dict.fromkeys(type(module).__name__ for module, _ in routers.values()))
    if all(any(word in c.lower() for word in _GATE_NAMES) for c in classes):
        return tuple(classes)
    return tuple(routers)


def _choices(output: Any, k: int) -> torch.Tensor | None:
    """The chosen experts per token, sorted, as a (tokens, k) tensor."""
    integers = [t for t in integer_tensors(output) if t.shape[-1:] == (k,)]
    if integers:
        chosen = integers[0]
    else:
        logits = floating_tensors(output)
        if not logits:
            return None
        chosen = logits[0].float().topk(k, dim=-1).indices
    return chosen.reshape(-1, k).sort(dim=-1).values.cpu()


@contextlib.contextmanager
def _recording(model: nn.Module) -> Iterator[Choices]:
    recorded: Choices = {}
    handles = []
    for name, (module, k) in find_routers(model).items():
        def hook(_: nn.Module, __: Any, output: Any, name: str = name, k: int = k) -> None:
            choices = _choices(output, k)
            if choices is not None:
                recorded.setdefault(name, []).append(choices)
        handles.append(module.register_forward_hook(hook))
    try:
        yield recorded
    finally:
        for handle in handles:
            handle.remove()


def route(model: nn.Module, policy: Policy, call: Call, seed: int = 0) -> Choices | None:
    """The experts every router chose in one eval forward under ``policy``; None if it raised."""
    wrapped = prepare(model, policy)
    wrapped.eval()
    with _recording(unwrap(wrapped)) as recorded, torch.no_grad(), seeded(seed, cuda_devices(wrapped)):
        try:
            wrapped(*call.args, **call.kwargs)
        except Exception:  # a policy that raises is reported by the main runs, not here
            return None
    return recorded


def changed_choices(reference: Choices, candidate: Choices) -> tuple[int, int]:
    """(token choices compared, token choices that differ) over every router call."""
    tokens = changed = 0
    for name, calls in reference.items():
        for expected, got in zip(calls, candidate.get(name, [])):
            if expected.shape == got.shape:
                tokens += expected.shape[0]
                changed += int((expected != got).any(dim=-1).sum())
    return tokens, changed


def routing_report(model: nn.Module, call: Call, policies: Sequence[Policy], seed: int = 0) -> list[Routing] | None:
    """Per low-precision policy, how many token choices change against fp32; None without routers."""
    source = unwrap(model)
    routers = find_routers(source)
    if not routers:
        return None
    reference = route(source, Policy.parse("32-true"), call, seed)
    if reference is None:
        return None
    results = []
    for policy in (p for p in policies if p.is_low_precision):
        candidate = route(source, policy, call, seed)
        if candidate is None:
            continue
        tokens, changed = changed_choices(reference, candidate)
        entry = Routing(str(policy), list(routers), tokens, changed)
        if tokens and changed / tokens > ROUTING_WARNING:
            kept = policy.replace(keep_fp32=policy.keep_fp32 + router_globs(routers))
            again = route(source, kept, call, seed)
            if again is not None:
                entry.keep_policy, entry.changed_kept = str(kept), changed_choices(reference, again)[1]
        results.append(entry)
    return results
