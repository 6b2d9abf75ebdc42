"""Held-out live set 78: quantum machine learning and quantum circuit simulation written by hand in low precision
(complex64/complex128 state vectors and unitary gate matrices, tensor-network contractions with einsum, density
matrices and Kraus channels, expectation values that must be real, measurement sampling of bit strings as integer/bool
tensors, parameter-shift and autograd gradients through complex ops, variational circuits feeding bf16/fp16 classical
heads, numpy complex128 arrays from other simulators). Defects planted by a helper who never read the rules, written
before castwise ran and graded once with the rules frozen at ae38a11."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "ae38a11"

bf16, f16 = torch.bfloat16, torch.float16
c64 = torch.complex64
_N = 3  # qubits
_SHOTS = 256


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _hadamard(dtype: torch.dtype = c64) -> torch.Tensor:
    return torch.tensor([[1, 1], [1, -1]], dtype=dtype) / math.sqrt(2)


def _rz(theta: float) -> torch.Tensor:
    phase = torch.tensor(0.5j * theta, dtype=c64).exp()
    return torch.diag(torch.stack([phase.conj(), phase]))


def _circuit_unitary(n: int = _N) -> torch.Tensor:
    """H on every qubit, then RZ(0.3) on the last: a complex64 2^n x 2^n unitary built by Kronecker products."""
    unitary = _hadamard()
    for _ in range(n - 1):
        unitary = torch.kron(unitary, _hadamard())
    layer = torch.kron(torch.eye(2 ** (n - 1), dtype=c64), _rz(0.3))
    return layer @ unitary


def _state(n: int = _N) -> torch.Tensor:
    """A complex64 state vector from the torch simulator."""
    psi = torch.zeros(2**n, dtype=c64)
    psi[0] = 1
    return _circuit_unitary(n) @ psi


def _z_diagonal(qubit: int, n: int = _N) -> torch.Tensor:
    """The diagonal of Z on one qubit (big-endian), as +1/-1 floats."""
    bits = (torch.arange(2**n)[:, None] >> torch.arange(n - 1, -1, -1)) & 1
    return 1.0 - 2.0 * bits[:, qubit].float()


def _sample_indices(n: int = _N, shots: int = _SHOTS) -> torch.Tensor:
    probs = _state(n).abs() ** 2
    return torch.multinomial(probs, shots, replacement=True, generator=_gen())


def _bits(indices: torch.Tensor, n: int = _N) -> torch.Tensor:
    """Measured bit strings as a bool (shots, n) tensor."""
    return ((indices[:, None] >> torch.arange(n - 1, -1, -1)) & 1).bool()


def _numpy_state(n: int = _N) -> np.ndarray:
    """A state vector as another simulator (qiskit's Statevector.data, qutip's full()) hands it over: complex128."""
    rng = np.random.default_rng(0)
    psi = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
    return psi / np.linalg.norm(psi)


def _numpy_z_expvals(batch: int, n: int = _N) -> np.ndarray:
    """<Z_i> for a batch of states simulated in numpy complex128: real parts, float64."""
    rng = np.random.default_rng(1)
    states = rng.normal(size=(batch, 2**n)) + 1j * rng.normal(size=(batch, 2**n))
    states /= np.linalg.norm(states, axis=1, keepdims=True)
    bits = (np.arange(2**n)[:, None] >> np.arange(n - 1, -1, -1)) & 1
    z = 1.0 - 2.0 * bits
    return np.einsum("bk,kq,bk->bq", states.conj(), z, states).real


# --- measurement sampling: bit strings as integer/bool tensors


def _readout_flip_bool_one_minus() -> None:
    bits = _bits(_sample_indices())
    flip = torch.rand(bits.shape, generator=_gen()) < 0.02  # symmetric 2% readout error
    torch.where(flip, 1 - bits, bits)


def _readout_noise_rand_like_bool_bits() -> None:
    torch.manual_seed(0)
    bits = _bits(_sample_indices())
    flip = torch.rand_like(bits) < 0.02
    bits ^ flip


def _shot_histogram_bincount_float_indices() -> None:
    p_one = torch.tensor([0.1, 0.5, 0.8])  # product state: each qubit measured independently
    bits = torch.bernoulli(p_one.expand(_SHOTS, _N), generator=_gen())
    basis_index = bits @ (2.0 ** torch.arange(_N - 1, -1, -1))
    counts = torch.bincount(basis_index, minlength=2**_N)
    counts / _SHOTS


def _mid_circuit_record_xor_parity() -> None:
    indices = _sample_indices()
    record = torch.zeros(_SHOTS, _N)  # measurement record preallocated with the default dtype
    for q in range(_N):
        record[:, q] = (indices >> (_N - 1 - q)) & 1
    parity = record[:, 0] ^ record[:, 1]  # classically controlled X on qubit 2 uses the ZZ parity
    parity.sum()


def _qubo_energy_int64_bitstrings_matmul() -> None:
    q = torch.randn(_N, _N, generator=_gen())
    q = (q + q.T) / 2
    every_bitstring = (torch.arange(2**_N)[:, None] >> torch.arange(_N - 1, -1, -1)) & 1  # int64
    energies = ((every_bitstring @ q) * every_bitstring).sum(-1)
    energies.argmin()


def _rbm_nqs_int8_spins_linear() -> None:
    torch.manual_seed(0)
    n, hidden = 6, 12
    spins = torch.randint(0, 2, (16, n), dtype=torch.int8, generator=_gen()) * 2 - 1  # +-1 spins, int8 to save memory
    visible_bias = nn.Parameter(torch.zeros(n))
    hidden_layer = nn.Linear(n, hidden)
    theta = hidden_layer(spins)
    (spins * visible_bias).sum(-1) + torch.log(2 * torch.cosh(theta)).sum(-1)


def _amplitude_encoding_uint8_normalize() -> None:
    images = torch.randint(0, 256, (4, 4, 4), dtype=torch.uint8, generator=_gen())  # MNIST downsampled to 4x4
    amplitudes = F.normalize(images.flatten(1), dim=-1)  # 16 amplitudes on 4 qubits
    amplitudes.to(c64)


def _excitation_probability_bool_mean() -> None:
    bits = _bits(_sample_indices())
    bits.mean(0)  # P(|1>) per qubit from the shots


def _tomography_nqs_bce_logits_bool_outcomes() -> None:
    torch.manual_seed(0)
    bits = _bits(_sample_indices())
    model = nn.Sequential(nn.Linear(_N, 16), nn.Tanh(), nn.Linear(16, _N))  # conditional bit logits
    shifted = F.pad(bits[:, :-1].float(), (1, 0))  # autoregressive: previous outcomes as input
    logits = model(shifted)
    F.binary_cross_entropy_with_logits(logits, bits)


def _parameter_shift_integer_initial_angles() -> None:
    params = torch.tensor([0, 0, 0, 0])  # "start every rotation at zero"

    def expval(angles: torch.Tensor) -> torch.Tensor:
        return torch.cos(angles).prod()  # <Z...Z> after a layer of RY rotations

    gradients = []
    for i in range(len(params)):
        plus, minus = params.clone(), params.clone()
        plus[i] += math.pi / 2
        minus[i] -= math.pi / 2
        gradients.append((expval(plus) - expval(minus)) / 2)


def _basis_index_int16_from_counts_dict() -> None:
    counts = {"10110011001110001011": 3, "00000000000000000001": 5, "11111111111111111111": 1}  # 20-qubit run
    torch.tensor([int(bitstring, 2) for bitstring in counts], dtype=torch.int16)


# --- state vectors, gates and tensor networks


def _zero_state_real_circuit_matmul() -> None:
    psi = torch.zeros(2**_N)  # |000>, dtype=torch.complex64 forgotten
    psi[0] = 1.0
    _circuit_unitary() @ psi


def _numpy_t_gate_complex128_tensordot() -> None:
    t_gate = torch.from_numpy(np.array([[1, 0], [0, np.exp(1j * np.pi / 4)]]))  # complex128
    psi = _state().reshape(2, 2, 2)
    qubit = 1
    out = torch.tensordot(t_gate, psi, dims=([1], [qubit]))
    out.movedim(0, qubit)


def _fidelity_vdot_qiskit_statevector() -> None:
    target = torch.from_numpy(_numpy_state())
    fidelity = torch.vdot(target, _state()).abs() ** 2
    1 - fidelity


def _mps_boundary_site_real_einsum() -> None:
    g = _gen()
    chi = 4
    left = torch.randn(1, 2, chi, generator=g)  # boundary tensor: dtype=torch.cfloat left out
    middle = torch.randn(chi, 2, chi, dtype=c64, generator=g)
    right = torch.randn(chi, 2, 1, dtype=c64, generator=g)
    two_site = torch.einsum("aib,bjc->aijc", left, middle)
    torch.einsum("aijc,ckd->aijkd", two_site, right).reshape(-1)


def _kraus_operators_numpy_bmm() -> None:
    gamma = 0.1  # amplitude damping
    kraus = torch.from_numpy(np.stack([
        np.array([[1, 0], [0, np.sqrt(1 - gamma)]], dtype=complex),
        np.array([[0, np.sqrt(gamma)], [0, 0]], dtype=complex),
    ]))
    psi = _hadamard()[:, 0]
    rho = torch.outer(psi, psi.conj())
    rho_k = torch.bmm(torch.bmm(kraus, rho.expand(2, 2, 2)), kraus.conj().transpose(1, 2))
    rho_k.sum(0)


# --- expectation values into classical heads


def _complex_expvals_into_bf16_head() -> None:
    torch.manual_seed(0)
    psi = _state()
    expvals = torch.stack([(psi.conj() * _z_diagonal(q) * psi).sum() for q in range(_N)])[None]  # .real left out
    head = nn.Linear(_N, 2).to(bf16)
    head(expvals)


def _simulator_f64_expvals_into_f16_head() -> None:
    torch.manual_seed(0)
    features = torch.tensor(_numpy_z_expvals(8))  # the quantum layer's numpy output: float64
    head = nn.Sequential(nn.Linear(_N, 16), nn.ReLU(), nn.Linear(16, 2)).half()
    head(features)


def _quantum_reservoir_f64_observables_lstm() -> None:
    torch.manual_seed(0)
    observables = torch.from_numpy(_numpy_z_expvals(20)).reshape(1, 20, _N)  # one reservoir readout per time step
    readout = nn.LSTM(_N, 8, batch_first=True)
    readout(observables)


def _quanvolution_features_into_f16_cnn() -> None:
    torch.manual_seed(0)
    images = torch.rand(2, 1, 8, 8)
    patches = F.unfold(images, kernel_size=2, stride=2)  # 2x2 patches encoded on 4 qubits by RY angles
    expvals = torch.cos(torch.pi * patches)  # <Z_i> after RY(pi * x_i) on |0>
    feature_maps = expvals.reshape(2, 4, 4, 4)
    cnn = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU()).half()
    cnn(feature_maps)


def _complex128_sim_real_part_batchnorm() -> None:
    torch.manual_seed(0)
    states = torch.from_numpy(np.stack([_numpy_state() for _ in range(8)]))  # complex128
    expvals = torch.stack([(states.conj() * _z_diagonal(q) * states).sum(-1).real for q in range(_N)], dim=1)
    nn.BatchNorm1d(_N)(expvals)


# --- low-precision kernels


def _trotter_step_f16_hamiltonian_matrix_exp() -> None:
    x = torch.tensor([[0, 1], [1, 0]], dtype=f16)
    z = torch.tensor([[1, 0], [0, -1]], dtype=f16)
    h = -torch.kron(z, z) - 0.5 * (torch.kron(x, torch.eye(2, dtype=f16)) + torch.kron(torch.eye(2, dtype=f16), x))
    dt = 0.05
    torch.linalg.matrix_exp(-1j * dt * h)  # transverse-field Ising, Hamiltonian stored in fp16


def _state_to_mps_svd_complex32() -> None:
    psi = _state(4).to(torch.chalf)  # states kept in complex32 "to halve the memory"
    torch.linalg.svd(psi.reshape(2, 8), full_matrices=False)


# --- gradients through complex ops


def _vqe_complex_energy_backward() -> None:
    theta = nn.Parameter(torch.tensor(0.4))
    ry = torch.stack([torch.stack([torch.cos(theta / 2), -torch.sin(theta / 2)]),
                      torch.stack([torch.sin(theta / 2), torch.cos(theta / 2)])]).to(c64)
    h = torch.tensor([[1, 0.5], [0.5, -1]], dtype=c64)
    psi = ry[:, 0]
    energy = torch.vdot(psi, h @ psi)
    energy.backward()


class _AdjointExpectation(torch.autograd.Function):
    """<Z> after RY(theta) on |0>, with a hand-written adjoint-style backward."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, theta: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(theta)
        return torch.cos(theta)

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor) -> torch.Tensor:
        (theta,) = ctx.saved_tensors
        half = (theta / 2).to(c64)
        psi = torch.stack([half.cos(), half.sin()])
        dpsi = 0.5 * torch.stack([-half.sin(), half.cos()])
        z = torch.tensor([1.0, -1.0], dtype=c64)[:, None]
        return grad_output * 2 * (dpsi.conj() * z * psi).sum(0)  # 2 Re<dpsi|Z|psi>, .real left out


