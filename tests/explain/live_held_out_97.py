"""Held-out live set 97: satellite orbit determination and space situational awareness written by hand in low
precision (two-line-element epochs and Julian dates in float64, Kepler's equation solved by Newton iterations, frame
rotations, conjunction screening with pairwise distances and bool masks, observation tracks with int64 sensor ids,
covariance propagation, learned propagation-error correctors under bf16/fp16). Defects planted by a helper who never
read the rules, written before castwise ran and graded once with the rules frozen at 161ed1a."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "161ed1a"

bf16, f16 = torch.bfloat16, torch.float16
_MU_KM = 398600.4418  # Earth's gravitational parameter, km^3 / s^2
_R_EARTH_KM = 6378.137
_J2000_JD = 2451545.0


def _seeded() -> None:
    torch.manual_seed(0)


def _leo_states(n: int = 6) -> torch.Tensor:
    """ECI positions (km) and velocities (km/s) of a few near-circular LEO objects, fp32."""
    _seeded()
    radius = _R_EARTH_KM + 400.0 + 200.0 * torch.rand(n)
    angle = 2 * math.pi * torch.rand(n)
    speed = torch.sqrt(_MU_KM / radius)
    r = torch.stack([radius * torch.cos(angle), radius * torch.sin(angle), 10.0 * torch.randn(n)], -1)
    v = torch.stack([-speed * torch.sin(angle), speed * torch.cos(angle), 0.01 * torch.randn(n)], -1)
    return torch.cat([r, v], -1)


def _gmst_rotation_numpy(jd: np.ndarray) -> np.ndarray:
    """TEME -> pseudo-Earth-fixed rotation about z by GMST (IAU-82 linear term only), float64."""
    gmst = np.mod(280.46061837 + 360.98564736629 * (jd - _J2000_JD), 360.0) * np.pi / 180.0
    rot = np.zeros((len(jd), 3, 3))
    rot[:, 0, 0] = np.cos(gmst)
    rot[:, 0, 1] = np.sin(gmst)
    rot[:, 1, 0] = -np.sin(gmst)
    rot[:, 1, 1] = np.cos(gmst)
    rot[:, 2, 2] = 1.0
    return rot


def _teme_to_ecef_with_numpy_gmst() -> None:
    jd = np.array([2460310.5, 2460310.5 + 1 / 1440, 2460310.5 + 2 / 1440, 2460310.5 + 3 / 1440, 2460310.51,
                   2460310.52])  # TLE epochs as Julian dates in float64
    rotation = torch.from_numpy(_gmst_rotation_numpy(jd))
    r_teme = _leo_states()[:, :3, None]
    rotation @ r_teme


class _Corrector(nn.Module):
    """A small MLP predicting the SGP4 position error (km) from the propagated state and time since epoch."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(7, 32), nn.SiLU(), nn.Linear(32, 3))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)


def _rtn_frames(state: torch.Tensor) -> torch.Tensor:
    r, v = state[:, :3], state[:, 3:]
    radial = r / r.norm(dim=-1, keepdim=True)
    normal = torch.linalg.cross(r, v)
    normal = normal / normal.norm(dim=-1, keepdim=True)
    transverse = torch.linalg.cross(normal, radial)
    return torch.stack([radial, transverse, normal], 1)


def _rtn_covariance_bf16_frames_fp32_covariance() -> None:
    _seeded()
    corrector = _Corrector().to(bf16)
    state = _leo_states()
    minutes = torch.linspace(0, 90, 6)[:, None]
    corrected = state.to(bf16)
    corrected[:, :3] = corrected[:, :3] + corrector(torch.cat([state, minutes], -1).to(bf16))
    frames = _rtn_frames(corrected)  # bf16 like the corrected state
    covariance_eci = torch.diag_embed(torch.tensor([0.04, 0.04, 0.04])).expand(6, 3, 3)  # km^2, fp32
    torch.bmm(torch.bmm(frames, covariance_eci), frames.transpose(1, 2))


def _differential_correction_lstsq() -> None:
    _seeded()
    state = _leo_states(1)[0].clone().requires_grad_()
    times = torch.linspace(0, 600, 20)  # s

    def predicted_ranges(x: torch.Tensor) -> torch.Tensor:
        r = x[:3] + x[3:] * times[:, None]  # linearised motion over a short arc
        station = torch.tensor([_R_EARTH_KM, 0.0, 0.0])
        return (r - station).norm(dim=-1)

    jacobian = torch.autograd.functional.jacobian(predicted_ranges, state)  # fp32, 20 x 6
    observed = np.linspace(2000.0, 2300.0, 20)  # ranges from the tracking data file, float64
    residuals = torch.from_numpy(observed) - predicted_ranges(state).detach()
    torch.linalg.lstsq(jacobian, residuals[:, None])


