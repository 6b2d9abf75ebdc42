"""Held-out live set 38: torch.distributed on one gloo process in low precision, revisited (object collectives,
list and coalesced collectives, FSDP2 mixed-precision policies meeting layers that build tensors in forward, DTensor
optimizers, masks and caches, DDP buffers and inputs, a distributed checkpoint read in its stored dtype). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
ab1286f."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn.functional as F
from torch import nn
from torch.distributed.checkpoint.state_dict_loader import _load_state_dict_from_keys
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import Replicate, Shard, distribute_tensor
from torch.distributed.tensor.experimental import implicit_replication
from torch.nn.parallel import DistributedDataParallel as DDP

from .live_cases import LiveCase, case

FROZEN_AT = "ab1286f"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


@contextlib.contextmanager
def _one_rank() -> Iterator[str]:
    """A gloo process group of world size 1 for the block, set up through a file in a temporary directory (whose path
    the block gets) and destroyed however the block ends."""
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group("gloo", init_method=Path(folder, "store").as_uri(), rank=0, world_size=1)
        try:
            yield folder
        finally:
            dist.destroy_process_group()


def _mesh() -> DeviceMesh:
    return init_device_mesh("cpu", (dist.get_world_size(),))


def _bf16_policy() -> MixedPrecisionPolicy:
    return MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=torch.float32)


# --- collectives and object collectives


def _int16_waveform_broadcast() -> None:
    torch.manual_seed(0)
    with _one_rank():
        pcm = (torch.randn(16000) * 3000).to(torch.int16)  # rank 0 decoded the wav file as 16-bit PCM
        dist.broadcast(pcm, src=0)
        _ = pcm.float() / 32768.0


def _predictions_gathered_as_objects_to_numpy() -> None:
    torch.manual_seed(0)
    with _one_rank():
        model = nn.Linear(16, 5).to(bf16).eval()
        with torch.no_grad():
            probs = model(torch.randn(8, 16, dtype=bf16)).softmax(-1)
        gathered: list[object] = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, probs)
        np.concatenate(gathered).argmax(-1)


def _token_ids_broadcast_as_numpy_uint16() -> None:
    with _one_rank():
        prompt = [np.array([17, 3, 250, 9, 42], dtype=np.uint16)]  # rank 0's tokenizer output, GPT-2 style uint16
        dist.broadcast_object_list(prompt, src=0)
        embed = nn.Embedding(512, 32).to(bf16)
        embed(torch.from_numpy(prompt[0])[None])


def _feature_chunks_scattered_as_float64() -> None:
    rng = np.random.default_rng(0)
    with _one_rank():
        chunks = [rng.standard_normal((4, 12)) for _ in range(dist.get_world_size())]  # rank 0 read a .npy file
        mine: list[object] = [None]
        dist.scatter_object_list(mine, chunks, src=0)
        head = nn.Sequential(nn.Linear(12, 24), nn.GELU(), nn.Linear(24, 3)).to(bf16)
        head(torch.from_numpy(mine[0]))


def _int8_weight_shard_gathered_into_bf16_buffer() -> None:
    torch.manual_seed(0)
    with _one_rank():
        shard = torch.randn(64, 32, dtype=bf16)
        scale = shard.abs().amax(dim=1, keepdim=True).float() / 127
        quantized = (shard.float() / scale).round().clamp(-127, 127).to(torch.int8)
        full = torch.empty(64 * dist.get_world_size(), 32, dtype=shard.dtype)
        dist.all_gather_into_tensor(full, quantized)


def _throughput_mean_of_gathered_token_counts() -> None:
    with _one_rank():
        attention_mask = torch.ones(4, 128, dtype=torch.long)
        tokens = attention_mask.sum().reshape(1)
        per_rank = torch.zeros(dist.get_world_size(), dtype=torch.long)
        dist.all_gather_into_tensor(per_rank, tokens)
        _ = per_rank.mean().item()


def _grads_all_reduced_coalesced_mixed_dtypes() -> None:
    torch.manual_seed(0)
    with _one_rank():
        model = nn.Sequential(nn.Linear(16, 16).to(bf16), nn.LayerNorm(16))  # LayerNorm kept fp32 for stability
        x = torch.randn(4, 16, dtype=bf16)
        model[1](model[0](x).float()).pow(2).mean().backward()
        dist.all_reduce_coalesced([p.grad for p in model.parameters()])


def _sample_counts_gathered_into_long_buffers() -> None:
    with _one_rank():
        keep = torch.tensor([True, False, True, True])
        kept = keep.sum(dtype=torch.int32).reshape(1)
        counts = [torch.zeros(1, dtype=torch.long) for _ in range(dist.get_world_size())]
        dist.all_gather(counts, kept)


def _sequence_parallel_reduce_scatter_into_bf16() -> None:
    torch.manual_seed(0)
    with _one_rank():
        hidden = torch.randn(8, 16, dtype=bf16)
        down = torch.randn(16, 16, dtype=bf16)
        partial = hidden.float() @ down.float()  # row-parallel matmul accumulated in fp32
        out = torch.empty(8 // dist.get_world_size(), 16, dtype=bf16)
        dist.reduce_scatter_tensor(out, partial)


def _confusion_matrix_from_labels_cast_with_batch() -> None:
    with _one_rank():
        batch = {"pixels": torch.rand(3, 8), "labels": torch.tensor([1, 2, 0])}
        batch = {k: v.to(bf16) for k, v in batch.items()}  # the whole batch cast for the bf16 model
        preds = torch.tensor([1, 1, 0])
        labels = torch.empty(3 * dist.get_world_size(), dtype=batch["labels"].dtype)
        dist.all_gather_into_tensor(labels, batch["labels"])
        torch.bincount(labels * 3 + preds, minlength=9).reshape(3, 3)


def _class_weights_from_global_label_counts() -> None:
    torch.manual_seed(0)
    with _one_rank():
        model = DDP(nn.Linear(8, 3).to(bf16))
        labels = torch.tensor([0, 0, 1, 2])
        counts = torch.bincount(labels, minlength=3)
        dist.all_reduce(counts)
        weight = counts.sum() / (3 * counts)
        F.cross_entropy(model(torch.randn(4, 8, dtype=bf16)), labels, weight=weight)


# --- FSDP2


class _CausalSelfAttention(nn.Module):
    """Self-attention whose causal mask is built in forward."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(width, 2, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        future = torch.ones(length, length, dtype=torch.bool).triu(1)
        mask = torch.zeros(length, length).masked_fill(future, float("-inf"))
        return self.attn(x, x, x, attn_mask=mask)[0]


