"""Files a request names (settings and plugins to replay under, audit trails to verify): only
those under the directory `hookagent serve --files-root DIR` names, and none without it. A
caller never makes the server read, or import, a file its operator did not put there."""

from __future__ import annotations

from pathlib import Path

from fastapi import Request

from hookagent.server._problems import Problem

__all__ = ["confined"]


def confined(request: Request, given: str, what: str, *, suffix: str | None = None) -> Path:
    """The file `given` (relative to the files root) as an absolute path, checked: a 403
    problem if the server reads no files or it lies outside the root (symbolic links
    followed), 422 if it is not a relative path (or lacks `suffix`), 404 if it is missing."""
    root: Path | None = request.app.state.files_root
    if root is None:
        raise Problem(
            403,
            f"{what} {given!r}: this server reads no files; start it with "
            "`hookagent serve --files-root DIR` to let requests name files under DIR",
        )
    if "\x00" in given or Path(given).is_absolute() or not given.strip():
        raise Problem(422, f"{what} {given!r}: give a path relative to the server's --files-root")
    if suffix is not None and not given.endswith(suffix):
        raise Problem(422, f"{what} {given!r}: must be a {suffix} file under --files-root")
    path = (root / given).resolve()
    if not path.is_relative_to(root):
        raise Problem(403, f"{what} {given!r} is outside the server's --files-root")
    if not path.is_file():
        raise Problem(404, f"{what} {given!r}: no such file under the server's --files-root")
    return path
