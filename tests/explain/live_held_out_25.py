"""Held-out live set 25: training and inference loops on the CPU written with Lightning Fabric (bf16-mixed, bf16-true,
16-true), a minimal Lightning Trainer (bf16-mixed, bf16-true, 64-true) and Hugging Face Accelerate (bf16, fp16), with
the defects in the user's code around them: inputs, targets, buffers, metrics, custom layers, EMA, checkpoint round
trips. Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at 3c0cb01."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import lightning as L
import torch
import torch.nn.functional as F
from accelerate import Accelerator, init_empty_weights
from accelerate.state import AcceleratorState, GradientState
from accelerate.utils import load_checkpoint_in_model
from lightning.fabric import Fabric
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from .live_cases import LiveCase, case

FROZEN_AT = "3c0cb01"

bf16 = torch.bfloat16


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _fabric(precision: str) -> Fabric:
    return Fabric(accelerator="cpu", devices=1, precision=precision)


def _accelerator(mixed_precision: str) -> Accelerator:
    """A fresh Accelerator: its state is a process-wide singleton that refuses a second mixed precision."""
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()
    return Accelerator(cpu=True, mixed_precision=mixed_precision)


@contextmanager
def _trainer(precision: str, **options: bool) -> Iterator[L.Trainer]:
    with tempfile.TemporaryDirectory() as root:
        yield L.Trainer(accelerator="cpu", devices=1, precision=precision, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, default_root_dir=root,
                        **options)


def _loader(*tensors: torch.Tensor, batch_size: int = 4) -> DataLoader:
    return DataLoader(TensorDataset(*tensors), batch_size=batch_size)


# --- Lightning Fabric, precision="bf16-mixed": the forward runs under CPU autocast, and Fabric also casts every
# floating input of the forward to bf16

class _TfidfClassifier(nn.Module):
    def __init__(self, vocab: int = 50, dim: int = 16, classes: int = 3) -> None:
        super().__init__()
        self.bag = nn.EmbeddingBag(vocab, dim, mode="sum")
        self.head = nn.Linear(dim, classes)

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor, tfidf: torch.Tensor) -> torch.Tensor:
        return self.head(self.bag(ids, offsets, per_sample_weights=tfidf))


def _fabric_mixed_tfidf_embedding_bag() -> None:
    fabric = _fabric("bf16-mixed")
    model = fabric.setup(_TfidfClassifier())
    ids, offsets = torch.tensor([3, 7, 12, 40, 7]), torch.tensor([0, 3])
    tfidf = torch.tensor([0.21, 0.55, 0.9, 0.13, 0.4])
    model(ids, offsets, tfidf)


class _RunningNorm(nn.Module):
    """Observation normaliser of an RL policy: running mean and variance updated in forward while training."""

    def __init__(self, features: int, momentum: float = 0.01) -> None:
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(features))
        self.register_buffer("var", torch.ones(features))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        if self.training:
            self.mean.lerp_(obs.mean(0), self.momentum)
            self.var.lerp_(obs.var(0), self.momentum)
        return (obs - self.mean) / (self.var + 1e-5).sqrt()


def _fabric_mixed_observation_normaliser() -> None:
    fabric = _fabric("bf16-mixed")
    policy = nn.Sequential(_RunningNorm(8), nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 4))
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
    policy, optimizer = fabric.setup(policy, optimizer)
    observations = torch.randn(16, 8, generator=_generator()) * 5.0
    policy(observations)


class _FP32CausalConv(nn.Module):
    """A short depthwise causal conv kept in fp32 for stability by switching autocast off."""

    def __init__(self, channels: int, kernel: int = 4) -> None:
        super().__init__()
        self.kernel = kernel
        self.weight = nn.Parameter(torch.randn(channels, 1, kernel, generator=_generator()) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (batch, time, channels)
        with torch.autocast("cpu", enabled=False):
            y = F.conv1d(F.pad(x.transpose(1, 2), (self.kernel - 1, 0)), self.weight, groups=x.shape[-1])
        return y.transpose(1, 2)


def _fabric_mixed_fp32_causal_conv() -> None:
    fabric = _fabric("bf16-mixed")
    model = fabric.setup(nn.Sequential(_FP32CausalConv(6), nn.SiLU(), nn.Linear(6, 1)))
    sensor_windows = torch.randn(4, 32, 6, generator=_generator())
    model(sensor_windows)


class _FP32SoftmaxAttention(nn.Module):
    """Self-attention whose softmax runs in fp32: autocast off, q, k and v upcast, an additive bias from the data."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).unflatten(-1, (3, self.heads, -1)).permute(2, 0, 3, 1, 4)
        with torch.autocast("cpu", enabled=False):
            y = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=bias)
        return self.out(y.transpose(1, 2).flatten(2))


