"""Held-out live set 72: quantitative finance and trading models written by hand in low precision (limit-order-book
tensors with integer price levels and sizes, int64 nanosecond exchange timestamps, returns and log-returns arriving as
float64 from pandas/numpy, rolling-window features with unfold, portfolio weights with softmax and constraints,
Sharpe/Sortino and VaR/CVaR objectives, transaction costs and rebalancing, regime and tradability masks as bool, ticker
ids as embeddings, LSTM/Transformer forecasters under bf16/fp16 autocast). Defects planted by a helper who never read
the rules, written before castwise ran and graded once with the rules frozen at 8435631."""

from __future__ import annotations

import decimal

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "8435631"

bf16, f16 = torch.bfloat16, torch.float16
_ASSETS = 16  # a small cross-section; a real universe is 500 to 3000 names
_LEVELS = 10  # order-book depth per side
_OPEN_NS = 1_717_594_200_000_000_000  # 2024-06-05 09:30:00 America/New_York as UTC nanoseconds since the epoch


def _seeded() -> None:
    torch.manual_seed(0)


def _price_frame(days: int = 64, assets: int = _ASSETS) -> pd.DataFrame:
    """Daily close prices as a pandas DataFrame (float64), one column per ticker."""
    rng = np.random.default_rng(0)
    log_paths = np.cumsum(rng.normal(0.0003, 0.01, size=(days, assets)), axis=0)
    tickers = [f"T{i:03d}" for i in range(assets)]
    return pd.DataFrame(100.0 * np.exp(log_paths), columns=tickers,
                        index=pd.bdate_range("2024-01-02", periods=days))


def _log_returns(days: int = 64, assets: int = _ASSETS) -> np.ndarray:
    prices = _price_frame(days, assets)
    return np.log(prices).diff().dropna().to_numpy()  # float64, days - 1 x assets


def _mid_ticks_unfold_moving_average() -> None:
    bid_ticks = torch.tensor([10012, 10013, 10013, 10011, 10014, 10015, 10015, 10016])  # best bid in ticks (int64)
    ask_ticks = bid_ticks + torch.tensor([1, 1, 2, 1, 1, 2, 1, 1])
    mid_x2 = bid_ticks + ask_ticks  # twice the mid, kept integer so that half ticks stay exact
    mid_x2.unfold(0, 4, 1).mean(-1)  # 4-event moving average of the mid


def _lob_int32_snapshot_into_mlp() -> None:
    _seeded()
    rng = np.random.default_rng(0)
    prices = 10_000 + np.arange(_LEVELS, dtype=np.int32)
    sizes = rng.integers(1, 5_000, size=(32, 2 * _LEVELS), dtype=np.int32)  # feed handler: int32 sizes per level
    book = np.concatenate([np.broadcast_to(prices, (32, _LEVELS)), sizes[:, :_LEVELS],
                           np.broadcast_to(prices + _LEVELS, (32, _LEVELS)), sizes[:, _LEVELS:]], axis=1)
    mlp = nn.Sequential(nn.Linear(4 * _LEVELS, 64), nn.ReLU(), nn.Linear(64, 3))  # down / flat / up
    mlp(torch.from_numpy(book))


def _net_exposure_bool_long_minus_short() -> None:
    _seeded()
    zscore = torch.randn(_ASSETS)  # cross-sectional z-score of a mean-reversion signal
    go_long = zscore < -1.0
    go_short = zscore > 1.0
    position = go_long - go_short  # +1 long, -1 short, 0 flat
    position.float().abs().sum()


def _direction_labels_bool_cross_entropy() -> None:
    _seeded()
    next_returns = torch.from_numpy(_log_returns()[1:, 0]).float()
    logits = nn.Linear(8, 2)(torch.randn(next_returns.numel(), 8))  # down / up
    labels = next_returns > 0
    F.cross_entropy(logits, labels)


def _meta_labels_int64_bce_logits() -> None:
    _seeded()
    rng = np.random.default_rng(1)
    primary_pnl = rng.normal(0.0, 1.0, size=128)  # PnL of the primary model's trades
    meta_labels = torch.from_numpy(np.where(primary_pnl > 0, 1, 0))  # take the trade or not (int64)
    meta_logits = nn.Linear(12, 1)(torch.randn(128, 12)).squeeze(-1)
    F.binary_cross_entropy_with_logits(meta_logits, meta_labels)


