"""Held-out live set 155: job matching and HR analytics written by hand in low precision (resume and posting token
ids as int64, skill multi-hot vectors as uint8 and bool, fp16 two-tower encoders, bf16 cross-encoders, contrastive
losses with temperature and a MoCo queue, int32 and int8 labels from pandas, pay-equity and attrition analytics).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at 0f754d66."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "0f754d66"

bf16, f16 = torch.bfloat16, torch.float16
_SKILLS = 48  # skill taxonomy size (a small slice of ESCO)
_VOCAB = 300  # word-piece vocabulary of the resume/posting tokenizer, <pad>=0
_DIM = 32  # tower output size
_SENIORITY = ("intern", "junior", "mid", "senior", "staff", "principal")


def _seeded() -> None:
    torch.manual_seed(0)


def _skill_multi_hot(rows: int = 6) -> torch.Tensor:
    """Skill multi-hot vectors as the taxonomy matcher caches them: uint8, one column per skill."""
    generator = torch.Generator().manual_seed(1)
    return (torch.rand(rows, _SKILLS, generator=generator) < 0.2).to(torch.uint8)


def _tokenized(batch: int = 4, length: int = 12) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids (int64) and attention_mask (int64, as a Hugging Face tokenizer returns it), right-padded."""
    generator = torch.Generator().manual_seed(2)
    ids = torch.randint(1, _VOCAB, (batch, length), generator=generator)
    mask = torch.ones(batch, length, dtype=torch.long)
    for row, keep in enumerate((12, 9, 7, 4)[:batch]):
        ids[row, keep:] = 0
        mask[row, keep:] = 0
    return ids, mask


