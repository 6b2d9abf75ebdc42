"""cw.apply: parameter storage, fp32-kept modules, input/output casting, gradients, state and globals."""

import copy
import dataclasses
import pickle
from collections import OrderedDict, namedtuple

import pytest
import torch
from torch import nn
from transformers.modeling_outputs import BaseModelOutput

import castwise as cw
from castwise.model.device import check_policy_on_device
from castwise.model.keep_fp32 import Fp32Compute, is_computing_in_fp32
from castwise.policy import Policy

pytestmark = pytest.mark.filterwarnings("ignore:.*nested tensors.*")


class RecordingLayerNorm(nn.LayerNorm):
    """A LayerNorm that records the dtype it computes in and whether autocast was on."""

    def forward(self, x):
        self.seen = (x.dtype, torch.is_autocast_enabled("cpu"))
        return super().forward(x)


class NormNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.norm = RecordingLayerNorm(16)
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        return self.out(self.norm(self.inp(x)))


def _net():
    torch.manual_seed(0)
    return NormNet()


def test_true_policy_converts_parameters_but_keeps_norms_fp32():
    model = cw.apply(_net(), "bf16-true")
    inner = cw.unwrap(model)
    assert inner.inp.weight.dtype == inner.out.bias.dtype == torch.bfloat16
    assert inner.norm.weight.dtype == inner.norm.bias.dtype == torch.float32


def test_mixed_policy_keeps_fp32_parameters():
    model = cw.apply(_net().to(torch.bfloat16), "bf16-mixed")
    assert {p.dtype for p in model.parameters()} == {torch.float32}


def test_kept_norm_computes_in_fp32_and_hands_back_the_incoming_dtype():
    model = cw.apply(_net(), "bf16-true")
    norm = cw.unwrap(model).norm
    incoming = torch.randn(2, 16).to(torch.bfloat16)
    output = norm(incoming)
    assert norm.seen == (torch.float32, False)
    assert output.dtype == torch.bfloat16
    expected = nn.functional.layer_norm(incoming.float(), (16,), norm.weight, norm.bias).to(torch.bfloat16)
    assert torch.equal(output, expected)


def test_kept_norm_runs_without_autocast_under_a_mixed_policy():
    model = cw.apply(_net(), "bf16-mixed")
    output = model(torch.randn(2, 8))
    assert cw.unwrap(model).norm.seen == (torch.float32, False)
    assert output.dtype == torch.float32


def test_plain_cpu_autocast_runs_layernorm_in_bf16():
    model = _net()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(torch.randn(2, 8))
    assert model.norm.seen == (torch.bfloat16, True)


def test_keep_fp32_by_name_glob_and_by_class():
    by_name = cw.apply(_net(), Policy.parse("bf16-true").replace(keep_fp32=("out",)))
    assert cw.unwrap(by_name).out.weight.dtype == torch.float32
    assert cw.unwrap(by_name).norm.weight.dtype == torch.bfloat16
    by_class = cw.apply(_net(), Policy.parse("bf16-true").replace(keep_fp32=(nn.Linear,)))
    assert cw.unwrap(by_class).inp.weight.dtype == torch.float32
    assert by_class(torch.randn(3, 8)).dtype == torch.float32


def test_transformers_keep_in_fp32_modules_is_honoured():
    model = _net()
    model._keep_in_fp32_modules = ["out"]
    inner = cw.unwrap(cw.apply(model, "bf16-true"))
    assert inner.out.weight.dtype == torch.float32
    assert inner.inp.weight.dtype == torch.bfloat16


def test_true_policy_casts_floating_inputs_but_never_integer_ones():
    seen = {}

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(10, 4)

        def forward(self, ids, features, flags):
            seen.update(ids=ids.dtype, features=features.dtype, flags=flags.dtype)
            return self.embed(ids) + features.unsqueeze(-1)

    model = cw.apply(Probe(), "bf16-true")
    output = model(torch.tensor([[1, 2]]), torch.ones(1, 2), torch.tensor([True, False]))
    assert seen == {"ids": torch.int64, "features": torch.bfloat16, "flags": torch.bool}
    assert output.dtype == torch.float32


Pair = namedtuple("Pair", "logits ids")


@dataclasses.dataclass
class Result:
    logits: torch.Tensor
    extra: dict


class NestedOutputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        ids = torch.arange(3)
        return {
            "tuple": (y, ids),
            "list": [y, None, "text"],
            "named": Pair(y, ids),
            "data": Result(y, {"inner": y, "mask": ids > 0}),
            "hf": BaseModelOutput(last_hidden_state=y, hidden_states=(y, y)),
            "ordered": OrderedDict(a=y),
            "double": y.double(),
        }


def test_outputs_are_cast_through_every_nested_type():
    output = cw.apply(NestedOutputs(), "bf16-true")(torch.randn(2, 4))
    f32 = torch.float32
    assert [t.dtype for t in output["tuple"]] == [f32, torch.int64]
    assert output["list"][0].dtype == f32 and output["list"][1:] == [None, "text"]
    assert isinstance(output["named"], Pair) and output["named"].logits.dtype == f32
    assert output["named"].ids.dtype == torch.int64
    assert isinstance(output["data"], Result)
    assert output["data"].logits.dtype == output["data"].extra["inner"].dtype == f32
    assert output["data"].extra["mask"].dtype == torch.bool
    assert isinstance(output["hf"], BaseModelOutput)
    assert output["hf"].last_hidden_state.dtype == output["hf"][0].dtype == f32
    assert [t.dtype for t in output["hf"].hidden_states] == [f32, f32]
    assert isinstance(output["ordered"], OrderedDict) and output["ordered"]["a"].dtype == f32
    assert output["double"].dtype == torch.float64, "a higher-precision output is never downcast"


def test_output_dtype_can_be_the_compute_dtype():
    model = cw.apply(_net(), "p=f32,c=bf16,o=bf16")
    assert model(torch.randn(2, 8)).dtype == torch.bfloat16


@pytest.mark.parametrize("name", ["bf16-true", "bf16-mixed", "16-true"])
def test_gradients_reach_every_parameter(name):
    model = cw.apply(_net(), name)
    model(torch.randn(4, 8)).square().mean().backward()
    for pname, param in model.named_parameters():
        assert param.grad is not None, pname
        assert param.grad.dtype == param.dtype, pname
        assert torch.isfinite(param.grad).all() and param.grad.abs().sum() > 0, pname


def test_gradients_flow_through_input_and_output_casts():
    model = cw.apply(_net(), "bf16-true")
    x = torch.randn(4, 8, requires_grad=True)
    model(x).sum().backward()
    assert x.grad is not None and x.grad.dtype == torch.float32 and x.grad.abs().sum() > 0


def test_state_dict_keys_are_the_originals_and_load_back():
    original = _net()
    keys = list(original.state_dict())
    wrapped = cw.apply(copy.deepcopy(original), "bf16-mixed")
    assert list(wrapped.state_dict()) == keys
    trained = {k: v + 1 for k, v in original.state_dict().items()}
    assert not wrapped.load_state_dict(trained).missing_keys
    assert torch.equal(cw.unwrap(wrapped).inp.weight, trained["inp.weight"])


def test_wrapper_inside_a_parent_module_has_no_extra_prefix():
    parent = nn.Sequential(cw.apply(_net(), "bf16-mixed"), nn.ReLU())
    keys = list(parent.state_dict())
    assert keys == ["0." + k for k in _net().state_dict()]
    result = parent.load_state_dict(parent.state_dict())
    assert not result.missing_keys and not result.unexpected_keys


def test_wrapper_pickles_and_gives_the_same_output():
    model = cw.apply(_net(), "bf16-true")
    x = torch.randn(2, 8)
    clone = pickle.loads(pickle.dumps(model))
    assert torch.equal(clone(x), model(x))
    assert cw.unwrap(clone).norm.seen == (torch.float32, False)


def test_apply_twice_rewraps_the_original_once():
    inner = _net()
    first = cw.apply(inner, "bf16-true")
    second = cw.apply(first, "bf16-mixed")
    assert cw.unwrap(second) is inner and second.module is inner
    assert {p.dtype for p in inner.parameters()} == {torch.float32}
    kept = [m for m in inner.modules() if is_computing_in_fp32(m)]
    assert len(kept) == 1, "re-applying keeps each module once instead of stacking"
    assert type(kept[0]).__mro__.count(Fp32Compute) == 1
    assert not any(m._forward_pre_hooks or m._forward_hooks for m in inner.modules())


def test_wrapper_forwards_attributes_of_the_inner_model():
    inner = _net()
    inner.config = {"hidden": 16}
    assert cw.apply(inner, "bf16-mixed").config == {"hidden": 16}


