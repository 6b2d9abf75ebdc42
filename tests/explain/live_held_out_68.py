"""Held-out live set 68: image super-resolution and restoration by hand in low precision (ESRGAN/Real-ESRGAN
generators and degradations, SwinIR/Restormer/NAFNet blocks, tiled inference with overlap blending, pixel-shuffle
upsampling, uint8/uint16 image and RAW I/O, JPEG/noise/blur degradation pipelines, PSNR/LPIPS-style metrics, perceptual
and GAN losses, EMA of generator weights). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at 8d9785d."""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8d9785d"

bf16, f16 = torch.bfloat16, torch.float16
_SCALE = 4  # x4 super-resolution
_WINDOW = 4  # SwinIR window size, small for the test


def _seeded() -> None:
    torch.manual_seed(0)


def _lr_image_hwc(size: int = 16) -> np.ndarray:
    """What cv2.imread gives: a uint8 HWC BGR image."""
    return np.random.RandomState(0).randint(0, 256, (size, size, 3)).astype(np.uint8)


class _TinyRRDBNet(nn.Module):
    """An RRDBNet cut down to its shape: conv_first, a residual body, two nearest x2 upsamplings, conv_last."""

    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.conv_first = nn.Conv2d(3, channels, 3, 1, 1, bias=False)
        self.body = nn.Sequential(nn.Conv2d(channels, channels, 3, 1, 1), nn.LeakyReLU(0.2),
                                  nn.Conv2d(channels, channels, 3, 1, 1))
        self.conv_up1 = nn.Conv2d(channels, channels, 3, 1, 1)
        self.conv_up2 = nn.Conv2d(channels, channels, 3, 1, 1)
        self.conv_last = nn.Conv2d(channels, 3, 3, 1, 1)
        self.lrelu = nn.LeakyReLU(0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feat = self.conv_first(x)
        feat = feat + 0.2 * self.body(feat)
        feat = self.lrelu(self.conv_up1(F.interpolate(feat, scale_factor=2, mode="nearest")))
        feat = self.lrelu(self.conv_up2(F.interpolate(feat, scale_factor=2, mode="nearest")))
        return self.conv_last(feat)


class _PixelShuffleSR(nn.Module):
    """An EDSR-style generator with a sub-pixel (pixel-shuffle) x4 upsampler."""

    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, channels, 3, 1, 1, bias=False)
        self.body = nn.Sequential(nn.Conv2d(channels, channels, 3, 1, 1), nn.ReLU(),
                                  nn.Conv2d(channels, channels, 3, 1, 1))
        self.upsample = nn.Sequential(nn.Conv2d(channels, 3 * _SCALE**2, 3, 1, 1), nn.PixelShuffle(_SCALE))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feat = self.head(x)
        return self.upsample(feat + self.body(feat))


