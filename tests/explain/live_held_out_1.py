"""Held-out live set 1: training and fine-tuning code. Defects planted by a helper who never read the rules, written
before castwise ran and graded once with the rules frozen at 91069b4."""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    BertModel,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
)

from .live_cases import LiveCase, case

FROZEN_AT = "91069b4"

bf16, f16 = torch.bfloat16, torch.float16


def _bert_config(num_labels: int = 2) -> BertConfig:
    return BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                      intermediate_size=32, max_position_embeddings=32, num_labels=num_labels)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class _RotaryAttention(nn.Module):
    """Self-attention with rotary embeddings; the inverse frequencies are a plain attribute, so .to() leaves them."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        head_dim = dim // heads
        self.inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        freqs = torch.outer(torch.arange(t, dtype=torch.float32), self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


def _rotary_cache_in_fp32() -> None:
    model = _RotaryAttention().to(bf16)
    model(torch.randn(2, 6, 16, dtype=bf16))


class _CausalLM(nn.Module):
    """A one-layer decoder-only model using nn.MultiheadAttention with torch's square subsequent mask."""

    def __init__(self, vocab: int = 32, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.tokens(ids)
        mask = nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
        h, _ = self.attention(h, h, h, attn_mask=mask)
        return self.head(h)


def _subsequent_mask_in_bf16_attention() -> None:
    model = _CausalLM().to(bf16)
    model(torch.tensor([[1, 5, 7, 2, 9]]))


class _AlibiAttention(nn.Module):
    """BLOOM-style attention: ALiBi slopes times key positions, added to the scores through baddbmm."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.slopes = torch.tensor([2 ** (-8 * (i + 1) / heads) for i in range(heads)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        head_dim = d // self.heads
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = (z.reshape(b * self.heads, t, head_dim) for z in (q, k, v))
        alibi = (self.slopes[:, None] * torch.arange(t)[None, :]).repeat(b, 1)[:, None, :]
        scores = torch.baddbmm(alibi, q, k.transpose(1, 2), beta=1.0, alpha=1 / math.sqrt(head_dim))
        return torch.bmm(scores.softmax(-1), v)


def _alibi_bias_in_fp32() -> None:
    model = _AlibiAttention().to(bf16)
    model(torch.randn(2, 5, 16, dtype=bf16))


class _ManualAttention(nn.Module):
    """Attention written out by hand, with the softmax upcast to fp32 for stability."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        probs = scores.float().softmax(dim=-1)
        return probs @ v


def _softmax_upcast_not_cast_back() -> None:
    model = _ManualAttention().to(bf16)
    model(torch.randn(2, 4, 16, dtype=bf16))


class _TinyEncoder(nn.Module):
    """Token embeddings plus a sinusoidal position table kept as a plain tensor attribute."""

    def __init__(self, vocab: int = 32, dim: int = 16, max_len: int = 64) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        position = torch.arange(max_len)[:, None]
        div = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
        self.pe = torch.zeros(max_len, dim)
        self.pe[:, 0::2] = torch.sin(position * div)
        self.pe[:, 1::2] = torch.cos(position * div)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.proj(self.tokens(ids) + self.pe[: ids.shape[1]])


def _position_table_attribute() -> None:
    encoder = _TinyEncoder().to(bf16)
    encoder(torch.tensor([[1, 5, 7, 2]]))


class _LoRALinear(nn.Module):
    """A frozen base linear plus a low-rank trainable update."""

    def __init__(self, base: nn.Linear, rank: int = 4, alpha: float = 8.0) -> None:
        super().__init__()
        self.base = base
        self.lora_a = nn.Linear(base.in_features, rank, bias=False)
        self.lora_b = nn.Linear(rank, base.out_features, bias=False)
        nn.init.zeros_(self.lora_b.weight)
        self.scale = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + self.lora_b(self.lora_a(x)) * self.scale


def _lora_adapter_in_fp32() -> None:
    first = nn.Linear(16, 32)
    model = nn.Sequential(first, nn.GELU(), nn.Linear(32, 16)).to(bf16)
    model.requires_grad_(False)
    model[0] = _LoRALinear(first)
    model(torch.randn(4, 16, dtype=bf16)).float().pow(2).mean().backward()


def _llama_lm_head_upcast() -> None:
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32)
    model = LlamaForCausalLM(config).to(bf16)
    model.lm_head.float()  # logits in fp32 for a stable loss
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    model(input_ids=ids, labels=ids)


