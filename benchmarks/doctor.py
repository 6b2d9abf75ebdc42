"""Doctor: the wall time of ``cw.diagnose`` against the sum of the plain runs it must make.

A diagnosis needs one fp32 reference run and one run per policy, each in train (forward +
backward) and eval (no_grad) mode, and for its step times a warm-up step and the median of several
more of each (``castwise.doctor.measure.timing``). The plain runs here do exactly that with
``cw.apply`` on a copy of the model and nothing else: no hooks, no comparison, no report (and, for
the cost of a diagnosis before it timed its steps so, once without the timing steps). Doctor adds the dtype
tracing, per-module comparison against fp32, findings and the recommendation (the tolerance is
loose enough that no keep-fp32 search runs; that search is timed separately, as extra runs).
Both sides alternate, order rotated each round; the median of the rounds is kept, for wall time
and for this process's CPU time (steadier on a shared machine).

The trial training (``--train N``) is timed the same way against hand-written loops: each policy
variant trained N steps with ``cw.apply``, ``cw.make_optimizer`` and ``cw.LossScaler`` and nothing
else, against the doctor's lockstep runs with the precision monitor, the memory measurement and the
comparison; its findings on the built-in example are printed too.

    .venv/bin/python benchmarks/doctor.py [--rounds 5] [--steps 50] [--parts example blocks search trial]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import platform
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

import castwise as cw
from castwise.doctor import example_inputs, example_labels, example_model
from castwise.doctor.measure.timing import time_steps
from castwise.doctor.measure.trial import DefaultLoss, train, trial_batches, variants
from castwise.model import PrecisionWarning
from castwise.model.pitfalls import has_mha_fastpath, mha_fastpath_disabled

POLICIES = ("tf32", "bf16-mixed", "16-mixed", "bf16-true", "16-true")


class Blocks(nn.Module):
    """A wider stack of pre-norm MLP blocks: more compute per module than the built-in example."""

    def __init__(self, width: int = 256, depth: int = 6) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(width), nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
            for _ in range(depth)
        )
        self.head = nn.Linear(width, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = x + block(x)
        return self.head(x)


def plain_runs(model: nn.Module, inputs: tuple, policies: tuple[str, ...], timing: bool = False) -> None:
    """What diagnosing by hand costs: fp32 plus each policy, train (with backward) and eval; with
    ``timing``, each step also timed as the doctor times it (warm-up, then the median of several)."""
    with mha_fastpath_disabled() if has_mha_fastpath(model) else contextlib.nullcontext():
        for name in ("32-true", *policies):
            wrapped = cw.apply(copy.deepcopy(model), name)
            for run in (_train_step, _eval_step):
                step = functools.partial(run, wrapped, inputs)
                step()
                if timing:
                    time_steps(step)


def _train_step(model: nn.Module, inputs: tuple) -> None:
    model.train()
    model.zero_grad(set_to_none=True)
    model(*inputs).float().sum().backward()


def _eval_step(model: nn.Module, inputs: tuple) -> None:
    model.eval()
    with torch.no_grad():
        model(*inputs)


def timed(action: Callable[[], Any]) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds (all threads) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def compare(label: str, model: nn.Module, inputs: tuple, rounds: int) -> None:
    ways: dict[str, Callable[[], Any]] = {
        "plain": lambda: plain_runs(model, inputs, POLICIES),
        "timed": lambda: plain_runs(model, inputs, POLICIES, timing=True),
        "doctor": lambda: cw.diagnose(model, inputs, policies=POLICIES, tolerance=1.0),
    }
    for action in ways.values():  # warm-up: first-call costs (allocator, kernels) are not the subject
        action()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    for round_index in range(rounds):
        shift = round_index % len(ways)
        for name in list(ways)[shift:] + list(ways)[:shift]:
            times[name].append(timed(ways[name]))
    median = {name: tuple(statistics.median(t[i] for t in samples) for i in (0, 1)) for name, samples in times.items()}
    (plain_wall, plain_cpu), (timed_wall, timed_cpu), (doctor_wall, doctor_cpu) = median.values()
    print(f"{label:<26} wall: plain {plain_wall * 1e3:7.0f} ms, plain + timing steps {timed_wall * 1e3:7.0f} ms, "
          f"doctor {doctor_wall * 1e3:7.0f} ms, ratio to the timed {doctor_wall / timed_wall:4.2f}x "
          f"(to plain {doctor_wall / plain_wall:4.2f}x) | cpu: {plain_cpu * 1e3:.0f}, {timed_cpu * 1e3:.0f}, "
          f"{doctor_cpu * 1e3:.0f} ms, ratio {doctor_cpu / timed_cpu:4.2f}x ({doctor_cpu / plain_cpu:4.2f}x)")


def search_cost(rounds: int) -> None:
    model, inputs = example_model(), example_inputs()
    report = cw.diagnose(model, inputs, policies=["bf16-mixed"], tolerance=3e-3)
    tries = sum(fix.tried for fix in report.recommendation.keep_fp32)
    def wall(tolerance: float) -> float:
        def diagnose() -> cw.Report:
            return cw.diagnose(model, inputs, policies=["bf16-mixed"], tolerance=tolerance)

        return statistics.median(timed(diagnose)[0] for _ in range(rounds))

    loose, tight = wall(1.0), wall(3e-3)
    print(f"keep-fp32 search (example, bf16-mixed, tolerance 3e-3): {tries} extra runs, "
          f"{loose * 1e3:.1f} ms -> {tight * 1e3:.1f} ms ({tight / loose:.2f}x)")


def hand_written_training(model: nn.Module, inputs: tuple, labels: torch.Tensor, steps: int) -> None:
    """N AdamW steps per variant with castwise's public training parts, one variant after another."""
    runs = [(cw.Policy.parse("32-true"), "none"), *variants([cw.Policy.parse(p) for p in TRAIN_POLICIES])]
    for policy, updates in runs:
        wrapped = cw.apply(copy.deepcopy(model), policy)
        optimizer = cw.make_optimizer(wrapped, "adamw", lr=1e-3, updates=updates)
        scaler = cw.LossScaler(policy)
        for _ in range(steps):
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(F.cross_entropy(wrapped(*inputs).float(), labels)).backward()
            scaler.step(optimizer)
            scaler.update()


