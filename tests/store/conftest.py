"""The `store` fixture: every store implementation, opened, for the contract tests.

A store joins the contract by one line in `FACTORIES` and one `param` (one that needs a
server gets its own branch in `store`, as PostgreSQL has). PostgreSQL runs against
`HOOKAGENT_TEST_POSTGRES_URL` if set (a database the tests may fill), else against a
throwaway server `pg_server` starts once per test session, and is skipped, with the reason
at the end of the report, when there is none. Each PostgreSQL test gets an empty schema of
its own (`pg_server.fresh_schema`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from hookagent.store import MemoryStore, Store
from hookagent.store._open import open_store
from hookagent.store._sqlite import SQLiteStore

from . import pg_server

FACTORIES: dict[str, Callable[[Path], object]] = {
    "memory": lambda tmp_path: MemoryStore(),
    "sqlite": lambda tmp_path: SQLiteStore(tmp_path / "sessions.db"),
}

STORE_PARAMS = [
    pytest.param("memory"),
    pytest.param("sqlite"),
    pytest.param("postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=STORE_PARAMS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    async with contextlib.AsyncExitStack() as stack:
        if request.param == "postgres":
            server = request.getfixturevalue("postgres_server")
            made: object = open_store(
                await stack.enter_async_context(pg_server.fresh_schema(server))
            )
        else:
            made = FACTORIES[request.param](tmp_path)
        assert isinstance(made, Store)
        await made.open()
        stack.push_async_callback(made.close)
        yield made


# -- PostgreSQL ---------------------------------------------------------------------------
@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The URL of the tests' PostgreSQL server (started on first use), or a skip saying why
    there is none."""
    url = pg_server.ensure_postgres()
    if url is None:
        pytest.skip(f"no PostgreSQL for the store tests: {pg_server.reason()}")
    return url


@pytest.fixture
async def postgres_url(postgres_server: str) -> AsyncIterator[str]:
    """A URL of the tests' PostgreSQL server whose `search_path` is a new, empty schema."""
    async with pg_server.fresh_schema(postgres_server) as url:
        yield url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    terminalreporter.write_line(f"PostgreSQL store tests: {pg_server.describe()}")
