"""Held-out live set 27: model merging, editing and interpretability written by hand on tiny models in low precision
(task arithmetic, TIES and DARE merges, SLERP, soups of checkpoints saved in different dtypes, ROME/MEMIT-style edits,
activation patching and caching with hooks, steering vectors, probes, logit lens, attribution, sparse autoencoders,
head ablation and circuit analysis). Defects planted by a helper who never read the rules, written before castwise ran
and graded once with the rules frozen at 3c0cb01."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

from .live_cases import LiveCase, case

FROZEN_AT = "3c0cb01"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _tiny_llama() -> LlamaForCausalLM:
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
                         attn_implementation="sdpa")
    return LlamaForCausalLM(config).to(bf16).eval()


def _tiny_gpt2() -> GPT2LMHeadModel:
    config = GPT2Config(vocab_size=64, n_positions=32, n_embd=16, n_layer=2, n_head=2, bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config).to(bf16).eval()


def _tiny_bert() -> BertModel:
    config = BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32)
    return BertModel(config).to(bf16).eval()


def _prompt_ids() -> torch.Tensor:
    return torch.randint(1, 64, (1, 6), generator=_generator())


class _SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.head = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn(self.stem(x)))
        x = F.relu(self.conv(x))
        return self.head(x.mean((2, 3)))


# --- merging: task arithmetic, TIES, DARE, SLERP, soups

def _task_vector_into_int8_base_in_place() -> None:
    gen = _generator()
    base = torch.randn(8, 8, generator=gen)
    finetuned = base + 0.05 * torch.randn(8, 8, generator=gen)
    task_vector = finetuned - base
    scale = base.abs().amax(dim=1, keepdim=True) / 127
    qweight = torch.round(base / scale).to(torch.int8)  # the served base: int8 weight-only codes + per-row scales
    qweight.add_(0.5 * task_vector / scale)


def _ties_agreement_mask_in_weight_dtype() -> None:
    gen = _generator()
    task_vectors = torch.stack([0.02 * torch.randn(16, 16, generator=gen) for _ in range(3)]).to(bf16)
    keep = int(0.2 * 256)
    thresholds = task_vectors.abs().flatten(1).kthvalue(256 - keep, dim=1).values
    trimmed = task_vectors * (task_vectors.abs() >= thresholds[:, None, None])
    elected = torch.sign(trimmed.sum(0))
    agree = (torch.sign(trimmed) == elected).to(trimmed.dtype)  # also counts the agreeing models below
    torch.where(agree, trimmed, 0.0).sum(0) / agree.sum(0).clamp(min=1)


def _dare_on_fp8_stored_deltas() -> None:
    gen = _generator()
    base = torch.randn(16, 16, generator=gen).to(bf16)
    delta = (0.01 * torch.randn(16, 16, generator=gen)).to(E4M3)  # a delta-compressed fine-tune saved in fp8
    drop = 0.9
    keep = torch.bernoulli(torch.full_like(delta, 1 - drop), generator=gen)
    base + (delta.to(bf16) * keep.to(bf16)) / (1 - drop)


def _slerp_bf16_and_fp32_checkpoints() -> None:
    gen = _generator()
    a = torch.randn(32, 32, generator=gen).to(bf16)  # one fine-tune saved in bf16
    b = torch.randn(32, 32, generator=gen)  # the other saved in fp32
    a_dir, b_dir = a.flatten() / a.norm(), b.flatten() / b.norm()
    omega = torch.arccos(torch.dot(a_dir, b_dir).clamp(-1, 1))
    t = 0.5
    (torch.sin((1 - t) * omega) * a + torch.sin(t * omega) * b) / torch.sin(omega)


def _linear_merge_with_int8_checkpoint() -> None:
    gen = _generator()
    model = nn.Linear(16, 16).to(bf16)
    other = {  # a weight-only int8 export of the other fine-tune, loaded as is
        "weight": torch.randint(-127, 128, (16, 16), generator=gen, dtype=torch.int8),
        "bias": torch.randn(16, generator=gen).to(bf16),
    }
    {name: torch.lerp(value, other[name], 0.5) for name, value in model.state_dict().items()}


def _uniform_soup_with_fp8_checkpoint() -> None:
    ingredients = [nn.Linear(8, 8).to(bf16).state_dict() for _ in range(2)]
    ingredients.append({name: value.to(E4M3) for name, value in nn.Linear(8, 8).state_dict().items()})
    {name: torch.stack([sd[name] for sd in ingredients]).mean(0) for name in ingredients[0]}


def _uniform_soup_num_batches_tracked() -> None:
    ingredients = []
    for _ in range(3):
        model = _SmallCNN()
        model(torch.randn(2, 3, 8, 8, generator=_generator()))  # a training step updates BatchNorm's statistics
        ingredients.append(model.state_dict())
    {name: torch.stack([sd[name] for sd in ingredients]).mean(0) for name in ingredients[0]}


def _plain_cnn() -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))


def _merged_cnn_biases_assigned_with_data() -> None:
    base = _plain_cnn()
    finetuned = [_plain_cnn() for _ in range(2)]
    merged = {name: value + 0.3 * sum(ft.state_dict()[name] - value for ft in finetuned)
              for name, value in base.state_dict().items()}
    model = _plain_cnn().to(bf16).eval()
    for name, param in model.named_parameters():
        if param.dim() > 1:
            param.data.copy_(merged[name])  # matrices and kernels copied into the bf16 weights
        else:
            param.data = merged[name]  # biases put in as computed
    model(torch.randn(1, 3, 8, 8, generator=_generator()).to(bf16))


# --- editing: ROME, MEMIT, knowledge neurons, AlphaEdit

def _rome_fp32_inverse_covariance_bf16_key() -> None:
    gen = _generator()
    model = _tiny_llama()
    down_proj = model.model.layers[0].mlp.down_proj
    wiki_keys = torch.randn(256, 32, generator=gen)  # second-moment statistics precomputed and saved in fp32
    inverse_covariance = torch.linalg.inv(wiki_keys.T @ wiki_keys / 256)
    captured = {}
    down_proj.register_forward_pre_hook(lambda module, args: captured.update(key=args[0][0, -1].detach()))
    with torch.no_grad():
        model(_prompt_ids())
    left = inverse_covariance @ captured["key"]
    left / left.norm()


def _memit_solve_fp32_second_moment_bf16_keys() -> None:
    gen = _generator()
    second_moment = torch.eye(32) + 0.1 * torch.ones(32, 32)  # mom2 statistics loaded from an fp32 file
    keys = torch.randn(32, 4, generator=gen).to(bf16)  # the edited subjects' keys, hooked from the bf16 model
    residuals = torch.randn(16, 4, generator=gen).to(bf16)
    adjusted = torch.linalg.solve(1.5e4 * second_moment + keys @ keys.T, keys)
    residuals @ adjusted.T


def _knowledge_neurons_index_copy_fp32() -> None:
    model = _tiny_llama()
    down_proj = model.model.layers[1].mlp.down_proj
    neurons = torch.tensor([3, 17])
    with torch.no_grad():
        embeddings = model.get_input_embeddings().weight.float()
        direction = embeddings[42] - embeddings[7]  # towards the new object, away from the old one
        new_values = down_proj.weight[:, neurons].float() + 2.0 * direction[:, None]
        down_proj.weight.index_copy_(1, neurons, new_values)


def _alphaedit_projected_gradient_fp32() -> None:
    gen = _generator()
    layer = nn.Linear(16, 16).to(bf16)
    preserved_keys = torch.randn(64, 16, generator=gen)
    eigenvalues, eigenvectors = torch.linalg.eigh(preserved_keys.T @ preserved_keys)
    null_space = eigenvectors[:, eigenvalues < eigenvalues.max() * 1e-1]
    projector = null_space @ null_space.T
    edit_key = torch.randn(4, 16, generator=gen).to(bf16)
    target = torch.randn(4, 16, generator=gen).to(bf16)
    F.mse_loss(layer(edit_key), target).backward()
    layer.weight.grad = layer.weight.grad.float() @ projector


# --- activation patching, caching and ablation with hooks

def _mlp_output_patching_fp32_cache() -> None:
    model = _tiny_llama()
    mlp = model.model.layers[0].mlp
    clean, corrupted = _prompt_ids(), torch.randint(1, 64, (1, 6))
    cache = {}
    handle = mlp.register_forward_hook(lambda module, args, output: cache.update(clean=output.detach().float()))
    with torch.no_grad():
        model(clean)
    handle.remove()
    positions = torch.tensor([2, 3])  # the subject's tokens

    def patch(module: nn.Module, args: tuple[torch.Tensor, ...], output: torch.Tensor) -> torch.Tensor:
        output[:, positions] = cache["clean"][:, positions]
        return output

    mlp.register_forward_hook(patch)
    with torch.no_grad():
        model(corrupted)


def _key_patching_fp32_cache_sdpa() -> None:
    model = _tiny_llama()
    k_proj = model.model.layers[1].self_attn.k_proj
    cache = {}
    handle = k_proj.register_forward_hook(lambda module, args, output: cache.update(k=output.detach().float()))
    with torch.no_grad():
        model(_prompt_ids())
    handle.remove()
    k_proj.register_forward_hook(lambda module, args, output: cache["k"])
    with torch.no_grad():
        model(torch.randint(1, 64, (1, 6)))


def _head_ablation_float_head_mask() -> None:
    model = _tiny_llama()
    attention = model.model.layers[0].self_attn
    head_mask = torch.zeros(2)
    head_mask[1] = 1.0  # ablate head 1

    def zero_heads(module: nn.Module, args: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor]:
        z = args[0].unflatten(-1, (2, 8))
        return (z.masked_fill(head_mask[:, None], 0.0).flatten(-2),)

    attention.o_proj.register_forward_pre_hook(zero_heads)
    with torch.no_grad():
        model(_prompt_ids())


class _LSTMLanguageModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(64, 16)
        self.lstm = nn.LSTM(16, 16, batch_first=True)
        self.head = nn.Linear(16, 64)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.lstm(self.embed(ids))[0])


def _lstm_embedding_patching_bf16_cache() -> None:
    model = _LSTMLanguageModel().eval()
    cache = {}
    handle = model.embed.register_forward_hook(
        lambda module, args, output: cache.update(embed=output.detach().to(bf16)))  # halved to save memory
    with torch.no_grad():
        model(_prompt_ids())
    handle.remove()
    model.embed.register_forward_hook(lambda module, args, output: cache["embed"])
    with torch.no_grad():
        model(torch.randint(1, 64, (1, 6)))


def _knockout_mha_need_weights_fp32_mask() -> None:
    gen = _generator()
    attention = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    x = torch.randn(1, 5, 16, generator=gen).to(bf16)
    knockout = torch.zeros(5, 5)
    knockout[4, 1] = float("-inf")  # block the last token from reading the subject
    attention(x, x, x, attn_mask=knockout, need_weights=True)


def _knockout_fp16_scores_minus_1e9() -> None:
    gen = _generator()
    q, k = (torch.randn(1, 2, 5, 8, generator=gen).to(f16) for _ in range(2))
    scores = q @ k.transpose(-1, -2) / 8 ** 0.5
    blocked = torch.zeros(5, 5, dtype=torch.bool)
    blocked[4, 1:3] = True  # attention edges knocked out
    scores.masked_fill_(blocked, -1e9)


# --- steering vectors

def _steering_vector_fp32_llama() -> None:
    model = _tiny_llama()
    layer = model.model.layers[0]
    last_token: list[torch.Tensor] = []
    handle = layer.register_forward_hook(lambda module, args, output: last_token.append(output[:, -1].detach().float()))
    with torch.no_grad():
        model(_prompt_ids())  # positive prompt
        model(torch.randint(1, 64, (1, 6)))  # negative prompt
    handle.remove()
    steering = last_token[0] - last_token[1]  # contrastive difference, kept fp32
    layer.register_forward_hook(lambda module, args, output: output + 4.0 * steering)
    with torch.no_grad():
        model(_prompt_ids())


def _steering_encoder_fastpath() -> None:
    gen = _generator()
    encoder_layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(encoder_layer, 2, enable_nested_tensor=False).to(bf16).eval()
    steering = torch.randn(16, generator=gen)
    encoder.layers[0].register_forward_hook(lambda module, args, output: output + 2.0 * steering)
    with torch.no_grad():
        encoder(torch.randn(1, 5, 16, generator=gen).to(bf16))


def _causal_trace_numpy_noise() -> None:
    model = _tiny_llama()
    prng = np.random.RandomState(1)

    def corrupt_subject(module: nn.Module, args: tuple[torch.Tensor, ...], output: torch.Tensor) -> torch.Tensor:
        noise = 0.3 * torch.from_numpy(prng.randn(*output.shape))
        noise[:, 3:] = 0  # the subject is the first three tokens
        return output + noise

    model.get_input_embeddings().register_forward_hook(corrupt_subject)
    with torch.no_grad():
        model(_prompt_ids())


# --- probes and logit lens

def _truthfulness_probe_bool_labels() -> None:
    gen = _generator()
    statements = [{"activation": torch.randn(16, generator=gen), "label": i % 3 == 0} for i in range(12)]
    acts = torch.stack([s["activation"] for s in statements])
    labels = torch.tensor([s["label"] for s in statements])
    probe = nn.Linear(16, 2)
    F.cross_entropy(probe(acts), labels)


def _logit_lens_fp32_hidden_states() -> None:
    model = _tiny_gpt2()
    with torch.no_grad():
        hidden_states = [h.float() for h in model(_prompt_ids(), output_hidden_states=True).hidden_states]
        for hidden in hidden_states:
            model.lm_head(model.transformer.ln_f(hidden)).argmax(-1)


def _logit_lens_heatmap_numpy() -> None:
    model = _tiny_gpt2()
    with torch.no_grad():
        outputs = model(_prompt_ids(), output_hidden_states=True)
        lens = torch.stack([model.lm_head(model.transformer.ln_f(h)).softmax(-1) for h in outputs.hidden_states])
    lens.max(-1).values[:, 0].numpy()


# --- attribution

def _integrated_gradients_on_token_ids() -> None:
    model = _tiny_bert()
    ids = _prompt_ids()
    baseline = torch.zeros_like(ids)  # [PAD]
    alphas = torch.linspace(0, 1, 5)
    path = baseline + alphas[:, None] * (ids - baseline)
    model(input_ids=path).last_hidden_state[:, 0].sum().backward()


def _integrated_gradients_fp32_alphas() -> None:
    model = _tiny_bert()
    embeddings = model.embeddings.word_embeddings(_prompt_ids()).detach()
    baseline = torch.zeros_like(embeddings)
    alphas = torch.linspace(0, 1, 5)
    path = (baseline + alphas[:, None, None] * (embeddings - baseline)).requires_grad_()
    model(inputs_embeds=path).last_hidden_state[:, 0].sum().backward()


def _saliency_on_input_ids() -> None:
    model = _tiny_gpt2()
    ids = _prompt_ids().requires_grad_()
    model(ids).logits[0, -1].max().backward()


def _grad_cam_fp32_activations() -> None:
    gen = _generator()
    model = _SmallCNN().to(bf16).eval()
    store = {}
    model.conv.register_forward_hook(lambda module, args, output: store.update(act=output.detach().float()))
    model.conv.register_full_backward_hook(lambda module, grad_in, grad_out: store.update(grad=grad_out[0]))
    model(torch.randn(1, 3, 8, 8, generator=gen).to(bf16))[0, 2].backward()
    weights = store["grad"].mean((2, 3))
    F.relu(torch.einsum("bc,bchw->bhw", weights, store["act"]))


def _feature_visualisation_fp32_image() -> None:
    model = _SmallCNN().to(bf16).eval()
    image = torch.rand(1, 3, 8, 8, generator=_generator()).requires_grad_()
    optimizer = torch.optim.Adam([image], lr=0.05)
    activation = model.stem(image)[0, 5].mean()
    (-activation).backward()
    optimizer.step()


# --- sparse autoencoders

class _TopKSAE(nn.Module):
    def __init__(self, d_model: int = 16, d_sae: int = 64, k: int = 4) -> None:
        super().__init__()
        self.k = k
        self.encoder = nn.Linear(d_model, d_sae)
        self.decoder = nn.Linear(d_sae, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pre = self.encoder(x)
        values, indices = pre.topk(self.k, dim=-1)
        latents = torch.zeros(pre.shape).scatter_(-1, indices, F.relu(values))
        return self.decoder(latents)


def _topk_sae_scatter_into_default_dtype() -> None:
    sae = _TopKSAE().to(bf16)
    sae(torch.randn(8, 16, generator=_generator()).to(bf16))


class _FrequencyTrackingSAE(nn.Module):
    def __init__(self, d_model: int = 16, d_sae: int = 64) -> None:
        super().__init__()
        self.encoder = nn.Linear(d_model, d_sae)
        self.decoder = nn.Linear(d_sae, d_model)
        self.register_buffer("fire_frequency", torch.zeros(d_sae, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        latents = F.relu(self.encoder(x))
        self.fire_frequency += (latents > 0).float().mean(0)
        return self.decoder(latents)


def _sae_fire_frequency_int64_buffer() -> None:
    sae = _FrequencyTrackingSAE()
    with torch.no_grad():
        sae(torch.randn(8, 16, generator=_generator()))


def _sae_resampling_fp16_squared_losses() -> None:
    gen = _generator()
    activations = (40.0 * torch.randn(32, 64, generator=gen)).to(f16)  # mid-layer residual norms in the hundreds
    sae = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64)).to(f16)
    with torch.no_grad():
        losses = (sae(activations) - activations).pow(2).sum(-1)
    torch.multinomial(losses ** 2, 4, generator=gen)  # resample dead latents from inputs weighted by squared loss


def _sae_fp16_grad_scaler() -> None:
    sae = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 16)).half()
    optimizer = torch.optim.Adam(sae.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(8, 16, generator=_generator()).half()
    latents = sae[1](sae[0](x))
    loss = F.mse_loss(sae[2](latents).float(), x.float()) + 1e-3 * latents.float().abs().sum(-1).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)


# --- circuits: OV and QK analysis of attention heads

def _ov_circuit_bmm_one_factor_upcast() -> None:
    model = _tiny_llama()
    attention = model.model.layers[0].self_attn
    w_v = attention.v_proj.weight.detach().T.unflatten(-1, (2, 8)).permute(1, 0, 2)  # (head, d_model, d_head)
    w_o = attention.o_proj.weight.detach().unflatten(-1, (2, 8)).permute(1, 2, 0)  # (head, d_head, d_model)
    torch.bmm(w_v.float(), w_o)


def _ov_circuit_eigenvalues_bf16() -> torch.Tensor:
    model = _tiny_llama()
    attention = model.model.layers[0].self_attn
    w_v = attention.v_proj.weight.detach()[:8].T
    w_o = attention.o_proj.weight.detach()[:, :8].T
    full_ov = w_v @ w_o  # (d_model, d_model) for head 0
    eigenvalues = torch.linalg.eigvals(full_ov)
    return (eigenvalues.sum() / eigenvalues.abs().sum()).real  # copying score


CASES: dict[str, LiveCase] = {
    # --- merging: task arithmetic, TIES, DARE, SLERP, soups
    # a task vector added in place to an int8 weight-only quantized base, in units of its per-row scales
    "task-vector-into-int8-base-in-place": case(_task_vector_into_int8_base_in_place, "result_cast", "f32", "int8", grade="correct", grade_at_freeze="correct"),
    # TIES disjoint merge: the sign-agreement mask cast to the bf16 weights' dtype (to count with) used in torch.where
    "ties-agreement-mask-weight-dtype-where": case(_ties_agreement_mask_in_weight_dtype, "mask_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # DARE on a delta-compressed fine-tune saved in fp8: the drop mask drawn with bernoulli on full_like(delta)
    "dare-bernoulli-fp8-stored-deltas": case(_dare_on_fp8_stored_deltas, "no_kernel", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # SLERP between a fine-tune saved in bf16 and one saved in fp32: the angle from torch.dot of their directions
    "slerp-dot-bf16-fp32-checkpoints": case(_slerp_bf16_and_fp32_checkpoints, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # a linear merge by lerp of a bf16 model with another fine-tune's int8 weight-only export, not dequantized
    "linear-merge-lerp-int8-checkpoint": case(_linear_merge_with_int8_checkpoint, "lerp_dtype", "bf16", "int8",
                                              fix=("dequanti",), grade="correct", grade_at_freeze="partly", why="At freeze (3c0cb01) castwise gave lerp_dtype [bf16, int8] (high confidence). It read the int8 `end` as a running average fed an integer count and told to cast it to the average's dtype, not that it is a quantized export to dequantize with its scales first."),
    # a uniform soup whose third ingredient was saved in fp8: stack of fp8 and bf16 state-dict entries
    "uniform-soup-stack-fp8-ingredient": case(_uniform_soup_with_fp8_checkpoint, "fp8_promotion", "bf16",
                                              "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # a uniform soup of CNN checkpoints averaging every state-dict entry, BatchNorm's int64 num_batches_tracked too
    "uniform-soup-mean-num-batches-tracked": case(_uniform_soup_num_batches_tracked, "integer_operand", "int64", grade="correct", grade_at_freeze="correct"),
    # merged fp32 state dict put back into a bf16 CNN: matrices copied, 1-D tensors (conv bias) assigned with .data
    "merged-cnn-biases-assigned-data-fp32": case(_merged_cnn_biases_assigned_with_data, "conv_bias_dtype", "bf16",
                                                 "f32", grade="correct", grade_at_freeze="correct"),
    # --- editing: ROME, MEMIT, knowledge neurons, AlphaEdit
    # ROME: the fp32 inverse key covariance (saved statistics) times the bf16 key hooked from the model
    "rome-fp32-inverse-covariance-bf16-key": case(_rome_fp32_inverse_covariance_bf16_key, "matmul_dtype", "f32",
                                                  "bf16", grade="correct", grade_at_freeze="correct"),
    # MEMIT: solve with the fp32 second-moment statistics plus the bf16 keys' Gram matrix, bf16 keys on the right
    "memit-solve-fp32-mom2-bf16-keys": case(_memit_solve_fp32_second_moment_bf16_keys, "op_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # knowledge-neuron editing: new fp32 value vectors index_copy_'d into the bf16 down projection's columns
    "knowledge-neurons-index-copy-fp32-values": case(_knowledge_neurons_index_copy_fp32, "indexed_write_dtype",
                                                     "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # AlphaEdit-style null-space projection: the projected gradient (fp32) assigned to a bf16 weight's .grad
    "alphaedit-projected-grad-fp32": case(_alphaedit_projected_gradient_fp32, "loss_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- activation patching, caching and ablation with hooks
    # activation patching: clean MLP outputs cached with .float(), written back at the subject positions by index
    "mlp-output-patching-fp32-cache-index-put": case(_mlp_output_patching_fp32_cache, "indexed_write_dtype", "bf16",
                                                     "f32", grade="correct", grade_at_freeze="correct"),
    # key patching in a bf16 Llama (SDPA) from a cache stored with .float()
    "key-patching-fp32-cache-sdpa": case(_key_patching_fp32_cache_sdpa, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # zero-ablating a head with a float head mask (torch.zeros, set to 1) in masked_fill before o_proj
    "head-ablation-float-head-mask": case(_head_ablation_float_head_mask, "mask_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # patching an fp32 LSTM LM's embeddings from a cache halved to bf16 to save memory
    "lstm-embedding-patching-bf16-cache": case(_lstm_embedding_patching_bf16_cache, "rnn_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # attention knockout through a bf16 MultiheadAttention with need_weights=True and an fp32 additive mask
    "knockout-mha-need-weights-fp32-mask": case(_knockout_mha_need_weights_fp32_mask, "attn_mask_dtype", "f32",
                                                "bf16", grade="correct", grade_at_freeze="wrong", why="At freeze (3c0cb01) castwise gave attn_mask_dtype [f32, bf16, bf16] (high confidence). It read the baddbmm inside nn.MultiheadAttention (need_weights=True) by its cause, the fp32 mask, while the corpus files an error raised in baddbmm as batched_matmul_dtype. After grading, the expectation was corrected from batched_matmul_dtype to attn_mask_dtype, the convention live_held_out_1's mha-subsequent-mask-fp32 set for a float mask of another dtype added inside MultiheadAttention's baddbmm (the lead had not listed it among the conventions the writer was told); grade_at_freeze stays wrong."),
    # attention knockout on a hand-written fp16 attention's scores with masked_fill_(-1e9)
    "knockout-fp16-scores-minus-1e9": case(_knockout_fp16_scores_minus_1e9, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # --- steering vectors
    # a contrastive steering vector kept fp32 added by a forward hook to a bf16 Llama layer's output
    "steering-vector-fp32-llama-hook": case(_steering_vector_fp32_llama, "matmul_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # steering a bf16 nn.TransformerEncoder in eval/no_grad: the fp32 vector reaches the next layer's fast path
    "steering-encoder-fastpath-fp32-vector": case(_steering_encoder_fastpath, "transformer_fastpath", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # ROME-style causal tracing with noise from numpy's RandomState (float64) added to a bf16 model's embeddings
    "causal-trace-numpy-noise-f64": case(_causal_trace_numpy_noise, "matmul_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- probes and logit lens
    # a truthfulness probe whose True/False statement labels become a bool tensor for cross_entropy
    "truthfulness-probe-bool-labels": case(_truthfulness_probe_bool_labels, "target_dtype", "bool", fix=("long",), grade="correct", grade_at_freeze="correct"),
    # logit lens: hidden states cached with .float() for analysis, then the bf16 model's ln_f and lm_head
    "logit-lens-fp32-hidden-states-ln-f": case(_logit_lens_fp32_hidden_states, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # logit lens heatmap: the bf16 lens probabilities handed to numpy for plotting
    "logit-lens-heatmap-numpy-bf16": case(_logit_lens_heatmap_numpy, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- attribution
    # integrated gradients interpolating the token ids instead of their embeddings
    "integrated-gradients-on-token-ids": case(_integrated_gradients_on_token_ids, "index_tensor_dtype", "f32",
                                              fix=("embedding",), grade="correct", grade_at_freeze="partly", why="At freeze (3c0cb01) castwise gave index_tensor_dtype [f32] (high confidence). It told to keep the ids integer (`ids.long()`), but they were interpolated on purpose and the fix is to interpolate the embeddings (inputs_embeds), which it did not name."),
    # integrated gradients with fp32 linspace alphas scaling bf16 embeddings, fed as inputs_embeds to a bf16 BERT
    "integrated-gradients-fp32-alphas-bert": case(_integrated_gradients_fp32_alphas, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # saliency taken by asking the token ids for gradients
    "saliency-input-ids-requires-grad": case(_saliency_on_input_ids, "integer_operand", fix=("embedding",), grade="correct", grade_at_freeze="partly", why="At freeze (3c0cb01) castwise gave integer_operand [] (low confidence). It read a trainable integer parameter or integer data to build floating, not that saliency must take the gradient of the embeddings since token ids can never carry one."),
    # Grad-CAM: activations hooked with .float(), gradients left bf16, combined by einsum
    "grad-cam-einsum-fp32-activations": case(_grad_cam_fp32_activations, "matmul_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # feature visualisation: the optimised image made with torch.rand (fp32) fed to a bf16 CNN's stem
    "feature-visualisation-fp32-image": case(_feature_visualisation_fp32_image, "conv_weight_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # --- sparse autoencoders
    # a TopK SAE scattering its kept latents into torch.zeros(pre.shape) (fp32) while running in bf16
    "topk-sae-scatter-into-default-dtype": case(_topk_sae_scatter_into_default_dtype, "indexed_write_dtype", grade="correct", grade_at_freeze="correct"),
    # an SAE's fire-frequency buffer made int64, accumulated in place with each batch's float firing rate
    "sae-fire-frequency-int64-buffer": case(_sae_fire_frequency_int64_buffer, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # dead-latent resampling in an fp16 SAE: squared per-input losses overflow to inf, multinomial refuses them
    "sae-resampling-fp16-squared-losses": case(_sae_resampling_fp16_squared_losses, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # an SAE halved with .half() and trained through GradScaler
    "sae-halved-grad-scaler": case(_sae_fp16_grad_scaler, "unscale_fp16", "f16", grade="correct", grade_at_freeze="correct"),
    # --- circuits
    # per-head OV circuits by bmm with W_V upcast "for precision" and W_O left bf16
    "ov-circuit-bmm-one-factor-upcast": case(_ov_circuit_bmm_one_factor_upcast, "batched_matmul_dtype", "f32",
                                             "bf16", grade="correct", grade_at_freeze="correct"),
    # a head's OV copying score from the eigenvalues of its bf16 OV matrix
    "ov-circuit-eigvals-bf16": case(_ov_circuit_eigenvalues_bf16, "no_kernel", "bf16", grade="correct", grade_at_freeze="correct"),
}
