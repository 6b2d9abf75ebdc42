"""Held-out live set 24: 3-D vision and neural rendering written by hand in plain torch (NeRF ray generation, positional
encodings, volume rendering and importance sampling, hash-grid encodings, Gaussian splatting, cameras and poses, depth,
voxel grids and TSDF fusion, meshes and rasterisation, point clouds) run in bf16, fp16, fp8 or on integer data.
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at 8696f3d."""

from __future__ import annotations

import json

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8696f3d"

bf16, f16 = torch.bfloat16, torch.float16


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


# --- NeRF: rays, encodings, volume rendering, sampling

def _rays_from_integer_pixel_grid() -> None:
    height, width = 4, 6
    intrinsics = torch.tensor([[50.0, 0.0, 3.0], [0.0, 50.0, 2.0], [0.0, 0.0, 1.0]])
    rows, cols = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    pixels = torch.stack([cols, rows, torch.ones_like(cols)], dim=-1).reshape(-1, 3)
    directions = pixels @ torch.linalg.inv(intrinsics).T
    F.normalize(directions, dim=-1)


def _llff_poses_float64() -> None:
    poses_bounds = np.random.default_rng(0).random((3, 17))  # what np.load("poses_bounds.npy") hands back
    poses = torch.from_numpy(poses_bounds[:, :15].reshape(-1, 3, 5))
    camera_to_world = poses[0, :, :4]
    directions = F.normalize(torch.randn(8, 3, generator=_generator()), dim=-1)
    rays_d = directions @ camera_to_world[:, :3].T
    rays_o = camera_to_world[:, 3].expand_as(rays_d)
    torch.cat([rays_o, rays_d], dim=-1)


class _NeRFField(nn.Module):
    def __init__(self, n_freqs: int = 4, width: int = 32) -> None:
        super().__init__()
        self.freq_bands = 2.0 ** torch.arange(n_freqs)  # a plain attribute: .to() never sees it
        self.layers = nn.Sequential(nn.Linear(3 + 6 * n_freqs, width), nn.ReLU(), nn.Linear(width, 4))

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        scaled = x[..., None] * self.freq_bands
        return torch.cat([x, torch.sin(scaled).flatten(-2), torch.cos(scaled).flatten(-2)], dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(self.encode(x))


def _positional_encoding_bands_attribute() -> None:
    field = _NeRFField().to(bf16)
    samples = torch.rand(16, 3, generator=_generator()).to(bf16)
    field(samples)


def _last_delta_1e10_in_half() -> None:
    z_vals = torch.linspace(2.0, 6.0, 8, dtype=f16).expand(4, 8)
    deltas = z_vals[..., 1:] - z_vals[..., :-1]
    deltas = torch.cat([deltas, torch.full_like(deltas[..., :1], 1e10)], dim=-1)
    sigma = torch.ones(4, 8, dtype=f16)
    1 - torch.exp(-sigma * deltas)


def _importance_sampling_empty_ray() -> None:
    sigma = torch.zeros(2, 16, dtype=bf16)
    sigma[0, 5:9] = 3.0  # the second ray crosses empty space only
    deltas = torch.full((2, 16), 0.25, dtype=bf16)
    alpha = 1 - torch.exp(-sigma * deltas)
    transmittance = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1 - alpha[:, :-1]], dim=-1), dim=-1)
    weights = alpha * transmittance
    pdf = weights[:, 1:-1] / weights[:, 1:-1].sum(-1, keepdim=True)
    torch.distributions.Categorical(probs=pdf).sample((32,))