def _fabric_mixed_additive_bias_fp32_attention() -> None:
    fabric = _fabric("bf16-mixed")
    model = fabric.setup(_FP32SoftmaxAttention())
    tokens = torch.randn(2, 5, 16, generator=_generator())
    distance = (torch.arange(5)[:, None] - torch.arange(5)[None]).abs().float()
    bias = (-0.5 * distance).expand(2, 1, 5, 5)  # a relative-distance bias computed in the collate function
    model(tokens, bias)


# --- Lightning Fabric, precision="bf16-true" / "16-true": the module is cast, floating inputs are cast, the default
# dtype is bf16 (fp16) inside forward and inside fabric.autocast() / fabric.init_module(), and outputs come back fp32

class _MoEBlock(nn.Module):
    def __init__(self, dim: int = 16, experts: int = 4) -> None:
        super().__init__()
        self.router = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(experts))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", enabled=False):  # route in fp32, as the MoE papers advise
            gates = self.router(x.float()).softmax(-1)
        weight, choice = gates.max(-1)
        out = torch.stack([self.experts[int(e)](row) for e, row in zip(choice, x)])
        return x + weight[:, None].to(x.dtype) * out


def _fabric_true_fp32_router() -> None:
    fabric = _fabric("bf16-true")
    model = fabric.setup(nn.Sequential(nn.Linear(8, 16), _MoEBlock(), nn.Linear(16, 2)))
    model(torch.randn(4, 8, generator=_generator()))


class _NoisyLinear(nn.Module):
    """NoisyNet's factorised Gaussian linear layer (Fortunato et al.)."""

    def __init__(self, n_in: int, n_out: int, sigma0: float = 0.5) -> None:
        super().__init__()
        bound = 1 / math.sqrt(n_in)
        self.weight_mu = nn.Parameter(torch.empty(n_out, n_in).uniform_(-bound, bound))
        self.weight_sigma = nn.Parameter(torch.full((n_out, n_in), sigma0 * bound))
        self.bias_mu = nn.Parameter(torch.empty(n_out).uniform_(-bound, bound))
        self.bias_sigma = nn.Parameter(torch.full((n_out,), sigma0 * bound))
        self.register_buffer("weight_eps", torch.zeros(n_out, n_in))
        self.register_buffer("bias_eps", torch.zeros(n_out))

    @staticmethod
    def _scaled_noise(size: int) -> torch.Tensor:
        x = torch.randn(size)
        return x.sign() * x.abs().sqrt()

    def reset_noise(self) -> None:
        eps_in, eps_out = self._scaled_noise(self.weight_mu.shape[1]), self._scaled_noise(self.weight_mu.shape[0])
        self.weight_eps = torch.outer(eps_out, eps_in)
        self.bias_eps = eps_out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight_mu + self.weight_sigma * self.weight_eps,
                        self.bias_mu + self.bias_sigma * self.bias_eps)


def _fabric_true_noisy_net_reset_noise() -> None:
    fabric = _fabric("bf16-true")
    q_network = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), _NoisyLinear(32, 2))
    optimizer = torch.optim.Adam(q_network.parameters(), lr=1e-4)
    q_network, optimizer = fabric.setup(q_network, optimizer)
    states = torch.randn(8, 4, generator=_generator())
    loss = q_network(states).pow(2).mean()
    fabric.backward(loss)
    optimizer.step()
    q_network.module[2].reset_noise()  # new noise after each update, as NoisyNet does
    q_network(states)


