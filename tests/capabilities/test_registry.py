"""ToolRegistry: list/help/search over the run's tools, filtered by allow/deny; discovery
only, so the callable set never changes."""

from __future__ import annotations

import json
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.registry import ToolRegistry, summarize
from hookagent.testing import ScriptedModel, reply, tool_call


@h.tool
def read_file(path: str) -> str:
    """Read a text file.

    Returns its lines, numbered."""
    return f"contents of {path}"


@h.tool
def write_file(path: str, content: str) -> str:
    """Write a text file, creating folders as needed."""
    return "written"


@h.tool
def deploy(target: str) -> str:
    """Ship the build to PRODUCTION servers."""
    return f"deployed to {target}"


async def run(
    *turns: Any, cap: ToolRegistry | None = None
) -> tuple[h.RunResult, list[h.ToolResult], ScriptedModel]:
    model = ScriptedModel([*turns, reply("done")])
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(read_file, write_file, deploy)
        .with_(cap or ToolRegistry())
        .build()
    )
    result = await agent.run("look around")
    model.assert_consumed()
    return result, [call.result for call in result.tool_calls], model


def names(out: h.ToolResult) -> list[str]:
    return [entry["name"] for entry in out.data["tools"]]


async def test_list_names_every_tool_with_a_one_line_summary() -> None:
    _, (out,), _ = await run(tool_call("tools", action="list"))
    assert not out.is_error
    assert out.data["success"] is True
    assert names(out) == ["read_file", "write_file", "deploy", "tools"]
    assert (out.data["count"], out.data["total"]) == (4, 4)
    assert out.data["tools"][0] == {"name": "read_file", "summary": "Read a text file."}
    assert json.loads(out.content) == out.data


async def test_limit_caps_the_listing_and_total_says_how_many_matched() -> None:
    _, (out,), _ = await run(tool_call("tools", action="list", limit=2))
    assert names(out) == ["read_file", "write_file"]
    assert (out.data["count"], out.data["total"]) == (2, 4)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"action": "list", "limit": 0}, "limit: Input should be greater than or equal to 1"),
        ({"action": "list", "limit": 101}, "limit: Input should be less than or equal to 100"),
        ({"action": "run"}, "action: Input should be 'list', 'help' or 'search'"),
        ({}, "action: Field required"),
        ({"action": "help"}, "help needs `tool`"),
        ({"action": "search", "query": "  "}, "search needs a non-empty `query`"),
    ],
)
async def test_bad_requests_are_error_results(args: dict[str, Any], expected: str) -> None:
    result, (out,), _ = await run(tool_call("tools", **args))
    assert out.is_error
    assert expected in out.content
    assert result.status == "completed"


async def test_help_gives_the_full_description_and_parameters() -> None:
    _, (out,), _ = await run(tool_call("tools", action="help", tool="write_file"))
    tool = out.data["tool"]
    assert out.data["success"] is True
    assert tool["name"] == "write_file"
    assert tool["description"] == "Write a text file, creating folders as needed."
    assert tool["parameters"]["required"] == ["path", "content"]


async def test_help_on_an_unknown_tool_suggests_close_names() -> None:
    _, (out,), _ = await run(tool_call("tools", action="help", tool="read_fil"))
    assert out.is_error
    assert out.content == "Unknown tool 'read_fil'. Did you mean read_file, write_file?"
    assert out.data == {"success": False, "error": out.content}


async def test_search_is_case_insensitive_over_names_and_descriptions() -> None:
    _, outs, _ = await run(
        tool_call("tools", action="search", query="FILE"),
        tool_call("tools", action="search", query="production"),
        tool_call("tools", action="search", query="numbered"),  # second line of a docstring
        tool_call("tools", action="search", query="nothing like it"),
    )
    assert [names(out) for out in outs] == [
        ["read_file", "write_file"],
        ["deploy"],
        ["read_file"],
        [],
    ]
    assert outs[3].data == {"success": True, "count": 0, "total": 0, "tools": []}


async def test_deny_hides_tools_from_list_search_and_help() -> None:
    _, (listing, search, help_), _ = await run(
        tool_call("tools", action="list"),
        tool_call("tools", action="search", query="ship"),
        tool_call("tools", action="help", tool="deploy"),
        cap=ToolRegistry(deny=["deploy", "tools"]),
    )
    assert names(listing) == ["read_file", "write_file"]
    assert names(search) == []
    assert help_.is_error and help_.content.startswith("Unknown tool 'deploy'.")


async def test_allow_limits_discovery_and_deny_wins_over_it() -> None:
    _, (out,), _ = await run(
        tool_call("tools", action="list"),
        cap=ToolRegistry(allow=["*_file", "deploy"], deny=["write_*"]),
    )
    assert names(out) == ["read_file", "deploy"]


async def test_a_single_pattern_string_is_one_pattern() -> None:
    _, (out,), _ = await run(tool_call("tools", action="list"), cap=ToolRegistry(allow="read_*"))
    assert names(out) == ["read_file"]


async def test_discovery_changes_nothing_the_model_can_call() -> None:
    result, outs, model = await run(
        tool_call("tools", action="list"),
        tool_call("deploy", target="prod"),
        cap=ToolRegistry(deny=["deploy"]),
    )
    offered = ["read_file", "write_file", "deploy", "tools"]
    assert [sorted(call.tools) for call in model.calls] == [sorted(offered)] * 3
    assert "deploy" not in names(outs[0])
    assert outs[1].content == "deployed to prod"  # hiding it from discovery is not a block
    assert result.decisions.notable() == []


def test_summary_is_the_first_non_blank_line_cut_short() -> None:
    assert summarize("\n  First line.  \nSecond.") == "First line."
    assert summarize("") == ""
    long = summarize("x" * 300)
    assert len(long) == 120 and long.endswith("…")
