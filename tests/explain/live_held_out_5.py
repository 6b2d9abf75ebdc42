"""Held-out live set 5: vision, audio and multimodal models built and trained in low precision (CNNs, ViTs, CLIP,
detection, segmentation, GANs, VAEs, audio front ends, video, point clouds). Defects planted by a helper who never
read the rules, written before castwise ran and graded once with the rules frozen at c1ca11e."""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c1ca11e"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


def _dcgan_discriminator() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 8, 4, 2, 1, bias=False), nn.LeakyReLU(0.2),
        nn.Conv2d(8, 16, 4, 2, 1, bias=False), nn.BatchNorm2d(16), nn.LeakyReLU(0.2),
        nn.Flatten(), nn.Linear(16 * 2 * 2, 1),
    )


def _dcgan_generator() -> nn.Module:
    return nn.Sequential(
        nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.ConvTranspose2d(16, 3, 4, 2, 1, bias=False), nn.Tanh(),
    )


class _VAE(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
        self.decoder = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 16))


def _clip_frozen_half_text_tower() -> None:
    image_tower = nn.Sequential(nn.Conv2d(3, 8, 4, 4), nn.Flatten(), nn.Linear(8 * 2 * 2, 16))
    text_tower = nn.EmbeddingBag(100, 16, mode="mean").half().requires_grad_(False)
    images, tokens = torch.randn(4, 3, 8, 8), torch.randint(0, 100, (4, 6))
    image_embeds = F.normalize(image_tower(images), dim=-1)
    text_embeds = F.normalize(text_tower(tokens), dim=-1)
    logit_scale = torch.tensor(1 / 0.07).log()
    logit_scale.exp() * image_embeds @ text_embeds.t()


