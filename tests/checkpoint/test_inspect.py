"""inspect: real dtypes from headers alone, declared dtype, and what transformers would do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

import castwise as cw
from castwise.checkpoint import CheckpointError

from .helpers import write_safetensors


def _bytes_read() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def test_real_minilm_checkpoint(minilm):
    info = cw.inspect(minilm)
    assert info.format == "safetensors" and len(info.tensors) == 104
    assert {k: (s.tensors, s.parameters) for k, s in info.by_dtype.items()} == {
        "float32": (103, 22_713_216),
        "int64": (1, 512),
    }
    assert info.total_bytes == 90_856_960 and info.by_dtype["float32"].share > 0.999
    assert info.dtypes()["embeddings.position_ids"] == "int64"
    word = next(t for t in info.tensors if t.name == "embeddings.word_embeddings.weight")
    assert word.shape == (30522, 384) and word.nbytes == 30522 * 384 * 4
    assert info.declared_dtype is None and info.transformers_dtype == "float32"
    assert any("declares no dtype" in f and "matches what is stored" in f for f in info.findings)


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/self/io")
def test_safetensors_inspect_reads_headers_only(tmp_path):
    path = tmp_path / "big.safetensors"
    save_file({f"layer{i}.weight": torch.randn(512, 512) for i in range(16)}, path)  # 16 MiB of data
    before = _bytes_read()
    info = cw.inspect(path)
    read = _bytes_read() - before
    assert info.total_bytes == 16 * 512 * 512 * 4
    assert read < 64 * 1024, f"inspect read {read} bytes of a {path.stat().st_size}-byte file"


def test_garbage_data_region_still_inspects_but_is_never_trusted(tmp_path):
    header = {"w": {"dtype": "BF16", "shape": [1024, 1024], "data_offsets": [0, 2 * 1024 * 1024]}}
    path = write_safetensors(tmp_path / "sparse.safetensors", header)
    with open(path, "r+b") as file:  # a sparse data region: never written, all holes
        file.truncate(path.stat().st_size + 2 * 1024 * 1024)
    info = cw.inspect(path)
    assert info.dtypes() == {"w": "bfloat16"} and info.total_parameters == 1024 * 1024


def test_transformers_bf16_single_and_sharded(tiny_bert):
    single, sharded = cw.inspect(tiny_bert["single"]), cw.inspect(tiny_bert["sharded"])
    assert len(sharded.files) == 3 and len(single.files) == 1
    assert sorted(single.dtypes().items()) == sorted(sharded.dtypes().items())
    assert set(single.dtypes().values()) == {"bfloat16"}
    for info in (single, sharded):
        assert info.declared_dtype == "bfloat16" and info.transformers_dtype == "bfloat16"
        assert any("every floating tensor is bfloat16" in f for f in info.findings)


def test_torch_bin_is_inspected_on_the_meta_device(tiny_bert):
    info = cw.inspect(tiny_bert["bin"])
    assert info.format == "torch" and info.files[0].endswith("pytorch_model.bin")
    assert info.dtypes() == cw.inspect(tiny_bert["single"]).dtypes()
    word = next(t for t in info.tensors if t.name == "embeddings.word_embeddings.weight")
    assert word.shape == (100, 32) and word.nbytes == 100 * 32 * 2
    assert any("pickle-based" in f for f in info.findings)


def test_declared_dtype_disagreeing_with_tensors_is_reported(tmp_path):
    torch.manual_seed(0)
    tensors = {f"layer{i}.weight": torch.randn(4, 4, dtype=torch.bfloat16) for i in range(3)}
    tensors |= {f"layer{i}.norm.weight": torch.ones(4) for i in range(5)}
    save_file(tensors, tmp_path / "model.safetensors")
    (tmp_path / "config.json").write_text(json.dumps({"torch_dtype": "bfloat16"}))
    info = cw.inspect(tmp_path)
    assert info.declared_dtype == "bfloat16"
    assert any(
        f.startswith("declared bfloat16 (config.json) but 5 are float32, of 8 floating tensors") for f in info.findings
    )
    assert any("5 stored as float32 would change dtype" in f for f in info.findings)


@pytest.mark.parametrize("layout", ["fp32_first", "bf16_first", "declared"])
def test_transformers_dtype_prediction_matches_transformers(tmp_path, layout):
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
    )
    model = transformers.BertModel(config)
    model.save_pretrained(tmp_path / "fp32")
    keep = ["embeddings.LayerNorm"] if layout == "fp32_first" else ["none"]
    cw.convert(tmp_path / "fp32", tmp_path / "out", "bf16", keep_fp32=keep)
    config_path = tmp_path / "out" / "config.json"
    document = json.loads(config_path.read_text())
    if layout != "declared":
        document.pop("dtype", None), document.pop("torch_dtype", None)
    config_path.write_text(json.dumps(document))
    predicted = cw.inspect(tmp_path / "out").transformers_dtype
    loaded = transformers.AutoModel.from_pretrained(tmp_path / "out")
    assert predicted == str(loaded.embeddings.word_embeddings.weight.dtype).removeprefix("torch.")
    assert predicted == {"fp32_first": "float32", "bf16_first": "bfloat16", "declared": "bfloat16"}[layout]


def test_index_naming_a_missing_shard_is_refused(tiny_bert, tmp_path):
    broken = shutil.copytree(tiny_bert["sharded"], tmp_path / "broken")
    (broken / "model-00002-of-00003.safetensors").unlink()
    with pytest.raises(CheckpointError, match="names shard 'model-00002-of-00003.safetensors'.*does not exist"):
        cw.inspect(broken)
    with pytest.raises(CheckpointError, match="does not exist"):
        cw.convert(broken, tmp_path / "out", "bf16")
    assert not (tmp_path / "out").exists()


def test_index_with_a_path_outside_its_folder_is_refused(tiny_bert, tmp_path):
    folder = shutil.copytree(tiny_bert["sharded"], tmp_path / "evil")
    index = folder / "model.safetensors.index.json"
    document = json.loads(index.read_text())
    document["weight_map"]["pooler.dense.weight"] = "../../etc/passwd"
    index.write_text(json.dumps(document))
    with pytest.raises(CheckpointError, match="not a plain file name"):
        cw.inspect(folder)


def test_bad_paths(tmp_path):
    with pytest.raises(CheckpointError, match="no such file or folder"):
        cw.inspect(tmp_path / "missing.safetensors")
    (tmp_path / "weights.npz").write_bytes(b"x")
    with pytest.raises(CheckpointError, match="unsupported file type '.npz'"):
        cw.inspect(tmp_path / "weights.npz")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="cannot tell which weights"):
        cw.inspect(tmp_path / "empty")
