"""Whether a skill or agent file declares `hooks:`: a cheap look before the Claude Code hooks
layer, heavy to import, is loaded for it."""

from __future__ import annotations

from pathlib import Path

__all__ = ["declares_hooks"]


def declares_hooks(path: str | Path) -> bool:
    """A top-level `hooks:` key in the file's front matter (the text before its closing
    `---`); a file that cannot be read declares none (its loader reports it)."""
    try:
        head = Path(path).read_text(encoding="utf-8").split("\n---", 1)[0]
    except (OSError, UnicodeDecodeError):
        return False
    return "\nhooks:" in head
