"""castwise.integrations.fsdp: the policy mapping, and real two-process training with torchrun."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import fsdp_worker
import pytest
import torch
from torch import nn

import castwise as cw
from castwise.integrations import fsdp

WORKER = Path(__file__).with_name("fsdp_worker.py")
TORCHRUN = Path(sys.executable).with_name("torchrun")
POLICIES = ("bf16-mixed", "bf16-true")
BF16_RTOL = 2e-2


@pytest.mark.parametrize(
    ("policy", "param", "reduce", "output"),
    [
        ("bf16-mixed", torch.bfloat16, torch.float32, torch.float32),
        ("bf16-true", torch.bfloat16, torch.float32, torch.float32),
        ("16-mixed", torch.float16, torch.float32, torch.float32),
        ("params=f32,compute=bf16,output=bf16", torch.bfloat16, torch.float32, torch.bfloat16),
        ("32-true", torch.float32, None, torch.float32),
    ],
)
def test_mixed_precision_policy_follows_the_castwise_policy(policy, param, reduce, output):
    mp = fsdp.mixed_precision_policy(policy)
    assert (mp.param_dtype, mp.reduce_dtype, mp.output_dtype, mp.cast_forward_inputs) == (param, reduce, output, True)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="unknown precision 'bf16-mix'"):
        fsdp.mixed_precision_policy("bf16-mix")
    with pytest.raises(TypeError, match="plain model"):
        fsdp.shard(cw.apply(nn.Linear(2, 2), "bf16-mixed"), "bf16-mixed")
    with pytest.raises(TypeError, match="mp_policy"):
        fsdp.shard(nn.Linear(2, 2), "bf16-mixed", mp_policy=fsdp.mixed_precision_policy("32-true"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def two_process_run(tmp_path_factory) -> dict[int, dict]:
    """Both policies trained by ``torchrun --nproc_per_node=2`` on CPU with gloo; results per rank."""
    out = tmp_path_factory.mktemp("fsdp")
    command = [
        str(TORCHRUN), "--nproc_per_node=2", f"--master_port={_free_port()}", "--master_addr=127.0.0.1",
        str(WORKER), "--out", str(out), "--policies", *POLICIES,
    ]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {rank: json.loads((out / f"rank{rank}.json").read_text()) for rank in (0, 1)}


@pytest.mark.parametrize("policy", POLICIES)
def test_two_processes_match_one_process_within_bf16_tolerance(two_process_run, policy):
    reference, _ = fsdp_worker.train(cw.apply(fsdp_worker.build_model(), policy))
    losses = [two_process_run[rank][policy]["losses"] for rank in (0, 1)]
    assert losses[0] == losses[1]
    torch.testing.assert_close(torch.tensor(losses[0]), torch.tensor(reference), rtol=BF16_RTOL, atol=0)
    assert losses[0][-1] < losses[0][0]
    assert set(two_process_run[0][policy]["output_dtypes"]) == {"torch.float32"}


def test_kept_modules_are_fp32_units_and_the_rest_follows_the_policy(two_process_run):
    for rank in (0, 1):
        mixed = two_process_run[rank]["bf16-mixed"]["sharded_dtypes"]
        true = two_process_run[rank]["bf16-true"]["sharded_dtypes"]
        assert set(mixed.values()) == {"torch.float32"}
        assert {name: dtype for name, dtype in true.items() if dtype == "torch.float32"} == {
            "norm.weight": "torch.float32", "norm.bias": "torch.float32",
        }
        assert set(true.values()) == {"torch.float32", "torch.bfloat16"}


@pytest.mark.parametrize("policy", POLICIES)
def test_gathered_state_dict_saves_in_the_storage_dtype_and_loads_back(two_process_run, policy):
    result = two_process_run[0][policy]
    assert result["full_keys"] == sorted(n for n, _ in fsdp_worker.build_model().named_parameters())
    assert two_process_run[1][policy]["full_keys"] == []  # gathered on rank 0 only
    assert result["loads_back_identically"] is True
    saved = result["saved_dtypes"]
    assert {n: d for n, d in saved.items() if n.startswith("norm.")} == {
        "norm.weight": "torch.float32", "norm.bias": "torch.float32",
    }
    assert {d for n, d in saved.items() if not n.startswith("norm.")} == {"torch.bfloat16"}
