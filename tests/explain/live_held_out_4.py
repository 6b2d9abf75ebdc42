"""Held-out live set 4: inference and serving (KV caches, sampling and logits processors, int8/fp8 paths, half-converted
models, diffusion sampling, preprocessing before a 16-bit model). Defects planted by a helper who never read the rules,
written before castwise ran and graded once with the rules frozen at c1ca11e."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from transformers import (
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    LogitsProcessor,
    LogitsProcessorList,
)

from .live_cases import LiveCase, case

FROZEN_AT = "c1ca11e"

bf16, f16 = torch.bfloat16, torch.float16
E4M3 = torch.float8_e4m3fn


def _heads(dtype: torch.dtype, length: int = 1) -> torch.Tensor:
    return torch.randn(2, 2, length, 8).to(dtype)


def _tiny_gpt2() -> GPT2LMHeadModel:
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=64, n_positions=32, n_embd=16, n_layer=1, n_head=2, bos_token_id=0,
                        eos_token_id=0, pad_token_id=0)
    return GPT2LMHeadModel(config).eval()


# --- KV caches -------------------------------------------------------------------------------------------------------

def _static_kv_cache_default_dtype() -> None:
    k_cache = torch.zeros(2, 2, 16, 8)  # allocated once for the max length, without the model's dtype
    v_cache = torch.zeros(2, 2, 16, 8)
    for position in range(2):
        q, k, v = _heads(bf16), _heads(bf16), _heads(bf16)
        k_cache[:, :, position] = k[:, :, 0]
        v_cache[:, :, position] = v[:, :, 0]
        F.scaled_dot_product_attention(q, k_cache[:, :, :position + 1], v_cache[:, :, :position + 1])


def _continuous_batching_cache_in_f16() -> None:
    kv_cache_dtype = torch.float16  # the server's config, while the model was loaded in bf16
    k_cache = torch.zeros(4, 2, 16, 8, dtype=kv_cache_dtype)
    slots = torch.tensor([0, 2, 3])  # the running requests' cache rows
    positions = torch.tensor([5, 1, 9])  # each request's next position
    new_keys = torch.randn(3, 2, 8).to(bf16)
    k_cache[slots, :, positions] = new_keys


def _paged_cache_slot_mapping_int32() -> None:
    key_cache = torch.zeros(4, 16, 2, 8).to(bf16)  # blocks x block size x heads x head dim
    slot_mapping = torch.from_numpy(np.array([3, 17, 40], dtype=np.int32))  # built by the scheduler in numpy
    new_keys = torch.randn(3, 2, 8).to(bf16)
    key_cache.view(-1, 2, 8).index_copy_(0, slot_mapping, new_keys)


def _fp8_cache_written_unquantized() -> None:
    key_cache = torch.zeros(64, 2, 8).to(E4M3)
    slots = torch.tensor([3, 17, 40])
    new_keys = torch.randn(3, 2, 8).to(bf16)
    key_cache.index_copy_(0, slots, new_keys)  # the keys were never scaled and cast to fp8


def _fp8_cache_read_without_dequant() -> None:
    k_cache = _heads(bf16, 6).to(E4M3)
    v_cache = _heads(bf16, 6).to(E4M3)
    F.scaled_dot_product_attention(_heads(bf16), k_cache, v_cache)  # no `.to(q.dtype) * scale` on the way out


def _int8_cache_scores() -> None:
    keys = _heads(torch.float32, 6)
    k_scale = keys.abs().amax(dim=-1, keepdim=True) / 127
    k_cache = (keys / k_scale).round().to(torch.int8)
    q = _heads(bf16)
    q @ k_cache.transpose(-1, -2)  # the int8 keys multiplied without dequantising


# --- sampling and logits processors ----------------------------------------------------------------------------------

def _top_p_mask_not_shifted() -> None:
    logits = torch.tensor([[8.0, 1.0, 0.5, 0.0, -1.0]]).to(bf16)
    sorted_logits, sorted_indices = logits.sort(descending=True)
    cumulative = sorted_logits.softmax(-1).cumsum(-1)
    remove_sorted = cumulative > 0.1  # never shifted right, so the top token goes too when it alone passes top_p
    remove = remove_sorted.scatter(1, sorted_indices, remove_sorted)
    filtered = logits.masked_fill(remove, float("-inf"))
    torch.multinomial(filtered.float().softmax(-1), 1)


def _frequency_penalty_in_place() -> None:
    generated = torch.tensor([[3, 3, 7], [1, 2, 2]])
    counts = torch.zeros(2, 10, dtype=torch.long).scatter_add_(1, generated, torch.ones_like(generated))
    penalty = counts.mul_(0.5)  # frequency_penalty applied in place on the integer counts
    torch.randn(2, 10) - penalty


class _LogitBias(LogitsProcessor):
    """An OpenAI-style logit_bias, stored in the model's dtype."""

    def __init__(self, bias: dict[int, float], dtype: torch.dtype) -> None:
        self.ids = torch.tensor(list(bias))
        self.values = torch.tensor(list(bias.values()), dtype=dtype)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        return scores.index_add_(1, self.ids, self.values.expand(scores.shape[0], -1))


