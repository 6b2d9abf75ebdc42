"""Held-out live set 36: GANs and adversarial robustness in low precision. Defects planted by a helper who never read
the rules, written before castwise ran and graded once with the rules frozen at 42cc880."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "42cc880"

bf16, f16 = torch.bfloat16, torch.float16


def _images_uint8() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randint(0, 256, (2, 3, 8, 8), dtype=torch.uint8)


def _classifier() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 16), nn.ReLU(), nn.Linear(16, 4))


def _discriminator_fp32_fed_bf16_fakes() -> None:
    torch.manual_seed(0)
    generator = nn.Sequential(nn.ConvTranspose2d(8, 3, 4, bias=False), nn.Tanh()).to(bf16)
    discriminator = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(16, 1))
    fake = generator(torch.randn(2, 8, 1, 1, dtype=bf16))
    discriminator(fake.detach())


class _NoiseInjection(nn.Module):
    """StyleGAN per-pixel noise, written for an fp16 generator (the noise dtype hard-coded)."""

    def __init__(self) -> None:
        super().__init__()
        self.strength = nn.Parameter(torch.zeros([]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        noise = torch.randn(x.shape[0], 1, x.shape[2], x.shape[3], dtype=torch.float16)
        return x + noise * self.strength


def _noise_injection_f16_in_bf16_generator() -> None:
    torch.manual_seed(0)
    block = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1, bias=False), _NoiseInjection(), nn.LeakyReLU(0.2),
                          nn.Conv2d(4, 3, 1, bias=False)).to(bf16)
    block(torch.randn(1, 4, 4, 4, dtype=bf16))


class _Mapping(nn.Module):
    """A StyleGAN mapping network with the tracked average w for the truncation trick."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 8), nn.LeakyReLU(0.2), nn.Linear(8, 8))
        self.register_buffer("w_avg", torch.zeros(8))

    def forward(self, z: torch.Tensor, psi: float = 0.7) -> torch.Tensor:
        return self.w_avg.lerp(self.net(z), psi)


def _truncation_w_avg_fp32() -> None:
    torch.manual_seed(0)
    mapping = _Mapping()
    mapping.net.to(bf16)  # only the layers halved; w_avg kept fp32 "for accuracy"
    mapping(torch.randn(2, 8, dtype=bf16))


def _progan_fade_in_alpha_tensor() -> None:
    torch.manual_seed(0)
    block = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(8, 8, 3, padding=1), nn.LeakyReLU(0.2)).to(bf16)
    to_rgb_low, to_rgb_high = nn.Conv2d(8, 3, 1).to(bf16), nn.Conv2d(8, 3, 1).to(bf16)
    low = torch.randn(2, 8, 4, 4, dtype=bf16)
    step, fade_steps = 300, 1000
    alpha = torch.tensor([min(1.0, step / fade_steps)])
    torch.lerp(F.interpolate(to_rgb_low(low), scale_factor=2), to_rgb_high(block(low)), alpha)


def _ada_color_matrix_fp32() -> None:
    torch.manual_seed(0)
    images = torch.randn(2, 3, 8, 8, dtype=bf16)
    brightness = torch.randn(2) * 0.2
    color = torch.eye(4).repeat(2, 1, 1)
    color[:, :3, 3] = brightness[:, None]
    flat = images.reshape(2, 3, 64)
    color[:, :3, :3] @ flat + color[:, :3, 3:]


def _ada_geometric_grid_sample() -> None:
    torch.manual_seed(0)
    images = torch.randn(2, 3, 8, 8, dtype=bf16)
    angle = (torch.rand(2) * 2 - 1) * math.pi / 8
    theta = torch.zeros(2, 2, 3)
    theta[:, 0, 0], theta[:, 0, 1] = angle.cos(), -angle.sin()
    theta[:, 1, 0], theta[:, 1, 1] = angle.sin(), angle.cos()
    grid = F.affine_grid(theta, list(images.shape), align_corners=False)
    F.grid_sample(images, grid, mode="bilinear", padding_mode="reflection", align_corners=False)


def _ada_sign_counter_int64() -> None:
    torch.manual_seed(0)
    sign_sum = torch.zeros((), dtype=torch.long)  # integer so the running count never rounds
    real_logits = torch.randn(8, 1, dtype=bf16)
    sign_sum += real_logits.sign().sum()