def _volume_profile_bincount_float_levels() -> None:
    rng = np.random.default_rng(2)
    trade_prices = np.round(rng.normal(187.30, 0.15, size=500), 2)  # trade prints from the tape (float64)
    trade_sizes = torch.from_numpy(rng.integers(1, 10, size=500) * 100.0)
    tick = 0.01
    levels = torch.from_numpy(np.round((trade_prices - trade_prices.min()) / tick))
    torch.bincount(levels, weights=trade_sizes)  # volume at price


def _ticker_ids_float64_from_merge() -> None:
    _seeded()
    trades = pd.DataFrame({"ticker": ["AAPL", "MSFT", "NVDA", "BRK.B", "AAPL"], "qty": [100, -50, 200, 10, -100]})
    universe = pd.DataFrame({"ticker": ["AAPL", "MSFT", "NVDA", "AMZN"], "ticker_id": [0, 1, 2, 3]})
    merged = trades.merge(universe, on="ticker", how="left")  # BRK.B is not in the universe: NaN makes float64
    ticker_ids = torch.from_numpy(merged["ticker_id"].fillna(0).to_numpy())
    nn.Embedding(len(universe), 16)(ticker_ids)


def _hawkes_decay_in_place_on_ns_gaps() -> None:
    event_ns = torch.tensor([0, 1_250_000, 1_900_000, 7_400_000, 7_450_000]) + _OPEN_NS  # trade arrivals (int64)
    beta_per_ns = 2.0e-6  # decay rate of the exciting kernel, 1 / 500 microseconds
    gaps = event_ns[-1] - event_ns[:-1]
    excitation = gaps.mul_(-beta_per_ns).exp_()  # reuses the gaps' storage
    excitation.sum()


def _minute_bars_float_index_scatter_add() -> None:
    rng = np.random.default_rng(3)
    event_ns = torch.from_numpy(np.sort(rng.integers(0, 390 * 60 * 10**9, size=1000))) + _OPEN_NS
    sizes = torch.from_numpy(rng.integers(1, 20, size=1000) * 100)
    minute = (event_ns - _OPEN_NS) // 60e9  # minute of the session
    torch.zeros(390).scatter_add_(0, minute, sizes.float())  # volume per one-minute bar


def _rank_scores_int64_softmax() -> None:
    _seeded()
    alpha = torch.randn(_ASSETS)  # the model's expected-return forecast per name
    ranks = alpha.argsort().argsort()  # cross-sectional rank, 0 = worst
    weights = torch.softmax(ranks - ranks.max(), dim=-1)  # rank-based long-only weights
    weights.sum()


def _sortino_integer_cents() -> None:
    rng = np.random.default_rng(4)
    daily_pnl_cents = torch.from_numpy(rng.integers(-250_000, 300_000, size=252))  # the backtester books int64 cents
    downside = daily_pnl_cents.clamp(max=0)
    downside_deviation = torch.linalg.vector_norm(downside) / daily_pnl_cents.numel() ** 0.5
    daily_pnl_cents.float().mean() / downside_deviation * 252**0.5


def _untradable_mask_fp32_min_in_bf16() -> None:
    _seeded()
    scorer = nn.Linear(8, 1).to(bf16)
    scores = scorer(torch.randn(_ASSETS, 8, dtype=bf16)).squeeze(-1)
    untradable = torch.zeros(_ASSETS, dtype=torch.bool)
    untradable[[3, 7]] = True  # hard-to-borrow and halted names
    weights = scores.masked_fill(untradable, torch.finfo(torch.float32).min).softmax(-1)
    weights.sum()


def _fp16_autocast_lookback_mask_1e9() -> None:
    _seeded()
    window, width = 20, 16
    qkv = nn.Linear(width, 3 * width)
    x = torch.randn(4, window, width)  # 20 days of per-asset features
    future = torch.triu(torch.ones(window, window, dtype=torch.bool), diagonal=1)
    with torch.autocast("cpu", dtype=f16):
        q, k, v = qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / width**0.5
        scores = scores.masked_fill(future, -1e9)
        (scores.softmax(-1) @ v).sum()


def _pandas_log_returns_into_bf16_lstm() -> None:
    _seeded()
    log_returns = _log_returns()  # float64 from np.log(prices).diff()
    windows = torch.from_numpy(log_returns[-20:].T.copy())[..., None]  # assets x 20 days x 1
    forecaster = nn.LSTM(1, 32, batch_first=True).to(bf16)
    forecaster(windows)


