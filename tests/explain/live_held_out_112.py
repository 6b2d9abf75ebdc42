"""Held-out live set 112: astronomy and astrophysics written by hand in low precision (FITS images and tables as
big-endian >f4/>f8 and int16/uint16 raw CCD frames as astropy/fitsio return them, overscan and bias calibration, flat
combination, bad-pixel and data-quality masks as uint8/bool/bit planes, drizzle and WCS geometry, HEALPix source-count
maps, light curves with float64 Julian dates, photometric-redshift MLPs, galaxy-morphology CNNs on cutouts, spectra
resampled with searchsorted/lerp/np.interp and cross-correlated with templates, bf16 autocast around the networks).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen
at 41ea083."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "41ea083"

bf16, f16 = torch.bfloat16, torch.float16
_BANDS = ("u", "g", "r", "i", "z")
_ZBINS = 40  # photo-z classification bins over 0 < z < 2


def _seeded() -> None:
    torch.manual_seed(0)


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _raw_frame_int16(height: int = 16, width: int = 20) -> torch.Tensor:
    """A raw CCD frame as fitsio returns BITPIX=16 data read with do_not_scale: int16 ADU with a bias level."""
    counts = 1000 + _rng().poisson(50.0, size=(height, width))
    return torch.from_numpy(counts.astype(np.int16))


def _raw_frames_uint16(count: int = 5, size: int = 12) -> list[np.ndarray]:
    """Raw frames as fitsio returns BITPIX=16 with BZERO=32768: uint16 ADU."""
    rng = _rng()
    return [(30000 + rng.poisson(200.0, size=(size, size))).astype(np.uint16) for _ in range(count)]


def _photometry_table(rows: int = 8) -> np.ndarray:
    """A FITS binary table row array as astropy's FITS_rec gives it: big-endian columns."""
    dtype = [("OBJID", ">i8"), ("Z_SPEC", ">f8")] + [(f"MAG_{band.upper()}", ">f4") for band in _BANDS]
    table = np.zeros(rows, dtype=dtype)
    rng = _rng()
    for band in _BANDS:
        table[f"MAG_{band.upper()}"] = rng.uniform(18.0, 23.0, size=rows)
    table["Z_SPEC"] = rng.uniform(0.05, 1.5, size=rows)
    return table


def _photoz_mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))


