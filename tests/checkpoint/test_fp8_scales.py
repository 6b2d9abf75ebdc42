"""fp8 checkpoints with scales: DeepSeek blocks, compressed-tensors per tensor/channel, ComfyUI.

Every file is built here with torch; dequantized values are checked against a float64
reference (weight x scale broadcast over its block, channel or tensor).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file
from typer.testing import CliRunner

import castwise as cw
from castwise.checkpoint import CheckpointError, fp8_scales
from castwise.cli import app

E4M3 = torch.float8_e4m3fn


def _block_scales(rows: int, cols: int, block: tuple[int, int], generator: torch.Generator) -> torch.Tensor:
    grid = (-(-rows // block[0]), -(-cols // block[1]))
    return torch.rand(grid, generator=generator) * 0.02 + 0.001


def _expand(scale: torch.Tensor, rows: int, cols: int, block: tuple[int, int]) -> torch.Tensor:
    return scale.double().repeat_interleave(block[0], 0)[:rows].repeat_interleave(block[1], 1)[:, :cols]


def _fp8(rows: int, cols: int, generator: torch.Generator, dtype: torch.dtype = E4M3) -> torch.Tensor:
    return (torch.randn(rows, cols, generator=generator) * 100).clamp(-440, 440).to(dtype)


def _deepseek(path: Path, block: tuple[int, int] = (128, 128), shapes=((300, 200), (256, 384))) -> dict:
    """A DeepSeek-V3-style folder: fp8 weights, fp32 ``weight_scale_inv`` per block, bf16 rest."""
    g = torch.Generator().manual_seed(0)
    tensors, reference = {}, {}
    for i, (rows, cols) in enumerate(shapes):
        weight, scale = _fp8(rows, cols, g), _block_scales(rows, cols, block, g)
        tensors[f"layers.{i}.proj.weight"] = weight
        tensors[f"layers.{i}.proj.weight_scale_inv"] = scale
        reference[f"layers.{i}.proj.weight"] = weight.double() * _expand(scale, rows, cols, block)
    tensors["layers.0.input_layernorm.weight"] = torch.rand(200, generator=g).bfloat16()
    tensors["embed_tokens.weight"] = torch.randn(10, 200, generator=g).bfloat16()
    path.mkdir()
    save_file(tensors, path / "model.safetensors")
    config = {
        "model_type": "deepseek_v3",
        "torch_dtype": "bfloat16",
        "quantization_config": {
            "quant_method": "fp8",
            "fmt": "e4m3",
            "activation_scheme": "dynamic",
            "weight_block_size": list(block),
        },
    }
    (path / "config.json").write_text(json.dumps(config))
    return {"tensors": tensors, "reference": reference}


@pytest.mark.parametrize("block", [(128, 128), (64, 32)])
def test_block_scaled_weights_dequantize_to_the_float64_reference(tmp_path, block):
    made = _deepseek(tmp_path / "src", block)
    cw.convert(tmp_path / "src", tmp_path / "f32", "f32")
    cw.convert(tmp_path / "src", tmp_path / "bf16", "bf16")
    f32, bf16 = cw.load(tmp_path / "f32"), cw.load(tmp_path / "bf16")
    for name, reference in made["reference"].items():
        assert torch.equal(f32[name], reference.float())  # fp32 product rounded once, bitwise
        assert bf16[name].dtype == torch.bfloat16
        assert torch.equal(bf16[name], reference.float().bfloat16())
        torch.testing.assert_close(bf16[name].double(), reference, rtol=2**-8, atol=0)
    assert not any(name.endswith("_scale_inv") for name in bf16)
    assert bf16["layers.0.input_layernorm.weight"].dtype == torch.float32  # kept norm
    assert torch.equal(bf16["embed_tokens.weight"], made["tensors"]["embed_tokens.weight"])
    config = json.loads((tmp_path / "bf16" / "config.json").read_text())
    assert "quantization_config" not in config and config["torch_dtype"] == "bfloat16"
    assert json.loads((tmp_path / "src" / "config.json").read_text())["quantization_config"]  # source untouched


def test_small_row_blocks_give_the_same_values(tmp_path, monkeypatch):
    made = _deepseek(tmp_path / "src", shapes=((300, 200),))
    monkeypatch.setattr(fp8_scales, "CHUNK_ELEMENTS", 1000)  # one block row (128 rows) per chunk
    cw.convert(tmp_path / "src", tmp_path / "out", "f32")
    assert torch.equal(
        cw.load(tmp_path / "out")["layers.0.proj.weight"], made["reference"]["layers.0.proj.weight"].float()
    )


def test_many_chunks_and_wide_scale_grids_give_the_same_values(tmp_path, monkeypatch):
    # 263 block columns: the gather offsets no longer fit uint16; 600 channels: several tables
    made = _deepseek(tmp_path / "src", (8, 8), shapes=((40, 2100), (33, 70)))
    g = torch.Generator().manual_seed(2)
    weight, scale = _fp8(600, 7, g), torch.rand(600, 1, generator=g) + 0.01
    save_file({"c.weight": weight, "c.weight_scale": scale}, tmp_path / "channel.safetensors")
    monkeypatch.setattr(fp8_scales, "CHUNK_ELEMENTS", 5000)
    monkeypatch.setattr(fp8_scales, "_GATHER_ELEMENTS", 999)
    cw.convert(tmp_path / "src", tmp_path / "out", "bf16")
    cw.convert(tmp_path / "channel.safetensors", tmp_path / "channel-out.safetensors", "bf16")
    out = cw.load(tmp_path / "out") | cw.load(tmp_path / "channel-out.safetensors")
    for name, reference in made["reference"].items():
        assert torch.equal(out[name], reference.float().bfloat16())
    assert torch.equal(out["c.weight"], (weight.double() * scale.double()).float().bfloat16())


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0,)])
def test_empty_fp8_weights_dequantize_to_empty_tensors(tmp_path, shape):
    weight = torch.zeros(shape, dtype=E4M3)
    save_file({"q.weight": weight, "q.weight_scale": torch.ones(1)}, tmp_path / "in.safetensors")
    cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16")
    out = cw.load(tmp_path / "out.safetensors")
    assert set(out) == {"q.weight"}
    assert out["q.weight"].shape == shape and out["q.weight"].dtype == torch.bfloat16


@pytest.mark.parametrize(
    ("spelling", "scale_shape"),
    [
        ("compressed-tensors per tensor", (1,)),
        ("compressed-tensors per channel", (96, 1)),
        ("per channel, 1-D", (96,)),
        ("comfyui scale_weight", ()),
    ],
)
def test_per_tensor_and_per_channel_scales(tmp_path, spelling, scale_shape):
    g = torch.Generator().manual_seed(1)
    weight = _fp8(96, 40, g, torch.float8_e5m2 if "comfyui" in spelling else E4M3)
    scale = torch.rand(scale_shape, generator=g) + 0.01
    scale_name = "q.scale_weight" if "comfyui" in spelling else "q.weight_scale"
    save_file(
        {"q.weight": weight, scale_name: scale, "q.bias": torch.randn(96, generator=g)}, tmp_path / "in.safetensors"
    )
    cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "f32")
    out = cw.load(tmp_path / "out.safetensors")
    multiplier = scale.double().reshape(-1, 1) if scale.numel() > 1 else scale.double().reshape(())
    assert torch.equal(out["q.weight"], (weight.double() * multiplier).float())
    assert set(out) == {"q.weight", "q.bias"}
    scheme = "per tensor" if scale.numel() == 1 else "per channel"
    info = cw.inspect(tmp_path / "in.safetensors")
    assert any(f.startswith("fp8 ") and f"{scheme}: 1 weights with scales" in f for f in info.findings)
    assert info.fp8["weights"]["q.weight"]["scale"] == scale_name


def test_the_issue_command_dequantizes_instead_of_casting_the_scale(tmp_path):
    """`castwise convert fp8.safetensors out.safetensors --dtype bf16` used to cast only the scale."""
    g = torch.Generator().manual_seed(2)
    weight, scale = _fp8(256, 128, g), _block_scales(256, 128, (128, 128), g)
    save_file({"l.weight": weight, "l.weight_scale_inv": scale}, tmp_path / "fp8.safetensors")
    done = CliRunner().invoke(
        app, ["convert", str(tmp_path / "fp8.safetensors"), str(tmp_path / "out.safetensors"), "--dtype", "bf16"]
    )
    assert done.exit_code == 0, done.output
    assert "1 fp8 weights dequantized, 1 scale tensors dropped" in done.output
    out = cw.load(tmp_path / "out.safetensors")
    assert list(out) == ["l.weight"] and out["l.weight"].dtype == torch.bfloat16
    assert torch.equal(out["l.weight"], (weight.double() * _expand(scale, 256, 128, (128, 128))).float().bfloat16())


def test_inspect_reports_the_scheme_and_the_dequantized_size(tmp_path):
    _deepseek(tmp_path / "src")
    info = cw.inspect(tmp_path / "src")
    assert "fp8 e4m3, block 128x128: 2 weights with scales" in info.findings
    bf16_bytes = (300 * 200 + 256 * 384) * 2 + 200 * 2 + 10 * 200 * 2
    assert any(f"dequantized to bf16 this checkpoint holds {bf16_bytes:,} B" in f for f in info.findings)
    done = CliRunner().invoke(app, ["inspect", str(tmp_path / "src")])
    assert done.exit_code == 0 and "fp8 e4m3, block 128x128: 2 weights with scales" in done.output
    assert info.dtypes()["layers.0.proj.weight"] == "float8_e4m3fn"


def test_a_scale_is_never_cast_as_if_it_were_a_weight(tmp_path):
    g = torch.Generator().manual_seed(3)
    orphan = torch.rand(3, 2, generator=g)  # a scale whose weight is not fp8: kept exactly as stored
    save_file(
        {"a.weight": torch.randn(300, 200, generator=g), "a.weight_scale_inv": orphan}, tmp_path / "in.safetensors"
    )
    info = cw.inspect(tmp_path / "in.safetensors")
    assert any("1 scale tensors have no fp8 weight beside them: a.weight_scale_inv" in f for f in info.findings)
    cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16")
    out = cw.load(tmp_path / "out.safetensors")
    assert out["a.weight"].dtype == torch.bfloat16
    assert out["a.weight_scale_inv"].dtype == torch.float32 and torch.equal(out["a.weight_scale_inv"], orphan)


def test_fp8_without_a_scale_upcasts_exactly_with_a_finding(tmp_path):
    every_e4m3 = torch.arange(256, dtype=torch.uint8).view(E4M3)
    finite = every_e4m3[~every_e4m3.float().isnan()]
    save_file({"w": finite.reshape(-1, 2)}, tmp_path / "in.safetensors")
    assert any("1 fp8 tensors have no scale (w)" in f for f in cw.inspect(tmp_path / "in.safetensors").findings)
    cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16")
    assert torch.equal(cw.load(tmp_path / "out.safetensors")["w"].double(), finite.double().reshape(-1, 2))


@pytest.mark.parametrize(("scale_shape", "expect"), [((2, 2), "need [3, 2]"), ((7,), "per channel [300, 1]")])
def test_a_grid_that_does_not_cover_its_weight_is_refused(tmp_path, scale_shape, expect):
    g = torch.Generator().manual_seed(4)
    save_file(
        {"l.weight": _fp8(300, 200, g), "l.weight_scale_inv": torch.rand(scale_shape)}, tmp_path / "in.safetensors"
    )
    info = cw.inspect(tmp_path / "in.safetensors")
    assert any("does not cover it" in f and expect in f for f in info.findings)
    with pytest.raises(CheckpointError, match="does not cover it") as refused:
        cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16")
    assert expect in str(refused.value) and str(refused.value).endswith("nothing was written")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.safetensors"]
    done = CliRunner().invoke(
        app, ["convert", str(tmp_path / "in.safetensors"), str(tmp_path / "o.safetensors"), "-d", "bf16"]
    )
    assert done.exit_code == 2 and "Traceback" not in done.output and "does not cover it" in done.output


@pytest.mark.parametrize("block", ["128", "tensor"])
def test_bf16_to_fp8_and_back_stays_within_e4m3_error(tmp_path, block):
    g = torch.Generator().manual_seed(5)
    state = {
        "mlp.up_proj.weight": torch.randn(300, 200, generator=g).bfloat16(),
        "mlp.up_proj.bias": torch.randn(300, generator=g).bfloat16(),
        "model.embed_tokens.weight": torch.randn(16, 200, generator=g).bfloat16(),
        "model.norm.weight": torch.ones(200),
        "mlp.gate.weight": torch.randn(4, 200, generator=g).bfloat16(),
    }
    cw.save(state, tmp_path / "in.safetensors")
    result = cw.convert(tmp_path / "in.safetensors", tmp_path / "fp8.safetensors", "fp8", fp8_block=block)
    fp8 = cw.load(tmp_path / "fp8.safetensors")
    assert result.quantized == 1 and fp8["mlp.up_proj.weight"].dtype == E4M3
    assert fp8["mlp.up_proj.weight_scale_inv"].shape == ((3, 2) if block == "128" else ())
    assert {n: t.dtype for n, t in fp8.items() if n != "mlp.up_proj.weight" and "scale" not in n} == {
        "mlp.up_proj.bias": torch.bfloat16,
        "model.embed_tokens.weight": torch.bfloat16,
        "model.norm.weight": torch.float32,
        "mlp.gate.weight": torch.bfloat16,
    }
    cw.convert(tmp_path / "fp8.safetensors", tmp_path / "back.safetensors", "bf16")
    back = cw.load(tmp_path / "back.safetensors")
    assert set(back) == set(state)
    original = state["mlp.up_proj.weight"].double()
    scale = fp8["mlp.up_proj.weight_scale_inv"].double()
    per_element = _expand(scale, 300, 200, (128, 128)) if block == "128" else scale
    # e4m3: 3 mantissa bits (relative error <= 2^-4), subnormal step 2^-9 of the scale; then bf16 rounding
    bound = original.abs() * (2**-4 + 2**-8) + per_element * 2**-9
    assert ((back["mlp.up_proj.weight"].double() - original).abs() <= bound).all()


def test_quantizing_fp8_again_is_refused(tmp_path):
    _deepseek(tmp_path / "src")
    with pytest.raises(CheckpointError, match="already holds fp8 weights"):
        cw.convert(tmp_path / "src", tmp_path / "out", "fp8")
    assert not (tmp_path / "out").exists()


def test_tiny_llama_to_fp8_and_back_loads_and_matches(tmp_path):
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=64,
        hidden_size=160,
        intermediate_size=288,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32,
    )
    model = transformers.LlamaForCausalLM(config).to(torch.bfloat16).eval()
    model.save_pretrained(tmp_path / "bf16")
    cw.convert(tmp_path / "bf16", tmp_path / "fp8", "fp8")
    fp8_config = json.loads((tmp_path / "fp8" / "config.json").read_text())
    assert fp8_config["quantization_config"] == {
        "quant_method": "fp8",
        "fmt": "e4m3",
        "activation_scheme": "dynamic",
        "weight_block_size": [128, 128],
    }
    dtypes = cw.inspect(tmp_path / "fp8").dtypes()
    assert dtypes["model.layers.0.self_attn.q_proj.weight"] == "float8_e4m3fn"
    assert dtypes["model.layers.1.mlp.down_proj.weight_scale_inv"] == "float32"
    assert {dtypes[n] for n in ("model.embed_tokens.weight", "lm_head.weight", "model.norm.weight")} <= {
        "bfloat16",
        "float32",
    }
    assert "fp8 e4m3, block 128x128: 14 weights with scales" in cw.inspect(tmp_path / "fp8").findings
    cw.convert(tmp_path / "fp8", tmp_path / "back", "bf16")
    assert "quantization_config" not in json.loads((tmp_path / "back" / "config.json").read_text())
    loaded = transformers.AutoModelForCausalLM.from_pretrained(tmp_path / "back").eval()
    ids = torch.randint(0, 64, (2, 12), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        expected, got = model(ids).logits.float(), loaded(ids).logits.float()
    assert torch.nn.functional.cosine_similarity(expected.flatten(), got.flatten(), dim=0) > 0.99
    assert (got.argmax(-1) == expected.argmax(-1)).float().mean() > 0.8


_CAPPED = """
import json, re, resource, sys
import castwise as cw  # imported first: the cap is on what the conversions themselves add
from castwise.checkpoint import CheckpointError
size = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 2**30, size + 2**30))
for src, dst, dtype, block in json.loads(sys.argv[1]):
    try:
        print("wrote", cw.convert(src, dst, dtype, fp8_block=block).tensors)
    except CheckpointError as exc:
        print("refused", exc)
