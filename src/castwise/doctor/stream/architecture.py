"""Which part of a transformers model is the stack of decoder blocks the streamed doctor walks.

The blocks are the one ``nn.ModuleList`` of ``num_hidden_layers`` modules of one class, found on
the model's meta-device skeleton (no weights). Only the families whose model forward is known to
hand every block the same kind of arguments and nothing else between blocks are streamed; any
other model is refused with the reason, since the in-memory doctor diagnoses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from torch import nn

SUPPORTED = ("llama", "mistral", "qwen2", "qwen3", "gpt2", "mixtral")
"""``config.model_type`` of the Llama-, Mistral-, Qwen-, GPT-2- and Mixtral-style models streamed."""


class StreamError(ValueError):
    """A model or checkpoint the streamed doctor cannot diagnose; the message says what to do instead."""


@dataclass(frozen=True)
class Blocks:
    """Where the decoder blocks of a skeleton are: ``path`` (``model.layers``), their count, and the
    base-model prefix a checkpoint's names may carry or lack (``model``)."""

    path: str
    count: int
    base_prefix: str

    def name(self, index: int) -> str:
        """The dotted module name of block ``index`` (``model.layers.3``)."""
        return f"{self.path}.{index}"

    def of(self, model: nn.Module) -> nn.ModuleList:
        """The block list of ``model`` (the skeleton or a copy of it)."""
        layers = model.get_submodule(self.path)
        assert isinstance(layers, nn.ModuleList)
        return layers

    def block_of(self, module_name: str) -> int | None:
        """The index of the block named ``module_name`` itself (``model.layers.3``: 3), else None."""
        index = module_name.removeprefix(self.path + ".")
        return int(index) if index != module_name and index.isdigit() else None

    def index_of(self, tensor_name: str) -> int | None:
        """The block a checkpoint tensor belongs to, or None for the embeddings and the head."""
        relative = self.path.removeprefix(self.base_prefix + ".") if self.base_prefix else self.path
        prefix = f"(?:{re.escape(self.base_prefix)}\\.)?" if self.base_prefix else ""
        match = re.match(f"{prefix}{re.escape(relative)}\\.(\\d+)\\.", tensor_name)
        return int(match.group(1)) if match else None


def find_blocks(model: nn.Module) -> Blocks:
    """The decoder blocks of a transformers model of a supported family, or :class:`StreamError`."""
    config = getattr(model, "config", None)
    model_type = getattr(config, "model_type", None)
    if model_type not in SUPPORTED:
        kind = f"model_type {model_type!r}" if model_type else f"{type(model).__name__} (not a transformers model)"
        raise StreamError(
            f"streaming knows the decoder blocks of {', '.join(SUPPORTED)} models, not {kind}: "
            "diagnose it with the in-memory doctor (without --stream / stream=True)"
        )
    count = int(getattr(config, "num_hidden_layers", 0) or 0)
    lists = [
        name for name, module in model.named_modules()
        if isinstance(module, nn.ModuleList) and len(module) == count > 0
        and len({type(block) for block in module}) == 1
    ]
    if len(lists) != 1:
        raise StreamError(
            f"{type(model).__name__}: expected one list of {count} decoder blocks, found {len(lists)}; "
            "diagnose it with the in-memory doctor"
        )
    prefix = getattr(model, "base_model_prefix", "")
    return Blocks(lists[0], count, prefix if isinstance(prefix, str) else "")
