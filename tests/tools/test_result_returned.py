"""`ToolResult.returned(key)`: what a successful call returned under a key, and None for an
error result, data that is not a mapping, or a key that is not there."""

from __future__ import annotations

from typing import Any

import pytest

import hookagent as h
from hookagent.testing import ScriptedModel, reply, tool_call


def test_a_successful_mapping_gives_its_values() -> None:
    result = h.ToolResult.of({"intent_id": "I-1", "newTodos": []})
    assert result.returned("intent_id") == "I-1"
    assert result.returned("newTodos") == []
    assert result.returned("missing") is None


@pytest.mark.parametrize(
    "result",
    [
        h.ToolResult.error("failed", data={"intent_id": "I-1"}),
        h.ToolResult.of("plain text"),
        h.ToolResult.of(["intent_id"]),
        h.ToolResult(content="no data"),
    ],
    ids=["error", "text", "list", "none"],
)
def test_anything_else_gives_none(result: h.ToolResult) -> None:
    assert result.returned("intent_id") is None


def test_an_after_tool_hook_reads_its_tools_answer() -> None:
    seen: list[Any] = []

    @h.tool
    def pick(name: str) -> dict[str, str]:
        """Pick a name."""
        return {"picked": name}

    def remember(event: h.ToolResultEvent) -> None:
        seen.append(event.result.returned("picked"))

    model = ScriptedModel([tool_call("pick", name="x"), reply("ok")])
    builder = h.AgentBuilder().model(model).tools(pick).on(h.AFTER_TOOL, remember, kind="observer")
    builder.build().run_sync("go")
    assert seen == ["x"]
