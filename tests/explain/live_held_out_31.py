"""Held-out live set 31: torch.func and hand-written autograd in low precision. Defects planted by a helper who never
read the rules, written before castwise ran and graded once with the rules frozen at 68c5d2f."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, jacrev, jvp, vmap

from .live_cases import LiveCase, case

FROZEN_AT = "68c5d2f"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


def _mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))


def _detached(model: nn.Module) -> dict[str, torch.Tensor]:
    return {name: p.detach() for name, p in model.named_parameters()}


def _per_sample_grads_bf16_mlp() -> None:
    model = _mlp().to(bf16)

    def loss(params: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(functional_call(model, params, (x[None],)), y[None])

    x, y = torch.randn(5, 6), torch.randint(0, 3, (5,))  # defect: the batch stays fp32 for a bf16 model
    vmap(grad(loss), in_dims=(None, 0, 0))(_detached(model), x, y)


def _per_sample_grads_bf16_cnn() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, bias=False), nn.ReLU(), nn.Flatten(), nn.Linear(16, 2)).to(bf16)

    def loss(params: dict[str, torch.Tensor], image: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(functional_call(model, params, (image[None],)), label[None])

    images = torch.rand(4, 1, 4, 4)  # defect: fp32 images from the loader
    vmap(grad(loss), in_dims=(None, 0, 0))(_detached(model), images, torch.randint(0, 2, (4,)))


def _maml_batchnorm_fast_weights_upcast() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.BatchNorm1d(6), nn.Linear(6, 3)).to(bf16)
    params = dict(model.named_parameters())
    x, y = torch.randn(8, 6).to(bf16), torch.randint(0, 3, (8,))
    loss = F.cross_entropy(functional_call(model, params, (x,)), y)
    grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
    # defect: the inner step upcasts to fp32 "for precision"; BatchNorm's running buffers stay bf16
    fast = {name: p.float() - 0.1 * g.float() for (name, p), g in zip(params.items(), grads)}
    functional_call(model, fast, (x.float(),))


def _fomaml_meta_grad_fp32_assigned() -> None:
    model = _mlp().to(bf16)
    meta_grads = {name: torch.zeros(p.shape) for name, p in model.named_parameters()}  # fp32 accumulators
    for _ in range(2):
        x, y = torch.randn(4, 6).to(bf16), torch.randint(0, 3, (4,))
        loss = F.cross_entropy(model(x), y)
        for (name, _p), g in zip(model.named_parameters(), torch.autograd.grad(loss, list(model.parameters()))):
            meta_grads[name] += g.float() / 2
    for name, p in model.named_parameters():
        p.grad = meta_grads[name]  # defect: fp32 meta-gradient assigned to a bf16 parameter


def _reptile_lerp_fp32_fast_weights() -> None:
    model = _mlp().to(bf16)
    fast = {name: p.detach().float().clone() for name, p in model.named_parameters()}  # inner loop kept in fp32
    for weight in fast.values():
        weight.sub_(0.01 * torch.randn(weight.shape))
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.lerp_(fast[name], 0.1)  # defect: the fp32 fast weights are never cast back


def _maml_params_from_state_dict() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.Linear(8, 3)).to(bf16)

    def loss(params: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(functional_call(model, params, (x,)), y)

    # defect: state_dict() includes BatchNorm's integer num_batches_tracked, and grad differentiates all of it
    grad(loss)(dict(model.state_dict()), torch.randn(4, 6).to(bf16), torch.randint(0, 3, (4,)))


def _jacrev_of_argmax_predictions() -> None:
    model = _mlp().to(bf16)
    jacrev(lambda x: model(x).argmax(-1))(torch.randn(2, 6).to(bf16))  # defect: differentiates the class ids


def _jvp_wrt_integer_positions() -> None:
    inv_freq = 1.0 / 10000 ** (torch.arange(0, 8, 2) / 8)

    def encode(positions: torch.Tensor) -> torch.Tensor:
        return torch.sin(positions[:, None] * inv_freq).to(bf16)

    positions = torch.arange(6)  # defect: integer positions as the primal of forward-mode AD
    jvp(encode, (positions,), (torch.ones(6),))


def _episode_labels_in_feature_dtype() -> None:
    model = _mlp().to(bf16)
    n_way, k_shot = 3, 2
    support = torch.randn(n_way * k_shot, 6).to(bf16)
    labels = torch.arange(n_way, dtype=support.dtype).repeat_interleave(k_shot)  # defect: labels "match" the data
    F.cross_entropy(model(support), labels)


def _protonet_prototypes_scatter_reduce() -> None:
    torch.manual_seed(0)
    embeddings = torch.randn(6, 4).to(bf16)
    labels = torch.tensor([0, 0, 1, 1, 2, 2])
    prototypes = torch.zeros(3, 4)  # defect: default fp32 buffer for bf16 embeddings
    prototypes.scatter_reduce_(0, labels[:, None].expand(-1, 4), embeddings, reduce="mean", include_self=False)


def _episode_query_mask_float_inverted() -> None:
    x = torch.randn(10, 6).to(bf16)
    support_mask = torch.zeros(10)  # defect: a float mask
    support_mask[:4] = 1
    _ = x[~support_mask]


def _protonet_cdist_bf16_embeddings() -> None:
    torch.manual_seed(0)
    encoder = nn.Linear(6, 4).to(bf16)
    support, query = encoder(torch.randn(6, 6).to(bf16)), encoder(torch.randn(3, 6).to(bf16))
    prototypes = support.view(3, 2, 4).mean(1)
    -torch.cdist(query, prototypes)  # defect: Euclidean distances taken in bf16 on the CPU


class _LinearLogSoftmax(torch.autograd.Function):
    """Fused linear + log-softmax whose forward upcasts the logits to fp32 for a stable log-softmax."""

    @staticmethod
    def forward(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return F.log_softmax((x @ weight.T).float(), dim=-1)

    @staticmethod
    def setup_context(ctx: torch.autograd.function.FunctionCtx, inputs: tuple[torch.Tensor, ...],
                      output: torch.Tensor) -> None:
        x, weight = inputs
        ctx.save_for_backward(x, weight, output)

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x, weight, output = ctx.saved_tensors
        grad_logits = grad_output - output.exp() * grad_output.sum(-1, keepdim=True)
        return grad_logits @ weight, grad_logits.T @ x  # defect: fp32 gradient against the saved bf16 tensors


def _custom_function_fp32_logprobs_backward() -> None:
    torch.manual_seed(0)
    x = torch.randn(4, 6).to(bf16).requires_grad_()
    weight = torch.randn(3, 6).to(bf16).requires_grad_()
    F.nll_loss(_LinearLogSoftmax.apply(x, weight), torch.tensor([0, 1, 2, 0])).backward()


class _EmbeddingLookup(torch.autograd.Function):
    """A hand-written embedding lookup with a dense gradient built by index_add_."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, weight: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(ids)
        ctx.num_rows, ctx.dim = weight.shape
        return weight[ids]

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        (ids,) = ctx.saved_tensors
        grad_weight = torch.zeros(ctx.num_rows, ctx.dim)  # defect: default dtype, not grad_output's bf16
        grad_weight.index_add_(0, ids.flatten(), grad_output.reshape(-1, ctx.dim))
        return grad_weight, None


