"""Held-out live set 11: a newcomer's first hour with PyTorch and low precision (tutorial MLPs and small CNNs on
MNIST-like numpy data, regressions on pandas-like float64 columns, text classification with a vocabulary, legacy
constructors, ``set_default_dtype``, ``.half()`` models on the CPU, loss targets, metrics, first tries at autocast and
GradScaler, ``torch.save``). Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at f0752d3."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f0752d3"

bf16, f16 = torch.bfloat16, torch.float16

_VOCAB = {"<pad>": 0, "<unk>": 1, "the": 2, "movie": 3, "was": 4, "great": 5, "awful": 6, "plot": 7, "acting": 8}
_REVIEWS = [["the", "movie", "was", "great"], ["awful", "plot"], ["the", "acting", "was", "awful"]]


def _digits(n: int = 8) -> np.ndarray:
    """MNIST-like images made in numpy: ``n`` 28x28 grey images in [0, 1), float64 as numpy makes them."""
    return np.random.default_rng(0).random((n, 1, 28, 28))


def _token_ids(review: list[str]) -> list[int]:
    return [_VOCAB.get(word, _VOCAB["<unk>"]) for word in review]


class _SmallCNN(nn.Module):
    """The tutorial's MNIST CNN: two conv blocks and a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 7 * 7, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def _mlp(hidden: int = 32, inputs: int = 784, classes: int = 10) -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, classes))


# --- data made in numpy, Python lists and legacy constructors --------------------------------------------------------

class _DigitsDataset(torch.utils.data.Dataset):
    """A Dataset written from the tutorial: it hands back numpy rows, which the default collate turns into tensors."""

    def __init__(self) -> None:
        self.images = _digits().reshape(8, -1)
        self.labels = np.arange(8) % 10

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.int64]:
        return self.images[i], self.labels[i]


def _dataloader_numpy_float64_mlp() -> None:
    torch.manual_seed(0)
    loader = torch.utils.data.DataLoader(_DigitsDataset(), batch_size=4)
    model = _mlp()
    for images, labels in loader:
        F.cross_entropy(model(images), labels).backward()


def _regression_double_columns() -> None:
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    columns = {"sqft": rng.uniform(500, 3000, 16), "rooms": rng.integers(1, 6, 16).astype(float),
               "age": rng.uniform(0, 80, 16)}  # what df[["sqft", "rooms", "age"]] holds: float64 columns
    features = torch.tensor(np.column_stack(list(columns.values()))).double()  # "double, to keep pandas' precision"
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    model(features)


def _scratch_logreg_numpy_weights() -> None:
    images = torch.from_numpy(_digits().reshape(8, -1).astype(np.float32))
    weights = torch.from_numpy(np.random.default_rng(0).normal(0, 0.01, (784, 10))).requires_grad_()
    bias = torch.zeros(10, requires_grad=True)
    images @ weights + bias  # logistic regression written from scratch


def _default_float64_floattensor_images() -> None:
    torch.set_default_dtype(torch.float64)  # "for more precision", at the top of the notebook
    try:
        torch.manual_seed(0)
        model = _SmallCNN()
        images = torch.FloatTensor(_digits().tolist())  # the legacy constructor is always float32
        model(images)
    finally:
        torch.set_default_dtype(torch.float32)


def _default_float16_lstm_numpy_sequences() -> None:
    torch.set_default_dtype(torch.float16)  # "train in half precision"
    try:
        torch.manual_seed(0)
        lstm = nn.LSTM(input_size=3, hidden_size=8, batch_first=True)
        sequences = np.random.default_rng(0).random((4, 10, 3)).astype(np.float32)
        lstm(torch.from_numpy(sequences))
    finally:
        torch.set_default_dtype(torch.float32)


def _padded_batch_np_zeros_ids() -> None:
    torch.manual_seed(0)
    batch = np.zeros((len(_REVIEWS), max(map(len, _REVIEWS))))  # np.zeros: float64 by default
    for row, review in enumerate(_REVIEWS):
        ids = _token_ids(review)
        batch[row, :len(ids)] = ids
    embedding = nn.Embedding(len(_VOCAB), 16, padding_idx=0)
    embedding(torch.from_numpy(batch))


