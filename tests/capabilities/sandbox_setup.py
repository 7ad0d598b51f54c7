"""bubblewrap for the Bash sandbox tests, installed once per test session when missing.

`ensure_bwrap()` returns the path of a working `bwrap`: the one on PATH, else Debian's
`bubblewrap` package installed with apt-get when we are root (as `tests/store/pg_server.py`
installs PostgreSQL). A `bwrap` that cannot make its namespaces here (no user namespaces in
this container) counts as none. When none can be had it returns None, and `describe()` says
why in a line at the end of the test report.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

from hookagent.capabilities.bash.sandbox import probe_bwrap

INSTALL_TIMEOUT = 300.0

_path: str | None = None
_reason = ""
_tried = False


def ensure_bwrap() -> str | None:
    """A working `bwrap`, or None (then `reason()` says why); tried once a session."""
    global _path, _reason, _tried
    if not _tried:
        _tried = True
        try:
            _path = _ensure()
        except _Unavailable as exc:
            _reason = str(exc)
    return _path


def reason() -> str:
    return _reason


def describe() -> str:
    """One line for the end of the test report: which bwrap the tests used, or why none."""
    if not _tried:
        return "not needed by the tests that ran"
    if _path is None:
        return f"skipped: {_reason}"
    return f"ran with {_path}"


class _Unavailable(Exception):
    """No usable bubblewrap for the tests, and why."""


def _ensure() -> str:
    if shutil.which("bwrap") is None:
        _install()
    probe_bwrap.cache_clear()  # it may have been probed before the install
    found = probe_bwrap()
    if found.path is not None:
        return found.path
    raise _Unavailable(f"{found.reason}; install bubblewrap (Debian package `bubblewrap`)")


def _install() -> None:
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise _Unavailable(
            "bwrap is not on PATH and this is not root with apt-get to install it; install "
            "bubblewrap (Debian package `bubblewrap`)"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "bubblewrap"]
    failure = ""
    for attempt in ([install], [["apt-get", "update", "-q"], install]):  # stale lists: update
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
            failure = f"{shlex.join(exc.cmd)} failed: {_tail(exc.stderr or exc.stdout)}"
        except (subprocess.TimeoutExpired, OSError) as exc:
            failure = f"installing bubblewrap failed: {exc}"
    raise _Unavailable(f"{failure}; install bubblewrap (Debian package `bubblewrap`)")


def _tail(output: bytes | str | None, lines: int = 5) -> str:
    text = output.decode(errors="replace") if isinstance(output, bytes) else output or ""
    return " / ".join(text.strip().splitlines()[-lines:]) or "(no output)"
