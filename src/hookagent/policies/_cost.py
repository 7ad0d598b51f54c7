"""`CostLimit`: stop a run once its model calls have cost `max_usd`.

A meter and a limit:

- at after_inference, a guard meters each reply: it prices the reply's usage by the model the
  reply names (`ModelResponse.model_name`) and adds it to the run-metadata total `COST_USD`.
  Every model call is metered, retried ones included, since each is billed. The cost of a step
  is one table lookup (cached per model name) and one addition, whatever the history length.
- the limit, like those in `limits.py`, is checked last at should_continue (audit tier) and
  stops a run that would go on (`stop_reason="cost_limit"`) once the total has reached
  `max_usd`: the step that crosses it still runs its tool calls, and a run that answers on
  that step is completed.

Model calls hooks make for the run (Claude Code prompt and agent handlers, through
`RunView.spend(usage, model=...)`) are priced with the same table: at the next
after_inference, should_continue, stop or execution_end, whichever comes first
(`COST_HOOK_CALLS` counts those already in the total), and the limit's check counts any not
yet priced, so a judge's tokens can end the run at the should_continue after its call.

The model name comes from the reply only: neither the request nor the run view says which
model the run uses. Every built-in driver names it (OpenAI and Anthropic report the exact,
often dated, model; scripted replies say `scripted` unless a turn sets `model`). A reply
that used no tokens costs nothing and is not looked up.

A model missing from the price table ends the run at once (`unknown="error"`, stop reason
`guard`, before its tool calls run) with a message naming the model, or counts as free
(`unknown="ignore"`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final, Literal, final

from hookagent._errors import ConfigError
from hookagent._remedies import UNPRICED_MODEL, advice
from hookagent._usage import Usage
from hookagent.hooks._events import ContinueEvent, InferenceResultEvent, RunEvent, StopEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import AFTER_INFERENCE, EXECUTION_END, SHOULD_CONTINUE, STOP
from hookagent.hooks._result import HookResult
from hookagent.kernel._metadata import MetadataKey
from hookagent.kernel._view import RunView
from hookagent.models._prices import PRICES, Price, cost, price_for
from hookagent.policies._limits import Limit

__all__ = ["COST_HOOK_CALLS", "COST_USD", "CostLimit"]

COST_USD: Final = MetadataKey[float]("cost_usd", default=0.0)
"""What the run's model calls have cost so far, in USD (kept up to date by `CostLimit`)."""
COST_HOOK_CALLS: Final = MetadataKey[int]("cost_hook_calls", default=0)
"""How many of the run's hook model calls (`RunView.hook_spends`) `COST_USD` includes."""

"""The stop reason; `StopReason` in hooks/_result.py does not list it yet."""

_UNKNOWN_MODES: Final = ("error", "ignore")