TRAIN_POLICIES = ("bf16-mixed", "bf16-true")


def trial_cost(rounds: int, steps: int) -> None:
    model, inputs, labels = example_model(), example_inputs(), example_labels()
    batches = trial_batches(inputs, [(inputs, labels)], steps)
    policies = [cw.Policy.parse(p) for p in TRAIN_POLICIES]

    def doctor() -> cw.doctor.Training:
        with mha_fastpath_disabled():
            return train(model, batches, policies, DefaultLoss(), loss_name="cross-entropy", tolerance=0.02)

    ways = {"hand-written": lambda: hand_written_training(model, inputs, labels, steps), "doctor": doctor}
    for action in ways.values():
        action()
    times: dict[str, list[float]] = {name: [] for name in ways}
    for round_index in range(rounds):
        order = list(ways)[round_index % 2:] + list(ways)[:round_index % 2]
        for name in order:
            times[name].append(timed(ways[name])[0])
    hand, ours = (statistics.median(times[n]) for n in ways)
    print(f"trial training, example, {steps} steps x {len(variants(policies)) + 1} runs: hand-written loops "
          f"{hand * 1e3:.0f} ms, doctor {ours * 1e3:.0f} ms, ratio {ours / hand:.2f}x")
    training = doctor()
    for run in training.runs:
        print(f"  {run.label:<18} final loss vs fp32 {run.final_gap:+.2%}, swamped {run.swamping_rate:.1%}, "
              f"skipped {run.skipped_steps}, time {run.time_ratio:.2f}x, memory {run.memory.total / 1024:.1f} KiB "
              f"({run.memory_ratio:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50, help="trial-training steps")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1: steadiest on a shared box)")
    parser.add_argument("--parts", nargs="+", choices=("example", "blocks", "search", "trial"),
                        help="which measurements to make (default: all, in this order)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    warnings.simplefilter("ignore", PrecisionWarning)
    warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {platform.processor() or platform.machine()}, "
          f"{torch.get_num_threads()} threads; "
          f"policies: 32-true reference + {', '.join(POLICIES)}; train + eval")
    parts: dict[str, Callable[[], None]] = {
        "example": lambda: compare("built-in example (85 KB)", example_model(), example_inputs(), args.rounds),
        "blocks": lambda: compare("MLP blocks 256x6 (19 MB)", Blocks(), (torch.randn(8, 32, 256),), args.rounds),
        "search": lambda: search_cost(args.rounds),
        "trial": lambda: trial_cost(args.rounds, args.steps),
    }
    for name in args.parts or list(parts):
        parts[name]()


if __name__ == "__main__":
    main()
