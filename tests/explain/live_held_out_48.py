"""Held-out live set 48: robot learning and embodied AI by hand in low precision (diffusion and action-chunking
policies, vision-language-action models, action tokenization, normalisation statistics, replay buffers, simulator
observations, value heads, rotations, inverse kinematics and differentiable physics). Defects planted by a helper
who never read the rules, written before castwise ran and graded once with the rules frozen at 1c4be99."""

from __future__ import annotations

import json
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "1c4be99"

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32
ACTION_DIM, CHUNK, BINS = 7, 8, 256


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


# --- diffusion policies and action chunking


def _diffusion_schedule_from_numpy() -> None:
    betas = np.linspace(1e-4, 0.02, 100)  # the DDPM schedule built with numpy: float64
    alphas_cumprod = torch.from_numpy(np.cumprod(1.0 - betas))
    denoiser = nn.Sequential(nn.Linear(ACTION_DIM + 1, 64), nn.Mish(), nn.Linear(64, ACTION_DIM)).to(bf16)
    actions = torch.randn(4, ACTION_DIM, generator=_gen()).to(bf16)
    t = torch.randint(0, 100, (4,), generator=_gen())
    noise = torch.randn(actions.shape, generator=_gen()).to(bf16)
    a_bar = alphas_cumprod[t][:, None]
    noisy = a_bar.sqrt() * actions + (1 - a_bar).sqrt() * noise
    denoiser(torch.cat([noisy, (t[:, None] / 100).to(noisy.dtype)], dim=-1))


def _diffusion_policy_sampling_starts_fp32() -> None:
    unet = nn.Sequential(nn.Conv1d(ACTION_DIM, 32, 5, padding=2), nn.GroupNorm(8, 32), nn.Mish(),
                         nn.Conv1d(32, ACTION_DIM, 5, padding=2)).to(bf16)
    naction = torch.randn((2, ACTION_DIM, 16), generator=_gen())  # the reverse process starts from fp32 noise
    with torch.no_grad():
        unet(naction)


def _act_temporal_ensembling_buffer() -> None:
    max_steps = 20
    all_time_actions = torch.zeros(max_steps, max_steps + CHUNK, ACTION_DIM)  # fp32 buffer, as ACT's eval loop
    policy = nn.Linear(14, CHUNK * ACTION_DIM).to(bf16)
    t = 3
    all_actions = policy(torch.randn(1, 14, generator=_gen()).to(bf16)).reshape(1, CHUNK, ACTION_DIM)
    all_time_actions[[t], t:t + CHUNK] = all_actions


def _act_decoder_causal_mask_fp32() -> None:
    decoder_attn = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    queries = torch.randn(2, CHUNK, 32, generator=_gen()).to(bf16)
    causal = torch.triu(torch.full((CHUNK, CHUNK), float("-inf")), diagonal=1)
    decoder_attn(queries, queries, queries, attn_mask=causal)


def _film_conv_bias_from_fp32_generator() -> None:
    conv_weight = torch.randn(16, 3, 3, 3, generator=_gen()).to(bf16)
    film = nn.Linear(32, 16)  # the language-conditioned FiLM generator left fp32 ("small, keep it precise")
    lang = torch.randn(1, 32, generator=_gen())
    image = torch.rand(1, 3, 24, 24, generator=_gen()).to(bf16)
    F.conv2d(image, conv_weight, bias=film(lang)[0], padding=1)


# --- vision-language-action models


def _vla_proprio_projector_left_fp32() -> None:
    dim = 32
    block = nn.TransformerEncoderLayer(dim, 4, 64, batch_first=True, norm_first=True).to(bf16)
    patch_tokens = torch.randn(1, 9, dim, generator=_gen()).to(bf16)
    lang_tokens = nn.Embedding(100, dim).to(bf16)(torch.tensor([[5, 17, 3]]))
    proprio_proj = nn.Linear(8, dim)  # added after the model was cast
    proprio = torch.randn(1, 8, generator=_gen())
    tokens = torch.cat([patch_tokens, lang_tokens, proprio_proj(proprio)[:, None]], dim=1)
    block(tokens)


def _vla_action_queries_attend_fp32_language() -> None:
    heads, dim = 4, 8
    action_queries = torch.randn(1, heads, CHUNK, dim, generator=_gen()).to(bf16)
    text_encoder = nn.Linear(16, heads * dim)  # frozen T5-like text encoder kept fp32
    lang = text_encoder(torch.randn(1, 6, 16, generator=_gen())).reshape(1, 6, heads, dim).transpose(1, 2)
    F.scaled_dot_product_attention(action_queries, lang, lang)


