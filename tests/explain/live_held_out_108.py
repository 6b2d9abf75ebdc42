"""Held-out live set 108: MRI reconstruction written by hand in low precision (complex64/complex128 k-space from
numpy, undersampling masks as bool/uint8/float, coil sensitivity maps, centred FFT/IFFT with fftshift,
data-consistency layers, unrolled networks mixing complex and real channels, SSIM/NMSE metrics, int16 DICOM magnitude
images, bf16 autocast around the CNN parts). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at 8009be2."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8009be2"

bf16, f16 = torch.bfloat16, torch.float16
_COILS = 4
_H = _W = 32
_ACS = 4  # fully sampled centre lines
_R = 4  # acceleration


def _seeded() -> None:
    torch.manual_seed(0)


def _numpy_kspace() -> np.ndarray:
    """Multi-coil k-space as fastMRI's h5 files give it: complex64, (coils, rows, columns)."""
    rng = np.random.default_rng(0)
    shape = (_COILS, _H, _W)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64) * 1e-4


def _kspace() -> torch.Tensor:
    return torch.from_numpy(_numpy_kspace())


def _numpy_mask() -> np.ndarray:
    """Equispaced column mask with a fully sampled centre, as a bool array over the columns."""
    mask = np.zeros(_W, dtype=bool)
    mask[::_R] = True
    mask[_W // 2 - _ACS // 2:_W // 2 + _ACS // 2] = True
    return mask


def _mask() -> torch.Tensor:
    return torch.from_numpy(_numpy_mask())


def _fft2c(x: torch.Tensor) -> torch.Tensor:
    x = torch.fft.ifftshift(x, dim=(-2, -1))
    x = torch.fft.fft2(x, norm="ortho")
    return torch.fft.fftshift(x, dim=(-2, -1))


def _ifft2c(k: torch.Tensor) -> torch.Tensor:
    k = torch.fft.ifftshift(k, dim=(-2, -1))
    k = torch.fft.ifft2(k, norm="ortho")
    return torch.fft.fftshift(k, dim=(-2, -1))


def _numpy_sens_maps() -> np.ndarray:
    """Coil sensitivities as an ESPIRiT implementation in numpy returns them: complex128."""
    rows = np.linspace(-1, 1, _H)[:, None]
    cols = np.linspace(-1, 1, _W)[None, :]
    maps = [np.exp(-((rows - cy) ** 2 + (cols - cx) ** 2)) * np.exp(1j * np.pi * (cx + cy) * rows)
            for cy, cx in ((-0.5, -0.5), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.5))]
    maps = np.stack(maps)
    return maps / np.sqrt((np.abs(maps) ** 2).sum(0, keepdims=True))


def _dicom_int16() -> torch.Tensor:
    """A magnitude DICOM slice: pydicom's pixel_array is int16 (signed, BitsStored 12)."""
    rng = np.random.default_rng(1)
    pixels = rng.integers(0, 4000, size=(_H, _W)).astype(np.int16)
    return torch.from_numpy(pixels)


def _cnn(channels: int = 2) -> nn.Module:
    return nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, channels, 3, padding=1))


def _complex_to_channels(x: torch.Tensor) -> torch.Tensor:
    return torch.view_as_real(x).permute(0, 3, 1, 2).contiguous()


# --- undersampling masks and data consistency -------------------------------------------------------------------------


def _dc_complement_of_bool_mask() -> None:
    _seeded()
    k0 = _kspace() * _mask()
    k_pred = _fft2c(_ifft2c(k0) + 0.01 * torch.randn(_COILS, _H, _W, dtype=torch.complex64))
    mask = _mask()
    (1 - mask) * k_pred + mask * k0  # hard data consistency: keep the measured lines, predict the rest


def _uint8_mask_masked_fill_unsampled() -> None:
    mask = torch.from_numpy(_numpy_mask().astype(np.uint8))  # the mask is stored as uint8 in the h5 file
    kspace = _kspace()
    unsampled = 1 - mask
    kspace.masked_fill(unsampled, 0)  # zero the lines that were not acquired (retrospective undersampling)