def _generate_with_logit_bias_in_model_dtype() -> None:
    model = _tiny_gpt2().to(bf16)
    processors = LogitsProcessorList([_LogitBias({5: -100.0, 9: 5.0}, model.dtype)])
    model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, do_sample=False, logits_processor=processors)


def _static_top_k_buffers_f32() -> None:
    top_values = torch.empty(2, 4)  # preallocated once for graph capture, in the default dtype
    top_indices = torch.empty(2, 4, dtype=torch.long)
    logits = torch.randn(2, 64).to(bf16)
    torch.topk(logits, 4, out=(top_values, top_indices))


def _prompt_logprobs_int32_ids() -> None:
    prompt_ids = torch.from_numpy(np.array([[5, 9, 2, 7]], dtype=np.int32))  # as the tokenizer returned them
    logprobs = torch.randn(1, 4, 64).log_softmax(-1)
    torch.take_along_dim(logprobs[:, :-1], prompt_ids[:, 1:, None], dim=-1)


def _beam_scores_in_model_dtype() -> None:
    logits = torch.randn(2, 64).half()
    beam_scores = torch.full((2, 4), -1e9, dtype=logits.dtype)  # only the first beam starts live
    beam_scores[:, 0] = 0.0


# --- int8 and fp8 inference ------------------------------------------------------------------------------------------

def _int8_weight_f16_scales_bf16_activations() -> None:
    weight = torch.randn(6, 8)
    scales = (weight.abs().amax(dim=1, keepdim=True) / 127).half()  # the quantization tool saved fp16 scales
    qweight = (weight / scales.float()).round().to(torch.int8)
    x = torch.randn(2, 8).to(bf16)
    F.linear(x, qweight.to(scales.dtype) * scales)


def _int8_zero_point_128() -> None:
    scale = torch.full((4,), 0.02)
    zero_point = torch.full_like(scale, 128, dtype=torch.int8)  # a uint8 zero point kept in int8 storage
    torch.clamp(torch.round(torch.randn(4) / scale) + zero_point, -128, 127)


def _fp8_clamp_after_cast() -> None:
    x = torch.randn(2, 8).to(bf16)
    scale = x.abs().amax().float() / 448
    (x.float() / scale).to(E4M3).clamp(-448, 448)


def _int4_unpack_after_half_checkpoint() -> None:
    packed = torch.randint(0, 2**31 - 1, (4, 2), generator=torch.Generator().manual_seed(0), dtype=torch.int32)
    state = {"qweight": packed, "scales": torch.rand(4, 1)}
    state = {name: tensor.half() for name, tensor in state.items()}  # "convert the checkpoint to fp16"
    shifts = torch.arange(0, 32, 4, dtype=torch.int32)
    torch.bitwise_right_shift(state["qweight"][..., None], shifts) & 0xF


