"""castwise's optimizer classes: torch-optimi's AdamW, Adam, SGD and Lion with castwise's step,
plain (Kahan or none, per param group) or with stochastic-rounding updates.

Defined here by name (importing torch-optimi) so that optimizers pickle and ``torch.save``.
"""

from __future__ import annotations

import optimi

from castwise.training.optimizer_base import CastwiseOptimizer
from castwise.training.stochastic import StochasticRounding


class AdamW(CastwiseOptimizer, optimi.AdamW):
    """torch-optimi's AdamW with castwise's step."""


class Adam(CastwiseOptimizer, optimi.Adam):
    """torch-optimi's Adam with castwise's step."""


class SGD(CastwiseOptimizer, optimi.SGD):
    """torch-optimi's SGD with castwise's step."""


class Lion(CastwiseOptimizer, optimi.Lion):
    """torch-optimi's Lion with castwise's step."""


class StochasticRoundingAdamW(CastwiseOptimizer, StochasticRounding, optimi.AdamW):
    """AdamW whose bf16 weights are updated with stochastic rounding."""


class StochasticRoundingAdam(CastwiseOptimizer, StochasticRounding, optimi.Adam):
    """Adam whose bf16 weights are updated with stochastic rounding."""


class StochasticRoundingSGD(CastwiseOptimizer, StochasticRounding, optimi.SGD):
    """SGD whose bf16 weights are updated with stochastic rounding."""


class StochasticRoundingLion(CastwiseOptimizer, StochasticRounding, optimi.Lion):
    """Lion whose bf16 weights are updated with stochastic rounding."""


PLAIN: dict[str, type[CastwiseOptimizer]] = {"adamw": AdamW, "adam": Adam, "sgd": SGD, "lion": Lion}
STOCHASTIC: dict[str, type[CastwiseOptimizer]] = {
    "adamw": StochasticRoundingAdamW,
    "adam": StochasticRoundingAdam,
    "sgd": StochasticRoundingSGD,
    "lion": StochasticRoundingLion,
}
