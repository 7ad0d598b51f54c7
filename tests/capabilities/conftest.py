"""The `bwrap` fixture: a working bubblewrap for the Bash sandbox tests (installed once per
session when missing and we are root), or a skip whose reason ends the test report."""

from __future__ import annotations

import pytest

from . import sandbox_setup


@pytest.fixture(scope="session")
def bwrap() -> str:
    path = sandbox_setup.ensure_bwrap()
    if path is None:
        pytest.skip(f"no bubblewrap for the Bash sandbox tests: {sandbox_setup.reason()}")
    return path


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    terminalreporter.write_line(f"Bash sandbox tests: {sandbox_setup.describe()}")
