"""``cw.diagnose(..., stream=True)``: the doctor's report for a checkpoint read one decoder block at a time.

The passes (:mod:`castwise.doctor.stream.passes`) measure; the report is judged exactly as the
in-memory doctor's is, by the same code: the verdict on each policy (its propagated output and loss
errors, and the one rule on every inf/nan measured), the findings from its module rows, the
recommendation and the re-measuring keep-fp32 search, each of whose trials is the policy measured
again by the same passes (untimed), block by block, so that its modules are ranked again.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from torch import nn

from castwise.doctor.judge.findings import find
from castwise.doctor.judge.recommend import recommend
from castwise.doctor.judge.search import Trial
from castwise.doctor.judge.verdict import judge
from castwise.doctor.measure.runner import Call, LossFn
from castwise.doctor.report.data import Report, Streaming
from castwise.doctor.stream.architecture import Blocks, StreamError, find_blocks
from castwise.doctor.stream.assemble import mode_run, previous
from castwise.doctor.stream.frame import stub_blocks
from castwise.doctor.stream.passes import Setup, Streamed
from castwise.doctor.stream.routing import RoutingCount
from castwise.doctor.stream.runs import Parts
from castwise.doctor.stream.weights import Weights
from castwise.keep import declared_fp32_modules
from castwise.model import PrecisionWarning, unwrap
from castwise.policy import Policy

Progress = Callable[[str, int, int], None]


def diagnose_streamed(
    model: nn.Module, example_inputs: Any, policies: Sequence[Policy], loss_fn: LossFn | None,
    modes: Sequence[str], tolerance: float, seed: int = 0, progress: Progress | None = None,
    name: str | None = None, checkpoint: str | Path | None = None,
) -> Report:
    """Diagnose the transformers ``model`` (built on the meta device) from the weights in ``checkpoint``
    (default: the folder its config was read from), one decoder block in memory at a time."""
    skeleton = unwrap(model)
    blocks = find_blocks(skeleton)
    policies = list({str(p): p for p in policies}.values())  # a policy named twice is diagnosed once, as in memory
    _check_skeleton(skeleton, policies)
    folder = _checkpoint(skeleton, checkpoint)
    steps = _Steps(progress, _work(blocks, policies, modes))
    with closing(Weights(folder, skeleton, blocks)) as weights, warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)
        frame = copy.deepcopy(skeleton).float()
        board = stub_blocks(frame, blocks)
        weights.stem(frame)
        call = Call.of(example_inputs)
        call.kwargs.setdefault("use_cache", False)  # every block run afresh: no key/value cache between runs
        setup = Setup(weights, frame, board, call, policies, modes, loss_fn, seed, declared_fp32_modules(skeleton))
        count = RoutingCount()
        streamed = Streamed(setup, steps, count)
        streamed.run()
        stream = Streaming(blocks.count, blocks.path, max(weights.block_bytes(i) for i in range(blocks.count)),
                           weights.stem_bytes(), streamed.activation_bytes())
        streamed.activations.clear()  # a trial keeps its own
        reference = [mode_run(streamed.reference[m], m, blocks) for m in modes]
        reference_ok = all(run.ok for run in reference)
        results = [judge(str(p), [mode_run(streamed.parts[str(p)][m], m, blocks) for m in modes], tolerance,
                         reference_ok) for p in policies]
        before = {str(p): _merged(streamed.parts[str(p)].values(), blocks) for p in policies}

        def evaluate(policy: Policy) -> Trial:
            steps.grow(_work(blocks, [policy], modes))
            trial = Streamed(dataclasses.replace(setup, policies=(policy,)), steps, timed=False)
            trial.run()
            parts = trial.parts[str(policy)]
            result = judge(str(policy), [mode_run(parts[m], m, blocks) for m in modes], tolerance, reference_ok)
            return Trial.of(result, _merged(parts.values(), blocks))

        def again(policy: Policy, recount: RoutingCount) -> None:
            steps.grow(blocks.count)
            streamed.count_routing(policy, recount)

        routing = count.report(policies, again)
        recommendation = recommend(results, tolerance, before, evaluate, None, routing)
        return Report(
            model=name or type(skeleton).__name__, tolerance=tolerance, modes=list(modes), reference=reference,
            policies=results, findings=find(frame, reference, results, recommendation.keep_fp32, None, routing),
            recommendation=recommendation, routing=routing, stream=stream,
        )


def _check_skeleton(skeleton: nn.Module, policies: Sequence[Policy]) -> None:
    materialised = next((n for n, p in skeleton.named_parameters() if not p.is_meta), None)
    if materialised is not None:
        raise StreamError(
            f"stream=True reads the weights from the checkpoint one block at a time, but {materialised} is already "
            "in memory: build the model on the meta device (`with torch.device('meta'): Model(config)`), or "
            "diagnose it in memory (stream=False)"
        )
    fp8 = [str(p) for p in policies if p.fp8]
    if fp8:
        raise StreamError(f"fp8 policies ({', '.join(fp8)}) are diagnosed in memory only: drop them, or diagnose "
                          "the model in memory (stream=False; on the command line, without --stream)")


def _checkpoint(skeleton: nn.Module, checkpoint: str | Path | None) -> Path:
    where = checkpoint or getattr(skeleton, "name_or_path", None)
    if not where or not Path(where).is_dir():
        raise StreamError(
            "stream=True needs the checkpoint folder the weights are read from: pass checkpoint=DIR"
            + (f" ({where} is not a folder)" if where else "")
        )
    return Path(where)


def _merged(parts: Iterable[Parts], blocks: Blocks) -> dict[str, str | None]:
    """Which module finished before each one, over the modes (what the sensitivity ranking reads)."""
    merged: dict[str, str | None] = {}
    for mode_parts in parts:
        merged.update(previous(mode_parts, blocks))
    return merged


def _work(blocks: Blocks, policies: Sequence[Policy], modes: Sequence[str]) -> int:
    """Steps of the progress bar: each block under fp32 and each policy, forward (and backward), and the
    frame and head under each."""
    runs = 1 + len(policies)
    passes = 2 if "train" in modes else 1
    return runs * (2 + blocks.count * passes) + (1 if "train" in modes else 0)


class _Steps:
    """The progress bar's steps over blocks x policies; the keep-fp32 search's passes add theirs."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self._progress, self.done, self.total = progress, 0, total

    def __call__(self, description: str) -> None:
        if self._progress is not None:
            self._progress(description, self.done, max(self.total, self.done + 1))
        self.done += 1

    def grow(self, steps: int) -> None:
        self.total += steps
