"""The streamed doctor: a transformers checkpoint diagnosed one decoder block at a time.

Peak memory is one block in fp32, one copy of it under a policy, the embeddings and head, and the
fp32 hidden states between blocks (kept in memory: ``(blocks + 1) x modes x batch x length x hidden``
floats), whatever the depth. :mod:`architecture` finds the blocks, :mod:`weights` reads them,
:mod:`frame` runs the model's own forward around them, :mod:`passes` measures, :mod:`routing`
counts MoE routing, :mod:`assemble` and :mod:`diagnose` make the report; :mod:`budget` tells when
the in-memory doctor would not fit.
"""

from castwise.doctor.stream.architecture import SUPPORTED, StreamError
from castwise.doctor.stream.diagnose import diagnose_streamed

__all__ = ["SUPPORTED", "StreamError", "diagnose_streamed"]
