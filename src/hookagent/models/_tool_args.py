"""A model's raw tool-call arguments → a `ToolCall`, one rule for every driver.

Models send arguments as JSON text, and sometimes send text no tool should get. Such a call is
kept with a `parse_error`, so the kernel answers the model with an error result naming the
problem instead of failing the run:

- text that is not JSON, or not a JSON object;
- arrays and objects nested deeper than `MAX_DEPTH`, found by scanning the text without
  recursion before any parser recurses into it;
- a lone UTF-16 surrogate (`"\\ud800"` is valid JSON) in a key or a string, named by its path;
- what JSON has no value for (`NaN`, `Infinity`, `1e400`), an integer longer than Python reads
  (`MAX_DIGITS`), a key given twice in one object (which value was meant?).

Every string a call carries besides its arguments (id, tool name) has unpaired surrogates
replaced by U+FFFD (see `hookagent._surrogates`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from hookagent._messages import ToolCall
from hookagent._surrogates import SURROGATE, escaped, replace

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "check_call", "cut_deep", "decode", "parse_call", "problem"]

MAX_DEPTH: Final = 100
"""How deep arrays and objects may nest in a call's arguments, the arguments object being
level 1: far beyond any tool's schema, and well within what the JSON readers between the model
and the store take (pydantic's stops near 200)."""

MAX_DIGITS: Final = 4300
"""The longest integer argument, in digits: Python's default limit for reading one."""

TOO_DEEP: Final = f"arguments nest deeper than {MAX_DEPTH} levels of arrays and objects"

_TOKENS: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
"""A JSON string (skipped whole: brackets inside it do not nest) or a bracket."""

_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Refused(ValueError):
    """Raised from inside the JSON reader: the text is JSON that arguments may not hold."""


def parse_call(call_id: str, name: str, arguments: str | None) -> ToolCall:
    """A tool call from its raw JSON arguments; unusable ones carry a `parse_error`."""
    call_id, name = replace(call_id), replace(name)
    if arguments is None or not arguments.strip():
        return ToolCall(id=call_id, name=name)  # some servers send "" for a call with no args
    decoded = decode(arguments)
    if isinstance(decoded, str):
        return ToolCall(id=call_id, name=name, parse_error=decoded)
    return check_call(ToolCall(id=call_id, name=name, args=decoded))


def decode(arguments: str) -> dict[str, Any] | str:
    """The arguments object, or why the text cannot be one."""
    if _too_deep(arguments):
        return TOO_DEEP
    try:
        parsed = _DECODER.decode(arguments)
    except _Refused as exc:
        return str(exc)
    except RecursionError:  # not reached past the scan above; kept so no text can fail a run
        return TOO_DEEP
    except ValueError as exc:  # json.JSONDecodeError among them
        return f"arguments are not valid JSON ({exc})"
    if not isinstance(parsed, dict):
        return f"arguments must be a JSON object, got {type(parsed).__name__}"
    return parsed


def check_call(call: ToolCall) -> ToolCall:
    """`call` as a run may keep it: for calls a model or driver built from objects, which did
    not come through `parse_call`. The same object when nothing needs changing."""
    call_id, name = replace(call.id), replace(call.name)
    error = call.parse_error if call.parse_error is not None else problem(call.args)
    if call_id is call.id and name is call.name and error is call.parse_error:
        return call
    return ToolCall(id=call_id, name=name, parse_error=error)


def problem(args: Mapping[str, Any]) -> str | None:
    """Why these arguments cannot go to a tool, or None: nesting past `MAX_DEPTH`, a lone
    surrogate in a key or a string, a float JSON cannot write. Walks with a stack, not by
    recursion, so any depth is safe; a flat object of plain values (most calls) is checked
    in one loop, since every model reply passes here."""
    if type(args) is dict:
        for key, value in args.items():
            kind = type(value)
            if kind is str:
                if not value.isascii() and SURROGATE.search(value):
                    break
            elif kind not in _PLAIN:
                break
            if type(key) is not str or (not key.isascii() and SURROGATE.search(key)):
                break
        else:
            return None
    return _walk(args)


_PLAIN: Final = frozenset({int, bool, type(None)})


def _walk(args: Mapping[str, Any]) -> str | None:
    stack: list[tuple[object, int, tuple[Any, ...]]] = [(args, 1, ())]
    while stack:
        value, depth, trail = stack.pop()
        if isinstance(value, Mapping):
            if depth > MAX_DEPTH:
                return TOO_DEEP
            items = list(value.items())
            for key, _ in items:
                if isinstance(key, str) and not key.isascii() and (found := SURROGATE.search(key)):
                    return _bad_unicode("the key", (key, trail), found.group())
            stack.extend((item, depth + 1, (key, trail)) for key, item in reversed(items))
        elif isinstance(value, list | tuple):
            if depth > MAX_DEPTH:
                return TOO_DEEP
            stack.extend(
                (item, depth + 1, (index, trail))
                for index, item in reversed(list(enumerate(value)))
            )
        elif isinstance(value, str):
            if not value.isascii() and (found := SURROGATE.search(value)):
                return _bad_unicode("the string at", trail, found.group())
        elif isinstance(value, float) and not math.isfinite(value):
            return f"the number at {_path(trail)} is {value!r}, which JSON cannot hold"
    return None


def _too_deep(text: str) -> bool:
    """Whether brackets outside strings nest past `MAX_DEPTH`: one pass, no recursion."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for token in _TOKENS.finditer(text):
        char = text[token.start()]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


def cut_deep(text: str, level: int) -> str:
    """JSON `text` with every array and object opened at nesting `level` emptied, so that a
    recursive reader can take it: one pass, no recursion. Arguments cut past `MAX_DEPTH` still
    nest deeper than it, so their call is refused as too deep all the same. Text that does
    not close what it opens is returned as it is, for its reader to refuse."""
    parts: list[str] = []
    kept = depth = 0
    for token in _TOKENS.finditer(text):
        char = text[token.start()]
        if char in "[{":
            depth += 1
            if depth == level:
                parts.append(text[kept : token.end()])
        elif char in "]}":
            if depth == level:
                kept = token.start()
            depth -= 1
    if depth != 0:
        return text
    parts.append(text[kept:])
    return "".join(parts)


def _bad_unicode(where: str, trail: tuple[Any, ...], char: str) -> str:
    return (
        f"invalid Unicode in {where} {_path(trail)}: a lone UTF-16 surrogate "
        f"({escaped(char)}); send text as valid Unicode"
    )


def _path(trail: tuple[Any, ...]) -> str:
    """`$.files[0]["odd key"]` for the trail (key, (parent key, (…, ()))) from a value up."""
    parts: list[str] = []
    while trail:
        key, trail = trail
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif isinstance(key, str) and _NAME.fullmatch(key):
            parts.append(f".{key}")
        else:
            parts.append(f"[{_quoted(str(key))}]")
    return "$" + "".join(reversed(parts))


def _quoted(key: str) -> str:
    """A key as a JSON string in ASCII (surrogates escaped), cut after 40 characters."""
    return json.dumps(key[:40]) + ("…" if len(key) > 40 else "")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the key {_quoted(key)} appears twice in one object")
            seen.add(key)
    return obj


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(f"the number {text[:40]} is out of range")
    return value


def _int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_DIGITS:
        raise _Refused(f"an integer has {digits} digits (at most {MAX_DIGITS})")
    return int(text)


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=_object, parse_float=_float, parse_int=_int, parse_constant=_constant
)
