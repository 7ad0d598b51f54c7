"""Which of an event's handlers run: each one's matcher and `if` rule, compiled once when
the hooks are built (a bad rule is a `ConfigError` then, not mid-run), tested against each
event; and settings-file handlers repeated across matchers run once, as in Claude Code.
"""

from __future__ import annotations

from typing import Any

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.claude._matchers import ClaudeMatcher, compile_claude_matcher
from hookagent.claude._model import SEPARATE_KINDS, TOOL_EVENTS, HandlerSpec
from hookagent.claude._rules import PermissionRule, compile_rule

__all__ = ["Selected", "run_once_each", "select_spec"]


@record(kw_only=False)
class Selected:
    """A handler ready to run: its matcher and `if` rule compiled once."""

    spec: HandlerSpec
    matcher: ClaudeMatcher | None
    rule: PermissionRule | None

    def fits(self, subject: str | None, tool_input: dict[str, Any] | None, cwd: str) -> bool:
        if self.matcher is not None and not self.matcher.accepts(subject, None):
            return False
        if self.spec.if_rule is None:
            return True
        if self.rule is None or tool_input is None:  # `if` off tool events: never runs
            return False
        return self.rule.matches(subject or "", tool_input, cwd=cwd)


def select_spec(spec: HandlerSpec) -> Selected:
    """`spec` ready to run: its matcher and `if` rule compiled (a bad rule: `ConfigError`)."""
    rule = None
    if spec.if_rule is not None and spec.event in TOOL_EVENTS:
        try:
            rule = compile_rule(spec.if_rule)
        except ValueError as exc:
            raise ConfigError(
                str(exc), file=spec.source.path, key=f"{spec.where}.if", value=spec.if_rule
            ) from exc
    return Selected(spec, compile_claude_matcher(spec.matcher, event=spec.event), rule)


def run_once_each(specs: list[HandlerSpec]) -> list[HandlerSpec]:
    """One run per command string (http: per url) among settings-file handlers, as Claude
    Code does (also across matchers); a plugin's, skill's or subagent's copy runs on its own."""
    seen: set[tuple[str, str | None, tuple[str, ...] | None]] = set()
    kept = []
    for spec in specs:
        mcp = f"{spec.server}/{spec.tool}/{spec.tool_input}" if spec.type == "mcp_tool" else None
        key = (spec.type, spec.command or spec.url or spec.prompt or mcp, spec.args)
        if spec.source.kind not in SEPARATE_KINDS:
            if key in seen:
                continue
            seen.add(key)
        kept.append(spec)
    return kept
