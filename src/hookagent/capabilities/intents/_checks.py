"""What the guards look at: which calls mutate, which file a call touches, whether that
file is in scope, and what its content hashes to now.

Paths are checked twice, as written (normalised lexically, as the file tools' `prepare`
sends them) and as resolved through symlinks: a link inside the scope that points outside
it does not widen the scope.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import stat
from collections.abc import Iterable, Mapping
from typing import Any, Final, final

from hookagent._record import record
from hookagent.capabilities.intents._spec import Intent

__all__ = ["NOT_A_FILE", "Target", "ToolSet", "content_hash", "in_scope"]

_CHUNK: Final = 1 << 20
NOT_A_FILE: Final = "not-a-regular-file"
"""What `content_hash` gives for a directory, a FIFO or a device: the tool refuses those."""


@final
class ToolSet:
    """A hook matcher: tool names, plus case-insensitive globs tested against the name and
    against its last `__` part (`mcp__fs__write_file` matches `write*`)."""

    __slots__ = ("_regex", "names", "patterns")
    uses_subject: Final = True

    def __init__(self, names: Iterable[str], patterns: Iterable[str] = ()) -> None:
        self.names: Final = frozenset(names)
        self.patterns: Final = tuple(patterns)
        joined = "|".join(fnmatch.translate(p.lower()) for p in self.patterns)
        self._regex = re.compile(joined) if joined else None

    def accepts(self, subject: str | None, event: Any, /) -> bool:
        if subject is None:
            return False
        if subject in self.names:
            return True
        if self._regex is None:
            return False
        lowered = subject.lower()
        return bool(self._regex.match(lowered) or self._regex.match(lowered.rpartition("__")[2]))

    def __repr__(self) -> str:
        return "|".join([*sorted(self.names), *self.patterns])


@record(kw_only=False)
class Target:
    """The file a call touches."""

    absolute: str
    """Made absolute against the root and normalised, as the model named it."""
    real: str
    """With symlinks resolved: the file that would change (and the key of its hash)."""
    rel: str | None
    """`absolute` below the root, `/`-separated; None if it is outside."""
    real_rel: str | None
    """`real` below the root; None if it is outside."""

    @property
    def shown(self) -> str:
        """How errors name it: below the root if it is there, else absolute."""
        return self.absolute if self.rel is None else self.rel

    @classmethod
    def of(
        cls, args: Mapping[str, Any], keys: Iterable[str], roots: tuple[str, ...]
    ) -> Target | None:
        """The first of `keys` holding a path in `args`, or None if none does (a tool
        such as Bash names no file). Blocking: it resolves symlinks."""
        raw = next((args[k] for k in keys if isinstance(args.get(k), str) and args[k]), None)
        if raw is None:
            return None
        absolute = os.path.normpath(os.path.join(roots[0], os.path.expanduser(raw)))
        real = os.path.realpath(absolute)
        return cls(absolute, real, _below(absolute, roots), _below(real, roots))


def _below(path: str, roots: tuple[str, ...]) -> str | None:
    for root in roots:
        if path == root:
            return ""
        prefix = root.rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix) :]
    return None


def in_scope(intent: Intent, target: Target) -> bool:
    """Whether the file, both as named and as resolved, matches a glob of the intent."""
    return all(
        rel is not None and any(p.match(rel) for p in intent.patterns)
        for rel in (target.rel, target.real_rel)
    )


def content_hash(path: str) -> str | None:
    """The sha256 of a regular file's content; None if there is no file there; `NOT_A_FILE`
    for anything else. `O_NONBLOCK`, so a FIFO cannot hang the open."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        return NOT_A_FILE
    with open(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return NOT_A_FILE
        digest = hashlib.sha256()
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
