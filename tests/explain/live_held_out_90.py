"""Held-out live set 90: retail demand forecasting and inventory optimisation written by hand in low precision (sales
histories as int64 counts and float64 prices from pandas, store/item ids as embeddings, promotion and holiday flags as
bool, hierarchical reconciliation with summing matrices, Tweedie/Poisson losses on counts, newsvendor and reorder-point
policies with clamps, censored demand masks, price-elasticity regressions under bf16/fp16 autocast). Defects planted by
a helper who never read the rules, written before castwise ran and graded once with the rules frozen at f9e5f57."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "f9e5f57"

bf16, f16 = torch.bfloat16, torch.float16
_DAYS = 28
_STORES = 3
_ITEMS_PER_STORE = 4


def _seeded() -> None:
    torch.manual_seed(0)


def _daily_units() -> torch.Tensor:
    """Unit sales per (store-item, day) as the sales table holds them: int64 counts."""
    _seeded()
    return torch.poisson(torch.full((_STORES * _ITEMS_PER_STORE, _DAYS), 6.0)).long()


def _sales_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "store_id": [0, 0, 1, 1, 2, 2],
        "item_id": [3, 5, 3, 7, 5, 7],
        "price": [2.49, 3.99, 2.29, 1.19, 3.79, 1.09],
        "units": [14, 6, 21, 40, 4, 52],
        "promo": [False, True, False, True, False, False],
    })


# ---- store/item ids, promotion and holiday flags -------------------------------------------------------------------

def _promo_state_embedding_bool_flag() -> None:
    _seeded()
    promo_embedding = nn.Embedding(2, 8)  # row 0: regular price, row 1: on promotion
    promo = torch.from_numpy(_sales_frame()["promo"].to_numpy())
    promo_embedding(promo)


def _holiday_calendar_replicate_pad() -> None:
    holidays = torch.zeros(1, 1, _DAYS, dtype=torch.bool)
    holidays[0, 0, [0, 24, 25]] = True  # New Year, Christmas Eve, Christmas
    padded = F.pad(holidays, (3, 3), mode="replicate")  # so a 7-day window fits at the edges of the history
    padded.unfold(-1, 7, 1).any(-1)


def _censored_weight_one_minus_bool_stockout() -> None:
    units = _daily_units().float()
    on_hand_end_of_day = torch.clamp(20 - units.cumsum(-1) % 25, min=0)
    stockout = on_hand_end_of_day == 0  # the day sold out: demand censored at the sales
    rate = torch.full_like(units, 6.0)
    nll = rate - units * rate.log()
    weight = 1 - stockout
    (nll * weight).sum() / weight.sum()


def _nullable_boolean_promo_column() -> None:
    frame = _sales_frame()
    frame["promo"] = pd.array([False, True, None, True, False, None], dtype="boolean")  # unknown for new stores
    torch.tensor(frame["promo"].to_numpy())


# ---- sales counts ---------------------------------------------------------------------------------------------------

def _safety_stock_sigma_var_int64_sales() -> None:
    units = _daily_units()
    lead_time_days = 5
    service_z = 1.645
    mu = units.float().mean(-1)
    sigma = units.var(dim=-1).sqrt()  # daily demand spread from the int64 history
    mu * lead_time_days + service_z * sigma * lead_time_days ** 0.5


def _demand_bucket_ce_bucketize_int32() -> None:
    _seeded()
    units = _daily_units()[:, -1].float()
    edges = torch.tensor([0.5, 3.5, 7.5, 15.5])  # zero, 1-3, 4-7, 8-15, 16+
    bucket = torch.bucketize(units, edges, out_int32=True)  # int32 "to halve the label memory"
    logits = nn.Linear(16, 5)(torch.randn(units.shape[0], 16))
    F.cross_entropy(logits, bucket)


def _huber_on_int64_unit_sales() -> None:
    _seeded()
    units = _daily_units()[:, -7:]
    forecaster = nn.Linear(_DAYS - 7, 7).to(bf16)
    history = _daily_units()[:, :-7].float().log1p().to(bf16)
    forecast = forecaster(history)
    F.huber_loss(forecast, units, delta=5.0).backward()


def _inventory_position_minus_poisson_demand() -> None:
    _seeded()
    reorder_point, order_up_to = 30, 80
    inventory = torch.full((_STORES * _ITEMS_PER_STORE,), 60)  # int64 units on hand
    demand = torch.distributions.Poisson(torch.full((_STORES * _ITEMS_PER_STORE,), 6.0))
    for _ in range(3):
        inventory -= demand.sample()
        below = inventory < reorder_point
        inventory[below] = order_up_to


def _case_pack_lcm_float64_sizes() -> None:
    suppliers = pd.DataFrame({
        "pack_a": [6.0, 12.0, np.nan, 24.0],  # a missing pack size makes the column float64
        "pack_b": [4.0, 10.0, 8.0, 36.0],
    }).fillna(1)
    pack_a = torch.from_numpy(suppliers["pack_a"].to_numpy())
    pack_b = torch.from_numpy(suppliers["pack_b"].to_numpy())
    torch.lcm(pack_a, pack_b)


def _linear_demand_lstsq_int64_cents() -> None:
    price_cents = torch.tensor([199, 229, 249, 279, 299, 349])  # prices stored in integer cents
    units = torch.tensor([[52.0], [47.0], [40.0], [33.0], [30.0], [21.0]])
    design = torch.stack([torch.ones_like(price_cents), price_cents], dim=1)
    torch.linalg.lstsq(design, units)


# ---- hierarchical reconciliation ------------------------------------------------------------------------------------

def _summing_matrix() -> np.ndarray:
    bottom = _STORES * _ITEMS_PER_STORE
    store_rows = np.kron(np.eye(_STORES), np.ones((1, _ITEMS_PER_STORE)))
    return np.vstack([np.ones((1, bottom)), store_rows, np.eye(bottom)])


def _bottom_up_summing_matrix_int8() -> None:
    _seeded()
    summing = torch.from_numpy(_summing_matrix().astype(np.int8))  # 0/1 entries kept as int8
    bottom_forecasts = torch.rand(_STORES * _ITEMS_PER_STORE, 7) * 10
    summing @ bottom_forecasts


def _reconcile_multi_dot_float64_projection() -> None:
    _seeded()
    s = _summing_matrix()
    projection = np.linalg.pinv(s)  # OLS reconciliation P = (S'S)^-1 S', computed in numpy
    base_forecasts = torch.rand(s.shape[0], 7) * 10
    torch.linalg.multi_dot([torch.from_numpy(s).float(), torch.from_numpy(projection), base_forecasts])


def _mint_solve_float64_shrinkage_covariance() -> None:
    _seeded()
    s = torch.from_numpy(_summing_matrix()).float()
    residuals = np.random.default_rng(0).normal(size=(60, s.shape[0]))
    sample_cov = np.cov(residuals, rowvar=False)
    shrunk = 0.7 * sample_cov + 0.3 * np.diag(np.diag(sample_cov))  # shrinkage estimator in numpy
    w = torch.from_numpy(shrunk)
    w_inv_s = torch.linalg.solve(w, s)
    s.T @ w_inv_s


def _mint_cholesky_inverse_fp16() -> None:
    _seeded()
    s = torch.from_numpy(_summing_matrix()).float()
    gram = s.T @ s + torch.eye(s.shape[1])
    chol = torch.linalg.cholesky(gram).half()  # factor kept with the fp16 forecasts it serves
    torch.cholesky_inverse(chol)


def _top_down_shares_bmm() -> None:
    _seeded()
    weeks, horizon = 4, 7
    store_shares = torch.softmax(torch.randn(weeks, _STORES, 1), dim=1)  # historical proportions, fp32
    total_forecast = torch.rand(weeks, 1, horizon, dtype=bf16) * 500  # from the bf16 top-level model
    torch.bmm(store_shares, total_forecast)


def _weekly_units_index_put_accumulate() -> None:
    units = _daily_units()[0]
    week_of_day = torch.arange(_DAYS) // 7
    weekly = torch.zeros(_DAYS // 7)
    weekly.index_put_((week_of_day,), units, accumulate=True)


# ---- price elasticity -----------------------------------------------------------------------------------------------

def _loglog_elasticity_autocast_float64_prices() -> None:
    _seeded()
    frame = _sales_frame()
    log_price = torch.log(torch.tensor(frame[["price"]].to_numpy()))  # float64 from pandas
    elasticity = nn.Linear(1, 1)
    with torch.autocast("cpu", dtype=bf16):
        elasticity(log_price)


def _elasticity_mv_autocast_features() -> None:
    _seeded()
    price_encoder = nn.Linear(4, 6)
    coefficients = nn.Parameter(torch.full((6,), -1.2))  # own- and cross-price elasticities
    raw_prices = torch.rand(_STORES * _ITEMS_PER_STORE, 4) + 1.0
    with torch.autocast("cpu", dtype=bf16):
        features = price_encoder(raw_prices.log())
        torch.mv(features, coefficients)


def _item2vec_float64_pretrained_into_bf16_mlp() -> None:
    _seeded()
    vectors = np.random.default_rng(0).normal(size=(10, 8))  # item2vec vectors saved with np.save (float64)
    item_table = nn.Embedding.from_pretrained(torch.from_numpy(vectors), freeze=True)
    head = nn.Sequential(nn.Linear(8 + 2, 16), nn.ReLU(), nn.Linear(16, 1)).to(bf16)
    item_ids = torch.tensor([3, 5, 7])
    numeric = torch.tensor([[2.49, 0.0], [3.99, 1.0], [1.19, 1.0]], dtype=bf16)
    head(torch.cat([item_table(item_ids), numeric], dim=-1))


# ---- forecasting models ---------------------------------------------------------------------------------------------

def _deepar_lstm_bf16_fp32_scaled_lags() -> None:
    _seeded()
    units = _daily_units().float()
    scale = units.mean(-1, keepdim=True) + 1.0  # DeepAR's per-series mean scale, fp32
    lags = torch.stack([units, units.roll(7, -1)], dim=-1) / scale[..., None]
    rnn = nn.LSTM(2, 16, batch_first=True).to(bf16)
    rnn(lags)


def _sales_conv1d_encoder_bf16() -> None:
    _seeded()
    units = _daily_units().float()
    normalised = (units - units.mean(-1, keepdim=True)) / (units.std(-1, keepdim=True) + 1e-6)
    encoder = nn.Conv1d(1, 8, 7, bias=False).to(bf16)
    encoder(normalised[:, None])


def _tft_static_covariates_layer_norm() -> None:
    _seeded()
    static_encoder = nn.Sequential(nn.LayerNorm(4), nn.Linear(4, 16)).to(bf16)
    frame = _sales_frame()
    static = torch.tensor(frame[["store_id", "item_id", "price", "units"]].to_numpy(), dtype=torch.float32)
    static_encoder(static)


def _store_context_sdpa_fp32_keys() -> None:
    _seeded()
    item_queries = torch.randn(1, 2, _ITEMS_PER_STORE, 8, dtype=bf16)
    store_encoder = nn.Linear(5, 8)  # store-level context encoder never cast
    store_context = store_encoder(torch.randn(1, _STORES, 5)).reshape(1, 1, _STORES, 8).expand(1, 2, _STORES, 8)
    F.scaled_dot_product_attention(item_queries, store_context, store_context)


def _croston_lerp_float64_alpha() -> None:
    units = _daily_units()[:4].float()
    config = pd.DataFrame({"alpha": [0.1, 0.1, 0.2, 0.05]})  # per-item smoothing from the planning sheet
    alpha = torch.from_numpy(config["alpha"].to_numpy())
    size_level = units[:, 0].clone()
    for day in range(1, 7):
        size_level.lerp_(units[:, day], alpha)


# ---- policies, overflow and NaN ------------------------------------------------------------------------------------

def _ean13_barcodes_int32() -> None:
    barcodes = [4006381333931, 5901234123457, 4012345678901]
    torch.tensor(barcodes, dtype=torch.int32)


def _unlimited_capacity_pad_fp16() -> None:
    _seeded()
    capacities = torch.rand(_STORES * _ITEMS_PER_STORE, 2, dtype=f16) * 500  # two suppliers' capacities
    F.pad(capacities, (0, 1), value=1e6)  # a spot-market supplier with "unlimited" capacity


def _poisson_rate_zero_base_times_inf_lift() -> None:
    base = torch.tensor([0.0, 12.0, 30.0, 4.0], dtype=f16)  # a new item with no baseline sales yet
    promo_log_lift = torch.tensor([12.0, 0.5, 0.3, 0.8], dtype=f16)
    rate = base * promo_log_lift.exp()
    torch.distributions.Poisson(rate).sample()


def _tweedie_fp16_anomaly() -> None:
    p = 1.5
    log_mu = torch.tensor([1.8, 11.5, 3.2], requires_grad=True)  # a high-volume SKU near 100k units
    units = torch.tensor([5.0, 90000.0, 22.0], dtype=f16)
    with torch.autograd.detect_anomaly():
        mu = log_mu.half().exp()
        deviance = -units * mu.pow(1 - p) / (1 - p) + mu.pow(2 - p) / (2 - p)
        deviance.mean().backward()


def _replenishment_np_ceil_bf16_orders() -> None:
    _seeded()
    policy = nn.Linear(8, 1).to(bf16)
    order_quantity = torch.relu(policy(torch.randn(_STORES * _ITEMS_PER_STORE, 8, dtype=bf16))) * 40
    case_pack = 6
    np.ceil(order_quantity.detach() / case_pack) * case_pack


def _grad_accumulation_unscale_each_micro_batch() -> None:
    _seeded()
    model = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    for store in range(_STORES):  # one micro-batch per store, one step per week
        with torch.autocast("cpu", dtype=bf16):
            loss = F.poisson_nll_loss(model(torch.randn(4, 8)), torch.full((4, 1), float(store + 2)))
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()


CASES: dict[str, LiveCase] = {
    # promotion-state embedding (regular / on promo) looked up with the bool promo column from pandas
    "promo-state-embedding-bool-flag": case(_promo_state_embedding_bool_flag, "index_tensor_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a bool holiday calendar padded with replicate mode before 7-day holiday windows
    "holiday-calendar-replicate-pad-bool": case(_holiday_calendar_replicate_pad, "no_kernel", "bool",
        grade="correct", grade_at_freeze="correct"),
    # censored-demand NLL weighting uncensored days by 1 - the bool stockout flag
    "censored-weight-one-minus-bool-stockout": case(_censored_weight_one_minus_bool_stockout, "mask_dtype", "bool",
        grade="correct", grade_at_freeze="correct"),
    # a nullable pandas "boolean" promo column with unknowns turned into a tensor (object array)
    "promo-nullable-boolean-object-array": case(_nullable_boolean_promo_column, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # safety stock: the daily demand spread from var() of the int64 unit-sales history
    "safety-stock-sigma-var-int64-sales": case(_safety_stock_sigma_var_int64_sales, "integer_operand",
        grade="correct", grade_at_freeze="correct"),
    # demand-bucket classifier trained on bucketize(out_int32=True) labels in cross_entropy
    "demand-bucket-ce-bucketize-out-int32": case(_demand_bucket_ce_bucketize_int32, "target_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 forecaster's Huber loss against the raw int64 unit sales, backward
    "huber-int64-unit-sales-target": case(_huber_on_int64_unit_sales, "target_dtype", "int64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # (s, S) simulation: int64 inventory minus Poisson demand samples (float) in place
    "inventory-int64-minus-poisson-demand-in-place": case(_inventory_position_minus_poisson_demand, "result_cast",
                                                          "f32", "int64",
        grade="correct", grade_at_freeze="correct"),
    # joint ordering: lcm of two suppliers' case-pack sizes read as float64 (a NaN in the column)
    "case-pack-lcm-float64-sizes": case(_case_pack_lcm_float64_sizes, "no_kernel", "f64", fix=("long()",),
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (f9e5f57) castwise gave index_tensor_dtype [int64, f64] (high confidence). torch.lcm has "
             "integer kernels only, and the float64 case-pack sizes (a NaN made the pandas column float64) met its "
             "missing Double kernel; the rules read lcm_cpu's not-implemented on a float tensor as a float tensor "
             "where integers (indices, labels, counts) are taken, so the kind names an index dtype rather than the "
             "op lacking a float kernel, though its fix (`x.long()`) is the one this case needs.")),
    # linear demand curve fitted by lstsq on a design matrix of prices in integer cents (int64)
    "linear-demand-lstsq-int64-cents": case(_linear_demand_lstsq_int64_cents, "integer_operand", "int64", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bottom-up reconciliation with the 0/1 summing matrix stored as int8
    "bottom-up-summing-matrix-int8-matmul": case(_bottom_up_summing_matrix_int8, "integer_operand", "int8", "f32",
        grade="correct", grade_at_freeze="wrong",
        why=("At freeze (f9e5f57) castwise gave matmul_dtype [int8, f32] (low confidence). The 0/1 summing matrix "
             "stored as int8 is integer data multiplied into float forecasts (integer_operand, fix S.float()); the "
             "rules read an int8 operand of a matrix multiply as a quantized weight used without dequantizing, the "
             "fix that suits 8-bit checkpoints and not a summing matrix of ones and zeros.")),
    # OLS reconciliation S P y_hat by multi_dot with the projection P from numpy (float64)
    "reconcile-multi-dot-float64-projection": case(_reconcile_multi_dot_float64_projection, "matmul_dtype", "f32",
                                                   "f64",
        grade="correct", grade_at_freeze="not_recognised",
        why=("At freeze (f9e5f57) castwise gave nothing. torch.linalg.multi_dot's own check ('all tensors must "
             "have be the same dtype but tensor 0 is float and tensor 1 double') names the mixed float32/float64 "
             "matrices of the S P y_hat chain, the projection from numpy being float64; the rules do not read this "
             "wording of multi_dot.")),
    # MinT: linalg.solve of the numpy shrinkage covariance (float64) against the fp32 summing matrix
    "mint-solve-float64-shrinkage-covariance": case(_mint_solve_float64_shrinkage_covariance, "op_dtype", "f64",
                                                    "f32",
        grade="correct", grade_at_freeze="correct"),
    # MinT-style (S'S)^-1 by cholesky_inverse of a factor kept in fp16
    "mint-cholesky-inverse-fp16": case(_mint_cholesky_inverse_fp16, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # top-down disaggregation: fp32 historical store shares bmm'd with the bf16 total forecast
    "top-down-shares-bmm-bf16-total": case(_top_down_shares_bmm, "batched_matmul_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # weekly totals: int64 daily units index_put_(accumulate=True) into torch.zeros (fp32)
    "weekly-units-index-put-accumulate-int64": case(_weekly_units_index_put_accumulate, "indexed_write_dtype", "f32",
                                                    "int64",
        grade="correct", grade_at_freeze="correct"),
    # log-log price elasticity under bf16 autocast on float64 log prices (autocast leaves float64 alone)
    "loglog-elasticity-autocast-float64-prices": case(_loglog_elasticity_autocast_float64_prices, "matmul_dtype",
                                                      "f64", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # elasticity coefficients (fp32 Parameter) applied with torch.mv to bf16 autocast price features
    "elasticity-mv-fp32-coefficients-autocast-features": case(_elasticity_mv_autocast_features, "matmul_dtype",
                                                              "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # item2vec vectors from np.save (float64) through Embedding.from_pretrained into a bf16 head
    "item2vec-float64-pretrained-bf16-head": case(_item2vec_float64_pretrained_into_bf16_mlp, "matmul_dtype", "f64",
                                                  "bf16",
        grade="correct", grade_at_freeze="correct"),
    # DeepAR: lag features divided by the fp32 mean scale fed to an LSTM cast to bf16
    "deepar-lstm-bf16-fp32-scaled-lags": case(_deepar_lstm_bf16_fp32_scaled_lags, "rnn_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a bf16 Conv1d sales-history encoder given the fp32 z-normalised series
    "sales-conv1d-encoder-bf16-fp32-history": case(_sales_conv1d_encoder_bf16, "conv_weight_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # TFT static covariate encoder cast to bf16, its LayerNorm given fp32 store/item covariates
    "tft-static-covariates-layer-norm-bf16": case(_tft_static_covariates_layer_norm, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # bf16 item queries attending over store context from an fp32 store encoder with SDPA
    "store-context-sdpa-fp32-keys": case(_store_context_sdpa_fp32_keys, "sdpa_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # Croston demand-size level lerp_'d with per-item alpha from a pandas config (float64)
    "croston-size-lerp-float64-alpha": case(_croston_lerp_float64_alpha, "lerp_dtype", "f32", "f64",
        grade="correct", grade_at_freeze="correct"),
    # EAN-13 barcodes put into an int32 tensor
    "ean13-barcodes-int32-overflow": case(_ean13_barcodes_int32, "half_overflow", "int32",
        grade="correct", grade_at_freeze="correct"),
    # fp16 supplier capacities padded with a 1e6 "unlimited" spot-market column by F.pad
    "unlimited-capacity-pad-1e6-fp16": case(_unlimited_capacity_pad_fp16, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 Poisson rate = base * exp(promo lift): exp overflows, a zero-base new item gives 0 * inf = NaN
    "poisson-rate-zero-base-inf-lift-nan": case(_poisson_rate_zero_base_times_inf_lift, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # Tweedie deviance by hand in fp16: mu ** (2 - p) of a 100k-unit SKU overflows, NaN in backward (anomaly mode)
    "tweedie-deviance-fp16-anomaly-nan": case(_tweedie_fp16_anomaly, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # bf16 order quantities rounded up to case packs with np.ceil
    "replenishment-np-ceil-bf16-orders": case(_replenishment_np_ceil_bf16_orders, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # gradient accumulation over stores with GradScaler: unscale_ called on every micro-batch
    "grad-accumulation-unscale-each-micro-batch": case(_grad_accumulation_unscale_each_micro_batch, "loss_scale",
        grade="correct", grade_at_freeze="correct"),
}
