"""Held-out live set 70: neural architecture search, hypernetworks and meta-learning written by hand in low precision
(DARTS mixed operations with architecture weights, Gumbel-softmax sampling of ops, supernet weight sharing with integer
op indices, hypernetworks generating weights in another dtype, MAML-style inner loops with torch.autograd.grad, learned
optimizers, evolutionary search with numpy populations, weight-entangled subnets sliced by integer widths). Defects
planted by a helper who never read the rules, written before castwise ran and graded once with the rules frozen at
65a9510."""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "65a9510"

bf16, f16 = torch.bfloat16, torch.float16
_EDGES = 14  # edges of a DARTS cell with four intermediate nodes
_OPS = 8  # DARTS candidate operations per edge


def _seeded() -> None:
    torch.manual_seed(0)


def _candidates(channels: int) -> nn.ModuleList:
    return nn.ModuleList([
        nn.Identity(),
        nn.Conv2d(channels, channels, 3, padding=1, bias=False),
        nn.Conv2d(channels, channels, 5, padding=2, bias=False),
        nn.AvgPool2d(3, stride=1, padding=1),
    ])


# --- differentiable search (DARTS, GDAS, pruning the op space)


def _darts_vectorised_mixed_op_fp32_alphas() -> None:
    _seeded()
    channels = 8
    candidates = _candidates(channels).to(bf16)
    next_preprocess = nn.Sequential(nn.ReLU(), nn.Conv2d(channels, channels, 1, bias=False)).to(bf16)
    alphas = nn.Parameter(1e-3 * torch.randn(len(candidates)))  # the architect's list, made apart from the bf16 net
    x = torch.randn(2, channels, 8, 8, dtype=bf16)
    weights = F.softmax(alphas, dim=-1).view(-1, 1, 1, 1, 1)
    node = (weights * torch.stack([op(x) for op in candidates])).sum(0)  # all candidates at once
    next_preprocess(node)


def _gdas_fp32_hard_gumbel_weights_einsum() -> None:
    _seeded()
    channels = 8
    candidates = _candidates(channels).to(bf16)
    arch = nn.Parameter(1e-3 * torch.randn(len(candidates)))  # architecture logits kept fp32 "for stable sampling"
    hardwts = F.gumbel_softmax(arch, tau=10.0, hard=True)
    x = torch.randn(2, channels, 8, 8, dtype=bf16)
    torch.einsum("k,kbchw->bchw", hardwts, torch.stack([op(x) for op in candidates]))


def _pruned_alphas_fp16_masked_fill() -> None:
    _seeded()
    alphas = nn.Parameter(1e-3 * torch.randn(_EDGES, _OPS).half())  # architecture parameters of an fp16 supernet
    scores = alphas.detach().softmax(-1)
    weakest = scores <= scores.kthvalue(2, dim=-1, keepdim=True).values  # shrink: drop the two weakest ops per edge
    with torch.no_grad():
        alphas.masked_fill_(weakest, -1e9)


def _darts_genotype_from_bf16_alphas() -> list[tuple[int, int]]:
    _seeded()
    alphas_normal = nn.Parameter(1e-3 * torch.randn(_EDGES, _OPS, dtype=bf16))  # registered on the bf16 model
    weights = F.softmax(alphas_normal, dim=-1).data.cpu().numpy()  # DARTS' _parse(...) input
    return [(int(np.argmax(w[1:])) + 1, edge) for edge, w in enumerate(weights)]


def _pruned_ops_float_keep_mask() -> None:
    _seeded()
    alphas = 1e-3 * torch.randn(_EDGES, _OPS)
    keep = torch.ones(_EDGES, _OPS)  # 1 = the op is still in the search space
    keep[:, [0, 3]] = 0.0
    alphas.masked_fill(1 - keep, float("-inf")).softmax(-1)


def _searched_attention_window_bias_mha() -> None:
    _seeded()
    length, dim = 8, 16
    attention = nn.MultiheadAttention(dim, 4, batch_first=True).to(bf16)
    distance = (torch.arange(length)[:, None] - torch.arange(length)[None, :]).abs()
    windows = torch.stack([(distance > w).float() * -1e4 for w in (1, 2, 4, length)])  # candidate local windows
    beta = nn.Parameter(torch.zeros(len(windows)))  # architecture weights over the windows
    bias = (beta.softmax(0)[:, None, None] * windows).sum(0)
    x = torch.randn(2, length, dim, dtype=bf16)
    attention(x, x, x, attn_mask=bias)


