"""Held-out live set 9: what a precision policy (castwise's, Lightning's, Accelerate's, hand-written AMP) leaves
uncovered around the model. Defects planted by a helper who never read the rules, written before castwise ran and
graded once with the rules frozen at e4b0263."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import castwise as cw

from .live_cases import LiveCase, case

FROZEN_AT = "e4b0263"

bf16 = torch.bfloat16


# --- the policy's boundary: submodules, unwrapped weights, hooks and outputs ------------------------------------------


class _Retriever(nn.Module):
    """A small text/image retrieval model: a backbone, a norm and a projection head."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 32))
        self.norm = nn.LayerNorm(32)
        self.head = nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.backbone(x)))


def _backbone_called_directly() -> None:
    model = cw.apply(_Retriever(), "bf16-true")
    images = torch.randn(4, 16)
    with torch.no_grad():
        model(images)
        model.backbone(images)  # pre-projection features for the index: the submodule runs as written


class _TinyLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tok = nn.Embedding(50, 16)
        self.block = nn.Sequential(nn.Linear(16, 16), nn.GELU())
        self.norm = nn.LayerNorm(16)

    def encode(self, ids: torch.Tensor) -> torch.Tensor:
        return self.norm(self.block(self.tok(ids)))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.encode(ids) @ self.tok.weight.T


def _tied_logits_from_unwrapped_embedding() -> None:
    model = cw.apply(_TinyLM(), "bf16-true")
    ids = torch.randint(0, 50, (2, 6))
    hidden = model.encode(ids)  # the policy hands it back in fp32
    hidden[:, -1] @ cw.unwrap(model).tok.weight.T  # next-token logits against the tied (bf16) table


def _feature_hook_to_numpy() -> None:
    model = cw.apply(_Retriever(), "bf16-true")
    captured: list[torch.Tensor] = []
    cw.unwrap(model).backbone.register_forward_hook(lambda module, args, out: captured.append(out.detach()))
    with torch.no_grad():
        model(torch.randn(8, 16))
    np.concatenate([feature.numpy() for feature in captured])  # for t-SNE


def _ridge_readout_with_pinv() -> None:
    model = cw.apply(_Retriever(), "bf16-true")
    x, y = torch.randn(32, 16), torch.randn(32, 1)
    with torch.no_grad():
        features = model.backbone(x.to(bf16))  # cast to the backbone's dtype to call it directly
    torch.linalg.pinv(features) @ y  # closed-form readout


def _spectral_norm_monitor() -> None:
    model = cw.apply(_Retriever(), "bf16-true")
    {name: torch.linalg.matrix_norm(p, ord=2).item() for name, p in model.named_parameters() if p.ndim == 2}


class _PoseHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8 * 3))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features).view(-1, 8, 3)


def _bf16_outputs_into_camera_projection() -> None:
    policy = cw.Policy.parse("bf16-true").replace(output_dtype=bf16)  # bf16 outputs to save memory
    model = cw.apply(_PoseHead(), policy)
    keypoints = model(torch.randn(2, 32))
    intrinsics = torch.tensor([[500.0, 0.0, 64.0], [0.0, 500.0, 64.0], [0.0, 0.0, 1.0]]).expand(2, 3, 3)
    torch.bmm(keypoints, intrinsics.transpose(1, 2))


class _RelativeBias(nn.Module):
    def __init__(self, heads: int = 2, buckets: int = 16) -> None:
        super().__init__()
        self.table = nn.Embedding(buckets, heads)

    def forward(self, length: int) -> torch.Tensor:
        positions = torch.arange(length)
        relative = (positions[None] - positions[:, None]).clamp(-7, 8) + 7
        return self.table(relative).permute(2, 0, 1)


