"""Held-out live set 65: federated learning and differential privacy by hand in low precision (DP-SGD with per-sample
gradients via torch.func, clipping norms and Gaussian noise, privacy accounting in float64, FedAvg of client updates
in different dtypes, secure-aggregation masks as integers, quantized and sparsified client updates, top-k indices,
server momentum, client weights by sample counts). Defects planted by a helper who never read the rules, written
before castwise ran and graded once with the rules frozen at dd7565d."""

from __future__ import annotations

import io

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

from .live_cases import LiveCase, case

FROZEN_AT = "dd7565d"

bf16, f16 = torch.bfloat16, torch.float16
_DIM = 64  # flattened size of the toy global model's update
_CLIENTS = 4


def _seeded() -> None:
    torch.manual_seed(0)


def _client_deltas(dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    return [torch.randn(_DIM).mul(0.01).to(dtype) for _ in range(_CLIENTS)]


def _fedavg_numpy_sample_weights_matmul() -> None:
    _seeded()
    num_samples = np.array([120, 45, 300, 80])  # reported by the clients with their updates
    weights = torch.from_numpy(num_samples / num_samples.sum())
    deltas = torch.stack(_client_deltas())
    weights @ deltas


def _fedlora_merge_addmm_bf16_factors() -> None:
    _seeded()
    base = torch.randn(32, 32)  # the server's fp32 frozen base weight
    lora_a = torch.randn(4, 32, dtype=bf16) * 0.01  # averaged client adapters, trained on device in bf16
    lora_b = torch.randn(32, 4, dtype=bf16) * 0.01
    base.addmm_(lora_b, lora_a, alpha=16 / 4)


def _fedavg_vector_to_parameters_bf16_average() -> None:
    _seeded()
    global_model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    flat = nn.utils.parameters_to_vector(global_model.parameters())
    received = [(flat + 0.01 * torch.randn_like(flat)).to(bf16) for _ in range(_CLIENTS)]  # clients upload bf16
    nn.utils.vector_to_parameters(torch.stack(received).mean(0), global_model.parameters())
    global_model(torch.randn(5, 8))  # server-side evaluation on the fp32 held-out batch


def _pld_accountant_conv1d_f64_pmf() -> None:
    grid = np.linspace(-5.0, 5.0, 101)
    pmf_gauss = np.exp(-((grid - 0.5) ** 2) / 2.0)
    pmf_gauss = torch.from_numpy(pmf_gauss / pmf_gauss.sum())  # privacy-loss PMF of one Gaussian step, float64
    pmf_sub = torch.softmax(-torch.linspace(-5.0, 5.0, 101) ** 2, 0)  # the subsampling step's PMF, default fp32
    F.conv1d(pmf_gauss[None, None], pmf_sub.flip(0)[None, None], padding=100)


def _fedavgm_server_momentum_lerp_bf16_delta() -> None:
    _seeded()
    global_params = torch.randn(_DIM)
    momentum = torch.zeros_like(global_params)
    avg_delta = torch.stack(_client_deltas(bf16)).mean(0)  # clients trained and uploaded in bf16
    momentum.lerp_(avg_delta, 1 - 0.9)
    global_params.add_(momentum)


def _fedrec_item_rows_index_add_f16() -> None:
    _seeded()
    item_table = torch.randn(100, 16)  # the server's global item embeddings
    touched_items = torch.tensor([3, 17, 42, 99])
    row_updates = (torch.randn(4, 16) * 0.01).half()  # a client uploads only the rows it touched, in fp16
    item_table.index_add_(0, touched_items, row_updates * (50 / 400))


def _secagg_unmasked_sum_written_into_float_delta() -> None:
    _seeded()
    scale = 2**16
    quantized = [torch.round(d * scale).long() for d in _client_deltas()]
    masks = [torch.randint(-(2**20), 2**20, (_DIM,)) for _ in range(_CLIENTS - 1)]
    masks.append(-torch.stack(masks).sum(0))  # pairwise masks cancel in the sum
    aggregate = torch.stack([q + m for q, m in zip(quantized, masks)]).sum(0)
    global_delta = torch.zeros(2 * _DIM)
    block = torch.arange(_DIM, 2 * _DIM)  # this round's block of coordinates
    global_delta[block] = aggregate  # not divided by the scale first


def _scaffold_control_variates_fp32_on_bf16_client() -> None:
    _seeded()
    client = nn.Linear(16, 4).to(bf16)
    c_global = {n: torch.zeros_like(p, dtype=torch.float32) for n, p in client.named_parameters()}
    c_local = {n: torch.full_like(p, 1e-3, dtype=torch.float32) for n, p in client.named_parameters()}
    F.cross_entropy(client(torch.randn(8, 16, dtype=bf16)), torch.randint(0, 4, (8,))).backward()
    for name, p in client.named_parameters():
        p.grad = p.grad - c_local[name] + c_global[name]


def _fedbn_local_bn_loaded_bf16_assign() -> None:
    _seeded()
    personal = nn.Sequential(nn.Linear(12, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    device_bn = {k: (v.to(bf16) if v.is_floating_point() else v) for k, v in nn.BatchNorm1d(8).state_dict().items()}
    personal[1].load_state_dict(device_bn, assign=True)  # the client's private BN statistics, saved on device in bf16
    personal(torch.randn(6, 12))


def _federated_analytics_histogram_f64_edges() -> None:
    _seeded()
    session_lengths = torch.rand(200) * 30.0  # minutes, on one client
    edges = torch.from_numpy(np.linspace(0.0, 30.0, 11))  # bin edges broadcast by the server
    counts, _ = torch.histogram(session_lengths, bins=edges)
    counts + torch.distributions.Laplace(0.0, 1.0 / 0.5).sample(counts.shape)


def _secagg_xor_one_time_pad_on_fp16_update() -> None:
    _seeded()
    update = (torch.randn(_DIM) * 0.01).half()
    gen = torch.Generator().manual_seed(1234)  # seed agreed with the peer
    pad = torch.randint(0, 256, (_DIM,), generator=gen, dtype=torch.uint8)
    update ^ pad


def _qsgd_quantize_per_tensor_bf16_update() -> None:
    _seeded()
    update = torch.randn(_DIM, dtype=bf16) * 0.01  # the client trained in bf16
    scale = update.abs().max().item() / 127
    torch.quantize_per_tensor(update, scale, 0, torch.qint8)


def _per_sample_norms(dtype: torch.dtype) -> torch.Tensor:
    model = nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3)).to(dtype)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(functional_call(model, p, (x[None],)), y[None])

    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, torch.randn(8, 10, dtype=dtype),
                                                          torch.randint(0, 3, (8,)))
    return torch.stack([g.flatten(1).norm(dim=1) for g in per_sample.values()], 1).norm(dim=1)