def test_unwrapped_model_is_usable_alone():
    inner = cw.unwrap(cw.apply(_net(), "bf16-true"))
    output = inner(torch.randn(2, 8).to(torch.bfloat16))
    assert output.dtype == torch.bfloat16
    assert inner.norm.seen == (torch.float32, False)


def _globals():
    return (
        torch.get_default_dtype(),
        torch.backends.mha.get_fastpath_enabled(),
        torch.get_float32_matmul_precision(),
        torch.is_autocast_enabled("cpu"),
    )


@pytest.mark.filterwarnings("ignore::castwise.PrecisionWarning")
@pytest.mark.parametrize("name", ["bf16-mixed", "bf16-true", "tf32", "16-mixed"])
def test_nothing_global_leaks_from_forward(name, token_encoder, tokens):
    before = _globals()
    model = cw.apply(token_encoder, name).eval()
    with torch.no_grad():
        model(*tokens)
    assert _globals() == before


class Exploding(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(self.lin(x), "unexpected")


def test_nothing_global_leaks_when_forward_raises():
    before = _globals()
    model = cw.apply(Exploding(), "bf16-mixed")
    with pytest.raises(TypeError):
        model(torch.randn(2, 4))
    assert _globals() == before


def test_init_module_creates_parameters_in_the_param_dtype():
    before = torch.get_default_dtype()
    with cw.init_module("bf16-true") as policy:
        model = _net()
    assert policy == Policy.parse("bf16-true")
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}
    assert torch.get_default_dtype() == before
    cw.apply(model, policy)
    assert model.norm.weight.dtype == torch.float32 and model.inp.weight.dtype == torch.bfloat16


def test_init_module_on_the_meta_device_and_restores_on_error():
    with cw.init_module("bf16-mixed", device="meta"):
        model = nn.Linear(3, 3)
    assert model.weight.device.type == "meta" and model.weight.dtype == torch.float32
    with pytest.raises(RuntimeError):
        with cw.init_module("16-true"):
            raise RuntimeError("boom")
    assert torch.get_default_dtype() == torch.float32


def test_unknown_policy_is_refused_and_the_model_untouched():
    model = _net()
    with pytest.raises(ValueError, match="unknown precision 'bf61'"):
        cw.apply(model, "bf61")
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    assert all(not m._forward_pre_hooks for m in model.modules())


def test_apply_refuses_what_is_not_a_module():
    with pytest.raises(TypeError, match="expects a torch.nn.Module"):
        cw.apply(lambda x: x, "bf16-mixed")  # type: ignore[arg-type]


def test_a_policy_that_cannot_take_effect_is_an_error_not_ignored():
    with pytest.raises(RuntimeError, match="does not support"):
        cw.apply(_net(), "p=f32,c=f64")
    with pytest.raises(RuntimeError, match="does not support"):
        check_policy_on_device(Policy.parse("p=f32,c=f64"), "cpu")


def test_tf32_on_cpu_warns_that_math_is_more_precise_than_asked():
    with pytest.warns(cw.PrecisionWarning, match="no effect on cpu"):
        cw.apply(_net(), "tf32")


class UpcastingBlock(nn.Module):
    """T5's pattern: activations are upcast to a kept fp32 module's weight dtype before it."""

    def __init__(self):
        super().__init__()
        self.wi = nn.Linear(8, 8)
        self.wo = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        hidden = self.wi(x)
        hidden = self.wo(hidden.to(self.wo.weight.dtype))
        return self.out(self.norm(x + hidden))


def test_true_policy_kept_modules_hand_back_at_most_the_compute_dtype():
    torch.manual_seed(0)
    model = UpcastingBlock()
    model._keep_in_fp32_modules = ["wo"]
    reference = model(torch.ones(3, 8))
    wrapped = cw.apply(model, "bf16-true")
    assert model.wo.weight.dtype == model.norm.weight.dtype == torch.float32
    assert model.wi.weight.dtype == torch.bfloat16
    fp32_in = model.wo(torch.ones(3, 8))
    assert fp32_in.dtype == torch.bfloat16, "fp32 arriving under bf16-true leaves in bf16"
    output = wrapped(torch.ones(3, 8))
    assert output.dtype == torch.float32
    assert torch.allclose(output, reference, rtol=5e-2, atol=5e-2)


def test_mixed_policy_kept_modules_hand_back_fp32_when_fp32_arrives():
    model = cw.unwrap(cw.apply(_net(), "bf16-mixed"))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert model.norm(torch.randn(2, 16)).dtype == torch.float32


