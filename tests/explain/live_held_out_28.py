"""Held-out live set 28: torch.utils.data pipelines (workers, collates, samplers, transforms, batch casts) feeding
low-precision models. Defects planted by a helper who never read the rules, written before castwise ran and graded once
with the rules frozen at aa85a67."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Sampler, WeightedRandomSampler

from .live_cases import LiveCase, case

FROZEN_AT = "aa85a67"

bf16 = torch.bfloat16
E4M3 = torch.float8_e4m3fn


class _Samples(Dataset[Any]):
    """A map-style dataset over precomputed samples, with an optional per-sample transform run where it is fetched."""

    def __init__(self, samples: list[Any], transform: Callable[[Any], Any] | None = None) -> None:
        self.samples = samples
        self.transform = transform

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> Any:
        sample = self.samples[index]
        return self.transform(sample) if self.transform else sample


def _first_batch(dataset: Dataset[Any] | IterableDataset[Any], workers: int = 0, **options: Any) -> Any:
    """The first batch of a DataLoader over ``dataset`` (fork workers, as Linux starts them); the workers are shut
    down before a worker's error propagates, since the error's frames keep the iterator alive into the next case."""
    options.setdefault("batch_size", 4)
    iterator = iter(DataLoader(dataset, num_workers=workers, **options))
    try:
        return next(iterator)
    finally:
        shutdown = getattr(iterator, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()


def _uint8_images(n: int = 8, size: int = 8) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (3, size, size), dtype=torch.uint8, generator=generator) for _ in range(n)]


def _bf16_mlp(features: int, classes: int = 3) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(features, 16), nn.ReLU(), nn.Linear(16, classes)).to(bf16)


def _normalise_uint8_in_place() -> None:
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1) * 255

    def normalise(image: torch.Tensor) -> torch.Tensor:
        return image.sub_(mean).div_(std)

    _first_batch(_Samples(_uint8_images(), normalise), workers=2)


def _noise_augmentation_uint8() -> None:
    def add_noise(image: torch.Tensor) -> torch.Tensor:
        return image + 0.05 * 255 * torch.randn_like(image)

    _first_batch(_Samples(_uint8_images(), add_noise), workers=1)


def _gaussian_blur_uint8() -> None:
    kernel_1d = torch.exp(-torch.arange(-2.0, 3.0) ** 2 / 2)
    kernel = (kernel_1d[:, None] * kernel_1d[None, :] / kernel_1d.sum() ** 2).expand(3, 1, 5, 5)

    def blur(image: torch.Tensor) -> torch.Tensor:
        return F.conv2d(image[None], kernel, padding=2, groups=3)[0]

    _first_batch(_Samples(_uint8_images(), blur), workers=1)


def _thumbnail_avg_pool_uint8() -> None:
    def thumbnail(image: torch.Tensor) -> torch.Tensor:
        return F.avg_pool2d(image[None], 2)[0]

    _first_batch(_Samples(_uint8_images(), thumbnail), workers=2)


class _PcmClips(IterableDataset[torch.Tensor]):
    """Streams 16-bit PCM clips as a WAV reader returns them (numpy int16), turned into spectrograms in the worker."""

    def __iter__(self) -> Iterator[torch.Tensor]:
        rng = np.random.default_rng(0)
        window = torch.hann_window(64)
        for _ in range(4):
            pcm = torch.from_numpy(rng.integers(-3000, 3000, 800, dtype=np.int16))
            yield torch.stft(pcm, 64, hop_length=16, window=window, return_complex=True).abs()


def _spectrogram_of_int16_pcm() -> None:
    _first_batch(_PcmClips(), workers=1, batch_size=2)


class _LinspaceSampler(Sampler[torch.Tensor]):
    """An 'evenly spread' subsampler: indices spaced with torch.linspace over the dataset."""

    def __init__(self, size: int, count: int) -> None:
        self.size, self.count = size, count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[torch.Tensor]:
        return iter(torch.linspace(0, self.size - 1, self.count).round())


class _TensorRows(Dataset[torch.Tensor]):
    def __init__(self, rows: torch.Tensor) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: Any) -> torch.Tensor:
        return self.rows[index]


def _linspace_sampler_float_indices() -> None:
    rows = torch.randn(100, 8).to(bf16)
    _first_batch(_TensorRows(rows), workers=1, sampler=_LinspaceSampler(100, 10))


def _fp8_feature_cache_normalised() -> None:
    torch.manual_seed(0)
    cache = [torch.randn(16).to(E4M3) for _ in range(8)]
    mean, std = torch.zeros(16), torch.ones(16)
    _first_batch(_Samples(cache, lambda x: (x - mean) / std), workers=2)


def _bf16_cache_numpy_flip() -> None:
    torch.manual_seed(0)
    cache = [torch.randn(3, 8, 8).to(bf16) for _ in range(8)]
    _first_batch(_Samples(cache, lambda x: torch.from_numpy(np.ascontiguousarray(x.numpy()[:, :, ::-1]))), workers=1)


def _mixed_uint8_and_float_samples() -> None:
    images = _uint8_images()
    samples = [image if index % 2 == 0 else image.float() / 255 for index, image in enumerate(images)]
    _first_batch(_Samples(samples), workers=1)


def _graph_edges_loaded_as_float() -> None:
    rng = np.random.default_rng(0)
    graphs = [{"x": rng.standard_normal((5, 4)).astype(np.float32),
               "edge_index": np.loadtxt(["0 1 2 3", "1 2 3 4"])} for _ in range(4)]
    batch = _first_batch(_Samples(graphs), batch_size=1)
    x, edges = batch["x"][0].to(bf16), batch["edge_index"][0]
    messages = x[edges[0].long()]
    torch.zeros_like(x).index_add_(0, edges[1], messages)


def _segmentation_masks_uint8() -> None:
    rng = np.random.default_rng(0)
    samples = [(rng.standard_normal((3, 8, 8)).astype(np.float32), rng.integers(0, 4, (8, 8), dtype=np.uint8))
               for _ in range(4)]
    images, masks = _first_batch(_Samples(samples), workers=2)
    torch.manual_seed(0)
    head = nn.Conv2d(3, 4, 1).to(bf16)
    with torch.autocast("cpu", dtype=bf16):
        logits = head(images.to(bf16))
    F.cross_entropy(logits.float(), masks)


def _hard_example_sampler_fp16_losses() -> None:
    last_epoch_losses = torch.tensor([0.7, 2.1, 0.3, 70000.0, 1.2, 0.9]).half()
    sampler = WeightedRandomSampler(last_epoch_losses, num_samples=6, replacement=True)
    _first_batch(_TensorRows(torch.randn(6, 4)), sampler=sampler, batch_size=2)


class _DiffusionPairs(IterableDataset[tuple[torch.Tensor, float]]):
    """Yields bf16 latents with their noise level as a plain Python float."""

    def __iter__(self) -> Iterator[tuple[torch.Tensor, float]]:
        generator = torch.Generator().manual_seed(0)
        for step in range(4):
            yield torch.randn(7, generator=generator).to(bf16), step / 1000


def _python_float_timestep_concat() -> None:
    latents, t = _first_batch(_DiffusionPairs())
    model = _bf16_mlp(8, 7)
    model(torch.cat([latents, t[:, None]], dim=1))


def _float16_memmap_features() -> None:
    rng = np.random.default_rng(0)
    stored = rng.standard_normal((8, 12)).astype(np.float16)
    features = _first_batch(_Samples(list(stored)), workers=1)
    _bf16_mlp(12)(features)


def _loop_casts_bf16_model_halved() -> None:
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Conv1d(2, 8, 3, bias=False), nn.ReLU()).half()
    loader = DataLoader(_TensorRows(torch.randn(8, 2, 32)), batch_size=4, pin_memory=True)
    for batch in loader:
        encoder(batch.to("cpu", dtype=bf16, non_blocking=True))


def _bool_padding_mask_one_minus() -> None:
    samples = [{"ids": np.array([1, 2, 3, 0]), "mask": np.array([True, True, True, False])} for _ in range(4)]
    batch = _first_batch(_Samples(samples), workers=1)
    scores = torch.randn(4, 4, 4).to(bf16)
    scores + (1 - batch["mask"][:, None, :]) * -1e4


def _python_bool_labels_bce() -> None:
    torch.manual_seed(0)
    samples = [(torch.randn(6), index % 3 == 0) for index in range(8)]
    features, labels = _first_batch(_Samples(samples))
    with torch.autocast("cpu", dtype=bf16):
        logits = nn.Linear(6, 1)(features).squeeze(1)
    F.binary_cross_entropy_with_logits(logits.float(), labels)


def _numpy_class_weights_cross_entropy() -> None:
    labels = np.array([0, 0, 0, 1, 2, 2, 0, 1])
    counts = np.bincount(labels, minlength=3)
    class_weights = torch.from_numpy(len(labels) / (3 * counts))
    features, targets = _first_batch(_Samples([(torch.randn(5), int(y)) for y in labels]), workers=2)
    logits = nn.Linear(5, 3)(features)
    nn.CrossEntropyLoss(weight=class_weights)(logits, targets)


def _random_affine_bf16_images() -> None:
    torch.manual_seed(0)
    images = [torch.rand(3, 8, 8).to(bf16) for _ in range(4)]

    def warp(image: torch.Tensor) -> torch.Tensor:
        angle = torch.tensor(0.1)
        theta = torch.stack([torch.stack([angle.cos(), -angle.sin(), torch.tensor(0.0)]),
                             torch.stack([angle.sin(), angle.cos(), torch.tensor(0.0)])])[None]
        grid = F.affine_grid(theta, [1, 3, 8, 8], align_corners=False)
        return F.grid_sample(image[None], grid, align_corners=False)[0]

    _first_batch(_Samples(images, warp), workers=1)


def _fp8_transfer_bf16_model() -> None:
    torch.manual_seed(0)
    model = _bf16_mlp(8)
    loader = DataLoader(_TensorRows(torch.randn(8, 8)), batch_size=4, pin_memory=True)
    for batch in loader:
        model(batch.to(E4M3, non_blocking=True))


def _bag_of_words_l2_normalised() -> None:
    rng = np.random.default_rng(0)
    documents = [rng.integers(0, 20, 15) for _ in range(8)]
    _first_batch(_Samples(documents, lambda ids: F.normalize(torch.from_numpy(np.bincount(ids, minlength=20)), dim=0)),
                 workers=2)


def _ragged_object_arrays() -> None:
    sentences = [np.array([[1, 2, 3], [4, 5]], dtype=object), np.array([[6], [7, 8, 9]], dtype=object)]
    _first_batch(_Samples(sentences), workers=1, batch_size=2)


def _scheduled_sampling_where_mixed() -> None:
    torch.manual_seed(0)
    samples = [(torch.randint(0, 9, (6,)), torch.randint(0, 9, (6,))) for _ in range(4)]
    inputs, targets = _first_batch(_Samples(samples), workers=2)
    embedding = nn.Embedding(9, 8).to(bf16)
    predicted = embedding(inputs).argmax(-1).to(bf16)
    mixed = torch.where(torch.rand(4, 6) < 0.25, predicted, inputs)
    embedding(mixed)


CASES: dict[str, LiveCase] = {
    # a worker transform normalises the uint8 image in place with float ImageNet mean/std
    "worker-normalise-uint8-in-place": case(_normalise_uint8_in_place, "result_cast", "f32", "uint8", grade="correct", grade_at_freeze="correct"),
    # Gaussian-noise augmentation in the worker with randn_like of the still-uint8 image
    "worker-noise-randn-like-uint8": case(_noise_augmentation_uint8, "no_kernel", "uint8", grade="correct", grade_at_freeze="correct"),
    # a Gaussian blur in the worker: fp32 kernel conv2d over the uint8 image
    "worker-blur-conv2d-uint8": case(_gaussian_blur_uint8, "integer_operand", "uint8", "f32", grade="correct", grade_at_freeze="wrong",
         why="At freeze (aa85a67) castwise gave integer_operand [uint8, f32] (high confidence). The conv's input/weight check ('expected scalar type Byte but found Float') raised inside the worker's conv2d was read by its integer dtype as an integer operand, not as conv2d's input meeting an fp32 weight. After grading, the expectation was corrected from conv_weight_dtype to integer_operand, the convention live_held_out_3's uint8-image-into-conv set for a uint8 image into a float convolution; grade_at_freeze stays wrong."),
    # thumbnails in the worker by avg_pool2d of the uint8 image
    "worker-thumbnail-avg-pool-uint8": case(_thumbnail_avg_pool_uint8, "integer_operand", "uint8", fix=("float",), grade="correct", grade_at_freeze="correct"),
    # an IterableDataset computing spectrograms with torch.stft of the reader's int16 PCM in the worker
    "worker-stft-int16-pcm": case(_spectrogram_of_int16_pcm, "integer_operand", "int16", fix=("float",), grade="correct", grade_at_freeze="correct"),
    # an evenly-spread subsampler yielding torch.linspace(...).round() indices (float) to the worker's __getitem__
    "sampler-linspace-float-indices": case(_linspace_sampler_float_indices, "index_tensor_dtype", fix=("long",), grade="correct", grade_at_freeze="correct"),
    # features cached as float8_e4m3fn, standardised by fp32 mean/std in the worker
    "worker-fp8-cache-standardised": case(_fp8_feature_cache_normalised, "fp8_promotion", "float8_e4m3fn", "f32", grade="correct", grade_at_freeze="correct"),
    # images cached as bf16 tensors, flipped in the worker through .numpy()
    "worker-bf16-cache-numpy-flip": case(_bf16_cache_numpy_flip, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # a dataset returning some samples uint8 and some already scaled to float: the worker's collate stacks into uint8
    "worker-collate-uint8-and-float-samples": case(_mixed_uint8_and_float_samples, "result_cast", "uint8", grade="correct", grade_at_freeze="not_recognised",
         why="At freeze (aa85a67) castwise gave nothing. default_collate's torch.stack into a uint8 out= in the worker raises 'torch.cat(): input types can't be cast to the desired output type Byte', a TypeError wording the rules do not read."),
    # graph edges read with np.loadtxt (float64), collated, used as index_add_'s index in message passing
    "graph-edges-loadtxt-float-index-add": case(_graph_edges_loaded_as_float, "index_tensor_dtype", "f64",
                                                fix=("long",), grade="correct", grade_at_freeze="partly",
         why="At freeze (aa85a67) castwise gave index_tensor_dtype [] (high confidence). The kind is right but the float64 index ('but got: Double' at the end of index_add_'s message) was not read into the dtypes."),
    # segmentation masks read as uint8 arrays, collated uint8, into cross_entropy
    "segmentation-masks-uint8-cross-entropy": case(_segmentation_masks_uint8, "target_dtype", "uint8",
                                                   fix=("long",), grade="correct", grade_at_freeze="correct"),
    # a hard-example WeightedRandomSampler weighted by last epoch's fp16 losses, one overflowed to inf
    "hard-example-sampler-fp16-inf-loss": case(_hard_example_sampler_fp16_losses, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # an IterableDataset yields the noise level as a Python float: collated float64, concatenated to bf16 latents
    "python-float-timestep-collated-f64": case(_python_float_timestep_concat, "matmul_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # features memmapped as numpy float16 to save disk, collated f16, fed to a bf16 MLP
    "float16-memmap-features-bf16-mlp": case(_float16_memmap_features, "matmul_dtype", "f16", "bf16", grade="correct", grade_at_freeze="correct"),
    # the loop casts each pinned batch to bf16 while the conv encoder was halved with .half()
    "loop-casts-bf16-encoder-halved": case(_loop_casts_bf16_model_halved, "conv_weight_dtype", "bf16", "f16", grade="correct", grade_at_freeze="correct"),
    # a numpy bool padding mask collated as bool, made additive with (1 - mask) * -1e4
    "collated-bool-mask-one-minus": case(_bool_padding_mask_one_minus, "mask_dtype", "bool", grade="correct", grade_at_freeze="correct"),
    # Python bool labels collated as a bool tensor, into binary_cross_entropy_with_logits
    "python-bool-labels-bce-logits": case(_python_bool_labels_bce, "target_dtype", "bool", fix=("float",), grade="correct", grade_at_freeze="correct"),
    # class weights from numpy counts (float64) given to an fp32 classifier's CrossEntropyLoss
    "numpy-class-weights-f64-cross-entropy": case(_numpy_class_weights_cross_entropy, "op_dtype", "f32", "f64", grade="correct", grade_at_freeze="correct"),
    # a random affine warp in the worker: fp32 affine_grid sampling bf16 cached images with grid_sample
    "worker-affine-grid-fp32-bf16-images": case(_random_affine_bf16_images, "op_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # batches cast to float8 before the (pinned) copy to halve the transfer, fed to the bf16 model
    "fp8-transfer-bf16-model": case(_fp8_transfer_bf16_model, "matmul_dtype", "float8_e4m3fn", "bf16", grade="correct", grade_at_freeze="correct"),
    # bag-of-words counts (int64 from np.bincount) L2-normalised in the worker
    "worker-bag-of-words-normalize-int64": case(_bag_of_words_l2_normalised, "integer_operand", "int64",
                                                fix=("float",), grade="correct", grade_at_freeze="correct"),
    # ragged token lists stored as numpy object arrays, reaching default_collate in the worker
    "worker-collate-ragged-object-arrays": case(_ragged_object_arrays, "numpy_dtype", grade="correct", grade_at_freeze="not_recognised",
         why="At freeze (aa85a67) castwise gave nothing. default_collate's TypeError about a numpy object array ('found object'), re-raised from the worker, is not a message the rules read."),
    # scheduled sampling: bf16 argmax predictions mixed into int64 inputs with torch.where, then embedded
    "scheduled-sampling-where-bf16-ids": case(_scheduled_sampling_where_mixed, "index_tensor_dtype", "bf16",
                                              fix=("long",), grade="correct", grade_at_freeze="correct"),
}
