"""Held-out live set 20: self-supervised and representation learning written by hand in plain torch (SimCLR/SupCon and
InfoNCE, MoCo queues and momentum encoders, BYOL/SimSiam, DINO centering and sharpening, masked image modelling with
MAE/SimMIM/BEiT/data2vec, Barlow Twins and whitening losses, multi-crop, memory banks, k-NN and linear-probe evaluation)
run in bf16, fp16 or fp8. Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at a6443cb."""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "a6443cb"

bf16, f16, E4M3 = torch.bfloat16, torch.float16, torch.float8_e4m3fn


# --- shared pieces: a small conv encoder, projection/prediction heads, a tiny ViT with MAE-style random masking -------

class _ConvEncoder(nn.Module):
    """A ResNet-like stem and two strided convs with BatchNorm, pooled to a feature vector."""

    def __init__(self, width: int = 8, out_dim: int = 16) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, out_dim, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.stem(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return x.mean(dim=(2, 3))


def _mlp(in_dim: int, hidden: int, out_dim: int) -> nn.Sequential:
    """The SimCLR/BYOL projection (or prediction) head: Linear-BN-ReLU-Linear."""
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, out_dim))


def _views(n: int = 8, size: int = 8, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Two augmented views of a batch of images, as the data pipeline hands them over (fp32, normalised)."""
    g = torch.Generator().manual_seed(seed)
    base = torch.rand(n, 3, size, size, generator=g)
    return base + 0.1 * torch.randn(base.shape, generator=g), base.flip(-1)


def _patchify(images: torch.Tensor, patch: int) -> torch.Tensor:
    """(N, C, H, W) images to (N, L, patch*patch*C) patches, as MAE's patchify does."""
    n, c, h, w = images.shape
    x = images.reshape(n, c, h // patch, patch, w // patch, patch)
    x = torch.einsum("nchpwq->nhwpqc", x)
    return x.reshape(n, (h // patch) * (w // patch), patch * patch * c)


def _random_masking(x: torch.Tensor, mask_ratio: float, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor,
                                                                               torch.Tensor]:
    """MAE's per-sample random masking by argsort of noise: the kept tokens, the 0/1 mask (1 = removed), ids_restore."""
    n, length, dim = x.shape
    keep = int(length * (1 - mask_ratio))
    noise = torch.rand(n, length, generator=torch.Generator().manual_seed(seed))
    ids_shuffle = torch.argsort(noise, dim=1)
    ids_restore = torch.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :keep]
    kept = torch.gather(x, 1, ids_keep.unsqueeze(-1).repeat(1, 1, dim))
    mask = torch.ones(n, length)
    mask[:, :keep] = 0
    return kept, torch.gather(mask, 1, ids_restore), ids_restore


class _Block(nn.Module):
    """A pre-norm ViT block with SDPA attention; an additive or boolean attention mask can be passed."""

    def __init__(self, dim: int, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x: torch.Tensor, attn_mask: torch.Tensor | None = None) -> torch.Tensor:
        n, length, dim = x.shape
        q, k, v = self.qkv(self.norm1(x)).reshape(n, length, 3, self.heads, dim // self.heads).permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        x = x + self.proj(attended.transpose(1, 2).reshape(n, length, dim))
        return x + self.mlp(self.norm2(x))


class _TinyViT(nn.Module):
    """Patch embedding by a strided conv, a cls token, learned positions, two blocks and a final norm."""

    def __init__(self, dim: int = 16, patch: int = 4, size: int = 8) -> None:
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, (size // patch) ** 2 + 1, dim) * 0.02)
        self.blocks = nn.ModuleList([_Block(dim), _Block(dim)])
        self.norm = nn.LayerNorm(dim)

    def tokens(self, images: torch.Tensor) -> torch.Tensor:
        """Patch tokens with their positions added (no cls token)."""
        return self.patch_embed(images).flatten(2).transpose(1, 2) + self.pos_embed[:, 1:]

    def forward(self, images: torch.Tensor, attn_mask: torch.Tensor | None = None) -> torch.Tensor:
        x = self.tokens(images)
        cls = (self.cls_token + self.pos_embed[:, :1]).expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1)
        for block in self.blocks:
            x = block(x, attn_mask)
        return self.norm(x)


# --- contrastive: SimCLR, SupCon, MoCo, memory banks -----------------------------------------------------------------

def _supcon_self_mask_float32_min_bf16() -> None:
    torch.manual_seed(0)
    encoder, projector = _ConvEncoder().to(bf16), _mlp(16, 32, 8).to(bf16)
    x1, x2 = _views()
    labels = torch.tensor([0, 1, 2, 0, 1, 2, 3, 3])
    z = F.normalize(projector(encoder(torch.cat([x1, x2]).to(bf16))), dim=1)
    logits = z @ z.T / 0.1
    self_contrast = torch.eye(len(z), dtype=torch.bool)
    logits = logits.masked_fill(self_contrast, torch.finfo(torch.float32).min)
    positives = (labels.repeat(2)[:, None] == labels.repeat(2)[None, :]) & ~self_contrast
    log_prob = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    (-(log_prob * positives).sum(1) / positives.sum(1)).mean().backward()


def _moco_queue_plain_attribute_f16() -> None:
    class MoCo(nn.Module):
        def __init__(self, dim: int = 8, queue_size: int = 32) -> None:
            super().__init__()
            self.encoder_q = nn.Sequential(_ConvEncoder(), nn.Linear(16, dim))
            self.encoder_k = copy.deepcopy(self.encoder_q).requires_grad_(False)
            self.queue = F.normalize(torch.randn(dim, queue_size), dim=0).half()  # half the memory of fp32
            self.temperature = 0.2

        def forward(self, im_q: torch.Tensor, im_k: torch.Tensor) -> torch.Tensor:
            q = F.normalize(self.encoder_q(im_q), dim=1)
            with torch.no_grad():
                k = F.normalize(self.encoder_k(im_k), dim=1)
            l_pos = (q * k).sum(dim=1, keepdim=True)
            l_neg = torch.mm(q, self.queue.clone().detach())
            logits = torch.cat([l_pos, l_neg], dim=1) / self.temperature
            return F.cross_entropy(logits.float(), torch.zeros(len(q), dtype=torch.long))

    torch.manual_seed(0)
    model = MoCo().to(bf16)
    x1, x2 = _views()
    model(x1.to(bf16), x2.to(bf16))


def _moco_enqueue_index_copy_float_pointer() -> None:
    class KeyQueue(nn.Module):
        def __init__(self, dim: int = 8, size: int = 32) -> None:
            super().__init__()
            self.register_buffer("queue", F.normalize(torch.randn(dim, size), dim=0))
            self.register_buffer("queue_ptr", torch.zeros(1))

        @torch.no_grad()
        def enqueue(self, keys: torch.Tensor) -> None:
            positions = (self.queue_ptr + torch.arange(len(keys))) % self.queue.shape[1]
            self.queue.index_copy_(1, positions, keys.T)
            self.queue_ptr.add_(len(keys)).remainder_(self.queue.shape[1])

    torch.manual_seed(0)
    queue = KeyQueue()
    queue.enqueue(F.normalize(torch.randn(8, 8), dim=1))


def _moco_false_negative_masked_fill_f16() -> None:
    torch.manual_seed(0)
    q = F.normalize(torch.randn(8, 16), dim=1).half()
    queue = F.normalize(torch.randn(16, 64), dim=0).half()
    queue_labels = torch.randint(0, 4, (64,))
    pseudo_labels = torch.randint(0, 4, (8,))
    l_neg = q @ queue / 0.07
    same_cluster = pseudo_labels[:, None] == queue_labels[None, :]
    l_neg.masked_fill_(same_cluster, -1e5)  # drop the false negatives from the softmax


def _npid_memory_bank_negatives_bmm() -> None:
    torch.manual_seed(0)
    n_data, dim, negatives = 100, 16, 10
    stdv = 1.0 / math.sqrt(dim / 3)
    memory = torch.rand(n_data, dim).mul_(2 * stdv).add_(-stdv)
    encoder = nn.Sequential(_ConvEncoder(), nn.Linear(16, dim)).to(bf16)
    x, _ = _views()
    features = F.normalize(encoder(x.to(bf16)), dim=1)
    index = torch.arange(8)
    idx = torch.randint(0, n_data, (8, negatives + 1))
    idx[:, 0] = index
    weight = memory.index_select(0, idx.view(-1)).view(8, negatives + 1, dim)
    scores = torch.bmm(weight, features.view(8, dim, 1)).squeeze(2) / 0.07
    F.cross_entropy(scores, torch.zeros(8, dtype=torch.long))


def _npid_memory_bank_f16_momentum_rows() -> None:
    torch.manual_seed(0)
    memory = F.normalize(torch.randn(100, 16), dim=1).half()  # the bank for a large dataset kept in fp16
    encoder = nn.Sequential(_ConvEncoder(), nn.Linear(16, 16)).to(bf16)
    x, _ = _views()
    features = F.normalize(encoder(x.to(bf16)), dim=1)
    index, momentum = torch.arange(8), 0.5
    with torch.no_grad():
        rows = memory[index] * momentum + features * (1 - momentum)
        memory[index] = F.normalize(rows, dim=1)


# --- BYOL, SimSiam, NNCLR ---------------------------------------------------------------------------------------------

def _byol_target_deepcopy_before_cast() -> None:
    torch.manual_seed(0)
    online = nn.Sequential(_ConvEncoder(), _mlp(16, 32, 8))
    target = copy.deepcopy(online).requires_grad_(False)  # made before the online network was cast
    predictor = _mlp(8, 32, 8).to(bf16)
    online = online.to(bf16)
    x1, x2 = _views()
    p = F.normalize(predictor(online(x1.to(bf16))), dim=1)
    with torch.no_grad():
        z = F.normalize(target(x2.to(bf16)), dim=1)
    (2 - 2 * (p * z).sum(dim=1)).mean().backward()


def _simsiam_halved_grad_scaler() -> None:
    torch.manual_seed(0)
    encoder = nn.Sequential(_ConvEncoder(), _mlp(16, 32, 8))
    predictor = _mlp(8, 16, 8).half()  # the predictor halved to save memory
    optimizer = torch.optim.SGD([*encoder.parameters(), *predictor.parameters()], lr=0.05)
    scaler = torch.amp.GradScaler("cpu")
    x1, x2 = _views()
    z1, z2 = encoder(x1), encoder(x2)
    p1, p2 = predictor(z1.half()).float(), predictor(z2.half()).float()
    loss = -(F.cosine_similarity(p1, z2.detach()).mean() + F.cosine_similarity(p2, z1.detach()).mean()) / 2
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _nnclr_support_set_fp8() -> None:
    torch.manual_seed(0)
    support = F.normalize(torch.randn(64, 8), dim=1).to(E4M3)  # the support set of past embeddings stored in e4m3
    projector, predictor = _mlp(16, 32, 8).to(bf16), _mlp(8, 32, 8).to(bf16)
    encoder = _ConvEncoder().to(bf16)
    x1, x2 = _views()
    z1 = F.normalize(projector(encoder(x1.to(bf16))), dim=1)
    p2 = F.normalize(predictor(projector(encoder(x2.to(bf16)))), dim=1)
    nearest = (z1 @ support.to(bf16).T).argmax(dim=1)
    neighbours = support[nearest]
    (-(neighbours * p2).sum(dim=1)).mean().backward()


# --- DINO: multi-crop, centering, sharpening, the weight-normed head ---------------------------------------------------

class _DINOHead(nn.Module):
    """MLP to a bottleneck, l2-normalised, then the weight-normed last layer whose gain is frozen at 1."""

    def __init__(self, in_dim: int = 16, out_dim: int = 32, bottleneck: int = 8) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, 32), nn.GELU(), nn.Linear(32, bottleneck))
        self.last_layer = nn.utils.weight_norm(nn.Linear(bottleneck, out_dim, bias=False))
        self.last_layer.weight_g.data.fill_(1)
        self.last_layer.weight_g.requires_grad = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.last_layer(F.normalize(self.mlp(x), dim=-1))


def _dino_head_frozen_gain_left_fp32() -> None:
    torch.manual_seed(0)
    student = nn.Sequential(_ConvEncoder(), _DINOHead())
    for p in student.parameters():  # cast what trains; frozen tensors are left alone
        if p.requires_grad:
            p.data = p.data.to(bf16)
    for module in student.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean, module.running_var = module.running_mean.to(bf16), module.running_var.to(bf16)
    x, _ = _views()
    student(x.to(bf16))


def _dino_multicrop_local_crops_fp32() -> None:
    torch.manual_seed(0)
    backbone = _ConvEncoder().to(bf16)
    g = torch.Generator().manual_seed(0)
    global_crops = [torch.rand(4, 3, 8, 8, generator=g).to(bf16) for _ in range(2)]  # decoded on the fast path
    local_crops = [torch.rand(4, 3, 4, 4, generator=g) for _ in range(4)]  # the slower augmentation path's fp32
    crops = global_crops + local_crops
    sizes = torch.tensor([crop.shape[-1] for crop in crops])
    idx_crops = torch.cumsum(torch.unique_consecutive(sizes, return_counts=True)[1], 0)
    start, outputs = 0, []
    for end in idx_crops.tolist():
        outputs.append(backbone(torch.cat(crops[start:end])))
        start = end


def _dino_center_lerp() -> None:
    class DINOLoss(nn.Module):
        def __init__(self, out_dim: int = 32, center_momentum: float = 0.9) -> None:
            super().__init__()
            self.register_buffer("center", torch.zeros(1, out_dim))
            self.center_momentum = center_momentum

        def forward(self, student: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
            q = F.softmax((teacher - self.center) / 0.04, dim=-1).detach()
            loss = torch.sum(-q * F.log_softmax(student / 0.1, dim=-1), dim=-1).mean()
            self.update_center(teacher)
            return loss

        @torch.no_grad()
        def update_center(self, teacher: torch.Tensor) -> None:
            self.center.lerp_(teacher.mean(dim=0, keepdim=True), 1 - self.center_momentum)

    torch.manual_seed(0)
    student, teacher = nn.Sequential(_ConvEncoder(), _DINOHead()), nn.Sequential(_ConvEncoder(), _DINOHead())
    student, teacher = student.to(bf16), teacher.to(bf16).requires_grad_(False)
    x1, x2 = _views()
    DINOLoss()(student(x1.to(bf16)), teacher(x2.to(bf16)))


def _dino_teacher_fp16_sharpening_overflow() -> None:
    torch.manual_seed(0)
    teacher_out = (torch.randn(8, 32) * 1000).half()  # the fp16 teacher's head output before the softmax
    student_out = torch.randn(8, 32, requires_grad=True)
    with torch.autograd.detect_anomaly():
        q = F.softmax(teacher_out / 0.04, dim=-1).float()  # sharpened with a low teacher temperature, in fp16
        loss = torch.sum(-q * F.log_softmax(student_out / 0.1, dim=-1), dim=-1).mean()
        loss.backward()


# --- masked image modelling: MAE, SimMIM, BEiT, data2vec ---------------------------------------------------------------

def _mae_mask_token_added_after_cast() -> None:
    class MAEDecoder(nn.Module):
        def __init__(self, dim: int = 16, length: int = 4) -> None:
            super().__init__()
            self.decoder_embed = nn.Linear(16, dim)
            self.decoder_pos_embed = nn.Parameter(torch.randn(1, length + 1, dim) * 0.02)
            self.decoder_blocks = nn.ModuleList([_Block(dim)])
            self.decoder_pred = nn.Linear(dim, 4 * 4 * 3)

        def forward(self, x: torch.Tensor, ids_restore: torch.Tensor) -> torch.Tensor:
            x = self.decoder_embed(x)
            mask_tokens = self.mask_token.repeat(x.shape[0], ids_restore.shape[1] + 1 - x.shape[1], 1)
            x_ = torch.cat([x[:, 1:], mask_tokens], dim=1)
            x_ = torch.gather(x_, 1, ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2]))
            x = torch.cat([x[:, :1], x_], dim=1) + self.decoder_pos_embed
            for block in self.decoder_blocks:
                x = block(x)
            return self.decoder_pred(x)[:, 1:]

    torch.manual_seed(0)
    encoder, decoder = _TinyViT().to(bf16), MAEDecoder().to(bf16)
    decoder.mask_token = nn.Parameter(torch.zeros(1, 1, 16))  # added by the pretraining script after .to(bf16)
    nn.init.normal_(decoder.mask_token, std=0.02)
    images, _ = _views()
    tokens, _, ids_restore = _random_masking(encoder.tokens(images.to(bf16)), 0.75)
    cls = (encoder.cls_token + encoder.pos_embed[:, :1]).expand(len(tokens), -1, -1)
    latent = torch.cat([cls, tokens], dim=1)
    for block in encoder.blocks:
        latent = block(latent)
    decoder(encoder.norm(latent), ids_restore)


def _mae_norm_pix_target_uint8() -> None:
    torch.manual_seed(0)
    images = torch.randint(0, 256, (4, 3, 8, 8), dtype=torch.uint8)  # the decoded JPEGs kept as bytes for the target
    pred = torch.randn(4, 4, 48, dtype=bf16, requires_grad=True)
    target = _patchify(images, 4)
    mean = target.mean(dim=-1, keepdim=True)
    var = target.var(dim=-1, keepdim=True)
    target = (target - mean) / (var + 1.0e-6) ** 0.5
    ((pred - target) ** 2).mean().backward()


def _mae_float_mask_selects_masked_patches() -> None:
    torch.manual_seed(0)
    images, _ = _views()
    patches = _patchify(images, 4).to(bf16)
    _, mask, _ = _random_masking(patches, 0.75)
    pred = torch.randn_like(patches, requires_grad=True)
    loss = F.mse_loss(pred[mask], patches[mask])  # only the removed patches count
    loss.backward()


def _mae_mask_coverage_counts_in_place() -> None:
    class MaskCoverage(nn.Module):
        """How often each patch position was masked, logged to check the masking is uniform."""

        def __init__(self, length: int = 4) -> None:
            super().__init__()
            self.register_buffer("counts", torch.zeros(length, dtype=torch.long))

        @torch.no_grad()
        def update(self, mask: torch.Tensor) -> None:
            self.counts += mask.sum(dim=0)

    torch.manual_seed(0)
    images, _ = _views()
    _, mask, _ = _random_masking(_patchify(images, 4).to(bf16), 0.75)
    MaskCoverage().update(mask)


def _simmim_bf16_mask_where() -> None:
    class SimMIMEncoder(_TinyViT):
        def __init__(self) -> None:
            super().__init__()
            self.mask_token = nn.Parameter(torch.zeros(1, 1, 16))

        def masked_tokens(self, images: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            x = self.tokens(images)
            return torch.where(mask.unsqueeze(-1), self.mask_token.expand_as(x), x)

    torch.manual_seed(0)
    model = SimMIMEncoder().to(bf16)
    images, _ = _views(4)
    mask = (torch.rand(4, 4, generator=torch.Generator().manual_seed(0)) < 0.6).to(bf16)  # collated with the images
    model.masked_tokens(images.to(bf16), mask)


def _beit_numpy_int_mask_masked_fill() -> None:
    def block_mask(height: int, width: int, num_masked: int, rng: np.random.Generator) -> np.ndarray:
        """BEiT-style blockwise masking generator, as the data pipeline writes it."""
        mask = np.zeros((height, width), dtype=int)
        while mask.sum() < num_masked:
            top, left = rng.integers(0, height - 1), rng.integers(0, width - 1)
            mask[top:top + 2, left:left + 2] = 1
        return mask

    torch.manual_seed(0)
    model = _TinyViT().to(bf16)
    images, _ = _views(4)
    rng = np.random.default_rng(0)
    bool_masked_pos = torch.from_numpy(np.stack([block_mask(2, 2, 2, rng).reshape(-1) for _ in range(4)]))
    tokens = model.tokens(images.to(bf16))
    tokens.masked_fill(bool_masked_pos.unsqueeze(-1), 0.0)


def _data2vec_teacher_reuses_student_padding_mask() -> None:
    torch.manual_seed(0)
    student = _TinyViT().to(bf16)
    teacher = copy.deepcopy(_TinyViT()).requires_grad_(False)  # the EMA teacher kept in fp32 for stable targets
    images, _ = _views(4)
    lengths = torch.tensor([5, 5, 3, 4])  # variable-size inputs padded to 5 tokens (cls + 4 patches)
    padded = torch.arange(5)[None, :] >= lengths[:, None]
    bias = torch.zeros(4, 1, 1, 5, dtype=bf16).masked_fill(padded[:, None, None, :], float("-inf"))
    student(images.to(bf16), attn_mask=bias)
    with torch.no_grad():
        teacher(images, attn_mask=bias)


# --- Barlow Twins, whitening, collapse monitoring --------------------------------------------------------------------

def _barlow_twins_fp32_projector_bf16_bn() -> None:
    class BarlowTwins(nn.Module):
        def __init__(self, dim: int = 16) -> None:
            super().__init__()
            self.backbone = _ConvEncoder()
            self.projector = _mlp(16, 32, dim)
            self.bn = nn.BatchNorm1d(dim, affine=False)

        def forward(self, y1: torch.Tensor, y2: torch.Tensor) -> torch.Tensor:
            z1, z2 = self.projector(self.backbone(y1).float()), self.projector(self.backbone(y2).float())
            c = self.bn(z1).T @ self.bn(z2) / len(z1)
            on_diag = torch.diagonal(c).add(-1).pow(2).sum()
            off_diag = (c - torch.diag(torch.diagonal(c))).pow(2).sum()
            return on_diag + 0.005 * off_diag

    torch.manual_seed(0)
    model = BarlowTwins().to(bf16)
    model.projector.float()  # the projector kept in fp32 for a stable cross-correlation
    x1, x2 = _views()
    model(x1.to(bf16), x2.to(bf16))


def _wmse_whitening_cholesky_bf16() -> None:
    torch.manual_seed(0)
    encoder = nn.Sequential(_ConvEncoder(), nn.Linear(16, 4)).to(bf16)
    x1, _ = _views(16)
    z = encoder(x1.to(bf16))
    centred = z - z.mean(dim=0)
    cov = centred.T @ centred / (len(z) - 1) + 1e-3 * torch.eye(4, dtype=z.dtype)
    factor = torch.linalg.cholesky(cov)
    torch.linalg.solve_triangular(factor, centred.T, upper=False)


def _rankme_svdvals_bf16() -> None:
    torch.manual_seed(0)
    encoder = nn.Sequential(_ConvEncoder(), _mlp(16, 32, 8)).to(bf16).eval()
    x, _ = _views(16)
    with torch.no_grad():
        embeddings = encoder(x.to(bf16))
    singular = torch.linalg.svdvals(embeddings)
    p = singular / singular.sum() + 1e-7
    math.exp(-(p * p.log()).sum().item())


# --- evaluation: k-NN, linear and attentive probes -------------------------------------------------------------------

def _knn_classifier_int32_labels_one_hot() -> None:
    torch.manual_seed(0)
    train_features = F.normalize(torch.randn(50, 16), dim=1).to(bf16)
    train_labels = torch.from_numpy(np.random.default_rng(0).integers(0, 5, 50).astype(np.int32))
    test_features = F.normalize(torch.randn(8, 16), dim=1).to(bf16)
    similarity = test_features @ train_features.T
    distances, indices = similarity.topk(5, dim=1)
    candidates = train_labels.view(1, -1).expand(8, -1)
    retrieved = torch.gather(candidates, 1, indices)
    votes = F.one_hot(retrieved, 5) * (distances / 0.07).exp().unsqueeze(-1)
    votes.sum(dim=1).argmax(dim=1)


def _knn_embeddings_bf16_to_numpy() -> None:
    torch.manual_seed(0)
    encoder = nn.Sequential(_ConvEncoder(), nn.Linear(16, 8)).to(bf16).eval()
    x, _ = _views()
    with torch.no_grad():
        embeddings = F.normalize(encoder(x.to(bf16)), dim=1)
    bank = embeddings.cpu().numpy()  # handed to the nearest-neighbour index
    np.argsort(-(bank @ bank.T), axis=1)[:, 1:6]


def _linear_probe_fp32_head_bf16_features() -> None:
    torch.manual_seed(0)
    backbone = _ConvEncoder().to(bf16).eval().requires_grad_(False)
    probe = nn.Linear(16, 10)
    optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
    x, _ = _views()
    labels = torch.arange(8) % 10
    with torch.no_grad():
        features = backbone(x.to(bf16))
    loss = F.cross_entropy(probe(features), labels)
    loss.backward()
    optimizer.step()


def _attentive_probe_fp32_query() -> None:
    class AttentivePooler(nn.Module):
        """One learned query attends over the frozen patch tokens (parameter-free keys and values), then a classifier."""

        def __init__(self, dim: int = 16, heads: int = 2, classes: int = 10) -> None:
            super().__init__()
            self.heads = heads
            self.query = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
            self.head = nn.Linear(dim, classes)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            n, length, dim = tokens.shape
            q = self.query.expand(n, -1, -1).reshape(n, 1, self.heads, dim // self.heads).transpose(1, 2)
            kv = tokens.reshape(n, length, self.heads, dim // self.heads).transpose(1, 2)
            pooled = F.scaled_dot_product_attention(q, kv, kv).transpose(1, 2).reshape(n, dim)
            return self.head(pooled)

    torch.manual_seed(0)
    backbone = _TinyViT().to(bf16).eval().requires_grad_(False)
    x, _ = _views(4)
    with torch.no_grad():
        tokens = backbone(x.to(bf16))[:, 1:]
    AttentivePooler()(tokens)


def _online_probe_scaler_step_without_probe_loss() -> None:
    torch.manual_seed(0)
    encoder, projector, probe = _ConvEncoder(), _mlp(16, 32, 8), nn.Linear(16, 10)
    ssl_optimizer = torch.optim.SGD([*encoder.parameters(), *projector.parameters()], lr=0.1)
    probe_optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    x1, x2 = _views()
    labels = torch.arange(8) % 10
    for step in range(2):
        with torch.autocast("cpu", dtype=bf16):
            h1, h2 = encoder(x1), encoder(x2)
            z1, z2 = F.normalize(projector(h1), dim=1), F.normalize(projector(h2), dim=1)
            loss = F.cross_entropy(z1 @ z2.T / 0.1, torch.arange(8))
            if step % 2 == 1:  # the online probe is trained every other step
                loss = loss + F.cross_entropy(probe(h1.detach()), labels)
        scaler.scale(loss).backward()
        scaler.step(ssl_optimizer)
        scaler.step(probe_optimizer)
        scaler.update()
        ssl_optimizer.zero_grad()
        probe_optimizer.zero_grad()


def _deepcluster_pseudo_labels_float_buffer() -> None:
    torch.manual_seed(0)
    encoder = nn.Sequential(_ConvEncoder(), nn.Linear(16, 8)).to(bf16)
    classifier = nn.Linear(8, 4).to(bf16)
    x, _ = _views()
    with torch.no_grad():
        features = F.normalize(encoder(x.to(bf16)).float(), dim=1)
    centroids = features[:4].clone()
    pseudo_labels = torch.zeros(len(features))  # the dataset-wide assignment buffer
    pseudo_labels[torch.arange(8)] = torch.cdist(features, centroids).argmin(dim=1).float()
    F.cross_entropy(classifier(encoder(x.to(bf16))).float(), pseudo_labels[torch.arange(8)])


def _jigsaw_permutation_labels_int16() -> None:
    torch.manual_seed(0)
    permutations = torch.stack([torch.randperm(4) for _ in range(10)])
    tiles_encoder = nn.Sequential(nn.Flatten(), nn.Linear(3 * 4 * 4, 16)).to(bf16)
    head = nn.Linear(4 * 16, 10).to(bf16)
    images, _ = _views(4)
    tiles = images.unfold(2, 4, 4).unfold(3, 4, 4).reshape(4, 3, 4, 4, 4).permute(0, 2, 1, 3, 4)
    labels = torch.from_numpy(np.random.default_rng(0).integers(0, 10, 4).astype(np.int16))  # stored as int16
    shuffled = torch.stack([tiles[i, permutations[label.long()]] for i, label in enumerate(labels)])
    features = tiles_encoder(shuffled.reshape(16, 3, 4, 4).to(bf16)).reshape(4, 4 * 16)
    F.cross_entropy(head(features).float(), labels)


def _color_jitter_uint8_in_place() -> None:
    g = torch.Generator().manual_seed(0)
    crops = torch.randint(0, 256, (8, 3, 8, 8), dtype=torch.uint8, generator=g)  # decoded crops, still bytes
    brightness = torch.empty(8, 1, 1, 1).uniform_(0.6, 1.4, generator=g)
    crops.mul_(brightness).clamp_(0, 255)


def _mocov3_frozen_patch_projection_bf16_buffer() -> None:
    class FrozenPatchEmbed(nn.Module):
        """MoCo v3's fixed random patch projection: the weight kept as a bf16 buffer, the bias left trainable."""

        def __init__(self, dim: int = 16, patch: int = 4) -> None:
            super().__init__()
            self.patch = patch
            self.register_buffer("weight", (torch.randn(dim, 3, patch, patch) * 0.02).to(bf16))
            self.bias = nn.Parameter(torch.zeros(dim))

        def forward(self, images: torch.Tensor) -> torch.Tensor:
            return F.conv2d(images, self.weight, self.bias, stride=self.patch).flatten(2).transpose(1, 2)

    torch.manual_seed(0)
    images, _ = _views(4)
    FrozenPatchEmbed()(images.to(bf16))


def _cpc_gru_autoregressor_kept_fp32() -> None:
    class CPC(nn.Module):
        def __init__(self, dim: int = 8) -> None:
            super().__init__()
            self.encoder = nn.Sequential(nn.Conv1d(1, dim, 4, stride=2), nn.ReLU(), nn.Conv1d(dim, dim, 4, stride=2))
            self.autoregressor = nn.GRU(dim, dim, batch_first=True)
            self.predictors = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])

        def forward(self, audio: torch.Tensor) -> torch.Tensor:
            z = self.encoder(audio).transpose(1, 2)
            context, _ = self.autoregressor(z)
            return torch.stack([predict(context) for predict in self.predictors])

    torch.manual_seed(0)
    model = CPC()
    model.encoder.to(bf16)  # recurrent layers left in fp32
    model(torch.randn(2, 1, 64).to(bf16))


def _siglip_sigmoid_bce_eye_labels() -> None:
    torch.manual_seed(0)
    image_tower = nn.Sequential(_ConvEncoder(), nn.Linear(16, 8)).to(bf16)
    text_tower = nn.EmbeddingBag(50, 8).to(bf16)
    t_prime, bias = nn.Parameter(torch.tensor(math.log(10.0))), nn.Parameter(torch.tensor(-10.0))
    images, _ = _views()
    captions = torch.randint(0, 50, (8, 6))
    zimg = F.normalize(image_tower(images.to(bf16)), dim=1)
    ztxt = F.normalize(text_tower(captions), dim=1)
    logits = zimg @ ztxt.T * t_prime.exp() + bias
    labels = torch.eye(8)  # 1 on the matching pairs, 0 elsewhere
    F.binary_cross_entropy(torch.sigmoid(logits), labels, reduction="sum").div(8).backward()


CASES: dict[str, LiveCase] = {
    # --- contrastive: SimCLR, SupCon, MoCo, memory banks
    # SupCon in bf16: self-contrast removed with masked_fill(eye, torch.finfo(torch.float32).min) on the bf16 logits
    "supcon-self-mask-float32-min-bf16": case(_supcon_self_mask_float32_min_bf16, "half_overflow", "bf16", grade="correct", grade_at_freeze="correct"),
    # MoCo queue kept as a plain fp16 attribute (not a buffer), so .to(bf16) skips it: l_neg = mm(q_bf16, queue_f16)
    "moco-queue-plain-attribute-f16": case(_moco_queue_plain_attribute_f16, "matmul_dtype", "bf16", "f16", grade="correct", grade_at_freeze="correct"),
    # MoCo enqueue by index_copy_ with positions from a queue_ptr buffer registered as torch.zeros(1) (float)
    "moco-enqueue-index-copy-float-pointer": case(_moco_enqueue_index_copy_float_pointer, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # false-negative cancellation on fp16 queue logits: same-cluster negatives masked_fill_'ed with -1e5
    "moco-false-negative-masked-fill-f16": case(_moco_false_negative_masked_fill_f16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # NPID: negatives drawn from an fp32 memory bank, scored by bmm against the bf16 encoder's features
    "npid-memory-bank-negatives-bmm": case(_npid_memory_bank_negatives_bmm, "batched_matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # NPID memory bank kept in fp16; the momentum-updated rows (fp16 * m + bf16 * (1 - m) = fp32) written back by index
    "npid-memory-bank-f16-momentum-rows": case(_npid_memory_bank_f16_momentum_rows, "indexed_write_dtype", "f16",
                                               "f32", grade="correct", grade_at_freeze="correct"),
    # --- BYOL, SimSiam, NNCLR
    # BYOL's target network deep-copied before the online network was cast to bf16, then fed the bf16 view
    "byol-target-deepcopy-before-cast": case(_byol_target_deepcopy_before_cast, "conv_weight_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # SimSiam with the predictor halved to save memory, trained through GradScaler: unscale_ meets fp16 gradients
    "simsiam-halved-predictor-grad-scaler": case(_simsiam_halved_grad_scaler, "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
    # NNCLR support set stored in float8_e4m3fn: the retrieved neighbours multiplied with bf16 predictions
    "nnclr-support-set-fp8-neighbours": case(_nnclr_support_set_fp8, "fp8_promotion", "float8_e4m3fn", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- DINO
    # DINO head: only trainable params cast to bf16, so the frozen weight-norm gain (weight_g) stays fp32
    "dino-head-frozen-weight-norm-gain-fp32": case(_dino_head_frozen_gain_left_fp32, "op_dtype", "bf16", "f32", grade="correct", grade_at_freeze="wrong",
        why="At freeze (a6443cb) castwise gave scalar_type [bf16, f32] (low confidence). The generic 'expected scalar type BFloat16 but found Float' is raised in torch._weight_norm inside weight_norm's forward pre-hook (the frozen fp32 gain weight_g against the bf16 direction weight_v); castwise read the module (self.last_layer) but no op from the hook's frames, so it fell back to the generic scalar-type reading instead of the weight-norm op mixing two float dtypes."),
    # DINO multi-crop: local crops from a second augmentation path arrive fp32 at the bf16 backbone
    "dino-multicrop-local-crops-fp32": case(_dino_multicrop_local_crops_fp32, "conv_weight_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # DINO centering: the fp32 center buffer lerp_'ed toward the bf16 teacher's batch mean
    "dino-center-lerp-bf16-teacher": case(_dino_center_lerp, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # DINO teacher sharpening (temperature 0.04) computed in fp16: the softmax overflows to NaN, anomaly mode raises
    "dino-teacher-fp16-sharpening-nan": case(_dino_teacher_fp16_sharpening_overflow, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # --- masked image modelling
    # MAE mask token registered after the decoder was cast to bf16: the fp32 token promotes the sequence, LayerNorm raises
    "mae-mask-token-added-after-cast": case(_mae_mask_token_added_after_cast, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # MAE norm_pix_loss targets patchified from uint8 images: mean over an integer tensor
    "mae-norm-pix-target-uint8": case(_mae_norm_pix_target_uint8, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # MAE loss on removed patches only, selected with the float 0/1 mask that gather(ids_restore) returns
    "mae-float-mask-selects-patches": case(_mae_float_mask_selects_masked_patches, "index_tensor_dtype",
                                           fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # MAE mask-coverage statistics: the float 0/1 mask summed in place into an int64 counts buffer
    "mae-mask-coverage-counts-in-place": case(_mae_mask_coverage_counts_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # SimMIM: the patch mask collated with the images (cast to bf16) used as torch.where's condition
    "simmim-bf16-mask-where": case(_simmim_bf16_mask_where, "mask_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # BEiT blockwise mask from a numpy int generator used directly in masked_fill
    "beit-numpy-int-mask-masked-fill": case(_beit_numpy_int_mask_masked_fill, "mask_dtype", "int64", grade="correct", grade_at_freeze="correct"),
    # data2vec: the additive padding mask built in the bf16 student's dtype reused by the fp32 EMA teacher's SDPA
    "data2vec-teacher-reuses-bf16-padding-mask": case(_data2vec_teacher_reuses_student_padding_mask,
                                                      "attn_mask_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # --- Barlow Twins, whitening, collapse monitoring
    # Barlow Twins: projector kept fp32 after model.to(bf16), the loss's affine-free BatchNorm1d cast with the model
    "barlow-twins-fp32-projector-bf16-bn": case(_barlow_twins_fp32_projector_bf16_bn, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # W-MSE whitening: Cholesky of the bf16 embeddings' covariance
    "wmse-whitening-cholesky-bf16": case(_wmse_whitening_cholesky_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # RankMe collapse monitor: singular values of the bf16 embeddings
    "rankme-svdvals-bf16": case(_rankme_svdvals_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- evaluation
    # k-NN monitor with train labels from numpy int32: one_hot of the retrieved labels
    "knn-int32-labels-one-hot": case(_knn_classifier_int32_labels_one_hot, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # k-NN retrieval: the bf16 embeddings handed to a numpy-based index with .numpy()
    "knn-embeddings-bf16-numpy": case(_knn_embeddings_bf16_to_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # linear probe: a fresh fp32 Linear trained on a frozen bf16 backbone's features, no autocast
    "linear-probe-fp32-head-bf16-features": case(_linear_probe_fp32_head_bf16_features, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # attentive probe: an fp32 learned query attends over frozen bf16 patch tokens with SDPA
    "attentive-probe-fp32-query-sdpa": case(_attentive_probe_fp32_query, "sdpa_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # an online linear probe trained every other step, its optimizer stepped through GradScaler every step
    "online-probe-scaler-step-without-grads": case(_online_probe_scaler_step_without_probe_loss, "loss_scale", grade="correct", grade_at_freeze="correct"),
    # DeepCluster pseudo-labels written into a dataset-wide torch.zeros buffer (float), used as cross-entropy targets
    "deepcluster-pseudo-labels-float-buffer": case(_deepcluster_pseudo_labels_float_buffer, "target_dtype", "f32",
                                                   fix=("long",), grade="correct", grade_at_freeze="correct"),
    # jigsaw pretext: permutation-index labels stored as int16, given to cross_entropy
    "jigsaw-permutation-labels-int16": case(_jigsaw_permutation_labels_int16, "target_dtype", "int16", grade="correct", grade_at_freeze="correct"),
    # --- augmentation, patch embedding, CPC, SigLIP
    # colour jitter on uint8 crops in place by a float brightness factor
    "color-jitter-uint8-in-place": case(_color_jitter_uint8_in_place, "result_cast", "f32", "uint8", grade="correct", grade_at_freeze="correct"),
    # MoCo v3 frozen random patch projection: bf16 weight buffer with the trainable bias left fp32
    "mocov3-frozen-patch-projection-fp32-bias": case(_mocov3_frozen_patch_projection_bf16_buffer, "conv_bias_dtype",
                                                     "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # CPC: the conv encoder cast to bf16, the GRU autoregressor left fp32
    "cpc-gru-autoregressor-kept-fp32": case(_cpc_gru_autoregressor_kept_fp32, "rnn_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # SigLIP written as binary_cross_entropy(sigmoid(logits), eye): bf16 logits from bf16 towers, fp32 eye labels
    "siglip-sigmoid-bce-fp32-eye-labels": case(_siglip_sigmoid_bce_eye_labels, "op_dtype", "f32", "bf16", grade="correct", grade_at_freeze="wrong",
        why="At freeze (a6443cb) castwise gave op_dtype [f32, bf16] (high confidence). binary_cross_entropy checks its input's and target's dtypes in the forward (the innermost frame is torch._C._nn.binary_cross_entropy, not the backward the expectation, written before castwise ran, assumed), so the expectation (loss_dtype) misplaced the op; castwise named binary_cross_entropy and its fix (the prediction and the eye labels in one dtype) would work. After grading, the expectation was corrected from loss_dtype to op_dtype, the convention live_held_out_1's bce-bf16-probs-fp32-labels set for binary_cross_entropy's forward check; grade_at_freeze stays wrong."),
}
