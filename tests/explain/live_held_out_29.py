"""Held-out live set 29: Fourier neural operators, spectral PDE solvers and complex-valued layers in low precision.
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at aa85a67."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "aa85a67"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


class _SpectralConv1d(nn.Module):
    """The FNO spectral convolution as usually written: complex weights on the lowest modes of an rfft."""

    def __init__(self, channels: int = 4, modes: int = 5) -> None:
        super().__init__()
        self.modes = modes
        self.weight = nn.Parameter(torch.randn(channels, channels, modes, dtype=torch.cfloat) / channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_ft = torch.fft.rfft(x.float())  # no bf16 FFT on the CPU, so the spectrum is taken in fp32
        out_ft = torch.zeros_like(x_ft)
        out_ft[..., : self.modes] = torch.einsum("bix,iox->box", x_ft[..., : self.modes], self.weight)
        return torch.fft.irfft(out_ft, n=x.shape[-1]).to(x.dtype)


def _field(batch: int = 2, channels: int = 4, n: int = 16) -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(batch, channels, n)


def _fno_complex_weights_cast_by_model_to_bf16() -> None:
    layer = _SpectralConv1d().to(bf16)  # Module.to casts complex parameters to the real bf16 too
    layer(_field().to(bf16))


def _fno_real_imag_weights_bmm_per_mode() -> None:
    # complex multiply written by hand per mode (modes as the batch), weights kept as real/imag parameters
    layer = nn.Module()
    layer.w_re = nn.Parameter(torch.randn(5, 4, 4))
    layer.w_im = nn.Parameter(torch.randn(5, 4, 4))
    layer.to(bf16)
    x_ft = torch.fft.rfft(_field().to(bf16).float())[..., :5].permute(2, 0, 1)  # (modes, batch, in)
    torch.bmm(x_ft.real, layer.w_re) - torch.bmm(x_ft.imag, layer.w_im)


def _fno_fp8_stored_weights_view_as_complex() -> None:
    # serving: the view_as_real spectral weights stored in float8 to halve the checkpoint, viewed back as complex
    stored = torch.view_as_real(torch.randn(4, 4, 5, dtype=torch.cfloat)).to(E4M3)
    weight = torch.view_as_complex(stored)
    torch.einsum("bix,iox->box", torch.fft.rfft(_field())[..., :5], weight)


def _complex_weight_from_parts_imag_added_after_cast() -> None:
    model = nn.Module()
    model.w_re = nn.Parameter(torch.randn(4, 4))
    model.to(bf16)
    model.w_im = nn.Parameter(torch.randn(4, 4))  # registered after the cast: stays fp32
    torch.complex(model.w_re, model.w_im)


def _spectrum_buffer_default_dtype_mode_index() -> None:
    x_ft = torch.fft.rfft(_field())
    mode_idx = torch.tensor([0, 1, 2, 3, 4])
    out_ft = torch.zeros(2, 4, 9)  # dtype=torch.cfloat forgotten
    out_ft[:, :, mode_idx] = x_ft[:, :, mode_idx] * 0.5


def _complex_linear_under_autocast() -> None:
    torch.manual_seed(0)
    project = nn.Linear(4, 4, dtype=torch.cfloat)  # a complex-valued lifting of real features
    with torch.autocast("cpu", dtype=bf16):
        project(torch.randn(2, 4))


def _complex_conv_along_frequency_bf16_kernel() -> None:
    smoother = nn.Conv1d(4, 4, 3, padding=1, bias=False).to(bf16)  # part of the bf16 model
    x_ft = torch.fft.rfft(_field())  # fp32 FFT -> complex64 spectrum
    F.conv1d(x_ft, smoother.weight, padding=1)


def _pseudo_spectral_euler_step_without_real() -> None:
    n, dt, nu = 32, 1e-3, 0.01
    u = torch.sin(torch.linspace(0, 2 * torch.pi, n + 1)[:-1])
    k = torch.fft.fftfreq(n, d=1.0 / n) * 2 * torch.pi
    rhs = -nu * k**2 * torch.fft.fft(u)
    u += dt * torch.fft.ifft(rhs)  # .real forgotten


def _dealias_mask_float_masked_fill() -> None:
    n = 32
    k = torch.fft.rfftfreq(n, d=1.0 / n)
    dealias = (k > n / 3).float()  # kept as float to multiply with elsewhere
    u_hat = torch.fft.rfft(torch.randn(2, n))
    u_hat.masked_fill(dealias, 0)


def _finite_difference_integer_stencil() -> None:
    laplacian = torch.tensor([[[[0, 1, 0], [1, -4, 1], [0, 1, 0]]]])  # written with ints: int64
    field = torch.randn(1, 1, 16, 16)
    F.conv2d(field, laplacian, padding=1)


def _fp8_spectral_weights_times_spectrum() -> None:
    weight = torch.randn(4, 9).to(E4M3)  # a diagonal spectral filter stored in float8
    x_ft = torch.fft.rfft(_field())
    x_ft * weight


def _half_model_real_view_weights_einsum() -> None:
    layer = nn.Module()
    layer.weight = nn.Parameter(torch.view_as_real(torch.randn(4, 4, 5, dtype=torch.cfloat)))  # DDP-friendly
    layer.half()
    x_ft = torch.fft.rfft(_field())[..., :5]  # spectrum taken in fp32
    torch.einsum("bix,iox->box", x_ft, torch.view_as_complex(layer.weight))


def _complex_half_spectrum_einsum() -> None:
    weight = torch.view_as_complex(torch.randn(4, 4, 5, 2).half())
    x_ft = torch.fft.rfft(_field())[..., :5].to(torch.chalf)  # "to save memory"
    torch.einsum("bix,iox->box", x_ft, weight)


def _vorticity_solver_fp16_fft2() -> None:
    omega = torch.randn(1, 32, 32).half()  # the solver state kept in fp16
    torch.fft.fft2(omega)


def _complex_half_spectrum_irfft() -> None:
    x_ft = torch.fft.rfft(_field()).to(torch.chalf)  # stored in complex32 between layers
    torch.fft.irfft(x_ft, n=16)


def _fft_normalisation_new_full_f16() -> None:
    u = torch.randn(1, 256, 256).half()
    scale = u.new_full(u.shape, u.shape[-1] * u.shape[-2])  # 65536 = N*N for a 256x256 grid
    torch.fft.ifft2(torch.fft.fft2(u.float())).real / scale


def _magnitude_spectrum_into_bf16_cnn() -> None:
    cnn = nn.Conv2d(1, 4, 3, bias=False).to(bf16)
    image = torch.randn(1, 1, 16, 16).to(bf16)
    magnitude = torch.fft.rfft2(image.float()).abs()
    cnn(magnitude)


def _real_view_spectrum_into_bf16_layer_norm() -> None:
    norm = nn.LayerNorm(2).to(bf16)
    x_ft = torch.fft.rfft(_field().to(bf16).float())
    norm(torch.view_as_real(x_ft))


def _spectral_keys_fp32_bf16_queries_sdpa() -> None:
    q = torch.randn(1, 2, 8, 8).to(bf16)
    tokens = torch.fft.irfft(torch.fft.rfft(q.float(), dim=2)[:, :, :3], n=8, dim=2)  # low-pass filtered keys
    F.scaled_dot_product_attention(q, tokens, q)


def _spectral_energy_ema_lerp_bf16_buffer() -> None:
    running = torch.zeros(9, dtype=bf16)  # the buffer was cast with the model
    energy = torch.fft.rfft(_field().to(bf16).float()).abs().pow(2).mean(dim=(0, 1))
    running.lerp_(energy, 0.01)


def _fno_grid_linspace_into_bf16_lifting() -> None:
    lift = nn.Linear(2, 8).to(bf16)
    a = torch.randn(2, 16, 1).to(bf16)
    grid = torch.linspace(0, 1, 16).reshape(1, 16, 1).expand(2, 16, 1)
    lift(torch.cat([a, grid], dim=-1))


def _spectral_weight_gradient_hook_bf16() -> None:
    weight = nn.Parameter(torch.randn(4, 4))
    weight.register_hook(lambda g: g.to(bf16))  # "compress" the gradient
    (torch.fft.rfft(weight).abs().sum()).backward()


def _fp16_energy_spectrum_nonfinite_clip() -> None:
    gain = nn.Parameter(torch.ones(129, dtype=f16))
    u = torch.full((256,), 300.0)
    amplitude = torch.fft.rfft(u).abs().half()  # the DC amplitude 76800 overflows fp16
    torch.log1p(amplitude * gain).mean().backward()
    nn.utils.clip_grad_norm_([gain], 1.0, error_if_nonfinite=True)


def _spectral_coefficients_cdouble_index_copy() -> None:
    n = 16
    k = torch.fft.fftfreq(n, d=1.0 / n, dtype=torch.float64)
    coeffs = torch.fft.fft(torch.randn(n, dtype=torch.float64)) / (1 + k**2)  # complex128
    buffer = torch.zeros(n, dtype=torch.cfloat)
    buffer.index_copy_(0, torch.arange(4), coeffs[:4])


CASES: dict[str, LiveCase] = {
    # an FNO spectral conv with cfloat weights; model.to(bf16) turns them real bf16, einsum with the complex spectrum
    "fno-complex-weights-cast-by-model-to-bf16": case(_fno_complex_weights_cast_by_model_to_bf16, "matmul_dtype",
                                                      "bf16", grade="correct", grade_at_freeze="correct"),
    # spectral weights as separate real/imag parameters (bf16), multiplied per mode by bmm with the fp32 spectrum parts
    "fno-real-imag-weights-bmm-per-mode": case(_fno_real_imag_weights_bmm_per_mode, "batched_matmul_dtype", "f32",
                                               "bf16", grade="correct", grade_at_freeze="correct"),
    # the view_as_real spectral weights stored in float8 for serving, viewed back with view_as_complex
    "fno-fp8-stored-weights-view-as-complex": case(_fno_fp8_stored_weights_view_as_complex, "no_kernel",
                                                   "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # a complex weight assembled by torch.complex from a bf16 real part and an fp32 imaginary part added after the cast
    "complex-weight-from-parts-imag-after-cast": case(_complex_weight_from_parts_imag_added_after_cast, "op_dtype",
                                                      "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # the output spectrum buffer made with torch.zeros (real fp32), the kept modes written by an index tensor
    "spectrum-buffer-real-mode-index-put": case(_spectrum_buffer_default_dtype_mode_index, "indexed_write_dtype",
                                                "f32", grade="correct", grade_at_freeze="correct"),
    # a complex-valued nn.Linear (cfloat) lifting real features inside a bf16 autocast region
    "complex-linear-under-autocast": case(_complex_linear_under_autocast, "matmul_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # a conv along the frequency axis of the complex64 spectrum with the bf16 model's conv kernel
    "complex-conv-along-frequency-bf16-kernel": case(_complex_conv_along_frequency_bf16_kernel, "conv_weight_dtype",
                                                     "bf16", grade="correct", grade_at_freeze="correct"),
    # a pseudo-spectral heat-equation Euler step adding ifft(...) in place to the real state without .real
    "pseudo-spectral-euler-step-without-real": case(_pseudo_spectral_euler_step_without_real, "result_cast", "f32", grade="correct", grade_at_freeze="correct"),
    # the 2/3 dealiasing mask kept as float and used in masked_fill on the spectrum
    "dealias-mask-float-masked-fill": case(_dealias_mask_float_masked_fill, "mask_dtype", fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # a finite-difference Laplacian stencil written with integers, convolved with an fp32 field
    "fd-laplacian-integer-stencil": case(_finite_difference_integer_stencil, "conv_weight_dtype", "f32", "int64", grade="correct", grade_at_freeze="wrong",
        why=("At freeze (aa85a67) castwise gave integer_operand [f32, int64] (high confidence). The int64 tensor is the"
             " conv's weight (the stencil), not its data: the float field is right and the stencil must be made float,"
             " but the rule read 'found Long' in a convolution as integer input and told to convert `x`.")),
    # a diagonal spectral filter stored in float8 multiplied with the complex spectrum
    "fp8-spectral-filter-times-spectrum": case(_fp8_spectral_weights_times_spectrum, "fp8_promotion",
                                               "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # real-view spectral weights halved with the model; view_as_complex gives complex32 for an einsum with complex64
    "half-model-real-view-weights-einsum": case(_half_model_real_view_weights_einsum, "matmul_dtype", grade="correct", grade_at_freeze="correct"),
    # the spectrum and the weights both moved to complex32 to save memory, then einsum'd
    "complex-half-spectrum-einsum": case(_complex_half_spectrum_einsum, "no_kernel", grade="correct", grade_at_freeze="correct"),
    # a 2-D vorticity solver keeping its state in fp16, fft2 of it
    "vorticity-solver-fp16-fft2": case(_vorticity_solver_fp16_fft2, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # the spectrum stored in complex32 between layers, turned back with irfft
    "complex-half-spectrum-irfft": case(_complex_half_spectrum_irfft, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # an FFT normalisation factor N*N = 65536 for a 256x256 grid made with new_full on the fp16 field
    "fft-normalisation-new-full-f16": case(_fft_normalisation_new_full_f16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # the magnitude of an fp32 rfft2 fed to the bf16 CNN without casting back
    "magnitude-spectrum-into-bf16-cnn": case(_magnitude_spectrum_into_bf16_cnn, "conv_weight_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # view_as_real of the fp32 spectrum (real/imag as features) into the model's bf16 LayerNorm
    "real-view-spectrum-into-bf16-layer-norm": case(_real_view_spectrum_into_bf16_layer_norm, "norm_param_dtype",
                                                    "f32", grade="correct", grade_at_freeze="correct"),
    # low-pass filtered keys from an fp32 rfft/irfft attended by bf16 queries with SDPA
    "spectral-keys-fp32-bf16-queries-sdpa": case(_spectral_keys_fp32_bf16_queries_sdpa, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a running spectral-energy buffer in bf16 lerp_'ed toward the fp32 energy of the batch
    "spectral-energy-ema-lerp-bf16-buffer": case(_spectral_energy_ema_lerp_bf16_buffer, "lerp_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # FNO grid coordinates from linspace (fp32) concatenated to bf16 inputs ahead of the bf16 lifting Linear
    "fno-grid-linspace-into-bf16-lifting": case(_fno_grid_linspace_into_bf16_lifting, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # a gradient hook casting the spectral weight's gradient to bf16 to "compress" it
    "spectral-weight-gradient-hook-bf16": case(_spectral_weight_gradient_hook_bf16, "loss_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # an fp16 spectral gain on an amplitude spectrum that overflows fp16: NaN gradients, clip_grad_norm_ refuses them
    "fp16-energy-spectrum-nonfinite-clip": case(_fp16_energy_spectrum_nonfinite_clip, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # spectral coefficients solved in complex128 (float64 wavenumbers) written into a complex64 buffer by index_copy_
    "spectral-coefficients-cdouble-index-copy": case(_spectral_coefficients_cdouble_index_copy,
                                                     "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
}
