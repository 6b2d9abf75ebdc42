"""DeepSpeed ZeRO checkpoints: real ``engine.save_checkpoint`` output (stages 1, 2 and 3; bf16 and
fp16; two ranks on CPU) inspected and converted without DeepSpeed, and compared with the
``zero_to_fp32.py`` DeepSpeed writes beside each checkpoint; hostile, truncated and incomplete
shards refused with nothing written."""

from __future__ import annotations

import hashlib
import importlib.metadata
import io
import json
import pickle
import shutil
import zipfile
from collections import OrderedDict
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

import castwise as cw
from castwise.checkpoint import CheckpointError
from castwise.checkpoint.zero import ZeroReader
from castwise.checkpoint.zero.partitions import rebuild
from castwise.checkpoint.zero.states import ModelStates, OptimStates, read_model_states, read_optim_states
from castwise.checkpoint.zero.torch_zip import Storage
from castwise.checkpoint.zero.unpickler import StoredTensor
from castwise.cli import app

from .helpers import DEEP_TUPLE_KEY, LAUGHING_KEY, RunsCommand, deep_list_size, torch_zip_with_pickle
from .zero_models import Net

CASES = ("stage1-bf16", "stage2-bf16", "stage3-bf16", "stage2-fp16", "stage3-fp16", "llama-stage3-bf16")
RANK1_OPTIM = "bf16_zero_pp_rank_1_mp_rank_00_optim_states.pt"


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _reference(zero: Path, case: str) -> dict[str, torch.Tensor]:
    return torch.load(zero / f"{case}-reference" / "pytorch_model.bin", weights_only=True)


def _copy(zero: Path, case: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(zero / case, tmp_path / case))


@pytest.mark.parametrize("case", CASES)
def test_fp32_is_bitwise_what_zero_to_fp32_writes(zero, case, tmp_path):
    before = _digest(zero / case)
    cw.convert(zero / case, tmp_path / "f32", "fp32")
    ours, reference = cw.load(tmp_path / "f32"), _reference(zero, case)
    tied = {"head.weight", "lm_head.weight"} & reference.keys()
    frozen = torch.load(zero / f"{case}-frozen.pt", weights_only=True)
    extra = ours.keys() - reference.keys()
    assert extra == (frozen.keys() if case.startswith("stage1") else set())  # stage 1: zero_to_fp32 drops them
    assert ours.keys() | tied == reference.keys() | extra
    for name, tensor in ours.items():
        expected = reference[name] if name in reference else frozen[name].float()
        assert tensor.dtype == expected.dtype and torch.equal(tensor, expected), name
    assert _digest(zero / case) == before


@pytest.mark.parametrize("case", ["stage1-bf16", "stage2-bf16", "stage3-bf16", "stage3-fp16"])
def test_bf16_rounds_each_master_weight_once_and_keeps_norms_fp32(zero, case, tmp_path):
    result = cw.convert(zero / case / "global_step2", tmp_path / "bf16", "bf16")
    ours, reference = cw.load(tmp_path / "bf16"), _reference(zero, case)
    frozen = torch.load(zero / f"{case}-frozen.pt", weights_only=True)
    assert sorted(p.name for p in (tmp_path / "bf16").iterdir()) == ["model.safetensors"]
    assert result.tensors == len(ours) and "norm name spellings" in result.keep_rule
    for name, tensor in ours.items():
        if name.startswith("norm."):
            expected = reference[name]  # kept: the fp32 master itself
        elif name in frozen:
            expected = frozen[name].bfloat16()  # no master: the stored 16-bit values, exact for bf16
        elif reference[name].is_floating_point():
            expected = reference[name].bfloat16()  # one rounding of the master
        else:
            expected = reference[name]
        assert tensor.dtype == expected.dtype and torch.equal(tensor, expected), name
    assert ours["table"].is_contiguous() and not ours["ids"].is_floating_point()


def test_the_cases_cover_padding_straddling_and_sub_groups(zero):
    stage2 = zero / "stage2-bf16" / "global_step2"
    paddings = read_optim_states(stage2 / "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt").alignment_paddings
    assert paddings is not None and any(any(group) for group in paddings)  # parameter_alignment pads
    stage3 = zero / "stage3-bf16" / "global_step2"
    optim = read_optim_states(stage3 / "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt")
    assert len(optim.partitions) > 1  # sub_group_size splits each rank's flat partition
    model = read_model_states(stage3 / "zero_pp_rank_0_mp_rank_00_model_states.pt")
    assert len(model.param_shapes) > 1 and model.shared == {"head.weight": "embed.weight"}
    assert model.module["table"].is_contiguous is False  # a transposed buffer, read through its strides
    odd = [n for group in model.param_shapes for n, s in group.items() if torch.Size(s).numel() % 2]
    assert odd  # ZeRO-3 pads these on the last rank


