"""What the model reads in place of a text too long to show: a preview and where the rest is.

The shape follows Claude Code's for persisted output: a `<persisted-output>` block saying how
large the whole was and where it was saved, then its first characters.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PREVIEW_CHARS", "preview"]

PREVIEW_CHARS: Final = 2_000
"""Characters of a cut text the model sees (Claude Code's preview is 2,000 too)."""


def preview(
    text: str,
    *,
    what: str,
    size: str,
    path: str | None,
    error: str | None = None,
    chars: int = PREVIEW_CHARS,
) -> str:
    """`text`'s first `chars` characters in a block naming what was cut (`what`), its whole
    `size` (e.g. `"31,457,280 bytes"`) and the file holding it, or why there is none."""
    head = text[:chars]
    if path is not None:
        where = f"Full output saved to: {path}"
    else:
        where = f"The full output could not be saved ({error or 'no folder to save it in'})."
    return (
        f"<persisted-output>\n{what} too large ({size}). {where}\n"
        f"Preview (first {len(head):,} characters):\n{head}\n</persisted-output>"
    )
