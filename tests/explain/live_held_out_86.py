"""Held-out live set 86: wireless communications and digital signal processing written by hand in low precision (OFDM
resource grids with complex64/complex128 FFTs, pilot-based channel estimation and MIMO equalisation, QAM mapping and
demapping with int64 symbol ids, bit LLRs, LDPC and polar coding with integer and bool parity checks, neural
receivers under bf16/fp16, SNR sweeps and channel models from numpy, pilot masks as bool). Defects planted by a
helper who never read the rules, written before castwise ran and graded once with the rules frozen at 3957142."""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg
import scipy.sparse
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "3957142"

bf16, f16 = torch.bfloat16, torch.float16
_N_FFT = 64
_SYMBOLS = 14  # OFDM symbols in one slot
_SQRT2 = math.sqrt(2.0)


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _qpsk(n: int, g: torch.Generator) -> torch.Tensor:
    bits = torch.randint(0, 2, (n, 2), generator=g)
    return ((1 - 2 * bits[:, 0]) + 1j * (1 - 2 * bits[:, 1])).to(torch.complex64) / _SQRT2


def _qam16_constellation() -> torch.Tensor:
    levels = torch.tensor([-3.0, -1.0, 1.0, 3.0])
    return torch.complex(levels[:, None].expand(4, 4), levels[None, :].expand(4, 4)).reshape(-1) / math.sqrt(10.0)


def _awgn(shape: tuple[int, ...], snr_db: float, g: torch.Generator) -> torch.Tensor:
    sigma = 10 ** (-snr_db / 20) / _SQRT2
    return torch.complex(torch.randn(shape, generator=g), torch.randn(shape, generator=g)) * sigma


def _parity_check_matrix(checks: int = 12, bits: int = 24) -> np.ndarray:
    return (np.random.default_rng(7).random((checks, bits)) < 0.25).astype(np.uint8)


# --- bits, symbols and codes


def _ldpc_syndrome_bool_parity_check() -> None:
    g = _gen(1)
    parity_check = torch.from_numpy(_parity_check_matrix()).bool()  # kept bool to save memory
    llr = torch.randn(24, generator=g) * 4
    hard = llr < 0
    syndrome = (parity_check @ hard) % 2
    syndrome.any()


def _polar_generator(n: int) -> np.ndarray:
    kernel = np.array([[1, 0], [1, 1]], dtype=np.uint8)
    generator = kernel
    for _ in range(int(math.log2(n)) - 1):
        generator = np.kron(generator, kernel)
    return generator


def _polar_encoder_uint8_generator() -> None:
    g = _gen(2)
    n, info_positions = 16, torch.tensor([7, 11, 12, 13, 14, 15])
    u = torch.zeros(8, n, dtype=torch.long)
    u[:, info_positions] = torch.randint(0, 2, (8, len(info_positions)), generator=g)
    codewords = (u @ torch.from_numpy(_polar_generator(n))) % 2
    codewords.sum()


def _qam16_map_complex_of_integer_levels() -> None:
    g = _gen(3)
    bits = torch.randint(0, 2, (256, 4), generator=g)
    i_level = (1 - 2 * bits[:, 0]) * (2 - (1 - 2 * bits[:, 2]))  # Gray PAM-4 on I: +-1, +-3
    q_level = (1 - 2 * bits[:, 1]) * (2 - (1 - 2 * bits[:, 3]))
    symbols = torch.complex(i_level, q_level) / math.sqrt(10.0)
    symbols.abs().pow(2).mean()


def _gray_demap_shift_on_float_slicer_ids() -> None:
    g = _gen(4)
    symbols = _qam16_constellation()[torch.randint(0, 16, (128,), generator=g)]
    y = symbols + _awgn((128,), 18.0, g)
    pam_index = torch.round((y.real * math.sqrt(10.0) + 3) / 2).clamp(0, 3)  # PAM-4 slicer, 0..3
    gray = pam_index ^ (pam_index >> 1)
    gray.sum()