def _fastmri_float_mask_in_where() -> None:
    _seeded()
    mask = torch.from_numpy(_numpy_mask().astype(np.float32))[None, None, :]  # MaskFunc returns a float32 mask
    k0 = _kspace() * mask
    k_pred = _fft2c(_ifft2c(k0) * 1.1)
    torch.where(mask, k0, k_pred)


def _sampling_rate_from_bool_mask_mean() -> None:
    mask = _mask()
    acceleration = 1 / mask.mean()  # reported next to each reconstruction
    float(acceleration)


def _equispaced_lines_from_linspace() -> None:
    kspace = _kspace()
    lines = torch.linspace(0, _W - 1, _W // _R)  # every R-th phase-encode line
    kspace[..., lines]


def _int32_line_indices_take_along_dim() -> None:
    kspace = _kspace()
    sampled = np.flatnonzero(_numpy_mask()).astype(np.int32)  # sampled column indices saved as int32 per slice
    index = torch.from_numpy(sampled).expand(_COILS, _H, -1)
    torch.take_along_dim(kspace, index, dim=-1)


# --- metrics and DICOM images --------------------------------------------------------------------------------------


def _ssim_uniform_window_on_int16_target() -> None:
    _seeded()
    target = _dicom_int16()[None, None]
    window = torch.ones(1, 1, 7, 7) / 49  # fastMRI-style SSIM with a 7x7 uniform window
    mu_target = F.conv2d(target, window)
    mu_target.mean()


def _int16_dicom_zscore_in_place() -> None:
    image = _dicom_int16()
    image -= image.float().mean()  # z-score normalisation before training
    image /= image.float().std()


def _rician_noise_on_int16_dicom() -> None:
    _seeded()
    image = _dicom_int16()
    sigma = 20.0
    noisy = torch.sqrt((image + sigma * torch.randn_like(image)) ** 2 + (sigma * torch.randn_like(image)) ** 2)
    noisy.mean()


def _int16_padding_value_0xffff() -> None:
    image = _dicom_int16()
    rows = torch.arange(_H)[:, None]
    cols = torch.arange(_W)[None, :]
    outside_fov = (rows - _H / 2) ** 2 + (cols - _W / 2) ** 2 > (_H / 2) ** 2
    image.masked_fill(outside_fov, 0xFFFF)  # PixelPaddingValue of the unsigned scanner export


def _fp16_recon_clamped_to_uint16_range() -> None:
    _seeded()
    recon = (torch.rand(_H, _W) * 3000).to(f16)  # the fp16 network's magnitude output in scanner units
    recon.clamp(0, 65535).round()  # before writing the DICOM with BitsAllocated 16


def _joint_recon_segmentation_uint8_labels() -> None:
    _seeded()
    labels = torch.from_numpy(np.random.default_rng(2).integers(0, 3, size=(1, _H, _W)).astype(np.uint8))  # NIfTI
    seg_head = nn.Conv2d(2, 3, 1)
    recon = _complex_to_channels(_ifft2c(_kspace()[:1]))
    F.cross_entropy(seg_head(recon), labels)


def _active_acquisition_bce_on_bool_mask() -> None:
    _seeded()
    policy = nn.Linear(_W, _W)
    observed = _mask()
    logits = policy(observed.float())
    target = ~observed  # lines still worth acquiring
    F.binary_cross_entropy_with_logits(logits, target)


# --- unrolled networks: CNN parts in bf16, DC in complex ------------------------------------------------------------


def _unrolled_cnn_bf16_fed_fp32_dc_image() -> None:
    _seeded()
    denoiser = _cnn().to(bf16)  # the CNN halved to fit more cascades; the FFTs stay fp32 (no bf16 FFT on CPU)
    k0 = _kspace()[:1] * _mask()
    x = _ifft2c(k0)
    denoiser(_complex_to_channels(x))


def _dc_fft2c_outside_autocast_on_bf16_image() -> None:
    _seeded()
    denoiser = _cnn(1)
    k0 = _kspace()[:1] * _mask()
    x = _ifft2c(k0).abs()[None]  # real-valued image model
    with torch.autocast("cpu", dtype=bf16):
        x = denoiser(x)
    k = _fft2c(x[0])  # data consistency after the autocast block
    torch.where(_mask(), k0, k)


def _swin_layernorm_bf16_fp32_tokens() -> None:
    _seeded()
    embed_dim = 16
    patch_embed = nn.Conv2d(2, embed_dim, 4, stride=4)  # kept fp32
    block = nn.Sequential(nn.LayerNorm(embed_dim), nn.Linear(embed_dim, embed_dim)).to(bf16)  # only blocks cast
    tokens = patch_embed(_complex_to_channels(_ifft2c(_kspace()[:1]))).flatten(2).transpose(1, 2)
    block(tokens)


def _half_cnn_complex32_ifft2c() -> None:
    _seeded()
    denoiser = _cnn().half()
    x = _complex_to_channels(_ifft2c(_kspace()[:1] * _mask())).half()
    out = denoiser(x)
    image = torch.view_as_complex(out.permute(0, 2, 3, 1).contiguous())  # complex32
    _fft2c(image)


def _complex_image_straight_into_conv2d() -> None:
    _seeded()
    denoiser = _cnn(1)
    x = _ifft2c(_kspace()[:1] * _mask())[None]  # the complex image, never split into real/imag channels
    denoiser(x)


def _coil_combine_einsum_with_complex128_maps() -> None:
    coil_images = _ifft2c(_kspace())
    sens = torch.from_numpy(_numpy_sens_maps())
    torch.einsum("chw,chw->hw", coil_images, sens.conj())  # SENSE-1 combination


def _explicit_dft_matrix_times_bf16_image() -> None:
    _seeded()
    n = 8
    traj = np.random.default_rng(3).uniform(-np.pi, np.pi, size=(64, 2))  # radial samples, rad/pixel
    grid = np.stack(np.meshgrid(np.arange(n) - n // 2, np.arange(n) - n // 2, indexing="ij"), -1).reshape(-1, 2)
    dft = torch.from_numpy(np.exp(-1j * traj @ grid.T).astype(np.complex64))  # small NUFFT as a dense matrix
    image = torch.randn(1, 1, n, n)
    with torch.autocast("cpu", dtype=bf16):
        image = _cnn(1)(image)
    dft @ image.reshape(-1, 1)


def _automap_linear_on_complex_kspace() -> None:
    _seeded()
    n = 8
    kspace = _kspace()[0, :n, :n].reshape(1, -1)  # AUTOMAP's fully connected domain transform
    fc = nn.Linear(n * n, n * n)
    fc(kspace)


def _coil_compression_bmm_numpy_complex128() -> None:
    kspace = _numpy_kspace()
    calib = kspace[:, :, _W // 2 - _ACS // 2:_W // 2 + _ACS // 2].reshape(_COILS, -1)
    _, _, vh = np.linalg.svd(np.cov(calib))  # np.cov computes in complex128
    compress = torch.from_numpy(vh[:2]).expand(_W, -1, -1)
    columns = torch.from_numpy(kspace).permute(2, 0, 1)  # (columns, coils, rows)
    torch.bmm(compress, columns)


def _dc_index_put_numpy_complex128_measured() -> None:
    _seeded()
    rng = np.random.default_rng(4)
    noise = (rng.standard_normal((_COILS, 256)) + 1j * rng.standard_normal((_COILS, 256))).astype(np.complex64)
    whitener = np.linalg.inv(np.linalg.cholesky(np.cov(noise)))  # noise prewhitening from the noise scan
    k0 = torch.from_numpy(np.einsum("ij,jhw->ihw", whitener, _numpy_kspace()))
    k_pred = _fft2c(_ifft2c(_kspace()) * 0.9)
    mask = _mask().expand(_COILS, _H, _W)
    k_pred[mask] = k0[mask]


def _soft_dc_lerp_real_weight() -> None:
    _seeded()
    k0 = _kspace() * _mask()
    k_pred = _fft2c(_ifft2c(k0) * 1.05)
    lam = nn.Parameter(torch.tensor(0.9))  # learned noise-level weight
    torch.lerp(k_pred, k0, lam * _mask())


def _coil_compression_eigh_bf16() -> None:
    calib = _kspace()[:, :, _W // 2 - _ACS // 2:_W // 2 + _ACS // 2].reshape(_COILS, -1)
    stacked = torch.cat([calib.real, calib.imag], dim=1).to(bf16)  # the loader keeps everything in bf16
    cov = stacked @ stacked.T
    torch.linalg.eigh(cov)


def _ista_softshrink_complex_image() -> None:
    x = _ifft2c(_kspace()[:1] * _mask())
    F.softshrink(x, 1e-5)  # proximal step of the l1 prior in ISTA-Net


def _kspace_transformer_fp32_line_mask() -> None:
    _seeded()
    dim = 16
    attention = nn.MultiheadAttention(dim, 2, batch_first=True).to(bf16)
    lines = torch.randn(1, _W, dim, dtype=bf16)  # one token per phase-encode line
    unsampled = ~_mask()
    additive = torch.zeros(_W, _W).masked_fill(unsampled[None, :], float("-inf"))  # keys that were not acquired
    attention(lines, lines, lines, attn_mask=additive)


def _ismrmrd_compound_complex_from_numpy() -> None:
    raw = np.zeros((_COILS, _W), dtype=[("real", "<f4"), ("imag", "<f4")])  # ISMRMRD acquisition data
    raw["real"] = _numpy_kspace()[:, 0].real
    raw["imag"] = _numpy_kspace()[:, 0].imag
    torch.from_numpy(raw)


def _bf16_recon_to_numpy_for_ssim() -> None:
    _seeded()
    x = torch.randn(1, 1, _H, _W)
    with torch.autocast("cpu", dtype=bf16):
        recon = _cnn(1)(x)
    recon.detach()[0, 0].numpy()  # for skimage.metrics.structural_similarity


def _half_varnet_grad_scaler() -> None:
    _seeded()
    model = _cnn().half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    x = _complex_to_channels(_ifft2c(_kspace()[:1] * _mask())).half()
    target = _complex_to_channels(_ifft2c(_kspace()[:1])).half()
    loss = F.l1_loss(model(x).float(), target.float())
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


CASES: dict[str, LiveCase] = {
    # hard data consistency written as (1 - mask) * k_pred + mask * k0 with the bool column mask
    "dc-complement-bool-mask-rsub": case(_dc_complement_of_bool_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # retrospective undersampling: masked_fill of k-space with the complement of a uint8 mask read from h5
    "uint8-mask-masked-fill-unsampled": case(_uint8_mask_masked_fill_unsampled, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # data consistency by torch.where with fastMRI's float32 MaskFunc mask as the condition
    "fastmri-float-mask-where-dc": case(_fastmri_float_mask_in_where, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # acceleration factor reported as 1 / mask.mean() of the bool column mask
    "sampling-rate-bool-mask-mean": case(_sampling_rate_from_bool_mask_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # equispaced phase-encode lines picked with torch.linspace indices, never made .long()
    "equispaced-lines-linspace-float-index": case(_equispaced_lines_from_linspace, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # sampled column indices saved as int32, gathered from k-space with take_along_dim
    "int32-line-indices-take-along-dim": case(_int32_line_indices_take_along_dim, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # SSIM's 7x7 uniform-window mean computed by conv2d on the int16 DICOM target
    "ssim-uniform-window-int16-dicom-target": case(_ssim_uniform_window_on_int16_target, "integer_operand", "int16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # z-score normalisation of an int16 DICOM slice in place with -=
    "int16-dicom-zscore-in-place": case(_int16_dicom_zscore_in_place, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # Rician noise simulated on an int16 DICOM magnitude with randn_like of the image
    "rician-noise-randn-like-int16-dicom": case(_rician_noise_on_int16_dicom, "no_kernel", "int16",
        grade="correct", grade_at_freeze="correct"),
    # the area outside the FOV filled with PixelPaddingValue 0xFFFF in the int16 pixel array
    "int16-dicom-padding-value-0xffff": case(_int16_padding_value_0xffff, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # the fp16 reconstruction clamped to [0, 65535] before writing a 16-bit DICOM
    "fp16-recon-clamp-uint16-range": case(_fp16_recon_clamped_to_uint16_range, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # joint reconstruction and segmentation: uint8 NIfTI label maps as the cross_entropy target
    "joint-recon-seg-uint8-labels": case(_joint_recon_segmentation_uint8_labels, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # active acquisition: the policy's line logits trained with BCE against the bool not-yet-sampled mask
    "active-acquisition-bce-bool-target": case(_active_acquisition_bce_on_bool_mask, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # unrolled network's CNN cast to bf16, fed the fp32 channels of the data-consistency image
    "unrolled-cnn-bf16-fp32-dc-image": case(_unrolled_cnn_bf16_fed_fp32_dc_image, "conv_weight_dtype", "f32",
                                            "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a real-valued image model: bf16 autocast around the CNN, the centred FFT of its output after the block
    "dc-fft2c-after-autocast-bf16-image": case(_dc_fft2c_outside_autocast_on_bf16_image, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a Swin-style reconstruction transformer cast to bf16, its first LayerNorm given fp32 patch tokens
    "swin-recon-layernorm-bf16-fp32-tokens": case(_swin_layernorm_bf16_fp32_tokens, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a .half() CNN's two output channels viewed as complex (complex32) and sent through the centred FFT
    "half-cnn-complex32-fft2c": case(_half_cnn_complex32_ifft2c, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the complex64 zero-filled image fed to the Conv2d denoiser without splitting real and imaginary channels
    "complex-image-into-conv2d": case(_complex_image_straight_into_conv2d, "conv_weight_dtype", "complex64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SENSE-1 coil combination by einsum with ESPIRiT maps computed in numpy (complex128)
    "coil-combine-einsum-complex128-maps": case(_coil_combine_einsum_with_complex128_maps, "matmul_dtype",
                                                "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # non-Cartesian forward model as a dense complex64 DFT matrix @ the bf16 autocast CNN's image
    "dense-dft-nufft-at-bf16-image": case(_explicit_dft_matrix_times_bf16_image, "matmul_dtype", "complex64",
                                          "bf16",
        grade="correct", grade_at_freeze="correct"),
    # AUTOMAP's fully connected layer applied to the complex k-space directly
    "automap-linear-complex-kspace": case(_automap_linear_on_complex_kspace, "matmul_dtype", "complex64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # coil compression matrix from numpy's SVD (complex128) bmm'd with complex64 k-space columns
    "coil-compression-bmm-numpy-complex128": case(_coil_compression_bmm_numpy_complex128, "batched_matmul_dtype",
                                                  "complex128", "complex64",
        grade="correct", grade_at_freeze="correct"),
    # hard DC by boolean index assignment of k-space prewhitened in numpy (complex128) into the complex64 prediction
    "dc-index-put-numpy-complex128-measured": case(_dc_index_put_numpy_complex128_measured, "indexed_write_dtype",
                                                   "complex64", "complex128",
        grade="correct", grade_at_freeze="correct"),
    # soft DC by torch.lerp of complex k-space with a real learned weight times the mask
    "soft-dc-lerp-real-weight": case(_soft_dc_lerp_real_weight, "lerp_dtype", "complex64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # PCA coil compression: eigh of the calibration covariance kept in bf16 by the loader
    "coil-compression-eigh-bf16-covariance": case(_coil_compression_eigh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ISTA-Net's l1 proximal step: F.softshrink of the complex image
    "ista-softshrink-complex-image": case(_ista_softshrink_complex_image, "no_kernel", "complex64",
        grade="correct", grade_at_freeze="correct"),
    # k-space transformer over phase-encode lines in bf16, unsampled keys masked by an fp32 additive mask
    "kspace-transformer-fp32-line-mask": case(_kspace_transformer_fp32_line_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ISMRMRD raw data's compound (real, imag) numpy dtype passed to torch.from_numpy
    "ismrmrd-compound-dtype-from-numpy": case(_ismrmrd_compound_complex_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 autocast reconstruction handed to numpy for skimage's SSIM
    "bf16-recon-numpy-for-skimage-ssim": case(_bf16_recon_to_numpy_for_ssim, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a .half() VarNet-style CNN trained with GradScaler, unscale_ of its fp16 gradients
    "half-varnet-grad-scaler-unscale": case(_half_varnet_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
}
