"""What ``castwise doctor TARGET`` diagnoses: a factory in a file or module, or a transformers folder."""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn


class TargetError(ValueError):
    """A target that cannot be loaded; the message says what to write instead."""


@dataclass
class Target:
    """What a factory gave: the model, its example inputs, and optionally training batches and a loss."""

    model: nn.Module
    inputs: Any
    batches: Iterable[Any] | None = None
    loss_fn: Callable[..., Any] | None = None


_KEYS = ("model", "inputs", "batches", "loss_fn")


def load_factory(spec: str) -> Callable[[], Any]:
    """The callable named by ``path/to/file.py:factory`` or ``package.module:factory``."""
    location, sep, name = spec.rpartition(":")
    if not sep or not location or not name:
        raise TargetError(f"target {spec!r} must look like 'path/to/file.py:factory' or 'package.module:factory'")
    module = _load_file(Path(location)) if location.endswith(".py") else _import(location)
    factory = getattr(module, name, None)
    if not callable(factory):
        raise TargetError(f"{location} has no callable {name!r}")
    return factory


def _load_file(path: Path) -> Any:
    if not path.is_file():
        raise TargetError(f"no such file: {path}")
    module_name = f"castwise_target_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    finally:
        sys.path.pop(0)
    return module


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise TargetError(f"cannot import {name!r}: {exc}") from exc


def model_and_inputs(produced: Any) -> Target:
    """A factory's result as a :class:`Target`: ``(model, example_inputs)``, a module with
    ``example_input_array``, or a dict with ``model`` and ``inputs`` and optionally ``batches``
    (``(inputs, target)`` pairs; ``inputs`` then defaults to the first batch's) and ``loss_fn``."""
    if isinstance(produced, dict):
        return _from_dict(produced)
    if isinstance(produced, tuple) and len(produced) == 2 and isinstance(produced[0], nn.Module):
        return Target(*produced)
    if isinstance(produced, nn.Module):
        inputs = getattr(produced, "example_input_array", None)
        if inputs is None:
            raise TargetError(
                f"the factory returned a {type(produced).__name__} without example inputs: return "
                "(model, example_inputs) or set model.example_input_array"
            )
        return Target(produced, inputs)
    raise TargetError(
        f"the factory must return an nn.Module, (model, example_inputs) or a dict with 'model' and 'inputs', "
        f"got {type(produced).__name__}"
    )


def _from_dict(produced: dict[str, Any]) -> Target:
    unknown = sorted(set(produced) - set(_KEYS))
    if unknown:
        raise TargetError(f"the factory's dict has unknown keys {', '.join(unknown)}; valid: {', '.join(_KEYS)}")
    model, batches, loss_fn = produced.get("model"), produced.get("batches"), produced.get("loss_fn")
    if not isinstance(model, nn.Module):
        raise TargetError(f"the factory's dict needs 'model' (an nn.Module), got {type(model).__name__}")
    if loss_fn is not None and not callable(loss_fn):
        raise TargetError(f"the factory's 'loss_fn' must be callable, got {type(loss_fn).__name__}")
    first = None
    if batches is not None:
        iterator = iter(batches)
        first = next(iterator, None)
        if not (isinstance(first, (tuple, list)) and len(first) == 2):
            raise TargetError("the factory's 'batches' must yield (inputs, target) pairs")
        batches = itertools.chain([first], iterator)
    inputs = produced.get("inputs", first[0] if first else None)
    if inputs is None:
        raise TargetError("the factory's dict needs 'inputs' (or 'batches' to take them from)")
    return Target(model, inputs, batches, loss_fn)


def load_target(spec: str) -> Target:
    """Load ``file.py:factory`` / ``package.module:factory`` and call the factory."""
    return model_and_inputs(load_factory(spec)())


def load_transformers(folder: str | Path, batch: int = 2, length: int = 16, meta: bool = False) -> Target:
    """A transformers model folder in fp32, with token ids and an attention mask built from its config;
    a causal LM also gets ``labels`` and its own language-modelling loss as ``loss_fn``. ``meta=True``:
    the model is built on the meta device, no weights read (for the streamed doctor)."""
    try:
        import transformers
    except ImportError as exc:
        raise TargetError("--hf needs the transformers package (pip install 'castwise[transformers]')") from exc
    path = Path(folder)
    if not (path / "config.json").is_file():
        raise TargetError(f"{path} is not a transformers model folder (no config.json)")
    config = transformers.AutoConfig.from_pretrained(path, local_files_only=True)
    architecture = next(iter(getattr(config, "architectures", None) or ()), None)
    model_class = getattr(transformers, architecture, None) if architecture else None
    model_class = model_class or transformers.AutoModel
    model: Any
    if meta:
        with torch.device("meta"):
            model = model_class.from_config(config) if model_class is transformers.AutoModel else model_class(config)
    else:
        model = model_class.from_pretrained(path, dtype=torch.float32, local_files_only=True)
    inputs = _token_inputs(config, batch, length)
    if type(model).__name__.endswith(_CAUSAL_LM):
        inputs["labels"] = inputs["input_ids"].masked_fill(inputs["attention_mask"] == 0, -100)
        return Target(model, inputs, loss_fn=_language_modelling_loss)
    return Target(model, inputs)


_CAUSAL_LM = ("ForCausalLM", "LMHeadModel")


def _language_modelling_loss(output: Any) -> torch.Tensor:
    """The loss a transformers causal LM computes itself when given ``labels``."""
    return output.loss


def _token_inputs(config: Any, batch: int, length: int) -> dict[str, torch.Tensor]:
    vocab = int(getattr(config, "vocab_size", 0) or 0)
    if vocab <= 0:
        raise TargetError("the model's config has no vocab_size; write a factory that returns (model, inputs)")
    length = min(length, int(getattr(config, "max_position_embeddings", length) or length))
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, vocab, (batch, length), generator=generator)
    mask = torch.ones(batch, length, dtype=torch.long)
    mask[1:, length // 2:] = 0
    return {"input_ids": ids, "attention_mask": mask}
