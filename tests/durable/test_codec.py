"""What the store writes: unpaired surrogates become U+FFFD everywhere, by one rule, and what
is written loads back."""

from __future__ import annotations

import json
from typing import Any

from hookagent._errors import ModelError
from hookagent._messages import AssistantMessage, ToolCall
from hookagent._surrogates import replace_escapes
from hookagent.durable import _codec as codec
from hookagent.durable import _errors as errors
from hookagent.durable import _folds as folds
from hookagent.hooks._engine import Folded
from hookagent.hooks._events import ToolCallEvent
from hookagent.hooks._points import BEFORE_TOOL
from hookagent.hooks._result import HookResult
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolResult


def test_messages_with_lone_surrogates_are_written_with_the_replacement_character() -> None:
    message = AssistantMessage(
        content="a\ud800b",
        tool_calls=(ToolCall(id="c\udc00", name="n", args={"k\ud800": ["\udfff", 1]}),),
    )
    text = codec.dump("message", message)
    assert codec.load("message", text) == AssistantMessage(
        content="a\ufffdb",
        tool_calls=(ToolCall(id="c\ufffd", name="n", args={"k\ufffd": ["\ufffd", 1]}),),
    )


def test_stored_gives_the_value_as_it_will_be_read_back() -> None:
    clean = ToolResult(content="ok \U0001f600", data={"n": 1})
    text, value = codec.stored("result", clean)
    assert value is clean and codec.load("result", text) == clean
    dirty = ToolResult(content="b\udc80d", data={"names": ("x\udcff",)})
    text, value = codec.stored("result", dirty)
    assert value == ToolResult(content="b\ufffdd", data={"names": ["x\ufffd"]})
    assert codec.load("result", text) == value


def test_rows_nested_past_pydantics_json_reader_load_back() -> None:
    deep: Any = "leaf"
    for _ in range(250):
        deep = [deep]
    result = ToolResult(content="deep", data=deep)
    assert codec.load("result", codec.dump("result", result)) == result


def test_canonical_json_replaces_unpaired_surrogates_only() -> None:
    assert codec.canonical({"a": "x\ud800"}) == '{"a":"x\\ufffd"}'
    assert codec.canonical({"a": "\U0001f600"}) == '{"a":"\\ud83d\\ude00"}'  # a pair stays
    assert codec.canonical({"a": "\\ud800"}) == '{"a":"\\\\ud800"}'  # text, not an escape
    assert codec.digest("x\ud800") == codec.digest("x\ufffd")


def test_replace_escapes_reads_escapes_as_json_does() -> None:
    for value in ["\ud800", "\udc00\ud800", "\ud83d\ude00", "\\\ud800", "\\\\ud800", "a\udfffb"]:
        text = replace_escapes(json.dumps(value))
        expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
        if value == "\ud83d\ude00":
            expected = "\U0001f600"  # two code points JSON writes as one pair
        assert json.loads(text) == expected


def test_journal_entries_for_folds_and_failures_follow_the_rule(run: RunView) -> None:
    failure = errors.dump(ModelError("bad \ud800", provider="p", model="m"))
    assert "\\ud800" not in failure and "bad \ufffd" in str(errors.load(failure))
    event = ToolCallEvent(run=run, step=1, call_id="c", tool_name="t", args={})
    blocked = Folded(event=event, best=HookResult.block("not b\udc80d"), contexts=["\ud800"])
    encoded = folds.encode(BEFORE_TOOL, event, blocked)
    assert "\\ud" not in encoded
    decoded = folds.decode(event, encoded)
    assert isinstance(decoded, Folded)
    assert (decoded.best.reason, decoded.contexts) == ("not b\ufffdd", ["\ufffd"])
