"""One Temporal dev server for the session (`dev_server`), on a free loopback port; every
test here uses it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from temporalio.client import Client

from temporal.dev_server import NotStarted, dev_server


@pytest.fixture(scope="session")
def temporal_address() -> Iterator[str]:
    try:
        server = dev_server()
        address = server.__enter__()
    except NotStarted as exc:
        pytest.skip(str(exc))
    try:
        yield address
    finally:
        server.__exit__(None, None, None)


@pytest.fixture
async def client(temporal_address: str) -> AsyncIterator[Client]:
    yield await Client.connect(temporal_address)
