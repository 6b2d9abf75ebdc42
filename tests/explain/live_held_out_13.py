"""Held-out live set 13: `transformers` models other than decoder-only LLMs, built tiny from configs (BERT, RoBERTa,
DistilBERT, T5, BART, ViT, CLIP, ConvNeXt, Whisper, Wav2Vec2) and the user code around them: pooling, heads, masks,
inputs, casts, losses, feature extraction and generation in bf16/fp16. Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at 7871e4c."""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from transformers import (
    BartConfig,
    BartForConditionalGeneration,
    BartModel,
    BertConfig,
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertModel,
    CLIPVisionConfig,
    CLIPVisionModel,
    ConvNextConfig,
    ConvNextForImageClassification,
    DistilBertConfig,
    DistilBertModel,
    LogitsProcessor,
    LogitsProcessorList,
    RobertaConfig,
    RobertaModel,
    T5Config,
    T5EncoderModel,
    ViTConfig,
    ViTModel,
    Wav2Vec2Config,
    Wav2Vec2ForCTC,
    WhisperConfig,
    WhisperForConditionalGeneration,
)

from .live_cases import LiveCase, case

FROZEN_AT = "7871e4c"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


# --- tiny models built from configs (no download) --------------------------------------------------------------------

def _bert_config(**extra: object) -> BertConfig:
    return BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                      max_position_embeddings=32, **extra)


def _batch() -> tuple[torch.Tensor, torch.Tensor]:
    """Two tokenized sentences: int64 input_ids and the tokenizer's int64 0/1 attention_mask (second one padded)."""
    torch.manual_seed(0)
    input_ids = torch.randint(3, 60, (2, 6))
    attention_mask = torch.ones(2, 6, dtype=torch.long)
    attention_mask[1, 4:] = 0
    return input_ids, attention_mask


def _bart_config(**extra: object) -> BartConfig:
    return BartConfig(vocab_size=64, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                      decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=32,
                      **extra)


def _wav2vec2_ctc(dtype: torch.dtype = bf16) -> Wav2Vec2ForCTC:
    torch.manual_seed(0)
    config = Wav2Vec2Config(vocab_size=12, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, conv_dim=(8, 8), conv_stride=(5, 2), conv_kernel=(10, 3),
                            num_feat_extract_layers=2, num_conv_pos_embeddings=4, num_conv_pos_embedding_groups=2,
                            pad_token_id=0)
    return Wav2Vec2ForCTC(config).to(dtype)


def _clip_vision(dtype: torch.dtype = bf16) -> CLIPVisionModel:
    torch.manual_seed(0)
    config = CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                              image_size=8, patch_size=4)
    return CLIPVisionModel(config).to(dtype)


# --- pooling and embedding extraction --------------------------------------------------------------------------------

def _mean_pool_float_mask_into_bf16_dense() -> None:
    encoder = BertModel(_bert_config()).to(bf16)
    dense = nn.Linear(16, 8).to(bf16)  # sentence-transformers style Dense projection after pooling
    input_ids, attention_mask = _batch()
    hidden = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    weights = attention_mask.unsqueeze(-1).float()
    sentence = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    dense(sentence)


def _weighted_layer_pooling_fp32_weights() -> None:
    encoder = BertModel(_bert_config()).to(bf16)
    head = nn.Sequential(nn.LayerNorm(16), nn.Dropout(0.1), nn.Linear(16, 3)).to(bf16)
    layer_weights = nn.Parameter(torch.tensor([1.0] * 2))  # added after the cast, one weight per encoder layer
    input_ids, attention_mask = _batch()
    hidden_states = encoder(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True).hidden_states
    stacked = torch.stack(hidden_states[1:])
    pooled = (layer_weights[:, None, None, None] * stacked).sum(0) / layer_weights.sum()
    head(pooled[:, 0])