def test_inspect_names_stage_ranks_step_dtypes_and_optimizer_state(zero):
    case = zero / "stage3-bf16"
    info = cw.inspect(case)
    assert info.format == "zero" and cw.inspect(case / "global_step2").zero == info.zero
    summary = info.zero
    assert summary is not None
    expected_state = 0
    for rank in (0, 1):
        shard = torch.load(
            case / "global_step2" / f"bf16_zero_pp_rank_{rank}_mp_rank_00_optim_states.pt", weights_only=False
        )
        state = shard["optimizer_state_dict"]["optimizer_state_dict"]["state"]
        expected_state += sum(t.numel() * t.element_size() for s in state.values() for t in s.values())
    reference = _reference(zero, "stage3-bf16")
    trainable = sum(t.numel() for n, t in reference.items() if n.split(".")[0] in ("embed", "body", "norm", "proj"))
    assert {k: summary[k] for k in ("stage", "world_size", "step", "master_dtype", "module_dtype", "tag")} == {
        "stage": 3,
        "world_size": 2,
        "step": 2,
        "master_dtype": "float32",
        "module_dtype": "bfloat16",
        "tag": "global_step2",
    }
    assert summary["optimizer_state_bytes"] == expected_state and summary["parameters"] == trainable
    assert summary["optimizer_state"] == ["step", "exp_avg", "exp_avg_sq"]
    assert summary["tied"] == {"head.weight": "embed.weight"} and summary["buffers"] == 3
    assert {t.name: t.shape for t in info.tensors} == {
        n: tuple(t.shape) for n, t in reference.items() if n != "head.weight"
    }
    assert info.dtypes()["embed.weight"] == "float32" and info.dtypes()["frozen.weight"] == "bfloat16"
    version = summary["deepspeed_version"]
    assert version == importlib.metadata.version("deepspeed")
    assert info.findings[0].startswith(
        f"DeepSpeed ZeRO-3 checkpoint global_step2 (DeepSpeed {version}, 2 ranks, step 2)"
    )
    assert info.transformers_dtype is None
    fp16 = cw.inspect(zero / "stage2-fp16").zero
    assert fp16 is not None and fp16["module_dtype"] == "float16" and fp16["dynamic_loss_scale"] is True


def test_load_gives_the_fp32_master_and_load_into_fills_a_model(zero):
    reference = _reference(zero, "stage2-bf16")
    loaded = cw.load(zero / "stage2-bf16")
    assert loaded.keys() == reference.keys() - {"head.weight"}
    assert all(torch.equal(loaded[n].float() if n.startswith("frozen") else loaded[n], reference[n]) for n in loaded)
    model = Net()
    result = cw.load_into(model, zero / "stage2-bf16")
    assert torch.equal(model.head.weight, reference["embed.weight"]) and model.frozen.weight.dtype == torch.bfloat16
    assert result.missing == () and result.unexpected == ()


def test_stage1_frozen_parameters_come_from_the_module_weights(zero):
    info = cw.inspect(zero / "stage1-bf16")
    assert info.zero is not None and info.zero["from_module"] == ["frozen.weight", "frozen.bias"]
    assert any("zero_to_fp32.py leaves them out" in f for f in info.findings)


def test_cli_inspect_and_convert_with_a_config_for_module_classes(zero, tmp_path):
    case = zero / "llama-stage3-bf16"
    done = CliRunner().invoke(app, ["inspect", str(case)])
    assert done.exit_code == 0 and "DeepSpeed ZeRO-3 checkpoint global_step2" in done.output
    config = zero / "llama-stage3-bf16-config.json"
    out = tmp_path / "hf"
    done = CliRunner().invoke(
        app, ["convert", str(case), str(out), "--dtype", "bf16", "--config", str(config), "--json"]
    )
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    assert result["keep_rule"].startswith("module classes from the transformers skeleton of LlamaForCausalLM")
    assert json.loads((out / "config.json").read_text())["dtype"] == "bfloat16"
    reference, ours = _reference(zero, "llama-stage3-bf16"), cw.load(out)
    assert "lm_head.weight" not in ours and reference.keys() - ours.keys() == {"lm_head.weight"}
    kept = {n for n, t in ours.items() if t.dtype == torch.float32}
    assert kept == {n for n in reference if n.endswith("layernorm.weight") or n == "model.norm.weight"}
    for name, tensor in ours.items():
        assert torch.equal(tensor, reference[name].to(tensor.dtype)), name


