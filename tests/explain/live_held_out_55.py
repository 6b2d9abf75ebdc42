"""Held-out live set 55: optimizers and learning-rate machinery written by hand in low precision. Defects planted by a
helper who never read the rules, written before castwise ran and graded once with the rules frozen at d6d8578."""

from __future__ import annotations

import copy
import io

import numpy as np
import torch
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d6d8578"

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32


def _bf16_grad(rows: int = 8, cols: int = 6) -> torch.Tensor:
    """A weight gradient as a bf16 model's backward hands it over."""
    torch.manual_seed(0)
    return torch.randn(rows, cols, dtype=bf16)


def _shampoo_coupled_newton_eye_fp32() -> None:
    # inverse 4th root by the coupled Newton iteration on the bf16 statistic; the identity made with torch.eye (fp32)
    grad = _bf16_grad()
    stat = grad @ grad.T + 1e-4 * torch.eye(8, dtype=bf16)
    y = stat / torch.linalg.matrix_norm(stat)
    identity = torch.eye(8)
    z = identity.clone()
    for _ in range(5):
        t = 0.25 * (5.0 * identity - z @ y)
        y = torch.linalg.matrix_power(t, 4) @ y
        z = z @ t


def _shampoo_statistic_addmm_fp32() -> None:
    # Shampoo's left/right statistics preallocated with torch.zeros (fp32), accumulated in place from bf16 gradients
    grad = _bf16_grad()
    left, right = torch.zeros(8, 8), torch.zeros(6, 6)
    left.mul_(0.95).addmm_(grad, grad.T, alpha=0.05)
    right.mul_(0.95).addmm_(grad.T, grad, alpha=0.05)


def _expert_shampoo_bmm_fp32_roots() -> None:
    # stacked MoE expert gradients (bf16) preconditioned by inverse roots computed and kept in fp32, with torch.bmm
    torch.manual_seed(0)
    grads = torch.randn(4, 8, 6, dtype=bf16)
    stats = torch.bmm(grads.float(), grads.float().transpose(1, 2)) + 1e-3 * torch.eye(8)
    eigvals, eigvecs = torch.linalg.eigh(stats)
    roots = eigvecs @ torch.diag_embed(eigvals.clamp(min=1e-6) ** -0.25) @ eigvecs.transpose(1, 2)
    torch.bmm(roots, grads)


def _soap_tensordot_fp32_eigenbasis() -> None:
    # SOAP projects the bf16 gradient into eigenbases kept in fp32 (from eigh of fp32 statistics) with tensordot
    grad = _bf16_grad()
    gg_left = grad.float() @ grad.float().T
    _, q_left = torch.linalg.eigh(gg_left + 1e-3 * torch.eye(8))
    torch.tensordot(grad, q_left, dims=[[0], [0]])


def _adafactor_row_fp32_col_bf16() -> None:
    # Adafactor's factored second moment: the row factor made with torch.zeros(rows) (fp32), the column factor with
    # zeros_like(grad[0]) (bf16); the estimate is their outer product written as a matmul
    grad = _bf16_grad()
    row, col = torch.zeros(8), torch.zeros_like(grad[0])
    sq = grad.float() ** 2 + 1e-30
    row.mul_(0.999).add_(sq.mean(dim=1), alpha=0.001)
    col.mul_(0.999).add_(sq.mean(dim=0), alpha=0.001)
    estimate = (row.unsqueeze(-1) @ col.unsqueeze(0)) / row.mean()
    grad / estimate.sqrt()


def _dp_per_sample_clip_einsum() -> None:
    # DP-SGD by hand: per-sample bf16 gradients clipped by fp32 factors (computed from fp32 norms) through einsum
    torch.manual_seed(0)
    per_sample = torch.randn(16, 8, 6, dtype=bf16)
    norms = torch.linalg.vector_norm(per_sample.float(), dim=(1, 2))
    factors = (1.0 / (norms + 1e-6)).clamp(max=1.0)
    torch.einsum("bij,b->ij", per_sample, factors)