def _fsdp2_causal_mask_built_in_forward() -> None:
    torch.manual_seed(0)
    with _one_rank():
        block = _CausalSelfAttention()
        fully_shard(block, mp_policy=_bf16_policy())
        block(torch.randn(2, 6, 16))


class _WeightedBag(nn.Module):
    """A DLRM-style weighted embedding bag, each id weighted by its recency."""

    def __init__(self) -> None:
        super().__init__()
        self.bag = nn.EmbeddingBag(100, 16, mode="sum")

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        recency = 0.9 ** torch.arange(ids.shape[0], dtype=torch.float32)
        return self.bag(ids, offsets, per_sample_weights=recency)


def _fsdp2_embedding_bag_weights_made_in_forward() -> None:
    torch.manual_seed(0)
    with _one_rank():
        bag = _WeightedBag()
        fully_shard(bag, mp_policy=_bf16_policy())
        bag(torch.tensor([3, 14, 15, 92, 65]), torch.tensor([0, 2]))


class _RotaryAttention(nn.Module):
    """Attention with a rotary cos/sin cache kept as (fp32) buffers."""

    def __init__(self, width: int = 16, heads: int = 2, max_len: int = 32) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        half = width // heads // 2
        freqs = torch.outer(torch.arange(max_len).float(), 1.0 / 10000 ** (torch.arange(half) / half))
        self.register_buffer("cos", freqs.cos().repeat(1, 2), persistent=False)
        self.register_buffer("sin", freqs.sin().repeat(1, 2), persistent=False)

    def _rotate(self, t: torch.Tensor) -> torch.Tensor:
        length = t.shape[-2]
        first, second = t.chunk(2, dim=-1)
        return t * self.cos[:length] + torch.cat([-second, first], dim=-1) * self.sin[:length]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, width // self.heads).permute(2, 0, 3, 1, 4)
        return F.scaled_dot_product_attention(self._rotate(q), self._rotate(k), v, is_causal=True)