class _GRUEncoder(nn.Module):
    def __init__(self, n_in: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.hidden = hidden
        self.gru = nn.GRU(n_in, hidden, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h0 = torch.zeros(1, x.shape[0], self.hidden)
        return self.gru(x, h0)[0]


def _fabric_true_gru_teacher_in_fabric_autocast() -> None:
    fabric = _fabric("bf16-true")
    teacher = _GRUEncoder().eval().requires_grad_(False)  # frozen fp32 teacher, not set up with Fabric
    student = fabric.setup(_GRUEncoder())
    frames = torch.randn(4, 10, 8, generator=_generator())
    student_states = student(frames)
    with torch.no_grad(), fabric.autocast():
        teacher_states = teacher(frames)
    F.mse_loss(student_states, teacher_states)


class _ArcFace(nn.Module):
    def __init__(self, dim: int, classes: int, scale: float = 30.0, margin: float = 0.5) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(classes, dim, generator=_generator()))
        self.scale, self.margin = scale, margin

    def forward(self, embeddings: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        cosine = F.linear(F.normalize(embeddings), F.normalize(self.weight))
        theta = torch.acos(cosine)
        target = F.one_hot(labels, cosine.shape[1]).bool()
        logits = self.scale * torch.where(target, torch.cos(theta + self.margin), cosine)
        return F.cross_entropy(logits, labels)


class _FaceModel(nn.Module):
    def __init__(self, classes: int = 8) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
        self.arcface = _ArcFace(16, classes)

    def forward(self, images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.arcface(self.backbone(images), labels)


def _fabric_true_arcface_imprinted_acos() -> None:
    fabric = _fabric("bf16-true")
    model = _FaceModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model, optimizer = fabric.setup(model, optimizer)
    enrolment = torch.randn(8, 32, generator=_generator())
    identities = torch.arange(8)
    with torch.no_grad():  # one-shot enrolment: each identity's centre imprinted from its embedding
        model.module.arcface.weight.copy_(model.module.backbone(enrolment.to(bf16)))
    loss = model(enrolment, identities)
    fabric.backward(loss)
    fabric.clip_gradients(model, optimizer, max_norm=5.0)


class _StudentTForecaster(nn.Module):
    """A DeepAR-style head: forward returns the predictive distribution."""

    def __init__(self, window: int = 24) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(window, 32), nn.ReLU(), nn.Linear(32, 3))

    def forward(self, history: torch.Tensor) -> torch.distributions.StudentT:
        df, loc, scale = self.net(history).unbind(-1)
        return torch.distributions.StudentT(2.0 + F.softplus(df), loc, F.softplus(scale) + 1e-3)


def _fabric_true_student_t_forecast_samples() -> None:
    fabric = _fabric("bf16-true")
    model = fabric.setup(_StudentTForecaster())
    history = torch.randn(4, 24, generator=_generator())
    predictive = model(history)
    predictive.sample((100,)).quantile(torch.tensor([0.1, 0.5, 0.9]), dim=0)


class _GaussianQuantileHead(nn.Module):
    """Quantile forecasts mean + std * z_tau at fixed levels tau."""

    def __init__(self, n_in: int = 12, levels: int = 9) -> None:
        super().__init__()
        self.levels = levels
        self.net = nn.Linear(n_in, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean, log_std = self.net(x).unbind(-1)
        taus = torch.linspace(0.1, 0.9, self.levels)
        z = torch.special.ndtri(taus)
        return mean[:, None] + log_std.exp()[:, None] * z


def _fabric_true_quantile_levels_ndtri() -> None:
    fabric = _fabric("bf16-true")
    model = fabric.setup(_GaussianQuantileHead())
    model(torch.randn(4, 12, generator=_generator()))


class _GraphBatch:
    """A minimal PyG-style batch: node features, edges and each node's graph, moved with .to()."""

    def __init__(self, x: torch.Tensor, edge_index: torch.Tensor, graph: torch.Tensor) -> None:
        self.x, self.edge_index, self.graph = x, edge_index, graph

    def to(self, device: torch.device | str) -> _GraphBatch:
        return _GraphBatch(self.x.to(device), self.edge_index.to(device), self.graph.to(device))


class _GIN(nn.Module):
    def __init__(self, n_in: int = 6, hidden: int = 16) -> None:
        super().__init__()
        self.input_norm = nn.BatchNorm1d(n_in)
        self.mlp = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.readout = nn.Linear(hidden, 1)

    def forward(self, batch: _GraphBatch) -> torch.Tensor:
        h = self.input_norm(batch.x)
        source, target = batch.edge_index
        h = self.mlp(h.index_add(0, target, h[source]))
        pooled = torch.zeros(int(batch.graph.max()) + 1, h.shape[1], dtype=h.dtype).index_add(0, batch.graph, h)
        return self.readout(pooled)


def _fabric_true_custom_graph_batch() -> None:
    fabric = _fabric("bf16-true")
    model = fabric.setup(_GIN())
    batch = _GraphBatch(torch.randn(7, 6, generator=_generator()),
                        torch.tensor([[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 6]]), torch.tensor([0, 0, 0, 1, 1, 1, 1]))
    model(fabric.to_device(batch))


class _SpectralMaskEstimator(nn.Module):
    """Speech enhancement on the complex STFT: a GRU over frames estimates a magnitude mask."""

    def __init__(self, n_freq: int = 33, hidden: int = 32) -> None:
        super().__init__()
        self.gru = nn.GRU(2 * n_freq, hidden, batch_first=True)
        self.mask = nn.Linear(hidden, n_freq)

    def forward(self, spec: torch.Tensor) -> torch.Tensor:  # (batch, frames, freq), complex
        features = torch.cat([spec.real, spec.imag], dim=-1)
        return spec * torch.sigmoid(self.mask(self.gru(features)[0]))


def _fabric_true_complex_stft_input() -> None:
    fabric = _fabric("bf16-true")
    model = fabric.setup(_SpectralMaskEstimator())
    noisy = torch.randn(2, 1024, generator=_generator())
    spec = torch.stft(noisy, 64, hop_length=32, window=torch.hann_window(64), return_complex=True).transpose(1, 2)
    model(spec)


class _StreamingMemory(nn.Module):
    """Keeps the last `slots` hidden states of every stream, Transformer-XL style, reset between documents."""

    def __init__(self, dim: int = 16, slots: int = 4) -> None:
        super().__init__()
        self.dim, self.slots, self.step = dim, slots, 0
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("memory", torch.zeros(1, slots, dim), persistent=False)

    def reset_memory(self, batch_size: int) -> None:
        self.memory = torch.zeros(batch_size, self.slots, self.dim)
        self.step = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # one step of each stream: (batch, dim)
        h = torch.tanh(self.proj(x))
        self.memory.index_copy_(1, torch.tensor([self.step % self.slots]), h.detach()[:, None])
        self.step += 1
        return h + self.memory.mean(1)


def _fabric_true_memory_reset_outside_forward() -> None:
    fabric = _fabric("bf16-true")
    model = fabric.setup(_StreamingMemory())
    model.module.reset_memory(batch_size=3)  # a new batch of documents
    for token in torch.randn(5, 3, 16, generator=_generator()):
        model(token)


def _fabric_true_gradient_centralization() -> None:
    fabric = _fabric("bf16-true")
    model = nn.Sequential(nn.Linear(20, 64), nn.GELU(), nn.Linear(64, 5))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer = fabric.setup(model, optimizer)
    x, y = torch.randn(16, 20, generator=_generator()), torch.arange(16) % 5
    fabric.backward(F.cross_entropy(model(x), y))
    for p in model.parameters():  # gradient centralization, the mean taken in fp32 for accuracy
        if p.grad is not None and p.ndim > 1:
            p.grad = p.grad - p.grad.mean(dim=1, keepdim=True, dtype=torch.float32)
    optimizer.step()


class _LatentODEForecaster(nn.Module):
    """Integrates a latent state over a day, the time grid in seconds."""

    def __init__(self, dim: int = 8, steps: int = 25, horizon_s: float = 86400.0) -> None:
        super().__init__()
        self.steps, self.horizon_s = steps, horizon_s
        self.dynamics = nn.Sequential(nn.Linear(dim + 1, 32), nn.Tanh(), nn.Linear(32, dim))

    def forward(self, z0: torch.Tensor) -> torch.Tensor:
        t = torch.linspace(0.0, self.horizon_s, self.steps)
        z, states = z0, [z0]
        for t0, t1 in zip(t[:-1], t[1:]):
            day_fraction = (t0 / self.horizon_s).expand(z.shape[0], 1)
            z = z + (t1 - t0) / self.horizon_s * self.dynamics(torch.cat([z, day_fraction], dim=-1))
            states.append(z)
        return torch.stack(states, dim=1)


def _fabric_16_true_ode_time_grid_seconds() -> None:
    fabric = _fabric("16-true")
    model = fabric.setup(_LatentODEForecaster())
    model(torch.randn(4, 8, generator=_generator()))


# --- a minimal Lightning Trainer (fast_dev_run / one batch, no logger, no checkpointing)

class _MultiTaskRegressor(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.heads = [nn.Linear(16, 1) for _ in range(3)]  # one head per target, in a plain list

    def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], batch_idx: int) -> torch.Tensor:
        x, y = batch
        h = self.trunk(x)
        return sum(F.mse_loss(head(h).squeeze(-1), y[:, i]) for i, head in enumerate(self.heads))

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.01)


def _trainer_64_true_heads_in_plain_list() -> None:
    loader = _loader(torch.randn(8, 8, generator=_generator()), torch.randn(8, 3, generator=_generator()))
    with _trainer("64-true", fast_dev_run=True, enable_model_summary=False) as trainer:  # a float64 debugging run
        trainer.fit(_MultiTaskRegressor(), loader)


class _BiaffineLabeler(L.LightningModule):
    """Dependency parsing: arc labels scored by a bilinear form of dependent and head representations."""

    def __init__(self, vocab: int = 50, dim: int = 16, labels: int = 5) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.dep_mlp, self.head_mlp = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.label = nn.Bilinear(dim, dim, labels)

    def training_step(self, batch: tuple[torch.Tensor, ...], batch_idx: int) -> torch.Tensor:
        words, heads, labels = batch
        h = self.embed(words)
        dep, head = F.relu(self.dep_mlp(h)), F.relu(self.head_mlp(h))
        head_of_each = head.gather(1, heads[..., None].expand_as(head))
        scores = self.label(dep, head_of_each)
        return F.cross_entropy(scores.flatten(0, 1), labels.flatten())

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=2e-3)


