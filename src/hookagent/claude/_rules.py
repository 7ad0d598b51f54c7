"""The `if` field of a Claude Code handler: one permission rule tested against a tool call.

A rule is ``Tool`` or ``Tool(specifier)`` (CLAUDE_HOOKS.md §4.1, Claude Code's permission-rule
syntax). The tool part is a name, compared exactly: ``Agent`` and ``Task`` are one tool
(`SUBAGENT_ALIASES`), ``mcp__server`` or ``mcp__server__*`` covers every tool of that MCP
server, and a ``*`` elsewhere in the name is a wildcard. ``Tool``, ``Tool()`` and ``Tool(*)``
all match every call of the tool. The specifier is read per tool:

- ``Bash``: a command pattern, where ``*`` matches anything (spaces included), a single trailing
  `` *`` also matches nothing (``ls *`` hits ``ls``, not ``lsof``) and the legacy ``prefix:*``
  means the same as ``prefix *``. It is tested against the whole command and against each
  subcommand (split on ``&&``, ``||``, ``;``, ``|``, ``&`` and newlines, with inner ``$(…)`` and
  backquoted commands, leading ``VAR=value`` assignments and grouping words removed): any hit
  matches. A command that cannot be parsed (unbalanced quotes) counts as a match, so the handler
  runs (#63066, #79675).
- File tools (`FILE_TOOLS`): a gitignore pattern against the tool's path, resolved against
  ``cwd``. ``//p`` is absolute, ``~/p`` is under the home directory, ``/p`` is anchored at
  ``cwd`` (CC anchors it at the settings file's project root, which is the session cwd here),
  and ``p`` or ``./p`` is relative to ``cwd``, where a pattern with no inner ``/`` matches at
  any depth: ``*.ts`` hits ``src/a/b.ts`` and ``./.env`` hits ``sub/.env``, as in CC. A
  directory match covers everything below it. Paths outside the pattern's base never match.
- ``WebFetch``: ``domain:host`` tests the URL's host, case-insensitively; ``*`` is a wildcard
  (``domain:*.example.com`` for subdomains).
- ``Agent``/``Task``: the ``subagent_type``, with ``*`` wildcards.

Any other specifier has no meaning we could test, so that rule never matches, and says why in
`problem`: a filter we cannot read should not silently widen to every call of the tool.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, Protocol
from urllib.parse import urlsplit

from hookagent._record import record
from hookagent.claude._matchers import SUBAGENT_ALIASES

__all__ = [
    "FILE_TOOLS",
    "PermissionRule",
    "compile_rule",
    "split_bash_command",
]

FILE_TOOLS: Final = frozenset(
    {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS"}
)
"""Tools whose specifier is a gitignore-style path pattern."""
_PATH_KEYS: Final = ("file_path", "notebook_path", "path")
_SEARCH_TOOLS: Final = frozenset({"Glob", "Grep"})
"""Tools whose `path` is optional and defaults to the cwd."""
_TOOL_NAME: Final = re.compile(r"[A-Za-z0-9_.*\-]+")
_SUBAGENT_TOOLS: Final = frozenset({"Agent", "Task"})
_UNESCAPED_PAREN: Final = re.compile(r"(?<!\\)\(")


class _Specifier(Protocol):
    def matches(self, tool_input: Mapping[str, Any], cwd: str, /) -> bool: ...


@record
class PermissionRule:
    """A compiled ``Tool(specifier)`` rule; `repr` is its source text."""

    source: str
    """The rule as written in the settings file."""
    tools: re.Pattern[str]
    """Full-matches the tool names the rule covers (aliases and MCP servers included)."""
    specifier: _Specifier | None
    """What the call's input must match; `None` matches every call of the tools."""
    problem: str | None = None
    """Why this rule can never match (a specifier we cannot interpret), else `None`."""

    def matches(self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str) -> bool:
        if self.tools.fullmatch(tool_name) is None:
            return False
        return self.specifier is None or self.specifier.matches(tool_input, cwd)

    def __repr__(self) -> str:
        return self.source


def compile_rule(
    text: str, *, aliases: Mapping[str, frozenset[str]] = SUBAGENT_ALIASES
) -> PermissionRule:
    """Compile one permission rule.

    Raises:
        ValueError: the rule is malformed (no tool name, an unclosed ``(``, text after ``)``).
    """
    tool, content = _parse(text)
    names = {tool} | {subject for subject, others in aliases.items() if tool in others}
    tools = re.compile("|".join(_tool_regex(name) for name in sorted(names)))
    if content in (None, "", "*"):
        return PermissionRule(source=text, tools=tools, specifier=None)
    specifier = _specifier(tool, content)
    if specifier is None:
        problem = (
            f"{text!r}: {content!r} is not a specifier hookagent can test for {tool},"
            " so the rule never matches"
        )
        return PermissionRule(source=text, tools=tools, specifier=_Never(), problem=problem)
    return PermissionRule(source=text, tools=tools, specifier=specifier)


