"""`@tool` turns typed functions into tools with schemas and validated arguments."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

import hookagent as h
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.testing import ScriptedModel, reply, tool_call


def ctx() -> h.ToolContext:
    return h.ToolContext(run=RunView(RunState()), call=h.ToolCall(id="c1", name="t"))


@h.tool
def search(query: str, limit: int = 10, mode: Literal["fast", "deep"] = "fast") -> list[str]:
    """Search the index."""
    return [f"{query}:{limit}:{mode}"]


def test_the_schema_comes_from_the_signature_and_docstring() -> None:
    assert search.name == "search"
    assert search.description == "Search the index."
    schema = search.parameters
    assert schema["required"] == ["query"]
    assert schema["properties"]["limit"]["default"] == 10
    assert schema["properties"]["mode"]["enum"] == ["fast", "deep"]
    assert schema["additionalProperties"] is False


async def test_calls_are_validated_and_results_serialised() -> None:
    result = await search({"query": "x", "limit": "3"}, ctx())
    assert result.content == '["x:3:fast"]' and not result.is_error
    bad = await search({"limit": "many", "extra": 1}, ctx())
    assert bad.is_error
    assert "Invalid arguments for tool 'search'" in bad.content
    for field in ("query", "limit", "extra"):
        assert f"{field}:" in bad.content


async def test_async_functions_and_the_context_parameter() -> None:
    @h.tool(name="whoami", description="Name the call.")
    async def who(context: h.ToolContext) -> str:
        return context.call.id

    assert who.parameters["properties"] == {}
    assert (await who({}, ctx())).content == "c1"


def test_unsupported_signatures_are_config_errors() -> None:
    def variadic(*args: int) -> None: ...

    with pytest.raises(h.ConfigError, match=r"\*args"):
        h.tool(variadic)


async def test_a_sync_function_runs_on_a_worker_thread_and_blocking_false_on_the_loop() -> None:
    def where() -> bool:
        return threading.get_ident() == threading.main_thread().ident

    assert (await h.tool(where)({}, ctx())).content == "false"
    inline = h.tool(name="inline", blocking=False)(where)
    assert (await inline({}, ctx())).content == "true"


@pytest.mark.parametrize("blocking", [True, False])
async def test_what_a_sync_function_returns_is_awaited_if_awaitable_then_wrapped(
    blocking: bool,
) -> None:
    async def later(text: str) -> dict[str, str]:
        return {"said": text}

    def deferred(text: str) -> object:
        return later(text)

    def text_of(text: str) -> str:
        return text

    assert (await h.tool(blocking=blocking)(deferred)({"text": "hi"}, ctx())).content == (
        '{"said": "hi"}'
    )
    plain = await h.tool(blocking=blocking)(text_of)({"text": "hi"}, ctx())
    assert (plain.content, plain.data, plain.is_error) == ("hi", "hi", False)


def test_blocking_false_on_an_async_function_is_a_config_error() -> None:
    async def already() -> None: ...

    with pytest.raises(h.ConfigError, match="blocking=False is for sync functions"):
        h.tool(blocking=False)(already)


async def test_the_loop_runs_on_while_a_sync_tool_waits() -> None:
    """A timer on the loop releases the tool: on the loop itself, the tool would wait in vain."""
    released = threading.Event()

    @h.tool
    def wait_for_release() -> str:
        return "released" if released.wait(5) else "never released"

    model = ScriptedModel([tool_call("wait_for_release"), reply("done")])
    agent = h.AgentBuilder().model(model).tools(wait_for_release).build()
    asyncio.get_running_loop().call_later(0.05, released.set)
    result = await agent.run("go")
    assert result.status == "completed"
    assert [c.result.content for c in result.tool_calls] == ["released"]


async def test_another_runs_hook_times_out_on_time_while_a_sync_tool_waits() -> None:
    """Two runs on one loop: the first one's tool waits until the second run has ended, and
    the second run's hung async hook must time out meanwhile."""
    second_done = threading.Event()

    @h.tool
    def wait_for_the_other() -> str:
        return "the other run ended first" if second_done.wait(5) else "waited in vain"

    async def hang(_event: h.ToolCallEvent) -> None:
        await asyncio.Event().wait()

    waiting = (
        h.AgentBuilder()
        .model(ScriptedModel([tool_call("wait_for_the_other"), reply("done")]))
        .tools(wait_for_the_other)
        .build()
    )
    guarded = (
        h.AgentBuilder()
        .model(ScriptedModel([tool_call("echo", text="hi"), reply("done")]))
        .tools(h.tool(name="echo")(lambda text: text))
        .on(h.BEFORE_TOOL, hang, name="hung", timeout=0.2)
        .build()
    )

    async def second() -> h.RunResult:
        try:
            return await guarded.run("go")
        finally:
            second_done.set()

    first, other = await asyncio.gather(waiting.run("go"), second())
    assert [c.result.content for c in first.tool_calls] == ["the other run ended first"]
    assert other.tool_calls[0].blocked  # the hung guard timed out and failed closed


# -- arguments of exactly the plain types skip validation, with the same outcome ---------------


@h.tool(blocking=False)
def plain(name: str, count: int = 2, ratio: float = 0.5, loud: bool = False) -> str:
    """Every parameter a plain type."""
    return repr((name, count, ratio, loud))


def _through_model(args: dict[str, object]) -> str:
    """What validation makes of `args`, or the validation error."""
    from pydantic import ValidationError

    try:
        parsed = plain._args_model.model_validate(args)
    except ValidationError:
        return "invalid"
    return repr(tuple(getattr(parsed, key) for key in ("name", "count", "ratio", "loud")))


VALUES = st.one_of(
    st.text(max_size=3),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.booleans(),
    st.none(),
    st.sampled_from(["3", "1.5", "true", "x"]),
)


@settings(max_examples=300, deadline=None)
@given(args=st.dictionaries(st.sampled_from(["name", "count", "ratio", "loud", "extra"]), VALUES))
async def test_the_plain_fast_path_agrees_with_validation(args: dict[str, object]) -> None:
    result = await plain(args, ctx())
    expected = _through_model(args)
    assert (result.content if not result.is_error else "invalid") == expected, args
    assert plain._plain is not None


def test_constrained_or_complex_parameters_always_validate() -> None:
    @h.tool
    def bounded(n: Annotated[int, Field(ge=0)]) -> int:
        return n

    @h.tool
    def listed(items: list[str], mode: str = "a") -> int:
        return len(items)

    assert bounded._plain is None and listed._plain is None and search._plain is None


async def test_annotated_constraints_are_enforced() -> None:
    @h.tool(blocking=False)
    def bounded(n: Annotated[int, Field(ge=0)]) -> int:
        return n

    refused = await bounded({"n": -1}, ctx())
    assert refused.is_error and "n: Input should be greater than or equal to 0" in refused.content
    assert bounded.parameters["properties"]["n"]["minimum"] == 0
