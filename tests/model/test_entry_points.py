"""Every entry point of a wrapped model runs under its policy: a real OpenCLIP model's encoders,
transformers CLIP's feature methods and a user's own methods, under every canonical policy, return
the policy's output dtype and compute in 16 bits where the policy says so (bitwise fp32 where it
does not); attributes that are not methods pass through; nested calls cross the boundary once."""

from __future__ import annotations

import copy
import inspect
import pickle
import threading
from collections.abc import Callable
from typing import Any

import pytest
import torch
from entry_models import Retriever, open_clip_model, retriever, transformers_clip
from torch import nn

import castwise as cw
from castwise.model.boundary import ForwardBoundary, forward_method
from castwise.model.casting import iter_tensors
from castwise.policy import Policy

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

POLICIES = list(cw.policies())
GENERATOR_SEED = 1
Call = Callable[[nn.Module], Any]


def _images() -> torch.Tensor:
    return torch.randn(2, 3, 16, 16, generator=torch.Generator().manual_seed(GENERATOR_SEED))


def _ids() -> torch.Tensor:
    return torch.randint(1, 64, (2, 8), generator=torch.Generator().manual_seed(GENERATOR_SEED))


def _features() -> torch.Tensor:
    return torch.randn(3, 16, generator=torch.Generator().manual_seed(GENERATOR_SEED))


def _mask() -> torch.Tensor:
    mask = torch.ones(2, 8, dtype=torch.bool)
    mask[1, 5:] = False
    return mask


OPEN_CLIP_CALLS: dict[str, Call] = {
    "encode_image": lambda m: m.encode_image(_images()),
    "encode_text": lambda m: m.encode_text(_ids(), normalize=True),
    "get_logits": lambda m: m.get_logits(_images(), _ids()),
    "forward_intermediates": lambda m: m.forward_intermediates(image=_images(), text=_ids()),
    "forward": lambda m: m(_images(), _ids()),
}
OPEN_CLIP_NOT_COMPUTING = {"lock_image_tower", "lock_text_tower", "set_grad_checkpointing", "no_weight_decay"}
TRANSFORMERS_CALLS: dict[str, Call] = {
    "get_text_features": lambda m: m.get_text_features(input_ids=_ids(), attention_mask=_mask().long()),
    "get_image_features": lambda m: m.get_image_features(pixel_values=_images()),
    "forward": lambda m: m(input_ids=_ids(), pixel_values=_images()),
}
RETRIEVER_CALLS: dict[str, Call] = {
    "encode_tokens": lambda m: m.encode_tokens(_ids()),
    "encode_features": lambda m: m.encode_features(_features(), scale=2.0),
    "pool": lambda m: m.pool(_ids(), _mask()),
    "similarity": lambda m: m.similarity(_ids(), _features()),
    "forward": lambda m: m(_ids()),
}
MODELS: dict[str, tuple[Callable[[], nn.Module], dict[str, Call]]] = {
    "open_clip": (open_clip_model, OPEN_CLIP_CALLS),
    "transformers_clip": (transformers_clip, TRANSFORMERS_CALLS),
    "retriever": (retriever, RETRIEVER_CALLS),
}


def _check_against_fp32(policy: Policy, output: Any, reference: Any, where: str) -> None:
    """Floating outputs in the output dtype; integers untouched; 16-bit (or fp8) math differs from
    fp32 yet stays close to it (relative error of the whole tensor), fp32 math is bitwise fp32,
    fp64 math is close to it."""
    outputs, references = list(iter_tensors(output)), list(iter_tensors(reference))
    assert outputs and len(outputs) == len(references), where
    floating = [(o, r) for o, r in zip(outputs, references) if r.is_floating_point()]
    for out, ref in zip(outputs, references):
        if not ref.is_floating_point():
            assert out.dtype == ref.dtype and torch.equal(out, ref), where
    assert floating and all(out.dtype == policy.output_dtype for out, _ in floating), where
    bound = 0.2 if policy.fp8 else 0.05
    for out, ref in floating:
        error = (out.double() - ref.double()).norm() / ref.double().norm().clamp_min(1e-6)
        assert error <= bound, f"{where}: relative error {error:.3g} against fp32"
    first, first_ref = floating[0]
    if policy.compute_dtype in (torch.bfloat16, torch.float16):
        assert not torch.equal(first.float(), first_ref), f"{where}: computed in fp32 under {policy}"
    elif policy.compute_dtype == torch.float32:
        assert all(torch.equal(out, ref) for out, ref in floating), where


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", list(MODELS))
def test_every_entry_point_runs_under_the_policy(name: str, policy: str) -> None:
    build, calls = MODELS[name]
    model = build()
    reference = copy.deepcopy(model)
    wrapped = cw.apply(model, policy)
    with torch.no_grad():
        for method, call in calls.items():
            _check_against_fp32(wrapped.policy, call(wrapped), call(reference), f"{name}.{method}")