def _trainer_mixed_biaffine_bilinear() -> None:
    g = _generator()
    loader = _loader(torch.randint(0, 50, (8, 6), generator=g), torch.randint(0, 6, (8, 6), generator=g),
                     torch.randint(0, 5, (8, 6), generator=g))
    with _trainer("bf16-mixed", fast_dev_run=True, enable_model_summary=False) as trainer:
        trainer.fit(_BiaffineLabeler(), loader)


class _CausalLM(L.LightningModule):
    def __init__(self, vocab: int = 64, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids)
        q, k, v = self.qkv(x).unflatten(-1, (3, self.heads, -1)).permute(2, 0, 3, 1, 4)
        with torch.autocast("cpu", enabled=False):  # attention logits and softmax in fp32
            y = F.scaled_dot_product_attention(q.float(), k.float(), v, is_causal=True)
        return self.lm_head(x + y.transpose(1, 2).flatten(2))

    def training_step(self, batch: tuple[torch.Tensor], batch_idx: int) -> torch.Tensor:
        (ids,) = batch
        logits = self(ids[:, :-1])
        return F.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.AdamW(self.parameters(), lr=3e-4)


def _trainer_mixed_fp32_attention_value_left() -> None:
    loader = _loader(torch.randint(0, 64, (8, 9), generator=_generator()))
    with _trainer("bf16-mixed", fast_dev_run=True, enable_model_summary=False) as trainer:
        trainer.fit(_CausalLM(), loader)