def _ldpc_scipy_int32_edges_take() -> None:
    g = _gen(5)
    edges = scipy.sparse.csr_matrix(_parity_check_matrix()).tocoo()  # Tanner graph edges from the alist file
    check_of_edge, var_of_edge = torch.from_numpy(edges.row), torch.from_numpy(edges.col)
    channel_llr = torch.randn(24, generator=g) * 3
    v2c = torch.take(channel_llr, var_of_edge)  # first iteration: each edge carries its variable's channel LLR
    torch.zeros(12).index_add_(0, check_of_edge, v2c.tanh().abs().log())


def _bit_bce_on_unpackbits_uint8_target() -> None:
    g = _gen(6)
    payload = np.frombuffer(b"castwise OFDM frame 0042", dtype=np.uint8)
    bits = torch.from_numpy(np.unpackbits(payload))  # 0/1 as uint8
    tx = 1.0 - 2.0 * bits.float()
    rx = tx + 0.5 * torch.randn(tx.shape, generator=g)
    demapper = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1))
    logits = demapper(rx[:, None]).squeeze(-1)
    F.binary_cross_entropy_with_logits(logits, bits)


def _wifi_data_subcarriers_uint8_index_select() -> None:
    g = _gen(7)
    # 802.11a: 48 data subcarriers among the 64 FFT bins, the table stored as uint8 in the PHY config
    data_bins = np.array([k % _N_FFT for k in range(-26, 27) if k not in (0, -21, -7, 7, 21)], dtype=np.uint8)
    rx_time = torch.complex(torch.randn(4, _N_FFT, generator=g), torch.randn(4, _N_FFT, generator=g))
    rx_freq = torch.fft.fft(rx_time, norm="ortho")
    rx_freq.index_select(-1, torch.from_numpy(data_bins))


def _bpsk_int64_symbols_randn_like_noise() -> None:
    g = _gen(8)
    bits = torch.randint(0, 2, (1024,), generator=g)
    tx = 1 - 2 * bits  # BPSK
    sigma = 10 ** (-6.0 / 20)
    rx = tx + sigma * torch.randn_like(tx)
    (rx < 0).ne(bits.bool()).sum()


def _normalised_min_sum_int8_messages_scaled_in_place() -> None:
    g = _gen(9)
    # fixed-point decoder model: 6-bit messages in int8, normalised min-sum with alpha = 0.75
    v2c = torch.clamp(torch.round(torch.randn(12, 6, generator=g) * 16), -31, 31).to(torch.int8)
    sign = torch.where(v2c < 0, -1, 1)
    sign_excl = sign.prod(-1, keepdim=True) * sign
    two_smallest = v2c.abs().topk(2, dim=-1, largest=False).values
    mag = v2c.abs()
    min_excl = torch.where(mag == two_smallest[:, :1], two_smallest[:, 1:], two_smallest[:, :1])
    c2v = (sign_excl * min_excl).to(torch.int8)
    c2v.mul_(0.75)


# --- OFDM, pulse shaping, synchronisation


def _neural_receiver_complex_grid_conv2d() -> None:
    g = _gen(10)
    y = torch.complex(torch.randn(2, _SYMBOLS, _N_FFT, generator=g), torch.randn(2, _SYMBOLS, _N_FFT, generator=g))
    h_ls = torch.ones(2, _SYMBOLS, _N_FFT, dtype=torch.complex64)  # interpolated LS estimate
    receiver = nn.Sequential(nn.Conv2d(2, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 4, 3, padding=1))
    receiver(torch.stack([y, h_ls], dim=1))  # view_as_real forgotten


