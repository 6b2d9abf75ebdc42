"""A checkpoint read one part at a time: the embeddings and head once, then one decoder block per call.

Tensors are read one by one from the weight files (safetensors shards, or torch files) with the
readers ``castwise convert`` uses, then handed to transformers' own loading rules (renamings, and
conversions such as Mixtral's per-expert weights fused into one tensor) on a meta-device copy of the
model, in float32. Only the part asked for is materialised; everything else stays on meta.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
from torch import nn

from castwise.checkpoint.errors import CheckpointError
from castwise.checkpoint.layout import resolve
from castwise.checkpoint.shards import ShardReader, open_shard
from castwise.doctor.stream.architecture import Blocks, StreamError

FLOAT32_BYTES = 4


class Weights:
    """The weight files of ``folder`` for the model ``skeleton`` (on meta), read per tensor."""

    def __init__(self, folder: str | Path, skeleton: nn.Module, blocks: Blocks) -> None:
        try:
            layout = resolve(folder)
        except CheckpointError as exc:
            raise StreamError(f"cannot stream the checkpoint: {exc}") from None
        self._readers: list[ShardReader] = [open_shard(path) for path in layout.files]
        self._where: dict[str, ShardReader] = {}
        self._elements: dict[str, int] = {}
        for reader in self._readers:
            for info in reader.infos():
                self._where[info.name] = reader
                self._elements[info.name] = info.numel
        self.blocks = blocks
        self._names: dict[int | None, list[str]] = {}
        for name in self._where:
            self._names.setdefault(blocks.index_of(name), []).append(name)
        missing = [i for i in range(blocks.count) if i not in self._names]
        if missing:
            raise StreamError(f"{folder}: the checkpoint holds no tensors of {blocks.name(missing[0])}")
        self._loader = copy.deepcopy(skeleton)
        """A meta-device copy of the model that each block is loaded into, at its place."""

    def block_bytes(self, index: int) -> int:
        """Bytes of block ``index`` in float32."""
        return FLOAT32_BYTES * sum(self._elements[name] for name in self._names[index])

    def stem_bytes(self) -> int:
        """Bytes of everything outside the blocks (embeddings, final norm, head) in float32."""
        return FLOAT32_BYTES * sum(self._elements[name] for name in self._names.get(None, ()))

    def block(self, index: int) -> nn.Module:
        """Block ``index`` with its weights in float32, a new module (the skeleton's stays on meta)."""
        layers = self.blocks.of(self._loader)
        original = layers[index]
        block = copy.deepcopy(original)
        layers[index] = block
        try:
            _load(self._loader, self._read(self._names[index]))
        finally:
            layers[index] = original
        _check_loaded(block, self.blocks.name(index))
        return block

    def stem(self, frame: nn.Module) -> None:
        """Load everything outside the blocks into ``frame`` (a meta copy of the model) in float32,
        tie what the model ties and compute the buffers no checkpoint holds (rotary frequencies)."""
        _load(frame, self._read(self._names.get(None, [])))
        tie = getattr(frame, "tie_weights", None)
        if callable(tie):
            tie()  # the head shares the embeddings' weight again where the model ties them
        outside = [(n, m) for n, m in frame.named_modules() if not _inside(n, self.blocks.path)]
        for name, module in outside:
            _compute_buffers(frame, name, module)
        for name, module in outside:
            _check_loaded(module, name or "(model)", recurse=False)

    def _read(self, names: list[str]) -> dict[str, torch.Tensor]:
        return {name: self._where[name].read(name) for name in names}

    def close(self) -> None:
        """Close the weight files."""
        for reader in self._readers:
            reader.close()


def _inside(name: str, path: str) -> bool:
    return name == path or name.startswith(path + ".")


def _load(model: nn.Module, tensors: dict[str, torch.Tensor]) -> None:
    """Load checkpoint ``tensors`` into the meta ``model`` by transformers' own rules, in float32."""
    try:
        from transformers.conversion_mapping import get_model_conversion_mapping
        from transformers.core_model_loading import convert_and_load_state_dict_in_model
        from transformers.modeling_utils import LoadStateDictConfig
    except ImportError as exc:
        raise StreamError(f"streaming needs transformers 5 or later to load weights part by part ({exc})") from None
    pretrained: Any = model
    mapping: Any = get_model_conversion_mapping(pretrained)
    config = LoadStateDictConfig(weight_mapping=mapping, dtype=torch.float32)
    with _quiet_transformers():
        info, _ = convert_and_load_state_dict_in_model(pretrained, tensors, config)
    if info.mismatched_keys:
        name, got, expected = sorted(info.mismatched_keys)[0]
        raise StreamError(f"checkpoint tensor {name} has shape {tuple(got)}, the model's config says {tuple(expected)}")


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    """transformers' own progress bar off while it loads a part (the doctor has one over blocks)."""
    from transformers.utils import logging

    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            logging.enable_progress_bar()


def _compute_buffers(model: nn.Module, name: str, module: nn.Module) -> None:
    """A module whose own buffers no checkpoint holds (non-persistent, still on meta) and that has no
    parameters of its own gets them computed by the model's own initialisation (``_init_weights``)."""
    waiting = [key for key, buffer in module._buffers.items() if buffer is not None and buffer.is_meta]
    init: Any = getattr(model, "_init_weights", None)
    if not waiting or module._parameters or not callable(init):
        return
    for key in waiting:
        module._buffers[key] = torch.empty_like(module._buffers[key], device="cpu")  # type: ignore[arg-type]
    init(module)


def _check_loaded(module: nn.Module, name: str, recurse: bool = True) -> None:
    tensors = [*module.named_parameters(recurse=recurse), *module.named_buffers(recurse=recurse)]
    missing = [key for key, tensor in tensors if tensor.is_meta]
    if missing:
        raise StreamError(f"{name}: the checkpoint holds no {', '.join(missing[:3])}; is it this model's checkpoint?")