"""


def _convert_capped(*jobs: tuple[Path, Path, str, int]) -> list[str]:
    """``convert`` each (src, dst, dtype, fp8 block) in one fresh process whose address space may
    grow by 1 GiB at most; what each did, one line each."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _CAPPED, json.dumps([[str(a), str(b), c, d] for a, b, c, d in jobs])],
        capture_output=True,
        text=True,
        env=dict(os.environ, OMP_NUM_THREADS="1"),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-len(jobs) :]


def _raw_fp8(path: Path, shape: list[int]) -> Path:
    """A 172-byte-ish safetensors file: an empty e4m3 weight declaring ``shape`` and a per-tensor scale."""
    header = {
        "q.weight": {"dtype": "F8_E4M3", "shape": shape, "data_offsets": [0, 0]},
        "q.weight_scale": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
    }
    raw = json.dumps(header).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + torch.ones(1).numpy().tobytes())
    return path


def test_no_declared_shape_or_block_makes_convert_allocate_beyond_the_tensor(tmp_path):
    wide = _raw_fp8(tmp_path / "wide.safetensors", [0, 2**28])
    huge = _raw_fp8(tmp_path / "huge.safetensors", [0, 2**62])  # in bf16: 2**63 bytes, past what torch reads
    weight = torch.randn(300, 200, generator=torch.Generator().manual_seed(0)).bfloat16()
    save_file({"l.weight": weight}, tmp_path / "in.safetensors")
    wrote_wide, refused_huge, wrote_fp8 = _convert_capped(
        (wide, tmp_path / "wide-out.safetensors", "bf16", 128),
        (huge, tmp_path / "huge-out.safetensors", "bf16", 128),
        (tmp_path / "in.safetensors", tmp_path / "fp8.safetensors", "fp8", 2**30),  # a block far past the weight
    )
    assert wrote_wide == "wrote 1" and cw.load(tmp_path / "wide-out.safetensors")["q.weight"].shape == (0, 2**28)
    assert refused_huge.startswith("refused") and "[0, 4611686018427387904] in torch.bfloat16 is too large" in refused_huge
    assert not (tmp_path / "huge-out.safetensors").exists()
    assert wrote_fp8 == "wrote 2"
    fp8 = cw.load(tmp_path / "fp8.safetensors")
    assert fp8["l.weight_scale_inv"].shape == (1, 1)  # one block covers the weight: one scale, its amax / 448
    assert fp8["l.weight_scale_inv"].item() == (weight.float().abs().max() / fp8_scales.E4M3_MAX).item()


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), 0.0, -0.5])
@pytest.mark.parametrize("layout", ["block", "tensor"])
def test_a_scale_that_is_not_finite_and_positive_is_refused_naming_the_weight(tmp_path, bad, layout):
    g = torch.Generator().manual_seed(6)
    scale = _block_scales(256, 128, (128, 128), g) if layout == "block" else torch.ones(1)
    scale.view(-1)[-1] = bad
    save_file({"l.weight": _fp8(256, 128, g), "l.weight_scale_inv": scale}, tmp_path / "in.safetensors")
    with pytest.raises(CheckpointError, match="scale 'l.weight_scale_inv' of fp8 weight 'l.weight' holds 1 values"):
        cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.safetensors"]
    done = CliRunner().invoke(app, ["convert", str(tmp_path / "in.safetensors"), str(tmp_path / "o"), "-d", "bf16"])
    assert done.exit_code == 2 and "not finite and positive" in done.output and "Traceback" not in done.output


