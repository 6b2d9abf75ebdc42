"""What castwise records in a safetensors ``__metadata__``: its version, storage dtype and policy."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import metadata as package_metadata

import torch

from castwise.checkpoint.dtypes import torch_name

VERSION_KEY = "castwise.version"
DTYPE_KEY = "castwise.dtype"
KEEP_KEY = "castwise.keep_fp32"
KEEP_RULE_KEY = "castwise.keep_rule"
POLICY_KEY = "castwise.policy"


def castwise_metadata(
    base: dict[str, str],
    dtype: torch.dtype | None,
    keep_fp32: Iterable[str],
    policy: object | None,
    keep_rule: str | None = None,
) -> dict[str, str]:
    """``base`` (the source's metadata) plus castwise's own keys (``keep_rule``: what decided fp32)."""
    metadata = {"format": "pt", **base, VERSION_KEY: _castwise_version()}
    metadata[DTYPE_KEY] = torch_name(dtype) if dtype is not None else "as stored"
    metadata[KEEP_KEY] = "|".join(keep_fp32)
    for key, value in ((POLICY_KEY, policy), (KEEP_RULE_KEY, keep_rule)):
        if value is not None:
            metadata[key] = str(value)
        else:
            metadata.pop(key, None)
    return metadata


def describe_castwise_metadata(metadata: dict[str, str]) -> list[str]:
    """A finding naming how castwise wrote the file, if it did."""
    if VERSION_KEY not in metadata:
        return []
    parts = [f"storage dtype {metadata.get(DTYPE_KEY, '?')}"]
    if metadata.get(KEEP_KEY):
        parts.append(f"kept fp32: {metadata[KEEP_KEY].replace('|', ', ')}")
    if metadata.get(KEEP_RULE_KEY):
        parts.append(f"decided by {metadata[KEEP_RULE_KEY]}")
    if metadata.get(POLICY_KEY):
        parts.append(f"policy {metadata[POLICY_KEY]}")
    return [f"written by castwise {metadata[VERSION_KEY]} ({'; '.join(parts)})"]


def _castwise_version() -> str:
    try:
        return package_metadata.version("castwise")
    except package_metadata.PackageNotFoundError:
        return "unknown"
