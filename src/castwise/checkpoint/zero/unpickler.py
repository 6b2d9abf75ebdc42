"""Unpickling a DeepSpeed ZeRO shard without DeepSpeed and without running any of its code.

The shards pickle DeepSpeed objects (``ZeroStageEnum``, loss scalers, ``fragment_address``), so
torch's ``weights_only=True`` refuses them, and a plain unpickler would import DeepSpeed and run
whatever a file names. This unpickler admits a fixed set of globals: a DeepSpeed class becomes an
inert :class:`Inert` record of its arguments and state; tensors become :class:`StoredTensor`
references to bytes in the archive (checked to lie inside their storage), never read here. Any
other global (``os.system``, ``builtins.eval``, ...) is refused before anything is built.

Which globals a pickle may name does not bound how it arranges them (a key nested 100,000 deep
crashes the interpreter, a memo index of 2**32 allocates gigabytes), so before the unpickler sees
a byte, :func:`~castwise.checkpoint.pickle_bounds.check_pickle` walks the pickle within the same
bounds as every other pickle castwise reads. :func:`unpickle` is the one place a shard's pickle is read.
"""

from __future__ import annotations

import io
import math
import pickle
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from castwise.checkpoint.pickle_bounds import Refused, load_restricted
from castwise.checkpoint.zero.torch_zip import Storage, TorchArchive

MAX_DIMENSIONS = 64
MAX_SIZE = 2**63 - 1
"""Largest size, stride, offset or count a shard may give (torch's own limit); a larger integer would not
even print (Python refuses to write integers of more than 4,300 digits)."""
_MAX_INERT_CLASSES = 256
_STORAGE_DTYPES = {
    "FloatStorage": torch.float32,
    "HalfStorage": torch.float16,
    "BFloat16Storage": torch.bfloat16,
    "DoubleStorage": torch.float64,
    "LongStorage": torch.int64,
    "IntStorage": torch.int32,
    "ShortStorage": torch.int16,
    "CharStorage": torch.int8,
    "ByteStorage": torch.uint8,
    "BoolStorage": torch.bool,
}
_DTYPES = {name: value for name, value in vars(torch).items() if isinstance(value, torch.dtype)}
"""``torch.float16`` and the like, looked up without touching torch's lazily imported attributes."""


@dataclass(frozen=True)
class StoredTensor:
    """A tensor as a shard's pickle describes it: a view of ``shape`` and ``stride`` into ``storage``."""

    storage: Storage
    offset: int
    shape: tuple[int, ...]
    stride: tuple[int, ...]

    @property
    def dtype(self) -> torch.dtype:
        """The element type (its storage's)."""
        return self.storage.dtype

    @property
    def numel(self) -> int:
        """Number of elements."""
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """Bytes of its elements."""
        return self.numel * self.dtype.itemsize

    @property
    def is_contiguous(self) -> bool:
        """True when its elements lie in order, one after another, in the storage."""
        expected = 1
        for size, stride in zip(reversed(self.shape), reversed(self.stride)):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True


class Inert:
    """A stand-in for a DeepSpeed object: the arguments and state the pickle gave it, nothing run."""

    qualname = ""
    args: tuple[Any, ...]
    state: Any

    def __new__(cls, *args: Any, **kwargs: Any) -> Inert:
        instance = super().__new__(cls)
        instance.args = args
        instance.state = None
        return instance

    def __setstate__(self, state: Any) -> None:
        self.state = state

    def field(self, name: str) -> Any:
        """A field of the object's pickled state (None when absent)."""
        return self.state.get(name) if isinstance(self.state, dict) else None

    def __repr__(self) -> str:
        return f"<inert {self.qualname}{self.args!r}>"


class _StorageKind:
    """What a pickled ``torch.FloatStorage`` (etc.) stands for: the dtype of a storage."""

    def __init__(self, dtype: torch.dtype) -> None:
        self.dtype = dtype


class _TensorType:
    """What a pickled ``torch.Tensor`` or ``Parameter`` class stands for: a plain tensor."""