def _es_vector_to_parameters_promotes() -> None:
    # evolution strategies on a bf16 model whose LayerNorm was kept fp32: parameters_to_vector promotes the flat
    # vector to fp32, and vector_to_parameters writes fp32 data back into the bf16 linears
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8).to(bf16), nn.LayerNorm(8), nn.Linear(8, 2).to(bf16))
    model[1].float()
    theta = nn.utils.parameters_to_vector(model.parameters())
    noise = torch.randn_like(theta)
    nn.utils.vector_to_parameters(theta + 0.01 * noise, model.parameters())
    model(torch.randn(4, 8, dtype=bf16))


def _muon_newton_schulz_fp32_workspace() -> None:
    # Muon's quintic Newton-Schulz in bf16 with workspace buffers preallocated by torch.empty (fp32) and out=
    grad = _bf16_grad()
    a, b, c = 3.4445, -4.7750, 2.0315
    x = grad / (grad.norm() + 1e-7)
    gram, gram_sq = torch.empty(8, 8), torch.empty(8, 8)
    for _ in range(5):
        torch.mm(x, x.T, out=gram)
        torch.mm(gram, gram, out=gram_sq)
        x = a * x + (b * gram + c * gram_sq) @ x


def _zero_flat_shard_index_copy_fp32_master() -> None:
    # ZeRO-1 by hand: the updated fp32 master shard written back into the flat bf16 parameter buffer with index_copy_
    torch.manual_seed(0)
    flat_params = torch.randn(32, dtype=bf16)
    shard = torch.arange(8, 16)
    master = flat_params[shard].float()
    master.add_(torch.randn(8), alpha=-1e-3)
    flat_params.index_copy_(0, shard, master)


def _schedule_free_y_lerp_fp32_z() -> None:
    # schedule-free AdamW: z kept fp32 for precision, the evaluation point y (the bf16 parameter) lerp_'d toward it
    torch.manual_seed(0)
    y = torch.randn(8, 6, dtype=bf16)
    z = y.float().clone()
    z.add_(torch.randn(8, 6), alpha=-1e-3)
    y.lerp_(z, 1.0 - 0.9)


def _karras_ema_numpy_weights() -> None:
    # post-hoc (power-function) EMA: the per-step averaging weight taken from a numpy float64 schedule as a tensor
    torch.manual_seed(0)
    ema = [torch.randn(8, 6), torch.randn(6)]
    params = [torch.randn(8, 6), torch.randn(6)]
    steps = np.arange(1, 101)
    gamma = 6.94
    weights = torch.from_numpy(1.0 - (1.0 - 1.0 / steps) ** (gamma + 1.0))
    step = 40
    for shadow, param in zip(ema, params, strict=True):
        shadow.lerp_(param, weights[step : step + 1])


def _eight_bit_momentum_lerp_int8() -> None:
    # a hand-written 8-bit Adam: the momentum kept as int8 codes and updated with lerp_ before dequantizing
    torch.manual_seed(0)
    grad = torch.randn(8, 6)
    absmax = grad.abs().max()
    codes = (grad / absmax * 127).round().to(torch.int8)
    codes.lerp_(grad, 1.0 - 0.9)


def _eight_bit_state_dequantized_in_place() -> None:
    # an 8-bit optimizer state dequantized in place: the int8 codes multiplied by absmax / 127
    torch.manual_seed(0)
    state = torch.randn(8, 6)
    absmax = state.abs().amax(dim=1, keepdim=True)
    codes = (state / absmax * 127).round().to(torch.int8)
    codes.mul_(absmax / 127)


def _eight_bit_codebook_uint8_codes() -> None:
    # blockwise 8-bit state: the dynamic-quantization codebook (256 entries) indexed by the stored uint8 codes
    torch.manual_seed(0)
    codebook = torch.linspace(-1.0, 1.0, 256)
    state = torch.randn(64).clamp(-1.0, 1.0)
    codes = torch.bucketize(state, codebook).clamp(max=255).to(torch.uint8)
    codebook[codes]


def _noam_rsqrt_int_step() -> None:
    # Noam / inverse-square-root schedule: the step kept as an int64 tensor (for checkpointing), rsqrt_ in place
    step = torch.tensor(4000)
    warmup = 4000
    factor = step.clone().rsqrt_()
    factor * min(1.0, 4000 / warmup)