def _clip_labels_in_logits_dtype() -> None:
    image_tower = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 16)).to(bf16)
    text_tower = nn.EmbeddingBag(100, 16).to(bf16)
    image_embeds = F.normalize(image_tower(torch.randn(4, 3, 8, 8).to(bf16)), dim=-1)
    text_embeds = F.normalize(text_tower(torch.randint(0, 100, (4, 6))), dim=-1)
    logits = 14.3 * image_embeds @ text_embeds.t()
    labels = torch.arange(logits.shape[0], dtype=logits.dtype)
    (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2


def _vae_noise_in_default_dtype() -> None:
    model = _VAE().to(bf16)
    mu, logvar = model.encoder(torch.rand(4, 16).to(bf16)).chunk(2, dim=-1)
    z = mu + torch.randn(mu.shape) * torch.exp(0.5 * logvar)
    model.decoder(z)


class _LogMelFrontEnd(nn.Module):
    def __init__(self, n_fft: int = 64, n_mels: int = 8) -> None:
        super().__init__()
        n_freq = n_fft // 2 + 1
        centers = torch.linspace(0, n_freq - 1, n_mels + 2)
        bins = torch.arange(n_freq, dtype=torch.float32)[:, None]
        rising = (bins - centers[None, :-2]) / (centers[1:-1] - centers[:-2])
        falling = (centers[None, 2:] - bins) / (centers[2:] - centers[1:-1])
        self.register_buffer("mel_fb", rising.minimum(falling).clamp(min=0))
        self.register_buffer("window", torch.hann_window(n_fft))
        self.n_fft = n_fft

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(wav.float(), self.n_fft, window=self.window.float(), return_complex=True)
        power = spec.abs().pow(2).transpose(-1, -2)
        return torch.log(power @ self.mel_fb + 1e-6)


def _mel_filterbank_buffer_cast() -> None:
    model = nn.ModuleDict({"frontend": _LogMelFrontEnd(), "head": nn.Linear(8, 4)}).to(bf16)
    model["frontend"](torch.randn(2, 512).to(bf16))


def _lovasz_grad(gt_sorted: torch.Tensor) -> torch.Tensor:
    gts = gt_sorted.sum()
    intersection = gts - gt_sorted.float().cumsum(0)
    union = gts + (1 - gt_sorted).float().cumsum(0)
    jaccard = 1.0 - intersection / union
    jaccard[1:] = jaccard[1:] - jaccard[:-1]
    return jaccard


def _lovasz_softmax_in_bf16() -> None:
    model = nn.Conv2d(3, 4, 1).to(bf16)
    probs = model(torch.randn(2, 3, 8, 8).to(bf16)).softmax(1)
    labels = torch.randint(0, 4, (2, 8, 8))
    flat_probs, flat_labels = probs.permute(0, 2, 3, 1).reshape(-1, 4), labels.reshape(-1)
    losses = []
    for c in range(4):
        fg = (flat_labels == c).to(probs.dtype)
        errors = (fg - flat_probs[:, c]).abs()
        errors_sorted, perm = torch.sort(errors, descending=True)
        losses.append(torch.dot(errors_sorted, _lovasz_grad(fg[perm])))


class _TNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(3, 16, 1)
        self.fc = nn.Linear(16, 9)

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        features = self.conv(points.float()).amax(-1)
        return (self.fc(features) + torch.eye(3).flatten()).view(-1, 3, 3)


class _PointNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tnet = _TNet()
        self.mlp = nn.Conv1d(3, 32, 1)

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        transform = self.tnet(points)
        aligned = torch.bmm(points.transpose(2, 1), transform).transpose(2, 1)
        return self.mlp(aligned).amax(-1)


def _pointnet_tnet_kept_fp32() -> None:
    model = _PointNet().to(bf16)
    model.tnet.float()  # the spatial transformer kept in fp32 for stability
    model(torch.randn(2, 3, 64).to(bf16))


def _wgan_gp_interpolates() -> None:
    discriminator, generator = _dcgan_discriminator().to(bf16), _dcgan_generator().to(bf16)
    real = torch.rand(4, 3, 8, 8).to(bf16) * 2 - 1
    fake = generator(torch.randn(4, 8, 1, 1).to(bf16)).detach()
    alpha = torch.rand(4, 1, 1, 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = discriminator(interpolates)
    grads = torch.autograd.grad(scores.sum(), interpolates, create_graph=True)[0]
    ((grads.flatten(1).norm(dim=1) - 1) ** 2).mean()


def _video_clip_normalised_with_fp32_stats() -> None:
    model = nn.Sequential(nn.Conv3d(3, 8, 3, padding=1, bias=False), nn.BatchNorm3d(8), nn.ReLU()).to(bf16)
    frames = torch.randint(0, 256, (2, 3, 4, 8, 8), dtype=torch.uint8)
    clip = frames.to(bf16) / 255
    mean = torch.tensor([0.45, 0.45, 0.45]).view(3, 1, 1, 1)
    std = torch.tensor([0.225, 0.225, 0.225]).view(3, 1, 1, 1)
    model((clip - mean) / std)


class _WSConv2d(nn.Conv2d):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight = self.weight.float()
        mean = weight.mean(dim=(1, 2, 3), keepdim=True)
        std = weight.std(dim=(1, 2, 3), keepdim=True) + 1e-5
        weight = ((weight - mean) / std).to(x.dtype)
        return F.conv2d(x, weight, self.bias, self.stride, self.padding)


def _weight_standardised_conv_bias() -> None:
    stem = _WSConv2d(3, 8, 3, padding=1)
    images = torch.rand(2, 3, 8, 8).to(bf16)  # the loader hands out bf16 images to save memory
    stem(images)


def _cross_attention_text_fp32_vision_bf16() -> None:
    vision = nn.Sequential(nn.Linear(12, 16), nn.GELU()).to(bf16)
    to_q = nn.Linear(16, 16)
    to_kv = nn.Linear(16, 32).to(bf16)
    image_tokens = vision(torch.randn(2, 9, 12).to(bf16))
    text_states = torch.randn(2, 5, 16)
    q = to_q(text_states).view(2, 5, 2, 8).transpose(1, 2)
    k, v = (t.view(2, 9, 2, 8).transpose(1, 2) for t in to_kv(image_tokens).chunk(2, dim=-1))
    F.scaled_dot_product_attention(q, k, v)


def _swin_window_mask_in_half_attention() -> None:
    attention = nn.MultiheadAttention(8, 2, batch_first=True).half()
    tokens = torch.randn(2, 16, 8).half()
    region = torch.arange(16) // 4 % 2  # regions of a shifted window
    mask = torch.zeros(16, 16)
    mask.masked_fill_(region[:, None] != region[None, :], -100.0)
    attention(tokens, tokens, tokens, attn_mask=mask)


class _Captioner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 4, 4), nn.Flatten(), nn.Linear(8 * 2 * 2, 16))
        self.embed = nn.Embedding(50, 16)
        self.lstm = nn.LSTM(16, 16, batch_first=True)
        self.out = nn.Linear(16, 50)

    def forward(self, images: torch.Tensor, captions: torch.Tensor) -> torch.Tensor:
        image_step = self.encoder(images)[:, None]
        hidden, _ = self.lstm(torch.cat([image_step, self.embed(captions)], dim=1))
        return self.out(hidden)