def _monte_carlo_dispersion_f64_covariance() -> None:
    _seeded()
    mean = _leo_states(1)[0]  # fp32 state from the propagator
    covariance = np.diag([1e-2, 1e-2, 1e-2, 1e-6, 1e-6, 1e-6])  # from the CDM, read with numpy
    cloud = torch.distributions.MultivariateNormal(mean, covariance_matrix=torch.from_numpy(covariance))
    cloud.sample((500,))


def _ephemeris_lerp_f64_node() -> None:
    _seeded()
    node_times = torch.arange(0.0, 600.0, 60.0)
    ephemeris = torch.from_numpy(np.cumsum(np.full((10, 3), 7.5), axis=0))  # positions from an OEM file, float64
    query = torch.tensor([95.0, 250.0, 433.0])
    left = torch.searchsorted(node_times, query) - 1
    w = ((query - node_times[left]) / 60.0)[:, None]
    predicted_nodes = ephemeris[left + 1].float() + 0.01 * torch.randn(3, 3)  # a model's fp32 refinement
    torch.lerp(ephemeris[left], predicted_nodes, w)


def _corrector_autocast_f64_features() -> None:
    _seeded()
    corrector = _Corrector()
    state = torch.from_numpy(np.array([[6778.1, 12.4, -3.3, -0.01, 7.67, 0.02]]))  # sgp4 output, float64
    minutes_since_epoch = torch.tensor([[42.0]], dtype=torch.float64)
    with torch.autocast("cpu", dtype=bf16):
        corrector(torch.cat([state / _R_EARTH_KM, minutes_since_epoch / 1440.0], -1))


def _residual_encoder_conv1d_bf16() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Conv1d(3, 16, 5, padding=2, bias=False), nn.BatchNorm1d(16), nn.GELU()).to(bf16)
    residuals = torch.randn(4, 3, 96) * 0.05  # RTN residuals (km) of 4 objects over 96 epochs, fp32
    encoder(residuals)


def _track_gru_cell_numpy_state() -> None:
    _seeded()
    cell = nn.GRUCell(4, 16)
    h = torch.from_numpy(np.zeros((3, 16)))  # per-track state kept in a numpy array between passes
    for angles in torch.randn(5, 3, 4):  # right ascension, declination and their rates per track
        h = cell(angles, h)


def _corrector_input_layernorm_bf16() -> None:
    _seeded()
    model = nn.Sequential(nn.LayerNorm(7), nn.Linear(7, 32), nn.SiLU(), nn.Linear(32, 3)).to(bf16)
    features = torch.cat([_leo_states(), torch.linspace(0, 1, 6)[:, None]], -1)  # fp32 features
    model(features)


def _sensor_site_keys_sdpa() -> None:
    _seeded()
    site_embedding = nn.Embedding(12, 32)  # fp32 table of sensor sites, cached outside the bf16 model
    sensor_ids = torch.tensor([[0, 3, 3, 7, 11]])
    keys = site_embedding(sensor_ids)[:, None]
    queries = torch.randn(1, 1, 4, 32, dtype=bf16)  # bf16 per-object queries
    F.scaled_dot_product_attention(queries, keys, keys)


def _error_ellipsoid_eigh_bf16() -> None:
    _seeded()
    a = torch.randn(8, 3, 3)
    covariance = (a @ a.transpose(1, 2) + 0.1 * torch.eye(3)).to(bf16)  # predicted by the bf16 corrector head
    torch.linalg.eigh(covariance)


def _stm_liouville_det_fp16() -> None:
    _seeded()
    dt = 60.0
    a = torch.zeros(6, 6)
    a[:3, 3:] = torch.eye(3)
    a[3:, :3] = -(_MU_KM / 6778.0**3) * torch.eye(3)
    stm = (torch.eye(6) + a * dt).half()  # STM kept in fp16 alongside the fp16 learned propagator
    torch.linalg.det(stm)


def _conjunction_topk_bool() -> None:
    _seeded()
    positions = _leo_states(8)[:, :3]
    miss = torch.cdist(positions, positions) + torch.eye(8) * 1e9
    flagged = (miss < 5000.0).any(-1)
    flagged.topk(3)


