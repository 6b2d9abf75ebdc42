"""Held-out live set 88: optical flow and video frame interpolation written by hand in low precision (RAFT-style
correlation volumes and iterative updates, GMFlow-style global matching, flow fields warped with grid_sample and
integer pixel coordinates, forward splatting with scatter and index_add, occlusion masks, uint8 frames, KITTI/Sintel
ground truth, end-point-error metrics, multi-scale pyramids, photometric and smoothness losses under bf16/fp16).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen
at 3957142."""

from __future__ import annotations

import io
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "3957142"

bf16, f16 = torch.bfloat16, torch.float16
_H, _W = 16, 24


def _seeded() -> None:
    torch.manual_seed(0)


def _pixel_grid(dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    ys, xs = torch.meshgrid(torch.arange(_H, dtype=dtype), torch.arange(_W, dtype=dtype), indexing="ij")
    return xs, ys


def _kitti_flow_png() -> np.ndarray:
    """A KITTI flow_occ png as cv2.imread(path, IMREAD_ANYDEPTH | IMREAD_COLOR)[..., ::-1] gives it: uint16, u and v
    stored as flow * 64 + 2**15, the third channel the 0/1 valid flag."""
    rng = np.random.default_rng(0)
    png = np.zeros((_H, _W, 3), dtype=np.uint16)
    png[..., :2] = rng.integers(2**15 - 640, 2**15 + 640, size=(_H, _W, 2))
    png[..., 2] = rng.random((_H, _W)) > 0.6
    return png


def _uint8_frames() -> torch.Tensor:
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.integers(0, 256, size=(2, _H, _W, 3), dtype=np.uint8))  # decoded with PyAV


# --- coordinates, warping and splatting


def _coords_grid_int64_in_place_update() -> None:
    _seeded()
    xs, ys = _pixel_grid(torch.long)
    coords0 = torch.stack([xs, ys])[None]  # RAFT's coords_grid written without its .float()
    coords1 = coords0.clone()
    delta_flow = torch.randn(1, 2, _H, _W) * 0.5  # the update block's residual
    coords1 += delta_flow


def _nearest_backward_warp_gather_float_index() -> None:
    _seeded()
    frame1 = torch.rand(1, 3, _H, _W)
    flow = torch.randn(1, 2, _H, _W) * 2
    xs, ys = _pixel_grid()
    x = (xs + flow[:, 0]).round().clamp(0, _W - 1)
    y = (ys + flow[:, 1]).round().clamp(0, _H - 1)
    index = (y * _W + x).flatten(1)[:, None].expand(-1, 3, -1)  # rounded to whole pixels, still float
    frame1.flatten(2).gather(2, index)


def _forward_splat_index_add_float_target() -> None:
    _seeded()
    frame0 = torch.rand(3, _H * _W)
    flow = torch.randn(2, _H, _W) * 2
    xs, ys = _pixel_grid()
    tx = (xs + flow[0]).floor().clamp(0, _W - 1)
    ty = (ys + flow[1]).floor().clamp(0, _H - 1)
    target = (ty * _W + tx).flatten()  # the target pixel of each source pixel, never made long
    canvas = torch.zeros(3, _H * _W)
    canvas.index_add_(1, target, frame0)


def _backward_warp_base_grid_in_flow_dtype() -> None:
    _seeded()
    frame1 = torch.rand(1, 3, _H, _W)  # frames loaded fp32; only the flow network was cast to bf16
    flow = torch.randn(1, 2, _H, _W, dtype=bf16)
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, _H, dtype=flow.dtype), torch.linspace(-1, 1, _W, dtype=flow.dtype),
                            indexing="ij")
    scale = torch.tensor([2 / (_W - 1), 2 / (_H - 1)], dtype=flow.dtype)
    grid = torch.stack([xs, ys], -1)[None] + flow.permute(0, 2, 3, 1) * scale
    F.grid_sample(frame1, grid, mode="bilinear", padding_mode="border", align_corners=True)