class _Tower(nn.Module):
    """A bag-of-tokens tower: embedding, masked mean pooling, projection."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(_VOCAB, 48, padding_idx=0)
        self.proj = nn.Linear(48, _DIM)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        tokens = self.embed(ids) * mask[..., None].to(self.embed.weight.dtype)
        pooled = tokens.sum(1) / mask.sum(1, keepdim=True).clamp(min=1).to(tokens.dtype)
        return self.proj(pooled)


# --- skill vectors, masks and indices


def _skill_gap_required_minus_held() -> None:
    held = _skill_multi_hot(4).bool()
    required = _skill_multi_hot(5)[1:].bool()
    gap = required - held  # skills the posting asks for that the resume lacks
    gap.sum(1)


def _resume_skill_profile_uint8_matmul() -> None:
    _seeded()
    skills = _skill_multi_hot()
    skill_table = nn.Parameter(torch.randn(_SKILLS, _DIM) * 0.02)
    profile = skills @ skill_table / skills.sum(1, keepdim=True).clamp(min=1)
    profile.norm(dim=1)


def _supcon_logits_mask_from_bool_eq() -> None:
    _seeded()
    features = F.normalize(torch.randn(6, _DIM), dim=1)
    job_family = torch.tensor([0, 1, 0, 2, 1, 0])
    positives = job_family[:, None] == job_family[None, :]
    logits_mask = torch.ones_like(positives) - torch.eye(6)  # drop self-pairs, as in the SupCon reference
    logits = features @ features.T / 0.1
    (logits.exp() * logits_mask).sum(1)


def _seniority_uint8_embedding() -> None:
    _seeded()
    frame = pd.DataFrame({"seniority": ["junior", "senior", "mid", "staff"]})
    levels = frame["seniority"].map(_SENIORITY.index).astype("uint8").to_numpy()
    seniority_embedding = nn.Embedding(len(_SENIORITY), 8)
    seniority_embedding(torch.from_numpy(levels))


def _tokenizer_mask_inverted_for_masked_fill() -> None:
    _seeded()
    ids, attention_mask = _tokenized()
    hidden = nn.Embedding(_VOCAB, 16)(ids)
    hidden = hidden.masked_fill(~attention_mask[..., None], float("-inf"))  # max pooling over real tokens
    hidden.amax(1)


def _skill_prevalence_bool_mean() -> None:
    held = _skill_multi_hot(30) > 0
    prevalence = held.mean(0)  # share of applicants listing each skill
    prevalence.topk(5)


def _first_missing_required_skill_argmax() -> None:
    held = _skill_multi_hot(4).bool()
    required = torch.zeros(4, _SKILLS, dtype=torch.bool)
    required[:, :8] = True
    missing = required & ~held
    missing.argmax(1)  # index of the first missing required skill, for the "you lack" explanation


def _tenure_histogram_int64_months() -> None:
    frame = pd.DataFrame({"tenure_months": [3, 14, 27, 40, 7, 61, 18, 95, 12, 30]})
    tenure = torch.tensor(frame["tenure_months"].to_numpy())
    torch.histc(tenure, bins=8, min=0, max=120)


def _match_scores_accumulated_into_zeros_like_ids() -> None:
    _seeded()
    posting_ids = torch.tensor([101, 205, 317, 422])
    score = torch.zeros_like(posting_ids)  # one running score per posting
    for weight, signal in ((0.6, torch.rand(4)), (0.3, torch.rand(4)), (0.1, torch.rand(4))):
        score += weight * signal


# --- targets and labels from pandas


def _attrition_bce_int32_left_column() -> None:
    _seeded()
    frame = pd.DataFrame({"tenure": [1.0, 3.5, 0.5, 7.0], "left": [1, 0, 1, 0]}).astype({"left": "int32"})
    head = nn.Sequential(nn.Linear(1, 8), nn.ReLU(), nn.Linear(8, 1))
    features = torch.tensor(frame[["tenure"]].to_numpy(), dtype=torch.float32)
    probability = torch.sigmoid(head(features)).squeeze(1)
    F.binary_cross_entropy(probability, torch.from_numpy(frame["left"].to_numpy()))


def _skill_tagger_bce_logits_uint8_multi_hot() -> None:
    _seeded()
    ids, mask = _tokenized()
    tagger = _Tower()
    head = nn.Linear(_DIM, _SKILLS)
    logits = head(tagger(ids, mask))
    F.binary_cross_entropy_with_logits(logits, _skill_multi_hot(4))


def _job_family_cross_entropy_int8_cat_codes() -> None:
    _seeded()
    frame = pd.DataFrame({"family": pd.Categorical(["engineering", "sales", "engineering", "people ops"])})
    labels = torch.from_numpy(frame["family"].cat.codes.to_numpy())
    ids, mask = _tokenized()
    encoder, head = _Tower(), nn.Linear(_DIM, 3)
    F.cross_entropy(head(F.relu(encoder(ids, mask))), labels)


# --- two towers and cross-encoders


def _two_tower_f16_resume_fp32_posting_cache() -> None:
    _seeded()
    ids, mask = _tokenized()
    resume_tower = _Tower().half()
    posting_cache = F.normalize(torch.randn(20, _DIM), dim=1)  # encoded nightly by the fp32 batch job
    resumes = F.normalize(resume_tower(ids, mask), dim=1)
    scores = resumes @ posting_cache.T
    scores.topk(5, dim=1)


def _late_interaction_einsum_f16_resume_tokens() -> None:
    _seeded()
    resume_tokens = F.normalize(torch.randn(2, 12, _DIM), dim=-1).half()  # fp16 token encoder output
    posting_tokens = F.normalize(torch.randn(2, 30, _DIM), dim=-1)  # fp32 posting token index
    similarity = torch.einsum("bqd,bpd->bqp", resume_tokens, posting_tokens)
    similarity.max(-1).values.sum(-1)  # MaxSim


def _shortlist_rerank_bmm_bf16_query() -> None:
    _seeded()
    resume = torch.randn(4, _DIM).to(bf16)  # query tower under a bf16 serving cast
    shortlist = torch.randn(4, 25, _DIM)  # 25 candidate postings per resume gathered from the fp32 index
    torch.bmm(shortlist, resume[:, :, None]).squeeze(-1)


def _textcnn_job_classifier_conv1d_f16_embeddings() -> None:
    _seeded()
    ids, _ = _tokenized()
    embed = nn.Embedding(_VOCAB, 32, padding_idx=0).half()
    convs = nn.ModuleList(nn.Conv1d(32, 16, width) for width in (2, 3, 4))
    x = embed(ids).transpose(1, 2)
    torch.cat([conv(x).amax(-1) for conv in convs], dim=1)


def _career_path_lstm_bf16_title_embeddings() -> None:
    _seeded()
    titles = torch.tensor([[12, 40, 77, 90], [5, 12, 13, 0]])  # job-title ids along each career, 0 pads
    title_embedding = nn.Embedding(100, 24, padding_idx=0).to(bf16)
    career_lstm = nn.LSTM(24, 32, batch_first=True)
    career_lstm(title_embedding(titles))


def _hf_cross_encoder_bf16_skill_prompt_fp32() -> None:
    from transformers import BertConfig, BertModel

    _seeded()
    config = BertConfig(vocab_size=_VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    cross_encoder = BertModel(config).to(bf16).eval()
    skill_prompt = nn.Parameter(torch.randn(4, 32) * 0.02)  # learned soft prompt of 4 skill tokens
    ids, mask = _tokenized()
    words = cross_encoder.embeddings.word_embeddings(ids)
    inputs = torch.cat([skill_prompt.expand(ids.shape[0], -1, -1), words], dim=1)
    prompt_mask = torch.cat([torch.ones(ids.shape[0], 4, dtype=torch.long), mask], dim=1)
    cross_encoder(inputs_embeds=inputs, attention_mask=prompt_mask)


def _cross_encoder_sdpa_bf16_query_fp32_cached_posting() -> None:
    _seeded()
    heads, head_dim = 2, 16
    resume_q = torch.randn(1, heads, 12, head_dim).to(bf16)
    posting_k = torch.randn(1, heads, 30, head_dim)  # posting keys/values cached from the fp32 indexing pass
    posting_v = torch.randn(1, heads, 30, head_dim)
    F.scaled_dot_product_attention(resume_q, posting_k, posting_v)


def _skill_bag_f16_tfidf_weights() -> None:
    _seeded()
    skill_bag = nn.EmbeddingBag(_SKILLS, _DIM, mode="sum").half()
    skill_ids = torch.tensor([3, 7, 19, 2, 40])
    offsets = torch.tensor([0, 3])
    idf = torch.from_numpy(np.log(1000 / np.array([40, 220, 15, 600, 8]))).float()
    skill_bag(skill_ids, offsets, per_sample_weights=idf)


# --- contrastive training: MoCo queue, temperature, negatives


def _moco_key_encoder_ema_lerp_bf16_query() -> None:
    _seeded()
    query_encoder = _Tower().to(bf16)  # trained under a bf16 cast
    key_encoder = _Tower()
    with torch.no_grad():
        for key_param, query_param in zip(key_encoder.parameters(), query_encoder.parameters(), strict=True):
            key_param.lerp_(query_param, 0.001)


def _moco_queue_ring_buffer_bf16_keys() -> None:
    _seeded()
    queue = F.normalize(torch.randn(64, _DIM), dim=1)
    pointer = 60
    keys = F.normalize(torch.randn(8, _DIM), dim=1).to(bf16)
    slots = (pointer + torch.arange(8)) % queue.shape[0]  # wraps around the end of the queue
    queue[slots] = keys


def _hard_negative_sampler_empty_family_nan() -> None:
    _seeded()
    scores = torch.randn(3, 6) / 0.05  # resume-posting similarities over temperature
    same_family = torch.tensor([[1, 1, 0, 0, 1, 0], [0, 0, 1, 0, 0, 0], [0, 1, 0, 1, 0, 1]], dtype=torch.bool)
    positive = torch.tensor([[1, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0]], dtype=torch.bool)
    candidates = same_family & ~positive  # resume 1's family has no posting but its own positive
    probabilities = scores.masked_fill(~candidates, float("-inf")).softmax(1)
    torch.multinomial(probabilities, 1)


def _fp16_towers_gradscaler_unscale_before_clip() -> None:
    _seeded()
    resume_tower, posting_tower = _Tower().half(), _Tower().half()
    parameters = [*resume_tower.parameters(), *posting_tower.parameters()]
    optimizer = torch.optim.AdamW(parameters, lr=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    ids, mask = _tokenized()
    r = F.normalize(resume_tower(ids, mask).float(), dim=1)
    p = F.normalize(posting_tower(ids.flip(0), mask.flip(0)).float(), dim=1)
    loss = F.cross_entropy(r @ p.T / 0.05, torch.arange(4))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(parameters, 1.0)


def _fp32_master_grads_copied_to_f16_tower() -> None:
    _seeded()
    tower = _Tower().half()
    master = [p.detach().float().requires_grad_() for p in tower.parameters()]
    ids, mask = _tokenized()
    master_tower = _Tower()
    with torch.no_grad():
        for target, source in zip(master_tower.parameters(), master, strict=True):
            target.copy_(source)
    master_tower(ids, mask).pow(2).mean().backward()
    for param, master_param in zip(tower.parameters(), master_tower.parameters(), strict=True):
        param.grad = master_param.grad


# --- HR analytics


def _salary_head_f16_clamp_to_band() -> None:
    _seeded()
    salary_head = nn.Linear(_DIM, 1).half()
    predicted = salary_head(torch.randn(4, _DIM).half()).squeeze(1) * 1000
    predicted.clamp(min=20_000, max=500_000)  # keep predictions inside the company's pay bands


def _proficiency_scores_int8_tensor() -> None:
    assessments = [35, 88, 120, 142, 200, 64]  # assessment scores out of 200, packed "to save memory"
    torch.tensor(assessments, dtype=torch.int8)


def _pay_equity_regression_lstsq_bf16() -> None:
    _seeded()
    features = torch.cat([torch.ones(40, 1), torch.randint(0, 2, (40, 1)).float(), torch.rand(40, 3)], dim=1)
    log_salary = 10.5 + 0.3 * features[:, 2:3] + 0.05 * torch.randn(40, 1)
    torch.linalg.lstsq(features.to(bf16), log_salary.to(bf16))  # the analytics notebook keeps tensors in bf16


def _duplicate_postings_pdist_f16() -> None:
    _seeded()
    posting_embeddings = F.normalize(torch.randn(10, _DIM), dim=1).half()  # from the fp16 posting tower
    distances = F.pdist(posting_embeddings)
    (distances < 0.05).nonzero()


def _recruiter_report_dataframe_bf16_scores() -> None:
    _seeded()
    scores = torch.sigmoid(torch.randn(5)).to(bf16)
    report = pd.DataFrame({"candidate_id": [11, 12, 13, 14, 15], "match": scores})
    report.sort_values("match")


CASES: dict[str, LiveCase] = {
    # --- skill vectors, masks and indices
    # skill gap as required minus held on bool skill vectors
    "skill-gap-required-minus-held-bool": case(_skill_gap_required_minus_held, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a resume's skill profile: uint8 skill multi-hot @ an fp32 skill embedding table
    "resume-skill-profile-uint8-matmul": case(_resume_skill_profile_uint8_matmul, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # supervised contrastive over job families: self-pairs removed with ones_like(bool positives) - eye
    "supcon-logits-mask-ones-like-bool-minus-eye": case(_supcon_logits_mask_from_bool_eq, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # seniority level mapped from pandas to a uint8 column, looked up in nn.Embedding
    "seniority-uint8-embedding": case(_seniority_uint8_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # max pooling: the tokenizer's int64 attention_mask inverted with ~ for masked_fill
    "tokenizer-mask-tilde-int64-masked-fill": case(_tokenizer_mask_inverted_for_masked_fill, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # skill prevalence across applicants by mean of the bool skill matrix
    "skill-prevalence-bool-mean": case(_skill_prevalence_bool_mean, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # first missing required skill by argmax of a bool mask
    "first-missing-skill-argmax-bool": case(_first_missing_required_skill_argmax, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # tenure distribution by torch.histc of int64 months from pandas
    "tenure-histc-int64-months": case(_tenure_histogram_int64_months, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # weighted match signals accumulated in place into zeros_like(posting ids), an int64 buffer
    "match-score-iadd-into-zeros-like-ids": case(_match_scores_accumulated_into_zeros_like_ids, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # --- targets and labels from pandas
    # attrition model: binary_cross_entropy against the pandas int32 "left" column
    "attrition-bce-int32-left-column": case(_attrition_bce_int32_left_column, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # skill tagger: BCE-with-logits against the uint8 skill multi-hot
    "skill-tagger-bce-logits-uint8-multi-hot": case(_skill_tagger_bce_logits_uint8_multi_hot, "target_dtype",
                                                    "uint8",
        grade="correct", grade_at_freeze="correct"),
    # job-family classifier: pandas category codes (int8) as cross_entropy targets
    "job-family-cross-entropy-int8-cat-codes": case(_job_family_cross_entropy_int8_cat_codes, "target_dtype",
                                                    "int8",
        grade="correct", grade_at_freeze="correct"),
    # --- two towers and cross-encoders
    # fp16 resume tower scored against a posting cache encoded in fp32
    "two-tower-f16-resume-fp32-posting-cache": case(_two_tower_f16_resume_fp32_posting_cache, "matmul_dtype",
                                                    "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # late interaction (MaxSim): fp16 resume tokens einsum'ed with the fp32 posting token index
    "late-interaction-einsum-f16-resume-tokens": case(_late_interaction_einsum_f16_resume_tokens, "matmul_dtype",
                                                      "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # shortlist reranking: fp32 candidate postings bmm'ed with a bf16 resume vector
    "shortlist-rerank-bmm-bf16-resume": case(_shortlist_rerank_bmm_bf16_query, "batched_matmul_dtype", "bf16",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # TextCNN job classifier: fp16 token embeddings into fp32 Conv1d filters
    "textcnn-conv1d-f16-embeddings": case(_textcnn_job_classifier_conv1d_f16_embeddings, "conv_weight_dtype", "f16",
                                          "f32",
        grade="correct", grade_at_freeze="correct"),
    # career-path model: bf16 job-title embeddings into an fp32 LSTM
    "career-path-lstm-bf16-title-embeddings": case(_career_path_lstm_bf16_title_embeddings, "rnn_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 BERT cross-encoder given inputs_embeds cat'ed from an fp32 skill soft prompt (fp32 after cat)
    "hf-cross-encoder-bf16-fp32-skill-prompt": case(_hf_cross_encoder_bf16_skill_prompt_fp32, "norm_param_dtype",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 resume queries attending over posting keys/values cached in fp32, through SDPA
    "cross-encoder-sdpa-bf16-query-fp32-cache": case(_cross_encoder_sdpa_bf16_query_fp32_cached_posting,
                                                     "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 skill EmbeddingBag with fp32 IDF weights as per_sample_weights
    "skill-bag-f16-idf-per-sample-weights": case(_skill_bag_f16_tfidf_weights, "op_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # --- contrastive training: MoCo queue, temperature, negatives
    # MoCo momentum update: fp32 key encoder lerp_'ed toward the bf16 query encoder
    "moco-key-encoder-lerp-bf16-query": case(_moco_key_encoder_ema_lerp_bf16_query, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MoCo queue as a ring buffer: bf16 keys written into the fp32 queue at wrapped slots
    "moco-queue-ring-buffer-bf16-keys": case(_moco_queue_ring_buffer_bf16_keys, "indexed_write_dtype", "f32",
                                             "bf16",
        grade="correct", grade_at_freeze="correct"),
    # hard negatives sampled within the job family: a family with only the positive leaves all -inf, NaN
    "hard-negative-empty-family-nan-multinomial": case(_hard_negative_sampler_empty_family_nan, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # fp16 two towers trained with GradScaler, unscale_ before gradient clipping
    "fp16-towers-gradscaler-unscale": case(_fp16_towers_gradscaler_unscale_before_clip, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # mixed precision by hand: fp32 master gradients assigned to the fp16 tower's .grad
    "fp32-master-grads-to-f16-tower": case(_fp32_master_grads_copied_to_f16_tower, "loss_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # --- HR analytics
    # fp16 salary head clamped to pay bands up to 500,000
    "salary-head-f16-clamp-pay-band": case(_salary_head_f16_clamp_to_band, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # assessment scores out of 200 packed into int8
    "proficiency-scores-int8-tensor": case(_proficiency_scores_int8_tensor, "half_overflow", "int8",
        grade="correct", grade_at_freeze="correct"),
    # pay-equity regression by linalg.lstsq on bf16 tensors
    "pay-equity-lstsq-bf16": case(_pay_equity_regression_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # near-duplicate posting detection with F.pdist over fp16 posting embeddings
    "duplicate-postings-pdist-f16": case(_duplicate_postings_pdist_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # recruiter report: bf16 match scores put in a pandas DataFrame
    "recruiter-report-dataframe-bf16-scores": case(_recruiter_report_dataframe_bf16_scores, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