class _PerClassAccuracy(L.LightningModule):
    def __init__(self, classes: int = 3) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, classes))
        self.register_buffer("correct", torch.zeros(classes))
        self.register_buffer("seen", torch.zeros(classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def validation_step(self, batch: tuple[torch.Tensor, torch.Tensor], batch_idx: int) -> None:
        x, y = batch
        prediction = self(x).argmax(-1)
        self.correct.index_add_(0, y, (prediction == y).float())
        self.seen.index_add_(0, y, torch.ones_like(y, dtype=torch.float))

    def on_validation_epoch_end(self) -> None:
        self.log("val_balanced_accuracy", (self.correct / self.seen.clamp(min=1)).mean())


def _trainer_true_per_class_accuracy_buffers() -> None:
    loader = _loader(torch.randn(8, 8, generator=_generator()), torch.arange(8) % 3)
    with _trainer("bf16-true", enable_model_summary=False) as trainer:
        trainer.validate(_PerClassAccuracy(), loader, verbose=False)


class _Classifier(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))

    def predict_step(self, batch: tuple[torch.Tensor], batch_idx: int) -> torch.Tensor:
        return self.net(batch[0]).softmax(-1)


def _trainer_true_predictions_to_numpy() -> None:
    loader = _loader(torch.randn(8, 8, generator=_generator()))
    with _trainer("bf16-true", enable_model_summary=False) as trainer:
        probabilities = trainer.predict(_Classifier(), loader)
    torch.cat(probabilities).numpy()  # for the submission file


class _SmallResNetStem(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.classifier = nn.Linear(16, 10)
        self.example_input_array = torch.zeros(1, 3, 32, 32)  # for the model summary's in/out sizes

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(images))

    def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], batch_idx: int) -> torch.Tensor:
        images, labels = batch
        return F.cross_entropy(self(images), labels)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.1)


def _trainer_true_example_input_array() -> None:
    loader = _loader(torch.randn(4, 3, 32, 32, generator=_generator()), torch.arange(4))
    with _trainer("bf16-true", fast_dev_run=True) as trainer:
        trainer.fit(_SmallResNetStem(), loader)


class _PrototypicalNetwork(L.LightningModule):
    def __init__(self, n_way: int = 3) -> None:
        super().__init__()
        self.n_way = n_way
        self.encoder = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 16))

    def training_step(self, batch: tuple[torch.Tensor, ...], batch_idx: int) -> torch.Tensor:
        support, support_labels, query, query_labels = (t.squeeze(0) for t in batch)
        support_emb, query_emb = self.encoder(support), self.encoder(query)
        prototypes = torch.stack([support_emb[support_labels == c].mean(0) for c in range(self.n_way)])
        logits = -torch.cdist(query_emb, prototypes).pow(2)
        return F.cross_entropy(logits, query_labels)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def _trainer_true_prototypical_cdist() -> None:
    g = _generator()
    episode = (torch.randn(1, 6, 20, generator=g), torch.arange(6)[None] % 3, torch.randn(1, 9, 20, generator=g),
               torch.arange(9)[None] % 3)
    with _trainer("bf16-true", fast_dev_run=True, enable_model_summary=False) as trainer:
        trainer.fit(_PrototypicalNetwork(), _loader(*episode, batch_size=1))


# --- Hugging Face Accelerate (cpu=True): "bf16" wraps the prepared model's forward in CPU autocast and turns its
# outputs to fp32; "fp16" does nothing on the CPU