def _max_splatting_z_buffer_scatter_reduce() -> None:
    _seeded()
    metric = torch.randn(_H * _W).to(bf16) * -20  # importance metric from the bf16 network (brightness constancy)
    target = torch.randint(0, _H * _W, (_H * _W,))
    z_buffer = torch.full((_H * _W,), float("-inf"))
    z_buffer.scatter_reduce_(0, target, metric, reduce="amax")


def _homography_camera_flow_bmm() -> None:
    _seeded()
    xs, ys = _pixel_grid()
    pixels = torch.stack([xs, ys, torch.ones_like(xs)], -1).view(1, -1, 3).to(bf16)  # homogeneous grid, model dtype
    homography = torch.eye(3)[None] + 0.01 * torch.randn(1, 3, 3)  # fitted with DLT on fp32 matches
    warped = torch.bmm(pixels, homography.transpose(1, 2))
    warped[..., :2] / warped[..., 2:]


# --- correlation, matching and the update block


def _raft_update_block_bf16_fp32_correlation() -> None:
    _seeded()
    fmap1, fmap2 = torch.randn(2, 1, 32, 4, 6).unbind(0)  # encoder features upcast with .float() for the volume
    corr = torch.einsum("bchw,bcuv->bhwuv", fmap1, fmap2) / math.sqrt(32)
    lookup = corr.flatten(3).permute(0, 3, 1, 2)  # every displacement as a channel: (1, 24, 4, 6), fp32
    motion_encoder = nn.Sequential(nn.Conv2d(24, 64, 1, bias=False), nn.GroupNorm(8, 64), nn.ReLU()).to(bf16)
    motion_encoder(lookup)


def _convex_upsampling_einsum_bf16_mask() -> None:
    _seeded()
    flow = torch.randn(1, 2, 4, 6)  # coords1 - coords0, coordinates kept fp32
    with torch.autocast("cpu", dtype=bf16):
        mask = nn.Conv2d(64, 64 * 9, 1)(torch.randn(1, 64, 4, 6))
    mask = mask.view(1, 9, 8, 8, 4, 6).softmax(dim=1)
    up_flow = F.unfold(8 * flow, [3, 3], padding=1).view(1, 2, 9, 1, 1, 4, 6).expand(-1, -1, -1, 8, 8, -1, -1)
    torch.einsum("bkxyhw,bckxyhw->bcxyhw", mask, up_flow)


def _gmflow_global_matching_fp32_grid() -> None:
    _seeded()
    h, w, c = 4, 6, 32
    with torch.autocast("cpu", dtype=bf16):
        proj = nn.Linear(c, c)
        feature0 = proj(torch.randn(1, h * w, c))
        feature1 = proj(torch.randn(1, h * w, c))
        correlation = feature0 @ feature1.transpose(1, 2) / math.sqrt(c)
    prob = correlation.softmax(dim=-1)
    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    init_grid = torch.stack([xs, ys], -1).float().view(1, h * w, 2)
    torch.matmul(prob, init_grid)  # expected correspondence per pixel


def _gmflow_flow_propagation_sdpa_fp32_value() -> None:
    _seeded()
    feature0 = torch.randn(1, 24, 32, dtype=bf16)  # bf16 transformer output
    flow = torch.randn(1, 24, 2)  # correspondence - grid, the flow kept fp32
    q_proj, k_proj = nn.Linear(32, 32).to(bf16), nn.Linear(32, 32).to(bf16)
    F.scaled_dot_product_attention(q_proj(feature0)[:, None], k_proj(feature0)[:, None], flow[:, None])


