"""Held-out live set 110: genomics and DNA/RNA sequence models written by hand in low precision (one-hot nucleotides
as uint8 from numpy, k-mer token ids, reverse-complement flips and strand averaging, float64 coverage tracks from
bigWig readers, Enformer/Basenji-style dilated conv towers and attention, profile and count losses on integer read
counts, in-silico mutagenesis and variant-effect scoring with ref/alt batches, bf16 autocast around the towers).
Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at 7c1bda1."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "7c1bda1"

bf16, f16 = torch.bfloat16, torch.float16
_SEQ = "ACGTTGCANNACGTAGCTAGGCTTACGATCGATCGGATCCATGCAAGTNACGT"
_LEN = len(_SEQ)
_CHANNELS = 16
_LUT = np.full(256, 4, dtype=np.uint8)  # ASCII -> 0..3 for A, C, G, T, 4 for N and anything else
for _i, _base in enumerate(b"ACGT"):
    _LUT[_base] = _i


def _seeded() -> None:
    torch.manual_seed(0)


def _codes_numpy() -> np.ndarray:
    return _LUT[np.frombuffer(_SEQ.encode(), dtype=np.uint8)]


def _one_hot_numpy() -> np.ndarray:
    """The usual numpy one-hot: rows of np.eye(4) picked by base code, N an all-zero column; (4, L) uint8."""
    eye = np.vstack([np.eye(4, dtype=np.uint8), np.zeros((1, 4), dtype=np.uint8)])
    return eye[_codes_numpy()].T.copy()


def _one_hot_batch_fp32(batch: int = 2) -> torch.Tensor:
    return torch.from_numpy(_one_hot_numpy()).float()[None].repeat(batch, 1, 1)


def _reverse_complement(one_hot: torch.Tensor) -> torch.Tensor:
    """A, C, G, T channels: the complement is the channel flip, the reverse the length flip."""
    return one_hot.flip(-2).flip(-1)


class _DilatedResidual(nn.Module):
    """Basenji-style dilated residual block: GELU, dilated conv, BatchNorm, 1x1 conv, added back."""

    def __init__(self, channels: int, dilation: int) -> None:
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, 3, dilation=dilation, padding=dilation)
        self.norm = nn.BatchNorm1d(channels)
        self.mix = nn.Conv1d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.mix(self.norm(self.conv(F.gelu(x))))


def _tower() -> nn.Sequential:
    return nn.Sequential(nn.Conv1d(4, _CHANNELS, 7, padding=3), *(_DilatedResidual(_CHANNELS, d) for d in (1, 2, 4)))


# --- integer, bool and index dtypes

def _uint8_one_hot_rc_augmented_into_conv_stem() -> None:
    _seeded()
    forward = torch.from_numpy(_one_hot_numpy())[None]  # uint8 straight from the numpy one-hot
    batch = torch.cat([forward, _reverse_complement(forward)])  # reverse-complement augmentation
    stem = nn.Conv1d(4, _CHANNELS, 15, padding=7)
    stem(batch)


def _dnabert_kmer_ids_uint16_into_embedding() -> None:
    _seeded()
    k = 6
    codes = _codes_numpy().astype(np.int64) % 4
    windows = np.lib.stride_tricks.sliding_window_view(codes, k)
    kmer_ids = (windows * 4 ** np.arange(k - 1, -1, -1)).sum(1) + 5  # 5 special tokens first
    token_cache = kmer_ids.astype(np.uint16)  # 4**6 + 5 ids fit in uint16: the cache stored them so
    embedding = nn.Embedding(4**k + 5, 32)
    embedding(torch.from_numpy(token_cache)[None])


def _n_bases_masked_fill_with_uint8_mask() -> None:
    _seeded()
    codes = _codes_numpy()
    is_n = (codes == 4).astype(np.uint8)  # written out with the one-hot in the same uint8 npz
    logits = torch.randn(1, _LEN)
    logits.masked_fill(torch.from_numpy(is_n)[None], float("-inf"))


def _mappability_f64_track_as_where_condition() -> None:
    _seeded()
    mappability = np.array([1.0] * 20 + [0.0] * 10 + [1.0] * (_LEN - 30))  # pyBigWig values: float64 0/1 track
    coverage = torch.rand(_LEN) * 40
    torch.where(torch.from_numpy(mappability), coverage, torch.zeros(()))


def _ism_delta_by_subtracting_bool_one_hots() -> None:
    ref = torch.from_numpy(_one_hot_numpy()).bool()
    alt = ref.clone()
    alt[:, 12] = torch.tensor([False, False, True, False])  # C>G at the variant position
    delta = alt - ref  # +1 at the alt base, -1 at the ref base
    delta.abs().sum()


def _ism_one_hot_int64_written_into_uint8_batch() -> None:
    ref = torch.from_numpy(_one_hot_numpy())  # (4, L) uint8
    positions = torch.arange(10, 14)
    batch = ref[None].repeat(3 * len(positions), 1, 1)
    rows = torch.arange(len(batch))
    cols = positions.repeat_interleave(3)
    alt_bases = torch.tensor([1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2])
    batch[rows, :, cols] = F.one_hot(alt_bases, 4)  # every substitution at four positions


def _bpnet_profile_cross_entropy_on_int64_counts() -> None:
    _seeded()
    logits = torch.randn(2, 100, requires_grad=True)
    counts = torch.poisson(torch.full((2, 100), 3.0)).long()  # read 5' ends per base, as counted
    F.cross_entropy(logits, counts)  # the multinomial profile loss as a soft-target cross entropy


def _peak_overlap_bool_labels_bce() -> None:
    _seeded()
    peak_starts = torch.tensor([120, 4000, 9100])
    window_starts = torch.arange(0, 10_000, 1000)
    labels = ((peak_starts[None] >= window_starts[:, None]) & (peak_starts[None] < window_starts[:, None] + 1000))
    labels = labels.any(1)  # bool: does a called peak fall in the window
    logits = torch.randn(len(window_starts), requires_grad=True)
    F.binary_cross_entropy_with_logits(logits, labels)


def _cpm_normalised_in_place_int64_counts() -> None:
    counts = torch.tensor([[12, 0, 7, 33], [5, 9, 0, 41]])  # reads per bin per sample, int64 from the bam counter
    library_size = counts.sum(1, keepdim=True)
    counts.div_(library_size / 1e6)


def _gc_content_as_mean_of_uint8_one_hot() -> None:
    one_hot = torch.from_numpy(_one_hot_numpy())
    gc = one_hot[[1, 2]].sum(0)  # C or G
    gc.mean()


def _bool_one_hot_decoded_with_argmax() -> None:
    one_hot = torch.from_numpy(_one_hot_numpy()).bool()
    one_hot.argmax(0)  # back to base codes for the motif report


# --- two floating dtypes, missing kernels, overflow, numpy, gradients

def _enformer_tower_autocast_fp32_head_outside() -> None:
    _seeded()
    tower, head = _tower().eval(), nn.Linear(_CHANNELS, 5)  # 5 coverage tracks per bin
    x = _one_hot_batch_fp32()
    with torch.no_grad():
        with torch.autocast("cpu", dtype=bf16):
            embedding = F.avg_pool1d(tower(x), 4).transpose(1, 2)  # 4 bp bins
        F.softplus(head(embedding[:, 2:-2]))  # crop and head written after the autocast block


def _basenji_tower_cast_bf16_fed_fp32_one_hot() -> None:
    _seeded()
    tower = _tower().to(bf16).eval()
    with torch.no_grad():
        tower(_one_hot_batch_fp32())


def _weight_standardised_conv_fp32_bias() -> None:
    _seeded()
    weight = nn.Parameter(torch.randn(_CHANNELS, 4, 9))
    bias = nn.Parameter(torch.zeros(_CHANNELS))
    x = _one_hot_batch_fp32().to(bf16)
    standardised = (weight - weight.mean((1, 2), keepdim=True)) / (weight.std((1, 2), keepdim=True) + 1e-5)
    F.conv1d(x, standardised.to(x.dtype), bias, padding=4)  # the weight cast to the input's dtype, the bias not


def _bigwig_f64_coverage_into_conv_encoder() -> None:
    _seeded()
    values = np.abs(np.random.default_rng(0).normal(5.0, 3.0, size=(2, 1, 256)))  # np.array(bw.values(...)): float64
    encoder = nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2))
    encoder(torch.from_numpy(np.log1p(values)))


def _enformer_relative_position_einsum_fp32_basis() -> None:
    _seeded()
    heads, length, dim = 2, 24, 8
    q = torch.randn(1, heads, length, dim, dtype=bf16)
    distances = torch.arange(-length + 1, length).abs()
    widths = torch.logspace(1, np.log10(length), dim, base=10.0)
    basis = torch.exp(-distances[:, None] / widths[None])  # exponential basis functions, made fp32 in forward
    torch.einsum("bhid,jd->bhij", q, basis)


def _akita_pairwise_map_bmm() -> None:
    _seeded()
    trunk = torch.randn(2, 32, 8, dtype=bf16)  # bf16 1-D trunk output: 32 bins, 8 features
    contact_proj = torch.randn(2, 8, 32)  # projection for the 2-D head, created per call: fp32
    torch.bmm(trunk, contact_proj)


def _danq_bilstm_after_autocast_conv() -> None:
    _seeded()
    conv = nn.Sequential(nn.Conv1d(4, _CHANNELS, 13, padding=6), nn.ReLU(), nn.MaxPool1d(4))
    bilstm = nn.LSTM(_CHANNELS, 8, batch_first=True, bidirectional=True)
    with torch.autocast("cpu", dtype=bf16):
        motifs = conv(_one_hot_batch_fp32()).transpose(1, 2)
    bilstm(motifs)


def _enformer_transformer_bf16_fp32_residual_stream() -> None:
    _seeded()
    conv_tower = _tower().eval()  # kept fp32: "convs are cheap"
    transformer = nn.TransformerEncoderLayer(_CHANNELS, 2, 32, dropout=0.0, batch_first=True, norm_first=True)
    transformer = transformer.to(bf16).train()
    with torch.no_grad():
        transformer(conv_tower(_one_hot_batch_fp32()).transpose(1, 2))


def _tiled_predictions_stitched_with_index_add() -> None:
    _seeded()
    chrom_track = torch.zeros(120)  # genome-wide fp32 accumulator
    tile_starts = [0, 32, 64]
    with torch.autocast("cpu", dtype=bf16):
        preds = nn.Linear(4, 1)(torch.rand(len(tile_starts), 48, 4)).squeeze(-1)
    for start, pred in zip(tile_starts, preds):
        chrom_track.index_add_(0, torch.arange(start, start + 48), pred)


def _enhancer_promoter_bilinear_interaction() -> None:
    _seeded()
    enhancer = torch.randn(4, 16, dtype=bf16)  # from the bf16 sequence encoder
    promoter = torch.randn(4, 16)  # promoter embeddings cached fp32
    nn.Bilinear(16, 16, 1)(enhancer, promoter)


def _nanopore_basecaller_ctc_bf16() -> None:
    _seeded()
    steps, batch, alphabet = 40, 2, 5  # blank + ACGT
    log_probs = torch.randn(steps, batch, alphabet).to(bf16).log_softmax(-1)  # the bf16 basecaller's output
    targets = torch.randint(1, 5, (batch, 12))
    F.ctc_loss(log_probs, targets, torch.full((batch,), steps), torch.full((batch,), 12))


def _strand_averaged_variant_scores_to_numpy() -> None:
    _seeded()
    model = nn.Sequential(_tower(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(_CHANNELS, 3)).eval()
    ref = _one_hot_batch_fp32(1)
    alt = ref.clone()
    alt[:, :, 12] = torch.tensor([0.0, 0.0, 1.0, 0.0])
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        batch = torch.cat([ref, alt, _reverse_complement(ref), _reverse_complement(alt)])
        forward, reverse = model(batch).chunk(2)
        averaged = (forward + reverse) / 2
        sad = averaged[1] - averaged[0]
    sad.numpy()  # for the VCF INFO field


def _fasta_bytes_array_into_torch() -> None:
    sequence = np.frombuffer(_SEQ.encode(), dtype="S1").copy()  # what np.array(list(record.seq), "S1") gives
    torch.from_numpy(sequence)


def _enformer_attention_fp32_tss_distance_mask() -> None:
    _seeded()
    attention = nn.MultiheadAttention(_CHANNELS, 2, batch_first=True).to(bf16).eval()
    bins = torch.arange(12)
    tss_bin = 6
    bias = -0.1 * (bins - tss_bin).abs().float()  # favour bins near the TSS, float32
    mask = bias[None].expand(12, 12)
    x = torch.randn(1, 12, _CHANNELS, dtype=bf16)
    with torch.no_grad():
        attention(x, x, x, attn_mask=mask)


def _rotary_fp32_tables_on_q_and_k_bf16_values() -> None:
    _seeded()
    heads, length, dim = 2, 16, 8
    q, k, v = (torch.randn(1, heads, length, dim, dtype=bf16) for _ in range(3))
    inv_freq = 1.0 / 10000 ** (torch.arange(0, dim, 2) / dim)
    angles = torch.arange(length)[:, None] * inv_freq[None]
    cos, sin = angles.cos().repeat(1, 2), angles.sin().repeat(1, 2)  # fp32 tables

    def rotate(x: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin

    F.scaled_dot_product_attention(rotate(q), rotate(k), v)


def _library_size_full_like_fp16_coverage() -> None:
    _seeded()
    coverage = (torch.rand(4, 64) * 50).to(f16)  # coverage cached fp16 to fit the whole chromosome
    library_size = 28_450_112  # mapped reads in this sample
    coverage / torch.full_like(coverage, library_size) * 1e6


def _count_head_huber_bf16_against_fp32_log_counts() -> None:
    _seeded()
    count_head = nn.Linear(_CHANNELS, 1)
    pooled = torch.randn(4, _CHANNELS)
    with torch.autocast("cpu", dtype=bf16):
        log_count_pred = count_head(pooled).squeeze(-1)
    total_counts = torch.tensor([1523.0, 88.0, 402.0, 9731.0])
    F.huber_loss(log_count_pred, torch.log1p(total_counts)).backward()


def _fp16_profile_softmax_overflow_multinomial_nll() -> None:
    _seeded()
    logits = (torch.randn(1, 50) * 4).to(f16)
    logits[0, 20] = 14.0  # a sharp summit
    exp = logits.exp()  # a softmax written by hand: exp(14) is past fp16's range
    probs = exp / exp.sum(-1, keepdim=True)
    counts = torch.poisson(torch.full((1, 50), 2.0))
    total = int(counts.sum())
    torch.distributions.Multinomial(total, probs=probs).log_prob(counts)


def _kmer_bag_tfidf_f64_per_sample_weights() -> None:
    _seeded()
    kmer_ids = torch.tensor([[3, 17, 17, 40, 255]])
    tfidf = np.array([[0.4, 1.2, 1.2, 0.7, 2.1]])  # from sklearn's TfidfTransformer: float64
    bag = nn.EmbeddingBag(256, 16, mode="sum")
    bag(kmer_ids, per_sample_weights=torch.from_numpy(tfidf))


CASES: dict[str, LiveCase] = {
    # --- integer, bool and index dtypes
    # numpy's uint8 one-hot with its reverse complement stacked on, into the fp32 Conv1d stem
    "onehot-uint8-rc-augmented-conv-stem": case(_uint8_one_hot_rc_augmented_into_conv_stem, "integer_operand",
                                                "uint8", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DNABERT 6-mer ids cached as uint16 (4**6 + 5 fit), looked up in nn.Embedding
    "dnabert-kmer-ids-uint16-embedding": case(_dnabert_kmer_ids_uint16_into_embedding, "index_tensor_dtype",
                                              "uint16",
        grade="correct", grade_at_freeze="correct"),
    # N bases masked out of the logits with the uint8 is-N array saved next to the one-hot
    "n-bases-uint8-mask-masked-fill": case(_n_bases_masked_fill_with_uint8_mask, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a bigWig mappability track (float64 0/1) used as torch.where's condition on the coverage
    "mappability-f64-track-where": case(_mappability_f64_track_as_where_condition, "mask_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # in-silico mutagenesis delta encoding as alt - ref of two bool one-hots
    "ism-delta-bool-one-hot-subtract": case(_ism_delta_by_subtracting_bool_one_hots, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # ISM batch: F.one_hot (int64) alt bases written by advanced indexing into the uint8 ref batch
    "ism-one-hot-int64-into-uint8-batch": case(_ism_one_hot_int64_written_into_uint8_batch, "indexed_write_dtype",
                                               "uint8", "int64",
        grade="correct", grade_at_freeze="correct"),
    # BPNet multinomial profile loss as cross_entropy with the raw int64 read counts as soft targets
    "bpnet-profile-ce-int64-counts": case(_bpnet_profile_cross_entropy_on_int64_counts, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # peak-overlap labels (bool) as the BCE-with-logits target of an accessibility classifier
    "peak-overlap-bool-bce-target": case(_peak_overlap_bool_labels_bce, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # counts-per-million normalisation done in place on the int64 bin counts
    "cpm-in-place-int64-bin-counts": case(_cpm_normalised_in_place_int64_counts, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # GC content as the mean of the C and G rows of the uint8 one-hot summed (sum makes it int64)
    "gc-content-uint8-one-hot-mean": case(_gc_content_as_mean_of_uint8_one_hot, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a bool one-hot decoded back to base codes with argmax
    "bool-one-hot-argmax-decode": case(_bool_one_hot_decoded_with_argmax, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # --- two floating dtypes, missing kernels, overflow, numpy, gradients
    # Enformer-style: the tower under bf16 autocast, the crop and fp32 output head written after the block
    "enformer-autocast-tower-fp32-head": case(_enformer_tower_autocast_fp32_head_outside, "matmul_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # a Basenji dilated residual tower cast to bf16, fed the fp32 one-hot batch
    "basenji-tower-bf16-fp32-one-hot": case(_basenji_tower_cast_bf16_fed_fp32_one_hot, "conv_weight_dtype", "f32",
                                            "bf16",
        grade="correct", grade_at_freeze="correct"),
    # weight-standardised conv stem: the weight cast to the bf16 input's dtype, the fp32 bias passed as is
    "weight-standardised-conv-fp32-bias": case(_weight_standardised_conv_fp32_bias, "conv_bias_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="wrong",
        why=('At freeze (7c1bda1) castwise gave conv_weight_dtype [bf16, f32] (high confidence). The weight F.conv1d '
             "got was the standardised weight cast inline to the input's dtype (bf16), so only the fp32 bias differs "
             "from the bf16 input, as torch's message says: a conv bias case. The live reading took the weight to "
             'differ too, apparently from the fp32 Parameter it was computed from rather than the bf16 tensor the conv '
             'received; read as a pasted traceback (the message alone) it gives conv_bias_dtype.')),
    # bigWig coverage (float64 from numpy, log1p'd) into an fp32 Conv1d coverage encoder
    "bigwig-f64-coverage-conv-encoder": case(_bigwig_f64_coverage_into_conv_encoder, "conv_weight_dtype", "f64",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # Enformer relative positions: bf16 queries einsum'd with exponential basis functions made fp32 in forward
    "enformer-relpos-einsum-fp32-basis": case(_enformer_relative_position_einsum_fp32_basis, "matmul_dtype", "bf16",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # Akita-style 2-D head: bf16 trunk output bmm'd with a projection made per call in fp32
    "akita-pairwise-bmm-fp32-projection": case(_akita_pairwise_map_bmm, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # DanQ: the conv under bf16 autocast, its bf16 output into the fp32 BiLSTM after the block
    "danq-bilstm-after-autocast-conv": case(_danq_bilstm_after_autocast_conv, "rnn_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a pre-norm transformer cast to bf16 on top of a conv tower kept fp32: its first LayerNorm gets fp32
    "enformer-bf16-transformer-fp32-conv-tower": case(_enformer_transformer_bf16_fp32_residual_stream,
                                                      "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # overlapping tiles' bf16 autocast predictions index_add_'ed into an fp32 chromosome-wide track
    "tiled-predictions-index-add-fp32-track": case(_tiled_predictions_stitched_with_index_add, "indexed_write_dtype",
                                                   "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # enhancer-promoter interaction with nn.Bilinear on bf16 enhancer and cached fp32 promoter embeddings
    "enhancer-promoter-bilinear-mixed": case(_enhancer_promoter_bilinear_interaction, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a nanopore basecaller's bf16 log-probs given to CTC loss on the CPU
    "nanopore-basecaller-ctc-bf16": case(_nanopore_basecaller_ctc_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # strand-averaged ref/alt variant scores from bf16 autocast handed to numpy for the VCF
    "strand-averaged-variant-scores-numpy": case(_strand_averaged_variant_scores_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a FASTA record as a numpy bytes ('S1') array given to torch.from_numpy
    "fasta-bytes-array-from-numpy": case(_fasta_bytes_array_into_torch, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # bf16 MultiheadAttention over bins biased toward the TSS with an fp32 distance mask
    "tss-distance-fp32-mask-bf16-mha": case(_enformer_attention_fp32_tss_distance_mask, "attn_mask_dtype", "f32",
                                            "bf16",
        grade="correct", grade_at_freeze="correct"),
    # rotary tables built fp32 applied to bf16 q and k, the values left bf16, into SDPA
    "rotary-fp32-tables-sdpa-bf16-values": case(_rotary_fp32_tables_on_q_and_k_bf16_values, "sdpa_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # library-size normalisation of fp16 coverage with full_like of 28 million mapped reads
    "library-size-full-like-fp16-coverage": case(_library_size_full_like_fp16_coverage, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # the count head's bf16 autocast log-count prediction, Huber loss against fp32 log1p totals, backward
    "count-head-huber-bf16-backward": case(_count_head_huber_bf16_against_fp32_log_counts, "loss_dtype", "f32",
                                           "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp16 profile softmax written by hand: exp of a sharp summit overflows, NaN probs into Multinomial's check
    "fp16-profile-softmax-nan-multinomial": case(_fp16_profile_softmax_overflow_multinomial_nll, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # bag of k-mers with TF-IDF weights from sklearn (float64) as EmbeddingBag's per_sample_weights
    "kmer-bag-tfidf-f64-per-sample-weights": case(_kmer_bag_tfidf_f64_per_sample_weights, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
}
