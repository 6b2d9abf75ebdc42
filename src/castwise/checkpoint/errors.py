"""The one exception checkpoint code raises for a bad file, a bad path or a refused operation."""

from __future__ import annotations


class CheckpointError(ValueError):
    """A checkpoint cannot be read or written; the message says what is wrong and what to do."""
