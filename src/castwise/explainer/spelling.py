"""Every way torch has spelled a dtype or a device in an error message, read back to one name.

torch's messages name dtypes through several generations of its own vocabulary: ``Float``, ``float``,
``c10::Half``, ``struct c10::BFloat16``, ``at::Half``, ``long int``, ``torch.bfloat16``, ``'BFloat16'``,
``torch.cuda.HalfTensor``, ``CPUBFloat16Type``, ``CUDAFloatTensor``, its C++ constants (``at::kHalf``,
``torch::kBFloat16``), and users retype them (``c 10::BFloat16``). Other libraries qualify them with their own
namespace (``np.float16``, ``thunder.dtypes.bfloat16``). The legacy tensor-type names also carry the device.
Triton, which compiled kernels (torch.compile's among them) raise from, has its own: ``triton.language.float64``,
``tl.bfloat16``, ``fp16``, ``i32``, a pointer's ``pointer<fp16>``; CUTLASS has ``half_t``, ``bfloat16_t`` and
``float_e4m3_t``. Dtypes come out as castwise's short names
(``policy.dtype_name``: ``bf16``, ``f16``, ``f32``, ``f64``, otherwise torch's own name such as ``int64``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import torch

from castwise.policy import dtype_name

QUANTIZED_DTYPES = frozenset((torch.qint8, torch.quint8, torch.qint32, torch.quint4x2, torch.quint2x4))
"""torch.ao's quantized dtypes (their short names are torch's own: ``qint8``, ``quint4x2``)."""

_WORDS: dict[str, torch.dtype] = {
    "float": torch.float32, "float32": torch.float32, "fp32": torch.float32, "f32": torch.float32,
    "double": torch.float64, "float64": torch.float64, "fp64": torch.float64, "f64": torch.float64,
    "half": torch.float16, "float16": torch.float16, "fp16": torch.float16, "f16": torch.float16,
    "bfloat16": torch.bfloat16, "bf16": torch.bfloat16, "bfloat": torch.bfloat16,
    "long": torch.int64, "longint": torch.int64, "int64": torch.int64, "longlong": torch.int64,
    "int": torch.int32, "int32": torch.int32,
    "short": torch.int16, "shortint": torch.int16, "int16": torch.int16,
    "uint16": torch.uint16, "unsignedshort": torch.uint16, "uint32": torch.uint32, "uint64": torch.uint64,
    "shortunsignedint": torch.uint16, "unsignedshortint": torch.uint16, "unsignedint": torch.uint32,
    "longunsignedint": torch.uint64, "unsignedlong": torch.uint64,
    "char": torch.int8, "signedchar": torch.int8, "int8": torch.int8,
    "byte": torch.uint8, "unsignedchar": torch.uint8, "uint8": torch.uint8,
    **{dtype_name(dtype): dtype for dtype in QUANTIZED_DTYPES},
    "bool": torch.bool, "int1": torch.bool, "i1": torch.bool,
    "i64": torch.int64, "i32": torch.int32, "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8,
    "complexfloat": torch.complex64, "complex64": torch.complex64, "cfloat": torch.complex64,
    "complexdouble": torch.complex128, "complex128": torch.complex128,
    "complexhalf": torch.complex32, "complex32": torch.complex32,
    **{name.replace("_", ""): getattr(torch, name) for name in dir(torch) if name.startswith("float8_")},
    **{name.replace("float8_", "f8"): getattr(torch, name) for name in dir(torch) if name.startswith("float8_")},
    "floate4m3": torch.float8_e4m3fn, "floate5m2": torch.float8_e5m2,
}

_DEVICES = ("cuda", "cpu", "meta", "mps", "xpu", "hip", "xla", "privateuse1", "privateuseone")
_DEVICE_ALIASES = {"privateuseone": "privateuse1"}
"""A device's other spelling (torch-directml's ``privateuseone``) read as torch's dispatch key."""
_NOISE = re.compile(r"\b(?:struct|class)\s+|^const\s+|(?<=\d)_t$|\b(?:c\s*10|at|std|torch)\s*::?|"
                    r"^(?:torch|triton\.language|tl)\.|"
                    r"^pointer<|>$|^(?:[a-z_]{1,12}\.){1,2}(?=b?float|half|double)|['\"`()\[\]{}]")
_CONSTANT = re.compile(r"^k(?=[A-Z])")
"""ATen's C++ constants (``at::kHalf``, ``torch::kBFloat16``) once their namespace is taken off."""
_DEVICE_DOT = re.compile(rf"^({'|'.join(_DEVICES)})\.", re.IGNORECASE)
_DEVICE_PREFIX = re.compile(rf"^({'|'.join(_DEVICES)})(?=[A-Z])", re.IGNORECASE)
_LEGACY_SUFFIX = re.compile(r"(?:Tensor|Type|Storage)$", re.IGNORECASE)
"""The legacy tensor-type names' suffix, in any case: users retype them lowercased (``torch.cuda.halftensor``)."""


