"""Which events a hook applies to, decided on the event's subject (usually the tool name).

Loose specs are compiled once, at registration, into small matcher objects:

- ``"Bash"``: exact name; ``"Read|Write"``: any of a list; ``"*"``: everything;
- ``"read_*"`` / ``"*_file"`` / ``"mcp__?*"``: a glob (``*``, ``?``, ``[...]``);
- ``"/^mcp__.*__delete/"``: a regular expression, searched (anchor it yourself);
- ``AnyOf(...)`` / ``AllOf(...)`` / ``Not(...)`` compose; a callable gets the event itself.

A matcher on a point whose events have no subject (``before_step``, ``stop``…) only sees
callables; name patterns there are a `ConfigError`, because they could never match.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from typing import Any, ClassVar, Final, Protocol, TypeAlias, final, runtime_checkable

from hookagent._errors import ConfigError
from hookagent._record import record

__all__ = [
    "AllOf",
    "AnyOf",
    "Matcher",
    "MatchSpec",
    "Not",
    "compile_matcher",
]


@runtime_checkable
class Matcher(Protocol):
    def accepts(self, subject: str | None, event: Any, /) -> bool: ...

    @property
    def uses_subject(self) -> bool:
        """True if the matcher tests the subject name (so the point must have one)."""
        ...


MatchSpec: TypeAlias = "str | Matcher | Callable[[Any], bool] | None"


@record(kw_only=False)
class _Names:
    names: frozenset[str]
    uses_subject = True

    def accepts(self, subject: str | None, event: Any, /) -> bool:
        return subject in self.names

    def __repr__(self) -> str:
        return "|".join(sorted(self.names))


@record(kw_only=False)
class _Pattern:
    source: str
    regex: re.Pattern[str]
    uses_subject = True

    def accepts(self, subject: str | None, event: Any, /) -> bool:
        return subject is not None and self.regex.search(subject) is not None

    def __repr__(self) -> str:
        return self.source


@record(kw_only=False)
class _Everything:
    uses_subject = False

    def accepts(self, subject: str | None, event: Any, /) -> bool:
        return True


@record(kw_only=False)
class _Predicate:
    fn: Callable[[Any], bool]
    uses_subject = False

    def accepts(self, subject: str | None, event: Any, /) -> bool:
        return bool(self.fn(event))

    def __repr__(self) -> str:
        return getattr(self.fn, "__qualname__", repr(self.fn))


class _Composite:
    """Parts compiled once; with no parts, matches everything."""

    __slots__ = ("parts",)
    any_part: ClassVar[bool]
    """True: any part must match (AnyOf); False: every part (AllOf)."""

    def __init__(self, *specs: MatchSpec) -> None:
        self.parts = tuple(compile_matcher(spec) or _Everything() for spec in specs)

    @property
    def uses_subject(self) -> bool:
        return any(part.uses_subject for part in self.parts)

    def accepts(self, subject: str | None, event: Any, /) -> bool:
        if not self.parts:
            return True
        results = (part.accepts(subject, event) for part in self.parts)
        return any(results) if self.any_part else all(results)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self.parts))})"


@final
class AnyOf(_Composite):
    """Matches when any part matches."""

    __slots__ = ()
    any_part = True


@final
class AllOf(_Composite):
    """Matches when every part matches."""

    __slots__ = ()
    any_part = False


@final
class Not:
    __slots__ = ("part",)

    def __init__(self, spec: MatchSpec) -> None:
        self.part = compile_matcher(spec) or _Everything()

    @property
    def uses_subject(self) -> bool:
        return self.part.uses_subject

    def accepts(self, subject: str | None, event: Any, /) -> bool:
        return not self.part.accepts(subject, event)

    def __repr__(self) -> str:
        return f"Not({self.part!r})"


_GLOB_CHARS = frozenset("*?[")


_SUBAGENT_TOOL: Final = frozenset({"Agent", "Task"})
"""A hook matching either name matches the subagent tool."""


def compile_matcher(spec: MatchSpec) -> Matcher | None:
    """Turn a loose spec into a matcher; `None` means the hook applies to every event."""
    if spec is None:
        return None
    if isinstance(spec, str):
        return _compile_text(spec)
    if isinstance(spec, Matcher):
        return spec
    if callable(spec):
        return _Predicate(spec)
    raise ConfigError(
        f"a matcher must be a string, a Matcher or a callable, not {spec!r}", key="match"
    )


def _compile_text(spec: str) -> Matcher | None:
    text = spec.strip()
    if text in ("", "*"):
        return None
    if len(text) >= 2 and text.startswith("/") and text.endswith("/"):
        try:
            return _Pattern(text, re.compile(text[1:-1]))
        except re.error as exc:
            raise ConfigError(
                f"{text!r} is not a valid regular expression: {exc}", key="match", value=spec
            ) from exc
    names = [part.strip() for part in text.split("|")]
    if any(not name for name in names):
        raise ConfigError(f"{spec!r} has an empty name in its list", key="match", value=spec)
    if not any(_GLOB_CHARS & set(name) for name in names):
        listed = set(names)
        if listed & _SUBAGENT_TOOL:  # Claude Code renamed its subagent tool Task → Agent
            listed |= _SUBAGENT_TOOL
        return _Names(frozenset(listed))
    # translate() anchors only the end; the start is anchored here, so `read_*` is a prefix
    regex = r"\A(?:" + "|".join(fnmatch.translate(name) for name in names) + ")"
    return _Pattern(text, re.compile(regex))