def _embedding_bag_legacy_tensor_ids() -> None:
    torch.manual_seed(0)
    ids = [_token_ids(review) for review in _REVIEWS]
    text = torch.Tensor([i for review in ids for i in review])  # torch.Tensor(list): float32
    offsets = torch.tensor([0] + [len(review) for review in ids[:-1]]).cumsum(0)
    model = nn.EmbeddingBag(len(_VOCAB), 16, mode="mean")
    model(text, offsets)


def _one_hot_int32_labels() -> None:
    labels = np.array([3, 1, 4, 1, 5, 9, 2, 6]).astype(np.int32)  # "int32 is plenty for 10 classes"
    F.one_hot(torch.from_numpy(labels), num_classes=10).float()  # one-hot targets for an MSE loss


def _csv_rows_as_strings() -> None:
    text = "sqft,rooms,price\n1400,3,245000\n2100,4,312000\n900,2,150500\n"
    rows = list(csv.reader(io.StringIO(text)))[1:]
    data = np.array(rows)  # every field is still a string
    torch.from_numpy(data[:, :2])


def _scratch_regression_int_weights() -> None:
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    w = torch.tensor(0, requires_grad=True)  # zeros written as 0, not 0.0
    (w * x).sum().backward()


def _legacy_long_tensor_pixels_conv() -> None:
    torch.manual_seed(0)
    pixels = (_digits(2) * 255).astype(np.int64).tolist()
    images = torch.LongTensor(pixels)  # "pixels are integers"
    _SmallCNN()(images)


def _python_list_images_resized() -> None:
    rows = [[[[(r * 28 + c) % 256 for c in range(28)] for r in range(28)]] for _ in range(2)]
    images = torch.tensor(rows)  # nested Python lists of ints: int64
    F.interpolate(images, size=(32, 32), mode="bilinear", align_corners=False)  # LeNet wants 32x32


def _tabular_type_double_batchnorm() -> None:
    torch.manual_seed(0)
    features = torch.from_numpy(np.random.default_rng(0).random((8, 5)).astype(np.float32))
    features = features.type(torch.DoubleTensor)
    model = nn.Sequential(nn.BatchNorm1d(5), nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
    model(features)


# --- half models on the CPU and saving -------------------------------------------------------------------------------

def _half_tabular_model_float_features() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 2)).half()  # "half is faster"
    features = torch.from_numpy(np.random.default_rng(0).random((8, 5)).astype(np.float32))
    model(features)


def _save_half_state_dict_in_place() -> None:
    torch.manual_seed(0)
    model = _SmallCNN()
    images = torch.from_numpy(_digits().astype(np.float32))
    with tempfile.TemporaryDirectory() as folder:
        torch.save(model.half().state_dict(), Path(folder) / "cnn_small.pt")  # a smaller file; .half() is in place
    with torch.no_grad():
        model(images)  # the validation pass that follows


def _cached_half_images_mlp() -> None:
    torch.manual_seed(0)
    images = torch.from_numpy(_digits().astype(np.float32))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "train_images.pt"
        torch.save(images.half(), path)  # halve the cache on disk
        cached = torch.load(path, weights_only=True)
    _mlp()(cached)


def _lrn_alexnet_half_cpu() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.LocalResponseNorm(4), nn.MaxPool2d(2)).half()
    model(torch.from_numpy(_digits(2)).half())


def _rrelu_half_cpu() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 32), nn.RReLU(), nn.Linear(32, 10)).half()
    model.train()
    model(torch.from_numpy(_digits(2)).half())


def _knn_accuracy_pdist_half() -> None:
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Flatten(), nn.Linear(784, 16)).half()
    with torch.no_grad():
        embeddings = encoder(torch.from_numpy(_digits()).half())
        F.pdist(embeddings)  # pairwise distances for a nearest-neighbour accuracy