def _proxylessnas_latency_lut_f64() -> None:
    _seeded()
    layers = 6
    alphas = nn.Parameter(torch.zeros(layers, 4))
    lut = torch.from_numpy(np.array([0.0, 1.8, 3.1, 0.6]))  # per-op latency (ms) measured on the device, numpy float64
    expected_latency = alphas.softmax(-1) @ lut
    expected_latency.sum()


# --- one-shot supernets with integer op indices


def _spos_float_path_modulelist_index() -> None:
    _seeded()
    blocks = nn.ModuleList(
        nn.ModuleList([nn.Linear(16, 16), nn.Sequential(nn.Linear(16, 16), nn.ReLU()), nn.Identity()])
        for _ in range(3)
    )
    paths = torch.tensor([[0, 2, 1], [1, 1, 0]], dtype=torch.float32)  # kept as the predictor's float training data
    x = torch.randn(2, 16)
    for block, choice in zip(blocks, paths[0]):
        x = block[choice](x)


def _fairnas_op_counts_index_add() -> None:
    _seeded()
    layers, ops = 6, 5
    counts = torch.zeros(layers * ops)  # how often each (layer, op) was trained, for fair sampling
    for _ in range(3):
        arch = torch.randint(0, ops, (layers,))
        flat = torch.arange(layers) * ops + arch
        counts.index_add_(0, flat, torch.ones_like(flat))


def _nasbench_int8_adjacency_bmm() -> None:
    _seeded()
    adjacency = np.zeros((2, 7, 7), dtype=np.int8)  # cell DAGs from the benchmark file, stored as int8
    for i, j in ((0, 1), (1, 2), (2, 6), (0, 3), (3, 6), (0, 4), (4, 5), (5, 6)):
        adjacency[:, i, j] = 1
    ops = F.one_hot(torch.tensor([[0, 1, 2, 1, 3, 2, 4]] * 2), 5).float()
    gcn = nn.Linear(5, 32)
    torch.bmm(torch.from_numpy(adjacency), gcn(ops))


def _enas_controller_lstmcell_fp32_start() -> None:
    _seeded()
    hidden, num_ops = 32, 5
    cell = nn.LSTMCell(hidden, hidden).to(bf16)
    w_soft = nn.Linear(hidden, num_ops).to(bf16)
    embed = nn.Embedding(num_ops, hidden).to(bf16)
    inputs = torch.zeros(1, hidden)  # the start input, made fresh in sample()
    h = c = torch.zeros(1, hidden, dtype=bf16)
    for _ in range(4):
        h, c = cell(inputs, (h, c))
        action = torch.multinomial(w_soft(h).float().softmax(-1), 1)[:, 0]
        inputs = embed(action)


# --- weight-entangled subnets (OFA, AutoFormer, slimmable)


def _ofa_elastic_kernel_transform_upcast() -> None:
    _seeded()
    channels = 16
    conv = nn.Conv2d(channels, channels, 7, padding=3, groups=channels, bias=False).to(bf16)  # max kernel 7
    transform = nn.Linear(25, 25, bias=False)  # the 7to5 kernel transformation matrix
    nn.init.eye_(transform.weight)
    sub = conv.weight[:, :, 1:6, 1:6]
    sub = transform(sub.float().reshape(-1, 25)).reshape(channels, 1, 5, 5)  # transformed in fp32, not cast back
    F.conv2d(torch.randn(2, channels, 8, 8, dtype=bf16), sub, padding=2, groups=channels)


def _elastic_kernel_centre_crop_true_division() -> None:
    _seeded()
    max_kernel, kernel = 7, 5
    weight = torch.randn(16, 1, max_kernel, max_kernel)
    start = (max_kernel - kernel) / 2
    end = start + kernel
    weight[:, :, start:end, start:end]


