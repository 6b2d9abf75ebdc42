"""Policy parsing: canonical names, aliases, triples, round trips and clear errors."""

import re

import pytest
import torch
from torch import nn

import castwise as cw
from castwise.policy import DEFAULT_FP8_KEEP_OUT, DEFAULT_KEEP_FP32, Policy, aliases, dtype_from_name, dtype_name

CANONICAL = {
    "64-true": (torch.float64, torch.float64, torch.float64),
    "32-true": (torch.float32, torch.float32, torch.float32),
    "tf32": (torch.float32, torch.float32, torch.float32),
    "16-mixed": (torch.float32, torch.float16, torch.float32),
    "bf16-mixed": (torch.float32, torch.bfloat16, torch.float32),
    "16-true": (torch.float16, torch.float16, torch.float32),
    "bf16-true": (torch.bfloat16, torch.bfloat16, torch.float32),
    "fp8-mixed": (torch.float32, torch.bfloat16, torch.float32),
    "fp8-rowwise-mixed": (torch.float32, torch.bfloat16, torch.float32),
}

ALIASES = {
    "16": "16-mixed", "bf16": "bf16-mixed", "32": "32-true", "64": "64-true",
    "no": "32-true", "fp16": "16-mixed", "fp8": "fp8-mixed",
    "amp": "16-mixed", "amp_bf16": "bf16-mixed", "amp_bfloat16": "bf16-mixed",
    "pure_bf16": "bf16-true", "pure_fp16": "16-true", "fp32": "32-true",
    "mixed_bfloat16": "bf16-mixed", "mixed_float16": "16-mixed", "float32": "32-true",
    "bfloat16": "bf16-true", "float16": "16-true", "float64": "64-true",
}


def test_policies_lists_the_canonical_names_with_descriptions():
    listed = cw.policies()
    assert list(listed) == list(CANONICAL)
    assert all(isinstance(text, str) and len(text) > 20 for text in listed.values())


@pytest.mark.parametrize("name", CANONICAL)
def test_canonical_names_parse_to_their_dtypes_and_round_trip(name):
    policy = Policy.parse(name)
    assert (policy.param_dtype, policy.compute_dtype, policy.output_dtype) == CANONICAL[name]
    assert str(policy) == name
    assert Policy.parse(str(policy)) == policy
    assert Policy.parse(name.upper()) == policy


def test_mixed_true_keep_and_scaling_per_policy():
    assert Policy.parse("bf16-mixed").is_mixed and not Policy.parse("bf16-true").is_mixed
    assert Policy.parse("bf16-true").keep_fp32 == DEFAULT_KEEP_FP32
    assert Policy.parse("16-mixed").keep_fp32 == DEFAULT_KEEP_FP32
    assert Policy.parse("32-true").keep_fp32 == () and Policy.parse("64-true").keep_fp32 == ()
    assert Policy.parse("16-mixed").loss_scaling == "dynamic"
    assert Policy.parse("16-true").loss_scaling == "dynamic"
    assert Policy.parse("bf16-mixed").loss_scaling == "none"
    assert Policy.parse("tf32").matmul_precision == "high"
    assert Policy.parse("32-true").matmul_precision == "highest"


@pytest.mark.parametrize("alias,canonical", ALIASES.items())
def test_aliases_resolve_to_canonical_policies(alias, canonical):
    assert Policy.parse(alias) == Policy.parse(canonical)
    assert str(Policy.parse(alias)) == canonical


def test_alias_table_is_what_the_tests_expect():
    assert aliases() == ALIASES


@pytest.mark.parametrize("value,canonical", [(16, "16-mixed"), (32, "32-true"), (64, "64-true")])
def test_lightning_integer_precisions(value, canonical):
    assert Policy.parse(value) == Policy.parse(canonical)


@pytest.mark.parametrize(
    "triple,canonical",
    [
        ("params=float32,compute=bfloat16,output=float32", "bf16-mixed"),
        ("p=f32,c=bf16,o=f32", "bf16-mixed"),
        ("p=f32,c=bf16", "bf16-mixed"),
        ("params=bf16", "bf16-true"),
        ("p=f16", "16-true"),
        ("p=f32", "32-true"),
        ("p=f64", "64-true"),
        ("p=f32,matmul=high", "tf32"),
        ("P = F32 , C = Half", "16-mixed"),
    ],
)
def test_triples_with_cascading_defaults(triple, canonical):
    assert Policy.parse(triple) == Policy.parse(canonical)


def test_custom_policies_round_trip_through_str():
    custom = [
        "p=f32,c=bf16,o=bf16",
        "p=bf16,c=bf16,o=bf16,keep=",
        "p=bf16,keep=*norm*|head",
        "p=f16,scaling=none",
        "p=f32,c=f16,o=f64",
    ]
    for text in custom:
        policy = Policy.parse(text)
        assert policy.name is None
        assert Policy.parse(str(policy)) == policy, text
    assert Policy.parse("p=bf16,keep=").keep_fp32 == ()
    assert Policy.parse("p=f32,c=bf16,o=bf16").output_dtype == torch.bfloat16