def _morphology_cnn(in_channels: int = 1) -> nn.Module:
    return nn.Sequential(nn.Conv2d(in_channels, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(16, 5))


# --- FITS I/O and raw CCD frames


def _photometry_catalogue_big_endian_from_numpy() -> None:
    table = _photometry_table()
    torch.stack([torch.from_numpy(table[f"MAG_{band.upper()}"]) for band in _BANDS], dim=1)  # each column >f4


def _overscan_subtracted_in_place_int16() -> None:
    raw = _raw_frame_int16()
    overscan = raw[:, -4:].float().median(dim=1).values  # per-row bias level from the overscan strip
    raw.sub_(overscan[:, None])


def _flat_frames_uint16_median_combine() -> None:
    flats = torch.stack([torch.from_numpy(frame) for frame in _raw_frames_uint16()])
    master_flat = flats.median(dim=0).values
    master_flat / master_flat.float().mean()


def _bias_frames_uint16_master_bias_mean() -> None:
    biases = torch.stack([torch.from_numpy(frame) for frame in _raw_frames_uint16()])
    biases.mean(dim=0)


def _zscale_histogram_of_int16_frame() -> None:
    raw = _raw_frame_int16()
    lo, hi = raw.min().item(), raw.max().item()
    torch.histc(raw, bins=64, min=lo, max=hi)


def _dq_bits_from_fp16_cube() -> None:
    _seeded()
    science = torch.randn(16, 16) * 5 + 100
    variance = science.abs()
    dq = torch.zeros(16, 16)
    dq[3, 4] = 8  # bit 3: cosmic ray
    cube = torch.stack([science, variance, dq]).half()  # the SCI/VAR/DQ cube cached as fp16
    cosmic_ray = (cube[2] >> 3) & 1
    cube[0].masked_fill(cosmic_ray.bool(), 0.0)


def _saturated_pixels_flagged_in_fp16_frame() -> None:
    _seeded()
    frame = (torch.rand(16, 16) * 70000).half()
    saturated = frame >= 60000
    frame.masked_fill_(saturated, 65535.0)  # SATURATE keyword value from the header


# --- bad-pixel masks


def _bad_pixel_mask_uint8_masked_fill() -> None:
    _seeded()
    science = torch.randn(16, 16)
    bpm = torch.from_numpy((_rng().random((16, 16)) < 0.02).astype(np.uint8))  # BPM extension, 1 = bad
    science.masked_fill(bpm, float("nan"))


def _inverse_variance_weight_from_bool_mask() -> None:
    _seeded()
    variance = torch.rand(16, 16) + 0.5
    bad = torch.rand(16, 16) < 0.02
    weight = (1 - bad) / variance
    weight.sum()


# --- light curves


def _light_curve_gru_float64_mjd_features() -> None:
    _seeded()
    mjd = torch.from_numpy(np.sort(59000.0 + _rng().uniform(0.0, 120.0, size=30)))  # float64 from the alert table
    flux = torch.randn(30)
    dt = torch.diff(mjd, prepend=mjd[:1])
    features = torch.stack([dt, flux], dim=-1)[None]
    nn.GRU(2, 16, batch_first=True)(features)


def _intranight_times_float32_normalised_span_nan() -> None:
    _seeded()
    jd = np.array([2459000.7012, 2459000.7095, 2459000.7181])  # three ZTF visits in one night
    t = torch.from_numpy(jd).float()  # JD to fp32: a quarter-day resolution
    t_norm = (t - t.min()) / (t.max() - t.min())
    amplitude = nn.Linear(1, 1)(t_norm[:, None]).squeeze(1)
    torch.distributions.Normal(amplitude, 0.1).log_prob(torch.zeros(3))


def _ztf_filter_id_uint8_band_embedding() -> None:
    _seeded()
    fid = torch.from_numpy(np.array([1, 2, 1, 2, 3, 1], dtype=np.uint8))  # ZTF fid column (g, r, i)
    band_embedding = nn.Embedding(4, 8)
    band_embedding(fid)


def _light_curve_perceiver_bf16_latents_fp32_tokens() -> None:
    _seeded()
    latents = nn.Parameter(torch.randn(1, 2, 8, 16)).to(bf16)  # the bf16 Perceiver's learned latents
    tokens = torch.randn(1, 2, 30, 16)  # observation tokens from the fp32 flux/time encoder
    F.scaled_dot_product_attention(latents, tokens, tokens)


def _light_curve_padding_mask_float64_from_numpy() -> None:
    _seeded()
    lengths = np.array([30, 22])
    pad = np.where(np.arange(30)[None, :] < lengths[:, None], 0.0, -np.inf)  # float64 additive mask
    mask = torch.from_numpy(pad)[:, None, None, :]
    q = torch.randn(2, 2, 30, 16, dtype=bf16)
    F.scaled_dot_product_attention(q, q, q, attn_mask=mask)


# --- photometric redshifts


def _photoz_mlp_bf16_fp32_colours() -> None:
    _seeded()
    mags = torch.rand(8, 5) * 5 + 18
    colours = mags[:, :-1] - mags[:, 1:]  # u-g, g-r, r-i, i-z
    model = _photoz_mlp().to(bf16)
    model(colours)


def _zphot_bin_float_target_cross_entropy() -> None:
    _seeded()
    z_spec = torch.rand(8) * 1.9
    z_bin = torch.floor(z_spec / (2.0 / _ZBINS))  # bin index, still float
    logits = nn.Linear(4, _ZBINS)(torch.randn(8, 4))
    F.cross_entropy(logits, z_bin)


def _photoz_huber_against_float64_zspec() -> None:
    _seeded()
    table = _photometry_table()
    z_spec = torch.from_numpy(table["Z_SPEC"].astype(np.float64))  # byte order fixed, still float64
    z_phot = _photoz_mlp()(torch.randn(8, 4)).squeeze(1)
    F.huber_loss(z_phot, z_spec, delta=0.15).backward()


def _autocast_zphot_written_into_fp32_catalogue() -> None:
    _seeded()
    catalogue_z = torch.full((20,), -99.0)
    rows = torch.tensor([2, 5, 7, 11, 13, 17, 18, 19])
    model = _photoz_mlp()
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        z_phot = model(torch.randn(8, 4)).squeeze(1)
        catalogue_z[rows] = z_phot


def _autocast_colour_covariance_cholesky() -> None:
    _seeded()
    encoder = nn.Linear(4, 6)
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        features = encoder(torch.randn(64, 4))
        centred = features - features.mean(dim=0)
        covariance = centred.T @ centred / 63
    ridge = 1e-3 * torch.eye(6, dtype=covariance.dtype)
    torch.linalg.cholesky(covariance + ridge)  # whitening for Mahalanobis outlier scores


def _healpix_float64_pixel_ids_count_map() -> None:
    nside = 4
    pixel = torch.from_numpy(np.array([3.0, 17.0, 17.0, 140.0, 55.0]))  # HPX pixel column written via pandas
    counts = torch.zeros(12 * nside**2)
    counts.index_add_(0, pixel, torch.ones(5))


# --- galaxy morphology


def _sdss_jpeg_cutout_uint8_into_cnn() -> None:
    _seeded()
    cutout = _rng().integers(0, 256, size=(32, 32, 3), dtype=np.uint8)  # SDSS gri JPEG cutout
    image = torch.from_numpy(cutout).permute(2, 0, 1)[None]
    _morphology_cnn(3)(image)


def _fits_cutout_astype_float_into_cnn() -> None:
    _seeded()
    cutout = _rng().normal(0.0, 1.0, size=(32, 32)).astype(">f4")  # hdu.data
    image = torch.from_numpy(cutout.astype(float))[None, None]  # astype(float) fixes the byte order: float64
    _morphology_cnn(1)(image)


def _galaxy_zoo_vote_fractions_float64_bce() -> None:
    _seeded()
    votes = _rng().dirichlet(np.ones(5), size=8)  # vote fractions from the GZ2 csv (pandas float64)
    logits = _morphology_cnn(1)(torch.randn(8, 1, 32, 32))
    F.binary_cross_entropy(torch.sigmoid(logits), torch.from_numpy(votes))


def _galaxy_zoo_int16_class_labels_cross_entropy() -> None:
    _seeded()
    labels = np.asarray(np.array([0, 3, 1, 4, 2, 0, 1, 3], dtype=">i2"), dtype=np.int16)  # GZ class column, native
    logits = _morphology_cnn(1)(torch.randn(8, 1, 32, 32))
    F.cross_entropy(logits, torch.from_numpy(labels))


# --- geometry, drizzle and calibration matrices


def _amplifier_crosstalk_float64_einsum() -> None:
    _seeded()
    crosstalk = torch.from_numpy(np.eye(4) - 1e-4 * (1 - np.eye(4)))  # coefficients from the calibration file
    amplifiers = torch.randn(4, 16, 16)
    torch.einsum("ij,jhw->ihw", crosstalk, amplifiers)


def _wcs_cd_matrices_float64_bmm() -> None:
    _seeded()
    cd = torch.from_numpy(np.tile(np.array([[-7.3e-5, 0.0], [0.0, 7.3e-5]]), (3, 1, 1)))  # CD1_1... per chip
    offsets = torch.randn(3, 2, 10) * 100  # pixel offsets from CRPIX, fp32
    torch.bmm(cd, offsets)


def _drizzle_float64_fluxes_index_add() -> None:
    _seeded()
    image = _rng().normal(100.0, 5.0, size=(8, 8))  # input exposure as float64
    target = torch.randint(0, 16 * 16, (64,))  # output pixel of each input pixel's centre
    output = torch.zeros(16 * 16)
    output.index_add_(0, target, torch.from_numpy(image).reshape(-1))


# --- spectra


def _spectrum_resample_searchsorted_lerp_float64_weights() -> None:
    _seeded()
    wave = torch.from_numpy(np.linspace(3800.0, 9200.0, 200))  # WAVE column, float64
    flux = torch.randn(200)
    new_wave = torch.from_numpy(np.exp(np.linspace(np.log(3900.0), np.log(9100.0), 150)))
    right = torch.searchsorted(wave, new_wave).clamp(1, 199)
    left = right - 1
    frac = (new_wave - wave[left]) / (wave[right] - wave[left])
    torch.lerp(flux[left], flux[right], frac)


def _redshift_cross_correlation_float64_template() -> None:
    _seeded()
    spectrum = torch.randn(1, 1, 300)
    template = torch.from_numpy(np.exp(-0.5 * (np.arange(-15, 16) / 3.0) ** 2))  # template FITS, float64
    F.conv1d(spectrum, template[None, None], padding=15)


def _autocast_decoded_spectrum_np_interp() -> None:
    _seeded()
    decoder = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 200))
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        spectrum = decoder(torch.randn(8))
    rest_wave = np.linspace(3000.0, 7000.0, 200)
    observed_wave = np.linspace(4000.0, 9000.0, 300)
    np.interp(observed_wave / 1.3, rest_wave, spectrum)