@pytest.mark.parametrize("block", ["128", "tensor"])
def test_quantizing_inf_or_nan_is_refused_unless_clamped_and_counted(tmp_path, block):
    g = torch.Generator().manual_seed(7)
    weight = torch.randn(200, 160, generator=g)
    weight[3, 5], weight[150, 150], weight[7, 9] = float("nan"), float("inf"), float("-inf")
    save_file({"l.weight": weight}, tmp_path / "in.safetensors")
    with pytest.raises(CheckpointError, match=r"tensor 'l.weight': 3 values are inf or nan"):
        cw.convert(tmp_path / "in.safetensors", tmp_path / "fp8.safetensors", "fp8", fp8_block=block)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.safetensors"]
    result = cw.convert(
        tmp_path / "in.safetensors", tmp_path / "fp8.safetensors", "fp8", fp8_block=block, clamp_nonfinite=True
    )
    assert result.nonfinite_clamped == 3
    cw.convert(tmp_path / "fp8.safetensors", tmp_path / "back.safetensors", "f32")
    back = cw.load(tmp_path / "back.safetensors")["l.weight"]
    assert back.isfinite().all() and back[3, 5] == 0
    finite = weight.masked_fill(~weight.isfinite(), 0).abs()
    top = finite[128:, 128:] if block == "128" else finite  # the block holding the +inf
    assert back[150, 150].item() == pytest.approx(top.max().item(), rel=2**-7)
    assert back[7, 9].item() == pytest.approx(-(finite[:128, :128] if block == "128" else finite).max().item(), rel=2**-7)


