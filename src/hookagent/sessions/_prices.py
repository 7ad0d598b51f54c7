"""`--price MODEL=IN/OUT`: model prices for `--max-cost`, in US dollars per million input
and output tokens, over the built-in table; and the advice a run priced from the command
line gives for a model it cannot price."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from hookagent._errors import ConfigError

if TYPE_CHECKING:
    from hookagent.models._prices import Price

__all__ = ["PRICE_REMEDY", "parse_prices"]

PRICE_REMEDY: Final = (
    "add `--price {model}=IN/OUT` to `hookagent run` with its US dollars per million "
    "input/output tokens"
)


def parse_prices(values: Iterable[str]) -> dict[str, Price]:
    """Each `MODEL=IN/OUT`; a `ConfigError` naming `--price` and the value otherwise."""
    prices: dict[str, Price] = {}
    for value in values:
        model, sep, amounts = value.rpartition("=")
        price = _price(amounts) if sep and model.strip() else None
        if price is None:
            raise ConfigError(
                "must be MODEL=IN/OUT, US dollars per million input/output tokens "
                f"(e.g. my-model=0.5/1.5), not {value!r}",
                key="--price",
                value=value,
            )
        prices[model.strip()] = price
    return prices


def _price(amounts: str) -> Price | None:
    from hookagent.models._prices import Price

    text_in, slash, text_out = amounts.partition("/")
    price_in, price_out = _number(text_in), _number(text_out)
    if not slash or price_in is None or price_out is None:
        return None
    return Price(input=price_in, output=price_out)


def _number(text: str) -> float | None:
    """A finite, non-negative number, or None."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None
