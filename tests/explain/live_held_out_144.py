"""Held-out live set 144: cryptocurrency and market-microstructure modelling written by hand in low precision
(order-book snapshots from pandas with float64 prices and int64 sizes, nanosecond int64 exchange timestamps, bool
trade-direction flags, fp16 log returns, bf16 temporal convolutions and transformers over book events, Sharpe-ratio
losses, Kyle's lambda and eigenportfolios). Defects planted by a helper who never read the rules, written before
castwise ran and graded once with the rules frozen at b19dbc97."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "b19dbc97"

bf16, f16 = torch.bfloat16, torch.float16
_LEVELS = 10  # depth of the order-book snapshot on each side
_D = 32  # model width
_HEADS = 4


def _seeded() -> None:
    torch.manual_seed(0)


def _trades() -> pd.DataFrame:
    """A Binance-style aggTrades frame: ns timestamps, float64 prices, int64 sizes in satoshis, the maker flag."""
    ts = np.array([1_717_200_000_000_000_000 + k * 37_000_000 + (k % 3) * 1_000 for k in range(12)], dtype=np.int64)
    return pd.DataFrame({
        "ts": ts,
        "price": 67_250.0 + np.array([0.0, 0.5, 0.5, 1.0, 0.5, 0.0, -0.5, -0.5, 0.0, 1.5, 2.0, 1.5]),
        "size_sats": np.array([150_000, 2_000_000, 40_000, 900_000, 30_000, 10_000_000, 60_000, 75_000, 310_000,
                               1_200_000, 5_000, 88_000], dtype=np.int64),
        "is_buyer_maker": np.array([True, False, False, True, True, False, True, False, False, False, True, False]),
    })


def _book(rows: int = 8) -> pd.DataFrame:
    """Top-of-book-to-depth-10 snapshots as pandas gives them: float64 prices, int64 sizes."""
    rng = np.random.default_rng(0)
    mid = 67_250.0 + np.cumsum(rng.normal(0.0, 0.5, rows))
    data = {}
    for level in range(_LEVELS):
        data[f"bid_px_{level}"] = mid - 0.5 - 0.5 * level
        data[f"ask_px_{level}"] = mid + 0.5 + 0.5 * level
        data[f"bid_sz_{level}"] = rng.integers(1_000, 5_000_000, rows)
        data[f"ask_sz_{level}"] = rng.integers(1_000, 5_000_000, rows)
    return pd.DataFrame(data)


# --- trades: flags, timestamps, sizes --------------------------------------------------------------------------------


def _taker_sell_mask_by_negation() -> None:
    trades = _trades()
    is_taker_buy = torch.from_numpy(~trades["is_buyer_maker"].to_numpy())
    is_taker_sell = -is_taker_buy  # "flip the mask"
    sizes = torch.from_numpy(trades["size_sats"].to_numpy())
    sizes[is_taker_sell].sum()


def _buy_ratio_as_mean_of_bool_flags() -> None:
    trades = _trades()
    is_taker_buy = torch.from_numpy(~trades["is_buyer_maker"].to_numpy())
    windows = is_taker_buy.unfold(0, 4, 4)
    windows.mean(dim=1)  # fraction of taker buys per 4-trade window


def _inter_arrival_ns_into_time_encoder() -> None:
    _seeded()
    trades = _trades()
    ts = torch.from_numpy(trades["ts"].to_numpy())
    gaps_ns = torch.diff(ts, prepend=ts[:1])
    sizes = torch.from_numpy(trades["size_sats"].to_numpy())
    time_encoder = nn.Linear(2, 16)
    time_encoder(torch.stack([gaps_ns, sizes], dim=-1))


def _aggressor_bool_target_bce_logits() -> None:
    _seeded()
    trades = _trades()
    next_is_buy = torch.from_numpy(~trades["is_buyer_maker"].to_numpy())[1:]
    features = torch.randn(11, 8)
    head = nn.Linear(8, 1)
    F.binary_cross_entropy_with_logits(head(features).squeeze(-1), next_is_buy)


def _trade_size_histc_int64() -> None:
    trades = _trades()
    sizes = torch.from_numpy(trades["size_sats"].to_numpy())
    torch.histc(sizes, bins=20, min=0, max=10_000_000)  # trade-size distribution for the volume clock


def _uint64_quantities_subtracted() -> None:
    # the feed handler decodes quantities as unsigned 64-bit base units
    bid_qty = np.array([5_000_000, 1_200_000, 700_000], dtype=np.uint64)
    ask_qty = np.array([3_000_000, 1_900_000, 400_000], dtype=np.uint64)
    bid, ask = torch.from_numpy(bid_qty), torch.from_numpy(ask_qty)
    imbalance = (bid - ask) / (bid + ask)
    imbalance.float()


def _satoshi_sizes_into_int32() -> None:
    block_sizes_btc = [1500.0, 0.25, 42.0]  # a 1,500 BTC block trade from the OTC desk
    torch.tensor([int(btc * 100_000_000) for btc in block_sizes_btc], dtype=torch.int32)


def _datetime64_ts_column_from_numpy() -> None:
    frame = pd.DataFrame({"ts": pd.to_datetime(_trades()["ts"], unit="ns"), "price": _trades()["price"]})
    torch.from_numpy(frame["ts"].to_numpy())  # datetime64[ns] column straight into torch


# --- order book: levels, depth, labels -------------------------------------------------------------------------------


def _queue_level_float_gather() -> None:
    book = _book()
    bid_px = torch.from_numpy(book[[f"bid_px_{k}" for k in range(_LEVELS)]].to_numpy())
    bid_sz = torch.from_numpy(book[[f"bid_sz_{k}" for k in range(_LEVELS)]].to_numpy())
    order_price = bid_px[:, :1] - 1.5  # our resting bid, 1.5 below best
    level = ((bid_px[:, :1] - order_price) / 0.5).round()  # tick size 0.5
    torch.gather(bid_sz, 1, level)  # size queued ahead of us at that level


def _depth_share_normalised_in_place() -> None:
    book = _book()
    depth = torch.from_numpy(book[[f"bid_sz_{k}" for k in range(_LEVELS)]].to_numpy())
    depth /= depth.sum(dim=1, keepdim=True)  # share of the visible bid depth at each level


def _halted_flag_int64_where() -> None:
    status = pd.DataFrame({"mid": [67_250.5, 3_410.2, 0.52, 148.9], "halted": [0, 1, 0, 0]})
    mid = torch.from_numpy(status["mid"].to_numpy())
    halted = torch.from_numpy(status["halted"].to_numpy())
    torch.where(halted, torch.tensor(float("nan"), dtype=torch.float64), mid)


def _mid_move_labels_int32_cross_entropy() -> None:
    _seeded()
    mid = _book().pipe(lambda b: (b["bid_px_0"] + b["ask_px_0"]) / 2).to_numpy()
    labels = (np.sign(np.diff(mid)) + 1).astype(np.int32)  # 0 down, 1 flat, 2 up
    logits = torch.randn(len(labels), 3, requires_grad=True)
    F.cross_entropy(logits, torch.from_numpy(labels))


def _venue_category_codes_embedding() -> None:
    _seeded()
    venues = pd.Series(["binance", "okx", "binance", "bybit", "coinbase", "okx"], dtype="category")
    venue_ids = torch.from_numpy(venues.cat.codes.to_numpy())  # pandas picks int8 codes
    nn.Embedding(8, _D)(venue_ids)


def _packed_trade_flags_rshift_f16() -> None:
    # flags packed by the exchange as bits (1: taker buy, 2: liquidation, 4: block), loaded into the fp16 feature tensor
    features = torch.tensor([[1.0, 67_250.0 / 1e5], [6.0, 67_250.5 / 1e5], [0.0, 67_251.0 / 1e5]], dtype=f16)
    packed = features[:, 0]
    (packed >> 1) & 1  # liquidation bit


def _price_forward_fill_masked_fill_f16() -> None:
    prices = torch.tensor([0.6725, 0.0, 0.0, 0.67251], dtype=f16) * 1e5  # stored fp16 for the cache
    missing = prices == 0
    prices.masked_fill(missing, 67_250.0)  # forward-fill gaps with the last traded BTC price


# --- models: MLP, TCN, transformer, GRU ------------------------------------------------------------------------------


def _microprice_features_into_bf16_head() -> None:
    _seeded()
    book = _book()
    bid, ask = book["bid_px_0"], book["ask_px_0"]
    bsz, asz = book["bid_sz_0"], book["ask_sz_0"]
    microprice = (bid * asz + ask * bsz) / (bsz + asz)
    features = pd.DataFrame({
        "micro_minus_mid": microprice - (bid + ask) / 2,
        "spread": ask - bid,
        "imbalance": (bsz - asz) / (bsz + asz),
        "log_depth": np.log(bsz + asz),
    })
    head = nn.Sequential(nn.Linear(4, 16), nn.GELU(), nn.Linear(16, 1)).to(bf16)
    head(torch.from_numpy(features.to_numpy()))


def _log_returns_f16_into_tcn() -> None:
    _seeded()
    prices = torch.from_numpy(_book(64)["bid_px_0"].to_numpy())
    log_returns = torch.diff(torch.log(prices)).to(f16)  # cached in fp16 to halve the feature store
    tcn = nn.Conv1d(1, 16, kernel_size=3, dilation=2)
    tcn(F.pad(log_returns[None, None] * 1e4, (4, 0)))


def _tcn_weight_only_cast_to_bf16() -> None:
    _seeded()
    block = nn.Conv1d(2 * _LEVELS, _D, kernel_size=2, dilation=4)
    block.weight.data = block.weight.data.to(bf16)  # "compress the weights"; bias forgotten
    x = torch.randn(4, 2 * _LEVELS, 64, dtype=bf16)
    block(F.pad(x, (4, 0)))


def _lob_transformer_bf16_fp32_embeddings() -> None:
    _seeded()
    layer = nn.TransformerEncoderLayer(_D, _HEADS, 4 * _D, dropout=0.1, batch_first=True).to(bf16)
    level_embed = nn.Linear(4, _D)  # built after model.to(bf16), so it stayed fp32
    book_events = torch.randn(2, 20, 4)
    layer(level_embed(book_events))


def _event_attention_fp32_causal_mask() -> None:
    _seeded()
    attn = nn.MultiheadAttention(_D, _HEADS, batch_first=True).to(bf16)
    events = torch.randn(2, 16, _D, dtype=bf16)
    causal = torch.triu(torch.full((16, 16), float("-inf")), diagonal=1)
    attn(events, events, events, attn_mask=causal)


def _sdpa_with_fp32_cached_keys() -> None:
    _seeded()
    q = torch.randn(1, _HEADS, 1, 8, dtype=bf16)  # the newest book update
    cached_k = torch.randn(1, _HEADS, 64, 8)  # key cache allocated with torch.zeros: fp32
    cached_v = torch.randn(1, _HEADS, 64, 8, dtype=bf16)
    F.scaled_dot_product_attention(q, cached_k, cached_v)


def _input_layernorm_bf16_fp32_book() -> None:
    _seeded()
    book = _book()
    prices = torch.tensor(book[[f"bid_px_{k}" for k in range(_LEVELS)]].to_numpy(), dtype=torch.float32)
    normaliser = nn.LayerNorm(_LEVELS).to(bf16)  # the whole model was cast, inputs were not
    normaliser(prices - prices[:, :1])


def _gru_order_flow_pandas_float64() -> None:
    _seeded()
    trades = _trades()
    sign = np.where(trades["is_buyer_maker"], -1.0, 1.0)
    flow = pd.DataFrame({
        "signed_size": sign * trades["size_sats"] / 1e8,
        "log_ret": np.log(trades["price"]).diff().fillna(0.0),
        "gap_ms": trades["ts"].diff().fillna(0).to_numpy() / 1e6,
    })
    gru = nn.GRU(3, 16, batch_first=True)
    gru(torch.from_numpy(flow.to_numpy())[None])


def _cross_venue_bmm_fp32_values() -> None:
    _seeded()
    scores = torch.randn(2, 5, 5, dtype=bf16)  # 5 venues attending to each other
    venue_states = torch.randn(2, 5, _D)  # mid-price states from the fp32 venue encoder
    torch.bmm(scores.softmax(-1), venue_states)


def _prediction_buffer_index_put_bf16() -> None:
    _seeded()
    model = nn.Linear(8, 1).to(bf16)
    preds = torch.zeros(100)  # backtest buffer, one slot per bar
    bar_idx = torch.arange(40, 48)
    preds[bar_idx] = model(torch.randn(8, 8, dtype=bf16)).squeeze(-1)


def _fp8_key_cache_dequantised() -> None:
    _seeded()
    keys = torch.randn(64, _D)
    scale = keys.abs().amax(dim=-1, keepdim=True) / 448.0
    cache = (keys / scale).to(torch.float8_e4m3fn)  # fp8 key cache of past book events
    cache * scale


# --- numerics: Kyle's lambda, eigenportfolios, Sharpe loss, gradients ------------------------------------------------


def _kyle_lambda_lstsq_bf16() -> None:
    _seeded()
    signed_flow = torch.randn(200, 1, dtype=bf16)  # from the bf16 feature pipeline
    price_changes = (0.03 * signed_flow + 0.01 * torch.randn(200, 1)).to(bf16)
    design = torch.cat([signed_flow, torch.ones_like(signed_flow)], 1)
    kyle_lambda, _intercept = torch.linalg.lstsq(design, price_changes).solution


def _eigenportfolios_eigh_bf16() -> None:
    _seeded()
    coin_returns = torch.randn(240, 12, dtype=bf16) * 0.01  # hourly returns of 12 coins from the bf16 model
    cov = torch.cov(coin_returns.T)
    torch.linalg.eigh(cov)


def _sharpe_loss_on_flat_window() -> None:
    _seeded()
    logits = torch.randn(3, requires_grad=True)
    returns = torch.zeros(30, 3)  # a halted stretch: every coin's price unchanged
    with torch.autograd.detect_anomaly():
        portfolio = (returns * logits.softmax(0)).sum(1)
        sharpe = portfolio.mean() / portfolio.std() * (365 * 24) ** 0.5
        (-sharpe).backward()


def _grad_accumulated_from_bf16_replica() -> None:
    _seeded()
    master = nn.Linear(8, 1)
    replica = nn.Linear(8, 1).to(bf16)  # bf16 copy used for the forward pass
    replica.load_state_dict({k: v.to(bf16) for k, v in master.state_dict().items()})
    (replica(torch.randn(16, 8, dtype=bf16)) ** 2).mean().backward()
    for p_master, p_replica in zip(master.parameters(), replica.parameters(), strict=True):
        p_master.grad = p_replica.grad


CASES: dict[str, LiveCase] = {
    # taker-sell mask made by `-` on the bool taker-buy flags from the aggTrades is_buyer_maker column
    "taker-sell-mask-bool-negation": case(_taker_sell_mask_by_negation, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # fraction of taker buys per window as the mean of bool trade-direction flags
    "buy-ratio-mean-of-bool-flags": case(_buy_ratio_as_mean_of_bool_flags, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # int64 nanosecond inter-arrival gaps and satoshi sizes fed to an fp32 time-encoder Linear
    "inter-arrival-ns-int64-time-encoder": case(_inter_arrival_ns_into_time_encoder, "integer_operand", "int64",
                                                "f32",
        grade="correct", grade_at_freeze="correct"),
    # next-trade direction target left bool for binary_cross_entropy_with_logits
    "aggressor-bool-target-bce-logits": case(_aggressor_bool_target_bce_logits, "target_dtype", "bool",
                                             fix=("float",),
        grade="correct", grade_at_freeze="correct"),
    # trade-size histogram with torch.histc of int64 satoshi sizes
    "trade-size-histc-int64-sats": case(_trade_size_histc_int64, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # book imbalance from uint64 quantities decoded by the feed handler, subtracted in torch
    "uint64-quantities-imbalance-subtract": case(_uint64_quantities_subtracted, "no_kernel", "uint64",
        grade="correct", grade_at_freeze="correct"),
    # block-trade sizes in satoshis (1,500 BTC) packed into int32
    "block-trade-satoshis-int32-overflow": case(_satoshi_sizes_into_int32, "half_overflow", "int32",
                                                fix=("int64",),
        grade="correct", grade_at_freeze="partly",
        why=("At freeze (b19dbc97) castwise gave half_overflow [int32] (high confidence): the kind and dtype right, "
             "but its fix offers clamping to torch.iinfo(torch.int32).max or \"a wider dtype\" without naming int64; "
             "clamping would silently cut a 1,500 BTC block to about 21 BTC, and satoshi sizes need int64")),
    # a pandas datetime64[ns] timestamp column given to torch.from_numpy
    "trade-ts-datetime64-from-numpy": case(_datetime64_ts_column_from_numpy, "numpy_dtype", fix=("int64",),
        grade="correct", grade_at_freeze="correct"),
    # queue position: float64 level index (price distance / tick, rounded) used in torch.gather over book sizes
    "queue-level-f64-gather-book-sizes": case(_queue_level_float_gather, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # int64 bid depth normalised to level shares in place with /=
    "depth-share-int64-inplace-div": case(_depth_share_normalised_in_place, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a 0/1 int64 halted column from pandas used as torch.where's condition
    "halted-flag-int64-where-condition": case(_halted_flag_int64_where, "mask_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # down/flat/up mid-move labels from np.sign(...).astype(np.int32) into cross_entropy
    "mid-move-labels-int32-cross-entropy": case(_mid_move_labels_int32_cross_entropy, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # venue ids from pandas category codes (int8) looked up in nn.Embedding
    "venue-category-codes-int8-embedding": case(_venue_category_codes_embedding, "index_tensor_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # exchange bit flags held in the fp16 feature tensor, unpacked with >> and &
    "packed-trade-flags-fp16-rshift": case(_packed_trade_flags_rshift_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # gaps in an fp16 BTC price cache forward-filled with masked_fill(67250)
    "btc-price-fp16-masked-fill-67250": case(_price_forward_fill_masked_fill_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # float64 microprice/spread/imbalance features from pandas into a bf16 MLP head
    "microprice-features-f64-bf16-head": case(_microprice_features_into_bf16_head, "matmul_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # fp16-cached log returns into an fp32 dilated causal Conv1d (with bias)
    "log-returns-f16-fp32-causal-tcn": case(_log_returns_f16_into_tcn, "conv_weight_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a TCN block whose weight alone was cast to bf16 (bias left fp32) fed bf16 book features
    "tcn-weight-only-bf16-bias-fp32": case(_tcn_weight_only_cast_to_bf16, "conv_bias_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 TransformerEncoderLayer fed the output of an fp32 level embedding added after the cast
    "lob-encoder-bf16-fp32-level-embedding": case(_lob_transformer_bf16_fp32_embeddings, "matmul_dtype", "f32",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 MultiheadAttention over book events given an fp32 -inf causal mask
    "book-event-mha-fp32-causal-mask": case(_event_attention_fp32_causal_mask, "attn_mask_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # streaming inference: bf16 query against an fp32 key cache in scaled_dot_product_attention
    "streaming-sdpa-fp32-key-cache": case(_sdpa_with_fp32_cached_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an input LayerNorm cast to bf16 with the model, fed fp32 relative bid prices
    "input-layernorm-bf16-fp32-bid-ladder": case(_input_layernorm_bf16_fp32_book, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # float64 order-flow features (signed size, log return, gap) from pandas into an fp32 GRU
    "order-flow-gru-pandas-f64": case(_gru_order_flow_pandas_float64, "rnn_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # cross-venue attention: bf16 softmax scores bmm'd with fp32 venue states
    "cross-venue-bmm-fp32-states": case(_cross_venue_bmm_fp32_values, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 model predictions written into an fp32 backtest buffer by advanced indexing
    "backtest-buffer-index-put-bf16-preds": case(_prediction_buffer_index_put_bf16, "indexed_write_dtype", "f32",
                                                 "bf16",
        grade="correct", grade_at_freeze="correct"),
    # an fp8 (e4m3) key cache of past book events dequantised by multiplying with its fp32 scale
    "fp8-key-cache-times-fp32-scale": case(_fp8_key_cache_dequantised, "fp8_promotion", "float8_e4m3fn", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Kyle's lambda by torch.linalg.lstsq on bf16 signed flow and price changes
    "kyle-lambda-lstsq-bf16": case(_kyle_lambda_lstsq_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # eigenportfolios by torch.linalg.eigh of a bf16 coin-return covariance
    "eigenportfolios-eigh-bf16-cov": case(_eigenportfolios_eigh_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # Sharpe-ratio loss over a halted window (zero std) under detect_anomaly: NaN gradient
    "sharpe-loss-flat-window-nan-grad": case(_sharpe_loss_on_flat_window, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # fp32 master weights given the bf16 replica's gradients by .grad assignment
    "master-grad-from-bf16-replica": case(_grad_accumulated_from_bf16_replica, "loss_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
}
