"""`open_store`: a store from a URL or a path, as settings and the command line give it."""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from urllib.parse import parse_qs

from hookagent._errors import ConfigError
from hookagent.store._base import Store

__all__ = ["DEFAULT_PATH", "open_store"]

DEFAULT_PATH = Path(".hookagent") / "sessions.db"
"""Where a project's sessions live unless told otherwise (relative to the project)."""

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+):")
"""A URL's scheme: two characters at least, so that `C:\\x.db` stays a (Windows) path."""
_PASSWORD = re.compile(r"^([^:/]+://[^:@/]*:)[^@/]*@")


def open_store(
    url: str | os.PathLike[str] | None = None,
    *,
    project_dir: str | os.PathLike[str] = ".",
    durability: str | None = None,
) -> Store:
    """The store `url` names, not yet opened (`await store.open()` connects to it).

    - None: the SQLite file `<project_dir>/.hookagent/sessions.db`;
    - a path, or `sqlite:///path` (`sqlite:////abs/path` for an absolute one, as in
      SQLAlchemy): a SQLite file; a relative path is taken from `project_dir`;
      `sqlite:///path?durability=power` (or `durability=`) chooses what its commits survive
      (see `SQLiteStore`);
    - `memory:`: a `MemoryStore`, gone with the process;
    - `postgresql://…` or `postgres://…`: a `PostgresStore` (`pip install 'hookagent[postgres]'`).

    Anything else is a `ConfigError` naming the URL."""
    if url is None:
        return _sqlite(Path(project_dir) / DEFAULT_PATH, durability)
    if not isinstance(url, str):
        return _sqlite(_anchored(Path(url), project_dir), durability)
    match = _SCHEME.match(url)
    if match is None:
        if not url.strip():
            raise ConfigError("the store URL is empty", key="store", value=url)
        return _sqlite(_anchored(Path(url), project_dir), durability)
    scheme = match.group(1).lower()
    if url == "memory:":
        from hookagent.store._memory import MemoryStore

        return MemoryStore()
    if scheme == "sqlite":
        prefix = "sqlite:///"
        path = url[len(prefix) :] if url.startswith(prefix) else ""
        path, _, query = path.partition("?")
        durability = _durability(url, query, durability)
        if not path:
            raise ConfigError(
                f"a SQLite store URL is sqlite:///relative/path or sqlite:////absolute/path, "
                f"not {url!r}",
                key="store",
                value=url,
            )
        return _sqlite(_anchored(Path(path), project_dir), durability)
    if scheme in ("postgresql", "postgres"):
        if durability is not None or "durability=" in url:
            raise ConfigError(
                "durability is a SQLite store's choice; a PostgreSQL store's commits are as "
                "durable as the server's synchronous_commit makes them (on by default: they "
                "survive a power loss)",
                key="durability",
                value=_hide_password(url),
            )
        return _postgres(url)
    raise ConfigError(
        f"unknown store URL {_hide_password(url)!r}: use a path, sqlite:///path, memory: or "
        "postgresql://…",
        key="store",
        value=_hide_password(url),
    )


def _anchored(path: Path, project_dir: str | os.PathLike[str]) -> Path:
    path = path.expanduser()
    return path if path.is_absolute() else Path(project_dir) / path


def _durability(url: str, query: str, given: str | None) -> str | None:
    """The `durability` of a `sqlite:///` URL's query (none other is known), or `given`."""
    fields = parse_qs(query, keep_blank_values=True) if query else {}
    unknown = sorted(set(fields) - {"durability"})
    if unknown:
        raise ConfigError(
            f"unknown option {unknown[0]!r} in the store URL {url!r}; a SQLite store takes "
            "durability=process|power",
            key="store",
            value=url,
        )
    values = fields.get("durability", [])
    if len(values) > 1 or (values and given is not None and values[0] != given):
        raise ConfigError("durability is given twice, differently", key="store", value=url)
    return values[0] if values else given


def _sqlite(path: Path, durability: str | None = None) -> Store:
    from hookagent.store._sqlite import SQLiteStore

    return SQLiteStore(path, durability=durability or "process")  # type: ignore[arg-type]


def _postgres(url: str) -> Store:
    try:
        module = importlib.import_module("hookagent.store._postgres")
    except ImportError as exc:
        raise ConfigError(
            f"a PostgreSQL store ({_hide_password(url)}) needs the postgres extra: "
            f"pip install 'hookagent[postgres]' ({exc})",
            key="store",
            value=_hide_password(url),
        ) from exc
    store: Store = module.PostgresStore(url)
    return store


def _hide_password(url: str) -> str:
    return _PASSWORD.sub(r"\1***@", url)
