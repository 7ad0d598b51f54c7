"""What hookagent will not do with loaded settings: the one list `hooks check` and `run` print.

A configured guard that never runs is a bypass, so settings holding hooks hookagent would not
run (`Skipped`) are refused with a `ConfigError` unless the user opts out; everything else
worth knowing (matchers and `if` rules that can never match, dead variables, empty commands,
switches that turned hooks off) is a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.claude._matchers import compile_claude_matcher
from hookagent.claude._model import TOOL_EVENTS, HandlerSpec, LoadedSettings, Skipped

__all__ = ["OPT_OUT", "SettingsReport", "check_servers", "check_settings"]

OPT_OUT: Final = "--allow-unsupported-hooks (Python: allow_unsupported=True)"
"""How a user says "run without them"; named in every refusal."""


@record
class SettingsReport:
    skipped: tuple[Skipped, ...] = ()
    """Hooks hookagent would not run: refused unless the user opts out."""
    warnings: tuple[str, ...] = ()

    def refuse(self) -> None:
        """A `ConfigError` naming the first skipped hook's file, JSON path and type or event
        (and how many more there are), if there is any."""
        if not self.skipped:
            return
        first, rest = self.skipped[0], self.skipped[1:]
        more = f" (and {len(rest)} more: {', '.join(s.key for s in rest)})" if rest else ""
        raise ConfigError(
            f"{first.message}, so hookagent would skip this hook{more}. Remove it, or run "
            f"without it: {OPT_OUT}",
            file=first.source.path,
            key=first.key,
            value=first.value,
        )


def check_settings(loaded: LoadedSettings) -> SettingsReport:
    """The report on `loaded`: its skipped hooks, and its warnings with those about each
    handler's matcher and `if` rule."""
    warnings = list(loaded.warnings)
    for spec in loaded.handlers:
        warnings += _problems(spec)
    return SettingsReport(skipped=loaded.skipped, warnings=tuple(warnings))


def _problems(spec: HandlerSpec) -> list[str]:
    found = []
    matcher = compile_claude_matcher(spec.matcher, event=spec.event)
    if matcher is not None and matcher.problem:
        found.append(f"{spec.label}: matcher {matcher.problem}")
    if spec.if_rule is not None and spec.event in TOOL_EVENTS:
        from hookagent.claude._rules import compile_rule  # only settings with `if` rules

        try:
            rule = compile_rule(spec.if_rule)
        except ValueError as exc:
            found.append(f"{spec.label}: if {exc}")
        else:
            if rule.problem:
                found.append(f"{spec.label}: if {rule.problem}")
    return found


def check_servers(settings: LoadedSettings, servers: Mapping[str, object]) -> None:
    """An `mcp_tool` handler naming a server that is not configured would never run."""
    for spec in settings.handlers:
        if spec.type == "mcp_tool" and spec.server not in servers:
            known = ", ".join(sorted(servers)) or "none"
            raise ConfigError(
                f'MCP server "{spec.server}" is not configured (configured: {known})',
                file=spec.source.path,
                key=f"{spec.where}.server",
                value=spec.server,
            )
