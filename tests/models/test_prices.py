"""The price table: lookup by exact name, provider prefix and dated snapshot; cost arithmetic."""

from __future__ import annotations

import pytest

import hookagent as h
from hookagent.models._prices import PRICES, Price, cost, price_for

TABLE = {
    "gpt-4.1": Price(2.0, 8.0, cached_input=0.5),
    "gpt-4.1-mini": Price(0.4, 1.6, cached_input=0.1),
    "claude-sonnet-4": Price(3.0, 15.0, cached_input=0.3),
    "claude-sonnet-4-5": Price(3.5, 16.0),
    "odd:name": Price(9.0, 9.0),
}


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("gpt-4.1", "gpt-4.1"),
        ("gpt-4.1-mini", "gpt-4.1-mini"),
        ("openai:gpt-4.1-mini", "gpt-4.1-mini"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),  # longest prefix wins over gpt-4.1
        ("gpt-4.1-2025-04-14", "gpt-4.1"),
        ("openai:gpt-4.1-2025-04-14", "gpt-4.1"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("anthropic:claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("odd:name", "odd:name"),  # an exact key with a colon is not taken for a provider
    ],
)
def test_price_for_finds_the_model(model: str, key: str) -> None:
    assert price_for(model, TABLE) is TABLE[key]


@pytest.mark.parametrize(
    "model",
    [
        "gpt-4",  # a prefix of a key is not a match
        "gpt-4.10",  # a key must be followed by `-`, not any character
        "gpt-4.1mini",
        "mistral:large",
        "openrouter/gpt-4.1",
        ":",
        "",
    ],
)
def test_price_for_an_unknown_model_is_none(model: str) -> None:
    assert price_for(model, TABLE) is None


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("gpt-4o-2024-11-20", "gpt-4o"),
        ("gpt-4o-2024-05-13", "gpt-4o-2024-05-13"),
        ("gpt-5-mini-2025-08-07", "gpt-5-mini"),
        ("o3-pro-2025-06-10", "o3-pro"),
        ("o4-mini-2025-04-16", "o4-mini"),
        ("anthropic:claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("claude-opus-4-5-20251101", "claude-opus-4-5"),
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
    ],
)
def test_the_built_in_table_prices_provider_model_names(model: str, key: str) -> None:
    assert price_for(model) is PRICES[key]


def test_the_built_in_table_has_the_common_models() -> None:
    expected = {
        "gpt-4.1",
        "gpt-4.1-mini",
        "gpt-4.1-nano",
        "gpt-4o",
        "gpt-4o-mini",
        "o3",
        "o4-mini",
        "gpt-5",
        "gpt-5-mini",
        "gpt-5-nano",
        "claude-opus-4",
        "claude-sonnet-4",
        "claude-3-5-haiku",
        "claude-haiku-4-5",
    }
    assert expected <= set(PRICES)
    assert PRICES["gpt-4.1-mini"] == Price(0.40, 1.60, cached_input=0.10)
    with pytest.raises(TypeError):
        PRICES["mine"] = Price(1, 1)  # type: ignore[index]


def test_cost_prices_cached_tokens_apart() -> None:
    price = Price(input=2.0, output=8.0, cached_input=0.5)
    usage = h.Usage(input_tokens=1_000_000, cached_tokens=400_000, output_tokens=250_000)
    # 600k uncached at $2, 400k cached at $0.50, 250k out at $8
    assert cost(usage, price) == pytest.approx(1.2 + 0.2 + 2.0)


def test_cost_of_small_usage() -> None:
    price = PRICES["gpt-4.1-mini"]
    usage = h.Usage(input_tokens=1200, cached_tokens=200, output_tokens=300)
    assert cost(usage, price) == pytest.approx((1000 * 0.40 + 200 * 0.10 + 300 * 1.60) / 1e6)
    assert cost(h.Usage(), price) == 0.0


def test_cached_input_defaults_to_input() -> None:
    price = Price(3, 15)
    assert (price.input, price.output, price.cached_input) == (3.0, 15.0, 3.0)
    assert isinstance(price.cached_input, float)
    usage = h.Usage(input_tokens=1_000_000, cached_tokens=1_000_000)
    assert cost(usage, price) == 3.0


def test_price_is_frozen_and_compares_by_value() -> None:
    assert Price(1, 2) == Price(1.0, 2.0, cached_input=1.0)
    with pytest.raises(AttributeError):
        Price(1, 2).input = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("make", "key"),
    [
        (lambda: Price(-1.0, 2.0), "Price(input)"),
        (lambda: Price(1.0, -0.01), "Price(output)"),
        (lambda: Price(1.0, 2.0, cached_input=-3), "Price(cached_input)"),
        (lambda: Price(float("nan"), 2.0), "Price(input)"),
        (lambda: Price(1.0, float("inf")), "Price(output)"),
        (lambda: Price("1", 2.0), "Price(input)"),
        (lambda: Price(True, 2.0), "Price(input)"),
    ],
)
def test_a_bad_price_is_a_config_error_naming_the_field(make: object, key: str) -> None:
    with pytest.raises(h.ConfigError) as caught:
        make()  # type: ignore[operator]
    assert caught.value.key == key
    assert str(caught.value).startswith(f"{key}: must be a non-negative number")


def test_a_free_model_is_allowed() -> None:
    assert cost(h.Usage(input_tokens=10, output_tokens=10), Price(0, 0)) == 0.0