class _HashGrid(nn.Module):
    primes = (1, 2654435761, 805459861)

    def __init__(self, levels: int = 2, log2_table: int = 8, dim: int = 2, base: int = 4) -> None:
        super().__init__()
        self.levels, self.table_size, self.base = levels, 2 ** log2_table, base
        self.tables = nn.Parameter(torch.empty(levels, self.table_size, dim).uniform_(-1e-4, 1e-4))
        self.register_buffer("prime_vector", torch.tensor(self.primes))
        self.register_buffer("corners", torch.tensor([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = []
        for level in range(self.levels):
            scaled = x * (self.base * 2 ** level)
            lower = torch.floor(scaled)
            frac = scaled - lower
            corners = lower[:, None, :] + self.corners  # (points, 8, 3)
            hashed = corners * self.prime_vector
            index = (hashed[..., 0] ^ hashed[..., 1] ^ hashed[..., 2]) % self.table_size
            weights = torch.where(self.corners.bool(), frac[:, None, :], 1 - frac[:, None, :]).prod(-1)
            features.append((self.tables[level][index] * weights[..., None]).sum(1))
        return torch.cat(features, dim=-1)


def _hash_grid_float_corners() -> None:
    _HashGrid()(torch.rand(5, 3, generator=_generator()))


# --- Gaussian splatting

def _quaternions_to_rotations(quats: torch.Tensor) -> torch.Tensor:
    w, x, y, z = F.normalize(quats, dim=-1).unbind(-1)
    return torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], dim=-1).reshape(-1, 3, 3)


def _covariance_with_fp32_log_scales() -> None:
    generator = _generator()
    quats = torch.randn(5, 4, generator=generator).to(bf16)
    log_scales = torch.randn(5, 3, generator=generator) * 0.1 - 4  # kept fp32: exp of small scales in bf16 is coarse
    rotations = _quaternions_to_rotations(quats)
    m = rotations @ torch.diag_embed(torch.exp(log_scales))
    m @ m.transpose(1, 2)


def _spherical_harmonics_half_checkpoint() -> None:
    generator = _generator()
    sh_c0, sh_c1 = 0.28209479177387814, 0.4886025119029199
    view_dirs = F.normalize(torch.randn(5, 3, generator=generator), dim=-1).to(bf16)
    x, y, z = view_dirs.unbind(-1)
    basis = torch.stack([torch.full_like(x, sh_c0), -sh_c1 * y, sh_c1 * z, -sh_c1 * x], dim=-1)
    sh = torch.randn(5, 4, 3, generator=generator).half()  # features saved with .half() to halve the .ply
    (torch.einsum("nk,nkc->nc", basis, sh) + 0.5).clamp_min(0.0)


def _sh_rest_stored_in_fp8() -> None:
    generator = _generator()
    features_dc = torch.randn(5, 1, 3, generator=generator)
    features_rest = (torch.randn(5, 15, 3, generator=generator) * 0.05).to(torch.float8_e4m3fn)  # compressed scene
    torch.cat([features_dc, features_rest], dim=1)


def _tile_keys_from_bf16_means() -> None:
    generator = _generator()
    means2d = (torch.rand(6, 2, generator=generator) * 64).to(bf16)
    depths = torch.rand(6, generator=generator) * 10
    tiles = torch.floor(means2d / 16)
    tile_ids = tiles[:, 1] * 4 + tiles[:, 0]
    keys = (tile_ids << 32) | depths.view(torch.int32).long()
    torch.sort(keys)


def _export_splats_to_ply() -> None:
    generator = _generator()
    means = nn.Parameter(torch.randn(4, 3, generator=generator).to(bf16))
    opacities = nn.Parameter(torch.zeros(4, 1).to(bf16))
    scales = nn.Parameter(torch.full((4, 3), -4.0).to(bf16))
    rotations = nn.Parameter(torch.tensor([[1.0, 0.0, 0.0, 0.0]]).repeat(4, 1).to(bf16))
    normals = torch.zeros_like(means)
    attributes = torch.cat([means, normals, opacities, scales, rotations], dim=1).detach().cpu().numpy()
    np.rec.fromarrays(attributes.T)


def _densify_with_fp32_optimizer_state() -> None:
    means = nn.Parameter(torch.randn(4, 3, generator=_generator()).to(bf16))
    optimizer = torch.optim.Adam([means], lr=1e-3)
    means.pow(2).sum().backward()
    optimizer.step()
    optimizer.zero_grad()
    clones = means.detach()[:2]
    state = optimizer.state.pop(means)
    state["exp_avg"] = torch.cat([state["exp_avg"], torch.zeros(clones.shape)])
    state["exp_avg_sq"] = torch.cat([state["exp_avg_sq"], torch.zeros(clones.shape)])
    densified = nn.Parameter(torch.cat([means.detach(), clones]))
    optimizer.param_groups[0]["params"] = [densified]
    optimizer.state[densified] = state
    densified.pow(2).sum().backward()
    optimizer.step()


# --- cameras, poses and depth

def _intrinsics_from_json_integers() -> None:
    meta = json.loads('{"fl_x": 500, "fl_y": 500, "cx": 320, "cy": 240}')
    intrinsics = torch.tensor([[meta["fl_x"], 0, meta["cx"]], [0, meta["fl_y"], meta["cy"]], [0, 0, 1]])
    inverse = torch.linalg.inv(intrinsics)
    inverse @ torch.tensor([320.0, 240.0, 1.0])


def _camera_path_lerp_to_refined_pose() -> None:
    dataset_centres = torch.tensor([[0.0, 0.0, 4.0], [1.0, 0.0, 4.0]])  # from transforms.json
    refined_centres = nn.Parameter(torch.tensor([[0.0, 0.1, 4.0], [1.1, 0.0, 3.9]]).to(bf16))  # the bf16 model's
    weights = torch.linspace(0, 1, 10)[:, None]
    torch.lerp(dataset_centres[0], refined_centres[1].detach(), weights)


def _scale_invariant_depth_with_float_mask() -> None:
    generator = _generator()
    pred = (torch.rand(1, 1, 4, 4, generator=generator) + 0.1).to(bf16)
    gt = torch.rand(1, 1, 4, 4, generator=generator) * (torch.rand(1, 1, 4, 4, generator=generator) > 0.3)
    valid = (gt > 0).float()  # also used as a per-pixel weight elsewhere
    d = torch.log(torch.masked_select(pred, valid).float()) - torch.log(torch.masked_select(gt, valid))
    (d ** 2).mean() - 0.5 * d.mean() ** 2


def _depth_alignment_pinv_bf16() -> None:
    generator = _generator()
    pred_disparity = torch.rand(64, generator=generator).to(bf16)  # a bf16 monocular depth model's output
    gt_disparity = 2.0 * pred_disparity.float() + 0.1
    valid = gt_disparity > 0.5
    design = torch.stack([pred_disparity[valid], torch.ones_like(pred_disparity[valid])], dim=-1)
    scale, shift = torch.linalg.pinv(design) @ gt_disparity[valid].to(design.dtype)
    scale * pred_disparity + shift


# --- voxel grids, occupancy and fusion

def _voxel_counts_scatter_add_float_index() -> torch.Tensor:
    resolution, voxel_size = 8, 0.25
    points = torch.rand(100, 3, generator=_generator()) * 2 - 1
    voxels = torch.floor((points + 1) / voxel_size).clamp(0, resolution - 1)
    flat = voxels[:, 0] * resolution ** 2 + voxels[:, 1] * resolution + voxels[:, 2]
    counts = torch.zeros(resolution ** 3).scatter_add_(0, flat, torch.ones(100))
    return counts.view(resolution, resolution, resolution) > 0


class _OccupancyDecoder(nn.Module):
    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                 nn.Linear(width, 1))

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        return self.net(points).squeeze(-1)


