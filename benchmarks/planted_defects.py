"""Planted defects: does the doctor blame exactly the modules a precision policy breaks?

Twelve small models whose culprits are known by construction (tests/doctor/planted.py: fp16 overflow
in activations and in gradients, catastrophic cancellation in one and in two places, fp16 gradient
underflow, a long bf16 running sum, attention logits past fp16's range, an MoE router whose choices
flip, an embedding with huge norms, a loss computed in low precision, two healthy models). Each is
diagnosed with the default policies in train and eval mode; a module is blamed when an error or
warning finding names it or a verified keep-fp32 fix keeps it. Precision: blamed modules that are
(or enclose) a culprit; recall: culprits blamed. The recommended policy is then diagnosed alone on
the same model and inputs, and must pass.

    .venv/bin/python benchmarks/planted_defects.py [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "doctor"))
from planted import PLANTED, Score, blamed, diagnose, recommended_passes, score  # noqa: E402

from common import machine  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    seeds = parser.parse_args().seeds
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    print(f"{machine()}, 1 thread; seeds {seeds}")
    print("\n| model | defect | culprits | blamed | found | missed | wrongly blamed | recommended passes | s |")
    print("|---|---|---|---|---:|---:|---:|---|---:|")
    total, passing, runs = Score(0, 0, 0), 0, 0
    for planted in PLANTED:
        for seed in seeds:
            start = time.perf_counter()
            report = diagnose(planted, seed)
            result = score(planted, report)
            passes = recommended_passes(planted, report, seed)
            seconds = time.perf_counter() - start
            total, passing, runs = total + result, passing + passes, runs + 1
            print(f"| {planted.name} (seed {seed}) | {planted.defect} | {', '.join(sorted(planted.culprits)) or '-'} "
                  f"| {', '.join(sorted(blamed(report))) or '-'} | {result.found} | {result.missed} "
                  f"| {result.wrongly_blamed} | {'yes' if passes else 'NO'} | {seconds:.1f} |")
    print(f"\nculprits found {total.found} of {total.found + total.missed}, healthy modules blamed "
          f"{total.wrongly_blamed}: precision {total.precision:.2f}, recall {total.recall:.2f}; "
          f"recommended policy passes in {passing} of {runs}")


if __name__ == "__main__":
    main()
