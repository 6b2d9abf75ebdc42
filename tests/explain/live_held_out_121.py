"""Held-out live set 121: character animation and motion capture written by hand in low precision (BVH joint rotations
as float64 Euler angles and quaternions from numpy, int64 parent-joint index lists, forward kinematics with gather and
cumulative transforms, linear blend skinning, bool foot-contact labels, motion-matching feature databases, bf16 autocast
around motion VAEs and diffusion models). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at e376b1d."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e376b1d"

bf16, f16 = torch.bfloat16, torch.float16
_PARENTS = [-1, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 12]  # hips, left leg (4), right leg (4), spine to head (5)
_JOINTS = len(_PARENTS)
_FEET = [4, 8]  # left and right toe joints
_FPS = 30


def _seeded() -> None:
    torch.manual_seed(0)


def _bvh_euler_degrees(frames: int = 8) -> np.ndarray:
    """Euler channels (Z, X, Y) per joint as a hand-written BVH reader returns them: float64 degrees."""
    rng = np.random.default_rng(0)
    return rng.uniform(-45.0, 45.0, size=(frames, _JOINTS, 3))


def _rotation_z(angle: torch.Tensor) -> torch.Tensor:
    c, s = torch.cos(angle), torch.sin(angle)
    zero, one = torch.zeros_like(angle), torch.ones_like(angle)
    return torch.stack([c, -s, zero, s, c, zero, zero, zero, one], -1).reshape(*angle.shape, 3, 3)


def _rest_offsets() -> torch.Tensor:
    """Bone offsets (joint relative to its parent) in metres, fp32."""
    _seeded()
    return torch.randn(_JOINTS, 3) * 0.1


def _foot_contacts(frames: int = 30) -> torch.Tensor:
    """bool foot-contact labels (frames x 2) from a toe-height and toe-velocity threshold."""
    _seeded()
    toe_height = torch.rand(frames, 2) * 0.1
    toe_speed = torch.rand(frames, 2)
    return (toe_height < 0.05) & (toe_speed < 0.6)


def _bvh_f64_euler_rotations_times_fp32_offsets() -> None:
    euler = torch.from_numpy(np.deg2rad(_bvh_euler_degrees()))
    local_rotations = _rotation_z(euler[..., 0])  # Z channel only for the sketch; float64 like the BVH array
    offsets = _rest_offsets()
    local_rotations @ offsets[None, :, :, None]


def _fk_bmm_bf16_global_rotations_fp32_offsets() -> None:
    _seeded()
    frames = 4
    global_rotations = torch.randn(frames * _JOINTS, 3, 3, dtype=bf16)  # from the bf16 pose network's 6D output
    offsets = _rest_offsets().repeat(frames, 1)[..., None]
    torch.bmm(global_rotations, offsets)


def _lbs_f64_skinning_weights_einsum() -> None:
    _seeded()
    vertices = 50
    skin = np.random.default_rng(1).random((vertices, _JOINTS))
    skin /= skin.sum(1, keepdims=True)  # per-vertex weights from the exported rig's .npz, float64
    weights = torch.from_numpy(skin)
    bone_transforms = torch.randn(2, _JOINTS, 4, 4)
    torch.einsum("vj,bjxy->bvxy", weights, bone_transforms)


def _diffusion_timesteps_into_time_mlp() -> None:
    _seeded()
    time_mlp = nn.Sequential(nn.Linear(1, 64), nn.SiLU(), nn.Linear(64, 64))
    timesteps = torch.randint(0, 1000, (4,))
    time_mlp(timesteps[:, None])


def _motion_matching_cdist_f64_database() -> None:
    _seeded()
    rng = np.random.default_rng(2)
    database = torch.from_numpy(rng.normal(size=(600, 27)))  # np.load'ed feature database (float64)
    query = torch.randn(1, 27)  # current pose + future trajectory features
    torch.cdist(query, database).argmin()


def _temporal_conv_encoder_f64_channels() -> None:
    _seeded()
    channels = torch.from_numpy(np.deg2rad(_bvh_euler_degrees(32))).reshape(1, 32, -1).transpose(1, 2)
    encoder = nn.Conv1d(_JOINTS * 3, 64, kernel_size=5, padding=2)
    encoder(channels)


def _gaussian_smoothing_fp32_kernel_bf16_motion() -> None:
    _seeded()
    motion = torch.randn(1, _JOINTS * 3, 60, dtype=bf16)  # bf16 diffusion sample, channels first
    taps = torch.exp(-0.5 * (torch.arange(-3, 4) / 1.5) ** 2)
    kernel = (taps / taps.sum()).expand(_JOINTS * 3, 1, 7)
    F.conv1d(motion, kernel, padding=3, groups=_JOINTS * 3)


def _motion_vae_gru_decoder_bf16_latent() -> None:
    _seeded()
    encoder = nn.Linear(_JOINTS * 3, 32)
    decoder = nn.GRU(32, 64, batch_first=True)
    poses = torch.randn(2, 16, _JOINTS * 3)
    with torch.autocast("cpu", dtype=bf16):
        latent = encoder(poses)
    decoder(latent)


def _style_transfer_instance_norm_bf16() -> None:
    _seeded()
    content_encoder = nn.Conv1d(_JOINTS * 3, 64, 3, padding=1)
    decoder = nn.Sequential(nn.InstanceNorm1d(64, affine=True), nn.Conv1d(64, _JOINTS * 3, 3, padding=1))
    decoder.to(bf16)  # only the decoder halved to fit the style bank in memory
    content = content_encoder(torch.randn(1, _JOINTS * 3, 32))
    decoder(content)


def _motion_transformer_fp32_causal_mask() -> None:
    _seeded()
    frames = 24
    attention = nn.MultiheadAttention(64, 4, batch_first=True).to(bf16)
    poses = torch.randn(2, frames, 64, dtype=bf16)
    causal = torch.triu(torch.full((frames, frames), float("-inf")), diagonal=1)
    attention(poses, poses, poses, attn_mask=causal)


def _inbetweening_lerp_toward_fp32_keyframe() -> None:
    _seeded()
    predicted = torch.randn(10, _JOINTS, 3, dtype=bf16)  # bf16 in-betweening network output
    target_keyframe = torch.randn(_JOINTS, 3)  # the animator's keyframe, fp32
    blend = torch.linspace(0, 1, 10)[:, None, None]
    torch.lerp(predicted, target_keyframe.expand_as(predicted), blend.to(bf16))


def _autoregressive_rollout_index_copy() -> None:
    _seeded()
    model = nn.Linear(_JOINTS * 3, _JOINTS * 3)
    rollout = torch.zeros(1, 20, _JOINTS * 3)
    rollout[:, 0] = torch.randn(1, _JOINTS * 3)
    for frame in range(1, 3):
        with torch.autocast("cpu", dtype=bf16):
            next_pose = model(rollout[:, frame - 1])
        rollout.index_copy_(1, torch.tensor([frame]), next_pose[:, None])


def _pa_mpjpe_svd_bf16() -> None:
    _seeded()
    predicted = torch.randn(4, _JOINTS, 3, dtype=bf16)  # bf16 pose estimator output
    target = torch.randn(4, _JOINTS, 3).to(bf16)
    p = predicted - predicted.mean(1, keepdim=True)
    t = target - target.mean(1, keepdim=True)
    u, _, vh = torch.linalg.svd(p.transpose(1, 2) @ t)
    u @ vh


def _geodesic_loss_unclamped_acos() -> None:
    angle = torch.tensor([0.3, 1.2, 2.0])
    target = _rotation_z(angle).to(bf16)
    predicted = target.clone().requires_grad_(True)  # a frame the network already gets exactly right
    with torch.autograd.detect_anomaly():
        trace = (predicted.transpose(-1, -2) @ target).diagonal(dim1=-2, dim2=-1).sum(-1)
        torch.acos((trace - 1) / 2).mean().backward()


def _motion_matching_fp16_cost_sentinel() -> None:
    _seeded()
    cost = torch.rand(600, dtype=f16)  # feature distances kept fp16 with the fp16 database
    clip_end = torch.zeros(600, dtype=torch.bool)
    clip_end[590:] = True  # frames too close to a clip's end to play from
    cost.masked_fill(clip_end, 1e9).argmin()


def _halved_motion_vae_grad_scaler() -> None:
    _seeded()
    vae = nn.Sequential(nn.Linear(_JOINTS * 3, 32), nn.ELU(), nn.Linear(32, _JOINTS * 3)).half()
    optimizer = torch.optim.Adam(vae.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    poses = torch.randn(8, _JOINTS * 3).half()
    loss = F.mse_loss(vae(poses).float(), poses.float())
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(vae.parameters(), 1.0)


def _ik_analytic_f64_gradient_assigned() -> None:
    joint_angles = nn.Parameter(torch.zeros(_JOINTS, 3))
    jacobian = np.random.default_rng(3).normal(size=(6, _JOINTS * 3))  # analytic Jacobian from numpy (float64)
    error = np.ones(6) * 0.01
    joint_angles.grad = torch.from_numpy(-(jacobian.T @ error).reshape(_JOINTS, 3))


def _bvh_export_np_degrees_bf16() -> None:
    _seeded()
    sample = torch.randn(8, _JOINTS, 3, dtype=bf16)  # Euler radians from the bf16 diffusion sampler
    np.degrees(sample)


def _float_parents_index_select() -> None:
    parents = np.zeros(_JOINTS) - 1  # the BVH reader's parent table filled in as it walks the hierarchy
    for joint, parent in enumerate(_PARENTS):
        parents[joint] = parent
    positions = torch.randn(8, _JOINTS, 3)
    parent_positions = positions.index_select(1, torch.from_numpy(parents).clamp(min=0))
    positions - parent_positions


def _vq_motion_tokens_int16_codebook() -> None:
    _seeded()
    codebook = torch.randn(512, 64)
    tokens = torch.from_numpy(np.array([[17, 301, 5, 88, 88, 411]], dtype=np.int16))  # T2M-GPT tokens cached as int16
    codebook[tokens]


def _bool_contacts_linear_resample() -> None:
    contacts = _foot_contacts().T[None]  # (1, 2, frames) at 30 fps
    F.interpolate(contacts, scale_factor=2, mode="linear", align_corners=False)  # to 60 fps with the motion


def _invert_float_contacts_swing_phase() -> None:
    contacts = _foot_contacts().float()  # labels saved to the .npz as float32
    swing = ~contacts
    swing.sum(0)


def _double_support_fp16_contacts() -> None:
    contacts = _foot_contacts().to(f16)  # stored with the fp16 feature database
    double_support = contacts[:, 0] & contacts[:, 1]
    double_support.sum()


def _skeleton_adjacency_index_put_bool() -> None:
    parents = torch.tensor(_PARENTS)
    children = torch.arange(1, _JOINTS)
    adjacency = torch.eye(_JOINTS)
    adjacency.index_put_((children, parents[1:]), torch.ones(_JOINTS - 1, dtype=torch.bool))
    adjacency.index_put_((parents[1:], children), torch.ones(_JOINTS - 1, dtype=torch.bool))


def _jitter_int16_millimetre_positions() -> None:
    _seeded()
    positions_mm = torch.from_numpy(np.zeros((8, _JOINTS, 3), dtype=np.int16))  # compressed capture, millimetres
    positions_mm + 5 * torch.randn_like(positions_mm)


def _integer_tpose_offsets_bone_lengths() -> None:
    offsets = torch.tensor([[0, 0, 0]] + [[0, -40, 0]] * 4 + [[0, -40, 0]] * 4 + [[0, 15, 0]] * 5)  # rig sheet, cm
    offsets.norm(dim=-1)


def _int16_database_normalised_in_place() -> None:
    _seeded()
    database = torch.randint(-2000, 2000, (600, 27), dtype=torch.int16)  # quantised feature database
    mean = database.float().mean(0)
    std = database.float().std(0)
    database.sub_(mean).div_(std)


def _bool_contacts_median_filter() -> torch.Tensor:
    contacts = _foot_contacts()
    windows = F.pad(contacts.T[None].float(), (2, 2), mode="replicate")[0].bool().unfold(-1, 5, 1)
    return windows.median(-1).values


def _uint8_contact_target_bce_logits() -> None:
    _seeded()
    logits = torch.randn(30, 2)  # contact head of the character controller
    labels = torch.from_numpy(np.random.default_rng(4).integers(0, 2, (30, 2), dtype=np.uint8))
    F.binary_cross_entropy_with_logits(logits, labels)


def _foot_height_quantile_bf16() -> torch.Tensor:
    _seeded()
    toe_heights = torch.rand(300, 2, dtype=bf16) * 0.2  # from the bf16 FK of a generated clip
    floor = torch.quantile(toe_heights, 0.05, dim=0)
    return toe_heights < floor + 0.02


CASES: dict[str, LiveCase] = {
    # FK: local rotations from the BVH reader's float64 Euler angles matmul'd with fp32 bone offsets
    "bvh-f64-euler-rotmats-matmul-fp32-offsets": case(_bvh_f64_euler_rotations_times_fp32_offsets, "matmul_dtype",
                                                      "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # FK: bf16 predicted global rotations applied to fp32 bone offsets with torch.bmm
    "fk-bmm-bf16-global-rotations-fp32-offsets": case(_fk_bmm_bf16_global_rotations_fp32_offsets,
                                                      "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # linear blend skinning: float64 skinning weights from the rig's .npz einsum'd with fp32 bone transforms
    "lbs-f64-skinning-weights-einsum": case(_lbs_f64_skinning_weights_einsum, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # motion diffusion: int64 diffusion timesteps fed to the time-embedding MLP without .float()
    "diffusion-timesteps-int64-time-mlp": case(_diffusion_timesteps_into_time_mlp, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # motion matching: fp32 query against a float64 np.load'ed feature database with torch.cdist
    "motion-matching-cdist-f64-database": case(_motion_matching_cdist_f64_database, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a temporal Conv1d motion encoder (fp32, with bias) fed the float64 BVH channels
    "temporal-conv-encoder-f64-bvh-channels": case(_temporal_conv_encoder_f64_channels, "conv_weight_dtype", "f64",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # Gaussian smoothing of a bf16 generated motion with a depthwise conv1d kernel built in fp32
    "gaussian-smoothing-fp32-kernel-bf16-motion": case(_gaussian_smoothing_fp32_kernel_bf16_motion,
                                                       "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # motion VAE: the encoder under bf16 autocast, its bf16 latent fed to the fp32 GRU decoder outside autocast
    "motion-vae-gru-decoder-bf16-latent": case(_motion_vae_gru_decoder_bf16_latent, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # motion style transfer: the decoder (InstanceNorm first) cast to bf16, fed the fp32 content code
    "style-transfer-instance-norm-bf16-decoder": case(_style_transfer_instance_norm_bf16, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # autoregressive motion transformer in bf16 given a causal mask built with torch.full(-inf) (fp32)
    "motion-transformer-fp32-causal-mask": case(_motion_transformer_fp32_causal_mask, "attn_mask_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # in-betweening: bf16 predicted frames lerped toward the animator's fp32 keyframe
    "inbetweening-lerp-fp32-keyframe": case(_inbetweening_lerp_toward_fp32_keyframe, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # autoregressive rollout: each bf16 autocast prediction index_copy_'ed into the fp32 motion buffer
    "rollout-autocast-index-copy-fp32-buffer": case(_autoregressive_rollout_index_copy, "indexed_write_dtype", "f32",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PA-MPJPE: Procrustes alignment by SVD of the bf16 pose estimator's joints
    "pa-mpjpe-procrustes-svd-bf16": case(_pa_mpjpe_svd_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # geodesic rotation loss with acos unclamped: a perfect frame gives trace 3, NaN gradients under anomaly mode
    "geodesic-loss-unclamped-acos-nan": case(_geodesic_loss_unclamped_acos, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # motion matching: clip-end frames excluded with a 1e9 cost in the fp16 cost vector
    "motion-matching-fp16-cost-1e9-sentinel": case(_motion_matching_fp16_cost_sentinel, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a motion VAE halved with .half() and trained with GradScaler, unscaled before clipping
    "halved-motion-vae-grad-scaler-unscale": case(_halved_motion_vae_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # IK by Jacobian transpose: the numpy (float64) gradient assigned to the fp32 joint angles' .grad
    "ik-jacobian-f64-gradient-assigned": case(_ik_analytic_f64_gradient_assigned, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # BVH export: np.degrees applied to the bf16 sampler's Euler radians
    "bvh-export-np-degrees-bf16": case(_bvh_export_np_degrees_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the BVH reader's parent table built with np.zeros(J) - 1 (float64), used with index_select
    "float-parent-table-index-select": case(_float_parents_index_select, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # T2M-GPT-style motion tokens cached as int16, used to index the VQ codebook
    "vq-motion-tokens-int16-codebook-index": case(_vq_motion_tokens_int16_codebook, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bool foot contacts resampled from 30 to 60 fps with linear interpolation along with the motion
    "bool-contacts-linear-resample": case(_bool_contacts_linear_resample, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # swing phase as ~contacts on contact labels saved as float32
    "swing-phase-invert-float-contacts": case(_invert_float_contacts_swing_phase, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # double support as left & right on contact labels stored fp16 with the feature database
    "double-support-fp16-contacts-and": case(_double_support_fp16_contacts, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # skeleton adjacency from the int64 parent list: bool ones index_put_ into a float adjacency
    "skeleton-adjacency-index-put-bool": case(_skeleton_adjacency_index_put_bool, "indexed_write_dtype", "f32",
                                              "bool",
        grade="correct", grade_at_freeze="correct"),
    # positional jitter augmentation with randn_like on int16 millimetre joint positions
    "jitter-randn-like-int16-positions": case(_jitter_int16_millimetre_positions, "no_kernel", "int16",
        grade="correct", grade_at_freeze="correct"),
    # retargeting: bone lengths as norm of integer T-pose offsets typed from the rig sheet (int64)
    "integer-tpose-offsets-bone-length-norm": case(_integer_tpose_offsets_bone_lengths, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a quantised int16 motion-matching database standardised in place with sub_/div_
    "int16-feature-database-normalised-in-place": case(_int16_database_normalised_in_place, "result_cast", "f32",
                                                       "int16",
        grade="correct", grade_at_freeze="correct"),
    # foot contacts cleaned by a 5-frame median filter over the bool labels
    "bool-contacts-median-filter": case(_bool_contacts_median_filter, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # contact head trained with BCE-with-logits against uint8 contact labels from numpy
    "uint8-contact-target-bce-logits": case(_uint8_contact_target_bce_logits, "target_dtype", "f32", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # contact labelling: the floor height as a quantile of bf16 toe heights
    "foot-height-quantile-bf16": case(_foot_height_quantile_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
}