def _captioner_image_step_fp32() -> None:
    model = _Captioner()
    model.embed.to(bf16)
    model.lstm.to(bf16)
    model.out.to(bf16)  # the pretrained CNN encoder is left in fp32
    model(torch.randn(2, 3, 8, 8), torch.randint(0, 50, (2, 5)))


def _llava_merge_image_features() -> None:
    image_token = 49
    language_embed = nn.Embedding(50, 16).to(bf16)
    vision_tower = nn.Linear(12, 12).to(bf16)
    projector = nn.Sequential(nn.Linear(12, 16), nn.GELU(), nn.Linear(16, 16))  # new, trained in fp32
    input_ids = torch.tensor([[1, image_token, image_token, image_token, 7, 8]])
    inputs_embeds = language_embed(input_ids)
    image_features = projector(vision_tower(torch.randn(3, 12).to(bf16)).float())
    mask = (input_ids == image_token)[..., None].expand_as(inputs_embeds)
    inputs_embeds.masked_scatter(mask, image_features)


def _detections_into_padded_output() -> None:
    head = nn.Linear(16, 5).to(bf16)
    features = torch.randn(2, 10, 16).to(bf16)
    output = torch.zeros(2, 4, 4)
    for image, feats in enumerate(features):
        raw = head(feats)
        scores, boxes = raw[:, 0].sigmoid(), raw[:, 1:]
        keep = scores.topk(4).indices
        output[image].index_copy_(0, torch.arange(4), boxes[keep])


def _stylegan_ema_generator_fp32() -> None:
    generator = _dcgan_generator().to(bf16)
    generator_ema = copy.deepcopy(generator).float().requires_grad_(False)  # EMA kept in fp32
    beta = 0.999
    with torch.no_grad():
        for p_ema, p in zip(generator_ema.parameters(), generator.parameters()):
            p_ema.copy_(p.lerp(p_ema, beta))


def _retrieval_fp8_embedding_cache() -> None:
    encoder = nn.Linear(12, 16).to(bf16)
    gallery = F.normalize(torch.randn(100, 16), dim=-1).to(E4M3)  # cached in fp8 to fit in memory
    query = F.normalize(encoder(torch.randn(12).to(bf16)), dim=-1)
    (gallery * query).sum(-1).topk(5)


def _vqa_bilinear_fusion() -> None:
    image_encoder = nn.Sequential(nn.Conv2d(3, 8, 4, 4), nn.Flatten(), nn.Linear(32, 16)).to(bf16)
    text_encoder = nn.EmbeddingBag(100, 12)  # frozen fp32 text encoder
    fusion = nn.Bilinear(16, 12, 10).to(bf16)
    image = image_encoder(torch.randn(2, 3, 8, 8).to(bf16))
    with torch.no_grad():
        question = text_encoder(torch.randint(0, 100, (2, 7)))
    fusion(image, question)


def _segmentation_uint8_mask() -> None:
    model = nn.Conv2d(3, 5, 3, padding=1)
    mask = torch.from_numpy(np.random.default_rng(0).integers(0, 5, (2, 8, 8), dtype=np.uint8))  # a PNG label map
    F.cross_entropy(model(torch.randn(2, 3, 8, 8)), mask, ignore_index=255)


def _binary_segmentation_bool_mask() -> None:
    model = nn.Conv2d(3, 1, 3, padding=1)
    mask = torch.rand(2, 1, 8, 8) > 0.5
    nn.BCEWithLogitsLoss()(model(torch.randn(2, 3, 8, 8)), mask)


def _dice_one_hot_uint8_mask() -> None:
    model = nn.Conv2d(3, 4, 3, padding=1)
    probs = model(torch.randn(2, 3, 8, 8)).softmax(1)
    mask = torch.randint(0, 4, (2, 8, 8), dtype=torch.uint8)
    one_hot = F.one_hot(mask, 4).permute(0, 3, 1, 2).to(probs.dtype)
    1 - 2 * (probs * one_hot).sum((2, 3)) / (probs.sum((2, 3)) + one_hot.sum((2, 3)) + 1e-6)


