"""Held-out live set 137: retail demand and inventory optimisation written by hand in low precision (daily sales
tables from pandas with float64 prices, int64 store and item ids and bool promotion flags, category codes, occurrence
and Tweedie/negative-binomial DeepAR-style models under bf16 autocast, hierarchical reconciliation with summing and
projection matrices, newsvendor and order-up-to policies with integer order quantities), the situations set 90 did not
have. Defects planted by a helper who never read the rules, written before castwise ran and graded once with the rules
frozen at d039d1a0."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from scipy import stats
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d039d1a0"

bf16, f16 = torch.bfloat16, torch.float16
_STORES, _ITEMS, _DAYS = 3, 4, 28


def _seeded() -> None:
    torch.manual_seed(0)


def _sales(seed: int = 0) -> pd.DataFrame:
    """A long daily sales table as read from the warehouse: one row per (date, store, item)."""
    rng = np.random.default_rng(seed)
    dates = pd.date_range("2024-01-01", periods=_DAYS, freq="D")
    index = pd.MultiIndex.from_product([dates, range(_STORES), range(_ITEMS)], names=["date", "store_id", "item_id"])
    frame = index.to_frame(index=False)
    frame["store_id"] = frame["store_id"].astype("int64") + 101
    frame["item_id"] = frame["item_id"].astype("int64") + 5001
    frame["promo"] = rng.random(len(frame)) < 0.2
    frame["price"] = np.round(rng.uniform(0.99, 9.99, len(frame)) * np.where(frame["promo"], 0.8, 1.0), 2)
    frame["units"] = rng.poisson(np.where(frame["promo"], 6.0, 2.0)).astype("int64")
    frame.loc[rng.random(len(frame)) < 0.3, "units"] = 0  # intermittent demand
    return frame


def _series(frame: pd.DataFrame, column: str) -> np.ndarray:
    """(store * item, day) matrix of one column, the way the models see the history."""
    wide = frame.pivot_table(index=["store_id", "item_id"], columns="date", values=column, aggfunc="sum")
    return wide.to_numpy()


# --- ids, flags, targets and integer quantities


def _store_category_codes_int8_embedding() -> None:
    _seeded()
    frame = _sales()
    frame["store"] = frame["store_id"].astype(str).astype("category")
    codes = torch.from_numpy(frame["store"].cat.codes.to_numpy().copy())  # pandas picks int8 for < 128 categories
    store_embedding = nn.Embedding(_STORES, 8)
    store_embedding(codes)


def _item_ids_float64_after_left_merge() -> None:
    _seeded()
    frame = _sales()
    catalogue = pd.DataFrame({"item_id": [5001, 5002, 5003, 5004], "row": [0, 1, 2, 3]})
    frame = frame.merge(catalogue, on="item_id", how="left")
    frame.loc[frame.index[:2], "row"] = np.nan  # two delisted items: the merge makes the column float64
    rows = torch.from_numpy(frame["row"].fillna(0).to_numpy())
    base_price = torch.tensor([2.49, 3.99, 1.29, 7.49])
    base_price.index_select(0, rows)


def _censored_demand_where_float64_stockout() -> None:
    _seeded()
    frame = _sales()
    stock = pd.DataFrame({"store_id": [101, 102], "item_id": [5001, 5003], "stockout": [1.0, 1.0]})
    frame = frame.merge(stock, on=["store_id", "item_id"], how="left").fillna({"stockout": 0.0})
    units = torch.from_numpy(frame["units"].to_numpy()).float()
    stockout = torch.from_numpy(frame["stockout"].to_numpy())
    forecast = torch.full_like(units, 3.0)
    torch.where(stockout, torch.maximum(units, forecast), units)  # censored days: demand at least the forecast


def _zero_sales_occurrence_bool_bce_target() -> None:
    _seeded()
    history = torch.from_numpy(_series(_sales(), "units"))
    occurrence_head = nn.Linear(7, 1)
    windows = history[:, :-1].unfold(1, 7, 1).float()
    logits = occurrence_head(windows).squeeze(-1)
    sold = history[:, 7:] > 0  # hurdle model: did the item sell at all
    F.binary_cross_entropy_with_logits(logits, sold)


def _abc_class_int8_codes_cross_entropy() -> None:
    _seeded()
    frame = _sales()
    revenue = (frame["units"] * frame["price"]).groupby(frame["item_id"]).sum()
    abc = pd.qcut(revenue.rank(method="first"), 3, labels=["C", "B", "A"])
    labels = torch.from_numpy(abc.cat.codes.to_numpy().copy())
    classifier = nn.Linear(5, 3)
    features = torch.randn(_ITEMS, 5)
    F.cross_entropy(classifier(features), labels)


def _order_qty_int64_clamp_float_capacity() -> None:
    _seeded()
    forecast = torch.tensor([12.4, 30.9, 8.1, 55.0])
    on_hand = torch.tensor([5, 2, 9, 10])
    orders = torch.ceil(forecast).long() - on_hand
    shelf_capacity = pd.Series([40.0, 25.0, 60.0, 30.0])  # read from the planogram export as float64
    orders.clamp_(min=0, max=float(shelf_capacity.min()))


def _promo_intensity_avg_pool_bool_flags() -> None:
    frame = _sales()
    promo = torch.from_numpy(_series(frame, "promo") > 0)  # (series, day) bool
    F.avg_pool1d(promo[:, None, :], kernel_size=7, stride=1)  # share of promo days in the last week


def _newsvendor_demand_histc_int64_units() -> None:
    units = torch.from_numpy(_sales()["units"].to_numpy())
    counts = torch.histc(units, bins=20, min=0, max=20)
    counts.cumsum(0) / counts.sum()


def _order_cost_int64_orders_matmul() -> None:
    _seeded()
    orders = torch.tensor([[12, 0, 4, 30], [6, 6, 0, 18], [0, 24, 2, 12]])  # (store, item) cases to order
    unit_cost = torch.tensor([[1.75], [2.10], [0.95], [4.40]])
    orders @ unit_cost


def _stochastic_rounding_uniform_int64_orders() -> None:
    _seeded()
    fractional = torch.tensor([3.4, 7.8, 0.6, 12.5])
    orders = fractional.floor().long()
    noise = torch.empty_like(orders).uniform_()
    orders + (noise < fractional - orders)


def _moving_average_conv1d_int64_units() -> None:
    history = torch.from_numpy(_series(_sales(), "units"))  # int64 (series, day)
    kernel = torch.full((1, 1, 7), 1.0 / 7)
    F.conv1d(history[:, None, :], kernel)


def _dc_order_units_int16() -> None:
    store_orders = [1200, 950, 18000, 22000]  # units per store for a national launch
    per_dc = np.array(store_orders).sum()
    torch.tensor([per_dc, 480, 960], dtype=torch.int16)  # the ERP interface stores quantities as int16


# --- DeepAR-style models under low precision


class _DeepARGRU(nn.Module):
    def __init__(self, features: int = 3, hidden: int = 16) -> None:
        super().__init__()
        self.rnn = nn.GRU(features, hidden, batch_first=True)
        self.mu = nn.Linear(hidden, 1)
        self.alpha = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, _ = self.rnn(x)
        return F.softplus(self.mu(out)), F.softplus(self.alpha(out))


def _lag_features(frame: pd.DataFrame) -> np.ndarray:
    units = _series(frame, "units").astype(np.float64)
    prices = _series(frame, "price")
    scale = units.mean(axis=1, keepdims=True) + 1.0
    lag1 = np.concatenate([np.zeros((units.shape[0], 1)), units[:, :-1]], axis=1) / scale
    lag7 = np.concatenate([np.zeros((units.shape[0], 7)), units[:, :-7]], axis=1) / scale
    return np.stack([lag1, lag7, np.log(prices)], axis=-1)  # float64 (series, day, 3)


def _deepar_gru_autocast_float64_lags() -> None:
    _seeded()
    model = _DeepARGRU()
    x = torch.from_numpy(_lag_features(_sales()))
    with torch.autocast("cpu", dtype=bf16):
        model(x)


def _deepar_packed_bf16_histories_fp32_lstm() -> None:
    _seeded()
    lengths = torch.tensor([28, 21, 9])  # new items have short histories
    histories = torch.zeros(3, 28, 3)
    for row, length in enumerate(lengths.tolist()):
        histories[row, :length] = torch.randn(length, 3)
    histories = histories.to(bf16)  # the data module casts batches for the bf16 run
    encoder = nn.LSTM(3, 16, batch_first=True)
    packed = nn.utils.rnn.pack_padded_sequence(histories, lengths, batch_first=True)
    encoder(packed)


def _deepar_negbin_sample_bf16_autocast() -> None:
    _seeded()
    model = _DeepARGRU()
    x = torch.from_numpy(_lag_features(_sales())).float()
    with torch.autocast("cpu", dtype=bf16):
        mu, alpha = model(x)
        total_count = 1.0 / alpha
        logits = torch.log(mu * alpha)
        paths = torch.distributions.NegativeBinomial(total_count=total_count, logits=logits).sample((50,))
    paths.quantile(0.9, dim=0)


def _deepar_zero_history_scale_nan_negbin() -> None:
    _seeded()
    history = torch.from_numpy(_series(_sales(), "units")).float()
    history[2] = 0.0  # a new item with no sales yet in the context window
    scale = history.mean(dim=1, keepdim=True)  # DeepAR mean scaling without the +1
    head = nn.Linear(_DAYS, 2)
    mu_scaled, alpha = F.softplus(head(history / scale)).unbind(-1)
    mu = mu_scaled * scale.squeeze(-1)
    torch.distributions.NegativeBinomial(total_count=1.0 / alpha, logits=torch.log(mu * alpha))


def _demand_mlp_input_batchnorm_bf16() -> None:
    _seeded()
    model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 1)).to(bf16)
    frame = _sales()
    features = torch.tensor(frame[["price", "promo", "units"]].to_numpy(dtype=np.float32))
    model(features)


def _huber_bf16_forecast_float64_sales_backward() -> None:
    _seeded()
    model = nn.Linear(3, 1).to(bf16)
    x = torch.from_numpy(_lag_features(_sales())[:, -1]).to(bf16)
    target = torch.from_numpy(_series(_sales(), "units")[:, -1:].astype(np.float64))
    F.huber_loss(model(x), target, delta=5.0).backward()


def _closed_days_key_padding_float64_mha() -> None:
    _seeded()
    attention = nn.MultiheadAttention(16, 2, batch_first=True).to(bf16)
    days = torch.randn(_STORES, 14, 16).to(bf16)
    calendar = pd.DataFrame({"closed": [0.0] * 12 + [1.0, 1.0]})  # store closures from the calendar table
    closed = torch.from_numpy(np.tile(calendar["closed"].to_numpy(), (_STORES, 1)) * -1e4)
    attention(days, days, days, key_padding_mask=closed)


# --- hierarchical reconciliation


def _summing_matrix() -> torch.Tensor:
    """S for total / 3 stores / 12 store-items (rows), bottom level the 12 store-items (columns)."""
    bottom = torch.eye(_STORES * _ITEMS)
    stores = torch.repeat_interleave(torch.eye(_STORES), _ITEMS, dim=1)
    return torch.cat([torch.ones(1, _STORES * _ITEMS), stores, bottom])


def _hierarchy_sparse_summing_matrix_bf16_forecasts() -> None:
    _seeded()
    summing = _summing_matrix().to_sparse()
    bottom = torch.rand(_STORES * _ITEMS, 7).to(bf16) * 10  # bf16 bottom-level forecasts, 7-day horizon
    torch.sparse.mm(summing, bottom)


def _mint_solve_triangular_bf16() -> None:
    _seeded()
    summing = _summing_matrix()
    residuals = torch.randn(60, summing.shape[0])
    covariance = torch.cov(residuals.T) + 0.1 * torch.eye(summing.shape[0])
    reconciler = nn.Module()
    reconciler.register_buffer("chol", torch.linalg.cholesky(covariance))
    reconciler.register_buffer("summing", summing)
    reconciler.to(bf16)  # the reconciliation layer follows the forecaster into bf16
    torch.linalg.solve_triangular(reconciler.chol, reconciler.summing, upper=False)


def _bottom_up_scatter_reduce_bf16_into_fp32() -> None:
    _seeded()
    model = nn.Linear(3, 1)
    x = torch.from_numpy(_lag_features(_sales())[:, -1]).float()
    with torch.autocast("cpu", dtype=bf16):
        item_forecast = model(x).squeeze(-1)
    store_of_series = torch.arange(_STORES).repeat_interleave(_ITEMS)
    store_totals = torch.zeros(_STORES)
    store_totals.scatter_reduce_(0, store_of_series, item_forecast, reduce="sum")


def _reconciliation_baddbmm_fp32_base_bf16() -> None:
    _seeded()
    n = _STORES * _ITEMS
    base = torch.rand(4, n, 1) * 10  # fp32 base forecasts for 4 weeks
    projection = torch.rand(4, n, n).to(bf16) / n  # learned reconciliation weights
    incoherence = torch.randn(4, n, 1).to(bf16)
    torch.baddbmm(base, projection, incoherence)


# --- prices and features


def _reference_price_lerp_bf16_current_price() -> None:
    _seeded()
    reference = torch.tensor([2.49, 3.99, 1.29, 7.49])
    with torch.autocast("cpu", dtype=bf16):
        current = nn.Linear(4, 4)(reference[None]).squeeze(0)  # a pricing model's proposed price
    torch.lerp(reference, current, 0.3)  # exponential-smoothing reference price


def _price_float64_cat_item_embedding_linear() -> None:
    _seeded()
    frame = _sales()
    item_embedding = nn.Embedding(_ITEMS, 8)
    head = nn.Linear(9, 1)
    items = torch.from_numpy(frame["item_id"].to_numpy() - 5001)
    log_price = torch.from_numpy(np.log(frame["price"].to_numpy()))[:, None]
    head(torch.cat([item_embedding(items), log_price], dim=1))


def _store_week_pivot_float64_conv2d() -> None:
    _seeded()
    frame = _sales()
    frame["week"] = frame["date"].dt.isocalendar().week
    grid = frame.pivot_table(index="store_id", columns="week", values="units", aggfunc="mean")
    encoder = nn.Conv2d(1, 4, (2, 2))
    encoder(torch.from_numpy(grid.to_numpy())[None, None])


def _revenue_vecdot_f32_prices_bf16_units() -> None:
    _seeded()
    prices = torch.tensor([2.49, 3.99, 1.29, 7.49]).expand(_STORES, _ITEMS)
    with torch.autocast("cpu", dtype=bf16):
        units = F.softplus(nn.Linear(_ITEMS, _ITEMS)(torch.rand(_STORES, _ITEMS)))
    torch.linalg.vecdot(prices, units)  # expected revenue per store


# --- overflow and numpy interop


def _safety_stock_big_m_index_fill_f16() -> None:
    safety_stock = torch.tensor([4.0, 12.0, 3.5, 9.0], dtype=f16)
    never_stock_out = torch.tensor([1, 3])  # contractual 100% service: a big-M safety stock
    safety_stock.index_fill_(0, never_stock_out, 1e5)


def _order_up_to_scipy_poisson_ppf_bf16() -> None:
    _seeded()
    model = nn.Linear(3, 1)
    x = torch.from_numpy(_lag_features(_sales())[:, -1]).float()
    with torch.no_grad(), torch.autocast("cpu", dtype=bf16):
        rate = F.softplus(model(x)).squeeze(-1) * 7  # weekly demand rate
    stats.poisson.ppf(0.95, rate)


def _nullable_int64_units_object_array() -> None:
    frame = _sales()
    frame["units"] = frame["units"].astype("Int64")
    frame.loc[frame.index[:3], "units"] = pd.NA  # days the POS feed missed
    torch.from_numpy(frame[["units", "price"]].to_numpy())


CASES: dict[str, LiveCase] = {
    # --- ids, flags, targets and integer quantities
    # store ids made a pandas category, the int8 category codes looked up in the store Embedding
    "store-category-codes-int8-embedding": case(_store_category_codes_int8_embedding, "index_tensor_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # catalogue row numbers after a left merge (float64 from the NaN of delisted items) as index_select's index
    "item-rows-f64-left-merge-index-select": case(_item_ids_float64_after_left_merge, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # censored demand: the stockout flag merged from the stock table (float64 0/1) as torch.where's condition
    "censored-demand-where-f64-stockout-flag": case(_censored_demand_where_float64_stockout, "mask_dtype", "f64",
        grade="correct", grade_at_freeze="correct"),
    # hurdle model: the bool "sold at all" occurrence as BCE-with-logits target
    "hurdle-occurrence-bool-bce-target": case(_zero_sales_occurrence_bool_bce_target, "target_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # ABC classes from pd.qcut, their int8 category codes as cross_entropy's target
    "abc-class-int8-codes-cross-entropy": case(_abc_class_int8_codes_cross_entropy, "target_dtype", "int8",
        grade="correct", grade_at_freeze="correct"),
    # int64 order quantities clamped in place to the planogram's float shelf capacity
    "order-qty-int64-clamp-float-capacity": case(_order_qty_int64_clamp_float_capacity, "result_cast", "f32",
                                                 "int64",
        grade="correct", grade_at_freeze="correct"),
    # share of promo days in the last week by avg_pool1d of the bool promo flags
    "promo-share-avg-pool-bool-flags": case(_promo_intensity_avg_pool_bool_flags, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # newsvendor: empirical demand distribution by torch.histc of the int64 unit sales
    "newsvendor-histc-int64-units": case(_newsvendor_demand_histc_int64_units, "integer_operand", "int64",
        grade="correct", grade_at_freeze="correct"),
    # purchase-order value: the int64 (store, item) order matrix @ fp32 unit costs
    "po-value-int64-orders-matmul-costs": case(_order_cost_int64_orders_matmul, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # stochastic rounding of order quantities with uniform_ noise made empty_like the int64 orders
    "stochastic-rounding-uniform-int64-orders": case(_stochastic_rounding_uniform_int64_orders, "no_kernel",
                                                     "int64",
        grade="correct", grade_at_freeze="correct"),
    # 7-day moving average of int64 unit sales by conv1d with an fp32 averaging kernel
    "moving-average-conv1d-int64-units": case(_moving_average_conv1d_int64_units, "integer_operand", "int64",
                                              "f32",
        grade="correct", grade_at_freeze="correct"),
    # a launch's distribution-centre order quantity put into the ERP's int16 tensor
    "dc-launch-order-int16-overflow": case(_dc_order_units_int16, "half_overflow", "int16",
        grade="correct", grade_at_freeze="correct"),
    # --- DeepAR-style models under low precision
    # DeepAR GRU under bf16 autocast fed float64 lag features built with numpy (autocast leaves float64)
    "deepar-gru-autocast-f64-lags": case(_deepar_gru_autocast_float64_lags, "rnn_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # variable-length item histories cast to bf16, packed and fed to the fp32 LSTM encoder
    "deepar-packed-bf16-histories-fp32-lstm": case(_deepar_packed_bf16_histories_fp32_lstm, "rnn_dtype", "bf16",
                                                   "f32",
        grade="correct", grade_at_freeze="correct"),
    # negative-binomial sample paths drawn inside the bf16 autocast block (gamma sampling)
    "deepar-negbin-sample-paths-bf16": case(_deepar_negbin_sample_bf16_autocast, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # mean scaling without +1: a new item with zero history makes NaN logits in the NegativeBinomial
    "deepar-zero-history-scale-nan-negbin": case(_deepar_zero_history_scale_nan_negbin, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # demand MLP cast to bf16 with an input BatchNorm1d, fed fp32 price/promo/units features
    "demand-mlp-input-batchnorm-bf16": case(_demand_mlp_input_batchnorm_bf16, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Huber loss of a bf16 forecaster against float64 unit sales from pandas, backward
    "huber-bf16-forecast-f64-sales-backward": case(_huber_bf16_forecast_float64_sales_backward, "loss_dtype", "f64",
                                                   "bf16",
        grade="correct", grade_at_freeze="correct"),
    # store-closure days as a float64 additive key_padding_mask for a bf16 MultiheadAttention over days
    "closed-days-f64-key-padding-mha": case(_closed_days_key_padding_float64_mha, "attn_mask_dtype", "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- hierarchical reconciliation
    # bottom-up: the fp32 sparse summing matrix times bf16 bottom-level forecasts with torch.sparse.mm
    "summing-matrix-sparse-mm-bf16-forecasts": case(_hierarchy_sparse_summing_matrix_bf16_forecasts, "matmul_dtype",
                                                    "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # MinT: the covariance's Cholesky factor registered as a buffer, cast to bf16, in solve_triangular
    "mint-solve-triangular-bf16-buffer": case(_mint_solve_triangular_bf16, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # store totals by scatter_reduce_ of bf16 autocast item forecasts into an fp32 zeros buffer
    "store-totals-scatter-reduce-bf16": case(_bottom_up_scatter_reduce_bf16_into_fp32, "indexed_write_dtype",
        grade="correct", grade_at_freeze="correct"),
    # learned reconciliation: fp32 base forecasts baddbmm'd with a bf16 projection and bf16 incoherence
    "learned-reconciliation-baddbmm-fp32-base": case(_reconciliation_baddbmm_fp32_base_bf16,
                                                     "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- prices and features
    # reference price smoothed by torch.lerp toward a bf16 autocast proposed price
    "reference-price-lerp-bf16-proposal": case(_reference_price_lerp_bf16_current_price, "lerp_dtype", "f32",
                                               "bf16",
        grade="correct", grade_at_freeze="correct"),
    # float64 log price from pandas torch.cat'ed with fp32 item embeddings into an fp32 Linear
    "log-price-f64-cat-item-embedding-linear": case(_price_float64_cat_item_embedding_linear, "matmul_dtype", "f64",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # store x week sales grid from pivot_table (float64) into an fp32 Conv2d
    "store-week-pivot-f64-conv2d": case(_store_week_pivot_float64_conv2d, "conv_weight_dtype", "f64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # expected revenue per store by linalg.vecdot of fp32 prices and bf16 autocast units
    "revenue-vecdot-f32-prices-bf16-units": case(_revenue_vecdot_f32_prices_bf16_units, "op_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # --- overflow and numpy interop
    # fp16 safety stock with a big-M 1e5 written by index_fill_ for contractual-service items
    "safety-stock-big-m-index-fill-f16": case(_safety_stock_big_m_index_fill_f16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # order-up-to level from scipy's Poisson ppf of a bf16 autocast weekly rate
    "order-up-to-scipy-poisson-ppf-bf16": case(_order_up_to_scipy_poisson_ppf_bf16, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # nullable Int64 units with missed POS days next to float64 prices: to_numpy() is an object array
    "nullable-int64-units-object-to-numpy": case(_nullable_int64_units_object_array, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
}