def _adjoint_backward_returns_complex_grad() -> None:
    theta = nn.Parameter(torch.tensor([0.3, 1.1]))
    _AdjointExpectation.apply(theta).sum().backward()


def _parameter_shift_numpy_gradient_assigned() -> None:
    params = nn.Parameter(torch.tensor([0.3, 1.1, -0.4]))

    def expval(angles: np.ndarray) -> float:
        return float(np.prod(np.cos(angles)))  # <Z Z Z> after RY layers, from a numpy simulator

    values = params.detach().numpy().astype(np.float64)
    shift = np.pi / 2
    grads = np.array([(expval(values + shift * e) - expval(values - shift * e)) / 2 for e in np.eye(len(values))])
    params.grad = torch.from_numpy(grads)


# --- overflow, numpy interop, solves and buffers


def _qaoa_penalty_f16_masked_fill() -> None:
    n = 4
    every_bitstring = (torch.arange(2**n)[:, None] >> torch.arange(n - 1, -1, -1)) & 1
    edges = torch.tensor([[0, 1], [1, 2], [2, 3], [3, 0]])
    cut = (every_bitstring[:, edges[:, 0]] != every_bitstring[:, edges[:, 1]]).sum(-1)
    cost = (-cut).to(f16)  # cost diagonal kept in fp16 next to the fp16 state amplitudes
    infeasible = every_bitstring.sum(-1) != n // 2  # balanced-partition constraint
    cost.masked_fill(infeasible, 1e6)