def _parse(text: str) -> tuple[str, str | None]:
    rule = text.strip()
    opening = _UNESCAPED_PAREN.search(rule)
    tool = rule if opening is None else rule[: opening.start()]
    if not tool:
        raise ValueError(f"{text!r} is not a permission rule: it names no tool")
    if _TOOL_NAME.fullmatch(tool) is None:
        raise ValueError(f"{text!r} is not a permission rule: {tool!r} is not a tool name")
    if opening is None:
        return tool, None
    if not rule.endswith(")") or rule.endswith("\\)"):
        raise ValueError(f"{text!r} is not a permission rule: its '(' is not closed at the end")
    content = rule[opening.end() : -1]
    return tool, content.replace("\\(", "(").replace("\\)", ")")


def _tool_regex(name: str) -> str:
    parts = name.split("__")
    if parts[0] == "mcp" and len(parts) == 2 and "*" not in name:
        return re.escape(name) + "(?:__.*)?"  # a whole MCP server
    return _wildcards(name)


def _wildcards(pattern: str) -> str:
    """`*` matches any run of characters; `\\*` is a literal star; all else is literal."""
    pieces = re.split(r"(\\\*|\*)", pattern)
    return "".join(".*" if p == "*" else re.escape("*" if p == "\\*" else p) for p in pieces)


def _specifier(tool: str, content: str) -> _Specifier | None:
    if tool == "Bash":
        return _Command(regex=_command_regex(content))
    if tool in FILE_TOOLS:
        return _path_pattern(content, searches=tool in _SEARCH_TOOLS)
    if tool == "WebFetch" and content.startswith("domain:"):
        host = re.compile(_wildcards(content.removeprefix("domain:").lower()), re.DOTALL)
        return _Domain(host=host)
    if tool in _SUBAGENT_TOOLS:
        return _SubagentType(regex=re.compile(_wildcards(content), re.DOTALL))
    return None


@record(kw_only=False)
class _Never:
    def matches(self, tool_input: Mapping[str, Any], cwd: str, /) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class _OneArgument:
    """A specifier tested against one string argument of the call, named `argument`; a call
    without it (or with something else there) never matches."""

    argument: ClassVar[str]

    def matches(self, tool_input: Mapping[str, Any], cwd: str, /) -> bool:
        value = tool_input.get(self.argument)
        return isinstance(value, str) and self.test(value)

    def test(self, value: str, /) -> bool:
        raise NotImplementedError


# ---- Bash ------------------------------------------------------------------------------------


def _command_regex(content: str) -> re.Pattern[str]:
    if content.endswith(":*"):
        content = content[:-2] + " *"  # legacy prefix form, the same as a trailing ` *`
    body = _wildcards(content)
    if content.endswith(" *") and content.count("*") == 1:
        body = body.removesuffix(r"\ .*") + r"(?:\s.*)?"
    return re.compile(body, re.DOTALL)


@record(kw_only=False)
class _Command(_OneArgument):
    regex: re.Pattern[str]
    argument = "command"

    def test(self, command: str, /) -> bool:
        subcommands = split_bash_command(command)
        if subcommands is None:
            return True  # unparsable: CC runs the handler rather than guess (#63066, #79675)
        candidates = (command.strip(), *subcommands)
        return any(self.regex.fullmatch(candidate) for candidate in candidates)


_SEPARATORS: Final = ("&&", "||", "|&", ";;", ";", "|", "&", "\n")
_LEADING: Final = re.compile(
    r"""\s*(?:[({]|(?:!|if|then|elif|else|do|while|until|time)(?=\s)
        |[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^\s'"\\])*(?=\s))""",
    re.VERBOSE | re.DOTALL,
)
"""One leading word that is not the command: a grouping sign, a shell keyword, `VAR=value`."""


class _Unparsable(Exception):
    pass


def split_bash_command(command: str) -> list[str] | None:
    """The simple commands in `command`, or `None` if it cannot be parsed.

    Each subcommand is stripped of leading assignments, grouping signs and keywords; the
    commands inside ``$(…)`` and backquotes come after the one that holds them.
    """
    try:
        shlex.split(command)
        parts, _ = _scan(command, 0, None)
    except (ValueError, _Unparsable):
        return None
    return [cleaned for part in parts if (cleaned := _clean(part))]


def _scan(text: str, i: int, closer: str | None) -> tuple[list[str], int]:
    """Split `text` from `i` until `closer` (``)`` or a backquote) or the end."""
    parts: list[str] = []
    inner: list[str] = []
    current: list[str] = []
    quote: str | None = None
    depth = 0
    while i < len(text):
        char = text[i]
        start = i
        if quote == "'":
            quote = None if char == "'" else quote
            i += 1
        elif char == "\\":
            i += 2  # an escaped character, or a line continuation
        elif char == closer and quote is None and depth == 0:
            return [*parts, "".join(current), *inner], i + 1
        elif text.startswith("$(", i) or char == "`":
            found, i = _scan(text, i + (1 if char == "`" else 2), char if char == "`" else ")")
            inner.extend(found)
        elif char == '"' or (char == "'" and quote is None):
            quote = None if quote == char else char
            i += 1
        elif quote is None and (sep := _separator(text, i)):
            parts.append("".join(current))
            current = []
            i += len(sep)
            continue
        else:
            depth = _depth(depth, char) if quote is None else depth
            i += 1
        current.append(text[start:i])
    if quote is not None or closer is not None:
        raise _Unparsable
    return [*parts, "".join(current), *inner], i


