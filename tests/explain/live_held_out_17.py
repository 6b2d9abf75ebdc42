"""Held-out live set 17: porting and legacy code run in low precision (models and training code ported from
TensorFlow/Keras, JAX/Flax or numpy, weights converted from other frameworks' arrays, and old PyTorch idioms: `.data`,
`Variable`-era `.new`, `torch.FloatTensor`, `.type(torch.HalfTensor)`, `torch.cuda.amp` on the CPU, apex-era half
utilities). Defects planted by a helper who never read the rules, written before castwise ran and graded once with the
rules frozen at 41e3601."""

from __future__ import annotations

import json

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "41e3601"

bf16, f16 = torch.bfloat16, torch.float16


def _rng() -> np.random.Generator:
    return np.random.default_rng(17)


# --- weights converted from other frameworks' arrays


def _keras_text_cnn_glove_matrix() -> None:
    vocab, dim = 12, 6
    embedding_matrix = np.zeros((vocab, dim))  # the Keras tutorial's matrix, filled row by row from GloVe
    for index, vector in {1: _rng().normal(size=dim), 2: _rng().normal(size=dim)}.items():
        embedding_matrix[index] = vector
    embedding = nn.Embedding.from_pretrained(torch.from_numpy(embedding_matrix), freeze=True)
    conv = nn.Conv1d(dim, 4, kernel_size=3)
    ids = torch.tensor([[1, 2, 0, 0, 2]])
    conv(embedding(ids).transpose(1, 2))


def _flax_layer_norm_params_f64() -> None:
    # params exported with np.asarray from a run with jax_enable_x64, so every array is float64
    flax_params = {"LayerNorm_0": {"scale": np.ones(8), "bias": np.zeros(8)}}
    norm = nn.LayerNorm(8)
    norm.weight.data = torch.tensor(flax_params["LayerNorm_0"]["scale"])
    norm.bias.data = torch.tensor(flax_params["LayerNorm_0"]["bias"])
    norm(torch.randn(2, 8))


def _bn_stats_recomputed_with_numpy() -> None:
    features = _rng().normal(size=(64, 4))  # the training set's features as a float64 array (pandas' default)
    bn = nn.BatchNorm1d(4)
    bn.running_mean.data = torch.from_numpy(features.mean(0))
    bn.running_var.data = torch.from_numpy(features.var(0))
    bn.eval()(torch.randn(3, 4))


def _keras_lstm_weights_from_json() -> None:
    hidden, inputs = 3, 4
    rng = _rng()
    exported = json.dumps({"kernel": rng.normal(size=(inputs, 4 * hidden)).round(4).tolist(),
                           "recurrent_kernel": rng.normal(size=(hidden, 4 * hidden)).round(4).tolist(),
                           "bias": np.zeros(4 * hidden).tolist()})
    weights = {name: np.array(value) for name, value in json.loads(exported).items()}
    lstm = nn.LSTM(inputs, hidden, batch_first=True)
    lstm.weight_ih_l0.data = torch.from_numpy(weights["kernel"].T)
    lstm.weight_hh_l0.data = torch.from_numpy(weights["recurrent_kernel"].T)
    lstm.bias_ih_l0.data = torch.from_numpy(weights["bias"])
    lstm.bias_hh_l0.data.zero_()
    lstm(torch.randn(2, 5, inputs))


def _caffe_biases_into_bf16_model() -> None:
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU()).to(bf16)
    blobs = {"conv1": [_rng().normal(size=(4, 3, 3, 3)).astype(np.float32), np.zeros(4, dtype=np.float32)]}
    conv = model[0]
    conv.weight.data.copy_(torch.from_numpy(blobs["conv1"][0]))
    conv.bias.data = torch.from_numpy(blobs["conv1"][1])
    model(torch.randn(1, 3, 8, 8).to(bf16))


class _TinyTextClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embeddings = nn.Embedding(20, 8)
        self.encoder = nn.Linear(8, 8)
        self.classifier = nn.Linear(8, 3)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.tanh(self.encoder(self.embeddings(ids))).mean(1))