def _occupancy_bce_fp32_labels() -> None:
    decoder = _OccupancyDecoder().to(bf16)
    query = torch.rand(64, 3, generator=_generator()) * 2 - 1
    occupied = (query.norm(dim=-1) < 0.5).float()
    probs = torch.sigmoid(decoder(query.to(bf16)))
    F.binary_cross_entropy(probs, occupied)


def _occupancy_grid_uint8_trilinear_upsample() -> None:
    coarse = (torch.rand(1, 1, 4, 4, 4, generator=_generator()) > 0.7).to(torch.uint8)  # occupancy saved as uint8
    fine = F.interpolate(coarse, scale_factor=2, mode="trilinear", align_corners=False) > 0.5
    fine.nonzero()


def _density_grid_fp32_bf16_samples() -> None:
    generator = _generator()
    density_grid = nn.Parameter(torch.randn(1, 1, 8, 8, 8, generator=generator))  # kept fp32 like the paper's
    rays_o = torch.zeros(4, 3, dtype=bf16)
    rays_d = F.normalize(torch.randn(4, 3, generator=generator), dim=-1).to(bf16)
    t_vals = torch.linspace(0.0, 0.9, 16, dtype=bf16)
    samples = rays_o[:, None] + rays_d[:, None] * t_vals[:, None]
    F.grid_sample(density_grid, samples.view(1, 1, 4, 16, 3), align_corners=True)


