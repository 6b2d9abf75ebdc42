"""transformers Trainer: what CastwiseCallback costs per training step and per save.

A small Llama (2 layers, hidden 256, vocab 1000: 1.8 M parameters; batch 8 x 64 tokens) with fp32 weights trains
under ``bf16=True`` (bf16 autocast), on one thread, four ways: plain Trainer (twice: the second
copy's ratio shows the noise floor), with ``CastwiseCallback("bf16-mixed")`` (norms computing in
fp32 under autocast, and castwise's health monitor sampling every ``logging_steps=10``th step),
and with the callback's monitor off. Each way runs ``--steps`` optimizer steps in runs of 20,
the ways taking turns with the order rotated each round; a step is timed from one
``on_step_begin`` to the next (forward, backward, optimizer step, logging), the first two steps
of each run left out. Saves: ``trainer.save_model`` of the same weights, plain (fp32 on disk)
against the callback's (bf16 on disk, kept norms fp32, through ``cw.convert``).

    .venv/bin/python benchmarks/trainer.py [--steps 100]
"""

from __future__ import annotations

import logging
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
import transformers

from castwise.integrations.transformers import CastwiseCallback
from common import print_ratios, start

RUN = 20
WARMUP = 2


class StepTimer(transformers.TrainerCallback):
    """Seconds from each step's begin to the next one's, over a run."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._last: float | None = None

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        now = time.perf_counter()
        if self._last is not None:
            self.times.append(now - self._last)
        self._last = now

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._last = None


def llama() -> transformers.LlamaForCausalLM:
    config = transformers.LlamaConfig(
        vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128,
    )
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(config)


def dataset(rows: int) -> list[dict[str, torch.Tensor]]:
    ids = torch.randint(3, 1000, (rows, 64), generator=torch.Generator().manual_seed(0))
    return [{"input_ids": row, "labels": row} for row in ids]


def trainer(model: torch.nn.Module, out: Path, callbacks: list, steps: int) -> transformers.Trainer:
    args = transformers.TrainingArguments(
        output_dir=str(out), max_steps=steps, per_device_train_batch_size=8, logging_steps=10,
        save_strategy="no", bf16=True, report_to=[], use_cpu=True, disable_tqdm=True,
    )
    return transformers.Trainer(model=model, args=args, train_dataset=dataset(8 * steps), callbacks=callbacks)


def ways() -> dict[str, tuple[torch.nn.Module, list]]:
    return {
        "plain Trainer": (llama(), []),
        "CastwiseCallback": (llama(), [CastwiseCallback("bf16-mixed")]),
        "CastwiseCallback monitor=False": (llama(), [CastwiseCallback("bf16-mixed", monitor=False)]),
        "plain Trainer (2nd copy)": (llama(), []),
    }


def step_times(steps: int, out: Path) -> dict[str, float]:
    setups = ways()
    timers = {name: StepTimer() for name in setups}
    names = list(setups)
    for index in range(max(1, steps // RUN)):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            model, callbacks = setups[name]
            timer = timers[name]
            before = len(timer.times)
            trainer(model, out / "run", [*callbacks, timer], RUN).train()
            del timer.times[before:before + WARMUP]
    return {name: statistics.median(timer.times) for name, timer in timers.items()}


def save_times(out: Path, repeats: int = 5) -> dict[str, float]:
    runs = {"plain save_model": trainer(llama(), out / "p", [], 1),
            "CastwiseCallback save_model": trainer(llama(), out / "c", [CastwiseCallback("bf16-mixed", "bf16")], 1)}
    for run in runs.values():
        run.train()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for index in range(repeats):
        for name, run in runs.items():
            begin = time.perf_counter()
            run.save_model(str(out / f"{name.split()[0]}-{index}"))
            times[name].append(time.perf_counter() - begin)
    return {name: statistics.median(samples) for name, samples in times.items()}


def main() -> None:
    steps, _ = start(__doc__.splitlines()[0], default_steps=100)
    logging.getLogger("transformers").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as folder:
        print_ratios("Trainer step, bf16=True, fp32 weights", step_times(steps, Path(folder)), "CastwiseCallback")
        print_ratios("trainer.save_model", save_times(Path(folder)), "CastwiseCallback save_model")


if __name__ == "__main__":
    main()
