"""Held-out live set 42: a newcomer's first week in low precision, revisited (tutorial and forum snippets, numpy and
image arrays, Python ints in torch.tensor, labels and masks, tiny `transformers` models, saving, quick eval loops).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen
at cd6d50a."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from transformers import AutoModel, AutoModelForCausalLM, BertConfig, BertModel, GPT2Config, Wav2Vec2Config

from .live_cases import LiveCase, case

FROZEN_AT = "cd6d50a"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _tiny_bert() -> BertConfig:
    return BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                      max_position_embeddings=32)


def _causal_mask_full_int_zero() -> None:
    seq_len = 6
    mask = torch.full((seq_len, seq_len), 0)  # a blog's "start from zeros", with a Python int
    mask.masked_fill_(torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1), float("-inf"))


def _empty_token_list_cat() -> None:
    vocab = {"<bos>": 1, "hello": 2, "world": 3}
    embed = nn.Embedding(10, 8).to(bf16)
    line = ""  # an empty line in the text file
    prefix = torch.tensor([vocab["<bos>"]])
    words = torch.tensor([vocab[word] for word in line.split() if word in vocab])
    ids = torch.cat([prefix, words])
    embed(ids[None])


def _batch_cast_loop_padding_mask() -> None:
    torch.manual_seed(0)
    batch = {"features": torch.randn(2, 5, 8),
             "padding_mask": torch.tensor([[False, False, False, True, True], [False] * 5])}
    batch = {key: value.to(bf16) for key, value in batch.items()}  # "move the batch to the model's dtype"
    scorer = nn.Linear(8, 1).to(bf16)
    scores = scorer(batch["features"]).squeeze(-1)
    scores.masked_fill(batch["padding_mask"], float("-inf")).softmax(-1)


def _decoder_tgt_mask_numpy_triu_int() -> None:
    torch.manual_seed(0)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True).to(bf16)
    tgt, memory = torch.randn(1, 4, 8).to(bf16), torch.randn(1, 3, 8).to(bf16)
    tgt_mask = torch.from_numpy(np.triu(np.ones((4, 4)), k=1).astype(int))  # 1 = hide the future
    layer(tgt, memory, tgt_mask=tgt_mask)


def _sdpa_numpy_tril_ones_mask() -> None:
    torch.manual_seed(0)
    qkv = nn.Linear(8, 24).to(bf16)
    q, k, v = qkv(torch.randn(1, 4, 8).to(bf16)).view(1, 4, 3, 2, 4).permute(2, 0, 3, 1, 4)
    keep = torch.from_numpy(np.tril(np.ones((4, 4))))  # 1 = may attend, meant as a boolean mask
    F.scaled_dot_product_attention(q, k, v, attn_mask=keep)


def _eval_predictions_savetxt() -> None:
    torch.manual_seed(0)
    model = nn.Linear(4, 3).to(bf16).eval()
    with torch.no_grad():
        probabilities = model(torch.randn(5, 4).to(bf16)).softmax(-1)
    with tempfile.TemporaryDirectory() as folder:
        np.savetxt(os.path.join(folder, "predictions.csv"), probabilities, delimiter=",")


def _images_type_half_tensor() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU())
    images = torch.rand(2, 3, 8, 8).type(torch.HalfTensor)  # "store the images in half to save memory"
    model(images)


def _pil_array_divided_by_255() -> None:
    pixels = _rng().integers(0, 256, (8, 8, 3), dtype=np.uint8)  # what np.asarray(Image.open(path)) gives
    image = torch.from_numpy(pixels / 255.0).permute(2, 0, 1).unsqueeze(0)
    stem = nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU()).to(bf16)
    stem(image)


def _numpy_noise_augmentation() -> None:
    torch.manual_seed(0)
    images = torch.rand(4, 16)  # flattened 4x4 images
    images = images + _rng().normal(0.0, 0.1, images.shape)  # Gaussian noise augmentation from a forum answer
    mlp = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 2)).to(bf16)
    mlp(images)


def _halved_model_under_autocast() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 2)).half()
    with torch.autocast("cpu", dtype=bf16):
        model(torch.randn(4, 8))


def _vae_prior_normal_int_tensors() -> None:
    decoder = nn.Sequential(nn.Linear(8, 16), nn.Sigmoid()).to(bf16)
    prior = torch.distributions.Normal(torch.tensor(0), torch.tensor(1))
    z = prior.sample((4, 8)).to(bf16)
    decoder(z)


def _bert_bf16_own_fp32_inputs_embeds() -> None:
    torch.manual_seed(0)
    model = AutoModel.from_config(_tiny_bert(), torch_dtype=bf16)
    features = torch.from_numpy(_rng().random((1, 5, 16), dtype=np.float32))  # own sensor features as embeddings
    model(inputs_embeds=features)


def _wav2vec2_bf16_numpy_waveform() -> None:
    torch.manual_seed(0)
    config = Wav2Vec2Config(vocab_size=10, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, conv_dim=(8, 8), conv_stride=(5, 2), conv_kernel=(10, 3),
                            num_conv_pos_embeddings=4, num_conv_pos_embedding_groups=2)
    model = AutoModel.from_config(config, torch_dtype=bf16)
    waveform = _rng().normal(0.0, 0.1, 400)  # as read by a numpy audio loader
    model(torch.from_numpy(waveform)[None])


def _gpt2_numpy_int32_labels() -> None:
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(GPT2Config(vocab_size=50, n_embd=16, n_layer=1, n_head=2, n_positions=32),
                                             torch_dtype=bf16)
    ids = torch.from_numpy(np.array([[1, 2, 3, 4, 5]], dtype=np.int32))  # token ids saved as int32 to halve the file
    model(input_ids=ids, labels=ids)


def _segmentation_mask_divided_by_255() -> None:
    torch.manual_seed(0)
    rng = _rng()
    image = torch.from_numpy(rng.random((1, 3, 8, 8), dtype=np.float32)).to(bf16)
    mask_png = rng.integers(0, 3, (8, 8)).astype(np.uint8)  # class ids 0..2 in a PNG
    target = torch.from_numpy(mask_png / 255.0)[None]  # the image's transform applied to the mask as well
    logits = nn.Conv2d(3, 3, 1, bias=False).to(bf16)(image)
    F.cross_entropy(logits, target)


def _default_dtype_bf16_numpy_features() -> None:
    previous = torch.get_default_dtype()
    torch.set_default_dtype(bf16)  # "train in bf16" by setting the default dtype at the top of the script
    try:
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        features = _rng().random((3, 4), dtype=np.float32)
        model(torch.from_numpy(features))
    finally:
        torch.set_default_dtype(previous)


def _mlp_cast_to_fp8() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(E4M3)  # "fp8 training" after a blog post
    model(torch.randn(3, 4))


def _embedding_halved_alone() -> None:
    torch.manual_seed(0)
    embed, lstm = nn.Embedding(100, 8), nn.LSTM(8, 16, batch_first=True)
    embed.half()  # only the big table halved to save RAM
    lstm(embed(torch.tensor([[4, 8, 15, 16]])))


def _eval_correct_flags_into_float_buffer() -> None:
    torch.manual_seed(0)
    n = 6
    correct = torch.zeros(n)
    order = torch.randperm(n)
    model = nn.Linear(4, 3).to(bf16).eval()
    for indices in order.split(3):
        with torch.no_grad():
            predictions = model(torch.randn(len(indices), 4).to(bf16)).argmax(-1)
        labels = torch.randint(0, 3, (len(indices),))
        correct[indices] = predictions == labels


def _multilabel_margin_loss_halved() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).half()
    targets = torch.tensor([[0, 2, -1, -1], [1, -1, -1, -1]])
    nn.MultiLabelMarginLoss()(model(torch.randn(2, 8).half()), targets)


def _reloaded_bf16_backbone_own_fp32_head() -> None:
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as folder:
        AutoModel.from_config(_tiny_bert(), torch_dtype=bf16).save_pretrained(folder)
        torch.save(nn.Linear(16, 2).state_dict(), os.path.join(folder, "head.pt"))
        backbone = BertModel.from_pretrained(folder)  # no torch_dtype given: the saved bf16 is kept
        head = nn.Linear(16, 2)
        head.load_state_dict(torch.load(os.path.join(folder, "head.pt"), weights_only=True))
        pooled = backbone(input_ids=torch.tensor([[1, 2, 3]])).last_hidden_state[:, 0]
        head(pooled)


def _video_cnn_halved_avg_pool3d() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv3d(3, 4, 3, padding=1, bias=False), nn.ReLU(), nn.AvgPool3d(2)).half()
    model(torch.randn(1, 3, 4, 8, 8).half())


def _binary_labels_smoothed_in_place() -> None:
    labels = torch.tensor([1, 0, 1, 1])  # from a Python list of ints
    smoothing = 0.1
    labels.mul_(1 - smoothing).add_(smoothing / 2)


def _seq2seq_tutorial_encoder_bf16_bmm() -> None:
    torch.manual_seed(0)
    encoder = nn.GRU(8, 8).to(bf16)  # only the encoder moved to bf16
    attention = nn.Linear(16, 5)
    encoder_outputs, hidden = encoder(torch.randn(5, 1, 8).to(bf16))
    embedded = torch.randn(1, 8)
    weights = F.softmax(attention(torch.cat([embedded, hidden[0].float()], 1)), dim=1)
    torch.bmm(weights.unsqueeze(0), encoder_outputs.transpose(0, 1))


def _fp8_model_and_batch() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(E4M3)
    model(torch.randn(2, 4).to(E4M3))


def _int_feature_rows_layer_norm() -> None:
    rows = [[3, 1, 20, 0], [5, 0, 31, 1]]  # age band, rooms, area, garage
    model = nn.Sequential(nn.LayerNorm(4), nn.Linear(4, 1))
    model(torch.tensor(rows))


def _prelu_head_after_autocast_block() -> None:
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(8, 16))
    head = nn.Sequential(nn.PReLU(), nn.Linear(16, 2))
    with torch.autocast("cpu", dtype=bf16):
        features = backbone(torch.randn(4, 8))
    head(features)


CASES: dict[str, LiveCase] = {
    # a causal mask started with torch.full((T, T), 0) (a Python int, so int64), then filled with -inf
    "causal-mask-full-int-zero-minus-inf": case(_causal_mask_full_int_zero, "half_overflow", "int64",
        grade="correct", grade_at_freeze="correct"),
    # an empty text line's ids made with torch.tensor([]) (float32) concatenated to the <bos> id, into a bf16 embedding
    "empty-token-list-float-cat-embedding": case(_empty_token_list_cat, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # every tensor of the batch dict cast to the model's bf16, the bool padding mask included, used in masked_fill
    "batch-cast-loop-padding-mask-masked-fill": case(_batch_cast_loop_padding_mask, "mask_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 TransformerDecoderLayer given a tgt_mask made with np.triu(...).astype(int)
    "decoder-tgt-mask-numpy-triu-int": case(_decoder_tgt_mask_numpy_triu_int, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a keep-mask from np.tril(np.ones(...)) (float64) passed as SDPA's attn_mask in a bf16 attention layer
    "sdpa-numpy-tril-ones-mask-bf16": case(_sdpa_numpy_tril_ones_mask, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a quick eval loop writing a bf16 model's probabilities with np.savetxt
    "eval-predictions-np-savetxt-bf16": case(_eval_predictions_savetxt, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # images halved with .type(torch.HalfTensor) in the Dataset, the CNN left in fp32
    "images-type-half-tensor-fp32-cnn": case(_images_type_half_tensor, "conv_weight_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a PIL-style uint8 array divided by 255.0 (float64) fed to a bf16 conv stem
    "pil-array-divided-255-f64-bf16-stem": case(_pil_array_divided_by_255, "conv_weight_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Gaussian noise augmentation with numpy added to fp32 images promotes them to float64, into a bf16 MLP
    "numpy-noise-augmentation-f64-bf16-mlp": case(_numpy_noise_augmentation, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # two tips combined: model.half() and a bf16 autocast region; the fp16 LayerNorm gets autocast's fp32 input
    "halved-model-under-bf16-autocast-layernorm": case(_halved_model_under_autocast, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a VAE prior written Normal(torch.tensor(0), torch.tensor(1)): integer loc and scale, sampled
    "vae-prior-normal-int-tensors": case(
        _vae_prior_normal_int_tensors, "integer_operand", "int64", grade="correct", grade_at_freeze="wrong",
        why="At freeze (cd6d50a) castwise gave no_kernel [int64] (low confidence). It read normal_kernel_cpu on an "
            "int64 tensor as an integer weight being initialised (a quantized load), while the int64 here is the "
            "sample of a Normal whose loc and scale were made with torch.tensor of Python ints: an integer operand "
            "where floats are required."),
    # a BERT loaded with torch_dtype=bf16 given the user's own fp32 feature vectors as inputs_embeds
    "bert-bf16-own-fp32-inputs-embeds": case(_bert_bf16_own_fp32_inputs_embeds, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a Wav2Vec2 loaded with torch_dtype=bf16 given a numpy float64 waveform
    "wav2vec2-bf16-numpy-f64-waveform": case(_wav2vec2_bf16_numpy_waveform, "conv_weight_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a GPT-2 causal LM given numpy int32 token ids as input_ids and labels
    "gpt2-numpy-int32-labels": case(_gpt2_numpy_int32_labels, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # a segmentation mask PNG put through the image's /255.0 transform, used as cross_entropy's class map
    "segmentation-mask-divided-255-cross-entropy": case(_segmentation_mask_divided_by_255, "target_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # torch.set_default_dtype(bfloat16) at the top, numpy float32 features through torch.from_numpy
    "default-dtype-bf16-numpy-f32-features": case(_default_dtype_bf16_numpy_features, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an MLP cast with .to(torch.float8_e4m3fn) to "train in fp8", fed fp32 inputs
    "mlp-cast-to-fp8-f32-inputs": case(_mlp_cast_to_fp8, "matmul_dtype", "f32", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # only the embedding table halved to save RAM, its output into an fp32 LSTM
    "embedding-halved-alone-fp32-lstm": case(_embedding_halved_alone, "rnn_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an eval loop storing per-sample correctness (bool) into a torch.zeros buffer by the shuffled indices
    "eval-correct-flags-index-assign-float-buffer": case(_eval_correct_flags_into_float_buffer, "indexed_write_dtype",
                                                         "f32", "bool", grade="correct", grade_at_freeze="correct"),
    # a multi-label classifier halved with .half() on the CPU, trained with MultiLabelMarginLoss
    "multilabel-margin-loss-halved-cpu": case(_multilabel_margin_loss_halved, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 backbone saved with save_pretrained and reloaded without torch_dtype (stays bf16), its own fp32 head
    "reloaded-bf16-backbone-own-fp32-head": case(_reloaded_bf16_backbone_own_fp32_head, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a small video CNN halved with .half() on the CPU, ending in AvgPool3d
    "video-cnn-halved-avg-pool3d-cpu": case(_video_cnn_halved_avg_pool3d, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # label smoothing done in place on binary labels made with torch.tensor of Python ints (int64)
    "binary-labels-smoothed-in-place-int64": case(_binary_labels_smoothed_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # the seq2seq tutorial with only the encoder moved to bf16: the decoder's fp32 attention weights bmm'd with it
    "seq2seq-tutorial-encoder-bf16-attention-bmm": case(_seq2seq_tutorial_encoder_bf16_bmm, "batched_matmul_dtype",
                                                        "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # an MLP and its batch both cast to float8_e4m3fn: the ReLU between the linears
    "fp8-model-and-batch-relu": case(_fp8_model_and_batch, "no_kernel", "float8_e4m3fn",
        grade="correct", grade_at_freeze="correct"),
    # tabular rows of Python ints through torch.tensor (int64) into a LayerNorm-first model
    "int-feature-rows-layernorm-first": case(_int_feature_rows_layer_norm, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # autocast around the backbone call only; the head's PReLU runs after the block on bf16 features
    "prelu-head-after-autocast-block": case(_prelu_head_after_autocast_block, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