def test_a_name_with_more_kept_modules_reads_and_prints_short():
    policy = Policy.parse("bf16-true").replace(keep_fp32=DEFAULT_KEEP_FP32 + ("encoder.layers.1", "head"))
    assert str(policy) == "bf16-true,keep+=encoder.layers.1|head"
    assert Policy.parse(str(policy)) == policy
    assert Policy.parse("bf16,keep+=head").keep_fp32 == DEFAULT_KEEP_FP32 + ("head",)  # an alias as the base
    assert Policy.parse("fp8-mixed,keep+=head") == Policy.parse("fp8-mixed").replace(
        keep_fp32=DEFAULT_KEEP_FP32 + ("head",))
    assert Policy.parse("bf16-true,keep+=") == Policy.parse("bf16-true")
    assert Policy.parse("bf16-true,keep+=*LayerNorm") == Policy.parse("bf16-true")  # already kept: once
    assert Policy.parse("p=bf16,keep+=head").keep_fp32 == DEFAULT_KEEP_FP32 + ("head",)


def test_a_name_with_fields_changes_only_those_fields():
    assert Policy.parse("bf16-mixed,output=bf16") == Policy.parse("bf16-mixed").replace(output_dtype=torch.bfloat16)
    assert Policy.parse("bf16-true,keep=head").keep_fp32 == ("head",)
    assert Policy.parse("32-true,matmul=high") == Policy.parse("tf32")
    assert str(Policy.parse("bf16-true,keep=head")) == "params=bf16,compute=bf16,output=f32,keep=head"