class _TextEncoder(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.proj(self.embed(ids))


class _CrossAttentionDenoiser(nn.Module):
    def __init__(self, latent: int = 8, context: int = 16, dim: int = 32) -> None:
        super().__init__()
        self.to_q, self.to_k, self.to_v = nn.Linear(latent, dim), nn.Linear(context, dim), nn.Linear(context, dim)
        self.out = nn.Linear(dim, latent)

    def forward(self, latents: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        q, k, v = self.to_q(latents), self.to_k(context), self.to_v(context)
        return self.out(F.scaled_dot_product_attention(q, k, v))


def _accelerate_fp16_on_cpu_weight_dtype() -> None:
    accelerator = _accelerator("fp16")
    weight_dtype = torch.float32
    if accelerator.mixed_precision == "fp16":
        weight_dtype = torch.float16
    elif accelerator.mixed_precision == "bf16":
        weight_dtype = torch.bfloat16
    text_encoder = _TextEncoder().requires_grad_(False).to(dtype=weight_dtype)  # frozen: kept in weight_dtype
    denoiser = _CrossAttentionDenoiser()
    optimizer = torch.optim.AdamW(denoiser.parameters(), lr=1e-4)
    denoiser, optimizer = accelerator.prepare(denoiser, optimizer)
    g = _generator()
    ids, latents = torch.randint(0, 100, (2, 7), generator=g), torch.randn(2, 16, 8, generator=g)
    with torch.no_grad():
        context = text_encoder(ids)
    noise = torch.randn_like(latents)
    accelerator.backward(F.mse_loss(denoiser(latents + noise, context), noise))


class _ConvDenoiser(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1), nn.SiLU(), nn.Conv2d(16, channels, 3, padding=1))

    def forward(self, latents: torch.Tensor) -> torch.Tensor:
        return self.net(latents)


class _VAEDecoder(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1, bias=False), nn.GroupNorm(4, 16), nn.SiLU(),
                                 nn.Upsample(scale_factor=2), nn.Conv2d(16, 3, 3, padding=1))

    def forward(self, latents: torch.Tensor) -> torch.Tensor:
        return self.net(latents)


def _accelerate_validation_vae_decode() -> None:
    accelerator = _accelerator("bf16")
    weight_dtype = torch.bfloat16 if accelerator.mixed_precision == "bf16" else torch.float32
    vae_decoder = _VAEDecoder().requires_grad_(False).to(dtype=weight_dtype)
    denoiser = accelerator.prepare(_ConvDenoiser())
    latents = torch.randn(1, 4, 8, 8, generator=_generator())
    with torch.no_grad():  # a few sampling steps for the validation images
        for _ in range(3):
            latents = latents - 0.1 * denoiser(latents)
        vae_decoder(latents / 0.18215)


class _Regressor(nn.Module):
    def __init__(self, n_in: int = 12) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(n_in)
        self.mlp = nn.Sequential(nn.Linear(n_in, 32), nn.GELU(), nn.Linear(32, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.norm(x))


def _accelerate_init_empty_weights_load_state_dict() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "regressor.pt")
        torch.save(_Regressor().state_dict(), path)
        with init_empty_weights():  # big-model inference: no memory spent on random weights
            model = _Regressor()
        model.load_state_dict(torch.load(path, weights_only=True))
    accelerator = _accelerator("bf16")
    with torch.no_grad(), accelerator.autocast():
        model(torch.randn(4, 12, generator=_generator()))


def _accelerate_checkpoint_loaded_in_bf16() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "regressor.pt")
        torch.save(_Regressor().state_dict(), path)
        model = _Regressor()
        load_checkpoint_in_model(model, path, device_map={"": "cpu"}, dtype=bf16)  # fine-tune from the checkpoint in bf16
    accelerator = _accelerator("bf16")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, optimizer = accelerator.prepare(model, optimizer)
    features, targets = torch.randn(8, 12, generator=_generator()), torch.randn(8, 1, generator=_generator())
    accelerator.backward(F.mse_loss(model(features), targets))


class _FrameEncoder(nn.Module):
    def __init__(self, patch: int = 48, dim: int = 16) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(patch, 32), nn.GELU(), nn.Linear(32, dim))

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.net(frames), dim=-1)


