"""Hypothesis strategies for structured checkpoints of every format castwise reads, each a
:class:`Case` with what a correct read must give.

As with the safetensors headers (``header_strategies.py``), most drawn inputs are nearly valid, so
the fuzzer gets past the first check: a real file written by torch or safetensors, then one or a
few fields made hostile (a shard name too long for the file system, a tensor in two shards, a
symlink out of the folder, a config of junk types or huge counts, overlapping DCP chunks, a
storage pointing into another, a pickle bomb, a size over a small storage, fp8 scales that are
inf, nan or zero, blocks far larger than the weight, a DeepSpeed ZeRO shard cut short, lost or
given fields of other kinds).
"""

from __future__ import annotations

import copy
import enum
import io
import json
import math
import pickle
import re
import warnings
import zipfile
from functools import cache
from typing import Any

import torch
from hypothesis import strategies as st
from safetensors.torch import save as safetensors_bytes

from .fuzz_oracle import Case
from .header_strategies import HUGE, json_values, safetensors_files, sometimes
from .helpers import deep_tuple_key, laughing_key

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
INDEX = "model.safetensors.index.json"


def bombs() -> st.SearchStrategy[bytes]:
    """Deep-keyed and self-multiplying pickles of every size around the bounds (harmless below them)."""
    return st.integers(1, 300_000).map(deep_tuple_key) | st.integers(1, 64).map(laughing_key)


def values(draw: st.DrawFn, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """A tensor of ``shape`` whose values come from one drawn seed (cheap to draw, varied)."""
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))
    if dtype.is_floating_point and dtype not in (E4M3, E5M2):
        return (torch.randn(shape, generator=generator) * 3).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    if dtype.itemsize == 1:  # uint8, int8 and the fp8 formats: any byte
        return torch.randint(0, 256, shape, dtype=torch.uint8, generator=generator).view(dtype)
    return torch.randint(-(2**20), 2**20, shape, dtype=dtype, generator=generator)


def small_shapes(max_dims: int = 3) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(0, 5), max_size=max_dims).map(tuple)


DTYPES = [torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.bool, torch.uint8]


@st.composite
def safetensors_cases(draw: st.DrawFn) -> Case:
    """The safetensors headers of ``header_strategies``; their data region is zero bytes."""
    return Case("safetensors", {"fuzz.safetensors": draw(safetensors_files())}, "fuzz.safetensors", "zeros")


# -- sharded index ----------------------------------------------------------------------------


_BAD_SHARD_NAMES = ["x" * 300 + ".safetensors", "../outside.safetensors", "", ".", "a/b.safetensors", "sub"]


@st.composite
def index_cases(draw: st.DrawFn) -> Case:
    """Shards with known tensors and an index over them, now and then with hostile entries."""
    count = draw(st.integers(1, 3))
    names = [f"model-{i + 1:05d}-of-{count:05d}.safetensors" for i in range(count)]
    shards: dict[str, dict[str, torch.Tensor]] = {}
    for name in names:
        keys = draw(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=3, unique=True))
        shards[name] = {k: values(draw, draw(small_shapes(2)), draw(st.sampled_from(DTYPES))) for k in keys}
    if draw(st.integers(0, 3)):  # most of the time, no tensor in two shards
        taken: set[str] = set()
        for name in names:
            shards[name] = {k: v for k, v in shards[name].items() if k not in taken} or {f"only-{name}": torch.ones(1)}
            taken |= set(shards[name])
    files = {name: safetensors_bytes(tensors) for name, tensors in shards.items()}
    weight_map: dict[str, Any] = {k: name for name, tensors in shards.items() for k in tensors}
    links: dict[str, str] = {}
    hostile = draw(st.integers(0, 9))
    if hostile == 0:
        weight_map[draw(st.sampled_from("abcdefg"))] = draw(st.sampled_from(_BAD_SHARD_NAMES))
        files["sub/x"] = b"folder"
    elif hostile == 1:
        weight_map["z"] = "missing.safetensors"
    elif hostile == 2:  # a shard that is a link out of the folder
        target = names[-1]
        files[f"@outside/{target}"] = files.pop(target)
        links[target] = f"@outside/{target}"
    elif hostile == 3:  # a link inside the folder is fine
        target = names[-1]
        files[f"real-{target}"] = files.pop(target)
        links[target] = f"real-{target}"
    elif hostile == 4:
        weight_map[draw(st.sampled_from(sorted(weight_map)))] = draw(json_values)
    document: Any = {"metadata": sometimes(draw, {"total_size": 1}, json_values, odds=6), "weight_map": weight_map}
    document = sometimes(draw, document, json_values, odds=20)
    files[INDEX] = json.dumps(document).encode()
    valid = (
        isinstance(document, dict)
        and document.get("weight_map") is weight_map
        and hostile not in (0, 1, 2, 4)
        and isinstance(document.get("metadata"), (dict, type(None)))
        and all(isinstance(v, str) for v in weight_map.values())
    )
    referenced = set(weight_map.values()) if valid else set()
    expected: dict[str, torch.Tensor] = {}
    for name in sorted(referenced) if valid else ():
        for key, tensor in shards[name].items():
            valid = valid and key not in expected
            expected[key] = tensor
    target = draw(st.sampled_from(["", INDEX]))
    return Case("index", files, target, "values" if valid else "refuse", expected, links)