def _portfolio_variance_bf16_weights_f64_cov() -> None:
    _seeded()
    allocator = nn.Linear(32, _ASSETS).to(bf16)
    weights = torch.softmax(allocator(torch.randn(4, 32, dtype=bf16)), dim=-1)  # 4 candidate portfolios
    covariance = torch.from_numpy(np.cov(_log_returns(), rowvar=False) * 252)  # annualised, float64
    ((weights @ covariance) * weights).sum(-1)  # portfolio variance as a risk penalty


def _sharpe_einsum_fp32_weights_f64_returns() -> None:
    _seeded()
    returns = torch.tensor(_log_returns())  # days x assets, float64 like the DataFrame
    policy = nn.Linear(_ASSETS, _ASSETS)
    weights = torch.softmax(policy(torch.randn(returns.shape[0], _ASSETS)), dim=-1)
    portfolio = torch.einsum("ta,ta->t", weights, returns)
    -(portfolio.mean() / portfolio.std() * 252**0.5)  # negative annualised Sharpe as the loss


def _cross_asset_bmm_fp32_market_keys() -> None:
    _seeded()
    asset_queries = torch.randn(2, _ASSETS, 32, dtype=bf16)  # the bf16 asset encoder's output
    market_keys = torch.randn(2, 6, 32)  # index / rates / FX / vol state, encoded by a helper left in fp32
    torch.bmm(asset_queries, market_keys.transpose(1, 2)).softmax(-1)


def _forecaster_autocast_f64_decay_bias() -> None:
    _seeded()
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
    days = np.arange(20)
    decay_bias = torch.from_numpy(-0.05 * np.abs(np.subtract.outer(days, days)))  # recency bias from numpy (float64)
    with torch.autocast("cpu", dtype=bf16):
        layer(torch.randn(4, 20, 16), src_mask=decay_bias)


def _sector_exposure_index_add_autocast() -> None:
    _seeded()
    head = nn.Linear(8, 1)
    sector_ids = torch.arange(_ASSETS) % 4  # GICS sector of each name
    with torch.autocast("cpu", dtype=bf16):
        weights = torch.tanh(head(torch.randn(_ASSETS, 8))).squeeze(-1)  # long-short weights
    sector_exposure = torch.zeros(4).index_add_(0, sector_ids, weights)
    sector_exposure.abs().sum()  # sector-neutrality penalty


def _partial_rebalance_lerp_bf16_target() -> None:
    _seeded()
    holdings = torch.full((_ASSETS,), 1.0 / _ASSETS)  # current weights, fp32 in the portfolio state
    allocator = nn.Linear(8, 1).to(bf16)
    target = torch.softmax(allocator(torch.randn(_ASSETS, 8, dtype=bf16)).squeeze(-1), -1)
    trade_rate = 0.2  # move a fifth of the way to the target each day to save costs
    holdings.lerp_(target, trade_rate)


def _mean_variance_solve_fp32_cov_f64_mu() -> None:
    log_returns = _log_returns()
    sample = torch.from_numpy(log_returns).float()
    covariance = torch.cov(sample.T) + 1e-6 * torch.eye(_ASSETS)
    expected = torch.from_numpy(pd.DataFrame(log_returns).ewm(halflife=20).mean().iloc[-1].to_numpy())
    torch.linalg.solve(covariance, expected)  # unnormalised mean-variance weights


def _direction_probability_bce_bf16() -> None:
    _seeded()
    classifier = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 1)).to(bf16)
    prob_up = torch.sigmoid(classifier(torch.randn(64, 12, dtype=bf16))).squeeze(-1)
    went_up = (torch.randn(64) > 0).float()
    F.binary_cross_entropy(prob_up, went_up)


def _deeplob_bf16_conv_fp32_book() -> None:
    _seeded()
    conv = nn.Conv1d(4 * _LEVELS, 32, kernel_size=3, padding=1, bias=False).to(bf16)  # over time, levels as channels
    book = torch.randn(8, 100, 4 * _LEVELS)  # 100 events of z-scored prices and sizes (fp32 from the normaliser)
    conv(book.transpose(1, 2))


def _walk_forward_mean_gradient_from_numpy() -> None:
    _seeded()
    model = nn.Linear(8, 1)
    fold_grads = []
    for _ in range(3):  # one gradient per walk-forward fold, exported to numpy for averaging
        model.zero_grad()
        model(torch.randn(32, 8)).pow(2).mean().backward()
        fold_grads.append(model.weight.grad.numpy().astype(np.float64))
    model.weight.grad = torch.from_numpy(np.mean(fold_grads, axis=0))