def _custom_embedding_backward_index_add() -> None:
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(10, 4).to(bf16))
    _EmbeddingLookup.apply(weight, torch.tensor([[1, 2, 3]])).sum().backward()


class _StableCrossEntropyHead(nn.Module):
    """An lm head whose loss is a custom Function forced to fp32 with custom_fwd(cast_inputs=...)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.weight = nn.Parameter(torch.randn(5, 6))
        head = self

        class _Loss(torch.autograd.Function):
            @staticmethod
            @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
            def forward(ctx: torch.autograd.function.FunctionCtx, hidden: torch.Tensor,
                        targets: torch.Tensor) -> torch.Tensor:
                logits = hidden @ head.weight.T  # defect: the weight is read from the module, not passed in
                return F.cross_entropy(logits, targets)

            @staticmethod
            @torch.amp.custom_bwd(device_type="cpu")
            def backward(ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor) -> tuple[None, None]:
                return None, None

        self.loss = _Loss

    def forward(self, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return self.loss.apply(hidden, targets)


def _custom_fwd_cast_inputs_closure_weight() -> None:
    head = _StableCrossEntropyHead().to(bf16)
    with torch.autocast("cpu", dtype=bf16):
        head(torch.randn(4, 6), torch.tensor([0, 1, 2, 3]))


@torch.library.custom_op("castwise_live31::int8_weight_matmul", mutates_args=())
def _int8_weight_matmul(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """A weight-only int8 matmul: dequantize by the per-row scale, then multiply."""
    return x @ (weight * scale[:, None]).T  # defect: the fp32 scale makes the dequantized weight fp32


@_int8_weight_matmul.register_fake
def _(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x.new_empty(x.shape[0], weight.shape[0])


def _library_op_int8_dequant_fp32_scale() -> None:
    torch.manual_seed(0)
    weight = torch.randint(-127, 128, (3, 6), dtype=torch.int8)
    scale = torch.rand(3) / 127  # calibration scales kept in fp32
    _int8_weight_matmul(torch.randn(4, 6).to(bf16), weight, scale)


def _ntk_with_cached_fp32_jacobian() -> None:
    model = _mlp().to(bf16)
    params = _detached(model)

    def jacobian(x: torch.Tensor) -> torch.Tensor:
        jac = jacrev(lambda p: functional_call(model, p, (x,)))(params)
        return torch.cat([j.flatten(2) for j in jac.values()], dim=2)

    cached_train = jacobian(torch.randn(3, 6).to(bf16)).float()  # cached in fp32 "to keep precision"
    torch.einsum("naf,mbf->nmab", cached_train, jacobian(torch.randn(2, 6).to(bf16)))


def _opacus_hook_bmm_fp32_activations() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(6, 3).to(bf16)
    saved: dict[str, torch.Tensor] = {}
    layer.register_forward_hook(lambda m, args, out: saved.update(activations=args[0].detach().float()))
    per_sample: dict[str, torch.Tensor] = {}

    def grad_sampler(module: nn.Module, grad_input: tuple[torch.Tensor, ...],
                     grad_output: tuple[torch.Tensor, ...]) -> None:
        # defect: the activations were stored as fp32, the backprops are bf16
        per_sample["weight"] = torch.bmm(grad_output[0].unsqueeze(2), saved["activations"].unsqueeze(1))

    layer.register_full_backward_hook(grad_sampler)
    layer(torch.randn(4, 6).to(bf16).requires_grad_()).sum().backward()


def _tracin_fp8_gradient_cache() -> None:
    torch.manual_seed(0)
    train_grads = (torch.randn(8, 20) * 0.1).to(E4M3)  # per-example gradients cached in fp8 to save memory
    test_grads = torch.randn(2, 20)
    _ = test_grads @ train_grads.T  # defect: the cache is used without dequantizing


def _influence_s_test_dot_bf16() -> None:
    model = _mlp().to(bf16)
    x, y = torch.randn(1, 6).to(bf16), torch.tensor([1])
    grads = torch.autograd.grad(F.cross_entropy(model(x), y), list(model.parameters()))
    train_grad = torch.cat([g.flatten() for g in grads])
    s_test = torch.randn(train_grad.numel())  # the inverse-HVP estimate from LiSSA, kept in fp32
    -torch.dot(s_test, train_grad)


def _influence_hessian_solve_bf16() -> None:
    torch.manual_seed(0)
    head = nn.Linear(4, 1).to(bf16)
    x, y = torch.randn(16, 4).to(bf16), torch.randn(16, 1).to(bf16)

    def loss(w: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(F.linear(x, w.view(1, 4), head.bias), y)

    w = head.weight.detach().flatten()
    hessian = torch.func.hessian(loss)(w) + 0.01 * torch.eye(4).to(bf16)
    torch.linalg.solve(hessian, torch.func.grad(loss)(w))  # defect: the inverse-HVP solved in bf16


def _jacobian_spectral_norm_bf16() -> None:
    model = _mlp().to(bf16)
    jacobian = jacrev(model)(torch.randn(6).to(bf16))
    torch.linalg.matrix_norm(jacobian, ord=2)  # local Lipschitz estimate taken on the bf16 Jacobian


def _vmap_label_smoothing_in_place() -> None:
    def smooth(label: torch.Tensor) -> torch.Tensor:
        return F.one_hot(label, 5).mul_(0.9).add_(0.1 / 5)  # defect: one_hot is int64, smoothed in place

    vmap(smooth)(torch.tensor([0, 3, 1]))


def _per_sample_grads_fp8_accumulated() -> None:
    torch.manual_seed(0)
    accumulated = torch.zeros(3, 6)
    per_sample = [(torch.randn(3, 6) * 0.1).to(E4M3) for _ in range(2)]  # per-sample grads stored in fp8
    for g in per_sample:
        accumulated = accumulated + g  # defect: added without dequantizing


def _tracin_scores_bf16_argsort() -> None:
    torch.manual_seed(0)
    train_grads, test_grad = torch.randn(10, 20).to(bf16), torch.randn(20).to(bf16)
    scores = train_grads @ test_grad
    np.argsort(scores)  # defect: bf16 scores handed to numpy


def _lstm_meta_optimizer_bf16_grads() -> None:
    torch.manual_seed(0)
    optimizee = nn.Linear(4, 1).to(bf16)
    meta_optimizer = nn.LSTM(1, 8)  # the learned optimizer, kept in fp32
    loss = optimizee(torch.randn(3, 4).to(bf16)).pow(2).mean()
    grads = torch.autograd.grad(loss, list(optimizee.parameters()))
    coordinates = torch.cat([g.flatten() for g in grads])
    meta_optimizer(coordinates.view(1, -1, 1))  # defect: the optimizee's bf16 gradients go in as they are


def _influence_cosine_vecdot() -> None:
    torch.manual_seed(0)
    train_grads = F.normalize(torch.randn(5, 20).to(bf16), dim=-1)  # from the bf16 checkpoint
    test_grad = F.normalize(torch.randn(20), dim=-1)  # from an fp32 evaluation copy
    torch.linalg.vecdot(train_grads, test_grad)


def _variable_way_episode_index_fill_f16() -> None:
    torch.manual_seed(0)
    classifier = nn.Linear(6, 5).half()
    logits = classifier(torch.randn(4, 6).half())
    absent_classes = torch.tensor([3, 4])  # a 3-way episode padded to 5 classes
    logits.index_fill(1, absent_classes, -1e9)


def _dp_per_sample_grads_fp16_total_norm() -> None:
    weight = torch.full((3,), 0.5, dtype=f16)

    def loss(w: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return (w * x).pow(2).sum()

    features = torch.full((4, 3), 300.0, dtype=f16)  # raw, unnormalised features
    per_sample = vmap(grad(loss), in_dims=(None, 0))(weight, features)
    torch.nn.utils.get_total_norm(list(per_sample), error_if_nonfinite=True)


class _RoundToInt8(torch.autograd.Function):
    """A straight-through activation quantizer."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        return torch.round(x * 16).clamp(-128, 127).to(torch.int8)  # defect: returns the integer codes

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor) -> torch.Tensor:
        return grad_output