def _video_frame_sampling_linspace() -> None:
    video = torch.randn(2, 30, 3, 8, 8)  # batch, time, channels, height, width
    frame_ids = torch.linspace(0, video.shape[1] - 1, 8)
    video.index_select(1, frame_ids)


def _anchors_on_integer_grid() -> None:
    stride, height, width = 8, 4, 5
    shift_y, shift_x = torch.meshgrid(torch.arange(height) * stride, torch.arange(width) * stride, indexing="ij")
    centers = torch.stack([shift_x, shift_y], dim=-1).reshape(-1, 2)
    centers += stride / 2


def _pcm_normalised_in_place() -> None:
    samples = np.random.default_rng(0).integers(-32768, 32767, 1600, dtype=np.int16)  # read from a 16-bit wav
    wav = torch.from_numpy(samples)
    wav /= 32768


def _stft_on_int16_pcm() -> None:
    wav = torch.from_numpy(np.random.default_rng(0).integers(-32768, 32767, 1600, dtype=np.int16))
    torch.stft(wav, 256, hop_length=128, window=torch.hann_window(256), return_complex=True)


def _video_motion_score_uint8() -> None:
    frames = torch.randint(0, 256, (8, 3, 16, 16), dtype=torch.uint8)
    (frames[1:] - frames[:-1]).abs().mean(dim=(1, 2, 3))


def _label_map_resized_nearest() -> None:
    logits = nn.Conv2d(3, 5, 3, stride=2, padding=1)(torch.randn(2, 3, 16, 16))
    labels = torch.randint(0, 5, (2, 16, 16))
    F.interpolate(labels[:, None], size=logits.shape[-2:], mode="nearest")


def _mask_dilation_max_pool() -> None:
    mask = torch.rand(2, 16, 16) > 0.7
    F.max_pool2d(mask[:, None], kernel_size=3, stride=1, padding=1)


def _farthest_point_sampling_half() -> None:
    xyz = torch.randn(2, 64, 3).half()
    batch, n = xyz.shape[:2]
    distance = torch.full((batch, n), 1e10, dtype=xyz.dtype, device=xyz.device)
    farthest = torch.zeros(batch, dtype=torch.long)
    for _ in range(4):
        centroid = xyz[torch.arange(batch), farthest][:, None]
        distance = torch.minimum(distance, ((xyz - centroid) ** 2).sum(-1))
        farthest = distance.argmax(-1)


def _ground_plane_lstsq_half() -> None:
    points = torch.randn(128, 3).half()  # a LiDAR sweep kept in fp16
    design = torch.cat([points[:, :2], torch.ones(128, 1, dtype=points.dtype)], dim=1)
    torch.linalg.lstsq(design, points[:, 2:])


def _homography_solve_half() -> None:
    src = torch.tensor([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]).half()
    dst = (src * 1.1 + 0.05).half()
    rows = []
    for (x, y), (u, v) in zip(src, dst):
        rows.append(torch.stack([x, y, x.new_ones(()), x * 0, x * 0, x * 0, -u * x, -u * y]))
        rows.append(torch.stack([x * 0, x * 0, x * 0, x, y, x.new_ones(()), -v * x, -v * y]))
    torch.linalg.solve(torch.stack(rows), dst.flatten())


def _feature_gradient_hook_bf16() -> None:
    backbone = nn.Conv2d(3, 8, 3, padding=1)
    head = nn.Linear(8, 2)
    features = backbone(torch.randn(2, 3, 8, 8))
    features.register_hook(lambda grad: grad.to(torch.bfloat16))  # emulates bf16 gradient compression
    head(features.mean((2, 3))).sum().backward()


def _gan_generator_step_on_detached_fake() -> None:
    generator, discriminator = _dcgan_generator(), _dcgan_discriminator()
    opt_g = torch.optim.Adam(generator.parameters(), 2e-4)
    opt_d = torch.optim.Adam(discriminator.parameters(), 2e-4)
    scaler = torch.amp.GradScaler("cpu")
    fake = generator(torch.randn(4, 8, 1, 1)).detach()
    real = torch.rand(4, 3, 8, 8) * 2 - 1
    d_loss = F.softplus(-discriminator(real)).mean() + F.softplus(discriminator(fake)).mean()
    scaler.scale(d_loss).backward()
    scaler.step(opt_d)
    opt_g.zero_grad()
    g_loss = F.softplus(-discriminator(fake)).mean()
    scaler.scale(g_loss).backward()
    scaler.step(opt_g)


