"""``CastwiseCallback``: a castwise policy for ``transformers.Trainer`` and TRL's trainers.

    trainer = Trainer(model, args, ..., callbacks=[CastwiseCallback("bf16-mixed", save_dtype="bf16")])

Training precision and storage precision are two choices. The Trainer keeps running the math as
its arguments say (``bf16=True``: bf16 autocast) over the parameters as they were loaded; the
callback keeps the policy's modules in fp32 (computing in fp32), says at train begin what will
really happen, writes every save in ``save_dtype``, and logs precision health. Under DeepSpeed ZeRO
(which runs every module 16-bit and keeps the fp32 master in its optimizer) each checkpoint's
weights are rewritten from the master in DeepSpeed's checkpoint beside them.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from pathlib import Path
from typing import Any

import torch
from torch import nn
from transformers import PreTrainedModel, TrainerCallback
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

from castwise.integrations.storage import kept_fp32_modules
from castwise.integrations.transformers.folders import save_pretrained, weights_from_zero
from castwise.integrations.transformers.plan import (
    TrainingPlan,
    check_trainable,
    plan_training,
    running_policy,
    trainer_math,
)
from castwise.integrations.transformers.zero import ZeroRun, one_rank_skeletons
from castwise.model import PrecisionWarning, unwrap
from castwise.model.keep_fp32 import attach_fp32_compute
from castwise.model.wrapper import model_policy
from castwise.policy import Policy, PolicyLike, dtype_from_name
from castwise.training import PrecisionMonitor

__all__ = ["CastwiseCallback"]

logger = logging.getLogger("castwise")

METRIC_PREFIX = "castwise/"
_NOT_LOGGED = ("step", "loss_scale", "skipped_steps")


class _SkippedStep(Exception):
    """Thrown into a monitor's observation to drop it: the GradScaler skipped the step."""


class CastwiseCallback(TrainerCallback):
    """Applies a castwise policy's keep rule and storage rules to a Trainer run, and reports on it.

    ``save_dtype``: the dtype weights are written in; by default the dtype the model was loaded
    in (its ``config.dtype``), else the policy's param dtype. ``monitor``: log castwise's health
    figures (``castwise/swamping_rate``, ``castwise/grad_underflow``, ...) at every logging step.
    ``max_shard_size`` goes to every save. ``plan`` holds the train-begin report.
    """

    def __init__(
        self,
        policy: PolicyLike = "bf16-mixed",
        save_dtype: str | torch.dtype | None = None,
        *,
        monitor: bool = True,
        max_shard_size: int | str | None = None,
    ) -> None:
        self.policy = Policy.parse(policy)
        self.save_dtype = dtype_from_name(save_dtype) if save_dtype is not None else None
        self.monitor = monitor
        self.max_shard_size = max_shard_size
        self.plan: TrainingPlan | None = None
        self._model: nn.Module | None = None
        self._kept: tuple[str, ...] = ()
        self._monitor: PrecisionMonitor | None = None
        self._observation: contextlib.AbstractContextManager | None = None
        self._fresh: dict[str, float] = {}
        self._zero: ZeroRun | None = None

    def on_init_end(self, args: Any, state: Any, control: Any, model: nn.Module | None = None, **kwargs: Any) -> None:
        """Keep the policy's modules fp32 before the optimizer exists, and route saves through castwise."""
        if model is not None:
            self._prepare(unwrap(model), args)

    def on_train_begin(
        self, args: Any, state: Any, control: Any, model: nn.Module | None = None, optimizer: Any = None, **kwargs: Any
    ) -> None:
        """Say what will really happen; warn about lost updates and differences from the policy."""
        if model is None:
            return
        inner = unwrap(model)
        self._prepare(inner, args)
        assert self.save_dtype is not None
        self.plan = plan_training(inner, args, self.policy, optimizer, self._kept, self.save_dtype)
        logger.info("%s", self.plan)
        for warning in self.plan.warnings:
            warnings.warn(warning, PrecisionWarning, stacklevel=2)
        wrapped = getattr(optimizer, "optimizer", optimizer)
        if self.monitor and isinstance(wrapped, torch.optim.Optimizer):
            low = torch.float16 if self.plan.running.compute_dtype == torch.float16 else None
            self._monitor = PrecisionMonitor(inner, wrapped, dtype=low)

    def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Sample the coming optimizer step when the Trainer will log right after it."""
        if self._monitor is not None and _logs_after_step(args, state, state.global_step + 1):
            self._observation = self._monitor.observe()
            self._observation.__enter__()

    def on_optimizer_step(self, args: Any, state: Any, control: Any, optimizer: Any = None, **kwargs: Any) -> None:
        """Finish the sample (dropped when the GradScaler skipped the step)."""
        observation, self._observation = self._observation, None
        if observation is None or self._monitor is None:
            return
        if getattr(optimizer, "step_was_skipped", False):
            observation.__exit__(_SkippedStep, _SkippedStep(), None)
            self._fresh = _loss_scale(optimizer)
            return
        observation.__exit__(None, None, None)
        self._fresh = self.metrics(optimizer)

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Under DeepSpeed ZeRO, rewrite the new checkpoint's weights from the fp32 master saved in it."""
        if self._zero is None or not state.is_world_process_zero or self.save_dtype is None:
            return
        folder = Path(args.output_dir) / f"{PREFIX_CHECKPOINT_DIR}-{state.global_step}"
        if (folder / "latest").is_file():
            with one_rank_skeletons(args):
                weights_from_zero(folder, self.save_dtype, self._kept, self.max_shard_size)

    def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> None:
        """Add the latest sample's figures to this log record (``logs`` and ``state.log_history``)."""
        if not self._fresh or logs is None:
            return
        logs.update(self._fresh)
        if state.log_history and state.log_history[-1].get("step") == state.global_step:
            state.log_history[-1].update(self._fresh)
        self._fresh = {}

    def metrics(self, optimizer: Any = None) -> dict[str, float]:
        """The latest sample's health figures, and the Trainer's loss scale when it scales."""
        metrics = {}
        if self._monitor is not None and self._monitor.samples:
            figures = self._monitor.metrics
            metrics = {METRIC_PREFIX + k: v for k, v in figures.items() if k not in _NOT_LOGGED}
        return {**metrics, **_loss_scale(optimizer)}

    def _prepare(self, model: nn.Module, args: Any) -> None:
        """Once per model: kept modules fp32 and computing in fp32, saves in ``save_dtype``."""
        if self._model is model:
            return
        math = trainer_math(args)
        check_trainable(model, math)
        self._kept = kept_fp32_modules(model, self.policy)
        if self.save_dtype is None:
            self.save_dtype = _loaded_dtype(model) or self.policy.param_dtype
        self._zero = math.zero
        running = running_policy(model, model_policy(model, self.policy), self._kept, math)
        if math.zero is None:  # DeepSpeed casts every module to its own dtype: kept modules stay fp32 on disk only
            for name in self._kept:
                model.get_submodule(name).float()
            if running.is_low_precision:
                attach_fp32_compute(model, running)
        if isinstance(model, PreTrainedModel):
            saver = _SavesThroughCastwise(model, self.save_dtype, self._kept, self.max_shard_size, args)
            model.save_pretrained = saver  # type: ignore[method-assign,assignment]  # the stand-in is the point
        else:
            warnings.warn(
                f"{type(model).__name__} is not a transformers PreTrainedModel: the Trainer saves it "
                "as it is, not through castwise", PrecisionWarning, stacklevel=3,
            )
        self._model = model