def test_one_file_output_shards_and_chunked_reads(zero, tmp_path):
    case = zero / "stage2-bf16"
    cw.convert(case, tmp_path / "one.safetensors", "f16", keep_fp32="none")
    one = cw.load(tmp_path / "one.safetensors")
    assert {t.dtype for t in one.values() if t.is_floating_point()} == {torch.float16}
    cw.convert(case, tmp_path / "sharded", "bf16", max_shard_size="200B")
    index = json.loads((tmp_path / "sharded" / "model.safetensors.index.json").read_text())
    assert len(set(index["weight_map"].values())) > 1
    reader = ZeroReader(case / "global_step2")
    try:
        for info in reader.infos():
            pieces = [p.clone() for p in reader.chunks(info.name, chunk_bytes=8)]  # each valid until the next
            assert all(p.numel() * p.element_size() <= 8 for p in pieces)
            assert torch.equal(torch.cat(pieces).reshape(info.shape), reader.read(info.name))
    finally:
        reader.close()


def test_a_shard_that_would_run_code_is_refused_and_nothing_is_written(zero, tmp_path):
    case = _copy(zero, "stage3-bf16", tmp_path)
    marker = tmp_path / "ran"
    torch.save({"optimizer_state_dict": RunsCommand(marker)}, case / "global_step2" / RANK1_OPTIM)
    before = _digest(case)
    for attempt in (lambda: cw.inspect(case), lambda: cw.convert(case, tmp_path / "out", "bf16")):
        with pytest.raises(CheckpointError, match=r"refused: global 'posix.system' is not part of a DeepSpeed ZeRO"):
            attempt()
    assert not marker.exists() and not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if ".castwise-" in p.name]
    assert _digest(case) == before
    done = CliRunner().invoke(app, ["convert", str(case), str(tmp_path / "out"), "--dtype", "bf16"])
    assert done.exit_code != 0 and "refused" in done.output and "Traceback" not in done.output


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda f: (f / RANK1_OPTIM).unlink(), r"no optimizer shard for rank 1: the checkpoint holds 1 of 2 ranks"),
        (lambda f: (f / "zero_pp_rank_0_mp_rank_00_model_states.pt").unlink(), r"no model-state shard for rank 0"),
        (lambda f: (f / RANK1_OPTIM).write_bytes((f / RANK1_OPTIM).read_bytes()[:3000]), r"not a readable torch zip"),
        (lambda f: (f / RANK1_OPTIM).write_bytes(b"\x80\x02}q\x00."), r"not a readable torch zip"),
        (
            lambda f: shutil.copy(f / RANK1_OPTIM, f / "bf16_zero_pp_rank_2_mp_rank_00_optim_states.pt"),
            r"shards for ranks \[2\] beyond the 2 ranks",
        ),
        (
            lambda f: shutil.copy(f / RANK1_OPTIM, f / "zero_pp_rank_1_mp_rank_00_optim_states.pt"),
            r"two optimizer shards for rank 1",
        ),
    ],
    ids=["missing-rank", "missing-model-states", "truncated", "legacy-pickle", "extra-rank", "two-runs"],
)
def test_incomplete_or_damaged_shards_are_clear_errors_and_write_nothing(zero, tmp_path, damage, message):
    case = _copy(zero, "stage3-bf16", tmp_path)
    damage(case / "global_step2")
    before = _digest(case)
    with pytest.raises(CheckpointError, match=message):
        cw.convert(case, tmp_path / "out", "bf16")
    assert not (tmp_path / "out").exists() and _digest(case) == before


RANK0_MODEL = "zero_pp_rank_0_mp_rank_00_model_states.pt"
RANK0_OPTIM = "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt"
TOO_LONG_TO_PRINT = 10**5000
"""Python refuses to write an integer of over 4,300 digits as text, and to make it a float."""


def _set_loss_scale(state: dict) -> None:
    state["optimizer_state_dict"]["loss_scaler"].cur_scale = 10**400