class _ShardUnpickler(pickle.Unpickler):
    """Builds only admitted globals; storages become :class:`Storage` records of the archive."""

    def __init__(self, archive: TorchArchive, pickled: bytes) -> None:
        super().__init__(io.BytesIO(pickled))
        self._archive = archive
        self._storages: dict[str, Storage] = {}
        self._inert: dict[str, type[Inert]] = {}

    def find_class(self, module: str, name: str) -> Any:
        admitted = _ADMITTED.get((module, name))
        if admitted is not None:
            return admitted
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageKind(_STORAGE_DTYPES[name])
        if module == "torch" and name in _DTYPES:
            return _DTYPES[name]
        if module.split(".")[0] == "deepspeed" and name.isidentifier():
            return self._inert_class(f"{module}.{name}")
        raise Refused(f"global '{module}.{name}' is not part of a DeepSpeed ZeRO checkpoint")

    def persistent_load(self, pid: Any) -> Storage:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise Refused(f"persistent id {shown(pid)} is not a torch storage")
        _, kind, key, _location, numel = pid
        if not isinstance(kind, _StorageKind) or not isinstance(key, str) or not is_size(numel):
            raise Refused(f"persistent id {shown(pid)} is not a torch storage")
        if key not in self._storages:
            self._storages[key] = self._archive.storage(key, kind.dtype, numel)
        storage = self._storages[key]
        if storage.dtype != kind.dtype or storage.numel != numel:
            raise Refused(f"storage {key!r} is declared twice with different types")
        return storage

    def _inert_class(self, qualname: str) -> type[Inert]:
        if qualname not in self._inert:
            if len(self._inert) >= _MAX_INERT_CLASSES:
                raise Refused(f"more than {_MAX_INERT_CLASSES} distinct DeepSpeed classes")
            self._inert[qualname] = type(qualname.rpartition(".")[2], (Inert,), {"qualname": qualname})
        return self._inert[qualname]


def shown(value: Any) -> str:
    """``value`` for a message, cut to 80 characters (an integer too long to write is described instead)."""
    try:
        return repr(value)[:80]
    except ValueError:
        return f"({type(value).__name__} holding an integer of over 4,300 digits)"


def is_size(value: Any) -> bool:
    """True for an integer from 0 to :data:`MAX_SIZE` (not a bool)."""
    return type(value) is int and 0 <= value <= MAX_SIZE


def _sizes(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)) or len(value) > MAX_DIMENSIONS:
        raise Refused(f"{what} {shown(value)} is not a tuple of at most {MAX_DIMENSIONS} sizes")
    if not all(is_size(v) for v in value):
        raise Refused(f"{what} holds something other than integers from 0 to {MAX_SIZE:,}")
    return tuple(value)


def _size(values: Any = ()) -> tuple[int, ...]:
    return _sizes(tuple(values) if isinstance(values, (tuple, list)) else values, "torch.Size")


def _tensor(
    storage: Any, offset: Any, size: Any, stride: Any, requires_grad: Any = False, hooks: Any = None, *rest: Any
) -> StoredTensor:
    """``torch._utils._rebuild_tensor_v2``, checked: a view that lies inside its storage."""
    if not isinstance(storage, Storage) or not is_size(offset):
        raise Refused("a tensor's storage or offset is malformed")
    shape, strides = _sizes(size, "tensor shape"), _sizes(stride, "tensor stride")
    if len(shape) != len(strides):
        raise Refused(f"tensor shape {list(shape)} and stride {list(strides)} differ in length")
    if math.prod(shape) and offset + sum((n - 1) * s for n, s in zip(shape, strides)) >= storage.numel:
        raise Refused(
            f"a tensor of shape {list(shape)} at offset {offset} reaches past its storage of {storage.numel} elements"
        )
    return StoredTensor(storage, offset, shape, strides)


def _parameter(data: Any, requires_grad: Any = False, hooks: Any = None, *state: Any) -> StoredTensor:
    """``torch._utils._rebuild_parameter`` (and ``_with_state``): the parameter's data."""
    if not isinstance(data, StoredTensor):
        raise Refused("a parameter holds something other than a tensor")
    return data


def _typed(function: Any, new_type: Any, args: Any, state: Any = None) -> StoredTensor:
    """``torch._tensor._rebuild_from_type_v2``: a tensor subclass or one with attributes, as a plain tensor."""
    if function not in (_tensor, _parameter) or new_type is not _TensorType or not isinstance(args, tuple):
        raise Refused("a typed tensor is rebuilt by something other than torch's tensor builders")
    result: StoredTensor = function(*args)
    return result


_ADMITTED: dict[tuple[str, str], Callable[..., Any] | type] = {
    ("collections", "OrderedDict"): OrderedDict,
    ("torch", "Size"): _size,
    ("torch", "Tensor"): _TensorType,
    ("torch.nn.parameter", "Parameter"): _TensorType,
    ("torch._utils", "_rebuild_tensor_v2"): _tensor,
    ("torch._utils", "_rebuild_parameter"): _parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _parameter,
    ("torch._tensor", "_rebuild_from_type_v2"): _typed,
}


def unpickle(archive: TorchArchive) -> Any:
    """The object ``archive``'s pickle describes, walked within the pickle bounds first, then built
    from admitted globals only (no code runs)."""
    return load_restricted(
        lambda raw: _ShardUnpickler(archive, raw), archive.pickle_bytes(), str(archive.path), "a ZeRO shard",
        "convert it with DeepSpeed's own zero_to_fp32.py",
    )