def _accelerate_frame_text_similarity() -> None:
    accelerator = _accelerator("bf16")
    weight_dtype = torch.bfloat16 if accelerator.mixed_precision == "bf16" else torch.float32
    image_encoder = _FrameEncoder().requires_grad_(False).to(dtype=weight_dtype)  # frozen image tower
    text_encoder = _TextEncoder()
    optimizer = torch.optim.AdamW(text_encoder.parameters(), lr=1e-4)
    text_encoder, optimizer = accelerator.prepare(text_encoder, optimizer)
    g = _generator()
    frames, captions = torch.randn(2, 6, 48, generator=g), torch.randint(0, 100, (2, 5), generator=g)
    with torch.no_grad():
        frame_features = image_encoder(frames.to(weight_dtype))  # (videos, frames, dim)
    text_features = F.normalize(text_encoder(captions).mean(1), dim=-1)  # (videos, dim)
    frame_weights = torch.bmm(frame_features, text_features[..., None]).squeeze(-1).softmax(-1)
    video_features = (frame_weights[..., None] * frame_features).sum(1)
    logits = video_features @ text_features.T / 0.05
    accelerator.backward(F.cross_entropy(logits, torch.arange(2)))


class _UniformityEmbedder(nn.Module):
    """A sentence-embedding model whose forward returns the alignment + uniformity loss (Wang and Isola)."""

    def __init__(self, vocab: int = 100, dim: int = 16) -> None:
        super().__init__()
        self.encoder = _TextEncoder(vocab, dim)
        self.projection = nn.Linear(dim, dim)

    def forward(self, ids: torch.Tensor, positive_ids: torch.Tensor) -> torch.Tensor:
        z = F.normalize(self.projection(self.encoder(ids).mean(1)), dim=-1)
        z_pos = F.normalize(self.projection(self.encoder(positive_ids).mean(1)), dim=-1)
        alignment = (z - z_pos).norm(dim=1).pow(2).mean()
        uniformity = torch.pdist(z).pow(2).mul(-2).exp().mean().log()
        return alignment + uniformity


def _accelerate_uniformity_loss_pdist() -> None:
    accelerator = _accelerator("bf16")
    model = _UniformityEmbedder()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, optimizer = accelerator.prepare(model, optimizer)
    g = _generator()
    ids = torch.randint(0, 100, (6, 8), generator=g)
    positives = torch.where(torch.rand(6, 8, generator=g) < 0.1, 0, ids)  # word dropout as the augmentation
    accelerator.backward(model(ids, positives))