def test_the_cli_clamps_inf_and_nan_only_when_asked_and_says_how_many(tmp_path):
    weight = torch.randn(64, 32, generator=torch.Generator().manual_seed(3))
    weight[0, 0], weight[9, 9], weight[40, 1] = float("nan"), float("inf"), float("-inf")
    save_file({"l.weight": weight}, tmp_path / "in.safetensors")
    src, dst = str(tmp_path / "in.safetensors"), str(tmp_path / "fp8.safetensors")
    refused = CliRunner().invoke(app, ["convert", src, dst, "-d", "fp8"])
    assert refused.exit_code == 2 and "3 values are inf or nan" in refused.output
    assert "--clamp-nonfinite" in refused.output and "Traceback" not in refused.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.safetensors"]
    done = CliRunner().invoke(app, ["convert", src, dst, "-d", "fp8", "--clamp-nonfinite"])
    assert done.exit_code == 0 and "1 Linear weights quantized to fp8 e4m3 with scales, 3 inf/nan values clamped" in (
        " ".join(done.output.split()))
    again = CliRunner().invoke(app, ["convert", src, dst, "-d", "fp8", "--clamp-nonfinite", "--force", "--json"])
    assert again.exit_code == 0 and json.loads(again.output)["nonfinite_clamped"] == 3
    assert cw.load(dst)["l.weight"].dtype == E4M3


