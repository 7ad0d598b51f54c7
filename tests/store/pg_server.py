"""A throwaway PostgreSQL server for the store tests, started once per test session.

`ensure_postgres()` returns a URL the tests may fill: `HOOKAGENT_TEST_POSTGRES_URL` if set,
else a server of our own. For that it finds `initdb`, `pg_ctl` and `postgres` (on PATH, then
in `/usr/lib/postgresql/<newest>/bin`), installs Debian's `postgresql` package if they are
missing and we are root with apt-get, creates a cluster in a fresh temporary folder (as the
`postgres` user when we are root: PostgreSQL refuses to run as root), starts it on a free
loopback port with durability off (tests need no crash safety), and stops it and removes the
folder when the process exits. When none can be had it returns None, and `reason()` says why.

`fresh_schema(url)` gives each test an empty schema of that server (its URL names it in
`search_path`), dropped afterwards: far faster than a database per test.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from debian_packages import NotInstalled, apt_install, tail

ENV = "HOOKAGENT_TEST_POSTGRES_URL"
TOOLS = ("initdb", "pg_ctl", "postgres")

_url: str | None = None
_reason = ""
_tried = False


def ensure_postgres() -> str | None:
    """A PostgreSQL URL for the tests, or None (then `reason()` says why); once a session."""
    global _url, _reason, _tried
    if not _tried:
        _tried = True
        try:
            _url = _ensure()
        except _Unavailable as exc:
            _reason = str(exc)
    return _url


def reason() -> str:
    """Why `ensure_postgres` found no server ("" if it found one)."""
    return _reason


def describe() -> str:
    """One line for the end of the test report: which server the tests used, or why none."""
    if not _tried:
        return "not needed by the tests that ran"
    if _url is None:
        return f"skipped: {_reason}"
    return f"ran against {_url}"


@contextlib.asynccontextmanager
async def fresh_schema(url: str) -> AsyncIterator[str]:
    """`url` with `search_path` set to a new, empty schema; the schema is dropped after."""
    import asyncpg

    name = f"t_{uuid.uuid4().hex[:16]}"
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f"CREATE SCHEMA {name}")
        try:
            yield f"{url}{'&' if '?' in url else '?'}search_path={name}"
        finally:
            await admin.execute(f"DROP SCHEMA {name} CASCADE")
    finally:
        await admin.close()


class _Unavailable(Exception):
    """No PostgreSQL server for the tests, and why."""


def _ensure() -> str:
    given = os.environ.get(ENV, "").strip()
    if given:
        return given
    tools = _find_tools()
    if tools is None:
        try:
            apt_install(
                "postgresql",
                "PostgreSQL is not installed (no initdb, pg_ctl and postgres on PATH or under "
                "/usr/lib/postgresql/*/bin)",
                f"install PostgreSQL or set {ENV}",
            )
        except NotInstalled as exc:
            raise _Unavailable(str(exc)) from exc
        tools = _find_tools()
        if tools is None:
            raise _Unavailable(
                "PostgreSQL's initdb, pg_ctl and postgres are not on PATH nor under "
                f"/usr/lib/postgresql/*/bin, and installing them failed; install PostgreSQL "
                f"or set {ENV}"
            )
    return _Server(tools).start()


def _find_tools() -> dict[str, Path] | None:
    found = {name: shutil.which(name) for name in TOOLS}
    if all(found.values()):
        return {name: Path(path) for name, path in found.items() if path}
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: [int(part) for part in p.parent.name.split(".") if part.isdigit()],
        reverse=True,
    )
    for folder in versions:
        if all((folder / name).is_file() for name in TOOLS):
            return {name: folder / name for name in TOOLS}
    return None


class _Server:
    """A cluster in a temporary folder, run by us or (when we are root) by `postgres`."""

    def __init__(self, tools: dict[str, Path]) -> None:
        self.tools = tools
        self.folder = Path(tempfile.mkdtemp(prefix="hookagent-pg-"))
        self.data = self.folder / "data"
        self.user = "postgres" if os.geteuid() == 0 else None

    def start(self) -> str:
        atexit.register(self.stop)
        try:
            if self.user is not None:
                _ensure_user(self.user)
                shutil.chown(self.folder, self.user, self.user)
            self._run(
                "initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                "--locale=C", "--no-sync",
            )  # fmt: skip
            port = _free_port()
            options = (
                f"-p {port} -k {shlex.quote(str(self.folder))} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            )
            log = self.folder / "server.log"
            self._run("pg_ctl", "-D", str(self.data), "-l", str(log), "-w", "-t", "60",
                      "-o", options, "start")  # fmt: skip
        except _Unavailable:
            self.stop()
            raise
        return f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def stop(self) -> None:
        if not self.folder.exists():
            return
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(_Unavailable):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        command: Sequence[str] = [str(self.tools[tool]), *args]
        if self.user is not None:
            command = (
                ["runuser", "-u", self.user, "--", *command]
                if shutil.which("runuser")
                else ["su", self.user, "-s", "/bin/sh", "-c", shlex.join(command)]
            )
        try:
            subprocess.run(command, cwd=self.folder, check=True, capture_output=True, timeout=120)
        except subprocess.CalledProcessError as exc:
            log = self.folder / "server.log"
            detail = tail(exc.stderr or exc.stdout)
            if log.exists():
                detail += " | server log: " + tail(log.read_bytes())
            raise _Unavailable(f"{tool} failed: {detail}") from exc
        except (subprocess.TimeoutExpired, OSError) as exc:
            raise _Unavailable(f"{tool} failed: {exc}") from exc


def _ensure_user(name: str) -> None:
    try:
        pwd.getpwnam(name)
    except KeyError:
        try:
            subprocess.run(["useradd", "-r", "-M", name], check=True, capture_output=True)
        except (subprocess.CalledProcessError, OSError) as exc:
            raise _Unavailable(
                f"PostgreSQL will not run as root, and creating the user {name!r} failed: {exc}"
            ) from exc


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
