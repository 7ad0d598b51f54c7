"""CostLimit meters each model call into run metadata and stops the run at `max_usd`."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import hookagent as h
from hookagent.models._prices import PRICES, Price, cost
from hookagent.policies._cost import COST_USD, CostLimit
from hookagent.testing import FunctionModel, ScriptedModel, reply

ACME = Price(input=1.0, output=2.0, cached_input=0.5)
"""Round prices, so the costs below are exact in binary floating point."""
ACME_USAGE = {"input_tokens": 200_000, "cached_tokens": 100_000, "output_tokens": 50_000}
"""(100k * $1 + 100k * $0.50 + 50k * $2) / 1M = $0.25 a call."""


def acme_turn(model: str = "acme-1", **usage: int) -> dict[str, Any]:
    return {"tool_calls": [{"name": "ping"}], "usage": usage or ACME_USAGE, "model": model}


def agent(
    model: h.Model,
    limit: CostLimit,
    *hooks: tuple[Any, Any, dict[str, Any]],
    pings: list[str] | None = None,
) -> h.Agent:
    def ping() -> str:
        """Answer pong."""
        if pings is not None:
            pings.append("pong")
        return "pong"

    builder = (
        h.AgentBuilder().model(model).tools(ping).limits(max_steps=50, max_tokens=None).with_(limit)
    )
    for point, fn, options in hooks:
        builder.on(point, fn, **options)
    return builder.build()


def total(result: h.RunResult) -> Any:
    return result.state.metadata.get(COST_USD.name)


async def test_the_run_stops_at_the_step_whose_cost_reaches_the_limit() -> None:
    model = ScriptedModel([acme_turn()] * 5)
    result = await agent(model, CostLimit(0.6, prices={"acme-1": ACME})).run("go")

    assert (result.status, result.stop_reason) == ("stopped", "cost_limit")
    assert len(result.steps) == 3
    assert model.remaining == 2
    assert total(result) == 0.75  # exact: 0.25 + 0.25 + 0.25
    [decision] = [d for d in result.decisions.at(h.SHOULD_CONTINUE) if d.outcome == "stop"]
    assert decision.hook == "limits:cost_limit"
    assert decision.reason == "cost limit reached ($0.7500 of $0.60)"
    assert "cost limit reached ($0.7500 of $0.60)" in (result.stop_message or "")


async def test_each_call_is_recorded_as_a_metadata_change() -> None:
    model = ScriptedModel([acme_turn()] * 2)
    result = await agent(model, CostLimit(0.5, prices={"acme-1": ACME})).run("go")

    meters = result.decisions.at(h.AFTER_INFERENCE)
    assert [(d.hook, d.outcome) for d in meters] == [("limits:cost_meter", "modify")] * 2
    assert [dict(d.votes[0].changes) for d in meters] == [
        {"metadata": {"cost_usd": {"after": 0.25}}},
        {"metadata": {"cost_usd": {"after": 0.5}}},
    ]


async def test_a_dated_model_name_is_priced_from_the_built_in_table() -> None:
    usage = {"input_tokens": 10_000, "cached_tokens": 2_000, "output_tokens": 1_000}
    model = ScriptedModel([acme_turn("gpt-4.1-mini-2025-04-14", **usage)] * 4)
    result = await agent(model, CostLimit(0.012)).run("go")

    step = cost(h.Usage(**usage), PRICES["gpt-4.1-mini"])
    assert step == pytest.approx(0.005)
    assert result.stop_reason == "cost_limit"
    assert len(result.steps) == 3
    assert total(result) == step + step + step
    assert result.stop_message is not None
    assert result.stop_message.startswith("cost limit reached ($0.0150 of $0.012)")


async def test_the_limit_is_not_reached_below_max_usd() -> None:
    model = ScriptedModel([acme_turn(), acme_turn(), reply("done")])
    result = await agent(model, CostLimit(1.0, prices={"acme-1": ACME})).run("go")
    assert (result.status, result.stop_reason) == ("completed", "completed")
    assert total(result) == 0.5


async def test_a_provider_prefixed_name_is_priced() -> None:
    model = ScriptedModel([acme_turn("acme:acme-1")] * 2)
    result = await agent(model, CostLimit(0.25, prices={"acme-1": ACME})).run("go")
    assert (result.stop_reason, len(result.steps), total(result)) == ("cost_limit", 1, 0.25)


async def test_override_prices_are_merged_over_the_built_in_table() -> None:
    pricey = Price(input=10.0, output=10.0)
    limit = CostLimit(1.0, prices={"gpt-4.1-mini": pricey, "acme-1": ACME})
    assert limit.prices["gpt-4.1-mini"] is pricey
    assert limit.prices["acme-1"] is ACME
    assert limit.prices["gpt-4o"] is PRICES["gpt-4o"]
    assert PRICES["gpt-4.1-mini"] != pricey  # the built-in table is untouched

    usage = {"input_tokens": 100_000, "output_tokens": 0}
    model = ScriptedModel([acme_turn("gpt-4.1-mini-2025-04-14", **usage)] * 3)
    result = await agent(model, limit).run("go")
    assert (result.stop_reason, len(result.steps), total(result)) == ("cost_limit", 1, 1.0)


async def test_an_unknown_model_stops_the_run_naming_the_model_and_the_fix() -> None:
    model = ScriptedModel([acme_turn("mystery-9")] * 2)
    pings: list[str] = []
    result = await agent(model, CostLimit(1.0), pings=pings).run("go")

    assert (result.status, result.stop_reason) == ("stopped", "guard")
    message = result.stop_message or ""
    assert "no price for model 'mystery-9'" in message
    assert 'CostLimit(..., prices={"mystery-9": Price(input=..., output=...)})' in message
    assert "(hook limits:cost_meter at after_inference)" in message
    assert pings == []  # stopped before the reply's tool calls ran
    assert total(result) is None


async def test_scripted_replies_with_usage_need_a_price_for_scripted() -> None:
    usage = h.Usage(input_tokens=10, output_tokens=10)
    model = ScriptedModel([h.ModelResponse(message=h.AssistantMessage(content="hi"), usage=usage)])
    model_name_less = await agent(model, CostLimit(1.0)).run("go")
    assert model_name_less.stop_reason == "guard"
    assert "does not name its model" in (model_name_less.stop_message or "")

    named = ScriptedModel([h.testing.reply("hi", usage=usage)])
    result = await agent(named, CostLimit(1.0)).run("go")
    assert "no price for model 'scripted'" in (result.stop_message or "")


async def test_an_unknown_model_counts_as_free_with_ignore() -> None:
    model = ScriptedModel([acme_turn("mystery-9"), acme_turn("acme-1"), reply("done")])
    limit = CostLimit(1.0, prices={"acme-1": ACME}, unknown="ignore")
    pings: list[str] = []
    result = await agent(model, limit, pings=pings).run("go")
    assert (result.status, result.stop_reason) == ("completed", "completed")
    assert pings == ["pong", "pong"]
    assert total(result) == 0.25


async def test_a_reply_without_tokens_costs_nothing_and_needs_no_price() -> None:
    model = ScriptedModel([{"tool_calls": [{"name": "ping"}]}, reply("done")])
    result = await agent(model, CostLimit(0.01)).run("go")
    assert result.status == "completed"
    assert total(result) is None
    assert result.decisions.at(h.AFTER_INFERENCE) == []


async def test_retried_calls_are_billed_too() -> None:
    def once(event: h.InferenceResultEvent) -> h.HookResult | None:
        return h.HookResult.retry("try again") if event.attempt == 1 else None

    # each step's first reply is retried: both acme calls are billed, one step runs ping
    model = ScriptedModel([acme_turn(), acme_turn(), reply("retried"), reply("done")])
    built = agent(
        model,
        CostLimit(5.0, prices={"acme-1": ACME}),
        (h.AFTER_INFERENCE, once, {"kind": "transform"}),
    )
    result = await built.run("go")
    assert result.status == "completed"
    assert model.remaining == 0
    assert len(result.steps) == 2
    assert total(result) == 0.5


async def test_the_total_starts_from_the_runs_metadata() -> None:
    model = ScriptedModel([acme_turn()] * 3)
    built = agent(model, CostLimit(1.0, prices={"acme-1": ACME}))
    result = await built.run("go", metadata=COST_USD(0.8))
    assert (result.stop_reason, len(result.steps), total(result)) == ("cost_limit", 1, 1.05)


async def test_a_user_hook_cannot_outvote_the_limit() -> None:
    def keep_going(event: h.ContinueEvent) -> h.HookResult:
        return h.HookResult.continue_("keep going")

    model = FunctionModel(lambda request: h.ModelResponse(**acme_response()))
    built = agent(
        model,
        CostLimit(0.5, prices={"acme-1": ACME}),
        (h.SHOULD_CONTINUE, keep_going, {"priority": 1000}),
        (h.SHOULD_CONTINUE, keep_going, {"priority": 1000, "tier": "system", "name": "sys"}),
    )
    result = await built.run("go")
    assert (result.stop_reason, len(result.steps)) == ("cost_limit", 2)


def acme_response() -> dict[str, Any]:
    call = h.ToolCall(id=f"c{next(_ids)}", name="ping", args={})
    return {
        "message": h.AssistantMessage(tool_calls=(call,)),
        "usage": h.Usage(**ACME_USAGE, requests=1),
        "model_name": "acme-1",
    }


_ids = itertools.count()


def test_cost_limit_is_a_capability_a_meter_and_a_limit_checked_last() -> None:
    limit = CostLimit(1.0)
    assert isinstance(limit, h.Capability)
    assert list(limit.tools()) == []
    hooks = list(limit.hooks())
    assert [(x.id, x.point, x.tier, x.kind, x.always) for x in hooks] == [
        ("limits:cost_meter", h.AFTER_INFERENCE, "policy", "guard", False),
        ("limits:cost_meter", h.SHOULD_CONTINUE, "policy", "guard", False),  # hooks' calls
        ("limits:cost_meter", h.STOP, "policy", "guard", False),
        ("limits:cost_meter", h.EXECUTION_END, "policy", "guard", False),
        ("limits:cost_limit", h.SHOULD_CONTINUE, "audit", "guard", True),
        ("limits:cost_limit", h.STOP, "audit", "guard", True),
    ]
    assert COST_USD.name == "cost_usd"


def test_model_prices_are_looked_up_once_per_name() -> None:
    limit = CostLimit(1.0, prices={"acme-1": ACME})
    assert limit.price("acme-1-2025") is ACME
    assert limit.price("acme-1-2025") is ACME
    assert limit.price("mystery") is None
    assert set(limit._resolved) == {"acme-1-2025", "mystery"}


@pytest.mark.parametrize(
    ("make", "key"),
    [
        (lambda: CostLimit(0), "CostLimit(max_usd)"),
        (lambda: CostLimit(-0.5), "CostLimit(max_usd)"),
        (lambda: CostLimit(float("nan")), "CostLimit(max_usd)"),
        (lambda: CostLimit(float("inf")), "CostLimit(max_usd)"),
        (lambda: CostLimit("1"), "CostLimit(max_usd)"),
        (lambda: CostLimit(True), "CostLimit(max_usd)"),
        (lambda: CostLimit(1, unknown="warn"), "CostLimit(unknown)"),
        (lambda: CostLimit(1, prices=[("m", Price(1, 1))]), "CostLimit(prices)"),
        (lambda: CostLimit(1, prices={"": Price(1, 1)}), "CostLimit(prices)"),
        (lambda: CostLimit(1, prices={"m": (1.0, 2.0)}), "CostLimit(prices)['m']"),
        (lambda: CostLimit(1, prices={"m": Price(-1.0, 2.0)}), "Price(input)"),
        (
            lambda: CostLimit(1, prices={"m": Price(1.0, 2.0, cached_input=-1)}),
            "Price(cached_input)",
        ),
    ],
)
def test_bad_config_is_a_config_error_naming_the_key(make: object, key: str) -> None:
    with pytest.raises(h.ConfigError) as caught:
        make()  # type: ignore[operator]
    assert caught.value.key == key
    assert str(caught.value).startswith(f"{key}: ")


async def test_a_run_stopped_by_the_limit_round_trips_through_json() -> None:
    model = ScriptedModel([acme_turn()] * 2)
    result = await agent(model, CostLimit(0.25, prices={"acme-1": ACME})).run("go")
    assert result.stop_reason == "cost_limit"
    again = h.RunState.from_json(result.state.to_json())
    assert again.stop_reason == "cost_limit"


async def test_a_remedy_replaces_the_advice_for_an_unpriced_model() -> None:
    remedy = "add --price {model}=IN/OUT"
    named = agent(ScriptedModel([acme_turn("mystery-9")]), CostLimit(1.0, remedy=remedy))
    result = await named.run("go")
    assert (result.stop_message or "").startswith(
        "no price for model 'mystery-9'; add --price mystery-9=IN/OUT"
    )
    usage = h.Usage(input_tokens=10, output_tokens=10)
    nameless = ScriptedModel(
        [h.ModelResponse(message=h.AssistantMessage(content="hi"), usage=usage)]
    )
    result = await agent(nameless, CostLimit(1.0, remedy=remedy)).run("go")
    assert "cannot be priced; add --price MODEL=IN/OUT" in (result.stop_message or "")


async def test_a_run_that_answers_on_the_step_that_crosses_the_limit_is_completed() -> None:
    answer = {"text": "all done", "usage": ACME_USAGE, "model": "acme-1"}
    model = ScriptedModel([acme_turn(), answer])
    result = await agent(model, CostLimit(0.4, prices={"acme-1": ACME})).run("go")
    assert (result.status, result.output) == ("completed", "all done")
    assert total(result) == 0.5


async def test_a_stop_hooks_block_past_the_limit_becomes_a_cost_stop() -> None:
    answer = {"text": "done?", "usage": ACME_USAGE, "model": "acme-1"}
    model = ScriptedModel([answer, answer])
    keep_going = (h.STOP, lambda e: h.HookResult.block("not yet"), {})
    result = await agent(model, CostLimit(0.2, prices={"acme-1": ACME}), keep_going).run("go")
    assert (result.status, result.stop_reason) == ("stopped", "cost_limit")
    assert model.remaining == 1