_SPARSE = re.compile(r"(?:^|(?<=\.))sparse\.")
"""Old torch's sparse tensor types' namespace (``torch.sparse.LongTensor``, ``torch.cuda.sparse.FloatTensor``)."""


def _parts(word: str) -> tuple[str | None, str, bool]:
    """(device named by the spelling, the bare dtype word, whether it was a legacy tensor-type name)."""
    text = _CONSTANT.sub("", _NOISE.sub("", word.strip()).strip().rstrip(".,;:!").removeprefix("torch."))
    text = _SPARSE.sub("", text)
    legacy = bool(_LEGACY_SUFFIX.search(text)) and text.lower() not in ("tensor", "type", "storage")
    device = None
    for pattern in (_DEVICE_DOT, _DEVICE_PREFIX):
        found = pattern.match(text)
        if found:
            device, text = found.group(1).lower(), text[found.end():]
            device = _DEVICE_ALIASES.get(device, device)
            break
    return device, _LEGACY_SUFFIX.sub("", text) if legacy else text, legacy


_NUMPY_TYPESTR = re.compile(r"^[<>|=](?P<kind>[fiucb])(?P<size>16|[1248])$")
"""numpy's array-interface type strings (``<f8``, ``|u1``, ``<i8``): a byte order, a kind and a size in bytes
(``i8`` alone is LLVM's 8-bit integer)."""
_NUMPY_KINDS = {"f": "float", "i": "int", "u": "uint", "c": "complex", "b": "bool"}


def _numpy_typestr(word: str) -> torch.dtype | None:
    found = _NUMPY_TYPESTR.match(word.strip(" '\""))
    if found is None:
        return None
    kind = _NUMPY_KINDS[found["kind"]]
    return _WORDS.get(kind if kind == "bool" else f"{kind}{int(found['size']) * 8}")


def dtype_of(word: str) -> torch.dtype | None:
    """The dtype a spelling such as ``c10::Half``, ``long int``, ``torch.cuda.HalfTensor`` or numpy's ``<f8``
    names, or None."""
    typestr = _numpy_typestr(word)
    if typestr is not None:
        return typestr
    bare = _parts(word)[1].removesuffix("_t")
    return _WORDS.get(re.sub(r"[\s_<>]", "", bare).lower())


def full_name(name: str) -> str:
    """torch's own name for a short dtype name (``f16`` -> ``float16``), as numpy and Triton spell it too; ``name``
    itself when it names no dtype."""
    dtype = dtype_of(name)
    return str(dtype).removeprefix("torch.") if dtype is not None else name


def short_dtype(word: str) -> str | None:
    """The short name (``bf16``, ``f32``, ``int64``) of the dtype a spelling names, or None."""
    dtype = dtype_of(word)
    return None if dtype is None else dtype_name(dtype)


def short_dtypes(words: Iterable[str]) -> tuple[str, ...]:
    """The short names of the dtypes ``words`` spell, each once, in order; words that name none are skipped."""
    return tuple(dict.fromkeys(name for name in map(short_dtype, words) if name is not None))


def device_of(word: str) -> str | None:
    """The device a spelling names: ``cuda`` for ``torch.cuda.HalfTensor``/``CUDAFloatType``,
    ``cpu`` for ``torch.HalfTensor``/``CPUBFloat16Type``, ``privateuse1`` for a plug-in backend's
    ``PrivateUse1FloatType`` (DirectML's); None when it names none (``c10::Half``)."""
    device, bare, legacy = _parts(word)
    if device is not None:
        return device
    return "cpu" if legacy and bare else None


def is_floating(name: str) -> bool:
    """Whether a short dtype name is a floating dtype (fp8 included, complex not)."""
    dtype = dtype_of(name)
    return dtype is not None and dtype.is_floating_point


def is_quantized(name: str) -> bool:
    """Whether a short dtype name is one of torch.ao's quantized dtypes (qint8, quint8, qint32, quint4x2, quint2x4)."""
    return dtype_of(name) in QUANTIZED_DTYPES


def is_complex(name: str) -> bool:
    """Whether a short dtype name is a complex dtype (complex32 included)."""
    dtype = dtype_of(name)
    return dtype is not None and dtype.is_complex


def is_low_precision(name: str) -> bool:
    """Whether a short dtype name is a floating dtype narrower than 32 bits (f16, bf16, fp8)."""
    dtype = dtype_of(name)
    return dtype is not None and dtype.is_floating_point and dtype.itemsize < 4


def is_fp8(name: str) -> bool:
    """Whether a short dtype name is one of torch's float8 dtypes."""
    dtype = dtype_of(name)
    return dtype is not None and dtype.is_floating_point and dtype.itemsize == 1
