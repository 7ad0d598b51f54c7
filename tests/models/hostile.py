"""Hypothesis strategies for what a hostile model sends: tool names, argument text and reply
text with lone surrogates, deep nesting, numbers JSON cannot hold, duplicate keys, JSON that is
not an object, and plain garbage."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st

__all__ = [
    "FAST",
    "argument_texts",
    "surrogate_free",
    "texts",
    "tool_calls",
    "tool_names",
]

FAST = settings(deadline=None, derandomize=True, database=None)
"""Reproducible, no example database; each test sets its own (small) `max_examples`."""

_CHARS = st.characters(exclude_categories=())  # surrogates included
texts = st.text(_CHARS, max_size=12)
tool_names = st.one_of(st.sampled_from(["echo", "add", ""]), texts)

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and ±inf included: json.dumps writes them as NaN/Infinity literals
    texts,
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def _deep(draw: st.DrawFn) -> str:
    levels = draw(st.sampled_from([99, 100, 101, 5_000, 100_000]))
    opening, closing = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    inner = opening * levels + "1" + closing * levels
    return '{"text": ' + inner + "}" if draw(st.booleans()) else inner


@st.composite
def _numbers(draw: st.DrawFn) -> str:
    digits = "9" * draw(st.integers(1, 6000))
    literal = draw(
        st.sampled_from([digits, f"-{digits}", f"1e{len(digits)}", "NaN", "Infinity", "-Infinity"])
    )
    return '{"text": "x", "n": ' + literal + "}"


@st.composite
def _duplicates(draw: st.DrawFn) -> str:
    key = draw(st.sampled_from(["text", "a", "\\ud800"]))
    return f'{{"{key}": "1", "{key}": "2"}}'


def _render(value: Any) -> str:
    return json.dumps(value)  # surrogates become \ud800 escapes, as models send them


argument_texts = st.one_of(
    st.builds(lambda t: json.dumps({"text": t}), texts),  # the tool's own shape
    _VALUES.map(_render),
    st.dictionaries(texts, _VALUES, max_size=3).map(_render),
    _deep(),
    _numbers(),
    _duplicates(),
    st.sampled_from(["[1]", '"x"', "null", "", "  ", "{", '{"text": "\\ud800"}']),
    texts,
)

tool_calls = st.lists(st.tuples(tool_names, argument_texts), min_size=1, max_size=3)


def surrogate_free(text: str) -> bool:
    """No unpaired surrogate in the text, nor escaped in the JSON it may hold."""
    with contextlib.suppress(ValueError, RecursionError):
        text = json.dumps(json.loads(text), ensure_ascii=False)
    return not any(0xD800 <= ord(c) <= 0xDFFF for c in text)