def _adaptive_clipping_quantile_bf16_norms() -> None:
    _seeded()
    norms = _per_sample_norms(bf16)
    target_unclipped = 0.5
    clip = torch.quantile(norms, target_unclipped)  # initial clip norm for the adaptive-clipping schedule
    norms.clamp(max=clip)


def _krum_cdist_bf16_updates() -> None:
    _seeded()
    updates = torch.stack(_client_deltas(bf16) + _client_deltas(bf16))
    distances = torch.cdist(updates, updates) ** 2
    distances.topk(8 - 2 - 2, largest=False).values.sum(1).argmin()


def _gdp_accountant_log_ndtr_halved_buffer() -> None:
    model = nn.Linear(4, 2)
    model.register_buffer("noise_multiplier", torch.tensor(1.1))  # kept with the model for checkpointing
    model.half()
    steps, sample_rate, eps = 1000, 0.01, 3.0
    sigma = model.noise_multiplier
    mu = sample_rate * torch.sqrt(steps * (torch.exp(sigma**-2) - 1))
    torch.special.log_ndtr(-eps / mu + mu / 2)


def _skellam_noise_poisson_int_rate() -> None:
    _seeded()
    quantized = torch.round(torch.randn(_DIM) * 2**10).long()
    mu = 100  # Skellam variance per coordinate, an int from the config
    rate = torch.full((_DIM,), mu)
    quantized + torch.poisson(rate) - torch.poisson(rate)