CASES: dict[str, LiveCase] = {
    # --- FITS I/O and raw CCD frames
    # photometric catalogue magnitudes: astropy's big-endian >f4 table columns each given to torch.from_numpy
    "photometry-table-big-endian-f4-from-numpy": case(_photometry_catalogue_big_endian_from_numpy, "numpy_dtype",
                                                      cause=("byte order",),
        grade="correct", grade_at_freeze="correct"),
    # per-row overscan level (fp32 median) subtracted in place from the int16 raw CCD frame
    "overscan-subtract-inplace-int16-raw": case(_overscan_subtracted_in_place_int16, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # dome flats read by fitsio as uint16 (BZERO=32768) median-combined into a master flat
    "flat-median-combine-uint16-fitsio": case(_flat_frames_uint16_median_combine, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # uint16 bias frames averaged into a master bias with mean(dim=0)
    "master-bias-mean-uint16-frames": case(_bias_frames_uint16_master_bias_mean, "integer_operand", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # zscale display limits from a histogram of the int16 raw frame with histc
    "zscale-histc-int16-raw-frame": case(_zscale_histogram_of_int16_frame, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # cosmic-ray bit read with >> from the DQ plane of a SCI/VAR/DQ cube cached as fp16
    "dq-plane-fp16-cube-right-shift": case(_dq_bits_from_fp16_cube, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # saturated pixels of an fp16 frame set to the header's SATURATE value 65535
    "saturate-65535-masked-fill-fp16-frame": case(_saturated_pixels_flagged_in_fp16_frame, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- bad-pixel masks
    # the uint8 BPM extension (1 = bad) used directly as masked_fill's mask
    "bpm-uint8-masked-fill-nan": case(_bad_pixel_mask_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # inverse-variance weight map made as (1 - bad) with a bool bad-pixel mask
    "ivar-weight-one-minus-bool-bpm": case(_inverse_variance_weight_from_bool_mask, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # --- light curves
    # alert light curve: float64 MJD differences stacked with flux into an fp32 GRU classifier
    "light-curve-gru-f64-mjd-deltas": case(_light_curve_gru_float64_mjd_features, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # one night's JDs cast to fp32 collapse to one value; the span-normalised time is NaN, Normal rejects it
    "intranight-jd-fp32-span-zero-nan": case(_intranight_times_float32_normalised_span_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # ZTF filter ids (fid) kept uint8 from the alert packet, looked up in a band embedding
    "ztf-fid-uint8-band-embedding": case(_ztf_filter_id_uint8_band_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # Perceiver-style light-curve model: bf16 latents attend over fp32 observation tokens with SDPA
    "perceiver-bf16-latents-fp32-tokens-sdpa": case(_light_curve_perceiver_bf16_latents_fp32_tokens, "sdpa_dtype",
                                                    "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ragged light curves padded with a float64 0/-inf mask built in numpy, given to bf16 SDPA
    "light-curve-padding-mask-f64-sdpa": case(_light_curve_padding_mask_float64_from_numpy, "attn_mask_dtype", "f64",
                                              "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- photometric redshifts
    # photo-z MLP cast to bf16 fed fp32 colours computed from catalogue magnitudes
    "photoz-mlp-bf16-fp32-colours": case(_photoz_mlp_bf16_fp32_colours, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # photo-z as classification: the redshift bin index from floor() left float, given to cross_entropy
    "zphot-bin-floor-float-target": case(_zphot_bin_float_target_cross_entropy, "target_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # photo-z regression with Huber loss against the float64 Z_SPEC column, backward
    "photoz-huber-f64-zspec-backward": case(_photoz_huber_against_float64_zspec, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autocast photo-z predictions written into the fp32 catalogue column by row index
    "autocast-zphot-index-put-fp32-catalogue": case(_autocast_zphot_written_into_fp32_catalogue,
                                                    "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # colour-space whitening: feature covariance computed under bf16 autocast, factored with cholesky after it
    "autocast-colour-covariance-cholesky-bf16": case(_autocast_colour_covariance_cholesky, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # source-count HEALPix map from float64 pixel ids (a pandas-written column) with index_add_
    "healpix-f64-pixel-ids-index-add": case(_healpix_float64_pixel_ids_count_map, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- galaxy morphology
    # SDSS gri JPEG cutout (uint8, HWC) permuted into the fp32 morphology CNN
    "sdss-jpeg-cutout-uint8-morphology-cnn": case(_sdss_jpeg_cutout_uint8_into_cnn, "integer_operand", "uint8",
                                                  "f32",
        grade="correct", grade_at_freeze="correct"),
    # a FITS cutout made native with astype(float), so float64, into the fp32 morphology CNN
    "fits-cutout-astype-float-f64-cnn": case(_fits_cutout_astype_float_into_cnn, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Galaxy Zoo vote fractions from pandas (float64) as binary_cross_entropy targets of fp32 sigmoids
    "galaxy-zoo-vote-fractions-f64-bce": case(_galaxy_zoo_vote_fractions_float64_bce, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Galaxy Zoo class column read from a FITS table as int16 labels for cross_entropy
    "galaxy-zoo-int16-class-labels-ce": case(_galaxy_zoo_int16_class_labels_cross_entropy, "target_dtype", "int16",
        grade="correct", grade_at_freeze="correct"),
    # --- geometry, drizzle and calibration matrices
    # amplifier crosstalk correction: float64 coefficient matrix einsum'd with fp32 amplifier images
    "crosstalk-f64-coefficients-einsum": case(_amplifier_crosstalk_float64_einsum, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # per-chip WCS CD matrices (float64) bmm'd with fp32 pixel offsets from CRPIX
    "wcs-cd-matrix-f64-bmm-offsets": case(_wcs_cd_matrices_float64_bmm, "batched_matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # drizzle-style co-addition: float64 input fluxes index_add_'d onto the fp32 output grid
    "drizzle-f64-flux-index-add-fp32-grid": case(_drizzle_float64_fluxes_index_add, "indexed_write_dtype", "f32",
                                                 "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- spectra
    # spectrum resampled to a log-lambda grid: searchsorted on a float64 WAVE column, lerp with float64 weights
    "spectrum-resample-lerp-f64-weights": case(_spectrum_resample_searchsorted_lerp_float64_weights, "lerp_dtype",
                                               "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # cross-correlation redshift: fp32 spectrum conv1d'd with a float64 template
    "xcorr-redshift-conv1d-f64-template": case(_redshift_cross_correlation_float64_template, "conv_weight_dtype",
                                               "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # spectrum decoded under bf16 autocast handed to np.interp to shift it to the observed frame
    "autocast-decoded-spectrum-np-interp-bf16": case(_autocast_decoded_spectrum_np_interp, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
