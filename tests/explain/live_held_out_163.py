"""Held-out live set 163: retail demand forecasting and inventory written by hand in low precision (int32 store and
item ids, float64 sales from pandas, bool promotion flags, fp16 temporal conv nets, bf16 embedding tables, uint8
day-of-week codes). Defects planted by a helper who never read the rules, written before castwise ran and graded once
with the rules frozen at d523f429."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from .live_cases import LiveCase, case

FROZEN_AT = "d523f429"

bf16, f16 = torch.bfloat16, torch.float16
_DAYS = 28
_STORES = 6
_ITEMS = 12


def _seeded() -> None:
    torch.manual_seed(0)


def _sales_frame() -> pd.DataFrame:
    """Four weeks of daily sales for two store/item series, as read from the POS extract."""
    rng = np.random.default_rng(0)
    dates = pd.date_range("2024-03-04", periods=_DAYS, freq="D")
    frames = []
    for store, item in ((1, 101), (2, 101)):
        frames.append(pd.DataFrame({
            "date": dates,
            "store_nbr": np.int32(store),
            "item_nbr": np.int32(item),
            "unit_sales": rng.poisson(20, _DAYS).astype(np.float64),
            "onpromotion": rng.random(_DAYS) < 0.2,
            "sell_price": np.round(rng.uniform(1.5, 3.0, _DAYS), 2),
        }))
    return pd.concat(frames, ignore_index=True)


def _dow_codes() -> torch.Tensor:
    dates = pd.date_range("2024-03-04", periods=_DAYS, freq="D")
    return torch.from_numpy(dates.dayofweek.to_numpy().astype(np.uint8))  # cached compactly with the features


class _TemporalBlock(nn.Module):
    """A causal TCN block: two dilated convs, chomped, and a 1x1 downsample on the residual."""

    def __init__(self, c_in: int, c_out: int, dilation: int) -> None:
        super().__init__()
        self.pad = 2 * dilation
        self.conv1 = nn.Conv1d(c_in, c_out, 3, dilation=dilation, padding=self.pad)
        self.conv2 = nn.Conv1d(c_out, c_out, 3, dilation=dilation, padding=self.pad)
        self.downsample = nn.Conv1d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.conv1(x)[..., :-self.pad])
        h = F.relu(self.conv2(h)[..., :-self.pad])
        return F.relu(h + self.downsample(x))


# --- ids, codes, flags and masks -------------------------------------------------------------------------------------


def _weekly_profile_indexed_by_uint8_dow() -> None:
    dow = _dow_codes()
    weekly_profile = torch.tensor([0.92, 0.95, 0.97, 1.0, 1.12, 1.31, 0.73])
    baseline = torch.full((_DAYS,), 40.0)
    baseline * weekly_profile[dow]


def _kmeans_int32_store_clusters_cross_entropy() -> None:
    from sklearn.cluster import KMeans

    _seeded()
    profiles = np.random.default_rng(0).random((_STORES * 4, 7))  # each store's normalised weekly sales shape
    clusters = KMeans(n_clusters=3, n_init=1, random_state=0).fit(profiles).labels_  # int32
    classifier = nn.Linear(7, 3)
    logits = classifier(torch.from_numpy(profiles).float())
    F.cross_entropy(logits, torch.from_numpy(clusters))


def _lead_time_int32_take_along_dim() -> None:
    _seeded()
    horizon = 14
    forecasts = torch.rand(_ITEMS, horizon) * 30  # cumulative demand over the next 14 days
    suppliers = pd.DataFrame({"item_nbr": np.arange(_ITEMS, dtype=np.int32),
                              "lead_time_days": np.array([3, 5, 7, 2] * 3, dtype=np.int32)})
    lead = torch.from_numpy(suppliers["lead_time_days"].to_numpy())[:, None] - 1
    torch.take_along_dim(forecasts, lead, dim=1)


def _store_closed_int32_masked_fill() -> None:
    _seeded()
    calendar = pd.DataFrame({"store_nbr": np.repeat(np.arange(_STORES, dtype=np.int32), 7),
                             "open": np.tile(np.array([1, 1, 1, 1, 1, 1, 0], dtype=np.int32), _STORES)})
    forecast = torch.rand(_STORES, 7) * 50
    closed = 1 - torch.from_numpy(calendar["open"].to_numpy()).view(_STORES, 7)
    forecast.masked_fill(closed, 0.0)


def _promo_bool_channel_into_fp16_tcn() -> None:
    _seeded()
    frame = _sales_frame()
    promo = torch.from_numpy(frame["onpromotion"].to_numpy()).view(2, 1, _DAYS)
    promo_encoder = nn.Conv1d(1, 8, 3, padding=2).half()
    promo_encoder(promo)


def _promo_last_week_max_pool_bool() -> None:
    frame = _sales_frame()
    promo = torch.from_numpy(frame["onpromotion"].to_numpy()).view(2, 1, _DAYS)
    F.max_pool1d(F.pad(promo, (6, 0)), kernel_size=7, stride=1)  # "any promo in the last 7 days"


def _promo_or_holiday_on_fp16_batch() -> None:
    frame = _sales_frame()
    batch = {"promo": torch.from_numpy(frame["onpromotion"].to_numpy()),
             "sales": torch.from_numpy(frame["unit_sales"].to_numpy())}
    batch = {key: value.to(f16) for key, value in batch.items()}  # the fp16 TCN's input pipeline
    holiday = torch.zeros(2 * _DAYS, dtype=torch.bool)
    holiday[[4, 4 + _DAYS]] = True
    batch["promo"] | holiday


def _assortment_int32_matmul_item_forecasts() -> None:
    _seeded()
    assortment = torch.from_numpy(np.random.default_rng(1).integers(0, 2, (_STORES, _ITEMS), dtype=np.int32))
    item_forecasts = torch.rand(_ITEMS, 7) * 20
    assortment @ item_forecasts  # store totals per day


def _day_of_year_codes_uint8() -> None:
    dates = pd.date_range("2024-11-01", periods=_DAYS, freq="D")
    torch.tensor(dates.dayofyear.tolist(), dtype=torch.uint8)  # stored like the day-of-week codes


def _weekly_units_int32_plus_f64_sales() -> None:
    frame = _sales_frame()
    daily = torch.from_numpy(frame["unit_sales"].to_numpy()).view(2, 4, 7)
    weekly_units = torch.zeros(2, 4, dtype=torch.int32)
    weekly_units += daily.sum(-1)


# --- floating dtypes meeting, kernels, ranges ------------------------------------------------------------------------


def _fp16_tcn_given_pandas_f64_sales() -> None:
    _seeded()
    frame = _sales_frame()
    pivot = frame.pivot_table(index=["store_nbr", "item_nbr"], columns="date", values="unit_sales")
    series = torch.from_numpy(np.log1p(pivot.to_numpy()))[:, None]
    tcn = _TemporalBlock(1, 8, dilation=1).half()
    tcn(series)


def _tcn_downsample_left_fp32() -> None:
    _seeded()
    block = _TemporalBlock(3, 8, dilation=2)
    block.conv1.half()
    block.conv2.half()  # "only the dilated convs are heavy": the 1x1 downsample stays fp32
    x = torch.randn(2, 3, _DAYS).half()
    block(x)


def _tcn_group_norm_fp16_fp32_covariates() -> None:
    _seeded()
    covariate_norm = nn.GroupNorm(2, 4).half()  # part of the TCN that was .half()'d
    price = torch.rand(2, 1, _DAYS) * 3
    promo = torch.rand(2, 1, _DAYS) > 0.8
    dow = _dow_codes().float().expand(2, 1, _DAYS) / 6
    holiday = torch.zeros(2, 1, _DAYS)
    covariates = torch.cat([price, promo.float(), dow, holiday], dim=1)
    covariate_norm(covariates)


def _embedding_bag_bf16_quantity_weights() -> None:
    _seeded()
    basket_encoder = nn.EmbeddingBag(_ITEMS, 16, mode="sum").to(bf16)
    items = torch.tensor([3, 7, 7, 1, 4], dtype=torch.int32)
    offsets = torch.tensor([0, 3], dtype=torch.int32)
    quantities = torch.tensor([2.0, 1.0, 5.0, 1.0, 3.0])
    basket_encoder(items, offsets, per_sample_weights=quantities)


def _cold_start_rows_fp32_into_bf16_table() -> None:
    _seeded()
    item_table = nn.Embedding(_ITEMS, 16).to(bf16)
    category_of = torch.tensor([0, 0, 1, 1, 2, 2, 0, 1, 2, 0, 1, 2], dtype=torch.int32)
    new_items = torch.tensor([10, 11], dtype=torch.int32)
    category_means = torch.stack([item_table.weight[category_of == c].float().mean(0) for c in range(3)])
    with torch.no_grad():
        item_table.weight[new_items] = category_means[category_of[new_items]]


def _orthogonal_init_bf16_store_table() -> None:
    _seeded()
    store_table = nn.Embedding(_STORES, 16, dtype=bf16)
    nn.init.orthogonal_(store_table.weight)


def _closed_days_minus_1e9_fp16_scores() -> None:
    _seeded()
    hidden = torch.randn(2, _DAYS, 16).half()  # fp16 TCN features
    scores = hidden @ hidden.transpose(1, 2) / 4
    closed = torch.zeros(2, _DAYS, dtype=torch.bool)
    closed[:, 6::7] = True  # Sundays
    scores.masked_fill(closed[:, None, :], -1e9).softmax(-1)


def _item_queries_bf16_tcn_keys_fp16_sdpa() -> None:
    _seeded()
    item_queries = nn.Embedding(_ITEMS, 32).to(bf16)(torch.tensor([[1, 5]], dtype=torch.int32))
    history = torch.randn(1, _DAYS, 32).half()  # output of the fp16 TCN encoder
    q = item_queries[:, None]
    k = v = history[:, None]
    F.scaled_dot_product_attention(q, k, v)


def _dow_one_hot_uint8_times_fp16_profile() -> None:
    _seeded()
    one_hot = torch.from_numpy(np.eye(7, dtype=np.uint8)[_dow_codes().numpy()])
    weekly_weights = nn.Parameter(torch.ones(7, 4)).half()
    one_hot @ weekly_weights


def _item_embeddings_bf16_einsum_fp16_context() -> None:
    _seeded()
    item_vectors = nn.Embedding(_ITEMS, 16).to(bf16)(torch.arange(_ITEMS, dtype=torch.int32))
    context = torch.randn(2, _DAYS, 16).half()  # fp16 TCN output per store
    torch.einsum("sdh,ih->sdi", context, item_vectors)


def _fp16_lstm_decoder_f64_prices() -> None:
    _seeded()
    frame = _sales_frame()
    prices = torch.from_numpy(frame[["sell_price", "unit_sales"]].to_numpy()).view(2, _DAYS, 2)
    decoder = nn.LSTM(2, 16, batch_first=True).half()
    decoder(prices)


def _p90_quantile_fp16_sample_paths() -> None:
    _seeded()
    paths = (torch.rand(100, 14) * 40).half()  # sample paths from the fp16 TCN's sampler
    torch.quantile(paths.sum(-1), 0.9)


def _demand_bucket_ce_fp32_weights_fp16_logits() -> None:
    _seeded()
    head = nn.Linear(16, 5).half()
    logits = head(torch.randn(8, 16).half())
    buckets = torch.tensor([0, 1, 1, 2, 4, 0, 0, 3])
    class_weights = 1.0 / torch.bincount(buckets, minlength=5).clamp(min=1).float()
    F.cross_entropy(logits, buckets, weight=class_weights)


def _store_embeddings_bf16_to_numpy_kmeans() -> None:
    _seeded()
    store_table = nn.Embedding(_STORES, 16).to(bf16)
    store_table.weight.detach().numpy()


def _favorita_values_with_bool_promo() -> None:
    frame = _sales_frame()
    torch.from_numpy(frame[["unit_sales", "onpromotion"]].values)


def _window_sampling_multinomial_nan_share() -> None:
    window_sales = torch.tensor([[12.0, 9.0, 15.0, 11.0],
                                 [0.0, 0.0, 0.0, 0.0],  # store 2 closed for renovation all month
                                 [3.0, 4.0, 2.0, 6.0]])
    share = window_sales / window_sales.sum(-1, keepdim=True)
    torch.multinomial(share, 1)  # one training window per series, busier windows more often


def _level_lerp_fp32_toward_fp16_tcn() -> None:
    _seeded()
    level = torch.full((_ITEMS,), 20.0)
    denoised = (torch.rand(_ITEMS) * 30).half()  # the fp16 TCN's smoothed sales of the day
    level.lerp_(denoised, 0.2)


def _store_item_bmm_bf16_f32() -> None:
    _seeded()
    store_vectors = nn.Embedding(_STORES, 16).to(bf16)(torch.arange(_STORES, dtype=torch.int32))
    item_vectors = torch.randn(_STORES, _ITEMS, 16)  # per-store item vectors computed in fp32
    torch.bmm(store_vectors[:, None, :], item_vectors.transpose(1, 2))


def _mha_fp32_calendar_mask_fp16() -> None:
    _seeded()
    attention = nn.MultiheadAttention(16, 2, batch_first=True).half()
    x = torch.randn(2, 14, 16).half()
    causal = torch.triu(torch.full((14, 14), float("-inf")), diagonal=1)
    attention(x, x, x, attn_mask=causal)  # attention weights kept for the holiday-effect plots


def _grad_fp32_accumulator_bf16_table() -> None:
    _seeded()
    item_table = nn.Embedding(_ITEMS, 16).to(bf16)
    accumulated = torch.zeros(_ITEMS, 16)
    for step in range(2):
        out = item_table(torch.tensor([step, step + 3], dtype=torch.int32))
        grad, = torch.autograd.grad(out.float().pow(2).sum(), item_table.weight)
        accumulated += grad.float()
    item_table.weight.grad = accumulated / 2


CASES: dict[str, LiveCase] = {
    # a 7-value weekly profile indexed with the uint8 day-of-week codes (taken as a byte mask, not as indices)
    "weekly-profile-uint8-dow-index": case(_weekly_profile_indexed_by_uint8_dow, "index_tensor_dtype",
        grade="correct", grade_at_freeze="correct"),
    # store-cluster classifier trained on sklearn KMeans labels_ (int32) as cross_entropy's target
    "kmeans-int32-store-clusters-cross-entropy": case(_kmeans_int32_store_clusters_cross_entropy, "target_dtype",
                                                      "int32",
        grade="correct", grade_at_freeze="correct"),
    # demand over each item's lead time picked by take_along_dim with int32 lead times from the supplier table
    "lead-time-int32-take-along-dim": case(_lead_time_int32_take_along_dim, "index_tensor_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # closed days as 1 - the int32 `open` column, used as masked_fill's mask
    "store-closed-int32-masked-fill": case(_store_closed_int32_masked_fill, "mask_dtype", "int32",
        grade="correct", grade_at_freeze="correct"),
    # the bool promo flags fed as a channel into the fp16 TCN's promo encoder conv
    "promo-bool-channel-fp16-tcn-conv": case(_promo_bool_channel_into_fp16_tcn, "integer_operand", "bool", "f16",
        grade="correct", grade_at_freeze="correct"),
    # "any promo in the last week" by max_pool1d over the bool promo flags
    "promo-last-week-max-pool-bool": case(_promo_last_week_max_pool_bool, "integer_operand", "bool",
        grade="correct", grade_at_freeze="correct"),
    # promo-or-holiday with `|` after the whole batch, promo flags included, was cast to fp16
    "promo-or-holiday-fp16-batch-bitwise-or": case(_promo_or_holiday_on_fp16_batch, "no_kernel", "f16",
        grade="correct", grade_at_freeze="correct"),
    # store totals by the int32 store x item assortment matrix @ fp32 item forecasts
    "assortment-int32-matmul-item-forecasts": case(_assortment_int32_matmul_item_forecasts, "integer_operand",
                                                   "int32", "f32",
        grade="correct", grade_at_freeze="correct"),
    # day-of-year codes put into uint8 like the day-of-week codes (values past 255 in November)
    "day-of-year-codes-uint8-overflow": case(_day_of_year_codes_uint8, "half_overflow", "uint8",
        grade="correct", grade_at_freeze="correct"),
    # float64 daily sales summed into an int32 weekly-units buffer in place
    "weekly-units-int32-plus-f64-sales": case(_weekly_units_int32_plus_f64_sales, "result_cast", "f64", "int32",
        grade="correct", grade_at_freeze="correct"),
    # float64 log sales from a pandas pivot_table into a .half()'d TCN block
    "fp16-tcn-pandas-f64-sales": case(_fp16_tcn_given_pandas_f64_sales, "conv_weight_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # only the TCN's dilated convs .half()'d: the 1x1 residual downsample stays fp32 and gets the fp16 input
    "tcn-downsample-left-fp32": case(_tcn_downsample_left_fp32, "conv_weight_dtype", "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # covariate GroupNorm of the .half()'d TCN given the fp32 price/promo/calendar covariates
    "tcn-group-norm-fp16-fp32-covariates": case(_tcn_group_norm_fp16_fp32_covariates, "norm_param_dtype", "f32",
        grade="correct", grade_at_freeze="correct"),
    # basket encoder: bf16 EmbeddingBag with fp32 item quantities as per_sample_weights
    "embedding-bag-bf16-quantity-weights": case(_embedding_bag_bf16_quantity_weights, "op_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # cold-start items: fp32 category means written into rows of the bf16 item table
    "cold-start-rows-fp32-into-bf16-table": case(_cold_start_rows_fp32_into_bf16_table, "indexed_write_dtype",
                                                 "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # store embedding table created in bf16 and given an orthogonal init
    "orthogonal-init-bf16-store-table": case(_orthogonal_init_bf16_store_table, "no_kernel", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # closed Sundays masked with -1e9 in the fp16 TCN's self-attention scores
    "closed-days-minus-1e9-fp16-scores": case(_closed_days_minus_1e9_fp16_scores, "half_overflow", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 item-embedding queries attending over the fp16 TCN history with SDPA
    "item-queries-bf16-tcn-keys-fp16-sdpa": case(_item_queries_bf16_tcn_keys_fp16_sdpa, "sdpa_dtype", "bf16",
                                                 "f16",
        grade="correct", grade_at_freeze="correct"),
    # day-of-week one-hot from np.eye(7, dtype=uint8) @ the fp16 weekly seasonal weights
    "dow-one-hot-uint8-fp16-weights": case(_dow_one_hot_uint8_times_fp16_profile, "matmul_dtype", "uint8", "f16",
        grade="correct", grade_at_freeze="correct"),
    # fp16 TCN context einsum'd with the bf16 item embeddings for per-item scores
    "item-embeddings-bf16-einsum-fp16-context": case(_item_embeddings_bf16_einsum_fp16_context, "matmul_dtype",
                                                     "f16", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # a .half()'d LSTM decoder given float64 price and sales columns from pandas
    "fp16-lstm-decoder-f64-prices": case(_fp16_lstm_decoder_f64_prices, "rnn_dtype", "f64", "f16",
        grade="correct", grade_at_freeze="correct"),
    # P90 of the 14-day demand over fp16 sample paths with torch.quantile
    "p90-quantile-fp16-sample-paths": case(_p90_quantile_fp16_sample_paths, "no_kernel",
        grade="correct", grade_at_freeze="correct"),
    # demand-bucket classifier: fp32 inverse-frequency class weights with the fp16 head's logits
    "demand-bucket-ce-fp32-weights-fp16-logits": case(_demand_bucket_ce_fp32_weights_fp16_logits, "op_dtype",
                                                      "f16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # the bf16 store embeddings handed to numpy for store clustering
    "store-embeddings-bf16-to-numpy": case(_store_embeddings_bf16_to_numpy_kmeans, "numpy_dtype", "bf16",
        grade="correct", grade_at_freeze="correct"),
    # .values of the float64 unit_sales and bool onpromotion columns together is an object array
    "sales-and-bool-promo-values-object-array": case(_favorita_values_with_bool_promo, "numpy_dtype",
        grade="correct", grade_at_freeze="correct"),
    # training windows sampled by sales share: a store with no sales has a 0/0 share of NaN
    "window-sampling-multinomial-nan-share": case(_window_sampling_multinomial_nan_share, "nonfinite",
        grade="correct", grade_at_freeze="correct"),
    # exponential-smoothing level (fp32) lerp_'d toward the fp16 TCN's denoised sales
    "level-lerp-fp32-toward-fp16-tcn": case(_level_lerp_fp32_toward_fp16_tcn, "lerp_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # bf16 store vectors bmm'd with per-store item vectors computed in fp32
    "store-item-bmm-bf16-f32": case(_store_item_bmm_bf16_f32, "batched_matmul_dtype", "bf16", "f32",
        grade="correct", grade_at_freeze="correct"),
    # a .half()'d MultiheadAttention over days given an fp32 causal float mask
    "mha-fp32-causal-mask-fp16": case(_mha_fp32_calendar_mask_fp16, "attn_mask_dtype", "f32", "f16",
        grade="correct", grade_at_freeze="correct"),
    # gradient accumulation for the bf16 item table in an fp32 buffer, assigned to .grad
    "grad-fp32-accumulator-bf16-table": case(_grad_fp32_accumulator_bf16_table, "loss_dtype", "f32", "bf16",
        grade="correct", grade_at_freeze="correct"),
}
