"""Unpaired UTF-16 surrogates (U+D800 to U+DFFF standing alone).

A Python `str` can hold them: JSON's `"\\ud800"` escape decodes to one, and `os.fsdecode` makes
them of bytes that are not UTF-8. UTF-8 cannot encode them, so a provider's request body, a
terminal and the store all refuse such text. Where hookagent keeps or forwards text it does
not control, it writes each unpaired surrogate as U+FFFD, the replacement character: one
rule, so what a run wrote is what a resumed run reads.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["REPLACEMENT", "SURROGATE", "escaped", "replace", "replace_escapes"]

SURROGATE: Final = re.compile("[\ud800-\udfff]")
REPLACEMENT: Final = "\ufffd"

_ESCAPES: Final = re.compile(
    r"\\\\|\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}|\\ud[89a-f][0-9a-f]{2}"
)
"""In JSON written with `ensure_ascii`: an escaped backslash (skipped whole, so the `u` after
it is not read as an escape), a surrogate pair (one character above U+FFFF), or an unpaired
surrogate. `json.dumps` writes hex digits in lower case."""


def replace(text: str) -> str:
    """`text` with each unpaired surrogate as U+FFFD; `text` itself when it has none.

    In a `str`, a pair that makes one character is a single code point, so every code point
    in the surrogate range stands alone."""
    if text.isascii() or not SURROGATE.search(text):  # isascii: one C pass, most text
        return text
    return SURROGATE.sub(REPLACEMENT, text)


def replace_escapes(json_text: str) -> str:
    """JSON written by `json.dumps` (ASCII only), with each `\\uXXXX` escape of an unpaired
    surrogate written as `\\ufffd`; pairs and everything else are left as they are."""
    if "\\ud" not in json_text:
        return json_text
    return _ESCAPES.sub(_fix, json_text)


def _fix(match: re.Match[str]) -> str:
    found = match.group()
    return "\\ufffd" if len(found) == 6 else found


def escaped(char: str) -> str:
    """A surrogate as the escape a reader can quote back: `\\ud800`."""
    return f"\\u{ord(char):04x}"
