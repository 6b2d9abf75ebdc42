"""Held-out live set 114: network intrusion and malware detection written by hand in low precision (packet payload
bytes as uint8 arrays from pcaps and PE files, CICFlowMeter/NSL-KDD flow features as float64 from pandas with inf and
NaN cells, port numbers, IPs and protocol ids as integers, one-hot protocols from get_dummies, byte-level CNNs and
embeddings (MalConv), packet-sequence GRUs and transformers, heavily imbalanced class weights and samplers, focal
losses, bf16 autocast around the models, federated IDS aggregation). Defects planted by a helper who never read the
rules, written before castwise ran and graded once with the rules frozen at aee33e1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "aee33e1"

bf16, f16 = torch.bfloat16, torch.float16
_BYTES = 257  # 256 byte values + a padding token, as in MalConv
_LABELS = ["BENIGN", "DoS Hulk", "PortScan", "DDoS", "Bot", "Infiltration"]


def _seeded() -> None:
    torch.manual_seed(0)


def _pe_bytes(length: int = 64) -> np.ndarray:
    header = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00"
    body = bytes((i * 37 + 11) % 256 for i in range(length - len(header)))
    return np.frombuffer(header + body, dtype=np.uint8)  # what reading the PE file gives


def _flow_frame() -> pd.DataFrame:
    """A slice of a CICFlowMeter CSV as pandas reads it: float64 rates with inf and NaN cells, int64 counts."""
    return pd.DataFrame({
        "Destination Port": [80, 443, 22, 53, 8080, 443],
        "Protocol": [6, 6, 6, 17, 6, 6],
        "Flow Duration": [120_000, 5_300_000, 2, 48_000, 1, 990_000],
        "Total Fwd Packets": [12, 40, 1, 2, 1, 18],
        "Total Length of Fwd Packets": [3_400, 52_000, 0, 120, 0, 9_100],
        "Flow Bytes/s": [28_333.3, 9_811.3, np.nan, 2_500.0, np.inf, 9_191.9],
        "Flow Packets/s": [100.0, 7.5, 1_000_000.0, 41.7, np.inf, 18.2],
        "SYN Flag Count": [1, 1, 1, 0, 1, 1],
        "Label": ["BENIGN", "BENIGN", "PortScan", "BENIGN", "DoS Hulk", "BENIGN"],
    })


# --- integer, bool, index, mask and target defects


def _malconv_pe_bytes_uint8_embedding() -> None:
    _seeded()
    raw = torch.from_numpy(_pe_bytes().copy())[None]  # (1, L) uint8 straight from the file
    embed = nn.Embedding(_BYTES, 8, padding_idx=256)
    embed(raw)


def _attack_category_codes_int8_cross_entropy() -> None:
    _seeded()
    labels = pd.Series(_LABELS * 2).astype("category").cat.codes  # pandas picks int8 codes for < 128 categories
    targets = torch.from_numpy(labels.to_numpy())
    logits = nn.Linear(10, len(_LABELS))(torch.randn(len(labels), 10))
    F.cross_entropy(logits, targets)


def _nsl_kdd_get_dummies_bool_labels_cross_entropy() -> None:
    _seeded()
    attack_class = pd.Series(["normal", "dos", "probe", "r2l", "u2r", "normal", "dos"])
    soft_targets = torch.from_numpy(pd.get_dummies(attack_class).to_numpy())  # pandas 2: bool columns
    logits = nn.Linear(41, soft_targets.shape[1])(torch.randn(len(attack_class), 41))
    F.cross_entropy(logits, soft_targets, label_smoothing=0.1)


def _protocol_get_dummies_bool_linear() -> None:
    _seeded()
    protocol = pd.Series(["tcp", "udp", "icmp", "tcp", "tcp"])
    one_hot = torch.from_numpy(pd.get_dummies(protocol).to_numpy())
    protocol_proj = nn.Linear(one_hot.shape[1], 16)
    protocol_proj(one_hot)


def _ember_byte_histogram_histc_uint8() -> None:
    payload = torch.from_numpy(_pe_bytes(256).copy())
    counts = torch.histc(payload, bins=256, min=0, max=255)  # EMBER's ByteHistogram feature
    counts / counts.sum()


def _first_alert_packet_argmax_bool() -> None:
    _seeded()
    scores = torch.sigmoid(torch.randn(4, 20) * 3)  # per-packet maliciousness of 4 flows
    alerted = scores > 0.9
    torch.argmax(alerted, dim=1)  # index of the first packet that crossed the threshold


def _mean_packet_length_int64() -> None:
    lengths = torch.tensor([[60, 1514, 1514, 66], [74, 66, 583, 0], [60, 60, 60, 60]])  # from scapy len(pkt)
    lengths.mean(dim=1)


def _benign_weight_one_minus_bool_label() -> None:
    frame = _flow_frame()
    is_attack = torch.from_numpy((frame["Label"] != "BENIGN").to_numpy())
    attack_weight = 5.0
    is_attack * attack_weight + (1 - is_attack)


def _syn_flag_int64_mask_masked_fill() -> None:
    frame = _flow_frame()
    rates = torch.tensor(frame["Flow Packets/s"].to_numpy(), dtype=torch.float32)
    syn_only = torch.from_numpy((frame["SYN Flag Count"] > 0).astype(int).to_numpy())
    rates.masked_fill(syn_only, 0.0)


def _payload_byte_substitution_index_put_int64() -> None:
    _seeded()
    payload = torch.from_numpy(_pe_bytes(128).copy())
    slack = torch.arange(100, 128)  # overlay bytes after the last section: safe to rewrite
    payload[slack] = torch.randint(0, 256, (slack.numel(),))  # adversarial padding bytes


def _packet_length_standardise_in_place_int64() -> None:
    lengths = torch.tensor([60, 1514, 74, 583, 66, 1514])
    mean, std = lengths.float().mean(), lengths.float().std()
    lengths.sub_(mean).div_(std)


def _src_ip_integer_int32() -> None:
    import ipaddress

    src = ["10.0.0.5", "192.168.10.50", "172.16.0.1", "205.174.165.73"]
    torch.tensor([int(ipaddress.IPv4Address(ip)) for ip in src], dtype=torch.int32)


# --- floating dtypes, kernels, overflow, numpy interop, gradients and non-finite values


def _cicflowmeter_f64_features_layernorm() -> None:
    frame = _flow_frame().drop(columns=["Label"]).replace([np.inf, -np.inf], np.nan).fillna(0.0)
    features = torch.from_numpy(np.log1p(frame.to_numpy(dtype=np.float64)))
    input_norm = nn.LayerNorm(features.shape[1])
    input_norm(features)


def _packet_size_sequence_f64_gru() -> None:
    _seeded()
    sizes = np.array([[60, 1514, 1514, 66, 583], [74, 66, 0, 0, 0]], dtype=np.float64) / 1514.0
    sequence = torch.from_numpy(sizes)[..., None]
    gru = nn.GRU(1, 16, batch_first=True)
    gru(sequence)


def _packet_transformer_fp32_padding_mask_bf16() -> None:
    _seeded()
    packets_per_flow = torch.tensor([6, 3])
    mask = torch.zeros(2, 6)
    mask[torch.arange(6)[None] >= packets_per_flow[:, None]] = float("-inf")  # additive padding mask
    attention = nn.MultiheadAttention(32, 4, batch_first=True).to(bf16)
    packets = torch.randn(2, 6, 32, dtype=bf16)
    attention(packets, packets, packets, key_padding_mask=mask)


def _malconv_bf16_embedding_fp32_conv1d() -> None:
    _seeded()
    embed = nn.Embedding(_BYTES, 8, padding_idx=256).to(bf16)  # the 8 x L activations dominate memory
    conv = nn.Conv1d(8, 16, kernel_size=16, stride=16)
    gate = nn.Conv1d(8, 16, kernel_size=16, stride=16)
    tokens = torch.from_numpy(_pe_bytes(256).astype(np.int64))[None]
    x = embed(tokens).transpose(1, 2)
    conv(x) * torch.sigmoid(gate(x))


def _focal_ce_autocast_logits_fp32_class_weights() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
    class_weights = torch.tensor([0.05, 1.0, 3.0, 40.0])  # benign, dos, scan, infiltration
    with torch.autocast("cpu", dtype=bf16):
        logits = model(torch.randn(8, 20))
    targets = torch.tensor([0, 0, 0, 1, 0, 2, 0, 3])
    ce = F.cross_entropy(logits, targets, weight=class_weights, reduction="none")
    pt = torch.exp(-ce)
    ((1 - pt) ** 2 * ce).mean()


def _zero_count_class_inverse_frequency_sampler() -> None:
    _seeded()
    labels = torch.tensor([0] * 40 + [1] * 6 + [2] * 3)  # train split: no Infiltration flow landed in it
    counts = torch.bincount(labels, minlength=4).float()
    class_weight = 1.0 / counts
    sample_weight = class_weight[labels]
    sample_weight = torch.cat([sample_weight, class_weight[3:]])  # the hand-added Infiltration seed flow
    sampler = torch.utils.data.WeightedRandomSampler(sample_weight, num_samples=32)
    list(sampler)


def _flow_bytes_per_s_inf_histc() -> None:
    rates = torch.from_numpy(_flow_frame()["Flow Bytes/s"].fillna(0.0).to_numpy())
    torch.histc(rates, bins=10, min=0.0, max=float(rates.max()))


def _focal_gamma_half_saturated_benign() -> None:
    logits = torch.tensor([[40.0, -40.0], [0.3, -0.2], [-1.0, 2.0]], requires_grad=True)
    targets = torch.tensor([0, 0, 1])
    gamma = 0.5
    with torch.autograd.detect_anomaly():
        probs = logits.softmax(dim=1)
        pt = probs.gather(1, targets[:, None]).squeeze(1)
        loss = (-((1 - pt) ** gamma) * pt.log()).mean()
        loss.backward()


def _missing_dst_port_sentinel_fp16() -> None:
    frame = _flow_frame()
    frame.loc[[2, 4], "Destination Port"] = np.nan  # ports lost when the flow record was truncated
    ports = torch.tensor(frame["Destination Port"].to_numpy(), dtype=f16)
    ports.masked_fill_(torch.isnan(ports), 65535)


def _tcp_flags_fp16_rshift_bits() -> None:
    flags = torch.tensor([0x02, 0x12, 0x18, 0x11, 0x04], dtype=torch.int64).to(f16)  # the feature block went .half()
    bits = (flags[:, None] >> torch.arange(8, dtype=f16)) % 2
    bits.sum(0)


def _flow_pca_lowrank_fp16() -> None:
    _seeded()
    features = torch.randn(64, 12).half()  # flow features kept in fp16 to fit the day's capture
    torch.pca_lowrank(features, q=3)


def _malware_family_prototypes_cdist_bf16() -> None:
    _seeded()
    encoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
    with torch.autocast("cpu", dtype=bf16):
        support = encoder(torch.randn(5 * 3, 32))
        query = encoder(torch.randn(4, 32))
    prototypes = support.view(5, 3, 16).mean(dim=1)  # 5 families, 3 shots each
    torch.cdist(query, prototypes)


def _autoencoder_latent_bf16_isolation_forest() -> None:
    from sklearn.ensemble import IsolationForest

    _seeded()
    encoder = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 4))
    with torch.autocast("cpu", dtype=bf16), torch.no_grad():
        latent = encoder(torch.randn(32, 20))
    IsolationForest(n_estimators=10, random_state=0).fit(latent.numpy())


def _pcap_header_network_byte_order_from_numpy() -> None:
    tcp_header = bytes.fromhex("c35000501a2b3c4d000000005002faf0e6320000")
    ports = np.frombuffer(tcp_header[:4], dtype=">u2")  # source and destination ports, network byte order
    torch.from_numpy(ports)


def _traffic_baseline_ema_lerp_f64() -> None:
    baseline = torch.zeros(7)  # fp32 running mean of the per-minute flow features
    frame = _flow_frame().drop(columns=["Label", "Flow Bytes/s"]).replace(np.inf, np.nan).fillna(0.0)
    minute_mean = torch.from_numpy(frame.to_numpy(dtype=np.float64).mean(axis=0))
    baseline.lerp_(minute_mean, 0.05)


def _per_flow_bytes_scatter_add_f64() -> None:
    packet_flow = torch.tensor([0, 0, 1, 2, 2, 2, 1])  # flow id of each packet
    packet_bytes = torch.from_numpy(np.array([60, 1514, 74, 66, 583, 1514, 60], dtype=np.float64))
    flow_bytes = torch.zeros(3)
    flow_bytes.scatter_add_(0, packet_flow, packet_bytes)


def _federated_ids_numpy_mean_grad() -> None:
    _seeded()
    detector = nn.Linear(20, 2)
    client_grads = [np.full((2, 20), 0.01 * k) for k in range(3)]  # gradients sent by three sites as numpy
    detector.weight.grad = torch.from_numpy(np.mean(client_grads, axis=0))


def _packet_attention_pooling_einsum_fp32_context() -> None:
    _seeded()
    encoder = nn.Linear(32, 32)
    context = nn.Parameter(torch.randn(32))  # the pooling query vector, a bare Parameter
    with torch.autocast("cpu", dtype=bf16):
        states = encoder(torch.randn(2, 6, 32))
    scores = torch.einsum("bpd,d->bp", states, context)
    scores.softmax(dim=1)


CASES: dict[str, LiveCase] = {
    # MalConv: the PE file's bytes (uint8 from np.frombuffer) looked up directly in the byte embedding
    "malconv-pe-bytes-uint8-embedding": case(_malconv_pe_bytes_uint8_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # CIC-IDS attack labels label-encoded with pandas category codes (int8) as cross_entropy targets
    "attack-category-codes-int8-cross-entropy": case(_attack_category_codes_int8_cross_entropy, "target_dtype",
                                                     "int8",
        grade="correct", grade_at_freeze="correct"),
    # NSL-KDD attack classes one-hot by pd.get_dummies (bool) given to cross_entropy as soft targets
    "nsl-kdd-get-dummies-bool-soft-targets": case(_nsl_kdd_get_dummies_bool_labels_cross_entropy, "target_dtype",
                                                  "bool",
        grade="correct", grade_at_freeze="correct"),
    # protocol_type one-hot by pd.get_dummies (bool columns) fed to an fp32 protocol projection
    "protocol-get-dummies-bool-linear": case(_protocol_get_dummies_bool_linear, "integer_operand", "bool", "f32",
        grade="correct", grade_at_freeze="correct"),
    # EMBER-style byte histogram of a PE file by torch.histc of the uint8 bytes
    "ember-byte-histogram-histc-uint8": case(_ember_byte_histogram_histc_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # time to detection: the first alerted packet of each flow by argmax of the bool alert mask
    "first-alert-packet-argmax-bool": case(_first_alert_packet_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # per-flow mean packet length taken on the int64 lengths from scapy
    "mean-packet-length-int64": case(_mean_packet_length_int64, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # per-flow loss weights built as attack * 5 + (1 - is_attack) with the bool label tensor
    "benign-weight-one-minus-bool-label": case(_benign_weight_one_minus_bool_label, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # SYN-only flows masked out with a pandas astype(int) flag column (int64) in masked_fill
    "syn-flag-int64-mask-masked-fill": case(_syn_flag_int64_mask_masked_fill, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # adversarial MalConv padding: int64 randint bytes written into the uint8 PE overlay
    "payload-byte-substitution-index-put-int64": case(_payload_byte_substitution_index_put_int64,
                                                      "indexed_write_dtype", "uint8", "int64",
        grade="correct", grade_at_freeze="correct"),
    # int64 packet lengths standardised in place with sub_/div_ by their float mean and std
    "packet-length-standardise-inplace-int64": case(_packet_length_standardise_in_place_int64, "result_cast", "f32",
                                                    "int64",
        grade="correct", grade_at_freeze="correct"),
    # source IPv4 addresses as integers put into an int32 tensor
    "src-ip-integer-int32-overflow": case(_src_ip_integer_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # log1p'd CICFlowMeter features kept float64 from pandas into an fp32 input LayerNorm
    "cicflowmeter-f64-features-layernorm": case(_cicflowmeter_f64_features_layernorm, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # normalised packet-size sequences from numpy (float64) into an fp32 GRU flow classifier
    "packet-size-sequence-f64-gru": case(_packet_size_sequence_f64_gru, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # packet transformer cast to bf16 given an fp32 additive -inf key_padding_mask for short flows
    "packet-transformer-fp32-padding-mask-bf16": case(_packet_transformer_fp32_padding_mask_bf16,
                                                      "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MalConv with only its byte embedding cast to bf16, feeding the fp32 gated Conv1d pair
    "malconv-bf16-embedding-fp32-conv1d": case(_malconv_bf16_embedding_fp32_conv1d, "conv_weight_dtype", "bf16",
                                               "f32",
        grade="correct", grade_at_freeze="correct"),
    # focal loss from cross_entropy with fp32 class weights on bf16 logits taken out of the autocast block
    "focal-ce-autocast-logits-fp32-class-weights": case(_focal_ce_autocast_logits_fp32_class_weights, "op_dtype",
                                                        "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # inverse-frequency WeightedRandomSampler with a class absent from the split: 1 / 0 = inf weight
    "zero-count-class-inverse-frequency-sampler": case(_zero_count_class_inverse_frequency_sampler, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # Flow Bytes/s binned by torch.histc with max taken over a column holding CICFlowMeter's inf
    "flow-bytes-per-s-inf-histc": case(_flow_bytes_per_s_inf_histc, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # focal loss with gamma 0.5 on a saturated benign flow (pt == 1) under detect_anomaly
    "focal-gamma-half-saturated-benign-anomaly": case(_focal_gamma_half_saturated_benign, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # missing destination ports in an fp16 feature tensor filled with the sentinel 65535
    "missing-dst-port-sentinel-65535-fp16": case(_missing_dst_port_sentinel_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # TCP flag bits unpacked with >> on a flags column that went fp16 with the feature block
    "tcp-flags-fp16-rshift-bits": case(_tcp_flags_fp16_rshift_bits, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # PCA of fp16 flow features with torch.pca_lowrank for a traffic-cluster plot
    "flow-pca-lowrank-fp16": case(_flow_pca_lowrank_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # few-shot malware families: bf16 embeddings from an autocast encoder, cdist to prototypes outside it
    "malware-family-prototypes-cdist-bf16": case(_malware_family_prototypes_cdist_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 autoencoder latents from autocast turned to numpy for sklearn's IsolationForest
    "autoencoder-latent-bf16-isolation-forest": case(_autoencoder_latent_bf16_isolation_forest, "numpy_dtype",
                                                     "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TCP ports parsed from raw header bytes in network byte order (>u2) given to torch.from_numpy
    "pcap-header-network-byte-order-from-numpy": case(_pcap_header_network_byte_order_from_numpy, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # fp32 traffic baseline lerp_'ed toward a float64 per-minute mean from pandas
    "traffic-baseline-ema-lerp-f64": case(_traffic_baseline_ema_lerp_f64, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # per-flow byte totals by scatter_add_ of float64 packet sizes from numpy into an fp32 buffer
    "per-flow-bytes-scatter-add-f64": case(_per_flow_bytes_scatter_add_f64, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # federated IDS: the numpy mean of the sites' gradients (float64) assigned to an fp32 weight's .grad
    "federated-ids-numpy-mean-grad-f64": case(_federated_ids_numpy_mean_grad, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # attention pooling over packets: bf16 states from autocast einsum'd with an fp32 context vector
    "packet-attention-pooling-einsum-fp32-context": case(_packet_attention_pooling_einsum_fp32_context,
                                                         "matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
