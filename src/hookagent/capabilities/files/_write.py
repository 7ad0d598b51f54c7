"""`Write{file_path, content}` and `Edit{file_path, old_string, new_string, replace_all?}`.

Both replace the file atomically: the new text goes to a temporary file in the same
directory (opened relative to the directory's fd, `O_EXCL | O_NOFOLLOW`), is fsynced and
renamed over the target with `os.replace`, so a reader sees the old file or the new one and a
failure part way leaves the old file as it was. An existing file keeps its mode.

Because of that, a call a crash left in doubt can be settled by looking at the file: both
tools `reconcile` (see `reconcile.py`).
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Mapping
from contextlib import suppress
from typing import Any, ClassVar, Final, TypeVar, final

from hookagent.capabilities.files._edits import (
    MAX_EDIT_BYTES,
    EditArgs,
    WriteArgs,
    apply_edit,
    read_text,
)
from hookagent.capabilities.files._paths import PathError, Resolved, describe, os_errors
from hookagent.capabilities.files._reconcile import reconcile_edit, reconcile_write
from hookagent.capabilities.files._tool import FileTool
from hookagent.tools._base import Reconciled, ToolResult

__all__ = ["MAX_EDIT_BYTES", "EditArgs", "EditTool", "WriteArgs", "WriteTool", "atomic_write"]

A = TypeVar("A", WriteArgs, EditArgs)
_TEMP_FLAGS: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def atomic_write(parent_fd: int, name: str, data: bytes, mode: int | None) -> None:
    """Replace `name` in the directory `parent_fd` with `data`; `mode` None for a new file
    (the umask applies), else the mode to keep."""
    temp = f".{secrets.token_hex(8)}.hookagent-tmp"
    fd = os.open(temp, _TEMP_FLAGS, 0o666 if mode is None else 0o600, dir_fd=parent_fd)
    try:
        try:
            _write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp, dir_fd=parent_fd)
        raise
    with suppress(OSError):  # the rename itself durable; not every filesystem allows it
        os.fsync(parent_fd)


def _existing_mode(found: Resolved) -> int | None:
    if found.stat is None:
        return None
    if not stat.S_ISREG(found.stat.st_mode):
        raise PathError(f"{found.display}: is {describe(found.stat.st_mode)}; cannot write it")
    return stat.S_IMODE(found.stat.st_mode)


@final
class WriteTool(FileTool[WriteArgs]):
    name: ClassVar[str] = "Write"
    description: ClassVar[str] = (
        "Write a file, replacing it if it exists; missing parent directories are created. "
        "The write is atomic."
    )
    args_model: ClassVar[type[Any]] = WriteArgs

    def reconcile(self, args: Mapping[str, Any], key: str, /) -> Reconciled:
        """Done if the file holds the content (sha256), else not done (see `reconcile.py`)."""
        parsed = _parsed(WriteArgs, args)
        return reconcile_write(self.root, parsed) if parsed else _INVALID

    def execute(self, args: WriteArgs) -> ToolResult:
        where = self.root.locate(args.file_path)
        found = self.root.resolve(where, create_dirs=True)
        try:
            mode = _existing_mode(found)
            data = args.content.encode("utf-8")
            with os_errors(where.display):
                atomic_write(found.parent_fd, found.name, data, mode)
        finally:
            os.close(found.parent_fd)
        lines = len(args.content.splitlines())
        return ToolResult(
            content=f"Successfully wrote {len(data)} bytes ({lines} lines) to {where.display}",
            data={
                "type": "create" if mode is None else "update",
                "filePath": where.display,
                "content": args.content,
                "success": True,
            },
        )


@final
class EditTool(FileTool[EditArgs]):
    name: ClassVar[str] = "Edit"
    description: ClassVar[str] = (
        "Replace exact text in a file. `old_string` must occur exactly once unless "
        "`replace_all` is set; copy it from Read's output without the line-number prefix. "
        "The write is atomic."
    )
    args_model: ClassVar[type[Any]] = EditArgs

    def reconcile(self, args: Mapping[str, Any], key: str, /) -> Reconciled:
        """By whether the file holds old_string or new_string (see `reconcile.py`)."""
        parsed = _parsed(EditArgs, args)
        return reconcile_edit(self.root, parsed) if parsed else _INVALID

    def execute(self, args: EditArgs) -> ToolResult:
        where = self.root.locate(args.file_path)
        if args.old_string == args.new_string:
            return ToolResult.error(
                f"{where.display}: old_string and new_string are identical; nothing to change"
            )
        if not args.old_string:
            return ToolResult.error(
                f"{where.display}: old_string must not be empty; use Write to create a file"
            )
        found = self.root.resolve(where)
        try:
            mode = _existing_mode(found)
            text = read_text(found)
            new_text, count = apply_edit(text, args, where.display)
            with os_errors(where.display):
                atomic_write(found.parent_fd, found.name, new_text.encode("utf-8"), mode)
        finally:
            os.close(found.parent_fd)
        return ToolResult(
            content=f"Successfully replaced {count} occurrence(s) in {where.display}",
            data={
                "filePath": where.display,
                "oldString": args.old_string,
                "newString": args.new_string,
                "replaceAll": args.replace_all,
            },
        )


_INVALID: Final = Reconciled.not_done("the arguments are invalid: the call could not run")


def _parsed(model: type[A], args: Mapping[str, Any]) -> A | None:
    from pydantic import ValidationError

    try:
        return model.model_validate(dict(args))
    except ValidationError:
        return None
