"""DCP folders and fp8-with-scales checkpoints converted to bf16 safetensors, side by side.

1. A ``torch.distributed.checkpoint`` folder (model + Adam state, saved by ``dcp.save``) to a
   Hugging Face bf16 folder: ``cw.convert`` against the hand-written script most projects carry
   (``dcp_to_torch_save``, ``torch.load``, cast, ``save_file``), and against copying the DCP bytes.
2. A DeepSeek-V3-style fp8 file (e4m3 weights, fp32 ``weight_scale_inv`` per 128x128 block) to
   bf16: ``cw.convert`` against a hand-written vectorised loop (``load_file``, weight x expanded
   scale, ``save_file``) and against a plain copy of a file as large as the bf16 output.

Every way runs in a fresh subprocess, torch pinned to one thread, that reports its wall time
(imports excluded) and peak RSS above its imports (``ru_maxrss``); times (wall, and CPU: user +
system, steadier on a shared box) are the best of ``--repeats`` interleaved runs.

    .venv/bin/python benchmarks/dcp_convert.py [--mb 200] [--repeats 3] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import machine

LAYERS = 8
BLOCK = 128
DCP_WAYS = ("dcp copy", "dcp_to_torch_save script", "castwise dcp")
FP8_WAYS = ("output-size copy", "output-size copy+fsync", "hand-written dequant", "castwise fp8")


def generate(folder: Path, megabytes: int) -> None:
    """A DCP folder whose fp32 model is ``megabytes`` MB (plus Adam state), and an fp8 file of
    ``megabytes`` MB of e4m3 weights with block scales; also a file as large as its bf16 output."""
    import warnings

    import torch
    import torch.distributed.checkpoint as dcp
    from safetensors.torch import save_file

    side = int((megabytes * 1e6 / 4 / LAYERS) ** 0.5) // 8 * 8 + 5  # not a multiple of 128: edge blocks
    generator = torch.Generator().manual_seed(0)
    model = {f"layers.{i}.proj.weight": torch.randn(side, side, generator=generator) for i in range(LAYERS)}
    model |= {f"layers.{i}.norm.weight": torch.ones(side) for i in range(LAYERS)}
    optim = {
        f"state.{name}.{kind}": torch.randn_like(t) for name, t in model.items() for kind in ("exp_avg", "exp_avg_sq")
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save({"model": model, "optim": optim}, checkpoint_id=folder / "dcp")
    side = int((megabytes * 1e6 / LAYERS) ** 0.5) // 8 * 8 + 5
    grid = -(-side // BLOCK)
    fp8 = {}
    for i in range(LAYERS):
        fp8[f"layers.{i}.proj.weight"] = (torch.randn(side, side, generator=generator) * 50).to(torch.float8_e4m3fn)
        fp8[f"layers.{i}.proj.weight_scale_inv"] = torch.rand(grid, grid, generator=generator) * 0.01
        fp8[f"layers.{i}.norm.weight"] = torch.ones(side, dtype=torch.bfloat16)
    save_file(fp8, folder / "fp8.safetensors")
    save_file(
        {f"w{i}": torch.zeros(side, side, dtype=torch.bfloat16) for i in range(LAYERS)},
        folder / "bf16-size.safetensors",
    )


def child(way: str, folder: str) -> None:
    """Run one way once; print its wall and CPU seconds and peak RSS as JSON."""
    import safetensors.torch  # noqa: F401  imported before timing: only the operation is measured
    import torch
    import torch.distributed.checkpoint.format_utils  # noqa: F401

    import castwise  # noqa: F401

    torch.set_num_threads(1)
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    run_once(way, Path(folder))
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(json.dumps({"seconds": seconds, "cpu": cpu, "above_import_mib": (after.ru_maxrss - before.ru_maxrss) / 1024}))


def run_once(way: str, folder: Path) -> None:
    """The operation itself; outputs go to ``folder/out`` (a folder) or ``out.safetensors``."""
    import torch
    from safetensors.torch import load_file, save_file
    from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

    import castwise as cw

    out, out_file = folder / "out", folder / "out.safetensors"
    if way == "dcp copy":
        shutil.copytree(folder / "dcp", out)
    elif way == "dcp_to_torch_save script":
        dcp_to_torch_save(folder / "dcp", folder / "full.pt")
        state = torch.load(folder / "full.pt", weights_only=True)["model"]
        state = {k: v if "norm" in k else v.to(torch.bfloat16) for k, v in state.items()}
        out.mkdir()
        save_file(state, out / "model.safetensors")
        (folder / "full.pt").unlink()
    elif way == "castwise dcp":
        cw.convert(folder / "dcp", out, "bf16")
    elif way.startswith("output-size copy"):
        shutil.copyfile(folder / "bf16-size.safetensors", out_file)
        if way.endswith("+fsync"):  # castwise syncs its output before renaming it into place
            with open(out_file, "rb") as file:
                os.fsync(file.fileno())
    elif way == "hand-written dequant":
        state = load_file(folder / "fp8.safetensors")
        result = {}
        for name, tensor in state.items():
            if name.endswith("_scale_inv"):
                continue
            scale = state.get(f"{name}_scale_inv")
            if scale is not None:
                rows, cols = tensor.shape
                expanded = scale.repeat_interleave(BLOCK, 0)[:rows].repeat_interleave(BLOCK, 1)[:, :cols]
                tensor = tensor.float() * expanded
            result[name] = tensor.to(torch.bfloat16)
        save_file(result, out_file)
    elif way == "castwise fp8":
        cw.convert(folder / "fp8.safetensors", out_file, "bf16")


def measure(way: str, folder: Path) -> dict[str, float]:
    """One run of ``way`` in a fresh interpreter, its output removed afterwards."""
    os.sync()
    done = subprocess.run(
        [sys.executable, __file__, "--child", way, str(folder)], check=True, capture_output=True, text=True
    )
    shutil.rmtree(folder / "out", ignore_errors=True)
    (folder / "out.safetensors").unlink(missing_ok=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--child", nargs=2, metavar=("WAY", "FOLDER"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    print(f"{machine()}; best of {args.repeats} interleaved runs, each in a fresh process")
    folder = Path(tempfile.mkdtemp(dir=args.dir, prefix="castwise-dcp-bench-"))
    try:
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
                f"import dcp_convert; dcp_convert.generate(__import__('pathlib').Path({str(folder)!r}), {args.mb})",
            ],
            check=True,
        )
        runs: dict[str, list[dict[str, float]]] = {way: [] for way in (*DCP_WAYS, *FP8_WAYS)}
        for _ in range(args.repeats):
            for way in runs:
                runs[way].append(measure(way, folder))
        report(folder, runs)
    finally:
        shutil.rmtree(folder)


def report(folder: Path, runs: dict[str, list[dict[str, float]]]) -> None:
    """Seconds, peak RSS above imports, and the ratios BENCHMARKS.md records."""
    best = {way: min(r["seconds"] for r in rs) for way, rs in runs.items()}
    cpu = {way: min(r["cpu"] for r in rs) for way, rs in runs.items()}
    memory = {way: sorted(r["above_import_mib"] for r in rs)[len(rs) // 2] for way, rs in runs.items()}
    dcp_mb = sum(p.stat().st_size for p in (folder / "dcp").iterdir()) / 1e6
    fp8_mb = (folder / "fp8.safetensors").stat().st_size / 1e6
    print(f"DCP folder {dcp_mb:.0f} MB (model fp32 {dcp_mb / 3:.0f} MB + Adam state); fp8 file {fp8_mb:.0f} MB")
    print(f"{'way':<26} | {'seconds':>8} | {'CPU s':>6} | {'peak RSS above imports MiB':>26}")
    for way in runs:
        print(f"{way:<26} | {best[way]:>8.3f} | {cpu[way]:>6.3f} | {memory[way]:>26.0f}")
    script, ours = best["dcp_to_torch_save script"], best["castwise dcp"]
    print(
        f"\nDCP -> bf16 folder: castwise {script / ours:.2f}x the speed of the dcp_to_torch_save script, "
        f"{best['dcp copy'] / ours:.2f}x the speed of copying the DCP folder; peak RSS "
        f"{memory['castwise dcp']:.0f} MiB vs {memory['dcp_to_torch_save script']:.0f} MiB "
        f"(largest fp32 tensor {dcp_mb / 3 / LAYERS:.0f} MB, model {dcp_mb / 3:.0f} MB)"
    )
    hand, ours = best["hand-written dequant"], best["castwise fp8"]
    ours_cpu = cpu["castwise fp8"]
    print(
        f"fp8 -> bf16: castwise {hand / ours:.2f}x the speed of the hand-written dequant, "
        f"{best['output-size copy'] / ours:.2f}x the speed of copying the output's bytes "
        f"({best['output-size copy+fsync'] / ours:.2f}x with fsync, as castwise does; in CPU time "
        f"{cpu['output-size copy'] / ours_cpu:.2f}x and {cpu['output-size copy+fsync'] / ours_cpu:.2f}x); peak RSS "
        f"{memory['castwise fp8']:.0f} MiB vs {memory['hand-written dequant']:.0f} MiB "
        f"(largest fp8 tensor {fp8_mb / LAYERS:.0f} MB, largest bf16 output tensor {2 * fp8_mb / LAYERS:.0f} MB)"
    )


if __name__ == "__main__":
    main()
