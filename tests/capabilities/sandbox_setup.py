"""bubblewrap for the Bash sandbox tests, installed once per test session when missing.

`ensure_bwrap()` returns the path of a working `bwrap`: the one on PATH, else Debian's
`bubblewrap` package installed with apt-get when we are root (as `tests/store/pg_server.py`
installs PostgreSQL). A `bwrap` that cannot make its namespaces here (no user namespaces in
this container) counts as none. When none can be had it returns None, and `describe()` says
why in a line at the end of the test report.
"""

from __future__ import annotations

import shutil

from debian_packages import FoundOnce, NotInstalled, apt_install
from hookagent.capabilities.bash._sandbox import probe_bwrap


def ensure_bwrap() -> str | None:
    """A working `bwrap`, or None (then `reason()` says why); tried once a session."""
    return _BWRAP.ensure()


def reason() -> str:
    return _BWRAP.reason


def describe() -> str:
    """One line for the end of the test report: which bwrap the tests used, or why none."""
    return _BWRAP.describe()


def _find() -> str:
    if shutil.which("bwrap") is None:
        apt_install(
            "bubblewrap",
            "bwrap is not on PATH",
            "install bubblewrap (Debian package `bubblewrap`)",
        )
    probe_bwrap.cache_clear()  # it may have been probed before the install
    found = probe_bwrap()
    if found.path is not None:
        return found.path
    raise NotInstalled(f"{found.reason}; install bubblewrap (Debian package `bubblewrap`)")


_BWRAP = FoundOnce(_find)