def _along_track_periodogram_rfft_bf16() -> None:
    _seeded()
    t = torch.arange(256.0)
    residuals = (0.3 * torch.sin(2 * math.pi * t / 92.0) + 0.05 * torch.randn(256)).to(bf16)  # corrector output
    torch.fft.rfft(residuals - residuals.mean()).abs()


def _observation_time_jitter_randn_like() -> None:
    _seeded()
    obs_ns = torch.tensor([1_704_067_200_000_000_000, 1_704_067_201_000_000_000])  # int64 ns time tags
    obs_ns + (torch.randn_like(obs_ns) * 1_000).long()  # simulate 1 us clock jitter


def _kepler_newton_int64_mean_anomaly() -> None:
    m = torch.tensor([0, 1, 3])  # test fixture: whole-number mean anomalies (rad) written as Python ints
    e = torch.tensor([0.001, 0.2, 0.7])
    ecc_anomaly = m.clone()
    for _ in range(8):
        ecc_anomaly -= (ecc_anomaly - e * torch.sin(ecc_anomaly) - m) / (1 - e * torch.cos(ecc_anomaly))


def _norad_ids_uint64_embedding() -> None:
    norad = np.array([25544, 43013, 48274, 20580], dtype=np.uint64)  # catalog numbers from a structured array
    object_embedding = nn.Embedding(100_000, 8)
    object_embedding(torch.from_numpy(norad))


def _tle_line_bytes_embedding() -> None:
    line1 = "1 25544U 98067A   24001.50000000  .00016717  00000-0  10270-3 0  9005"
    chars = torch.frombuffer(bytearray(line1, "ascii"), dtype=torch.uint8)
    char_embedding = nn.Embedding(128, 16)
    char_embedding(chars[None])


def _sensor_ids_pandas_float_index() -> None:
    _seeded()
    sensor_bias = nn.Parameter(torch.zeros(30, 2))  # per-sensor RA/Dec biases (arcsec)
    sensor_ids = np.array([3.0, 17.0, 17.0, 29.0, 3.0])  # pandas column with NaN rows dropped: float64
    sensor_bias[torch.from_numpy(sensor_ids)]


def _new_conjunctions_bool_subtract() -> None:
    _seeded()
    before = _leo_states(6)[:, :3]
    after = before + 30.0 * torch.randn(6, 3)
    close_before = torch.cdist(before, before) < 2000.0
    close_after = torch.cdist(after, after) < 2000.0
    (close_after - close_before).nonzero()


def _track_padding_int64_mha() -> None:
    _seeded()
    attention = nn.MultiheadAttention(16, 4, batch_first=True)
    tracks = torch.randn(2, 6, 16)
    lengths = np.array([6, 4])
    padding = torch.from_numpy((np.arange(6)[None] >= lengths[:, None]).astype(np.int64))
    attention(tracks, tracks, tracks, key_padding_mask=padding)


def _maneuver_detector_bool_target() -> None:
    _seeded()
    logits = torch.randn(8)
    maneuvered = torch.tensor([0.02, 0.3, 0.01, 0.0, 0.5, 0.04, 0.0, 0.2]) > 0.1  # delta-v over threshold (m/s)
    F.binary_cross_entropy_with_logits(logits, maneuvered)


def _laser_ranging_int64_norm() -> None:
    r_mm = torch.tensor([[6_778_137_000, 12_400_000, -3_300_000]])  # SLR normal point positions, int64 mm
    station_mm = torch.tensor([[6_378_137_000, 0, 0]])
    torch.linalg.vector_norm(r_mm - station_mm, dim=-1)


def _quality_flags_f64_bitwise() -> None:
    flags = torch.from_numpy(np.array([0.0, 4.0, 5.0, 1.0]))  # bit flags column read with NaN support: float64
    saturated = (flags & 4) != 0
    saturated.sum()


def _visibility_mask_interpolate() -> None:
    elevation = torch.tensor([[[-5.0, 2.0, 12.0, 25.0, 14.0, 3.0, -2.0, -8.0]]])  # one pass, 1-min steps
    visible = elevation > 10.0
    F.interpolate(visible, scale_factor=6)  # to 10-s steps for the scheduler