def _gpt2_blocks_cast_norms_kept() -> None:
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=2, n_head=2,
                                       bos_token_id=0, eos_token_id=0))
    for block in model.transformer.h:  # layer norms stay in fp32
        block.attn.to(bf16)
        block.mlp.to(bf16)
    ids = torch.tensor([[1, 2, 3, 4]])
    model(input_ids=ids, labels=ids)


class _FusedLinear(torch.autograd.Function):
    """A hand-written linear with its own backward (no custom_fwd / custom_bwd)."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        return x @ weight.t()

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, weight = ctx.saved_tensors  # type: ignore[attr-defined]
        return grad @ weight, grad.t() @ x


def _custom_function_backward_outside_autocast() -> None:
    weight = nn.Parameter(torch.randn(8, 16) * 0.1)
    x = torch.randn(4, 16)
    with torch.autocast("cpu", dtype=bf16):
        y = _FusedLinear.apply(x, weight)
        loss = y.float().pow(2).mean()
    loss.backward()


def _conv1d_stem_added_after_cast() -> None:
    model = nn.Sequential(nn.Conv1d(2, 8, 5, stride=2, bias=False), nn.GELU(), nn.Conv1d(8, 8, 3, bias=False),
                          nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(8, 4)).to(bf16)
    model[0] = nn.Conv1d(1, 8, 5, stride=2, bias=False)  # mono audio instead of stereo
    model(torch.randn(2, 1, 64, dtype=bf16))


def _conv_transpose_matrices_only_cast() -> None:
    decoder = nn.Sequential(nn.ConvTranspose2d(4, 8, 4, stride=2, padding=1), nn.ReLU(),
                            nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1))
    for param in decoder.parameters():
        if param.dim() > 1:  # keep biases and other 1-D params in fp32
            param.data = param.data.to(bf16)
    decoder(torch.randn(1, 4, 8, 8, dtype=bf16))


def _batchnorm_params_cast_buffers_left() -> None:
    model = nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU())
    for param in model.parameters():
        param.data = param.data.to(bf16)
    model.eval()
    model(torch.randn(2, 3, 8, 8, dtype=bf16))


def _bert_soft_prompt_in_fp32() -> None:
    torch.manual_seed(0)
    model = BertModel(_bert_config()).to(bf16)
    model.requires_grad_(False)
    prompt = nn.Parameter(torch.randn(3, 16) * 0.02)  # trainable soft prompt
    ids = torch.tensor([[2, 7, 9, 4]])
    embeds = torch.cat([prompt.expand(1, -1, -1), model.embeddings.word_embeddings(ids)], dim=1)
    model(inputs_embeds=embeds)


def _gru_decoder_after_autocast() -> None:
    encoder = nn.Linear(8, 16)
    decoder = nn.GRU(16, 16, batch_first=True)
    with torch.autocast("cpu", dtype=bf16):
        memory = encoder(torch.randn(2, 5, 8))
    output, _ = decoder(memory)
    output.sum().backward()


class _Router(torch.autograd.Function):
    """Top-1 router kept in fp32: custom_fwd casts its inputs to fp32 under autocast."""

    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx: torch.autograd.function.FunctionCtx, h: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        probs = (h @ weight.t()).softmax(dim=-1)
        ctx.save_for_backward(h, weight, probs)
        return probs

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h, weight, probs = ctx.saved_tensors  # type: ignore[attr-defined]
        grad_logits = probs * (grad - (grad * probs).sum(-1, keepdim=True))
        return grad_logits @ weight, grad_logits.t() @ h


class _MoE(nn.Module):
    """A mixture of experts that writes each expert's gated output back into the token rows it took."""

    def __init__(self, dim: int = 16, experts: int = 4) -> None:
        super().__init__()
        self.router = nn.Parameter(torch.randn(experts, dim) * 0.1)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(experts))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        gate, choice = _Router.apply(h, self.router).max(dim=-1)
        out = torch.zeros_like(h)
        for index, expert in enumerate(self.experts):
            rows = (choice == index).nonzero(as_tuple=True)[0]
            if rows.numel():
                out[rows] = expert(h[rows]) * gate[rows, None]
        return out


