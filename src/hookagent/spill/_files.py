"""The folder where a run keeps, whole, what was too long to show the model.

Each run has its own, `<root>/runs/<run_id>/`, made when the first file goes in: `<root>` is
the folder of the run's SQLite store (`.hookagent/` by default), else `.hookagent/` in the
directory the agent was built in. Files live as long as the run's records do: nothing here
deletes them.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path
from typing import IO, Final

__all__ = ["RUNS", "default_root", "new_file", "run_folder", "save_text"]

RUNS: Final = "runs"
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]+")
_SLICE: Final = 1 << 20
"""Characters encoded at a time when a long text is saved: memory stays one slice above it."""


def default_root(store: object | None) -> Path:
    """The folder of a SQLite store's file; for any other store, or none, `.hookagent` in
    the current directory (made absolute, so a later `chdir` does not move it)."""
    sqlite = sys.modules.get("hookagent.store._sqlite")  # loaded if `store` is one
    if sqlite is not None and isinstance(store, sqlite.SQLiteStore):
        return Path(store.url).resolve().parent
    return Path(".hookagent").resolve()


def run_folder(root: str | os.PathLike[str], run_id: str) -> Path:
    return Path(root) / RUNS / _safe(run_id)


def new_file(folder: Path, stem: str) -> tuple[str, IO[bytes]]:
    """A new file in `folder` (made if missing), named after `stem`, open for writing."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, path = tempfile.mkstemp(prefix=f"{_safe(stem)}-", suffix=".txt", dir=folder)
    return path, os.fdopen(fd, "wb")


def save_text(folder: Path, stem: str, text: str) -> str:
    """Write `text` whole (UTF-8; an unpaired surrogate as its `\\ud800` escape) to a new
    file in `folder`; its path. Raises `OSError`; a partly written file is removed."""
    path, out = new_file(folder, stem)
    try:
        with out:
            for start in range(0, len(text), _SLICE):
                out.write(text[start : start + _SLICE].encode("utf-8", "backslashreplace"))
    except OSError:
        Path(path).unlink(missing_ok=True)
        raise
    return path


def _safe(name: str) -> str:
    """`name` as one path component: anything but letters, digits, `_.-` becomes `_`."""
    return _UNSAFE.sub("_", name).strip(".") or "_"