def _rrc_taps(beta: float, sps: int, span: int) -> np.ndarray:
    t = np.arange(-span * sps // 2, span * sps // 2 + 1) / sps  # commpy-style: float64 taps
    taps = np.empty_like(t)
    for i, ti in enumerate(t):
        if ti == 0.0:
            taps[i] = 1.0 - beta + 4 * beta / np.pi
        elif abs(abs(ti) - 1 / (4 * beta)) < 1e-9:
            taps[i] = beta / _SQRT2 * ((1 + 2 / np.pi) * np.sin(np.pi / (4 * beta))
                                       + (1 - 2 / np.pi) * np.cos(np.pi / (4 * beta)))
        else:
            taps[i] = (np.sin(np.pi * ti * (1 - beta)) + 4 * beta * ti * np.cos(np.pi * ti * (1 + beta))) / (
                np.pi * ti * (1 - (4 * beta * ti) ** 2))
    return taps / np.sqrt(np.sum(taps**2))


def _rrc_pulse_shaping_numpy_float64_taps() -> None:
    g = _gen(11)
    sps = 8
    symbols = _qpsk(64, g)
    upsampled = torch.zeros(1, 2, 64 * sps)
    upsampled[0, 0, ::sps] = symbols.real
    upsampled[0, 1, ::sps] = symbols.imag
    taps = torch.from_numpy(_rrc_taps(0.35, sps, 6))
    F.conv1d(upsampled, taps.expand(2, 1, -1), groups=2, padding=taps.numel() // 2)


def _ofdm_subcarrier_mapping_into_real_buffer() -> None:
    g = _gen(12)
    active = torch.cat([torch.arange(1, 27), torch.arange(_N_FFT - 26, _N_FFT)])
    qam = _qpsk(_SYMBOLS * len(active), g).reshape(_SYMBOLS, len(active))
    freq = torch.zeros(_SYMBOLS, _N_FFT)  # IFFT input buffer
    freq[:, active] = qam
    torch.fft.ifft(freq, norm="ortho")


def _pilot_insertion_masked_scatter_numpy_pilots() -> None:
    pilot_mask = torch.zeros(_SYMBOLS, _N_FFT, dtype=torch.bool)
    pilot_mask[::4, ::6] = True  # comb pilots
    rng = np.random.default_rng(13)
    pilots = np.exp(1j * np.pi / 4 * (2 * rng.integers(0, 4, int(pilot_mask.sum())) + 1))  # QPSK pilots, numpy
    grid = torch.zeros(_SYMBOLS, _N_FFT, dtype=torch.complex64)
    grid.masked_scatter_(pilot_mask, torch.from_numpy(pilots))


def _usrp_sc16_capture_view_as_complex() -> None:
    raw = np.random.default_rng(14).integers(-2048, 2048, 2 * 4096).astype(np.int16)  # sc16 I/Q from the capture
    iq = torch.view_as_complex(torch.from_numpy(raw).view(-1, 2))
    iq / 32768.0


def _awgn_complex_noise_added_in_place_to_real_bpsk() -> None:
    g = _gen(15)
    bits = torch.randint(0, 2, (512,), generator=g)
    rx = 1.0 - 2.0 * bits.float()  # BPSK, real
    rx.add_(_awgn((512,), 4.0, g))


def _fronthaul_fp8_iq_times_bf16_prb_scale() -> None:
    g = _gen(16)
    grid = torch.complex(torch.randn(_N_FFT // 2, generator=g), torch.randn(_N_FFT // 2, generator=g))
    iq = torch.view_as_real(grid[:24]).reshape(2, 12, 2)  # two PRBs of 12 subcarriers
    scale = iq.abs().amax(dim=(1, 2), keepdim=True) / 448.0
    compressed = (iq / scale).to(torch.float8_e4m3fn)  # fronthaul payload
    side_info = scale.to(bf16)  # per-PRB scale sent with the bf16 control words
    compressed * side_info


# --- channel estimation and equalisation


def _pilot_channel_interpolation_linear_complex() -> None:
    g = _gen(17)
    pilot_bins = torch.arange(0, _N_FFT, 6)
    y_p = torch.complex(torch.randn(_SYMBOLS, len(pilot_bins), generator=g),
                        torch.randn(_SYMBOLS, len(pilot_bins), generator=g))
    x_p = torch.ones(_SYMBOLS, len(pilot_bins), dtype=torch.complex64)
    h_ls = y_p / x_p
    F.interpolate(h_ls[None], size=_N_FFT, mode="linear", align_corners=True)


def _ml_detection_argmin_complex_distances() -> None:
    g = _gen(18)
    constellation = _qam16_constellation()
    tx = constellation[torch.randint(0, 16, (256,), generator=g)]
    y = tx + _awgn((256,), 15.0, g)
    distances = (y[:, None] - constellation[None, :]) ** 2  # abs() forgotten
    distances.argmin(-1)


def _ls_cir_estimate_lstsq_numpy_dft() -> None:
    g = _gen(19)
    taps, pilot_bins = 8, np.arange(0, _N_FFT, 4)
    dft = np.exp(-2j * np.pi * np.outer(pilot_bins, np.arange(taps)) / _N_FFT)  # numpy: complex128
    x_p = _qpsk(len(pilot_bins), g)
    h = torch.complex(torch.randn(taps, generator=g), torch.randn(taps, generator=g)) / 4
    design = x_p[:, None] * torch.from_numpy(dft)
    y_p = x_p * (torch.from_numpy(dft).to(torch.complex64) @ h) + _awgn((len(pilot_bins),), 20.0, g)
    torch.linalg.lstsq(design, y_p[:, None])


def _lmmse_smoothing_scipy_toeplitz_correlation() -> None:
    g = _gen(20)
    corr = torch.from_numpy(scipy.linalg.toeplitz(0.9 ** np.arange(_N_FFT)))  # exponential correlation, float64
    snr = 10 ** (15 / 10)
    smoother = corr @ torch.linalg.inv(corr + torch.eye(_N_FFT, dtype=corr.dtype) / snr)
    h_ls = torch.complex(torch.randn(_N_FFT, _SYMBOLS, generator=g), torch.randn(_N_FFT, _SYMBOLS, generator=g))
    smoother @ h_ls


def _mimo_mmse_bmm_numpy_received() -> None:
    g = _gen(21)
    subcarriers, n_rx, n_tx = 12, 4, 2
    h = torch.complex(torch.randn(subcarriers, n_rx, n_tx, generator=g),
                      torch.randn(subcarriers, n_rx, n_tx, generator=g)) / _SQRT2
    noise_var = 0.05
    gram = h.mH @ h + noise_var * torch.eye(n_tx)
    mmse = torch.linalg.solve(gram, h.mH)  # complex64
    rng = np.random.default_rng(21)
    y = rng.standard_normal((subcarriers, n_rx, 1)) + 1j * rng.standard_normal((subcarriers, n_rx, 1))  # simulator
    torch.bmm(mmse, torch.from_numpy(y))


def _channel_tracking_gru_complex_pilots() -> None:
    g = _gen(22)
    pilots = 11
    h_pilots = torch.complex(torch.randn(2, _SYMBOLS, pilots, generator=g), torch.randn(2, _SYMBOLS, pilots, generator=g))
    tracker = nn.GRU(pilots, 32, batch_first=True)  # tracks the channel across OFDM symbols
    tracker(h_pilots)


# --- neural receivers, demappers and decoders


def _ber_xor_bf16_hard_decisions() -> None:
    g = _gen(23)
    bits = torch.randint(0, 2, (256, 2), generator=g).bool()
    y = torch.view_as_real(_qpsk(256, g))
    receiver = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
    with torch.autocast("cpu", dtype=bf16):
        llr = receiver(y)
    bits_hat = (llr < 0).to(llr.dtype)
    (bits_hat ^ bits).sum()


def _fp16_equaliser_constellation_to_numpy() -> None:
    g = _gen(24)
    features = torch.randn(128, 6, generator=g)  # y, h_hat and noise variance per resource element
    equaliser = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 2))
    with torch.no_grad(), torch.autocast("cpu", dtype=f16):
        iq = equaliser(features)
    symbols = torch.view_as_complex(iq.contiguous())
    np.asarray(symbols.numpy())  # for the constellation scatter plot


def _neural_demapper_bce_bf16_probabilities() -> None:
    g = _gen(25)
    constellation = _qam16_constellation()
    ids = torch.randint(0, 16, (256,), generator=g)
    y = constellation[ids] + _awgn((256,), 12.0, g)
    bits = ((ids[:, None] >> torch.arange(3, -1, -1)) & 1).float()
    demapper = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 4)).to(bf16)
    probs = torch.sigmoid(demapper(torch.view_as_real(y).to(bf16)))
    F.binary_cross_entropy(probs, bits)