# --- half-converted models and transformers models -------------------------------------------------------------------

def _llava_projector_left_fp32() -> None:
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32)
    language_model = LlamaForCausalLM(config).half().eval()
    projector = nn.Linear(8, 16)  # the vision projector, loaded separately and never halved
    image_features = projector(torch.randn(1, 3, 8))
    text_embeds = language_model.get_input_embeddings()(torch.tensor([[1, 2, 3]]))
    with torch.no_grad():
        language_model(inputs_embeds=torch.cat([image_features, text_embeds], dim=1))


def _left_padding_float_position_ids() -> None:
    model = _tiny_gpt2()
    input_ids = torch.tensor([[0, 0, 5, 6], [7, 8, 9, 10]])
    attention_mask = torch.tensor([[0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]])  # the server's padding mask, as floats
    position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
    with torch.no_grad():
        model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids)


def _draft_hidden_f16_into_bf16_head() -> None:
    torch.manual_seed(0)
    target_head = nn.Linear(16, 64, bias=False).to(bf16)
    draft = nn.Sequential(nn.Linear(32, 16), nn.SiLU()).half()  # the speculative draft head, trained in fp16
    draft_hidden = draft(torch.randn(2, 32).half())
    target_head(draft_hidden).argmax(-1)


def _embedding_service_numpy_bf16() -> dict[str, list[float]]:
    encoder = nn.Sequential(nn.Embedding(64, 16), nn.LayerNorm(16)).to(bf16)
    with torch.inference_mode():
        pooled = F.normalize(encoder(torch.tensor([[4, 8, 15]])).mean(1), dim=-1)
    return {"embedding": pooled[0].cpu().numpy().tolist()}


def _streaming_tts_grucell_state_f32() -> None:
    decoder = nn.GRUCell(8, 16).to(bf16)
    hidden = torch.zeros(1, 16)  # a new stream's state
    for frame in torch.randn(3, 1, 8).to(bf16):
        hidden = decoder(frame, hidden)


# --- diffusion sampling ----------------------------------------------------------------------------------------------

class _TinyUNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv_in = nn.Conv2d(4, 8, 3, padding=1, bias=False)
        self.norm = nn.GroupNorm(2, 8)
        self.conv_out = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv_out(F.silu(self.norm(self.conv_in(x))))


def _ddim_alphas_cumprod_f64() -> None:
    torch.manual_seed(0)
    unet = _TinyUNet().half().eval()
    betas = np.linspace(0.00085**0.5, 0.012**0.5, 1000) ** 2
    alphas_cumprod = torch.from_numpy(np.cumprod(1.0 - betas))  # float64, as numpy made it
    latents = torch.randn(1, 4, 8, 8).half()
    timesteps = torch.tensor([999, 949, 899])
    with torch.no_grad():
        for t, t_prev in zip(timesteps[:-1], timesteps[1:], strict=True):
            eps = unet(latents)
            a_t = alphas_cumprod[t.repeat(1)].view(-1, 1, 1, 1)
            a_prev = alphas_cumprod[t_prev.repeat(1)].view(-1, 1, 1, 1)
            x0 = (latents - (1 - a_t).sqrt() * eps) / a_t.sqrt()
            latents = a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * eps


def _vae_partial_upcast() -> None:
    torch.manual_seed(0)
    vae_decoder = nn.ModuleDict({
        "post_quant_conv": nn.Conv2d(4, 4, 1), "conv_in": nn.Conv2d(4, 8, 3, padding=1),
        "mid_norm": nn.GroupNorm(2, 8), "conv_out": nn.Conv2d(8, 3, 3, padding=1),
    }).half()
    for name in ("post_quant_conv", "conv_in"):  # upcast where fp16 overflowed, as a forum post suggested
        vae_decoder[name].float()
    latents = torch.randn(1, 4, 8, 8).half() / 0.18215
    x = vae_decoder["conv_in"](vae_decoder["post_quant_conv"](latents.float()))
    vae_decoder["conv_out"](F.silu(vae_decoder["mid_norm"](x)))


