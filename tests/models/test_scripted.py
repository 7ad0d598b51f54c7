"""ScriptedModel is strict; its script files fail early with precise messages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import hookagent as h
from hookagent.testing import ScriptedModel, reply


async def test_a_call_past_the_script_fails_the_run_clearly() -> None:
    model = ScriptedModel([{"tool_calls": [{"name": "missing"}]}])
    result = await h.AgentBuilder().model(model).build().run("go")
    assert result.status == "failed"
    assert "the script has 1 turn and call 2 asked for one more" in (result.error or "")


def test_unconsumed_turns_fail_assert_consumed() -> None:
    model = ScriptedModel([reply("a"), reply("b")])
    with pytest.raises(AssertionError, match="2 of 2 turns were never requested"):
        model.assert_consumed()


def test_a_malformed_turn_is_named(tmp_path: Path) -> None:
    path = tmp_path / "turns.json"
    path.write_text(json.dumps([{"text": "ok"}, {"tool_calls": [{"args": {}}]}]))
    with pytest.raises(h.ConfigError, match=r"turns\.json, turn 2: tool_calls\.0\.name"):
        ScriptedModel.from_file(path)


def test_unknown_keys_in_a_turn_are_rejected() -> None:
    with pytest.raises(h.ConfigError, match="turn 1: tool_cals"):
        ScriptedModel([{"tool_cals": []}])


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[\n  {"text": "a"},\n  {oops}\n]')
    with pytest.raises(h.ConfigError, match=r"bad\.json: not valid JSON: .*line 3, column 4"):
        ScriptedModel.from_file(path)


def test_a_missing_file_and_a_non_list_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(h.ConfigError, match="cannot read the script"):
        ScriptedModel.from_file(tmp_path / "absent.json")
    (tmp_path / "obj.json").write_text('{"text": "a"}')
    with pytest.raises(h.ConfigError, match="a script must be a list of turns"):
        ScriptedModel.from_file(tmp_path / "obj.json")


def test_model_names_resolve_scripted_files(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('[{"text": "hi"}]')
    agent = h.AgentBuilder().model(f"scripted:{path}").build()
    assert agent.run_sync("go").output == "hi"
    with pytest.raises(h.ConfigError, match="provider:model"):
        h.AgentBuilder().model("justaname")


async def test_by_history_answers_with_the_turn_the_conversation_has_reached() -> None:
    from hookagent._messages import AssistantMessage, UserMessage
    from hookagent.models._base import ModelRequest
    from hookagent.testing import ScriptedModel

    model = ScriptedModel(["first", "second", "third"], by_history=True)
    history = [
        UserMessage(content="a"),
        AssistantMessage(content="first"),
        UserMessage(content="b"),
    ]
    reply = await model.request(ModelRequest(messages=history))
    assert reply.message.content == "second"  # a fresh model object, mid-conversation
    assert (await model.request(ModelRequest(messages=history))).message.content == "second"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'[{"text": "a"},\n {"text": "\xff"}]', "not UTF-8: byte 0xff at line 2, column 12"),
        (b"[" * 100_000, "not valid JSON: arrays and objects nest too deep"),
        (b"[" + b"9" * 5000 + b"]", "not valid JSON: Exceeds the limit"),
        (b'[{"text": 1}]', "turn 1: text: Input should be a valid string"),
        (b"", "not valid JSON: Expecting value (line 1, column 1)"),
    ],
)
def test_a_bad_script_file_is_a_config_error_naming_it(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "turns.json"
    path.write_bytes(content)
    with pytest.raises(h.ConfigError, match=rf"turns\.json(: |, ){re.escape(message)}"):
        ScriptedModel.from_file(path)


def test_a_script_file_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "turns.json"
    path.write_bytes(b'\xef\xbb\xbf[{"text": "hi"}]')
    assert ScriptedModel.from_file(path).remaining == 1


def test_a_tool_name_with_a_lone_surrogate_is_played_not_refused() -> None:
    model = ScriptedModel([{"tool_calls": [{"name": "\ud800", "args": {"a": "\udc00"}}]}])
    [call] = model._turns[0].message.tool_calls
    assert call.name == "\ufffd" and call.parse_error and "$.a" in call.parse_error


async def test_turn_takes_tool_call_results_calls_and_mappings_in_one_reply() -> None:
    from hookagent.testing import tool_call, turn

    @h.tool
    def echo(text: str) -> str:
        """Return the text."""
        return text

    both = turn(
        "two at once",
        tool_call("echo", text="a"),
        h.ToolCall(id="given", name="echo", args={"text": "b"}),
        {"name": "echo", "args": {"text": "c"}},
    )
    calls = both.message.tool_calls
    assert [c.args["text"] for c in calls] == ["a", "b", "c"]
    assert len({c.id for c in calls}) == 3
    model = ScriptedModel([both, reply("done")])
    result = await h.AgentBuilder().model(model).tools(echo).build().run("go")
    assert [e.result.content for e in result.tool_calls] == ["a", "b", "c"]
