"""The advice explanations share: what two floating dtypes meeting usually means, and the fixes.

The fix fits the dtypes: fp16 meeting bf16 is two parts loaded in different 16-bit dtypes; float64
is numpy data; fp8 is a stored weight used in math without being upcast; a 16-bit dtype meeting
fp32 is a converted module with an unconverted input, parameter or buffer (or the reverse), which
one policy over the whole model removes. Kept-fp32 modules are named with a keep rule.
"""

from __future__ import annotations

from castwise.explainer.spelling import full_name, is_complex, is_fp8, is_low_precision

POLICY = "`cw.apply(model, 'bf16-mixed')`"

ONE_POLICY = (
    f"run the model under one policy ({POLICY}: parameters stay fp32, every op autocasts to one compute dtype, "
    "outputs come back fp32)"
)


LIBRARY_UPDATE = (
    "if the innermost frames are a library's or an app's code, not yours, update it first: such mismatches are often "
    "fixed in its later releases"
)

CPU_HALF_IN_NEWER_TORCH = (
    "or update torch: recent versions (2.13 measured) run fp16 matmul, convolution and layer norm on the CPU"
)

_CONVERSIONS = {
    "f16": "`.half()`, `torch_dtype=torch.float16`",
    "bf16": "`.to(torch.bfloat16)`, `torch_dtype=torch.bfloat16`",
}


def keep_rule(what: str) -> str:
    """The advice to keep ``what`` in fp32 with a castwise keep rule."""
    return (
        f"keep {what} in fp32 with a keep rule (`policy = cw.Policy.parse('bf16-mixed')`, then "
        "`cw.apply(model, policy.replace(keep_fp32=(*policy.keep_fp32, '<its name or class>')))`): castwise "
        "computes kept modules in fp32 whatever dtype arrives"
    )


def odd_tensors_fix(odd: tuple[tuple[str, str, str], ...], usual: str) -> str:
    """The fix naming the few tensors (name, module class, dtype) of the module that raised in another dtype than its
    input's, ``usual``."""
    listed = dtype_list(tuple(f"`{name}` ({owner})" for name, owner, _ in odd))
    dtype = odd[0][2] if len({entry[2] for entry in odd}) == 1 else "another dtype"
    one = len(odd) == 1
    return (
        f"of the floating tensors of the module that raised, only {listed} {'is' if one else 'are'} {dtype} (its "
        f"input and the rest are {usual}): if the "
        f"odd operand comes from {'it' if one else 'them'}, convert {'it' if one else 'them'} to {usual} "
        f"(`{odd[0][0]}.data = {odd[0][0]}.data.to(torch.{full_name(usual)})`, or convert the whole "
        "model again after replacing or loading it)"
    )


def a(name: str) -> str:
    """``name`` with its article as it is read aloud: ``an f16``, ``an int64``, ``a bf16``, ``a uint8``."""
    spoken_vowel = name[:1] in "aeio" or (name[:1] == "f" and name[1:2].isdigit())
    return f"{'an' if spoken_vowel else 'a'} {name}"


def dtype_list(names: tuple[str, ...]) -> str:
    """``bf16 and f32`` / ``f32, bf16 and f32``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def mixed_story(names: tuple[str, ...]) -> tuple[str, str]:
    """(the likely culprit, the fix) when floating dtypes ``names`` meet in one op."""
    distinct = set(names)
    if any(is_fp8(name) for name in distinct):
        return (
            "an fp8 (float8) tensor, such as a weight stored in fp8 to save memory, used directly in math: torch "
            "never promotes fp8 to another dtype",
            "upcast the fp8 tensor to the compute dtype before the op (`w.to(torch.bfloat16)`, times its scale "
            "if it has one), or load those weights in bf16/fp16 instead of fp8 (drop the fp8 option for this "
            "model or node)",
        )
    if any(map(is_complex, distinct)) and not all(map(is_complex, distinct)):
        return (
            "a complex tensor (an FFT or STFT output, complex weights) meeting a real one: torch does not mix complex "
            "and real operands in this op",
            "decide what the real op should see: the magnitude (`x.abs()`, or `x.abs() ** 2` for power), or the real "
            "and imaginary parts as channels (`torch.view_as_real(x)`, `torch.cat([x.real, x.imag], dim=1)`); or make "
            "the other operand complex (`w.to(x.dtype)`) if the op is meant to be complex",
        )
    if "f64" in distinct:
        return (
            "a float64 tensor: almost always data from numpy (`torch.from_numpy` keeps float64) or a tensor built "
            "from Python floats with `dtype=torch.double`, meeting float32 weights",
            "convert it to float32 where it is made (`x.float()`, `array.astype(np.float32)`); or, if you mean "
            "float64, convert the model and any transform modules holding buffers too (`model.double()`, "
            "`transform.to(torch.float64)`)",
        )
    if {"f16", "bf16"} <= distinct:
        return (
            "two parts in different 16-bit dtypes (one fp16, one bf16): components loaded with different "
            "`torch_dtype`s, or fp16 weights used under bf16 autocast (or the reverse)",
            "load or convert every part in one dtype (the same `torch_dtype=` everywhere, or `.to(torch.bfloat16)` "
            "on each component)",
        )
    low = sorted(name for name in distinct if is_low_precision(name))
    if low and "f32" in distinct:
        how = _CONVERSIONS.get(low[0], "`.to(dtype)`")
        return (
            f"{a(low[0])} tensor meeting an f32 one: a module converted to {low[0]} ({how}) while an input, a "
            "parameter, a buffer or a tensor created in forward with the default dtype stayed f32, or an f32 module "
            f"fed {low[0]} activations",
            f"give both operands one dtype: cast the odd one (`x.to(layer.weight.dtype)`), or {ONE_POLICY}",
        )
    return (
        "two tensors that were converted differently",
        f"give both operands one dtype (`x.to(other.dtype)`), or {ONE_POLICY}",
    )