def _sine_position_encoding_fp32_bf16_layer_norm() -> None:
    _seeded()
    c, h, w = 32, 4, 6
    features = torch.randn(1, c, h, w, dtype=bf16)  # bf16 CNN backbone
    ys, xs = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij")
    dim_t = 10000 ** (2 * (torch.arange(c // 4) // 2) / (c // 4))
    pos_x, pos_y = xs[..., None] / dim_t, ys[..., None] / dim_t
    pos = torch.cat([pos_y.sin(), pos_y.cos(), pos_x.sin(), pos_x.cos()], -1).permute(2, 0, 1)[None]
    tokens = (features + pos).flatten(2).transpose(1, 2)
    nn.LayerNorm(c).to(bf16)(tokens)


def _cross_frame_window_attention_fp32_mask() -> None:
    _seeded()
    tokens = torch.randn(1, 16, 32, dtype=bf16)  # a 4x4 window of frame-0 tokens attending to frame 1
    padded = torch.zeros(16, dtype=torch.bool)
    padded[-4:] = True  # the bottom row is InputPadder's replicate padding
    bias = torch.zeros(16, 16).masked_fill(padded[None, :], float("-inf"))
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    attention(tokens, tokens, tokens, attn_mask=bias)


# --- classical flow and refinement


def _lucas_kanade_solve_bf16() -> None:
    _seeded()
    frames = torch.rand(2, 1, _H, _W, dtype=bf16)
    ix = F.pad(frames[0, :, :, 2:] - frames[0, :, :, :-2], (1, 1)) / 2
    iy = F.pad(frames[0, :, 2:] - frames[0, :, :-2], (0, 0, 1, 1)) / 2
    it = frames[1] - frames[0]

    def window(x: torch.Tensor) -> torch.Tensor:
        return F.avg_pool2d(x[None], 5, stride=1, padding=2)[0].flatten()

    a = torch.stack([window(ix * ix), window(ix * iy), window(ix * iy), window(iy * iy)], -1).view(-1, 2, 2)
    b = -torch.stack([window(ix * it), window(iy * it)], -1)
    torch.linalg.solve(a + 1e-3 * torch.eye(2, dtype=bf16), b)


def _dis_flow_numpy_f64_into_refinement_conv() -> None:
    _seeded()
    dis_flow = np.random.default_rng(0).standard_normal((_H, _W, 2)).astype(np.float32)  # cv2 DIS output, float32
    size = np.array([_W, _H])
    normalised = dis_flow / size * 2  # float32 / int64 array: numpy makes float64
    refine = nn.Conv2d(2, 32, 3, padding=1, bias=False)  # followed by BatchNorm2d
    refine(torch.from_numpy(normalised).permute(2, 0, 1)[None])


def _variational_refinement_fp32_gradient() -> None:
    _seeded()
    frames = torch.rand(2, _H, _W)
    flow = nn.Parameter(torch.zeros(2, _H, _W, dtype=bf16))  # initialised from the bf16 network's prediction
    ix = torch.gradient(frames[0], dim=1)[0]
    iy = torch.gradient(frames[0], dim=0)[0]
    residual = ix * flow[0].detach() + iy * flow[1].detach() + (frames[1] - frames[0])
    flow.grad = torch.stack([ix * residual, iy * residual])  # analytic data-term gradient, fp32
    torch.optim.SGD([flow], lr=0.1).step()


# --- pyramids, losses and metrics


def _edge_aware_smoothness_sobel_fp32_kernel() -> None:
    _seeded()
    gray = torch.rand(1, 1, _H, _W, dtype=bf16)  # frame in the bf16 model's dtype
    sobel_x = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
    kernels = torch.stack([sobel_x, sobel_x.T])[:, None]
    image_grad = F.conv2d(gray, kernels, padding=1)
    torch.exp(-10 * image_grad.abs())


def _epe_sqrt_zero_flow_anomaly() -> None:
    _seeded()
    flow_head = nn.Conv2d(8, 2, 3, padding=1, bias=False)
    nn.init.zeros_(flow_head.weight)  # zero-initialised last layer, so the first prediction is zero flow
    flow_gt = torch.zeros(1, 2, 8, 12)  # a static shot: the ground truth is zero everywhere
    with torch.autograd.detect_anomaly(), torch.autocast("cpu", dtype=bf16):
        flow_pred = flow_head(torch.randn(1, 8, 8, 12))
        epe = torch.sqrt(((flow_pred - flow_gt) ** 2).sum(dim=1))
        epe.mean().backward()


def _raft_half_grad_scaler_unscale() -> None:
    _seeded()
    flow_head = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 2, 3, padding=1)).half()
    optimizer = torch.optim.AdamW(flow_head.parameters(), lr=4e-4)
    scaler = torch.amp.GradScaler("cpu")
    flow_gt = torch.randn(1, 2, 8, 12)
    loss = (flow_head(torch.randn(1, 8, 8, 12, dtype=f16)).float() - flow_gt).abs().mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)  # before clip_grad_norm_, as RAFT's train.py does