def test_the_open_clip_calls_cover_every_public_method_of_its_model() -> None:
    clip = type(open_clip_model())
    public = {n for n, f in inspect.getmembers(clip, inspect.isfunction) if not n.startswith("_")}
    assert public - set(dir(nn.Module)) == set(OPEN_CLIP_CALLS) - {"forward"} | OPEN_CLIP_NOT_COMPUTING


def test_methods_keep_their_name_docstring_and_signature() -> None:
    wrapped = cw.apply(retriever(), "bf16-mixed")
    method = wrapped.encode_features
    assert method.__name__ == "encode_features" and method.__doc__ == Retriever.encode_features.__doc__
    assert inspect.signature(method) == inspect.signature(Retriever().encode_features)
    assert method.__wrapped__ == cw.unwrap(wrapped).encode_features


def test_attributes_that_are_not_methods_pass_through_unchanged() -> None:
    wrapped = cw.apply(retriever(), "bf16-true")
    inner = cw.unwrap(wrapped)
    assert wrapped.project is inner.project and wrapped.embed.weight is inner.embed.weight
    assert wrapped.width == 16 and wrapped.policy is not inner.__dict__.get("policy")
    assert wrapped.embed.weight.dtype == torch.bfloat16


class Factory(nn.Module):
    """Class-level callables that are not methods of the instance."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)

    @classmethod
    def build(cls) -> Factory:
        return cls()

    @staticmethod
    def scale(x: torch.Tensor) -> torch.Tensor:
        return x * 2


def test_class_and_static_methods_pass_through() -> None:
    wrapped = cw.apply(Factory(), "bf16-true")
    assert wrapped.build.__func__ is Factory.build.__func__ and isinstance(wrapped.build(), Factory)
    assert wrapped.scale is Factory.scale
    x = torch.randn(3)
    assert wrapped.scale(x).dtype == torch.float32


def test_unwrap_gives_the_bare_model_whose_methods_run_as_written() -> None:
    reference = retriever()
    wrapped = cw.apply(retriever(), "bf16-mixed")
    bare = cw.unwrap(wrapped)
    assert type(bare) is Retriever and not isinstance(bare, cw.PrecisionModule)
    with torch.no_grad():
        assert torch.equal(bare.encode_tokens(_ids()), reference.encode_tokens(_ids()))
        assert not torch.equal(wrapped.encode_tokens(_ids()), reference.encode_tokens(_ids()))


class Chain(nn.Module):
    """Methods that call another entry point of the wrapper handed to them."""

    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Linear(8, 8)
        self.second = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(self.first(x))

    def stage_one(self, x: torch.Tensor) -> torch.Tensor:
        return self.first(x)

    def chain(self, x: torch.Tensor, stage: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
        return self.second(stage(x))


def _count_contexts(boundary: ForwardBoundary) -> list[str]:
    entered: list[str] = []
    context = boundary.context

    def counting(device_type: str) -> Any:
        entered.append(device_type)
        return context(device_type)

    boundary.context = counting  # type: ignore[method-assign]
    return entered


@pytest.mark.parametrize("stage", ["stage_one", "__call__"])
def test_a_nested_call_through_the_wrapper_crosses_the_boundary_once(stage: str) -> None:
    """Inside the boundary a nested entry point keeps the compute dtype (no fp32 output into a
    bf16 layer) and the context is entered once."""
    torch.manual_seed(0)
    wrapped = cw.apply(Chain(), "bf16-true")
    entered = _count_contexts(wrapped._boundary)
    out = wrapped.chain(torch.randn(2, 8), getattr(wrapped, stage))
    assert out.dtype == torch.float32 and entered == ["cpu"]
    assert len(_count_contexts(wrapped._boundary)) == 0 and wrapped(torch.randn(2, 8)).dtype == torch.float32


def test_a_thread_inside_the_boundary_does_not_switch_it_off_for_another() -> None:
    """One thread waits inside a method while another calls the model: the other's call is cast
    and runs in bf16 (autocast is per thread, and so is the boundary's re-entry flag)."""
    torch.manual_seed(0)
    reference = Chain()
    wrapped = cw.apply(copy.deepcopy(reference), "bf16-mixed")
    inside, release = threading.Event(), threading.Event()

    def wait_inside(x: torch.Tensor) -> torch.Tensor:
        inside.set()
        release.wait(timeout=30)
        return x

    waiter = threading.Thread(target=wrapped.chain, args=(torch.randn(2, 8), wait_inside))
    waiter.start()
    try:
        assert inside.wait(timeout=30)
        x = torch.randn(2, 8)
        with torch.no_grad():
            out = wrapped.stage_one(x)
            assert out.dtype == torch.float32 and not torch.equal(out, reference.stage_one(x))
    finally:
        release.set()
        waiter.join(timeout=30)


def test_the_boundary_survives_deepcopy_and_pickle() -> None:
    wrapped = cw.apply(retriever(), "bf16-true")
    for copied in (copy.deepcopy(wrapped), pickle.loads(pickle.dumps(wrapped))):
        out = copied.encode_features(_features())
        assert out.dtype == torch.float32 and copied._boundary._inside is not wrapped._boundary._inside


@pytest.mark.parametrize("policy", ["bf16-mixed", "bf16-true", "16-mixed"])
def test_torch_compile_traces_a_method_without_graph_breaks(policy: str) -> None:
    torch._dynamo.reset()
    wrapped = cw.apply(retriever(), policy)
    with torch.no_grad():
        eager = wrapped.similarity(_ids(), _features())
        compiled = torch.compile(wrapped.similarity, backend="aot_eager", fullgraph=True)(_ids(), _features())
        through_getattr = torch.compile(lambda ids, f: wrapped.similarity(ids, f), backend="aot_eager", fullgraph=True)
        again = through_getattr(_ids(), _features())
    for out in (compiled, again):
        assert [t.dtype for t in out] == [torch.float32, torch.float32]
        assert all(torch.equal(a, b) for a, b in zip(out, eager))
    torch._dynamo.reset()


def test_torch_compile_of_open_clip_encode_image_adds_no_graph_break() -> None:
    wrapped = cw.apply(open_clip_model(), "bf16-mixed")
    model = open_clip_model()

    def hand_written(images: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return model.encode_image(images).float()

    torch._dynamo.reset()
    with torch.no_grad():
        ours = torch._dynamo.explain(wrapped.encode_image)(_images()).graph_break_count
        torch._dynamo.reset()
        theirs = torch._dynamo.explain(hand_written)(_images()).graph_break_count
        torch._dynamo.reset()
        out = torch.compile(wrapped.encode_image, backend="aot_eager")(_images())
    torch._dynamo.reset()
    assert ours <= theirs and ours == 0
    assert out.dtype == torch.float32


class Marked(Chain):
    @forward_method
    def marked_chain(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(self(x))


def test_forward_method_crosses_a_hooked_boundary_once() -> None:
    """What the plugins that keep the module do (``ForwardBoundary.attach``): a marked method casts
    its inputs, runs in the context and casts its output once, though it calls ``self(...)``."""
    torch.manual_seed(0)
    reference = Marked()
    module = copy.deepcopy(reference).to(torch.bfloat16)
    boundary = ForwardBoundary(module, Policy.parse("bf16-true"))
    boundary.attach(module)
    entered = _count_contexts(boundary)
    x = torch.randn(2, 8)
    out = module.marked_chain(x)
    assert out.dtype == torch.float32 and entered == ["cpu"]
    assert not torch.equal(out, reference.marked_chain(x))
    torch.testing.assert_close(out, reference.marked_chain(x), atol=5e-2, rtol=5e-2)
    assert module(x).dtype == torch.float32