def _clip_attention_pool_fp32_query() -> None:
    vision = _clip_vision()
    probe = nn.Parameter(torch.randn(1, 2, 1, 8))  # learned attention-pooling query, created after the cast
    tokens = vision(pixel_values=torch.randn(2, 3, 8, 8).to(bf16)).last_hidden_state
    keys = tokens.view(2, -1, 2, 8).transpose(1, 2)
    F.scaled_dot_product_attention(probe.expand(2, -1, -1, -1), keys, keys)


def _max_pool_tokens_fp16_minus_1e9() -> None:
    encoder = BertModel(_bert_config()).half().eval()
    input_ids, attention_mask = _batch()
    with torch.no_grad():
        hidden = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        hidden.masked_fill(attention_mask.unsqueeze(-1) == 0, -1e9).max(dim=1)


def _t5_mean_pool_counts_clamped_in_place() -> None:
    torch.manual_seed(0)
    encoder = T5EncoderModel(T5Config(vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2)).to(bf16)
    input_ids, attention_mask = _batch()
    hidden = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    summed = (hidden * attention_mask.unsqueeze(-1)).sum(1)
    counts = attention_mask.sum(1, keepdim=True)
    counts.clamp_(min=1e-9)
    summed / counts


def _embeddings_written_into_fp32_buffer() -> None:
    torch.manual_seed(0)
    encoder = DistilBertModel(DistilBertConfig(vocab_size=64, dim=16, n_layers=1, n_heads=2, hidden_dim=32,
                                               max_position_embeddings=32)).to(bf16).eval()
    corpus_embeddings = torch.zeros(10, 16)  # preallocated for the whole corpus
    input_ids, attention_mask = _batch()
    batch_indices = torch.tensor([3, 7])  # the sampler's dataset indices for this batch
    with torch.no_grad():
        hidden = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        corpus_embeddings[batch_indices] = hidden[:, 0]


def _colbert_maxsim_fp32_document_index() -> None:
    torch.manual_seed(0)
    encoder = RobertaModel(RobertaConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                         intermediate_size=32, max_position_embeddings=40, pad_token_id=1)).to(bf16)
    document_index = F.normalize(torch.randn(3, 6, 16), dim=-1)  # token embeddings indexed earlier, stored in fp32
    input_ids, _ = _batch()
    with torch.no_grad():
        query = F.normalize(encoder(input_ids=input_ids[:1]).last_hidden_state, dim=-1)
        (query @ document_index.transpose(1, 2)).max(dim=-1).values.sum(-1)


def _whitening_svd_bf16_embeddings() -> None:
    encoder = BertModel(_bert_config()).to(bf16).eval()
    torch.manual_seed(1)
    with torch.no_grad():
        embeddings = encoder(input_ids=torch.randint(3, 60, (20, 6))).last_hidden_state.mean(1)
    mu = embeddings.mean(0, keepdim=True)
    covariance = torch.cov((embeddings - mu).T)
    u, s, _ = torch.linalg.svd(covariance)  # BERT-whitening kernel: u @ diag(1 / sqrt(s))
    u @ torch.diag(s.rsqrt())


def _ridge_probe_solve_on_bf16_features() -> None:
    encoder = BertModel(_bert_config()).to(bf16).eval()
    torch.manual_seed(1)
    with torch.no_grad():
        features = encoder(input_ids=torch.randint(3, 60, (20, 6))).last_hidden_state[:, 0]
    targets = F.one_hot(torch.randint(0, 3, (20,)), 3).to(features.dtype)
    gram = features.T @ features + 1e-2 * torch.eye(16)
    torch.linalg.solve(gram, features.T @ targets)


# --- heads on top of encoders ----------------------------------------------------------------------------------------

def _bert_bilstm_tagger_fp32_lstm() -> None:
    encoder = BertModel(_bert_config()).to(bf16)
    lstm = nn.LSTM(16, 8, batch_first=True, bidirectional=True)  # BERT-BiLSTM tagger head, built after the cast
    input_ids, attention_mask = _batch()
    lstm(encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state)


