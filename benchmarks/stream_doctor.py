"""Doctor memory: peak RSS and time of the streamed doctor against the in-memory one, as depth grows.

Llama checkpoints of one realistic width (hidden 1024, MLP 2752, 16 heads, vocab 32000: 12.65M
parameters a block, 65.5M of embeddings and head) are saved in bf16 at several depths, then
``castwise doctor --hf DIR`` runs on each, in memory and with ``--stream``, every run in a fresh
subprocess whose own peak RSS (``ru_maxrss``) and wall time are read. The 16-layer checkpoint is the
issue's 268M model; its case (``-p bf16-true --mode eval``) runs too. ``baseline`` is a process that
imports castwise's CLI and transformers and diagnoses nothing. This process never loads torch: Linux
keeps ``ru_maxrss`` across ``exec``, so a child forked from a large parent would report the
parent's size (the checkpoints are therefore saved by a child too).

    .venv/bin/python benchmarks/stream_doctor.py [--depths 4 16 32] [--seven-b 2] [--folder /tmp/castwise-stream-bench]

``--seven-b N`` streams (only: the in-memory doctor would need tens of GB) a Llama of Llama-2-7B's
width with N blocks: the streamed peak does not depend on depth, so it is a 7B model's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

GIB = 1 << 30
WIDTH, MLP, HEADS, VOCAB = 1024, 2752, 16, 32000
SEVEN_B = (4096, 11008, 32)
"""Llama-2-7B's hidden size, MLP size and heads (32 blocks of 202M parameters, 262M of embeddings and head)."""
POLICIES = ("bf16-mixed", "bf16-true")


def checkpoint(root: Path, depth: int, shape: tuple[int, int, int] = (WIDTH, MLP, HEADS)) -> Path:
    """A bf16 Llama of ``depth`` blocks of ``shape`` (hidden, MLP, heads) under ``root`` (saved once by a
    child, reused)."""
    folder = root / (f"llama-{depth}" if shape == (WIDTH, MLP, HEADS) else f"llama-{'x'.join(map(str, shape))}-{depth}")
    if not (folder / "config.json").is_file():
        subprocess.run([sys.executable, __file__, "--build", str(depth), *map(str, shape), str(folder)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return folder


def build(depth: int, width: int, mlp: int, heads: int, folder: Path) -> None:
    """Save the checkpoint: random weights (std 0.02, norms 1) in bf16, embeddings and head untied."""
    import torch
    import transformers

    config = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=width, intermediate_size=mlp,
                                      num_hidden_layers=depth, num_attention_heads=heads, num_key_value_heads=heads,
                                      max_position_embeddings=256, tie_word_embeddings=False)
    torch.manual_seed(0)
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(config)
    model.to_empty(device="cpu")
    with torch.no_grad():
        for name, param in model.named_parameters():
            param.copy_(torch.ones_like(param) if "norm" in name else torch.randn_like(param) * 0.02)
    model.to(torch.bfloat16).save_pretrained(folder, max_shard_size="500MB")


def run_child(arguments: list[str]) -> dict[str, float]:
    """``castwise ARGUMENTS`` in a fresh interpreter: its peak RSS (bytes) and wall seconds."""
    command = [sys.executable, __file__, "--child", *arguments]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"castwise {' '.join(arguments)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return json.loads(lines[-1].removeprefix("RESULT "))


def child(arguments: list[str]) -> None:
    """Run the CLI in this process (nothing when ARGUMENTS is ``baseline``) and print the result line."""
    from castwise.cli import main

    start = time.perf_counter()
    code: object = 0
    if arguments != ["baseline"]:
        sys.argv = ["castwise", *arguments]
        try:
            main()
        except SystemExit as exit_:
            code = exit_.code
    else:
        import transformers  # noqa: F401 - what every --hf run imports
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print("RESULT " + json.dumps({"rss": rss, "seconds": seconds, "code": code}))


def doctor(folder: Path, stream: bool, policies: tuple[str, ...], modes: tuple[str, ...]) -> list[str]:
    arguments = ["doctor", "--hf", str(folder), "-o", os.devnull]
    arguments += [a for p in policies for a in ("-p", p)] + [a for m in modes for a in ("--mode", m)]
    return arguments + (["--stream"] if stream else [])


def streamed_only(label: str, folder: Path, modes: tuple[str, ...], baseline: float) -> None:
    streamed = run_child(doctor(folder, True, POLICIES, modes))
    print(f"| {label} | - | {streamed['rss'] / GIB:.2f} | - | - | {(streamed['rss'] - baseline) / GIB:.2f} | - | "
          f"{streamed['seconds']:.1f} | - |", flush=True)


def compare(label: str, folder: Path, policies: tuple[str, ...], modes: tuple[str, ...], baseline: float) -> None:
    memory = run_child(doctor(folder, False, policies, modes))
    streamed = run_child(doctor(folder, True, policies, modes))
    print(f"| {label} | {memory['rss'] / GIB:.2f} | {streamed['rss'] / GIB:.2f} | "
          f"{streamed['rss'] / memory['rss']:.2f} | {(memory['rss'] - baseline) / GIB:.2f} | "
          f"{(streamed['rss'] - baseline) / GIB:.2f} | {memory['seconds']:.1f} | {streamed['seconds']:.1f} | "
          f"{streamed['seconds'] / memory['seconds']:.2f} |", flush=True)


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
        return
    if sys.argv[1:2] == ["--build"]:
        build(*map(int, sys.argv[2:6]), Path(sys.argv[6]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[4, 16, 32])
    parser.add_argument("--seven-b", type=int, default=0, metavar="BLOCKS",
                        help="also stream (only) a Llama of Llama-2-7B's width with this many blocks")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/castwise-stream-bench"))
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; peak RSS in GiB, wall seconds "
          "of the whole command (loading included), each in a fresh process")
    baseline = run_child(["baseline"])["rss"]
    print(f"baseline (castwise CLI + transformers imported): {baseline / GIB:.2f} GiB\n")
    print("| model, policies, modes | in-memory GiB | streamed GiB | streamed / in-memory | in-memory above "
          "baseline | streamed above baseline | in-memory s | streamed s | time ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    folders = {depth: checkpoint(args.folder, depth) for depth in args.depths}
    for depth, folder in folders.items():
        parameters = depth * (4 * WIDTH * WIDTH + 3 * WIDTH * MLP) + 2 * VOCAB * WIDTH
        compare(f"{depth} blocks ({parameters / 1e6:.0f}M), {' + '.join(POLICIES)}, train + eval", folder,
                POLICIES, ("train", "eval"), baseline)
    if 16 in folders:
        compare("16 blocks (268M), bf16-true, eval (the issue's case)", folders[16], ("bf16-true",), ("eval",),
                baseline)
    if args.seven_b:
        width, mlp, _ = SEVEN_B
        folder = checkpoint(args.folder, args.seven_b, SEVEN_B)
        parameters = args.seven_b * (4 * width * width + 3 * width * mlp) + 2 * VOCAB * width
        for modes in (("eval",), ("train", "eval")):
            streamed_only(f"{args.seven_b} blocks of Llama-2-7B's width ({parameters / 1e6:.0f}M), "
                          f"{' + '.join(POLICIES)}, {' + '.join(modes)}", folder, modes, baseline)


if __name__ == "__main__":
    main()
