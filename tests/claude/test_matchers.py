"""Settings-file matchers, read the way Claude Code reads them (CLAUDE_HOOKS.md §4.3)."""

from __future__ import annotations

import re

import pytest

from hookagent.claude._matchers import (
    SUBAGENT_ALIASES,
    ClaudeMatcher,
    compile_claude_matcher,
    translate_js_regex,
)
from hookagent.hooks._matchers import Matcher


def compiled(text: str, event: str = "PreToolUse") -> ClaudeMatcher:
    matcher = compile_claude_matcher(text, event=event)
    assert matcher is not None
    return matcher


def hits(text: str, subject: str | None, event: str = "PreToolUse") -> bool:
    return compiled(text, event).accepts(subject, None)


@pytest.mark.parametrize("text", [None, "", "*", "   ", " * "])
def test_everything_is_no_matcher(text: str | None) -> None:
    assert compile_claude_matcher(text, event="PreToolUse") is None


def test_is_a_hookagent_matcher() -> None:
    matcher = compiled("Edit|Write")
    assert isinstance(matcher, Matcher)
    assert matcher.uses_subject
    assert repr(matcher) == "Edit|Write"
    assert compiled("^Edit$").problem is None


@pytest.mark.parametrize(
    ("text", "subject", "expected"),
    [
        ("Bash", "Bash", True),
        ("Bash", "bash", False),
        ("Bash", "BashOutput", False),
        ("Bash", "MyBash", False),
        ("Edit|Write", "Write", True),
        ("Edit|Write", "MultiEdit", False),
        ("Edit, Write", "Write", True),
        ("Edit,Write", "Edit", True),
        (" Edit | Write ", "Edit", True),
        ("Edit||Write", "Write", True),
        ("code-reviewer", "code-reviewer", True),
        ("code-reviewer", "my-code-reviewer", False),
        ("mcp__brave-search", "mcp__brave-search", True),
        ("mcp__brave-search", "mcp__brave-search__web_search", False),
        ("Notebook Edit", "Notebook Edit", True),
        ("startup|resume", "resume", True),
        ("startup|resume", "compact", False),
    ],
)
def test_exact_names_and_lists(text: str, subject: str, expected: bool) -> None:
    assert hits(text, subject) is expected


@pytest.mark.parametrize(
    ("text", "subject", "expected"),
    [
        ("Edit.*", "Edit", True),
        ("Edit.*", "NotebookEdit", True),  # §4.3: unanchored, like RegExp.test
        ("^Edit.*", "NotebookEdit", False),
        ("^(Edit|Write)$", "Write", True),
        ("^(Edit|Write)$", "MultiEdit", False),
        ("Write$", "Write\n", False),  # JS `$` is the very end, not before a final newline
        ("Notebook.*", "NotebookEdit", True),
        ("mcp__.*__write.*", "mcp__fs__write_file", True),
        ("mcp__.*__write.*", "mcp__fs__read_file", False),
        ("^mcp__github__(create|update)_", "mcp__github__create_issue", True),
        ("(?<tool>Edit|Write)", "Write", True),
        (r"^(?<verb>get)_\k<verb>$", "get_get", True),
        (r"^(?<verb>get)_\k<verb>$", "get_set", False),
        (r"^tool\d+$", "tool42", True),
        (r"^tool\d+$", "tool٤٢", False),  # JS \d is ASCII only
        (r"^\w+$", "naïve", False),  # and so is \w
        (r"^\w+$", "snake_case_9", True),
        (r"\bEdit\b", "Edit", True),
        ("[^]", "x", True),
        ("[]", "x", False),
        (r"\A", "A", True),  # JS reads an unknown escape as the letter itself
        ("Edit(?=Tool)", "EditTool", True),
        ("(?<!Multi)Edit", "MultiEdit", False),
        ("(?<!Multi)Edit", "Edit", True),
        ("(?i:bash)", "BASH", True),
        ("Ba.h", "Bash", True),
        ("a[[b]", "xa[", True),
        (r"\cJ", "\n", True),
    ],
)
def test_regexes_are_searched(text: str, subject: str, expected: bool) -> None:
    assert compiled(text).regex is not None
    assert hits(text, subject) is expected


@pytest.mark.parametrize(
    "text",
    [
        "Bash(",
        "[unclosed",
        "*Edit",
        "Edit**",
        "a*+",  # possessive: Python 3.11 accepts it, JavaScript does not
        "a{2}+",
        "a+?+",
        "(?P<name>Edit)",  # Python's spelling, not JavaScript's
        "(?i)bash",  # global inline flags are Python only
        "(?>Edit)",  # atomic group
        "(?#comment)Edit",
        "Edit\\",
        r"\k<missing",
    ],
)
def test_an_invalid_regex_matches_nothing_and_says_why(text: str) -> None:
    matcher = compiled(text)
    assert matcher.regex is None
    assert matcher.problem is not None
    assert repr(text) in matcher.problem
    assert "not a valid regular expression" in matcher.problem
    for subject in ("Bash", "Edit", "Agent", "Task", text, ""):
        assert not matcher.accepts(subject, None)


