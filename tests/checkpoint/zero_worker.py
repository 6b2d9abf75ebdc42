"""Trains tiny models two steps under DeepSpeed ZeRO and saves each with ``engine.save_checkpoint``;
run under ``torchrun --nproc_per_node=2`` with ``DS_ACCELERATOR=cpu`` (gloo). One launch writes every
case (stages 1, 2 and 3; bf16 and fp16; a frozen layer, a tied weight, buffers, two parameter
groups, odd sizes so partitions are padded). Rank 0 then runs the ``zero_to_fp32.py`` DeepSpeed
wrote into each checkpoint, writing ``CASE-reference/pytorch_model.bin``, and saves the frozen
layer's 16-bit weights as ``CASE-frozen.pt``."""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
from pathlib import Path

import deepspeed
import torch
import torch.distributed as dist
from deepspeed.accelerator import get_accelerator
from torch import nn
from zero_models import Net, llama

CASES = {
    "stage1-bf16": (1, "bf16", {}),
    "stage2-bf16": (2, "bf16", {"parameter_alignment": True}),
    "stage3-bf16": (3, "bf16", {"sub_group_size": 40}),
    "stage2-fp16": (2, "fp16", {}),
    "stage3-fp16": (3, "fp16", {}),
    "llama-stage3-bf16": (3, "bf16", {}),
}


def groups(model: nn.Module) -> list[dict]:
    """Weight decay for matrices, none for biases and norms: two groups, as the Trainer makes them."""
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in trainable if p.dim() > 1]
    return [{"params": decay, "weight_decay": 0.1}, {"params": [p for n, p in trainable if p.dim() <= 1]}]


def train(name: str, out: Path) -> None:
    stage, dtype, extra = CASES[name]
    torch.manual_seed(0)
    model = llama() if name.startswith("llama") else Net()
    if dist.get_rank() == 0:
        low = torch.bfloat16 if dtype == "bf16" else torch.float16
        frozen = {n: p.detach().to(low) for n, p in model.named_parameters() if not p.requires_grad}
        torch.save(frozen, out / f"{name}-frozen.pt")
        if name.startswith("llama"):
            model.config.architectures = ["LlamaForCausalLM"]
            (out / f"{name}-config.json").write_text(json.dumps(model.config.to_dict()))
    config = {
        "train_micro_batch_size_per_gpu": 2,
        "zero_optimization": {"stage": stage, **extra},
        dtype: {"enabled": True, **({"initial_scale_power": 4} if dtype == "fp16" else {})},
        "zero_allow_untested_optimizer": True,
    }
    optimizer = torch.optim.AdamW(groups(model), lr=0.05)
    engine, *_ = deepspeed.initialize(model=model, optimizer=optimizer, config=config)
    generator = torch.Generator().manual_seed(dist.get_rank())
    for _ in range(2):
        tokens = torch.randint(0, 13, (2, 3), generator=generator)
        output = engine(tokens)
        logits = output.logits if hasattr(output, "logits") else output
        engine.backward(logits.float().pow(2).mean())
        engine.step()
    engine.save_checkpoint(str(out / name))
    dist.barrier()
    if dist.get_rank() == 0:
        script = runpy.run_path(str(out / name / "zero_to_fp32.py"))
        script["convert_zero_checkpoint_to_fp32_state_dict"](str(out / name), str(out / f"{name}-reference"))
    dist.barrier()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cases", nargs="*", default=list(CASES))
    arguments = parser.parse_args()
    # DeepSpeed's CPU accelerator refuses fp16 where oneDNN has no fp16 kernels (this CPU); torch
    # runs fp16 on CPU anyway, and only the checkpoint's layout matters here.
    type(get_accelerator()).is_fp16_supported = lambda self: True
    deepspeed.init_distributed(dist_backend="gloo")
    for name in arguments.cases:
        train(name, arguments.out)
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: torch's gloo threads can abort it ("terminate called ...") after the work
