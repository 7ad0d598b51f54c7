"""A settings file whose shape Claude Code would reject, told in its own words: the first
problem pydantic found, at its JSON path, with what each key must be."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final

from pydantic import ValidationError

from hookagent._errors import ConfigError

__all__ = ["shape_error"]

_RULES: Final = {
    **dict.fromkeys(
        (
            *("matcher", "type", "command", "statusMessage", "url", "prompt", "model"),
            *("server", "tool", "rewakeMessage", "rewakeSummary"),
        ),
        "must be a string",
    ),
    **dict.fromkeys(
        (
            *("async", "asyncRewake", "once", "disableAllHooks", "allowManagedHooksOnly"),
            "continueOnBlock",
        ),
        "must be true or false",
    ),
    "hooks": "must be a list of handlers",
    "args": "must be a list of strings",
    "allowedEnvVars": "must be a list of variable names",
    "httpHookAllowedEnvVars": "must be a list of variable names",
    "allowedHttpHookUrls": 'must be a list of URL patterns, e.g. "https://hooks.example.com/*"',
    "headers": "must be an object mapping header names to strings",
    "input": "must be an object of tool arguments",
    "timeout": "must be a positive number of seconds",
    "if": 'must be a string holding one permission rule, e.g. "Bash(git *)"',
    "onFailure": 'must be "continue" or "block"',
    "shell": 'must be a string ("bash" or "powershell")',
}
"""What each key must be; top-level `hooks` has its own wording in `shape_error`."""
_LEGACY_GROUP = (
    'a matcher group needs a "hooks" list; this one holds a handler directly, a legacy form '
    'no current Claude Code build runs: write {"matcher": ..., "hooks": [{"type": "command", '
    '"command": ...}]}'
)


def shape_error(exc: ValidationError, data: object, prefix: str, file: str) -> ConfigError:
    """The first problem pydantic found, in our words, at its JSON path."""
    error = exc.errors()[0]
    loc = list(error["loc"])
    for whole in (
        "args",
        "allowedEnvVars",
        "headers",
        "allowedHttpHookUrls",
        "httpHookAllowedEnvVars",
    ):  # name the whole value, not one item
        if whole in loc:
            loc = loc[: loc.index(whole) + 1]
    key = (prefix + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)).lstrip(".")
    value, last = _at(data, loc), (loc[-1] if loc else None)
    if error["type"] == "missing":
        return ConfigError(_missing(str(last), _at(data, loc[:-1])), file=file, key=key)
    if last == "hooks" and not prefix:
        message = "must be an object mapping event names to lists of matcher groups"
    elif isinstance(last, str):
        message = _RULES.get(last, str(error["msg"]).lower())
    elif last is None:
        message = "must be a list of matcher groups" if prefix else "must be a JSON object"
    else:
        message = "a handler must be an object" if len(loc) > 1 else "a group must be an object"
    return ConfigError(f"{message}, got {_show(value)}", file=file, key=key or None, value=value)


def _missing(field: str, parent: object) -> str:
    if field == "hooks":
        legacy = isinstance(parent, Mapping) and ("command" in parent or "type" in parent)
        return _LEGACY_GROUP if legacy else 'a matcher group needs a "hooks" list of handlers'
    if field == "type":
        return 'a handler needs a "type", e.g. "command"'
    return "is required"


def _at(data: object, loc: list[int | str]) -> object:
    for part in loc:
        if isinstance(data, list) and isinstance(part, int):
            data = data[part]
        elif isinstance(data, Mapping):
            data = data.get(part)
    return data


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."
