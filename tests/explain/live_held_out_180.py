"""Held-out live set 180: radio astronomy and telescope image processing by hand in low precision (complex64
visibilities and uv grids, int16/int32 antenna, channel and correlator data from measurement sets and UVFITS, uint8
8-bit filterbanks and RFI flags, uint16 CCD frames, float64 FITS data from astropy/numpy, int64 source ids, bool
bad-pixel masks, fp16/bf16 CNNs for source and FRB detection, pulsar profiles and spectra). Defects planted by a
helper who never read the rules, written before castwise ran and graded once with the rules frozen at
e7446605."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e7446605"

bf16, f16 = torch.bfloat16, torch.float16
_ANTENNAS = 8
_CHANNELS = 16
_SAMPLES = 64
_GRID = 16


def _seeded() -> None:
    torch.manual_seed(0)


def _ccd_uint16(size: int = 16) -> torch.Tensor:
    """A raw frame as astropy.io.fits gives BITPIX=16 with BZERO=32768 (uint16 ADU), through torch.from_numpy."""
    rng = np.random.default_rng(1)
    return torch.from_numpy(rng.integers(1000, 1400, size=(size, size)).astype(np.uint16))


def _fits_image_f64(size: int = 16) -> np.ndarray:
    """A calibrated image HDU (BITPIX=-64) made native-endian: float64."""
    return np.random.default_rng(2).normal(0.0, 1e-3, size=(size, size))


def _bad_pixels(size: int = 16) -> torch.Tensor:
    mask = torch.zeros(size, size, dtype=torch.bool)
    mask[3, 5] = mask[7, 7] = mask[11, 2] = True
    return mask


def _baselines() -> tuple[np.ndarray, np.ndarray]:
    """ANTENNA1 / ANTENNA2 of a measurement set's main table, as int32 columns."""
    a1, a2 = np.triu_indices(_ANTENNAS, k=1)
    return a1.astype(np.int32), a2.astype(np.int32)


def _visibilities() -> torch.Tensor:
    rows = len(_baselines()[0])
    rng = np.random.default_rng(3)
    data = rng.normal(size=(rows, _CHANNELS)) + 1j * rng.normal(size=(rows, _CHANNELS))
    return torch.from_numpy(data.astype(np.complex64))


def _filterbank_uint8() -> torch.Tensor:
    """An 8-bit SIGPROC filterbank block (channels x samples) as numpy.fromfile(dtype=uint8) reads it."""
    rng = np.random.default_rng(4)
    return torch.from_numpy(rng.integers(100, 140, size=(_CHANNELS, _SAMPLES)).astype(np.uint8))


def _rfi_flags_uint8() -> torch.Tensor:
    """AOFlagger-style flags saved as a uint8 array (1 = flagged)."""
    flags = np.zeros((_CHANNELS, _SAMPLES), dtype=np.uint8)
    flags[5, :] = 1
    flags[:, 40] = 1
    return torch.from_numpy(flags)


def _frequencies_mhz() -> np.ndarray:
    return np.linspace(1400.0, 1250.0, _CHANNELS)  # float64, highest channel first as in a filterbank header


# --- CCD frames and FITS images
def _ccd_uint16_into_half_detector() -> None:
    _seeded()
    detector = nn.Conv2d(1, 8, 3, padding=1, bias=False).half()
    detector(_ccd_uint16()[None, None])


def _bad_pixel_neighbour_count_conv2d() -> None:
    kernel = torch.ones(1, 1, 3, 3)
    F.conv2d(_bad_pixels()[None, None], kernel, padding=1)


def _fits_image_f64_into_bf16_source_finder() -> None:
    _seeded()
    finder = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU()).to(bf16)
    finder(torch.from_numpy(_fits_image_f64())[None, None].float())


def _bf16_cutout_percentile_stretch() -> None:
    cutout = torch.from_numpy(_fits_image_f64()).to(bf16)
    np.percentile(cutout, 99.5)


def _bad_pixels_inpainted_masked_scatter_bf16() -> None:
    _seeded()
    image = torch.from_numpy(_fits_image_f64()).float()
    predicted = torch.randn(int(_bad_pixels().sum())).to(bf16)  # an inpainting net run under bf16
    image.masked_scatter_(_bad_pixels(), predicted)


def _half_frame_rfi_sentinel_masked_fill() -> None:
    frame = _ccd_uint16().half()
    frame.masked_fill_(_bad_pixels(), 1.0e6)


def _flat_field_group_norm_fp16_fp32() -> None:
    _seeded()
    features = torch.randn(1, 8, 8, 8)
    F.group_norm(features, 4, torch.ones(8).half(), torch.zeros(8).half())