def _bert_multi_margin_loss_bf16() -> None:
    model = BertForSequenceClassification(_bert_config(num_labels=3)).to(bf16)
    input_ids, attention_mask = _batch()
    logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
    F.multi_margin_loss(logits, torch.tensor([0, 2]))


def _focal_loss_fp16_under_anomaly_mode() -> None:
    torch.manual_seed(0)
    model = BertForSequenceClassification(_bert_config(num_labels=3)).half()
    with torch.no_grad():
        model.classifier.bias.copy_(torch.tensor([12.0, -12.0, 0.0]))  # a confident classifier; sample 2 is hard
    input_ids, attention_mask = _batch()
    labels = torch.tensor([0, 1])
    with torch.autograd.detect_anomaly():
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
        p = logits.softmax(-1).gather(1, labels[:, None]).squeeze(1)
        loss = (-((1 - p) ** 2) * p.log()).mean()
        loss.backward()


def _grad_scaler_steps_frozen_encoder_optimizer() -> None:
    torch.manual_seed(0)
    model = BertForSequenceClassification(_bert_config(num_labels=3))
    for parameter in model.bert.parameters():  # gradual unfreezing: encoder frozen for the first epoch
        parameter.requires_grad_(False)
    encoder_optimizer = torch.optim.AdamW(model.bert.parameters(), lr=1e-5)
    head_optimizer = torch.optim.AdamW(model.classifier.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    input_ids, attention_mask = _batch()
    with torch.autocast("cpu", dtype=f16):
        loss = model(input_ids=input_ids, attention_mask=attention_mask, labels=torch.tensor([0, 2])).loss
    scaler.scale(loss).backward()
    scaler.step(head_optimizer)
    scaler.step(encoder_optimizer)
    scaler.update()


def _huber_distillation_bf16_teacher_fp32_student() -> None:
    teacher = BertModel(_bert_config()).to(bf16).eval()
    torch.manual_seed(1)
    student = DistilBertModel(DistilBertConfig(vocab_size=64, dim=16, n_layers=1, n_heads=2, hidden_dim=32,
                                               max_position_embeddings=32))
    input_ids, attention_mask = _batch()
    with torch.no_grad():
        target = teacher(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    prediction = student(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    F.huber_loss(prediction, target).backward()


def _vit_distillation_fp8_cached_teacher_features() -> None:
    torch.manual_seed(0)
    student = ViTModel(ViTConfig(image_size=8, patch_size=4, num_channels=3, hidden_size=16, num_hidden_layers=1,
                                 num_attention_heads=2, intermediate_size=32)).to(bf16)
    teacher_features = torch.randn(2, 5, 16).to(E4M3)  # teacher tokens cached offline in fp8 to save disk
    features = student(pixel_values=torch.randn(2, 3, 8, 8).to(bf16)).last_hidden_state
    F.mse_loss(features, teacher_features)


def _mean_teacher_fp32_ema_of_bf16_student() -> None:
    torch.manual_seed(0)
    student = BertForTokenClassification(_bert_config(num_labels=5)).to(bf16)
    teacher = copy.deepcopy(student).float()  # EMA teacher kept in fp32 so small updates are not lost
    decay = 0.999
    with torch.no_grad():
        for teacher_param, student_param in zip(teacher.parameters(), student.parameters()):
            teacher_param.lerp_(student_param, 1 - decay)


# --- inputs, labels and masks ----------------------------------------------------------------------------------------

def _bert_packed_sequences_fp32_4d_mask_eager() -> None:
    model = BertModel(_bert_config(attn_implementation="eager")).to(bf16)
    input_ids, _ = _batch()
    block_mask = torch.zeros(1, 1, 6, 6)  # two documents packed in one row: block-diagonal additive mask
    block_mask[..., :3, 3:] = -1e4
    block_mask[..., 3:, :3] = -1e4
    model(input_ids=input_ids[:1], attention_mask=block_mask)


def _bert_token_type_ids_from_comparison() -> None:
    model = BertModel(_bert_config()).to(bf16)
    input_ids, attention_mask = _batch()
    separator_position = 3
    token_type_ids = torch.arange(6)[None].expand(2, -1) > separator_position  # second segment after [SEP]
    model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)


def _qa_float_start_end_positions() -> None:
    model = BertForQuestionAnswering(_bert_config()).to(bf16)
    input_ids, attention_mask = _batch()
    char_start, char_end, chars_per_token = torch.tensor([4, 9]), torch.tensor([11, 17]), 4
    start_positions = char_start / chars_per_token  # answer span mapped from characters to tokens
    end_positions = char_end / chars_per_token
    model(input_ids=input_ids, attention_mask=attention_mask, start_positions=start_positions,
          end_positions=end_positions)


def _ner_labels_aligned_with_np_full() -> None:
    model = BertForTokenClassification(_bert_config(num_labels=5)).to(bf16)
    input_ids, attention_mask = _batch()
    word_ids = [[None, 0, 0, 1, 2, None], [None, 0, 1, 1, None, None]]
    word_labels = [[1, 0, 3], [2, 4]]
    rows = []
    for words, labels in zip(word_ids, word_labels):
        row = np.full(len(words), -100.0)
        previous = None
        for position, word in enumerate(words):
            if word is not None and word != previous:
                row[position] = labels[word]
            previous = word
        rows.append(row)
    model(input_ids=input_ids, attention_mask=attention_mask, labels=torch.tensor(np.stack(rows)))


def _ner_first_subword_float_mask() -> None:
    encoder = BertModel(_bert_config()).to(bf16)
    input_ids, attention_mask = _batch()
    word_ids = [[None, 0, 0, 1, 2, None], [None, 0, 1, 1, None, None]]
    first_subword = torch.zeros(2, 6)
    for row, words in enumerate(word_ids):
        previous = None
        for position, word in enumerate(words):
            if word is not None and word != previous:
                first_subword[row, position] = 1
            previous = word
    hidden = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    hidden[first_subword]


def _mlm_bernoulli_mask_not_bool() -> None:
    input_ids, _ = _batch()
    labels = input_ids.clone()
    masked_indices = torch.bernoulli(torch.full(labels.shape, 0.15))
    labels[~masked_indices] = -100


class _AllowedLabelWords(LogitsProcessor):
    """Constrained decoding: only the verbalizer's label words may be generated."""

    def __init__(self, allowed_ids: list[int], vocab_size: int) -> None:
        self.allowed = torch.zeros(vocab_size)
        self.allowed[allowed_ids] = 1

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        return scores.masked_fill(1 - self.allowed, -float("inf"))


def _bart_constrained_decoding_float_allowed_mask() -> None:
    torch.manual_seed(0)
    model = BartForConditionalGeneration(_bart_config()).to(bf16).eval()
    input_ids, attention_mask = _batch()
    model.generate(input_ids=input_ids, attention_mask=attention_mask, max_new_tokens=3,
                   logits_processor=LogitsProcessorList([_AllowedLabelWords([2, 5, 9], 64)]))


# --- seq2seq ---------------------------------------------------------------------------------------------------------

def _bart_copy_attention_context_fp32_softmax() -> None:
    torch.manual_seed(0)
    model = BartModel(_bart_config()).to(bf16)
    input_ids, attention_mask = _batch()
    out = model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=input_ids[:, :4])
    encoder_states, decoder_states = out.encoder_last_hidden_state, out.last_hidden_state
    scores = torch.bmm(decoder_states, encoder_states.transpose(1, 2)).float()  # softmax in fp32 for stability
    scores = scores.masked_fill(attention_mask[:, None, :] == 0, float("-inf"))
    torch.bmm(scores.softmax(-1), encoder_states)


def _bart_pointer_generator_scatter_add() -> None:
    torch.manual_seed(0)
    model = BartForConditionalGeneration(_bart_config(attn_implementation="eager")).to(bf16)
    input_ids, attention_mask = _batch()
    out = model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=input_ids[:, :4],
                output_attentions=True)
    vocab_distribution = out.logits.softmax(-1, dtype=torch.float32)
    copy_distribution = out.cross_attentions[-1].mean(1)
    p_gen = 0.7
    source_ids = input_ids[:, None, :].expand(-1, 4, -1)
    (p_gen * vocab_distribution).scatter_add(-1, source_ids, (1 - p_gen) * copy_distribution)


