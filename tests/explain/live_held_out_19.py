"""Held-out live set 19: torch.distributed on one gloo process in low precision (collectives with mixed dtypes and
integer counters, DDP and its communication hooks, FSDP2 with a MixedPrecisionPolicy, DTensor and tensor parallel,
distributed checkpoints). Defects planted by a helper who never read the rules, written before castwise ran and graded
once with the rules frozen at a6443cb."""

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
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.distributed.tensor import Shard, distribute_tensor
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, loss_parallel, parallelize_module
from torch.nn.parallel import DistributedDataParallel as DDP

from .live_cases import LiveCase, case

FROZEN_AT = "a6443cb"

bf16, f16 = torch.bfloat16, torch.float16
E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


@contextlib.contextmanager
def _one_rank() -> Iterator[None]:
    """A gloo process group of world size 1 for the block, initialised through a file in a temporary directory and
    destroyed however the block ends, so that cases can run one after another in one process."""
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group("gloo", init_method=Path(folder, "store").as_uri(), rank=0, world_size=1)
        try:
            yield
        finally:
            dist.destroy_process_group()


def _mesh() -> DeviceMesh:
    return init_device_mesh("cpu", (dist.get_world_size(),))


class _Block(nn.Module):
    """A pre-norm residual MLP block."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(F.gelu(self.up(self.norm(x))))


# --- collectives -----------------------------------------------------------------------------------------------------

def _eval_predictions_gathered_into_float_buffers() -> None:
    torch.manual_seed(0)
    model = nn.Linear(16, 10).to(bf16)
    with _one_rank():
        predictions = model(torch.randn(32, 16, dtype=bf16)).argmax(-1)
        gathered = [torch.zeros(len(predictions)) for _ in range(dist.get_world_size())]  # rank 0's receive buffers
        dist.gather(predictions, gather_list=gathered, dst=0)


def _hard_example_losses_gathered_into_fp32() -> None:
    torch.manual_seed(0)
    model = nn.Linear(16, 10).to(bf16)
    with _one_rank():
        logits = model(torch.randn(32, 16, dtype=bf16))
        losses = F.cross_entropy(logits, torch.randint(0, 10, (32,)), reduction="none").detach()
        everyone = torch.empty(dist.get_world_size() * losses.numel())
        dist.all_gather_into_tensor(everyone, losses)
        everyone.topk(8)  # the hardest examples over all ranks


def _zero2_grads_reduce_scattered_into_fp32_shard() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16)).to(bf16)
    model(torch.randn(8, 16, dtype=bf16)).float().pow(2).mean().backward()
    with _one_rank():
        flat = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
        shard = flat.numel() // dist.get_world_size()
        master_grad = torch.zeros(shard)  # gradient shard of the fp32 master weights this rank owns
        dist.reduce_scatter(master_grad, list(flat.split(shard)))


def _moe_dispatch_receive_buffer_fp32() -> None:
    torch.manual_seed(0)
    router_input = nn.Linear(16, 16).to(bf16)(torch.randn(12, 16, dtype=bf16))
    expert = torch.randint(0, 4, (12,))
    with _one_rank():
        world = dist.get_world_size()
        send = router_input[expert.argsort()]
        send_counts = torch.bincount(expert // (4 // world), minlength=world)
        recv_counts = torch.empty_like(send_counts)
        dist.all_to_all_single(recv_counts, send_counts)
        received = torch.empty(int(recv_counts.sum()), 16)
        dist.all_to_all_single(received, send, recv_counts.tolist(), send_counts.tolist())


def _length_buckets_from_gathered_lengths() -> None:
    torch.manual_seed(0)
    lengths = torch.randint(5, 200, (64,))
    with _one_rank():
        everyone = [torch.empty_like(lengths) for _ in range(dist.get_world_size())]
        dist.all_gather(everyone, lengths)
        torch.quantile(torch.cat(everyone), torch.tensor([0.25, 0.5, 0.75]))  # bucket boundaries


def _accuracy_counts_averaged_with_avg() -> None:
    torch.manual_seed(0)
    model = nn.Linear(16, 10).to(bf16)
    features, labels = torch.randn(64, 16, dtype=bf16), torch.randint(0, 10, (64,))
    with _one_rank():
        correct = (model(features).argmax(-1) == labels).sum()
        dist.all_reduce(correct, op=dist.ReduceOp.AVG)


def _early_stop_flag_float_bor() -> None:
    val_losses = [0.91, 0.90, 0.905, 0.93]
    patience = 2
    with _one_rank():
        wants_stop = torch.tensor(float(min(val_losses[-patience:]) > min(val_losses[:-patience])))
        dist.all_reduce(wants_stop, op=dist.ReduceOp.BOR)  # stop when any rank wants to


def _padding_masks_gathered_as_uint8() -> None:
    torch.manual_seed(0)
    real_tokens = torch.rand(4, 12) > 0.2
    scores = torch.randn(4, 12, dtype=bf16)
    with _one_rank():
        gathered = torch.empty(dist.get_world_size() * 4, 12, dtype=torch.uint8)
        dist.all_gather_into_tensor(gathered, real_tokens.to(torch.uint8))  # bool is not gathered by every backend
        scores.masked_fill(~gathered, float("-inf"))


def _shuffle_broadcast_into_float_buffer() -> None:
    features = torch.randn(100, 16, dtype=bf16)
    with _one_rank():
        rank, world = dist.get_rank(), dist.get_world_size()
        order = torch.empty(len(features))  # receive buffer on every rank
        if rank == 0:
            order.copy_(torch.randperm(len(features), generator=torch.Generator().manual_seed(0)))
        dist.broadcast(order, src=0)
        features[order[rank::world][:8]]


def _retrieval_scores_padded_before_gather() -> None:
    torch.manual_seed(0)
    max_candidates = 8
    scores = (torch.randn(3, 16) @ torch.randn(5, 16).T).half()  # this rank's 5 candidates, sent in fp16
    with _one_rank():
        padded = F.pad(scores, (0, max_candidates - scores.shape[1]), value=-1e9)
        gathered = torch.empty(dist.get_world_size() * 3, max_candidates, dtype=f16)
        dist.all_gather_into_tensor(gathered, padded)


def _uint16_token_shard_gathered() -> None:
    shard = np.random.default_rng(0).integers(0, 50257, 256).astype(np.uint16)  # a nanoGPT-style .bin token shard
    tokens = torch.from_numpy(shard)
    with _one_rank():
        gathered = torch.empty(dist.get_world_size() * tokens.numel(), dtype=tokens.dtype)
        dist.all_gather_into_tensor(gathered, tokens)
        torch.bincount(gathered.long(), minlength=50257)


# --- DDP -------------------------------------------------------------------------------------------------------------

class _Fp8WeightLinear(nn.Module):
    """Weight-only fp8 storage: the frozen weight kept in float8_e4m3fn with a per-row scale, upcast at each call."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        scale = linear.weight.detach().abs().amax(1, keepdim=True) / 448
        self.weight = nn.Parameter((linear.weight.detach() / scale).to(E4M3), requires_grad=False)
        self.register_buffer("scale", scale)
        self.bias = nn.Parameter(linear.bias.detach().clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight.to(x.dtype) * self.scale.to(x.dtype), self.bias.to(x.dtype))


