import math

import pytest
import torch

from castwise.training import rounds_away, stochastic_round, ulp


def test_one_plus_two_to_minus_nine_is_one_in_bf16():
    one = torch.tensor(1.0, dtype=torch.bfloat16)
    assert (one + 2**-9).item() == 1.0
    assert rounds_away(one, 2**-9).item()
    assert not rounds_away(one, 2**-7).item()  # exactly one ulp: representable
    assert not rounds_away(torch.tensor(1.0), 2**-9).item()  # fp32 keeps it
    assert not rounds_away(one, 0.0).item()  # no update intended, nothing lost


def test_rounds_away_is_elementwise_and_relative_to_the_weight():
    weights = torch.tensor([1.0, 2.0**-6, 256.0], dtype=torch.bfloat16)
    swamped = rounds_away(weights, torch.tensor([1e-3, 1e-3, 0.5]))
    assert swamped.tolist() == [True, False, True]


@pytest.mark.parametrize(
    ("value", "dtype", "expected"),
    [
        (1.0, torch.bfloat16, 2.0**-7),
        (3.0, torch.bfloat16, 2.0**-6),
        (-0.75, torch.bfloat16, 2.0**-8),
        (1.0, torch.float16, 2.0**-10),
        (1.0, torch.float32, 2.0**-23),
        (0.0, torch.float16, 2.0**-24),
    ],
)
def test_ulp(value, dtype, expected):
    assert ulp(torch.tensor([value], dtype=dtype)).item() == expected


def test_ulp_matches_nextafter_in_bf16():
    values = torch.tensor([0.01, 0.3, 1.5, 7.0, 1000.0], dtype=torch.bfloat16)
    up = torch.nextafter(values, torch.full_like(values, math.inf))
    assert torch.equal(ulp(values), (up.float() - values.float()))


def test_stochastic_rounding_is_unbiased_and_lands_on_neighbours():
    torch.manual_seed(0)
    target = 1.0 + 2.0**-10  # an eighth of the way from 1 to the next bf16 (1 + 2^-7)
    rounded = stochastic_round(torch.full((200_000,), target)).float()
    assert set(rounded.unique().tolist()) == {1.0, 1.0 + 2.0**-7}
    assert rounded.mean().item() == pytest.approx(target, abs=2e-5)
    negative = stochastic_round(torch.full((200_000,), -target)).float()
    assert negative.mean().item() == pytest.approx(-target, abs=2e-5)


def test_stochastic_rounding_keeps_exact_and_special_values():
    exact = torch.tensor([1.0, -2.5, 0.0, math.inf, -math.inf])
    assert torch.equal(stochastic_round(exact).float(), exact)
    assert stochastic_round(torch.tensor([math.nan])).isnan().all()
    assert stochastic_round(exact).dtype == torch.bfloat16


def test_wrong_dtypes_raise_clear_errors():
    with pytest.raises(TypeError, match="float32"):
        stochastic_round(torch.ones(3, dtype=torch.float16))
    with pytest.raises(TypeError, match="floating tensor"):
        ulp(torch.ones(3, dtype=torch.int64))
    with pytest.raises(TypeError, match="floating tensor"):
        rounds_away([1.0], 0.1)