def _diffaugment_translation_float_shifts() -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 3, 8, 8, dtype=bf16)
    shift = int(8 * 0.125 + 0.5)
    translation_x = ((torch.rand(2, 1, 1) * 2 - 1) * shift).round()
    translation_y = ((torch.rand(2, 1, 1) * 2 - 1) * shift).round()
    grid_batch, grid_x, grid_y = torch.meshgrid(torch.arange(2), torch.arange(8), torch.arange(8), indexing="ij")
    grid_x = torch.clamp(grid_x + translation_x + 1, 0, 9)
    grid_y = torch.clamp(grid_y + translation_y + 1, 0, 9)
    x_pad = F.pad(x, [1, 1, 1, 1])
    x_pad.permute(0, 2, 3, 1)[grid_batch, grid_x, grid_y]


def _style_mixing_inverted_latents() -> None:
    torch.manual_seed(0)
    mapping = nn.Sequential(nn.Linear(8, 8), nn.LeakyReLU(0.2), nn.Linear(8, 8)).to(bf16)
    num_ws = 6
    ws = mapping(torch.randn(2, 8, dtype=bf16))[:, None].repeat(1, num_ws, 1)
    ws_inverted = torch.randn(2, num_ws, 8)  # projected latents of real photos, saved in fp32
    cutoff = torch.randint(1, num_ws, (2, 1))
    mix = torch.arange(num_ws)[None] >= cutoff
    ws[mix] = ws_inverted[mix]


def _pgd_uint8_requires_grad() -> None:
    model, images = _classifier(), _images_uint8()
    x_adv = images.clone().detach().requires_grad_(True)
    F.cross_entropy(model(x_adv), torch.tensor([0, 1]))


def _fgsm_step_in_place_uint8() -> None:
    model, images = _classifier(), _images_uint8()
    x = (images.float() / 255).requires_grad_(True)
    F.cross_entropy(model(x), torch.tensor([0, 1])).backward()
    epsilon = 8
    assert x.grad is not None
    images.add_(epsilon * x.grad.sign())


def _pgd_random_start_uint8() -> None:
    images = _images_uint8()
    epsilon = 8
    torch.empty_like(images).uniform_(-epsilon, epsilon)


def _free_adversarial_training_fp8_store() -> None:
    model = _classifier()
    torch.manual_seed(0)
    x = torch.rand(2, 3, 8, 8)
    delta_store = torch.zeros(100, 3, 8, 8, dtype=torch.float8_e4m3fn)  # one persistent perturbation per image
    delta = delta_store[torch.tensor([3, 7])].requires_grad_(True)
    model(x + delta)


def _cw_margin_scatter_f16() -> None:
    model = _classifier().half()
    torch.manual_seed(0)
    logits = model(torch.rand(2, 3, 8, 8, dtype=f16))
    labels = torch.tensor([0, 1])
    other = logits.scatter(1, labels[:, None], -1e9).amax(1)
    logits.gather(1, labels[:, None]).squeeze(1) - other


def _ibp_linear_bounds_f64() -> None:
    model = _classifier()
    torch.manual_seed(0)
    x, epsilon = torch.rand(2, 3, 8, 8), 2 / 255
    lower = (x - epsilon).clamp(0, 1).flatten(1).double()  # bounds in float64 to keep the certificate sound
    upper = (x + epsilon).clamp(0, 1).flatten(1).double()
    for layer in list(model)[1:]:
        if isinstance(layer, nn.Linear):
            mid, rad = (upper + lower) / 2, (upper - lower) / 2
            mid, rad = F.linear(mid, layer.weight, layer.bias), rad @ layer.weight.abs().T
            lower, upper = mid - rad, mid + rad
        else:
            lower, upper = layer(lower), layer(upper)


def _adversarial_patch_bool_mask() -> None:
    torch.manual_seed(0)
    images = torch.rand(2, 3, 8, 8)
    patch = torch.rand(1, 3, 8, 8, requires_grad=True)
    mask = torch.zeros(1, 1, 8, 8, dtype=torch.bool)
    mask[..., 2:5, 2:5] = True
    images * (1 - mask) + patch * mask


