"""transformers integration.

``from_pretrained`` loads a model folder with every tensor in the dtype it was saved in.
transformers 5 (``dtype="auto"``) picks one dtype for the whole model, so bf16 weights with fp32
norms come back all-bf16; here the model is loaded in the widest stored dtype (an exact upcast)
and each tensor is then set back to its stored dtype, read from the file headers.
"""

from __future__ import annotations

import tempfile
from itertools import chain
from pathlib import Path
from typing import Any, Iterable

import torch
from torch import nn

from castwise.checkpoint.conversion import convert
from castwise.checkpoint.dtypes import CASTABLE
from castwise.checkpoint.inspection import inspect
from castwise.model import PrecisionModule, unwrap
from castwise.keep import kept_modules
from castwise.model.wrapper import model_policy
from castwise.policy import dtype_from_name, dtype_name


def from_pretrained(path: str | Path, model_class: Any = None, **kwargs: Any) -> nn.Module:
    """Load a transformers model folder keeping every stored dtype (``model_class``: AutoModel)."""
    if "dtype" in kwargs or "torch_dtype" in kwargs:
        raise TypeError("from_pretrained keeps each stored dtype; call model_class.from_pretrained to force one")
    if model_class is None:
        from transformers import AutoModel as model_class
    stored = {t.name: t.dtype for t in inspect(path).tensors if t.dtype in CASTABLE}
    widest = max(stored.values(), key=lambda d: d.itemsize, default=None)
    model = model_class.from_pretrained(path, dtype=widest, **kwargs)
    prefix = getattr(model, "base_model_prefix", "") or ""
    for name, tensor in chain(model.named_parameters(), model.named_buffers()):
        dtype = _stored_dtype(name, stored, prefix)
        if dtype is not None and tensor.is_floating_point() and tensor.dtype != dtype:
            _set_dtype(model, name, tensor, dtype)
    return model


def _stored_dtype(name: str, stored: dict[str, torch.dtype], prefix: str) -> torch.dtype | None:
    """The stored dtype of a model tensor, allowing for the base-model prefix on either side."""
    candidates = [name]
    if prefix:
        candidates += [f"{prefix}.{name}", name.removeprefix(f"{prefix}.")]
    return next((stored[c] for c in candidates if c in stored), None)


def _set_dtype(model: nn.Module, name: str, tensor: torch.Tensor, dtype: torch.dtype) -> None:
    if isinstance(tensor, nn.Parameter):
        tensor.data = tensor.data.to(dtype)
        return
    owner, _, leaf = name.rpartition(".")
    model.get_submodule(owner)._buffers[leaf] = tensor.to(dtype)


def save_pretrained(
    model: nn.Module,
    path: str | Path,
    dtype: str | torch.dtype | None = None,
    keep_fp32: Iterable[str] | None = None,
    **kwargs: Any,
) -> Path:
    """Save a transformers model folder in storage ``dtype`` with a ``config.json`` declaring it.

    ``dtype`` defaults to the param dtype of the policy a ``cw.apply`` wrapper carries. Kept
    modules are stored fp32: those the policy keeps (norms, the model's ``_keep_in_fp32_modules``)
    unless ``keep_fp32`` gives module name globs. ``kwargs`` go to transformers' ``save_pretrained``;
    the folder is written by ``cw.convert``, so it appears atomically and replaces ``path``.
    """
    inner = unwrap(model)
    wrapped = isinstance(model, PrecisionModule)
    if dtype is None and not wrapped:
        raise TypeError("save_pretrained needs dtype= for a model not wrapped by cw.apply")
    target = dtype_from_name(dtype) if dtype is not None else model.policy.param_dtype
    if keep_fp32 is None:
        policy = model.policy if wrapped else model_policy(inner, f"params={dtype_name(target)}")
        keep_fp32 = [name for name, _ in kept_modules(inner, policy.keep_fp32)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=f".{path.name}.") as staging:
        inner.save_pretrained(staging, **kwargs)
        convert(staging, path, dtype=target, keep_fp32=tuple(keep_fp32), force=True)
    return path