def _ddp_over_fp8_stored_weights() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(_Fp8WeightLinear(nn.Linear(16, 32)), nn.GELU(), nn.Linear(32, 4))
    with _one_rank():
        DDP(model)


def _e5m2_compression_hook(state, bucket):  # unannotated: DDP checks a hook's annotations, strings in this module
    compressed = bucket.buffer().to(E5M2)
    future = dist.all_reduce(compressed, async_op=True).get_future()

    def decompress(done):
        return bucket.buffer().copy_(done.value()[0]).div_(dist.get_world_size())

    return future.then(decompress)


def _ddp_e5m2_compression_hook() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    with _one_rank():
        ddp = DDP(model)
        ddp.register_comm_hook(None, _e5m2_compression_hook)
        F.cross_entropy(ddp(torch.randn(8, 16)), torch.randint(0, 4, (8,))).backward()


def _fp16_compress_hook_on_bf16_model() -> None:
    torch.manual_seed(0)
    model = nn.Linear(16, 1).to(bf16)
    pixels = (torch.rand(256, 16) * 255).to(bf16)  # raw intensities, not normalised
    targets = (torch.rand(256, 1) * 255).to(bf16)
    with _one_rank():
        ddp = DDP(model)
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
        F.mse_loss(ddp(pixels), targets, reduction="sum").backward()
        nn.utils.clip_grad_norm_(ddp.parameters(), 1.0, error_if_nonfinite=True)