def _gravitational_parameter_new_full_fp16() -> None:
    _seeded()
    r = torch.randn(8, 3, dtype=f16)  # positions of the fp16 learned propagator (scaled units)
    mu = r.new_full((8, 1), _MU_KM)
    -mu * r / r.norm(dim=-1, keepdim=True) ** 3


def _halved_corrector_grad_scaler() -> None:
    _seeded()
    corrector = _Corrector().half()
    optimizer = torch.optim.Adam(corrector.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    features = torch.randn(16, 7).half()
    target_error = torch.randn(16, 3)
    loss = F.mse_loss(corrector(features).float(), target_error)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(corrector.parameters(), 1.0)


def _kepler_implicit_gradient_numpy() -> None:
    mean_anomaly = nn.Parameter(torch.tensor([0.3, 1.2, 2.5]))
    e = 0.2
    m = mean_anomaly.detach().numpy().astype(np.float64)
    ecc = m.copy()
    for _ in range(10):
        ecc -= (ecc - e * np.sin(ecc) - m) / (1 - e * np.cos(ecc))
    d_ecc_d_m = 1.0 / (1.0 - e * np.cos(ecc))  # implicit function theorem on E - e sin E = M
    mean_anomaly.grad = torch.from_numpy(d_ecc_d_m)


def _track_association_bf16_cost_numpy() -> None:
    _seeded()
    predicted = torch.randn(4, 2, dtype=bf16)  # bf16 tracker's predicted RA/Dec (deg)
    observed = torch.randn(5, 2, dtype=bf16)
    cost = (predicted[:, None] - observed[None]).abs().sum(-1)
    np.argmin(cost.numpy(), axis=1)  # greedy association before the Hungarian step


def _fp16_metres_state_nan_normal() -> None:
    r_m = torch.tensor([[6_778_137.0, 12_400.0, -3_300.0]]).half()  # metres, not km, in the fp16 model
    direction = r_m / r_m.norm(dim=-1, keepdim=True)
    torch.distributions.Normal(direction, 0.01).rsample()


CASES: dict[str, LiveCase] = {
    # TEME to Earth-fixed with GMST rotation matrices built in numpy (float64) applied with @ to fp32 positions
    "teme-ecef-numpy-gmst-rotation-matmul": case(_teme_to_ecef_with_numpy_gmst, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RTN covariance: frames from the bf16-corrected state bmm'ed with an fp32 ECI covariance
    "rtn-covariance-bmm-bf16-frames-fp32-covariance": case(_rtn_covariance_bf16_frames_fp32_covariance,
                                                           "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # batch least-squares differential correction: fp32 autograd Jacobian, float64 residuals from the tracking file
    "differential-correction-lstsq-f64-residuals": case(_differential_correction_lstsq, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Monte Carlo dispersion: MultivariateNormal with an fp32 mean state and a float64 CDM covariance, sampled
    "monte-carlo-mvn-f64-cdm-covariance": case(_monte_carlo_dispersion_f64_covariance, "matmul_dtype", "f64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # ephemeris interpolation: lerp from a float64 OEM node toward an fp32 refined node
    "ephemeris-lerp-f64-node-fp32-node": case(_ephemeris_lerp_f64_node, "lerp_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # learned SGP4 error corrector under bf16 autocast fed float64 sgp4 state features (autocast leaves f64 alone)
    "corrector-autocast-f64-sgp4-features": case(_corrector_autocast_f64_features, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # residual-sequence encoder (bias-free Conv1d before BatchNorm) cast to bf16, fed fp32 RTN residuals
    "residual-encoder-conv1d-bf16-fp32-residuals": case(_residual_encoder_conv1d_bf16, "conv_weight_dtype", "f32",
                                                        "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-track GRUCell whose hidden state is carried in a numpy float64 array
    "track-grucell-numpy-f64-hidden": case(_track_gru_cell_numpy_state, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # corrector cast to bf16 whose input LayerNorm gets the fp32 state features directly
    "corrector-input-layernorm-bf16-fp32-features": case(_corrector_input_layernorm_bf16, "norm_param_dtype",
                                                         "f32",
        grade="correct", grade_at_freeze="correct"),
    # attention over observing sites: fp32 cached site embeddings as keys/values for bf16 object queries
    "sensor-site-keys-fp32-sdpa-bf16-queries": case(_sensor_site_keys_sdpa, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # error ellipsoid axes from eigh of the bf16 corrector head's predicted covariance
    "error-ellipsoid-eigh-bf16-covariance": case(_error_ellipsoid_eigh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Liouville check det(STM) = 1 on a state transition matrix kept in fp16
    "stm-liouville-det-fp16": case(_stm_liouville_det_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # conjunction screening: the top objects picked with topk over the bool close-approach flags
    "conjunction-flags-topk-bool": case(_conjunction_topk_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="wrong",
        why=('At freeze (161ed1a) castwise gave integer_operand [bool] (high confidence). topk has no kernel for bool data on the CPU (the flags are picked as they are, no float math asked), a missing kernel as the corpus files argmax/sum/where of bool; castwise read "does not support bool dtypes" as bool data fed to float math and fixed it with x.float(). Expectation corrected after grading from no_kernel to integer_operand: the corpus '
             'files topk on a bool tensor as integer_operand (live_held_out_33 topk-on-bool-in-box-mask); the frozen '
             'grade is kept.')),
    # along-track residual periodogram with rfft on the bf16 corrector's residuals
    "along-track-periodogram-rfft-bf16": case(_along_track_periodogram_rfft_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # simulated clock jitter drawn with randn_like of the int64 nanosecond observation time tags
    "observation-time-jitter-randn-like-int64": case(_observation_time_jitter_randn_like, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # Kepler's equation by Newton iterations started from an int64 mean anomaly, updated in place
    "kepler-newton-int64-mean-anomaly-in-place": case(_kepler_newton_int64_mean_anomaly, "result_cast", "f32",
                                                      "int64",
        grade="correct", grade_at_freeze="correct"),
    # NORAD catalog numbers as numpy uint64 looked up in an object embedding
    "norad-ids-uint64-embedding": case(_norad_ids_uint64_embedding, "index_tensor_dtype", "uint64",
        grade="correct", grade_at_freeze="correct"),
    # a TLE line's ASCII bytes from frombuffer (uint8) into a character embedding
    "tle-line-ascii-uint8-embedding": case(_tle_line_bytes_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # per-sensor bias table indexed by sensor ids that pandas turned into float64
    "sensor-ids-pandas-f64-bias-index": case(_sensor_ids_pandas_float_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # newly close pairs found by subtracting the previous bool close-approach matrix
    "new-conjunctions-bool-subtract": case(_new_conjunctions_bool_subtract, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # observation-track padding mask built in numpy as int64 given to MultiheadAttention
    "track-padding-int64-key-padding-mask": case(_track_padding_int64_mha, "mask_dtype",
        grade="correct", grade_at_freeze="partly",
        why=('At freeze (161ed1a) castwise gave mask_dtype [] (high confidence). The kind, cause and fix are right; the expectation lists int64, which the message ("only bool and floating types of key_padding_mask are supported") does not show, so it misses the dtype: the writer\'s error against the corpus convention of listing only the dtypes the message shows (the earlier mha-key-padding-int-mask lists none), left as written because expectations are not changed after grading. Corrected after grading to list no '
             'dtype, as the convention says; the frozen grade is kept.')),
    # maneuver detector trained with BCE against a bool maneuvered target
    "maneuver-detector-bce-bool-target": case(_maneuver_detector_bool_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # laser-ranging station-to-satellite range by vector_norm of int64 millimetre positions
    "laser-ranging-int64-mm-vector-norm": case(_laser_ranging_int64_norm, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # observation quality bit flags read as float64 tested with &
    "quality-flags-f64-bitwise-and": case(_quality_flags_f64_bitwise, "mask_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a pass's bool visibility mask upsampled to the scheduler's step with interpolate
    "visibility-mask-bool-interpolate": case(_visibility_mask_interpolate, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Earth's mu (398600.4418 km^3/s^2) made with new_full on the fp16 learned propagator's positions
    "gravitational-parameter-new-full-fp16": case(_gravitational_parameter_new_full_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the propagation-error corrector halved with .half() and trained through GradScaler
    "halved-corrector-grad-scaler-unscale": case(_halved_corrector_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # dE/dM from the implicit function theorem in numpy (float64) assigned as the fp32 mean anomaly's grad
    "kepler-implicit-gradient-f64-assigned": case(_kepler_implicit_gradient_numpy, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 predicted-vs-observed angle cost handed to numpy with .numpy() for association
    "track-association-bf16-cost-numpy": case(_track_association_bf16_cost_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # positions in metres cast to fp16 overflow to inf, the unit vector is NaN, Normal rejects it
    "fp16-metres-state-nan-normal": case(_fp16_metres_state_nan_normal, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
