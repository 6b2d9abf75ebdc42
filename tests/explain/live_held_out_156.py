"""Held-out live set 156: 3-D medical image registration written by hand in low precision (float64 NIfTI volumes as
nibabel's get_fdata returns them, uint8 segmentation labels, fp16 displacement fields, grid_sample spatial transformers,
bf16 U-Nets and attention registration networks, affine and landmark initialisation, Jacobian determinant regularisers,
Dice and surface-distance evaluation). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at 0f754d66."""

from __future__ import annotations

import numpy as np
import scipy.ndimage
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "0f754d66"

bf16, f16 = torch.bfloat16, torch.float16
_SHAPE = (16, 16, 16)  # a cropped, downsampled brain MR volume (D, H, W)
_LABELS = 5  # background plus four structures of a small aseg-style label map


def _seeded() -> None:
    torch.manual_seed(0)


def _get_fdata(seed: int = 0) -> np.ndarray:
    """A T1 volume as nibabel's ``img.get_fdata()`` returns it: float64, raw scanner intensities."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.0, 1200.0, size=_SHAPE)


def _label_map(shift: int = 0) -> torch.Tensor:
    """An aseg-style segmentation as ``np.asanyarray(img.dataobj)`` gives it: uint8 label ids."""
    labels = torch.zeros(_SHAPE, dtype=torch.uint8)
    labels[4 + shift:12 + shift, 4:12, 4:12] = 1
    labels[6 + shift:10 + shift, 6:10, 2:6] = 2
    labels[6 + shift:10 + shift, 6:10, 10:14] = 3
    labels[2:5, 5:11, 5:11] = 4
    return labels


def _identity_grid() -> torch.Tensor:
    return F.affine_grid(torch.eye(3, 4)[None], (1, 1, *_SHAPE), align_corners=True)


def _flow_f16() -> torch.Tensor:
    """A small displacement field (in normalised coordinates) as a .half() registration network predicts it."""
    _seeded()
    return (torch.randn(1, *_SHAPE, 3) * 0.02).half()


def _nifti_f64_pair_into_conv3d_unet() -> None:
    _seeded()
    fixed, moving = _get_fdata(0), _get_fdata(1)
    pair = torch.from_numpy(np.stack([fixed, moving])[None])  # float64 from get_fdata, never cast
    encoder = nn.Conv3d(2, 8, 3, padding=1)
    encoder(pair)


def _label_driven_uint8_pair_into_conv3d() -> None:
    _seeded()
    pair = torch.stack([_label_map(0), _label_map(2)])[None]  # label-driven registration: the label maps as input
    encoder = nn.Conv3d(2, 8, 3, padding=1)
    encoder(pair)


def _flow_head_reinitialised_after_bf16_cast() -> None:
    _seeded()
    decoder_features = torch.randn(1, 8, *_SHAPE, dtype=bf16)
    flow_head = nn.Conv3d(8, 3, 3, padding=1).to(bf16)  # the whole model was cast with .to(torch.bfloat16)
    # VoxelMorph's small-displacement initialisation, run after the cast
    flow_head.weight = nn.Parameter(torch.distributions.Normal(0, 1e-5).sample(flow_head.weight.shape))
    flow_head.bias = nn.Parameter(torch.zeros(flow_head.bias.shape))
    flow_head(decoder_features)


def _instance_norm_bf16_on_fp32_skip_features() -> None:
    _seeded()
    block_norm = nn.InstanceNorm3d(8, affine=True).to(bf16)
    upsampled = torch.randn(1, 4, *_SHAPE, dtype=bf16)
    skip = torch.randn(1, 4, *_SHAPE)  # encoder skip kept in fp32 for a "precise" decoder
    block_norm(torch.cat([upsampled, skip], dim=1))


def _half_voxelmorph_grad_scaler() -> None:
    _seeded()
    model = nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv3d(4, 3, 3, padding=1)).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    pair = torch.rand(1, 2, 8, 8, 8).half()
    flow = model(pair)
    loss = flow.float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)


def _hypermorph_numpy_lambda_into_hypernetwork() -> None:
    _seeded()
    hypernet = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 32))
    reg_weight = torch.from_numpy(np.random.default_rng(0).uniform(0.0, 1.0, size=(2, 1)))  # lambda per pair
    hypernet(reg_weight)


def _transmorph_numpy_relative_bias_sdpa() -> None:
    _seeded()
    window = 8  # a 2x2x2 window of tokens
    coords = np.stack(np.meshgrid(np.arange(2), np.arange(2), np.arange(2), indexing="ij")).reshape(3, -1)
    rel = np.abs(coords[:, :, None] - coords[:, None, :]).sum(0)  # Manhattan distance between tokens
    bias = torch.from_numpy(-0.5 * rel)  # float64
    q = torch.randn(4, 2, window, 16, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=bias)


def _xmorpher_cross_attention_fp32_fixed_branch() -> None:
    _seeded()
    moving_tokens = torch.randn(1, 2, 8, 16, dtype=bf16)  # moving branch under the bf16 cast
    fixed_tokens = torch.randn(1, 2, 8, 16)  # fixed branch built as a separate fp32 module
    F.scaled_dot_product_attention(moving_tokens, fixed_tokens, fixed_tokens)


def _spatial_transformer_fp16_grid_fp32_moving() -> None:
    moving = torch.from_numpy(_get_fdata(1)).float()[None, None] / 1200.0
    grid = _identity_grid().half() + _flow_f16()  # sampling grid built in the flow's fp16
    F.grid_sample(moving, grid, mode="bilinear", padding_mode="border", align_corners=True)


def _voxel_grid_int64_normalised_in_place() -> None:
    vectors = [torch.arange(0, s) for s in _SHAPE]
    grid = torch.stack(torch.meshgrid(vectors, indexing="ij"))  # int64: arange without .float()
    sizes = torch.tensor(_SHAPE).view(3, 1, 1, 1)
    grid.div_(sizes - 1).mul_(2).sub_(1)


def _fp16_image_pyramid_avg_pool3d() -> None:
    fixed = (torch.from_numpy(_get_fdata(0))[None, None] / 1200.0).half()
    levels = [fixed]
    for _ in range(2):
        levels.append(F.avg_pool3d(levels[-1], 2))


def _uint8_segmentation_warped_nearest() -> None:
    moving_seg = _label_map(2)[None, None]
    grid = _identity_grid() + _flow_f16().float()
    F.grid_sample(moving_seg, grid, mode="nearest", align_corners=True)


def _bspline_ffd_conv_transpose_fp32_kernel() -> None:
    _seeded()
    control_points = torch.randn(1, 3, 4, 4, 4, dtype=bf16)  # displacements at control points from the bf16 net
    b = torch.tensor([1.0, 4.0, 1.0]) / 6.0  # cubic B-spline weights at integer offsets
    kernel_1d = torch.tensor([b[0] / 4, b[0] / 2, (b[0] + b[1]) / 2, b[1], (b[1] + b[2]) / 2, b[2] / 2, b[2] / 4])
    kernel = torch.einsum("i,j,k->ijk", kernel_1d, kernel_1d, kernel_1d)
    weight = kernel.expand(3, 1, 7, 7, 7).contiguous()
    F.conv_transpose3d(control_points, weight, stride=4, padding=3, groups=3)


def _nifti_affine_voxel_to_world_matmul() -> None:
    affine = np.diag([1.2, 1.0, 1.0, 1.0])  # img.affine: float64
    affine[:3, 3] = [-90.0, -126.0, -72.0]
    landmarks_vox = torch.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    homogeneous = torch.cat([landmarks_vox, torch.ones(2, 1)], dim=1).T
    torch.from_numpy(affine) @ homogeneous


def _affine_compose_bmm_bf16_theta_com_init() -> None:
    _seeded()
    batch = 2
    theta = (torch.eye(4)[None] + 0.01 * torch.randn(batch, 4, 4)).to(bf16)  # from the bf16 affine network
    com_init = torch.eye(4).repeat(batch, 1, 1)  # centre-of-mass translation, built in fp32
    com_init[:, :3, 3] = torch.tensor([[0.05, -0.02, 0.1], [0.0, 0.03, -0.04]])
    torch.bmm(theta, com_init)


def _inverse_consistent_affine_inv_bf16() -> None:
    _seeded()
    theta = (torch.eye(4)[None] + 0.01 * torch.randn(2, 4, 4)).to(bf16)
    theta_inverse = torch.linalg.inv(theta)  # backward transform for the inverse-consistency loss
    torch.bmm(theta, theta_inverse)


def _thin_plate_spline_numpy_kernel_solve() -> None:
    rng = np.random.default_rng(0)
    fixed_lm = rng.uniform(0, 16, size=(6, 3))
    r = np.linalg.norm(fixed_lm[:, None] - fixed_lm[None], axis=-1)
    kernel = torch.from_numpy(r + 1e-3 * np.eye(6))  # 3-D TPS kernel U(r) = r, float64
    _seeded()
    displacement = torch.randn(6, 3)  # moving minus fixed landmarks from the fp32 keypoint head
    torch.linalg.solve(kernel, displacement)


def _jacobian_determinant_levi_civita_einsum() -> None:
    flow = _flow_f16().to(bf16)[0]  # (D, H, W, 3), from the bf16 network
    grads = torch.gradient(flow, dim=(0, 1, 2))
    jac = torch.stack(grads, dim=-1)  # d u_i / d x_j
    jac = jac + torch.eye(3, dtype=bf16)
    eps = torch.zeros(3, 3, 3)  # Levi-Civita symbol, default dtype
    for i, j, k in [(0, 1, 2), (1, 2, 0), (2, 0, 1)]:
        eps[i, j, k], eps[i, k, j] = 1.0, -1.0
    torch.einsum("ijk,...i,...j,...k->...", eps, jac[..., 0, :], jac[..., 1, :], jac[..., 2, :])


def _folding_fraction_bool_mean() -> None:
    flow = _flow_f16().float()[0] * 40.0
    grads = torch.gradient(flow, dim=(0, 1, 2))
    jac = torch.stack(grads, dim=-1) + torch.eye(3)
    folding = torch.linalg.det(jac) <= 0
    folding.mean()


def _aparc_label_ids_uint8() -> None:
    # cortical parcels of aparc+aseg to score with Dice, typed like the uint8 segmentation
    structures = torch.tensor([2, 41, 17, 53, 1035, 2035], dtype=torch.uint8)
    (_label_map()[..., None] == structures).sum()


def _global_ncc_fp16_raw_intensities() -> None:
    fixed = torch.from_numpy(_get_fdata(0)).half()  # raw MR units, never normalised
    moving = torch.from_numpy(_get_fdata(1)).half().requires_grad_()
    with torch.autograd.detect_anomaly():
        cross = (fixed * moving).sum()
        ncc = cross * cross / ((fixed * fixed).sum() * (moving * moving).sum() + 1e-5)
        (1 - ncc).backward()


def _surface_erosion_by_negated_bool_max_pool() -> None:
    mask = (_label_map() == 1)[None, None]
    eroded = -F.max_pool3d(-mask, 3, stride=1, padding=1)  # min-pool erosion for HD95 surfaces
    mask & ~eroded


def _warped_atlas_float_labels_cross_entropy() -> None:
    _seeded()
    atlas = _label_map(2)[None, None].float()
    grid = _identity_grid() + _flow_f16().float()
    warped_atlas = F.grid_sample(atlas, grid, mode="nearest", align_corners=True)[:, 0]  # float label ids
    logits = torch.randn(1, _LABELS, *_SHAPE, requires_grad=True)
    F.cross_entropy(logits, warped_atlas)


def _landmark_tre_float_voxel_coordinates() -> None:
    flow = _flow_f16().float()[0]
    landmarks = torch.from_numpy(np.array([[3.0, 7.0, 9.0], [10.0, 4.0, 12.0]]))  # DIR-Lab points from the txt
    flow[landmarks[:, 0], landmarks[:, 1], landmarks[:, 2]]


def _per_structure_dice_index_put_bf16() -> None:
    _seeded()
    probs = torch.rand(1, _LABELS, *_SHAPE, dtype=bf16)  # warped one-hot from the bf16 pipeline
    target = F.one_hot(_label_map().long(), _LABELS).permute(3, 0, 1, 2)[None]
    dice = 2 * (probs * target).sum((0, 2, 3, 4)) / (probs.sum((0, 2, 3, 4)) + target.sum((0, 2, 3, 4)))
    table = torch.zeros(_LABELS)
    present = torch.arange(1, _LABELS)
    table[present] = dice[1:]


def _hard_dice_and_on_fp16_warped_mask() -> None:
    fixed_mask = _label_map(0) == 1
    moving_mask = (_label_map(2) == 1).half()[None, None]
    grid = _identity_grid().half() + _flow_f16()
    warped_mask = F.grid_sample(moving_mask, grid, mode="nearest", align_corners=True)[0, 0]
    overlap = (warped_mask & fixed_mask).sum()
    2 * overlap / (warped_mask.sum() + fixed_mask.sum())


def _background_mask_inverted_on_fp16_warp() -> None:
    moving_brain = (_label_map(2) > 0).half()[None, None]
    grid = _identity_grid().half() + _flow_f16()
    warped_brain = F.grid_sample(moving_brain, grid, mode="nearest", align_corners=True)
    background = ~warped_brain
    background.sum()


def _aseg_remap_lookup_uint8() -> None:
    lut = torch.zeros(256, dtype=torch.long)  # aseg ids to 3 tissue classes
    lut[[1, 2]] = 1
    lut[[3]] = 2
    lut[[4]] = 3
    lut[_label_map()]


def _bf16_warped_mask_scipy_distance_transform() -> None:
    warped = (_label_map(1) == 1).to(bf16)  # argmax of the bf16 warped one-hot, compared and kept bf16
    scipy.ndimage.distance_transform_edt(1 - warped)


def _demons_update_lerp_fp32_into_bf16_flow() -> None:
    _seeded()
    flow = torch.randn(1, 3, *_SHAPE, dtype=bf16) * 0.5  # network initialisation
    fixed = torch.from_numpy(_get_fdata(0)).float()[None, None] / 1200.0
    moving = torch.from_numpy(_get_fdata(1)).float()[None, None] / 1200.0
    diff = moving - fixed
    grad_fixed = torch.stack(torch.gradient(fixed[0, 0]), dim=0)[None]
    update = -diff * grad_fixed / (grad_fixed.pow(2).sum(1, keepdim=True) + diff.pow(2) + 1e-6)
    flow.lerp_(flow + update, 0.5)


CASES: dict[str, LiveCase] = {
    # --- volumes, label maps and the registration U-Net
    # fixed and moving T1 volumes from nibabel's get_fdata (float64) stacked into the fp32 Conv3d encoder
    "nifti-get-fdata-f64-pair-conv3d": case(_nifti_f64_pair_into_conv3d_unet, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # label-driven registration: the uint8 fixed and moving label maps fed straight to the fp32 Conv3d encoder
    "label-driven-uint8-label-pair-conv3d": case(_label_driven_uint8_pair_into_conv3d, "integer_operand", "uint8",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # VoxelMorph's Normal(0, 1e-5) flow-head initialisation run after the model was cast to bf16
    "voxelmorph-flow-head-reinit-after-bf16-cast": case(_flow_head_reinitialised_after_bf16_cast,
                                                        "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 InstanceNorm3d given bf16 upsampled features concatenated with an fp32 encoder skip
    "instance-norm3d-bf16-fp32-skip-concat": case(_instance_norm_bf16_on_fp32_skip_features, "norm_param_dtype",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # a .half() VoxelMorph trained with GradScaler, unscale_ of its fp16 gradients
    "half-voxelmorph-grad-scaler-unscale": case(_half_voxelmorph_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # HyperMorph: the regularisation weight drawn with numpy (float64) into the fp32 hypernetwork
    "hypermorph-numpy-f64-lambda-hypernet": case(_hypermorph_numpy_lambda_into_hypernetwork, "matmul_dtype", "f64",
                                                 "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- attention registration networks
    # TransMorph-style window attention: a relative-distance bias built in numpy (float64) as SDPA's bf16 attn_mask
    "transmorph-numpy-f64-window-bias-sdpa": case(_transmorph_numpy_relative_bias_sdpa, "attn_mask_dtype", "f64",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # XMorpher-style cross attention: bf16 moving queries over keys and values of an fp32 fixed branch
    "xmorpher-cross-attention-fp32-fixed-branch": case(_xmorpher_cross_attention_fp32_fixed_branch, "sdpa_dtype",
                                                       "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- spatial transformers and resampling
    # the sampling grid built in the fp16 flow's dtype, grid_sample of the fp32 moving volume
    "spatial-transformer-fp16-grid-fp32-moving": case(_spatial_transformer_fp16_grid_fp32_moving, "op_dtype",
                                                      "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the identity grid from meshgrid of aranges (int64) normalised to [-1, 1] in place
    "identity-grid-int64-normalised-in-place": case(_voxel_grid_int64_normalised_in_place, "result_cast", "f32",
                                                    "int64",
        grade="correct", grade_at_freeze="correct"),
    # a multi-resolution image pyramid of fp16 volumes with avg_pool3d
    "fp16-image-pyramid-avg-pool3d": case(_fp16_image_pyramid_avg_pool3d, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the moving uint8 segmentation warped with nearest grid_sample for Dice evaluation
    "moving-seg-uint8-grid-sample-nearest": case(_uint8_segmentation_warped_nearest, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # B-spline FFD: bf16 control-point displacements upsampled by conv_transpose3d with an fp32 B-spline kernel
    "bspline-ffd-conv-transpose3d-fp32-kernel": case(_bspline_ffd_conv_transpose_fp32_kernel, "conv_weight_dtype",
                                                     "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- affine and landmark initialisation
    # landmarks mapped voxel to world by the NIfTI header's float64 affine @ fp32 homogeneous coordinates
    "nifti-affine-f64-voxel-to-world-matmul": case(_nifti_affine_voxel_to_world_matmul, "matmul_dtype", "f64",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 affine network's matrices composed by bmm with fp32 centre-of-mass initialisations
    "affine-compose-bmm-bf16-theta-fp32-com": case(_affine_compose_bmm_bf16_theta_com_init,
                                                   "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # inverse-consistent affine registration: linalg.inv of the bf16 predicted matrices
    "inverse-consistent-affine-inv-bf16": case(_inverse_consistent_affine_inv_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # thin-plate spline initialisation: a numpy (float64) kernel matrix solved against fp32 landmark displacements
    "tps-numpy-f64-kernel-solve-fp32-displacements": case(_thin_plate_spline_numpy_kernel_solve, "op_dtype", "f64",
                                                          "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- Jacobian regularisers and similarity
    # the Jacobian determinant of a bf16 flow by einsum with an fp32 Levi-Civita tensor
    "jacobian-det-levi-civita-einsum-fp32-eps": case(_jacobian_determinant_levi_civita_einsum, "matmul_dtype",
                                                     "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the fraction of folding voxels as the mean of the bool det <= 0 map
    "folding-fraction-bool-jacobian-mean": case(_folding_fraction_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # global NCC on fp16 volumes in raw MR units: the sums overflow to inf, anomaly mode catches NaN in backward
    "global-ncc-fp16-raw-intensity-anomaly": case(_global_ncc_fp16_raw_intensities, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # --- segmentation evaluation
    # the aparc+aseg structure ids to score (1035, 2035) made uint8 like the segmentation
    "aparc-structure-ids-uint8-overflow": case(_aparc_label_ids_uint8, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # HD95 surfaces: erosion written as -max_pool3d(-mask) on the bool structure mask
    "hd95-erosion-negated-bool-max-pool3d": case(_surface_erosion_by_negated_bool_max_pool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # atlas-based supervision: the atlas warped as float by nearest grid_sample, given to cross_entropy as is
    "warped-atlas-float-labels-cross-entropy": case(_warped_atlas_float_labels_cross_entropy, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DIR-Lab landmark TRE: the flow read at float64 voxel coordinates from the landmark txt
    "landmark-tre-flow-at-float-voxel-coords": case(_landmark_tre_float_voxel_coordinates, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # per-structure Dice of the bf16 pipeline written into an fp32 results table by index assignment
    "per-structure-dice-bf16-into-fp32-table": case(_per_structure_dice_index_put_bf16, "indexed_write_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hard Dice with & between the fp16 warped mask and the bool fixed mask
    "hard-dice-and-fp16-warped-mask": case(_hard_dice_and_on_fp16_warped_mask, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the background of the fp16 warped brain mask taken with ~
    "background-invert-fp16-warped-brain-mask": case(_background_mask_inverted_on_fp16_warp, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # aseg ids remapped to tissue classes through a lookup table indexed by the uint8 label map
    "aseg-tissue-lookup-uint8-label-index": case(_aseg_remap_lookup_uint8, "index_tensor_dtype",
        grade="not_recognised", grade_at_freeze="not_recognised",
        why=("At freeze (0f754d66) castwise gave nothing. The label map is uint8, and torch takes a uint8 tensor "
             "used as an index as a legacy byte mask, so the 16x16x16 label map is read as a mask over three "
             "dimensions of the 1-D lookup table; torch's message (too many indices for tensor of dimension 1) names "
             "no dtype and reads like a shape error, and the rules recognise nothing in it. The fix is .long() on "
             "the label map before the lookup.")),
    # a bf16 warped mask handed to scipy's distance_transform_edt for surface distances
    "bf16-warped-mask-scipy-distance-transform": case(_bf16_warped_mask_scipy_distance_transform, "numpy_dtype",
                                                      "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- instance optimisation
    # demons-style refinement: the bf16 network flow lerp_'ed toward an update computed in fp32
    "demons-refinement-lerp-fp32-update-bf16-flow": case(_demons_update_lerp_fp32_into_bf16_flow, "lerp_dtype",
                                                         "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