def _ste_quantizer_int8_output() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(6, 3).to(bf16)
    layer(_RoundToInt8.apply(torch.randn(4, 6).to(bf16).requires_grad_()))


CASES: dict[str, LiveCase] = {
    # Opacus-free per-sample gradients with vmap(grad(functional_call)) on a bf16 MLP fed the fp32 batch
    "per-sample-grads-vmap-bf16-mlp-fp32-batch": case(_per_sample_grads_bf16_mlp, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # per-sample gradients with vmap over a bf16 CNN given the loader's fp32 images
    "per-sample-grads-vmap-bf16-cnn-fp32-images": case(_per_sample_grads_bf16_cnn, "conv_weight_dtype", "f32",
                                                       "bf16", grade="correct", grade_at_freeze="correct"),
    # MAML inner step upcasting the fast weights to fp32 while BatchNorm's running buffers stay bf16
    "maml-batchnorm-fast-weights-upcast": case(_maml_batchnorm_fast_weights_upcast, "norm_param_dtype", "f32",
                                                "bf16", grade="correct", grade_at_freeze="correct"),
    # first-order MAML accumulating meta-gradients in fp32 and assigning them as a bf16 model's .grad
    "fomaml-fp32-meta-grad-assigned": case(_fomaml_meta_grad_fp32_assigned, "loss_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # Reptile's outer update lerps the bf16 model toward fast weights adapted in fp32
    "reptile-lerp-fp32-fast-weights": case(_reptile_lerp_fp32_fast_weights, "lerp_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # torch.func.grad over model.state_dict(): BatchNorm's integer num_batches_tracked asked for a gradient
    "maml-grad-over-state-dict": case(_maml_params_from_state_dict, "integer_operand", grade="correct", grade_at_freeze="correct"),
    # an input-saliency Jacobian taken with jacrev of the argmax class ids
    "jacrev-of-argmax-predictions": case(_jacrev_of_argmax_predictions, "integer_operand", "int64", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (68c5d2f) castwise gave nothing. torch.func's vjp check that the differentiated function's outputs are floating (here the int64 argmax class ids) is a message no rule reads."),
    # forward-mode jvp of a positional encoding with respect to integer positions from arange
    "jvp-wrt-integer-positions": case(_jvp_wrt_integer_positions, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # few-shot episode labels built with arange(dtype=support.dtype), bf16, into cross_entropy
    "episode-labels-in-feature-dtype": case(_episode_labels_in_feature_dtype, "target_dtype", "bf16",
                                            fix=("long",), grade="correct", grade_at_freeze="correct"),
    # ProtoNet prototypes averaged by scatter_reduce_ of bf16 embeddings into an fp32 zeros buffer
    "protonet-prototypes-scatter-reduce-fp32-buffer": case(_protonet_prototypes_scatter_reduce,
                                                           "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # a support/query split with a float support mask inverted with ~
    "episode-query-mask-float-inverted": case(_episode_query_mask_float_inverted, "mask_dtype", fix=("bool",), grade="correct", grade_at_freeze="correct"),
    # ProtoNet distances with torch.cdist on bf16 embeddings on the CPU
    "protonet-cdist-bf16-embeddings": case(_protonet_cdist_bf16_embeddings, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a fused linear+log-softmax autograd.Function returning fp32 log-probs whose backward multiplies saved bf16
    "custom-function-fp32-logprobs-backward": case(_custom_function_fp32_logprobs_backward, "matmul_dtype", "f32",
                                                   "bf16", grade="correct", grade_at_freeze="correct"),
    # a hand-written embedding Function whose backward index_add_s bf16 grads into a default-dtype zeros
    "custom-embedding-backward-index-add-fp32": case(_custom_embedding_backward_index_add, "indexed_write_dtype",
                                                     "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # custom_fwd(cast_inputs=float32) loss Function reading the bf16 head weight from the module
    "custom-fwd-cast-inputs-closure-weight": case(_custom_fwd_cast_inputs_closure_weight, "matmul_dtype", "f32",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # a torch.library weight-only int8 matmul op dequantizing with fp32 scales for bf16 activations
    "library-op-int8-dequant-fp32-scale": case(_library_op_int8_dequant_fp32_scale, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # empirical NTK: a jacrev Jacobian cached in fp32 contracted with a fresh bf16 Jacobian by einsum
    "ntk-einsum-cached-fp32-jacobian": case(_ntk_with_cached_fp32_jacobian, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # Opacus-style hooks: fp32-stored activations bmm'd with bf16 backprops for per-sample weight grads
    "per-sample-hook-bmm-fp32-activations": case(_opacus_hook_bmm_fp32_activations, "batched_matmul_dtype",
                                                 "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # TracIn with per-example gradients cached in fp8, multiplied by fp32 test gradients
    "tracin-fp8-gradient-cache-mm": case(_tracin_fp8_gradient_cache, "matmul_dtype", "f32", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # influence score: dot of an fp32 LiSSA s_test with a bf16 training gradient
    "influence-s-test-dot-bf16-grad": case(_influence_s_test_dot_bf16, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # influence functions: inverse-HVP by linalg.solve of a torch.func.hessian computed in bf16
    "influence-hessian-solve-bf16": case(_influence_hessian_solve_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a local Lipschitz estimate: spectral norm of a bf16 jacrev Jacobian
    "jacobian-spectral-norm-bf16": case(_jacobian_spectral_norm_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # vmapped label smoothing done in place on F.one_hot's int64 output
    "vmap-label-smoothing-one-hot-in-place": case(_vmap_label_smoothing_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # per-sample gradients stored in fp8 summed into an fp32 accumulator
    "per-sample-grads-fp8-accumulated": case(_per_sample_grads_fp8_accumulated, "fp8_promotion", "f32",
                                             "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # TracIn scores from bf16 gradients ranked with np.argsort
    "tracin-scores-bf16-numpy-argsort": case(_tracin_scores_bf16_argsort, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # learning to learn: an fp32 LSTM meta-optimizer fed the bf16 optimizee's gradients
    "lstm-meta-optimizer-bf16-grads": case(_lstm_meta_optimizer_bf16_grads, "rnn_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # gradient-similarity influence with linalg.vecdot of bf16 train gradients and an fp32 test gradient
    "influence-cosine-vecdot-bf16-f32": case(_influence_cosine_vecdot, "op_dtype", "bf16", "f32", grade="correct", grade_at_freeze="wrong",
        why="At freeze (68c5d2f) castwise gave scalar_type [bf16, f32] (low confidence). linalg.vecdot's own same-dtype check of two floats is read as a generic one-dtype check, not as the op's."),
    # variable-way few-shot episodes: absent classes masked with index_fill(-1e9) on fp16 logits
    "variable-way-episode-index-fill-f16": case(_variable_way_episode_index_fill_f16, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # DP per-sample gradients in fp16 on raw features overflow; get_total_norm refuses them
    "dp-per-sample-grads-fp16-total-norm": case(_dp_per_sample_grads_fp16_total_norm, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # a straight-through quantizer Function returning int8 codes into a bf16 Linear
    "ste-quantizer-int8-codes-into-linear": case(_ste_quantizer_int8_output, "matmul_dtype", "int8", "bf16", grade="correct", grade_at_freeze="correct"),
}