def _fsdp2_rotary_cache_buffers_fp32() -> None:
    torch.manual_seed(0)
    with _one_rank():
        attention = _RotaryAttention()
        fully_shard(attention, mp_policy=_bf16_policy())
        attention(torch.randn(2, 8, 16))


def _fsdp2_fp16_params_overflow_clipped() -> None:
    torch.manual_seed(0)
    with _one_rank():
        model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
        fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=f16))
        readings = torch.full((8, 32), 400.0)  # raw sensor values, never normalised
        model(readings).pow(4).mean().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)


def _fsdp2_bf16_linears_fp32_norm_without_policy() -> None:
    with _one_rank():
        block = nn.Sequential(nn.Linear(16, 64).to(bf16), nn.GELU(), nn.Linear(64, 16).to(bf16), nn.LayerNorm(16))
        fully_shard(block)  # no MixedPrecisionPolicy: the dtypes were set by hand instead
        block(torch.randn(2, 16, dtype=bf16))


def _fsdp2_policy_param_dtype_fp8() -> None:
    torch.manual_seed(0)
    with _one_rank():
        model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))
        fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=E4M3, reduce_dtype=bf16))
        model(torch.randn(4, 16))


class _GRUEncoder(nn.Module):
    """A GRU encoder that starts from a zero state made in forward."""

    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(16, 32, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h0 = torch.zeros(1, x.shape[0], 32)
        return self.gru(x, h0)[0]


def _fsdp2_gru_zero_state_made_in_forward() -> None:
    torch.manual_seed(0)
    with _one_rank():
        encoder = _GRUEncoder()
        fully_shard(encoder, mp_policy=_bf16_policy())
        encoder(torch.randn(2, 5, 16))


def _fsdp2_batchnorm_running_stats_fp32() -> None:
    torch.manual_seed(0)
    with _one_rank():
        tower = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 1))
        fully_shard(tower, mp_policy=_bf16_policy())
        tower(torch.randn(8, 16))


def _fsdp2_uint8_images_expected_cast() -> None:
    torch.manual_seed(0)
    with _one_rank():
        stem = nn.Sequential(nn.Conv2d(3, 16, 3, bias=False), nn.ReLU())
        fully_shard(stem, mp_policy=_bf16_policy())  # cast_forward_inputs only casts floating inputs
        stem(torch.randint(0, 256, (2, 3, 16, 16), dtype=torch.uint8))


# --- DTensor


def _shampoo_preconditioner_eigh_on_bf16_dtensor() -> None:
    torch.manual_seed(0)
    with _one_rank():
        grad = distribute_tensor(torch.randn(16, 8, dtype=bf16), _mesh(), [Shard(0)])
        statistic = grad.full_tensor() @ grad.full_tensor().T + 1e-4 * torch.eye(16, dtype=bf16)
        torch.linalg.eigh(statistic)


def _low_rank_optimizer_qr_on_bf16_dtensor() -> None:
    torch.manual_seed(0)
    with _one_rank():
        momentum = distribute_tensor(torch.randn(16, 8, dtype=bf16), _mesh(), [Shard(0)])
        basis = momentum @ distribute_tensor(torch.randn(8, 2, dtype=bf16), _mesh(), [Replicate()])
        torch.linalg.qr(basis)


def _sequence_sharded_padding_mask_float_in_where() -> None:
    torch.manual_seed(0)
    with _one_rank():
        valid = torch.ones(2, 8)
        valid[:, 6:] = 0.0
        mask = distribute_tensor(valid, _mesh(), [Shard(1)])
        scores = distribute_tensor(torch.randn(2, 8, dtype=bf16), _mesh(), [Shard(1)])
        torch.where(mask, scores, torch.tensor(float("-inf"), dtype=bf16))


