"""Metadata: store/read/list, writes applied as recorded after_tool decisions, and every
declared limit enforced (REFERENCE lesson §8.9)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.metadata import Metadata, json_type
from hookagent.testing import ScriptedModel, reply, tool_call


async def run(*turns: Any, cap: Metadata | None = None, **options: Any) -> h.RunResult:
    model = ScriptedModel([*turns, reply("done")])
    agent = h.AgentBuilder().model(model).with_(cap or Metadata()).build()
    result = await agent.run("work", **options)
    model.assert_consumed()
    assert result.status == "completed"
    return result


def outputs(result: h.RunResult) -> list[h.ToolResult]:
    return [call.result for call in result.tool_calls]


async def test_a_store_is_applied_by_a_recorded_after_tool_decision() -> None:
    finding = {"file": "a.py", "lines": [3, 9], "ok": False}
    result = await run(tool_call("store_metadata", key="finding", value=finding))
    (out,) = outputs(result)
    assert (out.is_error, out.content) == (False, "Stored 'finding' (40 bytes).")
    assert out.data == {
        "success": True,
        "key": "finding",
        "value": finding,
        "bytes": 40,
        "replaced": False,
    }
    assert result.state.metadata["finding"] == finding
    (decision,) = result.decisions.at(h.AFTER_TOOL)
    assert (decision.outcome, decision.hook) == ("modify", "metadata:record")
    assert decision.votes[0].changes["metadata"] == {"finding": {"after": finding}}


async def test_read_gives_strings_raw_and_other_values_as_json() -> None:
    result = await run(
        tool_call("store_metadata", key="note", value="plain text"),
        tool_call("store_metadata", key="nums", value=[1, 2]),
        tool_call("read_metadata", key="note"),
        tool_call("read_metadata", key="nums"),
    )
    note, nums = outputs(result)[2:]
    assert note.content == "plain text"
    assert json.loads(nums.content) == [1, 2]
    assert nums.data == {"key": "nums", "value": [1, 2]}


async def test_storing_again_replaces_the_value() -> None:
    result = await run(
        tool_call("store_metadata", key="n", value=1),
        tool_call("store_metadata", key="n", value=2),
    )
    assert outputs(result)[1].content == "Replaced 'n' (1 bytes)."
    assert outputs(result)[1].data["replaced"] is True
    assert result.state.metadata["n"] == 2
    assert len(result.decisions.at(h.AFTER_TOOL)) == 2


async def test_null_is_a_value_and_a_missing_value_is_an_error() -> None:
    result = await run(
        tool_call("store_metadata", key="empty", value=None),
        tool_call("store_metadata", key="nothing"),
    )
    stored, missing = outputs(result)
    assert not stored.is_error
    assert result.state.metadata["empty"] is None
    assert missing.is_error and "value: Field required" in missing.content
    assert "nothing" not in result.state.metadata


@pytest.mark.parametrize("key", ["", "   "])
async def test_a_blank_key_is_refused(key: str) -> None:
    result = await run(tool_call("store_metadata", key=key, value=1))
    assert outputs(result)[0].is_error
    assert "key: Value error, must not be empty" in outputs(result)[0].content
    assert result.state.metadata == {}


@pytest.mark.parametrize("key", ["tasks", "skills", "self_critic"])
async def test_reserved_keys_are_refused_and_nothing_is_recorded(key: str) -> None:
    result = await run(tool_call("store_metadata", key=key, value="x"), metadata={key: "mine"})
    out = outputs(result)[0]
    assert out.is_error and f"The key {key!r} is reserved" in out.content
    assert result.state.metadata[key] == "mine"
    assert result.decisions.at(h.AFTER_TOOL) == []


async def test_reserved_keys_can_be_read() -> None:
    result = await run(tool_call("read_metadata", key="tasks"), metadata={"tasks": []})
    assert outputs(result)[0].content == "[]"


async def test_custom_reserved_keys_accept_a_single_string() -> None:
    result = await run(
        tool_call("store_metadata", key="mine", value=1), cap=Metadata(reserved="mine")
    )
    assert outputs(result)[0].is_error


async def test_the_size_cap_counts_utf8_bytes_of_the_json_encoding() -> None:
    cap = Metadata(max_value_bytes=10)
    result = await run(
        tool_call("store_metadata", key="fits", value="éééé"),  # "éééé" is 10 bytes
        tool_call("store_metadata", key="big", value="ééééé"),  # 12 bytes
        cap=cap,
    )
    fits, big = outputs(result)
    assert not fits.is_error and fits.data["bytes"] == 10
    assert big.is_error
    assert "is 12 bytes as JSON, more than the 10 allowed" in big.content
    assert "big" not in result.state.metadata


async def test_max_keys_is_enforced_but_overwriting_and_reserved_keys_are_fine() -> None:
    result = await run(
        tool_call("store_metadata", key="a", value=1),
        tool_call("store_metadata", key="b", value=2),
        tool_call("store_metadata", key="c", value=3),
        tool_call("store_metadata", key="a", value=10),
        cap=Metadata(max_keys=2),
        metadata={"tasks": []},  # reserved keys are not counted
    )
    a, b, c, again = outputs(result)
    assert not (a.is_error or b.is_error or again.is_error)
    assert c.is_error
    assert c.content == (
        "Metadata already holds 2 keys, the most allowed; overwrite one of them instead: a, b."
    )
    assert result.state.metadata == {"tasks": [], "a": 10, "b": 2}


async def test_reading_an_unknown_key_lists_the_available_keys() -> None:
    result = await run(tool_call("read_metadata", key="nope"), metadata={"alpha": 1, "beta": "b"})
    out = outputs(result)[0]
    assert out.is_error
    assert out.content == "No metadata under 'nope'. Available keys: alpha, beta."


async def test_reading_from_empty_metadata_says_none() -> None:
    result = await run(tool_call("read_metadata", key="x"))
    assert outputs(result)[0].content.endswith("Available keys: none.")


async def test_list_gives_count_and_each_keys_json_type() -> None:
    result = await run(
        tool_call("store_metadata", key="s", value="x"),
        tool_call("list_metadata"),
        metadata={"tasks": [], "n": 1.5, "flag": True, "obj": {}, "nil": None},
    )
    listing = outputs(result)[1]
    expected = {
        "count": 6,
        "keys": [
            {"key": "tasks", "type": "array"},
            {"key": "n", "type": "number"},
            {"key": "flag", "type": "boolean"},
            {"key": "obj", "type": "object"},
            {"key": "nil", "type": "null"},
            {"key": "s", "type": "string"},
        ],
    }
    assert listing.data == expected
    assert json.loads(listing.content) == expected


@pytest.mark.parametrize("setting", ["max_value_bytes", "max_keys"])
def test_limits_below_one_are_config_errors(setting: str) -> None:
    options: dict[str, Any] = {setting: 0}
    with pytest.raises(h.ConfigError, match=setting):
        Metadata(**options)


def test_tool_names_and_json_types() -> None:
    assert [t.name for t in Metadata().tools()] == [
        "store_metadata",
        "read_metadata",
        "list_metadata",
    ]
    assert [json_type(v) for v in (None, False, 3, "s", (1,), {"a": 1}, {1})] == [
        "null",
        "boolean",
        "number",
        "string",
        "array",
        "object",
        "set",
    ]


async def test_a_value_json_cannot_hold_is_refused() -> None:
    def smuggle(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.modify(args={"key": "k", "value": {1, 2}})

    model = ScriptedModel([tool_call("store_metadata", key="k", value=1), reply("done")])
    agent = (
        h.AgentBuilder()
        .model(model)
        .with_(Metadata())
        .on(h.BEFORE_TOOL, smuggle, match="store_metadata", kind="transform")
        .build()
    )
    result = await agent.run("work")
    assert outputs(result)[0].content == "The value for 'k' is not a JSON value."
    assert "k" not in result.state.metadata
