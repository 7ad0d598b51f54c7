"""Write's and Edit's arguments, and what an edit does to a text: shared by the tools and by
their reconcile, so a resumed run judges a file by exactly the rules the edit applied."""

from __future__ import annotations

import os
from typing import Final

from pydantic import Field

from hookagent.capabilities.files._paths import PathError, Resolved, open_regular, os_errors
from hookagent.capabilities.files._tool import Args

__all__ = ["MAX_EDIT_BYTES", "EditArgs", "WriteArgs", "apply_edit", "read_text"]

MAX_EDIT_BYTES: Final = 16 << 20
"""Edit reads the whole file; larger files are refused."""


class WriteArgs(Args):
    file_path: str = Field(description="The file to write (absolute, or relative to the root).")
    content: str = Field(description="The whole new content of the file.")


class EditArgs(Args):
    file_path: str = Field(description="The file to edit (absolute, or relative to the root).")
    old_string: str = Field(description="The exact text to replace.")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence, not just a unique one."
    )


def read_text(found: Resolved) -> str:
    """The whole text of a file to edit; `PathError` if too large or not UTF-8."""
    fd, st = open_regular(found)
    with os.fdopen(fd, "rb") as f, os_errors(found.display):
        if st.st_size > MAX_EDIT_BYTES:
            raise PathError(
                f"{found.display}: {st.st_size} bytes is too large to edit "
                f"(limit {MAX_EDIT_BYTES}); use Write"
            )
        raw = f.read(MAX_EDIT_BYTES + 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PathError(f"{found.display}: is not a UTF-8 text file; cannot edit it") from None


def apply_edit(text: str, args: EditArgs, display: str) -> tuple[str, int]:
    """`text` edited, and how many replacements; `PathError` if the edit does not apply."""
    old, new = args.old_string, args.new_string
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old:  # Read shows CRLF lines without `\r`
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = text.count(old)
    if count == 0:
        raise PathError(
            f"{display}: old_string was not found. Read the file and copy the text exactly, "
            "including whitespace and indentation."
        )
    if count > 1 and not args.replace_all:
        raise PathError(
            f"{display}: old_string was found {count} times. Add surrounding context to make "
            "it unique, or set replace_all to replace every occurrence."
        )
    return text.replace(old, new), count