def _tf_checkpoint_data_assigned_into_half_model() -> None:
    model = _TinyTextClassifier().half()  # built in fp16 to save memory before converting
    rng = _rng()
    tf_variables = {"bert/embeddings/word_embeddings": rng.normal(size=(20, 8)).astype(np.float32),
                    "bert/encoder/dense/kernel": rng.normal(size=(8, 8)).astype(np.float32),
                    "bert/encoder/dense/bias": np.zeros(8, dtype=np.float32)}
    pointers = {"bert/embeddings/word_embeddings": model.embeddings.weight,
                "bert/encoder/dense/kernel": model.encoder.weight, "bert/encoder/dense/bias": model.encoder.bias}
    for name, array in tf_variables.items():
        if name.endswith("kernel"):
            array = np.transpose(array)
        pointers[name].data = torch.from_numpy(array)
    model(torch.tensor([[1, 4, 7]]))


# --- TensorFlow/Keras and JAX/Flax semantics ported by hand


class _KerasMixedConv2D(nn.Module):
    """Keras mixed_float16 port: variables kept float32, inputs cast to the compute dtype."""

    def __init__(self, channels_in: int, channels_out: int) -> None:
        super().__init__()
        self.kernel = nn.Parameter(torch.randn(channels_out, channels_in, 3, 3) * 0.1)
        self.bias = nn.Parameter(torch.zeros(channels_out))
        self.compute_dtype = f16

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x.to(self.compute_dtype), self.kernel, self.bias, padding=1)


def _keras_mixed_float16_kernel_not_cast() -> None:
    _KerasMixedConv2D(3, 4)(torch.randn(1, 3, 8, 8))


class _FlaxDense(nn.Module):
    """Flax Dense port: params in param_dtype (fp32), the computation in dtype (bf16)."""

    def __init__(self, features_in: int, features_out: int) -> None:
        super().__init__()
        self.kernel = nn.Parameter(torch.randn(features_in, features_out) * 0.1)
        self.dtype = bf16

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.kernel.to(self.dtype)


def _flax_dense_input_not_promoted() -> None:
    _FlaxDense(4, 3)(torch.randn(2, 4))


