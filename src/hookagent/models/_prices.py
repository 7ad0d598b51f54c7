"""Model prices, and what a reply cost.

`PRICES` is a convenience snapshot of public list prices (USD per million tokens, standard
tier, as published by OpenAI and Anthropic in late 2025). Prices change and differ by tier,
region, batch mode and context length, so treat the table as a default, not a bill: pass your
own prices wherever one is taken (`CostLimit(..., prices={...})` merges them over this table).

Known simplifications: Anthropic cache writes are counted at the plain input price (`Usage`
does not report them apart); long-context surcharges (Claude Sonnet above 200K input tokens)
and audio or image tokens are not modelled.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from types import MappingProxyType
from typing import Final, final

from hookagent._errors import ConfigError
from hookagent._usage import Usage

__all__ = ["PRICES", "Price", "cost", "price_for"]

PER: Final = 1_000_000
"""Prices are quoted per this many tokens."""


@final
@dataclass(frozen=True, slots=True, init=False)
class Price:
    """USD per million tokens: `input` (uncached prompt tokens), `output`, and
    `cached_input` (prompt tokens read from the provider's cache; defaults to `input`)."""

    input: float
    output: float
    cached_input: float

    def __init__(self, input: float, output: float, cached_input: float | None = None) -> None:
        for name, value in (("input", input), ("output", output), ("cached_input", cached_input)):
            if name == "cached_input" and value is None:
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            ):
                raise ConfigError(
                    f"must be a non-negative number of USD per million tokens, not {value!r}",
                    key=f"Price({name})",
                    value=value,
                )
        object.__setattr__(self, "input", float(input))
        object.__setattr__(self, "output", float(output))
        object.__setattr__(
            self, "cached_input", float(input if cached_input is None else cached_input)
        )


PRICES: Final[Mapping[str, Price]] = MappingProxyType(
    {
        model: Price(**row)
        for model, row in tomllib.loads(
            files(__package__).joinpath("prices.toml").read_text(encoding="utf-8")
        ).items()
    }
)
"""Built-in list prices (`prices.toml`, beside this module); a snapshot for convenience,
overridable wherever prices are taken.

Variants that cost more or less than their base name (`o3-pro`, `gpt-5-pro`,
`claude-opus-4-5`…) are listed on their own, because `price_for` otherwise prices a name by
its longest listed prefix."""


def price_for(model: str, table: Mapping[str, Price] = PRICES) -> Price | None:
    """The price of `model` in `table`, or None if it has none.

    Tried in order: the exact name; the name without a `provider:` prefix
    (`openai:gpt-4.1` → `gpt-4.1`); then the longest table key that is a prefix of the name
    followed by `-`, so dated snapshots and aliases find their model
    (`gpt-4.1-mini-2025-04-14` → `gpt-4.1-mini`, `claude-sonnet-4-20250514` →
    `claude-sonnet-4`). Costs one pass over the table at most.
    """
    found = table.get(model)
    if found is not None:
        return found
    provider, colon, bare = model.partition(":")
    name = bare if colon and provider and bare else model
    found = table.get(name)
    if found is not None:
        return found
    best = ""
    for key in table:
        if (
            len(key) > len(best)
            and len(name) > len(key)
            and name[len(key)] == "-"
            and name.startswith(key)
        ):
            best = key
    return table[best] if best else None


def cost(usage: Usage, price: Price) -> float:
    """What `usage` cost in USD at `price`.

    `usage.input_tokens` counts every prompt token, cached or not; the `cached_tokens` part is
    priced at `cached_input`, the rest at `input`, and output tokens at `output`.
    """
    cached = usage.cached_tokens
    uncached = max(usage.input_tokens - cached, 0)
    return (
        uncached * price.input + cached * price.cached_input + usage.output_tokens * price.output
    ) / PER
