"""Step times as training sees them: the median of several steps after a warm-up.

A model's first steps pay one-off costs (lazy initialisation, allocator growth, kernel selection,
autocast's weight cache), so one timed step says more about what ran before it than about the
policy: the first policy measured looked slowest. Every run's time is therefore the median of
``TIMED_STEPS`` steps after ``WARMUP_STEPS`` untimed ones, like the trial training's median of its
unmonitored steps after the first.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import NamedTuple

WARMUP_STEPS = 1
"""Untimed steps before the timed ones (the traced run before them has already warmed up once)."""
TIMED_STEPS = 5
"""Timed steps; their median is the step time."""
ENOUGH_STEPS = 3
ENOUGH_SECONDS = 0.25
"""Slow steps stop being timed once ``ENOUGH_STEPS`` of them took ``ENOUGH_SECONDS`` together: a median of
three says as much there, and fp16 math emulated on a CPU would otherwise dominate the diagnosis."""


class Timing(NamedTuple):
    """The median of ``timed`` steps' wall times in seconds, taken after ``warmup`` untimed steps."""

    seconds: float
    warmup: int
    timed: int


def time_steps(step: Callable[[], object], warmup: int = WARMUP_STEPS, timed: int = TIMED_STEPS,
               clock: Callable[[], float] = time.perf_counter) -> Timing:
    """Run ``step`` ``warmup`` times untimed, then up to ``timed`` times timed (fewer, but at least
    ``ENOUGH_STEPS``, when those take ``ENOUGH_SECONDS``); the median of the timed ones."""
    if warmup < 0 or timed < 1:
        raise ValueError(f"need warmup >= 0 and timed >= 1 steps, got {warmup} and {timed}")
    for _ in range(warmup):
        step()
    samples: list[float] = []
    while len(samples) < timed and not (len(samples) >= ENOUGH_STEPS and sum(samples) >= ENOUGH_SECONDS):
        start = clock()
        step()
        samples.append(clock() - start)
    return Timing(statistics.median(samples), warmup, len(samples))