class _BiasedEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rel_bias = _RelativeBias()
        self.qkv = nn.Linear(16, 48)
        self.out = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = (t.unflatten(-1, (2, 8)).transpose(1, 2) for t in self.qkv(x).chunk(3, -1))
        attn = F.scaled_dot_product_attention(q, k, v, attn_mask=self.rel_bias(x.shape[1]))
        return self.out(attn.transpose(1, 2).flatten(2))


def _rerank_head_reuses_relative_bias() -> None:
    model = cw.apply(_BiasedEncoder(), "bf16-true")
    memory = model(torch.randn(1, 6, 16))  # fp32 out
    query = torch.randn(1, 2, 6, 8)
    keys = values = memory.unflatten(-1, (2, 8)).transpose(1, 2)
    F.scaled_dot_product_attention(query, keys, values, attn_mask=model.rel_bias(6))


# --- inputs the policy casts, or does not ---------------------------------------------------------------------------


class _Recommender(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.items = nn.Embedding(100, 8)
        self.score = nn.Linear(8, 1)

    def forward(self, item_ids: torch.Tensor) -> torch.Tensor:
        return self.score(self.items(item_ids))


def _item_ids_from_float_column() -> None:
    model = cw.apply(_Recommender(), "bf16-true")
    item_ids = torch.from_numpy(np.array([3.0, 17.0, 42.0]))  # a pandas column with NaNs is float64
    model(item_ids)


class _GenreClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, genres: torch.Tensor) -> torch.Tensor:
        return self.net(genres)


def _multi_hot_bool_features() -> None:
    model = cw.apply(_GenreClassifier(), "bf16-true")
    genres = torch.zeros(3, 12, dtype=torch.bool)
    genres[0, [1, 4]] = True
    genres[2, 7] = True
    model(genres)


def _bag_of_words_normalised() -> None:
    model = cw.apply(_GenreClassifier(), "bf16-true")
    counts = torch.bincount(torch.tensor([0, 3, 3, 7, 11]), minlength=12)[None].repeat(2, 1)
    model(F.normalize(counts, dim=-1))


class _Tagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tok = nn.Embedding(40, 16)
        self.pos = nn.Embedding(32, 16)
        self.head = nn.Linear(16, 5)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.tok(ids)
        positions = torch.arange(ids.shape[1], dtype=h.dtype, device=h.device)
        return self.head(h + self.pos(positions))


def _positions_in_activation_dtype() -> None:
    model = cw.apply(_Tagger(), "bf16-true")
    model(torch.randint(0, 40, (2, 7)))


class _SelfLossClassifier(nn.Module):
    """A Hugging Face-style model: passing labels makes it return the loss."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x: torch.Tensor, labels: torch.Tensor | None = None) -> torch.Tensor:
        logits = self.net(x)
        if labels is None:
            return logits
        return F.nll_loss(F.log_softmax(logits.float(), dim=-1), labels)


def _labels_passed_through_wrapped_forward() -> None:
    model = cw.apply(_SelfLossClassifier(), "bf16-true")
    batch = {"x": torch.randn(4, 8), "labels": torch.tensor([0.0, 2.0, 1.0, 1.0])}  # labels from a float csv column
    model(**batch)


def _star_ratings_huber() -> None:
    model = cw.apply(_Recommender(), "bf16-true")
    ratings = torch.tensor([5, 3, 4])
    prediction = model(torch.tensor([3, 17, 42])).squeeze(-1)
    F.huber_loss(prediction, ratings).backward()


# --- layers the policy casts that compute their own way -------------------------------------------------------------


class _Fp32Norm(nn.Module):
    """A norm that always computes in fp32 (its class name matches no norm glob)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x.float(), self.weight.shape, self.weight, self.bias).type_as(x)


def _custom_fp32_norm_cast_by_policy() -> None:
    model = cw.apply(nn.Sequential(nn.Linear(8, 16), _Fp32Norm(16), nn.Linear(16, 4)), "bf16-true")
    model(torch.randn(2, 8))


