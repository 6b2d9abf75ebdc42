"""Held-out live set 104: neural radiance fields and differentiable rendering written by hand in low precision (rays
from float64 camera poses, pixel and ray indices, packed and error-map ray sampling, Fourier and hash-grid encodings
with integer hashing, alpha compositing and ray transformers in fp16/bf16, occupancy and density grids, depth, mask and
eikonal losses, uint8 images and video frames). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at fd82b52."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "fd82b52"

bf16, f16 = torch.bfloat16, torch.float16
_H, _W = 8, 10
_FOCAL = 12.0


def _seeded() -> None:
    torch.manual_seed(0)


def _blender_poses(n: int = 3) -> np.ndarray:
    """Camera-to-world matrices as a transforms.json loader returns them: np.array of nested lists, float64."""
    poses = []
    for i in range(n):
        angle = 2 * np.pi * i / n
        c, s = np.cos(angle), np.sin(angle)
        poses.append([[c, 0.0, s, 4.0 * s], [0.0, 1.0, 0.0, 0.5], [-s, 0.0, c, 4.0 * c], [0.0, 0.0, 0.0, 1.0]])
    return np.array(poses)


def _camera_directions(dtype: torch.dtype = torch.float32) -> torch.Tensor:
    j, i = torch.meshgrid(torch.arange(_H, dtype=torch.float32), torch.arange(_W, dtype=torch.float32),
                          indexing="ij")
    dirs = torch.stack([(i - _W * 0.5) / _FOCAL, -(j - _H * 0.5) / _FOCAL, -torch.ones_like(i)], -1)
    return dirs.to(dtype)



# --- cameras and rays


def _per_camera_f64_poses_bmm_bf16_dirs() -> None:
    poses = torch.from_numpy(_blender_poses())  # float64 straight from the json loader
    dirs = _camera_directions(bf16).reshape(1, -1, 3).expand(poses.shape[0], -1, -1)  # rays made in the model dtype
    rays_d = torch.bmm(dirs, poses[:, :3, :3].transpose(1, 2))
    rays_d / rays_d.norm(dim=-1, keepdim=True)


def _c2w_half_batch_inverse() -> None:
    batch = {"c2w": torch.from_numpy(_blender_poses()).float(), "rgb": torch.rand(3, _H, _W, 3)}
    batch = {key: value.half() for key, value in batch.items()}  # whole batch halved for the fp16 model
    w2c = torch.linalg.inv(batch["c2w"])  # world-to-camera for projecting the sparse depth points
    w2c[:, :3, 3]


def _spiral_path_look_at_cross_f64_up() -> None:
    poses = torch.from_numpy(_blender_poses()).float()
    centre = poses[:, :3, 3].mean(0)
    up = torch.from_numpy(np.array([0.0, 1.0, 0.0]))  # world up from the dataset's average pose, numpy float64
    frames = []
    for theta in torch.linspace(0, 2 * torch.pi, 4):
        eye = centre + torch.stack([torch.cos(theta), torch.tensor(0.2), torch.sin(theta)]) * 3.0
        forward = F.normalize(eye - centre, dim=0)
        right = F.normalize(torch.linalg.cross(up, forward), dim=0)
        frames.append(torch.stack([right, torch.linalg.cross(forward, right), forward], 1))
    torch.stack(frames)


def _ray_batch_pixel_index_true_division() -> None:
    _seeded()
    images = torch.rand(3, _H, _W, 3)
    ray_ids = torch.randperm(3 * _H * _W)[:64]
    img_ids = torch.div(ray_ids, _H * _W, rounding_mode="floor")
    pixel = ray_ids % (_H * _W)
    y, x = pixel / _W, pixel % _W  # the row ported from `pixel // W` as `/`
    images[img_ids, y, x]


def _llff_recenter_average_rotation_svd_bf16() -> None:
    poses = torch.from_numpy(_blender_poses(5)).to(bf16)  # poses loaded into the bf16 scene module's buffers
    rotation_sum = poses[:, :3, :3].sum(0)
    u, _, vh = torch.linalg.svd(rotation_sum)  # nearest rotation to the mean for recentering
    u @ vh


# --- stratified and hierarchical sampling


def _packed_samples_repeat_interleave_float_counts() -> None:
    _seeded()
    n_rays, n_samples = 6, 12
    occupied = (torch.rand(n_rays, n_samples) > 0.4).float()  # kept float to multiply sigma by it
    counts = occupied.sum(-1)
    ray_indices = torch.repeat_interleave(torch.arange(n_rays), counts)  # nerfacc-style packed ray ids
    ray_indices.bincount()


def _error_map_uint8_multinomial_ray_sampling() -> None:
    _seeded()
    error_map = torch.randint(0, 256, (_H * _W,), dtype=torch.uint8)  # per-pixel error saved as a uint8 PNG
    ray_ids = torch.multinomial(error_map, 32, replacement=True)
    ray_ids % _W


# --- positional and hash-grid encodings


def _hash_primes_int32_overflow() -> None:
    # instant-ngp's spatial hash primes, stored int32 to match the packed corner coordinates
    primes = torch.tensor([1, 2654435761, 805459861], dtype=torch.int32)
    corners = torch.randint(0, 64, (16, 3), dtype=torch.int32)
    (corners * primes).sum(-1)


def _morton_code_uint32_left_shift() -> None:
    _seeded()
    res = 16
    cells = torch.from_numpy(np.random.default_rng(0).integers(0, res, (32, 3)).astype(np.uint32))

    def spread(v: torch.Tensor) -> torch.Tensor:
        v = (v | (v << 16)) & 0x030000FF
        v = (v | (v << 8)) & 0x0300F00F
        v = (v | (v << 4)) & 0x030C30C3
        return (v | (v << 2)) & 0x09249249

    spread(cells[:, 0]) | (spread(cells[:, 1]) << 1) | (spread(cells[:, 2]) << 2)  # density grid's morton index


def _hash_table_lookup_uint32_index() -> None:
    _seeded()
    table_size = 2**10
    table = nn.Parameter(torch.randn(table_size, 2) * 1e-4)
    corners = torch.from_numpy(np.random.default_rng(0).integers(0, 128, (32, 3)).astype(np.uint32))
    primes = torch.tensor([1, 2654435761, 805459861], dtype=torch.uint32)
    h = (corners[:, 0] * primes[0]) ^ (corners[:, 1] * primes[1]) ^ (corners[:, 2] * primes[2])
    table[h & (table_size - 1)]


def _fourier_features_f64_mesh_points() -> None:
    _seeded()
    b_matrix = torch.randn(3, 64) * 10.0  # random Fourier feature matrix, fp32 buffer
    rng = np.random.default_rng(0)
    surface_points = torch.from_numpy(rng.uniform(-1, 1, (128, 3)))  # sampled from the mesh with trimesh: float64
    projected = 2 * torch.pi * surface_points @ b_matrix
    torch.cat([torch.sin(projected), torch.cos(projected)], -1)


def _hash_features_fp8_times_fp32_weights() -> None:
    _seeded()
    table = (torch.randn(4096, 2) * 0.1).to(torch.float8_e4m3fn)  # compressed scene: hash table stored in fp8
    corner_idx = torch.randint(0, 4096, (64, 8))
    weights = torch.rand(64, 8)
    weights = weights / weights.sum(-1, keepdim=True)  # trilinear weights in fp32
    (table[corner_idx] * weights[..., None]).sum(1)


# --- volume rendering and compositing


def _composite_einsum_fp16_weights_fp32_rgb() -> None:
    _seeded()
    n_rays, n_samples = 16, 24
    sigma = torch.rand(n_rays, n_samples, dtype=f16) * 5  # from the halved density MLP
    deltas = torch.full((n_rays, n_samples), 0.05, dtype=f16)
    alpha = 1 - torch.exp(-sigma * deltas)
    transmittance = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1 - alpha + 1e-4], -1), -1)[:, :-1]
    weights = alpha * transmittance
    rgb = torch.sigmoid(torch.randn(n_rays, n_samples, 3))  # colour head kept fp32
    torch.einsum("rs,rsc->rc", weights, rgb)


def _background_invert_fp16_alpha() -> None:
    _seeded()
    rgba = torch.rand(_H, _W, 4)
    batch = {"rgb": rgba[..., :3], "alpha": (rgba[..., 3] > 0.5).float()}
    batch = {key: value.half() for key, value in batch.items()}
    background = ~batch["alpha"]  # white background where the object mask is off
    batch["rgb"] * batch["alpha"][..., None] + background[..., None]


def _packed_samples_index_add_bf16_into_fp32() -> None:
    _seeded()
    n_rays = 8
    ray_indices = torch.sort(torch.randint(0, n_rays, (40,))).values
    field = nn.Linear(16, 4)
    with torch.autocast("cpu", dtype=bf16):
        raw = field(torch.randn(40, 16))
    rgb, sigma = torch.sigmoid(raw[:, :3]), F.softplus(raw[:, 3])
    weights = 1 - torch.exp(-sigma * 0.05)  # alpha of each packed sample (transmittance left out here)
    image = torch.zeros(n_rays, 3)
    image.index_add_(0, ray_indices, weights[:, None] * rgb)  # accumulate_along_rays by hand


def _foreground_masked_scatter_bf16_into_image() -> None:
    _seeded()
    fg = torch.rand(_H, _W) > 0.5
    n_fg = int(fg.sum())
    rendered = torch.rand(n_fg, 3).to(bf16)  # the bf16 model rendered only rays hitting the bounding box
    image = torch.ones(_H, _W, 3)
    image.masked_scatter_(fg[..., None].expand(-1, -1, 3), rendered)


def _ray_transformer_sdpa_fp16_density_bias() -> None:
    _seeded()
    n_rays, n_samples, dim = 4, 16, 32
    q = torch.randn(n_rays, 2, n_samples, dim, dtype=bf16)
    density = torch.rand(n_rays, 1, 1, n_samples, dtype=f16)  # from the halved density network
    bias = torch.log(density + 1e-3)  # attend less to empty samples
    F.scaled_dot_product_attention(q, q, q, attn_mask=bias)


def _density_grid_fp16_ema_lerp() -> None:
    _seeded()
    density_grid = torch.zeros(16, 16, 16, dtype=f16)  # kept fp16 to save memory
    new_density = torch.rand(16, 16, 16) * 10  # the density MLP evaluated at cell centres, fp32
    density_grid.lerp_(new_density, 0.05)


def _occupancy_bool_grid_sample_query() -> None:
    _seeded()
    occupancy = torch.rand(1, 1, 16, 16, 16) > 0.7
    points = torch.rand(1, 1, 1, 64, 3) * 2 - 1  # ray samples in the normalised AABB
    hit = F.grid_sample(occupancy, points, mode="nearest", align_corners=True)
    hit.flatten()


def _empty_space_sigma_masked_fill_fp16() -> None:
    _seeded()
    raw_sigma = torch.randn(16, 24, dtype=f16)
    occupied = torch.rand(16, 24) > 0.6
    raw_sigma = raw_sigma.masked_fill(~occupied, -1e5)  # softplus of it is 0 in empty cells
    F.softplus(raw_sigma)


def _ray_transformer_bf16_layernorm_fp32_features() -> None:
    _seeded()
    dim = 63
    block = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 64)).to(bf16)  # GNT-style ray transformer in bf16
    x = torch.rand(32, 3) * 2 - 1
    bands = 2.0 ** torch.arange(10)
    encoded = torch.cat([x, torch.sin(x[..., None] * bands).flatten(1), torch.cos(x[..., None] * bands).flatten(1)],
                        -1)
    block(encoded)


def _pixelnerf_half_encoder_fp32_views() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU()).half()  # image encoder halved to save memory
    views = torch.rand(2, 3, _H, _W)
    mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None]
    std = torch.tensor([0.229, 0.224, 0.225])[:, None, None]
    encoder((views - mean) / std)


def _ref_nerf_reflection_vecdot_bf16_normals() -> None:
    _seeded()
    view_dirs = F.normalize(torch.randn(64, 3), dim=-1)
    with torch.autocast("cpu", dtype=bf16):
        normals = F.normalize(nn.Linear(16, 3)(torch.randn(64, 16)), dim=-1)  # predicted normals leave autocast bf16
    w_o = -view_dirs
    2 * torch.linalg.vecdot(w_o, normals)[..., None] * normals - w_o


# --- losses, targets and training


def _depth_png_uint16_div_in_place() -> None:
    depth_mm = torch.from_numpy(np.full((_H, _W), 1500, dtype=np.uint16))  # 16-bit PNG depth in millimetres
    depth_mm.div_(1000.0)


def _mask_loss_bce_uint8_alpha() -> None:
    _seeded()
    acc = torch.rand(64, requires_grad=True)
    mask = torch.from_numpy(np.random.default_rng(0).integers(0, 2, 64).astype(np.uint8))  # the dataset's mask PNG
    F.binary_cross_entropy(acc.clamp(1e-3, 1 - 1e-3), mask)


def _psnr_mean_uint8_frames() -> None:
    _seeded()
    pred = (torch.rand(_H, _W, 3) * 255).to(torch.uint8)  # rendered frame as saved to disk
    gt = (torch.rand(_H, _W, 3) * 255).to(torch.uint8)
    mse = ((pred - gt) ** 2).mean()
    -10 * torch.log10(mse / 255**2)


def _eikonal_sqrt_zero_gradient_anomaly() -> None:
    _seeded()
    sdf_net = nn.Sequential(nn.Linear(3, 16), nn.Softplus(beta=100), nn.Linear(16, 1))
    points = torch.rand(8, 3, requires_grad=True)
    valid = torch.ones(8, 1)
    valid[5:] = 0  # padding samples of short rays
    with torch.autograd.detect_anomaly():
        sdf = sdf_net(points) * valid
        (grad,) = torch.autograd.grad(sdf.sum(), points, create_graph=True)
        norm = torch.sqrt((grad**2).sum(-1))  # hand-written gradient norm
        ((norm - 1) ** 2).mean().backward()


def _hash_grid_fp16_params_grad_scaler() -> None:
    _seeded()
    table = nn.Parameter((torch.randn(1024, 2) * 1e-4).half())  # tcnn-style hash grid kept in fp16
    mlp = nn.Linear(2, 4)
    optimizer = torch.optim.Adam([table, *mlp.parameters()], lr=1e-2)
    scaler = torch.amp.GradScaler("cpu")
    idx = torch.randint(0, 1024, (32,))
    loss = mlp(table[idx].float()).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _plenoxel_hand_gradient_fp32_to_fp16_grid() -> None:
    _seeded()
    density = nn.Parameter(torch.rand(16, 16, 16).half())  # voxel grid stored fp16
    grad = torch.zeros(16, 16, 16)  # hand-written rendering backward accumulates in fp32
    grad.view(-1).index_add_(0, torch.randint(0, 16**3, (64,)), torch.randn(64))
    density.grad = grad


def _render_video_bf16_frames_numpy() -> None:
    _seeded()
    frames = [torch.rand(_H, _W, 3).to(bf16) for _ in range(3)]  # rendered by the bf16 model
    np.stack([frame.clamp(0, 1).mul(255).numpy() for frame in frames])


CASES: dict[str, LiveCase] = {
    # --- cameras and rays
    # per-camera ray rotation: bf16 directions bmm'ed with the float64 c2w matrices from transforms.json
    "per-camera-f64-poses-bmm-bf16-dirs": case(_per_camera_f64_poses_bmm_bf16_dirs, "batched_matmul_dtype", "bf16",
                                               "f64",
        grade="correct", grade_at_freeze="correct"),
    # the whole batch halved for an fp16 model, c2w poses inverted with linalg.inv for world-to-camera
    "c2w-half-batch-linalg-inv": case(_c2w_half_batch_inverse, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # spiral render path: look-at frames from fp32 poses crossed with a numpy float64 up vector
    "spiral-path-look-at-cross-f64-up": case(_spiral_path_look_at_cross_f64_up, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # random ray batch: the pixel row computed with true division, used to index the images
    "ray-batch-pixel-row-true-division-index": case(_ray_batch_pixel_index_true_division, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # LLFF-style recentering: the average rotation orthonormalised by SVD of bf16 poses
    "llff-recenter-average-rotation-svd-bf16": case(_llff_recenter_average_rotation_svd_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- sampling
    # nerfacc-style packed samples: per-ray counts from a float occupancy mask given to repeat_interleave
    "packed-samples-repeat-interleave-float-counts": case(_packed_samples_repeat_interleave_float_counts,
                                                          "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # error-map guided ray sampling with multinomial over the uint8 error map
    "error-map-uint8-multinomial-ray-sampling": case(_error_map_uint8_multinomial_ray_sampling, "integer_operand",
                                                     "uint8",
        grade="correct", grade_at_freeze="correct"),
    # --- encodings and hashing
    # instant-ngp hash primes put in an int32 tensor: 2654435761 overflows
    "hash-primes-int32-overflow": case(_hash_primes_int32_overflow, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # morton3D index of the density grid in uint32, interleaved with <<
    "morton-code-uint32-left-shift": case(_morton_code_uint32_left_shift, "no_kernel", "uint32",
        grade="correct", grade_at_freeze="correct"),
    # hash-grid lookup: the uint32 spatial hash used directly as the table index
    "hash-table-lookup-uint32-index": case(_hash_table_lookup_uint32_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # random Fourier features of float64 trimesh surface points @ the fp32 B matrix
    "fourier-features-f64-mesh-points": case(_fourier_features_f64_mesh_points, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # compressed hash table stored in fp8, multiplied by fp32 trilinear weights
    "hash-features-fp8-times-fp32-weights": case(_hash_features_fp8_times_fp32_weights, "fp8_promotion",
                                                 "float8_e4m3fn", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- volume rendering and compositing
    # fp16 compositing weights einsum'ed with the fp32 colour head's rgb
    "composite-einsum-fp16-weights-fp32-rgb": case(_composite_einsum_fp16_weights_fp32_rgb, "matmul_dtype", "f16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # the object mask halved with the batch, inverted with ~ for a white background
    "background-invert-fp16-alpha": case(_background_invert_fp16_alpha, "mask_dtype",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (fd82b52) castwise gave mask_dtype [] (high confidence). The `~` fell on the object mask after the "
             "batch was halved, so its operand is an fp16 float tensor: a bit operation on a 16-bit float, which has no kernel "
             "(no_kernel; keep the mask bool, or take 1 - alpha). Torch's TypeError names no dtype and says only that integer "
             "and Boolean-type tensors are allowed, and the rules read that as a mask of the wrong dtype; nothing in the "
             "message says the operand was a 16-bit float. Expectation corrected after grading from no_kernel to "
             "mask_dtype: `~` on a 16-bit float mask is mask_dtype in the corpus (live_held_out_66's "
             "pillar-padding-mask-type-as-bf16-invert); the frozen grade is kept.")),
    # accumulate along rays by hand: bf16 autocast colours index_add_'ed into an fp32 image buffer
    "packed-samples-index-add-bf16-into-fp32": case(_packed_samples_index_add_bf16_into_fp32, "indexed_write_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 foreground renders masked_scatter_'ed into the fp32 full image
    "foreground-masked-scatter-bf16-into-image": case(_foreground_masked_scatter_bf16_into_image,
                                                      "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ray transformer over samples: a log-density bias from the fp16 density net as bf16 SDPA's mask
    "ray-transformer-sdpa-fp16-density-bias": case(_ray_transformer_sdpa_fp16_density_bias, "attn_mask_dtype", "f16",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 density grid updated by lerp_ toward the fp32 density at cell centres
    "density-grid-fp16-ema-lerp": case(_density_grid_fp16_ema_lerp, "lerp_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the bool occupancy grid queried at ray samples with grid_sample
    "occupancy-bool-grid-sample-query": case(_occupancy_bool_grid_sample_query, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # empty-space skipping: raw sigma of unoccupied fp16 samples filled with -1e5
    "empty-space-sigma-masked-fill-fp16": case(_empty_space_sigma_masked_fill_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # GNT-style ray transformer cast to bf16 whose first LayerNorm gets the fp32 positional encoding
    "ray-transformer-bf16-layernorm-fp32-encoding": case(_ray_transformer_bf16_layernorm_fp32_features,
                                                         "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pixelNeRF image encoder halved, source views normalised in fp32
    "pixelnerf-half-encoder-fp32-views": case(_pixelnerf_half_encoder_fp32_views, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Ref-NeRF reflection: fp32 view directions vecdot'ed with bf16 normals from autocast
    "ref-nerf-reflection-vecdot-bf16-normals": case(_ref_nerf_reflection_vecdot_bf16_normals, "op_dtype", "f32",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- losses, targets and training
    # 16-bit PNG depth in millimetres converted to metres in place with div_
    "depth-png-uint16-div-in-place": case(_depth_png_uint16_div_in_place, "result_cast", "f32", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # object-mask loss: BCE of the accumulated opacity against the uint8 mask PNG
    "mask-loss-bce-uint8-alpha": case(_mask_loss_bce_uint8_alpha, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # PSNR computed on the uint8 frames saved to disk: mean of the uint8 squared error
    "psnr-mean-uint8-frames": case(_psnr_mean_uint8_frames, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # NeuS-style eikonal loss with a hand-written sqrt norm: zero gradients at padding samples give NaN in anomaly mode
    "eikonal-sqrt-zero-gradient-anomaly": case(_eikonal_sqrt_zero_gradient_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # tcnn-style fp16 hash-grid parameters trained through GradScaler
    "hash-grid-fp16-params-grad-scaler": case(_hash_grid_fp16_params_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Plenoxels-style hand-written backward: an fp32 gradient assigned to the fp16 voxel grid's .grad
    "plenoxel-hand-gradient-fp32-to-fp16-grid": case(_plenoxel_hand_gradient_fp32_to_fp16_grid, "loss_dtype", "f32",
                                                     "f16",
        grade="correct", grade_at_freeze="correct"),
    # rendered bf16 video frames stacked with numpy for imageio
    "render-video-bf16-frames-numpy": case(_render_video_bf16_frames_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
