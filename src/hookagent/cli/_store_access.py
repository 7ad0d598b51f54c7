"""The store behind the session commands: opened from `--store`, looked into without being
created, used on a fresh event loop per command; its errors become the command's exit code."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from hookagent._errors import StoreError

if TYPE_CHECKING:
    from hookagent.store._base import Store

__all__ = ["existing", "guard", "in_store", "missing", "open_at"]

T = TypeVar("T")


def guard(action: Callable[[], int]) -> int:
    """`action()`'s exit code; a configuration or store error printed, as exit 2."""
    from hookagent.cli._exits import guarded

    return guarded(action)


def open_at(url: str | None) -> Store:
    """The store at `url` (a path or URL; the project's default if None), not yet open."""
    from hookagent.store._open import open_store

    return open_store(url, project_dir=os.getcwd())


def existing(url: str | None) -> Store:
    """The store at `url`, which must exist already: looking into a store never creates one."""
    store = open_at(url)
    if missing(store):
        raise StoreError(f"no store at {store.url}: no session has been kept there")
    return store


def missing(store: Store) -> bool:
    """Whether `store` is an SQLite file that does not exist yet."""
    from hookagent.store._sqlite import SQLiteStore

    return isinstance(store, SQLiteStore) and not Path(store.url).exists()


def in_store(store: Store, action: Callable[[Store], Awaitable[T]]) -> T:
    """`action(store)` on a fresh event loop, the store open around it."""
    import asyncio

    async def go() -> T:
        await store.open()
        try:
            return await action(store)
        finally:
            await store.close()

    return asyncio.run(go())