def _moe_fp32_router_gates() -> None:
    torch.manual_seed(0)
    proj, moe = nn.Linear(8, 16), _MoE()
    with torch.autocast("cpu", dtype=bf16):
        moe(proj(torch.randn(12, 8)))


def _graph_readout_scatter_add() -> None:
    torch.manual_seed(0)
    node_mlp = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16))
    x = torch.randn(7, 6)
    batch = torch.tensor([0, 0, 0, 1, 1, 2, 2])
    with torch.autocast("cpu", dtype=bf16):
        h = node_mlp(x)
        pooled = torch.zeros(3, 16).scatter_add_(0, batch[:, None].expand_as(h), h)
    pooled.sum().backward()


def _adam_state_then_model_cast() -> None:
    torch.manual_seed(0)
    model = nn.Linear(8, 4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(torch.randn(3, 8)).pow(2).mean().backward()
    optimizer.step()
    optimizer.zero_grad()
    model.to(bf16)  # after warm-up, continue in bf16
    model(torch.randn(3, 8, dtype=bf16)).float().pow(2).mean().backward()
    optimizer.step()


def _ema_over_state_dict() -> None:
    model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    ema = copy.deepcopy(model)
    model(torch.randn(4, 8)).sum().backward()
    decay = 0.999
    with torch.no_grad():
        for shadow, current in zip(ema.state_dict().values(), model.state_dict().values(), strict=True):
            shadow.mul_(decay).add_(current, alpha=1 - decay)


def _embedding_bag_weights_in_fp32() -> None:
    bag = nn.EmbeddingBag(100, 16, mode="sum").to(bf16)
    items = torch.tensor([3, 17, 42, 8, 99])
    offsets = torch.tensor([0, 2])
    weights = torch.tensor([0.5, 1.0, 0.2, 0.7, 0.1])  # tf-idf weights from the data pipeline
    bag(items, offsets, per_sample_weights=weights)


def _bce_on_bf16_probabilities() -> None:
    model = nn.Sequential(nn.Linear(8, 3), nn.Sigmoid()).to(bf16)
    labels = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    nn.BCELoss()(model(torch.randn(2, 8, dtype=bf16)), labels)


def _class_weighted_cross_entropy() -> None:
    labels = torch.tensor([0, 0, 0, 1, 2, 2])
    counts = torch.bincount(labels, minlength=3).float()
    criterion = nn.CrossEntropyLoss(weight=counts.sum() / (3 * counts))
    model = nn.Linear(8, 3).to(bf16)
    criterion(model(torch.randn(6, 8, dtype=bf16)), labels)


def _encoder_validation_fp32_features() -> None:
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2).to(bf16)
    encoder.eval()
    features = torch.randn(2, 5, 16)  # from the fp32 feature extractor
    with torch.no_grad():
        encoder(features, src_key_padding_mask=torch.tensor([[False] * 5, [False, False, False, True, True]]))


def _fp16_mask_with_fp32_minimum() -> None:
    x = torch.randn(1, 2, 4, 8, dtype=f16)
    mask = torch.full((4, 4), torch.finfo(torch.float32).min, dtype=x.dtype).triu(1)
    F.scaled_dot_product_attention(x, x, x, attn_mask=mask)