class _VoxelEncoder(nn.Module):
    def __init__(self, channels: int = 4, width: int = 8) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv3d(channels, width, 3, padding=1, bias=False), nn.BatchNorm3d(width),
                                  nn.ReLU())

    def forward(self, grid: torch.Tensor) -> torch.Tensor:
        return self.stem(grid)


def _voxel_cnn_left_fp32_bf16_features() -> None:
    point_features = torch.randn(20, 4, generator=_generator()).to(bf16)  # from the bf16 point encoder
    cells = torch.arange(20) * 3
    grid = torch.zeros(4, 8 * 8 * 8, dtype=bf16)
    grid[:, cells] = point_features.T
    _VoxelEncoder()(grid.view(1, 4, 8, 8, 8))


def _tsdf_input_batchnorm_bf16() -> None:
    net = nn.Sequential(nn.BatchNorm3d(1), nn.Conv3d(1, 4, 3, padding=1, bias=False), nn.ReLU()).to(bf16)
    tsdf_volume = torch.rand(2, 1, 6, 6, 6, generator=_generator()) * 2 - 1  # fused in fp32
    net(tsdf_volume)


def _tsdf_fusion_uint8_weights() -> None:
    generator = _generator()
    tsdf = torch.ones(64)
    weights = torch.zeros(64, dtype=torch.uint8)  # saturates at 255: a byte per voxel saves memory
    for _ in range(2):
        sdf = torch.rand(64, generator=generator) * 2 - 1
        confidence = torch.exp(-sdf.abs())
        tsdf = (tsdf * weights + sdf * confidence) / (weights + confidence)
        weights += confidence


def _voxel_histogram_of_bf16_sweep() -> torch.Tensor:
    points = (torch.rand(200, 3, generator=_generator()) * 2 - 1).to(bf16)
    counts, _ = torch.histogramdd(points, bins=4)  # voxels over the sweep's own bounding box
    return counts > 0


# --- meshes and rasterisation

def _rasteriser_float_triangle_ids() -> torch.Tensor:
    faces = torch.tensor([[0, 1, 2], [0, 2, 3]])
    rast = torch.zeros(1, 4, 4, 4)  # (u, v, z/w, triangle_id + 1), ids in a float channel as the rasteriser writes
    rast[0, :2, :, 3] = 1.0
    rast[0, 2:, 1:, 3] = 2.0
    rast[..., :2] = 0.25
    triangle_ids = rast[..., 3] - 1
    covered = triangle_ids >= 0
    return faces[triangle_ids[covered]]


def _quantized_mesh_face_normals() -> None:
    positions = torch.tensor([[0, 0, 0], [32767, 0, 0], [0, 32767, 0], [0, 0, 32767]], dtype=torch.int16)
    faces = torch.tensor([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])
    v0, v1, v2 = positions[faces].unbind(1)
    F.normalize(torch.linalg.cross(v1 - v0, v2 - v0), dim=-1)


def _barycentric_colours_bmm() -> None:
    generator = _generator()
    vertex_colours = nn.Parameter(torch.rand(4, 3, generator=generator).to(bf16))
    faces = torch.tensor([[0, 1, 2], [0, 2, 3]])
    pixel_faces = torch.tensor([0, 0, 1, 1, 1])
    bary = torch.rand(5, 3, generator=generator)
    bary = bary / bary.sum(-1, keepdim=True)
    triangle_colours = vertex_colours[faces[pixel_faces]]
    torch.bmm(bary[:, None, :], triangle_colours).squeeze(1)


def _texture_uint8_grid_sample() -> None:
    generator = _generator()
    texture = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8, generator=generator)  # decoded PNG atlas
    uv = torch.rand(1, 4, 4, 2, generator=generator) * 2 - 1
    F.grid_sample(texture, uv, mode="bilinear", align_corners=False)


# --- point clouds

