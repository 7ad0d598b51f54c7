"""The `store` fixture: every store implementation, opened, for the contract tests.

A store joins the contract by one line in `FACTORIES` (and one `param` if it needs a
server). PostgreSQL runs only when `HOOKAGENT_TEST_POSTGRES_URL` names a database the tests
may fill; `open_store` finds `PostgresStore` once it exists, and each test needs a store that
starts empty (a fresh database or schema per test: the PostgresStore author's to settle)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from hookagent.store import MemoryStore, Store
from hookagent.store.open import open_store
from hookagent.store.sqlite import SQLiteStore

POSTGRES_URL = os.environ.get("HOOKAGENT_TEST_POSTGRES_URL", "")

FACTORIES: dict[str, Callable[[Path], object]] = {
    "memory": lambda tmp_path: MemoryStore(),
    "sqlite": lambda tmp_path: SQLiteStore(tmp_path / "sessions.db"),
    "postgres": lambda tmp_path: open_store(POSTGRES_URL),
}

STORE_PARAMS = [
    pytest.param("memory"),
    pytest.param("sqlite"),
    pytest.param(
        "postgres",
        marks=pytest.mark.skipif(
            not POSTGRES_URL,
            reason="set HOOKAGENT_TEST_POSTGRES_URL to a PostgreSQL database to run the "
            "store contract against PostgresStore",
        ),
    ),
]


@pytest.fixture(params=STORE_PARAMS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    made = FACTORIES[request.param](tmp_path)
    assert isinstance(made, Store)
    await made.open()
    try:
        yield made
    finally:
        await made.close()
