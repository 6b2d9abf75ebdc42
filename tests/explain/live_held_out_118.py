"""Held-out live set 118: audio-visual speech recognition and lip reading by hand in low precision (uint8 mouth-crop
video frames, int16 PCM audio, 25 fps video aligned with 100 fps audio features by integer index arithmetic, character
vocabularies with int64 ids and CTC or attention decoders, bool padding masks for both streams, fp32 audio features
fused with a bf16 visual front-end). Defects planted by a helper who never read the rules, written before castwise
ran and graded once with the rules frozen at e376b1d."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "e376b1d"

bf16, f16 = torch.bfloat16, torch.float16
_VIDEO_FPS = 25
_AUDIO_FPS = 100  # 10 ms log-mel / fbank hop at 16 kHz
_SAMPLE_RATE = 16000
_CROP = 24  # mouth ROI side (88 in LRS3 recipes; small here)
_FRAMES = 10  # video frames per clip
_AUDIO_FRAMES = _FRAMES * _AUDIO_FPS // _VIDEO_FPS
_DIM = 16
_CHARS = "_ abcdefghijklmnopqrstuvwxyz'<>"  # blank/pad, space, letters, apostrophe, sos, eos
_SOS, _EOS = _CHARS.index("<"), _CHARS.index(">")


def _seeded() -> None:
    torch.manual_seed(0)


def _mouth_crops(batch: int = 2) -> torch.Tensor:
    """Grayscale mouth crops as the video reader returns them: (B, T, H, W) uint8."""
    generator = torch.Generator().manual_seed(0)
    return torch.randint(0, 256, (batch, _FRAMES, _CROP, _CROP), dtype=torch.uint8, generator=generator)


def _visual_stem(bias: bool = False) -> nn.Conv3d:
    """The lip-reading ResNet's 3-D stem: 5x7x7 over (T, H, W), stride 2 in space."""
    return nn.Conv3d(1, 8, (5, 7, 7), stride=(1, 2, 2), padding=(2, 3, 3), bias=bias)


def _encode(text: str) -> list[int]:
    return [_CHARS.index(char) for char in text]


def _uint8_crops_into_bf16_conv3d_stem() -> None:
    _seeded()
    stem = _visual_stem().to(bf16)
    clips = _mouth_crops()[:, None]  # (B, 1, T, H, W) straight from the collate
    stem(clips)


def _histogram_equalisation_histc_uint8() -> None:
    crops = _mouth_crops()
    hist = torch.histc(crops[0, 0], bins=256, min=0, max=255)
    cdf = hist.cumsum(0) / hist.sum()
    cdf[crops[0, 0].long()]


def _grayscale_tensordot_uint8_rgb() -> None:
    generator = torch.Generator().manual_seed(0)
    rgb = torch.randint(0, 256, (2, _FRAMES, _CROP, _CROP, 3), dtype=torch.uint8, generator=generator)
    luma = torch.tensor([0.299, 0.587, 0.114])
    torch.tensordot(rgb, luma, dims=([-1], [0]))


def _video_padding_mask_interpolated_to_audio_rate() -> None:
    video_lengths = torch.tensor([10, 7])
    video_pad = torch.arange(_FRAMES)[None] >= video_lengths[:, None]  # (B, T_v) bool, True on padding
    audio_pad = F.interpolate(video_pad[:, None], size=_AUDIO_FRAMES, mode="nearest")[:, 0]
    audio_pad.sum()


def _video_features_upsampled_by_true_division_index() -> None:
    _seeded()
    visual = torch.randn(2, _FRAMES, _DIM)
    video_index = (torch.arange(_AUDIO_FRAMES) * _VIDEO_FPS / _AUDIO_FPS).floor()  # video frame of each audio frame
    visual.index_select(1, video_index)


