"""The `hookagent` command run for real, as a subprocess, for the CLI tests."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["hookagent"]


def hookagent(
    cwd: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`python -m hookagent ARGS` in `cwd`, colour off, `env` added to the environment."""
    return subprocess.run(
        [sys.executable, "-m", "hookagent", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        timeout=timeout,
        check=False,
    )
