"""convert: every format in, safetensors out; streaming, atomic, and never touching the source."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

import castwise as cw
from castwise.checkpoint import CheckpointError

from .helpers import RunsCommand, sample_state

SENTENCES = [
    "The cat sits on the mat.",
    "A man is playing a guitar on stage.",
    "Quantum computers use qubits instead of bits.",
    "I would like a pizza with extra cheese, please.",
    "Stock markets fell sharply after the announcement.",
]


def _digest(path: Path) -> str:
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".castwise-" in p.name)


@pytest.fixture(scope="module")
def minilm_bf16(minilm, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("convert") / "minilm-bf16"
    before = _digest(minilm / "model.safetensors")
    result = cw.convert(minilm, out, dtype="bf16", keep_fp32=["*LayerNorm*"])
    assert _digest(minilm / "model.safetensors") == before
    assert result.tensors == 104 and result.cast == 77
    return out


def test_real_minilm_to_bf16_keeps_norms_and_int64(minilm, minilm_bf16):
    info = cw.inspect(minilm_bf16)
    assert {k: s.tensors for k, s in info.by_dtype.items()} == {"bfloat16": 77, "float32": 26, "int64": 1}
    assert all("LayerNorm" in n for n, d in info.dtypes().items() if d == "float32")
    assert info.dtypes()["embeddings.position_ids"] == "int64"
    assert json.loads((minilm_bf16 / "config.json").read_text())["dtype"] == "bfloat16"
    for name in ("tokenizer.json", "vocab.txt", "modules.json", "1_Pooling/config.json"):
        assert (minilm_bf16 / name).read_bytes() == (minilm / name).read_bytes()
    source, converted = load_file(minilm / "model.safetensors"), cw.load(minilm_bf16)
    assert converted["encoder.layer.0.attention.self.query.weight"].equal(
        source["encoder.layer.0.attention.self.query.weight"].to(torch.bfloat16)
    )
    assert converted["embeddings.LayerNorm.weight"].equal(source["embeddings.LayerNorm.weight"])
    assert converted["embeddings.position_ids"].equal(source["embeddings.position_ids"])
    assert (minilm_bf16 / "model.safetensors").stat().st_size < 0.51 * (minilm / "model.safetensors").stat().st_size


def _embeddings(model, batch) -> torch.Tensor:
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state.float()
    mask = batch["attention_mask"].unsqueeze(-1).float()
    return (hidden * mask).sum(1) / mask.sum(1)


def test_real_minilm_bf16_sentence_embeddings_match_fp32(minilm, minilm_bf16):
    transformers = pytest.importorskip("transformers")
    from castwise.integrations.transformers import from_pretrained

    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm_bf16)
    batch = tokenizer(SENTENCES, padding=True, return_tensors="pt")
    reference = _embeddings(transformers.AutoModel.from_pretrained(minilm).eval(), batch)
    kept = from_pretrained(minilm_bf16).eval()
    assert kept.embeddings.LayerNorm.weight.dtype == torch.float32
    assert kept.encoder.layer[0].attention.self.query.weight.dtype == torch.bfloat16
    assert kept.embeddings.position_ids.dtype == torch.int64
    plain = transformers.AutoModel.from_pretrained(minilm_bf16).eval()
    assert plain.embeddings.LayerNorm.weight.dtype == torch.bfloat16  # transformers' one-dtype load
    for model in (kept, cw.apply(kept, "bf16-true"), plain):
        cosine = torch.cosine_similarity(_embeddings(model, batch), reference)
        assert cosine.shape == (5,) and (cosine > 0.99).all(), cosine


@pytest.mark.parametrize("kind", ["single", "sharded", "bin"])
def test_tiny_transformers_folders_convert_to_folders(tiny_bert, tmp_path, kind):
    out = tmp_path / "fp32"
    result = cw.convert(tiny_bert[kind], out, dtype="f32")
    reference = cw.load(tiny_bert["single"])
    converted = cw.load(out)
    assert converted.keys() == reference.keys()
    assert all(converted[k].dtype == torch.float32 and converted[k].equal(v.float()) for k, v in reference.items())
    assert json.loads((out / "config.json").read_text())["dtype"] == "float32"
    names = sorted(p.name for p in out.iterdir())
    if kind == "sharded":
        index = json.loads((out / "model.safetensors.index.json").read_text())
        assert len(result.files) == 3 and index["metadata"]["total_size"] == result.bytes_written
        assert set(index["weight_map"]) == set(reference)
        assert sorted(set(index["weight_map"].values())) == [f"model-0000{i}-of-00003.safetensors" for i in (1, 2, 3)]
    else:
        assert "model.safetensors" in names and "pytorch_model.bin" not in names
    assert (kind != "single") or (out / "tokenizer_config.json").exists()
    transformers = pytest.importorskip("transformers")
    loaded = transformers.AutoModel.from_pretrained(out)
    assert loaded.embeddings.word_embeddings.weight.dtype == torch.float32
    assert loaded.embeddings.word_embeddings.weight.equal(reference["embeddings.word_embeddings.weight"].float())


def test_single_bin_file_to_safetensors_file(tmp_path):
    torch.save(sample_state(), tmp_path / "weights.pt")
    cw.convert(tmp_path / "weights.pt", tmp_path / "weights.safetensors", dtype="bf16", keep_fp32=["*norm*"])
    loaded = cw.load(tmp_path / "weights.safetensors")
    assert {k: str(v.dtype) for k, v in loaded.items()} == {
        "encoder.linear.weight": "torch.bfloat16",
        "encoder.linear.bias": "torch.bfloat16",
        "encoder.norm.weight": "torch.float32",
        "embed.position_ids": "torch.int64",
        "mask": "torch.bool",
    }
    assert loaded["mask"].equal(torch.tensor([True, False, True]))


def test_streams_large_tensors_in_chunks(tmp_path, monkeypatch):
    import castwise.checkpoint.reads as reads

    monkeypatch.setattr(reads, "CHUNK_BYTES", 1000)
    weight = torch.randn(257, 31)
    save_file({"w": weight, "z": torch.zeros(0), "s": torch.tensor(3.0)}, tmp_path / "in.safetensors")
    seen: list[int] = []
    cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "f16", progress=lambda d, t: seen.append(d))
    assert len(seen) > 30 and seen[-1] == weight.numel() * 4 + 4
    assert max(b - a for a, b in zip([0, *seen], seen)) <= 1000  # never more than one chunk at a time
    out = cw.load(tmp_path / "out.safetensors")
    assert out["w"].equal(weight.half()) and out["s"].item() == 3.0 and out["z"].shape == (0,)


def test_folder_to_a_single_file_when_asked(tiny_bert, tmp_path):
    cw.convert(tiny_bert["single"], tmp_path / "weights.safetensors", "f16")
    assert (tmp_path / "weights.safetensors").is_file()
    assert set(cw.inspect(tmp_path / "weights.safetensors").dtypes().values()) == {"float16", "float32"}
    with pytest.raises(CheckpointError, match="has 3 shards, so it converts to a folder"):
        cw.convert(tiny_bert["sharded"], tmp_path / "all.safetensors", "f16")


def test_existing_destination_needs_force(tmp_path):
    save_file(sample_state(), tmp_path / "in.safetensors")
    (tmp_path / "out.safetensors").write_bytes(b"precious")
    with pytest.raises(CheckpointError, match="already exists; pass --force"):
        cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16")
    assert (tmp_path / "out.safetensors").read_bytes() == b"precious"
    cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16", force=True)
    assert cw.inspect(tmp_path / "out.safetensors").dtypes()["encoder.linear.weight"] == "bfloat16"
    assert _leftovers(tmp_path) == []


def test_forced_folder_replaces_the_old_folder(tiny_bert, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.txt").write_text("old")
    cw.convert(tiny_bert["single"], out, "f16", force=True)
    assert not (out / "stale.txt").exists() and (out / "model.safetensors").exists()
    assert _leftovers(tmp_path) == []


def test_source_equal_to_or_containing_destination_is_refused(tiny_bert, tmp_path):
    save_file(sample_state(), tmp_path / "in.safetensors")
    before = _digest(tmp_path / "in.safetensors")
    with pytest.raises(CheckpointError, match="is the source or inside it"):
        cw.convert(tmp_path / "in.safetensors", tmp_path / "in.safetensors", "bf16", force=True)
    with pytest.raises(CheckpointError, match="is the source or inside it"):
        cw.convert(tiny_bert["single"], tiny_bert["single"] / "sub", "bf16")
    assert _digest(tmp_path / "in.safetensors") == before


def test_destination_kind_and_name_are_checked(tiny_bert, tmp_path):
    save_file(sample_state(), tmp_path / "in.safetensors")
    with pytest.raises(CheckpointError, match="name it \\*.safetensors"):
        cw.convert(tmp_path / "in.safetensors", tmp_path / "out.bin", "bf16")
    (tmp_path / "file").write_text("x")
    with pytest.raises(CheckpointError, match="is a file; a folder in gives a folder out"):
        cw.convert(tiny_bert["single"], tmp_path / "file", "bf16", force=True)
    with pytest.raises(ValueError, match="unknown dtype"):
        cw.convert(tmp_path / "in.safetensors", tmp_path / "o.safetensors", "int8")


def test_unwritable_destination(tmp_path):
    save_file(sample_state(), tmp_path / "in.safetensors")
    (tmp_path / "blocker").write_text("a file where a folder should be")
    with pytest.raises(CheckpointError, match="cannot write .*nothing was written there"):
        cw.convert(tmp_path / "in.safetensors", tmp_path / "blocker" / "out.safetensors", "bf16")
    with pytest.raises(CheckpointError, match="cannot write"):
        cw.convert(tmp_path / "in.safetensors", Path("/proc/castwise-test.safetensors"), "bf16")
    if os.geteuid() != 0:  # root ignores permission bits
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(CheckpointError, match="Permission denied"):
            cw.convert(tmp_path / "in.safetensors", locked / "out.safetensors", "bf16")


def _run(code: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
    )


def _kill_a_convert_mid_write(tmp_path: Path) -> subprocess.Popen:
    """SIGKILL a ``cw.convert`` of ``in.safetensors`` to ``out.safetensors`` once it has started writing."""
    code = (
        "import time, castwise as cw\n"
        "def hang(done, total):\n"
        "    print('started', flush=True)\n"
        "    time.sleep(60)\n"
        f"cw.convert({str(tmp_path / 'in.safetensors')!r}, {str(tmp_path / 'out.safetensors')!r}, 'bf16', progress=hang)\n"
    )
    process = _run(code)
    assert process.stdout.readline().strip() == "started"
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    return process


def test_full_disk_leaves_nothing_behind(tmp_path):
    save_file({"w": torch.randn(256, 256)}, tmp_path / "in.safetensors")  # 256 KiB -> 128 KiB in bf16
    before = _digest(tmp_path / "in.safetensors")
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))\n"
        "from castwise.cli import main\n"
        f"sys.argv = ['castwise', 'convert', {str(tmp_path / 'in.safetensors')!r}, "
        f"{str(tmp_path / 'out.safetensors')!r}, '--dtype', 'bf16']\n"
        "main()\n"
    )
    process = _run(code)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "cannot write" in err and "File too large" in err
    assert not (tmp_path / "out.safetensors").exists() and _leftovers(tmp_path) == []
    assert _digest(tmp_path / "in.safetensors") == before


def test_killed_mid_convert_leaves_source_intact_and_no_final_file(tmp_path):
    save_file({f"w{i}": torch.randn(64, 64) for i in range(4)}, tmp_path / "in.safetensors")
    before = _digest(tmp_path / "in.safetensors")
    process = _kill_a_convert_mid_write(tmp_path)
    assert process.returncode == -signal.SIGKILL
    assert not (tmp_path / "out.safetensors").exists()
    leftovers = _leftovers(tmp_path)
    assert len(leftovers) == 1 and leftovers[0].startswith(".out.safetensors.castwise-")
    assert _digest(tmp_path / "in.safetensors") == before
    cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16")  # a retry just works
    assert cw.inspect(tmp_path / "out.safetensors").dtypes() == {f"w{i}": "bfloat16" for i in range(4)}


@pytest.mark.parametrize("writer", ["torch.save", "pickle.dump"])
def test_malicious_pickle_is_refused_without_running(tmp_path, writer):
    marker = tmp_path / "pwned"
    path = tmp_path / "pytorch_model.bin"
    payload = {"weight": torch.ones(2), "evil": RunsCommand(marker)}
    if writer == "torch.save":
        torch.save(payload, path)
    else:
        path.write_bytes(pickle.dumps(payload))
    for action in (cw.inspect, cw.load, lambda p: cw.convert(p, tmp_path / "out.safetensors", "bf16")):
        with pytest.raises(
            CheckpointError,
            match="refused: its pickle holds more than tensors.*(GLOBAL posix.system|Unsupported operand)",
        ):
            action(path)
    assert not marker.exists() and not (tmp_path / "out.safetensors").exists()


def test_corrupt_torch_file_is_a_clear_error(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"PK\x03\x04 this is not a zip archive")
    with pytest.raises(CheckpointError, match="not a readable torch checkpoint"):
        cw.inspect(tmp_path / "model.bin")
    torch.save([1, 2, 3], tmp_path / "list.pt")
    with pytest.raises(CheckpointError, match="holds no state dict of tensors"):
        cw.inspect(tmp_path / "list.pt")


def test_lightning_style_nested_state_dict_is_found(tmp_path):
    torch.save({"epoch": 3, "state_dict": sample_state()}, tmp_path / "last.ckpt")
    assert cw.inspect(tmp_path / "last.ckpt").dtypes()["embed.position_ids"] == "int64"


def test_rerun_removes_the_temporary_a_killed_convert_left(tmp_path):
    save_file({f"w{i}": torch.randn(64, 64) for i in range(4)}, tmp_path / "in.safetensors")
    process = _kill_a_convert_mid_write(tmp_path)
    [litter] = _leftovers(tmp_path)
    assert litter.startswith(f".out.safetensors.castwise-{process.pid}-")
    from typer.testing import CliRunner

    from castwise.cli import app

    result = CliRunner().invoke(
        app,
        ["convert", str(tmp_path / "in.safetensors"), str(tmp_path / "out.safetensors"), "-d", "bf16"],
        env={"COLUMNS": "300"},
    )
    assert result.exit_code == 0, result.output
    assert f"removed {tmp_path / litter}, a temporary left by a killed conversion" in result.stdout
    assert _leftovers(tmp_path) == [] and cw.load(tmp_path / "out.safetensors")["w0"].dtype == torch.bfloat16


def test_stale_sweep_removes_only_dead_unlocked_temporaries_of_the_same_destination(tmp_path):
    import fcntl

    save_file(sample_state(), tmp_path / "in.safetensors")
    finished = _run("pass")
    finished.wait(timeout=30)
    dead, alive = finished.pid, os.getppid()
    names = {
        "dead": f".out.safetensors.castwise-{dead}-0123abcd.tmp",
        "dead_folder": f".out.safetensors.castwise-{dead}-4567abcd.tmp",
        "alive": f".out.safetensors.castwise-{alive}-89abcdef.tmp",
        "locked": f".out.safetensors.castwise-{dead}-deadbeef.tmp",
        "other_destination": f".other.safetensors.castwise-{dead}-0123abcd.tmp",
        "not_ours": f".out.safetensors.mine-{dead}-0123abcd.tmp",
        "old_folder": ".out.safetensors.castwise-old-0123abcd",
    }
    for key, name in names.items():
        (tmp_path / name).mkdir() if "folder" in key else (tmp_path / name).write_bytes(b"x" * 100)
    (tmp_path / names["dead_folder"] / "model.safetensors").write_bytes(b"partial")
    with open(tmp_path / names["locked"], "rb") as held:  # a writer on another host: its lock is held
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        result = cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16")
    assert sorted(result.stale_removed) == sorted(str(tmp_path / names[k]) for k in ("dead", "dead_folder"))
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {"in.safetensors", "out.safetensors", *(names[k] for k in names if not k.startswith("dead"))}
    assert all((tmp_path / names[k]).read_bytes() == b"x" * 100 for k in ("alive", "locked", "other_destination"))


def _trainer_output(root: Path) -> Path:
    """A real transformers Trainer run: two saved checkpoints, then the final model saved on top."""
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=64,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
        num_labels=2,
    )
    model = transformers.BertForSequenceClassification(config)
    data = [{"input_ids": torch.randint(0, 64, (8,)), "labels": torch.tensor(i % 2)} for i in range(8)]
    args = transformers.TrainingArguments(
        output_dir=str(root),
        max_steps=2,
        save_steps=1,
        per_device_train_batch_size=4,
        report_to=[],
        use_cpu=True,
        logging_strategy="no",
        disable_tqdm=True,
    )
    trainer = transformers.Trainer(model=model, args=args, train_dataset=data)
    trainer.train()
    trainer.save_model(str(root))
    return root


def test_trainer_output_folder_converts_the_model_not_its_checkpoints(tmp_path):
    source = _trainer_output(tmp_path / "run")
    assert {p.name for p in source.iterdir() if p.is_dir()} == {"checkpoint-1", "checkpoint-2"}
    before = _digest(source)
    result = cw.convert(source, tmp_path / "bf16", "bf16")
    assert result.skipped == ("checkpoint-1", "checkpoint-2")
    assert _digest(source) == before
    out = tmp_path / "bf16"
    copied = {p.name for p in source.iterdir() if p.is_file() and p.name not in ("model.safetensors", "config.json")}
    assert {p.name for p in out.iterdir()} == {"model.safetensors", "config.json", *copied}
    assert all((out / name).read_bytes() == (source / name).read_bytes() for name in copied)
    written = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert written == sum((out / n).stat().st_size for n in ("model.safetensors", "config.json")) + sum(
        (source / n).stat().st_size for n in copied
    )
    assert 3 * written < sum(p.stat().st_size for p in source.rglob("*") if p.is_file())  # checkpoints left out
    assert cw.inspect(out).dtypes()["classifier.weight"] == "bfloat16"
    with pytest.raises(
        CheckpointError, match="only the Trainer checkpoint folders checkpoint-1, checkpoint-2; pass one"
    ):
        (source / "model.safetensors").unlink()
        cw.inspect(source)
    assert cw.convert(source / "checkpoint-2", tmp_path / "ckpt2", "bf16").skipped == ()


def test_sparse_tensor_in_a_torch_file_is_refused(tmp_path):
    sparse = torch.sparse_coo_tensor(torch.tensor([[0, 2]]), torch.tensor([1.0, 2.0]), (3,))
    torch.save({"w": torch.ones(2), "s": sparse}, tmp_path / "sparse.pt")
    for action in (cw.inspect, cw.load, lambda p: cw.convert(p, tmp_path / "out.safetensors", "bf16")):
        with pytest.raises(CheckpointError, match="tensor 's' is sparse_coo, not dense"):
            action(tmp_path / "sparse.pt")
    assert not (tmp_path / "out.safetensors").exists()
