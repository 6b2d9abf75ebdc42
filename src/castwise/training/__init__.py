"""Training in low precision: loss scaling, 16-bit updates that aren't rounded away, health metrics."""

from castwise.training.health import TensorHealth
from castwise.training.loss_scaler import LossScaler
from castwise.training.memory import TrainingBytes, training_bytes
from castwise.training.monitor import PrecisionMonitor
from castwise.training.optimizer_base import CastwiseOptimizer
from castwise.training.optimizers import make_optimizer, update_rule
from castwise.training.rounding import rounds_away, stochastic_round, ulp
from castwise.training.state_precision import STATES
from castwise.training.stochastic import StochasticRounding

__all__ = [
    "STATES",
    "CastwiseOptimizer",
    "LossScaler",
    "PrecisionMonitor",
    "StochasticRounding",
    "TensorHealth",
    "TrainingBytes",
    "make_optimizer",
    "rounds_away",
    "stochastic_round",
    "training_bytes",
    "ulp",
    "update_rule",
]