def _stochastic_rounding_without_int_view() -> None:
    # stochastic rounding of fp32 master weights to bf16: the random low bits added and masked off on the float
    # tensor itself, the .view(torch.int32) forgotten
    torch.manual_seed(0)
    master = torch.randn(8, 6)
    noise = torch.randint(0, 1 << 16, master.shape, dtype=torch.int32)
    (master + noise) & -65536


def _frozen_entries_float_mask_masked_fill() -> None:
    # sparse fine-tuning: gradients of frozen entries zeroed with masked_fill_, the mask loaded as 0/1 floats
    torch.manual_seed(0)
    grad = torch.randn(8, 6, dtype=bf16)
    frozen = torch.from_numpy((np.random.default_rng(0).random((8, 6)) < 0.9).astype(np.float32))
    grad.masked_fill_(frozen, 0.0)


def _no_decay_mask_inverted_float() -> None:
    # decoupled weight decay applied only where a decay mask (built from zeros_like of the weight, so float) is off
    torch.manual_seed(0)
    weight = torch.randn(8, 6)
    no_decay = torch.zeros_like(weight)
    no_decay[:, 0] = 1.0
    weight.sub_(1e-2 * 0.1 * weight * ~no_decay)


def _kfac_solve_bf16_factor() -> None:
    # K-FAC: the damped Kronecker factor kept in the bf16 activations' dtype and inverted with linalg.solve
    torch.manual_seed(0)
    acts = torch.randn(32, 6, dtype=bf16)
    factor = acts.T @ acts / 32 + 1e-2 * torch.eye(6, dtype=bf16)
    grad = _bf16_grad(6, 4)
    torch.linalg.solve(factor, grad)


def _natural_gradient_pinv_bf16_fisher() -> None:
    # natural gradient with an empirical Fisher built from bf16 per-sample gradients, inverted with linalg.pinv
    torch.manual_seed(0)
    per_sample = torch.randn(16, 10, dtype=bf16)
    fisher = per_sample.T @ per_sample / 16
    torch.linalg.pinv(fisher)


def _galore_rank_from_svdvals_bf16() -> None:
    # GaLore with an adaptive rank: the rank picked from the singular values of the bf16 gradient (svdvals)
    grad = _bf16_grad()
    singular = torch.linalg.svdvals(grad)
    energy = singular.cumsum(0) / singular.sum()
    int((energy < 0.9).sum()) + 1


def _grad_histogram_logging_bf16() -> None:
    # per-step gradient histograms for the dashboard, computed with torch.histogram on the bf16 gradients
    grad = _bf16_grad()
    torch.histogram(grad.flatten(), bins=32)


def _clip_norm_overflows_fp16() -> None:
    # pure fp16 training: every gradient finite, but the global norm of a large fp16 gradient is past 65504
    weight = nn.Parameter(torch.zeros(64, 64, dtype=f16))
    torch.manual_seed(0)
    weight.grad = (torch.rand(64, 64) * 2000.0 + 1000.0).to(f16)
    nn.utils.clip_grad_norm_([weight], max_norm=1.0, error_if_nonfinite=True)


def _lr_range_test_diverges() -> None:
    # an LR range test on a bf16 regression model, growing the lr geometrically until the loss blows up, with
    # error_if_nonfinite clipping left on
    torch.manual_seed(0)
    model = nn.Linear(4, 1).to(bf16)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(32, 4, dtype=bf16), torch.randn(32, 1, dtype=bf16)
    for _ in range(200):
        optimizer.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e6, error_if_nonfinite=True)
        optimizer.step()
        for group in optimizer.param_groups:
            group["lr"] *= 1.5


def _ema_shadow_bf16_eval_fp32_layernorm() -> None:
    # the EMA shadow copy stored in bf16 to save memory, evaluated with the fp32 validation loader (LayerNorm first)
    torch.manual_seed(0)
    model = nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 2))
    ema = copy.deepcopy(model).to(bf16).eval()
    with torch.no_grad():
        ema(torch.randn(4, 8))


