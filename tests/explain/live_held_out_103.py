"""Held-out live set 103: legged-robot locomotion and sim-to-real reinforcement learning written by hand in low
precision (batched vectorised environments with float64 simulator states, int64 env ids and episode counters, bool
done/timeout masks, PPO with GAE and value bootstrapping, running observation normalisers, action clipping and
scaling to joint limits, terrain curricula with integer levels, domain randomisation, policies under bf16 autocast).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at e697b0b."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e697b0b"

bf16, f16 = torch.bfloat16, torch.float16
_ENVS = 8
_DOFS = 12  # a quadruped: hip, thigh, calf per leg
_FEET = 4
_OBS = 48  # legged_gym's blind proprioceptive observation


def _seeded() -> None:
    torch.manual_seed(0)


def _actor(inp: int = _OBS, out: int = _DOFS) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inp, 64), nn.ELU(), nn.Linear(64, 64), nn.ELU(), nn.Linear(64, out))


def _joint_limits() -> tuple[torch.Tensor, torch.Tensor]:
    lower = torch.tensor([-0.8, -1.0, -2.7] * _FEET)
    upper = torch.tensor([0.8, 3.5, -0.9] * _FEET)
    return lower, upper


# --- terrain, height scans and curricula


def _height_scan_px_not_long() -> None:
    _seeded()
    horizontal_scale, vertical_scale = 0.1, 0.005
    height_samples = torch.randint(-40, 40, (80, 80), dtype=torch.int16)  # Isaac Gym's int16 heightfield
    points = torch.rand(_ENVS, 187, 2) * 7.0 + 0.3  # the 17 x 11 scan grid in world frame
    px = torch.floor(points[:, :, 0] / horizontal_scale)  # legged_gym's `.long()` left off
    py = torch.floor(points[:, :, 1] / horizontal_scale)
    heights = height_samples[px, py]
    (heights * vertical_scale).mean()


def _terrain_levels_histc_for_logging() -> None:
    _seeded()
    terrain_levels = torch.randint(0, 10, (_ENVS,))
    distance = torch.rand(_ENVS) * 8.0
    move_up = distance > 4.0
    move_down = (distance < 1.0) & ~move_up
    terrain_levels += 1 * move_up - 1 * move_down
    terrain_levels = terrain_levels.clip(0, 9)
    torch.histc(terrain_levels, bins=10, min=0, max=9)  # the level distribution for the logger


def _heightfield_int16_terrain_cnn() -> None:
    _seeded()
    heightfield = torch.randint(-200, 200, (_ENVS, 1, 32, 32), dtype=torch.int16)  # patches around each robot
    encoder = nn.Sequential(nn.Conv2d(1, 8, 5, stride=2), nn.ELU(), nn.Flatten(), nn.LazyLinear(32))
    encoder(heightfield)


def _heightfield_pit_sentinel_int16() -> None:
    _seeded()
    heightfield = torch.randint(-200, 200, (64, 64), dtype=torch.int16)
    pits = torch.zeros(64, 64, dtype=torch.bool)
    pits[20:28, 20:28] = True
    heightfield[pits] = -1e5  # a "bottomless" pit, in heightfield units


def _recency_bias_mask_fp32_history_encoder() -> None:
    _seeded()
    history, dim = 16, 32
    encoder = nn.MultiheadAttention(dim, 4, batch_first=True).to(bf16)
    tokens = torch.randn(_ENVS, history, dim, dtype=bf16)
    age = torch.arange(history)
    recency_bias = -0.1 * (age[:, None] - age[None, :]).abs().float()  # ALiBi-style bias over proprio history
    encoder(tokens, tokens, tokens, attn_mask=recency_bias)


def _history_transformer_fp32_proprio_kv() -> None:
    _seeded()
    heads, history, head_dim = 4, 16, 8
    q = torch.randn(_ENVS, heads, 1, head_dim, dtype=bf16)  # the bf16 policy token
    proprio_proj = nn.Linear(_OBS, heads * head_dim)  # added later, never cast with the policy
    kv = proprio_proj(torch.randn(_ENVS, history, _OBS)).view(_ENVS, history, heads, head_dim).transpose(1, 2)
    F.scaled_dot_product_attention(q, kv, kv)


# --- episode bookkeeping, resets and domain randomisation


def _reset_buf_long_where() -> None:
    _seeded()
    reset_buf = torch.ones(_ENVS, dtype=torch.long)  # legged_gym allocates reset_buf as long
    reset_buf[::2] = 0
    last_actions = torch.randn(_ENVS, _DOFS)
    torch.where(reset_buf[:, None], 0.0, last_actions)


def _termination_penalty_negated_bool() -> None:
    _seeded()
    terminated = torch.rand(_ENVS) > 0.8  # Isaac Lab's bool terminated flags
    time_outs = torch.rand(_ENVS) > 0.9
    rew_termination = -terminated & ~time_outs
    rew_termination.float().sum()


def _first_done_step_argmax_bool() -> None:
    _seeded()
    dones = torch.rand(24, _ENVS) > 0.9  # a rollout's bool done mask, steps x envs
    first_done = dones.argmax(dim=0)
    first_done.float().mean()


def _push_velocity_empty_like_env_ids() -> None:
    _seeded()
    env_ids = torch.randperm(_ENVS)[:3]
    push_vel = torch.empty_like(env_ids).uniform_(-1.0, 1.0)  # dtype=torch.float left off
    root_states = torch.zeros(_ENVS, 13)
    root_states[env_ids, 7] = push_vel


def _reset_default_dof_pos_bf16_setitem() -> None:
    _seeded()
    dof_pos = torch.zeros(_ENVS, _DOFS)
    default_dof_pos = torch.tensor([0.1, 0.8, -1.5] * _FEET).to(bf16)  # cast with the policy's buffers
    env_ids = torch.tensor([1, 4, 6])
    scale = torch.empty(len(env_ids), _DOFS, dtype=bf16).uniform_(0.5, 1.5)
    dof_pos[env_ids] = default_dof_pos * scale


def _running_normaliser_decayed_count() -> None:
    _seeded()
    count = torch.tensor(0)
    mean = torch.zeros(_OBS)
    for _ in range(3):
        batch = torch.randn(_ENVS, _OBS)
        count.mul_(0.999)  # a decayed count for a non-stationary curriculum
        count += batch.shape[0]
        mean += (batch.mean(0) - mean) * batch.shape[0] / count


def _normaliser_zero_variance_nan_policy() -> None:
    _seeded()
    actor = _actor()
    log_std = nn.Parameter(torch.zeros(_DOFS))
    obs = torch.randn(_ENVS, _OBS)
    obs[:, 9:12] = torch.tensor([0.0, 0.0, -1.0])  # projected gravity on flat ground: constant during warm-up
    mean, var = obs.mean(0), obs.var(0)
    normalised = (obs - mean) / var.sqrt()  # no epsilon
    torch.distributions.Normal(actor(normalised), log_std.exp())


# --- actions, PD control and kinematics


def _actuator_net_fp32_after_autocast() -> None:
    _seeded()
    actor = _actor()
    actuator_net = nn.Sequential(nn.Linear(3, 32), nn.Softsign(), nn.Linear(32, 1))  # fp32, trained on motor logs
    last_actions = torch.zeros(_ENVS, _DOFS, dtype=bf16)
    last_last_actions = torch.zeros(_ENVS, _DOFS, dtype=bf16)
    with torch.autocast("cpu", dtype=bf16):
        actions = actor(torch.randn(_ENVS, _OBS))
    action_history = torch.stack([actions, last_actions, last_last_actions], dim=-1)  # per joint, newest first
    actuator_net(action_history * 0.25)


def _joint_limits_lerp_bf16_actions() -> None:
    _seeded()
    actor = _actor()
    with torch.autocast("cpu", dtype=bf16):
        actions = torch.tanh(actor(torch.randn(_ENVS, _OBS)))
    lower, upper = _joint_limits()
    torch.lerp(lower.expand(_ENVS, -1), upper.expand(_ENVS, -1), (actions + 1.0) / 2.0)


def _jacobian_transpose_einsum_bf16_forces() -> None:
    _seeded()
    jacobians = torch.randn(_ENVS, _FEET, 3, _DOFS)  # from the simulator's jacobian tensor
    force_head = _actor(_OBS, _FEET * 3).to(bf16)
    forces = force_head(torch.randn(_ENVS, _OBS, dtype=bf16)).view(_ENVS, _FEET, 3)
    torch.einsum("bfij,bfi->bj", jacobians, forces)


def _foot_velocity_bmm_bf16_jacobian() -> None:
    _seeded()
    foot_jacobian = torch.randn(_ENVS * _FEET, 3, 3, dtype=bf16)  # predicted by a bf16 kinematics net
    leg_dof_vel = torch.randn(_ENVS * _FEET, 3, 1)  # joint velocities from the simulator
    torch.bmm(foot_jacobian, leg_dof_vel)


def _quat_rotate_inverse_f64_imu() -> None:
    _seeded()
    imu_quat = np.tile(np.array([0.0, 0.0, 0.0, 1.0]), (_ENVS, 1))  # the real robot's IMU, float64 (x, y, z, w)
    q = torch.from_numpy(imu_quat)
    v = torch.tensor([0.0, 0.0, -1.0]).repeat(_ENVS, 1)  # gravity_vec
    q_w, q_vec = q[:, -1], q[:, :3]
    a = v * (2.0 * q_w**2 - 1.0).unsqueeze(-1)
    b = torch.cross(q_vec, v, dim=-1) * q_w.unsqueeze(-1) * 2.0
    c = q_vec * torch.bmm(q_vec.view(_ENVS, 1, 3), v.view(_ENVS, 3, 1)).squeeze(-1) * 2.0
    a - b + c


def _foot_slip_vecdot_bf16_velocity() -> None:
    _seeded()
    foot_vel = torch.randn(_ENVS, _FEET, 3, dtype=bf16)  # from the bf16 state estimator
    contact_normal = F.normalize(torch.randn(_ENVS, _FEET, 3), dim=-1)  # from the height scan
    normal_speed = torch.linalg.vecdot(foot_vel, contact_normal)
    (foot_vel.float() - normal_speed.float()[..., None] * contact_normal).norm(dim=-1).sum()


def _contact_force_solve_bf16() -> None:
    _seeded()
    grasp = torch.randn(_ENVS, 6, 6, dtype=bf16) + 4 * torch.eye(6, dtype=bf16)  # the whole-body controller in bf16
    wrench = torch.randn(_ENVS, 6, dtype=bf16)
    torch.linalg.solve(grasp, wrench)


# --- policies, estimators and deployment


def _actor_bf16_layer_norm_fp32_obs() -> None:
    _seeded()
    actor = nn.Sequential(nn.LayerNorm(_OBS), _actor()).to(bf16)  # cast for the robot's onboard computer
    actor(torch.randn(_ENVS, _OBS))


def _rma_adaptation_conv1d_f64_history() -> None:
    _seeded()
    adaptation = nn.Sequential(nn.Conv1d(30, 32, 8, stride=4), nn.ReLU(), nn.Conv1d(32, 32, 5, stride=1))
    ring = np.zeros((1, 30, 50))  # the robot's proprio history ring buffer, numpy float64
    ring[0, :, -1] = np.linspace(-0.5, 0.5, 30)
    adaptation(torch.from_numpy(ring))


def _recurrent_policy_bf16_fp32_obs() -> None:
    _seeded()
    memory = nn.LSTM(_OBS, 64).to(bf16)  # rsl_rl's recurrent actor, cast for deployment
    obs = torch.randn(1, _ENVS, _OBS)
    memory(obs)


def _gait_id_float_embedding() -> None:
    _seeded()
    gait_embedding = nn.Embedding(4, 8)  # trot, pace, bound, pronk
    obs = torch.randn(_ENVS, _OBS + 1)
    obs[:, -1] = torch.randint(0, 4, (_ENVS,)).float()  # the gait id travels in the float observation buffer
    gait_embedding(obs[:, -1])


def _lcm_command_numpy_bf16() -> None:
    _seeded()
    actor = _actor()
    obs = torch.randn(1, _OBS)
    default_dof_pos = np.array([0.1, 0.8, -1.5] * _FEET)
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        actions = actor(obs)
    q_des = default_dof_pos + (actions[0] * 0.25).numpy()  # into the LCM command message
    q_des.tolist()


def _realsense_uint16_depth_resize() -> None:
    depth = torch.full((1, 1, 48, 64), 1500, dtype=torch.uint16)  # RealSense z16 depth in millimetres
    F.interpolate(depth, size=(58, 87), mode="bilinear", align_corners=False)


# --- PPO, GAE and auxiliary losses


def _timeout_bootstrap_index_add_bf16_values() -> None:
    _seeded()
    critic = _actor(_OBS, 1)
    rewards = torch.randn(_ENVS)
    time_outs = torch.tensor([False, True, False, False, True, False, False, False])
    with torch.autocast("cpu", dtype=bf16):
        values = critic(torch.randn(_ENVS, _OBS)).squeeze(-1)
    timeout_ids = time_outs.nonzero().squeeze(-1)
    rewards.index_add_(0, timeout_ids, 0.99 * values[timeout_ids])


def _foot_contact_estimator_bce_bool() -> None:
    _seeded()
    estimator = _actor(_OBS, _FEET)
    contact_forces = torch.randn(_ENVS, _FEET, 3) * 5.0
    contacts = contact_forces.norm(dim=-1) > 1.0
    probs = torch.sigmoid(estimator(torch.randn(_ENVS, _OBS)))
    F.binary_cross_entropy(probs, contacts)


def _ppo_unscale_per_minibatch() -> None:
    _seeded()
    actor = _actor()
    optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    obs = torch.randn(4 * _ENVS, _OBS)
    for minibatch in obs.split(_ENVS):
        with torch.autocast("cpu", dtype=bf16):
            loss = actor(minibatch).pow(2).mean()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(actor.parameters(), 1.0)
        optimizer.step()  # the scaler's step and update left for the end of the epoch
    scaler.update()


def _averaged_gradients_f64_assigned() -> None:
    _seeded()
    actor = _actor()
    actor(torch.randn(_ENVS, _OBS)).pow(2).mean().backward()
    flat = torch.cat([p.grad.flatten() for p in actor.parameters()]).double()  # averaged across workers in f64
    offset = 0
    for p in actor.parameters():
        p.grad = flat[offset:offset + p.numel()].view_as(p)
        offset += p.numel()


CASES: dict[str, LiveCase] = {
    # --- terrain, height scans and curricula
    # legged_gym-style height scan: the heightfield indexed by floor()'d grid coordinates without .long()
    "height-scan-floor-not-long-index": case(_height_scan_px_not_long, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # terrain curriculum: the int64 terrain levels histogrammed with torch.histc for the logger
    "terrain-levels-histc-int64": case(_terrain_levels_histc_for_logging, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int16 heightfield patches around each robot fed straight to a CNN terrain encoder
    "heightfield-int16-terrain-cnn": case(_heightfield_int16_terrain_cnn, "integer_operand", "int16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a "bottomless" pit written into the int16 heightfield as -1e5
    "heightfield-pit-sentinel-int16": case(_heightfield_pit_sentinel_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 proprio-history MultiheadAttention given an fp32 ALiBi-style recency bias as attn_mask
    "history-encoder-recency-bias-fp32-mask": case(_recency_bias_mask_fp32_history_encoder, "attn_mask_dtype",
                                                   "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 policy token attending over proprio history keys/values from an fp32 projector with SDPA
    "history-transformer-sdpa-fp32-proprio-kv": case(_history_transformer_fp32_proprio_kv, "sdpa_dtype", "bf16",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- episode bookkeeping, resets and domain randomisation
    # torch.where on legged_gym's long reset_buf to zero the last actions of reset envs
    "reset-buf-long-where-last-actions": case(_reset_buf_long_where, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # termination penalty written as -terminated on bool terminated flags
    "termination-penalty-negated-bool": case(_termination_penalty_negated_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # the first done step per env found with argmax over the rollout's bool done mask
    "first-done-step-argmax-bool": case(_first_done_step_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # domain-randomised pushes: velocities drawn by uniform_ into empty_like(env_ids), an int64 buffer
    "push-velocity-uniform-empty-like-env-ids": case(_push_velocity_empty_like_env_ids, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # reset: randomised bf16 default joint positions written into the fp32 dof_pos by env_ids
    "reset-default-dof-pos-bf16-setitem": case(_reset_default_dof_pos_bf16_setitem, "indexed_write_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a running observation normaliser whose int64 count is decayed in place with mul_(0.999)
    "obs-normaliser-decayed-int64-count": case(_running_normaliser_decayed_count, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # normaliser without epsilon: a constant observation dim gives 0/0, the Normal policy rejects NaN means
    "obs-normaliser-zero-variance-nan-policy": case(_normaliser_zero_variance_nan_policy, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # --- actions, PD control and kinematics
    # an fp32 actuator network fed the history of the bf16 autocast policy's joint targets
    "actuator-net-fp32-bf16-autocast-actions": case(_actuator_net_fp32_after_autocast, "matmul_dtype", "bf16",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autocast actions scaled to fp32 joint limits with torch.lerp(lower, upper, (a + 1) / 2)
    "joint-limits-lerp-bf16-actions": case(_joint_limits_lerp_bf16_actions, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # J^T F torques: the simulator's fp32 foot Jacobians einsum'd with bf16 predicted foot forces
    "jacobian-transpose-einsum-bf16-forces": case(_jacobian_transpose_einsum_bf16_forces, "matmul_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # foot velocities: a bf16 kinematics net's Jacobians bmm'd with fp32 joint velocities
    "foot-velocity-bmm-bf16-jacobian": case(_foot_velocity_bmm_bf16_jacobian, "batched_matmul_dtype", "bf16",
                                            "f32",
        grade="correct", grade_at_freeze="correct"),
    # projected gravity on the real robot: quat_rotate_inverse of the float64 IMU quaternion and fp32 gravity_vec
    "quat-rotate-inverse-f64-imu-quaternion": case(_quat_rotate_inverse_f64_imu, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # foot-slip reward: linalg.vecdot of bf16 estimated foot velocities with fp32 contact normals
    "foot-slip-vecdot-bf16-velocity": case(_foot_slip_vecdot_bf16_velocity, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a whole-body contact-force solve done in bf16 with torch.linalg.solve
    "contact-force-solve-bf16": case(_contact_force_solve_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- policies, estimators and deployment
    # an actor with an input LayerNorm cast to bf16 for the onboard computer, given fp32 observations
    "onboard-actor-bf16-layer-norm-fp32-obs": case(_actor_bf16_layer_norm_fp32_obs, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RMA adaptation module's Conv1d fed the robot's numpy float64 proprio history
    "rma-adaptation-conv1d-f64-history": case(_rma_adaptation_conv1d_f64_history, "conv_weight_dtype", "f64",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # rsl_rl-style recurrent actor's LSTM cast to bf16 for deployment, given fp32 observations
    "recurrent-actor-lstm-bf16-fp32-obs": case(_recurrent_policy_bf16_fp32_obs, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # gait-conditioned policy: the gait id carried in the float observation buffer looked up in nn.Embedding
    "gait-id-float-obs-embedding": case(_gait_id_float_embedding, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # joint targets from the bf16 autocast policy turned into numpy for the LCM command message
    "lcm-joint-targets-numpy-bf16": case(_lcm_command_numpy_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # RealSense uint16 depth resized to the depth policy's 58 x 87 input with bilinear interpolate
    "realsense-uint16-depth-bilinear-resize": case(_realsense_uint16_depth_resize, "integer_operand", "uint16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (e697b0b) castwise gave no_kernel [uint16] (high confidence). The error is raised inside "
             "interpolate's bilinear weight computation ('\"compute_indices_weights_linear\" not implemented for "
             "'UInt16''): a uint16 depth image handed to a floating interpolation is integer data fed to float math, "
             "the corpus's convention for interpolate of an integer tensor; the rules read the not-implemented line "
             "for an integer dtype as a missing kernel for that dtype instead.")),
    # --- PPO, GAE and auxiliary losses
    # value bootstrapping on timeouts: bf16 autocast values index_add_'ed into the fp32 rewards
    "timeout-bootstrap-index-add-bf16-values": case(_timeout_bootstrap_index_add_bf16_values, "indexed_write_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # foot-contact estimator trained with binary_cross_entropy against bool contact flags
    "foot-contact-estimator-bce-bool-target": case(_foot_contact_estimator_bce_bool, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # PPO with GradScaler: unscale_ for gradient clipping in every minibatch, update() once per epoch
    "ppo-unscale-every-minibatch-update-per-epoch": case(_ppo_unscale_per_minibatch, "loss_scale",
        grade="correct", grade_at_freeze="correct"),
    # gradients averaged across workers in float64 and assigned back with p.grad = ...
    "worker-averaged-gradients-f64-assigned": case(_averaged_gradients_f64_assigned, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
}
