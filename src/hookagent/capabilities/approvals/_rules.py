"""Approval rules: which tool calls run, which are refused, which a person decides.

A rule is a Claude Code permission rule (``Bash(git push:*)``, ``Edit(src/**)``,
``mcp__github__*``, ``Read``; see `hookagent.claude._rules`) with a decision, ``allow``,
``deny`` or ``ask``, and optionally a predicate over the call's arguments. Among the rules
that match a call, deny beats ask beats allow, as in Claude Code. A call no rule matches is
decided by its class: *safe* (read-only) or *destructive*.

Matching is conservative in the direction that matters. A deny or ask rule for Bash matches if
the whole command or any of its subcommands (``a && b``, ``a | b``, ``$(…)``) matches, and an
unparsable command matches every Bash deny and ask rule. An allow rule for Bash must cover
*every* subcommand (several allow rules may share the work: ``Bash(git status:*)`` and
``Bash(ls:*)`` together allow ``git status && ls``), so ``git status && rm -rf ~`` is not
allowed by ``Bash(git status:*)``; an unparsable command is allowed only by a rule for all of
Bash.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import KW_ONLY
from typing import Any, Final, Literal, get_args
from urllib.parse import urlsplit

from hookagent._record import record
from hookagent.claude._rules import FILE_TOOLS, PermissionRule, split_bash_command

__all__ = [
    "DESTRUCTIVE_PATTERNS",
    "DESTRUCTIVE_TOOLS",
    "SAFE_PREFIXES",
    "SAFE_TOOLS",
    "Class",
    "CompiledRule",
    "Decision",
    "Rule",
    "Verdict",
    "classify_tool",
    "decide",
    "suggest_rules",
    "summarize_call",
]

Decision = Literal["allow", "deny", "ask"]
Class = Literal["safe", "destructive"]
DECISIONS: Final[tuple[Decision, ...]] = get_args(Decision)
CLASSES: Final[tuple[Class, ...]] = get_args(Class)

SAFE_TOOLS: Final = frozenset(
    {
        "Read",
        "Glob",
        "Grep",
        "LS",
        "WebFetch",
        "WebSearch",
        "TodoWrite",
        "Skill",
        "NotebookRead",
    }
)
"""Read-only tools: safe."""
SAFE_PREFIXES: Final = ("read", "get", "list", "search")
"""Also safe: tools whose name starts so (case-insensitive; for ``mcp__server__tool``, the
tool part)."""
DESTRUCTIVE_TOOLS: Final = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash"})
DESTRUCTIVE_PATTERNS: Final = ("write*", "delete*", "remove*")
"""Also destructive: tools so named (case-insensitive globs; for ``mcp__server__tool``, the
name or the tool part). They are tested before `SAFE_PREFIXES`; any tool named by neither
list is destructive too."""
_DESTRUCTIVE_NAMES: Final = re.compile(
    "|".join(fnmatch.translate(pattern) for pattern in DESTRUCTIVE_PATTERNS)
)

_SUMMARY: Final = 120
"""Characters of a call's summary in a question or a reason."""


@record(kw_only=False)
class Rule:
    """``Rule("Bash(git push:*)", "ask")``: a permission rule and what it decides.

    `when`, if given, is a predicate over the call's arguments; the rule matches only calls
    for which it returns true (``Rule("deploy", "deny", when=lambda a: a["env"] == "prod")``).
    `reason` is told to the model when a deny rule refuses a call.
    """

    match: str
    decision: Decision
    _: KW_ONLY
    when: Callable[[Mapping[str, Any]], bool] | None = None
    reason: str | None = None


@record
class CompiledRule:
    """A rule ready to test calls, and where it came from."""

    rule: PermissionRule
    decision: Decision
    when: Callable[[Mapping[str, Any]], bool] | None = None
    reason: str | None = None
    file: str | None = None
    """The settings file it was read from; None for a rule given in code."""
    key: str | None = None
    """Where in that file (``permissions.deny[0]``), or ``rules[2]`` for a rule in code."""

    @property
    def text(self) -> str:
        return self.rule.source

    @property
    def label(self) -> str:
        """The rule and its file, as decision records name it."""
        return self.text if self.file is None else f"{self.text} ({self.file})"

    @property
    def origin(self) -> str:
        """The rule, its file and its key, as a refusal names it."""
        if self.file is None:
            return self.text
        return f"{self.text} in {self.file} ({self.key})"

    def covers_tool(self, tool_name: str) -> bool:
        return self.rule.tools.fullmatch(tool_name) is not None

    def accepts(self, args: Mapping[str, Any]) -> bool:
        return self.when is None or bool(self.when(args))

    def matches(self, tool_name: str, args: Mapping[str, Any], cwd: str) -> bool:
        return self.rule.matches(tool_name, args, cwd=cwd) and self.accepts(args)