# -- config.json ------------------------------------------------------------------------------


_CONFIGS = {
    "llama": {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 16, "intermediate_size": 32,
              "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 2, "vocab_size": 64},
    "gpt2": {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 16, "n_head": 2, "n_layer": 2,
             "n_positions": 32, "vocab_size": 64},
    "bert": {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": 16, "intermediate_size": 32,
             "num_attention_heads": 2, "num_hidden_layers": 2, "vocab_size": 64, "max_position_embeddings": 32},
    "mixtral": {"model_type": "mixtral", "hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2,
                "num_key_value_heads": 1, "num_hidden_layers": 2, "vocab_size": 64, "num_local_experts": 4},
}
_JUNK = st.one_of(
    json_values,
    st.sampled_from([*HUGE, -1, 0, 10**6, 2**20, 2**24, 2**31, 10**12, 1e308, -1e308, "", "x" * 300]),
    st.integers(-(2**70), 2**70),
)


@st.composite
def config_cases(draw: st.DrawFn) -> Case:
    """A small model's weights beside a config.json of junk types, huge counts or widths."""
    tensors = {
        "model.layers.0.input_layernorm.weight": values(draw, (16,), torch.float32),
        "model.layers.0.mlp.up_proj.weight": values(draw, (32, 16), torch.float32),
        "model.norm.weight": values(draw, (16,), torch.float32),
        "lm_head.weight": values(draw, (4, 16), torch.bfloat16),
    }
    config: Any = dict(_CONFIGS[draw(st.sampled_from(sorted(_CONFIGS)))])
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from([*config, "architectures", "model_type", "text_config", "num_experts", "dtype"]))
        config[key] = draw(_JUNK)
    if draw(st.integers(0, 3)) == 0:
        config[draw(st.text(max_size=6))] = draw(_JUNK)
    config = sometimes(draw, config, json_values, odds=25)
    raw = sometimes(draw, json.dumps(config).encode(), st.sampled_from([b"{", b"\xff\xfe", b"[" * 200 + b"]" * 200]), 25)
    files = {"model.safetensors": safetensors_bytes(tensors), "config.json": raw}
    return Case("config", files, "", "values", tensors)


# -- fp8 scale layouts ------------------------------------------------------------------------


_SCALE_SPELLINGS = ["weight_scale_inv", "weight_scale", "scale_weight"]
_BAD_SCALES = [float("inf"), float("-inf"), float("nan"), 0.0, -1.0]