# --- action tokenization and de-tokenization


def _action_bins_floored_in_bf16() -> None:
    vocab_offset = 32
    embed = nn.Embedding(vocab_offset + BINS, 16).to(bf16)
    actions = (torch.rand(2, ACTION_DIM, generator=_gen()) * 2 - 1).to(bf16)
    tokens = torch.floor((actions.clamp(-1, 1) + 1) / 2 * (BINS - 1)) + vocab_offset
    embed(tokens)


def _action_detokenize_uint8_codes() -> None:
    bin_centers = torch.linspace(-1, 1, BINS)
    codes = torch.randint(0, BINS, (4, ACTION_DIM), generator=_gen()).to(torch.uint8)  # stored as uint8 on disk
    bin_centers[codes]


def _action_bin_targets_rounded() -> None:
    logits = torch.randn(4 * ACTION_DIM, BINS, generator=_gen())
    actions = torch.rand(4 * ACTION_DIM, generator=_gen()) * 2 - 1
    targets = ((actions + 1) / 2 * (BINS - 1)).round()
    F.cross_entropy(logits, targets)


# --- normalisation statistics, simulator observations and replay buffers


def _reset_pose_from_json_ints() -> None:
    log = json.loads('{"qpos": [[0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0]]}')  # reset poses written as ints
    proprio_encoder = nn.Linear(ACTION_DIM, 16)
    proprio_encoder(torch.tensor(log["qpos"]))


def _encoder_ticks_to_radians_in_place() -> None:
    ticks = torch.from_numpy(np.array([[1024, 2048, 3000], [10, 4095, 512]], dtype=np.int64))
    ticks.sub_(2048).mul_(2 * math.pi / 4096)


def _contact_flags_uint8_masked_fill() -> None:
    forces = torch.randn(4, 6, generator=_gen()).to(bf16)
    contacts = torch.from_numpy(np.array([1, 0, 0, 1], dtype=np.uint8))  # the simulator's contact flags
    forces.masked_fill(contacts[:, None], 0.0)


def _contact_bitfield_uint16_shift() -> None:
    bitfield = torch.from_numpy(np.array([0b1011, 0b0001, 0b1111], dtype=np.uint16))  # one bit per finger pad
    torch.stack([(bitfield >> k) & 1 for k in range(4)], dim=-1)


def _gripper_closed_bool_target() -> None:
    gripper_logit = torch.randn(4, generator=_gen())
    gripper_closed = torch.tensor([True, False, True, True])  # the simulator's bool gripper state
    F.binary_cross_entropy_with_logits(gripper_logit, gripper_closed)


def _td_target_one_minus_terminated() -> None:
    reward = torch.rand(4, generator=_gen())
    next_q = torch.randn(4, generator=_gen()).to(bf16)
    terminated = torch.tensor([False, False, True, False])  # gymnasium's bool terminated flags
    reward + 0.99 * (1 - terminated) * next_q


def _replay_observations_fp8_plus_noise() -> None:
    obs_store = torch.randn(100, 12, generator=_gen()).to(torch.float8_e4m3fn)  # fp8 replay storage to save memory
    idx = torch.randint(0, 100, (8,), generator=_gen())
    noise = (0.01 * torch.randn(8, 12, generator=_gen())).to(bf16)
    obs_store[idx] + noise


def _recurrent_bc_float64_proprio() -> None:
    policy = nn.LSTM(9, 32, batch_first=True).to(bf16)
    qpos = np.random.default_rng(0).standard_normal((2, 10, 9))  # MuJoCo's data.qpos history: float64
    policy(torch.from_numpy(qpos))


def _rollout_recorder_np_asarray() -> None:
    chunk = nn.Linear(14, CHUNK * ACTION_DIM).to(bf16)(torch.randn(1, 14, generator=_gen()).to(bf16))
    np.asarray(chunk.detach().reshape(CHUNK, ACTION_DIM))


# --- rotations, kinematics and physics


def _continuous_joint_limits_fp16() -> None:
    q = torch.randn(2, 7, generator=_gen()).half()
    upper = q.new_full(q.shape, 1e6)  # URDF's "unlimited" continuous joints
    torch.minimum(q, upper)


def _ik_pinv_bf16_jacobian() -> None:
    jacobian = torch.randn(6, 7, generator=_gen()).to(bf16)  # from the bf16 kinematics network
    error = torch.randn(6, generator=_gen()).to(bf16)
    torch.linalg.pinv(jacobian) @ error


