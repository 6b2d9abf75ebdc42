"""Held-out live set 151: speech emotion recognition and paralinguistics written by hand in low precision (int16
waveforms, float64 librosa-style features and openSMILE functionals, fp16 CNN-LSTM models, bf16 wav2vec-style encoders
with attention pooling and SUPERB layer weights, class-weighted cross-entropy, bool voice-activity masks, prosody and
speaker normalisation). Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at af2f111c."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "af2f111c"

bf16, f16 = torch.bfloat16, torch.float16
_SR = 16000
_EMOTIONS = 4  # neutral, happy, angry, sad (IEMOCAP four-class)
_MELS = 40


def _seeded() -> None:
    torch.manual_seed(0)


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _pcm(seconds: float = 0.5) -> torch.Tensor:
    """int16 PCM as scipy.io.wavfile.read returns it."""
    samples = (_rng().standard_normal(int(_SR * seconds)) * 3000).astype(np.int16)
    return torch.from_numpy(samples)


def _librosa_like_features(rows: int, frames: int) -> np.ndarray:
    """What librosa's feature functions return: float64 arrays (features x frames)."""
    return _rng().standard_normal((rows, frames))


class _CnnLstm(nn.Module):
    """A small CNN-LSTM emotion classifier over log-mel (or MFCC) images."""

    def __init__(self, n_in: int = _MELS) -> None:
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d((2, 1)))
        self.lstm = nn.LSTM(8 * (n_in // 2), 32, batch_first=True)
        self.head = nn.Linear(32, _EMOTIONS)

    def forward(self, feats: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        x = self.cnn(feats[:, None])  # (B, 8, F/2, T)
        x = x.flatten(1, 2).transpose(1, 2)  # (B, T, 8 * F/2)
        out, _ = self.lstm(x, state)
        return self.head(out[:, -1])


class _FeatureEncoder(nn.Module):
    """The first two layers of a wav2vec 2.0-style convolutional feature encoder (conv_bias=False)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv0 = nn.Conv1d(1, 32, 10, 5, bias=False)
        self.norm0 = nn.GroupNorm(32, 32)
        self.conv1 = nn.Conv1d(32, 32, 3, 2, bias=False)

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        x = F.gelu(self.norm0(self.conv0(wav[:, None])))
        return F.gelu(self.conv1(x))


# --- int16 waveforms


def _int16_pcm_into_bf16_feature_encoder() -> None:
    _seeded()
    encoder = _FeatureEncoder().to(bf16)
    wav = _pcm()[None]  # straight from wavfile.read: int16
    encoder(wav)


def _wav2vec_zero_mean_unit_var_layer_norm_int16() -> None:
    wav = _pcm()[None]
    F.layer_norm(wav, wav.shape[1:])  # Wav2Vec2FeatureExtractor's do_normalize, written with layer_norm


def _augmented_pcm_clamped_to_32768() -> None:
    _seeded()
    wav = _pcm()
    noise = (torch.randn(wav.shape) * 500).to(torch.int16)
    noisy = wav + noise
    noisy.clamp(-32768, 32768)  # off by one: int16 tops out at 32767


# --- float64 librosa-style features and openSMILE functionals


def _librosa_mfcc_into_fp16_cnn_lstm() -> None:
    _seeded()
    model = _CnnLstm(n_in=_MELS).half()
    mfcc = torch.from_numpy(_librosa_like_features(_MELS, 50))[None]  # librosa.feature.mfcc(n_mfcc=40)
    model(mfcc)


def _librosa_mel_basis_on_torch_power_spectrogram() -> None:
    _seeded()
    mel_basis = torch.from_numpy(np.abs(_librosa_like_features(_MELS, 257)))  # librosa.filters.mel(sr, n_fft=512)
    wav = torch.randn(2, 8000)
    power = torch.stft(wav, 512, 160, window=torch.hann_window(512), return_complex=True).abs() ** 2
    torch.matmul(mel_basis, power)


def _pyin_f0_concatenated_with_log_mel_into_bilstm() -> None:
    _seeded()
    log_mel = torch.randn(1, 50, _MELS)
    f0 = np.nan_to_num(_rng().uniform(80, 300, 50))  # librosa.pyin's f0, NaN for unvoiced frames zeroed
    f0 = torch.from_numpy(np.log(f0 + 1.0))[None, :, None]
    prosody_lstm = nn.LSTM(_MELS + 1, 32, batch_first=True, bidirectional=True)
    prosody_lstm(torch.cat([log_mel, f0], dim=-1))


def _egemaps_functionals_into_mlp() -> None:
    _seeded()
    functionals = _librosa_like_features(8, 88)  # opensmile eGeMAPSv02 Functionals read with pandas: float64
    mlp = nn.Sequential(nn.Linear(88, 64), nn.ReLU(), nn.Linear(64, _EMOTIONS))
    mlp(torch.tensor(functionals))


def _librosa_features_into_input_batch_norm() -> None:
    _seeded()
    input_norm = nn.BatchNorm1d(_MELS)  # normalises each feature over the batch before the classifier
    feats = torch.from_numpy(_librosa_like_features(_MELS, 60))[None].repeat(4, 1, 1)
    input_norm(feats)


# --- fp16 CNN-LSTM models


def _fp16_cnn_lstm_fed_fp32_log_mel() -> None:
    _seeded()
    model = _CnnLstm().half()
    log_mel = torch.randn(2, _MELS, 50)
    model(log_mel)


def _cnn_halved_lstm_kept_fp32() -> None:
    _seeded()
    model = _CnnLstm()
    model.cnn.half()  # only the CNN block halved to save memory
    model(torch.randn(2, _MELS, 50).half())


def _fp16_lstm_with_fp32_zero_initial_state() -> None:
    _seeded()
    model = _CnnLstm().half()
    batch = 2
    state = (torch.zeros(1, batch, 32), torch.zeros(1, batch, 32))  # made with torch.zeros: fp32
    model(torch.randn(batch, _MELS, 50).half(), state)


def _fp16_cnn_lstm_with_grad_scaler() -> None:
    _seeded()
    model = _CnnLstm().half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    logits = model(torch.randn(2, _MELS, 20).half())
    loss = F.cross_entropy(logits.float(), torch.tensor([0, 2]))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)


def _fp32_accumulated_grads_assigned_to_fp16_model() -> None:
    _seeded()
    model = _CnnLstm().half()
    buffers = [torch.zeros(p.shape) for p in model.parameters()]  # fp32 accumulation over micro-batches
    for _ in range(2):
        logits = model(torch.randn(2, _MELS, 20).half())
        F.cross_entropy(logits.float(), torch.tensor([1, 3])).backward()
        for buffer, param in zip(buffers, model.parameters()):
            buffer += param.grad.float()
            param.grad = None
    for buffer, param in zip(buffers, model.parameters()):
        param.grad = buffer / 2


def _ema_teacher_fp32_lerp_fp16_student() -> None:
    _seeded()
    student = nn.Linear(32, _EMOTIONS).half()
    teacher = nn.Linear(32, _EMOTIONS)  # mean-teacher for semi-supervised SER kept in fp32
    with torch.no_grad():
        for t_param, s_param in zip(teacher.parameters(), student.parameters()):
            t_param.lerp_(s_param, 0.001)


# --- bf16 wav2vec-style encoders


def _superb_layer_weights_einsum() -> None:
    _seeded()
    hidden_states = torch.randn(13, 2, 25, 64, dtype=bf16)  # all 13 layers of a bf16 encoder stacked
    layer_weights = nn.Parameter(torch.zeros(13))  # the downstream's learnable weights, fp32
    torch.einsum("l,lbtd->btd", layer_weights.softmax(0), hidden_states)


def _attention_pooling_bmm_fp32_weights() -> None:
    _seeded()
    hidden = torch.randn(2, 25, 64, dtype=bf16)
    scorer = nn.Linear(64, 1).to(bf16)
    weights = scorer(hidden).float().softmax(dim=1)  # softmax in fp32 for stability
    torch.bmm(weights.transpose(1, 2), hidden)


def _bf16_mha_with_float_key_padding_mask() -> None:
    _seeded()
    mha = nn.MultiheadAttention(64, 4, batch_first=True).to(bf16)
    hidden = torch.randn(2, 6, 64, dtype=bf16)
    attention_mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]])  # feature extractor's 1 = keep
    padding = (1.0 - attention_mask.float()) * -1e4  # HF-style additive mask, made in fp32
    mha(hidden, hidden, hidden, key_padding_mask=padding)


def _bf16_embeddings_to_numpy_for_svm() -> None:
    _seeded()
    hidden = torch.randn(4, 25, 64, dtype=bf16)
    utterance_embeddings = hidden.mean(dim=1)
    utterance_embeddings.numpy()  # for sklearn.svm.SVC


def _joint_asr_ser_ctc_bf16_log_probs() -> None:
    _seeded()
    ctc_head = nn.Linear(64, 32).to(bf16)
    hidden = torch.randn(2, 25, 64, dtype=bf16)
    log_probs = ctc_head(hidden).log_softmax(-1).transpose(0, 1)
    targets = torch.randint(1, 32, (2, 8))
    F.ctc_loss(log_probs, targets, torch.tensor([25, 25]), torch.tensor([8, 8]))


def _autocorrelation_pitch_rfft_bf16() -> None:
    _seeded()
    frames = torch.randn(10, 400, dtype=bf16)  # 25 ms frames of a waveform cast with the bf16 encoder's batch
    spectrum = torch.fft.rfft(frames, n=800)
    torch.fft.irfft(spectrum.abs() ** 2)


# --- class-weighted cross-entropy and targets


def _class_weights_halved_with_model_logits_upcast() -> None:
    _seeded()
    counts = torch.tensor([1708.0, 1636.0, 1103.0, 1084.0])  # IEMOCAP neutral, happy+excited, angry, sad
    weights = (counts.sum() / counts).half()  # halved along with the fp16 model
    criterion = nn.CrossEntropyLoss(weight=weights)
    logits = torch.randn(4, _EMOTIONS, dtype=f16)
    criterion(logits.float(), torch.tensor([0, 1, 2, 3]))


def _majority_vote_labels_float64_targets() -> None:
    _seeded()
    votes = np.array([[3, 0, 0, 0], [0, 2, 1, 0], [0, 0, 0, 3]])
    labels = votes.argmax(1).astype(float)  # pandas column with NaN for no-majority rows became float64
    F.cross_entropy(torch.randn(3, _EMOTIONS), torch.from_numpy(labels))


def _secondary_emotions_bool_multilabel_targets() -> None:
    _seeded()
    logits = torch.randn(2, 10)  # MSP-Podcast secondary emotions, multi-label
    targets = torch.from_numpy(_rng().random((2, 10)) > 0.7)  # annotator selections as a bool array
    F.binary_cross_entropy_with_logits(logits, targets)


def _mixup_one_hot_labels_in_place() -> None:
    _seeded()
    labels = torch.tensor([0, 2, 3, 1])
    lam = 0.7
    targets = F.one_hot(labels, _EMOTIONS)
    targets.mul_(lam).add_(targets.flip(0), alpha=1 - lam)


def _speaker_ids_int16_scatter_add_normalisation() -> None:
    _seeded()
    feats = torch.randn(6, 88)
    speaker_ids = torch.from_numpy(np.array([0, 0, 1, 1, 2, 2], dtype=np.int16))  # from the metadata cache
    sums = torch.zeros(3, 88).scatter_add_(0, speaker_ids[:, None].expand(-1, 88), feats)
    sums / torch.bincount(speaker_ids.long())[:, None]


# --- bool voice-activity masks, prosody


def _voicing_ratio_mean_of_bool_vad() -> None:
    _seeded()
    energy_db = torch.randn(2, 100) * 10 - 30
    vad = energy_db > -40  # frame-level VAD
    vad.mean(dim=1)  # speech ratio, a paralinguistic feature


def _speech_onsets_by_subtracting_bool_vad() -> None:
    vad = torch.tensor([[0, 0, 1, 1, 1, 0, 1, 1, 0, 0]], dtype=torch.bool)
    onsets = vad[:, 1:] - vad[:, :-1]  # +1 at speech onsets, -1 at offsets
    (onsets == 1).sum(dim=1)  # speech segments per utterance, for speaking rate


def _vad_mask_interpolated_to_encoder_frames() -> None:
    _seeded()
    vad_10ms = torch.rand(2, 100) > 0.3  # webrtcvad at 10 ms hops
    F.interpolate(vad_10ms[:, None], size=49, mode="nearest")  # wav2vec's 20 ms frames


def _attention_pooling_fp16_masked_fill_minus_1e5() -> None:
    _seeded()
    scores = torch.randn(2, 50, dtype=f16)
    vad = torch.rand(2, 50) > 0.2
    scores.masked_fill(~vad, -1e5).softmax(dim=1)


def _pitch_range_quantile_fp16_f0() -> None:
    _seeded()
    f0 = (torch.rand(200) * 220 + 80).half()  # F0 track of the fp16 pitch predictor
    lo, hi = torch.quantile(f0, torch.tensor([0.05, 0.95], dtype=f16))
    12 * torch.log2(hi / lo)  # pitch range in semitones


CASES: dict[str, LiveCase] = {
    # int16 PCM from wavfile.read fed straight to a bf16 wav2vec-style conv feature encoder (no conv bias)
    "int16-pcm-bf16-wav2vec-feature-encoder": case(_int16_pcm_into_bf16_feature_encoder, "integer_operand", "int16",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # wav2vec-style zero-mean unit-variance normalisation with F.layer_norm on the raw int16 waveform
    "wav2vec-normalise-layer-norm-int16-waveform": case(_wav2vec_zero_mean_unit_var_layer_norm_int16,
                                                        "integer_operand", "int16",
        grade="correct", grade_at_freeze="correct"),
    # noise-augmented int16 waveform clamped to [-32768, 32768] (off by one)
    "noisy-int16-pcm-clamp-32768": case(_augmented_pcm_clamped_to_32768, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # librosa-style float64 MFCCs through torch.from_numpy into an fp16 CNN-LSTM's first Conv2d
    "librosa-mfcc-f64-fp16-cnn-lstm": case(_librosa_mfcc_into_fp16_cnn_lstm, "conv_weight_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # librosa.filters.mel's float64 basis torch.matmul'd with a torch fp32 power spectrogram
    "librosa-mel-basis-f64-torch-power-spec": case(_librosa_mel_basis_on_torch_power_spectrogram, "matmul_dtype",
                                                   "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # pyin log-F0 (float64 from numpy) concatenated to fp32 log-mel and fed to a prosody BiLSTM
    "pyin-log-f0-f64-cat-log-mel-bilstm": case(_pyin_f0_concatenated_with_log_mel_into_bilstm, "rnn_dtype", "f64",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # openSMILE eGeMAPS functionals (88, float64 via pandas) given to an fp32 MLP classifier
    "egemaps-functionals-f64-mlp": case(_egemaps_functionals_into_mlp, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # librosa float64 feature matrices into the model's fp32 input BatchNorm1d
    "librosa-features-f64-input-batch-norm": case(_librosa_features_into_input_batch_norm, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # CNN-LSTM halved with .half() but the fp32 log-mel batch not
    "fp16-cnn-lstm-fp32-log-mel-batch": case(_fp16_cnn_lstm_fed_fp32_log_mel, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # only the CNN block of a CNN-LSTM halved; its fp16 output meets the fp32 LSTM
    "cnn-block-halved-lstm-kept-fp32": case(_cnn_halved_lstm_kept_fp32, "rnn_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 CNN-LSTM given an fp32 torch.zeros initial (h0, c0) state
    "fp16-lstm-fp32-zeros-initial-state": case(_fp16_lstm_with_fp32_zero_initial_state, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 CNN-LSTM (all parameters .half()) trained with GradScaler, unscale_ before clipping
    "fp16-cnn-lstm-grad-scaler-unscale": case(_fp16_cnn_lstm_with_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # gradients accumulated over micro-batches in fp32 buffers assigned back to the fp16 CNN-LSTM's .grad
    "accumulated-fp32-grads-assigned-fp16-cnn-lstm": case(_fp32_accumulated_grads_assigned_to_fp16_model,
                                                          "loss_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp32 mean-teacher updated by lerp_ towards the fp16 student's parameters
    "mean-teacher-fp32-lerp-fp16-student": case(_ema_teacher_fp32_lerp_fp16_student, "lerp_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # SUPERB-style weighted layer sum: fp32 softmaxed layer weights einsum'd with stacked bf16 hidden states
    "superb-layer-weights-fp32-einsum-bf16-states": case(_superb_layer_weights_einsum, "matmul_dtype", "f32",
                                                         "bf16",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling: fp32 softmax weights bmm'd with the bf16 encoder's frame states
    "attention-pooling-fp32-weights-bmm-bf16": case(_attention_pooling_bmm_fp32_weights, "batched_matmul_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 MultiheadAttention pooling given an fp32 additive key_padding_mask from the attention_mask
    "bf16-mha-fp32-additive-key-padding-mask": case(_bf16_mha_with_float_key_padding_mask, "attn_mask_dtype", "f32",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # mean-pooled bf16 encoder embeddings turned to numpy for an sklearn SVM
    "bf16-utterance-embeddings-numpy-svm": case(_bf16_embeddings_to_numpy_for_svm, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # joint ASR + SER: CTC loss on the bf16 encoder's CTC-head log-probs, no upcast
    "joint-asr-ser-ctc-bf16-log-probs": case(_joint_asr_ser_ctc_bf16_log_probs, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # autocorrelation pitch estimate with torch.fft.rfft of bf16 frames
    "autocorrelation-pitch-rfft-bf16-frames": case(_autocorrelation_pitch_rfft_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # inverse-frequency class weights halved with the model while the logits are upcast to fp32 for the loss
    "class-weights-halved-fp32-logits-ce": case(_class_weights_halved_with_model_logits_upcast, "op_dtype", "f32",
                                                "f16",
        grade="correct", grade_at_freeze="correct"),
    # majority-vote emotion labels that became float64 (NaN rows) used as cross_entropy targets
    "majority-vote-labels-f64-ce-targets": case(_majority_vote_labels_float64_targets, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # multi-label secondary emotions with bool annotator selections as BCE-with-logits targets
    "secondary-emotions-bool-bce-targets": case(_secondary_emotions_bool_multilabel_targets, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # mixup of one_hot emotion labels (int64) in place with mul_/add_
    "mixup-one-hot-labels-in-place": case(_mixup_one_hot_labels_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-speaker feature normalisation: scatter_add_ with int16 speaker ids from the metadata cache
    "speaker-ids-int16-scatter-add-normalisation": case(_speaker_ids_int16_scatter_add_normalisation,
                                                        "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # voicing (speech) ratio as the mean of the bool frame VAD mask
    "voicing-ratio-mean-bool-vad": case(_voicing_ratio_mean_of_bool_vad, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # speech onsets counted by subtracting shifted bool VAD masks, for speaking rate
    "speech-onsets-subtract-bool-vad": case(_speech_onsets_by_subtracting_bool_vad, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # 10 ms bool VAD mask resampled to the encoder's 20 ms frames with nearest F.interpolate
    "vad-bool-mask-interpolate-encoder-frames": case(_vad_mask_interpolated_to_encoder_frames, "integer_operand",
                                                     "bool",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling in fp16 masking non-speech frames with masked_fill(-1e5)
    "attention-pooling-fp16-vad-masked-fill-1e5": case(_attention_pooling_fp16_masked_fill_minus_1e5,
                                                       "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # pitch range (5th to 95th percentile of F0, in semitones) by torch.quantile of an fp16 F0 track
    "pitch-range-quantile-fp16-f0": case(_pitch_range_quantile_fp16_f0, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
}