def _farthest_point_sample(xyz: torch.Tensor, npoint: int) -> torch.Tensor:
    batch_size, n, _ = xyz.shape
    centroids = torch.zeros(batch_size, npoint, dtype=torch.long)
    distance = torch.ones(batch_size, n) * 1e10
    farthest = torch.zeros(batch_size, dtype=torch.long)
    batch = torch.arange(batch_size)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch, farthest, :].view(batch_size, 1, 3)
        dist = torch.sum((xyz - centroid) ** 2, -1)
        mask = dist < distance
        distance[mask] = dist[mask]
        farthest = torch.max(distance, -1)[1]
    return centroids


def _fps_on_bf16_points() -> None:
    _farthest_point_sample(torch.rand(2, 32, 3, generator=_generator()).to(bf16), 8)


def _ball_query_arange_to_points() -> None:
    generator = _generator()
    xyz = torch.rand(2, 32, 3, generator=generator)
    new_xyz = xyz[:, :4]
    batch_size, n, _ = xyz.shape
    s, nsample, radius = new_xyz.shape[1], 6, 0.4
    group_idx = torch.arange(n).to(xyz).view(1, 1, n).repeat(batch_size, s, 1)  # .to(xyz) meant for the device
    sqrdists = ((new_xyz[:, :, None] - xyz[:, None]) ** 2).sum(-1)
    group_idx[sqrdists > radius ** 2] = n
    group_idx = group_idx.sort(dim=-1)[0][:, :, :nsample]
    group_first = group_idx[:, :, :1].expand(-1, -1, nsample)
    group_idx = torch.where(group_idx == n, group_first, group_idx)
    grouped = torch.gather(xyz[:, None].expand(-1, s, -1, -1), 2, group_idx[..., None].expand(-1, -1, -1, 3))
    grouped - new_xyz[:, :, None]


def _pca_normals_eigh_bf16() -> None:
    points = torch.rand(32, 3, generator=_generator()).to(bf16)
    k = 6
    squared = ((points[:, None] - points[None]) ** 2).sum(-1)
    neighbours = points[squared.topk(k, largest=False).indices]
    centred = neighbours - neighbours.mean(1, keepdim=True)
    covariance = centred.transpose(1, 2) @ centred / k
    _, eigenvectors = torch.linalg.eigh(covariance)
    eigenvectors[..., 0]


class _ViewAggregator(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.query = nn.Linear(dim, dim)

    def forward(self, sample_features: torch.Tensor, view_features: torch.Tensor) -> torch.Tensor:
        q = self.query(sample_features)[:, None]
        return F.scaled_dot_product_attention(q, view_features, view_features).squeeze(1)


def _source_view_features_fp32_attention() -> None:
    generator = _generator()
    aggregator = _ViewAggregator().to(bf16)
    feature_maps = torch.randn(3, 16, 8, 8, generator=generator)  # frozen fp32 image encoder, one map per view
    uv = torch.rand(3, 1, 10, 2, generator=generator) * 2 - 1  # each sample projected into each source view
    view_features = F.grid_sample(feature_maps, uv, align_corners=False)[:, :, 0].permute(2, 0, 1)  # (samples, views, dim)
    aggregator(torch.randn(10, 16, generator=generator).to(bf16), view_features)


def _visibility_mask_uint8_attention() -> None:
    generator = _generator()
    visible = torch.from_numpy(np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], dtype=np.uint8))  # depth test
    q = torch.randn(4, 1, 16, generator=generator).to(bf16)
    kv = torch.randn(4, 3, 16, generator=generator).to(bf16)
    F.scaled_dot_product_attention(q, kv, kv, attn_mask=visible[:, None, :])


def _lidar_range_image_zbuffer() -> None:
    generator = _generator()
    points = (torch.randn(50, 3, generator=generator) * 10).to(bf16)
    height, width = 4, 16
    depth = points.norm(dim=-1)
    azimuth = torch.atan2(points[:, 1], points[:, 0])
    elevation = torch.asin(points[:, 2] / depth)
    cols = ((azimuth.float() / torch.pi + 1) / 2 * width).long().clamp(0, width - 1)
    rows = ((elevation.float() / (torch.pi / 2) + 1) / 2 * height).long().clamp(0, height - 1)
    zbuffer = torch.full((height * width,), 1e4)
    zbuffer.index_reduce_(0, rows * width + cols, depth, "amin")