def _fid_eigvals_bf16() -> None:
    torch.manual_seed(0)
    real_features = torch.randn(32, 8, dtype=bf16)  # from an Inception run in bf16
    fake_features = torch.randn(32, 8, dtype=bf16)
    mu_r, sigma_r = real_features.mean(0), torch.cov(real_features.T)
    mu_f, sigma_f = fake_features.mean(0), torch.cov(fake_features.T)
    eigenvalues = torch.linalg.eigvals(sigma_r @ sigma_f)
    diff = mu_r - mu_f
    diff.dot(diff) + sigma_r.trace() + sigma_f.trace() - 2 * eigenvalues.sqrt().real.sum()


class _SelfAttention(nn.Module):
    """SAGAN self-attention, its softmax taken in fp32 for stability."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.query = nn.Conv2d(channels, channels // 2, 1)
        self.key = nn.Conv2d(channels, channels // 2, 1)
        self.value = nn.Conv2d(channels, channels, 1)
        self.gamma = nn.Parameter(torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        query = self.query(x).view(b, -1, h * w).permute(0, 2, 1)
        key = self.key(x).view(b, -1, h * w)
        attention = F.softmax(torch.bmm(query, key), dim=-1, dtype=torch.float32)
        out = torch.bmm(self.value(x).view(b, c, h * w), attention.permute(0, 2, 1))
        return x + self.gamma * out.view(b, c, h, w)


def _sagan_softmax_fp32() -> None:
    torch.manual_seed(0)
    _SelfAttention(8).to(bf16)(torch.randn(2, 8, 4, 4, dtype=bf16))


def _transgan_distance_bias_mask() -> None:
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, batch_first=True).to(bf16)
    tokens = torch.randn(2, 16, 8, dtype=bf16)
    rows, cols = torch.arange(16) // 4, torch.arange(16) % 4
    distance = ((rows[:, None] - rows[None]) ** 2 + (cols[:, None] - cols[None]) ** 2).float().sqrt()
    attention(tokens, tokens, tokens, attn_mask=-0.5 * distance)


def _ganformer_latents_fp32_keys() -> None:
    torch.manual_seed(0)
    features = torch.randn(2, 2, 16, 4, dtype=bf16)  # image-grid queries from the bf16 generator
    latents = torch.randn(2, 2, 3, 4)  # the latent components, kept fp32 outside the generator
    F.scaled_dot_product_attention(features, latents, latents)


def _timegan_gru_fp32_noise() -> None:
    torch.manual_seed(0)
    generator = nn.GRU(4, 8, batch_first=True).to(bf16)
    z = torch.rand(2, 12, 4)  # TimeGAN draws its noise uniformly
    generator(z)


def _universal_perturbation_f16_scaler() -> None:
    model = _classifier()
    torch.manual_seed(0)
    x, labels = torch.rand(4, 3, 8, 8), torch.tensor([0, 1, 2, 3])
    delta = torch.zeros(1, 3, 8, 8, dtype=f16, requires_grad=True)  # universal perturbation kept in half
    optimizer = torch.optim.Adam([delta], lr=1e-2)
    scaler = torch.amp.GradScaler("cpu")
    loss = -F.cross_entropy(model(x + delta), labels)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _wgan_n_critic_unscale_after_step() -> None:
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    generator = nn.Linear(2, 4)
    optimizer = torch.optim.SGD(critic.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    for _ in range(5):  # n_critic steps; scaler.update() comes only after the generator's step
        optimizer.zero_grad()
        fake = generator(torch.randn(4, 2)).detach()
        loss = critic(fake).mean() - critic(torch.randn(4, 4)).mean()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
        scaler.step(optimizer)


def _r1_static_loss_scale_f16() -> None:
    torch.manual_seed(0)
    discriminator = nn.Sequential(nn.Linear(12, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1)).half()
    real = torch.rand(4, 12, dtype=f16).requires_grad_(True)
    loss_scale = 2.0 ** 16  # static loss scale of pure fp16 training
    (grads,) = torch.autograd.grad(discriminator(real).sum() * loss_scale, real, create_graph=True)
    r1 = (grads / loss_scale).pow(2).sum(1).mean()
    (5.0 * r1).backward()
    nn.utils.clip_grad_norm_(discriminator.parameters(), 10.0, error_if_nonfinite=True)


def _minibatch_std(x: torch.Tensor, group: int = 4, eps: float = 1e-8) -> torch.Tensor:
    y = x.reshape(group, -1, *x.shape[1:])
    y = y - y.mean(0)
    y = (y.square().mean(0) + eps).sqrt().mean(dim=[1, 2, 3])
    return torch.cat([x, y.reshape(-1, 1, 1, 1).repeat(group, 1, *x.shape[2:])], 1)


def _minibatch_std_f16_single_image() -> None:
    torch.manual_seed(0)
    head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 4 * 4, 1)).half()
    image = torch.rand(1, 3, 4, 4, dtype=f16)
    real = image.repeat(4, 1, 1, 1).requires_grad_(True)  # one-shot GAN: the batch is copies of the one image
    with torch.autograd.detect_anomaly():
        (grads,) = torch.autograd.grad(head(_minibatch_std(real)).sum(), real, create_graph=True)


def _smoothing_radius_bf16_numpy() -> None:
    model = _classifier().to(bf16)
    torch.manual_seed(0)
    x, sigma = torch.rand(1, 3, 8, 8, dtype=bf16), 0.25
    with torch.no_grad():
        noisy = x + sigma * torch.randn(32, 3, 8, 8, dtype=bf16)
        p_a = F.softmax(model(noisy), dim=1).mean(0).max()
        np.clip(p_a.numpy(), 0.0, 1.0)


def _acgan_float_labels() -> None:
    torch.manual_seed(0)
    n_classes = 4
    generator = nn.Linear(9, 12)
    discriminator = nn.Linear(12, 1 + n_classes)
    labels = torch.randint(0, n_classes, (4,)).float()  # float so they can be concatenated to z
    fake = generator(torch.cat([torch.randn(4, 8), labels[:, None] / n_classes], 1))
    class_logits = discriminator(fake)[:, 1:]
    F.cross_entropy(class_logits, labels)


def _to_rgb_bias_dataset_mean_f64() -> None:
    torch.manual_seed(0)
    to_rgb = nn.Conv2d(8, 3, 1)
    mean_rgb = np.array([0.485, 0.456, 0.406])
    to_rgb.bias.data = torch.from_numpy(np.arctanh(mean_rgb * 2 - 1))  # start at the dataset's mean colour
    torch.tanh(to_rgb(torch.randn(2, 8, 4, 4)))


def _projected_gan_head_groupnorm() -> None:
    torch.manual_seed(0)
    features = nn.Conv2d(3, 8, 3, padding=1).requires_grad_(False)  # frozen pretrained feature network, kept fp32
    head = nn.Sequential(nn.GroupNorm(4, 8), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 1)).to(bf16)
    head(features(torch.rand(2, 3, 8, 8)))


def _dann_reversal_hook_alpha() -> None:
    torch.manual_seed(0)
    extractor = nn.Sequential(nn.Linear(8, 8), nn.ReLU()).to(bf16)
    domain_head = nn.Linear(8, 1).to(bf16)
    progress = 0.3
    alpha = torch.tensor([2 / (1 + math.exp(-10 * progress)) - 1])
    features = extractor(torch.randn(4, 8, dtype=bf16))
    reversed_features = features.view_as(features)
    reversed_features.register_hook(lambda grad: -alpha * grad)
    logits = domain_head(reversed_features).float()
    F.binary_cross_entropy_with_logits(logits, torch.ones(4, 1)).backward()


CASES: dict[str, LiveCase] = {
    # the discriminator kept in fp32 for stability, the bf16 generator's fakes passed to it as they are
    "d-fp32-fed-bf16-fakes": case(_discriminator_fp32_fed_bf16_fakes, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # StyleGAN noise injection written for fp16 (dtype hard-coded) in a bf16 generator: the sum promotes to fp32
    "noise-injection-f16-in-bf16-generator": case(_noise_injection_f16_in_bf16_generator, "conv_weight_dtype",
                                                  "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # the truncation trick lerps the fp32 w_avg buffer toward the bf16 mapping output
    "stylegan-truncation-w-avg-fp32": case(_truncation_w_avg_fp32, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ProGAN fade-in with the blend factor as a one-element fp32 tensor between bf16 images
    "progan-fade-in-alpha-tensor": case(_progan_fade_in_alpha_tensor, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ADA colour transforms: fp32 4x4 colour matrices applied with @ to bf16 images
    "ada-color-matrix-fp32": case(_ada_color_matrix_fp32, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ADA geometric augmentation: an fp32 rotation grid sampled from bf16 images
    "ada-geometric-grid-sample": case(_ada_geometric_grid_sample, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ADA's overfitting heuristic accumulates sign(D(real)) of bf16 logits into an int64 counter in place
    "ada-sign-counter-int64": case(_ada_sign_counter_int64, "result_cast", "bf16", "int64",
        grade="correct", grade_at_freeze="correct"),
    # DiffAugment translation with fractional shifts rounded but left float, used as gather indices
    "diffaugment-translation-float-shifts": case(_diffaugment_translation_float_shifts, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # style mixing with fp32 inverted latents written into the bf16 ws through a boolean layer mask
    "style-mixing-inverted-latents-fp32": case(_style_mixing_inverted_latents, "indexed_write_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # PGD started on the raw uint8 batch: requires_grad on an integer tensor
    "pgd-uint8-requires-grad": case(_pgd_uint8_requires_grad, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # FGSM step in pixel units written in place into the uint8 image batch
    "fgsm-step-in-place-uint8": case(_fgsm_step_in_place_uint8, "result_cast", "f32", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # PGD random start drawn with empty_like(images).uniform_ on the uint8 batch
    "pgd-random-start-uniform-uint8": case(_pgd_random_start_uint8, "no_kernel", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # free adversarial training storing the persistent perturbations in fp8, added to fp32 images
    "free-at-fp8-perturbation-store": case(_free_adversarial_training_fp8_store, "fp8_promotion", "float8_e4m3fn",
                                           "f32", grade="correct", grade_at_freeze="correct"),
    # the C&W margin masks the true class with scatter(-1e9) on an fp16 model's logits
    "cw-margin-scatter-f16": case(_cw_margin_scatter_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # interval bound propagation by hand with float64 bounds through the fp32 linear layers
    "ibp-linear-bounds-f64": case(_ibp_linear_bounds_f64, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an adversarial patch pasted with 1 - mask on a boolean mask
    "adversarial-patch-bool-mask-subtraction": case(_adversarial_patch_bool_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # FID's matrix square root through eigvals of the product of bf16 covariances
    "fid-eigvals-bf16": case(_fid_eigvals_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # SAGAN attention with the softmax in fp32 multiplied back into bf16 values with bmm
    "sagan-softmax-fp32-bmm": case(_sagan_softmax_fp32, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a TransGAN-style distance bias built with .float() passed as a bf16 MultiheadAttention's attn_mask
    "transgan-distance-bias-mask-fp32": case(_transgan_distance_bias_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GANformer-style cross-attention from bf16 image features to fp32 latent components
    "ganformer-latents-fp32-keys": case(_ganformer_latents_fp32_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # TimeGAN's GRU generator cast to bf16, given fp32 uniform noise
    "timegan-gru-fp32-noise": case(_timegan_gru_fp32_noise, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a universal adversarial perturbation kept in fp16 and optimised through GradScaler
    "universal-perturbation-f16-scaler": case(_universal_perturbation_f16_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # WGAN with n_critic steps: unscale_ for clipping each critic step, update() only after the generator step
    "wgan-n-critic-unscale-after-step": case(_wgan_n_critic_unscale_after_step, "loss_scale",
        grade="correct", grade_at_freeze="correct"),
    # R1 penalty on a pure-fp16 D from gradients of the statically scaled output: they overflow, clipping refuses
    "r1-static-loss-scale-f16": case(_r1_static_loss_scale_f16, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # minibatch std in fp16 with eps=1e-8 on a batch of copies of one image: NaN in backward under anomaly mode
    "minibatch-std-f16-identical-batch": case(_minibatch_std_f16_single_image, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # randomized smoothing on a bf16 model: the top-class probability handed to numpy for the radius
    "smoothing-radius-bf16-numpy": case(_smoothing_radius_bf16_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # AC-GAN class labels made float to condition the generator, reused as the auxiliary cross-entropy target
    "acgan-float-class-labels": case(_acgan_float_labels, "target_dtype", "f32", fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # ToRGB bias initialised to the dataset mean colour from numpy (float64) via .data
    "to-rgb-bias-dataset-mean-f64": case(_to_rgb_bias_dataset_mean_f64, "conv_bias_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Projected GAN: bf16 discriminator heads (GroupNorm first) fed the frozen fp32 feature network's output
    "projected-gan-head-groupnorm": case(_projected_gan_head_groupnorm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DANN gradient reversal as a hook multiplying the bf16 gradient by a one-element fp32 alpha
    "dann-reversal-hook-alpha-fp32": case(_dann_reversal_hook_alpha, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
