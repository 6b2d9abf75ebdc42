"""The families of errors castwise explains, one module each; ``RULES`` is every rule, most specific first, and
``FALLBACKS`` the shapes of a dtype error (and failures said in prose) tried only when no rule recognised any line.

A family's rules recognise its messages and write causes and fixes that fit it. Messages are tried
against the rules in this order, so specific wordings win over the generic ``expected scalar type``.
"""

from castwise.explainer.families import (
    crashes,
    devices,
    distributed,
    fp8,
    gpus,
    gradients,
    inductor,
    integers,
    kernels,
    libraries,
    mixed,
    nonfinite,
    numpy_interop,
    onnx,
    overflow,
    quantization,
    shapes,
    triton,
    xla,
)
from castwise.explainer.rules import Rule

RULES: tuple[Rule, ...] = (
    *integers.RULES,
    *overflow.RULES,
    *numpy_interop.RULES,
    *distributed.RULES,
    *gradients.RULES,
    *quantization.RULES,
    *fp8.RULES,
    *gpus.RULES,
    *kernels.RULES,
    *libraries.RULES,
    *devices.RULES,
    *nonfinite.RULES,
    *xla.RULES,
    *triton.RULES,
    *inductor.RULES,
    *onnx.RULES,
    *mixed.RULES,
)

FALLBACKS: tuple[Rule, ...] = (
    *shapes.MISMATCH, *gradients.SCALE_SAID, *crashes.SIGNALS, *overflow.SAID, *shapes.SYMPTOMS,
    *overflow.INTEGER_SAID, *shapes.SUPPORT, *gpus.SAID, *crashes.SAID, *shapes.TITLE_SAID,
    *shapes.UNNAMED,
)
"""The shapes of a dtype error tried when no rule recognised any line, in order of priority: the first that reads any
line of the paste answers (a symptom the report shows wins over its words about support)."""
