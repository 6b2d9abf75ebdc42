"""Held-out live set 41: CLIP-style contrastive multimodal training and inference in low precision (towers in different
dtypes, zero-shot classifiers, logit scale, SigLIP, LiT, WiSE-FT, retrieval evaluation, uint8 image preprocessing).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen
at cd6d50a."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.optim import ZeroRedundancyOptimizer
from transformers import CLIPConfig, CLIPModel

from .live_cases import LiveCase, case

FROZEN_AT = "cd6d50a"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


class _TinyClip(nn.Module):
    """An OpenCLIP-shaped pair of towers: a patchify conv image tower and a bag-of-tokens text tower, both projected
    into one embedding space, with a learnable logit scale."""

    def __init__(self, width: int = 16, embed: int = 8, vocab: int = 32) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 4, 4, bias=False)
        self.visual_proj = nn.Linear(width, embed, bias=False)
        self.token_embedding = nn.Embedding(vocab, width)
        self.text_proj = nn.Linear(width, embed, bias=False)
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def encode_image(self, image: torch.Tensor) -> torch.Tensor:
        return self.visual_proj(self.conv1(image).flatten(2).mean(-1))

    def encode_text(self, text: torch.Tensor) -> torch.Tensor:
        return self.text_proj(self.token_embedding(text).mean(1))

    def forward(self, image: torch.Tensor, text: torch.Tensor) -> torch.Tensor:
        image_features = F.normalize(self.encode_image(image), dim=-1)
        text_features = F.normalize(self.encode_text(text), dim=-1)
        return self.logit_scale.exp() * image_features @ text_features.T


def _batch(n: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.rand(n, 3, 8, 8), torch.randint(0, 32, (n, 6))


def _single_rank_group() -> None:
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)


# --- zero-shot classifiers and text embeddings ------------------------------------------------------------------------


def _zeroshot_classifier_built_under_autocast() -> None:
    model = _TinyClip().eval()
    images, _ = _batch()
    class_prompts = torch.randint(0, 32, (5, 3, 6))  # 5 classes x 3 templates
    with torch.no_grad():
        with torch.autocast("cpu", dtype=bf16):
            weights = [F.normalize(model.encode_text(p), dim=-1).mean(0) for p in class_prompts]
        classifier = F.normalize(torch.stack(weights, dim=1), dim=0)
        image_features = F.normalize(model.encode_image(images), dim=-1)
        (100.0 * image_features @ classifier).softmax(-1)


def _zeroshot_head_initialised_by_data_assignment() -> None:
    torch.manual_seed(0)
    serving = _TinyClip().eval().to(bf16)
    with torch.no_grad():
        text_embeddings = F.normalize(serving.encode_text(torch.randint(0, 32, (5, 6))), dim=-1)
    finetune = _TinyClip()
    head = nn.Linear(8, 5, bias=False)
    head.weight.data = text_embeddings  # zero-shot head init for fine-tuning (FLYP/WiSE-FT recipe)
    images, _ = _batch()
    head(F.normalize(finetune.encode_image(images), dim=-1))


def _prompt_ensemble_fp8_cache() -> None:
    torch.manual_seed(0)
    template_embeddings = F.normalize(torch.randn(7, 5, 8), dim=-1).to(E4M3)  # templates x classes x dim, cached
    template_weights = torch.softmax(torch.randn(7), 0)
    (template_weights[:, None, None] * template_embeddings).sum(0)


def _hf_clip_text_projection_replaced_after_cast() -> None:
    config = CLIPConfig(
        text_config={"vocab_size": 64, "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "max_position_embeddings": 8, "bos_token_id": 0, "eos_token_id": 2,
                     "pad_token_id": 1},
        vision_config={"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 8, "patch_size": 4},
        projection_dim=8)
    torch.manual_seed(0)
    model = CLIPModel(config).eval().to(bf16)
    model.text_projection = nn.Linear(16, 12, bias=False)  # new shared dim for locked-image tuning
    with torch.no_grad():
        model.get_text_features(input_ids=torch.tensor([[0, 5, 7, 2]]))


def _coop_context_vectors_fp32() -> None:
    torch.manual_seed(0)
    width = 8
    clip_text = nn.ModuleDict({"ln_1": nn.LayerNorm(width), "attn": nn.MultiheadAttention(width, 2)}).half()
    positional_embedding = torch.randn(8, width).half()
    prefix, suffix = torch.randn(2, 1, width).half(), torch.randn(2, 3, width).half()
    ctx = nn.Parameter(torch.empty(4, width).normal_(std=0.02))  # CoOp's learnable context, made without the CLIP dtype
    prompts = torch.cat([prefix, ctx.expand(2, -1, -1), suffix], dim=1)
    x = (prompts + positional_embedding).permute(1, 0, 2)
    clip_text["ln_1"](x)


class _LayerNormFp32(nn.LayerNorm):
    """OpenCLIP's fp32 LayerNorm for fp16 towers, written without casting back to the input's dtype."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x.float(), self.normalized_shape, self.weight.float(), self.bias.float(), self.eps)


