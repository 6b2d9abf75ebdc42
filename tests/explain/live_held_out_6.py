"""Held-out live set 6: training infrastructure and numerics (optimizers, loss scaling, autograd hooks, higher-order
gradients, torch.func, parametrizations, custom ops, checkpoints, metrics, random numbers). Defects planted by a
helper who never read the rules, written before castwise ran and graded once with the rules frozen at c1ca11e."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrizations, parametrize

from .live_cases import LiveCase, case

FROZEN_AT = "c1ca11e"

bf16, f16 = torch.bfloat16, torch.float16


def _mlp() -> nn.Sequential:
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def _fused_adamw_fp32_moments() -> None:
    model = _mlp().to(bf16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    for p in model.parameters():  # moments pre-created in fp32 "for stability" of the bf16 run
        optimizer.state[p] = {"step": torch.tensor(0.0), "exp_avg": torch.zeros_like(p, dtype=torch.float32),
                              "exp_avg_sq": torch.zeros_like(p, dtype=torch.float32)}
    model(torch.randn(4, 4).to(bf16)).float().pow(2).mean().backward()
    optimizer.step()


def _foreach_adam_step_restored_as_int() -> None:
    model = _mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
    model(torch.randn(4, 4)).pow(2).mean().backward()
    optimizer.step()
    global_step = 1200  # resumed from the run's metadata, not from the optimizer's state dict
    for state in optimizer.state.values():
        state["step"] = torch.tensor(global_step)
    optimizer.zero_grad()
    model(torch.randn(4, 4)).pow(2).mean().backward()
    optimizer.step()


def _swa_update_bn_bf16_model() -> None:
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2)).to(bf16)
    swa_model = torch.optim.swa_utils.AveragedModel(model)
    swa_model.update_parameters(model)
    loader = [torch.randn(8, 4) for _ in range(2)]  # the training loader yields fp32 batches
    torch.optim.swa_utils.update_bn(loader, swa_model)


def _scaler_update_every_micro_batch() -> None:
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    accumulation = 4
    for micro_step in range(accumulation):
        loss = model(torch.randn(4, 4)).pow(2).mean() / accumulation
        scaler.scale(loss).backward()
        if (micro_step + 1) % accumulation == 0:
            scaler.step(optimizer)
            optimizer.zero_grad()
        scaler.update()


def _scaler_step_after_zero_grad() -> None:
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    for _ in range(2):
        scaler.scale(model(torch.randn(4, 4)).pow(2).mean() / 2).backward()
    optimizer.zero_grad(set_to_none=True)
    scaler.step(optimizer)
    scaler.update()


def _clip_value_times_static_loss_scale() -> None:
    model = _mlp().half()
    loss_scale = 2.0**16
    (model(torch.randn(4, 4).half()).float().pow(2).mean() * loss_scale).backward()
    nn.utils.clip_grad_value_(model.parameters(), clip_value=1.0 * loss_scale)  # clip the still-scaled gradients


def _fp16_adam_default_eps() -> None:
    torch.manual_seed(0)
    model = nn.Linear(4, 2).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)  # eps=1e-8 is zero in fp16
    x, y = torch.randn(8, 4).half() * 1e-3, torch.tensor([0, 1] * 4)
    F.cross_entropy(model(x).float(), y).backward()
    optimizer.step()
    optimizer.zero_grad()
    with torch.autograd.detect_anomaly():
        F.cross_entropy(model(x).float(), y).backward()


def _backward_hook_upcasts_grad_input() -> None:
    layer = nn.Linear(4, 4).to(bf16)

    def clip_in_fp32(module: nn.Module, grad_input: tuple[torch.Tensor | None, ...],
                     grad_output: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor | None, ...]:
        return tuple(None if g is None else g.float().clamp(-1, 1) for g in grad_input)

    layer.register_full_backward_hook(clip_in_fp32)
    x = torch.randn(2, 4, dtype=bf16, requires_grad=True)
    layer(x).sum().backward()


def _param_hook_accumulates_in_fp32() -> None:
    model = _mlp().to(bf16)
    for p in model.parameters():
        p.register_hook(lambda grad: grad.float())  # accumulate micro-batch gradients in fp32
    for _ in range(2):
        model(torch.randn(4, 4).to(bf16)).float().pow(2).mean().backward()


def _pre_hook_halves_conv_input() -> None:
    stem = nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU())
    stem[0].register_forward_pre_hook(lambda module, args: tuple(a.half() for a in args))  # to save memory
    stem(torch.randn(1, 3, 8, 8))


def _forward_hook_halves_encoder_output() -> None:
    encoder = nn.Linear(6, 4)
    decoder = nn.LSTM(4, 3, batch_first=True)
    encoder.register_forward_hook(lambda module, args, output: output.half())  # compress cached activations
    decoder(encoder(torch.randn(2, 5, 6)))


def _wgan_gradient_penalty_fp32_eps() -> None:
    critic = _mlp().to(bf16)
    real, fake = torch.randn(4, 4).to(bf16), torch.randn(4, 4).to(bf16)
    eps = torch.rand(4, 1)
    mixed = (eps * real + (1 - eps) * fake).requires_grad_()
    (grad,) = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
    ((grad.norm(2, dim=1) - 1) ** 2).mean().backward()


def _meta_sgd_fp32_learning_rates() -> None:
    weight = torch.randn(2, 4, dtype=bf16, requires_grad=True)
    inner_lr = torch.full((2, 4), 0.01, requires_grad=True)  # per-parameter learning rates, meta-learned
    support, query = torch.randn(4, 4).to(bf16), torch.randn(4, 4).to(bf16)
    (grad,) = torch.autograd.grad(F.linear(support, weight).pow(2).mean(), weight, create_graph=True)
    fast_weight = weight - inner_lr * grad
    F.linear(query, fast_weight).pow(2).mean().backward()


def _ensemble_vmap_bf16_inputs() -> None:
    members = [_mlp() for _ in range(3)]
    params, buffers = torch.func.stack_module_state(members)
    base = copy.deepcopy(members[0]).to("meta")

    def member(p: dict[str, torch.Tensor], b: dict[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(base, (p, b), (x,))

    features = torch.randn(5, 4).to(bf16)  # from a bf16 backbone
    torch.func.vmap(member, in_dims=(0, 0, None))(params, buffers, features)


def _jacfwd_wrt_uint8_image() -> None:
    net = nn.Sequential(nn.Flatten(0), nn.Linear(12, 2))
    image = torch.randint(0, 256, (3, 2, 2), dtype=torch.uint8)
    torch.func.jacfwd(net)(image)


def _spectral_norm_params_cast_one_by_one() -> None:
    layer = parametrizations.spectral_norm(nn.Linear(4, 4))
    for p in layer.parameters():
        p.data = p.data.to(bf16)
    layer(torch.randn(2, 4).to(bf16))


def _cayley_orthogonal_bf16() -> None:
    layer = parametrizations.orthogonal(nn.Linear(4, 4), orthogonal_map="cayley").to(bf16)
    layer(torch.randn(2, 4).to(bf16))


class _UnitRowsInFp32(nn.Module):
    def forward(self, weight: torch.Tensor) -> torch.Tensor:
        return F.normalize(weight.float(), dim=1)


def _parametrization_upcasts_weight() -> None:
    head = nn.Linear(8, 4).to(bf16)
    parametrize.register_parametrization(head, "weight", _UnitRowsInFp32())


@functools.cache
def _numpy_gelu_op() -> Callable[[torch.Tensor], torch.Tensor]:
    @torch.library.custom_op("castwise_live6::numpy_gelu", mutates_args=())
    def numpy_gelu(x: torch.Tensor) -> torch.Tensor:
        a = x.numpy()
        return torch.from_numpy(0.5 * a * (1 + np.tanh(0.79788456 * (a + 0.044715 * a**3))))

    return numpy_gelu


def _custom_op_numpy_kernel_bf16() -> None:
    hidden = nn.Linear(4, 8).to(bf16)(torch.randn(2, 4).to(bf16))
    _numpy_gelu_op()(hidden)


@functools.cache
def _fp32_kernel_op() -> Callable[[torch.Tensor], torch.Tensor]:
    @torch.library.custom_op("castwise_live6::rms_scale", mutates_args=())
    def rms_scale(x: torch.Tensor) -> torch.Tensor:
        x32 = x.float()
        return x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6)

    @rms_scale.register_fake
    def _(x: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(x)

    return rms_scale


def _custom_op_fake_dtype_differs() -> None:
    torch.library.opcheck(_fp32_kernel_op(), (torch.randn(2, 4).to(bf16),))


def _module_cast_to_int8_for_checkpoint() -> None:
    model = _mlp()
    model.to(torch.int8)  # shrink the checkpoint before torch.save


def _int8_checkpoint_dequantized_in_place() -> None:
    stored = {"weight": torch.randint(-127, 128, (4, 4), dtype=torch.int8), "scale": torch.rand(4, 1) / 127}
    weight = stored["weight"]
    weight.mul_(stored["scale"])


def _safetensors_numpy_export_bf16() -> None:
    from safetensors.numpy import save

    model = _mlp().to(bf16)
    save({name: t.numpy() for name, t in model.state_dict().items()})


def _causal_mask_buffer_halved_in_checkpoint() -> None:
    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(8, 24)
            self.register_buffer("future", torch.ones(4, 4, dtype=torch.bool).triu(1))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = self.qkv(x).chunk(3, -1)
            scores = (q @ k.transpose(-1, -2)).masked_fill(self.future, float("-inf"))
            return scores.softmax(-1) @ v

    halved = {name: t.half() for name, t in Attention().state_dict().items()}  # a "half every tensor" converter
    with torch.device("meta"):
        model = Attention()
    model.load_state_dict(halved, assign=True)
    model(torch.randn(1, 4, 8).half())


def _running_loss_from_int_zero() -> None:
    model = _mlp().to(bf16)
    running_loss = torch.tensor(0)
    for _ in range(2):
        loss = model(torch.randn(4, 4).to(bf16)).pow(2).mean()
        running_loss += loss.detach()


def _smoothed_correct_count_lerp() -> None:
    smoothed = torch.zeros(())
    logits, labels = torch.randn(8, 3), torch.randint(0, 3, (8,))
    correct = (logits.argmax(-1) == labels).sum()
    smoothed.lerp_(correct, 0.1)


def _weight_histograms_bf16() -> None:
    model = _mlp().to(bf16)
    for p in model.parameters():
        torch.histogram(p.detach(), bins=10)


def _activation_histc_after_overflow() -> None:
    activations = torch.tensor([[1.0, 2.0], [300.0, -3.0]]).half()
    energies = activations * activations * activations  # 300 ** 3 is past fp16's range
    torch.histc(energies, bins=10)


def _keypoint_error_on_argmax_coords() -> None:
    heatmaps = torch.randn(2, 5, 16)
    predicted = torch.stack([heatmaps.argmax(-1) // 4, heatmaps.argmax(-1) % 4], -1)
    target = torch.randint(0, 4, (2, 5, 2))
    torch.linalg.vector_norm(predicted - target, dim=-1).mean()


def _mlm_mask_from_rand_like_ids() -> None:
    input_ids = torch.randint(5, 1000, (2, 16))
    masked = torch.rand_like(input_ids) < 0.15
    input_ids[masked] = 4


def _word_dropout_on_ids() -> None:
    input_ids = torch.randint(5, 1000, (2, 16))
    embedding = nn.Embedding(1000, 8)
    embedding(nn.Dropout(0.1)(input_ids))


def _random_tokens_int16() -> None:
    vocab_size = 50257
    torch.randint(0, vocab_size, (2, 16), dtype=torch.int16)  # int16 to halve the replay buffer


def _binomial_thinning_int_counts() -> None:
    counts = torch.randint(0, 50, (4, 10))  # read counts per gene
    torch.binomial(counts, torch.full((4, 10), 0.5))


def _orthogonal_init_after_bf16_cast() -> None:
    policy = _mlp().to(bf16)
    for module in policy.modules():
        if isinstance(module, nn.Linear):
            nn.init.orthogonal_(module.weight, gain=2**0.5)


CASES: dict[str, LiveCase] = {
    # AdamW fused, with its moments pre-created in fp32 for bf16 parameters
    "fused-adamw-fp32-moments": case(
        _fused_adamw_fp32_moments, "scalar_type", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # foreach Adam resumed with each state's step rebuilt as torch.tensor(global_step), an int64
    "foreach-adam-int-step": case(
        _foreach_adam_step_restored_as_int, "integer_operand", fix=("float",), grade="wrong", grade_at_freeze="wrong",
        why=(
        "At freeze (c1ca11e) castwise gave scalar_type [] (low confidence). It read the foreach grouping "
        "check as parameters and states left in another dtype or device by a model converted after its "
        "optimizer was built, not as the `step` state rebuilt as an int64 tensor where float32 is required."
        )),
    # SWA's update_bn run over the fp32 training loader for a bf16 model
    "swa-update-bn-bf16-model": case(
        _swa_update_bn_bf16_model, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # gradient accumulation calling GradScaler.update() every micro-batch but step() only every 4th
    "scaler-update-every-micro-batch": case(
        _scaler_update_every_micro_batch, "loss_scale", grade="correct", grade_at_freeze="not_recognised",
        why=(
        "At freeze (c1ca11e) castwise gave nothing. GradScaler's 'No inf checks were recorded prior to "
        "update' (update() called without a step() since the last update) is not a message it reads."
        )),
    # gradients zeroed (set to None) before scaler.step at the end of an accumulation window
    "scaler-step-after-zero-grad": case(
        _scaler_step_after_zero_grad, "loss_scale", grade="correct", grade_at_freeze="correct"),
    # pure fp16 training with a static loss scale of 2**16: the clip value is scaled too and given to fp16 gradients
    "clip-value-times-loss-scale-fp16": case(
        _clip_value_times_static_loss_scale, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # pure fp16 Adam with eps=1e-8: the update divides by zero, the next backward gives NaN under anomaly mode
    "fp16-adam-eps-underflow": case(_fp16_adam_default_eps, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # a full backward hook clipping grad_input in fp32 and returning it for a bf16 layer
    "backward-hook-upcasts-grad-input": case(
        _backward_hook_upcasts_grad_input, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="not_recognised",
        why=(
        "At freeze (c1ca11e) castwise gave nothing. Autograd's \"hook 'hook' has changed the type of value "
        "(was CPUBFloat16Type got torch.FloatTensor)\", a gradient hook returning another dtype, is not a "
        "message it reads."
        )),
    # parameter hooks returning fp32 gradients to accumulate micro-batches in fp32
    "param-hook-fp32-grad-accumulation": case(
        _param_hook_accumulates_in_fp32, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="not_recognised",
        why=(
        "At freeze (c1ca11e) castwise gave nothing. Autograd's \"hook '<lambda>' has changed the type of "
        "value\" from a parameter hook returning fp32 gradients for bf16 parameters is not a message it reads."
        )),
    # a forward pre-hook halving images for a stem conv that stays fp32
    "pre-hook-halves-conv-input": case(
        _pre_hook_halves_conv_input, "conv_weight_dtype", "f16", "f32", grade="correct", grade_at_freeze="correct"),
    # a forward hook storing the encoder's output in fp16, fed to an fp32 LSTM decoder
    "forward-hook-halves-encoder-output": case(
        _forward_hook_halves_encoder_output, "rnn_dtype", "f16", "f32", grade="correct", grade_at_freeze="correct"),
    # WGAN-GP interpolation weights drawn with torch.rand (fp32) for a bf16 critic
    "wgan-gp-fp32-interpolation": case(
        _wgan_gradient_penalty_fp32_eps, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # Meta-SGD: fp32 learned inner learning rates make the fast weights fp32
    "meta-sgd-fp32-inner-lr": case(
        _meta_sgd_fp32_learning_rates, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # an fp32 ensemble stacked for vmap, given bf16 features
    "vmap-ensemble-bf16-features": case(
        _ensemble_vmap_bf16_inputs, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # input saliency with jacfwd taken directly on a uint8 image
    "jacfwd-uint8-image": case(
        _jacfwd_wrt_uint8_image, "integer_operand", "uint8", grade="correct", grade_at_freeze="not_recognised",
        why=(
        "At freeze (c1ca11e) castwise gave nothing. torch.func's 'Expected primal to be floating point or "
        "complex, but got: torch.uint8' (forward-mode AD asked of integer data) is not a message it reads."
        )),
    # parameters cast one by one, so spectral norm's power-iteration vectors stay fp32
    "spectral-norm-vectors-fp32": case(
        _spectral_norm_params_cast_one_by_one, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an orthogonal parametrization with the Cayley map in a bf16 model
    "orthogonal-cayley-bf16": case(
        _cayley_orthogonal_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # a custom parametrization normalising a bf16 weight in fp32 and returning fp32
    "parametrization-returns-fp32": case(
        _parametrization_upcasts_weight, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="not_recognised",
        why=(
        "At freeze (c1ca11e) castwise gave nothing. parametrize's ValueError 'Registering a parametrization "
        "may not change the dtype of the tensor' (bf16 in, fp32 out) is not a message it reads."
        )),
    # a torch.library custom op with a numpy kernel called on bf16 activations
    "custom-op-numpy-kernel-bf16": case(
        _custom_op_numpy_kernel_bf16, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # a custom op whose kernel returns fp32 while its fake says the input's bf16, caught by opcheck
    "custom-op-fake-dtype-differs": case(
        _custom_op_fake_dtype_differs, "op_dtype", "f32", "bf16", fix=("fake",), grade="correct", grade_at_freeze="wrong",
        why=(
        "At freeze (c1ca11e) castwise gave scalar_type [f32, bf16] (low confidence). It read the dtypes but "
        "took opcheck's fake-versus-real output mismatch for two operands of one op, so its fix casts "
        "operands and never names the fake (register_fake) registration that disagrees with the kernel."
        )),
    # a model cast with .to(torch.int8) to shrink its checkpoint
    "module-to-int8-checkpoint": case(
        _module_cast_to_int8_for_checkpoint, "integer_operand", "int8",
        grade="correct", grade_at_freeze="not_recognised",
        why=(
        "At freeze (c1ca11e) castwise gave nothing. Module.to's TypeError 'only accepts floating point or "
        "complex dtypes, but got desired dtype=torch.int8' is not a message it reads."
        )),
    # int8 checkpoint weights dequantized in place by their fp32 scales
    "int8-checkpoint-dequant-in-place": case(
        _int8_checkpoint_dequantized_in_place, "result_cast", "f32", "int8",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 state dict exported through safetensors' numpy API
    "safetensors-numpy-bf16": case(
        _safetensors_numpy_export_bf16, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # a checkpoint converted with .half() on every tensor, the bool causal-mask buffer too, loaded with assign=True
    "checkpoint-halved-bool-buffer": case(
        _causal_mask_buffer_halved_in_checkpoint, "mask_dtype", "f16", fix=("bool",),
        grade="correct", grade_at_freeze="correct"),
    # a running loss started as torch.tensor(0), an int64, accumulating bf16 losses in place
    "running-loss-int-zero": case(
        _running_loss_from_int_zero, "result_cast", "bf16", "int64", grade="correct", grade_at_freeze="correct"),
    # an exponentially smoothed accuracy lerped toward an int64 count of correct predictions
    "smoothed-metric-lerp-int-count": case(
        _smoothed_correct_count_lerp, "lerp_dtype", "f32", "int64", grade="correct", grade_at_freeze="wrong",
        why=(
        "At freeze (c1ca11e) castwise gave integer_operand [f32, int64] (high confidence). It read lerp_'s "
        "int64 `end` as integer data needing a float cast, which is the right cure; the expectation files it "
        "under lerp, the op that raised, so the kind differs though its fix (`.float()`) would work."
        )),
    # weight histograms for logging taken with torch.histogram on bf16 parameters
    "weight-histogram-bf16": case(
        _weight_histograms_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
    # an activation histogram logged with histc after an fp16 overflow to inf
    "histc-fp16-overflow-inf": case(
        _activation_histc_after_overflow, "nonfinite", grade="correct", grade_at_freeze="not_recognised",
        why=(
        "At freeze (c1ca11e) castwise gave nothing. torch.histc's 'range of [-27, inf] is not finite' (an "
        "fp16 overflow to inf reaching a histogram) is not among the non-finite messages it reads."
        )),
    # keypoint error as the norm of argmax (int64) coordinates minus integer targets
    "keypoint-norm-int-coords": case(
        _keypoint_error_on_argmax_coords, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # MLM masking drawn with torch.rand_like on the int64 input_ids
    "mlm-mask-rand-like-ids": case(
        _mlm_mask_from_rand_like_ids, "integer_operand", "int64", grade="wrong", grade_at_freeze="wrong",
        why=(
        "At freeze (c1ca11e) castwise gave no_kernel [int64] (low confidence). It took check_uniform_bounds "
        "on int64 for an integer weight being initialised (a quantized model) rather than random floats drawn "
        "like the int64 ids; its fix does mention torch.randint but not drawing the mask in a float dtype."
        )),
    # word dropout applied with nn.Dropout to the token ids
    "word-dropout-on-ids": case(
        _word_dropout_on_ids, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # random replacement tokens drawn into int16 for a 50257-token vocabulary
    "random-tokens-int16-vocab": case(
        _random_tokens_int16, "half_overflow", "int16", grade="correct", grade_at_freeze="not_recognised",
        why=(
        "At freeze (c1ca11e) castwise gave nothing. randint's 'to - 1 is out of bounds for short int' (a "
        "50257-token vocabulary past int16's range) is not read as a value outside the dtype's range."
        )),
    # binomial thinning (count downsampling) given int64 counts
    "binomial-thinning-int-counts": case(
        _binomial_thinning_int_counts, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # orthogonal initialisation applied after the policy was cast to bf16
    "orthogonal-init-after-bf16-cast": case(
        _orthogonal_init_after_bf16_cast, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
}