@st.composite
def fp8_cases(draw: st.DrawFn) -> Case:
    """An fp8 weight with a scale per tensor, channel or block (the block maybe in config.json), or,
    for quantizing, a float weight that may hold inf or nan; dimensions zero, odd or huge."""
    if draw(st.integers(0, 3)) == 0:
        return draw(_quantize_case())
    rows, cols = draw(st.integers(0, 260)), draw(st.integers(0, 260))
    fp8 = draw(st.sampled_from([E4M3, E5M2]))
    weight = values(draw, (rows, cols), fp8)
    block = draw(st.sampled_from([(128, 128), (64, 32), (1, 1), (7, 300), (2**20, 2**20)]))
    layout = draw(st.sampled_from(["tensor", "channel", "block", "wrong"]))
    grid = (-(-rows // block[0]), -(-cols // block[1]))
    shape = {"tensor": (1,), "channel": (rows, 1), "block": grid}.get(layout) or draw(small_shapes(2))
    scale = torch.rand(shape, generator=torch.Generator().manual_seed(draw(st.integers(0, 99)))) + 0.01
    bad_scale = scale.numel() > 0 and draw(st.integers(0, 5)) == 0
    if bad_scale:
        scale.view(-1)[draw(st.integers(0, scale.numel() - 1))] = draw(st.sampled_from(_BAD_SCALES))
    scale_dtype = draw(st.sampled_from([torch.float32, torch.float32, torch.bfloat16, torch.int32]))
    spelling = draw(st.sampled_from(_SCALE_SPELLINGS))
    scale_name = "l.scale_weight" if spelling == "scale_weight" else f"l.{spelling}"
    scale = scale.to(scale_dtype) if scale_dtype.is_floating_point else (scale * 100).to(scale_dtype)
    tensors = {"l.weight": weight, scale_name: scale, "l.norm.weight": values(draw, (4,), torch.bfloat16)}
    config_block: Any = list(block) if layout == "block" and block != (128, 128) else None
    config_block = sometimes(draw, config_block, st.sampled_from([[0, 1], [-1, 5], [2**40, 2**40], "x", [1]]), 8)
    files = {"model.safetensors": safetensors_bytes(tensors)}
    if config_block is not None:
        files["config.json"] = json.dumps({"quantization_config": {"weight_block_size": config_block}}).encode()
    if draw(st.integers(0, 9)) == 0:  # an empty weight whose other dimension is huge (a few bytes of file)
        files = {"model.safetensors": _empty_fp8_file(draw(st.sampled_from([2**28, 2**40, 2**62])))}
        return Case("fp8", files, "", "any", convert="any")
    block_used = block if config_block == list(block) or (layout == "block" and block == (128, 128)) else None
    expected_layout = layout in ("tensor", "channel") or (layout == "block" and block_used is not None)
    fits = expected_layout and scale_dtype.is_floating_point and (layout != "channel" or rows * cols > 0)
    converted = {"l.weight": _dequantized(weight, scale, layout, block)} if fits and not bad_scale else {}
    verdict = "refuse" if fits and bad_scale and weight.numel() else ("cast" if converted else "any")
    return Case("fp8", files, "", "values", tensors, converted=converted, convert=verdict)


def _dequantized(weight: torch.Tensor, scale: torch.Tensor, layout: str, block: tuple[int, int]) -> torch.Tensor:
    """The float64 reference: each fp8 value times its scale, rounded once to fp32, then to bf16."""
    rows, cols = weight.shape
    multiplier = scale.double()
    if layout == "block":
        multiplier = multiplier.repeat_interleave(min(block[0], max(rows, 1)), 0)[:rows]
        multiplier = multiplier.repeat_interleave(min(block[1], max(cols, 1)), 1)[:, :cols]
    elif layout == "channel":
        multiplier = multiplier.reshape(-1, 1)
    else:
        multiplier = multiplier.reshape(())
    return (weight.double() * multiplier).float().bfloat16()


def _empty_fp8_file(width: int) -> bytes:
    header = {
        "l.weight": {"dtype": "F8_E4M3", "shape": [0, width], "data_offsets": [0, 0]},
        "l.weight_scale": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
    }
    raw = json.dumps(header).encode()
    return len(raw).to_bytes(8, "little") + raw + torch.ones(1).numpy().tobytes()


@st.composite
def _quantize_case(draw: st.DrawFn) -> Case:
    rows, cols = draw(st.integers(0, 200)), draw(st.integers(0, 200))
    weight = values(draw, (rows, cols), draw(st.sampled_from([torch.float32, torch.bfloat16])))
    if weight.numel() and draw(st.integers(0, 3)) == 0:
        weight.view(-1)[draw(st.integers(0, weight.numel() - 1))] = draw(st.sampled_from(_BAD_SCALES[:3]))
    tensors = {"mlp.up_proj.weight": weight, "model.norm.weight": values(draw, (4,), torch.float32)}
    block = draw(st.sampled_from(["128", "tensor", "1", "7", "1000000", "1073741824"]))
    files = {"model.safetensors": safetensors_bytes(tensors), "config.json": b'{"torch_dtype": "float32"}'}
    return Case("fp8", files, "", "values", tensors, quantize=block)  # config.json records the block


# -- torch .bin/.pt pickles -------------------------------------------------------------------


@st.composite
def torch_cases(draw: st.DrawFn) -> Case:
    """A ``torch.save`` state dict (zip or legacy; views, shared storages, empty tensors), now and
    then with its pickle, a record or the file made hostile."""
    state: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=4, unique=True)):
        base = values(draw, draw(small_shapes()), draw(st.sampled_from([*DTYPES, torch.float64])))
        view = draw(st.sampled_from(["plain", "slice", "transpose", "tied"]))
        if view == "slice" and base.dim() and base.shape[0] > 1:
            base = base[1:]
        elif view == "transpose" and base.dim() >= 2:
            base = base.transpose(0, 1)
        elif view == "tied" and state:
            base = next(iter(state.values()))
        state[key] = base
    wrapped = {"state_dict": state, "epoch": 3} if draw(st.integers(0, 4)) == 0 else state
    legacy = draw(st.integers(0, 4)) == 0
    buffer = io.BytesIO()
    torch.save(wrapped, buffer, _use_new_zipfile_serialization=not legacy)
    raw = buffer.getvalue()
    damage = draw(st.integers(0, 11))
    if damage == 0:
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif damage in (1, 2):
        raw = _mutate_pickle(draw, raw, legacy)
    elif damage == 3 and not legacy:
        raw = _with_record(raw, draw(st.sampled_from(["data.pkl", "data/0"])), draw, compress=draw(st.booleans()))
    if damage > 3 or damage == 3 and legacy:
        return Case("torch", {"model.pt": raw}, "model.pt", "values", {k: v.clone() for k, v in state.items()})
    return Case("torch", {"model.pt": raw}, "model.pt", "torch")


