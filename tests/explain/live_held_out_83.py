"""Held-out live set 83: hyperspectral and multispectral imaging by hand in low precision (uint16 band cubes from
ENVI/GeoTIFF readers, float64 wavelength and reflectance calibration tables, band ratios and spectral indices, linear
spectral unmixing with NNLS-style projections, PCA/MNF whitening in float64, 3-D convolutions over spectra,
band-selection masks as bool, per-pixel class labels with an ignore value, spectral angle losses). Defects planted by
a helper who never read the rules, written before castwise ran and graded once with the rules frozen at c248a6f."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c248a6f"

bf16, f16 = torch.bfloat16, torch.float16
_BANDS = 48  # a small AVIRIS-like cube: 48 bands, 12 x 12 pixels
_SIDE = 12
_CLASSES = 6


def _seeded() -> None:
    torch.manual_seed(0)


def _envi_cube() -> torch.Tensor:
    """What an ENVI reader (data type 12) or a GeoTIFF reader gives: uint16 digital numbers, bands first."""
    rng = np.random.default_rng(0)
    dn = rng.integers(200, 9000, size=(_BANDS, _SIDE, _SIDE), dtype=np.uint16)
    return torch.from_numpy(dn)


def _wavelengths_nm() -> np.ndarray:
    return np.linspace(400.0, 2500.0, _BANDS)  # from the ENVI header's "wavelength = {...}": float64


def _uint16_cube_into_hybridsn_conv3d() -> None:
    _seeded()
    patch = _envi_cube()[None, None, :, :7, :7]  # (N, 1, bands, 7, 7) patch around a labelled pixel
    spectral_spatial = nn.Conv3d(1, 8, kernel_size=(7, 3, 3))
    spectral_spatial(patch)


def _ndvi_on_uint16_bands() -> None:
    cube = _envi_cube()
    red, nir = cube[20], cube[30]  # bands nearest 670 nm and 800 nm
    (nir - red) / (nir + red)


def _nfindr_simplex_volume_slogdet_bf16() -> None:
    _seeded()
    reduced = torch.rand(_SIDE * _SIDE, 3, dtype=bf16)  # pixels after the bf16 model's dimension reduction
    candidates = reduced[torch.tensor([5, 40, 77, 120])]  # current endmember set, p = 4
    simplex = torch.cat([torch.ones(1, 4, dtype=bf16), candidates.T])  # [1; E] for the volume
    torch.linalg.slogdet(simplex)  # N-FINDR: log-volume of the simplex


def _probability_map_masked_scatter_bf16() -> None:
    _seeded()
    labelled = torch.rand(_SIDE, _SIDE) > 0.6  # pixels with a patch classified this pass
    probability_map = torch.zeros(_SIDE, _SIDE, _CLASSES)  # full-scene map, fp32
    classifier = nn.Linear(_BANDS, _CLASSES).to(bf16)
    probabilities = classifier(torch.rand(int(labelled.sum()), _BANDS, dtype=bf16)).softmax(-1)
    probability_map.masked_scatter_(labelled[..., None], probabilities)


def _wavelength_token_ids_float_embedding() -> None:
    wavelengths = torch.from_numpy(_wavelengths_nm())
    band_ids = ((wavelengths - 400.0) / 10.0).round()  # one token per 10 nm
    wavelength_embedding = nn.Embedding(211, 32)  # 400 to 2500 nm
    wavelength_embedding(band_ids)


def _per_band_mean_on_uint16() -> None:
    cube = _envi_cube()
    band_mean = cube.mean(dim=(1, 2), keepdim=True)  # per-band normalisation statistics before any cast
    band_std = cube.float().std(dim=(1, 2), keepdim=True)
    (cube.float() - band_mean) / band_std


def _dark_frame_subtracted_into_raw_buffer() -> None:
    _seeded()
    raw = _envi_cube()
    dark = torch.rand(_BANDS, 1, _SIDE) * 150.0  # dark-current frame averaged over shutter-closed lines
    torch.sub(raw, dark, out=raw)  # subtract in place to keep the cube's memory


def _wavelengths_int_nm_to_micrometres_in_place() -> None:
    header_wavelengths = "400, 410, 420, 430, 440, 450"
    wavelengths = torch.tensor([int(w) for w in header_wavelengths.split(",")])  # parsed with int()
    wavelengths.div_(1000)  # nm to micrometres for the water-vapour model


def _ignore_255_int8_label_canvas() -> None:
    gt = torch.tensor([[0, 1, 2], [3, 4, 5], [1, 1, 2]])
    labels = torch.full((_SIDE, _SIDE), 255, dtype=torch.int8)  # ignore value 255, int8 "to save memory"
    labels[:3, :3] = gt


def _bad_band_keep_mask_to_index_select() -> None:
    cube = torch.rand(_BANDS, _SIDE, _SIDE)
    wavelengths = torch.from_numpy(_wavelengths_nm())
    water_vapour = ((wavelengths > 1340) & (wavelengths < 1450)) | ((wavelengths > 1790) & (wavelengths < 1960))
    keep = ~water_vapour
    cube.index_select(0, keep)


def _scl_cloud_mask_uint8_masked_fill() -> None:
    _seeded()
    reflectance = torch.rand(13, _SIDE, _SIDE)
    scl = torch.randint(0, 12, (_SIDE, _SIDE), dtype=torch.uint8)  # Sentinel-2 scene classification layer
    cloudy = ((scl == 8) | (scl == 9) | (scl == 3)).to(torch.uint8)  # kept uint8 like the SCL raster
    reflectance.masked_fill(cloudy, float("nan"))


def _matlab_double_ground_truth_cross_entropy() -> None:
    _seeded()
    gt = np.zeros((_SIDE, _SIDE))  # Pavia-style gt from scipy.io.loadmat, saved from MATLAB as double
    gt[2:6, 2:9] = 3
    gt[7:10, 1:5] = 5
    labels = torch.from_numpy(gt) - 1  # class 0 is unlabelled: becomes -1, the ignore index
    logits = torch.randn(1, _CLASSES, _SIDE, _SIDE)
    F.cross_entropy(logits, labels[None], ignore_index=-1)


def _bad_band_mask_resampled_with_linear_interpolate() -> None:
    wavelengths = torch.from_numpy(_wavelengths_nm())
    good = ~((wavelengths > 1340) & (wavelengths < 1450))
    spectra = torch.rand(_SIDE * _SIDE, 1, _BANDS)
    F.interpolate(spectra, size=40, mode="linear", align_corners=True)  # resample to the target sensor's 40 bands
    F.interpolate(good[None, None], size=40, mode="linear", align_corners=True)


def _classification_map_index_put_uint8() -> None:
    _seeded()
    class_map = torch.zeros(_SIDE, _SIDE, dtype=torch.uint8)  # written out as a uint8 GeoTIFF
    rows, cols = torch.nonzero(torch.rand(_SIDE, _SIDE) > 0.5, as_tuple=True)
    predictions = torch.randn(rows.numel(), _CLASSES).argmax(1) + 1  # 0 stays "unclassified"
    class_map.index_put_((rows, cols), predictions)


def _white_reference_f64_calibration_into_conv3d() -> None:
    _seeded()
    raw = _envi_cube()[:, :5, :5].numpy()
    white = np.full((_BANDS, 1, 1), 9500.0)  # white-panel and dark-frame references from numpy: float64
    dark = np.full((_BANDS, 1, 1), 180.0)
    reflectance = torch.from_numpy((raw - dark) / (white - dark))
    net = nn.Conv3d(1, 8, kernel_size=(7, 3, 3), bias=False)  # followed by BatchNorm3d, so no bias
    net(reflectance[None, None])


def _savitzky_golay_f64_kernel_conv1d() -> None:
    _seeded()
    spectra = torch.rand(_SIDE * _SIDE, 1, _BANDS)
    half = 3  # scipy.signal.savgol_coeffs(7, 2) by hand: least-squares quadratic fit, float64
    x = np.arange(-half, half + 1, dtype=np.float64)
    vander = np.vander(x, 3, increasing=True)
    coeffs = np.linalg.pinv(vander)[0]
    F.conv1d(spectra, torch.from_numpy(coeffs)[None, None], padding=half)


def _spectral_conv1d_bias_from_numpy_init() -> None:
    _seeded()
    encoder = nn.Conv1d(1, 16, kernel_size=7, padding=3)
    prior = np.log(np.full(16, 0.5))  # a bias prior computed in numpy (float64)
    encoder.bias.data = torch.from_numpy(prior)
    encoder(torch.rand(4, 1, _BANDS))


def _continuum_removal_lerp_fp32_weight() -> None:
    _seeded()
    reflectance = torch.rand(_SIDE * _SIDE, _BANDS, dtype=bf16)  # bf16 model output
    wavelengths = torch.linspace(2100.0, 2300.0, _BANDS)  # the 2.2 um Al-OH feature
    shoulder_left, shoulder_right = reflectance[:, :1], reflectance[:, -1:]
    weight = (wavelengths - wavelengths[0]) / (wavelengths[-1] - wavelengths[0])
    continuum = torch.lerp(shoulder_left, shoulder_right, weight.expand(_SIDE * _SIDE, -1))
    reflectance / continuum


def _unmixing_autoencoder_bmm_fp32_endmembers() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Linear(_BANDS, 32), nn.ReLU(), nn.Linear(32, 4)).to(bf16)
    endmembers = torch.rand(4, _BANDS)  # VCA initialisation, kept as a plain fp32 tensor
    pixels = torch.rand(2, 64, _BANDS, dtype=bf16)
    abundances = encoder(pixels).softmax(-1)  # sum-to-one
    torch.bmm(abundances, endmembers.expand(2, -1, -1))


def _fcls_cholesky_solve_f64_factor() -> None:
    _seeded()
    library = np.random.default_rng(1).random((_BANDS, 4))  # USGS splib endmembers resampled with np.interp
    gram = torch.from_numpy(library.T @ library + 1e-3 * np.eye(4))
    factor = torch.linalg.cholesky(gram)
    pixels = torch.rand(_BANDS, _SIDE * _SIDE)
    rhs = torch.from_numpy(library.T).float() @ pixels
    abundances = torch.cholesky_solve(rhs, factor)
    abundances.clamp_(min=0)  # NNLS-style projection onto the non-negative orthant


def _endmember_pinv_bf16() -> None:
    _seeded()
    endmembers = torch.rand(_BANDS, 4, dtype=bf16)  # the unmixing decoder's weight, bf16 with the model
    pixels = torch.rand(_BANDS, 64, dtype=bf16)
    torch.linalg.pinv(endmembers) @ pixels  # unconstrained least-squares abundances


def _rx_detector_solve_triangular_f16() -> None:
    _seeded()
    pixels = torch.rand(_SIDE * _SIDE, 16).half()  # PCA-reduced cube kept in fp16
    centred = pixels - pixels.mean(0)
    covariance = (centred.float().T @ centred.float()) / (pixels.shape[0] - 1)
    chol = torch.linalg.cholesky(covariance + 1e-4 * torch.eye(16)).half()
    whitened = torch.linalg.solve_triangular(chol, centred.T, upper=False)
    (whitened**2).sum(0)  # RX anomaly score


def _mnf_f64_transform_on_bf16_features() -> None:
    _seeded()
    pixels = np.random.default_rng(2).random((_SIDE * _SIDE, 16))
    noise = pixels[1:] - pixels[:-1]  # shift-difference noise estimate
    noise_eigval, noise_eigvec = np.linalg.eigh(np.cov(noise, rowvar=False))
    whiten = noise_eigvec / np.sqrt(noise_eigval)
    _, signal_eigvec = np.linalg.eigh(np.cov(pixels @ whiten, rowvar=False))
    mnf = torch.from_numpy(whiten @ signal_eigvec[:, ::-1].copy())  # float64 MNF rotation
    features = torch.rand(64, 16, dtype=bf16)  # the bf16 backbone's features per pixel
    features @ mnf


def _sam_loss_einsum_bf16_reconstruction() -> None:
    _seeded()
    reconstruction = torch.rand(64, _BANDS, dtype=bf16, requires_grad=True)
    target = torch.rand(64, _BANDS)  # reference spectra, fp32
    dot = torch.einsum("pb,pb->p", reconstruction, target)
    cos = dot / (reconstruction.norm(dim=1) * target.norm(dim=1))
    torch.acos(cos.clamp(-1, 1)).mean()


def _sam_loss_zero_nodata_pixel_nan() -> None:
    _seeded()
    reconstruction = torch.rand(16, _BANDS, requires_grad=True)
    target = torch.rand(16, _BANDS)
    target[5] = 0.0  # a no-data pixel zero-filled by the loader
    with torch.autograd.detect_anomaly():
        cos = (reconstruction * target).sum(1) / (reconstruction.norm(dim=1) * target.norm(dim=1))
        torch.acos(cos.clamp(-1 + 1e-7, 1 - 1e-7)).mean().backward()


def _fp8_cached_cube_times_bf16_gains() -> None:
    _seeded()
    cube = torch.rand(_BANDS, _SIDE, _SIDE).to(torch.float8_e4m3fn)  # reflectance cache stored in fp8
    gains = torch.rand(_BANDS, 1, 1, dtype=bf16)  # per-band radiometric gains
    cube * gains


def _spectral_lstm_on_f64_spectra() -> None:
    _seeded()
    spectra = np.random.default_rng(3).random((8, _BANDS))  # from spectral.open_image(...).load(): float64
    sequence = torch.from_numpy(spectra).T[:, :, None]  # bands as time steps
    nn.LSTM(1, 32)(sequence)


def _per_band_batchnorm_bf16_fp32_cube() -> None:
    _seeded()
    model = nn.Sequential(nn.BatchNorm2d(_BANDS), nn.Conv2d(_BANDS, 32, 3, padding=1)).to(bf16)
    cube = torch.rand(2, _BANDS, _SIDE, _SIDE)  # the dataset's reflectance, fp32
    model(cube)


def _abundance_maps_bf16_to_numpy() -> None:
    _seeded()
    abundances = torch.rand(4, _SIDE, _SIDE, dtype=bf16).softmax(0)
    abundances.detach().numpy()  # for rasterio's dataset.write(...)


def _band_weights_grad_from_numpy_estimate() -> None:
    _seeded()
    band_logits = nn.Parameter(torch.zeros(_BANDS))  # band-selection scores
    reward_grad = np.random.default_rng(4).normal(size=_BANDS)  # REINFORCE estimate computed in numpy
    band_logits.grad = torch.from_numpy(reward_grad)


CASES: dict[str, LiveCase] = {
    # an ENVI uint16 patch fed straight into a HybridSN spectral-spatial Conv3d
    "envi-uint16-patch-hybridsn-conv3d": case(_uint16_cube_into_hybridsn_conv3d, "integer_operand", "uint16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (c248a6f) castwise gave conv_bias_dtype [f32] (high confidence). The message names the input "
             "type as 'short unsigned int', which is uint16, not a float: the raw ENVI digital numbers meet a float "
             "Conv3d (integer data fed to float math; the fix is to convert and scale the cube to float, not to cast "
             "the bias). castwise read 'Input type (...) and bias type (float)' as two floating dtypes meeting at a "
             "conv's bias; its dtypes hold only f32, so the C type name of the unsigned 16-bit integer was not read "
             "as uint16, and the wrong kind came with high confidence.")),
    # NDVI computed directly on the uint16 red and NIR bands
    "ndvi-uint16-band-subtract": case(_ndvi_on_uint16_bands, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # per-band mean for normalisation taken on the raw uint16 cube
    "band-statistics-mean-uint16": case(_per_band_mean_on_uint16, "integer_operand", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # a float dark-current frame subtracted from the raw uint16 cube with out= the cube itself
    "dark-frame-subtract-out-uint16": case(_dark_frame_subtracted_into_raw_buffer, "result_cast", "f32", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # ENVI header wavelengths parsed with int() converted nm to micrometres in place
    "header-wavelengths-int-div-in-place": case(_wavelengths_int_nm_to_micrometres_in_place, "result_cast", "f32",
                                                "int64",
        grade="correct", grade_at_freeze="correct"),
    # a label canvas made int8 with the ignore value 255
    "ignore-255-int8-label-canvas": case(_ignore_255_int8_label_canvas, "half_overflow", "int8",
        grade="correct", grade_at_freeze="correct"),
    # the bool water-vapour keep-mask passed to index_select as the band index
    "bad-band-keep-mask-index-select": case(_bad_band_keep_mask_to_index_select, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Sentinel-2 SCL cloud mask kept uint8 and used as masked_fill's mask
    "scl-cloud-mask-uint8-masked-fill": case(_scl_cloud_mask_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # per-pixel ground truth loaded from a MATLAB double .mat, shifted to ignore -1, as cross_entropy's target
    "matlab-double-ground-truth-ce": case(_matlab_double_ground_truth_cross_entropy, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # the bool bad-band mask resampled with the spectra by linear interpolate to the target sensor's bands
    "bad-band-mask-linear-interpolate": case(_bad_band_mask_resampled_with_linear_interpolate, "integer_operand",
                                             "bool",
        grade="correct", grade_at_freeze="correct"),
    # argmax class ids (int64) written into a uint8 classification map with index_put_
    "classification-map-index-put-uint8": case(_classification_map_index_put_uint8, "indexed_write_dtype", "uint8",
                                               "int64",
        grade="correct", grade_at_freeze="correct"),
    # band indices in a spectral transformer's wavelength embedding computed from float64 wavelengths with round()
    "wavelength-token-ids-float-embedding": case(_wavelength_token_ids_float_embedding, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # white-panel/dark-frame calibration in numpy makes float64 reflectance for an fp32 Conv3d
    "white-reference-f64-reflectance-conv3d": case(_white_reference_f64_calibration_into_conv3d, "conv_weight_dtype",
                                                   "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Savitzky-Golay smoothing coefficients (float64) convolved along fp32 spectra
    "savitzky-golay-f64-kernel-conv1d": case(_savitzky_golay_f64_kernel_conv1d, "conv_weight_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a spectral Conv1d whose bias was replaced by a float64 numpy prior through .data
    "spectral-conv1d-bias-numpy-prior": case(_spectral_conv1d_bias_from_numpy_init, "conv_bias_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # continuum removal: bf16 shoulders lerped with fp32 wavelength-position weights
    "continuum-removal-lerp-fp32-weight": case(_continuum_removal_lerp_fp32_weight, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an unmixing autoencoder: bf16 abundances bmm'd with fp32 VCA endmembers
    "unmixing-ae-bmm-fp32-endmembers": case(_unmixing_autoencoder_bmm_fp32_endmembers, "batched_matmul_dtype", "f32",
                                            "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FCLS normal equations: the float64 Cholesky factor of the library's Gram matrix with an fp32 right side
    "fcls-cholesky-solve-f64-factor": case(_fcls_cholesky_solve_f64_factor, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # least-squares abundances via pinv of the bf16 endmember matrix
    "endmember-pinv-bf16": case(_endmember_pinv_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # RX anomaly detector whitening with solve_triangular on fp16 pixels
    "rx-detector-solve-triangular-f16": case(_rx_detector_solve_triangular_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # an MNF rotation computed in numpy (float64) applied to bf16 features with @
    "mnf-f64-rotation-bf16-features": case(_mnf_f64_transform_on_bf16_features, "matmul_dtype", "bf16", "f64",
        grade="correct", grade_at_freeze="correct"),
    # spectral angle loss: einsum of bf16 reconstructions with fp32 reference spectra
    "sam-loss-einsum-bf16-fp32": case(_sam_loss_einsum_bf16_reconstruction, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # spectral angle loss over a zero-filled no-data pixel: 0/0, NaN in backward under anomaly mode
    "sam-loss-zero-nodata-pixel-nan": case(_sam_loss_zero_nodata_pixel_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a reflectance cube cached in float8 multiplied by bf16 per-band gains
    "fp8-cube-cache-bf16-gains": case(_fp8_cached_cube_times_bf16_gains, "fp8_promotion", "float8_e4m3fn", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a spectral LSTM (bands as time steps) fed float64 spectra from spectral python
    "spectral-lstm-f64-spectra": case(_spectral_lstm_on_f64_spectra, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 2-D CNN whose first layer is a per-band BatchNorm2d, fed the fp32 cube
    "per-band-batchnorm-bf16-fp32-cube": case(_per_band_batchnorm_bf16_fp32_cube, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # N-FINDR endmember search: slogdet of the simplex matrix built from bf16 reduced pixels
    "nfindr-simplex-slogdet-bf16": case(_nfindr_simplex_volume_slogdet_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 class probabilities written into the fp32 full-scene probability map with masked_scatter_
    "probability-map-masked-scatter-bf16": case(_probability_map_masked_scatter_bf16, "indexed_write_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 abundance maps handed to numpy for rasterio
    "abundance-maps-bf16-to-numpy": case(_abundance_maps_bf16_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a REINFORCE band-selection gradient from numpy (float64) assigned to the fp32 scores' .grad
    "band-selection-grad-numpy-f64": case(_band_weights_grad_from_numpy_estimate, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
}