def _clip_after_unscale(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler) -> None:
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def _grad_scaler_unscaled_twice() -> None:
    model = nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with torch.autocast("cpu", dtype=bf16):
        loss = model(torch.randn(4, 8)).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    _clip_after_unscale(model, optimizer, scaler)
    scaler.step(optimizer)
    scaler.update()


def _shampoo_preconditioner_bf16() -> None:
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(6, 4, dtype=bf16))
    (weight.float() ** 2).sum().backward()
    assert weight.grad is not None
    left = weight.grad @ weight.grad.T + 1e-4 * torch.eye(6, dtype=bf16)
    eigenvalues, eigenvectors = torch.linalg.eigh(left)
    eigenvectors @ torch.diag(eigenvalues.pow(-0.25)) @ eigenvectors.T


def _bert_multilabel_integer_labels() -> None:
    torch.manual_seed(0)
    config = _bert_config(num_labels=3)
    config.problem_type = "multi_label_classification"
    model = BertForSequenceClassification(config)
    model(input_ids=torch.tensor([[2, 7, 9, 4]]), labels=torch.tensor([[1, 0, 1]]))


def _bert_batch_cast_by_true_precision() -> None:
    torch.manual_seed(0)
    model = BertModel(_bert_config()).to(bf16)
    batch = {"input_ids": torch.tensor([[2, 7, 9, 4]]), "attention_mask": torch.ones(1, 4, dtype=torch.long)}
    batch = {key: value.to(bf16) for key, value in batch.items()}  # what a bf16-true precision does to a batch
    model(**batch)


def _sequence_logprobs_labels_cast() -> None:
    logits = torch.randn(2, 5, 11, dtype=bf16)
    batch = {"labels": torch.randint(0, 11, (2, 5))}
    batch = {key: value.to(bf16) for key, value in batch.items()}
    logits.log_softmax(-1).gather(-1, batch["labels"].unsqueeze(-1)).squeeze(-1).sum(-1)


def _padding_mask_cast_then_inverted() -> None:
    scores = torch.randn(2, 2, 4, 4, dtype=bf16)
    batch = {"attention_mask": torch.tensor([[True, True, True, False], [True, True, False, False]])}
    batch = {key: value.to(bf16) for key, value in batch.items()}
    scores.masked_fill(~batch["attention_mask"][:, None, None, :], float("-inf")).softmax(-1)


def _mha_tokenizer_mask() -> None:
    attention = nn.MultiheadAttention(16, 2, batch_first=True)
    x = torch.randn(2, 4, 16)
    attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])  # as the tokenizer returns it
    attention(x, x, x, key_padding_mask=attention_mask)


def _tabular_count_features() -> None:
    features = torch.from_numpy(np.array([[3, 120, 1], [5, 80, 0], [2, 200, 1], [7, 95, 0]]))
    model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    model(features)


def _clip_fp16_gradients() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 1)).half()
    features = (torch.rand(64, 12) * 500).half()  # raw, unnormalised
    prices = (torch.rand(64, 1) * 2000 + 1000).half()
    F.mse_loss(model(features), prices).backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)


def _policy_sampling_fp16_temperature() -> None:
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 4)).half()
    temperature = 1e-6  # near-greedy rollouts
    logits = policy(torch.randn(16, 8, dtype=f16)) / temperature
    torch.distributions.Categorical(logits=logits).sample()


