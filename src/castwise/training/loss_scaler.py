"""Dynamic loss scaling for fp16, driven by the policy, with its state part of a checkpoint.

The recipe is torch's GradScaler's (start at 65536, double after ``growth_interval`` clean
steps, halve and skip the step when a gradient is inf/nan), written for any device and for
any optimizer, with GradScaler's public methods and a state dict that each of the two reads.
Gradients are unscaled and checked for inf/nan by one fused call per device and dtype (torch's
own kernel), with one device sync per step. fp16 gradients are unscaled in place, which
flushes values below 6e-8 to zero: :func:`castwise.make_optimizer` gives fp16 weights fp32
gradients (``param.grad_dtype``) so that ``16-true`` unscales into fp32. Usage in a plain loop::

    scaler = cw.LossScaler(policy)          # "dynamic" for 16-mixed/16-true, "none" for bf16
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)              # optional: before clipping gradients
    scaler.step(optimizer)                  # False when the step was skipped
    scaler.update()
"""

from __future__ import annotations

import difflib
import enum
import math
import warnings
from typing import Any, TypeVar

import torch
from torch import Tensor

from castwise.policy import Policy, PolicyLike

MODES: tuple[str, ...] = ("dynamic", "none")
_STATE_KEYS = ("scale", "growth_factor", "backoff_factor", "growth_interval", "growth_tracker")
_FP16_IN_PLACE = (
    "LossScaler is unscaling fp16 gradients in place, which flushes values below 6e-8 to zero; "
    "build the optimizer with cw.make_optimizer (fp32 gradients for fp16 weights) or set "
    "param.grad_dtype = torch.float32 before backward"
)


_Losses = TypeVar("_Losses", Tensor, list[Tensor], tuple[Tensor, ...])


class _Stage(enum.Enum):
    READY = "ready"
    UNSCALED = "unscaled"
    STEPPED = "stepped"