# --- visibilities, uv gridding and imaging
def _complex_visibilities_into_bf16_linear() -> None:
    _seeded()
    encoder = nn.Linear(_CHANNELS, 32).to(bf16)
    encoder(_visibilities())


def _uv_gridding_complex_index_add_real_grid() -> None:
    vis = _visibilities()[:, 0]
    cells = torch.arange(vis.shape[0]) % (_GRID * _GRID)
    grid = torch.zeros(_GRID * _GRID)  # the uv grid made real by habit
    grid.index_add_(0, cells, vis)


def _baseline_ids_as_float_embedding() -> None:
    _seeded()
    a1, a2 = _baselines()
    baseline = torch.from_numpy(a1 * _ANTENNAS + a2) / 1.0  # made float while normalising the table
    nn.Embedding(_ANTENNAS * _ANTENNAS, 8)(baseline)


def _uvfits_int16_channel_ids_embedding() -> None:
    _seeded()
    channels = torch.arange(_CHANNELS, dtype=torch.int16)  # channel numbers stored as int16 in the UVFITS table
    nn.Embedding(_CHANNELS, 4)(channels)


def _gain_solve_lstsq_bf16() -> None:
    _seeded()
    design = torch.randn(28, _ANTENNAS).to(bf16)
    phases = torch.randn(28, 1).to(bf16)
    torch.linalg.lstsq(design, phases)


def _visibility_covariance_eigh_half() -> None:
    _seeded()
    x = torch.randn(_ANTENNAS, _ANTENNAS)
    torch.linalg.eigh((x @ x.T).half())


def _primary_beam_lerp_bf16_fp32() -> None:
    _seeded()
    beam_low = torch.rand(_GRID, _GRID)
    beam_high = torch.rand(_GRID, _GRID).to(bf16)  # the beam model cached at bf16 for the upper band
    torch.lerp(beam_low, beam_high, 0.3)


def _xf_correlator_int32_lags_dft() -> None:
    lags = torch.randint(-500, 500, (28, 2 * _CHANNELS), dtype=torch.int32)  # integer lag counts of an XF correlator
    k = torch.arange(2 * _CHANNELS, dtype=torch.float32)
    dft = torch.cos(2 * torch.pi * k[:, None] * k[None, :] / (2 * _CHANNELS))
    lags @ dft


# --- filterbanks, RFI and FRB search
def _filterbank_uint8_into_conv1d() -> None:
    _seeded()
    conv = nn.Conv1d(_CHANNELS, 8, 5, bias=False)
    conv(_filterbank_uint8()[None])


def _dedispersion_float_delays_as_index() -> None:
    data = _filterbank_uint8().float()
    dm = 56.8
    delays = 4.15e3 * dm * (torch.from_numpy(_frequencies_mhz()) ** -2 - 1400.0 ** -2) / 0.064  # in samples
    t = torch.arange(32)
    data[torch.arange(_CHANNELS)[:, None], t[None, :] + delays[:, None]]


def _frb_detector_bf16_conv3d_fp32_bias() -> None:
    _seeded()
    cube = torch.randn(1, 1, 8, 8, 8).to(bf16)  # a spectral-line cube (channels, y, x)
    weight = torch.randn(4, 1, 3, 3, 3).to(bf16)
    bias = torch.zeros(4)  # kept fp32 when the weights were quantised by hand
    F.conv3d(cube, weight, bias)


def _frb_candidate_float_labels_cross_entropy() -> None:
    _seeded()
    logits = torch.randn(6, 2)
    labels = torch.from_numpy(np.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0]))  # the label column of a CSV of candidates
    F.cross_entropy(logits, labels)


# --- pulsars
def _pulsar_fold_index_put_half_profile() -> None:
    _seeded()
    samples = torch.randn(_SAMPLES).half()
    bins = torch.arange(_SAMPLES) % 16
    profile = torch.zeros(16)
    profile.index_put_((bins,), samples, accumulate=True)


def _pulse_profile_bf16_lstm_fp32() -> None:
    _seeded()
    lstm = nn.LSTM(1, 8, batch_first=True).to(bf16)
    lstm(torch.rand(2, 32, 1))


# --- catalogues and source ids
def _flux_likelihood_normal_negative_variance() -> None:
    flux = torch.tensor([1.2, 0.8, 1.1])
    variance = torch.tensor([0.04, -0.01, 0.02])  # background-subtracted variance map goes negative
    torch.distributions.Normal(flux, variance.sqrt())


def _spectrum_index_copy_f64_channels() -> None:
    cube = torch.zeros(_CHANNELS, 4)
    spectra = torch.from_numpy(np.random.default_rng(5).normal(size=(4, 4)))  # numpy float64 channel spectra
    cube.index_copy_(0, torch.tensor([0, 3, 6, 9]), spectra)