def test_clamping_inf_and_nan_without_quantizing_is_refused_before_anything_is_written(tmp_path):
    save_file({"l.weight": torch.full((4, 4), float("inf"))}, tmp_path / "in.safetensors")
    with pytest.raises(CheckpointError, match="applies only when quantizing to fp8; a cast to bf16 keeps them"):
        cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf16", clamp_nonfinite=True)
    done = CliRunner().invoke(app, ["convert", str(tmp_path / "in.safetensors"), str(tmp_path / "out.safetensors"),
                                    "-d", "f16", "--clamp-nonfinite"])
    assert done.exit_code == 2 and "applies only when quantizing to fp8" in done.output
    with pytest.raises(CheckpointError, match="bf17") as unknown:
        cw.convert(tmp_path / "in.safetensors", tmp_path / "out.safetensors", "bf17", clamp_nonfinite=True)
    assert "clamping" not in str(unknown.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.safetensors"]


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 0)])
@pytest.mark.parametrize("block", ["128", "tensor"])
def test_empty_weights_quantize_to_empty_weights_and_back(tmp_path, shape, block):
    save_file({"l.weight": torch.zeros(shape).bfloat16(), "l.bias": torch.ones(3)}, tmp_path / "in.safetensors")
    cw.convert(tmp_path / "in.safetensors", tmp_path / "fp8.safetensors", "fp8", fp8_block=block)
    fp8 = cw.load(tmp_path / "fp8.safetensors")
    assert fp8["l.weight"].dtype == E4M3 and fp8["l.weight"].shape == shape
    assert fp8["l.weight_scale_inv"].numel() == (0 if block == "128" else 1)
    cw.convert(tmp_path / "fp8.safetensors", tmp_path / "back.safetensors", "bf16")
    back = cw.load(tmp_path / "back.safetensors")
    assert set(back) == {"l.weight", "l.bias"} and back["l.weight"].shape == shape
