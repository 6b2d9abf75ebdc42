"""torch.compile under every canonical policy: compiles, backward runs, matches eager, adds no
graph break over hand-written autocast, does not recompile on train/eval switches, and leaves no
global state behind.

The whole matrix (policy x model x train/eval x mask) runs with the ``aot_eager`` backend: it
traces with dynamo and AOTAutograd exactly as inductor does (where castwise could break a graph or
flip global state) without inductor's minutes of C++ code generation on two cores. Every policy is
also compiled with inductor on the MLP, and the 16-bit mixed and bf16-true policies on the
encoder with a padding mask (inductor on the tiny Llama takes minutes here; the aot_eager matrix
covers it).
"""

from __future__ import annotations

import pytest
import torch
from compile_models import HandWritten, build, inputs, logits, valid_positions
from torch._dynamo.testing import CompileCounter

import castwise as cw
from castwise.policy import Policy

POLICIES = ["64-true", "32-true", "tf32", "16-mixed", "bf16-mixed", "16-true", "bf16-true"]
CASES = [("mlp", False), ("encoder", False), ("encoder", True), ("llama", False), ("llama", True)]
TOLERANCE = {torch.float64: 1e-9, torch.float32: 1e-5, torch.bfloat16: 3e-2, torch.float16: 3e-3}


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _global_state() -> tuple:
    return (
        torch.is_autocast_enabled("cpu"),
        torch.get_autocast_dtype("cpu"),
        torch.backends.mha.get_fastpath_enabled(),
        torch.get_float32_matmul_precision(),
        torch.is_grad_enabled(),
    )


def _check_matches_eager(policy: str, model: str, masked: bool, backend: str) -> None:
    args, kwargs = inputs(model, masked)
    wrapped = cw.apply(build(model), policy)
    compiled = torch.compile(wrapped, backend=backend)
    where = valid_positions(model, masked)
    tolerance = TOLERANCE[Policy.parse(policy).compute_dtype]
    before = _global_state()
    for train in (True, False):
        wrapped.train(train)
        with torch.set_grad_enabled(train):
            eager = logits(wrapped(*args, **kwargs))
            out = logits(compiled(*args, **kwargs))
        assert out.dtype == eager.dtype == Policy.parse(policy).output_dtype
        scale = eager[where].abs().max().item()
        assert (out[where] - eager[where]).abs().max().item() <= tolerance * max(scale, 1.0)
        if train:
            wrapped.zero_grad()
            out[where].float().square().mean().backward()
            grads = [p.grad for p in wrapped.parameters() if p.grad is not None]
            assert grads and all(torch.isfinite(g).all() for g in grads)
        assert _global_state() == before


@pytest.mark.parametrize("model,masked", CASES, ids=[f"{m}{'-mask' if k else ''}" for m, k in CASES])
@pytest.mark.parametrize("policy", POLICIES)
def test_compiled_matches_eager_in_train_and_eval(policy: str, model: str, masked: bool) -> None:
    _check_matches_eager(policy, model, masked, backend="aot_eager")


INDUCTOR_CASES = [(p, "mlp", False) for p in POLICIES] + [
    ("bf16-mixed", "encoder", True), ("bf16-true", "encoder", True), ("16-mixed", "encoder", True),
]


@pytest.mark.parametrize("policy,model,masked", INDUCTOR_CASES)
def test_inductor_compiles_and_matches_eager(policy: str, model: str, masked: bool) -> None:
    _check_matches_eager(policy, model, masked, backend="inductor")


def _graph_breaks(module: torch.nn.Module, args: tuple, kwargs: dict) -> int:
    torch._dynamo.reset()
    return torch._dynamo.explain(module)(*args, **kwargs).graph_break_count


@pytest.mark.parametrize("model,masked", CASES, ids=[f"{m}{'-mask' if k else ''}" for m, k in CASES])
@pytest.mark.parametrize("policy", ["bf16-mixed", "bf16-true"])
def test_no_more_graph_breaks_than_hand_written_autocast(policy: str, model: str, masked: bool) -> None:
    args, kwargs = inputs(model, masked)
    ours = cw.apply(build(model), policy)
    theirs = HandWritten(build(model), Policy.parse(policy))
    for train in (True, False):
        ours.train(train)
        theirs.train(train)
        ours_breaks = _graph_breaks(ours, args, kwargs)
        assert ours_breaks <= _graph_breaks(theirs, args, kwargs)
        assert ours_breaks == 0


@pytest.mark.parametrize("policy", ["bf16-mixed", "bf16-true", "tf32"])
def test_fullgraph_compiles_with_kept_norms_and_the_fast_path_guard(policy: str) -> None:
    args, kwargs = inputs("encoder", masked=True)
    wrapped = cw.apply(build("encoder"), policy).eval()
    with torch.no_grad():
        out = torch.compile(wrapped, backend="aot_eager", fullgraph=True)(*args, **kwargs)
    assert out.dtype == torch.float32 and torch.isfinite(out[:, :7]).all()


def test_switching_train_and_eval_compiles_each_mode_once() -> None:
    args, kwargs = inputs("encoder", masked=True)
    wrapped = cw.apply(build("encoder"), "bf16-mixed")
    counter = CompileCounter()
    compiled = torch.compile(wrapped, backend=counter)
    for _ in range(4):
        for train in (True, False):
            wrapped.train(train)
            compiled(*args, **kwargs)
    assert counter.frame_count == 2


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("policy", ["bf16-mixed", "bf16-true", "tf32", "16-mixed"])
def test_no_global_state_leaks_when_the_forward_raises(policy: str, compiled: bool) -> None:
    wrapped = cw.apply(build("encoder"), policy).eval()
    run = torch.compile(wrapped, backend="aot_eager") if compiled else wrapped
    before = _global_state()
    with pytest.raises((AssertionError, RuntimeError), match="31"), torch.no_grad():
        run(torch.randn(2, 5, 31))
    assert _global_state() == before


def test_kept_norms_run_on_fp32_inside_the_compiled_graph() -> None:
    graphs: list[torch.fx.GraphModule] = []

    def capture(gm: torch.fx.GraphModule, example_inputs: list) -> torch.fx.GraphModule:
        graphs.append(gm)
        return gm

    wrapped = cw.apply(build("mlp"), "bf16-mixed")
    out = torch.compile(wrapped, backend=capture, fullgraph=True)(*inputs("mlp", False)[0])
    norms = [n for g in graphs for n in g.graph.nodes if n.op == "call_function" and "layer_norm" in str(n.target)]
    assert len(norms) == 1
    assert norms[0].args[0].meta["example_value"].dtype == torch.float32
    assert isinstance(unwrapped_norm := cw.unwrap(wrapped)[2], torch.nn.LayerNorm)
    assert type(unwrapped_norm).__name__ == "LayerNorm" and out.dtype == torch.float32