def _mlp_demapper_numpy_snr_feature() -> None:
    g = _gen(26)
    snr_db = np.arange(0.0, 20.0, 2.0)  # the SNR sweep
    per_snr = 32
    snr_column = torch.from_numpy(np.repeat(snr_db, per_snr)[:, None])
    y = _qpsk(len(snr_db) * per_snr, g)
    features = torch.cat([torch.view_as_real(y), snr_column], dim=-1)
    demapper = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 2))
    demapper(features)


def _bp_decoder_damping_lerp_bf16_messages() -> None:
    g = _gen(27)
    edges = int(_parity_check_matrix().sum())
    c2v_old = torch.zeros(edges)  # message memory, fp32
    check_node = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1)).to(bf16)  # learned check-node update
    c2v_new = check_node(torch.randn(edges, 1, generator=g).to(bf16)).squeeze(-1)
    damping = 0.3
    torch.lerp(c2v_old, c2v_new, 1 - damping)


def _exact_llr_fp16_high_snr_anomaly() -> None:
    g = _gen(28)
    levels = torch.tensor([-3.0, -1.0, 1.0, 3.0]) / math.sqrt(5.0)
    first_bit = torch.tensor([False, False, True, True])
    gain = nn.Parameter(torch.ones(1))  # learned AGC in front of the demapper
    y = levels[torch.randint(0, 4, (64,), generator=g)] + 0.03 * torch.randn(64, generator=g)
    y = (y * gain).half()
    n0 = torch.tensor(10 ** (-20 / 10), dtype=f16)
    likelihood = torch.exp(-((y[:, None] - levels.half()[None]) ** 2) / n0)  # exact log-MAP, no logsumexp
    llr = torch.log((likelihood * ~first_bit).sum(-1)) - torch.log((likelihood * first_bit).sum(-1))
    with torch.autograd.detect_anomaly():
        F.binary_cross_entropy_with_logits(llr.float(), (y > 0).float()).backward()


