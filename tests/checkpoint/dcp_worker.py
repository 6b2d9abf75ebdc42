"""Saves an FSDP2-sharded model and its optimizer with ``torch.distributed.checkpoint``; run
under ``torchrun --nproc_per_node=2`` (gloo, CPU). Rank 0 also writes the gathered full state
dict with ``torch.save`` as the reference the test compares the converted folder against."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict, get_state_dict
from torch.distributed.fsdp import fully_shard


class Net(nn.Module):
    """A bf16 input layer, an fp32 norm and head: odd sizes so the two shards differ."""

    def __init__(self) -> None:
        super().__init__()
        self.inp = nn.Linear(8, 34).to(torch.bfloat16)
        self.norm = nn.LayerNorm(34)
        self.head = nn.Linear(34, 5)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    out = parser.parse_args().out
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = Net()
    for layer in (model.inp, model.head):
        fully_shard(layer)
    fully_shard(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1)
    for parameter in model.parameters():
        parameter.grad = torch.ones_like(parameter)
    optimizer.step()
    model_state, optim_state = get_state_dict(model, optimizer)
    dcp.save({"model": model_state, "optim": optim_state, "step": 1}, checkpoint_id=out / "dcp")
    full = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    if dist.get_rank() == 0:
        torch.save(full, out / "full.pt")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: torch's gloo threads can abort it ("terminate called ...") after the work