def _checkpoint_average_fp16_assign_conv() -> None:
    # last-k checkpoint averaging saved in fp16 to halve the file, loaded into an fp32 CNN with assign=True
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU())
    snapshots = [{k: v + 0.01 * i for k, v in model.state_dict().items()} for i in range(3)]
    averaged = {k: (sum(s[k].float() for s in snapshots) / 3).half() if v.is_floating_point() else v
                for k, v in snapshots[0].items()}
    buffer = io.BytesIO()
    torch.save(averaged, buffer)
    buffer.seek(0)
    model.load_state_dict(torch.load(buffer, weights_only=True), assign=True)
    model.eval()(torch.randn(1, 3, 8, 8))


def _ema_built_on_meta_lerp() -> None:
    # the EMA copy deep-copied from the model while it was still on meta (before load_state_dict(assign=True))
    with torch.device("meta"):
        model = nn.Linear(8, 8)
    ema = copy.deepcopy(model)
    model.load_state_dict({"weight": torch.randn(8, 8), "bias": torch.zeros(8)}, assign=True)
    with torch.no_grad():
        for shadow, param in zip(ema.parameters(), model.parameters(), strict=True):
            shadow.lerp_(param, 1.0 - 0.999)


def _grad_norm_numpy_logging_bf16() -> None:
    # the total gradient norm of a bf16 model logged as a numpy value
    torch.manual_seed(0)
    model = nn.Linear(8, 2).to(bf16)
    model(torch.randn(4, 8, dtype=bf16)).float().pow(2).mean().backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    float(total.numpy())


def _vector_norm_dtype_narrowing() -> None:
    # per-tensor norms of the fp32 master gradients asked for in the model's bf16 (dtype=) to save memory
    torch.manual_seed(0)
    master_grads = [torch.randn(8, 6), torch.randn(6)]
    torch.stack([torch.linalg.vector_norm(g, dtype=bf16) for g in master_grads]).norm()


def _loss_scale_fp16_per_group() -> None:
    # a dynamic loss scale per parameter group, kept as one vector in the fp16 model's dtype, initialised to 2**16
    torch.manual_seed(0)
    groups = [[torch.randn(8, 6, dtype=f16)], [torch.randn(6, dtype=f16)]]
    scales = torch.full((len(groups),), 2.0 ** 16, dtype=f16)
    [g * scale for group, scale in zip(groups, scales, strict=True) for g in group]