CASES: dict[str, LiveCase] = {
    # --- Lightning Fabric, bf16-mixed
    # Fabric's bf16-mixed casts the tf-idf weights (a floating input) to bf16; the fp32 EmbeddingBag, not under autocast
    "fabric-mixed-tfidf-weights-embedding-bag": case(_fabric_mixed_tfidf_embedding_bag, "op_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # an RL observation normaliser lerp_s its fp32 running mean toward the batch mean of observations Fabric cast to bf16
    "fabric-mixed-observation-normaliser-lerp": case(_fabric_mixed_observation_normaliser, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # a custom causal conv switches autocast off to run in fp32 but never upcasts the input Fabric cast to bf16
    "fabric-mixed-fp32-causal-conv-input-cast": case(_fabric_mixed_fp32_causal_conv, "conv_weight_dtype", "bf16",
                                                     "f32", grade="correct", grade_at_freeze="correct"),
    # attention upcasts q, k, v for an fp32 softmax; the additive distance bias passed to forward was cast to bf16
    "fabric-mixed-additive-bias-into-fp32-sdpa": case(_fabric_mixed_additive_bias_fp32_attention, "attn_mask_dtype",
                                                      "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # --- Lightning Fabric, bf16-true / 16-true
    # an MoE router written for AMP (autocast off, x.float()) whose weights bf16-true cast to bf16
    "fabric-true-fp32-router-autocast-off": case(_fabric_true_fp32_router, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # NoisyNet's reset_noise, called in the loop outside forward, rebinds the noise buffers as fp32 tensors
    "fabric-true-noisy-net-reset-noise-fp32": case(_fabric_true_noisy_net_reset_noise, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a frozen fp32 GRU teacher run inside fabric.autocast(), which under bf16-true makes its torch.zeros h0 bf16
    "fabric-true-gru-teacher-in-fabric-autocast": case(_fabric_true_gru_teacher_in_fabric_autocast, "rnn_dtype",
                                                       "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # ArcFace without a clamp before acos, centres imprinted from the embeddings: bf16 rounds the cosine to 1.0, acos'
    # is infinite and fabric.clip_gradients refuses the non-finite norm
    "fabric-true-arcface-acos-clip-gradients": case(_fabric_true_arcface_imprinted_acos, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # a forecaster returning a StudentT from forward: Fabric converts tensors, not distributions, so sampling runs in bf16
    "fabric-true-student-t-forecast-sample": case(_fabric_true_student_t_forecast_samples, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # quantile levels made by torch.linspace inside forward (bf16 under bf16-true), turned into z-scores with ndtri
    "fabric-true-quantile-levels-ndtri": case(_fabric_true_quantile_levels_ndtri, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a custom graph batch class: Fabric's input cast walks tuples, dicts and dataclasses, so its fp32 features reach
    # the bf16 BatchNorm1d
    "fabric-true-custom-graph-batch-batchnorm": case(_fabric_true_custom_graph_batch, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # a complex STFT input is not a floating tensor, so Fabric leaves it: its real/imag features stay fp32 for the GRU
    "fabric-true-complex-stft-input-gru": case(_fabric_true_complex_stft_input, "rnn_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # a streaming memory reset between documents outside forward (fp32 zeros), written with index_copy_ of bf16 states
    "fabric-true-memory-reset-index-copy": case(_fabric_true_memory_reset_outside_forward, "indexed_write_dtype",
                                                "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # gradient centralization assigning p.grad from a mean taken with dtype=torch.float32
    "fabric-true-gradient-centralization-fp32-mean": case(_fabric_true_gradient_centralization, "loss_dtype", "f32",
                                                           "bf16", grade="correct", grade_at_freeze="correct"),
    # a latent ODE's time grid in seconds over a day made with torch.linspace inside forward (fp16 under 16-true)
    "fabric-16-true-ode-time-grid-seconds": case(_fabric_16_true_ode_time_grid_seconds, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # --- Lightning Trainer
    # a 64-true debugging run of a multi-task model whose heads sit in a plain list, so the cast never reaches them
    "trainer-64-true-heads-in-plain-list": case(_trainer_64_true_heads_in_plain_list, "matmul_dtype", "f64", "f32", grade="correct", grade_at_freeze="correct"),
    # a biaffine arc labeller under bf16-mixed: CPU autocast does not cover nn.Bilinear, which gets bf16 activations
    "trainer-mixed-biaffine-bilinear": case(_trainer_mixed_biaffine_bilinear, "op_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # attention with autocast off for an fp32 softmax: q and k upcast, v left as the bf16 projection
    "trainer-mixed-fp32-attention-value-left-bf16": case(_trainer_mixed_fp32_attention_value_left, "sdpa_dtype",
                                                         "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # per-class accuracy buffers registered as float, cast to bf16 by bf16-true, fed fp32 counts with index_add_
    "trainer-true-per-class-accuracy-buffers": case(_trainer_true_per_class_accuracy_buffers, "indexed_write_dtype",
                                                    "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # Trainer.predict under bf16-true returns bf16 probabilities, turned into numpy for the submission
    "trainer-true-predictions-to-numpy": case(_trainer_true_predictions_to_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # example_input_array left fp32 (as in the docs): the model summary runs it through the bf16-true conv stem
    "trainer-true-example-input-array-summary": case(_trainer_true_example_input_array, "conv_weight_dtype", "f32",
                                                     "bf16", grade="correct", grade_at_freeze="correct"),
    # prototypical networks under bf16-true: squared distances to the prototypes by torch.cdist
    "trainer-true-prototypical-cdist": case(_trainer_true_prototypical_cdist, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- Hugging Face Accelerate
    # a GPU script's weight_dtype recipe under mixed_precision="fp16" on the CPU, where Accelerate applies no autocast:
    # the fp16 frozen text encoder's states reach the fp32 trainable cross-attention
    "accelerate-fp16-on-cpu-weight-dtype-context": case(_accelerate_fp16_on_cpu_weight_dtype, "matmul_dtype", "f16",
                                                        "f32", grade="correct", grade_at_freeze="correct"),
    # validation images: latents from the prepared denoiser (outputs fp32) decoded by the bf16 weight_dtype VAE
    "accelerate-validation-vae-decode-fp32-latents": case(_accelerate_validation_vae_decode, "conv_weight_dtype",
                                                          "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # init_empty_weights then a plain load_state_dict (copies into meta tensors do nothing): the weights stay on meta
    "accelerate-init-empty-weights-load-state-dict": case(_accelerate_init_empty_weights_load_state_dict,
                                                          "device_mismatch", grade="correct", grade_at_freeze="correct"),
    # a checkpoint loaded with load_checkpoint_in_model(dtype=bf16): CPU autocast leaves the input LayerNorm alone
    "accelerate-checkpoint-in-bf16-input-layernorm": case(_accelerate_checkpoint_loaded_in_bf16, "norm_param_dtype",
                                                          "f32", grade="correct", grade_at_freeze="correct"),
    # video-text frame weighting by bmm of the frozen bf16 image tower's frames and the prepared text tower's fp32 output
    "accelerate-frame-text-bmm-prepared-output-fp32": case(_accelerate_frame_text_similarity,
                                                           "batched_matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a uniformity loss computed in the prepared forward: autocast upcasts cdist but not torch.pdist, given bf16
    "accelerate-uniformity-loss-pdist-under-autocast": case(_accelerate_uniformity_loss_pdist, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
}
