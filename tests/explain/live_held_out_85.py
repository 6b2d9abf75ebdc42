"""Held-out live set 85: sign language and gesture recognition by hand in low precision (MediaPipe/OpenPose skeleton
keypoints as float64, hand-landmark normalisation, spatio-temporal graph convolutions over joints with integer
adjacency, CTC over gloss ids with int32 lengths, temporal padding masks, frame sampling, uint8 video frames and uint16
depth, sign-to-text decoders in bf16/fp16). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at c248a6f."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "c248a6f"

bf16, f16 = torch.bfloat16, torch.float16
_BODY25 = 25  # OpenPose BODY_25 joints
_HAND = 21  # MediaPipe hand landmarks
_GLOSSES = 40  # gloss vocabulary, blank at 0
# MediaPipe hand topology: (child, parent) pairs
_HAND_EDGES = [(1, 0), (2, 1), (3, 2), (4, 3), (5, 0), (6, 5), (7, 6), (8, 7), (9, 0), (10, 9), (11, 10), (12, 11),
               (13, 0), (14, 13), (15, 14), (16, 15), (17, 0), (18, 17), (19, 18), (20, 19)]


def _seeded() -> None:
    torch.manual_seed(0)


def _numpy_hand_adjacency() -> np.ndarray:
    adjacency = np.eye(_HAND)
    for child, parent in _HAND_EDGES:
        adjacency[child, parent] = adjacency[parent, child] = 1.0
    return adjacency


def _openpose_skeleton_into_data_bn() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    skeleton = rng.random((2, 3, 16, _BODY25, 1))  # np.load of the (N, C, T, V, M) array OpenPose's json became
    x = torch.from_numpy(skeleton)
    n, c, t, v, m = x.shape
    x = x.permute(0, 4, 3, 1, 2).reshape(n * m, v * c, t)
    data_bn = nn.BatchNorm1d(c * _BODY25)  # ST-GCN's input BatchNorm over joints x channels
    data_bn(x)


def _mediapipe_holistic_landmarks_into_gru() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    frames = [rng.random(75 * 3) for _ in range(12)]  # [lm.x, lm.y, lm.z] of 33 pose + 2 x 21 hand landmarks
    sequence = torch.from_numpy(np.stack(frames))[None]
    encoder = nn.GRU(75 * 3, 64, batch_first=True)
    encoder(sequence)


class _HandGCN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        adjacency = _numpy_hand_adjacency()
        degree = adjacency.sum(1) ** -0.5
        self.register_buffer("A", torch.from_numpy(degree[:, None] * adjacency * degree[None, :]))
        self.proj = nn.Conv2d(3, 16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.proj(x)
        return torch.einsum("nctv,vw->nctw", x, self.A)


def _numpy_normalised_adjacency_buffer_einsum() -> None:
    _seeded()
    _HandGCN()(torch.randn(2, 3, 8, _HAND))


class _STGCNBlock(nn.Module):
    def __init__(self, partitions: torch.Tensor) -> None:
        super().__init__()
        self.A = partitions  # plain attribute: not moved by .to()
        self.edge_importance = nn.Parameter(torch.ones_like(partitions))
        self.gcn = nn.Conv2d(3, 3 * 16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, _, t, v = x.shape
        x = self.gcn(x).view(n, 3, 16, t, v)
        return torch.einsum("nkctv,kvw->nctw", x, self.A * self.edge_importance)


def _bf16_stgcn_fp32_partition_attribute() -> None:
    _seeded()
    partitions = torch.stack([torch.eye(_BODY25), torch.rand(_BODY25, _BODY25), torch.rand(_BODY25, _BODY25)])
    block = _STGCNBlock(partitions).to(bf16)
    block(torch.randn(2, 3, 8, _BODY25, dtype=bf16))


def _binary_adjacency_int64_einsum() -> None:
    _seeded()
    adjacency = torch.eye(_HAND, dtype=torch.long)  # a 0/1 matrix, so integers
    children, parents = torch.tensor(_HAND_EDGES).T
    adjacency[children, parents] = 1
    adjacency[parents, children] = 1
    x = torch.randn(2, 16, 8, _HAND)
    torch.einsum("nctv,vw->nctw", x, adjacency)


def _degree_normalisation_negative_integer_power() -> None:
    adjacency = torch.eye(_HAND, dtype=torch.long)
    children, parents = torch.tensor(_HAND_EDGES).T
    adjacency[children, parents] = 1
    degree = adjacency.sum(0)
    inverse_degree = torch.diag(degree ** -1)  # normalize_digraph's Dn = Dl ** (-1), ported to torch
    adjacency @ inverse_degree


def _hop_distance_inf_int64() -> None:
    hop_distance = torch.full((_BODY25, _BODY25), float("inf"), dtype=torch.long)  # hops are counts, so long
    hop_distance.fill_diagonal_(0)


def _cslr_bf16_model_ctc_loss() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(150, 64), nn.GELU(), nn.Linear(64, _GLOSSES)).to(bf16)
    keypoints = torch.randn(2, 24, 150, dtype=bf16)
    log_probs = model(keypoints).log_softmax(-1).transpose(0, 1)
    glosses = torch.tensor([[5, 12, 7], [3, 9, 0]], dtype=torch.int32)
    input_lengths = torch.tensor([24, 20], dtype=torch.int32)
    target_lengths = torch.tensor([3, 2], dtype=torch.int32)
    F.ctc_loss(log_probs, glosses, input_lengths, target_lengths, blank=0)


def _ctc_input_lengths_int32_divided_in_place() -> None:
    _seeded()
    frame_lengths = torch.from_numpy(np.array([64, 52], dtype=np.int32))  # from the collate's np.int32 array
    log_probs = torch.randn(16, 2, _GLOSSES).log_softmax(-1)  # after two stride-2 temporal pools
    feature_lengths = frame_lengths.clone()
    feature_lengths /= 4
    F.ctc_loss(log_probs, torch.tensor([[5, 12, 7], [3, 9, 0]]), feature_lengths, torch.tensor([3, 2]))


def _sampled_frame_indices_int32_take_along_dim() -> None:
    _seeded()
    features = torch.randn(2, 40, 32)
    lengths = np.array([40, 31])
    indices = np.stack([np.linspace(0, n - 1, 16).astype(np.int32) for n in lengths])  # uniform frame sampling
    torch.take_along_dim(features, torch.from_numpy(indices)[..., None], dim=1)


def _handshape_ids_uint8_embedding() -> None:
    _seeded()
    handshapes = np.array([[3, 3, 17, 17, 41], [8, 8, 8, 22, 22]], dtype=np.uint8)  # annotation ids fit in a byte
    embed = nn.Embedding(61, 16)
    embed(torch.from_numpy(handshapes))


def _uint8_frames_normalised_in_place() -> None:
    frames = torch.zeros(8, 32, 32, 3, dtype=torch.uint8)  # decoded RGB frames (T, H, W, C)
    clip = frames.permute(0, 3, 1, 2)
    mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None] * 255
    std = torch.tensor([0.229, 0.224, 0.225])[:, None, None] * 255
    clip.sub_(mean).div_(std)


def _openpose_visibility_uint8_masked_fill() -> None:
    _seeded()
    keypoints = torch.randn(16, _BODY25, 2)
    visibility = torch.from_numpy(np.ones((16, _BODY25), dtype=np.uint8))  # OpenPose confidence > 0 saved as 0/1
    visibility[:, 11:] = 0  # legs never in frame
    hidden = 1 - visibility
    keypoints.masked_fill(hidden[..., None], 0.0)


def _padding_mask_bool_avg_pool() -> None:
    lengths = torch.tensor([32, 20])
    padding = torch.arange(32)[None, :] >= lengths[:, None]
    F.avg_pool1d(padding[:, None], kernel_size=2, stride=2)  # the mask after a stride-2 temporal conv


def _phonology_attributes_bool_bce() -> None:
    _seeded()
    logits = torch.randn(4, 6)  # two-handed, symmetric, repeated, contact, ...
    attributes = torch.rand(4, 6) > 0.5  # ASL-LEX style attribute flags
    F.binary_cross_entropy_with_logits(logits, attributes)


def _hand_crop_grid_sample_uint8() -> None:
    _seeded()
    frames = torch.zeros(2, 3, 64, 64, dtype=torch.uint8)
    wrist = torch.tensor([[0.1, -0.2], [0.3, 0.0]])  # wrist landmark in [-1, 1]
    theta = torch.zeros(2, 2, 3)
    theta[:, 0, 0] = theta[:, 1, 1] = 0.25
    theta[:, :, 2] = wrist
    grid = F.affine_grid(theta, [2, 3, 32, 32], align_corners=False)
    F.grid_sample(frames, grid, align_corners=False)


def _kinect_depth_uint16_clamp() -> None:
    depth = torch.from_numpy(np.full((4, 48, 64), 1200, dtype=np.uint16))  # RGB-D sign recordings, millimetres
    depth.clamp(500, 2500)


def _mediapipe_missing_hands_object_column() -> None:
    rng = np.random.default_rng(0)
    right_hand = pd.Series([rng.random((_HAND, 3)), None, rng.random((_HAND, 3))])  # None: no hand detected
    torch.tensor(right_hand.to_numpy())


def _sign_production_bf16_pose_to_numpy() -> None:
    _seeded()
    decoder = nn.Linear(32, 50 * 2).to(bf16)
    poses = decoder(torch.randn(10, 32, dtype=bf16)).view(10, 50, 2)
    poses[0].detach().numpy()  # for cv2.line drawing of the skeleton


def _rotation_augmentation_numpy_bmm() -> None:
    _seeded()
    keypoints = torch.randn(4, 16 * _BODY25, 2)
    angles = np.random.default_rng(0).uniform(-np.pi / 12, np.pi / 12, size=4)
    rotations = np.stack([[[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]] for a in angles])
    torch.bmm(keypoints, torch.from_numpy(rotations).transpose(1, 2))


def _missing_frames_lerp_numpy_weights() -> None:
    _seeded()
    before, after = torch.randn(_HAND, 3), torch.randn(_HAND, 3)  # last and next frames with a detected hand
    gap = 5
    weights = torch.from_numpy(np.linspace(0, 1, gap + 2)[1:-1])[:, None, None]
    torch.lerp(before[None], after[None], weights)


def _detected_frames_index_put_numpy() -> None:
    rng = np.random.default_rng(0)
    sequence = torch.zeros(12, _HAND, 3)
    detected = torch.tensor([True, True, False, True] * 3)
    hands = np.stack([rng.random((_HAND, 3)) for _ in range(int(detected.sum()))])
    sequence[detected] = torch.from_numpy(hands)


def _hand_orientation_pca_eigh_bf16() -> None:
    _seeded()
    landmarks = torch.randn(8, _HAND, 3, dtype=bf16)  # inside the bf16 model's forward
    centred = landmarks - landmarks.mean(1, keepdim=True)
    covariance = centred.transpose(1, 2) @ centred / _HAND
    torch.linalg.eigh(covariance)


def _distance_edge_weights_fp16_sentinel() -> None:
    _seeded()
    joints = torch.randn(2, _HAND, 3, dtype=f16)
    distance = (joints[:, :, None] - joints[:, None]).norm(dim=-1)
    connected = torch.from_numpy(_numpy_hand_adjacency() > 0)
    distance = distance.masked_fill(~connected, 1e9)  # unconnected joints "infinitely" far
    torch.exp(-distance)


def _sign_to_text_bf16_decoder_fp32_memory() -> None:
    _seeded()
    visual_encoder = nn.Sequential(nn.Linear(150, 32), nn.ReLU())  # pose encoder kept in fp32
    layer = nn.TransformerDecoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    text_decoder = nn.TransformerDecoder(layer, 2).to(bf16)
    memory = visual_encoder(torch.randn(2, 24, 150))
    words = torch.randn(2, 7, 32, dtype=bf16)
    text_decoder(words, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(7, dtype=bf16))


def _temporal_conv_added_after_cast() -> None:
    _seeded()
    gcn = nn.Conv2d(3, 64, 1).to(bf16)
    tcn = nn.Sequential(nn.Conv2d(64, 64, (9, 1), padding=(4, 0), bias=False), nn.BatchNorm2d(64))  # added later
    tcn(gcn(torch.randn(2, 3, 16, _BODY25, dtype=bf16)))


def _local_attention_numpy_bias_sdpa() -> None:
    _seeded()
    frames = 16
    offsets = np.subtract.outer(np.arange(frames), np.arange(frames))
    local_bias = torch.from_numpy(-(offsets ** 2) / (2 * 3.0 ** 2))  # Gaussian locality prior over frames
    q = k = v = torch.randn(2, 4, frames, 8, dtype=bf16)
    F.scaled_dot_product_attention(q, k, v, attn_mask=local_bias)


def _first_hand_frame_argmax_bool() -> None:
    _seeded()
    hand_present = torch.rand(3, 30) > 0.6
    hand_present.argmax(dim=1)  # first frame where the signer's hand appears, for trimming


def _half_cslr_grad_scaler() -> None:
    _seeded()
    model = nn.Sequential(nn.Linear(150, 64), nn.ReLU(), nn.Linear(64, _GLOSSES)).half()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    logits = model(torch.randn(4, 150, dtype=f16))
    loss = F.cross_entropy(logits.float(), torch.tensor([1, 5, 9, 2]))
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _missing_hand_normalisation_nan_clip() -> None:
    _seeded()
    landmarks = torch.rand(4, _HAND, 3)
    landmarks[2] = 0.0  # MediaPipe found no hand in this frame: all zeros
    relative = landmarks - landmarks[:, :1]
    scale = relative.norm(dim=-1).amax(dim=1)
    normalised = relative / scale[:, None, None]
    classifier = nn.Linear(_HAND * 3, 10)
    F.cross_entropy(classifier(normalised.flatten(1)), torch.tensor([1, 2, 3, 4])).backward()
    nn.utils.clip_grad_norm_(classifier.parameters(), 1.0, error_if_nonfinite=True)


CASES: dict[str, LiveCase] = {
    # ST-GCN's data_bn given the np.load'ed OpenPose skeleton array (float64) as it is
    "openpose-f64-skeleton-stgcn-data-bn": case(_openpose_skeleton_into_data_bn, "norm_param_dtype",
        grade="correct", grade_at_freeze="correct"),
    # MediaPipe holistic landmarks stacked with numpy (float64) into an fp32 GRU encoder
    "mediapipe-f64-landmarks-gru": case(_mediapipe_holistic_landmarks_into_gru, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a hand graph's D^-1/2 A D^-1/2 computed in numpy and registered with torch.from_numpy (float64 buffer)
    "hand-gcn-numpy-normalised-adjacency-buffer": case(_numpy_normalised_adjacency_buffer_einsum, "matmul_dtype",
                                                       "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # ST-GCN cast to bf16: its partition adjacency kept as a plain attribute (fp32) times bf16 edge importance
    "stgcn-bf16-fp32-partition-attribute": case(_bf16_stgcn_fp32_partition_attribute, "matmul_dtype", "f32",
                                                "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a 0/1 hand adjacency built as int64 and einsum'd with fp32 joint features
    "hand-adjacency-int64-einsum": case(_binary_adjacency_int64_einsum, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # normalize_digraph ported to torch: the int64 degree raised to the power -1
    "degree-normalisation-int-negative-power": case(_degree_normalisation_negative_integer_power,
                                                    "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # get_hop_distance ported to torch: hop counts as int64 initialised to inf
    "hop-distance-inf-int64": case(_hop_distance_inf_int64, "half_overflow", "int64",
        grade="correct", grade_at_freeze="correct"),
    # continuous sign recognition model cast to bf16 end to end, its log-probs into ctc_loss
    "cslr-bf16-log-probs-ctc": case(_cslr_bf16_model_ctc_loss, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # CTC input lengths (int32 from the collate) divided in place by the temporal stride
    "ctc-int32-lengths-divided-in-place": case(_ctc_input_lengths_int32_divided_in_place, "result_cast", "f32",
                                               "int32",
        grade="correct", grade_at_freeze="correct"),
    # uniformly sampled frame indices made int32 by numpy, gathered with take_along_dim
    "frame-indices-int32-take-along-dim": case(_sampled_frame_indices_int32_take_along_dim, "index_tensor_dtype",
                                               "int32",
        grade="correct", grade_at_freeze="correct"),
    # handshape annotation ids stored as uint8 looked up in an Embedding
    "handshape-ids-uint8-embedding": case(_handshape_ids_uint8_embedding, "index_tensor_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # decoded uint8 RGB frames normalised in place with ImageNet mean/std
    "uint8-frames-normalised-in-place": case(_uint8_frames_normalised_in_place, "result_cast", "f32", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # OpenPose visibility saved as uint8 0/1, its complement used as masked_fill's mask
    "openpose-visibility-uint8-masked-fill": case(_openpose_visibility_uint8_masked_fill, "mask_dtype", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # a bool temporal padding mask downsampled with avg_pool1d after a stride-2 conv
    "padding-mask-bool-avg-pool": case(_padding_mask_bool_avg_pool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # multi-label phonological attributes as bool targets of BCE with logits
    "phonology-attributes-bool-bce": case(_phonology_attributes_bool_bce, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # hand crops by affine_grid around the wrist, grid_sample'd from the uint8 frames
    "hand-crop-grid-sample-uint8": case(_hand_crop_grid_sample_uint8, "integer_operand", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # Kinect depth frames (uint16 millimetres) clamped to the signing range
    "kinect-depth-uint16-clamp": case(_kinect_depth_uint16_clamp, "no_kernel", "uint16",
        grade="correct", grade_at_freeze="correct"),
    # a pandas column of hand landmarks with None for frames without a hand, given to torch.tensor
    "mediapipe-missing-hands-object-column": case(_mediapipe_missing_hands_object_column, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # sign language production: a bf16 decoder's generated pose to numpy for drawing
    "sign-production-bf16-pose-numpy": case(_sign_production_bf16_pose_to_numpy, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # rotation augmentation with per-sample matrices built in numpy (float64), applied with bmm
    "rotation-augmentation-numpy-bmm": case(_rotation_augmentation_numpy_bmm, "batched_matmul_dtype", "f64",
                                            "f32",
        grade="correct", grade_at_freeze="correct"),
    # missing hand frames filled by lerp with np.linspace (float64) weights
    "missing-frames-lerp-numpy-weights": case(_missing_frames_lerp_numpy_weights, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # detected hands (float64 from numpy) written into an fp32 sequence buffer by a bool frame mask
    "detected-frames-index-put-numpy": case(_detected_frames_index_put_numpy, "indexed_write_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # hand orientation normalisation by PCA (eigh) of the landmark covariance in the bf16 model
    "hand-orientation-pca-eigh-bf16": case(_hand_orientation_pca_eigh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 distance-based edge weights with unconnected joints filled with 1e9
    "distance-edge-weights-f16-1e9": case(_distance_edge_weights_fp16_sentinel, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # sign-to-text: bf16 transformer decoder cross-attending to the fp32 pose encoder's memory
    "sign-to-text-bf16-decoder-fp32-memory": case(_sign_to_text_bf16_decoder_fp32_memory, "matmul_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a temporal conv block added after the graph conv was cast to bf16
    "tcn-added-after-bf16-cast": case(_temporal_conv_added_after_cast, "conv_weight_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a Gaussian local-attention bias over frames built in numpy (float64) as SDPA's mask for bf16 q/k/v
    "local-attention-numpy-bias-sdpa": case(_local_attention_numpy_bias_sdpa, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # the first frame with a detected hand found by argmax of the bool presence mask
    "first-hand-frame-argmax-bool": case(_first_hand_frame_argmax_bool, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # an isolated-sign classifier halved with .half() and trained with GradScaler on the CPU
    "half-sign-classifier-grad-scaler": case(_half_cslr_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # wrist-relative landmarks divided by a zero hand scale for a frame without a hand, clip_grad_norm_ refuses NaN
    "missing-hand-zero-scale-nan-clip": case(_missing_hand_normalisation_nan_clip, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
}