@record
class Verdict:
    """What the rules say about one call."""

    decision: Decision
    rule: CompiledRule | None = None
    """The rule that decided; None when the call's class decided."""
    classification: Class | None = None
    """The call's class, when no rule matched and it decided."""

    @property
    def by(self) -> str:
        """For decision records: the rule (and its file), or ``unmatched <class> tool``."""
        if self.rule is not None:
            return self.rule.label
        return f"unmatched {self.classification} tool"


def classify_tool(tool_name: str, overrides: Mapping[str, Class] | None = None) -> Class:
    """`safe` or `destructive`. `overrides` maps tool names (or `fnmatch` patterns, tried
    after the exact names) to a class and wins over the defaults; a tool no list names is
    destructive."""
    if overrides:
        if tool_name in overrides:
            return overrides[tool_name]
        for pattern, kind in overrides.items():
            if fnmatch.fnmatchcase(tool_name, pattern):
                return kind
    if tool_name in SAFE_TOOLS:
        return "safe"
    if tool_name in DESTRUCTIVE_TOOLS:
        return "destructive"
    lowered = tool_name.lower()
    names = (lowered, lowered.rpartition("__")[2])
    if any(_DESTRUCTIVE_NAMES.match(name) for name in names):
        return "destructive"
    if any(name.startswith(SAFE_PREFIXES) for name in names):
        return "safe"
    return "destructive"


def decide(
    rules: Iterable[CompiledRule],
    tool_name: str,
    args: Mapping[str, Any],
    *,
    cwd: str,
    classification: Class,
    unmatched: Mapping[Class, Decision],
) -> Verdict:
    """Deny beats ask beats allow among matching rules (the first of each kind names the
    decision); no matching rule → `unmatched[classification]`."""
    relevant = [rule for rule in rules if rule.covers_tool(tool_name)]
    for decision in ("deny", "ask"):
        for rule in relevant:
            if rule.decision == decision and rule.matches(tool_name, args, cwd):
                return Verdict(decision=rule.decision, rule=rule)
    allowing = _allowing([r for r in relevant if r.decision == "allow"], tool_name, args, cwd)
    if allowing is not None:
        return Verdict(decision="allow", rule=allowing)
    return Verdict(decision=unmatched[classification], classification=classification)


def _allowing(
    rules: list[CompiledRule], tool_name: str, args: Mapping[str, Any], cwd: str
) -> CompiledRule | None:
    candidates = [rule for rule in rules if rule.accepts(args)]
    if tool_name != "Bash":
        return next((r for r in candidates if r.rule.matches(tool_name, args, cwd=cwd)), None)
    whole = next((r for r in candidates if r.rule.specifier is None), None)
    if whole is not None:
        return whole
    command = args.get("command")
    parts = split_bash_command(command) if isinstance(command, str) else None
    if not parts:
        return None  # unparsable (or empty): only a rule for all of Bash allows it
    first: CompiledRule | None = None
    for part in parts:
        hit = next((r for r in candidates if _covers_subcommand(r.rule, part)), None)
        if hit is None:
            return None
        first = first or hit
    return first


def _covers_subcommand(rule: PermissionRule, part: str) -> bool:
    """Whether an allow rule's command pattern matches this one subcommand as written.

    `PermissionRule.matches` would also look inside the subcommand's ``$(…)``, which is right
    for deny and ask but would let ``Bash(rm:*)`` allow ``echo $(rm x)``'s ``echo``; the
    inner command is a subcommand of its own and is checked in its turn."""
    regex = getattr(rule.specifier, "regex", None)
    if isinstance(regex, re.Pattern):
        return regex.fullmatch(part) is not None
    return rule.matches("Bash", {"command": part}, cwd=".")


# -- "always": the rule that allows a call like this one --------------------------------------