def _default_float16_linspace_prices() -> None:
    torch.set_default_dtype(torch.float16)
    try:
        sizes = torch.linspace(500, 3000, 20)
        prices = torch.linspace(50_000, 450_000, 20)  # a toy house-price regression
        torch.stack([sizes, prices], 1)
    finally:
        torch.set_default_dtype(torch.float32)


# --- loss targets ----------------------------------------------------------------------------------------------------

def _bce_float64_label_column() -> None:
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    features = torch.from_numpy(rng.random((8, 4)).astype(np.float32))
    labels = torch.from_numpy(rng.integers(0, 2, 8).astype(float))  # df["churned"]: float64 after fillna
    model = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())
    nn.BCELoss()(model(features).squeeze(1), labels)


def _cross_entropy_float64_label_column() -> None:
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    features = torch.from_numpy(rng.random((8, 4)).astype(np.float32))
    species = torch.from_numpy(np.array([0.0, 1.0, 2.0, 1.0, 0.0, 2.0, 2.0, 1.0]))  # a label column read as float64
    model = nn.Linear(4, 3)
    nn.CrossEntropyLoss()(model(features), species)


def _multi_margin_legacy_tensor_labels() -> None:
    torch.manual_seed(0)
    labels = torch.Tensor([3, 1, 4, 1, 5, 9, 2, 6])  # torch.Tensor(list): float32
    scores = _mlp()(torch.from_numpy(_digits().astype(np.float32)))
    nn.MultiMarginLoss()(scores, labels)  # "a multi-class SVM"


def _kl_div_one_hot_targets() -> None:
    torch.manual_seed(0)
    labels = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6])
    log_probs = F.log_softmax(_mlp()(torch.from_numpy(_digits().astype(np.float32))), dim=1)
    nn.KLDivLoss(reduction="batchmean")(log_probs, F.one_hot(labels, 10))


def _cross_entropy_int8_labels() -> None:
    torch.manual_seed(0)
    labels = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int8)  # stored as int8 to save memory
    logits = _mlp()(torch.from_numpy(_digits().astype(np.float32)))
    F.cross_entropy(logits, torch.from_numpy(labels))


# --- metrics ---------------------------------------------------------------------------------------------------------

def _accuracy_true_divide_in_place() -> None:
    torch.manual_seed(0)
    logits = torch.randn(8, 10)
    labels = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6])
    correct = (logits.argmax(1) == labels).sum()
    correct /= len(labels)


def _confusion_matrix_index_put_ones() -> None:
    torch.manual_seed(0)
    labels = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6])
    predictions = torch.randn(8, 10).argmax(1)
    matrix = torch.zeros(10, 10, dtype=torch.long)
    matrix.index_put_((labels, predictions), torch.ones(len(labels)), accumulate=True)


def _masked_mean_byte_tensor_mask() -> None:
    torch.manual_seed(0)
    ids = [_token_ids(review) for review in _REVIEWS]
    width = max(map(len, ids))
    padded = torch.LongTensor([row + [0] * (width - len(row)) for row in ids])
    padding = torch.ByteTensor([[0] * len(row) + [1] * (width - len(row)) for row in ids])
    embedded = nn.Embedding(len(_VOCAB), 16, padding_idx=0)(padded)
    embedded.masked_fill(padding.unsqueeze(-1), 0.0).sum(1)


# --- first tries at autocast and GradScaler on the CPU ---------------------------------------------------------------

def _autocast_head_outside_block() -> None:
    torch.manual_seed(0)
    backbone, head = _SmallCNN(), nn.Linear(10, 2)
    images = torch.from_numpy(_digits().astype(np.float32))
    with torch.autocast("cpu", dtype=bf16):
        features = backbone(images)
    logits = head(features)  # one indent short
    F.cross_entropy(logits, torch.zeros(8, dtype=torch.long))


def _grad_scaler_without_scaler_step() -> None:
    torch.manual_seed(0)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    images = torch.from_numpy(_digits().astype(np.float32))
    with torch.autocast("cpu", dtype=f16):
        loss = F.cross_entropy(model(images), torch.arange(8))
    scaler.scale(loss).backward()
    optimizer.step()  # the old step kept
    scaler.update()


