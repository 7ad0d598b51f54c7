"""`@tool` turns typed functions into tools with schemas and validated arguments."""

from __future__ import annotations

from typing import Literal

import pytest

import hookagent as h
from hookagent.kernel.state import RunState
from hookagent.kernel.view import RunView


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
