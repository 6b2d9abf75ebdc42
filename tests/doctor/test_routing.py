"""MoE routing: token choices of top-k routers under each policy against fp32."""

from __future__ import annotations

import json

import jsonschema
import pytest
import torch
from torch import nn

import castwise as cw
from castwise.doctor import REPORT_SCHEMA
from castwise.doctor.measure.routing import find_routers

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def mixtral() -> tuple[nn.Module, dict[str, torch.Tensor]]:
    torch.manual_seed(0)
    config = transformers.MixtralConfig(
        vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, num_local_experts=32, num_experts_per_tok=4, max_position_embeddings=64,
    )
    ids = torch.randint(0, 64, (4, 32), generator=torch.Generator().manual_seed(0))
    return transformers.MixtralForCausalLM(config).eval(), {"input_ids": ids}


def test_the_routers_of_a_tiny_mixtral_are_found(mixtral: tuple[nn.Module, dict]) -> None:
    model, _ = mixtral
    routers = find_routers(model)
    assert list(routers) == [f"model.layers.{i}.mlp.gate" for i in range(4)]
    assert all(k == 4 for _, k in routers.values())


def test_bf16_changes_experts_on_a_tiny_mixtral_and_the_doctor_says_what_keeping_does(
        mixtral: tuple[nn.Module, dict]) -> None:
    model, inputs = mixtral
    report = cw.diagnose(model, inputs, policies=["32-true", "bf16-true"], modes=["eval"])
    assert [r.policy for r in report.routing] == ["bf16-true"]  # fp32 policies are not routed twice
    (entry,) = report.routing
    assert entry.tokens == 4 * 32 * 4 and entry.rate > 0.03
    assert entry.keep_policy == "bf16-true,keep+=MixtralTopKRouter" and entry.changed_kept is not None
    finding = next(f for f in report.findings if f.kind == "moe_routing")
    assert f"({entry.changed} of {entry.tokens}; routers model.layers.0.mlp.gate" in finding.message
    if entry.keeping_helps:
        assert report.recommendation.policy == entry.keep_policy
    else:  # measured on torch 2.13: the flips come from the layers before the routers
        assert "does not help here" in finding.fix and report.recommendation.policy != entry.keep_policy
    data = json.loads(report.to_json())
    jsonschema.validate(data, REPORT_SCHEMA)
    assert data["routing"][0]["changed"] == entry.changed


class TinyMoE(nn.Module):
    """fp32 embeddings straight into a plain-Linear gate whose experts score nearly alike: under
    bf16-mixed only the gate rounds, and its rounding decides close calls."""

    def __init__(self, experts: int = 16, width: int = 32) -> None:
        super().__init__()
        self.top_k = 2
        self.embed = nn.Embedding(256, width)
        self.gate = nn.Linear(width, experts, bias=False)
        self.experts = nn.Linear(width, width)
        with torch.no_grad():
            self.gate.weight.copy_(torch.randn(1, width) + 1e-3 * torch.randn(experts, width))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        hidden = self.embed(ids)
        weights, _ = self.gate(hidden).softmax(-1).topk(self.top_k, dim=-1)
        return self.experts(hidden) * weights.sum(-1, keepdim=True)


def test_keeping_a_plain_linear_gate_in_fp32_is_measured_and_recommended() -> None:
    torch.manual_seed(0)
    model, ids = TinyMoE(), torch.arange(256).reshape(4, 64)
    report = cw.diagnose(model, ids, policies=["bf16-mixed"], modes=["eval"])
    (entry,) = report.routing
    assert entry.routers == ["gate"] and entry.rate > 0.5
    assert entry.keep_policy == "bf16-mixed,keep+=gate" and entry.changed_kept == 0  # its name, not every Linear
    finding = next(f for f in report.findings if f.kind == "moe_routing")
    assert finding.fix == f"keep the routers in fp32: policy {entry.keep_policy!r} (then 0 of 256 change)"
    assert report.recommendation.keep_fp32[0].modules == ["gate"]  # the output error search agrees
    loose = cw.diagnose(model, ids, policies=["bf16-mixed"], modes=["eval"], tolerance=1.0)
    assert loose.recommendation.policy == entry.keep_policy
    assert "so they are kept in fp32 (0.0% then)" in loose.recommendation.reason


def test_a_dense_model_has_no_routing_report() -> None:
    report = cw.diagnose(nn.Linear(4, 2), torch.randn(3, 4), policies=["bf16-true"], modes=["eval"])
    assert report.routing is None and json.loads(report.to_json())["routing"] is None