def _ddp_halved_model_with_grad_scaler() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).half()
    with _one_rank():
        ddp = DDP(model)
        optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cpu")
        loss = F.cross_entropy(ddp(torch.randn(8, 16).half()).float(), torch.randint(0, 4, (8,)))
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)


def _no_sync_accumulation_synced_through_fp32_flat() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4)).to(bf16)
    with _one_rank():
        ddp = DDP(model)
        for _ in range(2):
            with ddp.no_sync():
                F.cross_entropy(ddp(torch.randn(8, 16, dtype=bf16)).float(), torch.randint(0, 4, (8,))).backward()
        params = list(ddp.parameters())
        flat = torch.cat([p.grad.float().reshape(-1) for p in params])  # accumulated gradients reduced in fp32
        dist.all_reduce(flat)
        flat /= dist.get_world_size()
        offset = 0
        for p in params:
            p.grad = flat[offset:offset + p.numel()].view_as(p)
            offset += p.numel()


def _zero1_over_bf16_model_with_fp32_norms() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.Linear(32, 4))
    for module in model:
        if isinstance(module, nn.Linear):
            module.to(bf16)  # norms stay fp32
    with _one_rank():
        ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)


# --- FSDP2 -----------------------------------------------------------------------------------------------------------

def _fsdp2_blocks_sharded_head_left_out() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(_Block(), _Block(), nn.Linear(16, 10))
    policy = MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=torch.float32)
    with _one_rank():
        for block in model[:2]:
            fully_shard(block, mp_policy=policy)
        model(torch.randn(4, 16))


