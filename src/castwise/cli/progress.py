"""Progress of long work (``castwise doctor``): a bar with the time left on a terminal, lines otherwise.

When stdout is not a terminal (CI logs, ``| tee``) a bar would either vanish or fill the log with
redraws, so each piece of work gets one line on stderr instead, with the time spent and an
estimate of the time left; the steps of a trial training are shown at every tenth, not each.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from castwise.cli.output import console, err_console, literal

Update = Callable[[str, int, int], None]
"""``update(description, done, total)``, called before each piece of work (total 0: not known yet)."""

_TRAINING_STEP = re.compile(r"training step (\d+)/(\d+)")


@contextmanager
def work_progress(quiet: bool) -> Iterator[Update]:
    """An ``update`` callback for the duration of the block: nothing when ``quiet``."""
    if quiet:
        yield lambda description, done, total: None
    elif console.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("left"), TimeRemainingColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("starting", total=None)
            last = [0]

            def update(description: str, done: int, total: int) -> None:
                if done < last[0]:  # a new stage counts from zero: its time left is its own
                    bar.reset(task)
                last[0] = done
                bar.update(task, description=description, completed=done, total=total or None)

            yield update
    else:
        yield _Lines()


class _Lines:
    """One stderr line per piece of work: ``[3/8] bf16-mixed (0:04 so far, about 0:07 left)``."""

    def __init__(self) -> None:
        self._start = self._stage = time.monotonic()
        self._done = 0

    def __call__(self, description: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < self._done:  # a new stage counts from zero: estimate its time left from its own pace
            self._stage = now
        self._done = done
        if not _worth_a_line(description):
            return
        pace = (now - self._stage) / done if done else 0.0
        left = f", about {_clock(pace * (total - done))} left" if 0 < done < total else ""
        count = f"[{done + 1}/{total}] " if total else ""
        err_console.print(literal(f"{count}{description} ({_clock(now - self._start)} so far{left})"),
                          highlight=False, soft_wrap=True)


def _worth_a_line(description: str) -> bool:
    """Every piece of work, except trial-training steps other than the first, every tenth and the last."""
    step = _TRAINING_STEP.search(description)
    if step is None:
        return True
    index, steps = int(step.group(1)), int(step.group(2))
    return index in (1, steps) or index % max(1, steps // 10) == 0


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}:{rest:02d}"