CASES: dict[str, LiveCase] = {
    # Shampoo's coupled Newton iteration for the inverse root: a bf16 statistic against an identity from torch.eye (fp32)
    "shampoo-coupled-newton-eye-fp32": case(_shampoo_coupled_newton_eye_fp32, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Shampoo's statistics preallocated in fp32, accumulated with addmm_ from bf16 gradients
    "shampoo-statistic-addmm-fp32": case(_shampoo_statistic_addmm_fp32, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # stacked MoE expert gradients (bf16) preconditioned with torch.bmm by fp32 inverse roots
    "expert-shampoo-bmm-fp32-roots": case(_expert_shampoo_bmm_fp32_roots, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # SOAP projecting a bf16 gradient into an fp32 eigenbasis with tensordot
    "soap-tensordot-fp32-eigenbasis": case(_soap_tensordot_fp32_eigenbasis, "matmul_dtype",
        grade="correct", grade_at_freeze="correct"),
    # Adafactor's row factor made fp32 by torch.zeros, column factor bf16 by zeros_like; their outer product as matmul
    "adafactor-row-fp32-col-bf16": case(_adafactor_row_fp32_col_bf16, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DP-SGD per-sample clipping: bf16 per-sample gradients and fp32 clip factors contracted with einsum
    "dp-per-sample-clip-einsum": case(_dp_per_sample_clip_einsum, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # evolution strategies: parameters_to_vector promotes a mixed bf16/fp32 model, vector_to_parameters writes fp32 back
    "es-vector-to-parameters-promotes": case(_es_vector_to_parameters_promotes, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Muon's Newton-Schulz in bf16 writing into fp32 workspace buffers through out=
    "muon-newton-schulz-fp32-workspace": case(_muon_newton_schulz_fp32_workspace, "indexed_write_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # ZeRO-1 by hand: the fp32 master shard written back into the flat bf16 buffer with index_copy_
    "zero-flat-shard-index-copy-fp32-master": case(_zero_flat_shard_index_copy_fp32_master, "indexed_write_dtype",
                                                   "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # schedule-free AdamW: the bf16 parameter y lerp_'d toward the fp32 z sequence
    "schedule-free-y-lerp-fp32-z": case(_schedule_free_y_lerp_fp32_z, "lerp_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # post-hoc power EMA: the averaging weight a float64 tensor from a numpy schedule
    "karras-ema-numpy-weights": case(_karras_ema_numpy_weights, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # hand-written 8-bit Adam: lerp_ on the int8 momentum codes before dequantizing
    "eight-bit-momentum-lerp-int8": case(_eight_bit_momentum_lerp_int8, "lerp_dtype", "int8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # 8-bit optimizer state dequantized in place on its int8 codes
    "eight-bit-state-dequantized-in-place": case(_eight_bit_state_dequantized_in_place, "result_cast", "f32", "int8",
        grade="correct", grade_at_freeze="correct"),
    # blockwise 8-bit state: the codebook indexed by uint8 codes (read as a mask)
    "eight-bit-codebook-uint8-codes": case(_eight_bit_codebook_uint8_codes, "index_tensor_dtype", fix=("long",),
        grade="correct", grade_at_freeze="correct"),
    # Noam schedule: rsqrt_ in place on an int64 step tensor
    "noam-rsqrt-int-step": case(_noam_rsqrt_int_step, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # stochastic rounding: the bit mask applied to the fp32 master weights without .view(torch.int32)
    "stochastic-rounding-without-int-view": case(_stochastic_rounding_without_int_view, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # sparse fine-tuning: masked_fill_ of frozen entries' gradients with a 0/1 float mask
    "frozen-entries-float-mask-masked-fill": case(_frozen_entries_float_mask_masked_fill, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # decoupled weight decay masked with ~ of a float no-decay mask
    "no-decay-mask-inverted-float": case(_no_decay_mask_inverted_float, "mask_dtype",
        grade="correct", grade_at_freeze="correct"),
    # K-FAC: a bf16 Kronecker factor inverted with linalg.solve
    "kfac-solve-bf16-factor": case(_kfac_solve_bf16_factor, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # natural gradient: a bf16 empirical Fisher inverted with linalg.pinv
    "natural-gradient-pinv-bf16-fisher": case(_natural_gradient_pinv_bf16_fisher, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GaLore adaptive rank from svdvals of the bf16 gradient
    "galore-rank-from-svdvals-bf16": case(_galore_rank_from_svdvals_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # gradient histograms logged with torch.histogram on bf16 gradients
    "grad-histogram-logging-bf16": case(_grad_histogram_logging_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pure fp16: finite gradients whose global norm is past fp16's range; clipping refuses the inf norm
    "clip-norm-overflows-fp16": case(_clip_norm_overflows_fp16, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # an LR range test growing the lr until the bf16 loss diverges; clipping refuses the non-finite norm
    "lr-range-test-diverges": case(_lr_range_test_diverges, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # the EMA shadow stored bf16, evaluated on fp32 batches: its first LayerNorm
    "ema-shadow-bf16-eval-fp32-layernorm": case(_ema_shadow_bf16_eval_fp32_layernorm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # averaged checkpoint saved fp16, loaded into an fp32 CNN with assign=True, run on fp32 images
    "checkpoint-average-fp16-assign-conv": case(_checkpoint_average_fp16_assign_conv, "conv_weight_dtype", "f32",
                                                "f16",
        grade="correct", grade_at_freeze="correct"),
    # EMA copy deep-copied while the model was on meta, lerp_'d toward the loaded CPU weights
    "ema-built-on-meta-lerp": case(_ema_built_on_meta_lerp, "device_mismatch",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 total gradient norm logged with .numpy()
    "grad-norm-numpy-logging-bf16": case(_grad_norm_numpy_logging_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # per-tensor norms of fp32 master gradients asked for with dtype=bf16
    "vector-norm-dtype-narrowing": case(_vector_norm_dtype_narrowing, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (d6d8578) castwise gave nothing. The error is linalg.vector_norm's check that its "
             "input dtype (fp32) converts without narrowing to the dtype= asked for (bf16), a wording the "
             "frozen rules do not read.")),
    # per-group dynamic loss scales kept as an fp16 vector, initialised to 2**16 (past 65504)
    "loss-scale-fp16-per-group": case(_loss_scale_fp16_per_group, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
}
