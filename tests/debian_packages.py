"""Debian packages the test setup installs for itself (PostgreSQL, bubblewrap, Chromium), so
a fresh machine runs every test with no step by hand: apt-get as root, the package lists
refreshed once if they are stale, no standard input; one install at a time across test
processes (apt-get refuses to run while another holds dpkg's lock)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["FoundOnce", "NotInstalled", "apt_install"]

INSTALL_TIMEOUT = 300.0
LOCK = Path(tempfile.gettempdir()) / "hookagent-tests-apt.lock"


class NotInstalled(Exception):
    """The package could not be installed, and why."""


def apt_install(package: str, missing: str, remedy: str) -> None:
    """Install `package` with apt-get; `NotInstalled` naming `missing` (what the tests lack)
    and `remedy` (what a person can do) when this is not root with apt-get, or it fails."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise NotInstalled(f"{missing} and this is not root with apt-get to install it; {remedy}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    wait = ["-o", f"DPkg::Lock::Timeout={int(INSTALL_TIMEOUT)}"]  # another apt-get's install
    install = ["apt-get", *wait, "install", "-y", "-q", package]
    failure = ""
    with _one_at_a_time():
        for attempt in ([install], [["apt-get", *wait, "update", "-q"], install]):  # stale lists
            try:
                for command in attempt:
                    subprocess.run(
                        command,
                        env=env,
                        check=True,
                        capture_output=True,
                        stdin=subprocess.DEVNULL,
                        timeout=INSTALL_TIMEOUT,
                    )
                return
            except subprocess.CalledProcessError as exc:
                failure = f"{shlex.join(exc.cmd)} failed: {tail(exc.stderr or exc.stdout)}"
            except (subprocess.TimeoutExpired, OSError) as exc:
                failure = f"installing {package} failed: {exc}"
    raise NotInstalled(f"{failure}; {remedy}")


@contextlib.contextmanager
def _one_at_a_time() -> Iterator[None]:
    """Hold the tests' install lock: test processes running side by side install in turn."""
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def tail(output: bytes | str | None, lines: int = 5) -> str:
    """The last lines of a command's output, on one line."""
    text = output.decode(errors="replace") if isinstance(output, bytes) else output or ""
    return " / ".join(text.strip().splitlines()[-lines:]) or "(no output)"


class FoundOnce:
    """A program the tests need, looked for (and installed) once a session: `find()` gives
    its path or raises `NotInstalled` saying why; `describe()` is the report's line."""

    def __init__(self, find: Callable[[], str]) -> None:
        self._find = find
        self.path: str | None = None
        self.reason = ""
        self.tried = False

    def ensure(self) -> str | None:
        """The path, or None (then `reason` says why)."""
        if not self.tried:
            self.tried = True
            try:
                self.path = self._find()
            except NotInstalled as exc:
                self.reason = str(exc)
        return self.path

    def given(self, path: str) -> None:
        """Use `path`, found by other means (an environment variable)."""
        self.path, self.tried = path, True

    def describe(self) -> str:
        """Which program the tests used, or why none: one line at the end of the report."""
        if not self.tried:
            return "not needed by the tests that ran"
        if self.path is None:
            return f"skipped: {self.reason}"
        return f"ran with {self.path}"