def _cfg_negative_embeds_cached_f32() -> None:
    torch.manual_seed(0)
    text_encoder = nn.Embedding(64, 16)
    negative_embeds = text_encoder(torch.tensor([[0, 0, 0]])).detach()  # cached at startup, before the cast
    text_encoder.half()
    to_k = nn.Linear(16, 16, bias=False).half()  # the UNet's cross-attention
    prompt_embeds = text_encoder(torch.tensor([[5, 9, 2]]))
    context = torch.cat([negative_embeds, prompt_embeds])
    to_k(context)


def _timestep_embedding(t: torch.Tensor, dim: int = 16) -> torch.Tensor:
    freqs = torch.exp(-np.log(10000) * torch.arange(dim // 2) / (dim // 2))
    args = t[:, None] * freqs[None]
    return torch.cat([args.cos(), args.sin()], dim=-1)


def _karras_sigmas_f64_time_embedding() -> None:
    torch.manual_seed(0)
    time_mlp = nn.Sequential(nn.Linear(16, 32), nn.SiLU(), nn.Linear(32, 32)).half()
    ramp = np.linspace(0, 1, 10)
    sigmas = torch.from_numpy((14.6 ** (1 / 7) + ramp * (0.03 ** (1 / 7) - 14.6 ** (1 / 7))) ** 7)
    c_noise = sigmas[0].log() / 4
    time_mlp(_timestep_embedding(c_noise.expand(2)))


def _euler_timesteps_index_alphas() -> None:
    alphas_cumprod = torch.cumprod(1 - torch.linspace(0.00085, 0.012, 1000), 0)
    timesteps = torch.linspace(999, 0, 20)  # an Euler scheduler's timesteps are floats
    t_start = timesteps[6:7]  # img2img strength 0.7
    init_latents = torch.randn(1, 4, 8, 8)
    noise = torch.randn_like(init_latents)
    a_t = alphas_cumprod[t_start].view(-1, 1, 1, 1)
    a_t.sqrt() * init_latents + (1 - a_t).sqrt() * noise


def _inpainting_lerp_blend() -> None:
    torch.manual_seed(0)
    latents = torch.randn(1, 4, 8, 8).half()
    init_latents = torch.randn(1, 4, 8, 8)
    noise = torch.randn(1, 4, 8, 8)
    init_latents_proper = 0.8 * init_latents + 0.6 * noise  # the scheduler's add_noise, in fp32
    mask = (torch.rand(1, 1, 8, 8) > 0.5).float()
    torch.lerp(init_latents_proper, latents, mask)


# --- image and audio preprocessing -----------------------------------------------------------------------------------

def _rgb_image() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 256, (16, 16, 3), dtype=np.uint8)


def _image_mean_std_from_numpy() -> None:
    stem = nn.Conv2d(3, 8, 7, stride=2, padding=3, bias=False).half()
    mean = torch.from_numpy(np.array([0.485, 0.456, 0.406]))[:, None, None]
    std = torch.from_numpy(np.array([0.229, 0.224, 0.225]))[:, None, None]
    pixels = torch.from_numpy(_rgb_image()).permute(2, 0, 1).float() / 255
    with torch.no_grad():
        stem(((pixels - mean) / std)[None])


def _uint8_image_normalized_in_place() -> None:
    mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None] * 255
    std = torch.tensor([0.229, 0.224, 0.225])[:, None, None] * 255
    pixels = torch.from_numpy(_rgb_image()).permute(2, 0, 1)
    pixels.sub_(mean).div_(std)