FIELDS = {  # shard, change, what inspect, load and convert must do: the error, or None (read as usual)
    "loss-scale-too-large-for-a-float": (RANK0_OPTIM, _set_loss_scale, None),  # OverflowError
    "step-too-long-to-print": (RANK0_MODEL, lambda s: s.update(global_steps=TOO_LONG_TO_PRINT), None),  # ValueError
    "version-with-a-lone-surrogate": (RANK0_MODEL, lambda s: s.update(ds_version="0.\ud800"), None),  # convert: UnicodeEncodeError
    "shape-too-long-to-print": (
        RANK0_MODEL,
        lambda s: s["param_shapes"][0].update({next(iter(s["param_shapes"][0])): (TOO_LONG_TO_PRINT,)}),
        r"'param_shapes\[0\]' is not a mapping of names to shapes",
    ),  # ValueError
    "stage-too-long-to-print": (
        RANK0_OPTIM,
        lambda s: s["optimizer_state_dict"].update(zero_stage=TOO_LONG_TO_PRINT),
        r"zero stage \(int holding an integer of over 4,300 digits\) is not 1, 2 or 3",
    ),  # ValueError
}
"""Fields the fuzzer (or a probe after it) found raising raw exceptions; each fixed."""


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_a_field_of_an_extreme_value_is_read_or_refused_cleanly(zero, tmp_path, name):
    shard, change, error = FIELDS[name]
    case = _copy(zero, "stage3-bf16", tmp_path)
    path = case / "global_step2" / shard
    state = torch.load(path, weights_only=False)  # the test's own file: DeepSpeed's classes may load
    change(state)
    torch.save(state, path)
    before = _digest(case)
    if error is not None:
        for attempt in (lambda: cw.inspect(case), lambda: cw.convert(case, tmp_path / "out", "bf16")):
            with pytest.raises(CheckpointError, match=error):
                attempt()
        assert not (tmp_path / "out").exists()
    else:
        info = cw.inspect(case)
        assert info.zero is not None and info.findings and json.dumps(info.zero)
        cw.convert(case, tmp_path / "out", "fp32")
        reference = _reference(zero, "stage3-bf16")
        assert all(torch.equal(t, reference[n]) for n, t in cw.load(tmp_path / "out").items())
        metadata = {k: v for k, v in info.zero.items() if k in ("step", "loss_scale", "deepspeed_version")}
        assert metadata == {
            "step": None if name.startswith("step") else 2,
            "loss_scale": None if name.startswith("loss") else 1.0,
            "deepspeed_version": "0.?" if name.startswith("version") else importlib.metadata.version("deepspeed"),
        }
    assert _digest(case) == before


def test_a_byteorder_member_is_bounded_before_it_is_read(tmp_path):
    good = _craft(tmp_path / "good.pt", _model_states(_Tensor(_Stored("0", 4), (4,))), {"0": bytes(16)})
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(good) as original, zipfile.ZipFile(path, "w") as archive:
        for info in original.infolist():
            if info.filename.endswith("/byteorder"):  # 10 MB of zeros deflated to a few KB
                archive.writestr(info.filename, b"little" + bytes(10_000_000), zipfile.ZIP_DEFLATED)
            else:
                archive.writestr(info, original.read(info))
    with pytest.raises(CheckpointError, match=r"its byteorder member is 10,000,006 bytes"):
        read_model_states(path)


def test_shards_of_another_run_do_not_match(zero, tmp_path):
    case = _copy(zero, "stage3-bf16", tmp_path)
    shutil.copy(zero / "llama-stage3-bf16" / "global_step2" / RANK1_OPTIM, case / "global_step2" / RANK1_OPTIM)
    with pytest.raises(CheckpointError, match="from different runs|do not match"):
        cw.convert(case, tmp_path / "out", "bf16")


def test_tags_latest_and_single_shard_paths(zero, tmp_path):
    case = _copy(zero, "stage2-bf16", tmp_path)
    with pytest.raises(CheckpointError, match=r"one rank's shard of the DeepSpeed ZeRO checkpoint .*pass the folder"):
        cw.inspect(case / "global_step2" / "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt")
    (case / "latest").write_text("global_step9")
    with pytest.raises(CheckpointError, match=r"names tag 'global_step9' but .* holds no ZeRO shards"):
        cw.inspect(case)
    (case / "latest").write_text("../elsewhere")
    with pytest.raises(CheckpointError, match="not a folder name beside it"):
        cw.inspect(case)
    (case / "latest").unlink()
    with pytest.raises(CheckpointError, match=r"ZeRO tag folders global_step2 but no 'latest' file"):
        cw.inspect(case)
    with pytest.raises(CheckpointError, match="destination .* is the source or inside it"):
        cw.convert(case / "global_step2", case / "global_step2" / "out", "bf16")