def _layernorm_fp32_without_cast_back() -> None:
    torch.manual_seed(0)
    ln_1, attn = _LayerNormFp32(8), nn.MultiheadAttention(8, 2).half()
    x = torch.randn(5, 2, 8).half()
    y = ln_1(x)
    x + attn(y, y, y, need_weights=False)[0]


def _eot_pooling_int32_lengths() -> None:
    torch.manual_seed(0)
    hidden = torch.randn(3, 6, 8).to(bf16)
    encoded = [[0, 5, 9, 2], [0, 7, 2], [0, 4, 4, 8, 11, 2]]
    lengths = torch.from_numpy(np.array([len(tokens) for tokens in encoded], dtype=np.int32))
    torch.take_along_dim(hidden, (lengths - 1)[:, None, None], dim=1)


# --- contrastive and sigmoid losses, logit scale ----------------------------------------------------------------------


def _siglip_labels_from_bool_subtraction() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4, 4).to(bf16) * 10 - 10
    positives = torch.eye(4, dtype=torch.bool)
    labels = positives - ~positives  # +1 on the diagonal, -1 elsewhere
    -F.logsigmoid(labels * logits).sum() / 4


def _siglip_logit_bias_integer_init() -> None:
    class SigLipHead(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.logit_scale = nn.Parameter(torch.tensor(10.0).log())
            self.logit_bias = nn.Parameter(torch.tensor(-10))

    SigLipHead().to(bf16)


def _fp16_logit_scale_unclamped() -> None:
    torch.manual_seed(0)
    image_features = F.normalize(torch.randn(4, 8), dim=-1).half().requires_grad_()
    text_features = F.normalize(torch.randn(4, 8), dim=-1).half()
    logit_scale = nn.Parameter(torch.tensor(11.5, dtype=f16))  # resumed without the clamp to log(100)
    with torch.autograd.detect_anomaly():
        logits = logit_scale.exp() * image_features @ text_features.T
        F.cross_entropy(logits.float(), torch.arange(4)).backward()


def _logit_scale_gradient_hook_fp32() -> None:
    model = _TinyClip().to(bf16)

    def clip_logit_scale_grad(grad: torch.Tensor) -> torch.Tensor:
        return grad.float().clamp(-1.0, 1.0)

    model.logit_scale.register_hook(clip_logit_scale_grad)
    images, texts = _batch()
    logits = model(images.to(bf16), texts)
    F.cross_entropy(logits.float(), torch.arange(4)).backward()


def _gather_features_into_fp32_buffers() -> None:
    _single_rank_group()
    try:
        image_features = F.normalize(torch.randn(4, 8), dim=-1).to(bf16)
        gathered = [torch.zeros(4, 8) for _ in range(dist.get_world_size())]
        dist.all_gather(gathered, image_features)
    finally:
        dist.destroy_process_group()


def _filip_token_similarity_bmm() -> None:
    torch.manual_seed(0)
    image_tokens = F.normalize(torch.randn(2, 5, 8), dim=-1).to(bf16)  # locked bf16 image tower
    text_tokens = F.normalize(torch.randn(2, 6, 8), dim=-1)  # trainable fp32 text tower
    torch.bmm(image_tokens, text_tokens.transpose(1, 2)).max(-1).values.mean(-1)


# --- training set-ups: locked towers, pure fp16, patch embedding ------------------------------------------------------


def _lit_zero_redundancy_mixed_towers() -> None:
    model = _TinyClip()
    model.conv1.to(bf16)
    model.visual_proj.to(bf16)
    _single_rank_group()
    try:
        ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)
    finally:
        dist.destroy_process_group()


