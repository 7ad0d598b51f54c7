"""`PathRules`: `.claude/rules/` files scoped by `paths:` join the conversation when a file
tool touches a matching path, as Claude Code loads them when Claude reads such a file.

Globs are matched against the path relative to the project (`**` any folders, `*` and `?`
within one name, `{a,b}` either); each rule joins a run once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any, Final, final

from hookagent.claude._instructions import InstructionFile, render_instructions
from hookagent.hooks._events import ToolResultEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import AFTER_TOOL
from hookagent.hooks._result import HookResult
from hookagent.tools._base import Tool

__all__ = ["PathRules", "glob_regex"]

_PATH_ARGS: Final = ("file_path", "notebook_path", "path")


@final
class PathRules:
    """A capability: the path-scoped rules of a project, added when they apply."""

    name = "claude-path-rules"

    def __init__(self, rules: Sequence[InstructionFile], project_dir: str) -> None:
        self.rules = tuple(rules)
        self.project_dir = os.path.abspath(project_dir)
        self._loaded: dict[str, set[str]] = {}

    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        yield make_hook(AFTER_TOOL, self.after_tool, name="path-rules", kind="transform")

    def after_tool(self, event: ToolResultEvent) -> HookResult | None:
        paths = [v for k in _PATH_ARGS if isinstance(v := event.args.get(k), str) and v]
        if not paths:
            return None
        loaded = self._loaded.setdefault(event.run.run_id, set())
        due = [
            rule
            for rule in self.rules
            if rule.path not in loaded and any(self._matches(rule, p) for p in paths)
        ]
        if not due:
            return None
        loaded.update(rule.path for rule in due)
        return HookResult.proceed().with_context(render_instructions(tuple(due)))

    def _matches(self, rule: InstructionFile, path: str) -> bool:
        absolute = os.path.normpath(os.path.join(self.project_dir, os.path.expanduser(path)))
        relative = os.path.relpath(absolute, self.project_dir).replace(os.sep, "/")
        return any(glob_regex(g).fullmatch(relative) for g in rule.globs)


@cache
def glob_regex(glob: str) -> re.Pattern[str]:
    """A `paths:` glob as a regular expression over a relative path."""
    out, i = "", 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
            continue
        if glob.startswith("**", i):
            out, i = out + ".*", i + 2
            continue
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "{" and (end := glob.find("}", i)) > i:
            options = glob[i + 1 : end].split(",")
            out += "(?:" + "|".join(re.escape(o) for o in options) + ")"
            i = end
        else:
            out += re.escape(char)
        i += 1
    return re.compile(out)
