"""fp8-mixed: castwise against the same fp8 training step written by hand with torchao.

A Llama-shaped stack (RMSNorm, q/k/v/o projections, SwiGLU MLP) between an input and an output
Linear. Ways, timed in one run and interleaved step by step:

* ``castwise fp8-mixed``: ``cw.apply(model, "fp8-mixed")``;
* ``torchao by hand``: ``convert_to_float8_training`` on the same Linears (all but the first and
  last), ``torch.autocast`` in bf16, the output cast to fp32, as a careful user writes it;
* ``castwise bf16-mixed`` and ``autocast by hand``: the bf16 baselines.

Also prints each way's relative error against fp32 (the forward output and one weight gradient).
fp8 is faster than bf16 only on GPUs with fp8 tensor cores (CUDA sm89+: H100, H200); on CPU
``torch._scaled_mm`` runs but is not fast, so CPU figures measure castwise's overhead and numerics.

    .venv/bin/python benchmarks/fp8.py [--steps 30] [--hidden 256] [--compile]
"""

from __future__ import annotations

import argparse
import copy
import warnings

import torch
from torch import nn
from torch.nn import functional as F
from torchao.float8 import Float8LinearConfig, convert_to_float8_training

import castwise as cw
from common import Step, machine, measure, print_ratios


class Block(nn.Module):
    """One Llama decoder layer: pre-norm attention and a SwiGLU MLP, with residuals."""

    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.attn_norm, self.mlp_norm = nn.RMSNorm(hidden), nn.RMSNorm(hidden)
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(hidden, hidden, bias=False) for _ in range(4))
        self.gate_proj = nn.Linear(hidden, 4 * hidden, bias=False)
        self.up_proj = nn.Linear(hidden, 4 * hidden, bias=False)
        self.down_proj = nn.Linear(4 * hidden, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, hidden = x.shape
        h = self.attn_norm(x)
        q, k, v = (p(h).view(batch, length, self.heads, -1).transpose(1, 2)
                   for p in (self.q_proj, self.k_proj, self.v_proj))
        attention = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o_proj(attention.transpose(1, 2).reshape(batch, length, hidden))
        h = self.mlp_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class Stack(nn.Module):
    def __init__(self, hidden: int, layers: int, heads: int) -> None:
        super().__init__()
        self.inp = nn.Linear(hidden, hidden)
        self.blocks = nn.Sequential(*(Block(hidden, heads) for _ in range(layers)))
        self.head = nn.Linear(hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(self.inp(x)))


def by_hand(model: nn.Module, fp8: bool, device: str) -> nn.Module:
    """What a user writes without castwise: torchao on all Linears but the first and last, autocast."""
    if fp8:
        convert_to_float8_training(model, module_filter_fn=lambda _, fqn: fqn not in ("inp", "head"),
                                   config=Float8LinearConfig.from_recipe_name("tensorwise"))

    class Autocast(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with torch.autocast(device, dtype=torch.bfloat16):
                return self.model(x).float()
    return Autocast()


def step_of(model: nn.Module, x: torch.Tensor) -> Step:
    def step() -> None:
        model(x).square().mean().backward()
    return step


def stack_of(model: nn.Module) -> Stack:
    """The Stack inside a way (compiled, castwise-wrapped or hand-written)."""
    model = cw.unwrap(getattr(model, "_orig_mod", model))
    return getattr(model, "model", model)


def relative_errors(model: nn.Module, reference: nn.Module, x: torch.Tensor) -> tuple[float, float]:
    """Relative L2 error of the output and of the first block's down_proj weight gradient."""
    out, ref = model(x), reference(x)
    out.square().mean().backward()
    ref.square().mean().backward()
    grad = stack_of(model).blocks[0].down_proj.weight.grad
    ref_grad = reference.blocks[0].down_proj.weight.grad
    return ((out - ref).norm() / ref.norm()).item(), ((grad - ref_grad).norm() / ref_grad.norm()).item()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--hidden", type=int, default=256, help="4096 on a GPU, for fp8 to pay")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=512, help="batch x sequence length")
    parser.add_argument("--compile", action="store_true", help="time torch.compile'd ways too (fp8 and bf16)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        torch.set_num_threads(1)
    print(f"{machine()}, {device}{', 1 thread' if device == 'cpu' else ''}; hidden {args.hidden}, "
          f"{args.layers} layers, {args.tokens} tokens; {args.steps} steps per way, median ms/step")
    if device == "cpu":
        print("note: CPU runs fp8 matmuls without fp8 hardware: fp8 speed needs CUDA sm89+ (H100/H200)")
    torch.manual_seed(0)
    base = Stack(args.hidden, args.layers, heads=max(1, args.hidden // 64)).to(device)
    x = torch.randn(args.tokens // 128 or 1, 128, args.hidden, device=device)
    fp8_model = cw.apply(copy.deepcopy(base), "fp8-mixed")
    print(fp8_model.fp8_report.summary())
    ways = {
        "castwise fp8-mixed": fp8_model,
        "torchao by hand": by_hand(copy.deepcopy(base), True, device),
        "castwise bf16-mixed": cw.apply(copy.deepcopy(base), "bf16-mixed"),
        "autocast by hand": by_hand(copy.deepcopy(base), False, device),
    }
    if args.compile:
        ways["castwise fp8-mixed compiled"] = torch.compile(cw.apply(copy.deepcopy(base), "fp8-mixed"))
        ways["torchao by hand compiled"] = torch.compile(by_hand(copy.deepcopy(base), True, device))
        ways["castwise bf16-mixed compiled"] = torch.compile(cw.apply(copy.deepcopy(base), "bf16-mixed"))
    print("\nrelative error against fp32 (output, down_proj weight gradient):")
    for name, model in ways.items():
        out_error, grad_error = relative_errors(model, copy.deepcopy(base), x)
        print(f"  {name:<30} {out_error:.2e}  {grad_error:.2e}")
    median = measure({name: step_of(model, x) for name, model in ways.items()}, args.steps, warmup=3)
    print_ratios("forward+backward step", median, "castwise fp8-mixed")


if __name__ == "__main__":
    main()