def _fp32_lora_on_tensor_parallel_bf16_base() -> None:
    torch.manual_seed(0)
    with _one_rank():
        base = distribute_tensor(torch.randn(32, 16, dtype=bf16), _mesh(), [Shard(0)])
        lora_a, lora_b = torch.randn(4, 16) * 0.01, torch.zeros(32, 4)  # adapter kept fp32 for training
        x = torch.randn(3, 16, dtype=bf16)
        with implicit_replication():
            _ = F.linear(x, base) + F.linear(F.linear(x, lora_a), lora_b)


def _head_sharded_kv_cache_fp32_index_copy() -> None:
    torch.manual_seed(0)
    with _one_rank():
        cache = distribute_tensor(torch.zeros(2, 4, 16, 8), _mesh(), [Shard(1)])
        new_keys = distribute_tensor(torch.randn(2, 4, 1, 8, dtype=bf16), _mesh(), [Shard(1)])
        cache.index_copy_(2, torch.tensor([5]), new_keys)


def _sequence_sharded_bool_mask_inverted_with_minus() -> None:
    with _one_rank():
        padding = torch.zeros(2, 8, dtype=torch.bool)
        padding[:, 6:] = True
        sharded = distribute_tensor(padding, _mesh(), [Shard(1)])
        token_weight = 1 - sharded
        _ = token_weight.sum()


# --- DDP


def _ddp_vocab_remap_buffer_int16() -> None:
    with _one_rank():
        model = nn.Sequential(nn.Embedding(1000, 16), nn.Linear(16, 1000))
        model.register_buffer("remap", torch.arange(30000, 31000, dtype=torch.int16))  # pruned vocab, ids < 32768
        DDP(model)


def _ddp_bf16_audio_model_fed_fp32_features() -> None:
    torch.manual_seed(0)
    with _one_rank():
        encoder = nn.Sequential(nn.Conv1d(40, 64, 5, bias=False), nn.GELU(), nn.Conv1d(64, 64, 5, bias=False))
        model = DDP(encoder.to(bf16))  # expected DDP to cast the inputs, as FSDP's policy does
        model(torch.randn(2, 40, 100))


# --- distributed checkpoint


def _dcp_fp8_weights_read_in_stored_dtype() -> None:
    torch.manual_seed(0)
    with _one_rank() as folder:
        weight = torch.randn(32, 16)
        scale = weight.abs().amax() / 448
        dcp.save({"proj.weight": (weight / scale).to(E4M3), "proj.scale": scale}, checkpoint_id=Path(folder, "ckpt"))
        state = _load_state_dict_from_keys(checkpoint_id=Path(folder, "ckpt"))
        F.linear(torch.randn(4, 16, dtype=bf16), state["proj.weight"]) * state["proj.scale"]


