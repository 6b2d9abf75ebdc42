"""Held-out live set 21: speech and audio models and pipelines written by hand in plain torch (int16 PCM and WAV bytes,
resampling, STFT/iSTFT and mel features, SpecAugment, vocoders, neural codecs with residual and scalar quantization,
CTC and RNN-T, voice activity detection, speaker embeddings, streaming with cached states) run in bf16, fp16, fp8 or on
integer samples. Defects planted by a helper who never read the rules, written before castwise ran and graded once with
the rules frozen at a6443cb."""

from __future__ import annotations

import io
import math
import wave

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "a6443cb"

bf16, f16 = torch.bfloat16, torch.float16
SAMPLE_RATE = 16_000


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _pcm16(samples: int = 1600, channels: int = 1) -> torch.Tensor:
    """Interleaved int16 PCM as a WAV reader hands it back: frombuffer over the data chunk's bytes."""
    wave_ = (torch.sin(torch.arange(samples * channels) * 0.05) * 12_000).to(torch.int16)
    return torch.frombuffer(bytearray(wave_.numpy().tobytes()), dtype=torch.int16)


# --- PCM, WAV bytes and resampling ------------------------------------------------------------------------------------


def _downmix_int16_with_mean() -> torch.Tensor:
    pcm = _pcm16(800, channels=2).view(-1, 2)  # stereo frames from a 16-bit WAV
    mono = pcm.mean(dim=1)
    return mono.float().div(32768)


def _gain_augmentation_in_place_int16() -> None:
    pcm = _pcm16()
    gain_db = -6.0
    pcm.mul_(10 ** (gain_db / 20))


def _resample_int16_with_interpolate() -> None:
    pcm = _pcm16(441 * 4)  # 44.1 kHz from the upload, the model wants 16 kHz
    target = int(pcm.numel() * SAMPLE_RATE / 44_100)
    F.interpolate(pcm[None, None], size=target, mode="linear", align_corners=False)


