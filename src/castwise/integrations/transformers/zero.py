"""A Trainer run under DeepSpeed ZeRO: what it really keeps in memory and where saved weights come from.

With a DeepSpeed config, the Trainer hands the model to DeepSpeed, which casts every module to its
16-bit dtype (no autocast) and keeps fp32 master weights, partitioned over the ranks, in its ZeRO
optimizer. ``trainer.save_model`` then sees the 16-bit weights (ZeRO-3 gathers them only with
``stage3_gather_16bit_weights_on_model_save``; without it no weights reach ``save_pretrained``),
while every Trainer checkpoint also holds DeepSpeed's own checkpoint with the fp32 master. So
castwise rewrites each checkpoint's weights from that master: the 16-bit weights rounded once,
the kept modules the master itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch

from castwise.policy import dtype_name


@dataclass(frozen=True)
class ZeroRun:
    """The ZeRO setup a Trainer's DeepSpeed config asks for."""

    stage: int
    dtype: torch.dtype | None
    """The dtype DeepSpeed casts the module to (None: fp32 throughout)."""
    gathers_16bit: bool
    """ZeRO-3's ``stage3_gather_16bit_weights_on_model_save``: ``save_model`` gets the whole weights."""

    @property
    def because(self) -> str:
        """Why the math runs as it does, for the plan's math row."""
        scaling = ", DeepSpeed's loss scaling" if self.dtype == torch.float16 else ""
        if self.dtype is None:
            return f"DeepSpeed ZeRO-{self.stage} without bf16 or fp16: fp32 throughout"
        return f"DeepSpeed ZeRO-{self.stage} {dtype_name(self.dtype)}: every module cast to it, no autocast{scaling}"

    @property
    def weights(self) -> str:
        """What the trainable weights are, for the plan's weights row."""
        module = dtype_name(self.dtype) if self.dtype is not None else "fp32"
        return f"{module} module weights, fp32 master weights in DeepSpeed's ZeRO-{self.stage} optimizer"

    def on_disk(self) -> str:
        """Where each kind of save takes its weights from, for the plan's on-disk row."""
        checkpoints = "checkpoint-N: rewritten from DeepSpeed's fp32 master"
        if self.stage == 3 and not self.gathers_16bit:
            final = (
                "save_model: no weights (stage3_gather_16bit_weights_on_model_save is off; its folder holds "
                "DeepSpeed's checkpoint: castwise convert DIR OUT --dtype ...)"
            )
        else:
            gathered = "gathered " if self.stage == 3 else ""
            final = f"save_model: the {gathered}16-bit weights (kept modules hold their 16-bit values)"
        return f"{checkpoints}; {final}"


def zero_run(args: Any) -> ZeroRun | None:
    """The ZeRO setup in ``TrainingArguments`` (their resolved DeepSpeed config), or None without one."""
    config = getattr(getattr(args, "hf_deepspeed_config", None), "config", None)
    if not isinstance(config, dict):
        return None
    zero = config.get("zero_optimization")
    zero = zero if isinstance(zero, dict) else {}
    stage = zero.get("stage", 0)
    if type(stage) is not int or stage not in (1, 2, 3):
        return None
    dtype = torch.bfloat16 if _enabled(config, "bf16") else torch.float16 if _enabled(config, "fp16") else None
    return ZeroRun(stage, dtype, zero.get("stage3_gather_16bit_weights_on_model_save") is True)


def _enabled(config: dict[str, Any], section: str) -> bool:
    value = config.get(section)
    return isinstance(value, dict) and value.get("enabled") is True


@contextlib.contextmanager
def one_rank_skeletons(args: Any) -> Iterator[None]:
    """Let one rank build model skeletons (the keep rule's module classes) during a ZeRO-3 run.

    While a ZeRO-3 config is registered, transformers builds every model under DeepSpeed's
    ``zero.Init``, which partitions each parameter with collectives: a skeleton built on the saving
    rank alone would wait for the other ranks forever (or, worse, pair with their collectives).
    The config is unregistered meanwhile and registered again afterwards.
    """
    config = getattr(args, "hf_deepspeed_config", None)
    if config is None:
        yield
        return
    from transformers.integrations.deepspeed import set_hf_deepspeed_config, unset_hf_deepspeed_config

    unset_hf_deepspeed_config()
    try:
        yield
    finally:
        set_hf_deepspeed_config(config)
