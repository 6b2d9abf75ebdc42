"""Held-out live set 109: ecology and wildlife monitoring written by hand in low precision (camera-trap uint8 frames and
bounding-box crops, species ids as int64 labels with long-tailed class weights and priors, bioacoustic spectrograms
from int16 recordings, occupancy and abundance models with float64 site covariates, spatial capture-recapture,
individual re-identification embeddings and memory banks, counts with Poisson and negative-binomial likelihoods,
bf16/fp16 inference and export). Defects planted by a helper who never read the rules, written before castwise ran
and graded once with the rules frozen at 8009be2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8009be2"

bf16, f16 = torch.bfloat16, torch.float16
_DIM = 16
_EMB = 32
_INDIVIDUALS = 20
# images per species in the training set: a long tail from deer and boar down to a handful of lynx and wildcat
_SPECIES_COUNTS = torch.tensor([41230, 18022, 5310, 2100, 860, 312, 95, 40, 12, 3])
_SPECIES = len(_SPECIES_COUNTS)
_SPECIES_NAMES = ["roe_deer", "wild_boar", "red_fox", "badger", "hare", "marten", "red_deer", "wolf", "lynx",
                  "wildcat"]
_GENUS_OF_SPECIES = torch.tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) // 2  # five coarse groups of two species
_GENERA = 5
_SR = 8000


def _seeded() -> None:
    torch.manual_seed(0)


def _camera_frame() -> torch.Tensor:
    """A small camera-trap frame as PIL/numpy give it: uint8, here made CHW."""
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.integers(0, 256, (48, 64, 3), dtype=np.uint8)).permute(2, 0, 1)


def _recording_int16() -> np.ndarray:
    """Half a second of an AudioMoth-style recording as scipy.io.wavfile.read returns it: int16 PCM."""
    t = np.arange(_SR // 2) / _SR
    call = 0.6 * np.sin(2 * np.pi * 2500 * t) * (np.sin(2 * np.pi * 8 * t) > 0)
    return (call * 32767).astype(np.int16)


# --- camera traps: frames, crops, species classifiers --------------------------------------------------------------


def _night_frame_check_median_brightness() -> bool:
    frame = _camera_frame()
    return bool(torch.quantile(frame[0].flatten(), 0.5) < 40)  # IR night frames: dark median in the red channel


def _info_banner_uint8_mask() -> None:
    frame = _camera_frame().float() / 255
    banner = np.zeros((48, 64), dtype=np.uint8)  # the timestamp/temperature strip, from the camera model's mask PNG
    banner[-6:, :] = 1
    frame.masked_fill(torch.from_numpy(banner), 0.0)


def _half_classifier_fp32_crop() -> None:
    _seeded()
    classifier = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                               nn.Linear(8, _SPECIES)).half().eval()
    box = [10, 8, 42, 40]  # MegaDetector box in pixel coordinates (x0, y0, x1, y1)
    crop = _camera_frame()[:, box[1]:box[3], box[0]:box[2]].float() / 255
    mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None]
    std = torch.tensor([0.229, 0.224, 0.225])[:, None, None]
    with torch.no_grad():
        classifier(((crop - mean) / std)[None])


def _species_head_bias_log_prior_after_cast() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(_DIM, _DIM), nn.ReLU(), nn.Linear(_DIM, _SPECIES)).to(bf16)
    prior = _SPECIES_COUNTS / _SPECIES_COUNTS.sum()
    model[2].bias = nn.Parameter(torch.log(prior))  # long-tail init: start the head at the log class frequencies
    model(torch.randn(4, _DIM, dtype=bf16))


def _repeat_factor_sampling_float_repeats() -> None:
    # fraction of training images that contain each image's rarest species
    image_freq = torch.tensor([0.45, 0.45, 0.2, 0.0025, 0.0004, 0.06, 0.0001])
    r = torch.clamp(torch.sqrt(0.01 / image_freq), min=1.0)  # LVIS-style repeat factors, threshold t = 0.01
    repeats = torch.ceil(r)
    torch.repeat_interleave(torch.arange(len(image_freq)), repeats)


def _genus_nll_fp32_class_weights() -> None:
    _seeded()
    species_logits = torch.randn(8, _SPECIES, dtype=bf16)
    membership = F.one_hot(_GENUS_OF_SPECIES, _GENERA).to(bf16)  # species-to-genus buffer, cast with the model
    genus_logp = torch.log(species_logits.softmax(-1) @ membership)
    genus_counts = torch.zeros(_GENERA, dtype=torch.long).index_add_(0, _GENUS_OF_SPECIES, _SPECIES_COUNTS)
    weight = genus_counts.sum() / (_GENERA * genus_counts)  # inverse-frequency weights for the long tail
    genus_targets = torch.tensor([0, 0, 1, 4, 2, 0, 3, 1])
    F.nll_loss(genus_logp, genus_targets, weight=weight)


def _species_probs_bf16_to_dataframe() -> None:
    _seeded()
    probs = torch.randn(4, _SPECIES, dtype=bf16).softmax(-1)  # bf16 batch inference over a camera's images
    pd.DataFrame(probs, columns=_SPECIES_NAMES)  # per-image scores for the Timelapse/CSV export


# --- individual re-identification ---------------------------------------------------------------------------------


def _reid_gallery_fp16_query_fp32() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    gallery = rng.standard_normal((_INDIVIDUALS, _EMB))
    gallery /= np.linalg.norm(gallery, axis=1, keepdims=True)
    gallery = torch.from_numpy(gallery.astype(np.float16))  # known individuals' embeddings, saved as fp16 .npy
    query = F.normalize(torch.randn(3, _EMB), dim=-1)  # new flank photos embedded by the fp32 model
    query @ gallery.T


def _arcface_margin_one_hot_where() -> None:
    _seeded()
    embeddings = F.normalize(torch.randn(4, _EMB), dim=-1)
    centres = F.normalize(torch.randn(_INDIVIDUALS, _EMB), dim=-1)
    ids = torch.tensor([3, 7, 12, 19])  # individual ids of the batch
    cos = embeddings @ centres.T
    theta = torch.acos(cos.clamp(-1 + 1e-7, 1 - 1e-7))
    one_hot = F.one_hot(ids, _INDIVIDUALS)
    torch.where(one_hot, torch.cos(theta + 0.5), cos) * 30.0  # additive angular margin on the true individual


def _cluster_memory_fp16_momentum_update() -> None:
    _seeded()
    memory = F.normalize(torch.randn(_INDIVIDUALS, _EMB), dim=-1).half()  # one centroid per individual, halved for RAM
    feats = F.normalize(torch.randn(4, _EMB), dim=-1)
    ids = torch.tensor([3, 7, 12, 19])
    memory[ids] = F.normalize(0.2 * memory[ids] + 0.8 * feats, dim=-1)


def _reid_rank1_mean_of_bool_matches() -> None:
    _seeded()
    gallery = F.normalize(torch.randn(_INDIVIDUALS, _EMB), dim=-1)
    gallery_ids = torch.arange(_INDIVIDUALS)
    query_ids = torch.tensor([2, 5, 11])
    query = F.normalize(gallery[query_ids] + 0.3 * torch.randn(3, _EMB), dim=-1)
    order = (query @ gallery.T).argsort(dim=1, descending=True)
    matches = gallery_ids[order] == query_ids[:, None]
    matches[:, 0].mean()  # rank-1 accuracy


def _reid_part_pooling_bmm() -> None:
    _seeded()
    features = torch.randn(2, 6 * 4, _EMB)  # fp32 backbone feature map, H*W flattened
    part_head = nn.Linear(_EMB, 4).to(bf16)  # part-attention head cast to bf16 on its own
    attention = part_head(features.to(bf16)).softmax(1).transpose(1, 2)  # (B, parts, H*W)
    torch.bmm(attention, features)


# --- bioacoustics ---------------------------------------------------------------------------------------------------


def _wavfile_scaled_in_numpy_conv1d_frontend() -> None:
    _seeded()
    pcm = _recording_int16()
    wave = torch.from_numpy(pcm / 32768.0)[None, None]  # scaled to [-1, 1] in numpy
    frontend = nn.Conv1d(1, 16, 64, stride=16)  # learnable filterbank front end
    frontend(wave)


def _clipping_check_histc_int16() -> None:
    pcm = torch.from_numpy(_recording_int16())
    hist = torch.histc(pcm, bins=64, min=-32768, max=32767)
    (hist[0] + hist[-1]) / pcm.numel()  # fraction of samples at full scale


def _pcen_smoother_lerp() -> None:
    _seeded()
    mel = torch.rand(1, 32, 20, dtype=bf16)  # mel energies from the bf16 front end
    smoother = torch.zeros(1, 32)  # PCEN's IIR smoother state
    for t in range(mel.shape[-1]):
        smoother = torch.lerp(smoother, mel[..., t], 0.025)


def _sed_crnn_gru_fp16_features() -> None:
    _seeded()
    cnn = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d((4, 1))).half()
    gru = nn.GRU(8 * 8, 32, batch_first=True, bidirectional=True)  # recurrent part kept fp32 "for stability"
    spec = torch.rand(1, 1, 32, 40, dtype=f16)
    x = cnn(spec)
    gru(x.flatten(1, 2).transpose(1, 2))


def _attention_pooling_fp32_query() -> None:
    _seeded()
    frames = torch.randn(2, 1, 50, _EMB, dtype=bf16)  # bf16 encoder frames of two recordings
    pool_query = nn.Parameter(torch.randn(1, 1, 1, _EMB))  # learned pooling query added after model.to(bf16)
    F.scaled_dot_product_attention(pool_query.expand(2, -1, -1, -1), frames, frames)


def _call_gap_merging_max_pool_bool() -> None:
    _seeded()
    detected = torch.sigmoid(torch.randn(1, 1, 100)) > 0.5  # frame-level call detections
    F.max_pool1d(detected, kernel_size=5, stride=1, padding=2)  # dilate to merge calls split by short gaps


def _fp32_log_mel_into_bf16_layer_norm() -> None:
    _seeded()
    encoder = nn.Sequential(nn.LayerNorm(32), nn.Linear(32, 64)).to(bf16)
    wave = torch.from_numpy(_recording_int16()).float() / 32768
    power = torch.stft(wave, 256, hop_length=128, window=torch.hann_window(256), return_complex=True).abs() ** 2
    mel_fb = torch.rand(32, 129)  # mel filterbank
    log_mel = torch.log(mel_fb @ power + 1e-6)  # computed in fp32: no bf16 FFT on this CPU
    encoder(log_mel.T)


# --- occupancy, abundance and counts --------------------------------------------------------------------------------


def _occupancy_site_covariates_f64() -> None:
    _seeded()
    sites = pd.DataFrame({"elevation_km": [0.42, 1.31, 0.88, 2.05, 1.12],
                          "forest_cover": [0.10, 0.75, 0.55, 0.92, 0.30],
                          "dist_road_km": [0.2, 3.5, 1.1, 6.8, 0.9]})
    covariates = torch.from_numpy(sites.to_numpy())
    covariates = (covariates - covariates.mean(0)) / covariates.std(0)
    psi_head = nn.Linear(3, 1)
    torch.sigmoid(psi_head(covariates))


def _occupancy_likelihood_one_minus_bool_history() -> None:
    _seeded()
    counts = torch.tensor([[0, 2, 0, 1], [0, 0, 0, 0], [1, 1, 0, 3]])  # detections per site and visit
    y = counts > 0
    p = torch.sigmoid(torch.randn(3, 4))
    (y * torch.log(p) + (1 - y) * torch.log(1 - p)).sum(1)


def _detection_history_uint8_bce() -> None:
    _seeded()
    history = np.array([[0, 1, 0, 0], [0, 0, 0, 0], [1, 1, 0, 1], [0, 0, 1, 0]], dtype=np.uint8)  # camtrapR export
    psi = torch.sigmoid(torch.randn(4, 1))
    p = torch.sigmoid(torch.randn(4, 4))
    F.binary_cross_entropy(psi * p, torch.from_numpy(history))


def _secr_trap_coordinates_f64_cdist() -> None:
    _seeded()
    traps = pd.DataFrame({"x_km": np.repeat(np.arange(4.0), 4), "y_km": np.tile(np.arange(4.0), 4)})
    trap_xy = torch.from_numpy(traps[["x_km", "y_km"]].to_numpy())  # trap grid from the survey sheet
    centres = nn.Parameter(torch.rand(5, 2) * 3)  # activity centres of five identified individuals
    d = torch.cdist(centres, trap_xy)
    0.3 * torch.exp(-(d**2) / (2 * 0.8**2))  # half-normal detection hazard


def _counts_corrected_in_place_by_detection() -> None:
    _seeded()
    counts = torch.tensor([12, 0, 5, 31, 7])  # raw point counts per site
    p_hat = torch.sigmoid(torch.randn(5))  # estimated detection probability per site
    counts.div_(p_hat)


def _abundance_fp16_unscaled_elevation_zero_effort() -> None:
    elevation_m = torch.tensor([850.0, 2450.0, 1200.0, 300.0], dtype=f16)  # left in metres
    beta0, beta_elev = torch.tensor(-1.0, dtype=f16), torch.tensor(0.01, dtype=f16)
    effort = torch.tensor([3.0, 0.0, 5.0, 2.0], dtype=f16)  # trap-nights; the high camera failed on deployment
    rate = torch.exp(beta0 + beta_elev * elevation_m) * effort
    torch.distributions.Poisson(rate).log_prob(torch.tensor([2.0, 0.0, 4.0, 1.0]))


def _negbin_posterior_predictive_bf16() -> None:
    _seeded()
    head = nn.Linear(4, 2).to(bf16)
    out = head(torch.randn(6, 4, dtype=bf16))
    counts_dist = torch.distributions.NegativeBinomial(total_count=F.softplus(out[:, 0]), logits=out[:, 1])
    counts_dist.sample((100,))  # replicated counts for a posterior predictive check


def _point_counts_uint8_overflow() -> None:
    survey = [14, 3, 0, 27, 1200, 8]  # birds per station; station 5 had a starling murmuration
    torch.tensor(survey, dtype=torch.uint8)


def _density_map_nodata_fp16() -> None:
    _seeded()
    density = torch.rand(8, 8, dtype=f16) * 5  # fp16 inference output, animals per km2
    outside = torch.zeros(8, 8, dtype=torch.bool)
    outside[:, :2] = True  # cells outside the study area
    density.masked_fill(outside, -99999)  # the GeoTIFF's nodata value


def _camera_station_uint8_embedding() -> None:
    _seeded()
    stations = torch.from_numpy(np.array([3, 17, 17, 42], dtype=np.uint8))  # station codes from the metadata table
    station_embedding = nn.Embedding(64, 8)
    station_embedding(stations)


def _group_size_huber_bf16_backward() -> None:
    _seeded()
    head = nn.Linear(_DIM, 1).to(bf16)
    group_size = torch.tensor([1.0, 3.0, 12.0, 2.0, 40.0, 1.0])  # animals per detection from the aerial count sheet
    pred = head(torch.randn(6, _DIM, dtype=bf16)).squeeze(-1)
    F.huber_loss(pred, group_size).backward()


CASES: dict[str, LiveCase] = {
    # IR night-frame check by the median brightness of the uint8 camera-trap frame with torch.quantile
    "night-frame-median-brightness-quantile-uint8": case(_night_frame_check_median_brightness, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # the camera's timestamp banner (uint8 mask PNG) blanked on the frame with masked_fill
    "info-banner-uint8-mask-masked-fill": case(_info_banner_uint8_mask, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a .half() species classifier given the MegaDetector crop normalised in fp32
    "half-species-classifier-fp32-crop": case(_half_classifier_fp32_crop, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # long-tail init: the bf16 species head's bias replaced by fp32 log class frequencies after the cast
    "species-head-log-prior-bias-after-cast": case(_species_head_bias_log_prior_after_cast, "matmul_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # LVIS-style repeat-factor sampling for rare species: image ids repeated by ceil of the float repeat factors
    "repeat-factor-sampling-float-repeats": case(_repeat_factor_sampling_float_repeats, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # genus-level NLL of bf16 log-probabilities with inverse-frequency class weights in fp32
    "genus-nll-bf16-fp32-class-weights": case(_genus_nll_fp32_class_weights, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 species probabilities handed to pandas for the per-image CSV export
    "species-probs-bf16-to-dataframe": case(_species_probs_bf16_to_dataframe, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # re-identification: fp32 query embeddings scored against a gallery saved as fp16
    "reid-gallery-fp16-query-fp32": case(_reid_gallery_fp16_query_fp32, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # ArcFace margin applied with torch.where on the int64 one-hot of the individual ids
    "arcface-margin-one-hot-where": case(_arcface_margin_one_hot_where, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # cluster-contrast memory of individuals kept fp16, momentum-updated by advanced indexing with fp32 features
    "cluster-memory-fp16-momentum-update": case(_cluster_memory_fp16_momentum_update, "indexed_write_dtype", "f16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # re-ID rank-1 accuracy as the mean of the bool top-1 match column
    "reid-rank1-mean-bool-matches": case(_reid_rank1_mean_of_bool_matches, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # re-ID part pooling: bf16 part-attention maps bmm'd with the fp32 backbone features
    "reid-part-pooling-bmm-bf16-attention": case(_reid_part_pooling_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # int16 PCM scaled by 32768.0 in numpy (float64) into an fp32 learnable Conv1d front end
    "wavfile-numpy-scaled-f64-conv1d-frontend": case(_wavfile_scaled_in_numpy_conv1d_frontend, "conv_weight_dtype",
                                                     "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # clipping check of an int16 recording by torch.histc of the raw samples
    "clipping-check-histc-int16-recording": case(_clipping_check_histc_int16, "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # PCEN smoother state in fp32 lerp'ed toward the bf16 mel frames
    "pcen-smoother-fp32-lerp-bf16-mel": case(_pcen_smoother_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # sound-event CRNN: fp16 conv features into the GRU kept fp32
    "sed-crnn-fp16-features-fp32-gru": case(_sed_crnn_gru_fp16_features, "rnn_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling over bf16 frames with a learned fp32 query through SDPA
    "attention-pooling-fp32-query-sdpa": case(_attention_pooling_fp32_query, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # frame-level bool call detections dilated with max_pool1d to merge short gaps
    "call-gap-merging-max-pool-bool": case(_call_gap_merging_max_pool_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # log-mel computed in fp32 (STFT) given to the bf16 encoder's first LayerNorm
    "fp32-log-mel-bf16-layer-norm": case(_fp32_log_mel_into_bf16_layer_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # occupancy psi from pandas float64 site covariates through an fp32 Linear
    "occupancy-site-covariates-f64-linear": case(_occupancy_site_covariates_f64, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # occupancy detection log-likelihood with 1 - y on the bool detection history
    "occupancy-one-minus-bool-history": case(_occupancy_likelihood_one_minus_bool_history, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # camtrapR-style uint8 detection history as binary_cross_entropy's target
    "detection-history-uint8-bce-target": case(_detection_history_uint8_bce, "target_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # spatial capture-recapture: fp32 activity centres cdist'ed to a float64 trap grid from pandas
    "secr-trap-grid-f64-cdist": case(_secr_trap_coordinates_f64_cdist, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # int64 point counts corrected in place by the estimated detection probability
    "point-counts-in-place-div-detection-prob": case(_counts_corrected_in_place_by_detection, "result_cast", "f32",
                                                     "int64",
        grade="correct", grade_at_freeze="correct"),
    # fp16 abundance GLM on elevation in metres: exp overflows, times zero effort is NaN, Poisson refuses the rate
    "abundance-fp16-zero-effort-poisson-nan": case(_abundance_fp16_unscaled_elevation_zero_effort, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # negative-binomial posterior predictive counts sampled from a bf16 head
    "negbin-posterior-predictive-bf16": case(_negbin_posterior_predictive_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bird point counts put into uint8, one station counting a murmuration of 1200
    "point-counts-uint8-murmuration": case(_point_counts_uint8_overflow, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 density map with cells outside the study area filled with the GIS nodata -99999
    "density-map-nodata-fp16-masked-fill": case(_density_map_nodata_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # camera-station codes stored uint8 looked up in a station embedding
    "camera-station-uint8-embedding": case(_camera_station_uint8_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # group size regressed by a bf16 head with huber_loss against fp32 aerial counts, backward
    "group-size-huber-bf16-backward": case(_group_size_huber_bf16_backward, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