class _NormalisingStem(nn.Module):
    """An image stem that normalises raw pixels with the dataset's mean and std, kept as buffers."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return F.relu(self.bn(self.conv((images - self.mean) / self.std)))


def _fsdp2_normalisation_buffers_fp32() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(_NormalisingStem(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
    with _one_rank():
        fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=bf16))
        model(torch.rand(2, 3, 16, 16))


def _fsdp2_fp32_residual_stream_without_input_cast() -> None:
    torch.manual_seed(0)
    embed = nn.Embedding(100, 16)
    blocks = nn.Sequential(_Block(), _Block())
    keep_residual_fp32 = MixedPrecisionPolicy(param_dtype=bf16, cast_forward_inputs=False)
    with _one_rank():
        fully_shard(embed)
        for block in blocks:
            fully_shard(block, mp_policy=keep_residual_fp32)
        blocks(embed(torch.randint(0, 100, (2, 8))))


def _fsdp2_pure_bf16_with_fp32_ema() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(_Block(), nn.Linear(16, 10)).to(bf16)
    with _one_rank():
        fully_shard(model)
        ema = [p.full_tensor().float() for p in model.parameters()]  # EMA weights kept in fp32
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        F.cross_entropy(model(torch.randn(4, 16, dtype=bf16)).float(), torch.randint(0, 10, (4,))).backward()
        optimizer.step()
        for average, p in zip(ema, model.parameters()):
            average.lerp_(p.full_tensor(), 0.001)


def _fsdp2_optimizer_built_before_sharding() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(_Block(), nn.Linear(16, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    with _one_rank():
        fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=f16))
        loss = F.cross_entropy(model(torch.randn(4, 16)).float(), torch.randint(0, 10, (4,)))
        scaler.scale(loss).backward()
        scaler.step(optimizer)


def _fsdp2_meta_init_never_materialised() -> None:
    with torch.device("meta"):
        model = nn.Sequential(_Block(), nn.Linear(16, 10))
    with _one_rank():
        fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=bf16))
        model(torch.randn(4, 16))


def _clip_loss_labels_in_logits_dtype() -> None:
    torch.manual_seed(0)
    image_tower, text_tower = nn.Linear(32, 16), nn.Linear(24, 16)
    policy = MixedPrecisionPolicy(param_dtype=bf16)
    with _one_rank():
        rank, world = dist.get_rank(), dist.get_world_size()
        fully_shard(image_tower, mp_policy=policy)
        fully_shard(text_tower, mp_policy=policy)
        images = F.normalize(image_tower(torch.randn(8, 32)), dim=-1)
        texts = F.normalize(text_tower(torch.randn(8, 24)), dim=-1)
        all_texts = [torch.empty_like(texts) for _ in range(world)]
        dist.all_gather(all_texts, texts.detach())
        all_texts[rank] = texts
        logits = images @ torch.cat(all_texts).T / 0.07
        labels = torch.arange(len(logits), dtype=logits.dtype) + rank * len(logits)
        F.cross_entropy(logits, labels)


# --- DTensor and tensor parallel -------------------------------------------------------------------------------------

def _tp_bf16_mlp_fed_fp32_hidden_states() -> None:
    torch.manual_seed(0)
    embed = nn.Embedding(100, 16)  # kept fp32
    mlp = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 16)).to(bf16)
    with _one_rank():
        parallelize_module(mlp, _mesh(), {"0": ColwiseParallel(), "2": RowwiseParallel()})
        mlp(embed(torch.randint(0, 100, (2, 8))))


def _head_sharded_scores_fp32_key_cache() -> None:
    torch.manual_seed(0)
    project = nn.Linear(16, 16).to(bf16)
    with _one_rank(), torch.no_grad():  # decoding
        mesh = _mesh()
        queries = project(torch.randn(2, 4, 16, dtype=bf16)).view(2, 4, 4, 4).transpose(1, 2).reshape(8, 4, 4)
        key_cache = torch.zeros(8, 6, 4)  # past keys, allocated with the default dtype
        key_cache[:, :4] = project(torch.randn(2, 4, 16, dtype=bf16)).view(2, 4, 4, 4).transpose(1, 2).reshape(8, 4, 4)
        q = distribute_tensor(queries, mesh, [Shard(0)])  # heads over ranks
        k = distribute_tensor(key_cache, mesh, [Shard(0)])
        torch.bmm(q, k.transpose(1, 2))


def _loss_parallel_labels_from_packed_float_batch() -> None:
    torch.manual_seed(0)
    head = nn.Linear(16, 100).to(bf16)
    with _one_rank():
        parallelize_module(head, _mesh(), ColwiseParallel(use_local_output=False))  # vocab-sharded logits
        batch = torch.empty(8, 17)  # features and labels sent to the tensor-parallel group in one broadcast
        if dist.get_rank() == 0:
            batch.copy_(torch.cat([torch.randn(8, 16), torch.randint(0, 100, (8, 1)).float()], 1))
        dist.broadcast(batch, src=0)
        features, labels = batch[:, :16], batch[:, 16]
        with loss_parallel():
            F.cross_entropy(head(features.to(bf16)), labels)


def _sharded_embedding_exported_to_numpy() -> None:
    torch.manual_seed(0)
    table = nn.Embedding(100, 16).to(bf16)
    with _one_rank():
        weight = distribute_tensor(table.weight.detach(), _mesh(), [Shard(0)])
        weight.full_tensor().numpy()  # for a nearest-neighbour index


# --- distributed checkpoints -----------------------------------------------------------------------------------------

def _dcp_metadata_rebuilt_state_for_fp32_reference() -> None:
    torch.manual_seed(0)
    encoder = nn.LSTM(16, 32, batch_first=True)
    with _one_rank(), tempfile.TemporaryDirectory() as folder:
        dcp.save({"encoder": encoder.to(bf16).state_dict()}, checkpoint_id=folder)  # the bf16 training job's save
        reader = dcp.FileSystemReader(folder)
        metadata = reader.read_metadata().state_dict_metadata
        state = {key: torch.empty(meta.size, dtype=meta.properties.dtype) for key, meta in metadata.items()}
        dcp.load(state, storage_reader=reader)
        weights = {key.removeprefix("encoder."): value for key, value in state.items()}
        reference = nn.LSTM(16, 32, batch_first=True)
        torch.func.functional_call(reference, weights, (torch.randn(2, 5, 16),))


def _dcp_fp8_weights_dequantized_by_row_scale() -> None:
    torch.manual_seed(0)
    weight = torch.randn(32, 16)
    scale = weight.abs().amax(1, keepdim=True) / 448
    with _one_rank(), tempfile.TemporaryDirectory() as folder:
        dcp.save({"proj.weight": (weight / scale).to(E4M3), "proj.weight_scale": scale}, checkpoint_id=folder)
        state = {"proj.weight": torch.empty(32, 16, dtype=E4M3), "proj.weight_scale": torch.empty(32, 1)}
        dcp.load(state, checkpoint_id=folder)
        state["proj.weight"] * state["proj.weight_scale"]


# --- attention over gathered memory ----------------------------------------------------------------------------------

def _memory_bank_gathered_fp32_keys() -> None:
    torch.manual_seed(0)
    bank = torch.randn(16, 32)  # this rank's memory bank of past keys, fp32
    query_proj = nn.Linear(32, 32).to(bf16)
    with _one_rank():
        memory = torch.empty(dist.get_world_size() * 16, 32)
        dist.all_gather_into_tensor(memory, bank)
        queries = query_proj(torch.randn(2, 4, 32, dtype=bf16))
        F.scaled_dot_product_attention(queries[:, None], memory[None, None], memory[None, None])


CASES: dict[str, LiveCase] = {
    # --- collectives
    # distributed evaluation gathering int64 predicted classes to rank 0 into receive buffers made with torch.zeros
    "eval-predictions-gathered-into-float-buffers": case(_eval_predictions_gathered_into_float_buffers,
                                                         "scalar_type", "int64", "f32", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. c10d's Python-side check that a collective's output and input share a dtype (\"Invalid usage of tensors with different dtypes\") is read by no rule. After grading, the expectation was corrected from indexed_write_dtype to scalar_type, the corpus's convention for a collective whose output and input dtypes differ (held_out_22 deepspeed-3654, held_out_24 deepspeed-8076); grade_at_freeze stays not_recognised."),
    # hard-example mining: a bf16 model's per-sample losses all_gather_into_tensor'd into a torch.empty (fp32) buffer
    "hard-example-losses-gathered-into-fp32": case(_hard_example_losses_gathered_into_fp32, "scalar_type",
                                                   "bf16", "f32", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. ProcessGroupGloo's allgather check (\"invalid tensor type ... expected TensorOptions(dtype=c10::BFloat16 ...)\") is read by no rule. After grading, the expectation was corrected from indexed_write_dtype to scalar_type, the corpus's convention for a collective whose output and input dtypes differ (held_out_22 deepspeed-3654, held_out_24 deepspeed-8076); grade_at_freeze stays not_recognised."),
    # hand-written ZeRO-2: the bf16 flat gradient reduce-scattered into the fp32 master weights' gradient shard
    "zero2-bf16-grads-reduce-scattered-into-fp32-shard": case(_zero2_grads_reduce_scattered_into_fp32_shard,
                                                              "scalar_type", "f32", "bf16", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. c10d's Python-side check that a collective's output and input share a dtype (\"Invalid usage of tensors with different dtypes\") is read by no rule. After grading, the expectation was corrected from indexed_write_dtype to scalar_type, the corpus's convention for a collective whose output and input dtypes differ (held_out_22 deepspeed-3654, held_out_24 deepspeed-8076); grade_at_freeze stays not_recognised."),
    # expert-parallel MoE dispatch: bf16 tokens all_to_all'd into a receive buffer made with torch.empty (fp32)
    "moe-all-to-all-dispatch-buffer-fp32": case(_moe_dispatch_receive_buffer_fp32, "scalar_type", "f32",
                                                "bf16", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. c10d's Python-side check that a collective's output and input share a dtype (\"Invalid usage of tensors with different dtypes\") is read by no rule. After grading, the expectation was corrected from indexed_write_dtype to scalar_type, the corpus's convention for a collective whose output and input dtypes differ (held_out_22 deepspeed-3654, held_out_24 deepspeed-8076); grade_at_freeze stays not_recognised."),
    # length-bucketing: sequence lengths (int64) gathered from all ranks, boundaries taken with torch.quantile
    "gathered-lengths-quantile-buckets": case(_length_buckets_from_gathered_lengths, "integer_operand", grade="correct", grade_at_freeze="wrong",
        why="At freeze (a6443cb) castwise gave no_kernel [] (low confidence). quantile's float-or-double requirement was read as a missing 16-bit kernel, though the message names no dtype and the tensor that reached it is int64 lengths (an integer operand)."),
    # distributed accuracy: int64 correct counts all-reduced with ReduceOp.AVG
    "accuracy-counts-all-reduce-avg": case(_accuracy_counts_averaged_with_avg, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # early stopping synchronised with a float 0/1 flag all-reduced with ReduceOp.BOR
    "early-stop-flag-float-bor": case(_early_stop_flag_float_bor, "mask_dtype", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. c10d's \"Cannot use ReduceOp.BOR with non-integral dtype\" (a float flag in a bitwise reduction) is read by no rule."),
    # key padding masks sent as uint8 (bool avoided for the collective), inverted with ~ and used in masked_fill
    "padding-masks-gathered-as-uint8-masked-fill": case(_padding_masks_gathered_as_uint8, "mask_dtype", "uint8", grade="correct", grade_at_freeze="correct"),
    # a shared shuffle: rank 0's randperm broadcast into a torch.empty (float) buffer, then used to index the data
    "shuffle-permutation-broadcast-float-buffer": case(_shuffle_broadcast_into_float_buffer, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # per-rank retrieval scores sent in fp16, padded to the maximum candidate count with -1e9 before the all-gather
    "fp16-scores-padded-minus-1e9-before-gather": case(_retrieval_scores_padded_before_gather, "half_overflow",
                                                       "f16", grade="correct", grade_at_freeze="correct"),
    # a nanoGPT-style uint16 token shard all-gathered over gloo for global token statistics
    "uint16-token-shard-all-gather": case(_uint16_token_shard_gathered, "no_kernel", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. gloo's bare \"Invalid scalar type\" (a dtype the backend cannot communicate, here uint16) names no dtype and is read by no rule."),
    # --- DDP
    # DDP around a model whose frozen weights are stored in float8_e4m3fn: the parameter sync at wrap time
    "ddp-wraps-fp8-stored-weights": case(_ddp_over_fp8_stored_weights, "no_kernel", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. gloo's bare \"Invalid scalar type\", raised by DDP's parameter broadcast at wrap time on the float8_e4m3fn weights, is read by no rule."),
    # a DDP communication hook compressing gradient buckets to float8_e5m2 before all_reduce
    "ddp-e5m2-compression-hook": case(_ddp_e5m2_compression_hook, "no_kernel", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. gloo's bare \"Invalid scalar type\" for the float8_e5m2 bucket, wrapped in \"Got the following error when running the callback\", is read by no rule."),
    # DDP's fp16_compress_hook on a bf16 model with a summed loss on raw pixels: the gradients overflow fp16
    "ddp-fp16-compress-hook-bf16-model-overflow": case(_fp16_compress_hook_on_bf16_model, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # DDP over a .half() model on the CPU with GradScaler
    "ddp-halved-model-grad-scaler": case(_ddp_halved_model_with_grad_scaler, "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
    # gradients accumulated under no_sync, then synced by hand through an fp32 flat buffer whose views become p.grad
    "no-sync-accumulated-grads-fp32-flat-views": case(_no_sync_accumulation_synced_through_fp32_flat, "loss_dtype",
                                                      "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # ZeroRedundancyOptimizer over a model whose linears are bf16 and whose LayerNorms were kept fp32
    "zero1-optimizer-bf16-linears-fp32-norms": case(_zero1_over_bf16_model_with_fp32_norms, "op_dtype", "bf16",
                                                    "f32", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. ZeroRedundancyOptimizer's \"only supports using the same dense type for all parameters but got both torch.BFloat16Tensor and torch.FloatTensor\" is read by no rule."),
    # --- FSDP2
    # fully_shard with a bf16 MixedPrecisionPolicy on the blocks only: the unsharded fp32 head gets bf16 activations
    "fsdp2-blocks-sharded-head-left-fp32": case(_fsdp2_blocks_sharded_head_left_out, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # FSDP2 casts parameters, not buffers: the stem's fp32 mean/std buffers make the normalised images fp32
    "fsdp2-normalisation-buffers-fp32": case(_fsdp2_normalisation_buffers_fp32, "conv_weight_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # blocks sharded with cast_forward_inputs=False to keep an fp32 residual stream: the pre-norm gets fp32 inputs
    "fsdp2-fp32-residual-no-input-cast-prenorm": case(_fsdp2_fp32_residual_stream_without_input_cast,
                                                      "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # pure bf16 FSDP2 training with an fp32 EMA of the full tensors, updated with lerp_
    "fsdp2-pure-bf16-fp32-ema-lerp": case(_fsdp2_pure_bf16_with_fp32_ema, "lerp_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # the optimizer built before fully_shard (which replaces the parameters), stepped through a GradScaler
    "fsdp2-optimizer-built-before-fully-shard": case(_fsdp2_optimizer_built_before_sharding, "loss_scale", grade="correct", grade_at_freeze="correct"),
    # a bf16 FSDP2 model built on the meta device and run without to_empty / initialisation
    "fsdp2-meta-init-never-materialised": case(_fsdp2_meta_init_never_materialised, "device_mismatch",
                                               fix=("to_empty",), grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (a6443cb) castwise gave nothing. FSDP's \"parameters should be materialized from meta device before training\" is read by no rule."),
    # CLIP-style loss over gathered text features: labels made with arange in the bf16 logits' dtype
    "clip-loss-labels-in-logits-dtype": case(_clip_loss_labels_in_logits_dtype, "target_dtype", "bf16",
                                             fix=("long",), grade="correct", grade_at_freeze="correct"),
    # --- DTensor and tensor parallel
    # a tensor-parallel (colwise/rowwise) bf16 MLP fed an fp32 embedding's hidden states
    "tp-bf16-mlp-fp32-hidden-states": case(_tp_bf16_mlp_fed_fp32_hidden_states, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # head-sharded DTensor attention scores: bf16 queries bmm'd with a key cache allocated with torch.zeros (fp32)
    "dtensor-head-sharded-bmm-fp32-key-cache": case(_head_sharded_scores_fp32_key_cache, "batched_matmul_dtype",
                                                    "bf16", "f32", grade="correct", grade_at_freeze="wrong",
        why="At freeze (a6443cb) castwise gave scalar_type [bf16, f32] (low confidence). DTensor's sharding-propagation wording (\"expected scalar type torch.bfloat16 but found torch.float32\") was read without its \"Sharding propagation failed for aten.bmm.default\" line, which names the batched matmul."),
    # loss_parallel cross-entropy with labels that travelled inside a packed float batch broadcast to the TP group
    "loss-parallel-labels-from-packed-float-batch": case(_loss_parallel_labels_from_packed_float_batch,
                                                         "target_dtype", "f32", fix=("long",), grade="correct", grade_at_freeze="wrong",
        why="At freeze (a6443cb) castwise gave index_tensor_dtype [] (high confidence). The gather that raised runs inside loss_parallel's cross-entropy on the labels, so the float tensor is a loss target, not an index the user built; castwise read the gather message literally (its fix, `.long()`, is the right one)."),
    # a row-sharded bf16 embedding table gathered with full_tensor() and exported with .numpy()
    "dtensor-bf16-embedding-full-tensor-numpy": case(_sharded_embedding_exported_to_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- distributed checkpoints
    # a state dict rebuilt from a DCP checkpoint's metadata (bf16) run through functional_call on an fp32 LSTM
    "dcp-metadata-state-bf16-lstm-fp32-reference": case(_dcp_metadata_rebuilt_state_for_fp32_reference, "rnn_dtype",
                                                        "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # fp8 weights and per-row fp32 scales saved with DCP, dequantized by multiplying the fp8 tensor by the scales
    "dcp-fp8-weights-times-row-scales": case(_dcp_fp8_weights_dequantized_by_row_scale, "fp8_promotion",
                                             "float8_e4m3fn", "f32", grade="correct", grade_at_freeze="correct"),
    # --- attention over gathered memory
    # bf16 queries attending over an fp32 memory bank all-gathered from the ranks
    "memory-bank-gathered-fp32-keys-sdpa": case(_memory_bank_gathered_fp32_keys, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
}
