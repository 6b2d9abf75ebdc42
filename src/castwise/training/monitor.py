"""Precision health of a training run, sampled every N optimizer steps, with advice.

Usage in a plain loop::

    monitor = cw.PrecisionMonitor(model, optimizer, scaler=scaler, every=50)
    ...
    with monitor.observe():          # around the optimizer step
        scaler.step(optimizer)       # or optimizer.step()
    log(monitor.metrics)             # dict of floats for the latest sampled step
    print(monitor.summary())         # what went wrong where, and what to change

A sampled step costs one copy of the weights (and Kahan buffers) and a few reductions; the
other steps cost nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from castwise.policy import Policy, dtype_name
from castwise.training.health import BeforeStep, TensorHealth, after_step, before_step
from castwise.training.loss_scaler import LossScaler
from castwise.training.optimizers import StochasticRounding
from castwise.training.rounding import LOW_PRECISION
from castwise.training.state_precision import KAHAN_KEY

SWAMPING_WARNING = 0.05
"""Fraction of updates rounded away above which the summary tells you to act."""
UNDERFLOW_WARNING = 0.01
"""Fraction of gradients underflowing above which the summary tells you to act."""


@dataclass
class _Totals:
    """Counters for one module over all sampled steps."""

    dtype: torch.dtype
    intended: int = 0
    swamped: int = 0
    deferred: int = 0
    gradients: int = 0
    underflow: int = 0
    nonfinite_weights: int = 0

    def add(self, health: TensorHealth) -> None:
        self.intended += health.intended
        self.swamped += health.swamped
        self.deferred += health.deferred
        self.gradients += health.gradients
        self.underflow += health.underflow
        self.nonfinite_weights += health.nonfinite_weights


class PrecisionMonitor:
    """Watches optimizer steps for swamped updates, gradient underflow, overflow and loss scale."""

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        *,
        scaler: LossScaler | None = None,
        every: int = 1,
        dtype: torch.dtype | None = None,
    ) -> None:
        if not isinstance(model, nn.Module):
            raise TypeError(f"PrecisionMonitor watches an nn.Module, got {type(model).__name__}")
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"PrecisionMonitor needs a torch optimizer, got {type(optimizer).__name__}")
        if scaler is not None and not isinstance(scaler, LossScaler):
            raise TypeError(f"scaler must be a castwise LossScaler, got {type(scaler).__name__}")
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a positive int, got {every!r}")
        if dtype is not None and dtype not in LOW_PRECISION:
            raise ValueError(f"dtype is the 16-bit dtype to check underflow against (bf16 or fp16), got {dtype}")
        self.optimizer = optimizer
        self.scaler = scaler
        self.every = every
        self.underflow_dtype = dtype or _fp16_in_use(model)
        self.steps = 0
        self.samples = 0
        self.history: list[dict[str, float]] = []
        self._names = {id(p): name for name, p in _unwrapped(model)[0].named_parameters()}
        self._latest: dict[str, TensorHealth] = {}
        self._totals: dict[str, _Totals] = {}

    @contextlib.contextmanager
    def observe(self) -> Iterator[None]:
        """Measure the optimizer step run inside this block (every ``every``-th call)."""
        sampled = self.steps % self.every == 0
        self.steps += 1
        if not sampled:
            yield
            return
        befores = self._before_step()
        yield
        if self.scaler is not None and self.scaler.last_step_skipped:
            return
        self._after_step(befores)

    @property
    def metrics(self) -> dict[str, float]:
        """The latest sampled step's figures, all floats (ready for any logger)."""
        healths = list(self._latest.values())
        intended = sum(h.intended for h in healths)
        gradients = sum(h.gradients for h in healths)
        held = [h for h in healths if h.compensation_ulp]
        return {
            "step": float(self.steps),
            "swamping_rate": _ratio(sum(h.swamped for h in healths), intended),
            "deferred_rate": _ratio(sum(h.deferred for h in healths), intended),
            "update_ulp_median": _weighted_median([(h.update_ulp, h.intended) for h in healths]),
            "compensation_ulp": _ratio(sum(h.compensation_ulp * h.numel for h in held), sum(h.numel for h in held)),
            "grad_underflow": _ratio(sum(h.underflow for h in healths), gradients),
            "nonfinite_grads": float(sum(h.nonfinite_grads for h in healths)),
            "nonfinite_weights": float(sum(h.nonfinite_weights for h in healths)),
            "loss_scale": self.scaler.get_scale() if self.scaler else 1.0,
            "skipped_steps": float(self.scaler.skipped_steps if self.scaler else 0),
        }

    def per_parameter(self) -> dict[str, TensorHealth]:
        """The latest sampled step, per weight tensor by name."""
        return dict(self._latest)

    def summary(self, top: int = 3) -> str:
        """A readable account of every sampled step so far: what went wrong where, and what to do."""
        lines = [self._headline()]
        totals = self._totals
        swamped = _worst(totals, lambda t: _ratio(t.swamped, t.intended), SWAMPING_WARNING, top)
        lines += _swamping_advice([(module, totals[module].dtype, rate) for module, rate in swamped])
        deferred = _worst(totals, lambda t: _ratio(t.deferred, t.intended), SWAMPING_WARNING, top)
        if deferred:
            lines.append(_deferred_note(deferred))
        underflow = _worst(totals, lambda t: _ratio(t.underflow, t.gradients), UNDERFLOW_WARNING, top)
        lines += [self._underflow_advice(module, rate) for module, rate in underflow]
        broken = [module for module, t in totals.items() if t.nonfinite_weights]
        if broken:
            lines.append(
                f"! inf/nan reached the weights of {', '.join(broken[:top])}: skip non-finite steps "
                "with cw.LossScaler, lower the learning rate, or keep those layers in fp32"
            )
        lines += self._overflow_advice()
        if len(lines) == 1:
            lines.append("ok: no swamped updates, gradient underflow or overflow seen")
        return "\n".join(lines)

    def _before_step(self) -> dict[Tensor, BeforeStep]:
        factor = 1.0
        if self.scaler is not None:
            factor = self.scaler.get_scale() / self.scaler.grad_scale(self.optimizer)
        return {
            param: before_step(param, self._compensation(param), self.underflow_dtype, factor)
            for param in self._stepped_params()
        }

    def _after_step(self, befores: dict[Tensor, BeforeStep]) -> None:
        stochastic = isinstance(self.optimizer, StochasticRounding)
        self._latest = {}
        for param, before in befores.items():
            name = self._names.get(id(param), f"param{len(self._latest)}")
            rounds_stochastically = stochastic and param.dtype == torch.bfloat16
            health = after_step(name, param, before, self._compensation(param), rounds_stochastically)
            self._latest[name] = health
            module = name.rpartition(".")[0] or name
            self._totals.setdefault(module, _Totals(health.dtype)).add(health)
        self.samples += 1
        self.history.append(self.metrics)

    def _stepped_params(self) -> Iterator[Tensor]:
        for group in self.optimizer.param_groups:
            for param in group["params"]:
                if param.grad is not None:
                    yield param

    def _compensation(self, param: Tensor) -> Tensor | None:
        held = self.optimizer.state.get(param, {}).get(KAHAN_KEY)
        return held if isinstance(held, Tensor) and held.shape == param.shape else None

    def _headline(self) -> str:
        text = f"castwise precision health: {self.steps} steps, {self.samples} sampled"
        if self.scaler is not None and self.scaler.enabled:
            text += f", loss scale {self.scaler.get_scale():g}"
        return text

    def _underflow_advice(self, module: str, rate: float) -> str:
        scale = self.scaler.get_scale() if self.scaler else 1.0
        cure = (
            "raise the scaler's init_scale or keep the layer in fp32"
            if self.scaler is not None and self.scaler.enabled
            else "use dynamic loss scaling (cw.LossScaler('16-mixed')) or bf16"
        )
        low = dtype_name(self.underflow_dtype or torch.float16)
        return f"! {rate:.0%} of gradients to {module} underflow in {low} at loss scale {scale:g}: " + cure

    def _overflow_advice(self) -> list[str]:
        if self.scaler is None or not self.scaler.skipped_steps:
            return []
        skipped = self.scaler.skipped_steps
        scale = self.scaler.get_scale()
        line = f"  {skipped} of {self.steps} steps skipped for inf/nan gradients (loss scale {scale:g})"
        if skipped > max(10, self.steps // 20):
            line = (
                f"!{line[1:]}: persistent overflow means values beyond fp16's 65504; keep the "
                "overflowing layers in fp32 or train in bf16"
            )
        return [line]


def _unwrapped(model: nn.Module) -> tuple[nn.Module, Policy | None]:
    """The module inside a castwise wrapper (one with a ``policy`` and a ``module``) and its
    policy; any other module as it is (training does not import castwise.model)."""
    policy = getattr(model, "policy", None)
    inner = getattr(model, "module", None)
    if isinstance(policy, Policy) and isinstance(inner, nn.Module):
        return _unwrapped(inner)[0], policy
    return model, None


def _fp16_in_use(model: nn.Module) -> torch.dtype | None:
    dtypes = {p.dtype for p in model.parameters()}
    _, policy = _unwrapped(model)
    if policy is not None:
        dtypes |= {policy.param_dtype, policy.compute_dtype}
    return torch.float16 if torch.float16 in dtypes else None


def _swamping_advice(swamped: list[tuple[str, torch.dtype, float]]) -> list[str]:
    lines = [
        f"! {rate:.0%} of updates to {module} ({dtype_name(dtype)}) are rounded away" for module, dtype, rate in swamped
    ]
    low = [module for module, dtype, _ in swamped if dtype in LOW_PRECISION]
    if low:
        lines.append(
            "  fix: Kahan summation (cw.make_optimizer(..., updates='kahan')), stochastic rounding "
            f"(updates='stochastic'), or keep them in fp32 (keep_fp32={low!r})"
        )
    if len(low) < len(swamped):
        lines.append(
            "  fp32 weights too: updates are tiny next to them; check the learning rate and the gradient scale"
        )
    return lines


def _deferred_note(deferred: list[tuple[str, float]]) -> str:
    held = ", ".join(f"{rate:.0%} to {module}" for module, rate in deferred)
    return (
        f"  updates below half an ulp ({held}) are carried by Kahan compensation or stochastic "
        "rounding: no action needed"
    )


def _worst(
    totals: dict[str, _Totals], rate_of: Callable[[_Totals], float], threshold: float, top: int
) -> list[tuple[str, float]]:
    rates = [(module, rate_of(t)) for module, t in totals.items()]
    return sorted((r for r in rates if r[1] >= threshold), key=lambda r: -r[1])[:top]


def _ratio(count: float, of: float) -> float:
    return float(count) / of if of else 0.0


def _weighted_median(values: list[tuple[float, int]]) -> float:
    values = sorted(v for v in values if v[1])
    total = sum(weight for _, weight in values)
    running = 0
    for value, weight in values:
        running += weight
        if running * 2 >= total:
            return value
    return 0.0
