"""How Write and Edit settle a call a crash left in doubt: by what the file holds now.

Both tools replace a file atomically (a temporary file renamed over it), so after a crash the
file holds what it held before the call, or what the call meant it to hold; nothing between.

- **Write** is done when the file's bytes have the content's sha256; not done when the file
  is absent or holds anything else (running the Write then puts the content there, whether
  or not it had been there for a moment).
- **Edit** is done when `old_string` no longer occurs and `new_string` does. It is not done
  when the file holds `old_string` as the edit needs it (once, or at least once with
  `replace_all`) and cannot be the edit's result: `new_string` is absent, or (one
  replacement) no place where it occurs could have been `old_string` before. Anything else
  is unknown, so the call stays in doubt: done is never said of an edit that might not have
  happened, nor not done of one that might have.
- A call the tool would refuse without touching anything (invalid arguments, a path outside
  the root or through something that is not a directory, an Edit of a missing file) is not
  done: running it again gives the same refusal. A file that cannot be read is unknown.

A file someone else changed meanwhile may look like either state: these rules assume the call
was the last to touch its file.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from typing import Final, TypeVar

from hookagent.capabilities.files._edits import EditArgs, WriteArgs, apply_edit, read_text
from hookagent.capabilities.files._paths import PathError, Resolved, Root, describe, open_regular
from hookagent.tools._base import Reconciled, ToolResult

__all__ = ["edit_state", "reconcile_edit", "reconcile_write"]

_WORK: Final = 1 << 26
"""Characters an Edit's reconcile may compare while it looks for a place the edit could have
been made; past this it answers unknown rather than hold the resume up."""
T = TypeVar("T")

_CHUNK: Final = 1 << 20
_FOUND: Final = "found on resume: the call had finished before the run was interrupted"


class _Absent(Exception):
    """Nothing the call could have made is at the path: it is not done."""


def reconcile_write(root: Root, args: WriteArgs) -> Reconciled:
    seen = _inspect(root, args.file_path, _sha256)
    if isinstance(seen, Reconciled):
        return seen
    found, digest = seen
    intended = args.content.encode("utf-8")
    if digest != hashlib.sha256(intended).hexdigest():
        return Reconciled.not_done(f"{found.display} holds other content than the write's")
    lines = len(args.content.splitlines())
    return Reconciled.done(
        ToolResult(
            content=(
                f"Successfully wrote {len(intended)} bytes ({lines} lines) to {found.display} "
                f"({_FOUND})"
            ),
            data={"filePath": found.display, "content": args.content, "success": True},
        ),
        f"{found.display} holds the content (sha256 {digest[:16]}…)",
    )


def reconcile_edit(root: Root, args: EditArgs) -> Reconciled:
    if not args.old_string or args.old_string == args.new_string:
        return Reconciled.not_done("the edit is refused as it stands: it changed nothing")
    seen = _inspect(root, args.file_path, _text)
    if isinstance(seen, Reconciled):
        return seen
    found, text = seen
    outcome, reason = edit_state(text, args)
    if outcome == "not_done":
        return Reconciled.not_done(reason)
    if outcome == "unknown":
        return Reconciled.unknown(reason)
    data = {
        "filePath": found.display,
        "oldString": args.old_string,
        "newString": args.new_string,
        "replaceAll": args.replace_all,
    }
    return Reconciled.done(
        ToolResult(content=f"Successfully edited {found.display} ({_FOUND})", data=data), reason
    )


def _inspect(
    root: Root, path: str, read: Callable[[Resolved], T]
) -> tuple[Resolved, T] | Reconciled:
    """What `read` finds at `path`: not done where nothing the call could have made is
    there, unknown where the OS would not let us look."""
    try:
        found = _find(root, path)
        try:
            return found, read(found)
        finally:
            os.close(found.parent_fd)
    except _Absent as exc:
        return Reconciled.not_done(str(exc))
    except PathError as exc:
        return Reconciled.unknown(str(exc))


def _text(found: Resolved) -> str:
    if found.stat is None:
        raise _Absent(f"{found.display} does not exist: an edit cannot have made it")
    return read_text(found)


def _find(root: Root, path: str) -> Resolved:
    """The resolved path; `_Absent` where the tool would refuse it before any effect, or
    where a directory on the way is missing; `PathError` for what the OS would not let us
    see (permissions)."""
    try:
        return root.resolve(root.locate(path))
    except PathError as exc:
        if isinstance(exc.__cause__, OSError):
            raise
        raise _Absent(f"{exc}: the call cannot have changed it") from exc


def _sha256(found: Resolved) -> str:
    if found.stat is None:
        raise _Absent(f"{found.display} does not exist")
    if not stat.S_ISREG(found.stat.st_mode):
        kind = describe(found.stat.st_mode)
        raise _Absent(f"{found.display} is {kind}: a write cannot have made it")
    fd, _ = open_regular(found)
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as file:
        try:
            while chunk := file.read(_CHUNK):
                digest.update(chunk)
        except OSError as exc:
            raise PathError(f"{found.display}: {exc.strerror or exc}") from exc
    return digest.hexdigest()


def edit_state(text: str, args: EditArgs) -> tuple[str, str]:
    """`done`, `not_done` or `unknown` for an Edit of a file that holds `text`, and why."""
    pairs = _pairs(args)
    if not _applies(text, args):
        gone = all(old not in text for old, _ in pairs)
        if gone and any(new in text for _, new in pairs):
            return "done", "old_string no longer occurs and new_string does"
        return "unknown", "the file holds neither the text the edit needs nor its result"
    if all(new and new not in text for _, new in pairs):
        return "not_done", "the file holds old_string as the edit needs it, and no new_string"
    if args.replace_all:
        return "unknown", "the file holds old_string as the edit needs it, and new_string"
    made = _could_be_result(text, args, pairs)
    if made is None:
        return "unknown", "too many places where the edit could have been made to check"
    if made:
        return "unknown", "the file could be the text before the edit or after it"
    return "not_done", "the file holds old_string as the edit needs it, and is not its result"


def _applies(text: str, args: EditArgs) -> bool:
    try:
        apply_edit(text, args, "")
    except PathError:
        return False
    return True


def _pairs(args: EditArgs) -> list[tuple[str, str]]:
    """The (old, new) strings the edit may have used: as given, and with CRLF line ends,
    which Edit uses in a file that has them when the `\\n` lines do not match."""
    old, new = args.old_string, args.new_string
    if "\n" not in old:
        return [(old, new)]
    return [(old, new), (old.replace("\n", "\r\n"), new.replace("\n", "\r\n"))]


def _could_be_result(text: str, args: EditArgs, pairs: list[tuple[str, str]]) -> bool | None:
    """Whether one replacement could have made `text` (None: too costly to tell): some place
    holding new_string that, put back to old_string, gives a file the edit turns into `text`.

    An edit of one replacement leaves no old_string but what its new_string makes: any other
    occurrence would have been there before too, and the edit would have refused a file
    holding two. So when `text` holds old_string, only places overlapping it are tried."""
    first = text.find(args.old_string)
    budget = max(1, _WORK // max(len(text), 1))
    for old, new in pairs:
        for at in _places(text, new, first, len(args.old_string)):
            budget -= 1
            if budget < 0:
                return None
            before = text[:at] + old + text[at + len(new) :]
            try:
                if apply_edit(before, args, "")[0] == text:
                    return True
            except PathError:
                continue
    return False


def _places(text: str, new: str, first: int, width: int) -> Iterator[int]:
    """Where `new` occurs in `text`; only where it overlaps `[first, first + width)` when
    `first` is not -1 (an empty `new` overlaps what it splits)."""
    low, high = 0, len(text)
    if first >= 0:
        low, high = max(0, first - len(new) + 1), first + width - 1
    if not new:
        yield from range(low, min(high, len(text)) + 1)
        return
    at = text.find(new, low)
    while 0 <= at <= high:
        yield at
        at = text.find(new, at + 1)