def _siglip_patch_embedding_weights_only_cast() -> None:
    torch.manual_seed(0)
    tower = nn.Sequential(nn.Conv2d(3, 16, 4, 4), nn.Flatten(2))  # SigLIP's patch embedding has a bias
    for module in tower.modules():
        if isinstance(getattr(module, "weight", None), nn.Parameter):
            module.weight.data = module.weight.data.to(bf16)
    tower(torch.rand(2, 3, 8, 8).to(bf16))


def _preprocessed_cache_bf16_fp16_model() -> None:
    model = _TinyClip().half().eval()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pixels.pt"
        torch.save(torch.rand(4, 3, 8, 8).to(bf16), path)  # preprocessed once, halved for disk
        pixels = torch.load(path, weights_only=True)
    with torch.no_grad():
        model.encode_image(pixels)


def _pure_fp16_clip_with_grad_scaler() -> None:
    model = _TinyClip().half()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    images, texts = _batch()
    logits = model(images.half(), texts)
    loss = (F.cross_entropy(logits.float(), torch.arange(4)) + F.cross_entropy(logits.float().T, torch.arange(4))) / 2
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _attentional_pooler_int64_padding_mask() -> None:
    torch.manual_seed(0)
    pooler = nn.MultiheadAttention(8, 2, batch_first=True).to(bf16)
    query = torch.randn(2, 1, 8).to(bf16)
    tokens = torch.randn(2, 5, 8).to(bf16)
    attention_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])  # the tokenizer's mask
    pooler(query, tokens, tokens, key_padding_mask=attention_mask)


# --- WiSE-FT and weight interpolation ---------------------------------------------------------------------------------


def _wise_ft_lerp_fp16_zeroshot_checkpoint() -> None:
    torch.manual_seed(0)
    zeroshot = {k: v.half() for k, v in _TinyClip().state_dict().items()}  # released checkpoint is fp16
    finetuned = _TinyClip().state_dict()
    {k: torch.lerp(zeroshot[k], finetuned[k], 0.5) for k in zeroshot}


def _wise_ft_in_place_resnet_state_dict() -> None:
    def resnet_tower() -> nn.Module:
        return nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 8, 3))

    torch.manual_seed(0)
    theta, finetuned = resnet_tower().state_dict(), resnet_tower().state_dict()
    alpha = 0.5
    for key in theta:
        theta[key].mul_(1 - alpha).add_(finetuned[key], alpha=alpha)


def _wise_ft_state_dict_numpy_bf16() -> None:
    model = _TinyClip().to(bf16)
    with tempfile.TemporaryDirectory() as folder:
        np.savez(Path(folder) / "finetuned.npz", **{k: v.numpy() for k, v in model.state_dict().items()})


# --- retrieval evaluation ---------------------------------------------------------------------------------------------


def _retrieval_pca_whitening_bf16() -> None:
    torch.manual_seed(0)
    features = F.normalize(torch.randn(32, 8), dim=-1).to(bf16)
    centred = features - features.mean(0)
    covariance = centred.T @ centred / len(centred)
    torch.linalg.eigh(covariance)


def _retrieval_self_similarity_fill_diagonal_f16() -> None:
    torch.manual_seed(0)
    features = F.normalize(torch.randn(6, 8), dim=-1).half()
    similarity = features @ features.T
    similarity.fill_diagonal_(-1e9)


def _retrieval_best_caption_scatter_reduce() -> None:
    torch.manual_seed(0)
    similarity = torch.randn(3, 15).to(bf16)  # images x captions, 5 captions per image
    caption_image = torch.arange(3).repeat_interleave(5)
    best = torch.full((3, 3), float("-inf"))
    best.scatter_reduce_(1, caption_image[None].expand(3, -1), similarity, "amax")


def _zeroshot_per_class_hits_index_add() -> None:
    torch.manual_seed(0)
    targets = torch.randint(0, 5, (16,))
    predictions = torch.randn(16, 5).argmax(-1)
    hits = torch.zeros(5, dtype=torch.long)
    hits.index_add_(0, targets, (predictions == targets).float())


def _retrieval_rank_percentiles_int64() -> None:
    torch.manual_seed(0)
    similarity = torch.randn(8, 8).to(bf16)
    order = similarity.argsort(dim=1, descending=True)
    ranks = (order == torch.arange(8)[:, None]).nonzero()[:, 1] + 1
    torch.quantile(ranks, torch.tensor([0.5, 0.9]))


def _text_causal_mask_float32_min_in_f16() -> None:
    context_length, dtype = 6, f16
    torch.full((context_length, context_length), torch.finfo(torch.float32).min, dtype=dtype).triu_(1)