# --- vision and speech -----------------------------------------------------------------------------------------------

def _convnext_bf16_fp32_pixel_values() -> None:
    torch.manual_seed(0)
    config = ConvNextConfig(num_channels=3, hidden_sizes=[8, 16], depths=[1, 1], num_stages=2, num_labels=3)
    model = ConvNextForImageClassification(config).to(bf16)
    pixel_values = torch.randn(2, 3, 16, 16)  # what the image processor returns (fp32)
    model(pixel_values=pixel_values, labels=torch.tensor([0, 2]))


def _clip_preprocess_antialias_resize_half() -> None:
    vision = _clip_vision(f16)
    torch.manual_seed(1)
    images = torch.randint(0, 256, (2, 3, 32, 32), dtype=torch.uint8)
    pixels = images.to(vision.dtype) / 255
    pixels = F.interpolate(pixels, size=(8, 8), mode="bicubic", antialias=True)
    vision(pixel_values=pixels)


def _whisper_fp16_generate_fp32_features() -> None:
    torch.manual_seed(0)
    config = WhisperConfig(vocab_size=64, num_mel_bins=8, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                           decoder_attention_heads=2, d_model=16, encoder_ffn_dim=32, decoder_ffn_dim=32,
                           max_source_positions=8, max_target_positions=16, decoder_start_token_id=1, pad_token_id=0,
                           eos_token_id=2, bos_token_id=1, begin_suppress_tokens=None, suppress_tokens=None)
    model = WhisperForConditionalGeneration(config).half().eval()
    input_features = torch.randn(1, 8, 16)  # log-mel from the feature extractor (fp32)
    model.generate(input_features=input_features, max_new_tokens=3)


