"""Held-out live set 37: torch.compile (eager / aot_eager backends) and torch.export in low precision, revisited with
situations set 22 did not have: autocast regions inside compiled steps, AOTAutograd's joint (backward) trace, compiled
EMA and optimizer-side updates, custom ops whose fake kernels give the wrong dtype, run_decompositions with a custom
decomposition table, graph breaks around .item() and numpy, torch.cond / map bodies, and exports of bf16, fp16, fp8
and int8 weight-only models. Each action starts from torch._dynamo.reset(). Defects planted by a helper who never read
the rules, written before castwise ran and graded once with the rules frozen at ab1286f."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from functorch.experimental.control_flow import map as control_map
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ab1286f"

bf16, f16 = torch.bfloat16, torch.float16
E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


def _fresh() -> None:
    """Each case compiles from scratch and seeds its random values."""
    torch._dynamo.reset()
    torch.manual_seed(0)


def _aot(fn):  # noqa: ANN001, ANN202 - any callable
    return torch.compile(fn, backend="aot_eager")


def _eager(fn):  # noqa: ANN001, ANN202 - any callable
    return torch.compile(fn, backend="eager")


def _export(model: nn.Module, *args: object) -> torch.export.ExportedProgram:
    return torch.export.export(model, tuple(args))


# --- autocast regions inside compiled training steps ------------------------------------------------------------------


def _autocast_disabled_head() -> None:
    _fresh()
    trunk, head = nn.Linear(8, 8), nn.Linear(8, 3)

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=bf16):
            features = torch.relu(trunk(x))
            with torch.autocast("cpu", enabled=False):  # the classifier head "in full precision for stability"
                logits = head(features)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        return loss

    _aot(step)(torch.randn(4, 8), torch.tensor([0, 1, 2, 0]))


class _VectorQuantizer(nn.Module):
    """A VQ-VAE codebook updated by EMA inside forward; its running sums are fp32 buffers."""

    def __init__(self, codes: int = 8, dim: int = 4) -> None:
        super().__init__()
        self.encoder = nn.Linear(6, dim)
        self.register_buffer("codebook", torch.randn(codes, dim))
        self.register_buffer("embed_sum", torch.zeros(codes, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.encoder(x)
        idx = torch.cdist(z.float(), self.codebook).argmin(-1)
        self.embed_sum.mul_(0.99).index_add_(0, idx, z.detach())
        return self.codebook[idx]


def _vq_ema_index_add_autocast() -> None:
    _fresh()
    model = _VectorQuantizer()

    def step(x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=bf16):
            return model(x)

    _aot(step)(torch.randn(5, 6))


def _embedding_bag_autocast_weights() -> None:
    _fresh()
    table, scorer = nn.EmbeddingBag(20, 8, mode="sum"), nn.Linear(8, 1)
    pos = nn.Embedding(20, 8)

    def forward(ids: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=bf16):
            weights = torch.sigmoid(scorer(pos(ids))).squeeze(-1)  # learned per-item weights, bf16 from the Linear
            return table(ids, per_sample_weights=weights)

    _aot(forward)(torch.randint(0, 20, (3, 5)))


def _batch_dict_cast_labels() -> None:
    _fresh()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(bf16)

    def step(batch: dict[str, torch.Tensor]) -> torch.Tensor:
        batch = {k: v.to(bf16) for k, v in batch.items()}  # "move the batch to the model's dtype"
        logp = F.log_softmax(model(batch["x"]), dim=-1)
        return F.nll_loss(logp, batch["y"])

    _aot(step)({"x": torch.randn(4, 8), "y": torch.tensor([0, 3, 1, 2])})


def _flow_warp_linspace_grid() -> None:
    _fresh()

    def warp(frame: torch.Tensor, flow: torch.Tensor) -> torch.Tensor:
        _, _, h, w = frame.shape
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
        grid = torch.stack((xs, ys), dim=-1)[None] + flow.permute(0, 2, 3, 1).float()
        return F.grid_sample(frame, grid, align_corners=True)

    _eager(warp)(torch.randn(1, 3, 8, 8).to(bf16), torch.zeros(1, 2, 8, 8).to(bf16))


# --- AOTAutograd's joint trace: custom backward rules ----------------------------------------------------------------


class _Fp8Quant(torch.autograd.Function):
    """Straight-through fp8 fake-quant whose backward quantizes the gradient to e5m2 as fp8 recipes do."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(scale)
        return (x * scale).to(E4M3).to(x.dtype) / scale

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (scale,) = ctx.saved_tensors
        return (grad * scale).to(E5M2) / scale, None