def _mass_matrix_float64_solve_bf16_torques() -> None:
    mass_matrix = torch.from_numpy(np.eye(7) * 2.0)  # from the physics engine, float64
    torques = nn.Linear(14, 7).to(bf16)(torch.randn(1, 14, generator=_gen()).to(bf16))[0]
    torch.linalg.solve(mass_matrix, torques)


def _quaternion_rotate_cross_mixed() -> None:
    quat = F.normalize(torch.randn(5, 4, generator=_gen()), dim=-1).to(bf16)  # predicted by the bf16 pose head
    points = torch.randn(5, 3, generator=_gen())  # fp32 point cloud
    u, w = quat[:, 1:], quat[:, :1]
    uv = torch.linalg.cross(u, points)
    points + 2 * (w * uv + torch.linalg.cross(u, uv))


def _forward_kinematics_urdf_float64_bmm() -> None:
    base = torch.from_numpy(np.eye(4))[None].expand(3, 4, 4)  # base transform parsed from the URDF with numpy
    angles = torch.rand(3, generator=_gen()).to(bf16)
    joint = torch.eye(4).to(bf16).repeat(3, 1, 1)
    joint[:, 0, 0], joint[:, 0, 1] = angles.cos(), -angles.sin()
    joint[:, 1, 0], joint[:, 1, 1] = angles.sin(), angles.cos()
    torch.bmm(base, joint)


def _zero_quaternion_padding_anomaly() -> None:
    quats = torch.randn(3, 4, generator=_gen())
    quats = torch.cat([quats, torch.zeros(1, 4)]).requires_grad_()  # a padded timestep's quaternion is all zeros
    with torch.autograd.detect_anomaly():
        unit = quats / quats.norm(dim=-1, keepdim=True)
        (1 - (unit * F.normalize(torch.randn(4, 4, generator=_gen()), dim=-1)).sum(-1).abs()).sum().backward()


def _action_low_pass_filter_lerp() -> None:
    smoothed = torch.zeros(ACTION_DIM)  # the controller's filter state, fp32
    action = nn.Linear(14, ACTION_DIM).to(bf16)(torch.randn(14, generator=_gen()).to(bf16))
    with torch.no_grad():
        smoothed.lerp_(action, 0.3)


def _diffphys_gradient_clip_hook() -> None:
    policy = nn.Linear(6, 3).to(bf16)
    state = torch.randn(6, generator=_gen()).to(bf16)
    action = policy(state)
    action.register_hook(lambda g: g.float().clamp(-1.0, 1.0))  # clip gradients through time "in fp32"
    velocity = state[:3] + 0.01 * action
    (velocity ** 2).sum().backward()


# --- value heads and training loops


def _value_head_huber_numpy_returns() -> None:
    value_head = nn.Linear(16, 1)
    rewards = np.random.default_rng(0).random(8)
    returns = torch.from_numpy(np.cumsum(rewards[::-1])[::-1].copy())  # Monte Carlo returns in numpy: float64
    values = value_head(torch.randn(8, 16, generator=_gen()))[:, 0]
    F.huber_loss(values, returns).backward()