def _craft(path: Path, payload: object, storages: dict[str, bytes]) -> Path:
    """A torch-style zip shard from ``payload`` (``_Stored`` marks a storage reference)."""
    data = io.BytesIO()

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", obj.kind, obj.key, "cpu", obj.numel) if isinstance(obj, _Stored) else None

    Pickler(data, protocol=2).dump(payload)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("shard/data.pkl", data.getvalue())
        archive.writestr("shard/byteorder", "little")
        for key, raw in storages.items():
            archive.writestr(f"shard/data/{key}", raw)
    return path


class _Stored:
    def __init__(self, key: str, numel: int, kind: type = torch.FloatStorage) -> None:
        self.key, self.numel, self.kind = key, numel, kind


class _Tensor:
    def __init__(self, storage: _Stored, size: tuple[int, ...], offset: int = 0) -> None:
        self.storage, self.size, self.offset = storage, size, offset

    def __reduce__(self):
        stride = tuple(int(torch.Size(self.size[i + 1 :]).numel()) for i in range(len(self.size)))
        return torch._utils._rebuild_tensor_v2, (self.storage, self.offset, self.size, stride, False, OrderedDict())


def _model_states(tensor: object) -> dict:
    return {"module": {"w": tensor}, "buffer_names": [], "param_shapes": [{"w": torch.Size([4])}]}


def test_a_crafted_tensor_past_its_storage_or_a_lying_storage_is_refused(tmp_path):
    good = _craft(tmp_path / "good.pt", _model_states(_Tensor(_Stored("0", 4), (4,))), {"0": bytes(16)})
    assert read_model_states(good).module["w"].shape == (4,)
    past = _craft(tmp_path / "past.pt", _model_states(_Tensor(_Stored("0", 4), (3,), offset=2)), {"0": bytes(16)})
    with pytest.raises(CheckpointError, match=r"reaches past its storage of 4 elements"):
        read_model_states(past)
    lying = _craft(tmp_path / "lying.pt", _model_states(_Tensor(_Stored("0", 400), (4,))), {"0": bytes(16)})
    with pytest.raises(CheckpointError, match=r"holds 16 bytes, not the 400 x torch.float32"):
        read_model_states(lying)
    absent = _craft(tmp_path / "absent.pt", _model_states(_Tensor(_Stored("7", 4), (4,))), {})
    with pytest.raises(CheckpointError, match=r"names storage '7', which the archive lacks"):
        read_model_states(absent)
    evil = _craft(tmp_path / "evil.pt", {"module": eval}, {})
    with pytest.raises(CheckpointError, match=r"refused: global '(__builtin__|builtins).eval'"):
        read_model_states(evil)
    huge = _craft(tmp_path / "huge.pt", _model_states(_Tensor(_Stored("0", 4), (4,) * 65)), {"0": bytes(16)})
    with pytest.raises(CheckpointError, match=r"at most 64 sizes"):
        read_model_states(huge)
    with pytest.raises(CheckpointError, match="not a ZeRO checkpoint"):
        read_model_states(_craft(tmp_path / "plain.pt", {"module": {}}, {}))


def test_an_oversized_pickle_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from castwise.checkpoint.zero import torch_zip

    monkeypatch.setattr(torch_zip, "MAX_PICKLE_BYTES", 100)
    path = _craft(tmp_path / "big.pt", {"module": {"x" * 200: 1}}, {})
    with pytest.raises(CheckpointError, match=r"over the 100-byte bound"):
        read_model_states(path)


HOSTILE_PICKLES = {
    "deep-key": (DEEP_TUPLE_KEY, r"nests containers more than 100 levels deep"),
    "deep-size": (deep_list_size(100_000), r"nests containers more than 100 levels deep"),
    "self-multiplying": (LAUGHING_KEY, r"reuses parts of itself"),
    "huge-memo-index": (b"\x80\x02}r\xff\xff\xff\xff.", r"stores memo entry 4,294,967,295 after only 3 opcodes"),
    "huge-string": (b"\x80\x04\x8d" + (2**62).to_bytes(8, "little") + b".", r"ends inside an opcode"),
    "huge-frame": (b"\x80\x04\x95" + (2**62).to_bytes(8, "little") + b"}.", r"not readable as a ZeRO shard .*truncated"),
    "no-stop": (b"\x80\x02}" + b"K\x01K\x01s" * 1000, r"without its STOP opcode"),
}
"""Pickles that crash, exhaust or hang an unpickler; each inside a valid torch zip."""