def _sinc_resampler_kernel_f64() -> None:
    def sinc_kernel(orig: int, new: int, width: int = 16) -> torch.Tensor:
        cutoff = min(orig, new) / max(orig, new) * 0.95
        t = torch.arange(-width, width + 1, dtype=torch.float64)  # float64 "for an accurate filter"
        window = 0.5 + 0.5 * torch.cos(math.pi * t / (width + 1))
        return (cutoff * torch.sinc(cutoff * t) * window).view(1, 1, -1)

    wav = torch.randn(1, 1, 4000, generator=_generator())
    kernel = sinc_kernel(48_000, SAMPLE_RATE)
    F.conv1d(wav, kernel, padding=kernel.shape[-1] // 2)[..., ::3]


def _tts_ring_buffer_int16() -> None:
    capacity = 4096
    ring = torch.zeros(capacity, dtype=torch.int16)  # what the audio sink reads from
    write_pos = 4000
    chunk = torch.tanh(torch.randn(320, generator=_generator()))  # one generated chunk in [-1, 1]
    positions = (write_pos + torch.arange(chunk.numel())) % capacity
    ring[positions] = (chunk * 32767).round()


def _wav_writer_numpy_bf16() -> None:
    vocoder = nn.Sequential(nn.Conv1d(8, 16, 3, padding=1), nn.Tanh(), nn.Conv1d(16, 1, 3, padding=1)).to(bf16)
    with torch.no_grad():
        audio = vocoder(torch.randn(1, 8, 200, generator=_generator()).to(bf16))[0, 0]
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes((audio.clamp(-1, 1) * 32767).numpy().astype(np.int16).tobytes())


# --- spectrograms, mel features and SpecAugment ----------------------------------------------------------------------


def _spec_augment_float_mask() -> tuple[torch.Tensor, torch.Tensor]:
    spec = torch.randn(2, 80, 100, generator=_generator())  # (batch, mels, frames) log-mel
    frames = torch.arange(spec.shape[-1])
    starts = torch.tensor([[10], [40]])
    widths = torch.tensor([[20], [15]])
    time_mask = ((frames >= starts) & (frames < starts + widths)).float()  # also used to count masked frames
    return spec.masked_fill(time_mask[:, None, :], 0.0), time_mask.mean()


def _mel_log_clamp_fp16_silence() -> None:
    wav = torch.randn(1, 1024, generator=_generator()) * 0.1
    wav[:, 512:] = 0  # the batch is zero-padded to its longest utterance
    wav.requires_grad_(True)  # a vocoder's output in the real loop
    spec = torch.stft(wav, 64, hop_length=16, window=torch.hann_window(64), return_complex=True).abs().pow(2)
    bins = torch.arange(33)
    mel_fb = torch.relu(1 - (bins[None] - torch.linspace(0, 32, 10)[:, None]).abs() / 4)
    mel = mel_fb.half() @ spec.half()  # the fp16 training recipe keeps features in half
    log_mel = torch.log(torch.clamp(mel, min=1e-10))
    with torch.autograd.detect_anomaly():
        F.l1_loss(log_mel, torch.zeros_like(log_mel)).backward()


def _overlap_add_buffer_in_window_dtype() -> None:
    class IstftHead(nn.Module):
        def __init__(self, n_fft: int = 64, hop: int = 16) -> None:
            super().__init__()
            self.n_fft, self.hop = n_fft, hop
            self.proj = nn.Linear(32, n_fft + 2)
            self.register_buffer("window", torch.hann_window(n_fft))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            mag, phase = self.proj(x).float().chunk(2, dim=-1)  # the FFT needs fp32
            frames = torch.fft.irfft(torch.polar(mag.exp(), phase), n=self.n_fft) * self.window
            length = (frames.shape[0] - 1) * self.hop + self.n_fft
            out = torch.zeros(length, dtype=self.window.dtype)
            index = (torch.arange(frames.shape[0])[:, None] * self.hop + torch.arange(self.n_fft)).flatten()
            return out.index_add_(0, index, frames.flatten())

    head = IstftHead().to(bf16)
    with torch.no_grad():
        head(torch.randn(20, 32, generator=_generator()).to(bf16))


def _enhancement_polar_noisy_phase() -> None:
    noisy = torch.randn(1, 4000, generator=_generator())
    spec = torch.stft(noisy, 128, hop_length=32, window=torch.hann_window(128), return_complex=True)
    model = nn.Sequential(nn.Linear(65, 128), nn.ReLU(), nn.Linear(128, 65), nn.Softplus()).to(bf16)
    with torch.no_grad():
        clean_mag = model(spec.abs().transpose(1, 2).to(bf16)).transpose(1, 2)  # mapping-based: predicts |S|
        enhanced = torch.polar(clean_mag, spec.angle())
    torch.istft(enhanced, 128, hop_length=32, window=torch.hann_window(128))


# --- vocoders and TTS ------------------------------------------------------------------------------------------------


def _speaker_adaptive_conv_bias() -> None:
    conv_pre = nn.Conv1d(80, 32, 7, padding=3).to(bf16)
    speaker_bias = nn.Linear(192, 32)  # adapter added for multi-speaker fine-tuning, after the cast
    d_vector = torch.randn(1, 192, generator=_generator())  # from the separate fp32 speaker encoder
    mel = torch.randn(1, 80, 50, generator=_generator()).to(bf16)
    F.conv1d(mel, conv_pre.weight, conv_pre.bias + speaker_bias(d_vector)[0], padding=3)


def _pitch_predictor_huber_fp32_target() -> None:
    predictor = nn.Sequential(nn.Conv1d(32, 32, 3, padding=1), nn.ReLU(), nn.Conv1d(32, 1, 1)).to(bf16)
    hidden = torch.randn(2, 32, 40, generator=_generator()).to(bf16)
    log_f0 = torch.log(torch.rand(2, 40, generator=_generator()) * 200 + 80)  # extracted offline in fp32
    loss = F.huber_loss(predictor(hidden).squeeze(1), log_f0)
    loss.backward()


def _full_lengths_in_waveform_dtype() -> torch.Tensor:
    wav = torch.zeros(2, 30 * SAMPLE_RATE, dtype=f16)  # padded to Whisper's 30 s in the fp16 front end
    return torch.full((wav.shape[0],), wav.shape[-1], dtype=wav.dtype)


def _lpc_solve_fp16() -> None:
    order = 8
    frames = torch.randn(10, 160, generator=_generator()).half()  # 10 ms frames, fp16 features pipeline
    autocorr = torch.stack([(frames[:, : 160 - k] * frames[:, k:]).sum(-1) for k in range(order + 1)], -1)
    lags = (torch.arange(order)[:, None] - torch.arange(order)[None]).abs()
    toeplitz = autocorr[:, lags] + 1e-3 * torch.eye(order, dtype=frames.dtype)
    torch.linalg.solve(toeplitz, autocorr[:, 1:])


# --- neural codecs: residual and scalar quantization ------------------------------------------------------------------


def _rvq_fp32_codebooks_bf16_latents() -> None:
    encoder = nn.Sequential(nn.Conv1d(1, 8, 4, stride=2), nn.ELU(), nn.Conv1d(8, 8, 3, padding=1)).to(bf16)
    codebooks = torch.randn(3, 16, 8, generator=_generator())  # EMA-updated, kept fp32 outside the cast model
    wav = torch.randn(1, 1, 64, generator=_generator()).to(bf16)
    with torch.no_grad():
        residual = encoder(wav).transpose(1, 2).reshape(-1, 8)
        codes = []
        for codebook in codebooks:
            distance = residual.pow(2).sum(1, keepdim=True) - 2 * residual @ codebook.T + codebook.pow(2).sum(1)
            codes.append(distance.argmin(1))
            residual = residual - codebook[codes[-1]]


def _ema_codebook_stats_fp32_lerp() -> None:
    class EmaCodebook(nn.Module):
        def __init__(self, size: int, dim: int, decay: float = 0.99) -> None:
            super().__init__()
            self.decay = decay
            self.register_buffer("embed", torch.randn(size, dim, generator=_generator()))
            # running statistics kept as plain fp32 tensors on purpose: a 0.99 average drifts in bf16
            self.cluster_size = torch.ones(size)
            self.embed_avg = self.embed.clone()

        def forward(self, z: torch.Tensor) -> torch.Tensor:
            distance = z.pow(2).sum(1, keepdim=True) - 2 * z @ self.embed.T + self.embed.pow(2).sum(1)
            codes = distance.argmin(1)
            if self.training:
                onehot = F.one_hot(codes, self.embed.shape[0]).to(z.dtype)
                self.cluster_size.lerp_(onehot.sum(0), 1 - self.decay)
                self.embed_avg.lerp_(onehot.T @ z, 1 - self.decay)
                self.embed.copy_(self.embed_avg / self.cluster_size[:, None])
            return self.embed[codes]

    quantizer = EmaCodebook(32, 8).to(bf16)
    with torch.no_grad():
        quantizer(torch.randn(50, 8, generator=_generator()).to(bf16))


def _kmeans_codebook_init_one_hot() -> None:
    samples = torch.randn(64, 8, generator=_generator()).to(bf16)  # the first batch of encoder outputs
    centroids = samples[torch.randperm(64, generator=_generator())[:16]]
    for _ in range(3):
        distance = samples.pow(2).sum(1, keepdim=True) - 2 * samples @ centroids.T + centroids.pow(2).sum(1)
        onehot = F.one_hot(distance.argmin(1), 16)
        counts = onehot.sum(0).clamp(min=1)
        centroids = (onehot.T @ samples) / counts[:, None]


def _fsq_token_ids_in_bf16() -> None:
    class FSQ(nn.Module):
        def __init__(self, dim: int, levels: tuple[int, ...] = (8, 5, 5, 5)) -> None:
            super().__init__()
            self.project_in = nn.Linear(dim, len(levels))
            self.register_buffer("levels", torch.tensor(levels, dtype=torch.float32))
            self.register_buffer("basis", torch.cumprod(torch.tensor((1,) + levels[:-1], dtype=torch.float32), 0))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            half_width = (self.levels - 1) / 2
            codes = torch.round(torch.tanh(self.project_in(x)) * half_width) + half_width
            return (codes * self.basis).sum(-1)  # token ids for the audio LM

    fsq = FSQ(16).to(bf16)
    token_embedding = nn.Embedding(8 * 5 * 5 * 5, 32).to(bf16)
    with torch.no_grad():
        token_embedding(fsq(torch.randn(1, 10, 16, generator=_generator()).to(bf16)))


def _codec_tokens_int16_codebook_lookup() -> None:
    codebook = torch.randn(1024, 8, generator=_generator()).to(bf16)  # the decoder's first-level codebook
    tokens = torch.randint(0, 1024, (150,), generator=_generator(), dtype=torch.int16)  # token shard stored as int16
    codebook.index_select(0, tokens)


def _codec_lm_fp8_embedding_tables() -> None:
    tables = [torch.randn(64, 16, generator=_generator()).to(torch.float8_e4m3fn) for _ in range(4)]  # to save memory
    positions = torch.randn(10, 16, generator=_generator()).to(bf16)
    codes = torch.randint(0, 64, (10, 4), generator=_generator())
    x = positions
    for k, table in enumerate(tables):
        x = x + table[codes[:, k]]


def _codebook_optimizer_through_grad_scaler() -> None:
    encoder = nn.Conv1d(1, 8, 4, stride=2)
    codebook = nn.Parameter(torch.randn(32, 8, generator=_generator()), requires_grad=False)  # updated by EMA
    optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-4)
    codebook_optimizer = torch.optim.Adam([codebook], lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    z = encoder(torch.randn(2, 1, 64, generator=_generator())).transpose(1, 2)
    quantized = codebook[torch.cdist(z.detach(), codebook).argmin(-1)]
    commitment = F.mse_loss(z, quantized)
    scaler.scale(commitment).backward()
    for opt in (optimizer, codebook_optimizer):
        scaler.step(opt)
    scaler.update()


# --- speech recognition: CTC, RNN-T, self-supervised pretraining ------------------------------------------------------


def _ctc_lengths_true_division() -> None:
    features = torch.randn(2, 1, 80, 64, generator=_generator())
    feature_lengths = torch.tensor([64, 48])
    subsample = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(),
                              nn.Conv2d(4, 4, 3, stride=2, padding=1))
    out = subsample(features).flatten(1, 2).transpose(1, 2)  # (batch, frames, 4 * 20)
    log_probs = nn.Linear(80, 30)(out).log_softmax(-1).transpose(0, 1)
    output_lengths = feature_lengths / 4
    targets = torch.randint(1, 30, (2, 6), generator=_generator())
    F.ctc_loss(log_probs, targets, output_lengths, torch.tensor([6, 5]))


