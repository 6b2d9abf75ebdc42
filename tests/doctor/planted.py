"""Planted defects: small models whose culprit modules are known by construction, to score the doctor.

Each :class:`Planted` builds a model, its example inputs and (optionally) a loss, and names the
modules a precision policy breaks there. The doctor "blames" a module when an error or warning
finding names it or a verified keep-fp32 fix keeps it (:func:`blamed`); :func:`score` counts
culprits found (blamed, or inside a blamed block), missed, and healthy modules blamed. Used by tests/doctor/test_planted.py and
benchmarks/planted_defects.py (which writes precision and recall into BENCHMARKS.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

import castwise as cw

WIDTH = 32
ERROR, WARNING = "error", "warning"
"""Severities as the report writes them (plain strings, so that older reports score alike)."""


@dataclass(frozen=True)
class Planted:
    """A model with known culprits: ``build(seed)`` gives (model, inputs, loss_fn or None)."""

    name: str
    defect: str
    culprits: frozenset[str]
    build: Callable[[int], tuple[nn.Module, Any, Callable[[Any], torch.Tensor] | None]]


class NaiveStandardize(nn.Module):
    """Standardises with a variance computed as E[x^2] - E[x]^2 around an offset of 100: in 16 bits the
    two terms (about 1e4) cancel to rounding noise, and dividing by its square root wrecks the output."""

    def __init__(self, width: int = WIDTH) -> None:
        super().__init__()
        self.gain = nn.Parameter(torch.ones(width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shifted = x + 100.0
        mean = shifted.mean(-1, keepdim=True)
        variance = (shifted * shifted).mean(-1, keepdim=True) - mean * mean
        return (shifted - mean) / torch.sqrt(variance.clamp_min(1e-6)) * self.gain


class Loud(nn.Module):
    """Activations around 1e5 inside (above fp16's 65504) from ``up``, scaled back down before the output."""

    def __init__(self, width: int = 8, outputs: int = 2) -> None:
        super().__init__()
        self.up = nn.Linear(width, width)
        self.down = nn.Linear(width, outputs)
        with torch.no_grad():
            self.up.weight.mul_(1e6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.up(x) / 1e4)


class RunningSum(nn.Module):
    """A running sum over 256 time steps, accumulated one step at a time in the dtype that arrives: in
    bf16 (8 significant bits) each small step is rounded against a total near 100 and mostly lost."""

    def __init__(self, width: int = WIDTH) -> None:
        super().__init__()
        self.gain = nn.Parameter(torch.full((width,), 0.5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        total = torch.zeros_like(x[:, 0])
        for step in range(x.shape[1]):
            total = total + x[:, step] * self.gain
        return total


class Attention(nn.Module):
    """Self-attention computing its logits ``q @ k.T`` in its own forward, with queries and keys sharing a
    large component (bias 50 in each of 32 dimensions): the logits sit near 8e4 with differences of a few
    units. fp32's softmax ignores the common part; fp16 overflows (65504) and bf16 (ulp 512 there) loses
    the differences. The projections are healthy: the culprit is the module's own logits."""

    def __init__(self, width: int = WIDTH) -> None:
        super().__init__()
        self.q, self.k, self.v, self.out = (nn.Linear(width, width) for _ in range(4))
        with torch.no_grad():
            for projection in (self.q, self.k):
                projection.weight.mul_(0.05)
                projection.bias.fill_(50.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.q(x) @ self.k(x).transpose(-1, -2)
        return self.out(torch.softmax(logits, -1) @ self.v(x))


class TopOneMoE(nn.Module):
    """Top-1 routing between experts whose gate logits (near 8) differ by less than bf16 resolves there
    (0.0625); its inputs are exact in bf16, so the gate's own rounding is what flips the choices."""

    def __init__(self, width: int = WIDTH, experts: int = 4) -> None:
        super().__init__()
        self.top_k = 1
        self.gate = nn.Linear(width, experts)
        self.experts = nn.ModuleList(nn.Linear(width, width) for _ in range(experts))
        with torch.no_grad():
            self.gate.weight.mul_(0.01)
            self.gate.bias.fill_(8.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        choice = self.gate(x).float().argmax(-1)
        outputs = torch.stack([expert(x) for expert in self.experts], -2)
        return outputs.gather(-2, choice[..., None, None].expand(*choice.shape, 1, x.shape[-1])).squeeze(-2)


class SquaredErrorLoss(nn.Module):
    """A summed squared error computed inside the model, in whatever dtype arrives (fp16 sums overflow)."""

    def forward(self, prediction: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return ((prediction - target) ** 2).sum()


class Regressor(nn.Module):
    """A model that returns its own loss (as transformers models do with labels)."""

    def __init__(self, width: int = WIDTH) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
        self.criterion = SquaredErrorLoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.criterion(self.body(x), target)


class EmbeddingClassifier(nn.Module):
    """Token embeddings, mean-pooled, normalised and classified."""

    def __init__(self, vocab: int = 64, width: int = WIDTH) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 4)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.embed(ids).mean(1)))


def _seeded(seed: int) -> torch.Generator:
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def _x(seed: int, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_seeded(seed))


def _activation_overflow(seed: int) -> tuple[nn.Module, Any, None]:
    x = _x(seed, 8, WIDTH)
    return nn.Sequential(nn.Linear(WIDTH, 8), Loud()), x, None


def _gradient_overflow(seed: int) -> tuple[nn.Module, Any, None]:
    """The issue's example, narrower: module 0's weight gradient sums 256 rows of 4 * 300 * x, above
    fp16's range, while its activations and module 1's gradients stay well inside it."""
    x = _x(seed, 256, 64).abs()
    model = nn.Sequential(nn.Linear(64, 128), nn.Linear(128, 4))
    with torch.no_grad():
        model[0].weight.mul_(1e-2)
        model[1].weight.fill_(300)
    return model, x, None


def _cancellation(positions: int) -> Callable[[int], tuple[nn.Module, Any, None]]:
    def build(seed: int) -> tuple[nn.Module, Any, None]:
        x = _x(seed, 8, WIDTH)
        layers: list[nn.Module] = [nn.Linear(WIDTH, WIDTH)]
        for _ in range(positions):
            layers += [NaiveStandardize(), nn.Linear(WIDTH, WIDTH)]
        return nn.Sequential(*layers), x, None
    return build


def _gradient_underflow(seed: int) -> tuple[nn.Module, Any, Callable[[Any], torch.Tensor]]:
    """A loss scaled by 1e-5 (a mean over a huge batch, say): module 0's weight gradients, on inputs near
    1e-3, fall near 4e-9, below fp16's smallest subnormal (6e-8), in an unscaled backward; module 1's, on
    inputs near 1 (module 0's bias), stay near 1e-5. The outputs sit near 10, so the loss is no
    cancelling sum."""
    x = _x(seed, 16, WIDTH) * 1e-3
    model = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, 4))
    with torch.no_grad():
        model[0].bias.fill_(1.0)
        model[1].bias.fill_(10.0)
    return model, x, lambda out: out.float().sum() * 1e-5


def _long_accumulation(seed: int) -> tuple[nn.Module, Any, None]:
    x = _x(seed, 4, 256, WIDTH) * 0.1 + 0.5
    return nn.Sequential(nn.Linear(WIDTH, WIDTH), RunningSum(), nn.Linear(WIDTH, 4)), x, None


def _attention_overflow(seed: int) -> tuple[nn.Module, Any, None]:
    x = _x(seed, 2, 8, WIDTH)
    model = nn.Sequential()
    model.add_module("attn", Attention())
    model.add_module("head", nn.Linear(WIDTH, 4))
    return model, x, None


def _router_flip(seed: int) -> tuple[nn.Module, Any, None]:
    x = _x(seed, 64, WIDTH).to(torch.bfloat16).float()  # exact in bf16: the input cast changes nothing
    model = nn.Sequential()
    model.add_module("moe", TopOneMoE())
    return model, x, None


def _huge_embedding(seed: int) -> tuple[nn.Module, Any, None]:
    generator = _seeded(seed)
    model = EmbeddingClassifier()
    with torch.no_grad():
        model.embed.weight.mul_(1e5)  # rows of norm ~5e5: entries up to ~3e5, past fp16's 65504
    return model, torch.randint(0, 64, (4, 12), generator=generator), None


def _low_precision_loss(seed: int) -> tuple[nn.Module, Any, Callable[[Any], torch.Tensor]]:
    x = _x(seed, 64, WIDTH)
    target = _x(seed + 1, 64, WIDTH) * 30  # squared errors near 1e3, summed over 2048: ~2e6 > 65504
    return Regressor(), (x, target), lambda loss: loss


def _healthy_mlp(seed: int) -> tuple[nn.Module, Any, None]:
    x = _x(seed, 16, WIDTH)
    model = nn.Sequential(nn.Linear(WIDTH, 2 * WIDTH), nn.GELU(), nn.LayerNorm(2 * WIDTH), nn.Linear(2 * WIDTH, 4))
    return model, x, None


def _healthy_cnn(seed: int) -> tuple[nn.Module, Any, None]:
    x = _x(seed, 4, 3, 8, 8)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    return model, x, None


PLANTED: tuple[Planted, ...] = (
    Planted("activation_overflow", "fp16 overflow in one layer's activations", frozenset({"1.up"}),
            _activation_overflow),
    Planted("gradient_overflow", "fp16 overflow in one layer's gradients", frozenset({"0"}), _gradient_overflow),
    Planted("cancellation_once", "catastrophic cancellation (E[x^2]-E[x]^2) in one place", frozenset({"1"}),
            _cancellation(1)),
    Planted("cancellation_twice", "catastrophic cancellation in two places", frozenset({"1", "3"}),
            _cancellation(2)),
    Planted("gradient_underflow", "fp16 gradient underflow", frozenset({"0"}), _gradient_underflow),
    Planted("long_accumulation", "a long running sum in bf16", frozenset({"1"}), _long_accumulation),
    Planted("attention_logits", "attention logits that overflow fp16", frozenset({"attn"}), _attention_overflow),
    Planted("router_flip", "an MoE router whose top-1 choices flip", frozenset({"moe.gate"}), _router_flip),
    Planted("huge_embedding", "an embedding with huge norms", frozenset({"embed"}), _huge_embedding),
    Planted("low_precision_loss", "a loss computed in low precision", frozenset({"criterion"}), _low_precision_loss),
    Planted("healthy_mlp", "none (a healthy MLP)", frozenset(), _healthy_mlp),
    Planted("healthy_cnn", "none (a healthy CNN with BatchNorm)", frozenset(), _healthy_cnn),
)


def diagnose(planted: Planted, seed: int = 0, **kwargs: Any) -> cw.Report:
    """``cw.diagnose`` a planted model with its inputs and loss (default policies and modes)."""
    model, inputs, loss_fn = planted.build(seed)
    return cw.diagnose(model, inputs, loss_fn=loss_fn, name=planted.name, seed=seed, **kwargs)


def blamed(report: cw.Report) -> set[str]:
    """Modules the report blames: named by an error or warning finding, or kept by a verified keep-fp32 fix."""
    named = {f.module for f in report.findings if f.module and f.severity in (ERROR, WARNING)}
    kept = {module for fix in report.recommendation.keep_fp32 if fix.ok for module in fix.modules}
    return {name for name in named | kept if not name.startswith("(")}


@dataclass(frozen=True)
class Score:
    """Culprits found, culprits missed, and healthy modules blamed, for one or more planted models."""

    found: int
    missed: int
    wrongly_blamed: int

    def __add__(self, other: Score) -> Score:
        return Score(self.found + other.found, self.missed + other.missed, self.wrongly_blamed + other.wrongly_blamed)

    @property
    def precision(self) -> float:
        """Blamed modules that are culprits (1.0 when nothing was blamed)."""
        blamed_count = self.found + self.wrongly_blamed
        return self.found / blamed_count if blamed_count else 1.0

    @property
    def recall(self) -> float:
        """Culprits that were blamed (1.0 when there were none)."""
        culprits = self.found + self.missed
        return self.found / culprits if culprits else 1.0


def _covers(module: str, culprit: str) -> bool:
    """Blaming ``module`` points at ``culprit``: it is the culprit or encloses it (keeping a whole block
    in fp32 is a coarser fix for the same defect; the block's own code may be where it bites)."""
    return module == culprit or culprit.startswith(module + ".")


def score(planted: Planted, report: cw.Report) -> Score:
    """How the report's blame matches ``planted``'s culprits."""
    named = blamed(report)
    found = {c for c in planted.culprits if any(_covers(m, c) for m in named)}
    wrong = {m for m in named if not any(_covers(m, c) for c in planted.culprits)}
    return Score(len(found), len(planted.culprits - found), len(wrong))


def recommended_passes(planted: Planted, report: cw.Report, seed: int = 0) -> bool:
    """The recommended policy, diagnosed alone on the same model and inputs, is within tolerance."""
    if report.recommendation.policy is None:
        return False
    again = diagnose(planted, seed, policies=[report.recommendation.policy], tolerance=report.tolerance)
    return again.policies[0].within_tolerance and not any(f.severity == ERROR for f in again.findings)