class LossScaler:
    """Scales the loss so fp16 gradients don't underflow; skips steps whose gradients overflow."""

    def __init__(
        self,
        policy: PolicyLike | None = None,
        *,
        mode: str | None = None,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
    ) -> None:
        if mode is None:
            mode = Policy.parse(policy).loss_scaling if policy is not None else "dynamic"
        self.mode = _check_mode(mode)
        _check_factors(init_scale, growth_factor, backoff_factor, growth_interval)
        self._scale = float(init_scale)
        self.growth_factor = float(growth_factor)
        self.backoff_factor = float(backoff_factor)
        self.growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._skipped_steps = 0
        self._last_step_skipped = False
        self._stages: dict[int, tuple[_Stage, bool]] = {}
        self._warned_fp16 = False

    @property
    def enabled(self) -> bool:
        """True when the loss is scaled (mode ``dynamic``)."""
        return self.mode == "dynamic"

    def is_enabled(self) -> bool:
        """GradScaler's name for :attr:`enabled`."""
        return self.enabled

    def get_growth_factor(self) -> float:
        """The factor the scale grows by after ``growth_interval`` clean steps."""
        return self.growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Change the growth factor (> 1)."""
        _check_factors(self._scale, new_factor, self.backoff_factor, self.growth_interval)
        self.growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        """The factor the scale shrinks by after an inf/nan gradient."""
        return self.backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Change the backoff factor (between 0 and 1)."""
        _check_factors(self._scale, self.growth_factor, new_factor, self.growth_interval)
        self.backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        """How many clean steps in a row grow the scale."""
        return self.growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Change the growth interval (a positive int)."""
        _check_factors(self._scale, self.growth_factor, self.backoff_factor, new_interval)
        self.growth_interval = new_interval

    @property
    def skipped_steps(self) -> int:
        """How many optimizer steps were skipped for inf/nan gradients so far."""
        return self._skipped_steps

    @property
    def last_step_skipped(self) -> bool:
        """True when the most recent :meth:`step` skipped the optimizer step."""
        return self._last_step_skipped

    def get_scale(self) -> float:
        """The current loss scale (1.0 when disabled)."""
        return self._scale if self.enabled else 1.0

    def grad_scale(self, optimizer: torch.optim.Optimizer) -> float:
        """The factor the optimizer's gradients carry now: the scale before :meth:`unscale_`, else 1."""
        stage, _ = self._stages.get(id(optimizer), (_Stage.READY, False))
        return self.get_scale() if stage is _Stage.READY else 1.0

    def scale(self, loss: _Losses) -> _Losses:
        """The loss times the current scale, in at least fp32 (unchanged when disabled); a list or
        tuple of losses gives one of the same kind, like GradScaler."""
        if isinstance(loss, (list, tuple)):
            return type(loss)(self.scale(item) for item in loss)
        if not isinstance(loss, Tensor):
            raise TypeError(f"LossScaler.scale takes the loss tensor, got {type(loss).__name__}")
        if not self.enabled:
            return loss
        return loss.to(torch.promote_types(loss.dtype, torch.float32)) * self._scale

    def unscale_(self, optimizer: torch.optim.Optimizer) -> None:
        """Divide the optimizer's gradients by the scale in place and note any inf/nan."""
        if not self.enabled:
            return
        stage, _ = self._stages.get(id(optimizer), (_Stage.READY, False))
        if stage is _Stage.UNSCALED:
            raise RuntimeError("unscale_() was already called on this optimizer since the last update()")
        if stage is _Stage.STEPPED:
            raise RuntimeError("unscale_() was called after step(); call update() first")
        groups = _gradients_by_device_and_dtype(optimizer)
        if not self._warned_fp16 and any(dtype == torch.float16 for _, dtype in groups):
            warnings.warn(_FP16_IN_PLACE, stacklevel=2)
            self._warned_fp16 = True
        found_inf = _unscale_gradients(groups, 1.0 / self._scale)
        self._stages[id(optimizer)] = (_Stage.UNSCALED, found_inf)

    def step(self, optimizer: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> bool:
        """Unscale if needed, then step unless a gradient was inf/nan; True if the optimizer stepped."""
        if not self.enabled:
            optimizer.step(*args, **kwargs)
            self._last_step_skipped = False
            return True
        if "closure" in kwargs or args:
            raise TypeError(
                "LossScaler.step does not take a closure: run forward and scale(loss).backward() "
                "first, then call step(optimizer)"
            )
        stage, _ = self._stages.get(id(optimizer), (_Stage.READY, False))
        if stage is _Stage.STEPPED:
            raise RuntimeError("step() was already called on this optimizer since the last update()")
        if stage is _Stage.READY:
            self.unscale_(optimizer)
        _, found_inf = self._stages[id(optimizer)]
        self._stages[id(optimizer)] = (_Stage.STEPPED, found_inf)
        self._last_step_skipped = found_inf
        if found_inf:
            self._skipped_steps += 1
            return False
        optimizer.step(**kwargs)
        return True

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Halve the scale after an inf/nan gradient; double it after ``growth_interval`` clean steps.

        ``new_scale`` sets the scale instead (GradScaler's override), keeping the growth tracker.
        """
        if not self.enabled:
            return
        if new_scale is not None:
            value = float(new_scale.item() if isinstance(new_scale, Tensor) else new_scale)
            _check_factors(value, self.growth_factor, self.backoff_factor, self.growth_interval, "new_scale")
            self._scale = value
            self._stages.clear()
            return
        if not self._stages:
            raise RuntimeError("update() was called before any unscale_() or step() this iteration")
        if any(found_inf for _, found_inf in self._stages.values()):
            self._scale = max(self._scale * self.backoff_factor, torch.finfo(torch.float32).tiny)
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self.growth_interval:
                self._scale = _grown(self._scale, self.growth_factor)
                self._growth_tracker = 0
        self._stages.clear()

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume: mode, scale, factors, growth tracker and skipped-step count.

        The growth tracker is also stored under GradScaler's key (``_growth_tracker``), so
        ``torch.amp.GradScaler.load_state_dict`` reads this dict.
        """
        return {
            "mode": self.mode,
            "scale": self._scale,
            "growth_factor": self.growth_factor,
            "backoff_factor": self.backoff_factor,
            "growth_interval": self.growth_interval,
            "growth_tracker": self._growth_tracker,
            "_growth_tracker": self._growth_tracker,
            "skipped_steps": self._skipped_steps,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from :meth:`state_dict` or from a ``torch.amp.GradScaler`` state dict (an empty
        one, from a disabled GradScaler, reads as mode ``none``)."""
        if not isinstance(state, dict):
            raise TypeError(f"load_state_dict takes a dict, got {type(state).__name__}")
        state = dict(state)
        if "_growth_tracker" in state:
            state.setdefault("growth_tracker", state.pop("_growth_tracker"))
        mode = state.get("mode", "dynamic" if state else "none")
        if mode != self.mode:
            warnings.warn(
                f"loss scaler state was saved in mode {mode!r} but this scaler is {self.mode!r}; "
                "keeping this scaler's fresh state",
                stacklevel=2,
            )
            return
        if not self.enabled:
            return
        missing = [key for key in _STATE_KEYS if key not in state]
        if missing:
            raise ValueError(f"loss scaler state is missing {', '.join(missing)}")
        _check_factors(
            state["scale"],
            state["growth_factor"],
            state["backoff_factor"],
            state["growth_interval"],
            "the state's scale",
        )
        self._scale = float(state["scale"])
        self.growth_factor = float(state["growth_factor"])
        self.backoff_factor = float(state["backoff_factor"])
        self.growth_interval = int(state["growth_interval"])
        self._growth_tracker = int(state["growth_tracker"])
        self._skipped_steps = int(state.get("skipped_steps", 0))

    def __repr__(self) -> str:
        if not self.enabled:
            return "LossScaler(mode='none')"
        skipped = self._skipped_steps
        return f"LossScaler(mode='dynamic', scale={self._scale:g}, skipped_steps={skipped})"


def _gradients_by_device_and_dtype(
    optimizer: torch.optim.Optimizer,
) -> dict[tuple[torch.device, torch.dtype], list[Tensor]]:
    groups: dict[tuple[torch.device, torch.dtype], list[Tensor]] = {}
    for group in optimizer.param_groups:
        for param in group["params"]:
            grad = param.grad
            if grad is not None:
                grad = grad._values() if grad.is_sparse else grad
                groups.setdefault((grad.device, grad.dtype), []).append(grad)
    return groups


def _unscale_gradients(groups: dict[tuple[torch.device, torch.dtype], list[Tensor]], inverse_scale: float) -> bool:
    """Multiply in place with one fused call per group; True if any gradient held inf/nan.

    The flags of all devices are summed on one device, so this syncs once."""
    found: dict[torch.device, Tensor] = {}
    inverse: dict[torch.device, Tensor] = {}
    for (device, _), grads in groups.items():
        if device not in found:
            found[device] = torch.zeros(1, dtype=torch.float32, device=device)
            inverse[device] = torch.full((1,), inverse_scale, dtype=torch.float32, device=device)
        torch._amp_foreach_non_finite_check_and_unscale_(grads, found[device], inverse[device])
    if not found:
        return False
    first = next(iter(found))
    return bool(torch.cat([flag.to(first) for flag in found.values()]).sum().item())


def _grown(scale: float, factor: float) -> float:
    grown = scale * factor
    return grown if math.isfinite(grown) and grown <= torch.finfo(torch.float32).max else scale


def _check_mode(mode: str) -> str:
    if mode in MODES:
        return mode
    close = difflib.get_close_matches(str(mode), MODES, n=1, cutoff=0.3)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown loss scaling mode {mode!r}.{hint} Valid modes: {', '.join(MODES)}")


def _check_factors(scale: float, growth: float, backoff: float, interval: int, scale_name: str = "init_scale") -> None:
    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"{scale_name} must be a positive finite number, got {scale!r}")
    if not growth > 1.0:
        raise ValueError(f"growth_factor must be > 1, got {growth!r}")
    if not 0.0 < backoff < 1.0:
        raise ValueError(f"backoff_factor must be between 0 and 1, got {backoff!r}")
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 1:
        raise ValueError(f"growth_interval must be a positive int, got {interval!r}")