def _vae_halved_with_grad_scaler() -> None:
    model = _VAE().half()
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.rand(4, 16).half()
    mu, logvar = model.encoder(x).chunk(2, dim=-1)
    recon = model.decoder(mu + torch.randn_like(mu) * torch.exp(0.5 * logvar))
    kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
    loss = F.mse_loss(recon.float(), x.float()) + kl.float()
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _vae_half_logvar_overflow() -> None:
    torch.manual_seed(0)
    encoder, decoder = nn.Linear(16, 4).half(), nn.Linear(2, 16).half()
    with torch.no_grad():
        encoder.bias[2:].fill_(30.0)  # log-variance after a few unstable steps
    mu, logvar = encoder(torch.rand(4, 16).half()).chunk(2, dim=-1)
    z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)
    likelihood = torch.distributions.Bernoulli(logits=decoder(z))
    likelihood.log_prob(torch.rand(4, 16).round().half())


def _gan_samples_to_numpy() -> None:
    generator = _dcgan_generator().to(bf16).eval()
    with torch.no_grad():
        samples = generator(torch.randn(4, 8, 1, 1).to(bf16))
    grid = ((samples + 1) * 127.5).clamp(0, 255)
    grid.permute(0, 2, 3, 1).numpy().astype(np.uint8)