def _wav2vec2_feature_encoder_kept_fp32() -> None:
    model = _wav2vec2_ctc()
    model.wav2vec2.feature_extractor.float()  # CNN front end kept in fp32 for precision, then frozen
    model.freeze_feature_encoder()
    model(torch.randn(2, 400))


def _wav2vec2_custom_ctc_loss_bf16() -> None:
    model = _wav2vec2_ctc()
    logits = model(torch.randn(2, 400).to(bf16)).logits
    log_probs = logits.log_softmax(-1).transpose(0, 1)
    targets, target_lengths = torch.tensor([[3, 4, 5], [6, 7, 0]]), torch.tensor([3, 2])
    input_lengths = torch.full((2,), log_probs.shape[0])
    F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=True)


def _wav2vec2_frame_mask_max_pool_long() -> None:
    model = _wav2vec2_ctc()
    waveforms = torch.randn(2, 400).to(bf16)
    sample_mask = torch.ones(2, 400, dtype=torch.long)
    sample_mask[1, 250:] = 0
    hidden = model.wav2vec2(waveforms, attention_mask=sample_mask).last_hidden_state  # (2, 39, 16)
    frame_mask = F.max_pool1d(sample_mask[:, None], kernel_size=10, stride=10)[:, 0, : hidden.shape[1]]
    (hidden * frame_mask[..., None]).sum(1) / frame_mask.sum(1, keepdim=True)


def _wav2vec2_ctc_numpy_prefix_decoder() -> None:
    model = _wav2vec2_ctc()
    with torch.no_grad():
        log_probs = model(torch.randn(1, 400).to(bf16)).logits.log_softmax(-1)
    probabilities = np.exp(log_probs[0])  # handed to a numpy beam-search decoder
    probabilities.argmax(-1)


