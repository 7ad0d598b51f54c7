"""`BashPolicy`: the limits and rules one `Bash` capability runs commands under.

Everything is checked when the policy is built: a zero or negative limit, a default timeout
above the maximum, output windows that do not fit, a regex that does not compile, all raise
`ConfigError` naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import Any, Final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.capabilities.bash._env import IDEMPOTENCY_KEY_VAR
from hookagent.capabilities.bash._rules import DEFAULT_DENY, DenyRule

__all__ = ["KIB", "BashPolicy"]

KIB: Final = 1024


@record
class BashPolicy:
    """How `Bash` runs commands. Sizes are bytes, times seconds."""

    deny: Sequence[DenyRule | str] = DEFAULT_DENY
    """Rules the `before_tool` guard enforces; a str is a regex over the normalised command
    (see `DenyRule.pattern`). Add to the defaults with `(*DEFAULT_DENY, ...)`."""
    allow: Sequence[str] = ()
    """Regexes; a simple command one of them matches in full is exempt from the deny rules."""
    default_timeout_s: float = 120.0
    max_timeout_s: float = 600.0
    """The most a call's `timeout` may ask for."""
    kill_grace_s: float = 2.0
    """Between SIGTERM and SIGKILL when a command's process group is stopped."""
    max_output: int = 32 * KIB
    """Per stream, what the model reads; longer output shows `output_head` bytes, a marker
    and `output_tail` bytes."""
    output_head: int = 8 * KIB
    output_tail: int = 24 * KIB
    keep_head: int = 32 * KIB
    """Per stream, bytes kept from the start while the command runs (hooks see what is
    kept); the rest is read and dropped, except the last `keep_tail` bytes."""
    keep_tail: int = 96 * KIB
    env_allow: Sequence[str] = ()
    """Names (or `fnmatch` globs) of host variables to keep although the scrub list drops them."""
    extra_env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Variables set for every command, after the scrub."""

    rules: tuple[DenyRule, ...] = field(init=False, repr=False, compare=False)
    allow_patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check_limits()
        for name in ("deny", "allow", "env_allow"):
            if isinstance(getattr(self, name), str):
                raise _error(name, "takes a sequence, not one str", getattr(self, name))
        for key, value in self.extra_env.items():
            if not isinstance(key, str) or not key or "=" in key or not isinstance(value, str):
                raise _error("extra_env", f"{key!r}: names and values must be str", value)
            if key == IDEMPOTENCY_KEY_VAR:
                raise _error("extra_env", f"{key} is set to each call's idempotency key", value)
        object.__setattr__(self, "extra_env", MappingProxyType(dict(self.extra_env)))
        object.__setattr__(self, "rules", tuple(DenyRule.of(rule) for rule in self.deny))
        object.__setattr__(self, "allow_patterns", tuple(_compile(p) for p in self.allow))

    def _check_limits(self) -> None:
        for name in ("default_timeout_s", "max_timeout_s", "kill_grace_s"):
            _positive(name, getattr(self, name), whole=False)
        for name in ("max_output", "output_head", "output_tail", "keep_head", "keep_tail"):
            _positive(name, getattr(self, name), whole=True)
        if self.default_timeout_s > self.max_timeout_s:
            raise _error("default_timeout_s", "exceeds max_timeout_s", self.default_timeout_s)
        if self.output_head + self.output_tail > self.max_output:
            raise _error("output_head", "plus output_tail exceeds max_output", self.output_head)
        if self.output_head > self.keep_head:
            raise _error("output_head", "exceeds keep_head", self.output_head)
        if self.output_tail > self.keep_tail:
            raise _error("output_tail", "exceeds keep_tail", self.output_tail)
        if self.max_output > self.keep_head + self.keep_tail:
            raise _error("max_output", "exceeds keep_head + keep_tail", self.max_output)


def _positive(name: str, value: Any, *, whole: bool) -> None:
    number = isinstance(value, int) or (not whole and isinstance(value, float))
    if isinstance(value, bool) or not number or not value > 0:
        what = "a positive whole number" if whole else "a positive number"
        raise _error(name, f"must be {what}, not {value!r}", value)


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise _error("allow", f"{pattern!r} is not a valid regex: {exc}", pattern) from None


def _error(name: str, message: str, value: object) -> ConfigError:
    return ConfigError(message, key=f"BashPolicy({name})", value=value)