CASES: dict[str, LiveCase] = {
    # CLIP: the frozen text tower halved to save memory, the image tower trained in fp32; the similarity matmul
    "clip-half-text-tower-fp32-image": case(_clip_frozen_half_text_tower, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # CLIP contrastive loss in bf16 with its labels made by arange in the logits' dtype
    "clip-labels-arange-logits-dtype": case(_clip_labels_in_logits_dtype, "target_dtype", "bf16", fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # a bf16 VAE whose reparameterisation noise comes from torch.randn(shape) in fp32, promoting z
    "vae-noise-default-dtype": case(_vae_noise_in_default_dtype, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a log-mel front end computes its STFT in fp32 (no bf16 FFT) but the mel filterbank buffer was cast to bf16
    "mel-filterbank-buffer-bf16": case(_mel_filterbank_buffer_cast, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Lovasz-softmax with the foreground in the bf16 probabilities' dtype, its Jaccard gradient in fp32
    "lovasz-softmax-dot-bf16": case(_lovasz_softmax_in_bf16, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # PointNet cast to bf16 with its T-Net kept in fp32: the predicted transform meets bf16 points in bmm
    "pointnet-tnet-kept-fp32": case(_pointnet_tnet_kept_fp32, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # WGAN-GP: the interpolation weight alpha is drawn in fp32, promoting the interpolates fed to a bf16 critic
    "wgan-gp-alpha-fp32": case(_wgan_gp_interpolates, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 video model's clip normalised with fp32 mean/std tensors before the first Conv3d
    "video-clip-fp32-normalisation": case(_video_clip_normalised_with_fp32_stats, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a weight-standardised conv casts its standardised weight to the input's dtype but not its bias
    "ws-conv-bias-fp32": case(_weight_standardised_conv_bias, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # cross-attention: queries from an fp32 text model, keys and values from a bf16 vision encoder
    "cross-attention-fp32-text-bf16-image": case(_cross_attention_text_fp32_vision_bf16, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a Swin-style shifted-window mask built in fp32 for an fp16 MultiheadAttention
    "swin-window-mask-fp32-half-attention": case(_swin_window_mask_in_half_attention, "attn_mask_dtype", "f32",
                                                 "f16", grade="correct", grade_at_freeze="correct"),
    # an image captioner's LSTM decoder in bf16, its first step the fp32 CNN encoder's feature
    "captioner-lstm-fp32-image-step": case(_captioner_image_step_fp32, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # LLaVA-style merge: fp32 projector outputs scattered into the bf16 language model's input embeddings
    "llava-image-features-masked-scatter": case(_llava_merge_image_features, "indexed_write_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 detection head's boxes copied into a padded fp32 output buffer
    "detections-index-copy-padded-fp32": case(_detections_into_padded_output, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a GAN's EMA generator kept in fp32 and updated with lerp from the bf16 generator
    "gan-ema-generator-lerp": case(_stylegan_ema_generator_fp32, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # image retrieval against a gallery of embeddings cached in fp8, scored by a bf16 query
    "retrieval-fp8-gallery-bf16-query": case(_retrieval_fp8_embedding_cache, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # VQA bilinear fusion in bf16 fed a frozen fp32 text encoder's question features
    "vqa-bilinear-fusion-fp32-text": case(_vqa_bilinear_fusion, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (c1ca11e) castwise gave nothing. nn.Bilinear's own dtype check (\"All tensors must have the same dtype, got input1: ..., input2: ...\") is a wording the rules had not met, though it names both dtypes."),
    # semantic segmentation with the uint8 label map read from a PNG as the target
    "segmentation-uint8-label-map": case(_segmentation_uint8_mask, "target_dtype", "uint8", fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # binary segmentation with a bool mask as BCEWithLogitsLoss's target
    "binary-segmentation-bool-target": case(_binary_segmentation_bool_mask, "target_dtype", "bool", fix=("float",),
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (c1ca11e) castwise gave nothing. A bool target makes binary_cross_entropy_with_logits subtract two bool tensors inside the loss, and that message names neither the loss nor the target."),
    # dice loss building its one-hot target from a uint8 label map
    "dice-one-hot-uint8-labels": case(_dice_one_hot_uint8_mask, "index_tensor_dtype", fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # video frame sampling with indices from torch.linspace (float)
    "video-frames-linspace-indices": case(_video_frame_sampling_linspace, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # anchor centres on an integer (arange) grid shifted in place by half a stride
    "anchor-centres-int-grid-half-stride": case(_anchors_on_integer_grid, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # 16-bit PCM from a wav file normalised in place by 32768
    "pcm-int16-normalised-in-place": case(_pcm_normalised_in_place, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # 16-bit PCM passed straight to torch.stft
    "stft-on-int16-pcm": case(_stft_on_int16_pcm, "integer_operand", "int16",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (c1ca11e) castwise gave nothing. torch.stft's \"expected a tensor of floating point or complex values\" after its signature (torch.ShortTensor) is a wording the rules had not met."),
    # a motion score as the mean absolute difference of uint8 video frames
    "video-motion-uint8-mean": case(_video_motion_score_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # an int64 label map resized with nearest interpolation to the logits' size
    "label-map-nearest-resize-int64": case(_label_map_resized_nearest, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a bool segmentation mask dilated with max_pool2d
    "mask-dilation-max-pool-bool": case(_mask_dilation_max_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # farthest point sampling on fp16 points, its distances initialised to 1e10 in the points' dtype
    "fps-distance-init-1e10-half": case(_farthest_point_sampling_half, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a ground plane fitted by least squares to an fp16 LiDAR sweep
    "ground-plane-lstsq-half": case(_ground_plane_lstsq_half, "no_kernel",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (c1ca11e) castwise gave nothing. torch.linalg.lstsq's \"doesn't handle types other than float and double\" names no dtype and was a wording the rules had not met."),
    # a homography for video stabilisation solved from fp16 point matches
    "homography-solve-half": case(_homography_solve_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a gradient hook on fp32 backbone features that returns bf16 gradients
    "feature-grad-hook-bf16": case(_feature_gradient_hook_bf16, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (c1ca11e) castwise gave nothing. A tensor hook returning a gradient of another dtype raises \"hook ... has changed the type of value\", a wording the rules had not met."),
    # a GAN's generator step reuses the detached fake, so GradScaler finds no gradients for its optimizer
    "gan-generator-detached-scaler-step": case(_gan_generator_step_on_detached_fake, "loss_scale",
        grade="correct", grade_at_freeze="correct"),
    # a VAE halved with .half() and trained with GradScaler
    "vae-halved-grad-scaler": case(_vae_halved_with_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 VAE whose log-variance overflows exp, so the decoder's Bernoulli logits are NaN
    "vae-half-logvar-overflow-nan": case(_vae_half_logvar_overflow, "nonfinite", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 GAN samples turned into a uint8 image grid through numpy
    "gan-samples-bf16-to-numpy": case(_gan_samples_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
