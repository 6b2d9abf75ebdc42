"""save / load / load_into: the storage dtype is a choice, and loading gives back exactly it."""

from __future__ import annotations

import pytest
import torch
from safetensors import safe_open
from torch import nn

import castwise as cw
from castwise.checkpoint import CheckpointError

from .helpers import sample_state


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 8)
        self.ln = nn.LayerNorm(8)
        self.head = nn.Linear(8, 3)
        self.register_buffer("position_ids", torch.arange(6))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.ln(self.proj(x)))


def _stored(path) -> dict[str, str]:
    return cw.inspect(path).dtypes()


def test_save_in_bf16_keeps_norms_by_class_and_ints_untouched(tmp_path):
    torch.manual_seed(0)
    model = Block()
    cw.save(model, tmp_path / "m.safetensors", dtype="bf16")
    assert _stored(tmp_path / "m.safetensors") == {
        "position_ids": "int64",
        "proj.weight": "bfloat16",
        "proj.bias": "bfloat16",
        "ln.weight": "float32",
        "ln.bias": "float32",
        "head.weight": "bfloat16",
        "head.bias": "bfloat16",
    }
    state = cw.load(tmp_path / "m.safetensors")
    assert state["proj.weight"].equal(model.proj.weight.detach().to(torch.bfloat16))
    assert state["ln.weight"].equal(model.ln.weight.detach())
    assert state["position_ids"].equal(torch.arange(6))


def test_default_is_as_the_tensors_are_and_metadata_is_recorded(tmp_path):
    state = sample_state() | {"half": torch.randn(3, dtype=torch.float16)}
    cw.save(state, tmp_path / "s.safetensors")
    loaded = cw.load(tmp_path / "s.safetensors")
    assert {k: v.dtype for k, v in loaded.items()} == {k: v.dtype for k, v in state.items()}
    assert all(loaded[k].equal(v) for k, v in state.items())
    with safe_open(tmp_path / "s.safetensors", "pt") as file:
        metadata = file.metadata()
    assert metadata["castwise.version"] == cw.__version__ and metadata["castwise.dtype"] == "as stored"


def test_policy_gives_dtype_keep_rules_and_metadata(tmp_path):
    model = cw.apply(Block(), "bf16-true")
    cw.save(model, tmp_path / "p.safetensors", policy="bf16-true")
    stored = _stored(tmp_path / "p.safetensors")
    assert stored["proj.weight"] == "bfloat16" and stored["ln.weight"] == "float32"
    with safe_open(tmp_path / "p.safetensors", "pt") as file:
        assert file.metadata()["castwise.policy"] == "bf16-true"
    assert any("policy bf16-true" in f for f in cw.inspect(tmp_path / "p.safetensors").findings)


def test_explicit_dtype_overrides_policy_and_keep_globs_match_names(tmp_path):
    cw.save(
        sample_state(),
        tmp_path / "k.safetensors",
        dtype="f16",
        keep_fp32=["*norm*", "encoder.linear.bias"],
        policy="bf16-mixed",
    )
    assert _stored(tmp_path / "k.safetensors") == {
        "encoder.linear.weight": "float16",
        "encoder.linear.bias": "float32",
        "encoder.norm.weight": "float32",
        "embed.position_ids": "int64",
        "mask": "bool",
    }
    cw.save(sample_state(), tmp_path / "n.safetensors", dtype="bf16", keep_fp32="none")
    assert _stored(tmp_path / "n.safetensors")["encoder.norm.weight"] == "bfloat16"


def test_wrapped_and_unwrapped_models_save_the_same_keys_and_bytes(tmp_path):
    torch.manual_seed(0)
    model = Block()
    cw.save(model, tmp_path / "plain.safetensors", dtype="bf16")
    cw.save(cw.apply(model, "32-true"), tmp_path / "wrapped.safetensors", dtype="bf16")
    plain, wrapped = cw.load(tmp_path / "plain.safetensors"), cw.load(tmp_path / "wrapped.safetensors")
    assert list(plain) == list(wrapped) and all(plain[k].equal(wrapped[k]) for k in plain)


def test_load_casts_floats_only_when_asked(tmp_path):
    cw.save(sample_state(), tmp_path / "s.safetensors")
    loaded = cw.load(tmp_path / "s.safetensors", dtype="bf16")
    assert {k: v.dtype for k, v in loaded.items()} == {
        "encoder.linear.weight": torch.bfloat16,
        "encoder.linear.bias": torch.bfloat16,
        "encoder.norm.weight": torch.bfloat16,
        "embed.position_ids": torch.int64,
        "mask": torch.bool,
    }