@pytest.mark.parametrize("text, says", [
    ("bf16-mixd,keep+=head", "'bf16-mixed'"),
    ("bf16-true,colour=red", "cannot read 'colour=red'"),
    ("bf16-true,keep+=a,keep+=b", "given twice"),
    ("bf16-true,fp8_keep_out=head", "fp8_keep_out needs fp8"),
])
def test_a_bad_name_with_fields_is_a_clear_error(text, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        Policy.parse(text)


def test_replace_accepts_module_classes_as_keep_entries():
    policy = Policy.parse("bf16-true").replace(keep_fp32=("*norm*", nn.Linear))
    assert policy.keep_fp32 == ("*norm*", "Linear")
    assert Policy.parse(str(policy)) == policy


def test_policy_is_hashable_and_frozen():
    policy = Policy.parse("bf16-mixed")
    assert {policy: 1}[Policy.parse("bf16")] == 1
    with pytest.raises(AttributeError):
        policy.param_dtype = torch.float16  # type: ignore[misc]


def test_unknown_name_names_the_closest_valid_ones():
    with pytest.raises(ValueError) as excinfo:
        Policy.parse("bf16-mixd")
    message = str(excinfo.value)
    assert "'bf16-mixd'" in message and "'bf16-mixed'" in message and "32-true" in message


def test_transformer_engine_is_refused_with_what_to_use_instead():
    with pytest.raises(ValueError, match="not supported yet.*torchao.*'fp8-mixed'"):
        Policy.parse("transformer-engine")


def test_8_true_is_refused_naming_the_fp8_policy_that_exists():
    with pytest.raises(ValueError, match="not supported yet.*'fp8-mixed' \\(bf16 weights, fp8 matmuls\\)"):
        Policy.parse("8-true")


def test_an_integer_dtype_is_refused_as_a_storage_dtype_naming_the_float_ones():
    with pytest.raises(ValueError, match=r"torch.int8 is not a floating dtype; only floating dtypes are accepted "
                                         r"\(bf16, f16, f32, f64\)"):
        dtype_from_name(torch.int8)


def test_fp8_policies_carry_a_recipe_and_keep_out_rules():
    tensorwise, rowwise = Policy.parse("fp8-mixed"), Policy.parse("fp8-rowwise-mixed")
    assert (tensorwise.fp8, rowwise.fp8) == ("tensorwise", "rowwise")
    assert tensorwise.fp8_keep_out == DEFAULT_FP8_KEEP_OUT == ("@first", "@last", "*Router", "*Gate")
    assert tensorwise.keep_fp32 == DEFAULT_KEEP_FP32 and tensorwise.is_mixed
    assert tensorwise.replace(fp8=None) == Policy.parse("bf16-mixed")
    assert Policy.parse("bf16-mixed").fp8 is None and Policy.parse("bf16-mixed").fp8_keep_out == ()


@pytest.mark.parametrize(
    "triple,canonical",
    [
        ("params=f32,compute=bf16,output=f32,fp8=tensorwise", "fp8-mixed"),
        ("p=f32,c=bf16,fp8=TensorWise", "fp8-mixed"),
        ("p=f32,c=bf16,fp8=rowwise", "fp8-rowwise-mixed"),
        ("p=f32,c=bf16,fp8=rowwise,fp8_keep_out=@first|@last|*Router|*Gate", "fp8-rowwise-mixed"),
        ("p=f32,c=bf16,fp8=none", "bf16-mixed"),
    ],
)
def test_fp8_triples(triple, canonical):
    assert Policy.parse(triple) == Policy.parse(canonical)
    assert str(Policy.parse(triple)) == canonical


def test_custom_fp8_policies_round_trip_through_str():
    for text in ["p=f32,c=bf16,fp8=tensorwise,fp8_keep_out=@last|*.head", "p=f32,fp8=rowwise",
                 "p=f32,c=bf16,fp8=tensorwise,fp8_keep_out="]:
        policy = Policy.parse(text)
        assert policy.name is None and Policy.parse(str(policy)) == policy, text
    assert Policy.parse("p=f32,c=bf16,fp8=tensorwise,fp8_keep_out=").fp8_keep_out == ()
    text = str(Policy.parse("p=f32,c=bf16,fp8=tensorwise,fp8_keep_out=@last"))
    assert text.endswith(",fp8=tensorwise,fp8_keep_out=@last")


@pytest.mark.parametrize(
    "bad,match",
    [
        ("p=f32,compute=bf17", "unknown dtype 'bf17'.*bf16"),
        ("p=f32,colour=red", "cannot read 'colour=red'"),
        ("p=f32,p=bf16", "given twice"),
        ("p=f32,matmul=fast", "matmul_precision"),
        ("p=f16,scaling=static", "loss_scaling"),
        ("p=f32,c=bf16,fp8=blockwise", "fp8 must be one of"),
        ("p=f32,c=bf16,fp8_keep_out=@last", "fp8_keep_out needs fp8="),
    ],
)
def test_bad_triples_raise_clear_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        Policy.parse(bad)


def test_dtypes_must_be_floating():
    with pytest.raises(ValueError, match="not a floating dtype"):
        dtype_from_name(torch.int8)
    with pytest.raises(ValueError, match="keep_fp32 entries"):
        Policy(keep_fp32=(3,))  # type: ignore[arg-type]


_DTYPES = [torch.float64, torch.float32, torch.bfloat16, torch.float16]


@pytest.mark.parametrize("param", _DTYPES, ids=str)
@pytest.mark.parametrize("compute", _DTYPES, ids=str)
def test_constructor_and_parser_give_the_same_policy(param: torch.dtype, compute: torch.dtype) -> None:
    parsed = Policy.parse(f"p={dtype_name(param)},c={dtype_name(compute)}")
    assert Policy(param_dtype=param, compute_dtype=compute) == parsed
    assert Policy(param, compute) == parsed
    low = {param, compute} & {torch.bfloat16, torch.float16}
    assert parsed.keep_fp32 == (DEFAULT_KEEP_FP32 if low else ())
    assert parsed.loss_scaling == ("dynamic" if torch.float16 in (param, compute) else "none")


def test_constructor_defaults_follow_the_params_like_the_parser() -> None:
    assert Policy() == Policy.parse("32-true")
    assert Policy(param_dtype="f16") == Policy.parse("16-true") == Policy.parse("p=f16")
    assert Policy(compute_dtype="bf16") == Policy.parse("bf16-mixed")
    assert Policy(param_dtype="f16", compute_dtype="f16").loss_scaling == "dynamic"


# jmp's own example strings (its README and policy tests) and what each means in castwise.
JMP_EXAMPLES = {
    "params=float32,compute=float16,output=float32": ("f32", "f16", "f32"),
    "p=f32,c=f16,o=f32": ("f32", "f16", "f32"),
    "p=f32,c=bf16,o=f32": ("f32", "bf16", "f32"),
    "c=f16": ("f32", "f16", "f32"),
    "c=bf16": ("f32", "bf16", "f32"),
    "p=f16,c=f16": ("f16", "f16", "f32"),
    "p=f16,c=bf16": ("f16", "bf16", "f32"),
    "p=full,c=half,o=full": ("f32", "f16", "f32"),
    "p=full,c=bf16,o=full": ("f32", "bf16", "f32"),
    "o=half": ("f32", "f32", "f16"),
    "full": ("f32", "f32", "f32"),
    "half": ("f16", "f16", "f32"),
    "f32": ("f32", "f32", "f32"),
    "f16": ("f16", "f16", "f32"),
    "float": ("f32", "f32", "f32"),
}


@pytest.mark.parametrize("text", list(JMP_EXAMPLES))
def test_jmp_example_strings(text: str) -> None:
    policy = Policy.parse(text)
    dtypes = (policy.param_dtype, policy.compute_dtype, policy.output_dtype)
    assert tuple(dtype_name(d) for d in dtypes) == JMP_EXAMPLES[text]
    assert Policy.parse(str(policy)) == policy


@pytest.mark.parametrize(
    "text,canonical", [("bf16", "bf16-mixed"), ("16", "16-mixed"), ("fp16", "16-mixed"), ("32", "32-true")]
)
def test_framework_names_win_over_jmp_bare_dtypes(text: str, canonical: str) -> None:
    assert Policy.parse(text) == Policy.parse(canonical)