def _fp8_ste_backward_e5m2_grad() -> None:
    _fresh()
    layer = nn.Linear(8, 8).to(bf16)
    scale = torch.tensor([4.0])  # the per-tensor scale, a 1-element fp32 tensor

    def step(x: torch.Tensor) -> torch.Tensor:
        loss = _Fp8Quant.apply(layer(x), scale).float().square().mean()
        loss.backward()
        return loss

    _aot(step)(torch.randn(4, 8).to(bf16))


# --- custom ops whose fake kernels give the wrong dtype -------------------------------------------------------------


@torch.library.custom_op("castwise_live37::route_top1", mutates_args=())
def _route_top1(scores: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(scores.float().numpy().argmax(-1))


@_route_top1.register_fake
def _(scores: torch.Tensor) -> torch.Tensor:
    return scores.new_empty(scores.shape[:-1])  # copied from an elementwise op: keeps the scores' bf16


def _router_fake_kernel_bf16_ids() -> None:
    _fresh()
    gate = nn.Linear(8, 4).to(bf16)

    def dispatch(x: torch.Tensor) -> torch.Tensor:
        scores = gate(x).softmax(-1)
        expert = _route_top1(scores)
        return scores.gather(1, expert[:, None])

    _aot(dispatch)(torch.randn(6, 8).to(bf16))


# --- torch.export and run_decompositions --------------------------------------------------------------------------


class _Mlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up, self.down = nn.Linear(8, 16), nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


def _fp32_gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    x = x.float()  # "compute the activation in fp32 for accuracy", never cast back
    return 0.5 * x * (1 + torch.erf(x / 2**0.5))


def _run_decompositions_gelu_upcast() -> None:
    _fresh()
    program = _export(_Mlp().to(bf16), torch.randn(2, 8).to(bf16))
    decomposed = program.run_decompositions({torch.ops.aten.gelu.default: _fp32_gelu})
    decomposed.module()(torch.randn(2, 8).to(bf16))


class _ConvBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Conv1d(4, 4, 3, padding=1, bias=False), nn.Conv1d(4, 4, 3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(F.silu(self.a(x)))


def _fp32_silu(x: torch.Tensor) -> torch.Tensor:
    return x.double() * torch.sigmoid(x.double())  # a reference decomposition written for numerics checks


def _run_decompositions_silu_f64() -> None:
    _fresh()
    x = torch.randn(1, 4, 8).to(f16)
    program = _export(_ConvBlock().to(f16), x)
    program.run_decompositions({torch.ops.aten.silu.default: _fp32_silu}).module()(x)


def _exported_module_halved_after_decompositions() -> None:
    _fresh()
    program = _export(_Mlp(), torch.randn(2, 8)).run_decompositions()
    served = program.module().half()  # halved for serving after export
    served(torch.randn(2, 8))


class _KvCacheAttention(nn.Module):
    """A decoder attention layer with a static KV cache that is set up after the model is cast."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def setup_cache(self, batch: int, length: int) -> None:
        self.register_buffer("k_cache", torch.zeros(batch, self.heads, length, 8), persistent=False)
        self.register_buffer("v_cache", torch.zeros(batch, self.heads, length, 8), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = (y.view(b, t, self.heads, 8).transpose(1, 2) for y in self.qkv(x).chunk(3, dim=-1))
        k = torch.cat([self.k_cache, k], dim=2)
        v = torch.cat([self.v_cache, v], dim=2)
        return F.scaled_dot_product_attention(q, k, v)


def _export_kv_cache_zeros_fp32() -> None:
    _fresh()
    model = _KvCacheAttention().to(bf16)
    model.setup_cache(1, 4)
    _export(model, torch.randn(1, 3, 16).to(bf16))


class _PositionalLm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(50, 8), nn.Embedding(16, 8)

    def forward(self, ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        position_ids = attention_mask.cumsum(-1) - 1  # left-padding aware positions
        return self.tok(ids) + self.pos(position_ids.clamp(min=0))


def _export_position_ids_from_bf16_mask() -> None:
    _fresh()
    model = _PositionalLm().to(bf16)
    ids = torch.randint(0, 50, (2, 6))
    mask = torch.ones(2, 6).to(bf16)  # the collator casts every float tensor to the model dtype
    _export(model, ids, mask)


class _GruTagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gru, self.out = nn.GRU(8, 8, batch_first=True), nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.gru(x)[0])


def _export_bf16_gru_fp32_example() -> None:
    _fresh()
    _export(_GruTagger().to(bf16), torch.randn(2, 5, 8))


def _export_bf16_cnn_uint8_example() -> None:
    _fresh()
    model = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.ReLU(), nn.Flatten(), nn.Linear(144, 2))
    images = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8)  # a batch straight from the image decoder
    _export(model.to(bf16).requires_grad_(False), images).module()(images)


class _Int8WeightOnlyLinear(nn.Module):
    """Weight-only int8 linear for serving: int8 weight, per-channel scales kept in fp32 from calibration."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        w = linear.weight.detach().float()
        scales = w.abs().amax(1) / 127
        self.register_buffer("w_int8", torch.round(w / scales[:, None]).to(torch.int8))
        self.register_buffer("scales", scales)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten._weight_int8pack_mm(x, self.w_int8, self.scales)


def _export_int8_weight_only_fp32_scales() -> None:
    _fresh()
    x = torch.randn(2, 8).to(bf16)
    _export(_Int8WeightOnlyLinear(nn.Linear(8, 4)), x).module()(x)


class _MaskedFillScores(nn.Module):
    def forward(self, scores: torch.Tensor, causal: torch.Tensor) -> torch.Tensor:
        return scores.masked_fill(causal, -1e9).softmax(-1)


def _export_fp16_scores_minus_1e9() -> None:
    _fresh()
    causal = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)
    program = _export(_MaskedFillScores(), torch.randn(1, 4, 4).half(), causal)
    program.module()(torch.randn(1, 4, 4).half(), causal)


# --- compiled attention and positional code -----------------------------------------------------------------------


def _rope(x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(pairs * freqs).flatten(-2)  # the reference's .type_as(x) dropped


def _compiled_rope_missing_type_as() -> None:
    _fresh()
    proj = nn.Linear(16, 48).to(bf16)

    def attend(x: torch.Tensor) -> torch.Tensor:
        q, k, v = (y.view(1, 4, 2, 8).transpose(1, 2) for y in proj(x).chunk(3, dim=-1))
        angles = torch.outer(torch.arange(4.0), 1.0 / 10000 ** (torch.arange(0, 8, 2) / 8))
        freqs = torch.polar(torch.ones_like(angles), angles)
        return F.scaled_dot_product_attention(_rope(q, freqs), _rope(k, freqs), v, is_causal=True)

    _eager(attend)(torch.randn(1, 4, 16).to(bf16))


def _compiled_t5_baddbmm_position_bias() -> None:
    _fresh()
    rel = nn.Embedding(8, 2)  # relative position buckets, kept fp32 "for precision"
    proj = nn.Linear(16, 32).to(bf16)

    def scores(x: torch.Tensor) -> torch.Tensor:
        q, k = proj(x).view(2, 4, 16).chunk(2, dim=-1)
        buckets = (torch.arange(4)[None] - torch.arange(4)[:, None]).clamp(-4, 3) + 4
        bias = rel(buckets).permute(2, 0, 1)
        return torch.baddbmm(bias, q, k.transpose(1, 2)).softmax(-1)

    _eager(scores)(torch.randn(1, 4, 16).to(bf16))


def _compiled_where_float_valid_mask() -> None:
    _fresh()
    head = nn.Linear(8, 5).to(bf16)

    def logits(x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        return torch.where(valid, head(x), -1e4)

    _eager(logits)(torch.randn(3, 8).to(bf16), torch.tensor([[1.0, 1, 1, 0, 0]]).expand(3, 5))


# --- control flow: torch.cond and map --------------------------------------------------------------------------------


def _map_over_chunks_fp32_weight() -> None:
    _fresh()
    weight = torch.randn(8, 8)  # the adapter's weight, created with torch.randn after the model was cast

    def body(chunk: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return chunk @ w

    def forward(chunks: torch.Tensor) -> torch.Tensor:
        return control_map(body, chunks, weight)

    _eager(forward)(torch.randn(3, 2, 8).to(bf16))


def _cond_fallback_head_fp32() -> None:
    _fresh()
    proj = nn.Linear(8, 8).to(bf16)
    fallback = nn.Linear(8, 8)  # an outlier-safe head added after the model was cast, left fp32

    def forward(x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.abs().max() > 2, lambda y: fallback(y).to(y.dtype), lambda y: proj(y), (x,))

    _eager(forward)(torch.randn(2, 8).to(bf16) * 4)


# --- graph breaks around .item() and numpy ------------------------------------------------------------------------


def _moe_capacity_item_zeros_buffer() -> None:
    _fresh()
    gate, expert = nn.Linear(8, 2).to(bf16), nn.Linear(8, 8).to(bf16)

    def dispatch(x: torch.Tensor) -> torch.Tensor:
        choice = gate(x).argmax(-1)
        capacity = int(torch.bincount(choice, minlength=2).max().item())  # graph break
        slot = (F.one_hot(choice, 2).cumsum(0) - 1).gather(1, choice[:, None]).squeeze(1)
        buffer = torch.zeros(2, capacity, 8)
        buffer[choice, slot] = x
        return expert(buffer.to(x.dtype))

    _eager(dispatch)(torch.randn(6, 8).to(bf16))


def _compiled_stft_frontend_numpy_window() -> None:
    _fresh()
    conv = nn.Conv1d(1, 4, 16, stride=8, bias=False).to(bf16)

    def frontend(audio: torch.Tensor) -> torch.Tensor:
        frames = audio.unfold(-1, 16, 16)
        window = torch.from_numpy(np.hanning(16))  # float64, numpy's default
        return conv((frames * window).flatten(-2))

    _eager(frontend)(torch.randn(1, 1, 64).to(bf16))


def _token_counter_bf16_mask() -> None:
    _fresh()
    seen = torch.zeros((), dtype=torch.long)  # a running token counter kept as an integer buffer

    def count(mask: torch.Tensor) -> torch.Tensor:
        seen.add_(mask.sum())
        return seen

    _eager(count)(torch.ones(2, 6).to(bf16))


# --- compiled optimizer-side updates ------------------------------------------------------------------------------


def _compiled_shampoo_eigh_bf16() -> None:
    _fresh()
    weight = nn.Parameter(torch.randn(4, 4).to(bf16))
    weight.grad = torch.randn(4, 4).to(bf16)

    def precondition() -> torch.Tensor:
        g = weight.grad
        stat = g @ g.T + 1e-4 * torch.eye(4, dtype=g.dtype)
        vals, vecs = torch.linalg.eigh(stat)
        return vecs @ torch.diag(vals.clamp(min=1e-6) ** -0.25) @ vecs.T @ g

    _eager(precondition)()


def _compiled_ema_shadow_lerp_bf16_params() -> None:
    _fresh()
    model = nn.Linear(8, 8).to(bf16)
    shadow = [p.detach().float().clone() for p in model.parameters()]  # fp32 EMA shadow weights

    def update(decay: float) -> None:
        with torch.no_grad():
            for s, p in zip(shadow, model.parameters()):
                s.lerp_(p, 1 - decay)

    _eager(update)(0.999)


class _Fp8StoredLinear(nn.Module):
    """An fp8-stored linear for serving: e4m3 weight, per-channel scale, dequantized to the activations' dtype."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        w = linear.weight.detach()
        self.scale = nn.Parameter(w.abs().amax(1, keepdim=True) / 448, requires_grad=False)
        self.weight = nn.Parameter((w / self.scale).to(E4M3), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight.to(x.dtype) * self.scale)


def _export_fp8_model_scales_cast_too() -> None:
    _fresh()
    model = _Fp8StoredLinear(nn.Linear(8, 4))
    model.scale.data = model.scale.data.to(E4M3)  # "store everything in fp8" pass over the module's parameters
    x = torch.randn(2, 8).to(bf16)
    _export(model, x).module()(x)


class _UnetUp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 4, 2, stride=2, bias=False)
        self.fuse = nn.Conv2d(8, 4, 3, padding=1, bias=False)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        return self.fuse(torch.cat([self.up(x), skip], dim=1))


def _compiled_unet_frozen_fp32_encoder_skip() -> None:
    _fresh()
    encoder = nn.Conv2d(3, 4, 3, padding=1, bias=False).requires_grad_(False)  # frozen encoder kept fp32
    decoder = _UnetUp().to(bf16)

    def forward(image: torch.Tensor, low: torch.Tensor) -> torch.Tensor:
        return decoder(low, encoder(image))

    _aot(forward)(torch.randn(1, 3, 8, 8), torch.randn(1, 4, 4, 4).to(bf16))


CASES: dict[str, LiveCase] = {
    # --- autocast regions inside compiled training steps
    # a compiled step under bf16 autocast whose classifier head sits in an autocast(enabled=False) block: bf16 features
    # meet the head's fp32 weight
    "autocast-disabled-head-bf16-features": case(_autocast_disabled_head, "matmul_dtype", "bf16", "f32",
                                                 grade="correct", grade_at_freeze="correct"),
    # a compiled VQ-VAE forward under bf16 autocast updates its fp32 codebook sums with index_add_ of the bf16 encoder
    # output
    "vq-ema-index-add-autocast-output": case(_vq_ema_index_add_autocast, "indexed_write_dtype", "f32", "bf16",
                                             grade="correct", grade_at_freeze="correct"),
    # compiled EmbeddingBag under bf16 autocast with learned per-item weights from a Linear (bf16) on an fp32 table
    "embedding-bag-autocast-per-sample-weights": case(_embedding_bag_autocast_weights, "op_dtype", "bf16", "f32",
                                                      grade="correct", grade_at_freeze="correct"),
    # a compiled step casting every tensor of the batch dict to the model's bf16, class labels included, for nll_loss
    "batch-dict-cast-labels-nll": case(_batch_dict_cast_labels, "target_dtype", "bf16", fix=("long",), grade="correct",
                                       grade_at_freeze="correct"),
    # a compiled optical-flow warp on bf16 frames with the sampling grid built from torch.linspace (fp32)
    "flow-warp-linspace-grid-fp32": case(_flow_warp_linspace_grid, "op_dtype", "bf16", "f32", grade="correct",
                                         grade_at_freeze="correct"),
    # --- AOTAutograd's joint trace
    # a compiled fp8 straight-through fake-quant whose backward quantizes the gradient to e5m2 and divides by an fp32
    # scale
    "fp8-ste-backward-e5m2-grad-fp32-scale": case(_fp8_ste_backward_e5m2_grad, "fp8_promotion", "float8_e5m2", "f32",
                                                  grade="correct", grade_at_freeze="correct"),
    # --- custom ops and fake kernels
    # a numpy-backed top-1 router custom op whose fake kernel keeps the bf16 scores' dtype instead of int64: gather in
    # the compiled graph gets bf16 expert ids
    "router-custom-op-fake-bf16-ids": case(_router_fake_kernel_bf16_ids, "index_tensor_dtype", "bf16", grade="correct",
                                           grade_at_freeze="correct"),
    # --- torch.export and run_decompositions
    # run_decompositions of a bf16 MLP with a custom GELU decomposition that upcasts to fp32 and never casts back
    "run-decompositions-gelu-upcast-fp32": case(_run_decompositions_gelu_upcast, "matmul_dtype", "f32", "bf16",
                                                grade="correct", grade_at_freeze="correct"),
    # run_decompositions of an fp16 conv block with a reference SiLU decomposition computed in float64
    "run-decompositions-silu-f64-conv": case(_run_decompositions_silu_f64, "conv_weight_dtype", "f64", "f16",
                                             grade="correct", grade_at_freeze="correct"),
    # an fp32 exported program decomposed, its module halved for serving, fed the fp32 request
    "exported-module-halved-fp32-request": case(_exported_module_halved_after_decompositions, "matmul_dtype", "f32",
                                                "f16", grade="correct", grade_at_freeze="correct"),
    # export of a bf16 attention layer whose static KV cache is set up with torch.zeros after the cast
    "export-kv-cache-zeros-fp32": case(_export_kv_cache_zeros_fp32, "sdpa_dtype", "bf16", "f32", grade="correct",
                                       grade_at_freeze="correct"),
    # export of a bf16 LM whose position ids come from the cumsum of a bf16-cast attention mask
    "export-position-ids-bf16-mask-cumsum": case(_export_position_ids_from_bf16_mask, "index_tensor_dtype", "bf16",
                                                 fix=("long",), grade="correct", grade_at_freeze="correct"),
    # export of a bf16 GRU tagger traced with an fp32 example input
    "export-bf16-gru-fp32-example": case(_export_bf16_gru_fp32_example, "rnn_dtype", "f32", "bf16", grade="correct",
                                         grade_at_freeze="correct"),
    # export of a bf16 CNN with a uint8 image batch as the example input
    "export-bf16-cnn-uint8-example": case(_export_bf16_cnn_uint8_example, "integer_operand", "uint8", "bf16",
                                          grade="correct", grade_at_freeze="correct"),
    # an exported int8 weight-only linear (aten._weight_int8pack_mm) run on bf16 activations, its calibration scales
    # left fp32
    "export-int8-weight-only-fp32-scales": case(_export_int8_weight_only_fp32_scales, "matmul_dtype", "bf16", "f32",
                                                grade="correct", grade_at_freeze="wrong",
        why="At freeze (ab1286f) castwise gave scalar_type [bf16, f32] (low confidence). The message "
            "(\"expected scalar type BFloat16 but found Float\") does not name the op, which appears only in the "
            "exported graph module's generated code as aten._weight_int8pack_mm, so the int8 weight-only matmul and "
            "its fp32 scales were not read."),
    # an exported fp16 attention-score masking with -1e9, run with fp16 scores
    "exported-fp16-scores-minus-1e9": case(_export_fp16_scores_minus_1e9, "half_overflow", "f16", grade="correct",
                                           grade_at_freeze="correct"),
    # --- compiled attention and positional code
    # compiled RoPE through complex numbers without the final .type_as(x): fp32 q and k with the bf16 v
    "compiled-rope-missing-type-as": case(_compiled_rope_missing_type_as, "sdpa_dtype", "f32", "bf16", grade="correct",
                                          grade_at_freeze="correct"),
    # a compiled T5 attention adding an fp32 relative position bias with baddbmm to bf16 q @ k^T
    "compiled-t5-baddbmm-fp32-position-bias": case(_compiled_t5_baddbmm_position_bias, "batched_matmul_dtype", "f32",
                                                   "bf16", grade="correct", grade_at_freeze="wrong",
        why="At freeze (ab1286f) castwise gave scalar_type [f32, bf16] (low confidence). Under dynamo the error is "
            "baddbmm's meta check (\"Input dtypes must be the same, got: input: torch.float32, batch1: torch.bfloat16, "
            "...\") wrapped in a fake-tensor error, a wording other than the eager kernel's, and it was not read as "
            "baddbmm's bias against its batches."),
    # a compiled head masking invalid classes with torch.where on a float 0/1 validity mask
    "compiled-where-float-valid-mask": case(_compiled_where_float_valid_mask, "mask_dtype", "f32", fix=("bool",),
                                            grade="correct", grade_at_freeze="correct"),
    # --- control flow
    # a map over bf16 chunks whose body multiplies by an fp32 weight created with torch.randn after the cast
    "map-over-chunks-fp32-weight": case(_map_over_chunks_fp32_weight, "matmul_dtype", "bf16", "f32", grade="correct",
                                        grade_at_freeze="correct"),
    # a torch.cond taking an fp32 fallback head (added after the cast) for bf16 activations with outliers, its output
    # cast back so the branches agree
    "cond-fallback-head-fp32": case(_cond_fallback_head_fp32, "matmul_dtype", "bf16", "f32", grade="correct",
                                    grade_at_freeze="correct"),
    # --- graph breaks around .item() and numpy
    # an MoE dispatch with a graph break at .item() for the capacity, scattering bf16 tokens into torch.zeros (fp32)
    "moe-capacity-item-zeros-buffer": case(_moe_capacity_item_zeros_buffer, "indexed_write_dtype", "f32", "bf16",
                                           grade="correct", grade_at_freeze="correct"),
    # a compiled audio front end windowing bf16 frames with np.hanning (float64) before a bf16 conv
    "compiled-frontend-numpy-hanning-f64": case(_compiled_stft_frontend_numpy_window, "conv_weight_dtype", "f64",
                                                "bf16", grade="correct", grade_at_freeze="correct"),
    # a compiled integer token counter incremented in place with the sum of a bf16 attention mask
    "compiled-token-counter-bf16-mask-sum": case(_token_counter_bf16_mask, "result_cast", "bf16", "int64",
                                                 grade="correct", grade_at_freeze="partly",
        why="At freeze (ab1286f) castwise gave result_cast [int64] (high confidence). The fake-tensor check's own "
            "wording (\"Promotion of int.add/sub_(float) in in-place ops ...\") names no dtype; the bf16 of the added "
            "sum shows only in the FakeTensor arguments dynamo prints, which were read for the int64 counter but not "
            "for the bf16."),
    # --- compiled optimizer-side updates
    # a compiled Shampoo-style preconditioner taking eigh of a bf16 gradient statistic
    "compiled-shampoo-eigh-bf16": case(_compiled_shampoo_eigh_bf16, "no_kernel", "bf16", grade="correct",
                                       grade_at_freeze="correct"),
    # a compiled EMA update lerping fp32 shadow weights toward the bf16 model's parameters
    "compiled-ema-shadow-lerp-bf16-params": case(_compiled_ema_shadow_lerp_bf16_params, "lerp_dtype", "f32", "bf16",
                                                 grade="correct", grade_at_freeze="correct"),
    # --- more exports and compiled decoders
    # export of an fp8-stored linear after a pass cast every parameter to fp8, its dequantization scale too
    "export-fp8-model-scales-cast-too": case(_export_fp8_model_scales_cast_too, "fp8_promotion", "bf16",
                                             "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # a compiled U-Net decoder in bf16 concatenating the skip features of a frozen fp32 encoder
    "compiled-unet-frozen-fp32-encoder-skip": case(_compiled_unet_frozen_fp32_encoder_skip, "conv_weight_dtype", "f32",
                                                   "bf16", grade="correct", grade_at_freeze="correct"),
}