CASES: dict[str, LiveCase] = {
    # --- collectives and object collectives
    # rank 0 decodes a wav file as int16 PCM and broadcasts the samples to the other ranks over gloo
    "int16-waveform-broadcast": case(_int16_waveform_broadcast, "no_kernel", grade="correct", grade_at_freeze="correct"),
    # bf16 probabilities gathered with all_gather_object, concatenated with numpy for the metric
    "bf16-predictions-all-gather-object-numpy": case(_predictions_gathered_as_objects_to_numpy, "numpy_dtype",
                                                     "bf16", grade="correct", grade_at_freeze="correct"),
    # rank 0's tokenizer output (numpy uint16) shared with broadcast_object_list, fed to a bf16 embedding
    "uint16-token-ids-broadcast-object-embedding": case(_token_ids_broadcast_as_numpy_uint16, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # float64 numpy feature chunks handed out with scatter_object_list, fed to a bf16 head
    "float64-chunks-scatter-object-bf16-head": case(_feature_chunks_scattered_as_float64, "matmul_dtype", "f64",
                                                    "bf16", grade="correct", grade_at_freeze="correct"),
    # ZeRO++-style quantized weight all-gather: int8 shards gathered into a buffer made in the model's bf16 dtype
    "int8-weight-shard-gathered-into-bf16-buffer": case(_int8_weight_shard_gathered_into_bf16_buffer, "scalar_type",
                                                        "int8", "bf16", grade="correct", grade_at_freeze="correct"),
    # throughput logging: per-rank token counts (int64) all-gathered and averaged with .mean()
    "gathered-token-counts-mean": case(_throughput_mean_of_gathered_token_counts, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # hand-rolled gradient bucketing with all_reduce_coalesced over bf16 linear and fp32 LayerNorm gradients
    "all-reduce-coalesced-bf16-and-fp32-grads": case(_grads_all_reduced_coalesced_mixed_dtypes, "scalar_type", "bf16",
                                                     "f32", grade="correct", grade_at_freeze="correct"),
    # kept-sample counts summed as int32, all_gather'ed into int64 receive buffers
    "int32-counts-all-gather-into-long-buffers": case(_sample_counts_gathered_into_long_buffers, "scalar_type",
                                                      "int64", "int32", grade="correct", grade_at_freeze="correct"),
    # sequence parallel: a row-parallel matmul's fp32 partial sums reduce-scattered into a bf16 output buffer
    "sequence-parallel-fp32-partials-reduce-scatter-bf16": case(_sequence_parallel_reduce_scatter_into_bf16,
                                                                "scalar_type", "bf16", "f32", grade="correct", grade_at_freeze="not_recognised",
                why='At freeze (ab1286f) castwise gave nothing. The gloo reduce_scatter\'s failed dtype check ("Check failed: outputTensors[i].dtype() == inputTensors[i].dtype() (c10::BFloat16 vs. float)") is not read, though it is the collective output/input dtype mismatch castwise recognises in other wordings.'),
    # distributed confusion matrix: labels cast to bf16 with the whole batch, gathered, counted with bincount
    "confusion-matrix-bincount-bf16-labels": case(_confusion_matrix_from_labels_cast_with_batch,
                                                  "index_tensor_dtype", "bf16", grade="correct", grade_at_freeze="wrong",
                why='At freeze (ab1286f) castwise gave no_kernel [bf16] (high confidence). It read "bincount_cpu not implemented for \'BFloat16\'" as a missing low-precision kernel, but bincount counts integers only (no float kernel at all): the labels cast to bf16 with the batch must be made long again, and its upcast-to-float32 fix would fail the same way.'),
    # class-balanced cross-entropy with fp32 weights from all-reduced label counts, bf16 DDP logits
    "class-weights-from-global-counts-bf16-logits": case(_class_weights_from_global_label_counts, "op_dtype",
                                                         "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # --- FSDP2
    # bf16 policy; the causal mask built in forward with torch.zeros (fp32) for MultiheadAttention
    "fsdp2-causal-mask-built-in-forward-fp32": case(_fsdp2_causal_mask_built_in_forward, "attn_mask_dtype", "f32",
                                                    "bf16", grade="correct", grade_at_freeze="correct"),
    # bf16 policy; EmbeddingBag per_sample_weights made in forward in fp32
    "fsdp2-embedding-bag-fp32-sample-weights": case(_fsdp2_embedding_bag_weights_made_in_forward, "op_dtype", "bf16",
                                                    "f32", grade="correct", grade_at_freeze="correct"),
    # bf16 policy; the rotary cos/sin cache kept as fp32 buffers makes q and k fp32 while v is bf16
    "fsdp2-rotary-cache-buffers-fp32-sdpa": case(_fsdp2_rotary_cache_buffers_fp32, "sdpa_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # fp16 param policy on raw (unnormalised) readings: the gradients overflow, clipping refuses the norm
    "fsdp2-fp16-params-raw-readings-clip-nonfinite": case(_fsdp2_fp16_params_overflow_clipped, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # fully_shard without a policy over bf16 linears and a LayerNorm kept fp32 by hand
    "fsdp2-bf16-linears-fp32-norm-no-policy": case(_fsdp2_bf16_linears_fp32_norm_without_policy, "op_dtype", "bf16",
                                                   "f32", grade="correct", grade_at_freeze="wrong",
                why="At freeze (ab1286f) castwise gave scalar_type [bf16, f32] (high confidence). It files FSDP's uniform-parameter-dtype check under the collective kind, while the expectation (written first) named op_dtype for two floats met in one FSDP parameter group; its cause and fix (one dtype before wrapping, or a MixedPrecisionPolicy) do describe the defect."),
    # a MixedPrecisionPolicy with param_dtype=float8_e4m3fn, hoping for fp8 training
    "fsdp2-policy-param-dtype-fp8": case(_fsdp2_policy_param_dtype_fp8, "no_kernel", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # bf16 policy; a GRU encoder's h0 made in forward with torch.zeros (fp32)
    "fsdp2-gru-zero-state-fp32": case(_fsdp2_gru_zero_state_made_in_forward, "rnn_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # bf16 policy casts BatchNorm's weight and bias but not its fp32 running statistics
    "fsdp2-batchnorm-running-stats-fp32": case(_fsdp2_batchnorm_running_stats_fp32, "norm_param_dtype", "bf16",
                                               "f32", grade="correct", grade_at_freeze="correct"),
    # bf16 policy over a conv stem given raw uint8 images, expecting the policy to cast them
    "fsdp2-uint8-images-conv-stem": case(_fsdp2_uint8_images_expected_cast, "integer_operand", "uint8", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- DTensor
    # distributed Shampoo: the preconditioner's eigendecomposition on a bf16 gradient statistic
    "shampoo-eigh-bf16-dtensor-statistic": case(_shampoo_preconditioner_eigh_on_bf16_dtensor, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a low-rank (PowerSGD/Dion-style) optimizer orthonormalising a bf16 DTensor with torch.linalg.qr
    "low-rank-optimizer-qr-bf16-dtensor": case(_low_rank_optimizer_qr_on_bf16_dtensor, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a sequence-sharded padding mask kept as float 0/1, used as torch.where's condition
    "sequence-sharded-float-mask-where": case(_sequence_sharded_padding_mask_float_in_where, "mask_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # an fp32 LoRA adapter applied with implicit_replication on a tensor-parallel bf16 base
    "fp32-lora-on-tensor-parallel-bf16-base": case(_fp32_lora_on_tensor_parallel_bf16_base, "matmul_dtype", "bf16",
                                                   "f32", grade="correct", grade_at_freeze="correct"),
    # a head-sharded KV cache made with torch.zeros (fp32), new bf16 keys written with index_copy_
    "head-sharded-kv-cache-fp32-index-copy": case(_head_sharded_kv_cache_fp32_index_copy, "indexed_write_dtype",
                                                  "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # a sequence-sharded bool padding mask turned into token weights with 1 - mask
    "sequence-sharded-bool-mask-one-minus": case(_sequence_sharded_bool_mask_inverted_with_minus, "mask_dtype",
                                                 "bool", grade="correct", grade_at_freeze="correct"),
    # --- DDP
    # a pruned-vocabulary remap table kept as an int16 buffer, synced by DDP at wrap time
    "ddp-int16-vocab-remap-buffer": case(_ddp_vocab_remap_buffer_int16, "no_kernel", grade="correct", grade_at_freeze="correct"),
    # a bf16 conv audio encoder wrapped in DDP and fed fp32 filterbank features
    "ddp-bf16-conv-encoder-fp32-features": case(_ddp_bf16_audio_model_fed_fp32_features, "conv_weight_dtype", "f32",
                                                "bf16", grade="correct", grade_at_freeze="correct"),
    # --- distributed checkpoint
    # fp8 weights read back from a DCP checkpoint in their stored dtype, used in F.linear on bf16 activations
    "dcp-fp8-weights-read-as-stored-linear": case(_dcp_fp8_weights_read_in_stored_dtype, "matmul_dtype", "bf16",
                                                  "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
}