def _flow_gt_int16_fixed_point_bilinear_pyramid() -> None:
    _seeded()
    flow_fixed = (torch.randn(1, 2, _H, _W) * 10 * 64).round().to(torch.int16)  # cache keeps flow * 64 in int16
    F.interpolate(flow_fixed, scale_factor=0.5, mode="bilinear", align_corners=False) * 0.5


def _sparse_valid_mask_max_pool_pyramid() -> None:
    valid = torch.from_numpy(_kitti_flow_png()[..., 2] > 0)[None, None]
    F.max_pool2d(valid, 2)  # a coarse pixel is valid if any fine pixel is


def _kitti_valid_uint16_masked_select() -> None:
    _seeded()
    png = _kitti_flow_png()
    flow_gt = (torch.from_numpy(png[..., :2].astype(np.float32)) - 2**15) / 64.0
    valid = torch.from_numpy(png[..., 2])  # the third channel as read, uint16
    epe = (torch.randn(_H, _W, 2) - flow_gt).norm(dim=-1)
    epe.masked_select(valid).mean()


def _kitti_flow_png_uint16_offset() -> None:
    png = torch.from_numpy(_kitti_flow_png())
    (png[..., :2] - 2**15) / 64.0  # the .astype(np.float32) of the reference reader left out


def _kitti_encode_int16_offset_buffer() -> None:
    _seeded()
    flow = torch.randn(_H, _W, 2) * 20
    offset = torch.full((_H, _W, 2), 2**15, dtype=torch.int16)  # png buffer made int16 instead of uint16
    offset + (flow * 64).round().to(torch.int16)


def _kitti_fl_all_mean_of_bool() -> None:
    _seeded()
    flow_gt = torch.randn(2, _H, _W) * 10
    flow_pred = flow_gt + torch.randn(2, _H, _W) * 3
    epe = (flow_pred - flow_gt).norm(dim=0)
    outliers = (epe > 3.0) & (epe / flow_gt.norm(dim=0) > 0.05)
    100 * outliers.mean()


def _sintel_occlusion_png_uint8_masked_fill() -> None:
    _seeded()
    occlusion = np.asarray((np.random.default_rng(0).random((_H, _W)) > 0.9) * 255, dtype=np.uint8)  # occlusions/*.png
    photometric = torch.rand(1, 1, _H, _W)
    photometric.masked_fill(torch.from_numpy(occlusion)[None, None], 0.0).mean()


def _occlusion_head_bce_uint8_target() -> None:
    _seeded()
    occ_head = nn.Conv2d(32, 1, 3, padding=1, bias=False)
    occlusion = np.asarray(np.random.default_rng(0).random((_H, _W)) > 0.9, dtype=np.uint8)  # occ png // 255
    logits = occ_head(torch.randn(1, 32, _H, _W))
    F.binary_cross_entropy_with_logits(logits, torch.from_numpy(occlusion)[None, None])