_SUBCOMMAND: Final = re.compile(r"[a-z][a-z0-9:_-]*")
_WITH_SUBCOMMANDS: Final = frozenset(
    {
        "apt",
        "apt-get",
        "brew",
        "bun",
        "bundle",
        "cargo",
        "composer",
        "conda",
        "deno",
        "docker",
        "dotnet",
        "gh",
        "git",
        "go",
        "gradle",
        "helm",
        "kubectl",
        "make",
        "mvn",
        "npm",
        "npx",
        "pip",
        "pip3",
        "pnpm",
        "poetry",
        "rustup",
        "systemctl",
        "terraform",
        "uv",
        "yarn",
    }
)
"""Programs whose second word names what they do (``git status``, ``npm test``)."""
_THREE_WORDS: Final = frozenset(
    {
        ("npm", "run"),
        ("pnpm", "run"),
        ("yarn", "run"),
        ("bun", "run"),
        ("uv", "run"),
        ("poetry", "run"),
        ("python", "-m"),
        ("python3", "-m"),
    }
)
"""Two words that still say nothing on their own (``npm run test``, ``python -m pytest``)."""
_GLOB_SPECIALS: Final = re.compile(r"([*?\[\]\\])")


def suggest_rules(tool_name: str, args: Mapping[str, Any], *, cwd: str) -> tuple[str, ...]:
    """The allow rules that "always allow" adds for this call; empty if none can be written.

    Bash: one ``prefix:*`` rule per subcommand: the program, with its subcommand for programs
    that have them (``git status:*``, ``npm run test:*``, ``python -m pytest:*``, ``ls:*``).
    File tools: the exact path (``Edit(/src/app.py)``, anchored at `cwd`; ``//abs/path``
    outside it). WebFetch: the URL's host. Agent/Task: the subagent type. Any other tool:
    its name, which allows all its calls.
    """
    if tool_name == "Bash":
        command = args.get("command")
        parts = split_bash_command(command) if isinstance(command, str) else None
        if not parts:
            return ()
        return tuple(dict.fromkeys(f"Bash({_prefix(part)}:*)" for part in parts))
    if tool_name in FILE_TOOLS:
        path = next((args[k] for k in ("file_path", "notebook_path", "path") if k in args), None)
        if not isinstance(path, str) or not path:
            return (_escape_name(tool_name),)
        return (f"{tool_name}({_anchored(path, cwd)})",)
    if tool_name == "WebFetch":
        url = args.get("url")
        host = _host(url) if isinstance(url, str) else None
        return (f"WebFetch(domain:{host})",) if host else ("WebFetch",)
    if tool_name in ("Agent", "Task"):
        kind = args.get("subagent_type")
        if isinstance(kind, str) and kind and not set(kind) & set("*()\\"):
            return (f"{tool_name}({kind})",)
    return (_escape_name(tool_name),)


def _prefix(part: str) -> str:
    try:
        words = shlex.split(part)
    except ValueError:
        words = part.split()
    words = words or [part]
    take = 1
    if len(words) > 1 and os.path.basename(words[0]) in _WITH_SUBCOMMANDS:
        take = 2 if _SUBCOMMAND.fullmatch(words[1]) else 1
    if len(words) > 2 and (os.path.basename(words[0]), words[1]) in _THREE_WORDS:
        take = 3 if not words[2].startswith("-") else 2
    prefix = " ".join(shlex.quote(word) for word in words[:take])
    return prefix.replace("*", "\\*").replace("(", "\\(").replace(")", "\\)")


def _anchored(path: str, cwd: str) -> str:
    target = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
    relative = os.path.relpath(target, os.path.normpath(cwd))
    inside = relative not in (".", "..") and not relative.startswith("../")
    shown = "/" + relative if inside else "/" + target  # "//abs": absolute, as CC writes it
    return _GLOB_SPECIALS.sub(r"\\\1", shown).replace("(", "\\(").replace(")", "\\)")


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def _escape_name(tool_name: str) -> str:
    return tool_name.replace("*", "\\*")


# -- how a call reads in a question -----------------------------------------------------------


def summarize_call(tool_name: str, args: Mapping[str, Any]) -> str:
    """``Bash(git push origin main)``, ``Edit(src/app.py)``, ``deploy(env='prod')``: one line,
    at most about 120 characters."""
    main = _main_argument(tool_name, args)
    if main is None:
        main = ", ".join(f"{key}={_show(value)}" for key, value in args.items())
    main = " ⏎ ".join(line.strip() for line in main.splitlines() if line.strip()) or main
    if len(main) > _SUMMARY:
        main = main[: _SUMMARY - 1] + "…"
    return f"{tool_name}({main})"


def _main_argument(tool_name: str, args: Mapping[str, Any]) -> str | None:
    key = {"Bash": "command", "WebFetch": "url", "WebSearch": "query"}.get(tool_name)
    if key is None and tool_name in FILE_TOOLS:
        key = next((k for k in ("file_path", "notebook_path", "path") if k in args), None)
    value = args.get(key) if key is not None else None
    return value if isinstance(value, str) else None


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
