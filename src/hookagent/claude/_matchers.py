"""The `matcher` string of a Claude Code settings group, as a hookagent `Matcher`.

Claude Code reads the string three ways (CLAUDE_HOOKS.md §4.3):

- ``"*"``, ``""`` or missing: every subject, so `compile_claude_matcher` returns `None`;
- only letters, digits, ``_``, ``-``, spaces, ``,`` and ``|``: exact names, split on ``|`` or
  ``,`` and trimmed (``FileChanged`` and ``StopFailure`` keep the older set: letters, digits,
  ``_`` and ``|``);
- anything else: a JavaScript regex tested like ``RegExp.test``, i.e. searched, unanchored.

The regex is translated to Python's dialect once, at compile time, and compiled with
`re.ASCII` so ``\\d``, ``\\w`` and ``\\b`` mean what they mean in JavaScript. A pattern
JavaScript would reject matches nothing, as in Claude Code, and says why in `problem` so
``hookagent hooks check`` can warn.

CC renamed the subagent tool ``Task`` to ``Agent`` and settings in the wild name either, so a
matcher that hits one name also hits the other (`SUBAGENT_ALIASES`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from hookagent._record import record

__all__ = [
    "ClaudeMatcher",
    "SUBAGENT_ALIASES",
    "compile_claude_matcher",
    "translate_js_regex",
]

SUBAGENT_ALIASES: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {"Agent": frozenset({"Task"}), "Task": frozenset({"Agent"})}
)
"""Subject → the other names a matcher may use for it (CC's `Task` → `Agent` rename)."""

_NAMES: Final = re.compile(r"[A-Za-z0-9_\- ,|]+")
_NARROW_NAMES: Final = re.compile(r"[A-Za-z0-9_|]+")
_NARROW_EVENTS: Final = frozenset({"FileChanged", "StopFailure"})
"""Events whose exact-name test still uses CC's older, narrower character set."""


@record
class ClaudeMatcher:
    """A compiled settings-file matcher; `repr` is its source text."""

    source: str
    """The matcher string as written in the settings file."""
    names: frozenset[str]
    """Subjects hit by name: the exact list plus alias names, or, for a regex, the alias
    subjects whose other name the regex hits."""
    regex: re.Pattern[str] | None
    """The translated JavaScript regex, searched; `None` for an exact list or a bad regex."""
    problem: str | None = None
    """Why this matcher can never match (an invalid regex, no names), else `None`."""
    uses_subject = True

    def accepts(self, subject: str | None, event: Any, /) -> bool:
        if subject is None:
            return False
        if subject in self.names:
            return True
        return self.regex is not None and self.regex.search(subject) is not None

    def __repr__(self) -> str:
        return self.source


def compile_claude_matcher(
    text: str | None,
    *,
    event: str,
    aliases: Mapping[str, frozenset[str]] = SUBAGENT_ALIASES,
) -> ClaudeMatcher | None:
    """Compile a settings-file matcher for `event`; `None` means it matches everything.

    Never raises: a matcher CC would treat as matching nothing compiles to one that matches
    nothing and carries a `problem`.
    """
    if text is None or text.strip() in ("", "*"):
        return None
    exact = _NARROW_NAMES if event in _NARROW_EVENTS else _NAMES
    if exact.fullmatch(text):
        return _exact(text, aliases)
    try:
        regex = _compile_js(text)
    except re.error as exc:
        problem = f"{text!r} is not a valid regular expression: {exc}"
        return ClaudeMatcher(source=text, names=frozenset(), regex=None, problem=problem)
    hits = frozenset(
        subject
        for subject, others in aliases.items()
        if any(regex.search(other) is not None for other in others)
    )
    return ClaudeMatcher(source=text, names=hits, regex=regex)


def _exact(text: str, aliases: Mapping[str, frozenset[str]]) -> ClaudeMatcher:
    listed = {name.strip() for name in re.split(r"[|,]", text)} - {""}
    if not listed:
        problem = f"{text!r} names no tool, so it matches nothing"
        return ClaudeMatcher(source=text, names=frozenset(), regex=None, problem=problem)
    aliased = {subject for subject, others in aliases.items() if others & listed}
    return ClaudeMatcher(source=text, names=frozenset(listed | aliased), regex=None)


def _compile_js(source: str) -> re.Pattern[str]:
    with warnings.catch_warnings():
        # "possible nested set" FutureWarnings are about Python's future syntax, not JS's
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(translate_js_regex(source), re.ASCII)


# Escapes with a meaning in a JavaScript regex without the `u` flag; any other escaped letter
# stands for itself there (`\A` is "A"), while Python rejects it or reads it otherwise.
_JS_LETTER_ESCAPES: Final = frozenset("dDwWsSbBnrtfvxuck")
_QUANTIFIER: Final = re.compile(r"[*+?]|\{\d+(?:,\d*)?\}")


def translate_js_regex(source: str) -> str:
    """Rewrite a JavaScript regex (no flags) in Python's dialect.

    Raises:
        re.error: for syntax JavaScript rejects but Python would accept, such as ``(?P<n>…)``,
            inline flags, atomic groups and possessive quantifiers.
    """
    out: list[str] = []
    in_class = False
    repeat = 0  # 1 just after a quantifier, 2 after a lazy one: only `?` may follow a 1
    i = 0
    while i < len(source):
        char = source[i]
        quantifier = None if in_class else _QUANTIFIER.match(source, i)
        if quantifier is not None:
            if repeat == 2 or (repeat == 1 and quantifier.group() != "?"):
                raise re.error(f"nothing to repeat at position {i}")
            repeat = 2 if repeat else 1
            out.append(quantifier.group())
            i = quantifier.end()
            continue
        if char == "\\":
            piece, i = _escape(source, i, in_class)
        elif in_class:
            in_class = char != "]"
            piece, i = ("\\" + char if char in "[&~|" else char), i + 1
        elif char == "[":
            piece, i, in_class = _class_start(source, i)
        elif char == "(":
            piece, i = _group_start(source, i)
        elif char == "$":
            piece, i = r"\Z", i + 1  # JS `$` (no m flag) is the very end, never before a \n
        else:
            piece, i = char, i + 1
        out.append(piece)
        repeat = 0
    return "".join(out)


def _escape(source: str, i: int, in_class: bool) -> tuple[str, int]:
    if i + 1 == len(source):
        raise re.error("\\ at end of pattern")
    char = source[i + 1]
    if char == "k" and not in_class and source.startswith("<", i + 2):
        end = source.find(">", i + 3)
        if end == -1:
            raise re.error("invalid named reference")
        return f"(?P={source[i + 3 : end]})", end + 1
    if char == "c" and i + 2 < len(source) and source[i + 2].isascii() and source[i + 2].isalpha():
        return re.escape(chr(ord(source[i + 2]) % 32)), i + 3
    if char.isascii() and char.isalpha() and char not in _JS_LETTER_ESCAPES:
        return char, i + 2
    return source[i : i + 2], i + 2


def _class_start(source: str, i: int) -> tuple[str, int, bool]:
    if source.startswith("[^]", i):
        return r"[\s\S]", i + 3, False  # JS: any character at all
    if source.startswith("[]", i):
        return "(?!)", i + 2, False  # JS: an empty class, which matches nothing
    if source.startswith("[^", i):
        return "[^", i + 2, True
    return "[", i + 1, True


def _group_start(source: str, i: int) -> tuple[str, int]:
    if not source.startswith("(?", i):
        return "(", i + 1
    rest = source[i + 2 : i + 4]
    if rest[:1] in (":", "=", "!"):
        return source[i : i + 3], i + 3
    if rest in ("<=", "<!"):
        return source[i : i + 4], i + 4
    if rest[:1] == "<":
        return "(?P<", i + 3
    modifiers = re.match(r"\(\?[ims]*(?:-[ims]+)?:", source[i:])
    if modifiers is not None:
        return modifiers.group(), i + modifiers.end()
    raise re.error(f"invalid group {source[i : i + 3]!r} at position {i}")