def _filter2d(img: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """BasicSR's filter2D: one (k, k) kernel per image, reflect padding, a grouped conv over the batch's channels."""
    k = kernel.size(-1)
    b, c, h, w = img.size()
    img = F.pad(img, (k // 2, k // 2, k // 2, k // 2), mode="reflect")
    ph, pw = img.size()[-2:]
    if kernel.size(0) == 1:
        img = img.view(b * c, 1, ph, pw)
        kernel = kernel.view(1, 1, k, k)
        return F.conv2d(img, kernel, padding=0).view(b, c, h, w)
    img = img.view(1, b * c, ph, pw)
    kernel = kernel.view(b, 1, k, k).repeat(1, c, 1, 1).view(b * c, 1, k, k)
    return F.conv2d(img, kernel, groups=b * c).view(b, c, h, w)


def _window_partition(x: torch.Tensor, window: int) -> torch.Tensor:
    b, h, w, c = x.shape
    x = x.view(b, h // window, window, w // window, window, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window, window, c)


# --- generators in half precision


def _realesrgan_half_model_fp32_image() -> None:
    _seeded()
    net = _TinyRRDBNet().half()  # RealESRGANer(half=True) halves the model
    img = _lr_image_hwc().astype(np.float32) / 255.0
    lr = torch.from_numpy(np.transpose(img[:, :, [2, 1, 0]], (2, 0, 1)).copy())[None]  # pre_process's .half() missing
    with torch.no_grad():
        net(lr)


class _SwinIRShallow(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.img_range = 1.0
        self.mean = torch.tensor([0.4488, 0.4371, 0.4040]).view(1, 3, 1, 1)  # a plain attribute, as SwinIR keeps it
        self.conv_first = nn.Conv2d(3, 16, 3, 1, 1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = (x - self.mean) * self.img_range  # the port dropped SwinIR's `self.mean = self.mean.type_as(x)`
        return self.conv_first(x)


def _swinir_mean_attribute_without_type_as() -> None:
    _seeded()
    model = _SwinIRShallow().to(bf16)
    with torch.no_grad():
        model(torch.rand(1, 3, 16, 16, dtype=bf16))


class _FFDNet(nn.Module):
    """FFDNet: a noise-level map concatenated to the pixel-unshuffled image."""

    def __init__(self, channels: int = 16) -> None:
        super().__init__()
        self.head = nn.Conv2d(4 * 3 + 1, channels, 3, 1, 1, bias=False)
        self.tail = nn.Sequential(nn.ReLU(), nn.Conv2d(channels, 4 * 3, 3, 1, 1), nn.PixelShuffle(2))

    def forward(self, x: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
        b, _, h, w = x.shape
        noise_map = sigma.view(b, 1, 1, 1).expand(b, 1, h // 2, w // 2)
        return self.tail(self.head(torch.cat([noise_map, F.pixel_unshuffle(x, 2)], 1)))


def _ffdnet_noise_map_fp32_into_half_model() -> None:
    _seeded()
    model = _FFDNet().half()
    noisy = torch.rand(1, 3, 16, 16, dtype=f16)
    sigma = torch.full((1,), 25 / 255.0)  # the noise level slider's value, made fp32 by torch.full
    with torch.no_grad():
        model(noisy, sigma)


def _swinir_window_attention_shift_mask_fp32() -> None:
    _seeded()
    heads, dim, h, w = 2, 8, 8, 8
    n = _WINDOW * _WINDOW
    shift = _WINDOW // 2
    # SwinIR's calculate_mask, run in forward because the test image is not the training size: .to(x.device) only
    img_mask = torch.zeros((1, h, w, 1))
    cnt = 0
    for hs in (slice(0, -_WINDOW), slice(-_WINDOW, -shift), slice(-shift, None)):
        for ws in (slice(0, -_WINDOW), slice(-_WINDOW, -shift), slice(-shift, None)):
            img_mask[:, hs, ws, :] = cnt
            cnt += 1
    mask_windows = _window_partition(img_mask, _WINDOW).view(-1, n)
    attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
    attn_mask = attn_mask.masked_fill(attn_mask != 0, -100.0).masked_fill(attn_mask == 0, 0.0)
    n_windows = attn_mask.shape[0]
    qkv = nn.Linear(dim, 3 * dim).to(bf16)
    x_windows = torch.randn(n_windows, n, dim, dtype=bf16)
    q, k, v = qkv(x_windows).reshape(n_windows, n, 3, heads, dim // heads).permute(2, 0, 3, 1, 4)
    attn = (q * (dim // heads) ** -0.5) @ k.transpose(-2, -1)
    attn = attn.view(1, n_windows, heads, n, n) + attn_mask.unsqueeze(1).unsqueeze(0)
    attn = attn.view(-1, heads, n, n).softmax(dim=-1)
    attn @ v


def _restormer_transposed_attention_bmm_fp32_queries() -> None:
    _seeded()
    b, heads, c_head, hw = 1, 2, 8, 64
    q, k, v = (torch.randn(b * heads, c_head, hw, dtype=bf16) for _ in range(3))
    temperature = torch.ones(b * heads, 1, 1, dtype=bf16)
    q = F.normalize(q.float(), dim=-1)  # upcast "for a stable norm", k normalised in bf16
    k = F.normalize(k, dim=-1)
    attn = torch.bmm(q, k.transpose(1, 2)) * temperature
    torch.bmm(attn.softmax(dim=-1), v)


def _unet_discriminator_spectral_norm_params_cast() -> None:
    _seeded()
    disc = nn.Sequential(
        nn.utils.spectral_norm(nn.Conv2d(3, 8, 3, 2, 1, bias=False)), nn.LeakyReLU(0.2),
        nn.utils.spectral_norm(nn.Conv2d(8, 1, 3, 1, 1, bias=False)),
    )
    for p in disc.parameters():  # "cast the weights only" loop; spectral norm's u and v buffers stay fp32
        p.data = p.data.to(bf16)
    disc(torch.rand(1, 3, 16, 16, dtype=bf16))


class _LayerNorm2d(nn.Module):
    def __init__(self, channels: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.permute(0, 2, 3, 1).float()  # the statistics upcast for bf16 training, the affine params left bf16
        y = F.layer_norm(y, (x.shape[1],), self.weight, self.bias, self.eps)
        return y.to(x.dtype).permute(0, 3, 1, 2)


def _nafnet_layernorm2d_upcast_input_only() -> None:
    _seeded()
    block = nn.Sequential(_LayerNorm2d(16), nn.Conv2d(16, 32, 1), nn.Conv2d(32, 32, 3, 1, 1, groups=32)).to(bf16)
    block(torch.randn(1, 16, 8, 8, dtype=bf16))


# --- tiled inference and overlap blending


def _tiled_overlap_lerp_bf16_tile_fp32_canvas() -> None:
    _seeded()
    model = _PixelShuffleSR().to(bf16)
    lr = torch.rand(1, 3, 8, 12, dtype=bf16)
    tile, overlap = 8, 4
    out_h, out_w = 8 * _SCALE, 12 * _SCALE
    canvas = torch.zeros(1, 3, out_h, out_w)  # the full output kept fp32 "for quality"
    ov = overlap * _SCALE
    ramp = torch.linspace(0, 1, ov)
    with torch.no_grad():
        left = model(lr[..., :, 0:tile])
        canvas[..., :, 0:tile * _SCALE] = left
        right = model(lr[..., :, tile - overlap:tile - overlap + tile])
        x0 = (tile - overlap) * _SCALE
        canvas[..., :, x0:x0 + ov] = torch.lerp(canvas[..., :, x0:x0 + ov], right[..., :, :ov], ramp)


def _tile_origins_from_linspace_slice() -> None:
    _seeded()
    img = torch.rand(1, 3, 20, 20)
    tile = 8
    n_tiles = math.ceil(20 / tile)
    origins = torch.linspace(0, 20 - tile, n_tiles)  # evenly spread, the last tile flush with the border
    tiles = []
    for y in origins:
        for x in origins:
            tiles.append(img[..., y:y + tile, x:x + tile])
    torch.stack(tiles)


def _feather_weights_into_int64_count_map() -> None:
    _seeded()
    h = w = 24
    tile, stride = 16, 8
    canvas = torch.zeros(1, 3, h, w)
    count = torch.zeros(1, 1, h, w, dtype=torch.long)  # started as a plain overlap counter, then feathering was added
    ramp = torch.minimum(torch.linspace(0.1, 1, tile), torch.linspace(1, 0.1, tile))
    feather = torch.outer(ramp, ramp)
    for y in range(0, h - tile + 1, stride):
        for x in range(0, w - tile + 1, stride):
            out = torch.rand(1, 3, tile, tile)
            canvas[..., y:y + tile, x:x + tile] += out * feather
            count[..., y:y + tile, x:x + tile] += feather
    canvas / count


def _video_sr_frames_index_copy_bf16() -> None:
    _seeded()
    model = _PixelShuffleSR().to(bf16)
    lr_clip = torch.rand(3, 3, 8, 8, dtype=bf16)
    outputs = torch.zeros(3, 3, 8 * _SCALE, 8 * _SCALE)  # the output sequence buffer, fp32 by default
    with torch.no_grad():
        for t in range(lr_clip.shape[0]):
            outputs.index_copy_(0, torch.tensor([t]), model(lr_clip[t:t + 1]))


# --- degradation pipelines (Real-ESRGAN style)


def _bivariate_generalized_gaussian(ksize: int, sigma_x: float, sigma_y: float, theta: float,
                                    beta: float) -> np.ndarray:
    d = np.diag([sigma_x**2, sigma_y**2])
    u = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    inverse_sigma = np.linalg.inv(u @ d @ u.T)
    ax = np.arange(-ksize // 2 + 1.0, ksize // 2 + 1.0)
    xx, yy = np.meshgrid(ax, ax)
    grid = np.stack([xx, yy], -1)
    kernel = np.exp(-0.5 * np.power(np.sum(np.dot(grid, inverse_sigma) * grid, 2), beta))
    return kernel / np.sum(kernel)


def _generalized_gaussian_blur_kernel_f64() -> None:
    _seeded()
    hr = torch.rand(2, 3, 16, 16)
    kernel = _bivariate_generalized_gaussian(7, 1.5, 0.8, 0.3, 1.2)
    kernels = torch.from_numpy(np.stack([kernel, kernel]))  # BasicSR wraps it in torch.FloatTensor
    _filter2d(hr, kernels)


def _usm_sharpen_bool_mask_filter2d() -> None:
    _seeded()
    img = torch.rand(1, 3, 16, 16)
    radius = 5
    g = np.exp(-((np.arange(radius) - radius // 2) ** 2) / 2.0).astype(np.float32)
    kernel = torch.from_numpy(np.outer(g, g) / np.outer(g, g).sum()).unsqueeze(0)
    blur = _filter2d(img, kernel)
    residual = img - blur
    mask = torch.abs(residual) * 255 > 10  # USMSharp has .float() here
    soft_mask = _filter2d(mask, kernel)
    sharp = torch.clip(img + 0.5 * residual, 0, 1)
    soft_mask * sharp + (1 - soft_mask) * img


def _gray_noise_choice_left_bool() -> None:
    _seeded()
    b, c, h, w = 2, 3, 16, 16
    img = torch.rand(b, c, h, w)
    sigma = (torch.rand(b) * 29 + 1).view(b, 1, 1, 1) / 255.0
    gray_noise = (torch.rand(b) < 0.4).view(b, 1, 1, 1)  # Real-ESRGAN makes this .float()
    noise_color = torch.randn(b, c, h, w) * sigma
    noise_gray = torch.randn(b, 1, h, w) * sigma
    img + noise_color * (1 - gray_noise) + noise_gray * gray_noise


def _posterize_degradation_shift_bf16() -> None:
    _seeded()
    batch = torch.rand(2, 3, 16, 16, dtype=bf16)  # the degradation batch kept in bf16 to save memory
    bits = 4
    levels = (batch * 255).round()
    (levels >> (8 - bits) << (8 - bits)) / 255  # torchvision's posterize on uint8, ported to the float batch


def _diffjpeg_dct_basis_float64() -> None:
    _seeded()
    basis = np.zeros((8, 8, 8, 8))  # DiffJPEG allocates this with dtype=np.float32
    for x in range(8):
        for y in range(8):
            for u in range(8):
                for v in range(8):
                    basis[x, y, u, v] = np.cos((2 * x + 1) * u * np.pi / 16) * np.cos((2 * y + 1) * v * np.pi / 16)
    alpha = np.array([1.0 / np.sqrt(2)] + [1] * 7)
    scale = torch.from_numpy(np.outer(alpha, alpha) * 0.25).float()
    y_channel = torch.rand(1, 16, 16) * 255
    blocks = y_channel.view(1, 2, 8, 2, 8).permute(0, 1, 3, 2, 4).reshape(-1, 8, 8)
    scale * torch.tensordot(blocks - 128, torch.from_numpy(basis), dims=2)


def _matlab_imresize_vectorised_float_indices() -> None:
    _seeded()
    img = torch.rand(1, 3, 16, 16)
    in_length, out_length, scale, kernel_width = 16, 4, 0.25, 4.0 / 0.25
    x = torch.linspace(1, out_length, out_length)
    u = x / scale + 0.5 * (1 - 1 / scale)
    left = torch.floor(u - kernel_width / 2)
    p = math.ceil(kernel_width) + 2
    indices = left.view(out_length, 1).expand(out_length, p) + torch.linspace(0, p - 1, p).view(1, p).expand(
        out_length, p)
    distance = (u.view(out_length, 1).expand(out_length, p) - indices) * scale
    absx = distance.abs()
    weights = ((1.5 * absx**3 - 2.5 * absx**2 + 1) * (absx <= 1)
               + (-0.5 * absx**3 + 2.5 * absx**2 - 4 * absx + 2) * ((absx > 1) & (absx <= 2))) * scale
    weights = weights / weights.sum(1, keepdim=True)
    indices = (indices - 1).clamp(0, in_length - 1)  # vectorised: clamped instead of BasicSR's symmetric padding loop
    rows = img.index_select(2, indices.reshape(-1)).view(1, 3, out_length, p, 16)
    (rows * weights.view(1, 1, out_length, p, 1)).sum(3)


def _degradation_classifier_float_kernel_labels() -> None:
    _seeded()
    # each sample's degradation parameters collated as one float row: kernel type id, sigma_x, sigma_y, noise sigma
    params = torch.tensor([[0, 1.2, 1.2, 5.0], [2, 2.0, 0.7, 12.0], [1, 0.9, 2.5, 3.0], [0, 3.0, 3.0, 20.0]])
    features = torch.randn(4, 32)
    kernel_head = nn.Linear(32, 3)  # iso, aniso, generalized
    F.cross_entropy(kernel_head(features), params[:, 0])


# --- uint8 / uint16 image and RAW I/O


def _raw_black_level_subtract_uint16() -> None:
    raw = np.random.RandomState(0).randint(512, 16383, (16, 16)).astype(np.uint16)  # rawpy's raw_image_visible
    black_level, white_level = 512, 16383
    bayer = torch.from_numpy(raw)
    (bayer - black_level) / (white_level - black_level)


def _raw_white_level_clamp_fp16() -> None:
    raw = np.random.RandomState(0).randint(512, 16383, (16, 16)).astype(np.uint16)
    dn = torch.from_numpy(raw.astype(np.int32)).to(f16)  # sensor values kept in fp16 to halve the RAW batch
    dn.clamp_(0, 65535)  # the 16-bit container's white level


def _sr_output_bf16_to_numpy_for_imwrite() -> None:
    _seeded()
    model = _PixelShuffleSR().to(bf16)
    lr = torch.rand(1, 3, 8, 8, dtype=bf16)
    with torch.no_grad():
        sr = model(lr)
    out = sr.squeeze(0).clamp_(0, 1).mul(255).round().permute(1, 2, 0).numpy().astype(np.uint8)
    out[:, :, ::-1]  # RGB to BGR for cv2.imwrite


def _swinir_region_mask_uint8_masked_fill() -> None:
    h = w = 8
    shift = _WINDOW // 2
    img_mask = torch.zeros((1, h, w, 1), dtype=torch.uint8)  # region ids fit in a byte
    cnt = 0
    for hs in (slice(0, -_WINDOW), slice(-_WINDOW, -shift), slice(-shift, None)):
        for ws in (slice(0, -_WINDOW), slice(-_WINDOW, -shift), slice(-shift, None)):
            img_mask[:, hs, ws, :] = cnt
            cnt += 1
    mask_windows = _window_partition(img_mask, _WINDOW).view(-1, _WINDOW * _WINDOW)
    attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
    attn_mask.masked_fill(attn_mask != 0, -100.0).masked_fill(attn_mask == 0, 0.0)


def _swinv2_float_coords_as_relative_index() -> None:
    _seeded()
    bias_table = nn.Parameter(torch.zeros((2 * _WINDOW - 1) ** 2, 2))
    # the float coordinates made for the continuous position bias MLP, reused for the index
    coords = torch.stack(torch.meshgrid(torch.arange(_WINDOW, dtype=torch.float32),
                                        torch.arange(_WINDOW, dtype=torch.float32), indexing="ij"))
    coords_flatten = torch.flatten(coords, 1)
    relative_coords = (coords_flatten[:, :, None] - coords_flatten[:, None, :]).permute(1, 2, 0).contiguous()
    relative_coords[:, :, 0] += _WINDOW - 1
    relative_coords[:, :, 1] += _WINDOW - 1
    relative_coords[:, :, 0] *= 2 * _WINDOW - 1
    relative_position_index = relative_coords.sum(-1)
    bias_table[relative_position_index.view(-1)]


# --- restoration post-processing


def _face_paste_back_where_float_mask() -> None:
    _seeded()
    background = torch.rand(1, 3, 32, 32)  # the upsampled whole image
    restored_face = torch.rand(1, 3, 32, 32)  # the restored crop, warped back with the inverse affine
    theta = torch.tensor([[[1.2, 0.1, 0.05], [-0.1, 1.2, 0.0]]])
    grid = F.affine_grid(theta, [1, 1, 32, 32], align_corners=False)
    inv_mask = F.grid_sample(torch.ones(1, 1, 32, 32), grid, align_corners=False)  # 0..1 coverage of the face
    inv_mask = -F.max_pool2d(-inv_mask, 3, 1, 1)  # erode the border
    torch.where(inv_mask, restored_face, background)


# --- metrics, perceptual and GAN losses


class _LPIPSLite(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("shift", torch.tensor([-0.030, -0.088, -0.188]).view(1, 3, 1, 1))
        self.register_buffer("scale", torch.tensor([0.458, 0.448, 0.450]).view(1, 3, 1, 1))
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.ReLU(), nn.Conv2d(8, 16, 3, 1, 1),
                                 nn.ReLU())
        self.lin = nn.Conv2d(16, 1, 1, bias=False)

    def forward(self, in0: torch.Tensor, in1: torch.Tensor) -> torch.Tensor:
        f0 = self.net((in0 - self.shift) / self.scale)
        f1 = self.net((in1 - self.shift) / self.scale)
        f0 = f0 / (f0.pow(2).sum(1, keepdim=True).sqrt() + 1e-10)
        f1 = f1 / (f1.pow(2).sum(1, keepdim=True).sqrt() + 1e-10)
        return self.lin((f0 - f1) ** 2).mean([2, 3])


def _lpips_trunk_halved_scaling_layer_fp32() -> None:
    _seeded()
    loss_fn = _LPIPSLite()
    loss_fn.net.to(bf16)  # only the VGG trunk halved to save memory
    sr = torch.rand(1, 3, 16, 16, dtype=bf16) * 2 - 1
    hr = torch.rand(1, 3, 16, 16, dtype=bf16) * 2 - 1
    loss_fn(sr, hr)


def _reference_sr_texture_attention_fp32_reference() -> None:
    _seeded()
    heads, dim = 2, 16
    lr_queries = torch.randn(1, heads, 64, dim // heads, dtype=bf16)  # from the bf16 SR backbone
    # reference-image features from the frozen VGG extractor, computed once and cached in fp32
    ref_keys = torch.randn(1, heads, 256, dim // heads)
    ref_values = torch.randn(1, heads, 256, dim // heads)
    F.scaled_dot_product_attention(lr_queries, ref_keys, ref_values)


def _focal_frequency_loss_fft_fp16() -> None:
    _seeded()
    model = _PixelShuffleSR().half()
    lr = torch.rand(1, 3, 8, 8, dtype=f16)
    hr = torch.rand(1, 3, 32, 32, dtype=f16)
    sr = model(lr)
    sr_freq = torch.fft.fft2(sr, norm="ortho")
    hr_freq = torch.fft.fft2(hr, norm="ortho")
    ((sr_freq - hr_freq).abs() ** 2).mean()


def _gan_target_map_full_bool() -> None:
    _seeded()
    disc = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 3, 1, 1))  # per-pixel logits
    pred_real = disc(torch.rand(2, 3, 16, 16))
    target = torch.full(pred_real.shape, True)  # get_target_label(pred, target_is_real) for a U-Net discriminator
    F.binary_cross_entropy_with_logits(pred_real, target)


def _ema_generator_half_checkpoint_assign_lerp() -> None:
    _seeded()
    net_g = _PixelShuffleSR()
    net_g_ema = copy.deepcopy(net_g)
    saved = {k: v.half() for k, v in net_g_ema.state_dict().items()}  # the EMA copy saved halved
    net_g_ema.load_state_dict(saved, assign=True)  # resumed with assign=True: the parameters become fp16
    with torch.no_grad():
        for p_ema, p in zip(net_g_ema.parameters(), net_g.parameters()):
            p_ema.lerp_(p, 1 - 0.999)


def _esrgan_pure_fp16_gradscaler_unscale() -> None:
    _seeded()
    net_g = _PixelShuffleSR().half()  # the generator fine-tuned in pure fp16
    optimizer = torch.optim.Adam(net_g.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    lr = torch.rand(1, 3, 8, 8, dtype=f16)
    hr = torch.rand(1, 3, 32, 32)
    loss = F.l1_loss(net_g(lr).float(), hr)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(net_g.parameters(), 0.5)


CASES: dict[str, LiveCase] = {
    # Real-ESRGAN inference with half=True: the model halved, the fp32 image's .half() forgotten in pre_process
    "realesrgan-half-model-fp32-image": case(_realesrgan_half_model_fp32_image, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a SwinIR port without `self.mean.type_as(x)`: the plain-attribute fp32 mean makes the bf16 input fp32
    "swinir-mean-attribute-without-type-as": case(_swinir_mean_attribute_without_type_as, "conv_weight_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FFDNet halved, its noise-level map made with torch.full (fp32) and concatenated to the fp16 unshuffled image
    "ffdnet-noise-map-fp32-half-model": case(_ffdnet_noise_map_fp32_into_half_model, "conv_weight_dtype", "f32",
                                             "f16",
        grade="correct", grade_at_freeze="correct"),
    # SwinIR's shift mask recomputed for a non-training size (fp32, moved with .to(device) only) promotes bf16 scores
    "swinir-shift-mask-fp32-attn-v-matmul": case(_swinir_window_attention_shift_mask_fp32, "matmul_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Restormer's transposed attention with q normalised after .float() and k in bf16, multiplied with torch.bmm
    "restormer-mdta-bmm-fp32-normalised-q": case(_restormer_transposed_attention_bmm_fp32_queries,
                                                 "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a spectral-norm discriminator cast by a p.data loop over parameters: the power iteration's u/v stay fp32
    "discriminator-spectral-norm-params-only-cast": case(_unet_discriminator_spectral_norm_params_cast,
                                                         "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # NAFNet-style LayerNorm2d upcasting its input to fp32 for F.layer_norm while its affine params are bf16
    "nafnet-layernorm2d-upcast-input-only": case(_nafnet_layernorm2d_upcast_input_only, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # tiled x4 inference: the bf16 right tile lerp-blended into the fp32 output canvas over the overlap
    "tiled-overlap-lerp-bf16-tile-fp32-canvas": case(_tiled_overlap_lerp_bf16_tile_fp32_canvas, "lerp_dtype", "f32",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # tile origins spread with torch.linspace (float) and used to slice the image
    "tile-origins-linspace-slice": case(_tile_origins_from_linspace_slice, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # overlap blending: float feather weights accumulated in place into an int64 overlap-count map
    "feather-weights-into-int64-count-map": case(_feather_weights_into_int64_count_map, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # video SR: bf16 frame outputs written with index_copy_ into an fp32 output sequence buffer
    "video-sr-index-copy-bf16-frames": case(_video_sr_frames_index_copy_bf16, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Real-ESRGAN generalized Gaussian blur kernel from numpy (float64) via torch.from_numpy into filter2D
    "generalized-gaussian-kernel-f64-filter2d": case(_generalized_gaussian_blur_kernel_f64, "conv_weight_dtype",
                                                     "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # USM sharpening with the threshold mask left bool, blurred by filter2D (reflect pad first)
    "usm-sharpen-bool-mask-filter2d": case(_usm_sharpen_bool_mask_filter2d, "no_kernel", "bool",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (8d9785d) castwise gave integer_operand ['bool'] (high confidence). The error is "
             "reflection_pad2d's missing Bool kernel: filter2D reflect-pads the bool USM mask before its conv, and "
             "padding only copies values, so the cause is an op that moves data lacking a bool kernel (as roll or "
             "cat), not bool data fed to float math; the mask never reached the conv. The fix is the mask's "
             ".float() (as USMSharp has) before filter2D.")),
    # Real-ESRGAN Gaussian noise: the per-sample gray-noise choice left bool, used as 1 - gray_noise
    "gray-noise-choice-bool-one-minus": case(_gray_noise_choice_left_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a posterize degradation ported from uint8 to the bf16 float batch with >> and <<
    "posterize-degradation-shift-bf16": case(_posterize_degradation_shift_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DiffJPEG's 8x8 DCT basis allocated float64 by numpy, tensordot with fp32 image blocks
    "diffjpeg-dct-basis-f64-tensordot": case(_diffjpeg_dct_basis_float64, "matmul_dtype",
        grade="correct", grade_at_freeze="correct"),
    # MATLAB-bicubic imresize vectorised with index_select on the float indices from floor/linspace
    "matlab-imresize-float-indices-index-select": case(_matlab_imresize_vectorised_float_indices,
                                                       "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # blind-SR degradation classifier: kernel-type labels taken from the float degradation-parameter rows
    "degradation-classifier-float-kernel-labels": case(_degradation_classifier_float_kernel_labels, "target_dtype",
                                                       "f32",
        grade="correct", grade_at_freeze="correct"),
    # RAW restoration: black level subtracted from the uint16 Bayer mosaic before converting
    "raw-black-level-subtract-uint16": case(_raw_black_level_subtract_uint16, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # RAW sensor values kept in fp16, clamped in place to the 16-bit white level 65535
    "raw-white-level-clamp-fp16-65535": case(_raw_white_level_clamp_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 SR output converted for cv2.imwrite with .numpy() before .astype(np.uint8)
    "sr-output-bf16-numpy-imwrite": case(_sr_output_bf16_to_numpy_for_imwrite, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SwinIR's shifted-window region ids built in a uint8 img_mask, masked_fill with -100
    "swinir-region-mask-uint8-masked-fill": case(_swinir_region_mask_uint8_masked_fill, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # SwinV2-style: the float relative coordinates (made for the CPB MLP) summed into the relative position index
    "swinv2-float-coords-relative-index": case(_swinv2_float_coords_as_relative_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # face restoration paste-back: torch.where with the warped float coverage mask as condition
    "face-paste-back-where-float-mask": case(_face_paste_back_where_float_mask, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # LPIPS with only its VGG trunk halved: the fp32 scaling layer makes the bf16 SR input fp32
    "lpips-trunk-halved-scaling-layer-fp32": case(_lpips_trunk_halved_scaling_layer_fp32, "conv_weight_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # reference-based SR: bf16 LR queries attend via SDPA to cached fp32 reference-image features
    "reference-sr-texture-attention-fp32-reference": case(_reference_sr_texture_attention_fp32_reference,
                                                          "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # focal-frequency loss on a halved generator's fp16 output with torch.fft.fft2
    "focal-frequency-loss-fft2-fp16": case(_focal_frequency_loss_fft_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # U-Net discriminator GAN loss with its target map built by torch.full(shape, True): a bool BCE target
    "gan-target-map-full-bool": case(_gan_target_map_full_bool, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # EMA generator resumed from its halved checkpoint with assign=True, lerp_'d toward the fp32 generator
    "ema-generator-half-checkpoint-assign-lerp": case(_ema_generator_half_checkpoint_assign_lerp, "lerp_dtype",
                                                      "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ESRGAN generator fine-tuned in pure fp16 through GradScaler, unscale_ before gradient clipping
    "esrgan-pure-fp16-gradscaler-unscale": case(_esrgan_pure_fp16_gradscaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