def _mutate_pickle(draw: st.DrawFn, raw: bytes, legacy: bool) -> bytes:
    """Bytes of the pickle replaced: a bomb, a huge or nested size, or a few random bytes."""
    kind = draw(st.sampled_from(["bomb", "size", "bytes"]))
    pickled = raw if legacy else _read_record(raw, "data.pkl")
    if kind == "bomb":
        pickled = draw(bombs())
    elif kind == "size" and b"\x85" in pickled:  # the value before a 1-tuple (a size) made huge or odd
        new = draw(st.sampled_from([b"\x8a\x06" + (2**40).to_bytes(6, "little"), b"J\xff\xff\xff\xff", b"]" * 5]))
        at = pickled.index(b"\x85")
        pickled = pickled[: at - 2] + new + pickled[at:]
    else:
        at = draw(st.integers(0, max(len(pickled) - 1, 0)))
        pickled = pickled[:at] + draw(st.binary(min_size=1, max_size=4)) + pickled[at + 1 :]
    if legacy:
        return pickled
    return _with_record(raw, "data.pkl", draw, replacement=pickled)


def _read_record(raw: bytes, name: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        return archive.read(next(n for n in archive.namelist() if n.endswith(f"/{name}")))


def _with_record(
    raw: bytes, name: str, draw: st.DrawFn, replacement: bytes | None = None, compress: bool = False
) -> bytes:
    """The zip with record ``name`` replaced (or, when no replacement, cut short) or compressed."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as archive, zipfile.ZipFile(out, "w") as rebuilt:
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename.endswith(f"/{name}"):
                data = replacement if replacement is not None else data[: draw(st.integers(0, len(data)))]
                info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
            rebuilt.writestr(info, data)
    return out.getvalue()


# -- DCP metadata -----------------------------------------------------------------------------


@cache
def _dcp_template() -> tuple[bytes, dict[str, bytes]]:
    """A DCP folder (its pickled metadata, its data files) of a small model and its optimizer state,
    one tensor stored as a 2 x 2 grid of chunks; saved once per process."""
    import tempfile
    from pathlib import Path

    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.filesystem import FileSystemReader, _StorageInfo
    from torch.distributed.checkpoint.metadata import ChunkStorageMetadata, MetadataIndex

    generator = torch.Generator().manual_seed(0)
    model = {
        "embed.weight": torch.randn(6, 4, generator=generator),
        "proj.weight": torch.randn(3, 4, generator=generator).bfloat16(),
        "norm.weight": torch.ones(3),
        "position_ids": torch.arange(5),
        "empty": torch.zeros(0, 3),
        "scalar": torch.tensor(2.5),
    }
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save({"model": model, "optim": {"step": torch.tensor(1.0)}, "epoch": 3}, checkpoint_id=folder)
        metadata = FileSystemReader(folder).read_metadata()
        files = {p.name: p.read_bytes() for p in Path(folder).iterdir() if p.suffix == ".distcp"}
    grid = torch.arange(48.0).reshape(6, 8)
    entry = metadata.state_dict_metadata["model.embed.weight"]
    entry.size, entry.chunks = torch.Size([6, 8]), []
    metadata.storage_data = {k: v for k, v in metadata.storage_data.items() if k.fqn != "model.embed.weight"}
    data = bytearray()
    for r, h in ((0, 4), (4, 2)):
        for c, w in ((0, 3), (3, 5)):
            record = io.BytesIO()
            torch.save(grid[r : r + h, c : c + w].clone(), record)
            entry.chunks.append(ChunkStorageMetadata(torch.Size([r, c]), torch.Size([h, w])))
            metadata.storage_data[MetadataIndex("model.embed.weight", torch.Size([r, c]))] = _StorageInfo(
                "__9_0.distcp", len(data), len(record.getvalue())
            )
            data += record.getvalue()
    files["__9_0.distcp"] = bytes(data)
    return pickle.dumps(metadata), files


@st.composite
def dcp_cases(draw: st.DrawFn) -> Case:
    """The template's metadata with fields made hostile, or replaced by a bomb or flipped bytes."""
    pickled, files = _dcp_template()
    files = dict(files)
    kind = draw(st.integers(0, 19))
    if kind == 0:
        files[".metadata"] = draw(bombs())
        return Case("dcp", files, "", "refuse")
    if kind == 1:
        at = draw(st.integers(0, len(pickled) - 1))
        files[".metadata"] = pickled[:at] + draw(st.binary(min_size=1, max_size=3)) + pickled[at + 1 :]
        return Case("dcp", files, "", "any")
    metadata = pickle.loads(pickled)
    for _ in range(draw(st.integers(1, 3)) if kind > 4 else 0):
        _damage(draw, metadata, files)
    files[".metadata"] = pickle.dumps(metadata)
    expected = _dcp_reference(metadata, files)
    return Case("dcp", files, "", "refuse" if expected is None else "values", expected or {})


def _damage(draw: st.DrawFn, metadata: Any, files: dict[str, bytes]) -> None:
    """One hostile change to a tensor's size, dtype or chunks, a storage entry, or a data file."""
    from torch.distributed.checkpoint.metadata import BytesStorageMetadata, ChunkStorageMetadata

    names = sorted(metadata.state_dict_metadata, key=str)
    name = draw(st.sampled_from(names))
    entry = metadata.state_dict_metadata[name]
    storages = [k for k in metadata.storage_data if k.fqn == name]
    what = draw(st.integers(0, 11))
    if isinstance(entry, BytesStorageMetadata) or what == 0:
        metadata.state_dict_metadata[name] = draw(st.sampled_from([BytesStorageMetadata(), entry]))
    elif what == 1:
        entry.size = torch.Size([draw(st.sampled_from([0, 1, 2, 3, 5, 8, 2**40])) for _ in entry.size])
    elif what == 2:
        entry.properties.dtype = draw(st.sampled_from([torch.float32, torch.int64, torch.bfloat16, torch.float16]))
    elif what == 3 and entry.chunks:
        entry.chunks.append(draw(st.sampled_from(entry.chunks)))
    elif what == 4 and entry.chunks:
        entry.chunks.pop(draw(st.integers(0, len(entry.chunks) - 1)))
    elif what == 5 and entry.chunks:
        chunk = draw(st.sampled_from(entry.chunks))
        sizes = [max(0, s + draw(st.integers(-1, 1))) for s in chunk.sizes]
        entry.chunks[entry.chunks.index(chunk)] = ChunkStorageMetadata(chunk.offsets, torch.Size(sizes))
    elif what == 6 and entry.chunks and storages:
        chunk = draw(st.sampled_from(entry.chunks))
        offsets = torch.Size([max(0, o + draw(st.integers(-1, 1))) for o in chunk.offsets])
        index = next((k for k in storages if tuple(k.offset or ()) == tuple(chunk.offsets)), None)
        entry.chunks[entry.chunks.index(chunk)] = ChunkStorageMetadata(offsets, chunk.sizes)
        if index is not None:
            info = metadata.storage_data.pop(index)
            metadata.storage_data[type(index)(name, offsets)] = info
    elif what in (7, 8) and storages:
        info = metadata.storage_data[draw(st.sampled_from(storages))]
        field_name = draw(st.sampled_from(["relative_path", "offset", "length"]))
        if field_name == "relative_path":
            info.relative_path = draw(st.sampled_from([".metadata", "../x.distcp", "", "missing.distcp", *files]))
        else:
            setattr(info, field_name, max(0, getattr(info, field_name) + draw(st.sampled_from([-1, 1, 64, 2**40]))))
    elif what == 9 and storages:
        other = draw(st.sampled_from(sorted(metadata.storage_data, key=str)))
        metadata.storage_data[draw(st.sampled_from(storages))] = metadata.storage_data[other]
    elif what == 10:
        data = draw(st.sampled_from(sorted(files)))
        files[data] = files[data][: draw(st.integers(0, len(files[data])))]
    elif what == 11:
        metadata.state_dict_metadata[draw(st.sampled_from([7, ("t",), "model.new"]))] = entry


def _dcp_reference(metadata: Any, files: dict[str, bytes]) -> dict[str, torch.Tensor] | None:
    """The model group as DCP's own semantics give it, checked independently of castwise: every
    chunk's record read whole at its storage entry, placed at its offsets, every element covered
    exactly once; None where that cannot be done (so nothing may be read). castwise refuses more
    (storage entries sharing bytes, damage to other groups): those count as valid inputs refused."""
    from torch.distributed.checkpoint.metadata import BytesStorageMetadata, TensorStorageMetadata

    entries = metadata.state_dict_metadata
    if not all(isinstance(k, str) for k in entries) or not all(
        isinstance(e, (BytesStorageMetadata, TensorStorageMetadata)) for e in entries.values()
    ):
        return None
    located = {(k.fqn, tuple(k.offset or ())): v for k, v in metadata.storage_data.items()}
    result = {}
    for name, entry in entries.items():
        if isinstance(entry, TensorStorageMetadata) and name.startswith("model."):  # what cw.load reads
            tensor = _assembled(name, entry, located, files)
            if tensor is None:
                return None
            result[name.removeprefix("model.")] = tensor
    return result


def _assembled(name: str, entry: Any, located: dict, files: dict[str, bytes]) -> torch.Tensor | None:
    shape, dtype = tuple(entry.size), entry.properties.dtype
    if any(n < 0 for n in shape) or math.prod(shape) > 2**20:
        return None
    out = torch.zeros(shape, dtype=dtype)
    covered = torch.zeros(shape, dtype=torch.int64)
    for chunk in entry.chunks:
        offsets, sizes = tuple(chunk.offsets), tuple(chunk.sizes)
        info = located.get((name, offsets))
        if info is None or len(offsets) != len(shape) or any(o + s > n for o, s, n in zip(offsets, sizes, shape)):
            return None
        data = files.get(info.relative_path, b"") if info.relative_path.endswith(".distcp") else b""
        raw = data[info.offset : info.offset + info.length]
        if len(raw) != info.length:
            return None
        try:
            value = torch.load(io.BytesIO(raw), weights_only=True)
        except Exception:  # noqa: BLE001 - a record that is not one: nothing may be read
            return None
        if not isinstance(value, torch.Tensor) or value.dtype != dtype or tuple(value.shape) != sizes:
            return None
        region = tuple(slice(o, o + s) for o, s in zip(offsets, sizes))
        out[region] = value
        covered[region] += 1
    return out if bool((covered == 1).all()) else None


# -- DeepSpeed ZeRO folders -------------------------------------------------------------------


ZERO_CASE = "stage3-bf16"
"""The ``zero_maker`` case the ZeRO inputs start from: ZeRO-3, two ranks, sub-groups, a frozen layer,
a tied head, buffers (one transposed)."""
_TAG = "global_step2"


@cache
def _zero_template() -> tuple[dict[str, bytes], dict[str, torch.Tensor]]:
    """The files of the case's tag folder, and what a correct load gives, independently of castwise:
    the fp32 weights ``zero_to_fp32.py`` wrote, the frozen layer's stored 16-bit values, the tied head
    left out (it is the embedding)."""
    from .zero_maker import zero_checkpoints

    root = zero_checkpoints()
    files = {p.name: p.read_bytes() for p in sorted((root / ZERO_CASE / _TAG).iterdir()) if p.is_file()}
    reference = torch.load(root / f"{ZERO_CASE}-reference" / "pytorch_model.bin", weights_only=True)
    frozen = torch.load(root / f"{ZERO_CASE}-frozen.pt", weights_only=True)
    expected = {name: frozen.get(name, tensor) for name, tensor in reference.items() if name != "head.weight"}
    return files, expected


def _too_long_to_print() -> int:
    """An integer Python refuses to write as text (over 4,300 digits) or to make a float (drawn
    through ``st.builds``: hypothesis writes the values of a ``sampled_from`` into its notes)."""
    return 10**5000


_HUGE_INT = st.builds(_too_long_to_print)
_SHAPE_JUNK = [(2**40,), (-1,), (0,), "x", None, [[1]], (5,) * 70, (2**62, 2**62), (2**64,)]
_COUNT_JUNK = [0, 1, 3, 2**20, -1, None, "2", [2, 0], [], 2.0, 2**64, True, "\ud800"]


@st.composite
def zero_cases(draw: st.DrawFn) -> Case:
    """The template's shards with one made hostile: a pickle bomb or flipped bytes in a pickle, a shard
    cut short, lost or duplicated, a storage record cut or compressed, or a field of a model or
    optimizer state (shapes, counts, stage, partitions, names) given another value."""
    files, expected = _zero_template()
    files = dict(files)
    shards = sorted(n for n in files if n.endswith(".pt"))
    shard = draw(st.sampled_from(shards))
    kind = draw(st.integers(0, 11))
    reference = "values"
    if kind == 0:
        files[shard] = _with_record(files[shard], "data.pkl", draw, replacement=draw(bombs()))
        reference = "refuse"
    elif kind == 1:
        pickled = _read_record(files[shard], "data.pkl")
        at = draw(st.integers(0, len(pickled) - 1))
        pickled = pickled[:at] + draw(st.binary(min_size=1, max_size=4)) + pickled[at + 1 :]
        files[shard] = _with_record(files[shard], "data.pkl", draw, replacement=pickled)
        reference = "any"
    elif kind == 2:
        cut = draw(st.integers(0, len(files[shard])))
        reference = "values" if cut == len(files[shard]) else "refuse"
        files[shard] = files[shard][:cut]
    elif kind == 3:
        del files[shard]
        reference = "refuse"
    elif kind == 4:
        files[re.sub(r"pp_rank_[0-9]+", "pp_rank_2", shard)] = files[shard]  # a rank beyond the two saved
        reference = "refuse"
    elif kind == 5:
        record = draw(st.sampled_from(_storage_records(files[shard])))
        files[shard] = _with_record(files[shard], record, draw, compress=draw(st.booleans()))
        reference = "any"
    elif kind < 11:
        files[shard] = _damaged_state(draw, files[shard])
        reference = "any"
    if draw(st.booleans()):  # the checkpoint folder, its ``latest`` naming the tag (now and then wrongly)
        latest = sometimes(draw, _TAG, st.sampled_from(["global_step9", "../x", "", "global_step2/../.."]), 8)
        reference = reference if latest == _TAG else "refuse"
        files = {f"{_TAG}/{name}": data for name, data in files.items()} | {"latest": latest.encode()}
    return Case("zero", files, "", reference, expected if reference == "values" else {})


def _storage_records(raw: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        return sorted(n.split("/", 1)[1] for n in archive.namelist() if "/data/" in n)


def _damaged_state(draw: st.DrawFn, raw: bytes) -> bytes:
    """The shard unpickled (a trusted file: DeepSpeed's own classes), one part of it changed, saved again."""
    state = torch.load(io.BytesIO(raw), weights_only=False)
    buffer = io.BytesIO()
    torch.save(_changed(draw, state), buffer)
    return buffer.getvalue()


def _changed(draw: st.DrawFn, value: Any, depth: int = 0) -> Any:
    """``value`` with one part changed: a part of it (descended into at random), or itself."""
    container = isinstance(value, (dict, list, tuple)) and not isinstance(value, torch.Size)
    if _is_deepspeed_object(value) and vars(value) and depth < 5 and draw(st.integers(0, 4)):
        changed = copy.copy(value)  # a loss scaler: its attributes
        _changed(draw, vars(changed), depth + 1)
        return changed
    if container and value and depth < 5 and draw(st.integers(0, 4)):
        if isinstance(value, dict):
            key = draw(st.sampled_from(list(value)))
            value[key] = _changed(draw, value[key], depth + 1)
            return value
        items = list(value)
        at = draw(st.integers(0, len(items) - 1))
        items[at] = _changed(draw, items[at], depth + 1)
        return items if isinstance(value, list) else tuple(items)
    return _replaced(draw, value)


def _is_deepspeed_object(value: Any) -> bool:
    """An instance of a DeepSpeed class with attributes of its own (not an enum member: those are shared)."""
    kind = type(value)
    return kind.__module__.startswith("deepspeed") and not isinstance(value, enum.Enum) and hasattr(value, "__dict__")


def _replaced(draw: st.DrawFn, value: Any) -> Any:
    """Another value for ``value``: a size or count off by a little or a lot, a tensor of another
    length, dtype or layout, a list or dict missing, repeating or reordering items, or junk."""
    junk = st.sampled_from([*_COUNT_JUNK, *_SHAPE_JUNK, {}, torch.ones(2)]) | _HUGE_INT | _HUGE_INT.map(lambda n: (n,))
    if isinstance(value, torch.Size) and value and draw(st.booleans()):
        at = draw(st.integers(0, len(value) - 1))
        sizes = list(value)
        sizes[at] = max(0, sizes[at] + draw(st.sampled_from([-1, 1, sizes[at], 2**40])))
        return torch.Size(sizes)
    if isinstance(value, torch.Tensor) and draw(st.booleans()):
        numel = max(0, value.numel() + draw(st.sampled_from([-1, 1, -value.numel()])))
        dtype = draw(st.sampled_from([value.dtype, torch.bfloat16, torch.int64]))
        return draw(st.sampled_from([torch.zeros(numel, dtype=dtype), torch.zeros(3, numel, dtype=dtype).t()]))
    if type(value) is int and draw(st.booleans()):
        return value + draw(st.sampled_from([-1, 1, 2**40, -value - 1]) | _HUGE_INT)
    if isinstance(value, str) and draw(st.booleans()):
        return draw(st.sampled_from([value + "\ud800", "", value * 1000]))
    if isinstance(value, (list, dict)) and value and draw(st.booleans()):
        items = list(value.items() if isinstance(value, dict) else value)
        what = draw(st.integers(0, 2))
        if what == 0:
            items.pop(draw(st.integers(0, len(items) - 1)))
        elif what == 1:
            items.reverse()
        else:
            items.append(items[0])
        return dict(items) if isinstance(value, dict) else items
    return draw(junk)
