"""Chromium for the inbox's browser test, installed once per test session when missing.

`ensure_chromium()` returns the path of a Chromium that Playwright's Python API (the `dev`
extra) can drive: `HOOKAGENT_TEST_CHROMIUM` if set, else `chromium` on PATH, else Debian's
`chromium` package installed with apt-get when we are root (as `tests/store/pg_server.py`
installs PostgreSQL). Playwright's own browser downloads are never used: they need a CDN.
When none can be had it returns None, and `describe()` says why in a line at the end of
the test report.
"""

from __future__ import annotations

import os
import shutil

from debian_packages import FoundOnce, NotInstalled, apt_install

ENV = "HOOKAGENT_TEST_CHROMIUM"
REMEDY = f"install Chromium (Debian package `chromium`) or set {ENV} to a Chromium binary"


def ensure_chromium() -> str | None:
    """A Chromium binary for Playwright, or None (then `reason()` says why); once a session.
    A `HOOKAGENT_TEST_CHROMIUM` that is no executable file is a ValueError, not a skip."""
    given = os.environ.get(ENV, "").strip()
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise ValueError(f"{ENV}={given!r} is not an executable file")
        _CHROMIUM.given(given)
    return _CHROMIUM.ensure()


def reason() -> str:
    """Why `ensure_chromium` found no browser ("" if it found one)."""
    return _CHROMIUM.reason


def describe() -> str:
    """One line for the end of the test report: which Chromium the tests drove, or why none."""
    return _CHROMIUM.describe()


def _find() -> str:
    found = shutil.which("chromium")
    if found is None:
        apt_install("chromium", "chromium is not on PATH", REMEDY)
        found = shutil.which("chromium")
        if found is None:
            raise NotInstalled(f"chromium is not on PATH after installing it; {REMEDY}")
    return found


_CHROMIUM = FoundOnce(_find)
