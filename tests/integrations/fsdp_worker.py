"""Trains a tiny model a few steps with castwise.integrations.fsdp; run under torchrun.

Also importable: the test uses ``build_model``, ``batches`` and ``train`` for the one-process
reference, so both runs see the same weights and data.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

STEPS = 4
GLOBAL_BATCH = 8


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inp = nn.Linear(8, 32)
        self.norm = nn.LayerNorm(32)
        self.hidden = nn.Linear(32, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.hidden(self.norm(self.inp(x)))))


def build_model() -> Net:
    torch.manual_seed(0)
    return Net()


def batches() -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The same global batch every step, so the loss must fall."""
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(GLOBAL_BATCH, 8, generator=g), torch.randint(0, 4, (GLOBAL_BATCH,), generator=g)
    return [(x, y)] * STEPS


def train(model: nn.Module, rank: int = 0, world: int = 1) -> tuple[list[float], list[str]]:
    """SGD steps on this rank's slice of each global batch; the global mean losses and output dtypes."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    losses, output_dtypes = [], []
    for x, y in batches():
        out = model(x.chunk(world)[rank])
        loss = F.cross_entropy(out.float(), y.chunk(world)[rank])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total = loss.detach().clone()
        if world > 1:
            dist.all_reduce(total)
        losses.append(total.item() / world)
        output_dtypes.append(str(out.dtype))
    return losses, output_dtypes


def _local_dtypes(model: nn.Module) -> dict[str, str]:
    return {name: str(p.to_local().dtype) for name, p in model.named_parameters()}


def run(policy: str, out: Path, rank: int, world: int) -> dict:
    import castwise as cw
    from castwise.integrations import fsdp

    model = fsdp.shard(build_model(), policy)
    losses, output_dtypes = train(model, rank, world)
    result = {"losses": losses, "output_dtypes": output_dtypes, "sharded_dtypes": _local_dtypes(model)}
    state = fsdp.full_state_dict(model)
    result["full_keys"] = sorted(state)
    if rank == 0:
        path = out / f"{policy}.safetensors"
        cw.save(state, path, dtype="bf16", keep_fp32=["norm"])
        loaded = cw.load(path)
        result["saved_dtypes"] = {k: str(v.dtype) for k, v in loaded.items()}
        expected = {k: v.to(loaded[k].dtype) for k, v in state.items()}
        result["loads_back_identically"] = all(torch.equal(expected[k], loaded[k]) for k in state)
    dist.barrier()
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--policies", nargs="+", required=True)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    results = {policy: run(policy, args.out, rank, world) for policy in args.policies}
    (args.out / f"rank{rank}.json").write_text(json.dumps(results))
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
