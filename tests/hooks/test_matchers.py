"""Matchers: which events a hook applies to, compiled once from loose specs."""

from __future__ import annotations

from typing import Any

import pytest

from hookagent._errors import ConfigError
from hookagent.hooks._events import ToolCallEvent
from hookagent.hooks._matchers import AllOf, AnyOf, Matcher, Not, compile_matcher
from hookagent.kernel._view import RunView


def accepts(spec: Any, subject: str | None, event: Any = None) -> bool:
    matcher = compile_matcher(spec)
    assert matcher is not None
    return matcher.accepts(subject, event)


@pytest.mark.parametrize("spec", [None, "", "   ", "*", " * "])
def test_everything_compiles_to_none(spec: Any) -> None:
    assert compile_matcher(spec) is None


def test_exact_name() -> None:
    assert accepts("Bash", "Bash")
    assert not accepts("Bash", "bash"), "names are case-sensitive"
    assert not accepts("Bash", "BashOutput")
    assert not accepts("Bash", "MyBash")
    assert not accepts("Bash", None)


def test_a_list_of_names() -> None:
    assert accepts("Read|Write", "Read")
    assert accepts("Read|Write", "Write")
    assert not accepts("Read|Write", "Read|Write")
    assert not accepts("Read|Write", "Edit")
    assert accepts(" Read | Write ", "Write"), "spaces around names are ignored"


@pytest.mark.parametrize("spec", ["Read||Write", "Read|", "|Read"])
def test_an_empty_name_in_a_list_is_a_config_error(spec: str) -> None:
    with pytest.raises(ConfigError, match="empty name"):
        compile_matcher(spec)


@pytest.mark.parametrize(
    ("spec", "subject", "expected"),
    [
        ("read_*", "read_file", True),
        ("read_*", "read_", True),
        ("read_*", "write_file", False),
        ("*_file", "read_file", True),
        ("*_file", "write_file", True),
        ("*_file", "read_files", False),
        ("mcp__?*", "mcp__db", True),
        ("mcp__?*", "mcp__", False),
        ("Fil[eE]", "File", True),
        ("Fil[eE]", "Fila", False),
        ("Read|*_file", "Read", True),
        ("Read|*_file", "load_file", True),
        ("Read|*_file", "Write", False),
    ],
)
def test_globs(spec: str, subject: str, expected: bool) -> None:
    assert accepts(spec, subject) is expected


@pytest.mark.parametrize(
    ("spec", "subject"),
    [("read_*", "unread_file"), ("mcp__?*", "not_mcp__db"), ("Read|load_*", "preload_x")],
)
def test_a_glob_must_match_the_whole_name(spec: str, subject: str) -> None:
    assert not accepts(spec, subject)


def test_a_regex_is_searched() -> None:
    assert accepts("/delete/", "mcp__db__delete_row")
    assert accepts("/^mcp__.*__delete/", "mcp__db__delete_row")
    assert not accepts("/^mcp__.*__delete/", "x_mcp__db__delete")
    assert accepts("/^(Read|Write)$/", "Write")
    assert not accepts("/^(Read|Write)$/", "Writer")
    assert not accepts("/.*/", None)


def test_a_regex_may_contain_a_bar() -> None:
    assert accepts("/Read|Write/", "ReadFile")


@pytest.mark.parametrize("spec", ["/(/", "/[a-/", "/*/"])
def test_an_invalid_regex_is_a_config_error(spec: str) -> None:
    with pytest.raises(ConfigError, match="is not a valid regular expression") as caught:
        compile_matcher(spec)
    assert caught.value.value == spec


def test_a_lone_slash_is_a_name() -> None:
    assert accepts("/", "/")
    assert not accepts("/", "x")


def test_a_callable_gets_the_event(run: RunView) -> None:
    seen: list[Any] = []

    def wants_rm(event: ToolCallEvent) -> bool:
        seen.append(event)
        return "rm" in event.args.get("command", "")

    event = ToolCallEvent(run=run, step=1, call_id="c", tool_name="Bash", args={"command": "rm x"})
    matcher = compile_matcher(wants_rm)
    assert matcher is not None
    assert matcher.accepts("Bash", event)
    assert seen == [event]
    assert not matcher.uses_subject


def test_a_callable_result_is_read_as_truth() -> None:
    assert accepts(lambda _e: 1, "x")
    assert not accepts(lambda _e: [], "x")


def test_a_matcher_object_is_kept_as_is() -> None:
    matcher = AnyOf("Read")
    assert compile_matcher(matcher) is matcher
    assert isinstance(matcher, Matcher)


@pytest.mark.parametrize("spec", [42, 3.5, ["Read"], b"Read"])
def test_other_specs_are_config_errors(spec: Any) -> None:
    with pytest.raises(ConfigError, match="a matcher must be a string, a Matcher or a callable"):
        compile_matcher(spec)


def test_uses_subject() -> None:
    def subject_of(spec: Any) -> bool:
        matcher = compile_matcher(spec)
        assert matcher is not None
        return matcher.uses_subject

    assert subject_of("Bash")
    assert subject_of("read_*")
    assert subject_of("/x/")
    assert not subject_of(lambda _e: True)
    assert subject_of(AnyOf(lambda _e: True, "Bash"))
    assert not subject_of(AnyOf(lambda _e: True, "*"))
    assert subject_of(AllOf("Bash"))
    assert subject_of(Not("Bash"))
    assert not subject_of(Not(lambda _e: True))
    assert not subject_of(AnyOf())


# -- composites --------------------------------------------------------------------------


def test_any_of() -> None:
    matcher = AnyOf("Read", "/^mcp__/", lambda e: e == "special")
    assert matcher.accepts("Read", None)
    assert matcher.accepts("mcp__x", None)
    assert matcher.accepts("Bash", "special")
    assert not matcher.accepts("Bash", None)


def test_all_of() -> None:
    matcher = AllOf("*_file", lambda e: e == "ok")
    assert matcher.accepts("read_file", "ok")
    assert not matcher.accepts("read_file", "no")
    assert not matcher.accepts("Bash", "ok")


def test_not() -> None:
    matcher = Not("Read|Write")
    assert matcher.accepts("Bash", None)
    assert not matcher.accepts("Read", None)


def test_empty_composites_match_everything() -> None:
    assert AnyOf().accepts("anything", None)
    assert AllOf().accepts("anything", None)
    assert AnyOf().accepts(None, None)


def test_a_match_all_part_matches_everything() -> None:
    assert AnyOf("*").accepts("x", None)
    assert AllOf("*", "Bash").accepts("Bash", None)
    assert not AllOf("*", "Bash").accepts("Read", None)
    assert not Not("*").accepts("x", None)
    assert not Not(None).accepts("x", None)


def test_nested_composites() -> None:
    matcher = AllOf(AnyOf("Read", "Write"), Not(AnyOf("Write", lambda e: e == "veto")))
    assert matcher.accepts("Read", None)
    assert not matcher.accepts("Write", None)
    assert not matcher.accepts("Read", "veto")
    assert not matcher.accepts("Bash", None)
    assert Not(Not("Bash")).accepts("Bash", None)


def test_reprs_show_the_spec() -> None:
    assert repr(compile_matcher("Write|Read")) == "Read|Write"
    assert repr(compile_matcher("read_*")) == "read_*"
    assert repr(compile_matcher("/^x/")) == "/^x/"
    assert repr(Not("Bash")) == "Not(Bash)"
    assert repr(AnyOf("A", "B")) == "AnyOf(A, B)"
    assert repr(AllOf("A")) == "AllOf(A)"
