"""`Write{file_path, content}` and `Edit{file_path, old_string, new_string, replace_all?}`.

Both replace the file atomically: the new text goes to a temporary file in the same
directory (opened relative to the directory's fd, `O_EXCL | O_NOFOLLOW`), is fsynced and
renamed over the target with `os.replace`, so a reader sees the old file or the new one and a
failure part way leaves the old file as it was. An existing file keeps its mode. The
temporary file is named after the call's idempotency key: a process killed part way leaves
it behind, and the same call, run again or settled after the crash, removes it.

Because of that, a call a crash left in doubt can be settled by looking at the file: both
tools `reconcile` (see `reconcile.py`).
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable, Mapping
from contextlib import suppress
from typing import Any, Final, TypeVar, final

from hookagent.capabilities.files._edits import (
    MAX_EDIT_BYTES,
    EditArgs,
    WriteArgs,
    apply_edit,
    read_text,
)
from hookagent.capabilities.files._paths import PathError, Resolved, Root, describe, os_errors
from hookagent.capabilities.files._reconcile import reconcile_edit, reconcile_write
from hookagent.capabilities.files._tool import FileTool
from hookagent.tools._base import Reconciled, ToolContext, ToolResult

__all__ = [
    "MAX_EDIT_BYTES",
    "EditArgs",
    "EditTool",
    "WriteArgs",
    "WriteTool",
    "atomic_write",
    "temp_name",
]

A = TypeVar("A", WriteArgs, EditArgs)
_TEMP_FLAGS: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def temp_name(key: str | None) -> str:
    """The temporary file a call writes before the rename: one per call when it has a key."""
    return f".{key[:32] if key else secrets.token_hex(8)}.hookagent-tmp"


def atomic_write(
    parent_fd: int, name: str, data: bytes, mode: int | None, *, key: str | None = None
) -> None:
    """Replace `name` in the directory `parent_fd` with `data`; `mode` None for a new file
    (the umask applies), else the mode to keep; `key`, the call's idempotency key."""
    temp = temp_name(key)
    if key:  # what an earlier attempt of this very call, killed part way, left
        with suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=parent_fd)
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


_INVALID: Final = Reconciled.not_done("the arguments are invalid: the call could not run")


def _reconciler(
    model: type[A], settle: Callable[[Root, A], Reconciled]
) -> Callable[[FileTool[A], Mapping[str, Any], str], Reconciled]:
    """A tool's `reconcile` (see `reconcile.py`): its arguments read as `model`, then settled
    by `settle`; arguments that do not validate are not done, as the call could not run."""

    def reconcile(tool: FileTool[A], args: Mapping[str, Any], key: str, /) -> Reconciled:
        parsed = _parsed(model, args)
        if not parsed:
            return _INVALID
        answer = settle(tool.root, parsed)
        if answer.outcome != "unknown":  # settled: nothing of the call is half written
            _remove_temp(tool.root, parsed.file_path, key)
        return answer

    return reconcile


def _remove_temp(root: Root, path: str, key: str) -> None:
    """The temporary file a killed attempt of the call left beside its target, if any."""
    with suppress(PathError, OSError):
        found = root.resolve(root.locate(path))
        try:
            with suppress(FileNotFoundError):
                os.unlink(temp_name(key), dir_fd=found.parent_fd)
        finally:
            os.close(found.parent_fd)


def _parsed(model: type[A], args: Mapping[str, Any]) -> A | None:
    from pydantic import ValidationError

    try:
        return model.model_validate(dict(args))
    except ValidationError:
        return None


@final
class WriteTool(FileTool[WriteArgs]):
    name = "Write"
    description = (
        "Write a file, replacing it if it exists; missing parent directories are created. "
        "The write is atomic."
    )
    args_model = WriteArgs

    def execute(self, args: WriteArgs, ctx: ToolContext, /) -> ToolResult:
        where = self.root.locate(args.file_path)
        found = self.root.resolve(where, create_dirs=True)
        try:
            mode = _existing_mode(found)
            data = args.content.encode("utf-8")
            with os_errors(where.display):
                atomic_write(found.parent_fd, found.name, data, mode, key=ctx.idempotency_key)
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

    reconcile = _reconciler(WriteArgs, reconcile_write)


@final
class EditTool(FileTool[EditArgs]):
    name = "Edit"
    description = (
        "Replace exact text in a file. `old_string` must occur exactly once unless "
        "`replace_all` is set; copy it from Read's output without the line-number prefix. "
        "The write is atomic."
    )
    args_model = EditArgs

    def execute(self, args: EditArgs, ctx: ToolContext, /) -> ToolResult:
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
                data = new_text.encode("utf-8")
                atomic_write(found.parent_fd, found.name, data, mode, key=ctx.idempotency_key)
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

    reconcile = _reconciler(EditArgs, reconcile_edit)
