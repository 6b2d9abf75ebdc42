"""Held-out live set 168: astronomy and astrophysics by hand in low precision (float64 FITS spectra and light
curves, uint16 CCD images, int32 pixel masks and source labels, bool cosmic-ray masks, fp16 CNNs, bf16
transformers). Defects planted by a helper who never read the rules, written before castwise ran and graded once
with the rules frozen at 35f23aa4."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "35f23aa4"

bf16, f16 = torch.bfloat16, torch.float16


def _seeded() -> None:
    torch.manual_seed(0)


def _ccd_frame(size: int = 32) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(900, 1200, size=(size, size)).astype(np.uint16)  # raw ADU as astropy.io.fits reads BITPIX=16


def _fits_spectrum(n: int = 64) -> np.ndarray:
    wave = np.linspace(4000.0, 7000.0, n)
    return 1.0 + 0.1 * np.sin(wave / 300.0)  # float64, BITPIX=-64


def _uint8_ccd_preview_into_conv2d() -> None:
    _seeded()
    frame = torch.from_numpy((_ccd_frame() // 8).astype(np.uint8))[None, None]  # 8-bit preview cutout
    nn.Conv2d(1, 8, 3, padding=1)(frame)


def _float64_spectrum_into_linear() -> None:
    _seeded()
    flux = torch.from_numpy(_fits_spectrum())[None]
    nn.Linear(64, 16)(flux)


def _float64_light_curve_into_fp16_conv1d() -> None:
    _seeded()
    t = np.linspace(0.0, 10.0, 128)
    lc = torch.from_numpy(1.0 - 0.01 * (np.abs(t - 5.0) < 0.3))[None, None]
    net = nn.Conv1d(1, 4, 5, padding=2).half()
    net(lc)


def _bf16_transformer_fp32_redshift_head() -> None:
    _seeded()
    encoder = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True).to(bf16)
    head = nn.Linear(32, 1)
    tokens = torch.randn(2, 10, 32, dtype=bf16)
    head(encoder(tokens).mean(1))


def _int32_segmap_cross_entropy() -> None:
    _seeded()
    logits = torch.randn(1, 3, 16, 16)
    segmap = torch.from_numpy(np.zeros((1, 16, 16), dtype=np.int32))  # SExtractor segmentation map
    F.cross_entropy(logits, segmap)


def _bool_cosmic_ray_mask_bce_target() -> None:
    _seeded()
    logits = torch.randn(1, 1, 16, 16)
    crmask = torch.rand(1, 1, 16, 16) > 0.99
    F.binary_cross_entropy_with_logits(logits, crmask)


def _bool_crmask_subtracted() -> None:
    _seeded()
    crmask = torch.rand(16, 16) > 0.99
    satmask = torch.rand(16, 16) > 0.99
    _ = crmask - satmask


def _int32_frame_bias_subtract_inplace() -> None:
    frame = torch.from_numpy(_ccd_frame().astype(np.int32))
    bias = torch.full((32, 32), 1000.5)
    frame.sub_(bias)


def _fp16_saturation_level_fill() -> None:
    torch.full((32, 32), 3.2e5, dtype=f16)  # full-well saturation in electrons as an fp16 clip map


def _bf16_psf_to_numpy() -> None:
    _seeded()
    psf = torch.randn(1, 1, 15, 15, dtype=bf16)
    psf.numpy()


def _fp16_kernel_conv_fp32_image() -> None:
    _seeded()
    image = torch.randn(1, 1, 32, 32)
    psf = torch.randn(1, 1, 5, 5, dtype=f16)
    F.conv2d(image, psf, padding=2)


def _float64_class_column_into_embedding() -> None:
    labels = torch.from_numpy(np.array([0.0, 2.0, 1.0]))  # morphology classes read from a float64 FITS table
    nn.Embedding(4, 8)(labels)


def _fp16_bitwise_quality_flags() -> None:
    flags = torch.tensor([0.0, 4.0, 16.0], dtype=f16)
    _ = flags & 4


def _float_mask_inverted() -> None:
    _seeded()
    good = (torch.rand(32) > 0.1).half()
    _ = ~good


def _bool_mask_mean_coverage() -> None:
    _seeded()
    crmask = torch.rand(1, 1, 32, 32) > 0.99
    F.avg_pool2d(crmask, 4)


def _int32_mask_interpolate() -> None:
    mask = torch.zeros(1, 1, 16, 16, dtype=torch.int32)
    F.interpolate(mask, scale_factor=2.0, mode="bilinear")


def _fp64_wavelength_grid_index_put_bf16() -> None:
    spectrum = torch.zeros(64, dtype=bf16)
    idx = torch.arange(10)
    spectrum[idx] = torch.from_numpy(_fits_spectrum(10))


def _float_pixel_indices_gather() -> None:
    _seeded()
    image = torch.randn(32 * 32)
    centroids = torch.tensor([10.4, 500.7])  # sub-pixel centroids used as flat indices
    torch.gather(image, 0, centroids)


def _bf16_layernorm_fp32_tokens() -> None:
    _seeded()
    norm = nn.LayerNorm(32).to(bf16)
    norm(torch.randn(4, 32))


def _fp16_batchnorm_fp32_feature_maps() -> None:
    _seeded()
    bn = nn.BatchNorm2d(8).half()
    bn.eval()
    bn(torch.randn(1, 8, 8, 8))


def _bf16_sdpa_fp32_keys() -> None:
    _seeded()
    q = torch.randn(1, 2, 8, 16, dtype=bf16)
    k = torch.randn(1, 2, 8, 16)
    v = torch.randn(1, 2, 8, 16)
    F.scaled_dot_product_attention(q, k, v)


def _template_vecdot_float64() -> None:
    _seeded()
    templates = torch.from_numpy(np.stack([_fits_spectrum(), _fits_spectrum()[::-1].copy()]))
    observed = torch.randn(64)
    torch.linalg.vecdot(templates, observed)


def _bmm_periodogram_float64() -> None:
    _seeded()
    basis = torch.randn(2, 16, 32)
    lc = torch.from_numpy(np.ones((2, 32, 1)))
    torch.bmm(basis, lc)


def _lerp_sky_background() -> None:
    _seeded()
    sky = torch.randn(32, 32, dtype=bf16)
    new_sky = torch.randn(32, 32)
    sky.lerp_(new_sky, 0.1)


def _gru_light_curve_float64() -> None:
    _seeded()
    gru = nn.GRU(2, 16, batch_first=True)
    lc = torch.from_numpy(np.ones((1, 20, 2)))  # (time, flux) pairs in float64
    gru(lc)


def _int32_frame_histc() -> None:
    frame = torch.from_numpy(_ccd_frame().astype(np.int32))
    torch.histc(frame, bins=50)


def _poisson_noise_like_int32_counts() -> None:
    _seeded()
    counts = torch.from_numpy(_ccd_frame().astype(np.int32))
    counts + torch.randn_like(counts) * 3.0  # read noise added to photon counts


def _int16_matmul_int32() -> None:
    a = torch.ones(4, 4, dtype=torch.int16)
    b = torch.ones(4, 4, dtype=torch.int32)
    _ = a @ b


def _fp32_grad_to_bf16_param() -> None:
    _seeded()
    head = nn.Linear(8, 1).to(bf16)
    head.weight.grad = torch.zeros(1, 8)


def _float64_einsum_fp32_wcs() -> None:
    _seeded()
    cd = torch.from_numpy(np.array([[-2.8e-4, 0.0], [0.0, 2.8e-4]]))  # WCS CD matrix, float64 from the header
    pix = torch.randn(100, 2)
    torch.einsum("ij,nj->ni", cd, pix)


CASES: dict[str, LiveCase] = {
    # an 8-bit uint8 CCD preview cutout straight into an fp32 Conv2d
    "ccd-uint8-preview-conv2d": case(_uint8_ccd_preview_into_conv2d, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a float64 FITS spectrum (BITPIX=-64) into an fp32 Linear encoder
    "fits-spectrum-f64-linear": case(_float64_spectrum_into_linear, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a float64 transit light curve into a .half() Conv1d
    "light-curve-f64-fp16-conv1d": case(_float64_light_curve_into_fp16_conv1d, "conv_weight_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 spectrum transformer pooled into an fp32 photometric-redshift head
    "bf16-transformer-fp32-photoz-head": case(_bf16_transformer_fp32_redshift_head, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an int32 SExtractor segmentation map as cross_entropy targets
    "segmap-int32-ce-target": case(_int32_segmap_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # a bool cosmic-ray mask as the BCE-with-logits target
    "crmask-bool-bce-target": case(_bool_cosmic_ray_mask_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # cosmic-ray mask minus saturation mask with `-` on two bools
    "crmask-minus-satmask-bool": case(_bool_crmask_subtracted, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # an integer CCD frame bias-subtracted in place with a fractional fp32 master bias
    "ccd-int-frame-sub-fp32-bias-inplace": case(_int32_frame_bias_subtract_inplace, "result_cast", "f32",
                                                "int32",
        grade="correct", grade_at_freeze="correct"),
    # a full-well saturation level (3.2e5 e-) filled into an fp16 clip map
    "fp16-saturation-fill-overflow": case(_fp16_saturation_level_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 PSF model handed to numpy for astropy
    "bf16-psf-to-numpy": case(_bf16_psf_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 PSF kernel convolved with an fp32 image through F.conv2d
    "fp16-psf-kernel-conv2d-fp32-image": case(_fp16_kernel_conv_fp32_image, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # morphology classes read as a float64 FITS table column into nn.Embedding
    "morphology-class-f64-embedding": case(_float64_class_column_into_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # quality-flag bit test with & on an fp16 flag column
    "fp16-quality-flags-bitwise-and": case(_fp16_bitwise_quality_flags, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # ~ on a good-pixel mask kept as fp16
    "fp16-good-pixel-mask-invert": case(_float_mask_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # cosmic-ray coverage by avg_pool2d of the bool mask
    "crmask-bool-avg-pool": case(_bool_mask_mean_coverage, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # an int32 pixel mask upsampled bilinearly to the drizzled grid
    "pixel-mask-int32-interpolate": case(_int32_mask_interpolate, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # float64 flux written into a bf16 rebinned spectrum by index
    "rebinned-spectrum-bf16-index-put-f64": case(_fp64_wavelength_grid_index_put_bf16, "indexed_write_dtype", "bf16",
                                                 "f64",
        grade="correct", grade_at_freeze="correct"),
    # sub-pixel float centroids used as gather indices
    "float-centroids-gather-index": case(_float_pixel_indices_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 LayerNorm fed fp32 image-patch tokens
    "bf16-layernorm-fp32-tokens": case(_bf16_layernorm_fp32_tokens, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a .half() BatchNorm2d in eval fed fp32 galaxy feature maps
    "fp16-batchnorm-fp32-maps": case(_fp16_batchnorm_fp32_feature_maps, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 queries attending to fp32 cached keys/values in SDPA
    "sdpa-bf16-query-fp32-kv": case(_bf16_sdpa_fp32_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # float64 spectral templates dotted with an fp32 observed spectrum via linalg.vecdot
    "template-vecdot-f64-f32": case(_template_vecdot_float64, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp32 periodogram basis bmm'd with a float64 light curve
    "periodogram-bmm-f64-lc": case(_bmm_periodogram_float64, "batched_matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 running sky background lerped toward an fp32 frame estimate
    "sky-background-lerp-bf16-f32": case(_lerp_sky_background, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a float64 (time, flux) light curve into an fp32 GRU
    "light-curve-f64-gru": case(_gru_light_curve_float64, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # histc of an int32 CCD frame for the pixel histogram
    "ccd-int32-histc": case(_int32_frame_histc, "integer_operand", "int32",
        grade="correct", grade_at_freeze="correct"),
    # randn_like of int32 photon counts to add read noise
    "read-noise-randn-like-int32": case(_poisson_noise_like_int32_counts, "no_kernel", "int32",
        grade="correct", grade_at_freeze="correct"),
    # an int16 response matrix matmul'd with int32 counts
    "int16-int32-count-matmul": case(_int16_matmul_int32, "integer_operand", "int16", "int32",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 gradient assigned to a bf16 head's weight.grad
    "fp32-grad-to-bf16-head": case(_fp32_grad_to_bf16_param, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a float64 WCS CD matrix einsum'd with fp32 pixel offsets
    "wcs-cd-f64-einsum-f32": case(_float64_einsum_fp32_wcs, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
}
