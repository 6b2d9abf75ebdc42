"""Held-out live set 22: models, losses and optimizer steps run under torch.compile (and torch.export) in low precision
on the CPU, where the dtype error surfaces through dynamo's fake-tensor tracing, AOTAutograd, a backend, a higher-order
op (cond, while_loop, scan) or the compiled graph's own run: compiled training steps, fullgraph and dynamic shapes,
compiled losses and optimizer steps, autocast around compiled code, buffers built in forward, numpy inside compiled
code, custom autograd Functions and backends, FlexAttention block masks and exported programs. Each action uses the
eager or aot_eager backend and starts from torch._dynamo.reset(). Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at 8696f3d."""

from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop
from torch.nn.attention.flex_attention import create_block_mask

from .live_cases import LiveCase, case

FROZEN_AT = "8696f3d"

bf16, f16 = torch.bfloat16, torch.float16


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _fresh() -> None:
    """Each case compiles from scratch: no graph, guard or cache left by another case."""
    torch._dynamo.reset()


# --- numpy inside compiled code ---------------------------------------------------------------------------------------


class _FavorAttention(nn.Module):
    """Performer (FAVOR+) attention whose orthogonal random features are redrawn with numpy in forward."""

    def __init__(self, dim: int = 16, features: int = 16) -> None:
        super().__init__()
        self.dim, self.features = dim, features
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        gaussian = np.random.default_rng(0).standard_normal((self.dim, self.features))
        projection = torch.from_numpy(np.linalg.qr(gaussian)[0])  # float64, as numpy computes it
        q_prime = torch.exp(q @ projection - q.square().sum(-1, keepdim=True) / 2)
        k_prime = torch.exp(k @ projection - k.square().sum(-1, keepdim=True) / 2)
        context = k_prime.transpose(-2, -1) @ v
        return self.out(q_prime @ context / (q_prime @ k_prime.sum(-2, keepdim=True).transpose(-2, -1)))


def _performer_numpy_features() -> None:
    _fresh()
    attention = torch.compile(_FavorAttention().to(bf16), backend="eager")
    attention(torch.randn(2, 6, 16, generator=_generator()).to(bf16))


@torch.compiler.disable
def _greedy_match(cost: torch.Tensor) -> tuple[list[int], list[int]]:
    """A Hungarian-style matcher kept out of the graph: it works on numpy."""
    remaining = cost.detach().cpu().numpy().copy()
    rows, cols = [], []
    for _ in range(min(remaining.shape)):
        row, col = np.unravel_index(np.argmin(remaining), remaining.shape)
        rows.append(int(row))
        cols.append(int(col))
        remaining[row, :] = np.inf
        remaining[:, col] = np.inf
    return rows, cols


def _detr_matcher_numpy_bf16() -> None:
    _fresh()
    class_head = nn.Linear(16, 6).to(bf16)
    box_head = nn.Linear(16, 4).to(bf16)

    @torch.compile(backend="eager")
    def detr_loss(queries: torch.Tensor, labels: torch.Tensor, boxes: torch.Tensor) -> torch.Tensor:
        logits, predicted = class_head(queries), box_head(queries).sigmoid()
        cost = -logits.softmax(-1)[:, labels] + (predicted[:, None] - boxes[None].to(predicted.dtype)).abs().sum(-1)
        rows, cols = _greedy_match(cost)
        return F.cross_entropy(logits[rows].float(), labels[cols]) + F.l1_loss(predicted[rows].float(), boxes[cols])

    detr_loss(torch.randn(8, 16, generator=_generator()).to(bf16), torch.tensor([1, 3]), torch.rand(2, 4))


