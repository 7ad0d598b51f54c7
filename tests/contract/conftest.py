"""The `backend` fixture: each durable backend the run contract holds for (SQLite,
PostgreSQL, Temporal), each skipped with its reason when its server cannot be had."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client

from contract.backends import Backend, StoreBackend, TemporalBackend
from hookagent.store import Store
from hookagent.store._open import open_store
from hookagent.store._sqlite import SQLiteStore
from store import pg_server
from store.conftest import postgres_server
from temporal.conftest import temporal_address

__all__ = ["postgres_server", "temporal_address"]


@pytest.fixture(
    params=[
        pytest.param("sqlite"),
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("temporal", marks=pytest.mark.temporal),
    ]
)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    if request.param == "temporal":
        address: str = request.getfixturevalue("temporal_address")
        async with TemporalBackend(await Client.connect(address), address).serving() as served:
            yield served
        return
    if request.param == "sqlite":
        await _opened(store := SQLiteStore(tmp_path / "sessions.db"))
        yield StoreBackend(store)
        await store.close()
        return
    async with pg_server.fresh_schema(request.getfixturevalue("postgres_server")) as url:
        await _opened(made := open_store(url))
        yield StoreBackend(made)
        await made.close()


async def _opened(store: Store) -> None:
    await store.open()