class _ResBlock(nn.Module):
    """A diffusion-style residual block keeping its group-norm affine parameters itself."""

    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.norm_weight = nn.Parameter(torch.ones(channels))
        self.norm_bias = nn.Parameter(torch.zeros(channels))
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.group_norm(x.float(), 4, self.norm_weight, self.norm_bias).type_as(x)
        return x + self.conv(F.silu(h))


def _group_norm_params_on_block() -> None:
    model = cw.apply(_ResBlock(), "bf16-true")
    model(torch.randn(1, 8, 6, 6))


@torch.library.custom_op("castwise_live9::fused_linear_gelu", mutates_args=())
def _fused_linear_gelu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], weight.shape[0], dtype=torch.float32)  # written for the fp32 model
    torch.addmm(bias, x, weight.T, out=out)
    return F.gelu(out)


class _FusedMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 16)
        self.out = nn.Linear(16, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(_fused_linear_gelu(x, self.fc.weight, self.fc.bias))


def _custom_op_fp32_out_buffer() -> None:
    model = cw.apply(_FusedMLP(), "bf16-true")
    model(torch.randn(4, 8))


class _VQEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4))
        self.register_buffer("codebook", torch.randn(32, 4))  # EMA-updated, so a buffer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)


def _codebook_lookup_on_outputs() -> None:
    model = cw.apply(_VQEncoder(), "bf16-true")
    z = model(torch.randn(5, 12))
    torch.cdist(z, cw.unwrap(model).codebook).argmin(-1)


class _ProtoNet(nn.Module):
    def __init__(self, classes: int = 5) -> None:
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 8))
        self.register_buffer("prototypes", torch.zeros(classes, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.embed(x)


def _prototype_means_index_reduce() -> None:
    model = cw.apply(_ProtoNet(), "bf16-true")
    support, labels = torch.randn(10, 10), torch.tensor([0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
    with torch.no_grad():
        cw.unwrap(model).prototypes.index_reduce_(0, labels, model(support), "mean", include_self=False)


# --- hand-written AMP and framework-style mixed precision -----------------------------------------------------------


def _attention_scores_autocast_disabled() -> None:
    qk = nn.Linear(16, 32)
    x = torch.randn(2, 5, 16)
    with torch.autocast("cpu", dtype=bf16):
        q, k = qk(x).chunk(2, -1)
        with torch.autocast("cpu", enabled=False):  # scores in fp32 for stability
            torch.bmm(q.float(), k.transpose(1, 2)) / 4.0


class _CachedAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.kv = nn.Linear(16, 32)
        self.cache: tuple[torch.Tensor, torch.Tensor] | None = None

    def forward(self, prompt: torch.Tensor) -> torch.Tensor:
        k, v = self.kv(prompt).chunk(2, -1)
        self.cache = (k, v)
        return F.scaled_dot_product_attention(self.q(prompt), k, v)

    def decode_step(self, token: torch.Tensor) -> torch.Tensor:
        assert self.cache is not None
        k, v = self.cache
        return F.scaled_dot_product_attention(self.q(token), k, v)


def _accelerate_style_forward_autocast_decode() -> None:
    model = _CachedAttention()
    model.forward = torch.autocast("cpu", dtype=bf16)(model.forward)  # what mixed_precision="bf16" patches
    with torch.no_grad():
        model(torch.randn(1, 6, 16))
        model.decode_step(torch.randn(1, 1, 16))


def _resnet_tta_inputs_bf16_without_autocast() -> None:
    stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU()).eval()
    images = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        views = [images.to(bf16), images.flip(-1).to(bf16)]  # "the model was trained in bf16"
        torch.stack([stem(view) for view in views]).mean(0)


def _eval_halved_inputs_lstm() -> None:
    tagger = nn.LSTM(8, 16, batch_first=True).eval()  # trained with fp32 weights under fp16 autocast
    with torch.no_grad():  # the eval loop: inputs halved as in training, but no autocast
        tagger(torch.randn(2, 5, 8).half())


def _byol_target_under_another_policy() -> None:
    online_net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
    target_net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
    target_net.load_state_dict(online_net.state_dict())
    online = cw.apply(online_net, "bf16-true")
    target = cw.apply(target_net, "bf16-mixed")  # fp32 target weights "for a precise EMA"
    with torch.no_grad():
        torch._foreach_lerp_(list(target.parameters()), list(online.parameters()), 0.004)


# --- optimizers, gradients and loss scaling -------------------------------------------------------------------------


def _fp32_gradient_accumulation_assigned() -> None:
    model = cw.apply(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)), "bf16-true")
    params = [p for p in model.parameters() if p.requires_grad]
    accumulated = [torch.zeros_like(p, dtype=torch.float32) for p in params]
    for _ in range(2):
        model(torch.randn(4, 8)).pow(2).mean().backward()
        for acc, p in zip(accumulated, params, strict=True):
            acc.add_(p.grad)
            p.grad = None
    for acc, p in zip(accumulated, params, strict=True):
        p.grad = acc / 2


def _torch_grad_scaler_with_16_true() -> None:
    net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    model = cw.apply(net, "16-true")
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(model(torch.randn(4, 8)).pow(2).mean()).backward()
    scaler.unscale_(optimizer)


def _loss_scaler_step_per_task() -> None:
    net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    model = cw.apply(net, "16-mixed")
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    scaler = cw.LossScaler(model.policy)
    x = torch.randn(4, 8)
    for task in range(2):  # one loss per task head, one update per batch
        optimizer.zero_grad()
        scaler.scale(model(x)[:, task].pow(2).mean()).backward()
        scaler.step(optimizer)
    scaler.update()


def _class_weights_made_inside_init_module() -> None:
    with cw.init_module("bf16-true"):
        net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
        criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 4.0, 2.0]))  # rare classes weighted up
    model = cw.apply(net, "bf16-true")
    criterion(model(torch.randn(4, 8)), torch.tensor([0, 1, 2, 1]))