def _ofa_channel_reorg_index_copy() -> None:
    _seeded()
    master = nn.Linear(32, 64)  # fp32 master weights of the supernet
    working = copy.deepcopy(master).to(bf16)  # the bf16 working copy the importance is computed on
    order = working.weight.abs().sum(1).argsort(descending=True)
    with torch.no_grad():
        master.weight.index_copy_(0, torch.arange(64), working.weight[order])


def _sincos_positions(length: int, dim: int) -> torch.Tensor:
    position = torch.arange(length)[:, None]
    frequency = torch.exp(torch.arange(0, dim, 2) * (-9.21 / dim))
    return torch.cat([torch.sin(position * frequency), torch.cos(position * frequency)], -1)


def _autoformer_sliced_layernorm_fp32_positions() -> None:
    _seeded()
    max_dim, dim, patch_dim = 64, 48, 12  # dim: the sampled embedding width
    patch = nn.Linear(patch_dim, max_dim).to(bf16)
    norm = nn.LayerNorm(max_dim).to(bf16)
    tokens = F.linear(torch.randn(2, 16, patch_dim, dtype=bf16), patch.weight[:dim], patch.bias[:dim])
    h = tokens + _sincos_positions(16, dim)  # positions built per call at the sampled width
    F.layer_norm(h, (dim,), norm.weight[:dim], norm.bias[:dim])


def _autoformer_sliced_heads_fp32_relative_keys() -> None:
    _seeded()
    max_dim, heads, head_dim, length = 64, 4, 12, 8  # sampled: 4 heads of 12
    dim = heads * head_dim
    qkv = nn.Linear(max_dim, 3 * max_dim, bias=False).to(bf16)
    relative_keys = torch.randn(2 * length, 16) * 0.02  # a plain tensor attribute: .to(bf16) does not see it
    x = torch.randn(2, length, dim, dtype=bf16)
    weight = torch.cat([qkv.weight[i * max_dim:i * max_dim + dim, :dim] for i in range(3)])
    q, k, v = (t.view(2, length, heads, head_dim).transpose(1, 2) for t in F.linear(x, weight).chunk(3, -1))
    k = k + relative_keys[:length, :head_dim]
    F.scaled_dot_product_attention(q, k, v)


class _ElasticWidthBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("width_choices", torch.tensor([64, 128, 192, 256], dtype=torch.uint8))  # compact
        self.fc = nn.Linear(256, 256)


def _elastic_width_choices_uint8() -> None:
    _ElasticWidthBlock()


# --- hypernetworks


def _hypernet_autocast_bf16_weights() -> None:
    _seeded()
    z_dim, fan_in, fan_out = 8, 16, 32
    hyper = nn.Sequential(nn.Linear(z_dim, 64), nn.ReLU(), nn.Linear(64, fan_in * fan_out))
    z = torch.randn(1, z_dim)
    with torch.autocast("cpu", dtype=bf16):
        weight = hyper(z).view(fan_out, fan_in)
    F.linear(torch.randn(4, fan_in), weight)  # the target network runs outside autocast


def _hypernet_generated_conv_bias_fp32() -> None:
    _seeded()
    out_c, in_c = 16, 8
    hyper = nn.Linear(8, out_c * in_c * 9 + out_c)  # fp32 hypernetwork for a bf16 target conv
    params = hyper(torch.randn(1, 8))[0]
    weight = params[:-out_c].view(out_c, in_c, 3, 3).to(bf16)
    bias = params[-out_c:]
    F.conv2d(torch.randn(2, in_c, 8, 8, dtype=bf16), weight, bias, padding=1)


def _hypernet_cayley_orthogonal_solve_bf16() -> None:
    _seeded()
    n = 8
    hyper = nn.Linear(4, n * n).to(bf16)
    a = hyper(torch.randn(1, 4, dtype=bf16)).view(n, n)
    skew = a - a.T
    eye = torch.eye(n, dtype=bf16)
    torch.linalg.solve(eye + skew, eye - skew)  # Cayley transform: an orthogonal generated weight


def _task_conditioned_hypernet_bilinear() -> None:
    _seeded()
    layers = 6
    layer_embedding = nn.Embedding(layers, 16).to(bf16)
    mix = nn.Bilinear(16, 32, 64).to(bf16)
    task_encoder = nn.Sequential(nn.Linear(10, 32), nn.Tanh())  # the fp32 task encoder of the meta-learner
    task = task_encoder(torch.randn(1, 10)).expand(layers, 32)
    mix(layer_embedding(torch.arange(layers)), task)


