"""Held-out live set 26: medical and scientific imaging written by hand in plain torch (int16/uint16 CT and microscopy
volumes, Hounsfield and percentile normalisation, 3-D UNets, sliding-window inference and overlap blending, segmentation
losses and label maps, connected regions, resampling and registration, satellite bands and astronomy images with
no-data pixels, test-time augmentation) run in bf16, fp16, fp8 or on integer data. Defects planted by a helper who never
read the rules, written before castwise ran and graded once with the rules frozen at 3c0cb01."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "3c0cb01"

bf16 = torch.bfloat16


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _ct_int16(size: int = 8) -> np.ndarray:
    """A CT volume in Hounsfield units as a NIfTI loader hands it back: int16, air to bone."""
    return _rng().integers(-1024, 1500, (size, size, size), dtype=np.int16)


class _UNet3d(nn.Module):
    """A two-level 3-D UNet (nnU-Net-like: conv, instance norm, leaky ReLU), with an optional deep-supervision output."""

    def __init__(self, channels: int = 1, classes: int = 3, width: int = 4) -> None:
        super().__init__()
        self.encoder = self._block(channels, width)
        self.down = nn.Conv3d(width, 2 * width, 3, stride=2, padding=1)
        self.bottom = self._block(2 * width, 2 * width)
        self.up = nn.ConvTranspose3d(2 * width, width, 2, stride=2)
        self.decoder = self._block(2 * width, width)
        self.head = nn.Conv3d(width, classes, 1)
        self.low_res_head = nn.Conv3d(2 * width, classes, 1)

    @staticmethod
    def _block(inputs: int, outputs: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv3d(inputs, outputs, 3, padding=1), nn.InstanceNorm3d(outputs, affine=True),
                             nn.LeakyReLU(0.01))

    def forward_all(self, x: torch.Tensor) -> list[torch.Tensor]:
        skip = self.encoder(x)
        bottom = self.bottom(self.down(skip))
        top = self.decoder(torch.cat([self.up(bottom), skip], 1))
        return [self.head(top), self.low_res_head(bottom)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_all(x)[0]


def _bf16_unet() -> _UNet3d:
    torch.manual_seed(0)
    return _UNet3d().to(bf16).eval()


def _mirror_tta(model: nn.Module, image: torch.Tensor) -> list[torch.Tensor]:
    """Softmax predictions for the image and its mirrors along each spatial axis, mirrored back."""
    predictions = []
    with torch.no_grad():
        for axes in ((), (2,), (3,), (4,)):
            flipped = image.flip(axes) if axes else image
            logits = model(flipped)
            predictions.append((logits.flip(axes) if axes else logits).softmax(1))
    return predictions


# --- CT and microscopy intensities

def _ct_int16_into_unet() -> None:
    ct = torch.from_numpy(_ct_int16())
    torch.manual_seed(0)
    model = _UNet3d().eval()
    with torch.no_grad():
        model(ct[None, None])


def _dicom_uint16_rescale_to_hounsfield() -> None:
    rng = _rng()
    slices = [rng.integers(0, 4096, (8, 8), dtype=np.uint16) for _ in range(4)]  # PixelRepresentation 0: unsigned
    header = {"RescaleSlope": "1", "RescaleIntercept": "-1024"}
    volume = torch.from_numpy(np.stack(slices))
    hounsfield = volume * int(header["RescaleSlope"]) + int(header["RescaleIntercept"])
    hounsfield.clamp(-1000, 2000)


def _ct_foreground_percentiles() -> None:
    ct = torch.from_numpy(_ct_int16())
    labels = torch.from_numpy(_rng().integers(0, 3, ct.shape))
    foreground = ct[labels > 0]
    low, high = torch.quantile(foreground, torch.tensor([0.005, 0.995]))
    mean, std = foreground.float().mean(), foreground.float().std()
    (ct.clamp(int(low), int(high)) - mean) / std


def _microscopy_max_projection() -> None:
    stack = torch.from_numpy(_rng().integers(100, 4000, (16, 32, 32), dtype=np.uint16))  # z, y, x from a 16-bit TIFF
    projection = stack.amax(dim=0)
    projection.float() / 4095


def _noise2void_blind_spots() -> None:
    g = _generator()
    raw = torch.from_numpy(_rng().integers(100, 4000, (64, 64), dtype=np.uint16)).float()
    normalised = (raw - raw.mean()) / raw.std()
    inputs = normalised.to(bf16)  # the denoiser trains in bf16
    ys, xs = torch.randint(1, 63, (32,), generator=g), torch.randint(1, 63, (32,), generator=g)
    dy, dx = torch.randint(-1, 2, (32,), generator=g), torch.randint(-1, 2, (32,), generator=g)
    inputs[ys, xs] = normalised[ys + dy, xs + dx]


# --- satellite bands and astronomy images

def _landsat_qa_cloud_bits() -> None:
    qa_pixel = torch.from_numpy(_rng().integers(0, 1 << 16, (2, 16, 16), dtype=np.uint16))  # Landsat QA_PIXEL band
    cloud = (qa_pixel >> 3) & 1
    cloud.bool()


def _sentinel2_qa60_where() -> None:
    qa60 = torch.from_numpy(_rng().choice(np.array([0, 1024, 2048], dtype=np.uint16), (16, 16))).int()
    bands = torch.rand(4, 16, 16, generator=_generator())
    opaque_or_cirrus = qa60 & ((1 << 10) | (1 << 11))
    torch.where(opaque_or_cirrus, torch.nan, bands)


def _tile_padded_with_raster_nodata() -> None:
    tile = torch.rand(4, 30, 30, generator=_generator()).half()  # a float32 GeoTIFF window kept in fp16 to save memory
    nodata = float(np.finfo(np.float32).min)  # the raster's declared nodata value
    F.pad(tile, (0, 2, 0, 2), value=nodata)


class _SpectralIndexStem(nn.Module):
    """Learned per-band gains, then NDVI from the NIR and red bands as an extra input channel."""

    def __init__(self, bands: int = 4) -> None:
        super().__init__()
        self.gains = nn.Parameter(torch.ones(bands, 1, 1))
        self.conv = nn.Conv2d(bands + 1, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * self.gains
        red, nir = x[:, 2:3], x[:, 3:4]
        ndvi = (nir - red) / (nir + red)
        return self.conv(torch.cat([x, ndvi], 1))


def _ndvi_on_nodata_pixels() -> None:
    torch.manual_seed(0)
    model = _SpectralIndexStem().to(bf16)
    tile = torch.rand(1, 4, 8, 8, generator=_generator())
    tile[..., :, :3] = 0.0  # outside the swath: no-data pixels read as zeros
    with torch.autograd.detect_anomaly():
        model(tile.to(bf16)).float().pow(2).mean().backward()


def _fits_big_endian_image() -> None:
    data = _rng().normal(100.0, 5.0, (32, 32)).astype(">f4")  # a FITS image as astropy returns it: big-endian float32
    image = torch.from_numpy(data)
    (image - image.median()) / image.std()


def _fits_spectrum_into_bf16_cnn() -> None:
    raw = _rng().integers(-32768, 32767, 256, dtype=np.int16)
    bscale, bzero = 0.01, 5.0
    flux = raw * bscale + bzero  # applying the FITS scaling in numpy gives float64
    flux = (flux - flux.mean()) / flux.std()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(1, 8, 7, padding=3, bias=False), nn.BatchNorm1d(8), nn.ReLU(),
                          nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(8, 1)).to(bf16)
    model(torch.from_numpy(flux)[None, None])


def _galaxy_likelihood_with_nan_pixels() -> None:
    cutout = torch.from_numpy(_rng().normal(1.0, 0.1, (16, 16)).astype(np.float32))
    cutout[3, 4] = cutout[10, 12] = float("nan")  # bad pixels flagged NaN in the FITS cutout
    torch.manual_seed(0)
    decoder = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 256)).to(bf16)
    profile = decoder(torch.randn(1, 4).to(bf16)).float().view(16, 16)
    likelihood = torch.distributions.Normal(profile, 0.1)
    -likelihood.log_prob(cutout).sum()


# --- 3-D UNets, sliding windows and attention

def _sliding_window_aggregator_like_volume() -> None:
    volume = torch.from_numpy(_ct_int16(12))
    torch.manual_seed(0)
    model = _UNet3d().eval()
    patch, step = 8, 4
    aggregated = volume.new_zeros((3, *volume.shape))
    counts = volume.new_zeros(volume.shape)
    with torch.no_grad():
        for z in range(0, 12 - patch + 1, step):
            for y in range(0, 12 - patch + 1, step):
                for x in range(0, 12 - patch + 1, step):
                    window = (slice(z, z + patch), slice(y, y + patch), slice(x, x + patch))
                    image = volume[window].float().clamp(-1000, 1000) / 1000
                    aggregated[(slice(None), *window)] += model(image[None, None])[0].softmax(0)
                    counts[window] += 1


def _fp8_prediction_cache_blended() -> None:
    g = _generator()
    patch = 8
    centre = torch.linspace(-1, 1, patch)
    importance = torch.exp(-(centre[:, None, None] ** 2 + centre[None, :, None] ** 2 + centre[None, None, :] ** 2) / 0.5)
    cache = [torch.rand(3, patch, patch, patch, generator=g).softmax(0).to(torch.float8_e4m3fn) for _ in range(2)]
    aggregated = torch.zeros(3, patch, patch, patch + 4)
    for index, probabilities in enumerate(cache):  # probabilities kept in fp8 between passes to fit in memory
        aggregated[..., 4 * index:4 * index + patch] += probabilities * importance


class _CoordinateSegNet(nn.Module):
    """A stem, then normalised z/y/x coordinate channels concatenated before a pre-activation residual block."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.stem = nn.Conv3d(1, width, 3, padding=1)
        self.norm = nn.GroupNorm(1, width + 3)
        self.conv = nn.Conv3d(width + 3, width, 3, padding=1)
        self.head = nn.Conv3d(width, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = self.stem(x)
        axes = [torch.linspace(-1, 1, size) for size in x.shape[2:]]
        coordinates = torch.stack(torch.meshgrid(*axes, indexing="ij"))[None].expand(x.shape[0], -1, -1, -1, -1)
        joined = torch.cat([features, coordinates], 1)
        return self.head(features + self.conv(F.leaky_relu(self.norm(joined))))


def _coordinate_channels_before_group_norm() -> None:
    torch.manual_seed(0)
    model = _CoordinateSegNet().to(bf16)
    model(torch.rand(1, 1, 8, 8, 8).to(bf16))


class _SliceContext(nn.Module):
    """2.5-D: the centre CT slice's features attend over its neighbours' features, cached from earlier slices."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.cache: dict[int, torch.Tensor] = {}

    def features(self, image: torch.Tensor) -> torch.Tensor:
        return self.encoder(image).flatten(2).transpose(1, 2)  # (batch, 16 tokens, width)

    def forward(self, index: int, image: torch.Tensor) -> torch.Tensor:
        query = self.features(image)
        self.cache[index] = query.detach().float()  # kept in fp32 so the bank stays precise
        neighbours = [self.cache[i] for i in (index - 1, index + 1) if i in self.cache]
        memory = torch.cat(neighbours, 1) if neighbours else query
        return F.scaled_dot_product_attention(query[:, None], memory[:, None], memory[:, None])[:, 0]


def _slice_attention_fp32_neighbour_cache() -> None:
    torch.manual_seed(0)
    model = _SliceContext().to(bf16)
    volume = torch.rand(3, 1, 1, 16, 16, generator=_generator()).to(bf16)
    with torch.no_grad():
        for index in range(3):
            model(index, volume[index])


def _shifted_window_mask_3d(size: int, window: int, shift: int) -> torch.Tensor:
    """Swin-style attention mask for shifted 3-D windows, built with numpy."""
    regions = np.zeros((size, size, size))
    count = 0
    cuts = (slice(0, -window), slice(-window, -shift), slice(-shift, None))
    for d in cuts:
        for h in cuts:
            for w in cuts:
                regions[d, h, w] = count
                count += 1
    n = size // window
    windows = regions.reshape(n, window, n, window, n, window).transpose(0, 2, 4, 1, 3, 5).reshape(-1, window ** 3)
    mask = windows[:, None, :] - windows[:, :, None]
    return torch.from_numpy(np.where(mask != 0, -100.0, 0.0))


def _swin_unetr_shifted_window_attention() -> None:
    size, window, heads, dim = 4, 2, 2, 8
    torch.manual_seed(0)
    qkv = nn.Linear(dim, 3 * dim).to(bf16)
    tokens = torch.randn(1, size, size, size, dim).to(bf16)
    shifted = torch.roll(tokens, shifts=(-1, -1, -1), dims=(1, 2, 3))
    n = size // window
    windows = shifted.view(1, n, window, n, window, n, window, dim).permute(0, 1, 3, 5, 2, 4, 6, 7)
    windows = windows.reshape(-1, window ** 3, dim)
    q, k, v = qkv(windows).view(windows.shape[0], window ** 3, 3, heads, dim // heads).permute(2, 0, 3, 1, 4)
    mask = _shifted_window_mask_3d(size, window, 1)
    F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None])


# --- segmentation losses, label maps and connected regions

def _deep_supervision_float_targets() -> None:
    torch.manual_seed(0)
    model = _UNet3d().to(bf16)
    image = torch.rand(1, 1, 8, 8, 8).to(bf16)
    labels = torch.randint(0, 3, (1, 8, 8, 8), generator=_generator())
    loss = torch.zeros(())
    for weight, logits in zip((1.0, 0.5), model.forward_all(image)):
        target = F.interpolate(labels[:, None].float(), size=logits.shape[2:], mode="nearest")[:, 0]
        loss = loss + weight * F.cross_entropy(logits, target)
    loss.backward()


def _tversky_one_hot_from_int16_labels() -> None:
    torch.manual_seed(0)
    model = _UNet3d().to(bf16)
    labels = torch.from_numpy(_rng().integers(0, 3, (1, 8, 8, 8)).astype(np.int16))  # the NIfTI segmentation's int16
    probabilities = model(torch.rand(1, 1, 8, 8, 8).to(bf16)).softmax(1)
    one_hot = torch.zeros_like(probabilities).scatter_(1, labels[:, None], 1)
    dims = (0, 2, 3, 4)
    tp = (probabilities * one_hot).sum(dims)
    fp = (probabilities * (1 - one_hot)).sum(dims)
    fn = ((1 - probabilities) * one_hot).sum(dims)
    (1 - tp / (tp + 0.3 * fp + 0.7 * fn + 1e-5)).mean().backward()


def _organ_groups_lookup_table() -> None:
    labels = torch.from_numpy(_rng().integers(0, 105, (8, 8, 8)).astype(np.int16))  # a 104-structure whole-body mask
    groups = torch.zeros(105, dtype=torch.long)
    groups[1:25] = 1  # abdominal organs
    groups[25:50] = 2  # vertebrae
    groups[50:] = 3  # everything else
    groups[labels]


def _boundary_loss_numpy_distance_maps() -> None:
    grid = np.indices((8, 8, 8)).astype(np.float64)
    radius = np.sqrt(((grid - 3.5) ** 2).sum(0))
    signed_distance = torch.from_numpy(np.stack([2.5 - radius, radius - 2.5]))[None]  # background, foreground
    torch.manual_seed(0)
    model = nn.Conv3d(1, 2, 3, padding=1).to(bf16)
    probabilities = model(torch.rand(1, 1, 8, 8, 8).to(bf16)).softmax(1)
    torch.einsum("bcdhw,bcdhw->bc", probabilities, signed_distance).mean().backward()


def _soft_erode(x: torch.Tensor) -> torch.Tensor:
    return -torch.minimum(torch.minimum(F.max_pool3d(-x, (3, 1, 1), 1, (1, 0, 0)),
                                        F.max_pool3d(-x, (1, 3, 1), 1, (0, 1, 0))),
                          F.max_pool3d(-x, (1, 1, 3), 1, (0, 0, 1)))


def _soft_skeleton(x: torch.Tensor, iterations: int = 3) -> torch.Tensor:
    opened = F.max_pool3d(_soft_erode(x), 3, 1, 1)
    skeleton = F.relu(x - opened)
    for _ in range(iterations):
        x = _soft_erode(x)
        delta = F.relu(x - F.max_pool3d(_soft_erode(x), 3, 1, 1))
        skeleton = skeleton + F.relu(delta - skeleton * delta)
    return skeleton


def _cldice_on_boolean_vessel_mask() -> None:
    vessels = torch.from_numpy(_rng().random((1, 1, 8, 8, 8)) > 0.6)  # the ground-truth vessel mask, bool
    torch.manual_seed(0)
    model = nn.Conv3d(1, 1, 3, padding=1).to(bf16)
    prediction = model(torch.rand(1, 1, 8, 8, 8).to(bf16)).sigmoid()
    skeleton_pred, skeleton_true = _soft_skeleton(prediction), _soft_skeleton(vessels)
    precision = (skeleton_pred * vessels).sum() / skeleton_pred.sum()
    sensitivity = (skeleton_true * prediction).sum() / skeleton_true.sum()
    (1 - 2 * precision * sensitivity / (precision + sensitivity)).backward()


def _connected_components(mask: torch.Tensor) -> torch.Tensor:
    """26-connected component ids (0 for background, then 1, 2, ...) by max-pooling voxel ids to a fixed point."""
    ids = torch.arange(1, mask.numel() + 1).view(mask.shape) * mask
    for _ in range(sum(mask.shape)):
        grown = F.max_pool3d(ids[None, None], 3, 1, 1)[0, 0] * mask
        if torch.equal(grown, ids):
            break
        ids = grown
    return torch.unique(ids, return_inverse=True)[1]


def _lesion_wise_mean_probability() -> None:
    torch.manual_seed(0)
    model = nn.Conv3d(1, 1, 3, padding=1).to(bf16)
    with torch.no_grad():
        probabilities = model(torch.rand(1, 1, 8, 8, 8).to(bf16)).sigmoid()[0, 0]
    components = _connected_components(probabilities > 0.5)
    count = int(components.max()) + 1
    sums = torch.zeros(count).scatter_add_(0, components.flatten(), probabilities.flatten())
    sums / torch.bincount(components.flatten(), minlength=count)


def _surface_points(mask: torch.Tensor) -> torch.Tensor:
    eroded = -F.max_pool3d(-mask[None, None].float(), 3, 1, 1)[0, 0]
    return torch.nonzero(mask & (eroded == 0))


def _hausdorff_with_header_spacing() -> None:
    zooms = np.array([2.5, 0.8, 0.8])  # the image header's voxel spacing in mm, numpy float64
    rng = _rng()
    prediction = torch.from_numpy(rng.random((8, 8, 8)) > 0.5)
    truth = rng.random((8, 8, 8)) > 0.5
    predicted_points = _surface_points(prediction).float() * torch.tensor(zooms.tolist())
    true_points = torch.from_numpy(np.argwhere(truth) * zooms)
    distances = torch.cdist(predicted_points, true_points)
    torch.maximum(distances.min(1).values.max(), distances.min(0).values.max())


# --- registration and resampling

def _local_ncc(fixed: torch.Tensor, warped: torch.Tensor, window: int = 5) -> torch.Tensor:
    """VoxelMorph-style local normalised cross-correlation with a box filter."""
    box = torch.ones(1, 1, window, window, window)
    padding = window // 2
    sums = [F.conv3d(t, box, padding=padding) for t in (fixed, warped, fixed * fixed, warped * warped, fixed * warped)]
    size = window ** 3
    f_sum, w_sum, ff_sum, ww_sum, fw_sum = sums
    cross = fw_sum - f_sum * w_sum / size
    return (cross * cross / ((ff_sum - f_sum ** 2 / size) * (ww_sum - w_sum ** 2 / size) + 1e-5)).mean()


def _ncc_box_filter_bf16_images() -> None:
    g = _generator()
    fixed, moving = (torch.rand(1, 1, 8, 8, 8, generator=g).to(bf16) for _ in range(2))
    torch.manual_seed(0)
    flow_net = nn.Conv3d(2, 3, 3, padding=1).to(bf16)
    flow = flow_net(torch.cat([fixed, moving], 1)) * 0.1
    identity = F.affine_grid(torch.eye(3, 4)[None], [1, 1, 8, 8, 8], align_corners=True).to(bf16)
    warped = F.grid_sample(moving, identity + flow.permute(0, 2, 3, 4, 1), align_corners=True)
    (-_local_ncc(fixed, warped)).backward()


def _parzen_weights(image: torch.Tensor, bins: int = 16, sigma: float = 0.05) -> torch.Tensor:
    """Gaussian Parzen-window bin weights per voxel, in the image's own precision."""
    centres = torch.linspace(0, 1, bins, dtype=image.dtype)
    weights = torch.exp(-((image.flatten(1)[..., None] - centres) ** 2) / (2 * sigma ** 2))
    return weights / weights.sum(-1, keepdim=True)


def _mutual_information_joint_histogram() -> None:
    g = _generator()
    fixed = torch.rand(1, 1, 8, 8, 8, generator=g)  # the fixed MR stays in fp32
    torch.manual_seed(0)
    model = nn.Conv3d(1, 1, 3, padding=1).to(bf16)
    warped = model(torch.rand(1, 1, 8, 8, 8, generator=g).to(bf16)).sigmoid()
    joint = torch.bmm(_parzen_weights(warped).transpose(1, 2), _parzen_weights(fixed)) / fixed[0].numel()
    marginals = joint.sum(2, keepdim=True) * joint.sum(1, keepdim=True)
    (-(joint * torch.log(joint / marginals + 1e-8)).sum()).backward()


def _jacobian_determinant_folding() -> None:
    torch.manual_seed(0)
    flow_net = nn.Conv3d(2, 3, 3, padding=1).to(bf16)
    flow = flow_net(torch.rand(1, 2, 8, 8, 8).to(bf16))[0]  # (3, D, H, W) displacement in voxels
    rows = [torch.stack(torch.gradient(flow[i]), 0) for i in range(3)]
    jacobian = torch.stack(rows, 0).permute(2, 3, 4, 0, 1) + torch.eye(3, dtype=flow.dtype)
    folding = F.relu(-torch.linalg.det(jacobian)).mean()
    folding.backward()


def _flow_gradient_smoothing_hook() -> None:
    g = _generator()
    fixed, moving = (torch.rand(1, 1, 8, 8, 8, generator=g).to(bf16) for _ in range(2))
    flow = nn.Parameter(torch.zeros(1, 3, 8, 8, 8, dtype=bf16))  # instance optimisation of a displacement field

    def smooth_gradient(grad: torch.Tensor) -> torch.Tensor:
        return F.avg_pool3d(grad.float(), 3, 1, 1)  # avg_pool3d has no bf16 kernel on the CPU

    flow.register_hook(smooth_gradient)
    identity = F.affine_grid(torch.eye(3, 4)[None], [1, 1, 8, 8, 8], align_corners=True).to(bf16)
    warped = F.grid_sample(moving, identity + flow.permute(0, 2, 3, 4, 1), align_corners=True)
    ((warped - fixed) ** 2).mean().backward()


def _mirror_augmentation_integer_theta() -> None:
    patch = torch.rand(2, 1, 8, 8, 8, generator=_generator())
    signs = torch.randint(0, 2, (2, 3), generator=_generator()) * 2 - 1
    theta = F.pad(torch.diag_embed(signs), (0, 1))  # mirror axes at random, no translation
    grid = F.affine_grid(theta, list(patch.shape), align_corners=False)
    F.grid_sample(patch, grid, align_corners=False)


def _atlas_labels_warped_nearest() -> None:
    atlas_labels = torch.randint(0, 4, (1, 1, 8, 8, 8), generator=_generator())
    flow = torch.rand(1, 8, 8, 8, 3, generator=_generator()) * 0.1
    identity = F.affine_grid(torch.eye(3, 4)[None], [1, 1, 8, 8, 8], align_corners=True)
    F.grid_sample(atlas_labels, identity + flow, mode="nearest", align_corners=True)


def _thick_slices_interpolated_with_lerp() -> None:
    volume = torch.rand(6, 16, 16, generator=_generator()).to(bf16)  # 5 mm slices, resampled to 1.25 mm
    positions = torch.linspace(0, volume.shape[0] - 1, 4 * (volume.shape[0] - 1) + 1)
    below = positions.floor().long()
    above = (below + 1).clamp(max=volume.shape[0] - 1)
    fraction = positions - below
    torch.lerp(volume[below], volume[above], fraction[:, None, None])


# --- test-time augmentation

def _tta_probabilities_written_out() -> None:
    model = _bf16_unet()
    image = torch.rand(1, 1, 8, 8, 8, generator=_generator()).to(bf16)
    probabilities = torch.stack(_mirror_tta(model, image)).mean(0)
    np.ascontiguousarray(probabilities[0].numpy().transpose(1, 2, 3, 0))  # channels last for the NIfTI writer


def _tta_weighted_ensemble() -> None:
    model = _bf16_unet()
    image = torch.rand(1, 1, 8, 8, 8, generator=_generator()).to(bf16)
    weights = torch.tensor([0.4, 0.2, 0.2, 0.2])  # per-augmentation weights tuned on validation
    ensemble = torch.tensordot(weights, torch.stack(_mirror_tta(model, image)), dims=1)
    ensemble.argmax(1)


CASES: dict[str, LiveCase] = {
    # --- CT and microscopy intensities
    # the raw int16 CT volume from the NIfTI loader fed straight to the 3-D UNet's first Conv3d
    "ct-int16-volume-into-unet-conv3d": case(
        _ct_int16_into_unet, "integer_operand", "int16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (3c0cb01) castwise gave conv_bias_dtype [f32] (high confidence). It did not read the message's \"short int\" as int16, so it took the raw integer CT volume meeting the conv's float bias for two floating dtypes and blamed the bias."),
    # a DICOM series stacked as uint16 rescaled to Hounsfield units with the header's integer slope and intercept
    "dicom-uint16-rescale-integer-intercept": case(
        _dicom_uint16_rescale_to_hounsfield, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="partly",
        why="At freeze (3c0cb01) castwise gave no_kernel [] (high confidence). The kind is right, but it did not read 'UInt16' as a dtype, so the explanation names no dtype (\"a this dtype tensor\")."),
    # nnU-Net-style CT normalisation: 0.5/99.5 foreground percentiles by torch.quantile on the int16 HU values
    "ct-foreground-percentiles-quantile-int16": case(
        _ct_foreground_percentiles, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # a maximum-intensity projection of a uint16 light-sheet stack with amax
    "microscopy-uint16-max-projection": case(
        _microscopy_max_projection, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="partly",
        why="At freeze (3c0cb01) castwise gave no_kernel [] (high confidence). The kind is right, but it did not read 'UInt16' as a dtype, so the explanation names no dtype (\"a this dtype tensor\")."),
    # Noise2Void blind spots: neighbour values taken from the fp32 normalised image written into the bf16 input
    "noise2void-blind-spot-fp32-into-bf16": case(
        _noise2void_blind_spots, "indexed_write_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- satellite bands and astronomy images
    # Landsat QA_PIXEL cloud bit read by shifting the uint16 band
    "landsat-qa-uint16-bit-shift": case(
        _landsat_qa_cloud_bits, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="partly",
        why="At freeze (3c0cb01) castwise gave no_kernel [] (high confidence). The kind is right, but it did not read 'UInt16' as a dtype, so the explanation names no dtype (\"a this dtype tensor\")."),
    # Sentinel-2 QA60 cloud bits tested with & (an int32 result) used as torch.where's condition
    "sentinel2-qa60-bits-where-condition": case(
        _sentinel2_qa60_where, "mask_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # an edge tile kept in fp16 padded with the raster's nodata value (float32's minimum)
    "tile-pad-raster-nodata-f16": case(
        _tile_padded_with_raster_nodata, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # NDVI as an input channel in a bf16 model: zero no-data pixels give 0/0, anomaly mode catches NaN in backward
    "ndvi-zero-nodata-anomaly": case(
        _ndvi_on_nodata_pixels, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a FITS image read by astropy (big-endian float32) handed to torch.from_numpy
    "fits-big-endian-from-numpy": case(
        _fits_big_endian_image, "numpy_dtype", cause=("byte order",),
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (3c0cb01) castwise gave nothing. No rule reads torch.from_numpy's refusal of a non-native (big-endian) byte order."),
    # a FITS spectrum scaled by BSCALE/BZERO in numpy (float64) fed to a bf16 1-D CNN
    "fits-spectrum-f64-into-bf16-conv1d": case(
        _fits_spectrum_into_bf16_cnn, "conv_weight_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a galaxy-profile Gaussian likelihood against a FITS cutout whose bad pixels are NaN
    "galaxy-likelihood-nan-bad-pixels": case(
        _galaxy_likelihood_with_nan_pixels, "nonfinite",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (3c0cb01) castwise gave nothing. No rule reads a distribution's support check failing on NaN in the value given to log_prob (as opposed to its parameters)."),
    # --- 3-D UNets, sliding windows and attention
    # sliding-window inference: the logits aggregator made with new_zeros on the int16 CT, so it is int16
    "sliding-window-aggregator-int16": case(
        _sliding_window_aggregator_like_volume, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # patch probabilities cached in fp8 between passes, blended with the fp32 Gaussian importance map
    "fp8-prediction-cache-gaussian-blend": case(
        _fp8_prediction_cache_blended, "fp8_promotion", "float8_e4m3fn", "f32",
        grade="correct", grade_at_freeze="correct"),
    # coordinate channels from linspace (fp32) concatenated to bf16 features ahead of a pre-activation GroupNorm
    "coordinate-channels-group-norm-bf16": case(
        _coordinate_channels_before_group_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # 2.5-D slice attention: bf16 centre-slice queries over neighbour features cached in fp32
    "slice-attention-fp32-neighbour-cache": case(
        _slice_attention_fp32_neighbour_cache, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Swin-UNETR 3-D shifted-window mask built with numpy (float64), given to SDPA with bf16 windows
    "swin-unetr-numpy-window-mask-f64": case(
        _swin_unetr_shifted_window_attention, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- segmentation losses, label maps and connected regions
    # deep supervision: label maps downsampled with interpolate (float) and given to cross_entropy as is
    "deep-supervision-float-downsampled-labels": case(
        _deep_supervision_float_targets, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Tversky loss: the one-hot target made with scatter_ from the int16 label map
    "tversky-one-hot-scatter-int16-labels": case(
        _tversky_one_hot_from_int16_labels, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # merging a whole-body int16 segmentation into organ groups through a lookup table
    "organ-group-lookup-int16-labels": case(
        _organ_groups_lookup_table, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # boundary loss: bf16 probabilities contracted with numpy (float64) signed distance maps by einsum
    "boundary-loss-einsum-f64-distance": case(
        _boundary_loss_numpy_distance_maps, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # clDice: the soft skeleton (negation inside soft erosion) applied to the bool ground-truth vessel mask
    "cldice-soft-skeleton-bool-mask": case(
        _cldice_on_boolean_vessel_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (3c0cb01) castwise gave mask_dtype [bool] (high confidence). It read the negation as a mask inverted with arithmetic and advised `~mask`, but the bool tensor is a ground-truth image fed to a soft skeleton that needs it as float. After grading, the expectation was corrected from integer_operand to mask_dtype, the convention the team's wording tests and live_held_out_1 to _3 hold for `-` on a bool tensor (castwise's fix now also says to convert a bool tensor used as data); grade_at_freeze stays wrong."),
    # lesion-wise detection: bf16 probabilities scatter_add_'ed per connected component into an fp32 buffer
    "lesion-mean-probability-scatter-add": case(
        _lesion_wise_mean_probability, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Hausdorff distance: one surface scaled by an fp32 spacing tensor, the other by the header's float64 spacing
    "hausdorff-cdist-header-spacing-f64": case(
        _hausdorff_with_header_spacing, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- registration and resampling
    # VoxelMorph-style local NCC with a box filter made by torch.ones (fp32) on bf16 images
    "ncc-box-filter-fp32-bf16-images": case(
        _ncc_box_filter_bf16_images, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # mutual information: Parzen weights in each image's dtype, the joint histogram by bmm of bf16 and fp32
    "mutual-information-joint-histogram-bmm": case(
        _mutual_information_joint_histogram, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # folding penalty: the Jacobian determinant of a bf16 displacement field with linalg.det
    "jacobian-determinant-det-bf16": case(
        _jacobian_determinant_folding, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a hook smoothing the bf16 flow's gradient with avg_pool3d in fp32 and returning it uncast
    "flow-gradient-smoothing-hook-fp32": case(
        _flow_gradient_smoothing_hook, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # random mirroring written as an affine whose theta is built from integer signs
    "mirror-augmentation-integer-theta": case(
        _mirror_augmentation_integer_theta, "integer_operand", "int64",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (3c0cb01) castwise gave nothing. No rule reads F.affine_grid's ValueError for an integer (int64) theta."),
    # atlas-based segmentation: the int64 atlas label map warped with nearest grid_sample
    "atlas-labels-grid-sample-int64": case(
        _atlas_labels_warped_nearest, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # thick-slice CT upsampled through-plane with lerp: bf16 slices, fp32 fractional positions as the weight
    "thick-slice-lerp-fp32-weight": case(
        _thick_slices_interpolated_with_lerp, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- test-time augmentation
    # mirror TTA in bf16, the averaged probabilities converted with .numpy() for the NIfTI writer
    "tta-bf16-probabilities-numpy": case(
        _tta_probabilities_written_out, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # mirror TTA in bf16 merged with fp32 per-augmentation weights by tensordot
    "tta-weighted-ensemble-tensordot": case(
        _tta_weighted_ensemble, "matmul_dtype",
        grade="correct", grade_at_freeze="correct"),
}