def test_load_into_sets_stored_dtypes_without_silent_casts(tmp_path):
    torch.manual_seed(0)
    source = Block()
    cw.save(source, tmp_path / "m.safetensors", dtype="bf16")
    target = Block()
    result = cw.load_into(target, tmp_path / "m.safetensors")
    assert target.proj.weight.dtype == torch.bfloat16 and target.ln.weight.dtype == torch.float32
    assert target.proj.weight.equal(source.proj.weight.detach().to(torch.bfloat16))
    assert isinstance(target.proj.weight, nn.Parameter) and target.proj.weight.requires_grad
    assert result.changed_dtype["proj.weight"] == ("float32", "bfloat16") and "ln.weight" not in result.changed_dtype
    assert result.missing == () and result.unexpected == ()
    out = cw.apply(target, "bf16-true")(torch.randn(2, 4))
    assert out.dtype == torch.float32 and torch.isfinite(out).all()


def test_load_into_wrapped_model_reports_missing_and_unexpected(tmp_path):
    state = {k: v for k, v in Block().state_dict().items() if k != "head.bias"} | {"extra.weight": torch.ones(2)}
    cw.save(state, tmp_path / "partial.safetensors")
    result = cw.load_into(cw.apply(Block(), "bf16-mixed"), tmp_path / "partial.safetensors")
    assert result.missing == ("head.bias",) and result.unexpected == ("extra.weight",)
    with pytest.raises(CheckpointError, match="1 missing keys \\(head.bias\\) and 1 unexpected keys"):
        cw.load_into(Block(), tmp_path / "partial.safetensors", strict=True)


def test_load_into_shape_mismatch_is_a_clear_error(tmp_path):
    cw.save({"proj.weight": torch.zeros(3, 3)}, tmp_path / "wrong.safetensors")
    with pytest.raises(
        CheckpointError, match=r"proj.weight: the checkpoint holds shape \[3, 3\] but the model expects \[8, 4\]"
    ):
        cw.load_into(Block(), tmp_path / "wrong.safetensors")


@pytest.mark.parametrize("strict, refused", [
    (True, r"1 missing keys \(head.bias\) and 0 unexpected keys \(\); nothing was loaded: pass strict=False to load"),
    (False, r"ln.weight: the checkpoint holds shape \[3\] but the model expects \[8\]"),
])
def test_a_refused_load_into_leaves_the_model_untouched(tmp_path, strict, refused):
    state = {k: torch.full_like(v, 7) for k, v in Block().state_dict().items() if k != "head.bias"}
    if not strict:
        state["ln.weight"] = torch.ones(3)
    cw.save(state, tmp_path / "partial.safetensors", dtype="bf16")
    model = Block()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(CheckpointError, match=refused):
        cw.load_into(model, tmp_path / "partial.safetensors", strict=strict)
    after = model.state_dict()
    assert all(after[k].dtype == v.dtype and after[k].equal(v) for k, v in before.items())


def test_tied_weights_load_once_and_stay_tied(tmp_path):
    model = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10, bias=False))
    model[1].weight = model[0].weight
    cw.save({"0.weight": model[0].weight.detach()}, tmp_path / "tied.safetensors", dtype="bf16")
    result = cw.load_into(model, tmp_path / "tied.safetensors")
    assert result.missing == () and model[1].weight is model[0].weight
    assert model[1].weight.dtype == torch.bfloat16


def test_save_refuses_bad_input(tmp_path):
    with pytest.raises(CheckpointError, match="is a folder"):
        cw.save(sample_state(), tmp_path)
    with pytest.raises(CheckpointError, match="'step' is a int, not a tensor"):
        cw.save({"step": 3}, tmp_path / "x.safetensors")
    with pytest.raises(ValueError, match="unknown dtype 'bf17'"):
        cw.save(sample_state(), tmp_path / "x.safetensors", dtype="bf17")
    assert list(tmp_path.iterdir()) == []


def test_save_overwrites_atomically(tmp_path):
    path = tmp_path / "m.safetensors"
    cw.save({"a": torch.zeros(2)}, path)
    cw.save({"b": torch.ones(3, dtype=torch.bfloat16)}, path)
    assert cw.inspect(path).dtypes() == {"b": "bfloat16"} and [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]


def test_load_reads_torch_bin_sharded_and_folders_identically(tiny_bert):
    reference = cw.load(tiny_bert["single"])
    for kind in ("sharded", "bin"):
        other = cw.load(tiny_bert[kind])
        assert other.keys() == reference.keys()
        assert all(other[k].dtype == v.dtype and other[k].equal(v) for k, v in reference.items())


def test_save_removes_the_temporary_a_killed_save_left(tmp_path):
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(timeout=30)
    litter = tmp_path / f".out.safetensors.castwise-{dead.pid}-0123abcd.tmp"
    other = tmp_path / f".other.safetensors.castwise-{dead.pid}-0123abcd.tmp"
    litter.write_bytes(b"half a file")
    other.write_bytes(b"not ours to judge")
    cw.save(sample_state(), tmp_path / "out.safetensors", dtype="bf16")
    assert not litter.exists() and other.read_bytes() == b"not ours to judge"
    assert cw.load(tmp_path / "out.safetensors")["encoder.linear.weight"].dtype == torch.bfloat16
