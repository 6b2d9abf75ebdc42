"""Reference experiment: does low-precision training reach fp32's loss, and at what memory?

A character-level language model (an MLP over the previous characters) learns Python source
text that ships with Python itself (the standard library). The runs share the data order and
initial weights. ``reference``: fp32, bf16-mixed, bf16-true with plain / Kahan /
stochastic-rounding updates, 16-mixed with dynamic loss scaling, and fp8-mixed (torchao float8
linears; which Linears it converts and keeps out is printed). ``drop``: the long-run
check, where the gradients shrink 100x after a quarter of the steps (the loss is multiplied by
0.01) with AdamW's beta2 = 0.999, fp32 against bf16-true with each update rule and each way of
storing the optimizer's moments (``state``). Printed: a markdown table of final held-out loss,
gap to fp32, swamping rate, and bytes per parameter of weights + gradients + optimizer state; a
loss-curve PNG is written for BENCHMARKS.md.

    .venv/bin/python benchmarks/training.py                        # the reference run (minutes)
    .venv/bin/python benchmarks/training.py --scenario drop --steps 3000
    .venv/bin/python benchmarks/training.py --steps 200            # a quick smoke run
    .venv/bin/python benchmarks/training.py --runs 1,6,7           # fp32, bf16-mixed and the fp8 runs
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

import castwise as cw
from castwise.training import training_bytes

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (
    "argparse.py",
    "ast.py",
    "collections/__init__.py",
    "dataclasses.py",
    "enum.py",
    "functools.py",
    "inspect.py",
    "json/decoder.py",
    "json/encoder.py",
    "pathlib/__init__.py",
    "pathlib.py",
    "random.py",
    "statistics.py",
    "string.py",
    "textwrap.py",
    "typing.py",
)
VOCAB = 128


@dataclass(frozen=True)
class Run:
    """One configuration of the experiment."""

    label: str
    policy: str
    updates: str = "none"
    state: str = "auto"


SCENARIOS = {
    "reference": (
        Run("fp32", "32-true"),
        Run("bf16-mixed", "bf16-mixed"),
        Run("bf16-true, plain updates", "bf16-true", "none"),
        Run("bf16-true + Kahan", "bf16-true", "kahan"),
        Run("bf16-true + stochastic rounding", "bf16-true", "stochastic"),
        Run("16-mixed + loss scaling", "16-mixed"),
        Run("fp8-mixed", "fp8-mixed"),
        Run("fp8-mixed, every Linear in fp8", "p=f32,c=bf16,o=f32,fp8=tensorwise,fp8_keep_out="),
    ),
    "drop": (
        Run("fp32", "32-true"),
        Run("bf16-true + Kahan, state nearest (torch-optimi)", "bf16-true", "kahan", "nearest"),
        Run("bf16-true + Kahan, state stochastic (auto)", "bf16-true", "kahan", "stochastic"),
        Run("bf16-true + Kahan, state fp32", "bf16-true", "kahan", "fp32"),
        Run("bf16-true + stochastic rounding, state stochastic (auto)", "bf16-true", "stochastic"),
    ),
}
DROP = {"at": 0.25, "factor": 0.01, "betas": (0.9, 0.999)}
"""The drop scenario: where the gradients shrink, by how much, and AdamW's betas (torch's)."""


@dataclass
class Result:
    """What one run produced."""

    run: Run
    eval_loss: float
    swamping_rate: float
    deferred_rate: float
    bytes_per_param: float
    skipped_steps: int
    seconds: float
    curve: list[float] = field(default_factory=list)


class CharMLP(nn.Module):
    """Predicts the next character from the previous ``context`` characters."""

    def __init__(self, context: int, embed: int = 24, hidden: int = 384) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, embed)
        self.fc1 = nn.Linear(context * embed, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, VOCAB)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens).flatten(1)
        x = F.gelu(self.norm(self.fc1(x)))
        return self.head(F.gelu(self.fc2(x)))


def corpus() -> torch.Tensor:
    """The standard library sources above as ASCII codes (others become '?')."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    text = "\n".join((stdlib / name).read_text(encoding="utf-8") for name in SOURCES if (stdlib / name).is_file())
    codes = [c if c < VOCAB else ord("?") for c in text.encode("ascii", "replace")]
    return torch.tensor(codes, dtype=torch.long)