def _fp16_lstm_forecaster_grad_scaler() -> None:
    _seeded()
    lstm = nn.LSTM(4, 16, batch_first=True).half()
    head = nn.Linear(16, 1).half()
    optimizer = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    out, _ = lstm(torch.randn(8, 20, 4, dtype=f16))
    loss = F.mse_loss(head(out[:, -1]).float().squeeze(-1), torch.randn(8) * 0.01)
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def _historical_var_quantile_bf16() -> None:
    _seeded()
    scenario_pnl = nn.Linear(_ASSETS, 1).to(bf16)(torch.randn(1000, _ASSETS, dtype=bf16)).squeeze(-1)
    value_at_risk = -torch.quantile(scenario_pnl, 0.01)  # 99% one-day VaR
    tail = scenario_pnl[scenario_pnl <= -value_at_risk]
    -tail.mean()  # CVaR


def _parametric_var_ndtri_f16() -> None:
    _seeded()
    sigma = torch.rand(_ASSETS, dtype=f16) * 0.03  # the fp16 volatility head's daily sigma
    alpha = torch.full_like(sigma, 0.01)
    z = torch.special.ndtri(alpha)
    -(z * sigma)  # per-name Gaussian 99% VaR


def _scenario_generator_bf16_mvn() -> None:
    _seeded()
    loadings = torch.randn(_ASSETS, 3, dtype=bf16) * 0.1  # factor loadings from the bf16 risk model
    covariance = loadings @ loadings.T + 1e-3 * torch.eye(_ASSETS, dtype=bf16)
    scenarios = torch.distributions.MultivariateNormal(torch.zeros(_ASSETS, dtype=bf16), covariance)
    scenarios.rsample((500,))


def _peer_lookup_cdist_bf16_ticker_embeddings() -> None:
    _seeded()
    ticker_embedding = nn.Embedding(_ASSETS, 32).to(bf16)
    vectors = ticker_embedding.weight
    torch.cdist(vectors, vectors).topk(5, largest=False)  # nearest peers for a peer-relative signal


def _decimal_prices_from_database() -> None:
    rows = [("AAPL", decimal.Decimal("189.98")), ("MSFT", decimal.Decimal("424.52")),
            ("NVDA", decimal.Decimal("1224.40"))]  # a NUMERIC(18, 4) column comes back as Decimal
    closes = np.array([price for _, price in rows])
    torch.from_numpy(closes)