# --- image preprocessing from uint8 arrays ----------------------------------------------------------------------------


def _pil_image() -> torch.Tensor:
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.integers(0, 256, (8, 8, 3), dtype=np.uint8))


def _contrast_jitter_lerp_uint8() -> None:
    image = _pil_image().permute(2, 0, 1)
    mean = image.float().mean().round().to(torch.uint8).expand_as(image)
    torch.lerp(mean, image, 1.3)


def _grayscale_matmul_uint8() -> None:
    _pil_image() @ torch.tensor([0.299, 0.587, 0.114])


def _crop_box_scaled_in_place() -> None:
    box = torch.tensor([2, 1, 6, 7])  # found on a thumbnail
    box *= 224 / 8


CASES: dict[str, LiveCase] = {
    # --- zero-shot classifiers and text embeddings
    # zero-shot classifier built with encode_text under bf16 autocast, images encoded outside it in fp32
    "zeroshot-classifier-built-under-autocast": case(
        _zeroshot_classifier_built_under_autocast, "matmul_dtype", "f32", "bf16", grade="correct",
        grade_at_freeze="correct"),
    # a fine-tuning head initialised with head.weight.data = text embeddings from the bf16 serving copy
    "zeroshot-head-init-data-assign-bf16": case(
        _zeroshot_head_initialised_by_data_assignment, "matmul_dtype", "f32", "bf16", grade="correct",
        grade_at_freeze="correct"),
    # per-template text embeddings cached in fp8, ensembled with fp32 template weights
    "prompt-ensemble-fp8-cache-weighted": case(
        _prompt_ensemble_fp8_cache, "fp8_promotion", "f32", "float8_e4m3fn", grade="correct",
        grade_at_freeze="correct"),
    # a transformers CLIPModel cast to bf16, its text_projection replaced by a new fp32 Linear afterwards
    "hf-clip-text-projection-replaced-after-cast": case(
        _hf_clip_text_projection_replaced_after_cast, "matmul_dtype", "bf16", "f32", grade="correct",
        grade_at_freeze="correct"),
    # CoOp's learnable context vectors made in fp32 for a halved CLIP text tower, into its fp16 LayerNorm
    "coop-context-fp32-half-text-tower": case(
        _coop_context_vectors_fp32, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # an fp32 LayerNorm for fp16 towers that forgets to cast back, into the fp16 attention
    "layernorm-fp32-no-cast-back-fp16-attention": case(
        _layernorm_fp32_without_cast_back, "matmul_dtype", "f32", "f16", grade="correct", grade_at_freeze="correct"),
    # EOT pooling with int32 token lengths from a numpy tokenizer, via take_along_dim
    "eot-pooling-take-along-dim-int32-lengths": case(
        _eot_pooling_int32_lengths, "index_tensor_dtype", "int32", grade="correct", grade_at_freeze="correct"),
    # --- contrastive and sigmoid losses, logit scale
    # SigLIP's +1/-1 labels built by subtracting bool eye masks
    "siglip-labels-bool-subtraction": case(
        _siglip_labels_from_bool_subtraction, "mask_dtype", "bool", grade="correct", grade_at_freeze="correct"),
    # SigLIP's logit_bias initialised with torch.tensor(-10), an int64 parameter
    "siglip-logit-bias-integer-init": case(
        _siglip_logit_bias_integer_init, "integer_operand", grade="correct", grade_at_freeze="correct"),
    # pure fp16 CLIP resumed without clamping logit_scale: exp overflows, NaN in backward under anomaly mode
    "fp16-logit-scale-unclamped-anomaly": case(
        _fp16_logit_scale_unclamped, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # a hook clipping the bf16 logit_scale's gradient in fp32 and returning it uncast
    "logit-scale-grad-hook-fp32": case(
        _logit_scale_gradient_hook_fp32, "loss_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # gather_features with torch.zeros (fp32) buffers for bf16 features in all_gather
    "gather-features-all-gather-fp32-buffers": case(
        _gather_features_into_fp32_buffers, "scalar_type", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # FILIP token-wise similarity by bmm of a locked bf16 image tower's tokens and fp32 text tokens
    "filip-token-similarity-bmm-mixed-towers": case(
        _filip_token_similarity_bmm, "batched_matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # --- training set-ups
    # LiT: the locked image tower cast to bf16, the text tower fp32, one ZeroRedundancyOptimizer over all parameters
    "lit-zero-redundancy-mixed-tower-dtypes": case(
        _lit_zero_redundancy_mixed_towers, "op_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a memory-saving cast of weights only: SigLIP's patch embedding keeps an fp32 bias
    "siglip-patch-embed-weights-only-cast": case(
        _siglip_patch_embedding_weights_only_cast, "conv_bias_dtype", "bf16", "f32", grade="correct",
        grade_at_freeze="correct"),
    # preprocessed pixels cached as bf16, fed to an fp16 CLIP's encode_image
    "preprocessed-cache-bf16-into-fp16-clip": case(
        _preprocessed_cache_bf16_fp16_model, "conv_weight_dtype", "bf16", "f16", grade="correct",
        grade_at_freeze="correct"),
    # OpenCLIP-style pure fp16 training with a GradScaler
    "pure-fp16-clip-grad-scaler": case(
        _pure_fp16_clip_with_grad_scaler, "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
    # text attention pooling given the tokenizer's int64 attention_mask as key_padding_mask
    "attention-pooler-int64-key-padding-mask": case(
        _attentional_pooler_int64_padding_mask, "mask_dtype", grade="correct", grade_at_freeze="correct"),
    # --- WiSE-FT and weight interpolation
    # WiSE-FT with torch.lerp between the fp16 released zero-shot weights and fp32 fine-tuned weights
    "wise-ft-lerp-fp16-zeroshot-checkpoint": case(
        _wise_ft_lerp_fp16_zeroshot_checkpoint, "lerp_dtype", "f16", "f32", grade="correct", grade_at_freeze="correct"),
    # WiSE-FT in place over a ResNet tower's state dict, num_batches_tracked (int64) included
    "wise-ft-in-place-num-batches-tracked": case(
        _wise_ft_in_place_resnet_state_dict, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # interpolated bf16 weights exported to numpy with np.savez
    "wise-ft-state-dict-numpy-bf16": case(
        _wise_ft_state_dict_numpy_bf16, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- retrieval evaluation
    # PCA whitening of bf16 retrieval embeddings with eigh
    "retrieval-pca-whitening-eigh-bf16": case(
        _retrieval_pca_whitening_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # image-to-image retrieval in fp16 removing self-matches with fill_diagonal_(-1e9)
    "retrieval-self-match-fill-diagonal-f16": case(
        _retrieval_self_similarity_fill_diagonal_f16, "half_overflow", "f16", grade="correct",
        grade_at_freeze="correct"),
    # best caption per image by scatter_reduce_ of bf16 similarities into a torch.full (fp32) buffer
    "retrieval-best-caption-scatter-reduce-fp32-buffer": case(
        _retrieval_best_caption_scatter_reduce, "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # zero-shot per-class hits accumulated with index_add_ of float matches into an int64 counter
    "zeroshot-per-class-hits-index-add-float": case(
        _zeroshot_per_class_hits_index_add, "indexed_write_dtype", "int64", "f32", grade="correct",
        grade_at_freeze="correct"),
    # median and 90th-percentile rank by torch.quantile over the int64 ranks
    "retrieval-rank-percentiles-quantile-int64": case(
        _retrieval_rank_percentiles_int64, "integer_operand", grade="correct", grade_at_freeze="wrong",
        why="At freeze (cd6d50a) castwise gave no_kernel [] (low confidence). quantile's message names no dtype,"
            " and the rules read it as a low-precision float without a kernel, while here the input is the int64"
            " ranks (an integer operand); its fix, quantile(x.float()), still works."),
    # an fp16 text tower's causal mask filled with torch.finfo(torch.float32).min
    "text-causal-mask-float32-min-in-f16": case(
        _text_causal_mask_float32_min_in_f16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # --- image preprocessing from uint8 arrays
    # contrast jitter as torch.lerp toward the mean on the uint8 image
    "preprocess-contrast-lerp-uint8": case(
        _contrast_jitter_lerp_uint8, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # grayscale augmentation as a matmul of the uint8 HWC array with fp32 luma weights
    "preprocess-grayscale-matmul-uint8": case(
        _grayscale_matmul_uint8, "integer_operand", "uint8", "f32", grade="correct", grade_at_freeze="correct"),
    # a crop box found on a thumbnail scaled in place to full resolution, int64 coordinates
    "preprocess-crop-box-scaled-in-place": case(
        _crop_box_scaled_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
}