class _SavesThroughCastwise:
    """Stands in for a model's ``save_pretrained``, so the Trainer's checkpoints and
    ``trainer.save_model`` write through castwise's ``save_pretrained`` (transformers' semantics:
    the weights in the folder are replaced, other files left alone)."""

    def __init__(
        self,
        model: PreTrainedModel,
        dtype: torch.dtype,
        kept: tuple[str, ...],
        max_shard_size: int | str | None,
        args: Any,
    ) -> None:
        self.model, self.dtype, self.kept, self.max_shard_size, self.args = model, dtype, kept, max_shard_size, args

    def __call__(self, save_directory: Any, is_main_process: bool = True, **kwargs: Any) -> None:
        if not is_main_process:
            return
        state = kwargs.get("state_dict")
        if state is not None and not state:  # ZeRO-3 without gathering: the weights come from DeepSpeed's checkpoint
            Path(save_directory).mkdir(parents=True, exist_ok=True)
            self.model.config.save_pretrained(save_directory)
            return
        if self.max_shard_size is not None:
            kwargs.setdefault("max_shard_size", self.max_shard_size)
        with one_rank_skeletons(self.args):
            save_pretrained(self.model, save_directory, dtype=self.dtype, keep_fp32=self.kept, force=True, **kwargs)


def _loaded_dtype(model: nn.Module) -> torch.dtype | None:
    """The dtype a transformers model was loaded in (``config.dtype``; unset for one built from a config)."""
    declared = getattr(getattr(model, "config", None), "dtype", None)
    if isinstance(declared, str):
        with contextlib.suppress(ValueError):
            return dtype_from_name(declared)
        return None
    return declared if isinstance(declared, torch.dtype) and declared.is_floating_point else None


def _loss_scale(optimizer: Any) -> dict[str, float]:
    """The scale of the GradScaler Accelerate gives the Trainer's optimizer (fp16 on a GPU), if any."""
    scaler = getattr(optimizer, "scaler", None)
    return {METRIC_PREFIX + "loss_scale": float(scaler.get_scale())} if scaler is not None else {}


def _logs_after_step(args: Any, state: Any, step: int) -> bool:
    """Whether the Trainer logs once global step ``step`` is done (as its DefaultFlowCallback decides)."""
    every = state.logging_steps or args.logging_steps
    return (step == 1 and args.logging_first_step) or (bool(every) and step % every == 0)