def _scaler_update_on_empty_batch() -> None:
    generator = _generator()
    field = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
    optimizer = torch.optim.Adam(field.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    rays = torch.randn(8, 6, generator=generator)
    foreground_masks = [torch.ones(8, dtype=torch.bool), torch.zeros(8, dtype=torch.bool)]
    for mask in foreground_masks:
        batch = rays[mask]
        if batch.numel():
            with torch.autocast("cpu", dtype=bf16):
                loss = field(batch).float().pow(2).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


CASES: dict[str, LiveCase] = {
    # --- NeRF: rays, encodings, volume rendering, sampling
    # ray directions from an integer (arange) pixel grid homogenised with ones_like and multiplied by K^-1
    "rays-integer-pixel-grid-inverse-intrinsics": case(_rays_from_integer_pixel_grid, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # LLFF poses_bounds.npy read with numpy (float64) rotating fp32 ray directions
    "llff-poses-float64-rotate-rays": case(_llff_poses_float64, "matmul_dtype", "f32", "f64", grade="correct", grade_at_freeze="correct"),
    # NeRF frequency bands kept as a plain attribute, so .to(bf16) leaves them fp32 and the encoding meets a bf16 MLP
    "nerf-posenc-bands-attribute-fp32": case(_positional_encoding_bands_attribute, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # the last sample's delta padded with 1e10 by full_like on fp16 z-values
    "nerf-last-delta-1e10-half": case(_last_delta_1e10_in_half, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # importance sampling normalises the weights without an epsilon: an empty ray gives 0/0 into Categorical
    "importance-sampling-empty-ray-nan-pdf": case(_importance_sampling_empty_ray, "nonfinite", "bf16", grade="correct", grade_at_freeze="correct"),
    # hash-grid encoding XOR-hashes the floored corner coordinates, still float, with the integer primes
    "hash-grid-xor-float-corners": case(_hash_grid_float_corners, "mask_dtype", "f32", fix=("integer",),
        grade="correct", grade_at_freeze="partly",
        why="At freeze (8696f3d) castwise gave mask_dtype [f32] (high confidence). The kind and dtype were read right, but it took the float operand of XOR for a mask to be made bool, while the cause is hash-grid corner coordinates left float after floor(), which must become integers before hashing (a bool cast would destroy the hash)."),
    # --- Gaussian splatting
    # covariance R S: rotations from bf16 quaternions times scales kept fp32
    "splat-covariance-fp32-log-scales": case(_covariance_with_fp32_log_scales, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # spherical-harmonics colour by einsum of a bf16 basis with coefficients saved with .half()
    "splat-sh-einsum-half-coefficients": case(_spherical_harmonics_half_checkpoint, "matmul_dtype", "bf16", "f16", grade="correct", grade_at_freeze="correct"),
    # higher-order SH coefficients of a compressed scene kept in fp8, concatenated with the fp32 DC term
    "splat-sh-rest-fp8-cat": case(_sh_rest_stored_in_fp8, "fp8_promotion", "f32", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # tile/depth sort keys built by shifting tile ids computed from bf16 projected means, never made integer
    "splat-tile-keys-shift-bf16": case(_tile_keys_from_bf16_means, "no_kernel", "bf16", fix=("integer",), grade="correct", grade_at_freeze="correct"),
    # a bf16 scene exported to .ply through numpy
    "splat-export-ply-bf16-numpy": case(_export_splats_to_ply, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # densification extends Adam's state with torch.zeros (fp32) for bf16 Gaussians
    "splat-densify-adam-state-fp32-zeros": case(_densify_with_fp32_optimizer_state, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- cameras, poses and depth
    # intrinsics from a transforms.json with integer focal lengths and principal point, inverted
    "intrinsics-json-integers-inverse": case(_intrinsics_from_json_integers, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # a rendered camera path lerps from a dataset (fp32) camera centre to a bf16 refined one
    "camera-path-lerp-refined-bf16-pose": case(_camera_path_lerp_to_refined_pose, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # scale-invariant depth loss selecting valid pixels with a float validity mask
    "depth-loss-float-valid-mask-select": case(_scale_invariant_depth_with_float_mask, "mask_dtype", grade="correct", grade_at_freeze="correct"),
    # monocular depth scale/shift alignment by pseudo-inverse of a bf16 design matrix
    "depth-alignment-pinv-bf16": case(_depth_alignment_pinv_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- voxel grids, occupancy and fusion
    # per-voxel point counts by scatter_add_ with a flattened voxel index left float
    "voxel-counts-scatter-add-float-index": case(_voxel_counts_scatter_add_float_index, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # an occupancy network in bf16 trained with BCE against fp32 inside/outside labels
    "occupancy-bce-bf16-probs-fp32-labels": case(_occupancy_bce_fp32_labels, "op_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a uint8 occupancy grid upsampled coarse-to-fine with trilinear interpolation
    "occupancy-grid-uint8-trilinear": case(_occupancy_grid_uint8_trilinear_upsample, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # an explicit density grid kept fp32, sampled with grid_sample at bf16 ray sample points
    "density-grid-fp32-bf16-sample-points": case(_density_grid_fp32_bf16_samples, "op_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # bf16 point features scattered into a voxel grid for a 3-D CNN left in fp32
    "voxel-cnn-fp32-bf16-features": case(_voxel_cnn_left_fp32_bf16_features, "conv_weight_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a bf16 3-D CNN whose first layer is a BatchNorm3d on the fp32 TSDF volume
    "tsdf-input-batchnorm-bf16": case(_tsdf_input_batchnorm_bf16, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # TSDF fusion keeping the per-voxel weights in uint8, incremented by float confidences
    "tsdf-uint8-weights-float-confidence": case(_tsdf_fusion_uint8_weights, "result_cast", "f32", "uint8", grade="correct", grade_at_freeze="correct"),
    # occupancy counts by histogramdd over a bf16 point sweep
    "voxel-histogramdd-bf16-points": case(_voxel_histogram_of_bf16_sweep, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- meshes and rasterisation
    # the rasteriser's triangle ids (a float channel) used to index the faces
    "raster-float-triangle-ids-index-faces": case(_rasteriser_float_triangle_ids, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # face normals normalised straight from int16 quantized mesh positions
    "quantized-mesh-int16-face-normals": case(_quantized_mesh_face_normals, "integer_operand", "int16", grade="correct", grade_at_freeze="correct"),
    # barycentric interpolation of bf16 vertex colours with the rasteriser's fp32 weights by bmm
    "barycentric-bmm-fp32-weights-bf16-colours": case(_barycentric_colours_bmm, "batched_matmul_dtype", "f32",
                                                      "bf16", grade="correct", grade_at_freeze="correct"),
    # a uint8 texture atlas sampled with grid_sample at the rasterised UVs
    "texture-uint8-grid-sample": case(_texture_uint8_grid_sample, "integer_operand", "uint8", grade="correct", grade_at_freeze="correct"),
    # --- point clouds
    # PointNet++ farthest point sampling on bf16 points writes into its fp32 running distances
    "fps-bf16-points-fp32-distance-index-put": case(_fps_on_bf16_points, "indexed_write_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # ball query's index grid made with arange(n).to(xyz), which takes xyz's float dtype, used as gather's index
    "ball-query-arange-to-points-gather": case(_ball_query_arange_to_points, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # point normals by PCA of bf16 k-NN neighbourhoods with eigh
    "pca-normals-eigh-bf16": case(_pca_normals_eigh_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # image-based rendering: bf16 sample queries attend over fp32 source-view features from a frozen encoder
    "source-view-features-fp32-attention": case(_source_view_features_fp32_attention, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # per-view visibility from a depth test stored as uint8, passed as an attention mask
    "visibility-mask-uint8-attention": case(_visibility_mask_uint8_attention, "mask_dtype", "uint8", grade="correct", grade_at_freeze="correct"),
    # a LiDAR range image's z-buffer (fp32) reduced with index_reduce_ from bf16 depths
    "lidar-zbuffer-index-reduce-bf16": case(_lidar_range_image_zbuffer, "indexed_write_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # NeRF training skips the step on a batch with no foreground rays but still calls scaler.update()
    "scaler-update-after-empty-ray-batch": case(_scaler_update_on_empty_batch, "loss_scale", grade="correct", grade_at_freeze="correct"),
}