def _spectrum_attention_fp16_mask_fp32() -> None:
    _seeded()
    q = torch.randn(1, 2, 8, 16)
    mask = torch.zeros(8, 8).half()  # the -inf channel mask kept fp16 from the flagger
    mask[:, 5] = float("-inf")
    F.scaled_dot_product_attention(q, q, q, attn_mask=mask)


def _segmentation_ids_halved_in_place() -> None:
    segmentation = torch.from_numpy(np.arange(64, dtype=np.int64).reshape(8, 8))  # int64 source ids per pixel
    segmentation /= 2  # meant to merge deblended children into their parents with //


def _pint_longdouble_toas_from_numpy() -> None:
    toas = np.array([58000.123456789012, 58000.523456789012, 58001.0234567890], dtype=np.longdouble)  # PINT MJDs
    torch.from_numpy(toas - toas[0])


def _exposure_weighted_counts_dot() -> None:
    exposure = torch.tensor([120, 300, 300, 60], dtype=torch.int32)  # seconds per pointing, int32 from the header
    counts = torch.tensor([15, 40, 38, 9])  # int64 photon counts
    torch.dot(exposure, counts)


def _rfi_clean_samples_masked_select_uint8_flags() -> None:
    data = _filterbank_uint8().float()
    clean = 1 - _rfi_flags_uint8()  # still uint8
    data.masked_select(clean).std()


def _fp16_amplitude_phase_polar_visibilities() -> None:
    _seeded()
    amplitude = torch.rand(28, _CHANNELS).half()  # visibilities stored as fp16 amplitude and phase to save memory
    phase = (torch.rand(28, _CHANNELS) * 6.28).half()
    torch.polar(amplitude, phase)


def _flagged_antennas_f64_key_padding_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(8, 2, batch_first=True)
    tokens = torch.randn(1, _ANTENNAS, 8)
    flagged = torch.from_numpy(np.where(np.arange(_ANTENNAS) == 3, -np.inf, 0.0)[None])  # numpy float64, 0 / -inf
    attention(tokens, tokens, tokens, key_padding_mask=flagged)