def _chunked_hypernet_chunk_ids_linear() -> None:
    _seeded()
    n_chunks = 12
    chunk_proj = nn.Linear(1, 16)  # chunk index as a scalar feature
    chunk_ids = torch.arange(n_chunks)[:, None]
    chunk_proj(chunk_ids)


# --- meta-learning (iMAML, few-shot episodes)


def _imaml_conjugate_gradient_fp32_direction() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 5)).to(bf16)
    params = list(model.parameters())
    x, y = torch.randn(10, 8, dtype=bf16), torch.randint(0, 5, (10,))
    grads = torch.autograd.grad(F.cross_entropy(model(x), y), params, create_graph=True)
    flat_grad = torch.cat([g.reshape(-1) for g in grads])

    def hvp(v: torch.Tensor) -> torch.Tensor:
        return torch.cat([h.reshape(-1) for h in torch.autograd.grad(flat_grad, params, v, retain_graph=True)])

    r = flat_grad.detach().float()  # conjugate gradient kept in fp32
    p = r.clone()
    ap = hvp(p)
    (r @ r) / torch.dot(p, ap)


def _episode_relabel_int32_lookup() -> None:
    _seeded()
    num_classes, n_way, k_shot = 64, 5, 2
    episode_classes = np.array([3, 17, 22, 40, 51])
    to_episode = np.full(num_classes, -1, dtype=np.int32)
    to_episode[episode_classes] = np.arange(n_way)
    y = torch.from_numpy(to_episode[np.repeat(episode_classes, k_shot)])
    head = nn.Linear(16, n_way)
    weight, bias = head.weight, head.bias
    x = torch.randn(n_way * k_shot, 16)
    loss = F.cross_entropy(F.linear(x, weight, bias), y)
    torch.autograd.grad(loss, [weight, bias], create_graph=True)


# --- learned optimizers


def _learned_optimizer_mlp_bf16_features() -> None:
    _seeded()
    optimizee = nn.Linear(8, 4).to(bf16)
    lopt = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 2))  # meta-trained in fp32
    params = list(optimizee.parameters())
    loss = optimizee(torch.randn(16, 8, dtype=bf16)).pow(2).mean()
    grads = torch.autograd.grad(loss, params)
    for p, g in zip(params, grads):
        momentum = 0.1 * g
        features = torch.stack([g, momentum, p.detach()], -1).reshape(-1, 3)
        lopt(features)


def _learned_optimizer_foreach_lerp_fp32_momentum() -> None:
    _seeded()
    optimizee = nn.Linear(8, 4).to(bf16)
    params = list(optimizee.parameters())
    momenta = [torch.zeros_like(p, dtype=torch.float32) for p in params]  # accumulators kept in fp32
    loss = optimizee(torch.randn(16, 8, dtype=bf16)).pow(2).mean()
    grads = torch.autograd.grad(loss, params)
    torch._foreach_lerp_(momenta, list(grads), 0.1)


# --- evolutionary search


def _evo_fitness_bf16_losses_np_array() -> None:
    _seeded()
    supernet = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 4)).to(bf16)
    x, y = torch.randn(32, 8, dtype=bf16), torch.randint(0, 4, (32,))
    population = np.random.default_rng(0).choice([16, 32, 48, 64], size=6)  # hidden width per candidate
    fitness = []
    with torch.no_grad():
        first, last = supernet[0], supernet[2]
        for width in population:
            h = F.relu(F.linear(x, first.weight[:width], first.bias[:width]))
            fitness.append(-F.cross_entropy(F.linear(h, last.weight[:, :width], last.bias), y))
    np.argsort(-np.array(fitness))[:3]


def _evo_uniform_crossover_one_minus_bool() -> None:
    _seeded()
    mother, father = torch.randint(0, 5, (20,)), torch.randint(0, 5, (20,))
    take_mother = torch.rand(20) < 0.5
    take_mother * mother + (1 - take_mother) * father


