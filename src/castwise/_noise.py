"""Silence import-time log lines of optional libraries that say nothing to a castwise user.

transformers imports torchao whenever torchao is installed (its quantizers module does, to build a
model skeleton, to load a folder, inside ``Trainer``), so a bf16 ``castwise convert`` or a Trainer
run that never touches fp8 printed torchao's ``Failed to load .../_C_mxfp8...so`` for each optional
CUDA kernel library it could not load, and torch's note to torchao's authors that registering enums
as pytree constants is deprecated. Where DeepSpeed is installed, transformers imports it too, and it
announced on *stdout* that it found no GPU, ahead of ``castwise doctor --hf DIR --json``'s JSON.
Only those records are dropped, by message, from those loggers: every other warning still reaches
the user, and fp8 itself does not need those kernel libraries (torchao's float8 training linears
run without them).
"""

from __future__ import annotations

import logging

_DROPPED = {
    "torchao": ("Failed to load ", ".so"),
    "torch.utils._pytree": ("%s is an Enum subclass and is now natively supported", ""),
    "DeepSpeed": ("Setting accelerator to CPU.", "we were unable to detect it"),
}
"""Per logger: the start of the dropped records' message, and a text the message must also hold."""


class _DropNoise(logging.Filter):
    """Drops the records whose message starts with ``prefix`` and holds ``marker``."""

    def __init__(self, prefix: str, marker: str) -> None:
        super().__init__()
        self.prefix, self.marker = prefix, marker

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg if isinstance(record.msg, str) else ""
        return not (message.startswith(self.prefix) and self.marker in message)


def quiet_optional_extensions() -> None:
    """Install the filters once (idempotent): called when castwise is imported."""
    for name, (prefix, marker) in _DROPPED.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, _DropNoise) for f in logger.filters):
            logger.addFilter(_DropNoise(prefix, marker))
