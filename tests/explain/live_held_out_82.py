"""Held-out live set 82: crowd counting and density estimation written by hand in low precision (uint8 crowd images,
density maps made with float64 scipy gaussian filters, head point annotations as integer coordinates, count losses
and MAE/MSE metrics, multi-scale CSRNet/MCNN-style encoders under bf16/fp16 autocast, density-map upsampling and
sum-preserving interpolation, optimal-transport (DM-Count) and Bayesian losses, region masks as bool). Defects planted
by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at c248a6f."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from scipy import ndimage
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c248a6f"

bf16, f16 = torch.bfloat16, torch.float16
_H, _W = 64, 96  # a small crowd image; real ones are 768 x 1024 and up
_STRIDE = 8  # CSRNet / DM-Count output stride
_LOG_PARA = 1000.0  # density amplification used by C^3-Framework-style training


def _seeded() -> None:
    torch.manual_seed(0)


def _crowd_image(gray: bool = False) -> np.ndarray:
    """What cv2.imread gives: uint8 HxWx3 BGR (or HxW with flag 0)."""
    rng = np.random.default_rng(0)
    shape = (_H, _W) if gray else (_H, _W, 3)
    return rng.integers(0, 256, size=shape, dtype=np.uint8)


def _ann_points(n: int = 40) -> np.ndarray:
    """ShanghaiTech's image_info[0][0][0][0][0] from scipy.io.loadmat: float64 (x, y) head positions."""
    rng = np.random.default_rng(1)
    return np.stack([rng.uniform(0, _W, n), rng.uniform(0, _H, n)], axis=1)


def _gt_density(sigma: float = 4.0) -> np.ndarray:
    """Fixed-kernel density map the usual way: a dot map blurred with scipy's gaussian_filter (float64)."""
    dots = np.zeros((_H, _W))
    for x, y in _ann_points():
        dots[min(int(y), _H - 1), min(int(x), _W - 1)] += 1.0
    return ndimage.gaussian_filter(dots, sigma, mode="constant")


def _pixel_points(n: int = 40) -> torch.Tensor:
    """Head points rounded to pixels, int64 (x, y)."""
    pts = np.floor(_ann_points(n)).astype(np.int64)
    return torch.from_numpy(pts)


class _TinyCSRNet(nn.Module):
    """CSRNet layout at toy width: VGG-style frontend (stride 8), dilated backend, 1x1 density output."""

    def __init__(self) -> None:
        super().__init__()
        self.frontend = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.backend = nn.Sequential(
            nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.ReLU(),
            nn.Conv2d(16, 8, 3, padding=2, dilation=2), nn.ReLU(),
        )
        self.output_layer = nn.Conv2d(8, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.output_layer(self.backend(self.frontend(x))))


def _normalised_batch(dtype: torch.dtype = torch.float32) -> torch.Tensor:
    img = torch.from_numpy(_crowd_image()).permute(2, 0, 1).float() / 255.0
    mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None]
    std = torch.tensor([0.229, 0.224, 0.225])[:, None, None]
    return ((img - mean) / std)[None].to(dtype)


def _bf16_density() -> torch.Tensor:
    _seeded()
    model = _TinyCSRNet().to(bf16)
    return model(_normalised_batch(bf16))


# --- integer, bool, index, mask and target defects -----------------------------------------------------------------


def _mcnn_grayscale_uint8_image() -> None:
    _seeded()
    column_large = nn.Sequential(nn.Conv2d(1, 16, 9, padding=4), nn.ReLU(), nn.MaxPool2d(2))
    img = _crowd_image(gray=True)  # cv2.imread(path, 0), as the MCNN repo reads ShanghaiTech
    x = torch.from_numpy(img)[None, None]
    column_large(x)


def _annpoints_f64_index_dot_map() -> None:
    pts = torch.from_numpy(_ann_points())
    xs = pts[:, 0].clamp(max=_W - 1)
    ys = pts[:, 1].clamp(max=_H - 1)
    dot_map = torch.zeros(_H, _W)
    dot_map[ys, xs] = 1.0


