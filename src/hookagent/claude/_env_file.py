"""The `CLAUDE_ENV_FILE` a hook tried on its own gets, and the exports it wrote there.

Claude Code gives SessionStart, Setup, CwdChanged and FileChanged hooks a file to append
`export` lines to; scripts written for it read the variable under `set -u`, so trying one
without it fails with `CLAUDE_ENV_FILE: unbound variable`. The caller's own file is used
when it set one (what the hooks add is reported and kept), else a temporary one, removed
once its lines are read.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final, final

__all__ = ["ENV_FILE_EVENTS", "ENV_FILE_KEY", "EnvFile", "env_file_for"]

ENV_FILE_EVENTS: Final = frozenset({"SessionStart", "Setup", "CwdChanged", "FileChanged"})

ENV_FILE_KEY: Final = "claude_env_file"
"""The run-metadata key naming a run's env file: SessionStart hooks write exports to it, and
the Bash tool sources it before each command."""


@final
@dataclass(slots=True)
class EnvFile:
    path: str
    start: int
    """Its size before the hooks ran: what follows is theirs."""
    exports: list[str] = field(default_factory=list[str])
    """The non-blank lines the hooks wrote, once they have run."""


@contextlib.contextmanager
def env_file_for(event: str, environ: dict[str, str] | None = None) -> Iterator[EnvFile | None]:
    """The env file for hooks of `event` (None where Claude Code sets none); its `exports`
    are filled in when the block ends."""
    if event not in ENV_FILE_EVENTS:
        yield None
        return
    own = (os.environ if environ is None else environ).get("CLAUDE_ENV_FILE")
    if own:
        env = EnvFile(own, _size(own))
    else:
        fd, path = tempfile.mkstemp(prefix="hookagent-env-", suffix=".sh")
        os.close(fd)
        env = EnvFile(path, 0)
    try:
        yield env
        env.exports = _written(env)
    finally:
        if not own:
            with contextlib.suppress(OSError):
                os.unlink(env.path)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _written(env: EnvFile) -> list[str]:
    try:
        with open(env.path, "rb") as file:
            file.seek(env.start)
            text = file.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.strip()]
