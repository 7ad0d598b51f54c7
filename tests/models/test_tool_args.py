"""Tool-call arguments from any driver: every unusable text becomes a `parse_error` naming the
problem, never an exception, and no string a run keeps holds an unpaired surrogate."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookagent._messages import ToolCall
from hookagent.models._tool_args import MAX_DEPTH, check_call, cut_deep, parse_call


def error(arguments: str) -> str:
    call = parse_call("c1", "echo", arguments)
    assert call.parse_error is not None and not call.args
    return call.parse_error


def nested(levels: int, leaf: Any = 1) -> Any:
    """Arrays `levels` deep, built without recursion."""
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


def test_arrays_nested_100000_deep_are_refused_naming_the_limit() -> None:
    assert error("[" * 100_000 + "]" * 100_000) == (
        f"arguments nest deeper than {MAX_DEPTH} levels of arrays and objects"
    )
    assert "nest deeper" in error('{"a": ' + "[" * 100_000)  # unclosed, too


def test_nesting_up_to_the_limit_is_accepted_and_brackets_in_strings_do_not_count() -> None:
    at_limit = json.dumps({"a": nested(MAX_DEPTH - 1)})
    assert parse_call("c1", "echo", at_limit).args == {"a": nested(MAX_DEPTH - 1)}
    assert "nest deeper" in error(json.dumps({"a": nested(MAX_DEPTH)}))
    brackets = json.dumps({"text": "[{" * 1000, "quote": '\\"[['})
    assert parse_call("c1", "echo", brackets).args == json.loads(brackets)


def test_a_lone_surrogate_is_refused_naming_the_path() -> None:
    text = error('{"files": [{"name": "a\\ud800b"}]}')
    assert text.startswith("invalid Unicode in the string at $.files[0].name")
    assert "lone UTF-16 surrogate (\\ud800)" in text
    assert error('{"ok": 1, "\\udc00x": 2}').startswith('invalid Unicode in the key $["\\udc00x"]')
    raw = error('{"text": "\udfff"}')  # a raw surrogate, as an SDK decodes an escaped one
    assert "(\\udfff)" in raw
    assert all(not 0xD800 <= ord(c) <= 0xDFFF for c in text + raw)


def test_a_surrogate_pair_is_one_valid_character() -> None:
    assert parse_call("c1", "echo", '{"text": "\\ud83d\\ude00"}').args == {"text": "\U0001f600"}


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": -Infinity}', "-Infinity is not a JSON number"),
        ('{"a": 1e400}', "the number 1e400 is out of range"),
        ('{"a": ' + "9" * 5000 + "}", "an integer has 5000 digits (at most 4300)"),
        ('{"a": 1, "a": 2}', 'the key "a" appears twice in one object'),
        ("[1]", "arguments must be a JSON object, got list"),
        ('"x"', "arguments must be a JSON object, got str"),
        ("null", "arguments must be a JSON object, got NoneType"),
        ('{"a": 1', "arguments are not valid JSON (Expecting"),
        ("\ud800", "arguments are not valid JSON (Expecting value"),
    ],
)
def test_json_no_tool_should_get_is_named(arguments: str, problem: str) -> None:
    assert error(arguments).startswith(problem)


def test_large_but_readable_numbers_and_empty_arguments_are_fine() -> None:
    assert parse_call("c", "t", '{"n": ' + "9" * 4300 + ', "f": 1e300}').args["f"] == 1e300
    assert parse_call("c", "t", "  ") == ToolCall(id="c", name="t")
    assert parse_call("c", "t", None) == ToolCall(id="c", name="t")


def test_ids_and_names_keep_no_surrogate() -> None:
    call = parse_call("c\ud800", "ech\udc00o", '{"text": "hi"}')
    assert (call.id, call.name, call.args) == ("c\ufffd", "ech\ufffdo", {"text": "hi"})


def test_calls_built_from_objects_are_checked_without_recursion() -> None:
    fine = ToolCall(id="c", name="t", args={"a": [1, {"b": "x"}]})
    assert check_call(fine) is fine
    deep = check_call(ToolCall(id="c", name="t", args={"a": nested(1_000_000)}))
    assert deep.parse_error is not None and "nest deeper" in deep.parse_error and not deep.args
    nan = check_call(ToolCall(id="c", name="t", args={"a": [float("nan")]}))
    assert nan.parse_error == "the number at $.a[0] is nan, which JSON cannot hold"
    odd = check_call(ToolCall(id="c", name="t", args={"a b": {"c": "\ud800"}}))
    assert odd.parse_error is not None
    assert odd.parse_error.startswith('invalid Unicode in the string at $["a b"].c')
    kept = ToolCall(id="c", name="t", parse_error="arguments are not valid JSON (x)")
    assert check_call(kept) is kept


def test_cut_deep_empties_what_opens_at_the_level_and_skips_brackets_in_strings() -> None:
    text = '{"a": [[["x]"], {"b": [1]}], "[{"], "c": {}}'
    assert cut_deep(text, 3) == '{"a": [[], "[{"], "c": {}}'
    assert json.loads(cut_deep("[" * 100_000 + "]" * 100_000, 5)) == [[[[[]]]]]
    assert cut_deep(text, 9) == text  # nothing that deep
    assert cut_deep('{"a": [[', 2) == '{"a": [['  # unclosed: left for the reader to refuse
