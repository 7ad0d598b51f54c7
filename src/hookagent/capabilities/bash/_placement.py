"""Where a Bash call runs: in the sandbox, or outside it (Claude Code's `excludedCommands`,
`allowUnsandboxedCommands` and the Bash tool's `dangerouslyDisableSandbox`).

An excluded command is a pattern as in a Bash permission rule (`docker *`, `git push`,
`npm run build:*`); a command runs outside the sandbox when the whole command or any of
its subcommands (`a && b`, `a | b`, `$(…)`) matches one, as Claude Code decides it. A
command that cannot be parsed stays in the sandbox. `dangerouslyDisableSandbox: true` takes
a call out of the sandbox only when unsandboxed commands are allowed; otherwise the request
is ignored, and the call's record and result say so. A call outside the sandbox is never
auto-allowed (see `hookagent.tools._sandboxing`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.claude._rules import compile_rule, split_bash_command

__all__ = ["Exclusions", "Placement", "place"]


@record(kw_only=False)
class Placement:
    """Where one call runs, and why it leaves the sandbox or why its request was ignored."""

    sandboxed: bool
    reason: str | None = None
    """Why the call runs outside the sandbox."""
    by: Literal["excludedCommands", "dangerouslyDisableSandbox"] | None = None
    ignored: str | None = None
    """Why a `dangerouslyDisableSandbox` request had no effect."""
    kept: str | None = None
    """Why a call placed outside runs inside: a hook's profile kept it there."""


@record(kw_only=False)
class Exclusions:
    """The excluded commands of a capability, compiled as Bash permission rules."""

    patterns: tuple[str, ...] = ()
    regexes: tuple[re.Pattern[str], ...] = ()

    @classmethod
    def build(cls, patterns: object, *, key: str, file: str | None = None) -> Exclusions:
        """`patterns` checked: each a command pattern a Bash permission rule takes."""
        if isinstance(patterns, str) or not isinstance(patterns, Sequence):
            raise ConfigError(
                "must be a list of command patterns", file=file, key=key, value=patterns
            )
        regexes: list[re.Pattern[str]] = []
        for item in patterns:
            regex = _regex(item)
            if regex is None:
                raise ConfigError(
                    "is not a command pattern such as 'docker *' or 'git push'",
                    file=file,
                    key=key,
                    value=item,
                )
            regexes.append(regex)
        return cls(tuple(patterns), tuple(regexes))

    def match(self, command: str) -> str | None:
        """The first pattern matching `command` or one of its subcommands, if any."""
        if not self.patterns:
            return None
        parts = split_bash_command(command)
        if parts is None:
            return None  # unparsable: it stays in the sandbox
        candidates = (command.strip(), *parts)
        for pattern, regex in zip(self.patterns, self.regexes, strict=True):
            if any(regex.fullmatch(candidate) for candidate in candidates):
                return pattern
        return None


def place(
    exclusions: Exclusions, command: str, *, disable: bool, allow_unsandboxed: bool
) -> Placement:
    """Where `command` runs when a sandbox is available; `disable`: the call asked to leave it."""
    pattern = exclusions.match(command)
    if pattern is not None:
        reason = f"excluded command (matches {pattern!r})"
        return Placement(False, reason, "excludedCommands")
    if not disable:
        return Placement(True)
    if allow_unsandboxed:
        reason = "the call asked to run outside the sandbox (dangerouslyDisableSandbox)"
        return Placement(False, reason, "dangerouslyDisableSandbox")
    return Placement(
        True,
        ignored="dangerouslyDisableSandbox was ignored: unsandboxed commands are not allowed "
        "(allowUnsandboxedCommands is false), so the command ran in the sandbox",
    )


def _regex(pattern: object) -> re.Pattern[str] | None:
    if not isinstance(pattern, str) or not pattern.strip() or set(pattern) & set("()"):
        return None
    try:
        rule = compile_rule(f"Bash({pattern})")
    except ValueError:
        return None
    regex = getattr(rule.specifier, "regex", None)
    return regex if isinstance(regex, re.Pattern) else None