def _evo_gaussian_mutation_int_genome() -> None:
    _seeded()
    genome = torch.tensor([3, 1, 4, 0, 2, 2])  # op index per layer
    torch.normal(genome, 0.5).round().clamp(0, 4)


def _es_int_width_genome_in_place_step() -> None:
    _seeded()
    widths = torch.tensor([32, 64, 48, 96])  # channel widths as the search genome
    sigma, population = 4.0, 8
    noise = torch.randn(population, 4)
    fitness = torch.randn(population)
    widths.add_(sigma * (fitness[:, None] * noise).mean(0))


CASES: dict[str, LiveCase] = {
    # --- differentiable search
    # vectorised DARTS mixed op: fp32 architect alphas weight the stacked bf16 candidates, the next cell's conv gets fp32
    "darts-vectorised-mixed-op-fp32-alphas-next-conv": case(_darts_vectorised_mixed_op_fp32_alphas,
                                                            "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # GDAS: hard Gumbel-softmax weights from fp32 logits einsum'd with the stacked bf16 candidate outputs
    "gdas-fp32-hard-gumbel-weights-einsum": case(_gdas_fp32_hard_gumbel_weights_einsum, "matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # progressive shrinking of the op space: the weakest ops' fp16 alphas masked with -1e9
    "pruned-alphas-fp16-masked-fill-1e9": case(_pruned_alphas_fp16_masked_fill, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # DARTS genotype parsed from softmaxed alphas registered on the bf16 model with .numpy()
    "darts-genotype-bf16-alphas-numpy": case(_darts_genotype_from_bf16_alphas, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # pruned ops removed with masked_fill(1 - keep) where keep is a float tensor
    "pruned-ops-float-keep-mask-masked-fill": case(_pruned_ops_float_keep_mask, "mask_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # searched attention window: fp32 architecture weights mix additive window masks for a bf16 MultiheadAttention
    "searched-window-bias-fp32-alphas-mha": case(_searched_attention_window_bias_mha, "attn_mask_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # ProxylessNAS expected latency: fp32 op probabilities @ a per-op latency table from numpy (float64)
    "proxylessnas-latency-lut-f64": case(_proxylessnas_latency_lut_f64, "matmul_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # --- one-shot supernets
    # SPOS: sampled paths kept as a float tensor (the predictor's data) used to index the choice ModuleList
    "spos-float-path-modulelist-index": case(_spos_float_path_modulelist_index, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # FairNAS coverage counts: index_add_ of ones_like(int64 indices) into an fp32 counter
    "fairnas-op-counts-index-add-int64-ones": case(_fairnas_op_counts_index_add, "indexed_write_dtype", "f32",
                                                   "int64",
        grade="correct", grade_at_freeze="correct"),
    # GCN accuracy predictor: benchmark int8 adjacency matrices bmm'd with fp32 node features
    "nasbench-int8-adjacency-bmm-gcn": case(_nasbench_int8_adjacency_bmm, "integer_operand", "int8", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (65a9510) castwise gave matmul_dtype ['f32', 'int8'] (low confidence). The benchmark's "
             "int8 adjacency is integer data given to a float bmm (torch names Char in 'expected scalar type Float "
             "but found Char'), so the fix is to make the adjacency float; the rules read the message as two "
             "floating dtypes meeting in a matmul and gave matmul_dtype instead of integer_operand.")),
    # ENAS controller: bf16 LSTMCell given the fp32 zero start input made in sample()
    "enas-controller-lstmcell-fp32-start-input": case(_enas_controller_lstmcell_fp32_start, "rnn_dtype", "f32",
                                                      "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- weight-entangled subnets
    # OFA elastic kernel: the 7-to-5 transform applied in fp32, the fp32 kernel given to a bf16 depthwise conv
    "ofa-elastic-kernel-transform-upcast": case(_ofa_elastic_kernel_transform_upcast, "conv_weight_dtype", "bf16",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # elastic kernel centre crop with (K - k) / 2: float slice bounds
    "elastic-kernel-centre-crop-true-division": case(_elastic_kernel_centre_crop_true_division,
                                                     "index_tensor_dtype",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (65a9510) castwise gave nothing. The centre-crop bounds come from true division ((7 - 5) / "
             "2 = 1.0), a Python float used as a slice bound of the kernel tensor; the rules do not read Python's "
             "'slice indices must be integers or None or have an __index__ method' as a float index (use // or "
             "int()).")),
    # OFA channel reorganisation: channels sorted on a bf16 working copy, index_copy_'d into the fp32 master weight
    "ofa-channel-reorg-index-copy-bf16": case(_ofa_channel_reorg_index_copy, "indexed_write_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # AutoFormer: sliced bf16 tokens plus fp32 sin-cos positions at the sampled width, into the sliced bf16 LayerNorm
    "autoformer-sliced-layernorm-fp32-positions": case(_autoformer_sliced_layernorm_fp32_positions,
                                                       "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # AutoFormer sliced heads: an fp32 relative key table (plain attribute) added to bf16 keys before SDPA
    "autoformer-sliced-heads-fp32-relative-keys-sdpa": case(_autoformer_sliced_heads_fp32_relative_keys,
                                                            "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # elastic width choices registered as a uint8 buffer: 256 does not fit
    "elastic-width-choices-uint8-buffer": case(_elastic_width_choices_uint8, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # --- hypernetworks
    # hypernetwork run under CPU bf16 autocast, its generated weight used by the fp32 target outside autocast
    "hypernet-autocast-bf16-weights-fp32-target": case(_hypernet_autocast_bf16_weights, "matmul_dtype", "f32",
                                                       "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp32 hypernetwork output split into conv weight (cast to bf16) and bias (left fp32)
    "hypernet-generated-conv-bias-fp32": case(_hypernet_generated_conv_bias_fp32, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 hypernetwork's output made orthogonal by a Cayley transform with linalg.solve
    "hypernet-cayley-orthogonal-solve-bf16": case(_hypernet_cayley_orthogonal_solve_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # task-conditioned hypernetwork: a bf16 nn.Bilinear mixes bf16 layer embeddings with the fp32 task embedding
    "task-conditioned-hypernet-bilinear-fp32-task": case(_task_conditioned_hypernet_bilinear, "op_dtype", "bf16",
                                                         "f32",
        grade="correct", grade_at_freeze="correct"),
    # chunked hypernetwork: arange chunk ids (int64) fed to an fp32 Linear as a scalar feature
    "chunked-hypernet-arange-chunk-ids-linear": case(_chunked_hypernet_chunk_ids_linear, "integer_operand", "int64",
                                                     "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- meta-learning
    # iMAML conjugate gradient kept in fp32, dot with the bf16 Hessian-vector product from autograd.grad
    "imaml-cg-fp32-direction-dot-bf16-hvp": case(_imaml_conjugate_gradient_fp32_direction, "matmul_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # few-shot episode labels relabelled through a numpy int32 lookup table, into the inner-loop cross_entropy
    "episode-relabel-int32-lookup-inner-loss": case(_episode_relabel_int32_lookup, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # --- learned optimizers
    # an fp32 MLP learned optimizer fed per-parameter features of a bf16 optimizee
    "learned-optimizer-mlp-bf16-features": case(_learned_optimizer_mlp_bf16_features, "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # learned optimizer momenta kept fp32, updated with _foreach_lerp_ toward the bf16 gradients
    "learned-optimizer-foreach-lerp-fp32-momenta": case(_learned_optimizer_foreach_lerp_fp32_momentum, "lerp_dtype",
                                                        "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- evolutionary search
    # regularised evolution: bf16 0-dim validation losses collected in a list, np.array'd for selection
    "evo-fitness-bf16-losses-np-array": case(_evo_fitness_bf16_losses_np_array, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # uniform crossover written mask * a + (1 - mask) * b with a bool mask
    "evo-uniform-crossover-one-minus-bool": case(_evo_uniform_crossover_one_minus_bool, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # Gaussian mutation with torch.normal around the int64 op-index genome
    "evo-gaussian-mutation-normal-int-genome": case(_evo_gaussian_mutation_int_genome, "no_kernel", "int64",
        grade="correct", grade_at_freeze="correct"),
    # evolution strategies step added in place to the int64 width genome
    "es-int-width-genome-in-place-step": case(_es_int_width_genome_in_place_step, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
}