CASES: dict[str, LiveCase] = {
    # --- CCD frames and FITS images
    # a raw uint16 CCD frame (BZERO=32768) from astropy straight into a .half() source-detection CNN
    "ccd-uint16-half-detector-conv2d": case(_ccd_uint16_into_half_detector, "integer_operand", "uint16",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (e7446605) castwise gave no_kernel [uint16] (high confidence). The message is slow_conv2d_cpu "
             "not implemented for UInt16, but the op is a float (fp16) detector convolution handed the raw uint16 "
             "CCD frame: as for a uint8 image fed to a float convolution (and as castwise read the same message for "
             "Bool), it is an integer operand whose fix is to convert the frame to the model dtype, not an op "
             "without a 16-bit kernel.")),
    # counting bad neighbours of each pixel by convolving the bool bad-pixel mask with a 3x3 ones kernel
    "bad-pixel-bool-neighbour-conv2d": case(_bad_pixel_neighbour_count_conv2d, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a float64 FITS image made float() into a bf16 source finder
    "fits-image-f32-bf16-source-finder": case(_fits_image_f64_into_bf16_source_finder, "conv_weight_dtype",
                                              "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a 99.5 percentile display stretch by np.percentile of a bf16 cutout
    "bf16-cutout-np-percentile-stretch": case(_bf16_cutout_percentile_stretch, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bad pixels inpainted by masked_scatter_ of a bf16 network's predictions into the fp32 image
    "bad-pixels-masked-scatter-bf16": case(_bad_pixels_inpainted_masked_scatter_bf16, "indexed_write_dtype",
                                           "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bad pixels of an fp16 frame flagged with a 1e6 sentinel by masked_fill_
    "half-frame-bad-pixel-sentinel-1e6": case(_half_frame_rfi_sentinel_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # group_norm in a flat-field network with fp16 affine parameters and fp32 features
    "flat-field-group-norm-fp16-params": case(_flat_field_group_norm_fp16_fp32, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- visibilities, uv gridding and imaging
    # complex64 visibilities from a measurement set into a bf16 Linear encoder
    "complex-visibilities-bf16-linear": case(_complex_visibilities_into_bf16_linear, "matmul_dtype",
                                             "complex64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # uv gridding: complex64 visibilities index_add_'ed into a real fp32 uv grid
    "uv-grid-real-index-add-complex-vis": case(_uv_gridding_complex_index_add_real_grid, "indexed_write_dtype",
                                               "f32", "complex64",
        grade="correct", grade_at_freeze="correct"),
    # baseline ids (ANTENNA1 * N + ANTENNA2) divided by 1.0 while normalising, into a baseline Embedding
    "baseline-ids-float-embedding": case(_baseline_ids_as_float_embedding, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # UVFITS int16 channel numbers looked up in a channel Embedding
    "uvfits-int16-channel-embedding": case(_uvfits_int16_channel_ids_embedding, "index_tensor_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # antenna phase calibration solved by linalg.lstsq in bf16
    "gain-solve-bf16-lstsq": case(_gain_solve_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # eigen-decomposition of an array covariance matrix cast to fp16
    "array-covariance-half-eigh": case(_visibility_covariance_eigh_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # primary beam interpolated in frequency by lerp between an fp32 and a bf16-cached beam
    "primary-beam-lerp-fp32-bf16": case(_primary_beam_lerp_bf16_fp32, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # integer XF-correlator lag counts (int32) turned into spectra by @ with an fp32 DFT matrix
    "xf-correlator-int32-lags-dft-matmul": case(_xf_correlator_int32_lags_dft, "integer_operand", "int32", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- filterbanks, RFI and FRB search
    # an 8-bit uint8 SIGPROC filterbank block into an fp32 Conv1d FRB detector
    "filterbank-uint8-conv1d": case(_filterbank_uint8_into_conv1d, "integer_operand", "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # incoherent dedispersion with the float64 cold-plasma delays used as sample indices
    "dedispersion-float-delays-index": case(_dedispersion_float_delays_as_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 Conv3d over a spectral-line cube with the bias kept fp32
    "line-cube-bf16-conv3d-fp32-bias": case(_frb_detector_bf16_conv3d_fp32_bias, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # FRB candidate classifier with float64 labels from a candidates CSV as cross_entropy's target
    "frb-candidates-f64-labels-cross-entropy": case(_frb_candidate_float_labels_cross_entropy, "target_dtype",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- pulsars
    # pulsar folding: fp16 samples accumulated by index_put_ into an fp32 profile
    "pulsar-fold-half-index-put-accumulate": case(_pulsar_fold_index_put_half_profile, "indexed_write_dtype",
                                                  "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 LSTM pulse-profile classifier given fp32 profiles
    "pulse-profile-bf16-lstm-fp32": case(_pulse_profile_bf16_lstm_fp32, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- catalogues, spectra and likelihoods
    # a flux likelihood whose sigma is the sqrt of a variance map that went negative
    "flux-normal-negative-variance-sqrt": case(_flux_likelihood_normal_negative_variance, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # numpy float64 channel spectra copied into an fp32 cube with index_copy_
    "spectra-f64-index-copy-fp32-cube": case(_spectrum_index_copy_f64_channels, "indexed_write_dtype",
                                             "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # spectral transformer: fp16 channel mask as attn_mask of fp32 SDPA
    "spectral-sdpa-fp16-mask-fp32": case(_spectrum_attention_fp16_mask_fp32, "attn_mask_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # deblended source ids in an int64 segmentation map halved in place with /= instead of //=
    "segmentation-int64-ids-true-divide-inplace": case(_segmentation_ids_halved_in_place, "result_cast",
                                                       "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # PINT's numpy longdouble TOA MJDs handed to torch.from_numpy
    "pint-longdouble-toas-from-numpy": case(_pint_longdouble_toas_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (e7446605) castwise gave nothing. torch.from_numpy refusing a numpy.longdouble array "
             "(cannot convert np.ndarray of type numpy.longdouble; only the listed types are supported) is a numpy "
             "dtype torch has no tensor dtype for; castwise did not recognise it, though the fix (subtract a "
             "reference epoch in longdouble and convert to float64 before from_numpy) is a numpy_dtype one.")),
    # exposure-weighted counts: int32 exposure times dotted with int64 photon counts
    "exposure-int32-dot-int64-counts": case(_exposure_weighted_counts_dot, "integer_operand", "int32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the noise of RFI-free samples: masked_select with 1 - the uint8 AOFlagger flags as the mask
    "rfi-uint8-clean-mask-masked-select": case(_rfi_clean_samples_masked_select_uint8_flags, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # complex visibilities rebuilt by torch.polar from fp16 amplitude and phase
    "visibilities-half-polar": case(_fp16_amplitude_phase_polar_visibilities, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # attention over antennas with flagged antennas as a numpy float64 0/-inf key_padding_mask
    "flagged-antennas-f64-key-padding-mask": case(_flagged_antennas_f64_key_padding_mask, "attn_mask_dtype",
                                                  "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
}