def _dot_map_int64_index_put_float_ones() -> None:
    pts = _pixel_points()
    dot_map = torch.zeros(_H, _W, dtype=torch.long)  # "counts are integers"
    dot_map.index_put_((pts[:, 1], pts[:, 0]), torch.ones(len(pts)), accumulate=True)


def _roi_bool_nearest_resize() -> None:
    roi = torch.zeros(1, 1, _H, _W, dtype=torch.bool)  # WorldExpo'10 ROI polygon rasterised to bool
    roi[..., 8:, 10:80] = True
    roi_small = F.interpolate(roi, size=(_H // _STRIDE, _W // _STRIDE), mode="nearest")
    _bf16_density() * roi_small


def _fillpoly_roi_uint8_masked_fill() -> None:
    roi = np.zeros((_H // _STRIDE, _W // _STRIDE), dtype=np.uint8)  # cv2.fillPoly(roi, [poly], 1)
    roi[1:, 2:10] = 1
    outside = 1 - torch.from_numpy(roi)
    density = _bf16_density()[0, 0]
    density.masked_fill(outside, 0.0)


def _background_region_bool_subtract() -> None:
    roi = torch.zeros(_H, _W, dtype=torch.bool)
    roi[4:, 4:90] = True
    heads = torch.zeros(_H, _W, dtype=torch.bool)
    pts = _pixel_points()
    heads[pts[:, 1], pts[:, 0]] = True
    heads = F.max_pool2d(heads[None].float(), 5, stride=1, padding=2)[0] > 0
    background = roi - heads  # background pixels for the background-suppression loss
    background.sum()


def _sdcnet_count_bins_floor_cross_entropy() -> None:
    _seeded()
    gt = torch.from_numpy(_gt_density()).float()[None, None]
    local_counts = F.avg_pool2d(gt, _STRIDE) * _STRIDE**2
    n_bins, step = 8, 0.25
    bins = torch.floor(local_counts[:, 0] / step).clamp(max=n_bins - 1)  # count interval classes
    logits = torch.randn(1, n_bins, _H // _STRIDE, _W // _STRIDE, requires_grad=True)
    F.cross_entropy(logits, bins)


def _head_segmentation_bool_bce_target() -> None:
    _seeded()
    gt = torch.from_numpy(_gt_density()).float()[None, None]
    seg_target = gt > 1e-3  # head / background segmentation from the density support
    seg_logits = torch.randn(1, 1, _H, _W, requires_grad=True)
    F.binary_cross_entropy(torch.sigmoid(seg_logits), seg_target)


def _rmse_rounded_int_counts_mean() -> None:
    pred_counts = torch.tensor([38.6, 121.2, 7.9]).round().long()  # counts reported as whole people
    gt_counts = torch.tensor([40, 117, 9])  # len(points) per image
    mse = ((pred_counts - gt_counts) ** 2).mean()
    torch.sqrt(mse)


def _mae_running_sum_int_tensor() -> None:
    abs_err_sum = torch.tensor(0)
    for pred, gt in [(torch.tensor(38.6), 40), (torch.tensor(121.2), 117)]:
        abs_err_sum += (pred - gt).abs()


# --- missing kernels -----------------------------------------------------------------------------------------------


def _head_point_jitter_randn_like_int64() -> None:
    _seeded()
    pts = _pixel_points()
    jittered = pts + torch.randn_like(pts) * 2.0  # annotation-noise augmentation
    jittered.clamp(min=0)


def _patch_eval_unfold_uint8_image() -> None:
    img = torch.from_numpy(_crowd_image()).permute(2, 0, 1)[None]
    patches = F.unfold(img, kernel_size=32, stride=32)  # patch-wise test on a large image
    patches.view(1, 3, 32, 32, -1)


def _perspective_fit_lstsq_bf16() -> None:
    _seeded()
    rows = torch.tensor([10.0, 22.0, 35.0, 47.0, 58.0], dtype=bf16)
    head_heights = 0.3 * rows + 2.0 + torch.randn(5, dtype=bf16)  # from the bf16 scale branch
    design = torch.stack([rows, torch.ones_like(rows)], dim=1)
    torch.linalg.lstsq(design, head_heights[:, None])


def _gt_density_antialias_downsample_f16() -> None:
    gt = torch.from_numpy(_gt_density()).half()[None, None]  # cached in fp16 to halve the disk use
    small = F.interpolate(gt, size=(_H // _STRIDE, _W // _STRIDE), mode="bilinear", antialias=True)
    small * _STRIDE**2


# --- two floating dtypes meeting -----------------------------------------------------------------------------------


def _csrnet_frontend_bf16_backend_fp32() -> None:
    _seeded()
    model = _TinyCSRNet()
    model.frontend.to(bf16)  # frozen pretrained VGG frontend kept in bf16 to save memory
    model(_normalised_batch(bf16))


def _mcnn_fuse_bias_plain_attribute() -> None:
    class MCNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.columns = nn.ModuleList(
                nn.Sequential(nn.Conv2d(3, 4, k, padding=k // 2), nn.ReLU(), nn.MaxPool2d(4)) for k in (9, 7, 5))
            self.fuse_weight = nn.Parameter(torch.randn(1, 12, 1, 1) * 0.1)
            self.fuse_bias = torch.zeros(1)  # plain attribute: .to() does not touch it

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            features = torch.cat([column(x) for column in self.columns], dim=1)
            return F.conv2d(features, self.fuse_weight, self.fuse_bias)

    _seeded()
    MCNN().to(bf16)(_normalised_batch(bf16))


def _sum_preserving_conv_transpose_fp32_kernel() -> None:
    density = _bf16_density()
    kernel = torch.ones(1, 1, _STRIDE, _STRIDE) / _STRIDE**2  # spreads each cell's mass evenly
    full = F.conv_transpose2d(density, kernel, stride=_STRIDE)
    full.sum()


def _gt_density_f64_sum_pool_conv() -> None:
    gt = torch.from_numpy(_gt_density())[None, None]  # float64 from scipy
    sum_kernel = torch.ones(1, 1, _STRIDE, _STRIDE)
    F.conv2d(gt, sum_kernel, stride=_STRIDE)  # sum pooling keeps the count


def _dmcount_dual_potential_f64_dot() -> None:
    _seeded()
    model = _TinyCSRNet()
    with torch.autocast("cpu", dtype=bf16):
        density = model(_normalised_batch())
    normed = density.view(-1) / (density.sum() + 1e-8)
    beta = np.random.default_rng(2).standard_normal(normed.numel())  # the OT solver's dual potential (float64)
    ot_obj = torch.dot(normed, torch.from_numpy(beta))
    ot_obj.item()


def _scale_attention_einsum_fp32_weights() -> None:
    _seeded()
    frontend = _TinyCSRNet().frontend.to(bf16)
    branches = nn.ModuleList(
        nn.Sequential(nn.Conv2d(16, 8, 3, padding=d, dilation=d), nn.ReLU(), nn.Conv2d(8, 1, 1)) for d in (1, 2, 3)
    ).to(bf16)
    features = frontend(_normalised_batch(bf16))
    per_scale = torch.cat([branch(features) for branch in branches], dim=1)  # one density map per receptive field
    scale_head = nn.Linear(16, 3)  # scale-selection head kept in fp32 "for stability"
    weights = scale_head(features.float().mean(dim=(2, 3))).softmax(-1)
    torch.einsum("bshw,bs->bhw", per_scale, weights)


def _bayesian_loss_posterior_bmm() -> None:
    _seeded()
    model = _TinyCSRNet()
    with torch.autocast("cpu", dtype=bf16):
        density = model(_normalised_batch())
    h, w = density.shape[-2:]
    ys, xs = torch.meshgrid(torch.arange(h) * _STRIDE + _STRIDE / 2, torch.arange(w) * _STRIDE + _STRIDE / 2,
                            indexing="ij")
    grid = torch.stack([xs.reshape(-1), ys.reshape(-1)], dim=1)
    pts = torch.from_numpy(_ann_points()).float()
    dist = ((pts[:, None, :] - grid[None]) ** 2).sum(-1)
    prob = (-dist / (2 * 8.0**2)).softmax(dim=0)  # posterior of each head given each pixel
    expected = torch.bmm(prob[None], density.view(1, -1, 1))  # computed outside autocast
    (1.0 - expected).abs().sum()


# --- overflow and non-finite values --------------------------------------------------------------------------------


def _dmcount_padded_cost_f16_fill() -> None:
    _seeded()
    n_max, n_real = 48, 40
    pts = torch.zeros(n_max, 2, dtype=f16)
    pts[:n_real] = torch.from_numpy(_ann_points()).half()
    pad = torch.arange(n_max) >= n_real
    h, w = _H // _STRIDE, _W // _STRIDE
    ys, xs = torch.meshgrid(torch.arange(h, dtype=f16), torch.arange(w, dtype=f16), indexing="ij")
    grid = torch.stack([xs.reshape(-1), ys.reshape(-1)], dim=1) * _STRIDE
    cost = ((grid[:, None] - pts[None]) ** 2).sum(-1)
    cost.masked_fill(pad[None], 1e6)  # padded points made unreachable


def _negative_image_crop_sampling_nan() -> None:
    density = torch.zeros(_H, _W)  # an NWPU-Crowd negative sample: no heads
    weights = (density / density.sum()).view(-1)  # crop centres drawn where people are
    torch.multinomial(weights, 4)


def _log_para_fp16_count_overflow_clip() -> None:
    _seeded()
    head = nn.Conv2d(8, 1, 1).half()
    nn.init.constant_(head.bias, 0.05)
    features = torch.rand(1, 8, _H, _W, dtype=f16)
    density = F.relu(head(features)) * _LOG_PARA
    gt_count = torch.tensor(120.0 * _LOG_PARA)
    loss = (density.sum() - gt_count) ** 2
    loss.backward()
    torch.nn.utils.clip_grad_norm_(head.parameters(), 10.0, error_if_nonfinite=True)


# --- numpy, indexed writes, lerp, losses, norms, gradients ---------------------------------------------------------


def _online_gaussian_filter_bf16_dot_map() -> None:
    pts = _pixel_points()
    dot_map = torch.zeros(_H, _W, dtype=bf16)  # made in the training dtype
    dot_map[pts[:, 1], pts[:, 0]] = 1.0
    ndimage.gaussian_filter(dot_map, 4.0)


def _zone_counts_scatter_add_bf16_density() -> None:
    _seeded()
    model = _TinyCSRNet()
    with torch.autocast("cpu", dtype=bf16):
        density = model(_normalised_batch())
    h, w = density.shape[-2:]
    zone_map = (torch.arange(w) * 3 // w).expand(h, w)  # left / centre / right gate zones
    zone_counts = torch.zeros(3)
    zone_counts.scatter_add_(0, zone_map.reshape(-1), density.reshape(-1))


def _video_density_temporal_lerp() -> None:
    _seeded()
    model = _TinyCSRNet()
    smoothed = None
    for _ in range(2):
        with torch.autocast("cpu", dtype=bf16):
            frame_density = model(_normalised_batch())
        if smoothed is None:
            smoothed = frame_density.float()
        else:
            smoothed.lerp_(frame_density, 0.3)


def _sfanet_attention_bce_bf16_fp32_target() -> None:
    _seeded()
    attention_head = nn.Sequential(nn.Conv2d(16, 1, 1), nn.Sigmoid()).to(bf16)
    features = torch.randn(1, 16, _H // 2, _W // 2, dtype=bf16)
    attention = attention_head(features)
    gt = torch.from_numpy(_gt_density()).float()[None, None]
    att_target = (F.avg_pool2d(gt, 2) > 1e-3).float()
    F.binary_cross_entropy(attention, att_target)


def _decoder_groupnorm_bf16_fp32_frontend() -> None:
    _seeded()
    frontend = _TinyCSRNet().frontend  # stays fp32
    decoder = nn.Sequential(nn.GroupNorm(4, 16), nn.ReLU(), nn.Conv2d(16, 1, 1)).to(bf16)  # only the decoder in bf16
    decoder(frontend(_normalised_batch()))


def _roi_weighted_grad_hook_fp32() -> None:
    _seeded()
    model = _TinyCSRNet().to(bf16)
    density = model(_normalised_batch(bf16))
    roi_weight = torch.ones_like(density, dtype=torch.float32)
    roi_weight[..., :2, :] = 0.0  # no gradient from the sky region
    density.register_hook(lambda grad: grad * roi_weight)
    gt = torch.from_numpy(_gt_density()).float()[None, None]
    target = F.avg_pool2d(gt, _STRIDE) * _STRIDE**2
    F.mse_loss(density.float(), target, reduction="sum").backward()


CASES: dict[str, LiveCase] = {
    # MCNN reads ShanghaiTech as grayscale with cv2.imread(path, 0): the uint8 image goes straight into a column conv
    "mcnn-grayscale-uint8-image": case(_mcnn_grayscale_uint8_image, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # ShanghaiTech annPoints from loadmat (float64) used directly to index the dot map
    "annpoints-f64-index-dot-map": case(_annpoints_f64_index_dot_map, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # GT dot map kept int64 ("counts are integers"), float ones accumulated into it with index_put_
    "dot-map-int64-index-put-float-ones": case(_dot_map_int64_index_put_float_ones, "indexed_write_dtype", "int64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # WorldExpo'10 bool ROI mask resized to the 1/8 density map with nearest interpolate
    "roi-bool-nearest-resize": case(_roi_bool_nearest_resize, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # cv2.fillPoly ROI (uint8) inverted with 1 - roi and given to masked_fill to zero density outside the ROI
    "fillpoly-roi-uint8-masked-fill": case(_fillpoly_roi_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # background-suppression region as the bool ROI minus the bool dilated head region
    "background-region-bool-subtract": case(_background_region_bool_subtract, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # S-DCNet-style count-interval classification: bin labels from floor() left float for cross_entropy
    "sdcnet-count-bins-floor-cross-entropy": case(_sdcnet_count_bins_floor_cross_entropy, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # segmentation-aided counting: the head mask from density > threshold (bool) as the BCE target
    "head-segmentation-bool-bce-target": case(_head_segmentation_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # RMSE over counts rounded to whole people (.round().long()): mean of the int64 squared errors
    "rmse-rounded-int-counts-mean": case(_rmse_rounded_int_counts_mean, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # MAE accumulated in place into a running sum started as torch.tensor(0) (int64)
    "mae-running-sum-int-tensor": case(_mae_running_sum_int_tensor, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # annotation-noise augmentation: head points jittered with randn_like of the int64 pixel points
    "head-point-jitter-randn-like-int64": case(_head_point_jitter_randn_like_int64, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # patch-wise evaluation: the uint8 crowd image cut into patches with F.unfold before any float conversion
    "patch-eval-unfold-uint8-image": case(_patch_eval_unfold_uint8_image, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (c248a6f) castwise gave integer_operand [uint8] (high confidence). F.unfold (im2col) only "
             "rearranges the uint8 pixels into patches, so the cause is an op lacking an integer kernel for moving"
             " data (no_kernel: convert the image to float before unfolding, or unfold after the float conversion)"
             "; the reading took im2col's not-implemented for 'Byte' as integer data fed to float math. Expectation "
             "corrected after grading from no_kernel to integer_operand: the corpus files F.unfold (im2col) of "
             "integer data as integer_operand (live_held_out_2 unfold-uint8-patches, live_held_out_77); the frozen "
             "grade is kept.")),
    # perspective map: head height fitted linear in the image row with lstsq on bf16 scale-branch outputs
    "perspective-fit-lstsq-bf16": case(_perspective_fit_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # fp16-cached GT density downsampled to 1/8 with antialiased bilinear interpolate (then times 64)
    "gt-density-antialias-downsample-f16": case(_gt_density_antialias_downsample_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # CSRNet with only the pretrained VGG frontend cast to bf16: the fp32 dilated backend gets bf16 features
    "csrnet-frontend-bf16-backend-fp32": case(_csrnet_frontend_bf16_backend_fp32, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # MCNN's fuse layer written with F.conv2d and its bias a plain tensor attribute, missed by .to(bf16)
    "mcnn-fuse-bias-plain-attribute": case(_mcnn_fuse_bias_plain_attribute, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # sum-preserving x8 upsampling of the bf16 density by conv_transpose2d with a ones/64 kernel made in fp32
    "sum-preserving-conv-transpose-fp32-kernel": case(_sum_preserving_conv_transpose_fp32_kernel,
                                                      "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # scipy's float64 GT density sum-pooled to 1/8 by conv2d with an fp32 ones kernel
    "gt-density-f64-sum-pool-conv": case(_gt_density_f64_sum_pool_conv, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DM-Count OT term: the autocast bf16 normalised density dotted with the solver's float64 dual potential
    "dmcount-dual-potential-f64-dot": case(_dmcount_dual_potential_f64_dot, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # multi-scale fusion: bf16 per-scale density maps einsum'd with fp32 softmax scale weights
    "scale-attention-einsum-fp32-weights": case(_scale_attention_einsum_fp32_weights, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Bayesian loss outside autocast: fp32 posteriors bmm'd with the bf16 density
    "bayesian-loss-posterior-bmm": case(_bayesian_loss_posterior_bmm, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DM-Count with point sets padded to a batch maximum: the fp16 cost of padded points filled with 1e6
    "dmcount-padded-cost-f16-fill": case(_dmcount_padded_cost_f16_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # density-weighted crop sampling on an NWPU negative image: 0/0 weights given to multinomial
    "negative-image-crop-sampling-nan": case(_negative_image_crop_sampling_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # LOG_PARA=1000 density from a .half() head: the fp16 count sum overflows, clip_grad_norm_ refuses
    "log-para-fp16-count-overflow-clip": case(_log_para_fp16_count_overflow_clip, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # online GT generation: a dot map made in the bf16 training dtype handed to scipy's gaussian_filter
    "online-gaussian-filter-bf16-dot-map": case(_online_gaussian_filter_bf16_dot_map, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-zone counts: the autocast bf16 density scatter_add_'ed into an fp32 zone buffer
    "zone-counts-scatter-add-bf16-density": case(_zone_counts_scatter_add_bf16_density, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # video counting: the fp32 smoothed density lerp_'ed toward each autocast bf16 frame density
    "video-density-temporal-lerp": case(_video_density_temporal_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SFANet attention map from a bf16 head trained by BCE against the fp32 thresholded density
    "sfanet-attention-bce-bf16-fp32-target": case(_sfanet_attention_bce_bf16_fp32_target, "op_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # only the decoder cast to bf16: its leading GroupNorm gets the fp32 frontend features
    "decoder-groupnorm-bf16-fp32-frontend": case(_decoder_groupnorm_bf16_fp32_frontend, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ROI-weighted gradients: a hook on the bf16 density multiplies by an fp32 weight map and returns fp32
    "roi-weighted-grad-hook-fp32": case(_roi_weighted_grad_hook_fp32, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