def _bf16_angle_predictor_to_numpy_optimizer() -> None:
    torch.manual_seed(0)
    predictor = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2 * _N)).to(bf16)  # warm-start QAOA angles
    problem_features = torch.randn(1, 4, dtype=bf16)
    angles = predictor(problem_features)[0]
    angles.detach().numpy()  # x0 for scipy.optimize.minimize(..., method="COBYLA")


def _quantum_kernel_ridge_solve() -> None:
    rng = np.random.default_rng(2)
    states = rng.normal(size=(6, 2**_N)) + 1j * rng.normal(size=(6, 2**_N))
    states /= np.linalg.norm(states, axis=1, keepdims=True)  # feature-map states from a numpy simulator
    gram = torch.from_numpy(np.abs(states.conj() @ states.T) ** 2)  # fidelity kernel, float64
    labels = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    alpha = torch.linalg.solve(gram + 1e-3 * torch.eye(6, dtype=gram.dtype), labels)
    gram @ alpha


def _batched_circuit_results_index_copy() -> None:
    results = torch.zeros(16, _N)  # one row of <Z_i> per circuit in the sweep
    batch = torch.arange(4, 12)
    expvals = torch.from_numpy(_numpy_z_expvals(len(batch)))  # float64 from the complex128 simulator
    results.index_copy_(0, batch, expvals)