def _uint8_character_ids_into_decoder_embedding() -> None:
    _seeded()
    stored = np.array([_encode("bin blue at f")], dtype=np.uint8)  # 31 characters fit in a byte
    ys_in = torch.from_numpy(stored)
    nn.Embedding(len(_CHARS), _DIM)(ys_in)


def _eos_appended_as_ones_times_eos() -> None:
    _seeded()
    ys = torch.tensor([_encode("place red")])
    ys_out = torch.cat([ys, torch.ones(1, 1) * _EOS], dim=1)
    nn.Embedding(len(_CHARS), _DIM)(ys_out)


def _syncnet_offset_labels_int8() -> None:
    _seeded()
    offsets = np.array([-3, 2, 0, 7], dtype=np.int8)  # audio shifted by -15..15 video frames
    logits = torch.randn(4, 31)
    F.cross_entropy(logits, torch.from_numpy(offsets + 15))


def _uint8_key_padding_mask_into_mha() -> None:
    _seeded()
    pad = np.zeros((2, _FRAMES), dtype=np.uint8)
    pad[1, 7:] = 1  # the collate marks padded video frames with 1
    attention = nn.MultiheadAttention(_DIM, 2, batch_first=True)
    visual = torch.randn(2, _FRAMES, _DIM)
    attention(visual, visual, visual, key_padding_mask=torch.from_numpy(pad))


def _audio_only_frames_by_bool_subtraction() -> None:
    audio_valid = torch.arange(_FRAMES)[None] < torch.tensor([[10], [9]])
    video_valid = torch.arange(_FRAMES)[None] < torch.tensor([[10], [6]])  # face lost after frame 6
    audio_only = audio_valid - video_valid
    audio_only.sum()


def _modality_dropout_float_keep_inverted() -> None:
    _seeded()
    visual = torch.randn(4, _FRAMES, _DIM)
    drop_video = (torch.rand(4) < 0.25).float()  # float so that it can scale the loss weights too
    visual * ~drop_video[:, None, None]


