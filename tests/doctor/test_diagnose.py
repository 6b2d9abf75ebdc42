"""``cw.diagnose``: tracing, failures, numerics, findings and the recommendation on real models."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from planted import Loud
from torch import nn

import castwise as cw
from castwise.doctor import example_inputs, example_model


class Mixer(nn.Module):
    """Multiplies by a fixed basis held as a plain tensor attribute: no policy converts it."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.basis = torch.randn(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.basis


class BufferNet(nn.Module):
    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.inp = nn.Linear(width, width)
        self.mixer = Mixer(width)
        self.out = nn.Linear(width, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.mixer(self.inp(x))))


def _seeded(cls: type[nn.Module]) -> nn.Module:
    torch.manual_seed(0)
    return cls()


@pytest.fixture(scope="module")
def example_report() -> cw.Report:
    return cw.diagnose(example_model(), example_inputs())


def test_fp32_attribute_in_a_matmul_names_the_module_and_the_fix() -> None:
    report = cw.diagnose(_seeded(BufferNet), torch.randn(4, 8), policies=["bf16-true"], tolerance=5e-2)
    result = report.policy("bf16-true")
    assert not result.ok and not report.ok
    for run in result.runs:
        assert run.failing_module == "mixer"
        assert run.exception.startswith("RuntimeError: expected m1 and m2 to have the same dtype")
        assert run.explanation["kind"] == "matmul_dtype"
    failure = next(f for f in report.findings if f.severity == "error")
    assert (failure.module, failure.policy, failure.kind) == ("mixer", "bf16-true", "exception")
    assert "(train/eval) raised in module mixer" in failure.message
    assert "keeping mixer in fp32 makes bf16-true pass" in failure.fix
    attribute = next(f for f in report.findings if f.kind == "tensor_attribute")
    assert attribute.module == "mixer" and "'basis'" in attribute.message and "register_buffer('basis'" in attribute.fix
    (fix,) = report.recommendation.keep_fp32
    assert (fix.policy, fix.modules, fix.ok, fix.tried) == ("bf16-true", ["mixer"], True, 1)
    assert fix.error < 5e-2


def test_fp16_overflow_is_flagged_and_bf16_recommended() -> None:
    policies = ["16-true", "16-mixed", "bf16-true", "bf16-mixed"]
    report = cw.diagnose(_seeded(Loud), torch.randn(4, 8), policies=policies, tolerance=5e-2)
    for name in ("16-true", "16-mixed"):
        result = report.policy(name)
        assert result.ok and not result.within_tolerance
        assert all(run.overflow == 8 for run in result.runs)
        up = next(m for m in result.run("eval").modules if m.name == "up")
        assert up.overflow > 0 and up.outputs == ["f16"]
        finding = next(f for f in report.findings if f.kind == "fp16_overflow" and f.policy == name)
        assert finding.module == "up" and "65504" in finding.message and "use bf16" in finding.fix
    assert report.policy("bf16-true").within_tolerance
    assert report.recommendation.policy == "bf16-true"


def test_example_recommendation_and_per_module_dtypes(example_report: cw.Report) -> None:
    report = example_report
    assert [p.policy for p in report.policies] == ["32-true", "tf32", "bf16-mixed", "16-mixed", "bf16-true", "16-true"]
    assert report.ok and all(p.within_tolerance for p in report.policies)
    assert report.policy("32-true").max_error == 0.0
    assert report.policy("16-true").max_error < report.policy("bf16-true").max_error < report.tolerance
    assert report.recommendation.policy == "bf16-true"  # 16-bit storage without fp16's loss scaling and range
    mixed = {m.name: m for m in report.policy("bf16-mixed").run("train").modules}
    assert mixed["head"].autocast and mixed["head"].params == ["f32"] and mixed["head"].outputs == ["bf16"]
    norm = mixed["encoder.layers.0.norm1"]
    assert norm.kept_fp32 and not norm.autocast and norm.inputs == ["f32"]
    true = {m.name: m for m in report.policy("bf16-true").run("eval").modules}
    assert true["embed"].params == ["bf16"] and not true["embed"].autocast
    assert true["encoder.layers.1.linear1"].error > 0
    assert report.policy("bf16-true").run("eval").output_dtype == "f32"
    fastpath = next(f for f in report.findings if f.kind == "fastpath")
    assert fastpath.module == "encoder.layers.0"


def test_example_memory_is_estimated_from_tensor_sizes(example_report: cw.Report) -> None:
    fp32 = example_report.policy("32-true")
    true = example_report.policy("bf16-true")
    params = sum(p.numel() for p in example_model().parameters())
    norms = sum(p.numel() for n, p in example_model().named_parameters() if "norm" in n)
    assert fp32.run("train").memory.params == 4 * params
    assert true.run("train").memory.params == 2 * (params - norms) + 4 * norms
    assert true.run("train").memory.grads == true.run("train").memory.params
    assert true.run("eval").memory.grads == 0
    assert 0 < true.run("train").memory.activations < fp32.run("train").memory.activations


def test_keep_fp32_search_brings_a_failing_policy_within_tolerance() -> None:
    model, inputs = example_model(), example_inputs()
    report = cw.diagnose(model, inputs, policies=["bf16-mixed"], tolerance=3e-3)
    assert not report.policy("bf16-mixed").within_tolerance
    (fix,) = report.recommendation.keep_fp32
    assert fix.ok and fix.modules and fix.error <= 3e-3
    finding = next(f for f in report.findings if f.kind == "keep_fp32")
    keep_policy = cw.Policy.parse("bf16-mixed").replace(
        keep_fp32=cw.Policy.parse("bf16-mixed").keep_fp32 + tuple(fix.modules))
    assert repr(str(keep_policy)) in finding.fix
    assert report.recommendation.policy == str(keep_policy)  # verified, and no diagnosed policy passes
    again = cw.diagnose(model, inputs, policies=[keep_policy], tolerance=3e-3)
    assert again.policies[0].within_tolerance and again.recommendation.policy == str(keep_policy)