def _grad_scaler_clip_after_step() -> None:
    torch.manual_seed(0)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    images = torch.from_numpy(_digits().astype(np.float32))
    with torch.autocast("cpu", dtype=f16):
        loss = F.cross_entropy(model(images), torch.arange(8))
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.unscale_(optimizer)  # clipping added after the step
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.update()


CASES: dict[str, LiveCase] = {
    # a tutorial Dataset hands back numpy float64 rows; the default collate keeps float64 for an fp32 MLP
    "dataloader-numpy-float64-mlp": case(_dataloader_numpy_float64_mlp, "matmul_dtype", "f64", "f32",
                                         fix=("float",),
        grade="correct", grade_at_freeze="correct"),
    # a house-price regression: the float64 columns turned into tensors with .double() for an fp32 model
    "regression-double-columns": case(_regression_double_columns, "matmul_dtype", "f64", "f32", fix=("float",),
        grade="correct", grade_at_freeze="correct"),
    # logistic regression from scratch, its weights drawn with numpy (float64), fp32 images
    "scratch-logreg-numpy-weights": case(_scratch_logreg_numpy_weights, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # set_default_dtype(float64) at the top, images made with the legacy torch.FloatTensor (always float32)
    "default-float64-floattensor-images": case(_default_float64_floattensor_images, "conv_weight_dtype", "f32",
                                               "f64",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave conv_bias_dtype [f32, f64] (high confidence). The whole conv (weight and bias) was made float64 by set_default_dtype while the legacy FloatTensor input is float32; torch's CPU message names only the bias, and castwise read it as a bias-only mismatch and blamed numpy data instead of the default dtype."),
    # set_default_dtype(float16) to "train in half", an LSTM fed float32 numpy sequences
    "default-float16-lstm-numpy-sequences": case(_default_float16_lstm_numpy_sequences, "rnn_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # a padded batch of token ids made with np.zeros (float64) for an embedding
    "padded-batch-np-zeros-ids": case(_padded_batch_np_zeros_ids, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # the text-classification tutorial's EmbeddingBag given ids made with torch.Tensor(list) (float32)
    "embedding-bag-legacy-tensor-ids": case(_embedding_bag_legacy_tensor_ids, "index_tensor_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # labels stored as numpy int32, one-hot encoded with F.one_hot
    "one-hot-int32-labels": case(_one_hot_int32_labels, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a CSV read with the csv module and np.array: every field a string
    "csv-rows-as-strings": case(_csv_rows_as_strings, "numpy_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (f0752d3) castwise gave nothing. torch.from_numpy's TypeError on a numpy str_ array (a CSV read as strings) names no torch dtype: it is numpy's dtype torch cannot take (the reverse of bf16/fp8 into numpy), and castwise did not recognise it."),
    # a from-scratch regression weight initialised with torch.tensor(0, requires_grad=True)
    "scratch-regression-int-weight": case(_scratch_regression_int_weights, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # images built with the legacy torch.LongTensor from integer pixel lists, into a CNN
    "legacy-long-tensor-pixels-conv": case(_legacy_long_tensor_pixels_conv, "integer_operand", "int64",
                                           fix=("float",),
        grade="correct", grade_at_freeze="correct"),
    # images from nested Python lists of ints (int64) resized bilinearly to LeNet's 32x32
    "python-list-images-resized": case(_python_list_images_resized, "integer_operand", "int64", fix=("float",),
        grade="correct", grade_at_freeze="correct"),
    # tabular features turned double with .type(torch.DoubleTensor) before a BatchNorm1d-first model
    "tabular-type-double-batchnorm": case(_tabular_type_double_batchnorm, "norm_param_dtype", fix=("float",),
        grade="correct", grade_at_freeze="partly",
        why="At freeze (f0752d3) castwise gave norm_param_dtype [] (high confidence). The kind is right but batch_norm's CPU message names no dtype, and castwise's cause and fix assume a 16-bit norm (keep norms in fp32) instead of telling that the input was made float64 by .type(torch.DoubleTensor) and must go back to float."),
    # a tabular MLP halved with .half() on the CPU, fed float32 features
    "half-tabular-model-float-features": case(_half_tabular_model_float_features, "matmul_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # torch.save(model.half().state_dict()) for a smaller file; .half() halved the model in place before validation
    "save-half-state-dict-in-place": case(_save_half_state_dict_in_place, "conv_weight_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave conv_bias_dtype [f32, f16] (high confidence). .half() inside torch.save halved the whole conv (weight and bias) in place while the input stays float32; torch's CPU message names only the bias, and castwise read it as a bias-only mismatch."),
    # a training-image cache written halved with torch.save, loaded and fed to an fp32 MLP
    "cached-half-images-mlp": case(_cached_half_images_mlp, "matmul_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an AlexNet-style CNN with LocalResponseNorm halved and run on the CPU
    "lrn-alexnet-half-cpu": case(_lrn_alexnet_half_cpu, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # an MLP with RReLU halved and trained on the CPU
    "rrelu-half-cpu": case(_rrelu_half_cpu, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # nearest-neighbour accuracy with F.pdist on a halved encoder's embeddings
    "knn-accuracy-pdist-half": case(_knn_accuracy_pdist_half, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # set_default_dtype(float16), then a toy house-price range made with linspace
    "default-float16-linspace-prices": case(_default_float16_linspace_prices, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # BCELoss given a float64 label column
    "bce-float64-label-column": case(_bce_float64_label_column, "op_dtype", "f64", "f32", fix=("float",),
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (f0752d3) castwise gave op_dtype [f64, f32] (high confidence). binary_cross_entropy's forward 'Found dtype Double but expected Float' was read as a mixed-float op (its fix, target.float(), is right) where this set expected the loss kind; the two kinds meet at this message and the expectation's choice of loss_dtype for a forward loss error is itself arguable. After grading, the expectation was corrected from loss_dtype to op_dtype, the convention live_held_out_1's bce-bf16-probs-fp32-labels set at 91069b4 for the same forward error; grade_at_freeze stays wrong."),
    # CrossEntropyLoss given class labels read as a float64 column
    "cross-entropy-float64-label-column": case(_cross_entropy_float64_label_column, "target_dtype", "f64",
                                               fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # MultiMarginLoss ("a multi-class SVM") given labels made with torch.Tensor(list)
    "multi-margin-legacy-tensor-labels": case(_multi_margin_legacy_tensor_labels, "target_dtype", "f32",
                                              fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # KLDivLoss given F.one_hot's int64 targets
    "kl-div-one-hot-targets": case(_kl_div_one_hot_targets, "target_dtype", fix=("float",),
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (f0752d3) castwise gave nothing. kl_div's 'Integral inputs not supported.' (F.one_hot's int64 target) names no dtype and castwise has no reading for it."),
    # class labels kept as numpy int8 to save memory, into cross_entropy
    "cross-entropy-int8-labels": case(_cross_entropy_int8_labels, "target_dtype", "int8", fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # accuracy computed as correct /= len(labels) on the int64 count
    "accuracy-true-divide-in-place": case(_accuracy_true_divide_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a confusion matrix accumulated with index_put_ of float ones into an int64 matrix
    "confusion-matrix-index-put-ones": case(_confusion_matrix_index_put_ones, "indexed_write_dtype", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # masked mean pooling of review embeddings with a padding mask made by torch.ByteTensor
    "masked-mean-byte-tensor-mask": case(_masked_mean_byte_tensor_mask, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # the classifier head called one indent outside the autocast block, on bf16 features
    "autocast-head-outside-block": case(_autocast_head_outside_block, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # GradScaler added but optimizer.step() kept instead of scaler.step(optimizer), then scaler.update()
    "grad-scaler-without-scaler-step": case(_grad_scaler_without_scaler_step, "loss_scale",
        grade="correct", grade_at_freeze="correct"),
    # gradient clipping added after scaler.step, with scaler.unscale_ there
    "grad-scaler-clip-after-step": case(_grad_scaler_clip_after_step, "loss_scale",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (f0752d3) castwise gave nothing. GradScaler's 'unscale_() is being called after step().' (clipping placed after scaler.step) is an ordering error castwise does not read."),
}