def _middlebury_color_wheel_float_index() -> None:
    _seeded()
    ry, yg, gc, cb, bm, mr = 15, 6, 4, 11, 13, 6
    ncols = ry + yg + gc + cb + bm + mr
    colorwheel = torch.zeros(ncols, 3)
    colorwheel[:ry, 0] = 255
    colorwheel[:ry, 1] = torch.floor(255 * torch.arange(ry) / ry)
    flow = torch.randn(2, _H, _W) * 5
    u, v = flow / flow.norm(dim=0).max()
    fk = (torch.atan2(-v, -u) / math.pi + 1) / 2 * (ncols - 1)
    k0 = torch.floor(fk)  # floor, no .long()
    colorwheel[k0] / 255.0


def _frame_average_baseline_lerp_uint8() -> None:
    frames = _uint8_frames()
    torch.lerp(frames[0], frames[1], 0.5)  # the "average the two frames" interpolation baseline


def _unknown_flow_sentinel_fp16() -> None:
    _seeded()
    flow = torch.randn(2, _H, _W, dtype=f16) * 5  # fp16 predictions
    outside = torch.zeros(_H, _W, dtype=torch.bool)
    outside[:, -2:] = True  # columns InputPadder added
    unknown_flow = 1e10  # Middlebury flow_io: values above UNKNOWN_FLOW_THRESH (1e9) are unknown
    flow.masked_fill(outside[None], unknown_flow)


def _flo_writer_bf16_numpy() -> None:
    _seeded()
    flow = torch.randn(1, 2, _H, _W, dtype=bf16)  # the bf16 model's prediction
    f = io.BytesIO()
    f.write(np.array([202021.25], np.float32).tobytes())  # 'PIEH'
    f.write(np.array([_W, _H], np.int32).tobytes())
    f.write(flow[0].permute(1, 2, 0).numpy().astype(np.float32).tobytes())