class _KerasNormalization(nn.Module):
    """tf.keras.layers.Normalization port: mean and variance from adapt(), kept as plain attributes."""

    def __init__(self, data: np.ndarray) -> None:
        super().__init__()
        self.mean = torch.from_numpy(data.mean(0))
        self.variance = torch.from_numpy(data.var(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) / torch.sqrt(self.variance + 1e-7)


def _keras_normalization_adapted_with_numpy() -> None:
    model = nn.Sequential(_KerasNormalization(_rng().normal(size=(50, 4))), nn.Linear(4, 2)).to(bf16)
    model(torch.randn(3, 4).to(bf16))


def _keras_ocr_ctc_float_input_length() -> None:
    batch, steps = 2, 8
    y_pred = torch.randn(steps, batch, 5).log_softmax(2)
    labels = torch.tensor([[1, 2, 3], [2, 2, 4]])
    input_length = np.ones((batch, 1)) * steps  # as the Keras OCR example builds it
    label_length = np.array([[3], [3]])
    F.ctc_loss(y_pred, labels, torch.from_numpy(input_length).squeeze(1), torch.from_numpy(label_length).squeeze(1))


VERY_NEGATIVE_NUMBER = -1e30  # the TF repos' constant for masked logits


def _tf_very_negative_number_in_half() -> None:
    logits = torch.randn(2, 6).half()
    mask = torch.tensor([[True] * 4 + [False] * 2, [True] * 6])
    torch.where(mask, logits, torch.full_like(logits, VERY_NEGATIVE_NUMBER)).softmax(-1)


def _keras_i3d_average_pooling3d_bf16() -> None:
    model = nn.Sequential(nn.Conv3d(3, 4, 3, padding=1), nn.ReLU(), nn.AvgPool3d((1, 2, 2))).to(bf16)
    model(torch.randn(1, 3, 4, 8, 8).to(bf16))


def _keras_squared_hinge_bf16() -> None:
    head = nn.Linear(6, 4).to(bf16)
    criterion = nn.MultiMarginLoss(p=2)  # Keras' squared multi-class hinge
    criterion(head(torch.randn(3, 6).to(bf16)), torch.tensor([0, 3, 1]))


def _tf_per_image_standardization_uint8() -> None:
    image = torch.from_numpy(_rng().integers(0, 256, size=(3, 8, 8), dtype=np.uint8))
    (image - image.mean()) / image.std()


def _jax_take_along_axis_int32() -> None:
    scores = torch.randn(2, 6)
    order = np.argsort(-scores.numpy(), axis=1)[:, :3].astype(np.int32)  # jnp.argsort's int32 indices
    torch.take_along_dim(scores, torch.from_numpy(order), dim=1)


def _numpy_item_similarity_int_ratings() -> None:
    ratings = torch.from_numpy(np.array([[5, 3, 0, 1], [4, 0, 0, 1], [1, 1, 0, 5], [0, 1, 5, 4]]))
    items = ratings.T
    F.cosine_similarity(items[:, None, :], items[None, :, :], dim=-1)


def _numpy_ridge_probe_solve() -> None:
    features, targets = torch.randn(20, 4), torch.randn(20, 2)
    regulariser = 1e-2 * torch.from_numpy(np.eye(4))
    torch.linalg.solve(features.T @ features + regulariser, features.T @ targets)


class _NumpyMaskedAttention(nn.Module):
    """Attention ported from a numpy reference: the causal mask kept as a numpy array."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.mask = np.tril(np.ones((size, size)))
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.proj(x) @ x.transpose(-1, -2)
        scores = scores * self.mask + (1 - self.mask) * -1e4
        return scores.softmax(-1) @ x


def _numpy_mask_times_bf16_scores() -> None:
    with torch.no_grad():  # served
        _NumpyMaskedAttention(4).to(bf16)(torch.randn(1, 4, 8).to(bf16))


def _jax_style_query_upcast_sdpa() -> None:
    q, k, v = (torch.randn(1, 2, 4, 8).to(bf16) for _ in range(3))
    F.scaled_dot_product_attention(q.to(torch.float32), k, v)  # `query.astype(jnp.float32)` kept from the JAX code


class _KerasLazyGRU(nn.Module):
    """Keras-style layer that builds its weights on the first call (build())."""

    def __init__(self, units: int) -> None:
        super().__init__()
        self.units = units
        self.cell: nn.GRU | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.cell is None:
            self.cell = nn.GRU(x.shape[-1], self.units, batch_first=True)
        return self.cell(x)[0]


def _keras_lazy_build_after_cast() -> None:
    model = nn.Sequential(nn.Linear(5, 4), _KerasLazyGRU(3)).to(bf16)
    model(torch.randn(2, 6, 5).to(bf16))


def _keras_bce_epsilon_in_half() -> None:
    logits = nn.Parameter(torch.tensor([30.0, -2.0]).half())
    labels = torch.tensor([1.0, 0.0]).half()
    with torch.autograd.detect_anomaly():
        probs = torch.sigmoid(logits).clamp(1e-7, 1 - 1e-7)  # K.epsilon() clipping
        loss = -(labels * torch.log(probs) + (1 - labels) * torch.log(1 - probs)).mean()
        loss.backward()


# --- old PyTorch idioms


def _cuda_amp_autocast_on_cpu() -> None:
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
    with torch.cuda.amp.autocast():
        model(torch.randn(4, 6).half())


def _fp32_to_fp16(value: object) -> object:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.half()
    if isinstance(value, (tuple, list)):
        return type(value)(_fp32_to_fp16(item) for item in value)
    return value


class _FP16Module(nn.Module):
    """A Megatron/apex-era wrapper: the module halved, its positional inputs converted."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module.half()

    def forward(self, *inputs: object) -> object:
        return self.module(*(_fp32_to_fp16(item) for item in inputs))


class _DictBatchModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mlp = nn.Linear(6, 2)

    def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.mlp(batch["features"])


def _fp16_module_dict_batch() -> None:
    _FP16Module(_DictBatchModel())({"features": torch.randn(3, 6), "labels": torch.tensor([0, 1, 1])})


class _TutorialAttention(nn.Module):
    """The seq2seq tutorial's multi-head attention: its scale a torch.FloatTensor kept as a plain attribute."""

    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.scale = torch.sqrt(torch.FloatTensor([self.head_dim]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        energy = torch.matmul(q, k.permute(0, 1, 3, 2)) / self.scale
        return torch.matmul(torch.softmax(energy, dim=-1), v)


def _tutorial_attention_floattensor_scale() -> None:
    _TutorialAttention(8, 2).to(bf16)(torch.randn(1, 4, 8).to(bf16))


def _seq2seq_tutorial_encoder_outputs_zeros() -> None:
    hidden, max_length = 6, 5
    encoder = nn.GRU(hidden, hidden).to(bf16)
    attn = nn.Linear(2 * hidden, max_length).to(bf16)
    embedded = torch.randn(3, 1, hidden).to(bf16)
    encoder_outputs = torch.zeros(max_length, hidden)
    state = torch.zeros(1, 1, hidden).to(bf16)
    for step in range(embedded.size(0)):
        output, state = encoder(embedded[step][None], state)
        encoder_outputs[step] = output[0, 0]
    attn_weights = F.softmax(attn(torch.cat((embedded[0], state[0]), 1)), dim=1)
    torch.bmm(attn_weights.unsqueeze(0), encoder_outputs.unsqueeze(0))


class _LegacyLanguageModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Embedding(10, 4)
        self.rnn = nn.GRU(4, 3, batch_first=True)

    def init_hidden(self, input: torch.Tensor) -> torch.Tensor:
        return input.data.new(1, input.size(0), 3).zero_()

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return self.rnn(self.encoder(input), self.init_hidden(input))[0]


def _init_hidden_from_token_ids() -> None:
    _LegacyLanguageModel()(torch.tensor([[1, 2, 3], [4, 5, 6]]))


class _PositionalEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("position_ids", torch.arange(6)[None])
        self.position_embeddings = nn.Embedding(6, 4)
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x + self.position_embeddings(self.position_ids[:, : x.size(1)]))


def _module_type_half_tensor() -> None:
    model = _PositionalEncoder().type(torch.HalfTensor)
    model(torch.randn(1, 6, 4).type(torch.HalfTensor))


def _legacy_feature_bank_under_autocast() -> None:
    encoder = nn.Linear(8, 4)
    bank = torch.FloatTensor(10, 4).zero_()
    with torch.no_grad(), torch.cpu.amp.autocast():
        for indices in (torch.tensor([0, 1, 2]), torch.tensor([3, 4, 5])):
            bank[indices] = encoder(torch.randn(3, 8))


def _half_check_keyed_to_cuda() -> None:
    def to_float(tensor: torch.Tensor) -> torch.Tensor:  # apex-era helper
        return tensor.float() if tensor.type() == "torch.cuda.HalfTensor" else tensor

    acoustic = nn.Conv1d(16, 8, 3, padding=1).half()
    upsampler = nn.ConvTranspose1d(8, 8, 4, stride=2)  # the vocoder kept in fp32
    mel = acoustic(torch.randn(1, 16, 10).half())
    upsampler(to_float(mel))


def _apex_master_params_native_scaler() -> None:
    model = nn.Linear(3, 2).half()
    master_params = [param.detach().clone().float().requires_grad_() for param in model.parameters()]
    optimizer = torch.optim.SGD(master_params, lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    loss = model(torch.randn(4, 3).half()).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # the apex code copied the fp16 grads to the master params only after this point


def _federated_average_grad_data() -> None:
    model = nn.Linear(4, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    rng = _rng()
    clients = [[rng.normal(size=tuple(p.shape)).astype(np.float32) for p in model.parameters()] for _ in range(2)]
    sizes = [30, 70]
    for param, grads in zip(model.parameters(), zip(*clients, strict=True), strict=True):
        param.grad = torch.zeros_like(param)
        param.grad.data = torch.from_numpy(np.average(np.stack(grads), axis=0, weights=sizes))
    optimizer.step()


CASES: dict[str, LiveCase] = {
    # a Keras text CNN: the GloVe matrix built with np.zeros (float64) loaded with Embedding.from_pretrained
    "keras-text-cnn-glove-matrix-f64": case(_keras_text_cnn_glove_matrix, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Flax LayerNorm scale/bias exported from a jax_enable_x64 run put into an fp32 LayerNorm with .data
    "flax-layer-norm-params-f64": case(_flax_layer_norm_params_f64, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # BatchNorm statistics recomputed with numpy on float64 features and assigned with .data
    "bn-stats-recomputed-numpy-f64": case(_bn_stats_recomputed_with_numpy, "norm_param_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Keras LSTM weights exported as JSON lists: np.array makes them float64, assigned to an fp32 LSTM with .data
    "keras-lstm-json-weights-f64": case(_keras_lstm_weights_from_json, "rnn_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # Caffe blobs into a model already cast to bf16: weights with copy_ (cast), biases with .data (stay fp32)
    "caffe-bias-data-into-bf16-conv": case(_caffe_biases_into_bf16_model, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a TF checkpoint converted with pointer.data = torch.from_numpy(array) into a model built in fp16
    "tf-checkpoint-data-into-half-model": case(_tf_checkpoint_data_assigned_into_half_model, "matmul_dtype", "f32",
                                               "f16", grade="correct", grade_at_freeze="correct"),
    # a Keras mixed_float16 Conv2D port casting the input to the compute dtype but not the float32 kernel
    "keras-mixed-float16-kernel-not-cast": case(_keras_mixed_float16_kernel_not_cast, "conv_weight_dtype", "f16",
                                                "f32", grade="correct", grade_at_freeze="wrong",
        why=('At freeze (41e3601) castwise gave conv_bias_dtype [f16, f32] (high confidence). The message this CPU'
             ' gives names only the bias, and the layer is a Keras-style module calling F.conv2d with its own fp32'
             ' kernel and bias (no nn.Conv2d whose weight could be seen), so the fp32 kernel, the real odd one out'
             ' with the bias, went unnoticed and the bias alone was blamed.')),
    # a Flax Dense(dtype=bf16) port casting the kernel to dtype but not the input
    "flax-dense-input-not-promoted": case(_flax_dense_input_not_promoted, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a Keras Normalization port whose adapt() statistics come from numpy (float64) as plain attributes, bf16 model
    "keras-normalization-numpy-stats": case(_keras_normalization_adapted_with_numpy, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the Keras OCR example's input_length (np.ones * T, float64) passed to ctc_loss
    "keras-ocr-ctc-float-input-length": case(_keras_ocr_ctc_float_input_length, "target_dtype", cause=("length",),
        grade="correct", grade_at_freeze="not_recognised",
        why=('At freeze (41e3601) castwise gave nothing. ctc_loss\'s "input_lengths must be integral" names no '
             "dtype and no rule reads a loss's integer length arguments given as floats.")),
    # TF's VERY_NEGATIVE_NUMBER (-1e30) masking fp16 logits through full_like
    "tf-very-negative-number-half": case(_tf_very_negative_number_in_half, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a Keras I3D port's AveragePooling3D in a bf16 model on the CPU
    "keras-i3d-avg-pool3d-bf16": case(_keras_i3d_average_pooling3d_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Keras' squared hinge ported as MultiMarginLoss(p=2) on bf16 logits
    "keras-squared-hinge-multi-margin-bf16": case(_keras_squared_hinge_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # tf.image.per_image_standardization ported by hand on a uint8 image (TF casts to float, torch does not)
    "tf-per-image-standardization-uint8": case(_tf_per_image_standardization_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # jnp.take_along_axis ported to take_along_dim with JAX's int32 argsort indices
    "jax-take-along-axis-int32": case(_jax_take_along_axis_int32, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # item-item cosine similarity ported from numpy over an integer ratings matrix
    "numpy-item-similarity-int-ratings": case(_numpy_item_similarity_int_ratings, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a closed-form ridge probe ported from numpy: the np.eye regulariser makes A float64, the right side fp32
    "numpy-ridge-probe-solve-f64": case(_numpy_ridge_probe_solve, "op_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # attention ported from numpy keeps its causal mask as a numpy array, multiplied with bf16 scores when serving
    "numpy-mask-times-bf16-scores": case(_numpy_mask_times_bf16_scores, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # JAX code's query.astype(float32) kept when porting to scaled_dot_product_attention with bf16 keys/values
    "jax-query-upcast-sdpa": case(_jax_style_query_upcast_sdpa, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a Keras-style layer building its GRU on the first call, after the model was cast to bf16
    "keras-lazy-build-gru-after-cast": case(_keras_lazy_build_after_cast, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a Keras-style BCE clipped with K.epsilon() in an fp16 model: 1 - 1e-7 is 1 in fp16, NaN under anomaly mode
    "keras-bce-epsilon-half-anomaly": case(_keras_bce_epsilon_in_half, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # torch.cuda.amp.autocast() kept on a CPU machine (disabled there) with inputs halved for it
    "cuda-amp-autocast-on-cpu-half-input": case(_cuda_amp_autocast_on_cpu, "matmul_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a Megatron/apex-style FP16Module converting tuple inputs only: a dict batch stays fp32
    "fp16-module-dict-batch": case(_fp16_module_dict_batch, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the seq2seq tutorial's attention scale torch.sqrt(torch.FloatTensor([head_dim])), a plain attribute, in bf16
    "tutorial-attention-floattensor-scale": case(_tutorial_attention_floattensor_scale, "matmul_dtype", "f32",
                                                 "bf16", grade="correct", grade_at_freeze="wrong",
        why=('At freeze (41e3601) castwise gave matmul_dtype [f32, bf16] (high confidence). The message ("expected'
             ' scalar type Float but found BFloat16") names no op and the line calls torch.matmul, whose 4-D '
             'operands make it a batched matmul; castwise took the name matmul for a 2-D matrix multiply. After '
             'grading, the expectation was corrected from batched_matmul_dtype to matmul_dtype, the corpus\'s '
             'convention for `@`, einsum and torch.matmul on 4-D tensors (held_out_2 swin-yolov5-3, pykan-105); '
             'grade_at_freeze stays wrong.')),
    # the seq2seq tutorial's encoder_outputs = torch.zeros(max_length, hidden) for a bf16 attention decoder
    "seq2seq-tutorial-encoder-outputs-zeros": case(_seq2seq_tutorial_encoder_outputs_zeros, "batched_matmul_dtype",
                                                   "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a legacy init_hidden built with input.data.new(...) where input is the token ids
    "init-hidden-from-token-ids-new": case(_init_hidden_from_token_ids, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # model.type(torch.HalfTensor) casts the integer position_ids buffer too (.half() would not)
    "module-type-half-tensor-position-ids": case(_module_type_half_tensor, "index_tensor_dtype", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a kNN feature bank made with torch.FloatTensor(n, d) written with features from torch.cpu.amp.autocast
    "legacy-feature-bank-cpu-autocast": case(_legacy_feature_bank_under_autocast, "indexed_write_dtype", "f32",
                                             "bf16", grade="correct", grade_at_freeze="correct"),
    # an apex-era helper converting only "torch.cuda.HalfTensor" leaves a CPU fp16 mel for an fp32 vocoder upsampler
    "half-check-keyed-to-cuda-vocoder": case(_half_check_keyed_to_cuda, "conv_weight_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # apex-era fp32 master params in the optimizer, stepped with torch's GradScaler before their grads are copied
    "apex-master-params-native-scaler": case(_apex_master_params_native_scaler, "loss_scale",
        grade="correct", grade_at_freeze="correct"),
    # federated averaging sets p.grad.data from np.average (float64), then Adam steps
    "federated-average-grad-data-f64": case(_federated_average_grad_data, "lerp_dtype", "f32", "f64",
                                            culprit=("grad",), grade="correct", grade_at_freeze="correct"),
}