def _hubert_kmeans_labels_int32() -> None:
    labels = torch.from_numpy(np.random.default_rng(0).integers(0, 100, size=(2, 50), dtype=np.int32))  # .km file
    hidden = torch.randn(2, 50, 64, generator=_generator())
    mask = torch.zeros(2, 50, dtype=torch.bool)
    mask[:, 10:30] = True
    logits = nn.Linear(64, 100)(hidden)
    F.cross_entropy(logits[mask], labels[mask])


def _wav2vec2_mask_embedding_kept_fp32() -> None:
    class Masker(nn.Module):
        def __init__(self, dim: int) -> None:
            super().__init__()
            self.feature_projection = nn.Linear(64, dim)
            self.masked_spec_embed = nn.Parameter(torch.rand(dim))

        def forward(self, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            hidden = self.feature_projection(features)
            hidden[mask] = self.masked_spec_embed
            return hidden

    model = Masker(32)
    for name, param in model.named_parameters():
        if "embed" not in name:  # embeddings kept fp32, everything else bf16
            param.data = param.data.to(bf16)
    mask = torch.zeros(2, 40, dtype=torch.bool)
    mask[:, 5:15] = True
    with torch.no_grad():
        model(torch.randn(2, 40, 64, generator=_generator()).to(bf16), mask)


def _rnnt_joint_fp32_predictor() -> None:
    class Predictor(nn.Module):
        def __init__(self, vocab: int, hidden: int) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            self.lstm = nn.LSTM(hidden, hidden, batch_first=True)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.lstm(self.embed(tokens))[0]

    encoder = nn.Linear(80, 64).to(bf16)
    predictor = Predictor(30, 64)  # left in fp32: "LSTMs are unstable in bf16"
    joint = nn.Sequential(nn.Tanh(), nn.Linear(64, 30)).to(bf16)
    features = torch.randn(2, 20, 80, generator=_generator()).to(bf16)
    tokens = torch.randint(1, 30, (2, 5), generator=_generator())
    logits = joint(encoder(features).unsqueeze(2) + predictor(tokens).unsqueeze(1))
    logits.log_softmax(-1)


def _rnnt_predictor_lstm_kept_fp32() -> None:
    predictor = nn.ModuleDict({"embed": nn.Embedding(30, 64), "lstm": nn.LSTM(64, 64, batch_first=True)})
    for module in predictor.values():
        if not isinstance(module, nn.LSTM):  # RNNs kept in fp32, the rest cast
            module.to(bf16)
    tokens = torch.randint(1, 30, (2, 5), generator=_generator())
    predictor["lstm"](predictor["embed"](tokens))


# --- voice activity detection and streaming ---------------------------------------------------------------------------


def _vad_smoothing_avg_pool_bool() -> torch.Tensor:
    probs = torch.sigmoid(torch.randn(1, 1, 200, generator=_generator()))  # frame-level speech probabilities
    speech = probs > 0.5
    ratio = F.avg_pool1d(speech, kernel_size=15, stride=1, padding=7)  # share of speech frames around each frame
    return ratio > 0.5


def _streaming_elapsed_seconds_int64() -> None:
    class StreamingVad(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("elapsed", torch.zeros((), dtype=torch.long))
            self.net = nn.Linear(512, 1)

        def forward(self, chunk: torch.Tensor) -> torch.Tensor:
            self.elapsed += chunk.shape[-1] / SAMPLE_RATE
            return torch.sigmoid(self.net(chunk))

    vad = StreamingVad()
    with torch.no_grad():
        vad(torch.randn(1, 512, generator=_generator()))


def _streaming_conv_cache_zeros() -> None:
    class CausalConvModule(nn.Module):
        def __init__(self, channels: int, kernel: int = 15) -> None:
            super().__init__()
            self.depthwise = nn.Conv1d(channels, channels, kernel, groups=channels, bias=False)
            self.norm = nn.BatchNorm1d(channels)

        def forward(self, x: torch.Tensor, cache: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            x = torch.cat([cache, x], dim=-1)
            new_cache = x[..., -(self.depthwise.kernel_size[0] - 1):]
            return self.norm(self.depthwise(x)), new_cache

    module = CausalConvModule(32).to(bf16).eval()
    cache = torch.zeros(1, 32, 14)  # the state at the start of a stream
    with torch.no_grad():
        for chunk in torch.randn(1, 32, 40, generator=_generator()).to(bf16).split(8, dim=-1):
            out, cache = module(chunk, cache)


def _emformer_memory_bank_fp32() -> None:
    heads, dim, chunk = 2, 16, 8
    to_qkv = nn.Linear(heads * dim, 3 * heads * dim).to(bf16)
    memory = torch.zeros(1, heads, 0, dim)  # summaries of past segments, grown as the stream advances
    with torch.no_grad():
        for segment in torch.randn(1, 3 * chunk, heads * dim, generator=_generator()).to(bf16).split(chunk, dim=1):
            q, k, v = to_qkv(segment).view(1, chunk, 3, heads, dim).permute(2, 0, 3, 1, 4)
            keys, values = torch.cat([memory, k], dim=2), torch.cat([memory, v], dim=2)
            out = F.scaled_dot_product_attention(q, keys, values)
            memory = torch.cat([memory, out.mean(dim=2, keepdim=True)], dim=2)


def _chunked_attention_mask_numpy() -> None:
    frames, chunk, left_chunks = 24, 4, 2
    chunk_of = np.arange(frames) // chunk
    visible = (chunk_of[None, :] <= chunk_of[:, None]) & (chunk_of[None, :] >= chunk_of[:, None] - left_chunks)
    mask = torch.from_numpy(np.where(visible, 0.0, -np.inf))  # additive streaming mask
    q = k = v = torch.randn(1, 4, frames, 16, generator=_generator())
    F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


# --- speaker embeddings and diarization -------------------------------------------------------------------------------


def _ecapa_pooling_fp32_into_bf16_batchnorm() -> None:
    class AttentiveStatsPool(nn.Module):
        def __init__(self, channels: int) -> None:
            super().__init__()
            self.attention = nn.Sequential(nn.Conv1d(channels, 32, 1), nn.Tanh(), nn.Conv1d(32, channels, 1))
            self.bn = nn.BatchNorm1d(2 * channels)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            weights = torch.softmax(self.attention(x), dim=-1).float()
            x = x.float()  # statistics in fp32: the std underflows in bf16
            mean = (x * weights).sum(-1)
            std = ((x.pow(2) * weights).sum(-1) - mean.pow(2)).clamp(min=1e-5).sqrt()
            return self.bn(torch.cat([mean, std], dim=1))

    pool = AttentiveStatsPool(16).to(bf16).eval()
    with torch.no_grad():
        pool(torch.randn(2, 16, 50, generator=_generator()).to(bf16))


def _speaker_scoring_fp16_enrolment() -> None:
    embedder = nn.Sequential(nn.Linear(80, 64), nn.ReLU(), nn.Linear(64, 32)).to(bf16)
    enrolled = F.normalize(torch.randn(5, 32, generator=_generator())).half()  # the enrolment database, stored fp16
    with torch.no_grad():
        test = F.normalize(embedder(torch.randn(1, 100, 80, generator=_generator()).to(bf16)).mean(1))
    scores = test @ enrolled.T
    scores.argmax(-1)


def _eend_eda_attractors_fp32() -> None:
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 2, 64, batch_first=True), 1).to(bf16).eval()
    eda_encoder = nn.LSTM(32, 32, batch_first=True)  # EDA kept in fp32, its input upcast
    eda_decoder = nn.LSTM(32, 32, batch_first=True)
    with torch.no_grad():
        embeddings = encoder(torch.randn(1, 50, 32, generator=_generator()).to(bf16))
        _, state = eda_encoder(embeddings.float())
        attractors, _ = eda_decoder(torch.zeros(1, 3, 32), state)
        torch.sigmoid(torch.bmm(embeddings, attractors.transpose(1, 2)))


CASES: dict[str, LiveCase] = {
    # --- PCM, WAV bytes and resampling
    # stereo int16 PCM from a WAV downmixed to mono with mean before converting to float
    "downmix-int16-mean": case(_downmix_int16_with_mean, "integer_operand", "int16",
                               grade="correct", grade_at_freeze="correct"),
    # gain augmentation in dB applied in place to int16 PCM
    "gain-db-in-place-int16": case(_gain_augmentation_in_place_int16, "result_cast", "f32", "int16",
                                   grade="correct", grade_at_freeze="correct"),
    # 44.1 kHz int16 PCM resampled to 16 kHz with linear interpolate before converting to float
    "resample-int16-interpolate": case(_resample_int16_with_interpolate, "integer_operand", "int16",
                                       grade="correct", grade_at_freeze="correct"),
    # a windowed-sinc resampling filter built in float64 "for accuracy", convolved with the fp32 waveform
    "sinc-resampler-kernel-f64": case(_sinc_resampler_kernel_f64, "conv_weight_dtype", "f32", "f64",
                                      grade="correct", grade_at_freeze="correct"),
    # a streaming TTS server writing scaled float chunks into an int16 ring buffer by advanced indexing
    "tts-ring-buffer-int16": case(_tts_ring_buffer_int16, "indexed_write_dtype", "int16", "f32",
                                  grade="correct", grade_at_freeze="correct"),
    # a bf16 vocoder's output written to a WAV file through numpy
    "wav-writer-numpy-bf16": case(_wav_writer_numpy_bf16, "numpy_dtype", "bf16",
                                  grade="correct", grade_at_freeze="correct"),
    # --- spectrograms, mel features and SpecAugment
    # SpecAugment's time mask made float (to count masked frames) and reused as masked_fill's mask
    "spec-augment-float-time-mask": case(_spec_augment_float_mask, "mask_dtype", "f32",
                                         grade="correct", grade_at_freeze="correct"),
    # an fp16 mel loss: log(clamp(mel, 1e-10)) where 1e-10 is 0 in fp16, zero-padded silence, NaN in backward
    "mel-log-clamp-fp16-silence": case(_mel_log_clamp_fp16_silence, "nonfinite",
                                       grade="correct", grade_at_freeze="correct"),
    # a Vocos-style iSTFT head's overlap-add buffer made in the window buffer's dtype (bf16), fp32 irfft frames
    "overlap-add-buffer-window-dtype": case(_overlap_add_buffer_in_window_dtype, "indexed_write_dtype", "bf16", "f32",
                                            grade="correct", grade_at_freeze="correct"),
    # mapping-based enhancement: the bf16 model's magnitude recombined with the fp32 noisy phase by torch.polar
    "enhancement-polar-noisy-phase": case(_enhancement_polar_noisy_phase, "op_dtype", "bf16", "f32",
                                          grade="correct", grade_at_freeze="correct"),
    # --- vocoders and TTS
    # a speaker adapter (fp32, added after the cast) adds its output to a bf16 vocoder conv's bias
    "speaker-adaptive-conv-bias": case(_speaker_adaptive_conv_bias, "conv_bias_dtype", "bf16", "f32",
                                       grade="correct", grade_at_freeze="correct"),
    # a bf16 pitch predictor trained with Huber loss against fp32 log-F0 targets
    "pitch-predictor-huber-fp32-target": case(_pitch_predictor_huber_fp32_target, "loss_dtype", "f32", "bf16",
                                              grade="correct", grade_at_freeze="correct"),
    # per-utterance sample lengths made with torch.full in the fp16 waveform's dtype (480000 samples)
    "lengths-full-waveform-dtype-f16": case(_full_lengths_in_waveform_dtype, "half_overflow", "f16",
                                            grade="correct", grade_at_freeze="correct"),
    # LPC coefficients solved from the autocorrelation normal equations on fp16 frames
    "lpc-solve-fp16": case(_lpc_solve_fp16, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # --- neural codecs
    # residual VQ with EMA codebooks kept fp32 outside the model, fed the bf16 encoder's latents
    "rvq-fp32-codebooks-bf16-latents": case(_rvq_fp32_codebooks_bf16_latents, "matmul_dtype", "bf16", "f32",
                                            grade="correct", grade_at_freeze="correct"),
    # an EMA codebook's running statistics kept as plain fp32 tensors, lerped toward bf16 batch statistics
    "ema-codebook-stats-lerp": case(_ema_codebook_stats_fp32_lerp, "lerp_dtype", "f32", "bf16",
                                    grade="correct", grade_at_freeze="correct"),
    # k-means codebook initialisation summing samples by F.one_hot(assignments).T @ samples, the one-hot int64
    "kmeans-init-one-hot-matmul": case(_kmeans_codebook_init_one_hot, "integer_operand", "int64", "bf16",
                                       grade="correct", grade_at_freeze="correct"),
    # FSQ token ids computed in the buffers' dtype (bf16 after the cast) and sent to the audio LM's embedding
    "fsq-token-ids-bf16": case(_fsq_token_ids_in_bf16, "index_tensor_dtype", "bf16",
                               grade="correct", grade_at_freeze="correct"),
    # codec tokens stored as int16 looked up in the codebook with index_select
    "codec-tokens-int16-index-select": case(_codec_tokens_int16_codebook_lookup, "index_tensor_dtype",
                                            grade="correct", grade_at_freeze="correct"),
    # a codec LM's per-codebook embedding tables stored in fp8, their lookups added to bf16 positions
    "codec-lm-fp8-embedding-tables": case(_codec_lm_fp8_embedding_tables, "fp8_promotion", "bf16", "float8_e4m3fn",
                                          grade="correct", grade_at_freeze="correct"),
    # EMA-updated codebooks (no gradients) given their own optimizer and stepped through GradScaler
    "codebook-optimizer-grad-scaler": case(_codebook_optimizer_through_grad_scaler, "loss_scale",
                                           grade="correct", grade_at_freeze="correct"),
    # --- speech recognition
    # CTC output lengths after 4x subsampling computed with true division
    "ctc-lengths-true-division": case(_ctc_lengths_true_division, "target_dtype",
                                      grade="correct", grade_at_freeze="correct"),
    # HuBERT masked prediction with k-means labels read from numpy as int32
    "hubert-kmeans-labels-int32": case(_hubert_kmeans_labels_int32, "target_dtype", "int32",
                                       grade="correct", grade_at_freeze="correct"),
    # wav2vec2-style masking: the mask embedding kept fp32 by an "embed" keep-list, written into bf16 hidden states
    "wav2vec2-mask-embedding-fp32": case(_wav2vec2_mask_embedding_kept_fp32, "indexed_write_dtype", "bf16", "f32",
                                         grade="correct", grade_at_freeze="correct"),
    # RNN-T with its prediction network left fp32: the broadcast sum with the bf16 encoder reaches the bf16 joint
    "rnnt-joint-fp32-predictor": case(_rnnt_joint_fp32_predictor, "matmul_dtype", "f32", "bf16",
                                      grade="correct", grade_at_freeze="correct"),
    # RNN-T prediction network: the LSTM kept fp32 while its embedding was cast to bf16
    "rnnt-predictor-lstm-fp32": case(_rnnt_predictor_lstm_kept_fp32, "rnn_dtype", "bf16", "f32",
                                     grade="correct", grade_at_freeze="correct"),
    # --- VAD and streaming
    # VAD decisions (bool) smoothed with avg_pool1d
    "vad-smoothing-avg-pool-bool": case(_vad_smoothing_avg_pool_bool, "integer_operand", "bool",
                                        grade="correct", grade_at_freeze="correct"),
    # a streaming VAD's elapsed-time buffer (int64) advanced in place by each chunk's duration in seconds
    "streaming-elapsed-int64-seconds": case(_streaming_elapsed_seconds_int64, "result_cast", "f32", "int64",
                                            grade="correct", grade_at_freeze="correct"),
    # a streaming causal conv's left-context cache started as torch.zeros (fp32) before the bf16 depthwise conv
    "streaming-conv-cache-zeros-fp32": case(_streaming_conv_cache_zeros, "conv_weight_dtype", "f32", "bf16",
                                            grade="correct", grade_at_freeze="correct"),
    # an Emformer-style memory bank started as torch.zeros (fp32), concatenated to bf16 keys and values for SDPA
    "emformer-memory-bank-fp32": case(_emformer_memory_bank_fp32, "sdpa_dtype", "bf16", "f32",
                                      grade="correct", grade_at_freeze="correct"),
    # a chunked streaming attention mask built in numpy (float64) as an additive mask for fp32 SDPA
    "chunked-attention-mask-numpy-f64": case(_chunked_attention_mask_numpy, "attn_mask_dtype", "f64", "f32",
                                             grade="correct", grade_at_freeze="correct"),
    # --- speaker embeddings and diarization
    # ECAPA attentive statistics pooling computed in fp32, fed to the bf16 BatchNorm1d after it
    "ecapa-pooling-fp32-bf16-batchnorm": case(_ecapa_pooling_fp32_into_bf16_batchnorm, "norm_param_dtype", "f32",
                                              grade="correct", grade_at_freeze="correct"),
    # speaker verification: a bf16 test embedding scored against an fp16 enrolment database
    "speaker-scoring-fp16-enrolment": case(_speaker_scoring_fp16_enrolment, "matmul_dtype", "bf16", "f16",
                                           grade="correct", grade_at_freeze="correct"),
    # EEND-EDA: attractors from fp32 LSTMs scored against the bf16 encoder's frame embeddings with bmm
    "eend-eda-attractors-fp32-bmm": case(_eend_eda_attractors_fp32, "batched_matmul_dtype", "bf16", "f32",
                                         grade="correct", grade_at_freeze="correct"),
}