CASES: dict[str, LiveCase] = {
    # RAFT's coordinate grid built from arange without .float() (int64), updated in place by the fp32 flow residual
    "coords-grid-int64-in-place-flow-update": case(_coords_grid_int64_in_place_update, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # nearest-neighbour backward warp: flat pixel index rounded from float coordinates, used by gather as is
    "nearest-warp-gather-rounded-float-index": case(_nearest_backward_warp_gather_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # forward splatting (summation): floored float target indices given to index_add_
    "forward-splat-index-add-floored-float-target": case(_forward_splat_index_add_float_target, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # backward warp whose base grid is made in the flow's dtype (bf16) sampling the fp32 frame with grid_sample
    "warp-bf16-base-grid-fp32-frame": case(_backward_warp_base_grid_in_flow_dtype, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # max splatting: bf16 importance metric scatter_reduce_'d (amax) into an fp32 z-buffer
    "max-splat-z-buffer-scatter-reduce-bf16": case(_max_splatting_z_buffer_scatter_reduce, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # camera-motion flow: bf16 homogeneous pixel grid times an fp32 DLT homography with torch.bmm
    "homography-flow-bmm-fp32-h": case(_homography_camera_flow_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RAFT update block cast to bf16, fed the fp32 correlation lookup (the volume built from .float() features)
    "raft-update-block-bf16-fp32-corr-lookup": case(_raft_update_block_bf16_fp32_correlation, "conv_weight_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # RAFT convex upsampling by einsum: the bf16 softmaxed mask (autocast head) with the fp32 unfolded flow
    "convex-upsample-einsum-bf16-mask-fp32-flow": case(_convex_upsampling_einsum_bf16_mask, "matmul_dtype", "bf16",
                                                       "f32",
        grade="correct", grade_at_freeze="correct"),
    # GMFlow global matching: bf16 matching probabilities times the fp32 coordinate grid with torch.matmul
    "gmflow-global-matching-matmul-fp32-grid": case(_gmflow_global_matching_fp32_grid, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # GMFlow flow propagation: bf16 feature self-attention with the fp32 flow as SDPA's value
    "gmflow-propagation-sdpa-fp32-flow-value": case(_gmflow_flow_propagation_sdpa_fp32_value, "sdpa_dtype", "bf16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # matching transformer: fp32 sine position encoding added to bf16 features, then the bf16 LayerNorm
    "sine-position-encoding-fp32-bf16-layer-norm": case(_sine_position_encoding_fp32_bf16_layer_norm,
                                                        "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # VFI cross-frame window attention in bf16 with an fp32 additive mask over InputPadder's padded tokens
    "cross-frame-window-attention-fp32-mask": case(_cross_frame_window_attention_fp32_mask, "attn_mask_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # classical Lucas-Kanade on bf16 frames: the per-pixel 2x2 normal equations solved with linalg.solve
    "lucas-kanade-2x2-solve-bf16": case(_lucas_kanade_solve_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # cv2 DIS flow normalised by a numpy int size array (float64) into the fp32 refinement conv
    "dis-flow-numpy-f64-refinement-conv": case(_dis_flow_numpy_f64_into_refinement_conv, "conv_weight_dtype", "f64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # variational refinement: the analytic fp32 data-term gradient assigned to the bf16 flow parameter's .grad
    "variational-refinement-fp32-grad-bf16-flow": case(_variational_refinement_fp32_gradient, "loss_dtype", "f32",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # edge-aware smoothness: fp32 Sobel kernels convolved with the bf16 frame
    "edge-aware-smoothness-sobel-fp32-kernel": case(_edge_aware_smoothness_sobel_fp32_kernel, "conv_weight_dtype",
                                                    "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # EPE as sqrt of the squared difference where a zero-initialised head meets zero ground truth: NaN under anomaly
    "epe-sqrt-zero-flow-anomaly-nan": case(_epe_sqrt_zero_flow_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a flow head made .half() trained with GradScaler, unscale_ before gradient clipping
    "raft-half-grad-scaler-unscale": case(_raft_half_grad_scaler_unscale, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # flow ground truth cached as int16 fixed point (x64) downsampled with bilinear interpolate for the pyramid loss
    "flow-gt-int16-fixed-point-bilinear-pyramid": case(_flow_gt_int16_fixed_point_bilinear_pyramid,
                                                       "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # KITTI's sparse bool valid mask downsampled with max_pool2d for the multi-scale loss
    "sparse-valid-mask-max-pool-pyramid": case(_sparse_valid_mask_max_pool_pyramid, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # KITTI EPE over valid pixels with masked_select by the png's uint16 valid channel
    "kitti-valid-uint16-masked-select": case(_kitti_valid_uint16_masked_select, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # KITTI flow png decoded in torch on the uint16 values: subtracting the 2**15 offset
    "kitti-flow-png-uint16-offset-subtract": case(_kitti_flow_png_uint16_offset, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # KITTI flow encoding with the 2**15 offset put in an int16 buffer by torch.full
    "kitti-encode-offset-int16-full": case(_kitti_encode_int16_offset_buffer, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # KITTI Fl-all outlier rate as the mean of the bool outlier map
    "kitti-fl-all-mean-of-bool": case(_kitti_fl_all_mean_of_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Sintel occlusion png (uint8 0/255) used as masked_fill's mask to drop occluded photometric errors
    "sintel-occlusion-png-uint8-masked-fill": case(_sintel_occlusion_png_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # occlusion head trained with BCE-with-logits against the uint8 occlusion png
    "occlusion-head-bce-uint8-target": case(_occlusion_head_bce_uint8_target, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # Middlebury colour wheel in torch: the colours looked up with floor(fk) still float
    "middlebury-color-wheel-floor-float-index": case(_middlebury_color_wheel_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # frame-averaging interpolation baseline by lerp of the decoded uint8 frames
    "frame-average-baseline-lerp-uint8": case(_frame_average_baseline_lerp_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # padded columns of fp16 flow marked with Middlebury's UNKNOWN_FLOW 1e10 by masked_fill
    "unknown-flow-1e10-fp16-masked-fill": case(_unknown_flow_sentinel_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 prediction written to a .flo file through numpy
    "flo-writer-bf16-numpy": case(_flo_writer_bf16_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
