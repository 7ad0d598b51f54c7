"""bubblewrap for the Bash sandbox tests, installed once per test session when missing.

`ensure_bwrap()` returns the path of a working `bwrap`: the one on PATH, else Debian's
`bubblewrap` package installed with apt-get when we are root (as `tests/store/pg_server.py`
installs PostgreSQL). A `bwrap` that cannot make its namespaces here (no user namespaces in
this container) counts as none. When none can be had it returns None, and `describe()` says
why in a line at the end of the test report.
"""

from __future__ import annotations

import shutil

from debian_packages import NotInstalled, apt_install
from hookagent.capabilities.bash._sandbox import probe_bwrap

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
        try:
            apt_install(
                "bubblewrap",
                "bwrap is not on PATH",
                "install bubblewrap (Debian package `bubblewrap`)",
            )
        except NotInstalled as exc:
            raise _Unavailable(str(exc)) from exc
    probe_bwrap.cache_clear()  # it may have been probed before the install
    found = probe_bwrap()
    if found.path is not None:
        return found.path
    raise _Unavailable(f"{found.reason}; install bubblewrap (Debian package `bubblewrap`)")