class _HardRank(torch.autograd.Function):
    """Ranks through numpy in the forward pass, straight-through in the backward pass."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, scores: torch.Tensor) -> torch.Tensor:
        ranks = np.argsort(np.argsort(scores.detach().cpu().numpy(), axis=-1), axis=-1)
        return torch.from_numpy(ranks).to(scores.dtype)

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:
        return grad


def _numpy_rank_in_bf16_model() -> None:
    scorer = nn.Linear(8, 5).to(bf16)
    _HardRank.apply(scorer(torch.randn(2, 8, dtype=bf16)))


CASES: dict[str, LiveCase] = {
    # rotary cos/sin built from an fp32 attribute in a bf16 model: q and k become fp32, v stays bf16
    "rotary-cache-fp32": case(_rotary_cache_in_fp32, "sdpa_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a causal mask from nn.Transformer.generate_square_subsequent_mask (fp32) given to a bf16 MultiheadAttention
    "mha-subsequent-mask-fp32": case(_subsequent_mask_in_bf16_attention, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave batched_matmul_dtype [f32, bf16, bf16] (high confidence). baddbmm's message raised inside MultiheadAttention was read as a plain batched matmul, though its fp32 operand is the attention mask from generate_square_subsequent_mask."),
    # ALiBi slopes kept as an fp32 attribute, added to bf16 scores through baddbmm
    "alibi-bias-fp32": case(_alibi_bias_in_fp32, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # softmax upcast to fp32 for stability and never cast back before multiplying by bf16 values
    "softmax-upcast-times-bf16-values": case(_softmax_upcast_not_cast_back, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave matmul_dtype [f32, bf16] (high confidence). The `probs @ v` that raised multiplies 4-D attention tensors (a batched matmul), but the generic 'expected scalar type' message was taken for a 2-D matrix multiply."
        " Expectation corrected after grading from batched_matmul_dtype to matmul_dtype, the corpus's convention for an"
        " `@` or einsum frame (held_out_2 swin-yolov5-3's `attn @ v`, pykan-105's einsum); the frozen grade stays"
        " wrong."),
    # a sinusoidal position table stored as a plain attribute stays fp32 after .to(bf16) and promotes the hidden
    "position-table-attribute-fp32": case(_position_table_attribute, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # LoRA adapters created in fp32 after the base model was cast to bf16
    "lora-adapter-fp32": case(_lora_adapter_in_fp32, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a tiny Llama in bf16 whose lm_head was moved back to fp32 for the logits
    "llama-lm-head-fp32": case(_llama_lm_head_upcast, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a tiny GPT-2 whose attention and MLP were cast to bf16 while its layer norms stayed fp32, no autocast
    "gpt2-blocks-cast-norms-fp32": case(_gpt2_blocks_cast_norms_kept, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a custom autograd Function used under autocast without custom_fwd/custom_bwd: its backward mixes dtypes
    "custom-function-backward": case(_custom_function_backward_outside_autocast, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a new single-channel stem conv added to a bf16 audio model after the cast
    "conv1d-stem-after-cast": case(_conv1d_stem_added_after_cast, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # only matrices cast to bf16 (1-D params kept fp32): a transposed conv's bias stays fp32
    "conv-transpose-bias-kept-fp32": case(_conv_transpose_matrices_only_cast, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # parameters cast one by one, so BatchNorm's running statistics (buffers) stay fp32
    "batchnorm-running-stats-fp32": case(_batchnorm_params_cast_buffers_left, "norm_param_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # prompt tuning: an fp32 soft prompt concatenated to bf16 word embeddings of a bf16 BERT
    "bert-soft-prompt-fp32": case(_bert_soft_prompt_in_fp32, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 activation that left the autocast region fed to an fp32 GRU decoder
    "gru-after-autocast": case(_gru_decoder_after_autocast, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an fp32 router (custom_fwd cast_inputs) gates bf16 expert outputs written back into a bf16 buffer
    "moe-fp32-router-gates": case(_moe_fp32_router_gates, "indexed_write_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # graph readout: bf16 node features from autocast scatter-added into an fp32 zeros buffer
    "graph-readout-scatter-add": case(_graph_readout_scatter_add, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # the model cast to bf16 mid-training while AdamW's moments stay fp32
    "adamw-state-fp32-after-cast": case(_adam_state_then_model_cast, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # EMA over the whole state_dict, BatchNorm's integer num_batches_tracked included
    "ema-state-dict-num-batches": case(_ema_over_state_dict, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # bf16 embedding tables with fp32 per-sample weights from the data pipeline
    "embedding-bag-fp32-weights": case(_embedding_bag_weights_in_fp32, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave scalar_type [bf16, f32] (high confidence). embedding_bag's weight/per_sample_weights message was filed under the generic scalar-type kind, though its cause names the op and both dtypes right."),
    # BCELoss on bf16 probabilities with fp32 labels
    "bce-bf16-probs-fp32-labels": case(_bce_on_bf16_probabilities, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave loss_dtype [f32, bf16] (high confidence). binary_cross_entropy's 'Found dtype Float but expected BFloat16' was read as a loss backward's gradient mismatch, while it is raised in the forward pass by a bf16 prediction and an fp32 target (its fix, the loss in fp32, would still work)."),
    # class weights computed from label counts in fp32 for a bf16 model's cross-entropy
    "class-weights-fp32": case(_class_weighted_cross_entropy, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="wrong",
        why="At freeze (91069b4) castwise gave scalar_type [bf16, f32] (low confidence). The message names no op, and the cross_entropy frame and its fp32 class weights were not used to name the op that raised."),
    # validation through a bf16 TransformerEncoder in eval/no_grad with fp32 features: the fastpath raises
    "encoder-eval-fp32-features": case(_encoder_validation_fp32_features, "transformer_fastpath", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 causal mask filled with float32's minimum
    "fp16-mask-float32-min": case(_fp16_mask_with_fp32_minimum, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # GradScaler: unscale_ called in the step and again in a clipping helper
    "grad-scaler-unscale-twice": case(_grad_scaler_unscaled_twice, "loss_scale",
        grade="correct", grade_at_freeze="correct"),
    # a Shampoo-style preconditioner kept in the parameters' bf16 and eigendecomposed
    "shampoo-eigh-bf16": case(_shampoo_preconditioner_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # multi-label BERT fine-tuning with multi-hot labels left as integers
    "bert-multilabel-int-labels": case(_bert_multilabel_integer_labels, "target_dtype", "int64", fix=("float",),
        grade="correct", grade_at_freeze="correct"),
    # a bf16-true precision casts the whole batch: BERT's input_ids become bf16
    "bert-input-ids-cast-bf16": case(_bert_batch_cast_by_true_precision, "index_tensor_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DPO-style per-token log-probabilities gathered with labels the batch cast made bf16
    "logprob-gather-labels-bf16": case(_sequence_logprobs_labels_cast, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # a boolean padding mask cast to bf16 with the batch, then inverted with ~
    "padding-mask-cast-inverted": case(_padding_mask_cast_then_inverted, "mask_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. The TypeError of `~` on a bf16 tensor (a bool mask cast with the batch) is not a message the rules read."),
    # the tokenizer's 0/1 integer attention_mask passed as MultiheadAttention's key_padding_mask
    "mha-key-padding-int-mask": case(_mha_tokenizer_mask, "mask_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. MultiheadAttention's AssertionError on an integer key_padding_mask is not a message the rules read."),
    # integer count features from numpy straight into a BatchNorm1d-first tabular model
    "tabular-int-features-batchnorm": case(_tabular_count_features, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # fp16 regression without loss scaling on raw features: the gradients overflow and clipping refuses
    "clip-fp16-gradients-nonfinite": case(_clip_fp16_gradients, "nonfinite",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. clip_grad_norm_'s non-finite total norm error (fp16 gradients that overflowed) is not a message the rules read."),
    # near-greedy sampling in fp16: logits divided by a tiny temperature overflow, Categorical sees NaN
    "policy-fp16-temperature-nan": case(_policy_sampling_fp16_temperature, "nonfinite",
        grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (91069b4) castwise gave nothing. torch.distributions' invalid-values ValueError on NaN logits (fp16 overflow) is not a message the rules read."),
    # a custom autograd Function computing ranks with numpy, inside a bf16 model
    "numpy-rank-function-bf16": case(_numpy_rank_in_bf16_model, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