def _halved_policy_grad_scaler() -> None:
    policy = nn.Sequential(nn.Linear(14, 32), nn.ReLU(), nn.Linear(32, ACTION_DIM)).half()  # halved to fit the robot
    optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    pred = policy(torch.randn(4, 14, generator=_gen()).half())
    loss = F.mse_loss(pred.float(), torch.randn(4, ACTION_DIM, generator=_gen()))
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _critic_ensemble_scaler_step_per_member() -> None:
    critics = nn.ModuleList(nn.Linear(10, 1) for _ in range(2))
    optimizer = torch.optim.Adam(critics.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cpu")
    obs_act = torch.randn(4, 10, generator=_gen())
    target = torch.randn(4, 1, generator=_gen())
    for critic in critics:  # REDQ-style ensemble: one backward and step per member, one update after
        scaler.scale(F.mse_loss(critic(obs_act), target)).backward()
        scaler.step(optimizer)
    scaler.update()


CASES: dict[str, LiveCase] = {
    # --- diffusion policies and action chunking
    # DDPM schedule built with numpy (float64): the noised bf16 actions become float64 before the bf16 denoiser
    "diffusion-schedule-numpy-f64-noised-actions": case(_diffusion_schedule_from_numpy, "matmul_dtype", "f64", "bf16",
                                                        grade="correct", grade_at_freeze="correct"),
    # Diffusion Policy's 1-D conv UNet cast to bf16, the reverse process started from torch.randn (fp32)
    "diffusion-policy-sampling-fp32-noise-unet1d": case(_diffusion_policy_sampling_starts_fp32, "conv_weight_dtype",
                                                        "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # ACT temporal ensembling: the bf16 policy's chunk written into the fp32 all_time_actions buffer by [[t], t:t+k]
    "act-temporal-ensembling-bf16-chunk": case(_act_temporal_ensembling_buffer, "indexed_write_dtype", "f32", "bf16",
                                               grade="correct", grade_at_freeze="correct"),
    # ACT-style action decoder in bf16 with a causal mask built by torch.full(-inf) (fp32) for MultiheadAttention
    "act-decoder-causal-mask-fp32": case(_act_decoder_causal_mask_fp32, "attn_mask_dtype", "f32", "bf16",
                                         grade="correct", grade_at_freeze="correct"),
    # FiLM conditioning of a bf16 conv whose bias comes from an fp32 language-conditioned generator
    "film-conv-bias-fp32-generator": case(_film_conv_bias_from_fp32_generator, "conv_bias_dtype", "bf16", "f32",
                                          grade="correct", grade_at_freeze="correct"),
    # --- vision-language-action models
    # a VLA's proprio projector added after the cast (fp32): cat promotes the token sequence, the pre-norm block raises
    "vla-proprio-projector-fp32-prenorm": case(_vla_proprio_projector_left_fp32, "norm_param_dtype", "f32",
                                               grade="correct", grade_at_freeze="correct"),
    # bf16 action queries cross-attending to a frozen fp32 text encoder's tokens with SDPA
    "vla-action-queries-fp32-language-kv": case(_vla_action_queries_attend_fp32_language, "sdpa_dtype", "bf16", "f32",
                                                grade="correct", grade_at_freeze="correct"),
    # --- action tokenization and de-tokenization
    # RT-2-style action bins computed with floor on bf16 actions, sent to the bf16 token embedding
    "rt2-action-bins-floor-bf16-embedding": case(_action_bins_floored_in_bf16, "index_tensor_dtype", "bf16",
                                                 fix=("long",), grade="correct", grade_at_freeze="correct"),
    # de-tokenization by indexing the bin centres with action codes stored as uint8 (taken as a mask)
    "action-detokenize-uint8-codes": case(
        _action_detokenize_uint8_codes, "index_tensor_dtype", fix=("long",), grade="correct",
        grade_at_freeze="not_recognised",
        why="At freeze (1c4be99) castwise gave nothing. torch's IndexError for uint8 codes taken as a boolean mask "
            "says only \"too many indices for tensor of dimension 1\", naming no dtype, and the deprecation warning "
            "that names uint8 is silenced, so the message alone does not show an index tensor of the wrong dtype."),
    # discretised-action BC with bin targets from round() (float) into cross_entropy
    "action-bin-targets-rounded-float": case(_action_bin_targets_rounded, "target_dtype", "f32", fix=("long",),
                                             grade="correct", grade_at_freeze="correct"),
    # --- normalisation statistics, simulator observations and replay buffers
    # reset poses logged as JSON integers: torch.tensor makes int64 proprio for the fp32 encoder
    "reset-pose-json-ints-proprio": case(_reset_pose_from_json_ints, "integer_operand", "int64", "f32", grade="correct",
                                         grade_at_freeze="correct"),
    # joint encoder ticks (int64 from numpy) converted to radians in place
    "encoder-ticks-radians-in-place": case(_encoder_ticks_to_radians_in_place, "result_cast", "f32", "int64",
                                           grade="correct", grade_at_freeze="correct"),
    # the simulator's uint8 contact flags used as masked_fill's mask on bf16 contact forces
    "contact-flags-uint8-masked-fill": case(_contact_flags_uint8_masked_fill, "mask_dtype", "uint8", grade="correct",
                                            grade_at_freeze="correct"),
    # a tactile sensor's contact bitfield read from numpy as uint16, decoded with >> and &
    "contact-bitfield-uint16-shift": case(_contact_bitfield_uint16_shift, "no_kernel", grade="correct",
                                          grade_at_freeze="correct"),
    # gripper open/close head trained with BCE-with-logits against the simulator's bool gripper state
    "gripper-bool-target-bce-logits": case(_gripper_closed_bool_target, "target_dtype", "bool", fix=("float",),
                                           grade="correct", grade_at_freeze="correct"),
    # TD target written as (1 - terminated) with gymnasium's bool terminated flags
    "td-target-one-minus-bool-terminated": case(_td_target_one_minus_terminated, "mask_dtype", "bool", grade="correct",
                                                grade_at_freeze="correct"),
    # a replay buffer storing observations in float8_e4m3fn, sampled and added to bf16 augmentation noise
    "replay-fp8-observations-plus-bf16-noise": case(_replay_observations_fp8_plus_noise, "fp8_promotion",
                                                    "float8_e4m3fn", "bf16", grade="correct",
                                                    grade_at_freeze="correct"),
    # a recurrent BC policy (LSTM, bf16) given MuJoCo's float64 qpos history straight from numpy
    "recurrent-bc-lstm-f64-qpos": case(_recurrent_bc_float64_proprio, "rnn_dtype", "f64", "bf16", grade="correct",
                                       grade_at_freeze="correct"),
    # a rollout recorder storing the bf16 policy's action chunks with np.asarray
    "rollout-recorder-np-asarray-bf16": case(_rollout_recorder_np_asarray, "numpy_dtype", "bf16", grade="correct",
                                             grade_at_freeze="correct"),
    # --- rotations, kinematics and physics
    # URDF continuous joints given a 1e6 "unlimited" bound with new_full on fp16 joint positions
    "continuous-joint-limits-1e6-fp16": case(_continuous_joint_limits_fp16, "half_overflow", "f16", grade="correct",
                                             grade_at_freeze="correct"),
    # differential IK: pinv of a bf16 Jacobian
    "ik-pinv-bf16-jacobian": case(_ik_pinv_bf16_jacobian, "no_kernel", "bf16", grade="correct",
                                  grade_at_freeze="correct"),
    # forward dynamics: the engine's float64 mass matrix solved against bf16 policy torques
    "mass-matrix-f64-solve-bf16-torques": case(_mass_matrix_float64_solve_bf16_torques, "op_dtype", "f64", "bf16",
                                               grade="correct", grade_at_freeze="correct"),
    # rotating an fp32 point cloud by bf16 predicted quaternions with linalg.cross
    "quaternion-rotate-cross-bf16-points-fp32": case(_quaternion_rotate_cross_mixed, "op_dtype", "bf16", "f32",
                                                     grade="correct", grade_at_freeze="correct"),
    # forward kinematics chain: the URDF base transform (float64, numpy) bmm'ed with bf16 joint transforms
    "fk-chain-urdf-f64-bmm": case(_forward_kinematics_urdf_float64_bmm, "batched_matmul_dtype", "f64", "bf16",
                                  grade="correct", grade_at_freeze="correct"),
    # quaternions normalised by their norm with an all-zero padded timestep: NaN in backward under anomaly mode
    "zero-quaternion-padding-anomaly": case(_zero_quaternion_padding_anomaly, "nonfinite", grade="correct",
                                            grade_at_freeze="correct"),
    # the controller's fp32 low-pass filter state lerp_'ed toward the bf16 policy's action
    "action-low-pass-filter-lerp-bf16": case(_action_low_pass_filter_lerp, "lerp_dtype", "f32", "bf16", grade="correct",
                                             grade_at_freeze="correct"),
    # differentiable physics: a gradient-clipping hook on the bf16 action returns fp32 gradients
    "diffphys-grad-clip-hook-fp32": case(_diffphys_gradient_clip_hook, "loss_dtype", "bf16", "f32", grade="correct",
                                         grade_at_freeze="correct"),
    # --- value heads and training loops
    # a value head regressed with Huber loss onto Monte Carlo returns computed in numpy (float64)
    "value-head-huber-numpy-returns": case(_value_head_huber_numpy_returns, "loss_dtype", "f64", "f32", grade="correct",
                                           grade_at_freeze="correct"),
    # a BC policy halved with .half() to fit the robot's computer, trained with GradScaler
    "halved-bc-policy-grad-scaler": case(_halved_policy_grad_scaler, "unscale_fp16", "f16", grade="correct",
                                         grade_at_freeze="correct"),
    # REDQ-style critic ensemble: scaler.step(optimizer) after each member's backward, one update() after the loop
    "critic-ensemble-scaler-step-per-member": case(_critic_ensemble_scaler_step_per_member, "loss_scale",
                                                   grade="correct", grade_at_freeze="correct"),
}
