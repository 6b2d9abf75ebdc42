"""Opening any weight source a layout names: a DeepSpeed ZeRO tag folder, or what ``open_shard`` reads."""

from __future__ import annotations

from pathlib import Path

from castwise.checkpoint.shards import ShardReader, open_shard
from castwise.checkpoint.zero import ZeroReader, is_tag_folder


def open_source(path: Path, data: bool = True, key: str | None = None) -> ShardReader:
    """A reader for ``path``: a ZeRO tag folder, a DCP folder, a safetensors or torch file."""
    if is_tag_folder(path):
        return ZeroReader(path, data)
    return open_shard(path, data, key)
