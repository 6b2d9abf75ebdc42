"""transformers integration: model folders that keep their dtypes, and a Trainer callback.

``from_pretrained`` / ``save_pretrained`` load and write model folders with every tensor in its
stored dtype; ``CastwiseCallback`` brings a castwise policy to ``transformers.Trainer`` and TRL.
"""

from castwise.integrations.transformers.callback import CastwiseCallback
from castwise.integrations.transformers.folders import from_pretrained, save_pretrained
from castwise.integrations.transformers.plan import TrainingPlan

__all__ = ["CastwiseCallback", "TrainingPlan", "from_pretrained", "save_pretrained"]
