"""Trial training: the same weights and batches under fp32 and each policy, through castwise's training parts."""

from __future__ import annotations

import json

import jsonschema
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import castwise as cw
from castwise.doctor import REPORT_SCHEMA

pytest.importorskip("optimi")


class Wide(nn.Module):
    """Weights of magnitude 4-5: an AdamW step of 1e-2 is below half a bf16 ulp there (2^-6)."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(16, 4, bias=False)
        with torch.no_grad():
            self.layer.weight.copy_((4 + torch.rand(4, 16)) * torch.randn(4, 16).sign())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x) / 16


def _kinds(report: cw.Report) -> set[str]:
    return {f.kind for f in report.findings}


@pytest.fixture(scope="module")
def swamped() -> cw.Report:
    """A trial whose recommendation does not depend on this machine's load: the rule that passes
    over runs measured slower than ``SLOW`` times fp32 (a timing) is switched off here."""
    torch.manual_seed(0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("castwise.doctor.judge.recommend.SLOW", float("inf"))
        return cw.diagnose(Wide(), torch.randn(8, 16), policies=["bf16-mixed", "bf16-true"], train_steps=30, lr=1e-2)


def test_plain_bf16_updates_are_rounded_away_and_kahan_closes_the_gap(swamped: cw.Report) -> None:
    training = swamped.training
    plain, kahan = training.run("bf16-true"), training.run("bf16-true", "kahan")
    assert [run.label for run in training.runs] == ["bf16-mixed", "bf16-true", "bf16-true + kahan"]
    assert plain.swamping_rate > 0.9 and kahan.swamping_rate == 0.0
    assert plain.final_gap > 0.05 and not training.passes(plain)
    assert abs(kahan.final_gap) < 0.01 and training.passes(kahan)
    reference = training.reference.losses
    assert reference[-1] < 0.95 * reference[0]  # fp32 learns
    assert plain.losses[-1] > 0.99 * plain.losses[0]  # plain bf16 barely moves
    assert all(abs(run.losses[0] - reference[0]) / reference[0] < 1e-2 for run in training.runs)  # same start


def test_the_doctor_says_kahan_fixes_it(swamped: cw.Report) -> None:
    gap = next(f for f in swamped.findings if f.kind == "training_gap")
    assert gap.policy == "bf16-true" and "updates were rounded away" in gap.message
    assert "updates='kahan'" in gap.fix
    recommendation = swamped.recommendation
    assert (recommendation.policy, recommendation.updates) == ("bf16-true", "kahan")
    assert swamped.ok  # Kahan updates train like fp32
    assert "Kahan-compensated updates" in recommendation.reason and "after 30 steps" in recommendation.reason


def test_memory_is_measured_per_part(swamped: cw.Report) -> None:
    training = swamped.training
    reference, plain, kahan = training.reference, training.run("bf16-true"), training.run("bf16-true", "kahan")
    assert (reference.memory.params, reference.memory.grads) == (4 * 64, 4 * 64)
    assert reference.memory.optimizer >= 2 * 4 * 64  # AdamW's two moments
    assert (plain.memory.params, plain.memory.grads) == (2 * 64, 2 * 64)
    assert kahan.memory.optimizer > plain.memory.optimizer  # the Kahan buffer
    assert reference.memory.activations > 0
    assert plain.memory_ratio == pytest.approx(plain.memory.total / reference.memory.total)
    assert plain.time_ratio == pytest.approx(plain.step_seconds / reference.step_seconds)


def test_training_is_in_the_json_and_reads_back(swamped: cw.Report) -> None:
    data = json.loads(swamped.to_json())
    jsonschema.validate(data, REPORT_SCHEMA)
    assert len(data["training"]["runs"][1]["losses"]) == 30
    assert cw.Report.from_json(swamped.to_json()) == swamped


def test_fp16_without_loss_scaling_loses_its_gradients_and_with_it_trains() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))
    x, target = torch.randn(4096, 16), torch.randn(4096, 16)
    unscaled = "p=f32,c=f16,o=f32,scaling=none"
    report = cw.diagnose(model, x, policies=["16-mixed", unscaled], modes=["train"], train_steps=12, lr=1e-2,
                         batches=[(x, target)], loss_fn=lambda out, t: F.mse_loss(out.float(), t) * 1e-4)
    training = report.training
    scaled, plain = training.run("16-mixed"), training.runs[1]
    assert plain.grad_underflow == 1.0 and not training.passes(plain)
    assert scaled.grad_underflow < 0.01 and training.passes(scaled) and scaled.loss_scale == 2.0**16
    gap = next(f for f in report.findings if f.kind == "training_gap")
    assert gap.policy == plain.policy and "gradients underflowed" in gap.message and "loss scaling" in gap.fix
    assert report.recommendation.policy == "16-mixed"
    assert not report.ok  # the unscaled policy does not train like fp32: `castwise doctor` exits 1


def test_fp16_loss_scaling_skips_steps_while_the_scale_settles_and_says_so() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 2))
    x = torch.randn(4, 8)
    report = cw.diagnose(model, x, policies=["16-mixed"], modes=["eval"], train_steps=12, lr=1e-2,
                         batches=[(x, 100 * torch.randn(4, 2))])
    run = report.training.run("16-mixed")
    assert run.skipped_steps >= 3 and run.loss_scale == 2.0**16 / 2**run.skipped_steps
    finding = next(f for f in report.findings if f.kind == "skipped_steps")
    assert f"{run.skipped_steps} of 12 optimizer steps skipped" in finding.message and finding.severity == "info"
    assert report.training.loss == "MSE to the batch targets"


def test_a_healthy_model_raises_no_alarm() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.LayerNorm(32), nn.GELU(), nn.Linear(32, 4))
    x, labels = torch.randn(16, 8), torch.randint(0, 4, (16,))
    report = cw.diagnose(model, x, policies=["tf32", "bf16-mixed"], train_steps=20, batches=[(x, labels)])
    assert not _kinds(report) & {"training_gap", "training_failed", "skipped_steps", "moe_routing"}
    assert all(report.training.passes(run) for run in report.training.runs)
    assert report.training.loss == "cross-entropy to the batch targets"
    assert report.recommendation.policy == "bf16-mixed" and report.recommendation.updates == "none"
    assert "trains like fp32" in report.recommendation.reason and "the memory" in report.recommendation.reason


def test_a_policy_that_raises_in_training_is_reported_not_fatal() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 2))
    model[1].register_forward_pre_hook(lambda module, args: (args[0].float(),))  # fp32 into a bf16 weight
    report = cw.diagnose(model, torch.randn(4, 8), policies=["bf16-true"], modes=["eval"], train_steps=3)
    run = report.training.run("bf16-true")
    assert not run.ok and run.exception.startswith("RuntimeError: ") and run.exception.endswith("(step 0)")
    assert "training_failed" in _kinds(report)
    assert report.training.reference.ok and len(report.training.reference.losses) == 3


def test_training_that_fails_in_fp32_too_is_not_blamed_on_the_policy() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 3), nn.Softmax(-1))
    model[1].register_forward_hook(lambda module, args, out: out.argmax(-1))  # no floating output to train on
    report = cw.diagnose(model, torch.randn(4, 8), policies=["bf16-mixed"], modes=["eval"], train_steps=2)
    assert not report.training.reference.ok
    failed = [f for f in report.findings if f.kind == "training_failed"]
    assert [f.policy for f in failed] == ["bf16-mixed"]
    assert failed[0].fix == ("the fp32 trial training fails too: make the model train in float32 first (this is "
                             "not a precision problem)")


def test_progress_counts_up_to_the_total() -> None:
    seen: list[tuple[str, int, int]] = []
    cw.diagnose(nn.Linear(4, 2), torch.randn(3, 4), policies=["bf16-mixed"], modes=["eval"], train_steps=4,
                progress=lambda text, done, total: seen.append((text, done, total)))
    assert [done for _, done, _ in seen] == list(range(len(seen)))
    assert seen[-1][2] == len(seen) and seen[-1][0].startswith("training step 4/4")


@pytest.mark.parametrize("kwargs, message", [
    ({"train_steps": -1}, "train_steps must be a whole number"),
    ({"train_steps": 2, "lr": 0.0}, "lr must be a positive number"),
    ({"train_steps": 2, "batches": [torch.randn(3, 4)]}, r"batches must yield \(inputs, target\) pairs"),
    ({"train_steps": 2, "batches": []}, "batches yielded nothing"),
])
def test_bad_training_arguments_are_value_errors(kwargs: dict, message: str) -> None:
    model = nn.Linear(4, 2)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(ValueError, match=message):
        cw.diagnose(model, torch.randn(3, 4), policies=["bf16-mixed"], **kwargs)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