# --- buffers and data outside the model -----------------------------------------------------------------------------


class _MoCoQueue:
    def __init__(self, model: nn.Module, size: int = 16, dim: int = 8) -> None:
        dtype = next(model.parameters()).dtype  # follow the model's precision
        self.keys = torch.zeros(size, dim, dtype=dtype)
        self.ptr = 0

    def enqueue(self, keys: torch.Tensor) -> None:
        slots = (torch.arange(keys.shape[0]) + self.ptr) % self.keys.shape[0]
        self.keys[slots] = keys
        self.ptr = int(slots[-1]) + 1


def _moco_queue_in_param_dtype() -> None:
    key_encoder = cw.apply(_Retriever(), "bf16-true")
    queue = _MoCoQueue(key_encoder)
    with torch.no_grad():
        queue.enqueue(key_encoder(torch.randn(4, 16)))


def _mae_mask_from_numpy_uint8() -> None:
    model = cw.apply(_Retriever(), "bf16-true")
    rng = np.random.default_rng(0)
    visible = torch.from_numpy((rng.random((4, 8)) > 0.75).astype(np.uint8))  # 1 = visible patch
    prediction, target = model(torch.randn(4, 16)), torch.randn(4, 8)
    (prediction - target).pow(2).masked_fill(visible, 0.0).mean()


def _mixup_one_hot_in_place() -> None:
    model = cw.apply(_GenreClassifier(), "bf16-true")
    x, y = torch.randn(4, 12), torch.tensor([0, 3, 1, 2])
    lam, perm = 0.7, torch.tensor([2, 0, 3, 1])
    targets = F.one_hot(y, 4)
    targets.mul_(lam).add_(targets[perm] * (1 - lam))
    F.cross_entropy(model(lam * x + (1 - lam) * x[perm]), targets)