def _depth(depth: int, char: str) -> int:
    if char == "(":
        return depth + 1
    return depth - 1 if char == ")" and depth > 0 else depth


def _separator(text: str, i: int) -> str | None:
    sep = next((s for s in _SEPARATORS if text.startswith(s, i)), None)
    if sep in ("&", "|") and i > 0 and text[i - 1] in "<>":
        return None  # `2>&1`, `<&0`, `>|`: redirections
    if sep == "&" and text.startswith(">", i + 1):
        return None  # `&>file`
    return sep


def _clean(part: str) -> str:
    text = part.strip()
    while (leading := _LEADING.match(text)) is not None and leading.end() > 0:
        text = text[leading.end() :].lstrip()
    for closing, opening in ((")", "("), ("}", "{")):
        while text.endswith(closing) and text.count(closing) > text.count(opening):
            text = text[:-1].rstrip()
    return text


# ---- Paths -----------------------------------------------------------------------------------

_Base = Literal["root", "home", "cwd"]


def _path_pattern(content: str, *, searches: bool) -> _Path:
    base: _Base
    if content.startswith("//"):
        base, pattern = "root", content[1:]
    elif content.startswith("~/"):
        base, pattern = "home", content[1:]
    elif content.startswith("/"):
        base, pattern = "cwd", content
    else:
        base, pattern = "cwd", content.removeprefix("./")
    dir_only = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    anchored = "/" in pattern
    body = _gitignore_regex(pattern.lstrip("/"))
    regex = re.compile(body if anchored else f"(?:.*/)?{body}", re.DOTALL)
    return _Path(base=base, regex=regex, dir_only=dir_only, searches=searches)


def _gitignore_regex(pattern: str) -> str:
    out: list[str] = []
    for index, segment in enumerate(pattern.split("/")):
        last = index == pattern.count("/")
        if segment == "**":
            out.append(".*" if last else "(?:.*/)?")
            continue
        out.append(_segment_regex(segment) + ("" if last else "/"))
    return "".join(out)


def _segment_regex(segment: str) -> str:
    pieces = re.split(r"(\\.|\*+|\?|\[!?\]?[^\]]*\])", segment)
    out: list[str] = []
    for piece in pieces:
        if piece.startswith("*"):
            out.append("[^/]*")
        elif piece == "?":
            out.append("[^/]")
        elif piece.startswith("[") and piece not in ("[]", "[!]"):
            negate = piece.startswith("[!")
            inner = piece[2 if negate else 1 : -1]
            chars = "".join(c if c == "-" else re.escape(c) for c in inner)
            out.append(f"[{'^' if negate else ''}{chars}]")
        else:
            out.append(re.escape(piece[1:] if piece.startswith("\\") else piece))
    return "".join(out)


@record
class _Path:
    base: _Base
    regex: re.Pattern[str]
    dir_only: bool
    searches: bool
    """Glob and Grep search the cwd when they are given no path."""

    def matches(self, tool_input: Mapping[str, Any], cwd: str, /) -> bool:
        raw = next((tool_input[key] for key in _PATH_KEYS if key in tool_input), None)
        if raw is None and self.searches:
            raw = cwd
        if not isinstance(raw, str) or not raw:
            return False
        target = os.path.normpath(os.path.join(cwd, raw))
        base = {"root": "/", "home": os.path.expanduser("~"), "cwd": cwd}[self.base]
        relative = os.path.relpath(target, os.path.normpath(base))
        if relative in (".", "..") or relative.startswith("../"):
            return False
        # gitignore: a path matches if it or any directory above it matches
        steps = relative.split("/")
        prefixes = ["/".join(steps[: n + 1]) for n in range(len(steps))]
        if self.dir_only:
            prefixes.pop()  # the target itself may be a file
        return any(self.regex.fullmatch(prefix) for prefix in prefixes)


# ---- WebFetch, Agent -------------------------------------------------------------------------


@record(kw_only=False)
class _Domain(_OneArgument):
    host: re.Pattern[str]
    argument = "url"

    def test(self, url: str, /) -> bool:
        try:
            host = urlsplit(url).hostname
        except ValueError:
            return False
        return host is not None and self.host.fullmatch(host) is not None


@record(kw_only=False)
class _SubagentType(_OneArgument):
    regex: re.Pattern[str]
    argument = "subagent_type"

    def test(self, kind: str, /) -> bool:
        return self.regex.fullmatch(kind) is not None