def test_a_list_with_no_names_matches_nothing() -> None:
    matcher = compiled("|,|")
    assert matcher.problem is not None
    assert not matcher.accepts("Bash", None)


def test_no_subject_never_matches() -> None:
    assert not hits("Bash", None)
    assert not hits(".*", None)


@pytest.mark.parametrize(
    ("text", "subject", "expected"),
    [
        ("mcp__memory__.*", "mcp__memory__create_entities", True),
        ("mcp__memory__.*", "mcp__memory__search", True),
        ("mcp__memory__.*", "mcp__memorybank__search", False),
        ("mcp__memory__.*", "mcp__github__search", False),
        ("mcp__memory", "mcp__memory__create_entities", False),  # exact, so it never hits
        ("mcp__memory", "mcp__memory", True),
        ("mcp__.*", "mcp__github__create_issue", True),
        ("mcp__.*", "Bash", False),
        ("mcp__plugin_tools_fs__.*", "mcp__plugin_tools_fs__read", True),
        ("mcp__memory__create_entities", "mcp__memory__create_entities", True),
    ],
)
def test_mcp_servers(text: str, subject: str, expected: bool) -> None:
    assert hits(text, subject) is expected


@pytest.mark.parametrize(
    ("text", "subject", "expected"),
    [
        ("Task", "Agent", True),
        ("Agent", "Task", True),
        ("Task", "Task", True),
        ("Agent", "Agent", True),
        ("Bash|Task", "Agent", True),
        ("Bash, Agent", "Task", True),
        ("^Task$", "Agent", True),
        ("^Agent$", "Task", True),
        ("Ta.k", "Agent", True),
        ("Task.*", "TaskCreate", True),
        ("Task", "TaskCreate", False),
        ("^Task$", "TaskCreate", False),
        ("Bash", "Agent", False),
        ("^Bash$", "Task", False),
        ("Agents", "Agent", False),
    ],
)
def test_the_subagent_tool_answers_to_both_names(text: str, subject: str, expected: bool) -> None:
    assert hits(text, subject) is expected


def test_aliases_can_be_replaced() -> None:
    plain = compile_claude_matcher("Task", event="PreToolUse", aliases={})
    assert plain is not None
    assert not plain.accepts("Agent", None)
    custom = compile_claude_matcher(
        "^Shell$", event="PreToolUse", aliases={"Bash": frozenset({"Shell"})}
    )
    assert custom is not None
    assert custom.accepts("Bash", None)
    assert not custom.accepts("Agent", None)
    assert SUBAGENT_ALIASES["Agent"] == frozenset({"Task"})


@pytest.mark.parametrize("event", ["FileChanged", "StopFailure"])
@pytest.mark.parametrize(
    ("text", "subject", "expected"),
    [
        ("rate_limit|overloaded", "overloaded", True),
        ("rate_limit|overloaded", "overloaded_error", False),
        # outside the narrow set these are regexes, so unanchored
        ("rate-limit", "rate-limit", True),
        ("rate-limit", "x_rate-limit_y", True),
        (".env", ".envrc", True),
        (".env", "xenv", True),
        ("a,b", "a,b", True),
        ("a,b", "a", False),
    ],
)
def test_narrow_events_keep_the_older_exact_set(
    event: str, text: str, subject: str, expected: bool
) -> None:
    assert hits(text, subject, event) is expected


@pytest.mark.parametrize(
    ("text", "narrow_regex", "wide_regex"),
    [("rate-limit", True, False), ("a,b", True, False), ("a b", True, False), ("ab", False, False)],
)
def test_which_events_use_the_narrow_set(text: str, narrow_regex: bool, wide_regex: bool) -> None:
    assert (compiled(text, "FileChanged").regex is not None) is narrow_regex
    assert (compiled(text, "PreToolUse").regex is not None) is wide_regex


def test_matchers_are_frozen_values() -> None:
    assert compiled("Edit|Write") == compiled("Edit|Write")
    assert hash(compiled("Edit.*")) == hash(compiled("Edit.*"))


@pytest.mark.parametrize(
    ("source", "python"),
    [
        ("(?<name>x)", "(?P<name>x)"),
        (r"\k<name>", "(?P=name)"),
        ("(?<=a)(?<!b)", "(?<=a)(?<!b)"),
        ("^a$", r"^a\Z"),
        ("[$]", "[$]"),
        (r"\$", r"\$"),
        ("[^]", r"[\s\S]"),
        ("[]", "(?!)"),
        (r"\d\w\s\b", r"\d\w\s\b"),
        (r"\q", "q"),
        ("a+?b*?c??", "a+?b*?c??"),
        ("x{1,3}?", "x{1,3}?"),
        ("a{", "a{"),
        ("[a|b&c~d]", r"[a\|b\&c\~d]"),
    ],
)
def test_translation(source: str, python: str) -> None:
    assert translate_js_regex(source) == python


@pytest.mark.parametrize("source", ["a**", "a*+", "(?P<x>a)", "(?s)a", "x\\"])
def test_translation_rejects_what_javascript_rejects(source: str) -> None:
    with pytest.raises(re.error):
        translate_js_regex(source)