def _label_maps_padded_with_ignore_index() -> None:
    label_maps = [torch.randint(0, 21, (6, 5), dtype=torch.uint8), torch.randint(0, 21, (6, 7), dtype=torch.uint8)]
    width = max(m.shape[1] for m in label_maps)
    torch.stack([F.pad(m, (0, width - m.shape[1]), value=-100) for m in label_maps])


# --- checkpoints across policies -------------------------------------------------------------------------------------


def _load_into_plain_model_for_eval() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "retriever.safetensors")
        cw.save(cw.apply(_Retriever(), "bf16-true"), path)
        evaluator = _Retriever().eval()
        cw.load_into(evaluator, path)
        with torch.no_grad():
            evaluator(torch.randn(4, 16))


class _AudioNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(1, 8, 9, stride=4, bias=False)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(8, 3)

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        return self.head(self.pool(F.relu(self.conv(wave))).squeeze(-1))


def _functional_call_with_saved_weights() -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for run in range(2):
            path = os.path.join(folder, f"run{run}.safetensors")
            cw.save(cw.apply(_AudioNet(), "bf16-true"), path)
            paths.append(path)
        model = _AudioNet().eval()
        wave = torch.randn(2, 1, 64)
        with torch.no_grad():
            [torch.func.functional_call(model, cw.load(path), (wave,)) for path in paths]


def _lora_merged_into_fp8_storage() -> None:
    base = cw.apply(nn.Linear(32, 32, bias=False), "bf16-true")
    stored = {name: t.to(torch.float8_e4m3fn) for name, t in cw.unwrap(base).state_dict().items()}
    lora_a, lora_b = torch.randn(4, 32, dtype=bf16) * 0.01, torch.randn(32, 4, dtype=bf16) * 0.01
    stored["weight"].add_(lora_b @ lora_a * 2.0)


def _pressure_in_pascal_16_true_policy() -> None:
    torch.manual_seed(0)
    actor = cw.apply(nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 4)), "16-true")
    observation = torch.tensor([[101325.0, 21.5, 0.4]])  # air pressure in Pa, temperature, humidity
    mu, log_std = actor(observation).chunk(2, -1)
    torch.normal(mu, log_std.exp())