def _model_free_transmitter_fp32_gradient() -> None:
    g = _gen(29)
    constellation = nn.Parameter(torch.randn(16, 2, generator=g).to(bf16))  # learned 16-point constellation
    sigma = 0.1
    perturbation = torch.randn(16, 2, generator=g) * sigma  # exploration noise, fp32
    loss_per_point = torch.rand(16, generator=g)  # receiver's loss fed back per transmitted point
    grad = ((loss_per_point - loss_per_point.mean())[:, None] * perturbation) / sigma**2
    constellation.grad = grad


def _rate_recovery_shortened_llr_1e5_fp16() -> None:
    g = _gen(30)
    n, shortened = 64, torch.arange(56, 64)
    received_llr = (torch.randn(56, generator=g) * 4).half()  # fp16 LLRs from the neural receiver
    llr = torch.zeros(n, dtype=f16)
    llr[:56] = received_llr
    known_zero = torch.zeros(n, dtype=torch.bool)
    known_zero[shortened] = True
    llr.masked_fill_(known_zero, 1e5)  # shortened bits are known zeros


CASES: dict[str, LiveCase] = {
    # LDPC syndrome check: the bool parity-check matrix @ the bool hard decisions
    "ldpc-syndrome-bool-parity-check-matmul": case(_ldpc_syndrome_bool_parity_check, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # polar encoding: int64 message bits @ the Kronecker generator built with numpy as uint8
    "polar-encoder-int64-bits-uint8-generator": case(_polar_encoder_uint8_generator, "integer_operand", "int64",
                                                     "uint8",
        grade="correct", grade_at_freeze="correct"),
    # 16-QAM mapping with torch.complex of the int64 Gray PAM-4 levels
    "qam16-map-torch-complex-int64-levels": case(_qam16_map_complex_of_integer_levels, "integer_operand", "int64",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (3957142) castwise gave no_kernel [int64] (high confidence). torch.complex refuses the "
             "int64 Gray PAM-4 levels because it builds a complex tensor only from floating real and imaginary "
             "parts: integer data fed to an op that needs floats, fixed by making the levels float before "
             "torch.complex; castwise read the 'Expected both inputs to be Half, Float or Double tensors but got "
             "Long and Long' requirement as an op with no int64 kernel, the wrong kind with high confidence.")),
    # Gray demapping by ids ^ (ids >> 1) on the slicer's PAM-4 indices, left float by round/clamp
    "gray-demap-shift-float-slicer-ids": case(_gray_demap_shift_on_float_slicer_ids, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # LDPC message passing: Tanner-graph edge indices from scipy's int32 COO columns used with torch.take
    "ldpc-scipy-int32-edges-take": case(_ldpc_scipy_int32_edges_take, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # bit-wise BCE-with-logits against np.unpackbits' uint8 bits
    "bit-bce-logits-unpackbits-uint8-target": case(_bit_bce_on_unpackbits_uint8_target, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # 802.11a data-subcarrier table stored as uint8, passed to index_select on the FFT output
    "wifi-data-subcarriers-uint8-index-select": case(_wifi_data_subcarriers_uint8_index_select,
                                                     "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # BPSK symbols made as 1 - 2 * bits (int64), AWGN drawn with randn_like of them
    "bpsk-int64-symbols-randn-like-noise": case(_bpsk_int64_symbols_randn_like_noise, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # fixed-point normalised min-sum: int8 check-to-variable messages scaled in place by 0.75
    "normalised-min-sum-int8-messages-mul-inplace": case(_normalised_min_sum_int8_messages_scaled_in_place,
                                                         "result_cast", "f32", "int8",
        grade="correct", grade_at_freeze="correct"),
    # a CNN neural receiver given the complex64 grid and LS estimate stacked as channels (no view_as_real)
    "neural-receiver-complex-grid-conv2d": case(_neural_receiver_complex_grid_conv2d, "conv_weight_dtype",
                                                "complex64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # RRC pulse shaping with commpy-style numpy taps (float64) as the conv1d weight on fp32 upsampled I/Q
    "rrc-pulse-shaping-numpy-f64-taps-conv1d": case(_rrc_pulse_shaping_numpy_float64_taps, "conv_weight_dtype",
                                                    "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # OFDM modulator: complex QAM symbols written onto active subcarriers of a torch.zeros (real) IFFT buffer
    "ofdm-subcarrier-mapping-complex-into-real-buffer": case(_ofdm_subcarrier_mapping_into_real_buffer,
                                                             "indexed_write_dtype", "f32", "complex64",
        grade="correct", grade_at_freeze="correct"),
    # comb pilots generated in numpy (complex128) masked_scatter_'ed into the complex64 resource grid
    "pilot-insertion-masked-scatter-numpy-complex128": case(_pilot_insertion_masked_scatter_numpy_pilots,
                                                            "indexed_write_dtype", "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # USRP sc16 capture (interleaved int16 I/Q) viewed as complex before converting to float
    "usrp-sc16-capture-view-as-complex-int16": case(_usrp_sc16_capture_view_as_complex, "no_kernel", "int16",
        grade="correct", grade_at_freeze="correct"),
    # complex AWGN added in place to the real BPSK symbol tensor
    "awgn-complex-noise-inplace-real-bpsk": case(_awgn_complex_noise_added_in_place_to_real_bpsk, "result_cast",
                                                 "complex64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fronthaul compression: fp8 I/Q payload multiplied by the per-PRB scale kept in bf16
    "fronthaul-fp8-iq-bf16-prb-scale": case(_fronthaul_fp8_iq_times_bf16_prb_scale, "fp8_promotion",
                                            "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pilot LS estimates (complex64) interpolated across subcarriers with linear interpolate
    "pilot-channel-interp-linear-complex": case(_pilot_channel_interpolation_linear_complex, "no_kernel",
                                                "complex64",
        grade="correct", grade_at_freeze="correct"),
    # ML detection: argmin over complex squared differences, abs() forgotten
    "ml-detection-argmin-complex-distances": case(_ml_detection_argmin_complex_distances, "no_kernel",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (3957142) castwise gave nothing. argmin has no complex kernel ('argmin(): does not "
             "support complex input'): the squared differences to the constellation were left complex because "
             "abs() was forgotten; the message names neither a dtype nor a kernel, and the rules do not read this "
             "wording.")),
    # LS channel-impulse-response estimate: numpy DFT (complex128) design matrix, complex64 pilots, lstsq
    "ls-cir-estimate-lstsq-numpy-dft-complex128": case(_ls_cir_estimate_lstsq_numpy_dft, "op_dtype", "complex128",
                                                       "complex64",
        grade="correct", grade_at_freeze="correct"),
    # LMMSE smoothing: scipy Toeplitz frequency correlation (float64) @ the complex64 LS estimates
    "lmmse-scipy-toeplitz-f64-times-complex64": case(_lmmse_smoothing_scipy_toeplitz_correlation, "matmul_dtype",
                                                     "f64", "complex64",
        grade="correct", grade_at_freeze="correct"),
    # per-subcarrier MIMO MMSE filter (complex64) bmm'd with received samples from a numpy simulator (complex128)
    "mimo-mmse-bmm-numpy-complex128-received": case(_mimo_mmse_bmm_numpy_received, "batched_matmul_dtype",
                                                    "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # a GRU tracking the channel across OFDM symbols fed the complex64 pilot estimates
    "channel-tracking-gru-complex-pilots": case(_channel_tracking_gru_complex_pilots, "rnn_dtype", "complex64",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # BER count: hard decisions cast to the bf16 autocast LLRs' dtype, XORed with the true bits
    "ber-xor-bf16-hard-decisions": case(_ber_xor_bf16_hard_decisions, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16-autocast equaliser's I/Q viewed as complex (complex32) and handed to numpy for a constellation plot
    "fp16-equaliser-complex32-to-numpy": case(_fp16_equaliser_constellation_to_numpy, "numpy_dtype", "complex32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 neural demapper: BCE on its sigmoid probabilities against fp32 bit labels
    "neural-demapper-bce-bf16-probs-fp32-bits": case(_neural_demapper_bce_bf16_probabilities, "op_dtype", "bf16",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # SNR-aware MLP demapper: the numpy SNR column (float64) concatenated to the I/Q features
    "mlp-demapper-numpy-snr-column-f64": case(_mlp_demapper_numpy_snr_feature, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # neural BP decoder: fp32 message memory damped toward the bf16 learned check-node output with lerp
    "bp-decoder-damping-lerp-bf16-messages": case(_bp_decoder_damping_lerp_bf16_messages, "lerp_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # exact (non-logsumexp) LLRs in fp16 at 20 dB: exp underflows, inf LLRs, NaN in backward under anomaly mode
    "exact-llr-fp16-high-snr-anomaly-nan": case(_exact_llr_fp16_high_snr_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # model-free transmitter training: the fp32 perturbation gradient assigned to the bf16 constellation's .grad
    "model-free-transmitter-fp32-grad-to-bf16-constellation": case(_model_free_transmitter_fp32_gradient,
                                                                   "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # rate recovery: shortened bits given LLR 1e5 by masked_fill_ on the fp16 LLR buffer
    "rate-recovery-shortened-llr-1e5-fp16": case(_rate_recovery_shortened_llr_1e5_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
}