@pytest.mark.parametrize("name", sorted(HOSTILE_PICKLES))
def test_a_hostile_pickle_is_refused_before_the_unpickler_sees_it(tmp_path, name):
    raw, reason = HOSTILE_PICKLES[name]
    shard = torch_zip_with_pickle(tmp_path / "zero_pp_rank_0_mp_rank_00_model_states.pt", raw)
    with pytest.raises(CheckpointError, match=reason) as refused:
        read_model_states(shard)
    assert str(shard) in str(refused.value)
    folder = tmp_path / "global_step1"  # the same shard met by inspect and convert, in a tag folder
    folder.mkdir()
    shard.rename(folder / shard.name)
    shutil.copy(folder / shard.name, folder / "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt")
    before = _digest(folder)
    for attempt in (lambda: cw.inspect(folder), lambda: cw.convert(folder, tmp_path / "out", "bf16")):
        with pytest.raises(CheckpointError, match=reason):
            attempt()
    assert not (tmp_path / "out").exists() and not [p for p in tmp_path.iterdir() if ".castwise-" in p.name]
    assert _digest(folder) == before


def _flat(path: str, numel: int) -> StoredTensor:
    return StoredTensor(Storage(Path(path), "0", torch.float32, numel, 0), 0, (numel,), (1,))


def _states(shapes: list[dict], **fields) -> ModelStates:
    defaults = dict(module={}, buffer_names=(), frozen_shapes={}, frozen_fragments={}, shared={})
    return ModelStates(
        Path("model.pt"), param_shapes=tuple(shapes), step=1, skipped_steps=0, version="x", **{**defaults, **fields}
    )


def _optim(stage: int, partitions: list[StoredTensor], paddings=None) -> OptimStates:
    return OptimStates(Path("optim.pt"), stage, 2, tuple(partitions), paddings, 0, (), None, False)


def test_stage3_pieces_cut_each_parameter_over_the_ranks_and_drop_the_last_ranks_padding():
    model = _states([{"a": (3,), "b": (2, 2)}])  # per rank: a takes 2 (one padding), b takes 2
    optims = [_optim(3, [_flat("r0", 3), _flat("r0b", 1)]), _optim(3, [_flat("r1", 4)])]
    rebuilt = {t.name: t for t in rebuild(3, [model, model], optims).tensors}
    assert [(p.storage.path.name, p.start, p.count) for p in rebuilt["a"].pieces] == [("r0", 0, 2), ("r1", 0, 1)]
    assert [(p.storage.path.name, p.start, p.count) for p in rebuilt["b"].pieces] == [
        ("r0", 2, 1),
        ("r0b", 0, 1),
        ("r1", 2, 2),  # rank 0's half straddles its two sub-groups
    ]
    with pytest.raises(CheckpointError, match="take 4 elements per rank but each rank holds 5"):
        rebuild(3, [model, model], [_optim(3, [_flat("r0", 5)]), _optim(3, [_flat("r1", 5)])])


def test_stage2_pieces_follow_the_flat_group_across_ranks_with_alignment_padding():
    model = _states([{"a": (3,), "b": (4,)}])
    optims = [_optim(2, [_flat("r0", 4)], paddings=((1, 0),)), _optim(2, [_flat("r1", 4)])]
    rebuilt = {t.name: t for t in rebuild(2, [model], optims).tensors}
    assert [(p.storage.path.name, p.start, p.count) for p in rebuilt["b"].pieces] == [("r1", 0, 4)]
    with pytest.raises(CheckpointError, match="parameters take 7 elements but the ranks' partitions hold 16"):
        rebuild(2, [model], [_optim(2, [_flat("r0", 8)]), _optim(2, [_flat("r1", 8)])])
    frozen = _states([{"a": (3,), "b": (4,)}], frozen_shapes={"f": (2,)})
    with pytest.raises(CheckpointError, match=r"frozen parameters \['f'\] have a shape but no values"):
        rebuild(2, [frozen], optims)