def test_kept_module_without_floating_input_hands_back_the_compute_dtype():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(10, 8), nn.Linear(8, 2))
    wrapped = cw.apply(model, Policy.parse("bf16-true").replace(keep_fp32=("Embedding",)))
    assert model[0].weight.dtype == torch.float32 and model[1].weight.dtype == torch.bfloat16
    assert model[0](torch.tensor([1, 2])).dtype == torch.bfloat16
    assert wrapped(torch.tensor([[1, 2]])).dtype == torch.float32


def test_a_tied_weight_stays_fp32_when_any_of_its_owners_is_kept():
    embed, head = nn.Embedding(16, 8), nn.Linear(8, 16, bias=False)
    head.weight = embed.weight
    model = nn.ModuleDict({"wte": embed, "lm_head": head})
    cw.apply(model, Policy.parse("bf16-true").replace(keep_fp32=("*wte*",)))
    assert model["lm_head"].weight is model["wte"].weight
    assert model["wte"].weight.dtype == torch.float32


class _FrozenEncoderClassifier(nn.Module):
    """A frozen pre-trained encoder in eval mode under a head that trains (CLIP-style fine-tuning)."""

    def __init__(self) -> None:
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False).eval().requires_grad_(False)
        self.head = nn.Linear(16, 3)

    def forward(self, x, mask):
        return self.head(self.encoder(x, src_key_padding_mask=mask))


def test_frozen_eval_encoder_inside_a_training_model_gets_the_fast_path_guard():
    torch.manual_seed(0)
    model = _FrozenEncoderClassifier()
    x, mask = torch.randn(2, 5, 16), torch.zeros(2, 5, dtype=torch.bool)
    mask[:, 3:] = True
    with torch.autocast("cpu", dtype=torch.bfloat16):
        plain = model.encoder(x, src_key_padding_mask=mask)
    assert plain.dtype == torch.bfloat16  # plain autocast: the fused fast path ran (eval, nothing requires grad)
    seen: list[torch.dtype] = []
    model.encoder.register_forward_hook(lambda module, args, output: seen.append(output.dtype))
    wrapped = cw.apply(model, "bf16-mixed")
    assert wrapped.training and not model.encoder.training
    out = wrapped(x, mask)
    out.square().mean().backward()
    assert seen == [torch.float32], "the slow path, as in training: fp32 norms hand back fp32"
    assert out.dtype == torch.float32 and model.head.weight.grad is not None
    assert torch.backends.mha.get_fastpath_enabled()


class _Experts(nn.Module):
    """An MoE-style block: its experts live in a ModuleList that is never called itself."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = nn.Linear(8, 8)
        self.experts = nn.ModuleList([nn.Linear(8, 8), nn.Sequential(nn.Linear(8, 8), nn.GELU())])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.gate(x)
        return sum(expert(hidden) for expert in self.experts)


def test_keeping_a_container_in_fp32_makes_each_module_under_it_compute_in_fp32() -> None:
    torch.manual_seed(0)
    model, x = _Experts(), torch.randn(4, 8)
    reference = model(x)
    wrapped = cw.apply(model, Policy.parse("bf16-true").replace(keep_fp32=("experts",)))
    seen = []
    for expert in cw.unwrap(wrapped).experts:
        expert.register_forward_hook(lambda module, args, output: seen.append((args[0].dtype, output.dtype)))
    inner = []
    cw.unwrap(wrapped).experts[1][0].register_forward_hook(lambda module, args, output: inner.append(args[0].dtype))
    out = wrapped(x)
    assert inner == [torch.float32]
    assert {p.dtype for p in cw.unwrap(wrapped).experts.parameters()} == {torch.float32}
    assert cw.unwrap(wrapped).gate.weight.dtype == torch.bfloat16
    assert seen == [(torch.bfloat16, torch.bfloat16)] * 2  # called with bf16, computed in fp32, handed back bf16
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, reference, atol=5e-2, rtol=5e-2)


@pytest.mark.parametrize("training", [True, False])
def test_the_wrapper_starts_in_the_mode_of_the_model_it_wraps(training: bool) -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)).train(training)
    wrapped = cw.apply(model, "bf16-mixed")
    assert wrapped.training is training and all(m.training is training for m in model.modules())
    assert not cw.apply(model, "bf16-mixed").eval().training
