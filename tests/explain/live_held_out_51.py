"""Held-out live set 51: classic deep reinforcement learning by hand in low precision (PPO, DQN and its variants, SAC,
TD3, DDPG, MPO, QMIX, HER, PopArt: normalisers, replay buffers, action spaces, episode bookkeeping, numpy
environments). Defects planted by a helper who never read the rules, written before castwise ran and graded once with
the rules frozen at 50242d3."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "50242d3"

bf16, f16 = torch.bfloat16, torch.float16


def _mlp(sizes: tuple[int, ...]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for inp, out in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(inp, out), nn.Tanh()]
    return nn.Sequential(*layers[:-1])


# --- observation and return normalisers


def _obs_normaliser_f64_stats_bf16_actor() -> None:
    torch.manual_seed(0)
    actor = _mlp((6, 32, 2)).to(bf16)
    rng = np.random.default_rng(0)
    batch = rng.normal(size=(64, 6))
    mean = torch.from_numpy(batch.mean(0))  # RunningMeanStd kept in float64, as in baselines
    var = torch.from_numpy(batch.var(0))
    obs = torch.from_numpy(rng.normal(size=(8, 6)).astype(np.float32))
    normalised = torch.clamp((obs - mean) / torch.sqrt(var + 1e-8), -10.0, 10.0)
    actor(normalised)


def _popart_bias_rescaled_through_data() -> None:
    torch.manual_seed(0)
    trunk = _mlp((8, 16)).to(bf16)
    value_head = nn.Linear(16, 1).to(bf16)
    old_mean, old_std = torch.tensor([0.0], dtype=torch.float64), torch.tensor([1.0], dtype=torch.float64)
    new_mean, new_std = torch.tensor([3.5], dtype=torch.float64), torch.tensor([2.0], dtype=torch.float64)
    with torch.no_grad():  # PopArt: preserve outputs while the return statistics move
        value_head.weight.data = value_head.weight.data * (old_std / new_std).to(bf16)
        value_head.bias.data = (old_std * value_head.bias.data + old_mean - new_mean) / new_std
    value_head(trunk(torch.randn(4, 8).to(bf16)))


def _atari_frames_uint8_running_mean() -> None:
    frames = torch.from_numpy(np.random.default_rng(0).integers(0, 256, size=(16, 4, 84, 84), dtype=np.uint8))
    frames.mean(0)  # the RND observation normaliser's batch mean on the raw uint8 frames


# --- DQN and its variants


def _dqn_target_synced_by_vector_to_parameters() -> None:
    torch.manual_seed(0)
    target = _mlp((4, 64, 2))
    online = _mlp((4, 64, 2)).to(bf16)
    nn.utils.vector_to_parameters(nn.utils.parameters_to_vector(online.parameters()), target.parameters())
    next_obs = torch.randn(32, 4)
    target(next_obs).max(1)


def _per_priorities_from_bf16_td_errors() -> None:
    torch.manual_seed(0)
    priorities = torch.ones(1000)
    indices = torch.randint(0, 1000, (32,))
    td_errors = (torch.randn(32) * 0.5).to(bf16)  # from the bf16 online network
    priorities[indices] = td_errors.abs().detach() + 1e-6


def _c51_projection_floor_not_long() -> None:
    torch.manual_seed(0)
    batch, atoms, v_min, v_max, gamma = 4, 51, -10.0, 10.0, 0.99
    support = torch.linspace(v_min, v_max, atoms)
    delta_z = (v_max - v_min) / (atoms - 1)
    rewards, dones = torch.randn(batch), torch.zeros(batch)
    next_dist = torch.softmax(torch.randn(batch, atoms), 1)
    tz = (rewards[:, None] + gamma * (1 - dones[:, None]) * support).clamp(v_min, v_max)
    b = (tz - v_min) / delta_z
    lower, upper = b.floor(), b.ceil()
    offset = (torch.arange(batch) * atoms)[:, None]
    projected = torch.zeros(batch * atoms)
    projected.index_add_(0, (lower + offset).view(-1), (next_dist * (upper - b)).view(-1))


def _board_game_illegal_actions_index_fill_fp16() -> None:
    torch.manual_seed(0)
    q_net = _mlp((9, 32, 9)).half()
    q = q_net(torch.zeros(2, 9, dtype=f16))
    illegal = torch.tensor([0, 4])
    q.index_fill_(1, illegal, -1e9)


def _linear_feature_baseline_lstsq_fp16() -> None:
    rng = np.random.default_rng(0)
    obs = torch.from_numpy(rng.normal(size=(50, 4))).half()  # observations stored half in the rollout buffer
    t = torch.arange(50, dtype=f16)[:, None] / 100
    features = torch.cat([obs, obs**2, t, t**2, t**3, torch.ones_like(t)], 1)
    returns = torch.from_numpy(rng.normal(size=(50, 1))).half()
    torch.linalg.lstsq(features, returns)


# --- PPO


def _ppo_adv_norm_eps_underflows_fp16() -> None:
    torch.manual_seed(0)
    new_logp = torch.randn(16, dtype=f16, requires_grad=True)
    old_logp = new_logp.detach().clone()
    advantages = torch.full((16,), 0.5, dtype=f16)  # a single env whose short rollout got the same advantage
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    ratio = torch.exp(new_logp - old_logp)
    surrogate = torch.min(ratio * advantages, torch.clamp(ratio, 0.8, 1.2) * advantages)
    with torch.autograd.detect_anomaly():
        (-surrogate.mean()).backward()


def _ppo_fp16_actor_raw_observations_nan_mean() -> None:
    hidden, out = nn.Linear(3, 2), nn.Linear(2, 1)
    with torch.no_grad():
        hidden.weight.fill_(40.0)
        hidden.bias.zero_()
        out.weight.copy_(torch.tensor([[1.0, -1.0]]))
        out.bias.zero_()
    actor = nn.Sequential(hidden, nn.ReLU(), out).half()
    obs = torch.tensor([[900.0, 800.0, 700.0]], dtype=f16)  # raw pressures, never normalised
    mean = actor(obs)
    torch.distributions.Normal(mean, torch.ones_like(mean))


def _ppo_explained_variance_numpy_bf16() -> None:
    torch.manual_seed(0)
    values, returns = torch.randn(64).to(bf16), torch.randn(64).to(bf16)
    y_pred, y_true = values.cpu().numpy(), returns.cpu().numpy()
    1 - np.var(y_true - y_pred) / np.var(y_true)


def _ppo_int_rewards_truncation_bootstrap() -> None:
    torch.manual_seed(0)
    rewards = torch.from_numpy(np.array([0, 1, 0, 0, 1, 0], dtype=np.int64))  # a gridworld's integer rewards
    truncated = torch.tensor([False, False, True, False, False, True])
    values = torch.randn(6)
    rewards[truncated] += 0.99 * values[truncated]


def _reinforce_returns_in_place_on_int_rewards() -> None:
    rewards = torch.from_numpy(np.array([0, 0, 1, 0, 1], dtype=np.int64))
    returns = torch.zeros_like(rewards)
    running = torch.zeros_like(rewards[0])
    for t in reversed(range(len(rewards))):
        running.mul_(0.99).add_(rewards[t])
        returns[t] = running


def _icm_inverse_model_float_action_buffer() -> None:
    torch.manual_seed(0)
    actions = torch.zeros((32,))  # CleanRL-style default-dtype action buffer
    actions[:] = torch.randint(0, 6, (32,)).float()
    inverse_model = _mlp((2 * 16, 64, 6))
    phi, phi_next = torch.randn(32, 16), torch.randn(32, 16)
    F.cross_entropy(inverse_model(torch.cat([phi, phi_next], 1)), actions)


# --- SAC, TD3, DDPG, MPO


def _td3_inverting_gradients_hook_fp32_bounds() -> None:
    torch.manual_seed(0)
    actor = _mlp((5, 16, 2)).to(bf16)
    critic = _mlp((7, 16, 1)).to(bf16)
    high, low = torch.tensor([2.0, 1.0]), torch.tensor([-2.0, -1.0])  # from env.action_space, float32
    obs = torch.randn(8, 5).to(bf16)
    action = actor(obs)

    def invert(grad: torch.Tensor) -> torch.Tensor:
        a = action.detach()
        return torch.where(grad > 0, grad * (high - a) / (high - low), grad * (a - low) / (high - low))

    action.register_hook(invert)
    (-critic(torch.cat([obs, action], 1)).mean()).backward()


def _td3_delayed_actor_scaler_step_every_iteration() -> None:
    torch.manual_seed(0)
    actor, critic = _mlp((3, 8, 1)), _mlp((4, 8, 1))
    actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    for step in range(2):
        obs = torch.randn(4, 3)
        critic_opt.zero_grad(set_to_none=True)
        q = critic(torch.cat([obs, torch.rand(4, 1)], 1))
        scaler.scale(F.mse_loss(q, torch.randn(4, 1))).backward()
        scaler.step(critic_opt)
        actor_opt.zero_grad(set_to_none=True)
        if step % 2 == 1:
            scaler.scale(-critic(torch.cat([obs, actor(obs)], 1)).mean()).backward()
        scaler.step(actor_opt)
        scaler.update()


def _ddpg_input_batchnorm_cast_bf16() -> None:
    torch.manual_seed(0)
    actor = nn.Sequential(nn.BatchNorm1d(11), nn.Linear(11, 64), nn.ReLU(), nn.Linear(64, 3), nn.Tanh()).to(bf16)
    obs = torch.from_numpy(np.random.default_rng(0).normal(size=(16, 11)).astype(np.float32))
    actor(obs)


def _mpo_full_covariance_policy_bf16() -> None:
    torch.manual_seed(0)
    head = nn.Linear(16, 3 + 9).to(bf16)
    out = head(torch.randn(4, 16).to(bf16))
    mean, raw = out[:, :3], out[:, 3:].view(4, 3, 3)
    covariance = raw @ raw.transpose(1, 2) + 1e-2 * torch.eye(3, dtype=bf16)
    torch.distributions.MultivariateNormal(mean, covariance_matrix=covariance)


def _gail_discriminator_bce_fp32_labels() -> None:
    torch.manual_seed(0)
    discriminator = _mlp((6, 32, 1)).to(bf16)
    expert_sa, policy_sa = torch.randn(8, 6).to(bf16), torch.randn(8, 6).to(bf16)
    probs = torch.sigmoid(discriminator(torch.cat([expert_sa, policy_sa])))
    labels = torch.cat([torch.ones(8, 1), torch.zeros(8, 1)])
    F.binary_cross_entropy(probs, labels)


# --- multi-agent and entity-based policies


def _qmix_hypernetwork_left_fp32() -> None:
    torch.manual_seed(0)
    n_agents, embed, state_dim, batch = 3, 8, 10, 4
    agent_qs = torch.randn(batch, n_agents).to(bf16)  # from the bf16 agent networks
    hyper_w1 = nn.Linear(state_dim, n_agents * embed)  # the mixer was not cast
    w1 = torch.abs(hyper_w1(torch.randn(batch, state_dim))).view(-1, n_agents, embed)
    torch.bmm(agent_qs.view(-1, 1, n_agents), w1)


def _entity_attention_fp32_entity_encoder() -> None:
    torch.manual_seed(0)
    entity_encoder = nn.Linear(5, 16)  # kept fp32 "for the raw features"
    agent_query = nn.Linear(7, 16).to(bf16)
    q = agent_query(torch.randn(2, 1, 7).to(bf16)).view(2, 1, 2, 8).transpose(1, 2)
    kv = entity_encoder(torch.randn(2, 6, 5)).view(2, 6, 2, 8).transpose(1, 2)
    F.scaled_dot_product_attention(q, kv, kv)


def _smac_uint8_entity_mask_mha() -> None:
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(16, 2, batch_first=True)
    entities = torch.randn(2, 5, 16)
    visible = np.array([[1, 1, 0, 1, 0], [1, 0, 0, 1, 1]], dtype=np.uint8)  # the env's visibility matrix
    attention(entities, entities, entities, key_padding_mask=torch.from_numpy(1 - visible))


def _pettingzoo_int8_action_mask() -> None:
    torch.manual_seed(0)
    logits = _mlp((12, 32, 9))(torch.randn(2, 12))
    action_mask = torch.from_numpy(np.array([[1, 0, 1, 1, 0, 1, 1, 1, 0], [0, 1, 1, 1, 1, 1, 0, 0, 1]], dtype=np.int8))
    torch.distributions.Categorical(logits=logits.masked_fill(~action_mask, -1e8)).sample()


# --- discrete actions, goals and episode bookkeeping


def _world_model_one_hot_uint8_actions() -> None:
    actions = torch.from_numpy(np.array([3, 0, 17, 5], dtype=np.uint8))  # the replay buffer's uint8 action column
    F.one_hot(actions, 18)


def _r2d2_previous_action_embedding_uint8() -> None:
    torch.manual_seed(0)
    prev_action_embedding = nn.Embedding(18, 16)
    prev_actions = torch.from_numpy(np.array([[0, 4, 4, 11]], dtype=np.uint8))
    prev_action_embedding(prev_actions)


def _her_future_goal_index_float() -> None:
    torch.manual_seed(0)
    episodes, horizon = 8, 50
    achieved_goals = torch.randn(episodes, horizon + 1, 3)
    ep_idx = torch.randint(0, episodes, (16,))
    t = torch.randint(0, horizon, (16,))
    future_t = t + 1 + (torch.rand(16) * (horizon - t)).floor()
    achieved_goals[ep_idx, future_t]


def _her_relabelled_reward_negated_bool() -> None:
    torch.manual_seed(0)
    achieved, desired = torch.randn(16, 3), torch.randn(16, 3)
    -(torch.linalg.vector_norm(achieved - desired, dim=-1) > 0.05)


def _vec_env_float_terminated_or_truncated() -> None:
    terminated = torch.zeros(8)  # a rollout buffer column filled from the env's float dones
    terminated[3] = 1.0
    truncated = torch.from_numpy(np.array([False] * 7 + [True]))
    terminated | truncated


def _atari_grayscale_uint8_frames() -> None:
    rgb = torch.from_numpy(np.random.default_rng(0).integers(0, 256, size=(210, 160, 3), dtype=np.uint8))
    rgb @ torch.tensor([0.299, 0.587, 0.114])


def _episode_returns_scatter_add_f64_rewards() -> None:
    episode_returns = torch.zeros(4)
    episode_ids = torch.tensor([0, 0, 1, 2, 2, 3])
    rewards = torch.from_numpy(np.array([1.0, 0.5, -1.0, 0.0, 2.0, 1.0]))  # env rewards, float64
    episode_returns.scatter_add_(0, episode_ids, rewards)


CASES: dict[str, LiveCase] = {
    # --- observation and return normalisers
    # a RunningMeanStd kept in float64 normalises fp32 observations for a bf16 PPO actor
    "obs-normaliser-f64-stats-bf16-actor": case(_obs_normaliser_f64_stats_bf16_actor, "matmul_dtype", "f64", "bf16",
                                                grade="correct", grade_at_freeze="correct"),
    # PopArt rescales the bf16 value head's bias through .data with float64 return statistics
    "popart-bias-data-f64-stats": case(_popart_bias_rescaled_through_data, "matmul_dtype", "f64", "bf16",
                                       grade="correct", grade_at_freeze="correct"),
    # an RND observation normaliser taking the batch mean of raw uint8 Atari frames
    "rnd-normaliser-mean-uint8-frames": case(_atari_frames_uint8_running_mean, "integer_operand", "uint8",
                                             grade="correct", grade_at_freeze="correct"),
    # --- DQN and its variants
    # the fp32 target network synced by vector_to_parameters from the bf16 online network, then given fp32 observations
    "dqn-target-vector-to-parameters-bf16": case(_dqn_target_synced_by_vector_to_parameters, "matmul_dtype", "f32",
                                                 "bf16", grade="correct", grade_at_freeze="correct"),
    # prioritized replay: an fp32 priority array updated by indexing with a bf16 network's TD errors
    "per-priorities-setitem-bf16-td-errors": case(_per_priorities_from_bf16_td_errors, "indexed_write_dtype", "f32",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # C51 projection: the lower atom indices from floor() never made .long(), used by index_add_
    "c51-projection-floor-not-long": case(_c51_projection_floor_not_long, "index_tensor_dtype", "f32",
                                          grade="correct", grade_at_freeze="correct"),
    # a board game's fp16 Q-values masked by index_fill_ of the illegal moves with -1e9
    "board-game-illegal-moves-index-fill-fp16": case(_board_game_illegal_actions_index_fill_fp16, "half_overflow",
                                                     "f16", grade="correct", grade_at_freeze="correct"),
    # a linear feature baseline fitted by lstsq on observations stored in fp16
    "linear-feature-baseline-lstsq-fp16": case(_linear_feature_baseline_lstsq_fp16, "no_kernel",
                                               grade="correct", grade_at_freeze="correct"),
    # --- PPO
    # advantage normalisation in fp16: the 1e-8 epsilon underflows, equal advantages give 0/0, anomaly mode raises
    "ppo-adv-norm-eps-underflow-fp16": case(_ppo_adv_norm_eps_underflows_fp16, "nonfinite",
                                            grade="correct", grade_at_freeze="correct"),
    # an fp16 actor on raw unnormalised observations: the hidden layer overflows, inf - inf gives a NaN mean for Normal
    "ppo-fp16-actor-raw-obs-nan-mean": case(_ppo_fp16_actor_raw_observations_nan_mean, "nonfinite",
                                            grade="correct", grade_at_freeze="correct"),
    # PPO's explained-variance diagnostic taking .numpy() of bf16 values and returns
    "ppo-explained-variance-numpy-bf16": case(_ppo_explained_variance_numpy_bf16, "numpy_dtype", "bf16",
                                              grade="correct", grade_at_freeze="correct"),
    # bootstrapping truncated steps in place in a gridworld's int64 reward tensor
    "truncation-bootstrap-int-rewards": case(_ppo_int_rewards_truncation_bootstrap, "result_cast", "f32", "int64",
                                             grade="correct", grade_at_freeze="correct"),
    # REINFORCE returns accumulated with mul_ in a running return made by zeros_like of int64 rewards
    "reinforce-running-return-int-mul": case(_reinforce_returns_in_place_on_int_rewards, "result_cast", "f32",
                                             "int64", grade="correct", grade_at_freeze="correct"),
    # ICM's inverse model trained with cross_entropy on the default-dtype (float) action buffer
    "icm-inverse-model-float-actions": case(_icm_inverse_model_float_action_buffer, "target_dtype", "f32",
                                            fix=("long",), grade="correct", grade_at_freeze="correct"),
    # --- SAC, TD3, DDPG, MPO
    # inverting gradients (bounded actions) by a hook using fp32 action bounds on a bf16 actor's action
    "td3-inverting-gradients-hook-fp32-bounds": case(_td3_inverting_gradients_hook_fp32_bounds, "loss_dtype", "bf16",
                                                     "f32", grade="correct", grade_at_freeze="correct"),
    # TD3 with GradScaler: scaler.step(actor_opt) every iteration while the actor's backward runs every other one
    "td3-delayed-actor-scaler-step": case(_td3_delayed_actor_scaler_step_every_iteration, "loss_scale",
                                          grade="correct", grade_at_freeze="correct"),
    # DDPG's input BatchNorm cast to bf16 with the actor, given the env's fp32 observations
    "ddpg-input-batchnorm-bf16": case(_ddpg_input_batchnorm_cast_bf16, "norm_param_dtype", "f32",
                                      grade="correct", grade_at_freeze="correct"),
    # MPO's full-covariance Gaussian policy built in bf16 (Cholesky of the covariance)
    "mpo-full-covariance-bf16": case(_mpo_full_covariance_policy_bf16, "no_kernel", "bf16",
                                     grade="correct", grade_at_freeze="correct"),
    # GAIL: a bf16 discriminator's sigmoid outputs against fp32 expert/policy labels in binary_cross_entropy
    "gail-discriminator-bce-fp32-labels": case(_gail_discriminator_bce_fp32_labels, "op_dtype", "f32", "bf16",
                                               grade="correct", grade_at_freeze="correct"),
    # --- multi-agent and entity-based policies
    # QMIX: bf16 agent Q-values bmm'ed with the fp32 hypernetwork's mixing weights
    "qmix-hypernetwork-fp32-bmm": case(_qmix_hypernetwork_left_fp32, "batched_matmul_dtype", "bf16", "f32",
                                       grade="correct", grade_at_freeze="correct"),
    # entity attention: bf16 agent queries against keys/values from an fp32 entity encoder
    "entity-attention-fp32-encoder-sdpa": case(_entity_attention_fp32_entity_encoder, "sdpa_dtype", "bf16", "f32",
                                               grade="correct", grade_at_freeze="correct"),
    # SMAC-style visibility matrix (uint8 from numpy) as MultiheadAttention's key_padding_mask
    "smac-uint8-visibility-key-padding-mask": case(_smac_uint8_entity_mask_mha, "mask_dtype",
                                                   grade="correct", grade_at_freeze="correct"),
    # PettingZoo's int8 action_mask inverted with ~ and used by masked_fill
    "pettingzoo-int8-action-mask-masked-fill": case(_pettingzoo_int8_action_mask, "mask_dtype", "int8",
                                                    grade="correct", grade_at_freeze="correct"),
    # --- discrete actions, goals and episode bookkeeping
    # a world model's action input one-hot'd from the replay buffer's uint8 action column
    "world-model-one-hot-uint8-actions": case(_world_model_one_hot_uint8_actions, "index_tensor_dtype",
                                              grade="correct", grade_at_freeze="correct"),
    # R2D2's previous-action embedding looked up with uint8 actions
    "r2d2-prev-action-embedding-uint8": case(_r2d2_previous_action_embedding_uint8, "index_tensor_dtype", "uint8",
                                             grade="correct", grade_at_freeze="correct"),
    # HER 'future' relabelling: the future time step from floor() left float, used as an index
    "her-future-index-float": case(_her_future_goal_index_float, "index_tensor_dtype",
                                   grade="correct", grade_at_freeze="correct"),
    # HER reward recomputed as -(distance > threshold), the gym-robotics formula without the float cast
    "her-reward-negated-bool": case(_her_relabelled_reward_negated_bool, "mask_dtype", "bool",
                                    grade="correct", grade_at_freeze="correct"),
    # done = terminated | truncated with terminated stored as float in the rollout buffer
    "float-terminated-or-truncated": case(_vec_env_float_terminated_or_truncated, "mask_dtype", "f32",
                                          grade="correct", grade_at_freeze="correct"),
    # Atari grayscale by matmul of raw uint8 RGB frames with fp32 luminance weights
    "atari-grayscale-uint8-matmul": case(_atari_grayscale_uint8_frames, "integer_operand", "uint8", "f32",
                                         grade="correct", grade_at_freeze="correct"),
    # per-episode returns summed by scatter_add_ of float64 env rewards into an fp32 tensor
    "episode-returns-scatter-add-f64-rewards": case(_episode_returns_scatter_add_f64_rewards, "indexed_write_dtype",
                                                    grade="correct", grade_at_freeze="correct"),
}