CASES: dict[str, LiveCase] = {
    # a 4-event moving average of the int64 mid price (in ticks) as unfold(...).mean
    "mid-ticks-unfold-mean-int64": case(_mid_ticks_unfold_moving_average, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # an order-book snapshot of int32 price levels and sizes from the feed handler into an fp32 MLP
    "lob-int32-snapshot-linear": case(_lob_int32_snapshot_into_mlp, "integer_operand", "int32", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a net position signal as the bool long mask minus the bool short mask
    "net-exposure-bool-long-minus-short": case(_net_exposure_bool_long_minus_short, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # up/down direction labels left as the bool `returns > 0` for cross_entropy
    "direction-labels-bool-cross-entropy": case(_direction_labels_bool_cross_entropy, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # meta-labelling with int64 labels from np.where into binary_cross_entropy_with_logits
    "meta-labels-int64-bce-logits": case(_meta_labels_int64_bce_logits, "target_dtype", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a volume-at-price profile from bincount of float64 price levels (price - low) / tick
    "volume-profile-bincount-f64-levels": case(_volume_profile_bincount_float_levels, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # ticker ids made float64 by a left merge with an unknown ticker, looked up in nn.Embedding
    "ticker-ids-f64-from-merge-embedding": case(_ticker_ids_float64_from_merge, "index_tensor_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a Hawkes kernel computed in place (mul_, exp_) on int64 nanosecond inter-arrival gaps
    "hawkes-decay-in-place-int64-ns-gaps": case(_hawkes_decay_in_place_on_ns_gaps, "result_cast", "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # one-minute volume bars: bar index from ns timestamps // 60e9 (float) used by scatter_add_
    "minute-bars-float-index-scatter-add": case(_minute_bars_float_index_scatter_add, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # rank-based portfolio weights: softmax of the int64 cross-sectional ranks
    "rank-weights-softmax-int64": case(_rank_scores_int64_softmax, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # a Sortino ratio whose downside deviation is vector_norm of the backtester's int64 PnL in cents
    "sortino-vector-norm-int64-cents": case(_sortino_integer_cents, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # untradable names masked with torch.finfo(torch.float32).min in a bf16 scorer before the softmax
    "untradable-mask-fp32-min-bf16-scores": case(_untradable_mask_fp32_min_in_bf16, "half_overflow", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a hand-written causal attention over the lookback window under fp16 autocast, masked with -1e9
    "lookback-attention-fp16-autocast-mask-1e9": case(_fp16_autocast_lookback_mask_1e9, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # float64 log returns from pandas fed to an LSTM forecaster cast to bf16
    "pandas-log-returns-bf16-lstm": case(_pandas_log_returns_into_bf16_lstm, "rnn_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # portfolio variance w^T S w: bf16 softmax weights times a float64 np.cov covariance
    "portfolio-variance-bf16-weights-f64-cov": case(_portfolio_variance_bf16_weights_f64_cov, "matmul_dtype", "bf16",
                                                    "f64",
        grade="correct", grade_at_freeze="correct"),
    # a Sharpe loss: einsum of fp32 policy weights with float64 returns made by torch.tensor(DataFrame values)
    "sharpe-einsum-fp32-weights-f64-returns": case(_sharpe_einsum_fp32_weights_f64_returns, "matmul_dtype", "f32",
                                                   "f64",
        grade="correct", grade_at_freeze="correct"),
    # cross-asset attention: bf16 asset queries bmm'd with market-state keys encoded in fp32
    "cross-asset-bmm-fp32-market-keys": case(_cross_asset_bmm_fp32_market_keys, "batched_matmul_dtype", "bf16",
                                             "f32",
        grade="correct", grade_at_freeze="correct"),
    # a Transformer forecaster under bf16 autocast given a float64 recency-decay src_mask from numpy
    "forecaster-autocast-f64-decay-src-mask": case(_forecaster_autocast_f64_decay_bias, "attn_mask_dtype", "f64",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # sector exposures: long-short weights made under bf16 autocast index_add_'ed into an fp32 sector buffer
    "sector-exposure-index-add-autocast-weights": case(_sector_exposure_index_add_autocast, "indexed_write_dtype",
                                                       "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # partial rebalancing: fp32 holdings lerp_'ed toward the bf16 allocator's target weights
    "partial-rebalance-lerp-bf16-target": case(_partial_rebalance_lerp_bf16_target, "lerp_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # mean-variance weights: linalg.solve of an fp32 torch.cov with float64 EWM expected returns from pandas
    "mean-variance-solve-fp32-cov-f64-mu": case(_mean_variance_solve_fp32_cov_f64_mu, "op_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 direction classifier's probability against fp32 labels in binary_cross_entropy
    "direction-probability-bce-bf16-fp32-labels": case(_direction_probability_bce_bf16, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a DeepLOB-style Conv1d cast to bf16 fed the fp32 normalised order book
    "deeplob-bf16-conv1d-fp32-book": case(_deeplob_bf16_conv_fp32_book, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # walk-forward folds' gradients averaged in numpy (float64) and assigned to an fp32 weight's .grad
    "walk-forward-numpy-mean-grad-assigned": case(_walk_forward_mean_gradient_from_numpy, "loss_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # an LSTM forecaster halved with .half() and trained with GradScaler on the CPU
    "fp16-lstm-forecaster-grad-scaler": case(_fp16_lstm_forecaster_grad_scaler, "unscale_fp16", "f16",
        grade="correct", grade_at_freeze="correct"),
    # historical 99% VaR by torch.quantile of a bf16 model's scenario PnL
    "historical-var-quantile-bf16-pnl": case(_historical_var_quantile_bf16, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # Gaussian VaR: the z-score by torch.special.ndtri on an fp16 tensor made with full_like of sigma
    "parametric-var-ndtri-f16": case(_parametric_var_ndtri_f16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # Monte Carlo scenarios from a MultivariateNormal with the bf16 risk model's factor covariance
    "scenario-mvn-bf16-factor-covariance": case(_scenario_generator_bf16_mvn, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # nearest peers by cdist over bf16 ticker embeddings
    "peer-lookup-cdist-bf16-ticker-embeddings": case(_peer_lookup_cdist_bf16_ticker_embeddings, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # close prices from a database NUMERIC column (decimal.Decimal) into np.array and torch.from_numpy
    "decimal-closes-object-array-from-numpy": case(_decimal_prices_from_database, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
}