CASES: dict[str, LiveCase] = {
    # a bf16-true retrieval model's backbone submodule called directly with fp32 images
    "backbone-submodule-called-directly": case(
        _backbone_called_directly, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # a bf16-true LM's fp32 hidden states multiplied by the unwrapped model's tied bf16 embedding table
    "tied-logits-from-unwrapped-embedding": case(
        _tied_logits_from_unwrapped_embedding, "matmul_dtype", "f32", "bf16", grade="correct",
        grade_at_freeze="correct"),
    # a bf16-true checkpoint loaded with cw.load_into into a plain fp32 model evaluated on fp32 inputs
    "load-into-plain-model-for-eval": case(
        _load_into_plain_model_for_eval, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # two bf16-true runs' saved weights evaluated on fp32 audio with torch.func.functional_call
    "functional-call-with-saved-bf16-weights": case(
        _functional_call_with_saved_weights, "conv_weight_dtype", "f32", "bf16", grade="correct",
        grade_at_freeze="correct"),
    # hand-written AMP: fp32 attention scores in an autocast-disabled block, the query upcast but not the key
    "autocast-disabled-scores-key-left-bf16": case(
        _attention_scores_autocast_disabled, "batched_matmul_dtype", "f32", "bf16", grade="correct",
        grade_at_freeze="wrong",
        why=(
            'At freeze (e4b0263) castwise gave matmul_dtype [f32, bf16] (high confidence). torch.bmm raised with '
            "the same 'expected m1 and m2 to have the same dtype' wording as mm, and castwise took the kind from "
            'that wording rather than from the batched matmul (torch.bmm) the traceback calls.'
        )),
    # a policy with bf16 outputs, its keypoints projected with fp32 camera intrinsics by bmm
    "bf16-output-policy-camera-projection": case(
        _bf16_outputs_into_camera_projection, "batched_matmul_dtype", "bf16", "f32", grade="correct",
        grade_at_freeze="correct"),
    # test-time augmentation casting images to bf16 for a model trained under bf16 autocast, run without it
    "tta-images-bf16-without-autocast": case(
        _resnet_tta_inputs_bf16_without_autocast, "conv_weight_dtype", "bf16", "f32", grade="correct",
        grade_at_freeze="correct"),
    # a custom always-fp32 norm class no keep-fp32 glob matches: its weight cast to bf16, its input upcast
    "custom-fp32-norm-class-cast-by-policy": case(
        _custom_fp32_norm_cast_by_policy, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # a residual block holding its own group-norm weights (cast to bf16), normalising an upcast input
    "group-norm-params-on-block-cast": case(
        _group_norm_params_on_block, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # mixed precision patched onto forward only: a decode method's fp32 query meets the bf16 cached keys
    "accelerate-forward-autocast-decode-step": case(
        _accelerate_style_forward_autocast_decode, "sdpa_dtype", "f32", "bf16", grade="correct",
        grade_at_freeze="correct"),
    # a rerank head on the policy's fp32 outputs reuses the model's relative-bias submodule (bf16) as SDPA's mask
    "rerank-head-reuses-relative-bias": case(
        _rerank_head_reuses_relative_bias, "attn_mask_dtype", "bf16", "f32", grade="correct",
        grade_at_freeze="correct"),
    # the eval loop halves the inputs of a model trained under fp16 autocast but runs without autocast
    "eval-halved-inputs-lstm-no-autocast": case(
        _eval_halved_inputs_lstm, "rnn_dtype", "f16", "f32", grade="correct", grade_at_freeze="correct"),
    # a MoCo queue allocated in the model's param dtype (bf16) written with the policy's fp32 outputs
    "moco-queue-param-dtype-fp32-keys": case(
        _moco_queue_in_param_dtype, "indexed_write_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # few-shot prototypes kept in a buffer the policy cast to bf16, averaged from fp32 outputs with index_reduce_
    "prototype-buffer-index-reduce": case(
        _prototype_means_index_reduce, "indexed_write_dtype", "bf16", "f32", grade="correct", grade_at_freeze="wrong",
        why=(
            "At freeze (e4b0263) castwise gave scalar_type [bf16, f32] (low confidence). index_reduce_'s 'self "
            "(BFloat16) and source (Float) must have the same scalar type' was not read as an indexed write into "
            'a buffer of another dtype, only as a generic two-dtype mismatch.'
        )),
    # a custom op's kernel preallocates an fp32 output for addmm while the policy feeds it bf16
    "custom-op-fp32-out-buffer": case(
        _custom_op_fp32_out_buffer, "indexed_write_dtype", "bf16", "f32", cause=("out",), grade="correct",
        grade_at_freeze="correct"),
    # BYOL: the target network under bf16-mixed (fp32 weights), the online one under bf16-true, foreach lerp EMA
    "byol-target-other-policy-foreach-lerp": case(
        _byol_target_under_another_policy, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # class weights for the loss created inside cw.init_module (default dtype bf16), fp32 logits from the policy
    "class-weights-made-in-init-module": case(
        _class_weights_made_inside_init_module, "op_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # a VQ codebook buffer cast to bf16 by the policy, looked up with cdist from the fp32 outputs
    "vq-codebook-buffer-cdist": case(
        _codebook_lookup_on_outputs, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # bool multi-hot genre features into a bf16-true model (the policy casts only floating inputs)
    "multi-hot-bool-features": case(
        _multi_hot_bool_features, "integer_operand", "bool", "bf16", grade="correct", grade_at_freeze="correct"),
    # int64 bag-of-words counts L2-normalised before the model
    "bag-of-words-counts-normalize": case(
        _bag_of_words_normalised, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # item ids from a float64 pandas column, cast to bf16 by the policy's input cast, into an embedding
    "item-ids-float-column-cast-bf16": case(
        _item_ids_from_float_column, "index_tensor_dtype", "bf16", fix=("long",), grade="correct",
        grade_at_freeze="correct"),
    # learned position ids made with arange in the activations' dtype (bf16 under bf16-true)
    "positions-arange-activation-dtype": case(
        _positions_in_activation_dtype, "index_tensor_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # float labels passed to a Hugging Face-style forward that computes its loss: the policy casts them to bf16
    "labels-through-wrapped-forward-nll": case(
        _labels_passed_through_wrapped_forward, "target_dtype", "bf16", fix=("long",), grade="correct",
        grade_at_freeze="correct"),
    # integer star ratings as a Huber regression target for the policy's fp32 predictions
    "star-ratings-int-huber-target": case(
        _star_ratings_huber, "target_dtype", "int64", fix=("float",), grade="correct", grade_at_freeze="correct"),
    # an MAE reconstruction loss masked with a uint8 visibility mask from numpy
    "mae-uint8-visibility-mask": case(
        _mae_mask_from_numpy_uint8, "mask_dtype", "uint8", fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # mixup mixing F.one_hot's int64 targets in place
    "mixup-one-hot-in-place": case(
        _mixup_one_hot_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # uint8 segmentation label maps padded to a batch with ignore_index -100
    "uint8-label-maps-pad-ignore-index": case(
        _label_maps_padded_with_ignore_index, "half_overflow", "uint8", grade="correct", grade_at_freeze="correct"),
    # micro-batch gradients accumulated in fp32 buffers and assigned back to bf16-true parameters
    "fp32-grad-accumulation-assigned": case(
        _fp32_gradient_accumulation_assigned, "loss_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # torch's GradScaler and AdamW with a 16-true policy instead of castwise's optimizer and scaler
    "torch-grad-scaler-with-16-true": case(
        _torch_grad_scaler_with_16_true, "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
    # castwise's LossScaler stepping the same optimizer once per task loss, updated once per batch
    "loss-scaler-step-per-task": case(
        _loss_scaler_step_per_task, "loss_scale", grade="correct", grade_at_freeze="not_recognised",
        why=(
            "At freeze (e4b0263) castwise gave nothing. The error is castwise's own LossScaler refusing a second "
            "step() of one optimizer before update() (GradScaler's wording), which its rules do not recognise as "
            'a loss-scaling misuse.'
        )),
    # backbone features captured by a forward hook (bf16: only outputs are cast) exported to numpy
    "hooked-features-to-numpy": case(
        _feature_hook_to_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # a closed-form ridge readout with pinv on bf16 backbone features
    "ridge-readout-pinv-bf16": case(
        _ridge_readout_with_pinv, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a callback logging each weight's spectral norm (matrix_norm ord=2) of a bf16-true model
    "spectral-norm-monitor-bf16": case(
        _spectral_norm_monitor, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a LoRA delta (bf16) merged in place into weights stored as fp8
    "lora-merge-into-fp8-storage": case(
        _lora_merged_into_fp8_storage, "fp8_promotion", "float8_e4m3fn", "bf16", grade="correct",
        grade_at_freeze="correct"),
    # a 16-true actor given air pressure in pascals (past fp16's range): NaN std into torch.normal
    "pressure-pascal-16-true-normal-nan": case(
        _pressure_in_pascal_16_true_policy, "nonfinite", grade="correct", grade_at_freeze="not_recognised",
        why=(
            "At freeze (e4b0263) castwise gave nothing. torch.normal's 'normal expects all elements of std >= "
            "0.0' is what a NaN std (101325 Pa overflowing fp16 under 16-true) raises, and the rules do not read "
            'that check as a non-finite value.'
        )),
}