def test_loss_fn_adds_loss_and_gradient_comparison() -> None:
    model, inputs = example_model(), example_inputs()
    targets = torch.tensor([0, 1, 2, 3])
    report = cw.diagnose(model, inputs, policies=["bf16-mixed"], modes=["train"],
                         loss_fn=lambda logits: F.cross_entropy(logits.float(), targets))
    (reference,) = report.reference
    (run,) = report.policy("bf16-mixed").runs
    assert reference.loss == pytest.approx(F.cross_entropy(model(*inputs), targets).item(), rel=1e-5)
    assert run.loss_error == pytest.approx(abs(run.loss - reference.loss) / reference.loss)
    assert 0 < run.loss_error < 1e-2
    head = next(m for m in run.modules if m.name == "head")
    assert head.grad_error is not None and 0 < head.grad_error < 0.1 and head.grad_overflow == 0


def test_fp16_gradient_underflow_is_flagged() -> None:
    report = cw.diagnose(_seeded(BufferNet).out, torch.randn(4, 8), policies=["16-true"], modes=["train"],
                         loss_fn=lambda out: out.float().sum() * 1e-9)
    (run,) = report.policy("16-true").runs
    assert run.modules[0].grad_underflow == 1.0
    finding = next(f for f in report.findings if f.kind == "gradient_underflow")
    assert "100.0%" in finding.message and "loss scaling" in finding.fix


def test_the_model_is_left_untouched() -> None:
    model = example_model()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    cw.diagnose(model, example_inputs(), policies=["bf16-true"], modes=["eval"])
    assert all(torch.equal(before[k], v) and v.dtype == before[k].dtype for k, v in model.state_dict().items())
    assert not model._forward_hooks and not model.head._forward_pre_hooks


def test_no_global_hook_outlives_a_diagnosis() -> None:
    """torch forgets a removed global hook's with_kwargs flag; left there, every later compile warns."""
    cw.diagnose(example_model(), example_inputs(), policies=["bf16-true"], modes=["eval"])
    failed = cw.diagnose(nn.Linear(3, 2), torch.randn(2, 5), policies=["bf16-true"], modes=["eval"])
    assert not failed.ok and failed.reference[0].exception
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.compile(nn.Linear(2, 2), backend="eager")(torch.randn(1, 2))
    assert [w for w in caught if issubclass(w.category, UserWarning)] == []


def test_bad_modes_and_policies_are_value_errors() -> None:
    with pytest.raises(ValueError, match="modes"):
        cw.diagnose(example_model(), example_inputs(), modes=["predict"])
    with pytest.raises(ValueError, match="unknown precision"):
        cw.diagnose(example_model(), example_inputs(), policies=["bf17"])


def test_a_loss_that_fails_in_backward_is_blamed_on_the_loss() -> None:
    policy = "params=bf16,compute=bf16,output=bf16"
    target = torch.rand(4, 2)
    report = cw.diagnose(_seeded(BufferNet).out, torch.randn(4, 8), policies=[policy], modes=["train"],
                         loss_fn=lambda out: F.huber_loss(out, target))
    (run,) = report.policies[0].runs
    assert not run.ok and run.failing_module == "(loss/backward)"
    assert run.exception == "RuntimeError: Found dtype Float but expected BFloat16"
    assert run.explanation["kind"] == "loss_dtype" and "pred.float()" in run.explanation["fix"]
    assert report.recommendation.keep_fp32 == []  # no module to keep in fp32: the fix is in the loss


class LazyScale(nn.Module):
    """Creates its parameter on the first forward, in the default dtype: after any conversion."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not hasattr(self, "scale"):
            self.scale = nn.Parameter(torch.ones(x.shape[-1]))
        return x * self.scale


def test_parameters_outside_the_policy_dtype_are_flagged() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), LazyScale())
    report = cw.diagnose(model, torch.randn(4, 8), policies=["bf16-true"])
    (finding,) = [f for f in report.findings if f.kind == "param_dtype"]
    assert finding.module == "1" and "holds f32 parameters/buffers where the policy stores bf16" in finding.message
    assert report.policy("bf16-true").run("eval").modules[2].params == ["f32"]


def test_a_low_precision_model_is_flagged() -> None:
    model = example_model().to(torch.bfloat16)
    report = cw.diagnose(model, example_inputs(), policies=["bf16-true"], modes=["eval"])
    finding = next(f for f in report.findings if f.kind == "model_dtype")
    assert "parameters are bf16, not f32" in finding.message and "dtype=torch.float32" in finding.fix


class Broken(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ torch.ones(3, 3)


def test_a_model_broken_in_fp32_is_not_judged() -> None:
    report = cw.diagnose(nn.Sequential(Broken()), torch.randn(2, 4), policies=["bf16-true"], modes=["eval"])
    assert not report.reference[0].ok and report.reference[0].failing_module == "0"
    assert not report.policy("bf16-true").within_tolerance and report.recommendation.policy is None
    assert report.findings[0].kind == "reference_failed" and report.findings[0].module == "0"
