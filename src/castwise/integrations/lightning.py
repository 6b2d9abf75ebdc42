"""A Lightning precision plugin that applies a castwise policy, for both ``Trainer`` and ``Fabric``.

    trainer = L.Trainer(plugins=[CastwisePrecision("bf16-mixed")])
    fabric = L.Fabric(plugins=[CastwisePrecision("params=f32,compute=bf16,output=bf16")])

Differences from Lightning's own plugins, all on purpose:

* the model's forward hands back ``policy.output_dtype`` (float32 by default) in training *and*
  evaluation, for Trainer and Fabric alike; Fabric's own plugins always return float32 and the
  Trainer's return whatever autocast produced;
* kept-fp32 modules (norms by default, transformers' ``_keep_in_fp32_modules``) stay fp32 and
  compute in fp32 under every policy, ``-true`` ones included;
* torch's fused MHA/TransformerEncoder fast path is off under 16-bit math, so evaluation does not
  crash with ``expected scalar type Float but found BFloat16``;
* floating inputs are cast where the model's forward receives them, never the whole batch, so
  targets keep their dtype under ``-true`` policies;
* a method marked ``@forward_method`` runs under the policy like ``forward`` (casts and context),
  from a Trainer step, from Fabric (where ``mark_forward_method`` alone routes nothing on one
  device) or called directly; docs/integrations.md says what runs unmarked.

The plugin's loss-scaler state is saved in Lightning checkpoints and restored from them. The loss
scale and the steps skipped for overflow, and with ``monitor_every=N`` castwise's
``PrecisionMonitor`` figures (swamped updates, gradient underflow, non-finite values), are logged
as ``castwise/...`` through the Trainer's loggers; ``plugin.metrics()`` gives them to Fabric users.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch
from lightning.pytorch import LightningModule
from lightning.pytorch.plugins.precision import Precision
from torch import nn
from torch.optim import Optimizer
from torch.utils.hooks import RemovableHandle

from castwise.model import forward_method, init_module
from castwise.model.boundary import ForwardBoundary
from castwise.model.wrapper import prepare_module
from castwise.policy import Policy, PolicyLike
from castwise.training import LossScaler, PrecisionMonitor

__all__ = ["CastwisePrecision", "forward_method"]

_METRIC_PREFIX = "castwise/"
_SCALER_FIGURES = ("step", "loss_scale", "skipped_steps")


class CastwisePrecision(Precision):
    """Lightning precision plugin applying a castwise policy; pass it in ``plugins=[...]``."""

    def __init__(
        self, policy: PolicyLike = "bf16-mixed", device: str | None = None, monitor_every: int = 0
    ) -> None:
        if isinstance(monitor_every, bool) or not isinstance(monitor_every, int) or monitor_every < 0:
            raise ValueError(f"monitor_every is a number of optimizer steps (0: off), got {monitor_every!r}")
        self.policy = Policy.parse(policy)
        self.precision = _lightning_name(self.policy)  # type: ignore[assignment]
        self.device = device
        self.scaler = LossScaler(self.policy)
        self.monitor_every = monitor_every
        self._monitors: dict[int, PrecisionMonitor] = {}
        self._module: nn.Module | None = None
        self._boundary = ForwardBoundary(nn.Module(), self.policy)
        self._boundary_handles: list[RemovableHandle] = []

    def convert_module(self, module: nn.Module) -> nn.Module:
        """Convert parameters in place (kept modules fp32, computing in fp32) and cast at the forward."""
        self.policy = prepare_module(module, self.policy)
        self._module = module
        self._boundary = ForwardBoundary(module, self.policy)
        self._boundary.check_parameters_device()
        for handle in self._boundary_handles:
            handle.remove()
        self._boundary_handles = self._boundary.attach(module)
        return module

    def tensor_init_context(self) -> contextlib.AbstractContextManager:
        """Create tensors (``init_module``, ``init_tensor``) directly in the policy's storage dtype."""
        return init_module(self.policy)

    def module_init_context(self) -> contextlib.AbstractContextManager:
        return self.tensor_init_context()

    def forward_context(self) -> contextlib.AbstractContextManager:
        """Autocast when mixed, torch's MHA fast path off under 16-bit math, the matmul precision."""
        boundary = self._boundary
        return boundary.context(boundary.device_type(device=self.device))

    def pre_backward(self, tensor: torch.Tensor, module: Any) -> Any:
        return super().pre_backward(tensor, module) if _in_trainer(module) else tensor

    def backward(self, tensor: torch.Tensor, model: Any, *args: Any, **kwargs: Any) -> None:
        """Scale the loss when the policy scales losses, then run Trainer's or Fabric's backward."""
        tensor = self.scaler.scale(tensor)
        if _in_trainer(model):
            super().backward(tensor, model, *args, **kwargs)
        else:
            tensor.backward(*args, **kwargs)

    def post_backward(self, tensor: torch.Tensor, module: Any) -> Any:
        return super().post_backward(tensor, module) if _in_trainer(module) else tensor

    def optimizer_step(
        self,
        optimizer: Any,
        model: LightningModule | None = None,
        closure: Callable[[], Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Step through the loss scaler (and the health monitor); Trainer passes ``model`` and ``closure``."""
        if closure is None:
            return self._step(optimizer, **kwargs)
        if model is None:
            raise TypeError("optimizer_step with a closure needs the LightningModule (model=...)")
        if not self.scaler.enabled and not self.monitor_every:
            return super().optimizer_step(optimizer, model=model, closure=closure, **kwargs)
        closure_result = closure()
        skipped = closure_result is None and model.automatic_optimization
        if not skipped:
            self.scaler.unscale_(optimizer)
        self._after_closure(model, optimizer)
        if not skipped:
            self._step(optimizer, **kwargs)
            self._log_metrics(model.trainer)
        return closure_result

    def _step(self, optimizer: Optimizer, **kwargs: Any) -> bool:
        """Step unless a gradient overflowed (returns whether it stepped), then update the scale."""
        monitor = self._monitor(optimizer)
        with monitor.observe() if monitor else contextlib.nullcontext():
            stepped = self.scaler.step(optimizer, **kwargs)
        self.scaler.update()
        return stepped

    def _monitor(self, optimizer: Optimizer) -> PrecisionMonitor | None:
        if not self.monitor_every or self._module is None:
            return None
        if id(optimizer) not in self._monitors:
            self._monitors[id(optimizer)] = PrecisionMonitor(
                self._module, optimizer, scaler=self.scaler, every=self.monitor_every
            )
        return self._monitors[id(optimizer)]

    def unscale_gradients(self, optimizer: Optimizer) -> None:
        self.scaler.unscale_(optimizer)

    def metrics(self) -> dict[str, float]:
        """Precision health: loss scale and skipped steps when scaling, the monitor's figures when on."""
        metrics: dict[str, float] = {}
        if self.scaler.enabled:
            metrics.update(loss_scale=self.scaler.get_scale(), skipped_steps=float(self.scaler.skipped_steps))
        for index, monitor in enumerate(self._monitors.values()):
            prefix = f"optimizer{index}/" if len(self._monitors) > 1 else ""
            figures = {k: v for k, v in monitor.metrics.items() if k not in _SCALER_FIGURES}
            metrics.update({prefix + key: value for key, value in figures.items()})
        return metrics

    def _log_metrics(self, trainer: Any) -> None:
        if not trainer.loggers or trainer.global_step % trainer.log_every_n_steps:
            return
        metrics = {_METRIC_PREFIX + key: value for key, value in self.metrics().items()}
        for logger in trainer.loggers:
            logger.log_metrics(metrics, step=trainer.global_step)

    def state_dict(self) -> dict[str, Any]:
        """The policy's name and the loss scaler's state, saved in Lightning checkpoints."""
        return {"policy": str(self.policy), "scaler": self.scaler.state_dict()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the loss scaler from a checkpoint written by :meth:`state_dict`."""
        self.scaler.load_state_dict(state_dict["scaler"])

    def __repr__(self) -> str:
        return f"CastwisePrecision({str(self.policy)!r})"


def _in_trainer(module: Any) -> bool:
    return isinstance(module, LightningModule) and module._trainer is not None


def _lightning_name(policy: Policy) -> str:
    """The Lightning precision name closest to ``policy`` (Lightning reads ``plugin.precision``)."""
    names = {torch.float16: "16", torch.bfloat16: "bf16", torch.float32: "32", torch.float64: "64"}
    if policy.is_mixed and policy.is_low_precision:
        return f"{names[policy.compute_dtype]}-mixed"
    return f"{names[policy.compute_dtype]}-true"