def _secagg_pairwise_masks_randint_int32() -> None:
    gen = torch.Generator().manual_seed(7)  # PRG seeded from the pairwise key agreement
    torch.randint(0, 2**32, (_DIM,), generator=gen, dtype=torch.int32)


def _flame_cosine_self_similarity_masked_fill_f16() -> None:
    _seeded()
    updates = torch.stack(_client_deltas(f16))
    normed = updates / updates.norm(dim=1, keepdim=True)
    similarity = normed @ normed.T
    eye = torch.eye(_CLIENTS, dtype=torch.bool)
    similarity.masked_fill(eye, -1e5).max(1)


def _power_of_choice_exp_losses_fp16_nan() -> None:
    reported_losses = torch.tensor([2.3, 14.0, 9.5, 11.8, 0.7], dtype=f16)  # clients report losses in fp16
    weights = torch.exp(reported_losses)
    probs = weights / weights.sum()
    torch.multinomial(probs, 2)


def _client_update_bf16_to_numpy_for_upload() -> None:
    _seeded()
    client = nn.Linear(8, 4).to(bf16)
    payload = {k: v.detach().numpy() for k, v in client.state_dict().items()}  # to be packed with np.savez
    np.savez(io.BytesIO(), **payload)


def _simulated_clients_batched_weights_bmm() -> None:
    _seeded()
    clients, batch, features, classes = 8, 4, 10, 3
    client_weights = (torch.randn(clients, features, classes) * 0.1).to(bf16)  # every client's head, one tensor
    client_batches = torch.randn(clients, batch, features)  # each client's local batch, from the fp32 loader
    torch.bmm(client_batches, client_weights)


def _signsgd_bool_signs_decoded_by_subtraction() -> None:
    _seeded()
    signs = [d > 0 for d in _client_deltas()]  # one bit per coordinate on the wire
    decoded = [s - ~s for s in signs]
    torch.stack(decoded).sum(0).sign()


def _secagg_survivor_flags_int_where() -> None:
    _seeded()
    masked_updates = torch.stack(_client_deltas())
    survived = torch.from_numpy(np.array([1, 0, 1, 1]))  # the protocol's dropout report, 0/1 ints
    torch.where(survived[:, None], masked_updates, 0.0).sum(0)


def _client_dropout_rate_bool_mean() -> None:
    _seeded()
    dropped = torch.rand(100) < 0.15  # simulated device dropout this round
    dropped.mean()


def _trimmed_mean_state_dicts_num_batches_tracked() -> None:
    _seeded()
    states = []
    for _ in range(5):
        net = nn.Sequential(nn.Linear(6, 6), nn.BatchNorm1d(6))
        net.train()(torch.randn(4, 6))
        states.append(net.state_dict())
    trimmed = {}
    for key in states[0]:
        stacked = torch.stack([s[key] for s in states]).sort(0).values
        trimmed[key] = stacked[1:-1].mean(0)  # drop the largest and smallest value per coordinate


def _fedavg_foreach_accumulate_num_batches_tracked() -> None:
    _seeded()
    clients = [nn.Sequential(nn.Linear(6, 6), nn.BatchNorm1d(6)) for _ in range(3)]
    for net in clients:
        net.train()(torch.randn(4, 6))
    num_samples = [30, 50, 20]
    weights = [n / sum(num_samples) for n in num_samples]
    aggregate = [torch.zeros_like(t) for t in clients[0].state_dict().values()]
    for net, w in zip(clients, weights):
        torch._foreach_add_(aggregate, [w * t for t in net.state_dict().values()])


def _poisson_sampling_bernoulli_float_mask() -> None:
    _seeded()
    features, labels = torch.randn(50, 10), torch.randint(0, 3, (50,))
    sample_rate = 0.1
    selected = torch.bernoulli(torch.full((50,), sample_rate))  # Poisson subsampling for the DP-SGD step
    features[selected], labels[selected]


def _gtopk_int16_indices_gather() -> None:
    _seeded()
    accumulated = torch.randn(20000) * 0.01  # local gradient plus error-feedback residual
    global_idx = torch.topk(torch.randn(20000).abs(), 200).indices.to(torch.int16)  # broadcast compactly
    accumulated.gather(0, global_idx)


