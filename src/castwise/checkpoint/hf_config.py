"""The dtype a Hugging Face ``config.json`` declares, and writing a new one into a copy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from castwise.checkpoint.bounded_json import read_json_file
from castwise.checkpoint.dtypes import torch_name
from castwise.checkpoint.errors import CheckpointError

DTYPE_KEYS = ("dtype", "torch_dtype")
"""transformers 5 writes ``dtype``; 4.x wrote ``torch_dtype``. The first one present wins."""
QUANTIZATION_KEY = "quantization_config"
MAX_CONFIG_BYTES = 16_000_000
"""Largest config.json read (the largest real ones, label maps included, are well under 1 MB)."""


def read_config(path: Path) -> dict[str, Any]:
    """The JSON object in a config file."""
    try:
        config = read_json_file(path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:  # UnicodeDecodeError included
        raise CheckpointError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(config, dict):
        raise CheckpointError(f"{path}: expected a JSON object")
    return config


def declared_dtype(config: dict[str, Any]) -> str | None:
    """The dtype name a config declares (``"bfloat16"``), or None."""
    for key in DTYPE_KEYS:
        value = config.get(key)
        if isinstance(value, str) and value not in ("", "auto"):
            return value.removeprefix("torch.")
    return None


def write_config_with_dtype(
    source: Path, destination: Path, dtype: torch.dtype, updates: dict[str, Any] | None = None
) -> None:
    """Copy ``source`` to ``destination`` with its declared dtype set to ``dtype``.

    ``updates`` sets further keys; a None value removes its key (``quantization_config``).
    """
    config = read_config(source)
    present = [key for key in DTYPE_KEYS if key in config] or ["dtype"]
    for key in present:
        config[key] = torch_name(dtype)
    for key, value in (updates or {}).items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    destination.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
