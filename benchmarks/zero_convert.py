"""A DeepSpeed ZeRO-3 checkpoint to a bf16 Hugging Face folder: castwise against zero_to_fp32.py.

The checkpoint (``--mb`` MB of shards: fp32 master weights and Adam state of a stack of Linear +
LayerNorm blocks, bf16, two ranks) is written once by DeepSpeed under ``torchrun``. Then, side by
side and interleaved, each way runs as its own processes, timed from outside (wall seconds and
peak RSS from ``/usr/bin/time``; imports included, as a user pays them, and also shown above
what the way's imports alone take):

- ``castwise``: ``castwise convert CKPT OUT --dtype bf16`` (norms kept fp32);
- ``zero_to_fp32 + cast``: the ``zero_to_fp32.py`` DeepSpeed wrote into the checkpoint
  (``--safe_serialization``), then a script that loads its fp32 file, casts all but the norms
  to bf16 and saves: wall time the sum of the two, peak RSS the larger.

Both outputs are checked to hold the same tensors, bit for bit.

    .venv/bin/python benchmarks/zero_convert.py [--mb 500] [--repeats 3] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import machine

BLOCKS = 10
TIME = "/usr/bin/time"
IMPORTS = {"castwise": "castwise.checkpoint", "zero_to_fp32 + cast": "deepspeed.utils"}
"""What each way imports before it reads anything: its peak RSS is the floor under the way's."""
CAST = """
import sys, torch
from safetensors.torch import load_file, save_file
state = load_file(sys.argv[1])
cast = {k: v if "norm" in k else v.to(torch.bfloat16) for k, v in state.items()}
save_file(cast, sys.argv[2], metadata={"format": "pt"})
"""


def generate(folder: Path, megabytes: int) -> None:
    """Rank body: train one step under ZeRO-3 bf16 and save ``folder/ckpt`` (run under torchrun)."""
    import deepspeed
    import torch
    from torch import nn

    side = int((megabytes * 1e6 / 12 / BLOCKS) ** 0.5) | 1  # 12 bytes a parameter: master + two moments
    torch.manual_seed(0)
    model = nn.Sequential(*[m for _ in range(BLOCKS) for m in (nn.Linear(side, side), nn.LayerNorm(side))])
    config = {
        "train_micro_batch_size_per_gpu": 1,
        "zero_optimization": {"stage": 3},
        "bf16": {"enabled": True},
        "zero_allow_untested_optimizer": True,
    }
    deepspeed.init_distributed(dist_backend="gloo")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    engine, *_ = deepspeed.initialize(model=model, optimizer=optimizer, config=config)
    engine.backward(engine(torch.randn(1, side, dtype=torch.bfloat16)).float().pow(2).mean())
    engine.step()
    engine.save_checkpoint(str(folder / "ckpt"))


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``command`` run to completion, the RSS as ``/usr/bin/time`` reports
    it (a child forked from this process would inherit this process's high-water mark in ``ru_maxrss``)."""
    os.sync()
    start = time.perf_counter()
    done = subprocess.run([TIME, "-f", "%M", *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed: {done.stderr[-2000:]}")
    return seconds, int(done.stderr.strip().splitlines()[-1]) / 1024


def commands(folder: Path) -> dict[str, list[str]]:
    """Every timed step: castwise, the two steps of the reference way, and each way's imports alone."""
    ckpt, fp32 = folder / "ckpt", folder / "fp32"
    return {
        "castwise": [
            str(Path(sys.executable).with_name("castwise")),
            "convert",
            str(ckpt),
            str(folder / "castwise"),
            "--dtype",
            "bf16",
        ],
        "zero_to_fp32.py": [
            sys.executable,
            str(ckpt / "zero_to_fp32.py"),
            str(ckpt),
            str(fp32),
            "--safe_serialization",
        ],
        "bf16 cast": [
            sys.executable,
            "-c",
            CAST,
            str(fp32 / "model.safetensors"),
            str(folder / "reference.safetensors"),
        ],
        **{f"import {module}": [sys.executable, "-c", f"import {module}"] for module in IMPORTS.values()},
    }


def same_tensors(folder: Path) -> None:
    """Both ways wrote the same names, dtypes and bits."""
    from safetensors.torch import load_file

    ours = load_file(folder / "castwise" / "model.safetensors")
    theirs = load_file(folder / "reference.safetensors")
    assert ours.keys() == theirs.keys(), sorted(ours.keys() ^ theirs.keys())
    for name, tensor in ours.items():
        assert tensor.dtype == theirs[name].dtype and tensor.equal(theirs[name]), name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--generate", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        generate(args.generate, args.mb)
        return
    folder = Path(tempfile.mkdtemp(dir=args.dir, prefix="castwise-zero-bench-"))
    env = dict(os.environ, DS_ACCELERATOR="cpu", OMP_NUM_THREADS="1")
    try:
        torchrun = Path(sys.executable).with_name("torchrun")
        command = [str(torchrun), "--standalone", "--nproc_per_node=2", __file__, "--generate", str(folder)]
        done = subprocess.run([*command, "--mb", str(args.mb)], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"DeepSpeed could not write the checkpoint:\n{done.stderr[-3000:]}")
        shards = sum(p.stat().st_size for p in (folder / "ckpt").rglob("*.pt")) / 1e6
        print(f"{machine()}; ZeRO-3 bf16 checkpoint, 2 ranks, {shards:.0f} MB of shards")
        print(f"median of {args.repeats} interleaved rounds, each step a fresh process (imports included)")
        os.environ.update(DS_ACCELERATOR="cpu", OMP_NUM_THREADS="1")
        steps = commands(folder)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in steps}
        for index in range(args.repeats):
            order = ["castwise", "zero_to_fp32.py", "bf16 cast", *list(steps)[3:]]
            first = order[:1] if index % 2 == 0 else order[1:3]  # castwise first on even rounds, the reference on odd
            for name in [*first, *[n for n in order if n not in first]]:
                runs[name].append(timed(steps[name]))
            same_tensors(folder)
            for leftover in ("castwise", "fp32", "reference.safetensors"):
                path = folder / leftover
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        report(runs)
    finally:
        shutil.rmtree(folder)


def report(runs: dict[str, list[tuple[float, float]]]) -> None:
    """Median seconds and peak RSS of each step, of each way (whole processes, and above its imports), the ratios."""
    runs["zero_to_fp32 + cast"] = [
        (a[0] + b[0], max(a[1], b[1])) for a, b in zip(runs["zero_to_fp32.py"], runs["bf16 cast"])
    ]
    median = {name: tuple(sorted(r[i] for r in rs)[len(rs) // 2] for i in (0, 1)) for name, rs in runs.items()}
    print(f"{'step':<28} | {'seconds':>8} | {'peak RSS MiB':>12}")
    for name, (seconds, rss) in median.items():
        print(f"{name:<28} | {seconds:>8.2f} | {rss:>12.0f}")
    above = {way: median[way][1] - median[f"import {module}"][1] for way, module in IMPORTS.items()}
    (ours_s, ours_m), (ref_s, ref_m) = median["castwise"], median["zero_to_fp32 + cast"]
    print(
        f"\ncastwise: {ref_s / ours_s:.2f}x the speed of zero_to_fp32.py + cast; {ours_m / ref_m:.2f}x its peak RSS; "
        f"above the imports {above['castwise']:.0f} MiB against {above['zero_to_fp32 + cast']:.0f} MiB "
        f"({above['castwise'] / above['zero_to_fp32 + cast']:.3f}x)"
    )


if __name__ == "__main__":
    main()