@final
class CostLimit(Limit):
    """Stops the run once its model calls have cost `max_usd` US dollars.

    `prices` (USD per million tokens) are merged over the built-in `PRICES` table and looked
    up with `price_for`: exact name, name without `provider:`, then the longest listed prefix
    (dated snapshots). Install it with `AgentBuilder().with_(CostLimit(0.50))`.

    `remedy` replaces the advice the stop message for an unpriced model gives (how to pass
    `prices` here), for a surface that prices models another way (as does the surface's
    advice, see `remedies`); `{model}` in it is replaced by the model's name.
    """

    def __init__(
        self,
        max_usd: float,
        *,
        prices: Mapping[str, Price] | None = None,
        unknown: Literal["error", "ignore"] = "error",
        remedy: str | None = None,
    ) -> None:
        if (
            isinstance(max_usd, bool)
            or not isinstance(max_usd, int | float)
            or not math.isfinite(max_usd)
            or not max_usd > 0
        ):
            raise ConfigError(
                f"must be a positive number of US dollars, not {max_usd!r}",
                key="CostLimit(max_usd)",
                value=max_usd,
            )
        if unknown not in _UNKNOWN_MODES:
            raise ConfigError(
                f"must be 'error' or 'ignore', not {unknown!r}",
                key="CostLimit(unknown)",
                value=unknown,
            )
        self.max_usd = float(max_usd)
        self.unknown = unknown
        self.remedy = remedy
        self.prices: Mapping[str, Price] = MappingProxyType({**PRICES, **_checked(prices)})
        self._resolved: dict[str, Price | None] = {}

    def with_max(self, max_usd: float) -> CostLimit:
        """The same prices and advice, another limit (a run's own `max_cost`)."""
        return CostLimit(max_usd, prices=self.prices, unknown=self.unknown, remedy=self.remedy)

    def hooks(self) -> Iterable[Hook[Any]]:
        meter: dict[str, Any] = {
            "name": "cost_meter",
            "source": "limits",
            "tier": "policy",
            "priority": 100,
            "timeout": None,
        }
        yield make_hook(AFTER_INFERENCE, self.meter, **meter)
        for point in (SHOULD_CONTINUE, STOP, EXECUTION_END):
            yield make_hook(point, self.meter_hooks, **meter)
        yield from self._hooks("cost_limit", self.total, self.max_usd, self.check)

    def price(self, model: str) -> Price | None:
        """The price of `model` in this limit's table (looked up once per name)."""
        try:
            return self._resolved[model]
        except KeyError:
            found = self._resolved[model] = price_for(model, self.prices)
            return found

    def meter(self, event: InferenceResultEvent) -> HookResult | None:
        """Add the reply's cost (and that of hook calls not yet priced) to the total."""
        response = event.response
        return self._add(event.run, ((response.model_name, response.usage),))

    def meter_hooks(self, event: ContinueEvent | StopEvent | RunEvent) -> HookResult | None:
        """Add the cost of hook calls not yet priced to the total."""
        return self._add(event.run, ())

    def _add(
        self, run: RunView, replies: tuple[tuple[str | None, Usage], ...]
    ) -> HookResult | None:
        calls = run.hook_spends
        priced = run.metadata.get(COST_HOOK_CALLS.name, 0)
        spent = 0.0
        for model, usage in (*calls[priced:], *replies):
            if not (usage.input_tokens or usage.output_tokens or usage.cached_tokens):
                continue
            price = self.price(model) if model else None
            if price is None:
                if self.unknown == "ignore":
                    continue
                return HookResult.stop(_unknown(model, self.remedy), stop_reason="guard")
            spent += cost(usage, price)
        changes: dict[str, Any] = {}
        if len(calls) != priced:
            changes[COST_HOOK_CALLS.name] = len(calls)
        if spent:
            total = run.metadata.get(COST_USD.name, 0.0)
            if isinstance(total, bool) or not isinstance(total, int | float):
                return HookResult.stop(
                    f"run metadata {COST_USD.name!r} holds {total!r:.80}, not a number of dollars",
                    stop_reason="guard",
                )
            changes[COST_USD.name] = total + spent
        return HookResult.modify(metadata=changes) if changes else None

    def _unpriced(self, run: RunView) -> float:
        """The cost of hook calls the meter has not added yet (this fold's, which runs the
        meter first but applies its change after the check)."""
        calls = run.hook_spends
        spent = 0.0
        for model, usage in calls[run.metadata.get(COST_HOOK_CALLS.name, 0) :]:
            price = self.price(model) if model else None
            if price is not None:
                spent += cost(usage, price)
        return spent

    def total(self, run: RunView) -> float:
        """What the run has cost so far, hook calls not yet metered included (0 if its
        metadata holds no number)."""
        total = run.metadata.get(COST_USD.name, 0.0)
        if isinstance(total, bool) or not isinstance(total, int | float):
            return 0.0  # the meter stops the run, naming the value, when it next adds to it
        return total + self._unpriced(run)

    def check(self, event: ContinueEvent | StopEvent) -> HookResult | None:
        total = self.total(event.run)
        if total >= self.max_usd:
            return HookResult.stop(
                f"cost limit reached (${total:.4f} of ${_usd(self.max_usd)})",
                stop_reason="cost_limit",
            )
        return None

    def __repr__(self) -> str:
        return f"CostLimit(max_usd={self.max_usd:g}, unknown={self.unknown!r})"


def _checked(prices: Mapping[str, Price] | None) -> Mapping[str, Price]:
    if prices is None:
        return {}
    if not isinstance(prices, Mapping):
        raise ConfigError(
            f"must be a mapping of model name to Price, not {type(prices).__name__}",
            key="CostLimit(prices)",
            value=prices,
        )
    for model, price in prices.items():
        if not isinstance(model, str) or not model:
            raise ConfigError(
                f"model names must be non-empty strings, not {model!r}",
                key="CostLimit(prices)",
                value=model,
            )
        if not isinstance(price, Price):
            raise ConfigError(
                f"must be a Price(input=..., output=...), not {price!r:.80}",
                key=f"CostLimit(prices)[{model!r}]",
                value=price,
            )
    return prices


def _unknown(model: str | None, remedy: str | None) -> str:
    remedy = remedy if remedy is not None else advice(UNPRICED_MODEL, "") or None
    if remedy is not None:
        fix = remedy.replace("{model}", model or "MODEL")
        if not model:
            return f"the model's reply does not name its model, so it cannot be priced; {fix}"
        return f"no price for model {model!r}; {fix}"
    fix = "or CostLimit(..., unknown='ignore') to count its calls as free"
    if not model:
        return f"the model's reply does not name its model, so CostLimit cannot price it; {fix}"
    return (
        f"CostLimit has no price for model {model!r}; pass "
        f'CostLimit(..., prices={{"{model}": Price(input=..., output=...)}}) with its USD '
        f"prices per million tokens, {fix}"
    )


def _usd(amount: float) -> str:
    """Dollars with two to four decimals (`0.01`, `5.00`, `0.0125`)."""
    text = f"{amount:.4f}".rstrip("0")
    if float(text) != amount:
        return f"{amount:g}"
    whole, _, cents = text.partition(".")
    return f"{whole}.{cents.ljust(2, '0')}"