CASES: dict[str, LiveCase] = {
    # readout error simulated on bool measured bits: flipped outcomes written as 1 - bits
    "readout-flip-bool-one-minus": case(_readout_flip_bool_one_minus, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # readout noise drawn with rand_like of the bool measured bit strings
    "readout-noise-rand-like-bool-bits": case(_readout_noise_rand_like_bool_bits, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # shot histogram: basis indices from float Bernoulli bits times float powers of two, counted with bincount
    "shot-histogram-bincount-float-indices": case(_shot_histogram_bincount_float_indices, "index_tensor_dtype",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # mid-circuit measurement record kept in a default-dtype (float) buffer, ZZ parity taken with ^
    "mid-circuit-record-float-xor-parity": case(_mid_circuit_record_xor_parity, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # QUBO energies of every bit string: the int64 bit-string matrix @ the fp32 QUBO matrix
    "qubo-energy-int64-bitstrings-matmul": case(_qubo_energy_int64_bitstrings_matmul, "integer_operand", "int64",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # RBM neural quantum state: +-1 spins stored as int8 fed to the fp32 visible-to-hidden Linear
    "rbm-nqs-int8-spins-linear": case(_rbm_nqs_int8_spins_linear, "integer_operand", "int8", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=('At freeze (ae38a11) castwise gave matmul_dtype [int8, f32] (low confidence). The int8 tensor is '
             "nn.Linear's input (the +-1 spins of a neural quantum state stored as int8), integer data given to float "
             'math, but the rules read an int8 tensor meeting an fp32 one in addmm as a quantized weight and tell to '
             'dequantize it or call the quantized layer; the spins need .float()')),
    # amplitude encoding of uint8 MNIST pixels with F.normalize
    "amplitude-encoding-uint8-normalize": case(_amplitude_encoding_uint8_normalize, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # per-qubit excitation probability estimated by mean over the bool shots
    "excitation-probability-bool-mean": case(_excitation_probability_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # autoregressive NQS tomography trained on the bool measurement outcomes with BCE-with-logits
    "tomography-nqs-bce-logits-bool-outcomes": case(_tomography_nqs_bce_logits_bool_outcomes, "target_dtype",
                                                    "bool",
        grade="correct", grade_at_freeze="correct"),
    # parameter-shift loop shifting in place by pi/2 angles initialised as integer zeros (int64)
    "parameter-shift-int64-initial-angles": case(_parameter_shift_integer_initial_angles, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # 20-qubit basis indices from a counts dict stored as int16
    "basis-index-int16-from-counts-dict": case(_basis_index_int16_from_counts_dict, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # |000> made with torch.zeros (real fp32) multiplied by the complex64 circuit unitary
    "zero-state-real-circuit-matmul": case(_zero_state_real_circuit_matmul, "matmul_dtype", "f32", "complex64",
        grade="correct", grade_at_freeze="correct"),
    # a T gate built in numpy (complex128) applied to the complex64 state tensor with tensordot
    "numpy-t-gate-complex128-tensordot": case(_numpy_t_gate_complex128_tensordot, "matmul_dtype",
        grade="correct", grade_at_freeze="correct"),
    # fidelity with a qiskit-style complex128 target state by vdot with the complex64 simulated state
    "fidelity-vdot-qiskit-statevector": case(_fidelity_vdot_qiskit_statevector, "matmul_dtype", "complex128",
                                             "complex64",
        grade="correct", grade_at_freeze="correct"),
    # MPS contraction by einsum with a real fp32 boundary tensor and complex64 bulk tensors
    "mps-boundary-site-real-einsum": case(_mps_boundary_site_real_einsum, "matmul_dtype", "complex64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # amplitude-damping Kraus operators stacked in numpy (complex128) bmm'd with a complex64 density matrix
    "kraus-operators-numpy-complex128-bmm": case(_kraus_operators_numpy_bmm, "batched_matmul_dtype",
                                                 "complex128", "complex64",
        grade="correct", grade_at_freeze="correct"),
    # <Z_i> left complex (no .real) fed to a bf16 classical head
    "complex-expvals-into-bf16-head": case(_complex_expvals_into_bf16_head, "matmul_dtype", "complex64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a numpy simulator's float64 expectation values fed to an fp16 classical head
    "simulator-f64-expvals-into-f16-head": case(_simulator_f64_expvals_into_f16_head, "matmul_dtype", "f64",
                                                "f16",
        grade="correct", grade_at_freeze="correct"),
    # quantum reservoir computing: float64 reservoir observables read out by an fp32 LSTM
    "quantum-reservoir-f64-observables-lstm": case(_quantum_reservoir_f64_observables_lstm, "rnn_dtype", "f64",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # quanvolution: fp32 patch expectation values into a CNN halved to fp16
    "quanvolution-fp32-features-f16-cnn": case(_quanvolution_features_into_f16_cnn, "conv_weight_dtype", "f32",
                                               "f16",
        grade="correct", grade_at_freeze="correct"),
    # real parts of complex128 simulated expectation values (float64) into an fp32 BatchNorm1d
    "complex128-sim-real-part-batchnorm": case(_complex128_sim_real_part_batchnorm, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Trotter step: matrix_exp of -1j * dt * H with an fp16 Ising Hamiltonian (complex32)
    "trotter-step-f16-hamiltonian-matrix-exp": case(_trotter_step_f16_hamiltonian_matrix_exp, "no_kernel",
                                                    "complex32",
        grade="correct", grade_at_freeze="correct"),
    # state-to-MPS decomposition by SVD of a state kept in complex32
    "state-to-mps-svd-complex32": case(_state_to_mps_svd_complex32, "no_kernel", "complex32",
        grade="correct", grade_at_freeze="correct"),
    # VQE energy from vdot left complex, backward called on it
    "vqe-complex-energy-backward": case(_vqe_complex_energy_backward, "loss_dtype", "complex64", fix=("real",),
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (ae38a11) castwise gave nothing. The rules have no reading of autograd's 'grad can be "
             "implicitly created only for real scalar outputs but got torch.complex64': a VQE energy from vdot left "
             'complex (an expectation value of a Hermitian operator must be taken .real) given to backward')),
    # a custom autograd Function's adjoint backward returning a complex gradient for the real angles
    "adjoint-backward-returns-complex-grad": case(_adjoint_backward_returns_complex_grad, "loss_dtype",
                                                  fix=("real",),
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (ae38a11) castwise gave nothing. The rules have no reading of the autograd engine's check "
             "'Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex)', which a custom "
             'Function trips when its backward returns a complex gradient for a real input (2 Re<dpsi|Z|psi> written '
             'without .real)')),
    # parameter-shift gradients from a numpy simulator (float64) assigned to the fp32 angles' .grad
    "parameter-shift-numpy-gradient-assigned": case(_parameter_shift_numpy_gradient_assigned, "loss_dtype", "f64",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # QAOA balanced-partition penalty of 1e6 written into an fp16 cost diagonal with masked_fill
    "qaoa-penalty-f16-masked-fill": case(_qaoa_penalty_f16_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 angle predictor's output handed to numpy as the scipy optimizer's x0
    "bf16-angle-predictor-to-numpy-optimizer": case(_bf16_angle_predictor_to_numpy_optimizer, "numpy_dtype",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # quantum kernel ridge regression: linalg.solve of a float64 fidelity Gram matrix with fp32 labels
    "quantum-kernel-ridge-solve-f64-gram": case(_quantum_kernel_ridge_solve, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a sweep's float64 simulated expectation values index_copy_'d into an fp32 results buffer
    "sweep-results-index-copy-f64": case(_batched_circuit_results_index_copy, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
}