def _dp_logreg_per_sample_bool_labels() -> None:
    _seeded()
    model = nn.Linear(10, 1)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(functional_call(model, p, (x[None],)).squeeze(), y)

    clicked = torch.rand(16) > 0.5  # label column read from the client's log as bool
    vmap(grad(loss), in_dims=(None, 0, 0))(params, torch.randn(16, 10), clicked)


def _dp_per_sample_grads_uint8_client_images() -> None:
    _seeded()
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 26 * 26, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(functional_call(model, p, (x[None],)), y[None])

    images = torch.randint(0, 256, (8, 1, 28, 28), dtype=torch.uint8)  # FEMNIST-style digits as stored
    vmap(grad(loss), in_dims=(None, 0, 0))(params, images, torch.randint(0, 10, (8,)))


CASES: dict[str, LiveCase] = {
    # FedAvg weights from numpy sample counts (float64) matmul'd with the stacked fp32 client deltas
    "fedavg-numpy-sample-weights-f64-matmul": case(_fedavg_numpy_sample_weights_matmul, "matmul_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # federated LoRA: bf16 averaged adapters merged into the fp32 base weight with addmm_
    "fedlora-merge-addmm-bf16-factors": case(_fedlora_merge_addmm_bf16_factors, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 flat client vectors averaged and written back with vector_to_parameters; fp32 evaluation batch
    "fedavg-vector-to-parameters-bf16-average": case(_fedavg_vector_to_parameters_bf16_average, "matmul_dtype",
                                                     "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # PLD accountant composing a float64 privacy-loss PMF with an fp32 one by conv1d
    "pld-accountant-conv1d-f64-pmf": case(_pld_accountant_conv1d_f64_pmf, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # server momentum buffer (fp32) lerped toward the averaged bf16 client delta
    "fedavgm-server-momentum-lerp-bf16-delta": case(_fedavgm_server_momentum_lerp_bf16_delta, "lerp_dtype", "f32",
                                                    "bf16",
        grade="correct", grade_at_freeze="correct"),
    # federated recommendation: fp16 item-row updates index_add_'ed into the fp32 global item table
    "fedrec-item-rows-index-add-f16": case(_fedrec_item_rows_index_add_f16, "indexed_write_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # secure aggregation: the unmasked int64 quantized sum written into the fp32 global delta without dequantizing
    "secagg-unmasked-int64-sum-index-put": case(_secagg_unmasked_sum_written_into_float_delta,
                                                "indexed_write_dtype", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # SCAFFOLD: fp32 control variates added to a bf16 client's gradients and assigned to p.grad
    "scaffold-fp32-control-variates-bf16-grad": case(_scaffold_control_variates_fp32_on_bf16_client, "loss_dtype",
                                                     "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # FedBN: a client's private bf16 BatchNorm state loaded with assign=True into the fp32 personal model
    "fedbn-local-bn-bf16-assign": case(_fedbn_local_bn_loaded_bf16_assign, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # federated analytics: fp32 values histogrammed with float64 bin edges from numpy
    "federated-analytics-histogram-f64-edges": case(_federated_analytics_histogram_f64_edges, "op_dtype", "f32",
                                                    "f64", fix=("bins",),
        grade="partly", grade_at_freeze="partly",
        why=(
             'At freeze (dd7565d) castwise gave op_dtype [f32, f64] (high confidence). The cause names the '
             "f64 bins, but the fix says to convert 'it' (the float64 tensor, or the model with "
             "model.double()) without naming the bin edges passed as bins= that must be cast to the values' "
             'dtype.')),
    # secure aggregation by a uint8 one-time pad XORed into the fp16 update
    "secagg-xor-pad-fp16-update": case(_secagg_xor_one_time_pad_on_fp16_update, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # QSGD-style compression: quantize_per_tensor on a bf16 client update
    "qsgd-quantize-per-tensor-bf16-update": case(_qsgd_quantize_per_tensor_bf16_update, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # adaptive clipping: quantile of the bf16 per-sample gradient norms from vmap(grad)
    "adaptive-clipping-quantile-bf16-norms": case(_adaptive_clipping_quantile_bf16_norms, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # Krum: pairwise distances of bf16 client updates with cdist
    "krum-cdist-bf16-updates": case(_krum_cdist_bf16_updates, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GDP accountant: log_ndtr on a noise multiplier halved with the model it was registered on
    "gdp-accountant-log-ndtr-halved-buffer": case(_gdp_accountant_log_ndtr_halved_buffer, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # distributed DP: Skellam noise from torch.poisson of an int64 rate made with torch.full and an int
    "skellam-noise-poisson-int64-rate": case(_skellam_noise_poisson_int_rate, "no_kernel", "int64",
        grade="correct", grade_at_freeze="wrong",
        why=(
             "At freeze (dd7565d) castwise gave integer_operand [int64] (high confidence). torch.poisson's "
             'missing int64 kernel ("poisson_cpu" not implemented for \'Long\') on a rate tensor that '
             'torch.full made int64 from an int is read as integer data fed to float math (convert the data '
             'with x.float()) rather than as a sampling op with no kernel for int64; the fix it gives (float '
             'rates) would work, but the kind is not the one expected (the expectation follows the stated '
             'convention for a random op missing an integer kernel; live_held_out_6 filed torch.binomial of '
             'int64 counts, refused with another message, as integer_operand).')),
    # secure aggregation masks drawn with randint up to 2**32 into int32
    "secagg-pairwise-masks-randint-int32": case(_secagg_pairwise_masks_randint_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # FLAME-style filtering: fp16 cosine similarities with the diagonal masked by -1e5
    "flame-self-similarity-masked-fill-f16": case(_flame_cosine_self_similarity_masked_fill_f16, "half_overflow",
                                                  "f16",
        grade="correct", grade_at_freeze="correct"),
    # power-of-choice client selection: exp of fp16 reported losses overflows, multinomial gets NaN
    "power-of-choice-exp-losses-fp16-nan": case(_power_of_choice_exp_losses_fp16_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 client's state dict turned into numpy arrays for upload
    "client-update-bf16-numpy-upload": case(_client_update_bf16_to_numpy_for_upload, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # simulating 8 clients at once: fp32 local batches bmm'd with the stacked bf16 client heads
    "simulated-clients-batched-weights-bmm": case(_simulated_clients_batched_weights_bmm, "batched_matmul_dtype",
                                                  "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # signSGD: bool sign bits decoded to +1/-1 by subtracting the inverted bits
    "signsgd-bool-signs-subtract": case(_signsgd_bool_signs_decoded_by_subtraction, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # secure aggregation: the 0/1 int64 survivor flags used as torch.where's condition
    "secagg-survivor-flags-int-where": case(_secagg_survivor_flags_int_where, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # simulated client dropout rate by mean of a bool tensor
    "client-dropout-rate-bool-mean": case(_client_dropout_rate_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # coordinate-wise trimmed mean over state dicts meets BatchNorm's int64 num_batches_tracked
    "trimmed-mean-num-batches-tracked": case(_trimmed_mean_state_dicts_num_batches_tracked, "integer_operand",
                                             "int64",
        grade="correct", grade_at_freeze="correct"),
    # weighted FedAvg with _foreach_add_ into zeros_like buffers: num_batches_tracked stays int64
    "fedavg-foreach-num-batches-tracked": case(_fedavg_foreach_accumulate_num_batches_tracked, "result_cast", "f32",
                                               "int64",
        grade="correct", grade_at_freeze="correct"),
    # DP-SGD Poisson subsampling with torch.bernoulli's float mask used as an index
    "poisson-sampling-bernoulli-float-index": case(_poisson_sampling_bernoulli_float_mask, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # global top-k: int16 indices broadcast by the server used in gather
    "gtopk-int16-indices-gather": case(_gtopk_int16_indices_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # DP logistic regression, per-sample grads by vmap(grad), bool labels in BCE-with-logits
    "dp-logreg-per-sample-bool-labels": case(_dp_logreg_per_sample_bool_labels, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # DP per-sample grads by vmap(grad) over a CNN given the client's uint8 images
    "dp-per-sample-grads-uint8-images": case(_dp_per_sample_grads_uint8_client_images, "integer_operand", "uint8",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
}
