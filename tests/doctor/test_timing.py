"""Step times after a warm-up: the median of several untraced steps, which leave the model as they found it."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import castwise as cw
from castwise.doctor.measure.runner import Call, Subject, step
from castwise.doctor.measure.timing import (
    ENOUGH_SECONDS,
    ENOUGH_STEPS,
    TIMED_STEPS,
    WARMUP_STEPS,
    Timing,
    time_steps,
)


class _Clock:
    """A fake clock: each step advances it by the next of ``durations``; warm-up steps use theirs up too."""

    def __init__(self, durations: list[float]) -> None:
        self.now, self.durations, self.steps = 0.0, iter(durations), 0

    def step(self) -> None:
        self.steps += 1
        self.now += next(self.durations)

    def __call__(self) -> float:
        return self.now


def test_warm_up_steps_run_untimed_and_the_median_of_the_timed_ones_is_the_time() -> None:
    clock = _Clock([512.0, 2.0**-4, 2.0**-6, 2.0**-5, 2.0**-3, 2.0**-7])  # exact sums: no rounding
    assert time_steps(clock.step, warmup=1, timed=5, clock=clock) == Timing(2.0**-5, 1, 5)
    assert clock.steps == 6  # the 900 of the warm-up step is in no sample


def test_slow_steps_are_timed_fewer_times_but_never_fewer_than_enough() -> None:
    slow = ENOUGH_SECONDS / ENOUGH_STEPS
    clock = _Clock([1.0, slow, 2 * slow, slow, slow, slow])
    seconds, warmup, timed = time_steps(clock.step, warmup=1, timed=5, clock=clock)
    assert (seconds, warmup, timed) == (pytest.approx(slow), 1, ENOUGH_STEPS)
    assert clock.steps == 1 + ENOUGH_STEPS


@pytest.mark.parametrize(("warmup", "timed"), [(-1, 5), (1, 0)])
def test_time_steps_refuses_counts_that_time_nothing(warmup: int, timed: int) -> None:
    with pytest.raises(ValueError, match="warmup >= 0 and timed >= 1"):
        time_steps(lambda: None, warmup=warmup, timed=timed)


def test_every_diagnosed_run_is_timed_after_warm_up_and_a_raising_one_by_its_traced_step() -> None:
    class Breaks(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if x.dtype == torch.bfloat16:
                raise RuntimeError("no bf16 here")
            return x * 2

    model = nn.Sequential(nn.Linear(4, 4), Breaks())
    report = cw.diagnose(model, torch.randn(2, 4), policies=["bf16-true", "32-true"])
    runs = [*report.reference, *(run for result in report.policies for run in result.runs)]
    assert {(r.ok, r.warmup_steps) for r in runs} == {(True, WARMUP_STEPS), (False, 0)}
    assert {r.timed_steps for r in runs if r.ok} <= set(range(ENOUGH_STEPS, TIMED_STEPS + 1))
    assert {r.timed_steps for r in runs if not r.ok} == {0}
    assert all(r.seconds > 0 for r in runs)


def test_an_untraced_step_leaves_running_statistics_gradients_and_random_state_as_they_were() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.5))
    subject = Subject.of(model, cw.Policy.parse("32-true"))
    norm = cw.unwrap(subject.model)[1]
    call = Call.of(torch.randn(8, 4) + 3)
    before, state = norm.running_mean.clone(), torch.random.get_rng_state()
    step(subject, call, "train")
    assert torch.equal(norm.running_mean, before) and int(norm.num_batches_tracked) == 0
    assert all(p.grad is None for p in subject.model.parameters())
    assert torch.equal(torch.random.get_rng_state(), state)


def test_an_untraced_step_leaves_the_gradient_of_an_input_that_needs_one_as_it_was() -> None:
    """A streamed block's input is a leaf needing a gradient (fp32's gradient at it is read after the run):
    the timed steps after the traced one must not add theirs to it."""
    subject = Subject.of(nn.Linear(4, 4), cw.Policy.parse("32-true"))
    inputs = torch.randn(8, 4, requires_grad=True)
    traced = torch.ones(8, 4)
    inputs.grad = traced
    step(subject, Call.of(inputs), "train")
    assert inputs.grad is traced and torch.equal(traced, torch.ones(8, 4))