def _pcm_int16_into_feature_encoder() -> None:
    pcm = (np.sin(np.linspace(0, 200, 1600)) * 8000).astype(np.int16).tobytes()  # a WAV body from the request
    waveform = torch.from_numpy(np.frombuffer(pcm, dtype=np.int16).copy())
    feature_conv = nn.Conv1d(1, 8, 10, stride=5, bias=False).half()  # a wav2vec2-style first layer
    with torch.no_grad():
        feature_conv(waveform[None, None])


def _mel_filterbank_from_numpy() -> None:
    n_fft, n_mels = 64, 8
    bins = np.linspace(0, n_fft // 2, n_mels + 2)
    freqs = np.arange(n_fft // 2 + 1)
    filterbank = np.maximum(0, 1 - np.abs(freqs[None] - bins[1:-1, None]) / (bins[1] - bins[0]))
    waveform = torch.randn(800)
    power = torch.stft(waveform, n_fft, 16, window=torch.hann_window(n_fft), return_complex=True).abs() ** 2
    torch.from_numpy(filterbank) @ power


def _alibi_slopes_from_numpy() -> None:
    heads, length = 2, 4
    slopes = torch.from_numpy(np.array([2 ** (-8 * (h + 1) / heads) for h in range(heads)]))
    distance = torch.arange(length)[None] - torch.arange(length)[:, None]
    alibi = slopes[:, None, None] * distance[None]
    q = k = v = torch.randn(1, heads, length, 8).to(bf16)
    F.scaled_dot_product_attention(q, k, v, attn_mask=alibi[None])


def _perplexity_uint16_token_shard() -> None:
    shard = np.random.default_rng(0).integers(0, 64, 33).astype(np.uint16)  # tokens stored as uint16, nanoGPT style
    model = _tiny_gpt2()
    inputs = torch.from_numpy(shard[:-1].astype(np.int64))[None]
    targets = torch.from_numpy(shard[1:])[None]
    with torch.no_grad():
        logits = model(input_ids=inputs).logits
    F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


CASES: dict[str, LiveCase] = {
    # a static KV cache allocated with torch.zeros (fp32) for a bf16 decoder, read back into SDPA
    "static-kv-cache-default-dtype": case(_static_kv_cache_default_dtype, "sdpa_dtype", "bf16", "f32", grade="correct", grade_at_freeze="correct"),
    # continuous batching writes a bf16 model's keys into an fp16 cache by advanced indexing
    "continuous-batching-kv-write-f16": case(_continuous_batching_cache_in_f16, "indexed_write_dtype", "f16", "bf16", grade="correct", grade_at_freeze="correct"),
    # a paged KV cache written through an int32 slot mapping made in numpy
    "paged-kv-slot-mapping-int32": case(_paged_cache_slot_mapping_int32, "index_tensor_dtype", "int32", grade="correct", grade_at_freeze="not_recognised",
        why="At freeze (c1ca11e) castwise gave nothing. index_copy_'s demand for a long index was not read as an index-dtype error: the slot mapping built in numpy is int32 and index_copy_ takes only int64 indices."),
    # bf16 keys written into an fp8 KV cache without quantising them
    "fp8-kv-cache-write-bf16": case(_fp8_cache_written_unquantized, "indexed_write_dtype", "float8_e4m3fn", "bf16", grade="correct", grade_at_freeze="correct"),
    # an fp8 KV cache read into SDPA with bf16 queries without dequantising
    "fp8-kv-cache-read-into-sdpa": case(_fp8_cache_read_without_dequant, "sdpa_dtype", "bf16", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # attention scores against an int8 key cache that was never dequantised
    "int8-kv-cache-scores": case(_int8_cache_scores, "matmul_dtype", "bf16", "int8", grade="correct", grade_at_freeze="wrong",
        why="At freeze (c1ca11e) castwise gave matmul_dtype [bf16, int8] (low confidence). The 4-D q @ k product is a batched matmul (bmm raises it), and its int8 operand is a KV cache read without dequantising, not a quantized weight used directly."
        " Expectation corrected after grading from batched_matmul_dtype to matmul_dtype, the corpus's convention for an"
        " `@` frame (held_out_2 swin-yolov5-3's `attn @ v`); the frozen grade stays wrong."),
    # a top-p filter whose mask is not shifted right removes every token, and sampling gets NaN
    "top-p-mask-not-shifted": case(_top_p_mask_not_shifted, "nonfinite", grade="correct", grade_at_freeze="correct"),
    # a frequency penalty applied in place to the int64 token counts
    "frequency-penalty-counts-in-place": case(_frequency_penalty_in_place, "result_cast", "f32", "int64", grade="correct", grade_at_freeze="correct"),
    # a logit_bias processor in generate() keeps its bias in the model's bf16 while scores are fp32
    "generate-logit-bias-bf16": case(_generate_with_logit_bias_in_model_dtype, "indexed_write_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # preallocated fp32 top-k output buffers for a bf16 model's logits
    "static-top-k-buffers-f32": case(_static_top_k_buffers_f32, "indexed_write_dtype", "bf16", "f32",
                                     cause=("out=",), grade="correct", grade_at_freeze="correct"),
    # prompt logprobs gathered with the tokenizer's int32 ids
    "prompt-logprobs-int32-ids": case(_prompt_logprobs_int32_ids, "index_tensor_dtype", "int32", grade="correct", grade_at_freeze="correct"),
    # beam scores initialised at -1e9 in an fp16 model's dtype
    "beam-scores-fp16-minus-1e9": case(_beam_scores_in_model_dtype, "half_overflow", "f16", grade="correct", grade_at_freeze="correct"),
    # int8 weight-only quantization dequantised with fp16 scales in a bf16 model
    "int8-weight-f16-scales-bf16": case(_int8_weight_f16_scales_bf16_activations, "matmul_dtype", "bf16", "f16", grade="correct", grade_at_freeze="correct"),
    # a uint8-style zero point of 128 put in int8 storage
    "int8-zero-point-128": case(_int8_zero_point_128, "half_overflow", "int8", grade="correct", grade_at_freeze="correct"),
    # fp8 activations clamped after the cast instead of before
    "fp8-clamp-after-cast": case(_fp8_clamp_after_cast, "no_kernel", "float8_e4m3fn", grade="correct", grade_at_freeze="correct"),
    # int4-packed int32 weights turned fp16 by a blanket checkpoint conversion, then unpacked with bit ops
    "int4-unpack-after-half-checkpoint": case(_int4_unpack_after_half_checkpoint, "no_kernel", "f16", grade="correct", grade_at_freeze="wrong",
        why="At freeze (c1ca11e) castwise gave no_kernel [f16] (high confidence). It read the bit shift's missing fp16 kernel as an fp16 model on the CPU, when an int32 packed weight was turned fp16 by a blanket checkpoint conversion: bit operations need the integer tensor back, not a GPU or fp32."
        " Expectation corrected after grading from mask_dtype to no_kernel, the corpus's convention for a bit"
        " operation not implemented for a 16-bit dtype (held_out_55 tt-torch-864's bitwise_or, held_out_7"
        " llamafactory-8281's rshift on packed GPTQ weights); the frozen grade stays wrong, and the answer's cause was"
        " wrong then (an fp16 model on the CPU)."),
    # a LLaVA-style fp32 vision projector feeding an fp16 tiny Llama through inputs_embeds
    "llava-projector-fp32-into-half-llama": case(_llava_projector_left_fp32, "matmul_dtype", "f32", "f16", grade="correct", grade_at_freeze="correct"),
    # left-padding position ids computed from a float attention mask for a tiny GPT-2
    "left-padding-float-position-ids": case(_left_padding_float_position_ids, "index_tensor_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # a speculative draft head in fp16 feeding the bf16 target's lm_head
    "draft-hidden-f16-into-bf16-head": case(_draft_hidden_f16_into_bf16_head, "matmul_dtype", "f16", "bf16", grade="correct", grade_at_freeze="correct"),
    # an embedding service turning bf16 embeddings into a JSON list through numpy
    "embedding-service-numpy-bf16": case(_embedding_service_numpy_bf16, "numpy_dtype", "bf16", grade="correct", grade_at_freeze="correct"),
    # a streaming bf16 GRUCell decoder whose first state is fp32 zeros
    "streaming-grucell-state-f32": case(_streaming_tts_grucell_state_f32, "rnn_dtype", "f32", "bf16", grade="correct", grade_at_freeze="correct"),
    # DDIM with float64 alphas_cumprod from numpy promotes the fp16 latents, and the UNet gets float64
    "ddim-alphas-cumprod-f64": case(_ddim_alphas_cumprod_f64, "conv_weight_dtype", "f64", "f16", grade="correct", grade_at_freeze="correct"),
    # an fp16 VAE decoder whose first convs were upcast to fp32 while its GroupNorm stayed fp16
    "vae-partial-upcast-groupnorm": case(_vae_partial_upcast, "norm_param_dtype", "f32", grade="correct", grade_at_freeze="correct"),
    # classifier-free guidance with negative prompt embeddings cached in fp32 before the text encoder was halved
    "cfg-negative-embeds-cached-f32": case(_cfg_negative_embeds_cached_f32, "matmul_dtype", "f32", "f16", grade="correct", grade_at_freeze="correct"),
    # Karras sigmas from numpy (float64) into an fp16 time embedding MLP
    "karras-sigmas-f64-time-embedding": case(_karras_sigmas_f64_time_embedding, "matmul_dtype", "f64", "f16", grade="correct", grade_at_freeze="correct"),
    # img2img indexing alphas_cumprod with an Euler scheduler's float timesteps
    "euler-float-timesteps-index": case(_euler_timesteps_index_alphas, "index_tensor_dtype", grade="correct", grade_at_freeze="correct"),
    # inpainting blends fp32 noised init latents with fp16 latents through lerp
    "inpainting-lerp-blend": case(_inpainting_lerp_blend, "lerp_dtype", "f32", "f16", grade="correct", grade_at_freeze="correct"),
    # ImageNet mean/std from numpy (float64) normalise the pixels for an fp16 stem conv
    "image-mean-std-numpy-f64": case(_image_mean_std_from_numpy, "conv_weight_dtype", "f64", "f16", grade="correct", grade_at_freeze="correct"),
    # a uint8 image normalised in place
    "uint8-image-normalized-in-place": case(_uint8_image_normalized_in_place, "result_cast", "f32", "uint8", grade="correct", grade_at_freeze="correct"),
    # raw int16 PCM from a request into an fp16 speech feature encoder
    "pcm-int16-into-feature-encoder": case(_pcm_int16_into_feature_encoder, "integer_operand", "int16", "f16", grade="correct", grade_at_freeze="correct"),
    # a mel filterbank built in numpy (float64) applied to an fp32 power spectrogram
    "mel-filterbank-numpy-f64": case(_mel_filterbank_from_numpy, "matmul_dtype", "f64", "f32", grade="correct", grade_at_freeze="correct"),
    # ALiBi slopes from numpy make a float64 bias passed as SDPA's mask with bf16 queries
    "alibi-numpy-slopes-sdpa-mask": case(_alibi_slopes_from_numpy, "attn_mask_dtype", "f64", "bf16", grade="correct", grade_at_freeze="correct"),
    # perplexity over a uint16 token shard whose targets were not converted to int64
    "perplexity-uint16-targets": case(_perplexity_uint16_token_shard, "target_dtype", grade="correct", grade_at_freeze="correct"),
}