def windows(data: torch.Tensor, starts: torch.Tensor, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs (``context`` characters) and targets (the next one) at each start."""
    offsets = torch.arange(context)
    return data[starts[:, None] + offsets], data[starts + context]


def learning_rate(step: int, steps: int, peak: float, warmup: int) -> float:
    """Linear warmup, then cosine decay to zero: the low-lr tail is where bf16 swamps."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * 0.5 * (1 + math.cos(math.pi * progress))


def train(run: Run, data: dict[str, torch.Tensor], args: argparse.Namespace) -> Result:
    """Train one configuration from the shared initial weights; evaluate in its own precision."""
    torch.manual_seed(args.seed)
    model = cw.apply(CharMLP(args.context), run.policy)
    if model.fp8_report is not None:
        print(f"{run.label}: {model.fp8_report.summary()}", flush=True)
    drop = args.scenario == "drop"
    betas = {"betas": DROP["betas"]} if drop else {}
    optimizer = cw.make_optimizer(
        model,
        "adamw",
        lr=args.lr,
        updates=run.updates,
        state=run.state,
        weight_decay=args.weight_decay,
        **betas,
    )
    drop_step = int(args.steps * DROP["at"]) if drop else args.steps
    scaler = cw.LossScaler(run.policy)
    monitor = cw.PrecisionMonitor(model, optimizer, scaler=scaler, every=args.monitor_every)
    curve, smoothed = [], None
    started = time.perf_counter()
    for step, starts in enumerate(data["batches"]):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, args.steps, args.lr, args.warmup)
        inputs, targets = windows(data["train"], starts, args.context)
        loss = F.cross_entropy(model(inputs), targets)
        factor = DROP["factor"] if step >= drop_step else 1.0
        scaler.scale(loss * factor).backward()
        with monitor.observe():
            scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        smoothed = loss.item() if smoothed is None else 0.98 * smoothed + 0.02 * loss.item()
        curve.append(smoothed)
    seconds = time.perf_counter() - started
    history = monitor.history
    return Result(
        run=run,
        eval_loss=evaluate(model, data, args.context),
        swamping_rate=statistics.fmean(h["swamping_rate"] for h in history),
        deferred_rate=statistics.fmean(h["deferred_rate"] for h in history),
        bytes_per_param=training_bytes(model, optimizer).per_parameter,
        skipped_steps=scaler.skipped_steps,
        seconds=seconds,
        curve=curve,
    )


@torch.no_grad()
def evaluate(model: nn.Module, data: dict[str, torch.Tensor], context: int) -> float:
    """Mean cross-entropy (nats per character) on the held-out text."""
    inputs, targets = windows(data["eval"], data["eval_starts"], context)
    losses = [F.cross_entropy(model(x), y, reduction="sum") for x, y in zip(inputs.split(2048), targets.split(2048))]
    return float(sum(losses) / len(targets))


def prepare(args: argparse.Namespace) -> dict[str, torch.Tensor]:
    """Split the corpus (last 10% held out) and draw every run's batches up front."""
    text = corpus()
    split = int(len(text) * 0.9)
    train_text, eval_text = text[:split], text[split:]
    generator = torch.Generator().manual_seed(args.seed)
    batches = torch.randint(0, len(train_text) - args.context - 1, (args.steps, args.batch), generator=generator)
    eval_starts = torch.randint(0, len(eval_text) - args.context - 1, (args.eval_size,), generator=generator)
    return {"train": train_text, "eval": eval_text, "batches": batches, "eval_starts": eval_starts}


def table(results: list[Result]) -> str:
    """The markdown table for BENCHMARKS.md."""
    reference = results[0]
    rows = [
        (
            "| run | final eval loss | gap to fp32 | swamping rate (deferred) "
            "| bytes/param (vs fp32) | skipped steps | time |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        gap = (r.eval_loss - reference.eval_loss) / reference.eval_loss
        deferred = f" ({r.deferred_rate:.0%})" if r.deferred_rate else ""
        ratio = r.bytes_per_param / reference.bytes_per_param
        rows.append(
            f"| {r.run.label} | {r.eval_loss:.5f} | {gap:+.2%} | {r.swamping_rate:.1%}{deferred} | "
            f"{r.bytes_per_param:.2f} ({ratio:.3f}x) | {r.skipped_steps} | {r.seconds:.0f} s |"
        )
    return "\n".join(rows)


def plot(results: list[Result], path: Path) -> None:
    """Smoothed training loss of every run, with a zoom on the last 40% of steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (full, tail) = plt.subplots(1, 2, figsize=(12, 4.5))
    start = int(len(results[0].curve) * 0.6)
    for r in results:
        full.plot(r.curve, label=r.run.label, linewidth=1.2)
        tail.plot(range(start, len(r.curve)), r.curve[start:], label=r.run.label, linewidth=1.2)
    full.set(title="training loss (EMA 0.98)", xlabel="step", ylabel="cross-entropy (nats/char)")
    tail.set(title="last 40% of steps (lr decays to 0)", xlabel="step")
    full.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="reference")
    parser.add_argument("--runs", help="comma-separated indices of the scenario's runs (fp32, 0, always runs)")
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--context", type=int, default=12)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--weight-decay", type=float, default=0.0)
    parser.add_argument("--eval-size", type=int, default=16384)
    parser.add_argument("--monitor-every", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--plot", type=Path, help="loss-curve PNG (default: docs/img/)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    suffix = "" if args.scenario == "reference" else f"_{args.scenario}"
    args.plot = args.plot or ROOT / "docs" / "img" / f"training_loss{suffix}.png"
    data = prepare(args)
    results = []
    runs = SCENARIOS[args.scenario]
    if args.runs:
        runs = (runs[0], *(runs[int(i)] for i in args.runs.split(",") if int(i) != 0))
    for run in runs:
        results.append(train(run, data, args))
        print(
            f"{run.label}: eval loss {results[-1].eval_loss:.6f} ({results[-1].seconds:.0f} s)",
            flush=True,
        )
    print()
    print(table(results))
    plot(results, args.plot)
    print(f"\nloss curves: {args.plot}")
    if args.json:
        rows = [{k: v for k, v in vars(r).items() if k != "curve"} | {"run": r.run.label} for r in results]
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