CASES: dict[str, LiveCase] = {
    # --- pooling and embedding extraction
    # sentence-transformers style mean pooling with mask.float() upcasts the bf16 hidden states; the bf16 Dense gets fp32
    "mean-pool-float-mask-into-bf16-dense": case(_mean_pool_float_mask_into_bf16_dense, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # weighted layer pooling whose layer weights were created in fp32 after the cast, into the head's bf16 LayerNorm
    "weighted-layer-pooling-fp32-weights": case(_weighted_layer_pooling_fp32_weights, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # attention pooling over bf16 CLIP patch tokens with a learned query made in fp32 after the cast
    "clip-attention-pool-fp32-query": case(_clip_attention_pool_fp32_query, "sdpa_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # max pooling over tokens of an fp16 BERT with padding filled with -1e9
    "max-pool-tokens-fp16-minus-1e9": case(_max_pool_tokens_fp16_minus_1e9, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # T5 mean pooling: the int64 token counts clamped in place with a float minimum
    "t5-mean-pool-counts-clamp-in-place": case(_t5_mean_pool_counts_clamped_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # corpus embedding extraction from a bf16 DistilBERT into a preallocated fp32 tensor by the sampler's indices
    "embeddings-into-fp32-buffer-by-index": case(_embeddings_written_into_fp32_buffer, "indexed_write_dtype", "f32",
                                                 "bf16", grade="correct", grade_at_freeze="correct"),
    # ColBERT MaxSim: bf16 RoBERTa query token embeddings against a document index stored in fp32
    "colbert-maxsim-fp32-document-index": case(_colbert_maxsim_fp32_document_index, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # BERT-whitening: the SVD of the covariance of bf16 sentence embeddings
    "bert-whitening-svd-bf16": case(_whitening_svd_bf16_embeddings, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a closed-form ridge probe on bf16 features: the ridge term promotes the Gram matrix, the right side stays bf16
    "ridge-probe-solve-bf16-features": case(_ridge_probe_solve_on_bf16_features, "op_dtype", "f32", "bf16", grade="correct", grade_at_freeze="wrong",
        why="At freeze (7871e4c) castwise gave scalar_type [f32, bf16] (low confidence). linalg.solve's own operand check"
            " (`Expected A and B to have the same dtype`) names the op, but the rules have no reading for a linear-algebra"
            " solver's two operands and fell back to the generic same-dtype check."),
    # --- heads, losses and training loops
    # a BERT-BiLSTM tagger whose LSTM head was built in fp32 after the encoder was cast to bf16
    "bert-bilstm-tagger-fp32-lstm": case(_bert_bilstm_tagger_fp32_lstm, "rnn_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a multi-class hinge loss (multi_margin_loss) on a bf16 classifier's logits
    "bert-multi-margin-loss-bf16": case(_bert_multi_margin_loss_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a hand-written focal loss on an fp16 classifier: the hard example's probability underflows to 0, NaN in backward
    "focal-loss-fp16-anomaly": case(_focal_loss_fp16_under_anomaly_mode, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # gradual unfreezing: the frozen encoder's optimizer still stepped through GradScaler
    "grad-scaler-step-frozen-encoder-optimizer": case(_grad_scaler_steps_frozen_encoder_optimizer, "loss_scale", grade="correct", grade_at_freeze="correct"),
    # hidden-state distillation with Huber loss: fp32 DistilBERT student, teacher BERT run in bf16
    "huber-distill-bf16-teacher-fp32-student": case(_huber_distillation_bf16_teacher_fp32_student, "loss_dtype",
                                                    "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # ViT feature distillation against teacher tokens cached in fp8
    "vit-distill-fp8-cached-teacher-features": case(_vit_distillation_fp8_cached_teacher_features, "fp8_promotion",
                                                    "bf16", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # a mean-teacher NER setup: fp32 EMA teacher lerped toward the bf16 student
    "mean-teacher-fp32-ema-bf16-student": case(_mean_teacher_fp32_ema_of_bf16_student, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- inputs, labels and masks
    # packed sequences: a block-diagonal additive 4D mask built in fp32 given to a bf16 BERT with eager attention
    "bert-packed-4d-mask-fp32-eager": case(_bert_packed_sequences_fp32_4d_mask_eager, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # token_type_ids built as a bool comparison against the [SEP] position
    "bert-token-type-ids-bool": case(_bert_token_type_ids_from_comparison, "index_tensor_dtype", "bool",
                                     fix=("long",), grade="correct", grade_at_freeze="correct"),
    # extractive QA: answer start/end positions mapped from characters with true division (float)
    "qa-float-start-end-positions": case(_qa_float_start_end_positions, "target_dtype", "f32", fix=("long",), grade="correct", grade_at_freeze="correct"),
    # NER labels aligned to subwords in rows made with np.full(..., -100.0), so float64
    "ner-labels-np-full-float64": case(_ner_labels_aligned_with_np_full, "target_dtype", "f64", fix=("long",), grade="correct", grade_at_freeze="correct"),
    # first-subword selection with a mask made by torch.zeros (float) used to index the hidden states
    "ner-first-subword-float-mask-index": case(_ner_first_subword_float_mask, "index_tensor_dtype", fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # an MLM collator's bernoulli mask left float, inverted with ~
    "mlm-bernoulli-mask-not-bool": case(_mlm_bernoulli_mask_not_bool, "mask_dtype", fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # constrained decoding: a LogitsProcessor's allowed-token mask made with torch.zeros, used as masked_fill's mask
    "bart-constrained-decoding-float-mask": case(_bart_constrained_decoding_float_allowed_mask, "mask_dtype", "f32",
                                                 fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # --- seq2seq
    # hand-written copy attention over a bf16 BART's encoder: scores upcast for the softmax, context by bmm
    "bart-copy-attention-fp32-softmax-bmm": case(_bart_copy_attention_context_fp32_softmax, "batched_matmul_dtype",
                                                 "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # pointer-generator: the copy distribution from bf16 cross-attentions scatter-added into the fp32 vocab distribution
    "bart-pointer-generator-scatter-add": case(_bart_pointer_generator_scatter_add, "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # --- vision and speech
    # a bf16 ConvNeXt given the image processor's fp32 pixel_values (ViT casts them itself, ConvNeXt does not)
    "convnext-bf16-fp32-pixel-values": case(_convnext_bf16_fp32_pixel_values, "conv_weight_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # preprocessing for a halved CLIP: images cast to fp16 first, then resized with antialias
    "clip-preprocess-antialias-resize-f16": case(_clip_preprocess_antialias_resize_half, "no_kernel", "f16", grade="correct", grade_at_freeze="correct"),
    # a Whisper halved for transcription given the feature extractor's fp32 log-mel features in generate
    "whisper-fp16-generate-fp32-features": case(_whisper_fp16_generate_fp32_features, "conv_weight_dtype", "f32",
                                                "f16", grade="correct", grade_at_freeze="correct"),
    # a bf16 Wav2Vec2 whose CNN feature encoder was put back to fp32: its output meets the bf16 feature projection norm
    "wav2vec2-feature-encoder-kept-fp32": case(_wav2vec2_feature_encoder_kept_fp32, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # a hand-written CTC loss on a bf16 Wav2Vec2's log-probs (no upcast)
    "wav2vec2-custom-ctc-loss-bf16": case(_wav2vec2_custom_ctc_loss_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # utterance pooling: the int64 sample-level attention mask downsampled to frames with max_pool1d
    "wav2vec2-frame-mask-max-pool-long": case(_wav2vec2_frame_mask_max_pool_long, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # CTC log-probs of a bf16 Wav2Vec2 passed to a numpy beam-search decoder
    "wav2vec2-ctc-numpy-decoder-bf16": case(_wav2vec2_ctc_numpy_prefix_decoder, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
}