def _concat_fusion_fp32_audio_bf16_visual() -> None:
    _seeded()
    audio = torch.randn(2, _AUDIO_FRAMES, _DIM)  # fp32 audio encoder output at 100 fps
    visual = torch.randn(2, _FRAMES, _DIM, dtype=bf16)  # bf16 visual front-end at 25 fps
    audio_25 = audio.reshape(2, _FRAMES, _AUDIO_FPS // _VIDEO_FPS, _DIM).mean(2)
    fusion = nn.Linear(2 * _DIM, _DIM).to(bf16)
    fusion(torch.cat([audio_25, visual], dim=-1))


def _cross_modal_sdpa_fp32_audio_keys() -> None:
    _seeded()
    heads = 2
    video_q = torch.randn(2, heads, _FRAMES, _DIM // heads, dtype=bf16)
    audio_kv = torch.randn(2, heads, _AUDIO_FRAMES, _DIM // heads)
    F.scaled_dot_product_attention(video_q, audio_kv, audio_kv)


def _gated_fusion_lerp() -> None:
    _seeded()
    audio = torch.randn(2, _FRAMES, _DIM)
    visual = torch.randn(2, _FRAMES, _DIM, dtype=bf16)
    gate = torch.sigmoid(nn.Linear(2 * _DIM, _DIM)(torch.cat([audio, visual.float()], -1)))
    torch.lerp(audio, visual, gate)


def _bigru_backend_fp32_bf16_frontend() -> None:
    _seeded()
    frontend_out = torch.randn(2, _FRAMES, _DIM, dtype=bf16)
    backend = nn.GRU(_DIM, 8, num_layers=2, bidirectional=True, batch_first=True)
    backend(frontend_out)


def _bf16_stem_fp32_normalised_frames() -> None:
    _seeded()
    stem = _visual_stem().to(bf16)
    clips = (_mouth_crops()[:, None].float() / 255.0 - 0.421) / 0.165  # LRS3 mean/std
    stem(clips)


def _stem_bias_reinitialised_after_cast() -> None:
    _seeded()
    stem = _visual_stem(bias=True).to(bf16)
    stem.bias = nn.Parameter(torch.zeros(8))  # reset after loading the checkpoint
    stem(_mouth_crops()[:, None].to(bf16) / 255)


def _prefusion_layernorm_bf16_fp32_fbank() -> None:
    _seeded()
    fbank = torch.randn(2, _AUDIO_FRAMES, _DIM)
    nn.LayerNorm(_DIM).to(bf16)(fbank)


def _mouth_alignment_procrustes_svd_f16() -> None:
    _seeded()
    landmarks = torch.randn(20, 2, dtype=f16)  # mouth landmarks from an fp16 face-alignment network
    template = torch.randn(20, 2, dtype=f16)
    landmarks = landmarks - landmarks.mean(0)
    template = template - template.mean(0)
    u, _, vh = torch.linalg.svd(landmarks.T @ template)
    u @ vh


def _label_smoothing_scatter_fp32_confidence() -> None:
    _seeded()
    logits = torch.randn(6, len(_CHARS), dtype=bf16)
    target = torch.randint(0, len(_CHARS), (6,))
    smoothing = 0.1
    true_dist = torch.full_like(logits, smoothing / (len(_CHARS) - 1))
    true_dist.scatter_(1, target[:, None], torch.full((6, 1), 1.0 - smoothing))


def _visual_written_into_fp32_audio_rate_buffer() -> None:
    _seeded()
    visual = torch.randn(2, _FRAMES, _DIM, dtype=bf16)
    fused = torch.zeros(2, _AUDIO_FRAMES, _DIM)
    step = _AUDIO_FPS // _VIDEO_FPS
    for offset in range(step):
        fused[:, torch.arange(offset, _AUDIO_FRAMES, step)] = visual


def _bilinear_fusion_bf16_visual() -> None:
    _seeded()
    audio = torch.randn(2, _DIM)
    visual = torch.randn(2, _DIM, dtype=bf16)
    nn.Bilinear(_DIM, _DIM, 8)(audio, visual)


def _visual_gradient_modulation_hook_fp32() -> None:
    _seeded()
    visual = torch.randn(2, _DIM, dtype=bf16, requires_grad=True)
    coefficient = torch.tensor(0.7)  # OGM-GE style: damp the dominant modality's gradient
    visual.register_hook(lambda grad: grad.float() * coefficient)
    (visual.float() ** 2).sum().backward()


def _audio_only_utterance_masked_mean_nan() -> None:
    _seeded()
    projection = nn.Linear(_DIM, 8)
    visual = projection(torch.randn(2, _FRAMES, _DIM))
    video_valid = torch.tensor([[True] * _FRAMES, [False] * _FRAMES])  # second utterance: no face detected
    pooled = (visual * video_valid[..., None]).sum(1) / video_valid.sum(1, keepdim=True)
    pooled.pow(2).sum().backward()
    torch.nn.utils.clip_grad_norm_(projection.parameters(), 5.0, error_if_nonfinite=True)


def _ctc_prefix_log_zero_f16() -> None:
    log_zero = -1e10
    beam = 4
    torch.full((beam, len(_CHARS)), log_zero, dtype=f16)  # prefix scores in the fp16 decoder's dtype


def _causal_float_mask_bf16_decoder_mha() -> None:
    _seeded()
    length = 5
    attention = nn.MultiheadAttention(_DIM, 2, batch_first=True).to(bf16)
    ys = torch.randn(2, length, _DIM, dtype=bf16)
    causal = torch.triu(torch.full((length, length), float("-inf")), diagonal=1)
    attention(ys, ys, ys, attn_mask=causal)


def _syncnet_distances_bf16_numpy() -> None:
    _seeded()
    distances = torch.rand(31, dtype=bf16)  # bf16 SyncNet: distance per candidate offset
    np.median(distances.numpy())


def _random_erasing_normal_uint8_crops() -> None:
    _seeded()
    crops = _mouth_crops()
    crops[:, :, 4:12, 4:12].normal_()


def _pre_emphasis_in_place_int16_pcm() -> None:
    generator = torch.Generator().manual_seed(0)
    pcm = torch.randint(-3000, 3000, (_SAMPLE_RATE,), dtype=torch.int16, generator=generator)
    pcm[1:] -= 0.97 * pcm[:-1]


def _padding_masks_blanket_cast_bitwise_or() -> None:
    batch = {
        "video_pad": torch.arange(_FRAMES)[None] >= torch.tensor([[10], [7]]),
        "audio_pad": torch.arange(_FRAMES)[None] >= torch.tensor([[10], [8]]),
    }
    batch = {key: value.to(bf16) for key, value in batch.items()}  # the trainer's bf16 cast of the whole batch
    batch["video_pad"] | batch["audio_pad"]


CASES: dict[str, LiveCase] = {
    # uint8 mouth-crop clips (B, 1, T, H, W) fed straight to the bf16 Conv3d stem of a lip-reading ResNet
    "mouth-crops-uint8-bf16-conv3d-stem": case(_uint8_crops_into_bf16_conv3d_stem, "integer_operand", "uint8", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # histogram equalisation of a uint8 grayscale mouth crop with torch.histc
    "mouth-crop-histogram-equalisation-histc-uint8": case(_histogram_equalisation_histc_uint8, "integer_operand",
                                                          "uint8",
        grade="correct", grade_at_freeze="correct"),
    # RGB mouth crops (uint8) turned grayscale by tensordot with the fp32 luma weights
    "grayscale-tensordot-uint8-rgb-crops": case(_grayscale_tensordot_uint8_rgb, "integer_operand",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (e376b1d) castwise gave matmul_dtype [] (low confidence). torch.tensordot of the uint8 RGB "
             'crops with the fp32 luma weights raises "both inputs should have same dtype", which names neither '
             "dtype; castwise read the matmul as two floating dtypes meeting, while the cause is the integer "
             "(uint8) operand, shown only by the tensors, so the fix is to convert the frames to float (and scale "
             "them) before the contraction")),
    # the bool 25 fps video padding mask brought to the 100 fps audio rate with F.interpolate
    "video-pad-mask-bool-interpolate-to-audio-rate": case(_video_padding_mask_interpolated_to_audio_rate,
                                                          "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # video features repeated to the audio rate with indices from t * 25 / 100 (true division, floor keeps float)
    "video-to-audio-index-true-division-index-select": case(_video_features_upsampled_by_true_division_index,
                                                            "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # character ids stored as uint8 in the dataset, fed to the attention decoder's embedding
    "char-ids-uint8-decoder-embedding": case(_uint8_character_ids_into_decoder_embedding, "index_tensor_dtype",
                                             "uint8",
        grade="correct", grade_at_freeze="correct"),
    # EOS appended with torch.ones(B, 1) * eos: cat promotes the int64 ids to float before the embedding
    "eos-appended-ones-times-eos-embedding": case(_eos_appended_as_ones_times_eos, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # SyncNet offset classes (-15..15 shifted by 15) kept int8 from numpy as the cross_entropy target
    "syncnet-offset-classes-int8-cross-entropy": case(_syncnet_offset_labels_int8, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # the collate's uint8 0/1 video padding mask given to nn.MultiheadAttention as key_padding_mask
    "video-key-padding-mask-uint8-mha": case(_uint8_key_padding_mask_into_mha, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # frames with audio but no face found as audio_valid - video_valid on bool masks
    "audio-only-frames-bool-subtraction": case(_audio_only_frames_by_bool_subtraction, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # modality dropout: a float drop-video flag inverted with ~ to zero the visual stream
    "modality-dropout-float-flag-invert": case(_modality_dropout_float_keep_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # early fusion: fp32 audio (pooled to 25 fps) concatenated with bf16 visual features into a bf16 Linear
    "concat-fusion-fp32-audio-bf16-linear": case(_concat_fusion_fp32_audio_bf16_visual, "matmul_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # cross-modal attention: bf16 video queries over fp32 audio keys/values through SDPA
    "cross-modal-sdpa-bf16-video-fp32-audio": case(_cross_modal_sdpa_fp32_audio_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # gated fusion written as torch.lerp(audio fp32, visual bf16, gate)
    "gated-fusion-lerp-fp32-audio-bf16-visual": case(_gated_fusion_lerp, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # LipNet-style BiGRU back-end left fp32 behind the bf16 visual front-end
    "lipnet-bigru-fp32-bf16-frontend": case(_bigru_backend_fp32_bf16_frontend, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 Conv3d stem given crops normalised in fp32 with the LRS3 mean/std
    "visual-stem-bf16-fp32-normalised-crops": case(_bf16_stem_fp32_normalised_frames, "conv_weight_dtype", "f32",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 stem's bias replaced by a fresh fp32 nn.Parameter after the cast
    "visual-stem-bias-reset-fp32-after-cast": case(_stem_bias_reinitialised_after_cast, "conv_bias_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # pre-fusion LayerNorm cast to bf16 with the visual side, given the fp32 filterbank features
    "prefusion-layernorm-bf16-fp32-fbank": case(_prefusion_layernorm_bf16_fp32_fbank, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # mouth alignment by Procrustes: SVD of fp16 landmark cross-covariance
    "mouth-alignment-procrustes-svd-f16": case(_mouth_alignment_procrustes_svd_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # hand-written label smoothing for the character decoder: fp32 confidence scattered into bf16 targets
    "label-smoothing-scatter-fp32-into-bf16": case(_label_smoothing_scatter_fp32_confidence, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 visual features written into an fp32 100 fps buffer by advanced indexing at every 4th frame
    "visual-into-fp32-audio-rate-buffer-index-put": case(_visual_written_into_fp32_audio_rate_buffer,
                                                         "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # nn.Bilinear audio-visual fusion (fp32) given the bf16 visual embedding
    "bilinear-av-fusion-bf16-visual": case(_bilinear_fusion_bf16_visual, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # OGM-GE style gradient modulation: a hook on the bf16 visual features returns an fp32 gradient
    "ogm-ge-visual-grad-hook-fp32": case(_visual_gradient_modulation_hook_fp32, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # masked mean over video frames for an utterance with no face detected: 0/0 NaN, clip_grad_norm_ refuses
    "audio-only-utterance-masked-mean-nan-clip": case(_audio_only_utterance_masked_mean_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # CTC prefix beam search scores initialised to LOG_ZERO = -1e10 in the fp16 decoder's dtype
    "ctc-prefix-log-zero-1e10-f16": case(_ctc_prefix_log_zero_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # causal -inf mask built in fp32 with triu, given to the bf16 decoder's self-attention
    "decoder-causal-fp32-mask-bf16-mha": case(_causal_float_mask_bf16_decoder_mha, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 SyncNet offset distances to numpy for a median filter
    "syncnet-distances-bf16-numpy-median": case(_syncnet_distances_bf16_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # random erasing augmentation filling a patch of the uint8 mouth crops with normal_()
    "random-erasing-normal-uint8-crops": case(_random_erasing_normal_uint8_crops, "no_kernel", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # pre-emphasis applied in place to int16 PCM (pcm[1:] -= 0.97 * pcm[:-1])
    "pre-emphasis-in-place-int16-pcm": case(_pre_emphasis_in_place_int16_pcm, "result_cast", "f32", "int16",
        grade="correct", grade_at_freeze="correct"),
    # both streams' bool padding masks cast to bf16 by a whole-batch cast, then combined with |
    "padding-masks-blanket-bf16-bitwise-or": case(_padding_masks_blanket_cast_bitwise_or, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