def _autoclip_percentile_bf16() -> None:
    _fresh()
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 1)).to(bf16)
    model(torch.randn(4, 8, generator=_generator()).to(bf16)).square().mean().backward()
    history = torch.stack([p.grad.norm() for p in model.parameters()])  # the gradient norms seen so far, bf16

    @torch.compile(backend="eager")
    def autoclip_threshold(history: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(np.percentile(history.numpy(), 10))  # AutoClip: the 10th percentile of past norms

    autoclip_threshold(history)


# --- buffers and kernels built in forward ----------------------------------------------------------------------------


class _RepVGGBlock(nn.Module):
    """RepVGG reparameterised on the fly: one 3x3 conv from the 3x3, 1x1 and identity branches."""

    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.conv3 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.conv1 = nn.Conv2d(channels, channels, 1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        channels = self.conv3.out_channels
        identity = F.pad(torch.eye(channels)[:, :, None, None], [1, 1, 1, 1])
        kernel = self.conv3.weight + F.pad(self.conv1.weight, [1, 1, 1, 1]) + identity
        return F.relu(F.conv2d(x, kernel, padding=1))


def _repvgg_identity_kernel() -> None:
    _fresh()
    block = torch.compile(_RepVGGBlock().to(bf16).eval(), backend="eager", fullgraph=True)
    with torch.no_grad():
        block(torch.randn(1, 4, 8, 8, generator=_generator()).to(bf16))


class _CausalSelfAttention(nn.Module):
    """nanoGPT's attention with the causal mask built in forward so every length compiles to one graph."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, dim = x.shape
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in self.c_attn(x).split(dim, dim=2))
        scores = q @ k.transpose(-2, -1) / (k.shape[-1] ** 0.5)
        future = torch.triu(torch.ones(length, length), diagonal=1)
        weights = scores.masked_fill(future, float("-inf")).softmax(-1)
        return self.c_proj((weights @ v).transpose(1, 2).reshape(batch, length, dim))


def _causal_mask_triu_ones_dynamic() -> None:
    _fresh()
    attention = torch.compile(_CausalSelfAttention().to(bf16), backend="eager", dynamic=True)
    attention(torch.randn(2, 7, 16, generator=_generator()).to(bf16))


def _repad_after_varlen_attention() -> None:
    _fresh()
    attention_mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]])
    indices = attention_mask.flatten().nonzero().flatten()  # computed once per batch, as unpad_input does
    hidden = torch.randn(int(attention_mask.sum()), 16, generator=_generator()).to(bf16)  # varlen attention output

    @torch.compile(backend="eager", dynamic=True)
    def pad_input(hidden: torch.Tensor, indices: torch.Tensor, batch: int, length: int) -> torch.Tensor:
        output = torch.zeros(batch * length, hidden.shape[-1])
        output[indices] = hidden
        return output.view(batch, length, -1)

    pad_input(hidden, indices, 2, 6)


# --- compiled losses ------------------------------------------------------------------------------------------------


def _binned_age_floor_labels() -> None:
    _fresh()
    head = nn.Linear(16, 10).to(bf16)  # ten 10-year age bins

    @torch.compile(backend="eager")
    def age_loss(features: torch.Tensor, ages: torch.Tensor) -> torch.Tensor:
        labels = (ages / 10).floor().clamp(max=9)  # the bin of each age
        return F.cross_entropy(head(features).float(), labels)

    age_loss(torch.randn(4, 16, generator=_generator()).to(bf16), torch.tensor([23.0, 41.0, 67.0, 8.0]))


def _tobit_survival_log_ndtr_bf16() -> None:
    _fresh()
    head = nn.Linear(8, 2).to(bf16)  # mean and log-scale of the log survival time

    @torch.compile(backend="eager")
    def censored_nll(x: torch.Tensor, log_time: torch.Tensor, censored: torch.Tensor) -> torch.Tensor:
        mean, log_scale = head(x).unbind(-1)
        z = (log_time.to(mean.dtype) - mean) / log_scale.exp()
        observed = -log_scale - 0.5 * z.square()
        still_alive = torch.special.log_ndtr(-z)
        return -torch.where(censored, still_alive, observed).mean()

    censored_nll(torch.randn(4, 8, generator=_generator()).to(bf16), torch.rand(4, generator=_generator()),
                 torch.tensor([False, True, False, True]))


def _compiled_fp16_cosine_anomaly() -> None:
    _fresh()
    projection = nn.Linear(16, 8, bias=False)  # a last layer initialised near zero, as some recipes do
    nn.init.normal_(projection.weight, std=1e-6, generator=_generator())
    projection.half()

    @torch.compile(backend="aot_eager")
    def alignment_loss(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        za, zb = projection(a), projection(b)
        za = za / za.pow(2).sum(-1, keepdim=True).sqrt()
        zb = zb / zb.pow(2).sum(-1, keepdim=True).sqrt()
        return -(za * zb).sum(-1).mean()

    views = torch.randn(2, 4, 16, generator=_generator()).half()
    with torch.autograd.detect_anomaly():
        alignment_loss(views[0], views[1]).backward()


# --- autocast around compiled code, eager-only branches ---------------------------------------------------------------


def _cond_optional_projection_under_autocast() -> None:
    _fresh()
    projection = nn.Linear(16, 16)  # maps the new encoder's features into the old feature space

    @torch.compile(backend="eager", fullgraph=True)
    def align(features: torch.Tensor, from_new_encoder: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=bf16):
            return torch.cond(from_new_encoder, lambda h: projection(h), lambda h: h.clone(), (features,))

    align(torch.randn(4, 16, generator=_generator()), torch.tensor(True))


def _autocast_fp16_recipe_bf16_decoder() -> None:
    _fresh()
    decoder = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU(),
                            nn.Conv2d(8, 3, 3, padding=1)).to(bf16)  # weights as the bf16 checkpoint stores them
    compiled = torch.compile(decoder, backend="eager")
    with torch.no_grad(), torch.autocast("cpu", dtype=f16):
        compiled(torch.randn(1, 4, 8, 8, generator=_generator()))


class _SensorEncoder(nn.Module):
    """Validates and casts its input in eager only: the data-dependent check would break the graph."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(12)
        self.proj = nn.Linear(12, 8)

    def _validated(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.isfinite(x).all():
            raise ValueError("non-finite sensor reading")
        return x.to(self.norm.weight.dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.compiler.is_compiling():
            x = self._validated(x)
        return self.proj(self.norm(x))


def _is_compiling_branch_skips_cast() -> None:
    _fresh()
    encoder = torch.compile(_SensorEncoder().to(bf16), backend="eager")
    encoder(torch.randn(4, 12, generator=_generator()))


# --- higher-order ops: cond, while_loop, scan -------------------------------------------------------------------------


def _cond_skip_nonfinite_loss() -> None:
    _fresh()
    model = nn.Linear(8, 1).to(bf16)

    @torch.compile(backend="eager", fullgraph=True)
    def guarded_loss(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        loss = F.mse_loss(model(x).squeeze(-1), y)
        return torch.cond(torch.isfinite(loss), lambda t: t.clone(), lambda t: torch.zeros(()), (loss,))

    guarded_loss(torch.randn(4, 8, generator=_generator()).to(bf16), torch.randn(4, generator=_generator()).to(bf16))


def _newton_schulz_body(step: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    a, b, c = 3.4445, -4.7750, 2.0315
    x32 = x.float()  # iterate in fp32 for accuracy
    gram = x32 @ x32.T
    return step + 1, a * x32 + (b * gram + c * gram @ gram) @ x32


def _muon_newton_schulz_while_loop() -> None:
    _fresh()

    @torch.compile(backend="eager", fullgraph=True)
    def orthogonalize(momentum: torch.Tensor) -> torch.Tensor:
        x = momentum / (momentum.norm() + 1e-7)
        _, x = while_loop(lambda step, x: step < 5, _newton_schulz_body, (torch.tensor(0), x))
        return x

    orthogonalize(torch.randn(8, 16, generator=_generator()).to(bf16))  # a bf16 weight's momentum


def _lru_scan_fp32_decay() -> None:
    _fresh()
    log_decay = nn.Parameter(torch.randn(8, generator=_generator()))  # recurrence parameters kept in fp32

    def recurrence(state: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        state = torch.exp(-log_decay.exp()) * state + x
        return state, state.clone()

    @torch.compile(backend="eager", fullgraph=True)
    def run(xs: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return scan(recurrence, state, xs)

    run(torch.randn(6, 8, generator=_generator()).to(bf16), torch.zeros(8, dtype=bf16))


# --- compiled optimizer steps and gradient handling ------------------------------------------------------------------


def _lion_step_fp32_momentum() -> None:
    _fresh()
    model = nn.Linear(8, 8).to(bf16)
    model(torch.randn(4, 8, generator=_generator()).to(bf16)).square().mean().backward()
    params = list(model.parameters())
    momenta = [torch.zeros_like(p, dtype=torch.float32) for p in params]  # momentum in fp32 "for stability"

    @torch.compile(backend="eager", fullgraph=True)
    def lion_step(params: list[torch.Tensor], momenta: list[torch.Tensor]) -> None:
        for p, m in zip(params, momenta):
            update = m.lerp(p.grad, 0.1).sign_()
            p.mul_(1 - 1e-4 * 0.1).add_(update, alpha=-1e-4)
            m.lerp_(p.grad, 0.01)

    with torch.no_grad():
        lion_step(params, momenta)


def _pcgrad_dot_mixed_task_grads() -> None:
    _fresh()
    model = nn.Linear(8, 4).to(bf16)
    x = torch.randn(6, 8, generator=_generator()).to(bf16)
    accumulated = torch.zeros(sum(p.numel() for p in model.parameters()))  # task A summed over micro-batches in fp32
    for chunk in x.chunk(2):
        model.zero_grad()
        model(chunk)[:, :2].square().mean().backward()
        accumulated += torch.cat([p.grad.flatten() for p in model.parameters()]).float()
    model.zero_grad()
    model(x)[:, 2:].abs().mean().backward()
    task_b = torch.cat([p.grad.flatten() for p in model.parameters()])  # task B read from .grad, bf16

    @torch.compile(backend="eager", fullgraph=True)
    def project_conflicting(g_a: torch.Tensor, g_b: torch.Tensor) -> torch.Tensor:
        dot = torch.dot(g_a, g_b)
        return torch.where(dot < 0, g_a - dot / g_b.square().sum() * g_b, g_a)

    project_conflicting(accumulated, task_b)


def _int64_loss_scale_tensor() -> None:
    _fresh()
    model = nn.Linear(8, 4).half()
    scale = torch.tensor(2**16)  # a tensor so that changing it does not recompile the step
    (model(torch.randn(4, 8, generator=_generator()).half() * 300).square().sum() * scale.half()).backward()

    @torch.compile(backend="eager")
    def update_scale(scale: torch.Tensor, grads: list[torch.Tensor]) -> None:
        found_inf = ~torch.stack([torch.isfinite(g).all() for g in grads]).all()
        scale.mul_(torch.where(found_inf, 0.5, 1.0))

    update_scale(scale, [p.grad for p in model.parameters()])


def _kl_annealing_weight_int64() -> None:
    _fresh()
    encoder = nn.Linear(16, 8).to(bf16)  # mean and log-variance of a 4-d latent
    kl_weight = torch.tensor(0)  # a tensor so that annealing it does not recompile the step

    @torch.compile(backend="eager")
    def kl_term(x: torch.Tensor, kl_weight: torch.Tensor) -> torch.Tensor:
        mean, log_var = encoder(x).chunk(2, dim=-1)
        kl = -0.5 * (1 + log_var - mean.square() - log_var.exp()).sum(-1).mean()
        kl_weight.add_(1 / 1000)  # linear warm-up over 1000 steps
        return kl_weight * kl

    kl_term(torch.randn(4, 16, generator=_generator()).to(bf16), kl_weight)


def _activation_grad_clip_hook() -> None:
    _fresh()
    block = nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 8)).to(bf16)

    def clip_rows(grad: torch.Tensor) -> torch.Tensor:  # per-token gradient clipping, the norm taken in fp32
        return grad * (1.0 / grad.float().norm(dim=-1, keepdim=True).clamp(min=1.0))

    @torch.compile(backend="aot_eager")
    def step(x: torch.Tensor) -> torch.Tensor:
        hidden = block(x)
        hidden.register_hook(clip_rows)
        return hidden.square().mean()

    step(torch.randn(4, 8, generator=_generator()).to(bf16)).backward()


def _dp_sgd_noise_default_dtype() -> None:
    _fresh()
    model = nn.Linear(8, 2).to(bf16)
    F.cross_entropy(model(torch.randn(4, 8, generator=_generator()).to(bf16)).float(),
                    torch.tensor([0, 1, 1, 0])).backward()

    @torch.compile(backend="eager")
    def privatize(params: list[nn.Parameter], noise_multiplier: float, max_norm: float) -> None:
        for p in params:
            p.grad = p.grad + torch.normal(0.0, noise_multiplier * max_norm, size=p.shape)

    privatize(list(model.parameters()), 1.1, 1.0)


class _GroupedExpertMatmul(torch.autograd.Function):
    """Experts' GEMM in bf16 with the fp32 master weights cast in forward only."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, tokens: torch.Tensor,
                master: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(tokens, master)
        return torch.bmm(tokens, master.to(tokens.dtype))

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx,
                 grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        tokens, master = ctx.saved_tensors  # type: ignore[attr-defined]
        return torch.bmm(grad_out, master.transpose(1, 2)), torch.bmm(tokens.transpose(1, 2), grad_out).float()


def _moe_custom_function_backward() -> None:
    _fresh()
    master = nn.Parameter(torch.randn(2, 8, 16, generator=_generator()))  # fp32 master weights of two experts
    tokens = torch.randn(2, 4, 8, generator=_generator()).to(bf16).requires_grad_()

    @torch.compile(backend="aot_eager")
    def experts(tokens: torch.Tensor) -> torch.Tensor:
        return _GroupedExpertMatmul.apply(tokens, master).square().mean()

    experts(tokens).backward()


# --- backends, dynamic shapes, padding for fewer recompiles ----------------------------------------------------------


def _timing_backend_fp32_batch() -> None:
    _fresh()
    timings: dict[int, float] = {}

    def timed_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> object:
        start = time.perf_counter()
        gm(*example_inputs)  # time each graph once on its example inputs before handing it back
        timings[id(gm)] = time.perf_counter() - start
        return gm.forward

    mlp = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4)).to(bf16)
    torch.compile(mlp, backend=timed_backend)(torch.randn(8, 16, generator=_generator()))


def _bucket_pad_fp16_scores() -> None:
    _fresh()

    @torch.compile(backend="eager")
    def pad_to_bucket(scores: torch.Tensor) -> torch.Tensor:  # keys padded to a multiple of 64: few shapes to compile
        pad = -scores.shape[-1] % 64
        return F.pad(scores, (0, pad), value=-1e9).softmax(-1)

    pad_to_bucket(torch.randn(2, 4, 50, generator=_generator()).half())


def _distance_bias_int_patch_grid() -> None:
    _fresh()

    @torch.compile(backend="eager", dynamic=True)
    def distance_bias(scores: torch.Tensor, grid: int) -> torch.Tensor:
        ys, xs = torch.meshgrid(torch.arange(grid), torch.arange(grid), indexing="ij")
        coords = torch.stack([ys.flatten(), xs.flatten()], dim=-1)
        return scores - 0.5 * torch.cdist(coords, coords)

    distance_bias(torch.randn(1, 2, 9, 9, generator=_generator()).to(bf16), 3)


# --- FlexAttention and torch.export -----------------------------------------------------------------------------------


def _flex_block_mask_int_padding() -> None:
    _fresh()
    attention_mask = torch.tensor([[1] * 100 + [0] * 28])  # the tokenizer's 0/1 padding mask

    def causal_padded(b: torch.Tensor, h: torch.Tensor, q_idx: torch.Tensor, kv_idx: torch.Tensor) -> torch.Tensor:
        return (q_idx >= kv_idx) & attention_mask[b, kv_idx]

    create_block_mask(causal_padded, 1, None, 128, 128, device="cpu")


class _CrossAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)

    def forward(self, x: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        q = self.q(x).unflatten(-1, (self.heads, -1)).transpose(1, 2)
        k, v = self.kv(memory).unflatten(-1, (self.heads, -1)).transpose(1, 2).chunk(2, dim=-1)
        return F.scaled_dot_product_attention(q, k, v)


def _export_cross_attention_fp32_memory() -> None:
    _fresh()
    model = _CrossAttention().to(bf16).eval()
    example = (torch.randn(1, 4, 8).to(bf16), torch.randn(1, 6, 8))  # the encoder memory left at the default dtype
    torch.export.export(model, example)


class _TinyLM(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 8) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(input_ids))


def _export_lm_float_example_ids() -> None:
    _fresh()
    torch.export.export(_TinyLM().to(bf16).eval(), (torch.ones(1, 16),))  # example input copied from a vision export


CASES: dict[str, LiveCase] = {
    # --- numpy inside compiled code
    # Performer attention redrawing its orthogonal random features with numpy in a compiled forward (float64) for bf16 q
    "performer-numpy-random-features-f64": case(_performer_numpy_features, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (8696f3d) castwise gave scalar_type [bf16, f64] (low confidence). The matmul's dtype check surfaced inside dynamo's TorchRuntimeError with the meta kernel's generic 'expected scalar type torch.bfloat16 but found torch.float64' wording, and the op the FX node names (matmul) was not used to place it."),
    # a DETR matcher kept out of the compiled graph with torch.compiler.disable turns the bf16 cost matrix into numpy
    "detr-disabled-matcher-numpy-bf16-cost": case(_detr_matcher_numpy_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # AutoClip's np.percentile over bf16 gradient-norm history in a compiled step: dynamo traces it as torch.quantile
    "autoclip-np-percentile-traced-bf16": case(_autoclip_percentile_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- buffers and kernels built in forward
    # RepVGG reparameterised in a compiled forward: the identity kernel from torch.eye (fp32) promotes the fused kernel
    "repvgg-identity-kernel-fp32": case(_repvgg_identity_kernel, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # nanoGPT attention compiled with dynamic=True, its causal mask built in forward as torch.triu(torch.ones(T, T))
    "causal-mask-triu-ones-dynamic": case(_causal_mask_triu_ones_dynamic, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (8696f3d) castwise gave nothing. Under fake tensors masked_fill's check is the reference implementation's 'expected predicate to be bool, got torch.float32', a wording not read as a mask of the wrong dtype."),
    # re-padding a varlen attention's bf16 output into a torch.zeros (fp32) buffer in a compiled pad_input
    "repad-varlen-output-fp32-zeros": case(_repad_after_varlen_attention, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- compiled losses
    # a compiled age-bin loss whose labels come from (age / 10).floor(): float class indices
    "binned-age-floor-labels": case(_binned_age_floor_labels, "target_dtype", "f32", fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # a compiled censored (Tobit) survival loss calling torch.special.log_ndtr on the bf16 head's z-scores
    "tobit-survival-log-ndtr-bf16": case(_tobit_survival_log_ndtr_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a compiled fp16 alignment loss normalising by hand: the squares of a small head's outputs underflow, NaN in the
    # compiled backward under anomaly mode
    "compiled-fp16-hand-normalize-anomaly": case(_compiled_fp16_cosine_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # --- autocast around compiled code, eager-only branches
    # torch.cond choosing between a projection and a pass-through under bf16 autocast: the Linear branch gives bf16, the
    # pass-through branch the fp32 input
    "cond-optional-projection-under-autocast": case(_cond_optional_projection_under_autocast, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (8696f3d) castwise gave scalar_type [bf16, f32] (low confidence). torch.cond's 'When merging two branches' output ... expected same dtype' check was read only as a generic pair of dtypes, not as two floating dtypes meeting in one op."),
    # a GPU notebook's fp16 autocast around a compiled decoder loaded in bf16: GroupNorm gets fp32 input, bf16 params
    "autocast-fp16-recipe-bf16-decoder": case(_autocast_fp16_recipe_bf16_decoder, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # input validation and cast done only when not torch.compiler.is_compiling(): the compiled bf16 encoder gets fp32
    "is-compiling-branch-skips-cast": case(_is_compiling_branch_skips_cast, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- higher-order ops
    # a compiled non-finite-loss guard with torch.cond whose skip branch returns torch.zeros(()) (fp32) for a bf16 loss
    "cond-skip-nonfinite-loss-zeros": case(_cond_skip_nonfinite_loss, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (8696f3d) castwise gave scalar_type [bf16, f32] (low confidence). torch.cond's 'When merging two branches' output ... expected same dtype' check was read only as a generic pair of dtypes, not as two floating dtypes meeting in one op."),
    # Muon's Newton-Schulz written with while_loop, its body iterating in fp32 on the bf16 momentum it carries
    "muon-newton-schulz-while-loop-fp32": case(_muon_newton_schulz_while_loop, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (8696f3d) castwise gave nothing. while_loop's UncapturedHigherOrderOpError ('Expected body_fn_output and carried_inputs to have same metadata ... differ in dtype') is a wording not recognised at all."),
    # a linear recurrence written with scan for compile: the fp32 decay parameter makes the bf16 carried state fp32
    "lru-scan-fp32-decay-carry": case(_lru_scan_fp32_decay, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (8696f3d) castwise gave nothing. scan's UncapturedHigherOrderOpError ('Expected init and carry to have same metadata ... differ in dtype') is a wording not recognised at all."),
    # --- compiled optimizer steps and gradient handling
    # a compiled Lion step whose momentum was created in fp32 for bf16 parameters: lerp toward the bf16 gradient
    "lion-compiled-step-fp32-momentum": case(_lion_step_fp32_momentum, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (8696f3d) castwise gave scalar_type [f32, bf16] (low confidence). Under fake tensors lerp's check reads 'expected dtype torch.float32 for `end`, but got dtype torch.bfloat16', which was taken as a generic pair of dtypes rather than lerp's end/self mismatch, though the FX node names lerp."),
    # a compiled PCGrad projection: one task's gradient accumulated in fp32, the other read from bf16 .grad, torch.dot
    "pcgrad-dot-fp32-and-bf16-task-grads": case(_pcgrad_dot_mixed_task_grads, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a hand-written loss scale kept as torch.tensor(2**16) (int64) to avoid recompiles, backed off in place by 0.5
    "int64-loss-scale-tensor-backoff": case(_int64_loss_scale_tensor, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a VAE's KL warm-up weight kept as torch.tensor(0) (int64) so the compiled step does not recompile, raised in place
    "kl-annealing-weight-int64-tensor": case(_kl_annealing_weight_int64, "result_cast", "int64",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (8696f3d) castwise gave nothing. The fake-tensor meta's 'Promotion of int.add/sub_(float) in in-place ops are not possible due to element size change' is a different wording from eager's 'result type Float can't be cast to the desired output type Long' and was not recognised."),
    # a per-token gradient-clipping hook registered in a compiled forward returns fp32 gradients for bf16 hidden states
    "activation-grad-clip-hook-fp32": case(_activation_grad_clip_hook, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DP-SGD noise from torch.normal (fp32) added to bf16 gradients and assigned back in a compiled function
    "dp-sgd-noise-default-dtype-grad": case(_dp_sgd_noise_default_dtype, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a compiled MoE custom autograd Function whose backward uses the fp32 master weights with the bf16 grad in bmm
    "moe-custom-function-backward-fp32-master": case(_moe_custom_function_backward, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (8696f3d) castwise gave scalar_type [bf16, f32] (low confidence). The bmm's dtype check surfaced inside dynamo's TorchRuntimeError with the meta kernel's generic 'expected scalar type torch.bfloat16 but found torch.float32' wording, and the op the FX node names (bmm) was not used to place it."),
    # --- backends, dynamic shapes, padding
    # a custom backend timing each graph on its example inputs: a bf16 MLP given an fp32 batch
    "timing-backend-bf16-mlp-fp32-batch": case(_timing_backend_fp32_batch, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 attention scores padded to a 64 bucket with -1e9 so the compiled graph sees few shapes
    "bucket-pad-fp16-minus-1e9": case(_bucket_pad_fp16_scores, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a distance attention bias from an integer arange/meshgrid patch grid given to cdist under dynamic shapes
    "distance-bias-int-patch-grid-cdist": case(_distance_bias_int_patch_grid, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- FlexAttention and torch.export
    # a FlexAttention mask_mod and'ing causality with the tokenizer's int64 padding mask: the block mask is int64
    "flex-block-mask-int64-padding": case(_flex_block_mask_int_padding, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (8696f3d) castwise gave nothing. FlexAttention's create_block_mask raises a bare AssertionError ('mask.dtype must be torch.bool, got torch.int64') whose wording was not recognised."),
    # torch.export of a bf16 cross-attention with the encoder memory example left fp32: SDPA's fake check raises
    "export-cross-attention-fp32-memory": case(_export_cross_attention_fp32_memory, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # torch.export of a bf16 language model with a float example input (torch.ones) for its token ids
    "export-lm-float-example-ids": case(_export_lm_float_example_ids, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
}
